//! The sanitizers' state of one workgroup, kept in its [`crate::lds::Lds`] (the one object both
//! engines give every instruction of the group): the racecheck history of every LDS byte, whose
//! write marks also tell initcheck which bytes were written, and of the global dwords the group
//! touched.
//!
//! Waves may order their global accesses without barriers, through atomics and fences (a lock,
//! a flag, ROCm's device malloc): racecheck does not follow that happens-before, so a pair of
//! global accesses in which either wave made an atomic access in the same barrier interval is not
//! reported. LDS races are always reported.

use super::lds_history::LdsHistory;
use super::race::{Cell, Mark};
use super::Access;
use hashbrown::HashMap;

/// Global memory is remembered in chunks of this many dwords (256 bytes), found by a hash of the
/// chunk's address: the lanes of one instruction mostly hit one chunk, which is kept at hand.
pub const CHUNK: usize = 64;
/// A chunk of histories of no access.
static EMPTY_CHUNK: [Cell; CHUNK] = [Cell::EMPTY; CHUNK];
/// Chunks per workgroup before those of dead epochs are dropped (1 MiB of global memory).
const PRUNE_AT: usize = 4096;
/// Past this many live chunks (2 MiB of global memory touched within one barrier interval), the
/// group stops remembering new ones.
const MAX_CHUNKS: usize = 8192;

/// What a chunk's histories held of a barrier interval before an instruction's accesses, for
/// the wave making them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mine {
    /// Nothing of the interval: every lane's access simply becomes the history of its kind.
    Nothing,
    /// Only the wave's own accesses: none of its lanes can race.
    Own,
    /// Perhaps another wave's: each history is to be looked at.
    Unknown,
}

/// The newest barrier epoch of any access in a chunk, whether one wave alone made the chunk's
/// accesses of it, and which of its dwords they touched. Waves one barrier behind add accesses
/// of older epochs, which change nothing about the newest (an access races only with one of
/// its own interval); only an access of the newest by another wave does.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    /// No access yet.
    any: bool,
    epoch: u32,
    wave: u32,
    alone: bool,
    /// Bit k: dword k has an access of `epoch`. The four waves of a workgroup reading its
    /// row of bytes (a quarter of a chunk each) find nothing of the interval in theirs.
    touched: u64,
}

impl Seen {
    /// Notes accesses by `wave` in `epoch` of the dwords of `dwords`, and returns what the
    /// chunk held of `epoch` before in those dwords.
    #[inline]
    fn note(&mut self, epoch: u32, wave: u32, dwords: u64) -> Mine {
        if !self.any || epoch > self.epoch {
            *self = Seen {
                any: true,
                epoch,
                wave,
                alone: true,
                touched: dwords,
            };
            return Mine::Nothing;
        }
        if epoch < self.epoch {
            return Mine::Unknown;
        }
        let fresh = self.touched & dwords == 0;
        self.touched |= dwords;
        self.alone &= self.wave == wave;
        match (fresh, self.alone) {
            (true, _) => Mine::Nothing,
            (false, true) => Mine::Own,
            (false, false) => Mine::Unknown,
        }
    }
}

