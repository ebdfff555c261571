//! Turns of a SIMD whose waves all have pure instructions next ([`super::ahead`]), taken many
//! at a time. While that lasts, a turn's outcome follows from a few numbers per wave — when
//! it may issue, which unit its next instruction needs — and the SIMD's vector ALU: for each
//! unit the oldest ready wave needing it issues (the vector ALU only if it is free), every
//! other ready wave stalls. [`CuSim::bulk_turns`] keeps those numbers in masks and small
//! arrays, turn after turn up to the end of the window, and writes the waves' state back at
//! the end; the instructions themselves ran ahead.
//!
//! The results are those of [`CuSim::step`]'s age-order pass, turn by turn: the same issues,
//! the same stall reasons from the same cycles, the same next turn. What the pass does and
//! this does not is unobservable here: it lands completed memory operations of each wave it
//! looks at (a wave with registers still to land is not pure; the rest, counter decrements,
//! nothing here reads, and the next look does them), and it notes a unit an older wave took
//! ([`super::engine::Hot::waits_for`]), which only saves it a look with the same outcome.
//! Nothing of other SIMDs can change these waves within a window: barriers release, and
//! s_wakeup ends, only waves that wait, and no wave here waits; workgroups are placed between
//! windows. So the SIMD may run ahead of the CU's other SIMDs to the end of the window.
//!
//! Only for oldest-first arbitration without raised priorities, and only where nothing
//! records the order of issues across SIMDs (the Chrome trace, the trace-level log, the run-time
//! hazard tracker, the issue log near the end of the budget).

use super::ahead::End;
use super::config::Arbitration;
use super::engine::{turn, Block, CuSim, NO_UNIT};
use super::facts::Unit;
use super::issue::CADENCE;
use super::stats::{StallReason, Stalls};
use crate::launch::spin::{Epoch, SpinState};
use crate::launch::{category_index, Stop};

/// Waves of one SIMD the masks hold (a SIMD holds at most 10).
const MAX_WAVES: usize = 16;

/// The units pure instructions use, by their index in [`Unit`].
const UNITS_USED: [Unit; 3] = [Unit::Valu, Unit::Scalar, Unit::Branch];

/// What a turn knows of one wave.
#[derive(Clone, Copy)]
struct Lane {
    slot: usize,
    ready_at: u64,
    reason: StallReason,
    since: u64,
}

