//! Loops with divergent exits (loops.hip).

use super::{canary, put, Arg, Buffer, Case, Lcg, LeBytes};

/// One work-item of `loops`: the four words it writes.
fn reference(x: u32, limit: u32) -> [u32; 4] {
    let (mut acc, mut steps) = (0u32, 0u32);
    let trips = (x & 63) + 1;
    for k in 0..trips {
        let h = x
            .wrapping_mul(2_654_435_761)
            .wrapping_add(k.wrapping_mul(40503));
        if h >> 29 == 3 {
            continue;
        }
        acc = acc.wrapping_mul(31).wrapping_add(h ^ (acc >> 7));
        steps += 1;
        if acc % 97 == 13 {
            break;
        }
        if steps == limit {
            return [acc, steps, u32::MAX, k];
        }
    }
    let (mut y, mut c) = ((x >> 8) | 1, 0u32);
    let bound = (x >> 25) + 40;
    while y != 1 && c < bound {
        y = if y & 1 == 1 {
            y.wrapping_mul(3).wrapping_add(1)
        } else {
            y >> 1
        };
        c += 1;
    }
    [acc, steps, c, y]
}

/// 333 work-items in 6 blocks of 64; `limit` 20 makes some work-items return from inside the loop.
pub fn loops() -> Case {
    let n = 333usize;
    let limit = 20u32;
    let mut g = Lcg::new(11);
    let input: Vec<u32> = (0..n)
        .map(|i| match i % 4 {
            0 => g.next_u32() & 0xffff,
            _ => g.next_u32(),
        })
        .collect();
    let mut out = canary(n * 16);
    for (i, &x) in input.iter().enumerate() {
        for (k, w) in reference(x, limit).iter().enumerate() {
            put(&mut out, 4 * i + k, w.to_le_bytes());
        }
    }
    Case {
        fixture: "loops",
        kernel: "loops",
        grid: [n.div_ceil(64) as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::output("out", 4, canary(out.len()), out)),
            Arg::I32(n as i32),
            Arg::U32(limit),
        ],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_inputs_reach_every_exit() {
        let case = super::loops();
        let super::Arg::Buffer(out) = &case.args[1] else {
            unreachable!()
        };
        let words: Vec<u32> = out
            .expect
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let rows: Vec<&[u32]> = words.chunks(4).collect();
        assert!(rows.iter().any(|r| r[2] == u32::MAX), "no early return");
        assert!(
            rows.iter().any(|r| r[2] != u32::MAX && r[3] != 1),
            "no loop hits its bound"
        );
        assert!(
            rows.iter().any(|r| r[2] != u32::MAX && r[3] == 1),
            "no Collatz end"
        );
    }
}
