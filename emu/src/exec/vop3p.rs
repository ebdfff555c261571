//! VOP3P: packed 16-bit math (`v_pk_*`), the f16/f32 mixed-precision ops (`v_mad_mix*`,
//! `v_fma_mix*`) and the gfx906 dot products.
//!
//! Packed sources: the low lane of source i is its high half if op_sel[i], else its low half;
//! the high lane is its high half if op_sel_hi[i], else its low half. neg_lo[i] / neg_hi[i]
//! negate the low / high lane of a float source (for the mix ops neg_hi is |x| instead). An inline
//! float constant in a packed f16 source is the f16 value in bits [15:0] with zero above, as on
//! gfx9 (and gfx10) hardware; the compiler selects the low half for both lanes with op_sel_hi.

use super::fp;
use super::h16::{narrow, widen};
use super::valu::{denorm32, denorm64, fetch, write, Res};
use super::{Cx, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::{Row, WAVE_SIZE};
use gcn_isa::{operand, Field};

const SRC_FIELDS: [Field; 3] = [Field::Src0, Field::Src1, Field::Src2];

/// Source `i` as raw 32-bit lanes; inline float constants of f16 sources as f16 bits.
fn src(cx: &Cx, d: &Decoded, i: usize, f16_consts: bool) -> Row {
    if f16_consts && matches!(d.src[i], Src::Const(_)) {
        if let Some(code @ 240..=248) = d.inst.code(SRC_FIELDS[i]) {
            let bits = if code == operand::INV_2PI {
                operand::INV_2PI_F16
            } else {
                const F: [f32; 8] = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0];
                super::f16::f32_to_f16(F[(code - 240) as usize])
            };
            return [bits as u32; WAVE_SIZE];
        }
    }
    fetch(cx, d, i)
}

/// The (low lane, high lane) 16-bit halves of source `i` for every lane.
fn halves(cx: &Cx, d: &Decoded, i: usize, f16_consts: bool) -> [(u16, u16); WAVE_SIZE] {
    let row = src(cx, d, i, f16_consts);
    let lo_sh = if d.mods.op_sel >> i & 1 != 0 { 16 } else { 0 };
    let hi_sh = if d.mods.op_sel_hi >> i & 1 != 0 {
        16
    } else {
        0
    };
    std::array::from_fn(|l| ((row[l] >> lo_sh) as u16, (row[l] >> hi_sh) as u16))
}

/// Float halves with neg_lo (mods.neg) / neg_hi (mods.abs) applied, widened exactly.
fn float_halves(cx: &Cx, d: &Decoded, i: usize) -> [(f64, f64); WAVE_SIZE] {
    let hv = halves(cx, d, i, true);
    let flush = denorm64(cx) & 1 == 0;
    let neg_lo = if d.mods.neg >> i & 1 != 0 { 0x8000 } else { 0 };
    let neg_hi = if d.mods.abs >> i & 1 != 0 { 0x8000 } else { 0 };
    std::array::from_fn(|l| {
        (
            widen(hv[l].0 ^ neg_lo, flush),
            widen(hv[l].1 ^ neg_hi, flush),
        )
    })
}

