//! The run-time side: a wave's issued instructions, fed one at a time, checked against the same
//! rules as the static lint but along the path actually taken.
//!
//! The emulator calls [`HazardTracker::issue`] for every instruction a wave issues (in order) and
//! gets back the rules it violates. The tracker keeps the last few issued instructions, enough
//! for the longest wait-state rule and a soft clause, plus the last write of VCC for the stale
//! VCCZ rule, whose producer may lie any distance back.

use super::check::{self, History, Step};
use super::model::InstModel;
use super::regs;
use super::rules::{Gate, Rule, RULES};
use gcn_isa::Inst;
use std::collections::VecDeque;

/// How many issued instructions are kept: the soft-clause walk stops at 64 members.
const KEEP: usize = 72;

/// One violation seen at run time.
#[derive(Clone, Debug)]
pub struct RuntimeFinding {
    pub rule: &'static Rule,
    /// The producer's program counter, as passed to `issue`.
    pub producer_pc: u64,
    pub provided: u32,
    pub required: u32,
}

struct Issued {
    pc: u64,
    model: InstModel,
}

/// Per-wave hazard state.
pub struct HazardTracker {
    recent: VecDeque<Issued>,
    /// The most recent instruction that wrote any part of VCC, once it has left `recent`, with
    /// the wait states of the instructions evicted after it.
    last_vcc_write: Option<(Issued, u32)>,
    rules: Vec<&'static Rule>,
}

impl HazardTracker {
    /// A tracker evaluating every NOP rule that applies (soft clauses only with `xnack`).
    pub fn new(xnack: bool) -> HazardTracker {
        HazardTracker {
            recent: VecDeque::with_capacity(KEEP + 1),
            last_vcc_write: None,
            rules: RULES
                .iter()
                .filter(|r| r.is_nop_rule() && (r.gate != Gate::Xnack || xnack))
                .collect(),
        }
    }

    /// Records that the wave issued `inst` at `pc` and returns the rules it violates against
    /// the instructions issued before it.
    pub fn issue(&mut self, pc: u64, inst: Inst) -> Vec<RuntimeFinding> {
        self.issue_model(pc, &InstModel::new(inst))
    }

    /// As [`HazardTracker::issue`], with the model built once at load time (the emulator
    /// decodes a program once; `InstModel::new` for each of its instructions gives these).
    pub fn issue_model(&mut self, pc: u64, model: &InstModel) -> Vec<RuntimeFinding> {
        let mut out = Vec::new();
        for rule in &self.rules {
            if !check::is_consumer(rule, model) {
                continue;
            }
            if let Some(hit) = check::check(rule, model, &Recent(self)) {
                out.push(RuntimeFinding {
                    rule,
                    producer_pc: hit.producer,
                    provided: hit.provided,
                    required: hit.required,
                });
            }
        }
        self.push(Issued {
            pc,
            model: model.clone(),
        });
        out
    }

    /// Forgets the history (a new wave, or after a context switch the caller models as safe).
    pub fn reset(&mut self) {
        self.recent.clear();
        self.last_vcc_write = None;
    }

    fn push(&mut self, issued: Issued) {
        self.recent.push_front(issued);
        if self.recent.len() > KEEP {
            let old = self.recent.pop_back().expect("longer than KEEP");
            if old.model.writes.overlaps(regs::VCC) {
                self.last_vcc_write = Some((old, 0));
            } else if let Some((_, since)) = &mut self.last_vcc_write {
                *since = since.saturating_add(old.model.wait_states as u32);
            }
        }
    }
}

/// The tracker's history, newest first.
struct Recent<'t>(&'t HazardTracker);

impl History for Recent<'_> {
    type Pos = u64;

    fn walk_back(&self, visit: &mut dyn FnMut(u64, &InstModel, u32) -> Step) {
        let mut between = 0u32;
        for issued in &self.0.recent {
            if visit(issued.pc, &issued.model, between) == Step::Stop {
                return;
            }
            between = between.saturating_add(issued.model.wait_states as u32);
        }
        if let Some((issued, since)) = &self.0.last_vcc_write {
            visit(issued.pc, &issued.model, between.saturating_add(*since));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcn_isa::{assemble_inst, Target};

    fn feed(tracker: &mut HazardTracker, lines: &[&str]) -> Vec<(u64, &'static str, u32)> {
        let mut out = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            let inst = assemble_inst(line, Target::Gfx900).expect(line);
            for f in tracker.issue(4 * k as u64, inst) {
                out.push((4 * k as u64, f.rule.id, f.provided));
            }
        }
        out
    }

    #[test]
    fn sees_the_issued_path() {
        let mut t = HazardTracker::new(false);
        let found = feed(
            &mut t,
            &[
                "v_readfirstlane_b32 s4, v0",
                "s_nop 1",
                "buffer_load_dword v1, off, s[0:3], s4",
            ],
        );
        assert_eq!(found, vec![(8, "valu-sgpr-vmem", 2)]);
        let mut t = HazardTracker::new(false);
        let clean = feed(
            &mut t,
            &[
                "v_readfirstlane_b32 s4, v0",
                "s_nop 4",
                "buffer_load_dword v1, off, s[0:3], s4",
            ],
        );
        assert!(clean.is_empty(), "{clean:?}");
    }

    #[test]
    fn stale_vccz_is_found_beyond_the_kept_window() {
        let mut t = HazardTracker::new(false);
        let mut lines = vec!["s_mov_b32 vcc_lo, 0"];
        lines.extend(std::iter::repeat_n("s_nop 0", 2 * KEEP));
        lines.push("s_cbranch_vccz 3");
        let found = feed(&mut t, &lines);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "stale-vccz");
        t.reset();
        assert!(feed(&mut t, &["s_cbranch_vccz 3"]).is_empty());
    }

    #[test]
    fn soft_clauses_only_with_xnack() {
        let lines = [
            "s_load_dword s4, s[0:1], 0x0",
            "s_load_dword s0, s[2:3], 0x0",
        ];
        assert!(feed(&mut HazardTracker::new(false), &lines).is_empty());
        let found = feed(&mut HazardTracker::new(true), &lines);
        assert_eq!(found, vec![(4, "smem-soft-clause", 0)]);
    }
}
