//! One compute unit ([`CuSim`]) stepping one cycle: land what completed, then give the SIMD
//! whose turn it is (cycle mod 4) its issue slot under the issue rule.
//!
//! The issue rule: the SIMD's ready waves are taken in issue order — S_SETPRIO priority, then
//! age (or round-robin, or a seeded shuffle) — and each issues its next instruction if the
//! unit it needs is free: no wave before it took that unit in this turn, and the unit is not
//! busy (the vector ALU or matrix core with an earlier instruction) nor the wave's counters
//! full; else it stalls, for Issue (a unit another wave holds), Dependency (its own earlier
//! instruction) or Waitcnt. So at most one instruction per unit issues, each from a different
//! wave. The rule's choice is one function ([`super::arbiter`]): the pass
//! ([`CuSim::take_turn`]) gives it a turn's ready waves, and the bulk turns ([`super::bulk`])
//! their masks of waves that nothing but a busy vector ALU holds.
//!
//! [`CuSim::next_event`] says when the CU can next do something, so idle cycles are skipped,
//! not stepped.

use super::arbiter::busy_reason;
use super::config::{Arbitration, TimingConfig};
use super::facts::{InstTiming, Unit, UNITS};
use super::inflight::{Outstanding, Spare};
use super::issue;
use super::occupancy::{CuRoom, Demand, SIMDS};
use super::stats::{LdsStats, StaleRead, StallReason, Stalls};
use super::trace::{self, Trace};
use crate::exec::program::Program;
use crate::exec::DispatchEnv;
use crate::fault::Fault;
use crate::launch::hazards::{HazardTable, RunHazards};
use crate::launch::{Counts, Stop, WaveAt};
use crate::lds::Lds;
use crate::memory::Memory;
use crate::rng::Rng;
use crate::wave::Wave;
use gcn_isa::Op;
use std::collections::HashMap;

/// Why a resident wave is not issuing, if it is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    None,
    /// s_waitcnt not yet satisfied, or a counter full: woken by a completion.
    Waitcnt,
    Barrier,
    /// s_sleep until `ready_at` (or an s_wakeup).
    Sleep,
    /// s_nop longer than the issue cadence, until `ready_at`.
    Nop,
    Ended,
}

/// A wave resident on a CU with its timing state.
pub struct WaveSlot {
    pub wave: Wave,
    pub cu: u32,
    pub simd: u8,
    /// Index into [`CuSim::groups`].
    pub group: usize,
    /// Dispatch order, for oldest-first arbitration and the trace's thread id.
    pub age: u64,
    pub out: Outstanding,
    pub trace: Option<trace::Open>,
}

/// What every turn of its SIMD reads of a resident wave, kept in [`CuSim::hot`] apart from the
/// [`WaveSlot`]s (hundreds of bytes each): a turn scans its SIMD's waves in a few adjacent
/// cache lines and reads a slot only for the waves it looks at.
#[derive(Clone, Copy, Debug)]
pub struct Hot {
    /// Earliest cycle the next instruction may issue.
    pub ready_at: u64,
    /// The stall accounting's open interval: since when, and why (here rather than in the
    /// slot, since the turns that move it read this record anyway).
    pub since: u64,
    pub reason: StallReason,
    pub block: Block,
    /// S_SETPRIO priority (0–3).
    pub prio: u8,
    /// Instructions of the wave ran ahead and wait to issue ([`super::ahead`]): a turn reads
    /// this record anyway, the queue only when it is set.
    pub ahead: bool,
}

impl Hot {
    /// A slot no wave holds.
    pub const FREE: Hot = Hot {
        ready_at: 0,
        since: 0,
        reason: StallReason::Issue,
        block: Block::Ended,
        prio: 0,
        ahead: false,
    };
}

