//! Steady turns of a SIMD in the bulk ([`CuSim::bulk_steady`]). While no wave waits for the
//! vector ALU and none is to issue an instruction that keeps it busy past the next turn, the
//! unit is free at every turn, and only the last turn can see a wave leave the masks. A turn
//! then needs no more of a winner than the unit of its next instruction and whether the steady
//! turns stop at it, which [`SimdBulk`] keeps for each lane as a bit string shifted at each
//! issue ([`Lane::pack`]: two bits a code, the unit, or [`STOP`] for a code that is impure,
//! long or another unit's, and for the queue's end, from which the lane's position follows,
//! [`at_of`]). The stalls are counted per turn: every masked wave that does not issue stalls
//! for Issue until the next turn (the lazy intervals are closed before and opened again after;
//! between steady turns that resume where others ended, they are left open, [`Resume`] and
//! [`SimdBulk::deferred`]). A wave held at such a code stalls as any other, and
//! [`CuSim::bulk_run`]'s turn loop takes the turn at which it would issue. The decisions are
//! the turn loop's: for each unit the oldest wave needing it.

use super::{code, in_every_unit, oldest_ready, unit_mask, Code, Lane, SimdBulk};
use super::{BRANCH, IMPURE, MAX_WAVES, OTHER, SCALAR, VALU};
use crate::cu::engine::CuSim;
use crate::cu::issue::CADENCE;

/// Codes the steady turns do not issue: impure ones, those that keep the vector ALU busy
/// longer than a turn (an exponent above 1, see [`code`]), and another unit's.
pub(super) const STOPS: Code = IMPURE | 0b1111_0000;
const _: () = assert!(code(VALU, 4) & STOPS == 0 && code(VALU, 8) & STOPS != 0);

/// A code's two bits in a lane's string where the steady turns stop: a code of [`STOPS`] or
/// another unit's (its own unit is the lane's code's to say), and the queue's end.
pub(super) const STOP: u64 = 3;
const _: () = assert!(OTHER as u64 == STOP);

/// The position of a lane's next instruction, from its queue's end `len` and its string
/// `units` ([`Lane::pack`]), whose highest code is that end: the steady turns move only
/// `units`.
#[inline(always)]
pub(super) fn at_of(len: u8, units: u64) -> u8 {
    len - ((63 - units.leading_zeros()) / 2) as u8
}

impl Lane {
    /// Its queue from the front for the steady turns: two bits a code, its unit or [`STOP`]
    /// (a code of [`STOPS`]), and [`STOP`] for the end of the queue, above which the string is
    /// zero. A lane that holds no queue (its wave did not run ahead) stops at its front.
    pub(super) fn pack(&self) -> u64 {
        let (at, len) = (self.at as u32, self.len as u32);
        if at >= len {
            return STOP;
        }
        // Eight codes a word: a byte with a bit of STOPS gets both unit bits (another unit's
        // has them), and the units are gathered two bits each.
        const LOW: u64 = 0x0101_0101_0101_0101;
        let mut units = 0u64;
        for (k, bytes) in self.code.chunks_exact(8).enumerate() {
            let w = u64::from_le_bytes(bytes.try_into().expect("eight codes"));
            let r = w & (STOPS as u64 * LOW);
            let any = (((r & (0x7f * LOW)) + 0x7f * LOW) | r) >> 7 & LOW;
            let mut u = (w | (any * 3)) & (3 * LOW);
            u = (u | u >> 6) & 0x000f_000f_000f_000f;
            u = (u | u >> 12) & 0x0000_00ff_0000_00ff;
            u = (u | u >> 24) & 0xffff;
            units |= u << (16 * k);
        }
        // (At most AHEAD codes, so the end's two bits fit.)
        const _: () = assert!(2 * crate::cu::ahead::AHEAD + 2 <= 64);
        let n = len - at;
        (units >> (2 * at)) & (u64::MAX >> (64 - 2 * n)) | STOP << (2 * n)
    }
}

/// Where a run of steady turns ended, and the masks it had built from the lanes' strings
/// there, so that the next can begin from them rather than from every lane's strings again:
/// a SIMD's steady turns mostly end at a window's end and go on at the next window's first
/// turn, and nothing changes the lanes in between (the turn loop takes no turn, the pass does
/// not look at a SIMD in the bulk, and entering the bulk again forgets this).
#[derive(Clone, Copy, Debug)]
pub(super) struct Resume {
    /// The turn the steady turns would have taken next (the deferred lanes' `since`,
    /// [`SimdBulk::deferred`]), and the masks then.
    pub(super) t: u64,
    needs: u64,
    after: u64,
    hold: u32,
}

