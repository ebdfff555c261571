//! MI300's 8-bit float formats, as gfx940/gfx942's conversions read and write them: FP8 (E4M3,
//! exponent bias 8) and BF8 (E5M2, bias 16), the "FNUZ" variants (finite, NaN = unsigned zero).
//!
//! The facts followed, and where they come from:
//!
//! - **Encodings.** One NaN, 0x80 (the bit pattern of -0); no infinities; no negative zero;
//!   denormals at exponent field 0 (value `mant · 2^(1 - bias - mant_bits)`). The largest
//!   values are 0x7f = 240 (FP8) and 0x7f = 57344 (BF8). These are the formats ml_dtypes calls
//!   `float8_e4m3fnuz` and `float8_e5m2fnuz`, and the `__hip_fp8_e4m3_fnuz` /
//!   `__hip_fp8_e5m2_fnuz` of HIP's `amd_hip_fp8.h` (gfx940/gfx942 are its "fnuz" targets).
//! - **Decoding** is exact (every FP8/BF8 value is an f32); 0x80 gives the canonical quiet NaN
//!   0x7fc00000.
//! - **NaN and ±Inf inputs** encode as 0x80 (there is nothing else to encode them as; ROCm's
//!   reference conversion, rocBLAS `rocblas_hip_f8_impl.h` `cast_to_f8`, returns 0x80 for them
//!   in the FNUZ mode).
//! - **Overflow.** A value whose rounded magnitude exceeds the format's largest encodes as
//!   0x80, unless the instruction's clamp bit is set: then it saturates to ±max (0x7f/0xff).
//!   The instruction does not saturate by itself: HIP's `amd_hip_fp8.h` saturates with
//!   `fmed3(v, 240, -240)` (and ±57344) before `__builtin_amdgcn_cvt_pk_fp8_f32` when it wants
//!   saturation. With clamp, NaN and ±Inf still give 0x80.
//! - **Zero.** A result that rounds to zero is 0x00 whatever the input's sign (no -0 exists).
//! - **Round to nearest even** for `v_cvt_pk_{fp8,bf8}_f32`: the exact value rounded once,
//!   denormal results included.
//! - **Stochastic rounding** for `v_cvt_sr_{fp8,bf8}_f32`, as ROCm's reference model does it
//!   (rocBLAS `cast_to_f8` with `stoch`, also in `amd_hip_fp8.h`): take the f32 significand
//!   with its implicit one (24 bits; 23 with none for an f32 denormal); when the result is an
//!   FP8/BF8 denormal, first shift it right (truncating) until its exponent is the format's
//!   smallest normal one; then add the low `23 - mant_bits` bits of the random value (20 for
//!   FP8, 21 for BF8), aligned to the significand's least significant bit, and truncate those
//!   bits. A carry out of the kept bits moves the value up one binade; the result then goes
//!   through the same overflow and zero rules.

/// The shape of one of the two formats.
#[derive(Clone, Copy, Debug)]
struct Format {
    /// Mantissa bits.
    mant: u32,
    /// Exponent bias.
    bias: i32,
    /// The largest finite value.
    max: f64,
}

const FP8: Format = Format {
    mant: 3,
    bias: 8,
    max: 240.0,
};

const BF8: Format = Format {
    mant: 2,
    bias: 16,
    max: 57344.0,
};

/// The single NaN of both formats.
pub(crate) const NAN: u8 = 0x80;

fn format(bf8: bool) -> Format {
    if bf8 {
        BF8
    } else {
        FP8
    }
}

impl Format {
    /// Exponent of the smallest normal value.
    fn min_exp(self) -> i32 {
        1 - self.bias
    }
}

/// The value of FP8 (`bf8` false) or BF8 byte `b`, exactly; 0x80 is the quiet NaN 0x7fc00000.
/// The f32's bits are put together from the fields (no call, no table), so that the matrix
/// ops' loops over a register's lanes vectorise.
#[inline]
pub(crate) fn fp8_to_f32(b: u8, bf8: bool) -> f32 {
    let (man_bits, bias) = if bf8 { (2u32, 16u32) } else { (3, 8) };
    let b = b as u32;
    if b == NAN as u32 {
        return f32::from_bits(0x7fc0_0000);
    }
    let exp = (b & 0x7f) >> man_bits;
    let man = b & ((1 << man_bits) - 1);
    let magnitude = if exp == 0 {
        // A denormal: `man` units of 2^(1 - bias - man_bits), a normal f32 (or zero).
        man as f32 * f32::from_bits((127 + 1 - bias - man_bits) << 23)
    } else {
        f32::from_bits((exp + 127 - bias) << 23 | man << (23 - man_bits))
    };
    if b & 0x80 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// How an f32 is rounded to FP8/BF8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rounding {
    NearestEven,
    /// Stochastic, with these random bits.
    Stochastic(u32),
}

