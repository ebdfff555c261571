//! The static lint of one code object: functions from the symbol table, a CFG per function, the
//! NOP rules evaluated at every instruction over every path, and the waitcnt dataflow.

use super::cfg::Graph;
use super::check;
use super::rules::{Check, LoadKind, Rule, RULES};
use super::waitcnt;
use gcn_isa::Target;
use gcn_loader::{ElfObject, SymbolKind};
use serde::Serialize;

/// What to check.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    /// XNACK replay enabled (gates the soft-clause rules).
    pub xnack: bool,
    /// Rules to evaluate (ids); the rest are skipped.
    pub enabled: Vec<&'static str>,
    /// Lines of disassembly to keep around each consumer.
    pub context: usize,
}

impl Options {
    /// The rules that are on by default.
    pub fn defaults(target: Target, xnack: bool) -> Options {
        Options {
            target,
            xnack,
            enabled: RULES
                .iter()
                .filter(|r| r.default_on)
                .map(|r| r.id)
                .collect(),
            context: 0,
        }
    }

    /// Every checkable rule, the ones off by default included.
    pub fn every_rule(target: Target, xnack: bool) -> Options {
        Options {
            enabled: RULES
                .iter()
                .filter(|r| !matches!(r.check, Check::NotCheckable(_)))
                .map(|r| r.id)
                .collect(),
            ..Options::defaults(target, xnack)
        }
    }

    fn applies(&self, rule: &Rule) -> bool {
        self.enabled.contains(&rule.id) && rule.gate.applies(self.target.features(), self.xnack)
    }
}

/// One instruction named in a finding.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub address: u64,
    /// `function+0xoffset`.
    pub location: String,
    pub text: String,
}

/// One violated rule.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub function: String,
    pub consumer: Site,
    pub producer: Option<Site>,
    /// What the rule requires ("5 wait states", "s_waitcnt vmcnt(0)").
    pub required: String,
    /// What the code provides on its worst path ("2 wait states", "none").
    pub provided: String,
    pub message: String,
    pub fix: String,
    /// Disassembly around the consumer: (address, text, marker) with marker "producer",
    /// "consumer" or "".
    pub context: Vec<ContextLine>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ContextLine {
    pub address: u64,
    pub text: String,
    pub marker: &'static str,
}

/// A function or kernel to lint.
#[derive(Clone, Debug)]
pub struct FunctionRange {
    pub name: String,
    pub section: usize,
    pub entry: u64,
    pub end: u64,
}

/// The result for one code object.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// Reachable bytes that did not decode, as "function+0xoff: message".
    pub problems: Vec<String>,
    pub functions: usize,
    pub instructions: usize,
}

/// `STT_AMDGPU_HSA_KERNEL` (code object v2) code starts after a 256-byte `amd_kernel_code_t`.
const AMD_KERNEL_CODE_T_SIZE: u64 = 256;

/// The functions of `obj`: every function/kernel symbol in an executable section, up to the
/// next one; a code section with none is linted as one function from its start.
pub fn functions(obj: &ElfObject) -> Vec<FunctionRange> {
    let mut out = Vec::new();
    for section in obj.code_sections().filter(|s| s.size > 0) {
        let end = section.address.saturating_add(section.size);
        let mut starts: Vec<(u64, String, bool)> = obj
            .functions()
            .into_iter()
            .filter(|s| s.section == Some(section.index))
            .filter(|s| s.address >= section.address && s.address < end)
            .map(|s| (s.address, s.name.clone(), s.kind() == SymbolKind::HsaKernel))
            .collect();
        starts.dedup_by_key(|s| s.0);
        if starts.is_empty() {
            starts.push((section.address, section.name.clone(), false));
        }
        for (k, (addr, name, v2)) in starts.iter().enumerate() {
            let next = starts.get(k + 1).map_or(end, |s| s.0);
            let entry = if *v2 {
                addr + AMD_KERNEL_CODE_T_SIZE
            } else {
                *addr
            };
            if entry < next {
                out.push(FunctionRange {
                    name: name.clone(),
                    section: section.index,
                    entry,
                    end: next,
                });
            }
        }
    }
    out
}

/// Lints every function of `obj`.
pub fn lint_object(obj: &ElfObject, options: &Options) -> Report {
    let mut report = Report::default();
    for f in functions(obj) {
        let Some(section) = obj.sections.iter().find(|s| s.index == f.section) else {
            continue;
        };
        lint_function(section.data, section.address, &f, options, &mut report);
    }
    report
}

/// Lints the function `f` whose code lies in `bytes` (starting at address `base`), adding to
/// `report`.
pub fn lint_function(
    bytes: &[u8],
    base: u64,
    f: &FunctionRange,
    options: &Options,
    report: &mut Report,
) {
    let graph = Graph::build(bytes, base, f.entry, f.end, options.target);
    report.functions += 1;
    report.instructions += graph.nodes.len();
    report.problems.extend(
        graph
            .problems
            .iter()
            .map(|p| format!("{}+{:#x}: {}", f.name, p.addr - f.entry, p.message)),
    );
    report
        .findings
        .extend(lint_graph(&graph, &f.name, f.entry, options));
}

