//! The progress bar of a long `gcnemu run`: drawn on a terminal, never into a pipe or file.
//! The terminal is a pseudo-terminal made by util-linux's `script`.

use std::path::PathBuf;
use std::process::Command;

/// A launch of a few thousand workgroups on the timing model: well past the half second after
/// which the bar appears, in a debug build.
fn long_run() -> Vec<String> {
    let co = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/timing/stale.co")
        .display()
        .to_string();
    [
        "run",
        &co,
        "--kernel",
        "stale",
        "--grid",
        "16384",
        "--block",
        "64",
        "--arg",
        "zeros:4194304",
        "--arg",
        "zeros:4194304",
        "--cus",
        "4",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn no_bar_when_stderr_is_not_a_terminal() {
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(long_run())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("workgroups,"), "{err}");
}

#[test]
fn bar_on_a_terminal() {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_gcnemu").to_string())
        .chain(long_run())
        .map(|a| format!("'{a}'"))
        .collect();
    // -e: gcnemu's exit status; -q: no banner; the typescript goes nowhere.
    let out = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .output()
        .expect("util-linux's `script` runs");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(screen.contains("/16384 workgroups,"), "{screen}");
}
