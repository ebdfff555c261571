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
    /// `lines` as a set, so that a scattered wave-instruction's up to 128 lines are told apart
    /// in time linear in their number.
    seen: hashbrown::HashSet<u64>,
}

/// Coalesces `addrs` (the active lanes' byte addresses, in lane order) for an access of
/// `bytes` bytes per lane into lines of `line` bytes (a power of two).
pub fn coalesce(addrs: &[(usize, u64)], bytes: u32, line: u32, out: &mut Coalesced) {
    out.lines.clear();
    out.seen.clear();
    out.cycles = 0;
    let shift = line.trailing_zeros();
    let per_group = (GROUP_BYTES / bytes.clamp(1, GROUP_BYTES)) as usize;
    let mut group_lines: Vec<u64> = Vec::with_capacity(8);
    let mut group = usize::MAX;
    let flush = |group_lines: &mut Vec<u64>, out: &mut Coalesced| {
        out.cycles += group_lines.len() as u32;
        for &l in group_lines.iter() {
            if out.seen.insert(l) {
                out.lines.push(l);
            }
        }
        group_lines.clear();
    };
    for &(lane, addr) in addrs {
        let g = lane / per_group;
        if g != group {
            flush(&mut group_lines, out);
            group = g;
        }
        let first = addr >> shift;
        // (A lane's address may be anything: one at the top of the address space faults when
        // its request runs, and its lines stop at the top.)
        let last = addr.saturating_add(bytes.max(1) as u64 - 1) >> shift;
        for l in first..=last {
            if !group_lines.contains(&l) {
                group_lines.push(l);
            }
        }
    }
    flush(&mut group_lines, out);
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
}
