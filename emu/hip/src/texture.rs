//! HIP arrays, texture objects and surface objects as data, and the gfx9 descriptors built
//! from them: the image resource (T#, or a buffer resource V# for linear memory), the sampler
//! (S#), and the three words past the T# that HIP's device library reads for queries (channel
//! type and order as HSA enumerates them, width).
//!
//! A texture object is device memory holding HIP_TEXTURE_OBJECT_SIZE_DWORD (20) dwords: the
//! image object (12 dwords: T# in 0..8, then type, order, width) and the S# at dword 12
//! (HIP_SAMPLER_OBJECT_OFFSET_DWORD), as `texture_fetch_functions.h` reads them. A surface
//! object is the 12-dword image object alone. Arrays are linear (rows of `pitch` bytes, slices
//! of `pitch * height`), which is the layout the emulator's image ops address.

use crate::types::*;

/// Bytes an array row is padded to (ROCm's image pitch alignment).
pub(crate) const ROW_ALIGNMENT: u64 = 256;
/// Dwords of a texture object (image object and sampler).
pub(crate) const TEXTURE_OBJECT_DWORDS: usize = 20;
/// Dwords of the image object, and the sampler's offset in a texture object.
pub(crate) const IMAGE_OBJECT_DWORDS: usize = 12;

/// `hipArray` flags.
pub(crate) const ARRAY_LAYERED: u32 = 1;
pub(crate) const ARRAY_SURFACE_LOAD_STORE: u32 = 2;
pub(crate) const ARRAY_CUBEMAP: u32 = 4;
pub(crate) const ARRAY_TEXTURE_GATHER: u32 = 8;

/// SQ_RSRC_IMG_* types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImageType {
    D1 = 8,
    D2 = 9,
    D3 = 10,
    Cube = 11,
    D1Array = 12,
    D2Array = 13,
}

/// A channel format as the hardware reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    /// IMG/BUF_DATA_FORMAT and NUM_FORMAT.
    pub(crate) data_format: u32,
    pub(crate) num_format: u32,
    /// DST_SEL_X..W packed as in the descriptors (3 bits each).
    pub(crate) dst_sel: u32,
    /// Bytes per element and channels.
    pub(crate) bytes: u32,
    pub(crate) channels: u32,
    /// hsa_ext_image_channel_type_t and hsa_ext_image_channel_order_t.
    pub(crate) hsa_type: u32,
    pub(crate) hsa_order: u32,
}

/// The format of a channel descriptor: 1, 2 or 4 channels of 8, 16 or 32 bits, all alike (32 or
/// 16 for float); `normalized` reads 8- and 16-bit integers as [0, 1] or [-1, 1] floats
/// (`hipReadModeNormalizedFloat`). `None` for anything else.
pub(crate) fn format(desc: &hipChannelFormatDesc, normalized: bool) -> Option<Format> {
    let bits = [desc.x, desc.y, desc.z, desc.w];
    let channels = bits.iter().take_while(|&&b| b != 0).count() as u32;
    let b = desc.x;
    if !matches!(channels, 1 | 2 | 4)
        || bits[..channels as usize].iter().any(|&c| c != b)
        || bits[channels as usize..].iter().any(|&c| c != 0)
    {
        return None;
    }
    let data_format = match (b, channels) {
        (8, 1) => 1,
        (16, 1) => 2,
        (8, 2) => 3,
        (32, 1) => 4,
        (16, 2) => 5,
        (8, 4) => 10,
        (32, 2) => 11,
        (16, 4) => 12,
        (32, 4) => 14,
        _ => return None,
    };
    // NUM_FORMAT (UNORM 0, SNORM 1, UINT 4, SINT 5, FLOAT 7) and the HSA channel type.
    let norm = normalized && b != 32;
    let (num_format, hsa_type) = match (desc.f, b) {
        (0, 8) if norm => (1, 0),
        (0, 16) if norm => (1, 1),
        (1, 8) if norm => (0, 2),
        (1, 16) if norm => (0, 3),
        (0, 8) => (5, 8),
        (0, 16) => (5, 9),
        (0, 32) => (5, 10),
        (1, 8) => (4, 11),
        (1, 16) => (4, 12),
        (1, 32) => (4, 13),
        (2, 16) => (7, 14),
        (2, 32) => (7, 15),
        _ => return None,
    };
    // DST_SEL: X 4, Y 5, Z 6, W 7, 0 and 1; channels the format lacks read 0 (alpha 1).
    let sel: [u32; 4] = match channels {
        1 => [4, 0, 0, 1],
        2 => [4, 5, 0, 1],
        _ => [4, 5, 6, 7],
    };
    let dst_sel = sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9;
    // HSA_EXT_IMAGE_CHANNEL_ORDER_R, _RG, _RGBA.
    let hsa_order = [0, 1, 3, 0, 8][channels as usize];
    Some(Format {
        data_format,
        num_format,
        dst_sel,
        bytes: b as u32 / 8 * channels,
        channels,
        hsa_type,
        hsa_order,
    })
}

