//! MIMG image ops in compute: loads and stores of texels by integer coordinates, sampling with
//! the sampler's address modes and filters, gather4, and size queries, through the T# and S#
//! descriptors in SGPRs (`descriptor`), on linear images (`texel`), filtered as `filter`
//! describes.
//!
//! Instruction bits: DMASK (which components are returned or stored, packed into consecutive
//! VGPRs; gather4's one component to gather), UNORM (unnormalised sample coordinates whatever
//! the sampler says), D16 (16-bit data, two to a VGPR: f16 for float formats), A16 (16-bit
//! address components, two to a VGPR, after the offset, bias and compare dwords, which stay 32
//! bits), TFE (one more VGPR after the data receives the fetch status, 0: every access either
//! reads memory or is out of range, which reads 0), LWE (no effect: there is no LOD warning
//! without partially resident textures). DA is implied by the T#'s type, as on gfx9.
//!
//! Out-of-range loads read 0 and stores are dropped; a texel inside the descriptor's extent
//! that is outside every allocation faults as any other access does. Mip levels past the base
//! are reached only through their sizes (image_get_resinfo): sampling a level other than the
//! base, or loading or storing one, is a guest error, since the linear images the HIP runtime
//! creates have one level. Atomics work on one 32-bit component (formats 32 UINT/SINT; the
//! hardware's only atomic formats besides 32_32 for cmpswap's pair), returning the old value
//! with glc. Depth-compare sampling, image_get_lod, the _pck loads and stores and cube maps
//! are not implemented.

mod descriptor;
mod filter;
mod texel;

use super::valu::Res;
use super::{Cx, Fault, Flow, Semantics};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use descriptor::{image, sampler, Image, ImageType, Sampler};
use filter::Tap;
use texel::At;

/// How a sample instruction picks its mip level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lod {
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
/// offset, bias, (z-compare), derivatives, coordinates, LOD or clamp.
#[derive(Clone, Copy, Debug)]
struct Variant {
    offset: bool,
    bias: bool,
    derivs: bool,
    lod: Lod,
    gather: bool,
}

const fn v(offset: bool, bias: bool, derivs: bool, lod: Lod, gather: bool) -> Variant {
    Variant {
        offset,
        bias,
        derivs,
        lod,
        gather,
    }
}

use Lod::{Clamp, Implicit, Level, Zero};