/// Lints one function's graph.
pub fn lint_graph(graph: &Graph, name: &str, entry: u64, options: &Options) -> Vec<Finding> {
    let site = |i: usize| {
        let node = &graph.nodes[i];
        Site {
            address: node.addr,
            location: format!("{name}+{:#x}", node.addr - entry),
            text: node.model.inst.to_string(),
        }
    };
    let rules: Vec<&Rule> = RULES
        .iter()
        .filter(|r| r.is_nop_rule() && options.applies(r))
        .collect();
    let mut out = Vec::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        for rule in &rules {
            if !check::is_consumer(rule, &node.model) {
                continue;
            }
            let history = graph.history(i);
            let Some(hit) = check::check(rule, &node.model, &history) else {
                continue;
            };
            out.push(nop_finding(
                rule,
                site(i),
                site(hit.producer),
                hit,
                graph,
                i,
                name,
                options,
            ));
        }
    }
    let waits = waitcnt::analyse(graph);
    for w in waits {
        let Some(rule) = RULES
            .iter()
            .find(|r| r.check == Check::Waitcnt(w.kind) && options.applies(r))
        else {
            continue;
        };
        let consumer = site(w.consumer);
        let producer = site(w.producer);
        let verb = if w.kind == LoadKind::ExportData {
            "still reads"
        } else {
            "still writes"
        };
        out.push(Finding {
            rule: rule.id,
            function: name.to_string(),
            message: format!(
                "{} uses {} which `{}` at {:#x} {verb}; no s_waitcnt covers it on every path",
                consumer.text, w.regs, producer.text, producer.address
            ),
            fix: format!(
                "insert `{}` before {:#x} ({})",
                w.needed, consumer.address, consumer.text
            ),
            required: w.needed.clone(),
            provided: "none".into(),
            context: context(graph, w.consumer, Some(w.producer), options.context),
            consumer,
            producer: Some(producer),
        });
    }
    out.sort_by_key(|f| (f.consumer.address, f.rule));
    out
}

#[allow(clippy::too_many_arguments)]
fn nop_finding(
    rule: &Rule,
    consumer: Site,
    producer: Site,
    hit: check::Hit<usize>,
    graph: &Graph,
    at: usize,
    name: &str,
    options: &Options,
) -> Finding {
    let (required, provided, fix) = match rule.check {
        Check::SoftClause(_) => (
            "1 non-clause instruction".to_string(),
            "none".to_string(),
            format!(
                "insert `s_nop 0` before {:#x} ({})",
                consumer.address, consumer.text
            ),
        ),
        Check::StaleVccz => (
            "a write of all of vcc".to_string(),
            "none".to_string(),
            format!(
                "insert `s_mov_b64 vcc, vcc` before {:#x} ({})",
                consumer.address, consumer.text
            ),
        ),
        _ => {
            let missing = hit.required - hit.provided;
            (
                format!("{} wait states", hit.required),
                format!("{} wait states", hit.provided),
                format!(
                    "insert {} before {:#x} ({})",
                    nops(missing),
                    consumer.address,
                    consumer.text
                ),
            )
        }
    };
    let message = format!(
        "{}: `{}` at {:#x}, then `{}` {}",
        rule.summary,
        producer.text,
        producer.address,
        consumer.text,
        match rule.check {
            Check::WaitStates { .. } => format!("with {} of the {} required", provided, required),
            _ => "in the same clause/with no fix in between".to_string(),
        }
    );
    Finding {
        rule: rule.id,
        function: name.to_string(),
        message,
        fix,
        required,
        provided,
        context: context(graph, at, graph.find(producer.address), options.context),
        consumer,
        producer: Some(producer),
    }
}

/// `s_nop` instructions providing `n` wait states.
fn nops(n: u32) -> String {
    let mut parts = Vec::new();
    let mut left = n;
    while left > 0 {
        let k = left.min(8);
        parts.push(format!("`s_nop {}`", k - 1));
        left -= k;
    }
    parts.join(" and ")
}

/// Up to `lines` instructions before the consumer (by address), the consumer, and one after.
fn context(graph: &Graph, at: usize, producer: Option<usize>, lines: usize) -> Vec<ContextLine> {
    if lines == 0 {
        return Vec::new();
    }
    let lo = at.saturating_sub(lines);
    let hi = (at + 1).min(graph.nodes.len() - 1);
    (lo..=hi)
        .map(|i| ContextLine {
            address: graph.nodes[i].addr,
            text: graph.nodes[i].model.inst.to_string(),
            marker: if i == at {
                "consumer"
            } else if Some(i) == producer {
                "producer"
            } else {
                ""
            },
        })
        .collect()
}
