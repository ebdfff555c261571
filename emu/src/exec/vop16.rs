//! 16-bit VALU ops (VOP1/VOP2/VOP3 f16, i16, u16): one line per op, the lane function on exact
//! f64 values (f16 results are rounded once by the driver) or on raw 16-bit integers. The
//! destination rules (zeroed or kept high half, op_sel) are in `h16.rs`.

use super::fp;
use super::h16::*;
use super::valu::{fetch, Res};
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use std::f64::consts::TAU;

macro_rules! ops16 {
    ($($name:ident: $driver:ident |$($p:ident),*| $body:expr;)*) => {
        $(
            fn $name(cx: &mut Cx, d: &Decoded) -> Res {
                $driver(cx, d, |$($p),*| $body)
            }
        )*
    };
}

/// The largest f16 below 1.0 (0x3bff): v_fract_f16 stays under it.
const FRACT_MAX_F16: f64 = 1.0 - 1.0 / 2048.0;

fn fract16(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    (x - x.floor()).min(FRACT_MAX_F16)
}

/// Float to 16-bit integer: truncate, saturate, NaN to 0 (Rust's `as` does exactly this).
fn to_u16(x: f64) -> u16 {
    x as u16
}
fn to_i16(x: f64) -> u16 {
    x as i16 as u16
}

/// flt16_to_snorm / flt16_to_unorm: clamp to [-1, 1] / [0, 1], scale, round to nearest even.
pub fn snorm16(x: f64) -> u16 {
    if x.is_nan() {
        return 0;
    }
    (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16
}
pub fn unorm16(x: f64) -> u16 {
    if x.is_nan() {
        return 0;
    }
    (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u16
}

fn sat_u16(v: i64) -> u16 {
    v.clamp(0, 0xffff) as u16
}
fn sat_i16(v: i64) -> u16 {
    v.clamp(i16::MIN as i64, i16::MAX as i64) as i16 as u16
}

/// Integer add/sub: wrap, or saturate under the VOP3 clamp bit.
fn add_u16(a: u16, b: u16, clamp: bool) -> u16 {
    let s = a as i64 + b as i64;
    if clamp {
        sat_u16(s)
    } else {
        s as u16
    }
}
fn sub_u16(a: u16, b: u16, clamp: bool) -> u16 {
    let s = a as i64 - b as i64;
    if clamp {
        sat_u16(s)
    } else {
        s as u16
    }
}
fn add_i16(a: u16, b: u16, clamp: bool) -> u16 {
    let s = a as i16 as i64 + b as i16 as i64;
    if clamp {
        sat_i16(s)
    } else {
        s as u16
    }
}
fn sub_i16(a: u16, b: u16, clamp: bool) -> u16 {
    let s = a as i16 as i64 - b as i16 as i64;
    if clamp {
        sat_i16(s)
    } else {
        s as u16
    }
}

/// a·b + c in full precision: the low 16 bits, or saturated under clamp.
fn mad_u16(a: u16, b: u16, c: u16, clamp: bool) -> u16 {
    let s = a as i64 * b as i64 + c as i64;
    if clamp {
        sat_u16(s)
    } else {
        s as u16
    }
}
fn mad_i16(a: u16, b: u16, c: u16, clamp: bool) -> u16 {
    let s = a as i16 as i64 * b as i16 as i64 + c as i16 as i64;
    if clamp {
        sat_i16(s)
    } else {
        s as u16
    }
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.min(b).max(a.max(b).min(c))
}

/// Rounds to f16 precision (for the separately rounded product of v_mad_f16).
fn r16(v: f64) -> f64 {
    half::f16::from_bits(super::f16::f64_to_f16(v)).to_f64()
}

// One IEEE operation each: done in f32 (`hf_2_f32`).
fn v_add_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_2_f32(cx, d, |a, b| a + b, |a, b| a + b)
}
fn v_sub_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_2_f32(cx, d, |a, b| a - b, |a, b| a - b)
}
fn v_subrev_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_2_f32(cx, d, |a, b| b - a, |a, b| b - a)
}
fn v_mul_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_2_f32(cx, d, |a, b| a * b, |a, b| a * b)
}

