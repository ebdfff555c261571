//! The functional engine on several host threads (`LaunchOptions::threads`): the same memory,
//! counts and hazard findings as on one thread for programs without races between workgroups;
//! device atomics are host atomics; the first failing workgroup in dispatch order is reported;
//! hostcalls are answered on any number of threads, with and without the timing model.

use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions, Stats};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hip")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn functional(threads: usize) -> LaunchOptions {
    LaunchOptions {
        timing: None,
        threads,
        ..LaunchOptions::default()
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs mandelbrot (64 x 48 pixels, 16 x 16 workgroups) on `threads`; the counts and stats.
fn mandelbrot(threads: usize) -> (Vec<u32>, Stats) {
    let mut dev = Device::new(DeviceConfig::default());
    let module = dev
        .load("mandelbrot", &fixture("mandelbrot.gfx900.co"))
        .unwrap();
    let (w, h) = (64usize, 48usize);
    let out = dev.alloc(4 * (w * h) as u64).unwrap();
    let args = [
        Arg::Ptr(out),
        Arg::I32(w as i32),
        Arg::I32(h as i32),
        Arg::I32(64),
        Arg::F32(-2.0),
        Arg::F32(-1.125),
        Arg::F32(3.0 / 64.0),
    ];
    let dims = Dims {
        grid: [4, 3, 1],
        block: [16, 16, 1],
    };
    let stats = dev
        .launch(&module, "mandelbrot", dims, &args, &functional(threads))
        .unwrap();
    (words(&dev.read(out, 4 * w * h).unwrap()), stats)
}

#[test]
fn results_counts_and_hazards_do_not_depend_on_threads() {
    let (one, s1) = mandelbrot(1);
    // The set has points inside (256 iterations would be the cap) and outside.
    assert!(one.contains(&64) && one.contains(&1), "{one:?}");
    for threads in [2, 3, 5] {
        let (many, s) = mandelbrot(threads);
        assert_eq!(many, one, "{threads} threads");
        assert_eq!(
            s.wave_instructions, s1.wave_instructions,
            "{threads} threads"
        );
        assert_eq!(s.by_category, s1.by_category, "{threads} threads");
        let names = |s: &Stats| format!("{:?}", s.hazards);
        assert_eq!(names(&s), names(&s1), "{threads} threads");
    }
}

#[test]
fn device_atomics_are_host_atomics() {
    // 64 workgroups of 256 add into 256 global bins (after LDS atomics) and min/max one word:
    // lost updates between threads would show in the totals.
    let n = 64 * 256usize;
    let data: Vec<u8> = (0..n as u32).map(|i| (i * 7 + i / 256) as u8).collect();
    let mut want = vec![0u32; 256];
    for &v in &data {
        want[v as usize] += 1;
    }
    for threads in [1, 2, 4] {
        let mut dev = Device::new(DeviceConfig::default());
        let module = dev.load("atomics", &fixture("atomics.gfx900.co")).unwrap();
        let d = dev.alloc(n as u64).unwrap();
        dev.write(d, &data).unwrap();
        let bins = dev.alloc(4 * 256).unwrap();
        let stats = dev.alloc(16).unwrap();
        let init: Vec<u8> = [i32::MAX, i32::MIN, 0, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        dev.write(stats, &init).unwrap();
        let args = [
            Arg::Ptr(d),
            Arg::Ptr(bins),
            Arg::Ptr(stats),
            Arg::I32(n as i32),
        ];
        let dims = Dims {
            grid: [64, 1, 1],
            block: [256, 1, 1],
        };
        dev.launch(&module, "histogram", dims, &args, &functional(threads))
            .unwrap();
        assert_eq!(
            words(&dev.read(bins, 1024).unwrap()),
            want,
            "{threads} threads"
        );
        let s = words(&dev.read(stats, 16).unwrap());
        assert_eq!((s[0], s[1]), (0, 255), "{threads} threads");
        // The exchange leaves some work-item's index; the compare-and-swap the first winner's.
        assert!((s[3] as usize) < n, "{threads} threads: {s:?}");
    }
}

#[test]
fn the_first_failing_workgroup_in_dispatch_order_is_reported() {
    // saxpy with n past the end of 1000-element buffers: every workgroup from the fourth on
    // (work-items 768..) reaches outside x. On any thread count the report names the fourth.
    for threads in [1, 2, 3] {
        let mut dev = Device::new(DeviceConfig::default());
        let module = dev.load("saxpy", &fixture("saxpy.gfx900.co")).unwrap();
        let x = dev.alloc(4 * 1000).unwrap();
        let y = dev.alloc(4 * 1000).unwrap();
        let args = [Arg::F32(2.0), Arg::Ptr(x), Arg::Ptr(y), Arg::I32(64 * 256)];
        let dims = Dims {
            grid: [64, 1, 1],
            block: [256, 1, 1],
        };
        let err = dev
            .launch(&module, "saxpy", dims, &args, &functional(threads))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("workgroup (3, 0, 0)"),
            "{threads} threads: {err}"
        );
    }
}

#[test]
fn a_livelock_across_threads_is_still_found() {
    // `spin` waits for a flag nothing sets: every workgroup, on every thread, spins.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/timing/spin.co");
    let bytes = std::fs::read(&path).unwrap();
    for threads in [2, 3] {
        let mut dev = Device::new(DeviceConfig::default());
        let module = dev.load("spin.co", &bytes).unwrap();
        let flag = dev.alloc(64).unwrap();
        let dims = Dims {
            grid: [6, 1, 1],
            block: [64, 1, 1],
        };
        let err = dev
            .launch(
                &module,
                "spin",
                dims,
                &[Arg::Ptr(flag)],
                &functional(threads),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("livelock"), "{threads} threads: {err}");
    }
}

/// Text written to a shared buffer: where a device's printf goes in the test below.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// printf.hip's `hello` (in each of 12 workgroups the first 5 lanes print a line each, in
/// turn, so every wave waits on the host again and again while the other threads run their
/// own) with `opts`: the printed lines, sorted (lines of different workgroups interleave
/// differently on different thread counts), the output buffer and the timing statistics.
fn hello(opts: &LaunchOptions) -> (Vec<String>, Vec<u32>, Option<gcnemu::cu::TimingStats>) {
    let (groups, n) = (12u32, 5);
    let mut dev = Device::new(DeviceConfig::default());
    let text = Captured::default();
    dev.set_printf_output(gcnemu::hostcall::host::Output {
        out: Box::new(text.clone()),
        err: Box::new(std::io::sink()),
    });
    let module = dev.load("printf", &fixture("printf.gfx900.co")).unwrap();
    let out = dev.alloc(4 * 64).unwrap();
    let dims = Dims {
        grid: [groups, 1, 1],
        block: [64, 1, 1],
    };
    let args = [Arg::Ptr(out), Arg::I32(n)];
    let stats = dev
        .launch(&module, "hello", dims, &args, opts)
        .unwrap_or_else(|e| {
            let threads = opts.timing.as_ref().map_or(opts.threads, |t| t.threads);
            panic!("{threads} threads: {e}")
        });
    let text = String::from_utf8(text.0.lock().unwrap().clone()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), (groups * n as u32) as usize, "{text}");
    lines.sort();
    assert!(lines[0].starts_with("lane 0 of 5: 0 "), "{}", lines[0]);
    let timing = stats.timing.map(|t| gcnemu::cu::TimingStats {
        cycles_per_second: 0.0,
        ..t
    });
    (lines, words(&dev.read(out, 4 * 64).unwrap()), timing)
}

