//! VGPR indexing mode (gfx8/gfx9 "GPR index mode"): s_set_gpr_idx_on/off/mode/idx and what it
//! does to the VALU instructions that follow.
//!
//! State lives where the hardware keeps it: MODE.gpr_idx_en (bit 27) turns the mode on, M0[7:0]
//! holds the index and M0[15:12] the operands it applies to (SQ_M0_GPR_IDX_WORD: bit 12 src0,
//! 13 src1, 14 src2, 15 dst). While on, each selected VGPR operand of a VALU instruction names
//! VGPR (number + M0[7:0]). LLVM uses this on gfx9 for dynamically indexed register arrays:
//! `s_set_gpr_idx_on sIdx, gpr_idx(SRC0)` + `v_mov_b32` reads element idx, `gpr_idx(DST)` writes it.
//!
//! Choices where the ISA text is silent:
//! - only VALU instructions are affected ("vector operations"; LDS/memory VGPR addresses are not);
//! - only operands that are VGPRs are moved; SGPR, constant and VCC operands are unchanged;
//! - an index that moves an operand past v255 selects v0 instead (CLRX's hardware notes say
//!   out-of-range indexed operands are replaced by v0).

use super::valu::{scalar32, Res};
use super::{Cx, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::VGPRS;
use gcn_isa::operand::M0;
use gcn_isa::Field;

/// MODE.gpr_idx_en.
pub const GPR_IDX_EN: u32 = 1 << 27;
/// M0 bits an index mode occupies: the index [7:0] and the operand enables [15:12].
const M0_INDEX: u32 = 0xff;
const M0_ENABLES: u32 = 0xf << 12;

fn set_m0(cx: &mut Cx, mask: u32, bits: u32) {
    let m0 = &mut cx.wave.sgpr[M0 as usize];
    *m0 = (*m0 & !mask) | (bits & mask);
}

/// MODE.gpr_idx_en = 1; M0[7:0] = S0.u[7:0]; M0[15:12] = SIMM4 (the raw SSRC1 field, not the
/// register it would name); the other M0 bits are kept.
fn s_set_gpr_idx_on(cx: &mut Cx, d: &Decoded) -> Res {
    let idx = scalar32(cx, d.src[0]);
    let enables = d.inst.bits(0, 8, 4);
    set_m0(cx, M0_INDEX | M0_ENABLES, (idx & M0_INDEX) | enables << 12);
    cx.wave.mode |= GPR_IDX_EN;
    Ok(Flow::Continue)
}

/// MODE.gpr_idx_en = 0; M0 is not modified.
fn s_set_gpr_idx_off(cx: &mut Cx, _: &Decoded) -> Res {
    cx.wave.mode &= !GPR_IDX_EN;
    Ok(Flow::Continue)
}

/// M0[15:12] = SIMM16[3:0].
fn s_set_gpr_idx_mode(cx: &mut Cx, d: &Decoded) -> Res {
    set_m0(cx, M0_ENABLES, (d.inst.simm16() as u32 & 0xf) << 12);
    Ok(Flow::Continue)
}

/// M0[7:0] = S0.u[7:0].
fn s_set_gpr_idx_idx(cx: &mut Cx, d: &Decoded) -> Res {
    let idx = scalar32(cx, d.src[0]);
    set_m0(cx, M0_INDEX, idx);
    Ok(Flow::Continue)
}

/// VGPR `reg + idx`, or v0 past the register file.
#[inline]
fn moved(reg: u32, idx: u32) -> u32 {
    let r = reg + idx;
    if r >= VGPRS as u32 {
        0
    } else {
        r
    }
}

/// `d` with the VGPR operands M0 selects moved by M0[7:0], as it executes in index mode.
pub fn indexed(d: &Decoded, m0: u32) -> Decoded {
    let idx = m0 & M0_INDEX;
    let mut out = d.clone();
    for (i, src) in out.src.iter_mut().enumerate() {
        if m0 >> (12 + i) & 1 != 0 {
            if let Src::Vgpr(r) = *src {
                *src = Src::Vgpr(moved(r as u32, idx) as u8);
            }
        }
    }
    // `vdst` is a VGPR number only for ops whose destination field is a VGPR (not v_readlane's
    // or v_cmp_*_e64's SGPR destination).
    let vgpr_dst = d.inst.code(Field::Vdst).is_some_and(|c| c >= 256);
    if m0 >> 15 & 1 != 0 && vgpr_dst {
        out.vdst = moved(d.vdst as u32, idx) as u16;
    }
    out
}

semantics! {
    S_SET_GPR_IDX_ON => s_set_gpr_idx_on;
    S_SET_GPR_IDX_OFF => s_set_gpr_idx_off;
    S_SET_GPR_IDX_MODE => s_set_gpr_idx_mode;
    S_SET_GPR_IDX_IDX => s_set_gpr_idx_idx;
}
