//! D = A·B + C for every block, in place over the registers that hold C: the arithmetic of the
//! module doc ([`super`]). A row of results is N consecutive lanes of one item; the loops take
//! its columns W at a time, W a constant so that the compiler unrolls them into vector
//! operations with the sums in registers: the whole row for the ISA's N (4, 16, 32).

use super::elements::{bf16_value, f16_value, flushed, xf32_value};
use super::shape::{a_block, blgp_lane, sparse_b_item, Modifiers, Shape};
use crate::exec::fp8::fp8_to_f32;
use crate::wave::{Row, WAVE_SIZE};
use gcn_isa::MatrixInput as Input;

/// The most items of A or B a lane holds, and the most registers of A or B and of C (or D),
/// over the ISA table's shapes (a test checks): the operands are read into buffers of these
/// sizes on the stack rather than allocated per op.
pub const MAX_ITEMS: usize = 16;
pub const MAX_INPUT_REGS: usize = 4;
pub const MAX_OUTPUT_REGS: usize = 32;

/// A or B as the op reads it, item `e` of lane `l` at `[e][l]`: lane-major like the registers, so
/// that the B values of a row of results, like the results, are consecutive lanes.
type Items<T> = [[T; WAVE_SIZE]; MAX_ITEMS];

/// The registers an op reads: A, B, and a sparse op's indices (src2; empty for a dense op).
pub struct Sources<'a> {
    pub a: &'a [Row],
    pub b: &'a [Row],
    pub index: &'a [Row],
}

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

