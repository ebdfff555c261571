//! `gcnemu lint` on the command line: exit status, output formats, rule selection, inputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

fn lint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .arg("lint")
        .args(args)
        .output()
        .expect("gcnemu runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn path(rel: &str) -> String {
    fixture(rel).display().to_string()
}

#[test]
fn rules_lists_every_rule() {
    let out = lint(&["--rules"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for rule in gcnemu::hazard::RULES {
        assert!(
            text.contains(&format!("{}\n", rule.id)),
            "{} missing",
            rule.id
        );
        assert!(text.contains(rule.reference));
    }
}

#[test]
fn exit_status_is_0_clean_1_findings_2_error() {
    assert_eq!(lint(&[&path("hip/saxpy.gfx900.co")]).status.code(), Some(0));
    let dpp = path("lint/valu-vgpr-dpp.o");
    let out = lint(&[&dpp, "--context", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("bad_adjacent+0x4: error[valu-vgpr-dpp]"),
        "{text}"
    );
    assert!(text.contains("fix: insert `s_nop 1` before 0x4"), "{text}");
    assert!(
        text.contains(">"),
        "context lines mark the consumer: {text}"
    );
    assert_eq!(lint(&["/nonexistent/x.co"]).status.code(), Some(2));
    let bad_rule = lint(&[&dpp, "--allow", "no-such-rule"]);
    assert_eq!(bad_rule.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_rule.stderr).contains("unknown rule `no-such-rule`"));
}

#[test]
fn allow_and_deny_select_rules() {
    let dpp = path("lint/valu-vgpr-dpp.o");
    assert_eq!(
        lint(&[&dpp, "--allow", "valu-vgpr-dpp"]).status.code(),
        Some(0)
    );
    let any = path("lint/any-vgpr-dpp.o");
    let default_run = stdout(&lint(&[&any]));
    assert!(
        !default_run.contains("any-vgpr-dpp]"),
        "off by default: {default_run}"
    );
    let denied = stdout(&lint(&[&any, "--deny", "any-vgpr-dpp"]));
    assert!(
        denied.contains("bad_ds_read+0xc: error[any-vgpr-dpp]"),
        "{denied}"
    );
    let vmem = path("lint/waitcnt-vmem.o");
    assert_eq!(lint(&[&vmem, "--allow", "waitcnt"]).status.code(), Some(0));
    let out = lint(&[
        &vmem,
        "--allow",
        "all",
        "--deny",
        "waitcnt-vmem",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let findings = doc["inputs"][0]["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    assert!(findings.iter().all(|f| f["rule"] == "waitcnt-vmem"));
}

#[test]
fn json_and_sarif_agree_with_text() {
    let file = path("lint/valu-sgpr-vmem.o");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&lint(&[&file, "--format", "json"]))).unwrap();
    let findings = json["inputs"][0]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 5);
    let first = &findings[0];
    assert_eq!(first["rule"], "valu-sgpr-vmem");
    assert_eq!(first["consumer"]["address"], 4);
    assert_eq!(first["producer"]["text"], "v_readfirstlane_b32 s4, v0");
    assert_eq!(first["required"], "5 wait states");

    let sarif: serde_json::Value =
        serde_json::from_str(&stdout(&lint(&[&file, "--format", "sarif"]))).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), gcnemu::hazard::RULES.len());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(loc["address"]["absoluteAddress"].is_u64());
        assert!(loc["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("valu-sgpr-vmem.o"));
        assert!(
            r["relatedLocations"][0]["physicalLocation"]["address"]["absoluteAddress"].is_u64()
        );
    }
}

fn finding_keys(args: &[&str]) -> Vec<(String, String, u64)> {
    let doc: serde_json::Value = serde_json::from_str(&stdout(&lint(args))).unwrap();
    doc["inputs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["function"].as_str().unwrap().to_string(),
                f["consumer"]["address"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn assembly_text_lints_like_its_object() {
    for rule in [
        "valu-vgpr-dpp",
        "waitcnt-vmem",
        "stale-vccz",
        "setreg-getreg",
    ] {
        let s = path(&format!("lint/{rule}.s"));
        let o = path(&format!("lint/{rule}.o"));
        let from_text = finding_keys(&[&s, "--format", "json"]);
        assert!(!from_text.is_empty());
        assert_eq!(from_text, finding_keys(&[&o, "--format", "json"]), "{rule}");
    }
}

#[test]
fn fat_binaries_lint_every_code_object() {
    let out = lint(&[&path("loader/tiny.bundle"), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let labels: Vec<&str> = doc["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert!(labels[0].contains("gfx900") && labels[1].contains("gfx906"));
    let only = lint(&[
        &path("loader/tiny.bundle"),
        "--target",
        "gfx906",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&only)).unwrap();
    assert_eq!(doc["inputs"].as_array().unwrap().len(), 1);
}
