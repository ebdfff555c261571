//! Floating-point building blocks whose hardware definition differs from a plain Rust operator:
//! IEEE min/max, fract, frexp, ldexp and the division helpers (div_scale, div_fmas, div_fixup),
//! written from the ISA pseudo-code.

/// IEEE-754 minNum as the VALU implements it: a NaN operand loses to a number; -0 < +0.
#[inline]
pub fn min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        return if b.is_nan() { quiet32(a) } else { b };
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        // Equal values differ only for zeros: take -0 if either is -0.
        return f32::from_bits(a.to_bits() | b.to_bits());
    }
    if a < b {
        a
    } else {
        b
    }
}

#[inline]
pub fn max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        return if b.is_nan() { quiet32(a) } else { b };
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return f32::from_bits(a.to_bits() & b.to_bits());
    }
    if a > b {
        a
    } else {
        b
    }
}

#[inline]
pub fn min_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return if b.is_nan() { quiet64(a) } else { b };
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return f64::from_bits(a.to_bits() | b.to_bits());
    }
    if a < b {
        a
    } else {
        b
    }
}

#[inline]
pub fn max_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return if b.is_nan() { quiet64(a) } else { b };
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return f64::from_bits(a.to_bits() & b.to_bits());
    }
    if a > b {
        a
    } else {
        b
    }
}

#[inline]
pub fn quiet32(v: f32) -> f32 {
    f32::from_bits(v.to_bits() | 0x0040_0000)
}

#[inline]
pub fn quiet64(v: f64) -> f64 {
    f64::from_bits(v.to_bits() | 0x0008_0000_0000_0000)
}

/// V_MED3_F32 as the ISA defines it: with a NaN source, MIN3 of the sources (minNum drops the
/// NaN: med3(1, -2, NaN) = -2, which max(min(a, b), min(max(a, b), c)) got wrong as 1); otherwise
/// the larger of the two sources that are not MAX3.
pub fn med3_f32(a: f32, b: f32, c: f32) -> f32 {
    med3_f64(a as f64, b as f64, c as f64) as f32
}

/// V_MED3 on values widened to f64 (exact for f16 and f32; NaN payloads are kept by the
/// widening).
pub fn med3_f64(a: f64, b: f64, c: f64) -> f64 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return min_f64(min_f64(a, b), c);
    }
    let m = max_f64(max_f64(a, b), c);
    if m == a {
        max_f64(b, c)
    } else if m == b {
        max_f64(a, c)
    } else {
        max_f64(a, b)
    }
}

/// V_FRACT: S0 - floor(S0), kept below 1.0 (0x3f7fffff); NaN and ±inf give NaN.
pub fn fract_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
}

pub fn fract_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