/// A workgroup resident on a CU.
pub struct Group {
    pub id: [u32; 3],
    pub lds: Lds,
    /// The slots of its waves that have not ended (an ended wave's slot is reused at once).
    pub slots: Vec<usize>,
    pub alive: u32,
    pub cu: u32,
    /// Scratch backing of its waves (returned to the pool when it ends).
    pub scratch: Option<u64>,
    /// When the first wave now waiting at its barrier arrived (u64::MAX: none waits).
    pub barrier_since: u64,
    /// Memory requests issued by its waves and not yet executed.
    pub outstanding: u32,
    /// Those of them that may read or write its LDS ([`may_reach_lds`]).
    pub lds_requests: u32,
    pub retired: bool,
    /// The cycle its last wave ended (u64::MAX while one runs): a CU running windows ahead
    /// ([`super::lead`]) may have ended them after the window whose requests the dispatcher
    /// runs.
    pub ended_at: u64,
}

/// One compute unit.
pub struct Cu {
    pub id: u32,
    pub room: CuRoom,
    /// Resident waves (slot indices) in placement order.
    pub slots: Vec<usize>,
    /// The same, by SIMD: a cycle only looks at the SIMD whose turn it is.
    pub simd_slots: [Vec<usize>; SIMDS],
    /// Per SIMD, the earliest cycle one of its waves may issue (u64::MAX: none).
    pub simd_next: [u64; SIMDS],
    /// Per SIMD, how many of its waves have an S_SETPRIO priority above 0.
    pub raised: [u16; SIMDS],
    /// Cycle until which each SIMD's vector ALU is busy, and with whose instruction.
    pub valu_busy: [u64; SIMDS],
    pub valu_owner: [usize; SIMDS],
    /// Cycle until which each SIMD's matrix core is busy, and with whose matrix op.
    pub matrix_busy: [u64; SIMDS],
    pub matrix_owner: [usize; SIMDS],
    /// Cycle from which the LDS pipeline and the texture-address unit take new work.
    pub lds_free: u64,
    pub vmem_free: u64,
    /// Scheduled next step (u64::MAX: idle) and the last cycle stepped.
    pub next: u64,
    pub stepped: Option<u64>,
    pub rr: usize,
    /// Occupancy integral: resident waves × cycles, and cycles with any wave resident.
    pub wave_cycles: u64,
    pub active_cycles: u64,
    pub last_change: u64,
    pub used: bool,
}

impl Cu {
    /// CU `id`, empty, with SIMDs of `vgprs_per_simd` VGPRs per lane.
    pub fn new(id: u32, vgprs_per_simd: u32) -> Cu {
        Cu {
            id,
            room: CuRoom::with_vgprs(vgprs_per_simd),
            slots: Vec::new(),
            simd_slots: Default::default(),
            simd_next: [u64::MAX; SIMDS],
            raised: [0; SIMDS],
            valu_busy: [0; SIMDS],
            valu_owner: [usize::MAX; SIMDS],
            matrix_busy: [0; SIMDS],
            matrix_owner: [usize::MAX; SIMDS],
            lds_free: 0,
            vmem_free: 0,
            next: u64::MAX,
            stepped: None,
            rr: 0,
            wave_cycles: 0,
            active_cycles: 0,
            last_change: 0,
            used: false,
        }
    }

    /// Adds the occupancy integral up to `now`, before the resident set changes.
    pub fn integrate(&mut self, now: u64) {
        let dt = now.saturating_sub(self.last_change);
        self.wave_cycles += self.slots.len() as u64 * dt;
        if !self.slots.is_empty() {
            self.active_cycles += dt;
        }
        self.last_change = self.last_change.max(now);
    }

    /// The first cycle at or after `t` at which some SIMD has a wave that may issue.
    pub fn first_turn(&self, t: u64) -> Option<u64> {
        (0..SIMDS)
            .filter(|&k| self.simd_next[k] != u64::MAX)
            .map(|k| turn(self.simd_next[k].max(t), k as u8))
            .min()
    }

    /// The next cycle after `now` at which some SIMD has a wave that may issue.
    pub fn next_turn(&self, now: u64) -> Option<u64> {
        // The common case on a busy CU: the next cycle's SIMD has a wave that may issue.
        let next = now + 1;
        if self.simd_next[(next % SIMDS as u64) as usize] <= next {
            return Some(next);
        }
        let t = (0..SIMDS)
            .filter(|&k| self.simd_next[k] != u64::MAX)
            .map(|k| turn(self.simd_next[k].max(now + 1), k as u8))
            .min()?;
        Some(t)
    }

