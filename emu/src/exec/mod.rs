//! Instruction semantics, one small function per op, grouped by encoding format.
//!
//! Each file defines the [`Semantics`] of its ops with [`semantics!`], one line per op named
//! after the table's [`Op`]; [`semantics::semantics`] is the exhaustive table over every `Op`,
//! so a table row without semantics does not compile. Ops the emulator decodes but does not
//! run say why ([`Semantics::NotInCompute`], [`Semantics::NotEmulated`]); executing one is a
//! guest error naming the instruction and the reason. [`resolve`] picks the function of each
//! decoded instruction once, at load time.

// Lane loops index several rows (sources, results) by the same lane number.
#![allow(clippy::needless_range_loop)]

/// Defines the semantics of ops, one line each: `OP => function or closure;`. Each becomes a
/// constant named after the op, which [`semantics::semantics`] picks up by name, holding the
/// function wrapped as an [`ExecFn`].
macro_rules! semantics {
    ($($op:ident => $f:expr;)*) => {
        $(pub(super) const $op: super::Semantics = super::Semantics::Exec({
            extern "C-unwind" fn run(cx: &mut super::Cx, d: &crate::exec::program::Decoded) -> super::Ran {
                // (A constant: the call is direct, and may be inlined.)
                const SEMANTIC_FN: super::SemFn = $f;
                let result = SEMANTIC_FN(cx, d);
                super::ran(cx, result)
            }
            run
        });)*
    };
}

pub(crate) mod acc_memory;
pub(crate) mod access;
pub(crate) mod accvgpr;
pub(crate) mod agpr;
pub(crate) mod atomic_ops;
pub(crate) mod bf16;
pub(crate) mod buffer_format;
pub(crate) mod check_global;
pub(crate) mod check_lds;
pub mod clock;
pub mod compiled;
pub(crate) mod cvt_fp8;
pub(crate) mod dot_accumulate;
pub(crate) mod ds;
pub(crate) mod ds_atomic;
pub(crate) mod ds_cross;
pub(crate) mod ds_gws;
pub mod f16;
pub(crate) mod flat;
pub(crate) mod fork;
pub(crate) mod fp;
pub(crate) mod fp8;
pub(crate) mod fp_round;
pub(crate) mod gpr_idx;
pub(crate) mod graphics;
pub(crate) mod h16;
pub(crate) mod hwreg;
pub(crate) mod ieee_minmax;
pub mod issue;
pub mod lanes;
pub(crate) mod mfma;
pub(crate) mod mimg;
pub(crate) mod mov64;
pub(crate) mod mtbuf;
pub(crate) mod mubuf;
pub(crate) mod pk_f32;
mod private_rows;
pub mod program;
pub(crate) mod semantics;
pub(crate) mod smem;
pub(crate) mod smem_scratch;
pub(crate) mod smem_write;
pub(crate) mod sop;
pub(crate) mod sop_movrel;
pub(crate) mod sop_state;
pub mod support;
pub(crate) mod valu;
pub(crate) mod vmem_ops;
pub(crate) mod vop;
pub(crate) mod vop16;
pub(crate) mod vop3_pack_sad;
pub(crate) mod vop3p;
pub(crate) mod vop_graphics_math;
pub(crate) mod vopc;

use crate::exec::program::{Decoded, Program};
use crate::fault::Fault;
use crate::lds::Lds;
use crate::memory::Memory;
use crate::wave::Wave;
use gcn_isa::{Inst, OpInfo, Target};

/// Address VGPRs the widest image op reads: offset, bias, six derivatives, four coordinates
/// and a LOD ([`mimg`]).
pub const MIMG_ADDRESS_DWORDS: u8 = 13;

/// The semantics of one op: runs the instruction for all lanes of the wave.
pub type SemFn = fn(&mut Cx, &Decoded) -> Result<Flow, Fault>;

/// What a decoded instruction calls ([`Decoded::exec`]): its [`SemFn`] wrapped so that the
/// outcome comes back as one byte, in a register ([`Ran`]), where a `Result` holding a
/// [`Fault`] (several words) comes back through memory on every instruction. A fault is left
/// in the wave ([`Wave::fault`]); [`issue::execute`] gives the `Result` back to its callers.
///
/// (The C calling convention, so that compiled code ([`compiled`]) may call it
/// from the code they generate; `-unwind`, so that a panic in a semantic function unwinds as
/// it would through any Rust function.)
pub type ExecFn = extern "C-unwind" fn(&mut Cx, &Decoded) -> Ran;

/// The outcome of an [`ExecFn`], one byte (0 to go on, as compiled code tests it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Ran {
    /// [`Flow::Continue`].
    Continue = 0,
    /// [`Flow::Barrier`].
    Barrier = 1,
    /// [`Flow::End`].
    End = 2,
    /// [`Flow::Stall`].
    Stall = 3,
    /// The fault is in [`Wave::fault`].
    Faulted = 4,
}

