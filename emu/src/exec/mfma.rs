//! The matrix fused-multiply-add ops (`v_mfma_*`), one routine driven by each op's shape (the
//! ISA table's `gcn_isa::mfma`: adding a matrix op is its table row and its shape line there).
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

use super::agpr::{self, Operand, Place};
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::{Row, WAVE_SIZE};

use gcn_isa::MatrixInput as Input;

/// One matrix op's shape (from the ISA table's [`gcn_isa::MfmaShape`]), with the layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub blocks: usize,
    pub input: Input,
}

impl From<gcn_isa::MfmaShape> for Shape {
    fn from(s: gcn_isa::MfmaShape) -> Shape {
        Shape {
            m: s.m as usize,
            n: s.n as usize,
            k: s.k as usize,
            blocks: s.blocks as usize,
            input: s.input,
        }
    }
}

impl Shape {
    /// K_L: the items of A (and B) each lane holds.
    pub fn items_per_lane(&self) -> usize {
        self.k * self.m * self.blocks / WAVE_SIZE
    }

    /// Registers of A (and B).
    pub fn input_regs(&self) -> usize {
        (self.items_per_lane() * self.input.bits() as usize).div_ceil(32)
    }

    /// Registers of C (and D).
    pub fn output_regs(&self) -> usize {
        self.m * self.n * self.blocks / WAVE_SIZE * self.input.result_bits() as usize / 32
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
    #[cfg(test)]
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

/// The most items of A (or B) a lane holds, and the most registers of A (or B) and of C (or D),
/// over the ISA table's shapes (a test checks): the operands are read into buffers of these
/// sizes on the stack rather than allocated per op.
const MAX_ITEMS: usize = 4;
const MAX_INPUT_REGS: usize = 2;
const MAX_OUTPUT_REGS: usize = 32;

/// A or B as the op reads it, item `e` of lane `l` at `[e][l]`: lane-major like the registers, so
/// that the B values of a row of results, like the results, are consecutive lanes.
type Items<T> = [[T; WAVE_SIZE]; MAX_ITEMS];

/// Items e < `kl` of every lane of `rows` (`BITS`-bit items: 16-bit two to a register, low half
/// first, 8-bit four, 64-bit a register pair), each as `value` gives it; a loop over the lanes
/// per item, which the compiler vectorises. Into the caller's `out`: an array this size
/// returned by value is copied once more.
fn items<T: Copy, const BITS: usize>(
    out: &mut Items<T>,
    rows: &[Row],
    kl: usize,
    value: impl Fn(u64) -> T,
) {
    for (e, dst) in out.iter_mut().enumerate().take(kl) {
        if BITS == 64 {
            let (Some(lo), Some(hi)) = (rows.get(2 * e), rows.get(2 * e + 1)) else {
                break;
            };
            for (d, (&lo, &hi)) in dst.iter_mut().zip(lo.iter().zip(hi)) {
                *d = value(lo as u64 | (hi as u64) << 32);
            }
        } else {
            let per = 32 / BITS;
            let Some(row) = rows.get(e / per) else {
                break;
            };
            let shift = BITS * (e % per);
            let mask = (1u64 << BITS) - 1;
            for (d, &r) in dst.iter_mut().zip(row) {
                *d = value((r >> shift) as u64 & mask);
            }
        }
    }
}

/// B's items after BLGP: lane l takes the items of lane [`blgp_lane`]`(l)`.
fn apply_blgp<T: Copy>(items: &mut Items<T>, kl: usize, blgp: u32) {
    if blgp == 0 {
        return;
    }
    for row in items.iter_mut().take(kl) {
        let src = *row;
        for (l, d) in row.iter_mut().enumerate() {
            *d = src[blgp_lane(l, blgp)];
        }
    }
}

/// f32 `v`, or its signed zero if `flush` and it is a denormal (a zero exponent: zeros stay).
#[inline]
fn flushed(v: f32, flush: bool) -> f32 {
    let bits = v.to_bits();
    if flush && bits & 0x7f80_0000 == 0 {
        f32::from_bits(bits & 0x8000_0000)
    } else {
        v
    }
}

/// An f16 as f32, exactly as [`super::f16::f16_to_f32`] gives it (a NaN made quiet, its payload
/// kept), or a denormal as its signed zero if `flush`: integer arithmetic and selects, so that
/// a loop of them vectorises where a call per element does not.
#[inline]
fn f16_value(h: u32, flush: bool) -> f32 {
    let sign = (h & 0x8000) << 16;
    let em = h & 0x7fff;
    let magnitude = if em >= 0x7c00 {
        // Infinity or NaN: the f32 exponent all ones, a NaN's quiet bit set.
        let quiet = if em > 0x7c00 { 0x40_0000 } else { 0 };
        0x7f80_0000 | quiet | (em & 0x3ff) << 13
    } else if em >= 0x400 {
        // A normal: the exponent rebiased from 15 to 127.
        (em << 13) + ((127 - 15) << 23)
    } else if flush {
        0
    } else {
        // A denormal (or zero): `em` units of 2^-24, a normal f32 (or zero).
        (em as f32 * f32::from_bits(0x3380_0000)).to_bits()
    };
    f32::from_bits(sign | magnitude)
}

/// A bf16 as f32 (its high half), or a denormal as its signed zero if `flush`.
#[inline]
fn bf16_value(h: u32, flush: bool) -> f32 {
    if flush && h & 0x7f80 == 0 {
        f32::from_bits((h & 0x8000) << 16)
    } else {
        f32::from_bits(h << 16)
    }
}

/// D = A·B + C for every block, in `out` (which holds C): the arithmetic of [`mfma`]'s doc.
/// A row of results is N consecutive lanes of one item; the loops take its columns W at a
/// time, W a constant so that the compiler unrolls them into vector operations with the sums
/// in registers: the whole row for the ISA's N (4, 16, 32); W = 8 or 4, it splits them
/// less well.
fn products(
    s: &Shape,
    modifiers: [u32; 3],
    flush: bool,
    (a, b): (&[Row], &[Row]),
    out: &mut [Row],
) {
    match s.n {
        32 => products_by::<32>(s, modifiers, flush, (a, b), out),
        16 => products_by::<16>(s, modifiers, flush, (a, b), out),
        n if n % 4 == 0 => products_by::<4>(s, modifiers, flush, (a, b), out),
        _ => products_by::<1>(s, modifiers, flush, (a, b), out),
    }
}

/// Where a chunk of W results (block b, row i, columns j0..j0 + W) and its inputs are: D[b,i,j]
/// is item `item` of lane `lane + j - j0`; A[b,i,k] is item k % K_L of lane
/// `a_lane + a_step·(k / K_L)` (the row of the block CBSZ/ABID give), B[b,k,j] of lane
/// `b_lane + j - j0 + b_step·(k / K_L)` ([`Shape::input_at`]).
struct ChunkAt {
    item: usize,
    lane: usize,
    a_lane: usize,
    b_lane: usize,
}

/// Calls `chunk` for every chunk of W results of every row of every block.
fn for_each_chunk<const W: usize>(s: &Shape, cbsz: u32, abid: u32, mut chunk: impl FnMut(ChunkAt)) {
    for blk in 0..s.blocks {
        let ablk = a_block(blk, s.blocks, cbsz, abid);
        for i in 0..s.m {
            let (item, lane0) = s.output_at(blk, i, 0);
            for j0 in (0..s.n).step_by(W) {
                chunk(ChunkAt {
                    item,
                    lane: lane0 + j0,
                    a_lane: i + s.m * ablk,
                    b_lane: s.n * blk + j0,
                });
            }
        }
    }
}

/// The W values of B's item `e` from `lane`.
#[inline(always)]
fn columns<T, const W: usize>(b: &Items<T>, e: usize, lane: usize) -> Option<&[T; W]> {
    b.get(e)?.get(lane..)?.first_chunk::<W>()
}

/// The W results of item `item` from `lane`.
#[inline(always)]
fn results<const W: usize>(out: &mut [Row], item: usize, lane: usize) -> Option<&mut [u32; W]> {
    out.get_mut(item)?.get_mut(lane..)?.first_chunk_mut::<W>()
}

/// [`products`], a row's columns taken W at a time.
fn products_by<const W: usize>(
    s: &Shape,
    [cbsz, abid, blgp]: [u32; 3],
    flush: bool,
    (a_rows, b_rows): (&[Row], &[Row]),
    out: &mut [Row],
) {
    let kl = s.items_per_lane();
    let passes = s.k / kl;
    let (a_step, b_step) = (s.m * s.blocks, s.n * s.blocks);
    match s.input {
        Input::F32 => {
            let (mut a, mut b) = (
                [[0f32; WAVE_SIZE]; MAX_ITEMS],
                [[0f32; WAVE_SIZE]; MAX_ITEMS],
            );
            items::<f32, 32>(&mut a, a_rows, kl, |r| f32::from_bits(r as u32));
            items::<f32, 32>(&mut b, b_rows, kl, |r| f32::from_bits(r as u32));
            apply_blgp(&mut b, kl, blgp);
            for_each_chunk::<W>(s, cbsz, abid, |at| {
                let Some(d) = results::<W>(out, at.item, at.lane) else {
                    return;
                };
                let mut acc = [0f32; W];
                for j in 0..W {
                    acc[j] = f32::from_bits(d[j]);
                }
                // One FMA per k, in k order.
                for p in 0..passes {
                    for e in 0..kl {
                        let x = a[e][at.a_lane + a_step * p];
                        let Some(y) = columns::<f32, W>(&b, e, at.b_lane + b_step * p) else {
                            return;
                        };
                        for j in 0..W {
                            acc[j] = x.mul_add(y[j], acc[j]);
                        }
                    }
                }
                for j in 0..W {
                    d[j] = acc[j].to_bits();
                }
            });
        }
        Input::F16 | Input::Bf16 => {
            // The conversion chosen once, not per element.
            let widen = |out: &mut Items<f64>, rows| match s.input {
                Input::Bf16 => {
                    items::<f64, 16>(out, rows, kl, |r| bf16_value(r as u32, flush) as f64)
                }
                _ => items::<f64, 16>(out, rows, kl, |r| f16_value(r as u32, flush) as f64),
            };
            let (mut a, mut b) = (
                [[0f64; WAVE_SIZE]; MAX_ITEMS],
                [[0f64; WAVE_SIZE]; MAX_ITEMS],
            );
            widen(&mut a, a_rows);
            widen(&mut b, b_rows);
            apply_blgp(&mut b, kl, blgp);
            for_each_chunk::<W>(s, cbsz, abid, |at| {
                let Some(d) = results::<W>(out, at.item, at.lane) else {
                    return;
                };
                let mut acc = [0f32; W];
                for j in 0..W {
                    acc[j] = flushed(f32::from_bits(d[j]), flush);
                }
                // Each pass's K_L products, exact, summed in k order and added once.
                for p in 0..passes {
                    let mut sums = [0f64; W];
                    for e in 0..kl {
                        let x = a[e][at.a_lane + a_step * p];
                        let Some(y) = columns::<f64, W>(&b, e, at.b_lane + b_step * p) else {
                            return;
                        };
                        for j in 0..W {
                            sums[j] += x * y[j];
                        }
                    }
                    for j in 0..W {
                        acc[j] = flushed((acc[j] as f64 + sums[j]) as f32, flush);
                    }
                }
                for j in 0..W {
                    d[j] = acc[j].to_bits();
                }
            });
        }
        Input::I8 => {
            let (mut a, mut b) = (
                [[0i32; WAVE_SIZE]; MAX_ITEMS],
                [[0i32; WAVE_SIZE]; MAX_ITEMS],
            );
            items::<i32, 8>(&mut a, a_rows, kl, |r| r as u8 as i8 as i32);
            items::<i32, 8>(&mut b, b_rows, kl, |r| r as u8 as i8 as i32);
            apply_blgp(&mut b, kl, blgp);
            for_each_chunk::<W>(s, cbsz, abid, |at| {
                let Some(d) = results::<W>(out, at.item, at.lane) else {
                    return;
                };
                // Products and their sum are exact in i32 (|Σ| < 2^21); the result wraps.
                let mut sums = [0i32; W];
                for p in 0..passes {
                    for e in 0..kl {
                        let x = a[e][at.a_lane + a_step * p];
                        let Some(y) = columns::<i32, W>(&b, e, at.b_lane + b_step * p) else {
                            return;
                        };
                        for j in 0..W {
                            sums[j] = sums[j].wrapping_add(x.wrapping_mul(y[j]));
                        }
                    }
                }
                for j in 0..W {
                    d[j] = d[j].wrapping_add(sums[j] as u32);
                }
            });
        }
        Input::F64 => {
            let (mut a, mut b) = (
                [[0f64; WAVE_SIZE]; MAX_ITEMS],
                [[0f64; WAVE_SIZE]; MAX_ITEMS],
            );
            items::<f64, 64>(&mut a, a_rows, kl, f64::from_bits);
            items::<f64, 64>(&mut b, b_rows, kl, f64::from_bits);
            apply_blgp(&mut b, kl, blgp);
            for_each_chunk::<W>(s, cbsz, abid, |at| {
                // Item `item` is the register pair from row 2·item.
                let Some([lo, hi]) = out.get_mut(2 * at.item..2 * at.item + 2) else {
                    return;
                };
                let (Some(lo), Some(hi)) = (
                    lo.get_mut(at.lane..).and_then(|r| r.first_chunk_mut::<W>()),
                    hi.get_mut(at.lane..).and_then(|r| r.first_chunk_mut::<W>()),
                ) else {
                    return;
                };
                let mut acc = [0f64; W];
                for j in 0..W {
                    acc[j] = f64::from_bits(lo[j] as u64 | (hi[j] as u64) << 32);
                }
                // One FMA per k, in k order.
                for p in 0..passes {
                    for e in 0..kl {
                        let x = a[e][at.a_lane + a_step * p];
                        let Some(y) = columns::<f64, W>(&b, e, at.b_lane + b_step * p) else {
                            return;
                        };
                        for j in 0..W {
                            acc[j] = x.mul_add(y[j], acc[j]);
                        }
                    }
                }
                for j in 0..W {
                    let bits = acc[j].to_bits();
                    lo[j] = bits as u32;
                    hi[j] = (bits >> 32) as u32;
                }
            });
        }
        // gfx940's input types: refused by `mfma` before any product is formed.
        Input::Xf32 | Input::Fp8 | Input::Bf8 => {}
    }
}

/// Runs a matrix op, of the shape the ISA table gives it.
fn mfma(cx: &mut Cx, d: &Decoded) -> Res {
    let Some(s) = d.inst.info().op.mfma_shape().map(Shape::from) else {
        return Err(Fault::Unsupported(
            "a matrix op without a shape in the ISA table",
        ));
    };
    if matches!(s.input, Input::Xf32 | Input::Fp8 | Input::Bf8) {
        return Err(Fault::Unsupported("gfx940's xf32, fp8 and bf8 matrix ops"));
    }
    let (in_regs, out_regs) = (s.input_regs(), s.output_regs());
    if s.items_per_lane() > MAX_ITEMS || in_regs > MAX_INPUT_REGS || out_regs > MAX_OUTPUT_REGS {
        return Err(Fault::Unsupported(
            "a matrix op with more registers than its operand buffers hold",
        ));
    }
    let w = d.inst.words();
    let cbsz = (w[0] >> 8) & 7;
    let abid = (w[0] >> 11) & 0xf;
    let blgp = w[1] >> 29;
    let (a_at, b_at) = (agpr::place(d, Operand::Src0), agpr::place(d, Operand::Src1));
    let (c_at, d_at) = (agpr::place(d, Operand::Src2), agpr::place(d, Operand::Vdst));
    let wide = s.input == Input::F64;
    let mut a = [[0; WAVE_SIZE]; MAX_INPUT_REGS];
    let mut b = [[0; WAVE_SIZE]; MAX_INPUT_REGS];
    let (a, b) = (&mut a[..in_regs], &mut b[..in_regs]);
    agpr::read_into(cx, d, a_at, a, wide)?;
    agpr::read_into(cx, d, b_at, b, wide)?;
    let flush =
        matches!(s.input, Input::F16 | Input::Bf16) && cx.program.target.features().gfx90a_insts;
    let modifiers = [cbsz, abid, blgp];
    // D in the registers of C (as compiled code has it): the products turn C into D where it
    // is, each result reading only the C at its own place.
    if c_at == d_at && !matches!(c_at, Place::Scalar(_)) {
        let first = agpr::rows(cx, c_at, out_regs)?.start;
        if let Some(rows) = cx.wave.vgpr.rows_mut(first, out_regs) {
            products(&s, modifiers, flush, (a, b), rows);
            return Ok(Flow::Continue);
        }
    }
    let mut out = [[0; WAVE_SIZE]; MAX_OUTPUT_REGS];
    let out = &mut out[..out_regs];
    agpr::read_into(cx, d, c_at, out, wide)?;
    // Checked before any work, so that a fault leaves D as it was.
    agpr::rows(cx, d_at, out_regs)?;
    products(&s, modifiers, flush, (a, b), out);
    agpr::write(cx, d_at, out, u64::MAX)?;
    Ok(Flow::Continue)
}

// The shapes (M, N, K, blocks, input type) are the ISA table's (`gcn_isa::mfma`).
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes of the matrix ops that run, as [`Shape`]s, with their names.
    fn shapes() -> impl Iterator<Item = (&'static str, Shape)> {
        gcn_isa::all_ops()
            .iter()
            .filter(|info| {
                matches!(
                    super::super::op_semantics(info),
                    super::super::Semantics::Exec(_)
                )
            })
            .filter_map(|info| Some((info.name, info.op.mfma_shape().map(Shape::from)?)))
    }

    /// Every shape fits the operand buffers.
    #[test]
    fn every_shape_fits_the_buffers() {
        for (name, s) in shapes() {
            assert!(s.items_per_lane() <= MAX_ITEMS, "{name}");
            assert!(s.input_regs() <= MAX_INPUT_REGS, "{name}");
            assert!(s.output_regs() <= MAX_OUTPUT_REGS, "{name}");
        }
    }

    /// The lane loops read A and B through the inverse of [`Shape::input_at`]: for every matrix
    /// op, each (block, row, k) the layout names is the (item, lane) the inverse gives.
    #[test]
    fn lane_order_inverts_the_input_layout() {
        for (name, shape) in shapes() {
            let (m, kl) = (shape.m, shape.items_per_lane());
            for l in 0..WAVE_SIZE {
                let (i, rest) = (l % m, l / m);
                let (blk, k0) = (rest % shape.blocks, rest / shape.blocks * kl);
                for e in 0..kl {
                    assert_eq!(shape.input_at(blk, i, k0 + e), (e, l), "{name}");
                }
            }
        }
    }

    /// The vectorisable f16 conversion is the f16 module's on every value, and flushes exactly
    /// the denormals.
    #[test]
    fn f16_conversion_matches_on_every_value() {
        for h in 0..=u16::MAX {
            let want = super::super::f16::f16_to_f32(h);
            assert_eq!(
                f16_value(h as u32, false).to_bits(),
                want.to_bits(),
                "{h:#x}"
            );
            let flushed = if h & 0x7c00 == 0 {
                0.0f32.copysign(want)
            } else {
                want
            };
            assert_eq!(
                f16_value(h as u32, true).to_bits(),
                flushed.to_bits(),
                "{h:#x}"
            );
        }
    }

    /// `v`, or its signed zero if `flush` and it is a denormal.
    fn denormal_flushed(v: f32, flush: bool) -> f32 {
        if flush && v.is_subnormal() {
            0.0f32.copysign(v)
        } else {
            v
        }
    }

    /// Item `e` of `lane` in rows of `bits`-bit items.
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

    /// The module doc's arithmetic one result at a time, through [`Shape::input_at`] and
    /// [`Shape::output_at`]: f32 one FMA per k; f16 and bf16 (denormals flushed if `flush`)
    /// each pass's K_L products summed in f64 in k order, added to the accumulator in f64 and
    /// rounded once to f32; i8 summed and wrapped; f64 one FMA per k.
    fn reference(
        s: &Shape,
        [cbsz, abid, blgp]: [u32; 3],
        flush: bool,
        a: &[Row],
        b: &[Row],
        c: &[Row],
    ) -> Vec<Row> {
        let bits = s.input.bits() as usize;
        let kl = s.items_per_lane();
        let value = |raw: u64| -> f64 {
            match s.input {
                Input::F32 => f32::from_bits(raw as u32) as f64,
                Input::F16 | Input::Bf16 => {
                    let (exp_mask, v) = match s.input {
                        Input::Bf16 => (0x7f80, f32::from_bits((raw as u32) << 16)),
                        _ => (0x7c00, super::super::f16::f16_to_f32(raw as u16)),
                    };
                    if flush && raw as u16 & exp_mask == 0 {
                        0.0f64.copysign(v as f64)
                    } else {
                        v as f64
                    }
                }
                Input::I8 => raw as u8 as i8 as f64,
                Input::F64 => f64::from_bits(raw),
                Input::Xf32 | Input::Fp8 | Input::Bf8 => unreachable!("not run (see shapes)"),
            }
        };
        let mut out = c.to_vec();
        for blk in 0..s.blocks {
            let ablk = a_block(blk, s.blocks, cbsz, abid);
            for i in 0..s.m {
                for j in 0..s.n {
                    let av = |k| {
                        let (e, l) = s.input_at(ablk, i, k);
                        value(item(a, l, e, bits))
                    };
                    let bv = |k| {
                        let (e, l) = s.input_at(blk, j, k);
                        value(item(b, blgp_lane(l, blgp), e, bits))
                    };
                    let (oi, l) = s.output_at(blk, i, j);
                    match s.input {
                        Input::F32 => {
                            let mut acc = f32::from_bits(c[oi][l]);
                            for k in 0..s.k {
                                acc = (av(k) as f32).mul_add(bv(k) as f32, acc);
                            }
                            out[oi][l] = acc.to_bits();
                        }
                        Input::F16 | Input::Bf16 => {
                            let mut acc = denormal_flushed(f32::from_bits(c[oi][l]), flush);
                            for k0 in (0..s.k).step_by(kl) {
                                let mut sum = 0f64;
                                for k in k0..k0 + kl {
                                    sum += av(k) * bv(k);
                                }
                                acc = denormal_flushed((acc as f64 + sum) as f32, flush);
                            }
                            out[oi][l] = acc.to_bits();
                        }
                        Input::I8 => {
                            let sum: f64 = (0..s.k).map(|k| av(k) * bv(k)).sum();
                            out[oi][l] = c[oi][l].wrapping_add(sum as i64 as u32);
                        }
                        Input::F64 => {
                            let mut acc = f64::from_bits(
                                c[2 * oi][l] as u64 | (c[2 * oi + 1][l] as u64) << 32,
                            );
                            for k in 0..s.k {
                                acc = av(k).mul_add(bv(k), acc);
                            }
                            out[2 * oi][l] = acc.to_bits() as u32;
                            out[2 * oi + 1][l] = (acc.to_bits() >> 32) as u32;
                        }
                        Input::Xf32 | Input::Fp8 | Input::Bf8 => {
                            unreachable!("not run (see shapes)")
                        }
                    }
                }
            }
        }
        out
    }

    /// xorshift64*: the test's inputs, the same on every run.
    struct Rng(u64);

    /// Elements' formats: exponent and mantissa bits (exponent 0: an integer of 1 + mantissa
    /// bits, any bits).
    fn format(input: Input) -> (u32, u32) {
        match input {
            Input::F32 => (8, 23),
            Input::F16 => (5, 10),
            Input::Bf16 => (8, 7),
            Input::I8 => (0, 7),
            Input::F64 => (11, 52),
            Input::Xf32 | Input::Fp8 | Input::Bf8 => unreachable!("not run (see shapes)"),
        }
    }

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// An element: with `specials`, one in eight a zero, denormal, infinity or NaN and one
        /// in eight of the largest binade; a quarter any bits; the rest numbers from 1/8 to 8,
        /// so that sums cancel and round.
        fn element(&mut self, (exp_bits, man_bits): (u32, u32), specials: bool) -> u64 {
            let r = self.next();
            let bits = 1 + exp_bits + man_bits;
            let any = r & (u64::MAX >> (64 - bits));
            if exp_bits == 0 {
                return any;
            }
            let sign = (r >> 63) << (bits - 1);
            let exp_max = (1u64 << exp_bits) - 1;
            let man = (r >> 8) & ((1u64 << man_bits) - 1);
            let special = [
                0,
                1,
                man,
                exp_max << man_bits,
                exp_max << man_bits | man.max(1),
            ];
            match r % 8 {
                0 if specials => sign | special[(r >> 3) as usize % special.len()],
                1 if specials => sign | (exp_max - 1) << man_bits | man,
                2 | 3 => any,
                _ => sign | (exp_max / 2 - 3 + (r >> 40) % 7) << man_bits | man,
            }
        }

        /// `n` registers of elements of `input`'s format (`result`: of C's).
        fn rows(&mut self, n: usize, input: Input, result: bool, specials: bool) -> Vec<Row> {
            let (fmt, bits) = match (result, input) {
                (true, Input::I8) => ((0, 31), 32),
                (true, Input::F64) | (false, _) => (format(input), input.bits() as usize),
                (true, _) => (format(Input::F32), 32),
            };
            let mut rows = vec![[0u32; WAVE_SIZE]; n];
            for l in 0..WAVE_SIZE {
                for e in 0..n * 32 / bits {
                    let v = self.element(fmt, specials);
                    if bits == 64 {
                        rows[2 * e][l] = v as u32;
                        rows[2 * e + 1][l] = (v >> 32) as u32;
                    } else {
                        let per = 32 / bits;
                        rows[e / per][l] |= (v as u32) << (bits * (e % per));
                    }
                }
            }
            rows
        }
    }

