//! VOP1 / VOP2 / VOP3 arithmetic (compares are in `vopc.rs`). Each line is one op: its name, the
//! lane driver from `valu.rs`, and the ISA pseudo-code as a closure. Ops whose lanes need more
//! than their sources (lane index, VCC, SGPR destinations) are functions below the table.

use super::fp;
use super::valu::*;
use super::{Cx, Fault, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::{Row, VGPRS, WAVE_SIZE};
use std::mem::MaybeUninit;

macro_rules! lane_ops {
    ($($name:ident: $driver:ident |$($p:ident),*| $body:expr;)*) => {
        $(
            #[allow(clippy::redundant_closure_call)]
            fn $name(cx: &mut Cx, d: &Decoded) -> Res {
                $driver(cx, d, |$($p),*| $body)
            }
        )*
    };
}

fn sext24(v: u32) -> i64 {
    ((v << 8) as i32 >> 8) as i64
}

fn bfe_i32(v: u32, off: u32, width: u32) -> u32 {
    let (off, w) = (off & 31, width & 31);
    if w == 0 {
        return 0;
    }
    // A field reaching past bit 31 is `S0.i >> offset`, sign from bit 31 (LLVM folds V_BFE_I32
    // the same way); sign-extending from bit w-1 of the shifted value was wrong there.
    if off + w >= 32 {
        return ((v as i32) >> off) as u32;
    }
    let field = (v >> off) & ((1u32 << w) - 1);
    let sh = 32 - w;
    (((field << sh) as i32) >> sh) as u32
}

lane_ops! {
    // VOP1 (integer and conversion)
    v_not_b32: u32_1 |a| !a;
    v_bfrev_b32: u32_1 |a| a.reverse_bits();
    // D = position of the first 1 from the MSB, or -1.
    v_ffbh_u32: u32_1 |a| if a == 0 { !0 } else { a.leading_zeros() };
    v_ffbl_b32: u32_1 |a| if a == 0 { !0 } else { a.trailing_zeros() };
    v_ffbh_i32: u32_1 |a| {
        let s = a as i32;
        if s == 0 || s == -1 { !0 } else { (s ^ (s >> 31)).leading_zeros() }
    };
    v_cvt_f32_i32: u32_1 |a| (a as i32 as f32).to_bits();
    v_cvt_f32_u32: u32_1 |a| (a as f32).to_bits();
    // Float to integer saturates; NaN gives 0 (Rust's `as` does the same).
    v_cvt_u32_f32: from_f32 |a| a as u32;
    v_cvt_i32_f32: from_f32 |a| a as i32 as u32;
    v_cvt_flr_i32_f32: from_f32 |a| a.floor() as i32 as u32;
    // floor(S0 + 0.5) exactly: an f32 add would round 8388609.0 + 0.5 up to 8388610 (the
    // exec_vop_all tests hold that case); f64 holds the sum of any f32 and 0.5 exactly.
    v_cvt_rpi_i32_f32: from_f32 |a| (a as f64 + 0.5).floor() as i32 as u32;
    v_cvt_f32_ubyte0: u32_1 |a| ((a & 0xff) as f32).to_bits();
    v_cvt_f32_ubyte1: u32_1 |a| (((a >> 8) & 0xff) as f32).to_bits();
    v_cvt_f32_ubyte2: u32_1 |a| (((a >> 16) & 0xff) as f32).to_bits();
    v_cvt_f32_ubyte3: u32_1 |a| ((a >> 24) as f32).to_bits();
    v_cvt_f16_f32: from_f32 |a| super::f16::f32_to_f16(a) as u32;
    v_cvt_f32_f16: u32_1 |a| super::f16::f16_to_f32(a as u16).to_bits();
    v_frexp_exp_i32_f32: from_f32 |a| fp::frexp_exp_f32(a) as u32;

    // VOP1 (f32)
    v_fract_f32: f32_1 |a| fp::fract_f32(a);
    v_trunc_f32: f32_1 |a| a.trunc();
    v_ceil_f32: f32_1 |a| a.ceil();
    v_rndne_f32: f32_1 |a| a.round_ties_even();
    v_floor_f32: f32_1 |a| a.floor();
    v_exp_f32: f32_1 |a| a.exp2();
    v_log_f32: f32_1 |a| a.log2();
    // The hardware's reciprocal and square-root estimates are within 1 ULP; these are exact.
    v_rcp_f32: f32_1 |a| 1.0 / a;
    v_rcp_iflag_f32: f32_1 |a| 1.0 / a;
    v_rsq_f32: f32_1 |a| 1.0 / a.sqrt();
    v_sqrt_f32: f32_1 |a| a.sqrt();
    // Sine and cosine take their argument in revolutions.
    v_sin_f32: f32_1 |a| ((a as f64) * std::f64::consts::TAU).sin() as f32;
    v_cos_f32: f32_1 |a| ((a as f64) * std::f64::consts::TAU).cos() as f32;
    v_frexp_mant_f32: f32_1 |a| fp::frexp_mant_f32(a);

    // VOP1 (f64)
    v_fract_f64: f64_1 |a| fp::fract_f64(a);
    v_trunc_f64: f64_1 |a| a.trunc();
    v_ceil_f64: f64_1 |a| a.ceil();
    v_rndne_f64: f64_1 |a| a.round_ties_even();
    v_floor_f64: f64_1 |a| a.floor();
    v_rcp_f64: f64_1 |a| 1.0 / a;
    v_rsq_f64: f64_1 |a| 1.0 / a.sqrt();
    v_sqrt_f64: f64_1 |a| a.sqrt();
    v_frexp_mant_f64: f64_1 |a| fp::frexp_mant_f64(a);

    // VOP2 (integer)
    // With VOP3 clamp the integer add/sub saturate instead of wrapping.
    v_add_u32: u32_2c |a, b, sat| if sat { a.saturating_add(b) } else { a.wrapping_add(b) };
    v_sub_u32: u32_2c |a, b, sat| if sat { a.saturating_sub(b) } else { a.wrapping_sub(b) };
    v_subrev_u32: u32_2c |a, b, sat| if sat { b.saturating_sub(a) } else { b.wrapping_sub(a) };
    v_and_b32: u32_2 |a, b| a & b;
    v_or_b32: u32_2 |a, b| a | b;
    v_xor_b32: u32_2 |a, b| a ^ b;
    v_xnor_b32: u32_2 |a, b| !(a ^ b);
    // Shifts use the low five bits of the shift amount.
    v_lshlrev_b32: u32_2 |a, b| b << (a & 31);
    v_lshrrev_b32: u32_2 |a, b| b >> (a & 31);
    v_ashrrev_i32: u32_2 |a, b| ((b as i32) >> (a & 31)) as u32;
    v_min_i32: u32_2 |a, b| (a as i32).min(b as i32) as u32;
    v_max_i32: u32_2 |a, b| (a as i32).max(b as i32) as u32;
    v_min_u32: u32_2 |a, b| a.min(b);
    v_max_u32: u32_2 |a, b| a.max(b);
    v_mul_i32_i24: u32_2 |a, b| (sext24(a) * sext24(b)) as u32;
    v_mul_hi_i32_i24: u32_2 |a, b| ((sext24(a) * sext24(b)) >> 32) as u32;
    v_mul_u32_u24: u32_2 |a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff);
    v_mul_hi_u32_u24: u32_2 |a, b| (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32;

    // VOP2 (f32)
    v_add_f32: f32_2 |a, b| a + b;
    v_sub_f32: f32_2 |a, b| a - b;
    v_subrev_f32: f32_2 |a, b| b - a;
    v_mul_f32: f32_2 |a, b| a * b;
    // DX9 rules: 0 * anything (including inf and NaN) is 0.
    v_mul_legacy_f32: f32_2 |a, b| if a == 0.0 || b == 0.0 { 0.0 } else { a * b };
    // v_mac/v_mad round the product before the add; v_fmac/v_fma do not.
    v_mac_f32: f32_acc |a, b, c| a * b + c;
    v_fmac_f32: f32_acc |a, b, c| a.mul_add(b, c);
    // gfx90a: D.f64 = S0.f64 · S1.f64 + D.f64, fused.
    v_fmac_f64: f64_acc |a, b, c| a.mul_add(b, c);

    // VOP3 (integer)
    v_mul_lo_u32: u32_2 |a, b| a.wrapping_mul(b);
    v_mul_hi_u32: u32_2 |a, b| ((a as u64 * b as u64) >> 32) as u32;
    v_mul_hi_i32: u32_2 |a, b| ((a as i32 as i64 * b as i32 as i64) >> 32) as u32;
    v_add_i32: u32_2c |a, b, sat| if sat { (a as i32).saturating_add(b as i32) as u32 } else { a.wrapping_add(b) };
    v_sub_i32: u32_2c |a, b, sat| if sat { (a as i32).saturating_sub(b as i32) as u32 } else { a.wrapping_sub(b) };
    v_bcnt_u32_b32: u32_2 |a, b| a.count_ones().wrapping_add(b);
    v_bfm_b32: u32_2 |a, b| ((1u64 << (a & 31)) as u32).wrapping_sub(1) << (b & 31);
    v_bfe_u32: u32_3 |a, b, c| (a >> (b & 31)) & ((1u64 << (c & 31)) - 1) as u32;
    v_bfe_i32: u32_3 |a, b, c| bfe_i32(a, b, c);
    v_bfi_b32: u32_3 |a, b, c| (a & b) | (!a & c);
    v_alignbit_b32: u32_3 |a, b, c| ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32;
    v_alignbyte_b32: u32_3 |a, b, c| ((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32;
    v_mad_u32_u24: u32_3 |a, b, c| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c);
    v_mad_i32_i24: u32_3 |a, b, c| ((sext24(a) * sext24(b)) as u32).wrapping_add(c);
    v_min3_i32: u32_3 |a, b, c| (a as i32).min(b as i32).min(c as i32) as u32;
    v_max3_i32: u32_3 |a, b, c| (a as i32).max(b as i32).max(c as i32) as u32;
    v_min3_u32: u32_3 |a, b, c| a.min(b).min(c);
    v_max3_u32: u32_3 |a, b, c| a.max(b).max(c);
    v_med3_i32: u32_3 |a, b, c| {
        let (a, b, c) = (a as i32, b as i32, c as i32);
        a.min(b).max(a.max(b).min(c)) as u32
    };
    v_med3_u32: u32_3 |a, b, c| a.min(b).max(a.max(b).min(c));
    v_sad_u32: u32_3 |a, b, c| a.abs_diff(b).wrapping_add(c);
    v_xad_u32: u32_3 |a, b, c| (a ^ b).wrapping_add(c);
    v_add3_u32: u32_3 |a, b, c| a.wrapping_add(b).wrapping_add(c);
    v_lshl_add_u32: u32_3 |a, b, c| (a << (b & 31)).wrapping_add(c);
    v_add_lshl_u32: u32_3 |a, b, c| a.wrapping_add(b) << (c & 31);
    v_lshl_or_b32: u32_3 |a, b, c| (a << (b & 31)) | c;
    v_and_or_b32: u32_3 |a, b, c| (a & b) | c;
    v_or3_b32: u32_3 |a, b, c| a | b | c;

    // VOP3 (f32)
    v_fma_f32: f32_3 |a, b, c| a.mul_add(b, c);
    v_mad_f32: f32_3 |a, b, c| a * b + c;
    // DX9 multiply (0 times anything, inf and NaN included, is 0), then the add.
    v_mad_legacy_f32: f32_3 |a, b, c| (if a == 0.0 || b == 0.0 { 0.0 } else { a * b }) + c;
    v_div_fixup_f32: f32_3 |a, b, c| fp::div_fixup_f32(a, b, c);

    // VOP3 (f64)
    v_add_f64: f64_2 |a, b| a + b;
    v_mul_f64: f64_2 |a, b| a * b;
    v_fma_f64: f64_3 |a, b, c| a.mul_add(b, c);
    v_div_fixup_f64: f64_3 |a, b, c| fp::div_fixup_f64(a, b, c);

}

semantics! {
    V_MOV_B32 => mov_b32;
    V_NOT_B32 => v_not_b32;
    V_BFREV_B32 => v_bfrev_b32;
    V_FFBH_U32 => v_ffbh_u32;
    V_FFBL_B32 => v_ffbl_b32;
    V_FFBH_I32 => v_ffbh_i32;
    V_CVT_F32_I32 => v_cvt_f32_i32;
    V_CVT_F32_U32 => v_cvt_f32_u32;
    V_CVT_U32_F32 => v_cvt_u32_f32;
    V_CVT_I32_F32 => v_cvt_i32_f32;
    V_CVT_FLR_I32_F32 => v_cvt_flr_i32_f32;
    V_CVT_RPI_I32_F32 => v_cvt_rpi_i32_f32;
    V_CVT_F32_UBYTE0 => v_cvt_f32_ubyte0;
    V_CVT_F32_UBYTE1 => v_cvt_f32_ubyte1;
    V_CVT_F32_UBYTE2 => v_cvt_f32_ubyte2;
    V_CVT_F32_UBYTE3 => v_cvt_f32_ubyte3;
    V_CVT_F16_F32 => v_cvt_f16_f32;
    V_CVT_F32_F16 => v_cvt_f32_f16;
    V_FREXP_EXP_I32_F32 => v_frexp_exp_i32_f32;
    V_FRACT_F32 => v_fract_f32;
    V_TRUNC_F32 => v_trunc_f32;
    V_CEIL_F32 => v_ceil_f32;
    V_RNDNE_F32 => v_rndne_f32;
    V_FLOOR_F32 => v_floor_f32;
    V_EXP_F32 => v_exp_f32;
    V_LOG_F32 => v_log_f32;
    V_RCP_F32 => v_rcp_f32;
    V_RCP_IFLAG_F32 => v_rcp_iflag_f32;
    V_RSQ_F32 => v_rsq_f32;
    V_SQRT_F32 => v_sqrt_f32;
    V_SIN_F32 => v_sin_f32;
    V_COS_F32 => v_cos_f32;
    V_FREXP_MANT_F32 => v_frexp_mant_f32;
    V_FRACT_F64 => v_fract_f64;
    V_TRUNC_F64 => v_trunc_f64;
    V_CEIL_F64 => v_ceil_f64;
    V_RNDNE_F64 => v_rndne_f64;
    V_FLOOR_F64 => v_floor_f64;
    V_RCP_F64 => v_rcp_f64;
    V_RSQ_F64 => v_rsq_f64;
    V_SQRT_F64 => v_sqrt_f64;
    V_FREXP_MANT_F64 => v_frexp_mant_f64;
    V_ADD_U32 => v_add_u32;
    V_SUB_U32 => v_sub_u32;
    V_SUBREV_U32 => v_subrev_u32;
    V_AND_B32 => v_and_b32;
    V_OR_B32 => v_or_b32;
    V_XOR_B32 => v_xor_b32;
    V_XNOR_B32 => v_xnor_b32;
    V_LSHLREV_B32 => v_lshlrev_b32;
    V_LSHRREV_B32 => v_lshrrev_b32;
    V_ASHRREV_I32 => v_ashrrev_i32;
    V_MIN_I32 => v_min_i32;
    V_MAX_I32 => v_max_i32;
    V_MIN_U32 => v_min_u32;
    V_MAX_U32 => v_max_u32;
    V_MUL_I32_I24 => v_mul_i32_i24;
    V_MUL_HI_I32_I24 => v_mul_hi_i32_i24;
    V_MUL_U32_U24 => v_mul_u32_u24;
    V_MUL_HI_U32_U24 => v_mul_hi_u32_u24;
    V_ADD_F32 => v_add_f32;
    V_SUB_F32 => v_sub_f32;
    V_SUBREV_F32 => v_subrev_f32;
    V_MUL_F32 => v_mul_f32;
    V_MUL_LEGACY_F32 => v_mul_legacy_f32;
    V_MAC_F32 => v_mac_f32;
    V_FMAC_F32 => v_fmac_f32;
    V_FMAC_F64 => v_fmac_f64;
    V_MUL_LO_U32 => v_mul_lo_u32;
    V_MUL_HI_U32 => v_mul_hi_u32;
    V_MUL_HI_I32 => v_mul_hi_i32;
    V_ADD_I32 => v_add_i32;
    V_SUB_I32 => v_sub_i32;
    V_BCNT_U32_B32 => v_bcnt_u32_b32;
    V_BFM_B32 => v_bfm_b32;
    V_BFE_U32 => v_bfe_u32;
    V_BFE_I32 => v_bfe_i32;
    V_BFI_B32 => v_bfi_b32;
    V_ALIGNBIT_B32 => v_alignbit_b32;
    V_ALIGNBYTE_B32 => v_alignbyte_b32;
    V_MAD_U32_U24 => v_mad_u32_u24;
    V_MAD_I32_I24 => v_mad_i32_i24;
    V_MIN3_I32 => v_min3_i32;
    V_MAX3_I32 => v_max3_i32;
    V_MIN3_U32 => v_min3_u32;
    V_MAX3_U32 => v_max3_u32;
    V_MED3_I32 => v_med3_i32;
    V_MED3_U32 => v_med3_u32;
    V_SAD_U32 => v_sad_u32;
    V_XAD_U32 => v_xad_u32;
    V_ADD3_U32 => v_add3_u32;
    V_LSHL_ADD_U32 => v_lshl_add_u32;
    V_LSHL_ADD_U64 => v_lshl_add_u64;
    V_ADD_LSHL_U32 => v_add_lshl_u32;
    V_LSHL_OR_B32 => v_lshl_or_b32;
    V_AND_OR_B32 => v_and_or_b32;
    V_OR3_B32 => v_or3_b32;
    V_FMA_F32 => v_fma_f32;
    V_MAD_F32 => v_mad_f32;
    V_MAD_LEGACY_F32 => v_mad_legacy_f32;
    V_DIV_FIXUP_F32 => v_div_fixup_f32;
    V_ADD_F64 => v_add_f64;
    V_MUL_F64 => v_mul_f64;
    V_FMA_F64 => v_fma_f64;
    V_DIV_FIXUP_F64 => v_div_fixup_f64;
    V_LSHLREV_B64 => v_lshlrev_b64;
    V_LSHRREV_B64 => v_lshrrev_b64;
    V_ASHRREV_I64 => v_ashrrev_i64;
    V_NOP => v_nop;
    V_CNDMASK_B32 => v_cndmask_b32;
    V_ADD_CO_U32 => v_add_co_u32;
    V_SUB_CO_U32 => v_sub_co_u32;
    V_SUBREV_CO_U32 => v_subrev_co_u32;
    V_ADDC_CO_U32 => v_addc_co_u32;
    V_SUBB_CO_U32 => v_subb_co_u32;
    V_SUBBREV_CO_U32 => v_subbrev_co_u32;
    V_MADMK_F32 => v_madmk_f32;
    V_MADAK_F32 => v_madak_f32;
    V_FMAMK_F32 => v_fmamk_f32;
    V_FMAAK_F32 => v_fmaak_f32;
    V_MBCNT_LO_U32_B32 => v_mbcnt_lo_u32_b32;
    V_MBCNT_HI_U32_B32 => v_mbcnt_hi_u32_b32;
    V_READFIRSTLANE_B32 => v_readfirstlane_b32;
    V_READLANE_B32 => v_readlane_b32;
    V_WRITELANE_B32 => v_writelane_b32;
    V_SWAP_B32 => v_swap_b32;
    V_MAD_U64_U32 => v_mad_u64_u32;
    V_MAD_I64_I32 => v_mad_i64_i32;
    V_DIV_SCALE_F32 => v_div_scale_f32;
    V_DIV_SCALE_F64 => v_div_scale_f64;
    V_DIV_FMAS_F32 => v_div_fmas_f32;
    V_DIV_FMAS_F64 => v_div_fmas_f64;
    V_LDEXP_F32 => v_ldexp_f32;
    V_LDEXP_F64 => v_ldexp_f64;
    V_CVT_F64_F32 => v_cvt_f64_f32;
    V_CVT_F64_I32 => v_cvt_f64_i32;
    V_CVT_F64_U32 => v_cvt_f64_u32;
    V_CVT_F32_F64 => v_cvt_f32_f64;
    V_CVT_I32_F64 => v_cvt_i32_f64;
    V_CVT_U32_F64 => v_cvt_u32_f64;
    V_FREXP_EXP_I32_F64 => v_frexp_exp_i32_f64;
}

/// V_NOP: nothing.
fn v_nop(_: &mut Cx, _: &Decoded) -> Res {
    Ok(Flow::Continue)
}

/// D.u = VCC[lane] ? S1.u : S0.u (VOP3: the mask is S2). Float modifiers act on the sign bit.
fn v_cndmask_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let m = mask_src(cx, d.src[2]);
    if d.mods.abs | d.mods.neg == 0 {
        // No float modifiers: select straight from the source rows.
        let r = with_rows2(cx, d, false, |a, b| blend(m, a, b));
        write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    let mut a = fetch(cx, d, 0);
    let mut b = fetch(cx, d, 1);
    if d.mods.abs | d.mods.neg != 0 {
        for (i, row) in [&mut a, &mut b].into_iter().enumerate() {
            let abs = if d.mods.abs >> i & 1 != 0 {
                0x7fff_ffff
            } else {
                !0
            };
            let neg = if d.mods.neg >> i & 1 != 0 {
                0x8000_0000
            } else {
                0
            };
            for v in row.iter_mut() {
                *v = (*v & abs) ^ neg;
            }
        }
    }
    write(cx, d, &blend(m, &a, &b));
    Ok(Flow::Continue)
}

/// `b[l]` in the lanes set in `m`, else `a[l]`: a blend by lane mask, not an `if`, which the
/// compiler made a select of addresses and a gather.
#[inline(always)]
fn blend(m: u64, a: &crate::wave::Row, b: &crate::wave::Row) -> crate::wave::Row {
    std::array::from_fn(|l| {
        let pick = 0u32.wrapping_sub((m >> l) as u32 & 1);
        (b[l] & pick) | (a[l] & !pick)
    })
}

// 64-bit shifts: D.u64 = S1.u64 shifted by S0.u[5:0].
fn v_lshlrev_b64(cx: &mut Cx, d: &Decoded) -> Res {
    u64_rev_shift(cx, d, Shift64::Left)
}
fn v_lshrrev_b64(cx: &mut Cx, d: &Decoded) -> Res {
    u64_rev_shift(cx, d, Shift64::Right)
}
fn v_ashrrev_i64(cx: &mut Cx, d: &Decoded) -> Res {
    u64_rev_shift(cx, d, Shift64::RightSigned)
}

// The carry ops give their carry-out as the top bit of a word (`valu::carry`). With two
// operands, a comparison's mask; with a carry-in too, worked out from the top bits of the
// operands and the result with bitwise operations, which vectorise to fewer instructions than
// two additions' comparisons.

/// The carry out of `a + b + c` (`s` the 32-bit sum) in the top bit: both operands' top bits
/// set, or one of them and no top bit in the sum (a carry into bit 31 that went on out).
#[inline(always)]
fn carry_out(a: u32, b: u32, s: u32) -> u32 {
    (a & b) | ((a | b) & !s)
}

/// The borrow out of `a - b - c` (`d` the 32-bit difference) in the top bit: `b`'s top bit set
/// and `a`'s clear, or the two equal and a borrow into bit 31 (the difference's top bit set).
#[inline(always)]
fn borrow_out(a: u32, b: u32, d: u32) -> u32 {
    (!a & b) | (!(a ^ b) & d)
}

/// A carry or borrow flag as a word whose top bit is set with it.
#[inline(always)]
fn flag(c: bool) -> u32 {
    (c as u32).wrapping_neg()
}

/// D.u = S0.u + S1.u; VCC = carry out.
fn v_add_co_u32(cx: &mut Cx, d: &Decoded) -> Res {
    carry(cx, d, |a, b, _| {
        let (s, c) = a.overflowing_add(b);
        (s, flag(c))
    })
}

/// D.u = S0.u - S1.u; VCC = borrow out.
fn v_sub_co_u32(cx: &mut Cx, d: &Decoded) -> Res {
    carry(cx, d, |a, b, _| {
        let (r, c) = a.overflowing_sub(b);
        (r, flag(c))
    })
}

fn v_subrev_co_u32(cx: &mut Cx, d: &Decoded) -> Res {
    carry(cx, d, |a, b, _| {
        let (r, c) = b.overflowing_sub(a);
        (r, flag(c))
    })
}

/// D.u = S0.u + S1.u + VCC; VCC = carry out.
fn v_addc_co_u32(cx: &mut Cx, d: &Decoded) -> Res {
    carry(cx, d, |a, b, c| {
        let s = a.wrapping_add(b).wrapping_add(c);
        (s, carry_out(a, b, s))
    })
}

/// D.u = S0.u - S1.u - VCC; VCC = borrow out.
fn v_subb_co_u32(cx: &mut Cx, d: &Decoded) -> Res {
    carry(cx, d, |a, b, c| {
        let r = a.wrapping_sub(b).wrapping_sub(c);
        (r, borrow_out(a, b, r))
    })
}

fn v_subbrev_co_u32(cx: &mut Cx, d: &Decoded) -> Res {
    carry(cx, d, |a, b, c| {
        let r = b.wrapping_sub(a).wrapping_sub(c);
        (r, borrow_out(b, a, r))
    })
}

/// D.f = S0.f * K + S1.f (K is the literal).
fn v_madmk_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let k = f32::from_bits(d.inst.literal().unwrap_or(0));
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = a[l] * k + b[l];
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// D.f = S0.f * S1.f + K.
fn v_madak_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let k = f32::from_bits(d.inst.literal().unwrap_or(0));
    f32_2(cx, d, |a, b| a * b + k)
}

/// gfx940: D.f = fma(S0.f, K, S1.f), the fused form of v_madmk_f32 (K is the literal).
fn v_fmamk_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let k = f32::from_bits(d.inst.literal().unwrap_or(0));
    f32_2(cx, d, |a, b| a.mul_add(k, b))
}

