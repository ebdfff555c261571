//! Turns of a SIMD whose waves run pure instructions ([`super::ahead`]), taken many at a time.
//! While that lasts, a turn's outcome follows from a few bits per wave — which unit its next
//! instruction needs, whether it is waiting for the vector ALU — and the ALU's busy cycle:
//! for each unit the oldest ready wave needing it issues (the vector ALU only when free),
//! every other ready wave stalls. [`SimdBulk`] keeps those bits as masks over the SIMD's waves
//! in age order, with each wave's stall reason and when it began, and carries them from turn
//! to turn and window to window, and the codes of what each wave ran ahead ([`Code`]), so
//! that a turn reads no wave's own records; those ([`super::engine::Hot`], the slot's stall
//! interval) and the queues' positions ([`SimdBulk::dirty`]) are written back only when the
//! SIMD leaves the bulk ([`CuSim::bulk_leave`]), before anything else looks at them. The
//! instructions count as they issue here, each cycle's noted for a stop of the CU at an earlier
//! cycle to take back ([`super::cut`]).
//!
//! Stall intervals are kept lazily: a wave in the masks that is not waiting for the vector ALU
//! is ready at every turn, so it either issues or stalls for Issue, and stalls from the turn
//! after its last issue until its next; a lane keeps only that turn ([`Lane::since`]), its
//! Issue cycles are added when it issues, and nothing is written for the waves that stall. Only
//! the vector ALU's waiters (Dependency on their own instruction, Issue on another's) keep an
//! explicit interval, closed when the unit is free. Leaving, a lane that issued at the last
//! turn executes, any other stalls for Issue from its turn: the intervals the pass would hold.
//!
//! The results are those of the pass ([`CuSim::take_turn`]) under oldest-first arbitration, turn by turn: the same issues,
//! the same stall reasons from the same cycles, the same next turn. What the pass does and
//! this does not is unobservable here: it lands completed memory operations of each wave it
//! looks at (a wave with registers still to land runs nothing ahead, and issues here only
//! after they land, as below; the rest, counter decrements, nothing here reads, and the next
//! look does them).
//!
//! While no wave waits for the vector ALU and none issues one that keeps it busy past the next
//! turn, the turns are steady ([`steady`]) and read less of each wave still.
//!
//! A wave whose next instruction is not pure stays in the masks while it needs the vector ALU,
//! the scalar unit or the branch unit: as long as an older wave takes that unit, it stalls as
//! a pure one would. At the turn it takes it, an instruction whose issue reaches nothing beyond
//! its wave — a scalar load, or an ALU instruction that could not run ahead because a load of
//! the wave is outstanding — issues here as the pass issues it ([`super::issue::issue`], after
//! the wave's completed loads land, if its counters allow; a guest stop there comes with its
//! cycle); at any other, the SIMD leaves the bulk and the pass issues it. (Requests so issued
//! may come before, in host order, those the pass issues at earlier cycles of other SIMDs: the
//! dispatcher puts a CU's requests in issue order, [`super::device`].) A wave that needs another
//! unit, or waits (s_waitcnt, s_nop), bounds the bulk with the cycle the pass would next look
//! at it (its horizon); there, a wave at an s_waitcnt is looked at here as the pass would
//! (it issues, and joins the masks after that turn, or waits on), and any other makes the
//! SIMD leave the bulk ([`CuSim::bulk_at_horizon`]). Nothing of other SIMDs changes these waves:
//! barriers release, and s_wakeup ends, only waves that wait there, and a SIMD with such a
//! wave does not enter the bulk; new waves join between windows, and the SIMD leaves the
//! bulk first. The SIMD may so run ahead of the CU's other SIMDs to the end of a window.
//!
//! Only for oldest-first arbitration without raised priorities, and only where nothing
//! records the order of issues across SIMDs (the Chrome trace, the trace-level log, the run-time
//! hazard tracker, the issue log near the end of the budget).

use super::ahead::{End, AHEAD_CODES};
use super::arbiter::busy_reason;
use super::config::Arbitration;
use super::engine::{account, counters_hold, turn, Block, CuSim};
use super::facts::{Latency, Special, Unit};
use super::issue::{self, CADENCE};
use super::stats::StallReason;
use crate::launch::Stop;

mod steady;

/// What [`CuSim::bulk_at_horizon`] finds: the turn's issues (cycle, by unit, not pure), none
/// (the pass must take the turn), or a guest stop with its cycle and group.
type AtHorizon = Result<Option<(u64, u32, u32)>, (u64, Stop, [u32; 3])>;

/// Waves of one SIMD the masks hold (a SIMD holds at most 10).
const MAX_WAVES: usize = 16;

/// An instruction as the turns read it, a byte a queued instruction
/// ([`super::ahead::Ahead`]): bits 0–1 the unit it needs ([`VALU`], [`SCALAR`], [`BRANCH`],
/// or [`OTHER`]), bit 2 [`IMPURE`] where it may not issue here, bits 3–5 the cycles it keeps
/// the vector ALU busy ([`valu_cycles`]; none for the other units). A byte, so that a lane
/// with its codes is one cache line: the turns of a CU's window find each lane they touch
/// gone from the cache (the other CUs ran their windows since).
pub type Code = u8;
pub const VALU: u8 = 0;
pub const SCALAR: u8 = 1;
pub const BRANCH: u8 = 2;
/// Another unit, or none: the turns stop at it.
pub const OTHER: u8 = 3;
/// It did not run ahead: the bulk issues it only as the pass would ([`CuSim::bulk_may_issue`]),
/// else the pass issues it ([`super::issue::issue`]).
pub const IMPURE: Code = 4;

/// The code of an instruction of `unit` that keeps the vector ALU busy for `valu_cycles`: 0,
/// or a power of two from 4 to 256 ([`super::facts::valu_cycles`]), kept as its exponent.
pub const fn code(unit: u8, valu_cycles: u16) -> Code {
    assert!(valu_cycles == 0 || valu_cycles.is_power_of_two() && valu_cycles >= 4);
    assert!(valu_cycles <= 256);
    let exponent = match valu_cycles {
        0 => 0,
        c => c.trailing_zeros() as u8 - 1,
    };
    unit | exponent << 3
}

