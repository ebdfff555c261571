//! Run-time hazard checking (`gcnemu run --hazards off|warn|error`): one
//! [`HazardTracker`] per wave, fed every instruction the wave issues, in issue order, so the
//! rules are checked along the path really taken.
//!
//! Only the NOP rules (wait states, soft clauses, stale VCCZ) are checked here. The waitcnt rules
//! are not: in this functional model a load's data is in its registers when the load issues, so
//! the emulator's own counters are always zero at an `s_waitcnt` and cannot tell a missing wait
//! from a sufficient one, and the static lint (`gcnemu lint`) already checks them on every path.

use crate::exec::program::Program;
use crate::hazard::model::InstModel;
use crate::hazard::rules::{Rule, RULES};
use crate::hazard::tracker::{rule_mask, HazardTracker, Roles, RuntimeFinding, KEEP, VCC_WRITE};
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
            enabled: rule_mask(program.target.features(), xnack, |r| r.default_on),
        }
    }
}

/// Instructions a [`Recorded`] keeps: at least the tracker's history.
const RING: usize = 128;
const _: () = assert!(RING >= KEEP);

/// What a wave keeps of its history while it stays in its kernel's clean graph, where nothing
/// is checked: its last instructions and its latest write of VCC, which is all a tracker's
/// history holds. Cheaper to keep than the tracker's (an index and a sum per instruction).
struct Recorded {
    /// Program instruction indices, the `n`-th issued at `n % RING`.
    last: Box<[u32; RING]>,
    issued: u64,
    /// Wait states issued so far.
    clock: u64,
    /// The latest instruction to write VCC: its index, issue number and `clock` after it.
    vcc: Option<(u32, u64, u64)>,
}

impl Default for Recorded {
    fn default() -> Self {
        Recorded {
            last: Box::new([0; RING]),
            issued: 0,
            clock: 0,
            vcc: None,
        }
    }
}

impl Recorded {
    fn clear(&mut self) {
        self.issued = 0;
        self.clock = 0;
        self.vcc = None;
    }

    /// Notes instruction `index`, whose [`Leaves::step`] is `step`.
    #[inline]
    fn push(&mut self, index: u32, step: u8) {
        self.last[(self.issued % RING as u64) as usize] = index;
        self.clock += (step & Leaves::WAIT_STATES) as u64;
        if step & Leaves::VCC != 0 {
            self.vcc = Some((index, self.issued, self.clock));
        }
        self.issued += 1;
    }

    /// Gives `tracker` (reset) the history it would have had had it been fed every
    /// instruction recorded here: the last [`KEEP`], and the latest VCC write if older.
    fn replay<'p>(&self, tracker: &mut HazardTracker<&'p InstModel>, table: &'p HazardTable) {
        tracker.reset();
        let first = self.issued - self.issued.min(KEEP as u64);
        let window = || (first..self.issued).map(|n| self.last[(n % RING as u64) as usize]);
        let in_window: u64 = window()
            .map(|i| table.roles[i as usize].wait_states as u64)
            .sum();
        if let Some((i, n, after)) = self.vcc {
            if n < first {
                let since = (self.clock - in_window - after).min(u32::MAX as u64) as u32;
                let i = i as usize;
                tracker.seed_vcc_write(i as u64, &table.models[i], table.roles[i], since);
            }
        }
        for i in window() {
            let i = i as usize;
            tracker.record(i as u64, &table.models[i], table.roles[i]);
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
    /// [`Cover::UntilLeaving`]: which instructions leave the kernel's clean static graph.
    /// `None`: every instruction is checked.
    leaves: Option<&'p Leaves>,
    /// Per tracker: its wave has stayed in the clean graph so far, so its instructions are
    /// only recorded, not checked.
    in_graph: Vec<bool>,
    /// Per tracker: what its wave recorded while in the graph.
    recorded: Vec<Recorded>,
    /// By (rule index, consumer index).
    seen: HashMap<(u8, u32), Seen>,
    /// The workgroup being run, for the findings.
    group: [u32; 3],
}

impl<'p> RunHazards<'p> {
    /// Trackers for `waves` waves; `leaves` as from [`Cover::UntilLeaving`].
    pub fn new(
        mode: HazardMode,
        table: &'p HazardTable,
        waves: u32,
        leaves: Option<&'p Leaves>,
    ) -> RunHazards<'p> {
        RunHazards {
            mode,
            table,
            trackers: (0..waves)
                .map(|_| HazardTracker::with_rules(table.enabled))
                .collect(),
            leaves,
            in_graph: vec![leaves.is_some(); waves as usize],
            recorded: (0..waves).map(|_| Recorded::default()).collect(),
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
        self.in_graph.fill(self.leaves.is_some());
        self.recorded.iter_mut().for_each(Recorded::clear);
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
            self.in_graph.resize(slot + 1, false);
            self.recorded.resize_with(slot + 1, Recorded::default);
        }
        self.trackers[slot].reset();
        self.in_graph[slot] = self.leaves.is_some();
        self.recorded[slot].clear();
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
        // Inside the clean graph (the common case, inlined): only recorded.
        if let (Some(true), Some(leaves)) = (self.in_graph.get(slot), self.leaves) {
            let step = leaves.step(index);
            if step != Leaves::LEAVES {
                self.recorded[slot].push(index, step);
                return None;
            }
        }
        self.check_slot(slot, wave, group, index)
    }

