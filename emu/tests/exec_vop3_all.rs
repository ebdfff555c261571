//! VOP3-only ops (three-source integer and float ops, f64 arithmetic, the division helpers, the
//! 16-bit VOP2/VOP3 ops and the packed VOP3P integer ops not covered elsewhere), table-driven
//! like exec_vop_all.rs: one case a lane, references written from the Vega ISA pseudo-code.
//! The division helpers (v_div_scale/v_div_fmas/v_div_fixup) are checked the way compilers use
//! them: LLVM's f32 and f64 division sequences (copied from tests/fixtures/kernels/fmath and
//! dmath listings) must give the correctly rounded IEEE quotient for every input pair, which
//! Rust's `/` computes independently.

mod exec_common;
use exec_common::{run, run_with};
use gcn_isa::Target;
use gcnemu::memory::Memory;
use gcnemu::wave::Wave;
use half::f16;

fn for_lanes<C: Copy>(
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

fn put64(w: &mut Wave, reg: usize, l: usize, v: u64) {
    w.vgpr[reg][l] = v as u32;
    w.vgpr[reg + 1][l] = (v >> 32) as u32;
}
fn get64(w: &Wave, reg: usize, l: usize) -> u64 {
    w.vgpr[reg][l] as u64 | (w.vgpr[reg + 1][l] as u64) << 32
}
fn same32(got: u32, want: u32) -> bool {
    got == want || (f32::from_bits(got).is_nan() && f32::from_bits(want).is_nan())
}
fn same64(got: u64, want: u64) -> bool {
    got == want || (f64::from_bits(got).is_nan() && f64::from_bits(want).is_nan())
}

const I32S: [u32; 12] = [
    0,
    1,
    7,
    31,
    32,
    0x7f_ffff,
    0x80_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1234_5678,
    0xfedc_ba98,
];

/// All triples of a small set (each op sees operand orders that matter for med3/bfe/align).
fn triples(v: &[u32]) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for &a in v {
        for &b in v {
            for &c in v {
                out.push((a, b, c));
            }
        }
    }
    out
}

/// Every (a, b, c) with a from `x`, b from `y`, c from `z`.
fn cross3<A: Copy, B: Copy, C: Copy>(x: &[A], y: &[B], z: &[C]) -> Vec<(A, B, C)> {
    let mut out = Vec::new();
    for &a in x {
        for &b in y {
            for &c in z {
                out.push((a, b, c));
            }
        }
    }
    out
}

fn sext24(v: u32) -> i64 {
    ((v << 8) as i32 >> 8) as i64
}

/// v_bfe: offset S1[4:0], width S2[4:0]; a field reaching bit 31 or past it is a plain shift
/// (arithmetic for the signed form), as LLVM's constant folding of V_BFE does.
fn bfe(a: u32, off: u32, width: u32, signed: bool) -> u32 {
    let (off, w) = (off & 31, width & 31);
    if w == 0 {
        return 0;
    }
    if off + w >= 32 {
        return if signed {
            ((a as i32) >> off) as u32
        } else {
            a >> off
        };
    }
    let field = (a >> off) & ((1 << w) - 1);
    if signed && field >> (w - 1) & 1 == 1 {
        field | !((1 << w) - 1)
    } else {
        field
    }
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    let mut v = [a, b, c];
    v.sort();
    v[1]
}

