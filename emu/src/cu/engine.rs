//! One compute unit stepping one cycle: land what completed, then give the SIMD whose turn it
//! is (cycle mod 4) its issue slot — at most one instruction per unit, each from a different
//! wave, waves ordered by S_SETPRIO priority, then age (or round-robin, or a seeded shuffle).
//! [`next_event`] says when the CU can next do something, so idle cycles are skipped, not
//! stepped.

use super::config::{Arbitration, TimingConfig};
use super::facts::{Facts, Special, Unit, UNITS};
use super::inflight::Outstanding;
use super::issue;
use super::occupancy::{CuRoom, Demand, SIMDS};
use super::rng::Rng;
use super::stats::{LdsStats, StaleRead, StallReason, Stalls};
use super::trace::{self, Trace};
use crate::exec::{DispatchEnv, Fault};
use crate::lds::Lds;
use crate::memory::Memory;
use crate::program::Program;
use crate::run::hazards::{HazardTable, RunHazards};
use crate::run::{Counts, Stop};
use crate::wave::Wave;
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
    /// Index into [`Machine::groups`].
    pub group: usize,
    /// Dispatch order, for oldest-first arbitration and the trace's thread id.
    pub age: u64,
    pub prio: u8,
    /// Earliest cycle the next instruction may issue.
    pub ready_at: u64,
    pub block: Block,
    pub out: Outstanding,
    /// The stall accounting's open interval.
    pub reason: StallReason,
    pub since: u64,
    pub barrier_since: u64,
    pub trace: Option<trace::Open>,
}

/// A workgroup resident on a CU.
pub struct Group {
    pub id: [u32; 3],
    pub lds: Lds,
    pub slots: Vec<usize>,
    pub alive: u32,
    pub cu: u32,
    /// Scratch backing of its waves (returned to the pool when it ends).
    pub scratch: Option<u64>,
}

/// One compute unit.
pub struct Cu {
    pub id: u32,
    pub room: CuRoom,
    /// Resident waves (slot indices) in placement order.
    pub slots: Vec<usize>,
    /// Cycle until which each SIMD's vector ALU is busy, and with whose instruction.
    pub valu_busy: [u64; SIMDS],
    pub valu_owner: [usize; SIMDS],
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
    pub fn new(id: u32) -> Cu {
        Cu {
            id,
            room: CuRoom::default(),
            slots: Vec::new(),
            valu_busy: [0; SIMDS],
            valu_owner: [usize::MAX; SIMDS],
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
}

/// Everything a launch fixes.
pub struct Env<'a> {
    pub program: &'a Program,
    pub facts: &'a [Facts],
    pub models: &'a HazardTable,
    pub env: &'a DispatchEnv,
    pub config: &'a TimingConfig,
    pub demand: Demand,
}

/// The state of the whole device during a timed launch.
pub struct Machine<'a> {
    pub e: Env<'a>,
    pub mem: &'a mut Memory,
    pub slots: Vec<WaveSlot>,
    pub groups: Vec<Option<Group>>,
    pub cus: Vec<Cu>,
    pub budget: u64,
    pub counts: Counts,
    pub stalls: Stalls,
    pub lds: LdsStats,
    /// By (consumer, load, access).
    pub stale: HashMap<(u32, u32, &'static str), StaleRead>,
    pub rng: Option<Rng>,
    pub trace: Option<Trace>,
    pub hazards: Option<RunHazards<'a>>,
    /// Groups whose last wave ended in the current step.
    pub finished: Vec<usize>,
    /// The last cycle at which a memory operation of an ended wave completes: the dispatch
    /// ends when its stores have reached memory, not at the last s_endpgm.
    pub drain: u64,
}

/// The first cycle at or after `t` in which SIMD `simd` has the issue slot.
pub fn turn(t: u64, simd: u8) -> u64 {
    t + (simd as u64 + SIMDS as u64 - t % SIMDS as u64) % SIMDS as u64
}

/// Moves a wave's stall accounting (and its trace track) to reason `r` from cycle `t`.
pub fn account(
    slot: &mut WaveSlot,
    stalls: &mut Stalls,
    trace: &mut Option<Trace>,
    t: u64,
    r: StallReason,
) {
    if slot.reason == r {
        return;
    }
    let t = t.max(slot.since);
    if let Some(i) = slot.reason.index() {
        stalls.cycles[i] += t - slot.since;
    }
    slot.reason = r;
    slot.since = t;
    if let Some(tr) = trace {
        tr.switch(&mut slot.trace, slot.cu, slot.age, trace::state_name(r), t);
    }
}

impl<'a> Machine<'a> {
    /// Steps CU `c` at cycle `now`.
    pub fn step(&mut self, c: usize, now: u64) -> Result<(), (Stop, [u32; 3])> {
        self.cus[c].stepped = Some(now);
        self.complete(c, now);
        let simd = (now % SIMDS as u64) as u8;
        let mut cand: Vec<usize> = Vec::with_capacity(10);
        for &s in &self.cus[c].slots {
            let w = &mut self.slots[s];
            if w.simd != simd {
                continue;
            }
            if matches!(w.block, Block::Sleep | Block::Nop) && w.ready_at <= now {
                w.block = Block::None;
            }
            if w.block == Block::None && w.ready_at <= now {
                cand.push(s);
            }
        }
        self.order(c, &mut cand);
        let mut used = [false; UNITS];
        for s in cand {
            let pc = self.slots[s].wave.pc;
            let Some(f) = self.e.facts.get(pc as usize).copied() else {
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
            };
            let reason = self.blocked_by(c, s, &f, &used, now);
            if let Some(r) = reason {
                let slot = &mut self.slots[s];
                if r == StallReason::Waitcnt {
                    slot.block = Block::Waitcnt;
                }
                account(slot, &mut self.stalls, &mut self.trace, now, r);
                continue;
            }
            if f.unit != Unit::Internal {
                used[f.unit.index()] = true;
            }
            issue::issue(self, c, s, now)?;
        }
        Ok(())
    }

