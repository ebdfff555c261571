//! Keeps `emu/SUPPORT.md` (the support manifest) equal to what the opcode table and the semantics
//! say now. `UPDATE_SUPPORT=1 cargo test -p gcnemu --test exec_support` rewrites it.

use gcnemu::exec::support::{manifest, not_in_compute, support, Support};
use std::collections::HashSet;
use std::path::Path;

/// Mnemonics that appear as a whole word in the instruction-level tests (`exec_*.rs`, which
/// assemble and run them).
fn tested_words() -> HashSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut words = HashSet::new();
    for entry in std::fs::read_dir(&dir).expect("emu/tests") {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.starts_with("exec_") || !name.ends_with(".rs") || name == "exec_support.rs" {
            continue;
        }
        // Snippets separate instructions with the escape `\n`, which must not glue an `n` on.
        let text = std::fs::read_to_string(&path)
            .expect("test source")
            .replace("\\n", " ");
        for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            // Assembly carries LLVM's encoding suffixes; the manifest matches base names.
            let w = w
                .strip_suffix("_e32")
                .or_else(|| w.strip_suffix("_e64"))
                .or_else(|| w.strip_suffix("_sdwa"))
                .or_else(|| w.strip_suffix("_dpp"))
                .unwrap_or(w);
            words.insert(w.to_string());
        }
    }
    words
}

#[test]
fn support_manifest_is_current() {
    let words = tested_words();
    let text = manifest(&|name| words.contains(name));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("SUPPORT.md");
    if std::env::var_os("UPDATE_SUPPORT").is_some() {
        std::fs::write(&path, &text).expect("write SUPPORT.md");
        return;
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        old == text,
        "emu/SUPPORT.md is stale: run `UPDATE_SUPPORT=1 cargo test -p gcnemu --test exec_support`"
    );
}

#[test]
fn graphics_ops_are_explicitly_outside_compute() {
    let ops = gcn_isa::all_ops();
    let find = |n: &str| ops.iter().find(|o| o.name == n).unwrap();
    for name in [
        "image_sample",
        "exp",
        "v_interp_p1_f32_e32",
        "v_interp_p2_f16",
    ] {
        let op = find(name);
        assert!(not_in_compute(op).is_some(), "{name}");
        assert!(matches!(
            support(op, gcn_isa::Target::Gfx900),
            Support::NotInCompute(_)
        ));
    }
    assert_eq!(
        support(find("v_add_f32_e32"), gcn_isa::Target::Gfx900),
        Support::Implemented
    );
}
