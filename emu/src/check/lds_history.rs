//! racecheck's history of every LDS byte of a workgroup, kept a dword at a time while the
//! dword's four bytes share one history.
//!
//! The history is per byte (waves using different bytes of one dword do not race, and a report
//! names the byte), but DS accesses are almost all whole aligned dwords, which leave the four
//! bytes with one history. Such a dword keeps one history, standing for all four, in an array of
//! its own (one entry a dword, so a row of lanes reads consecutive entries): a whole-dword
//! access records it once, where four byte histories would be compared, recorded and copied.
//! Any other access first gives each byte its own copy. Recording one history for four
//! identical ones gives what recording each gives (the same history and the same access make
//! the same result), so the findings are those of a history per byte.
//!
//! Each block of [`BLOCK`] dwords also keeps what its histories hold of the newest barrier
//! interval in them ([`Newest`]). An instruction whose accesses fall where nothing of its
//! interval can race with them (no access of the interval yet, only its own wave's, or only
//! atomics when it is an atomic: the usual case of every DS access of a tree, a histogram, a
//! tile) records them without looking for races.

use super::race::{access_run, Cell, Conflict, Mark};
use super::Access;

#[derive(Debug)]
pub struct LdsHistory {
    /// Dword `d`'s history while it is set in `whole`.
    dwords: Vec<Cell>,
    /// One history per byte: current for the bytes of a dword not set in `whole`, and for the
    /// bytes of a last partial dword.
    bytes: Vec<Cell>,
    /// Bit `d % 64` of word `d / 64`: dword `d`'s bytes share the history in `dwords[d]`.
    whole: Vec<u64>,
    /// Dwords of `dwords` not set in `whole`: with none, a lane's dword is whole unlooked.
    splits: usize,
    /// Per block of [`BLOCK`] dwords, what its histories hold of the newest interval in them.
    newest: Vec<Newest>,
    /// The workgroup's first barrier interval: histories of earlier ones are left over from
    /// the workgroups before ([`LdsHistory::start`]), and their writes wrote nothing of this
    /// workgroup's LDS.
    base: u32,
    /// A load to LDS wrote since the histories were last cleared: its marks are of no
    /// interval, so they are not told apart from this workgroup's by `base`.
    loaded: bool,
}

/// Dwords a [`Newest`] covers: a row of 64 lanes' dwords. (Tests use small blocks, so that
/// their small LDS has several.)
const BLOCK: usize = if cfg!(test) { 4 } else { 64 };

/// The newest barrier epoch of any access in a block of histories, whether one wave alone made
/// the block's accesses of it, and whether they were all atomics. Waves one barrier behind add
/// accesses of older epochs, which change nothing about the newest; only an access of the
/// newest by another wave, or one that is not an atomic, does. Loads to LDS (`set_write`) are
/// of an epoch no wave is in, race with nothing, and are not noted.
#[derive(Clone, Copy, Debug, Default)]
struct Newest {
    /// No access yet.
    any: bool,
    epoch: u32,
    wave: u8,
    alone: bool,
    atomic: bool,
}

impl Newest {
    /// Notes access `me` of kind `access`, and returns whether it races with nothing the block
    /// held before: nothing of its interval, only its wave's accesses, or only atomics when it
    /// is an atomic. Its history then becomes what [`Cell::record_own`] makes of it, as
    /// [`Cell::access`] would.
    #[inline(always)]
    fn note(&mut self, me: Mark, access: Access) -> bool {
        let (epoch, wave, atomic) = (me.epoch(), me.wave(), access == Access::Atomic);
        if !self.any || epoch > self.epoch {
            *self = Newest {
                any: true,
                epoch,
                wave,
                alone: true,
                atomic,
            };
            return true;
        }
        if epoch < self.epoch {
            return false;
        }
        let quiet = (self.alone && self.wave == wave) || (self.atomic && atomic);
        self.alone &= self.wave == wave;
        self.atomic &= atomic;
        quiet
    }
}

/// What one lane's access of one part found ([`LdsHistory::access_dwords`]): the lane, the
/// part, the offset of the first byte no one had written (a load or an atomic) and the race.
pub type Found = (u8, u8, Option<usize>, Option<Conflict>);

