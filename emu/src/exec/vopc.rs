//! VOPC compares (and their VOP3 forms): `v_cmp_<op>_<type>` writes a lane mask to VCC or an SGPR
//! pair; `v_cmpx_*` also writes it to EXEC; `v_cmp_class_*` tests IEEE classes. The name is split
//! into (op, type) once at load time and mapped to a monomorphised function.

use super::valu::*;
use super::{Cx, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::WAVE_SIZE;
use std::mem::MaybeUninit;

/// Compare predicates, numbered for the const generic.
const F: u8 = 0;
const LT: u8 = 1;
const EQ: u8 = 2;
const LE: u8 = 3;
const GT: u8 = 4;
const LG: u8 = 5; // float "less or greater"; integer NE shares the slot
const GE: u8 = 6;
const O: u8 = 7;
const U: u8 = 8;
const NGE: u8 = 9;
const NLG: u8 = 10;
const NGT: u8 = 11;
const NLE: u8 = 12;
const NEQ: u8 = 13;
const NLT: u8 = 14;
const TRU: u8 = 15;

// The negated predicates are true for unordered (NaN) operands and LG is false for them (unlike
// `a != b`); that is their point.
#[allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::nonminimal_bool,
    clippy::double_comparisons
)]
#[inline(always)]
fn float_pred<const OP: u8>(a: f64, b: f64) -> bool {
    match OP {
        F => false,
        LT => a < b,
        EQ => a == b,
        LE => a <= b,
        GT => a > b,
        LG => a < b || a > b,
        GE => a >= b,
        O => !a.is_nan() && !b.is_nan(),
        U => a.is_nan() || b.is_nan(),
        NGE => !(a >= b),
        NLG => !(a < b || a > b),
        NGT => !(a > b),
        NLE => !(a <= b),
        NEQ => a != b,
        NLT => !(a < b),
        _ => true,
    }
}

#[inline(always)]
fn int_pred<const OP: u8, T: Ord>(a: T, b: T) -> bool {
    match OP {
        F => false,
        LT => a < b,
        EQ => a == b,
        LE => a <= b,
        GT => a > b,
        LG => a != b,
        GE => a >= b,
        _ => true,
    }
}

/// Writes the compare result (zero in inactive lanes) to the destination, and to EXEC for cmpx.
#[inline]
fn finish<const X: bool>(cx: &mut Cx, d: &Decoded, bits: u64) -> Res {
    let result = bits & write_mask(cx, d);
    write_sdst_mask(cx, d, result);
    if X {
        cx.wave.set_exec(result);
    }
    Ok(Flow::Continue)
}

fn cmp_f32<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let pred = |a: u32, b: u32| {
        let f = |v: u32| f32::from_bits(v) as f64;
        float_pred::<OP>(f(a), f(b))
    };
    // (Plain, and MODE keeps f32 denormals: the sources as they are.)
    let plain = is_plain(d) && denorm32(cx) == 3;
    let bits = match plain {
        true => mask2(plain_operand(cx, d, 0), plain_operand(cx, d, 1), pred),
        false => with_rows2(cx, d, true, |a, b| lane_mask(|l| pred(a[l], b[l]))),
    };
    finish::<X>(cx, d, bits)
}

fn cmp_f64<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch_f64(cx, d, 1);
    finish::<X>(cx, d, lane_mask(|l| float_pred::<OP>(a[l], b[l])))
}

fn cmp_f16<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let (na, nb) = (d.mods.neg, d.mods.abs);
    let m = |v: u32, i: u8| {
        let mut h = v as u16;
        if nb >> i & 1 != 0 {
            h &= 0x7fff;
        }
        if na >> i & 1 != 0 {
            h ^= 0x8000;
        }
        super::f16::f16_to_f32(h) as f64
    };
    finish::<X>(
        cx,
        d,
        lane_mask(|l| float_pred::<OP>(m(a[l], 0), m(b[l], 1))),
    )
}

fn cmp_i32<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let pred = |a: u32, b: u32| int_pred::<OP, i32>(a as i32, b as i32);
    let bits = match is_plain(d) {
        true => mask2(plain_operand(cx, d, 0), plain_operand(cx, d, 1), pred),
        false => with_rows2(cx, d, false, |a, b| lane_mask(|l| pred(a[l], b[l]))),
    };
    finish::<X>(cx, d, bits)
}

