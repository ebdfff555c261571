//! The matrix-core ops (`v_mfma_*`) as data: each op's shape and its time in the matrix core,
//! read by the emulator's semantics, its hazard rules and its timing model alike.
//!
//! Shapes (M×N results per block, K deep, blocks) are the ops' names read as LLVM and AMD's Matrix
//! Instruction Calculator define them (`--architecture cdna1|cdna2|cdna3 --detail-instruction`):
//! a `32x32x1f32` (gfx940: `32x32x1_2b_f32`) computes two 32×32 blocks, K = 1. Passes (four
//! cycles each) are LLVM's `SISchedule.td` classes. On gfx908 and gfx90a: `Write2PassMAI` (4x4),
//! `Write8PassMAI` (16x16), `Write16PassMAI` (32x32), `Write4PassDGEMM` and `Write8PassDGEMM`
//! (f64), which the calculator gives as cycles: 8, 32, 64, 16, 32. gfx940's ops (which have
//! names of their own) follow `SIDPGFX940FullSpeedModel`: the single-block ops of narrow inputs
//! (xf32, f16, bf16, i8, fp8, bf8) and the sparse ops take half as many passes.
//!
//! The sparse ops (`v_smfmac_*`, gfx940) multiply a 4:2 structured-sparse A: their A operand
//! holds half of A's K elements, B is dense, the accumulator is the destination itself (C is not
//! an operand), and src2 is a VGPR of indices saying where in each group of four A's two
//! elements belong (`abid`/`cbsz` select which set of indices).

use crate::table::Op;

/// The type of A's and B's elements. C and D are f32, except i32 for `I8` and f64 for `F64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixInput {
    F32,
    F16,
    Bf16,
    I8,
    F64,
    /// gfx940's xf32: f32 registers multiplied at reduced (tf32-like) precision.
    Xf32,
    /// gfx940's 8-bit floats, the FNUZ formats: FP8 is E4M3 (bias 8), BF8 is E5M2 (bias 16);
    /// both have one NaN (0x80) and no infinities.
    Fp8,
    Bf8,
}

impl MatrixInput {
    /// Bits of an A or B element.
    pub fn bits(self) -> u32 {
        match self {
            MatrixInput::F32 | MatrixInput::Xf32 => 32,
            MatrixInput::F16 | MatrixInput::Bf16 => 16,
            MatrixInput::I8 | MatrixInput::Fp8 | MatrixInput::Bf8 => 8,
            MatrixInput::F64 => 64,
        }
    }

    /// Bits of a C or D element.
    pub fn result_bits(self) -> u32 {
        if self == MatrixInput::F64 {
            64
        } else {
            32
        }
    }
}

/// One matrix op: `blocks` independent products D = A·B + C of M×K by K×N.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MfmaShape {
    pub m: u8,
    pub n: u8,
    pub k: u8,
    pub blocks: u8,
    /// A's element type (and B's, except for the FP8/BF8 mixes).
    pub input: MatrixInput,
    /// B's element type.
    pub b_input: MatrixInput,
    /// A 4:2 structured-sparse A (`v_smfmac_*`): A's operand holds K/2 elements per row, src2
    /// holds their indices, and the destination is the accumulator.
    pub sparse: bool,
    /// Passes through the matrix core (four cycles each) on the targets that have the op.
    pub passes: u8,
}

impl MfmaShape {
    /// The f64 ops (LLVM's "DGEMM"), which have hazard rules of their own.
    pub fn is_dgemm(&self) -> bool {
        self.input == MatrixInput::F64
    }

    /// Cycles the op keeps the matrix core busy.
    pub fn cycles(&self) -> u32 {
        4 * self.passes as u32
    }
}

const fn shape(m: u8, n: u8, k: u8, blocks: u8, input: MatrixInput, passes: u8) -> MfmaShape {
    MfmaShape {
        m,
        n,
        k,
        blocks,
        input,
        b_input: input,
        sparse: false,
        passes,
    }
}

