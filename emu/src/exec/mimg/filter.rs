//! Sampling: texel-space coordinates, the sampler's address modes (SQ_TEX_CLAMP) and point or
//! bilinear (trilinear across 3D depth) filtering.
//!
//! The rules, as the emulator defines them where the ISA is silent on precision:
//! - a normalised coordinate `c` becomes `u = c * size` in f32, and `u` is rounded to the
//!   nearest 1/256 of a texel (8 bits of sub-texel precision, as the texture unit holds
//!   positions); point filtering takes the texel `floor(u)`, bilinear the two texels around
//!   `u - 0.5`, weighted by its fraction (so the weights have 8 fraction bits: 1.8 fixed point);
//! - the weighted sum is worked out exactly (f64 holds every product of an 8-bit weight and an
//!   f32 or normalised texel) and rounded once to f32;
//! - address modes act on texel indices: wrap repeats, mirror repeats mirrored, clamp-last-
//!   texel clamps, mirror-once mirrors about 0 then clamps, the border modes give the border
//!   colour outside; the half-border modes first clamp the coordinate to half a texel outside
//!   the edge.

use super::super::Fault;
use super::descriptor::{Image, Sampler};

/// Bits of sub-texel precision of a texel-space coordinate, and so of the bilinear weights.
pub const WEIGHT_BITS: u32 = 8;

/// Where an axis's sample index lands after the address mode: a texel, or the border.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tap {
    Texel(u32),
    Border,
}

/// SQ_TEX_CLAMP values.
const WRAP: u32 = 0;
const MIRROR: u32 = 1;
const CLAMP_LAST_TEXEL: u32 = 2;
const MIRROR_ONCE_LAST_TEXEL: u32 = 3;
const CLAMP_HALF_BORDER: u32 = 4;
const MIRROR_ONCE_HALF_BORDER: u32 = 5;
const CLAMP_BORDER: u32 = 6;

/// Index `i` of an axis of `n` texels under address mode `mode`.
pub fn address_mode(mode: u32, i: i64, n: u32) -> Tap {
    let n = n as i64;
    let inside = |j: i64| {
        if (0..n).contains(&j) {
            Tap::Texel(j as u32)
        } else {
            Tap::Border
        }
    };
    let mirror_once = |j: i64| if j < 0 { -1 - j } else { j };
    match mode {
        WRAP => Tap::Texel(i.rem_euclid(n) as u32),
        MIRROR => {
            let m = i.rem_euclid(2 * n);
            Tap::Texel(if m >= n { 2 * n - 1 - m } else { m } as u32)
        }
        CLAMP_LAST_TEXEL => Tap::Texel(i.clamp(0, n - 1) as u32),
        MIRROR_ONCE_LAST_TEXEL => Tap::Texel(mirror_once(i).clamp(0, n - 1) as u32),
        CLAMP_HALF_BORDER | CLAMP_BORDER => inside(i),
        // MIRROR_ONCE_HALF_BORDER, MIRROR_ONCE_BORDER
        _ => inside(mirror_once(i)),
    }
}

/// The coordinate limits of the half-border modes: half a texel outside either edge.
pub fn half_border_clamp(mode: u32, u: f32, n: u32) -> f32 {
    match mode {
        CLAMP_HALF_BORDER => u.clamp(-0.5, n as f32 + 0.5),
        MIRROR_ONCE_HALF_BORDER => u.clamp(-(n as f32) - 0.5, n as f32 + 0.5),
        _ => u,
    }
}

/// One axis's taps and their weights: one tap of weight 1 (point), or two (bilinear).
pub fn axis(u: f32, linear: bool, offset: i32, mode: u32, n: u32) -> ([Tap; 2], [f64; 2], usize) {
    let u = half_border_clamp(mode, u, n);
    let scale = (1u32 << WEIGHT_BITS) as f64;
    // NaN becomes 0; huge coordinates saturate (they land on the border or a clamped edge).
    let q = (u as f64 * scale).round_ties_even() / scale;
    if !linear {
        let i = (q.floor() as i64).saturating_add(offset as i64);
        return ([address_mode(mode, i, n), Tap::Border], [1.0, 0.0], 1);
    }
    let t = q - 0.5;
    let i0 = t.floor();
    let b = t - i0;
    let i0 = (i0 as i64).saturating_add(offset as i64);
    (
        [
            address_mode(mode, i0, n),
            address_mode(mode, i0.saturating_add(1), n),
        ],
        [1.0 - b, b],
        2,
    )
}

/// The border colour (BORDER_COLOR_TYPE) as raw components: float bits for float formats,
/// integers for UINT/SINT.
pub fn border(s: &Sampler, float: bool) -> Result<[u32; 4], Fault> {
    let one = if float { 1f32.to_bits() } else { 1 };
    Ok(match s.border_type {
        0 => [0; 4],
        1 => [0, 0, 0, one],
        2 => [one; 4],
        _ => {
            return Err(Fault::Guest(
                "a sampler with BORDER_COLOR_TYPE 3 (the border colour palette) is not modelled"
                    .into(),
            ))
        }
    })
}

/// The sample's filters: bilinear in x/y, and in z for 3D images.
pub fn filters(img: &Image, s: &Sampler, magnify: bool) -> (bool, bool) {
    let xy = if magnify { s.mag_filter } else { s.min_filter } == 1;
    let z = match s.z_filter {
        0 => xy,
        f => f == 2,
    };
    (xy, z && img.kind.dims() == 3)
}