/// `v` as an FP8 (`bf8` false) or BF8 byte, rounded as `rounding` says; `clamp` saturates
/// finite overflow to ±max instead of giving NaN.
pub(crate) fn f32_to_fp8(v: f32, bf8: bool, rounding: Rounding, clamp: bool) -> u8 {
    if !v.is_finite() {
        return NAN;
    }
    let f = format(bf8);
    let negative = v.is_sign_negative();
    let mag = match rounding {
        Rounding::NearestEven => nearest_even(v.abs() as f64, f),
        Rounding::Stochastic(r) => stochastic(v.abs(), r, f),
    };
    encode(mag, negative, f, clamp)
}

/// `a` (an f32 magnitude, exact in f64) rounded to nearest even at the format's precision.
fn nearest_even(a: f64, f: Format) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    // The quantum at `a`: 2^(e - mant) in the normal range, the denormal step below it.
    let e = (a.log2().floor() as i32).max(f.min_exp());
    // (log2 of a power of two is exact; just below one the floor could be one low, which the
    // check below puts right.)
    let e = if 2f64.powi(e + 1) <= a { e + 1 } else { e };
    let q = 2f64.powi(e - f.mant as i32);
    // a / q and the rounding are exact: a has 24 significant bits, q is a power of two.
    (a / q).round_ties_even() * q
}

/// `a` rounded stochastically with random bits `r`, as the module doc says.
fn stochastic(a: f32, r: u32, f: Format) -> f64 {
    let bits = a.to_bits();
    let exp_field = (bits >> 23) as i32;
    let (mut sig, mut e) = if exp_field == 0 {
        (bits & 0x7f_ffff, -126)
    } else {
        (bits & 0x7f_ffff | 1 << 23, exp_field - 127)
    };
    // An FP8/BF8 denormal result: align to the smallest normal exponent, truncating.
    if e < f.min_exp() {
        let shift = (f.min_exp() - e) as u32;
        sig = if shift >= 32 { 0 } else { sig >> shift };
        e = f.min_exp();
    }
    let drop = 23 - f.mant;
    let kept = (sig as u64 + (r & ((1 << drop) - 1)) as u64) >> drop;
    // `kept` counts units of 2^(e - mant); a carry has made it 2^(mant + 1).
    kept as f64 * 2f64.powi(e - f.mant as i32)
}

