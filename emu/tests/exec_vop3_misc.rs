//! Packing conversions, byte permute, SAD family, lerp and v_trig_preop_f64, against values
//! worked out by hand from the ISA pseudo-code.

mod exec_common;
use exec_common::{cyc, h, run};

#[test]
fn cvt_pkrtz_truncates_toward_zero() {
    let w = run("v_cvt_pkrtz_f16_f32 v2, v0, v1", |w| {
        // 1 + 1.5·2^-11 would round up to 0x3c01; toward zero it is 1.0. 1e6 -> max finite.
        w.vgpr[0] = cyc(&[(1.0f32 + 1.5 * 2f32.powi(-11)).to_bits(), 1e6f32.to_bits()]);
        w.vgpr[1] = cyc(&[(-65519.0f32).to_bits(), f32::NAN.to_bits()]);
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0xfbff << 16 | 0x3c00);
        assert_eq!(w.vgpr[2][1] & 0xffff, 0x7bff);
        assert_eq!(w.vgpr[2][1] >> 16 & 0x7e00, 0x7e00); // NaN stays NaN
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn cvt_pk_norm_and_saturating_packs() {
    let w = run(
        "v_cvt_pknorm_i16_f32 v2, v0, v1\nv_cvt_pknorm_u16_f32 v3, v0, v1\nv_cvt_pk_u16_u32 v4, v5, v6\nv_cvt_pk_i16_i32 v7, v5, v6\nv_cvt_pk_u8_f32 v8, v9, 2, v10",
        |w| {
            w.vgpr[0] = [0.5f32.to_bits(); 64];
            w.vgpr[1] = [(-3.0f32).to_bits(); 64];
            w.vgpr[5] = [70000; 64];
            w.vgpr[6] = [(-70000i32) as u32; 64];
            w.vgpr[9] = cyc(&[254.5f32.to_bits(), 300.0f32.to_bits(), f32::NAN.to_bits(), 2.5f32.to_bits()]);
            w.vgpr[10] = [0x1122_3344; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0x8001 << 16 | 0x4000); // {-1 -> -32767, 16383.5 -> 16384}
        assert_eq!(w.vgpr[3][0], 0x8000); // {0, 32767.5 -> 32768}
                                          // u16: 70000 -> 0xffff, -70000 as unsigned is huge -> 0xffff.
        assert_eq!(w.vgpr[4][0], 0xffff_ffff);
        assert_eq!(w.vgpr[7][0], 0x8000_7fff);
        // Byte 2 of 0x11223344 replaced: 254.5 -> 254 (ties to even), 300 -> 255, NaN -> 0, 2.5 -> 2.
        assert_eq!(
            &w.vgpr[8][..4],
            &[0x11fe_3344, 0x11ff_3344, 0x1100_3344, 0x1102_3344]
        );
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn perm_b32_selectors() {
    let w = run("v_perm_b32 v2, v0, v1, v3", |w| {
        w.vgpr[0] = [0x8877_6655; 64]; // bytes 4-7
        w.vgpr[1] = [0x4433_2211 | 0x0000_8000; 64]; // bytes 0-3, byte 1 = 0xa2 (sign set)
                                                     // Lane 0: reverse bytes of S1; lane 1: bytes 7,4 / sign of byte 1 / sign of byte 3;
                                                     // lane 2: 0x0c (zero) and 0x0d+ (0xff).
        w.vgpr[3] = cyc(&[0x0001_0203, 0x0704_0809, 0x0c0d_ff0c]);
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0x11a2_3344);
        assert_eq!(w.vgpr[2][1], 0x8855_ff00); // byte 1 = 0xa2 sign -> 0xff; byte 3 = 0x44 -> 0
        assert_eq!(w.vgpr[2][2], 0x00ff_ff00);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sad_family_and_lerp() {
    let w = run(
        "v_sad_u8 v2, v0, v1, 5\nv_sad_hi_u8 v3, v0, v1, 5\nv_sad_u16 v4, v0, v1, 1\nv_msad_u8 v5, v0, v1, 0\nv_lerp_u8 v6, v0, v1, v7",
        |w| {
            w.vgpr[0] = [0x00ff_10ff; 64];
            w.vgpr[1] = [0x0001_2000; 64];
            w.vgpr[7] = [0x0101_0001; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // |0xff-0| + |0x10-0x20| + |0xff-0x01| + |0-0| = 255 + 16 + 254 = 525.
        assert_eq!(w.vgpr[2][0], 525 + 5);
        assert_eq!(w.vgpr[3][0], (525 << 16) + 5);
        // |0x10ff - 0x2000| + |0x00ff - 0x0001| + 1
        assert_eq!(w.vgpr[4][0], (0x2000 - 0x10ff) + 0xfe + 1);
        // Reference bytes equal to 0 (bytes 0 and 3) are skipped: 16 + 254.
        assert_eq!(w.vgpr[5][0], 270);
        // Per byte (a + b + (c & 1)) >> 1: (0+0+1)>>1, (0xff+1+1)>>1, (0x10+0x20+0)>>1, (0xff+0+1)>>1.
        assert_eq!(w.vgpr[6][0], 0x0080_1880);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn quad_sads() {
    let w = run(
        "v_qsad_pk_u16_u8 v[2:3], v[0:1], v4, v[6:7]\nv_mqsad_pk_u16_u8 v[8:9], v[0:1], v4, v[6:7]\nv_mqsad_u32_u8 v[10:13], v[0:1], v4, v[14:17]",
        |w| {
            // S0 bytes (low first): 1 2 3 4 5 6 7 8; reference S1 bytes 0 2 0 4.
            w.vgpr[0] = [0x0403_0201; 64];
            w.vgpr[1] = [0x0807_0605; 64];
            w.vgpr[4] = [0x0400_0200; 64];
            w.vgpr[6] = [0x0003_fffe; 64]; // accumulators 0xfffe, 3
            w.vgpr[7] = [0x0000_0010; 64]; // 0x10, 0
            for k in 0..4 {
                w.vgpr[14 + k] = [1000 * (k as u32 + 1); 64];
            }
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // Windows: [1 2 3 4], [2 3 4 5], [3 4 5 6], [4 5 6 7] against [0 2 0 4]; |x - y| per byte:
        // [1 0 3 0], [2 1 4 1], [3 2 5 2], [4 3 6 3]. The masked forms skip the zero bytes 0 and 2.
        let full = [4, 8, 12, 16];
        let masked = [0, 2, 4, 6];
        let acc = [0xfffe, 3, 0x10, 0];
        let pack = |s: [u32; 4]| {
            let v: Vec<u32> = (0..4).map(|k| (acc[k] + s[k]) & 0xffff).collect();
            (v[0] | v[1] << 16, v[2] | v[3] << 16)
        };
        assert_eq!((w.vgpr[2][0], w.vgpr[3][0]), pack(full)); // 0xfffe + 4 wraps to 2
        assert_eq!((w.vgpr[8][0], w.vgpr[9][0]), pack(masked));
        for (k, m) in masked.iter().enumerate() {
            assert_eq!(w.vgpr[10 + k][0], 1000 * (k as u32 + 1) + m);
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn trig_preop_segments() {
    let w = run(
        "v_trig_preop_f64 v[2:3], v[0:1], 0\nv_trig_preop_f64 v[4:5], v[0:1], 1",
        |w| {
            w.vgpr[0] = [0; 64];
            w.vgpr[1] = [0x3ff0_0000; 64]; // 1.0
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        let get = |r: usize| f64::from_bits(w.vgpr[r][0] as u64 | (w.vgpr[r + 1][0] as u64) << 32);
        // 2/π = 0.A2F9836E4E441529FC27...(hex): the first 53 bits, then the next 53.
        assert_eq!(
            get(2),
            (0xa2f9836e4e441529u64 >> 11) as f64 * 2f64.powi(-53)
        );
        let next53 = ((0xa2f9836e4e441529u128 << 64 | 0xfc2757d1f534ddc0) >> (128 - 106)) as u64
            & ((1 << 53) - 1);
        assert_eq!(get(4), next53 as f64 * 2f64.powi(-106));
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let _ = h;
}
