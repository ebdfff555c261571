//! The matrix-core (MAI) instructions as the hazard rules see them: MFMAs by shape and passes,
//! and `v_accvgpr_read/write`, with their registers by role.

use super::regs::RegSet;
use gcn_isa::{Field, Inst};
use serde::Serialize;

/// An MFMA's kind and the passes it takes through the matrix core (one pass is four cycles).
/// The wait states after an MFMA grow with its passes, so the rules look them up by shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MfmaShape {
    /// Single precision and narrower (LLVM's "XDL" and "SMFMA"): 4x4 blocks, 2 passes.
    Xdl2,
    /// 16x16 blocks: 8 passes.
    Xdl8,
    /// 32x32 blocks: 16 passes.
    Xdl16,
    /// `v_mfma_f64_4x4x4f64` (gfx90a's DGEMM): 4 passes.
    Dgemm4,
    /// `v_mfma_f64_16x16x4f64`: 8 passes.
    Dgemm8,
}

/// Shape by mnemonic, first match wins. LLVM `SISchedule.td` gives gfx908's and gfx90a's
/// MFMAs `Write2PassMAI` (4x4), `Write8PassMAI` (16x16), `Write16PassMAI` (32x32),
/// `Write4PassDGEMM` (f64 4x4) and `Write8PassDGEMM` (f64 16x16); AMD's matrix instruction
/// calculator gives the same as cycles: 8, 32, 64, 16 and 32 (passes = cycles / 4).
const SHAPES: &[(&str, MfmaShape)] = &[
    ("v_mfma_f64_4x4x", MfmaShape::Dgemm4),
    ("v_mfma_f64_16x16x", MfmaShape::Dgemm8),
    ("_4x4x", MfmaShape::Xdl2),
    ("_16x16x", MfmaShape::Xdl8),
    ("_32x32x", MfmaShape::Xdl16),
];

impl MfmaShape {
    pub fn passes(self) -> u8 {
        match self {
            MfmaShape::Xdl2 => 2,
            MfmaShape::Xdl8 => 8,
            MfmaShape::Xdl16 => 16,
            MfmaShape::Dgemm4 => 4,
            MfmaShape::Dgemm8 => 8,
        }
    }

    pub fn is_dgemm(self) -> bool {
        matches!(self, MfmaShape::Dgemm4 | MfmaShape::Dgemm8)
    }
}

/// Which matrix-core instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaiKind {
    Mfma(MfmaShape),
    /// `v_accvgpr_read_b32 vN, aM`.
    AccvgprRead,
    /// `v_accvgpr_write_b32 aN, src`.
    AccvgprWrite,
}

/// The kind of matrix-core instruction `inst` is, if any.
pub fn kind(inst: &Inst) -> Option<MaiKind> {
    let info = inst.info();
    match info.name {
        "v_accvgpr_read_b32" => return Some(MaiKind::AccvgprRead),
        "v_accvgpr_write_b32" => return Some(MaiKind::AccvgprWrite),
        _ if !info.is_mfma() => return None,
        _ => {}
    }
    let name = info.name;
    SHAPES
        .iter()
        .find(|(part, _)| name.contains(part))
        .map(|&(_, shape)| MaiKind::Mfma(shape))
}

/// A matrix-core instruction's registers by role.
#[derive(Clone, Copy, Debug)]
pub struct Mai {
    pub kind: MaiKind,
    /// D (MFMA) or the destination of `v_accvgpr_*`.
    pub dst: RegSet,
    /// An MFMA's A and B, or the source of `v_accvgpr_*`.
    pub src_ab: RegSet,
    /// An MFMA's C (the accumulator input).
    pub src_c: RegSet,
}

impl Mai {
    pub fn new(kind: MaiKind) -> Mai {
        Mai {
            kind,
            dst: RegSet::EMPTY,
            src_ab: RegSet::EMPTY,
            src_c: RegSet::EMPTY,
        }
    }

    /// Files the operand in `field` (registers `set`) under its role.
    pub fn add(&mut self, field: Field, set: RegSet) {
        let role = match field {
            Field::Vdst | Field::VdstAgpr | Field::VdstAcd => &mut self.dst,
            Field::Src2 | Field::Src2Agpr | Field::Src2Acd => &mut self.src_c,
            _ => &mut self.src_ab,
        };
        *role = role.union(set);
    }

    pub fn shape(&self) -> Option<MfmaShape> {
        match self.kind {
            MaiKind::Mfma(shape) => Some(shape),
            _ => None,
        }
    }
}
