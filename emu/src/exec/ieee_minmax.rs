//! The float min/max family (f32, f64, f16: min, max, min3, max3, med3) and how MODE.IEEE
//! (bit 9) changes it. The ISA: with IEEE set, "min_dx10 and
//! max_dx10 become IEEE 754-2008 compliant due to signaling NaN propagation and quieting": a
//! signaling NaN source makes the result that NaN, quieted. With IEEE clear, and for quiet NaNs
//! always, a NaN loses to a number (minNum/maxNum). med3 with a NaN source is min3 (§ V_MED3),
//! so it follows the same rule. (f16 and packed-f16 min/max keep the IEEE-clear behaviour.)

use super::valu::{self, Res};
use super::Cx;
use crate::exec::program::Decoded;
use crate::wave::mode;

fn ieee(cx: &Cx) -> bool {
    cx.wave.mode & mode::IEEE != 0
}

/// The first signaling NaN of `srcs`, quieted, if IEEE mode is on.
fn snan32(ieee: bool, srcs: &[f32]) -> Option<f32> {
    let s = srcs
        .iter()
        .find(|v| v.is_nan() && v.to_bits() & 0x0040_0000 == 0)?;
    ieee.then(|| super::fp::quiet32(*s))
}

fn snan64(ieee: bool, srcs: &[f64]) -> Option<f64> {
    let s = srcs
        .iter()
        .find(|v| v.is_nan() && v.to_bits() & 0x0008_0000_0000_0000 == 0)?;
    ieee.then(|| super::fp::quiet64(*s))
}

macro_rules! f32_ops {
    ($($name:ident: $driver:ident |$($a:ident),+| $body:expr;)*) => {
        $(fn $name(cx: &mut Cx, d: &Decoded) -> Res {
            let ieee = ieee(cx);
            valu::$driver(cx, d, |$($a),+| snan32(ieee, &[$($a),+]).unwrap_or_else(|| $body))
        })*
    };
}

macro_rules! f64_ops {
    ($($name:ident: $driver:ident |$($a:ident),+| $body:expr;)*) => {
        $(fn $name(cx: &mut Cx, d: &Decoded) -> Res {
            let ieee = ieee(cx);
            valu::$driver(cx, d, |$($a),+| snan64(ieee, &[$($a),+]).unwrap_or_else(|| $body))
        })*
    };
}

use super::fp;

f32_ops! {
    v_min_f32: f32_2 |a, b| fp::min_f32(a, b);
    v_max_f32: f32_2 |a, b| fp::max_f32(a, b);
    v_min3_f32: f32_3 |a, b, c| fp::min_f32(fp::min_f32(a, b), c);
    v_max3_f32: f32_3 |a, b, c| fp::max_f32(fp::max_f32(a, b), c);
    v_med3_f32: f32_3 |a, b, c| fp::med3_f32(a, b, c);
}

f64_ops! {
    v_min_f64: f64_2 |a, b| fp::min_f64(a, b);
    v_max_f64: f64_2 |a, b| fp::max_f64(a, b);
}

/// An f16 min/max-family op: `f` on the widened sources unless IEEE mode is on and a source
/// is a signaling NaN, which then comes out quieted.
fn hf_op(cx: &mut Cx, d: &Decoded, n: usize, f: fn(&[f64]) -> f64) -> Res {
    use super::h16::{fetch_h, finish_hf, mods16, widen, write_h, RowF};
    let ieee = ieee(cx);
    let flush = super::valu::denorm64(cx) & 1 == 0;
    let raw: [[u16; 64]; 3] = std::array::from_fn(|i| {
        if i < n {
            let h = fetch_h(cx, d, i);
            std::array::from_fn(|l| mods16(h[l], d.mods.abs, d.mods.neg, i))
        } else {
            [0; 64]
        }
    });
    let r: RowF = std::array::from_fn(|l| {
        let snan = (0..n)
            .map(|i| raw[i][l])
            .find(|h| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 && h & 0x200 == 0);
        match snan {
            // Quieted, payload kept: widening sets the quiet bit and narrowing keeps it.
            Some(h) if ieee => widen(h, false),
            _ => {
                let v: [f64; 3] = std::array::from_fn(|i| widen(raw[i][l], flush));
                f(&v[..n])
            }
        }
    });
    let out = finish_hf(cx, d, &r);
    write_h(cx, d, &out);
    Ok(super::Flow::Continue)
}

fn v_min_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_op(cx, d, 2, |v| fp::min_f64(v[0], v[1]))
}
fn v_max_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_op(cx, d, 2, |v| fp::max_f64(v[0], v[1]))
}
fn v_min3_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_op(cx, d, 3, |v| fp::min_f64(fp::min_f64(v[0], v[1]), v[2]))
}
fn v_max3_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_op(cx, d, 3, |v| fp::max_f64(fp::max_f64(v[0], v[1]), v[2]))
}
fn v_med3_f16(cx: &mut Cx, d: &Decoded) -> Res {
    hf_op(cx, d, 3, |v| fp::med3_f64(v[0], v[1], v[2]))
}

semantics! {
    V_MIN_F16 => v_min_f16;
    V_MAX_F16 => v_max_f16;
    V_MIN3_F16 => v_min3_f16;
    V_MAX3_F16 => v_max3_f16;
    V_MED3_F16 => v_med3_f16;
    V_MIN_F32 => v_min_f32;
    V_MAX_F32 => v_max_f32;
    V_MIN3_F32 => v_min3_f32;
    V_MAX3_F32 => v_max3_f32;
    V_MED3_F32 => v_med3_f32;
    V_MIN_F64 => v_min_f64;
    V_MAX_F64 => v_max_f64;
}
