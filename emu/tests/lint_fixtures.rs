//! The hazard lint against its fixtures (`tests/fixtures/lint`, rebuilt by `build.sh`): every
//! rule has a `.s` whose `bad_*` functions must get a finding of that rule and whose `ok_*`
//! functions must get none; real hipcc output must be clean, and shrinking any s_nop LLVM put
//! there must be reported.

use gcn_loader::ElfObject;
use gcnemu::hazard::lint::{self, Finding, Options};
use gcnemu::hazard::rules::{Check, Rule, RULES};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/lint")
}

/// The fixtures of `rule`: `<id>.o`, and `<id>-gfx940.o` where gfx940 needs counts of its own
/// for a rule gfx90a has too.
fn rule_fixtures(rule: &Rule) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for name in [rule.id.to_string(), format!("{}-gfx940", rule.id)] {
        let path = fixtures().join(format!("{name}.o"));
        match std::fs::read(&path) {
            Ok(bytes) => out.push((name, bytes)),
            Err(e) if name == rule.id => panic!("{}: {e}", path.display()),
            Err(_) => {}
        }
    }
    out
}

fn lint_bytes(name: &str, bytes: &[u8], xnack: bool) -> (lint::Report, Vec<String>) {
    let obj = ElfObject::parse(name, bytes).expect("fixture parses");
    let target = obj.target().expect("fixture names its target");
    let functions = lint::functions(&obj).into_iter().map(|f| f.name).collect();
    (
        lint::lint_object(&obj, &Options::every_rule(target, xnack)),
        functions,
    )
}

fn by_function(findings: &[Finding]) -> BTreeMap<String, Vec<&'static str>> {
    let mut out: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    for f in findings {
        out.entry(f.function.clone()).or_default().push(f.rule);
    }
    out
}

#[test]
fn every_checkable_rule_has_bad_and_ok_fixtures() {
    for (rule, (name, bytes)) in RULES
        .iter()
        .filter(|r| !matches!(r.check, Check::NotCheckable(_)))
        .flat_map(|r| rule_fixtures(r).into_iter().map(move |f| (r, f)))
    {
        let (report, functions) = lint_bytes(&name, &bytes, true);
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        if name.ends_with("-gfx940") {
            let target = ElfObject::parse(&name, &bytes).unwrap().target().unwrap();
            assert!(target.features().gfx940_insts, "{name} is for gfx940");
        }
        let found = by_function(&report.findings);
        let bad: Vec<&String> = functions.iter().filter(|f| f.starts_with("bad")).collect();
        let ok: Vec<&String> = functions.iter().filter(|f| f.starts_with("ok")).collect();
        assert!(
            !bad.is_empty() && !ok.is_empty(),
            "{name}: needs bad_ and ok_ functions"
        );
        for f in bad {
            let rules = found.get(f).cloned().unwrap_or_default();
            assert!(
                rules.contains(&rule.id),
                "{name}: {f} should violate {}, got {rules:?}",
                rule.id
            );
        }
        for f in ok {
            assert!(
                !found.contains_key(f),
                "{name}: {f} should be clean, got {:?}",
                found[f]
            );
        }
    }
}

#[test]
fn soft_clause_rules_need_xnack() {
    for id in ["smem-soft-clause", "vmem-soft-clause"] {
        let bytes = std::fs::read(fixtures().join(format!("{id}.o"))).unwrap();
        let (on, _) = lint_bytes(id, &bytes, true);
        let (off, _) = lint_bytes(id, &bytes, false);
        assert!(on.findings.iter().any(|f| f.rule == id));
        assert!(
            off.findings.iter().all(|f| f.rule != id),
            "{id} reported with XNACK off"
        );
    }
}