ops16! {
    // VOP2 f16 (add, sub and mul below)
    // v_mac/v_mad round the product; v_fma rounds once.
    v_mac_f16: hf_acc |a, b, c| r16(a * b) + c;
    // VOP2 16-bit integer; shifts take the low four bits of the amount (src0).
    v_add_u16: u16_2 |a, b, c| add_u16(a, b, c);
    v_sub_u16: u16_2 |a, b, c| sub_u16(a, b, c);
    v_subrev_u16: u16_2 |a, b, c| sub_u16(b, a, c);
    v_mul_lo_u16: u16_2 |a, b, _c| a.wrapping_mul(b);
    v_lshlrev_b16: u16_2 |a, b, _c| b << (a & 15);
    v_lshrrev_b16: u16_2 |a, b, _c| b >> (a & 15);
    v_ashrrev_i16: u16_2 |a, b, _c| ((b as i16) >> (a & 15)) as u16;
    v_max_u16: u16_2 |a, b, _c| a.max(b);
    v_max_i16: u16_2 |a, b, _c| (a as i16).max(b as i16) as u16;
    v_min_u16: u16_2 |a, b, _c| a.min(b);
    v_min_i16: u16_2 |a, b, _c| (a as i16).min(b as i16) as u16;
    v_add_i16: u16_2 |a, b, c| add_i16(a, b, c);
    v_sub_i16: u16_2 |a, b, c| sub_i16(a, b, c);

    // VOP1 f16
    v_cvt_u16_f16: hf_to_u16 |a| to_u16(a);
    v_cvt_i16_f16: hf_to_u16 |a| to_i16(a);
    v_cvt_norm_i16_f16: hf_to_u16 |a| snorm16(a);
    v_cvt_norm_u16_f16: hf_to_u16 |a| unorm16(a);
    v_frexp_exp_i16_f16: hf_to_u16 |a| fp::frexp_exp_f64(a) as i16 as u16;
    // The hardware's transcendental estimates are within 1 ULP of these correctly rounded values.
    v_rcp_f16: hf_1 |a| 1.0 / a;
    v_sqrt_f16: hf_1 |a| a.sqrt();
    v_rsq_f16: hf_1 |a| 1.0 / a.sqrt();
    v_log_f16: hf_1 |a| a.log2();
    v_exp_f16: hf_1 |a| a.exp2();
    v_frexp_mant_f16: hf_1 |a| fp::frexp_mant_f64(a);
    v_floor_f16: hf_1 |a| a.floor();
    v_ceil_f16: hf_1 |a| a.ceil();
    v_trunc_f16: hf_1 |a| a.trunc();
    v_rndne_f16: hf_1 |a| a.round_ties_even();
    v_fract_f16: hf_1 |a| fract16(a);
    // Sine and cosine take their argument in revolutions.
    v_sin_f16: hf_1 |a| (a * TAU).sin();
    v_cos_f16: hf_1 |a| (a * TAU).cos();

    // VOP3 f16 (op_sel rows and their pre-gfx9 "legacy" opcodes)
    v_mad_f16: hf_3 |a, b, c| r16(a * b) + c;
    v_mad_legacy_f16: hf_3 |a, b, c| r16(a * b) + c;
    v_fma_f16: hf_3 |a, b, c| fp::fma_odd(a, b, c);
    v_fma_legacy_f16: hf_3 |a, b, c| fp::fma_odd(a, b, c);
    v_div_fixup_f16: hf_3 |a, b, c| fp::div_fixup_f64(a, b, c);
    v_div_fixup_legacy_f16: hf_3 |a, b, c| fp::div_fixup_f64(a, b, c);

    // VOP3 16-bit integer
    v_mad_u16: u16_3 |a, b, c, cl| mad_u16(a, b, c, cl);
    v_mad_legacy_u16: u16_3 |a, b, c, cl| mad_u16(a, b, c, cl);
    v_mad_i16: u16_3 |a, b, c, cl| mad_i16(a, b, c, cl);
    v_mad_legacy_i16: u16_3 |a, b, c, cl| mad_i16(a, b, c, cl);
    v_min3_i16: u16_3 |a, b, c, _cl| (a as i16).min(b as i16).min(c as i16) as u16;
    v_min3_u16: u16_3 |a, b, c, _cl| a.min(b).min(c);
    v_max3_i16: u16_3 |a, b, c, _cl| (a as i16).max(b as i16).max(c as i16) as u16;
    v_max3_u16: u16_3 |a, b, c, _cl| a.max(b).max(c);
    v_med3_i16: u16_3 |a, b, c, _cl| med3(a as i16, b as i16, c as i16) as u16;
    v_med3_u16: u16_3 |a, b, c, _cl| med3(a, b, c);
    v_mad_u32_u16: u16_u16_u32 |a, b, c, cl| {
        let s = a as u64 * b as u64 + c as u64;
        if cl { s.min(u32::MAX as u64) as u32 } else { s as u32 }
    };
    v_mad_i32_i16: u16_u16_u32 |a, b, c, cl| {
        let s = a as i16 as i64 * b as i16 as i64 + c as i32 as i64;
        if cl { s.clamp(i32::MIN as i64, i32::MAX as i64) as u32 } else { s as u32 }
    };
    // Packed results {S1, S0}.
    v_cvt_pknorm_i16_f16: hf_pack |x, _h| snorm16(x);
    v_cvt_pknorm_u16_f16: hf_pack |x, _h| unorm16(x);
    v_pack_b32_f16: hf_pack |_x, h| h;
}

