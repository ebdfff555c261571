//! DS (LDS) instructions: reads and writes (incl. read2/write2 and st64 forms) and the cross-lane
//! ds_permute/ds_bpermute/ds_swizzle, which use the LDS crossbar but not LDS memory. Atomics are
//! in `ds_atomic`, the src2/append/consume/add-tid ops in `ds_cross`.

use super::access::{self, Addr};
use super::check_lds;
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::check::Access;
use crate::exec::program::Decoded;
use crate::wave::{VGPRS, WAVE_SIZE};

pub(super) fn offset0(d: &Decoded) -> u32 {
    d.inst.bits(0, 0, 8)
}
pub(super) fn offset1(d: &Decoded) -> u32 {
    d.inst.bits(0, 8, 8)
}
/// The 16-bit offset of single-address ops.
pub(super) fn offset16(d: &Decoded) -> u32 {
    d.inst.bits(0, 0, 16)
}
pub(super) fn vaddr(d: &Decoded) -> usize {
    (d.regs[0] - 256) as usize
}
pub(super) fn data0(d: &Decoded) -> usize {
    d.regs[1].saturating_sub(256) as usize
}
pub(super) fn data1(d: &Decoded) -> usize {
    d.regs[2].saturating_sub(256) as usize
}

pub(super) fn gds_check(d: &Decoded) -> Result<(), Fault> {
    if d.inst.bits(0, 16, 1) != 0 {
        // GDS and GWS live outside the workgroup; nothing in a compute dispatch sets them up here.
        return Err(Fault::NotInCompute(
            d.inst.info().name,
            "the global data share (gds) is not modelled",
        ));
    }
    Ok(())
}

/// Every lane's address `ADDR + offset` (the fast paths check the range for the lanes in EXEC).
pub(super) fn lane_addresses(cx: &Cx, base: usize, offset: u32) -> [u32; WAVE_SIZE] {
    let v = &cx.wave.vgpr[base];
    std::array::from_fn(|l| v[l].wrapping_add(offset))
}

/// The sanitizers' record of a DS instruction whose accesses (`parts`, as
/// [`check_lds::access_lanes`] takes them) all lie inside the LDS, for the wave-wide paths: what
/// the per-lane path records lane by lane; nothing without sanitizers.
#[inline]
fn checked(cx: &mut Cx, exec: u64, parts: &[(&[u32; WAVE_SIZE], usize)], access: Access) {
    if cx.mem.checking() {
        check_lds::access_lanes(cx, exec, parts, access);
    }
}

/// The four VGPR rows starting at `reg` (a store's data; only its first dwords are used).
fn data_rows(w: &crate::wave::Wave, reg: usize) -> [&[u32; WAVE_SIZE]; 4] {
    std::array::from_fn(|i| &w.vgpr[(reg + i) % 256])
}

/// Lane `l`'s dwords of the VGPRs starting at `reg`.
pub(super) fn gather(cx: &Cx, reg: usize, l: usize, n: usize) -> [u32; 4] {
    let mut v = [0u32; 4];
    for (i, x) in v.iter_mut().enumerate().take(n) {
        *x = cx.wave.vgpr[(reg + i) % 256][l];
    }
    v
}

