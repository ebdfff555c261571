//! Run-time hazard checking (`gcnemu run --hazards off|warn|error`): one
//! [`HazardTracker`] per wave, fed every instruction the wave issues, in issue order, so the
//! rules are checked along the path really taken.
//!
//! Only the NOP rules (wait states, soft clauses, stale VCCZ) are checked here. The waitcnt rules
//! are not: in this functional model a load's data is in its registers when the load issues, so
//! the emulator's own counters are always zero at an `s_waitcnt` and cannot tell a missing wait
//! from a sufficient one, and the static lint (`gcnemu lint`) already checks them on every path.

use crate::hazard::model::InstModel;
use crate::hazard::rules::{Rule, RULES};
use crate::hazard::tracker::{rule_mask, HazardTracker, Roles, RuntimeFinding};
use crate::program::Program;
use hashbrown::HashMap;

/// What to do about a hazard seen at run time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HazardMode {
    /// Do not check.
    Off,
    /// Collect findings (one per rule and consumer), report them after the run.
    #[default]
    Warn,
    /// The first finding ends the dispatch as a guest error.
    Error,
}

impl HazardMode {
    pub fn name(self) -> &'static str {
        match self {
            HazardMode::Off => "off",
            HazardMode::Warn => "warn",
            HazardMode::Error => "error",
        }
    }
}

impl std::str::FromStr for HazardMode {
    type Err = String;
    fn from_str(s: &str) -> Result<HazardMode, String> {
        match s {
            "off" => Ok(HazardMode::Off),
            "warn" => Ok(HazardMode::Warn),
            "error" => Ok(HazardMode::Error),
            other => Err(format!("`{other}` is not a hazard mode (off, warn, error)")),
        }
    }
}

