//! Memory operations between issue and completion, and how their results reach registers late.
//!
//! A memory instruction's semantics run between windows, in completion order
//! ([`super::deferred`]), on a copy of the registers it read at issue; the values it produced
//! become a [`Landing`], written to the wave's registers at the completion cycle in the lanes
//! that were active at issue. A program missing an `s_waitcnt` therefore reads the old values,
//! as on the hardware. (A d16 load lands its whole dword; a write to the other half of the same
//! register between issue and completion would be overwritten. No compiler emits that.)

use crate::hazard::regs::{RegSet, AGPR0};
use crate::wave::{Row, WaitCounters, Wave, SCALAR_CODES, VGPRS, WAVE_SIZE};
use gcn_isa::class::Counters;
use gcn_isa::operand::VGPR0;

/// Register values a load produced, written when it completes.
#[derive(Clone, Debug)]
pub struct Landing {
    /// EXEC at issue: the lanes the load writes.
    exec: u64,
    /// Each VGPR written, then its values: a row, or the lanes of `exec` only when it leaves
    /// some out (a reduction's one lane, whose compare-and-swap loop keeps a landing in
    /// flight for a word, not a row).
    vgprs: Vec<u32>,
    /// AGPRs (a gfx90a load into them): their rows in the wave's register file.
    agprs: Vec<(u16, Row)>,
    sgprs: Vec<(u16, u32)>,
}

impl Landing {
    fn empty() -> Box<Landing> {
        Box::new(Landing {
            exec: 0,
            vgprs: Vec::new(),
            agprs: Vec::new(),
            sgprs: Vec::new(),
        })
    }

    /// The registers of `writes` as `w` holds them, to be written in the lanes of `exec`.
    /// Fills in place, so a recycled landing costs no allocation.
    fn capture(&mut self, w: &Wave, writes: RegSet, exec: u64) {
        self.exec = exec;
        self.vgprs.clear();
        self.agprs.clear();
        self.sgprs.clear();
        // Exactly the words this load writes (a first push would make room for more, and
        // thousands are in flight).
        let rows = writes.vgprs().codes().count();
        let lanes = match exec {
            u64::MAX => WAVE_SIZE,
            _ => exec.count_ones() as usize,
        };
        self.vgprs.reserve_exact(rows * (1 + lanes));
        for code in writes.codes() {
            if code >= AGPR0 {
                let row = w.vgpr.agpr_row((code - AGPR0) as usize);
                if let Some((r, vals)) = row.and_then(|r| Some((r, *w.vgpr.row(r)?))) {
                    self.agprs.push((r as u16, vals));
                }
            } else if code >= VGPR0 {
                let v = code - VGPR0;
                if (v as usize) < VGPRS {
                    self.vgprs.push(v as u32);
                    let row = &w.vgpr[v as usize];
                    match exec {
                        u64::MAX => self.vgprs.extend_from_slice(row),
                        _ => {
                            let mut e = exec;
                            while e != 0 {
                                self.vgprs.push(row[e.trailing_zeros() as usize]);
                                e &= e - 1;
                            }
                        }
                    }
                }
            } else if (code as usize) < SCALAR_CODES {
                self.sgprs.push((code, w.sgpr[code as usize]));
            }
        }
    }
}

impl Landing {
    fn land(&self, w: &mut Wave) {
        match self.exec {
            u64::MAX => {
                for row in self.vgprs.chunks_exact(1 + WAVE_SIZE) {
                    w.vgpr[row[0] as usize].copy_from_slice(&row[1..]);
                }
            }
            exec => {
                for row in self.vgprs.chunks_exact(1 + exec.count_ones() as usize) {
                    let dst = &mut w.vgpr[row[0] as usize];
                    let mut e = exec;
                    for &x in &row[1..] {
                        dst[e.trailing_zeros() as usize] = x;
                        e &= e - 1;
                    }
                }
            }
        }
        for (r, row) in &self.agprs {
            w.write_file_row(*r as usize, row, self.exec);
        }
        for &(c, val) in &self.sgprs {
            w.sgpr[c as usize] = val;
        }
    }
}

/// The registers an operation writes at completion: a load's destination is one range of
/// operand codes, kept in 4 bytes (thousands of operations are in flight in a large launch;
/// a full [`RegSet`] is 64 bytes); any other shape is boxed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Writes {
    Range { first: u16, count: u8 },
    Set(Box<RegSet>),
}

impl Writes {
    pub const NONE: Writes = Writes::Range { first: 0, count: 0 };

    pub fn new(set: RegSet) -> Writes {
        let mut codes = set.codes();
        let Some(first) = codes.next() else {
            return Writes::NONE;
        };
        let (n, last) = codes.fold((1u32, first), |(n, _), c| (n + 1, c));
        match u8::try_from(n) {
            Ok(count) if (last - first) as u32 + 1 == n => Writes::Range { first, count },
            _ => Writes::Set(Box::new(set)),
        }
    }

    pub fn set(&self) -> RegSet {
        match self {
            Writes::Range { first, count } => RegSet::range(*first, *count),
            Writes::Set(s) => **s,
        }
    }
}

