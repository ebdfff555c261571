//! racecheck's memory of the accesses to one location (an LDS byte, or a dword of global memory)
//! within a workgroup: its last write, and a read since, each with the wave, lane, instruction and
//! the wave's barrier epoch (how many `s_barrier`s it had passed). All waves of a workgroup pass
//! each barrier together, so accesses of two waves are ordered exactly when their epochs differ;
//! in the same epoch they race if at least one writes and they are not both atomics. A mark also
//! holds which bytes of the location it touched, so that waves using different bytes of one dword
//! do not race.

use super::Access;

/// One access remembered for a location, in one word: a history of two is 16 bytes, so that a
/// chunk of them (one per dword) takes a kilobyte and a row of 64 lanes' marks four cache lines.
/// (At 32 bytes a history, racecheck's stores of a row of `p[i]`'s marks were most of a checked
/// streaming kernel's time beyond the functional run's.) One field, so that a mark is stored
/// with one store and the next lane's access of the location reads it back at once: a load of
/// a mark stored in parts waits for them to reach the cache.
///
/// Bits: the wave's barrier epoch [23:0] ([`EPOCHS`] of them), the instruction's index
/// [46:24] (saturated at 2^23 - 1: an instruction past it is named as that one in a report),
/// the wave [50:47], the lane [56:51], the flags [59:57] and the bytes of the location it
/// touched [63:60] (bit i: byte i).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark(u64);

/// Barrier epochs a mark tells apart. A workgroup's epochs start where the last one's ended
/// ([`crate::lds::Lds::epoch`]), so this bounds the barriers of many workgroups, not of one;
/// the LDS starts again from 0 (clearing the histories) before its epochs reach half of it.
/// The last one is of no wave: loads to LDS are written in it. (One workgroup passing some
/// eight million barriers would see its epochs wrap, and its reports be unreliable from there.)
pub const EPOCHS: u32 = 1 << 24;
const INDEX: u32 = 24;
const WAVE: u32 = 47;
const LANE: u32 = 51;
const FLAGS: u32 = 57;
const MASK: u32 = 60;

pub const VALID: u8 = 1;
pub const ATOMIC: u8 = 2;
/// Read by more than one wave in the mark's epoch.
pub const MANY: u8 = 4;

impl Mark {
    pub fn new(epoch: u32, index: u32, wave: u32, lane: u8, access: Access, mask: u8) -> Mark {
        let flags = VALID | if access == Access::Atomic { ATOMIC } else { 0 };
        Mark(
            (epoch & (EPOCHS - 1)) as u64
                | (index.min((1 << (WAVE - INDEX)) - 1) as u64) << INDEX
                | ((wave & 0xf) as u64) << WAVE
                | ((lane & 0x3f) as u64) << LANE
                | (flags as u64) << FLAGS
                | ((mask & 0xf) as u64) << MASK,
        )
    }

    /// The wave's barrier epoch at the access.
    #[inline]
    pub fn epoch(self) -> u32 {
        self.0 as u32 & (EPOCHS - 1)
    }

    /// The instruction's index.
    #[inline]
    pub fn index(self) -> u32 {
        (self.0 >> INDEX) as u32 & ((1 << (WAVE - INDEX)) - 1)
    }

    #[inline]
    pub fn wave(self) -> u8 {
        (self.0 >> WAVE) as u8 & 0xf
    }

    #[inline]
    pub fn lane(self) -> u8 {
        (self.0 >> LANE) as u8 & 0x3f
    }

    #[inline]
    pub fn flags(self) -> u8 {
        (self.0 >> FLAGS) as u8 & 0x7
    }

    /// The bytes of the location it touched (bit i: byte i).
    #[inline]
    pub fn mask(self) -> u8 {
        (self.0 >> MASK) as u8
    }

    /// The same access by lane `lane`.
    #[inline]
    pub fn with_lane(self, lane: u8) -> Mark {
        Mark(self.0 & !(0x3f << LANE) | ((lane & 0x3f) as u64) << LANE)
    }

    /// The same access by lane `lane` of bytes `mask` of the location.
    #[inline]
    pub fn with_lane_and_mask(self, lane: u8, mask: u8) -> Mark {
        let fields = 0x3f << LANE | 0xf << MASK;
        Mark(self.0 & !fields | ((lane & 0x3f) as u64) << LANE | ((mask & 0xf) as u64) << MASK)
    }

