//! bfloat16 (the high half of an f32) for gfx940's packed bf16 atomics: widening is exact,
//! narrowing rounds to nearest even with denormals kept, as the packed f16 atomics keep theirs.

#[inline]
pub(crate) fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// `v` rounded to nearest even; a NaN stays a NaN (made quiet, its top payload bits kept).
pub(crate) fn f32_to_bf16(v: f32) -> u16 {
    let bits = v.to_bits();
    if v.is_nan() {
        return (bits >> 16) as u16 | 0x40;
    }
    // Adding just under half a unit, plus the kept part's low bit, rounds ties to even; a
    // carry out of the mantissa moves the exponent up (to infinity from the largest finite).
    let round = 0x7fff + (bits >> 16 & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between 0x3f80 and 0x3f81: even; 1 + 3·2^-8 goes up to 0x3f82.
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8001)), 0x3f81);
        assert_eq!(f32_to_bf16(f32::from_bits(0x7f7f_ffff)), 0x7f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x0000_8000)), 0x0000);
        assert_eq!(f32_to_bf16(f32::from_bits(0x0001_8000)), 0x0002);
        assert_eq!(f32_to_bf16(f32::from_bits(0x7f80_0001)) & 0x7fc0, 0x7fc0);
        assert_eq!(bf16_to_f32(0xc040), -3.0);
    }
}
