//! The allocations the last few lookups hit, newest first: a kernel's lanes almost always hit
//! one buffer per instruction, but its instructions take turns among a few (saxpy's `x`, `y`,
//! its kernel arguments and its dispatch packet), and one remembered allocation would miss at
//! every turn.
//!
//! Each way keeps the guest range of its allocation beside the allocation's index, so a hit is
//! a few compares on this record alone: looking the range up in the allocation table for each
//! way (a bounds check and two loads from an `Allocation` each) and remapping the empty ways
//! made the lookup about 60 host instructions, paid by every scalar load and every vector
//! access of a wave.

use std::cell::Cell;

/// How many allocations are remembered.
const WAYS: usize = 4;

/// One remembered allocation: its guest range `[base, end)` and its index in
/// [`super::Memory`]'s sorted allocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Way {
    base: u64,
    end: u64,
    index: usize,
}

/// An empty way: no access lies in it (`end` is never above `base`).
const EMPTY: Way = Way {
    base: u64::MAX,
    end: 0,
    index: usize::MAX,
};

/// The remembered allocations, newest first. Valid while the allocation table is unchanged:
/// [`super::Memory`] clears it whenever it adds or removes an allocation.
#[derive(Debug)]
pub(super) struct Recent(Cell<[Way; WAYS]>);

impl Default for Recent {
    fn default() -> Recent {
        Recent(Cell::new([EMPTY; WAYS]))
    }
}

impl Recent {
    /// The index of the remembered allocation holding `[addr, end)`, if one does; a hit on an
    /// older way makes it the newest.
    #[inline]
    pub fn find(&self, addr: u64, end: u64) -> Option<usize> {
        let w = self.0.get();
        if addr >= w[0].base && end <= w[0].end {
            return Some(w[0].index);
        }
        let at = (1..WAYS).find(|&k| addr >= w[k].base && end <= w[k].end)?;
        self.0.set(to_front(w, at, w[at]));
        Some(w[at].index)
    }

    /// Allocation `index`, holding `[base, end)`, was hit: it becomes the newest, the others
    /// move down, the oldest goes.
    #[inline]
    pub fn hit(&self, index: usize, base: u64, end: u64) {
        let w = self.0.get();
        if w[0].index == index {
            return;
        }
        let at = w.iter().position(|x| x.index == index).unwrap_or(WAYS - 1);
        self.0.set(to_front(w, at, Way { base, end, index }));
    }

    /// Forgets every allocation (the indices change when one is added or removed).
    #[inline]
    pub fn clear(&self) {
        self.0.set([EMPTY; WAYS]);
    }
}

/// The ways with `new` first and the ways before `at` moved down one, made whole and stored at
/// once: moved in place, the ways were stored in pieces, and the next lookup's read of all of
/// them waited for the pieces to reach the cache.
#[inline]
fn to_front(w: [Way; WAYS], at: usize, new: Way) -> [Way; WAYS] {
    std::array::from_fn(|k| match k {
        0 => new,
        k if k <= at => w[k - 1],
        k => w[k],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocation `i` of the test spans `[100 i, 100 i + 50)`.
    fn hit(r: &Recent, i: usize) {
        r.hit(i, 100 * i as u64, 100 * i as u64 + 50);
    }

    fn order(r: &Recent) -> [usize; WAYS] {
        r.0.get().map(|w| w.index)
    }

    /// A hit moves its allocation to the front and keeps the others in order; a fifth one
    /// pushes out the oldest.
    #[test]
    fn the_newest_hit_comes_first() {
        let r = Recent::default();
        assert_eq!(order(&r), [usize::MAX; 4]);
        for i in [1, 2, 3] {
            hit(&r, i);
        }
        assert_eq!(order(&r), [3, 2, 1, usize::MAX]);
        hit(&r, 1);
        assert_eq!(order(&r), [1, 3, 2, usize::MAX]);
        hit(&r, 7);
        hit(&r, 8);
        assert_eq!(order(&r), [8, 7, 1, 3]);
        hit(&r, 8);
        assert_eq!(order(&r), [8, 7, 1, 3]);
        r.clear();
        assert_eq!(order(&r), [usize::MAX; 4]);
    }

    /// A lookup finds a range only inside a remembered allocation (never in an empty way, nor
    /// across an allocation's end), and a hit on an older way brings it to the front.
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
        assert_eq!(order(&r), [1, 3, 2, usize::MAX]);
        assert_eq!(r.find(200, 204), Some(2));
        assert_eq!(order(&r), [2, 1, 3, usize::MAX]);
        r.clear();
        assert_eq!(r.find(104, 108), None);
    }
}
