//! The matrix fused-multiply-add ops (`v_mfma_*`), one routine driven by each op's shape.
//!
//! For each block b < B, row i < M and column j < N: D[b,i,j] = C[b,i,j] + Σ_{k<K} A[b,i,k]·B[b,k,j]
//! (the ISA's "Matrix Arithmetic Instructions" chapter). Where the values live, as AMD's Matrix
//! Instruction Calculator gives the layouts for CDNA1 and CDNA2:
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
//!   BLGP: lane l of B takes the value of another lane (broadcasts and a rotation, [`blgp_lane`]).
//!
//! The op writes every lane: the matrix core ignores EXEC (MI300/MI355 ISA: "ignores exec mask
//! ... and forces it to 1 for all threads"; the matrix crosses lanes, so a lane mask has no
//! per-lane meaning). Rounding is round-to-nearest-even whatever MODE says, and denormals are
//! kept (same table) — except that MI200's f16 and bf16 matrix ops flush input and output
//! denormals to zero (AMD's MIOpen documentation, "MI200 matrix fused multiply-add behavior
//! specifics"), which gfx90a here does. Accumulation: f32 inputs one FMA per k, in k order; f16 and
//! bf16 products are exact in f32 and the K_L products a lane holds are summed with the
//! accumulator and rounded once; i8 products sum into i32 modulo 2^32; f64 one FMA per k.

use super::agpr::{self, Operand};
use super::valu::Res;
use super::{Cx, Flow};
use crate::program::Decoded;
use crate::wave::{Row, WAVE_SIZE};

/// The type of A's and B's elements (C and D: f32, or i32 for i8, f64 for f64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

impl Input {
    fn bits(self) -> usize {
        match self {
            Input::F32 => 32,
            Input::F16 | Input::Bf16 => 16,
            Input::I8 => 8,
            Input::F64 => 64,
        }
    }

    /// Bits of a C/D element.
    fn out_bits(self) -> usize {
        if self == Input::F64 {
            64
        } else {
            32
        }
    }
}

/// One matrix op: blocks of M×N results, K deep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub blocks: usize,
    pub input: Input,
}

const fn shape(m: usize, n: usize, k: usize, blocks: usize, input: Input) -> Shape {
    Shape {
        m,
        n,
        k,
        blocks,
        input,
    }
}

impl Shape {
    /// K_L: the items of A (and B) each lane holds.
    pub fn items_per_lane(&self) -> usize {
        self.k * self.m * self.blocks / WAVE_SIZE
    }

    /// Registers of A (and B).
    pub fn input_regs(&self) -> usize {
        (self.items_per_lane() * self.input.bits()).div_ceil(32)
    }

    /// Registers of C (and D).
    pub fn output_regs(&self) -> usize {
        self.m * self.n * self.blocks / WAVE_SIZE * self.input.out_bits() / 32
    }

    /// Where D[b,i,j] (and C[b,i,j]) is: (item, lane).
    pub fn output_at(&self, b: usize, i: usize, j: usize) -> (usize, usize) {
        let h = if self.input == Input::F64 { 1 } else { 4 };
        let groups_per_reg = WAVE_SIZE / self.n;
        let blocks_per_reg = (WAVE_SIZE * h).div_ceil(self.m * self.n);
        let item = (b / blocks_per_reg) * (self.m * self.n * blocks_per_reg / WAVE_SIZE)
            + (i / (h * groups_per_reg)) * h
            + i % h;
        let lane = (b % blocks_per_reg) * self.n
            + ((i / h) % groups_per_reg) * blocks_per_reg * self.n
            + j;
        (item, lane)
    }

    /// The lane and item that hold A[b,i,k] (or B[b,k,j] with `i` = j and M = N).
    pub fn input_at(&self, b: usize, i: usize, k: usize) -> (usize, usize) {
        let kl = self.items_per_lane();
        (k % kl, i + self.m * (b + self.blocks * (k / kl)))
    }
}

/// The lane of B whose value lane `l` takes under BLGP `blgp`: 0 as is; 1, 2 broadcast lanes
/// 0–31 or 32–63 to both halves; 3 rotates down by 16 (lane l takes lane l + 16); 4–7 broadcast
/// lanes 0–15, 16–31, 32–47 or 48–63 to each group of 16.
pub fn blgp_lane(l: usize, blgp: u32) -> usize {
    match blgp {
        1 => l % 32,
        2 => l % 32 + 32,
        3 => (l + 16) % 64,
        4..=7 => l % 16 + 16 * (blgp as usize - 4),
        _ => l,
    }
}

