//! gfx90a's packed FP32 ops: two f32 lanes in a 64-bit register pair (`v_pk_fma_f32`,
//! `v_pk_mul_f32`, `v_pk_add_f32`, `v_pk_mov_b32`).
//!
//! As for packed 16-bit math, each source's two halves are chosen per result lane: the low
//! result takes source i's high dword if op_sel[i], else its low dword; the high result takes
//! its high dword if op_sel_hi[i], else its low dword. neg_lo[i] / neg_hi[i] negate source i's
//! value for the low / high result. f32 denormals and the clamp bit follow MODE and the
//! encoding as for the unpacked f32 ops. An inline constant is its 32-bit value in the low dword
//! with zero above, as gfx9's packed 16-bit ops take theirs (see `vop3p.rs`): LLVM prints and
//! the compiler emits such sources with op_sel_hi clear, so that both results take the low
//! dword.

use super::valu::{denorm32, fetch64, finish_f32, flush32, scalar32, write64, Res};
use super::{Cx, Flow};
use crate::exec::program::{resolve_src, Decoded, Src};
use crate::wave::WAVE_SIZE;
use gcn_isa::{Field, ImmClass};

/// Source `i` as 64-bit lanes; an inline constant as its 32-bit value with zero above.
fn source(cx: &Cx, d: &Decoded, i: usize) -> [u64; WAVE_SIZE] {
    const FIELDS: [Field; 3] = [Field::Src0, Field::Src1, Field::Src2];
    if let (Src::Const(_), Some(code)) = (d.src[i], d.inst.code(FIELDS[i])) {
        let v = resolve_src(&d.inst, code, 1, ImmClass::B32);
        return [scalar32(cx, v) as u64; WAVE_SIZE];
    }
    fetch64(cx, d, i)
}

/// Source `i`'s (low result, high result) values for every lane, with neg_lo/neg_hi applied.
fn halves(cx: &Cx, d: &Decoded, i: usize) -> ([f32; WAVE_SIZE], [f32; WAVE_SIZE]) {
    let row = source(cx, d, i);
    let sh = |hi: bool| if hi { 32 } else { 0 };
    let (lo_sh, hi_sh) = (
        sh(d.mods.op_sel >> i & 1 != 0),
        sh(d.mods.op_sel_hi >> i & 1 != 0),
    );
    let neg_lo = if d.mods.neg >> i & 1 != 0 {
        1u32 << 31
    } else {
        0
    };
    let neg_hi = if d.mods.abs >> i & 1 != 0 {
        1u32 << 31
    } else {
        0
    };
    let flush = denorm32(cx) & 1 == 0;
    let get = |bits: u32| {
        let v = f32::from_bits(bits);
        if flush {
            flush32(v)
        } else {
            v
        }
    };
    (
        std::array::from_fn(|l| get((row[l] >> lo_sh) as u32 ^ neg_lo)),
        std::array::from_fn(|l| get((row[l] >> hi_sh) as u32 ^ neg_hi)),
    )
}

/// D.f32[0] = f(S0 low, S1 low, S2 low); D.f32[1] = f(S0 high, S1 high, S2 high).
fn pk_f32(cx: &mut Cx, d: &Decoded, n: usize, f: impl Fn(f32, f32, f32) -> f32) -> Res {
    let a = halves(cx, d, 0);
    let b = halves(cx, d, 1);
    let c = if n == 3 {
        halves(cx, d, 2)
    } else {
        ([0.0; WAVE_SIZE], [0.0; WAVE_SIZE])
    };
    let lo: [f32; WAVE_SIZE] = std::array::from_fn(|l| f(a.0[l], b.0[l], c.0[l]));
    let hi: [f32; WAVE_SIZE] = std::array::from_fn(|l| f(a.1[l], b.1[l], c.1[l]));
    let (lo, hi) = (finish_f32(cx, d, &lo), finish_f32(cx, d, &hi));
    let out = std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

/// D[31:0] = op_sel[0] ? S0[63:32] : S0[31:0]; D[63:32] = op_sel[1] ? S1[63:32] : S1[31:0].
fn v_pk_mov_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = source(cx, d, 0);
    let b = source(cx, d, 1);
    let lo_sh = if d.mods.op_sel & 1 != 0 { 32 } else { 0 };
    let hi_sh = if d.mods.op_sel & 2 != 0 { 32 } else { 0 };
    let out = std::array::from_fn(|l| (a[l] >> lo_sh) & 0xffff_ffff | (b[l] >> hi_sh) << 32);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

semantics! {
    V_PK_FMA_F32 => |cx, d| pk_f32(cx, d, 3, |a, b, c| a.mul_add(b, c));
    V_PK_MUL_F32 => |cx, d| pk_f32(cx, d, 2, |a, b, _| a * b);
    V_PK_ADD_F32 => |cx, d| pk_f32(cx, d, 2, |a, b, _| a + b);
    V_PK_MOV_B32 => v_pk_mov_b32;
}