    #[inline]
    fn add_flags(&mut self, flags: u8) {
        self.0 |= ((flags & 0x7) as u64) << FLAGS;
    }

    #[inline]
    fn add_mask(&mut self, mask: u8) {
        self.0 |= ((mask & 0xf) as u64) << MASK;
    }

    #[inline]
    pub fn valid(self) -> bool {
        self.flags() & VALID != 0
    }

    /// Whether it is a valid access of barrier interval `base` or a later one (of the
    /// workgroup whose first interval is `base`, for initcheck's writes).
    #[inline]
    pub fn since(self, base: u32) -> bool {
        self.valid() && self.epoch() >= base
    }

    /// Whether it is an access of barrier interval `epoch` (one that may race with another of
    /// it).
    #[inline]
    pub fn of_epoch(self, epoch: u32) -> bool {
        self.valid() && self.epoch() == epoch & (EPOCHS - 1)
    }

    /// What the access did, as the report names it.
    pub fn write_kind(self) -> Access {
        if self.flags() & ATOMIC != 0 {
            Access::Atomic
        } else {
            Access::Store
        }
    }
}

/// The earlier access of a racing pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub mark: Mark,
    pub access: Access,
}

/// The history of one location.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    pub write: Mark,
    pub read: Mark,
}

impl Cell {
    /// No access: [`Cell::default`], as a constant.
    pub const EMPTY: Cell = Cell {
        write: Mark(0),
        read: Mark(0),
    };

    /// Records access `me` (a load, a store, or an atomic checked once as both) and returns the
    /// earlier access it races with, if any. Always in line: a call returns the race through
    /// the stack, written in parts and read back whole, which stalls.
    #[inline(always)]
    pub fn access(&mut self, me: Mark, access: Access) -> Option<Conflict> {
        let w = self.write;
        // The usual case first: nothing in the location's history is of this barrier interval
        // (a first access, or the first since a barrier), so nothing races and the access
        // simply becomes the history of its kind.
        if !w.of_epoch(me.epoch()) && !self.read.of_epoch(me.epoch()) {
            match access {
                Access::Load => self.read = me,
                Access::Store | Access::Atomic => self.write = me,
            }
            return None;
        }
        let concurrent =
            |m: Mark| m.valid() && m.epoch() == me.epoch() && m.mask() & me.mask() != 0;
        let other_write = concurrent(w) && w.wave() != me.wave();
        match access {
            Access::Load => {
                let r = &mut self.read;
                if r.valid() && r.epoch() == me.epoch() && r.wave() == me.wave() {
                    r.add_mask(me.mask());
                } else if concurrent(*r) {
                    r.add_flags(MANY);
                } else {
                    *r = me;
                }
                if other_write {
                    return raced(w, w.write_kind());
                }
                None
            }
            Access::Store | Access::Atomic => {
                let atomic = access == Access::Atomic;
                let r = self.read;
                self.write = me;
                if other_write && !(atomic && w.flags() & ATOMIC != 0) {
                    return raced(w, w.write_kind());
                }
                if concurrent(r) && (r.wave() != me.wave() || r.flags() & MANY != 0) {
                    return raced(r, Access::Load);
                }
                None
            }
        }
    }
}

impl Cell {
    /// Records access `me` by each lane in `lanes` (`me` with the lane's number put in), in lane
    /// order, of this one location, and hands each lane's race to `found`, as recording them
    /// one by one does; for the lanes of one instruction on one address (a counter, a running
    /// minimum, a flag), with at most three recorded. After the first lane, the location's
    /// other access is the instruction's own: a load then leaves the history as it is and
    /// meets the same write, a store or an atomic meets the same read and replaces its own
    /// write; so from the second lane on every lane finds what the second finds, and the last
    /// lane's write is the one left.
    #[inline]
    pub fn access_lanes(
        &mut self,
        lanes: u64,
        me: Mark,
        access: Access,
        mut found: impl FnMut(u8, Conflict),
    ) {
        if lanes == 0 {
            return;
        }
        let first = lanes.trailing_zeros() as u8;
        if let Some(k) = self.access(me.with_lane(first), access) {
            found(first, k);
        }
        let rest = lanes & (lanes - 1);
        if rest == 0 {
            return;
        }
        let second = rest.trailing_zeros() as u8;
        let last = 63 - rest.leading_zeros() as u8;
        let k = self.access(me.with_lane(second), access);
        let mut middle = rest & (rest - 1) & !(1 << last);
        if let Some(k) = k {
            found(second, k);
            while middle != 0 {
                let l = middle.trailing_zeros() as u8;
                middle &= middle - 1;
                found(l, k);
            }
        }
        if last != second {
            if let Some(k) = self.access(me.with_lane(last), access) {
                found(last, k);
            }
        }
    }
}

