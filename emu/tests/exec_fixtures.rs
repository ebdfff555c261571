//! End-to-end runs of the committed HIP fixtures (`tests/fixtures/hip/*.co`) through the library
//! API, checked against CPU computations of the same algorithms.

use gcn_isa::Target;
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
use std::path::PathBuf;

fn fixture(name: &str) -> (String, Vec<u8>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hip")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (name.to_string(), bytes)
}

fn device(target: Target) -> Device {
    Device::new(DeviceConfig {
        target,
        ..Default::default()
    })
}

fn upload<T: Copy>(dev: &mut Device, data: &[T]) -> u64 {
    let bytes = as_bytes(data);
    let a = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(a, &bytes).unwrap();
    a
}

fn as_bytes<T: Copy>(data: &[T]) -> Vec<u8> {
    let n = std::mem::size_of_val(data);
    // SAFETY: T is a plain number type here; we copy its bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, n) }.to_vec()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn saxpy(target: Target, file: &str) {
    let (name, bytes) = fixture(file);
    let mut dev = device(target);
    let module = dev.load(&name, &bytes).unwrap();
    // n is not a multiple of the block size, so the bounds check matters.
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 100.0).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 1.25).collect();
    let xa = upload(&mut dev, &x);
    let ya = upload(&mut dev, &y);
    let a = 2.5f32;
    let dims = Dims {
        grid: [4, 1, 1],
        block: [256, 1, 1],
    };
    let args = [Arg::F32(a), Arg::Ptr(xa), Arg::Ptr(ya), Arg::I32(n as i32)];
    let stats = dev
        .launch(&module, "saxpy", dims, &args, &LaunchOptions::default())
        .unwrap();
    let got = f32s(&dev.read(ya, 4 * n).unwrap());
    for i in 0..n {
        // v_fma_f32: one rounding.
        assert_eq!(got[i].to_bits(), a.mul_add(x[i], y[i]).to_bits(), "y[{i}]");
    }
    assert_eq!(stats.workgroups, 4);
    assert_eq!(stats.waves, 16);
    assert!(stats.wave_instructions > 16 * 10);
}

#[test]
fn saxpy_gfx900() {
    saxpy(Target::Gfx900, "saxpy.gfx900.co");
}

#[test]
fn saxpy_gfx906() {
    saxpy(Target::Gfx906, "saxpy.gfx906.co");
}

#[test]
fn reduce_sum_lds_barrier_atomic() {
    let (name, bytes) = fixture("reduce.gfx900.co");
    let mut dev = device(Target::Gfx900);
    let module = dev.load(&name, &bytes).unwrap();
    let n = 3000usize;
    // Small integers keep every partial sum exact, so the order of the float atomics is moot.
    let input: Vec<f32> = (0..n).map(|i| ((i * 7) % 13) as f32).collect();
    let ia = upload(&mut dev, &input);
    let oa = upload(&mut dev, &[0f32]);
    let dims = Dims {
        grid: [12, 1, 1],
        block: [256, 1, 1],
    };
    let args = [Arg::Ptr(ia), Arg::Ptr(oa), Arg::I32(n as i32)];
    dev.launch(
        &module,
        "reduce_sum",
        dims,
        &args,
        &LaunchOptions::default(),
    )
    .unwrap();
    let got = f32s(&dev.read(oa, 4).unwrap())[0];
    assert_eq!(got, input.iter().sum::<f32>());
}

#[test]
fn collatz_divergent_loops() {
    let (name, bytes) = fixture("loop.gfx900.co");
    let mut dev = device(Target::Gfx900);
    let module = dev.load(&name, &bytes).unwrap();
    let n = 128usize;
    let start: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    let sa = upload(&mut dev, &start);
    let oa = upload(&mut dev, &vec![0u32; n]);
    let (limit, repeat) = (200i32, 3i32);
    let dims = Dims {
        grid: [2, 1, 1],
        block: [64, 1, 1],
    };
    let args = [
        Arg::Ptr(sa),
        Arg::Ptr(oa),
        Arg::I32(limit),
        Arg::I32(repeat),
    ];
    dev.launch(&module, "collatz", dims, &args, &LaunchOptions::default())
        .unwrap();
    let got = u32s(&dev.read(oa, 4 * n).unwrap());
    for i in 0..n {
        let mut total = 0u32;
        for r in 0..repeat as u32 {
            let mut x = start[i].wrapping_add(r);
            let mut steps = 0u32;
            while x != 1 && steps < limit as u32 {
                x = if x & 1 != 0 {
                    x.wrapping_mul(3).wrapping_add(1)
                } else {
                    x >> 1
                };
                steps += 1;
            }
            total += steps;
        }
        assert_eq!(got[i], total, "steps[{i}]");
    }
}

