//! The matrix fused-multiply-add ops (`v_mfma_*`, and gfx940's sparse `v_smfmac_*`), one routine
//! driven by each op's shape (the ISA table's `gcn_isa::mfma`: adding a matrix op is its table
//! row and its shape line there).
//!
//! For each block b < B, row i < M and column j < N: D[b,i,j] = C[b,i,j] + Σ_{k<K} A[b,i,k]·B[b,k,j]
//! (the ISA's "Matrix Arithmetic Instructions" chapter). Where the values live, as AMD's Matrix
//! Instruction Calculator gives the layouts for CDNA1, CDNA2 and CDNA3 ([`shape`]):
//! - A and B: each lane holds K_L = K·M·B/64 consecutive values of k ("items"; 16-bit items two
//!   to a register, low half first, 8-bit four, 64-bit items a register pair). A[b,i,k] is item
//!   k % K_L of lane i + M·(b + B·(k / K_L)); B[b,k,j] item k % K_L of lane j + N·(b + B·(k / K_L)).
//! - C and D: rows in groups of H = 4 (1 for f64 results) consecutive items; with R = 64/N row
//!   groups in a register's lanes and P = ⌈64·H/(M·N)⌉ blocks sharing a register, D[b,i,j] is
//!   item (b / P)·(M·N·P/64) + (i / (H·R))·H + i % H of lane (b % P)·N + ((i / H) % R)·P·N + j.
//!   (The MI300/MI355 ISA's general formula puts the row group before the block in the lane,
//!   which differs for the one op with both above 1, `v_mfma_f64_4x4x4f64`; the calculator's
//!   layout for CDNA2 is the one taken.)
//! - CBSZ/ABID: the A values of each group of 2^CBSZ blocks are those of block ABID of the group.
//!   BLGP: lane l of B takes the value of another lane (broadcasts and a rotation), except on
//!   gfx940's f64 ops, where its three bits negate A, B and C.
//! - Sparse ops (4:2 structured sparsity): a lane's A holds K_L/2 items, the two kept elements
//!   of each group of four k in turn; src2 (an architected VGPR) holds, per lane, two bits per
//!   kept element naming its place in the group (bits [2s+1:2s] for stored item s); with 16-bit
//!   inputs src2 holds four such sets of 8 bits, with 8-bit inputs two of 16, and ABID picks
//!   one when CBSZ is 0. D is also the accumulator (C is not an operand).
//!
//! The op writes every lane: the matrix core ignores EXEC (MI300/MI355 ISA: "ignores exec mask
//! ... and forces it to 1 for all threads"; the matrix crosses lanes, so a lane mask has no
//! per-lane meaning). Rounding is round-to-nearest-even whatever MODE says, and denormals are
//! kept (same table) — except that MI200's f16 and bf16 matrix ops flush input and output
//! denormals to zero (AMD's MIOpen documentation, "MI200 matrix fused multiply-add behavior
//! specifics"), which gfx90a here does (MI300 does not). Accumulation: f32 inputs one FMA per
//! k, in k order; f16, bf16, xf32 (f32 registers cut to 10 mantissa bits, [`elements`]) and
//! MI300's FNUZ fp8/bf8 products are exact, and the products a lane's row holds for one pass
//! (K_L of them, or the kept half for a sparse A) are summed with the accumulator and rounded
//! once to f32; i8 products sum into i32 modulo 2^32; f64 one FMA per k. The hardware's own
//! order of summation within a pass is not published: this is the one rounding a pass can
//! have. A NaN result is the default quiet NaN (0x7fc00000, or 0x7ff8000000000000 for f64),
//! not one of the input NaNs.

mod elements;
mod products;
mod shape;
#[cfg(test)]
mod tests;

use super::agpr::{self, Operand, Place};
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::MatrixInput as Input;
use products::{products, Sources, MAX_INPUT_REGS, MAX_ITEMS, MAX_OUTPUT_REGS};
use shape::{Modifiers, Shape};

