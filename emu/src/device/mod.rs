//! The embedding API: a [`Device`] with its memory, code objects loaded as [`Module`]s, and
//! kernel launches with typed [`Arg`]s. See the crate documentation for an example.

use crate::cu::facts::Facts;
use crate::cu::trace::Trace;
use crate::cu::{TimedError, TimedRun, TimingConfig, TimingStats};
use crate::dispatch::{self, Launch, DYNAMIC_STACK_BYTES};
use crate::exec::{DispatchEnv, Fault};
use crate::hostcall::host::{DeviceHostcall, Output as HostcallOutput};
use crate::launch::hazards::{HazardMode, HazardTable, Seen};
use crate::launch::host::HostServices;
use crate::launch::spin::DEFAULT_SPIN_LIMIT;
use crate::launch::{Counts, Stop};
use crate::lds::LDS_MAX;
use crate::memory::{AllocKind, MemError, Memory, Placement, DEFAULT_MEMORY_LIMIT};
use crate::program::Program;
use crate::run;
use gcn_isa::Target;
use gcn_loader::{CodeObject, Kernel, KernelArg, LoadError, ValueKind};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// What kind of GPU the device is.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// The processor; `load` picks the code object built for it.
    pub target: Target,
    /// Cap on device memory (host memory backs it).
    pub memory_limit: u64,
    /// Where allocations live: deterministic device addresses, or at their host addresses so
    /// that host and kernels share pointers (the HIP runtime).
    pub placement: Placement,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            target: Target::Gfx900,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            placement: Placement::Sparse,
        }
    }
}

/// A kernel argument by value or pointer, in the order of the kernel's explicit arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A device address (from [`Device::alloc`]).
    Ptr(u64),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    /// Raw bytes (structs by value); the length must equal the argument's size.
    Bytes(Vec<u8>),
}

/// Grid size in workgroups (HIP's gridDim) and workgroup size in work-items (blockDim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// Called after each workgroup with (workgroups done, workgroups in total).
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// Options of one launch.
#[derive(Clone)]
pub struct LaunchOptions {
    /// Dynamic LDS bytes per workgroup, on top of the kernel's static LDS.
    pub dynamic_lds: u32,
    /// Wave-instruction budget; running out is a guest error. `None`: unlimited.
    pub max_instructions: Option<u64>,
    pub progress: Option<Progress>,
    /// Check every issued instruction against the hazard rules: `Warn` (the default) collects
    /// findings into [`Stats::hazards`], `Error` ends the dispatch at the first one.
    pub hazards: HazardMode,
    /// The cycle-level compute-unit model ([`crate::cu`]); `None` runs functionally only
    /// (fastest; workgroups one after another, memory completing at issue). A `cus` of 0
    /// means the target's own CU count.
    pub timing: Option<TimingConfig>,
    /// Wall-clock limit of the launch; running past it is a guest error reporting where every
    /// wave is. `None`: no limit.
    pub timeout: Option<Duration>,
    /// The spin detector ([`crate::launch::spin`]): write-free iterations of one loop before a
    /// wave's state is compared; a launch whose waves all spin (or wait at a barrier for the
    /// spinning ones) ends as a livelock. 0 turns it off.
    pub spin_limit: u32,
    /// Host threads of the functional engine (`timing: None`): workgroups run on this many
    /// at once ([`crate::run::groups`] says what that changes); 0 means every core. Launches
    /// with sanitizers or a hostcall buffer (device printf) run on one.
    pub threads: usize,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            dynamic_lds: 0,
            max_instructions: Some(DEFAULT_MAX_INSTRUCTIONS),
            progress: None,
            hazards: HazardMode::default(),
            timing: Some(TimingConfig {
                cus: 0,
                ..TimingConfig::for_target(Target::Gfx900)
            }),
            timeout: Some(DEFAULT_TIMEOUT),
            spin_limit: DEFAULT_SPIN_LIMIT,
            threads: 0,
        }
    }
}

/// Private bytes per work-item gfx9's scratch setup can give (8 MiB per wave of 64).
const MAX_PRIVATE_BYTES: u32 = 128 << 10;

/// Default wall-clock limit of one launch: far beyond any test or library kernel (the slowest
/// take seconds), short enough that a kernel spinning forever ends with a report.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Default wave-instruction budget of a launch: minutes of emulation, so a runaway kernel ends.
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 20_000_000_000;

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
    /// The per-wave timeline, when [`TimingConfig::trace`] asked for it.
    pub trace: Option<std::sync::Arc<Trace>>,
    /// Accesses that ran past the end of an allocation but stayed inside its last page, which a
    /// GPU maps whole (host placement only; the sparse placement faults on them), and the first.
    pub padding_accesses: u64,
    pub first_padding_access: Option<crate::memory::PaddingAccess>,
    /// `--check memcheck`: accesses reported and dropped that would have faulted without it.
    pub dropped_faults: u64,
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

