//! FLAT, GLOBAL and SCRATCH loads, stores and atomics (gfx9 encoding: offset [12:0], seg [15:14],
//! glc 16; vaddr, data, saddr [22:16], vdst). FLAT addresses are routed by aperture to global
//! memory, the workgroup's LDS or the lane's private segment.

use super::access::{self, Addr};
use super::atomic_ops;
use super::check_global;
use super::ds::spread;
use super::private_rows;
use super::valu::Res;
use super::vmem_ops::{self, VectorMemory};
use super::{Cx, Fault, Flow};
use crate::check::{Access, Check};
use crate::exec::program::Decoded;
use crate::memory::{flat_target, FlatTarget};
use crate::wave::cache_line::CacheLine;
use crate::wave::{VGPRS, WAVE_SIZE};
use gcn_isa::Atomic;
use gcn_isa::Format;

/// `saddr` = 0x7f means "off".
const SADDR_OFF: u16 = 0x7f;

/// How an instruction's lanes form their addresses, decoded once per instruction rather than
/// per lane (the lane loop then only reads the VGPR address and adds).
#[derive(Clone, Copy)]
enum Addressing {
    /// GLOBAL: 13-bit signed offset; SADDR base plus a 32-bit VGPR offset, or a VGPR pair.
    Global { off: u64, sbase: Option<u64> },
    /// SCRATCH: 13-bit signed offset; SADDR or a VGPR holds the private-segment offset (on
    /// gfx940, `vaddr` says whether a VGPR is added: either, both or neither).
    Scratch {
        off: u32,
        sbase: Option<u32>,
        vaddr: bool,
    },
    /// FLAT: 12-bit unsigned offset on gfx9; the aperture picks the memory.
    Flat { off: u64 },
}

struct Addresser {
    how: Addressing,
    vaddr: usize,
}

impl Addresser {
    fn new(cx: &Cx, d: &Decoded) -> Addresser {
        let saddr = d.regs[2];
        let w = &cx.wave;
        let signed13 = || (d.inst.bits(0, 0, 13) << 19) as i32 >> 19;
        let how = match d.inst.format() {
            Format::Global => Addressing::Global {
                off: signed13() as i64 as u64,
                sbase: (saddr != SADDR_OFF).then(|| w.pair(saddr & 126)),
            },
            Format::Scratch => Addressing::Scratch {
                off: signed13() as u32,
                sbase: (saddr != SADDR_OFF).then(|| w.sgpr[saddr as usize & 127]),
                // gfx940: bit 13 (SVE) says the address has a VGPR part; before it, the VGPR
                // is the address when SADDR is off.
                vaddr: if gfx940(cx) {
                    d.inst.bits(0, 13, 1) != 0
                } else {
                    saddr == SADDR_OFF
                },
            },
            _ => Addressing::Flat {
                off: d.inst.bits(0, 0, 12) as u64,
            },
        };
        Addresser {
            how,
            vaddr: d.regs[0].saturating_sub(256) as usize,
        }
    }

    /// Every lane's global address into `out`, when the instruction addresses global memory
    /// only (GLOBAL, or FLAT with every active lane outside the LDS and private apertures): the
    /// fast paths then do the lanes with one lookup. False (`out` meaningless) otherwise. The
    /// addresses are written in place: the wave's 512 bytes returned by value were a copy per
    /// access.
    #[inline]
    fn global_all(&self, cx: &Cx, exec: u64, out: &mut [u64; WAVE_SIZE]) -> bool {
        let v = &cx.wave.vgpr;
        let lo = &v[self.vaddr];
        let hi = &v[(self.vaddr + 1) % 256];
        // Whole rows at a time, so the loops vectorise.
        let pairs = |out: &mut [u64; WAVE_SIZE], off: u64| {
            for (l, o) in out.iter_mut().enumerate() {
                *o = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add(off);
            }
        };
        match self.how {
            Addressing::Scratch { .. } => false,
            Addressing::Global {
                off,
                sbase: Some(s),
            } => {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = s.wrapping_add(lo[l] as u64).wrapping_add(off);
                }
                true
            }
            Addressing::Global { off, sbase: None } => {
                pairs(out, off);
                true
            }
            Addressing::Flat { off } => {
                pairs(out, off);
                (0..WAVE_SIZE).all(|l| {
                    exec >> l & 1 == 0 || matches!(flat_target(out[l]), FlatTarget::Global(_))
                })
            }
        }
    }

    /// The first lane's global address when the lanes address a row, lane `l` the `step` bytes
    /// at `base + step * l` (`p[threadIdx.x]`), read off the address VGPRs' 32-bit rows
    /// without making the 64 addresses: the low dwords count up by `step` and do not carry
    /// out, and the high dwords of a VGPR pair all agree. `None` for any other access (such a
    /// row across a 4 GiB boundary included), which [`Addresser::global_all`] then looks at.
    /// With `step` 0: every lane at one address. `len` is the bytes the access spans from the
    /// first lane's address on (for FLAT, to see that none of them is in an aperture).
    #[inline]
    fn row_base(&self, cx: &Cx, step: usize, len: u64) -> Option<u64> {
        if matches!(self.how, Addressing::Scratch { .. }) {
            return None;
        }
        let v = &cx.wave.vgpr;
        let lo = &v[self.vaddr];
        let step = step as u32;
        let first = lo[0];
        first.checked_add(63 * step)?;
        let counts = |l: usize| lo[l] ^ first.wrapping_add(step * l as u32);
        // A VGPR pair's high dwords, checked in the same pass as the low ones.
        let pair = |off: u64| {
            let hi = &v[(self.vaddr + 1) % 256];
            let apart = (0..WAVE_SIZE).fold(0, |m, l| m | counts(l) | hi[l] ^ hi[0]);
            (apart == 0).then(|| (first as u64 | (hi[0] as u64) << 32).wrapping_add(off))
        };
        match self.how {
            Addressing::Global {
                off,
                sbase: Some(s),
            } => {
                let apart = (0..WAVE_SIZE).fold(0, |m, l| m | counts(l));
                (apart == 0).then(|| s.wrapping_add(first as u64).wrapping_add(off))
            }
            Addressing::Global { off, sbase: None } => pair(off),
            Addressing::Flat { off } => {
                // An aperture (4 GiB) is far wider than a row, so a row whose two ends are
                // global memory has no lane in an aperture.
                let base = pair(off)?;
                let last = base.checked_add(len - 1)?;
                let global = |a| matches!(flat_target(a), FlatTarget::Global(_));
                (global(base) && global(last)).then_some(base)
            }
            Addressing::Scratch { .. } => None,
        }
    }

    /// Each lane's private-segment offset into `out` when the instruction is a SCRATCH access
    /// ([`super::private_rows`] then tries it with one lookup); false otherwise.
    fn private_offsets(&self, cx: &Cx, out: &mut [u32; WAVE_SIZE]) -> bool {
        let Addressing::Scratch { off, sbase, vaddr } = self.how else {
            return false;
        };
        let base = sbase.unwrap_or(0).wrapping_add(off);
        if vaddr {
            let row = &cx.wave.vgpr[self.vaddr];
            for (o, &v) in out.iter_mut().zip(row) {
                *o = base.wrapping_add(v);
            }
        } else {
            out.fill(base);
        }
        true
    }

    /// The address of lane `l`.
    #[inline]
    fn at(&self, cx: &Cx, l: usize) -> Addr {
        let v = &cx.wave.vgpr;
        let pair = || v[self.vaddr][l] as u64 | (v[(self.vaddr + 1) % 256][l] as u64) << 32;
        match self.how {
            Addressing::Global { off, sbase } => {
                let base = match sbase {
                    Some(s) => s.wrapping_add(v[self.vaddr][l] as u64),
                    None => pair(),
                };
                Addr::Global(base.wrapping_add(off))
            }
            Addressing::Scratch { off, sbase, vaddr } => {
                let v = if vaddr { v[self.vaddr][l] } else { 0 };
                Addr::Private(sbase.unwrap_or(0).wrapping_add(v).wrapping_add(off))
            }
            Addressing::Flat { off } => match flat_target(pair().wrapping_add(off)) {
                FlatTarget::Global(g) => Addr::Global(g),
                FlatTarget::Lds(o) => Addr::Lds(o),
                FlatTarget::Private(o) => Addr::Private(o),
            },
        }
    }
}