#[test]
fn three_source_integer_ops() {
    type F = fn(u32, u32, u32) -> u32;
    let ops: [(&str, F); 20] = [
        ("v_mad_i32_i24", |a, b, c| {
            ((sext24(a) * sext24(b)) as u32).wrapping_add(c)
        }),
        ("v_mad_u32_u24", |a, b, c| {
            (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) as u32).wrapping_add(c)
        }),
        ("v_bfe_u32", |a, b, c| bfe(a, b, c, false)),
        ("v_bfe_i32", |a, b, c| bfe(a, b, c, true)),
        ("v_bfi_b32", |a, b, c| (a & b) | (!a & c)),
        // {S0, S1} >> S2[4:0] (alignbit) or >> 8 * S2[1:0] (alignbyte), low 32 bits.
        ("v_alignbit_b32", |a, b, c| {
            ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32
        }),
        ("v_alignbyte_b32", |a, b, c| {
            ((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32
        }),
        ("v_min3_i32", |a, b, c| {
            (a as i32).min(b as i32).min(c as i32) as u32
        }),
        ("v_min3_u32", |a, b, c| a.min(b).min(c)),
        ("v_max3_i32", |a, b, c| {
            (a as i32).max(b as i32).max(c as i32) as u32
        }),
        ("v_max3_u32", |a, b, c| a.max(b).max(c)),
        ("v_med3_i32", |a, b, c| {
            med3(a as i32, b as i32, c as i32) as u32
        }),
        ("v_med3_u32", |a, b, c| med3(a, b, c)),
        ("v_sad_u32", |a, b, c| a.abs_diff(b).wrapping_add(c)),
        ("v_xad_u32", |a, b, c| (a ^ b).wrapping_add(c)),
        ("v_lshl_add_u32", |a, b, c| (a << (b & 31)).wrapping_add(c)),
        ("v_add_lshl_u32", |a, b, c| a.wrapping_add(b) << (c & 31)),
        ("v_add3_u32", |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        ("v_lshl_or_b32", |a, b, c| (a << (b & 31)) | c),
        ("v_and_or_b32", |a, b, c| (a & b) | c),
    ];
    let cases = triples(&I32S);
    for (name, r) in ops
        .iter()
        .chain([("v_or3_b32", (|a, b, c| a | b | c) as F)].iter())
    {
        let asm = format!("{name} v3, v0, v1, v2");
        for_lanes(
            &asm,
            &cases,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = a;
                w.vgpr[1][l] = b;
                w.vgpr[2][l] = c;
            },
            |w, l, (a, b, c)| {
                assert_eq!(w.vgpr[3][l], r(a, b, c), "{name} {a:#x}, {b:#x}, {c:#x}");
            },
        );
    }
    // v_mad_i64_i32: D.i64 = S0.i32 * S1.i32 + S2.i64.
    let asm = "v_mad_i64_i32 v[4:5], s[10:11], v0, v1, v[2:3]";
    let c64 = [0u64, 1, u64::MAX, i64::MIN as u64, 0x1234_5678_9abc_def0];
    let cases = cross3(&I32S, &I32S, &c64);
    for_lanes(
        asm,
        &cases,
        |w, l, (a, b, c)| {
            w.vgpr[0][l] = a;
            w.vgpr[1][l] = b;
            put64(w, 2, l, c);
        },
        |w, l, (a, b, c)| {
            let want = (a as i32 as i64 * b as i32 as i64).wrapping_add(c as i64) as u64;
            assert_eq!(get64(w, 4, l), want, "{asm} {a:#x}, {b:#x}, {c:#x}");
        },
    );
    // v_mad_i32_i16: S0.i16 * S1.i16 + S2.i32 (the sources' high halves ignored).
    let asm = "v_mad_i32_i16 v3, v0, v1, v2";
    for_lanes(
        asm,
        &triples(&I32S),
        |w, l, (a, b, c)| {
            w.vgpr[0][l] = a;
            w.vgpr[1][l] = b;
            w.vgpr[2][l] = c;
        },
        |w, l, (a, b, c)| {
            let want = ((a as i16 as i32) * (b as i16 as i32)).wrapping_add(c as i32) as u32;
            assert_eq!(w.vgpr[3][l], want, "{asm} {a:#x}, {b:#x}, {c:#x}");
        },
    );
}

#[test]
fn cvt_pkaccum_u8_packs_one_byte() {
    // D.byte[S1[1:0]] = f32 -> u8 (integral inputs: exact; negative and NaN -> 0, > 255 -> 255);
    // the other bytes of D are kept.
    let vals = [0.0f32, 1.0, 17.0, 255.0, 256.0, 1e10, -3.0, f32::NAN];
    let cases: Vec<(f32, u32)> = vals
        .iter()
        .flat_map(|&v| (0..4).map(move |b| (v, b)))
        .collect();
    let asm = "v_cvt_pkaccum_u8_f32 v2, v0, v1";
    for_lanes(
        asm,
        &cases,
        |w, l, (v, b)| {
            w.vgpr[0][l] = v.to_bits();
            w.vgpr[1][l] = b;
            w.vgpr[2][l] = 0xa1b2_c3d4;
        },
        |w, l, (v, b)| {
            let u8v = if v.is_nan() || v <= 0.0 {
                0
            } else {
                v.min(255.0) as u32
            };
            let want = 0xa1b2_c3d4 & !(0xff << (8 * b)) | u8v << (8 * b);
            assert_eq!(w.vgpr[2][l], want, "{asm} {v}, byte {b}");
        },
    );
}

fn minnum(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        // -0 is below +0.
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}
fn maxnum(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}

/// V_MED3_F32 (Vega ISA): if any source is NaN, MIN3 of them (minNum drops NaNs); otherwise the
/// maximum of the two sources that are not the largest.
fn med3f(a: f64, b: f64, c: f64) -> f64 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return minnum(minnum(a, b), c);
    }
    let m = maxnum(maxnum(a, b), c);
    if m == a {
        maxnum(b, c)
    } else if m == b {
        maxnum(a, c)
    } else {
        maxnum(a, b)
    }
}

