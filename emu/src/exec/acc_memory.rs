//! gfx90a memory instructions whose `acc` bit puts their data registers in the AGPRs
//! (`global_load_dword a0, v[0:1], off`, `ds_write_b32 v0, a1`, ...).
//!
//! The memory semantics name their data registers by VGPR number; rather than teach each of
//! them a second register file, such an instruction runs its own semantics on a copy of itself
//! whose data registers are moved to VGPRs clear of its address registers, holding the AGPRs'
//! values for the duration; the results go back to the AGPRs and those VGPRs get their values
//! back. The address registers are always VGPRs.

use super::{agpr, Cx, Fault, Ran, Semantics};
use crate::exec::program::Decoded;
use crate::wave::{Row, VGPRS};
use gcn_isa::Field;
use std::ops::Range;

/// Which field of [`Decoded`] a data register range is held in.
#[derive(Clone, Copy)]
enum Holder {
    Vdst,
    Regs(usize),
}

/// A data register range in the AGPRs: where `d` holds it, first AGPR, count.
type AccRange = (Holder, usize, usize);

/// The AGPR ranges of `d` and the VGPR numbers of its other vector operands.
fn operands(d: &Decoded) -> (Vec<AccRange>, Vec<Range<usize>>) {
    let mut acc = Vec::new();
    let mut vgprs = Vec::new();
    for (field, code, dwords) in d.inst.register_operands() {
        if code < 256 {
            continue;
        }
        let (first, n) = (code as usize - 256, dwords.max(1) as usize);
        if !d.inst.is_agpr(field) {
            vgprs.push(first..first + n);
            continue;
        }
        let holder = match field {
            Field::Vdst => Holder::Vdst,
            Field::Data1 => Holder::Regs(2),
            _ => Holder::Regs(1),
        };
        acc.push((holder, first, n));
    }
    // glc FLAT-family atomics return to a vdst the operand list does not name.
    if let Some(n) = d.inst.returned_dwords() {
        if !acc.iter().any(|(h, ..)| matches!(h, Holder::Vdst)) {
            acc.push((Holder::Vdst, d.vdst as usize, n as usize));
        }
    }
    (acc, vgprs)
}

/// The first of `n` VGPR numbers clear of `avoid`, within the wave's file.
fn free_run(n: usize, avoid: &[Range<usize>], rows: usize) -> Option<usize> {
    (0..=VGPRS.min(rows).checked_sub(n)?)
        .find(|&t| avoid.iter().all(|r| r.end <= t || t + n <= r.start))
}

/// Semantics of a memory instruction with its data in AGPRs: see the module's note.
pub extern "C-unwind" fn memory_data_in_agprs(cx: &mut Cx, d: &Decoded) -> Ran {
    let result = run(cx, d);
    match result {
        Ok(ran) => ran,
        Err(fault) => super::ran(cx, Err(fault)),
    }
}

fn run(cx: &mut Cx, d: &Decoded) -> Result<Ran, Fault> {
    let real = match super::op_semantics(d.inst.info()) {
        Semantics::Exec(f) => f,
        _ => super::support::not_run,
    };
    let (acc, avoid) = operands(d);
    let total: usize = acc.iter().map(|a| a.2).sum();
    let file = cx.wave.vgpr.file();
    let t = free_run(total, &avoid, file.rows).ok_or(Fault::Unsupported(
        "a memory instruction with AGPR data in a wave with too few VGPRs to stage it",
    ))?;
    // The AGPRs' values, where they will be staged, and the moved instruction.
    let mut staged: Vec<Row> = Vec::with_capacity(total);
    let mut moved = d.clone();
    for &(holder, first, n) in &acc {
        let at = t + staged.len();
        staged.extend(agpr::read(
            cx,
            d,
            agpr::Place::Agpr(first as u16),
            n,
            false,
        )?);
        match holder {
            Holder::Vdst => moved.vdst = at as u16,
            Holder::Regs(i) => moved.regs[i] = 256 + at as u16,
        }
    }
    let saved: Vec<Row> = (t..t + total).map(|r| cx.wave.vgpr[r]).collect();
    for (k, row) in staged.iter().enumerate() {
        cx.wave.vgpr[t + k] = *row;
    }
    let ran = real(cx, &moved);
    let results: Vec<Row> = (t..t + total).map(|r| cx.wave.vgpr[r]).collect();
    for (k, row) in saved.iter().enumerate() {
        cx.wave.vgpr[t + k] = *row;
    }
    if ran != Ran::Faulted {
        let mut k = 0;
        for &(_, first, n) in &acc {
            agpr::write(
                cx,
                agpr::Place::Agpr(first as u16),
                &results[k..k + n],
                u64::MAX,
            )?;
            k += n;
        }
    }
    Ok(ran)
}