impl std::fmt::Display for HazardMode {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The per-instruction hazard models of a program, built once (at the first launch that checks
/// hazards) and shared by every wave.
pub struct HazardTable {
    pub models: Vec<InstModel>,
    /// [`Roles::of`] each model.
    pub roles: Vec<Roles>,
    /// Rules evaluated (mask over `RULES` indices): the NOP rules on by default, the soft-clause
    /// rules only when the code object allows XNACK replay.
    pub enabled: u64,
}

impl HazardTable {
    pub fn new(program: &Program, xnack: bool) -> HazardTable {
        let models: Vec<InstModel> = program
            .insts
            .iter()
            .map(|d| InstModel::new(d.inst))
            .collect();
        let roles = models.iter().map(Roles::of).collect();
        HazardTable {
            models,
            roles,
            enabled: rule_mask(xnack, |r| r.default_on),
        }
    }
}

/// One rule violated at one consumer, with the first place it was seen.
#[derive(Clone, Copy, Debug)]
pub struct Seen {
    pub rule: &'static Rule,
    /// Instruction indices in the program.
    pub consumer: u32,
    pub producer: u32,
    pub provided: u32,
    pub required: u32,
    /// Times the consumer issued with the hazard.
    pub hits: u64,
    pub workgroup: [u32; 3],
    pub wave: u32,
}

/// The hazard state of a dispatch: a tracker per wave of a workgroup and the findings so far.
pub struct RunHazards<'p> {
    pub mode: HazardMode,
    table: &'p HazardTable,
    trackers: Vec<HazardTracker<&'p InstModel>>,
    /// By (rule index, consumer index).
    seen: HashMap<(u8, u32), Seen>,
    /// The workgroup being run, for the findings.
    group: [u32; 3],
}

impl<'p> RunHazards<'p> {
    pub fn new(mode: HazardMode, table: &'p HazardTable, waves: u32) -> RunHazards<'p> {
        RunHazards {
            mode,
            table,
            trackers: (0..waves)
                .map(|_| HazardTracker::with_rules(table.enabled))
                .collect(),
            seen: HashMap::new(),
            group: [0; 3],
        }
    }

    /// Starts a workgroup: every wave begins with an empty history.
    pub fn start_group(&mut self, group: [u32; 3]) {
        self.group = group;
        for t in &mut self.trackers {
            t.reset();
        }
    }

    /// Wave `wave` issues instruction `index`. In error mode, returns the first violation.
    #[inline]
    pub fn issue(&mut self, wave: u32, index: u32) -> Option<RuntimeFinding> {
        let group = self.group;
        self.issue_slot(wave as usize, wave, group, index)
    }

    /// Gives tracker `slot` an empty history (the timing model keeps one tracker per resident
    /// wave slot, since workgroups run concurrently there).
    pub fn reset_slot(&mut self, slot: usize) {
        if self.trackers.len() <= slot {
            let enabled = self.table.enabled;
            self.trackers
                .resize_with(slot + 1, || HazardTracker::with_rules(enabled));
        }
        self.trackers[slot].reset();
    }

    /// Wave `wave` of workgroup `group`, tracked in `slot`, issues instruction `index`.
    #[inline]
    pub fn issue_slot(
        &mut self,
        slot: usize,
        wave: u32,
        group: [u32; 3],
        index: u32,
    ) -> Option<RuntimeFinding> {
        let (Some(model), Some(tracker)) = (
            self.table.models.get(index as usize),
            self.trackers.get_mut(slot),
        ) else {
            return None;
        };
        let roles = self.table.roles[index as usize];
        let mut first = None;
        let (seen, mode) = (&mut self.seen, self.mode);
        tracker.issue_with(index as u64, model, roles, |f| {
            if mode == HazardMode::Error {
                first.get_or_insert(f);
                return;
            }
            let rule = RULES
                .iter()
                .position(|r| std::ptr::eq(r, f.rule))
                .unwrap_or(0) as u8;
            seen.entry((rule, index))
                .or_insert(Seen {
                    rule: f.rule,
                    consumer: index,
                    producer: f.producer_pc as u32,
                    provided: f.provided,
                    required: f.required,
                    hits: 0,
                    workgroup: group,
                    wave,
                })
                .hits += 1;
        });
        first
    }

    /// The findings, by consumer then rule.
    pub fn findings(&self) -> Vec<Seen> {
        let mut out: Vec<Seen> = self.seen.values().copied().collect();
        out.sort_by_key(|s| (s.consumer, s.rule.id));
        out
    }
}

/// The findings of the workers of a parallel dispatch as one thread would have them: hits
/// summed, the first sighting from the workgroup first in dispatch order (each worker keeps
/// its own first, and runs its workgroups in dispatch order).
pub fn merge(lists: Vec<Vec<Seen>>, grid: [u32; 3]) -> Vec<Seen> {
    let order =
        |g: [u32; 3]| (g[2] as u64 * grid[1] as u64 + g[1] as u64) * grid[0] as u64 + g[0] as u64;
    let mut by: HashMap<(u32, &'static str), Seen> = HashMap::new();
    for s in lists.into_iter().flatten() {
        by.entry((s.consumer, s.rule.id))
            .and_modify(|m| {
                let hits = m.hits + s.hits;
                if order(s.workgroup) < order(m.workgroup) {
                    *m = s;
                }
                m.hits = hits;
            })
            .or_insert(s);
    }
    let mut out: Vec<Seen> = by.into_values().collect();
    out.sort_by_key(|s| (s.consumer, s.rule.id));
    out
}

/// Whether a kernel whose reachable code is `graph` can never show a run-time hazard under the
/// rules of `enabled`: every path stays in the graph (no indirect jump, call or return, no
/// branch out of it, nothing undecodable) and no consumer has a violating producer on any path
/// — the static lint's walk, which takes the fewest wait states over all paths. A run issues
/// the same instructions along one of those paths, with at least those wait states (a stalled
/// `s_waitcnt` only adds some), so tracking it would find nothing: launches skip the tracker,
/// which otherwise costs about as much as executing the instructions.
pub fn statically_clean(graph: &crate::hazard::cfg::Graph, enabled: u64) -> bool {
    if graph.escapes || !graph.problems.is_empty() {
        return false;
    }
    graph.nodes.iter().enumerate().all(|(i, node)| {
        RULES.iter().enumerate().all(|(r, rule)| {
            enabled & 1 << r == 0
                || !crate::hazard::check::is_consumer(rule, &node.model)
                || crate::hazard::check::check(rule, &node.model, &graph.history(i)).is_none()
        })
    })
}
