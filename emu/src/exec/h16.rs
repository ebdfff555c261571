//! What the 16-bit VALU ops share: half-word sources (VOP3 op_sel picks the high half on the
//! rows that have it), f16 input modifiers and denormal flushing (MODE FP_DENORM bits 7:6, shared
//! with f64), one rounding of an exact (f64) result to f16, and the gfx9 rules for the unused
//! half of the destination: most 16-bit ops zero it, while the op_sel rows (v_mad_f16, v_fma_f16,
//! v_mad_u16/i16, min3/max3/med3, div_fixup, add/sub_i16) and v_mac_f16 / v_madak_f16 /
//! v_madmk_f16 keep it, writing the half op_sel[3] names (as LLVM's
//! `GCNSubtarget::zeroesHigh16BitsOfDest` records for gfx9).

use super::valu::{denorm64, fetch, write, write_mask, Res};
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use crate::wave::{Row, WAVE_SIZE};
use gcn_isa::table::OP_SEL;
use gcn_isa::{Format, Op};
use half::slice::HalfFloatSliceExt;

pub type Row16 = [u16; WAVE_SIZE];
pub type RowF = [f64; WAVE_SIZE];

/// Does this row take op_sel (the gfx9 VOP3 16-bit ops that print it)?
#[inline]
pub fn has_opsel(d: &Decoded) -> bool {
    d.inst.format() == Format::Vop3 && d.inst.info().flags & OP_SEL != 0
}

/// Source `i` as 16-bit lane values: the low half, or the high half under op_sel[i].
#[inline]
pub fn fetch_h(cx: &Cx, d: &Decoded, i: usize) -> Row16 {
    let row = fetch(cx, d, i);
    let shift = if has_opsel(d) && d.mods.op_sel >> i & 1 != 0 {
        16
    } else {
        0
    };
    std::array::from_fn(|l| (row[l] >> shift) as u16)
}

/// f16 bits with abs/neg bit `i` of `abs`/`neg` applied.
#[inline]
pub fn mods16(h: u16, abs: u8, neg: u8, i: usize) -> u16 {
    let mut h = h;
    if abs >> i & 1 != 0 {
        h &= 0x7fff;
    }
    if neg >> i & 1 != 0 {
        h ^= 0x8000;
    }
    h
}

/// f16 bits to f64 (exact), flushing a denormal to ±0 when `flush`.
#[inline]
pub fn widen(h: u16, flush: bool) -> f64 {
    if flush && h & 0x7c00 == 0 {
        return if h & 0x8000 != 0 { -0.0 } else { 0.0 };
    }
    half::f16::from_bits(h).to_f64()
}

/// Source `i` as an f16 value (exact in f64) with input modifiers and MODE flushing.
#[inline]
pub fn fetch_hf(cx: &Cx, d: &Decoded, i: usize) -> RowF {
    let h = fetch_h(cx, d, i);
    let flush = denorm64(cx) & 1 == 0;
    std::array::from_fn(|l| widen(mods16(h[l], d.mods.abs, d.mods.neg, i), flush))
}

/// The VOP3 clamp modifier as MODE qualifies it: NaN clamps to 0 with DX10_CLAMP set and
/// stays NaN without.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clamp {
    Off,
    Dx10,
    KeepNan,
}

impl Clamp {
    pub fn of(cx: &Cx, d: &Decoded) -> Clamp {
        match (d.mods.clamp, super::valu::dx10_clamp(cx)) {
            (false, _) => Clamp::Off,
            (true, true) => Clamp::Dx10,
            (true, false) => Clamp::KeepNan,
        }
    }
}

/// Rounds an exact result to f16 once (nearest even), after omod and clamp; flushes an output
/// denormal when `flush`.
#[inline]
pub fn narrow(v: f64, omod: u8, clamp: Clamp, flush: bool) -> u16 {
    let mut v = v * [1.0, 2.0, 4.0, 0.5][omod as usize & 3];
    match clamp {
        Clamp::Off => {}
        Clamp::Dx10 if v.is_nan() => v = 0.0,
        Clamp::KeepNan if v.is_nan() => {}
        _ => v = v.clamp(0.0, 1.0),
    }
    let h = super::f16::f64_to_f16(v);
    if flush && h & 0x7c00 == 0 {
        h & 0x8000
    } else {
        h
    }
}