/// gfx940: D.f = fma(S0.f, S1.f, K), the fused form of v_madak_f32.
fn v_fmaak_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let k = f32::from_bits(d.inst.literal().unwrap_or(0));
    f32_2(cx, d, |a, b| a.mul_add(b, k))
}

/// gfx940: D.u64 = (S0.u64 << S1.u[2:0]) + S2.u64 (an address: base plus scaled index). The
/// ISA takes the shift from three bits and supports 0 to 4; LLVM selects it only for constant
/// shifts of 0 to 4.
fn v_lshl_add_u64(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch64(cx, d, 0);
    let b = fetch(cx, d, 1);
    let c = fetch64(cx, d, 2);
    let r: Row64 = std::array::from_fn(|l| (a[l] << (b[l] & 7)).wrapping_add(c[l]));
    write64(cx, d, &r);
    Ok(Flow::Continue)
}

/// D.u = popcount(S0.u & lanes below this one, of lanes 0–31) + S1.u.
fn v_mbcnt_lo_u32_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let mut r = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let below = if l >= 32 { !0u32 } else { (1u32 << l) - 1 };
        r[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
    }
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// D.u = popcount(S0.u & lanes below this one, of lanes 32–63) + S1.u.
fn v_mbcnt_hi_u32_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let mut r = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let below = if l < 32 {
            0
        } else {
            (1u64 << (l - 32)) as u32 - 1
        };
        r[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
    }
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// SGPR = S0 of the first active lane (lane 0 if EXEC is zero).
fn v_readfirstlane_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let exec = cx.wave.exec();
    let lane = if exec == 0 {
        0
    } else {
        exec.trailing_zeros() as usize
    };
    cx.wave.sgpr[d.sdst as usize & 127] = a[lane];
    Ok(Flow::Continue)
}

