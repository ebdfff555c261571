//! Integer division and 64-bit math (intmath.hip).

use super::{canary, Arg, Buffer, Case, Lcg, LeBytes};

/// A 32-bit operand: a mix of small values, edge values, powers of two and full-range values, so
/// that one wave takes several of the division sequences' paths.
fn operand32(g: &mut Lcg) -> i32 {
    match g.next_u32() % 6 {
        0 => g.range_i32(-100, 100),
        1 => [0, 1, -1, 2, i32::MIN, i32::MAX, i32::MIN + 1, 7][(g.next_u32() % 8) as usize],
        2 => 1i32.wrapping_shl(g.next_u32() % 32),
        3 => g.range_i32(-70000, 70000),
        _ => g.next_u32() as i32,
    }
}

/// A 64-bit operand: small ones take the compiler's 32-bit fast path, the rest the full
/// 64-bit expansion.
fn operand64(g: &mut Lcg) -> u64 {
    match g.next_u32() % 6 {
        0 => u64::from(g.next_u32() % 1000),
        1 => u64::from(g.next_u32()),
        2 => 1u64 << (g.next_u32() % 64),
        3 => {
            [0, 1, u64::MAX, i64::MAX as u64, i64::MIN as u64, 1 << 32][(g.next_u32() % 6) as usize]
        }
        4 => (g.next_u64() as i64 >> (g.next_u32() % 40)) as u64,
        _ => g.next_u64(),
    }
}

/// HIP's `__ffs`/`__ffsll`: 1 + index of the lowest set bit, 0 for 0.
fn ffs(x: u64) -> u32 {
    if x == 0 {
        0
    } else {
        x.trailing_zeros() + 1
    }
}

pub fn intmath() -> Case {
    let n = 300usize;
    let mut g = Lcg::new(5);
    let (mut a, mut b, mut c, mut d) = (vec![], vec![], vec![], vec![]);
    for _ in 0..n {
        let x = operand32(&mut g);
        let mut y = operand32(&mut g);
        // No division by zero and no INT_MIN / -1: both are undefined in C.
        if y == 0 || (x == i32::MIN && y == -1) {
            y = 3;
        }
        let p = operand64(&mut g);
        let mut q = operand64(&mut g);
        if q == 0 || (p == i64::MIN as u64 && q == u64::MAX) {
            q = 5;
        }
        a.push(x);
        b.push(y);
        c.push(p);
        d.push(q);
    }
    let mut out32: Vec<u32> = Vec::with_capacity(8 * n);
    let mut out64: Vec<u64> = Vec::with_capacity(8 * n);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let (ux, uy) = (x as u32, y as u32);
        let (p, q) = (c[i], d[i]);
        let (sp, sq) = (p as i64, q as i64);
        out32.extend([
            (x / y) as u32,
            (x % y) as u32,
            ux / uy,
            ux % uy,
            ((u64::from(ux) * u64::from(uy)) >> 32) as u32,
            ((i64::from(x) * i64::from(y)) >> 32) as u32,
            ux.count_ones()
                | ux.leading_zeros() << 8
                | p.count_ones() << 16
                | p.leading_zeros() << 24,
            ffs(u64::from(ux)) | ffs(p) << 8 | (ux.reverse_bits() & 0xffff_0000),
        ]);
        // HIP's __mul64hi builds the signed high half from 32-bit pieces; every intermediate
        // fits, so it equals the exact 128-bit product's high half.
        let mul64hi = ((i128::from(sp) * i128::from(sq)) >> 64) as u64;
        out64.extend([
            p / q,
            p % q,
            (sp / sq) as u64,
            (sp % sq) as u64,
            ((u128::from(p) * u128::from(q)) >> 64) as u64,
            mul64hi ^ p.wrapping_mul(q),
            (p << (ux & 63)) ^ (p >> (uy & 63)),
            (sp >> (uy % 64)) as u64,
        ]);
    }
    Case {
        fixture: "intmath",
        kernel: "intmath",
        grid: [3, 1, 1],
        block: [128, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("a", 4, a.le_bytes())),
            Arg::Buffer(Buffer::input("b", 4, b.le_bytes())),
            Arg::Buffer(Buffer::input("c", 8, c.le_bytes())),
            Arg::Buffer(Buffer::input("d", 8, d.le_bytes())),
            Arg::Buffer(Buffer::output("out32", 4, canary(n * 32), out32.le_bytes())),
            Arg::Buffer(Buffer::output("out64", 8, canary(n * 64), out64.le_bytes())),
            Arg::I32(n as i32),
        ],
    }
}
