//! Scalar memory: s_load_dword* and s_buffer_load_dword* (gfx9 SMEM encoding), cache controls and
//! timers. The data lands in SGPRs when the instruction executes; LGKM_CNT bookkeeping is done by
//! the dispatcher from the op's class.

use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;

/// The byte offset: IMM (bit 17) selects the 21-bit offset field, otherwise the field's low bits
/// name an SGPR; with SOE (bit 14) and IMM, the SGPR in [63:57] is added too.
pub fn offset(cx: &Cx, d: &Decoded) -> u64 {
    let imm = d.inst.bits(0, 17, 1) != 0;
    let soe = d.inst.bits(0, 14, 1) != 0;
    let field = d.inst.bits(1, 0, 21);
    let mut off = if imm {
        // Sign-extend the 21-bit field.
        ((field << 11) as i32 >> 11) as i64 as u64
    } else {
        cx.wave.sgpr[field as usize & 127] as u64
    };
    if imm && soe {
        off = off.wrapping_add(cx.wave.sgpr[d.inst.bits(1, 25, 7) as usize] as u64);
    }
    off
}

/// S_LOAD_DWORD*: SDATA = MEM[(SBASE + offset) & ~3], `N` dwords. One function per width, so
/// the load and the register writes are straight-line code: a kernel's first instructions are
/// scalar loads of its arguments, paid by every wave (about 200 host instructions each with
/// the width a variable, the words staged in a buffer and each register write checked).
#[inline(always)]
fn load<const N: usize>(cx: &mut Cx, d: &Decoded) -> Res {
    let base = cx.wave.pair(d.regs[0] & 126);
    let addr = base.wrapping_add(offset(cx, d)) & !3;
    let dst = d.sdst as usize;
    let loaded = match cx.wave.sgpr.get_mut(dst..dst + N) {
        // SDATA names SGPRs only (a destination past s127 drops its dwords, below).
        Some(regs) if dst + N <= 128 => cx.mem.load_words(addr, regs),
        _ => {
            let mut words = [0u32; N];
            let r = cx.mem.load_words(addr, &mut words);
            if r.is_ok() {
                for (i, &w) in words.iter().enumerate() {
                    if dst + i < 128 {
                        cx.wave.sgpr[dst + i] = w;
                    }
                }
            }
            r
        }
    };
    if loaded.is_err() {
        return load_failed(cx, addr, dst, N);
    }
    Ok(Flow::Continue)
}

/// A scalar load outside device memory: memcheck reports it and the registers read 0, else
/// the fault.
#[cold]
fn load_failed(cx: &mut Cx, addr: u64, dst: usize, n: usize) -> Res {
    if cx.mem.checking() && super::check_global::scalar_outside(cx, addr, 4 * n) {
        // Reported and dropped by memcheck: the load reads 0.
        for i in dst..(dst + n).min(128) {
            cx.wave.sgpr[i] = 0;
        }
        return Ok(Flow::Continue);
    }
    Err(Fault::ScalarMemory {
        what: "load",
        addr,
        len: 4 * n as u32,
        detail: cx.mem.describe(addr),
    })
}

/// S_BUFFER_LOAD_DWORD*: like `load`, with the base and size from the V# in SBASE; dwords past
/// num_records read as 0.
fn buffer_load(cx: &mut Cx, d: &Decoded, n: usize) -> Res {
    let r = d.regs[0] as usize & 124;
    let base = cx.wave.sgpr[r] as u64 | ((cx.wave.sgpr[r + 1] & 0xffff) as u64) << 32;
    let num_records = cx.wave.sgpr[r + 2] as u64;
    let off = offset(cx, d) & !3;
    let dst = d.sdst as usize;
    for i in 0..n {
        // A negative immediate offset wraps to a huge one: out of range, reads 0.
        let o = off.wrapping_add(4 * i as u64);
        let v = if o.checked_add(4).is_none_or(|end| end > num_records) {
            0
        } else {
            let addr = base.wrapping_add(o);
            cx.mem.read_u32(addr).map_err(|_| Fault::ScalarMemory {
                what: "buffer load",
                addr,
                len: 4,
                detail: cx.mem.describe(addr),
            })?
        };
        if dst + i < 128 {
            cx.wave.sgpr[dst + i] = v;
        }
    }
    Ok(Flow::Continue)
}