/// SGPR = S0 of lane S1[5:0] (regardless of EXEC).
fn v_readlane_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let lane = scalar32(cx, d.src[1]) as usize & 63;
    cx.wave.sgpr[d.sdst as usize & 127] = a[lane];
    Ok(Flow::Continue)
}

/// VGPR[lane S1[5:0]] = S0 (a scalar), regardless of EXEC.
fn v_writelane_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let v = scalar32(cx, d.src[0]);
    let lane = scalar32(cx, d.src[1]) as usize & 63;
    cx.wave.vgpr[d.vdst as usize][lane] = v;
    Ok(Flow::Continue)
}

/// Swaps D and S0 in the active lanes.
fn v_swap_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let crate::exec::program::Src::Vgpr(src) = d.src[0] else {
        return Err(Fault::Guest("v_swap_b32 needs a VGPR source".into()));
    };
    let exec = cx.wave.exec();
    let a = cx.wave.vgpr[src as usize];
    let b = cx.wave.vgpr[d.vdst as usize];
    cx.wave.write_row(src as usize, &b, exec);
    cx.wave.write_row(d.vdst as usize, &a, exec);
    Ok(Flow::Continue)
}

/// {VCC, D.u64} = S0.u32 * S1.u32 + S2.u64.
///
/// (A scalar loop over the active lanes: 64-bit products, adds and unsigned carries are many
/// instructions each in AVX2's lanes, and the vector loop cost several times this one. Integer
/// loops such as collatz's `3x + 1` run it with half the lanes active or fewer.)
fn v_mad_u64_u32(cx: &mut Cx, d: &Decoded) -> Res {
    let dst = d.vdst as usize;
    if d.inst.enc() == gcn_isa::Enc::Native && dst + 1 < cx.wave.vgpr.len().min(VGPRS) {
        let sources = mad_sources(cx, d);
        let exec = cx.wave.exec();
        let n = cx.wave.vgpr.len();
        let Some(rows) = cx.wave.vgpr.rows_mut(0, n) else {
            return Ok(Flow::Continue);
        };
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        let carry = mad_u64_u32_rows(rows, &sources, dst, exec);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
        let carry = mad_u64_u32_in_place(rows, &sources, dst, exec);
        write_sdst_mask(cx, d, carry);
        return Ok(Flow::Continue);
    }
    let (mut ta, mut tb, mut tc) = (
        MaybeUninit::uninit(),
        MaybeUninit::uninit(),
        MaybeUninit::uninit(),
    );
    let a = src_row(cx, d, 0, &mut ta);
    let b = src_row(cx, d, 1, &mut tb);
    let (c_lo, c_hi) = rows64(cx, d, 2, &mut tc);
    let exec = write_mask(cx, d);
    let mut lo = [0u32; WAVE_SIZE];
    let mut hi = [0u32; WAVE_SIZE];
    let mut carry = 0u64;
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        // A 32x32-bit product fits 64 bits; only the add can carry.
        let c = c_lo[l] as u64 | (c_hi[l] as u64) << 32;
        let (s, o) = (a[l] as u64 * b[l] as u64).overflowing_add(c);
        lo[l] = s as u32;
        hi[l] = (s >> 32) as u32;
        carry |= (o as u64) << l;
    }
    cx.wave.write_row(d.vdst as usize, &lo, exec);
    cx.wave.write_row(d.vdst as usize + 1, &hi, exec);
    write_sdst_mask(cx, d, carry);
    Ok(Flow::Continue)
}

