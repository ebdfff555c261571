//! `gcnemu info` and `gcnemu disasm` on every input kind of `tests/fixtures/loader/`: code
//! objects v2–v5, an llvm-mc relocatable object, an offload bundle, and a host library with two
//! bundles in `.hip_fatbin`. Disassembly is checked against llvm-objdump-15's listings made by
//! that folder's build.sh.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/loader")
}

fn gcnemu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("run gcnemu")
}

fn stdout_of(args: &[&str]) -> String {
    let out = gcnemu(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout_of(args)).expect("valid JSON")
}

/// The line of `text` for the argument at `offset` in the first listed kernel called `kernel`.
fn argument_line<'a>(text: &'a str, kernel: &str, offset: u64) -> &'a str {
    let start = text
        .find(&format!("kernel {kernel}\n"))
        .unwrap_or_else(|| panic!("no kernel {kernel} in:\n{text}"));
    text[start..]
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("offset size"))
        .skip(1)
        .find(|l| l.split_whitespace().next() == Some(&offset.to_string()))
        .unwrap_or_else(|| panic!("no argument at {offset} for {kernel}"))
}

#[test]
fn info_text_for_a_code_object() {
    let text = stdout_of(&["info", "args.v4.co"]);
    assert!(text.starts_with("args.v4.co: 1 code object; targets: gfx900:xnack-\n"));
    assert!(text.contains("code object v4 for gfx900:xnack-: 2 kernels"));
    // mixed(char c, Pair p, float* out, short s, double d) with 1 KiB of __shared__ data and
    // __launch_bounds__(256).
    let mixed = &text[text.find("kernel mixed").unwrap()..text.find("kernel scale2d").unwrap()];
    assert!(mixed.contains("LDS 1024 bytes"), "{mixed}");
    assert!(mixed.contains("at most 256 work-items, wave64"), "{mixed}");
    assert!(
        mixed.contains("kernarg segment 48 bytes, align 8; 5 arguments"),
        "{mixed}"
    );
    let pointer: Vec<&str> = argument_line(&text, "mixed", 24)
        .split_whitespace()
        .collect();
    assert_eq!(pointer[..4], ["24", "8", "global_buffer", "(global)"]);
    let pair: Vec<&str> = argument_line(&text, "mixed", 8)
        .split_whitespace()
        .collect();
    assert_eq!(pair[..3], ["8", "16", "by_value"]);
    assert!(
        mixed.contains("user SGPRs (8): private_segment_buffer, dispatch_ptr, kernarg_segment_ptr")
    );
    let scale2d = &text[text.find("kernel scale2d").unwrap()..];
    assert!(
        scale2d.contains("system SGPRs: workgroup_id_x, workgroup_id_y; work-item id VGPRs: x, y")
    );
    assert!(scale2d.contains("at most 1024 work-items"));
}

#[test]
fn info_names_the_arguments_of_the_llvm_mc_object() {
    let text = stdout_of(&["info", "kernels.o"]);
    assert!(text.contains("code object v4 for gfx906 (relocatable): 2 kernels"));
    let src: Vec<&str> = argument_line(&text, "copy", 0).split_whitespace().collect();
    assert_eq!(
        src,
        [
            "0",
            "8",
            "global_buffer",
            "(global)",
            "const",
            "int*",
            "src"
        ]
    );
    assert!(text.contains("entry 0x100 in .text"));
    assert!(text.contains("required size 128x1x1"));
    assert!(text.contains("scratch 32 bytes per work-item"));
}

