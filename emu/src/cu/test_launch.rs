//! For the timing model's unit tests: assembled code launched on one CU.

use super::device::{TimedError, TimedResult};
use super::facts::program_facts;
use super::stats::TimingStats;
use super::{run_timed, TimedRun, TimingConfig};
use crate::dispatch::Launch;
use crate::exec::program::Program;
use crate::exec::DispatchEnv;
use crate::launch::hazards::{HazardMode, HazardTable};
use crate::launch::Counts;
use crate::memory::Memory;
use gcn_loader::KernelDescriptor;

/// Runs `program` under `config` with `budget` wave-instructions: `groups` workgroups of
/// `block` work-items in x, the kernarg pointer `kernarg` in s[0:1], 8 VGPRs and 16 SGPRs a
/// wave, no hazard tracking. Returns the result, the counts and the budget left.
pub fn launch(
    program: &Program,
    mem: &mut Memory,
    kernarg: u64,
    (groups, block): (u32, u32),
    config: &TimingConfig,
    budget: u64,
) -> (Result<TimedResult, TimedError>, Counts, u64) {
    let mut desc = KernelDescriptor::default();
    desc.kernel_code_properties.enable_sgpr_kernarg_segment_ptr = true;
    desc.rsrc1.granulated_workitem_vgpr_count = 1;
    desc.rsrc1.granulated_wavefront_sgpr_count = 1;
    let launch = Launch {
        grid: [groups, 1, 1],
        block: [block, 1, 1],
        dispatch_id: 0,
        packet: kernarg,
        queue: 0,
        kernarg,
        scratch_base: 0,
        private_size: 0,
        scratch_per_wave: 0,
        lds_size: 0,
        hostcall_buffer: 0,
        heap: 0,
        packed_tid: false,
        architected_flat_scratch: false,
        preload: crate::dispatch::Preload::default(),
    };
    let table = HazardTable::new(program, false);
    let facts = program_facts(program);
    let run = TimedRun {
        program,
        facts: &facts,
        models: &table,
        leaves: None,
        desc: &desc,
        launch: &launch,
        env: DispatchEnv::default(),
        config,
        ahead_code: None,
        entry_index: 0,
        progress: None,
        deadline: None,
        cooperative: false,
    };
    let (mut left, mut counts) = (budget, Counts::default());
    let result = run_timed(
        &run,
        mem,
        &mut left,
        &mut counts,
        HazardMode::Off,
        &mut Default::default(),
        None,
    );
    (result, counts, left)
}

/// Assembles `text` for gfx900 and runs it as [`launch`] does, with s[0:1] pointing at a
/// kernarg whose first word is the address of a zeroed buffer of `bytes` bytes. Returns the
/// result, the counts, the budget left and the buffer.
pub fn launch_text(
    text: &str,
    dims: (u32, u32),
    bytes: u64,
    config: &TimingConfig,
    budget: u64,
) -> (Result<TimedResult, TimedError>, Counts, u64, Vec<u8>) {
    use crate::memory::AllocKind;
    let code = gcn_isa::assemble(text, gcn_isa::Target::Gfx900).unwrap();
    let program = Program::decode(&code.bytes, 0, gcn_isa::Target::Gfx900);
    let mut mem = Memory::new(1 << 20);
    let kernarg = mem.alloc(8, AllocKind::Buffer).unwrap();
    let data = mem.alloc(bytes, AllocKind::Buffer).unwrap();
    mem.write_u64(kernarg, data).unwrap();
    let (result, counts, left) = launch(&program, &mut mem, kernarg, dims, config, budget);
    let buffer = mem.bytes(data, bytes as usize).unwrap().to_vec();
    (result, counts, left, buffer)
}

/// What a test compares of a run: its statistics (the host's speed left out) or its stop, the
/// counts, the budget left and the buffer.
pub type Outcome = (Result<TimingStats, String>, Counts, u64, Vec<u8>);

/// [`launch_text`] with `dims` and a 1 KiB buffer, as an [`Outcome`].
pub fn outcome(text: &str, dims: (u32, u32), config: &TimingConfig, budget: u64) -> Outcome {
    let (result, counts, left, bytes) = launch_text(text, dims, 1024, config, budget);
    let result = match result {
        Ok(r) => Ok(TimingStats {
            cycles_per_second: 0.0,
            ..r.stats
        }),
        Err(TimedError::Guest(stop, group)) => Err(format!("{stop:?} in {group:?}")),
        Err(TimedError::Launch(why)) => Err(why),
    };
    (result, counts, left, bytes)
}

/// A loop of full- and quarter-rate vector ALU instructions, scalar ALU and a branch, with
/// scalar loads and a store around it: while the waves loop, their SIMDs' turns run in
/// bulk, entered and left around the memory instructions.
pub const LOOP: &str = "
    s_load_dwordx2 s[2:3], s[0:1], 0x0
    v_lshlrev_b32 v3, 2, v0
    v_mov_b32 v1, 0
    s_mov_b32 s4, 0
    s_waitcnt lgkmcnt(0)
again:
    v_add_u32 v1, v1, v0
    v_mul_lo_u32 v2, v1, v1
    v_xor_b32 v1, v1, v2
    s_add_u32 s4, s4, 1
    s_cmp_lg_u32 s4, 40
    s_cbranch_scc1 again
    v_mov_b32 v5, s3
    v_add_co_u32 v4, vcc, s2, v3
    v_addc_co_u32 v5, vcc, 0, v5, vcc
    global_store_dword v[4:5], v1, off
    s_endpgm";
