//! The timing options of `gcnemu run` through the binary: the summary, `--stats-json`,
//! `--trace-json`, the stale-read warning, and option errors.

use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/timing")
        .join(name)
        .display()
        .to_string()
}

fn gcnemu(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcnemu-timing-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `gcnemu run` of the stale-read fixture, two workgroups of one wave, then `extra`.
fn run_stale<'a>(co: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        co,
        "--kernel",
        "stale",
        "--grid",
        "2",
        "--block",
        "64",
        "--arg",
        "zeros:512",
        "--arg",
        "zeros:512",
    ];
    args.extend(extra);
    args
}

#[test]
fn stats_json_trace_and_stale_warning() {
    let (json, trace) = (temp("stats.json"), temp("trace.json"));
    let co = fixture("stale.co");
    let extra = [
        "--stats",
        "--cus",
        "1",
        "--stats-json",
        json.to_str().unwrap(),
        "--trace-json",
        trace.to_str().unwrap(),
    ];
    let (code, out, err) = gcnemu(&run_stale(&co, &extra));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("cycles") && out.contains("on 1 of 1 CUs"),
        "{out}"
    );
    assert!(out.contains("stalls") && out.contains("waitcnt"), "{out}");
    assert!(
        err.contains("warning[missing-waitcnt]: read of v4 before its load completed (missing s_waitcnt vmcnt) at stale+0x24"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let t = &v["timing"];
    assert_eq!(t["cus"], 1);
    assert!(t["cycles"].as_u64().unwrap() > 400, "{t}");
    assert!(t["stalls"]["waitcnt"].as_u64().unwrap() > 0, "{t}");
    assert_eq!(t["stale_reads"][0]["registers"], "v4");
    assert_eq!(t["stale_reads"][0]["hits"], 2);
    assert_eq!(t["occupancy"]["limiter"], "wave-slots");
    let tr: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let events = tr["traceEvents"].as_array().unwrap();
    assert!(events
        .iter()
        .any(|e| e["name"] == "waitcnt" && e["ph"] == "X"));
}

/// A C++ kernel is named by its symbol and demangled in the trace, as in `--stats`.
#[test]
fn trace_names_a_cpp_kernel_demangled() {
    let trace = temp("cpp-trace.json");
    let co = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/lint/hip/nops.gfx900.co")
        .display()
        .to_string();
    let args = [
        "run",
        co.as_str(),
        "--kernel",
        "_Z8dpp_scanPiPKi",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "zeros:256",
        "--arg",
        "zeros:256",
        "--stats",
        "--trace-json",
        trace.to_str().unwrap(),
    ];
    let (code, out, err) = gcnemu(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("dpp_scan(int*, int const*)"), "{out}");
    let tr: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    assert_eq!(tr["otherData"]["kernel"], "_Z8dpp_scanPiPKi");
    assert_eq!(
        tr["otherData"]["kernel_demangled"],
        "dpp_scan(int*, int const*)"
    );
}

#[test]
fn timing_off_is_functional_and_rejects_timing_options() {
    let co = fixture("stale.co");
    let base = [
        "run",
        co.as_str(),
        "--kernel",
        "stale",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "zeros:256",
        "--arg",
        "zeros:256",
        "--stats",
        "--timing",
        "off",
    ];
    let (code, out, err) = gcnemu(&base);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("cycles") && !err.contains("missing-waitcnt"),
        "{out}{err}"
    );
    let mut with_cus = base.to_vec();
    with_cus.extend(["--cus", "2"]);
    let (code, _, err) = gcnemu(&with_cus);
    assert_eq!(code, 2);
    assert!(err.contains("need the timing model"), "{err}");
    let mut with_profile = base.to_vec();
    with_profile.push("--host-profile");
    let (code, _, err) = gcnemu(&with_profile);
    assert_eq!(code, 2);
    assert!(
        err.contains("--host-profile need the timing model"),
        "{err}"
    );
}

#[test]
fn host_profile_reports_where_the_time_went() {
    let co = fixture("stale.co");
    let (code, out, err) = gcnemu(&run_stale(&co, &["--host-profile"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("host time of `stale`:\n"), "{out}");
    for part in [
        "launch (wall clock)",
        "windows (wall clock)",
        "CUs' windows (all threads)",
        "bulk turns, without runs ahead",
        "runs ahead (the semantics)",
        "the pass, arbiter, the rest",
        "requests between windows",
        "dispatcher, placement",
    ] {
        let line = out.lines().find(|l| l.trim_start().starts_with(part));
        let line = line.unwrap_or_else(|| panic!("no line for {part}: {out}"));
        assert!(
            line.contains(" s ") && line.contains("ns/instruction"),
            "{line}"
        );
    }
    // The issues the launch counted.
    let n = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("wave-instructions: "));
    assert!(n.is_some_and(|n| n.parse::<u64>().unwrap() > 0), "{out}");
}

#[test]
fn bad_latency_and_schedule_values() {
    let co = fixture("stale.co");
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            co.as_str(),
            "--kernel",
            "stale",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "zeros:256",
            "--arg",
            "zeros:256",
        ];
        a.extend_from_slice(extra);
        gcnemu(&a)
    };
    let (code, _, err) = run(&["--latency", "dram=5"]);
    assert_eq!(code, 2);
    assert!(err.contains("known names are vmem, smem, lds"), "{err}");
    let (code, _, err) = run(&["--latency", "vmem=0"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["--schedule", "fastest"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["--cus", "0"]);
    assert_eq!(code, 2, "{err}");
    // Random schedules with the same seed give the same cycles.
    let cycles = |seed: &str| {
        let (code, out, err) = run(&["--schedule", "random", "--seed", seed, "--stats"]);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .find(|l| l.trim_start().starts_with("cycles"))
            .unwrap()
            .split(" IPC")
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(cycles("5"), cycles("5"));
}
