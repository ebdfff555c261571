use super::elements::{f16_value, xf32_value};
use super::products::{products, products_by, Sources, MAX_INPUT_REGS, MAX_ITEMS, MAX_OUTPUT_REGS};
use super::shape::{a_block, blgp_lane, Modifiers, Shape};
use crate::exec::fp8::fp8_to_f32;
use crate::exec::{op_semantics, Semantics};
use crate::wave::{Row, WAVE_SIZE};
use gcn_isa::MatrixInput as Input;

/// The shapes of the matrix ops that run, as [`Shape`]s, with their names.
fn shapes() -> impl Iterator<Item = (&'static str, Shape)> {
    gcn_isa::all_ops()
        .iter()
        .filter(|info| matches!(op_semantics(info), Semantics::Exec(_)))
        .filter_map(|info| Some((info.name, info.op.mfma_shape().map(Shape::from)?)))
}

/// Every matrix op of the table runs.
#[test]
fn every_matrix_op_runs() {
    let all = gcn_isa::all_ops()
        .iter()
        .filter(|i| i.op.mfma_shape().is_some())
        .count();
    assert_eq!(shapes().count(), all);
}

/// Every shape fits the operand buffers.
#[test]
fn every_shape_fits_the_buffers() {
    for (name, s) in shapes() {
        assert!(s.items_per_lane() <= MAX_ITEMS, "{name}");
        assert!(s.a_regs().max(s.b_regs()) <= MAX_INPUT_REGS, "{name}");
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
        let want = crate::exec::f16::f16_to_f32(h);
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

/// An FNUZ 8-bit float from its fields, the textbook way: (-1)^s · 2^(e - bias) · (1.m), or
/// 2^(1 - bias) · (0.m) for e = 0; 0x80 a NaN.
fn f8_reference(byte: u8, bf8: bool) -> f64 {
    let (mb, bias) = if bf8 { (2, 16) } else { (3, 8) };
    if byte == 0x80 {
        return f64::NAN;
    }
    let e = ((byte & 0x7f) >> mb) as i32;
    let m = (byte & ((1 << mb) - 1)) as f64 / (1 << mb) as f64;
    let v = if e == 0 {
        m * 2f64.powi(1 - bias)
    } else {
        (1.0 + m) * 2f64.powi(e - bias)
    };
    if byte & 0x80 != 0 {
        -v
    } else {
        v
    }
}

/// All 256 values of both formats, and their extremes as MI300's formats define them: FP8
/// ±240 and 2^-10, BF8 ±57344 and 2^-17, one NaN.
#[test]
fn f8_values_are_the_fnuz_formats() {
    for bf8 in [false, true] {
        for b in 0..=255u8 {
            let (got, want) = (fp8_to_f32(b, bf8), f8_reference(b, bf8));
            if want.is_nan() {
                assert_eq!(got.to_bits(), 0x7fc0_0000);
            } else {
                assert_eq!(got as f64, want, "{b:#x} bf8 {bf8}");
            }
        }
    }
    assert_eq!(fp8_to_f32(0x7f, false), 240.0);
    assert_eq!(fp8_to_f32(0xff, false), -240.0);
    assert_eq!(fp8_to_f32(0x01, false), 2f32.powi(-10));
    assert_eq!(fp8_to_f32(0x7f, true), 57344.0);
    assert_eq!(fp8_to_f32(0x01, true), 2f32.powi(-17));
    assert_eq!(fp8_to_f32(0x00, true), 0.0);
}

/// xf32 keeps the top 19 bits of an f32 and cuts the rest; NaNs stay NaNs.
#[test]
fn xf32_truncates_toward_zero() {
    assert_eq!(xf32_value(0x3f80_1fff).to_bits(), 0x3f80_0000);
    assert_eq!(xf32_value(0xbf80_3fff).to_bits(), 0xbf80_2000);
    assert_eq!(xf32_value(0x0000_1fff).to_bits(), 0);
    assert_eq!(xf32_value(0x7f80_0000), f32::INFINITY);
    assert!(xf32_value(0x7f80_0001).is_nan());
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

/// `v`, or its signed zero if `flush` and it is a denormal.
fn denormal_flushed(v: f32, flush: bool) -> f32 {
    if flush && v.is_subnormal() {
        0.0f32.copysign(v)
    } else {
        v
    }
}

/// An element's value from its bits, as the module doc defines each format.
fn value(input: Input, raw: u64, flush: bool) -> f64 {
    match input {
        Input::F32 => f32::from_bits(raw as u32) as f64,
        Input::Xf32 => {
            let v = f32::from_bits(raw as u32);
            if v.is_nan() {
                f32::from_bits(raw as u32 | 0x40_0000) as f64
            } else {
                f32::from_bits(raw as u32 & !0x1fff) as f64
            }
        }
        Input::F16 | Input::Bf16 => {
            let (exp_mask, v) = match input {
                Input::Bf16 => (0x7f80, f32::from_bits((raw as u32) << 16)),
                _ => (0x7c00, crate::exec::f16::f16_to_f32(raw as u16)),
            };
            if flush && raw as u16 & exp_mask == 0 {
                0.0f64.copysign(v as f64)
            } else {
                v as f64
            }
        }
        Input::Fp8 => f8_reference(raw as u8, false),
        Input::Bf8 => f8_reference(raw as u8, true),
        Input::I8 => raw as u8 as i8 as f64,
        Input::F64 => f64::from_bits(raw),
    }
}

/// The module doc's arithmetic one result at a time, through [`Shape::input_at`] and
/// [`Shape::output_at`]: f32 one FMA per k; narrow floats (denormals flushed if `flush`) each
/// pass's products summed in f64 in k order, added to the accumulator in f64 and rounded once
/// to f32; i8 summed and wrapped; f64 one FMA per k. A sparse op's products are those of A's
/// kept elements, each at the k its two index bits give.
fn reference(
    s: &Shape,
    mods: &Modifiers,
    flush: bool,
    (a, b, index): (&[Row], &[Row], &[Row]),
    c: &[Row],
) -> Vec<Row> {
    let (a_bits, b_bits) = (s.input.bits() as usize, s.b_input.bits() as usize);
    let kl = s.items_per_lane();
    let neg = |v: f64, on: bool| if on { -v } else { v };
    let mut out = c.to_vec();
    for blk in 0..s.blocks {
        let ablk = a_block(blk, s.blocks, mods.cbsz, mods.abid);
        for i in 0..s.m {
            for j in 0..s.n {
                let bv = |k: usize| {
                    let (e, l) = s.input_at(blk, j, k);
                    neg(
                        value(
                            s.b_input,
                            item(b, blgp_lane(l, mods.blgp), e, b_bits),
                            flush,
                        ),
                        mods.neg[1],
                    )
                };
                // The products of each pass (k from pass·K_L), in k order.
                let pass_products = |pass: usize| -> Vec<f64> {
                    if !s.sparse {
                        return (pass * kl..(pass + 1) * kl)
                            .map(|k| {
                                let (e, l) = s.input_at(ablk, i, k);
                                neg(value(s.input, item(a, l, e, a_bits), flush), mods.neg[0])
                                    * bv(k)
                            })
                            .collect();
                    }
                    let lane = i + s.m * pass;
                    let sets = 32 / (kl as u32);
                    let shift = if mods.cbsz == 0 {
                        (mods.abid % sets) * kl as u32
                    } else {
                        0
                    };
                    let set = index[0][lane] >> shift;
                    (0..kl / 2)
                        .map(|st| {
                            let group = st / 2;
                            let place = (set >> (2 * st)) as usize & 3;
                            let k = pass * kl + 4 * group + place;
                            value(s.input, item(a, lane, st, a_bits), flush) * bv(k)
                        })
                        .collect()
                };
                let (oi, l) = s.output_at(blk, i, j);
                let passes = s.k / kl;
                match s.input {
                    Input::F32 => {
                        let mut acc = f32::from_bits(c[oi][l]);
                        for k in 0..s.k {
                            let (e, la) = s.input_at(ablk, i, k);
                            let x = value(s.input, item(a, la, e, a_bits), flush) as f32;
                            acc = x.mul_add(bv(k) as f32, acc);
                        }
                        out[oi][l] = acc.to_bits();
                    }
                    Input::I8 => {
                        let sum: f64 = (0..passes).flat_map(pass_products).sum();
                        out[oi][l] = c[oi][l].wrapping_add(sum as i64 as u32);
                    }
                    Input::F64 => {
                        let mut acc = neg(
                            f64::from_bits(c[2 * oi][l] as u64 | (c[2 * oi + 1][l] as u64) << 32),
                            mods.neg[2],
                        );
                        for k in 0..s.k {
                            let (e, la) = s.input_at(ablk, i, k);
                            let x = neg(value(s.input, item(a, la, e, a_bits), flush), mods.neg[0]);
                            acc = x.mul_add(bv(k), acc);
                        }
                        out[2 * oi][l] = acc.to_bits() as u32;
                        out[2 * oi + 1][l] = (acc.to_bits() >> 32) as u32;
                    }
                    _ => {
                        let mut acc = denormal_flushed(f32::from_bits(c[oi][l]), flush);
                        for pass in 0..passes {
                            let sum = pass_products(pass).iter().fold(0f64, |s, p| s + p);
                            acc = denormal_flushed((acc as f64 + sum) as f32, flush);
                        }
                        out[oi][l] = acc.to_bits();
                    }
                }
            }
        }
    }
    // A NaN result is the default quiet NaN (see `products`).
    let f64_results = s.input == Input::F64;
    for row in out.chunks_mut(2) {
        if f64_results {
            if let [lo, hi] = row {
                for l in 0..WAVE_SIZE {
                    if f64::from_bits(lo[l] as u64 | (hi[l] as u64) << 32).is_nan() {
                        (lo[l], hi[l]) = (0, 0x7ff8_0000);
                    }
                }
            }
        } else if s.input != Input::I8 {
            for v in row.iter_mut().flatten() {
                if f32::from_bits(*v).is_nan() {
                    *v = 0x7fc0_0000;
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
        Input::F32 | Input::Xf32 => (8, 23),
        Input::F16 => (5, 10),
        Input::Bf16 => (8, 7),
        Input::Fp8 => (4, 3),
        Input::Bf8 => (5, 2),
        Input::I8 => (0, 7),
        Input::F64 => (11, 52),
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
/// every op, with and without flushing and under random CBSZ/ABID/BLGP (and, for the f64
/// ops, negation; for the sparse ops random indices); and so does its loop for column counts
/// not a multiple of 4.
#[test]
fn products_match_the_reference_on_random_inputs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, s) in shapes() {
        for round in 0..40 {
            let specials = round % 4 >= 2;
            let a = rng.rows(s.a_regs(), s.input, false, specials);
            let b = rng.rows(s.b_regs(), s.b_input, false, specials);
            let c = rng.rows(s.output_regs(), s.input, true, specials);
            let index: Vec<Row> = if s.sparse {
                let mut row = [0u32; WAVE_SIZE];
                row.iter_mut().for_each(|v| *v = rng.next() as u32);
                vec![row]
            } else {
                Vec::new()
            };
            let r = rng.next();
            let mods = if round % 2 == 0 {
                Modifiers::default()
            } else {
                let neg = s.input == Input::F64 && r & (1 << 20) != 0;
                Modifiers {
                    cbsz: r as u32 & 7,
                    abid: (r >> 3) as u32 & 0xf,
                    blgp: if neg || s.sparse {
                        0
                    } else {
                        (r >> 7) as u32 & 7
                    },
                    neg: [
                        neg && r & (1 << 21) != 0,
                        neg && r & (1 << 22) != 0,
                        neg && r & (1 << 23) != 0,
                    ],
                }
            };
            let src = Sources {
                a: &a,
                b: &b,
                index: &index,
            };
            for flush in [false, true] {
                let want = reference(&s, &mods, flush, (&a, &b, &index), &c);
                let mut got = c.clone();
                products(&s, &mods, flush, &src, &mut got);
                // A column at a time, as an op with N not a multiple of 4 would run.
                let mut by_one = c.clone();
                products_by::<1>(&s, &mods, flush, &src, &mut by_one);
                if by_one != want {
                    let (r, l) = (0..want.len())
                        .flat_map(|r| (0..WAVE_SIZE).map(move |l| (r, l)))
                        .find(|&(r, l)| by_one[r][l] != want[r][l])
                        .unwrap_or_default();
                    panic!(
                        "{name} {mods:?} flush {flush}, by one: register {r} lane {l}: {:#x} != {:#x} (by W: {:#x})",
                        by_one[r][l], want[r][l], got[r][l]
                    );
                }
                for (r, (g, w)) in got.iter().zip(&want).enumerate() {
                    for l in 0..WAVE_SIZE {
                        assert_eq!(
                            g[l], w[l],
                            "{name} {mods:?} flush {flush}: register {r} lane {l}"
                        );
                    }
                }
            }
        }
    }
}
