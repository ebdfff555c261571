//! The local data share of one workgroup: its static plus dynamic allocation, byte-addressed.
//!
//! An access outside the workgroup's allocation is reported as a fault (the hardware would return
//! zero and drop the write; a kernel doing that has a bug worth naming). Bank conflicts are the
//! timing model's ([`crate::lds_banks`]), charged per DS instruction, not here.

use crate::check::group::GroupShadow;

/// Upper bound of LDS a workgroup may allocate on gfx9.
pub const LDS_MAX: u32 = 64 * 1024;

/// Waves a workgroup can have (1024 work-items of 64).
const MAX_WAVES: usize = 16;

#[cfg(test)]
thread_local! {
    /// Tests set it to send every DS access down the per-lane path: no range of lanes is then
    /// "in range" as a whole.
    pub(crate) static PER_LANE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[derive(Debug)]
pub struct Lds {
    data: Vec<u8>,
    /// The workgroup using it (for the sanitizers' reports).
    pub group: [u32; 3],
    /// `s_barrier`s each wave of the workgroup has passed: the racecheck's epochs, from `base`.
    barriers: [u32; MAX_WAVES],
    /// The first epoch of the workgroup: above every epoch of the workgroups before it on this
    /// LDS, so that the histories they left behind are of no interval of this one, and the
    /// sanitizers need not clear them.
    base: u32,
    /// The sanitizers' state of the workgroup (its LDS and global access history), made at the
    /// first checked access.
    pub(crate) shadow: Option<Box<GroupShadow>>,
    /// Writes so far: the spin detector's sign that the workgroup's LDS may have changed.
    writes: u64,
    /// Waves in the workgroup ([`MAX_WAVES`] unless told): with one, no two of its waves can
    /// race, and racecheck has no global history to keep.
    waves: u32,
}

/// One part of a DS store for [`Lds::store_lanes`]: each lane's address, how many dwords, and
/// the VGPR rows they come from.
pub type StorePart<'a> = (&'a [u32; 64], usize, [&'a [u32; 64]; 4]);

impl Lds {
    /// `size` bytes of zeroed LDS (callers check `size <= LDS_MAX`).
    pub fn new(size: u32) -> Lds {
        Lds {
            data: vec![0; size as usize],
            group: [0; 3],
            barriers: [0; MAX_WAVES],
            base: 0,
            shadow: None,
            writes: 0,
            waves: MAX_WAVES as u32,
        }
    }

    /// The workgroup has `waves` waves.
    pub fn with_waves(self, waves: u32) -> Lds {
        Lds { waves, ..self }
    }

    /// Whether the workgroup is one wave, which nothing of its own can race with in global
    /// memory.
    #[inline]
    pub fn one_wave(&self) -> bool {
        self.waves <= 1
    }

    /// Fresh LDS for workgroup `group`.
    pub fn for_group(size: u32, group: [u32; 3]) -> Lds {
        Lds {
            group,
            ..Lds::new(size)
        }
    }

    /// Wave `wave` passed an `s_barrier`. Counted always (one add per barrier) so that the
    /// epochs are right whenever the first checked access comes.
    #[inline]
    pub fn note_barrier(&mut self, wave: u32) {
        if let Some(n) = self.barriers.get_mut(wave as usize) {
            *n += 1;
        }
    }

    /// The barrier interval wave `wave` is in: how many barriers it has passed, counted from
    /// the workgroup's first epoch.
    pub fn epoch(&self, wave: u32) -> u32 {
        self.base + self.barriers.get(wave as usize).copied().unwrap_or(0)
    }

    pub fn size(&self) -> u32 {
        self.data.len() as u32
    }

    /// Frees the bytes, once nothing can access them again (the workgroup has ended and no
    /// request of its waves that may reach its LDS is left): the timing model holds a group
    /// until its last memory request has run, which may be long after the hardware gave its
    /// LDS to the next.
    pub fn release(&mut self) {
        self.data = Vec::new();
    }

    /// Zeroes the contents for the next workgroup (LDS is not preserved between workgroups).
    pub fn reset(&mut self) {
        self.data.fill(0);
        // The next workgroup's epochs start past every one of this workgroup's (a wave's
        // epoch may be one past its barriers: see `GroupShadow`'s waves one behind).
        let passed = self.barriers.iter().max().copied().unwrap_or(0);
        let next = self
            .base
            .checked_add(passed + 2)
            .filter(|&b| b < crate::check::race::EPOCHS / 2);
        self.barriers = [0; MAX_WAVES];
        self.writes = self.writes.wrapping_add(1);
        self.base = next.unwrap_or(0);
        if let Some(s) = &mut self.shadow {
            s.reset(self.base);
            // Epochs start again from 0 (after some eight million barriers, over the
            // workgroups): the histories of the workgroups before could be of this one's
            // intervals.
            if next.is_none() {
                s.forget();
            }
        }
    }

    /// Resets for workgroup `group`.
    pub fn start_group(&mut self, group: [u32; 3]) {
        self.reset();
        self.group = group;
    }

    /// How many writes the LDS has seen (equal counts: unchanged).
    #[inline]
    pub fn writes(&self) -> u64 {
        self.writes
    }

    #[inline]
    fn range(&self, addr: u32, len: usize) -> Option<std::ops::Range<usize>> {
        let start = addr as usize;
        let end = start.checked_add(len)?;
        (end <= self.data.len()).then_some(start..end)
    }

    #[inline]
    pub fn bytes(&self, addr: u32, len: usize) -> Option<&[u8]> {
        self.range(addr, len).map(|r| &self.data[r])
    }

    #[inline]
    pub fn bytes_mut(&mut self, addr: u32, len: usize) -> Option<&mut [u8]> {
        self.writes = self.writes.wrapping_add(1);
        self.range(addr, len).map(|r| &mut self.data[r])
    }

    #[inline]
    pub fn read_u32(&self, addr: u32) -> Option<u32> {
        self.bytes(addr, 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Whether `words` dwords from `addr[l]` lie inside the LDS for every lane in `exec`.
    #[inline]
    pub fn lanes_in_range(&self, addr: &[u32; 64], exec: u64, words: usize) -> bool {
        self.bytes_in_range(addr, exec, 4 * words)
    }

    /// Whether `bytes` bytes from `addr[l]` lie inside the LDS for every lane in `exec`.
    #[inline]
    pub fn bytes_in_range(&self, addr: &[u32; 64], exec: u64, bytes: usize) -> bool {
        #[cfg(test)]
        if PER_LANE.get() {
            return false;
        }
        let size = self.data.len() as u64;
        let mut bad = 0u64;
        for (l, &a) in addr.iter().enumerate() {
            bad |= ((a as u64 + bytes as u64 > size) as u64) << l;
        }
        bad & exec == 0
    }

    /// The byte (`bytes` 1) or little-endian short (2) at `addr[l]` of every lane in `exec`,
    /// zero-extended into `out[l]`; the caller has checked the range
    /// ([`Lds::bytes_in_range`]).
    #[inline]
    pub fn load_narrow(&self, addr: &[u32; 64], exec: u64, bytes: usize, out: &mut [u32; 64]) {
        for (l, &a) in addr.iter().enumerate() {
            if exec >> l & 1 != 0 {
                let at = a as usize;
                out[l] = match bytes {
                    1 => self.data[at] as u32,
                    _ => u16::from_le_bytes([self.data[at], self.data[at + 1]]) as u32,
                };
            }
        }
    }

    /// Stores the low byte (`bytes` 1) or short (2) of `vals[l]` at `addr[l]` for every lane in
    /// `exec`, in lane order; the caller has checked the range.
    #[inline]
    pub fn store_narrow(&mut self, addr: &[u32; 64], exec: u64, bytes: usize, vals: &[u32; 64]) {
        self.writes = self.writes.wrapping_add(1);
        for (l, &a) in addr.iter().enumerate() {
            if exec >> l & 1 != 0 {
                let at = a as usize;
                let v = vals[l].to_le_bytes();
                self.data[at] = v[0];
                if bytes == 2 {
                    self.data[at + 1] = v[1];
                }
            }
        }
    }

    /// Dword `i` of every lane in `exec` at `addr[l] + 4i`, for `i < words`, into `out[i]`; the
    /// caller has checked the range ([`Lds::lanes_in_range`]). The DS fast path: a move per
    /// dword instead of a checked byte-slice copy per lane.
    #[inline]
    pub fn load_lanes(&self, addr: &[u32; 64], exec: u64, words: usize, out: &mut [[u32; 64]]) {
        // One loop per width, so each lane is one range check and `W` moves (a loop over a
        // run-time width checked and branched per dword).
        match words {
            0 => {}
            1 => self.load_lanes_of::<1>(addr, exec, out),
            2 => self.load_lanes_of::<2>(addr, exec, out),
            3 => self.load_lanes_of::<3>(addr, exec, out),
            _ => self.load_lanes_of::<4>(addr, exec, out),
        }
    }

    #[inline(always)]
    fn load_lanes_of<const W: usize>(&self, addr: &[u32; 64], exec: u64, out: &mut [[u32; 64]]) {
        let out = &mut out[..W];
        for (l, &a) in addr.iter().enumerate() {
            if exec >> l & 1 == 0 {
                continue;
            }
            let at = a as usize;
            let lane = &self.data[at..at + 4 * W];
            for (i, row) in out.iter_mut().enumerate() {
                let b = &lane[4 * i..4 * i + 4];
                row[l] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }

    /// Where the wave's 256 bytes start when each lane `l` in `exec` addresses the dword `4l`
    /// bytes after a common start (what `sdata[threadIdx.x]` compiles to; lanes outside EXEC
    /// may hold anything, as a tree reduction's `sdata[tid + s]` computed under the EXEC of
    /// `tid < s` does) and all 64 dwords from that start lie inside the LDS: [`Lds::load_row`]
    /// and [`Lds::store_row`] then move the row as one block, under EXEC.
    #[inline]
    pub fn dword_row(&self, addr: &[u32; 64], exec: u64) -> Option<usize> {
        #[cfg(test)]
        if PER_LANE.get() {
            return None;
        }
        // (No lane in EXEC: lane 0's address stands for the start, and nothing moves.)
        let lane = exec.trailing_zeros() as usize % 64;
        let first = addr[lane].wrapping_sub(4 * lane as u32);
        let off = |l: usize| addr[l] ^ first.wrapping_add(4 * l as u32);
        let mut apart = (0..64).fold(0, |m, l| m | off(l));
        if apart != 0 {
            // Again over the lanes in EXEC only, their masks from a table (a shift of EXEC per
            // lane cost more than the compares): every lane's is the common case.
            let active = crate::wave::lane_masks::lanes_of(exec);
            apart = (0..64).fold(0, |m, l| m | off(l) & active[l]);
        }
        let start = first as usize;
        (apart == 0 && start + 256 <= self.data.len()).then_some(start)
    }

    /// The dwords of the row at `start` ([`Lds::dword_row`]) into the lanes of `row` set in
    /// `exec`, the others kept: what [`Lds::load_lanes`] and a VGPR write under EXEC give.
    #[inline]
    pub fn load_row(&self, start: usize, exec: u64, row: &mut [u32; 64]) {
        let vals = self.row_words(start);
        crate::wave::lane_masks::merge_lanes(row, &vals, exec);
    }

    /// The 64 dwords of the row at `start` ([`Lds::dword_row`]).
    #[inline]
    fn row_words(&self, start: usize) -> [u32; 64] {
        // As 4-byte chunks of an array of known length, so the loop is plain vector loads (the
        // bytes gathered one by one into each dword compiled to shuffles and blends on an AVX2
        // host).
        let (words, _) = self.row_bytes(start).as_chunks::<4>();
        let words: &[[u8; 4]; 64] = words.try_into().expect("64 dwords");
        std::array::from_fn(|l| u32::from_le_bytes(words[l]))
    }

    /// The 256 bytes from `start`, which the caller has checked ([`Lds::dword_row`]).
    #[inline]
    fn row_bytes(&self, start: usize) -> &[u8; 256] {
        (&self.data[start..start + 256])
            .try_into()
            .expect("256 bytes")
    }

    /// Stores the lanes of `row` set in `exec` to the row at `start` ([`Lds::dword_row`]): the
    /// lanes' dwords do not overlap, so this is [`Lds::store_row_lanes`] of one dword.
    #[inline]
    pub fn store_row(&mut self, start: usize, exec: u64, row: &[u32; 64]) {
        self.writes = self.writes.wrapping_add(1);
        let mut merged = *row;
        if exec != u64::MAX {
            merged = self.row_words(start);
            crate::wave::lane_masks::merge_lanes(&mut merged, row, exec);
        }
        let (words, _) = self.data[start..start + 256].as_chunks_mut::<4>();
        let words: &mut [[u8; 4]; 64] = words.try_into().expect("64 dwords");
        for l in 0..64 {
            words[l] = merged[l].to_le_bytes();
        }
    }

    /// Stores, lane by lane in lane order, `words` dwords from `rows` at `addr[l]` + 4i; the
    /// caller has checked the range. One loop per width, as [`Lds::load_lanes`].
    #[inline]
    pub fn store_row_lanes(
        &mut self,
        addr: &[u32; 64],
        exec: u64,
        words: usize,
        rows: [&[u32; 64]; 4],
    ) {
        self.writes = self.writes.wrapping_add(1);
        match words {
            0 => {}
            1 => self.store_lanes_of::<1>(addr, exec, rows),
            2 => self.store_lanes_of::<2>(addr, exec, rows),
            3 => self.store_lanes_of::<3>(addr, exec, rows),
            _ => self.store_lanes_of::<4>(addr, exec, rows),
        }
    }

    #[inline(always)]
    fn store_lanes_of<const W: usize>(
        &mut self,
        addr: &[u32; 64],
        exec: u64,
        rows: [&[u32; 64]; 4],
    ) {
        for (l, &a) in addr.iter().enumerate() {
            if exec >> l & 1 == 0 {
                continue;
            }
            let at = a as usize;
            let lane = &mut self.data[at..at + 4 * W];
            for (i, row) in rows.iter().enumerate().take(W) {
                lane[4 * i..4 * i + 4].copy_from_slice(&row[l].to_le_bytes());
            }
        }
    }

    /// Stores, lane by lane in lane order, each part `(addresses, dwords, rows)` of the lane:
    /// dword `i` of a part at its address + 4i from `rows[i]`. The caller has checked the range.
    #[inline]
    pub fn store_lanes(&mut self, exec: u64, parts: &[StorePart]) {
        self.writes = self.writes.wrapping_add(1);
        for l in 0..64 {
            if exec >> l & 1 == 0 {
                continue;
            }
            for (addr, words, rows) in parts {
                for (i, row) in rows.iter().enumerate().take(*words) {
                    let at = addr[l] as usize + 4 * i;
                    self.data[at..at + 4].copy_from_slice(&row[l].to_le_bytes());
                }
            }
        }
    }

    /// Read-modify-writes of `bytes` (4 or 8) at `addr[l]` of every lane in `exec`, in lane
    /// order (lanes on one address see each other's results): the value becomes `new(l, old)`
    /// and `old` goes to `olds[l]` when `olds` is given (a DS atomic that returns its values).
    /// The caller has checked the range ([`Lds::bytes_in_range`]). The DS atomics' fast path.
    #[inline]
    pub fn rmw_lanes(
        &mut self,
        addr: &[u32; 64],
        exec: u64,
        bytes: usize,
        mut new: impl FnMut(usize, u64) -> u64,
        olds: Option<&mut [u64; 64]>,
    ) {
        self.writes = self.writes.wrapping_add(1);
        // One loop per width and per return, each lane's value read and written whole: a copy
        // of a length known only at run time is a call to `memcpy` per lane.
        match (bytes, olds) {
            (4, Some(o)) => self.rmw_lanes_of::<4>(addr, exec, new, |l, old| o[l] = old),
            (4, None) => self.rmw_lanes_of::<4>(addr, exec, new, |_, _| {}),
            (8, Some(o)) => self.rmw_lanes_of::<8>(addr, exec, new, |l, old| o[l] = old),
            (8, None) => self.rmw_lanes_of::<8>(addr, exec, new, |_, _| {}),
            (_, mut olds) => {
                for (l, &a) in addr.iter().enumerate() {
                    if exec >> l & 1 == 0 {
                        continue;
                    }
                    let lane = &mut self.data[a as usize..a as usize + bytes];
                    let mut buf = [0u8; 8];
                    buf[..bytes].copy_from_slice(lane);
                    let old = u64::from_le_bytes(buf);
                    lane.copy_from_slice(&new(l, old).to_le_bytes()[..bytes]);
                    if let Some(o) = olds.as_deref_mut() {
                        o[l] = old;
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn rmw_lanes_of<const N: usize>(
        &mut self,
        addr: &[u32; 64],
        exec: u64,
        mut new: impl FnMut(usize, u64) -> u64,
        mut keep: impl FnMut(usize, u64),
    ) {
        // Every lane's bytes in the LDS, checked once for the wave (a fold that vectorises)
        // rather than at each lane's access: lanes on data-dependent addresses (a histogram's
        // bins) then cost a load, the operation and a store each.
        let len = self.data.len();
        let past = (0..64).fold(0u64, |m, l| m | ((addr[l] as usize + N > len) as u64) << l);
        assert!(
            past & exec == 0,
            "a DS atomic's lanes outside the LDS (the caller checks the range)"
        );
        let data = self.data.as_mut_ptr();
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            // SAFETY: `addr[l] + N <= len` for every lane in `exec`, asserted above.
            let p = unsafe { data.add(addr[l] as usize) }.cast::<[u8; N]>();
            let bytes = unsafe { p.read_unaligned() };
            let mut buf = [0u8; 8];
            buf[..N].copy_from_slice(&bytes);
            let old = u64::from_le_bytes(buf);
            let mut out = [0u8; N];
            out.copy_from_slice(&new(l, old).to_le_bytes()[..N]);
            // SAFETY: as for the read.
            unsafe { p.write_unaligned(out) };
            keep(l, old);
        }
    }

    /// Writes a dword from outside the DS path (MUBUF's `lds` loads); the sanitizers count its
    /// bytes as written, by no wave in particular.
    #[inline]
    pub fn write_u32(&mut self, addr: u32, v: u32) -> Option<()> {
        self.bytes_mut(addr, 4)
            .map(|b| b.copy_from_slice(&v.to_le_bytes()))?;
        if let Some(s) = &mut self.shadow {
            s.note_dma_write(addr as usize, 4);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        let mut l = Lds::new(8);
        assert_eq!(l.write_u32(4, 7), Some(()));
        assert_eq!(l.read_u32(4), Some(7));
        assert_eq!(l.read_u32(5), None);
        assert_eq!(l.read_u32(u32::MAX), None);
        l.reset();
        assert_eq!(l.read_u32(4), Some(0));
    }
}
