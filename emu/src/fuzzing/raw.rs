//! Arbitrary machine code (the `run` fuzz target): byte 0 picks the target and the wave count,
//! the rest is code. Whatever the bytes, running them must end — with success or a guest error —
//! never with a panic, a hang or host memory touched. Each input runs on the functional engine
//! (one workgroup on this thread, and two workgroups on two threads) and on the timing model
//! (one and two host threads), under a small instruction budget; the timing model must give
//! the same outcome with and without its run-ahead of ALU instructions and bulk turns, and
//! both engines the same compiled ([`crate::exec::compiled`]) as interpreted (programs of up
//! to [`COMPILED_MAX`] instructions).

use crate::cu::{run_timed, Arbitration, TimingConfig, TimingStats};
use crate::dispatch::Launch;
use crate::exec::compiled::{Compile, HotRegion};
use crate::exec::program::Program;
use crate::exec::DispatchEnv;
use crate::launch::hazards::{HazardMode, HazardTable};
use crate::launch::Counts;
use crate::lds::Lds;
use crate::memory::{AllocKind, Memory};
use crate::run::run_workgroup;
use crate::wave::Wave;
use gcn_isa::Target;
use gcn_loader::KernelDescriptor;

/// Wave-instructions an input may run per engine.
const BUDGET: u64 = 20_000;
/// Code bytes taken from an input: room for real kernels (the seed corpus is the `.text` of
/// the fixtures' kernels, up to a few KiB).
const MAX_CODE: usize = 8192;
/// The longest program compared compiled with interpreted: compiling costs as much as
/// interpreting about 2,000 instructions per instruction, several times more in the fuzzer's
/// instrumented build, and every input of a few KiB compiled took the target from about 20
/// inputs a second to one. Short programs reach every exit and call of the compiled code.
const COMPILED_MAX: usize = 128;
/// Where the kernarg image's pointers point, inside the buffer.
const DATA_OFFSET: u64 = 1024;

/// Runs `data` on every engine. Byte 0: bit 0 the target (gfx900, gfx906), bits 1-2 the wave
/// count - 1, bit 3 hipcc's SGPR layout (private segment buffer, dispatch pointer, kernarg
/// pointer in s[6:7]) instead of the kernarg pointer alone in s[0:1]. The rest: code. The
/// kernarg segment is a 4 KiB buffer whose 8-byte slots all point into its own second KiB, so
/// real kernels' pointer arguments lead to memory they may touch (and an `int n` read from a
/// slot's low half is small).
pub fn run_bytes(data: &[u8]) {
    let Some((&head, code)) = data.split_first() else {
        return;
    };
    let target = if head & 1 == 0 {
        Target::Gfx900
    } else {
        Target::Gfx906
    };
    let waves = 1 + (head >> 1 & 3) as u32;
    let hipcc_layout = head & 8 != 0;
    let mut bytes = code[..code.len().min(MAX_CODE)].to_vec();
    bytes.truncate(bytes.len() / 4 * 4);
    bytes.extend_from_slice(&0xbf81_0000u32.to_le_bytes()); // s_endpgm
    let program = Program::decode(&bytes, 0x1000, target);

    let Some((mut mem, buf)) = fresh_memory() else {
        return;
    };
    functional(&program, &mut mem, buf, waves, hipcc_layout);
    functional_threads(&program, &mut mem, buf, waves, hipcc_layout);
    for threads in [1, 2] {
        timed(&program, &mut mem, buf, waves, threads, hipcc_layout);
    }
    same_without_ahead(&program, waves, hipcc_layout, program.len() <= COMPILED_MAX);
    if program.len() <= COMPILED_MAX {
        same_compiled(&program, waves, hipcc_layout);
    }
}

/// Device memory with the kernarg buffer: its 8-byte slots all point into its second KiB.
fn fresh_memory() -> Option<(Memory, u64)> {
    let mut mem = Memory::new(1 << 20);
    let buf = mem.alloc(4096, AllocKind::Buffer).ok()?;
    for slot in 0..DATA_OFFSET / 8 {
        let _ = mem.write_u64(buf + slot * 8, buf + DATA_OFFSET);
    }
    Some((mem, buf))
}

