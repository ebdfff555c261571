//! `gcnemu run --cooperative`: every workgroup is resident at once, so workgroups that wait
//! for each other finish — at GWS barriers (what HIP's grid.sync() compiles to on gfx9) and on
//! a flag the last workgroup sets — in the functional engine on one and on two threads and in
//! the timing model; without it the same kernels are reported as a deadlock or livelock, and a
//! grid larger than the CUs hold at once is refused under the timing model. Kernels:
//! `tests/fixtures/timing/cooperative.s`.

use std::path::PathBuf;
use std::process::Command;

fn fixture() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/timing/cooperative.co")
        .display()
        .to_string()
}

/// Runs `kernel` with `args` and returns (status, stderr, the buffer's words).
fn run(
    kernel: &str,
    grid: &str,
    block: &str,
    args: &[&str],
    words: usize,
) -> (i32, String, Vec<u32>) {
    let out = std::env::temp_dir().join(format!(
        "gcnemu-coop-{}-{kernel}-{}",
        std::process::id(),
        args.join("_").replace(' ', "")
    ));
    let _ = std::fs::remove_file(&out);
    let buffer = format!("zeros:{}:out={}", 4 * words, out.display());
    let co = fixture();
    let mut cmd = vec![
        "run", &co, "--kernel", kernel, "--grid", grid, "--block", block,
    ];
    cmd.extend(["--arg", &buffer]);
    cmd.extend(args);
    cmd.extend(["--timeout", "120"]);
    let o = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(&cmd)
        .output()
        .unwrap();
    let bytes = std::fs::read(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        words,
    )
}

const ENGINES: [&[&str]; 4] = [
    &["--timing", "off", "--threads", "1"],
    &["--timing", "off", "--threads", "2"],
    &["--timing", "on", "--cus", "1"],
    &["--timing", "on", "--cus", "4", "--threads", "2"],
];

#[test]
fn gws_barriers_hold_every_workgroup_of_a_cooperative_grid() {
    for engine in ENGINES {
        // 3 passes of 5 workgroups of 4 waves: buf[0] counts every add, buf[1] stays 0 when
        // every wave saw all the pass's adds after its barrier.
        let mut args = vec!["--arg", "3", "--arg", "5", "--cooperative"];
        args.extend(engine);
        let (status, stderr, words) = run("gridsync", "5", "256", &args, 4);
        assert_eq!(status, 0, "{engine:?}: {stderr}");
        assert_eq!(&words[..2], &[15, 0], "{engine:?}");
    }
}

#[test]
fn workgroups_wait_for_a_flag_the_last_one_sets() {
    for engine in ENGINES {
        let mut args = vec!["--arg", "6", "--cooperative"];
        args.extend(engine);
        let (status, stderr, words) = run("lastflag", "6", "64", &args, 8);
        assert_eq!(status, 0, "{engine:?}: {stderr}");
        assert_eq!(&words[..7], &[1, 1, 2, 3, 4, 5, 6], "{engine:?}");
    }
}

#[test]
fn without_cooperative_the_waits_never_end() {
    // One workgroup after another: the first waits for workgroups that have not started.
    let (status, stderr, _) = run(
        "gridsync",
        "5",
        "256",
        &["--arg", "3", "--arg", "5", "--timing", "off"],
        4,
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains("deadlock: waves [0, 1, 2, 3] wait at a barrier"),
        "{stderr}"
    );
    let (status, stderr, _) = run("lastflag", "6", "64", &["--arg", "6", "--timing", "off"], 8);
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains("kernel `lastflag`: livelock"), "{stderr}");
}

#[test]
fn a_cooperative_deadlock_is_reported() {
    // A barrier for 6 workgroups in a grid of 5, and a flag set by a workgroup past the grid.
    for engine in &ENGINES[..2] {
        let mut args = vec!["--arg", "1", "--arg", "6", "--cooperative"];
        args.extend(*engine);
        let (status, stderr, _) = run("gridsync", "5", "256", &args, 4);
        assert_eq!(status, 1, "{engine:?}: {stderr}");
        assert!(stderr.contains("deadlock: waves [0, 1, 2, 3]"), "{stderr}");
        let mut args = vec!["--arg", "9", "--cooperative"];
        args.extend(*engine);
        let (status, stderr, _) = run("lastflag", "6", "64", &args, 8);
        assert_eq!(status, 1, "{engine:?}: {stderr}");
        assert!(stderr.contains("kernel `lastflag`: livelock: "), "{stderr}");
    }
}

#[test]
fn a_grid_larger_than_the_cus_hold_is_refused_by_the_timing_model() {
    // 4-wave workgroups: 10 per CU.
    let (status, stderr, _) = run(
        "gridsync",
        "21",
        "256",
        &["--arg", "1", "--arg", "21", "--cooperative", "--cus", "2"],
        4,
    );
    // A launch that cannot run at all is an input error.
    assert_eq!(status, 2, "{stderr}");
    assert!(
        stderr.contains("a cooperative grid of 21 workgroups does not fit at once: 2 CUs hold 10 workgroups each"),
        "{stderr}"
    );
}
