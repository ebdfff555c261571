//! f32 and f64 arithmetic with exactly specified results (fmath.hip, dmath.hip).
//!
//! The kernels run with denormals enabled (`.amdhsa_float_denorm_mode_32 3`,
//! `_16_64 3`) and round-to-nearest-even, which is Rust's float semantics. Division and square
//! root are the correctly rounded sequences of ROCm's device library (v_div_scale/v_div_fmas/
//! v_div_fixup; v_sqrt_f32 and v_rsq_f64 refined with FMAs), so the reference uses `/` and
//! `sqrt`. No input is NaN: NaN payloads are not what these tests are about.

use super::{canary, put, Arg, Buffer, Case, Lcg, LeBytes};

/// 250 work-items in 4 blocks of 64.
pub fn fmath() -> Case {
    let n = 250usize;
    let mut g = Lcg::new(12);
    let mut a: Vec<f32> = (0..n).map(|_| g.f32_exp(-20, 20)).collect();
    let mut b: Vec<f32> = (0..n).map(|_| g.f32_exp(-20, 20)).collect();
    let mut c: Vec<f32> = (0..n).map(|_| g.f32_exp(-20, 20)).collect();
    // Edge rows: an exact quotient, a zero numerator, denormal quotients and FMA results,
    // integral values for the rounding functions, a perfect square.
    let edges: [(f32, f32, f32); 8] = [
        (3.0, 3.0, -9.0),
        (0.0, 7.5, 2.5),
        (1.5e-38, 3.0e5, -1.0),
        (-1.0e-20, 1.0e-20, 1.0e-39),
        (2.5, -2.5, 0.5),
        (-0.5, 1.5, -2.5),
        (144.0, 0.1, 1.0e-30),
        (3.0e-39, -7.0, 1.0e-45),
    ];
    for (k, &(x, y, z)) in edges.iter().enumerate() {
        let i = 29 * k + 5;
        (a[i], b[i], c[i]) = (x, y, z);
    }
    let mut out = canary(n * 32);
    let mut outi = canary(n * 16);
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let o = [
            x / y,
            x.mul_add(y, z),
            x.abs().sqrt(),
            x.mul_add(y, z),
            x.min(y),
            y.max(z),
            x.floor() - y.ceil(),
            z.trunc() + y.round_ties_even(),
        ];
        for (k, v) in o.iter().enumerate() {
            put(&mut out, 8 * i + k, v.to_le_bytes());
        }
        let p0 = x as i32;
        let mixed = (i as u32).wrapping_mul(2_654_435_761) as f32;
        let p = [
            p0,
            y.abs() as u32 as i32,
            (p0 as f32).mul_add(0.5, mixed).to_bits() as i32,
            (1.0 / y).to_bits() as i32,
        ];
        for (k, v) in p.iter().enumerate() {
            put(&mut outi, 4 * i + k, v.to_le_bytes());
        }
    }
    Case {
        fixture: "fmath",
        kernel: "fmath",
        grid: [n.div_ceil(64) as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("a", 4, a.le_bytes())),
            Arg::Buffer(Buffer::input("b", 4, b.le_bytes())),
            Arg::Buffer(Buffer::input("c", 4, c.le_bytes())),
            Arg::Buffer(Buffer::output("out", 4, canary(out.len()), out)),
            Arg::Buffer(Buffer::output("outi", 4, canary(outi.len()), outi)),
            Arg::I32(n as i32),
        ],
    }
}

/// 250 work-items in 4 blocks of 64.
pub fn dmath() -> Case {
    let n = 250usize;
    let mut g = Lcg::new(13);
    let mut a: Vec<f64> = (0..n).map(|_| g.f64_exp(-30, 30)).collect();
    let mut b: Vec<f64> = (0..n).map(|_| g.f64_exp(-30, 30)).collect();
    let mut c: Vec<f64> = (0..n).map(|_| g.f64_exp(-30, 30)).collect();
    // Edge rows: perfect squares, zero, a denormal (sqrt's scaled path), an exact quotient,
    // a value that rounds to f32 at a tie, large integers for the conversions.
    let edges: [(f64, f64, f64); 7] = [
        (1_048_576.0 * 1_048_576.0, 3.0, 1.0),
        (0.0, -2.0, 0.0),
        (1.0e-310, 1.0e-5, 1.0e-300),
        (6.25, 2.5, -6.25),
        (2.0f64.powi(-1000), 7.0, 1.0 + 2.0f64.powi(-24)),
        (-123456.75, 1.0e12, -(2.0f64.powi(39) + 0.5)),
        (2.0f64.powi(49), -3.5e11, 1.5),
    ];
    for (k, &(x, y, z)) in edges.iter().enumerate() {
        let i = 31 * k + 3;
        (a[i], b[i], c[i]) = (x, y, z);
    }
    let mut out = canary(n * 64);
    let mut outl = canary(n * 16);
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let o = [
            x + y,
            x * y,
            x.mul_add(y, z),
            x / y,
            x.abs().sqrt(),
            x.mul_add(y, z),
            f64::from(z as f32),
            ((y as i64).wrapping_mul(3).wrapping_add(1)) as f64,
        ];
        for (k, v) in o.iter().enumerate() {
            put(&mut out, 8 * i + k, v.to_le_bytes());
        }
        let l = [(x * 1024.0) as i64, (z * 65536.0).abs() as u64 as i64];
        for (k, v) in l.iter().enumerate() {
            put(&mut outl, 2 * i + k, v.to_le_bytes());
        }
    }
    Case {
        fixture: "dmath",
        kernel: "dmath",
        grid: [n.div_ceil(64) as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("a", 8, a.le_bytes())),
            Arg::Buffer(Buffer::input("b", 8, b.le_bytes())),
            Arg::Buffer(Buffer::input("c", 8, c.le_bytes())),
            Arg::Buffer(Buffer::output("out", 8, canary(out.len()), out)),
            Arg::Buffer(Buffer::output("outl", 8, canary(outl.len()), outl)),
            Arg::I32(n as i32),
        ],
    }
}
