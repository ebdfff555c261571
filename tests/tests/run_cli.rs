//! `gcnemu run` end to end through the binary: kernels with their inputs in files and outputs
//! written back with `:out=PATH`, compared byte for byte with the CPU references; and the error
//! contract (ARCHITECTURE.md): usage/input errors exit 2 and list the kernel's arguments, guest
//! faults exit 1 and name the kernel and the faulting address.

use gcn_tests::kernels::{self, cli::command_line, fixture_path, Arg, Case, LeBytes};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `gcnemu` binary. It lives in another package, so Cargo does not provide
/// `CARGO_BIN_EXE_gcnemu` here: build it (a no-op when up to date) and take the path Cargo
/// reports. `GCNEMU_BIN` overrides this, e.g. to test an installed binary.
fn gcnemu() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("GCNEMU_BIN") {
            return PathBuf::from(bin);
        }
        let out = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "gcnemu", "--bin", "gcnemu"])
            .arg("--message-format=json")
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .output()
            .expect("run cargo build -p gcnemu");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "cargo build -p gcnemu failed:\n{}{}",
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
        // The compiler-artifact message of the binary: `..."executable":"/path/gcnemu",...`.
        stdout
            .lines()
            .filter(|l| l.contains(r#""reason":"compiler-artifact""#))
            .find_map(|l| {
                let rest = &l[l.find(r#""executable":""#)? + 14..];
                Some(PathBuf::from(&rest[..rest.find('"')?]))
            })
            .expect("cargo reported no gcnemu executable")
    })
}

fn run(args: &[String]) -> Output {
    Command::new(gcnemu())
        .args(args)
        .output()
        .expect("start gcnemu")
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("run_cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `case` through the CLI and compares every buffer written back.
fn check_case(case: &Case, target: &str, version: u32) {
    if let Err(msg) = try_case("one", case, target, version) {
        panic!("{msg}");
    }
}

/// `group` keeps the directories of tests that run the same case in parallel apart.
fn try_case(group: &str, case: &Case, target: &str, version: u32) -> Result<(), String> {
    let dir = scratch(&format!("{group}-{}-{target}-v{version}", case.kernel));
    let co = fixture_path(case.fixture, target, version);
    let mut cli = command_line(case, &co, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Each case runs well under a million wave-instructions: a runaway loop fails fast.
    cli.args
        .extend(["--max-instructions".into(), "5000000".into()]);
    let out = run(&cli.args);
    if out.status.code() != Some(0) {
        return Err(format!("gcnemu {}\n{}", cli.args.join(" "), describe(&out)));
    }
    let mut got = Vec::new();
    for p in &cli.outputs {
        got.push(std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?);
    }
    case.check(&got)
        .map_err(|msg| format!("{target} v{version}: {msg}"))
}

/// Every kernel case on both targets and code object versions, as the library tests run them.
#[test]
fn every_case_gives_the_reference_bytes() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for case in kernels::all() {
        for target in kernels::TARGETS {
            for version in kernels::VERSIONS {
                runs += 1;
                if let Err(msg) = try_case("all", &case, target, version) {
                    failures.push(msg);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `zeros:BYTES:out=PATH`: saxpy into a zero-filled `y` gives `fma(a, x, 0)`.
#[test]
fn saxpy_into_zeros_gfx900_v5() {
    let mut case = kernels::by_kernel("saxpy");
    let a = match case.args[1] {
        Arg::F32(a) => a,
        _ => unreachable!("saxpy's second argument is `a`"),
    };
    let x: Vec<f32> = match &case.args[2] {
        Arg::Buffer(b) => b
            .init
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        _ => unreachable!("saxpy's third argument is `x`"),
    };
    let Arg::Buffer(y) = &mut case.args[3] else {
        unreachable!("saxpy's fourth argument is `y`")
    };
    y.init = vec![0; y.init.len()];
    y.expect = x
        .iter()
        .map(|&x| a.mul_add(x, 0.0))
        .collect::<Vec<f32>>()
        .le_bytes();
    check_case(&case, "gfx900", 5);
}

fn expect_exit(args: &[String], code: i32) -> String {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "gcnemu {}\n{}",
        args.join(" "),
        describe(&out)
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("gcnemu exit {code}: {err}");
    err
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn co(fixture: &str) -> String {
    fixture_path(fixture, "gfx906", 5).display().to_string()
}

/// The names structarg.hip gives its parameters, which the metadata carries.
const STRUCTARG_PARAMS: [&str; 4] = ["outd", "outf", "outl", "dscale"];

#[test]
fn wrong_argument_count_lists_the_expected_arguments() {
    let co = co("structarg");
    let err = expect_exit(
        &args(&[
            "run",
            &co,
            "--kernel",
            "structarg",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg=1",
            "--arg=2",
        ]),
        2,
    );
    for name in STRUCTARG_PARAMS {
        assert!(err.contains(name), "no `{name}` in:\n{err}");
    }
    assert!(err.contains('8'), "the expected count is not given:\n{err}");
}

#[test]
fn wrong_argument_form_lists_the_expected_arguments() {
    let case = kernels::by_kernel("structarg");
    let dir = scratch("wrong-form");
    let mut cli = command_line(&case, &fixture_path("structarg", "gfx906", 5), &dir).unwrap();
    // `n` (an int by value) given a buffer.
    let last = cli.args.len() - 1;
    cli.args[last] = "--arg=zeros:64".into();
    let err = expect_exit(&cli.args, 2);
    for name in STRUCTARG_PARAMS {
        assert!(err.contains(name), "no `{name}` in:\n{err}");
    }
}

#[test]
fn unknown_kernel_is_a_usage_error() {
    let co = co("saxpy");
    let err = expect_exit(
        &args(&[
            "run",
            &co,
            "--kernel",
            "no_such_kernel",
            "--grid",
            "1",
            "--block",
            "64",
        ]),
        2,
    );
    assert!(err.contains("no_such_kernel"), "{err}");
}

#[test]
fn missing_input_file_is_an_input_error() {
    let co = co("saxpy");
    let missing = scratch("missing").join("absent.bin");
    let buf = format!("--arg=@{}", missing.display());
    let err = expect_exit(
        &args(&[
            "run",
            &co,
            "--kernel",
            "saxpy",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg=4",
            "--arg=1.5",
            &buf,
            "--arg=zeros:16",
        ]),
        2,
    );
    assert!(err.contains("absent.bin"), "{err}");
}

/// Every `0x...` number in `text`.
fn hex_numbers(text: &str) -> Vec<u64> {
    text.match_indices("0x")
        .filter_map(|(i, _)| {
            let digits: String = text[i + 2..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            u64::from_str_radix(&digits, 16).ok()
        })
        .collect()
}

#[test]
fn store_to_unmapped_address_faults_naming_it() {
    // Far from any allocation and below the LDS/private apertures: plain unmapped memory.
    let addr: u64 = 0xdead_beef_0000;
    for target in kernels::TARGETS {
        for version in kernels::VERSIONS {
            let co = fixture_path("oob", target, version).display().to_string();
            let err = expect_exit(
                &args(&[
                    "run",
                    &co,
                    "--kernel",
                    "oob_store",
                    "--grid",
                    "2",
                    "--block",
                    "64",
                    &format!("--arg={addr:#x}"),
                    "--arg=7",
                ]),
                1,
            );
            assert!(err.contains("oob_store"), "{target} v{version}: {err}");
            assert!(
                hex_numbers(&err).contains(&addr),
                "{target} v{version}: {addr:#x} not named in:\n{err}"
            );
        }
    }
}

#[test]
fn store_past_a_buffer_faults() {
    let co = co("oob");
    let err = expect_exit(
        &args(&[
            "run",
            &co,
            "--kernel",
            "oob_index",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg=zeros:256",
            "--arg=1048576",
        ]),
        1,
    );
    assert!(err.contains("oob_index"), "{err}");
    assert!(!hex_numbers(&err).is_empty(), "no address in:\n{err}");
}

#[test]
fn instruction_budget_exhaustion_is_a_guest_error() {
    let case = kernels::by_kernel("loops");
    let dir = scratch("budget");
    let mut cli = command_line(&case, &fixture_path("loops", "gfx906", 5), &dir).unwrap();
    cli.args.extend(["--max-instructions".into(), "100".into()]);
    let err = expect_exit(&cli.args, 1);
    assert!(err.contains("loops"), "{err}");
}

/// Device printf is served in the emulator's dispatch (hostcall), so `gcnemu run` prints what
/// the kernel prints, in both engines and on both targets.
#[test]
fn device_printf_prints_on_stdout() {
    let expected = "lane 0 of 3: 0   0.00 even a 100%\n\
                    lane 1 of 3: 0xff   0.50 odd b 100%\n\
                    lane 2 of 3: 0x1fe   1.00 even c 100%\n";
    for target in ["gfx900", "gfx906"] {
        for timing in ["on", "off"] {
            let file = format!(
                "{}/fixtures/hip/printf.{target}.co",
                env!("CARGO_MANIFEST_DIR")
            );
            let out = run(&args(&[
                "run",
                &file,
                "--kernel",
                "hello",
                "--grid",
                "1",
                "--block",
                "64",
                "--arg",
                "zeros:256",
                "--arg",
                "3",
                "--target",
                target,
                "--timing",
                timing,
            ]));
            assert!(out.status.success(), "{}", describe(&out));
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "{target} timing {timing}"
            );
        }
    }
}
