//! Directed rounding: f32 arithmetic under MODE.FP_ROUND[1:0] = 1 (toward +inf), 2 (toward
//! -inf) or 3 (toward zero). The usual semantics compute in the host's round-to-nearest-even;
//! [`under_mode`] gives [`super::issue::execute`] a replacement for the ops whose result depends on
//! the rounding direction, so the normal path stays as it is.
//!
//! Each replacement computes the exact result as an unevaluated f64 sum `s + e` (products of two
//! f32 are exact in f64; TwoSum gives the exact error of a sum; scaling by a power of two is
//! exact), then rounds it to f32 once in the requested direction ([`round_f32`]).
//!
//! Covered (f32 results): v_add/sub/subrev/mul/mul_legacy_f32, v_fma/mad/mac/fmac_f32,
//! v_div_fmas_f32, v_ldexp_f32, v_cvt_f32_i32/u32/f64. Ops whose results are exact in every
//! direction (compares, min/max/med3, floor/ceil/trunc/rndne/fract, frexp, widening conversions,
//! moves...) run unchanged. Anything else with a float result under a directed mode (the
//! transcendental approximations, v_madmk/madak, v_div_scale, dot and mix ops, and every f16/f64
//! op under FP_ROUND[3:2]) is a clear "not supported" naming the op, never a silently
//! nearest-even result. The output modifier (×2, ×4, ×0.5) is applied after rounding as before;
//! it is exact unless it overflows or underflows.

use super::fp;
use super::valu::{
    f32_2, f32_3, f32_acc, fetch, fetch_f32, fetch_f64, finish_f32, u32_1, write, Res,
};
use super::{Cx, Fault, Flow, SemFn};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::{Op, OpInfo, Rounding};

/// A directed rounding mode (FP_ROUND encoding 1, 2, 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    Up,
    Down,
    Zero,
}

impl Round {
    /// The direction of a 2-bit FP_ROUND field, `None` for round-to-nearest-even (0).
    pub fn from_field(v: u32) -> Option<Round> {
        match v & 3 {
            1 => Some(Round::Up),
            2 => Some(Round::Down),
            3 => Some(Round::Zero),
            _ => None,
        }
    }
}

fn next_up(x: f32) -> f32 {
    let b = x.to_bits();
    if x.is_nan() || x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if b >> 31 == 0 {
        f32::from_bits(b + 1)
    } else {
        f32::from_bits(b - 1)
    }
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// `s + e` exactly: `s` = the nearest f64, `e` the rounding error (Knuth's TwoSum).
fn two_sum(x: f64, y: f64) -> (f64, f64) {
    let s = x + y;
    let bb = s - x;
    (s, (x - (s - bb)) + (y - bb))
}

/// The exact value `s + e` (`s` finite, the f64 nearest to it; `|e|` at most half an f64 ulp of
/// `s`) rounded to f32 toward `r`. Overflow gives ±inf or ±f32::MAX as the direction says.
pub fn round_f32(s: f64, e: f64, r: Round) -> f32 {
    if !s.is_finite() {
        return s as f32;
    }
    let mut c = s as f32;
    if c.is_infinite() {
        // Past the largest finite value: compare with it instead.
        c = f32::MAX.copysign(c);
    }
    // The sign of (exact - c): s - c is exact (both are close, c has fewer bits), and a nonzero
    // s - c is at least an f64 ulp of s, larger than |e|, so adding e keeps its sign.
    let d = (s - c as f64) + e;
    match r {
        Round::Up if d > 0.0 => next_up(c),
        Round::Down if d < 0.0 => next_down(c),
        Round::Zero if (c > 0.0 && d < 0.0) || (c < 0.0 && d > 0.0) => {
            if c > 0.0 {
                next_down(c)
            } else {
                next_up(c)
            }
        }
        _ => c,
    }
}

/// The sign of an exactly zero sum `a + b` (IEEE 754 §6.3): equal-signed zeros keep their sign;
/// otherwise +0, or -0 when rounding toward -inf.
fn zero_sum(a: f32, b: f32, r: Round) -> f32 {
    if a == 0.0 && b == 0.0 && a.is_sign_negative() == b.is_sign_negative() {
        return a;
    }
    if r == Round::Down {
        -0.0
    } else {
        0.0
    }
}

pub fn add(a: f32, b: f32, r: Round) -> f32 {
    if !a.is_finite() || !b.is_finite() {
        return a + b;
    }
    let (s, e) = two_sum(a as f64, b as f64);
    if s == 0.0 && e == 0.0 {
        return zero_sum(a, b, r);
    }
    round_f32(s, e, r)
}

pub fn mul(a: f32, b: f32, r: Round) -> f32 {
    let p = a as f64 * b as f64; // exact: 24 + 24 bits
    if !p.is_finite() || p == 0.0 {
        return a * b;
    }
    round_f32(p, 0.0, r)
}

/// The exact `a * b + c` as (s, e), or `None` if an operand is not finite.
fn fma_exact(a: f32, b: f32, c: f32) -> Option<(f64, f64)> {
    if !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return None;
    }
    Some(two_sum(a as f64 * b as f64, c as f64))
}

