//! SOP1 ops beyond the common core: M0-relative SGPR moves (s_movrels/s_movreld), the gfx9
//! write-EXEC forms (s_andn1/andn2_wrexec) and s_bitreplicate.

use super::valu::{scalar32, scalar64, Res};
use super::{Cx, Fault, Flow};
use crate::program::{Decoded, Src};
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

/// EXEC = f(S0, EXEC); SDST = EXEC; SCC = EXEC != 0.
fn wrexec(cx: &mut Cx, d: &Decoded, f: fn(u64, u64) -> u64) -> Res {
    let s = scalar64(cx, d.src[0]);
    let new = f(s, cx.wave.exec());
    cx.wave.set_exec(new);
    cx.wave.set_pair(d.sdst & 126, new);
    cx.wave.scc = new != 0;
    Ok(Flow::Continue)
}

/// Each bit of S0.u32 twice: bit i goes to bits 2i and 2i+1.
pub fn bitreplicate(v: u32) -> u64 {
    (0..32).fold(0u64, |r, i| r | (((v as u64 >> i) & 1) * (3 << (2 * i))))
}

semantics! {
    S_MOVRELS_B32 => |cx, d| movrels(cx, d, 1);
    S_MOVRELS_B64 => |cx, d| movrels(cx, d, 2);
    S_MOVRELD_B32 => |cx, d| movreld(cx, d, 1);
    S_MOVRELD_B64 => |cx, d| movreld(cx, d, 2);
    S_ANDN1_WREXEC_B64 => |cx, d| wrexec(cx, d, |s, e| !s & e);
    S_ANDN2_WREXEC_B64 => |cx, d| wrexec(cx, d, |s, e| s & !e);
    S_BITREPLICATE_B64_B32 => |cx, d| {
        let v = bitreplicate(scalar32(cx, d.src[0]));
        cx.wave.set_pair(d.sdst & 126, v);
        Ok(Flow::Continue)
    };
}
