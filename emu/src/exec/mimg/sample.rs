//! image_sample*, image_gather4* and image_get_lod: coordinates to texels through the
//! sampler, at the mip levels the LOD picks (`lod`), filtered (`filter`), optionally compared
//! with a reference first (`compare`).
//!
//! Cube maps (T# type 11): the address components are the face coordinates s and t, then the
//! face, as the kernel leaves them after v_cubeid_f32, v_cubesc_f32, v_cubetc_f32 and
//! v_cubema_f32: ROCm's device library passes `sc / cubema + 1/2` and `tc / cubema + 1/2`,
//! normalised over the face ([0, 1]) like a 2D image's coordinates (Mesa's drivers add 3/2
//! instead, for [1, 2]; that form is not modelled), and the face id 0..5. For a cube array the
//! third component is `8 * slice + face` (the device library's `rint(slice) * 8 + face`): it is
//! rounded to an integer n and clamped at 0, then slice `n / 8` (clamped to the cubes) and face
//! `min(n mod 8, 5)` give layer `6 * slice + face`. Each face is sampled as a 2D image whose
//! taps clamp to the face's last texel whatever CLAMP_X and CLAMP_Y say: there is no filtering
//! across faces (seamless cube maps are not modelled). LOD derivatives are those of s and t.

use super::super::{Cx, Fault, Flow};
use super::compare::compare;
use super::descriptor::{image, sampler, Image, ImageType, Sampler};
use super::filter::{self, Tap};
use super::texel::At;
use super::{bits, lod, unsupported_kind, write_results, Bits};
use crate::exec::program::Decoded;
use crate::exec::valu::Res;
use crate::wave::WAVE_SIZE;

/// How a sample instruction picks its mip level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lod {
    /// From the quad's derivatives (or `_d`'s given ones), optionally biased (`_b`).
    Implicit,
    /// `_cl`: implicit, with a clamp dword after the coordinates.
    Clamp,
    /// `_l`: a LOD dword after the coordinates.
    Level,
    /// `_lz`: level 0.
    Zero,
}

/// The address dwords of a sample or gather4 variant, in the order the ISA lays them out:
/// offset, bias, z-compare, derivatives, coordinates, LOD or clamp.
#[derive(Clone, Copy, Debug)]
pub(super) struct Variant {
    pub offset: bool,
    pub bias: bool,
    pub compare: bool,
    pub derivs: bool,
    pub lod: Lod,
    pub gather: bool,
}

/// Sign-extends a 6-bit texel offset.
fn offset6(v: u32) -> i32 {
    ((v << 26) as i32) >> 26
}

/// SQ_TEX_CLAMP_LAST_TEXEL: a cube face's edges.
const CLAMP_LAST_TEXEL: u32 = 2;

/// Where a lane's address components lie.
struct Layout {
    /// Dwords before the derivatives (offset, bias, z-compare): 32 bits under A16 too.
    extras: usize,
    first_coord: usize,
    dims: usize,
    ncoords: usize,
    normalized: bool,
}

impl Layout {
    fn new(img: &Image, s: &Sampler, b: &Bits, var: &Variant) -> Layout {
        let dims = img.kind.dims();
        let extras = var.offset as usize + var.bias as usize + var.compare as usize;
        Layout {
            extras,
            first_coord: extras + if var.derivs { 2 * dims } else { 0 },
            dims,
            ncoords: img.kind.coords(),
            normalized: !(b.unorm || s.force_unnormalized),
        }
    }
}

/// Every lane's spatial coordinates (inactive lanes too: their values feed the quad's
/// derivatives).
fn coordinates(cx: &Cx, b: &Bits, at: &Layout) -> Vec<[f32; 3]> {
    (0..WAVE_SIZE)
        .map(|l| {
            let mut c = [0f32; 3];
            for (i, v) in c.iter_mut().enumerate().take(at.dims) {
                *v = b.addr_f32(cx, l, at.extras, at.first_coord + i);
            }
            c
        })
        .collect()
}

