//! DS atomics on one address, with and without return: the integer ops shared with the buffer
//! and flat atomics ([`atomic_ops`]), plus the DS-only float compare-store, f64 min/max and wrap;
//! the two-address ds_wrxchg2(st64)_rtn and ds_condxchg32_rtn_b64. Lanes run in order, so the
//! result of lanes hitting one address is deterministic (lane 0 first).

use super::access::{self, Addr};
use super::atomic_ops;
use super::check_lds;
use super::ds::{
    data0, data1, gather, gds_check, lane_addresses, offset0, offset1, offset16, vaddr,
};
use super::fp;
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::check::{Access, Check};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::{Atomic, MemKind};

/// What a DS atomic does to MEM[A] with DATA0 (`d0`) and DATA1 (`d1`), in the ISA's operand
/// order. Widths 32 or 64 (the float ops are f32 or f64 by width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// One of the atomics every memory path has ([`atomic_ops::shared`]).
    Int(Atomic),
    /// ds_cmpst_f32/f64: MEM = (MEM == DATA0) ? DATA1 : MEM, compared as floats (+0 == -0,
    /// NaN equals nothing).
    CmpStF,
    /// ds_min_f32/f64, ds_max_f32/f64: IEEE min/max, a NaN operand loses to a number.
    MinF,
    MaxF,
    /// ds_add_f32: round to nearest even, denormals kept.
    AddF,
    /// ds_wrap_rtn_b32: MEM = (MEM >= DATA0) ? MEM - DATA0 : MEM + DATA1.
    Wrap,
}

impl Op {
    /// The new memory value.
    pub fn apply(self, old: u64, d0: u64, d1: u64, bits: u32) -> u64 {
        let f = |a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64| {
            if bits == 32 {
                f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64
            } else {
                f64op(f64::from_bits(a), f64::from_bits(b)).to_bits()
            }
        };
        match self {
            Op::Int(op) => {
                // DS compare-store puts the comparand first; apply wants (new, comparand).
                let (data, data2) = match op {
                    Atomic::CmpSwap => (d1, d0),
                    _ => (d0, d1),
                };
                atomic_ops::apply(op, old, data, data2, bits).unwrap_or(old)
            }
            Op::CmpStF => {
                let equal = if bits == 32 {
                    f32::from_bits(old as u32) == f32::from_bits(d0 as u32)
                } else {
                    f64::from_bits(old) == f64::from_bits(d0)
                };
                if equal {
                    d1
                } else {
                    old
                }
            }
            Op::MinF => f(old, d0, fp::min_f32, fp::min_f64),
            Op::MaxF => f(old, d0, fp::max_f32, fp::max_f64),
            Op::AddF => f(old, d0, |a, b| a + b, |a, b| a + b),
            Op::Wrap => {
                let (m, d, d2) = (old as u32, d0 as u32, d1 as u32);
                (if m >= d { m - d } else { m.wrapping_add(d2) }) as u64
            }
        }
    }
}

/// Joins a lane's one or two data dwords.
fn join(v: [u32; 4], words: usize) -> u64 {
    v[0] as u64 | if words == 2 { (v[1] as u64) << 32 } else { 0 }
}

/// One lane's read-modify-write of `bytes` at LDS address `a`; returns the old value.
pub fn rmw(
    cx: &mut Cx,
    l: usize,
    a: u32,
    op: Op,
    d0: u64,
    d1: u64,
    bytes: usize,
) -> Result<u64, Fault> {
    access::rmw(cx, l, Addr::Lds(a), bytes, |old| {
        op.apply(old, d0, d1, 8 * bytes as u32)
    })
}

/// DS atomics at ADDR + offset: MEM = op(MEM, DATA0[, DATA1]); `rtn` returns the old value.
fn atomic(cx: &mut Cx, d: &Decoded, op: Op, bytes: usize, rtn: bool) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let words = bytes / 4;
    let mut out = [[0u32; WAVE_SIZE]; 2];
    if !in_range_at_once(cx, d, (op, rtn), bytes, exec, &mut out) {
        for l in 0..WAVE_SIZE {
            if exec >> l & 1 == 0 {
                continue;
            }
            let a = cx.wave.vgpr[vaddr(d)][l].wrapping_add(offset16(d));
            let v0 = join(gather(cx, data0(d), l, words), words);
            let v1 = join(gather(cx, data1(d), l, words), words);
            let old = rmw(cx, l, a, op, v0, v1, bytes)?;
            out[0][l] = old as u32;
            out[1][l] = (old >> 32) as u32;
        }
    }
    if rtn {
        for (i, row) in out.iter().enumerate().take(words) {
            cx.wave.write_row(d.vdst as usize + i, row, exec);
        }
    }
    Ok(Flow::Continue)
}