#[test]
fn three_source_float_ops_f32() {
    let vals = [
        1.0f32,
        -2.0,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.5,
    ];
    let cases = cross3(&vals, &vals, &vals);
    type F = fn(f64, f64, f64) -> f64;
    let ops: [(&str, F); 5] = [
        ("v_min3_f32", |a, b, c| minnum(minnum(a, b), c)),
        ("v_max3_f32", |a, b, c| maxnum(maxnum(a, b), c)),
        ("v_med3_f32", med3f),
        ("v_mad_f32", |a, b, c| {
            ((a as f32 * b as f32) + c as f32) as f64
        }),
        ("v_fma_f32", |a, b, c| {
            (a as f32).mul_add(b as f32, c as f32) as f64
        }),
    ];
    for (name, r) in ops {
        let asm = format!("{name} v3, v0, v1, v2");
        for_lanes(
            &asm,
            &cases,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = a.to_bits();
                w.vgpr[1][l] = b.to_bits();
                w.vgpr[2][l] = c.to_bits();
            },
            |w, l, (a, b, c)| {
                let want = (r(a as f64, b as f64, c as f64) as f32).to_bits();
                let got = w.vgpr[3][l];
                assert!(
                    same32(got, want),
                    "{name} {a}, {b}, {c}: got {:?} want {:?}",
                    f32::from_bits(got),
                    f32::from_bits(want)
                );
            },
        );
    }
}

#[test]
fn f64_arithmetic_and_ldexp() {
    let vals: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        3.0,
        1e-310,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.1,
        1e308,
    ];
    let pairs: Vec<(f64, f64)> = vals
        .iter()
        .flat_map(|&a| vals.iter().map(move |&b| (a, b)))
        .collect();
    type F = fn(f64, f64) -> f64;
    let ops: [(&str, F); 4] = [
        ("v_add_f64", |a, b| a + b),
        ("v_mul_f64", |a, b| a * b),
        ("v_min_f64", minnum),
        ("v_max_f64", maxnum),
    ];
    for (name, r) in ops {
        let asm = format!("{name} v[4:5], v[0:1], v[2:3]");
        for_lanes(
            &asm,
            &pairs,
            |w, l, (a, b)| {
                put64(w, 0, l, a.to_bits());
                put64(w, 2, l, b.to_bits());
            },
            |w, l, (a, b)| {
                let want = r(a, b).to_bits();
                assert!(
                    same64(get64(w, 4, l), want),
                    "{name} {a:e}, {b:e}: got {:e}",
                    f64::from_bits(get64(w, 4, l))
                );
            },
        );
    }
    // v_fma_f64: one rounding (Rust's mul_add is the IEEE fusedMultiplyAdd).
    let trip: Vec<(f64, f64, f64)> = [
        (1.0 + 2f64.powi(-52), 1.0 - 2f64.powi(-53), -1.0),
        (0.1, 10.0, -1.0),
        (1e308, 10.0, -1e308),
        (f64::INFINITY, 0.0, 1.0),
        (3.0, 1e-310, 1e-310),
        (-0.0, 0.0, -0.0),
    ]
    .to_vec();
    let asm = "v_fma_f64 v[6:7], v[0:1], v[2:3], v[4:5]";
    for_lanes(
        asm,
        &trip,
        |w, l, (a, b, c)| {
            put64(w, 0, l, a.to_bits());
            put64(w, 2, l, b.to_bits());
            put64(w, 4, l, c.to_bits());
        },
        |w, l, (a, b, c)| {
            let want = a.mul_add(b, c).to_bits();
            assert!(same64(get64(w, 6, l), want), "{asm} {a:e}, {b:e}, {c:e}");
        },
    );
    // ldexp: x * 2^n rounded once; n is a signed 32-bit integer.
    let ns = [
        0i32,
        1,
        -1,
        1023,
        2000,
        -1074,
        -1075,
        -2000,
        i32::MIN,
        i32::MAX,
    ];
    let xs = [
        1.0f64,
        -1.5,
        1e-310,
        f64::MAX,
        0.0,
        f64::INFINITY,
        f64::NAN,
        3.0,
    ];
    let cases: Vec<(f64, i32)> = xs
        .iter()
        .flat_map(|&x| ns.iter().map(move |&n| (x, n)))
        .collect();
    let asm = "v_ldexp_f64 v[4:5], v[0:1], v2";
    for_lanes(
        asm,
        &cases,
        |w, l, (x, n)| {
            put64(w, 0, l, x.to_bits());
            w.vgpr[2][l] = n as u32;
        },
        |w, l, (x, n)| {
            let want = ldexp(x, n).to_bits();
            assert!(
                same64(get64(w, 4, l), want),
                "{asm} {x:e}, {n}: got {:e} want {:e}",
                f64::from_bits(get64(w, 4, l)),
                f64::from_bits(want)
            );
        },
    );
    let asm = "v_ldexp_f32 v4, v0, v2";
    let xs32 = [1.0f32, -1.5, 1e-40, f32::MAX, 0.0, f32::INFINITY, 3.0, 1.5];
    let ns32 = [0i32, 1, -1, 127, 300, -149, -150, -151, i32::MIN, i32::MAX];
    let cases: Vec<(f32, i32)> = xs32
        .iter()
        .flat_map(|&x| ns32.iter().map(move |&n| (x, n)))
        .collect();
    for_lanes(
        asm,
        &cases,
        |w, l, (x, n)| {
            w.vgpr[0][l] = x.to_bits();
            w.vgpr[2][l] = n as u32;
        },
        |w, l, (x, n)| {
            // Exact in f64 for these n (clamped far beyond f32's range), then one rounding to f32.
            let want = (ldexp(x as f64, n.clamp(-400, 400)) as f32).to_bits();
            assert!(
                same32(w.vgpr[4][l], want),
                "{asm} {x:e}, {n}: got {:e}",
                f32::from_bits(w.vgpr[4][l])
            );
        },
    );
}