/// Lane `l`'s LOD, unclamped and clamped (`lod` states the rules).
#[allow(clippy::too_many_arguments)]
fn lane_lod(
    cx: &Cx,
    b: &Bits,
    var: &Variant,
    img: &Image,
    s: &Sampler,
    at: &Layout,
    coords: &[[f32; 3]],
    l: usize,
) -> (f64, f64) {
    let after = at.first_coord + at.ncoords;
    let min_clamp = (var.lod == Lod::Clamp).then(|| b.addr_f32(cx, l, at.extras, after));
    let bias = if var.bias {
        f32::from_bits(b.addr(cx, l, at.extras, var.offset as usize))
    } else {
        0.0
    };
    let raw = if var.lod == Lod::Level {
        lod::quantise(b.addr_f32(cx, l, at.extras, after) as f64)
    } else {
        let size = img.extent(0);
        let scale = |i: usize| if at.normalized { size[i] as f64 } else { 1.0 };
        let (mut dx, mut dy) = ([0f64; 3], [0f64; 3]);
        for i in 0..at.dims {
            let (x, y) = if var.derivs {
                (
                    b.addr_f32(cx, l, at.extras, at.extras + i),
                    b.addr_f32(cx, l, at.extras, at.extras + at.dims + i),
                )
            } else {
                let q = l & !3;
                (
                    coords[q + 1][i] - coords[q][i],
                    coords[q + 2][i] - coords[q][i],
                )
            };
            dx[i] = x as f64 * scale(i);
            dy[i] = y as f64 * scale(i);
        }
        lod::from_derivatives(&dx[..at.dims], &dy[..at.dims])
    };
    lod::finish(s, raw, bias, min_clamp)
}

/// The layer a cube's third address component selects (the module docs give the rule).
fn cube_layer(c: f32, layers: u32) -> u32 {
    let n = (c + 0.5).floor().max(0.0).min(u32::MAX as f32) as u32;
    let cubes = (layers / 6).max(1);
    let layer = 6 * (n / 8).min(cubes - 1) + (n % 8).min(5);
    layer.min(layers.saturating_sub(1))
}