impl Cell {
    /// Becomes `new` if `on`, else stays as it is, with no branch: lanes off in EXEC at random
    /// (a histogram's empty bins) mispredicted a branch per lane.
    #[inline(always)]
    pub fn select(&mut self, on: bool, new: Cell) {
        let m = (on as u64).wrapping_neg();
        self.write.0 = new.write.0 & m | self.write.0 & !m;
        self.read.0 = new.read.0 & m | self.read.0 & !m;
    }

    /// Whether access `me` of this location by the wave of `me` would race with nothing here
    /// whatever its bytes: every access of the barrier interval in the history is the wave's
    /// own, and for a store or an atomic the interval's read is not shared with another wave
    /// (a read by several waves races with a write by any of them).
    #[inline(always)]
    pub fn own(&self, me: Mark, access: Access) -> bool {
        let (epoch, wave) = (me.epoch(), me.wave());
        let w = self.write;
        let r = self.read;
        let other_write = w.of_epoch(epoch) & (w.wave() != wave);
        let shared = (access != Access::Load) & (r.flags() & MANY != 0);
        let other_read = r.of_epoch(epoch) & ((r.wave() != wave) | shared);
        !(other_write | other_read)
    }

    /// What the accesses of several lanes of one instruction leave in an [`Cell::own`]
    /// history, as [`Cell::access`] lane by lane leaves it: a load makes the first lane's mark
    /// the interval's read, or adds its bytes to the wave's read already there (`all`, the
    /// bytes of every lane); a store or an atomic leaves the last lane's mark (`last`). For a
    /// caller that knows the history is its wave's own without looking (a chunk of global
    /// histories no other wave has touched in the interval).
    #[inline(always)]
    pub fn record_own(&mut self, first: Mark, last: Mark, all: u8, access: Access) {
        match access {
            Access::Load => {
                let mut r = if self.read.of_epoch(first.epoch()) {
                    self.read
                } else {
                    first
                };
                r.add_mask(all);
                self.read = r;
            }
            Access::Store | Access::Atomic => self.write = last,
        }
    }

    /// Records the accesses of this location by the lanes of one instruction (`first` the
    /// first lane's mark, `last` the last's, `all` the bytes of them all), as [`Cell::access`]
    /// lane by lane does, when none of them can race ([`Cell::own`]); false, with nothing
    /// recorded, otherwise. For the lanes of a row of bytes or halves sharing a dword.
    #[inline(always)]
    pub fn access_own(&mut self, first: Mark, last: Mark, all: u8, access: Access) -> bool {
        if !self.own(first, access) {
            return false;
        }
        self.record_own(first, last, all, access);
        true
    }
}

/// The race with `mark`, built out of line: built in line, the compiler makes it whether or not
/// there is a race and picks one after, through the stack, which stalls every access.
#[cold]
#[inline(never)]
fn raced(mark: Mark, access: Access) -> Option<Conflict> {
    Some(Conflict { mark, access })
}

