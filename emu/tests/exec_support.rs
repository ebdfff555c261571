//! Keeps `emu/SUPPORT.md` (the support manifest) equal to what the opcode table, the semantics
//! and the test vectors say now. `UPDATE_SUPPORT=1 cargo test -p gcnemu --test exec_support` rewrites it.

mod exec_common;
use exec_common::vectors::{check, load_all};
use gcnemu::exec::support::{manifest, not_in_compute, on_target, support, Support, TARGETS};
use std::collections::HashSet;
use std::path::Path;

/// The table rows (format and mnemonic) that passing test vectors (`emu/tests/vectors/`) run
/// in their own encoding: an SDWA or DPP form does not count for the VOP1/VOP2 row.
fn tested_rows() -> HashSet<(&'static str, &'static str)> {
    let (vectors, errors) = load_all();
    assert!(errors.is_empty(), "{errors:?}");
    let mut rows = HashSet::new();
    for v in &vectors {
        let (bad, ops) = check(v);
        if !bad.is_empty() {
            continue;
        }
        for (mnemonic, info) in ops {
            if mnemonic == info.name {
                rows.insert((info.format.name(), info.name));
            }
        }
    }
    rows
}

#[test]
fn support_manifest_is_current() {
    let rows = tested_rows();
    let text = manifest(&|op| rows.contains(&(op.format.name(), op.name)));
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

/// Every op the emulator runs is tested by a vector in its own encoding, on every target; the
/// only ops without semantics are gfx940's matrix ops (`v_mfma_*`, `v_smfmac_*`).
#[test]
fn every_implemented_op_is_tested() {
    let rows = tested_rows();
    let mut bad = Vec::new();
    for op in gcn_isa::all_ops() {
        for t in TARGETS.iter().filter(|t| on_target(op, **t)) {
            match support(op, *t) {
                Support::Implemented if !rows.contains(&(op.format.name(), op.name)) => {
                    bad.push(format!("{} {}: no passing vector", t.name(), op.name))
                }
                Support::Missing if !not_yet(op.name) => {
                    bad.push(format!("{} {}: no semantics", t.name(), op.name))
                }
                _ => {}
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Ops allowed to have no semantics (see `every_implemented_op_is_tested`).
fn not_yet(name: &str) -> bool {
    name.starts_with("v_mfma") || name.starts_with("v_smfmac")
}

#[test]
fn graphics_ops_are_explicitly_outside_compute() {
    let ops = gcn_isa::all_ops();
    let find = |n: &str| ops.iter().find(|o| o.name == n).unwrap();
    for name in ["exp", "v_interp_p1_f32_e32", "v_interp_p2_f16"] {
        let op = find(name);
        assert!(not_in_compute(op).is_some(), "{name}");
        assert!(matches!(
            support(op, gcn_isa::Target::Gfx900),
            Support::NotInCompute(_)
        ));
    }
    for name in ["v_add_f32_e32", "image_sample", "image_load"] {
        assert_eq!(
            support(find(name), gcn_isa::Target::Gfx900),
            Support::Implemented
        );
    }
}
