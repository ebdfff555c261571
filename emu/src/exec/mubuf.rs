//! MUBUF untyped buffer loads, stores and atomics through a V# resource descriptor: base, stride,
//! num_records, swizzle (element size, index stride) and add_tid; offen/idxen addressing;
//! range checking as the hardware does it (out-of-range loads read 0, stores are dropped;
//! dwordx2..x4 are checked per dword, everything else whole).
//! This is also how compiled code reaches the private segment (stack and spills).

use super::access::{self, Addr};
use super::ds::spread;
use super::flat::{d16_merge, d16_value};
use super::valu::Res;
use super::vmem_ops::{self, VectorMemory};
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::Atomic;

/// The fields of a V# the address calculation uses.
#[derive(Debug)]
pub(super) struct Resource {
    /// Word 3 as a whole: DST_SEL_X/Y/Z/W [11:0], NUM_FORMAT [14:12], DATA_FORMAT [18:15]...
    pub word3: u32,
    base: u64,
    stride: u64,
    num_records: u64,
    swizzle: bool,
    /// log2 of the swizzle's element size (2–16 bytes) and index stride (8–64): the address
    /// is worked out per lane, and shifts instead of divisions showed in profiles (spills go
    /// through here).
    element_shift: u32,
    index_shift: u32,
    add_tid: bool,
}

pub(super) fn resource(cx: &Cx, d: &Decoded) -> Resource {
    let r = d.regs[2] as usize & 124;
    let w = &cx.wave.sgpr;
    Resource {
        word3: w[r + 3],
        base: w[r] as u64 | ((w[r + 1] & 0xffff) as u64) << 32,
        stride: ((w[r + 1] >> 16) & 0x3fff) as u64,
        num_records: w[r + 2] as u64,
        swizzle: w[r + 1] >> 31 != 0,
        element_shift: 1 + ((w[r + 3] >> 19) & 3),
        index_shift: 3 + ((w[r + 3] >> 21) & 3),
        add_tid: w[r + 3] >> 23 & 1 != 0,
    }
}

impl Resource {
    /// The byte offset from the base of element `index`, byte `offset`: swizzled, (index / is *
    /// stride + offset / es * es) * is + (index % is) * es + offset % es, else index * stride +
    /// offset.
    #[inline(always)]
    fn relative(&self, index: u64, offset: u64) -> u64 {
        if !self.swizzle {
            return index * self.stride + offset;
        }
        let (es, is) = (self.element_shift, self.index_shift);
        let in_element = offset & ((1 << es) - 1);
        (((index >> is) * self.stride + (offset - in_element)) << is)
            + ((index & ((1 << is) - 1)) << es)
            + in_element
    }
}

impl Resource {
    /// How far each lane's next dword of a multi-dword access lies past its previous one, when
    /// that is the same for every lane and dword, with the range check of dword 0 holding for
    /// all of them: a structured buffer (the check is on the index) unswizzled (4 bytes on) or
    /// swizzled with 4-byte elements (the next element of the lane's record: 4 << index_shift
    /// on — scratch, for one). `None` for raw buffers, whose check is per dword.
    fn part_stride(&self) -> Option<u64> {
        if self.stride == 0 && !self.swizzle {
            return None;
        }
        match (self.swizzle, self.element_shift) {
            (false, _) => Some(4),
            (true, 2) => Some(4 << self.index_shift),
            (true, _) => None,
        }
    }
}

/// The soffset operand: an SGPR or an inline integer.
fn soffset(cx: &Cx, d: &Decoded) -> u64 {
    let c = d.regs[3];
    match c {
        0..=127 => cx.wave.sgpr[c as usize] as u64,
        _ => gcn_isa::operand::inline_int(c).unwrap_or(0) as u32 as u64,
    }
}

/// Address of lane `l`'s access of `bytes`, or `None` if it is out of range.
pub(super) fn address(cx: &Cx, d: &Decoded, rsrc: &Resource, l: usize, bytes: u64) -> Option<u64> {
    part_address(cx, d, rsrc, l, 0, bytes)
}