impl LdsHistory {
    /// The history of `size` bytes that nothing has accessed.
    pub fn new(size: usize) -> LdsHistory {
        let mut h = LdsHistory {
            dwords: vec![Cell::default(); size / 4],
            bytes: vec![Cell::default(); size],
            whole: vec![0; (size / 4).div_ceil(64)],
            splits: 0,
            newest: vec![Newest::default(); size.div_ceil(4).div_ceil(BLOCK)],
            base: 0,
            loaded: false,
        };
        h.reset();
        h
    }

    /// Starts the workgroup whose barrier intervals start at `base`, above those of every
    /// history kept: what they hold is of no interval of it, so they race with nothing and wrote
    /// nothing it reads, as cleared ones would; they are not cleared (four kilobytes for a
    /// kilobyte of LDS, every workgroup). Unless a load to LDS wrote some.
    pub fn start(&mut self, base: u32) {
        if self.loaded {
            self.reset();
        }
        self.base = base;
    }

    /// Nothing has accessed any byte: every whole dword's history is cleared (the bytes of a
    /// dword are not read until it is split, which copies its history over them), a last
    /// partial dword's bytes one by one.
    pub fn reset(&mut self) {
        self.loaded = false;
        let dwords = self.dwords.len();
        self.dwords.fill(Cell::default());
        self.bytes[4 * dwords..].fill(Cell::default());
        self.whole.fill(u64::MAX);
        self.splits = 0;
        self.newest.fill(Newest::default());
        if let Some(last) = self.whole.last_mut() {
            if !dwords.is_multiple_of(64) {
                *last = (1 << (dwords % 64)) - 1;
            }
        }
    }

    #[inline]
    fn is_whole(&self, d: usize) -> bool {
        self.whole[d / 64] >> (d % 64) & 1 != 0
    }

    /// Gives each byte of the dwords `[addr, addr + len)` touches a history of its own.
    #[inline]
    fn split(&mut self, addr: usize, len: usize) {
        for d in addr / 4..(addr + len).div_ceil(4).min(self.dwords.len()) {
            if self.is_whole(d) {
                let first = self.dwords[d];
                self.bytes[4 * d..4 * d + 4].fill(first);
                self.whole[d / 64] &= !(1 << (d % 64));
                self.splits += 1;
            }
        }
    }

    /// Records access `me` of the whole dword `d` and returns the offset of its first byte no
    /// one had written (for a load or an atomic) and the first race, as [`access_run`] over its
    /// bytes does.
    #[inline(always)]
    fn access_dword(
        &mut self,
        d: usize,
        me: Mark,
        access: Access,
    ) -> (Option<usize>, Option<Conflict>) {
        let reads = access != Access::Store;
        if self.is_whole(d) {
            let base = self.base;
            let cell = &mut self.dwords[d];
            let u = (reads && !cell.write.since(base)).then_some(0);
            return (u, cell.access(me, access));
        }
        self.access_split(d, me, access)
    }

    /// [`LdsHistory::access_dword`] of a dword whose bytes have histories of their own: kept
    /// whole again from now on when they are the same.
    #[inline(never)]
    fn access_split(
        &mut self,
        d: usize,
        me: Mark,
        access: Access,
    ) -> (Option<usize>, Option<Conflict>) {
        let base = self.base;
        let cells = &mut self.bytes[4 * d..4 * d + 4];
        if cells[1..].iter().all(|c| *c == cells[0]) {
            self.dwords[d] = cells[0];
            self.whole[d / 64] |= 1 << (d % 64);
            self.splits -= 1;
            return self.access_dword(d, me, access);
        }
        access_run(cells, me, access, base)
    }

