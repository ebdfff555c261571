//! The matrix-core (MAI) instructions as the hazard rules see them: MFMAs by class (passes, DGEMM or not),
//! and `v_accvgpr_read/write`, with their registers by role.

use super::regs::RegSet;
use gcn_isa::{Field, Inst, MatrixInput, Op, OpInfo, OpSet};
use serde::Serialize;

/// An MFMA's kind and the passes it takes through the matrix core (one pass is four cycles).
/// The wait states after an MFMA grow with its passes, so the rules look them up by class.
///
/// On gfx908 and gfx90a every MFMA but the f64 ones is "XDL" (LLVM's `isXDL` without
/// `hasGFX940Insts`). gfx940 splits them: its f32-input ops (`v_mfma_f32_*_f32`) are not XDL
/// (LLVM's gfx940 "SMFMA") and need fewer wait states after them; every other op, the sparse
/// `v_smfmac_*` included, is XDL (`is_gfx940_xdl` in LLVM's `VOP3PInstructions.td`). gfx940's ops
/// are rows of their own in the op table, so a class names its target too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MfmaClass {
    /// gfx908/gfx90a, single precision and narrower (LLVM's "XDL" and "SMFMA"): 4x4 blocks,
    /// 2 passes.
    Xdl2,
    /// 16x16 blocks: 8 passes.
    Xdl8,
    /// 32x32 blocks: 16 passes.
    Xdl16,
    /// `v_mfma_f64_4x4x4f64` (gfx90a's DGEMM; gfx940's `v_mfma_f64_4x4x4_4b_f64`): 4 passes.
    Dgemm4,
    /// `v_mfma_f64_16x16x4f64` (gfx940's `v_mfma_f64_16x16x4_f64`): 8 passes.
    Dgemm8,
    /// gfx940's XDL ops of 2 passes (the 4x4 ones).
    Gfx940Xdl2,
    /// gfx940's XDL ops of 4 passes (single-block 16x16 ops of narrow inputs, 16x16 sparse ops).
    Gfx940Xdl4,
    /// gfx940's XDL ops of 8 passes.
    Gfx940Xdl8,
    /// gfx940's XDL ops of 16 passes (the two-block 32x32 ones).
    Gfx940Xdl16,
    /// gfx940's f32 ops (not XDL there) of 2 passes: `v_mfma_f32_4x4x1_16b_f32`.
    Gfx940Smfma2,
    /// `v_mfma_f32_16x16x1_4b_f32`, `v_mfma_f32_16x16x4_f32`.
    Gfx940Smfma8,
    /// `v_mfma_f32_32x32x1_2b_f32`, `v_mfma_f32_32x32x2_f32`.
    Gfx940Smfma16,
}

/// The class of the MFMA of op table row `info`: its passes (from `gcn_isa::mfma`: LLVM's
/// `SISchedule.td` classes, the matrix instruction calculator's cycles / 4), whether it is a
/// DGEMM, and for gfx940's rows whether it is XDL. `None` for an op that is not an MFMA, or an
/// MFMA of passes no rule has wait states for (a test checks that every MFMA of the op table has
/// a class).
pub fn class(info: &OpInfo) -> Option<MfmaClass> {
    use MfmaClass::*;
    let shape = info.op.mfma_shape()?;
    let gfx940 = info.targets == OpSet::Gfx940.bit();
    // LLVM's `is_gfx940_xdl`: every gfx940 MFMA but the DGEMMs and the f32-input ones.
    let xdl = shape.input != MatrixInput::F32;
    Some(match (shape.is_dgemm(), gfx940, xdl, shape.passes) {
        (true, _, _, 4) => Dgemm4,
        (true, _, _, 8) => Dgemm8,
        (false, false, _, 2) => Xdl2,
        (false, false, _, 8) => Xdl8,
        (false, false, _, 16) => Xdl16,
        (false, true, true, 2) => Gfx940Xdl2,
        (false, true, true, 4) => Gfx940Xdl4,
        (false, true, true, 8) => Gfx940Xdl8,
        (false, true, true, 16) => Gfx940Xdl16,
        (false, true, false, 2) => Gfx940Smfma2,
        (false, true, false, 8) => Gfx940Smfma8,
        (false, true, false, 16) => Gfx940Smfma16,
        _ => return None,
    })
}

impl MfmaClass {
    pub fn passes(self) -> u8 {
        use MfmaClass::*;
        match self {
            Xdl2 | Gfx940Xdl2 | Gfx940Smfma2 => 2,
            Dgemm4 | Gfx940Xdl4 => 4,
            Xdl8 | Dgemm8 | Gfx940Xdl8 | Gfx940Smfma8 => 8,
            Xdl16 | Gfx940Xdl16 | Gfx940Smfma16 => 16,
        }
    }

