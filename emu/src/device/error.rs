//! The API's [`Error`]s, and the guest errors among them: where a kernel failed
//! ([`GuestError`]), how ([`GuestFault`]), and the message a reader sees.

use crate::fault::Fault;
use crate::memory::MemError;
use gcn_loader::LoadError;
use std::time::Duration;

use super::HazardFinding;

/// A guest error: where it happened and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestError {
    pub kernel: String,
    pub workgroup: [u32; 3],
    pub wave: u32,
    /// Device address of the instruction.
    pub pc: u64,
    /// Offset of the instruction from the kernel's entry.
    pub kernel_offset: i64,
    /// The function the instruction is in, when that is not the kernel (a callee such as
    /// `__assert_fail`), with the offset into it.
    pub function: Option<(String, u64)>,
    /// The instruction as llvm-objdump prints it.
    pub instruction: String,
    /// `file:line` of the instruction, when the code object has a DWARF line table.
    pub source: Option<String>,
    pub fault: GuestFault,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuestFault {
    Fault(Fault),
    BudgetExhausted(u64),
    Deadlock(Vec<u32>),
    /// Waves waited at s_barrier for `cycles` while the others ran on without arriving; the
    /// running ones as (wave, pc, kernel offset).
    BarrierTimeout {
        waiting: Vec<u32>,
        running: Vec<(u32, u64, i64)>,
        cycles: u64,
    },
    /// `--hazards error`: the instruction violates a hazard rule.
    Hazard(Box<HazardFinding>),
    /// The launch ran past its wall-clock timeout; where the waves were.
    Timeout {
        after: Duration,
        waves: Vec<WaveReport>,
    },
    /// Every wave that had not ended went round a loop with no change to memory or to its
    /// registers (`loops`), or waited at a barrier for those (`barrier` waves), after at least
    /// `limit` write-free iterations each.
    Livelock {
        loops: Vec<LoopReport>,
        barrier: u32,
        limit: u32,
    },
}

/// A wave caught in a livelock and the loop it goes round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopReport {
    pub workgroup: [u32; 3],
    pub wave: u32,
    /// Addresses of the loop's first instruction and of its backward branch.
    pub start: u64,
    pub branch: u64,
    /// Both as `kernel+0x40` or `function+0x10`.
    pub start_at: String,
    pub branch_at: String,
    /// The backward branch as llvm-objdump prints it.
    pub instruction: String,
}

/// A wave that had not ended when a launch was stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveReport {
    pub workgroup: [u32; 3],
    pub wave: u32,
    pub pc: u64,
    /// `kernel+0x40` or `function+0x10`.
    pub at: String,
    pub instruction: String,
    pub waits: String,
}

