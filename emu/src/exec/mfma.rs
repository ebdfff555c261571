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

use super::agpr::{self, Operand};
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::program::Decoded;
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

/// A and B of every block as plain numbers, each exactly as the op reads it (f32, f16 and bf16
/// widened, denormals flushed where `flush` says; i8 as integers; f64 as is): A by the block that
/// holds it, row and k; B by block, k and column (BLGP applied), so that a row of results is a
/// loop over contiguous columns the compiler vectorises. Read lane by lane: lane l holds items
/// e < K_L of row (column) l % M of block (l / M) % blocks at k = K_L·(l / (M·blocks)) + e
/// ([`Shape::input_at`] backwards; M = N for every matrix op).
fn unpack(s: &Shape, blgp: u32, flush: bool, a: &[Row], b: &[Row]) -> (Vec<f64>, Vec<f64>) {
    // One loop per element type, so that the conversion is not chosen per element.
    match s.input {
        Input::F32 => unpack_as::<32>(s, blgp, a, b, |r| f32::from_bits(r as u32) as f64),
        Input::F16 | Input::Bf16 if flush => {
            unpack_as::<16>(s, blgp, a, b, |r| half_to_f32(r, s.input, true) as f64)
        }
        Input::F16 => unpack_as::<16>(s, blgp, a, b, |r| super::f16::f16_to_f32(r as u16) as f64),
        Input::Bf16 => unpack_as::<16>(s, blgp, a, b, |r| f32::from_bits((r as u32) << 16) as f64),
        Input::I8 => unpack_as::<8>(s, blgp, a, b, |r| r as u8 as i8 as f64),
        Input::F64 => unpack_as::<64>(s, blgp, a, b, f64::from_bits),
    }
}

fn unpack_as<const BITS: usize>(
    s: &Shape,
    blgp: u32,
    a: &[Row],
    b: &[Row],
    value: impl Fn(u64) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    let (m, n, k, blocks) = (s.m, s.n, s.k, s.blocks);
    let kl = s.items_per_lane();
    let mut am = vec![0f64; blocks * m * k];
    let mut bm = vec![0f64; blocks * k * n];
    for l in 0..WAVE_SIZE {
        let (i, rest) = (l % m, l / m);
        let (blk, k0) = (rest % blocks, rest / blocks * kl);
        let b_lane = blgp_lane(l, blgp);
        for e in 0..kl {
            am[(blk * m + i) * k + k0 + e] = value(item(a, l, e, BITS));
            bm[(blk * k + k0 + e) * n + i] = value(item(b, b_lane, e, BITS));
        }
    }
    (am, bm)
}