#[derive(Debug)]
pub struct GroupShadow {
    pub lds: LdsHistory,
    /// Chunk address (global address / 256) → index in `chunks`.
    index: HashMap<u64, u32>,
    /// The first `live` are in use. The rest, kept from earlier workgroups, are used again as
    /// they are: their histories are of intervals older than any to come (each workgroup's
    /// epochs start past the last one's, [`crate::lds::Lds::epoch`]), which no access races
    /// with, as with a cleared history. (Clearing them was a tenth of a checked `p[i]` kernel's
    /// time.) Those a prune left are cleared (`dirty`).
    chunks: Vec<[Cell; CHUNK]>,
    /// Chunks from `live` up to this one hold histories of the workgroup's own intervals,
    /// left by a prune that moved them down, and are cleared before use.
    dirty: usize,
    /// What each chunk's histories hold of the newest barrier interval in them.
    seen: Vec<Seen>,
    /// Per chunk, the read and the write mark of a whole row of dwords (`p[i]`, lane `k` on
    /// dword `k`) not yet stored in its histories: dword `k`'s is the mark with lane `k`. An
    /// invalid mark: the histories hold it. A row that races with nothing is one mark, where
    /// storing 64 into a chunk the host's caches no longer held was most of what checking a
    /// `p[i]` kernel cost; anything else that looks at the chunk has them stored first
    /// ([`GroupShadow::chunk`]).
    rows: Vec<(Mark, Mark)>,
    live: usize,
    /// The chunk last used: (chunk address, index).
    last: Option<(u64, u32)>,
    /// Chunks at which the next prune happens (doubles with what a prune leaves, so pruning
    /// costs a constant per chunk).
    next_prune: usize,
    /// The newest epoch at the last prune.
    pruned_at: u32,
    /// The last instruction asked about and whether it has `glc` (the lanes of one instruction
    /// come one after another).
    pub glc: Option<(u32, bool)>,
    /// The highest barrier epoch seen: entries older than the one before it are dead.
    newest_epoch: u32,
    /// Per wave, 1 + the last epoch in which it made an atomic access to global memory (an
    /// atomic, or a `glc` load as atomic loads compile to): it may be synchronizing with other
    /// waves through memory rather than barriers.
    synced: [u32; 16],
}

impl GroupShadow {
    pub fn new(lds_size: u32) -> GroupShadow {
        GroupShadow {
            lds: LdsHistory::new(lds_size as usize),
            index: HashMap::new(),
            chunks: Vec::new(),
            dirty: 0,
            seen: Vec::new(),
            rows: Vec::new(),
            live: 0,
            last: None,
            glc: None,
            next_prune: PRUNE_AT,
            pruned_at: 0,
            newest_epoch: 0,
            synced: [0; 16],
        }
    }

    /// LDS bytes written by a load to LDS (MUBUF with `lds`): written for initcheck, but in an
    /// epoch no wave is in, so they race with nothing.
    pub fn note_dma_write(&mut self, addr: usize, len: usize) {
        let mark = Mark::new(u32::MAX, 0, u8::MAX as u32, 0, Access::Store, 1);
        self.lds.set_write(addr, len, mark);
    }

    /// Wave `wave` made an atomic access to global memory in `epoch`.
    pub fn note_sync(&mut self, wave: u32, epoch: u32) {
        if let Some(s) = self.synced.get_mut(wave as usize) {
            *s = epoch + 1;
        }
    }

    /// Whether wave `wave` made an atomic access to global memory in `epoch`.
    pub fn synced(&self, wave: u32, epoch: u32) -> bool {
        self.synced.get(wave as usize) == Some(&(epoch + 1))
    }

    /// Clears the LDS histories and drops the chunks kept for use again, for when the next
    /// epochs may equal those of the histories in them.
    pub fn forget(&mut self) {
        self.lds.reset();
        self.chunks.truncate(self.live);
        self.rows.truncate(self.live);
    }

    /// Starts the next workgroup, whose epochs start at `base`, above those of the accesses
    /// recorded so far.
    pub fn reset(&mut self, base: u32) {
        self.lds.start(base);
        self.index.clear();
        self.live = 0;
        self.dirty = 0;
        self.last = None;
        self.glc = None;
        self.next_prune = PRUNE_AT;
        self.pruned_at = 0;
        self.newest_epoch = 0;
        self.synced = [0; 16];
    }

    /// The history of the global dword at `addr` (a multiple of 4), if there is room for it,
    /// for an access by wave `wave` in barrier epoch `epoch`.
    #[inline]
    pub fn global_cell(&mut self, addr: u64, epoch: u32, wave: u32) -> Option<&mut Cell> {
        let slot = (addr / 4) as usize % CHUNK;
        let i = self.global_chunk(addr / (4 * CHUNK as u64), epoch, wave)?;
        Some(&mut self.chunk(i)[slot])
    }