    /// Wave `s` on SIMD `simd` may issue from `t`.
    pub fn wake(&mut self, simd: u8, t: u64) {
        let k = simd as usize;
        self.simd_next[k] = self.simd_next[k].min(t);
    }
}

/// Everything a launch fixes.
pub struct Env<'a> {
    pub program: &'a Program,
    pub facts: &'a [InstTiming],
    pub models: &'a HazardTable,
    pub leaves: Option<&'a crate::launch::hazards::Leaves>,
    pub env: &'a DispatchEnv,
    pub config: &'a TimingConfig,
    pub demand: Demand,
    /// The run-ahead's compiled code ([`super::ahead`]).
    pub ahead_code: Option<&'a crate::exec::compiled::HotRegion>,
}

/// One compute unit during a timed launch, with everything it changes while it runs a window
/// of cycles on its own: its waves and workgroups (with their LDS), statistics, trace, hazard
/// trackers, and the memory requests its waves issued. Global memory is not here: memory
/// instructions are executed between windows ([`super::deferred`]), so CUs can run a window
/// in parallel and the result does not depend on the thread count.
pub struct CuSim<'a> {
    pub e: &'a Env<'a>,
    pub cu: Cu,
    pub slots: Vec<WaveSlot>,
    /// By slot index, like `slots`.
    pub hot: Vec<Hot>,
    pub groups: Vec<Option<Group>>,
    pub free_slots: Vec<usize>,
    pub free_groups: Vec<usize>,
    pub counts: Counts,
    pub stalls: Stalls,
    pub lds: LdsStats,
    /// By (consumer, load, access).
    pub stale: HashMap<(u32, u32, &'static str), StaleRead>,
    pub rng: Option<Rng>,
    pub trace: Option<Trace>,
    pub hazards: Option<RunHazards<'a>>,
    /// Groups whose waves have all ended and whose memory requests have all been executed.
    pub finished: Vec<usize>,
    /// The last cycle at which a memory operation of an ended wave completes: the dispatch
    /// ends when its stores have reached memory, not at the last s_endpgm.
    pub drain: u64,
    /// Memory instructions issued and not yet executed, by completion (boxed: the CU's
    /// fields that every turn reads stay as close together as they were).
    pub requests: Box<super::requests::Requests>,
    /// Spent snapshots for reuse (a snapshot moves between a request and this pool with its
    /// buffer, without copying its registers).
    pub snapshots: Vec<super::deferred::Snapshot>,
    /// Landings for reuse.
    pub spare: Spare,
    /// Issue order of memory instructions on this CU (the tie-break of equal completions).
    pub seq: u64,
    /// Wave-instructions issued (checked against the budget between windows), and the last
    /// one as (wave, instruction index, workgroup).
    pub issued: u64,
    pub last_issued: (u32, u32, [u32; 3]),
    /// Near the end of the budget: every issue of the window as (cycle, wave, instruction
    /// index, workgroup).
    pub log_issues: bool,
    pub issue_log: Vec<(u64, u32, u32, [u32; 3])>,
    /// Where non-memory instructions see "memory": none (they never touch it), only the
    /// device's GWS resources, which `ds_gws_*` use at issue.
    pub no_memory: Memory,
    /// Device memory's write count during this window (memory changes only between windows),
    /// for the spin detector.
    pub mem_epoch: u64,
    /// A wave of this CU has been found spinning in this launch: the dispatcher looks for a
    /// livelock from then on.
    pub spin_seen: bool,
    /// The end of the window being run (a SIMD's turns in bulk go up to it).
    pub window_stop: u64,
    /// The end of the last window this CU ran ahead of the dispatcher ([`super::lead`]; 0:
    /// none), and a guest stop met there, which the dispatcher raises when it reaches that
    /// window.
    pub lead_until: u64,
    pub held: Option<(u64, Stop, [u32; 3])>,
    /// Each SIMD's waves while its turns run in bulk.
    pub bulk: [Option<Box<super::bulk::SimdBulk>>; SIMDS],
    /// By slot index: the instructions each wave ran ahead ([`super::ahead`]), and how many
    /// waves have some (where none do, the pass does not look at the queues).
    pub aheads: Vec<super::ahead::Ahead>,
    pub queued: u32,
    /// Whether SIMDs may take their turns in bulk in the window being run: nothing records
    /// the order of issues across SIMDs (the Chrome trace, the trace-level log, the run-time
    /// hazard tracker, the issue log near the end of the budget), and a barrier wait that
    /// begins in the window cannot time out before it ends.
    pub bulk_window: bool,
    /// Per SIMD, the turn from which it may try to enter the bulk again, and how long it
    /// waited last ([`CuSim::bulk_turns`]).
    pub bulk_retry: [u64; SIMDS],
    pub bulk_backoff: [u8; SIMDS],
    /// The earliest cycle at which a wave of a group now waiting at its barrier arrived
    /// (u64::MAX: none waits), for the bulk's check of the barrier timeout.
    pub barrier_min: u64,
    /// Host time by part, when asked for ([`super::profile`]).
    pub prof: super::profile::Counters,
    /// What was issued past the cycle the CU has reached, for a stop to take back.
    pub(crate) cut: super::cut::Cut,
    /// The CU's side of the memory hierarchy (`None`: fixed latencies).
    pub(crate) memory: Option<super::memory::CuMemoryState>,
}

