//! Register operands that may name the matrix cores' accumulation registers (AGPRs): which file
//! an operand names, and reading and writing register ranges of either file, with a fault
//! naming the register (`a300`, `v[250:281]`) when the wave's file does not hold it.
//!
//! Which file: the table's `*Agpr` fields always name AGPRs (`v_accvgpr_*`). The matrix ops
//! (LLVM's `VOP3Pe_MAI` encoding) choose per instruction: A (src0) and B (src1) are AGPRs when
//! their ACC bit is set (word 1 bits 27, 28, where other VOP3P ops keep op_sel_hi); C (src2) and
//! D are AGPRs on gfx908 always and on gfx90a when `acc_cd` (word 0 bit 15) is set. The table's
//! fields say which rule applies and [`gcn_isa::Inst::is_agpr`] applies it.

use super::{Cx, Fault};
use crate::exec::program::Decoded;
use crate::wave::{Row, VGPRS, WAVE_SIZE};
use gcn_isa::{Field, Slot};

/// The register operands of a VOP3P op, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Vdst,
    Src0,
    Src1,
    Src2,
}

/// A register range of one file, or a scalar source (SGPR or constant, by operand code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Vgpr(u16),
    Agpr(u16),
    Scalar(u16),
}

/// The table field of `d` at operand position `op`.
fn field(d: &Decoded, op: Operand) -> Option<Field> {
    d.inst.info().operands.iter().find_map(|s| match *s {
        Slot::Reg { field, .. } if position(field) == Some(op) => Some(field),
        _ => None,
    })
}

fn position(f: Field) -> Option<Operand> {
    match f {
        Field::Vdst | Field::VdstAgpr | Field::VdstAcd => Some(Operand::Vdst),
        _ => match f.source_index()? {
            0 => Some(Operand::Src0),
            1 => Some(Operand::Src1),
            _ => Some(Operand::Src2),
        },
    }
}

/// Where operand `op` of `d` is (its field looked up once: a matrix op asks for four).
pub fn place(d: &Decoded, op: Operand) -> Place {
    let Some(f) = field(d, op) else {
        return Place::Scalar(0);
    };
    let code = d.inst.code(f).unwrap_or(0);
    match code {
        256..=511 if d.inst.is_agpr(f) => Place::Agpr(code - 256),
        256..=511 => Place::Vgpr(code - 256),
        _ => Place::Scalar(code),
    }
}

/// `v5`, `a[4:7]`: how the ISA names `n` registers from `first`.
pub fn reg_name(prefix: char, first: usize, n: usize) -> String {
    if n == 1 {
        format!("{prefix}{first}")
    } else {
        format!("{prefix}[{first}:{}]", first + n - 1)
    }
}

/// The rows of the wave's register file that hold `n` registers from `place`, or a fault
/// naming the registers the file does not hold.
pub fn rows(cx: &Cx, place: Place, n: usize) -> Result<std::ops::Range<usize>, Fault> {
    match place {
        Place::Vgpr(r) => {
            let r = r as usize;
            if r + n > VGPRS {
                return Err(Fault::Register {
                    reg: reg_name('v', r, n),
                    count: VGPRS,
                    file: "VGPRs an instruction can name",
                });
            }
            Ok(r..r + n)
        }
        Place::Agpr(a) => {
            let a = a as usize;
            let file = cx.wave.vgpr.file();
            match (cx.wave.vgpr.agpr_row(a), cx.wave.vgpr.agpr_row(a + n - 1)) {
                (Some(first), Some(_)) => Ok(first..first + n),
                _ => Err(Fault::Register {
                    reg: reg_name('a', a, n),
                    count: file.agprs(),
                    file: "AGPRs",
                }),
            }
        }
        Place::Scalar(_) => Ok(0..0),
    }
}

/// `n` registers from `place` as rows: VGPRs and AGPRs read from the file, a scalar operand
/// (SGPR, inline constant) as its 32-bit value in every register and lane (`wide`: an inline
/// float constant as f64, its halves in register pairs).
pub fn read(cx: &Cx, d: &Decoded, place: Place, n: usize, wide: bool) -> Result<Vec<Row>, Fault> {
    let mut rows = vec![[0; WAVE_SIZE]; n];
    read_into(cx, d, place, &mut rows, wide)?;
    Ok(rows)
}

/// [`read`] into `out`, as many registers as it has: for the instructions run most, which read
/// into buffers of their own rather than allocate.
pub fn read_into(
    cx: &Cx,
    d: &Decoded,
    place: Place,
    out: &mut [Row],
    wide: bool,
) -> Result<(), Fault> {
    let n = out.len();
    match place {
        Place::Vgpr(_) => {
            for (o, r) in out.iter_mut().zip(rows(cx, place, n)?) {
                *o = cx.wave.vgpr[r];
            }
        }
        Place::Agpr(_) => {
            for (o, r) in out.iter_mut().zip(rows(cx, place, n)?) {
                *o = cx.wave.vgpr.row(r).copied().unwrap_or([0; WAVE_SIZE]);
            }
        }
        Place::Scalar(code) => {
            let v = scalar(cx, d, code, wide);
            for (k, o) in out.iter_mut().enumerate() {
                let x = if wide {
                    (v >> (32 * (k % 2))) as u32
                } else {
                    v as u32
                };
                *o = [x; WAVE_SIZE];
            }
        }
    }
    Ok(())
}

/// The value of a scalar operand code: an SGPR (pair when `wide`) or an inline constant.
fn scalar(cx: &Cx, d: &Decoded, code: u16, wide: bool) -> u64 {
    let src = crate::exec::program::resolve_src(
        &d.inst,
        code,
        if wide { 2 } else { 1 },
        gcn_isa::ImmClass::B32,
    );
    if wide {
        super::valu::scalar64(cx, src)
    } else {
        super::valu::scalar32(cx, src) as u64
    }
}

/// Writes `vals` to the registers from `place` in the lanes set in `exec`.
pub fn write(cx: &mut Cx, place: Place, vals: &[Row], exec: u64) -> Result<(), Fault> {
    let range = rows(cx, place, vals.len())?;
    for (r, v) in range.zip(vals) {
        match place {
            Place::Agpr(_) => {
                if let Some(row) = cx.wave.vgpr.row_mut(r) {
                    crate::wave::select_lanes(row, v, exec);
                }
            }
            _ => cx.wave.write_row(r, v, exec),
        }
    }
    Ok(())
}