fn pk_f16(cx: &mut Cx, d: &Decoded, n: usize, f: impl Fn(f64, f64, f64) -> f64) -> Res {
    let a = float_halves(cx, d, 0);
    let b = float_halves(cx, d, 1);
    let c = if n == 3 {
        float_halves(cx, d, 2)
    } else {
        [(0.0, 0.0); WAVE_SIZE]
    };
    let flush = denorm64(cx) & 2 == 0;
    let clamp = super::h16::Clamp::of(cx, d);
    let r: Row = std::array::from_fn(|l| {
        let lo = narrow(f(a[l].0, b[l].0, c[l].0), 0, clamp, flush);
        let hi = narrow(f(a[l].1, b[l].1, c[l].1), 0, clamp, flush);
        lo as u32 | (hi as u32) << 16
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// Packed integer ops: `f(a, b, c, clamp)` per 16-bit lane half.
fn pk_int(cx: &mut Cx, d: &Decoded, n: usize, f: impl Fn(u16, u16, u16, bool) -> u16) -> Res {
    let a = halves(cx, d, 0, false);
    let b = halves(cx, d, 1, false);
    let c = if n == 3 {
        halves(cx, d, 2, false)
    } else {
        [(0, 0); WAVE_SIZE]
    };
    let cl = d.mods.clamp;
    let r: Row = std::array::from_fn(|l| {
        let lo = f(a[l].0, b[l].0, c[l].0, cl);
        let hi = f(a[l].1, b[l].1, c[l].1, cl);
        lo as u32 | (hi as u32) << 16
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

fn sat_u16(v: i64, clamp: bool) -> u16 {
    if clamp {
        v.clamp(0, 0xffff) as u16
    } else {
        v as u16
    }
}

fn sat_i16(v: i64, clamp: bool) -> u16 {
    if clamp {
        v.clamp(i16::MIN as i64, i16::MAX as i64) as i16 as u16
    } else {
        v as u16
    }
}

fn s(v: u16) -> i64 {
    v as i16 as i64
}

fn u(v: u16) -> i64 {
    v as i64
}

/// Mix-op source `i`: f32 (op_sel_hi[i] = 0) or the f16 half op_sel[i] picks; neg_lo = negate,
/// neg_hi = absolute value.
fn mix_src(cx: &Cx, d: &Decoded, i: usize) -> [f64; WAVE_SIZE] {
    let row = fetch(cx, d, i);
    let as_f16 = d.mods.op_sel_hi >> i & 1 != 0;
    let hi = d.mods.op_sel >> i & 1 != 0;
    let abs = d.mods.abs >> i & 1 != 0;
    let neg = d.mods.neg >> i & 1 != 0;
    let flush16 = denorm64(cx) & 1 == 0;
    let flush32 = denorm32(cx) & 1 == 0;
    std::array::from_fn(|l| {
        let mut v = if as_f16 {
            widen((row[l] >> if hi { 16 } else { 0 }) as u16, flush16)
        } else {
            let f = f32::from_bits(row[l]);
            if flush32 && f.is_subnormal() {
                0.0f64.copysign(f as f64)
            } else {
                f as f64
            }
        };
        if abs {
            v = v.abs();
        }
        if neg {
            v = -v;
        }
        v
    })
}

/// The f32 result of a mix op: fused (one f32 rounding) or mad (the product rounded to f32).
fn mix_f32(cx: &Cx, d: &Decoded, fused: bool) -> [f32; WAVE_SIZE] {
    let a = mix_src(cx, d, 0);
    let b = mix_src(cx, d, 1);
    let c = mix_src(cx, d, 2);
    std::array::from_fn(|l| {
        let r = if fused {
            (a[l] as f32).mul_add(b[l] as f32, c[l] as f32)
        } else {
            (a[l] as f32 * b[l] as f32) + c[l] as f32
        };
        if d.mods.clamp {
            if r.is_nan() {
                0.0
            } else {
                r.clamp(0.0, 1.0)
            }
        } else {
            r
        }
    })
}

fn mix_f32_op(cx: &mut Cx, d: &Decoded, fused: bool) -> Res {
    let r = mix_f32(cx, d, fused);
    let flush = denorm32(cx) & 2 == 0;
    let out: Row = std::array::from_fn(|l| {
        if flush && r[l].is_subnormal() {
            r[l].to_bits() & 0x8000_0000
        } else {
            r[l].to_bits()
        }
    });
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// mixlo / mixhi: the f32 result converted to f16 into one half, the other half kept.
fn mix_f16_op(cx: &mut Cx, d: &Decoded, fused: bool, hi: bool) -> Res {
    let r = mix_f32(cx, d, fused);
    let flush = denorm64(cx) & 2 == 0;
    let old = cx.wave.vgpr[d.vdst as usize];
    let out: Row = std::array::from_fn(|l| {
        let h = narrow(r[l] as f64, 0, super::h16::Clamp::Off, flush) as u32;
        if hi {
            (old[l] & 0xffff) | h << 16
        } else {
            (old[l] & 0xffff_0000) | h
        }
    });
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// Integer dot products: sum over `n` fields of `bits` bits of S0 · S1, plus S2; clamp saturates.
fn dot_int(cx: &mut Cx, d: &Decoded, bits: u32, signed: bool) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let c = fetch(cx, d, 2);
    let n = 32 / bits;
    let field = |v: u32, k: u32| -> i64 {
        let x = (v >> (k * bits)) & ((1u32 << bits) - 1);
        if signed {
            ((x << (32 - bits)) as i32 >> (32 - bits)) as i64
        } else {
            x as i64
        }
    };
    let r: Row = std::array::from_fn(|l| {
        let acc = if signed {
            c[l] as i32 as i64
        } else {
            c[l] as i64
        };
        let sum = (0..n).fold(acc, |s, k| s + field(a[l], k) * field(b[l], k));
        match (d.mods.clamp, signed) {
            (true, true) => sum.clamp(i32::MIN as i64, i32::MAX as i64) as u32,
            (true, false) => sum.min(u32::MAX as i64) as u32,
            _ => sum as u32,
        }
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// D.f32 = S0.f16[0]·S1.f16[0] + S0.f16[1]·S1.f16[1] + S2.f32, rounded once to f32.
fn v_dot2_f32_f16(cx: &mut Cx, d: &Decoded) -> Res {
    let a = float_halves(cx, d, 0);
    let b = float_halves(cx, d, 1);
    let c = fetch(cx, d, 2);
    let neg_c = d.mods.neg & 4 != 0;
    let dx10 = super::valu::dx10_clamp(cx);
    let r: Row = std::array::from_fn(|l| {
        // The f16 products are exact in f64, and so is their sum unless their exponents lie more
        // than 30 apart; the last add rounds to odd so the f32 conversion rounds once.
        let p = a[l].0 * b[l].0 + a[l].1 * b[l].1;
        let mut cv = f32::from_bits(c[l]) as f64;
        if neg_c {
            cv = -cv;
        }
        let mut v = fp::fma_odd(p, 1.0, cv) as f32;
        if d.mods.clamp {
            v = super::valu::clamp01_f32(v, dx10);
        }
        v.to_bits()
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

semantics! {
    V_PK_FMA_F16 => |cx, d| pk_f16(cx, d, 3, fp::fma_odd);
    V_PK_ADD_F16 => |cx, d| pk_f16(cx, d, 2, |a, b, _| a + b);
    V_PK_MUL_F16 => |cx, d| pk_f16(cx, d, 2, |a, b, _| a * b);
    V_PK_MIN_F16 => |cx, d| pk_f16(cx, d, 2, |a, b, _| fp::min_f64(a, b));
    V_PK_MAX_F16 => |cx, d| pk_f16(cx, d, 2, |a, b, _| fp::max_f64(a, b));
    V_PK_MAD_I16 => |cx, d| pk_int(cx, d, 3, |a, b, c, k| sat_i16(s(a) * s(b) + s(c), k));
    V_PK_MAD_U16 => |cx, d| pk_int(cx, d, 3, |a, b, c, k| sat_u16(u(a) * u(b) + u(c), k));
    V_PK_MUL_LO_U16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| a.wrapping_mul(b));
    V_PK_ADD_I16 => |cx, d| pk_int(cx, d, 2, |a, b, _, k| sat_i16(s(a) + s(b), k));
    V_PK_SUB_I16 => |cx, d| pk_int(cx, d, 2, |a, b, _, k| sat_i16(s(a) - s(b), k));
    V_PK_ADD_U16 => |cx, d| pk_int(cx, d, 2, |a, b, _, k| sat_u16(u(a) + u(b), k));
    V_PK_SUB_U16 => |cx, d| pk_int(cx, d, 2, |a, b, _, k| sat_u16(u(a) - u(b), k));
    // Shifts: D = S1 shifted by S0[3:0].
    V_PK_LSHLREV_B16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| b << (a & 15));
    V_PK_LSHRREV_B16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| b >> (a & 15));
    V_PK_ASHRREV_I16 => {
        |cx, d| pk_int(cx, d, 2, |a, b, _, _| ((b as i16) >> (a & 15)) as u16)
    };
    V_PK_MAX_I16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| s(a).max(s(b)) as u16);
    V_PK_MIN_I16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| s(a).min(s(b)) as u16);
    V_PK_MAX_U16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| a.max(b));
    V_PK_MIN_U16 => |cx, d| pk_int(cx, d, 2, |a, b, _, _| a.min(b));
    V_MAD_MIX_F32 => |cx, d| mix_f32_op(cx, d, false);
    V_FMA_MIX_F32 => |cx, d| mix_f32_op(cx, d, true);
    V_MAD_MIXLO_F16 => |cx, d| mix_f16_op(cx, d, false, false);
    V_FMA_MIXLO_F16 => |cx, d| mix_f16_op(cx, d, true, false);
    V_MAD_MIXHI_F16 => |cx, d| mix_f16_op(cx, d, false, true);
    V_FMA_MIXHI_F16 => |cx, d| mix_f16_op(cx, d, true, true);
    V_DOT2_F32_F16 => v_dot2_f32_f16;
    V_DOT2_I32_I16 => |cx, d| dot_int(cx, d, 16, true);
    V_DOT2_U32_U16 => |cx, d| dot_int(cx, d, 16, false);
    V_DOT4_I32_I8 => |cx, d| dot_int(cx, d, 8, true);
    V_DOT4_U32_U8 => |cx, d| dot_int(cx, d, 8, false);
    V_DOT8_I32_I4 => |cx, d| dot_int(cx, d, 4, true);
    V_DOT8_U32_U4 => |cx, d| dot_int(cx, d, 4, false);
}
