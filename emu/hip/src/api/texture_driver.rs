//! Texture objects through the driver API (`hipTexObjectCreate` ...): the same objects as
//! `hipCreateTextureObject` makes, described by the driver's structures, which name formats as
//! `hipArray_Format` and channel counts and fold the read mode, coordinates and sRGB into flags.

#![allow(non_snake_case)]

use super::array::{driver_desc, format_of};
use super::call;
use super::texture::{create_texture, destroy_texture, texture_info};
use super::texture_ref::desc_words;
use crate::error::*;
use crate::types::*;
use std::ffi::{c_int, c_uint};

/// `HIP_TRSF_READ_AS_INTEGER`, `HIP_TRSF_NORMALIZED_COORDINATES`, `HIP_TRSF_SRGB`.
const READ_AS_INTEGER: c_uint = 0x01;
const NORMALIZED_COORDINATES: c_uint = 0x02;
const SRGB: c_uint = 0x10;

/// `HIP_RESOURCE_DESC`: the type, a union of 128 bytes, and flags (which must be 0).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct HIP_RESOURCE_DESC {
    resType: c_int,
    res: [u64; 16],
    flags: c_uint,
}

/// `HIP_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct HIP_TEXTURE_DESC {
    addressMode: [c_int; 3],
    filterMode: c_int,
    flags: c_uint,
    maxAnisotropy: c_uint,
    mipmapFilterMode: c_int,
    mipmapLevelBias: f32,
    minMipmapLevelClamp: f32,
    maxMipmapLevelClamp: f32,
    borderColor: [f32; 4],
    reserved: [c_int; 12],
}

/// `HIP_RESOURCE_VIEW_DESC`: `hipResourceViewDesc` and reserved words.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct HIP_RESOURCE_VIEW_DESC {
    view: hipResourceViewDesc,
    reserved: [c_uint; 16],
}

/// The format and channel count in a driver union's second word.
fn format_word(format: c_int, channels: c_uint) -> u64 {
    format as u32 as u64 | (channels as u64) << 32
}

fn channels(d: &hipChannelFormatDesc) -> c_uint {
    [d.x, d.y, d.z, d.w].iter().take_while(|&&b| b != 0).count() as c_uint
}

/// The runtime's resource descriptor for a driver one.
fn resource(d: &HIP_RESOURCE_DESC) -> Result<hipResourceDesc, hipError_t> {
    if d.flags != 0 {
        return Err(INVALID_VALUE);
    }
    let r = &d.res;
    let desc = || driver_desc(r[1] as u32 as c_int, (r[1] >> 32) as c_uint);
    let res = match d.resType {
        0 | 1 => [r[0], 0, 0, 0, 0, 0, 0],
        2 => {
            let [a, b, c] = desc_words(&desc()?);
            [r[0], a, b, c, r[2], 0, 0]
        }
        3 => {
            let [a, b, c] = desc_words(&desc()?);
            [r[0], a, b, c, r[2], r[3], r[4]]
        }
        _ => return Err(INVALID_VALUE),
    };
    Ok(hipResourceDesc {
        resType: d.resType,
        res,
    })
}

/// The driver's resource descriptor for a runtime one (the inverse of [`resource`]).
fn driver_resource(d: &hipResourceDesc) -> Result<HIP_RESOURCE_DESC, hipError_t> {
    let mut res = [0u64; 16];
    match d.resource().ok_or(INVALID_VALUE)? {
        Resource::Array(_) | Resource::Mipmap(_) => res[0] = d.res[0],
        Resource::Linear { ptr, desc, bytes } => {
            res[..3].copy_from_slice(&[ptr, format_word(format_of(&desc), channels(&desc)), bytes]);
        }
        Resource::Pitch2D {
            ptr,
            desc,
            width,
            height,
            pitch,
        } => {
            let f = format_word(format_of(&desc), channels(&desc));
            res[..5].copy_from_slice(&[ptr, f, width, height, pitch]);
        }
    }
    Ok(HIP_RESOURCE_DESC {
        resType: d.resType,
        res,
        flags: 0,
    })
}

fn texture_desc(d: &HIP_TEXTURE_DESC) -> hipTextureDesc {
    hipTextureDesc {
        addressMode: d.addressMode,
        filterMode: d.filterMode,
        // hipReadModeElementType (0) with READ_AS_INTEGER, else hipReadModeNormalizedFloat.
        readMode: (d.flags & READ_AS_INTEGER == 0) as c_int,
        sRGB: (d.flags & SRGB != 0) as c_int,
        borderColor: d.borderColor,
        normalizedCoords: (d.flags & NORMALIZED_COORDINATES != 0) as c_int,
        maxAnisotropy: d.maxAnisotropy,
        mipmapFilterMode: d.mipmapFilterMode,
        mipmapLevelBias: d.mipmapLevelBias,
        minMipmapLevelClamp: d.minMipmapLevelClamp,
        maxMipmapLevelClamp: d.maxMipmapLevelClamp,
    }
}

