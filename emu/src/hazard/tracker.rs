//! The run-time side: a wave's issued instructions, fed one at a time, checked against the same
//! rules as the static lint but along the path actually taken.
//!
//! The emulator calls [`HazardTracker::issue_with`] for every instruction a wave issues (in
//! order) and is told of the rules it violates. The tracker keeps the last few issued
//! instructions, enough for the longest wait-state rule and a soft clause, plus the last write of
//! VCC for the stale VCCZ rule, whose producer may lie any distance back.
//!
//! The history holds models by whatever the caller hands in (`M`): the emulator builds one
//! [`InstModel`] per program instruction at load time and passes `&InstModel`, so issuing copies
//! a pointer, not a model; [`HazardTracker::issue`] builds an owned model for one-off use.

use super::check::{self, History, Step};
use super::mai::{MaiKind, MfmaClass};
use super::model::InstModel;
use super::regs;
use super::rules::ClauseKind;
use super::rules::{Check, Producer, Rule, RULES};
use gcn_isa::{Features, Inst, Op, Target};
use std::borrow::Borrow;
use std::collections::VecDeque;

/// How many issued instructions are kept: the soft-clause walk stops at 64 members.
pub const KEEP: usize = 72;

// Rule sets are `u64` masks over `RULES` indices.
const _: () = assert!(RULES.len() <= 64);

/// One violation seen at run time.
#[derive(Clone, Copy, Debug)]
pub struct RuntimeFinding {
    pub rule: &'static Rule,
    /// The producer's program counter, as passed to `issue`.
    pub producer_pc: u64,
    pub provided: u32,
    pub required: u32,
}

struct Issued<M> {
    pc: u64,
    model: M,
    /// `Roles::producer`.
    kinds: u16,
    /// `Roles::wait_states`, read when the entry leaves the history (without touching the
    /// model, long out of the cache by then).
    wait_states: u8,
}

/// What the tracker needs to know about one instruction besides its model, computed once per
/// program instruction by [`Roles::of`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    /// Rules (mask over [`RULES`] indices) the instruction can be the consumer of.
    pub consumer: u64,
    /// The [`ProducerKind`]s it belongs to (bit per kind).
    pub producer: u16,
    /// `InstModel::wait_states`, here so that issuing need not touch the model.
    pub wait_states: u8,
}

impl Roles {
    pub fn of(model: &InstModel) -> Roles {
        let producer = ProducerKind::ALL
            .iter()
            .filter(|k| k.includes(model))
            .fold(0, |m, k| m | 1 << *k as u16);
        Roles {
            consumer: consumer_mask(model),
            producer,
            wait_states: model.wait_states,
        }
    }
}

/// Classes of instruction that can start a hazard whatever registers its consumer watches:
/// supersets of `check::produces` (without the register overlap) and of the clause membership
/// of `clause::soft_clause`, used only to skip walks that cannot find a producer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProducerKind {
    ValuWrites,
    SaluWrites,
    AnyWrites,
    Setreg,
    SetVskip,
    WideStore,
    SmemMember,
    VmemMember,
    VccWrite,
    Mfma,
    Dgemm,
    AccvgprWrite,
    AccvgprRead,
    Dot,
}

/// [`Roles::producer`]'s bit for an instruction that writes VCC (or part of it).
pub const VCC_WRITE: u16 = 1 << ProducerKind::VccWrite as u16;

impl ProducerKind {
    const ALL: [ProducerKind; 14] = [
        ProducerKind::ValuWrites,
        ProducerKind::SaluWrites,
        ProducerKind::AnyWrites,
        ProducerKind::Setreg,
        ProducerKind::SetVskip,
        ProducerKind::WideStore,
        ProducerKind::SmemMember,
        ProducerKind::VmemMember,
        ProducerKind::VccWrite,
        ProducerKind::Mfma,
        ProducerKind::Dgemm,
        ProducerKind::AccvgprWrite,
        ProducerKind::AccvgprRead,
        ProducerKind::Dot,
    ];