semantics! {
    IMAGE_LOAD => |cx, d| load(cx, d, false);
    IMAGE_LOAD_MIP => |cx, d| load(cx, d, true);
    IMAGE_STORE => |cx, d| store(cx, d, false);
    IMAGE_STORE_MIP => |cx, d| store(cx, d, true);
    IMAGE_GET_RESINFO => resinfo;
    IMAGE_SAMPLE => |cx, d| sample(cx, d, v(false, false, false, Implicit, false));
    IMAGE_SAMPLE_CL => |cx, d| sample(cx, d, v(false, false, false, Clamp, false));
    IMAGE_SAMPLE_D => |cx, d| sample(cx, d, v(false, false, true, Implicit, false));
    IMAGE_SAMPLE_D_CL => |cx, d| sample(cx, d, v(false, false, true, Clamp, false));
    IMAGE_SAMPLE_L => |cx, d| sample(cx, d, v(false, false, false, Level, false));
    IMAGE_SAMPLE_B => |cx, d| sample(cx, d, v(false, true, false, Implicit, false));
    IMAGE_SAMPLE_B_CL => |cx, d| sample(cx, d, v(false, true, false, Clamp, false));
    IMAGE_SAMPLE_LZ => |cx, d| sample(cx, d, v(false, false, false, Zero, false));
    IMAGE_SAMPLE_CD => |cx, d| sample(cx, d, v(false, false, true, Implicit, false));
    IMAGE_SAMPLE_CD_CL => |cx, d| sample(cx, d, v(false, false, true, Clamp, false));
    IMAGE_SAMPLE_O => |cx, d| sample(cx, d, v(true, false, false, Implicit, false));
    IMAGE_SAMPLE_CL_O => |cx, d| sample(cx, d, v(true, false, false, Clamp, false));
    IMAGE_SAMPLE_D_O => |cx, d| sample(cx, d, v(true, false, true, Implicit, false));
    IMAGE_SAMPLE_D_CL_O => |cx, d| sample(cx, d, v(true, false, true, Clamp, false));
    IMAGE_SAMPLE_L_O => |cx, d| sample(cx, d, v(true, false, false, Level, false));
    IMAGE_SAMPLE_B_O => |cx, d| sample(cx, d, v(true, true, false, Implicit, false));
    IMAGE_SAMPLE_B_CL_O => |cx, d| sample(cx, d, v(true, true, false, Clamp, false));
    IMAGE_SAMPLE_LZ_O => |cx, d| sample(cx, d, v(true, false, false, Zero, false));
    IMAGE_SAMPLE_CD_O => |cx, d| sample(cx, d, v(true, false, true, Implicit, false));
    IMAGE_SAMPLE_CD_CL_O => |cx, d| sample(cx, d, v(true, false, true, Clamp, false));
    IMAGE_GATHER4 => |cx, d| sample(cx, d, v(false, false, false, Implicit, true));
    IMAGE_GATHER4_CL => |cx, d| sample(cx, d, v(false, false, false, Clamp, true));
    IMAGE_GATHER4_L => |cx, d| sample(cx, d, v(false, false, false, Level, true));
    IMAGE_GATHER4_B => |cx, d| sample(cx, d, v(false, true, false, Implicit, true));
    IMAGE_GATHER4_B_CL => |cx, d| sample(cx, d, v(false, true, false, Clamp, true));
    IMAGE_GATHER4_LZ => |cx, d| sample(cx, d, v(false, false, false, Zero, true));
    IMAGE_GATHER4_O => |cx, d| sample(cx, d, v(true, false, false, Implicit, true));
    IMAGE_GATHER4_CL_O => |cx, d| sample(cx, d, v(true, false, false, Clamp, true));
    IMAGE_GATHER4_L_O => |cx, d| sample(cx, d, v(true, false, false, Level, true));
    IMAGE_GATHER4_B_O => |cx, d| sample(cx, d, v(true, true, false, Implicit, true));
    IMAGE_GATHER4_B_CL_O => |cx, d| sample(cx, d, v(true, true, false, Clamp, true));
    IMAGE_GATHER4_LZ_O => |cx, d| sample(cx, d, v(true, false, false, Zero, true));
    IMAGE_ATOMIC_SWAP => atomic;
    IMAGE_ATOMIC_CMPSWAP => atomic;
    IMAGE_ATOMIC_ADD => atomic;
    IMAGE_ATOMIC_SUB => atomic;
    IMAGE_ATOMIC_SMIN => atomic;
    IMAGE_ATOMIC_UMIN => atomic;
    IMAGE_ATOMIC_SMAX => atomic;
    IMAGE_ATOMIC_UMAX => atomic;
    IMAGE_ATOMIC_AND => atomic;
    IMAGE_ATOMIC_OR => atomic;
    IMAGE_ATOMIC_XOR => atomic;
    IMAGE_ATOMIC_INC => atomic;
    IMAGE_ATOMIC_DEC => atomic;
}

/// Defines ops decoded but not run yet, with the reason.
macro_rules! not_yet {
    ($($($op:ident)+ => $why:expr;)*) => {
        $($(pub(super) const $op: Semantics = Semantics::NotEmulated($why);)+)*
    };
}

const COMPARE: &str = "depth-compare sampling is not implemented";
const PACKED: &str = "the _pck loads and stores are not implemented";