impl Stats {
    /// Wave-instructions per second of host time.
    pub fn rate(&self) -> f64 {
        self.wave_instructions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

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
            self.kernel, self.wave, self.pc,
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
                "kernel `{}`, workgroup ({x}, {y}, {z}): deadlock: waves {waves:?} wait at s_barrier and no wave can run",
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
    #[error("{file}: no code object for {target} (found: {found})")]
    NoCodeObject {
        file: String,
        target: String,
        found: String,
    },
    #[error("{file}: {problem}")]
    Module { file: String, problem: String },
    #[error("no kernel `{name}` in {file} (kernels: {available})")]
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

/// A code object placed in device memory, decoded and ready to launch.
pub struct Module {
    pub object: CodeObject,
    /// Device address the ELF's virtual address 0 maps to.
    pub load_base: u64,
    pub program: Program,
    /// XNACK replay allowed by the code object (on or any): gates the soft-clause rules.
    pub xnack: bool,
    /// Hazard models of `program`, built by the first launch that checks hazards.
    hazard_table: OnceLock<HazardTable>,
    /// The `.text` bytes and their device address, for the static hazard check.
    text: (u64, Vec<u8>),
    /// Per kernel entry: whether no run of it can show a hazard ([`Module::hazard_free`]).
    hazard_free: std::sync::Mutex<hashbrown::HashMap<u64, bool>>,
    timing_facts: OnceLock<Vec<Facts>>,
    /// The DWARF line table, read at the first question about a source line.
    lines: OnceLock<Option<gcn_loader::LineTable>>,
}

impl Module {
    /// `file:line` of the instruction at device address `pc`, when the code object carries a
    /// DWARF line table (`hipcc -g`).
    pub fn source_line(&self, pc: u64) -> Option<String> {
        self.line_table()?.line(pc.checked_sub(self.load_base)?)
    }

    /// The code object's line table, if it has one (a damaged one counts as none, said once).
    pub fn line_table(&self) -> Option<&gcn_loader::LineTable> {
        self.lines
            .get_or_init(|| {
                match gcn_loader::LineTable::parse(&self.object.file, &self.object.bytes) {
                    Ok(t) => t,
                    Err(e) => {
                        tracing::warn!("no source lines: {e}");
                        None
                    }
                }
            })
            .as_ref()
    }

    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.object
            .kernels
            .iter()
            .find(|k| k.name == name || k.meta.as_ref().is_some_and(|m| m.name == name))
    }

    /// The device address and size of the global symbol `name` (a `__device__` variable, a
    /// kernel, its descriptor).
    pub fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        let elf = self.object.elf().ok()?;
        elf.symbols
            .iter()
            .find(|s| s.name == name && s.section.is_some())
            .map(|s| (self.load_base + s.address, s.size))
    }

    /// Names of opcodes in this module's code that have no semantics yet.
    pub fn unimplemented_ops(&self) -> &[&'static str] {
        &self.program.gaps
    }

    /// The hazard models of this module's code, built on first use.
    pub fn hazard_table(&self) -> &HazardTable {
        self.hazard_table
            .get_or_init(|| HazardTable::new(&self.program, self.xnack))
    }

    /// Whether no run of kernel `k` can show a run-time hazard (worked out once per kernel from
    /// its control-flow graph, [`crate::launch::hazards::statically_clean`]); launches of such
    /// kernels skip the hazard tracker.
    pub fn hazard_free(&self, k: &Kernel) -> bool {
        let entry = self.load_base + k.entry;
        let mut cache = self.hazard_free.lock().unwrap_or_else(|e| e.into_inner());
        *cache.entry(entry).or_insert_with(|| {
            let (base, bytes) = &self.text;
            let text_end = base + bytes.len() as u64;
            let end = k
                .code_size
                .map_or(text_end, |n| entry.saturating_add(n).min(text_end));
            if entry < *base || entry >= end {
                return false;
            }
            let graph =
                crate::hazard::cfg::Graph::build(bytes, *base, entry, end, self.program.target);
            crate::launch::hazards::statically_clean(&graph, self.hazard_table().enabled)
        })
    }

    /// What each instruction means to the timing model, worked out at the first timed launch.
    pub fn timing_facts(&self) -> &[Facts] {
        self.timing_facts
            .get_or_init(|| crate::cu::facts::program_facts(&self.program))
    }
}

/// An emulated GPU.
pub struct Device {
    config: DeviceConfig,
    mem: Memory,
    dispatches: u64,
    /// Wave slots (each with a 64 KiB VGPR file) kept from one timed launch to the next.
    wave_pool: Vec<crate::cu::engine::WaveSlot>,
    /// Device printf and malloc (ROCm hostcall), for kernels with `hidden_hostcall_buffer`.
    hostcall: Option<DeviceHostcall>,
    /// Sanitizer findings of the launches since the last [`Device::take_findings`].
    findings: Vec<crate::check::Finding>,
}

impl Device {
    pub fn new(config: DeviceConfig) -> Device {
        Device {
            mem: Memory::with_placement(config.memory_limit, config.placement),
            config,
            dispatches: 0,
            wave_pool: Vec::new(),
            hostcall: Some(DeviceHostcall::new(HostcallOutput::default())),
            findings: Vec::new(),
        }
    }

    /// Runs the sanitizers of `set` (`--check`) on every launch and on the memory allocated
    /// from now on (call it before allocating).
    pub fn enable_checks(&mut self, set: crate::check::CheckSet) {
        self.mem.enable_checks(set);
    }

