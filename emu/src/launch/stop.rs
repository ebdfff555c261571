//! Why a launch ends before its waves do, in either engine.

use crate::fault::Fault;
use crate::hazard::tracker::RuntimeFinding;
use crate::wave::spin;

/// Why a workgroup stopped early.
#[derive(Debug)]
pub enum Stop {
    /// A guest fault in wave `wave` at instruction index `index`.
    Fault { wave: u32, index: u32, fault: Fault },
    /// The instruction budget ran out (in wave `wave` at `index`).
    Budget { wave: u32, index: u32 },
    /// Waves wait at a barrier that can never complete.
    Deadlock { waiting: Vec<u32> },
    /// (Timing model) waves `waiting` sat at s_barrier for `cycles` while the others of the
    /// group kept running — `running` as (wave, instruction index) — without arriving.
    BarrierTimeout {
        waiting: Vec<u32>,
        running: Vec<(u32, u32)>,
        cycles: u64,
    },
    /// `--hazards error`: wave `wave` issued instruction `index` violating a hazard rule (the
    /// finding's `producer_pc` is an instruction index too).
    Hazard {
        wave: u32,
        index: u32,
        finding: RuntimeFinding,
    },
    /// The launch ran past its wall-clock timeout; where every wave that had not ended was.
    Timeout { waves: Vec<WaveAt> },
    /// Every wave that had not ended spins in a loop that nothing will ever release (see
    /// [`spin`]) or waits at a barrier that those never reach (`barrier` of them).
    Livelock {
        spinners: Vec<spin::Spinner>,
        barrier: u32,
    },
}

/// Where a wave was when a launch was stopped from outside (a timeout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveAt {
    pub group: [u32; 3],
    pub wave: u32,
    /// Instruction index of its next instruction.
    pub index: u32,
    /// What it waits on: `running`, `s_barrier`, `s_waitcnt (vmcnt 2, lgkmcnt 0 outstanding)`...
    pub waits: String,
}