not_yet! {
    IMAGE_SAMPLE_C IMAGE_SAMPLE_C_CL IMAGE_SAMPLE_C_D IMAGE_SAMPLE_C_D_CL IMAGE_SAMPLE_C_L
    IMAGE_SAMPLE_C_B IMAGE_SAMPLE_C_B_CL IMAGE_SAMPLE_C_LZ IMAGE_SAMPLE_C_O IMAGE_SAMPLE_C_CL_O
    IMAGE_SAMPLE_C_D_O IMAGE_SAMPLE_C_D_CL_O IMAGE_SAMPLE_C_L_O IMAGE_SAMPLE_C_B_O
    IMAGE_SAMPLE_C_B_CL_O IMAGE_SAMPLE_C_LZ_O IMAGE_GATHER4_C IMAGE_GATHER4_C_CL
    IMAGE_GATHER4_C_L IMAGE_GATHER4_C_B IMAGE_GATHER4_C_B_CL IMAGE_GATHER4_C_LZ
    IMAGE_GATHER4_C_O IMAGE_GATHER4_C_CL_O IMAGE_GATHER4_C_L_O IMAGE_GATHER4_C_B_O
    IMAGE_GATHER4_C_B_CL_O IMAGE_GATHER4_C_LZ_O IMAGE_SAMPLE_C_CD IMAGE_SAMPLE_C_CD_CL
    IMAGE_SAMPLE_C_CD_O IMAGE_SAMPLE_C_CD_CL_O IMAGE_GET_LOD
        => COMPARE;
    IMAGE_LOAD_PCK IMAGE_LOAD_PCK_SGN IMAGE_LOAD_MIP_PCK IMAGE_LOAD_MIP_PCK_SGN IMAGE_STORE_PCK
    IMAGE_STORE_MIP_PCK
        => PACKED;
}

/// The instruction's modifier bits.
struct Bits {
    dmask: u32,
    unorm: bool,
    a16: bool,
    tfe: bool,
    d16: bool,
    vaddr: usize,
    vdata: usize,
}

fn bits(cx: &Cx, d: &Decoded) -> Bits {
    Bits {
        dmask: d.inst.bits(0, 8, 4),
        unorm: d.inst.bits(0, 12, 1) != 0,
        a16: d.inst.bits(0, 15, 1) != 0,
        // On gfx90a bit 16 is ACC (data in AGPRs), resolved before the semantics run.
        tfe: d.inst.bits(0, 16, 1) != 0 && !cx.program.target.features().gfx90a_insts,
        d16: d.inst.bits(1, 31, 1) != 0,
        vaddr: d.regs[0].saturating_sub(256) as usize,
        vdata: d.regs[1].saturating_sub(256) as usize,
    }
}

impl Bits {
    /// Address dword `k` of lane `l` (32-bit), or with A16 16-bit component `k` counted from
    /// dword `packed_from`, zero-extended.
    fn addr(&self, cx: &Cx, l: usize, packed_from: usize, k: usize) -> u32 {
        if !self.a16 || k < packed_from {
            return cx.wave.vgpr[(self.vaddr + k) % 256][l];
        }
        let i = k - packed_from;
        let dword = cx.wave.vgpr[(self.vaddr + packed_from + i / 2) % 256][l];
        (dword >> (16 * (i % 2))) & 0xffff
    }

    /// A float address component: f32, or f16 under A16.
    fn addr_f32(&self, cx: &Cx, l: usize, packed_from: usize, k: usize) -> f32 {
        let raw = self.addr(cx, l, packed_from, k);
        if self.a16 && k >= packed_from {
            half::f16::from_bits(raw as u16).to_f32()
        } else {
            f32::from_bits(raw)
        }
    }
}

/// A texel position from integer coordinates in the T#'s order.
fn at(kind: ImageType, c: &[u32]) -> At {
    match kind {
        ImageType::D1 => At {
            x: c[0],
            y: 0,
            z: 0,
        },
        ImageType::D1Array => At {
            x: c[0],
            y: 0,
            z: c[1],
        },
        ImageType::D2 => At {
            x: c[0],
            y: c[1],
            z: 0,
        },
        _ => At {
            x: c[0],
            y: c[1],
            z: c[2],
        },
    }
}