    /// [`RunHazards::issue_slot`] when the instruction is checked.
    #[inline(never)]
    fn check_slot(
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
        if self.in_graph[slot] {
            // Leaving the graph: checking starts here, with the history the tracker would
            // have had.
            self.in_graph[slot] = false;
            self.recorded[slot].replay(tracker, self.table);
        }
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

/// How much of a kernel's runs the hazard tracker must check, worked out once from the kernel's
/// control-flow graph ([`cover`]).
#[derive(Clone, Debug)]
pub enum Cover {
    /// No run can show a hazard: launches skip the tracker.
    Clean,
    /// A run shows none while it stays in the graph and off the consumers the static walk
    /// finds a violation at; which instructions leave it (a call, return or indirect jump,
    /// code the graph does not hold, such a consumer). Waves are tracked from there on, with
    /// the history recorded so far.
    UntilLeaving(std::sync::Arc<Leaves>),
    /// Every instruction is checked.
    Full,
}

/// The [`Cover`] of a kernel whose reachable code is `graph`, under the rules of `enabled`.
///
/// When nothing in the graph is undecodable, a consumer that has no violating producer on any
/// path of the graph — the static lint's walk, which takes the fewest wait states over all
/// paths — has none in a run that reaches it on those paths: the run issues the same
/// instructions with at least those wait states (a stalled `s_waitcnt` only adds some), so
/// checking it would find nothing. If no path leaves the graph and no consumer has a violating
/// producer, that is every run ([`Cover::Clean`]). Otherwise a wave is checked from the first
/// instruction that leaves the graph (a call, say, often only on an assert's path) or is a
/// consumer the walk finds a violation at: up to there its history is only recorded. (A
/// library's code object may hold one such consumer in one of its hundreds of kernels; that
/// kernel's waves are tracked only from where they reach it.) The tracker otherwise costs
/// about as much as executing the instructions.
pub fn cover(graph: &crate::hazard::cfg::Graph, enabled: u64, program: &Program) -> Cover {
    if !graph.problems.is_empty() {
        return Cover::Full;
    }
    let violating = violating_consumers(graph, enabled);
    if !graph.escapes && !violating.contains(&true) {
        return Cover::Clean;
    }
    let nodes: Vec<(u32, bool, Roles)> = graph
        .nodes
        .iter()
        .zip(&violating)
        .filter_map(|(n, &violating)| {
            let i = program.index_of_pc(n.addr)?;
            let leaves = violating || crate::hazard::cfg::leaves_graph(n.model.op);
            Some((i, leaves, Roles::of(&n.model)))
        })
        .collect();
    let first = nodes.iter().map(|n| n.0).min().unwrap_or(0);
    let last = nodes.iter().map(|n| n.0).max().unwrap_or(0);
    let mut steps = vec![Leaves::LEAVES; (last - first) as usize + 1];
    for (i, leaves, roles) in nodes {
        steps[(i - first) as usize] = Leaves::step_of(leaves, roles);
    }
    Cover::UntilLeaving(std::sync::Arc::new(Leaves {
        first,
        steps: steps.into(),
    }))
}

/// Which program instructions leave a kernel's clean graph ([`Cover::UntilLeaving`]), over
/// the span of the kernel's graph (a module holds many kernels; every instruction outside
/// leaves), and for the others what a wave notes of them while in the graph, in one byte: the
/// wait states and whether it writes VCC — one load per instruction on that path.
#[derive(Debug)]
pub struct Leaves {
    first: u32,
    steps: Box<[u8]>,
}

impl Leaves {
    /// The step of an instruction that leaves.
    pub const LEAVES: u8 = 0xff;
    /// A step's bit for a write of VCC, and its wait states (at most 8, `s_nop 7`).
    pub const VCC: u8 = 0x80;
    pub const WAIT_STATES: u8 = 0x7f;

    /// `leaves[i]` for instruction `first + i`, whose roles are `roles[i]`.
    pub fn new(first: u32, leaves: &[bool], roles: &[Roles]) -> Leaves {
        let steps = leaves
            .iter()
            .zip(roles)
            .map(|(&l, &r)| Leaves::step_of(l, r))
            .collect();
        Leaves { first, steps }
    }

    fn step_of(leaves: bool, roles: Roles) -> u8 {
        if leaves || roles.wait_states >= Leaves::WAIT_STATES {
            // (No instruction has that many wait states; checking from it would be exact.)
            return Leaves::LEAVES;
        }
        let vcc = if roles.producer & VCC_WRITE != 0 {
            Leaves::VCC
        } else {
            0
        };
        roles.wait_states | vcc
    }

    /// The step of program instruction `index` ([`Leaves::LEAVES`] if it leaves).
    #[inline]
    pub fn step(&self, index: u32) -> u8 {
        index
            .checked_sub(self.first)
            .and_then(|i| self.steps.get(i as usize))
            .map_or(Leaves::LEAVES, |&s| s)
    }

    /// Whether issuing program instruction `index` leaves the graph.
    pub fn leaves(&self, index: u32) -> bool {
        self.step(index) == Leaves::LEAVES
    }
}

/// Per node of `graph`: whether it is a consumer with a violating producer on some path of
/// the graph.
fn violating_consumers(graph: &crate::hazard::cfg::Graph, enabled: u64) -> Vec<bool> {
    (graph.nodes.iter().enumerate())
        .map(|(i, node)| {
            RULES.iter().enumerate().any(|(r, rule)| {
                enabled & 1 << r != 0
                    && crate::hazard::check::is_consumer(rule, &node.model)
                    && crate::hazard::check::check(rule, &node.model, &graph.history(i)).is_some()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcn_isa::{assemble, Target};

    /// Instructions that produce and consume for every kind of rule, the last one the only
    /// one that leaves the (pretend) clean graph.
    const POOL: &[&str] = &[
        "v_cmp_eq_u32 vcc, v0, v1",
        "s_mov_b32 vcc_lo, 0",
        "s_cbranch_vccz 0",
        "v_readfirstlane_b32 s4, v0",
        "buffer_load_dword v1, off, s[8:11], s4",
        "s_nop 0",
        "s_nop 3",
        "v_div_fmas_f32 v1, v2, v3, v4",
        "s_load_dword s4, s[0:1], 0x0",
        "s_load_dword s0, s[2:3], 0x0",
        "v_mov_b32 v0, v1",
        "s_setreg_b32 hwreg(HW_REG_MODE), s0",
        "s_getreg_b32 s1, hwreg(HW_REG_MODE)",
        "s_swappc_b64 s[30:31], s[4:5]",
    ];

    /// A wave recorded while in the graph and checked from where it leaves finds exactly what a
    /// tracker fed every instruction finds from there: same rules, consumers, producers and
    /// wait states, on random paths whose prefix is shorter and longer than the history, with
    /// VCC writes inside and outside the last `KEEP`.
    #[test]
    fn checking_from_a_recorded_history_matches_checking_throughout() {
        let code = assemble(&POOL.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), POOL.len());
        let table = HazardTable::new(&program, true);
        let leave = (POOL.len() - 1) as u32;
        let flags: Vec<bool> = (0..POOL.len() as u32).map(|i| i == leave).collect();
        let leaves = Leaves::new(0, &flags, &table.roles);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as u32
        };
        let mut compared = 0;
        for prefix in [0, 1, 5, 40, 71, 72, 73, 127, 128, 129, 300, 1000] {
            for _ in 0..20 {
                // VCC writes rarer than the rest, so that the latest is often old.
                let mut pick = || loop {
                    let i = next(leave);
                    if i > 1 || next(8) == 0 {
                        break i;
                    }
                };
                let before: Vec<u32> = (0..prefix).map(|_| pick()).collect();
                let after: Vec<u32> = (0..100).map(|_| pick()).collect();
                let mut full = RunHazards::new(HazardMode::Warn, &table, 1, None);
                let mut lazy = RunHazards::new(HazardMode::Warn, &table, 1, Some(&leaves));
                full.start_group([0; 3]);
                lazy.start_group([0; 3]);
                for &i in &before {
                    full.issue(0, i);
                    assert!(lazy.issue(0, i).is_none());
                }
                assert!(lazy.seen.is_empty(), "nothing is checked in the graph");
                full.seen.clear();
                for &i in std::iter::once(&leave).chain(&after) {
                    full.issue(0, i);
                    lazy.issue(0, i);
                }
                let key = |s: &Seen| (s.rule.id, s.consumer, s.producer, s.provided, s.hits);
                let want: Vec<_> = full.findings().iter().map(key).collect();
                let got: Vec<_> = lazy.findings().iter().map(key).collect();
                assert_eq!(got, want, "prefix {prefix}: {before:?} then {after:?}");
                compared += want.len();
            }
        }
        assert!(
            compared > 100,
            "the paths show hazards to compare ({compared})"
        );
    }
}