impl Resume {
    pub(super) const NONE: Resume = Resume {
        t: u64::MAX,
        needs: 0,
        after: 0,
        hold: 0,
    };
}

/// What a run of steady turns did, for [`CuSim::bulk_run`]'s own records.
pub(super) struct Steady {
    /// The turn after the last taken (the first if none was).
    pub t: u64,
    /// The bulk's end, brought forward if a wave left the masks.
    pub end: u64,
    pub needs: u64,
    pub impure: u32,
    /// The waves in the masks, and those that issued at the last turn.
    pub ready: u32,
    pub won: u32,
    /// Issue stall cycles closed.
    pub issue_cycles: u64,
    /// Lanes that issued, and the issues by unit (vector ALU, scalar, branch).
    pub moved: u32,
    pub by_unit: [u32; 3],
    /// The lane that took the vector ALU last, and at which turn.
    pub valu: Option<(u32, u64)>,
}

impl CuSim<'_> {
    /// Takes SIMD `k`'s turns from `t`, before `end`, while they are steady (the module
    /// above): no wave waits for the vector ALU, which is free at `t`, and some wave is in the
    /// masks `needs`. Updates the lanes and their strings, and the bulk's horizon.
    #[inline(never)]
    pub(super) fn bulk_steady(
        &mut self,
        b: &mut SimdBulk,
        k: usize,
        t: u64,
        end: u64,
        needs: u64,
        impure: u32,
    ) -> Steady {
        debug_assert!(self.cu.valu_busy[k] <= t);
        let ready = unit_mask(needs, VALU) | unit_mask(needs, SCALAR) | unit_mask(needs, BRANCH);
        // The turns below count every stalled turn; the lazy intervals close at the end.
        let mut s = Steady {
            t,
            end,
            needs,
            impure,
            ready,
            won: 0,
            issue_cycles: 0,
            moved: 0,
            by_unit: [0; 3],
            valu: None,
        };
        let (mut t, mut end, mut needs, mut impure) = (t, end, needs, impure);
        let (mut by_unit, mut moved, mut won_last) = ([0u32; 3], 0u32, 0u32);
        // The turn and lane of the last vector ALU issue, packed: turn << 4 | lane.
        let mut valu_last = u64::MAX;
        // The waves by the unit of the instruction after their next, as `needs` holds them by
        // their next: a turn's winners move from one to the other without a load, which keeps
        // the loads of the lanes' strings out of the chain from one turn's winners to the
        // next's (what a stop changes, the stop sets right); and the waves held at their next.
        // (Any turn taken since the last steady turns moved `t` on, and a wave joining the
        // masks changed `needs`: the lanes in the masks are as the last steady turns left them.)
        let (mut after, mut hold) = (0u64, 0u32);
        if b.resume.t == t && b.resume.needs == needs {
            (after, hold) = (b.resume.after, b.resume.hold);
        } else {
            b.settle();
            let mut m = ready;
            while m != 0 {
                let i = m.trailing_zeros() as usize & (MAX_WAVES - 1);
                m &= m - 1;
                after |= (1u64 << i) << (16 * (b.units[i] >> 2 & 3));
                hold |= ((b.units[i] & 3 == STOP) as u32) << i;
            }
        }
        loop {
            let valu = unit_mask(needs, VALU);
            let (scalar, branch) = (unit_mask(needs, SCALAR), unit_mask(needs, BRANCH));
            // Every wave in the masks is ready, and the vector ALU free.
            let won = oldest_ready(needs, u32::MAX, true);
            // A wave held at a code these turns do not issue takes its unit: the turn loop
            // takes this turn.
            if won & hold != 0 {
                break;
            }
            // Every unit with a wave needing it issues (the turns are steady).
            let units = [valu != 0, scalar != 0, branch != 0];
            for (n, issues) in by_unit.iter_mut().zip(units) {
                *n += issues as u32;
            }
            let at = self.cut.at(t);
            self.cut.pure[at] = units[0] as u8 | (units[1] as u8) << 1 | (units[2] as u8) << 2;
            if valu != 0 {
                valu_last = t << 4 | valu.trailing_zeros() as u64;
            }
            let every = in_every_unit(won);
            needs = needs & !every | after & every;
            after &= !every;
            let mut w = won;
            while w != 0 {
                let i = w.trailing_zeros() as usize & (MAX_WAVES - 1);
                w &= w - 1;
                let bit = 1u64 << i;
                b.units[i] >>= 2;
                if b.units[i] & 3 == STOP {
                    let code = self.steady_stop(b, i, t);
                    hold |= ((b.units[i] & 3 == STOP) as u32) << i;
                    impure |= ((code & IMPURE != 0) as u32) << i;
                    end = end.min(b.horizon);
                    needs = needs & !in_every_unit(bit as u32) | bit << (16 * (code & 3));
                }
                after |= bit << (16 * (b.units[i] >> 2 & 3));
            }
            moved |= won;
            won_last = won;
            t += CADENCE;
            if t >= end {
                break;
            }
        }
        let turns = ((t - s.t) / CADENCE) as u32;
        let issued: u32 = by_unit.iter().sum();
        s.issue_cycles += CADENCE * (turns * ready.count_ones() - issued) as u64;
        // The stall interval each had before these turns closed, and those in them (above);
        // from here it stalls unless it issues. A lane deferred by the last steady turns stalls
        // from this call's first turn: nothing to close. Its `since` is now `t`, and its
        // position follows from its string: both deferred (no lane's line is touched).
        let mut m = ready & !b.deferred;
        while m != 0 {
            let i = m.trailing_zeros() as usize & (MAX_WAVES - 1);
            m &= m - 1;
            s.issue_cycles += s.t.saturating_sub(b.lanes[i].since);
        }
        let gone = b.deferred & !ready;
        if gone != 0 {
            b.settle_lanes(gone);
        }
        b.deferred = ready;
        b.resume = Resume {
            t,
            needs,
            after,
            hold,
        };
        s.valu = (valu_last != u64::MAX).then_some(((valu_last & 15) as u32, valu_last >> 4));
        (s.t, s.end, s.needs, s.impure) = (t, end, needs, impure);
        (s.won, s.moved, s.by_unit) = (won_last, moved, by_unit);
        s
    }

    /// Lane `i` issued at turn `t`, and the steady turns stop at what comes next: its queue
    /// ran out (refilled here, as the turn loop does), or its next instruction is impure or
    /// long. Returns that instruction's code; one that needs another unit takes the wave out
    /// of the masks, and the bulk ends after this turn. Out of line and cold, so that the
    /// turns keep their registers.
    #[cold]
    #[inline(never)]
    fn steady_stop(&mut self, b: &mut SimdBulk, i: usize, t: u64) -> Code {
        let l = &mut b.lanes[i];
        l.at = at_of(l.len, b.units[i]);
        let code = if l.at < l.len {
            l.front()
        } else {
            let code = self.bulk_run_out(l);
            b.units[i] = l.pack();
            code
        };
        if code & 3 == OTHER {
            l.ready_at = t + CADENCE;
            b.horizon = b.horizon.min(t + CADENCE);
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::{at_of, STOP, STOPS};
    use crate::cu::bulk::{code, Lane, BRANCH, IMPURE, NO_LANE, OTHER, SCALAR, VALU};

    /// [`Lane::pack`] gives, from the front, each code's unit or [`STOP`] where the steady
    /// turns stop at it, and [`STOP`] at the queue's end with nothing above, for queues at
    /// every position; and [`at_of`] gives the position back from the string, after any
    /// number of the shifts the turns make.
    #[test]
    fn a_lane_packs_its_queue_from_the_front() {
        let pool = [
            code(VALU, 4),
            code(VALU, 16),
            code(VALU, 256),
            code(SCALAR, 0),
            code(BRANCH, 0),
            code(SCALAR, 0) | IMPURE,
            code(OTHER, 0),
        ];
        let mut seed = 0x9e37_79b9_u32;
        for _ in 0..2000 {
            let mut l: Lane = NO_LANE;
            for c in l.code.iter_mut() {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                *c = pool[(seed >> 24) as usize % pool.len()];
            }
            l.len = (seed >> 8) as u8 % 29;
            l.at = (seed >> 16) as u8 % (l.len + 1);
            let units = l.pack();
            let (at, len) = (l.at as usize, l.len as usize);
            for p in 0..len - at {
                let c = l.code[at + p];
                let stop = c & STOPS != 0 || c & 3 == OTHER;
                let want = if stop { STOP } else { (c & 3) as u64 };
                assert_eq!(units >> (2 * p) & 3, want, "{l:?} at {p}");
            }
            assert_eq!(units >> (2 * (len - at)), STOP, "{l:?}");
            for shifted in 0..=len - at {
                let at = at_of(l.len, units >> (2 * shifted));
                assert_eq!(at as usize, l.at as usize + shifted, "{l:?}");
            }
        }
    }
}