/// The cycles an instruction of code `code` keeps the vector ALU busy (0: none).
#[inline(always)]
pub fn valu_cycles(code: Code) -> u64 {
    match code >> 3 {
        0 => 0,
        e => 2 << e,
    }
}

/// One wave of a SIMD in the bulk: one cache line, which is all a turn reads of a wave.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Lane {
    /// The codes of its queue ([`super::ahead::Ahead`]), copied when it ran ahead, so that
    /// the turns read no wave's own records, and the queue's positions: of the next
    /// instruction here (the queue's own is brought up to date when the SIMD leaves the bulk,
    /// [`SimdBulk::dirty`]) and past the last.
    code: [Code; LANE_CODES],
    at: u8,
    len: u8,
    /// Its stall accounting's open interval: the reason, and since when; for a lane accounted
    /// lazily ([`SimdBulk::lazy`]), `since` alone: the cycle from which it stalls for Issue
    /// unless it issues.
    reason: StallReason,
    /// Its wave slot.
    slot: u32,
    /// Its [`super::engine::Hot::ready_at`] as of the last write. Not written when it issues
    /// and stays in the masks: it is ready at the next turn then, so only at the last turn
    /// does it matter, and [`CuSim::bulk_leave`] takes it from [`SimdBulk::winners`] (and
    /// that turn + 1 for one that stalled for a unit, [`SimdBulk::stalled`]).
    ready_at: u64,
    since: u64,
}

const _: () = assert!(std::mem::size_of::<Lane>() == 64);

impl Lane {
    /// Its wave slot, as an index.
    #[inline(always)]
    fn slot(&self) -> usize {
        self.slot as usize
    }
}

/// Codes a lane holds (the longest run, rounded up to a power of two).
const LANE_CODES: usize = AHEAD_CODES;

const NO_LANE: Lane = Lane {
    slot: u32::MAX,
    ready_at: 0,
    reason: StallReason::Issue,
    since: 0,
    code: [0; LANE_CODES],
    at: 0,
    len: 0,
};

impl Lane {
    /// The code of its next instruction, issuable here (at < len).
    #[inline(always)]
    fn front(&self) -> Code {
        self.code[self.at as usize & (LANE_CODES - 1)]
    }
}

/// The masks of the waves needing each unit, by [`Code`] unit, packed in one word: 16 bits
/// each (the vector ALU's lowest; [`OTHER`]'s, the top 16, is never read).
#[inline(always)]
fn unit_mask(needs: u64, unit: u8) -> u32 {
    (needs >> (16 * unit as u32)) as u32 & 0xffff
}

/// The issue rule ([`super::arbiter`]) on the masks: the `ready` waves in age order (with no
/// wave of a raised priority, the issue order), by the unit they need, the vector ALU's held
/// unless `valu_free` (a ready wave in the masks is held by nothing else: one that did not run
/// ahead is checked by [`CuSim::bulk_may_issue`]).
#[inline(always)]
fn oldest_ready(needs: u64, ready: u32, valu_free: bool) -> u32 {
    let valu = match valu_free {
        true => unit_mask(needs, VALU),
        false => 0,
    };
    let by_unit = [valu, unit_mask(needs, SCALAR), unit_mask(needs, BRANCH)];
    super::arbiter::winners(by_unit, ready)
}

/// The parts of a packed mask word the turns track: the vector ALU's, the scalar unit's and
/// the branch unit's (not [`OTHER`]'s).
const TRACKED: u64 = 0xffff_ffff_ffff;

/// `waves` in each unit's part of a packed mask word.
#[inline(always)]
fn in_every_unit(waves: u32) -> u64 {
    (waves as u64) * 0x0001_0001_0001_0001
}

/// A SIMD's waves while its turns run in bulk (bits in age order): the masks in the first
/// cache line, then a line per wave, then what the steady turns read of each.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct SimdBulk {
    /// Waves whose next instruction needs each unit the turns track: the vector ALU, the
    /// scalar unit, the branch unit ([`unit_mask`]).
    needs: u64,
    /// The last turn taken.
    last: u64,
    /// The earliest cycle the pass would look at a wave outside the masks (one that waits, or
    /// needs another unit): the turns stop there, and go on only if the waves due then are at
    /// an s_waitcnt ([`CuSim::bulk_at_horizon`]).
    horizon: u64,
    n: usize,
    /// Of the waves in the masks, the ones whose next instruction is not pure.
    impure: u32,
    /// Waves waiting for the vector ALU (ready at the CU's `valu_busy` of this SIMD).
    waiting: u32,
    /// Waves whose stall accounting the turns keep lazily ([`Lane::since`]): those in the
    /// masks, while they do not wait for the vector ALU.
    lazy: u32,
    /// Waves that issued, and that stalled for a taken unit, at the last turn taken.
    winners: u32,
    stalled: u32,
    /// Turns taken since the SIMD entered the bulk.
    turns: u32,
    /// Lanes whose position moved since their queue's own was last written: written when the
    /// SIMD leaves the bulk (nothing else reads a queue's position meanwhile: the pass looks
    /// only at SIMDs outside the bulk, and a queue that runs out is written as it is refilled),
    /// or when the launch stops ([`CuSim::bulk_leave_all`]).
    dirty: u32,
    active: bool,
    lanes: [Lane; MAX_WAVES],
    /// Per lane, its queue from the front as the steady turns read it ([`Lane::pack`]): two
    /// bits a code, its unit or where the steady turns stop (bits 0–1: the front).
    units: [u64; MAX_WAVES],
    /// What the last steady turns ended with, for the next to begin from
    /// ([`steady::Resume`]).
    resume: steady::Resume,
    /// Lanes whose `since` and `at` the last steady turns left unwritten: `since` is the
    /// resumption's turn, `at` follows from the lane's string ([`steady::at_of`]). Written
    /// ([`SimdBulk::settle`]) before anything but the next steady turns reads the lanes.
    deferred: u32,
}