/// The block whose A values block `b` uses: with CBSZ, groups of 2^CBSZ blocks all take block
/// ABID of their group (ignored for one-block ops, and CBSZ 0).
pub fn a_block(b: usize, blocks: usize, cbsz: u32, abid: u32) -> usize {
    if cbsz == 0 || blocks == 1 {
        return b;
    }
    let group = (1usize << cbsz).min(blocks);
    (b / group) * group + (abid as usize % group)
}

/// Item `e` of `lane` in rows of `bits`-bit items.
#[inline]
fn item(rows: &[Row], lane: usize, e: usize, bits: usize) -> u64 {
    match bits {
        64 => rows[2 * e][lane] as u64 | (rows[2 * e + 1][lane] as u64) << 32,
        32 => rows[e][lane] as u64,
        _ => {
            let per = 32 / bits;
            (rows[e / per][lane] >> (bits * (e % per))) as u64 & ((1u64 << bits) - 1)
        }
    }
}

/// f32 `v`, or its signed zero if `flush` and it is a denormal.
fn flushed(v: f32, flush: bool) -> f32 {
    if flush && v.is_subnormal() {
        0.0f32.copysign(v)
    } else {
        v
    }
}

/// An f16 or bf16 input as f32 (exact); a denormal of its own format as a signed zero if
/// `flush`.
fn half_to_f32(bits: u64, input: Input, flush: bool) -> f32 {
    let (exp_mask, v) = match input {
        Input::Bf16 => (0x7f80, f32::from_bits((bits as u32) << 16)),
        _ => (0x7c00, super::f16::f16_to_f32(bits as u16)),
    };
    if flush && bits as u16 & exp_mask == 0 {
        0.0f32.copysign(v)
    } else {
        v
    }
}

/// Runs the matrix op of shape `s`.
fn mfma(cx: &mut Cx, d: &Decoded, s: Shape) -> Res {
    let w = d.inst.words();
    let cbsz = (w[0] >> 8) & 7;
    let abid = (w[0] >> 11) & 0xf;
    let blgp = w[1] >> 29;
    let (a_at, b_at) = (agpr::place(d, Operand::Src0), agpr::place(d, Operand::Src1));
    let (c_at, d_at) = (agpr::place(d, Operand::Src2), agpr::place(d, Operand::Vdst));
    let wide = s.input == Input::F64;
    let a = agpr::read(cx, d, a_at, s.input_regs(), wide)?;
    let b = agpr::read(cx, d, b_at, s.input_regs(), wide)?;
    let c = agpr::read(cx, d, c_at, s.output_regs(), wide)?;
    // Checked before any work, so that a fault leaves D as it was.
    agpr::rows(cx, d_at, s.output_regs())?;
    let flush =
        matches!(s.input, Input::F16 | Input::Bf16) && cx.program.target.features().gfx90a_insts;
    let kl = s.items_per_lane();
    let (ib, ob) = (s.input.bits(), s.input.out_bits());
    let mut out = c.clone();
    for blk in 0..s.blocks {
        let ablk = a_block(blk, s.blocks, cbsz, abid);
        for i in 0..s.m {
            for j in 0..s.n {
                let (oi, ol) = s.output_at(blk, i, j);
                let acc = item(&c, ol, oi, ob);
                let mut sum_f32 = flushed(f32::from_bits(acc as u32), flush);
                let mut sum_i32 = acc as u32;
                let mut sum_f64 = f64::from_bits(acc);
                for k0 in (0..s.k).step_by(kl) {
                    // Exact sum of this pass's f16/bf16 products (each exact in f32).
                    let mut pass = 0.0f64;
                    for k in k0..k0 + kl {
                        let (ai, al) = s.input_at(ablk, i, k);
                        let (bi, bl) = s.input_at(blk, j, k);
                        let x = item(&a, al, ai, ib);
                        let y = item(&b, blgp_lane(bl, blgp), bi, ib);
                        match s.input {
                            Input::F32 => {
                                sum_f32 = f32::from_bits(x as u32)
                                    .mul_add(f32::from_bits(y as u32), sum_f32)
                            }
                            Input::F64 => {
                                sum_f64 = f64::from_bits(x).mul_add(f64::from_bits(y), sum_f64)
                            }
                            Input::I8 => {
                                let p = (x as u8 as i8 as i32) * (y as u8 as i8 as i32);
                                sum_i32 = sum_i32.wrapping_add(p as u32);
                            }
                            Input::F16 | Input::Bf16 => {
                                pass += half_to_f32(x, s.input, flush) as f64
                                    * half_to_f32(y, s.input, flush) as f64;
                            }
                        }
                    }
                    if matches!(s.input, Input::F16 | Input::Bf16) {
                        sum_f32 = flushed((sum_f32 as f64 + pass) as f32, flush);
                    }
                }
                let r = match s.input {
                    Input::F32 | Input::F16 | Input::Bf16 => sum_f32.to_bits() as u64,
                    Input::I8 => sum_i32 as u64,
                    Input::F64 => sum_f64.to_bits(),
                };
                if ob == 64 {
                    out[2 * oi][ol] = r as u32;
                    out[2 * oi + 1][ol] = (r >> 32) as u32;
                } else {
                    out[oi][ol] = r as u32;
                }
            }
        }
    }
    agpr::write(cx, d_at, &out, u64::MAX)?;
    Ok(Flow::Continue)
}