    /// Why wave `s` cannot issue its next instruction now, or `None` if it can.
    fn blocked_by(
        &self,
        c: usize,
        s: usize,
        f: &Facts,
        used: &[bool; UNITS],
        now: u64,
    ) -> Option<StallReason> {
        let w = &self.slots[s];
        let cu = &self.cus[c];
        if f.unit != Unit::Internal && used[f.unit.index()] {
            return Some(StallReason::Issue);
        }
        if f.unit == Unit::Valu && cu.valu_busy[w.simd as usize] > now {
            return Some(if cu.valu_owner[w.simd as usize] == s {
                StallReason::Dependency
            } else {
                StallReason::Issue
            });
        }
        if let Special::Waitcnt(simm) = f.special {
            if !w.wave.counters.satisfies(simm) {
                return Some(StallReason::Waitcnt);
            }
        }
        // The counters are 6 (VM), 4 (LGKM) and 3 (EXP) bits: a wave with a counter at its
        // maximum cannot issue another operation that increments it.
        let d = &self.e.program.insts[w.wave.pc as usize];
        let k = d.class.counters;
        let n = w.wave.counters;
        if (k.vm && n.vm >= 63) || (k.lgkm && n.lgkm >= 15) || (k.exp && n.exp >= 7) {
            return Some(StallReason::Waitcnt);
        }
        None
    }

    /// Orders ready waves for the issue arbiter: S_SETPRIO priority first.
    fn order(&mut self, c: usize, cand: &mut [usize]) {
        if cand.len() < 2 {
            return;
        }
        let slots = &self.slots;
        match self.e.config.arbitration {
            Arbitration::OldestFirst => {
                cand.sort_by_key(|&s| (std::cmp::Reverse(slots[s].prio), slots[s].age))
            }
            Arbitration::RoundRobin => {
                let cu = &mut self.cus[c];
                cu.rr = cu.rr.wrapping_add(1);
                let n = cand.len();
                let rot = cu.rr % n;
                cand.sort_by_key(|&s| slots[s].age);
                cand.rotate_left(rot);
                cand.sort_by_key(|&s| std::cmp::Reverse(slots[s].prio));
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
                cand.sort_by_key(|&s| std::cmp::Reverse(slots[s].prio));
            }
        }
    }

