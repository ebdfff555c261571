//! M0-relative SGPR moves: s_movrels (read s[base + M0]) and s_movreld (write it).

use super::valu::{scalar32, scalar64, Res};
use super::{Cx, Fault, Flow};
use crate::exec::program::{Decoded, Src};
use gcn_isa::operand::M0;

/// SGPRs s0–s101 are what M0-relative addressing reaches.
const SGPRS: u32 = 102;

/// The SGPR `base + M0` (for `n` registers), or a fault naming the instruction.
fn relative(cx: &Cx, d: &Decoded, base: u16, n: u32) -> Result<usize, Fault> {
    let m0 = cx.wave.sgpr[M0 as usize];
    let idx = (base as u32).wrapping_add(m0);
    if base as u32 >= SGPRS || idx >= SGPRS || idx + n > SGPRS {
        return Err(Fault::Guest(format!(
            "{}: s{base} + m0 ({m0}) lies outside s0-s101",
            d.inst.info().name
        )));
    }
    Ok(idx as usize)
}

fn src_sgpr(d: &Decoded) -> Result<u16, Fault> {
    match d.src[0] {
        Src::Sgpr(c) => Ok(c as u16),
        _ => Err(Fault::Guest(format!(
            "{}: the source must be an SGPR",
            d.inst.info().name
        ))),
    }
}

/// SDST = SGPR[SSRC0 + M0].
fn movrels(cx: &mut Cx, d: &Decoded, n: u32) -> Res {
    let i = relative(cx, d, src_sgpr(d)?, n)?;
    for k in 0..n as usize {
        cx.wave.sgpr[(d.sdst as usize + k) & 127] = cx.wave.sgpr[i + k];
    }
    Ok(Flow::Continue)
}

/// SGPR[SDST + M0] = SSRC0.
fn movreld(cx: &mut Cx, d: &Decoded, n: u32) -> Res {
    let i = relative(cx, d, d.sdst, n)?;
    if n == 1 {
        cx.wave.sgpr[i] = scalar32(cx, d.src[0]);
    } else {
        let v = scalar64(cx, d.src[0]);
        cx.wave.sgpr[i] = v as u32;
        cx.wave.sgpr[i + 1] = (v >> 32) as u32;
    }
    Ok(Flow::Continue)
}

semantics! {
    S_MOVRELS_B32 => |cx, d| movrels(cx, d, 1);
    S_MOVRELS_B64 => |cx, d| movrels(cx, d, 2);
    S_MOVRELD_B32 => |cx, d| movreld(cx, d, 1);
    S_MOVRELD_B64 => |cx, d| movreld(cx, d, 2);
}
