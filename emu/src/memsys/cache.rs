//! A set-associative tag array with least-recently-used replacement: the vector L1 of a CU,
//! the scalar cache of a CU group, one L2 channel. Only tags are kept (the data lives in
//! device memory); a line is a line number (address / line size).

use super::divisor::Divisor;

/// One cache's tags.
#[derive(Clone, Debug)]
pub struct Cache {
    sets: Divisor,
    ways: usize,
    /// `sets * ways` entries: the line held (or `u64::MAX`) and when it was last used.
    tags: Vec<(u64, u64)>,
    /// Dirty bits of `tags`, for a write-back cache.
    dirty: Vec<bool>,
    /// When each line's fill arrives (a line is present from its miss on, but a request that
    /// hits it before then waits for the data).
    ready: Vec<u64>,
    tick: u64,
}

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
    /// least one set).
    pub fn new(bytes: u64, line: u32, ways: u32) -> Cache {
        let lines = (bytes / line.max(1) as u64).max(1);
        let ways = (ways.max(1) as u64).min(lines);
        let sets = lines / ways;
        Cache {
            sets: Divisor::new(sets),
            ways: ways as usize,
            tags: vec![(u64::MAX, 0); (sets * ways) as usize],
            dirty: vec![false; (sets * ways) as usize],
            ready: vec![0; (sets * ways) as usize],
            tick: 0,
        }
    }

    /// Looks `line` up, filling it on a miss (allocating: reads and write-back writes both
    /// allocate). `write` marks the line dirty.
    pub fn access(&mut self, line: u64, write: bool) -> Lookup {
        self.tick += 1;
        let set = self.sets.remainder(line) as usize * self.ways;
        let ways = &mut self.tags[set..set + self.ways];
        if let Some(w) = ways.iter().position(|&(l, _)| l == line) {
            ways[w].1 = self.tick;
            self.dirty[set + w] |= write;
            return Lookup::Hit;
        }
        // The invalid way if any (its tick is 0), else the least recently used.
        let w = (0..self.ways).min_by_key(|&w| ways[w].1).unwrap_or(0);
        let old = ways[w].0;
        ways[w] = (line, self.tick);
        let evicted_dirty = (old != u64::MAX && self.dirty[set + w]).then_some(old);
        self.dirty[set + w] = write;
        self.ready[set + w] = 0;
        Lookup::Miss { evicted_dirty }
    }

    /// Whether `line` is present, without touching the replacement order.
    pub fn holds(&self, line: u64) -> bool {
        let set = self.sets.remainder(line) as usize * self.ways;
        self.tags[set..set + self.ways]
            .iter()
            .any(|&(l, _)| l == line)
    }

    /// When `line`'s fill arrives (0 if it is not being filled or not present).
    pub fn fill_ready(&self, line: u64) -> u64 {
        let set = self.sets.remainder(line) as usize * self.ways;
        (set..set + self.ways)
            .find(|&i| self.tags[i].0 == line)
            .map_or(0, |i| self.ready[i])
    }

    /// Records when `line`'s fill arrives.
    pub fn set_fill_ready(&mut self, line: u64, at: u64) {
        let set = self.sets.remainder(line) as usize * self.ways;
        if let Some(i) = (set..set + self.ways).find(|&i| self.tags[i].0 == line) {
            self.ready[i] = at;
        }
    }

    /// Every fill has arrived (a new launch counts its cycles from 0 again).
    pub fn settle_fills(&mut self) {
        self.ready.fill(0);
    }

    /// Empties the cache (`buffer_wbinvl1`, a new dispatch's L1).
    pub fn invalidate_all(&mut self) {
        self.tags.fill((u64::MAX, 0));
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
}
