//! Matrix elements as the products take them: each input format's bits to the value the
//! matrix core multiplies, written as integer arithmetic and selects so that a loop over a
//! register's lanes vectorises (a call per element does not).

/// f32 `v`, or its signed zero if `flush` and it is a denormal (a zero exponent: zeros stay).
#[inline]
pub fn flushed(v: f32, flush: bool) -> f32 {
    let bits = v.to_bits();
    if flush && bits & 0x7f80_0000 == 0 {
        f32::from_bits(bits & 0x8000_0000)
    } else {
        v
    }
}

/// An f16 as f32, exactly as [`crate::exec::f16::f16_to_f32`] gives it (a NaN made quiet, its
/// payload kept), or a denormal as its signed zero if `flush`.
#[inline]
pub fn f16_value(h: u32, flush: bool) -> f32 {
    let sign = (h & 0x8000) << 16;
    let em = h & 0x7fff;
    let magnitude = if em >= 0x7c00 {
        // Infinity or NaN: the f32 exponent all ones, a NaN's quiet bit set.
        let quiet = if em > 0x7c00 { 0x40_0000 } else { 0 };
        0x7f80_0000 | quiet | (em & 0x3ff) << 13
    } else if em >= 0x400 {
        // A normal: the exponent rebiased from 15 to 127.
        (em << 13) + ((127 - 15) << 23)
    } else if flush {
        0
    } else {
        // A denormal (or zero): `em` units of 2^-24, a normal f32 (or zero).
        (em as f32 * f32::from_bits(0x3380_0000)).to_bits()
    };
    f32::from_bits(sign | magnitude)
}

/// A bf16 as f32 (its high half), or a denormal as its signed zero if `flush`.
#[inline]
pub fn bf16_value(h: u32, flush: bool) -> f32 {
    if flush && h & 0x7f80 == 0 {
        f32::from_bits((h & 0x8000) << 16)
    } else {
        f32::from_bits(h << 16)
    }
}

/// An f32 register as an xf32 ops multiplies it: its top 19 bits (sign, exponent, 10 mantissa
/// bits), the rest cut off — MI300's conversion truncates, rounding toward zero (ROCm's
/// hipBLASLt rounds operands before the gfx942 xf32 ops for this reason: rocm-libraries pull
/// request 9176, "gfx942's native v_mfma_f32_*_xf32 truncates fp32->tf32"). A NaN stays a
/// NaN (made quiet) even where its payload is all in the cut bits.
#[inline]
pub fn xf32_value(r: u32) -> f32 {
    if r & 0x7fff_ffff > 0x7f80_0000 {
        f32::from_bits(r | 0x40_0000)
    } else {
        f32::from_bits(r & 0xffff_e000)
    }
}