/// [`v_mad_u64_u32`]'s sources: each its row (the addend's two), or its value.
#[derive(Clone, Copy)]
struct MadSources {
    a: (Option<usize>, u32),
    b: (Option<usize>, u32),
    c: (Option<(usize, usize)>, u64),
}

fn mad_sources(cx: &Cx, d: &Decoded) -> MadSources {
    let one = |i: usize| match d.src[i] {
        Src::Vgpr(r) => (Some(r as usize), 0),
        s => (None, scalar32(cx, s)),
    };
    MadSources {
        a: one(0),
        b: one(1),
        c: match d.src[2] {
            Src::Vgpr(r) => (Some((r as usize, (r as usize + 1) % VGPRS)), 0),
            s => (None, scalar64(cx, s)),
        },
    }
}

/// [`v_mad_u64_u32`] with its destination pair inside the register file `rows`, on a host with
/// AVX-512 (the carries returned): every lane computed as a vector (64-bit products, adds and unsigned compares are one
/// instruction each there), and the pair merged under EXEC 16 lanes at a time. The lane-by-lane
/// stores of [`mad_u64_u32_in_place`] left the next instruction's whole-vector reads of the
/// pair waiting for them to reach the cache.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
fn mad_u64_u32_rows(rows: &mut [Row], sources: &MadSources, dst: usize, exec: u64) -> u64 {
    use crate::wave::lane_masks::{merge_lanes, sign_bits};
    let MadSources {
        a: (a_row, a),
        b: (b_row, b),
        c: (c_rows, c),
    } = *sources;
    // A VGPR's row (zeros outside the file), or the value in every lane.
    let row = |r: Option<usize>, v: u32| match r {
        Some(r) => rows.get(r).copied().unwrap_or([0; WAVE_SIZE]),
        None => [v; WAVE_SIZE],
    };
    let (a, b) = (row(a_row, a), row(b_row, b));
    let c_lo = row(c_rows.map(|r| r.0), c as u32);
    let c_hi = row(c_rows.map(|r| r.1), (c >> 32) as u32);
    let (mut lo, mut hi, mut over) = ([0u32; WAVE_SIZE], [0u32; WAVE_SIZE], [0u32; WAVE_SIZE]);
    for l in 0..WAVE_SIZE {
        // A 32x32-bit product fits 64 bits; only the add can carry.
        let c = c_lo[l] as u64 | (c_hi[l] as u64) << 32;
        let s = (a[l] as u64 * b[l] as u64).wrapping_add(c);
        lo[l] = s as u32;
        hi[l] = (s >> 32) as u32;
        over[l] = ((s < c) as u32).wrapping_neg();
    }
    merge_lanes(&mut rows[dst], &lo, exec);
    merge_lanes(&mut rows[dst + 1], &hi, exec);
    sign_bits(&over) & exec
}

