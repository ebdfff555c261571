//! gfx908's accumulating VOP2 ops: the dot products `v_dot*c_*` and `v_pk_fmac_f16`, which add
//! into their destination (the VOP3P `v_dot*` and `v_pk_fma_f16` with S2 = D). The VOP2 encoding
//! has no clamp and no op_sel: each source's halves (bytes, nibbles) are taken in order.

use super::fp;
use super::h16::{narrow, widen, Clamp};
use super::valu::{denorm64, fetch, write, Res};
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use crate::wave::Row;

/// Integer dot products: D.i32 = Σ over the `32 / bits` signed fields S0[k]·S1[k] + D.i32,
/// wrapping (no clamp in this encoding).
fn dot_c_int(cx: &mut Cx, d: &Decoded, bits: u32) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let acc = cx.wave.vgpr[d.vdst as usize];
    let field = |v: u32, k: u32| -> i32 {
        let x = (v >> (k * bits)) << (32 - bits);
        x as i32 >> (32 - bits)
    };
    let r: Row = std::array::from_fn(|l| {
        (0..32 / bits).fold(acc[l] as i32, |s, k| {
            s.wrapping_add(field(a[l], k).wrapping_mul(field(b[l], k)))
        }) as u32
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// D.f32 = S0.f16[0]·S1.f16[0] + S0.f16[1]·S1.f16[1] + D.f32, rounded once (as v_dot2_f32_f16).
fn v_dot2c_f32_f16(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let acc = cx.wave.vgpr[d.vdst as usize];
    let flush = denorm64(cx) & 1 == 0;
    let r: Row = std::array::from_fn(|l| {
        let h = |v: u32, k: u32| widen((v >> (16 * k)) as u16, flush);
        // The f16 products are exact in f64; the last add rounds to odd so that the conversion
        // to f32 rounds once.
        let p = h(a[l], 0) * h(b[l], 0) + h(a[l], 1) * h(b[l], 1);
        (fp::fma_odd(p, 1.0, f32::from_bits(acc[l]) as f64) as f32).to_bits()
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// D.f16[i] = S0.f16[i]·S1.f16[i] + D.f16[i] for both halves, fused (as v_pk_fma_f16).
fn v_pk_fmac_f16(cx: &mut Cx, d: &Decoded) -> Res {
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let acc = cx.wave.vgpr[d.vdst as usize];
    let flush_in = denorm64(cx) & 1 == 0;
    let flush_out = denorm64(cx) & 2 == 0;
    let r: Row = std::array::from_fn(|l| {
        let half = |k: u32| {
            let h = |v: u32| widen((v >> (16 * k)) as u16, flush_in);
            let v = fp::fma_odd(h(a[l]), h(b[l]), h(acc[l]));
            narrow(v, 0, Clamp::Off, flush_out) as u32
        };
        half(0) | half(1) << 16
    });
    write(cx, d, &r);
    Ok(Flow::Continue)
}

semantics! {
    V_DOT2C_F32_F16 => v_dot2c_f32_f16;
    V_DOT2C_I32_I16 => |cx, d| dot_c_int(cx, d, 16);
    V_DOT4C_I32_I8 => |cx, d| dot_c_int(cx, d, 8);
    V_DOT8C_I32_I4 => |cx, d| dot_c_int(cx, d, 4);
    V_PK_FMAC_F16 => v_pk_fmac_f16;
}
