//! f16 and i16/u16 VALU ops: results checked against hand-worked IEEE binary16 values (bit
//! patterns), including NaN, ±0, denormals, overflow to inf, ties, shifts ≥ width, saturation,
//! op_sel and the gfx9 rules for the other half of the destination.

mod exec_common;
use exec_common::{cyc, h, run};

#[test]
fn add_f16_edges_and_zeroed_high_half() {
    let w = run("v_add_f16_e32 v2, v0, v1", |w| {
        // 1 + 2^-10; max + max (overflow); NaN + 1; -0 + -0; denormal + denormal.
        w.vgpr[0] = cyc(&[0x3c00, 0x7bff, 0x7e00, 0x8000, 0x0001]);
        w.vgpr[1] = cyc(&[0x1400, 0x7bff, 0x3c00, 0x8000, 0x0001]);
        w.vgpr[2] = [0xdead_beef; 64];
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0x3c01);
        assert_eq!(w.vgpr[2][1], 0x7c00); // +inf
        assert_eq!(w.vgpr[2][2] & 0x7e00, 0x7e00); // quiet NaN, high half zero
        assert!(w.vgpr[2][2] <= 0xffff);
        assert_eq!(w.vgpr[2][3], 0x8000); // -0 + -0 = -0
        assert_eq!(w.vgpr[2][4], 0x0002); // denormals kept (MODE)
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn f16_denormals_flush_when_mode_says_so() {
    let w = run("v_add_f16_e32 v2, v0, v1\nv_mul_f16_e32 v3, v0, v4", |w| {
        w.mode = 0; // FP_DENORM = 0: flush f16/f64 denormals in and out
        w.vgpr[0] = [0x0001; 64];
        w.vgpr[1] = [0x0001; 64];
        w.vgpr[4] = [0x3800; 64]; // 0.5
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0);
        assert_eq!(w.vgpr[3][0], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn mul_f16_modifiers_clamp_and_omod() {
    let w = run(
        "v_mul_f16_e64 v2, -v0, |v1|\nv_mul_f16_e64 v3, v0, v1 clamp\nv_mul_f16_e64 v4, v0, v1 mul:4",
        |w| {
            w.vgpr[0] = [h(1.5); 64];
            w.vgpr[1] = [h(-2.0); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], h(-3.0));
        assert_eq!(w.vgpr[3][0], h(0.0)); // -3 clamped to [0, 1]
        assert_eq!(w.vgpr[4][0], h(-12.0));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn fma_rounds_once_mad_twice() {
    // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20; minus (1 + 2^-9) leaves 2^-20 = f16 denormal 0x0010,
    // which the fused op keeps and the separately rounded product loses.
    let w = run(
        "v_fma_f16 v3, v0, v0, v1\nv_mad_f16 v4, v0, v0, v1\nv_mac_f16_e32 v5, v0, v0",
        |w| {
            w.vgpr[0] = [0x3c01; 64];
            w.vgpr[1] = [0xbc02; 64];
            w.vgpr[3] = [0xabcd_0000; 64];
            w.vgpr[4] = [0x1234_0000; 64];
            w.vgpr[5] = [0x5555_bc02; 64]; // accumulator in the low half
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // v_fma_f16 / v_mad_f16 (op_sel rows) keep the high half on gfx9.
        assert_eq!(w.vgpr[3][0], 0xabcd_0010);
        assert_eq!(w.vgpr[4][0], 0x1234_0000);
        assert_eq!(w.vgpr[5][0], 0x5555_0000);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn op_sel_reads_and_writes_high_halves() {
    let w = run(
        "v_fma_f16 v3, v0, v1, v2 op_sel:[1,0,1,1]\nv_max3_i16 v4, v0, v1, v2 op_sel:[1,1,0,0]\nv_mad_u32_u16 v5, v0, v1, v2 op_sel:[1,1,0,0]",
        |w| {
            w.vgpr[0] = [(h(3.0) << 16) | h(100.0); 64];
            w.vgpr[1] = [(0xfff0 << 16) | h(2.0); 64];
            w.vgpr[2] = [(h(0.5) << 16) | 7; 64];
            w.vgpr[3] = [0x0000_1111; 64];
            w.vgpr[4] = [0x2222_0000; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // 3 * 2 + 0.5 into the high half, low half kept.
        assert_eq!(w.vgpr[3][0], (h(6.5) << 16) | 0x1111);
        // max(0x4200 (3.0 bits as i16), -16, 7) = 0x4200, low half written, high kept.
        assert_eq!(w.vgpr[4][0], 0x2222_4200);
        // 0x4200 * 0xfff0 + S2 (full 32 bits).
        let s2 = (h(0.5) << 16) | 7;
        assert_eq!(w.vgpr[5][0], (0x4200u32 * 0xfff0).wrapping_add(s2));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn conversions_f16_integers() {
    let w = run(
        "v_cvt_f16_u16_e32 v2, v0\nv_cvt_u16_f16_e32 v3, v1\nv_cvt_i16_f16_e32 v4, v1\nv_cvt_f16_i16_e32 v5, v0",
        |w| {
            w.vgpr[0] = cyc(&[65535, 2049, 2051, 0x8000]);
            // -1.5, NaN, 65504, -inf
            w.vgpr[1] = cyc(&[0xbe00, 0x7e00, 0x7bff, 0xfc00]);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0x7c00); // 65535 rounds past the largest f16: inf
        assert_eq!(w.vgpr[2][1], h(2048.0)); // tie to even
        assert_eq!(w.vgpr[2][2], h(2052.0)); // tie to even (upwards)
        assert_eq!(w.vgpr[2][3], h(32768.0));
        assert_eq!(w.vgpr[5][3], h(-32768.0));
        assert_eq!(w.vgpr[3][0], 0); // negative saturates to 0
        assert_eq!(w.vgpr[3][1], 0); // NaN -> 0
        assert_eq!(w.vgpr[3][2], 65504);
        assert_eq!(w.vgpr[4][0], 0xffff); // -1
        assert_eq!(w.vgpr[4][2], 0x7fff); // saturates
        assert_eq!(w.vgpr[4][3], 0x8000); // -inf -> -32768
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn rounding_fract_ldexp_frexp_f16() {
    let w = run(
        "v_rndne_f16_e32 v2, v0\nv_fract_f16_e32 v3, v1\nv_ldexp_f16_e32 v4, v5, v6\nv_frexp_exp_i16_f16_e32 v7, v8\nv_frexp_mant_f16_e32 v9, v8\nv_floor_f16_e32 v10, v0\nv_ceil_f16_e32 v11, v0",
        |w| {
            w.vgpr[0] = cyc(&[h(2.5), h(3.5), h(-2.5), 0x8000]);
            w.vgpr[1] = cyc(&[0x8001, h(-0.25), h(5.75), 0x7c00]);
            w.vgpr[5] = cyc(&[h(1.0), h(1.0), h(1.5), h(-3.0)]);
            w.vgpr[6] = cyc(&[16, 0xffe8, 0xffe7, 0x10002]); // 16, -24, -25, 2 (low 16 bits)
            w.vgpr[8] = cyc(&[h(8.0), 0x0001, h(-0.75), 0x7c00]);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(&w.vgpr[2][..4], &[h(2.0), h(4.0), h(-2.0), 0x8000]);
        // fract(-2^-24) stays below 1.0: 0x3bff; fract(-0.25) = 0.75; inf -> NaN.
        assert_eq!(&w.vgpr[3][..3], &[0x3bff, h(0.75), h(0.75)]);
        assert_eq!(w.vgpr[3][3] & 0x7c00, 0x7c00);
        assert_ne!(w.vgpr[3][3] & 0x3ff, 0);
        // 2^16 overflows; 2^-24 is the smallest denormal; 1.5 * 2^-25 = 0.75 ulp rounds up.
        assert_eq!(&w.vgpr[4][..4], &[0x7c00, 0x0001, 0x0001, h(-12.0)]);
        assert_eq!(&w.vgpr[7][..4], &[4, (-23i16) as u16 as u32, 0, 0]);
        assert_eq!(&w.vgpr[9][..3], &[h(0.5), h(0.5), h(-0.75)]);
        assert_eq!(&w.vgpr[10][..3], &[h(2.0), h(3.0), h(-3.0)]);
        assert_eq!(&w.vgpr[11][..3], &[h(3.0), h(4.0), h(-2.0)]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn min_max_med3_f16_nan_and_zeros() {
    let w = run(
        "v_max_f16_e32 v2, v0, v1\nv_min_f16_e32 v3, v0, v1\nv_med3_f16 v4, v0, v1, v5",
        |w| {
            w.vgpr[0] = cyc(&[0x7e00, 0x0000, h(1.0)]);
            w.vgpr[1] = cyc(&[h(2.0), 0x8000, h(3.0)]);
            w.vgpr[5] = cyc(&[h(0.0), h(0.0), h(2.0)]);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], h(2.0)); // NaN loses
        assert_eq!(w.vgpr[2][1], 0x0000); // max(+0, -0) = +0
        assert_eq!(w.vgpr[3][1], 0x8000); // min(+0, -0) = -0
        assert_eq!(w.vgpr[4][2], h(2.0));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sixteen_bit_integer_ops_wrap_shift_and_saturate() {
    let w = run(
        "v_add_u16_e32 v2, v0, v1\nv_add_u16_e64 v3, v0, v1 clamp\nv_lshlrev_b16_e32 v4, 17, v0\nv_ashrrev_i16_e32 v5, 15, v6\nv_sub_i16 v7, v6, 1 clamp\nv_sub_u16_e64 v8, 0, v1 clamp\nv_mul_lo_u16_e32 v9, v0, v0\nv_lshrrev_b16_e32 v10, 16, v0",
        |w| {
            w.vgpr[0] = [0xffff; 64];
            w.vgpr[1] = [1; 64];
            w.vgpr[6] = [0x8000; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0); // wraps
        assert_eq!(w.vgpr[3][0], 0xffff); // saturates
        assert_eq!(w.vgpr[4][0], 0xfffe); // 17 & 15 = 1
        assert_eq!(w.vgpr[5][0], 0xffff);
        assert_eq!(w.vgpr[7][0], 0x8000); // -32768 - 1 saturates
        assert_eq!(w.vgpr[8][0], 0); // 0 - 1 saturates at 0
        assert_eq!(w.vgpr[9][0], 1); // 0xffff^2 mod 2^16
        assert_eq!(w.vgpr[10][0], 0xffff); // 16 & 15 = 0
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn packing_and_normalising() {
    let w = run(
        "v_pack_b32_f16 v2, -v0, v1\nv_cvt_pknorm_i16_f16 v3, v0, v1\nv_cvt_pknorm_u16_f16 v4, v0, v1\nv_sat_pk_u8_i16_e32 v5, v6\nv_cvt_norm_i16_f16_e32 v7, v8\nv_cvt_norm_u16_f16_e32 v9, v8",
        |w| {
            w.vgpr[0] = [h(0.5); 64];
            w.vgpr[1] = [h(-2.0); 64];
            w.vgpr[6] = [0xff80_0150; 64];
            w.vgpr[8] = cyc(&[0x7e00, h(-1.0), h(0.25)]);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], h(-2.0) << 16 | h(-0.5));
        // 0.5 * 32767 = 16383.5 -> 16384 (ties to even); -2 clamps to -1 -> -32767.
        assert_eq!(w.vgpr[3][0], 0x8001 << 16 | 0x4000);
        // 0.5 * 65535 = 32767.5 -> 32768; -2 clamps to 0.
        assert_eq!(w.vgpr[4][0], 0x8000);
        // lo 0x0150 = 336 -> 255, hi 0xff80 = -128 -> 0.
        assert_eq!(w.vgpr[5][0], 0x00ff);
        assert_eq!(&w.vgpr[7][..3], &[0, 0x8001, 8192]); // 0.25 * 32767 = 8191.75
        assert_eq!(&w.vgpr[9][..3], &[0, 0, 16384]); // 0.25 * 65535 = 16383.75
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn class_f16_and_sdwa_high_word() {
    let w = run(
        "v_cmp_class_f16_e64 s[0:1], v0, v1\nv_add_f16_sdwa v2, v3, v4 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0",
        |w| {
            // +inf (bit 9), +denormal (bit 7), qNaN (bit 1), sNaN (bit 0), -0 (bit 5)
            w.vgpr[0] = cyc(&[0x7c00, 0x0001, 0xfe00, 0x7d00, 0x8000]);
            w.vgpr[1] = cyc(&[1 << 9, 1 << 7, 1 << 1, 1 << 0, 1 << 6]);
            w.vgpr[3] = [(h(1.5) << 16) | 0xffff; 64];
            w.vgpr[4] = [h(2.0); 64];
            w.vgpr[2] = [0x0000_4321; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // Lanes 0-3 match; lane 4 (-0 tested against +0's bit) does not; the pattern repeats by 5.
        let expect: u64 = (0..64).filter(|l| l % 5 != 4).map(|l| 1u64 << l).sum();
        assert_eq!(w.pair(0), expect);
        assert_eq!(w.vgpr[2][0], (h(3.5) << 16) | 0x4321);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn transcendental_f16_special_values() {
    let w = run(
        "v_rcp_f16_e32 v2, v0\nv_sqrt_f16_e32 v3, v0\nv_rsq_f16_e32 v4, v0\nv_exp_f16_e32 v5, v0\nv_log_f16_e32 v6, v0\nv_sin_f16_e32 v7, v1\nv_cos_f16_e32 v8, v1",
        |w| {
            w.vgpr[0] = cyc(&[h(4.0), 0x8000, 0x7c00, h(-1.0)]);
            w.vgpr[1] = cyc(&[h(0.25), h(0.5), 0, h(-0.25)]);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(&w.vgpr[2][..3], &[h(0.25), 0xfc00, 0]); // 1/-0 = -inf, 1/inf = +0
        assert_eq!(&w.vgpr[3][..3], &[h(2.0), 0x8000, 0x7c00]);
        assert_eq!(w.vgpr[4][0], h(0.5));
        assert_eq!(w.vgpr[4][1], 0xfc00); // rsq(-0) = -inf
        assert_eq!(&w.vgpr[5][..3], &[h(16.0), h(1.0), 0x7c00]);
        assert_eq!(&w.vgpr[6][..3], &[h(2.0), 0xfc00, 0x7c00]); // log2(-0) = -inf
        assert_eq!(w.vgpr[6][3] & 0x7e00, 0x7e00); // log2(-1) = NaN
                                                   // sin/cos take revolutions: sin(0.25 rev) = 1, cos(0) = 1, sin(-0.25) = -1.
        assert_eq!(w.vgpr[7][0], h(1.0));
        assert_eq!(w.vgpr[7][3], h(-1.0));
        assert_eq!(w.vgpr[8][2], h(1.0));
        assert_eq!(w.vgpr[8][1], h(-1.0));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn vop3_inline_float_constants_are_f16_in_f16_operands() {
    // A VOP3-encoded f16 operand takes an inline float constant as its f16 value (2.0 is 0x4000),
    // not the low half of the f32 bits (0x4000_0000 -> 0.0). The first line is rocPRIM's
    // block_adjacent_difference test_op, (b + b) - a, as hipcc emits it (D2060007 8405E900).
    let w = run(
        "v_fma_f16 v7, v0, 2.0, -v1
         v_add_f16_e64 v2, v0, -4.0
         v_cvt_f32_f16_e64 v3, 0.5
         v_cvt_f16_f32_e64 v4, 4.0
         v_cmp_gt_f16_e64 s[2:3], 4.0, v0
         v_ldexp_f16_e64 v8, 0.5, 2
         v_fma_f16 v10, v0, 0.15915494, 0",
        |w| {
            w.vgpr[0] = [0x5555_0000 | h(3.0); 64];
            w.vgpr[1] = [h(1.0); 64];
            w.vgpr[7] = [0xdead_0000; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[7][0], 0xdead_0000 | h(5.0)); // 3 * 2 - 1, high half kept
        assert_eq!(w.vgpr[2][0], h(-1.0));
        assert_eq!(w.vgpr[3][0], 0.5f32.to_bits());
        assert_eq!(w.vgpr[4][0], h(4.0)); // an f32 source keeps the f32 constant
        assert_eq!(w.sgpr[2], u32::MAX); // 4 > 3 in every lane
        assert_eq!(w.vgpr[8][0], h(2.0));
        assert_eq!(w.vgpr[10][0], h(3.0 * 0.159_179_69)); // 1/(2π) as f16 0x3118
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
