//! What a launch reports: [`Stats`], and the hazards and stale-register reads it found, in the
//! kernel's terms.

use crate::cu::trace::Trace;
use crate::cu::TimingStats;
use crate::launch::hazards::HazardMode;
use std::time::Duration;

/// What a launch did.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub kernel: String,
    pub workgroups: u64,
    pub waves: u64,
    pub wave_instructions: u64,
    /// (category name, wave-instructions), in a fixed order.
    pub by_category: Vec<(&'static str, u64)>,
    pub elapsed: Duration,
    /// How hazards were checked, and what was found (one entry per rule and consumer).
    pub hazard_mode: HazardMode,
    pub hazards: Vec<HazardFinding>,
    /// The timing model's figures (`None` when it was off).
    pub timing: Option<TimingStats>,
    /// Stale-register reads found by the timing model, with addresses and disassembly.
    pub stale_reads: Vec<StaleReadFinding>,
    /// The per-wave timeline, when [`TimingConfig::trace`](crate::cu::TimingConfig::trace)
    /// asked for it.
    pub trace: Option<std::sync::Arc<Trace>>,
    /// Where the host's time went, when [`TimingConfig::host_profile`](crate::cu::TimingConfig::host_profile)
    /// asked ([`crate::cu::profile`]).
    pub host_profile: Option<crate::cu::profile::HostProfile>,
    /// Accesses that ran past the end of an allocation but stayed inside its last page, which a
    /// GPU maps whole (host placement only; the sparse placement faults on them), and the first.
    pub padding_accesses: u64,
    pub first_padding_access: Option<crate::memory::PaddingAccess>,
    /// `--check memcheck`: accesses reported and dropped that would have faulted without it.
    pub dropped_faults: u64,
}

impl Stats {
    /// Wave-instructions per second of host time.
    pub fn rate(&self) -> f64 {
        self.wave_instructions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A read of a register whose load had not completed (a missing `s_waitcnt`), in the terms of
/// the kernel.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StaleReadFinding {
    pub kernel: String,
    pub pc: u64,
    pub kernel_offset: i64,
    pub instruction: String,
    pub load_pc: u64,
    pub load_offset: i64,
    pub load: String,
    /// "read" or "write".
    pub access: &'static str,
    pub registers: String,
    /// "vmcnt" or "lgkmcnt".
    pub counter: &'static str,
    pub hits: u64,
    pub workgroup: [u32; 3],
    pub wave: u32,
}

impl StaleReadFinding {
    /// "read of v5 before its load completed (missing s_waitcnt vmcnt) at saxpy+0x1c: ...".
    pub fn message(&self) -> String {
        format!(
            "{} of {} before its load completed (missing s_waitcnt {}) at {}+{:#x}: `{}`; the load is at {}+{:#x}: `{}` ({} time(s), first in workgroup ({},{},{}) wave {})",
            self.access,
            self.registers,
            self.counter,
            self.kernel,
            self.kernel_offset,
            self.instruction,
            self.kernel,
            self.load_offset,
            self.load,
            self.hits,
            self.workgroup[0],
            self.workgroup[1],
            self.workgroup[2],
            self.wave
        )
    }
}

/// A hazard rule violated at run time (`--hazards`): the rule, the consumer and producer
/// instructions, what the rule requires and what the issued path provided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HazardFinding {
    pub rule: &'static str,
    pub summary: &'static str,
    /// Device address of the consumer, its offset from the kernel's entry, its disassembly.
    pub pc: u64,
    pub kernel_offset: i64,
    pub instruction: String,
    pub producer_pc: u64,
    pub producer_offset: i64,
    pub producer: String,
    /// "4 wait states", "1 non-clause instruction", "a write of all of vcc".
    pub required: String,
    /// What the issued path gave: "2 wait states", "none".
    pub provided: String,
    /// How to fix it.
    pub fix: String,
    /// Times the consumer issued with the hazard (all waves, all workgroups).
    pub hits: u64,
    /// Where it was first seen.
    pub workgroup: [u32; 3],
    pub wave: u32,
}