/// The active lanes of a FLAT or GLOBAL access of `bytes` a lane as a row
/// ([`crate::memsys::Row`]) when they make one, read off the address registers with no lane's
/// address made; `None` otherwise ([`timing_lanes`] then lists them).
pub(super) fn timing_row(cx: &Cx, d: &Decoded, bytes: u32) -> Option<crate::memsys::Row> {
    let a = Addresser::new(cx, d);
    let lane0 = a.row_base(cx, bytes as usize, WAVE_SIZE as u64 * bytes as u64)?;
    crate::memsys::Row::of(cx.wave.exec(), lane0, bytes)
}

/// The device-memory address of every active lane's access, for the timing model's memory
/// system ([`super::lanes`]): LDS lanes of a FLAT access are left out, private ones placed in
/// the scratch backing as the access path places them.
pub(super) fn timing_lanes(cx: &Cx, d: &Decoded, out: &mut Vec<(usize, u64)>) {
    let a = Addresser::new(cx, d);
    let exec = cx.wave.exec();
    // Every active lane global (the common case): the addresses a row at a time.
    let mut all = [0u64; WAVE_SIZE];
    if a.global_all(cx, exec, &mut all) {
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            out.push((l, all[l]));
        }
        return;
    }
    let scratch = cx.wave.flat_scratch();
    for l in (0..WAVE_SIZE).filter(|&l| exec >> l & 1 != 0) {
        match a.at(cx, l) {
            Addr::Global(g) => out.push((l, g)),
            Addr::Private(o) => out.push((l, access::private_address(scratch, o, l))),
            Addr::Lds(_) => {}
        }
    }
}

/// Does the wave run gfx940/gfx942 code?
fn gfx940(cx: &Cx) -> bool {
    cx.program.target.features().gfx940_insts
}

/// Bit 13 before gfx940: lds=1 (a global/scratch load into LDS), which these paths do not do.
/// On gfx940 it is scratch's SVE bit (see [`Addressing::Scratch`]); its loads to LDS are ops of
/// their own ([`load_lds`]).
fn lds_bit(cx: &Cx, d: &Decoded) -> Result<(), Fault> {
    if d.inst.bits(0, 13, 1) != 0 && !gfx940(cx) {
        return Err(Fault::Unsupported("FLAT/GLOBAL/SCRATCH with lds=1"));
    }
    Ok(())
}

/// Whether the one-lookup paths may do an instruction's global accesses (`bytes` at `addrs[l]`
/// for the lanes in `exec`): always without sanitizers; with them, when the lanes lie in one
/// allocation, after the sanitizers have recorded them ([`check_global::lanes`]). False sends
/// the instruction down the per-lane path, which faults or reports each lane as it should.
#[inline]
fn checked(cx: &mut Cx, addrs: &[u64; WAVE_SIZE], exec: u64, bytes: usize, access: Access) -> bool {
    !cx.mem.checking() || check_global::lanes(cx, addrs, exec, bytes, access)
}

/// The first lane's address when a global access of every lane, `bytes` each, is a row
/// ([`Addresser::row_base`]) and no sanitizer needs the lanes' addresses: the access is then
/// one block with one lookup, its 64 addresses never made.
#[inline]
fn full_row(cx: &Cx, addr: &Addresser, exec: u64, bytes: usize) -> Option<u64> {
    if exec != u64::MAX || cx.mem.checking() {
        return None;
    }
    addr.row_base(cx, bytes, WAVE_SIZE as u64 * bytes as u64)
}

/// The one global address every lane of an access addresses (`stats[3] = i`, `x = a[0]`), when
/// the address VGPRs hold the same value in every lane (those outside EXEC included, as
/// uniform values computed before a branch are) and no sanitizer needs the lanes' addresses.
#[inline]
fn one_place(cx: &Cx, addr: &Addresser, exec: u64, bytes: usize) -> Option<u64> {
    if exec == 0 || cx.mem.checking() {
        return None;
    }
    addr.row_base(cx, 0, bytes as u64)
}

/// Writes loaded rows `out` (a narrow value zero-extended in `out[0]`) to VDST's registers in
/// the lanes of `exec`, sign-extending a narrow signed load.
fn write_loaded(
    cx: &mut Cx,
    d: &Decoded,
    bytes: usize,
    signed: bool,
    out: &mut [[u32; WAVE_SIZE]; 4],
    exec: u64,
) {
    if signed && bytes < 4 {
        let shift = 32 - 8 * bytes as u32;
        out[0]
            .iter_mut()
            .for_each(|v| *v = ((*v << shift) as i32 >> shift) as u32);
    }
    for (i, row) in out.iter().enumerate().take(bytes.div_ceil(4)) {
        cx.wave.write_row(d.vdst as usize + i, row, exec);
    }
}

/// Loads of `bytes` per lane into VDST (narrow loads extend into one dword).
fn load(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool) -> Res {
    lds_bit(cx, d)?;
    let exec = cx.wave.exec();
    let addr = Addresser::new(cx, d);
    if let Some(base) = full_row(cx, &addr, exec, bytes) {
        let done = if bytes == 4 {
            // Straight into VDST, as below.
            let vdst = &mut cx.wave.vgpr[d.vdst as usize % VGPRS];
            cx.mem.load_dword_row(base, vdst)
        } else {
            let mut out = [[0u32; WAVE_SIZE]; 4];
            let done = cx.mem.load_row_lanes(base, bytes, &mut out);
            if done {
                write_loaded(cx, d, bytes, signed, &mut out, exec);
            }
            done
        };
        if done {
            return Ok(Flow::Continue);
        }
    }
    if let Some(at) = one_place(cx, &addr, exec, bytes) {
        if let Some(vals) = cx.mem.load_one(at, bytes) {
            let mut out = vals.map(|v| [v; WAVE_SIZE]);
            write_loaded(cx, d, bytes, signed, &mut out, exec);
            return Ok(Flow::Continue);
        }
    }
    let mut addrs = CacheLine([0u64; WAVE_SIZE]);
    if addr.global_all(cx, exec, &mut addrs) && checked(cx, &addrs, exec, bytes, Access::Load) {
        if bytes == 4 {
            // Straight into VDST: `load_dwords` writes the lanes in EXEC and no others
            // (a VDST beyond the allocation is the spare row, as any write there), and
            // nothing when it fails.
            let vdst = &mut cx.wave.vgpr[d.vdst as usize % VGPRS];
            if cx.mem.load_dwords(&addrs, exec, vdst) {
                return Ok(Flow::Continue);
            }
        } else {
            let mut out = [[0u32; WAVE_SIZE]; 4];
            if cx.mem.load_lanes(&addrs, exec, bytes, &mut out) {
                write_loaded(cx, d, bytes, signed, &mut out, exec);
                return Ok(Flow::Continue);
            }
        }
    }
    let mut offsets = [0u32; WAVE_SIZE];
    if addr.private_offsets(cx, &mut offsets) {
        if let Some(rows) = private_rows::load(cx, &offsets, exec, (bytes, signed)) {
            for (i, row) in rows.iter().enumerate().take(bytes.div_ceil(4)) {
                cx.wave.write_row(d.vdst as usize + i, row, exec);
            }
            return Ok(Flow::Continue);
        }
    }
    let mut out = [[0u32; WAVE_SIZE]; 4];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = addr.at(cx, l);
        let mut buf = [0u8; 16];
        access::load(cx, l, at, &mut buf[..bytes])?;
        spread(&buf, bytes, signed, &mut out, l);
    }
    for (i, row) in out.iter().enumerate().take(bytes.div_ceil(4)) {
        cx.wave.write_row(d.vdst as usize + i, row, exec);
    }
    Ok(Flow::Continue)
}

