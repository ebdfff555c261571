//! The global wave sync ops: `ds_gws_init` and `ds_gws_barrier` on the device's GWS resources
//! ([`crate::memory::gws`]), which HIP's grid-wide `sync()` uses on gfx9. A wave at a GWS
//! barrier whose round has not ended stalls at the instruction (as at an unsatisfied
//! s_waitcnt) and tries it again on its next turn; the engine's scheduler runs other waves
//! meanwhile.

use super::ds::{offset16, vaddr};
use super::valu::Res;
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use crate::memory::gws::Arrival;

/// The resource an op names: its offset plus M0[21:16].
fn resource(cx: &Cx, d: &Decoded) -> usize {
    ((offset16(d) & 0x3f) + (cx.wave.m0() >> 16 & 0x3f)) as usize % crate::memory::gws::RESOURCES
}

/// The op's data (from the VGPR its ADDR field names) in the first active lane; `None` with no
/// lane active, when the op does nothing.
fn value(cx: &Cx, d: &Decoded) -> Option<u32> {
    let exec = cx.wave.exec();
    (exec != 0).then(|| cx.wave.vgpr[vaddr(d)][exec.trailing_zeros() as usize])
}

/// DS_GWS_INIT: the resource starts a fresh round.
fn gws_init(cx: &mut Cx, d: &Decoded) -> Res {
    if value(cx, d).is_some() {
        cx.mem.gws().init(resource(cx, d));
        cx.mem.note_write();
    }
    Ok(Flow::Continue)
}

/// DS_GWS_BARRIER: the wave arrives once, and waits until data + 1 waves have arrived.
fn gws_barrier(cx: &mut Cx, d: &Decoded) -> Res {
    if let Some((id, round)) = cx.wave.gws_wait {
        if !cx.mem.gws().released(id as usize, round) {
            return Ok(Flow::Stall);
        }
        cx.wave.gws_wait = None;
        return Ok(Flow::Continue);
    }
    let Some(n) = value(cx, d) else {
        return Ok(Flow::Continue);
    };
    let id = resource(cx, d);
    let arrival = cx.mem.gws().arrive(id, n.saturating_add(1));
    // Waves waiting on the resource see its change as memory changing.
    cx.mem.note_write();
    match arrival {
        Arrival::Released => Ok(Flow::Continue),
        Arrival::Waiting { round } => {
            cx.wave.gws_wait = Some((id as u8, round));
            Ok(Flow::Stall)
        }
    }
}

semantics! {
    DS_GWS_INIT => gws_init;
    DS_GWS_BARRIER => gws_barrier;
}
