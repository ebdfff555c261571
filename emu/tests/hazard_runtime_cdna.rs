//! The run-time hazard check on matrix-core code: hipcc's GEMM (`tests/fixtures/hip/mfma_gemm.hip`,
//! `v_mfma_f32_32x32x8f16` into AGPRs, read back by `v_accvgpr_read`) runs clean on gfx908 and
//! gfx90a, and with the `s_nop 7` LLVM put after its last MFMA shrunk to `s_nop 0` the issued path
//! breaks the target's rule for reading an MFMA's result.
//!
//! gfx940 code does not launch yet, so its rules are checked on the tracker itself: each
//! straight-line function of the gfx940 lint fixtures and of llc-19's gfx942 MFMA chains is issued
//! to a `HazardTracker` in order, and the tracker must report what the lint reports.

use gcn_isa::Target;
use gcn_loader::ElfObject;
use gcnemu::hazard::cfg::Graph;
use gcnemu::hazard::{lint, HazardTracker};
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
use std::path::PathBuf;

/// The rules (ids) the run-time check reported for one launch of `bytes`.
fn run(target: Target, bytes: &[u8]) -> Vec<&'static str> {
    let mut dev = Device::new(DeviceConfig {
        target,
        ..Default::default()
    });
    let module = dev.load("mfma_gemm", bytes).unwrap();
    let (m, n, k) = (32usize, 32usize, 16usize);
    let a = dev.alloc((2 * m * k) as u64).unwrap();
    let b = dev.alloc((2 * k * n) as u64).unwrap();
    let c = dev.alloc((4 * m * n) as u64).unwrap();
    let args = [
        Arg::Ptr(a),
        Arg::Ptr(b),
        Arg::Ptr(c),
        Arg::I32(m as i32),
        Arg::I32(n as i32),
        Arg::I32(k as i32),
    ];
    let dims = Dims {
        grid: [1, 1, 1],
        block: [64, 1, 1],
    };
    let stats = dev
        .launch(
            &module,
            "mfma_gemm_f16",
            dims,
            &args,
            &LaunchOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    stats.hazards.iter().map(|h| h.rule).collect()
}

#[test]
fn matrix_rules_hold_at_run_time() {
    for (target, rule) in [
        (Target::Gfx908, "mfma-agpr-accvgpr-read"),
        (Target::Gfx90a, "mfma-valu-read"),
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../tests/fixtures/hip/mfma_gemm.{target}.co"));
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(run(target, &bytes), Vec::<&str>::new(), "{target}");
        // `s_nop 7; s_nop 7` after the loop's last MFMA, before the first v_accvgpr_read.
        let nops = [7, 0, 0x80, 0xbf, 7, 0, 0x80, 0xbf];
        let at = bytes
            .windows(nops.len())
            .position(|w| w == nops)
            .unwrap_or_else(|| panic!("{target}: no s_nop 7 pair"));
        let mut mutant = bytes.clone();
        mutant[at] = 0;
        let found = run(target, &mutant);
        assert!(found.contains(&rule), "{target}: {found:?}");
    }
}

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

/// A function's run-time findings: (rule, provided, required) each.
type Issued = (String, Vec<(&'static str, u32, u32)>);

/// Each function of `bytes` issued in address order to a fresh tracker (the functions have no
/// branches, so that is the path a wave takes): (function, rule, provided, required) per finding.
fn issue_functions(bytes: &[u8]) -> (Target, Vec<Issued>) {
    let obj = ElfObject::parse("fixture", bytes).unwrap();
    let target = obj.target().unwrap();
    let mut out = Vec::new();
    for f in lint::functions(&obj) {
        let section = obj.sections.iter().find(|s| s.index == f.section).unwrap();
        let graph = Graph::build(section.data, section.address, f.entry, f.end, target);
        let mut tracker = HazardTracker::new(target, false);
        let mut found = Vec::new();
        for node in &graph.nodes {
            let inst = node.model.inst;
            assert!(
                !inst.class().is_branch() || node.addr + 4 >= f.end,
                "{}: a branch",
                f.name
            );
            for hit in tracker.issue(node.addr, inst) {
                found.push((hit.rule.id, hit.provided, hit.required));
            }
        }
        out.push((f.name, found));
    }
    (target, out)
}

/// gfx940's rules, by passes and XDL or not, hold on the issued path as in the lint: every bad
/// case of a gfx940 fixture is its rule, one wait state short; every ok case is clean.
#[test]
fn gfx940_rules_hold_on_the_issued_path() {
    let mut cases = 0;
    let dir = fixture("lint");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".o"))
        .collect();
    names.sort();
    for name in names {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let obj = ElfObject::parse(&name, &bytes).unwrap();
        if !obj.target().is_ok_and(|t| t.features().gfx940_insts) {
            continue;
        }
        let rule = name.trim_end_matches(".o").trim_end_matches("-gfx940");
        let (target, functions) = issue_functions(&bytes);
        assert!(target.features().gfx940_insts);
        for (function, found) in functions {
            if function.starts_with("ok") {
                assert!(found.is_empty(), "{name}: {function}: {found:?}");
            } else {
                let hit = found.iter().find(|f| f.0 == rule);
                let hit = hit.unwrap_or_else(|| panic!("{name}: {function}: {found:?}"));
                assert_eq!(hit.1 + 1, hit.2, "{name}: {function}");
            }
            cases += 1;
        }
    }
    assert!(cases >= 140, "only {cases} gfx940 cases");
}

/// llc-19's gfx942 MFMA chains issue clean; shrinking any `s_nop N` LLVM put there is reported
/// at run time, as the lint reports it.
#[test]
fn llvm_gfx942_chains_and_their_mutants_at_run_time() {
    let bytes = std::fs::read(fixture("lint/hip/mfma.gfx942.co")).unwrap();
    let (target, functions) = issue_functions(&bytes);
    assert_eq!(target, Target::Gfx942);
    for (function, found) in &functions {
        assert!(found.is_empty(), "{function}: {found:?}");
    }
    // File offsets of the code's `s_nop N`, N >= 1.
    let obj = ElfObject::parse("chains", &bytes).unwrap();
    let mut nops = Vec::new();
    for section in obj.code_sections() {
        let base = section.data.as_ptr() as usize - bytes.as_ptr() as usize;
        for (k, w) in section.data.chunks_exact(4).enumerate() {
            if w[1..] == [0, 0x80, 0xbf] && (1..8).contains(&w[0]) {
                nops.push(base + 4 * k);
            }
        }
    }
    let mut mutants = 0;
    for at in nops {
        for shrunk in 0..bytes[at] {
            let mut mutant = bytes.clone();
            mutant[at] = shrunk;
            let (_, functions) = issue_functions(&mutant);
            let hits: usize = functions.iter().map(|(_, f)| f.len()).sum();
            assert!(hits > 0, "s_nop {} -> s_nop {shrunk} at {at:#x}", bytes[at]);
            mutants += 1;
        }
    }
    assert!(mutants >= 80, "only {mutants} mutants");
}
