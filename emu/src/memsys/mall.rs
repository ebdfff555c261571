//! MI300's Infinity Cache, the MALL (memory-attached last level): a memory-side cache between
//! the L2s and HBM. Every line the L2s read from memory or write back to it goes through the
//! slice of its HBM channel (each channel's controller has its own, as "memory attached" says;
//! MI300 has 128 channels and 256 MiB, 2 MiB a slice). A read whose lines the slice holds comes
//! back at the MALL's latency instead of memory's; one it does not is read from memory and
//! kept. Written-back lines stay in the slice, dirty, until it evicts them to memory.
//!
//! The MALL's line (64 B) is half of MI300's L2 line: an L2 line hits only if both halves do.
//! Each slice moves a line per its share of the MALL's peak bandwidth.
//!
//! 256 MiB of tags would take about 100 MB of host memory for every launch, whatever it
//! touches, so a slice keeps only the sets a launch has touched (in a `hashbrown` map).

use super::divisor::Divisor;
use super::params::Level;
use super::FRAC;
use hashbrown::HashMap;

/// One way of a set: the line it holds (`u64::MAX` for none), when last used, and whether it
/// was written since it came from memory.
#[derive(Clone, Copy, Debug)]
struct Way {
    line: u64,
    used: u64,
    dirty: bool,
}

const EMPTY: Way = Way {
    line: u64::MAX,
    used: 0,
    dirty: false,
};

#[derive(Clone, Debug)]
pub struct Mall {
    line: u64,
    line_div: Divisor,
    slices: Divisor,
    /// Bytes of consecutive addresses one channel (and so one slice) holds before the next.
    interleave: Divisor,
    /// Lines of one interleave block.
    per_block: u64,
    sets: Divisor,
    ways: usize,
    /// Load-to-use latency of a read the MALL holds, engine cycles.
    pub latency: u64,
    /// 1/FRAC cycles a slice takes to move one of its lines.
    per_line: u64,
    /// When each slice is next free, 1/FRAC cycles.
    free: Vec<u64>,
    /// Touched sets by (slice, set), LRU within a set.
    sets_held: HashMap<(u64, u64), Box<[Way]>>,
    tick: u64,
}

/// What a read found.
pub enum Read {
    /// Every line of it was there: when the slice starts sending it, 1/FRAC cycles.
    Hit(u64),
    /// Some line was not: it is read from memory (and kept).
    Miss,
}

impl Mall {
    /// A MALL of `params`, a slice per each of `channels` memory channels that take
    /// `interleave` bytes in turn, at `clock_khz`.
    pub fn new(params: &Level, channels: u32, interleave: u64, clock_khz: u32) -> Mall {
        let slices = channels.max(1) as u64;
        let line = params.line.max(1) as u64;
        let lines_per_slice = (params.bytes / slices / line).max(1);
        let ways = (params.ways.max(1) as u64).min(lines_per_slice);
        // A slice's share of the peak bandwidth, as 1/FRAC cycles per line.
        let bytes_per_cycle = params.gb_per_s.unwrap_or(f64::INFINITY) / slices as f64 * 1e9
            / (clock_khz.max(1) as f64 * 1e3);
        let per_line = (line as f64 / bytes_per_cycle * FRAC as f64).round() as u64;
        Mall {
            line,
            line_div: Divisor::new(line),
            slices: Divisor::new(slices),
            interleave: Divisor::new(interleave.max(line)),
            per_block: interleave.max(line) / line,
            sets: Divisor::new(lines_per_slice / ways),
            ways: ways as usize,
            latency: params.latency_cycles.max(1) as u64,
            per_line,
            free: vec![0; slices as usize],
            sets_held: HashMap::new(),
            tick: 0,
        }
    }

    /// The slice and set of the line at `addr`, and the line's number. Within a slice, lines
    /// are indexed by the address without the channel bits, so every set is used.
    fn place(&self, addr: u64) -> (u64, u64, u64) {
        let block = self.interleave.quotient(addr);
        let slice = self.slices.remainder(block);
        let within = self.slices.quotient(block) * self.per_block
            + self.line_div.quotient(self.interleave.remainder(addr));
        (
            slice,
            self.sets.remainder(within),
            self.line_div.quotient(addr),
        )
    }