/// An array's memory and shape; `width` in elements, `height` and `depth` at least 1.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArrayInfo {
    pub(crate) data: u64,
    pub(crate) desc: hipChannelFormatDesc,
    pub(crate) element: u64,
    pub(crate) width: u64,
    pub(crate) height: u64,
    pub(crate) depth: u64,
    /// Bytes from one row to the next.
    pub(crate) pitch: u64,
    pub(crate) flags: u32,
    /// What the program asked for: 0 for a missing height or depth.
    pub(crate) dims: u32,
    /// For a level of a mipmapped array, the mipmapped array's handle (whose memory this is);
    /// else 0.
    pub(crate) owner: u64,
}

impl ArrayInfo {
    /// Bytes of memory it takes.
    pub(crate) fn size(&self) -> u64 {
        self.pitch * self.height * self.depth
    }

    /// The image type a texture or surface of it has.
    pub(crate) fn image_type(&self) -> ImageType {
        let layered = self.flags & ARRAY_LAYERED != 0;
        match (self.dims, layered) {
            _ if self.flags & ARRAY_CUBEMAP != 0 => ImageType::Cube,
            (1, false) => ImageType::D1,
            (2, false) => ImageType::D2,
            (1, true) => ImageType::D1Array,
            (_, true) => ImageType::D2Array,
            _ => ImageType::D3,
        }
    }
}

/// A mipmapped array: `levels` images one after another in one allocation, as the emulator's
/// image instructions find them from the level-0 T# (`emu/src/exec/mimg/texel.rs`): level k is
/// max(1, W>>k) x max(1, H>>k) x max(1, D>>k) (3D; arrays and cube maps keep their slices),
/// its rows max(1, P>>k) elements apart, where P is level 0's row pitch in elements, and level
/// k+1 starts right after level k's last slice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MipmapInfo {
    /// Level 0's shape; `pitch` in bytes.
    pub(crate) base: ArrayInfo,
    pub(crate) levels: u32,
}

impl MipmapInfo {
    /// Level `k` as an array (its memory inside the chain's allocation).
    pub(crate) fn level(&self, k: u32) -> ArrayInfo {
        let b = &self.base;
        let mut offset = 0;
        for j in 0..k {
            offset += self.shape(j).size();
        }
        ArrayInfo {
            data: b.data + offset,
            ..self.shape(k)
        }
    }

    /// Level `k`'s shape, placed at level 0's address.
    fn shape(&self, k: u32) -> ArrayInfo {
        let b = &self.base;
        let shrink = |v: u64| (v >> k).max(1);
        let layered = b.flags & (ARRAY_LAYERED | ARRAY_CUBEMAP) != 0;
        ArrayInfo {
            width: shrink(b.width),
            height: if b.dims >= 2 { shrink(b.height) } else { 1 },
            depth: if b.dims == 3 && !layered {
                shrink(b.depth)
            } else {
                b.depth
            },
            pitch: shrink(b.pitch / b.element) * b.element,
            ..*b
        }
    }

    /// Bytes the whole chain takes.
    pub(crate) fn size(&self) -> u64 {
        (0..self.levels).map(|k| self.shape(k).size()).sum()
    }
}

/// A mipmapped array the runtime created, and the level handles given out so far.
pub(crate) struct Mipmapped {
    pub(crate) info: MipmapInfo,
    pub(crate) level_handles: Vec<(u32, u64)>,
}

/// An image view: where it lies and how big, in elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    pub(crate) base: u64,
    pub(crate) kind: ImageType,
    pub(crate) width: u64,
    pub(crate) height: u64,
    /// 3D depth, or array slices.
    pub(crate) depth: u64,
    /// Elements per row.
    pub(crate) pitch: u64,
    /// The view's mip levels, as BASE_LEVEL and LAST_LEVEL.
    pub(crate) levels: (u32, u32),
}

/// The 12-dword image object: the T# and the query words.
pub(crate) fn image_object(view: &View, f: &Format) -> [u32; IMAGE_OBJECT_DWORDS] {
    let mut w = [0u32; IMAGE_OBJECT_DWORDS];
    w[0] = (view.base >> 8) as u32;
    w[1] = ((view.base >> 40) & 0xff) as u32 | f.data_format << 20 | f.num_format << 26;
    w[2] = (view.width as u32 - 1) | (view.height as u32 - 1) << 14;
    // SW_MODE 0 (linear).
    let (first, last) = view.levels;
    w[3] = f.dst_sel | (first & 0xf) << 12 | (last & 0xf) << 16 | (view.kind as u32) << 28;
    w[4] = (view.depth as u32 - 1) | (view.pitch as u32 - 1) << 13;
    w[8] = f.hsa_type;
    w[9] = f.hsa_order;
    w[10] = view.width as u32;
    w
}