    fn includes(self, m: &InstModel) -> bool {
        match self {
            ProducerKind::ValuWrites => m.is_valu() && !m.writes.is_empty(),
            ProducerKind::SaluWrites => m.is_salu() && !m.writes.is_empty(),
            ProducerKind::AnyWrites => !m.writes.is_empty(),
            ProducerKind::Setreg => m.is_setreg(),
            ProducerKind::SetVskip => m.op == Op::S_SETVSKIP,
            ProducerKind::WideStore => !m.wide_store_data().is_empty(),
            ProducerKind::SmemMember => m.is_smem(),
            ProducerKind::VmemMember => m.is_vmem_or_flat(),
            ProducerKind::VccWrite => m.writes.overlaps(regs::VCC),
            ProducerKind::Mfma => m.mfma().is_some(),
            ProducerKind::Dgemm => m.mfma().is_some_and(MfmaClass::is_dgemm),
            ProducerKind::AccvgprWrite => m.is_mai(MaiKind::AccvgprWrite),
            ProducerKind::AccvgprRead => m.is_mai(MaiKind::AccvgprRead),
            ProducerKind::Dot => m.is_dot,
        }
    }

    /// The kind every producer of `rule` belongs to.
    fn of_rule(rule: &Rule) -> Option<ProducerKind> {
        Some(match rule.check {
            Check::WaitStates { producer, .. } => match producer {
                Producer::ValuWrites => ProducerKind::ValuWrites,
                Producer::SaluWrites => ProducerKind::SaluWrites,
                Producer::AnyWrites => ProducerKind::AnyWrites,
                Producer::SetregSameHwreg | Producer::SetregTrapsts | Producer::SetregModeVskip => {
                    ProducerKind::Setreg
                }
                Producer::SetVskip => ProducerKind::SetVskip,
                Producer::WideStoreData => ProducerKind::WideStore,
                Producer::NonMfmaValuWrites
                | Producer::NonMfmaNonDotValuWrites
                | Producer::ValuWritesThen(_) => ProducerKind::ValuWrites,
                Producer::MfmaWrites(_) | Producer::MfmaReadsSrcC(_) => ProducerKind::Mfma,
                Producer::Dgemm => ProducerKind::Dgemm,
                Producer::AccvgprWrite => ProducerKind::AccvgprWrite,
                Producer::AccvgprRead => ProducerKind::AccvgprRead,
                Producer::DotWrites => ProducerKind::Dot,
            },
            Check::SoftClause(ClauseKind::Smem) => ProducerKind::SmemMember,
            Check::SoftClause(ClauseKind::Vmem) => ProducerKind::VmemMember,
            Check::StaleVccz => ProducerKind::VccWrite,
            Check::Waitcnt(_) | Check::NotCheckable(_) => return None,
        })
    }
}

const KINDS: usize = ProducerKind::ALL.len();

/// How far back (in wait states between producer and consumer) `rule` can find its producer:
/// a soft clause needs its members adjacent (any instruction in between gives at least one);
/// the stale-VCCZ producer may lie any distance back.
fn reach(rule: &Rule) -> u64 {
    match rule.check {
        Check::WaitStates { wait_states, .. } => wait_states.max() as u64,
        Check::SoftClause(_) => 1,
        _ => u64::MAX,
    }
}