/// [`v_mad_u64_u32`] with its destination pair inside the register file `rows` (the carries
/// returned): each active lane's
/// sources read as values (a source may be the destination) and its result stored straight
/// into the pair, with no result rows built and then merged under EXEC, which cost as much as
/// the lanes' arithmetic.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx512f"),
    allow(dead_code)
)]
fn mad_u64_u32_in_place(rows: &mut [Row], sources: &MadSources, dst: usize, exec: u64) -> u64 {
    let MadSources {
        a: (a_row, a),
        b: (b_row, b),
        c: (c_rows, c),
    } = *sources;
    // (A row outside the file reads as zeros.)
    let lane = |rows: &[Row], r: usize, l: usize| rows.get(r).map_or(0, |row| row[l]);
    let mut carry = 0u64;
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let x = a_row.map_or(a, |r| lane(rows, r, l)) as u64;
        let y = b_row.map_or(b, |r| lane(rows, r, l)) as u64;
        let z = c_rows.map_or(c, |(lo, hi)| {
            lane(rows, lo, l) as u64 | (lane(rows, hi, l) as u64) << 32
        });
        // A 32x32-bit product fits 64 bits; only the add can carry.
        let (s, o) = (x * y).overflowing_add(z);
        rows[dst][l] = s as u32;
        rows[dst + 1][l] = (s >> 32) as u32;
        carry |= (o as u64) << l;
    }
    carry
}

