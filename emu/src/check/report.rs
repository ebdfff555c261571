//! The one shape of a sanitizer finding, as text and as JSON: what was accessed, by whom, at which
//! instruction (address, `kernel+offset`, disassembly, and `file:line` when the code object has
//! line tables), how many times, and for a race the other access of the pair.

use super::{Check, CheckSet, Kind};

/// An instruction a finding names.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Place {
    pub pc: u64,
    /// `kernel+0x40`, or `function+0x10` inside a callee.
    pub at: String,
    pub instruction: String,
    /// `file:line` from the code object's DWARF line table.
    pub source: Option<String>,
}

impl Place {
    fn text(&self) -> String {
        match &self.source {
            Some(s) => format!("{} ({s}) `{}`", self.at, self.instruction),
            None => format!("{} `{}`", self.at, self.instruction),
        }
    }
}

/// The other access of a race.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Other {
    pub wave: u32,
    pub lane: u8,
    pub access: &'static str,
    pub place: Place,
}

/// One finding: deduplicated per (kernel, instruction), with the first occurrence's details.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub check: Check,
    pub kind: Kind,
    /// The kernel launched, by its symbol (empty for a leak); the text shows it demangled.
    pub kernel: String,
    /// The instruction (none for a leak).
    pub place: Option<Place>,
    /// `load`, `store` or `atomic` (empty for a leak).
    pub access: &'static str,
    pub addr: u64,
    pub len: u64,
    pub workgroup: [u32; 3],
    pub wave: u32,
    pub lane: u8,
    /// What lies at the address, or what is wrong with it.
    pub detail: String,
    pub other: Option<Other>,
    /// Occurrences (lanes and launches) of this finding.
    pub count: u64,
}

impl Finding {
    /// One line (two for a race), without a prefix.
    pub fn text(&self) -> String {
        let head = format!("{}[{}]", self.check.name(), self.kind.name());
        let times = if self.count == 1 {
            "once".to_string()
        } else {
            format!("{} times", self.count)
        };
        if self.kind == Kind::Leak {
            return format!("{head}: {} ({times})", self.detail);
        }
        let space = match self.kind {
            Kind::LdsOutOfBounds | Kind::UninitializedLdsRead | Kind::LdsRace => "LDS ",
            Kind::PrivateOutOfBounds => "private offset ",
            _ => "",
        };
        let [x, y, z] = self.workgroup;
        let mut out = format!(
            "{head}: {} of {} bytes at {space}{:#x} by workgroup ({x}, {y}, {z}) wave {} lane {}: {}",
            self.access, self.len, self.addr, self.wave, self.lane, self.detail
        );
        if let Some(p) = &self.place {
            out += &format!("; kernel `{}` at {}", demangle(&self.kernel), p.text());
        }
        if let Some(o) = &self.other {
            out += &format!(
                "; the other access: {} by wave {} lane {} at {}",
                o.access,
                o.wave,
                o.lane,
                o.place.text()
            );
        }
        out + &format!(" ({times})")
    }
}

pub use crate::symbol::demangle;

/// The closing line: how many findings of each check.
pub fn summary(set: CheckSet, findings: &[Finding]) -> String {
    let mut parts = Vec::new();
    for c in Check::ALL {
        if set.has(c) {
            let n = findings.iter().filter(|f| f.check == c).count();
            parts.push(format!("{} {n}", c.name()));
        }
    }
    format!(
        "check: {} finding(s) ({})",
        findings.len(),
        parts.join(", ")
    )
}

/// The `--check-json` document.
pub fn json(set: CheckSet, findings: &[Finding]) -> String {
    // Each finding names its kernel by symbol, as tools match it, and demangled, as people read it.
    let findings: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| {
            let mut v = serde_json::to_value(f).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("kernel_demangled".into(), demangle(&f.kernel).into());
            }
            v
        })
        .collect();
    let doc = serde_json::json!({
        "checks": set.names(),
        "count": findings.len(),
        "findings": findings,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// Adds `new` to `into`, merging the same finding (check, kind, kernel, instruction) by count.
pub fn merge(into: &mut Vec<Finding>, new: Vec<Finding>) {
    for f in new {
        let same = |g: &&mut Finding| {
            g.kind == f.kind
                && g.kernel == f.kernel
                && g.place.as_ref().map(|p| p.pc) == f.place.as_ref().map(|p| p.pc)
        };
        match into.iter_mut().find(same) {
            Some(g) => g.count += f.count,
            None => into.push(f),
        }
    }
}