fn cmp_u32<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let pred = |a: u32, b: u32| int_pred::<OP, u32>(a, b);
    let bits = match is_plain(d) {
        true => mask2(plain_operand(cx, d, 0), plain_operand(cx, d, 1), pred),
        false => with_rows2(cx, d, false, |a, b| lane_mask(|l| pred(a[l], b[l]))),
    };
    finish::<X>(cx, d, bits)
}

fn cmp_i16<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let bits = with_rows2(cx, d, false, |a, b| {
        lane_mask(|l| int_pred::<OP, i16>(a[l] as i16, b[l] as i16))
    });
    finish::<X>(cx, d, bits)
}

fn cmp_u16<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let bits = with_rows2(cx, d, false, |a, b| {
        lane_mask(|l| int_pred::<OP, u16>(a[l] as u16, b[l] as u16))
    });
    finish::<X>(cx, d, bits)
}

fn cmp_i64<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let bits = mask64(cx, d, |a, b| int_pred::<OP, i64>(a as i64, b as i64));
    finish::<X>(cx, d, bits)
}

fn cmp_u64<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let bits = mask64(cx, d, int_pred::<OP, u64>);
    finish::<X>(cx, d, bits)
}

/// The lanes where `pred` holds for 64-bit sources 0 and 1. A scalar source (an SGPR pair, a
/// constant: half of rocPRIM's 64-bit index compares) is one value in the lane loop rather
/// than two rows filled with it.
#[inline(always)]
fn mask64(cx: &Cx, d: &Decoded, pred: impl Fn(u64, u64) -> bool) -> u64 {
    let mut t = MaybeUninit::uninit();
    match (d.src[0], d.src[1]) {
        (Src::Vgpr(_), Src::Vgpr(_)) => {
            let mut tb = MaybeUninit::uninit();
            let (a, b) = (rows64(cx, d, 0, &mut t), rows64(cx, d, 1, &mut tb));
            lane_mask(|l| pred(join64(a, l), join64(b, l)))
        }
        (Src::Vgpr(_), other) => {
            let (a, c) = (rows64(cx, d, 0, &mut t), scalar64(cx, other));
            lane_mask(|l| pred(join64(a, l), c))
        }
        (other, _) => {
            let (c, b) = (scalar64(cx, other), rows64(cx, d, 1, &mut t));
            lane_mask(|l| pred(c, join64(b, l)))
        }
    }
}

/// IEEE class bit of a value: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
/// 7 +denormal, 8 +normal, 9 +inf.
fn class_bit(v: f64, quiet: bool, neg: bool) -> u32 {
    use std::num::FpCategory::*;
    match v.classify() {
        Nan => quiet as u32,
        Infinite => {
            if neg {
                2
            } else {
                9
            }
        }
        Normal => {
            if neg {
                3
            } else {
                8
            }
        }
        Subnormal => {
            if neg {
                4
            } else {
                7
            }
        }
        Zero => {
            if neg {
                5
            } else {
                6
            }
        }
    }
}

/// The sign bit `sign` of src0 after the VOP3 abs/neg input modifiers. The class is read from
/// the raw bits (no denormal flushing), but the modifiers do apply: `v_cmp_class_f32_e64 s, -v0, m`
/// classifies -v0 (LLVM folds fneg/fabs into these modifiers).
fn class_src0(d: &Decoded, raw: u64, sign: u64) -> u64 {
    let mut v = raw;
    if d.mods.abs & 1 != 0 {
        v &= !sign;
    }
    if d.mods.neg & 1 != 0 {
        v ^= sign;
    }
    v
}

/// VCC = (S1.u >> class(S0.f)) & 1.
fn cmp_class_f32<const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0).map(|v| class_src0(d, v as u64, 1 << 31) as u32);
    let b = fetch(cx, d, 1);
    let mut bits = 0u64;
    for l in 0..WAVE_SIZE {
        let f = f32::from_bits(a[l]);
        // Classify in f32 terms (a subnormal f32 is a normal f64).
        let c = if f.is_subnormal() {
            if f.is_sign_negative() {
                4
            } else {
                7
            }
        } else {
            class_bit(f as f64, a[l] & 0x0040_0000 != 0, f.is_sign_negative())
        };
        bits |= ((b[l] >> c & 1) as u64) << l;
    }
    finish::<X>(cx, d, bits)
}