/// {VCC, D.i64} = S0.i32 * S1.i32 + S2.i64; VCC = signed overflow.
fn v_mad_i64_i32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let c = fetch64(cx, d, 2);
    let exec = write_mask(cx, d);
    let mut r = [0u64; WAVE_SIZE];
    let mut carry = 0u64;
    for l in 0..WAVE_SIZE {
        let s = a[l] as i32 as i128 * b[l] as i32 as i128 + c[l] as i64 as i128;
        r[l] = s as u64;
        carry |= ((s != s as i64 as i128) as u64) << l;
    }
    write64(cx, d, &r);
    write_sdst_mask(cx, d, carry & exec);
    Ok(Flow::Continue)
}

/// {VCC, D.f} = division pre-scale of S0 (S1 denominator, S2 numerator).
fn v_div_scale_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let c = fetch_f32(cx, d, 2);
    let exec = write_mask(cx, d);
    let mut r = [0u32; WAVE_SIZE];
    let mut vcc = 0u64;
    for l in 0..WAVE_SIZE {
        let (v, flag) = fp::div_scale_f32(a[l], b[l], c[l]);
        r[l] = v.to_bits();
        vcc |= (flag as u64) << l;
    }
    write(cx, d, &r);
    write_sdst_mask(cx, d, vcc & exec);
    Ok(Flow::Continue)
}

