//! The matrix-core ops (`v_mfma_*`) as data: each op's shape and its time in the matrix core,
//! read by the emulator's semantics, its hazard rules and its timing model alike.
//!
//! Shapes (M×N results per block, K deep, blocks) are the ops' names read as LLVM and AMD's Matrix
//! Instruction Calculator define them (`--architecture cdna1|cdna2 --detail-instruction`): a
//! `32x32x1f32` computes two 32×32 blocks, K = 1. Passes (four cycles each) are LLVM's
//! `SISchedule.td` classes for gfx908 and gfx90a — `Write2PassMAI` (4x4), `Write8PassMAI`
//! (16x16), `Write16PassMAI` (32x32), `Write4PassDGEMM` and `Write8PassDGEMM` (f64) — which the
//! calculator gives as cycles: 8, 32, 64, 16, 32.

use crate::table::Op;

/// The type of A's and B's elements. C and D are f32, except i32 for `I8` and f64 for `F64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixInput {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

impl MatrixInput {
    /// Bits of an A or B element.
    pub fn bits(self) -> u32 {
        match self {
            MatrixInput::F32 => 32,
            MatrixInput::F16 | MatrixInput::Bf16 => 16,
            MatrixInput::I8 => 8,
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
    pub input: MatrixInput,
    /// Passes through the matrix core (four cycles each) on gfx908 and gfx90a.
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
        passes,
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
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::table::{all_ops, Slot};

    /// Every MFMA row has a shape, and its operands are as wide as the shape says: A and B hold
    /// K·M·blocks elements over 64 lanes, C and D M·N·blocks.
    #[test]
    fn shapes_match_the_operand_widths_of_every_mfma_row() {
        let mut rows = 0;
        for info in all_ops().iter().filter(|i| i.is_mfma()) {
            let s = info
                .op
                .mfma_shape()
                .unwrap_or_else(|| panic!("{} has no shape", info.name));
            let (m, n, k, b) = (s.m as u32, s.n as u32, s.k as u32, s.blocks as u32);
            let a_regs = (k * m * b / 64 * s.input.bits()).div_ceil(32);
            let d_regs = m * n * b / 64 * s.input.result_bits() / 32;
            let widths: Vec<u32> = info
                .operands
                .iter()
                .filter_map(|slot| match slot {
                    Slot::Reg { dwords, .. } => Some(*dwords as u32),
                    _ => None,
                })
                .collect();
            assert_eq!(widths, [d_regs, a_regs, a_regs, d_regs], "{}", info.name);
            // LLVM's classes: 2, 8 and 16 passes by block size; f64 4 (4x4) and 8 (16x16).
            let passes = match (s.is_dgemm(), m) {
                (false, _) => m / 2,
                (true, 4) => 4,
                (true, _) => 8,
            };
            assert_eq!(s.passes as u32, passes, "{}", info.name);
            rows += 1;
        }
        // gfx908's 20 and gfx90a's 27
        assert_eq!(rows, 47);
        assert!(all_ops()
            .iter()
            .filter(|i| !i.is_mfma())
            .all(|i| i.op.mfma_shape().is_none() || i.name.starts_with("v_mfma")));
    }
}