fn driver_texture_desc(t: &hipTextureDesc) -> HIP_TEXTURE_DESC {
    let flags = if t.readMode == 0 { READ_AS_INTEGER } else { 0 }
        | if t.normalizedCoords != 0 {
            NORMALIZED_COORDINATES
        } else {
            0
        }
        | if t.sRGB != 0 { SRGB } else { 0 };
    HIP_TEXTURE_DESC {
        addressMode: t.addressMode,
        filterMode: t.filterMode,
        flags,
        maxAnisotropy: t.maxAnisotropy,
        mipmapFilterMode: t.mipmapFilterMode,
        mipmapLevelBias: t.mipmapLevelBias,
        minMipmapLevelClamp: t.minMipmapLevelClamp,
        maxMipmapLevelClamp: t.maxMipmapLevelClamp,
        borderColor: t.borderColor,
        reserved: [0; 12],
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipTexObjectCreate(
    out: *mut hipTextureObject_t,
    res: *const HIP_RESOURCE_DESC,
    tex: *const HIP_TEXTURE_DESC,
    view: *const HIP_RESOURCE_VIEW_DESC,
) -> hipError_t {
    call(|rt| {
        let res = resource(unsafe { res.as_ref() }.ok_or(INVALID_VALUE)?)?;
        let tex = texture_desc(unsafe { tex.as_ref() }.ok_or(INVALID_VALUE)?);
        let view = unsafe { view.as_ref() }.map(|v| v.view);
        let view_ptr = view.as_ref().map_or(std::ptr::null(), |v| v as *const _);
        create_texture(rt, out, &res, &tex, view_ptr)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexObjectDestroy(obj: hipTextureObject_t) -> hipError_t {
    call(|rt| destroy_texture(rt, obj))
}

#[no_mangle]
pub unsafe extern "C" fn hipTexObjectGetResourceDesc(
    out: *mut HIP_RESOURCE_DESC,
    obj: hipTextureObject_t,
) -> hipError_t {
    call(|rt| super::put(out, driver_resource(&texture_info(rt, obj)?.res)?))
}

#[no_mangle]
pub unsafe extern "C" fn hipTexObjectGetTextureDesc(
    out: *mut HIP_TEXTURE_DESC,
    obj: hipTextureObject_t,
) -> hipError_t {
    call(|rt| super::put(out, driver_texture_desc(&texture_info(rt, obj)?.tex)))
}

#[no_mangle]
pub unsafe extern "C" fn hipTexObjectGetResourceViewDesc(
    out: *mut HIP_RESOURCE_VIEW_DESC,
    obj: hipTextureObject_t,
) -> hipError_t {
    call(|rt| {
        let view = super::texture::view_or_whole(&texture_info(rt, obj)?);
        super::put(
            out,
            HIP_RESOURCE_VIEW_DESC {
                view,
                reserved: [0; 16],
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes as clang lays out ROCm 5.2's `driver_types.h` (sizeof and offsetof printed by a
    /// program hipcc built).
    #[test]
    fn layouts() {
        assert_eq!(std::mem::size_of::<HIP_RESOURCE_DESC>(), 144);
        assert_eq!(std::mem::offset_of!(HIP_RESOURCE_DESC, flags), 136);
        assert_eq!(std::mem::size_of::<HIP_TEXTURE_DESC>(), 104);
        assert_eq!(std::mem::size_of::<HIP_RESOURCE_VIEW_DESC>(), 112);
    }

    #[test]
    fn resources_convert_both_ways() {
        // A pitched 2D resource of float2 (FLOAT = 0x20, two channels).
        let mut d = HIP_RESOURCE_DESC {
            resType: 3,
            res: [0; 16],
            flags: 0,
        };
        d.res[..5].copy_from_slice(&[0x1000, format_word(0x20, 2), 64, 32, 512]);
        let r = resource(&d).unwrap();
        match r.resource().unwrap() {
            Resource::Pitch2D {
                ptr,
                desc,
                width,
                height,
                pitch,
            } => {
                assert_eq!((ptr, width, height, pitch), (0x1000, 64, 32, 512));
                assert_eq!((desc.x, desc.y, desc.z, desc.w, desc.f), (32, 32, 0, 0, 2));
            }
            other => panic!("{other:?}"),
        }
        let back = driver_resource(&r).unwrap();
        assert_eq!(back.res, d.res);
        assert_eq!(back.resType, 3);
        // Flags must be zero; three channels are not a format.
        assert!(resource(&HIP_RESOURCE_DESC { flags: 1, ..d }).is_err());
        d.res[1] = format_word(0x20, 3);
        assert!(resource(&d).is_err());
    }

    #[test]
    fn texture_flags_become_fields_and_back() {
        let d = HIP_TEXTURE_DESC {
            addressMode: [1, 2, 3],
            filterMode: 1,
            flags: NORMALIZED_COORDINATES | SRGB,
            maxAnisotropy: 0,
            mipmapFilterMode: 0,
            mipmapLevelBias: 0.0,
            minMipmapLevelClamp: 0.0,
            maxMipmapLevelClamp: 0.0,
            borderColor: [0.5, 0.0, 0.0, 1.0],
            reserved: [0; 12],
        };
        let t = texture_desc(&d);
        assert_eq!((t.readMode, t.normalizedCoords, t.sRGB), (1, 1, 1));
        assert_eq!(t.borderColor, [0.5, 0.0, 0.0, 1.0]);
        assert_eq!(driver_texture_desc(&t).flags, d.flags);
        let int = texture_desc(&HIP_TEXTURE_DESC {
            flags: READ_AS_INTEGER,
            ..d
        });
        assert_eq!((int.readMode, int.normalizedCoords, int.sRGB), (0, 0, 0));
        assert_eq!(driver_texture_desc(&int).flags, READ_AS_INTEGER);
    }
}