/// The image object of linear memory (`hipResourceTypeLinear`): a V# of `count` elements
/// (base, stride, NUM_RECORDS, format in word 3) where the T# would be, as `tex1Dfetch`'s
/// buffer load reads it.
pub(crate) fn buffer_object(base: u64, count: u64, f: &Format) -> [u32; IMAGE_OBJECT_DWORDS] {
    let mut w = [0u32; IMAGE_OBJECT_DWORDS];
    w[0] = base as u32;
    w[1] = ((base >> 32) & 0xffff) as u32 | f.bytes << 16;
    w[2] = count.min(u32::MAX as u64) as u32;
    w[3] = f.dst_sel | f.num_format << 12 | f.data_format << 15;
    w[8] = f.hsa_type;
    w[9] = f.hsa_order;
    w[10] = count.min(u32::MAX as u64) as u32;
    w
}

/// `hipTextureAddressMode` to SQ_TEX_CLAMP: wrap, clamp to the last texel, mirror, border.
fn clamp_mode(mode: i32) -> Option<u32> {
    Some(match mode {
        0 => 0,
        1 => 2,
        2 => 1,
        3 => 6,
        _ => return None,
    })
}

/// The S# of a texture descriptor; `None` for an address or filter mode HIP does not define.
pub(crate) fn sampler(t: &hipTextureDesc) -> Option<[u32; 4]> {
    let mut w = [0u32; 4];
    for (i, &m) in t.addressMode.iter().enumerate() {
        w[0] |= clamp_mode(m)? << (3 * i);
    }
    if t.normalizedCoords == 0 {
        w[0] |= 1 << 15; // FORCE_UNNORMALIZED
    }
    let linear = match t.filterMode {
        0 => 0,
        1 => 1,
        _ => return None,
    };
    let mip_linear = match t.mipmapFilterMode {
        0 => 0,
        1 => 1,
        _ => return None,
    };
    // MIN_LOD and MAX_LOD (u4.8) from the level clamps (a maximum of 0 means no clamp, as
    // CUDA's zeroed descriptors ask for), LOD_BIAS (s5.8); min and mag filter alike, Z filter
    // point (1) or linear (2); MIP_FILTER point (1) or linear (2), which only a view of
    // several levels uses; BORDER_COLOR_TYPE transparent black.
    let u4_8 = |v: f32| (v.clamp(0.0, 15.996) * 256.0).round() as u32;
    let max_lod = if t.maxMipmapLevelClamp > 0.0 {
        u4_8(t.maxMipmapLevelClamp)
    } else {
        0xf00
    };
    let bias = ((t.mipmapLevelBias.clamp(-16.0, 15.996) * 256.0).round() as i32 as u32) & 0x3fff;
    w[1] = u4_8(t.minMipmapLevelClamp) | max_lod << 12;
    w[2] = bias | linear << 20 | linear << 22 | (1 + linear) << 24 | (1 + mip_linear) << 26;
    Some(w)
}

/// A texture object's state: the descriptors the program gave, for the getters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextureInfo {
    pub(crate) res: hipResourceDesc,
    pub(crate) tex: hipTextureDesc,
    pub(crate) view: Option<hipResourceViewDesc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(x: i32, y: i32, z: i32, w: i32, f: i32) -> hipChannelFormatDesc {
        hipChannelFormatDesc { x, y, z, w, f }
    }

    #[test]
    fn formats_follow_the_channel_descriptor() {
        let f = format(&desc(32, 0, 0, 0, 2), false).unwrap();
        assert_eq!((f.data_format, f.num_format, f.bytes), (4, 7, 4));
        assert_eq!(f.dst_sel, 4 | 1 << 9);
        let f = format(&desc(8, 8, 8, 8, 1), true).unwrap();
        assert_eq!(
            (f.data_format, f.num_format, f.hsa_type, f.hsa_order),
            (10, 0, 2, 8)
        );
        let f = format(&desc(16, 16, 0, 0, 0), false).unwrap();
        assert_eq!((f.data_format, f.num_format, f.bytes), (5, 5, 4));
        // Three channels, mixed widths and 8-bit floats have no format.
        assert!(format(&desc(8, 8, 8, 0, 1), false).is_none());
        assert!(format(&desc(8, 16, 0, 0, 1), false).is_none());
        assert!(format(&desc(8, 0, 0, 0, 2), false).is_none());
    }

    #[test]
    fn image_object_fields() {
        let f = format(&desc(32, 0, 0, 0, 2), false).unwrap();
        let view = View {
            base: 0x1234_5678_9a00,
            kind: ImageType::D2,
            width: 100,
            height: 7,
            depth: 1,
            pitch: 128,
            levels: (0, 0),
        };
        let w = image_object(&view, &f);
        assert_eq!(w[0], 0x3456_789a);
        assert_eq!(w[1] & 0xff, 0x12);
        assert_eq!(w[2], 99 | 6 << 14);
        assert_eq!(w[3] >> 28, 9);
        assert_eq!(w[4], 127 << 13);
        assert_eq!(w[10], 100);
    }
}