/// x · 2^n with one rounding, by exact scaling with powers of two and a final multiply whose
/// rounding is the only one (the last step's factor is chosen so that it is).
fn ldexp(x: f64, n: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let mut n = n.clamp(-3000, 3000);
    let mut x = x;
    // Scale up or down by 2^±600 steps while staying normal (exact).
    while n > 600 {
        x *= 2f64.powi(600);
        n -= 600;
        if x.is_infinite() {
            return x;
        }
    }
    while n < -600 && x.abs() > 2f64.powi(-400) {
        x *= 2f64.powi(-600);
        n += 600;
    }
    if n < -600 {
        // x is tiny already; anything further rounds to zero or the smallest denormal: do it
        // in two exact-ish halves so only the last multiply rounds.
        let half = n / 2;
        return (x * 2f64.powi(half)) * 2f64.powi(n - half);
    }
    x * 2f64.powi(n)
}

#[test]
fn division_sequences_give_the_ieee_quotient() {
    // LLVM's expansion of f32 fdiv with denormals on (fmath.gfx906.v5.s), here with n = v0,
    // d = v1; v_fmac_f32 (gfx906) as the compiler emits it.
    let f32_seq = "v_div_scale_f32 v2, s[2:3], v1, v1, v0\n\
        v_div_scale_f32 v3, vcc, v0, v1, v0\n\
        v_rcp_f32_e32 v4, v2\n\
        v_fma_f32 v5, -v2, v4, 1.0\n\
        v_fmac_f32_e32 v4, v5, v4\n\
        v_mul_f32_e32 v6, v3, v4\n\
        v_fma_f32 v5, -v2, v6, v3\n\
        v_fmac_f32_e32 v6, v5, v4\n\
        v_fma_f32 v7, -v2, v6, v3\n\
        v_div_fmas_f32 v7, v7, v4, v6\n\
        v_div_fixup_f32 v8, v7, v1, v0";
    let mut cases: Vec<(f32, f32)> = Vec::new();
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-45,
        f32::MAX,
        f32::MIN_POSITIVE,
        7.0,
        1e-40,
    ];
    for &a in &specials {
        for &b in &specials {
            cases.push((a, b));
        }
    }
    // Pseudo-random operands over the whole exponent range (scaling paths: huge/tiny
    // quotients, denormal numerators and denominators).
    let mut s = 0x1234_5678_9abc_def0u64;
    for _ in 0..1500 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = f32::from_bits((s >> 32) as u32 & 0xff7f_ffff);
        let b = f32::from_bits(s as u32 & 0xff7f_ffff);
        cases.push((a, b));
    }
    for_lanes(
        f32_seq,
        &cases,
        |w, l, (a, b)| {
            w.vgpr[0][l] = a.to_bits();
            w.vgpr[1][l] = b.to_bits();
        },
        |w, l, (a, b)| {
            let want = (a / b).to_bits();
            let got = w.vgpr[8][l];
            assert!(
                same32(got, want),
                "f32 {a:e} / {b:e}: got {:e} want {:e}",
                f32::from_bits(got),
                a / b
            );
        },
    );
    // f64 (dmath.gfx906.v5.s): n = v[0:1], d = v[2:3].
    let f64_seq = "v_div_scale_f64 v[4:5], s[0:1], v[2:3], v[2:3], v[0:1]\n\
        v_rcp_f64_e32 v[6:7], v[4:5]\n\
        v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0\n\
        v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]\n\
        v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0\n\
        v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]\n\
        v_div_scale_f64 v[8:9], vcc, v[0:1], v[2:3], v[0:1]\n\
        v_mul_f64 v[10:11], v[8:9], v[6:7]\n\
        v_fma_f64 v[4:5], -v[4:5], v[10:11], v[8:9]\n\
        v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[10:11]\n\
        v_div_fixup_f64 v[12:13], v[4:5], v[2:3], v[0:1]";
    let mut cases: Vec<(f64, f64)> = Vec::new();
    let specials = [
        0.0f64,
        -0.0,
        1.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        7.0,
        1e-310,
    ];
    for &a in &specials {
        for &b in &specials {
            cases.push((a, b));
        }
    }
    for _ in 0..1500 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = f64::from_bits(s & 0xffef_ffff_ffff_ffff);
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let b = f64::from_bits(s & 0xffef_ffff_ffff_ffff);
        cases.push((a, b));
    }
    // Quotients in and near the denormal range: n in [2^-1022, 2^-958), d in [1, 2^32), so
    // n / d lies in [2^-1054, 2^-958). The scaled FMA of v_div_fmas must round once, directly
    // to the denormal's precision.
    for _ in 0..2000 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = f64::from_bits((s & 0x000f_ffff_ffff_ffff) | (1 + (s >> 58)) << 52);
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let b = f64::from_bits((s & 0x000f_ffff_ffff_ffff) | (1023 + (s >> 59)) << 52);
        cases.push((a, b));
    }
    for_lanes(
        f64_seq,
        &cases,
        |w, l, (a, b)| {
            put64(w, 0, l, a.to_bits());
            put64(w, 2, l, b.to_bits());
        },
        |w, l, (a, b)| {
            let want = (a / b).to_bits();
            let got = get64(w, 12, l);
            assert!(
                same64(got, want),
                "f64 {a:e} / {b:e}: got {:e} want {:e}",
                f64::from_bits(got),
                a / b
            );
        },
    );
}

