//! Texture and surface objects: device memory holding the descriptors a kernel's image
//! instructions read (`crate::texture` lays them out), made from an array, linear memory or
//! pitched 2D memory, and the getters that give back what they were made from.

use super::{array::array, call, put};
use crate::allocation::AllocClass;
use crate::error::*;
use crate::runtime::Runtime;
use crate::texture::{self, Format, TextureInfo, View, IMAGE_OBJECT_DWORDS, TEXTURE_OBJECT_DWORDS};
use crate::types::*;
use std::ffi::c_void;

/// Largest texture sizes, as the device properties give them.
const MAX_1D_LINEAR: u64 = i32::MAX as u64;
const MAX_2D: u64 = 16384;
/// Base and row alignment a pitched 2D resource needs (`texturePitchAlignment`).
const PITCH_ALIGNMENT: u64 = 256;

/// The image object of a resource, read as `normalized` says.
fn image_object(
    rt: &Runtime,
    res: &hipResourceDesc,
    normalized: bool,
    view: Option<&hipResourceViewDesc>,
) -> Result<[u32; IMAGE_OBJECT_DWORDS], hipError_t> {
    let fmt = |desc: &hipChannelFormatDesc| -> Result<Format, hipError_t> {
        texture::format(desc, normalized).ok_or(INVALID_VALUE)
    };
    match res.resource().ok_or(INVALID_VALUE)? {
        Resource::Array(a) => {
            let a = array(rt, a as *const c_void)?;
            let f = fmt(&a.desc)?;
            let view = View {
                base: a.data,
                kind: a.image_type(),
                width: a.width,
                height: a.height,
                depth: a.depth,
                pitch: a.pitch / a.element,
                levels: (0, 0),
            };
            Ok(texture::image_object(&view, &f))
        }
        Resource::Mipmap(m) => {
            let m = super::mipmap::mipmap(rt, m as *const c_void)?;
            let a = &m.base;
            let f = fmt(&a.desc)?;
            // A view may narrow the levels (hipResourceViewDesc's first and last level).
            let (first, last) = match view {
                Some(v) if v.lastMipmapLevel >= v.firstMipmapLevel && v.lastMipmapLevel > 0 => {
                    (v.firstMipmapLevel, v.lastMipmapLevel)
                }
                _ => (0, m.levels - 1),
            };
            if last >= m.levels {
                return Err(INVALID_VALUE);
            }
            let view = View {
                base: a.data,
                kind: a.image_type(),
                width: a.width,
                height: a.height,
                depth: a.depth,
                pitch: a.pitch / a.element,
                levels: (first, last),
            };
            Ok(texture::image_object(&view, &f))
        }
        Resource::Linear { ptr, desc, bytes } => {
            let f = fmt(&desc)?;
            let count = bytes / f.bytes as u64;
            if ptr == 0 || count == 0 || count > MAX_1D_LINEAR {
                return Err(INVALID_VALUE);
            }
            rt.check_device_range(ptr, bytes)?;
            Ok(texture::buffer_object(ptr, count, &f))
        }
        Resource::Pitch2D {
            ptr,
            desc,
            width,
            height,
            pitch,
        } => {
            let f = fmt(&desc)?;
            let row = width * f.bytes as u64;
            let fits = width > 0 && height > 0 && width <= MAX_2D && height <= MAX_2D;
            if ptr == 0
                || !fits
                || pitch < row
                || ptr % PITCH_ALIGNMENT != 0
                || pitch % PITCH_ALIGNMENT != 0
            {
                return Err(INVALID_VALUE);
            }
            rt.check_device_range(ptr, (height - 1) * pitch + row)?;
            let view = View {
                base: ptr,
                kind: texture::ImageType::D2,
                width,
                height,
                depth: 1,
                pitch: pitch / f.bytes as u64,
                levels: (0, 0),
            };
            Ok(texture::image_object(&view, &f))
        }
    }
}

/// Puts `dwords` in new device memory of `total` dwords; returns its address.
fn place(rt: &mut Runtime, dwords: &[u32], total: usize) -> Result<u64, hipError_t> {
    let addr = rt.alloc(4 * total as u64, AllocClass::Device, 0)?;
    let mut bytes: Vec<u8> = dwords.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.resize(4 * total, 0);
    // SAFETY: `addr` is a new allocation of `4 * total` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
    rt.device
        .memory_mut()
        .note_host_write(addr, bytes.len() as u64);
    Ok(addr)
}