/// Where a scalar load reads device memory and how many bytes, for the timing model's memory
/// system ([`super::lanes`]); `None` for the other SMEM ops.
pub(super) fn timing_address(cx: &Cx, d: &Decoded) -> Option<(u64, u32)> {
    use gcn_isa::Op;
    let (buffer, n) = match d.inst.info().op {
        Op::S_LOAD_DWORD => (false, 1),
        Op::S_LOAD_DWORDX2 => (false, 2),
        Op::S_LOAD_DWORDX4 => (false, 4),
        Op::S_LOAD_DWORDX8 => (false, 8),
        Op::S_LOAD_DWORDX16 => (false, 16),
        Op::S_BUFFER_LOAD_DWORD => (true, 1),
        Op::S_BUFFER_LOAD_DWORDX2 => (true, 2),
        Op::S_BUFFER_LOAD_DWORDX4 => (true, 4),
        Op::S_BUFFER_LOAD_DWORDX8 => (true, 8),
        Op::S_BUFFER_LOAD_DWORDX16 => (true, 16),
        _ => return None,
    };
    let base = if buffer {
        let r = d.regs[0] as usize & 124;
        cx.wave.sgpr[r] as u64 | ((cx.wave.sgpr[r + 1] & 0xffff) as u64) << 32
    } else {
        cx.wave.pair(d.regs[0] & 126)
    };
    Some((base.wrapping_add(offset(cx, d)) & !3, 4 * n))
}

/// S_MEMTIME: the shader clock of the launch's [`Clock`](super::clock::Clock).
fn memtime(cx: &mut Cx, d: &Decoded) -> Res {
    let t = cx.env.clock.memtime(cx.wave.instructions);
    cx.wave.set_pair(d.sdst & 126, t);
    Ok(Flow::Continue)
}

/// S_MEMREALTIME: the real-time clock of the launch's [`Clock`](super::clock::Clock).
fn memrealtime(cx: &mut Cx, d: &Decoded) -> Res {
    let t = cx.env.clock.memrealtime(cx.wave.instructions);
    cx.wave.set_pair(d.sdst & 126, t);
    Ok(Flow::Continue)
}

fn nothing(_: &mut Cx, _: &Decoded) -> Res {
    Ok(Flow::Continue)
}

semantics! {
    S_LOAD_DWORD => load::<1>;
    S_LOAD_DWORDX2 => load::<2>;
    S_LOAD_DWORDX4 => load::<4>;
    S_LOAD_DWORDX8 => load::<8>;
    S_LOAD_DWORDX16 => load::<16>;
    S_BUFFER_LOAD_DWORD => |cx, d| buffer_load(cx, d, 1);
    S_BUFFER_LOAD_DWORDX2 => |cx, d| buffer_load(cx, d, 2);
    S_BUFFER_LOAD_DWORDX4 => |cx, d| buffer_load(cx, d, 4);
    S_BUFFER_LOAD_DWORDX8 => |cx, d| buffer_load(cx, d, 8);
    S_BUFFER_LOAD_DWORDX16 => |cx, d| buffer_load(cx, d, 16);
    S_MEMTIME => memtime;
    S_MEMREALTIME => memrealtime;
    // The emulator has no scalar cache: invalidates and write-backs have nothing to do.
    S_DCACHE_INV => nothing;
    S_DCACHE_WB => nothing;
    S_DCACHE_INV_VOL => nothing;
    S_DCACHE_WB_VOL => nothing;
}