/// gfx940's GLOBAL_LOAD_LDS_* and SCRATCH_LOAD_LDS_*: each active lane loads `bytes` (1, 2 or
/// 4; the narrow ones zero- or sign-extended to a dword) and the dword goes to LDS at
/// M0[15:0] + inst_offset + lane * 4, as MUBUF's loads with lds=1 do (`mubuf::load_to_lds`).
/// LLVM's `llvm.amdgcn.global.load.lds` takes M0 as the LDS base and applies its immediate
/// offset "to both global and LDS address", the LDS address advancing 4 bytes a lane for sizes
/// up to 4 (AMDGPUUsage, LDS DMA). Every lane's load is done (and may fault) before LDS is
/// written.
fn load_lds(cx: &mut Cx, d: &Decoded) -> Res {
    let facts = &d.inst.info().facts;
    let (bytes, signed) = (facts.bytes as usize, facts.sext);
    let exec = cx.wave.exec();
    let addr = Addresser::new(cx, d);
    let mut out = [[0u32; WAVE_SIZE]; 4];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = addr.at(cx, l);
        let mut buf = [0u8; 16];
        access::load(cx, l, at, &mut buf[..bytes])?;
        spread(&buf, bytes, signed, &mut out, l);
    }
    let offset = (d.inst.bits(0, 0, 13) << 19) as i32 >> 19;
    let base = (cx.wave.m0() & 0xffff).wrapping_add(offset as u32);
    super::mubuf::lds_dma(cx, exec, base, &out[0], "store (load to LDS)")
}

/// The 16-bit value of a d16 load of `bytes` (1 or 2) bytes: sign- or zero-extended to 16 bits.
pub fn d16_value(buf: &[u8], bytes: usize, signed: bool) -> u32 {
    (match (bytes, signed) {
        (1, true) => buf[0] as i8 as i16 as u16,
        (1, false) => buf[0] as u16,
        _ => u16::from_le_bytes([buf[0], buf[1]]),
    }) as u32
}

/// Puts a d16 value into the low (or, for *_d16_hi, high) half of `old`, keeping the other half.
pub fn d16_merge(old: u32, v: u32, hi: bool) -> u32 {
    if hi {
        (old & 0xffff) | v << 16
    } else {
        (old & 0xffff_0000) | v
    }
}

