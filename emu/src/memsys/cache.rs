//! A set-associative tag array with least-recently-used replacement: the vector L1 of a CU,
//! the scalar cache of a CU group, one L2 channel. Only tags are kept (the data lives in
//! device memory); a line is a line number (address / line size).

use super::divisor::Divisor;

/// One cache's tags.
#[derive(Clone, Debug)]
pub struct Cache {
    sets: Divisor,
    ways: usize,
    /// `sets * ways` entries: the line held, or `u64::MAX`.
    tags: Vec<u64>,
    /// Each entry's place in its set's order of use: 0 the most recently used, up to one less
    /// than the lines the set holds; [`EMPTY`] for no line. A byte a line where a tick of when
    /// it was last used took eight: the L2's tags are most of a timed launch's heap beside the
    /// waves' registers.
    rank: Vec<u8>,
    /// Dirty bits of `tags`, for a write-back cache.
    dirty: Vec<bool>,
    /// When each line's fill arrives (a line is present from its miss on, but a request that
    /// hits it before then waits for the data), as cycles after `base`: 0 for a fill that has
    /// arrived, [`UNKNOWN`] for [`super::FILL_UNKNOWN`]. Four bytes where a cycle takes eight:
    /// the L2's arrays are a large part of a timed launch's heap.
    ready: Vec<u32>,
    /// The cycle `ready` counts from, moved on when a fill lies too far past it.
    base: u64,
}

/// A `ready` entry standing for [`super::FILL_UNKNOWN`].
const UNKNOWN: u32 = u32::MAX;

/// The rank of an entry with no line: past every line's.
const EMPTY: u8 = u8::MAX;

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit,
    /// A miss; the line is now present. `evicted_dirty` is a dirty line it replaced.
    Miss {
        evicted_dirty: Option<u64>,
    },
}

impl Cache {
    /// A cache of `bytes` bytes in lines of `line` bytes, `ways` ways (clamped so there is at
    /// least one set, and to 255, what a rank holds).
    pub fn new(bytes: u64, line: u32, ways: u32) -> Cache {
        let lines = (bytes / line.max(1) as u64).max(1);
        let ways = (ways.clamp(1, EMPTY as u32) as u64).min(lines);
        let sets = lines / ways;
        let entries = (sets * ways) as usize;
        Cache {
            sets: Divisor::new(sets),
            ways: ways as usize,
            tags: vec![u64::MAX; entries],
            rank: vec![EMPTY; entries],
            dirty: vec![false; entries],
            ready: vec![0; entries],
            base: 0,
        }
    }

    /// Looks `line` up, filling it on a miss (allocating: reads and write-back writes both
    /// allocate). `write` marks the line dirty.
    pub fn access(&mut self, line: u64, write: bool) -> Lookup {
        let set = self.sets.remainder(line) as usize * self.ways;
        let ways = &self.tags[set..set + self.ways];
        let ranks = &mut self.rank[set..set + self.ways];
        if let Some(w) = ways.iter().position(|&l| l == line) {
            // The lines used since this one move down a place.
            let r = ranks[w];
            for k in ranks.iter_mut() {
                *k += (*k < r) as u8;
            }
            ranks[w] = 0;
            self.dirty[set + w] |= write;
            return Lookup::Hit;
        }
        // The first way with no line if any (its rank is the highest), else the least
        // recently used; every line the set keeps moves down a place.
        let (w, _) = ranks.iter().enumerate().fold(
            (0, 0),
            |(w, m), (k, &r)| if r > m { (k, r) } else { (w, m) },
        );
        for k in ranks.iter_mut() {
            *k += (*k != EMPTY) as u8;
        }
        ranks[w] = 0;
        let old = ways[w];
        self.tags[set + w] = line;
        let evicted_dirty = (old != u64::MAX && self.dirty[set + w]).then_some(old);
        self.dirty[set + w] = write;
        self.ready[set + w] = 0;
        Lookup::Miss { evicted_dirty }
    }

    /// Whether `line` is present, without touching the replacement order.
    pub fn holds(&self, line: u64) -> bool {
        let set = self.sets.remainder(line) as usize * self.ways;
        self.tags[set..set + self.ways].contains(&line)
    }