fn v_div_scale_f64(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch_f64(cx, d, 1);
    let c = fetch_f64(cx, d, 2);
    let exec = write_mask(cx, d);
    let mut r = [0u64; WAVE_SIZE];
    let mut vcc = 0u64;
    for l in 0..WAVE_SIZE {
        let (v, flag) = fp::div_scale_f64(a[l], b[l], c[l]);
        r[l] = v.to_bits();
        vcc |= (flag as u64) << l;
    }
    write64(cx, d, &r);
    write_sdst_mask(cx, d, vcc & exec);
    Ok(Flow::Continue)
}

/// D.f = fma(S0, S1, S2), rescaled where VCC is set.
fn v_div_fmas_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let vcc = cx.wave.vcc();
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let c = fetch_f32(cx, d, 2);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = fp::div_fmas_f32(a[l], b[l], c[l], vcc >> l & 1 != 0);
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_div_fmas_f64(cx: &mut Cx, d: &Decoded) -> Res {
    let vcc = cx.wave.vcc();
    let a = fetch_f64(cx, d, 0);
    let b = fetch_f64(cx, d, 1);
    let c = fetch_f64(cx, d, 2);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = fp::div_fmas_f64(a[l], b[l], c[l], vcc >> l & 1 != 0);
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

/// D.f = S0.f * 2^S1.i.
fn v_ldexp_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch(cx, d, 1);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = fp::ldexp_f32(a[l], b[l] as i32);
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// D.d = S0.d * 2^S1.i.
fn v_ldexp_f64(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch(cx, d, 1);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = fp::ldexp_f64(a[l], b[l] as i32);
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

/// A 32-bit source converted to a 64-bit result.
fn widen(cx: &mut Cx, d: &Decoded, f: impl Fn(u32) -> f64) -> Res {
    let a = fetch(cx, d, 0);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l]);
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_cvt_f64_f32(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f32(cx, d, 0);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = a[l] as f64;
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_cvt_f64_i32(cx: &mut Cx, d: &Decoded) -> Res {
    widen(cx, d, |a| a as i32 as f64)
}

fn v_cvt_f64_u32(cx: &mut Cx, d: &Decoded) -> Res {
    widen(cx, d, |a| a as f64)
}

/// A 64-bit float source converted to a 32-bit result.
fn narrow(cx: &mut Cx, d: &Decoded, f: impl Fn(f64) -> u32) -> Res {
    let a = fetch_f64(cx, d, 0);
    let mut r = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l]);
    }
    write(cx, d, &r);
    Ok(Flow::Continue)
}