/// x · 2^n, rounded once (scalbn).
pub fn ldexp_f64(mut x: f64, n: i32) -> f64 {
    let mut n = n.clamp(-2200, 2200);
    let p1023 = f64::from_bits(0x7fe0_0000_0000_0000); // 2^1023
    let m1022 = f64::from_bits(0x0010_0000_0000_0000); // 2^-1022
    let p53 = f64::from_bits(0x4340_0000_0000_0000); // 2^53
    if n > 1023 {
        x *= p1023;
        n -= 1023;
        if n > 1023 {
            x *= p1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        // Scale down in two steps that stay normal, so only the last multiply rounds.
        x *= m1022 * p53;
        n += 1022 - 53;
        if n < -1022 {
            x *= m1022 * p53;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    x * f64::from_bits(((0x3ff + n as i64) as u64) << 52)
}

/// x · 2^n for f32: exact in f64, then one rounding to f32.
pub fn ldexp_f32(x: f32, n: i32) -> f32 {
    ldexp_f64(x as f64, n.clamp(-400, 400)) as f32
}

/// Exponent as frexp gives it (x = m · 2^e, 0.5 ≤ |m| < 1); 0 for zero, inf and NaN.
pub fn frexp_exp_f64(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Denormal: normalise first.
        return frexp_exp_f64(x * f64::from_bits(0x4350_0000_0000_0000)) - 54;
    }
    e - 1022
}

pub fn frexp_mant_f64(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    ldexp_f64(x, -frexp_exp_f64(x))
}

pub fn frexp_exp_f32(x: f32) -> i32 {
    frexp_exp_f64(x as f64)
}

pub fn frexp_mant_f32(x: f32) -> f32 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    frexp_mant_f64(x as f64) as f32
}

/// Biased exponent field.
fn exp32(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32
}

fn exp64(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32
}

/// V_DIV_SCALE_F32: S0 = the value to scale (equal to S1 or S2), S1 = denominator,
/// S2 = numerator. Returns (D, VCC bit).
pub fn div_scale_f32(s0: f32, s1: f32, s2: f32) -> (f32, bool) {
    if s2 == 0.0 || s1 == 0.0 {
        return (f32::NAN, false);
    }
    if exp32(s2) - exp32(s1) >= 96 {
        // N/D near MAX_FLOAT: scale the denominator only.
        return (if s0 == s1 { ldexp_f32(s0, 64) } else { s0 }, true);
    }
    if s1.is_subnormal() {
        return (ldexp_f32(s0, 64), false);
    }
    // The ISA computes 1/S1 in f64 and asks whether it is an f64 denormal (`1.0 / 64'F(S1.f32)
    // == DENORM.f64`), which no finite f32 gives; testing for an f32 denormal instead would scale
    // the denominator of 1 / FLT_MAX to infinity (exec_vop3_all's division sequences hold it).
    let inv_denorm = (1.0 / s1 as f64).is_subnormal();
    let q_denorm = (s2 / s1).is_subnormal();
    if inv_denorm && q_denorm {
        return (if s0 == s1 { ldexp_f32(s0, 64) } else { s0 }, true);
    }
    if inv_denorm {
        return (ldexp_f32(s0, -64), false);
    }
    if q_denorm {
        return (if s0 == s2 { ldexp_f32(s0, 64) } else { s0 }, true);
    }
    if exp32(s2) <= 23 {
        // Numerator tiny.
        return (ldexp_f32(s0, 64), false);
    }
    (s0, false)
}

/// V_DIV_SCALE_F64 (thresholds 768 and 53, scale 2^128).
pub fn div_scale_f64(s0: f64, s1: f64, s2: f64) -> (f64, bool) {
    if s2 == 0.0 || s1 == 0.0 {
        return (f64::NAN, false);
    }
    if exp64(s2) - exp64(s1) >= 768 {
        return (if s0 == s1 { ldexp_f64(s0, 128) } else { s0 }, true);
    }
    if s1.is_subnormal() {
        return (ldexp_f64(s0, 128), false);
    }
    let inv_denorm = (1.0 / s1).is_subnormal();
    let q_denorm = (s2 / s1).is_subnormal();
    if inv_denorm && q_denorm {
        // The ISA text scales the denominator up by 2^128 here, which overflows for any S1 whose
        // reciprocal is denormal (1 / DBL_MAX came out inf through LLVM's division sequence).
        // Scaling it down keeps the estimate normal, and with VCC set div_fmas scales the
        // quotient back down: the sequence then gives the IEEE quotient (exec_vop3_all), as
        // the hardware's must (HIP's double division is correctly rounded).
        return (if s0 == s1 { ldexp_f64(s0, -128) } else { s0 }, true);
    }
    if inv_denorm {
        return (ldexp_f64(s0, -128), false);
    }
    if q_denorm {
        return (if s0 == s2 { ldexp_f64(s0, 128) } else { s0 }, true);
    }
    if exp64(s2) <= 53 {
        return (ldexp_f64(s0, 128), false);
    }
    (s0, false)
}

/// V_DIV_FMAS_F32: fma(S0, S1, S2), rescaled when VCC says div_scale scaled an operand: up by 2^64
/// if the quotient estimate S2 is large (the denominator was scaled), down if small.
pub fn div_fmas_f32(a: f32, b: f32, c: f32, vcc: bool) -> f32 {
    if !vcc {
        return a.mul_add(b, c);
    }
    // One rounding for the scaled result: a·b + c rounded to odd in f64 and scaled there (both
    // exact enough), then rounded to f32 once. Rounding the FMA to f32 first and then scaling
    // into the denormal range would round twice (-1.04338665e-26 / 9.7875965e11 would come out
    // one ulp low; exec_vop3_all holds the case).
    let scale = if exp32(c) > 127 { 64 } else { -64 };
    let r = fma_odd(a as f64, b as f64, c as f64) * 2f64.powi(scale);
    r as f32
}

pub fn div_fmas_f64(a: f64, b: f64, c: f64, vcc: bool) -> f64 {
    if !vcc {
        return a.mul_add(b, c);
    }
    // Scaled with one rounding (see `fma_scaled_f64`): rounding the FMA first and then scaling
    // into the denormal range would round twice (3.8094983094727647e-308 / 6.692531588748231
    // would come out one ulp high; exec_vop3_all holds the case).
    fma_scaled_f64(a, b, c, if exp64(c) > 1023 { 128 } else { -128 })
}

/// Sign, integer significand and exponent of a finite f64: x = ±m · 2^e.
fn parts64(x: f64) -> (bool, u128, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1 << 52) - 1)) as u128;
    if exp == 0 {
        (bits >> 63 != 0, frac, -1074)
    } else {
        (bits >> 63 != 0, frac | 1 << 52, exp - 1075)
    }
}

