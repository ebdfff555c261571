//! LDS bank conflicts of one DS instruction: a pure cost function, which the timing model
//! ([`crate::cu::issue`]) charges per DS instruction.
//!
//! # The model
//! Facts (seed 001, the GCN LDS chapter; seed 002 and the AMD APP OpenCL Programming Guide
//! §6.2 "Local memory (LDS) optimization"):
//! - 32 banks, each 4 bytes wide; a dword's bank is byte address bits [6:2].
//! - Each bank serves one dword per cycle, so the LDS moves at most 32 dwords per cycle; an
//!   indexed access takes from 2 cycles (64 lanes × 1 dword) up to 64 (every lane on one bank).
//! - Conflicts are checked per half wavefront (lanes 0-31, 32-63) for 32-bit accesses and per
//!   quarter wavefront for 64-bit ones (16 lanes × 2 dwords fill the 32 banks).
//! - Lanes reading the same address get it by broadcast, not by a second access.
//! - Indexed and atomic accesses to one bank are serialised; an atomic is a read-modify-write
//!   per lane, so lanes hitting the same address do not share it.
//!
//! From these: a lane needs `n` dwords per address (1 for b8/b16/b32, 2 for b64, 3 for b96, 4
//! for b128), twice for read2/write2. The wave is split into passes of `32 / n'` consecutive
//! lanes, `n'` being that count rounded up to a power of two (b96 is served in b128's passes —
//! our assumption; the guide does not say), so a b32 access has 2 passes, b64 or read2_b32 4,
//! b96/b128 or read2_b64 8. In a pass each bank takes as many cycles as the distinct dwords
//! asked of it (for atomics: as many lane accesses), and the pass as long as its busiest bank.
//! The extra cycles are the sum over passes of (busiest bank − 1); a pass with no active lane
//! costs nothing. Sub-dword and unaligned accesses touch every dword their bytes overlap;
//! two lanes naming different bytes of one dword share it like a broadcast (our assumption,
//! for writes too: the sources say nothing about byte lanes).

use crate::wave::WAVE_SIZE;

/// Banks of the LDS.
pub const BANKS: u32 = 32;

/// The addresses one DS instruction presents to the banks.
#[derive(Clone, Copy, Debug)]
pub struct DsAccess<'a> {
    /// Lanes taking part (EXEC).
    pub exec: u64,
    /// Byte address of each lane's (first) access, instruction offset included.
    pub addr: &'a [u32; WAVE_SIZE],
    /// For read2/write2 (and the two-address exchanges): the byte address of the second access.
    pub addr1: Option<&'a [u32; WAVE_SIZE]>,
    /// Bytes per address: 1, 2, 4, 8, 12 or 16 (others are clamped to 1..=16).
    pub bytes: u32,
    /// A read-modify-write in the LDS (ds_add_u32, ds_cmpst_b64, ds_wrxchg...): no broadcast.
    pub atomic: bool,
}

impl<'a> DsAccess<'a> {
    /// A single-address access of `bytes` per lane at `addr`.
    #[cfg(test)]
    pub fn single(exec: u64, addr: &'a [u32; WAVE_SIZE], bytes: u32) -> DsAccess<'a> {
        DsAccess {
            exec,
            addr,
            addr1: None,
            bytes,
            atomic: false,
        }
    }

    /// read2/write2 addresses from the base VGPR and the instruction's two 8-bit offsets,
    /// scaled as the LDS chapter gives: ×4 for 32-bit data, ×8 for 64-bit, and ×64 more for
    /// the `st64` forms.
    pub fn dual_addresses(
        base: &[u32; WAVE_SIZE],
        offset0: u8,
        offset1: u8,
        bytes: u32,
        st64: bool,
    ) -> ([u32; WAVE_SIZE], [u32; WAVE_SIZE]) {
        let scale = if bytes == 8 { 8 } else { 4 } * if st64 { 64 } else { 1 };
        let a0 = std::array::from_fn(|l| base[l].wrapping_add(offset0 as u32 * scale));
        let a1 = std::array::from_fn(|l| base[l].wrapping_add(offset1 as u32 * scale));
        (a0, a1)
    }
}

/// What the banks make of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankCost {
    /// Passes that had at least one active lane (cycles if nothing conflicted).
    pub passes: u32,
    /// Cycles the passes take with conflicts serialised.
    pub cycles: u32,
}

impl BankCost {
    /// Cycles added by bank conflicts.
    pub fn extra(&self) -> u32 {
        self.cycles - self.passes
    }
}

/// Lanes per pass for an access of `dwords` dwords per lane.
fn lanes_per_pass(dwords: u32) -> usize {
    (BANKS / dwords.clamp(1, BANKS).next_power_of_two()).max(1) as usize
}

