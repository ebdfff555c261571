//! The memory-system microbenchmarks (`tests/fixtures/microbench/`, sources and build script
//! beside them) under the timing model: their results show what the hardware shows — a latency
//! plateau per cache level, a stride sweep whose time grows with the lines each
//! wave-instruction touches. The figures they are compared with are in that folder's README.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

/// Runs a microbenchmark under `gcnemu exec --target TARGET`; its lines `name, x, value, unit`
/// as `(name, x) -> value`.
fn run(target: &str, name: &str, args: &[&str]) -> HashMap<(String, u64), f64> {
    let built = common::hip::built();
    let program =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/microbench")).join(name);
    let out = Command::new(&built.gcnemu)
        .args(["exec", "--target", target, "--lib"])
        .arg(&built.library)
        .arg("--")
        .arg(program)
        .args(args)
        .output()
        .expect("run gcnemu exec");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name} on {target}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{name}: line `{l}`");
            let value: f64 = f[2].parse().expect("a number");
            (
                (
                    f[0].to_string(),
                    f[1].parse::<f64>().expect("a number") as u64,
                ),
                value,
            )
        })
        .collect()
}

#[test]
fn the_latency_ladder_steps_from_the_l1_to_the_l2() {
    // Footprints of 4 KiB (in the vector L1's 16 KiB) and 1 MiB (in the L2's 4 MiB) on Vega 64.
    // (The step to HBM is the same mechanism one level down; the memory-system model's own
    // tests walk all three, and the README's table has the whole ladder.)
    let r = run("gfx900", "latency", &["512", "0", "4", "1024"]);
    let at = |kib| r[&("vector_latency".to_string(), kib)];
    assert!(at(1024) > 1.5 * at(4), "{r:?}");
    // The scalar cache is faster than the vector L1 (its own plateau), and misses alike.
    let scalar = |kib| r[&("scalar_latency".to_string(), kib)];
    assert!(scalar(4) < at(4) && scalar(1024) > 1.5 * scalar(4), "{r:?}");
}

#[test]
fn a_strided_gather_takes_longer_as_it_touches_more_lines() {
    // 256 Ki floats (1 MiB, in the L2): enough lines per CU that a line's cost shows over a
    // launch's own latency, which moves by a memory latency with where the host put its
    // buffers and kernel arguments.
    let r = run("gfx900", "stride", &["262144"]);
    let t = |stride| r[&("stride_time".to_string(), stride)];
    // Stride 2 touches 8 lines per wave-instruction, 16 and beyond 64.
    assert!(t(16) > 1.3 * t(2) && t(1021) > 1.3 * t(2), "{r:?}");
    assert!(t(64) >= t(4), "{r:?}");
}
