//! SMEM stores and atomics (gfx9): s_store_dword*, s_buffer_store_dword*, s_atomic_* and
//! s_buffer_atomic_* (returning the old value in SDATA with glc), plus the cache hints that have
//! nothing to do without a modelled scalar cache (s_dcache_discard*, s_atc_probe*).

use super::atomic_ops;
use super::smem::offset;
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use gcn_isa::Atomic;

/// The byte address of a plain form: (SBASE + offset) & ~3.
fn plain_addr(cx: &Cx, d: &Decoded) -> u64 {
    cx.wave.pair(d.regs[0] & 126).wrapping_add(offset(cx, d)) & !3
}

/// The byte address of a buffer form, or `None` past num_records (stores are dropped).
fn buffer_addr(cx: &Cx, d: &Decoded, bytes: u64) -> Option<u64> {
    let r = d.regs[0] as usize & 124;
    let w = &cx.wave.sgpr;
    let base = w[r] as u64 | ((w[r + 1] & 0xffff) as u64) << 32;
    let off = offset(cx, d) & !3;
    // A negative immediate offset wraps to a huge one: out of range, like any other.
    off.checked_add(bytes)
        .is_some_and(|end| end <= w[r + 2] as u64)
        .then(|| base.wrapping_add(off))
}

fn fault(cx: &Cx, what: &'static str, addr: u64, len: usize) -> Fault {
    Fault::ScalarMemory {
        what,
        addr,
        len: len as u32,
        detail: cx.mem.describe(addr),
    }
}

/// MEM[addr] = SDATA, `n` dwords.
fn store(cx: &mut Cx, d: &Decoded, n: usize, buffer: bool) -> Res {
    let addr = if buffer {
        match buffer_addr(cx, d, 4 * n as u64) {
            Some(a) => a,
            None => return Ok(Flow::Continue),
        }
    } else {
        plain_addr(cx, d)
    };
    let mut buf = [0u8; 16];
    for i in 0..n {
        let v = cx.wave.sgpr[(d.sdst as usize + i) & 127];
        buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    if cx.mem.store(addr, &buf[..4 * n]).is_err() {
        return Err(fault(cx, "store", addr, 4 * n));
    }
    Ok(Flow::Continue)
}

/// MEM[addr] = op(MEM[addr], SDATA); with glc, SDATA = the old value. cmpswap takes the new value
/// in the first half of SDATA and the comparand in the second.
fn atomic(cx: &mut Cx, d: &Decoded, op: Atomic, wide: bool, buffer: bool) -> Res {
    let bytes = if wide { 8 } else { 4 };
    let addr = if buffer {
        match buffer_addr(cx, d, bytes as u64) {
            Some(a) => a,
            None => return Ok(Flow::Continue),
        }
    } else {
        plain_addr(cx, d) & !(bytes as u64 - 1)
    };
    let s = d.sdst as usize;
    let reg = |i: usize| cx.wave.sgpr[(s + i) & 127] as u64;
    let (data, cmp) = if wide {
        (reg(0) | reg(1) << 32, reg(2) | reg(3) << 32)
    } else {
        (reg(0), reg(1))
    };
    let old = cx
        .mem
        .rmw(addr, bytes, |old| {
            atomic_ops::apply(op, old, data, cmp, 8 * bytes as u32).unwrap_or(old)
        })
        .map_err(|_| fault(cx, "atomic", addr, bytes))?;
    if d.inst.bits(0, 16, 1) != 0 {
        cx.wave.sgpr[s & 127] = old as u32;
        if wide {
            cx.wave.sgpr[(s + 1) & 127] = (old >> 32) as u32;
        }
    }
    Ok(Flow::Continue)
}

fn nothing(_: &mut Cx, _: &Decoded) -> Res {
    Ok(Flow::Continue)
}

/// s_atomic_* (`BUFFER` false) and s_buffer_atomic_*: the operation and width from the table.
fn atomic_op<const BUFFER: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let facts = &d.inst.info().facts;
    let op = facts
        .atomic
        .and_then(atomic_ops::shared)
        .ok_or(Fault::Unimplemented)?;
    atomic(cx, d, op, facts.bytes == 8, BUFFER)
}