    pub fn is_dgemm(self) -> bool {
        matches!(self, MfmaClass::Dgemm4 | MfmaClass::Dgemm8)
    }

    /// LLVM's `isXDL`: every MFMA but the DGEMMs, and on gfx940 but its f32-input ops.
    pub fn is_xdl(self) -> bool {
        !self.is_dgemm()
            && !matches!(
                self,
                MfmaClass::Gfx940Smfma2 | MfmaClass::Gfx940Smfma8 | MfmaClass::Gfx940Smfma16
            )
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
        _ => class(inst.info()).map(MaiKind::Mfma),
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
    /// An MFMA's C (the accumulator input); a sparse op's D, which it accumulates into.
    pub src_c: RegSet,
    /// `v_smfmac_*`: src2 holds A's indices (read as A and B are, LLVM's `$idx`) and the
    /// accumulator is D itself (LLVM's `$src2`, tied to `$vdst`).
    sparse: bool,
}

impl Mai {
    pub fn new(kind: MaiKind) -> Mai {
        Mai {
            kind,
            dst: RegSet::EMPTY,
            src_ab: RegSet::EMPTY,
            src_c: RegSet::EMPTY,
            sparse: false,
        }
    }

    /// The matrix-core instruction `inst` is, with no operands filed yet; `None` for any other.
    pub fn of(inst: &Inst) -> Option<Mai> {
        let kind = kind(inst)?;
        let sparse = inst.info().op.mfma_shape().is_some_and(|s| s.sparse);
        Some(Mai {
            sparse,
            ..Mai::new(kind)
        })
    }

    /// Files the operand in `field` (registers `set`) under its role.
    pub fn add(&mut self, field: Field, set: RegSet) {
        match field {
            Field::Vdst | Field::VdstAgpr | Field::VdstAcd => {
                self.dst = self.dst.union(set);
                if self.sparse {
                    self.src_c = self.src_c.union(set);
                }
            }
            Field::Src2 if self.sparse => self.src_ab = self.src_ab.union(set),
            Field::Src2 | Field::Src2Agpr | Field::Src2Acd => self.src_c = self.src_c.union(set),
            _ => self.src_ab = self.src_ab.union(set),
        }
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
    /// (`_4x4x`, `_16x16x`, `_32x32x`; f64 for DGEMMs).
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
            assert_eq!(class(info), Some(want), "{name}");
            mfmas += 1;
        }
        assert!(mfmas >= 27, "{mfmas} MFMA rows");
        let dots = gcn_isa::all_ops()
            .iter()
            .filter(|i| i.base_name().starts_with("v_dot"));
        for info in dots {
            assert!(is_dot(info.op), "{}", info.name);
        }
        let accvgpr_read = gcn_isa::all_ops()
            .iter()
            .find(|i| i.op == Op::V_ACCVGPR_READ_B32)
            .expect("v_accvgpr_read row");
        assert!(!is_dot(Op::V_FMA_F32) && class(accvgpr_read).is_none());
    }

    /// Every gfx940 MFMA (sparse and DGEMM ones included) has a class of its passes; the XDL
    /// ones are LLVM 19's `is_gfx940_xdl` list: all but the DGEMMs and the five f32-input ops.
    /// No MFMA row is shared between gfx940 and an earlier target, so the row says the target.
    #[test]
    fn every_gfx940_mfma_has_a_class_of_its_passes() {
        let gfx940 = gcn_isa::OpSet::Gfx940.bit();
        let (mut mfmas, mut sparse, mut not_xdl) = (0, 0, 0);
        for info in gcn_isa::all_ops().iter().filter(|i| i.is_mfma()) {
            assert!(
                info.targets & gfx940 == 0 || info.targets == gfx940,
                "{} is shared with gfx940",
                info.name
            );
            if info.targets != gfx940 {
                continue;
            }
            let shape = info.op.mfma_shape().expect("an MFMA has a shape");
            let c = class(info).unwrap_or_else(|| panic!("{} has no class", info.name));
            assert_eq!(c.passes(), shape.passes, "{}", info.name);
            assert_eq!(c.is_dgemm(), shape.is_dgemm(), "{}", info.name);
            let f32_input = shape.input == MatrixInput::F32;
            assert_eq!(c.is_xdl(), !shape.is_dgemm() && !f32_input, "{}", info.name);
            assert!(!matches!(
                c,
                MfmaClass::Xdl2 | MfmaClass::Xdl8 | MfmaClass::Xdl16
            ));
            mfmas += 1;
            sparse += shape.sparse as usize;
            not_xdl += !c.is_xdl() as usize;
        }
        assert_eq!(sparse, 14, "v_smfmac_* rows");
        assert_eq!(not_xdl, 7, "five f32 ops and two DGEMMs");
        assert!(mfmas >= 45, "{mfmas} gfx940 MFMA rows");
    }
}
