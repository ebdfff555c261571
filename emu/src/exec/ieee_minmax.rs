//! MODE.IEEE (bit 9) for the f32/f64 min/max family. The ISA: with IEEE set, "min_dx10 and
//! max_dx10 become IEEE 754-2008 compliant due to signaling NaN propagation and quieting": a
//! signaling NaN source makes the result that NaN, quieted. With IEEE clear, and for quiet NaNs
//! always, a NaN loses to a number (minNum/maxNum). med3 with a NaN source is min3 (§ V_MED3),
//! so it follows the same rule. (f16 and packed-f16 min/max keep the IEEE-clear behaviour.)

use super::valu::{self, Res};
use super::{Cx, ExecFn};
use crate::program::Decoded;
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

pub fn resolve(name: &str) -> Option<ExecFn> {
    Some(match name {
        "v_min_f32" => v_min_f32,
        "v_max_f32" => v_max_f32,
        "v_min3_f32" => v_min3_f32,
        "v_max3_f32" => v_max3_f32,
        "v_med3_f32" => v_med3_f32,
        "v_min_f64" => v_min_f64,
        "v_max_f64" => v_max_f64,
        _ => return None,
    })
}