/// f16 results of all lanes with the instruction's output modifiers.
#[inline]
pub fn finish_hf(cx: &Cx, d: &Decoded, r: &RowF) -> Row16 {
    let flush = denorm64(cx) & 2 == 0;
    let clamp = Clamp::of(cx, d);
    std::array::from_fn(|l| narrow(r[l], d.mods.omod, clamp, flush))
}

/// Ops that keep the other half of the destination on gfx9 (outside the op_sel rows).
fn keeps_other_half(d: &Decoded) -> bool {
    matches!(
        d.inst.info().op,
        Op::V_MAC_F16 | Op::V_MADAK_F16 | Op::V_MADMK_F16
    )
}

/// Writes a 16-bit result row: into the half op_sel[3] names keeping the other (op_sel rows,
/// mac/madak/madmk), or zero-extended (with SDWA destination selection) otherwise.
#[inline]
pub fn write_h(cx: &mut Cx, d: &Decoded, vals: &Row16) {
    if has_opsel(d) || keeps_other_half(d) {
        let hi = has_opsel(d) && d.mods.op_sel & 8 != 0;
        let (shift, keep) = if hi { (16, 0xffff) } else { (0, 0xffff_0000) };
        let old = cx.wave.vgpr[d.vdst as usize];
        let out: Row = std::array::from_fn(|l| (old[l] & keep) | (vals[l] as u32) << shift);
        let mask = write_mask(cx, d);
        cx.wave.write_row(d.vdst as usize, &out, mask);
        return;
    }
    let out: Row = std::array::from_fn(|l| vals[l] as u32);
    write(cx, d, &out);
}

// ---- drivers ----

