//! What the emulator covers, op by op: the data behind `emu/SUPPORT.md` (regenerated and checked
//! by `emu/tests/exec_support.rs`).
//!
//! An op is either implemented (it resolves to a semantic function), outside compute emulation
//! (graphics-pipeline ops: executing one is a [`Fault::NotInCompute`] naming it and the reason),
//! or not implemented yet (executing one is [`Fault::Unimplemented`]).

use super::{Cx, Fault, Semantics};
use crate::exec::program::Decoded;
use gcn_isa::{Format, OpInfo, Target};
use std::fmt::Write;

/// The status of one table op on one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    Implemented,
    /// Decoded, but it needs a part of the GPU compute emulation does not model.
    NotInCompute(&'static str),
    /// Decoded; no semantics yet.
    Missing,
}

/// Why `op` cannot run in compute emulation, if it cannot.
pub fn not_in_compute(op: &OpInfo) -> Option<&'static str> {
    match super::op_semantics(op) {
        Semantics::NotInCompute(why) => Some(why),
        _ => None,
    }
}

/// Semantics of every op that does not run: a fault naming it and the reason.
pub extern "C-unwind" fn not_run(cx: &mut Cx, d: &Decoded) -> super::Ran {
    let info = d.inst.info();
    let fault = match super::op_semantics(info) {
        Semantics::NotInCompute(why) => Fault::NotInCompute(info.name, why),
        _ => Fault::Unimplemented,
    };
    super::ran(cx, Err(fault))
}

/// Does `target` have this table row?
pub fn on_target(op: &OpInfo, target: Target) -> bool {
    op.targets & target.op_set().bit() != 0
}

/// The status of `op` on a target that has it (the table's targets column says which do;
/// semantics do not depend on the target).
pub fn support(op: &OpInfo, _target: Target) -> Support {
    match super::op_semantics(op) {
        Semantics::Exec(_) => Support::Implemented,
        Semantics::NotInCompute(why) => Support::NotInCompute(why),
        Semantics::NotEmulated(_) => Support::Missing,
    }
}

/// Formats in table order, for the summary.
const FORMATS: [Format; 20] = [
    Format::Sop2,
    Format::Sopk,
    Format::Sop1,
    Format::Sopc,
    Format::Sopp,
    Format::Smem,
    Format::Vop2,
    Format::Vop1,
    Format::Vopc,
    Format::Vop3,
    Format::Vop3p,
    Format::Vintrp,
    Format::Ds,
    Format::Mubuf,
    Format::Mtbuf,
    Format::Mimg,
    Format::Flat,
    Format::Global,
    Format::Scratch,
    Format::Exp,
];

/// The targets the manifest lists, one column each: one of each op set (the gfx90x APUs decode
/// as gfx900, gfx942 as gfx940).
pub const TARGETS: [Target; 5] = [
    Target::Gfx900,
    Target::Gfx906,
    Target::Gfx908,
    Target::Gfx90a,
    Target::Gfx940,
];

fn cell(s: Support) -> &'static str {
    match s {
        Support::Implemented => "implemented",
        Support::NotInCompute(_) => "not in compute",
        Support::Missing => "not yet",
    }
}

/// The manifest text: a summary per format and target, then one row per table op with a column
/// per target ([`TARGETS`]). `tested(op)` says whether a passing test vector runs the op in
/// that encoding.
pub fn manifest(tested: &dyn Fn(&OpInfo) -> bool) -> String {
    let ops: Vec<&OpInfo> = gcn_isa::all_ops()
        .iter()
        .filter(|op| TARGETS.iter().any(|t| on_target(op, *t)))
        .collect();
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name()).collect();
    let mut s = String::new();
    let _ = writeln!(s, "# gcnemu instruction support ({})\n", names.join(", "));
    s.push_str(
        "Generated from the opcode table and the semantics in `emu/src/exec/` by\n\
         `UPDATE_SUPPORT=1 cargo test -p gcnemu --test exec_support`; the same test fails when this\n\
         file is stale. *implemented*: the op has semantics; *not in compute*: it needs a\n\
         graphics-pipeline unit, and running it stops the kernel with an error naming the\n\
         instruction and the reason; *not yet*: decoded, no semantics yet (running it stops the\n\
         kernel naming the instruction). *tested*: a test vector in `emu/tests/vectors/` runs the\n\
         op in this encoding and passes (`emu/tests/op_vectors.rs`).\n\n",
    );
    s.push_str("## Summary\n\n");
    s.push_str("| format | target | ops | implemented | tested | not in compute | not yet |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|\n");
    let mut totals = [[0usize; 5]; TARGETS.len()];
    for format in FORMATS {
        for (ti, t) in TARGETS.iter().enumerate() {
            let tname = t.name();
            let mut c = [0usize; 5];
            for op in ops
                .iter()
                .filter(|o| o.format == format && on_target(o, *t))
            {
                c[0] += 1;
                match support(op, *t) {
                    Support::Implemented => {
                        c[1] += 1;
                        c[2] += tested(op) as usize;
                    }
                    Support::NotInCompute(_) => c[3] += 1,
                    Support::Missing => c[4] += 1,
                }
            }
            if c[0] == 0 {
                continue;
            }
            for k in 0..5 {
                totals[ti][k] += c[k];
            }
            let _ = writeln!(
                s,
                "| {} | {tname} | {} | {} | {} | {} | {} |",
                format.name(),
                c[0],
                c[1],
                c[2],
                c[3],
                c[4]
            );
        }
    }
    for (ti, t) in TARGETS.iter().enumerate() {
        let (c, tname) = (totals[ti], t.name());
        let _ = writeln!(
            s,
            "| **all** | {tname} | {} | {} | {} | {} | {} |",
            c[0], c[1], c[2], c[3], c[4]
        );
    }
    s.push_str("\n## Ops\n\n");
    let _ = writeln!(
        s,
        "| format | opcode | mnemonic | {} | tested | note |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---|---|---|{}---|---|", "---|".repeat(TARGETS.len()));
    for op in &ops {
        let st: Vec<Option<Support>> = TARGETS
            .iter()
            .map(|t| on_target(op, *t).then(|| support(op, *t)))
            .collect();
        let cells: Vec<&str> = st.iter().map(|x| x.map_or("—", cell)).collect();
        let implemented = st.contains(&Some(Support::Implemented));
        let note = st
            .iter()
            .find_map(|x| match x {
                Some(Support::NotInCompute(why)) => Some(*why),
                _ => None,
            })
            .unwrap_or("");
        let _ = writeln!(
            s,
            "| {} | {:#05x} | `{}` | {} | {} | {} |",
            op.format.name(),
            op.opcode,
            op.name,
            cells.join(" | "),
            if implemented && tested(op) { "yes" } else { "" },
            note
        );
    }
    s
}