fn cmp_class_f64<const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch64(cx, d, 0).map(|v| class_src0(d, v, 1 << 63));
    let b = fetch(cx, d, 1);
    let mut bits = 0u64;
    for l in 0..WAVE_SIZE {
        let f = f64::from_bits(a[l]);
        let c = class_bit(f, a[l] >> 51 & 1 != 0, f.is_sign_negative());
        bits |= ((b[l] >> c & 1) as u64) << l;
    }
    finish::<X>(cx, d, bits)
}

/// Class of an f16 source (op_sel does not apply to VOPC).
fn cmp_class_f16<const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0).map(|v| class_src0(d, v as u64 & 0xffff, 1 << 15) as u32);
    let b = fetch(cx, d, 1);
    let mut bits = 0u64;
    for l in 0..WAVE_SIZE {
        let h = a[l] as u16;
        let neg = h & 0x8000 != 0;
        let c = if h & 0x7c00 == 0 && h & 0x3ff != 0 {
            if neg {
                4
            } else {
                7
            }
        } else {
            class_bit(super::f16::f16_to_f32(h) as f64, h & 0x200 != 0, neg)
        };
        bits |= ((b[l] >> c & 1) as u64) << l;
    }
    finish::<X>(cx, d, bits)
}

semantics! {
    V_CMP_CLASS_F32 => cmp_class_f32::<false>;
    V_CMPX_CLASS_F32 => cmp_class_f32::<true>;
    V_CMP_CLASS_F64 => cmp_class_f64::<false>;
    V_CMPX_CLASS_F64 => cmp_class_f64::<true>;
    V_CMP_CLASS_F16 => cmp_class_f16::<false>;
    V_CMPX_CLASS_F16 => cmp_class_f16::<true>;
    V_CMP_F_F16 => cmp_f16::<F, false>;
    V_CMP_LT_F16 => cmp_f16::<LT, false>;
    V_CMP_EQ_F16 => cmp_f16::<EQ, false>;
    V_CMP_LE_F16 => cmp_f16::<LE, false>;
    V_CMP_GT_F16 => cmp_f16::<GT, false>;
    V_CMP_LG_F16 => cmp_f16::<LG, false>;
    V_CMP_GE_F16 => cmp_f16::<GE, false>;
    V_CMP_O_F16 => cmp_f16::<O, false>;
    V_CMP_U_F16 => cmp_f16::<U, false>;
    V_CMP_NGE_F16 => cmp_f16::<NGE, false>;
    V_CMP_NLG_F16 => cmp_f16::<NLG, false>;
    V_CMP_NGT_F16 => cmp_f16::<NGT, false>;
    V_CMP_NLE_F16 => cmp_f16::<NLE, false>;
    V_CMP_NEQ_F16 => cmp_f16::<NEQ, false>;
    V_CMP_NLT_F16 => cmp_f16::<NLT, false>;
    V_CMP_TRU_F16 => cmp_f16::<TRU, false>;
    V_CMPX_F_F16 => cmp_f16::<F, true>;
    V_CMPX_LT_F16 => cmp_f16::<LT, true>;
    V_CMPX_EQ_F16 => cmp_f16::<EQ, true>;
    V_CMPX_LE_F16 => cmp_f16::<LE, true>;
    V_CMPX_GT_F16 => cmp_f16::<GT, true>;
    V_CMPX_LG_F16 => cmp_f16::<LG, true>;
    V_CMPX_GE_F16 => cmp_f16::<GE, true>;
    V_CMPX_O_F16 => cmp_f16::<O, true>;
    V_CMPX_U_F16 => cmp_f16::<U, true>;
    V_CMPX_NGE_F16 => cmp_f16::<NGE, true>;
    V_CMPX_NLG_F16 => cmp_f16::<NLG, true>;
    V_CMPX_NGT_F16 => cmp_f16::<NGT, true>;
    V_CMPX_NLE_F16 => cmp_f16::<NLE, true>;
    V_CMPX_NEQ_F16 => cmp_f16::<NEQ, true>;
    V_CMPX_NLT_F16 => cmp_f16::<NLT, true>;
    V_CMPX_TRU_F16 => cmp_f16::<TRU, true>;
    V_CMP_F_F32 => cmp_f32::<F, false>;
    V_CMP_LT_F32 => cmp_f32::<LT, false>;
    V_CMP_EQ_F32 => cmp_f32::<EQ, false>;
    V_CMP_LE_F32 => cmp_f32::<LE, false>;
    V_CMP_GT_F32 => cmp_f32::<GT, false>;
    V_CMP_LG_F32 => cmp_f32::<LG, false>;
    V_CMP_GE_F32 => cmp_f32::<GE, false>;
    V_CMP_O_F32 => cmp_f32::<O, false>;
    V_CMP_U_F32 => cmp_f32::<U, false>;
    V_CMP_NGE_F32 => cmp_f32::<NGE, false>;
    V_CMP_NLG_F32 => cmp_f32::<NLG, false>;
    V_CMP_NGT_F32 => cmp_f32::<NGT, false>;
    V_CMP_NLE_F32 => cmp_f32::<NLE, false>;
    V_CMP_NEQ_F32 => cmp_f32::<NEQ, false>;
    V_CMP_NLT_F32 => cmp_f32::<NLT, false>;
    V_CMP_TRU_F32 => cmp_f32::<TRU, false>;
    V_CMPX_F_F32 => cmp_f32::<F, true>;
    V_CMPX_LT_F32 => cmp_f32::<LT, true>;
    V_CMPX_EQ_F32 => cmp_f32::<EQ, true>;
    V_CMPX_LE_F32 => cmp_f32::<LE, true>;
    V_CMPX_GT_F32 => cmp_f32::<GT, true>;
    V_CMPX_LG_F32 => cmp_f32::<LG, true>;
    V_CMPX_GE_F32 => cmp_f32::<GE, true>;
    V_CMPX_O_F32 => cmp_f32::<O, true>;
    V_CMPX_U_F32 => cmp_f32::<U, true>;
    V_CMPX_NGE_F32 => cmp_f32::<NGE, true>;
    V_CMPX_NLG_F32 => cmp_f32::<NLG, true>;
    V_CMPX_NGT_F32 => cmp_f32::<NGT, true>;
    V_CMPX_NLE_F32 => cmp_f32::<NLE, true>;
    V_CMPX_NEQ_F32 => cmp_f32::<NEQ, true>;
    V_CMPX_NLT_F32 => cmp_f32::<NLT, true>;
    V_CMPX_TRU_F32 => cmp_f32::<TRU, true>;
    V_CMP_F_F64 => cmp_f64::<F, false>;
    V_CMP_LT_F64 => cmp_f64::<LT, false>;
    V_CMP_EQ_F64 => cmp_f64::<EQ, false>;
    V_CMP_LE_F64 => cmp_f64::<LE, false>;
    V_CMP_GT_F64 => cmp_f64::<GT, false>;
    V_CMP_LG_F64 => cmp_f64::<LG, false>;
    V_CMP_GE_F64 => cmp_f64::<GE, false>;
    V_CMP_O_F64 => cmp_f64::<O, false>;
    V_CMP_U_F64 => cmp_f64::<U, false>;
    V_CMP_NGE_F64 => cmp_f64::<NGE, false>;
    V_CMP_NLG_F64 => cmp_f64::<NLG, false>;
    V_CMP_NGT_F64 => cmp_f64::<NGT, false>;
    V_CMP_NLE_F64 => cmp_f64::<NLE, false>;
    V_CMP_NEQ_F64 => cmp_f64::<NEQ, false>;
    V_CMP_NLT_F64 => cmp_f64::<NLT, false>;
    V_CMP_TRU_F64 => cmp_f64::<TRU, false>;
    V_CMPX_F_F64 => cmp_f64::<F, true>;
    V_CMPX_LT_F64 => cmp_f64::<LT, true>;
    V_CMPX_EQ_F64 => cmp_f64::<EQ, true>;
    V_CMPX_LE_F64 => cmp_f64::<LE, true>;
    V_CMPX_GT_F64 => cmp_f64::<GT, true>;
    V_CMPX_LG_F64 => cmp_f64::<LG, true>;
    V_CMPX_GE_F64 => cmp_f64::<GE, true>;
    V_CMPX_O_F64 => cmp_f64::<O, true>;
    V_CMPX_U_F64 => cmp_f64::<U, true>;
    V_CMPX_NGE_F64 => cmp_f64::<NGE, true>;
    V_CMPX_NLG_F64 => cmp_f64::<NLG, true>;
    V_CMPX_NGT_F64 => cmp_f64::<NGT, true>;
    V_CMPX_NLE_F64 => cmp_f64::<NLE, true>;
    V_CMPX_NEQ_F64 => cmp_f64::<NEQ, true>;
    V_CMPX_NLT_F64 => cmp_f64::<NLT, true>;
    V_CMPX_TRU_F64 => cmp_f64::<TRU, true>;
    V_CMP_F_I16 => cmp_i16::<F, false>;
    V_CMP_LT_I16 => cmp_i16::<LT, false>;
    V_CMP_EQ_I16 => cmp_i16::<EQ, false>;
    V_CMP_LE_I16 => cmp_i16::<LE, false>;
    V_CMP_GT_I16 => cmp_i16::<GT, false>;
    V_CMP_NE_I16 => cmp_i16::<LG, false>;
    V_CMP_GE_I16 => cmp_i16::<GE, false>;
    V_CMP_T_I16 => cmp_i16::<TRU, false>;
    V_CMP_F_U16 => cmp_u16::<F, false>;
    V_CMP_LT_U16 => cmp_u16::<LT, false>;
    V_CMP_EQ_U16 => cmp_u16::<EQ, false>;
    V_CMP_LE_U16 => cmp_u16::<LE, false>;
    V_CMP_GT_U16 => cmp_u16::<GT, false>;
    V_CMP_NE_U16 => cmp_u16::<LG, false>;
    V_CMP_GE_U16 => cmp_u16::<GE, false>;
    V_CMP_T_U16 => cmp_u16::<TRU, false>;
    V_CMPX_F_I16 => cmp_i16::<F, true>;
    V_CMPX_LT_I16 => cmp_i16::<LT, true>;
    V_CMPX_EQ_I16 => cmp_i16::<EQ, true>;
    V_CMPX_LE_I16 => cmp_i16::<LE, true>;
    V_CMPX_GT_I16 => cmp_i16::<GT, true>;
    V_CMPX_NE_I16 => cmp_i16::<LG, true>;
    V_CMPX_GE_I16 => cmp_i16::<GE, true>;
    V_CMPX_T_I16 => cmp_i16::<TRU, true>;
    V_CMPX_F_U16 => cmp_u16::<F, true>;
    V_CMPX_LT_U16 => cmp_u16::<LT, true>;
    V_CMPX_EQ_U16 => cmp_u16::<EQ, true>;
    V_CMPX_LE_U16 => cmp_u16::<LE, true>;
    V_CMPX_GT_U16 => cmp_u16::<GT, true>;
    V_CMPX_NE_U16 => cmp_u16::<LG, true>;
    V_CMPX_GE_U16 => cmp_u16::<GE, true>;
    V_CMPX_T_U16 => cmp_u16::<TRU, true>;
    V_CMP_F_I32 => cmp_i32::<F, false>;
    V_CMP_LT_I32 => cmp_i32::<LT, false>;
    V_CMP_EQ_I32 => cmp_i32::<EQ, false>;
    V_CMP_LE_I32 => cmp_i32::<LE, false>;
    V_CMP_GT_I32 => cmp_i32::<GT, false>;
    V_CMP_NE_I32 => cmp_i32::<LG, false>;
    V_CMP_GE_I32 => cmp_i32::<GE, false>;
    V_CMP_T_I32 => cmp_i32::<TRU, false>;
    V_CMP_F_U32 => cmp_u32::<F, false>;
    V_CMP_LT_U32 => cmp_u32::<LT, false>;
    V_CMP_EQ_U32 => cmp_u32::<EQ, false>;
    V_CMP_LE_U32 => cmp_u32::<LE, false>;
    V_CMP_GT_U32 => cmp_u32::<GT, false>;
    V_CMP_NE_U32 => cmp_u32::<LG, false>;
    V_CMP_GE_U32 => cmp_u32::<GE, false>;
    V_CMP_T_U32 => cmp_u32::<TRU, false>;
    V_CMPX_F_I32 => cmp_i32::<F, true>;
    V_CMPX_LT_I32 => cmp_i32::<LT, true>;
    V_CMPX_EQ_I32 => cmp_i32::<EQ, true>;
    V_CMPX_LE_I32 => cmp_i32::<LE, true>;
    V_CMPX_GT_I32 => cmp_i32::<GT, true>;
    V_CMPX_NE_I32 => cmp_i32::<LG, true>;
    V_CMPX_GE_I32 => cmp_i32::<GE, true>;
    V_CMPX_T_I32 => cmp_i32::<TRU, true>;
    V_CMPX_F_U32 => cmp_u32::<F, true>;
    V_CMPX_LT_U32 => cmp_u32::<LT, true>;
    V_CMPX_EQ_U32 => cmp_u32::<EQ, true>;
    V_CMPX_LE_U32 => cmp_u32::<LE, true>;
    V_CMPX_GT_U32 => cmp_u32::<GT, true>;
    V_CMPX_NE_U32 => cmp_u32::<LG, true>;
    V_CMPX_GE_U32 => cmp_u32::<GE, true>;
    V_CMPX_T_U32 => cmp_u32::<TRU, true>;
    V_CMP_F_I64 => cmp_i64::<F, false>;
    V_CMP_LT_I64 => cmp_i64::<LT, false>;
    V_CMP_EQ_I64 => cmp_i64::<EQ, false>;
    V_CMP_LE_I64 => cmp_i64::<LE, false>;
    V_CMP_GT_I64 => cmp_i64::<GT, false>;
    V_CMP_NE_I64 => cmp_i64::<LG, false>;
    V_CMP_GE_I64 => cmp_i64::<GE, false>;
    V_CMP_T_I64 => cmp_i64::<TRU, false>;
    V_CMP_F_U64 => cmp_u64::<F, false>;
    V_CMP_LT_U64 => cmp_u64::<LT, false>;
    V_CMP_EQ_U64 => cmp_u64::<EQ, false>;
    V_CMP_LE_U64 => cmp_u64::<LE, false>;
    V_CMP_GT_U64 => cmp_u64::<GT, false>;
    V_CMP_NE_U64 => cmp_u64::<LG, false>;
    V_CMP_GE_U64 => cmp_u64::<GE, false>;
    V_CMP_T_U64 => cmp_u64::<TRU, false>;
    V_CMPX_F_I64 => cmp_i64::<F, true>;
    V_CMPX_LT_I64 => cmp_i64::<LT, true>;
    V_CMPX_EQ_I64 => cmp_i64::<EQ, true>;
    V_CMPX_LE_I64 => cmp_i64::<LE, true>;
    V_CMPX_GT_I64 => cmp_i64::<GT, true>;
    V_CMPX_NE_I64 => cmp_i64::<LG, true>;
    V_CMPX_GE_I64 => cmp_i64::<GE, true>;
    V_CMPX_T_I64 => cmp_i64::<TRU, true>;
    V_CMPX_F_U64 => cmp_u64::<F, true>;
    V_CMPX_LT_U64 => cmp_u64::<LT, true>;
    V_CMPX_EQ_U64 => cmp_u64::<EQ, true>;
    V_CMPX_LE_U64 => cmp_u64::<LE, true>;
    V_CMPX_GT_U64 => cmp_u64::<GT, true>;
    V_CMPX_NE_U64 => cmp_u64::<LG, true>;
    V_CMPX_GE_U64 => cmp_u64::<GE, true>;
    V_CMPX_T_U64 => cmp_u64::<TRU, true>;
}

