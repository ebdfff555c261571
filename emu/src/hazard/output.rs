//! Reports: compiler-style text, JSON, and SARIF 2.1.0 for code-scanning tools.

use super::lint::{Finding, Report};
use super::rules::{Check, RULES};
use serde_json::{json, Value};
use std::fmt::Write;

/// A linted input: its display name and its report (one per code object; a fat binary gives
/// several, labelled `file:target` or by bundle entry).
pub struct Linted {
    pub label: String,
    pub uri: String,
    pub report: Report,
}

/// Diagnostics in the style of a compiler: `file:function+0x1c: error[rule]: message`, the
/// context lines, and the fix.
pub fn text(inputs: &[Linted]) -> String {
    let mut out = String::new();
    let mut total = 0;
    for input in inputs {
        for p in &input.report.problems {
            let _ = writeln!(out, "{}: note: {p}", input.label);
        }
        for f in &input.report.findings {
            total += 1;
            let _ = writeln!(
                out,
                "{}:{}: error[{}]: {}",
                input.label, f.consumer.location, f.rule, f.message
            );
            if let Some(p) = &f.producer {
                let _ = writeln!(
                    out,
                    "  note: producer at {} ({:#x}): {}",
                    p.location, p.address, p.text
                );
            }
            for line in &f.context {
                let mark = match line.marker {
                    "consumer" => "> ",
                    "producer" => "* ",
                    _ => "  ",
                };
                let _ = writeln!(out, "   {mark}{:#010x}  {}", line.address, line.text);
            }
            let _ = writeln!(
                out,
                "  required: {}; provided: {}\n  fix: {}",
                f.required, f.provided, f.fix
            );
        }
    }
    let functions: usize = inputs.iter().map(|i| i.report.functions).sum();
    let instructions: usize = inputs.iter().map(|i| i.report.instructions).sum();
    let _ = writeln!(
        out,
        "{total} finding{} in {} code object{}, {functions} functions, {instructions} instructions",
        if total == 1 { "" } else { "s" },
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
    );
    out
}

/// One JSON document: `{"inputs": [{"label", "functions", "instructions", "problems",
/// "findings": [...]}]}`.
pub fn json(inputs: &[Linted]) -> String {
    let doc = json!({
        "inputs": inputs.iter().map(|i| json!({
            "label": i.label,
            "file": i.uri,
            "functions": i.report.functions,
            "instructions": i.report.instructions,
            "problems": i.report.problems,
            "findings": i.report.findings,
        })).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// SARIF 2.1.0: one run, the rule table as `tool.driver.rules`, one result per finding with the
/// consumer as the location (a binary address) and the producer as a related location.
pub fn sarif(inputs: &[Linted]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": format!("{} -> {}: {}", r.first, r.second, r.requirement())},
                "help": {"text": r.reference},
                "defaultConfiguration": {"level": if matches!(r.check, Check::NotCheckable(_)) || !r.default_on { "none" } else { "error" }},
            })
        })
        .collect();
    let mut results = Vec::new();
    for input in inputs {
        for f in &input.report.findings {
            results.push(result(input, f));
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "gcnemu",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "artifacts": inputs.iter().map(|i| json!({"location": {"uri": i.uri}})).collect::<Vec<_>>(),
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn result(input: &Linted, f: &Finding) -> Value {
    let rule_index = RULES.iter().position(|r| r.id == f.rule).unwrap_or(0);
    let location = |address: u64, name: &str, text: &str| {
        json!({
            "physicalLocation": {
                "artifactLocation": {"uri": input.uri},
                "address": {"absoluteAddress": address, "fullyQualifiedName": name, "kind": "instruction"},
            },
            "logicalLocations": [{"name": f.function, "kind": "function"}],
            "message": {"text": text},
        })
    };
    let mut r = json!({
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": format!("{} (required {}, provided {}); fix: {}", f.message, f.required, f.provided, f.fix)},
        "locations": [location(f.consumer.address, &f.consumer.location, &f.consumer.text)],
        "properties": {"codeObject": input.label, "required": f.required, "provided": f.provided},
    });
    if let Some(p) = &f.producer {
        r["relatedLocations"] = json!([location(p.address, &p.location, &p.text)]);
    }
    r
}