/// *_load_{ubyte,sbyte,short}_d16[_hi]: one half of VDST, the other half kept.
fn load_d16(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool, hi: bool) -> Res {
    lds_bit(cx, d)?;
    let exec = cx.wave.exec();
    let addr = Addresser::new(cx, d);
    let mut out = cx.wave.vgpr[d.vdst as usize];
    let mut addrs = CacheLine([0u64; WAVE_SIZE]);
    if addr.global_all(cx, exec, &mut addrs) && checked(cx, &addrs, exec, bytes, Access::Load) {
        let mut loaded = [[0u32; WAVE_SIZE]; 4];
        if cx.mem.load_lanes(&addrs, exec, bytes, &mut loaded) {
            for (l, o) in out.iter_mut().enumerate() {
                let b = loaded[0][l].to_le_bytes();
                *o = d16_merge(*o, d16_value(&b, bytes, signed), hi);
            }
            cx.wave.write_row(d.vdst as usize, &out, exec);
            return Ok(Flow::Continue);
        }
    }
    let mut offsets = [0u32; WAVE_SIZE];
    if addr.private_offsets(cx, &mut offsets) {
        if let Some([loaded, ..]) = private_rows::load(cx, &offsets, exec, (bytes, signed)) {
            for (o, v) in out.iter_mut().zip(loaded) {
                *o = d16_merge(*o, v & 0xffff, hi);
            }
            cx.wave.write_row(d.vdst as usize, &out, exec);
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = addr.at(cx, l);
        let mut buf = [0u8; 2];
        access::load(cx, l, at, &mut buf[..bytes])?;
        out[l] = d16_merge(out[l], d16_value(&buf, bytes, signed), hi);
    }
    cx.wave.write_row(d.vdst as usize, &out, exec);
    Ok(Flow::Continue)
}

/// *_store_{byte,short}_d16_hi: the low bytes of DATA[31:16].
fn store_d16_hi(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
    lds_bit(cx, d)?;
    let exec = cx.wave.exec();
    let addr = Addresser::new(cx, d);
    let data = d.regs[1].saturating_sub(256) as usize;
    let mut addrs = CacheLine([0u64; WAVE_SIZE]);
    if addr.global_all(cx, exec, &mut addrs) && checked(cx, &addrs, exec, bytes, Access::Store) {
        let high = cx.wave.vgpr[data % VGPRS].map(|v| v >> 16);
        if cx.mem.store_lanes(&addrs, exec, bytes, [&high; 4]) {
            return Ok(Flow::Continue);
        }
    }
    let mut offsets = [0u32; WAVE_SIZE];
    if addr.private_offsets(cx, &mut offsets)
        && private_rows::store(cx, &offsets, exec, bytes, (data, true))
    {
        return Ok(Flow::Continue);
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = addr.at(cx, l);
        let v = (cx.wave.vgpr[data][l] >> 16) as u16;
        access::store(cx, l, at, &v.to_le_bytes()[..bytes])?;
    }
    Ok(Flow::Continue)
}

/// Stores of `bytes` per lane from DATA.
fn store(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
    lds_bit(cx, d)?;
    let exec = cx.wave.exec();
    let addr = Addresser::new(cx, d);
    let data = d.regs[1].saturating_sub(256) as usize;
    if let Some(base) = full_row(cx, &addr, exec, bytes) {
        let rows: [&[u32; WAVE_SIZE]; 4] = std::array::from_fn(|i| &cx.wave.vgpr[(data + i) % 256]);
        if cx.mem.store_row_lanes(base, bytes, rows) {
            return Ok(Flow::Continue);
        }
    }
    if let Some(at) = one_place(cx, &addr, exec, bytes) {
        // Lane order leaves the last lane's value.
        let last = 63 - exec.leading_zeros() as usize;
        let vals = std::array::from_fn(|i| cx.wave.vgpr[(data + i) % 256][last]);
        if cx.mem.store_one(at, bytes, vals) {
            return Ok(Flow::Continue);
        }
    }
    let mut addrs = CacheLine([0u64; WAVE_SIZE]);
    if addr.global_all(cx, exec, &mut addrs) && checked(cx, &addrs, exec, bytes, Access::Store) {
        let rows: [&[u32; WAVE_SIZE]; 4] = std::array::from_fn(|i| &cx.wave.vgpr[(data + i) % 256]);
        let done = if bytes == 4 {
            cx.mem.store_dwords(&addrs, exec, rows[0])
        } else {
            cx.mem.store_lanes(&addrs, exec, bytes, rows)
        };
        if done {
            return Ok(Flow::Continue);
        }
    }
    let mut offsets = [0u32; WAVE_SIZE];
    if addr.private_offsets(cx, &mut offsets)
        && private_rows::store(cx, &offsets, exec, bytes, (data, false))
    {
        return Ok(Flow::Continue);
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = addr.at(cx, l);
        let mut buf = [0u8; 16];
        for i in 0..bytes.div_ceil(4) {
            let v = cx.wave.vgpr[(data + i) % 256][l];
            buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        access::store(cx, l, at, &buf[..bytes])?;
    }
    Ok(Flow::Continue)
}

/// Atomics: DATA holds the operand (and, for cmpswap, the comparand after it); with glc the old
/// value is returned in VDST.
fn atomic(cx: &mut Cx, d: &Decoded, op: Atomic, bytes: usize) -> Res {
    let exec = cx.wave.exec();
    let addr = Addresser::new(cx, d);
    let glc = d.inst.bits(0, 16, 1) != 0;
    let data = d.regs[1].saturating_sub(256) as usize;
    let words = bytes / 4;
    let mut out = [[0u32; WAVE_SIZE]; 2];
    let operands = |cx: &Cx, l: usize| {
        let word = |i: usize| cx.wave.vgpr[(data + i) % 256][l] as u64;
        if words == 2 {
            (word(0) | word(1) << 32, word(2) | word(3) << 32)
        } else {
            (word(0), word(1))
        }
    };
    // One active lane (`if (threadIdx.x == 0) atomicAdd(...)`) is cheaper alone than with the
    // wave-wide arrays of the one-lookup path.
    if exec.count_ones() == 1 || !at_once(cx, &addr, (exec, glc), op, bytes, data, &mut out) {
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let at = addr.at(cx, l);
            let (v, cmp) = operands(cx, l);
            let old = access::atomic(cx, l, at, op, v, cmp, bytes)?;
            out[0][l] = old as u32;
            out[1][l] = (old >> 32) as u32;
        }
    }
    if glc {
        for (i, row) in out.iter().enumerate().take(words) {
            cx.wave.write_row(d.vdst as usize + i, row, exec);
        }
    }
    Ok(Flow::Continue)
}

/// An atomic whose active lanes all address global memory inside one allocation, done with one
/// lookup for the wave; false (nothing done) for anything else — LDS or scratch lanes, an
/// address outside an allocation proper (the per-lane path then names the faulting lane, or
/// counts each lane's access to page padding).
///
/// Lanes on several addresses (a histogram's bins) are one host atomic each, in lane order, as
/// on the per-lane path (or a host load and store each where no other thread can reach memory,
/// [`crate::memory::Memory::alone`]). Lanes all on one address (a counter, a running minimum, a flag) are one
/// host read-modify-write for the wave, each lane getting the value before its own, instead of
/// one contended host atomic per lane: another thread sees the wave's lanes all at once, one of
/// the orders a GPU may serialise them in.
///
/// With sanitizers on, the same once they have recorded the lanes ([`check_global::lanes`]);
/// an atomic memcheck would report as misaligned goes lane by lane.
fn at_once(
    cx: &mut Cx,
    addr: &Addresser,
    (exec, rtn): (u64, bool),
    op: Atomic,
    bytes: usize,
    data_reg: usize,
    out: &mut [[u32; WAVE_SIZE]; 2],
) -> bool {
    if exec == 0 {
        return false;
    }
    let mut addrs = CacheLine([0u64; WAVE_SIZE]);
    if !addr.global_all(cx, exec, &mut addrs) {
        return false;
    }
    let lanes = || (0..WAVE_SIZE).filter(move |&l| exec >> l & 1 != 0);
    if cx.mem.checking() {
        // `bytes` is 4 or 8: a mask, not a division per lane.
        let odd = bytes as u64 - 1;
        // (An OR of the active lanes' low bits, which vectorises; a mask built lane by lane
        // did not.)
        let misaligned = (0..WAVE_SIZE).fold(0, |m, l| {
            m | addrs[l] & odd & (exec >> l & 1).wrapping_neg()
        }) != 0;
        if misaligned && cx.mem.checks().has(Check::Memcheck)
            || !check_global::lanes(cx, &addrs, exec, bytes, Access::Atomic)
        {
            return false;
        }
    }
    // Each lane's operand (DATA; DATA+1 its high half for the 64-bit ones) and, only for the
    // ops that take one, its second operand (cmpswap's comparand, mskor's bits: DATA+1, or
    // DATA+2 and +3), whole rows at a time: most atomics read one row, and building both for
    // them was a kilobyte of stores per instruction.
    let rows: [&[u32; WAVE_SIZE]; 4] = std::array::from_fn(|i| &cx.wave.vgpr[(data_reg + i) % 256]);
    let wide = |lo: &[u32; WAVE_SIZE], hi: &[u32; WAVE_SIZE]| -> [u64; WAVE_SIZE] {
        std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32)
    };
    let narrow =
        |row: &[u32; WAVE_SIZE]| -> [u64; WAVE_SIZE] { std::array::from_fn(|l| row[l] as u64) };
    let value = match bytes {
        8 => wide(rows[0], rows[1]),
        _ => narrow(rows[0]),
    };
    // (The others read a row of zeros that is never built: zeroing a 512-byte array for each
    // atomic was a twelfth of histogram's global atomics.)
    static NO_SECOND: [u64; WAVE_SIZE] = [0; WAVE_SIZE];
    let second_rows;
    let second = match (op, bytes) {
        (Atomic::CmpSwap | Atomic::MskOr, 8) => {
            second_rows = wide(rows[2], rows[3]);
            &second_rows
        }
        (Atomic::CmpSwap | Atomic::MskOr, _) => {
            second_rows = narrow(rows[1]);
            &second_rows
        }
        _ => &NO_SECOND,
    };
    let bits = 8 * bytes as u32;
    let first = addrs[exec.trailing_zeros() as usize];
    // Every lane compared, with no early exit, as an OR of the active lanes' differences, so
    // the loop vectorises (a mask built lane by lane did not).
    let elsewhere = (0..WAVE_SIZE).fold(0, |m, l| {
        m | (addrs[l] ^ first) & (exec >> l & 1).wrapping_neg()
    });
    if exec.count_ones() > 1 && elsewhere == 0 {
        // Page padding: each lane's access is counted, so those go lane by lane.
        if !cx.mem.inside_allocation(first, bytes as u64) {
            return false;
        }
        if one_address_folded(cx, first, exec, op, bytes, rtn, &value, out) {
            return true;
        }
        let ok = cx.mem.rmw(first, bytes, |old| {
            if op == Atomic::CmpSwap {
                return swaps_in_lane_order(old, exec, &value, second, rtn.then_some(&mut *out));
            }
            let mut cur = old;
            for l in lanes() {
                // (Without glc nothing reads the old values.)
                if rtn {
                    out[0][l] = cur as u32;
                    out[1][l] = (cur >> 32) as u32;
                }
                cur = atomic_ops::apply(op, cur, value[l], second[l], bits).unwrap_or(cur);
            }
            cur
        });
        return ok.is_ok();
    }
    let new = |l: usize, old| atomic_ops::apply(op, old, value[l], second[l], bits).unwrap_or(old);
    let mut olds = [0u64; WAVE_SIZE];
    // The integer operations the host has instructions for, one each; the rest through the
    // general read-modify-write.
    if !cx
        .mem
        .fetch_lanes(&addrs, exec, bytes, op, &value, &mut olds)
        && !cx.mem.rmw_lanes(&addrs, exec, bytes, new, &mut olds)
    {
        return false;
    }
    // (Without glc nothing reads the old values.)
    if rtn {
        for (l, old) in olds.iter().enumerate() {
            out[0][l] = *old as u32;
            out[1][l] = (*old >> 32) as u32;
        }
    }
    true
}

/// The compare-and-swaps of the lanes in `exec` on one value `old`, in lane order: lane `l`
/// swaps in `value[l]` when the value is then `compare[l]` (operands `bytes` wide, so nothing
/// needs masking). Returns the value they leave, and puts each lane's old value in `out` when
/// given. A lock or a first-come flag: few lanes swap, so rather than a step per lane (a chain
/// of 64 dependent compares), each swap is found with one whole-wave compare of the lanes
/// after the last swap.
fn swaps_in_lane_order(
    old: u64,
    exec: u64,
    value: &[u64; WAVE_SIZE],
    compare: &[u64; WAVE_SIZE],
    mut out: Option<&mut [[u32; WAVE_SIZE]; 2]>,
) -> u64 {
    let mut cur = old;
    // Lanes not yet applied.
    let mut rest = exec;
    loop {
        let hits = crate::wave::lane_masks::lane_bits(|l| compare[l] == cur) & rest;
        // The lanes up to and including the next swap (all that are left if none) see `cur`.
        let seen = match hits {
            0 => rest,
            _ => rest & (hits ^ (hits - 1)),
        };
        if let Some(out) = out.as_deref_mut() {
            for l in (0..WAVE_SIZE).filter(|l| seen >> l & 1 != 0) {
                out[0][l] = cur as u32;
                out[1][l] = (cur >> 32) as u32;
            }
        }
        if hits == 0 {
            return cur;
        }
        cur = value[hits.trailing_zeros() as usize];
        rest &= !seen;
    }
}

