//! The allocations the last few lookups hit, newest first: a kernel's lanes almost always hit
//! one buffer per instruction, but its instructions take turns among a few (saxpy's `x`, `y`
//! and its kernel arguments), and one remembered allocation would miss at every turn.

use std::cell::Cell;

/// How many allocations are remembered.
const WAYS: usize = 4;
/// An empty way (no allocation has this index).
const NONE: u32 = u32::MAX;

/// Indices into [`super::Memory`]'s sorted allocations, newest first; only a hint, checked
/// against the allocation at every use, so a stale index costs a miss and nothing else.
#[derive(Debug)]
pub(super) struct Recent(Cell<[u32; WAYS]>);

impl Default for Recent {
    fn default() -> Recent {
        Recent(Cell::new([NONE; WAYS]))
    }
}

impl Recent {
    /// The remembered indices, newest first ([`usize::MAX`] for an empty way).
    #[inline]
    pub fn ways(&self) -> [usize; WAYS] {
        self.0
            .get()
            .map(|i| if i == NONE { usize::MAX } else { i as usize })
    }

    /// Allocation `i` was hit: it becomes the newest, the others move down, the oldest goes.
    #[inline]
    pub fn hit(&self, i: usize) {
        let mut w = self.0.get();
        let i = u32::try_from(i).unwrap_or(NONE);
        if w[0] == i {
            return;
        }
        // Where `i` was, or the oldest way: everything newer moves down one. Made whole and
        // stored at once: moved in place, the ways were stored in pieces, and the next
        // lookup's read of all of them waited for the pieces to reach the cache.
        let at = w.iter().position(|&x| x == i).unwrap_or(WAYS - 1);
        w = std::array::from_fn(|k| match k {
            0 => i,
            k if k <= at => w[k - 1],
            k => w[k],
        });
        self.0.set(w);
    }

    /// Forgets every allocation (the indices change when one is added or removed).
    #[inline]
    pub fn clear(&self) {
        self.0.set([NONE; WAYS]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hit moves its allocation to the front and keeps the others in order; a fifth one
    /// pushes out the oldest.
    #[test]
    fn the_newest_hit_comes_first() {
        let r = Recent::default();
        assert_eq!(r.ways(), [usize::MAX; 4]);
        for i in [1, 2, 3] {
            r.hit(i);
        }
        assert_eq!(r.ways(), [3, 2, 1, usize::MAX]);
        r.hit(1);
        assert_eq!(r.ways(), [1, 3, 2, usize::MAX]);
        r.hit(7);
        r.hit(8);
        assert_eq!(r.ways(), [8, 7, 1, 3]);
        r.hit(8);
        assert_eq!(r.ways(), [8, 7, 1, 3]);
        r.clear();
        assert_eq!(r.ways(), [usize::MAX; 4]);
    }
}