use Input::{Bf16, F16, F32, F64, I8};

// Shapes: M, N, K, blocks, input type (the calculator's `--detail-instruction`; the ISA's
// Table "MFMA VALU Opcodes").
semantics! {
    V_MFMA_F32_32X32X1F32 => |cx, d| mfma(cx, d, shape(32, 32, 1, 2, F32));
    V_MFMA_F32_16X16X1F32 => |cx, d| mfma(cx, d, shape(16, 16, 1, 4, F32));
    V_MFMA_F32_4X4X1F32 => |cx, d| mfma(cx, d, shape(4, 4, 1, 16, F32));
    V_MFMA_F32_32X32X2F32 => |cx, d| mfma(cx, d, shape(32, 32, 2, 1, F32));
    V_MFMA_F32_16X16X4F32 => |cx, d| mfma(cx, d, shape(16, 16, 4, 1, F32));
    V_MFMA_F32_32X32X4F16 => |cx, d| mfma(cx, d, shape(32, 32, 4, 2, F16));
    V_MFMA_F32_16X16X4F16 => |cx, d| mfma(cx, d, shape(16, 16, 4, 4, F16));
    V_MFMA_F32_4X4X4F16 => |cx, d| mfma(cx, d, shape(4, 4, 4, 16, F16));
    V_MFMA_F32_32X32X8F16 => |cx, d| mfma(cx, d, shape(32, 32, 8, 1, F16));
    V_MFMA_F32_16X16X16F16 => |cx, d| mfma(cx, d, shape(16, 16, 16, 1, F16));
    V_MFMA_I32_32X32X4I8 => |cx, d| mfma(cx, d, shape(32, 32, 4, 2, I8));
    V_MFMA_I32_16X16X4I8 => |cx, d| mfma(cx, d, shape(16, 16, 4, 4, I8));
    V_MFMA_I32_4X4X4I8 => |cx, d| mfma(cx, d, shape(4, 4, 4, 16, I8));
    V_MFMA_I32_32X32X8I8 => |cx, d| mfma(cx, d, shape(32, 32, 8, 1, I8));
    V_MFMA_I32_16X16X16I8 => |cx, d| mfma(cx, d, shape(16, 16, 16, 1, I8));
    V_MFMA_F32_32X32X2BF16 => |cx, d| mfma(cx, d, shape(32, 32, 2, 2, Bf16));
    V_MFMA_F32_16X16X2BF16 => |cx, d| mfma(cx, d, shape(16, 16, 2, 4, Bf16));
    V_MFMA_F32_4X4X2BF16 => |cx, d| mfma(cx, d, shape(4, 4, 2, 16, Bf16));
    V_MFMA_F32_32X32X4BF16 => |cx, d| mfma(cx, d, shape(32, 32, 4, 1, Bf16));
    V_MFMA_F32_16X16X8BF16 => |cx, d| mfma(cx, d, shape(16, 16, 8, 1, Bf16));
    // gfx90a: four bf16 values a lane (two registers), and f64.
    V_MFMA_F32_32X32X4BF16_1K => |cx, d| mfma(cx, d, shape(32, 32, 4, 2, Bf16));
    V_MFMA_F32_16X16X4BF16_1K => |cx, d| mfma(cx, d, shape(16, 16, 4, 4, Bf16));
    V_MFMA_F32_4X4X4BF16_1K => |cx, d| mfma(cx, d, shape(4, 4, 4, 16, Bf16));
    V_MFMA_F32_32X32X8BF16_1K => |cx, d| mfma(cx, d, shape(32, 32, 8, 1, Bf16));
    V_MFMA_F32_16X16X16BF16_1K => |cx, d| mfma(cx, d, shape(16, 16, 16, 1, Bf16));
    V_MFMA_F64_16X16X4F64 => |cx, d| mfma(cx, d, shape(16, 16, 4, 1, F64));
    V_MFMA_F64_4X4X4F64 => |cx, d| mfma(cx, d, shape(4, 4, 4, 4, F64));
}
