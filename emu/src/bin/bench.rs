//! Emulation speed: an ALU-heavy kernel (Collatz steps, divergent loops) and a memory-heavy one
//! (saxpy), each timed through the library — functional only (`--timing off`) and under the
//! cycle-level CU model — and as the same algorithm in native Rust. Prints medians of several
//! runs: wave-instructions per second, the slowdown against native, simulated cycles per
//! second and what the timing model costs over the functional run; then the same with every
//! sanitizer on (`--check all`) and what they cost over the run without them.
//!
//! `cargo run --release -p gcnemu --bin bench [-- RUNS]` ("timed all" uses every core; the
//! results are the same as on one thread).

use gcnemu::check::CheckSet;
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
use std::hint::black_box;
use std::time::{Duration, Instant};

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

fn bytes_of<T: Copy>(v: &[T], f: impl Fn(&T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(f).collect()
}

struct Result {
    name: &'static str,
    mode: &'static str,
    wave_instructions: u64,
    /// Simulated cycles (timed mode only).
    cycles: u64,
    emu: Duration,
    native: Duration,
}

/// The ways of running: functional only, and the timing model with the target's CUs on one
/// host thread and on all of them.
fn modes() -> Vec<(&'static str, LaunchOptions)> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let timed = |threads: usize| {
        let mut o = LaunchOptions::default();
        if let Some(t) = &mut o.timing {
            t.threads = threads;
        }
        o
    };
    let mut out = vec![
        (
            "functional",
            LaunchOptions {
                timing: None,
                ..LaunchOptions::default()
            },
        ),
        ("timed 1T", timed(1)),
    ];
    if cores > 1 {
        out.push(("timed all", timed(cores)));
    }
    out
}

fn collatz(runs: usize, mode: &'static str, opts: &LaunchOptions, checks: CheckSet) -> Result {
    let mut dev = Device::new(DeviceConfig::default());
    dev.enable_checks(checks);
    let module = dev
        .load("loop.gfx900.co", &fixture("loop.gfx900.co"))
        .unwrap();
    let n = 64 * 1024usize;
    let (limit, repeat) = (1000i32, 2i32);
    let start: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 100_000 + 1)
        .collect();
    let sa = dev.alloc(4 * n as u64).unwrap();
    dev.write(sa, &bytes_of(&start, |v| v.to_le_bytes()))
        .unwrap();
    let oa = dev.alloc(4 * n as u64).unwrap();
    let dims = Dims {
        grid: [(n / 256) as u32, 1, 1],
        block: [256, 1, 1],
    };
    let args = [
        Arg::Ptr(sa),
        Arg::Ptr(oa),
        Arg::I32(limit),
        Arg::I32(repeat),
    ];
    let mut emu = Vec::new();
    let (mut insts, mut cycles) = (0, 0);
    for _ in 0..runs {
        let s = dev.launch(&module, "collatz", dims, &args, opts).unwrap();
        insts = s.wave_instructions;
        cycles = s.timing.map_or(0, |t| t.cycles);
        emu.push(s.elapsed);
    }
    let got = dev.read(oa, 4 * n).unwrap();
    let mut native = Vec::new();
    let mut out = vec![0u32; n];
    for _ in 0..runs {
        let t = Instant::now();
        for (i, o) in out.iter_mut().enumerate() {
            let mut total = 0u32;
            for r in 0..repeat as u32 {
                let mut x = black_box(start[i]).wrapping_add(r);
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
            *o = total;
        }
        black_box(&out);
        native.push(t.elapsed());
    }
    assert_eq!(
        got,
        bytes_of(&out, |v| v.to_le_bytes()),
        "emulated collatz differs from native"
    );
    Result {
        name: "collatz (ALU, divergent loops)",
        mode,
        wave_instructions: insts,
        cycles,
        emu: median(emu),
        native: median(native),
    }
}