    /// Records access `me` of each byte of `[addr, addr + len)` (inside the LDS) and returns
    /// the offset of the first byte no one had written (for a load or an atomic, which read)
    /// and the first race, as [`access_run`] over the bytes' histories does. Always in line:
    /// `me` made just before (a lane put into an instruction's mark) and read back through
    /// memory in a call stalls.
    #[inline(always)]
    pub fn access(
        &mut self,
        addr: usize,
        len: usize,
        me: Mark,
        access: Access,
    ) -> (Option<usize>, Option<Conflict>) {
        if len > 0 {
            for b in addr / 4 / BLOCK..=(addr + len - 1) / 4 / BLOCK {
                self.newest[b].note(me, access);
            }
        }
        if !addr.is_multiple_of(4) || !len.is_multiple_of(4) {
            self.split(addr, len);
            return access_run(&mut self.bytes[addr..addr + len], me, access, self.base);
        }
        let (mut unwritten, mut conflict) = (None, None);
        for k in 0..len / 4 {
            let (u, c) = self.access_dword(addr / 4 + k, me, access);
            unwritten = unwritten.or(u.map(|i| 4 * k + i));
            conflict = conflict.or(c);
        }
        (unwritten, conflict)
    }

    /// [`LdsHistory::access`] of one dword a lane for each lane in `exec`, in lane order and
    /// part by part within a lane: the dword at `addrs[l]` of each part (a multiple of 4 inside
    /// the LDS), by `mark` with the lane's number put in. What found something goes to
    /// `found`, in the same order. One loop over the lanes with nothing but the histories in
    /// it: the general form's byte runs and results per part cost more than the history.
    #[inline]
    pub fn access_dwords(
        &mut self,
        exec: u64,
        parts: &[&[u32; 64]],
        mark: Mark,
        access: Access,
        found: &mut Vec<Found>,
    ) {
        if self.note_lanes(exec, parts, mark, access) {
            // Nothing to race with: each history becomes what `Cell::record_own` makes of it,
            // which is what `Cell::access` makes of a history with nothing to race with, and
            // only initcheck's unwritten bytes are looked for.
            if let (u64::MAX, [addrs]) = (exec, parts) {
                if let Some(d0) = self.whole_row(addrs, exec) {
                    self.quiet_row(d0, mark, access, found);
                    return;
                }
            }
            if let [addrs] = parts {
                if self.quiet_lanes(exec, addrs, mark, access, found) {
                    return;
                }
            }
            self.visit(exec, parts, mark, access, found, |cell, me| {
                cell.record_own(me, me, me.mask(), access);
                None
            });
        } else {
            self.visit(exec, parts, mark, access, found, |cell, me| {
                cell.access(me, access)
            });
        }
    }