    /// [`products`] gives the reference's bits on random inputs, special values included, for
    /// every op, with and without flushing and under random CBSZ/ABID/BLGP; and so does its
    /// loop for column counts not a multiple of 4.
    #[test]
    fn products_match_the_reference_on_random_inputs() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (name, s) in shapes() {
            for round in 0..40 {
                let specials = round % 4 >= 2;
                let a = rng.rows(s.input_regs(), s.input, false, specials);
                let b = rng.rows(s.input_regs(), s.input, false, specials);
                let c = rng.rows(s.output_regs(), s.input, true, specials);
                let r = rng.next();
                let modifiers = if round % 2 == 0 {
                    [0, 0, 0]
                } else {
                    [r as u32 & 7, (r >> 3) as u32 & 0xf, (r >> 7) as u32 & 7]
                };
                for flush in [false, true] {
                    let want = reference(&s, modifiers, flush, &a, &b, &c);
                    let mut got = c.clone();
                    products(&s, modifiers, flush, (&a, &b), &mut got);
                    // A column at a time, as an op with N not a multiple of 4 would run.
                    let mut by_one = c.clone();
                    products_by::<1>(&s, modifiers, flush, (&a, &b), &mut by_one);
                    assert!(by_one == want, "{name} {modifiers:?} flush {flush}, by one");
                    for (r, (g, w)) in got.iter().zip(&want).enumerate() {
                        for l in 0..WAVE_SIZE {
                            assert_eq!(
                                g[l], w[l],
                                "{name} {modifiers:?} flush {flush}: register {r} lane {l}"
                            );
                        }
                    }
                }
            }
        }
    }
}