/// Lanes all on one address with an integer operation the host has an instruction for: the
/// lanes' operands folded into one (a sum, a minimum ...; the last lane's value for a swap),
/// one host atomic with it, and (when the instruction returns them, `rtn`) each lane's old
/// value worked out in lane order — what applying the lanes one by one under one
/// read-modify-write gives, with one host atomic instead of a compare-and-swap loop over 64
/// operations. False (nothing done) for other operations.
#[allow(clippy::too_many_arguments)]
fn one_address_folded(
    cx: &mut Cx,
    at: u64,
    exec: u64,
    op: Atomic,
    bytes: usize,
    rtn: bool,
    value: &[u64; WAVE_SIZE],
    out: &mut [[u32; WAVE_SIZE]; 2],
) -> bool {
    let bits = 8 * bytes as u32;
    let mask = u64::MAX >> (64 - bits);
    let signed = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let first = exec.trailing_zeros() as usize;
    let lanes = || (first..WAVE_SIZE).filter(move |&l| exec >> l & 1 != 0);
    // One loop per operation: the host applies the lanes' operands combined (`total`), and
    // `step` applies a lane's operand to the value before it (for the returned values).
    macro_rules! applied {
        ($total:expr, |$c:ident, $v:ident| $step:expr) => {{
            let Some(old) = cx.mem.fetch_one(at, bytes, op, $total) else {
                return false;
            };
            if rtn {
                let mut $c = old;
                for l in lanes() {
                    out[0][l] = $c as u32;
                    out[1][l] = ($c >> 32) as u32;
                    let $v = value[l] & mask;
                    $c = $step & mask;
                }
            }
            true
        }};
    }
    // The lanes' operands combined: every lane's operand, `identity` (which changes nothing) in
    // those outside EXEC, folded over all 64 with no branch, which vectorises (a fold through
    // an EXEC filter went lane by lane).
    macro_rules! folded {
        ($identity:expr, |$a:ident, $b:ident| $fold:expr, |$c:ident, $v:ident| $step:expr) => {{
            let identity: u64 = $identity;
            let operands: [u64; WAVE_SIZE] = std::array::from_fn(|l| {
                let on = (exec >> l & 1).wrapping_neg();
                value[l] & mask & on | identity & !on
            });
            applied!(
                operands.iter().fold(identity, |$a, &$b| $fold & mask),
                |$c, $v| $step
            )
        }};
    }
    // Signed minimum and maximum over the operands sign-extended, the identity the largest or
    // the smallest value. 32-bit operands fold as i32 lanes, which the host compares eight at a
    // time (AVX2 has no 64-bit minimum or maximum: a compare and a blend for every four lanes).
    macro_rules! signed_folded {
        ($identity:ident, $fold:ident) => {{
            let total = if bytes == 4 {
                let operands: [i32; WAVE_SIZE] = std::array::from_fn(|l| {
                    if exec >> l & 1 != 0 {
                        value[l] as u32 as i32
                    } else {
                        i32::$identity
                    }
                });
                operands.iter().fold(i32::$identity, |a, &b| a.$fold(b)) as i64
            } else {
                let operands: [i64; WAVE_SIZE] = std::array::from_fn(|l| {
                    if exec >> l & 1 != 0 {
                        signed(value[l])
                    } else {
                        i64::$identity
                    }
                });
                operands.iter().fold(i64::$identity, |a, &b| a.$fold(b))
            };
            applied!(total as u64 & mask, |c, v| signed(c).$fold(signed(v))
                as u64)
        }};
    }
    match op {
        Atomic::Add => folded!(0, |a, b| a.wrapping_add(b), |c, v| c.wrapping_add(v)),
        // Subtracting each lane's operand is subtracting their sum.
        Atomic::Sub => folded!(0, |a, b| a.wrapping_add(b), |c, v| c.wrapping_sub(v)),
        Atomic::And => folded!(mask, |a, b| a & b, |c, v| c & v),
        Atomic::Or => folded!(0, |a, b| a | b, |c, v| c | v),
        Atomic::Xor => folded!(0, |a, b| a ^ b, |c, v| c ^ v),
        Atomic::Umin => folded!(mask, |a, b| a.min(b), |c, v| c.min(v)),
        Atomic::Umax => folded!(0, |a, b| a.max(b), |c, v| c.max(v)),
        Atomic::Smin => signed_folded!(MAX, min),
        Atomic::Smax => signed_folded!(MIN, max),
        // The last lane's value stays; each lane gets the one before it.
        Atomic::Swap => applied!(value[63 - exec.leading_zeros() as usize] & mask, |_c, v| v),
        _ => false,
    }
}

