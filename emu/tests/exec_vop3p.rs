//! VOP3P: packed 16-bit math with op_sel / op_sel_hi / neg_lo / neg_hi and clamp, the
//! mixed-precision mix ops (gfx900 mad_mix, gfx906 fma_mix) and the gfx906 dot products.
//! Expected values are worked out by hand from the ISA definitions.

mod exec_common;
use exec_common::{cyc, h, run, run_code, run_with};
use gcn_isa::Target;
use gcnemu::memory::Memory;

fn pk(hi: f32, lo: f32) -> u32 {
    h(hi) << 16 | h(lo)
}

#[test]
fn pk_add_f16_lanes_overflow_and_inline_constants() {
    let w = run(
        "v_pk_add_f16 v2, v0, v1\nv_pk_add_f16 v3, v0, 1.0 op_sel_hi:[1,0]\nv_pk_add_f16 v4, v0, 1.0",
        |w| {
            w.vgpr[0] = [pk(2.0, 1.0); 64];
            w.vgpr[1] = [0x7bff << 16 | h(-1.0); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // 65504 + 2 rounds back to 65504 (ulp 32); 1 + -1 = +0.
        assert_eq!(w.vgpr[2][0], 0x7bff << 16);
        // The inline constant is f16 1.0 in bits [15:0] and zero above: op_sel_hi:[1,0] makes the
        // high lane read the low half too; the default reads the zero high half.
        assert_eq!(w.vgpr[3][0], pk(3.0, 2.0));
        assert_eq!(w.vgpr[4][0], pk(2.0, 2.0));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn pk_mul_fma_neg_lo_neg_hi_op_sel_and_clamp() {
    let w = run(
        "v_pk_mul_f16 v2, v0, v1 neg_lo:[1,0] neg_hi:[0,1]\nv_pk_mul_f16 v3, v0, v1 op_sel:[1,0] op_sel_hi:[0,1]\nv_pk_fma_f16 v4, v0, v1, v5 clamp",
        |w| {
            w.vgpr[0] = [pk(3.0, 0.5); 64];
            w.vgpr[1] = [pk(-2.0, 4.0); 64];
            w.vgpr[5] = [pk(0.25, -3.0); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // lo: -(0.5) * 4 = -2; hi: 3 * -(-2) = 6.
        assert_eq!(w.vgpr[2][0], pk(6.0, -2.0));
        // Swapped halves of src0: lo = 3 * 4, hi = 0.5 * -2.
        assert_eq!(w.vgpr[3][0], pk(-1.0, 12.0));
        // lo: 0.5*4 - 3 = -1 -> 0; hi: 3*-2 + 0.25 = -5.75 -> 0 ... clamp to [0, 1].
        assert_eq!(w.vgpr[4][0], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run("v_pk_fma_f16 v4, v0, v1, v5 clamp", |w| {
        w.vgpr[0] = [pk(0.5, 0.5); 64];
        w.vgpr[1] = [pk(0.5, 4.0); 64];
        w.vgpr[5] = [pk(0.25, 0.0); 64];
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[4][0], pk(0.5, 1.0));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn pk_min_max_f16_nan_and_zero() {
    let w = run("v_pk_max_f16 v2, v0, v1\nv_pk_min_f16 v3, v0, v1", |w| {
        w.vgpr[0] = [0x7e00 << 16; 64]; // hi NaN, lo +0
        w.vgpr[1] = [h(1.0) << 16 | 0x8000; 64]; // hi 1.0, lo -0
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], h(1.0) << 16); // NaN loses; max(+0, -0) = +0
        assert_eq!(w.vgpr[3][0], h(1.0) << 16 | 0x8000);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn pk_integer_ops_wrap_saturate_and_shift() {
    let w = run(
        "v_pk_add_u16 v2, v0, v1\nv_pk_add_u16 v3, v0, v1 clamp\nv_pk_sub_i16 v4, v5, v1 clamp\nv_pk_lshlrev_b16 v6, v7, v0\nv_pk_ashrrev_i16 v8, v7, v5\nv_pk_mad_u16 v9, v0, v0, v1\nv_pk_max_i16 v10, v0, v1\nv_pk_mul_lo_u16 v11, v0, v0\nv_pk_min_u16 v12, v0, v1",
        |w| {
            w.vgpr[0] = [0xffff_0003; 64];
            w.vgpr[1] = [0x0001_0002; 64];
            w.vgpr[5] = [0x8000_7fff; 64];
            w.vgpr[7] = [0x0011_000f; 64]; // shift amounts 17 (-> 1) and 15
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0x0000_0005); // 0xffff + 1 wraps
        assert_eq!(w.vgpr[3][0], 0xffff_0005); // saturates
                                               // hi: -32768 - 1 -> -32768; lo: 32767 - 2 = 32765.
        assert_eq!(w.vgpr[4][0], 0x8000_7ffd);
        // hi: 0xffff << 1; lo: 3 << 15.
        assert_eq!(w.vgpr[6][0], 0xfffe_8000);
        // hi: 0x8000 >> 1 (arith); lo: 0x7fff >> 15 = 0.
        assert_eq!(w.vgpr[8][0], 0xc000_0000);
        // hi: 0xffff^2 + 1 = 0xfffe0002 -> 0x0002; lo: 9 + 2 = 11.
        assert_eq!(w.vgpr[9][0], 0x0002_000b);
        assert_eq!(w.vgpr[10][0], 0x0001_0003); // max(-1, 1), max(3, 2)
        assert_eq!(w.vgpr[11][0], 0x0001_0009);
        assert_eq!(w.vgpr[12][0], 0x0001_0002);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn fma_mix_selects_f16_or_f32_sources() {
    let w = run(
        "v_fma_mix_f32 v2, v0, v1, v3 op_sel_hi:[1,1,0]\nv_fma_mix_f32 v4, v0, v1, v3 op_sel:[1,0,0] op_sel_hi:[1,1,0]\nv_fma_mixlo_f16 v6, v0, v1, v3 op_sel_hi:[1,1,0]\nv_fma_mixhi_f16 v7, v0, v1, v3 op_sel_hi:[1,1,0]",
        |w| {
            w.vgpr[0] = [pk(3.0, 1.5); 64];
            w.vgpr[1] = [pk(-4.0, 2.0); 64];
            w.vgpr[3] = [0.25f32.to_bits(); 64];
            w.vgpr[6] = [0xaaaa_0000; 64];
            w.vgpr[7] = [0x0000_5555; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(f32::from_bits(w.vgpr[2][0]), 1.5 * 2.0 + 0.25);
        assert_eq!(f32::from_bits(w.vgpr[4][0]), 3.0 * 2.0 + 0.25);
        assert_eq!(w.vgpr[6][0], 0xaaaa_0000 | h(3.25));
        assert_eq!(w.vgpr[7][0], h(3.25) << 16 | 0x5555);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn fma_mix_is_fused_mad_mix_is_not() {
    // (1 + 2^-12) as f32 sources squared: the 2^-24 term survives a fused add of -1 only.
    let x = 1.0f32 + 2f32.powi(-12);
    let asm = |op: &str| format!("{op} v2, v0, v0, v1");
    let setup = |w: &mut gcnemu::wave::Wave| {
        w.vgpr[0] = [x.to_bits(); 64];
        w.vgpr[1] = [(-1.0f32 - 2f32.powi(-11)).to_bits(); 64];
    };
    let fused = run(&asm("v_fma_mix_f32"), setup).unwrap();
    let chk = |fused: &gcnemu::wave::Wave| {
        assert_eq!(f32::from_bits(fused.vgpr[2][0]), 2f32.powi(-24));
    };
    chk(&fused);
    exec_common::vet(&fused, chk);
    let mad = run_with(
        Target::Gfx900,
        &asm("v_mad_mix_f32"),
        &mut Memory::default(),
        setup,
    )
    .unwrap();
    let chk = |mad: &gcnemu::wave::Wave| {
        assert_eq!(f32::from_bits(mad.vgpr[2][0]), 0.0);
    };
    chk(&mad);
    exec_common::vet(&mad, chk);
}

#[test]
fn dot_products_gfx906() {
    let w = run(
        "v_dot4_i32_i8 v2, v0, v0, v1\nv_dot4_u32_u8 v3, v0, v0, v1\nv_dot8_u32_u4 v4, v5, v5, v1\nv_dot8_i32_i4 v6, v5, v5, v1\nv_dot2_i32_i16 v7, v8, v8, v9 clamp\nv_dot2_u32_u16 v10, v5, v5, v5 clamp\nv_dot2_f32_f16 v11, v12, v13, v14",
        |w| {
            w.vgpr[0] = [0x8080_8080; 64]; // four -128 / 128
            w.vgpr[1] = cyc(&[10, 0xffff_fff6]); // 10, -10
            w.vgpr[5] = [0xffff_ffff; 64]; // nibbles 15 / -1
            w.vgpr[8] = [0x8000_8000; 64]; // two -32768
            w.vgpr[9] = [0x7fff_ffff; 64];
            w.vgpr[12] = [pk(3.0, 1.0); 64];
            w.vgpr[13] = [pk(0.5, 2.0); 64];
            w.vgpr[14] = [0.25f32.to_bits(); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 4 * 16384 + 10);
        assert_eq!(w.vgpr[2][1], (4 * 16384 - 10) as u32);
        assert_eq!(w.vgpr[3][0], 4 * 16384 + 10);
        assert_eq!(w.vgpr[4][0], 8 * 225 + 10);
        assert_eq!(w.vgpr[6][1], (8 - 10i32) as u32); // 8 * (-1 * -1) - 10
        assert_eq!(w.vgpr[7][0], i32::MAX as u32); // 2 * 2^30 + (2^31 - 1) saturates
        assert_eq!(w.vgpr[10][0], u32::MAX); // 2 * 0xffff^2 + 0xffffffff saturates
        assert_eq!(f32::from_bits(w.vgpr[11][0]), 1.0 * 2.0 + 3.0 * 0.5 + 0.25);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn fma_mix_neg_and_abs_modifiers() {
    // llvm-mc-15 -mcpu=gfx906: v_fma_mix_f32 v5, -v0, |v1|, v3 op_sel:[0,1,0] op_sel_hi:[1,1,0]
    // (neg_lo[0] = negate src0, neg_hi[1] = |src1|), then s_endpgm.
    let code = [
        0x05, 0x12, 0xa0, 0xd3, 0x00, 0x03, 0x0e, 0x3c, 0x00, 0x00, 0x81, 0xbf,
    ];
    let w = run_code(Target::Gfx906, &code, &mut Memory::default(), |w| {
        w.vgpr[0] = [pk(3.0, 1.5); 64];
        w.vgpr[1] = [pk(-4.0, 2.0); 64];
        w.vgpr[3] = [0.25f32.to_bits(); 64];
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // -(1.5) * |-4| + 0.25
        assert_eq!(f32::from_bits(w.vgpr[5][0]), -1.5 * 4.0 + 0.25);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