#[test]
fn hostcalls_are_answered_on_any_number_of_threads() {
    let one = hello(&functional(1));
    for threads in [2, 4] {
        assert_eq!(
            hello(&functional(threads)),
            one,
            "{threads} threads against one"
        );
    }
}

/// Under the timing model the host answers between windows, which run on the worker threads:
/// the same text, buffer and statistics on any number of them.
#[test]
fn timed_hostcalls_are_answered_on_any_number_of_threads() {
    let timed = |threads| {
        let mut t = gcnemu::cu::TimingConfig::for_target(gcn_isa::Target::Gfx900);
        t.threads = threads;
        LaunchOptions {
            timing: Some(t),
            ..LaunchOptions::default()
        }
    };
    let one = hello(&timed(1));
    assert!(one.2.is_some());
    // The same text as without the timing model.
    assert_eq!(one.0, hello(&functional(1)).0);
    for threads in [2, 3] {
        assert_eq!(hello(&timed(threads)), one, "{threads} threads against one");
    }
}

/// Under the timing model loads of different CUs run on the worker threads between stores
/// (`cu::beside`): when many fault, the stop is still the first in completion order. saxpy over
/// 2^18 elements with buffers of 2^17: workgroups 512 and later read past them.
#[test]
fn a_timed_fault_is_the_first_in_completion_order_on_any_number_of_threads() {
    let error = |threads| {
        let mut dev = Device::new(DeviceConfig::default());
        let module = dev.load("saxpy", &fixture("saxpy.gfx900.co")).unwrap();
        let (x, y) = (dev.alloc(1 << 19).unwrap(), dev.alloc(1 << 19).unwrap());
        let dims = Dims {
            grid: [1024, 1, 1],
            block: [256, 1, 1],
        };
        let args = [Arg::F32(1.5), Arg::Ptr(x), Arg::Ptr(y), Arg::I32(1 << 18)];
        let mut t = gcnemu::cu::TimingConfig::for_target(gcn_isa::Target::Gfx900);
        t.threads = threads;
        let opts = LaunchOptions {
            timing: Some(t),
            ..LaunchOptions::default()
        };
        dev.launch(&module, "saxpy", dims, &args, &opts)
            .unwrap_err()
            .to_string()
    };
    let one = error(1);
    // Workgroups from 512 on run past the buffers; which of their faults completes first is
    // the memory system's timing, the same on any number of threads.
    let group: u32 = one
        .split("workgroup (")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|g| g.parse().ok())
        .unwrap_or_else(|| panic!("no workgroup in `{one}`"));
    assert!(group >= 512 && one.contains("outside"), "{one}");
    for threads in [2, 3] {
        assert_eq!(error(threads), one, "{threads} threads against one");
    }
}