/// The NOP rules (wait states, soft clauses, stale VCCZ) that `pick` selects and that apply
/// to a target with `features` and this `xnack` setting, as a mask over [`RULES`] indices.
pub fn rule_mask(features: Features, xnack: bool, pick: impl Fn(&Rule) -> bool) -> u64 {
    RULES
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_nop_rule() && r.gate.applies(features, xnack) && pick(r))
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// The rules (mask over [`RULES`] indices) `model` can be the consumer of. Instructions are
/// consumers of few rules, most of none; computing this once per program instruction lets
/// [`HazardTracker::issue_with`] skip the rule loop for them.
pub fn consumer_mask(model: &InstModel) -> u64 {
    RULES
        .iter()
        .enumerate()
        .filter(|(_, r)| check::is_consumer(r, model))
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// Per-wave hazard state.
pub struct HazardTracker<M = InstModel> {
    recent: VecDeque<Issued<M>>,
    /// The most recent instruction that wrote any part of VCC, once it has left `recent`, with
    /// the wait states of the instructions evicted after it.
    last_vcc_write: Option<(Issued<M>, u32)>,
    /// Rules evaluated (mask over `RULES` indices).
    enabled: u64,
    /// Wait states issued so far.
    clock: u64,
    /// Per [`ProducerKind`]: `clock` just after its latest instruction (`u64::MAX`: none
    /// yet). A consumer further than a rule's reach from its kind's latest cannot hit.
    produced_at: [u64; KINDS],
    /// Per rule: its producer kind (`KINDS` for none) and [`reach`].
    kind_of: [usize; RULES.len()],
    reach: [u64; RULES.len()],
}

impl HazardTracker<InstModel> {
    /// A tracker evaluating every NOP rule that applies to `target` (soft clauses only with
    /// `xnack`).
    pub fn new(target: Target, xnack: bool) -> HazardTracker {
        HazardTracker::with_rules(rule_mask(target.features(), xnack, |_| true))
    }

    /// Records that the wave issued `inst` at `pc` and returns the rules it violates against
    /// the instructions issued before it.
    pub fn issue(&mut self, pc: u64, inst: Inst) -> Vec<RuntimeFinding> {
        self.issue_model(pc, &InstModel::new(inst))
    }

    /// As [`HazardTracker::issue`], with a model built beforehand.
    pub fn issue_model(&mut self, pc: u64, model: &InstModel) -> Vec<RuntimeFinding> {
        let mut out = Vec::new();
        self.issue_with(pc, model.clone(), Roles::of(model), |f| out.push(f));
        out
    }
}

impl<M: Borrow<InstModel>> HazardTracker<M> {
    /// A tracker evaluating the rules of `enabled` (see [`rule_mask`]).
    pub fn with_rules(enabled: u64) -> HazardTracker<M> {
        HazardTracker {
            recent: VecDeque::with_capacity(KEEP + 1),
            last_vcc_write: None,
            enabled,
            clock: 0,
            produced_at: [u64::MAX; KINDS],
            kind_of: std::array::from_fn(|i| {
                ProducerKind::of_rule(&RULES[i]).map_or(KINDS, |k| k as usize)
            }),
            reach: std::array::from_fn(|i| reach(&RULES[i])),
        }
    }

    /// Records that the wave issued `model` at `pc` and calls `hit` for each rule it violates
    /// against the instructions issued before it. `roles` is [`Roles::of`] the model, computed
    /// once. Allocates nothing once the history is full.
    #[inline]
    pub fn issue_with(
        &mut self,
        pc: u64,
        model: M,
        roles: Roles,
        mut hit: impl FnMut(RuntimeFinding),
    ) {
        let mut rules = roles.consumer & self.enabled;
        while rules != 0 {
            let i = rules.trailing_zeros() as usize;
            rules &= rules - 1;
            // No possible producer within reach: the walk cannot find one.
            if let Some(&at) = self.produced_at.get(self.kind_of[i]) {
                if at == u64::MAX || (self.reach[i] != u64::MAX && self.clock - at >= self.reach[i])
                {
                    continue;
                }
            }
            let rule = &RULES[i];
            if let Some(h) = check::check(rule, model.borrow(), &Recent(self)) {
                hit(RuntimeFinding {
                    rule,
                    producer_pc: h.producer,
                    provided: h.provided,
                    required: h.required,
                });
            }
        }
        self.record(pc, model, roles);
    }

    /// Adds an issued instruction to the history without checking it as a consumer: for
    /// stretches of a run that the static graph already covers ([`crate::launch::hazards`]),
    /// so that the checks resume with the true history once the run leaves them.
    #[inline]
    pub fn record(&mut self, pc: u64, model: M, roles: Roles) {
        self.clock += roles.wait_states as u64;
        let mut kinds = roles.producer;
        while kinds != 0 {
            let k = kinds.trailing_zeros() as usize;
            kinds &= kinds - 1;
            self.produced_at[k] = self.clock;
        }
        self.push(Issued {
            pc,
            model,
            kinds: roles.producer,
            wait_states: roles.wait_states,
        });
    }

    /// Gives a tracker just reset the latest instruction to write VCC as having left the
    /// history, `since` wait states before the oldest instruction recorded after this call: how
    /// a run that only counted its instructions so far hands over a VCC write older than
    /// [`KEEP`] instructions (the stale-VCCZ rule looks any distance back).
    pub fn seed_vcc_write(&mut self, pc: u64, model: M, roles: Roles, since: u32) {
        debug_assert!(self.recent.is_empty() && roles.producer & VCC_WRITE != 0);
        self.produced_at[ProducerKind::VccWrite as usize] = self.clock;
        self.last_vcc_write = Some((
            Issued {
                pc,
                model,
                kinds: roles.producer,
                wait_states: roles.wait_states,
            },
            since,
        ));
    }

    /// Forgets the history (a new wave, or after a context switch the caller models as safe).
    pub fn reset(&mut self) {
        self.recent.clear();
        self.last_vcc_write = None;
        self.clock = 0;
        self.produced_at = [u64::MAX; KINDS];
    }

    // Inlined so that `issued` stays in registers: passed through the stack, its 2-byte
    // `kinds` was read back wider than written, a store-forwarding stall on every instruction.
    #[inline(always)]
    fn push(&mut self, issued: Issued<M>) {
        self.recent.push_front(issued);
        if self.recent.len() > KEEP {
            let old = self.recent.pop_back().expect("longer than KEEP");
            if old.kinds & VCC_WRITE != 0 {
                self.last_vcc_write = Some((old, 0));
            } else if let Some((_, since)) = &mut self.last_vcc_write {
                *since = since.saturating_add(old.wait_states as u32);
            }
        }
    }
}

/// The tracker's history, newest first.
struct Recent<'t, M>(&'t HazardTracker<M>);