/// The first and last dword (address / 4) that `bytes` at `addr` touch.
fn dword_span(addr: u32, bytes: u32) -> (u32, u32) {
    let first = addr / 4;
    let last = addr.wrapping_add(bytes.max(1) - 1) / 4;
    // An access wrapping past 4 GiB touches the top dword only; the LDS bounds check faults it.
    (first, last.max(first))
}

/// The cost of `access` in the banks.
pub fn bank_cost(access: &DsAccess) -> BankCost {
    // No DS op moves more than 16 bytes per address; clamping keeps a bad width from asking for
    // an unbounded span.
    let bytes = access.bytes.clamp(1, 16);
    let per_addr = bytes.div_ceil(4);
    let per_lane = per_addr * if access.addr1.is_some() { 2 } else { 1 };
    let group = lanes_per_pass(per_lane);
    let mut cost = BankCost {
        passes: 0,
        cycles: 0,
    };
    // Dwords asked of the banks in one pass: lanes × addresses × (dwords + 1 if unaligned),
    // at most 64 (32 lanes × 1 × 2 for b32, 4 × 2 × 5 for an impossible dual b128). On the
    // stack: the timing model asks this of every DS instruction.
    let mut buf = [0u32; 64];
    for start in (0..WAVE_SIZE).step_by(group) {
        let mut n = 0;
        for l in start..start + group {
            if access.exec >> l & 1 == 0 {
                continue;
            }
            for a in std::iter::once(access.addr).chain(access.addr1) {
                let (first, last) = dword_span(a[l], bytes);
                for d in first..=last {
                    // The bound above holds for every width; the guard keeps a mistake in
                    // it from becoming a crash.
                    if let Some(slot) = buf.get_mut(n) {
                        *slot = d;
                        n += 1;
                    }
                }
            }
        }
        let dwords = &mut buf[..n];
        if dwords.is_empty() {
            continue;
        }
        if !access.atomic {
            dwords.sort_unstable();
        }
        let mut per_bank = [0u32; BANKS as usize];
        let mut prev = None;
        for &d in dwords.iter() {
            // Same dword in several lanes: one access, broadcast (atomics serialise).
            if !access.atomic && prev == Some(d) {
                continue;
            }
            prev = Some(d);
            per_bank[(d % BANKS) as usize] += 1;
        }
        cost.passes += 1;
        cost.cycles += per_bank.iter().copied().max().unwrap_or(1);
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(f: impl Fn(u32) -> u32) -> [u32; WAVE_SIZE] {
        std::array::from_fn(|l| f(l as u32))
    }

    fn cost(addr: &[u32; WAVE_SIZE], bytes: u32) -> BankCost {
        bank_cost(&DsAccess::single(u64::MAX, addr, bytes))
    }

    #[test]
    fn consecutive_dwords_do_not_conflict() {
        let c = cost(&lanes(|l| 4 * l), 4);
        assert_eq!(
            c,
            BankCost {
                passes: 2,
                cycles: 2
            }
        );
        assert_eq!(c.extra(), 0);
    }

    #[test]
    fn one_address_is_a_broadcast() {
        assert_eq!(cost(&lanes(|_| 0x40), 4).extra(), 0);
        // Bytes of one dword are one access too.
        assert_eq!(cost(&lanes(|l| 0x40 + l % 4), 1).extra(), 0);
    }

    #[test]
    fn stride_two_dwords_is_a_two_way_conflict() {
        // Lanes 0-31 hit the 16 even banks twice each: 2 cycles per half instead of 1.
        let c = cost(&lanes(|l| 8 * l), 4);
        assert_eq!(
            c,
            BankCost {
                passes: 2,
                cycles: 4
            }
        );
        assert_eq!(c.extra(), 2);
    }

    #[test]
    fn stride_32_dwords_is_a_32_way_conflict() {
        // Every lane on bank 0 at a different address: 32 cycles per half wave, 64 in all.
        let c = cost(&lanes(|l| 128 * l), 4);
        assert_eq!(
            c,
            BankCost {
                passes: 2,
                cycles: 64
            }
        );
        assert_eq!(c.extra(), 62);
    }

    #[test]
    fn conflicts_count_only_within_a_half_wave() {
        // Lane l and lane l + 32 share a bank at different addresses; they are in different passes.
        let c = cost(&lanes(|l| 4 * (l % 32) + 1024 * (l / 32)), 4);
        assert_eq!(c.extra(), 0);
    }

    #[test]
    fn inactive_lanes_take_no_bank() {
        let addr = lanes(|l| 128 * l);
        // Only lanes 0 and 5 active: one pass, two addresses on bank 0.
        let c = bank_cost(&DsAccess::single(0b10_0001, &addr, 4));
        assert_eq!(
            c,
            BankCost {
                passes: 1,
                cycles: 2
            }
        );
        assert_eq!(
            bank_cost(&DsAccess::single(0, &addr, 4)),
            BankCost {
                passes: 0,
                cycles: 0
            }
        );
    }

    #[test]
    fn b64_runs_in_quarter_wave_passes() {
        // Consecutive 8-byte elements: 16 lanes fill the 32 banks; 4 passes, no conflict.
        let c = cost(&lanes(|l| 8 * l), 8);
        assert_eq!(
            c,
            BankCost {
                passes: 4,
                cycles: 4
            }
        );
        // Stride 16 bytes: lane l takes banks 4l and 4l + 1 (mod 32), so 16 lanes use each of
        // banks 0, 1, 4, 5, ... twice: 2-way.
        let c = cost(&lanes(|l| 16 * l), 8);
        assert_eq!(
            c,
            BankCost {
                passes: 4,
                cycles: 8
            }
        );
    }

    #[test]
    fn b128_and_b96_run_in_eighth_wave_passes() {
        let c = cost(&lanes(|l| 16 * l), 16);
        assert_eq!(
            c,
            BankCost {
                passes: 8,
                cycles: 8
            }
        );
        let c = cost(&lanes(|l| 12 * l), 12);
        // 8 lanes × 3 dwords = 24 consecutive dwords: distinct banks.
        assert_eq!(
            c,
            BankCost {
                passes: 8,
                cycles: 8
            }
        );
        // 8 lanes 128 bytes apart: each bank 8 times.
        let c = cost(&lanes(|l| 128 * l), 16);
        assert_eq!(
            c,
            BankCost {
                passes: 8,
                cycles: 64
            }
        );
    }

    #[test]
    fn read2_b32_like_b64_when_offsets_are_adjacent() {
        let base = lanes(|l| 8 * l);
        let (a0, a1) = DsAccess::dual_addresses(&base, 0, 1, 4, false);
        let c = bank_cost(&DsAccess {
            addr1: Some(&a1),
            ..DsAccess::single(u64::MAX, &a0, 4)
        });
        assert_eq!(
            c,
            BankCost {
                passes: 4,
                cycles: 4
            }
        );
        // Offsets 0 and 32 (×4 bytes = 128): both halves of a lane land on one bank.
        let base = lanes(|l| 4 * l);
        let (a0, a1) = DsAccess::dual_addresses(&base, 0, 32, 4, false);
        let c = bank_cost(&DsAccess {
            addr1: Some(&a1),
            ..DsAccess::single(u64::MAX, &a0, 4)
        });
        assert_eq!(
            c,
            BankCost {
                passes: 4,
                cycles: 8
            }
        );
    }

    #[test]
    fn read2st64_b64_offsets_scale_by_512() {
        let base = lanes(|_| 0);
        let (a0, a1) = DsAccess::dual_addresses(&base, 1, 2, 8, true);
        assert_eq!((a0[0], a1[0]), (512, 1024));
        // Every lane reads the same two 8-byte values (dwords 128-129 and 256-257): broadcast,
        // but both values sit on banks 0 and 1, so each pass takes 2 cycles.
        let c = bank_cost(&DsAccess {
            addr1: Some(&a1),
            ..DsAccess::single(u64::MAX, &a0, 8)
        });
        assert_eq!(
            c,
            BankCost {
                passes: 8,
                cycles: 16
            }
        );
    }

    #[test]
    fn atomics_serialise_per_bank_without_broadcast() {
        // 64 lanes adding to one counter: 32 accesses to one bank per half wave.
        let addr = lanes(|_| 0x100);
        let c = bank_cost(&DsAccess {
            atomic: true,
            ..DsAccess::single(u64::MAX, &addr, 4)
        });
        assert_eq!(
            c,
            BankCost {
                passes: 2,
                cycles: 64
            }
        );
        // Distinct consecutive counters: no conflict.
        let addr = lanes(|l| 4 * l);
        let c = bank_cost(&DsAccess {
            atomic: true,
            ..DsAccess::single(u64::MAX, &addr, 4)
        });
        assert_eq!(c.extra(), 0);
    }

    #[test]
    fn an_absurd_width_is_clamped_not_allocated() {
        let c = cost(&lanes(|l| 16 * l), u32::MAX);
        assert_eq!(c, cost(&lanes(|l| 16 * l), 16));
    }

    #[test]
    fn unaligned_access_spans_two_dwords() {
        // A 4-byte access at byte 2 of lane l's dword touches dwords l and l + 1: lanes l and
        // l + 1 share dword l + 1 (broadcast), but 33 dwords in a half wave wrap bank 0 twice.
        let c = cost(&lanes(|l| 4 * l + 2), 4);
        assert_eq!(
            c,
            BankCost {
                passes: 2,
                cycles: 4
            }
        );
    }
}
