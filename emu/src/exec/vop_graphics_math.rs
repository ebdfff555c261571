//! VALU ops kept from older GCN generations and from graphics: v_exp_legacy_f32 /
//! v_log_legacy_f32 (the Southern Islands behaviour of v_exp_f32 / v_log_f32, kept as separate
//! opcodes since Sea Islands), v_cvt_off_f32_i4, the cube-map helpers v_cubeid/sc/tc/ma_f32, and
//! v_clrexcp.

use super::valu::{f32_1, f32_3, fetch, finish_f32, write, Res};
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;

/// A quiet NaN with `x`'s sign and payload.
fn quiet(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

/// 2^x, legacy form: inputs below -126 give +0 (the result is never a denormal, whatever MODE
/// says), so the result is either 0, a normal number or +inf. Computed in f64 and rounded once.
pub fn exp_legacy(x: f32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    if x < -126.0 {
        return 0.0;
    }
    (x as f64).exp2() as f32
}

/// log2(x), legacy form: input denormals count as zero whatever MODE says; log2(±0) = -inf,
/// log2(1) = 0, a negative input gives -NaN (0xffc00000), log2(+inf) = +inf.
pub fn log_legacy(x: f32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    if x == 0.0 || x.is_subnormal() {
        return f32::NEG_INFINITY;
    }
    if x < 0.0 {
        return f32::from_bits(0xffc0_0000);
    }
    (x as f64).log2() as f32
}

/// D.f = (float)signext(S0[3:0]) / 16: the 4-bit signed offsets -0.5 ... 0.4375.
pub fn cvt_off_f32_i4(v: u32) -> f32 {
    (((v << 28) as i32) >> 28) as f32 / 16.0
}

/// Which axis of (x, y, z) a cube-map lookup takes as its major axis: z if |z| is at least |x| and
/// |y|, else y if |y| >= |x|, else x. Comparisons with NaN are false, so NaN selects x.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Major {
    X,
    Y,
    Z,
}

fn major(x: f32, y: f32, z: f32) -> Major {
    if z.abs() >= x.abs() && z.abs() >= y.abs() {
        Major::Z
    } else if y.abs() >= x.abs() {
        Major::Y
    } else {
        Major::X
    }
}

/// Face id: +x 0, -x 1, +y 2, -y 3, +z 4, -z 5 (a face is negative if its coordinate is < 0).
pub fn cubeid(x: f32, y: f32, z: f32) -> f32 {
    match major(x, y, z) {
        Major::Z if z < 0.0 => 5.0,
        Major::Z => 4.0,
        Major::Y if y < 0.0 => 3.0,
        Major::Y => 2.0,
        Major::X if x < 0.0 => 1.0,
        Major::X => 0.0,
    }
}

/// The face's S coordinate (before division by the major axis).
pub fn cubesc(x: f32, y: f32, z: f32) -> f32 {
    match major(x, y, z) {
        Major::Z if z < 0.0 => -x,
        Major::Z => x,
        Major::Y => x,
        Major::X if x < 0.0 => z,
        Major::X => -z,
    }
}

/// The face's T coordinate.
pub fn cubetc(x: f32, y: f32, z: f32) -> f32 {
    match major(x, y, z) {
        Major::Y if y < 0.0 => -z,
        Major::Y => z,
        Major::Z | Major::X => -y,
    }
}

/// 2 * the major-axis coordinate.
pub fn cubema(x: f32, y: f32, z: f32) -> f32 {
    2.0 * match major(x, y, z) {
        Major::Z => z,
        Major::Y => y,
        Major::X => x,
    }
}

/// An integer source and an f32 result: clamp, omod and the output-denormal rule apply.
fn v_cvt_off_f32_i4(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let r: [f32; WAVE_SIZE] = std::array::from_fn(|l| cvt_off_f32_i4(a[l]));
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// TRAPSTS.EXCP bits the SIMD's ALUs raise: invalid, input denormal, divide by zero, overflow,
/// underflow, inexact, integer divide by zero ([6:0]). Address-watch and memory-violation bits
/// ([8:7]) come from the memory units and are left alone.
pub const TRAPSTS_ALU_EXCP: u32 = 0x7f;

/// Clears the wave's ALU exception state.
fn v_clrexcp(cx: &mut Cx, _: &Decoded) -> Res {
    cx.wave.trapsts &= !TRAPSTS_ALU_EXCP;
    Ok(Flow::Continue)
}

semantics! {
    V_EXP_LEGACY_F32 => |cx, d| f32_1(cx, d, exp_legacy);
    V_LOG_LEGACY_F32 => |cx, d| f32_1(cx, d, log_legacy);
    V_CVT_OFF_F32_I4 => v_cvt_off_f32_i4;
    V_CUBEID_F32 => |cx, d| f32_3(cx, d, cubeid);
    V_CUBESC_F32 => |cx, d| f32_3(cx, d, cubesc);
    V_CUBETC_F32 => |cx, d| f32_3(cx, d, cubetc);
    V_CUBEMA_F32 => |cx, d| f32_3(cx, d, cubema);
    V_CLREXCP => v_clrexcp;
}