    /// Which chunk holds the histories of the [`CHUNK`] global dwords from `key * 4 * CHUNK`
    /// on, if there is room for it ([`GroupShadow::chunk`] then gives them), for accesses by
    /// wave `wave` in barrier epoch `epoch`: what [`GroupShadow::global_cell`] looks up, for a
    /// caller going through a chunk's dwords.
    #[inline]
    pub fn global_chunk(&mut self, key: u64, epoch: u32, wave: u32) -> Option<u32> {
        self.global_chunk_seen(key, epoch, wave, u64::MAX)
            .map(|(i, _)| i)
    }

    /// [`GroupShadow::global_chunk`], and what the chunk's histories of the dwords of `dwords`
    /// (bit k: dword k) held of barrier interval `epoch` before these accesses ([`Mine`]).
    /// Every access of a chunk's histories is by one wave's instruction that looked it up here
    /// first, with the dwords it accesses, so that what the chunk holds is known.
    #[inline]
    pub fn global_chunk_seen(
        &mut self,
        key: u64,
        epoch: u32,
        wave: u32,
        dwords: u64,
    ) -> Option<(u32, Mine)> {
        let i = self.chunk_index(key, epoch)?;
        Some((i, self.seen[i as usize].note(epoch, wave, dwords)))
    }

    #[inline]
    fn chunk_index(&mut self, key: u64, epoch: u32) -> Option<u32> {
        Some(match self.last {
            Some((k, i)) if k == key => i,
            _ => {
                self.newest_epoch = self.newest_epoch.max(epoch);
                let i = match self.index.get(&key) {
                    Some(&i) => i,
                    None => self.new_chunk(key)?,
                };
                self.last = Some((key, i));
                i
            }
        })
    }

    /// The history of the global dword at `addr` (a multiple of 4), looked at without noting
    /// an access; `None` when the group has none.
    #[cfg(test)]
    pub fn history(&self, addr: u64) -> Option<Cell> {
        let i = *self.index.get(&(addr / (4 * CHUNK as u64)))? as usize;
        let k = (addr / 4) as usize % CHUNK;
        let mut cell = self.chunks[i][k];
        let (read, write) = self.rows[i];
        if read.valid() {
            cell.read = read.with_lane(k as u8);
        }
        if write.valid() {
            cell.write = write.with_lane(k as u8);
        }
        Some(cell)
    }

    /// The histories of chunk `i` ([`GroupShadow::global_chunk`]), its row marks stored.
    #[inline]
    pub fn chunk(&mut self, i: u32) -> &mut [Cell; CHUNK] {
        let i = i as usize;
        if self.rows[i] != (Mark::default(), Mark::default()) {
            self.store_rows(i);
        }
        &mut self.chunks[i]
    }

    /// Makes `read` (if valid) every dword's read and `write` (if valid) every dword's write
    /// in chunk `i`, lane `k` on dword `k`, as storing them one by one would: for a row of 64
    /// lanes on the chunk's dwords that nothing of the interval can race with, whose store
    /// replaces every dword's write, and whose first load of the interval every dword's read.
    #[inline]
    pub fn set_rows(&mut self, i: u32, read: Mark, write: Mark) {
        let r = &mut self.rows[i as usize];
        if read.valid() {
            r.0 = read.with_lane(0);
        }
        if write.valid() {
            r.1 = write.with_lane(0);
        }
    }

    /// Stores chunk `i`'s row marks into its histories.
    #[cold]
    fn store_rows(&mut self, i: usize) {
        let (read, write) = std::mem::take(&mut self.rows[i]);
        for (k, cell) in self.chunks[i].iter_mut().enumerate() {
            if read.valid() {
                cell.read = read.with_lane(k as u8);
            }
            if write.valid() {
                cell.write = write.with_lane(k as u8);
            }
        }
    }

