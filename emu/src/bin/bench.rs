//! Emulation speed against native code. Each kernel (hipcc-built fixtures in
//! `tests/fixtures/hip/`) runs through the library in four modes — functional on one thread and
//! on every core, the cycle-level CU model on one thread and on every core — and as the same
//! algorithm in scalar native Rust, timed in the same process. Prints medians of several runs:
//! emulated and native time and their ratio, wave-instructions per second, the peak heap the
//! emulator held, and for the timed modes what the timing model costs over the functional run
//! (time and peak memory). Then each kernel with every sanitizer on (`--check all`).
//!
//! `cargo run --release -p gcnemu --bin bench [-- RUNS [KERNEL...]]` (default 5 runs, every
//! kernel: mandelbrot, saxpy, reduce, histogram, collatz, on gfx90a mfma_gemm, on gfx942
//! mfma_fp8).
//! `BENCH_MODE=timed` (any part of a mode's name) runs only those modes, for profiling one (the
//! native version then runs at most three times: `BENCH_MODE="functional 1T" perf record
//! target/release/bench 30 histogram` samples the launches); several parts separated by commas
//! pick several, and `checked 1T` is a mode there too (`BENCH_MODE="functional 1T,checked"`:
//! the functional and sanitizer costs without the timing model);
//! `BENCH_STATS=1` prints every timed run's statistics to stderr, to compare two builds;
//! `BENCH_SCHEDULE=round-robin|random` changes the timed modes' issue arbitration.