/// A soft clause missing a break is one finding, at the member the break goes before, naming
/// the member it clashes with; the members after it are checked against the clause that break
/// leaves. A clash further back than LLVM's 5-instruction window is still one.
#[test]
fn soft_clause_findings_are_one_per_missing_break() {
    let cases = [
        (
            "vmem-soft-clause",
            [
                (
                    "bad_once",
                    "global_load_dword v4, v[0:1], off",
                    "global_load_dwordx2 v[0:1], v[6:7], off",
                ),
                (
                    "bad_beyond_llvm_window",
                    "global_load_dwordx2 v[16:17], v[20:21], off",
                    "global_load_dwordx2 v[20:21], v[50:51], off",
                ),
            ],
        ),
        (
            "smem-soft-clause",
            [
                (
                    "bad_once",
                    "s_load_dword s8, s[0:1], 0x0",
                    "s_load_dwordx2 s[0:1], s[6:7], 0x0",
                ),
                (
                    "bad_beyond_llvm_window",
                    "s_load_dword s1, s[4:5], 0xc",
                    "s_load_dwordx2 s[4:5], s[6:7], 0x28",
                ),
            ],
        ),
    ];
    for (id, functions) in cases {
        let bytes = std::fs::read(fixtures().join(format!("{id}.o"))).unwrap();
        let (report, names) = lint_bytes(id, &bytes, true);
        for name in names.iter().filter(|n| n.starts_with("bad")) {
            let n = report
                .findings
                .iter()
                .filter(|f| f.rule == id && &f.function == name)
                .count();
            assert_eq!(n, 1, "{id}: {name} should be one finding");
        }
        for (function, producer, consumer) in functions {
            let f = report
                .findings
                .iter()
                .find(|f| f.rule == id && f.function == function)
                .unwrap_or_else(|| panic!("{id}: {function} not reported"));
            assert_eq!(
                f.producer.as_ref().unwrap().text,
                producer,
                "{id}: {function}"
            );
            assert_eq!(f.consumer.text, consumer, "{id}: {function}");
            assert!(f.fix.starts_with("insert `s_nop 0` before"), "{}", f.fix);
        }
    }
}

#[test]
fn wait_state_findings_report_counts_and_a_fix() {
    let bytes = std::fs::read(fixtures().join("valu-sgpr-vmem.o")).unwrap();
    let (report, _) = lint_bytes("valu-sgpr-vmem", &bytes, false);
    let f = report
        .findings
        .iter()
        .find(|f| f.function == "bad_saddr")
        .expect("bad_saddr finding");
    assert_eq!(f.rule, "valu-sgpr-vmem");
    assert_eq!(f.required, "5 wait states");
    assert_eq!(f.provided, "3 wait states");
    assert_eq!(
        f.producer.as_ref().unwrap().text,
        "v_readlane_b32 s7, v0, 1"
    );
    assert_eq!(f.consumer.text, "global_load_dword v1, v2, s[6:7]");
    assert!(f.fix.starts_with("insert `s_nop 1` before"), "{}", f.fix);
}

