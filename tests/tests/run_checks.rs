//! The sanitizers (`--check all`) on every kernel case: correct kernels report nothing, under
//! the functional engine and the timing model, and give the same results as without them.

mod common;

use gcn_tests::kernels;
use gcnemu::check::CheckSet;
use gcnemu::LaunchOptions;

#[test]
fn clean_kernels_report_nothing() {
    let all = CheckSet::parse("all").unwrap();
    let target = gcn_isa::Target::Gfx900;
    let modes = [
        ("functional", None),
        (
            "timed",
            Some(gcnemu::cu::TimingConfig {
                cus: 4,
                ..gcnemu::cu::TimingConfig::for_target(target)
            }),
        ),
    ];
    let mut failures = Vec::new();
    let cases = kernels::all();
    // LDS cases (a block reduction, a transpose, LDS atomics) exercise racecheck's barriers.
    assert!(
        cases.iter().any(|c| c.kernel == "block_reduce"),
        "no LDS case"
    );
    for case in cases {
        for (mode, timing) in &modes {
            let opts = LaunchOptions {
                max_instructions: Some(5_000_000),
                timing: timing.clone(),
                ..LaunchOptions::default()
            };
            match common::run_checked(&case, "gfx900", 4, &opts, all) {
                Ok((_, got, findings)) => {
                    if let Err(msg) = case.check(&got) {
                        failures.push(format!("{} ({mode}): {msg}", case.kernel));
                    }
                    for f in findings {
                        failures.push(format!("{} ({mode}): {}", case.kernel, f.text()));
                    }
                }
                Err(e) => failures.push(format!("{} ({mode}): {e}", case.kernel)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `gcnemu run --check memcheck`: every out-of-bounds access is reported (lane, address,
/// nearest buffer) and dropped, the kernel runs to its end, and `--check-error` fails the run.
#[test]
fn run_reports_and_drops_out_of_bounds_accesses() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("run_checks");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("saxpy.json");
    let y = dir.join("y.out");
    // x and y hold 1024 floats; n = 1025 lets lane 0 of the fifth wave run past both.
    let run = |extra: &[&str]| {
        std::process::Command::new(&common::hip::built().gcnemu)
            .current_dir(root)
            .args([
                "run",
                "tests/fixtures/hip/saxpy.gfx900.co",
                "--kernel",
                "saxpy",
                "--grid",
                "5",
                "--block",
                "256",
                "--arg",
                "2.0",
                "--arg",
                "@examples/saxpy/x.bin",
                "--arg",
            ])
            .arg(format!("@examples/saxpy/y.bin:out={}", y.display()))
            .args(["--arg", "1025", "--timing", "off"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside device memory"));

    let _ = std::fs::remove_file(&json);
    let out = run(&[
        "--check",
        "memcheck",
        "--check-json",
        json.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    let accesses: Vec<&str> = findings
        .iter()
        .map(|f| f["access"].as_str().unwrap())
        .collect();
    assert_eq!(accesses, ["load", "load", "store"], "{stderr}");
    for f in findings {
        assert_eq!(f["kind"], "out-of-bounds");
        assert_eq!(
            (f["workgroup"][0].as_u64(), f["lane"].as_u64()),
            (Some(4), Some(0))
        );
        assert!(
            f["detail"]
                .as_str()
                .unwrap()
                .starts_with("0x0 bytes past the end of buffer"),
            "{f}"
        );
    }
    assert!(
        stderr.contains("memcheck[out-of-bounds]: store of 4 bytes at"),
        "{stderr}"
    );
    assert!(
        stderr.contains("check: 3 finding(s) (memcheck 3)"),
        "{stderr}"
    );
    // The other lanes' results were written back.
    assert_eq!(std::fs::metadata(&y).unwrap().len(), 4096);

    let out = run(&["--check", "memcheck", "--check-error"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 sanitizer finding(s) (--check-error)"));
}
