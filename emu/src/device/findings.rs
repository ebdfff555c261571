//! Turns a launch's [`Record`]s (instruction indices) into [`Finding`]s that name the kernel, the
//! instruction's address, `kernel+offset` (or the callee it is in), its disassembly and, when the
//! code object has a DWARF line table, its source line.

use super::Module;
use crate::check::report::{Finding, Other, Place};
use crate::check::{Record, Site};
use gcn_loader::Kernel;

/// The instruction at `index` of `module`, as a finding names it.
pub fn place(module: &Module, k: &Kernel, index: u32) -> Place {
    let entry = module.load_base + k.entry;
    let (pc, instruction) = module
        .program
        .insts
        .get(index as usize)
        .map_or((0, String::from("<end of code>")), |d| {
            (d.pc, d.inst.to_string())
        });
    let at = match super::enclosing_function(module, pc).filter(|(n, _)| *n != k.name) {
        Some((name, off)) => format!("{name}+{off:#x}"),
        None => {
            let off = pc as i64 - entry as i64;
            let sign = if off < 0 { "-" } else { "+" };
            format!("{}{sign}{:#x}", k.name, off.unsigned_abs())
        }
    };
    Place {
        pc,
        at,
        instruction,
        source: module.source_line(pc),
    }
}

pub fn findings(module: &Module, k: &Kernel, records: Vec<Record>) -> Vec<Finding> {
    records
        .into_iter()
        .map(|r| {
            let Site {
                group, wave, lane, ..
            } = r.site;
            Finding {
                check: r.kind.check(),
                kind: r.kind,
                kernel: k.name.clone(),
                place: Some(place(module, k, r.site.index)),
                access: r.access.name(),
                addr: r.addr,
                len: r.len as u64,
                workgroup: group,
                wave,
                lane,
                detail: r.detail,
                other: r.other.map(|(s, a)| Other {
                    wave: s.wave,
                    lane: s.lane,
                    access: a.name(),
                    place: place(module, k, s.index),
                }),
                count: r.count,
            }
        })
        .collect()
}
