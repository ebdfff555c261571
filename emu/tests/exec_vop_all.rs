//! VOP1, VOP2 and VOP3 (and the VOP3P ops not covered elsewhere), table-driven: each op runs
//! once per 64 cases, one case a lane, on edge inputs (NaN, ±0, ±inf, denormals, the integer
//! extremes, shifts at and past the width, 24- and 16-bit operand boundaries), and every lane is
//! compared with a reference written here from the Vega ISA's pseudo-code using Rust integer and
//! float arithmetic (std floats round to nearest even, as the VALU does in the default MODE) and
//! the `half` crate for f16. A failure names the op, the lane's inputs, and both values.
//!
//! NaN results are compared as "is a NaN" (payloads are not the point here); everything else
//! bit for bit, except the transcendental estimates (see `transcendentals_within_one_ulp`).

mod exec_common;
use exec_common::run;
use gcnemu::wave::Wave;
use half::f16;

/// Runs `asm` once for every 64 cases: `set` loads lane `l` with its case, `check` inspects it.
fn for_lanes<C: Copy + std::fmt::Debug>(
    asm: &str,
    cases: &[C],
    set: impl Fn(&mut Wave, usize, C),
    check: impl Fn(&Wave, usize, C),
) {
    for chunk in cases.chunks(64) {
        let w = run(asm, |w| {
            for l in 0..64 {
                set(w, l, chunk[l % chunk.len()]);
            }
        })
        .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        for (l, &c) in chunk.iter().enumerate() {
            check(&w, l, c);
        }
        exec_common::vet(&w, |w| {
            for (l, &c) in chunk.iter().enumerate() {
                check(w, l, c);
            }
        });
    }
}

fn same32(got: u32, want: u32) -> bool {
    got == want || (f32::from_bits(got).is_nan() && f32::from_bits(want).is_nan())
}
fn same64(got: u64, want: u64) -> bool {
    got == want || (f64::from_bits(got).is_nan() && f64::from_bits(want).is_nan())
}
fn same16(got: u32, want: u16) -> bool {
    let g = f16::from_bits(got as u16);
    got as u16 == want || (g.is_nan() && f16::from_bits(want).is_nan())
}

