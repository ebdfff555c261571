//! LDS atomics of every kind HIP exposes (ldsatomics.hip): per-block results of commutative
//! updates on __shared__ int/unsigned/u64/float, and returned old values on per-thread
//! addresses. The reference replays each block's updates in order; the order does not matter.

use super::{canary, Arg, Buffer, Case, Lcg, LeBytes};

const N: usize = 1000;
const BLOCK: usize = 256;

/// atomicInc: old >= limit ? 0 : old + 1.
fn inc(old: u32, limit: u32) -> u32 {
    if old >= limit {
        0
    } else {
        old + 1
    }
}

/// atomicDec: (old == 0 || old > limit) ? limit : old - 1.
fn dec(old: u32, limit: u32) -> u32 {
    if old == 0 || old > limit {
        limit
    } else {
        old - 1
    }
}

pub fn ldsatomics() -> Case {
    let groups = N.div_ceil(BLOCK);
    let mut g = Lcg::new(77);
    let input: Vec<i32> = (0..N)
        .map(|i| match i % 3 {
            0 => g.next_u32() as i32,
            _ => g.range_i32(-5000, 5000),
        })
        .collect();
    // Quarters in [-16, 16]: partial sums of up to 256 of them are exact in f32 in any order.
    let fin: Vec<f32> = (0..N).map(|_| g.range_i32(-64, 64) as f32 / 4.0).collect();

    let mut out_i = Vec::new();
    let mut out_u = Vec::new();
    let mut out_64 = Vec::new();
    let mut out_f = Vec::new();
    let mut olds = vec![0i32; 5 * N];
    let mut olds64 = vec![0u64; 3 * N];
    for b in 0..groups {
        let mut si = [0, 0, i32::MIN, i32::MAX, -1, 0, 0, 0];
        let mut su = [0, 0, 0, u32::MAX, u32::MAX, 0, 0, 0, 5, 0];
        let mut s64 = [0, 0, u64::MAX, u64::MAX, 0, 0, 0, 0];
        let mut sf = 0f32;
        for tid in 0..BLOCK {
            let i = b * BLOCK + tid;
            if i >= N {
                break;
            }
            let v = input[i];
            let u = v as u32;
            let w = (v as i64 as u64).wrapping_mul(0x10001);
            si[0] = si[0].wrapping_add(v);
            si[1] = si[1].wrapping_sub(v);
            si[2] = si[2].max(v);
            si[3] = si[3].min(v);
            si[4] &= v | 0x0ff0_ff00;
            si[5] |= 1i32.wrapping_shl(v as u32 & 31);
            si[6] ^= v;
            su[0] = su[0].wrapping_add(u);
            su[1] = su[1].wrapping_sub(u);
            su[2] = su[2].max(u);
            su[3] = su[3].min(u);
            su[4] &= u | 0xf0f0_f0f0;
            su[5] |= u & 0x1111_1111;
            su[6] ^= u;
            su[7] = inc(su[7], 12);
            su[8] = dec(su[8], 6);
            s64[0] = s64[0].wrapping_add(w);
            s64[1] = s64[1].max(w);
            s64[2] = s64[2].min(w);
            s64[3] &= w | 0xff00_ff00_ff00_ff00;
            s64[4] |= 1u64 << (v as u32 & 63);
            s64[5] ^= w;
            sf += fin[i];
            // Per-thread slot: add 5, exchange, CAS that succeeds, CAS that fails, inc.
            let mut per = (tid * 3 + 1) as i32;
            olds[5 * i] = per;
            per = per.wrapping_add(5);
            olds[5 * i + 1] = per;
            per = v;
            olds[5 * i + 2] = per;
            per = v.wrapping_add(1);
            olds[5 * i + 3] = per;
            if per == 12345 {
                per = 0;
            }
            olds[5 * i + 4] = per;
            let mut p64 = ((tid as u64) << 32) + 7;
            olds64[3 * i] = p64;
            p64 = p64.wrapping_add(w);
            olds64[3 * i + 1] = p64;
            p64 = w ^ 0x5555;
            olds64[3 * i + 2] = p64;
        }
        out_i.extend_from_slice(&si);
        out_u.extend_from_slice(&su);
        out_64.extend_from_slice(&s64);
        out_f.push(sf);
    }
    Case {
        fixture: "ldsatomics",
        kernel: "ldsatomics",
        grid: [groups as u32, 1, 1],
        block: [BLOCK as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::input("fin", 4, fin.le_bytes())),
            Arg::Buffer(Buffer::output(
                "out_i",
                4,
                canary(4 * out_i.len()),
                out_i.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "out_u",
                4,
                canary(4 * out_u.len()),
                out_u.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "out_64",
                8,
                canary(8 * out_64.len()),
                out_64.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "out_f",
                4,
                canary(4 * out_f.len()),
                out_f.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "olds",
                4,
                canary(4 * olds.len()),
                olds.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "olds64",
                8,
                canary(8 * olds64.len()),
                olds64.le_bytes(),
            )),
            Arg::I32(N as i32),
        ],
    }
}
