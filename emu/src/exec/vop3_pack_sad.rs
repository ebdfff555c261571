//! VOP3 ops with irregular lanes: packing conversions (cvt_pkrtz, cvt_pknorm, cvt_pk_*), byte
//! permute, sums of absolute differences (sad/msad/qsad/mqsad), lerp and v_trig_preop_f64.

use super::f16::f64_to_f16;
use super::fp;
use super::valu::*;
use super::{Cx, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::{Row, WAVE_SIZE};

/// f64 → f16 rounding toward zero (largest finite instead of overflowing to inf).
pub fn f16_rtz(v: f64) -> u16 {
    let r = f64_to_f16(v);
    if v.is_nan() || v.is_infinite() {
        return r;
    }
    let back = half::f16::from_bits(r).to_f64();
    if back.abs() > v.abs() {
        r - 1 // one step toward zero in magnitude (same sign)
    } else {
        r
    }
}

fn snorm16(x: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    ((x.clamp(-1.0, 1.0) as f64 * 32767.0).round_ties_even() as i16 as u16) as u32
}

fn unorm16(x: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    (x.clamp(0.0, 1.0) as f64 * 65535.0).round_ties_even() as u32
}

/// flt32_to_uint8: round to nearest even, saturate, NaN to 0.
fn to_u8(x: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    x.round_ties_even().clamp(0.0, 255.0) as u32
}

fn bytes(v: u32) -> [u32; 4] {
    [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24]
}

/// Sum of |a.byte - b.byte| over four bytes.
fn sad_u8(a: u32, b: u32) -> u32 {
    bytes(a)
        .iter()
        .zip(bytes(b))
        .map(|(x, y)| x.abs_diff(y))
        .sum()
}

/// Masked SAD: reference (b) bytes equal to 0 do not count.
fn msad_u8(a: u32, b: u32) -> u32 {
    bytes(a)
        .iter()
        .zip(bytes(b))
        .filter(|(_, y)| *y != 0)
        .map(|(x, y)| x.abs_diff(y))
        .sum()
}

/// v_perm_b32 byte selector over {S0, S1} (S1 is bytes 0-3).
fn perm_byte(input: u64, sel: u32) -> u32 {
    match sel {
        0..=7 => ((input >> (8 * sel)) & 0xff) as u32,
        // Sign of bytes 1, 3, 5, 7 replicated.
        8..=11 => {
            if input >> (16 * (sel - 8) + 15) & 1 != 0 {
                0xff
            } else {
                0
            }
        }
        12 => 0,
        _ => 0xff,
    }
}

/// `n` consecutive dwords of source `i` for every lane (VGPR tuple, SGPR tuple or constant).
fn dwords<const N: usize>(cx: &Cx, d: &Decoded, i: usize) -> [[u32; N]; WAVE_SIZE] {
    let mut out = [[0u32; N]; WAVE_SIZE];
    for k in 0..N {
        let row: Row = match d.src[i] {
            Src::Vgpr(r) => cx.wave.vgpr[(r as usize + k) & 255],
            Src::Sgpr(c) => [cx.wave.sgpr[(c as usize + k) & 127]; WAVE_SIZE],
            other => [(scalar64(cx, other) >> (32 * k.min(1))) as u32 * (k < 2) as u32; WAVE_SIZE],
        };
        for l in 0..WAVE_SIZE {
            out[l][k] = row[l];
        }
    }
    out
}

fn write_dwords<const N: usize>(cx: &mut Cx, d: &Decoded, vals: &[[u32; N]; WAVE_SIZE]) {
    let mask = write_mask(cx, d);
    for k in 0..N {
        let row: Row = std::array::from_fn(|l| vals[l][k]);
        cx.wave.write_row((d.vdst as usize + k) & 255, &row, mask);
    }
}

/// The four byte windows of QSAD/MQSAD: S0.u64 bits [31:0], [39:8], [47:16], [55:24].
fn window(s0: u64, k: u32) -> u32 {
    (s0 >> (8 * k)) as u32
}

/// V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8: four 16-bit accumulators (S2.u64) plus the SADs of
/// the windows of S0 against S1; each 16-bit result wraps.
fn qsad_pk(cx: &mut Cx, d: &Decoded, masked: bool) -> Res {
    let s0 = dwords::<2>(cx, d, 0);
    let s1 = fetch(cx, d, 1);
    let s2 = dwords::<2>(cx, d, 2);
    let out: [[u32; 2]; WAVE_SIZE] = std::array::from_fn(|l| {
        let a = s0[l][0] as u64 | (s0[l][1] as u64) << 32;
        let acc = s2[l][0] as u64 | (s2[l][1] as u64) << 32;
        let mut r = 0u64;
        for k in 0..4 {
            let w = window(a, k);
            let sad = if masked {
                msad_u8(w, s1[l])
            } else {
                sad_u8(w, s1[l])
            };
            let v = ((acc >> (16 * k)) as u32 & 0xffff).wrapping_add(sad) & 0xffff;
            r |= (v as u64) << (16 * k);
        }
        [r as u32, (r >> 32) as u32]
    });
    write_dwords(cx, d, &out);
    Ok(Flow::Continue)
}

/// V_MQSAD_U32_U8: four 32-bit accumulators (S2, 128 bits) plus masked SADs of the windows.
fn v_mqsad_u32_u8(cx: &mut Cx, d: &Decoded) -> Res {
    let s0 = dwords::<2>(cx, d, 0);
    let s1 = fetch(cx, d, 1);
    let s2 = dwords::<4>(cx, d, 2);
    let out: [[u32; 4]; WAVE_SIZE] = std::array::from_fn(|l| {
        let a = s0[l][0] as u64 | (s0[l][1] as u64) << 32;
        std::array::from_fn(|k| s2[l][k].wrapping_add(msad_u8(window(a, k as u32), s1[l])))
    });
    write_dwords(cx, d, &out);
    Ok(Flow::Continue)
}

/// 2/π to 1200 bits (floor(2/π · 2^1200)), most significant bit first; the last word is padded
/// with zeros. Computed with Python integers from Machin's formula
/// (π = 16·atan(1/5) − 4·atan(1/239), 1300 guard bits); the same digits as fdlibm's ipio2.
const TWO_OVER_PI: [u64; 19] = [
    0xa2f9836e4e441529,
    0xfc2757d1f534ddc0,
    0xdb6295993c439041,
    0xfe5163abdebbc561,
    0xb7246e3a424dd2e0,
    0x06492eea09d1921c,
    0xfe1deb1cb129a73e,
    0xe88235f52ebb4484,
    0xe99c7026b45f7e41,
    0x3991d639835339f4,
    0x9c845f8bbdf9283b,
    0x1ff897ffde05980f,
    0xef2f118b5a0a6d1f,
    0x6d367ecf27cb09b7,
    0x4f463f669e5fea2d,
    0x7527bac7ebe5f17b,
    0x3d0739f78a5292ea,
    0x6bfb5fb11f8d5d08,
    0x56033046fc7b0000,
];

/// 53 bits of 2/π starting `start` bits after the binary point (zeros past bit 1200).
fn two_over_pi_bits(start: u32) -> u64 {
    (0..53u32).fold(0u64, |m, j| {
        let k = start + j;
        let bit = if k < 1200 {
            TWO_OVER_PI[(k / 64) as usize] >> (63 - k % 64) & 1
        } else {
            0
        };
        m << 1 | bit
    })
}

/// V_TRIG_PREOP_F64: segment S1[4:0] of 2/π (53 bits each), shifted further for large S0 so
/// the products with S0 keep their precision, scaled as the ISA pseudo-code says.
pub fn trig_preop(s0: f64, s1: u32) -> f64 {
    let exp = ((s0.to_bits() >> 52) & 0x7ff) as i32;
    let mut shift = (s1 & 31) as i32 * 53;
    if exp > 1077 {
        shift += exp - 1077;
    }
    let m = two_over_pi_bits(shift as u32);
    let mut scale = -53 - shift;
    if exp >= 1968 {
        scale += 128;
    }
    fp::ldexp_f64(m as f64, scale)
}

fn v_trig_preop_f64(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch(cx, d, 1);
    let r: [f64; WAVE_SIZE] = std::array::from_fn(|l| trig_preop(a[l], b[l]));
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

/// Two f32 sources (with modifiers) packed into {f(S1), f(S0)}.
fn pack_f32(cx: &mut Cx, d: &Decoded, f: impl Fn(f32) -> u32) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let r: Row = std::array::from_fn(|l| f(a[l]) & 0xffff | f(b[l]) << 16);
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// D = S2 with byte S1[1:0] replaced by flt32_to_uint8(S0).
fn v_cvt_pk_u8_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch(cx, d, 1);
    let c = fetch(cx, d, 2);
    let r: Row = std::array::from_fn(|l| {
        let sh = 8 * (b[l] & 3);
        (c[l] & !(0xff << sh)) | to_u8(a[l]) << sh
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// Byte S1[1:0] of D = flt32_to_uint8(S0); the other bytes of D are kept.
fn v_cvt_pkaccum_u8_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch(cx, d, 1);
    let old = cx.wave.vgpr[d.vdst as usize];
    let r: Row = std::array::from_fn(|l| {
        let sh = 8 * (b[l] & 3);
        (old[l] & !(0xff << sh)) | to_u8(a[l]) << sh
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

semantics! {
    V_CVT_PKRTZ_F16_F32 => |cx, d| pack_f32(cx, d, |x| f16_rtz(x as f64) as u32);
    V_CVT_PKNORM_I16_F32 => |cx, d| pack_f32(cx, d, snorm16);
    V_CVT_PKNORM_U16_F32 => |cx, d| pack_f32(cx, d, unorm16);
    V_CVT_PK_U16_U32 => |cx, d| u32_2(cx, d, |a, b| a.min(0xffff) | b.min(0xffff) << 16);
    V_CVT_PK_I16_I32 => |cx, d| {
        u32_2(cx, d, |a, b| {
            let s = |v: u32| (v as i32).clamp(-32768, 32767) as u32 & 0xffff;
            s(a) | s(b) << 16
        })
    };
    V_CVT_PK_U8_F32 => v_cvt_pk_u8_f32;
    V_CVT_PKACCUM_U8_F32 => v_cvt_pkaccum_u8_f32;
    V_PERM_B32 => |cx, d| {
        u32_3(cx, d, |a, b, c| {
            let input = (a as u64) << 32 | b as u64;
            (0..4).fold(0, |r, k| {
                r | perm_byte(input, (c >> (8 * k)) & 0xff) << (8 * k)
            })
        })
    };
    V_LERP_U8 => |cx, d| {
        u32_3(cx, d, |a, b, c| {
            let (a, b, c) = (bytes(a), bytes(b), bytes(c));
            (0..4).fold(0, |r, k| r | ((a[k] + b[k] + (c[k] & 1)) >> 1) << (8 * k))
        })
    };
    V_SAD_U8 => |cx, d| u32_3(cx, d, |a, b, c| sad_u8(a, b).wrapping_add(c));
    V_SAD_HI_U8 => |cx, d| u32_3(cx, d, |a, b, c| (sad_u8(a, b) << 16).wrapping_add(c));
    V_SAD_U16 => |cx, d| {
        u32_3(cx, d, |a, b, c| {
            let lo = (a & 0xffff).abs_diff(b & 0xffff);
            let hi = (a >> 16).abs_diff(b >> 16);
            (lo + hi).wrapping_add(c)
        })
    };
    V_MSAD_U8 => |cx, d| u32_3(cx, d, |a, b, c| msad_u8(a, b).wrapping_add(c));
    V_QSAD_PK_U16_U8 => |cx, d| qsad_pk(cx, d, false);
    V_MQSAD_PK_U16_U8 => |cx, d| qsad_pk(cx, d, true);
    V_MQSAD_U32_U8 => v_mqsad_u32_u8;
    V_TRIG_PREOP_F64 => v_trig_preop_f64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trig_preop_segments_add_up_to_two_over_pi() {
        assert_eq!(two_over_pi_bits(0), 0xa2f9836e4e441529 >> 11);
        assert_eq!(two_over_pi_bits(1200), 0);
        // Segment 0 is 2/π truncated to 53 bits: within one ulp below the rounded constant.
        let seg0 = trig_preop(1.0, 0);
        let seg1 = trig_preop(1.0, 1);
        assert!(seg0 <= std::f64::consts::FRAC_2_PI);
        assert!(std::f64::consts::FRAC_2_PI - seg0 <= 2f64.powi(-53));
        // Segment 1 continues exactly where segment 0 stops: seg0 + seg1 rounds to FRAC_2_PI.
        assert_eq!(seg0 + seg1, std::f64::consts::FRAC_2_PI);
        assert!(seg1 < 2f64.powi(-53) && seg1 > 0.0);
        // Large inputs shift the window: exponent 1078 moves it by one bit.
        assert_eq!(
            trig_preop(2f64.powi(55), 0),
            fp::ldexp_f64(two_over_pi_bits(1) as f64, -54)
        );
    }

    #[test]
    fn rtz_never_rounds_up() {
        assert_eq!(f16_rtz(1.0 + 2f64.powi(-11) * 1.5), 0x3c00);
        assert_eq!(f16_rtz(-(1.0 + 2f64.powi(-10) * 0.99)), 0xbc00);
        assert_eq!(f16_rtz(1e6), 0x7bff);
        assert_eq!(f16_rtz(-1e6), 0xfbff);
        assert_eq!(f16_rtz(f64::INFINITY), 0x7c00);
        assert_eq!(f16_rtz(2f64.powi(-25)), 0);
    }
}
