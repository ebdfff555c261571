//! Puts what an engine returns (a [`Stop`], hazards seen, stale reads) in the terms of the
//! kernel: device addresses, offsets from its entry or from the function they fall in,
//! disassembly, source lines.

use crate::launch::hazards::Seen;
use crate::launch::Stop;
use gcn_loader::Kernel;

use super::{
    enclosing_function, Error, GuestError, GuestFault, HazardFinding, LaunchOptions, LoopReport,
    Module, StaleReadFinding, WaveReport,
};

/// The [`Error::Guest`] of a launch that `stop` ended in workgroup `group`.
pub(super) fn guest_error(
    module: &Module,
    k: &Kernel,
    kernel: &str,
    group: [u32; 3],
    stop: Stop,
    opts: &LaunchOptions,
) -> Error {
    let limit = opts.max_instructions.unwrap_or(u64::MAX);
    let entry = module.load_base + k.entry;
    let (wave, index, fault) = match stop {
        Stop::Fault { wave, index, fault } => (wave, index, GuestFault::Fault(fault)),
        Stop::Budget { wave, index } => (wave, index, GuestFault::BudgetExhausted(limit)),
        Stop::Timeout { waves } => {
            let waves = waves
                .into_iter()
                .map(|w| {
                    let (pc, instruction) = instruction_at(module, w.index);
                    let at = code_location(module, k, pc);
                    WaveReport {
                        workgroup: w.group,
                        wave: w.wave,
                        pc,
                        at,
                        instruction,
                        waits: w.waits,
                    }
                })
                .collect();
            let after = opts.timeout.unwrap_or_default();
            (0, u32::MAX, GuestFault::Timeout { after, waves })
        }
        Stop::Livelock { spinners, barrier } => {
            let first = spinners
                .first()
                .map_or((0, u32::MAX), |s| (s.wave, s.branch));
            let loops = spinners
                .into_iter()
                .map(|s| {
                    let (start, _) = instruction_at(module, s.target);
                    let (branch, instruction) = instruction_at(module, s.branch);
                    LoopReport {
                        workgroup: s.group,
                        wave: s.wave,
                        start,
                        branch,
                        start_at: code_location(module, k, start),
                        branch_at: code_location(module, k, branch),
                        instruction,
                    }
                })
                .collect();
            let fault = GuestFault::Livelock {
                loops,
                barrier,
                limit: opts.spin_limit,
            };
            (first.0, first.1, fault)
        }
        Stop::Deadlock { waiting } => (0, u32::MAX, GuestFault::Deadlock(waiting)),
        Stop::BarrierTimeout {
            waiting,
            running,
            cycles,
        } => {
            let entry = module.load_base + k.entry;
            let running = running
                .into_iter()
                .map(|(w, index)| {
                    let pc = module.program.insts.get(index as usize).map_or(0, |d| d.pc);
                    (w, pc, pc as i64 - entry as i64)
                })
                .collect();
            let fault = GuestFault::BarrierTimeout {
                waiting,
                running,
                cycles,
            };
            (0, u32::MAX, fault)
        }
        Stop::Hazard {
            wave,
            index,
            finding,
        } => {
            let seen = Seen {
                rule: finding.rule,
                consumer: index,
                producer: finding.producer_pc as u32,
                provided: finding.provided,
                required: finding.required,
                hits: 1,
                workgroup: group,
                wave,
            };
            let h = hazard_finding(module, k, &seen);
            (wave, index, GuestFault::Hazard(Box::new(h)))
        }
    };
    let (pc, instruction) = instruction_at(module, index);
    Error::Guest(Box::new(GuestError {
        kernel: kernel.to_string(),
        workgroup: group,
        wave,
        pc,
        kernel_offset: pc as i64 - entry as i64,
        function: enclosing_function(module, pc).filter(|(name, _)| *name != k.name),
        instruction,
        source: module.source_line(pc),
        fault,
    }))
}