pub fn fma(a: f32, b: f32, c: f32, r: Round) -> f32 {
    match fma_exact(a, b, c) {
        None => a.mul_add(b, c),
        Some((0.0, 0.0)) => zero_sum(a * b, c, r),
        Some((s, e)) => round_f32(s, e, r),
    }
}

/// Unfused: the product rounded, then the sum rounded, both toward `r`.
pub fn mad(a: f32, b: f32, c: f32, r: Round) -> f32 {
    add(mul(a, b, r), c, r)
}

/// v_mul_legacy_f32: 0 times anything (inf, NaN) is +0.
pub fn mul_legacy(a: f32, b: f32, r: Round) -> f32 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        mul(a, b, r)
    }
}

/// v_div_fmas_f32: fma(a, b, c) scaled by 2^64 (c's exponent > 127) or 2^-64 where VCC is set,
/// rounded once.
pub fn div_fmas(a: f32, b: f32, c: f32, vcc: bool, r: Round) -> f32 {
    if !vcc {
        return fma(a, b, c, r);
    }
    // As v_div_fmas_f32 in `fp`: up if c's biased exponent is above 127 (|c| >= 2).
    let scale = if (c.to_bits() >> 23) & 0xff > 127 {
        2f64.powi(64)
    } else {
        2f64.powi(-64)
    };
    match fma_exact(a, b, c) {
        None => fp::div_fmas_f32(a, b, c, true),
        Some((0.0, 0.0)) => zero_sum(a * b, c, r),
        Some((s, e)) => round_f32(s * scale, e * scale, r),
    }
}

/// x * 2^n: exact in f64 for the clamped n, then rounded.
pub fn ldexp(x: f32, n: i32, r: Round) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    round_f32(fp::ldexp_f64(x as f64, n.clamp(-400, 400)), 0.0, r)
}

/// An f64 (or an integer, exact in f64) to f32.
pub fn from_f64(x: f64, r: Round) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x as f32;
    }
    round_f32(x, 0.0, r)
}

// ---- the replacement semantics: each reads the direction from MODE.FP_ROUND[1:0] ----

fn dir(cx: &Cx) -> Round {
    // Only called when the field is non-zero; toward zero is never reached otherwise.
    Round::from_field(cx.wave.mode).unwrap_or(Round::Zero)
}

fn v_add_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_2(cx, d, move |a, b| add(a, b, r))
}
fn v_sub_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_2(cx, d, move |a, b| add(a, -b, r))
}
fn v_subrev_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_2(cx, d, move |a, b| add(b, -a, r))
}
fn v_mul_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_2(cx, d, move |a, b| mul(a, b, r))
}
fn v_mul_legacy_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_2(cx, d, move |a, b| mul_legacy(a, b, r))
}
fn v_fma_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_3(cx, d, move |a, b, c| fma(a, b, c, r))
}
fn v_mad_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_3(cx, d, move |a, b, c| mad(a, b, c, r))
}
fn v_mac_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_acc(cx, d, move |a, b, c| mad(a, b, c, r))
}
fn v_fmac_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    f32_acc(cx, d, move |a, b, c| fma(a, b, c, r))
}
fn v_cvt_f32_i32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    u32_1(cx, d, move |a| from_f64(a as i32 as f64, r).to_bits())
}
fn v_cvt_f32_u32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    u32_1(cx, d, move |a| from_f64(a as f64, r).to_bits())
}