#[test]
fn info_json_for_every_version() {
    for (file, version) in [
        ("args.v2.co", 2),
        ("args.v3.co", 3),
        ("args.v4.co", 4),
        ("args.v5.co", 5),
    ] {
        let report = json(&["info", file, "--json"]);
        assert_eq!(report["file"], file);
        let co = &report["code_objects"][0];
        assert_eq!(co["version"], version, "{file}");
        let mixed = &co["kernels"][0];
        assert_eq!(mixed["name"], "mixed");
        assert_eq!(mixed["descriptor"]["group_segment_fixed_size"], 1024);
        assert_eq!(mixed["meta"]["max_flat_workgroup_size"], 256);
        let args = mixed["meta"]["args"].as_array().unwrap();
        let offsets: Vec<u64> = args
            .iter()
            .take(5)
            .map(|a| a["offset"].as_u64().unwrap())
            .collect();
        assert_eq!(offsets, [0, 8, 24, 32, 40], "{file}");
        assert_eq!(args[2]["value_kind"], "global_buffer");
        let properties = &mixed["descriptor"]["kernel_code_properties"];
        assert_eq!(properties["enable_sgpr_kernarg_segment_ptr"], true);
    }
    let v5 = json(&["info", "args.v5.co", "--json"]);
    let args = v5["code_objects"][0]["kernels"][0]["meta"]["args"]
        .as_array()
        .unwrap();
    assert_eq!(args[5]["value_kind"], "hidden_block_count_x");
    assert_eq!(args[5]["offset"], 48);
    assert_eq!(v5["code_objects"][0]["target"]["sramecc"], true);
    assert_eq!(v5["code_objects"][0]["target"]["xnack"], false);
}

#[test]
fn info_on_fat_binaries_lists_every_code_object() {
    let report = json(&["info", "libfixture.so", "--json"]);
    let objects = report["code_objects"].as_array().unwrap();
    let summary: Vec<(String, usize)> = objects
        .iter()
        .map(|c| {
            (
                c["label"].as_str().unwrap().to_string(),
                c["kernels"].as_array().unwrap().len(),
            )
        })
        .collect();
    let id = |gfx: &str| format!("hipv4-amdgcn-amd-amdhsa--{gfx}");
    assert_eq!(
        summary,
        [
            (id("gfx900"), 2),
            (id("gfx906"), 2),
            (id("gfx900"), 1),
            (id("gfx906"), 1)
        ]
    );
    let text = stdout_of(&["info", "libfixture.so"]);
    assert!(
        text.starts_with("libfixture.so: 4 code objects; targets: gfx900 (2), gfx906 (2)\n"),
        "{}",
        text.lines().next().unwrap()
    );
    let text = stdout_of(&["info", "tiny.bundle"]);
    assert!(text.starts_with("tiny.bundle: 2 code objects; targets: gfx900, gfx906\n"));
    assert!(text.contains("bundle entry hipv4-amdgcn-amd-amdhsa--gfx906 at 0x"));
    assert_eq!(text.matches("kernel fill").count(), 2);
}

/// The committed llvm-objdump listing, with its header naming `name` instead.
fn objdump(listing: &str, name: &str) -> String {
    let text = std::fs::read_to_string(fixtures().join(listing)).unwrap();
    let (first, rest) = text.split_once(":\tfile format").unwrap();
    assert!(
        first.trim().ends_with(".co") || first.trim().ends_with(".o"),
        "{first}"
    );
    format!("\n{name}:\tfile format{rest}")
}

#[test]
fn disasm_matches_objdump_on_v2_v5_and_relocatable_objects() {
    for file in ["args.v2.co", "args.v5.co", "kernels.o"] {
        let ours = stdout_of(&["disasm", file]);
        let expected = objdump(&format!("{file}.objdump.txt"), file);
        assert_eq!(ours, expected, "{file}");
    }
}

#[test]
fn disasm_of_a_bundle_entry_matches_objdump_of_the_unbundled_object() {
    let ours = stdout_of(&["disasm", "tiny.bundle", "--target", "gfx900"]);
    let header_name = ours.lines().nth(1).unwrap().split(":\t").next().unwrap();
    assert!(header_name.starts_with("tiny.bundle:hipv4-amdgcn-amd-amdhsa--gfx900@0x"));
    assert_eq!(ours, objdump("tiny.gfx900.objdump.txt", header_name));
}