fn unsupported_kind(d: &Decoded, img: &Image) -> Result<(), Fault> {
    if matches!(img.kind, ImageType::D2Msaa | ImageType::D2MsaaArray) {
        return Err(Fault::Guest(format!(
            "{}: multisampled images are not modelled",
            d.inst.info().name
        )));
    }
    Ok(())
}

fn level_fault(d: &Decoded, level: u32) -> Fault {
    Fault::Guest(format!(
        "{}: mip level {level} of the view: only the base level of a linear image is laid out",
        d.inst.info().name
    ))
}

/// Writes each lane's result components (those DMASK enables, or all four for gather4) to
/// consecutive VGPRs, two to a VGPR under D16, then TFE's status dword.
fn write_results(
    cx: &mut Cx,
    b: &Bits,
    exec: u64,
    res: &[[u32; 4]; WAVE_SIZE],
    float: bool,
    all: bool,
) {
    let comps: Vec<usize> = (0..4).filter(|&c| all || b.dmask >> c & 1 != 0).collect();
    let mut rows = [[0u32; WAVE_SIZE]; 5];
    let n = if b.d16 {
        comps.len().div_ceil(2)
    } else {
        comps.len()
    };
    for l in 0..WAVE_SIZE {
        for (k, &c) in comps.iter().enumerate() {
            let v = res[l][c];
            if b.d16 {
                let h = if float {
                    half::f16::from_f32(f32::from_bits(v)).to_bits() as u32
                } else {
                    v & 0xffff
                };
                rows[k / 2][l] |= h << (16 * (k % 2));
            } else {
                rows[k][l] = v;
            }
        }
    }
    for (i, row) in rows.iter().enumerate().take(n + b.tfe as usize) {
        cx.wave.write_row(b.vdata + i, row, exec);
    }
}

/// image_load, image_load_mip: the texel at integer coordinates (and mip level), formatted
/// and swizzled; 0 outside the image.
fn load(cx: &mut Cx, d: &Decoded, mip: bool) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let n = img.kind.coords();
    let float = img.spec.num.is_float();
    let mut res = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let c: Vec<u32> = (0..n + mip as usize).map(|k| b.addr(cx, l, 0, k)).collect();
        let level = if mip { c[n] } else { 0 };
        if level >= img.levels() {
            continue;
        }
        if level != 0 {
            return Err(level_fault(d, level));
        }
        if let Some(t) = img.fetch(cx, l, at(img.kind, &c))? {
            res[l] = img.swizzle(t, float);
        }
    }
    write_results(cx, &b, exec, &res, float, false);
    Ok(Flow::Continue)
}

/// image_store, image_store_mip: the DMASK components from consecutive VGPRs (the others 0)
/// converted to the format; dropped outside the image.
fn store(cx: &mut Cx, d: &Decoded, mip: bool) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let n = img.kind.coords();
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let c: Vec<u32> = (0..n + mip as usize).map(|k| b.addr(cx, l, 0, k)).collect();
        let level = if mip { c[n] } else { 0 };
        if level >= img.levels() {
            continue;
        }
        if level != 0 {
            return Err(level_fault(d, level));
        }
        let mut vals = [0u32; 4];
        let mut k = 0;
        for (c, v) in vals.iter_mut().enumerate() {
            if b.dmask >> c & 1 != 0 {
                *v = if b.d16 {
                    cx.wave.vgpr[(b.vdata + k / 2) % 256][l] >> (16 * (k % 2)) & 0xffff
                } else {
                    cx.wave.vgpr[(b.vdata + k) % 256][l]
                };
                k += 1;
            }
        }
        let at = at(img.kind, &c);
        if b.d16 {
            img.store16(cx, l, at, &vals.map(|v| v as u16))?;
        } else {
            img.store32(cx, l, at, &vals)?;
        }
    }
    Ok(Flow::Continue)
}