/// A magnitude on the format's grid (or beyond its largest value) as a byte.
fn encode(mag: f64, negative: bool, f: Format, clamp: bool) -> u8 {
    if mag > f.max {
        return if clamp {
            0x7f | if negative { 0x80 } else { 0 }
        } else {
            NAN
        };
    }
    if mag == 0.0 {
        return 0;
    }
    let min_normal = 2f64.powi(f.min_exp());
    let (exp, mant) = if mag < min_normal {
        (0, mag / 2f64.powi(f.min_exp() - f.mant as i32))
    } else {
        let mut e = mag.log2().floor() as i32;
        if 2f64.powi(e + 1) <= mag {
            e += 1;
        }
        if 2f64.powi(e) > mag {
            e -= 1;
        }
        (
            (e + f.bias) as u32,
            mag / 2f64.powi(e - f.mant as i32) - (1u32 << f.mant) as f64,
        )
    };
    let sign = if negative { 0x80 } else { 0 };
    sign | (exp << f.mant) as u8 | mant as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rne(v: f32, bf8: bool) -> u8 {
        f32_to_fp8(v, bf8, Rounding::NearestEven, false)
    }

    #[test]
    fn every_byte_round_trips() {
        for bf8 in [false, true] {
            for b in 0..=255u8 {
                let v = fp8_to_f32(b, bf8);
                if b == NAN {
                    assert_eq!(v.to_bits(), 0x7fc0_0000);
                    continue;
                }
                assert_eq!(rne(v, bf8), b, "{b:#04x} bf8={bf8} value {v}");
                for r in [0, 0x1234_5678, u32::MAX] {
                    let sr = f32_to_fp8(v, bf8, Rounding::Stochastic(r), false);
                    assert_eq!(sr, b, "{b:#04x} bf8={bf8} random {r:#x}");
                }
            }
        }
    }

    #[test]
    fn values_and_limits() {
        assert_eq!(fp8_to_f32(0x7f, false), 240.0);
        assert_eq!(fp8_to_f32(0x7f, true), 57344.0);
        assert_eq!(fp8_to_f32(0x01, false), 2f32.powi(-10));
        assert_eq!(fp8_to_f32(0x01, true), 2f32.powi(-17));
        assert_eq!(fp8_to_f32(0x40, false), 1.0);
        assert_eq!(fp8_to_f32(0x40, true), 1.0);
        assert_eq!(fp8_to_f32(0xc0, false), -1.0);
        for bf8 in [false, true] {
            assert_eq!(rne(f32::NAN, bf8), NAN);
            assert_eq!(rne(f32::INFINITY, bf8), NAN);
            assert_eq!(rne(-0.0, bf8), 0);
            assert_eq!(rne(-1e-30, bf8), 0);
            let inf = f32_to_fp8(f32::NEG_INFINITY, bf8, Rounding::NearestEven, true);
            assert_eq!(inf, NAN);
        }
    }

    #[test]
    fn ties_go_to_even() {
        // FP8 around 1: step 1/8. 1 + 1/16 is halfway between 0x40 and 0x41: even 0x40;
        // 1 + 3/16 between 0x41 and 0x42: 0x42.
        assert_eq!(rne(1.0625, false), 0x40);
        assert_eq!(rne(1.1875, false), 0x42);
        assert_eq!(rne(1.0625001, false), 0x41);
        // BF8 around 1: step 1/4.
        assert_eq!(rne(1.125, true), 0x40);
        assert_eq!(rne(1.375, true), 0x42);
        // Denormal ties: half the smallest FP8 denormal rounds to 0, 1.5 of it to 2.
        assert_eq!(rne(2f32.powi(-11), false), 0);
        assert_eq!(rne(3.0 * 2f32.powi(-11), false), 0x02);
        // The largest FP8 is 240 (step 16): 247.99 rounds to it, 248 (a tie) to 256, which
        // overflows: NaN, or 240 with clamp.
        assert_eq!(rne(247.99, false), 0x7f);
        assert_eq!(rne(248.0, false), NAN);
        assert_eq!(f32_to_fp8(-248.0, false, Rounding::NearestEven, true), 0xff);
        // BF8's largest is 57344 (step 8192): 61440 is the tie above it.
        assert_eq!(rne(61439.0, true), 0x7f);
        assert_eq!(rne(61440.0, true), NAN);
        assert_eq!(f32_to_fp8(61440.0, true, Rounding::NearestEven, true), 0x7f);
    }

    #[test]
    fn stochastic_adds_the_random_bits_below_the_kept_ones() {
        // 1 + 1/16 in FP8: the dropped part is 2^19 of 2^20 (a half); random bits below
        // one half truncate to 0x40, from one half up carry to 0x41.
        let sr = |v: f32, r: u32| f32_to_fp8(v, false, Rounding::Stochastic(r), false);
        assert_eq!(sr(1.0625, 0x7_ffff), 0x40);
        assert_eq!(sr(1.0625, 0x8_0000), 0x41);
        // Only the low 20 bits count.
        assert_eq!(sr(1.0625, 0xfff0_0000), 0x40);
        // A denormal result: 2^-11 is half the smallest FP8 denormal.
        assert_eq!(sr(2f32.powi(-11), 0x7_ffff), 0);
        assert_eq!(sr(2f32.powi(-11), 0x8_0000), 0x01);
        // A carry into the next binade, and out of range.
        assert_eq!(sr(1.9375, 0xf_ffff), 0x48);
        assert_eq!(sr(240.0 + 8.0, 0x8_0000), NAN);
        assert_eq!(sr(-0.0, u32::MAX), 0);
    }
}
