//! Directed rounding (MODE.FP_ROUND[1:0] = 1 toward +inf, 2 toward -inf, 3 toward zero) of f32
//! arithmetic, run through `gcnemu::exec::issue::execute`. The reference here is independent of
//! the emulator: f32 values become exact integers times powers of two (i128), sums, products and
//! fused multiply-adds are formed exactly, and the result is bracketed between its two f32
//! neighbours by exact comparison.

mod exec_common;
use exec_common::MODE_DENORMS;
use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::exec::{issue, Cx, DispatchEnv, Flow};
use gcnemu::fault::Fault;
use gcnemu::lds::Lds;
use gcnemu::memory::Memory;
use gcnemu::wave::Wave;
use std::cmp::Ordering;

const UP: u32 = 1;
const DOWN: u32 = 2;
const ZERO: u32 = 3;

/// Runs `asm` on one gfx906 wave through `issue::execute`, with FP_ROUND[3:0] = `round`.
fn run(asm: &str, round: u32, setup: impl FnOnce(&mut Wave)) -> Result<Wave, Fault> {
    let code =
        assemble(&format!("{asm}\ns_endpgm\n"), Target::Gfx906).unwrap_or_else(|e| panic!("{e:?}"));
    let program = Program::decode(&code.bytes, 0x1000, Target::Gfx906);
    let mut w = Wave::new(0);
    w.set_exec(u64::MAX);
    w.mode = MODE_DENORMS | round;
    setup(&mut w);
    let (mut mem, mut lds) = (Memory::default(), Lds::new(1024));
    let env = DispatchEnv {
        private_size: 0,
        ..DispatchEnv::default()
    };
    let mut cx = Cx {
        wave: &mut w,
        mem: &mut mem,
        lds: &mut lds,
        program: &program,
        env: &env,
    };
    loop {
        let at = cx.wave.pc;
        let d = &program.insts[at as usize];
        cx.wave.pc = at + 1;
        match issue::execute(&mut cx, d)? {
            Flow::Continue => {}
            Flow::End => return Ok(w),
            other => panic!("{other:?}"),
        }
    }
}

// ---- the exact reference ----

/// A finite f32 as m * 2^e exactly.
fn parts(x: f32) -> (i128, i32) {
    let b = x.to_bits();
    let (exp, frac) = ((b >> 23) & 0xff, (b & 0x7f_ffff) as i128);
    let (m, e) = if exp == 0 {
        (frac, -149)
    } else {
        (frac | 0x80_0000, exp as i32 - 150)
    };
    (if b >> 31 != 0 { -m } else { m }, e)
}

fn add_exact(a: (i128, i32), b: (i128, i32)) -> (i128, i32) {
    let e = a.1.min(b.1);
    ((a.0 << (a.1 - e)) + (b.0 << (b.1 - e)), e)
}

fn mul_exact(a: (i128, i32), b: (i128, i32)) -> (i128, i32) {
    (a.0 * b.0, a.1 + b.1)
}

fn cmp_exact(a: (i128, i32), b: (i128, i32)) -> Ordering {
    let e = a.1.min(b.1);
    (a.0 << (a.1 - e)).cmp(&(b.0 << (b.1 - e)))
}

fn step_up(x: f32) -> f32 {
    let b = x.to_bits();
    match (x == 0.0, b >> 31) {
        (true, _) => f32::from_bits(1),
        (false, 0) => f32::from_bits(b + 1),
        _ => f32::from_bits(b - 1),
    }
}

fn step_down(x: f32) -> f32 {
    -step_up(-x)
}

/// The exact nonzero value `v` (inside the finite f32 range) rounded toward `round`.
fn round_ref(v: (i128, i32), round: u32) -> f32 {
    let mut lo = (v.0 as f64 * 2f64.powi(v.1)) as f32;
    while cmp_exact(parts(lo), v) == Ordering::Greater {
        lo = step_down(lo);
    }
    while cmp_exact(parts(step_up(lo)), v) != Ordering::Greater {
        lo = step_up(lo);
    }
    if cmp_exact(parts(lo), v) == Ordering::Equal {
        return lo;
    }
    let hi = step_up(lo);
    match round {
        UP => hi,
        DOWN => lo,
        _ if v.0 > 0 => lo,
        _ => hi,
    }
}

/// Deterministic f32 test values: random 24-bit mantissas, exponents in [-20, 20], both signs.
fn values(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (s >> 16) as u32;
            let exp = 127 - 20 + (r >> 24) % 41;
            let sign = ((s >> 63) as u32) << 31;
            f32::from_bits(sign | exp << 23 | (r & 0x7f_ffff))
        })
        .collect()
}

fn row(v: &[f32]) -> [u32; 64] {
    std::array::from_fn(|l| v[l].to_bits())
}

