//! hipcc kernels whose results are not bit-exact by definition, or that exercise the call stack:
//! ROCm math-library calls (libm.hip), f16 and packed-f16 arithmetic (halfmath.hip) and
//! device-function calls with stack arrays and run-time-depth recursion (calls.hip). Each runs
//! through `super::run_case` on every target and code object version and is compared with a CPU
//! reference: exactly where the result is specified exactly, within a stated ulp bound where
//! the library only promises one.
//!
//! The library bounds are the maximum errors in ULPs that the HIP math API reference documents
//! for ROCm's device library, measured against the C++ standard library
//! (rocm.docs.amd.com, HIP, "HIP math API", maximum error bounds): f32 sinf 1, cosf 1, expf 1,
//! logf 2, powf 1, tanhf 2, erff 4, sqrtf 1; f64 sin 1, cos 1, exp 1, log 1, pow 1, sqrt 1,
//! tanh 1, log2 1, exp2 1. The references here are within 1 ULP of the exact value themselves
//! (f32 functions evaluated in f64 and rounded; glibc's double functions), so each check allows
//! the documented bound plus 1.

use gcn_tests::kernels::{canary, Arg, Buffer, Case, Lcg, LeBytes, TARGETS, VERSIONS};

/// Distance in ULPs between two finite floats (through their ordered bit patterns).
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

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// erf by its Maclaurin series, summed in f64: for |x| <= 4 the terms' cancellation costs at
/// most ~7 of f64's 16 digits, far below an f32 ULP.
fn erf(x: f64) -> f64 {
    let (mut term, mut sum, x2) = (x, x, x * x);
    let mut n = 0.0;
    while term.abs() > 1e-30 * sum.abs().max(1e-300) {
        n += 1.0;
        term *= -x2 / n;
        sum += term / (2.0 * n + 1.0);
        if n > 200.0 {
            break;
        }
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// Runs `case` everywhere, handing each run's buffers to `check`.
fn each_run(case: &Case, check: impl Fn(&str, &[Vec<u8>])) {
    for target in TARGETS {
        for version in VERSIONS {
            let got = super::run_case(case, target, version)
                .unwrap_or_else(|e| panic!("{} {target} v{version}: {e}", case.kernel));
            check(&format!("{} {target} v{version}", case.kernel), &got);
        }
    }
}

#[test]
fn libm_within_documented_ulps() {
    let n = 256usize;
    let mut g = Lcg::new(41);
    // x: |x| in [2^-6, 2^4) (sin/cos/log/pow bases), a few huge arguments for the large
    // range reductions; y: exponents and erf/tanh arguments in (-4, 4).
    let mut a: Vec<f32> = (0..n).map(|_| g.f32_exp(-6, 3)).collect();
    let b: Vec<f32> = (0..n).map(|_| g.f32_exp(-8, 1)).collect();
    let mut c: Vec<f64> = (0..n).map(|_| g.f64_exp(-6, 3)).collect();
    let d: Vec<f64> = (0..n).map(|_| g.f64_exp(-8, 2)).collect();
    for (k, &(x, u)) in [
        (1e4f32, 1e6f64),
        (-3.0e5, -1e22),
        (1e20, 1e300),
        (0.5, 3.0e9),
        (-1e-30, 1e-300),
    ]
    .iter()
    .enumerate()
    {
        a[37 * k + 3] = x;
        c[37 * k + 3] = u;
    }
    let case = Case {
        fixture: "libm",
        kernel: "libm",
        grid: [4, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("a", 4, a.le_bytes())),
            Arg::Buffer(Buffer::input("b", 4, b.le_bytes())),
            Arg::Buffer(Buffer::input("c", 8, c.le_bytes())),
            Arg::Buffer(Buffer::input("d", 8, d.le_bytes())),
            Arg::Buffer(Buffer::output("outf", 4, canary(32 * n), canary(32 * n))),
            Arg::Buffer(Buffer::output("outd", 8, canary(64 * n), canary(64 * n))),
            Arg::I32(n as i32),
        ],
    };
    // (name, reference, allowed ulps = documented + 1).
    type F = fn(f64, f64) -> f64;
    let fref: [(&str, F, u64); 8] = [
        ("sinf", |x, _| x.sin(), 2),
        ("cosf", |x, _| x.cos(), 2),
        ("expf", |_, y| y.exp(), 2),
        ("logf", |x, _| x.abs().ln(), 3),
        ("powf", |x, y| x.abs().powf(y), 2),
        ("tanhf", |_, y| y.tanh(), 3),
        ("erff", |_, y| erf(y), 5),
        ("sqrtf", |x, _| x.abs().sqrt(), 2),
    ];
    let dref: [(&str, F, u64); 7] = [
        ("sin", |u, _| u.sin(), 2),
        ("cos", |u, _| u.cos(), 2),
        ("exp", |_, v| v.exp(), 2),
        ("log", |u, _| u.abs().ln(), 2),
        ("pow", |u, v| u.abs().powf(v), 2),
        ("sqrt", |u, _| u.abs().sqrt(), 1),
        ("tanh", |_, v| v.tanh(), 2),
    ];
    each_run(&case, |what, got| {
        let (of, od) = (f32s(&got[4]), f64s(&got[5]));
        let mut worst = [0u64; 8];
        for i in 0..n {
            let (x, y) = (a[i] as f64, b[i] as f64);
            for (k, (name, r, bound)) in fref.iter().enumerate() {
                let want = r(x, y) as f32;
                let g = of[8 * i + k];
                let e = ulps32(g, want);
                worst[k] = worst[k].max(e);
                assert!(
                    e <= *bound,
                    "{what}: {name}({x:e}, {y:e}) = {g:e}, want {want:e} ({e} ulps > {bound})"
                );
            }
            let (u, v) = (c[i], d[i]);
            for (k, (name, r, bound)) in dref.iter().enumerate() {
                let want = r(u, v);
                let g = od[8 * i + k];
                let e = ulps64(g, want);
                assert!(
                    e <= *bound,
                    "{what}: {name}({u:e}, {v:e}) = {g:e}, want {want:e} ({e} ulps > {bound})"
                );
            }
            // log2(|u|) + exp2(v): each term within 2 ULPs, plus the add's rounding.
            let (l2, e2) = (u.abs().log2(), v.exp2());
            let tol = 2.0 * (ulp(l2) + ulp(e2)) + ulp(l2 + e2);
            let g = od[8 * i + 7];
            assert!(
                (g - (l2 + e2)).abs() <= tol,
                "{what}: log2({u:e}) + exp2({v:e}) = {g:e}, want {:e}",
                l2 + e2
            );
        }
        eprintln!("{what}: worst f32 ulps {worst:?}");
    });
}

/// The spacing of f64 values at `x`.
fn ulp(x: f64) -> f64 {
    let x = x.abs();
    f64::from_bits(x.to_bits() + 1) - x
}

fn h(x: f64) -> u16 {
    half::f16::from_f64(x).to_bits()
}
fn hv(b: u16) -> f64 {
    half::f16::from_bits(b).to_f64()
}

#[test]
fn half_and_packed_half_exact() {
    // The f16 arithmetic ops are correctly rounded, so their results are exact: every f16 sum,
    // product and fused product-sum of f16 values is exact in f64 (or rounded to odd bits that
    // f16 cannot see), then rounded once by `half`. __hdiv goes through an f32 reciprocal
    // estimate and v_div_fixup_f16, so it is allowed 1 f16 ULP (halfmath.gfx906.v5.s).
    let n = 200usize;
    let mut g = Lcg::new(77);
    let mut vals = || -> Vec<u16> { (0..n).map(|_| h(g.f32_exp(-5, 4) as f64)).collect() };
    let (mut a, mut b, mut c) = (vals(), vals(), vals());
    for (k, &(x, y, z)) in [
        (0.0, 1.0, -0.0),
        (2.0, 2.0, -4.0),
        (6e-5, 1e-3, 3e-8),
        (-0.5, 0.5, 0.25),
    ]
    .iter()
    .enumerate()
    {
        let i = 41 * k + 7;
        (a[i], b[i], c[i]) = (h(x), h(y), h(z));
    }
    let bytes16 = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let case = Case {
        fixture: "halfmath",
        kernel: "halfmath",
        grid: [4, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("a", 2, bytes16(&a))),
            Arg::Buffer(Buffer::input("b", 2, bytes16(&b))),
            Arg::Buffer(Buffer::input("c", 2, bytes16(&c))),
            Arg::Buffer(Buffer::output("out", 2, canary(32 * n), canary(32 * n))),
            Arg::Buffer(Buffer::output("outf", 4, canary(8 * n), canary(8 * n))),
            Arg::I32(n as i32),
        ],
    };
    each_run(&case, |what, got| {
        let out: Vec<u16> = got[3]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let outf = f32s(&got[4]);
        for i in 0..n {
            let (x, y, z) = (hv(a[i]), hv(b[i]), hv(c[i]));
            // s = fma2({x,y},{y,z},{z,x}); t = {x,y}*{z,x}; u = {y,z} - {z,x}; w = s*t - u (the
            // compiler contracts it into v_pk_fma_f16 with a negated addend).
            let s = [h(x.mul_add(y, z)), h(y.mul_add(z, x))];
            let t = [h(x * z), h(y * x)];
            let u = [h(y - z), h(z - x)];
            let w = [
                h(hv(s[0]).mul_add(hv(t[0]), -hv(u[0]))),
                h(hv(s[1]).mul_add(hv(t[1]), -hv(u[1]))),
            ];
            let want: [u16; 16] = [
                h(x + y),
                h(x - y),
                h(x * y),
                h(x.mul_add(y, z)),
                h(x / y), // checked within 1 ULP below
                h(x.max(z)),
                h(y.min(z)),
                h(x * 3.0),
                s[0],
                s[1],
                t[0],
                t[1],
                u[0],
                u[1],
                w[0],
                w[1],
            ];
            for k in 0..16 {
                let gk = out[16 * i + k];
                let ok = if k == 4 {
                    // Same sign (bit 15) and adjacent bit patterns: within 1 ULP.
                    (gk as i32 - want[k] as i32).abs() <= 1 && (gk ^ want[k]) & 0x8000 == 0
                } else {
                    gk == want[k]
                };
                assert!(ok, "{what}: item {i} out[{k}] = {gk:#06x} ({}), want {:#06x} ({}) for x={x} y={y} z={z}", hv(gk), want[k], hv(want[k]));
            }
            let fx = hv(s[0]) as f32 + hv(s[1]) as f32;
            assert_eq!(
                outf[2 * i].to_bits(),
                fx.to_bits(),
                "{what}: item {i} outf[0]"
            );
            assert_eq!(
                outf[2 * i + 1],
                (x as f32) * (y as f32),
                "{what}: item {i} outf[1]"
            );
        }
    });
}

