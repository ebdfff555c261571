//! Wave-level operations: votes (ballot.hip) and shuffles (shuffle.hip).
//!
//! Work-items map to waves as on the hardware: a block's work-items in linear order, 64 per wave;
//! a block of 96 has a second wave whose lanes 32..63 do not exist (never set in EXEC).

use super::{canary, put, Arg, Buffer, Case, Lcg, LeBytes};

const WAVE: usize = 64;

pub fn ballot() -> Case {
    let n = 500usize;
    let block = 96usize;
    let groups = 6usize;
    let waves_per_block = block.div_ceil(WAVE);
    let mut g = Lcg::new(8);
    let mut input: Vec<i32> = (0..n).map(|_| g.range_i32(-50, 50)).collect();
    // Block 0's half wave all positive (__all over a partial EXEC is 1), block 1's half wave all
    // non-positive (__any is 0), block 2's first wave all positive (__all over a full wave).
    for v in &mut input[64..96] {
        *v = v.abs() + 1;
    }
    for v in &mut input[96 + 64..192] {
        *v = -v.abs();
    }
    for v in &mut input[192..256] {
        *v = v.abs() + 1;
    }
    let pred = |i: usize| i < n && input[i] > 0;
    let mut masks = canary(groups * waves_per_block * 2 * 8);
    let mut info = canary(n * 4);
    for b in 0..groups {
        for w in 0..waves_per_block {
            let lanes = (block - w * WAVE).min(WAVE);
            let gid = |l: usize| b * block + w * WAVE + l;
            let mut mask = 0u64;
            let mut odd = 0u64;
            for l in 0..lanes {
                mask |= u64::from(pred(gid(l))) << l;
                if l % 2 == 1 && gid(l) < n && input[gid(l)] & 4 != 0 {
                    odd |= 1 << l;
                }
            }
            let exec = if lanes == WAVE {
                u64::MAX
            } else {
                (1u64 << lanes) - 1
            };
            let all = u32::from(mask == exec);
            let any = u32::from(mask != 0);
            let wave = b * waves_per_block + w;
            put(&mut masks, 2 * wave, mask.to_le_bytes());
            put(&mut masks, 2 * wave + 1, odd.to_le_bytes());
            for l in 0..lanes {
                let i = gid(l);
                if i < n {
                    let below = (mask & ((1u64 << l) - 1)).count_ones();
                    let v = mask.count_ones()
                        | below << 8
                        | all << 16
                        | any << 17
                        | u32::from(pred(i)) << 18;
                    put(&mut info, i, v.to_le_bytes());
                }
            }
        }
    }
    Case {
        fixture: "ballot",
        kernel: "ballot",
        grid: [groups as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::output("masks", 8, canary(masks.len()), masks)),
            Arg::Buffer(Buffer::output("info", 4, canary(n * 4), info)),
            Arg::I32(n as i32),
        ],
    }
}

/// `ds_bpermute_b32` as HIP's shuffles use it: the source lane is bits 7:2 of the byte address
/// `index << 2`.
fn bpermute(vals: &[i32; WAVE], index: i32) -> i32 {
    vals[(((index as u32) << 2) >> 2) as usize % WAVE]
}

/// The bodies of HIP's `__shfl*` (amd_warp_functions.h), lane by lane.
fn shfl(v: &[i32; WAVE], lane: i32, src: i32, width: i32) -> i32 {
    bpermute(v, src + (lane & !(width - 1)))
}

fn shfl_xor(v: &[i32; WAVE], lane: i32, mask: i32, width: i32) -> i32 {
    let index = lane ^ mask;
    let index = if index >= ((lane + width) & !(width - 1)) {
        lane
    } else {
        index
    };
    bpermute(v, index)
}

fn shfl_down(v: &[i32; WAVE], lane: i32, delta: i32, width: i32) -> i32 {
    let index = if (lane & (width - 1)) + delta >= width {
        lane
    } else {
        lane + delta
    };
    bpermute(v, index)
}

fn shfl_up(v: &[i32; WAVE], lane: i32, delta: i32, width: i32) -> i32 {
    let index = lane - delta;
    let index = if index < (lane & !(width - 1)) {
        lane
    } else {
        index
    };
    bpermute(v, index)
}

/// 300 elements in 3 blocks of 128: six full waves; lanes past `n` shuffle the last element.
pub fn shuffle() -> Case {
    let n = 300usize;
    let block = 128usize;
    let groups = 3usize;
    let mut g = Lcg::new(9);
    let input: Vec<i32> = (0..n).map(|_| g.range_i32(-(1 << 20), 1 << 20)).collect();
    let mut out = canary(n * 32);
    for w in 0..groups * block / WAVE {
        let v: [i32; WAVE] = std::array::from_fn(|l| input[(w * WAVE + l).min(n - 1)]);
        let mut s = v;
        let mut off = 32;
        while off > 0 {
            s = std::array::from_fn(|l| s[l].wrapping_add(shfl_xor(&s, l as i32, off, 64)));
            off >>= 1;
        }
        for (l, &sum) in s.iter().enumerate() {
            let i = w * WAVE + l;
            if i >= n {
                continue;
            }
            let lane = l as i32;
            let r = [
                shfl(&v, lane, (lane * 7 + 3) & 63, 64),
                shfl(&v, lane, 2, 16),
                shfl_xor(&v, lane, 5, 64),
                shfl_xor(&v, lane, 3, 8),
                shfl_down(&v, lane, 3, 64),
                shfl_down(&v, lane, 9, 16),
                shfl_up(&v, lane, 4, 64),
                sum,
            ];
            for (k, x) in r.iter().enumerate() {
                put(&mut out, 8 * i + k, x.to_le_bytes());
            }
        }
    }
    Case {
        fixture: "shuffle",
        kernel: "shuffle",
        grid: [groups as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::output("out", 4, canary(out.len()), out)),
            Arg::I32(n as i32),
        ],
    }
}
