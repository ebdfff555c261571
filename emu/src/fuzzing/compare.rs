//! A generated program on every engine from the same memory: the functional engine (one
//! thread interpreting, two threads running its code compiled from the first instruction
//! ([`crate::exec::compiled`])), the timing model (one thread with random arbitration and latencies, and
//! two threads oldest-first with the hazard tracker). Race-free by construction, the program
//! must end the same way everywhere — success or the same guest error — and, on success, with
//! the same buffer and the same count of wave-instructions.

use super::layout::{self, BUFFER_SIZE, GRANULATED_SGPRS, GROUPS, IN, LDS_SIZE, VGPRS};
use super::program::Generated;
use crate::cu::{run_timed, Arbitration, TimedError, TimingConfig};
use crate::dispatch::Launch;
use crate::exec::compiled::HotRegion;
use crate::exec::program::Program;
use crate::exec::DispatchEnv;
use crate::launch::hazards::{HazardMode, HazardTable};
use crate::launch::{Counts, Stop};
use crate::memory::{AllocKind, Memory};
use crate::run::groups::Dispatch;
use crate::wave::RegFile;
use gcn_isa::{Agprs, Target};
use gcn_loader::KernelDescriptor;
use std::sync::Arc;

/// Wave-instructions a run may take: far more than any generated program runs (at most 400
/// instructions, loops of at most 4 × 4 iterations, 8 waves).
const BUDGET: u64 = 1_000_000;

/// How one engine's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineRun {
    pub engine: &'static str,
    /// `ok`, or the kind of stop (a guest fault with its text).
    pub result: String,
    pub wave_instructions: u64,
    /// The buffer afterwards.
    pub memory: Vec<u8>,
}

/// The device memory a generated program starts from, and the buffer's address.
pub fn initial_memory() -> Option<(Memory, u64)> {
    let mut mem = Memory::new(1 << 20);
    let buf = mem.alloc(BUFFER_SIZE, AllocKind::Buffer).ok()?;
    for (i, p) in layout::kernarg(buf).iter().enumerate() {
        mem.write_u64(buf + 8 * i as u64, *p).ok()?;
    }
    mem.write(buf + IN.0, &layout::input_pattern()).ok()?;
    Some((mem, buf))
}

/// The kernel descriptor and launch: 2 workgroups of `waves` waves, the kernarg pointer in
/// s[0:1] and the workgroup id in s2, 48 SGPRs, [`VGPRS`] VGPRs (and as many AGPRs on gfx908
/// and gfx90a).
fn dispatch(target: Target, waves: u32, buf: u64) -> (KernelDescriptor, Launch, RegFile) {
    let features = target.features();
    let mut desc = KernelDescriptor::default();
    desc.kernel_code_properties.enable_sgpr_kernarg_segment_ptr = true;
    desc.rsrc2.enable_sgpr_workgroup_id_x = true;
    desc.rsrc1.granulated_wavefront_sgpr_count = GRANULATED_SGPRS;
    let vgprs = if features.agprs == Agprs::Unified {
        desc.rsrc3.accum_offset = (VGPRS / 4 - 1) as u8;
        desc.accum_offset = Some(VGPRS);
        2 * VGPRS
    } else {
        VGPRS
    };
    desc.rsrc1.granulated_workitem_vgpr_count = (vgprs / features.vgpr_granule as u32 - 1) as u8;
    let launch = super::launch(buf, GROUPS, waves, LDS_SIZE);
    let regs = RegFile::new(
        target,
        vgprs as usize,
        desc.accum_offset.map(|a| a as usize),
    );
    (desc, launch, regs)
}

fn stop_kind(stop: &Stop) -> String {
    match stop {
        Stop::Fault { fault, .. } => format!("fault: {fault}"),
        Stop::Budget { .. } => "budget".into(),
        Stop::Deadlock { .. } | Stop::BarrierTimeout { .. } => "deadlock".into(),
        Stop::Hazard { .. } => "hazard".into(),
        Stop::Timeout { .. } => "timeout".into(),
        Stop::Livelock { .. } => "livelock".into(),
    }
}