fn v_cvt_f32_f64(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch_f64(cx, d, 0);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = a[l] as f32;
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

fn v_cvt_i32_f64(cx: &mut Cx, d: &Decoded) -> Res {
    narrow(cx, d, |a| a as i32 as u32)
}

fn v_cvt_u32_f64(cx: &mut Cx, d: &Decoded) -> Res {
    narrow(cx, d, |a| a as u32)
}

fn v_frexp_exp_i32_f64(cx: &mut Cx, d: &Decoded) -> Res {
    narrow(cx, d, |a| fp::frexp_exp_f64(a) as u32)
}

#[cfg(test)]
mod tests {
    use crate::exec::program::Program;
    use crate::exec::{Cx, DispatchEnv};
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::{RegFile, Wave, WAVE_SIZE};
    use gcn_isa::{assemble, Target};

    /// The carry ops' subtracts against lane-by-lane arithmetic, with a scalar or constant on
    /// either side (each kind of source has its own lane loop), borrow in from VCC or an SGPR
    /// pair and out to either, under a random EXEC.
    #[test]
    fn subtracts_with_borrow_take_scalar_sources_in_order() {
        // (text, a, b, borrow in: none / VCC / s[12:13], destination of the borrow out)
        let cases = [
            ("v_sub_co_u32_e32 v2, vcc, s0, v1", "s0", "v1", 0, 106),
            ("v_sub_co_u32_e64 v2, s[10:11], v1, 5", "v1", "5", 0, 10),
            ("v_subrev_co_u32_e32 v2, vcc, s0, v1", "v1", "s0", 0, 106),
            ("v_subb_co_u32_e32 v2, vcc, 7, v1, vcc", "7", "v1", 1, 106),
            (
                "v_subb_co_u32_e64 v2, s[10:11], v1, s0, s[12:13]",
                "v1",
                "s0",
                2,
                10,
            ),
            ("v_sub_co_u32_e64 v2, s[10:11], s0, 9", "s0", "9", 0, 10),
        ];
        let text: Vec<&str> = cases.iter().map(|c| c.0).collect();
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let (mut mem, mut lds, env) = (Memory::default(), Lds::new(0), DispatchEnv::default());
        let mut rng = crate::rng::Rng::new(0x6c62_272e_07bb_0142);
        let mut next = move || rng.next_u64();
        for round in 0..120 {
            let (text, a, b, borrow_in, out) = cases[round % cases.len()];
            let d = &program.insts[round % cases.len()];
            let mut w = Wave::new(0);
            for l in 0..WAVE_SIZE {
                w.vgpr[1][l] = (next() % 16) as u32;
                w.vgpr[2][l] = next() as u32;
            }
            w.sgpr[0] = (next() % 16) as u32;
            w.set_vcc(next());
            w.set_pair(12, next());
            let exec = match round % 2 {
                0 => u64::MAX,
                _ => next(),
            };
            w.set_exec(exec);
            let before = w.clone();
            let value = |l: usize, src: &str| -> u32 {
                match src {
                    "v1" => before.vgpr[1][l],
                    "s0" => before.sgpr[0],
                    constant => constant.parse().unwrap(),
                }
            };
            let mut cx = Cx {
                wave: &mut w,
                mem: &mut mem,
                lds: &mut lds,
                program: &program,
                env: &env,
            };
            crate::exec::issue::execute(&mut cx, d).unwrap();
            let mut borrows = 0u64;
            for l in 0..WAVE_SIZE {
                if exec >> l & 1 == 0 {
                    assert_eq!(w.vgpr[2][l], before.vgpr[2][l], "{text} lane {l}");
                    continue;
                }
                let cin = match borrow_in {
                    0 => 0,
                    1 => before.vcc() >> l & 1,
                    _ => before.pair(12) >> l & 1,
                };
                let want = value(l, a) as i64 - value(l, b) as i64 - cin as i64;
                assert_eq!(w.vgpr[2][l], want as u32, "{text} lane {l}");
                borrows |= ((want < 0) as u64) << l;
            }
            assert_eq!(w.pair(out), borrows, "{text}: borrow out");
        }
    }

    /// `v_mad_u64_u32` against lane-by-lane arithmetic: sources that are the destination,
    /// SGPRs and constants, the carry out of the add, lanes outside EXEC left as they were,
    /// and a destination pair reaching past the wave's file (the general path).
    #[test]
    fn mad_u64_u32_matches_lane_arithmetic() {
        // (text, destination, the carry's SGPR pair)
        let cases = [
            ("v_mad_u64_u32 v[2:3], s[10:11], v2, 3, 1", 2, 10),
            ("v_mad_u64_u32 v[0:1], vcc, v4, v5, v[0:1]", 0, 106),
            ("v_mad_u64_u32 v[4:5], s[12:13], s6, v5, s[8:9]", 4, 12),
            ("v_mad_u64_u32 v[6:7], s[12:13], v1, v0, v[2:3]", 6, 12),
            ("v_mad_u64_u32 v[7:8], s[12:13], v1, v0, v[2:3]", 7, 12),
        ];
        let text: Vec<&str> = cases.iter().map(|c| c.0).collect();
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let (mut mem, mut lds, env) = (Memory::default(), Lds::new(0), DispatchEnv::default());
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        let mut carries = 0;
        for round in 0..200 {
            let (text, dst, carry_at) = cases[round % cases.len()];
            let d = &program.insts[round % cases.len()];
            // Eight VGPRs: v[7:8] has its second register outside the file.
            let mut w = Wave::with_file(0, RegFile::vgprs_only(8));
            for r in 0..8 {
                for l in 0..WAVE_SIZE {
                    // Large values now and then, for carries out of the add.
                    w.vgpr[r][l] = match next() % 3 {
                        0 => u32::MAX - (next() % 4) as u32,
                        _ => next() as u32,
                    };
                }
            }
            w.sgpr[6] = next() as u32;
            w.set_pair(8, next() | 0xffff_0000_0000_0000);
            let exec = match round % 3 {
                0 => u64::MAX,
                _ => next(),
            };
            w.set_exec(exec);
            let before = w.clone();
            let value = |l: usize, src: &str| -> u64 {
                let v = |r: usize| before.vgpr[r][l] as u64;
                match src {
                    "v2" => v(2),
                    "v4" => v(4),
                    "v5" => v(5),
                    "v1" => v(1),
                    "v0" => v(0),
                    "3" => 3,
                    "1" => 1,
                    "s6" => before.sgpr[6] as u64,
                    "s[8:9]" => before.pair(8),
                    "v[0:1]" => v(0) | v(1) << 32,
                    "v[2:3]" => v(2) | v(3) << 32,
                    other => panic!("{other}"),
                }
            };
            let ops: Vec<&str> = text.split(", ").skip(2).collect();
            let mut cx = Cx {
                wave: &mut w,
                mem: &mut mem,
                lds: &mut lds,
                program: &program,
                env: &env,
            };
            crate::exec::issue::execute(&mut cx, d).unwrap();
            let mut carry = 0u64;
            for l in 0..WAVE_SIZE {
                let (lo, hi) = (w.vgpr[dst][l], w.vgpr[dst + 1][l]);
                if exec >> l & 1 == 0 {
                    assert_eq!(lo, before.vgpr[dst][l], "{text} lane {l}");
                    assert_eq!(hi, before.vgpr[dst + 1][l], "{text} lane {l}");
                    continue;
                }
                let (s, o) =
                    (value(l, ops[0]) * value(l, ops[1])).overflowing_add(value(l, ops[2]));
                carry |= (o as u64) << l;
                assert_eq!(lo, s as u32, "{text} lane {l}");
                // (A register outside the file reads as zero.)
                if dst + 1 < 8 {
                    assert_eq!(hi, (s >> 32) as u32, "{text} lane {l}");
                }
            }
            assert_eq!(w.pair(carry_at), carry, "{text}: carry");
            carries += carry.count_ones();
        }
        // The adds of a 64-bit register pair carried out, so the carry was compared too.
        assert!(carries > 0);
    }
}
