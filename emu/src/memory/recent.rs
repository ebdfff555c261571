//! The allocations the last few lookups missed and found: a kernel's lanes almost always hit
//! one buffer per instruction, but its instructions take turns among a few (saxpy's `x`, `y`,
//! its kernel arguments and its dispatch packet), and one remembered allocation would miss at
//! every turn.
//!
//! Each way keeps the guest range of its allocation beside the allocation's index, so a hit is
//! a few compares on this record alone: looking the range up in the allocation table for each
//! way (a bounds check and two loads from an `Allocation` each) and remapping the empty ways
//! made the lookup about 60 host instructions, paid by every scalar load and every vector
//! access of a wave.
//!
//! A hit writes nothing. The ways used to be kept newest first, a hit on an older way
//! rewriting all of them; the next lookup's read of the ways then waited for those stores to
//! reach the cache (the host cannot forward several narrow stores to one wide load): in
//! saxpy, whose instructions turn among its four allocations, the scalar loads' lookup alone
//! had a quarter of the samples of its emulation. Now the ways stay where they are, all of
//! them are compared at once, and a miss replaces the ways in turn (first in, first out),
//! which keeps any four allocations a kernel turns among.

use std::cell::Cell;

/// How many allocations are remembered.
const WAYS: usize = 4;

/// The remembered allocations: way `k` holds the guest range `[base[k], end[k])` of the
/// allocation at `index[k]` in [`super::Memory`]'s sorted allocations. An empty way has
/// `end` below `base`, so no access lies in it. Valid while the allocation table is
/// unchanged: [`super::Memory`] clears it whenever it adds or removes an allocation.
#[derive(Debug)]
pub(super) struct Recent {
    base: [Cell<u64>; WAYS],
    end: [Cell<u64>; WAYS],
    index: [Cell<usize>; WAYS],
    /// The way the next miss replaces.
    next: Cell<usize>,
}

impl Default for Recent {
    fn default() -> Recent {
        Recent {
            base: std::array::from_fn(|_| Cell::new(u64::MAX)),
            end: std::array::from_fn(|_| Cell::new(0)),
            index: std::array::from_fn(|_| Cell::new(usize::MAX)),
            next: Cell::new(0),
        }
    }
}

impl Recent {
    /// The index of the remembered allocation holding `[addr, end)`, if one does.
    #[inline]
    pub fn find(&self, addr: u64, end: u64) -> Option<usize> {
        // Every way compared, branch-free, then the first that holds the range (ranges of
        // distinct allocations do not overlap, so at most one does).
        let mut holds = 0u32;
        for k in 0..WAYS {
            let inside = (addr >= self.base[k].get()) & (end <= self.end[k].get());
            holds |= u32::from(inside) << k;
        }
        (holds != 0).then(|| self.index[holds.trailing_zeros() as usize].get())
    }

    /// Allocation `index`, holding `[base, end)`, was found in the table after a miss: it
    /// takes the way whose turn it is, unless a way holds it already.
    #[inline]
    pub fn hit(&self, index: usize, base: u64, end: u64) {
        if self.index.iter().any(|i| i.get() == index) {
            return;
        }
        let k = self.next.get();
        self.base[k].set(base);
        self.end[k].set(end);
        self.index[k].set(index);
        self.next.set((k + 1) % WAYS);
    }

    /// Forgets every allocation (the indices change when one is added or removed).
    #[inline]
    pub fn clear(&self) {
        for k in 0..WAYS {
            self.base[k].set(u64::MAX);
            self.end[k].set(0);
            self.index[k].set(usize::MAX);
        }
        self.next.set(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocation `i` of the test spans `[100 i, 100 i + 50)`.
    fn hit(r: &Recent, i: usize) {
        r.hit(i, 100 * i as u64, 100 * i as u64 + 50);
    }

    fn ways(r: &Recent) -> [usize; WAYS] {
        std::array::from_fn(|k| r.index[k].get())
    }

    /// Misses fill the ways in turn, an allocation already held takes no second way, and a
    /// fifth one replaces the first in.
    #[test]
    fn misses_fill_the_ways_in_turn() {
        let r = Recent::default();
        assert_eq!(ways(&r), [usize::MAX; 4]);
        for i in [1, 2, 3] {
            hit(&r, i);
        }
        assert_eq!(ways(&r), [1, 2, 3, usize::MAX]);
        hit(&r, 1);
        assert_eq!(ways(&r), [1, 2, 3, usize::MAX]);
        hit(&r, 7);
        hit(&r, 8);
        assert_eq!(ways(&r), [8, 2, 3, 7]);
        hit(&r, 9);
        assert_eq!(ways(&r), [8, 9, 3, 7]);
        r.clear();
        assert_eq!(ways(&r), [usize::MAX; 4]);
        hit(&r, 5);
        assert_eq!(ways(&r), [5, usize::MAX, usize::MAX, usize::MAX]);
    }

    /// A lookup finds a range only inside a remembered allocation (never in an empty way, nor
    /// across an allocation's end), in whichever way holds it, and changes no way.
    #[test]
    fn lookups_hit_inside_remembered_ranges_only() {
        let r = Recent::default();
        assert_eq!(r.find(0, 4), None);
        assert_eq!(r.find(u64::MAX - 4, u64::MAX), None);
        for i in [1, 2, 3] {
            hit(&r, i);
        }
        assert_eq!(r.find(300, 350), Some(3));
        assert_eq!(r.find(340, 351), None, "past the end");
        assert_eq!(r.find(99, 104), None, "before the start");
        assert_eq!(r.find(150, 154), None, "between allocations");
        assert_eq!(r.find(104, 108), Some(1));
        assert_eq!(r.find(200, 204), Some(2));
        assert_eq!(ways(&r), [1, 2, 3, usize::MAX]);
        r.clear();
        assert_eq!(r.find(104, 108), None);
    }
}
