//! Where each register field lives in each encoding, and how its value maps to an operand code.

use crate::table::{Field, Format};

/// How a raw field value becomes an operand code (see `operand.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The value is the operand code (7-, 8- or 9-bit scalar/source fields).
    Code,
    /// An 8-bit VGPR (or AGPR) number: code = 256 + value.
    Vgpr,
    /// An SGPR pair number (SMEM sbase): code = 2 * value.
    SgprPair,
    /// An SGPR quad number (buffer/image resources): code = 4 * value.
    SgprQuad,
}

/// Location of a field: word index, low bit, width in bits, kind.
#[derive(Clone, Copy, Debug)]
pub struct Loc {
    pub word: u8,
    pub lo: u8,
    pub bits: u8,
    pub kind: Kind,
}

const fn loc(word: u8, lo: u8, bits: u8, kind: Kind) -> Option<Loc> {
    Some(Loc {
        word,
        lo,
        bits,
        kind,
    })
}

/// VOP1/VOP2/VOPC can be encoded natively, or with an SDWA or DPP control word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    Native,
    Sdwa,
    Dpp,
}

/// The location of `field` in `format` (encoded as `enc`).
pub fn locate(format: Format, enc: Enc, field: Field) -> Option<Loc> {
    use Field::*;
    use Kind::*;
    match (format, field) {
        (Format::Sop2 | Format::Sopk | Format::Sop1, Sdst) => loc(0, 16, 7, Code),
        (Format::Sop2 | Format::Sop1 | Format::Sopc, Ssrc0) => loc(0, 0, 8, Code),
        (Format::Sop2 | Format::Sopc, Ssrc1) => loc(0, 8, 8, Code),
        (Format::Smem, Sdata) => loc(0, 6, 7, Code),
        (Format::Smem, Sbase) => loc(0, 0, 6, SgprPair),
        (Format::Vop2 | Format::Vop1, Vdst | VdstSgpr | VdstAgpr) => match field {
            VdstSgpr => loc(0, 17, 8, Code),
            _ => loc(0, 17, 8, Vgpr),
        },
        (Format::Vop2 | Format::Vop1 | Format::Vopc, Src0 | Src0Agpr) => match enc {
            Enc::Native => loc(0, 0, 9, Code),
            // SDWA src0 is 8 bits plus an "is SGPR" bit (handled in Inst::code).
            Enc::Sdwa => loc(1, 0, 8, Vgpr),
            Enc::Dpp => loc(1, 0, 8, Vgpr),
        },
        (Format::Vop2 | Format::Vopc, Vsrc1) => loc(0, 9, 8, Vgpr),
        (Format::Vop3 | Format::Vop3p, Vdst) => loc(0, 0, 8, Vgpr),
        (Format::Vop3 | Format::Vop3p, VdstSgpr) => loc(0, 0, 8, Code),
        (Format::Vop3 | Format::Vop3p, VdstAgpr | VdstAcd) => loc(0, 0, 8, Vgpr),
        (Format::Vop3, Sdst) => loc(0, 8, 7, Code),
        (Format::Vop3 | Format::Vop3p, Src0 | Src0Agpr | Src0Acc) => loc(1, 0, 9, Code),
        (Format::Vop3 | Format::Vop3p, Src1 | Src1Agpr | Src1Acc | Vsrc1) => loc(1, 9, 9, Code),
        (Format::Vop3 | Format::Vop3p, Src2 | Src2Agpr | Src2Acd) => loc(1, 18, 9, Code),
        (Format::Vintrp, Vdst) => loc(0, 18, 8, Vgpr),
        (Format::Vintrp, Vsrc) => loc(0, 0, 8, Vgpr),
        (Format::Ds, Addr) => loc(1, 0, 8, Vgpr),
        (Format::Ds, Data0) => loc(1, 8, 8, Vgpr),
        (Format::Ds, Data1) => loc(1, 16, 8, Vgpr),
        (Format::Ds, Vdst) => loc(1, 24, 8, Vgpr),
        (Format::Mubuf | Format::Mtbuf | Format::Mimg, Vaddr) => loc(1, 0, 8, Vgpr),
        (Format::Mubuf | Format::Mtbuf | Format::Mimg, Vdata) => loc(1, 8, 8, Vgpr),
        (Format::Mubuf | Format::Mtbuf | Format::Mimg, Srsrc) => loc(1, 16, 5, SgprQuad),
        (Format::Mubuf | Format::Mtbuf, Soffset) => loc(1, 24, 8, Code),
        (Format::Mimg, Ssamp) => loc(1, 21, 5, SgprQuad),
        (Format::Flat | Format::Global | Format::Scratch, Vaddr) => loc(1, 0, 8, Vgpr),
        (Format::Flat | Format::Global | Format::Scratch, Vdata) => loc(1, 8, 8, Vgpr),
        (Format::Flat | Format::Global | Format::Scratch, Saddr) => loc(1, 16, 7, Code),
        (Format::Flat | Format::Global | Format::Scratch, Vdst) => loc(1, 24, 8, Vgpr),
        (Format::Exp, Vsrc0) => loc(1, 0, 8, Vgpr),
        (Format::Exp, Vsrc1Exp) => loc(1, 8, 8, Vgpr),
        (Format::Exp, Vsrc2) => loc(1, 16, 8, Vgpr),
        (Format::Exp, Vsrc3) => loc(1, 24, 8, Vgpr),
        _ => None,
    }
}

pub fn get(words: &[u32; 2], l: Loc) -> u16 {
    let raw = (words[l.word as usize] >> l.lo) & ((1u32 << l.bits) - 1);
    match l.kind {
        Kind::Code => raw as u16,
        Kind::Vgpr => 256 + raw as u16,
        Kind::SgprPair => 2 * raw as u16,
        Kind::SgprQuad => 4 * raw as u16,
    }
}

/// Stores operand `code` into the field; returns false if the field cannot hold it.
pub fn set(words: &mut [u32; 2], l: Loc, code: u16) -> bool {
    let raw = match l.kind {
        Kind::Code => code as u32,
        Kind::Vgpr if code >= 256 => code as u32 - 256,
        Kind::SgprPair if code < 128 && code.is_multiple_of(2) => code as u32 / 2,
        Kind::SgprQuad if code < 128 && code.is_multiple_of(4) => code as u32 / 4,
        _ => return false,
    };
    let mask = (1u32 << l.bits) - 1;
    if raw > mask {
        return false;
    }
    let w = &mut words[l.word as usize];
    *w = (*w & !(mask << l.lo)) | (raw << l.lo);
    true
}