    /// When `line`'s fill arrives (0 if it is not being filled or not present).
    pub fn fill_ready(&self, line: u64) -> u64 {
        let set = self.sets.remainder(line) as usize * self.ways;
        (set..set + self.ways)
            .find(|&i| self.tags[i] == line)
            .map_or(0, |i| match self.ready[i] {
                0 => 0,
                UNKNOWN => super::FILL_UNKNOWN,
                r => self.base + r as u64,
            })
    }

    /// Records when `line`'s fill arrives.
    pub fn set_fill_ready(&mut self, line: u64, at: u64) {
        let set = self.sets.remainder(line) as usize * self.ways;
        if let Some(i) = (set..set + self.ways).find(|&i| self.tags[i] == line) {
            self.ready[i] = match at {
                super::FILL_UNKNOWN => UNKNOWN,
                _ => self.since_base(at),
            };
        }
    }

    /// `at` as cycles after `base`, moving `base` on when `at` lies too far past it. Entries
    /// before the new base are fills that arrived long ago (a fill arrives within a memory
    /// latency of its miss), and become 0.
    fn since_base(&mut self, at: u64) -> u32 {
        const ROOM: u64 = 1 << 31;
        if at.saturating_sub(self.base) >= UNKNOWN as u64 {
            let base = at - ROOM;
            let moved = base - self.base;
            for r in &mut self.ready {
                if *r != UNKNOWN {
                    *r = (*r as u64).saturating_sub(moved) as u32;
                }
            }
            self.base = base;
        }
        at.saturating_sub(self.base) as u32
    }

    /// Every fill has arrived (a new launch counts its cycles from 0 again).
    pub fn settle_fills(&mut self) {
        self.ready.fill(0);
        self.base = 0;
    }

    /// Empties the cache (`buffer_wbinvl1`, a new dispatch's L1).
    pub fn invalidate_all(&mut self) {
        self.tags.fill(u64::MAX);
        self.rank.fill(EMPTY);
        self.dirty.fill(false);
        self.ready.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_footprint_within_the_cache_hits_on_the_second_pass() {
        let mut c = Cache::new(16 << 10, 64, 4);
        for pass in 0..2 {
            for l in 0..256 {
                let r = c.access(l, false);
                assert_eq!(r == Lookup::Hit, pass == 1, "line {l} pass {pass}");
            }
        }
    }

    #[test]
    fn a_footprint_beyond_the_cache_misses_with_lru() {
        // 257 lines cycled through a 256-line LRU cache: every access misses.
        let mut c = Cache::new(16 << 10, 64, 4);
        let mut hits = 0;
        for _ in 0..3 {
            for l in 0..257 {
                hits += (c.access(l, false) == Lookup::Hit) as u32;
            }
        }
        // Lines map to sets by line number; 257 lines overflow one set by one line, so only that
        // set thrashes (its 5 lines), the other 63 sets keep their 4.
        assert_eq!(hits, 2 * (257 - 5));
    }

    #[test]
    fn a_dirty_line_is_reported_when_evicted() {
        let mut c = Cache::new(128, 64, 1); // two sets of one way
        assert_eq!(
            c.access(0, true),
            Lookup::Miss {
                evicted_dirty: None
            }
        );
        assert_eq!(
            c.access(2, false),
            Lookup::Miss {
                evicted_dirty: Some(0)
            }
        );
        assert_eq!(
            c.access(4, false),
            Lookup::Miss {
                evicted_dirty: None
            }
        );
        assert!(c.holds(4) && !c.holds(0));
    }

    /// Fill times are kept in four bytes from a base that moves: launches longer than 2^32
    /// cycles still read back each fill's cycle, and fills from long before as arrived.
    #[test]
    fn fill_times_read_back_across_billions_of_cycles() {
        let mut c = Cache::new(16 << 10, 64, 4);
        for l in 0..3 {
            c.access(l, false);
        }
        c.set_fill_ready(0, 1_000);
        c.set_fill_ready(2, super::super::FILL_UNKNOWN);
        assert_eq!(c.fill_ready(0), 1_000);
        let late = 3 << 32;
        c.set_fill_ready(1, late);
        assert_eq!(c.fill_ready(1), late);
        assert_eq!(c.fill_ready(0), 0, "a fill long before reads as arrived");
        assert_eq!(c.fill_ready(2), super::super::FILL_UNKNOWN);
        c.set_fill_ready(0, late + 5);
        assert_eq!(c.fill_ready(0), late + 5);
        assert_eq!(c.fill_ready(1), late);
        assert_eq!(c.fill_ready(3), 0, "a line not held");
    }
}
