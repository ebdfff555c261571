//! Every kernel case under several schedules of the compute-unit model — oldest-first on the
//! target's CUs and on one, round-robin on one CU, seeded random arbitration and latencies on
//! three CUs — and functionally: the results must equal the CPU reference each time (they may
//! not depend on the interleaving), and compiled code, whose `s_waitcnt`s LLVM placed, must
//! never read a register before its load completed. That last check is the counters model's
//! test against real compiler output: a VM_CNT or LGKM_CNT that decremented too early or too
//! late shows up as a stale read or a wrong result. Each timed run is repeated on 2 and 3 host
//! threads, with the timing model's run-ahead and bulk turns off, and with the run-ahead's
//! code compiled at once, and buffers, counts and every timing figure must be the same. The spin detector runs at its most eager (a look
//! after every write-free iteration): none of these kernels may be taken for a livelock,
//! whatever the schedule.

mod common;

use gcn_tests::kernels;
use gcnemu::cu::{Arbitration, TimingConfig};
use gcnemu::exec::compiled::Compile;
use gcnemu::LaunchOptions;

const BUDGET: u64 = 5_000_000;

fn configs(target: gcn_isa::Target) -> Vec<(String, LaunchOptions)> {
    let timed = |cus: u32, arbitration: Arbitration| LaunchOptions {
        max_instructions: Some(BUDGET),
        spin_limit: 1,
        timing: Some(TimingConfig {
            cus,
            arbitration,
            ..TimingConfig::for_target(target)
        }),
        ..LaunchOptions::default()
    };
    let functional = LaunchOptions {
        max_instructions: Some(BUDGET),
        spin_limit: 1,
        timing: None,
        ..LaunchOptions::default()
    };
    let mut out = vec![
        ("functional".to_string(), functional.clone()),
        (
            "functional, compiled at once".to_string(),
            LaunchOptions {
                compile: Compile::Always,
                ..functional
            },
        ),
        ("oldest-first".into(), timed(0, Arbitration::OldestFirst)),
        // Every wave on one CU: several per SIMD contend, in and out of the bulk turns.
        (
            "oldest-first, 1 CU".into(),
            timed(1, Arbitration::OldestFirst),
        ),
        (
            "round-robin, 1 CU".into(),
            timed(1, Arbitration::RoundRobin),
        ),
    ];
    for seed in [1, 2] {
        out.push((
            format!("random seed {seed}, 3 CUs"),
            timed(3, Arbitration::Random { seed }),
        ));
    }
    out
}

/// The same timed launch on `threads` host threads.
fn with_threads(opts: &LaunchOptions, threads: usize) -> LaunchOptions {
    let mut o = opts.clone();
    if let Some(t) = &mut o.timing {
        t.threads = threads;
    }
    o
}

/// The same timed launch with every instruction executed at its issue and every turn taken
/// by the pass, none in bulk ([`gcnemu::cu::ahead`], [`gcnemu::cu::bulk`]).
fn without_ahead(opts: &LaunchOptions) -> LaunchOptions {
    let mut o = opts.clone();
    if let Some(t) = &mut o.timing {
        t.ahead = false;
    }
    o
}

/// The same launch with its code compiled at its first quantum or run ahead
/// ([`gcnemu::exec::compiled`]).
fn compiled_at_once(opts: &LaunchOptions) -> LaunchOptions {
    LaunchOptions {
        compile: Compile::Always,
        ..opts.clone()
    }
}

/// What must not depend on the thread count: buffers, instruction counts and every timing
/// figure (host speed aside).
fn fingerprint(stats: &gcnemu::Stats, got: &[Vec<u8>]) -> String {
    let mut t = stats.timing.clone();
    if let Some(t) = &mut t {
        t.cycles_per_second = 0.0;
    }
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        got, stats.wave_instructions, stats.by_category, t, stats.hazards
    )
}

fn check_all(target: &str, version: u32) {
    let t = gcn_isa::Target::from_name(target).unwrap();
    let mut failures = Vec::new();
    for case in kernels::all() {
        for (name, opts) in configs(t) {
            let what = format!("{} {target} v{version} ({name})", case.kernel);
            match common::run_with(&case, target, version, &opts) {
                Err(e) => failures.push(format!("{what}: {e}")),
                Ok((stats, got)) => {
                    if let Err(msg) = case.check(&got) {
                        failures.push(format!("{what}: {msg}"));
                    }
                    for r in &stats.stale_reads {
                        failures.push(format!("{what}: {}", r.message()));
                    }
                    if opts.timing.is_none() {
                        continue;
                    }
                    let one = fingerprint(&stats, &got);
                    let variants = [
                        ("2 threads", with_threads(&opts, 2)),
                        ("3 threads", with_threads(&opts, 3)),
                        ("no run-ahead or bulk turns", without_ahead(&opts)),
                        ("run-ahead compiled at once", compiled_at_once(&opts)),
                    ];
                    for (variant, opts) in variants {
                        match common::run_with(&case, target, version, &opts) {
                            Err(e) => failures.push(format!("{what}, {variant}: {e}")),
                            Ok((s, g)) if fingerprint(&s, &g) != one => {
                                failures.push(format!("{what}: {variant} changed the results"))
                            }
                            Ok(_) => {}
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gfx900_v4() {
    check_all("gfx900", 4);
}

#[test]
fn gfx906_v5() {
    check_all("gfx906", 5);
}
