//! Every kind of malformed input (`malformed/mod.rs` makes them) through `info`, `disasm`,
//! `lint` and `run`: each ends promptly with exit status 0, 1 or 2 (never a panic or a
//! signal), and what it prints on stderr is escaped and short. Then specific promises:
//! empty and binary files are not assembly, hostile bundle ids are escaped, a damaged
//! part of a fat binary is a warning and exit status 2 (0 with `--keep-going`) or, with
//! nothing usable left, an error; endless inputs are refused by their first bytes.
//!
//! `GCNEMU_MALFORMED_DIR=DIR` keeps the files there, with `results.tsv` (kind, command,
//! status, first line of stderr).

mod malformed;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far above what any of these takes (milliseconds), far below "hangs".
const LIMIT: Duration = Duration::from_secs(20);

struct Outcome {
    status: i32,
    stderr: String,
    elapsed: Duration,
}

fn gcnemu(args: &[&str]) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let mut text = Vec::new();
        let _ = stderr.take(1 << 20).read_to_end(&mut text);
        text
    });
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
            return Outcome {
                status: status.code().unwrap_or(-1),
                stderr,
                elapsed: start.elapsed(),
            };
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("gcnemu {args:?} still running after {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn commands(file: &str) -> Vec<(&'static str, Vec<String>)> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        ("info", v(&["info", file])),
        ("disasm", v(&["disasm", file])),
        ("lint", v(&["lint", file])),
        (
            "run",
            v(&[
                "run",
                file,
                "--kernel",
                "saxpy",
                "--grid",
                "1",
                "--block",
                "64",
                "--arg",
                "2.0",
                "--arg",
                "zeros:256",
                "--arg",
                "zeros:256",
                "--arg",
                "64",
                "--timeout",
                "10",
                "--max-instructions",
                "1000000",
            ]),
        ),
    ]
}