#[test]
fn disasm_labels_each_code_object_of_a_host_library() {
    let all = stdout_of(&["disasm", "libfixture.so"]);
    let headers: Vec<&str> = all.lines().filter(|l| l.contains("file format")).collect();
    assert_eq!(headers.len(), 4, "{headers:?}");
    assert!(headers
        .iter()
        .all(|h| h.starts_with("libfixture.so:hipv4-amdgcn-amd-amdhsa--gfx90")));
    let gfx906 = stdout_of(&["disasm", "libfixture.so", "--target", "gfx906"]);
    assert_eq!(gfx906.matches("file format").count(), 2);
    assert!(!gfx906.contains("gfx900@"));
    let fill = stdout_of(&["disasm", "libfixture.so", "--kernel", "fill"]);
    assert_eq!(fill.matches("<fill>:").count(), 2);
    assert!(!fill.contains("<mixed>"));
}

#[test]
fn bad_inputs_exit_2_naming_the_file() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["disasm", "libfixture.so", "--target", "gfx908"],
            "libfixture.so: no code object for gfx908 (it has: gfx900, gfx906)",
        ),
        (
            &["disasm", "tiny.bundle", "--kernel", "nope"],
            "tiny.bundle: no code object has a symbol named nope",
        ),
        (&["info", "args.hip"], "args.hip: not an ELF file"),
        (&["info", "missing.co"], "missing.co: cannot read"),
        (&["info", "build.sh", "--json"], "build.sh: not an ELF file"),
    ];
    for (args, message) in cases {
        let out = gcnemu(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// llvm-objdump-19's value of `.amdhsa_NAME` for the kernel of section `section` of
/// `cdna.kd.txt` (build.sh).
fn llvm_kd(section: &str, name: &str) -> String {
    let text = std::fs::read_to_string(fixtures().join("cdna.kd.txt")).unwrap();
    let start = text.find(&format!("== {section}\n")).unwrap();
    text[start..]
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!(".amdhsa_{name} ")))
        .unwrap_or_else(|| panic!("no .amdhsa_{name} for {section}"))
        .to_string()
}

#[test]
fn info_shows_the_unified_register_file_of_gfx90a_kernels() {
    let text = stdout_of(&["info", "cdna.bundle"]);
    let sections: Vec<&str> = text.split("\ncode object ").skip(1).collect();
    assert_eq!(sections.len(), 4, "{text}");
    for section in sections {
        let target = section
            .split(',')
            .next()
            .unwrap()
            .trim_start_matches("v4 for ");
        let registers = section.lines().find(|l| l.contains("registers:")).unwrap();
        let next_free_vgpr = llvm_kd(&format!("cdna.bundle {target}"), "next_free_vgpr");
        assert!(
            registers.contains(&format!("allocated {next_free_vgpr} VGPRs")),
            "{target}: {registers}"
        );
        if target.starts_with("gfx90a") {
            let offset = llvm_kd(&format!("cdna.bundle {target}"), "accum_offset");
            let line = format!("accum_offset {offset}: ArchVGPRs v0-v");
            assert!(section.contains(&line), "{target}: {section}");
            assert!(section.contains("; tg_split off\n"), "{section}");
        } else {
            assert!(!section.contains("accum_offset"), "{section}");
            assert!(!section.contains("tg_split"), "{section}");
        }
    }
    let split = stdout_of(&["info", "cdna.tgsplit.co"]);
    assert_eq!(llvm_kd("cdna.tgsplit.co", "tg_split"), "1");
    assert!(split.contains("; tg_split on\n"), "{split}");
}

#[test]
fn run_without_a_bundle_for_the_target_names_what_the_file_has() {
    let out = gcnemu(&[
        "run",
        "cdna.bundle",
        "--kernel",
        "scale",
        "--grid",
        "1",
        "--block",
        "64",
        "--target",
        "gfx906",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cdna.bundle: no code object for gfx906:xnack- (no kernel image"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the file has: gfx900, gfx908, gfx90a:xnack+, gfx90a:xnack-"),
        "{stderr}"
    );
}
