//! The gfx9 image resource (T#, eight dwords) and sampler (S#, four dwords) as the MIMG ops
//! read them from SGPRs: the fields of the Vega ISA's "Image Resource" and "Image Sampler"
//! tables that compute emulation uses, with checks that turn a descriptor the emulator cannot
//! honour into a guest error naming the field.

use super::super::buffer_format::{self, Spec};
use super::super::{Cx, Fault};
use crate::exec::program::Decoded;
use gcn_isa::table::Field;

/// SQ_RSRC_IMG_* resource types (T# word 3, bits 31:28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageType {
    D1,
    D2,
    D3,
    Cube,
    D1Array,
    D2Array,
    D2Msaa,
    D2MsaaArray,
}

impl ImageType {
    fn from_field(v: u32) -> Option<ImageType> {
        Some(match v {
            8 => ImageType::D1,
            9 => ImageType::D2,
            10 => ImageType::D3,
            11 => ImageType::Cube,
            12 => ImageType::D1Array,
            13 => ImageType::D2Array,
            14 => ImageType::D2Msaa,
            15 => ImageType::D2MsaaArray,
            _ => return None,
        })
    }

    /// Address components that locate a texel in one mip level: x, then y, then z / slice /
    /// face / fragment.
    pub fn coords(self) -> usize {
        match self {
            ImageType::D1 => 1,
            ImageType::D2 | ImageType::D1Array => 2,
            ImageType::D3 | ImageType::Cube | ImageType::D2Array | ImageType::D2Msaa => 3,
            ImageType::D2MsaaArray => 4,
        }
    }

    /// Spatial dimensions a sample filters over and takes derivatives in (the rest of the
    /// coordinates select a slice, or a cube's face).
    pub fn dims(self) -> usize {
        match self {
            ImageType::D1 | ImageType::D1Array => 1,
            ImageType::D3 => 3,
            _ => 2,
        }
    }

    pub fn is_array(self) -> bool {
        matches!(
            self,
            ImageType::D1Array | ImageType::D2Array | ImageType::D2MsaaArray
        )
    }
}

/// A T# (image resource).
#[derive(Clone, Debug)]
pub struct Image {
    /// BASE_ADDRESS (word 0, and word 1 bits 7:0): address bits 47:8.
    pub base: u64,
    pub spec: Spec,
    /// NUM_FORMAT (word 1, 29:26), for messages.
    pub num_format: u32,
    /// WIDTH and HEIGHT (word 2, 13:0 and 27:14, each minus one).
    pub width: u32,
    pub height: u32,
    /// DST_SEL_X..W (word 3, 3 bits each): 0 gives 0, 1 gives 1, 4..7 component X..W.
    pub dst_sel: [u32; 4],
    /// BASE_LEVEL and LAST_LEVEL (word 3, 15:12 and 19:16).
    pub base_level: u32,
    pub last_level: u32,
    pub kind: ImageType,
    /// DEPTH (word 4, 12:0, minus one): the depth of a 3D image, the last slice of an array,
    /// the last face of a cube (5 for one cube, 6n - 1 for n).
    pub depth: u32,
    /// PITCH (word 4, 28:13, minus one): texels from one row to the next.
    pub pitch: u32,
    /// BASE_ARRAY (word 5, 12:0): the first slice of an array view.
    pub base_array: u32,
}

/// A S# (sampler).
#[derive(Clone, Copy, Debug)]
pub struct Sampler {
    /// CLAMP_X/Y/Z (word 0, 3 bits each): SQ_TEX_CLAMP address modes.
    pub clamp: [u32; 3],
    /// FORCE_UNNORMALIZED (word 0, bit 15): coordinates are texels, not [0, 1).
    pub force_unnormalized: bool,
    /// XY_MAG_FILTER and XY_MIN_FILTER (word 2, 21:20 and 23:22): 0 point, 1 bilinear (the
    /// anisotropic ones, 2 and 3, filter as their point and bilinear bases here: one sample).
    pub mag_filter: u32,
    pub min_filter: u32,
    /// Z_FILTER (word 2, 25:24): 0 none (the XY filter's choice), 1 point, 2 linear.
    pub z_filter: u32,
    /// MIP_FILTER (word 2, 27:26): 0 none (level 0 of the view), 1 point (the nearest level),
    /// 2 linear (the two levels around the LOD).
    pub mip_filter: u32,
    /// DEPTH_COMPARE_FUNC (word 0, 14:12): SQ_TEX_DEPTH_COMPARE never, less, equal,
    /// less-equal, greater, not-equal, greater-equal, always.
    pub compare_func: u32,
    /// MIN_LOD and MAX_LOD (word 1, 11:0 and 23:12): unsigned 4.8 fixed point, in 1/256 of a
    /// level.
    pub min_lod: i32,
    pub max_lod: i32,
    /// LOD_BIAS (word 2, 13:0): signed 5.8 fixed point, in 1/256 of a level.
    pub lod_bias: i32,
    /// BORDER_COLOR_TYPE (word 3, 31:30): transparent black, opaque black, opaque white, or
    /// the border colour palette.
    pub border_type: u32,
}