semantics! {
    V_ADD_F16 => v_add_f16;
    V_SUB_F16 => v_sub_f16;
    V_SUBREV_F16 => v_subrev_f16;
    V_MUL_F16 => v_mul_f16;
    V_MAC_F16 => v_mac_f16;
    V_ADD_U16 => v_add_u16;
    V_SUB_U16 => v_sub_u16;
    V_SUBREV_U16 => v_subrev_u16;
    V_MUL_LO_U16 => v_mul_lo_u16;
    V_LSHLREV_B16 => v_lshlrev_b16;
    V_LSHRREV_B16 => v_lshrrev_b16;
    V_ASHRREV_I16 => v_ashrrev_i16;
    V_MAX_U16 => v_max_u16;
    V_MAX_I16 => v_max_i16;
    V_MIN_U16 => v_min_u16;
    V_MIN_I16 => v_min_i16;
    V_ADD_I16 => v_add_i16;
    V_SUB_I16 => v_sub_i16;
    V_CVT_U16_F16 => v_cvt_u16_f16;
    V_CVT_I16_F16 => v_cvt_i16_f16;
    V_CVT_NORM_I16_F16 => v_cvt_norm_i16_f16;
    V_CVT_NORM_U16_F16 => v_cvt_norm_u16_f16;
    V_FREXP_EXP_I16_F16 => v_frexp_exp_i16_f16;
    V_RCP_F16 => v_rcp_f16;
    V_SQRT_F16 => v_sqrt_f16;
    V_RSQ_F16 => v_rsq_f16;
    V_LOG_F16 => v_log_f16;
    V_EXP_F16 => v_exp_f16;
    V_FREXP_MANT_F16 => v_frexp_mant_f16;
    V_FLOOR_F16 => v_floor_f16;
    V_CEIL_F16 => v_ceil_f16;
    V_TRUNC_F16 => v_trunc_f16;
    V_RNDNE_F16 => v_rndne_f16;
    V_FRACT_F16 => v_fract_f16;
    V_SIN_F16 => v_sin_f16;
    V_COS_F16 => v_cos_f16;
    V_MAD_F16 => v_mad_f16;
    V_MAD_LEGACY_F16 => v_mad_legacy_f16;
    V_FMA_F16 => v_fma_f16;
    V_FMA_LEGACY_F16 => v_fma_legacy_f16;
    V_DIV_FIXUP_F16 => v_div_fixup_f16;
    V_DIV_FIXUP_LEGACY_F16 => v_div_fixup_legacy_f16;
    V_MAD_U16 => v_mad_u16;
    V_MAD_LEGACY_U16 => v_mad_legacy_u16;
    V_MAD_I16 => v_mad_i16;
    V_MAD_LEGACY_I16 => v_mad_legacy_i16;
    V_MIN3_I16 => v_min3_i16;
    V_MIN3_U16 => v_min3_u16;
    V_MAX3_I16 => v_max3_i16;
    V_MAX3_U16 => v_max3_u16;
    V_MED3_I16 => v_med3_i16;
    V_MED3_U16 => v_med3_u16;
    V_MAD_U32_U16 => v_mad_u32_u16;
    V_MAD_I32_I16 => v_mad_i32_i16;
    V_CVT_PKNORM_I16_F16 => v_cvt_pknorm_i16_f16;
    V_CVT_PKNORM_U16_F16 => v_cvt_pknorm_u16_f16;
    V_PACK_B32_F16 => v_pack_b32_f16;
    V_MADMK_F16 => v_madmk_f16;
    V_MADAK_F16 => v_madak_f16;
    V_LDEXP_F16 => v_ldexp_f16;
    V_CVT_F16_U16 => v_cvt_f16_u16;
    V_CVT_F16_I16 => v_cvt_f16_i16;
    V_SAT_PK_U8_I16 => v_sat_pk_u8_i16;
}