/// Runs a matrix op, of the shape the ISA table gives it.
fn mfma(cx: &mut Cx, d: &Decoded) -> Res {
    let Some(s) = d.inst.info().op.mfma_shape().map(Shape::from) else {
        return Err(Fault::Unsupported(
            "a matrix op without a shape in the ISA table",
        ));
    };
    let (a_regs, b_regs, out_regs) = (s.a_regs(), s.b_regs(), s.output_regs());
    if s.items_per_lane() > MAX_ITEMS
        || a_regs.max(b_regs) > MAX_INPUT_REGS
        || out_regs > MAX_OUTPUT_REGS
    {
        return Err(Fault::Unsupported(
            "a matrix op with more registers than its operand buffers hold",
        ));
    }
    let target = cx.program.target;
    let mods = Modifiers::of(&d.inst.words(), &s, target);
    let (a_at, b_at) = (agpr::place(d, Operand::Src0), agpr::place(d, Operand::Src1));
    let (c_at, d_at) = (agpr::place(d, Operand::Src2), agpr::place(d, Operand::Vdst));
    let wide = s.input == Input::F64;
    let mut a = [[0; WAVE_SIZE]; MAX_INPUT_REGS];
    let mut b = [[0; WAVE_SIZE]; MAX_INPUT_REGS];
    let mut index = [[0; WAVE_SIZE]; 1];
    let (a, b) = (&mut a[..a_regs], &mut b[..b_regs]);
    agpr::read_into(cx, d, a_at, a, wide)?;
    agpr::read_into(cx, d, b_at, b, wide)?;
    // A sparse op's src2 is its indices; its accumulator is D.
    let (c_at, index) = if s.sparse {
        agpr::read_into(cx, d, c_at, &mut index, false)?;
        (d_at, &index[..])
    } else {
        (c_at, &index[..0])
    };
    let src = Sources { a, b, index };
    // MI200's flush of f16 and bf16 denormals (the module doc); not MI300's.
    let flush = matches!(s.input, Input::F16 | Input::Bf16)
        && target.has_gfx90a_insts()
        && !target.has_gfx940_insts();
    // D in the registers of C (as compiled code has it): the products turn C into D where it
    // is, each result reading only the C at its own place.
    if c_at == d_at && !matches!(c_at, Place::Scalar(_)) {
        let first = agpr::rows(cx, c_at, out_regs)?.start;
        if let Some(rows) = cx.wave.vgpr.rows_mut(first, out_regs) {
            products(&s, &mods, flush, &src, rows);
            return Ok(Flow::Continue);
        }
    }
    let mut out = [[0; WAVE_SIZE]; MAX_OUTPUT_REGS];
    let out = &mut out[..out_regs];
    agpr::read_into(cx, d, c_at, out, wide)?;
    // Checked before any work, so that a fault leaves D as it was.
    agpr::rows(cx, d_at, out_regs)?;
    products(&s, &mods, flush, &src, out);
    agpr::write(cx, d_at, out, u64::MAX)?;
    Ok(Flow::Continue)
}

