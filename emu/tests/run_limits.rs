//! `gcnemu run` and `exec` against inputs and guests that would cost unbounded memory or time,
//! and the messages for wrong usage (issue 16): bounded `@PATH` buffers, exact instruction
//! budgets in both engines, the wall-clock `--timeout` with its report of every wave, and
//! messages that name the real problem.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn hip(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hip")
        .join(name)
        .display()
        .to_string()
}

fn gcnemu(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// saxpy on one wave with `args` replacing the default arguments' tail.
fn saxpy(extra: &[&str], buffer: &str) -> (i32, String) {
    let co = hip("saxpy.gfx900.co");
    let mut args = vec![
        "run",
        &co,
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "2.0",
        "--arg",
        buffer,
        "--arg",
        "zeros:256",
        "--arg",
        "64",
    ];
    args.extend(extra);
    gcnemu(&args)
}

#[test]
fn endless_buffer_file_is_refused_at_the_memory_limit() {
    let start = Instant::now();
    let (status, stderr) = saxpy(&["--memory-limit", "1048576"], "@/dev/zero");
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("bytes of device memory left"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn messages_name_the_real_problem() {
    let (status, stderr) = saxpy(&[], "zeros:0");
    assert_eq!(status, 2);
    assert!(stderr.contains("an empty buffer"), "{stderr}");
    let (status, stderr) = saxpy(&[], "zeros:256:bogus=1");
    assert_eq!(status, 2);
    assert!(stderr.contains("unknown suffix `:bogus=1`"), "{stderr}");
    let co = hip("saxpy.gfx900.co");
    let (status, stderr) = gcnemu(&[
        "run",
        &co,
        "--kernel",
        "saxpy",
        "--grid",
        "1099511627776",
        "--block",
        "64",
    ]);
    assert_eq!(status, 2);
    assert!(
        stderr.contains("is too large (at most 4294967295)"),
        "{stderr}"
    );
}

/// Where a run with this budget stops: the pc in the error.
fn stop_pc(budget: u64, timing: &str) -> String {
    let n = budget.to_string();
    let (status, stderr) = saxpy(
        &[
            "--max-instructions",
            &n,
            "--timing",
            timing,
            "--hazards",
            "off",
        ],
        "zeros:256",
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("budget of {budget} wave-instructions")),
        "{stderr}"
    );
    let at = stderr.find(", pc ").unwrap();
    stderr[at + 5..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn the_budget_is_exact_in_both_engines() {
    // saxpy runs 30 wave-instructions on one wave: every budget below stops one later, and
    // the timing model stops where the functional engine does.
    let mut seen = Vec::new();
    for budget in [0, 1, 2, 3, 5, 8, 13, 20] {
        let functional = stop_pc(budget, "off");
        let timed = stop_pc(budget, "on");
        assert_eq!(functional, timed, "budget {budget}");
        assert!(
            !seen.contains(&timed),
            "budget {budget} stops at {timed} again"
        );
        seen.push(timed);
    }
}

#[test]
fn a_timeout_reports_every_wave() {
    for timing in ["off", "on"] {
        let co = hip("loop.gfx900.co");
        let start = Instant::now();
        // collatz with 2^31 repeats: hours of emulation.
        let (status, stderr) = gcnemu(&[
            "run",
            &co,
            "--kernel",
            "collatz",
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "zeros:1024",
            "--arg",
            "zeros:1024",
            "--arg",
            "1000",
            "--arg",
            "2147483647",
            "--timeout",
            "0.5",
            "--timing",
            timing,
        ]);
        let elapsed = start.elapsed();
        assert_eq!(status, 1, "{stderr}");
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
        assert!(
            stderr.contains("timeout: still running after 0.5 s"),
            "{stderr}"
        );
        assert!(
            stderr.contains("workgroup (0, 0, 0) wave 1: pc 0x"),
            "{stderr}"
        );
        assert!(stderr.contains("(collatz+0x"), "{stderr}");
        assert!(stderr.contains(": running"), "{stderr}");
    }
}

#[test]
fn exec_passes_and_checks_its_timeout() {
    let (status, stderr) = gcnemu(&["exec", "--timeout", "soon", "--", "true"]);
    assert_eq!(status, 2, "{stderr}");
    assert!(
        stderr.contains("GCNEMU_TIMEOUT=soon: expected seconds"),
        "{stderr}"
    );
}