/// Address of the `bytes` at byte `extra` of lane `l`'s access (one dword of a multi-dword
/// access, which the hardware range-checks dword by dword), or `None` if out of range.
fn part_address(
    cx: &Cx,
    d: &Decoded,
    rsrc: &Resource,
    l: usize,
    extra: u64,
    bytes: u64,
) -> Option<u64> {
    let offen = d.inst.bits(0, 12, 1) != 0;
    let idxen = d.inst.bits(0, 13, 1) != 0;
    let vaddr = d.regs[0].saturating_sub(256) as usize;
    let v = |i: usize| cx.wave.vgpr[(vaddr + i) % 256][l] as u64;
    let mut index = if idxen { v(0) } else { 0 };
    if rsrc.add_tid {
        index += l as u64;
    }
    let offset = if offen { v(idxen as usize) } else { 0 } + d.inst.bits(0, 0, 12) as u64 + extra;
    // Raw buffers check the byte range, structured buffers the index.
    if rsrc.stride == 0 && !rsrc.swizzle {
        if offset + bytes > rsrc.num_records {
            return None;
        }
    } else if !rsrc.add_tid && index >= rsrc.num_records {
        return None;
    }
    Some(
        rsrc.base
            .wrapping_add(soffset(cx, d))
            .wrapping_add(rsrc.relative(index, offset)),
    )
}

/// The address of dword `part` of every lane in `exec`, or `None` if one is out of range:
/// [`part_address`] for all lanes at once, with what is the same for every lane worked out
/// once, so the lane loop vectorises.
fn lane_addresses(
    cx: &Cx,
    d: &Decoded,
    rsrc: &Resource,
    exec: u64,
    part: u64,
) -> Option<[u64; WAVE_SIZE]> {
    let offen = d.inst.bits(0, 12, 1) != 0;
    let idxen = d.inst.bits(0, 13, 1) != 0;
    let vaddr = d.regs[0].saturating_sub(256) as usize;
    let zero = [0u32; WAVE_SIZE];
    let vindex = if idxen { &cx.wave.vgpr[vaddr] } else { &zero };
    let voffset = if offen {
        &cx.wave.vgpr[(vaddr + idxen as usize) % 256]
    } else {
        &zero
    };
    let inst_offset = d.inst.bits(0, 0, 12) as u64 + 4 * part;
    let base = rsrc.base.wrapping_add(soffset(cx, d));
    let tid = rsrc.add_tid as u64;
    let raw = rsrc.stride == 0 && !rsrc.swizzle;
    let mut addrs = [0u64; WAVE_SIZE];
    let mut bad = 0u64;
    for l in 0..WAVE_SIZE {
        let index = vindex[l] as u64 + tid * l as u64;
        let offset = voffset[l] as u64 + inst_offset;
        let out = if raw {
            offset + 4 > rsrc.num_records
        } else {
            !rsrc.add_tid && index >= rsrc.num_records
        };
        bad |= (out as u64) << l;
        addrs[l] = base.wrapping_add(rsrc.relative(index, offset));
    }
    (bad & exec == 0).then_some(addrs)
}

/// Every active lane's address for a byte or short access when each is in range (checked as a
/// dword's, which holds the narrower access), the lanes' bytes being contiguous from there as
/// the per-lane path reads them: the one-lookup paths of the narrow loads and stores. None
/// under a sanitizer, whose per-lane path reports each lane.
fn narrow_addresses(cx: &Cx, d: &Decoded, rsrc: &Resource, exec: u64) -> Option<[u64; WAVE_SIZE]> {
    if cx.mem.checking() {
        return None;
    }
    lane_addresses(cx, d, rsrc, exec, 0)
}

/// The address of every active lane's access that is in range, for the timing model's memory
/// system ([`super::lanes`]; MTBUF shares the addressing).
pub(super) fn timing_lanes(cx: &Cx, d: &Decoded, bytes: u64, out: &mut Vec<(usize, u64)>) {
    let rsrc = resource(cx, d);
    let exec = cx.wave.exec();
    for l in (0..WAVE_SIZE).filter(|&l| exec >> l & 1 != 0) {
        if let Some(a) = address(cx, d, &rsrc, l, bytes) {
            out.push((l, a));
        }
    }
}

/// Where a wave's access lies when it is scratch as compiled code reaches it — the private
/// segment buffer, swizzled with 4-byte elements and an index stride of 64, the lane id added
/// to the index, no index VGPR, one offset for every active lane (none or a VGPR holding the
/// same value in each), dword aligned: lane `l`'s dword `part` is then at `start + 256 * part
/// + 4 * l` ([`Resource::relative`] with index `l` < 64), with no range check (add_tid), and
/// the access is whole rows of one block ([`crate::memory::Memory::load_rows`]). Stack
/// variables and spills are a sixth of the instructions rocPRIM's `-O1` `adjacent_difference`
/// kernels run, and this spares the 64 per-lane addresses. Returns `start`.
fn scratch_rows(cx: &Cx, d: &Decoded, rsrc: &Resource, exec: u64) -> Option<u64> {
    let scratch_layout =
        rsrc.swizzle && rsrc.add_tid && rsrc.element_shift == 2 && rsrc.index_shift == 6;
    if !scratch_layout || d.inst.bits(0, 13, 1) != 0 || exec == 0 || cx.mem.checking() {
        return None;
    }
    let mut offset = d.inst.bits(0, 0, 12) as u64;
    if d.inst.bits(0, 12, 1) != 0 {
        let voffset = &cx.wave.vgpr[d.regs[0].saturating_sub(256) as usize % 256];
        let first = voffset[exec.trailing_zeros() as usize];
        let mut differ = 0u64;
        for (l, &v) in voffset.iter().enumerate() {
            differ |= ((v != first) as u64) << l;
        }
        if differ & exec != 0 {
            return None;
        }
        offset += first as u64;
    }
    if !offset.is_multiple_of(4) {
        return None;
    }
    Some(
        rsrc.base
            .wrapping_add(soffset(cx, d))
            .wrapping_add(offset << rsrc.index_shift),
    )
}