fn v_cvt_f32_f64(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    let a = fetch_f64(cx, d, 0);
    let v: [f32; WAVE_SIZE] = std::array::from_fn(|l| from_f64(a[l], r));
    let out = finish_f32(cx, d, &v);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_ldexp_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    let a = fetch_f32(cx, d, 0);
    let n = fetch(cx, d, 1);
    let v: [f32; WAVE_SIZE] = std::array::from_fn(|l| ldexp(a[l], n[l] as i32, r));
    let out = finish_f32(cx, d, &v);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_div_fmas_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let r = dir(cx);
    let vcc = cx.wave.vcc();
    let (a, b, c) = (
        fetch_f32(cx, d, 0),
        fetch_f32(cx, d, 1),
        fetch_f32(cx, d, 2),
    );
    let v: [f32; WAVE_SIZE] =
        std::array::from_fn(|l| div_fmas(a[l], b[l], c[l], vcc >> l & 1 != 0, r));
    let out = finish_f32(cx, d, &v);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// Directed-rounding replacements of f32 ops.
fn directed_f32(op: Op) -> Option<SemFn> {
    Some(match op {
        Op::V_ADD_F32 => v_add_f32,
        Op::V_SUB_F32 => v_sub_f32,
        Op::V_SUBREV_F32 => v_subrev_f32,
        Op::V_MUL_F32 => v_mul_f32,
        Op::V_MUL_LEGACY_F32 => v_mul_legacy_f32,
        Op::V_FMA_F32 => v_fma_f32,
        Op::V_MAD_F32 => v_mad_f32,
        Op::V_MAC_F32 => v_mac_f32,
        Op::V_FMAC_F32 => v_fmac_f32,
        Op::V_DIV_FMAS_F32 => v_div_fmas_f32,
        Op::V_LDEXP_F32 => v_ldexp_f32,
        Op::V_CVT_F32_I32 => v_cvt_f32_i32,
        Op::V_CVT_F32_U32 => v_cvt_f32_u32,
        Op::V_CVT_F32_F64 => v_cvt_f32_f64,
        _ => return None,
    })
}

/// How VALU op `op` runs when MODE.FP_ROUND (`mode` bits [3:0]) is not all nearest-even:
/// `Ok(None)` as usual (its result does not depend on the direction), `Ok(Some(f))` through the
/// directed replacement `f`, or an error naming the op and the mode if that is not modelled.
pub fn under_mode(op: &OpInfo, mode: u32) -> Result<Option<SemFn>, Fault> {
    let (field, wide) = match op.facts.round {
        Rounding::F32 => (mode & 3, false),
        Rounding::Wide => ((mode >> 2) & 3, true),
        Rounding::Integer | Rounding::Exact => return Ok(None),
    };
    if field == 0 {
        return Ok(None);
    }
    if !wide {
        if let Some(f) = directed_f32(op.op) {
            return Ok(Some(f));
        }
    }
    Err(Fault::Guest(format!(
        "{}: MODE.FP_ROUND asks for rounding {} for {} results; the emulator models directed \
         rounding only for f32 add/sub/mul/fma/mad/div_fmas/ldexp and conversions to f32",
        op.name,
        [
            "to nearest even",
            "toward +inf",
            "toward -inf",
            "toward zero"
        ][field as usize],
        if wide { "f16/f64" } else { "f32" }
    )))
}

#[cfg(test)]
mod tests {
    use super::Round::*;
    use super::*;

    #[test]
    fn sums_round_in_the_asked_direction() {
        // 1 + 2^-30 lies strictly between 1 and 1 + 2^-23.
        let tiny = 2f32.powi(-30);
        assert_eq!(add(1.0, tiny, Up), 1.0 + f32::EPSILON);
        assert_eq!(add(1.0, tiny, Down), 1.0);
        assert_eq!(add(1.0, tiny, Zero), 1.0);
        assert_eq!(add(-1.0, -tiny, Down), -1.0 - f32::EPSILON);
        assert_eq!(add(-1.0, -tiny, Zero), -1.0);
        // Exact sums are unchanged.
        assert_eq!(add(1.5, 2.25, Up), 3.75);
        // x - x is +0, except -0 toward -inf; -0 + -0 stays -0.
        assert_eq!(add(3.0, -3.0, Up).to_bits(), 0);
        assert_eq!(add(3.0, -3.0, Down).to_bits(), 0x8000_0000);
        assert_eq!(add(-0.0, -0.0, Up).to_bits(), 0x8000_0000);
    }

    #[test]
    fn overflow_goes_to_inf_or_max_by_direction() {
        assert_eq!(add(f32::MAX, f32::MAX, Up), f32::INFINITY);
        assert_eq!(add(f32::MAX, f32::MAX, Down), f32::MAX);
        assert_eq!(add(f32::MAX, f32::MAX, Zero), f32::MAX);
        assert_eq!(mul(-f32::MAX, 2.0, Up), -f32::MAX);
        assert_eq!(mul(-f32::MAX, 2.0, Down), f32::NEG_INFINITY);
    }

    #[test]
    fn underflow_reaches_the_smallest_denormal_or_zero() {
        let min = f32::from_bits(1);
        assert_eq!(mul(min, 0.5, Up), min);
        assert_eq!(mul(min, 0.5, Down), 0.0);
        assert_eq!(mul(-min, 0.5, Down), -min);
        assert_eq!(mul(-min, 0.5, Zero).to_bits(), 0x8000_0000);
    }
}