/// The timing model with its run-ahead and bulk turns ([`crate::cu::ahead`],
/// [`crate::cu::bulk`]) must give what it gives without them: the same outcome (statistics,
/// or the same guest stop), counts, budget left and buffer. Oldest-first arbitration (the
/// bulk's), no hazard tracking (which turns the run-ahead off), one CU with several waves per
/// SIMD so that they contend. With `compiled`, the run-ahead's compiled code must give it too.
fn same_without_ahead(program: &Program, waves: u32, hipcc: bool, compiled: bool) {
    let outcome = |ahead: bool, compiled: bool| {
        let (mut mem, buf) = fresh_memory().expect("the first allocation succeeded before");
        let (mut desc, mut launch) = dispatch(buf, waves, hipcc);
        // 64 VGPRs, so that several waves share each SIMD (and more workgroups to fill them).
        desc.rsrc1.granulated_workitem_vgpr_count = 15;
        launch.grid = [6, 1, 1];
        let config = TimingConfig {
            cus: 1,
            barrier_timeout: 50_000,
            arbitration: Arbitration::OldestFirst,
            ahead,
            ..TimingConfig::for_target(program.target)
        };
        let env = DispatchEnv {
            spin_limit: 64,
            ..DispatchEnv::default()
        };
        let (result, counts, budget) = launch_timed(
            program,
            &mut mem,
            (&desc, &launch),
            (env, compiled),
            &config,
            HazardMode::Off,
        );
        let result = match result {
            Ok(r) => format!(
                "{:?}",
                TimingStats {
                    cycles_per_second: 0.0,
                    ..r.stats
                }
            ),
            Err(e) => format!("{e:?}"),
        };
        let bytes = mem.bytes(buf, 4096).map(|b| b.to_vec());
        (result, budget, counts, bytes)
    };
    let (with, without) = (outcome(true, false), outcome(false, false));
    // Which part differs: the result, the instruction budget left, the counts, the memory.
    let part = if with.0 != without.0 {
        "result"
    } else if with.1 != without.1 {
        "budget"
    } else if with.2 != without.2 {
        "counts"
    } else {
        "memory"
    };
    assert!(
        with == without,
        "the timing model's run-ahead changed the {part}:\n  with:    {:?} budget {:?} {:?}\n  without: {:?} budget {:?} {:?}",
        with.0,
        with.1,
        with.2,
        without.0,
        without.1,
        without.2
    );
    if compiled {
        let compiled = outcome(true, true);
        assert!(
            with == compiled,
            "the timing model's run-ahead compiled ended otherwise:\n  interpreted: {:?} budget {:?} {:?}\n  compiled:    {:?} budget {:?} {:?}",
            with.0,
            with.1,
            with.2,
            compiled.0,
            compiled.1,
            compiled.2
        );
    }
}

/// The functional engine must end the same with the program compiled from its first quantum
/// as interpreted: the same outcome (or guest stop), budget left, counts, buffer, and the
/// waves' program counters, instruction counts and first registers.
fn same_compiled(program: &Program, waves: u32, hipcc_layout: bool) {
    let outcome = |compiled: bool| {
        let (mut mem, buf) = fresh_memory()?;
        let env = DispatchEnv {
            compiled: compiled.then(|| std::sync::Arc::new(HotRegion::new(0, 0))),
            ..DispatchEnv::default()
        };
        let (r, ws, budget, counts) =
            functional_run(program, &mut mem, buf, waves, hipcc_layout, env);
        let regs: Vec<_> = ws
            .iter()
            .map(|w| {
                (
                    w.pc,
                    w.instructions,
                    w.exec(),
                    w.scc,
                    w.sgpr[..16].to_vec(),
                    (0..8).map(|v| w.vgpr[v]).collect::<Vec<_>>(),
                )
            })
            .collect();
        Some((
            format!("{r:?}"),
            budget,
            counts,
            mem.bytes(buf, 4096).map(|b| b.to_vec()),
            regs,
        ))
    };
    let (interpreted, compiled) = (outcome(false), outcome(true));
    assert!(
        interpreted == compiled,
        "compiled, the functional engine ended otherwise:\n  interpreted: {:?}\n  compiled:    {:?}",
        interpreted.as_ref().map(|o| (&o.0, o.1, &o.2)),
        compiled.as_ref().map(|o| (&o.0, o.1, &o.2)),
    );
}

fn functional(program: &Program, mem: &mut Memory, buf: u64, waves: u32, hipcc_layout: bool) {
    // (Any ending will do: a guest error is an outcome.)
    let _ = functional_run(
        program,
        mem,
        buf,
        waves,
        hipcc_layout,
        DispatchEnv::default(),
    );
}

