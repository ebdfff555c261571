//! racecheck's history of every LDS byte of a workgroup, kept a dword at a time while the
//! dword's four bytes share one history.
//!
//! The history is per byte (waves using different bytes of one dword do not race, and a report
//! names the byte), but DS accesses are almost all whole aligned dwords, which leave the four
//! bytes with one history. Such a dword keeps only its first byte's history, standing for all
//! four: a whole-dword access records it once, where four byte histories would be compared,
//! recorded and copied. Any other access first gives each byte its own copy. Recording one
//! history for four identical ones gives what recording each gives (the same history and the
//! same access make the same result), so the findings are those of a history per byte.

use super::race::{access_run, Cell, Conflict, Mark};
use super::Access;

#[derive(Debug)]
pub struct LdsHistory {
    /// One history per byte; of a dword set in `whole`, only the first byte's is current.
    bytes: Vec<Cell>,
    /// Bit `d % 64` of word `d / 64`: dword `d`'s bytes share the history of its first byte.
    whole: Vec<u64>,
}

impl LdsHistory {
    /// The history of `size` bytes that nothing has accessed.
    pub fn new(size: usize) -> LdsHistory {
        let mut h = LdsHistory {
            bytes: vec![Cell::default(); size],
            whole: vec![0; (size / 4).div_ceil(64)],
        };
        h.reset();
        h
    }

    /// Nothing has accessed any byte: each whole dword's first byte is cleared (the others are
    /// not read until the dword is split, which copies the first), a last partial dword's
    /// bytes one by one.
    pub fn reset(&mut self) {
        let dwords = self.bytes.len() / 4;
        for d in 0..dwords {
            self.bytes[4 * d] = Cell::default();
        }
        self.bytes[4 * dwords..].fill(Cell::default());
        self.whole.fill(u64::MAX);
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
        for d in addr / 4..(addr + len).div_ceil(4).min(self.bytes.len() / 4) {
            if self.is_whole(d) {
                let first = self.bytes[4 * d];
                self.bytes[4 * d + 1..4 * d + 4].fill(first);
                self.whole[d / 64] &= !(1 << (d % 64));
            }
        }
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
        if !addr.is_multiple_of(4) || !len.is_multiple_of(4) {
            self.split(addr, len);
            return access_run(&mut self.bytes[addr..addr + len], me, access);
        }
        let reads = access != Access::Store;
        let (mut unwritten, mut conflict) = (None, None);
        for k in 0..len / 4 {
            let d = addr / 4 + k;
            let (u, c) = if self.is_whole(d) {
                let first = &mut self.bytes[4 * d];
                let u = (reads && !first.write.valid()).then_some(0);
                (u, first.access(me, access))
            } else {
                let cells = &mut self.bytes[4 * d..4 * d + 4];
                if cells[1..].iter().all(|c| *c == cells[0]) {
                    // One history again: kept in the first byte from now on.
                    self.whole[d / 64] |= 1 << (d % 64);
                    let u = (reads && !cells[0].write.valid()).then_some(0);
                    (u, cells[0].access(me, access))
                } else {
                    access_run(cells, me, access)
                }
            };
            unwritten = unwritten.or(u.map(|i| 4 * k + i));
            conflict = conflict.or(c);
        }
        (unwritten, conflict)
    }

    /// Sets the write history of `[addr, addr + len)` (clamped to the LDS) to `mark`.
    pub fn set_write(&mut self, addr: usize, len: usize, mark: Mark) {
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
        if d < self.bytes.len() / 4 && self.is_whole(d) {
            self.bytes[4 * d]
        } else {
            self.bytes[addr]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random accesses of every size and alignment by a few waves across barriers give the
    /// same results and byte histories as a plain history per byte.
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
        for round in 0..50 {
            let mut h = LdsHistory::new(SIZE);
            let mut plain = vec![Cell::default(); SIZE];
            for step in 0..400u32 {
                let len = [1, 2, 4, 4, 4, 8, 12, 16][(next() % 8) as usize];
                let addr = if next() % 4 == 0 {
                    (next() as usize) % (SIZE - len + 1)
                } else {
                    4 * ((next() as usize) % ((SIZE - len) / 4 + 1))
                };
                let access = accesses[(next() % 3) as usize];
                let epoch = step / 100;
                let me = Mark::new(epoch, step, (next() % 3) as u32, 0, access, 1);
                if next() % 50 == 0 {
                    let dma = Mark::new(u32::MAX, 0, 255, 0, Access::Store, 1);
                    h.set_write(addr, len, dma);
                    for c in &mut plain[addr..addr + len] {
                        c.write = dma;
                    }
                    continue;
                }
                let want = access_run(&mut plain[addr..addr + len], me, access);
                let got = h.access(addr, len, me, access);
                assert_eq!(got, want, "round {round} step {step}: {len} at {addr}");
                for (b, c) in plain.iter().enumerate() {
                    assert_eq!(h.byte(b), *c, "round {round} step {step}: byte {b}");
                }
            }
            h.reset();
            for b in 0..SIZE {
                assert_eq!(h.byte(b), Cell::default());
            }
        }
    }
}
