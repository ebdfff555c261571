//! The level of detail (LOD) of a sample and the mip levels it reads.
//!
//! The ISA gives no precision for any of this; the emulator's rules:
//! - **Derivatives.** `_d` and `_cd` give them (for each spatial coordinate its derivative
//!   along the screen's x, then each along y: `ds/dx, dt/dx, ds/dy, dt/dy` in 2D). Otherwise
//!   they come from the quad, as for pixels: lanes 4q..4q+3 form a quad, d/dx = lane 4q+1
//!   minus lane 4q and d/dy = lane 4q+2 minus lane 4q (f32 subtractions of the coordinates
//!   as the lanes hold them, whatever EXEC says), the same for all four lanes (coarse
//!   derivatives). A compute kernel whose lanes are not laid out as quads gets what the
//!   arithmetic gives, as on hardware.
//! - **LOD.** Derivatives scale to texels of the view's level 0 (times its width, height,
//!   depth for normalised coordinates; a cube's face size for its face coordinates); the raw
//!   LOD is log2 of the longer of the two derivative vectors (Euclidean length), rounded to the
//!   nearest 1/256 of a level (ties to even; zero derivatives give minus infinity, a NaN 0).
//!   `_l` gives the raw LOD instead (rounded to 1/256), `_lz` is level 0 of the view with the
//!   mag filter and takes nothing below.
//! - **Bias and clamps.** The sampler's LOD_BIAS (s5.8) and `_b`'s bias dword (f32, rounded to
//!   1/256) are added; the result is clamped below by MIN_LOD (u4.8) and `_cl`'s clamp dword
//!   (f32, rounded to 1/256), then above by MAX_LOD (u4.8), so MAX_LOD wins when they cross.
//!   Every step stays on the 1/256 grid, so the LOD has 8 fraction bits.
//! - **Filter and levels.** A LOD at or below 0 magnifies (XY_MAG_FILTER), above 0 minifies
//!   (XY_MIN_FILTER). MIP_FILTER none (or the reserved 3) reads level 0 of the view; point the
//!   nearest level, `ceil(LOD + 1/2) - 1` (a LOD halfway between two levels takes the larger
//!   level); linear levels `floor(LOD)` and the next, weighted `1 - f` and `f` by the LOD's
//!   fraction `f` (8 bits, like the bilinear weights). Levels are clamped to the view's
//!   `0..=LAST_LEVEL - BASE_LEVEL`; a LOD at or below 0 reads level 0 alone.
//! - **gather4** reads one level: the one MIP_FILTER point would (level 0 for none).
//! - **image_get_lod** returns the clamped LOD, also clamped to the view's levels (x), and the
//!   LOD with the biases but no clamp (y), as f32.

use super::descriptor::Sampler;

/// Rounds to the nearest 1/256 (ties to even); infinities stay, a NaN becomes 0.
pub fn quantise(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    (x * 256.0).round_ties_even() / 256.0
}

/// The raw LOD from texel-space derivative vectors along x and y.
pub fn from_derivatives(ddx: &[f64], ddy: &[f64]) -> f64 {
    let len2 = |v: &[f64]| v.iter().map(|d| d * d).sum::<f64>();
    quantise(0.5 * len2(ddx).max(len2(ddy)).log2())
}

/// The LOD with the sampler's bias and `bias` (`_b`), unclamped and clamped by MIN_LOD,
/// `min_clamp` (`_cl`) and MAX_LOD.
pub fn finish(s: &Sampler, raw: f64, bias: f32, min_clamp: Option<f32>) -> (f64, f64) {
    let lod = raw + s.lod_bias as f64 / 256.0 + quantise(bias as f64);
    let mut lo = s.min_lod as f64 / 256.0;
    if let Some(c) = min_clamp {
        lo = lo.max(quantise(c as f64));
    }
    let hi = s.max_lod as f64 / 256.0;
    // max and min of a NaN (infinite biases that cancel) take the bound.
    (lod, lod.max(lo).min(hi))
}

/// The view levels a sample at (clamped) LOD `lod` reads and their weights: one level, or two
/// under MIP_FILTER linear with a nonzero fraction.
pub fn pick(s: &Sampler, lod: f64, levels: u32, gather: bool) -> Vec<(u32, f64)> {
    let last = levels.saturating_sub(1) as f64;
    let level = |v: f64| v.clamp(0.0, last) as u32;
    match s.mip_filter {
        2 if !gather && lod > 0.0 => {
            let i = lod.floor();
            let f = lod - i;
            if f == 0.0 || i >= last {
                vec![(level(i), 1.0)]
            } else {
                vec![(level(i), 1.0 - f), (level(i + 1.0), f)]
            }
        }
        1 | 2 => vec![(level((lod + 0.5).ceil() - 1.0), 1.0)],
        _ => vec![(0, 1.0)],
    }
}
