//! v_exp_legacy_f32, v_log_legacy_f32, v_cvt_off_f32_i4 and the cube-map ops, with special values.
//! Expected results come from the ISA definitions (worked by hand, or computed here in f64 and
//! rounded once to f32), never from the emulator's functions.

mod exec_common;
use exec_common::{cyc, run};

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

const NAN: u32 = 0x7fc0_0000;
const NEG_NAN: u32 = 0xffc0_0000;

#[test]
fn exp_legacy_specials_and_exact_powers() {
    // 2^x; below -126 the result is +0 (never a denormal); the rest is normal or +inf.
    let input = [
        3.0f32,
        0.0,
        -0.0,
        -126.0,
        -126.5,
        f32::NEG_INFINITY,
        128.0,
        f32::INFINITY,
        -1.0,
        0.5,
        -149.0,
    ];
    let want = [
        8.0f32.to_bits(),
        1.0f32.to_bits(),
        1.0f32.to_bits(),
        0x0080_0000, // 2^-126, the smallest normal
        0,
        0,
        f32::INFINITY.to_bits(),
        f32::INFINITY.to_bits(),
        0.5f32.to_bits(),
        (2f64.sqrt() as f32).to_bits(),
        0, // would be the smallest denormal
    ];
    let w = run("v_exp_legacy_f32_e32 v1, v0", |w| {
        w.vgpr[0] = cyc(&bits(&input))
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(&w.vgpr[1][..input.len()], &want);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run("v_exp_legacy_f32 v1, v0", |w| w.vgpr[0] = [NAN; 64]).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert!(f32::from_bits(w.vgpr[1][0]).is_nan());
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn exp_legacy_takes_input_modifiers() {
    // VOP3: -|x|: 2^-3 for x = ±3.
    let w = run("v_exp_legacy_f32_e64 v1, -|v0|", |w| {
        w.vgpr[0] = cyc(&[3.0f32.to_bits(), (-3.0f32).to_bits()])
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(&w.vgpr[1][..2], &[0.125f32.to_bits(); 2]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn log_legacy_specials_and_exact_values() {
    let input = [
        8.0f32.to_bits(),
        0.25f32.to_bits(),
        1.0f32.to_bits(),
        0,           // +0
        0x8000_0000, // -0
        1,           // smallest denormal: treated as 0 whatever MODE says
        (-1.0f32).to_bits(),
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        10.0f32.to_bits(),
        0x8000_0001, // negative denormal: -0, so -inf
    ];
    let want = [
        3.0f32.to_bits(),
        (-2.0f32).to_bits(),
        0,
        f32::NEG_INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        NEG_NAN,
        f32::INFINITY.to_bits(),
        NEG_NAN,
        (10f64.log2() as f32).to_bits(),
        f32::NEG_INFINITY.to_bits(),
    ];
    // The harness MODE keeps f32 denormals, so the flush above is the op's own rule.
    let w = run("v_log_legacy_f32_e32 v1, v0", |w| w.vgpr[0] = cyc(&input)).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(&w.vgpr[1][..input.len()], &want);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run("v_log_legacy_f32 v1, v0", |w| w.vgpr[0] = [NAN; 64]).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert!(f32::from_bits(w.vgpr[1][0]).is_nan());
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn cvt_off_f32_i4_maps_the_signed_nibble_to_sixteenths() {
    // D = signext(S0[3:0]) / 16: nibbles 0..7 are 0..7/16, 8..15 are -8/16..-1/16; upper bits
    // of the source are ignored.
    let input: Vec<u32> = (0..16u32).chain([0xffff_fff3, 0x1234_5678]).collect();
    let nib = |n: u32| {
        let n = (n & 0xf) as i32;
        (if n < 8 { n } else { n - 16 }) as f32 / 16.0
    };
    let w = run("v_cvt_off_f32_i4_e32 v1, v0", |w| w.vgpr[0] = cyc(&input)).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for (i, &x) in input.iter().enumerate() {
            assert_eq!(w.vgpr[1][i], nib(x).to_bits(), "input {x:#x}");
        }
        assert_eq!(w.vgpr[1][7], 0.4375f32.to_bits());
        assert_eq!(w.vgpr[1][8], (-0.5f32).to_bits());
    };
    chk(&w);
    exec_common::vet(&w, chk);
    // VOP3 output modifiers: ×2, and clamp to [0, 1].
    let w = run(
        "v_cvt_off_f32_i4_e64 v1, v0 mul:2\nv_cvt_off_f32_i4_e64 v2, v0 clamp",
        |w| w.vgpr[0] = cyc(&[7, 8]),
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(&w.vgpr[1][..2], &[0.875f32.to_bits(), (-1.0f32).to_bits()]);
        assert_eq!(&w.vgpr[2][..2], &[0.4375f32.to_bits(), 0]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

/// (x, y, z) and the expected (id, sc, tc, ma) from the ISA pseudo-code: z is major if
/// |z| >= |x| and |z| >= |y|, else y if |y| >= |x|, else x; a face is negative if its coordinate
/// is < 0 (so -0 is positive and NaN compares false everywhere).
const CUBE: [([f32; 3], [f32; 4]); 10] = [
    ([1.0, 2.0, 3.0], [4.0, 1.0, -2.0, 6.0]),
    ([1.0, 2.0, -3.0], [5.0, -1.0, -2.0, -6.0]),
    ([1.0, -5.0, 3.0], [3.0, 1.0, -3.0, -10.0]),
    ([1.0, 5.0, 3.0], [2.0, 1.0, 3.0, 10.0]),
    ([-7.0, 5.0, 3.0], [1.0, 3.0, -5.0, -14.0]),
    ([7.0, 5.0, 3.0], [0.0, -3.0, -5.0, 14.0]),
    // Ties go to z, then to y.
    ([2.0, 2.0, 2.0], [4.0, 2.0, -2.0, 4.0]),
    ([3.0, 3.0, 1.0], [2.0, 3.0, 1.0, 6.0]),
    // -0 on the major axis is a positive face.
    ([0.0, 0.0, -0.0], [4.0, 0.0, -0.0, -0.0]),
    // NaN x: every comparison is false, so x is major and positive.
    ([f32::NAN, 1.0, 2.0], [0.0, -2.0, -1.0, f32::NAN]),
];

#[test]
fn cube_ops_follow_the_major_axis_rules() {
    let col = |k: usize| cyc(&CUBE.map(|(v, _)| v[k].to_bits()));
    let w = run(
        "v_cubeid_f32 v4, v0, v1, v2\nv_cubesc_f32 v5, v0, v1, v2\nv_cubetc_f32 v6, v0, v1, v2\nv_cubema_f32 v7, v0, v1, v2",
        |w| {
            w.vgpr[0] = col(0);
            w.vgpr[1] = col(1);
            w.vgpr[2] = col(2);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for (lane, (input, want)) in CUBE.iter().enumerate() {
            for (k, op) in ["cubeid", "cubesc", "cubetc", "cubema"].iter().enumerate() {
                let got = f32::from_bits(w.vgpr[4 + k][lane]);
                if want[k].is_nan() {
                    assert!(got.is_nan(), "{op}{input:?}");
                } else {
                    assert_eq!(got.to_bits(), want[k].to_bits(), "{op}{input:?} = {got}");
                }
            }
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn cube_ops_take_input_modifiers() {
    // neg on z makes (1, 2, 3) read as (1, 2, -3): face 5, sc = -x.
    let w = run(
        "v_cubeid_f32 v4, v0, v1, -v2\nv_cubesc_f32 v5, v0, v1, -v2\nv_cubema_f32 v6, |v0|, v1, v2",
        |w| {
            w.vgpr[0] = [1.0f32.to_bits(); 64];
            w.vgpr[1] = [2.0f32.to_bits(); 64];
            w.vgpr[2] = [3.0f32.to_bits(); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[4][0], 5.0f32.to_bits());
        assert_eq!(w.vgpr[5][0], (-1.0f32).to_bits());
        assert_eq!(w.vgpr[6][0], 6.0f32.to_bits());
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