/// D = A·B + C for every block, into `out` (which holds C): the arithmetic of [`mfma`]'s doc, a
/// row of results at a time.
fn products(
    s: &Shape,
    modifiers: [u32; 3],
    flush: bool,
    (a, b, c): (&[Row], &[Row], &[Row]),
    out: &mut [Row],
) {
    let (m, n, k) = (s.m, s.n, s.k);
    let kl = s.items_per_lane();
    let [cbsz, abid, blgp] = modifiers;
    let (am, bm) = unpack(s, blgp, flush, a, b);
    let mut acc32 = [0f32; WAVE_SIZE];
    let mut acc64 = [0f64; WAVE_SIZE];
    let mut sums = [0f64; WAVE_SIZE];
    for blk in 0..s.blocks {
        let bblk = &bm[blk * k * n..(blk + 1) * k * n];
        for i in 0..m {
            // CBSZ/ABID: the block takes the A of the block it broadcasts.
            let ablk = a_block(blk, s.blocks, cbsz, abid);
            let arow = &am[(ablk * m + i) * k..(ablk * m + i + 1) * k];
            // The columns of one row of D are consecutive lanes of one item.
            let (oi, lane0) = s.output_at(blk, i, 0);
            let lanes = lane0..lane0 + n;
            match s.input {
                Input::F32 => {
                    for (acc, &cv) in acc32.iter_mut().zip(&c[oi][lanes.clone()]) {
                        *acc = f32::from_bits(cv);
                    }
                    for (kk, &x) in arow.iter().enumerate() {
                        let x = x as f32;
                        for (acc, &y) in acc32[..n].iter_mut().zip(&bblk[kk * n..(kk + 1) * n]) {
                            *acc = x.mul_add(y as f32, *acc);
                        }
                    }
                    for (o, acc) in out[oi][lanes].iter_mut().zip(&acc32) {
                        *o = acc.to_bits();
                    }
                }
                Input::F16 | Input::Bf16 => {
                    for (acc, &cv) in acc32.iter_mut().zip(&c[oi][lanes.clone()]) {
                        *acc = flushed(f32::from_bits(cv), flush);
                    }
                    // Each pass's K_L products, exact, summed in k order and added once.
                    for k0 in (0..k).step_by(kl) {
                        sums[..n].fill(0.0);
                        for kk in k0..k0 + kl {
                            let x = arow[kk];
                            for (sum, &y) in sums[..n].iter_mut().zip(&bblk[kk * n..(kk + 1) * n]) {
                                *sum += x * y;
                            }
                        }
                        for (acc, &sum) in acc32[..n].iter_mut().zip(&sums) {
                            *acc = flushed((*acc as f64 + sum) as f32, flush);
                        }
                    }
                    for (o, acc) in out[oi][lanes].iter_mut().zip(&acc32) {
                        *o = acc.to_bits();
                    }
                }
                Input::I8 => {
                    // Products and their sum are exact in f64 (|Σ| < 2^21); the i32 result wraps.
                    sums[..n].fill(0.0);
                    for (kk, &x) in arow.iter().enumerate() {
                        for (sum, &y) in sums[..n].iter_mut().zip(&bblk[kk * n..(kk + 1) * n]) {
                            *sum += x * y;
                        }
                    }
                    for ((o, &cv), &sum) in out[oi][lanes.clone()]
                        .iter_mut()
                        .zip(&c[oi][lanes])
                        .zip(&sums)
                    {
                        *o = cv.wrapping_add(sum as i64 as u32);
                    }
                }
                Input::F64 => {
                    for (j, acc) in acc64[..n].iter_mut().enumerate() {
                        let l = lane0 + j;
                        *acc =
                            f64::from_bits(c[2 * oi][l] as u64 | (c[2 * oi + 1][l] as u64) << 32);
                    }
                    for (kk, &x) in arow.iter().enumerate() {
                        for (acc, &y) in acc64[..n].iter_mut().zip(&bblk[kk * n..(kk + 1) * n]) {
                            *acc = x.mul_add(y, *acc);
                        }
                    }
                    for (j, acc) in acc64[..n].iter().enumerate() {
                        let bits = acc.to_bits();
                        out[2 * oi][lane0 + j] = bits as u32;
                        out[2 * oi + 1][lane0 + j] = (bits >> 32) as u32;
                    }
                }
            }
        }
    }
}

/// Runs a matrix op, of the shape the ISA table gives it.
fn mfma(cx: &mut Cx, d: &Decoded) -> Res {
    let Some(s) = d.inst.info().op.mfma_shape().map(Shape::from) else {
        return Err(Fault::Unsupported(
            "a matrix op without a shape in the ISA table",
        ));
    };
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
    let mut out = c.clone();
    products(&s, [cbsz, abid, blgp], flush, (&a, &b, &c), &mut out);
    agpr::write(cx, d_at, &out, u64::MAX)?;
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

    /// `unpack` reads A and B lane by lane through the inverse of [`Shape::input_at`]: for every
    /// matrix op, each (block, row, k) the layout names is the (item, lane) the inverse gives.
    #[test]
    fn lane_order_inverts_the_input_layout() {
        for info in gcn_isa::all_ops() {
            let Some(shape) = info.op.mfma_shape().map(Shape::from) else {
                continue;
            };
            let (m, kl) = (shape.m, shape.items_per_lane());
            for l in 0..WAVE_SIZE {
                let (i, rest) = (l % m, l / m);
                let (blk, k0) = (rest % shape.blocks, rest / shape.blocks * kl);
                for e in 0..kl {
                    assert_eq!(shape.input_at(blk, i, k0 + e), (e, l), "{}", info.name);
                }
            }
        }
    }
}