/// Runs a binary/ternary op over random lanes in every direction against `exact`.
fn check(asm: &str, srcs: usize, exact: impl Fn(&[f32]) -> (i128, i32)) {
    for batch in 0..6u64 {
        let inputs: Vec<Vec<f32>> = (0..srcs)
            .map(|i| values(batch * 7 + i as u64, 64))
            .collect();
        for round in [UP, DOWN, ZERO] {
            let w = run(asm, round, |w| {
                for (i, v) in inputs.iter().enumerate() {
                    w.vgpr[i] = row(v);
                }
            })
            .unwrap();
            let chk = |w: &gcnemu::wave::Wave| {
                for l in 0..64 {
                    let args: Vec<f32> = inputs.iter().map(|v| v[l]).collect();
                    let want = round_ref(exact(&args), round);
                    assert_eq!(
                        w.vgpr[10][l],
                        want.to_bits(),
                        "{asm} round {round} args {args:?}: got {}",
                        f32::from_bits(w.vgpr[10][l])
                    );
                }
            };
            chk(&w);
            exec_common::vet(&w, chk);
        }
    }
}

#[test]
fn add_sub_subrev_round_in_each_direction() {
    check("v_add_f32_e32 v10, v0, v1", 2, |a| {
        add_exact(parts(a[0]), parts(a[1]))
    });
    check("v_sub_f32_e32 v10, v0, v1", 2, |a| {
        add_exact(parts(a[0]), parts(-a[1]))
    });
    check("v_subrev_f32_e32 v10, v0, v1", 2, |a| {
        add_exact(parts(a[1]), parts(-a[0]))
    });
}

#[test]
fn mul_and_fma_round_once() {
    check("v_mul_f32_e32 v10, v0, v1", 2, |a| {
        mul_exact(parts(a[0]), parts(a[1]))
    });
    check("v_fma_f32 v10, v0, v1, v2", 3, |a| {
        add_exact(mul_exact(parts(a[0]), parts(a[1])), parts(a[2]))
    });
    // v_fmac_f32 (gfx906): the accumulator is the destination's old value.
    check("v_mov_b32 v10, v2\nv_fmac_f32 v10, v0, v1", 3, |a| {
        add_exact(mul_exact(parts(a[0]), parts(a[1])), parts(a[2]))
    });
}