    /// [`LdsHistory::access_dwords`] of a row of 64 lanes on the whole dwords from `d0`, none
    /// of which can race: what [`LdsHistory::visit`] does with `Cell::record_own`, in a loop
    /// with no branch per lane (a reduction's tree and its loads and stores of `sdata[tid]`).
    fn quiet_row(&mut self, d0: usize, mark: Mark, access: Access, found: &mut Vec<Found>) {
        let base = self.base;
        let Some(cells) = self.dwords.get_mut(d0..d0 + 64) else {
            return;
        };
        // initcheck: the lanes whose dword no wave of the workgroup has written.
        let unwritten = match access {
            Access::Store => 0,
            _ => cells
                .iter()
                .enumerate()
                .fold(0u64, |m, (l, c)| m | (!c.write.since(base) as u64) << l),
        };
        for (l, cell) in cells.iter_mut().enumerate() {
            let me = mark.with_lane(l as u8);
            cell.record_own(me, me, me.mask(), access);
        }
        let mut lanes = unwritten;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as u8;
            lanes &= lanes - 1;
            found.push((l, 0, Some(0), None));
        }
    }

    /// [`LdsHistory::access_dwords`] of lanes anywhere (a histogram's bins), none of which can
    /// race, when no dword is split: what [`LdsHistory::visit`] does with `Cell::record_own`,
    /// with no dword's split looked at. False, with nothing
    /// recorded, when a dword is split.
    fn quiet_lanes(
        &mut self,
        exec: u64,
        addrs: &[u32; 64],
        mark: Mark,
        access: Access,
        found: &mut Vec<Found>,
    ) -> bool {
        // (A last partial dword has only byte histories.)
        let len = self.dwords.len() as u32;
        let outside = (0..64).fold(0, |m, l| m | (addrs[l] / 4 >= len) as u64 & exec >> l & 1);
        if self.splits != 0 || outside != 0 {
            return false;
        }
        let base = self.base;
        let cells = &mut self.dwords[..];
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let cell = &mut cells[addrs[l] as usize / 4];
            let me = mark.with_lane(l as u8);
            if access != Access::Store && !cell.write.since(base) {
                found.push((l as u8, 0, Some(0), None));
            }
            cell.record_own(me, me, me.mask(), access);
        }
        true
    }

    /// [`LdsHistory::access_dwords`]'s walk over the lanes' whole dwords, each history
    /// recorded by `record` (which returns the race it found); split dwords by
    /// [`LdsHistory::access_split`].
    #[inline(always)]
    fn visit(
        &mut self,
        exec: u64,
        parts: &[&[u32; 64]],
        mark: Mark,
        access: Access,
        found: &mut Vec<Found>,
        mut record: impl FnMut(&mut Cell, Mark) -> Option<Conflict>,
    ) {
        let (reads, base) = (access != Access::Store, self.base);
        if let [addrs] = parts {
            if let Some(d0) = self.whole_row(addrs, exec) {
                // A row (`sdata[threadIdx.x]`) of whole dwords: consecutive histories, with
                // no address or split to look at per lane.
                // (The active lanes only: after `if (tid < s)` a tree's rows have few.)
                let cells = &mut self.dwords[d0..];
                let mut lanes = exec;
                while lanes != 0 {
                    let l = lanes.trailing_zeros() as usize;
                    lanes &= lanes - 1;
                    let Some(cell) = cells.get_mut(l) else { break };
                    let unwritten = reads && !cell.write.since(base);
                    match record(cell, mark.with_lane(l as u8)) {
                        None if !unwritten => {}
                        c => found.push((l as u8, 0, unwritten.then_some(0), c)),
                    }
                }
                return;
            }
        }
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let me = mark.with_lane(l as u8);
            for (p, addrs) in parts.iter().enumerate() {
                let d = addrs[l] as usize / 4;
                if !self.is_whole(d) {
                    let (u, c) = self.access_split(d, me, access);
                    if u.is_some() || c.is_some() {
                        found.push((l as u8, p as u8, u, c));
                    }
                    continue;
                }
                // The result looked at only when there is one: built into a pair and tested
                // after, it went through the stack, stored in parts and read back whole.
                let cell = &mut self.dwords[d];
                let unwritten = reads && !cell.write.since(base);
                match record(cell, me) {
                    None if !unwritten => {}
                    c => found.push((l as u8, p as u8, unwritten.then_some(0), c)),
                }
            }
        }
    }

    /// Notes in the blocks' [`Newest`] the accesses [`LdsHistory::access_dwords`] is given,
    /// and returns whether none of them can race with what the blocks held before.
    #[inline]
    fn note_lanes(&mut self, exec: u64, parts: &[&[u32; 64]], mark: Mark, access: Access) -> bool {
        let mut quiet = true;
        for addrs in parts {
            let block = |l: usize| addrs[l] / (4 * BLOCK as u32);
            let active = |l: usize| (exec >> l & 1).wrapping_neg() as u32;
            // The blocks the lanes touch, each noted once (a note is the same made once or
            // again by the same instruction), found in passes over the lanes with no branch in
            // them, so that they vectorise: lanes on data-dependent places (a histogram's bins)
            // move from block to block at random.
            // Bit k of `blocks`: block lo + k, for the blocks from 32 before the first lane's
            // to 31 after; `far`: a lane outside them.
            let lo = block(exec.trailing_zeros() as usize % 64).wrapping_sub(32);
            let (blocks, far) = (0..64).fold((0u64, 0u32), |(m, far), l| {
                let k = block(l).wrapping_sub(lo);
                (
                    m | (1u64 << (k & 63)) & (exec >> l & 1).wrapping_neg(),
                    far | (k >> 6) & active(l),
                )
            });
            if far == 0 {
                let mut blocks = blocks;
                while blocks != 0 {
                    let b = lo.wrapping_add(blocks.trailing_zeros()) as usize;
                    blocks &= blocks - 1;
                    quiet &= self.newest[b].note(mark, access);
                }
                continue;
            }
            // Lanes far apart: each block noted where the lanes move to another.
            let mut last = usize::MAX;
            let mut lanes = exec;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let b = block(l) as usize;
                if b != last {
                    quiet &= self.newest[b].note(mark, access);
                    last = b;
                }
            }
        }
        quiet
    }

    /// The first dword of the row lane `l` of `exec` at dword `d0 + l` (the addresses
    /// `addrs`, each a multiple of 4 inside the LDS) when every one of the lanes' dwords is
    /// whole.
    #[inline]
    fn whole_row(&self, addrs: &[u32; 64], exec: u64) -> Option<usize> {
        let first = exec.trailing_zeros().min(63);
        let start = addrs[first as usize].wrapping_sub(4 * first);
        // With every lane in EXEC (the usual case) the pass has no mask to make per lane.
        let apart = match exec {
            u64::MAX => (0..64).fold(0, |m, l| m | addrs[l] ^ start.wrapping_add(4 * l as u32)),
            _ => (0..64).fold(0, |m, l| {
                m | (addrs[l] ^ start.wrapping_add(4 * l as u32))
                    & (exec >> l & 1).wrapping_neg() as u32
            }),
        };
        if exec == 0 || apart != 0 || !start.is_multiple_of(4) {
            return None;
        }
        let d0 = start as usize / 4;
        // The whole bits of dwords d0 .. d0 + 64 (those past the end read as split).
        let (w, b) = (d0 / 64, d0 % 64);
        let lo = self.whole.get(w).copied().unwrap_or(0) >> b;
        let hi = match b {
            0 => 0,
            _ => self.whole.get(w + 1).copied().unwrap_or(0) << (64 - b),
        };
        ((lo | hi) & exec == exec).then_some(d0)
    }

    /// Sets the write history of `[addr, addr + len)` (clamped to the LDS) to `mark`.
    pub fn set_write(&mut self, addr: usize, len: usize, mark: Mark) {
        self.loaded = true;
        let end = (addr + len).min(self.bytes.len());
        let addr = addr.min(end);
        self.split(addr, end - addr);
        for c in &mut self.bytes[addr..end] {
            c.write = mark;
        }
    }

    /// The history of byte `addr`.
    #[cfg(test)]
    pub fn byte(&self, addr: usize) -> Cell {
        let d = addr / 4;
        if d < self.dwords.len() && self.is_whole(d) {
            self.dwords[d]
        } else {
            self.bytes[addr]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A history as it stands for the workgroup whose intervals start at `base`: what is left
    /// of earlier workgroups is as no access.
    fn as_of(c: Cell, base: u32) -> Cell {
        let keep = |m: Mark| if m.since(base) { m } else { Mark::default() };
        Cell {
            write: keep(c.write),
            read: keep(c.read),
        }
    }

    /// Random accesses of every size and alignment by a few waves across barriers give the
    /// same results and byte histories as a plain history per byte, cleared for each
    /// workgroup where the history is not (a load to LDS now and then has it cleared).
    #[test]
    fn whole_dwords_agree_with_a_history_per_byte() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        const SIZE: usize = 70;
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        let mut h = LdsHistory::new(SIZE);
        let mut base = 0;
        for round in 0..50 {
            h.start(base);
            let mut plain = vec![Cell::default(); SIZE];
            for step in 0..400u32 {
                let len = [1, 2, 4, 4, 4, 8, 12, 16][(next() % 8) as usize];
                let addr = if next() % 4 == 0 {
                    (next() as usize) % (SIZE - len + 1)
                } else {
                    4 * ((next() as usize) % ((SIZE - len) / 4 + 1))
                };
                let access = accesses[(next() % 3) as usize];
                // Now and then a wave one barrier behind the others.
                let epoch = base + step / 100 - (step >= 100 && next() % 8 == 0) as u32;
                let me = Mark::new(epoch, step, (next() % 3) as u32, 0, access, 1);
                if round % 4 == 0 && next() % 50 == 0 {
                    let dma = Mark::new(u32::MAX, 0, 255, 0, Access::Store, 1);
                    h.set_write(addr, len, dma);
                    for c in &mut plain[addr..addr + len] {
                        c.write = dma;
                    }
                    continue;
                }
                let want = access_run(&mut plain[addr..addr + len], me, access, 0);
                let got = h.access(addr, len, me, access);
                assert_eq!(got, want, "round {round} step {step}: {len} at {addr}");
                for (b, c) in plain.iter().enumerate() {
                    let got = as_of(h.byte(b), base);
                    assert_eq!(got, *c, "round {round} step {step}: byte {b}");
                }
            }
            base += 400 / 100 + 2;
        }
        h.reset();
        for b in 0..SIZE {
            assert_eq!(h.byte(b), Cell::default());
        }
    }

    /// Waves of lanes on whole aligned dwords (one part or two, as `ds_read2_b32`), between
    /// accesses of other sizes that split dwords, find and leave what recording each lane's
    /// bytes one by one does.
    #[test]
    fn lanes_of_dwords_agree_with_a_history_per_byte() {
        let mut seed = 0x6a09_e667_f3bc_c908u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Room for a row of 64 lanes from any of the first 9 dwords; the lanes here and there
        // crowd the first 24.
        const SIZE: usize = 72 * 4;
        const CROWD: u64 = 24;
        let accesses = [Access::Load, Access::Store, Access::Atomic];
        // One history for every workgroup, as an `Lds` keeps it.
        let mut h = LdsHistory::new(SIZE);
        let mut base = 0;
        for round in 0..30 {
            h.start(base);
            let mut plain = vec![Cell::default(); SIZE];
            for step in 0..300u32 {
                let access = accesses[(next() % 3) as usize];
                let epoch = base + step / 60 - (step >= 60 && next() % 8 == 0) as u32;
                // In every other workgroup, one wave at a time for a while: its accesses race
                // with nothing, and go the ways that look at no race.
                let wave = match round % 2 {
                    0 => step / 25 % 3,
                    _ => (next() % 3) as u32,
                };
                let mark = Mark::new(epoch, step, wave, 0, access, 1);
                if next() % 4 == 0 {
                    // A narrow or unaligned access, which splits the dwords it touches.
                    let len = [1, 2, 4][(next() % 3) as usize];
                    let addr = (next() as usize) % (4 * CROWD as usize - len + 1);
                    let want = access_run(&mut plain[addr..addr + len], mark, access, 0);
                    assert_eq!(h.access(addr, len, mark, access), want);
                    continue;
                }
                // Lanes on dwords here and there, or a row (`sdata[threadIdx.x]`) with the
                // lanes past the end outside EXEC.
                let start = 4 * (next() % 12) as u32;
                let row = next() % 2 == 0;
                let rows: Vec<[u32; 64]> = (0..1 + next() % 2)
                    .map(|_| {
                        std::array::from_fn(|l| match row {
                            true => start + 4 * l as u32,
                            false => 4 * (next() % CROWD) as u32,
                        })
                    })
                    .collect();
                let inside = (0..64).fold(0u64, |m, l| {
                    m | ((rows.iter().all(|r| r[l] as usize + 4 <= SIZE)) as u64) << l
                });
                let exec = match next() % 3 {
                    0 => inside,
                    _ => next() & next() & inside,
                };
                let mut want = Vec::new();
                for l in (0..64).filter(|l| exec >> l & 1 != 0) {
                    for (p, row) in rows.iter().enumerate() {
                        let a = row[l] as usize;
                        let me = mark.with_lane(l as u8);
                        let (u, c) = access_run(&mut plain[a..a + 4], me, access, 0);
                        if u.is_some() || c.is_some() {
                            want.push((l as u8, p as u8, u, c));
                        }
                    }
                }
                let parts: Vec<&[u32; 64]> = rows.iter().collect();
                let mut got = Vec::new();
                h.access_dwords(exec, &parts, mark, access, &mut got);
                assert_eq!(got, want, "round {round} step {step}");
                for (b, c) in plain.iter().enumerate() {
                    let got = as_of(h.byte(b), base);
                    assert_eq!(got, *c, "round {round} step {step}: byte {b}");
                }
            }
            base += 300 / 60 + 2;
        }
    }
}