/// With the memory hierarchy modelled, the trace carries the memory system's counter tracks:
/// saxpy streams from device memory, so its HBM traffic and L2 requests show; the tracks are
/// the same on any number of threads.
#[test]
fn a_timed_trace_shows_the_memory_system() {
    let counters = |threads| {
        let mut dev = Device::new(DeviceConfig::default());
        let module = dev.load("saxpy", &fixture("saxpy.gfx900.co")).unwrap();
        let n = 1 << 16;
        let (x, y) = (dev.alloc(4 * n).unwrap(), dev.alloc(4 * n).unwrap());
        let dims = Dims {
            grid: [(n / 256) as u32, 1, 1],
            block: [256, 1, 1],
        };
        let args = [Arg::F32(1.5), Arg::Ptr(x), Arg::Ptr(y), Arg::I32(n as i32)];
        let mut t = gcnemu::cu::TimingConfig::for_target(gcn_isa::Target::Gfx900);
        t.threads = threads;
        t.trace = true;
        let opts = LaunchOptions {
            timing: Some(t),
            ..LaunchOptions::default()
        };
        let stats = dev.launch(&module, "saxpy", dims, &args, &opts).unwrap();
        let mut json = Vec::new();
        stats.trace.unwrap().write(&mut json, "saxpy").unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let events = v["traceEvents"].as_array().unwrap().clone();
        let track = |name: &str| -> Vec<f64> {
            events
                .iter()
                .filter(|e| e["ph"] == "C" && e["name"] == name)
                .map(|e| e["args"]["value"].as_f64().unwrap())
                .collect()
        };
        assert!(events
            .iter()
            .any(|e| e["ph"] == "M" && e["args"]["name"] == "memory system"));
        (track("HBM GB/s"), track("L2 requests per cycle"))
    };
    let (hbm, l2) = counters(1);
    assert!(hbm.len() > 1 && hbm.iter().any(|&g| g > 50.0), "{hbm:?}");
    assert!(l2.iter().any(|&r| r > 0.0), "{l2:?}");
    // Never more than the board's peak (Vega 64: 484 GB/s) over a whole sample.
    assert!(hbm.iter().all(|&g| g <= 484.0 * 1.01), "{hbm:?}");
    assert_eq!(counters(2), (hbm, l2));
}