// The shapes (M, N, K, blocks, input types, sparsity) are the ISA table's (`gcn_isa::mfma`).
semantics! {
    V_MFMA_F32_32X32X1F32 => mfma;
    V_MFMA_F32_16X16X1F32 => mfma;
    V_MFMA_F32_4X4X1F32 => mfma;
    V_MFMA_F32_32X32X2F32 => mfma;
    V_MFMA_F32_16X16X4F32 => mfma;
    V_MFMA_F32_32X32X4F16 => mfma;
    V_MFMA_F32_16X16X4F16 => mfma;
    V_MFMA_F32_4X4X4F16 => mfma;
    V_MFMA_F32_32X32X8F16 => mfma;
    V_MFMA_F32_16X16X16F16 => mfma;
    V_MFMA_I32_32X32X4I8 => mfma;
    V_MFMA_I32_16X16X4I8 => mfma;
    V_MFMA_I32_4X4X4I8 => mfma;
    V_MFMA_I32_32X32X8I8 => mfma;
    V_MFMA_I32_16X16X16I8 => mfma;
    V_MFMA_F32_32X32X2BF16 => mfma;
    V_MFMA_F32_16X16X2BF16 => mfma;
    V_MFMA_F32_4X4X2BF16 => mfma;
    V_MFMA_F32_32X32X4BF16 => mfma;
    V_MFMA_F32_16X16X8BF16 => mfma;
    V_MFMA_F32_32X32X4BF16_1K => mfma;
    V_MFMA_F32_16X16X4BF16_1K => mfma;
    V_MFMA_F32_4X4X4BF16_1K => mfma;
    V_MFMA_F32_32X32X8BF16_1K => mfma;
    V_MFMA_F32_16X16X16BF16_1K => mfma;
    V_MFMA_F64_16X16X4F64 => mfma;
    V_MFMA_F64_4X4X4F64 => mfma;
    // gfx940's names of the ops above, and its own.
    V_MFMA_F32_32X32X1_2B_F32 => mfma;
    V_MFMA_F32_16X16X1_4B_F32 => mfma;
    V_MFMA_F32_4X4X1_16B_F32 => mfma;
    V_MFMA_F32_32X32X2_F32 => mfma;
    V_MFMA_F32_16X16X4_F32 => mfma;
    V_MFMA_F32_32X32X4_2B_F16 => mfma;
    V_MFMA_F32_16X16X4_4B_F16 => mfma;
    V_MFMA_F32_4X4X4_16B_F16 => mfma;
    V_MFMA_F32_32X32X8_F16 => mfma;
    V_MFMA_F32_16X16X16_F16 => mfma;
    V_MFMA_I32_32X32X4_2B_I8 => mfma;
    V_MFMA_I32_16X16X4_4B_I8 => mfma;
    V_MFMA_I32_4X4X4_16B_I8 => mfma;
    V_MFMA_I32_32X32X16_I8 => mfma;
    V_MFMA_I32_16X16X32_I8 => mfma;
    V_MFMA_F32_32X32X4_2B_BF16 => mfma;
    V_MFMA_F32_16X16X4_4B_BF16 => mfma;
    V_MFMA_F32_4X4X4_16B_BF16 => mfma;
    V_MFMA_F32_32X32X8_BF16 => mfma;
    V_MFMA_F32_16X16X16_BF16 => mfma;
    V_MFMA_F64_16X16X4_F64 => mfma;
    V_MFMA_F64_4X4X4_4B_F64 => mfma;
    V_MFMA_F32_16X16X8_XF32 => mfma;
    V_MFMA_F32_32X32X4_XF32 => mfma;
    V_MFMA_F32_16X16X32_BF8_BF8 => mfma;
    V_MFMA_F32_16X16X32_BF8_FP8 => mfma;
    V_MFMA_F32_16X16X32_FP8_BF8 => mfma;
    V_MFMA_F32_16X16X32_FP8_FP8 => mfma;
    V_MFMA_F32_32X32X16_BF8_BF8 => mfma;
    V_MFMA_F32_32X32X16_BF8_FP8 => mfma;
    V_MFMA_F32_32X32X16_FP8_BF8 => mfma;
    V_MFMA_F32_32X32X16_FP8_FP8 => mfma;
    V_SMFMAC_F32_16X16X32_F16 => mfma;
    V_SMFMAC_F32_32X32X16_F16 => mfma;
    V_SMFMAC_F32_16X16X32_BF16 => mfma;
    V_SMFMAC_F32_32X32X16_BF16 => mfma;
    V_SMFMAC_I32_16X16X64_I8 => mfma;
    V_SMFMAC_I32_32X32X32_I8 => mfma;
    V_SMFMAC_F32_16X16X64_BF8_BF8 => mfma;
    V_SMFMAC_F32_16X16X64_BF8_FP8 => mfma;
    V_SMFMAC_F32_16X16X64_FP8_BF8 => mfma;
    V_SMFMAC_F32_16X16X64_FP8_FP8 => mfma;
    V_SMFMAC_F32_32X32X32_BF8_BF8 => mfma;
    V_SMFMAC_F32_32X32X32_BF8_FP8 => mfma;
    V_SMFMAC_F32_32X32X32_FP8_BF8 => mfma;
    V_SMFMAC_F32_32X32X32_FP8_FP8 => mfma;
}
