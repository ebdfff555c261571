//! The matrix-core (MAI) instructions as the hazard rules see them: MFMAs by shape and passes,
//! and `v_accvgpr_read/write`, with their registers by role.

use super::regs::RegSet;
use gcn_isa::{Field, Inst, Op};
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

/// The shape of each MFMA. LLVM `SISchedule.td` gives gfx908's and gfx90a's MFMAs
/// `Write2PassMAI` (4x4), `Write8PassMAI` (16x16), `Write16PassMAI` (32x32), `Write4PassDGEMM`
/// (f64 4x4) and `Write8PassDGEMM` (f64 16x16); AMD's matrix instruction calculator gives the
/// same as cycles: 8, 32, 64, 16 and 32 (passes = cycles / 4). `None` for an op that is not an
/// MFMA (a test checks that every MFMA of the op table has a shape).
pub fn shape(op: Op) -> Option<MfmaShape> {
    Some(match op {
        Op::V_MFMA_F32_4X4X1F32
        | Op::V_MFMA_F32_4X4X2BF16
        | Op::V_MFMA_F32_4X4X4BF16_1K
        | Op::V_MFMA_F32_4X4X4F16
        | Op::V_MFMA_I32_4X4X4I8 => MfmaShape::Xdl2,
        Op::V_MFMA_F32_16X16X16BF16_1K
        | Op::V_MFMA_F32_16X16X16F16
        | Op::V_MFMA_F32_16X16X1F32
        | Op::V_MFMA_F32_16X16X2BF16
        | Op::V_MFMA_F32_16X16X4BF16_1K
        | Op::V_MFMA_F32_16X16X4F16
        | Op::V_MFMA_F32_16X16X4F32
        | Op::V_MFMA_F32_16X16X8BF16
        | Op::V_MFMA_I32_16X16X16I8
        | Op::V_MFMA_I32_16X16X4I8 => MfmaShape::Xdl8,
        Op::V_MFMA_F32_32X32X1F32
        | Op::V_MFMA_F32_32X32X2BF16
        | Op::V_MFMA_F32_32X32X2F32
        | Op::V_MFMA_F32_32X32X4BF16
        | Op::V_MFMA_F32_32X32X4BF16_1K
        | Op::V_MFMA_F32_32X32X4F16
        | Op::V_MFMA_F32_32X32X8BF16_1K
        | Op::V_MFMA_F32_32X32X8F16
        | Op::V_MFMA_I32_32X32X4I8
        | Op::V_MFMA_I32_32X32X8I8 => MfmaShape::Xdl16,
        Op::V_MFMA_F64_4X4X4F64 => MfmaShape::Dgemm4,
        Op::V_MFMA_F64_16X16X4F64 => MfmaShape::Dgemm8,
        _ => return None,
    })
}

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
    match inst.info().op {
        Op::V_ACCVGPR_READ_B32 => Some(MaiKind::AccvgprRead),
        Op::V_ACCVGPR_WRITE_B32 => Some(MaiKind::AccvgprWrite),
        op => shape(op).map(MaiKind::Mfma),
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

    pub fn shape(&self) -> Option<MfmaShape> {
        match self.kind {
            MaiKind::Mfma(shape) => Some(shape),
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

    /// The shape table covers every MFMA of the op table, and each shape is the one its
    /// mnemonic names (`_4x4x`, `_16x16x`, `_32x32x`; f64 for DGEMMs).
    #[test]
    fn every_mfma_has_the_shape_its_name_says() {
        let mut mfmas = 0;
        for info in gcn_isa::all_ops().iter().filter(|i| i.is_mfma()) {
            let name = info.base_name();
            let want = match (name.contains("_f64_"), name) {
                (true, n) if n.contains("_4x4x") => MfmaShape::Dgemm4,
                (true, _) => MfmaShape::Dgemm8,
                (false, n) if n.contains("_4x4x") => MfmaShape::Xdl2,
                (false, n) if n.contains("_16x16x") => MfmaShape::Xdl8,
                _ => MfmaShape::Xdl16,
            };
            assert_eq!(shape(info.op), Some(want), "{name}");
            mfmas += 1;
        }
        assert!(mfmas >= 27, "{mfmas} MFMA rows");
        let dots = gcn_isa::all_ops()
            .iter()
            .filter(|i| i.base_name().starts_with("v_dot"));
        for info in dots {
            assert!(is_dot(info.op), "{}", info.name);
        }
        assert!(!is_dot(Op::V_FMA_F32) && shape(Op::V_ACCVGPR_READ_B32).is_none());
    }
}
