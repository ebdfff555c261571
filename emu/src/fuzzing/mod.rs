//! Fuzzing the execution engines, for the fuzz targets in `fuzz/` and their replay tests.
//!
//! Two modes:
//!
//! - **Raw bytes** ([`run_bytes`], the `run` target): arbitrary machine code must run to an end
//!   on every engine — success or a guest error, never a panic or a hang ([`raw`]).
//! - **Generated programs** ([`check_generated`], the `programs` target): the fuzz bytes drive
//!   an [`arbitrary::Unstructured`] that draws a kernel of valid instructions for gfx900,
//!   gfx906, gfx908 or gfx90a from the op table ([`program`]): ALU ops with legal operands,
//!   memory ops whose addresses stay where the lane may touch, LDS, waits, barriers, forward
//!   branches and counted loops, encoded by the project's assembler. The program runs on the
//!   functional engine (one and two threads) and the timing model (random arbitration and
//!   latencies; two threads), each from the same memory ([`compare`]); they must end alike, and
//!   on success with the same buffer and the same count of wave-instructions.
//!
//! # Why race-free by construction, not by the race sanitizer
//!
//! Comparing final memory is only sound when the program has one result, i.e. has no race —
//! between lanes, waves and workgroups through memory, and, within a wave, between a load and
//! a use of its register before `s_waitcnt` (the functional engine completes memory operations
//! when they issue, the timing model when their latency has passed). The race sanitizer
//! (`crate::check`, racecheck) could filter inputs, but it is built to avoid false reports,
//! not to prove absence: it forgives pairs in an interval where either wave used an atomic,
//! forgets global chunks after two barriers and caps its history, and knows nothing of
//! registers read before a load lands. So the generator makes programs that cannot race:
//!
//! - each lane stores and makes atomics only in its own output slot and LDS slot; loads read
//!   the input, which nothing writes;
//! - lanes share memory only through non-returning atomics of one commutative kind per area
//!   (add, sub, min, max, and, or, xor: the final value does not depend on the order) and
//!   through the shared LDS area, written (each lane its own dword) and read in phases
//!   separated by `s_waitcnt` and `s_barrier` at the top level of the program, which every
//!   wave of a workgroup reaches equally often;
//! - a register a load will write is neither read nor written before an `s_waitcnt` covering
//!   it ([`pending`]), and nothing is in flight at a loop's head or back edge.
//!
//! Within a wave, stores, atomics and LDS accesses to the same address are left in flight
//! together: the hardware keeps a wave's memory operations in order, so the engines must too.

mod alu;
pub mod compare;
pub mod layout;
mod memory;
mod operand;
mod pending;
pub mod pool;
pub mod program;
mod raw;

pub use raw::run_bytes;

use crate::dispatch::Launch;
use arbitrary::Unstructured;
use gcn_isa::Target;

/// The targets generated programs are drawn for (one of each op set).
pub const TARGETS: [Target; 4] = [
    Target::Gfx900,
    Target::Gfx906,
    Target::Gfx908,
    Target::Gfx90a,
];

/// What one generated program did, for tests that the programs run deep.
#[derive(Clone, Debug)]
pub struct Checked {
    pub text: String,
    /// Waves per workgroup (of two workgroups).
    pub waves: u32,
    /// Instructions of the program.
    pub instructions: usize,
    /// `ok`, or the stop every engine agreed on.
    pub result: String,
    pub wave_instructions: u64,
    /// Bytes of the output and atomics areas the program changed.
    pub stored: usize,
    /// Drawn instructions the assembler refused.
    pub refused: Vec<String>,
}

/// The `programs` fuzz target: byte 0 picks the target, the rest drives the generator.
/// `Err` names the engines that disagree and how.
pub fn check_generated(data: &[u8]) -> Result<Option<Checked>, String> {
    let Some((&head, rest)) = data.split_first() else {
        return Ok(None);
    };
    check_program(TARGETS[head as usize % TARGETS.len()], rest)
}

/// Generates a program for `target` from `data` and compares the engines on it. `Ok(None)`
/// when the bytes give no program.
pub fn check_program(target: Target, data: &[u8]) -> Result<Option<Checked>, String> {
    let mut u = Unstructured::new(data);
    let Ok(Some(g)) = program::generate(&mut u, target) else {
        return Ok(None);
    };
    check(g)
}

/// A program's text (a finding, minimised): its first line `// TARGET, N waves`, then the
/// assembly, prologue included. `Ok(None)` when the text does not say or does not assemble.
pub fn check_text(text: &str) -> Result<Option<Checked>, String> {
    let head = text.lines().next().unwrap_or_default();
    let mut words = head
        .trim_start_matches("//")
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    let target = words
        .next()
        .and_then(|t| TARGETS.iter().find(|x| x.name() == t));
    let waves = words.next().and_then(|w| w.parse().ok());
    let (Some(&target), Some(waves)) = (target, waves) else {
        return Ok(None);
    };
    match program::Generated::from_text(target, waves, text) {
        Some(g) => check(g),
        None => Ok(None),
    }
}

/// Runs `g` on every engine and compares them.
fn check(g: program::Generated) -> Result<Option<Checked>, String> {
    let seed = g.text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let runs = compare::run_engines(&g, seed);
    let Some(first) = runs.first() else {
        return Ok(None);
    };
    for other in &runs[1..] {
        if let Some(why) = compare::difference(first, other) {
            return Err(format!(
                "{why}\nprogram ({}, {} waves):\n{}",
                g.target, g.waves, g.text
            ));
        }
    }
    let initial = compare::initial_memory()
        .map(|(mem, buf)| {
            mem.bytes(buf, layout::BUFFER_SIZE as usize)
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let stored = first
        .memory
        .iter()
        .zip(&initial)
        .skip(layout::OUT.0 as usize)
        .filter(|(a, b)| a != b)
        .count();
    Ok(Some(Checked {
        instructions: g.assembly.insts.len(),
        waves: g.waves,
        text: g.text,
        result: first.result.clone(),
        wave_instructions: first.wave_instructions,
        stored,
        refused: g.refused,
    }))
}

/// A dispatch of `groups` workgroups of `waves` waves whose packet and kernarg segment are both
/// the buffer at `buf`, with `lds_size` bytes of LDS and no scratch.
fn launch(buf: u64, groups: u32, waves: u32, lds_size: u32) -> Launch {
    Launch {
        grid: [groups, 1, 1],
        block: [waves * 64, 1, 1],
        dispatch_id: 0,
        packet: buf,
        queue: 0,
        kernarg: buf,
        scratch_base: 0,
        private_size: 0,
        scratch_per_wave: 0,
        lds_size,
        hostcall_buffer: 0,
        heap: 0,
        packed_tid: false,
        architected_flat_scratch: false,
        preload: crate::dispatch::Preload::default(),
    }
}