    /// The sanitizer findings of the launches so far (failed ones too), merged per kernel and
    /// instruction; taking them starts a new list.
    pub fn take_findings(&mut self) -> Vec<crate::check::Finding> {
        std::mem::take(&mut self.findings)
    }

    /// Sends device printf text elsewhere than the process's stdout and stderr.
    pub fn set_printf_output(&mut self, output: HostcallOutput) {
        if let Some(h) = &mut self.hostcall {
            h.output = output;
        }
    }

    pub fn target(&self) -> Target {
        self.config.target
    }

    /// Loads the code object for this device's target from `bytes` (a code object, offload
    /// bundle or host binary with `.hip_fatbin`), copies its sections into device memory and
    /// decodes its code.
    pub fn load(&mut self, file_name: &str, bytes: &[u8]) -> Result<Module, Error> {
        let objects = gcn_loader::load(file_name, bytes)?;
        self.load_objects(file_name, objects)
    }

    /// As [`Device::load`], from the code objects already read out of the file called
    /// `file_name` (say, what [`gcn_loader::load_salvaged`] kept of a damaged fat binary).
    pub fn load_objects(
        &mut self,
        file_name: &str,
        objects: Vec<CodeObject>,
    ) -> Result<Module, Error> {
        let target = self.config.target;
        let found: Vec<String> = objects.iter().map(|o| o.target.mach.clone()).collect();
        let object = objects
            .into_iter()
            .find(|o| o.isa_target() == Some(target))
            .ok_or_else(|| Error::NoCodeObject {
                file: file_name.to_string(),
                target: target.to_string(),
                found: found.join(", "),
            })?;
        let problem = |p: String| Error::Module {
            file: object.file.clone(),
            problem: p,
        };
        if object.relocatable {
            return Err(problem(
                "a relocatable object cannot run; link it first (ld.lld -shared)".into(),
            ));
        }
        let elf = object.elf()?;
        let end = elf
            .sections
            .iter()
            .filter(|s| s.address != 0 || s.executable)
            .map(|s| s.address.saturating_add(s.size))
            .max()
            .unwrap_or(0);
        if end > 1 << 32 {
            return Err(problem(format!("sections span {end:#x} bytes")));
        }
        let load_base = self.mem.alloc(end.max(4), AllocKind::CodeObject)?;
        let mut text: Option<(u64, Vec<u8>)> = None;
        for s in &elf.sections {
            if s.address == 0 && !s.executable {
                continue;
            }
            if !s.data.is_empty() && s.data.len() as u64 == s.size {
                self.mem.write(load_base + s.address, s.data)?;
            }
            if s.executable && s.name == ".text" {
                text = Some((s.address, s.data.to_vec()));
            }
        }
        for r in &elf.dynamic_relocations {
            self.relocate(load_base, end, r).map_err(problem)?;
        }
        let (text_addr, code) = text.ok_or_else(|| problem("no .text section".into()))?;
        // As the lint: e_flags bit 8 is XNACK "on" (v3) or "on"/"any" (v4+); v2 used bit 0.
        let xnack =
            object.target.xnack == Some(true) || (object.version >= 3 && elf.e_flags & 0x100 != 0);
        drop(elf);
        let program = Program::decode(&code, load_base + text_addr, target);
        Ok(Module {
            object,
            load_base,
            program,
            xnack,
            text: (load_base + text_addr, code),
            hazard_free: Default::default(),
            hazard_table: OnceLock::new(),
            timing_facts: OnceLock::new(),
            lines: OnceLock::new(),
        })
    }

    /// Applies one dynamic relocation of a code object placed at `base` (`span` bytes), as
    /// ROCm's loader does: pointers in `.data` to other globals become device addresses.
    fn relocate(
        &mut self,
        base: u64,
        span: u64,
        r: &gcn_loader::DynamicRelocation,
    ) -> Result<(), String> {
        // R_AMDGPU_ABS32_LO, _HI, ABS64, ABS32, RELATIVE64.
        const ABS32_LO: u32 = 1;
        const ABS32_HI: u32 = 2;
        const ABS64: u32 = 3;
        const ABS32: u32 = 6;
        const RELATIVE64: u32 = 13;
        let symbol = || match &r.symbol {
            Some((value, _)) => Ok(base.wrapping_add(*value)),
            None => Err(format!(
                "dynamic relocation type {} at {:#x} has no symbol",
                r.r_type, r.offset
            )),
        };
        let value = match r.r_type {
            RELATIVE64 => base.wrapping_add_signed(r.addend),
            ABS64 | ABS32_LO | ABS32_HI | ABS32 => symbol()?.wrapping_add_signed(r.addend),
            t => {
                return Err(format!(
                    "unsupported dynamic relocation type {t} at {:#x}",
                    r.offset
                ))
            }
        };
        let width = if matches!(r.r_type, RELATIVE64 | ABS64) {
            8
        } else {
            4
        };
        if r.offset.checked_add(width).map_or(true, |end| end > span) {
            return Err(format!(
                "dynamic relocation at {:#x} lies outside the loaded sections",
                r.offset
            ));
        }
        let bytes = match r.r_type {
            ABS32_HI => ((value >> 32) as u32).to_le_bytes().to_vec(),
            ABS32_LO | ABS32 => (value as u32).to_le_bytes().to_vec(),
            _ => value.to_le_bytes().to_vec(),
        };
        self.mem
            .write(base + r.offset, &bytes)
            .map_err(|e| e.to_string())
    }