/// The image_sample and image_gather4 variants: coordinates to texels through the sampler,
/// filtered (gather4: the four bilinear texels' one component, in the order (i0, j1),
/// (i1, j1), (i1, j0), (i0, j0)), swizzled.
pub(super) fn sample(cx: &mut Cx, d: &Decoded, var: Variant) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let name = d.inst.info().name;
    let s = sampler(cx, d)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let float = img.spec.num.is_float();
    if var.compare && !float {
        return Err(Fault::Guest(format!(
            "{name}: depth compare on an integer format (NUM_FORMAT {})",
            img.num_format
        )));
    }
    let at = Layout::new(&img, &s, &b, &var);
    let coords = coordinates(cx, &b, &at);
    let cube = img.kind == ImageType::Cube;
    let border = filter::border(&s, float)?;
    let unorm = img.spec.num == super::super::buffer_format::Num::Unorm;
    let mut res = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (magnify, picks) = if var.lod == Lod::Zero {
            (true, vec![(0, 1.0)])
        } else {
            let lod = lane_lod(cx, &b, &var, &img, &s, &at, &coords, l).1;
            (lod <= 0.0, lod::pick(&s, lod, img.levels(), var.gather))
        };
        let (lin_xy, lin_z) = if var.gather {
            (true, false)
        } else {
            filter::filters(&img, &s, magnify)
        };
        if !float && (lin_xy || lin_z || picks.len() > 1) && !var.gather {
            return Err(Fault::Guest(format!(
                "{name}: filtering an integer format (NUM_FORMAT {})",
                img.num_format
            )));
        }
        let offsets = if var.offset {
            let o = b.addr(cx, l, at.extras, 0);
            [offset6(o), offset6(o >> 8), offset6(o >> 16)]
        } else {
            [0; 3]
        };
        let reference = var.compare.then(|| {
            let r =
                f32::from_bits(b.addr(cx, l, at.extras, var.offset as usize + var.bias as usize));
            if unorm {
                r.clamp(0.0, 1.0)
            } else {
                r
            }
        });
        let slice_coord = b.addr_f32(cx, l, at.extras, at.first_coord + at.dims);
        // A texel read for this lane: X..W as the format gives them (the border outside).
        let texel = |cx: &mut Cx, x: Tap, y: Tap, z: Tap, level: u32| -> Result<[u32; 4], Fault> {
            let (Tap::Texel(x), Tap::Texel(y), Tap::Texel(z)) = (x, y, z) else {
                return Ok(border);
            };
            Ok(img.fetch(cx, l, At { x, y, z, level })?.unwrap_or(border))
        };
        let mut sum = [0f64; 4];
        let mut raw = [0u32; 4];
        for &(level, wm) in &picks {
            let size = img.extent(level);
            let mut taps = [([Tap::Texel(0), Tap::Border], [1.0, 0.0], 1usize); 3];
            for (i, tap) in taps.iter_mut().enumerate().take(at.dims) {
                let c = coords[l][i];
                let u = if at.normalized { c * size[i] as f32 } else { c };
                let linear = if i == 2 { lin_z } else { lin_xy };
                let mode = if cube { CLAMP_LAST_TEXEL } else { s.clamp[i] };
                *tap = filter::axis(u, linear, offsets[i], mode, size[i]);
            }
            if img.kind.is_array() {
                // The slice: rounded, clamped to the array.
                let slice = (slice_coord + 0.5).floor().clamp(0.0, (size[2] - 1) as f32) as u32;
                taps[2] = ([Tap::Texel(slice), Tap::Border], [1.0, 0.0], 1);
            } else if cube {
                let layer = cube_layer(slice_coord, size[2]);
                taps[2] = ([Tap::Texel(layer), Tap::Border], [1.0, 0.0], 1);
            }
            if var.gather {
                let c = (b.dmask.trailing_zeros() as usize).min(3);
                let ([x0, x1], [y0, y1], z) = (taps[0].0, taps[1].0, taps[2].0[0]);
                let order = [(x0, y1), (x1, y1), (x1, y0), (x0, y0)];
                for (k, (x, y)) in order.into_iter().enumerate() {
                    let t = texel(cx, x, y, z, level)?;
                    res[l][k] = match reference {
                        Some(r) => compare(s.compare_func, r, f32::from_bits(t[0])).to_bits(),
                        None => img.swizzle(t, float)[c],
                    };
                }
                continue;
            }
            for zi in 0..taps[2].2 {
                for yi in 0..taps[1].2 {
                    for xi in 0..taps[0].2 {
                        let w = wm * taps[0].1[xi] * taps[1].1[yi] * taps[2].1[zi];
                        let t = texel(cx, taps[0].0[xi], taps[1].0[yi], taps[2].0[zi], level)?;
                        if w == 0.0 {
                            continue;
                        }
                        raw = t;
                        let t = match reference {
                            Some(r) => [compare(s.compare_func, r, f32::from_bits(t[0])); 4],
                            None => t.map(f32::from_bits),
                        };
                        for (s, v) in sum.iter_mut().zip(t) {
                            *s += w * v as f64;
                        }
                    }
                }
            }
        }
        if var.gather {
            continue;
        }
        res[l] = if reference.is_some() {
            sum.map(|v| (v as f32).to_bits())
        } else if float {
            img.swizzle(sum.map(|v| (v as f32).to_bits()), float)
        } else {
            img.swizzle(raw, float)
        };
    }
    write_results(cx, &b, exec, &res, float, var.gather);
    Ok(Flow::Continue)
}

/// image_get_lod: the LOD a sample at these coordinates would use, clamped (x: by the sampler
/// and to the view's levels) and unclamped (y: with the biases), as f32, per DMASK.
pub(super) fn get_lod(cx: &mut Cx, d: &Decoded) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let s = sampler(cx, d)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let var = Variant {
        offset: false,
        bias: false,
        compare: false,
        derivs: false,
        lod: Lod::Implicit,
        gather: false,
    };
    let at = Layout::new(&img, &s, &b, &var);
    let coords = coordinates(cx, &b, &at);
    let last = img.levels().saturating_sub(1) as f64;
    let mut res = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (unclamped, clamped) = lane_lod(cx, &b, &var, &img, &s, &at, &coords, l);
        res[l] = [
            (clamped.clamp(0.0, last) as f32).to_bits(),
            (unclamped as f32).to_bits(),
            0,
            0,
        ];
    }
    write_results(cx, &b, exec, &res, true, false);
    Ok(Flow::Continue)
}