impl Ran {
    /// The flow of an outcome that is not a fault.
    #[inline(always)]
    pub fn flow(self) -> Option<Flow> {
        match self {
            Ran::Continue => Some(Flow::Continue),
            Ran::Barrier => Some(Flow::Barrier),
            Ran::End => Some(Flow::End),
            Ran::Stall => Some(Flow::Stall),
            Ran::Faulted => None,
        }
    }
}

/// A semantic function's result as an [`ExecFn`] returns it.
#[inline(always)]
pub fn ran(cx: &mut Cx, result: Result<Flow, Fault>) -> Ran {
    match result {
        Ok(Flow::Continue) => Ran::Continue,
        Ok(Flow::Barrier) => Ran::Barrier,
        Ok(Flow::End) => Ran::End,
        Ok(Flow::Stall) => Ran::Stall,
        Err(fault) => faulted(cx, fault),
    }
}

/// (Out of line: every [`ExecFn`] has this path, and it is rare.)
#[cold]
#[inline(never)]
fn faulted(cx: &mut Cx, fault: Fault) -> Ran {
    cx.wave.fault = Some(Box::new(fault));
    Ran::Faulted
}

/// What the wave does after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on at `wave.pc` (already advanced, or set by a branch).
    Continue,
    /// Wait at s_barrier.
    Barrier,
    /// s_endpgm.
    End,
    /// The instruction cannot complete yet (s_waitcnt); retry it later.
    Stall,
}

/// Per-dispatch facts the semantics need.
#[derive(Clone, Debug)]
pub struct DispatchEnv {
    /// Bytes of private segment per work-item.
    pub private_size: u32,
    /// VGPRs and SGPRs each wave has, as allocated (for s_getreg of GPR_ALLOC).
    pub vgprs: u32,
    pub sgprs: u32,
    /// VGPRs in one unit of GPR_ALLOC's VGPR_SIZE: the target's allocation granule (4 on gfx9,
    /// 8 on gfx90a, whose unified file of 512 would not fit the 6-bit field in units of 4).
    pub vgpr_granule: u32,
    /// Write-free iterations of a loop before the spin detector compares a wave's state
    /// ([`crate::wave::spin`]); 0 turns it off.
    pub spin_limit: u32,
    /// The board's XCDs, for s_getreg of XCC_ID (workgroups are dealt to them in turn).
    pub xcds: u32,
    /// What s_memtime and s_memrealtime read.
    pub clock: clock::Clock,
    /// The kernel's code compiled once it is hot ([`compiled`]), which the functional engine
    /// runs rather than interpreting each instruction; `None`: always interpreted.
    pub compiled: Option<std::sync::Arc<compiled::HotRegion>>,
}

impl Default for DispatchEnv {
    /// No private segment; the whole register file (256 VGPRs, 112 SGPRs).
    fn default() -> Self {
        DispatchEnv {
            private_size: 0,
            vgprs: 256,
            sgprs: 112,
            vgpr_granule: 4,
            spin_limit: crate::wave::spin::DEFAULT_SPIN_LIMIT,
            xcds: 1,
            clock: clock::Clock::Instructions,
            compiled: None,
        }
    }
}

/// The state an instruction runs against.
pub struct Cx<'a> {
    pub wave: &'a mut Wave,
    pub mem: &'a mut Memory,
    pub lds: &'a mut Lds,
    pub program: &'a Program,
    pub env: &'a DispatchEnv,
}

/// Semantics of a word that did not decode.
pub extern "C-unwind" fn undecodable(cx: &mut Cx, _: &Decoded) -> Ran {
    let index = cx.wave.pc.wrapping_sub(1);
    let msg = cx.program.bad_word(index).unwrap_or("invalid encoding");
    ran(cx, Err(Fault::Undecodable(msg.to_string())))
}

/// What an op does in compute emulation.
#[derive(Clone, Copy, Debug)]
pub enum Semantics {
    Exec(ExecFn),
    /// It needs a part of the GPU that compute emulation does not model (the reason).
    NotInCompute(&'static str),
    /// An op of a chip the emulator decodes but does not run (the reason).
    NotEmulated(&'static str),
}

/// The semantics of table op `op`.
pub fn op_semantics(op: &OpInfo) -> Semantics {
    semantics::semantics(op.op)
}

/// The function that runs `inst`: its semantics, or a fault naming the instruction and why it
/// does not run.
pub fn resolve(inst: &Inst) -> ExecFn {
    if inst.memory_acc() {
        return acc_memory::memory_data_in_agprs;
    }
    match op_semantics(inst.info()) {
        Semantics::Exec(f) => f,
        Semantics::NotInCompute(_) | Semantics::NotEmulated(_) => support::not_run,
    }
}

/// Mnemonics of every table op for `target` with semantics, sorted.
pub fn implemented(target: Target) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = gcn_isa::all_ops()
        .iter()
        .filter(|op| support::on_target(op, target))
        .filter(|op| matches!(op_semantics(op), Semantics::Exec(_)))
        .map(|op| op.name)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}