/// Where `pc` is for a reader: `function+0x10` inside a callee, else `kernel+0x40`.
fn code_location(module: &Module, k: &Kernel, pc: u64) -> String {
    match enclosing_function(module, pc).filter(|(n, _)| *n != k.name) {
        Some((name, off)) => format!("{name}+{off:#x}"),
        None => {
            let off = pc as i64 - (module.load_base + k.entry) as i64;
            let sign = if off < 0 { "-" } else { "+" };
            format!("{}{sign}{:#x}", k.name, off.unsigned_abs())
        }
    }
}

/// The address and text of instruction `index`.
fn instruction_at(module: &Module, index: u32) -> (u64, String) {
    match module.program.insts.get(index as usize) {
        Some(d) if module.program.bad_word(index).is_none() => (d.pc, d.inst.to_string()),
        Some(d) => (d.pc, "<undecodable>".to_string()),
        None => (
            module
                .program
                .insts
                .last()
                .map_or(0, |d| d.pc + d.inst.len() as u64),
            "<end of code>".to_string(),
        ),
    }
}

/// The address and disassembly of instruction `index` as the findings list it (0 and `missing`
/// past the last one).
fn listed(module: &Module, index: u32, missing: &str) -> (u64, String) {
    module
        .program
        .insts
        .get(index as usize)
        .map_or((0, missing.to_string()), |d| (d.pc, d.inst.to_string()))
}

/// A stale-register read in the terms of the kernel: addresses, offsets, disassembly.
pub(super) fn stale_finding(
    module: &Module,
    k: &Kernel,
    r: &crate::cu::StaleRead,
) -> StaleReadFinding {
    let entry = module.load_base + k.entry;
    let at = |index| listed(module, index, "");
    let (pc, instruction) = at(r.consumer);
    let (load_pc, load) = at(r.load);
    StaleReadFinding {
        kernel: k.name.clone(),
        pc,
        kernel_offset: pc as i64 - entry as i64,
        instruction,
        load_pc,
        load_offset: load_pc as i64 - entry as i64,
        load,
        access: r.access,
        registers: r.registers.clone(),
        counter: r.counter,
        hits: r.hits,
        workgroup: r.workgroup,
        wave: r.wave,
    }
}

/// A run-time hazard in the terms of the kernel: addresses, offsets from its entry, disassembly,
/// and the requirement and fix worded as the static lint words them.
pub(super) fn hazard_finding(module: &Module, k: &Kernel, s: &Seen) -> HazardFinding {
    let entry = module.load_base + k.entry;
    let at = |index| listed(module, index, "<end of code>");
    let (pc, instruction) = at(s.consumer);
    let (producer_pc, producer) = at(s.producer);
    let (required, provided, fix) = match s.rule.check {
        crate::hazard::rules::Check::SoftClause(_) => (
            "1 non-clause instruction".to_string(),
            "none".to_string(),
            format!("insert `s_nop 0` before {pc:#x} ({instruction})"),
        ),
        crate::hazard::rules::Check::StaleVccz => (
            "a write of all of vcc".to_string(),
            "none".to_string(),
            format!("insert `s_mov_b64 vcc, vcc` before {pc:#x} ({instruction})"),
        ),
        _ => {
            let missing = s.required.saturating_sub(s.provided);
            (
                format!("{} wait states", s.required),
                format!("{} wait states", s.provided),
                format!(
                    "insert `s_nop {}` before {pc:#x} ({instruction})",
                    missing.clamp(1, 8) - 1
                ),
            )
        }
    };
    HazardFinding {
        rule: s.rule.id,
        summary: s.rule.summary,
        pc,
        kernel_offset: pc as i64 - entry as i64,
        instruction,
        producer_pc,
        producer_offset: producer_pc as i64 - entry as i64,
        producer,
        required,
        provided,
        fix,
        hits: s.hits,
        workgroup: s.workgroup,
        wave: s.wave,
    }
}
