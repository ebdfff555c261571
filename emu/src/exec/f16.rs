//! Half-precision conversions (IEEE binary16, round to nearest even). Narrowing is done here
//! rather than by the `half` crate, whose f64 → f16 path rounds twice (through f32, or by
//! truncating the low mantissa word), which misrounds values just above a tie.

#[inline]
pub fn f32_to_f16(v: f32) -> u16 {
    f64_to_f16(v as f64)
}

#[inline]
pub fn f16_to_f32(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// f64 → f16 with one rounding to nearest even; NaNs stay NaN (quiet, top payload bits kept).
pub fn f64_to_f16(v: f64) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let man = bits & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | ((man >> 42) as u16 & 0x3ff)
        };
    }
    if exp == 0 {
        // f64 denormals lie far below half the smallest f16 denormal.
        return sign;
    }
    let e = exp - 1023;
    if e > 15 {
        return sign | 0x7c00;
    }
    // Units of the result: 2^(e-10) for normals, 2^-24 for denormals (e < -14).
    let sig = man | 1u64 << 52;
    let shift = if e >= -14 { 42 } else { (28 - e) as u32 };
    if shift > 60 {
        return sign;
    }
    let mut q = sig >> shift;
    let rem = sig & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    if e >= -14 {
        // q is in [1024, 2048]; a carry to 2048 moves into the exponent (up to inf) by itself.
        sign | ((((e + 15) as u32) << 10) + q as u32 - 1024) as u16
    } else {
        sign | q as u16
    }
}

#[cfg(test)]
mod tests {
    use super::f64_to_f16;

    #[test]
    fn rounds_once_to_nearest_even() {
        assert_eq!(f64_to_f16(1.0), 0x3c00);
        let tie = 1.0 + 2f64.powi(-11);
        assert_eq!(f64_to_f16(tie), 0x3c00); // tie to even
        assert_eq!(f64_to_f16(tie + 2f64.powi(-52)), 0x3c01); // just above: up
        assert_eq!(f64_to_f16(65504.0), 0x7bff);
        assert_eq!(f64_to_f16(65520.0), 0x7c00); // tie at the top rounds to inf
        assert_eq!(f64_to_f16(65519.99), 0x7bff);
        assert_eq!(f64_to_f16(2f64.powi(-24)), 0x0001);
        assert_eq!(f64_to_f16(2f64.powi(-25)), 0x0000); // tie to even (0)
        assert_eq!(f64_to_f16(2f64.powi(-25) * 1.0000001), 0x0001);
        assert_eq!(f64_to_f16(3.0 * 2f64.powi(-25)), 0x0002); // 1.5 units: tie to even 2
        assert_eq!(f64_to_f16(1023.0 * 2f64.powi(-24) + 2f64.powi(-25)), 0x0400); // to normal
        assert_eq!(f64_to_f16(-0.0), 0x8000);
        assert_eq!(f64_to_f16(f64::NEG_INFINITY), 0xfc00);
        assert_eq!(f64_to_f16(f64::NAN) & 0x7e00, 0x7e00);
        assert_eq!(f64_to_f16(1e-300), 0);
    }
}