/// Records access `me` of each of the locations `cells` (the bytes of one LDS access), and
/// returns the index of the first no one had written since interval `base` (for a load or an
/// atomic, which reads) and
/// the first race, as recording them one by one does. Locations with one history — the bytes an
/// earlier access of the same size left, the usual case — are recorded once and copied: the
/// same history and the same access give the same result. Always in line, so that `me` stays
/// in registers: a mark made per lane in memory and read back in a call stalls every access.
#[inline(always)]
pub fn access_run(
    cells: &mut [Cell],
    me: Mark,
    access: Access,
    base: u32,
) -> (Option<usize>, Option<Conflict>) {
    let reads = access != Access::Store;
    let Some((first, rest)) = cells.split_first_mut() else {
        return (None, None);
    };
    if rest.iter().all(|c| c == first) {
        let unwritten = (reads && !first.write.since(base)).then_some(0);
        let conflict = first.access(me, access);
        rest.fill(*first);
        return (unwritten, conflict);
    }
    let mut unwritten = None;
    let mut conflict = None;
    for (i, cell) in cells.iter_mut().enumerate() {
        if reads && !cell.write.since(base) && unwritten.is_none() {
            unwritten = Some(i);
        }
        let c = cell.access(me, access);
        conflict = conflict.or(c);
    }
    (unwritten, conflict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(epoch: u32, wave: u32, access: Access, mask: u8) -> Mark {
        Mark::new(epoch, 10 + wave, wave, 0, access, mask)
    }

    #[test]
    fn waves_race_within_an_epoch_only() {
        let mut c = Cell::default();
        assert_eq!(
            c.access(mark(0, 0, Access::Store, 0xf), Access::Store),
            None
        );
        // Another wave reads what wave 0 wrote, with no barrier between.
        let r = c.access(mark(0, 1, Access::Load, 0xf), Access::Load);
        assert_eq!(
            r.map(|k| (k.mark.wave(), k.access)),
            Some((0, Access::Store))
        );
        // After a barrier (epoch 1) the same read is ordered.
        let mut c = Cell::default();
        c.access(mark(0, 0, Access::Store, 0xf), Access::Store);
        assert_eq!(c.access(mark(1, 1, Access::Load, 0xf), Access::Load), None);
        // A wave's own accesses never race.
        assert_eq!(
            c.access(mark(1, 1, Access::Store, 0xf), Access::Store),
            None
        );
        // A write after another wave's read in the same epoch races with the read.
        let w = c.access(mark(1, 2, Access::Store, 0xf), Access::Store);
        assert_eq!(
            w.map(|k| (k.mark.wave(), k.access)),
            Some((1, Access::Store))
        );
    }

    #[test]
    fn atomics_do_not_race_with_atomics_but_do_with_plain_accesses() {
        let mut c = Cell::default();
        for wave in 0..4 {
            assert_eq!(
                c.access(mark(0, wave, Access::Atomic, 0xf), Access::Atomic),
                None
            );
        }
        let r = c.access(mark(0, 5, Access::Load, 0xf), Access::Load);
        assert_eq!(
            r.map(|k| (k.mark.wave(), k.access)),
            Some((3, Access::Atomic))
        );
    }

    /// A run of locations gives the same histories, first unwritten location and race as
    /// recording each location on its own, whether the locations share a history or not.
    #[test]
    fn a_run_agrees_with_one_location_at_a_time() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        for round in 0..5000 {
            let len = 1 + (next() % 8) as usize;
            // Histories from a few earlier accesses, so that runs share them or not.
            let mut cells = vec![Cell::default(); len];
            for _ in 0..next() % 4 {
                let (from, to) = ((next() as usize) % len, (next() as usize) % len);
                let m = mark((next() % 2) as u32, (next() % 3) as u32, Access::Store, 1);
                let a = accesses[(next() % 3) as usize];
                for c in &mut cells[from.min(to)..=from.max(to)] {
                    c.access(m, a);
                }
            }
            let access = accesses[round % 3];
            let me = mark((next() % 2) as u32, (next() % 3) as u32, access, 1);
            let mut one = cells.clone();
            let mut unwritten = None;
            let mut conflict = None;
            for (i, c) in one.iter_mut().enumerate() {
                if access != Access::Store && !c.write.valid() && unwritten.is_none() {
                    unwritten = Some(i);
                }
                conflict = conflict.or(c.access(me, access));
            }
            let got = access_run(&mut cells, me, access, 0);
            assert_eq!(got, (unwritten, conflict), "round {round}");
            assert_eq!(cells, one, "round {round}");
        }
    }

    /// The lanes of one instruction on one location, recorded at most three at a time, find
    /// and leave what recording each lane does, from any history.
    #[test]
    fn lanes_on_one_location_agree_with_one_lane_at_a_time() {
        let mut rng = crate::rng::Rng::new(0x3c6e_f372_fe94_f82b);
        let mut next = move || rng.next_u64();
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        for round in 0..20000 {
            let mut cell = Cell::default();
            for _ in 0..next() % 4 {
                let a = accesses[(next() % 3) as usize];
                let m = Mark::new((next() % 2) as u32, 7, (next() % 3) as u32, 5, a, 0xf);
                cell.access(m, a);
            }
            let access = accesses[round % 3];
            let mask = [0xf, 0x3, 0xc][(next() % 3) as usize];
            let me = Mark::new((next() % 2) as u32, 9, (next() % 3) as u32, 0, access, mask);
            let lanes = match next() % 3 {
                0 => next(),
                1 => next() & next() & next(),
                _ => 1 << (next() % 64),
            };
            let mut one = cell;
            let mut want = Vec::new();
            for l in (0..64u8).filter(|l| lanes >> l & 1 != 0) {
                if let Some(k) = one.access(me.with_lane(l), access) {
                    want.push((l, k));
                }
            }
            let mut got = Vec::new();
            cell.access_lanes(lanes, me, access, |l, k| got.push((l, k)));
            assert_eq!(got, want, "round {round}");
            assert_eq!(cell, one, "round {round}");
        }
    }

    /// The lanes of one instruction sharing a location (a row of bytes or halves), taken at
    /// once when none can race, leave what recording each lane does, which finds no race; when
    /// some might, nothing is recorded.
    #[test]
    fn lanes_sharing_a_location_agree_with_one_lane_at_a_time() {
        let mut rng = crate::rng::Rng::new(0x510e_527f_ade6_82d1);
        let mut next = move || rng.next_u64();
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        let mut taken = 0;
        for round in 0..20000 {
            let mut cell = Cell::default();
            for _ in 0..next() % 4 {
                let a = accesses[(next() % 3) as usize];
                let mask = [0xf, 0x3, 0xc, 0x1, 0x8][(next() % 5) as usize];
                let m = Mark::new((next() % 2) as u32, 7, (next() % 3) as u32, 5, a, mask);
                cell.access(m, a);
            }
            let access = accesses[round % 3];
            // One to four lanes, a byte each, or one or two, two bytes each.
            let len = 1 + (next() % 2) as usize;
            let lanes = (next() % (1 << (4 / len)) as u64).max(1);
            let mark = Mark::new((next() % 2) as u32, 9, (next() % 3) as u32, 0, access, 0);
            let lane_mark = |j: u32| {
                let mask = ((1u32 << len) - 1) << (j as usize * len);
                mark.with_lane_and_mask(8 + j as u8, mask as u8)
            };
            let mut one = cell;
            let mut races = 0;
            let mut all = 0;
            for j in (0..4 / len as u32).filter(|j| lanes >> j & 1 != 0) {
                races += one.access(lane_mark(j), access).is_some() as u32;
                all |= lane_mark(j).mask();
            }
            let (a, b) = (lanes.trailing_zeros(), 63 - lanes.leading_zeros());
            let before = cell;
            if cell.access_own(lane_mark(a), lane_mark(b), all, access) {
                taken += 1;
                assert_eq!(races, 0, "round {round}");
                assert_eq!(cell, one, "round {round}");
            } else {
                assert_eq!(cell, before, "round {round}");
            }
        }
        assert!(taken > 5000, "{taken}");
    }

    #[test]
    fn different_bytes_of_a_dword_do_not_race() {
        let mut c = Cell::default();
        c.access(mark(0, 0, Access::Store, 0b0011), Access::Store);
        assert_eq!(
            c.access(mark(0, 1, Access::Store, 0b1100), Access::Store),
            None
        );
        assert_eq!(
            c.access(mark(0, 0, Access::Load, 0b0001), Access::Load),
            None
        );
        // Reads of several waves, then a write of one of them: the others' reads race.
        let mut c = Cell::default();
        c.access(mark(0, 0, Access::Load, 0xf), Access::Load);
        c.access(mark(0, 1, Access::Load, 0xf), Access::Load);
        let w = c.access(mark(0, 1, Access::Store, 0xf), Access::Store);
        assert_eq!(w.map(|k| k.mark.wave()), Some(0));
    }
}
