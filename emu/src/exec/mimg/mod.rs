//! MIMG image ops in compute: loads and stores of texels by integer coordinates (converted
//! through the format, or raw with `_pck`), sampling with the sampler's address modes, filters,
//! mip levels and depth compare, gather4, and size and LOD queries, through the T# and S#
//! descriptors in SGPRs (`descriptor`), on linear images with their mip levels (`texel`),
//! filtered as `filter` describes, at the levels `lod` picks, compared as `compare` says;
//! `sample` has the sample ops and cube maps.
//!
//! Instruction bits: DMASK (which components are returned or stored, packed into consecutive
//! VGPRs; gather4's one component to gather), UNORM (unnormalised sample coordinates whatever
//! the sampler says), D16 (16-bit data, two to a VGPR: f16 for float formats), A16 (16-bit
//! address components, two to a VGPR, after the offset, bias and compare dwords, which stay 32
//! bits), TFE (one more VGPR after the data receives the fetch status, 0: every access either
//! reads memory or is out of range, which reads 0), LWE (no effect: there is no LOD warning
//! without partially resident textures). DA is implied by the T#'s type, as on gfx9.
//!
//! Out-of-range loads read 0 and stores are dropped, a mip level past the view's last too; a
//! texel inside the descriptor's extent that is outside every allocation faults as any other
//! access does. Loads and stores address a cube's layer (`6 * slice + face`) as the third
//! integer coordinate. The `_pck` loads and stores convert nothing: each DMASK component's
//! bits as stored, zero-extended (sign-extended for `_sgn`) to 32 bits, one to a VGPR, or to
//! 16 bits, two to a VGPR, under D16; stores write the low bits of each component as they are;
//! components are in the format's order (DST_SEL does not apply) and those the format lacks
//! read 0. Atomics work on one 32-bit component (formats 32 UINT/SINT; the hardware's only
//! atomic formats besides 32_32 for cmpswap's pair), returning the old value with glc.
//! Not modelled: multisampled images, tiled (swizzled) layouts, the border colour palette,
//! anisotropic filtering (the anisotropic filters take one sample), seamless cube maps.

mod compare;
mod descriptor;
mod filter;
mod lod;
mod sample;
mod texel;

use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use descriptor::{image, Image, ImageType};
use sample::{get_lod, sample, Lod, Variant};
use texel::At;

const fn v(
    offset: bool,
    bias: bool,
    compare: bool,
    derivs: bool,
    lod: Lod,
    gather: bool,
) -> Variant {
    Variant {
        offset,
        bias,
        compare,
        derivs,
        lod,
        gather,
    }
}

use Lod::{Clamp, Implicit, Level, Zero};

