//! Shared harness of the instruction-level tests (`exec_*.rs`): assemble a snippet with
//! `gcn_isa::assemble`, run it on one wave, return the wave or the fault.

#![allow(dead_code)]

pub mod record;
pub mod vectors;

use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::exec::DispatchEnv;
use gcnemu::fault::Fault;
use gcnemu::launch::{Counts, Stop};
use gcnemu::lds::Lds;
use gcnemu::memory::Memory;
use gcnemu::run::run_workgroup;
use gcnemu::wave::{RegFile, Wave};

/// MODE with f32 and f16/f64 denormals kept (what HIP kernels get), IEEE on.
pub const MODE_DENORMS: u32 = 0xf0 | 1 << 9;

/// Runs `asm` (s_endpgm appended) for `target` on one wave prepared by `setup`, with `mem`.
pub fn run_with(
    target: Target,
    asm: &str,
    mem: &mut Memory,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, Fault> {
    let text = format!("{asm}\ns_endpgm\n");
    let code = assemble(&text, target).unwrap_or_else(|e| panic!("{e:?}"));
    record::note_asm(target, asm);
    run_code(target, &code.bytes, mem, setup)
}

/// Runs machine code (for encodings our assembler does not take yet; the bytes come from
/// llvm-mc-15, quoted next to each use) on one wave.
pub fn run_code(
    target: Target,
    bytes: &[u8],
    mem: &mut Memory,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, Fault> {
    let env = DispatchEnv {
        private_size: 256,
        ..DispatchEnv::default()
    };
    run_code_in(target, bytes, mem, &env, setup)
}

/// [`run_code`] with the dispatch's facts given.
pub fn run_code_in(
    target: Target,
    bytes: &[u8],
    mem: &mut Memory,
    env: &DispatchEnv,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, Fault> {
    let program = Program::decode(bytes, 0x1000, target);
    assert!(program.bad.is_empty(), "{:?}", program.bad);
    // The whole register file of the target: 256 VGPRs, and 256 AGPRs where it has them.
    let mut w = Wave::with_file(0, RegFile::full(target));
    w.set_exec(u64::MAX);
    w.mode = MODE_DENORMS;
    setup(&mut w);
    record::note_input(&w, mem);
    let mut waves = [w];
    let mut lds = Lds::new(4096);
    let (mut budget, mut counts) = (1_000_000u64, Counts::default());
    match run_workgroup(
        &mut waves,
        &program,
        mem,
        &mut lds,
        env,
        &mut budget,
        &mut counts,
    ) {
        Ok(()) => Ok(waves.into_iter().next().unwrap()),
        Err(Stop::Fault { fault, .. }) => Err(fault),
        Err(other) => panic!("{other:?}"),
    }
}

/// Runs on gfx906 (a superset of gfx900's VALU) with no device memory.
pub fn run(asm: &str, setup: impl FnOnce(&mut Wave)) -> Result<Wave, Fault> {
    run_with(Target::Gfx906, asm, &mut Memory::default(), setup)
}

/// A row whose lanes cycle through `vals`.
pub fn cyc(vals: &[u32]) -> [u32; 64] {
    std::array::from_fn(|l| vals[l % vals.len()])
}

/// f16 bits of an f32 value (exactly representable ones in the tests).
pub fn h(v: f32) -> u32 {
    half::f16::from_f32(v).to_bits() as u32
}

/// After checking a run of `run` (no device memory) with `check`: in vector generation
/// (`GEN_VECTORS=1`), records that run as a test vector whose expected values are what `check`
/// verifies (`record.rs`); otherwise nothing.
pub fn vet(w: &Wave, check: impl Fn(&Wave)) {
    if record::on() {
        record::record(w, &mut Memory::default(), &|w, _| check(w));
    }
}

/// `vet` for a run with device memory: `check` sees the wave and the memory.
pub fn vet_mem(w: &Wave, mem: &mut Memory, check: impl Fn(&Wave, &Memory)) {
    if record::on() {
        record::record(w, mem, &check);
    }
}