semantics! {
    FLAT_LOAD_UBYTE => vmem_ops::load::<Flat>;
    FLAT_LOAD_SBYTE => vmem_ops::load::<Flat>;
    FLAT_LOAD_USHORT => vmem_ops::load::<Flat>;
    FLAT_LOAD_SSHORT => vmem_ops::load::<Flat>;
    FLAT_LOAD_DWORD => vmem_ops::load::<Flat>;
    FLAT_LOAD_DWORDX2 => vmem_ops::load::<Flat>;
    FLAT_LOAD_DWORDX3 => vmem_ops::load::<Flat>;
    FLAT_LOAD_DWORDX4 => vmem_ops::load::<Flat>;
    FLAT_STORE_BYTE => vmem_ops::store::<Flat>;
    FLAT_STORE_BYTE_D16_HI => vmem_ops::store::<Flat>;
    FLAT_STORE_SHORT => vmem_ops::store::<Flat>;
    FLAT_STORE_SHORT_D16_HI => vmem_ops::store::<Flat>;
    FLAT_STORE_DWORD => vmem_ops::store::<Flat>;
    FLAT_STORE_DWORDX2 => vmem_ops::store::<Flat>;
    FLAT_STORE_DWORDX3 => vmem_ops::store::<Flat>;
    FLAT_STORE_DWORDX4 => vmem_ops::store::<Flat>;
    FLAT_LOAD_UBYTE_D16 => vmem_ops::load::<Flat>;
    FLAT_LOAD_UBYTE_D16_HI => vmem_ops::load::<Flat>;
    FLAT_LOAD_SBYTE_D16 => vmem_ops::load::<Flat>;
    FLAT_LOAD_SBYTE_D16_HI => vmem_ops::load::<Flat>;
    FLAT_LOAD_SHORT_D16 => vmem_ops::load::<Flat>;
    FLAT_LOAD_SHORT_D16_HI => vmem_ops::load::<Flat>;
    FLAT_ATOMIC_SWAP => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_CMPSWAP => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_ADD => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SUB => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SMIN => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_UMIN => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SMAX => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_UMAX => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_AND => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_OR => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_XOR => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_INC => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_DEC => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SWAP_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_CMPSWAP_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_ADD_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_ADD_F64 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_ADD_F32 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_PK_ADD_F16 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_PK_ADD_BF16 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_MIN_F64 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_MAX_F64 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SUB_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SMIN_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_UMIN_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_SMAX_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_UMAX_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_AND_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_OR_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_XOR_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_INC_X2 => vmem_ops::atomic::<Flat>;
    FLAT_ATOMIC_DEC_X2 => vmem_ops::atomic::<Flat>;
    SCRATCH_LOAD_UBYTE => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_SBYTE => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_USHORT => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_SSHORT => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_DWORD => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_DWORDX2 => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_DWORDX3 => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_DWORDX4 => vmem_ops::load::<Flat>;
    SCRATCH_STORE_BYTE => vmem_ops::store::<Flat>;
    SCRATCH_STORE_BYTE_D16_HI => vmem_ops::store::<Flat>;
    SCRATCH_STORE_SHORT => vmem_ops::store::<Flat>;
    SCRATCH_STORE_SHORT_D16_HI => vmem_ops::store::<Flat>;
    SCRATCH_STORE_DWORD => vmem_ops::store::<Flat>;
    SCRATCH_STORE_DWORDX2 => vmem_ops::store::<Flat>;
    SCRATCH_STORE_DWORDX3 => vmem_ops::store::<Flat>;
    SCRATCH_STORE_DWORDX4 => vmem_ops::store::<Flat>;
    SCRATCH_LOAD_UBYTE_D16 => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_UBYTE_D16_HI => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_SBYTE_D16 => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_SBYTE_D16_HI => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_SHORT_D16 => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_SHORT_D16_HI => vmem_ops::load::<Flat>;
    SCRATCH_LOAD_LDS_UBYTE => load_lds;
    SCRATCH_LOAD_LDS_SBYTE => load_lds;
    SCRATCH_LOAD_LDS_USHORT => load_lds;
    SCRATCH_LOAD_LDS_SSHORT => load_lds;
    SCRATCH_LOAD_LDS_DWORD => load_lds;
    GLOBAL_LOAD_UBYTE => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_SBYTE => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_USHORT => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_SSHORT => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_DWORD => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_DWORDX2 => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_DWORDX3 => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_DWORDX4 => vmem_ops::load::<Flat>;
    GLOBAL_STORE_BYTE => vmem_ops::store::<Flat>;
    GLOBAL_STORE_BYTE_D16_HI => vmem_ops::store::<Flat>;
    GLOBAL_STORE_SHORT => vmem_ops::store::<Flat>;
    GLOBAL_STORE_SHORT_D16_HI => vmem_ops::store::<Flat>;
    GLOBAL_STORE_DWORD => vmem_ops::store::<Flat>;
    GLOBAL_STORE_DWORDX2 => vmem_ops::store::<Flat>;
    GLOBAL_STORE_DWORDX3 => vmem_ops::store::<Flat>;
    GLOBAL_STORE_DWORDX4 => vmem_ops::store::<Flat>;
    GLOBAL_LOAD_UBYTE_D16 => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_UBYTE_D16_HI => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_SBYTE_D16 => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_SBYTE_D16_HI => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_SHORT_D16 => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_SHORT_D16_HI => vmem_ops::load::<Flat>;
    GLOBAL_LOAD_LDS_UBYTE => load_lds;
    GLOBAL_LOAD_LDS_SBYTE => load_lds;
    GLOBAL_LOAD_LDS_USHORT => load_lds;
    GLOBAL_LOAD_LDS_SSHORT => load_lds;
    GLOBAL_LOAD_LDS_DWORD => load_lds;
    GLOBAL_ATOMIC_SWAP => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_CMPSWAP => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_ADD => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SUB => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SMIN => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_UMIN => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SMAX => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_UMAX => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_AND => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_OR => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_XOR => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_INC => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_DEC => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SWAP_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_CMPSWAP_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_ADD_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_ADD_F32 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_PK_ADD_F16 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_PK_ADD_BF16 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_ADD_F64 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_MIN_F64 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_MAX_F64 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SUB_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SMIN_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_UMIN_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_SMAX_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_UMAX_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_AND_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_OR_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_XOR_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_INC_X2 => vmem_ops::atomic::<Flat>;
    GLOBAL_ATOMIC_DEC_X2 => vmem_ops::atomic::<Flat>;
}

/// FLAT/GLOBAL/SCRATCH addressing for the shared load/store table.
struct Flat;

impl VectorMemory for Flat {
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
    use crate::check::{Check, CheckSet};
    use crate::exec::program::Program;
    use crate::exec::DispatchEnv;
    use crate::lds::Lds;
    use crate::memory::{AllocKind, Memory};
    use crate::wave::Wave;
    use gcn_isa::{assemble, Target};

    /// Runs `d` with the first wave, memory and LDS wave-wide and with the second per lane
    /// (the path a sanitizer takes when it cannot check a range at once).
    fn run_both(
        (program, env, d): (&Program, &DispatchEnv, &Decoded),
        wide: (&mut Wave, &mut Memory, &mut Lds),
        per_lane: (&mut Wave, &mut Memory, &mut Lds),
    ) {
        for ((wave, mem, lds), per) in [(wide, false), (per_lane, true)] {
            let mut cx = Cx {
                wave,
                mem,
                lds,
                program,
                env,
            };
            check_global::PER_LANE.set(per);
            crate::exec::issue::execute(&mut cx, d).unwrap();
            check_global::PER_LANE.set(false);
        }
    }