#[test]
fn mix64_64bit_integer_math() {
    let (name, bytes) = fixture("math64.gfx906.co");
    let mut dev = device(Target::Gfx906);
    let module = dev.load(&name, &bytes).unwrap();
    let n = 64usize;
    let input: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 40))
        .collect();
    let ia = upload(&mut dev, &input);
    let oa = upload(&mut dev, &vec![0u64; n]);
    let k = 0x1234_5678_9abc_def1u64;
    let dims = Dims {
        grid: [1, 1, 1],
        block: [64, 1, 1],
    };
    let args = [Arg::Ptr(ia), Arg::Ptr(oa), Arg::U64(k)];
    dev.launch(&module, "mix64", dims, &args, &LaunchOptions::default())
        .unwrap();
    let got = u64s(&dev.read(oa, 8 * n).unwrap());
    for i in 0..n {
        let mut x = input[i];
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(k).wrapping_add(x << 7).wrapping_sub(x >> 3);
        let want = if x > k { x - k } else { x.wrapping_add(k) };
        assert_eq!(got[i], want, "out[{i}]");
    }
}

#[test]
fn int_div_32_and_64_bit() {
    let (name, bytes) = fixture("intdiv.gfx900.co");
    let mut dev = device(Target::Gfx900);
    let module = dev.load(&name, &bytes).unwrap();
    let n = 64usize;
    let a: Vec<i32> = (0..n as i32).map(|i| i * 7919 - 200_000).collect();
    let b: Vec<i32> = (0..n as i32)
        .map(|i| if i % 2 == 0 { i + 1 } else { -(i * 3) - 1 })
        .collect();
    let c: Vec<u64> = (0..n as u64)
        .map(|i| u64::MAX / (i + 2) + i * 12345)
        .collect();
    let d: Vec<u64> = (0..n as u64)
        .map(|i| if i % 3 == 0 { i + 1 } else { (i << 33) + 7 })
        .collect();
    let (aa, ba, ca, da) = (
        upload(&mut dev, &a),
        upload(&mut dev, &b),
        upload(&mut dev, &c),
        upload(&mut dev, &d),
    );
    let (qa, ra, q64) = (
        upload(&mut dev, &vec![0i32; n]),
        upload(&mut dev, &vec![0i32; n]),
        upload(&mut dev, &vec![0u64; n]),
    );
    let dims = Dims {
        grid: [1, 1, 1],
        block: [64, 1, 1],
    };
    let args = [aa, ba, qa, ra, ca, da, q64].map(Arg::Ptr);
    dev.launch(&module, "int_div", dims, &args, &LaunchOptions::default())
        .unwrap();
    let q = u32s(&dev.read(qa, 4 * n).unwrap());
    let r = u32s(&dev.read(ra, 4 * n).unwrap());
    let q2 = u64s(&dev.read(q64, 8 * n).unwrap());
    for i in 0..n {
        assert_eq!(q[i] as i32, a[i] / b[i], "q[{i}]");
        assert_eq!(r[i] as i32, a[i] % b[i], "r[{i}]");
        assert_eq!(q2[i], c[i] / d[i], "q64[{i}]");
    }
}

#[test]
fn warp_shuffle_ballot_popcount() {
    let (name, bytes) = fixture("warp.gfx900.co");
    let mut dev = device(Target::Gfx900);
    let module = dev.load(&name, &bytes).unwrap();
    let n = 128usize;
    let input: Vec<i32> = (0..n as i32)
        .map(|i| if i % 5 == 0 { -i } else { i * 3 - 50 })
        .collect();
    let ia = upload(&mut dev, &input);
    let sums = upload(&mut dev, &vec![0i32; n / 64]);
    let ballots = upload(&mut dev, &vec![0u64; n / 64]);
    let shifted = upload(&mut dev, &vec![0i32; n]);
    let dims = Dims {
        grid: [2, 1, 1],
        block: [64, 1, 1],
    };
    let args = [ia, sums, ballots, shifted].map(Arg::Ptr);
    dev.launch(&module, "warp_ops", dims, &args, &LaunchOptions::default())
        .unwrap();
    let got_sums = u32s(&dev.read(sums, 4 * (n / 64)).unwrap());
    let got_ballots = u64s(&dev.read(ballots, 8 * (n / 64)).unwrap());
    let got_shifted = u32s(&dev.read(shifted, 4 * n).unwrap());
    for w in 0..n / 64 {
        let lanes = &input[64 * w..64 * w + 64];
        // __shfl_down tree: lane 0 ends with the sum of the wave.
        assert_eq!(got_sums[w] as i32, lanes.iter().sum::<i32>(), "sums[{w}]");
        let ballot = lanes
            .iter()
            .enumerate()
            .fold(0u64, |m, (l, &v)| m | ((v > 0) as u64) << l);
        assert_eq!(got_ballots[w], ballot, "ballots[{w}]");
        for l in 0..64 {
            let want = lanes[(l + 1) % 64] + ballot.count_ones() as i32;
            assert_eq!(
                got_shifted[64 * w + l] as i32,
                want,
                "shifted[{}]",
                64 * w + l
            );
        }
    }
}