/// The lanes of a DS atomic with every address in range, in lane order straight over the LDS
/// bytes (no per-lane lookup), old values into `out` when `rtn`; false (nothing done) when a
/// lane is out of range, for the per-lane path to name it. With sanitizers on, the same once
/// they have recorded the lanes; an atomic memcheck would report as misaligned goes lane by
/// lane.
fn in_range_at_once(
    cx: &mut Cx,
    d: &Decoded,
    (op, rtn): (Op, bool),
    bytes: usize,
    exec: u64,
    out: &mut [[u32; WAVE_SIZE]; 2],
) -> bool {
    let addr = lane_addresses(cx, vaddr(d), offset16(d));
    if !cx.lds.bytes_in_range(&addr, exec, bytes) {
        return false;
    }
    if cx.mem.checking() {
        // `bytes` is 4 or 8: a mask, not a division per lane.
        let odd = bytes as u32 - 1;
        // (An OR of the active lanes' low bits, which vectorises.)
        let misaligned = (0..WAVE_SIZE).fold(0, |m, l| {
            m | addr[l] & odd & (exec >> l & 1).wrapping_neg() as u32
        }) != 0;
        if misaligned && cx.mem.checks().has(Check::Memcheck) {
            return false;
        }
        check_lds::access_lanes(cx, exec, &[(&addr, bytes)], Access::Atomic);
    }
    // Each lane's DATA0 (two dwords for the 64-bit ones), whole rows at a time; DATA1 only for
    // the operations that take it (compare-and-store, mskor), below.
    let join_rows = |reg: usize| -> [u64; WAVE_SIZE] {
        let (lo, hi) = (&cx.wave.vgpr[reg % 256], &cx.wave.vgpr[(reg + 1) % 256]);
        if bytes == 8 {
            std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32)
        } else {
            std::array::from_fn(|l| lo[l] as u64)
        }
    };
    let d0 = join_rows(data0(d));
    let bits = 8 * bytes as u32;
    let mut olds = [0u64; WAVE_SIZE];
    // The common integer operations with the operation chosen once, not per lane (the store
    // keeps the low `bytes` bytes, so no result needs masking); the rest through `Op::apply`.
    macro_rules! lanes {
        (|$old:ident, $v:ident| $f:expr) => {
            cx.lds.rmw_lanes(
                &addr,
                exec,
                bytes,
                |l, $old: u64| {
                    let $v = d0[l];
                    $f
                },
                rtn.then_some(&mut olds),
            )
        };
    }
    match op {
        Op::Int(Atomic::Add) => lanes!(|old, v| old.wrapping_add(v)),
        Op::Int(Atomic::Sub) => lanes!(|old, v| old.wrapping_sub(v)),
        Op::Int(Atomic::And) => lanes!(|old, v| old & v),
        Op::Int(Atomic::Or) => lanes!(|old, v| old | v),
        Op::Int(Atomic::Xor) => lanes!(|old, v| old ^ v),
        Op::Int(Atomic::Umin) => lanes!(|old, v| old.min(v)),
        Op::Int(Atomic::Umax) => lanes!(|old, v| old.max(v)),
        Op::Int(Atomic::Swap) => lanes!(|_old, v| v),
        _ => {
            let d1 = join_rows(data1(d));
            cx.lds.rmw_lanes(
                &addr,
                exec,
                bytes,
                |l, old| op.apply(old, d0[l], d1[l], bits),
                rtn.then_some(&mut olds),
            )
        }
    }
    // (Without a return nothing reads the old values.)
    if rtn {
        for (l, old) in olds.iter().enumerate() {
            out[0][l] = *old as u32;
            out[1][l] = (*old >> 32) as u32;
        }
    }
    true
}

/// DS_WRXCHG2[ST64]_RTN_B32/B64: exchanges DATA0 at ADDR + offset0 * stride and DATA1 at
/// ADDR + offset1 * stride; VDST gets both old values (first, then second).
fn wrxchg2(cx: &mut Cx, d: &Decoded, elem: usize, stride: u32) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let words = elem / 4;
    let mut out = [[0u32; WAVE_SIZE]; 4];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let base = cx.wave.vgpr[vaddr(d)][l];
        for (k, (off, reg)) in [(offset0(d), data0(d)), (offset1(d), data1(d))]
            .into_iter()
            .enumerate()
        {
            let a = base.wrapping_add(off * stride);
            let v = join(gather(cx, reg, l, words), words);
            let old = rmw(cx, l, a, Op::Int(Atomic::Swap), v, 0, elem)?;
            out[k * words][l] = old as u32;
            if words == 2 {
                out[k * words + 1][l] = (old >> 32) as u32;
            }
        }
    }
    for (i, row) in out.iter().enumerate().take(2 * words) {
        cx.wave.write_row(d.vdst as usize + i, row, exec);
    }
    Ok(Flow::Continue)
}

