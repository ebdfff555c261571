//! Scalar scratch access (gfx9 SMEM): s_scratch_load_dword{,x2,x4} and
//! s_scratch_store_dword{,x2,x4}.
//!
//! SBASE holds a byte address into scratch backing memory (a wave's FLAT_SCRATCH base, as the
//! ISA intends). Scratch is swizzled per lane in dwords (see [`super::access::private_address`]:
//! private dword `o / 4` of lane `l` is at `(o / 4) * 256 + l * 4`), so an SGPR offset, which
//! counts bytes of one lane's private segment, is scaled by the wave size 64; the immediate
//! offset is a plain byte offset:
//!
//! `ADDR = SBASE + (IMM_OFFSET & ~3) + (SGPR_OFFSET & ~3) * 64`
//!
//! The SGPR offset is the SGPR the offset field names (IMM = 0) or SOFFSET (SOE = 1). Multi-dword
//! forms touch consecutive dwords from ADDR. Every access is checked against device memory.

use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;

/// The address of the access (see the module comment).
fn address(cx: &Cx, d: &Decoded) -> u64 {
    let imm = d.inst.bits(0, 17, 1) != 0;
    let soe = d.inst.bits(0, 14, 1) != 0;
    let field = d.inst.bits(1, 0, 21);
    let (inst_offset, sgpr_offset) = if imm {
        // The 21-bit field is signed on gfx9.
        let off = ((field << 11) as i32 >> 11) as i64 as u64;
        let sgpr = soe.then(|| cx.wave.sgpr[d.inst.bits(1, 25, 7) as usize]);
        (off, sgpr)
    } else {
        (0, Some(cx.wave.sgpr[field as usize & 127]))
    };
    let sgpr_bytes = sgpr_offset.map_or(0, |s| (s as u64 & !3) * 64);
    cx.wave
        .pair(d.regs[0] & 126)
        .wrapping_add(inst_offset & !3)
        .wrapping_add(sgpr_bytes)
}

fn fault(cx: &Cx, what: &'static str, addr: u64, len: usize) -> Fault {
    Fault::ScalarMemory {
        what,
        addr,
        len: len as u32,
        detail: cx.mem.describe(addr),
    }
}

/// SDATA[0..n] = MEM[ADDR..ADDR + 4n].
fn load(cx: &mut Cx, d: &Decoded, n: usize) -> Res {
    let addr = address(cx, d);
    let mut bytes = [0u8; 16];
    let bytes = &mut bytes[..4 * n];
    cx.mem
        .load(addr, bytes)
        .map_err(|_| fault(cx, "scratch load", addr, 4 * n))?;
    let mut vals = [0u32; 4];
    for (v, w) in vals.iter_mut().zip(bytes.chunks_exact(4)) {
        *v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    }
    for (i, v) in vals[..n].iter().enumerate() {
        cx.wave.sgpr[(d.sdst as usize + i) & 127] = *v;
    }
    Ok(Flow::Continue)
}

/// MEM[ADDR..ADDR + 4n] = SDATA[0..n].
fn store(cx: &mut Cx, d: &Decoded, n: usize) -> Res {
    let addr = address(cx, d);
    let mut buf = [0u8; 16];
    for i in 0..n {
        let v = cx.wave.sgpr[(d.sdst as usize + i) & 127];
        buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    if cx.mem.store(addr, &buf[..4 * n]).is_err() {
        return Err(fault(cx, "scratch store", addr, 4 * n));
    }
    Ok(Flow::Continue)
}

semantics! {
    S_SCRATCH_LOAD_DWORD => |cx, d| load(cx, d, 1);
    S_SCRATCH_LOAD_DWORDX2 => |cx, d| load(cx, d, 2);
    S_SCRATCH_LOAD_DWORDX4 => |cx, d| load(cx, d, 4);
    S_SCRATCH_STORE_DWORD => |cx, d| store(cx, d, 1);
    S_SCRATCH_STORE_DWORDX2 => |cx, d| store(cx, d, 2);
    S_SCRATCH_STORE_DWORDX4 => |cx, d| store(cx, d, 4);
}