/// The first cycle at or after `t` in which SIMD `simd` has the issue slot.
pub fn turn(t: u64, simd: u8) -> u64 {
    t + (simd as u64 + SIMDS as u64 - t % SIMDS as u64) % SIMDS as u64
}

/// Whether wave `w`'s counters hold its next instruction (facts `f`) at `now` — an s_waitcnt
/// not yet satisfied, or a counter the instruction increments at its maximum — and if so,
/// until when.
#[inline(always)]
pub(crate) fn counters_hold(w: &WaveSlot, f: &InstTiming, now: u64) -> Option<u64> {
    let counters = w.wave.counters;
    match counters.within(&f.issue_limit) {
        true => None,
        false => Some(w.out.when(now, counters, |k| k.within(&f.issue_limit))),
    }
}

/// Moves a wave's stall accounting (`h`) and its trace track (`slot`) to reason `r` from
/// cycle `t`.
pub fn account(
    h: &mut Hot,
    slot: &mut WaveSlot,
    stalls: &mut Stalls,
    trace: &mut Option<Trace>,
    t: u64,
    r: StallReason,
) {
    if h.reason == r {
        return;
    }
    let t = t.max(h.since);
    if let Some(i) = h.reason.index() {
        stalls.cycles[i] += t - h.since;
    }
    h.reason = r;
    h.since = t;
    if let Some(tr) = trace {
        tr.switch(&mut slot.trace, slot.cu, slot.age, trace::state_name(r), t);
    }
}

impl<'a> CuSim<'a> {
    /// Steps CU `c` at cycle `now`: the SIMD whose turn it is issues.
    /// A guest stop comes with its cycle: the bulk turns may have run past `now`.
    pub fn step(&mut self, now: u64) -> Result<(), (u64, Stop, [u32; 3])> {
        // A SIMD that took its turns in bulk may have stepped past `now` already.
        self.cu.stepped = Some(self.cu.stepped.map_or(now, |p| p.max(now)));
        let simd = (now % SIMDS as u64) as u8;
        if self.e.config.arbitration == Arbitration::OldestFirst
            && self.cu.raised[simd as usize] == 0
        {
            if !self.bulk_window {
                // The window's issue order is recorded (near the end of the budget): the pass
                // takes every turn, from the waves' own records.
                self.bulk_leave(simd);
            } else if now >= self.bulk_retry[simd as usize] {
                // Entering, the turns, and leaving (with the runs ahead they start).
                let probe = self.prof.start();
                let taken = self.bulk_turns(simd, now, self.window_stop);
                self.prof.stop(super::profile::Part::Bulk, probe);
                if taken? {
                    return Ok(());
                }
            }
        }
        self.take_turn(simd, now).map_err(|(s, g)| (now, s, g))
    }