/// DS_READ_{B32,B64,B96,B128} and the narrow forms: `bytes` per lane, `signed` extension of
/// bytes/shorts into the dword.
fn read(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let base = vaddr(d);
    let addr = lane_addresses(cx, base, offset16(d));
    if bytes == 4 {
        if let Some(start) = cx.lds.dword_row(&addr, exec) {
            checked(cx, exec, &[(&addr, bytes)], Access::Load);
            let vdst = &mut cx.wave.vgpr[d.vdst as usize % VGPRS];
            cx.lds.load_row(start, exec, vdst);
            return Ok(Flow::Continue);
        }
    }
    let mut out = [[0u32; WAVE_SIZE]; 4];
    {
        if bytes.is_multiple_of(4) && cx.lds.lanes_in_range(&addr, exec, bytes / 4) {
            checked(cx, exec, &[(&addr, bytes)], Access::Load);
            cx.lds.load_lanes(&addr, exec, bytes / 4, &mut out);
            for (i, row) in out.iter().enumerate().take(bytes / 4) {
                cx.wave.write_row(d.vdst as usize + i, row, exec);
            }
            return Ok(Flow::Continue);
        }
        if bytes < 4 && cx.lds.bytes_in_range(&addr, exec, bytes) {
            checked(cx, exec, &[(&addr, bytes)], Access::Load);
            let row = &mut out[0];
            cx.lds.load_narrow(&addr, exec, bytes, row);
            if signed {
                let shift = 32 - 8 * bytes as u32;
                row.iter_mut()
                    .for_each(|v| *v = ((*v << shift) as i32 >> shift) as u32);
            }
            cx.wave.write_row(d.vdst as usize, row, exec);
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = cx.wave.vgpr[base][l].wrapping_add(offset16(d));
        let mut buf = [0u8; 16];
        access::load(cx, l, Addr::Lds(a), &mut buf[..bytes])?;
        spread(&buf, bytes, signed, &mut out, l);
    }
    for (i, row) in out.iter().enumerate().take(bytes.div_ceil(4)) {
        cx.wave.write_row(d.vdst as usize + i, row, exec);
    }
    Ok(Flow::Continue)
}

/// Puts a lane's loaded bytes into result dwords, extending narrow loads.
pub fn spread(
    buf: &[u8; 16],
    bytes: usize,
    signed: bool,
    out: &mut [[u32; WAVE_SIZE]; 4],
    l: usize,
) {
    match bytes {
        1 => {
            out[0][l] = if signed {
                buf[0] as i8 as i32 as u32
            } else {
                buf[0] as u32
            }
        }
        2 => {
            let h = u16::from_le_bytes([buf[0], buf[1]]);
            out[0][l] = if signed {
                h as i16 as i32 as u32
            } else {
                h as u32
            };
        }
        _ => {
            for (i, w) in buf[..bytes].chunks_exact(4).enumerate() {
                out[i][l] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            }
        }
    }
}

/// DS_WRITE_*: `bytes` per lane from DATA0.
fn write(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    {
        let addr = lane_addresses(cx, vaddr(d), offset16(d));
        if bytes == 4 {
            if let Some(start) = cx.lds.dword_row(&addr, exec) {
                checked(cx, exec, &[(&addr, bytes)], Access::Store);
                cx.lds.store_row(start, exec, &cx.wave.vgpr[data0(d) % 256]);
                return Ok(Flow::Continue);
            }
        }
        if bytes.is_multiple_of(4) && cx.lds.lanes_in_range(&addr, exec, bytes / 4) {
            checked(cx, exec, &[(&addr, bytes)], Access::Store);
            let rows = data_rows(cx.wave, data0(d));
            cx.lds.store_row_lanes(&addr, exec, bytes / 4, rows);
            return Ok(Flow::Continue);
        }
        if bytes < 4 && cx.lds.bytes_in_range(&addr, exec, bytes) {
            checked(cx, exec, &[(&addr, bytes)], Access::Store);
            let row = cx.wave.vgpr[data0(d) % 256];
            cx.lds.store_narrow(&addr, exec, bytes, &row);
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = cx.wave.vgpr[vaddr(d)][l].wrapping_add(offset16(d));
        let v = gather(cx, data0(d), l, bytes.div_ceil(4));
        let mut buf = [0u8; 16];
        for (i, w) in v.iter().enumerate() {
            buf[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        access::store(cx, l, Addr::Lds(a), &buf[..bytes])?;
    }
    Ok(Flow::Continue)
}

/// ds_read_{u8,i8,u16}_d16[_hi]: one half of VDST, the other half kept.
fn read_d16(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool, hi: bool) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let mut out = cx.wave.vgpr[d.vdst as usize];
    let addr = lane_addresses(cx, vaddr(d), offset16(d));
    if cx.lds.bytes_in_range(&addr, exec, bytes) {
        checked(cx, exec, &[(&addr, bytes)], Access::Load);
        let mut loaded = [0u32; WAVE_SIZE];
        cx.lds.load_narrow(&addr, exec, bytes, &mut loaded);
        for (o, v) in out.iter_mut().zip(loaded) {
            let b = v.to_le_bytes();
            *o = super::flat::d16_merge(*o, super::flat::d16_value(&b, bytes, signed), hi);
        }
        cx.wave.write_row(d.vdst as usize, &out, exec);
        return Ok(Flow::Continue);
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = addr[l];
        let mut buf = [0u8; 2];
        access::load(cx, l, Addr::Lds(a), &mut buf[..bytes])?;
        out[l] = super::flat::d16_merge(out[l], super::flat::d16_value(&buf, bytes, signed), hi);
    }
    cx.wave.write_row(d.vdst as usize, &out, exec);
    Ok(Flow::Continue)
}

/// ds_write_b{8,16}_d16_hi: the low bytes of DATA0[31:16].
fn write_d16_hi(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let addr = lane_addresses(cx, vaddr(d), offset16(d));
    if cx.lds.bytes_in_range(&addr, exec, bytes) {
        checked(cx, exec, &[(&addr, bytes)], Access::Store);
        let high = cx.wave.vgpr[data0(d) % 256].map(|v| v >> 16);
        cx.lds.store_narrow(&addr, exec, bytes, &high);
        return Ok(Flow::Continue);
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = addr[l];
        let v = (gather(cx, data0(d), l, 1)[0] >> 16) as u16;
        access::store(cx, l, Addr::Lds(a), &v.to_le_bytes()[..bytes])?;
    }
    Ok(Flow::Continue)
}

/// DS_READ2_B32/B64 (and st64): two elements at ADDR + offset0 * stride and ADDR + offset1 * stride.
fn read2(cx: &mut Cx, d: &Decoded, elem: usize, stride: u32) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let words = elem / 4;
    let mut out = [[0u32; WAVE_SIZE]; 4];
    {
        let a0 = lane_addresses(cx, vaddr(d), offset0(d) * stride);
        let a1 = lane_addresses(cx, vaddr(d), offset1(d) * stride);
        if cx.lds.lanes_in_range(&a0, exec, words) && cx.lds.lanes_in_range(&a1, exec, words) {
            checked(cx, exec, &[(&a0, elem), (&a1, elem)], Access::Load);
            let (first, second) = out.split_at_mut(words);
            cx.lds.load_lanes(&a0, exec, words, first);
            cx.lds.load_lanes(&a1, exec, words, second);
            for (i, row) in out.iter().enumerate().take(2 * words) {
                cx.wave.write_row(d.vdst as usize + i, row, exec);
            }
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let base = cx.wave.vgpr[vaddr(d)][l];
        for (k, off) in [offset0(d), offset1(d)].into_iter().enumerate() {
            let a = base.wrapping_add(off * stride);
            let mut buf = [0u8; 8];
            access::load(cx, l, Addr::Lds(a), &mut buf[..elem])?;
            for (i, w) in buf[..elem].chunks_exact(4).enumerate() {
                out[k * words + i][l] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            }
        }
    }
    for (i, row) in out.iter().enumerate().take(2 * words) {
        cx.wave.write_row(d.vdst as usize + i, row, exec);
    }
    Ok(Flow::Continue)
}

/// DS_WRITE2_B32/B64 (and st64): DATA0 at offset0 * stride, DATA1 at offset1 * stride.
fn write2(cx: &mut Cx, d: &Decoded, elem: usize, stride: u32) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let words = elem / 4;
    {
        let a0 = lane_addresses(cx, vaddr(d), offset0(d) * stride);
        let a1 = lane_addresses(cx, vaddr(d), offset1(d) * stride);
        if cx.lds.lanes_in_range(&a0, exec, words) && cx.lds.lanes_in_range(&a1, exec, words) {
            checked(cx, exec, &[(&a0, elem), (&a1, elem)], Access::Store);
            let (r0, r1) = (data_rows(cx.wave, data0(d)), data_rows(cx.wave, data1(d)));
            cx.lds
                .store_lanes(exec, &[(&a0, words, r0), (&a1, words, r1)]);
            return Ok(Flow::Continue);
        }
    }
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let base = cx.wave.vgpr[vaddr(d)][l];
        for (off, reg) in [(offset0(d), data0(d)), (offset1(d), data1(d))] {
            let v = gather(cx, reg, l, words);
            let mut buf = [0u8; 8];
            for (i, w) in v.iter().take(words).enumerate() {
                buf[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
            }
            access::store(
                cx,
                l,
                Addr::Lds(base.wrapping_add(off * stride)),
                &buf[..elem],
            )?;
        }
    }
    Ok(Flow::Continue)
}

/// DS_BPERMUTE_B32: D[l] = DATA0[(ADDR[l] + offset) / 4 mod 64]; inactive source lanes give 0.
fn ds_bpermute_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let exec = cx.wave.exec();
    let addr = cx.wave.vgpr[vaddr(d)];
    let src = cx.wave.vgpr[data0(d)];
    let mut out = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let s = (addr[l].wrapping_add(offset16(d)) >> 2) as usize & 63;
        out[l] = if exec >> s & 1 != 0 { src[s] } else { 0 };
    }
    cx.wave.write_row(d.vdst as usize, &out, exec);
    Ok(Flow::Continue)
}

