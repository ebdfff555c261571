//! VOPC compares (and their VOP3 forms): `v_cmp_<op>_<type>` writes a lane mask to VCC or an SGPR
//! pair; `v_cmpx_*` also writes it to EXEC; `v_cmp_class_*` tests IEEE classes. The name is split
//! into (op, type) once at load time and mapped to a monomorphised function.

use super::valu::*;
use super::{Cx, ExecFn, Flow};
use crate::program::Decoded;
use crate::wave::WAVE_SIZE;

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
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    finish::<X>(
        cx,
        d,
        lane_mask(|l| float_pred::<OP>(a[l] as f64, b[l] as f64)),
    )
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
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    finish::<X>(
        cx,
        d,
        lane_mask(|l| int_pred::<OP, i32>(a[l] as i32, b[l] as i32)),
    )
}

fn cmp_u32<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    finish::<X>(cx, d, lane_mask(|l| int_pred::<OP, u32>(a[l], b[l])))
}

fn cmp_i16<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    finish::<X>(
        cx,
        d,
        lane_mask(|l| int_pred::<OP, i16>(a[l] as i16, b[l] as i16)),
    )
}

fn cmp_u16<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    finish::<X>(
        cx,
        d,
        lane_mask(|l| int_pred::<OP, u16>(a[l] as u16, b[l] as u16)),
    )
}

fn cmp_i64<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch64(cx, d, 0);
    let b = fetch64(cx, d, 1);
    finish::<X>(
        cx,
        d,
        lane_mask(|l| int_pred::<OP, i64>(a[l] as i64, b[l] as i64)),
    )
}

fn cmp_u64<const OP: u8, const X: bool>(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch64(cx, d, 0);
    let b = fetch64(cx, d, 1);
    finish::<X>(cx, d, lane_mask(|l| int_pred::<OP, u64>(a[l], b[l])))
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

macro_rules! by_op {
    ($f:ident, $x:expr, $op:expr) => {
        match ($op, $x) {
            (F, false) => $f::<F, false> as ExecFn,
            (LT, false) => $f::<LT, false>,
            (EQ, false) => $f::<EQ, false>,
            (LE, false) => $f::<LE, false>,
            (GT, false) => $f::<GT, false>,
            (LG, false) => $f::<LG, false>,
            (GE, false) => $f::<GE, false>,
            (O, false) => $f::<O, false>,
            (U, false) => $f::<U, false>,
            (NGE, false) => $f::<NGE, false>,
            (NLG, false) => $f::<NLG, false>,
            (NGT, false) => $f::<NGT, false>,
            (NLE, false) => $f::<NLE, false>,
            (NEQ, false) => $f::<NEQ, false>,
            (NLT, false) => $f::<NLT, false>,
            (_, false) => $f::<TRU, false>,
            (F, true) => $f::<F, true>,
            (LT, true) => $f::<LT, true>,
            (EQ, true) => $f::<EQ, true>,
            (LE, true) => $f::<LE, true>,
            (GT, true) => $f::<GT, true>,
            (LG, true) => $f::<LG, true>,
            (GE, true) => $f::<GE, true>,
            (O, true) => $f::<O, true>,
            (U, true) => $f::<U, true>,
            (NGE, true) => $f::<NGE, true>,
            (NLG, true) => $f::<NLG, true>,
            (NGT, true) => $f::<NGT, true>,
            (NLE, true) => $f::<NLE, true>,
            (NEQ, true) => $f::<NEQ, true>,
            (NLT, true) => $f::<NLT, true>,
            (_, true) => $f::<TRU, true>,
        }
    };
}

/// Semantics of `v_cmp[x]_<op>_<type>` and `v_cmp[x]_class_<type>`.
pub fn resolve(name: &str) -> Option<ExecFn> {
    let (x, rest) = if let Some(r) = name.strip_prefix("v_cmpx_") {
        (true, r)
    } else {
        (false, name.strip_prefix("v_cmp_")?)
    };
    let (op, ty) = rest.split_once('_')?;
    if op == "class" {
        return match (ty, x) {
            ("f32", false) => Some(cmp_class_f32::<false>),
            ("f32", true) => Some(cmp_class_f32::<true>),
            ("f64", false) => Some(cmp_class_f64::<false>),
            ("f64", true) => Some(cmp_class_f64::<true>),
            ("f16", false) => Some(cmp_class_f16::<false>),
            ("f16", true) => Some(cmp_class_f16::<true>),
            _ => None,
        };
    }
    let float = ty.starts_with('f');
    let code = match (op, float) {
        ("f", _) => F,
        ("lt", _) => LT,
        ("eq", _) => EQ,
        ("le", _) => LE,
        ("gt", _) => GT,
        ("lg", true) | ("ne", false) => LG,
        ("ge", _) => GE,
        ("o", true) => O,
        ("u", true) => U,
        ("nge", true) => NGE,
        ("nlg", true) => NLG,
        ("ngt", true) => NGT,
        ("nle", true) => NLE,
        ("neq", true) => NEQ,
        ("nlt", true) => NLT,
        ("tru", true) | ("t", false) => TRU,
        _ => return None,
    };
    Some(match ty {
        "f16" => by_op!(cmp_f16, x, code),
        "f32" => by_op!(cmp_f32, x, code),
        "f64" => by_op!(cmp_f64, x, code),
        "i16" => by_op!(cmp_i16, x, code),
        "u16" => by_op!(cmp_u16, x, code),
        "i32" => by_op!(cmp_i32, x, code),
        "u32" => by_op!(cmp_u32, x, code),
        "i64" => by_op!(cmp_i64, x, code),
        "u64" => by_op!(cmp_u64, x, code),
        _ => return None,
    })
}

/// The 64-lane mask of a per-lane predicate (bit l for lane l).
fn lane_mask(mut pred: impl FnMut(usize) -> bool) -> u64 {
    (0..WAVE_SIZE).fold(0, |m, l| m | (pred(l) as u64) << l)
}