    /// SIMD `simd`'s turn at `now` under the issue rule ([`super::arbiter`]): its ready waves,
    /// looked at, in issue order ([`CuSim::order`]), with the unit each needs and what else
    /// holds it ([`CuSim::held_by`]); the rule's winners issue, in that order, and the others
    /// record why not and until when.
    pub(crate) fn take_turn(&mut self, simd: u8, now: u64) -> Result<(), (Stop, [u32; 3])> {
        // At most 10 waves per SIMD.
        let mut cand = [0usize; 16];
        let mut n = 0;
        for &s in &self.cu.simd_slots[simd as usize] {
            let h = &mut self.hot[s];
            if h.ready_at > now || n == cand.len() {
                continue;
            }
            Self::look(
                h,
                &mut self.slots[s],
                &mut self.stalls,
                &mut self.trace,
                &mut self.spare,
                now,
            );
            if matches!(h.block, Block::Barrier | Block::Ended) {
                continue;
            }
            cand[n] = s;
            n += 1;
        }
        let cand = &mut cand[..n];
        self.order(cand);
        // By unit, the waves (bits in issue order) needing it; those nothing else holds, and
        // why the others are held, until when.
        let mut needs = [0u32; UNITS];
        let mut free = 0u32;
        let mut held = [(StallReason::Issue, 0u64); 16];
        let mut unit = [Unit::Internal; 16];
        for (i, &s) in cand.iter().enumerate() {
            let pc = self.next_index(s);
            // One past the program's end needs no unit, and faults as it issues.
            if let Some(f) = self.e.facts.get(pc as usize) {
                unit[i] = f.unit;
                match self.held_by(s, f, now) {
                    None => free |= 1 << i,
                    Some(r) => held[i] = r,
                }
            } else {
                free |= 1 << i;
            }
            needs[unit[i].index()] |= 1 << i;
        }
        // An instruction that needs no unit contends for nothing.
        let internal = std::mem::take(&mut needs[Unit::Internal.index()]);
        let won = super::arbiter::winners(needs, free) | internal & free;
        for (i, &s) in cand.iter().enumerate() {
            let bit = 1u32 << i;
            if won & bit != 0 {
                self.issue_or_fault(s, now)?;
                continue;
            }
            // A wave after the one that took its unit stalls for it, whatever else holds it.
            let taken = unit[i] != Unit::Internal && won & needs[unit[i].index()] & (bit - 1) != 0;
            let (r, until) = match taken || free & bit != 0 {
                true => (StallReason::Issue, now + 1),
                false => held[i],
            };
            let h = &mut self.hot[s];
            if r == StallReason::Waitcnt {
                h.block = Block::Waitcnt;
            }
            h.ready_at = until;
            let slot = &mut self.slots[s];
            account(h, slot, &mut self.stalls, &mut self.trace, now, r);
        }
        self.refresh(simd, now);
        Ok(())
    }

    /// Wave `s`, a winner of its turn, issues its next instruction, or faults if there is none.
    #[inline(always)]
    fn issue_or_fault(&mut self, s: usize, now: u64) -> Result<(), (Stop, [u32; 3])> {
        let pc = self.next_index(s);
        if self.e.facts.get(pc as usize).is_none() {
            self.cut_stopped_by(s);
            let w = &self.slots[s];
            let group = self.group_id(s);
            return Err((
                Stop::Fault {
                    wave: w.wave.index,
                    index: pc,
                    fault: Fault::PastEnd,
                },
                group,
            ));
        }
        issue::issue(self, s, now)
    }

    /// A ready wave as a turn first looks at it: the memory operations that completed land
    /// (nothing else reads its registers or counters in between, so landing them when the wave
    /// is looked at is the same as landing them on time), and a wait that ran out ends.
    #[inline(always)]
    fn look(
        h: &mut Hot,
        w: &mut WaveSlot,
        stalls: &mut Stalls,
        trace: &mut Option<Trace>,
        spare: &mut Spare,
        now: u64,
    ) {
        let WaveSlot { wave, out, .. } = w;
        out.complete(wave, now, spare);
        match h.block {
            Block::None | Block::Barrier | Block::Ended => {}
            Block::Sleep | Block::Nop | Block::Waitcnt => {
                h.block = Block::None;
                let ready_at = h.ready_at;
                account(h, w, stalls, trace, ready_at, StallReason::Issue);
            }
        }
    }