fn sgprs<const N: usize>(cx: &Cx, first: usize, what: &str) -> Result<[u32; N], Fault> {
    cx.wave
        .sgpr
        .get(first..first + N)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| Fault::Guest(format!("the {what} at s{first} runs past the SGPRs")))
}

fn field(w: u32, shift: u32, bits: u32) -> u32 {
    (w >> shift) & ((1 << bits) - 1)
}

/// The T# the instruction names (SRSRC), checked.
pub fn image(cx: &Cx, d: &Decoded) -> Result<Image, Fault> {
    let first = d.regs[2] as usize & !3;
    let w: [u32; 8] = sgprs(cx, first, "image resource")?;
    let name = d.inst.info().name;
    let bad = |why: String| {
        Fault::Guest(format!(
            "{name}: image resource s[{first}:{}]: {why}",
            first + 7
        ))
    };
    let kind = ImageType::from_field(field(w[3], 28, 4))
        .ok_or_else(|| bad(format!("TYPE {} is not an image type", field(w[3], 28, 4))))?;
    let sw_mode = field(w[3], 20, 5);
    if sw_mode != 0 {
        return Err(bad(format!(
            "SW_MODE {sw_mode}: only linear images (SW_MODE 0) are laid out by the emulator"
        )));
    }
    let (data_format, num_format) = (field(w[1], 20, 6), field(w[1], 26, 4));
    if data_format > 15 || num_format > 7 {
        return Err(bad(format!(
            "DATA_FORMAT {data_format} with NUM_FORMAT {num_format} is not one the emulator converts"
        )));
    }
    let spec = buffer_format::spec(data_format, num_format).map_err(bad)?;
    Ok(Image {
        base: (w[0] as u64) << 8 | (field(w[1], 0, 8) as u64) << 40,
        spec,
        num_format,
        width: field(w[2], 0, 14) + 1,
        height: field(w[2], 14, 14) + 1,
        dst_sel: [0, 3, 6, 9].map(|s| field(w[3], s, 3)),
        base_level: field(w[3], 12, 4),
        last_level: field(w[3], 16, 4),
        kind,
        depth: field(w[4], 0, 13) + 1,
        pitch: field(w[4], 13, 16) + 1,
        base_array: field(w[5], 0, 13),
    })
}

/// The S# the instruction names (SSAMP).
pub fn sampler(cx: &Cx, d: &Decoded) -> Result<Sampler, Fault> {
    let first = d.inst.code(Field::Ssamp).unwrap_or(0) as usize & !3;
    let w: [u32; 4] = sgprs(cx, first, "sampler")?;
    Ok(Sampler {
        clamp: [0, 3, 6].map(|s| field(w[0], s, 3)),
        force_unnormalized: field(w[0], 15, 1) != 0,
        mag_filter: field(w[2], 20, 2) & 1,
        min_filter: field(w[2], 22, 2) & 1,
        z_filter: field(w[2], 24, 2),
        mip_filter: field(w[2], 26, 2),
        compare_func: field(w[0], 12, 3),
        min_lod: field(w[1], 0, 12) as i32,
        max_lod: field(w[1], 12, 12) as i32,
        lod_bias: ((field(w[2], 0, 14) << 18) as i32) >> 18,
        border_type: field(w[3], 30, 2),
    })
}

impl Image {
    /// Extent of mip level `level` of the view (resource level BASE_LEVEL + `level`): width,
    /// height, and depth (3D), slices (arrays) or faces (cubes). The T#'s WIDTH, HEIGHT and
    /// DEPTH are resource level 0's; each level halves them (never below 1), except slices and
    /// faces, which every level has.
    pub fn extent(&self, level: u32) -> [u32; 3] {
        self.resource_extent(self.base_level + level)
    }

    fn resource_extent(&self, level: u32) -> [u32; 3] {
        let shrink = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
        let w = shrink(self.width);
        match self.kind {
            ImageType::D1 => [w, 1, 1],
            ImageType::D1Array => [w, 1, self.depth],
            ImageType::D3 => [w, shrink(self.height), shrink(self.depth)],
            _ => [w, shrink(self.height), self.depth],
        }
    }

    /// Texels from one row of resource level `level` to the next: PITCH halved per level,
    /// never below 1.
    fn row_pitch(&self, level: u32) -> u64 {
        self.pitch.checked_shr(level).unwrap_or(0).max(1) as u64
    }

    /// Texels from one slice (3D depth, array slice, cube face) of a view level to the next.
    pub fn slice_pitch(&self, level: u32) -> u64 {
        let r = self.base_level + level;
        self.row_pitch(r) * self.resource_extent(r)[1] as u64
    }

    /// Texels from the base address to where view level `level` starts: the resource's levels
    /// follow one another with no gap, level k + 1 right after level k's last slice.
    pub fn level_start(&self, level: u32) -> u64 {
        (0..self.base_level + level)
            .map(|r| {
                self.row_pitch(r)
                    * self.resource_extent(r)[1] as u64
                    * self.resource_extent(r)[2] as u64
            })
            .sum()
    }

    /// Texels from one row of view level `level` to the next.
    pub fn level_row_pitch(&self, level: u32) -> u64 {
        self.row_pitch(self.base_level + level)
    }

    /// Mip levels the view holds.
    pub fn levels(&self) -> u32 {
        self.last_level.saturating_sub(self.base_level) + 1
    }
}