use gcnemu::check::CheckSet;
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions, Module};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The system allocator, counting the bytes held now and the most held since the last reset:
/// the emulator's device memory, register files and queues all come from the heap.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to `System`, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = HELD.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            let now = HELD.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        HELD.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let q = System.realloc(p, l, size);
        if !q.is_null() {
            let now = HELD.fetch_add(size, Relaxed) + size;
            HELD.fetch_sub(l.size(), Relaxed);
            PEAK.fetch_max(now, Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/fixtures/hip/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn le32<T: Copy>(v: &[T], f: impl Fn(&T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(f).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Panics unless the buffers after a launch hold the right result.
type Check = Box<dyn Fn(&[Vec<u8>])>;

/// Makes a bench kernel, its inputs included.
type MakeKernel = fn() -> Kernel;

/// One bench kernel: its launch, how to check the emulator's output, and the native version.
struct Kernel {
    name: &'static str,
    what: &'static str,
    object: &'static str,
    /// The processor the device emulates (the fixture is built for it).
    target: gcn_isa::Target,
    entry: &'static str,
    dims: Dims,
    /// Buffers to create (initial contents) before the arguments are built.
    buffers: Vec<Vec<u8>>,
    /// The arguments, given the buffers' device addresses.
    args: fn(&[u64]) -> Vec<Arg>,
    /// Panics unless the buffers after a launch hold the right result.
    check: Check,
    /// The same algorithm natively, once; returns the time of the algorithm alone (inputs
    /// are made outside it).
    native: Box<dyn Fn() -> Duration>,
}

const MANDEL_W: usize = 1024;
const MANDEL_H: usize = 768;
const MANDEL_ITER: i32 = 256;
const MANDEL_X0: f32 = -2.0;
const MANDEL_Y0: f32 = -1.125;
const MANDEL_STEP: f32 = 3.0 / 1024.0;

/// Escape counts as the gfx900 code computes them: the compiler contracts `zr*zr + zi*zi` and
/// `2*zr*zi + ci` (and the pixel coordinate) into fused multiply-adds.
fn mandelbrot_exact(px: usize, py: usize) -> u32 {
    let cr = (px as f32).mul_add(MANDEL_STEP, MANDEL_X0);
    let ci = (py as f32).mul_add(MANDEL_STEP, MANDEL_Y0);
    let (mut zr, mut zi, mut i) = (0f32, 0f32, 0);
    while i < MANDEL_ITER && zr.mul_add(zr, zi * zi) <= 4.0 {
        let t = (zr * zr - zi * zi) + cr;
        zi = (zr + zr).mul_add(zi, ci);
        zr = t;
        i += 1;
    }
    i as u32
}

fn mandelbrot() -> Kernel {
    Kernel {
        name: "mandelbrot",
        what: "ALU, divergent loop",
        object: "mandelbrot.gfx900.co",
        target: gcn_isa::Target::Gfx900,
        entry: "mandelbrot",
        dims: Dims {
            grid: [(MANDEL_W / 16) as u32, (MANDEL_H / 16) as u32, 1],
            block: [16, 16, 1],
        },
        buffers: vec![vec![0; 4 * MANDEL_W * MANDEL_H]],
        args: |b| {
            vec![
                Arg::Ptr(b[0]),
                Arg::I32(MANDEL_W as i32),
                Arg::I32(MANDEL_H as i32),
                Arg::I32(MANDEL_ITER),
                Arg::F32(MANDEL_X0),
                Arg::F32(MANDEL_Y0),
                Arg::F32(MANDEL_STEP),
            ]
        },
        check: Box::new(|out| {
            let got = words(&out[0]);
            for py in 0..MANDEL_H {
                for px in 0..MANDEL_W {
                    let want = mandelbrot_exact(px, py);
                    assert_eq!(
                        got[py * MANDEL_W + px],
                        want,
                        "mandelbrot pixel ({px}, {py})"
                    );
                }
            }
        }),
        // Scalar code as a C programmer writes it (no fused multiply-add on baseline x86-64).
        native: Box::new(|| {
            let mut out = vec![0u32; MANDEL_W * MANDEL_H];
            let t = Instant::now();
            let (x0, y0, step) = black_box((MANDEL_X0, MANDEL_Y0, MANDEL_STEP));
            for py in 0..MANDEL_H {
                for px in 0..MANDEL_W {
                    let cr = x0 + px as f32 * step;
                    let ci = y0 + py as f32 * step;
                    let (mut zr, mut zi, mut i) = (0f32, 0f32, 0);
                    while i < MANDEL_ITER && zr * zr + zi * zi <= 4.0 {
                        let t = zr * zr - zi * zi + cr;
                        zi = 2.0 * zr * zi + ci;
                        zr = t;
                        i += 1;
                    }
                    out[py * MANDEL_W + px] = i as u32;
                }
            }
            black_box(&out);
            t.elapsed()
        }),
    }
}

const SAXPY_N: usize = 4 << 20;
const SAXPY_A: f32 = 1.5;

fn saxpy_inputs() -> (Vec<f32>, Vec<f32>) {
    let x = (0..SAXPY_N).map(|i| (i % 1000) as f32 * 0.25).collect();
    let y = (0..SAXPY_N).map(|i| (i % 7) as f32).collect();
    (x, y)
}

fn saxpy() -> Kernel {
    let (x, y) = saxpy_inputs();
    Kernel {
        name: "saxpy",
        what: "memory",
        object: "saxpy.gfx900.co",
        target: gcn_isa::Target::Gfx900,
        entry: "saxpy",
        dims: Dims {
            grid: [(SAXPY_N / 256) as u32, 1, 1],
            block: [256, 1, 1],
        },
        buffers: vec![le32(&x, |v| v.to_le_bytes()), le32(&y, |v| v.to_le_bytes())],
        args: |b| {
            vec![
                Arg::F32(SAXPY_A),
                Arg::Ptr(b[0]),
                Arg::Ptr(b[1]),
                Arg::I32(SAXPY_N as i32),
            ]
        },
        check: Box::new(|out| {
            let (x, y) = saxpy_inputs();
            let want: Vec<u32> = x
                .iter()
                .zip(&y)
                .map(|(x, y)| SAXPY_A.mul_add(*x, *y).to_bits())
                .collect();
            assert!(words(&out[1]) == want, "saxpy result differs");
        }),
        native: Box::new(|| {
            let (x, mut y) = saxpy_inputs();
            let t = Instant::now();
            for (o, xi) in y.iter_mut().zip(&x) {
                *o += black_box(SAXPY_A) * *xi;
            }
            black_box(&y);
            t.elapsed()
        }),
    }
}

const REDUCE_N: usize = 1 << 20;

fn reduce() -> Kernel {
    // Small integers, so that the float sums are exact in any order of the blocks' atomics.
    let input: Vec<f32> = (0..REDUCE_N).map(|i| (i % 8) as f32).collect();
    Kernel {
        name: "reduce",
        what: "LDS tree, barriers",
        object: "reduce.gfx900.co",
        target: gcn_isa::Target::Gfx900,
        entry: "reduce_sum",
        dims: Dims {
            grid: [(REDUCE_N / 256) as u32, 1, 1],
            block: [256, 1, 1],
        },
        buffers: vec![le32(&input, |v| v.to_le_bytes()), vec![0; 4]],
        args: |b| vec![Arg::Ptr(b[0]), Arg::Ptr(b[1]), Arg::I32(REDUCE_N as i32)],
        check: Box::new(|out| {
            let want: f32 = (0..REDUCE_N).map(|i| (i % 8) as f32).sum();
            assert_eq!(f32::from_bits(words(&out[1])[0]), want, "reduce sum");
        }),
        native: Box::new(move || {
            let t = Instant::now();
            let mut s = 0f32;
            for v in black_box(&input) {
                s += *v;
            }
            black_box(s);
            t.elapsed()
        }),
    }
}

const HIST_N: usize = 4 << 20;

fn hist_data() -> Vec<u8> {
    (0..HIST_N as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ (i as u8 & 3))
        .collect()
}

fn histogram() -> Kernel {
    let data = hist_data();
    // stats: min, max, the first index to win a compare-and-swap, the last exchange.
    let stats = le32(&[i32::MAX, i32::MIN, 0, 0], |v| v.to_le_bytes());
    Kernel {
        name: "histogram",
        what: "LDS and global atomics",
        object: "atomics.gfx900.co",
        target: gcn_isa::Target::Gfx900,
        entry: "histogram",
        dims: Dims {
            grid: [(HIST_N / 256) as u32, 1, 1],
            block: [256, 1, 1],
        },
        buffers: vec![data, vec![0; 4 * 256], stats],
        args: |b| {
            vec![
                Arg::Ptr(b[0]),
                Arg::Ptr(b[1]),
                Arg::Ptr(b[2]),
                Arg::I32(HIST_N as i32),
            ]
        },
        check: Box::new(|out| {
            let mut bins = [0u32; 256];
            for &v in &hist_data() {
                bins[v as usize] += 1;
            }
            assert!(words(&out[1]) == bins, "histogram bins");
            let s = words(&out[2]);
            let (lo, hi) = hist_data()
                .iter()
                .fold((255, 0), |(a, b), &v| (a.min(v), b.max(v)));
            assert_eq!((s[0], s[1]), (lo as u32, hi as u32), "histogram min/max");
        }),
        native: Box::new(|| {
            let data = hist_data();
            let t = Instant::now();
            let mut bins = [0u32; 256];
            let (mut lo, mut hi) = (u8::MAX, 0u8);
            for &v in black_box(&data) {
                bins[v as usize] += 1;
                lo = lo.min(v);
                hi = hi.max(v);
            }
            black_box((&bins, lo, hi));
            t.elapsed()
        }),
    }
}

const COLLATZ_N: usize = 64 * 1024;
const COLLATZ_LIMIT: i32 = 1000;
const COLLATZ_REPEAT: i32 = 2;

fn collatz_start() -> Vec<u32> {
    (0..COLLATZ_N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 100_000 + 1)
        .collect()
}

fn collatz_native(start: &[u32]) -> Vec<u32> {
    start
        .iter()
        .map(|&s| {
            let mut total = 0u32;
            for r in 0..COLLATZ_REPEAT as u32 {
                let mut x = black_box(s).wrapping_add(r);
                let mut steps = 0u32;
                while x != 1 && steps < COLLATZ_LIMIT as u32 {
                    x = if x & 1 != 0 {
                        x.wrapping_mul(3).wrapping_add(1)
                    } else {
                        x >> 1
                    };
                    steps += 1;
                }
                total += steps;
            }
            total
        })
        .collect()
}

fn collatz() -> Kernel {
    let start = collatz_start();
    Kernel {
        name: "collatz",
        what: "ALU, integer, divergent",
        object: "loop.gfx900.co",
        target: gcn_isa::Target::Gfx900,
        entry: "collatz",
        dims: Dims {
            grid: [(COLLATZ_N / 256) as u32, 1, 1],
            block: [256, 1, 1],
        },
        buffers: vec![le32(&start, |v| v.to_le_bytes()), vec![0; 4 * COLLATZ_N]],
        args: |b| {
            vec![
                Arg::Ptr(b[0]),
                Arg::Ptr(b[1]),
                Arg::I32(COLLATZ_LIMIT),
                Arg::I32(COLLATZ_REPEAT),
            ]
        },
        check: Box::new(|out| {
            assert!(
                words(&out[1]) == collatz_native(&collatz_start()),
                "collatz steps differ"
            );
        }),
        native: Box::new(move || {
            let t = Instant::now();
            black_box(collatz_native(black_box(&start)));
            t.elapsed()
        }),
    }
}

/// The ways of running: functional and timed, on one thread and on every core.
const GEMM_N: usize = 1024;

/// A and Bᵀ of the GEMM (row-major, B stored transposed as the kernel takes it): multiples of
/// 0.5 in [-2, 2] (exact in f16), so every product and partial sum is exact in f32 and the result
/// does not depend on the order of the additions.
fn gemm_inputs() -> (Vec<f32>, Vec<f32>) {
    let n = GEMM_N;
    let a = (0..n * n)
        .map(|i| ((i / n * 7 + i % n * 3) % 9) as f32 * 0.5 - 2.0)
        .collect();
    let b = (0..n * n)
        .map(|i| ((i / n * 5 + i % n * 11) % 9) as f32 * 0.5 - 2.0)
        .collect();
    (a, b)
}

/// C = A·Bᵀ given Bᵀ, row-major, in f32 (exact for these inputs): each element a dot product of
/// two contiguous rows.
fn gemm_native(a: &[f32], bt: &[f32]) -> Vec<f32> {
    let n = GEMM_N;
    let mut c = vec![0f32; n * n];
    for (i, row) in c.chunks_exact_mut(n).enumerate() {
        let ai = &a[i * n..(i + 1) * n];
        for (j, cij) in row.iter_mut().enumerate() {
            *cij = ai
                .iter()
                .zip(&bt[j * n..(j + 1) * n])
                .map(|(x, y)| x * y)
                .sum();
        }
    }
    c
}

/// The matrix-core GEMM as kernel `entry` of `object` on `target`: C = A·Bᵀ for the inputs of
/// [`gemm_inputs`], given to the kernel as `encode` writes them, checked against [`gemm_native`]
/// (exact for these inputs in every format used).
fn gemm_kernel(
    (name, what): (&'static str, &'static str),
    (object, target, entry): (&'static str, gcn_isa::Target, &'static str),
    encode: fn(&[f32]) -> Vec<u8>,
) -> Kernel {
    let (a, b) = gemm_inputs();
    Kernel {
        name,
        what,
        object,
        target,
        entry,
        dims: Dims {
            grid: [(GEMM_N / 32) as u32, (GEMM_N / 32) as u32, 1],
            block: [64, 1, 1],
        },
        buffers: vec![encode(&a), encode(&b), vec![0; GEMM_N * GEMM_N * 4]],
        args: |b| {
            let n = GEMM_N as i32;
            vec![
                Arg::Ptr(b[0]),
                Arg::Ptr(b[1]),
                Arg::Ptr(b[2]),
                Arg::I32(n),
                Arg::I32(n),
                Arg::I32(n),
            ]
        },
        check: Box::new(move |out| {
            let (a, b) = gemm_inputs();
            let want: Vec<u32> = gemm_native(&a, &b).iter().map(|v| v.to_bits()).collect();
            assert!(words(&out[2]) == want, "{name} result differs");
        }),
        native: Box::new(|| {
            let (a, b) = gemm_inputs();
            let t = Instant::now();
            black_box(gemm_native(black_box(&a), black_box(&b)));
            t.elapsed()
        }),
    }
}

fn mfma_gemm() -> Kernel {
    gemm_kernel(
        (
            "mfma_gemm",
            "matrix cores, C = A·Bᵀ 1024x1024x1024, f16 in, f32 out, v_mfma_f32_32x32x8f16",
        ),
        (
            "mfma_gemm.gfx90a.co",
            gcn_isa::Target::Gfx90a,
            "mfma_gemm_f16",
        ),
        |v| {
            v.iter()
                .flat_map(|&x| gcnemu::exec::f16::f32_to_f16(x).to_le_bytes())
                .collect()
        },
    )
}

/// The bytes of f32s that MI300's FP8 (E4M3 FNUZ: bias 8, no infinities, 0x80 the NaN) holds
/// exactly: the GEMM's inputs are multiples of 0.5 in [-2, 2].
fn fp8_bytes(v: &[f32]) -> Vec<u8> {
    let value = |b: u8| -> f32 {
        let (e, m) = (((b & 0x7f) >> 3) as i32, (b & 7) as f32 / 8.0);
        let mag = if e == 0 {
            m * 2f32.powi(-7)
        } else {
            (1.0 + m) * 2f32.powi(e - 8)
        };
        if b & 0x80 != 0 {
            -mag
        } else {
            mag
        }
    };
    let table: Vec<(f32, u8)> = (0..=255u8)
        .filter(|&b| b != 0x80)
        .map(|b| (value(b), b))
        .collect();
    v.iter()
        .map(|&x| {
            table
                .iter()
                .find(|&&(y, _)| y == x)
                .map(|&(_, b)| b)
                .unwrap_or_else(|| panic!("{x} is not an FP8 value"))
        })
        .collect()
}

/// The GEMM on MI300's FP8 matrix cores: the same inputs and result as [`mfma_gemm`] (exact in
/// FP8 too), v_mfma_f32_32x32x16_fp8_fp8 on gfx942.
fn mfma_gemm_fp8() -> Kernel {
    gemm_kernel(
        (
            "mfma_fp8",
            "matrix cores, C = A·Bᵀ 1024x1024x1024, FP8 in, f32 out, v_mfma_f32_32x32x16_fp8_fp8",
        ),
        (
            "mfma_gemm_fp8.gfx942.co",
            gcn_isa::Target::Gfx942,
            "mfma_gemm_fp8",
        ),
        fp8_bytes,
    )
}

fn modes(cores: usize) -> Vec<(&'static str, LaunchOptions)> {
    let functional = |threads| LaunchOptions {
        timing: None,
        threads,
        ..LaunchOptions::default()
    };
    let timed = |threads: usize| {
        let mut o = LaunchOptions::default();
        if let Some(t) = &mut o.timing {
            t.threads = threads;
            match std::env::var("BENCH_SCHEDULE").as_deref() {
                Ok("round-robin") => t.arbitration = gcnemu::cu::Arbitration::RoundRobin,
                Ok("random") => t.arbitration = gcnemu::cu::Arbitration::Random { seed: 7 },
                _ => {}
            }
        }
        o
    };
    let mut out = vec![("functional 1T", functional(1))];
    if cores > 1 {
        out.push(("functional all", functional(cores)));
    }
    out.push(("timed 1T", timed(1)));
    if cores > 1 {
        out.push(("timed all", timed(cores)));
    }
    out
}

/// Medians of one kernel in one mode.
struct Measured {
    wave_instructions: u64,
    emu: Duration,
    /// Most heap held during the runs, over what was held before them.
    peak: usize,
}

/// Runs `k` `runs` times in mode `opts` (buffers rewritten before each run) and checks the
/// output of the last.
fn measure(k: &Kernel, runs: usize, opts: &LaunchOptions, checks: CheckSet) -> Measured {
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    let mut dev = Device::new(DeviceConfig {
        target: k.target,
        ..DeviceConfig::default()
    });
    dev.enable_checks(checks);
    let module: Module = dev.load(k.object, &fixture(k.object)).unwrap();
    let bufs: Vec<u64> = k
        .buffers
        .iter()
        .map(|b| dev.alloc(b.len() as u64).unwrap())
        .collect();
    let args = (k.args)(&bufs);
    let mut times = Vec::new();
    let mut insts = 0;
    for _ in 0..runs {
        for (a, b) in bufs.iter().zip(&k.buffers) {
            dev.write(*a, b).unwrap();
        }
        let s = dev.launch(&module, k.entry, k.dims, &args, opts).unwrap();
        insts = s.wave_instructions;
        if let (Some(t), true) = (&s.timing, std::env::var_os("BENCH_STATS").is_some()) {
            // Everything but the host's speed, for comparing two builds' timing models.
            let t = gcnemu::cu::TimingStats {
                cycles_per_second: 0.0,
                ..t.clone()
            };
            eprintln!(
                "{} threads {}: {t:?}",
                k.name,
                opts.timing.as_ref().map_or(0, |c| c.threads)
            );
        }
        times.push(s.elapsed);
    }
    let out: Vec<Vec<u8>> = bufs
        .iter()
        .zip(&k.buffers)
        .map(|(a, b)| dev.read(*a, b.len()).unwrap())
        .collect();
    (k.check)(&out);
    Measured {
        wave_instructions: insts,
        emu: median(times),
        peak: PEAK.load(Relaxed).saturating_sub(before),
    }
}

fn native_time(k: &Kernel, runs: usize) -> Duration {
    median((0..runs).map(|_| (k.native)()).collect())
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let runs: usize = argv.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let only: Vec<String> = argv.collect();
    // For profiling one mode: BENCH_MODE=timed runs only the modes whose name contains it (or
    // one of its comma-separated parts).
    let only_mode = std::env::var("BENCH_MODE").ok();
    let picked = |mode: &str| {
        only_mode
            .as_ref()
            .is_none_or(|m| m.split(',').any(|part| mode.contains(part.trim())))
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "median of {runs} runs; {cores} cores; ratio = emulated time / native time (one thread)"
    );
    println!(
        "{:<11} {:<15} {:>11} {:>10} {:>9} {:>7} {:>8} {:>9}  timing model",
        "kernel", "mode", "wave-insts", "emu ms", "native ms", "ratio", "M wi/s", "peak MB"
    );
    // Named here so that a kernel left out is not made (its inputs cost seconds, which a
    // profile of another kernel would sample).
    let kernels: [(&str, MakeKernel); 7] = [
        ("mandelbrot", mandelbrot),
        ("saxpy", saxpy),
        ("reduce", reduce),
        ("histogram", histogram),
        ("collatz", collatz),
        ("mfma_gemm", mfma_gemm),
        ("mfma_fp8", mfma_gemm_fp8),
    ];
    for (name, make) in kernels {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let k = make();
        debug_assert_eq!(k.name, name);
        // With one mode picked (for a profile), the native version runs at most three times so
        // that the emulated launches are most of what a profiler samples.
        let native_runs = if only_mode.is_some() {
            runs.min(3)
        } else {
            runs
        };
        let native = native_time(&k, native_runs);
        let mut functional: Vec<Measured> = Vec::new();
        for (mode, opts) in modes(cores) {
            if !picked(mode) {
                continue;
            }
            let m = measure(&k, runs, &opts, CheckSet::NONE);
            print!(
                "{:<11} {:<15} {:>11} {:>10.1} {:>9.1} {:>7.2} {:>8.1} {:>9.1}",
                k.name,
                mode,
                m.wave_instructions,
                m.emu.as_secs_f64() * 1e3,
                native.as_secs_f64() * 1e3,
                m.emu.as_secs_f64() / native.as_secs_f64(),
                m.wave_instructions as f64 / m.emu.as_secs_f64() / 1e6,
                m.peak as f64 / 1e6,
            );
            if mode.starts_with("functional") {
                functional.push(m);
            } else if !functional.is_empty() {
                // Against the functional run on as many threads.
                let f = if mode.ends_with("1T") {
                    &functional[0]
                } else {
                    functional.last().unwrap_or(&functional[0])
                };
                print!(
                    "  {:.2}x time, {:.3}x peak",
                    m.emu.as_secs_f64() / f.emu.as_secs_f64(),
                    m.peak as f64 / f.peak.max(1) as f64
                );
            }
            println!();
        }
        if !picked("checked 1T") {
            continue;
        }
        let functional_1t = &modes(cores)[0].1;
        let checked = measure(&k, runs, functional_1t, CheckSet::parse("all").unwrap());
        println!(
            "{:<11} {:<15} {:>11} {:>10.1} {:>9.1} {:>7.2} {:>8.1} {:>9.1}  --check all costs {:.2}x",
            k.name,
            "checked 1T",
            checked.wave_instructions,
            checked.emu.as_secs_f64() * 1e3,
            native.as_secs_f64() * 1e3,
            checked.emu.as_secs_f64() / native.as_secs_f64(),
            checked.wave_instructions as f64 / checked.emu.as_secs_f64() / 1e6,
            checked.peak as f64 / 1e6,
            functional.first().map_or(f64::NAN, |f| checked.emu.as_secs_f64()
                / f.emu.as_secs_f64())
        );
        println!(" ({} — {})", k.name, k.what);
    }
}