impl std::fmt::Display for GuestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.workgroup;
        let sign = if self.kernel_offset < 0 { "-" } else { "+" };
        let at = match &self.function {
            Some((name, off)) => format!("{name}+{off:#x}"),
            None => format!(
                "{}{sign}{:#x}",
                self.kernel,
                self.kernel_offset.unsigned_abs()
            ),
        };
        let at = match &self.source {
            Some(line) => format!("{at}, {line}"),
            None => at,
        };
        let where_ = format!(
            "kernel `{}`, workgroup ({x}, {y}, {z}), wave {}, pc {:#x} ({at})",
            crate::symbol::demangle(&self.kernel),
            self.wave,
            self.pc,
        );
        match &self.fault {
            GuestFault::Fault(e) => write!(f, "{where_}: `{}`: {e}", self.instruction),
            GuestFault::BudgetExhausted(n) => write!(
                f,
                "{where_}: `{}`: instruction budget of {n} wave-instructions exhausted",
                self.instruction
            ),
            GuestFault::Hazard(h) => write!(
                f,
                "{where_}: `{}`: hazard [{}]: {}; producer `{}` at {:#x} ({}{}{:#x}); required {}, provided {}; {}",
                self.instruction,
                h.rule,
                h.summary,
                h.producer,
                h.producer_pc,
                self.kernel,
                if h.producer_offset < 0 { "-" } else { "+" },
                h.producer_offset.unsigned_abs(),
                h.required,
                h.provided,
                h.fix
            ),
            GuestFault::BarrierTimeout {
                waiting,
                running,
                cycles,
            } => {
                write!(
                    f,
                    "kernel `{}`, workgroup ({x}, {y}, {z}): deadlock: waves {waiting:?} waited at s_barrier for {cycles} cycles while",
                    self.kernel
                )?;
                for (i, (w, pc, off)) in running.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "," };
                    let sign = if *off < 0 { "-" } else { "+" };
                    write!(f, "{sep} wave {w} (at {pc:#x}, {}{sign}{:#x})", self.kernel, off.unsigned_abs())?;
                }
                write!(f, " kept running without reaching it")
            }
            GuestFault::Timeout { after, waves } => {
                write!(
                    f,
                    "kernel `{}`: timeout: still running after {} s (wall clock); {} wave(s) had not ended:",
                    self.kernel,
                    after.as_secs_f64(),
                    waves.len()
                )?;
                for w in waves.iter().take(MAX_REPORTED_WAVES) {
                    let [x, y, z] = w.workgroup;
                    write!(
                        f,
                        "\n  workgroup ({x}, {y}, {z}) wave {}: pc {:#x} ({}) `{}`: {}",
                        w.wave, w.pc, w.at, w.instruction, w.waits
                    )?;
                }
                if waves.len() > MAX_REPORTED_WAVES {
                    write!(f, "\n  ... and {} more", waves.len() - MAX_REPORTED_WAVES)?;
                }
                Ok(())
            }
            GuestFault::Livelock {
                loops,
                barrier,
                limit,
            } => {
                write!(
                    f,
                    "kernel `{}`: livelock: {} wave(s) go round a loop with no change to memory or to their registers ({limit}+ iterations each), and no other wave can write",
                    self.kernel,
                    loops.len()
                )?;
                if *barrier > 0 {
                    write!(f, " ({barrier} more wait at s_barrier for them)")?;
                }
                write!(f, ":")?;
                for l in loops.iter().take(MAX_REPORTED_WAVES) {
                    let [x, y, z] = l.workgroup;
                    write!(
                        f,
                        "\n  workgroup ({x}, {y}, {z}) wave {}: loop {:#x}..{:#x} ({} to {}) `{}`",
                        l.wave, l.start, l.branch, l.start_at, l.branch_at, l.instruction
                    )?;
                }
                if loops.len() > MAX_REPORTED_WAVES {
                    write!(f, "\n  ... and {} more", loops.len() - MAX_REPORTED_WAVES)?;
                }
                Ok(())
            }
            GuestFault::Deadlock(waves) => write!(
                f,
                "kernel `{}`, workgroup ({x}, {y}, {z}): deadlock: waves {waves:?} wait at a barrier (s_barrier, or a GWS barrier of the grid) and no wave can run",
                self.kernel
            ),
        }
    }
}

/// Waves listed in a timeout report; a full device holds thousands.
const MAX_REPORTED_WAVES: usize = 64;

/// Errors of the API. [`Error::is_guest`] tells a kernel's own failure from a usage error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{file}: {problem}")]
    Module { file: String, problem: String },
    #[error("no kernel `{name}` in {file} ({available})")]
    NoKernel {
        name: String,
        file: String,
        available: String,
    },
    #[error("{0}")]
    Arguments(String),
    #[error("{0}")]
    Launch(String),
    #[error(transparent)]
    Memory(#[from] MemError),
    #[error("{0}")]
    Guest(Box<GuestError>),
}

impl Error {
    /// Did the kernel itself fail (fault, trap, budget, deadlock)?
    pub fn is_guest(&self) -> bool {
        matches!(self, Error::Guest(_))
    }
}