impl<M: Borrow<InstModel>> History for Recent<'_, M> {
    type Pos = u64;

    fn walk_back(&self, visit: &mut dyn FnMut(u64, &InstModel, u32) -> Step) {
        let mut between = 0u32;
        for issued in &self.0.recent {
            let model = issued.model.borrow();
            if visit(issued.pc, model, between) == Step::Stop {
                return;
            }
            between = between.saturating_add(model.wait_states as u32);
        }
        if let Some((issued, since)) = &self.0.last_vcc_write {
            visit(
                issued.pc,
                issued.model.borrow(),
                between.saturating_add(*since),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcn_isa::{assemble_inst, Target};

    fn feed(tracker: &mut HazardTracker, lines: &[&str]) -> Vec<(u64, &'static str, u32)> {
        feed_for(Target::Gfx900, tracker, lines)
    }

    fn feed_for(
        target: Target,
        tracker: &mut HazardTracker,
        lines: &[&str],
    ) -> Vec<(u64, &'static str, u32)> {
        let mut out = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            let inst = assemble_inst(line, target).expect(line);
            for f in tracker.issue(4 * k as u64, inst) {
                out.push((4 * k as u64, f.rule.id, f.provided));
            }
        }
        out
    }

    #[test]
    fn sees_the_issued_path() {
        let mut t = HazardTracker::new(Target::Gfx900, false);
        let found = feed(
            &mut t,
            &[
                "v_readfirstlane_b32 s4, v0",
                "s_nop 1",
                "buffer_load_dword v1, off, s[0:3], s4",
            ],
        );
        assert_eq!(found, vec![(8, "valu-sgpr-vmem", 2)]);
        let mut t = HazardTracker::new(Target::Gfx900, false);
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
        let mut t = HazardTracker::new(Target::Gfx900, false);
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
    fn borrowed_models_and_rule_masks() {
        let models: Vec<InstModel> = ["v_cmp_eq_u32 vcc, v0, v0", "v_div_fmas_f32 v1, v2, v3, v4"]
            .iter()
            .map(|l| InstModel::new(assemble_inst(l, Target::Gfx900).expect(l)))
            .collect();
        let defaults = rule_mask(Target::Gfx900.features(), true, |r| r.default_on);
        let off_by_default = RULES.iter().position(|r| r.id == "any-vgpr-dpp").unwrap();
        assert_eq!(defaults & 1 << off_by_default, 0);
        let mut t: HazardTracker<&InstModel> = HazardTracker::with_rules(defaults);
        let mut hits = Vec::new();
        for (k, m) in models.iter().enumerate() {
            t.issue_with(k as u64, m, Roles::of(m), |f| hits.push(f));
        }
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].rule.id, hits[0].producer_pc),
            ("valu-vcc-div-fmas", 0)
        );
        // A rule left out of the mask is not evaluated.
        let mut t: HazardTracker<&InstModel> = HazardTracker::with_rules(0);
        for (k, m) in models.iter().enumerate() {
            t.issue_with(k as u64, m, Roles::of(m), |_| panic!("no rule enabled"));
        }
    }

    #[test]
    fn soft_clauses_only_with_xnack() {
        let lines = [
            "s_load_dword s4, s[0:1], 0x0",
            "s_load_dword s0, s[2:3], 0x0",
        ];
        assert!(feed(&mut HazardTracker::new(Target::Gfx900, false), &lines).is_empty());
        let found = feed(&mut HazardTracker::new(Target::Gfx900, true), &lines);
        assert_eq!(found, vec![(4, "smem-soft-clause", 0)]);
    }

    #[test]
    fn a_missing_clause_break_is_one_finding_as_in_the_lint() {
        // The third load overwrites the first one's address; the loads after it are independent
        // of the clause that a break before the third would leave.
        let lines = [
            "global_load_dword v4, v[0:1], off",
            "global_load_dword v5, v[2:3], off",
            "global_load_dwordx2 v[0:1], v[6:7], off",
            "global_load_dword v8, v[10:11], off",
            "global_load_dword v9, v[12:13], off",
        ];
        let found = feed(&mut HazardTracker::new(Target::Gfx900, true), &lines);
        assert_eq!(found, vec![(8, "vmem-soft-clause", 0)]);
    }

    #[test]
    fn matrix_rules_by_passes_and_by_target() {
        // gfx908: a 16x16 MFMA (8 passes) needs 10 wait states before v_accvgpr_read of its D.
        let lines = |nops: &'static [&'static str]| {
            let mut l = vec!["v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[0:15]"];
            l.extend(nops);
            l.push("v_accvgpr_read_b32 v2, a15");
            l
        };
        let t = Target::Gfx908;
        let short = feed_for(
            t,
            &mut HazardTracker::new(t, false),
            &lines(&["s_nop 7", "s_nop 0"]),
        );
        assert_eq!(short, vec![(12, "mfma-agpr-accvgpr-read", 9)]);
        let enough = feed_for(
            t,
            &mut HazardTracker::new(t, false),
            &lines(&["s_nop 7", "s_nop 1"]),
        );
        assert!(enough.is_empty(), "{enough:?}");
        // gfx90a: a DGEMM's result read by a store needs 18 (16x16) wait states; gfx908's
        // v_accvgpr_write rules do not apply there.
        let t = Target::Gfx90a;
        let found = feed_for(
            t,
            &mut HazardTracker::new(t, false),
            &[
                "v_mfma_f64_16x16x4f64 v[0:7], v[10:11], v[12:13], v[48:55]",
                "s_nop 7",
                "s_nop 7",
                "global_store_dword v[100:101], v1, off",
                "v_accvgpr_write_b32 a0, v2",
                "v_accvgpr_read_b32 v3, a0",
            ],
        );
        assert_eq!(found, vec![(12, "mfma-memory-read", 16)]);
        // Without matrix cores none of these rules is evaluated.
        let mask = rule_mask(Target::Gfx906.features(), true, |_| true);
        let mai = RULES.iter().position(|r| r.id == "valu-vgpr-mai").unwrap();
        assert_eq!(mask & 1 << mai, 0);
    }

    /// gfx940's classes at run time: an XDL op and an f32 op (not XDL on gfx940) of the same
    /// passes need different wait states; the same registers as SrcC after a 2-pass op need 2 on
    /// gfx940 only; gfx90a's DGEMM-between-VALU-and-load rule is not gfx940's.
    #[test]
    fn gfx940_rules_by_class_and_by_target() {
        let run = |t: Target, lines: &[&str]| feed_for(t, &mut HazardTracker::new(t, false), lines);
        let g = Target::Gfx940;
        // 8 passes: XDL needs 11 wait states before a VALU read, the f32 op 10.
        let read_after = |mfma: &'static str, nops: &'static [&'static str]| {
            let mut l = vec![mfma];
            l.extend(nops);
            l.push("v_add_f32_e32 v200, v1, v201");
            run(g, &l)
        };
        let xdl = "v_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[40:55]";
        let f32 = "v_mfma_f32_16x16x1_4b_f32 v[0:15], v20, v21, v[40:55]";
        assert_eq!(
            read_after(xdl, &["s_nop 7", "s_nop 1"]),
            vec![(12, "mfma-valu-read", 10)]
        );
        assert!(read_after(xdl, &["s_nop 7", "s_nop 2"]).is_empty());
        assert!(read_after(f32, &["s_nop 7", "s_nop 1"]).is_empty());
        // A 2-pass op's result read back whole as SrcC: 2 on gfx940, none on gfx90a.
        let same = |t: Target, a: &'static str, b: &'static str| run(t, &[a, "s_nop 0", b]);
        assert_eq!(
            same(
                g,
                "v_mfma_f32_4x4x1_16b_f32 v[0:3], v10, v11, v[0:3]",
                "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[20:21], v[22:23], v[0:3]"
            ),
            vec![(8, "mfma-4x4-srcc-same", 1)]
        );
        assert!(same(
            Target::Gfx90a,
            "v_mfma_f32_4x4x1f32 v[0:3], v10, v11, v[0:3]",
            "v_mfma_f32_4x4x4f16 v[0:3], v[20:21], v[22:23], v[0:3]"
        )
        .is_empty());
        // The WAR of an XDL op's SrcC walks past an f32 op reading the same C.
        let war = run(
            g,
            &[
                "v_mfma_f32_16x16x16_f16 v[0:3], v[50:51], v[52:53], v[40:43]",
                "v_mfma_f32_4x4x1_16b_f32 v[60:63], v100, v101, v[40:43]",
                "v_mov_b32_e32 v41, v201",
            ],
        );
        assert_eq!(war, vec![(8, "mfma-srcc-vector-write", 1)]);
        // VALU write, DGEMM, load of the VALU's result: gfx90a's hardware bug, not gfx940's.
        let between = |t: Target, dgemm: &'static str| {
            run(
                t,
                &[
                    "v_add_f32_e32 v120, v1, v2",
                    dgemm,
                    "global_load_dword v3, v[120:121], off",
                ],
            )
        };
        assert_eq!(
            between(
                Target::Gfx90a,
                "v_mfma_f64_4x4x4f64 v[10:11], v[12:13], v[14:15], v[16:17]"
            ),
            vec![(8, "valu-dgemm-memory", 1)]
        );
        assert!(between(
            g,
            "v_mfma_f64_4x4x4_4b_f64 v[10:11], v[12:13], v[14:15], v[16:17]"
        )
        .is_empty());
    }
}