    /// Loads and stores of every width give the same registers and memory on the one-lookup
    /// path as on the per-lane path (which a sanitizer forces), for random lanes of one
    /// buffer — narrow, d16, misaligned, several lanes storing to one place — and exec masks,
    /// and for every lane in a row (`buf[threadIdx.x]`), from an aligned and a misaligned start.
    #[test]
    fn the_one_lookup_path_agrees_with_the_per_lane_path() {
        let text = [
            "global_load_ubyte v4, v[0:1], off offset:3",
            "global_load_sbyte v4, v[0:1], off",
            "global_load_ushort v4, v[0:1], off offset:-2",
            "global_load_sshort v4, v[0:1], off",
            "global_load_dword v4, v[0:1], off",
            "global_load_dwordx2 v[4:5], v[0:1], off",
            "global_load_dwordx3 v[4:6], v[0:1], off offset:4",
            "flat_load_dwordx4 v[4:7], v[0:1]",
            "global_load_ubyte_d16_hi v4, v[0:1], off",
            "global_load_short_d16 v4, v[0:1], off",
            "global_load_sbyte_d16 v4, v[0:1], off offset:1",
            "global_store_byte v[0:1], v4, off",
            "global_store_short v[0:1], v4, off offset:2",
            "global_store_dword v[0:1], v4, off",
            "global_store_dwordx2 v[0:1], v[4:5], off",
            "flat_store_dwordx3 v[0:1], v[4:6]",
            "global_store_dwordx4 v[0:1], v[4:7], off",
            "global_store_short_d16_hi v[0:1], v4, off offset:2",
            "global_store_byte_d16_hi v[0:1], v4, off offset:1",
            // SADDR base plus a VGPR offset: `s[2:3]` holds the buffer's high dword.
            "global_load_dword v4, v0, s[2:3] offset:-4",
            "global_load_ushort v4, v0, s[2:3]",
            "global_store_dword v0, v4, s[2:3] offset:4",
            "global_store_dwordx2 v0, v[4:5], s[2:3]",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        const SIZE: u64 = 2048;
        let mut fast = Memory::default();
        let mut slow = Memory::default();
        let mut memcheck = CheckSet::NONE;
        memcheck.insert(Check::Memcheck);
        slow.enable_checks(memcheck);
        let base = fast.alloc(SIZE, AllocKind::Buffer).unwrap();
        assert_eq!(slow.alloc(SIZE, AllocKind::Buffer).unwrap(), base);
        let mut rng = crate::rng::Rng::new(0x853c_49e6_748f_ea9b);
        let mut next = move || rng.next_u64();
        let bytes: Vec<u8> = (0..SIZE).map(|_| next() as u8).collect();
        fast.store(base, &bytes).unwrap();
        slow.store(base, &bytes).unwrap();
        let env = DispatchEnv::default();
        let (mut lds_fast, mut lds_slow) = (Lds::new(0), Lds::new(0));
        for round in 0..2000 {
            let d = &program.insts[round % text.len()];
            let mut wave = Wave::new(0);
            wave.sgpr[3] = (base >> 32) as u32;
            // Every fourth round a row: lane `l` at `start + width * l`, all lanes on; every
            // fourth, two rounds later, every lane at one place.
            let row = round % 4 == 0;
            let one = (round % 4 == 2).then_some(base + 8 + 4 * (round / 4 % 8) as u64);
            let width = d.inst.info().facts.bytes as u64;
            let start = base + 8 + (round / 4 % 2) as u64;
            for l in 0..WAVE_SIZE {
                // Lanes crowd a few places, so stores overlap; offsets keep every access in
                // the buffer.
                let a = match (row, one) {
                    (true, _) => start + width * l as u64,
                    (false, Some(a)) => a,
                    (false, None) => base + 8 + next() % 64 * (1 + next() % 7),
                };
                wave.vgpr[0][l] = a as u32;
                wave.vgpr[1][l] = (a >> 32) as u32;
                for r in 4..8 {
                    wave.vgpr[r][l] = next() as u32;
                }
            }
            wave.set_exec(match next() % 3 {
                _ if row => u64::MAX,
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            let mut wave_slow = wave.clone();
            run_both(
                (&program, &env, d),
                (&mut wave, &mut fast, &mut lds_fast),
                (&mut wave_slow, &mut slow, &mut lds_slow),
            );
            for r in 4..8 {
                assert_eq!(
                    wave.vgpr[r],
                    wave_slow.vgpr[r],
                    "{} v{r}",
                    text[round % text.len()]
                );
            }
            let (mut a, mut b) = (vec![0u8; SIZE as usize], vec![0u8; SIZE as usize]);
            fast.load(base, &mut a).unwrap();
            slow.load(base, &mut b).unwrap();
            assert_eq!(a, b, "{}", text[round % text.len()]);
        }
    }

    /// A row of SADDR-plus-offset lanes whose 32-bit offsets carry out halfway (lane 32's
    /// offset wraps to 0) is not one block: the lanes from 32 on address 4 GiB below the
    /// others, outside the buffer, and the load faults as the per-lane path finds.
    #[test]
    fn a_row_whose_offsets_carry_out_is_not_one_block() {
        let code = assemble("global_load_dword v4, v0, s[2:3]", Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let mut mem = Memory::default();
        let base = mem.alloc(4096, AllocKind::Buffer).unwrap();
        let first = 0xffff_ff80u32;
        let sbase = base.wrapping_sub(first as u64);
        let mut wave = Wave::new(0);
        wave.sgpr[2] = sbase as u32;
        wave.sgpr[3] = (sbase >> 32) as u32;
        for l in 0..WAVE_SIZE {
            wave.vgpr[0][l] = first.wrapping_add(4 * l as u32);
        }
        wave.set_exec(u64::MAX);
        let env = DispatchEnv::default();
        let mut lds = Lds::new(0);
        let mut cx = Cx {
            wave: &mut wave,
            mem: &mut mem,
            lds: &mut lds,
            program: &program,
            env: &env,
        };
        let got = crate::exec::issue::execute(&mut cx, &program.insts[0]);
        assert!(got.is_err(), "{got:?}");
        // The lanes before the carry alone are a row in the buffer, and load.
        cx.wave.set_exec(u32::MAX as u64);
        crate::exec::issue::execute(&mut cx, &program.insts[0]).unwrap();
    }

    /// Atomics whose lanes name several addresses of one buffer give the same registers and
    /// memory on the one-lookup path as on the per-lane path (which a sanitizer forces):
    /// lanes crowd a few places, so several lanes update one value in lane order.
    #[test]
    fn atomics_over_one_allocation_agree_with_the_per_lane_path() {
        let text = [
            "global_atomic_add v4, v[0:1], v6, off glc",
            "global_atomic_add v[0:1], v6, off",
            "global_atomic_sub v4, v[0:1], v6, off offset:8 glc",
            "global_atomic_smin v4, v[0:1], v6, off glc",
            "flat_atomic_umax v4, v[0:1], v6 glc",
            "global_atomic_xor v4, v[0:1], v6, off glc",
            "global_atomic_inc v4, v[0:1], v6, off glc",
            "global_atomic_dec v4, v[0:1], v6, off glc",
            "global_atomic_swap v4, v[0:1], v6, off glc",
            "global_atomic_cmpswap v4, v[0:1], v[6:7], off glc",
            "global_atomic_add_x2 v[4:5], v[0:1], v[6:7], off glc",
            "global_atomic_cmpswap_x2 v[4:5], v[0:1], v[6:9], off glc",
            "global_atomic_and v4, v[0:1], v6, off glc",
            "global_atomic_or v4, v[0:1], v6, off glc",
            "global_atomic_umin v4, v[0:1], v6, off glc",
            "global_atomic_smax v4, v[0:1], v6, off glc",
            "global_atomic_smin_x2 v[4:5], v[0:1], v[6:7], off glc",
            "global_atomic_sub_x2 v[4:5], v[0:1], v[6:7], off glc",
            "global_atomic_swap_x2 v[4:5], v[0:1], v[6:7], off glc",
            "global_atomic_umax v[0:1], v6, off",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        const SIZE: u64 = 256;
        let mut fast = Memory::default();
        let mut slow = Memory::default();
        let mut memcheck = CheckSet::NONE;
        memcheck.insert(Check::Memcheck);
        slow.enable_checks(memcheck);
        let base = fast.alloc(SIZE, AllocKind::Buffer).unwrap();
        assert_eq!(slow.alloc(SIZE, AllocKind::Buffer).unwrap(), base);
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        // Small values, so that compare-and-swaps sometimes match and inc/dec wrap.
        let bytes: Vec<u8> = (0..SIZE).map(|_| (next() % 3) as u8).collect();
        fast.store(base, &bytes).unwrap();
        slow.store(base, &bytes).unwrap();
        let env = DispatchEnv::default();
        let (mut lds_fast, mut lds_slow) = (Lds::new(0), Lds::new(0));
        for round in 0..2000 {
            let name = text[round % text.len()];
            let d = &program.insts[round % text.len()];
            let mut wave = Wave::new(0);
            // Aligned for the widest atomic, in the buffer with the offset of 8; a quarter of
            // the rounds with every lane on one address (the lanes' operands folded).
            let places = if next() % 4 == 0 { 1 } else { 1 + next() % 8 };
            for l in 0..WAVE_SIZE {
                let a = base + 8 * (next() % places) * (1 + next() % 3);
                wave.vgpr[0][l] = a as u32;
                wave.vgpr[1][l] = (a >> 32) as u32;
                // Some rounds with any bits: signed minima of negatives, sums that wrap.
                for r in 4..10 {
                    wave.vgpr[r][l] = if round % 5 == 4 {
                        next() as u32
                    } else {
                        (next() % 4) as u32
                    };
                }
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            let mut wave_slow = wave.clone();
            run_both(
                (&program, &env, d),
                (&mut wave, &mut fast, &mut lds_fast),
                (&mut wave_slow, &mut slow, &mut lds_slow),
            );
            for r in 4..6 {
                assert_eq!(wave.vgpr[r], wave_slow.vgpr[r], "{name} v{r}");
            }
            let (mut a, mut b) = (vec![0u8; SIZE as usize], vec![0u8; SIZE as usize]);
            fast.load(base, &mut a).unwrap();
            slow.load(base, &mut b).unwrap();
            assert_eq!(a, b, "{name}");
        }
    }

    /// A wave's first load or store of a full row of dwords in a barrier interval marks each
    /// dword with its own lane: another wave's access of one of them then reports that lane as
    /// the other access, on the wave-wide path as on the per-lane path.
    #[test]
    fn a_full_rows_marks_name_each_lane() {
        let text = [
            "global_load_dword v4, v[0:1], off",
            "global_store_dword v[0:1], v4, off",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let env = DispatchEnv::default();
        let all = CheckSet::parse("all").unwrap();
        // (the full row's instruction, the single lane's): a store then a load, a load then a
        // store.
        for (row, one) in [(1, 0), (0, 1)] {
            for lane in [0, 1, 37, 63] {
                let mut mems = [(); 2].map(|_| {
                    let mut mem = Memory::default();
                    mem.enable_checks(all);
                    mem
                });
                let base = mems[0].alloc(1024, AllocKind::Buffer).unwrap();
                assert_eq!(mems[1].alloc(1024, AllocKind::Buffer).unwrap(), base);
                let [wide_mem, per_mem] = &mut mems;
                wide_mem.write(base, &[0; 1024]).unwrap();
                per_mem.write(base, &[0; 1024]).unwrap();
                let (mut wide_lds, mut per_lds) = (Lds::new(0), Lds::new(0));
                for (w, (i, exec)) in [(row, u64::MAX), (one, 1 << lane)].into_iter().enumerate() {
                    let mut wave = Wave::new(w as u32);
                    for l in 0..WAVE_SIZE {
                        let a = base + 256 + 4 * l as u64;
                        wave.vgpr[0][l] = a as u32;
                        wave.vgpr[1][l] = (a >> 32) as u32;
                    }
                    wave.set_exec(exec);
                    wave.pc = i as u32 + 1;
                    let mut other = wave.clone();
                    run_both(
                        (&program, &env, &program.insts[i]),
                        (&mut wave, &mut *wide_mem, &mut wide_lds),
                        (&mut other, &mut *per_mem, &mut per_lds),
                    );
                }
                let reports = mems.map(|mut m| m.check_state().unwrap().findings.take());
                let (wide, per_lane) = (&reports[0], &reports[1]);
                assert_eq!(wide, per_lane, "{} then lane {lane}", text[row]);
                let race = wide
                    .iter()
                    .find(|r| r.kind == crate::check::Kind::GlobalRace);
                let other = race
                    .and_then(|r| r.other)
                    .map(|(site, _)| (site.wave, site.lane));
                assert_eq!(
                    other,
                    Some((0, lane as u8)),
                    "{} then lane {lane}",
                    text[row]
                );
            }
        }
    }

    /// With every sanitizer on, loads, stores and atomics whose lanes lie in one buffer record
    /// the same findings (races between the waves of a workgroup, reads of bytes nothing wrote)
    /// in the same order, and leave the same registers and memory, on the wave-wide path as on
    /// the per-lane path: waves take turns with and without barriers between them, over a
    /// buffer written only in part.
    #[test]
    fn checked_accesses_record_the_same_findings_wave_wide_and_per_lane() {
        let text = [
            "global_load_dword v4, v[0:1], off",
            "global_load_ubyte v4, v[0:1], off offset:3",
            "global_load_dwordx2 v[4:5], v[0:1], off",
            "global_load_dword v4, v[0:1], off glc",
            "global_load_short_d16_hi v4, v[0:1], off",
            "global_load_ushort v4, v[0:1], off",
            "global_store_dword v[0:1], v4, off",
            "global_store_short v[0:1], v4, off offset:2",
            "global_store_byte v[0:1], v4, off",
            "flat_store_dwordx4 v[0:1], v[4:7]",
            "global_atomic_add v4, v[0:1], v6, off glc",
            "global_atomic_cmpswap v4, v[0:1], v[6:7], off glc",
            "global_atomic_umax v[0:1], v6, off",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        const SIZE: u64 = 1024;
        let all = CheckSet::parse("all").unwrap();
        let (mut wide, mut per_lane) = (Memory::default(), Memory::default());
        wide.enable_checks(all);
        per_lane.enable_checks(all);
        let base = wide.alloc(SIZE, AllocKind::Buffer).unwrap();
        assert_eq!(per_lane.alloc(SIZE, AllocKind::Buffer).unwrap(), base);
        let mut rng = crate::rng::Rng::new(0x6a09_e667_f3bc_c908);
        let mut next = move || rng.next_u64();
        // The first half written by the host; the rest only by the kernel's stores.
        let bytes: Vec<u8> = (0..SIZE / 2).map(|_| next() as u8).collect();
        wide.write(base, &bytes).unwrap();
        per_lane.write(base, &bytes).unwrap();
        let env = DispatchEnv::default();
        let (mut lds_wide, mut lds_per_lane) = (Lds::new(0), Lds::new(0));
        let mut waves: Vec<Wave> = (0..4).map(Wave::new).collect();
        // The second half without atomics or `glc` loads: a wave making one synchronizes
        // through memory in its epoch, and races with it are not reported, so without them
        // every race counts.
        let plain: Vec<usize> = (0..text.len())
            .filter(|&i| !text[i].contains("atomic") && !text[i].contains("glc"))
            .collect();
        for round in 0..6000 {
            let i = match round < 3000 {
                true => round % text.len(),
                false => plain[round % plain.len()],
            };
            let d = &program.insts[i];
            let w = (next() % 4) as usize;
            // Now and then every wave passes a barrier: accesses before it race with none after.
            // Some rounds leave a wave behind, so that waves run in different epochs.
            if next() % 16 == 0 {
                let behind = next() % 8;
                for n in (0..4).filter(|&n| n != behind) {
                    lds_wide.note_barrier(n as u32);
                    lds_per_lane.note_barrier(n as u32);
                }
            }
            let wave = &mut waves[w];
            // Lanes in a row of bytes, halves, dwords (as `p[threadIdx.x]`) or pairs of dwords,
            // crowding a few places, all on one (a counter), or a row of dwords up to some lane
            // and one place after it; inside the buffer with every offset, and aligned for the
            // atomics but for the rows of bytes and halves.
            let mode = next() % 7;
            let start = base + 8 * (next() % 48);
            let one = base + 8 * (next() % 120);
            let split = 1 + next() % 63;
            for l in 0..WAVE_SIZE {
                let a = match mode {
                    0 => start + 8 * l as u64,
                    1 => base + 8 * (next() % 120),
                    2 => one,
                    3 => start + l as u64,
                    4 => start + 2 * l as u64,
                    5 if l as u64 >= split => one,
                    _ => start + 4 * l as u64,
                };
                wave.vgpr[0][l] = a as u32;
                wave.vgpr[1][l] = (a >> 32) as u32;
                for r in 4..8 {
                    wave.vgpr[r][l] = (next() % 3) as u32;
                }
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            // The instruction being run, as the engine leaves `pc` (one past it).
            wave.pc = i as u32 + 1;
            let mut other = wave.clone();
            run_both(
                (&program, &env, d),
                (&mut *wave, &mut wide, &mut lds_wide),
                (&mut other, &mut per_lane, &mut lds_per_lane),
            );
            for r in 4..8 {
                assert_eq!(wave.vgpr[r], other.vgpr[r], "{} v{r}", text[i]);
            }
            let (mut a, mut b) = (vec![0u8; SIZE as usize], vec![0u8; SIZE as usize]);
            wide.load(base, &mut a).unwrap();
            per_lane.load(base, &mut b).unwrap();
            assert_eq!(a, b, "{}", text[i]);
            // And the same histories (a report names only a site's first race; the marks
            // left behind name the lanes and bytes of every later one).
            let history = |lds: &Lds, at: u64| lds.shadow.as_ref().and_then(|s| s.history(at));
            for at in (base..base + SIZE).step_by(4) {
                let (a, b) = (history(&lds_wide, at), history(&lds_per_lane, at));
                assert_eq!(a, b, "{} at +{:#x}", text[i], at - base);
            }
        }
        let found = |m: &mut Memory| m.check_state().unwrap().findings.take();
        let (got, want) = (found(&mut wide), found(&mut per_lane));
        // Both kinds of finding occur, so the comparison compares something.
        use crate::check::Kind;
        assert!(want.iter().any(|r| r.kind == Kind::GlobalRace));
        assert!(want.iter().any(|r| r.kind == Kind::UninitializedRead));
        assert_eq!(got, want);
    }
}
