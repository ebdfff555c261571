//! The matrix-core (MAI) instructions as the hazard rules see them: MFMAs by class (passes, DGEMM or not),
//! and `v_accvgpr_read/write`, with their registers by role.

use super::regs::RegSet;
use gcn_isa::{Field, Inst, Op};
use serde::Serialize;

/// An MFMA's kind and the passes it takes through the matrix core (one pass is four cycles).
/// The wait states after an MFMA grow with its passes, so the rules look them up by class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MfmaClass {
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

/// The class of an MFMA: its passes (from `gcn_isa::mfma`: LLVM's `SISchedule.td` classes,
/// the matrix instruction calculator's cycles / 4) and whether it is a DGEMM. `None` for an op
/// that is not an MFMA, or an MFMA of passes no rule has wait states for (a test checks that
/// every MFMA of the op table has a class).
pub fn class(op: Op) -> Option<MfmaClass> {
    let shape = op.mfma_shape()?;
    Some(match (shape.is_dgemm(), shape.passes) {
        (false, 2) => MfmaClass::Xdl2,
        (false, 8) => MfmaClass::Xdl8,
        (false, 16) => MfmaClass::Xdl16,
        (true, 4) => MfmaClass::Dgemm4,
        (true, 8) => MfmaClass::Dgemm8,
        _ => return None,
    })
}

impl MfmaClass {
    pub fn passes(self) -> u8 {
        match self {
            MfmaClass::Xdl2 => 2,
            MfmaClass::Xdl8 => 8,
            MfmaClass::Xdl16 => 16,
            MfmaClass::Dgemm4 => 4,
            MfmaClass::Dgemm8 => 8,
        }
    }

    pub fn is_dgemm(self) -> bool {
        matches!(self, MfmaClass::Dgemm4 | MfmaClass::Dgemm8)
    }
}

/// Which matrix-core instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaiKind {
    Mfma(MfmaClass),
    /// `v_accvgpr_read_b32 vN, aM`.
    AccvgprRead,
    /// `v_accvgpr_write_b32 aN, src`.
    AccvgprWrite,
}

/// The kind of matrix-core instruction `inst` is, if any.
pub fn kind(inst: &Inst) -> Option<MaiKind> {
    match inst.info().op {
        Op::V_ACCVGPR_READ_B32 => Some(MaiKind::AccvgprRead),
        Op::V_ACCVGPR_WRITE_B32 => Some(MaiKind::AccvgprWrite),
        op => class(op).map(MaiKind::Mfma),
    }
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

    pub fn class(&self) -> Option<MfmaClass> {
        match self.kind {
            MaiKind::Mfma(class) => Some(class),
            _ => None,
        }
    }
}

/// `v_dot*` (LLVM's `isDOT`), the VOP3P dot products and gfx908's accumulating VOP2 ones.
pub fn is_dot(op: Op) -> bool {
    op.is_dot_accumulate()
        || matches!(
            op,
            Op::V_DOT2_F32_F16
                | Op::V_DOT2_I32_I16
                | Op::V_DOT2_U32_U16
                | Op::V_DOT4_I32_I8
                | Op::V_DOT4_U32_U8
                | Op::V_DOT8_I32_I4
                | Op::V_DOT8_U32_U4
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every MFMA of gfx908 and gfx90a has a class, and the class is the one its mnemonic names
    /// (`_4x4x`, `_16x16x`, `_32x32x`; f64 for DGEMMs). gfx940's own MFMAs (4-pass ones among
    /// them) have no hazard rules yet.
    #[test]
    fn every_mfma_has_the_class_its_name_says() {
        let mut mfmas = 0;
        let before_gfx940 = |i: &&gcn_isa::OpInfo| i.targets & !gcn_isa::OpSet::Gfx940.bit() != 0;
        for info in gcn_isa::all_ops()
            .iter()
            .filter(|i| i.is_mfma())
            .filter(before_gfx940)
        {
            let name = info.base_name();
            let want = match (name.contains("_f64_"), name) {
                (true, n) if n.contains("_4x4x") => MfmaClass::Dgemm4,
                (true, _) => MfmaClass::Dgemm8,
                (false, n) if n.contains("_4x4x") => MfmaClass::Xdl2,
                (false, n) if n.contains("_16x16x") => MfmaClass::Xdl8,
                _ => MfmaClass::Xdl16,
            };
            assert_eq!(class(info.op), Some(want), "{name}");
            mfmas += 1;
        }
        assert!(mfmas >= 27, "{mfmas} MFMA rows");
        let dots = gcn_isa::all_ops()
            .iter()
            .filter(|i| i.base_name().starts_with("v_dot"));
        for info in dots {
            assert!(is_dot(info.op), "{}", info.name);
        }
        assert!(!is_dot(Op::V_FMA_F32) && class(Op::V_ACCVGPR_READ_B32).is_none());
    }
}