    /// Recomputes when SIMD `simd` of CU `c` next has a wave that may issue.
    fn refresh(&mut self, simd: u8, now: u64) {
        let cu = &self.cu;
        let mut next = u64::MAX;
        for &s in &cu.simd_slots[simd as usize] {
            let h = &self.hot[s];
            if matches!(h.block, Block::Barrier | Block::Ended) {
                continue;
            }
            next = next.min(h.ready_at.max(now + 1));
        }
        self.cu.simd_next[simd as usize] = next;
    }

    /// What holds wave `s` from issuing its next instruction (facts `f`) now, other than a
    /// wave taking its unit first: the reason, and from which cycle it may try again; `None`
    /// if nothing does.
    #[inline(always)]
    fn held_by(&self, s: usize, f: &InstTiming, now: u64) -> Option<(StallReason, u64)> {
        let w = &self.slots[s];
        let cu = &self.cu;
        let busy = cu.valu_busy[w.simd as usize];
        if f.unit == Unit::Valu && busy > now {
            let own = cu.valu_owner[w.simd as usize] == s;
            return Some((busy_reason(own), busy));
        }
        let matrix = cu.matrix_busy[w.simd as usize];
        if f.matrix_cycles != 0 && matrix > now {
            let own = cu.matrix_owner[w.simd as usize] == s;
            return Some((busy_reason(own), matrix));
        }
        counters_hold(w, f, now).map(|t| (StallReason::Waitcnt, t))
    }

    /// Orders ready waves for the issue arbiter: S_SETPRIO priority first.
    fn order(&mut self, cand: &mut [usize]) {
        if cand.len() < 2 {
            return;
        }
        let slots = &self.slots;
        let hot = &self.hot;
        match self.e.config.arbitration {
            Arbitration::OldestFirst => {
                // A SIMD's slots are listed in dispatch order (placed at the end, removed in
                // place), so the candidates are oldest first already; only s_setprio can
                // reorder them, and a stable sort by priority keeps the age order within one.
                debug_assert!(cand.windows(2).all(|p| slots[p[0]].age < slots[p[1]].age));
                let first = hot[cand[0]].prio;
                if cand.iter().any(|&s| hot[s].prio != first) {
                    cand.sort_by_key(|&s| std::cmp::Reverse(hot[s].prio));
                }
            }
            Arbitration::RoundRobin => {
                let cu = &mut self.cu;
                cu.rr = cu.rr.wrapping_add(1);
                let n = cand.len();
                let rot = cu.rr % n;
                cand.sort_by_key(|&s| slots[s].age);
                cand.rotate_left(rot);
                cand.sort_by_key(|&s| std::cmp::Reverse(hot[s].prio));
            }
            Arbitration::Random { .. } => {
                let rng = self
                    .rng
                    .as_mut()
                    .expect("random arbitration has a generator");
                for i in (1..cand.len()).rev() {
                    let j = rng.below(i as u64 + 1) as usize;
                    cand.swap(i, j);
                }
                cand.sort_by_key(|&s| std::cmp::Reverse(hot[s].prio));
            }
        }
    }

