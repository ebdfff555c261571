//! Scalar ops that change wave state rather than compute a value: s_setvskip, the trap-handler
//! returns s_rfe_b64 / s_rfe_restore_b64, s_endpgm_saved, s_setkill, s_wakeup, s_sethalt and
//! s_sendmsghalt.
//!
//! The emulator runs no trap handler (s_trap is a guest error), so PRIV is always 0 and the
//! returns are plain jumps to a byte address, mapped to an instruction index as s_setpc does.
//! Nothing can resume a halted wave (there is no debugger), so halting is a guest error naming
//! the instruction instead of a hang.

use super::issue::VSKIP;
use super::valu::{scalar32, scalar64, Res};
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::WaveState;

/// VSKIP = S0.u[S1.u[4:0]] (MODE bit 28): while set, vector instructions are not issued.
fn s_setvskip(cx: &mut Cx, d: &Decoded) -> Res {
    let bit = scalar32(cx, d.src[0]) >> (scalar32(cx, d.src[1]) & 31) & 1;
    if bit != 0 {
        cx.wave.mode |= VSKIP;
    } else {
        cx.wave.mode &= !VSKIP;
    }
    Ok(Flow::Continue)
}

/// PC = the byte address `addr`, which must start a decoded instruction.
fn goto(cx: &mut Cx, addr: u64) -> Res {
    match cx.program.index_of_pc(addr) {
        Some(i) => {
            cx.wave.pc = i;
            Ok(Flow::Continue)
        }
        None => Err(Fault::BadJump { addr }),
    }
}

/// PRIV = 0; PC = S0.u64.
fn s_rfe_b64(cx: &mut Cx, d: &Decoded) -> Res {
    let addr = scalar64(cx, d.src[0]);
    goto(cx, addr)
}

/// PRIV = 0; PC = S0.u64; INST_ATC = S1.u32[0]. Instruction fetch has no address-translation
/// modes here, so INST_ATC has no effect.
fn s_rfe_restore_b64(cx: &mut Cx, d: &Decoded) -> Res {
    let addr = scalar64(cx, d.src[0]);
    goto(cx, addr)
}

/// End of program after a context save: the wave terminates as with s_endpgm (the implicit
/// s_waitcnt 0 is immediate here, memory operations completing at issue).
fn s_endpgm_saved(cx: &mut Cx, _: &Decoded) -> Res {
    cx.wave.state = WaveState::Ended;
    Ok(Flow::End)
}

/// KILL = SIMM16[0]. A set KILL bit is what the host's kill-wave command sets: the wave is
/// terminated. Clearing it has no effect.
fn s_setkill(cx: &mut Cx, d: &Decoded) -> Res {
    if d.inst.simm16() & 1 != 0 {
        cx.wave.state = WaveState::Ended;
        return Ok(Flow::End);
    }
    Ok(Flow::Continue)
}

/// Wakes waves of the workgroup sleeping in s_sleep. s_sleep has no functional effect, so
/// neither does this; a cycle-level scheduler gives both their timing.
fn s_wakeup(_: &mut Cx, _: &Decoded) -> Res {
    Ok(Flow::Continue)
}

fn halted(d: &Decoded) -> Fault {
    Fault::Guest(format!(
        "{}: the wave halted, and no debugger is attached to resume it",
        d.inst.info().name
    ))
}

/// HALT = SIMM16[0]; 0 resumes (a no-op for a running wave), 1 halts.
fn s_sethalt(_: &mut Cx, d: &Decoded) -> Res {
    if d.inst.simm16() & 1 != 0 {
        return Err(halted(d));
    }
    Ok(Flow::Continue)
}

/// Sends the message exactly as s_sendmsg (same simm16 layout), then halts the wave.
fn s_sendmsghalt(cx: &mut Cx, d: &Decoded) -> Res {
    super::sop::s_sendmsg(cx, d)?;
    Err(halted(d))
}

semantics! {
    S_SETVSKIP => s_setvskip;
    S_RFE_B64 => s_rfe_b64;
    S_RFE_RESTORE_B64 => s_rfe_restore_b64;
    S_ENDPGM_SAVED => s_endpgm_saved;
    S_SETKILL => s_setkill;
    S_WAKEUP => s_wakeup;
    S_SETHALT => s_sethalt;
    S_SENDMSGHALT => s_sendmsghalt;
}