/// The 64-lane mask of a per-lane predicate (bit l for lane l).
fn lane_mask(pred: impl FnMut(usize) -> bool) -> u64 {
    crate::wave::lane_masks::lane_bits(pred)
}

#[cfg(test)]
mod tests {
    use crate::exec::program::Program;
    use crate::exec::{Cx, DispatchEnv};
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::{Wave, WAVE_SIZE};
    use gcn_isa::{assemble, Target};

    /// 64-bit integer compares against lane-by-lane arithmetic, with each source a VGPR pair,
    /// an SGPR pair or a constant, on either side (a scalar source takes its own lane loop).
    #[test]
    fn sixty_four_bit_compares_with_scalar_sources() {
        // (text, signed, predicate, which sources are v[0:1] / v[2:3] / s[4:5] / 5)
        type Pred = fn(i128, i128) -> bool;
        let cases: [(&str, bool, Pred, [u8; 2]); 8] = [
            (
                "v_cmp_lt_i64_e32 vcc, v[0:1], v[2:3]",
                true,
                |a, b| a < b,
                [0, 1],
            ),
            (
                "v_cmp_lt_i64_e32 vcc, s[4:5], v[2:3]",
                true,
                |a, b| a < b,
                [2, 1],
            ),
            (
                "v_cmp_gt_u64_e64 s[6:7], v[0:1], s[4:5]",
                false,
                |a, b| a > b,
                [0, 2],
            ),
            (
                "v_cmp_ge_u64_e64 s[6:7], 5, v[2:3]",
                false,
                |a, b| a >= b,
                [3, 1],
            ),
            (
                "v_cmp_le_i64_e64 s[6:7], v[0:1], 5",
                true,
                |a, b| a <= b,
                [0, 3],
            ),
            (
                "v_cmp_eq_u64_e32 vcc, s[4:5], v[2:3]",
                false,
                |a, b| a == b,
                [2, 1],
            ),
            (
                "v_cmp_ne_i64_e64 s[6:7], s[4:5], 5",
                true,
                |a, b| a != b,
                [2, 3],
            ),
            (
                "v_cmpx_gt_i64_e64 s[6:7], s[4:5], v[0:1]",
                true,
                |a, b| a > b,
                [2, 0],
            ),
        ];
        let text: Vec<&str> = cases.iter().map(|c| c.0).collect();
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let (mut mem, mut lds, env) = (Memory::default(), Lds::new(0), DispatchEnv::default());
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || {
            let v = rng.next_u64();
            // Small values, negative ones and equal ones are all common.
            match v % 4 {
                0 => v % 8,
                1 => (v % 8).wrapping_neg(),
                _ => v,
            }
        };
        for round in 0..400 {
            let (text, signed, pred, srcs) = cases[round % cases.len()];
            let d = &program.insts[round % cases.len()];
            let mut w = Wave::new(0);
            let scalar = next();
            w.set_pair(4, scalar);
            for l in 0..WAVE_SIZE {
                let (a, b) = (next(), next());
                w.vgpr[0][l] = a as u32;
                w.vgpr[1][l] = (a >> 32) as u32;
                w.vgpr[2][l] = b as u32;
                w.vgpr[3][l] = (b >> 32) as u32;
            }
            let exec = next() | 1;
            w.set_exec(exec);
            let value = |w: &Wave, which: u8, l: usize| -> i128 {
                let v = match which {
                    0 => w.vgpr[0][l] as u64 | (w.vgpr[1][l] as u64) << 32,
                    1 => w.vgpr[2][l] as u64 | (w.vgpr[3][l] as u64) << 32,
                    2 => scalar,
                    _ => 5,
                };
                if signed {
                    v as i64 as i128
                } else {
                    v as i128
                }
            };
            let want = (0..WAVE_SIZE)
                .filter(|&l| exec >> l & 1 != 0)
                .filter(|&l| pred(value(&w, srcs[0], l), value(&w, srcs[1], l)))
                .fold(0u64, |m, l| m | 1 << l);
            let mut cx = Cx {
                wave: &mut w,
                mem: &mut mem,
                lds: &mut lds,
                program: &program,
                env: &env,
            };
            crate::exec::issue::execute(&mut cx, d).unwrap();
            let got = if text.contains("vcc,") {
                w.pair(106)
            } else {
                w.pair(6)
            };
            assert_eq!(got, want, "{text}");
            if text.starts_with("v_cmpx") {
                assert_eq!(w.exec(), want, "{text}: EXEC");
            }
        }
    }
}