/// Loads `dwords` dwords per lane into `out` when every lane's every dword is in range and each
/// dword's lanes lie in one allocation (spills and stack reads: the private segment buffer,
/// swizzled, puts one dword of 64 lanes in 256 contiguous bytes). Inactive lanes may be
/// loaded too; the caller keeps the active ones. False, with nothing counted, for the per-lane
/// path to do it (out of range reads 0, faults name the lane).
fn dwords_in_range(
    cx: &Cx,
    d: &Decoded,
    rsrc: &Resource,
    exec: u64,
    dwords: usize,
    out: &mut [[u32; WAVE_SIZE]; 4],
) -> bool {
    if cx.mem.checking() {
        return false;
    }
    if let Some(start) = scratch_rows(cx, d, rsrc, exec) {
        if cx.mem.load_rows(start, &mut out[..dwords]) {
            return true;
        }
    }
    let Some(first) = lane_addresses(cx, d, rsrc, exec, 0) else {
        return false;
    };
    if !cx.mem.load_dwords(&first, exec, &mut out[0]) {
        return false;
    }
    (1..dwords).all(|i| {
        let addrs = match rsrc.part_stride() {
            // Every lane's dword `i` lies the same distance past its dword 0.
            Some(step) => first.map(|a| a.wrapping_add(step * i as u64)),
            None => match lane_addresses(cx, d, rsrc, exec, i as u64) {
                Some(a) => a,
                None => return false,
            },
        };
        cx.mem.load_dwords(&addrs, exec, &mut out[i])
    })
}

pub(super) fn lds_bit(d: &Decoded) -> Result<(), Fault> {
    if d.inst.bits(0, 16, 1) != 0 {
        return Err(Fault::Unsupported("buffer loads with lds=1"));
    }
    Ok(())
}