    #[cold]
    fn new_chunk(&mut self, key: u64) -> Option<u32> {
        // At the cap, a prune helps only once a barrier has passed since the last one.
        let full = self.live >= MAX_CHUNKS;
        if self.live >= self.next_prune || (full && self.pruned_at != self.newest_epoch) {
            self.prune();
            self.pruned_at = self.newest_epoch;
            self.next_prune = (2 * self.live).max(PRUNE_AT);
        }
        if self.live >= MAX_CHUNKS {
            return None;
        }
        match self.chunks.get_mut(self.live) {
            // Copied from a cleared chunk, which is a block copy.
            Some(chunk) if self.live < self.dirty => chunk.copy_from_slice(&EMPTY_CHUNK),
            Some(_) => {}
            None => self.chunks.push(EMPTY_CHUNK),
        }
        match self.seen.get_mut(self.live) {
            Some(seen) => *seen = Seen::default(),
            None => self.seen.push(Seen::default()),
        }
        // (A chunk used again keeps its old histories, of intervals no access races with, and
        // its row marks would be of those too; they go, so that a chunk's marks are all of
        // the key it holds.)
        match self.rows.get_mut(self.live) {
            Some(rows) => *rows = Default::default(),
            None => self.rows.push(Default::default()),
        }
        self.live += 1;
        let i = self.live as u32 - 1;
        self.index.insert(key, i);
        Some(i)
    }

