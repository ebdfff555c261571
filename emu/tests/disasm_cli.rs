//! `gcnemu disasm` on the committed HIP fixtures, checked against llvm-objdump-15's listings
//! (`tests/fixtures/hip/*.co.objdump.txt`, made by `tests/fixtures/build.sh`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hip")
}

/// Runs gcnemu from the fixture directory so the `<file>: file format` header names the bare
/// file, as in the committed listings.
fn gcnemu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("run gcnemu")
}

fn code_objects() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".co"))
        .collect();
    names.sort();
    assert!(names.len() >= 16, "fixtures missing: {names:?}");
    names
}

fn disasm(name: &str) -> (String, String) {
    let out = gcnemu(&["disasm", name]);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = std::fs::read_to_string(fixtures().join(format!("{name}.objdump.txt"))).unwrap();
    (String::from_utf8(out.stdout).unwrap(), expected)
}

/// Lines that are not instructions: file header, section headers, `<symbol>:` lines, blanks.
fn frame(listing: &str) -> Vec<&str> {
    listing.lines().filter(|l| !l.starts_with('\t')).collect()
}

#[test]
fn headers_and_symbol_lines_match_objdump() {
    for name in code_objects() {
        let (ours, expected) = disasm(&name);
        assert_eq!(frame(&ours), frame(&expected), "{name}");
        assert!(ours.starts_with(&format!(
            "\n{name}:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n"
        )));
    }
}

#[test]
fn every_line_matches_objdump() {
    for name in code_objects() {
        let (ours, expected) = disasm(&name);
        for (number, (ours, expected)) in ours.lines().zip(expected.lines()).enumerate() {
            assert_eq!(
                ours,
                expected,
                "{name}.objdump.txt line {}: first difference",
                number + 1
            );
        }
        assert_eq!(
            ours.lines().count(),
            expected.lines().count(),
            "{name}: line count"
        );
    }
}

#[test]
fn kernel_option_prints_one_block() {
    let out = gcnemu(&["disasm", "saxpy.gfx900.co", "--kernel", "saxpy"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches(">:\n").count(), 1);
    assert!(text.contains(" <saxpy>:\n"));
}

#[test]
fn target_option_overrides_the_header() {
    let out = gcnemu(&["disasm", "saxpy.gfx900.co", "--target", "gfx906"]);
    assert!(out.status.success());
    let out = gcnemu(&["disasm", "saxpy.gfx900.co", "--target", "gfx1100"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown target `gfx1100`"));
}

#[test]
fn input_errors_exit_2_naming_the_file() {
    let cases: [(&[&str], &str); 4] = [
        (&["disasm", "no-such.co"], "no-such.co: cannot read"),
        (&["disasm", "saxpy.hip"], "saxpy.hip: not an ELF file"),
        (
            &["disasm", "saxpy.gfx900.co", "--kernel", "nope"],
            "saxpy.gfx900.co: no symbol named nope",
        ),
        (&["disasm"], "FILE"),
    ];
    for (args, message) in cases {
        let out = gcnemu(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// gfx942 code (`tests/fixtures/mi300`, built by its build.sh) prints as llvm-objdump-19 prints
/// it, the reference for gfx940 and gfx942.
#[test]
fn mi300_listing_matches_objdump_19() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mi300");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gcnemu"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("run gcnemu")
    };
    let out = run(&["disasm", "mi300.co"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = std::fs::read_to_string(dir.join("mi300.co.objdump.txt")).unwrap();
    let ours = String::from_utf8(out.stdout).unwrap();
    for (number, (ours, expected)) in ours.lines().zip(expected.lines()).enumerate() {
        assert_eq!(ours, expected, "mi300.co.objdump.txt line {}", number + 1);
    }
    assert_eq!(ours.lines().count(), expected.lines().count());
}