/// mix_table of calls.hip, in Rust (C int arithmetic wraps here as it cannot overflow).
fn mix_table(seed: i32, n: i32) -> i32 {
    let t: Vec<i32> = (0..24)
        .map(|k| seed.wrapping_mul(k + 1) ^ (k << 4))
        .collect();
    (0..n).fold(0i32, |s, k| {
        s.wrapping_add(t[((k * 7 + seed) % 24) as usize].wrapping_mul(k + 1))
    })
}

/// walk of calls.hip, in Rust.
fn walk(depth: i32, x: u32) -> u32 {
    let buf: Vec<u32> = (0..4)
        .map(|k| x.wrapping_mul(2 * k + 3).wrapping_add(depth as u32))
        .collect();
    if depth <= 0 {
        return buf[(x & 3) as usize];
    }
    let r = walk(depth - 1, x ^ (x >> 3) ^ depth as u32);
    r.wrapping_mul(31) ^ buf[(r.wrapping_add(depth as u32) & 3) as usize]
}

#[test]
fn calls_with_stack_arrays_and_recursion() {
    // 130 work-items (a partial third wave); recursion depths 0..=15 differ per lane, so the
    // lanes of a wave call and return at different depths under divergent EXEC.
    let n = 130usize;
    let mut g = Lcg::new(5);
    let seeds: Vec<i32> = (0..n).map(|_| g.range_i32(0, 100_000)).collect();
    let depths: Vec<i32> = (0..n)
        .map(|i| if i % 7 == 0 { 0 } else { g.range_i32(0, 15) })
        .collect();
    let mut expect = vec![0i32; 2 * n];
    for i in 0..n {
        expect[2 * i] = mix_table(seeds[i], depths[i] + 5);
        expect[2 * i + 1] = walk(depths[i], seeds[i] as u32) as i32;
    }
    let case = Case {
        fixture: "calls",
        kernel: "calls",
        grid: [3, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("seeds", 4, seeds.le_bytes())),
            Arg::Buffer(Buffer::input("depths", 4, depths.le_bytes())),
            Arg::Buffer(Buffer::output("out", 4, canary(8 * n), expect.le_bytes())),
            Arg::I32(n as i32),
        ],
    };
    each_run(&case, |what, got| {
        if let Err(e) = case.check(got) {
            panic!("{what}: {e}");
        }
    });
}