fn files() -> (PathBuf, Vec<(&'static str, PathBuf)>) {
    let dir = match std::env::var_os("GCNEMU_MALFORMED_DIR") {
        Some(d) => PathBuf::from(d),
        None => std::env::temp_dir().join(format!("gcnemu-malformed-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).unwrap();
    let files = malformed::kinds()
        .into_iter()
        .map(|(name, bytes)| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            (name, path)
        })
        .collect();
    (dir, files)
}

fn check_message(what: &str, o: &Outcome) {
    assert!(
        matches!(o.status, 0..=2),
        "{what}: exit status {} (a panic or a signal):\n{}",
        o.status,
        o.stderr
    );
    assert!(o.elapsed < LIMIT, "{what}: took {:?}", o.elapsed);
    assert!(
        !o.stderr.chars().any(|c| c.is_control() && c != '\n'),
        "{what}: raw control characters on stderr: {:?}",
        o.stderr
    );
    assert!(
        o.stderr.len() < 4000,
        "{what}: {} bytes on stderr",
        o.stderr.len()
    );
    if o.status == 2 {
        assert!(o.stderr.starts_with("gcnemu: "), "{what}: {}", o.stderr);
    }
}

#[test]
fn every_malformed_input_through_every_command() {
    let (dir, files) = files();
    assert!(files.len() >= 54, "only {} kinds", files.len());
    let mut table = String::new();
    for (name, path) in &files {
        for (command, args) in commands(&path.display().to_string()) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = gcnemu(&args);
            check_message(&format!("{command} {name}"), &o);
            let first = o
                .stderr
                .lines()
                .next()
                .unwrap_or("")
                .replace(&*dir.display().to_string(), "");
            table += &format!("{name}\t{command}\t{}\t{first}\n", o.status);
        }
    }
    if std::env::var_os("GCNEMU_MALFORMED_DIR").is_some() {
        std::fs::write(dir.join("results.tsv"), table).unwrap();
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn one(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("gcnemu-malformed-one-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = malformed::kinds()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1;
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn status_and_stderr(args: &[&str]) -> (i32, String) {
    let o = gcnemu(args);
    check_message(&args.join(" "), &o);
    (o.status, o.stderr)
}

#[test]
fn lint_takes_only_text_as_assembly() {
    for (name, needle) in [
        ("empty.co", "empty file"),
        ("random-bytes.s", "not an ELF file"),
        ("nul-in-text.s", "not an ELF file"),
        ("latin1.s", "not an ELF file"),
        ("comments-only.s", "no instructions or directives"),
        ("ccob-truncated.bundle", "compressed offload bundle"),
    ] {
        let (_dir, path) = one(name);
        let (status, stderr) = status_and_stderr(&["lint", path.to_str().unwrap()]);
        assert_eq!(status, 2, "{name}: {stderr}");
        assert!(stderr.contains(needle), "{name}: {stderr}");
        assert!(!stderr.contains("mnemonic"), "{name}: {stderr}");
    }
}

#[test]
fn hostile_bundle_ids_are_escaped_and_cut() {
    let (_dir, path) = one("bundle-id-300-nuls.bundle");
    let (status, stderr) = status_and_stderr(&["info", path.to_str().unwrap()]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("\\0\\0"), "{stderr}");
    assert!(stderr.contains("(300 bytes)"), "{stderr}");
    // A loadable bundle: the id is listed on stdout, escaped too.
    let (_dir, path) = one("bundle-id-control-chars.bundle");
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(["info", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\\u{1b}]0;pwned\\u{7}"), "{stdout}");
}

/// Exit status, stdout and stderr of a command that must end promptly and print safely.
fn full(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    check_message(
        &args.join(" "),
        &Outcome {
            status: o.status.code().unwrap_or(-1),
            stderr: stderr.clone(),
            elapsed: Duration::ZERO,
        },
    );
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr,
    )
}

/// A fat binary with one damaged bundle, or a bundle with one entry that is not a code object,
/// among usable ones: `info`, `disasm` and `lint` print the rest, warn about the damaged part
/// (naming its offset or entry) and exit 2; with `--keep-going` they print the same and exit
/// as if nothing were wrong, still warning. Never a silently shorter listing.
#[test]
fn a_damaged_part_is_a_warning_and_exit_status_2_unless_keep_going() {
    for (name, needle) in [
        (
            "fatbin-second-magic-corrupt.so",
            "offload bundle at offset 0x8000: expected a bundle",
        ),
        (
            "fatbin-first-magic-corrupt.so",
            "offload bundle at offset 0x3000: expected a bundle",
        ),
        (
            "bundle-one-entry-not-elf.bundle",
            "hipv4-amdgcn-amd-amdhsa--gfx906@0x",
        ),
    ] {
        let (_dir, path) = one(name);
        let file = path.to_str().unwrap();
        for command in ["info", "disasm", "lint"] {
            let (status, stdout, stderr) = full(&[command, file]);
            assert_eq!(status, 2, "{command} {name}: {stderr}");
            assert!(
                stderr.contains("gcnemu: warning: ") && stderr.contains(needle),
                "{command} {name}: {stderr}"
            );
            assert!(
                stderr.contains("1 damaged part(s) left out") && stderr.contains("--keep-going"),
                "{command} {name}: {stderr}"
            );
            assert!(!stdout.is_empty(), "{command} {name}: nothing printed");
            let (kept, kept_stdout, kept_stderr) = full(&[command, "--keep-going", file]);
            let clean = if command == "lint" { [0, 1] } else { [0, 0] };
            assert!(clean.contains(&kept), "{command} {name}: {kept_stderr}");
            assert!(
                kept_stderr.contains(needle),
                "{command} {name}: {kept_stderr}"
            );
            assert!(!kept_stderr.contains("left out (see"), "{kept_stderr}");
            assert_eq!(stdout, kept_stdout, "{command} {name}");
        }
    }
    // `run` does not run from a damaged file unless told to.
    let (_dir, path) = one("bundle-one-entry-not-elf.bundle");
    let file = path.to_str().unwrap();
    let mut args: Vec<String> = commands(file).pop().unwrap().1;
    let (status, _, stderr) = full(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("nothing was run (--keep-going"), "{stderr}");
    args.push("--keep-going".into());
    let (status, _, stderr) = full(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("gcnemu: warning: "), "{stderr}");
}

/// With nothing usable left, a damaged fat binary is an error naming the damage.
#[test]
fn a_fat_binary_with_nothing_usable_is_an_error() {
    for name in ["bundle-entry-not-elf.bundle", "bundle-count-huge.bundle"] {
        let (_dir, path) = one(name);
        let file = path.to_str().unwrap();
        for keep in [false, true] {
            let mut args = vec!["info", file];
            if keep {
                args.push("--keep-going");
            }
            let (status, stdout, stderr) = full(&args);
            assert_eq!(status, 2, "{name}: {stderr}");
            assert!(stdout.is_empty(), "{name}: {stdout}");
            assert!(!stderr.contains("warning"), "{name}: {stderr}");
        }
    }
}

#[test]
fn devices_are_refused_by_their_type() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    for command in ["info", "disasm", "lint"] {
        let o = gcnemu(&[command, "/dev/zero"]);
        check_message(command, &o);
        assert_eq!(o.status, 2, "{}", o.stderr);
        assert!(o.stderr.contains("is a character device"), "{}", o.stderr);
        assert!(
            o.elapsed < Duration::from_secs(5),
            "{command}: {:?}",
            o.elapsed
        );
    }
}