/// Runs `g` on every engine, each from fresh memory.
pub fn run_engines(g: &Generated, seed: u64) -> Vec<EngineRun> {
    let program = Program::decode(&g.assembly.bytes, 0x1000, g.target);
    let mut runs = Vec::new();
    for threads in [1, 2] {
        let Some((mut mem, buf)) = initial_memory() else {
            return runs;
        };
        let (desc, launch, regs) = dispatch(g.target, g.waves, buf);
        let compiled = (threads == 2).then(|| Arc::new(HotRegion::new(0, 0)));
        let d = Dispatch {
            program: &program,
            desc: &desc,
            launch: &launch,
            env: DispatchEnv {
                compiled,
                ..DispatchEnv::default()
            },
            entry_index: 0,
            regs,
            hazards: None,
            deadline: None,
            progress: None,
            cooperative: false,
        };
        let outcome = if threads == 1 {
            d.run(&mut mem, BUDGET, None)
        } else {
            d.run_parallel(&mut mem, BUDGET, threads, None)
        };
        runs.push(EngineRun {
            engine: if threads == 1 {
                "functional"
            } else {
                "functional, 2 threads, compiled"
            },
            result: match &outcome.result {
                Ok(()) => "ok".into(),
                Err((_, stop)) => stop_kind(stop),
            },
            wave_instructions: outcome.counts.wave_instructions,
            memory: buffer(&mem, buf),
        });
    }
    let timed = [
        (
            "timing, random",
            1,
            Arbitration::Random { seed },
            HazardMode::Off,
        ),
        (
            "timing, 2 threads",
            2,
            Arbitration::OldestFirst,
            HazardMode::Warn,
        ),
    ];
    for (engine, threads, arbitration, hazards) in timed {
        let Some((mut mem, buf)) = initial_memory() else {
            return runs;
        };
        let (desc, launch, _) = dispatch(g.target, g.waves, buf);
        let config = TimingConfig {
            cus: 2,
            threads,
            arbitration,
            barrier_timeout: 1_000_000,
            ..TimingConfig::for_target(g.target)
        };
        let table = HazardTable::new(&program, false);
        let facts = crate::cu::facts::program_facts(&program);
        let run = crate::cu::TimedRun {
            program: &program,
            facts: &facts,
            models: &table,
            leaves: None,
            desc: &desc,
            launch: &launch,
            env: DispatchEnv::default(),
            config: &config,
            ahead_code: None,
            entry_index: 0,
            progress: None,
            deadline: None,
            cooperative: false,
        };
        let (mut budget, mut counts) = (BUDGET, Counts::default());
        let result = run_timed(
            &run,
            &mut mem,
            &mut budget,
            &mut counts,
            hazards,
            &mut Default::default(),
            None,
        );
        runs.push(EngineRun {
            engine,
            result: match &result {
                Ok(_) => "ok".into(),
                Err(TimedError::Guest(stop, _)) => stop_kind(stop),
                Err(TimedError::Launch(why)) => format!("launch: {why}"),
            },
            wave_instructions: counts.wave_instructions,
            memory: buffer(&mem, buf),
        });
    }
    runs
}

fn buffer(mem: &Memory, buf: u64) -> Vec<u8> {
    mem.bytes(buf, BUFFER_SIZE as usize)
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// Where two runs differ, for the failure message: the result, the count, or the first
/// differing byte of the buffer.
pub fn difference(a: &EngineRun, b: &EngineRun) -> Option<String> {
    if a.result != b.result {
        return Some(format!(
            "{}: {}\n{}: {}",
            a.engine, a.result, b.engine, b.result
        ));
    }
    if a.result != "ok" {
        // Other waves stop at different points when one faults; only the stop must agree.
        return None;
    }
    if a.wave_instructions != b.wave_instructions {
        return Some(format!(
            "{}: {} wave-instructions\n{}: {}",
            a.engine, a.wave_instructions, b.engine, b.wave_instructions
        ));
    }
    let at = a.memory.iter().zip(&b.memory).position(|(x, y)| x != y)?;
    let word = |m: &[u8]| {
        let s = at & !3;
        m.get(s..s + 4)
            .map(|w| format!("{w:02x?}"))
            .unwrap_or_default()
    };
    Some(format!(
        "buffer byte {at:#x}: {} has {}, {} has {}",
        a.engine,
        word(&a.memory),
        b.engine,
        word(&b.memory)
    ))
}