fn hip_objects() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures().join("hip"))
        .unwrap()
        .chain(std::fs::read_dir(fixtures().join("../hip")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    out.sort();
    out
}

#[test]
fn real_compiler_output_is_clean() {
    let objects = hip_objects();
    assert!(objects.len() >= 18, "HIP fixtures missing: {objects:?}");
    for path in objects {
        let bytes = std::fs::read(&path).unwrap();
        let xnack = ElfObject::parse("x", &bytes).unwrap().e_flags & 0x100 != 0;
        let (report, _) = lint_bytes(&path.display().to_string(), &bytes, xnack);
        assert!(
            report.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            report.problems
        );
        assert!(
            report.findings.is_empty(),
            "{}: {:#?}",
            path.display(),
            report.findings
        );
    }
}

/// Every reachable `s_nop N` with N >= 1 in the HIP fixtures, as (file offset, address, N).
fn compiler_nops(bytes: &[u8]) -> Vec<(usize, u64, u16)> {
    let obj = ElfObject::parse("x", bytes).unwrap();
    let target = obj.target().unwrap();
    let mut out = Vec::new();
    for f in lint::functions(&obj) {
        let section = obj.sections.iter().find(|s| s.index == f.section).unwrap();
        let graph = gcnemu::hazard::cfg::Graph::build(
            section.data,
            section.address,
            f.entry,
            f.end,
            target,
        );
        let file_base = section.data.as_ptr() as usize - bytes.as_ptr() as usize;
        for node in &graph.nodes {
            let inst = node.model.inst;
            if inst.info().name == "s_nop" && inst.simm16() & 7 >= 1 {
                let offset = file_base + (node.addr - section.address) as usize;
                out.push((offset, node.addr, inst.simm16() & 7));
            }
        }
    }
    out
}

#[test]
fn shrinking_a_compiler_inserted_nop_is_reported() {
    let (mut mutants, mut gfx942) = (0, 0);
    for path in hip_objects() {
        let bytes = std::fs::read(&path).unwrap();
        for (offset, addr, n) in compiler_nops(&bytes) {
            for shrunk in 0..n {
                let mut mutant = bytes.clone();
                assert_eq!(&mutant[offset..offset + 4], &[n as u8, 0, 0x80, 0xbf]);
                mutant[offset] = shrunk as u8;
                let (report, _) = lint_bytes("mutant", &mutant, false);
                // The consumer is the instruction right after the nop.
                let hit = report
                    .findings
                    .iter()
                    .find(|f| f.consumer.address > addr && f.consumer.address <= addr + 12);
                assert!(
                    hit.is_some(),
                    "{}: s_nop {n} -> s_nop {shrunk} at {addr:#x} not reported: {:#?}",
                    path.display(),
                    report.findings
                );
                let hit = hit.unwrap();
                let needed = RULES
                    .iter()
                    .find(|r| r.id == hit.rule)
                    .and_then(|r| r.wait_states())
                    .unwrap();
                assert!(needed as u16 > shrunk + 1, "{hit:#?}");
                mutants += 1;
                gfx942 += path.to_string_lossy().ends_with(".gfx942.co") as usize;
            }
        }
    }
    // 5 DPP s_nop 1 and one readlane s_nop 2 per target: (5 * 1 + 2) * 2.
    assert!(mutants >= 14, "only {mutants} mutants");
    // llc-19's gfx942 matrix-core chains (every class of gfx940 MFMA).
    assert!(gfx942 >= 80, "only {gfx942} gfx942 mutants");
}

/// The matrix-core fixtures hold each bad case as producer, too few wait states, consumer,
/// `s_endpgm`: the finding must name exactly that producer and consumer and count the wait
/// states in between, one short of what the rule (by the producer's passes) requires; the ok
/// twin has exactly that many (LLVM's minimum).
#[test]
fn matrix_findings_name_the_pair_and_fall_one_short() {
    let mut checked = 0;
    for (rule, (name, bytes)) in RULES
        .iter()
        .filter(|r| r.gate.is_matrix())
        .flat_map(|r| rule_fixtures(r).into_iter().map(move |f| (r, f)))
    {
        let obj = ElfObject::parse(&name, &bytes).unwrap();
        let target = obj.target().unwrap();
        assert!(rule.gate.applies(target.features(), false), "{name}");
        let report = lint::lint_object(&obj, &Options::every_rule(target, false));
        for f in lint::functions(&obj)
            .into_iter()
            .filter(|f| f.name.starts_with("bad"))
        {
            let section = obj.sections.iter().find(|s| s.index == f.section).unwrap();
            let graph = gcnemu::hazard::cfg::Graph::build(
                section.data,
                section.address,
                f.entry,
                f.end,
                target,
            );
            let n = graph.nodes.len();
            let (first, consumer) = (&graph.nodes[0], &graph.nodes[n - 2]);
            let finding = report
                .findings
                .iter()
                .find(|x| x.rule == rule.id && x.function == f.name)
                .unwrap_or_else(|| panic!("{name}: {} not reported", f.name));
            assert_eq!(finding.consumer.address, consumer.addr, "{finding:#?}");
            assert_eq!(
                finding.producer.as_ref().unwrap().address,
                first.addr,
                "{finding:#?}"
            );
            let count = |s: &str| s.split(' ').next().unwrap().parse::<u32>().unwrap();
            assert_eq!(
                count(&finding.provided) + 1,
                count(&finding.required),
                "{finding:#?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 140, "only {checked} bad cases");
}