/// One workgroup of `waves` waves on this thread under `env`: how it ended, the waves, the
/// budget left and the counts.
fn functional_run(
    program: &Program,
    mem: &mut Memory,
    buf: u64,
    waves: u32,
    hipcc_layout: bool,
    env: DispatchEnv,
) -> (Result<(), crate::launch::Stop>, Vec<Wave>, u64, Counts) {
    let mut ws: Vec<Wave> = (0..waves)
        .map(|i| {
            let mut w = Wave::new(i);
            w.set_exec(u64::MAX);
            w.set_pair(0, buf);
            if hipcc_layout {
                // Dispatch packet and kernarg pointers where hipcc's kernels expect them.
                w.set_pair(4, buf);
                w.set_pair(6, buf);
            }
            w.vgpr[0] = std::array::from_fn(|l| l as u32 * 4);
            w
        })
        .collect();
    let mut lds = Lds::new(4096);
    let (mut budget, mut counts) = (BUDGET, Counts::default());
    let r = run_workgroup(
        &mut ws,
        program,
        mem,
        &mut lds,
        &env,
        &mut budget,
        &mut counts,
    );
    (r, ws, budget, counts)
}

/// The two-workgroup dispatch the timing model and the threaded functional engine run.
fn dispatch(buf: u64, waves: u32, hipcc_layout: bool) -> (KernelDescriptor, Launch) {
    let mut desc = KernelDescriptor::default();
    desc.kernel_code_properties.enable_sgpr_kernarg_segment_ptr = true;
    if hipcc_layout {
        desc.kernel_code_properties
            .enable_sgpr_private_segment_buffer = true;
        desc.kernel_code_properties.enable_sgpr_dispatch_ptr = true;
        desc.rsrc2.enable_sgpr_workgroup_id_x = true;
    }
    desc.rsrc1.granulated_workitem_vgpr_count = 63;
    desc.rsrc1.granulated_wavefront_sgpr_count = 6;
    desc.rsrc2.enable_vgpr_workitem_id = 2;
    let launch = super::launch(buf, 2, waves, 4096);
    (desc, launch)
}

/// The functional engine with the two workgroups on two host threads.
fn functional_threads(program: &Program, mem: &mut Memory, buf: u64, waves: u32, hipcc: bool) {
    let (desc, launch) = dispatch(buf, waves, hipcc);
    let table = HazardTable::new(program, false);
    let d = crate::run::groups::Dispatch {
        program,
        desc: &desc,
        launch: &launch,
        env: DispatchEnv::default(),
        entry_index: 0,
        regs: crate::wave::RegFile::full(program.target),
        hazards: Some((HazardMode::Warn, &table, None)),
        deadline: None,
        progress: None,
        cooperative: false,
    };
    let _ = d.run_parallel(mem, BUDGET, 2, None);
}

fn timed(
    program: &Program,
    mem: &mut Memory,
    buf: u64,
    waves: u32,
    threads: usize,
    hipcc_layout: bool,
) {
    let (desc, launch) = dispatch(buf, waves, hipcc_layout);
    let config = TimingConfig {
        cus: 2,
        threads,
        barrier_timeout: 50_000,
        arbitration: Arbitration::Random { seed: 1 },
        ..TimingConfig::for_target(program.target)
    };
    let env = DispatchEnv::default();
    let _ = launch_timed(
        program,
        mem,
        (&desc, &launch),
        (env, false),
        &config,
        HazardMode::Warn,
    );
}

/// Runs the launch on the timing model under the fuzz budget (with the run-ahead compiled from
/// its first run if `compiled`): its result, and the counts and budget left.
fn launch_timed(
    program: &Program,
    mem: &mut Memory,
    (desc, launch): (&KernelDescriptor, &Launch),
    (env, compiled): (DispatchEnv, bool),
    config: &TimingConfig,
    hazards: HazardMode,
) -> (
    Result<crate::cu::TimedResult, crate::cu::TimedError>,
    Counts,
    u64,
) {
    let table = HazardTable::new(program, false);
    let facts = crate::cu::facts::program_facts(program);
    let run = crate::cu::TimedRun {
        program,
        facts: &facts,
        models: &table,
        leaves: None,
        desc,
        launch,
        env,
        config,
        ahead_code: compiled
            .then(|| {
                let runs = facts
                    .iter()
                    .map(crate::cu::facts::InstTiming::ahead_code)
                    .collect();
                HotRegion::ahead(program, 0, Compile::Always, runs)
            })
            .flatten()
            .map(std::sync::Arc::new),
        entry_index: 0,
        progress: None,
        deadline: None,
        cooperative: false,
    };
    let (mut budget, mut counts) = (BUDGET, Counts::default());
    let result = run_timed(
        &run,
        mem,
        &mut budget,
        &mut counts,
        hazards,
        &mut Default::default(),
        None,
    );
    (result, counts, budget)
}