    /// Steps every cycle of `[start, stop)` at which the CU has something to do. A guest stop
    /// comes with its cycle, and what was issued after it is not counted ([`super::cut`]).
    pub fn run_window(&mut self, start: u64, stop: u64) -> Result<(), (u64, Stop, [u32; 3])> {
        // No turn before the window's end (every wave waits past it, or for ever): nothing in
        // it to step or to take back. (A CU with little to do, behind atomics that queue at
        // the L2, met thousands of such windows in a row.)
        if self.cu.next >= stop {
            return Ok(());
        }
        self.window_stop = stop;
        self.cut_window(start, stop);
        self.bulk_window = self.e.config.ahead
            && self.e.config.arbitration == Arbitration::OldestFirst
            && self.trace.is_none()
            && !self.log_issues
            && self.hazards.is_none()
            && stop - start <= self.e.config.barrier_timeout
            && !tracing::enabled!(tracing::Level::TRACE);
        let probe = self.prof.start();
        let mut t = self.cu.next.max(start);
        // A stop met by a SIMD's bulk turns ahead of the CU's cycle, and the SIMDs that have
        // taken their turns up to it: the others take theirs before it, and a stop of theirs
        // there comes first.
        let (mut met, mut halted) = (None, 0u8);
        while t < self.window_stop {
            let simd = (t % SIMDS as u64) as u8;
            if halted & 1 << simd == 0 {
                if let Err(e) = self.step(t) {
                    let at = e.0;
                    met = Some(e);
                    if at <= t {
                        break;
                    }
                    self.window_stop = at;
                    halted |= 1 << (at % SIMDS as u64);
                }
            }
            t = self.next_event(t).unwrap_or(u64::MAX);
        }
        self.cu.next = t;
        self.prof.stop(super::profile::Part::CuWindow, probe);
        match met {
            Some(e) => {
                self.cut_after(e.0);
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// Where each resident wave that has not ended is, and what it waits on.
    pub fn waves_at(&self) -> Vec<WaveAt> {
        let mut out = Vec::new();
        for group in self.groups.iter().flatten() {
            for &s in &group.slots {
                let w = &self.slots[s];
                let c = w.wave.counters;
                let waits = match self.hot[s].block {
                    Block::Ended => continue,
                    Block::None => "running".to_string(),
                    Block::Waitcnt => format!(
                        "s_waitcnt (vmcnt {}, lgkmcnt {}, expcnt {} outstanding)",
                        c.vm, c.lgkm, c.exp
                    ),
                    Block::Barrier => Op::S_BARRIER.name().to_string(),
                    Block::Sleep => Op::S_SLEEP.name().to_string(),
                    Block::Nop => Op::S_NOP.name().to_string(),
                };
                out.push(WaveAt {
                    group: group.id,
                    wave: w.wave.index,
                    index: self.next_index(s),
                    waits,
                });
            }
        }
        out
    }

    /// The last instruction issued, as (wave, instruction index, workgroup).
    pub fn last_issue(&self) -> (u32, u32, [u32; 3]) {
        self.last_issued
    }

    /// The next cycle at which the CU can do anything after `now`, or `None` if nothing is
    /// pending on it.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        self.cu.next_turn(now)
    }

    /// The deadlock of group `g`: the waves that never arrive.
    pub fn deadlock(&self, g: usize) -> (Stop, [u32; 3]) {
        let group = self.groups[g].as_ref().expect("resident group");
        let waiting = group
            .slots
            .iter()
            .filter(|&&s| self.hot[s].block != Block::Ended)
            .map(|&s| self.slots[s].wave.index)
            .collect();
        (Stop::Deadlock { waiting }, group.id)
    }

    /// The barrier of group `g` has waited too long: who waits and who keeps running.
    pub fn barrier_timeout(&self, g: usize, now: u64) -> Stop {
        let group = self.groups[g].as_ref().expect("resident group");
        let waves = group
            .slots
            .iter()
            .map(|&s| (s, &self.hot[s], &self.slots[s]));
        Stop::BarrierTimeout {
            waiting: waves
                .clone()
                .filter(|(_, h, _)| h.block == Block::Barrier)
                .map(|(_, _, w)| w.wave.index)
                .collect(),
            running: waves
                .filter(|(_, h, _)| !matches!(h.block, Block::Barrier | Block::Ended))
                .map(|(s, _, w)| (w.wave.index, self.next_index(s)))
                .collect(),
            cycles: now - group.barrier_since,
        }
    }

    pub fn group_id(&self, s: usize) -> [u32; 3] {
        self.groups[self.slots[s].group]
            .as_ref()
            .map_or([0; 3], |g| g.id)
    }

    /// Releases the group's barrier if every wave that has not ended waits at it (§4.3: an
    /// ended wave counts as arrived).
    pub fn check_barrier(&mut self, g: usize, now: u64) {
        let Some(group) = self.groups[g].as_ref() else {
            return;
        };
        let hot = &mut self.hot;
        let all = group
            .slots
            .iter()
            .all(|&s| matches!(hot[s].block, Block::Barrier | Block::Ended));
        if !all {
            return;
        }
        for &s in &group.slots {
            let h = &mut hot[s];
            if h.block == Block::Barrier {
                h.block = Block::None;
                h.ready_at = now + 1;
                let w = &mut self.slots[s];
                account(
                    h,
                    w,
                    &mut self.stalls,
                    &mut self.trace,
                    now + 1,
                    StallReason::Issue,
                );
                self.cu.wake(w.simd, now + 1);
            }
        }
        if let Some(g) = self.groups[g].as_mut() {
            g.barrier_since = u64::MAX;
        }
        self.barrier_min = self
            .groups
            .iter()
            .flatten()
            .map(|g| g.barrier_since)
            .min()
            .unwrap_or(u64::MAX);
    }

    /// Wave `s` executed s_endpgm: give back its slot resources; the last wave of a group
    /// gives back the LDS and barrier too.
    pub fn end_wave(&mut self, s: usize, now: u64) {
        let demand = self.e.demand;
        let cu = &mut self.cu;
        cu.integrate(now);
        cu.slots.retain(|&x| x != s);
        let w = &mut self.slots[s];
        cu.simd_slots[w.simd as usize].retain(|&x| x != s);
        if self.hot[s].prio != 0 {
            cu.raised[w.simd as usize] -= 1;
            self.hot[s].prio = 0;
        }
        cu.room.release_wave(&demand, w.simd);
        // The accounting interval closes with the wave; its outstanding stores have already
        // changed memory and its loads have no one left to read them.
        account(
            &mut self.hot[s],
            w,
            &mut self.stalls,
            &mut self.trace,
            now,
            StallReason::Executing,
        );
        if let Some(tr) = &mut self.trace {
            tr.finish(&mut w.trace, w.cu, w.age, now + 1);
        }
        self.hot[s].block = Block::Ended;
        self.drain = self.drain.max(w.out.last_done().unwrap_or(0));
        w.out.clear(&mut self.spare);
        let g = w.group;
        // The slot is free from now: its wave's outstanding requests carry what they need and
        // find no landing place in a later wave (landings attach by issue number).
        if cu.valu_owner[w.simd as usize] == s {
            cu.valu_owner[w.simd as usize] = usize::MAX;
        }
        if cu.matrix_owner[w.simd as usize] == s {
            cu.matrix_owner[w.simd as usize] = usize::MAX;
        }
        self.free_slots.push(s);
        let group = self.groups[g].as_mut().expect("resident group");
        group.slots.retain(|&x| x != s);
        group.alive -= 1;
        if group.alive == 0 {
            group.ended_at = now;
            // The hardware frees the LDS and barrier now; the group's storage stays until
            // its last memory request has run.
            cu.room.release_group(&demand);
            if group.lds_requests == 0 {
                group.lds.release();
            }
            self.retire_if_done(g);
        } else {
            self.check_barrier(g, now);
        }
    }

    /// Marks group `g` finished once its waves have ended and its requests have run.
    pub fn retire_if_done(&mut self, g: usize) {
        self.retire_if_ended_before(g, u64::MAX);
    }

    /// As [`CuSim::retire_if_done`], counting only waves that ended before cycle `t`: the
    /// dispatcher's view at the start of the window from `t`, where this CU may have run
    /// further ([`super::lead`]).
    pub fn retire_if_ended_before(&mut self, g: usize, t: u64) {
        if let Some(group) = &self.groups[g] {
            if group.alive == 0 && group.ended_at < t && group.outstanding == 0 && !group.retired {
                self.groups[g].as_mut().unwrap().retired = true;
                self.finished.push(g);
            }
        }
    }

    /// s_wakeup: the group's sleeping waves go on.
    pub fn wakeup(&mut self, g: usize, now: u64) {
        let Some(group) = self.groups[g].as_ref() else {
            return;
        };
        for &s in &group.slots {
            let h = &mut self.hot[s];
            if h.block == Block::Sleep {
                h.ready_at = h.ready_at.min(now + 1);
                self.cu.wake(self.slots[s].simd, now + 1);
            }
        }
    }
}

/// Whether instruction format `f` may read or write a workgroup's LDS: DS, and FLAT (whose
/// addresses may fall in the LDS aperture), buffer (with `lds`) and image ops; not scalar,
/// global or scratch ones.
pub fn may_reach_lds(f: gcn_isa::Format) -> bool {
    use gcn_isa::Format;
    !matches!(f, Format::Smem | Format::Global | Format::Scratch)
}