fn saxpy(runs: usize, mode: &'static str, opts: &LaunchOptions, checks: CheckSet) -> Result {
    let mut dev = Device::new(DeviceConfig::default());
    dev.enable_checks(checks);
    let module = dev
        .load("saxpy.gfx900.co", &fixture("saxpy.gfx900.co"))
        .unwrap();
    let n = 4 * 1024 * 1024usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let xa = dev.alloc(4 * n as u64).unwrap();
    let ya = dev.alloc(4 * n as u64).unwrap();
    dev.write(xa, &bytes_of(&x, |v| v.to_le_bytes())).unwrap();
    let a = 1.5f32;
    let dims = Dims {
        grid: [(n / 256) as u32, 1, 1],
        block: [256, 1, 1],
    };
    let args = [Arg::F32(a), Arg::Ptr(xa), Arg::Ptr(ya), Arg::I32(n as i32)];
    let yb = bytes_of(&y, |v| v.to_le_bytes());
    let mut emu = Vec::new();
    let (mut insts, mut cycles) = (0, 0);
    for _ in 0..runs {
        dev.write(ya, &yb).unwrap();
        let s = dev.launch(&module, "saxpy", dims, &args, opts).unwrap();
        insts = s.wave_instructions;
        cycles = s.timing.map_or(0, |t| t.cycles);
        emu.push(s.elapsed);
    }
    let got = dev.read(ya, 4 * n).unwrap();
    let mut native = Vec::new();
    let mut out = y.clone();
    for _ in 0..runs {
        out.copy_from_slice(&y);
        let t = Instant::now();
        for (o, xi) in out.iter_mut().zip(&x) {
            *o = black_box(a).mul_add(*xi, *o);
        }
        black_box(&out);
        native.push(t.elapsed());
    }
    assert_eq!(
        got,
        bytes_of(&out, |v| v.to_le_bytes()),
        "emulated saxpy differs from native"
    );
    Result {
        name: "saxpy (memory)",
        mode,
        wave_instructions: insts,
        cycles,
        emu: median(emu),
        native: median(native),
    }
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    println!("median of {runs} runs");
    type Kernel = fn(usize, &'static str, &LaunchOptions, CheckSet) -> Result;
    let kernels: [Kernel; 2] = [collatz, saxpy];
    let all = CheckSet::parse("all").expect("`all` names every check");
    for k in kernels {
        let mut functional = None;
        let mut unchecked = Vec::new();
        for (mode, opts) in modes() {
            let r = k(runs, mode, &opts, CheckSet::NONE);
            print!("{}", line(&r));
            match functional {
                None => functional = Some(r.emu),
                // Device cycles (all CUs advance together) per second of host time.
                Some(f) => print!(
                    "  {} cycles, {:.1} k cycles/s, timing costs {:.2}x",
                    r.cycles,
                    r.cycles as f64 / r.emu.as_secs_f64() / 1e3,
                    r.emu.as_secs_f64() / f.as_secs_f64()
                ),
            }
            println!();
            unchecked.push(r.emu);
        }
        for ((mode, opts), without) in modes().into_iter().zip(unchecked) {
            let r = k(runs, mode, &opts, all);
            println!(
                "{}  --check all costs {:.2}x",
                line(&r),
                r.emu.as_secs_f64() / without.as_secs_f64()
            );
        }
    }
}

/// The figures every mode prints.
fn line(r: &Result) -> String {
    let rate = r.wave_instructions as f64 / r.emu.as_secs_f64();
    format!(
        "{:<30} {:<10} {:>10} wave-insts  emu {:>9.3} ms  {:>6.1} M wave-inst/s  native {:>7.3} ms  slowdown {:>5.0}x",
        r.name,
        r.mode,
        r.wave_instructions,
        r.emu.as_secs_f64() * 1e3,
        rate / 1e6,
        r.native.as_secs_f64() * 1e3,
        r.emu.as_secs_f64() / r.native.as_secs_f64()
    )
}