/// DS_CONDXCHG32_RTN_B64: two 32-bit conditional exchanges at ADDR + offset and +4. Dword i of
/// DATA0 is written (with bit 31 cleared) only if its bit 31 is set; VDST gets both old dwords.
fn condxchg32_rtn_b64(cx: &mut Cx, d: &Decoded) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let mut out = [[0u32; WAVE_SIZE]; 2];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = cx.wave.vgpr[vaddr(d)][l].wrapping_add(offset16(d));
        let v = gather(cx, data0(d), l, 2);
        for i in 0..2 {
            let at = Addr::Lds(a.wrapping_add(4 * i as u32));
            let mut buf = [0u8; 4];
            access::load(cx, l, at, &mut buf)?;
            out[i][l] = u32::from_le_bytes(buf);
            if v[i] >> 31 != 0 {
                access::store(cx, l, at, &(v[i] & 0x7fff_ffff).to_le_bytes())?;
            }
        }
    }
    for (i, row) in out.iter().enumerate() {
        cx.wave.write_row(d.vdst as usize + i, row, exec);
    }
    Ok(Flow::Continue)
}

/// The DS operation of a table [`Atomic`].
pub fn ds_op(a: Atomic) -> Option<Op> {
    Some(match a {
        Atomic::FCmpSwap => Op::CmpStF,
        Atomic::FMin => Op::MinF,
        Atomic::FMax => Op::MaxF,
        Atomic::FAdd => Op::AddF,
        Atomic::Wrap => Op::Wrap,
        Atomic::CondXchg => return None,
        other => Op::Int(atomic_ops::shared(other)?),
    })
}

/// `ds_<op>[_rtn]_<type>`: the operation, width and return from the table.
fn atomic_op(cx: &mut Cx, d: &Decoded) -> Res {
    let facts = &d.inst.info().facts;
    let op = facts.atomic.and_then(ds_op).ok_or(Fault::Unimplemented)?;
    let rtn = facts.mem == Some(MemKind::AtomicReturn);
    atomic(cx, d, op, facts.bytes as usize, rtn)
}

