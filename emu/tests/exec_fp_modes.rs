//! MODE bits that change float results: DX10_CLAMP (bit 8) decides whether the clamp modifier
//! turns NaN into 0 (f32, f64, f16, packed f16), and IEEE (bit 9) whether min/max/med3 propagate a signaling NaN (quieted)
//! or let it lose to a number. Expected values from the ISA's MODE register description.

mod exec_common;
use exec_common::run;

const SNAN32: u32 = 0x7f80_0001;
const QNAN32: u32 = 0x7fc0_0000;
const SNAN64: u64 = 0x7ff0_0000_0000_0001;
const DX10: u32 = 1 << 8;
const IEEE: u32 = 1 << 9;
/// Keep denormals (as HIP kernels run).
const DENORMS: u32 = 0xf0;

#[test]
fn clamp_of_nan_follows_dx10_clamp() {
    // inf + -inf = NaN; clamp gives 0 with DX10_CLAMP, the NaN without it. 2.5 clamps to 1.
    for (mode, nan_out) in [(DENORMS | DX10, 0u32), (DENORMS, QNAN32 | 0x8000_0000)] {
        let w = run(
            "v_add_f32_e64 v2, v0, v1 clamp\nv_mul_f32_e64 v3, v4, 1.0 clamp",
            |w| {
                w.mode = mode;
                w.vgpr[0] = [f32::INFINITY.to_bits(); 64];
                w.vgpr[1] = [f32::NEG_INFINITY.to_bits(); 64];
                w.vgpr[4] = [2.5f32.to_bits(); 64];
            },
        )
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            let got = w.vgpr[2][0];
            if nan_out == 0 {
                assert_eq!(got, 0, "mode {mode:#x}");
            } else {
                assert!(f32::from_bits(got).is_nan(), "mode {mode:#x}: {got:#x}");
            }
            assert_eq!(w.vgpr[3][0], 1f32.to_bits());
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn f16_and_packed_clamp_of_nan_follow_dx10_clamp() {
    // f16 inf + -inf = NaN, in the low half (v_add_f16) and both halves (v_pk_add_f16).
    for (mode, dx10) in [(DENORMS | DX10, true), (DENORMS, false)] {
        let w = run(
            "v_add_f16_e64 v2, v0, v1 clamp\nv_pk_add_f16 v3, v0, v1 clamp",
            |w| {
                w.mode = mode;
                w.vgpr[0] = [0x7c00_7c00; 64];
                w.vgpr[1] = [0xfc00_fc00; 64];
            },
        )
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            let lo = w.vgpr[2][0] & 0xffff;
            let (plo, phi) = (w.vgpr[3][0] & 0xffff, w.vgpr[3][0] >> 16);
            let nan = |h: u32| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
            if dx10 {
                assert_eq!((lo, plo, phi), (0, 0, 0));
            } else {
                assert!(nan(lo) && nan(plo) && nan(phi), "{lo:#x} {plo:#x} {phi:#x}");
            }
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn min_max_with_a_signaling_nan_follow_ieee_mode() {
    let asm = "v_min_f32 v2, v0, v1\nv_max_f32 v3, v1, v0\nv_min3_f32 v4, v1, v0, v5\n\
               v_med3_f32 v6, v0, v1, v5\nv_min_f32 v7, v8, v1\nv_min_f64 v[10:11], v[12:13], v[14:15]";
    let setup = |mode: u32| {
        move |w: &mut gcnemu::wave::Wave| {
            w.mode = mode;
            w.vgpr[0] = [SNAN32; 64];
            w.vgpr[1] = [3f32.to_bits(); 64];
            w.vgpr[5] = [(-1f32).to_bits(); 64];
            w.vgpr[8] = [QNAN32; 64];
            w.vgpr[12] = [SNAN64 as u32; 64];
            w.vgpr[13] = [(SNAN64 >> 32) as u32; 64];
            w.vgpr[14] = [0; 64];
            w.vgpr[15] = [(2f64.to_bits() >> 32) as u32; 64];
        }
    };
    // IEEE on: the signaling NaN comes out, quieted (payload kept).
    let w = run(asm, setup(DENORMS | IEEE)).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for r in [2, 3, 4, 6] {
            assert_eq!(w.vgpr[r][0], SNAN32 | 0x0040_0000, "v{r}");
        }
        // A quiet NaN still loses to a number.
        assert_eq!(w.vgpr[7][0], 3f32.to_bits());
        let d = w.vgpr[10][0] as u64 | (w.vgpr[11][0] as u64) << 32;
        assert_eq!(d, SNAN64 | 0x0008_0000_0000_0000);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    // IEEE off: the NaN loses to the number (min3(sNaN, 3, -1) = -1; med3 with a NaN is min3).
    let w = run(asm, setup(DENORMS)).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 3f32.to_bits());
        assert_eq!(w.vgpr[3][0], 3f32.to_bits());
        assert_eq!(w.vgpr[4][0], (-1f32).to_bits());
        assert_eq!(w.vgpr[6][0], (-1f32).to_bits());
        let d = w.vgpr[10][0] as u64 | (w.vgpr[11][0] as u64) << 32;
        assert_eq!(d, 2f64.to_bits());
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn f16_min_max_with_a_signaling_nan_follow_ieee_mode() {
    // 0x7c01: f16 signaling NaN; 0x4200 = 3.0, 0xbc00 = -1.0.
    let asm = "v_min_f16 v2, v0, v1\nv_max_f16 v3, v1, v0\nv_min3_f16 v4, v1, v0, v5\nv_med3_f16 v6, v0, v1, v5";
    let setup = |mode: u32| {
        move |w: &mut gcnemu::wave::Wave| {
            w.mode = mode;
            w.vgpr[0] = [0x7c01; 64];
            w.vgpr[1] = [0x4200; 64];
            w.vgpr[5] = [0xbc00; 64];
        }
    };
    let w = run(asm, setup(DENORMS | IEEE)).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for r in [2, 3, 4, 6] {
            assert_eq!(w.vgpr[r][0] & 0xffff, 0x7e01, "v{r}");
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run(asm, setup(DENORMS)).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        let lo = |r: usize| w.vgpr[r][0] & 0xffff;
        assert_eq!(
            [lo(2), lo(3), lo(4), lo(6)],
            [0x4200, 0x4200, 0xbc00, 0xbc00]
        );
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