    /// Drops the chunks no access to come can race with: every wave still running is at most
    /// one barrier behind the newest epoch, so what is older is ordered before it.
    fn prune(&mut self) {
        for i in 0..self.live {
            self.store_rows(i);
        }
        let oldest = self.newest_epoch.saturating_sub(1);
        let alive = |c: &[Cell; CHUNK]| {
            c.iter().any(|m| {
                m.write.epoch().max(m.read.epoch()) >= oldest && (m.write.valid() || m.read.valid())
            })
        };
        let mut keys: Vec<(u64, u32)> = self.index.drain().collect();
        keys.sort_unstable_by_key(|&(_, i)| i);
        // The chunks kept move down in place, in their order (a chunk moves only to an index
        // below its own, already looked at).
        let mut kept = 0;
        for (key, i) in keys {
            let i = i as usize;
            if alive(&self.chunks[i]) {
                self.index.insert(key, kept as u32);
                if kept != i {
                    self.chunks[kept] = self.chunks[i];
                    self.seen[kept] = self.seen[i];
                }
                kept += 1;
            }
        }
        self.dirty = self.dirty.max(self.live);
        self.live = kept;
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(g: &mut GroupShadow, chunk: u64, epoch: u32) -> bool {
        let me = Mark::new(epoch, 0, 0, 0, Access::Store, 0xf);
        match g.global_cell(chunk * 4 * CHUNK as u64, epoch, 0) {
            Some(c) => {
                c.access(me, Access::Store);
                true
            }
            None => false,
        }
    }

    /// What a chunk is said to hold of an interval before an access is what its histories
    /// hold: nothing of the interval, or only the accessing wave's own accesses, which no
    /// access of the wave races with. Waves fall a barrier behind the others and catch up.
    #[test]
    fn what_a_chunk_holds_of_an_interval_is_what_its_histories_hold() {
        let mut rng = crate::rng::Rng::new(0x9b05_688c_2b3e_6c1f);
        let mut next = move || rng.next_u64();
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        let mut g = GroupShadow::new(0);
        let (mut newest, mut behind) = (0u32, None);
        let mut said = [0; 3];
        for step in 0..20000 {
            if next() % 32 == 0 {
                // A barrier: every wave has passed it, but one may not have run on yet.
                newest += 1;
                behind = [None, Some(0), Some(1), Some(2)][(next() % 4) as usize];
            }
            let wave = (next() % 3) as u32;
            let epoch = newest - (behind == Some(wave) && newest > 0) as u32;
            let access = accesses[(next() % 3) as usize];
            let key = next() % 2;
            // A run of dwords, or the whole chunk (a caller that does not say which).
            let (first, len) = match next() % 4 {
                0 => (0, CHUNK),
                _ => ((next() % CHUNK as u64) as usize, 1 + (next() % 16) as usize),
            };
            let last = (first + len).min(CHUNK);
            let dwords = (first..last).fold(0u64, |m, k| m | 1 << k);
            let Some((i, mine)) = g.global_chunk_seen(key, epoch, wave, dwords) else {
                panic!("no room");
            };
            let me = Mark::new(epoch, step, wave, 0, access, 0xf);
            let cells = g.chunk(i);
            match mine {
                Mine::Nothing => {
                    said[0] += 1;
                    let of = |c: &Cell| c.write.of_epoch(epoch) || c.read.of_epoch(epoch);
                    assert!(!cells[first..last].iter().any(of), "step {step}");
                }
                Mine::Own => {
                    said[1] += 1;
                    for a in accesses {
                        assert!(cells.iter().all(|c| c.own(me, a)), "step {step}");
                    }
                }
                Mine::Unknown => said[2] += 1,
            }
            for _ in 0..1 + next() % 4 {
                let k = first + (next() % (last - first) as u64) as usize;
                cells[k].access(me, access);
            }
        }
        assert!(said.iter().all(|&n| n > 200), "{said:?}");
    }

    #[test]
    fn dead_epochs_are_pruned_and_live_ones_bounded() {
        let mut g = GroupShadow::new(0);
        for chunk in 0..PRUNE_AT as u64 {
            assert!(touch(&mut g, chunk, 0));
        }
        // Two barriers later nothing of epoch 0 can race any more.
        assert!(touch(&mut g, 1 << 20, 2));
        assert_eq!(g.live, 1);
        // Without barriers everything stays live, up to the cap.
        let mut g = GroupShadow::new(0);
        for chunk in 0..MAX_CHUNKS as u64 {
            assert!(touch(&mut g, chunk, 0));
        }
        assert!(!touch(&mut g, MAX_CHUNKS as u64, 0));
        // A chunk already known is still found.
        assert!(touch(&mut g, 7, 0));
        // Once a barrier has passed, the cap makes room again.
        assert!(touch(&mut g, 7, 2));
        assert!(touch(&mut g, MAX_CHUNKS as u64 + 1, 2));
        assert_eq!(g.live, 2);
        g.reset(3);
        assert!(touch(&mut g, MAX_CHUNKS as u64, 3));
    }

    /// Histories left in chunks used again (after a workgroup ends, or a prune) find what
    /// cleared ones would: each access finds the race a plain history of every dword, cleared
    /// for each workgroup, finds. Workgroups start past the epochs of the one before, as
    /// [`crate::lds::Lds`] numbers them; enough chunks are touched for prunes.
    #[test]
    fn chunks_used_again_find_what_cleared_ones_would() {
        let mut rng = crate::rng::Rng::new(0x3c6e_f372_fe94_f82b);
        let mut next = move || rng.next_u64();
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        let mut g = GroupShadow::new(0);
        let mut base = 0;
        let (mut pruned, mut races) = (0, 0);
        for group in 0..6 {
            let mut plain: HashMap<u64, Cell> = HashMap::new();
            let mut newest = base;
            for step in 0..30000u32 {
                if next() % 4096 == 0 {
                    newest += 1;
                }
                let wave = (next() % 3) as u32;
                let epoch = newest - (newest > base && next() % 4 == 0) as u32;
                let access = accesses[(next() % 3) as usize];
                // Mostly one of thousands of chunks (on a few of its dwords, so that what a chunk
                // used again held is met), now and then one of a few.
                let dword = match next() % 4 {
                    0 => next() % (4 * CHUNK as u64),
                    _ => next() % (6 * PRUNE_AT as u64) * CHUNK as u64 + next() % 4,
                };
                let me = Mark::new(epoch, step, wave, 0, access, 0xf);
                let live = g.live;
                let got = g
                    .global_cell(4 * dword, epoch, wave)
                    .map(|c| c.access(me, access));
                pruned += (g.live < live) as u32;
                // With no room for its chunk, an access goes unrecorded (in both).
                if let Some(got) = got {
                    let want = plain.entry(dword).or_default().access(me, access);
                    assert_eq!(got, want, "group {group} step {step}");
                    races += got.is_some() as u32;
                }
            }
            base = newest + 2;
            g.reset(base);
        }
        assert!(pruned > 0 && races > 100, "{pruned} prunes, {races} races");
    }
}
