//! The coalescer: a wave-instruction's lane addresses become the cache-line requests the
//! texture-address unit (TA) sends to the vector L1, one line per cycle.
//!
//! The TA takes the lanes in groups that carry 64 bytes between them (16 lanes of a dword
//! access, 8 of a dwordx2, 4 of a dwordx4) and sends each group's distinct lines, one per
//! cycle, so a group whose lanes fall in one line costs one cycle and a scattered group one
//! cycle per line. A lane whose access straddles a line boundary touches both lines (or, at
//! the top of the address space, the last). Inactive lanes send nothing; a wave-instruction
//! with no active lane sends nothing at all.

/// Bytes the TA hands to the L1 per cycle (one 64-byte line).
const GROUP_BYTES: u32 = 64;

/// The lines one wave-instruction touches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coalesced {
    /// Distinct line numbers (address / line size), in the order the TA first sends them.
    pub lines: Vec<u64>,
    /// TA cycles: the sum over lane groups of the group's distinct lines.
    pub cycles: u32,
    /// `lines` as a set, built only once a line arrives below the highest one sent (lanes in
    /// address order, the common case, are told apart by that comparison alone), so that a
    /// scattered wave-instruction's up to 128 lines are told apart in time linear in their
    /// number.
    seen: hashbrown::HashSet<u64>,
    /// Whether `lines` is ascending, and so `seen` unused.
    ascending: bool,
}

impl Coalesced {
    /// Adds line `l` to the distinct lines unless it is there.
    #[inline]
    fn add(&mut self, l: u64) {
        if self.ascending {
            match self.lines.last() {
                Some(&last) if l == last => return,
                Some(&last) if l < last => {
                    self.ascending = false;
                    self.seen.extend(self.lines.iter().copied());
                }
                _ => {
                    self.lines.push(l);
                    return;
                }
            }
        }
        if self.seen.insert(l) {
            self.lines.push(l);
        }
    }
}

/// Most lines one lane group can touch: 64 byte lanes, or 4 dwordx4 lanes straddling lines.
const GROUP_LINES: usize = 64;

/// Coalesces `addrs` (the active lanes' byte addresses, in lane order) for an access of
/// `bytes` bytes per lane into lines of `line` bytes (a power of two).
pub fn coalesce(addrs: &[(usize, u64)], bytes: u32, line: u32, out: &mut Coalesced) {
    out.lines.clear();
    out.seen.clear();
    out.ascending = true;
    out.cycles = 0;
    let shift = line.trailing_zeros();
    let per_group = (GROUP_BYTES / bytes.clamp(1, GROUP_BYTES)) as usize;
    let reach = bytes.max(1) as u64 - 1;
    if contiguous(addrs, reach) {
        return coalesce_contiguous(addrs, shift, per_group, reach, out);
    }
    // The current group's distinct lines, and the first lane past it.
    let mut group = [0u64; GROUP_LINES];
    let mut n = 0usize;
    let mut group_end = 0usize;
    let flush = |group: &[u64], out: &mut Coalesced| {
        out.cycles += group.len() as u32;
        for &l in group {
            out.add(l);
        }
    };
    for &(lane, addr) in addrs {
        if lane >= group_end {
            flush(&group[..n], out);
            n = 0;
            group_end = (lane / per_group + 1) * per_group;
        }
        let first = addr >> shift;
        // (A lane's address may be anything: one at the top of the address space faults when
        // its request runs, and its lines stop at the top.)
        let last = addr.saturating_add(reach) >> shift;
        // The common case: the line of the lane before.
        if first == last && n != 0 && group[n - 1] == first {
            continue;
        }
        for l in first..=last {
            if !group[..n].contains(&l) {
                // A group's lanes carry 64 bytes and a lane straddles at most two lines, so
                // the array never fills; were it to, the extra line would only go uncounted.
                if n < GROUP_LINES {
                    group[n] = l;
                    n += 1;
                }
            }
        }
    }
    flush(&group[..n], out);
}

/// Whether `addrs` are consecutive lanes at consecutive accesses of `reach + 1` bytes, in
/// ascending addresses with none reaching past the top of the address space (a unit-stride
/// row: the common case).
fn contiguous(addrs: &[(usize, u64)], reach: u64) -> bool {
    let Some(&(_, last)) = addrs.last() else {
        return false;
    };
    last.checked_add(reach).is_some()
        && addrs
            .windows(2)
            .all(|p| p[1].0 == p[0].0 + 1 && p[0].1.checked_add(reach + 1) == Some(p[1].1))
}