impl SimdBulk {
    /// Writes the deferred lanes' `since` and `at`.
    #[inline]
    fn settle(&mut self) {
        if self.deferred != 0 {
            self.settle_lanes(self.deferred);
        }
    }

    #[cold]
    #[inline(never)]
    fn settle_lanes(&mut self, lanes: u32) {
        self.deferred &= !lanes;
        let mut m = lanes;
        while m != 0 {
            let i = m.trailing_zeros() as usize & (MAX_WAVES - 1);
            m &= m - 1;
            let l = &mut self.lanes[i];
            l.since = self.resume.t;
            l.at = steady::at_of(l.len, self.units[i]);
        }
    }
}

impl Default for SimdBulk {
    fn default() -> Self {
        SimdBulk {
            active: false,
            n: 0,
            lanes: [NO_LANE; MAX_WAVES],
            units: [0; MAX_WAVES],
            resume: steady::Resume::NONE,
            deferred: 0,
            needs: 0,
            impure: 0,
            waiting: 0,
            lazy: 0,
            winners: 0,
            stalled: 0,
            last: 0,
            horizon: u64::MAX,
            turns: 0,
            dirty: 0,
        }
    }
}

impl CuSim<'_> {
    /// Takes SIMD `simd`'s turns from `now` (a turn at which one of its waves may issue) up
    /// to `stop` in bulk, as far as its waves allow: false if not even the first (the SIMD
    /// has left the bulk, and the pass takes this turn). Out of line: [`CuSim::step`] checks
    /// the cheap conditions first, and the pass stays small where this never runs.
    #[inline(never)]
    pub(super) fn bulk_turns(
        &mut self,
        simd: u8,
        now: u64,
        stop: u64,
    ) -> Result<bool, (u64, Stop, [u32; 3])> {
        let k = simd as usize;
        debug_assert!(self.e.config.arbitration == Arbitration::OldestFirst);
        debug_assert_eq!(self.cu.raised[k], 0);
        // The caller checked `bulk_window`, and that the SIMD may try to enter again: where
        // the bulk did not hold for long lately, it does not try at every turn, since
        // entering costs a look at every wave (the outcome is the same either way).
        debug_assert!(self.bulk_window && now >= self.bulk_retry[k]);
        // A barrier wait that began in an earlier window must not time out in this one (the
        // pass checks at each issue; one that begins in this window cannot, see run_window).
        let allowed = self.barrier_min == u64::MAX
            || stop - self.barrier_min <= self.e.config.barrier_timeout;
        if !allowed {
            self.bulk_leave(simd);
            return Ok(false);
        }
        if !self.bulk[k].as_ref().is_some_and(|b| b.active) && !self.bulk_enter(simd, now) {
            return Ok(false);
        }
        // Boxed, so that taking it out while the turns borrow the CU moves a pointer.
        let mut b = self.bulk[k].take().expect("entered");
        // Mostly the SIMD's turns are steady from here to the window's end (where the last
        // window's left them): taken and recorded without the turn loop's setting up.
        let first = self.bulk_first_steady(&mut b, k, now, stop);
        let taken = match first {
            Some(s) if s.t >= stop => {
                self.bulk_steady_to_stop(&mut b, k, now, &s);
                Ok(true)
            }
            first => self.bulk_run(&mut b, simd, now, stop, first),
        };
        let turns = b.turns;
        self.bulk[k] = Some(b);
        match taken {
            Ok(true) => {}
            // A guest stop: the waves' records and positions are written back for its report.
            Err(_) => self.bulk_leave(simd),
            Ok(false) => {
                self.bulk_back_off(k, turns, now);
                self.bulk_leave(simd);
            }
        }
        taken
    }

    /// SIMD `k`'s bulk did not hold at turn `now`, after `turns` turns: when to try again.
    /// After a short stay (or none) it waits twice as long as after the last one (2^n turns,
    /// up to 64); after a long one, a turn.
    fn bulk_back_off(&mut self, k: usize, turns: u32, now: u64) {
        let n = &mut self.bulk_backoff[k];
        *n = if turns >= 8 { 0 } else { (*n + 1).min(6) };
        self.bulk_retry[k] = now + (CADENCE << *n);
    }

    /// Puts SIMD `simd`'s waves into the bulk at turn `now`, if none waits at a barrier or in
    /// s_sleep, and some wave the pass would look at now is pure. (Out of line: most calls of
    /// [`CuSim::bulk_turns`] find the SIMD in the bulk.)
    #[inline(never)]
    fn bulk_enter(&mut self, simd: u8, now: u64) -> bool {
        let k = simd as usize;
        let n = self.cu.simd_slots[k].len();
        if n == 0 || n > MAX_WAVES {
            return false;
        }
        // Waves at a barrier or asleep rule it out: another SIMD's wave may release the
        // barrier, or end the sleep, at any cycle. (Checked first: the look below runs waves
        // ahead.)
        let waits = |s: &usize| matches!(self.hot[*s].block, Block::Barrier | Block::Sleep);
        if self.cu.simd_slots[k].iter().any(waits) {
            self.bulk_back_off(k, 0, now);
            return false;
        }
        let mut b = self.bulk[k].take().unwrap_or_default();
        debug_assert_eq!(b.deferred, 0, "settled when it left");
        (b.resume, b.deferred) = (steady::Resume::NONE, 0);
        b.n = n;
        b.needs = 0;
        b.impure = 0;
        b.waiting = 0;
        b.lazy = 0;
        b.winners = 0;
        b.stalled = 0;
        b.last = now;
        b.horizon = u64::MAX;
        let busy = self.cu.valu_busy[k];
        let mut ok = true;
        for i in 0..n {
            let s = self.cu.simd_slots[k][i];
            let h = self.hot[s];
            let l = &mut b.lanes[i];
            l.slot = s as u32;
            l.ready_at = h.ready_at;
            l.reason = h.reason;
            l.since = h.since;
            (l.at, l.len) = (0, 0);
            match h.block {
                Block::Barrier | Block::Sleep | Block::Ended => {
                    ok = false;
                    break;
                }
                // They wait until `ready_at`, and the pass looks at them from then on.
                Block::Waitcnt | Block::Nop => b.horizon = b.horizon.min(h.ready_at),
                Block::None => {
                    let code = self.bulk_load(&mut b.lanes[i]);
                    b.units[i] = b.lanes[i].pack();
                    let unit = code & 3;
                    if unit != OTHER && (h.ready_at <= now || unit == VALU && h.ready_at == busy) {
                        b.needs |= 1 << (16 * unit as u32 + i as u32);
                        b.impure |= ((code & IMPURE != 0) as u32) << i;
                        let waits = h.ready_at > now;
                        b.waiting |= (waits as u32) << i;
                        // A ready wave's interval goes over to the lazy accounting (below);
                        // one for another reason, or a Dependency one begun in the future,
                        // stays with the pass (not seen).
                        let lazy = !waits
                            && match h.reason {
                                StallReason::Issue | StallReason::Executing => true,
                                StallReason::Dependency => h.since <= now,
                                _ => false,
                            };
                        ok &= waits || lazy;
                        b.lazy |= (lazy as u32) << i;
                    } else {
                        b.horizon = b.horizon.min(h.ready_at);
                    }
                }
            }
        }
        let any =
            unit_mask(b.needs, VALU) | unit_mask(b.needs, SCALAR) | unit_mask(b.needs, BRANCH);
        ok &= b.horizon > now && any & !b.impure != 0;
        if ok {
            // A lazy lane's `since` is the cycle from which it stalls for Issue unless it
            // issues: for one stalling already, when that began; for one executing, or waiting
            // for its own instruction until now (closed here, as the pass would close it at
            // this turn whatever it does), this turn.
            let mut m = b.lazy;
            while m != 0 {
                let l = &mut b.lanes[m.trailing_zeros() as usize & (MAX_WAVES - 1)];
                m &= m - 1;
                match l.reason {
                    StallReason::Issue => {}
                    StallReason::Dependency => {
                        self.stalls.cycles[DEPENDENCY] += now - l.since;
                        l.since = now;
                    }
                    _ => l.since = now,
                }
            }
        }
        b.active = ok;
        b.turns = 0;
        self.bulk[k] = Some(b);
        if !ok {
            self.bulk_back_off(k, 0, now);
        }
        ok
    }

    /// Every SIMD leaves the bulk: for what reads the waves' records and queues from outside
    /// the turns (the launch's end, a report of where every wave is).
    pub fn bulk_leave_all(&mut self) {
        for simd in 0..self.bulk.len() {
            self.bulk_leave(simd as u8);
        }
    }

    /// Writes SIMD `simd`'s waves' records back and ends its bulk (nothing if not in it).
    pub(super) fn bulk_leave(&mut self, simd: u8) {
        let Some(b) = self.bulk[simd as usize].as_mut() else {
            return;
        };
        if !b.active {
            return;
        }
        b.settle();
        b.active = false;
        let mut d = std::mem::take(&mut b.dirty);
        while d != 0 {
            let l = &b.lanes[d.trailing_zeros() as usize & (MAX_WAVES - 1)];
            d &= d - 1;
            self.aheads[l.slot()].set_head(l.at);
        }
        for (i, l) in b.lanes[..b.n].iter_mut().enumerate() {
            let h = &mut self.hot[l.slot()];
            let bit = 1 << i;
            h.ready_at = if b.winners & bit != 0 {
                b.last + CADENCE
            } else if b.stalled & bit != 0 {
                b.last + 1
            } else {
                l.ready_at
            };
            // A lazy lane executes if it issued at the last turn, else stalls for Issue from
            // `since`; the others kept their interval explicitly.
            (h.reason, h.since) = match () {
                _ if b.lazy & bit == 0 => (l.reason, l.since),
                _ if b.winners & bit != 0 => (StallReason::Executing, b.last),
                _ => (StallReason::Issue, l.since),
            };
        }
    }

    /// The steady turns from `now`, if [`CuSim::bulk_run`]'s loop would begin with them.
    #[inline(always)]
    fn bulk_first_steady(
        &mut self,
        b: &mut SimdBulk,
        k: usize,
        now: u64,
        stop: u64,
    ) -> Option<steady::Steady> {
        let end = stop.min(b.horizon);
        let steady =
            now < end && b.waiting == 0 && self.cu.valu_busy[k] <= now && b.needs & TRACKED != 0;
        steady.then(|| self.bulk_steady(b, k, now, end, b.needs, b.impure))
    }

    /// Records steady turns `s` that reached the window's end, as [`CuSim::bulk_run`] records
    /// its turns when it took only those.
    fn bulk_steady_to_stop(&mut self, b: &mut SimdBulk, k: usize, now: u64, s: &steady::Steady) {
        if let Some((owner, at)) = s.valu {
            self.cu.valu_busy[k] = at + CADENCE;
            self.cu.valu_owner[k] = b.lanes[owner as usize & (MAX_WAVES - 1)].slot();
        }
        self.count_pure(s.by_unit.map(u64::from));
        self.stalls.cycles[ISSUE] += s.issue_cycles;
        b.dirty |= s.moved;
        (b.needs, b.impure) = (s.needs, s.impure);
        let last = s.t - CADENCE;
        (b.winners, b.stalled, b.last) = (s.won, s.ready & !s.won, last);
        b.turns += ((s.t - now) / CADENCE) as u32;
        self.cu.stepped = Some(self.cu.stepped.map_or(last, |p| p.max(last)));
        self.cu.simd_next[k] = s.t;
    }

    /// The turns themselves: from `now` while the bulk holds, up to `stop`, the first of them
    /// steady turns already taken if `first` (by [`CuSim::bulk_first_steady`]). False if not
    /// even the first could be taken here; a guest stop met by an instruction issued as the
    /// pass issues it ([`CuSim::bulk_may_issue`]) comes with its cycle.
    #[inline(never)]
    fn bulk_run(
        &mut self,
        b: &mut SimdBulk,
        simd: u8,
        now: u64,
        stop: u64,
        mut first: Option<steady::Steady>,
    ) -> Result<bool, (u64, Stop, [u32; 3])> {
        let k = simd as usize;
        let mut busy = self.cu.valu_busy[k];
        let mut t = now;
        // The masks in locals (registers) for the loop; written back after it. What changes
        // rarely (the vector ALU's owner, the horizon) stays where it is kept.
        let mut needs = b.needs;
        let (mut impure, mut waiting) = (b.impure, b.waiting);
        let mut lazy = b.lazy;
        // Stall cycles of Issue and Dependency closed here.
        let (mut issue_cycles, mut dep_cycles) = (0u64, 0u64);
        let (mut winners, mut stalled, mut last, mut turns) = (0, 0, 0, 0);
        let mut next = self.cu.simd_next[k];
        let mut end = stop.min(b.horizon);
        // Lanes that issued, and the issues of pure instructions by unit.
        let (mut moved, mut by_unit) = (0u32, [0u64; 3]);
        let mut stopped = None;
        // Waves that issued at this turn outside the masks (at the horizon) and join them
        // after it, by unit, and those of them not pure.
        let (mut join, mut join_impure) = (0u64, 0u32);
        'turns: loop {
            while t < end {
                if join == 0 && waiting == 0 && busy <= t && needs & TRACKED != 0 {
                    // Nothing waits for the vector ALU: steady turns ([`steady`]) as far as they go.
                    let s = match first.take() {
                        Some(s) => s,
                        None => self.bulk_steady(b, k, t, end, needs, impure),
                    };
                    issue_cycles += s.issue_cycles;
                    if let Some((owner, at)) = s.valu {
                        busy = at + CADENCE;
                        self.cu.valu_owner[k] = b.lanes[owner as usize & (MAX_WAVES - 1)].slot();
                    }
                    if s.t > t {
                        (needs, impure, end) = (s.needs, s.impure, s.end);
                        moved |= s.moved;
                        for (n, m) in by_unit.iter_mut().zip(s.by_unit) {
                            *n += m as u64;
                        }
                        (winners, stalled, last) = (s.won, s.ready & !s.won, s.t - CADENCE);
                        turns += ((s.t - t) / CADENCE) as u32;
                        t = s.t;
                        next = t;
                        continue;
                    }
                }
                // The turn loop reads and writes the lanes.
                b.settle();
                let valu_free = busy <= t;
                if valu_free && waiting != 0 {
                    // The vector ALU's waiters are ready again: their explicit intervals close as
                    // the pass would close them at this turn, and they go back to lazy.
                    let mut c = waiting;
                    while c != 0 {
                        let l = &mut b.lanes[c.trailing_zeros() as usize & (MAX_WAVES - 1)];
                        c &= c - 1;
                        let since = t.max(l.since);
                        match l.reason {
                            StallReason::Issue => issue_cycles += since - l.since,
                            StallReason::Dependency => dep_cycles += since - l.since,
                            _ => {}
                        }
                        l.since = since;
                    }
                    lazy |= waiting;
                    waiting = 0;
                }
                let valu = unit_mask(needs, VALU);
                let (scalar, branch) = (unit_mask(needs, SCALAR), unit_mask(needs, BRANCH));
                let ready = (valu | scalar | branch) & !waiting;
                let won = oldest_ready(needs, ready, valu_free);
                if won & impure != 0 && !self.bulk_may_issue(b, won & impure, t) {
                    break 'turns;
                }
                // The vector ALU's waiters wait until it is free, on their own instruction or
                // another's.
                // (Their lazy Issue stall until now closes, and they wait explicitly from now.)
                if !valu_free {
                    let mut c = ready & valu;
                    waiting |= c;
                    lazy &= !c;
                    while c != 0 {
                        let i = c.trailing_zeros() as usize;
                        c &= c - 1;
                        let l = &mut b.lanes[i & (MAX_WAVES - 1)];
                        issue_cycles += t.saturating_sub(l.since);
                        l.reason = busy_reason(l.slot() == self.cu.valu_owner[k]);
                        l.since = t.max(l.since);
                        l.ready_at = busy;
                    }
                }
                // The others try again next turn, stalling for Issue: lazily, nothing to write.
                stalled = ready & !won & !waiting;
                needs &= !in_every_unit(won);
                // Issue in age order, as the pass does.
                let mut w = won;
                while w != 0 {
                    let i = w.trailing_zeros() as usize;
                    w &= w - 1;
                    let bit = 1u32 << i;
                    let l = &mut b.lanes[i & (MAX_WAVES - 1)];
                    // It stalled for Issue from `since` to now (if at all); from the next turn it
                    // stalls unless it issues again.
                    issue_cycles += t.saturating_sub(l.since);
                    l.since = t + CADENCE;
                    moved |= bit;
                    let next = if bit & impure == 0 {
                        // The instruction ran ahead and was counted then: it takes its unit, and
                        // the wave's next instruction comes from the queue, or from the next run.
                        let code = l.front();
                        let valu_cycles = valu_cycles(code);
                        if valu_cycles != 0 {
                            busy = t + valu_cycles;
                            self.cu.valu_owner[k] = l.slot();
                        }
                        l.at += 1;
                        by_unit[code as usize & 3] += 1;
                        let at = self.cut.at(t);
                        self.cut.pure[at] |= 1 << (code & 3);
                        if l.at < l.len {
                            b.units[i & (MAX_WAVES - 1)] >>= 2;
                            l.front()
                        } else {
                            let next = self.bulk_run_out(l);
                            b.units[i & (MAX_WAVES - 1)] = l.pack();
                            next
                        }
                    } else {
                        self.cu.valu_busy[k] = busy;
                        let next = self.bulk_issue(b, i & (MAX_WAVES - 1), t);
                        busy = self.cu.valu_busy[k];
                        match next {
                            Ok(next) => {
                                impure &= !bit;
                                next
                            }
                            Err(stop) => {
                                stopped = Some(stop);
                                break 'turns;
                            }
                        }
                    };
                    needs |= (bit as u64) << (16 * (next & 3));
                    // Rarely: it needs another unit, or issues through the pass (the bulk
                    // leaves when it would).
                    if next & 7 >= OTHER as Code {
                        if next & 3 == OTHER as Code {
                            b.lanes[i & (MAX_WAVES - 1)].ready_at = t + CADENCE;
                            b.horizon = b.horizon.min(t + CADENCE);
                            end = end.min(b.horizon);
                        }
                        if next & IMPURE != 0 {
                            impure |= bit;
                        }
                    }
                }
                winners = won;
                last = t;
                turns += 1;
                // A wave that issued, or stalled for a unit, may issue at the SIMD's next turn:
                // nothing comes sooner; nor does one that issued at the horizon.
                if join != 0 {
                    needs |= join;
                    impure |= join_impure;
                    (join, join_impure) = (0, 0);
                    t += CADENCE;
                    next = t;
                    continue;
                }
                if stalled | won != 0 {
                    t += CADENCE;
                    next = t;
                    continue;
                }
                next = (if waiting != 0 { busy } else { u64::MAX }).min(b.horizon.max(t + 1));
                if next == u64::MAX {
                    break 'turns;
                }
                t = turn(next, simd);
            }
            // The turns reached the stop, or the horizon: the waves there may be at an s_waitcnt,
            // which issues or waits here as the pass would do it.
            if t >= stop || t < b.horizon {
                break;
            }
            let masked =
                unit_mask(needs, VALU) | unit_mask(needs, SCALAR) | unit_mask(needs, BRANCH);
            let outside = (u32::MAX >> (32 - b.n)) & !(masked | waiting);
            b.settle();
            match self.bulk_at_horizon(b, t, outside, &mut lazy, &mut moved) {
                Ok(Some((j, ji, looked))) => {
                    // Whether the waves looked at are pure is their next instructions' to say.
                    (join, join_impure) = (j, ji);
                    impure &= !looked;
                    end = stop.min(b.horizon);
                    // (A wait ends after this turn; should one not, the pass takes the turn
                    // rather than the bulk looking again.)
                    if end <= t {
                        break;
                    }
                }
                Ok(None) => break,
                Err(stop) => {
                    stopped = Some(stop);
                    break;
                }
            }
        }
        self.count_pure(by_unit);
        b.dirty |= moved;
        b.needs = needs;
        (b.impure, b.waiting) = (impure, waiting);
        b.lazy = lazy;
        self.stalls.cycles[ISSUE] += issue_cycles;
        self.stalls.cycles[DEPENDENCY] += dep_cycles;
        self.cu.valu_busy[k] = busy;
        if let Some(stop) = stopped {
            return Err(stop);
        }
        if turns == 0 {
            return Ok(false);
        }
        (b.winners, b.stalled, b.last) = (winners, stalled, last);
        b.turns += turns;
        self.cu.stepped = Some(self.cu.stepped.map_or(last, |p| p.max(last)));
        self.cu.simd_next[k] = next;
        Ok(true)
    }

    /// Lane `i`'s wave issues at turn `t` an instruction that did not run ahead, as the pass
    /// issues it (counted there), and the code of what comes next: from a run, or not pure
    /// either. Out of line, so that the turn loop stays as small as it was for the runs ahead.
    #[cold]
    #[inline(never)]
    fn bulk_issue(
        &mut self,
        b: &mut SimdBulk,
        i: usize,
        t: u64,
    ) -> Result<Code, (u64, Stop, [u32; 3])> {
        let l = &mut b.lanes[i];
        let s = l.slot();
        // Its Issue stall until now was closed lazily, as for any winner.
        let h = &mut self.hot[s];
        (h.reason, h.since) = (StallReason::Executing, t);
        let category = self.e.facts[self.slots[s].wave.pc as usize].category;
        issue::issue(self, s, t).map_err(|(stop, group)| (t, stop, group))?;
        self.cut_impure(t, s, category);
        let next = self.bulk_load(l);
        b.units[i] = l.pack();
        Ok(next)
    }

    /// At turn `t`, the bulk's horizon: the waves `outside` the masks that are ready by then are
    /// looked at as the pass would look at them, if each is at an s_waitcnt (no unit; a wait
    /// that ran out ends, its completed loads land): it issues if its counters allow, and its
    /// next instruction joins the masks after this turn (returned: by unit, and whether not
    /// pure, with the waves looked at), or it waits for them. `None` if some wave there needs
    /// the pass. The horizon moves to the next such wave.
    #[cold]
    #[inline(never)]
    fn bulk_at_horizon(
        &mut self,
        b: &mut SimdBulk,
        t: u64,
        outside: u32,
        lazy: &mut u32,
        moved: &mut u32,
    ) -> AtHorizon {
        let facts = self.e.facts;
        let mut due = 0u32;
        let mut m = outside;
        while m != 0 {
            let i = m.trailing_zeros() as usize & (MAX_WAVES - 1);
            m &= m - 1;
            let l = &b.lanes[i];
            if l.ready_at > t {
                continue;
            }
            let s = l.slot();
            let waits = facts
                .get(self.slots[s].wave.pc as usize)
                .is_some_and(|f| matches!(f.special, Special::Waitcnt(_)));
            if !waits || !matches!(self.hot[s].block, Block::None | Block::Waitcnt) {
                return Ok(None);
            }
            due |= 1 << i;
        }
        // Their records come from their lanes from here, not from the last turn taken.
        (b.winners, b.stalled) = (b.winners & !due, b.stalled & !due);
        let (mut join, mut join_impure, mut stays) = (0u64, 0u32, outside);
        let mut m = due;
        while m != 0 {
            let i = m.trailing_zeros() as usize & (MAX_WAVES - 1);
            m &= m - 1;
            let bit = 1u32 << i;
            let l = &mut b.lanes[i];
            let s = l.slot();
            // Its interval goes back to its record, where the pass's look and issue close it.
            let h = &mut self.hot[s];
            (h.reason, h.since) = match *lazy & bit {
                0 => (l.reason, l.since),
                _ => (StallReason::Issue, l.since),
            };
            *lazy &= !bit;
            let slot = &mut self.slots[s];
            slot.out.complete(&mut slot.wave, t, &mut self.spare);
            if h.block == Block::Waitcnt {
                h.block = Block::None;
                let ready_at = l.ready_at;
                account(
                    h,
                    slot,
                    &mut self.stalls,
                    &mut self.trace,
                    ready_at,
                    StallReason::Issue,
                );
            }
            let f = &facts[slot.wave.pc as usize];
            if let Some(until) = counters_hold(slot, f, t) {
                (h.block, h.ready_at) = (Block::Waitcnt, until);
                account(
                    h,
                    slot,
                    &mut self.stalls,
                    &mut self.trace,
                    t,
                    StallReason::Waitcnt,
                );
                (l.reason, l.since, l.ready_at) = (h.reason, h.since, until);
                continue;
            }
            issue::issue(self, s, t).map_err(|(stop, group)| (t, stop, group))?;
            self.cut_impure(t, s, f.category);
            // From the next turn it stalls unless it issues, as any winner.
            *lazy |= bit;
            *moved |= bit;
            (l.since, l.ready_at) = (t + CADENCE, t + CADENCE);
            let next = self.bulk_load(l);
            b.units[i] = l.pack();
            join |= (bit as u64) << (16 * (next & 3));
            join_impure |= ((next & IMPURE != 0) as u32) << i;
            if next & 3 != OTHER {
                stays &= !bit;
            }
        }
        let mut horizon = u64::MAX;
        let mut m = stays;
        while m != 0 {
            horizon = horizon.min(b.lanes[m.trailing_zeros() as usize & (MAX_WAVES - 1)].ready_at);
            m &= m - 1;
        }
        b.horizon = horizon;
        Ok(Some((join, join_impure, due)))
    }

    /// Whether the waves `waves`, which take their units at turn `t` with instructions that
    /// did not run ahead, may issue them here as the pass would: nothing of their issue
    /// reaches beyond the wave (a vector, scalar or branch instruction, or a scalar load,
    /// that changes no wave state but the wave's own: no s_setprio, s_sleep, s_nop, s_wakeup),
    /// and its counters let it issue. What the pass does first is done here: the wave's
    /// completed memory operations land (as its look would land them; the pass, if it takes
    /// this turn after all, finds nothing more to land).
    #[cold]
    #[inline(never)]
    fn bulk_may_issue(&mut self, b: &SimdBulk, waves: u32, t: u64) -> bool {
        let mut m = waves;
        while m != 0 {
            let l = &b.lanes[m.trailing_zeros() as usize & (MAX_WAVES - 1)];
            m &= m - 1;
            let s = l.slot();
            let slot = &mut self.slots[s];
            let Some(f) = self.e.facts.get(slot.wave.pc as usize) else {
                return false;
            };
            let own = matches!(f.unit, Unit::Valu | Unit::Scalar | Unit::Branch)
                && f.special == Special::None
                && matches!(f.latency, Latency::None | Latency::Smem);
            // (A queue's last instruction that faulted or ended the flow issues through the
            // pass.)
            if l.at < l.len || !own {
                return false;
            }
            slot.out.complete(&mut slot.wave, t, &mut self.spare);
            if counters_hold(slot, f, t).is_some() {
                return false;
            }
        }
        true
    }

    /// Loads lane `l` with the codes of its wave's queue, running it ahead if the queue is
    /// empty and it can; returns the code of its next instruction (one that did not run ahead
    /// is [`IMPURE`], and the lane holds none).
    fn bulk_load(&mut self, l: &mut Lane) -> Code {
        let s = l.slot();
        if self.aheads[s].is_empty() && !super::ahead::run(self, s) {
            (l.at, l.len) = (self.aheads[s].head(), self.aheads[s].head());
            let pc = self.slots[s].wave.pc as usize;
            let code = self
                .e
                .facts
                .get(pc)
                .map_or(OTHER as Code, |f| f.bulk_code | IMPURE);
            // Kept at the front for [`Lane::pack`], though not in the queue.
            l.code[l.at as usize & (LANE_CODES - 1)] = code;
            return code;
        }
        let a = &self.aheads[s];
        // One store of the whole array, which `Lane::pack` reads back at once.
        l.code = *a.codes();
        (l.at, l.len) = (a.head(), a.len());
        l.front()
    }

    /// Lane `l` issued the last instruction of its wave's run: the spin detector's look at a
    /// taken backward branch, and the code of what comes next.
    #[inline(never)]
    fn bulk_run_out(&mut self, l: &mut Lane) -> Code {
        let s = l.slot();
        let a = &mut self.aheads[s];
        a.set_head(l.at - 1);
        let (index, end) = a.pop();
        self.note_pop(s);
        if end == End::BackEdge {
            self.back_edge(s, index);
        }
        self.bulk_load(l)
    }
}

