//! Moves between the VGPRs and the accumulation registers (AGPRs), under EXEC like any VALU
//! move: `v_accvgpr_read_b32`, `v_accvgpr_write_b32` (gfx908+) and gfx90a's `v_accvgpr_mov_b32`.

use super::agpr::{self, Operand};
use super::valu::Res;
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;

/// D = S0, each operand in the file its field (and encoding) names.
fn mov(cx: &mut Cx, d: &Decoded) -> Res {
    let src = agpr::place(d, Operand::Src0);
    let dst = agpr::place(d, Operand::Vdst);
    let mut vals = [[0; WAVE_SIZE]];
    agpr::read_into(cx, d, src, &mut vals, false)?;
    let exec = cx.wave.exec();
    agpr::write(cx, dst, &vals, exec)?;
    Ok(Flow::Continue)
}

semantics! {
    // VGPR = AGPR.
    V_ACCVGPR_READ_B32 => mov;
    // AGPR = VGPR or inline constant (or SGPR, gfx90a).
    V_ACCVGPR_WRITE_B32 => mov;
    // AGPR = AGPR (gfx90a, VOP1).
    V_ACCVGPR_MOV_B32 => mov;
}