/// (a·b + c) · 2^k rounded once to f64 (round to nearest even), for v_div_fmas_f64, whose
/// scaling happens before the rounding. The exact sum is formed as an integer in a 124-bit
/// window; a term that reaches below the window (only the smaller one can) leaves a sticky
/// half-unit, which rounds exactly like the bits it stands for.
pub fn fma_scaled_f64(a: f64, b: f64, c: f64, k: i32) -> f64 {
    let plain = a.mul_add(b, c);
    if !plain.is_finite() || plain == 0.0 || a == 0.0 || b == 0.0 {
        return ldexp_f64(plain, k);
    }
    let (sa, ma, ea) = parts64(a);
    let (sb, mb, eb) = parts64(b);
    let (sc, mc, ec) = parts64(c);
    // Terms as (negative, significand, exponent of its lowest bit).
    let p = (sa != sb, ma * mb, ea + eb);
    let q = (sc, mc, ec);
    let top = |t: (bool, u128, i32)| t.2 + (128 - t.1.leading_zeros() as i32);
    let max_top = if q.1 == 0 { top(p) } else { top(p).max(top(q)) };
    let lsb = [p, q]
        .iter()
        .filter(|t| t.1 != 0)
        .map(|t| t.2)
        .min()
        .unwrap();
    let e = lsb.max(max_top - 124);
    let mut sum: i128 = 0;
    let mut sticky: i128 = 0;
    for (neg, m, te) in [p, q] {
        if m == 0 {
            continue;
        }
        let (v, lost) = if te >= e {
            (m << (te - e), false)
        } else {
            let sh = (e - te) as u32;
            if sh >= 128 {
                (0, true)
            } else {
                (m >> sh, m & ((1u128 << sh) - 1) != 0)
            }
        };
        let sign = if neg { -1 } else { 1 };
        sum += sign * v as i128;
        if lost {
            sticky = sign;
        }
    }
    // Value = (2·sum + sticky) · 2^(e - 1 + k).
    let v = 2 * sum + sticky;
    let neg = v < 0;
    let mag = v.unsigned_abs();
    let scale = e - 1 + k;
    let nbits = 128 - mag.leading_zeros() as i32;
    let t = scale + nbits - 1; // exponent of the top bit
    let mut out_lsb = (t - 52).max(-1074);
    let sh = out_lsb - scale;
    let mut m = if sh <= 0 {
        mag << (-sh)
    } else {
        let q = mag >> sh;
        let rem = mag & ((1u128 << sh) - 1);
        let half = 1u128 << (sh - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if m == 1 << 53 {
        m >>= 1;
        out_lsb += 1;
    }
    let bits = if out_lsb == -1074 {
        // Denormal (or the smallest normals, whose bit pattern is the same integer).
        m as u64
    } else {
        let biased = out_lsb + 1075;
        if biased >= 2047 {
            return if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
        }
        (biased as u64) << 52 | (m as u64 & ((1 << 52) - 1))
    };
    f64::from_bits(bits | (neg as u64) << 63)
}

/// V_DIV_FIXUP_F32: S0 = quotient, S1 = denominator, S2 = numerator; special cases of division.
pub fn div_fixup_f32(s0: f32, s1: f32, s2: f32) -> f32 {
    let neg = (s1.to_bits() ^ s2.to_bits()) & 0x8000_0000 != 0;
    let signed = |v: f32| if neg { -v } else { v };
    if s2.is_nan() {
        quiet32(s2)
    } else if s1.is_nan() {
        quiet32(s1)
    } else if (s1 == 0.0 && s2 == 0.0) || (s1.is_infinite() && s2.is_infinite()) {
        f32::from_bits(0xffc0_0000)
    } else if s1 == 0.0 || s2.is_infinite() {
        signed(f32::INFINITY)
    } else if s1.is_infinite() || s2 == 0.0 {
        signed(0.0)
    } else if exp32(s2) - exp32(s1) < -150 {
        // The ISA's underflow case: |S2 / S1| < 2^-150 rounds to 0 whatever the estimate S0
        // says (div_scale cannot scale 1e-45 / FLT_MAX into range; exec_vop3_all holds it).
        signed(0.0)
    } else if s0.is_nan() {
        // The quotient estimate overflowed or underflowed into NaN: the sign-corrected infinity.
        signed(f32::INFINITY)
    } else {
        signed(s0.abs())
    }
}

pub fn div_fixup_f64(s0: f64, s1: f64, s2: f64) -> f64 {
    let neg = (s1.to_bits() ^ s2.to_bits()) >> 63 != 0;
    let signed = |v: f64| if neg { -v } else { v };
    if s2.is_nan() {
        quiet64(s2)
    } else if s1.is_nan() {
        quiet64(s1)
    } else if (s1 == 0.0 && s2 == 0.0) || (s1.is_infinite() && s2.is_infinite()) {
        f64::from_bits(0xfff8_0000_0000_0000)
    } else if s1 == 0.0 || s2.is_infinite() {
        signed(f64::INFINITY)
    } else if s1.is_infinite() || s2 == 0.0 {
        signed(0.0)
    } else if exp64(s2) - exp64(s1) < -1075 {
        // The ISA's underflow case, as for f32 (threshold -1075 for f64).
        signed(0.0)
    } else if s0.is_nan() {
        signed(f64::INFINITY)
    } else {
        signed(s0.abs())
    }
}

/// a·b + c for operands whose product is exact in f64 (f16 and f32 values), rounded to odd in
/// f64: converting the result to f16 or f32 then rounds once, as a fused multiply-add does.
pub fn fma_odd(a: f64, b: f64, c: f64) -> f64 {
    let p = a * b;
    let s = p + c;
    if !s.is_finite() || !p.is_finite() {
        return s;
    }
    // TwoSum: the exact rounding error of p + c.
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    // Inexact with an even significand: step one ulp toward the exact value (it is odd).
    if s == 0.0 {
        return f64::from_bits(1) * err.signum();
    }
    let bits = s.to_bits();
    let away_from_zero = (err > 0.0) == (s > 0.0);
    f64::from_bits(if away_from_zero { bits + 1 } else { bits - 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fma_scaled_rounds_once() {
        // Normal results: the same as rounding then scaling (scaling is exact there).
        for (a, b, c) in [(1.5, 3.0, 0.1), (1e-200, 1e-10, -3e-211), (-7.0, 0.3, 2.1)] {
            let want = f64::mul_add(a, b, c) * 2f64.powi(100);
            assert_eq!(fma_scaled_f64(a, b, c, 100), want);
        }
        // (1 + 2^-50 + 2^-60) · 2^-1025 lands where f64 keeps 50 bits: one rounding goes up to
        // (1 + 2^-49) · 2^-1025; rounding to 53 bits first drops 2^-60 and leaves a tie that
        // rounds to even, down to 2^-1025.
        // (2f64.powi underflows to 0 below 2^-1022: these denormals are written as bits.)
        let (p1025, p1074) = (f64::from_bits(1 << 49), f64::from_bits(1));
        let got = fma_scaled_f64(1.0 + 2f64.powi(-50), 1.0, 2f64.powi(-60), -1025);
        assert_eq!(got, p1025 + p1074);
        assert_eq!(
            ldexp_f64(
                f64::mul_add(1.0 + 2f64.powi(-50), 1.0, 2f64.powi(-60)),
                -1025
            ),
            p1025,
            "the two-rounding result this guards against"
        );
        // Huge cancellation and signs.
        assert_eq!(
            fma_scaled_f64(3.0, -2.0, 6.0 + 2f64.powi(-50), 0),
            2f64.powi(-50)
        );
        assert_eq!(fma_scaled_f64(1e308, 10.0, 0.0, 0), f64::INFINITY);
    }

    #[test]
    fn min_max_zero_and_nan() {
        assert_eq!(min_f32(0.0, -0.0).to_bits(), 0x8000_0000);
        assert_eq!(max_f32(-0.0, 0.0).to_bits(), 0);
        assert_eq!(min_f32(f32::NAN, 2.0), 2.0);
        assert_eq!(max_f64(1.0, f64::NAN), 1.0);
        assert!(min_f32(f32::NAN, f32::NAN).is_nan());
        assert_eq!(med3_f32(3.0, 1.0, 2.0), 2.0);
    }

    #[test]
    fn ldexp_rounds_once() {
        assert_eq!(ldexp_f64(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp_f64(1.5, -1074), f64::from_bits(2)); // ties to even
        assert_eq!(ldexp_f64(1.0, 1024), f64::INFINITY);
        assert_eq!(
            ldexp_f64(f64::MIN_POSITIVE, 2000),
            f64::from_bits(0x7d10_0000_0000_0000)
        );
        assert_eq!(ldexp_f32(1.0, -149), f32::from_bits(1));
        assert_eq!(ldexp_f32(3.0, 2), 12.0);
    }

    #[test]
    fn frexp_parts() {
        assert_eq!(frexp_exp_f64(8.0), 4);
        assert_eq!(frexp_mant_f64(8.0), 0.5);
        assert_eq!(frexp_exp_f64(f64::from_bits(1)), -1073);
        assert_eq!(frexp_mant_f32(-3.0), -0.75);
        assert_eq!(frexp_exp_f32(f32::INFINITY), 0);
    }

    #[test]
    fn fma_odd_breaks_f16_ties() {
        // 1 + 2^-11 is the tie between f16 1.0 and 1.0009765625; a tiny addend decides it.
        let tie = 1.0 + 2f64.powi(-11);
        let up = fma_odd(tie, 1.0, 2f64.powi(-60));
        assert_eq!(super::super::f16::f64_to_f16(up), 0x3c01);
        let down = fma_odd(tie, 1.0, -(2f64.powi(-60)));
        assert_eq!(super::super::f16::f64_to_f16(down), 0x3c00);
        assert_eq!(fma_odd(2.0, 3.0, 1.0), 7.0);
    }

    #[test]
    fn fract_edges() {
        assert_eq!(fract_f32(-0.25), 0.75);
        assert_eq!(fract_f32(-1e-30), f32::from_bits(0x3f7f_ffff));
        assert!(fract_f32(f32::INFINITY).is_nan());
    }

    #[test]
    fn division_sequence_normal_values() {
        // The LLVM f64 division expansion reduces to the quotient for ordinary operands.
        let (n, d) = (10.0f64, 4.0f64);
        assert_eq!(div_scale_f64(d, d, n), (d, false));
        assert_eq!(div_fixup_f64(2.5, d, n), 2.5);
        assert_eq!(div_fixup_f64(2.5, -d, n), -2.5);
        assert_eq!(div_fixup_f32(0.0, 0.0, 1.0), f32::INFINITY);
        assert_eq!(div_fixup_f32(0.0, 0.0, -1.0), f32::NEG_INFINITY);
        assert!(div_fixup_f32(0.0, 0.0, 0.0).is_nan());
        assert_eq!(div_fmas_f32(2.0, 3.0, 1.0, false), 7.0);
        // A scaled-up denominator (VCC set, large estimate) is undone by 2^64.
        assert_eq!(div_fmas_f32(1.0, 0.0, 4.0, true), ldexp_f32(4.0, 64));
    }
}