fn load(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool) -> Res {
    let to_lds = d.inst.bits(0, 16, 1) != 0;
    if to_lds && bytes > 4 {
        // LLVM accepts dwordx2..x4 with lds on gfx8+, but the ISA documents only dword and
        // smaller ("not described in AMD documentation"): where their lanes land is unknown.
        return Err(Fault::Unsupported(
            "buffer loads wider than a dword with lds=1",
        ));
    }
    let rsrc = resource(cx, d);
    let exec = cx.wave.exec();
    let vdata = d.regs[1].saturating_sub(256) as usize;
    if !to_lds && exec == u64::MAX && bytes.is_multiple_of(4) && !cx.mem.checking() {
        // A spill reload of the whole wave: its rows go straight into the VGPRs.
        if let Some(start) = scratch_rows(cx, d, &rsrc, exec) {
            let Cx { wave, mem, .. } = cx;
            if let Some(rows) = wave.vgpr.rows_mut(vdata, bytes / 4) {
                // Nothing is loaded unless the whole block is in one allocation.
                if mem.load_rows(start, rows) {
                    return Ok(Flow::Continue);
                }
            }
        }
    }
    let mut out = [[0u32; WAVE_SIZE]; 4];
    if !to_lds
        && bytes.is_multiple_of(4)
        && dwords_in_range(cx, d, &rsrc, exec, bytes / 4, &mut out)
    {
        for (i, row) in out.iter().enumerate().take(bytes / 4) {
            cx.wave.write_row(vdata + i, row, exec);
        }
        return Ok(Flow::Continue);
    }
    if !to_lds && bytes < 4 {
        if let Some(addrs) = narrow_addresses(cx, d, &rsrc, exec) {
            if cx.mem.load_lanes(&addrs, exec, bytes, &mut out) {
                if signed {
                    let shift = 32 - 8 * bytes as u32;
                    out[0]
                        .iter_mut()
                        .for_each(|v| *v = ((*v << shift) as i32 >> shift) as u32);
                }
                cx.wave.write_row(vdata, &out[0], exec);
                return Ok(Flow::Continue);
            }
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let mut buf = [0u8; 16];
        // Sub-dword and dword loads are checked whole, wider ones dword by dword (ISA: an
        // out-of-range dword of a dwordx2..x4 reads 0, the in-range ones load).
        let part = bytes.min(4);
        for (i, chunk) in buf[..bytes].chunks_mut(part).enumerate() {
            if let Some(a) = part_address(cx, d, &rsrc, l, (i * part) as u64, part as u64) {
                access::load(cx, l, Addr::Global(a), chunk)?;
            }
        }
        spread(&buf, bytes, signed, &mut out, l);
    }
    if to_lds {
        return load_to_lds(cx, d, exec, &out[0]);
    }
    for (i, row) in out.iter().enumerate().take(bytes.div_ceil(4)) {
        cx.wave.write_row(vdata + i, row, exec);
    }
    Ok(Flow::Continue)
}

/// lds=1: the loaded dwords go to LDS instead of VDATA (Vega ISA, "buffer load to LDS"):
/// LDS_ADDR = LDS_offset + inst_offset + TID * 4, LDS_offset being M0[15:0] (the workgroup's
/// LDS base is our address 0). Sub-dword loads store their extended dword.
pub(super) fn load_to_lds(cx: &mut Cx, d: &Decoded, exec: u64, vals: &[u32; WAVE_SIZE]) -> Res {
    let base = (cx.wave.m0() & 0xffff) + d.inst.bits(0, 0, 12);
    lds_dma(cx, exec, base, vals, "store (buffer load with lds=1)")
}

/// Writes each active lane's dword of `vals` to LDS at `base + lane * 4`, as the loads into LDS
/// do (the sanitizers see DMA writes); `what` names the access in a fault.
pub(super) fn lds_dma(
    cx: &mut Cx,
    exec: u64,
    base: u32,
    vals: &[u32; WAVE_SIZE],
    what: &'static str,
) -> Res {
    if cx.mem.checking() {
        // So that initcheck sees these bytes written.
        super::check_lds::shadow(cx);
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let addr = base.wrapping_add(4 * l as u32);
        if cx.lds.write_u32(addr, vals[l]).is_none() {
            return Err(Fault::Lds {
                lane: l as u8,
                what,
                addr,
                len: 4,
                size: cx.lds.size(),
            });
        }
    }
    Ok(Flow::Continue)
}

/// buffer_load_{ubyte,sbyte,short}_d16[_hi]: one half of VDATA, the other kept; out of range
/// reads 0 into the half.
fn load_d16(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool, hi: bool) -> Res {
    lds_bit(d)?;
    let rsrc = resource(cx, d);
    let exec = cx.wave.exec();
    let vdata = d.regs[1].saturating_sub(256) as usize;
    let mut out = cx.wave.vgpr[vdata];
    if let Some(addrs) = narrow_addresses(cx, d, &rsrc, exec) {
        let mut loaded = [[0u32; WAVE_SIZE]; 4];
        if cx.mem.load_lanes(&addrs, exec, bytes, &mut loaded) {
            for (o, v) in out.iter_mut().zip(loaded[0]) {
                *o = d16_merge(*o, d16_value(&v.to_le_bytes(), bytes, signed), hi);
            }
            cx.wave.write_row(vdata, &out, exec);
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let mut buf = [0u8; 2];
        if let Some(a) = address(cx, d, &rsrc, l, bytes as u64) {
            access::load(cx, l, Addr::Global(a), &mut buf[..bytes])?;
        }
        out[l] = d16_merge(out[l], d16_value(&buf, bytes, signed), hi);
    }
    cx.wave.write_row(vdata, &out, exec);
    Ok(Flow::Continue)
}

/// buffer_store_{byte,short}_d16_hi: the low bytes of VDATA[31:16]; out of range is dropped.
fn store_d16_hi(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
    let rsrc = resource(cx, d);
    let exec = cx.wave.exec();
    let vdata = d.regs[1].saturating_sub(256) as usize;
    if let Some(addrs) = narrow_addresses(cx, d, &rsrc, exec) {
        let high = cx.wave.vgpr[vdata].map(|v| v >> 16);
        if cx.mem.store_lanes(&addrs, exec, bytes, [&high; 4]) {
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let Some(a) = address(cx, d, &rsrc, l, bytes as u64) else {
            continue;
        };
        let v = (cx.wave.vgpr[vdata][l] >> 16) as u16;
        access::store(cx, l, Addr::Global(a), &v.to_le_bytes()[..bytes])?;
    }
    Ok(Flow::Continue)
}

fn store(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
    let rsrc = resource(cx, d);
    let exec = cx.wave.exec();
    let vdata = d.regs[1].saturating_sub(256) as usize;
    if bytes.is_multiple_of(4) {
        if let Some(start) = scratch_rows(cx, d, &rsrc, exec) {
            // Every lane's every dword has its own address: the order does not matter.
            let vgpr = &cx.wave.vgpr;
            if cx
                .mem
                .store_rows(start, exec, bytes / 4, |i| &vgpr[(vdata + i) % 256])
            {
                return Ok(Flow::Continue);
            }
        }
    }
    // A byte or short per lane, stored in lane order as the per-lane path does.
    if bytes < 4 {
        if let Some(addrs) = narrow_addresses(cx, d, &rsrc, exec) {
            let row = &cx.wave.vgpr[vdata];
            if cx.mem.store_lanes(&addrs, exec, bytes, [row; 4]) {
                return Ok(Flow::Continue);
            }
        }
    }
    // One dword per lane (wider stores keep the per-lane order, which decides overlaps).
    if bytes == 4 && !cx.mem.checking() {
        if let Some(addrs) = lane_addresses(cx, d, &rsrc, exec, 0) {
            let vals = cx.wave.vgpr[vdata];
            if cx.mem.store_dwords(&addrs, exec, &vals) {
                return Ok(Flow::Continue);
            }
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let mut buf = [0u8; 16];
        for i in 0..bytes.div_ceil(4) {
            let v = cx.wave.vgpr[(vdata + i) % 256][l];
            buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        // Range-checked dword by dword like the loads; out-of-range dwords are dropped.
        let part = bytes.min(4);
        for (i, chunk) in buf[..bytes].chunks(part).enumerate() {
            if let Some(a) = part_address(cx, d, &rsrc, l, (i * part) as u64, part as u64) {
                access::store(cx, l, Addr::Global(a), chunk)?;
            }
        }
    }
    Ok(Flow::Continue)
}

/// VDATA holds the operand (then the comparand for cmpswap); glc returns the old value there.
fn atomic(cx: &mut Cx, d: &Decoded, op: Atomic, bytes: usize) -> Res {
    let rsrc = resource(cx, d);
    let exec = cx.wave.exec();
    let glc = d.inst.bits(0, 14, 1) != 0;
    let vdata = d.regs[1].saturating_sub(256) as usize;
    let words = bytes / 4;
    let mut out = [[0u32; WAVE_SIZE]; 2];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let Some(a) = address(cx, d, &rsrc, l, bytes as u64) else {
            continue;
        };
        let word = |i: usize| cx.wave.vgpr[(vdata + i) % 256][l] as u64;
        let (v, cmp) = if words == 2 {
            (word(0) | word(1) << 32, word(2) | word(3) << 32)
        } else {
            (word(0), word(1))
        };
        let old = access::atomic(cx, l, Addr::Global(a), op, v, cmp, bytes)?;
        out[0][l] = old as u32;
        out[1][l] = (old >> 32) as u32;
    }
    if glc {
        for (i, row) in out.iter().enumerate().take(words) {
            cx.wave.write_row(vdata + i, row, exec);
        }
    }
    Ok(Flow::Continue)
}

fn nothing(_: &mut Cx, _: &Decoded) -> Res {
    Ok(Flow::Continue)
}

semantics! {
    BUFFER_LOAD_UBYTE => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_SBYTE => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_USHORT => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_SSHORT => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_DWORD => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_DWORDX2 => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_DWORDX3 => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_DWORDX4 => vmem_ops::load::<Buffer>;
    BUFFER_STORE_BYTE => vmem_ops::store::<Buffer>;
    BUFFER_STORE_BYTE_D16_HI => vmem_ops::store::<Buffer>;
    BUFFER_STORE_SHORT => vmem_ops::store::<Buffer>;
    BUFFER_STORE_SHORT_D16_HI => vmem_ops::store::<Buffer>;
    BUFFER_STORE_DWORD => vmem_ops::store::<Buffer>;
    BUFFER_STORE_DWORDX2 => vmem_ops::store::<Buffer>;
    BUFFER_STORE_DWORDX3 => vmem_ops::store::<Buffer>;
    BUFFER_STORE_DWORDX4 => vmem_ops::store::<Buffer>;
    BUFFER_LOAD_UBYTE_D16 => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_UBYTE_D16_HI => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_SBYTE_D16 => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_SBYTE_D16_HI => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_SHORT_D16 => vmem_ops::load::<Buffer>;
    BUFFER_LOAD_SHORT_D16_HI => vmem_ops::load::<Buffer>;
    BUFFER_ATOMIC_SWAP => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_CMPSWAP => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_ADD => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SUB => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SMIN => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_UMIN => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SMAX => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_UMAX => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_AND => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_OR => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_XOR => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_INC => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_DEC => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SWAP_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_CMPSWAP_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_ADD_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_ADD_F32 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_PK_ADD_F16 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_ADD_F64 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_MIN_F64 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_MAX_F64 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SUB_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SMIN_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_UMIN_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_SMAX_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_UMAX_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_AND_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_OR_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_XOR_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_INC_X2 => vmem_ops::atomic::<Buffer>;
    BUFFER_ATOMIC_DEC_X2 => vmem_ops::atomic::<Buffer>;
    // No vector caches are modelled: write-back/invalidate have nothing to do.
    BUFFER_WBINVL1 => nothing;
    // gfx90a: write back / invalidate the L2 lines of other agents' memory (the emulator's
    // memory has no caches).
    BUFFER_WBL2 => nothing;
    BUFFER_INVL2 => nothing;
    BUFFER_WBINVL1_VOL => nothing;
    // gfx940: invalidate the vector L1 (sc0/sc1 name the scope); likewise nothing to do.
    BUFFER_INV => nothing;
}

/// MUBUF (V# resource) addressing for the shared load/store table.
struct Buffer;

impl VectorMemory for Buffer {
    fn load(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool) -> Res {
        load(cx, d, bytes, signed)
    }
    fn load_d16(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool, hi: bool) -> Res {
        load_d16(cx, d, bytes, signed, hi)
    }
    fn store(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
        store(cx, d, bytes)
    }
    fn store_d16_hi(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
        store_d16_hi(cx, d, bytes)
    }
    fn atomic(cx: &mut Cx, d: &Decoded, op: Atomic, bytes: usize) -> Res {
        atomic(cx, d, op, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::program::Program;
    use crate::exec::DispatchEnv;
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::Wave;
    use gcn_isa::{assemble, Target};

    /// Dword `i` of every lane, derived from dword 0 by [`Resource::part_stride`], is where
    /// [`part_address`] puts it, for swizzled and unswizzled, structured and raw resources of
    /// every element size and index stride, with indices and offsets in and out of range.
    #[test]
    fn part_stride_agrees_with_the_per_dword_address() {
        let code = assemble(
            "buffer_load_dwordx4 v[4:7], v[0:1], s[8:11], s2 idxen offen offset:20",
            Target::Gfx900,
        )
        .unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let d = &program.insts[0];
        let (mut mem, mut lds, env) = (Memory::default(), Lds::new(0), DispatchEnv::default());
        let mut wave = Wave::new(0);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32
        };
        let mut checked = 0;
        for _ in 0..400 {
            for l in 0..WAVE_SIZE {
                wave.vgpr[0][l] = next() % 64;
                wave.vgpr[1][l] = ((next() % 256) & !3) | (next() % 8 == 0) as u32;
            }
            wave.sgpr[2] = next() % 64;
            wave.sgpr[8] = 0x1000;
            wave.sgpr[9] = (next() % 3 * 16) << 16 | (next() % 2) << 31;
            wave.sgpr[10] = next() % 80;
            wave.sgpr[11] = (next() % 4) << 19 | (next() % 4) << 21;
            let cx = Cx {
                wave: &mut wave,
                mem: &mut mem,
                lds: &mut lds,
                program: &program,
                env: &env,
            };
            let rsrc = resource(&cx, d);
            let Some(step) = rsrc.part_stride() else {
                continue;
            };
            for l in 0..WAVE_SIZE {
                let Some(first) = part_address(&cx, d, &rsrc, l, 0, 4) else {
                    continue;
                };
                for i in 1..4u64 {
                    let want = part_address(&cx, d, &rsrc, l, 4 * i, 4);
                    assert_eq!(want, Some(first + step * i), "{rsrc:?} lane {l} dword {i}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// Where [`scratch_rows`] takes an access, every active lane's every dword is where
    /// [`part_address`] puts it, in range; it takes scratch-shaped accesses without an offset
    /// VGPR and with a uniform one, and leaves other resources, per-lane offsets and
    /// unaligned offsets to the per-lane path.
    #[test]
    fn scratch_rows_agree_with_the_per_lane_address() {
        let code = assemble(
            "buffer_load_dwordx4 v[4:7], v1, s[8:11], s2 offen offset:20\n\
             buffer_load_dwordx2 v[4:5], off, s[8:11], s2 offset:8\n\
             buffer_load_dword v4, v1, s[8:11], s2 idxen offset:4",
            Target::Gfx900,
        )
        .unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let (mut mem, mut lds, env) = (Memory::default(), Lds::new(0), DispatchEnv::default());
        let mut wave = Wave::new(0);
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.next_u64() as u32;
        let (mut taken, mut left) = (0, 0);
        for round in 0..3000 {
            let d = &program.insts[round % 3];
            let uniform = next() % 4 * 4 + (next() % 8 == 0) as u32;
            for l in 0..WAVE_SIZE {
                wave.vgpr[1][l] = if next() % 16 == 0 {
                    next() % 64
                } else {
                    uniform
                };
            }
            let exec = match next() % 3 {
                0 => u64::MAX,
                1 => (next() as u64) << 32 | next() as u64,
                _ => 1 << (next() % 64),
            };
            wave.set_exec(exec);
            wave.sgpr[2] = next() % 64;
            wave.sgpr[8] = 0x1000;
            // Mostly the scratch layout (swizzled, 4-byte elements, index stride 64,
            // add_tid), sometimes one field off.
            let off = next() % 8;
            wave.sgpr[9] = (next() % 2 * 16) << 16 | ((off != 0) as u32) << 31;
            wave.sgpr[10] = next() % 80;
            wave.sgpr[11] = (if off == 1 { 2 } else { 1 }) << 19
                | (if off == 2 { 2 } else { 3 }) << 21
                | ((off != 3) as u32) << 23;
            let cx = Cx {
                wave: &mut wave,
                mem: &mut mem,
                lds: &mut lds,
                program: &program,
                env: &env,
            };
            let rsrc = resource(&cx, d);
            let Some(start) = scratch_rows(&cx, d, &rsrc, exec) else {
                left += 1;
                continue;
            };
            taken += 1;
            let dwords = [4u64, 2, 1][round % 3];
            for l in (0..WAVE_SIZE).filter(|l| exec >> l & 1 != 0) {
                for i in 0..dwords {
                    let want = part_address(&cx, d, &rsrc, l, 4 * i, 4);
                    let got = start + 256 * i + 4 * l as u64;
                    assert_eq!(want, Some(got), "{rsrc:?} lane {l} dword {i}");
                }
            }
        }
        assert!(taken > 500 && left > 500, "{taken} taken, {left} left");
    }

    /// Spill reloads of the whole wave, which land straight in the VGPRs, load what the
    /// per-lane path (forced by a sanitizer) loads, for random blocks of a scratch buffer.
    #[test]
    fn whole_wave_scratch_loads_agree_with_the_per_lane_path() {
        use crate::check::{Check, CheckSet};
        use crate::memory::AllocKind;
        let text = [
            "buffer_load_dwordx4 v[4:7], v1, s[8:11], s2 offen offset:20",
            "buffer_load_dwordx2 v[4:5], off, s[8:11], s2 offset:8",
            "buffer_load_dword v4, v1, s[8:11], s2 offen",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        const SIZE: u64 = 64 * 1024;
        let (mut fast, mut slow) = (Memory::default(), Memory::default());
        let mut memcheck = CheckSet::NONE;
        memcheck.insert(Check::Memcheck);
        slow.enable_checks(memcheck);
        let base = fast.alloc(SIZE, AllocKind::Buffer).unwrap();
        assert_eq!(slow.alloc(SIZE, AllocKind::Buffer).unwrap(), base);
        let mut rng = crate::rng::Rng::new(0x853c_49e6_748f_ea9b);
        let mut next = move || rng.next_u64() as u32;
        let bytes: Vec<u8> = (0..SIZE).map(|_| next() as u8).collect();
        fast.store(base, &bytes).unwrap();
        slow.store(base, &bytes).unwrap();
        let (mut lds, env) = (Lds::new(0), DispatchEnv::default());
        let mut taken = 0;
        for round in 0..600 {
            let name = text[round % 3];
            let d = &program.insts[round % 3];
            let mut wave = Wave::new(0);
            let uniform = next() % 64 * 4;
            for l in 0..WAVE_SIZE {
                wave.vgpr[1][l] = uniform;
            }
            wave.set_exec(u64::MAX);
            wave.sgpr[2] = next() % 16 * 256;
            // The private segment buffer: swizzled, 4-byte elements, index stride 64,
            // add_tid; the records cover the allocation.
            wave.sgpr[8] = base as u32;
            wave.sgpr[9] = 1 << 31 | (base >> 32) as u32 & 0xffff;
            wave.sgpr[10] = (SIZE / 64) as u32;
            wave.sgpr[11] = 1 << 19 | 3 << 21 | 1 << 23;
            let mut slow_wave = wave.clone();
            for (w, mem) in [(&mut wave, &mut fast), (&mut slow_wave, &mut slow)] {
                let mut cx = Cx {
                    wave: w,
                    mem,
                    lds: &mut lds,
                    program: &program,
                    env: &env,
                };
                if !cx.mem.checking() {
                    let rsrc = resource(&cx, d);
                    taken += scratch_rows(&cx, d, &rsrc, u64::MAX).is_some() as u32;
                }
                crate::exec::issue::execute(&mut cx, d).unwrap();
            }
            for r in 4..8 {
                assert_eq!(wave.vgpr[r], slow_wave.vgpr[r], "{name} v{r}");
            }
        }
        assert!(taken > 500, "{taken} of 600 took the whole-wave path");
    }

    /// Byte and short loads and stores (d16 halves included) give the same registers and memory
    /// with one lookup as on the per-lane path (forced by a sanitizer), over a raw buffer and a
    /// structured one with 12-byte records, lanes crowding a few places (so later lanes' stores
    /// win), some reaching past the records, and random EXEC.
    #[test]
    fn narrow_accesses_agree_with_the_per_lane_path() {
        use crate::check::{Check, CheckSet};
        use crate::memory::AllocKind;
        let text = [
            "buffer_load_ubyte v4, v1, s[8:11], s2 offen offset:3",
            "buffer_load_sbyte v4, v[0:1], s[8:11], 0 idxen offen",
            "buffer_load_ushort v4, v1, s[8:11], s2 offen offset:2",
            "buffer_load_sshort v4, v[0:1], s[8:11], 0 idxen offen offset:1",
            "buffer_load_ubyte_d16_hi v4, v1, s[8:11], s2 offen",
            "buffer_load_short_d16 v4, v[0:1], s[8:11], 0 idxen offen",
            "buffer_load_sbyte_d16 v4, v1, s[8:11], s2 offen offset:5",
            "buffer_store_byte v5, v1, s[8:11], s2 offen offset:1",
            "buffer_store_short v5, v[0:1], s[8:11], 0 idxen offen offset:2",
            "buffer_store_byte_d16_hi v5, v1, s[8:11], s2 offen",
            "buffer_store_short_d16_hi v5, v[0:1], s[8:11], 0 idxen offen",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        const SIZE: u64 = 1024;
        let (mut fast, mut slow) = (Memory::default(), Memory::default());
        let mut memcheck = CheckSet::NONE;
        memcheck.insert(Check::Memcheck);
        slow.enable_checks(memcheck);
        let base = fast.alloc(SIZE, AllocKind::Buffer).unwrap();
        assert_eq!(slow.alloc(SIZE, AllocKind::Buffer).unwrap(), base);
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        let bytes: Vec<u8> = (0..SIZE).map(|_| next() as u8).collect();
        fast.store(base, &bytes).unwrap();
        slow.store(base, &bytes).unwrap();
        let (mut lds, env) = (Lds::new(0), DispatchEnv::default());
        for round in 0..3000 {
            let name = text[round % text.len()];
            let d = &program.insts[round % text.len()];
            let structured = name.contains("idxen");
            let mut wave = Wave::new(0);
            let places = 1 + next() % 8;
            for l in 0..WAVE_SIZE {
                wave.vgpr[0][l] = (next() % places * (1 + next() % 5)) as u32;
                wave.vgpr[1][l] = (next() % places * (1 + next() % 9) * 3) as u32;
                wave.vgpr[4][l] = next() as u32;
                wave.vgpr[5][l] = next() as u32;
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            wave.sgpr[2] = (next() % 64) as u32;
            // Now and then fewer records than the lanes reach.
            let short = next() % 6 == 0;
            let (stride, records) = match (structured, short) {
                (true, false) => (12, 60),
                (true, true) => (12, 5),
                (false, false) => (0, 600),
                (false, true) => (0, 40),
            };
            wave.sgpr[8] = base as u32;
            wave.sgpr[9] = (base >> 32) as u32 & 0xffff | stride << 16;
            wave.sgpr[10] = records;
            wave.sgpr[11] = 0;
            let mut slow_wave = wave.clone();
            for (w, mem) in [(&mut wave, &mut fast), (&mut slow_wave, &mut slow)] {
                let mut cx = Cx {
                    wave: w,
                    mem,
                    lds: &mut lds,
                    program: &program,
                    env: &env,
                };
                crate::exec::issue::execute(&mut cx, d).unwrap();
            }
            assert_eq!(wave.vgpr[4], slow_wave.vgpr[4], "{name}");
            let (mut a, mut b) = (vec![0u8; SIZE as usize], vec![0u8; SIZE as usize]);
            fast.load(base, &mut a).unwrap();
            slow.load(base, &mut b).unwrap();
            assert_eq!(a, b, "{name}");
        }
    }
}