/// The literal constant of madmk/madak, as f16 (its low half).
fn literal16(d: &Decoded) -> f64 {
    half::f16::from_bits(d.inst.literal().unwrap_or(0) as u16).to_f64()
}

/// D.f16 = S0.f16 * K.f16 + S1.f16.
fn v_madmk_f16(cx: &mut Cx, d: &Decoded) -> Res {
    let k = literal16(d);
    hf_2(cx, d, |a, b| r16(a * k) + b)
}

/// D.f16 = S0.f16 * S1.f16 + K.f16.
fn v_madak_f16(cx: &mut Cx, d: &Decoded) -> Res {
    let k = literal16(d);
    hf_2(cx, d, |a, b| r16(a * b) + k)
}

/// D.f16 = S0.f16 * 2^S1.i16, rounded once.
fn v_ldexp_f16(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_hf(cx, d, 0);
    let n = fetch_h(cx, d, 1);
    let r: RowF = std::array::from_fn(|l| fp::ldexp_f64(a[l], n[l] as i16 as i32));
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

fn int_to_f16(cx: &mut Cx, d: &Decoded, signed: bool) -> Res {
    let a = fetch_h(cx, d, 0);
    let r: RowF = std::array::from_fn(|l| {
        if signed {
            a[l] as i16 as f64
        } else {
            a[l] as f64
        }
    });
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_cvt_f16_u16(cx: &mut Cx, d: &Decoded) -> Res {
    int_to_f16(cx, d, false)
}

fn v_cvt_f16_i16(cx: &mut Cx, d: &Decoded) -> Res {
    int_to_f16(cx, d, true)
}

/// D.u16 = {sat_u8(S0.i16[31:16]), sat_u8(S0.i16[15:0])}.
fn v_sat_pk_u8_i16(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let r: Row16 = std::array::from_fn(|l| {
        let lo = (a[l] as i16).clamp(0, 255) as u16;
        let hi = ((a[l] >> 16) as i16).clamp(0, 255) as u16;
        lo | hi << 8
    });
    write_h(cx, d, &r);
    Ok(Flow::Continue)
}