/// Items of a narrow float format (f16, bf16, xf32, fp8, bf8) as f64: every product of two is
/// exact there. The conversion is chosen once, not per element.
fn widen(out: &mut Items<f64>, rows: &[Row], kl: usize, input: Input, flush: bool) {
    match input {
        Input::F16 => items::<f64, 16>(out, rows, kl, |r| f16_value(r as u32, flush) as f64),
        Input::Bf16 => items::<f64, 16>(out, rows, kl, |r| bf16_value(r as u32, flush) as f64),
        Input::Xf32 => items::<f64, 32>(out, rows, kl, |r| xf32_value(r as u32) as f64),
        Input::Fp8 => items::<f64, 8>(out, rows, kl, |r| fp8_to_f32(r as u8, false) as f64),
        Input::Bf8 => items::<f64, 8>(out, rows, kl, |r| fp8_to_f32(r as u8, true) as f64),
        Input::F32 | Input::I8 | Input::F64 => {}
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

/// Negates items e < `kl` if `neg`.
fn negate(items: &mut Items<f64>, kl: usize, neg: bool) {
    if neg {
        for row in items.iter_mut().take(kl) {
            for v in row.iter_mut() {
                *v = -*v;
            }
        }
    }
}

/// Where a chunk of W results (block b, row i, columns j0..j0 + W) and its inputs are: D[b,i,j]
/// is item `item` of lane `lane + j - j0`; A's row is in lane `a_lane + a_step·p` for pass p
/// (the row of the block CBSZ/ABID give), B's columns from lane `b_lane + b_step·p`
/// ([`Shape::input_at`]).
struct ChunkAt {
    item: usize,
    lane: usize,
    a_lane: usize,
    b_lane: usize,
}

/// Calls `chunk` for every chunk of W results of every row of every block.
fn for_each_chunk<const W: usize>(s: &Shape, m: &Modifiers, mut chunk: impl FnMut(ChunkAt)) {
    for blk in 0..s.blocks {
        let ablk = a_block(blk, s.blocks, m.cbsz, m.abid);
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

/// The (A item, B item) pairs one pass of lane `a_lane`'s row multiplies: (e, e) for e < K_L
/// of a dense A; for a sparse A each stored item with the B item its index names.
struct Pairs {
    at: [(u8, u8); MAX_ITEMS],
    len: usize,
}

impl Pairs {
    fn of(s: &Shape, index: &[Row], shift: u32, a_lane: usize) -> Pairs {
        let mut at = [(0u8, 0u8); MAX_ITEMS];
        let len = s.a_items().min(MAX_ITEMS);
        let set = match (s.sparse, index.first()) {
            (true, Some(row)) => row.get(a_lane).map_or(0, |&r| r >> shift),
            _ => 0,
        };
        for (st, p) in at.iter_mut().enumerate().take(len) {
            let e = if s.sparse { sparse_b_item(st, set) } else { st };
            *p = (st as u8, e as u8);
        }
        Pairs { at, len }
    }

    fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.at[..self.len]
            .iter()
            .map(|&(a, b)| (a as usize, b as usize))
    }
}

/// An f32 result's bits, a NaN as the default quiet NaN: which of several NaN inputs a sum
/// carries depends on the order of evaluation, which the hardware does not publish and the
/// host's compiler may change; a fixed NaN keeps every result the same on every host.
#[inline(always)]
fn quiet_f32(v: f32) -> u32 {
    if v.is_nan() {
        0x7fc0_0000
    } else {
        v.to_bits()
    }
}

/// [`quiet_f32`] for an f64 result.
#[inline(always)]
fn quiet_f64(v: f64) -> u64 {
    if v.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        v.to_bits()
    }
}

/// Rows of results a dense narrow op computes together: each B value loaded serves this many
/// rows, and their sums (ROWS × W f64, 16 AVX registers for W = 32) stay in registers. Four
/// rows spill them, and run slower than one (the bench's GEMMs: 2 rows 263 ms and 370 ms for
/// the FP8 and f16 ones, 1 row 720 and 886, 4 rows 1,900 and 2,050).
const ROWS: usize = 2;

/// The narrow-float products of a dense op (f16, bf16, xf32, fp8, bf8; the arithmetic of
/// [`products_by`]), ROWS rows of W columns at a time: per pass, each row's K_L products in k
/// order into an f64 sum, added to the accumulator and rounded once.
fn narrow_dense<const W: usize>(
    s: &Shape,
    mods: &Modifiers,
    flush: bool,
    (a, b): (&Items<f64>, &Items<f64>),
    out: &mut [Row],
) {
    let kl = s.items_per_lane();
    let passes = s.k / kl;
    let (a_step, b_step) = (s.m * s.blocks, s.n * s.blocks);
    for blk in 0..s.blocks {
        let ablk = a_block(blk, s.blocks, mods.cbsz, mods.abid);
        for j0 in (0..s.n).step_by(W) {
            let b_lane = s.n * blk + j0;
            for i0 in (0..s.m).step_by(ROWS) {
                let at: [(usize, usize); ROWS] =
                    std::array::from_fn(|r| s.output_at(blk, i0 + r, j0));
                let mut acc = [[0f32; W]; ROWS];
                for (r, &(item, lane)) in at.iter().enumerate() {
                    let Some(d) = results::<W>(out, item, lane) else {
                        return;
                    };
                    for j in 0..W {
                        acc[r][j] = flushed(f32::from_bits(d[j]), flush);
                    }
                }
                let a_lane = i0 + s.m * ablk;
                for p in 0..passes {
                    let mut sums = [[0f64; W]; ROWS];
                    for e in 0..kl {
                        let Some(y) = columns::<f64, W>(b, e, b_lane + b_step * p) else {
                            return;
                        };
                        let Some(x) = a[e]
                            .get(a_lane + a_step * p..)
                            .and_then(|x| x.first_chunk::<ROWS>())
                        else {
                            return;
                        };
                        for r in 0..ROWS {
                            for j in 0..W {
                                sums[r][j] += x[r] * y[j];
                            }
                        }
                    }
                    for r in 0..ROWS {
                        for j in 0..W {
                            acc[r][j] = flushed((acc[r][j] as f64 + sums[r][j]) as f32, flush);
                        }
                    }
                }
                for (r, &(item, lane)) in at.iter().enumerate() {
                    if let Some(d) = results::<W>(out, item, lane) {
                        for j in 0..W {
                            d[j] = quiet_f32(acc[r][j]);
                        }
                    }
                }
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

/// D = A·B + C for every block, in `out` (which holds C).
pub fn products(s: &Shape, mods: &Modifiers, flush: bool, src: &Sources, out: &mut [Row]) {
    match s.n {
        32 => products_by::<32>(s, mods, flush, src, out),
        16 => products_by::<16>(s, mods, flush, src, out),
        n if n % 4 == 0 => products_by::<4>(s, mods, flush, src, out),
        _ => products_by::<1>(s, mods, flush, src, out),
    }
}

/// [`products`], a row's columns taken W at a time.
pub(super) fn products_by<const W: usize>(
    s: &Shape,
    mods: &Modifiers,
    flush: bool,
    src: &Sources,
    out: &mut [Row],
) {
    let kl = s.items_per_lane();
    let ka = s.a_items();
    let passes = s.k / kl;
    let (a_step, b_step) = (s.m * s.blocks, s.n * s.blocks);
    let shift = mods.index_shift(s);
    match s.input {
        Input::F32 => {
            let (mut a, mut b) = (
                [[0f32; WAVE_SIZE]; MAX_ITEMS],
                [[0f32; WAVE_SIZE]; MAX_ITEMS],
            );
            items::<f32, 32>(&mut a, src.a, kl, |r| f32::from_bits(r as u32));
            items::<f32, 32>(&mut b, src.b, kl, |r| f32::from_bits(r as u32));
            apply_blgp(&mut b, kl, mods.blgp);
            for_each_chunk::<W>(s, mods, |at| {
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
                    d[j] = quiet_f32(acc[j]);
                }
            });
        }
        Input::F16 | Input::Bf16 | Input::Xf32 | Input::Fp8 | Input::Bf8 => {
            let (mut a, mut b) = (
                [[0f64; WAVE_SIZE]; MAX_ITEMS],
                [[0f64; WAVE_SIZE]; MAX_ITEMS],
            );
            widen(&mut a, src.a, ka, s.input, flush);
            widen(&mut b, src.b, kl, s.b_input, flush);
            apply_blgp(&mut b, kl, mods.blgp);
            if !s.sparse && s.m.is_multiple_of(ROWS) {
                narrow_dense::<W>(s, mods, flush, (&a, &b), out);
                return;
            }
            for_each_chunk::<W>(s, mods, |at| {
                let Some(d) = results::<W>(out, at.item, at.lane) else {
                    return;
                };
                let mut acc = [0f32; W];
                for j in 0..W {
                    acc[j] = flushed(f32::from_bits(d[j]), flush);
                }
                // Each pass's products, exact, summed in k order and added once.
                for p in 0..passes {
                    let a_lane = at.a_lane + a_step * p;
                    let mut sums = [0f64; W];
                    for (ea, eb) in Pairs::of(s, src.index, shift, a_lane).iter() {
                        let x = a[ea][a_lane];
                        let Some(y) = columns::<f64, W>(&b, eb, at.b_lane + b_step * p) else {
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
                    d[j] = quiet_f32(acc[j]);
                }
            });
        }
        Input::I8 => {
            let (mut a, mut b) = (
                [[0i32; WAVE_SIZE]; MAX_ITEMS],
                [[0i32; WAVE_SIZE]; MAX_ITEMS],
            );
            items::<i32, 8>(&mut a, src.a, ka, |r| r as u8 as i8 as i32);
            items::<i32, 8>(&mut b, src.b, kl, |r| r as u8 as i8 as i32);
            apply_blgp(&mut b, kl, mods.blgp);
            for_each_chunk::<W>(s, mods, |at| {
                let Some(d) = results::<W>(out, at.item, at.lane) else {
                    return;
                };
                // Products and their sum are exact in i32 (|Σ| < 2^21); the result wraps.
                let mut sums = [0i32; W];
                for p in 0..passes {
                    let a_lane = at.a_lane + a_step * p;
                    for (ea, eb) in Pairs::of(s, src.index, shift, a_lane).iter() {
                        let x = a[ea][a_lane];
                        let Some(y) = columns::<i32, W>(&b, eb, at.b_lane + b_step * p) else {
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
            items::<f64, 64>(&mut a, src.a, kl, f64::from_bits);
            items::<f64, 64>(&mut b, src.b, kl, f64::from_bits);
            apply_blgp(&mut b, kl, mods.blgp);
            negate(&mut a, kl, mods.neg[0]);
            negate(&mut b, kl, mods.neg[1]);
            for_each_chunk::<W>(s, mods, |at| {
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
                    let c = f64::from_bits(lo[j] as u64 | (hi[j] as u64) << 32);
                    acc[j] = if mods.neg[2] { -c } else { c };
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
                    let bits = quiet_f64(acc[j]);
                    lo[j] = bits as u32;
                    hi[j] = (bits >> 32) as u32;
                }
            });
        }
    }
}