/// DS_PERMUTE_B32: D[(ADDR[l] + offset) / 4 mod 64] = DATA0[l] for active l; the highest lane
/// wins; lanes nobody writes get 0.
fn ds_permute_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let exec = cx.wave.exec();
    let addr = cx.wave.vgpr[vaddr(d)];
    let src = cx.wave.vgpr[data0(d)];
    let mut out = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 != 0 {
            let t = (addr[l].wrapping_add(offset16(d)) >> 2) as usize & 63;
            out[t] = src[l];
        }
    }
    cx.wave.write_row(d.vdst as usize, &out, exec);
    Ok(Flow::Continue)
}

/// DS_SWIZZLE_B32: offset[15] = 1: quad permute by offset[7:0]; else within each group of 32,
/// lane j = ((l & and_mask) | or_mask) ^ xor_mask with the masks in offset[4:0], [9:5], [14:10].
fn ds_swizzle_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let exec = cx.wave.exec();
    let off = offset16(d);
    // The swizzled value is the ADDR operand (LLVM: `ds_swizzle_b32 vdst, vsrc offset:...`).
    let src = cx.wave.vgpr[vaddr(d)];
    let mut out = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let s = if off & 0x8000 != 0 {
            (l & !3) + ((off as usize >> (2 * (l & 3))) & 3)
        } else {
            let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
            (l & !31) + ((((l as u32 & 31) & and) | or) ^ xor) as usize
        };
        out[l] = if exec >> s & 1 != 0 { src[s] } else { 0 };
    }
    cx.wave.write_row(d.vdst as usize, &out, exec);
    Ok(Flow::Continue)
}