#[test]
fn mad_and_mac_round_twice() {
    for round in [UP, DOWN, ZERO] {
        let (a, b, c) = (values(91, 64), values(92, 64), values(93, 64));
        let w = run(
            "v_mad_f32 v10, v0, v1, v2\nv_mov_b32 v11, v2\nv_mac_f32 v11, v0, v1",
            round,
            |w| {
                w.vgpr[0] = row(&a);
                w.vgpr[1] = row(&b);
                w.vgpr[2] = row(&c);
            },
        )
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            for l in 0..64 {
                let p = round_ref(mul_exact(parts(a[l]), parts(b[l])), round);
                let want = round_ref(add_exact(parts(p), parts(c[l])), round);
                assert_eq!(w.vgpr[10][l], want.to_bits(), "mad {round} lane {l}");
                assert_eq!(w.vgpr[11][l], want.to_bits(), "mac {round} lane {l}");
            }
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn exact_zero_sums_take_the_ieee_sign() {
    // x + (-x) is +0 except toward -inf, where it is -0.
    for (round, sign) in [(UP, 0), (DOWN, 0x8000_0000u32), (ZERO, 0)] {
        let w = run("v_add_f32_e32 v10, v0, v1", round, |w| {
            w.vgpr[0] = [3.5f32.to_bits(); 64];
            w.vgpr[1] = [(-3.5f32).to_bits(); 64];
        })
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            assert_eq!(w.vgpr[10][0], sign, "round {round}");
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn overflow_and_underflow_follow_the_direction() {
    let max = f32::MAX.to_bits();
    let inf = f32::INFINITY.to_bits();
    for (round, big, small) in [(UP, inf, 1u32), (DOWN, max, 0), (ZERO, max, 0)] {
        let w = run(
            "v_mul_f32_e32 v10, v0, v1\nv_mul_f32_e32 v11, v2, v3",
            round,
            |w| {
                w.vgpr[0] = [f32::MAX.to_bits(); 64];
                w.vgpr[1] = [2.0f32.to_bits(); 64];
                w.vgpr[2] = [1; 64]; // the smallest denormal
                w.vgpr[3] = [0.5f32.to_bits(); 64];
            },
        )
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            assert_eq!(w.vgpr[10][0], big, "MAX * 2, round {round}");
            assert_eq!(w.vgpr[11][0], small, "2^-149 * 0.5, round {round}");
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn conversions_to_f32_round_in_each_direction() {
    // 2^24 + 1 lies between 2^24 and 2^24 + 2; 0xffffffff between 2^32 - 256 and 2^32.
    let third = 1.0f64 / 3.0;
    let cases = [
        (UP, 16777218.0f32, 4294967296.0f32, -16777216.0f32),
        (DOWN, 16777216.0, 4294967040.0, -16777218.0),
        (ZERO, 16777216.0, 4294967040.0, -16777216.0),
    ];
    for (round, i, u, neg) in cases {
        let w = run(
            "v_cvt_f32_i32_e32 v10, v0\nv_cvt_f32_u32_e32 v11, v1\nv_cvt_f32_i32_e32 v12, v2\nv_cvt_f32_f64_e32 v13, v[4:5]",
            round,
            |w| {
                w.vgpr[0] = [16777217; 64];
                w.vgpr[1] = [u32::MAX; 64];
                w.vgpr[2] = [(-16777217i32) as u32; 64];
                w.vgpr[4] = [third.to_bits() as u32; 64];
                w.vgpr[5] = [(third.to_bits() >> 32) as u32; 64];
            },
        )
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            assert_eq!(f32::from_bits(w.vgpr[10][0]), i, "i32 round {round}");
            assert_eq!(f32::from_bits(w.vgpr[11][0]), u, "u32 round {round}");
            assert_eq!(f32::from_bits(w.vgpr[12][0]), neg, "-i32 round {round}");
            // 1/3 in f64 is not an f32: it lies strictly between two neighbours.
            let lo = third as f32;
            let (lo, hi) = if (lo as f64) < third {
                (lo, step_up(lo))
            } else {
                (step_down(lo), lo)
            };
            let want = if round == UP { hi } else { lo };
            assert_eq!(f32::from_bits(w.vgpr[13][0]), want, "f64 round {round}");
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn ldexp_and_div_fmas_round_into_the_denormals() {
    // 1.5 * 2^-149 is between the two smallest denormals 2^-149 and 2^-148.
    for (round, want) in [(UP, 2u32), (DOWN, 1), (ZERO, 1)] {
        let w = run("v_ldexp_f32 v10, v0, v1", round, |w| {
            w.vgpr[0] = [1.5f32.to_bits(); 64];
            w.vgpr[1] = [(-149i32) as u32; 64];
        })
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            assert_eq!(w.vgpr[10][0], want, "round {round}");
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
    // v_div_fmas_f32 with VCC set and |S2| < 2 scales fma(S0, S1, S2) by 2^-64:
    // (1.5 * 2^-85) * 2^-64 = 1.5 * 2^-149 again.
    for (round, want) in [(UP, 2u32), (DOWN, 1), (ZERO, 1)] {
        let w = run("v_div_fmas_f32 v10, v0, v1, v2", round, |w| {
            w.vgpr[0] = [1.5f32.to_bits(); 64];
            w.vgpr[1] = [2f32.powi(-85).to_bits(); 64];
            w.vgpr[2] = [0; 64];
            w.set_vcc(u64::MAX);
        })
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            assert_eq!(w.vgpr[10][0], want, "round {round}");
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn exact_ops_run_unchanged_and_unmodelled_ones_are_named() {
    // min, floor and integer ops do not depend on the direction.
    let w = run(
        "v_min_f32_e32 v10, v0, v1\nv_floor_f32_e32 v11, v0\nv_add_u32_e32 v12, v0, v1",
        ZERO,
        |w| {
            w.vgpr[0] = [2.5f32.to_bits(); 64];
            w.vgpr[1] = [(-1.0f32).to_bits(); 64];
        },
    )
    .unwrap();
    assert_eq!(f32::from_bits(w.vgpr[10][0]), -1.0);
    assert_eq!(f32::from_bits(w.vgpr[11][0]), 2.0);
    assert_eq!(
        w.vgpr[12][0],
        2.5f32.to_bits().wrapping_add((-1.0f32).to_bits())
    );
    // A transcendental under a directed mode is not modelled: a named error, not a guess.
    match run("v_sqrt_f32_e32 v10, v0", UP, |_| {}).unwrap_err() {
        Fault::Guest(m) => assert!(m.contains("v_sqrt_f32") && m.contains("toward +inf"), "{m}"),
        other => panic!("{other:?}"),
    }
    // f64 ops follow FP_ROUND[3:2]: unaffected by an f32-only mode, refused under their own.
    // 1 + 2^-60: nearest-even gives 1.0; toward +inf would give 1 + 2^-52.
    let w = run("v_add_f64 v[10:11], v[0:1], v[2:3]", UP, |w| {
        w.vgpr[1] = [(1.0f64.to_bits() >> 32) as u32; 64];
        w.vgpr[3] = [(2f64.powi(-60).to_bits() >> 32) as u32; 64];
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.vgpr[10][0], w.vgpr[11][0]), (0, 0x3ff0_0000));
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let e = run("v_add_f64 v[10:11], v[0:1], v[2:3]", DOWN << 2, |_| {}).unwrap_err();
    assert!(matches!(e, Fault::Guest(m) if m.contains("v_add_f64") && m.contains("f16/f64")));
}

#[test]
fn rounding_composes_with_vgpr_indexing() {
    // src0 v0 -> v1 (index 1); 1 + 2^-30 toward +inf is 1 + 2^-23.
    let w = run(
        "s_set_gpr_idx_on 1, gpr_idx(SRC0)\nv_add_f32_e32 v10, v0, v2\ns_set_gpr_idx_off",
        UP,
        |w| {
            w.vgpr[0] = [100.0f32.to_bits(); 64];
            w.vgpr[1] = [1.0f32.to_bits(); 64];
            w.vgpr[2] = [2f32.powi(-30).to_bits(); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(f32::from_bits(w.vgpr[10][0]), 1.0 + f32::EPSILON);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
