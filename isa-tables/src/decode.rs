//! `decode`: bytes to a canonical [`Inst`], rejecting what LLVM rejects.

use crate::fields::{self, Enc, Kind};
use crate::inst::Inst;
use crate::operand::{self, LITERAL};
use crate::table::{lookup, Field, Format, ImmClass, ImmKind, Op, Slot};
use crate::{DecodeError, DecodeErrorKind, Target};

fn word(bytes: &[u8], i: usize) -> Option<u32> {
    bytes
        .get(4 * i..4 * i + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The format of a first word and the value of its opcode field.
pub fn classify(w: u32) -> Option<(Format, u32)> {
    let top9 = w >> 23;
    Some(match top9 {
        0x17F => (Format::Sopp, (w >> 16) & 0x7f),
        0x17E => (Format::Sopc, (w >> 16) & 0x7f),
        0x17D => (Format::Sop1, (w >> 8) & 0xff),
        _ if w >> 28 == 0xB => (Format::Sopk, (w >> 23) & 0x1f),
        _ if w >> 30 == 2 => (Format::Sop2, (w >> 23) & 0x7f),
        _ if w >> 25 == 0x3F => (Format::Vop1, (w >> 9) & 0xff),
        _ if w >> 25 == 0x3E => (Format::Vopc, (w >> 17) & 0xff),
        _ if w >> 31 == 0 => (Format::Vop2, (w >> 25) & 0x3f),
        _ => match w >> 26 {
            0x30 => (Format::Smem, (w >> 18) & 0xff),
            0x31 => (Format::Exp, 0),
            0x34 if top9 == 0x1A7 => (Format::Vop3p, (w >> 16) & 0x7f),
            0x34 => (Format::Vop3, (w >> 16) & 0x3ff),
            0x35 => (Format::Vintrp, (w >> 16) & 0x3),
            0x36 => (Format::Ds, (w >> 17) & 0xff),
            0x37 => match (w >> 14) & 3 {
                0 => (Format::Flat, (w >> 18) & 0x7f),
                1 => (Format::Scratch, (w >> 18) & 0x7f),
                2 => (Format::Global, (w >> 18) & 0x7f),
                _ => return None,
            },
            0x38 => (Format::Mubuf, (w >> 18) & 0x7f),
            0x3A => (Format::Mtbuf, (w >> 15) & 0xf),
            0x3C => (Format::Mimg, (w >> 18) & 0x7f),
            _ => return None,
        },
    })
}

fn err(offset: usize, kind: DecodeErrorKind) -> DecodeError {
    DecodeError { offset, kind }
}

/// Decodes the instruction at the start of `bytes` for `target`.
pub fn decode(bytes: &[u8], target: Target) -> Result<Inst, DecodeError> {
    let truncated = |needed: usize| {
        err(
            0,
            DecodeErrorKind::Truncated {
                needed,
                available: bytes.len(),
            },
        )
    };
    let w0 = word(bytes, 0).ok_or_else(|| truncated(4))?;
    let (format, opcode) =
        classify(w0).ok_or(err(0, DecodeErrorKind::UnknownEncoding { word: w0 }))?;
    let op = lookup(format, opcode, target).ok_or(err(
        0,
        DecodeErrorKind::InvalidOpcode {
            format: format.name(),
            opcode,
        },
    ))?;
    let mut enc = Enc::Native;
    if matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc) {
        match (w0 & 0x1ff) as u16 {
            operand::SDWA => enc = Enc::Sdwa,
            operand::DPP => enc = Enc::Dpp,
            _ => {}
        }
        // v_madmk/v_madak carry a literal, which the SDWA and DPP forms have no room for.
        let has_literal_slot = crate::table::op_info(op)
            .operands
            .iter()
            .any(|s| matches!(s, Slot::Imm(ImmKind::Literal)));
        if enc != Enc::Native && has_literal_slot {
            return Err(err(
                0,
                DecodeErrorKind::InvalidOperand {
                    what: "SDWA/DPP form of a literal-taking op",
                    value: w0 & 0x1ff,
                },
            ));
        }
    }
    let mut inst = Inst {
        op,
        enc,
        words: [w0, 0],
        literal: None,
        len: 4,
        gfx90a: target.has_gfx90a_insts(),
        gfx940: target.has_gfx940_insts(),
    };
    let n = inst.base_dwords();
    if n == 2 {
        inst.words[1] = word(bytes, 1).ok_or_else(|| truncated(8))?;
        inst.len = 8;
    }
    if needs_literal(&inst) {
        let lit = word(bytes, n).ok_or_else(|| truncated(4 * n + 4))?;
        inst.literal = Some(lit);
        inst.len += 4;
    }
    crate::canon::canonicalize(&mut inst)
        .map_err(|(what, value)| err(0, DecodeErrorKind::InvalidOperand { what, value }))?;
    Ok(inst)
}

/// Does this encoding carry a 32-bit literal after its words?
fn needs_literal(inst: &Inst) -> bool {
    if inst.enc != Enc::Native {
        return false;
    }
    let format = inst.format();
    inst.info().operands.iter().any(|s| match *s {
        Slot::Imm(ImmKind::Literal) => true,
        Slot::Reg { field, .. } => {
            let Some(l) = fields::locate(format, inst.enc, field) else {
                return false;
            };
            // Only 8- and 9-bit source fields can name the literal.
            l.kind == Kind::Code
                && (inst.gfx940 || !(field == Field::Src0 && src0_is_vgpr_only(inst.info())))
                && (inst.gfx940 || field != Field::Src0Agpr)
                && l.bits >= 8
                && fields::get(&inst.words, l) == LITERAL
                && !matches!(field, Field::VdstSgpr | Field::Sdst)
        }
        _ => false,
    })
}

/// How source `field` of `info` prints constants in encoding `enc`: the table's class, except
/// that an SDWA src1 (a VGPR-only `vsrc1` in the e32 form, so probed as `None`) can hold an SGPR
/// or inline constant, which prints like src0's (or as an integer for an integer source).
pub(crate) fn source_class(
    info: &crate::table::OpInfo,
    enc: Enc,
    field: Field,
    class: ImmClass,
    dwords: u8,
) -> ImmClass {
    if enc == Enc::Sdwa && field == Field::Vsrc1 && class == ImmClass::None {
        if info.int_source(1) {
            return ImmClass::B32;
        }
        let src0 = info.operands.iter().find_map(|s| match *s {
            Slot::Reg {
                field: Field::Src0,
                class,
                dwords,
            } => Some(effective_class(class, dwords)),
            _ => None,
        });
        return src0.unwrap_or(ImmClass::B32);
    }
    effective_class(class, dwords)
}

/// v_swap_b32's src0 is a VGPR whatever bit 8 says: LLVM reads the low 8 bits as a VGPR number
/// (and so never a literal).
pub(crate) fn src0_is_vgpr_only(info: &crate::table::OpInfo) -> bool {
    info.format == Format::Vop1 && info.op == Op::V_SWAP_B32
}

/// Class used when the table says `None` for a source (operands that were never probed).
pub(crate) fn effective_class(class: ImmClass, dwords: u8) -> ImmClass {
    match (class, dwords) {
        (ImmClass::None, 2) => ImmClass::F64,
        (ImmClass::None, _) => ImmClass::B32,
        (c, _) => c,
    }
}