/// An FP8/BF8 op of A's type `a` and B's `b`.
const fn shape8(m: u8, n: u8, k: u8, a: MatrixInput, b: MatrixInput, passes: u8) -> MfmaShape {
    MfmaShape {
        b_input: b,
        ..shape(m, n, k, 1, a, passes)
    }
}

/// A sparse op (`v_smfmac_*`): one block; K counts A's elements before compression.
const fn sparse(m: u8, n: u8, k: u8, a: MatrixInput, b: MatrixInput, passes: u8) -> MfmaShape {
    MfmaShape {
        b_input: b,
        sparse: true,
        ..shape(m, n, k, 1, a, passes)
    }
}

impl Op {
    /// The shape of a matrix multiply-accumulate op; `None` for every other op.
    pub fn mfma_shape(self) -> Option<MfmaShape> {
        use MatrixInput::*;
        Some(match self {
            Op::V_MFMA_F32_32X32X1F32 => shape(32, 32, 1, 2, F32, 16),
            Op::V_MFMA_F32_16X16X1F32 => shape(16, 16, 1, 4, F32, 8),
            Op::V_MFMA_F32_4X4X1F32 => shape(4, 4, 1, 16, F32, 2),
            Op::V_MFMA_F32_32X32X2F32 => shape(32, 32, 2, 1, F32, 16),
            Op::V_MFMA_F32_16X16X4F32 => shape(16, 16, 4, 1, F32, 8),
            Op::V_MFMA_F32_32X32X4F16 => shape(32, 32, 4, 2, F16, 16),
            Op::V_MFMA_F32_16X16X4F16 => shape(16, 16, 4, 4, F16, 8),
            Op::V_MFMA_F32_4X4X4F16 => shape(4, 4, 4, 16, F16, 2),
            Op::V_MFMA_F32_32X32X8F16 => shape(32, 32, 8, 1, F16, 16),
            Op::V_MFMA_F32_16X16X16F16 => shape(16, 16, 16, 1, F16, 8),
            Op::V_MFMA_I32_32X32X4I8 => shape(32, 32, 4, 2, I8, 16),
            Op::V_MFMA_I32_16X16X4I8 => shape(16, 16, 4, 4, I8, 8),
            Op::V_MFMA_I32_4X4X4I8 => shape(4, 4, 4, 16, I8, 2),
            Op::V_MFMA_I32_32X32X8I8 => shape(32, 32, 8, 1, I8, 16),
            Op::V_MFMA_I32_16X16X16I8 => shape(16, 16, 16, 1, I8, 8),
            Op::V_MFMA_F32_32X32X2BF16 => shape(32, 32, 2, 2, Bf16, 16),
            Op::V_MFMA_F32_16X16X2BF16 => shape(16, 16, 2, 4, Bf16, 8),
            Op::V_MFMA_F32_4X4X2BF16 => shape(4, 4, 2, 16, Bf16, 2),
            Op::V_MFMA_F32_32X32X4BF16 => shape(32, 32, 4, 1, Bf16, 16),
            Op::V_MFMA_F32_16X16X8BF16 => shape(16, 16, 8, 1, Bf16, 8),
            Op::V_MFMA_F32_32X32X4BF16_1K => shape(32, 32, 4, 2, Bf16, 16),
            Op::V_MFMA_F32_16X16X4BF16_1K => shape(16, 16, 4, 4, Bf16, 8),
            Op::V_MFMA_F32_4X4X4BF16_1K => shape(4, 4, 4, 16, Bf16, 2),
            Op::V_MFMA_F32_32X32X8BF16_1K => shape(32, 32, 8, 1, Bf16, 16),
            Op::V_MFMA_F32_16X16X16BF16_1K => shape(16, 16, 16, 1, Bf16, 8),
            Op::V_MFMA_F64_16X16X4F64 => shape(16, 16, 4, 1, F64, 8),
            Op::V_MFMA_F64_4X4X4F64 => shape(4, 4, 4, 4, F64, 4),
            // gfx940's names; the ops gfx90a has too keep their shapes.
            Op::V_MFMA_F32_32X32X1_2B_F32 => shape(32, 32, 1, 2, F32, 16),
            Op::V_MFMA_F32_16X16X1_4B_F32 => shape(16, 16, 1, 4, F32, 8),
            Op::V_MFMA_F32_4X4X1_16B_F32 => shape(4, 4, 1, 16, F32, 2),
            Op::V_MFMA_F32_32X32X2_F32 => shape(32, 32, 2, 1, F32, 16),
            Op::V_MFMA_F32_16X16X4_F32 => shape(16, 16, 4, 1, F32, 8),
            Op::V_MFMA_F32_32X32X4_2B_F16 => shape(32, 32, 4, 2, F16, 16),
            Op::V_MFMA_F32_16X16X4_4B_F16 => shape(16, 16, 4, 4, F16, 8),
            Op::V_MFMA_F32_4X4X4_16B_F16 => shape(4, 4, 4, 16, F16, 2),
            Op::V_MFMA_F32_32X32X8_F16 => shape(32, 32, 8, 1, F16, 8),
            Op::V_MFMA_F32_16X16X16_F16 => shape(16, 16, 16, 1, F16, 4),
            Op::V_MFMA_I32_32X32X4_2B_I8 => shape(32, 32, 4, 2, I8, 16),
            Op::V_MFMA_I32_16X16X4_4B_I8 => shape(16, 16, 4, 4, I8, 8),
            Op::V_MFMA_I32_4X4X4_16B_I8 => shape(4, 4, 4, 16, I8, 2),
            Op::V_MFMA_I32_32X32X16_I8 => shape(32, 32, 16, 1, I8, 8),
            Op::V_MFMA_I32_16X16X32_I8 => shape(16, 16, 32, 1, I8, 4),
            Op::V_MFMA_F32_32X32X4_2B_BF16 => shape(32, 32, 4, 2, Bf16, 16),
            Op::V_MFMA_F32_16X16X4_4B_BF16 => shape(16, 16, 4, 4, Bf16, 8),
            Op::V_MFMA_F32_4X4X4_16B_BF16 => shape(4, 4, 4, 16, Bf16, 2),
            Op::V_MFMA_F32_32X32X8_BF16 => shape(32, 32, 8, 1, Bf16, 8),
            Op::V_MFMA_F32_16X16X16_BF16 => shape(16, 16, 16, 1, Bf16, 4),
            Op::V_MFMA_F64_16X16X4_F64 => shape(16, 16, 4, 1, F64, 8),
            Op::V_MFMA_F64_4X4X4_4B_F64 => shape(4, 4, 4, 4, F64, 4),
            Op::V_MFMA_F32_16X16X8_XF32 => shape(16, 16, 8, 1, Xf32, 4),
            Op::V_MFMA_F32_32X32X4_XF32 => shape(32, 32, 4, 1, Xf32, 8),
            Op::V_MFMA_F32_16X16X32_BF8_BF8 => shape8(16, 16, 32, Bf8, Bf8, 4),
            Op::V_MFMA_F32_16X16X32_BF8_FP8 => shape8(16, 16, 32, Bf8, Fp8, 4),
            Op::V_MFMA_F32_16X16X32_FP8_BF8 => shape8(16, 16, 32, Fp8, Bf8, 4),
            Op::V_MFMA_F32_16X16X32_FP8_FP8 => shape8(16, 16, 32, Fp8, Fp8, 4),
            Op::V_MFMA_F32_32X32X16_BF8_BF8 => shape8(32, 32, 16, Bf8, Bf8, 8),
            Op::V_MFMA_F32_32X32X16_BF8_FP8 => shape8(32, 32, 16, Bf8, Fp8, 8),
            Op::V_MFMA_F32_32X32X16_FP8_BF8 => shape8(32, 32, 16, Fp8, Bf8, 8),
            Op::V_MFMA_F32_32X32X16_FP8_FP8 => shape8(32, 32, 16, Fp8, Fp8, 8),
            Op::V_SMFMAC_F32_16X16X32_F16 => sparse(16, 16, 32, F16, F16, 4),
            Op::V_SMFMAC_F32_32X32X16_F16 => sparse(32, 32, 16, F16, F16, 8),
            Op::V_SMFMAC_F32_16X16X32_BF16 => sparse(16, 16, 32, Bf16, Bf16, 4),
            Op::V_SMFMAC_F32_32X32X16_BF16 => sparse(32, 32, 16, Bf16, Bf16, 8),
            Op::V_SMFMAC_I32_16X16X64_I8 => sparse(16, 16, 64, I8, I8, 4),
            Op::V_SMFMAC_I32_32X32X32_I8 => sparse(32, 32, 32, I8, I8, 8),
            Op::V_SMFMAC_F32_16X16X64_BF8_BF8 => sparse(16, 16, 64, Bf8, Bf8, 4),
            Op::V_SMFMAC_F32_16X16X64_BF8_FP8 => sparse(16, 16, 64, Bf8, Fp8, 4),
            Op::V_SMFMAC_F32_16X16X64_FP8_BF8 => sparse(16, 16, 64, Fp8, Bf8, 4),
            Op::V_SMFMAC_F32_16X16X64_FP8_FP8 => sparse(16, 16, 64, Fp8, Fp8, 4),
            Op::V_SMFMAC_F32_32X32X32_BF8_BF8 => sparse(32, 32, 32, Bf8, Bf8, 8),
            Op::V_SMFMAC_F32_32X32X32_BF8_FP8 => sparse(32, 32, 32, Bf8, Fp8, 8),
            Op::V_SMFMAC_F32_32X32X32_FP8_BF8 => sparse(32, 32, 32, Fp8, Bf8, 8),
            Op::V_SMFMAC_F32_32X32X32_FP8_FP8 => sparse(32, 32, 32, Fp8, Fp8, 8),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::MatrixInput;
    use crate::table::{all_ops, Slot};
    use crate::target::OpSet;

    /// Every MFMA row has a shape, and its operands are as wide as the shape says: A and B hold
    /// K·M·blocks elements over 64 lanes (a sparse A half of them), C and D M·N·blocks; a
    /// sparse op's src2 is one VGPR of indices.
    #[test]
    fn shapes_match_the_operand_widths_of_every_mfma_row() {
        let mut rows = 0;
        for info in all_ops().iter().filter(|i| i.is_mfma()) {
            let s = info
                .op
                .mfma_shape()
                .unwrap_or_else(|| panic!("{} has no shape", info.name));
            let (m, n, k, b) = (s.m as u32, s.n as u32, s.k as u32, s.blocks as u32);
            let a_k = if s.sparse { k / 2 } else { k };
            let a_regs = (a_k * m * b / 64 * s.input.bits()).div_ceil(32);
            let b_regs = (k * n * b / 64 * s.b_input.bits()).div_ceil(32);
            let d_regs = m * n * b / 64 * s.input.result_bits() / 32;
            let widths: Vec<u32> = info
                .operands
                .iter()
                .filter_map(|slot| match slot {
                    Slot::Reg { dwords, .. } => Some(*dwords as u32),
                    _ => None,
                })
                .collect();
            let c_regs = if s.sparse { 1 } else { d_regs };
            assert_eq!(widths, [d_regs, a_regs, b_regs, c_regs], "{}", info.name);
            assert_eq!(s.input.bits(), s.b_input.bits(), "{}", info.name);
            // LLVM's classes: 2, 8 and 16 passes by block size; f64 4 (4x4) and 8 (16x16); on
            // gfx940 half of that for one block of narrow inputs (and the sparse ops).
            let gfx940 = info.targets & OpSet::Gfx940.bit() != 0;
            let narrow = s.blocks == 1 && s.input != MatrixInput::F32;
            let passes = match (s.is_dgemm(), m) {
                (true, 4) => 4,
                (true, _) => 8,
                (false, 4) => 2,
                (false, _) if gfx940 && narrow => m / 4,
                (false, _) => m / 2,
            };
            assert_eq!(s.passes as u32, passes, "{}", info.name);
            rows += 1;
        }
        // gfx908's 20, gfx90a's 27, gfx940's 32 and 14 sparse
        assert_eq!(rows, 93);
        assert!(all_ops()
            .iter()
            .filter(|i| !i.is_mfma())
            .all(|i| i.op.mfma_shape().is_none() || i.name.starts_with("v_mfma")));
    }
}