/// One issued memory operation.
#[derive(Clone, Debug)]
pub struct InFlight {
    /// Cycle at which it completes.
    pub done: u64,
    pub counters: Counters,
    /// Instruction index, for diagnostics.
    pub index: u32,
    /// The CU's issue number of the request (to attach its landing when it has run).
    pub seq: u64,
    /// Registers it will write at completion.
    pub regs: Writes,
    pub landing: Option<Box<Landing>>,
}

/// The outstanding operations of one wave.
#[derive(Clone, Debug)]
pub struct Outstanding {
    ops: Vec<InFlight>,
    /// Registers some outstanding load will still write.
    pub pending: RegSet,
    /// Completion of the last VM_CNT operation: vector memory returns in issue order.
    pub last_vm: u64,
    /// Completion of the last LDS operation: LDS returns in issue order too (only scalar
    /// memory may return out of order, §4.4).
    pub last_lds: u64,
    /// The earliest completion (u64::MAX if none), kept so the hot path checks one number.
    pub next: u64,
}

/// Landings that have landed, for reuse (one pool per CU): a memory-bound launch lands
/// millions, and each would otherwise cost three allocations. A pool keeps at most
/// [`SPARE_MAX`], so that what it holds stays small beside the CU's waves: the pools are held
/// past the moment their landings were in flight, into the launch's later peaks of memory.
pub type Spare = Vec<Box<Landing>>;

/// Landings a CU keeps for reuse: enough that a memory-bound launch seldom frees one to
/// allocate it again, few enough that the pools add little to a timed run's peak memory.
pub const SPARE_MAX: usize = 16;

/// Keeps landing `l` for reuse if the pool has room.
fn keep(spare: &mut Spare, l: Box<Landing>) {
    if spare.len() < SPARE_MAX {
        spare.push(l);
    }
}

impl Default for Outstanding {
    fn default() -> Self {
        Outstanding {
            ops: Vec::new(),
            pending: RegSet::EMPTY,
            last_vm: 0,
            last_lds: 0,
            next: u64::MAX,
        }
    }
}