/// Where [`StallReason::Issue`] and [`StallReason::Dependency`] count in the stall cycles.
const ISSUE: usize = StallReason::Issue.index().unwrap();
const DEPENDENCY: usize = StallReason::Dependency.index().unwrap();

#[cfg(test)]
mod tests {
    use crate::cu::stats::StallReason;
    use crate::cu::test_launch::{outcome, Outcome, LOOP};
    use crate::cu::{Arbitration, TimingConfig};
    use gcn_isa::Target;

    /// Runs `text` as six workgroups of four waves on one CU (six waves per SIMD, contending
    /// for its units) under oldest-first arbitration and `budget`, with the run-ahead and bulk
    /// turns on or off.
    fn run(text: &str, budget: u64, ahead: bool) -> Outcome {
        let config = TimingConfig {
            cus: 1,
            arbitration: Arbitration::OldestFirst,
            ahead,
            ..TimingConfig::for_target(Target::Gfx900)
        };
        outcome(text, (6, 256), &config, budget)
    }

    #[test]
    fn a_code_keeps_every_rate_s_cycles() {
        use crate::cu::bulk::{code, valu_cycles, VALU};
        use crate::cu::facts;
        use gcn_isa::Rate;
        for target in [Target::Gfx900, Target::Gfx906] {
            for rate in [Rate::Full, Rate::Quarter, Rate::Double, Rate::DoubleQuarter] {
                let cycles = facts::valu_cycles(rate, target);
                let c = code(VALU, cycles);
                assert_eq!(c & 7, VALU, "{rate:?}");
                assert_eq!(valu_cycles(c), cycles as u64, "{rate:?} on {target:?}");
            }
        }
        assert_eq!(valu_cycles(code(VALU, 0)), 0);
    }