semantics! {
    IMAGE_LOAD => |cx, d| load(cx, d, false, None);
    IMAGE_LOAD_MIP => |cx, d| load(cx, d, true, None);
    IMAGE_LOAD_PCK => |cx, d| load(cx, d, false, Some(false));
    IMAGE_LOAD_PCK_SGN => |cx, d| load(cx, d, false, Some(true));
    IMAGE_LOAD_MIP_PCK => |cx, d| load(cx, d, true, Some(false));
    IMAGE_LOAD_MIP_PCK_SGN => |cx, d| load(cx, d, true, Some(true));
    IMAGE_STORE => |cx, d| store(cx, d, false, false);
    IMAGE_STORE_MIP => |cx, d| store(cx, d, true, false);
    IMAGE_STORE_PCK => |cx, d| store(cx, d, false, true);
    IMAGE_STORE_MIP_PCK => |cx, d| store(cx, d, true, true);
    IMAGE_GET_RESINFO => resinfo;
    IMAGE_GET_LOD => get_lod;
    IMAGE_SAMPLE => |cx, d| sample(cx, d, v(false, false, false, false, Implicit, false));
    IMAGE_SAMPLE_CL => |cx, d| sample(cx, d, v(false, false, false, false, Clamp, false));
    IMAGE_SAMPLE_D => |cx, d| sample(cx, d, v(false, false, false, true, Implicit, false));
    IMAGE_SAMPLE_D_CL => |cx, d| sample(cx, d, v(false, false, false, true, Clamp, false));
    IMAGE_SAMPLE_L => |cx, d| sample(cx, d, v(false, false, false, false, Level, false));
    IMAGE_SAMPLE_B => |cx, d| sample(cx, d, v(false, true, false, false, Implicit, false));
    IMAGE_SAMPLE_B_CL => |cx, d| sample(cx, d, v(false, true, false, false, Clamp, false));
    IMAGE_SAMPLE_LZ => |cx, d| sample(cx, d, v(false, false, false, false, Zero, false));
    IMAGE_SAMPLE_C => |cx, d| sample(cx, d, v(false, false, true, false, Implicit, false));
    IMAGE_SAMPLE_C_CL => |cx, d| sample(cx, d, v(false, false, true, false, Clamp, false));
    IMAGE_SAMPLE_C_D => |cx, d| sample(cx, d, v(false, false, true, true, Implicit, false));
    IMAGE_SAMPLE_C_D_CL => |cx, d| sample(cx, d, v(false, false, true, true, Clamp, false));
    IMAGE_SAMPLE_C_L => |cx, d| sample(cx, d, v(false, false, true, false, Level, false));
    IMAGE_SAMPLE_C_B => |cx, d| sample(cx, d, v(false, true, true, false, Implicit, false));
    IMAGE_SAMPLE_C_B_CL => |cx, d| sample(cx, d, v(false, true, true, false, Clamp, false));
    IMAGE_SAMPLE_C_LZ => |cx, d| sample(cx, d, v(false, false, true, false, Zero, false));
    IMAGE_SAMPLE_O => |cx, d| sample(cx, d, v(true, false, false, false, Implicit, false));
    IMAGE_SAMPLE_CL_O => |cx, d| sample(cx, d, v(true, false, false, false, Clamp, false));
    IMAGE_SAMPLE_D_O => |cx, d| sample(cx, d, v(true, false, false, true, Implicit, false));
    IMAGE_SAMPLE_D_CL_O => |cx, d| sample(cx, d, v(true, false, false, true, Clamp, false));
    IMAGE_SAMPLE_L_O => |cx, d| sample(cx, d, v(true, false, false, false, Level, false));
    IMAGE_SAMPLE_B_O => |cx, d| sample(cx, d, v(true, true, false, false, Implicit, false));
    IMAGE_SAMPLE_B_CL_O => |cx, d| sample(cx, d, v(true, true, false, false, Clamp, false));
    IMAGE_SAMPLE_LZ_O => |cx, d| sample(cx, d, v(true, false, false, false, Zero, false));
    IMAGE_SAMPLE_C_O => |cx, d| sample(cx, d, v(true, false, true, false, Implicit, false));
    IMAGE_SAMPLE_C_CL_O => |cx, d| sample(cx, d, v(true, false, true, false, Clamp, false));
    IMAGE_SAMPLE_C_D_O => |cx, d| sample(cx, d, v(true, false, true, true, Implicit, false));
    IMAGE_SAMPLE_C_D_CL_O => |cx, d| sample(cx, d, v(true, false, true, true, Clamp, false));
    IMAGE_SAMPLE_C_L_O => |cx, d| sample(cx, d, v(true, false, true, false, Level, false));
    IMAGE_SAMPLE_C_B_O => |cx, d| sample(cx, d, v(true, true, true, false, Implicit, false));
    IMAGE_SAMPLE_C_B_CL_O => |cx, d| sample(cx, d, v(true, true, true, false, Clamp, false));
    IMAGE_SAMPLE_C_LZ_O => |cx, d| sample(cx, d, v(true, false, true, false, Zero, false));
    IMAGE_SAMPLE_CD => |cx, d| sample(cx, d, v(false, false, false, true, Implicit, false));
    IMAGE_SAMPLE_CD_CL => |cx, d| sample(cx, d, v(false, false, false, true, Clamp, false));
    IMAGE_SAMPLE_C_CD => |cx, d| sample(cx, d, v(false, false, true, true, Implicit, false));
    IMAGE_SAMPLE_C_CD_CL => |cx, d| sample(cx, d, v(false, false, true, true, Clamp, false));
    IMAGE_SAMPLE_CD_O => |cx, d| sample(cx, d, v(true, false, false, true, Implicit, false));
    IMAGE_SAMPLE_CD_CL_O => |cx, d| sample(cx, d, v(true, false, false, true, Clamp, false));
    IMAGE_SAMPLE_C_CD_O => |cx, d| sample(cx, d, v(true, false, true, true, Implicit, false));
    IMAGE_SAMPLE_C_CD_CL_O => |cx, d| sample(cx, d, v(true, false, true, true, Clamp, false));
    IMAGE_GATHER4 => |cx, d| sample(cx, d, v(false, false, false, false, Implicit, true));
    IMAGE_GATHER4_CL => |cx, d| sample(cx, d, v(false, false, false, false, Clamp, true));
    IMAGE_GATHER4_L => |cx, d| sample(cx, d, v(false, false, false, false, Level, true));
    IMAGE_GATHER4_B => |cx, d| sample(cx, d, v(false, true, false, false, Implicit, true));
    IMAGE_GATHER4_B_CL => |cx, d| sample(cx, d, v(false, true, false, false, Clamp, true));
    IMAGE_GATHER4_LZ => |cx, d| sample(cx, d, v(false, false, false, false, Zero, true));
    IMAGE_GATHER4_C => |cx, d| sample(cx, d, v(false, false, true, false, Implicit, true));
    IMAGE_GATHER4_C_CL => |cx, d| sample(cx, d, v(false, false, true, false, Clamp, true));
    IMAGE_GATHER4_C_L => |cx, d| sample(cx, d, v(false, false, true, false, Level, true));
    IMAGE_GATHER4_C_B => |cx, d| sample(cx, d, v(false, true, true, false, Implicit, true));
    IMAGE_GATHER4_C_B_CL => |cx, d| sample(cx, d, v(false, true, true, false, Clamp, true));
    IMAGE_GATHER4_C_LZ => |cx, d| sample(cx, d, v(false, false, true, false, Zero, true));
    IMAGE_GATHER4_O => |cx, d| sample(cx, d, v(true, false, false, false, Implicit, true));
    IMAGE_GATHER4_CL_O => |cx, d| sample(cx, d, v(true, false, false, false, Clamp, true));
    IMAGE_GATHER4_L_O => |cx, d| sample(cx, d, v(true, false, false, false, Level, true));
    IMAGE_GATHER4_B_O => |cx, d| sample(cx, d, v(true, true, false, false, Implicit, true));
    IMAGE_GATHER4_B_CL_O => |cx, d| sample(cx, d, v(true, true, false, false, Clamp, true));
    IMAGE_GATHER4_LZ_O => |cx, d| sample(cx, d, v(true, false, false, false, Zero, true));
    IMAGE_GATHER4_C_O => |cx, d| sample(cx, d, v(true, false, true, false, Implicit, true));
    IMAGE_GATHER4_C_CL_O => |cx, d| sample(cx, d, v(true, false, true, false, Clamp, true));
    IMAGE_GATHER4_C_L_O => |cx, d| sample(cx, d, v(true, false, true, false, Level, true));
    IMAGE_GATHER4_C_B_O => |cx, d| sample(cx, d, v(true, true, true, false, Implicit, true));
    IMAGE_GATHER4_C_B_CL_O => |cx, d| sample(cx, d, v(true, true, true, false, Clamp, true));
    IMAGE_GATHER4_C_LZ_O => |cx, d| sample(cx, d, v(true, false, true, false, Zero, true));
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

/// The instruction's modifier bits.
pub(super) struct Bits {
    dmask: u32,
    unorm: bool,
    a16: bool,
    tfe: bool,
    d16: bool,
    vaddr: usize,
    vdata: usize,
}

pub(super) fn bits(cx: &Cx, d: &Decoded) -> Bits {
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
    pub(super) fn addr(&self, cx: &Cx, l: usize, packed_from: usize, k: usize) -> u32 {
        if !self.a16 || k < packed_from {
            return cx.wave.vgpr[(self.vaddr + k) % 256][l];
        }
        let i = k - packed_from;
        let dword = cx.wave.vgpr[(self.vaddr + packed_from + i / 2) % 256][l];
        (dword >> (16 * (i % 2))) & 0xffff
    }

    /// A float address component: f32, or f16 under A16.
    pub(super) fn addr_f32(&self, cx: &Cx, l: usize, packed_from: usize, k: usize) -> f32 {
        let raw = self.addr(cx, l, packed_from, k);
        if self.a16 && k >= packed_from {
            half::f16::from_bits(raw as u16).to_f32()
        } else {
            f32::from_bits(raw)
        }
    }
}

/// A texel position from integer coordinates in the T#'s order, at view level `level`.
fn at(kind: ImageType, c: &[u32], level: u32) -> At {
    let (x, y, z) = match kind {
        ImageType::D1 => (c[0], 0, 0),
        ImageType::D1Array => (c[0], 0, c[1]),
        ImageType::D2 => (c[0], c[1], 0),
        _ => (c[0], c[1], c[2]),
    };
    At { x, y, z, level }
}

pub(super) fn unsupported_kind(d: &Decoded, img: &Image) -> Result<(), Fault> {
    if matches!(img.kind, ImageType::D2Msaa | ImageType::D2MsaaArray) {
        return Err(Fault::Guest(format!(
            "{}: multisampled images are not modelled",
            d.inst.info().name
        )));
    }
    Ok(())
}

/// Writes each lane's result components (those DMASK enables, or all four for gather4) to
/// consecutive VGPRs, two to a VGPR under D16, then TFE's status dword.
pub(super) fn write_results(
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

/// image_load, image_load_mip: the texel at integer coordinates (and mip level of the view),
/// formatted and swizzled; 0 outside the image. With `pck` (`Some(sign)`), the _pck forms:
/// the components' bits as stored, extended (sign-extended with `sign`).
fn load(cx: &mut Cx, d: &Decoded, mip: bool, pck: Option<bool>) -> Res {
    let img = image(cx, d)?;
    unsupported_kind(d, &img)?;
    let b = bits(cx, d);
    let exec = cx.wave.exec();
    let n = img.kind.coords();
    let float = img.spec.num.is_float() && pck.is_none();
    let mut res = [[0u32; 4]; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let c: Vec<u32> = (0..n + mip as usize).map(|k| b.addr(cx, l, 0, k)).collect();
        let level = if mip { c[n] } else { 0 };
        let at = at(img.kind, &c, level);
        res[l] = match pck {
            Some(sign) => img.fetch_raw(cx, l, at, sign)?.unwrap_or([0; 4]),
            None => match img.fetch(cx, l, at)? {
                Some(t) => img.swizzle(t, float),
                None => [0; 4],
            },
        };
    }
    write_results(cx, &b, exec, &res, float, false);
    Ok(Flow::Continue)
}

/// image_store, image_store_mip: the DMASK components from consecutive VGPRs (the others 0)
/// converted to the format (`pck`: their low bits as they are); dropped outside the image.
fn store(cx: &mut Cx, d: &Decoded, mip: bool, pck: bool) -> Res {
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
        let at = at(img.kind, &c, level);
        if pck {
            img.store_raw(cx, l, at, &vals)?;
        } else if b.d16 {
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
        let at = at(img.kind, &c, 0);
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
