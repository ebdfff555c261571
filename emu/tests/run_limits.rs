//! `gcnemu run` and `exec` against inputs and guests that would cost unbounded memory or time,
//! and the messages for wrong usage: bounded `@PATH` buffers, exact instruction
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
fn a_device_as_buffer_file_is_refused_by_its_type() {
    // Refused before a byte is read, whatever the memory limit.
    let start = Instant::now();
    let (status, stderr) = saxpy(&[], "@/dev/zero");
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("is a character device"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn an_endless_pipe_as_buffer_file_is_refused_at_the_memory_limit() {
    let dir = std::env::temp_dir().join(format!("gcnemu-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("endless");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("no mkfifo: skipped");
        return;
    }
    // A writer that never stops: the run must stop reading at the limit.
    let fifo_path = fifo.clone();
    std::thread::spawn(move || {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&fifo_path) {
            let block = [0u8; 65536];
            while f.write_all(&block).is_ok() {}
        }
    });
    let start = Instant::now();
    let buffer = format!("@{}", fifo.display());
    let (status, stderr) = saxpy(&["--memory-limit", "1048576"], &buffer);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("bytes of device memory left"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(&dir);
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

#[test]
fn a_missing_kernel_lists_the_kernels_demangled() {
    let program = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/programs/launch")
        .display()
        .to_string();
    let (status, stderr) = gcnemu(&[
        "run", &program, "--kernel", "nope", "--grid", "1", "--block", "64",
    ]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("no kernel `nope`"), "{stderr}");
    assert!(stderr.contains("`index1d(int*, int)`"), "{stderr}");
    assert!(!stderr.contains("_Z"), "{stderr}");
}
