//! S_CBRANCH_I_FORK, S_CBRANCH_G_FORK and S_CBRANCH_JOIN: the fork/join control stack of Vega ISA
//! §4.6 (seed 004), for irreducible control flow.
//!
//! Per wave the hardware keeps CSP[2:0] ([`crate::wave::Wave::csp`]) and a six-entry stack of
//! 128-bit entries held in SGPRs at `SGPR[CSP*4]`. The pseudo-code writes an entry as
//! `{ pc, mask }`, a Verilog-style concatenation with the mask in the low half, so entry `k` is
//! s[4k:4k+1] = EXEC mask (low, high) and s[4k+2:4k+3] = byte address of the PC (low, high).
//! The text gives the PC as PC[47:2]; we keep its bits in place (bits 1:0 are zero for any
//! instruction address). The fork runs the side with fewer lanes first, so with 64 lanes six
//! entries suffice (log2 64); a push with six entries already on the stack is the guest's error
//! (it changed EXEC inside a block or forked without joining) and stops the kernel naming it.

use super::valu::{scalar32, scalar64, Res};
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;

/// Entries of the control stack (§4.6: "six-level stack").
pub const STACK_ENTRIES: u8 = 6;
/// SGPRs per stack entry (128 bits).
const ENTRY_SGPRS: usize = 4;

/// Where a fork's "pass" side goes.
#[derive(Clone, Copy)]
enum Target {
    /// I_FORK: PC + 4 + simm16 * 4, already linked to an instruction index by the program.
    Immediate,
    /// G_FORK: the 64-bit address in SGPR[arg1].
    Register,
}

fn guest(d: &Decoded, what: String) -> Fault {
    Fault::Guest(format!("{}: {what}", d.inst.info().name))
}

/// Byte address of the pass target.
fn pass_addr(cx: &Cx, d: &Decoded, target: Target) -> u64 {
    match target {
        Target::Immediate => d.inst.branch_target(d.pc).unwrap_or(0),
        Target::Register => scalar64(cx, d.src[1]) & !3,
    }
}

fn goto(cx: &mut Cx, addr: u64) -> Res {
    match cx.program.index_of_pc(addr) {
        Some(i) => {
            cx.wave.pc = i;
            Ok(Flow::Continue)
        }
        None => Err(Fault::BadJump { addr }),
    }
}

/// SGPR[CSP*4] = { pc, mask }; CSP++.
fn push(cx: &mut Cx, d: &Decoded, pc: u64, mask: u64) -> Result<(), Fault> {
    let csp = cx.wave.csp;
    if csp >= STACK_ENTRIES {
        return Err(guest(
            d,
            format!(
                "control stack overflow: CSP is {csp} and the stack holds {STACK_ENTRIES} entries \
                 (EXEC changed inside a fork/join block, or forks without joins)"
            ),
        ));
    }
    let base = csp as usize * ENTRY_SGPRS;
    let s = &mut cx.wave.sgpr;
    s[base] = mask as u32;
    s[base + 1] = (mask >> 32) as u32;
    s[base + 2] = pc as u32;
    s[base + 3] = (pc >> 32) as u32;
    cx.wave.csp = csp + 1;
    Ok(())
}

fn fork(cx: &mut Cx, d: &Decoded, target: Target) -> Res {
    let cond = match target {
        // SOPK: arg0 is the SGPR pair in the sdst field, read as a source.
        Target::Immediate => cx.wave.pair(d.sdst & 0x7e),
        Target::Register => scalar64(cx, d.src[0]),
    };
    let exec = cx.wave.exec();
    let mask_pass = cond & exec;
    let mask_fail = !cond & exec;
    let next = d.pc + 4;
    if mask_pass == exec {
        // All active lanes (or none) take the pass side: a plain jump.
        return taken(cx, d, target);
    }
    if mask_fail == exec {
        return Ok(Flow::Continue);
    }
    if mask_fail.count_ones() < mask_pass.count_ones() {
        // Fail side first; the pass side waits on the stack.
        let pass = pass_addr(cx, d, target);
        push(cx, d, pass, mask_pass)?;
        cx.wave.set_exec(mask_fail);
        Ok(Flow::Continue)
    } else {
        push(cx, d, next, mask_fail)?;
        cx.wave.set_exec(mask_pass);
        taken(cx, d, target)
    }
}

/// PC = the pass target.
fn taken(cx: &mut Cx, d: &Decoded, target: Target) -> Res {
    match target {
        Target::Immediate if d.target != u32::MAX => {
            cx.wave.pc = d.target;
            Ok(Flow::Continue)
        }
        _ => {
            let addr = pass_addr(cx, d, target);
            goto(cx, addr)
        }
    }
}

/// if CSP == SGPR[arg0] { PC += 4 } else { CSP--; {PC, EXEC} = SGPR[CSP*4] }.
fn join(cx: &mut Cx, d: &Decoded) -> Res {
    let saved = scalar32(cx, d.src[0]);
    let csp = cx.wave.csp;
    if csp as u32 == saved {
        // Second arrival: both sides have run; EXEC is what the other side left restored.
        return Ok(Flow::Continue);
    }
    if csp == 0 {
        return Err(guest(
            d,
            format!(
                "control stack underflow: CSP is 0 but the saved CSP operand is {saved} \
                 (a join without its fork, or a wrong saved CSP)"
            ),
        ));
    }
    let csp = csp - 1;
    cx.wave.csp = csp;
    let base = csp as usize * ENTRY_SGPRS;
    let s = &cx.wave.sgpr;
    let mask = s[base] as u64 | (s[base + 1] as u64) << 32;
    let pc = s[base + 2] as u64 | (s[base + 3] as u64) << 32;
    cx.wave.set_exec(mask);
    goto(cx, pc)
}

semantics! {
    S_CBRANCH_I_FORK => |cx, d| fork(cx, d, Target::Immediate);
    S_CBRANCH_G_FORK => |cx, d| fork(cx, d, Target::Register);
    S_CBRANCH_JOIN => join;
}
