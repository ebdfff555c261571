//! The one call a scheduler makes to run an instruction's semantics: [`execute`].
//!
//! Two MODE bits change how later instructions execute rather than what one instruction does:
//! MODE.gpr_idx_en (bit 27, VGPR indexing, [`super::gpr_idx`]) and MODE.vskip (bit 28, set by
//! s_setvskip or s_setreg: vector instructions are not issued). Both are rare, so `execute` tests
//! them with a single mask check and otherwise calls the precomputed semantic function exactly as
//! before; only a wave with one of them set takes the slower path.

use super::gpr_idx::{self, GPR_IDX_EN};
use super::{Cx, Fault, Flow};
use crate::program::Decoded;
use gcn_isa::class::Category;

/// MODE.vskip.
pub const VSKIP: u32 = 1 << 28;
/// MODE bits that send an instruction down the slow path.
const SLOW_MODES: u32 = GPR_IDX_EN | VSKIP;

/// Runs `d` for the wave in `cx` (whose `pc` already points past it).
#[inline(always)]
pub fn execute(cx: &mut Cx, d: &Decoded) -> Result<Flow, Fault> {
    if cx.wave.mode & SLOW_MODES == 0 {
        return (d.exec)(cx, d);
    }
    execute_moded(cx, d)
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
    if cx.wave.mode & GPR_IDX_EN != 0 && category == Category::Valu {
        let moved = gpr_idx::indexed(d, cx.wave.m0());
        return (moved.exec)(cx, &moved);
    }
    (d.exec)(cx, d)
}
