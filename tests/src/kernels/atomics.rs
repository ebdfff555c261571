//! Global and LDS atomics (atomics.hip). Every final value is independent of the order in which
//! lanes and waves perform their updates, so the reference is exact.

use super::{canary, Arg, Buffer, Case, Lcg, LeBytes};

pub fn atomics() -> Case {
    let n = 700usize;
    let block = 128usize;
    let groups = n.div_ceil(block);
    let mut g = Lcg::new(10);
    let input: Vec<i32> = (0..n)
        .map(|i| match i % 5 {
            0 => g.next_u32() as i32,
            _ => g.range_i32(-(1 << 20), 1 << 20),
        })
        .collect();
    // Quarters in [-16, 16]: every partial sum of up to 175 of them is a multiple of 1/4 below
    // 2^12 in magnitude, exact in f32 whatever the order (the f32 add is a CAS loop on gfx9).
    let fin: Vec<f32> = (0..n).map(|_| g.range_i32(-64, 64) as f32 / 4.0).collect();

    let mut counters = vec![0i32; 10];
    counters[9] = 1; // the running product of the CAS loop
    let counters_init = counters.clone();
    let mut fsum = [0f32; 4];
    let extremes_init = [i32::MIN, i32::MAX, 0, 0];
    let mut extremes = extremes_init;
    let acc64_init = 0x0123_4567_89ab_cdefu64;
    let mut acc64 = acc64_init;
    let slots_init: Vec<i32> = (0..2 * n as i32).map(|j| j * 3 + 7).collect();
    let mut slots = slots_init.clone();
    let mut olds = vec![0i32; 2 * n];
    let mut blockhist = vec![0i32; 8 * groups];
    for (i, &v) in input.iter().enumerate() {
        let bin = (v & 7) as usize;
        blockhist[8 * (i / block) + bin] += 1;
        counters[bin] += 1;
        counters[8] = counters[8].wrapping_add(v);
        let prod = (counters[9] as u32).wrapping_mul(2u32.wrapping_mul(v as u32).wrapping_add(1));
        counters[9] = prod as i32;
        fsum[i & 3] += fin[i];
        extremes[0] = extremes[0].max(v);
        extremes[1] = extremes[1].min(v);
        extremes[2] = (extremes[2] as u32).max(v as u32) as i32;
        extremes[3] |= 1 << (v & 31);
        acc64 = acc64.wrapping_add((i64::from(v) * i64::from(v)) as u64);
        olds[i] = slots[i];
        slots[i] = slots[i].wrapping_add(i as i32 + 1);
        olds[n + i] = slots[n + i];
        slots[n + i] = v;
    }
    Case {
        fixture: "atomics",
        kernel: "atomics",
        grid: [groups as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::input("fin", 4, fin.le_bytes())),
            Arg::Buffer(Buffer::output(
                "counters",
                4,
                counters_init.le_bytes(),
                counters.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "fsum",
                4,
                [0f32; 4].le_bytes(),
                fsum.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "extremes",
                4,
                extremes_init.le_bytes(),
                extremes.le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "acc64",
                8,
                [acc64_init].le_bytes(),
                [acc64].le_bytes(),
            )),
            Arg::Buffer(Buffer::output(
                "slots",
                4,
                slots_init.le_bytes(),
                slots.le_bytes(),
            )),
            Arg::Buffer(Buffer::output("olds", 4, canary(8 * n), olds.le_bytes())),
            Arg::Buffer(Buffer::output(
                "blockhist",
                4,
                canary(32 * groups),
                blockhist.le_bytes(),
            )),
            Arg::I32(n as i32),
        ],
    }
}