fn hf(x: f32) -> u16 {
    f16::from_f32(x).to_bits()
}
fn h64(b: u16) -> f64 {
    f16::from_bits(b).to_f64()
}
/// Rounds an exact f64 value to f16 (f64 holds every sum/product of two f16 exactly).
fn r16(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}

#[test]
fn f16_two_and_three_source_ops() {
    let vals: Vec<u16> = [
        0.0f32,
        -0.0,
        1.0,
        -2.5,
        65504.0,
        6e-8,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.333,
    ]
    .iter()
    .map(|&x| hf(x))
    .collect();
    let pairs: Vec<(u16, u16)> = vals
        .iter()
        .flat_map(|&a| vals.iter().map(move |&b| (a, b)))
        .collect();
    type F2 = fn(f64, f64) -> f64;
    let ops2: [(&str, F2); 2] = [("v_sub_f16", |a, b| a - b), ("v_subrev_f16", |a, b| b - a)];
    for (name, r) in ops2 {
        for asm in [
            format!("{name}_e32 v2, v0, v1"),
            format!("{name}_e64 v2, v0, v1"),
        ] {
            for_lanes(
                &asm,
                &pairs,
                |w, l, (a, b)| {
                    w.vgpr[0][l] = 0xdead_0000 | a as u32;
                    w.vgpr[1][l] = 0xbeef_0000 | b as u32;
                },
                |w, l, (a, b)| {
                    let want = r16(r(h64(a), h64(b)));
                    let got = w.vgpr[2][l] as u16;
                    let ok = got == want
                        || (f16::from_bits(got).is_nan() && f16::from_bits(want).is_nan());
                    assert!(ok, "{asm} {a:#x}, {b:#x}: got {got:#x} want {want:#x}");
                },
            );
        }
    }
    // v_trunc_f16.
    for_lanes(
        "v_trunc_f16_e32 v2, v0",
        &vals,
        |w, l, a| w.vgpr[0][l] = a as u32,
        |w, l, a| {
            let want = r16(h64(a).trunc());
            let got = w.vgpr[2][l] as u16;
            assert!(
                got == want || f16::from_bits(want).is_nan(),
                "v_trunc_f16 {a:#x}: {got:#x}"
            );
        },
    );
    // Three-source: min3/max3/med3 (NaN-dropping as for f32), the mad forms (product rounded
    // to f16, then the sum) and the fused fma_legacy.
    let small: Vec<u16> = [1.0f32, -2.0, 0.0, f32::NAN, 3.5, -0.0]
        .iter()
        .map(|&x| hf(x))
        .collect();
    let trip = cross3(&small, &small, &small);
    type F3 = fn(f64, f64, f64) -> f64;
    let ops3: [(&str, F3); 6] = [
        ("v_min3_f16", |a, b, c| minnum(minnum(a, b), c)),
        ("v_max3_f16", |a, b, c| maxnum(maxnum(a, b), c)),
        ("v_med3_f16", med3f),
        ("v_mad_legacy_f16", |a, b, c| h64(r16(a * b)) + c),
        ("v_fma_legacy_f16", |a, b, c| a * b + c),
        ("v_mad_f16", |a, b, c| h64(r16(a * b)) + c),
    ];
    for (name, r) in ops3 {
        let asm = format!("{name} v3, v0, v1, v2");
        for_lanes(
            &asm,
            &trip,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = a as u32;
                w.vgpr[1][l] = b as u32;
                w.vgpr[2][l] = c as u32;
            },
            |w, l, (a, b, c)| {
                let want = r16(r(h64(a), h64(b), h64(c)));
                let got = w.vgpr[3][l] as u16;
                let ok =
                    got == want || (f16::from_bits(got).is_nan() && f16::from_bits(want).is_nan());
                assert!(
                    ok,
                    "{name} {a:#x}, {b:#x}, {c:#x}: got {got:#x} want {want:#x}"
                );
            },
        );
    }
    // madmk/madak with K = 3.0 (0x4200).
    for (asm, r) in [
        (
            "v_madmk_f16 v3, v0, 0x4200, v1",
            (|a: f64, b: f64| h64(r16(a * 3.0)) + b) as F2,
        ),
        ("v_madak_f16 v3, v0, v1, 0x4200", |a, b| {
            h64(r16(a * b)) + 3.0
        }),
    ] {
        for_lanes(
            asm,
            &pairs,
            |w, l, (a, b)| {
                w.vgpr[0][l] = a as u32;
                w.vgpr[1][l] = b as u32;
            },
            |w, l, (a, b)| {
                let want = r16(r(h64(a), h64(b)));
                let got = w.vgpr[3][l] as u16;
                let ok =
                    got == want || (f16::from_bits(got).is_nan() && f16::from_bits(want).is_nan());
                assert!(ok, "{asm} {a:#x}, {b:#x}: got {got:#x} want {want:#x}");
            },
        );
    }
    // v_div_fixup_f16 / _legacy: the f16 division special cases (S0 quotient, S1 den, S2 num).
    let q = hf(0.5);
    let fix: Vec<(u16, u16, f64)> = vec![
        (hf(1.0), hf(2.0), 0.5), // ordinary: |quotient| with the sign of num/den
        (hf(-2.0), hf(1.0), -2.0),
        (hf(0.0), hf(0.0), f64::NAN), // 0/0
        (hf(f32::INFINITY), hf(f32::INFINITY), f64::NAN),
        (hf(0.0), hf(3.0), f64::INFINITY), // x/0
        (hf(-0.0), hf(3.0), f64::NEG_INFINITY),
        (hf(f32::INFINITY), hf(3.0), 0.0), // x/inf
        (hf(3.0), hf(0.0), 0.0),           // 0/x
        (hf(2.0), hf(f32::INFINITY), f64::INFINITY),
        (hf(f32::NAN), hf(1.0), f64::NAN),
    ];
    for name in ["v_div_fixup_f16", "v_div_fixup_legacy_f16"] {
        let asm = format!("{name} v3, v0, v1, v2");
        for_lanes(
            &asm,
            &fix,
            |w, l, (d, n, _)| {
                w.vgpr[0][l] = q as u32;
                w.vgpr[1][l] = d as u32;
                w.vgpr[2][l] = n as u32;
            },
            |w, l, (d, n, want)| {
                let want = if (d, n) == (hf(1.0), hf(2.0)) {
                    0.5
                } else if (d, n) == (hf(-2.0), hf(1.0)) {
                    -0.5
                } else {
                    want
                };
                let got = h64(w.vgpr[3][l] as u16);
                let ok = got == want && got.is_sign_negative() == want.is_sign_negative()
                    || (got.is_nan() && want.is_nan());
                assert!(
                    ok,
                    "{name} q=0.5 den {d:#x} num {n:#x}: got {got} want {want}"
                );
            },
        );
    }
}

