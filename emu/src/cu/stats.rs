//! What the timing model reports: cycles, IPC, occupancy, stall cycles by reason, LDS traffic
//! and conflicts, and the reads of registers whose load had not completed.

use super::config::{Arbitration, Latencies};
use super::occupancy::Occupancy;
use serde::Serialize;

/// Why a resident wave did not issue in a cycle. A wave issues at most once per 4 cycles (its
/// SIMD's turn), so the 4 cycles after an issue are its own, not a stall.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StallReason {
    /// Issued and in its issue cycles: not a stall.
    Executing,
    /// Ready, but another wave won its unit, the unit (VALU, LDS, texture address) was busy
    /// with another wave's work, or it was another SIMD's turn.
    Issue,
    /// Waiting for its own previous instruction (a multi-cycle VALU op on its SIMD).
    Dependency,
    /// Blocked in s_waitcnt (or a counter at its maximum).
    Waitcnt,
    /// At s_barrier.
    Barrier,
    /// In s_nop or s_sleep.
    Sleep,
}

pub const STALL_REASONS: [StallReason; 5] = [
    StallReason::Issue,
    StallReason::Dependency,
    StallReason::Waitcnt,
    StallReason::Barrier,
    StallReason::Sleep,
];

const _: () = {
    let mut i = 0;
    while i < STALL_REASONS.len() {
        assert!(matches!(STALL_REASONS[i].index(), Some(x) if x == i));
        i += 1;
    }
};

impl StallReason {
    pub fn name(self) -> &'static str {
        match self {
            StallReason::Executing => "executing",
            StallReason::Issue => "issue",
            StallReason::Dependency => "dependency",
            StallReason::Waitcnt => "waitcnt",
            StallReason::Barrier => "barrier",
            StallReason::Sleep => "sleep",
        }
    }

    /// Index into [`Stalls::cycles`] (Executing has none): its place in [`STALL_REASONS`].
    #[inline(always)]
    pub const fn index(self) -> Option<usize> {
        match self {
            StallReason::Executing => None,
            StallReason::Issue => Some(0),
            StallReason::Dependency => Some(1),
            StallReason::Waitcnt => Some(2),
            StallReason::Barrier => Some(3),
            StallReason::Sleep => Some(4),
        }
    }
}

/// Wave-cycles lost, summed over waves, by reason (in [`STALL_REASONS`] order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stalls {
    pub cycles: [u64; STALL_REASONS.len()],
}

impl Serialize for Stalls {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(STALL_REASONS.len()))?;
        for (r, c) in STALL_REASONS.iter().zip(self.cycles) {
            m.serialize_entry(r.name(), &c)?;
        }
        m.end()
    }
}

/// A register read (or overwritten) while a load that writes it was still outstanding: what a
/// missing `s_waitcnt` looks like.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StaleRead {
    /// Instruction indices of the reader and of the load.
    #[serde(skip)]
    pub consumer: u32,
    #[serde(skip)]
    pub load: u32,
    /// "read" or "write".
    pub access: &'static str,
    /// The registers, as assembly (`v5`, `s[4:5]`).
    pub registers: String,
    /// The counter a wait was missing for: "vmcnt" or "lgkmcnt".
    pub counter: &'static str,
    pub hits: u64,
    pub workgroup: [u32; 3],
    pub wave: u32,
    /// The cycle of the first, which the others name.
    #[serde(skip)]
    pub cycle: u64,
}

/// LDS traffic seen by the bank model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LdsStats {
    /// DS instructions that used the banks.
    pub instructions: u64,
    /// Cycles the banks spent on them, conflicts included.
    pub bank_cycles: u64,
    /// Cycles added by bank conflicts.
    pub conflict_cycles: u64,
}

/// The timing model's view of one launch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimingStats {
    pub cycles: u64,
    pub cus: u32,
    /// CUs that ran at least one workgroup.
    pub cus_used: u32,
    /// Wave-instructions per cycle, whole device.
    pub ipc: f64,
    /// Theoretical occupancy from the kernel's resources.
    pub occupancy: Occupancy,
    /// Average resident waves per SIMD over the cycles each used CU had work.
    pub achieved_waves_per_simd: f64,
    pub stalls: Stalls,
    pub lds: LdsStats,
    pub latencies: Latencies,
    pub arbitration: Arbitration,
    pub stale_reads: Vec<StaleRead>,
    /// Simulated cycles per second of host time (filled by the caller).
    pub cycles_per_second: f64,
    /// What the memory hierarchy counted in this launch (`None`: fixed latencies).
    pub memory: Option<crate::memsys::Counters>,
}