semantics! {
    DS_WRXCHG2_RTN_B32 => |cx, d| wrxchg2(cx, d, 4, 4);
    DS_WRXCHG2ST64_RTN_B32 => |cx, d| wrxchg2(cx, d, 4, 256);
    DS_WRXCHG2_RTN_B64 => |cx, d| wrxchg2(cx, d, 8, 8);
    DS_WRXCHG2ST64_RTN_B64 => |cx, d| wrxchg2(cx, d, 8, 512);
    DS_CONDXCHG32_RTN_B64 => condxchg32_rtn_b64;
    DS_ADD_U32 => atomic_op;
    DS_SUB_U32 => atomic_op;
    DS_RSUB_U32 => atomic_op;
    DS_INC_U32 => atomic_op;
    DS_DEC_U32 => atomic_op;
    DS_MIN_I32 => atomic_op;
    DS_MAX_I32 => atomic_op;
    DS_MIN_U32 => atomic_op;
    DS_MAX_U32 => atomic_op;
    DS_AND_B32 => atomic_op;
    DS_OR_B32 => atomic_op;
    DS_XOR_B32 => atomic_op;
    DS_MSKOR_B32 => atomic_op;
    DS_CMPST_B32 => atomic_op;
    DS_CMPST_F32 => atomic_op;
    DS_MIN_F32 => atomic_op;
    DS_MAX_F32 => atomic_op;
    DS_ADD_F32 => atomic_op;
    DS_ADD_RTN_U32 => atomic_op;
    DS_SUB_RTN_U32 => atomic_op;
    DS_RSUB_RTN_U32 => atomic_op;
    DS_INC_RTN_U32 => atomic_op;
    DS_DEC_RTN_U32 => atomic_op;
    DS_MIN_RTN_I32 => atomic_op;
    DS_MAX_RTN_I32 => atomic_op;
    DS_MIN_RTN_U32 => atomic_op;
    DS_MAX_RTN_U32 => atomic_op;
    DS_AND_RTN_B32 => atomic_op;
    DS_OR_RTN_B32 => atomic_op;
    DS_XOR_RTN_B32 => atomic_op;
    DS_MSKOR_RTN_B32 => atomic_op;
    DS_WRXCHG_RTN_B32 => atomic_op;
    DS_CMPST_RTN_B32 => atomic_op;
    DS_CMPST_RTN_F32 => atomic_op;
    DS_MIN_RTN_F32 => atomic_op;
    DS_MAX_RTN_F32 => atomic_op;
    DS_WRAP_RTN_B32 => atomic_op;
    DS_ADD_RTN_F32 => atomic_op;
    DS_ADD_U64 => atomic_op;
    DS_SUB_U64 => atomic_op;
    DS_RSUB_U64 => atomic_op;
    DS_INC_U64 => atomic_op;
    DS_DEC_U64 => atomic_op;
    DS_MIN_I64 => atomic_op;
    DS_MAX_I64 => atomic_op;
    DS_MIN_U64 => atomic_op;
    DS_MAX_U64 => atomic_op;
    DS_AND_B64 => atomic_op;
    DS_OR_B64 => atomic_op;
    DS_XOR_B64 => atomic_op;
    DS_MSKOR_B64 => atomic_op;
    DS_CMPST_B64 => atomic_op;
    DS_CMPST_F64 => atomic_op;
    DS_MIN_F64 => atomic_op;
    DS_MAX_F64 => atomic_op;
    DS_ADD_RTN_U64 => atomic_op;
    DS_SUB_RTN_U64 => atomic_op;
    DS_RSUB_RTN_U64 => atomic_op;
    DS_INC_RTN_U64 => atomic_op;
    DS_DEC_RTN_U64 => atomic_op;
    DS_MIN_RTN_I64 => atomic_op;
    DS_MAX_RTN_I64 => atomic_op;
    DS_MIN_RTN_U64 => atomic_op;
    DS_MAX_RTN_U64 => atomic_op;
    DS_AND_RTN_B64 => atomic_op;
    DS_OR_RTN_B64 => atomic_op;
    DS_XOR_RTN_B64 => atomic_op;
    DS_MSKOR_RTN_B64 => atomic_op;
    DS_WRXCHG_RTN_B64 => atomic_op;
    DS_CMPST_RTN_B64 => atomic_op;
    DS_CMPST_RTN_F64 => atomic_op;
    DS_MIN_RTN_F64 => atomic_op;
    DS_MAX_RTN_F64 => atomic_op;
    DS_ADD_F64 => atomic_op;
    DS_ADD_RTN_F64 => atomic_op;
    // gfx940's packed adds: each f16 or bf16 half (`atomic_ops`).
    DS_PK_ADD_F16 => atomic_op;
    DS_PK_ADD_BF16 => atomic_op;
    DS_PK_ADD_RTN_F16 => atomic_op;
    DS_PK_ADD_RTN_BF16 => atomic_op;
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

    /// DS atomics give the same registers and LDS with every lane in range (all lanes at once)
    /// as on the per-lane path (which a sanitizer forces), for lanes crowding a few addresses
    /// (so several lanes update one value, in lane order) and random exec masks.
    #[test]
    fn in_range_atomics_agree_with_the_per_lane_path() {
        let text = [
            "ds_add_u32 v0, v2",
            "ds_add_rtn_u32 v4, v0, v2 offset:8",
            "ds_sub_rtn_u32 v4, v0, v2",
            "ds_inc_rtn_u32 v4, v0, v2",
            "ds_min_rtn_i32 v4, v0, v2",
            "ds_max_u32 v0, v2",
            "ds_mskor_rtn_b32 v4, v0, v2, v3",
            "ds_cmpst_rtn_b32 v4, v0, v2, v3",
            "ds_wrxchg_rtn_b32 v4, v0, v2",
            "ds_add_rtn_f32 v4, v0, v2",
            "ds_max_rtn_f32 v4, v0, v2",
            "ds_wrap_rtn_b32 v4, v0, v2, v3",
            "ds_add_rtn_u64 v[4:5], v0, v[2:3]",
            "ds_cmpst_rtn_b64 v[4:5], v0, v[2:3], v[6:7]",
            "ds_min_f64 v0, v[2:3]",
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
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        let env = DispatchEnv::default();
        for round in 0..3000 {
            let name = text[round % text.len()];
            let d = &program.insts[round % text.len()];
            let mut wave = Wave::new(0);
            let places = 1 + next() % 8;
            for l in 0..WAVE_SIZE {
                // Aligned for the widest, in range with the offset of 8.
                wave.vgpr[0][l] = (8 * (next() % places) * (1 + next() % 3)) as u32;
                for r in 2..8 {
                    // Small values (compares match, wraps wrap) or float bits.
                    wave.vgpr[r][l] = match next() % 3 {
                        0 => (next() % 4) as u32,
                        1 => (next() as f32 / 1e9).to_bits(),
                        _ => next() as u32,
                    };
                }
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            let mut wave_slow = wave.clone();
            for (w, mem, lds) in [
                (&mut wave, &mut fast, &mut lds_fast),
                (&mut wave_slow, &mut slow, &mut lds_slow),
            ] {
                let mut cx = Cx {
                    wave: w,
                    mem,
                    lds,
                    program: &program,
                    env: &env,
                };
                crate::exec::issue::execute(&mut cx, d).unwrap();
            }
            for r in 4..6 {
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