#[test]
fn sixteen_bit_integer_ops() {
    let v16: [u16; 8] = [0, 1, 2, 0x7fff, 0x8000, 0xffff, 0x1234, 0xfff0];
    let pairs: Vec<(u16, u16)> = v16
        .iter()
        .flat_map(|&a| v16.iter().map(move |&b| (a, b)))
        .collect();
    type F = fn(u16, u16) -> u16;
    let ops: [(&str, F); 5] = [
        ("v_subrev_u16", |a, b| b.wrapping_sub(a)),
        ("v_max_u16", |a, b| a.max(b)),
        ("v_max_i16", |a, b| (a as i16).max(b as i16) as u16),
        ("v_min_u16", |a, b| a.min(b)),
        ("v_min_i16", |a, b| (a as i16).min(b as i16) as u16),
    ];
    for (name, r) in ops {
        for asm in [
            format!("{name}_e32 v2, v0, v1"),
            format!("{name}_e64 v2, v0, v1"),
        ] {
            for_lanes(
                &asm,
                &pairs,
                |w, l, (a, b)| {
                    w.vgpr[0][l] = 0x5a5a_0000 | a as u32;
                    w.vgpr[1][l] = 0xa5a5_0000 | b as u32;
                },
                |w, l, (a, b)| {
                    assert_eq!(w.vgpr[2][l] as u16, r(a, b), "{asm} {a:#x}, {b:#x}");
                },
            );
        }
    }
    // v_add_i16 (VOP3): wraps, or saturates to the signed range with clamp.
    for (asm, clamp) in [
        ("v_add_i16 v2, v0, v1", false),
        ("v_add_i16 v2, v0, v1 clamp", true),
    ] {
        for_lanes(
            asm,
            &pairs,
            |w, l, (a, b)| {
                w.vgpr[0][l] = a as u32;
                w.vgpr[1][l] = b as u32;
            },
            |w, l, (a, b)| {
                let s = a as i16 as i32 + b as i16 as i32;
                let want = if clamp {
                    s.clamp(-32768, 32767) as u16
                } else {
                    s as u16
                };
                assert_eq!(w.vgpr[2][l] as u16, want, "{asm} {a:#x}, {b:#x}");
            },
        );
    }
    let trip = cross3(&v16, &v16, &[0u16, 0x7fff, 0x8001]);
    type G = fn(u16, u16, u16) -> u16;
    let ops3: [(&str, G); 9] = [
        ("v_mad_u16", |a, b, c| a.wrapping_mul(b).wrapping_add(c)),
        ("v_mad_i16", |a, b, c| a.wrapping_mul(b).wrapping_add(c)),
        ("v_mad_legacy_u16", |a, b, c| {
            a.wrapping_mul(b).wrapping_add(c)
        }),
        ("v_mad_legacy_i16", |a, b, c| {
            a.wrapping_mul(b).wrapping_add(c)
        }),
        ("v_min3_i16", |a, b, c| {
            (a as i16).min(b as i16).min(c as i16) as u16
        }),
        ("v_min3_u16", |a, b, c| a.min(b).min(c)),
        ("v_max3_u16", |a, b, c| a.max(b).max(c)),
        ("v_med3_i16", |a, b, c| {
            med3(a as i16, b as i16, c as i16) as u16
        }),
        ("v_med3_u16", |a, b, c| med3(a, b, c)),
    ];
    for (name, r) in ops3 {
        let asm = format!("{name} v3, v0, v1, v2");
        for_lanes(
            &asm,
            &trip,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = a as u32;
                w.vgpr[1][l] = b as u32;
                w.vgpr[2][l] = c as u32;
            },
            |w, l, (a, b, c)| {
                assert_eq!(
                    w.vgpr[3][l] as u16,
                    r(a, b, c),
                    "{name} {a:#x}, {b:#x}, {c:#x}"
                );
            },
        );
    }
    // With clamp the mads saturate: unsigned to [0, 0xffff], signed to [-32768, 32767].
    for (name, signed) in [("v_mad_u16", false), ("v_mad_i16", true)] {
        let asm = format!("{name} v3, v0, v1, v2 clamp");
        for_lanes(
            &asm,
            &trip,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = a as u32;
                w.vgpr[1][l] = b as u32;
                w.vgpr[2][l] = c as u32;
            },
            |w, l, (a, b, c)| {
                let want = if signed {
                    (a as i16 as i64 * b as i16 as i64 + c as i16 as i64).clamp(-32768, 32767)
                        as u16
                } else {
                    (a as i64 * b as i64 + c as i64).min(0xffff) as u16
                };
                assert_eq!(w.vgpr[3][l] as u16, want, "{asm} {a:#x}, {b:#x}, {c:#x}");
            },
        );
    }
}

