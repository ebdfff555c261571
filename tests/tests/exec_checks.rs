//! The sanitizers under `gcnemu exec --check`: `tests/fixtures/programs/sanitize` has one seeded
//! bug per mode (an LDS race, the same race through global memory, an off-by-one store, a use
//! after free, a read of memory nothing wrote, a leak, a store to host memory never
//! registered), built with line tables; each must be reported at its source line, the same
//! program with the bug fixed must report nothing, and so must the other, clean programs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn programs() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/programs"))
}

fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A fresh path for one test's JSON report.
fn json_path(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_checks");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}.json"));
    let _ = std::fs::remove_file(&p);
    p
}

fn exec(options: &[&str], program: &str, args: &[&str]) -> Output {
    let built = common::hip::built();
    Command::new(&built.gcnemu)
        .arg("exec")
        .args(options)
        .arg("--lib")
        .arg(&built.library)
        .arg("--")
        .arg(programs().join(program))
        .args(args)
        .output()
        .expect("run gcnemu exec")
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `program args` with `--check all` (and `extra`); returns the findings of the JSON
/// report and the output.
fn checked(extra: &[&str], program: &str, args: &[&str]) -> (Vec<serde_json::Value>, Output) {
    let name = format!("{program}-{}-{}", args.join("-"), extra.join("-")).replace(['/', ' '], "_");
    let path = json_path(&name);
    let mut options = vec!["--check", "all", "--check-json", path.to_str().unwrap()];
    options.extend(extra);
    let out = exec(&options, program, args);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{program} {args:?}: no report ({e})\n{}", describe(&out)));
    let doc: serde_json::Value = serde_json::from_str(&text).expect("report is JSON");
    assert_eq!(doc["checks"], "memcheck,racecheck,initcheck,leaks");
    let findings = doc["findings"].as_array().cloned().unwrap_or_default();
    assert_eq!(doc["count"].as_u64(), Some(findings.len() as u64));
    // The kernel by symbol and demangled: hipcc's kernels are C++ (`_Z...`), a leak has none.
    for f in &findings {
        let (symbol, shown) = (&f["kernel"], &f["kernel_demangled"]);
        let (symbol, shown) = (symbol.as_str().unwrap(), shown.as_str().unwrap());
        if symbol.starts_with("_Z") {
            assert!(shown.contains('(') && !shown.starts_with("_Z"), "{f}");
        } else {
            assert_eq!(shown, symbol, "{f}");
        }
    }
    (findings, out)
}

/// `sanitize.hip:N` of the source line that holds `text`.
fn line_of(text: &str) -> String {
    let source = std::fs::read_to_string(programs().join("sanitize.hip")).unwrap();
    let n = source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line with {text:?} in sanitize.hip"));
    format!("tests/fixtures/programs/sanitize.hip:{}", n + 1)
}

fn source(place: &serde_json::Value) -> &str {
    place["source"].as_str().unwrap_or("")
}

/// One seeded bug: every finding is of `kind`, at `line`; the fixed program reports nothing.
/// Returns the findings of `kind`.
fn seeded(mode: &str, kind: &str, line: &str, timing: &[&str]) -> Vec<serde_json::Value> {
    seeded_with(mode, kind, &[], line, timing)
}

/// As [`seeded`], allowing findings of the kinds `also` besides.
fn seeded_with(
    mode: &str,
    kind: &str,
    also: &[&str],
    line: &str,
    timing: &[&str],
) -> Vec<serde_json::Value> {
    let (findings, out) = checked(timing, "sanitize", &[mode]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && stdout.ends_with("done\n"),
        "{mode}: {}",
        describe(&out)
    );
    let (findings, others): (Vec<_>, Vec<_>) =
        findings.into_iter().partition(|f| f["kind"] == kind);
    assert!(
        !findings.is_empty(),
        "{mode}: nothing found\n{}",
        describe(&out)
    );
    for f in &others {
        assert!(
            also.iter().any(|k| f["kind"] == *k),
            "{mode}: unexpected {f}"
        );
    }
    for f in &findings {
        if !line.is_empty() {
            assert_eq!(source(&f["place"]), line, "{mode}: {f}");
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("[{kind}]")),
        "{mode}: the finding is not on stderr\n{stderr}"
    );
    let (fixed, out) = checked(timing, "sanitize", &[mode, "fixed"]);
    assert!(out.status.success(), "{mode} fixed: {}", describe(&out));
    assert!(fixed.is_empty(), "{mode} fixed: {fixed:?}");
    findings
}

#[test]
fn lds_race_names_both_accesses() {
    let write = line_of("slots[t] = in[t];");
    let read = line_of("out[t] = slots[N - 1 - t];");
    for timing in [&[][..], &["--timing", "off"][..]] {
        // Functionally, wave 0 runs first and reads slots wave 1 has not written yet: that is
        // an initcheck finding too.
        let findings = seeded_with("race", "lds-race", &["uninitialized-lds-read"], "", timing);
        for f in findings {
            assert_eq!(f["check"], "racecheck");
            let mut pair = [
                source(&f["place"]).to_string(),
                source(&f["other"]["place"]).to_string(),
            ];
            pair.sort();
            let mut want = [write.clone(), read.clone()];
            want.sort();
            assert_eq!(pair, want, "{timing:?}: {f}");
            assert_ne!(f["wave"], f["other"]["wave"], "{f}");
        }
    }
}

#[test]
fn global_race_between_waves_of_a_workgroup() {
    let write = line_of("buf[t] = 3 * t;");
    let read = line_of("out[t] = buf[N - 1 - t];");
    for timing in [&[][..], &["--timing", "off"][..]] {
        for f in seeded("grace", "global-race", "", timing) {
            assert_eq!(f["check"], "racecheck");
            let mut pair = [
                source(&f["place"]).to_string(),
                source(&f["other"]["place"]).to_string(),
            ];
            pair.sort();
            let mut want = [write.clone(), read.clone()];
            want.sort();
            assert_eq!(pair, want, "{timing:?}: {f}");
        }
    }
}

#[test]
fn off_by_one_store_past_a_buffer() {
    let findings = seeded("oob", "out-of-bounds", &line_of("if (i <= last)"), &[]);
    let store = findings
        .iter()
        .find(|f| f["access"] == "store")
        .expect("the store is reported");
    let detail = store["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("0x0 bytes past the end of buffer") && detail.contains("(512 bytes)"),
        "{detail}"
    );
    assert_eq!(store["workgroup"][0], 1);
    assert_eq!(store["lane"], 0);
    assert_eq!(store["count"], 1);
}

#[test]
fn use_after_free() {
    let findings = seeded(
        "uaf",
        "use-after-free",
        &line_of("out[threadIdx.x] = v;"),
        &[],
    );
    assert_eq!(findings[0]["count"], 64, "{}", findings[0]);
    assert!(findings[0]["detail"]
        .as_str()
        .unwrap()
        .contains("which has been freed"));
    // The store faults on a GPU: the program still sees the error, as without --check.
    let (_, out) = checked(&[], "sanitize", &["uaf"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("sync hipErrorIllegalAddress"),
        "{}",
        describe(&out)
    );
}

#[test]
fn host_memory_never_registered() {
    let findings = seeded(
        "host",
        "out-of-bounds",
        &line_of("out[threadIdx.x] = v;"),
        &[],
    );
    let detail = findings[0]["detail"].as_str().unwrap();
    assert!(
        detail
            .starts_with("host memory ([heap]) the program never registered with hipHostRegister"),
        "{detail}"
    );
}

#[test]
fn read_of_memory_nothing_wrote() {
    let findings = seeded(
        "uninit",
        "uninitialized-read",
        &line_of("if (i <= last)"),
        &[],
    );
    assert_eq!(findings[0]["access"], "load");
    assert_eq!(findings[0]["count"], 128);
}

#[test]
fn leaked_allocation() {
    let findings = seeded("leak", "leak", "", &[]);
    assert_eq!(findings.len(), 1);
    let detail = findings[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("1 allocation(s) of 4096 bytes")
            && detail.contains("by hipMalloc at sanitize+0x"),
        "{detail}"
    );
    // The program's own line, not that of HIP's inline template wrapper around hipMalloc.
    assert!(
        detail.contains(&format!("{} still live", line_of("hipMalloc(&kept"))),
        "{detail}"
    );
}

#[test]
fn check_error_fails_the_program() {
    let out = exec(
        &["--check", "leaks", "--check-error"],
        "sanitize",
        &["leak"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    // What the program printed is flushed all the same.
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("done\n"));
    let out = exec(
        &["--check", "leaks", "--check-error"],
        "sanitize",
        &["leak", "fixed"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn clean_programs_report_nothing() {
    let module = ["../hip/saxpy.gfx900.co", "module_globals.gfx900.co"];
    let module: Vec<String> = module
        .iter()
        .map(|p| programs().join(p).display().to_string())
        .collect();
    let module: Vec<&str> = module.iter().map(String::as_str).collect();
    for (program, args) in [
        ("launch", &[][..]),
        ("memory", &[]),
        ("streams", &[]),
        ("device", &[]),
        ("errors", &[]),
        ("printf", &[]),
        ("devmalloc", &[]),
        ("module", &module[..]),
    ] {
        let (findings, out) = checked(&["--timing", "off"], program, args);
        assert!(out.status.success(), "{program}: {}", describe(&out));
        assert!(findings.is_empty(), "{program}: {findings:?}");
    }
}

#[test]
fn a_guest_fault_names_its_source_line() {
    // Without --check the use after free is a fault, reported with its line.
    let out = exec(&[], "sanitize", &["uaf"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&line_of("out[threadIdx.x] = v;"))
            && stderr.contains("outside device memory"),
        "{stderr}"
    );
}

#[test]
fn disasm_interleaves_source_lines() {
    let built = common::hip::built();
    let out = Command::new(&built.gcnemu)
        .args(["disasm", "--source", "--target", "gfx900", "--kernel"])
        .arg("_Z14reverse_in_ldsPKiPii")
        .arg("tests/fixtures/programs/sanitize")
        .current_dir(repo_root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let write = line_of("slots[t] = in[t];");
    let at = text
        .find(&format!("; {write}\n;       slots[t] = in[t];\n"))
        .unwrap_or_else(|| panic!("no source line before the LDS write\n{text}"));
    assert!(text[at..].contains("ds_write_b32"), "{text}");
    // Without --source the listing is llvm-objdump's, with no comment lines.
    let out = Command::new(&built.gcnemu)
        .args([
            "disasm",
            "--target",
            "gfx900",
            "--kernel",
            "_Z14reverse_in_ldsPKiPii",
        ])
        .arg("tests/fixtures/programs/sanitize")
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\n; "));
}

/// The same seeded bugs in the program's gfx90a:xnack- code object (its own line tables) are
/// reported at the same source lines.
#[test]
fn seeded_bugs_on_gfx90a() {
    let gfx90a = ["--timing", "off", "--target", "gfx90a"];
    let lines = |findings: &[serde_json::Value]| {
        let mut places: Vec<String> = findings
            .iter()
            .flat_map(|f| [&f["place"], &f["other"]["place"]])
            .filter(|p| !p.is_null())
            .map(|p| source(p).to_string())
            .collect();
        places.sort();
        places.dedup();
        places
    };
    let race = seeded_with("race", "lds-race", &["uninitialized-lds-read"], "", &gfx90a);
    let (write, read) = (
        line_of("slots[t] = in[t];"),
        line_of("out[t] = slots[N - 1 - t];"),
    );
    let mut want = vec![write, read];
    want.sort();
    assert_eq!(lines(&race), want);
    let grace = seeded("grace", "global-race", "", &gfx90a);
    let mut want = vec![
        line_of("buf[t] = 3 * t;"),
        line_of("out[t] = buf[N - 1 - t];"),
    ];
    want.sort();
    assert_eq!(lines(&grace), want);
    seeded("oob", "out-of-bounds", &line_of("if (i <= last)"), &gfx90a);
    seeded(
        "uaf",
        "use-after-free",
        &line_of("out[threadIdx.x] = v;"),
        &gfx90a,
    );
}