fn put64(w: &mut Wave, reg: usize, l: usize, v: u64) {
    w.vgpr[reg][l] = v as u32;
    w.vgpr[reg + 1][l] = (v >> 32) as u32;
}
fn get64(w: &Wave, reg: usize, l: usize) -> u64 {
    w.vgpr[reg][l] as u64 | (w.vgpr[reg + 1][l] as u64) << 32
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// f32 edge values: ±0, ±1, halves (rounding ties), ±denormals, the extremes, ±inf, NaN.
fn f32_edges() -> Vec<u32> {
    [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        3.7,
        -3.7,
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e10,
        -1e10,
        123456.78,
        8388609.0,
        -0.7,
        2147483648.0,
        4294967296.0,
        -2147483904.0,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect()
}

fn f64_edges() -> Vec<u64> {
    [
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        3.7,
        -3.7,
        1e-310,
        -1e-310,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e10,
        -1e10,
        4503599627370497.0,
        -0.7,
        2147483647.5,
        4294967295.7,
        -2147483648.9,
        1e300,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect()
}

/// 32-bit integer edges incl. 24-bit boundaries and shift amounts past 31.
const I32S: [u32; 16] = [
    0,
    1,
    2,
    31,
    32,
    33,
    0x7f_ffff,
    0x80_0000,
    0xff_ffff,
    0x100_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1234_5678,
    0xdead_beef,
    0xffff_0000,
];

// ---------------------------------------------------------------------------------------------
// Floating-point rounding helpers written from the definitions.

/// Floor-based fract, kept below 1.0 (OpenCL's fract, which the instruction implements; LLVM
/// folds llvm.amdgcn.fract the same way); ±inf and NaN give NaN.
fn fract32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
}
fn fract64(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

/// frexp from the bit fields: x = m · 2^e with 0.5 ≤ |m| < 1; for 0, inf, NaN: exp 0, mant x.
fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (mut v, mut adj) = (x, 0);
    if v.to_bits() >> 52 & 0x7ff == 0 {
        v *= 2f64.powi(64);
        adj = -64;
    }
    let e = (v.to_bits() >> 52 & 0x7ff) as i32 - 1022;
    let m = f64::from_bits(v.to_bits() & !(0x7ffu64 << 52) | 0x3feu64 << 52);
    (m, e + adj)
}

/// Float to integer: truncation, saturating at the range ends, NaN → 0 (the ISA's cvt rule).
fn sat_i32(x: f64) -> u32 {
    if x.is_nan() {
        0
    } else if x >= 2147483647.0 {
        i32::MAX as u32
    } else if x <= -2147483648.0 {
        i32::MIN as u32
    } else {
        x.trunc() as i32 as u32
    }
}
fn sat_u32(x: f64) -> u32 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 4294967295.0 {
        u32::MAX
    } else {
        x.trunc() as u32
    }
}

#[test]
fn vop1_f32_rounding_and_conversions() {
    type F = fn(f32) -> u32;
    let ops: [(&str, F); 12] = [
        ("v_fract_f32", |x| f(fract32(x))),
        ("v_trunc_f32", |x| f(x.trunc())),
        ("v_ceil_f32", |x| f(x.ceil())),
        ("v_rndne_f32", |x| f(x.round_ties_even())),
        ("v_floor_f32", |x| f(x.floor())),
        ("v_frexp_mant_f32", |x| f(frexp64(x as f64).0 as f32)),
        ("v_frexp_exp_i32_f32", |x| frexp64(x as f64).1 as u32),
        ("v_cvt_i32_f32", |x| sat_i32(x as f64)),
        ("v_cvt_u32_f32", |x| sat_u32(x as f64)),
        // flr: floor then convert; rpi: floor(x + 0.5) then convert.
        ("v_cvt_flr_i32_f32", |x| sat_i32((x as f64).floor())),
        ("v_cvt_rpi_i32_f32", |x| sat_i32((x as f64 + 0.5).floor())),
        ("v_cvt_f16_f32", |x| f16::from_f32(x).to_bits() as u32),
    ];
    let cases = f32_edges();
    for (name, r) in ops {
        let asm = format!("{name}_e32 v1, v0");
        for_lanes(
            &asm,
            &cases,
            |w, l, c| w.vgpr[0][l] = c,
            |w, l, c| {
                let want = r(f32::from_bits(c));
                let got = w.vgpr[1][l];
                let ok = if name.starts_with("v_cvt_f16") {
                    same16(got, want as u16)
                } else {
                    same32(got, want)
                };
                assert!(
                    ok,
                    "{asm} {c:#x} ({}): got {got:#x} want {want:#x}",
                    f32::from_bits(c)
                );
            },
        );
    }
    // f32 -> f64 is exact (denormals, infinities and NaN included).
    let asm = "v_cvt_f64_f32_e32 v[2:3], v0";
    for_lanes(
        asm,
        &cases,
        |w, l, c| w.vgpr[0][l] = c,
        |w, l, c| {
            let want = (f32::from_bits(c) as f64).to_bits();
            let got = get64(w, 2, l);
            assert!(
                same64(got, want),
                "{asm} {c:#x}: got {got:#x} want {want:#x}"
            );
        },
    );
}

#[test]
fn vop1_int_to_float_and_bytes() {
    type F = fn(u32) -> u32;
    let ops: [(&str, F); 11] = [
        ("v_cvt_f32_i32", |a| f(a as i32 as f32)),
        ("v_cvt_f32_u32", |a| f(a as f32)),
        ("v_cvt_f32_ubyte0", |a| f((a & 0xff) as f32)),
        ("v_cvt_f32_ubyte1", |a| f((a >> 8 & 0xff) as f32)),
        ("v_cvt_f32_ubyte2", |a| f((a >> 16 & 0xff) as f32)),
        ("v_cvt_f32_ubyte3", |a| f((a >> 24) as f32)),
        ("v_not_b32", |a| !a),
        ("v_bfrev_b32", |a| a.reverse_bits()),
        // ffbh: leading zeros from the MSB; ffbl: trailing zeros; -1 if no bit is set.
        ("v_ffbh_u32", |a| {
            if a == 0 {
                u32::MAX
            } else {
                a.leading_zeros()
            }
        }),
        ("v_ffbl_b32", |a| {
            if a == 0 {
                u32::MAX
            } else {
                a.trailing_zeros()
            }
        }),
        // ffbh_i32: leading bits equal to the sign bit; -1 for 0 and -1.
        ("v_ffbh_i32", |a| match a as i32 {
            0 | -1 => u32::MAX,
            s => (if s < 0 { !s } else { s }).leading_zeros(),
        }),
    ];
    let mut cases: Vec<u32> = I32S.to_vec();
    cases.extend([0x8000_0001, 0x00ff_8001, 0x7fff_ff80, 0x0100_0001]);
    for (name, r) in ops {
        let asm = format!("{name}_e32 v1, v0");
        for_lanes(
            &asm,
            &cases,
            |w, l, c| w.vgpr[0][l] = c,
            |w, l, c| {
                let want = r(c);
                assert_eq!(w.vgpr[1][l], want, "{asm} {c:#x}");
            },
        );
    }
    let halves: Vec<u32> = [
        0x3c00u32, 0xbc00, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x7bff, 0x7e00, 0, 0x8000,
    ]
    .iter()
    .map(|h| 0xabcd_0000 | h)
    .collect();
    for_lanes(
        "v_cvt_f32_f16_e32 v1, v0",
        &halves,
        |w, l, c| w.vgpr[0][l] = c,
        |w, l, c| {
            let want = f16::from_bits(c as u16).to_f32().to_bits();
            assert!(same32(w.vgpr[1][l], want), "v_cvt_f32_f16 {c:#x}");
        },
    );
}

#[test]
fn vop1_f64_rounding_and_conversions() {
    type F = fn(f64) -> u64;
    let ops: [(&str, F); 6] = [
        ("v_trunc_f64", |x| x.trunc().to_bits()),
        ("v_ceil_f64", |x| x.ceil().to_bits()),
        ("v_rndne_f64", |x| x.round_ties_even().to_bits()),
        ("v_floor_f64", |x| x.floor().to_bits()),
        ("v_fract_f64", |x| fract64(x).to_bits()),
        ("v_frexp_mant_f64", |x| frexp64(x).0.to_bits()),
    ];
    let cases = f64_edges();
    for (name, r) in ops {
        let asm = format!("{name}_e32 v[2:3], v[0:1]");
        for_lanes(
            &asm,
            &cases,
            |w, l, c| put64(w, 0, l, c),
            |w, l, c| {
                let (got, want) = (get64(w, 2, l), r(f64::from_bits(c)));
                assert!(
                    same64(got, want),
                    "{asm} {c:#x} ({}): got {got:#x} want {want:#x}",
                    f64::from_bits(c)
                );
            },
        );
    }
    // To 32-bit results.
    type G = fn(f64) -> u32;
    let to32: [(&str, G); 4] = [
        ("v_frexp_exp_i32_f64", |x| frexp64(x).1 as u32),
        ("v_cvt_i32_f64", |x| sat_i32(x)),
        ("v_cvt_u32_f64", |x| sat_u32(x)),
        ("v_cvt_f32_f64", |x| (x as f32).to_bits()),
    ];
    for (name, r) in to32 {
        let asm = format!("{name}_e32 v2, v[0:1]");
        for_lanes(
            &asm,
            &cases,
            |w, l, c| put64(w, 0, l, c),
            |w, l, c| {
                let (got, want) = (w.vgpr[2][l], r(f64::from_bits(c)));
                assert!(
                    same32(got, want),
                    "{asm} {c:#x} ({}): got {got:#x} want {want:#x}",
                    f64::from_bits(c)
                );
            },
        );
    }
    // From 32-bit integers (exact in f64).
    for (name, r) in [
        ("v_cvt_f64_i32", (|a| a as i32 as f64) as fn(u32) -> f64),
        ("v_cvt_f64_u32", |a| a as f64),
    ] {
        let asm = format!("{name}_e32 v[2:3], v0");
        for_lanes(
            &asm,
            &I32S,
            |w, l, c| w.vgpr[0][l] = c,
            |w, l, c| {
                assert_eq!(get64(w, 2, l), r(c).to_bits(), "{asm} {c:#x}");
            },
        );
    }
}

/// Distance in units in the last place between two finite f32 of the same sign (or zeros).
fn ulps32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (key(a) - key(b)).unsigned_abs()
}
fn ulps64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let b = x.to_bits() as i128;
        if b < 1 << 63 {
            b
        } else {
            (1i128 << 63) - b
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

#[test]
fn transcendentals_within_one_ulp() {
    // The hardware's v_rcp/v_rsq/v_sqrt/v_exp/v_log are estimates documented to 1 ULP (the
    // Vega ISA's op descriptions; LLVM's AMDGPU backend treats them as 1 ULP, and refines them
    // for correctly rounded division and sqrt). The emulator computes the correctly rounded
    // value (emu/src/exec/vop.rs), which is within that bound, so the test allows 1 ULP around
    // a reference computed in f64. Special inputs are exact: rcp(±0) = ±inf, rcp(±inf) = ±0,
    // sqrt/rsq/log of a negative number = NaN, log(0) = -inf, exp(-inf) = 0.
    // v_sin/v_cos take revolutions (sin(2π·x)); the hardware's absolute error is about 2^-20 on
    // the reduced range, so they are compared with an absolute bound of 2^-19.
    type F = fn(f64) -> f64;
    let ops: [(&str, F, bool); 9] = [
        ("v_rcp_f32", |x| 1.0 / x, false),
        ("v_rcp_iflag_f32", |x| 1.0 / x, false),
        ("v_rsq_f32", |x| 1.0 / x.sqrt(), false),
        ("v_sqrt_f32", |x| x.sqrt(), false),
        ("v_exp_f32", |x| x.exp2(), false),
        ("v_log_f32", |x| x.log2(), false),
        ("v_sin_f32", |x| (x * std::f64::consts::TAU).sin(), true),
        ("v_cos_f32", |x| (x * std::f64::consts::TAU).cos(), true),
        ("v_rcp_f32", |x| 1.0 / x, false),
    ];
    let mut cases: Vec<u32> = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        2.0,
        3.0,
        0.1,
        7.5,
        1e-3,
        1e20,
        -5.5,
        0.25,
        100.0,
        0.125,
        -0.375,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-30,
        0.3333,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    cases.extend((1..30).map(|k| (k as f32 * 0.173 - 2.4).to_bits()));
    for (name, r, absolute) in ops {
        let asm = format!("{name}_e32 v1, v0");
        for_lanes(
            &asm,
            &cases,
            |w, l, c| w.vgpr[0][l] = c,
            |w, l, c| {
                let x = f32::from_bits(c);
                let want = r(x as f64) as f32;
                let got = f32::from_bits(w.vgpr[1][l]);
                let what = format!("{asm} {x:e}: got {got:e} want {want:e}");
                if want.is_nan() || !want.is_finite() || want == 0.0 {
                    assert!(same32(got.to_bits(), want.to_bits()), "{what}");
                } else if absolute {
                    assert!(((got - want) as f64).abs() <= 2f64.powi(-19), "{what}");
                } else {
                    assert!(ulps32(got, want) <= 1, "{what}");
                }
            },
        );
    }
    // f64: rcp and rsq are 2^-? estimates on the hardware too; sqrt is the refined one.
    let ops64: [(&str, F); 3] = [
        ("v_rcp_f64", |x| 1.0 / x),
        ("v_rsq_f64", |x| 1.0 / x.sqrt()),
        ("v_sqrt_f64", |x| x.sqrt()),
    ];
    let cases64: Vec<u64> = [
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        2.0,
        3.0,
        0.1,
        7.5,
        1e-300,
        1e300,
        -5.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    for (name, r) in ops64 {
        let asm = format!("{name}_e32 v[2:3], v[0:1]");
        for_lanes(
            &asm,
            &cases64,
            |w, l, c| put64(w, 0, l, c),
            |w, l, c| {
                let x = f64::from_bits(c);
                let want = r(x);
                let got = f64::from_bits(get64(w, 2, l));
                let what = format!("{asm} {x:e}: got {got:e} want {want:e}");
                if want.is_nan() || !want.is_finite() || want == 0.0 {
                    assert!(same64(got.to_bits(), want.to_bits()), "{what}");
                } else {
                    assert!(ulps64(got, want) <= 1, "{what}");
                }
            },
        );
    }
}

#[test]
fn vop2_integer() {
    type F = fn(u32, u32) -> u32;
    let ops: [(&str, F); 14] = [
        // 24-bit multiplies: the low 24 bits of each source, signed or unsigned.
        ("v_mul_i32_i24", |a, b| {
            let (x, y) = (((a << 8) as i32 >> 8) as i64, ((b << 8) as i32 >> 8) as i64);
            (x * y) as u32
        }),
        ("v_mul_hi_i32_i24", |a, b| {
            let (x, y) = (((a << 8) as i32 >> 8) as i64, ((b << 8) as i32 >> 8) as i64);
            ((x * y) >> 32) as u32
        }),
        ("v_mul_u32_u24", |a, b| {
            ((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) as u32
        }),
        ("v_mul_hi_u32_u24", |a, b| {
            (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32
        }),
        ("v_min_i32", |a, b| (a as i32).min(b as i32) as u32),
        ("v_max_i32", |a, b| (a as i32).max(b as i32) as u32),
        ("v_min_u32", |a, b| a.min(b)),
        ("v_max_u32", |a, b| a.max(b)),
        // The *rev shifts shift S1 by S0[4:0].
        ("v_lshrrev_b32", |a, b| b >> (a & 31)),
        ("v_ashrrev_i32", |a, b| ((b as i32) >> (a & 31)) as u32),
        ("v_lshlrev_b32", |a, b| b << (a & 31)),
        ("v_and_b32", |a, b| a & b),
        ("v_or_b32", |a, b| a | b),
        ("v_xor_b32", |a, b| a ^ b),
    ];
    let cases: Vec<(u32, u32)> = I32S
        .iter()
        .flat_map(|&a| I32S.iter().map(move |&b| (a, b)))
        .collect();
    for (name, r) in ops {
        for asm in [
            format!("{name}_e32 v2, v0, v1"),
            format!("{name}_e64 v2, v0, v1"),
        ] {
            for_lanes(
                &asm,
                &cases,
                |w, l, (a, b)| {
                    w.vgpr[0][l] = a;
                    w.vgpr[1][l] = b;
                },
                |w, l, (a, b)| {
                    assert_eq!(w.vgpr[2][l], r(a, b), "{asm} {a:#x}, {b:#x}");
                },
            );
        }
    }
    // VOP3-only 32-bit integer ops.
    let vop3: [(&str, F); 4] = [
        ("v_mul_lo_u32", |a, b| a.wrapping_mul(b)),
        ("v_bcnt_u32_b32", |a, b| a.count_ones().wrapping_add(b)),
        // ((1 << S0[4:0]) - 1) << S1[4:0].
        ("v_bfm_b32", |a, b| {
            (((1u64 << (a & 31)) - 1) as u32) << (b & 31)
        }),
        ("v_sub_i32", |a, b| a.wrapping_sub(b)),
    ];
    for (name, r) in vop3 {
        let asm = format!("{name} v2, v0, v1");
        for_lanes(
            &asm,
            &cases,
            |w, l, (a, b)| {
                w.vgpr[0][l] = a;
                w.vgpr[1][l] = b;
            },
            |w, l, (a, b)| {
                assert_eq!(w.vgpr[2][l], r(a, b), "{asm} {a:#x}, {b:#x}");
            },
        );
    }
    // v_sub_i32 with clamp saturates to the signed range.
    let asm = "v_sub_i32 v2, v0, v1 clamp";
    for_lanes(
        asm,
        &cases,
        |w, l, (a, b)| {
            w.vgpr[0][l] = a;
            w.vgpr[1][l] = b;
        },
        |w, l, (a, b)| {
            let want = (a as i32).saturating_sub(b as i32) as u32;
            assert_eq!(w.vgpr[2][l], want, "{asm} {a:#x}, {b:#x}");
        },
    );
}

#[test]
fn vop2_carry_ops_and_cndmask() {
    // Lanes alternate VCC-in 0/1; VCC out is the borrow.
    type F = fn(u32, u32, bool) -> (u32, bool);
    let ops: [(&str, F); 3] = [
        // D = S1 - S0; borrow if S0 > S1.
        ("v_subrev_co_u32", |a, b, _| (b.wrapping_sub(a), a > b)),
        // D = S0 - S1 - VCC; borrow if S1 + VCC > S0.
        ("v_subb_co_u32", |a, b, c| {
            let t = a as i64 - b as i64 - c as i64;
            (t as u32, t < 0)
        }),
        ("v_subbrev_co_u32", |a, b, c| {
            let t = b as i64 - a as i64 - c as i64;
            (t as u32, t < 0)
        }),
    ];
    let vals = [
        0u32,
        1,
        2,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fffe,
        5,
    ];
    let cases: Vec<(u32, u32)> = vals
        .iter()
        .flat_map(|&a| vals.iter().map(move |&b| (a, b)))
        .collect();
    assert_eq!(cases.len(), 64);
    let carry_in = 0xaaaa_aaaa_aaaa_aaaau64;
    for (name, r) in ops {
        let e32 = if name == "v_subrev_co_u32" {
            format!("{name}_e32 v2, vcc, v0, v1")
        } else {
            format!("{name}_e32 v2, vcc, v0, v1, vcc")
        };
        let e64 = if name == "v_subrev_co_u32" {
            format!("{name}_e64 v2, s[20:21], v0, v1")
        } else {
            format!("{name}_e64 v2, s[20:21], v0, v1, s[22:23]")
        };
        for (asm, out) in [(e32, 106u16), (e64, 20)] {
            let w = run(&asm, |w| {
                for (l, &(a, b)) in cases.iter().enumerate() {
                    w.vgpr[0][l] = a;
                    w.vgpr[1][l] = b;
                }
                w.set_vcc(carry_in);
                w.set_pair(22, carry_in);
            })
            .unwrap();
            let chk = |w: &gcnemu::wave::Wave| {
                let mut mask = 0u64;
                for (l, &(a, b)) in cases.iter().enumerate() {
                    let (d, borrow) = r(a, b, carry_in >> l & 1 != 0);
                    assert_eq!(
                        w.vgpr[2][l],
                        d,
                        "{asm} {a:#x}, {b:#x}, cin {}",
                        carry_in >> l & 1
                    );
                    mask |= (borrow as u64) << l;
                }
                assert_eq!(w.pair(out), mask, "{asm}: borrow mask");
            };
            chk(&w);
            exec_common::vet(&w, chk);
        }
    }
    // v_cndmask_b32: VCC (or S2 in VOP3) picks S1 where set, S0 where clear; VOP3 abs/neg
    // act on the sign bit of the selected value.
    let w = run(
        "v_cndmask_b32_e32 v2, v0, v1, vcc\nv_cndmask_b32_e64 v3, -v0, |v1|, s[4:5]",
        |w| {
            w.vgpr[0] = [f(2.0); 64];
            w.vgpr[1] = [f(-3.0); 64];
            w.set_vcc(0x0000_0000_ffff_0000);
            w.set_pair(4, 0xffff_0000_0000_0000);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for l in 0..64 {
            let v = if (16..32).contains(&l) {
                f(-3.0)
            } else {
                f(2.0)
            };
            assert_eq!(w.vgpr[2][l], v, "v_cndmask_b32_e32 lane {l}");
            let v = if l >= 48 { f(3.0) } else { f(-2.0) };
            assert_eq!(w.vgpr[3][l], v, "v_cndmask_b32_e64 lane {l}");
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn vop2_f32_arithmetic() {
    type F = fn(f32, f32) -> f32;
    let ops: [(&str, F); 4] = [
        ("v_sub_f32", |a, b| a - b),
        ("v_subrev_f32", |a, b| b - a),
        ("v_mul_f32", |a, b| a * b),
        // DX9 rule: ±0 times anything (inf and NaN included) is +0.
        ("v_mul_legacy_f32", |a, b| {
            if a == 0.0 || b == 0.0 {
                0.0
            } else {
                a * b
            }
        }),
    ];
    let e = f32_edges();
    let cases: Vec<(u32, u32)> = e
        .iter()
        .flat_map(|&a| e.iter().map(move |&b| (a, b)))
        .collect();
    for (name, r) in ops {
        for asm in [
            format!("{name}_e32 v2, v0, v1"),
            format!("{name}_e64 v2, v0, v1"),
        ] {
            for_lanes(
                &asm,
                &cases,
                |w, l, (a, b)| {
                    w.vgpr[0][l] = a;
                    w.vgpr[1][l] = b;
                },
                |w, l, (a, b)| {
                    let want = f(r(f32::from_bits(a), f32::from_bits(b)));
                    let got = w.vgpr[2][l];
                    assert!(
                        same32(got, want),
                        "{asm} {:e}, {:e}: got {got:#x} want {want:#x}",
                        f32::from_bits(a),
                        f32::from_bits(b)
                    );
                },
            );
        }
    }
}

#[test]
fn mad_family_f32() {
    // v_mad_f32 / v_mac_f32 / v_madmk / v_madak round the product, then the sum (not fused);
    // v_mad_legacy_f32 multiplies with the DX9 zero rule. Normal-range inputs: these ops do not
    // keep f32 denormals on gfx9 (LLVM selects them only when denormals are flushed), so
    // denormal inputs are not part of this table.
    let vals = [
        1.0f32,
        -1.5,
        3.0,
        0.1,
        1e20,
        -1e-20,
        0.0,
        -0.0,
        f32::INFINITY,
        16777217.0,
        0.3333,
    ];
    let cases: Vec<(f32, f32, f32)> = vals
        .iter()
        .flat_map(|&a| {
            vals.iter()
                .flat_map(move |&b| [(a, b, 1.0f32), (a, b, -0.0), (a, b, 1e-8)])
        })
        .collect();
    type F = fn(f32, f32, f32) -> f32;
    let ops: [(&str, &str, F); 5] = [
        ("v_mad_f32", "v_mad_f32 v3, v0, v1, v2", |a, b, c| a * b + c),
        (
            "v_mac_f32",
            "v_mac_f32_e32 v2, v0, v1\nv_mov_b32 v3, v2",
            |a, b, c| a * b + c,
        ),
        (
            "v_mac_f32",
            "v_mac_f32_e64 v2, v0, v1\nv_mov_b32 v3, v2",
            |a, b, c| a * b + c,
        ),
        (
            "v_mad_legacy_f32",
            "v_mad_legacy_f32 v3, v0, v1, v2",
            |a, b, c| (if a == 0.0 || b == 0.0 { 0.0 } else { a * b }) + c,
        ),
        ("v_fma_f32", "v_fma_f32 v3, v0, v1, v2", |a, b, c| {
            a.mul_add(b, c)
        }),
    ];
    for (name, asm, r) in ops {
        for_lanes(
            asm,
            &cases,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = f(a);
                w.vgpr[1][l] = f(b);
                w.vgpr[2][l] = f(c);
            },
            |w, l, (a, b, c)| {
                let want = f(r(a, b, c));
                assert!(
                    same32(w.vgpr[3][l], want),
                    "{name} {a:e}, {b:e}, {c:e}: got {:#x} want {want:#x}",
                    w.vgpr[3][l]
                );
            },
        );
    }
    // K = 3.0 (0x40400000) as the literal.
    let k = 3.0f32;
    for (asm, r) in [
        (
            "v_madmk_f32 v3, v0, 0x40400000, v1",
            (|a: f32, b: f32, k: f32| a * k + b) as fn(f32, f32, f32) -> f32,
        ),
        ("v_madak_f32 v3, v0, v1, 0x40400000", |a, b, k| a * b + k),
    ] {
        for_lanes(
            asm,
            &cases,
            |w, l, (a, b, _)| {
                w.vgpr[0][l] = f(a);
                w.vgpr[1][l] = f(b);
            },
            |w, l, (a, b, _)| {
                let want = f(r(a, b, k));
                assert!(
                    same32(w.vgpr[3][l], want),
                    "{asm} {a:e}, {b:e}: got {:#x} want {want:#x}",
                    w.vgpr[3][l]
                );
            },
        );
    }
}