semantics! {
    S_STORE_DWORD => |cx, d| store(cx, d, 1, false);
    S_STORE_DWORDX2 => |cx, d| store(cx, d, 2, false);
    S_STORE_DWORDX4 => |cx, d| store(cx, d, 4, false);
    S_BUFFER_STORE_DWORD => |cx, d| store(cx, d, 1, true);
    S_BUFFER_STORE_DWORDX2 => |cx, d| store(cx, d, 2, true);
    S_BUFFER_STORE_DWORDX4 => |cx, d| store(cx, d, 4, true);
    // No scalar cache or address-translation cache is modelled.
    S_DCACHE_DISCARD => nothing;
    S_DCACHE_DISCARD_X2 => nothing;
    S_ATC_PROBE => nothing;
    S_ATC_PROBE_BUFFER => nothing;
    S_BUFFER_ATOMIC_SWAP => atomic_op::<true>;
    S_BUFFER_ATOMIC_CMPSWAP => atomic_op::<true>;
    S_BUFFER_ATOMIC_ADD => atomic_op::<true>;
    S_BUFFER_ATOMIC_SUB => atomic_op::<true>;
    S_BUFFER_ATOMIC_SMIN => atomic_op::<true>;
    S_BUFFER_ATOMIC_UMIN => atomic_op::<true>;
    S_BUFFER_ATOMIC_SMAX => atomic_op::<true>;
    S_BUFFER_ATOMIC_UMAX => atomic_op::<true>;
    S_BUFFER_ATOMIC_AND => atomic_op::<true>;
    S_BUFFER_ATOMIC_OR => atomic_op::<true>;
    S_BUFFER_ATOMIC_XOR => atomic_op::<true>;
    S_BUFFER_ATOMIC_INC => atomic_op::<true>;
    S_BUFFER_ATOMIC_DEC => atomic_op::<true>;
    S_BUFFER_ATOMIC_SWAP_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_CMPSWAP_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_ADD_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_SUB_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_SMIN_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_UMIN_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_SMAX_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_UMAX_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_AND_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_OR_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_XOR_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_INC_X2 => atomic_op::<true>;
    S_BUFFER_ATOMIC_DEC_X2 => atomic_op::<true>;
    S_ATOMIC_SWAP => atomic_op::<false>;
    S_ATOMIC_CMPSWAP => atomic_op::<false>;
    S_ATOMIC_ADD => atomic_op::<false>;
    S_ATOMIC_SUB => atomic_op::<false>;
    S_ATOMIC_SMIN => atomic_op::<false>;
    S_ATOMIC_UMIN => atomic_op::<false>;
    S_ATOMIC_SMAX => atomic_op::<false>;
    S_ATOMIC_UMAX => atomic_op::<false>;
    S_ATOMIC_AND => atomic_op::<false>;
    S_ATOMIC_OR => atomic_op::<false>;
    S_ATOMIC_XOR => atomic_op::<false>;
    S_ATOMIC_INC => atomic_op::<false>;
    S_ATOMIC_DEC => atomic_op::<false>;
    S_ATOMIC_SWAP_X2 => atomic_op::<false>;
    S_ATOMIC_CMPSWAP_X2 => atomic_op::<false>;
    S_ATOMIC_ADD_X2 => atomic_op::<false>;
    S_ATOMIC_SUB_X2 => atomic_op::<false>;
    S_ATOMIC_SMIN_X2 => atomic_op::<false>;
    S_ATOMIC_UMIN_X2 => atomic_op::<false>;
    S_ATOMIC_SMAX_X2 => atomic_op::<false>;
    S_ATOMIC_UMAX_X2 => atomic_op::<false>;
    S_ATOMIC_AND_X2 => atomic_op::<false>;
    S_ATOMIC_OR_X2 => atomic_op::<false>;
    S_ATOMIC_XOR_X2 => atomic_op::<false>;
    S_ATOMIC_INC_X2 => atomic_op::<false>;
    S_ATOMIC_DEC_X2 => atomic_op::<false>;
}