/// image_get_resinfo: for the mip level in the address VGPR, width, height, depth (3D) or
/// slices (arrays), and the view's level count, as integers; 0 sizes for a level past the last.
fn resinfo(cx: &mut Cx, d: &Decoded) -> Res {
    let img = image(cx, d)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let mut res = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let level = b.addr(cx, l, 0, 0);
        let [w, h, z] = if level < img.levels() {
            img.extent(level)
        } else {
            [0; 3]
        };
        res[l] = [w, h, z, img.levels()];
    }
    write_results(cx, &Bits { d16: false, ..b }, exec, &res, false, false);
    Ok(Flow::Continue)
}

/// Whether this sample magnifies (the sampler's mag filter) or minifies, for a view with one
/// level; `None` when the level choice needs derivatives the emulator does not have.
fn magnifies(img: &Image, s: &Sampler, lod: Lod, level: f32) -> Option<bool> {
    match lod {
        Zero => Some(true),
        Level if img.levels() == 1 || level <= 0.0 => Some(level <= 0.0),
        // Implicit LOD on one level with one filter: the LOD changes nothing.
        Implicit | Clamp if img.levels() == 1 && s.mag_filter == s.min_filter => Some(true),
        _ => None,
    }
}

/// Sign-extends a 6-bit texel offset.
fn offset6(v: u32) -> i32 {
    ((v << 26) as i32) >> 26
}

/// The image_sample and image_gather4 variants: coordinates to texels through the sampler,
/// filtered (gather4: the four bilinear texels' one component, in the order (i0, j1),
/// (i1, j1), (i1, j0), (i0, j0)), swizzled.
fn sample(cx: &mut Cx, d: &Decoded, var: Variant) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let name = d.inst.info().name;
    if img.kind == ImageType::Cube {
        return Err(Fault::Guest(format!(
            "{name}: cube maps are not implemented"
        )));
    }
    let s = sampler(cx, d)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let float = img.spec.num.is_float();
    let dims = img.kind.dims();
    let extras = var.offset as usize + var.bias as usize;
    let first_coord = extras + if var.derivs { 2 * dims } else { 0 };
    let ncoords = img.kind.coords();
    let normalized = !(b.unorm || s.force_unnormalized);
    let size = img.extent(0);
    let border = filter::border(&s, float)?;
    let mut res = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let lod = if var.lod == Level {
            b.addr_f32(cx, l, extras, first_coord + ncoords)
        } else {
            0.0
        };
        let magnify = magnifies(&img, &s, var.lod, lod).ok_or_else(|| {
            Fault::Guest(format!(
                "{name}: choosing among {} mip levels (or between different min and mag \
                 filters) needs the LOD, which is not modelled for this variant",
                img.levels()
            ))
        })?;
        let (lin_xy, lin_z) = filter::filters(&img, &s, magnify);
        let (lin_xy, lin_z) = if var.gather {
            (true, false)
        } else {
            (lin_xy, lin_z)
        };
        if !float && (lin_xy || lin_z) && !var.gather {
            return Err(Fault::Guest(format!(
                "{name}: bilinear filtering of an integer format (NUM_FORMAT {})",
                img.num_format
            )));
        }
        let offsets = if var.offset {
            let o = b.addr(cx, l, extras, 0);
            [offset6(o), offset6(o >> 8), offset6(o >> 16)]
        } else {
            [0; 3]
        };
        let mut taps = [([Tap::Texel(0), Tap::Border], [1.0, 0.0], 1usize); 3];
        for (i, tap) in taps.iter_mut().enumerate().take(dims) {
            let c = b.addr_f32(cx, l, extras, first_coord + i);
            let u = if normalized { c * size[i] as f32 } else { c };
            let linear = if i == 2 { lin_z } else { lin_xy };
            *tap = filter::axis(u, linear, offsets[i], s.clamp[i], size[i]);
        }
        if img.kind.is_array() {
            // The slice: rounded, clamped to the array.
            let c = b.addr_f32(cx, l, extras, first_coord + dims);
            let slice = (c + 0.5).floor().clamp(0.0, (size[2] - 1) as f32) as u32;
            taps[2] = ([Tap::Texel(slice), Tap::Border], [1.0, 0.0], 1);
        }
        let texel = |cx: &mut Cx, x: Tap, y: Tap, z: Tap| -> Result<[u32; 4], Fault> {
            let (Tap::Texel(x), Tap::Texel(y), Tap::Texel(z)) = (x, y, z) else {
                return Ok(border);
            };
            Ok(img.fetch(cx, l, At { x, y, z })?.unwrap_or(border))
        };
        if var.gather {
            let c = (b.dmask.trailing_zeros() as usize).min(3);
            let ([x0, x1], [y0, y1], z) = (taps[0].0, taps[1].0, taps[2].0[0]);
            let order = [(x0, y1), (x1, y1), (x1, y0), (x0, y0)];
            for (k, (x, y)) in order.into_iter().enumerate() {
                let t = img.swizzle(texel(cx, x, y, z)?, float);
                res[l][k] = t[c];
            }
            continue;
        }
        let mut sum = [0f64; 4];
        let mut raw = [0u32; 4];
        for zi in 0..taps[2].2 {
            for yi in 0..taps[1].2 {
                for xi in 0..taps[0].2 {
                    let w = taps[0].1[xi] * taps[1].1[yi] * taps[2].1[zi];
                    let t = texel(cx, taps[0].0[xi], taps[1].0[yi], taps[2].0[zi])?;
                    if w == 0.0 {
                        continue;
                    }
                    raw = t;
                    for (s, v) in sum.iter_mut().zip(t) {
                        *s += w * f32::from_bits(v) as f64;
                    }
                }
            }
        }
        let value = if float {
            sum.map(|v| (v as f32).to_bits())
        } else {
            raw
        };
        res[l] = img.swizzle(value, float);
    }
    write_results(cx, &b, exec, &res, float, var.gather);
    Ok(Flow::Continue)
}