    /// Lands every memory operation of the CU's waves done by `now` and wakes waves whose
    /// s_waitcnt is now satisfied (they re-check when next considered).
    fn complete(&mut self, c: usize, now: u64) {
        for &s in &self.cus[c].slots {
            let w = &mut self.slots[s];
            if w.out.is_empty() {
                continue;
            }
            let WaveSlot { wave, out, .. } = w;
            if out.complete(wave, now) && w.block == Block::Waitcnt {
                w.block = Block::None;
            }
        }
    }

    /// The next cycle at which CU `c` can do anything after `now`, or `None` if nothing is
    /// pending on it. A wave waiting at a barrier longer than the configured timeout is a
    /// deadlock.
    pub fn next_event(&self, c: usize, now: u64) -> Result<Option<u64>, (Stop, [u32; 3])> {
        let cu = &self.cus[c];
        let mut next = u64::MAX;
        for &s in &cu.slots {
            let w = &self.slots[s];
            if let Some(d) = w.out.next_done() {
                next = next.min(d.max(now + 1));
            }
            let t = match w.block {
                Block::None => {
                    let mut t = w.ready_at.max(now + 1);
                    let is_valu = self
                        .e
                        .facts
                        .get(w.wave.pc as usize)
                        .is_some_and(|f| f.unit == Unit::Valu);
                    if is_valu {
                        t = t.max(cu.valu_busy[w.simd as usize]);
                    }
                    turn(t, w.simd)
                }
                Block::Sleep | Block::Nop => turn(w.ready_at.max(now + 1), w.simd),
                Block::Barrier => {
                    if now - w.barrier_since > self.e.config.barrier_timeout {
                        return Err(self.deadlock(w.group));
                    }
                    continue;
                }
                Block::Waitcnt | Block::Ended => continue,
            };
            next = next.min(t);
        }
        Ok((next != u64::MAX).then_some(next))
    }

    /// The deadlock of group `g`: the waves that never arrive.
    pub fn deadlock(&self, g: usize) -> (Stop, [u32; 3]) {
        let group = self.groups[g].as_ref().expect("resident group");
        let waiting = group
            .slots
            .iter()
            .map(|&s| &self.slots[s])
            .filter(|w| w.block != Block::Ended)
            .map(|w| w.wave.index)
            .collect();
        (Stop::Deadlock { waiting }, group.id)
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
        let slots = &mut self.slots;
        let all = group
            .slots
            .iter()
            .all(|&s| matches!(slots[s].block, Block::Barrier | Block::Ended));
        if !all {
            return;
        }
        for &s in &group.slots {
            let w = &mut slots[s];
            if w.block == Block::Barrier {
                w.block = Block::None;
                w.ready_at = now + 1;
                account(
                    w,
                    &mut self.stalls,
                    &mut self.trace,
                    now + 1,
                    StallReason::Issue,
                );
            }
        }
    }

    /// Wave `s` executed s_endpgm: give back its slot resources; the last wave of a group
    /// gives back the LDS and barrier too.
    pub fn end_wave(&mut self, c: usize, s: usize, now: u64) {
        let demand = self.e.demand;
        let cu = &mut self.cus[c];
        cu.integrate(now);
        cu.slots.retain(|&x| x != s);
        let w = &mut self.slots[s];
        cu.room.release_wave(&demand, w.simd);
        // The accounting interval closes with the wave; its outstanding stores have already
        // changed memory and its loads have no one left to read them.
        account(
            w,
            &mut self.stalls,
            &mut self.trace,
            now,
            StallReason::Executing,
        );
        if let Some(tr) = &mut self.trace {
            tr.finish(&mut w.trace, w.cu, w.age, now + 1);
        }
        w.block = Block::Ended;
        self.drain = self.drain.max(w.out.last_done().unwrap_or(0));
        w.out.clear();
        let g = w.group;
        let group = self.groups[g].as_mut().expect("resident group");
        group.alive -= 1;
        if group.alive == 0 {
            cu.room.release_group(&demand);
            self.finished.push(g);
        } else {
            self.check_barrier(g, now);
        }
    }

    /// s_wakeup: the group's sleeping waves go on.
    pub fn wakeup(&mut self, g: usize, now: u64) {
        let Some(group) = self.groups[g].as_ref() else {
            return;
        };
        for &s in &group.slots {
            let w = &mut self.slots[s];
            if w.block == Block::Sleep {
                w.ready_at = w.ready_at.min(now + 1);
            }
        }
    }
}