    /// Allocates `len` zeroed bytes of device memory; returns the device address.
    pub fn alloc(&mut self, len: u64) -> Result<u64, Error> {
        Ok(self.mem.alloc(len, AllocKind::Buffer)?)
    }

    pub fn free(&mut self, addr: u64) -> Result<(), Error> {
        Ok(self.mem.free(addr)?)
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Error> {
        Ok(self.mem.write(addr, data)?)
    }

    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, Error> {
        Ok(self.mem.bytes(addr, len)?.to_vec())
    }

    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// The memory itself, for embedders that manage it (the HIP runtime registers host memory).
    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.mem
    }

    /// Releases a module's device memory. Its kernels cannot be launched afterwards.
    pub fn unload(&mut self, module: &Module) -> Result<(), Error> {
        Ok(self.mem.free(module.load_base)?)
    }

    /// Runs `kernel` over the grid and returns statistics; the kernel's buffers hold its results.
    pub fn launch(
        &mut self,
        module: &Module,
        kernel: &str,
        dims: Dims,
        args: &[Arg],
        opts: &LaunchOptions,
    ) -> Result<Stats, Error> {
        let start = Instant::now();
        let k = module.kernel(kernel).ok_or_else(|| Error::NoKernel {
            name: kernel.to_string(),
            file: module.object.file.clone(),
            available: module
                .object
                .kernels
                .iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        check_dims(&dims)?;
        tracing::info!(kernel, grid = ?dims.grid, block = ?dims.block, timing = opts.timing.is_some(), "launch");
        let desc = &k.descriptor;
        if desc.kernel_code_properties.enable_wavefront_size32 {
            return Err(Error::Launch("wave32 kernels are not gfx9 code".into()));
        }
        let lds_size = desc.group_segment_fixed_size as u64 + opts.dynamic_lds as u64;
        if lds_size > LDS_MAX as u64 {
            return Err(Error::Launch(format!(
                "kernel `{kernel}` needs {lds_size} bytes of LDS ({} static + {} dynamic); a workgroup may have {LDS_MAX}",
                desc.group_segment_fixed_size, opts.dynamic_lds
            )));
        }
        let entry = module.load_base + k.entry;
        let entry_index = module
            .program
            .index_of_pc(entry)
            .ok_or_else(|| Error::Module {
                file: module.object.file.clone(),
                problem: format!("kernel `{kernel}` entry {:#x} is not in .text", k.entry),
            })?;

        // Kernarg segment, explicit arguments first.
        let meta_args: &[KernelArg] = k.meta.as_ref().map_or(&[], |m| &m.args);
        let explicit: Vec<&KernelArg> = meta_args
            .iter()
            .filter(|a| !a.value_kind.is_hidden())
            .collect();
        let kernarg_size = meta_args
            .iter()
            .map(|a| a.offset + a.size)
            .chain([desc.kernarg_size as u64])
            .chain(k.meta.as_ref().map(|m| m.kernarg_segment_size))
            .max()
            .unwrap_or(0);
        let mut seg = vec![0u8; kernarg_size as usize];
        if k.meta.is_none() && !args.is_empty() {
            return Err(Error::Arguments(format!(
                "kernel `{kernel}` has no metadata describing its arguments; cannot place {} argument(s)",
                args.len()
            )));
        }
        if args.len() != explicit.len() {
            return Err(Error::Arguments(format!(
                "kernel `{kernel}` takes {} argument(s), {} given\n{}",
                explicit.len(),
                args.len(),
                describe_args(&explicit)
            )));
        }
        for (i, (a, spec)) in args.iter().zip(&explicit).enumerate() {
            let bytes = arg_bytes(a, spec).map_err(|why| {
                Error::Arguments(format!(
                    "argument {i} ({}): {why}\n{}",
                    spec.name.as_deref().unwrap_or("unnamed"),
                    describe_args(&explicit)
                ))
            })?;
            let off = spec.offset as usize;
            seg[off..off + bytes.len()].copy_from_slice(&bytes);
        }

        // Private segment and its scratch backing for one workgroup's waves.
        let mut private_size = desc.private_segment_fixed_size;
        if desc.kernel_code_properties.uses_dynamic_stack {
            private_size = private_size.saturating_add(DYNAMIC_STACK_BYTES);
        }
        // COMPUTE_TMPRING_SIZE.WAVESIZE is 13 bits of 1 KiB: at most 8 MiB of scratch per wave,
        // 128 KiB per work-item; a descriptor asking for more is broken, and must not overflow.
        if private_size > MAX_PRIVATE_BYTES {
            return Err(Error::Launch(format!(
                "kernel `{kernel}` asks for {private_size} bytes of private memory per work-item; gfx9 scratch allows at most {MAX_PRIVATE_BYTES}"
            )));
        }
        let private_size = private_size.next_multiple_of(4);
        let scratch_per_wave = (private_size as u64 * 64).next_multiple_of(1024);
        let mut launch = Launch {
            grid: dims.grid,
            block: dims.block,
            dispatch_id: self.dispatches,
            packet: 0,
            queue: 0,
            kernarg: 0,
            scratch_base: 0,
            private_size,
            scratch_per_wave,
            lds_size: lds_size as u32,
            hostcall_buffer: 0,
        };
        let waves_per_group = launch.waves_per_group();
        let workers = self.functional_workers(opts, dims, meta_args);
        let _ = self.mem.take_padding_accesses();
        let mut temp = Vec::new();
        // Taken out for the dispatch, so that the engines can poll it beside the memory.
        let mut hostcall = self.hostcall.take();
        let result = (|| {
            let mut alloc = |mem: &mut Memory, len: u64, kind| -> Result<u64, Error> {
                let a = mem.alloc(len, kind)?;
                temp.push(a);
                Ok(a)
            };
            // Scalar loads fetch whole dwordx2/x4/x8 groups and may read past the last argument,
            // as on hardware, where the kernarg buffer is padded: pad by one 64-byte line.
            let padded = kernarg_size.next_multiple_of(64) + 64;
            launch.kernarg = alloc(&mut self.mem, padded, AllocKind::Kernarg)?;
            launch.packet = alloc(&mut self.mem, 64, AllocKind::DispatchPacket)?;
            launch.queue = alloc(&mut self.mem, 256, AllocKind::Queue)?;
            // The timing model gives each resident workgroup its own scratch; the functional
            // engine one per worker thread.
            if scratch_per_wave > 0 && opts.timing.is_none() {
                launch.scratch_base = alloc(
                    &mut self.mem,
                    scratch_per_wave * waves_per_group as u64 * workers as u64,
                    AllocKind::Scratch,
                )?;
            }
            if meta_args
                .iter()
                .any(|a| a.value_kind == ValueKind::HiddenHostcallBuffer)
            {
                // Every wave that can be resident at once may hold a packet.
                let waves = match &opts.timing {
                    Some(t) => {
                        let cus = match t.cus {
                            0 => crate::cu::config::default_cus(self.config.target),
                            n => n,
                        };
                        cus * crate::cu::occupancy::SIMDS as u32
                            * crate::cu::occupancy::WAVES_PER_SIMD
                    }
                    None => waves_per_group,
                };
                if let Some(h) = &mut hostcall {
                    launch.hostcall_buffer = h.buffer_for(&mut self.mem, waves)?;
                }
            }
            dispatch::write_hidden_args(&mut seg, meta_args, &launch, opts.dynamic_lds);
            self.mem.write(launch.kernarg, &seg)?;
            let packet =
                dispatch::dispatch_packet(&launch, module.load_base + k.descriptor_address);
            self.mem.write(launch.packet, &packet)?;
            let host = match &mut hostcall {
                Some(h) if launch.hostcall_buffer != 0 => Some(h as &mut dyn HostServices),
                _ => None,
            };
            match &opts.timing {
                Some(t) => {
                    self.execute_timed(module, k, kernel, entry_index, &launch, opts, t, host)
                }
                None => self
                    .execute(module, k, kernel, entry_index, &launch, opts, host, workers)
                    .map(|(c, seen)| (c, seen, None)),
            }
        })();
        self.hostcall = hostcall;
        let mut dropped_faults = 0;
        if let Some(c) = self.mem.check_state() {
            dropped_faults = std::mem::take(&mut c.would_fault);
            let records = c.findings.take();
            let found = crate::check::name::findings(module, k, records);
            crate::check::report::merge(&mut self.findings, found);
        }
        let (padding_accesses, first_padding_access) = self.mem.take_padding_accesses();
        for a in temp {
            let _ = self.mem.free(a);
        }
        self.dispatches += 1;
        let (counts, seen, timed) = result?;
        let total = dims.grid.iter().map(|&g| g as u64).product::<u64>();
        let hazards = seen.iter().map(|s| hazard_finding(module, k, s)).collect();
        let elapsed = start.elapsed();
        let (timing, trace) = match timed {
            Some((mut t, trace)) => {
                t.cycles_per_second = t.cycles as f64 / elapsed.as_secs_f64().max(1e-9);
                (Some(t), trace.map(std::sync::Arc::new))
            }
            None => (None, None),
        };
        let stale_reads = timing
            .as_ref()
            .map(|t| {
                t.stale_reads
                    .iter()
                    .map(|r| stale_finding(module, k, r))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Stats {
            kernel: kernel.to_string(),
            workgroups: total,
            waves: total * waves_per_group as u64,
            wave_instructions: counts.wave_instructions,
            by_category: crate::launch::CATEGORIES
                .iter()
                .zip(counts.by_category)
                .map(|(c, n)| (crate::launch::category_name(*c), n))
                .collect(),
            elapsed,
            hazard_mode: opts.hazards,
            hazards,
            timing,
            stale_reads,
            trace,
            padding_accesses,
            first_padding_access,
            dropped_faults,
        })
    }

    /// Threads a functional launch of `dims` runs on: `opts.threads` (0: every core), at most
    /// one per workgroup, and one when sanitizers run or the kernel can make hostcalls (both
    /// keep state that one thread owns).
    fn functional_workers(&self, opts: &LaunchOptions, dims: Dims, args: &[KernelArg]) -> usize {
        let hostcall = args
            .iter()
            .any(|a| a.value_kind == ValueKind::HiddenHostcallBuffer);
        if opts.timing.is_some() || self.mem.checking() || hostcall {
            return 1;
        }
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let groups = dims.grid.iter().map(|&g| g as u64).product::<u64>();
        threads.min(groups.min(1024) as usize).max(1)
    }

    /// Runs the workgroups under the compute-unit model, several CUs and workgroups at once.
    #[allow(clippy::too_many_arguments)]
    fn execute_timed(
        &mut self,
        module: &Module,
        k: &Kernel,
        kernel: &str,
        entry_index: u32,
        launch: &Launch,
        opts: &LaunchOptions,
        timing: &TimingConfig,
        host: Option<&mut dyn HostServices>,
    ) -> Result<Timed, Error> {
        let mut config = timing.clone();
        if config.cus == 0 {
            config.cus = crate::cu::config::default_cus(self.config.target);
        }
        let table = module.hazard_table();
        let run = TimedRun {
            program: &module.program,
            facts: module.timing_facts(),
            models: table,
            desc: &k.descriptor,
            launch,
            env: dispatch_env(k, launch, opts),
            config: &config,
            entry_index,
            progress: opts.progress.as_ref(),
            deadline: opts.timeout.map(|t| Instant::now() + t),
        };
        let limit = opts.max_instructions.unwrap_or(u64::MAX);
        let mut budget = limit;
        let mut counts = Counts::default();
        match crate::cu::run_timed(
            &run,
            &mut self.mem,
            &mut budget,
            &mut counts,
            // A kernel no run can show a hazard in needs no tracker.
            match module.hazard_free(k) {
                true => HazardMode::Off,
                false => opts.hazards,
            },
            &mut self.wave_pool,
            host,
        ) {
            Ok(r) => Ok((counts, r.hazards, Some((r.stats, r.trace)))),
            Err(TimedError::Guest(stop, group)) => {
                Err(guest_error(module, k, kernel, group, stop, opts))
            }
            Err(TimedError::Launch(why)) => Err(Error::Launch(format!("kernel `{kernel}`: {why}"))),
        }
    }

    /// Runs the workgroups functionally: in dispatch order on one thread, or on `workers`
    /// threads ([`crate::run::groups`]).
    #[allow(clippy::too_many_arguments)]
    fn execute(
        &mut self,
        module: &Module,
        k: &Kernel,
        kernel: &str,
        entry_index: u32,
        launch: &Launch,
        opts: &LaunchOptions,
        host: Option<&mut dyn HostServices>,
        workers: usize,
    ) -> Result<(Counts, Vec<Seen>), Error> {
        let progress = opts.progress.as_deref().map(|p| p as run::groups::Progress);
        let dispatch = run::groups::Dispatch {
            program: &module.program,
            desc: &k.descriptor,
            launch,
            env: dispatch_env(k, launch, opts),
            entry_index,
            // VGPRs the kernel allocates: (granulated count + 1) * 4 on gfx9.
            vgprs: (k.descriptor.rsrc1.granulated_workitem_vgpr_count as usize + 1) * 4,
            hazards: match opts.hazards {
                HazardMode::Off => None,
                _ if module.hazard_free(k) => None,
                mode => Some((mode, module.hazard_table())),
            },
            deadline: opts.timeout.map(|t| Instant::now() + t),
            progress,
        };
        let budget = opts.max_instructions.unwrap_or(u64::MAX);
        let out = if workers > 1 {
            dispatch.run_parallel(&mut self.mem, budget, workers)
        } else {
            dispatch.run(&mut self.mem, budget, host)
        };
        match out.result {
            Ok(()) => Ok((out.counts, out.hazards)),
            Err((group, stop)) => Err(guest_error(module, k, kernel, group, stop, opts)),
        }
    }
}

fn check_dims(d: &Dims) -> Result<(), Error> {
    if d.grid.contains(&0) || d.block.contains(&0) {
        return Err(Error::Launch(format!(
            "grid {:?} and block {:?} must be at least 1 in every dimension",
            d.grid, d.block
        )));
    }
    let items: u64 = d.block.iter().map(|&b| b as u64).product();
    if items > 1024 {
        return Err(Error::Launch(format!(
            "a workgroup of {items} work-items is larger than gfx9's 1024"
        )));
    }
    for i in 0..3 {
        if d.grid[i] as u64 * d.block[i] as u64 > u32::MAX as u64 {
            return Err(Error::Launch(format!(
                "grid dimension {i}: {} x {} work-items exceeds 2^32",
                d.grid[i], d.block[i]
            )));
        }
    }
    Ok(())
}

fn guest_error(
    module: &Module,
    k: &Kernel,
    kernel: &str,
    group: [u32; 3],
    stop: Stop,
    opts: &LaunchOptions,
) -> Error {
    let limit = opts.max_instructions.unwrap_or(u64::MAX);
    let entry = module.load_base + k.entry;
    let (wave, index, fault) = match stop {
        Stop::Fault { wave, index, fault } => (wave, index, GuestFault::Fault(fault)),
        Stop::Budget { wave, index } => (wave, index, GuestFault::BudgetExhausted(limit)),
        Stop::Timeout { waves } => {
            let waves = waves
                .into_iter()
                .map(|w| {
                    let (pc, instruction) = instruction_at(module, w.index);
                    let at = code_location(module, k, pc);
                    WaveReport {
                        workgroup: w.group,
                        wave: w.wave,
                        pc,
                        at,
                        instruction,
                        waits: w.waits,
                    }
                })
                .collect();
            let after = opts.timeout.unwrap_or_default();
            (0, u32::MAX, GuestFault::Timeout { after, waves })
        }
        Stop::Livelock { spinners, barrier } => {
            let first = spinners
                .first()
                .map_or((0, u32::MAX), |s| (s.wave, s.branch));
            let loops = spinners
                .into_iter()
                .map(|s| {
                    let (start, _) = instruction_at(module, s.target);
                    let (branch, instruction) = instruction_at(module, s.branch);
                    LoopReport {
                        workgroup: s.group,
                        wave: s.wave,
                        start,
                        branch,
                        start_at: code_location(module, k, start),
                        branch_at: code_location(module, k, branch),
                        instruction,
                    }
                })
                .collect();
            let fault = GuestFault::Livelock {
                loops,
                barrier,
                limit: opts.spin_limit,
            };
            (first.0, first.1, fault)
        }
        Stop::Deadlock { waiting } => (0, u32::MAX, GuestFault::Deadlock(waiting)),
        Stop::BarrierTimeout {
            waiting,
            running,
            cycles,
        } => {
            let entry = module.load_base + k.entry;
            let running = running
                .into_iter()
                .map(|(w, index)| {
                    let pc = module.program.insts.get(index as usize).map_or(0, |d| d.pc);
                    (w, pc, pc as i64 - entry as i64)
                })
                .collect();
            let fault = GuestFault::BarrierTimeout {
                waiting,
                running,
                cycles,
            };
            (0, u32::MAX, fault)
        }
        Stop::Hazard {
            wave,
            index,
            finding,
        } => {
            let seen = Seen {
                rule: finding.rule,
                consumer: index,
                producer: finding.producer_pc as u32,
                provided: finding.provided,
                required: finding.required,
                hits: 1,
                workgroup: group,
                wave,
            };
            let h = hazard_finding(module, k, &seen);
            (wave, index, GuestFault::Hazard(Box::new(h)))
        }
    };
    let (pc, instruction) = instruction_at(module, index);
    Error::Guest(Box::new(GuestError {
        kernel: kernel.to_string(),
        workgroup: group,
        wave,
        pc,
        kernel_offset: pc as i64 - entry as i64,
        function: enclosing_function(module, pc).filter(|(name, _)| *name != k.name),
        instruction,
        source: module.source_line(pc),
        fault,
    }))
}

/// Where `pc` is for a reader: `function+0x10` inside a callee, else `kernel+0x40`.
fn code_location(module: &Module, k: &Kernel, pc: u64) -> String {
    match enclosing_function(module, pc).filter(|(n, _)| *n != k.name) {
        Some((name, off)) => format!("{name}+{off:#x}"),
        None => {
            let off = pc as i64 - (module.load_base + k.entry) as i64;
            let sign = if off < 0 { "-" } else { "+" };
            format!("{}{sign}{:#x}", k.name, off.unsigned_abs())
        }
    }
}

/// The address and text of instruction `index`.
fn instruction_at(module: &Module, index: u32) -> (u64, String) {
    match module.program.insts.get(index as usize) {
        Some(d) if module.program.bad_word(index).is_none() => (d.pc, d.inst.to_string()),
        Some(d) => (d.pc, "<undecodable>".to_string()),
        None => (
            module
                .program
                .insts
                .last()
                .map_or(0, |d| d.pc + d.inst.len() as u64),
            "<end of code>".to_string(),
        ),
    }
}

/// The function symbol whose code holds `pc`, and the offset into it.
pub(crate) fn enclosing_function(module: &Module, pc: u64) -> Option<(String, u64)> {
    let elf = module.object.elf().ok()?;
    let vaddr = pc.checked_sub(module.load_base)?;
    elf.functions()
        .into_iter()
        .filter(|f| f.address <= vaddr && (f.size == 0 || vaddr < f.address + f.size))
        .max_by_key(|f| f.address)
        .map(|f| (f.name.clone(), vaddr - f.address))
}

/// What the semantics need to know of a launch: the private segment size and the registers
/// each wave is allocated (as the hardware rounds them).
fn dispatch_env(k: &Kernel, launch: &Launch, opts: &LaunchOptions) -> DispatchEnv {
    let demand = crate::cu::occupancy::Demand::new(&k.descriptor, 1, 0);
    DispatchEnv {
        private_size: launch.private_size,
        vgprs: demand.vgprs,
        sgprs: demand.sgprs,
        spin_limit: opts.spin_limit,
    }
}

/// What a launch's execution returns: counts, hazards seen, and the timing model's results.
type Timed = (Counts, Vec<Seen>, Option<(TimingStats, Option<Trace>)>);

/// A stale-register read in the terms of the kernel: addresses, offsets, disassembly.
fn stale_finding(module: &Module, k: &Kernel, r: &crate::cu::StaleRead) -> StaleReadFinding {
    let entry = module.load_base + k.entry;
    let at = |index: u32| {
        module
            .program
            .insts
            .get(index as usize)
            .map_or((0, String::new()), |d| (d.pc, d.inst.to_string()))
    };
    let (pc, instruction) = at(r.consumer);
    let (load_pc, load) = at(r.load);
    StaleReadFinding {
        kernel: k.name.clone(),
        pc,
        kernel_offset: pc as i64 - entry as i64,
        instruction,
        load_pc,
        load_offset: load_pc as i64 - entry as i64,
        load,
        access: r.access,
        registers: r.registers.clone(),
        counter: r.counter,
        hits: r.hits,
        workgroup: r.workgroup,
        wave: r.wave,
    }
}

/// A run-time hazard in the terms of the kernel: addresses, offsets from its entry, disassembly,
/// and the requirement and fix worded as the static lint words them.
fn hazard_finding(module: &Module, k: &Kernel, s: &Seen) -> HazardFinding {
    let entry = module.load_base + k.entry;
    let at = |index: u32| {
        module
            .program
            .insts
            .get(index as usize)
            .map_or((0, String::from("<end of code>")), |d| {
                (d.pc, d.inst.to_string())
            })
    };
    let (pc, instruction) = at(s.consumer);
    let (producer_pc, producer) = at(s.producer);
    let (required, provided, fix) = match s.rule.check {
        crate::hazard::rules::Check::SoftClause(_) => (
            "1 non-clause instruction".to_string(),
            "none".to_string(),
            format!("insert `s_nop 0` before {pc:#x} ({instruction})"),
        ),
        crate::hazard::rules::Check::StaleVccz => (
            "a write of all of vcc".to_string(),
            "none".to_string(),
            format!("insert `s_mov_b64 vcc, vcc` before {pc:#x} ({instruction})"),
        ),
        _ => {
            let missing = s.required.saturating_sub(s.provided);
            (
                format!("{} wait states", s.required),
                format!("{} wait states", s.provided),
                format!(
                    "insert `s_nop {}` before {pc:#x} ({instruction})",
                    missing.clamp(1, 8) - 1
                ),
            )
        }
    };
    HazardFinding {
        rule: s.rule.id,
        summary: s.rule.summary,
        pc,
        kernel_offset: pc as i64 - entry as i64,
        instruction,
        producer_pc,
        producer_offset: producer_pc as i64 - entry as i64,
        producer,
        required,
        provided,
        fix,
        hits: s.hits,
        workgroup: s.workgroup,
        wave: s.wave,
    }
}

/// The kernel's explicit arguments, one per line, for error messages.
pub fn describe_args(args: &[&KernelArg]) -> String {
    let mut s = String::from("expected arguments:");
    for (i, a) in args.iter().enumerate() {
        let kind = match a.value_kind {
            ValueKind::GlobalBuffer => "pointer".to_string(),
            ValueKind::ByValue => "by value".to_string(),
            ref other => other.name().to_string(),
        };
        let label = match (a.type_name.as_deref(), a.name.as_deref()) {
            (Some(t), Some(n)) => format!("{t} {n}: "),
            (None, Some(n)) => format!("{n}: "),
            (Some(t), None) => format!("{t}: "),
            (None, None) => String::new(),
        };
        s += &format!("\n  {i}: {label}{} bytes, {kind}", a.size);
    }
    if args.is_empty() {
        s += " none";
    }
    s
}

/// The bytes of an argument for a kernarg slot of `spec.size` bytes.
fn arg_bytes(a: &Arg, spec: &KernelArg) -> Result<Vec<u8>, String> {
    let size = spec.size as usize;
    let int = |v: i128| -> Result<Vec<u8>, String> {
        let bits = 8 * size as u32;
        if size == 0 || size > 8 {
            return Err(format!("an integer does not fit a {size}-byte argument"));
        }
        let (min, max) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
        if v < min || v > max {
            return Err(format!("{v} does not fit in {size} bytes"));
        }
        Ok((v as u64).to_le_bytes()[..size].to_vec())
    };
    match a {
        Arg::Ptr(p) if size == 8 => Ok(p.to_le_bytes().to_vec()),
        Arg::Ptr(_) => Err(format!(
            "a pointer needs an 8-byte argument, this one has {size} bytes"
        )),
        Arg::I32(v) => int(*v as i128),
        Arg::U32(v) => int(*v as i128),
        Arg::I64(v) => int(*v as i128),
        Arg::U64(v) => int(*v as i128),
        Arg::F32(v) if size == 4 => Ok(v.to_le_bytes().to_vec()),
        Arg::F64(v) if size == 8 => Ok(v.to_le_bytes().to_vec()),
        Arg::F32(_) => Err(format!(
            "an f32 needs a 4-byte argument, this one has {size} bytes"
        )),
        Arg::F64(_) => Err(format!(
            "an f64 needs an 8-byte argument, this one has {size} bytes"
        )),
        Arg::Bytes(b) if b.len() == size => Ok(b.clone()),
        Arg::Bytes(b) => Err(format!(
            "{} bytes given for a {size}-byte argument",
            b.len()
        )),
    }
}