/// image_atomic_*: the op of the table's facts on the 32-bit texel at integer coordinates
/// (cmpswap: data in the first VGPR, compare value in the second); with glc the old value
/// goes to the first data VGPR. Outside the image nothing is changed and glc returns 0.
fn atomic(cx: &mut Cx, d: &Decoded) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let name = d.inst.info().name;
    if img.spec.bytes != 4 || img.spec.comps.len() != 1 || img.spec.num.is_float() {
        return Err(Fault::Guest(format!(
            "{name}: atomics need a 32-bit integer format (NUM_FORMAT {})",
            img.num_format
        )));
    }
    let op = d
        .inst
        .info()
        .facts
        .atomic
        .and_then(super::atomic_ops::shared)
        .ok_or(Fault::Unimplemented)?;
    let b = bits(cx, d);
    let glc = d.inst.bits(0, 13, 1) != 0;
    let exec = cx.wave.exec();
    let n = img.kind.coords();
    let mut old = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let c: Vec<u32> = (0..n).map(|k| b.addr(cx, l, 0, k)).collect();
        let at = at(img.kind, &c);
        let Some(addr) = img.texel_address(at) else {
            continue;
        };
        let data = cx.wave.vgpr[b.vdata % 256][l] as u64;
        let data2 = cx.wave.vgpr[(b.vdata + 1) % 256][l] as u64;
        let was =
            super::access::atomic(cx, l, super::access::Addr::Global(addr), op, data, data2, 4)?;
        old[l][0] = was as u32;
    }
    if glc {
        cx.wave.write_row(b.vdata, &old.map(|o| o[0]), exec);
    }
    Ok(Flow::Continue)
}
