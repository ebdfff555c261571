//! What an opcode is lives in the ISA table (`isa-tables/data/gfx9-ops.tsv`): its facts column
//! and the generated `Op`. Code decides by `Op` and facts, never by comparing mnemonic strings.
//! This test reads the non-test Rust source of the emulator, the ISA crate and the HIP runtime
//! and fails on any string literal that is a table mnemonic (`"s_waitcnt"`) or the prefix of
//! one (`"v_cmp_"`, `"buffer_atomic"`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of `source` before its first `#[cfg(test)]` (tests may name mnemonics).
fn literals(source: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        let mut parts = line.split('"');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            out.push((n + 1, inside.to_string()));
        }
    }
    out
}

#[test]
fn no_code_compares_mnemonic_strings() {
    let mut names: HashSet<&str> = HashSet::new();
    for op in gcn_isa::all_ops() {
        names.insert(op.name);
        names.insert(op.base_name());
    }
    let is_mnemonic_or_prefix = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && s.contains('_')
            && (names.contains(s) || names.iter().any(|n| n.starts_with(s) && n.len() > s.len()))
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for dir in ["emu/src", "emu/hip/src", "isa-tables/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for (line, lit) in literals(&source) {
            if is_mnemonic_or_prefix(&lit) {
                found.push(format!(
                    "{}:{line}: \"{lit}\"",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "mnemonic strings in code (use gcn_isa::Op or a fact of the table):\n{}",
        found.join("\n")
    );
}