impl Outstanding {
    pub fn clear(&mut self, spare: &mut Spare) {
        for l in self.ops.drain(..).filter_map(|op| op.landing) {
            keep(spare, l);
        }
        self.pending = RegSet::EMPTY;
        self.last_vm = 0;
        self.last_lds = 0;
        self.next = u64::MAX;
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The cycle from which `ok` holds of the wave's counters, given that every outstanding
    /// operation decrements its counters at its completion (`u64::MAX` if never).
    pub fn when(
        &self,
        now: u64,
        counters: WaitCounters,
        ok: impl Fn(&WaitCounters) -> bool,
    ) -> u64 {
        if ok(&counters) {
            return now;
        }
        if self.ops.is_sorted_by_key(|o| o.done) {
            let done = self.ops.iter().map(|o| (o.done, o.counters));
            return Self::first_when(now, counters, ok, done);
        }
        self.when_unsorted(now, counters, ok)
    }

    /// [`Outstanding::when`] after a scalar load overtook: on a sorted copy. Out of line, so
    /// the turn that calls `when` keeps a small stack frame.
    #[cold]
    #[inline(never)]
    fn when_unsorted(
        &self,
        now: u64,
        counters: WaitCounters,
        ok: impl Fn(&WaitCounters) -> bool,
    ) -> u64 {
        // On the stack while few are outstanding (the counters' limits keep it so in compiled
        // code); a wave that issued more sorts a vector.
        const FEW: usize = 32;
        let key = |o: &InFlight| (o.done, o.counters);
        if self.ops.len() <= FEW {
            let mut by_done = [(0, Counters::default()); FEW];
            let by_done = &mut by_done[..self.ops.len()];
            for (d, o) in by_done.iter_mut().zip(&self.ops) {
                *d = key(o);
            }
            by_done.sort_unstable_by_key(|d| d.0);
            return Self::first_when(now, counters, ok, by_done.iter().copied());
        }
        let mut by_done: Vec<_> = self.ops.iter().map(key).collect();
        by_done.sort_unstable_by_key(|d| d.0);
        Self::first_when(now, counters, ok, by_done.into_iter())
    }

    /// The first completion time in `done` (in completion order) after which `ok` holds.
    fn first_when(
        now: u64,
        mut counters: WaitCounters,
        ok: impl Fn(&WaitCounters) -> bool,
        done: impl Iterator<Item = (u64, Counters)>,
    ) -> u64 {
        for (t, c) in done {
            counters.complete(c);
            if ok(&counters) {
                return t.max(now);
            }
        }
        u64::MAX
    }

    /// The last completion, if any operation is outstanding (operations still waiting for the
    /// memory system, [`super::memory::PENDING`], are counted when they are answered).
    pub fn last_done(&self) -> Option<u64> {
        self.ops
            .iter()
            .map(|o| o.done)
            .filter(|&d| d != super::memory::PENDING)
            .max()
    }

    /// Sets the completion of the operation issued as request `seq`, which was
    /// [`super::memory::PENDING`]; false if the wave has no such operation (it ended).
    pub fn resolve(&mut self, seq: u64, done: u64) -> bool {
        let Some(op) = self.ops.iter_mut().find(|o| o.seq == seq) else {
            return false;
        };
        op.done = done;
        self.next = self.next.min(done);
        true
    }

    /// The completion of the last vector memory operation, once none is pending any more.
    pub fn settle_last_vm(&mut self, done: u64) {
        self.last_vm = done;
    }

    pub fn push(&mut self, op: InFlight) {
        self.pending = self.pending.union(op.regs.set());
        if op.counters.vm {
            self.last_vm = self.last_vm.max(op.done);
        }
        self.next = self.next.min(op.done);
        self.ops.push(op);
    }

    /// Completes every operation done by cycle `now`, oldest completion first: lands its
    /// registers and decrements its counters. Returns whether anything completed.
    #[inline]
    pub fn complete(&mut self, w: &mut Wave, now: u64, spare: &mut Spare) -> bool {
        if self.next > now {
            return false;
        }
        self.complete_due(w, now, spare);
        true
    }

    #[inline(never)]
    fn complete_due(&mut self, w: &mut Wave, now: u64, spare: &mut Spare) {
        // Issue order is usually completion order already (vector memory and LDS return in
        // order; only scalar memory overtakes).
        if !self.ops.is_sorted_by_key(|o| o.done) {
            self.ops.sort_by_key(|o| o.done);
        }
        let n = self.ops.iter().take_while(|o| o.done <= now).count();
        for op in self.ops.drain(..n) {
            if let Some(l) = op.landing {
                l.land(w);
                keep(spare, l);
            }
            w.counters.complete(op.counters);
        }
        self.pending = self
            .ops
            .iter()
            .fold(RegSet::EMPTY, |acc, o| acc.union(o.regs.set()));
        self.next = self.ops.first().map_or(u64::MAX, |o| o.done);
    }

    /// The outstanding operation that will write a register of `regs`, if any.
    pub fn writer_of(&self, regs: RegSet) -> Option<(&InFlight, RegSet)> {
        self.ops.iter().find_map(|o| {
            let both = o.regs.set().intersect(regs);
            (!both.is_empty()).then_some((o, both))
        })
    }

    /// Gives request `seq` the values of `writes` that it produced in `w` (it ran between
    /// windows), to be written in the lanes of `exec` when it completes.
    pub fn attach(&mut self, seq: u64, w: &Wave, writes: RegSet, exec: u64, spare: &mut Spare) {
        if let Some(op) = self.ops.iter_mut().find(|o| o.seq == seq) {
            let mut landing = spare.pop().unwrap_or_else(Landing::empty);
            landing.capture(w, writes, exec);
            op.landing = Some(landing);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_keep_a_range_small_and_any_set_whole() {
        let dst = RegSet::range(VGPR0 + 8, 4);
        assert_eq!(
            Writes::new(dst),
            Writes::Range {
                first: VGPR0 + 8,
                count: 4
            }
        );
        assert_eq!(Writes::new(dst).set(), dst);
        assert_eq!(Writes::new(RegSet::EMPTY).set(), RegSet::EMPTY);
        let split = RegSet::range(VGPR0 + 8, 2).union(RegSet::range(VGPR0 + 11, 1));
        assert!(matches!(Writes::new(split), Writes::Set(_)));
        assert_eq!(Writes::new(split).set(), split);
    }

    #[test]
    fn load_lands_late_in_issue_lanes() {
        let mut w = Wave::new(0);
        w.vgpr[5] = [1; 64];
        let regs = RegSet::range(VGPR0 + 5, 1).union(RegSet::one(7));
        let mut out = Outstanding::default();
        out.push(InFlight {
            done: 100,
            counters: Counters {
                vm: true,
                ..Counters::default()
            },
            index: 3,
            seq: 9,
            regs: Writes::new(regs),
            landing: None,
        });
        w.counters.vm = 1;
        assert!(out.pending.contains(VGPR0 + 5));
        // The load ran (between windows) on a copy of the wave: v5 = 10, 11 in lanes 0, 1.
        let mut ran = Wave::new(0);
        ran.vgpr[5][0] = 10;
        ran.vgpr[5][1] = 11;
        ran.sgpr[7] = 99;
        let mut spare = Spare::new();
        out.attach(9, &ran, regs, 0b11, &mut spare);
        assert!(!out.complete(&mut w, 99, &mut spare));
        assert_eq!(w.vgpr[5][0], 1);
        // A write to lane 2 in the meantime survives the landing.
        w.vgpr[5][2] = 42;
        assert!(out.complete(&mut w, 100, &mut spare));
        assert_eq!(&w.vgpr[5][..3], &[10, 11, 42]);
        assert_eq!((w.sgpr[7], w.counters.vm), (99, 0));
        assert!(out.pending.is_empty() && out.is_empty());
        // The landing is kept for the next load.
        assert_eq!(spare.len(), 1);
    }
}