    #[test]
    fn bulk_turns_give_the_statistics_of_the_pass() {
        let with = run(LOOP, 1_000_000, true);
        let without = run(LOOP, 1_000_000, false);
        assert_eq!(with, without);
        let stats = with.0.expect("the loop ends");
        let stall = |r: StallReason| stats.stalls.cycles[r.index().unwrap()];
        // The waves contend for their units and wait for the quarter-rate multiply.
        assert!(stall(StallReason::Issue) > 0 && stall(StallReason::Dependency) > 0);
        // A budget that just suffices: the last windows log every issue, so the pass takes
        // their turns, from the records the bulk writes back as it leaves.
        for spare in [1, 10, 100] {
            let budget = with.1.wave_instructions + spare;
            let near = run(LOOP, budget, true);
            assert_eq!(near, run(LOOP, budget, false), "budget {budget}");
            assert_eq!(near.0, Ok(stats.clone()), "budget {budget}");
        }
    }

    /// Waves load a scalar in every turn of their loop and run vector and scalar instructions
    /// before they wait for it (nothing runs ahead while a load is outstanding), one of which
    /// reads the load's destination early, and store and load every fourth turn, each wave of a
    /// group at a different one (so that the SIMDs fall out of step, and the loads queue for
    /// the texture unit and complete between the SIMD's turns): the bulk issues the
    /// loads, those instructions and the s_waitcnt (at its horizon) as the pass does, with the same statistics (the stale read
    /// included), counts and buffer as without bulk turns.
    #[test]
    fn instructions_that_did_not_run_ahead_issue_in_bulk_as_in_the_pass() {
        let text = LOOP.replace(
            "again:\n",
            "    v_mov_b32 v5, s3\n    v_add_co_u32 v4, vcc, s2, v3\n    \
                 v_addc_co_u32 v5, vcc, 0, v5, vcc\n    v_readfirstlane_b32 s9, v0\n    \
                 s_lshr_b32 s9, s9, 6\n\
                 again:\n    s_load_dword s6, s[0:1], 0x4\n    v_add_u32 v1, v1, v0\n    \
                 s_add_u32 s7, s6, 1\n    s_waitcnt vmcnt(0) lgkmcnt(0)\n    \
                 s_add_u32 s8, s4, s9\n    s_and_b32 s8, s8, 3\n    s_cmp_lg_u32 s8, 0\n    \
                 s_cbranch_scc1 skip\n    global_store_dword v[4:5], v1, off\n    \
                 global_load_dword v6, v[4:5], off\n\
                 skip:\n",
        );
        let with = run(&text, 1_000_000, true);
        assert_eq!(with, run(&text, 1_000_000, false));
        let stats = with.0.expect("the loop ends");
        assert!(
            stats.stale_reads.iter().any(|r| r.hits > 0),
            "{:?}",
            stats.stale_reads
        );
    }