    /// Looks up the line at `addr` and keeps it (dirty if `write`): whether it was there, and
    /// the address of a dirty line it evicted to make room.
    fn access(&mut self, addr: u64, write: bool) -> (bool, Option<u64>) {
        self.tick += 1;
        let (slice, set, line) = self.place(addr);
        let ways = self.ways;
        let set = self
            .sets_held
            .entry((slice, set))
            .or_insert_with(|| vec![EMPTY; ways].into_boxed_slice());
        if let Some(w) = set.iter_mut().find(|w| w.line == line) {
            w.used = self.tick;
            w.dirty |= write;
            return (true, None);
        }
        let w = set
            .iter_mut()
            .min_by_key(|w| w.used)
            .expect("a set has ways");
        let evicted = (w.line != u64::MAX && w.dirty).then(|| w.line * self.line);
        *w = Way {
            line,
            used: self.tick,
            dirty: write,
        };
        (false, evicted)
    }

    /// The slice of `addr` moves a line from `at` (1/FRAC cycles): when it starts.
    fn transfer(&mut self, addr: u64, at: u64) -> u64 {
        let (slice, _, _) = self.place(addr);
        let free = &mut self.free[slice as usize];
        let start = at.max(*free);
        *free = start + self.per_line;
        start
    }

    /// An L2 line of `bytes` at `addr` read at `at` (1/FRAC cycles). Dirty lines evicted to
    /// make room for it are appended to `evicted`, for memory.
    pub fn read(&mut self, addr: u64, bytes: u64, at: u64, evicted: &mut Vec<u64>) -> Read {
        let mut all = true;
        let mut start = at;
        for part in (0..bytes.max(self.line)).step_by(self.line as usize) {
            let a = addr + part;
            let (hit, victim) = self.access(a, false);
            all &= hit;
            evicted.extend(victim);
            start = start.max(self.transfer(a, at));
        }
        match all {
            true => Read::Hit(start),
            false => Read::Miss,
        }
    }

    /// An L2 line of `bytes` at `addr` written back at `at`: it stays here, dirty. Dirty
    /// lines evicted for it are appended to `evicted`, for memory.
    pub fn write(&mut self, addr: u64, bytes: u64, at: u64, evicted: &mut Vec<u64>) {
        for part in (0..bytes.max(self.line)).step_by(self.line as usize) {
            let (_, victim) = self.access(addr + part, true);
            evicted.extend(victim);
            self.transfer(addr + part, at);
        }
    }

    /// A launch starts at cycle 0: the slices are free; the lines stay.
    pub fn new_launch(&mut self) {
        self.free.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mall(bytes: u64) -> Mall {
        let level = Level {
            bytes,
            line: 64,
            ways: 4,
            latency_cycles: 500,
            gb_per_s: Some(128.0), // a 64 B line per cycle per slice at 1 GHz
            source: String::new(),
        };
        Mall::new(&level, 2, 256, 1_000_000)
    }

    #[test]
    fn a_line_read_twice_hits_the_second_time_in_both_halves() {
        let mut m = mall(1 << 20);
        let mut ev = Vec::new();
        assert!(matches!(m.read(0, 128, 0, &mut ev), Read::Miss));
        assert!(matches!(m.read(0, 128, 10 * FRAC, &mut ev), Read::Hit(_)));
        // Each half on its own hits; a line whose second half was never read misses.
        assert!(matches!(m.read(64, 64, 20 * FRAC, &mut ev), Read::Hit(_)));
        assert!(matches!(m.read(64, 128, 20 * FRAC, &mut ev), Read::Miss));
        assert!(matches!(m.read(4096, 128, 20 * FRAC, &mut ev), Read::Miss));
        assert!(ev.is_empty());
    }

    #[test]
    fn a_slice_moves_one_line_at_a_time() {
        let mut m = mall(1 << 20);
        let mut ev = Vec::new();
        m.read(0, 64, 0, &mut ev);
        let (Read::Hit(a), Read::Hit(b)) = (m.read(0, 64, 0, &mut ev), m.read(0, 64, 0, &mut ev))
        else {
            panic!("the line was read before");
        };
        assert_eq!(b - a, m.per_line);
        assert_eq!(m.per_line, FRAC);
    }

    #[test]
    fn written_lines_go_to_memory_only_when_evicted() {
        // Two slices of 2 KiB: 32 lines of 64 B each, 8 sets of 4 ways.
        let mut m = mall(4096);
        let mut ev = Vec::new();
        m.write(0, 64, 0, &mut ev);
        assert!(ev.is_empty());
        // Lines of slice 0 that share set 0 with line 0: 4 more push it out.
        let same_set = |k: u64| k * 8 * 4 * 64 * 2; // 8 sets × 4 lines a block, 2 slices
        for k in 1..=4 {
            m.read(same_set(k), 64, 0, &mut ev);
        }
        assert_eq!(ev, vec![0]);
    }
}