impl CuSim<'_> {
    /// Runs SIMD `simd`'s turns from `now` (a turn at which one of its waves may issue) up to
    /// `stop` in bulk if its waves allow it: Ok(false) if not, and nothing changed but
    /// instructions run ahead.
    pub(super) fn bulk_turns(
        &mut self,
        simd: u8,
        now: u64,
        stop: u64,
    ) -> Result<bool, (Stop, [u32; 3])> {
        let k = simd as usize;
        debug_assert!(self.e.config.arbitration == Arbitration::OldestFirst);
        debug_assert_eq!(self.cu.raised[k], 0);
        let n = self.cu.simd_slots[k].len();
        if n == 0
            || n > MAX_WAVES
            || self.trace.is_some()
            || self.log_issues
            || self.hazards.is_some()
            // A barrier that started waiting in this window cannot time out before it ends.
            || stop - now > self.e.config.barrier_timeout
            || tracing::enabled!(tracing::Level::TRACE)
        {
            return Ok(false);
        }
        let mut lanes = [Lane {
            slot: 0,
            ready_at: 0,
            reason: StallReason::Issue,
            since: 0,
        }; MAX_WAVES];
        // Waves (bits, in age order) whose next instruction needs each unit of UNITS_USED,
        // and those of them whose next instruction is not pure: while an older wave takes its
        // unit such a wave stalls as a pure one would; when it would take it, the bulk ends.
        let mut needs = [0u32; 3];
        let mut impure = 0u32;
        // The first turn at which a wave that needs none of those units may issue: the bulk
        // ends before it.
        let mut horizon = stop;
        for i in 0..n {
            let s = self.cu.simd_slots[k][i];
            let h = self.hot[s];
            match h.block {
                // Another SIMD's wave may release the barrier, or end the sleep, at any cycle.
                Block::Barrier | Block::Sleep | Block::Ended => return Ok(false),
                // They wait until `ready_at`, and the pass looks at them from then on.
                Block::Waitcnt | Block::Nop => horizon = horizon.min(h.ready_at),
                Block::None => {
                    if !self.bulk_class(s, i, &mut needs, &mut impure) {
                        horizon = horizon.min(h.ready_at);
                    }
                }
            }
            let g = self.groups[self.slots[s].group].as_ref();
            if g.is_some_and(|g| {
                g.barrier_since != u64::MAX
                    && stop - g.barrier_since > self.e.config.barrier_timeout
            }) {
                return Ok(false);
            }
            let w = &self.slots[s];
            lanes[i] = Lane {
                slot: s,
                ready_at: h.ready_at,
                reason: w.reason,
                since: w.since,
            };
        }
        if horizon <= now {
            return Ok(false);
        }
        let lanes = &mut lanes[..n];
        let mut busy = self.cu.valu_busy[k];
        let mut owner = self.cu.valu_owner[k];
        let mut t = now;
        // When the SIMD next has a wave that may issue, as of the last turn taken.
        let mut next = now;
        while t < horizon {
            let mut ready = 0u32;
            for (i, l) in lanes.iter().enumerate() {
                ready |= ((l.ready_at <= t) as u32) << i;
            }
            // For each unit the oldest ready wave needing it takes it (the vector ALU only
            // when free).
            let valu_free = busy <= t;
            let mut winners = 0u32;
            for (u, &need) in needs.iter().enumerate() {
                let c = ready & need;
                if u != 0 || valu_free {
                    winners |= c & c.wrapping_neg();
                }
            }
            if winners & impure != 0 {
                if t == now {
                    return Ok(false);
                }
                break;
            }
            // The others stall: the vector ALU's until it is free, on their own instruction or
            // another's; the rest try again next turn.
            for (u, &need) in needs.iter().enumerate() {
                let mut c = ready & need & !winners;
                while c != 0 {
                    let i = c.trailing_zeros() as usize;
                    c &= c - 1;
                    let l = &mut lanes[i];
                    if u == 0 && !valu_free {
                        let r = if l.slot == owner {
                            StallReason::Dependency
                        } else {
                            StallReason::Issue
                        };
                        Self::account_lane(&mut self.stalls, l, t, r);
                        l.ready_at = busy;
                    } else {
                        Self::account_lane(&mut self.stalls, l, t, StallReason::Issue);
                        l.ready_at = t + 1;
                    }
                }
            }
            // Issue in age order, as the pass does.
            while winners != 0 {
                let i = winners.trailing_zeros() as usize;
                winners &= winners - 1;
                let l = &mut lanes[i];
                Self::account_lane(&mut self.stalls, l, t, StallReason::Executing);
                l.ready_at = t + CADENCE;
                let s = l.slot;
                let index = self.slots[s].next_index();
                let f = &self.e.facts[index as usize];
                for need in needs.iter_mut() {
                    *need &= !(1 << i);
                }
                if f.unit == Unit::Valu {
                    busy = t + f.valu_cycles as u64;
                    owner = s;
                }
                self.bulk_issue(s);
                if !self.bulk_class(s, i, &mut needs, &mut impure) {
                    horizon = horizon.min(t + CADENCE);
                }
            }
            self.cu.stepped = Some(self.cu.stepped.map_or(t, |p| p.max(t)));
            next = lanes
                .iter()
                .map(|l| l.ready_at.max(t + 1))
                .min()
                .expect("waves");
            t = turn(next, simd);
        }
        for l in lanes.iter() {
            let h = &mut self.hot[l.slot];
            h.ready_at = l.ready_at;
            h.waits_for = NO_UNIT;
            let w = &mut self.slots[l.slot];
            w.reason = l.reason;
            w.since = l.since;
        }
        self.cu.valu_busy[k] = busy;
        self.cu.valu_owner[k] = owner;
        self.cu.simd_next[k] = next;
        Ok(true)
    }

    /// [`super::engine::account`] on a wave's copy in the bulk.
    #[inline(always)]
    fn account_lane(stalls: &mut Stalls, l: &mut Lane, t: u64, r: StallReason) {
        if l.reason == r {
            return;
        }
        let t = t.max(l.since);
        if let Some(i) = l.reason.index() {
            stalls.cycles[i] += t - l.since;
        }
        l.reason = r;
        l.since = t;
    }

    /// Notes in `needs` the unit wave `s` (bit `i`) needs next, and in `impure` whether that
    /// instruction is not pure (ran ahead now if it can be, and issuable in bulk: a run that
    /// ended in a fault leaves its last instruction to [`super::issue::issue`]). False if it
    /// needs another unit, or none.
    #[inline(always)]
    fn bulk_class(&mut self, s: usize, i: usize, needs: &mut [u32; 3], impure: &mut u32) -> bool {
        let pure = super::ahead::ready(self, s) && {
            let a = &self.slots[s].ahead;
            a.left() > 1 || !matches!(a.end(), End::Fault(_) | End::Flow(_))
        };
        let index = self.slots[s].next_index();
        let Some(f) = self.e.facts.get(index as usize) else {
            return false;
        };
        let Some(u) = UNITS_USED.iter().position(|&x| x == f.unit) else {
            return false;
        };
        needs[u] |= 1 << i;
        if !pure {
            *impure |= 1 << i;
        } else {
            *impure &= !(1 << i);
        }
        true
    }

    /// Issues wave `s`'s next instruction, which ran ahead: the counts, and the spin
    /// detector's look at a taken backward branch.
    #[inline(always)]
    fn bulk_issue(&mut self, s: usize) {
        let slot = &mut self.slots[s];
        let (index, end) = slot.ahead.pop();
        slot.wave.instructions += 1;
        let d = &self.e.program.insts[index as usize];
        self.issued += 1;
        self.counts.wave_instructions += 1;
        self.counts.by_category[category_index(d.class.category)] += 1;
        if let Some(End::BackEdge) = end {
            let group = self.groups[slot.group].as_ref().expect("resident group");
            let epoch = Epoch {
                memory: self.mem_epoch,
                lds: group.lds.writes(),
            };
            let env = self.e.env;
            self.spin_seen |=
                SpinState::back_edge(&mut slot.wave, index, epoch, env.spin_limit, env.vgprs);
        }
    }
}
