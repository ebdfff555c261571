//! Hardware registers for s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 (gfx9 hwreg ids).
//!
//! | id | register | read | write |
//! | --- | --- | --- | --- |
//! | 1 | MODE | wave MODE, CSP[31:29] from the fork/join stack pointer | kept; a non-RNE FP_ROUND is refused |
//! | 2 | STATUS | SCC [0], EXECZ [9], VCCZ [10] | ignored (privileged) |
//! | 3 | TRAPSTS | wave TRAPSTS | kept |
//! | 4 | HW_ID | WAVE_ID [3:0], SIMD_ID [5:4] of the wave's slot; CU, SE, queue 0 | ignored (read-only) |
//! | 5 | GPR_ALLOC | VGPR_SIZE [13:8] = VGPRs/granule - 1 (4; 8 on gfx90a), SGPR_SIZE [27:24] = SGPRs/16 - 1 | ignored |
//! | 6 | LDS_ALLOC | LDS_SIZE [20:12] in 256-byte units of the workgroup's LDS (512-byte granules) | ignored |
//! | 7 | IB_STS | VM_CNT [3:0] / [23:22], EXP_CNT [6:4], LGKM_CNT [11:8] | ignored |
//! | 15 | SH_MEM_BASES | aperture bases [63:48]: private [15:0], shared [31:16] | ignored |
//! | 20 | XCC_ID (gfx940) | XCC_ID [3:0]: the XCD of the wave's workgroup, workgroups dealt to the board's XCDs in turn (linear id mod XCDs) | ignored |
//!
//! Other ids (privileged trap-handler registers, debug registers) are a clear "not supported".

use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::memory::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};

pub const HW_REG_MODE: u32 = 1;
pub const HW_REG_STATUS: u32 = 2;
pub const HW_REG_TRAPSTS: u32 = 3;
pub const HW_REG_HW_ID: u32 = 4;
pub const HW_REG_GPR_ALLOC: u32 = 5;
pub const HW_REG_LDS_ALLOC: u32 = 6;
pub const HW_REG_IB_STS: u32 = 7;
pub const HW_REG_SH_MEM_BASES: u32 = 15;
pub const HW_REG_XCC_ID: u32 = 20;

/// MODE.CSP [31:29]: the wave's control-stack pointer (s_cbranch_fork/join), kept in
/// `Wave::csp`.
const MODE_CSP_SHIFT: u32 = 29;
const MODE_CSP: u32 = 7 << MODE_CSP_SHIFT;

/// (id, offset, size) of a hwreg simm16: id [5:0], offset [10:6], size-1 [15:11].
pub fn fields(simm16: u16) -> (u32, u32, u32) {
    let s = simm16 as u32;
    (s & 0x3f, (s >> 6) & 0x1f, ((s >> 11) & 0x1f) + 1)
}

/// The whole 32-bit value of hardware register `id`.
pub fn read(cx: &Cx, id: u32) -> Result<u32, Fault> {
    let w = &cx.wave;
    Ok(match id {
        HW_REG_MODE => (w.mode & !MODE_CSP) | (w.csp as u32 & 7) << MODE_CSP_SHIFT,
        HW_REG_STATUS => {
            w.scc as u32 | ((w.exec() == 0) as u32) << 9 | ((w.vcc() == 0) as u32) << 10
        }
        HW_REG_TRAPSTS => w.trapsts,
        // Waves of a workgroup are spread over the CU's four SIMDs in turn.
        HW_REG_HW_ID => (w.index / 4) & 0xf | (w.index % 4) << 4,
        HW_REG_GPR_ALLOC => {
            // VGPR_BASE [5:0] and SGPR_BASE [19:16] are 0 (each wave has its own file);
            // VGPR_SIZE [13:8] in the target's allocation granules and SGPR_SIZE [27:24] in
            // blocks of 16, minus one.
            let v = (cx.env.vgprs / cx.env.vgpr_granule.max(1)).saturating_sub(1) & 0x3f;
            let s = (cx.env.sgprs / 16).saturating_sub(1) & 0xf;
            v << 8 | s << 24
        }
        HW_REG_LDS_ALLOC => {
            let granules = cx.lds.size().div_ceil(512);
            (granules * 2) << 12
        }
        HW_REG_IB_STS => {
            let c = w.counters;
            let vm = c.vm as u32;
            (vm & 0xf) | (c.exp as u32 & 7) << 4 | (c.lgkm as u32 & 0xf) << 8 | (vm >> 4 & 3) << 22
        }
        HW_REG_SH_MEM_BASES => {
            (PRIVATE_APERTURE_BASE >> 48) as u32 | ((SHARED_APERTURE_BASE >> 48) as u32) << 16
        }
        HW_REG_XCC_ID if cx.program.target.has_gfx940_insts() => {
            (w.group % cx.env.xcds.max(1)) & 0xf
        }
        _ => {
            return Err(Fault::Unsupported(
                "s_getreg/s_setreg of this hardware register",
            ))
        }
    })
}

/// Writes bits [offset, offset + size) of `id` from the low bits of `v`.
pub fn write(cx: &mut Cx, id: u32, offset: u32, size: u32, v: u32) -> Res {
    let mask = (if size >= 32 { !0 } else { (1u32 << size) - 1 }) << offset;
    let merge = |old: u32| (old & !mask) | ((v << offset) & mask);
    match id {
        HW_REG_MODE => {
            // A directed FP_ROUND takes effect through `exec::issue::execute`, which runs the
            // ops it covers under that mode and stops at the ones it does not.
            let new = merge(read(cx, HW_REG_MODE)?);
            cx.wave.csp = (new >> MODE_CSP_SHIFT) as u8;
            cx.wave.mode = new & !MODE_CSP;
        }
        HW_REG_TRAPSTS => cx.wave.trapsts = merge(cx.wave.trapsts),
        // Read-only (or privileged) for a shader: the write has no effect.
        HW_REG_STATUS | HW_REG_HW_ID | HW_REG_GPR_ALLOC | HW_REG_LDS_ALLOC | HW_REG_IB_STS
        | HW_REG_SH_MEM_BASES => {}
        HW_REG_XCC_ID if cx.program.target.has_gfx940_insts() => {}
        _ => return Err(Fault::Unsupported("s_setreg of this hardware register")),
    }
    Ok(Flow::Continue)
}

/// D = hwreg[offset +: size].
fn s_getreg_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let (id, offset, size) = fields(d.inst.simm16());
    let v = read(cx, id)? >> offset;
    let v = if size >= 32 { v } else { v & ((1 << size) - 1) };
    cx.wave.sgpr[d.sdst as usize & 127] = v;
    Ok(Flow::Continue)
}

/// hwreg[offset +: size] = S0 (the SOPK sdst field names the source).
fn s_setreg_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let (id, offset, size) = fields(d.inst.simm16());
    let v = cx.wave.sgpr[d.sdst as usize & 127];
    write(cx, id, offset, size, v)
}

fn s_setreg_imm32_b32(cx: &mut Cx, d: &Decoded) -> Res {
    let (id, offset, size) = fields(d.inst.simm16());
    write(cx, id, offset, size, d.inst.literal().unwrap_or(0))
}

semantics! {
    S_GETREG_B32 => s_getreg_b32;
    S_SETREG_B32 => s_setreg_b32;
    S_SETREG_IMM32_B32 => s_setreg_imm32_b32;
}
