//! LDS with barriers: a block reduction in dynamic LDS and a tile transpose in static LDS.

use super::{canary, Arg, Buffer, Case, Lcg, LeBytes};

/// 1000 elements in 4 blocks of 256 work-items (4 waves each); dynamic LDS holds three
/// 256-word arrays. The f32 sum is checked bit-exactly: the reference adds in the kernel's tree
/// order (each level adds element `tid + stride` into `tid`).
pub fn block_reduce() -> Case {
    let n = 1000usize;
    let block = 256usize;
    let groups = n.div_ceil(block);
    let mut g = Lcg::new(6);
    let input: Vec<u32> = (0..n).map(|_| g.next_u32()).collect();
    let fin: Vec<f32> = (0..n).map(|_| g.f32_exp(-6, 6)).collect();
    let (mut sums, mut maxes, mut fsums) = (vec![], vec![], vec![]);
    for b in 0..groups {
        let idx = |t: usize| b * block + t;
        let mut s: Vec<u32> = (0..block)
            .map(|t| input.get(idx(t)).copied().unwrap_or(0))
            .collect();
        let mut m = s.clone();
        let mut f: Vec<f32> = (0..block)
            .map(|t| fin.get(idx(t)).copied().unwrap_or(0.0))
            .collect();
        let mut stride = block / 2;
        while stride > 0 {
            for t in 0..stride {
                s[t] = s[t].wrapping_add(s[t + stride]);
                m[t] = m[t].max(m[t + stride]);
                f[t] += f[t + stride];
            }
            stride /= 2;
        }
        sums.push(s[0]);
        maxes.push(m[0]);
        fsums.push(f[0]);
    }
    Case {
        fixture: "reduce",
        kernel: "block_reduce",
        grid: [groups as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: (3 * block * 4) as u32,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::input("fin", 4, fin.le_bytes())),
            Arg::Buffer(Buffer::output(
                "sums",
                4,
                canary(groups * 4),
                sums.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "maxes",
                4,
                canary(groups * 4),
                maxes.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "fsums",
                4,
                canary(groups * 4),
                fsums.le_bytes(),
            )),
            Arg::I32(n as i32),
        ],
    }
}

/// A 37x45 matrix transposed through 16x16 tiles (3x3 blocks of 256 work-items).
pub fn transpose() -> Case {
    let (rows, cols) = (37usize, 45usize);
    let mut g = Lcg::new(7);
    let input: Vec<u32> = (0..rows * cols).map(|_| g.next_u32()).collect();
    let mut out = vec![0u32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = input[r * cols + c];
        }
    }
    Case {
        fixture: "transpose",
        kernel: "transpose",
        grid: [cols.div_ceil(16) as u32, rows.div_ceil(16) as u32, 1],
        block: [16, 16, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::output(
                "out",
                4,
                canary(rows * cols * 4),
                out.le_bytes(),
            )),
            Arg::I32(rows as i32),
            Arg::I32(cols as i32),
        ],
    }
}