    /// A wave faults while the others still loop in bulk: the launch stops with the queues'
    /// positions written back, so the counts leave out what ran ahead and did not issue, as
    /// without bulk turns.
    #[test]
    fn a_stop_while_others_loop_counts_only_what_issued() {
        let faulting = LOOP.replace(
            "    global_store_dword",
            "    s_load_dword s6, s[2:3], 0xffff0\n    s_waitcnt lgkmcnt(0)\n    global_store_dword",
        );
        let with = run(&faulting, 1_000_000, true);
        assert!(
            with.0.as_ref().is_err_and(|e| e.starts_with("Fault")),
            "{:?}",
            with.0
        );
        assert_eq!(with, run(&faulting, 1_000_000, false));
    }

    /// One wave of each group traps at issue in the loop's 23rd turn while the CU's other
    /// SIMDs take their turns in bulk, ahead of its cycle: the stop, and the counts and budget
    /// of what issued before it, are those without bulk turns.
    #[test]
    fn a_stop_at_issue_counts_only_what_issued_before_its_cycle() {
        let trapping = LOOP
            .replace(
                "again:\n",
                "    v_readfirstlane_b32 s9, v0\n    s_lshr_b32 s9, s9, 6\nagain:\n",
            )
            .replace(
                "    s_cmp_lg_u32 s4, 40\n",
                "    s_cmp_eq_u32 s4, 23\n    s_cbranch_scc0 go\n    s_cmp_eq_u32 s9, 2\n    \
                 s_cbranch_scc0 go\n    s_trap 2\ngo:\n    s_cmp_lg_u32 s4, 40\n",
            );
        let with = run(&trapping, 1_000_000, true);
        assert!(
            with.0.as_ref().is_err_and(|e| e.contains("Trap")),
            "{:?}",
            with.0
        );
        assert_eq!(with, run(&trapping, 1_000_000, false));
    }

    /// The budget runs out while the waves loop: near its end the turns are the pass's again
    /// (it logs each issue), from the waves' records as the bulk left them.
    #[test]
    fn the_budget_runs_out_where_it_would_without_bulk_turns() {
        let forever = LOOP.replace("s_cmp_lg_u32 s4, 40", "s_cmp_lg_u32 s4, 0");
        for budget in [3_001, 7_777] {
            let with = run(&forever, budget, true);
            assert_eq!(with, run(&forever, budget, false), "budget {budget}");
            assert!(
                with.0.as_ref().is_err_and(|e| e.starts_with("Budget")),
                "{:?}",
                with.0
            );
        }
    }
}