fn ds_nop(_: &mut Cx, _: &Decoded) -> Res {
    Ok(Flow::Continue)
}

semantics! {
    DS_READ_B32 => |cx, d| read(cx, d, 4, false);
    DS_READ_B64 => |cx, d| read(cx, d, 8, false);
    DS_READ_B96 => |cx, d| read(cx, d, 12, false);
    DS_READ_B128 => |cx, d| read(cx, d, 16, false);
    DS_READ_U8 => |cx, d| read(cx, d, 1, false);
    DS_READ_I8 => |cx, d| read(cx, d, 1, true);
    DS_READ_U16 => |cx, d| read(cx, d, 2, false);
    DS_READ_I16 => |cx, d| read(cx, d, 2, true);
    DS_WRITE_B8 => |cx, d| write(cx, d, 1);
    DS_READ_U8_D16 => |cx, d| read_d16(cx, d, 1, false, false);
    DS_READ_U8_D16_HI => |cx, d| read_d16(cx, d, 1, false, true);
    DS_READ_I8_D16 => |cx, d| read_d16(cx, d, 1, true, false);
    DS_READ_I8_D16_HI => |cx, d| read_d16(cx, d, 1, true, true);
    DS_READ_U16_D16 => |cx, d| read_d16(cx, d, 2, false, false);
    DS_READ_U16_D16_HI => |cx, d| read_d16(cx, d, 2, false, true);
    DS_WRITE_B8_D16_HI => |cx, d| write_d16_hi(cx, d, 1);
    DS_WRITE_B16_D16_HI => |cx, d| write_d16_hi(cx, d, 2);
    DS_WRITE_B16 => |cx, d| write(cx, d, 2);
    DS_WRITE_B32 => |cx, d| write(cx, d, 4);
    DS_WRITE_B64 => |cx, d| write(cx, d, 8);
    DS_WRITE_B96 => |cx, d| write(cx, d, 12);
    DS_WRITE_B128 => |cx, d| write(cx, d, 16);
    DS_READ2_B32 => |cx, d| read2(cx, d, 4, 4);
    DS_READ2ST64_B32 => |cx, d| read2(cx, d, 4, 256);
    DS_READ2_B64 => |cx, d| read2(cx, d, 8, 8);
    DS_READ2ST64_B64 => |cx, d| read2(cx, d, 8, 512);
    DS_WRITE2_B32 => |cx, d| write2(cx, d, 4, 4);
    DS_WRITE2ST64_B32 => |cx, d| write2(cx, d, 4, 256);
    DS_WRITE2_B64 => |cx, d| write2(cx, d, 8, 8);
    DS_WRITE2ST64_B64 => |cx, d| write2(cx, d, 8, 512);
    DS_BPERMUTE_B32 => ds_bpermute_b32;
    DS_PERMUTE_B32 => ds_permute_b32;
    DS_SWIZZLE_B32 => ds_swizzle_b32;
    DS_NOP => ds_nop;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Check, CheckSet};
    use crate::exec::program::Program;
    use crate::exec::DispatchEnv;
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::Wave;
    use gcn_isa::{assemble, Target};

    /// A wave whose lanes address consecutive dwords (`sdata[threadIdx.x]`, moved as one block)
    /// reads and writes what lane-by-lane accesses under EXEC give, for rows anywhere in the
    /// LDS (aligned or not, the last lanes past its end while outside EXEC) and any EXEC, and
    /// so does a wave whose lanes outside EXEC address anything else.
    #[test]
    fn dword_rows_agree_with_lane_by_lane_accesses() {
        let text = [
            "ds_write_b32 v0, v2 offset:4",
            "ds_read_b32 v6, v0 offset:4",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        const SIZE: u32 = 512;
        let mut lds = Lds::new(SIZE);
        let mut mem = Memory::default();
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        let env = DispatchEnv::default();
        let (mut blocks, mut scattered_blocks) = (0, 0);
        for round in 0..2000 {
            let write = round % 2 == 0;
            let d = &program.insts[round % 2];
            let mut wave = Wave::new(0);
            let start = (next() % (SIZE as u64 - 4)) as u32 & !(next() as u32 % 2 * 3);
            let exec = match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => u64::MAX >> (next() % 64),
            };
            // In half the rounds the lanes outside EXEC address anything (an address computed
            // under EXEC): the active lanes' row moves as one block all the same.
            let scattered = round % 4 >= 2;
            for l in 0..WAVE_SIZE {
                wave.vgpr[0][l] = match scattered && exec >> l & 1 == 0 {
                    true => next() as u32,
                    false => start + 4 * l as u32,
                };
                wave.vgpr[2][l] = next() as u32;
                wave.vgpr[6][l] = next() as u32;
            }
            // Every active lane's dword in range: the others may run past the end.
            let top = 64 - exec.leading_zeros();
            if start as u64 + 4 + 4 * top as u64 > SIZE as u64 {
                continue;
            }
            blocks += (start + 4 + 256 <= SIZE) as u32;
            scattered_blocks += (scattered && exec != u64::MAX && start + 4 + 256 <= SIZE) as u32;
            wave.set_exec(exec);
            let before = lds.bytes(0, SIZE as usize).unwrap().to_vec();
            let (mut bytes, mut v6) = (before.clone(), wave.vgpr[6]);
            for l in (0..WAVE_SIZE).filter(|l| exec >> l & 1 != 0) {
                let at = (start + 4 + 4 * l as u32) as usize;
                if write {
                    bytes[at..at + 4].copy_from_slice(&wave.vgpr[2][l].to_le_bytes());
                } else {
                    v6[l] = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
                }
            }
            let mut cx = Cx {
                wave: &mut wave,
                mem: &mut mem,
                lds: &mut lds,
                program: &program,
                env: &env,
            };
            crate::exec::issue::execute(&mut cx, d).unwrap();
            assert_eq!(wave.vgpr[6], v6, "{} at {start}", text[round % 2]);
            assert_eq!(
                lds.bytes(0, SIZE as usize).unwrap(),
                &bytes[..],
                "at {start}"
            );
        }
        assert!(blocks > 500, "{blocks} rows took the block path");
        assert!(
            scattered_blocks > 100,
            "{scattered_blocks} scattered rows fit in the LDS"
        );
    }

    /// DS reads and writes of every width give the same registers and LDS with every lane in
    /// range (all lanes at once, here under memcheck) as on the per-lane path, for lanes
    /// crowding a few addresses (so later lanes' stores win) and random exec masks.
    #[test]
    fn in_range_reads_and_writes_agree_with_the_per_lane_path() {
        let text = [
            "ds_write_b8 v0, v2 offset:3",
            "ds_write_b16 v0, v2 offset:2",
            "ds_write_b32 v0, v2",
            "ds_write_b64 v0, v[2:3] offset:8",
            "ds_write_b96 v0, v[2:4]",
            "ds_write_b128 v0, v[2:5] offset:16",
            "ds_write2_b32 v0, v2, v3 offset1:3",
            "ds_read_u8 v6, v0 offset:1",
            "ds_read_i16 v6, v0 offset:2",
            "ds_read_b32 v6, v0",
            "ds_read_b64 v[6:7], v0 offset:8",
            "ds_read_b96 v[6:8], v0 offset:4",
            "ds_read_b128 v[6:9], v0 offset:16",
            "ds_read_u8_d16 v6, v0 offset:3",
            "ds_read_i8_d16_hi v6, v0",
            "ds_read_u16_d16 v6, v0 offset:2",
            "ds_read_u16_d16_hi v6, v0",
            "ds_write_b8_d16_hi v0, v2 offset:1",
            "ds_write_b16_d16_hi v0, v2 offset:2",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        const SIZE: u32 = 256;
        let (mut lds_fast, mut lds_slow) = (Lds::new(SIZE), Lds::new(SIZE));
        let mut fast = Memory::default();
        let mut slow = Memory::default();
        let mut memcheck = CheckSet::NONE;
        memcheck.insert(Check::Memcheck);
        slow.enable_checks(memcheck);
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        let env = DispatchEnv::default();
        for round in 0..3000 {
            let name = text[round % text.len()];
            let d = &program.insts[round % text.len()];
            let mut wave = Wave::new(0);
            let places = 1 + next() % 8;
            for l in 0..WAVE_SIZE {
                // Dword aligned (DS_READ_B64 and wider need no more here), in range with the
                // largest offset.
                wave.vgpr[0][l] = (4 * (next() % places) * (1 + next() % 5)) as u32;
                for r in 2..10 {
                    wave.vgpr[r][l] = next() as u32;
                }
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            let mut wave_slow = wave.clone();
            for (w, mem, lds, per_lane) in [
                (&mut wave, &mut fast, &mut lds_fast, false),
                (&mut wave_slow, &mut slow, &mut lds_slow, true),
            ] {
                let mut cx = Cx {
                    wave: w,
                    mem,
                    lds,
                    program: &program,
                    env: &env,
                };
                crate::lds::PER_LANE.set(per_lane);
                crate::exec::issue::execute(&mut cx, d).unwrap();
                crate::lds::PER_LANE.set(false);
            }
            for r in 6..10 {
                assert_eq!(wave.vgpr[r], wave_slow.vgpr[r], "{name} v{r}");
            }
            assert_eq!(
                lds_fast.bytes(0, SIZE as usize),
                lds_slow.bytes(0, SIZE as usize),
                "{name}"
            );
        }
    }
}