/// [`coalesce`] of a [`contiguous`] row: its lines are those of the span it covers, in
/// order, and each lane group sends the lines of its own span.
fn coalesce_contiguous(
    addrs: &[(usize, u64)],
    shift: u32,
    per_group: usize,
    reach: u64,
    out: &mut Coalesced,
) {
    let row = |k: usize| addrs[k];
    coalesce_span(addrs.len(), row, shift, per_group, reach, out);
}

/// [`coalesce`] of the lanes of `row` (each `bytes` bytes on from the one before), with no
/// list of them made.
pub fn coalesce_row(row: &super::Row, bytes: u32, line: u32, out: &mut Coalesced) {
    out.lines.clear();
    out.seen.clear();
    out.ascending = true;
    out.cycles = 0;
    let per_group = (GROUP_BYTES / bytes.clamp(1, GROUP_BYTES)) as usize;
    let step = bytes.max(1) as u64;
    let lane = |k: usize| (row.first + k, row.addr + k as u64 * step);
    let shift = line.trailing_zeros();
    coalesce_span(row.count, lane, shift, per_group, step - 1, out);
}

/// The lines and TA cycles of `n` lanes, lane `k` being `lane(k)` (its number and address),
/// at consecutive lanes and accesses (`n` at least 1).
#[inline(always)]
fn coalesce_span(
    n: usize,
    lane: impl Fn(usize) -> (usize, u64),
    shift: u32,
    per_group: usize,
    reach: u64,
    out: &mut Coalesced,
) {
    let line_of = |k: usize| lane(k).1 >> shift;
    let end_line_of = |k: usize| (lane(k).1 + reach) >> shift;
    out.lines.extend(line_of(0)..=end_line_of(n - 1));
    let mut k = 0;
    while k < n {
        let l = lane(k).0;
        let next = (k + (l / per_group + 1) * per_group - l).min(n);
        out.cycles += (end_line_of(next - 1) - line_of(k) + 1) as u32;
        k = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stride: u64, bytes: u32, lanes: usize) -> Coalesced {
        let addrs: Vec<(usize, u64)> = (0..lanes)
            .map(|l| (l, 0x1000 + l as u64 * stride * bytes as u64))
            .collect();
        let mut c = Coalesced::default();
        coalesce(&addrs, bytes, 64, &mut c);
        c
    }

    /// A row coalesces as the list of its lanes does, for every width, alignment and run of
    /// lanes; its atomics count the lanes that start in each line as the list does.
    #[test]
    fn a_row_coalesces_as_its_lanes() {
        let mut rng = crate::rng::Rng::new(5);
        for case in 0..4000 {
            let bytes = [1u32, 2, 4, 8, 12, 16][case % 6];
            let first = rng.below(64) as usize;
            let count = 1 + rng.below(64 - first as u64) as usize;
            let exec = (u64::MAX >> (64 - count)) << first;
            let lane0 = match case % 7 {
                0 => u64::MAX - 64 * bytes as u64 - rng.below(4),
                _ => 0x1000 + rng.below(300),
            };
            let row = crate::memsys::Row::of(exec, lane0, bytes).expect("a row");
            assert_eq!((row.first, row.count), (first, count), "case {case}");
            let lanes: Vec<(usize, u64)> = row.lanes(bytes).collect();
            let want: Vec<(usize, u64)> = (first..first + count)
                .map(|l| (l, lane0 + l as u64 * bytes as u64))
                .collect();
            assert_eq!(lanes, want, "case {case}");
            let (mut a, mut b) = (Coalesced::default(), Coalesced::default());
            coalesce(&lanes, bytes, 64, &mut a);
            coalesce_row(&row, bytes, 64, &mut b);
            assert_eq!((&a.lines, a.cycles), (&b.lines, b.cycles), "case {case}");
            for &line in &a.lines {
                let each = lanes.iter().filter(|&&(_, x)| x >> 6 == line).count();
                assert_eq!(row.lanes_starting_in(line, 6, bytes), each, "case {case}");
            }
        }
        // Lanes not in one run, or reaching past the top, make no row.
        assert_eq!(crate::memsys::Row::of(0b1011, 0, 4), None);
        assert_eq!(crate::memsys::Row::of(0, 0, 4), None);
        assert_eq!(crate::memsys::Row::of(1, u64::MAX - 2, 4), None);
    }

    #[test]
    fn unit_stride_dwords_take_one_cycle_per_line() {
        let c = run(1, 4, 64);
        assert_eq!(c.lines.len(), 4);
        assert_eq!(c.cycles, 4);
    }

    #[test]
    fn lines_and_cycles_grow_with_the_stride_until_every_lane_has_its_own_line() {
        let counts: Vec<usize> = [1, 2, 4, 8, 16, 64]
            .iter()
            .map(|&s| run(s, 4, 64).lines.len())
            .collect();
        assert_eq!(counts, [4, 8, 16, 32, 64, 64]);
        assert_eq!(run(16, 4, 64).cycles, 64);
    }

    #[test]
    fn dwordx4_lanes_fill_a_line_per_four_lanes() {
        let c = run(1, 16, 64);
        assert_eq!((c.lines.len(), c.cycles), (16, 16));
    }

    #[test]
    fn lanes_on_one_address_send_one_line() {
        let addrs: Vec<(usize, u64)> = (0..64).map(|l| (l, 0x2000)).collect();
        let mut c = Coalesced::default();
        coalesce(&addrs, 4, 64, &mut c);
        // One line, but each of the four lane groups sends it.
        assert_eq!((c.lines.len(), c.cycles), (1, 4));
    }

    #[test]
    fn a_straddling_lane_touches_two_lines() {
        let mut c = Coalesced::default();
        coalesce(&[(0, 62)], 4, 64, &mut c);
        assert_eq!(c.lines, [0, 1]);
    }

    /// A lane at the top of the address space (its request faults later, when it runs) touches
    /// the last line.
    #[test]
    fn a_lane_at_the_top_of_the_address_space_touches_the_last_line() {
        let mut c = Coalesced::default();
        coalesce(&[(0, u64::MAX - 1)], 16, 64, &mut c);
        assert_eq!(c.lines, [u64::MAX >> 6]);
    }

    #[test]
    fn no_active_lane_sends_nothing() {
        let mut c = Coalesced::default();
        coalesce(&[], 4, 64, &mut c);
        assert_eq!((c.lines.len(), c.cycles), (0, 0));
    }

    /// The coalescer against its definition written plainly: each group's distinct lines in
    /// lane order, the wave's distinct lines in the order first sent. Lanes ascend, descend,
    /// scatter and crowd, with every access size and inactive lanes.
    #[test]
    fn agrees_with_the_plain_definition() {
        fn plain(addrs: &[(usize, u64)], bytes: u32, line: u32) -> (Vec<u64>, u32) {
            let per_group = (GROUP_BYTES / bytes.clamp(1, GROUP_BYTES)) as usize;
            let mut groups: Vec<(usize, Vec<u64>)> = Vec::new();
            for &(lane, addr) in addrs {
                let g = lane / per_group;
                if groups.last().map(|x| x.0) != Some(g) {
                    groups.push((g, Vec::new()));
                }
                let ls = &mut groups.last_mut().unwrap().1;
                let first = addr / line as u64;
                let last = addr.saturating_add(bytes as u64 - 1) / line as u64;
                for l in first..=last {
                    if !ls.contains(&l) {
                        ls.push(l);
                    }
                }
            }
            let mut lines = Vec::new();
            let mut cycles = 0;
            for (_, ls) in groups {
                cycles += ls.len() as u32;
                for l in ls {
                    if !lines.contains(&l) {
                        lines.push(l);
                    }
                }
            }
            (lines, cycles)
        }
        let mut rng = crate::rng::Rng::new(7);
        let mut c = Coalesced::default();
        for case in 0..3000 {
            let bytes = [1, 2, 4, 8, 12, 16][case % 6];
            let line = [64, 128][case / 6 % 2];
            let exec = match case % 3 {
                0 => u64::MAX,
                _ => rng.next_u64(),
            };
            // Now and then a row running into the top of the address space, or past it.
            let base = match rng.below(8) {
                0 => u64::MAX - rng.below(1 << 10),
                _ => rng.below(1 << 20),
            };
            let stride = match rng.below(3) {
                0 => bytes as i64,
                _ => rng.below(70) as i64 - 20,
            };
            let scatter = rng.below(4) == 0;
            let addrs: Vec<(usize, u64)> = (0..64)
                .filter(|l| exec >> l & 1 != 0)
                .map(|l| {
                    let a = match scatter {
                        true => rng.below(1 << 12),
                        false => base.wrapping_add((stride * l as i64) as u64),
                    };
                    (l, a)
                })
                .collect();
            coalesce(&addrs, bytes, line, &mut c);
            let (lines, cycles) = plain(&addrs, bytes, line);
            assert_eq!((&c.lines, c.cycles), (&lines, cycles), "case {case}");
        }
    }
}