#[test]
fn packed_integer_ops() {
    // Each half independently (op_sel defaults: low from low, high from high).
    let v16: [u16; 6] = [0, 1, 0x7fff, 0x8000, 0xffff, 0x1234];
    let cases: Vec<(u32, u32, u32)> = v16
        .iter()
        .flat_map(|&a| {
            v16.iter().map(move |&b| {
                (
                    a as u32 | (b as u32) << 16,
                    b as u32 | (a as u32) << 16,
                    0x8001_0003,
                )
            })
        })
        .collect();
    type F = fn(u16, u16, u16) -> u16;
    let ops: [(&str, F); 6] = [
        ("v_pk_mad_i16 v3, v0, v1, v2", |a, b, c| {
            a.wrapping_mul(b).wrapping_add(c)
        }),
        ("v_pk_add_i16 v3, v0, v1", |a, b, _| a.wrapping_add(b)),
        ("v_pk_lshrrev_b16 v3, v0, v1", |a, b, _| b >> (a & 15)),
        ("v_pk_min_i16 v3, v0, v1", |a, b, _| {
            (a as i16).min(b as i16) as u16
        }),
        ("v_pk_sub_u16 v3, v0, v1", |a, b, _| a.wrapping_sub(b)),
        ("v_pk_max_u16 v3, v0, v1", |a, b, _| a.max(b)),
    ];
    for (asm, r) in ops {
        for_lanes(
            asm,
            &cases,
            |w, l, (a, b, c)| {
                w.vgpr[0][l] = a;
                w.vgpr[1][l] = b;
                w.vgpr[2][l] = c;
            },
            |w, l, (a, b, c)| {
                let lo = r(a as u16, b as u16, c as u16);
                let hi = r((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16);
                assert_eq!(
                    w.vgpr[3][l],
                    lo as u32 | (hi as u32) << 16,
                    "{asm} {a:#x}, {b:#x}, {c:#x}"
                );
            },
        );
    }
    // Clamped forms saturate each half.
    type Sat = fn(u16, u16) -> u16;
    let sat: [(&str, Sat); 2] = [
        ("v_pk_add_i16 v3, v0, v1 clamp", |a, b| {
            (a as i16 as i32 + b as i16 as i32).clamp(-32768, 32767) as u16
        }),
        ("v_pk_sub_u16 v3, v0, v1 clamp", |a, b| a.saturating_sub(b)),
    ];
    for (asm, r) in sat {
        for_lanes(
            asm,
            &cases,
            |w, l, (a, b, _)| {
                w.vgpr[0][l] = a;
                w.vgpr[1][l] = b;
            },
            |w, l, (a, b, _)| {
                let want = r(a as u16, b as u16) as u32
                    | (r((a >> 16) as u16, (b >> 16) as u16) as u32) << 16;
                assert_eq!(w.vgpr[3][l], want, "{asm} {a:#x}, {b:#x}");
            },
        );
    }
}

#[test]
fn mad_mix_lo_hi_write_one_half() {
    // gfx900's v_mad_mix*: each source f32, or f16 when op_sel_hi says so; the product is
    // rounded to f32 (not fused), the sum to f32, then to f16 into one half of D, keeping the
    // other. Sources: v0 = f16 pair {1.5, -2.0}, v1 = f16 pair {3.0, 0.25}, v2 = f32 0.125.
    let asm = "v_mad_mixlo_f16 v3, v0, v1, v2 op_sel_hi:[1,1,0]\nv_mad_mixhi_f16 v4, v0, v1, v2 op_sel:[1,1,0] op_sel_hi:[1,1,0]";
    let w = run_with(Target::Gfx900, asm, &mut Memory::default(), |w| {
        for l in 0..64 {
            w.vgpr[0][l] = hf(1.5) as u32 | (hf(-2.0) as u32) << 16;
            w.vgpr[1][l] = hf(3.0) as u32 | (hf(0.25) as u32) << 16;
            w.vgpr[2][l] = 0.125f32.to_bits();
            w.vgpr[3][l] = 0xabcd_0000;
            w.vgpr[4][l] = 0x0000_1234;
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        let lo = r16((1.5f32 * 3.0 + 0.125) as f64);
        let hi = r16((-2.0f32 * 0.25 + 0.125) as f64);
        assert_eq!(w.vgpr[3][0], 0xabcd_0000 | lo as u32);
        assert_eq!(w.vgpr[4][0], (hi as u32) << 16 | 0x1234);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn misc_vop1_nop_swap_fmac_xnor() {
    // v_nop does nothing; v_swap_b32 exchanges two VGPRs in the active lanes; v_fmac_f32 is
    // D = S0 * S1 + D fused; v_xnor_b32 is ~(S0 ^ S1) (both gfx906).
    let w = run("v_nop\nv_swap_b32 v0, v1\nv_fmac_f32_e32 v2, v3, v4\nv_fmac_f32_e64 v5, v3, v4\nv_xnor_b32_e32 v6, v0, v1\nv_xnor_b32_e64 v7, v0, 5", |w| {
        w.set_exec(u64::MAX >> 1);
        for l in 0..64 {
            w.vgpr[0][l] = l as u32;
            w.vgpr[1][l] = 100 + l as u32;
            w.vgpr[2][l] = (-1.0f32).to_bits();
            w.vgpr[3][l] = (1.0f32 + f32::EPSILON).to_bits();
            w.vgpr[4][l] = (1.0f32 - f32::EPSILON / 2.0).to_bits();
            w.vgpr[5][l] = (-1.0f32).to_bits();
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        let a = 1.0f32 + f32::EPSILON;
        let b = 1.0f32 - f32::EPSILON / 2.0;
        let fused = a.mul_add(b, -1.0);
        assert_ne!(fused, a * b - 1.0, "inputs must tell fused from unfused");
        for l in 0..63 {
            assert_eq!(
                (w.vgpr[0][l], w.vgpr[1][l]),
                (100 + l as u32, l as u32),
                "swap lane {l}"
            );
            assert_eq!(w.vgpr[2][l], fused.to_bits(), "v_fmac_f32_e32");
            assert_eq!(w.vgpr[5][l], fused.to_bits(), "v_fmac_f32_e64");
            assert_eq!(
                w.vgpr[6][l],
                !((100 + l as u32) ^ l as u32),
                "v_xnor_b32_e32"
            );
            assert_eq!(w.vgpr[7][l], !((100 + l as u32) ^ 5), "v_xnor_b32_e64");
        }
        assert_eq!(
            (w.vgpr[0][63], w.vgpr[1][63]),
            (63, 163),
            "inactive lane swapped"
        );
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