#[inline]
pub fn hf_1(cx: &mut Cx, d: &Decoded, f: impl Fn(f64) -> f64) -> Res {
    let a = fetch_hf(cx, d, 0);
    let r: RowF = std::array::from_fn(|l| f(a[l]));
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

#[inline]
pub fn hf_2(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, f64) -> f64) -> Res {
    let a = fetch_hf(cx, d, 0);
    let b = fetch_hf(cx, d, 1);
    let r: RowF = std::array::from_fn(|l| f(a[l], b[l]));
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

/// An f16 op of two sources that is one IEEE operation (+, −, ×), done in f32 a row at a time:
/// rounding its result to f32 and then to f16 gives the f16 that rounding the exact result once
/// gives, since f32 carries 24 ≥ 2·11 + 2 bits (Figueroa, "When is double rounding innocuous?",
/// SIGNUM Newsletter 30(3), 1995), and omod's powers of two and the clamp are exact in f32 as
/// in f64. The host's f16 conversions (F16C) then do a lane in an instruction, where [`hf_2`]
/// widens, rounds and narrows each lane in software. A row with a NaN source goes to [`hf_2`],
/// whose NaN rules are written out; `exact` is the op for it.
#[inline]
pub fn hf_2_f32(
    cx: &mut Cx,
    d: &Decoded,
    f: impl Fn(f32, f32) -> f32,
    exact: impl Fn(f64, f64) -> f64,
) -> Res {
    let flush_in = denorm64(cx) & 1 == 0;
    let source = |i: usize| -> Row16 {
        let h = fetch_h(cx, d, i);
        std::array::from_fn(|l| {
            let m = mods16(h[l], d.mods.abs, d.mods.neg, i);
            if flush_in && m & 0x7c00 == 0 {
                m & 0x8000
            } else {
                m
            }
        })
    };
    let (a, b) = (source(0), source(1));
    let nan = a
        .iter()
        .chain(&b)
        .fold(false, |n, &h| n | (h & 0x7fff > 0x7c00));
    if nan {
        return hf_2(cx, d, exact);
    }
    let rounding = Rounding {
        omod: [1.0, 2.0, 4.0, 0.5][d.mods.omod as usize & 3],
        clamp: Clamp::of(cx, d),
        flush: denorm64(cx) & 2 == 0,
    };
    // Whole rows through the host's conversions: F16C does eight lanes an instruction.
    let widen = |h: &Row16| {
        let mut out = [0f32; WAVE_SIZE];
        h.map(half::f16::from_bits).convert_to_f32_slice(&mut out);
        out
    };
    let (x, y) = (widen(&a), widen(&b));
    let r: [f32; WAVE_SIZE] = std::array::from_fn(|l| rounding.before(f(x[l], y[l])));
    let mut h = [half::f16::ZERO; WAVE_SIZE];
    h.convert_from_f32_slice(&r);
    let out: Row16 = h.map(|v| rounding.flushed(v.to_bits()));
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

/// What [`narrow`] does after the op, on an f32 result of [`hf_2_f32`].
#[derive(Clone, Copy)]
struct Rounding {
    omod: f32,
    clamp: Clamp,
    flush: bool,
}

impl Rounding {
    /// omod and the clamp, before the rounding to f16.
    #[inline]
    fn before(self, v: f32) -> f32 {
        let v = v * self.omod;
        match self.clamp {
            Clamp::Off => v,
            Clamp::Dx10 if v.is_nan() => 0.0,
            Clamp::KeepNan if v.is_nan() => v,
            _ => v.clamp(0.0, 1.0),
        }
    }

    /// MODE's output denormal flush, after it.
    #[inline]
    fn flushed(self, h: u16) -> u16 {
        if self.flush && h & 0x7c00 == 0 {
            h & 0x8000
        } else {
            h
        }
    }
}

#[inline]
pub fn hf_3(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, f64, f64) -> f64) -> Res {
    let a = fetch_hf(cx, d, 0);
    let b = fetch_hf(cx, d, 1);
    let c = fetch_hf(cx, d, 2);
    let r: RowF = std::array::from_fn(|l| f(a[l], b[l], c[l]));
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

/// An f16 op whose third input is the low half of the destination (v_mac_f16).
#[inline]
pub fn hf_acc(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, f64, f64) -> f64) -> Res {
    let a = fetch_hf(cx, d, 0);
    let b = fetch_hf(cx, d, 1);
    let flush = denorm64(cx) & 1 == 0;
    let c = cx.wave.vgpr[d.vdst as usize];
    let r: RowF = std::array::from_fn(|l| f(a[l], b[l], widen(c[l] as u16, flush)));
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(Flow::Continue)
}

/// f16 source, 16-bit integer result (conversions, frexp_exp).
#[inline]
pub fn hf_to_u16(cx: &mut Cx, d: &Decoded, f: impl Fn(f64) -> u16) -> Res {
    let a = fetch_hf(cx, d, 0);
    let r: Row16 = std::array::from_fn(|l| f(a[l]));
    write_h(cx, d, &r);
    Ok(Flow::Continue)
}

#[inline]
pub fn u16_2(cx: &mut Cx, d: &Decoded, f: impl Fn(u16, u16, bool) -> u16) -> Res {
    let a = fetch_h(cx, d, 0);
    let b = fetch_h(cx, d, 1);
    let clamp = d.mods.clamp;
    let r: Row16 = std::array::from_fn(|l| f(a[l], b[l], clamp));
    write_h(cx, d, &r);
    Ok(Flow::Continue)
}

#[inline]
pub fn u16_3(cx: &mut Cx, d: &Decoded, f: impl Fn(u16, u16, u16, bool) -> u16) -> Res {
    let a = fetch_h(cx, d, 0);
    let b = fetch_h(cx, d, 1);
    let c = fetch_h(cx, d, 2);
    let clamp = d.mods.clamp;
    let r: Row16 = std::array::from_fn(|l| f(a[l], b[l], c[l], clamp));
    write_h(cx, d, &r);
    Ok(Flow::Continue)
}

/// Two 16-bit sources and a 32-bit third source and result (v_mad_u32_u16, v_mad_i32_i16).
#[inline]
pub fn u16_u16_u32(cx: &mut Cx, d: &Decoded, f: impl Fn(u16, u16, u32, bool) -> u32) -> Res {
    let a = fetch_h(cx, d, 0);
    let b = fetch_h(cx, d, 1);
    let c = fetch(cx, d, 2);
    let clamp = d.mods.clamp;
    let r: Row = std::array::from_fn(|l| f(a[l], b[l], c[l], clamp));
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// Two f16 sources (with modifiers), a packed 32-bit result {hi: f(b), lo: f(a)}.
#[inline]
pub fn hf_pack(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, u16) -> u16) -> Res {
    let ha = fetch_h(cx, d, 0);
    let hb = fetch_h(cx, d, 1);
    let flush = denorm64(cx) & 1 == 0;
    let r: Row = std::array::from_fn(|l| {
        let a = mods16(ha[l], d.mods.abs, d.mods.neg, 0);
        let b = mods16(hb[l], d.mods.abs, d.mods.neg, 1);
        f(widen(a, flush), a) as u32 | (f(widen(b, flush), b) as u32) << 16
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

#[cfg(test)]
mod tests {
    use super::{hf_2, hf_2_f32};
    use crate::exec::program::Program;
    use crate::exec::{Cx, DispatchEnv};
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::{mode, Wave, WAVE_SIZE};
    use gcn_isa::{assemble, Target};

    type Op32 = fn(f32, f32) -> f32;
    type Op64 = fn(f64, f64) -> f64;

    /// f16 add, sub and mul done in f32 give, bit for bit, the f16 that one rounding of the
    /// exact (f64) result gives: random operands of every class (normals, subnormals, zeros,
    /// infinities near overflow; now and then a NaN, which takes the exact path), every input
    /// modifier, omod, clamp under both DX10_CLAMP settings, op_sel halves, SDWA, and each
    /// MODE denormal setting.
    #[test]
    fn f32_results_round_to_the_exact_f16() {
        let text = [
            "v_add_f16 v2, v0, v1",
            "v_sub_f16 v2, v0, v1",
            "v_subrev_f16 v2, v0, v1",
            "v_mul_f16 v2, v0, v1",
            "v_add_f16_e64 v2, -v0, |v1| mul:2 clamp",
            "v_mul_f16_e64 v2, v0, -v1 div:2",
            "v_sub_f16_e64 v2, |v0|, v1 mul:4",
            "v_mul_f16_e64 v2, v0, v1 clamp",
            "v_add_f16_sdwa v2, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0",
            "v_mul_f16_sdwa v2, v0, v1 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:WORD_1",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        let env = DispatchEnv::default();
        let (mut mem, mut lds) = (Memory::default(), Lds::new(0));
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        // An f16 of a class picked at random.
        let mut half = move || -> u32 {
            let r = next();
            let sign = (r as u32 & 1) << 15;
            let bits = match r >> 1 & 15 {
                0 => 0,
                1 => 0x7c00,
                2 => (r >> 8) as u32 % 0x400,
                3 => 0x7800 + (r >> 8) as u32 % 0x400,
                4 if r >> 40 & 255 == 0 => 0x7c01 + (r >> 8) as u32 % 0x3ff,
                5 => 0x3c00 + (r >> 8) as u32 % 0x40,
                _ => (r >> 8) as u32 % 0x7c00,
            };
            sign | bits
        };
        // Both halves, as op_sel and SDWA read either.
        let mut value = move || half() | half() << 16;
        let mut fast_rows = 0;
        for round in 0..20_000 {
            let name = text[round % text.len()];
            let d = &program.insts[round % text.len()];
            let mut wave = Wave::new(0);
            for l in 0..WAVE_SIZE {
                wave.vgpr[0][l] = value();
                wave.vgpr[1][l] = value();
                wave.vgpr[2][l] = value();
            }
            wave.mode = (round as u32 / text.len() as u32 % 4) << (mode::DENORM_SHIFT + 2)
                | if round / 40 % 2 == 0 {
                    mode::DX10_CLAMP
                } else {
                    0
                };
            wave.set_exec(u64::MAX);
            let mut exact = wave.clone();
            let ops: (Op32, Op64) = match name {
                n if n.starts_with("v_subrev") => (|a, b| b - a, |a, b| b - a),
                n if n.starts_with("v_sub") => (|a, b| a - b, |a, b| a - b),
                n if n.starts_with("v_mul") => (|a, b| a * b, |a, b| a * b),
                _ => (|a, b| a + b, |a, b| a + b),
            };
            let nan = (0..2).any(|r| {
                (0..WAVE_SIZE).any(|l| {
                    let v = wave.vgpr[r][l];
                    v & 0x7fff > 0x7c00 || v >> 16 & 0x7fff > 0x7c00
                })
            });
            fast_rows += !nan as u32;
            for (w, f32_path) in [(&mut wave, true), (&mut exact, false)] {
                let mut cx = Cx {
                    wave: w,
                    mem: &mut mem,
                    lds: &mut lds,
                    program: &program,
                    env: &env,
                };
                if f32_path {
                    hf_2_f32(&mut cx, d, ops.0, ops.1).unwrap();
                } else {
                    hf_2(&mut cx, d, ops.1).unwrap();
                }
            }
            assert_eq!(wave.vgpr[2], exact.vgpr[2], "{name}, MODE {:#x}", wave.mode);
        }
        assert!(fast_rows > 10_000, "{fast_rows} rows in f32");
    }
}