pub(crate) fn create_texture(
    rt: &mut Runtime,
    out: *mut hipTextureObject_t,
    res: *const hipResourceDesc,
    tex: *const hipTextureDesc,
    view: *const hipResourceViewDesc,
) -> Result<(), hipError_t> {
    let res = unsafe { res.as_ref() }.ok_or(INVALID_VALUE)?;
    let tex = unsafe { tex.as_ref() }.ok_or(INVALID_VALUE)?;
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let view = unsafe { view.as_ref() }.copied();
    // A resource view narrows an array's format, size or levels; hipamd refuses one for
    // linear and pitched memory.
    if view.is_some() && !matches!(res.resType, 0 | 1) {
        return Err(INVALID_VALUE);
    }
    // hipReadModeNormalizedFloat (1) reads 8- and 16-bit integers as normalised floats.
    let image = image_object(rt, res, tex.readMode == 1, view.as_ref())?;
    let sampler = texture::sampler(tex).ok_or(INVALID_VALUE)?;
    let mut words = image.to_vec();
    words.extend(sampler);
    let addr = place(rt, &words, TEXTURE_OBJECT_DWORDS)?;
    rt.textures.insert(
        addr,
        TextureInfo {
            res: *res,
            tex: *tex,
            view,
        },
    );
    put(out, addr as hipTextureObject_t)
}

#[no_mangle]
pub unsafe extern "C" fn hipCreateTextureObject(
    out: *mut hipTextureObject_t,
    res: *const hipResourceDesc,
    tex: *const hipTextureDesc,
    view: *const hipResourceViewDesc,
) -> hipError_t {
    call(|rt| create_texture(rt, out, res, tex, view))
}

#[no_mangle]
pub unsafe extern "C" fn hipDestroyTextureObject(obj: hipTextureObject_t) -> hipError_t {
    call(|rt| destroy_texture(rt, obj))
}

pub(crate) fn destroy_texture(rt: &mut Runtime, obj: hipTextureObject_t) -> Result<(), hipError_t> {
    if obj.is_null() {
        return Ok(());
    }
    rt.textures.remove(&(obj as u64)).ok_or(INVALID_VALUE)?;
    rt.free(obj as u64, &[AllocClass::Device])
}

pub(crate) fn texture_info(
    rt: &Runtime,
    obj: hipTextureObject_t,
) -> Result<TextureInfo, hipError_t> {
    rt.textures.get(&(obj as u64)).copied().ok_or(INVALID_VALUE)
}

#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectResourceDesc(
    out: *mut hipResourceDesc,
    obj: hipTextureObject_t,
) -> hipError_t {
    call(|rt| put(out, texture_info(rt, obj)?.res))
}

#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectTextureDesc(
    out: *mut hipTextureDesc,
    obj: hipTextureObject_t,
) -> hipError_t {
    call(|rt| put(out, texture_info(rt, obj)?.tex))
}

#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectResourceViewDesc(
    out: *mut hipResourceViewDesc,
    obj: hipTextureObject_t,
) -> hipError_t {
    call(|rt| put(out, view_or_whole(&texture_info(rt, obj)?)))
}

/// The view a texture was made with; without one it sees its whole resource, and the view's
/// fields are 0.
pub(crate) fn view_or_whole(info: &TextureInfo) -> hipResourceViewDesc {
    info.view.unwrap_or(hipResourceViewDesc {
        format: 0,
        width: 0,
        height: 0,
        depth: 0,
        firstMipmapLevel: 0,
        lastMipmapLevel: 0,
        firstLayer: 0,
        lastLayer: 0,
    })
}

#[allow(non_snake_case)]
#[export_name = "_Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc"]
pub unsafe extern "C" fn hipCreateSurfaceObject(
    out: *mut hipSurfaceObject_t,
    res: *const hipResourceDesc,
) -> hipError_t {
    call(|rt| {
        let res = unsafe { res.as_ref() }.ok_or(INVALID_VALUE)?;
        if out.is_null() || res.resType != 0 {
            return Err(INVALID_VALUE);
        }
        let image = image_object(rt, res, false, None)?;
        let addr = place(rt, &image, IMAGE_OBJECT_DWORDS)?;
        rt.surfaces.insert(addr, *res);
        put(out, addr as hipSurfaceObject_t)
    })
}

#[allow(non_snake_case)]
#[export_name = "_Z23hipDestroySurfaceObjectP13__hip_surface"]
pub unsafe extern "C" fn hipDestroySurfaceObject(obj: hipSurfaceObject_t) -> hipError_t {
    call(|rt| {
        if obj.is_null() {
            return Ok(());
        }
        rt.surfaces.remove(&(obj as u64)).ok_or(INVALID_VALUE)?;
        rt.free(obj as u64, &[AllocClass::Device])
    })
}
