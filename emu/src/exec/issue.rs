//! The one call a scheduler makes to run an instruction's semantics: [`execute`].
//!
//! Some MODE fields change how later instructions execute rather than what one instruction does:
//! MODE.gpr_idx_en (bit 27, VGPR indexing, [`super::gpr_idx`]), MODE.vskip (bit 28, set by
//! s_setvskip or s_setreg: vector instructions are not issued) and a directed FP_ROUND ([3:0]
//! non-zero, [`super::fp_round`]). All are rare, so `execute` tests them with a single mask check
//! and otherwise calls the precomputed semantic function directly; only a wave with one
//! of them set takes the slower path.

use super::gpr_idx::{self, GPR_IDX_EN};
use super::{fp_round, Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::mode::ROUND_MASK;
use gcn_isa::class::Category;

/// MODE.vskip.
pub const VSKIP: u32 = 1 << 28;
/// MODE bits that send an instruction down the slow path.
pub(crate) const SLOW_MODES: u32 = GPR_IDX_EN | VSKIP | ROUND_MASK;

/// Runs `d` for the wave in `cx` (whose `pc` already points past it).
#[inline(always)]
pub fn execute(cx: &mut Cx, d: &Decoded) -> Result<Flow, Fault> {
    if cx.wave.mode & SLOW_MODES == 0 {
        return exec_result(cx, d);
    }
    execute_moded(cx, d)
}

/// `d`'s [`super::ExecFn`], its outcome as a `Result`.
#[inline(always)]
fn exec_result(cx: &mut Cx, d: &Decoded) -> Result<Flow, Fault> {
    match (d.exec)(cx, d).flow() {
        Some(flow) => Ok(flow),
        None => Err(taken_fault(cx)),
    }
}

/// The fault an [`super::ExecFn`] left.
#[cold]
#[inline(never)]
pub(crate) fn taken_fault(cx: &mut Cx) -> Fault {
    cx.wave.fault.take().map_or_else(
        || Fault::Guest("an instruction faulted without saying why".into()),
        |fault| *fault,
    )
}

#[cold]
#[inline(never)]
fn execute_moded(cx: &mut Cx, d: &Decoded) -> Result<Flow, Fault> {
    let category = d.class.category;
    // "When VSKIP is enabled, no VOP*/M*BUF/MIMG/DS/FLAT/EXP instructions are issued."
    if cx.wave.mode & VSKIP != 0
        && matches!(
            category,
            Category::Valu | Category::Vmem | Category::Ds | Category::Flat | Category::Export
        )
    {
        return Ok(Flow::Continue);
    }
    if category != Category::Valu {
        return exec_result(cx, d);
    }
    let moved;
    let d = if cx.wave.mode & GPR_IDX_EN != 0 {
        moved = gpr_idx::indexed(d, cx.wave.m0());
        &moved
    } else {
        d
    };
    if cx.wave.mode & ROUND_MASK != 0 {
        if let Some(directed) = fp_round::under_mode(d.inst.info(), cx.wave.mode)? {
            return directed(cx, d);
        }
    }
    exec_result(cx, d)
}
