//! Texture references (`texture<T, dim, mode>` variables): binding one to linear memory, pitched
//! memory or an array makes a texture object from the reference's fields and writes it into
//! the reference, on the host and in the device variable the kernels read (as hipamd does);
//! unbinding destroys it. The `hipTexRef*` calls of the driver API read and set the fields.

use super::texture::{create_texture, destroy_texture};
use super::{call, put};
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

/// The reference's own fields as a texture descriptor, with the border colour set on it.
fn texture_desc(
    rt: &Runtime,
    tex: *const textureReference,
    r: &textureReference,
) -> hipTextureDesc {
    let border = rt.texref_borders.get(&(tex as usize)).copied();
    hipTextureDesc {
        addressMode: r.addressMode,
        filterMode: r.filterMode,
        readMode: r.readMode,
        sRGB: r.sRGB,
        borderColor: border.unwrap_or([0.0; 4]),
        normalizedCoords: r.normalized,
        maxAnisotropy: r.maxAnisotropy,
        mipmapFilterMode: r.mipmapFilterMode,
        mipmapLevelBias: r.mipmapLevelBias,
        minMipmapLevelClamp: r.minMipmapLevelClamp,
        maxMipmapLevelClamp: r.maxMipmapLevelClamp,
    }
}

fn resource(res_type: c_int, words: [u64; 7]) -> hipResourceDesc {
    hipResourceDesc {
        resType: res_type,
        res: words,
    }
}

/// The channel descriptor in a resource's words (after the pointer).
pub(crate) fn desc_words(d: &hipChannelFormatDesc) -> [u64; 3] {
    [
        d.x as u32 as u64 | (d.y as u32 as u64) << 32,
        d.z as u32 as u64 | (d.w as u32 as u64) << 32,
        d.f as u32 as u64,
    ]
}

/// Binds `tex` to `res`: a new texture object in the host reference and the device variable.
fn bind(
    rt: &mut Runtime,
    tex: *const textureReference,
    res: hipResourceDesc,
) -> Result<(), hipError_t> {
    let host = tex as *mut textureReference;
    let mut r = unsafe { host.as_ref() }.copied().ok_or(INVALID_VALUE)?;
    // A reference bound before lets go of its object first.
    destroy_texture(rt, r.textureObject)?;
    r.textureObject = std::ptr::null_mut();
    let td = texture_desc(rt, tex, &r);
    let mut obj: hipTextureObject_t = std::ptr::null_mut();
    create_texture(rt, &mut obj, &res, &td, std::ptr::null())?;
    r.textureObject = obj;
    // SAFETY: the program's reference, non-null (checked above).
    unsafe { host.write_unaligned(r) };
    write_device(rt, tex, &r)
}

/// Writes the reference to its device variable: the one the program registered for it, or
/// the module's variable a reference from `hipModuleGetTexRef` stands for (a reference in the
/// program's own memory has none).
fn write_device(
    rt: &mut Runtime,
    tex: *const textureReference,
    r: &textureReference,
) -> Result<(), hipError_t> {
    let addr = if rt.vars.contains_key(&(tex as usize)) {
        rt.var_address(tex as *const c_void)?.0
    } else if let Some((module, name)) = rt.module_texrefs.get(&(tex as usize)) {
        let (addr, _) = rt
            .loaded(*module)?
            .module
            .symbol(name)
            .ok_or(INVALID_SYMBOL)?;
        addr
    } else {
        return Ok(());
    };
    // SAFETY: plain data of the struct's size.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            r as *const textureReference as *const u8,
            std::mem::size_of::<textureReference>(),
        )
    };
    rt.device
        .memory_mut()
        .write(addr, bytes)
        .map_err(|_| INVALID_SYMBOL)
}

#[no_mangle]
pub unsafe extern "C" fn hipBindTexture(
    offset: *mut usize,
    tex: *const textureReference,
    ptr: *const c_void,
    desc: *const hipChannelFormatDesc,
    size: usize,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        if ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let [a, b, c] = desc_words(d);
        bind(
            rt,
            tex,
            resource(2, [ptr as u64, a, b, c, size as u64, 0, 0]),
        )?;
        if !offset.is_null() {
            put(offset, 0)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipBindTexture2D(
    offset: *mut usize,
    tex: *const textureReference,
    ptr: *const c_void,
    desc: *const hipChannelFormatDesc,
    width: usize,
    height: usize,
    pitch: usize,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        if ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let [a, b, c] = desc_words(d);
        let words = [
            ptr as u64,
            a,
            b,
            c,
            width as u64,
            height as u64,
            pitch as u64,
        ];
        bind(rt, tex, resource(3, words))?;
        if !offset.is_null() {
            put(offset, 0)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipBindTextureToArray(
    tex: *const textureReference,
    array: *const hipArray,
    _desc: *const hipChannelFormatDesc,
) -> hipError_t {
    call(|rt| {
        if array.is_null() {
            return Err(INVALID_VALUE);
        }
        bind(rt, tex, resource(0, [array as u64, 0, 0, 0, 0, 0, 0]))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipUnbindTexture(tex: *const textureReference) -> hipError_t {
    call(|rt| {
        let host = tex as *mut textureReference;
        let mut r = unsafe { host.as_ref() }.copied().ok_or(INVALID_VALUE)?;
        destroy_texture(rt, r.textureObject)?;
        r.textureObject = std::ptr::null_mut();
        // SAFETY: the program's reference, non-null (checked above).
        unsafe { host.write_unaligned(r) };
        write_device(rt, tex, &r)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetTextureReference(
    out: *mut *const textureReference,
    symbol: *const c_void,
) -> hipError_t {
    call(|rt| {
        if symbol.is_null() || !rt.vars.contains_key(&(symbol as usize)) {
            return Err(INVALID_VALUE);
        }
        put(out, symbol as *const textureReference)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetTextureAlignmentOffset(
    offset: *mut usize,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| {
        if tex.is_null() {
            return Err(INVALID_VALUE);
        }
        // Bindings here start where they are asked to: the offset is always 0.
        put(offset, 0)
    })
}

/// Reads or changes a reference's fields (the driver API's `hipTexRef*`).
fn with_ref<T>(
    tex: *const textureReference,
    f: impl FnOnce(&mut textureReference) -> Result<T, hipError_t>,
) -> Result<T, hipError_t> {
    let host = tex as *mut textureReference;
    let mut r = unsafe { host.as_ref() }.copied().ok_or(INVALID_VALUE)?;
    let out = f(&mut r)?;
    // SAFETY: the program's reference, non-null (checked above).
    unsafe { host.write_unaligned(r) };
    Ok(out)
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetAddressMode(
    tex: *mut textureReference,
    dim: c_int,
    mode: c_int,
) -> hipError_t {
    call(|_| {
        if !(0..3).contains(&dim) || !(0..=3).contains(&mode) {
            return Err(INVALID_VALUE);
        }
        with_ref(tex, |r| {
            r.addressMode[dim as usize] = mode;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetAddressMode(
    mode: *mut c_int,
    tex: *const textureReference,
    dim: c_int,
) -> hipError_t {
    call(|_| {
        if !(0..3).contains(&dim) {
            return Err(INVALID_VALUE);
        }
        let m = with_ref(tex, |r| Ok(r.addressMode[dim as usize]))?;
        put(mode, m)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetFilterMode(
    tex: *mut textureReference,
    mode: c_int,
) -> hipError_t {
    call(|_| {
        if !(0..=1).contains(&mode) {
            return Err(INVALID_VALUE);
        }
        with_ref(tex, |r| {
            r.filterMode = mode;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetFilterMode(
    mode: *mut c_int,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| put(mode, with_ref(tex, |r| Ok(r.filterMode))?))
}

/// `HIP_TRSF_READ_AS_INTEGER` (1), `HIP_TRSF_NORMALIZED_COORDINATES` (2), `HIP_TRSF_SRGB` (0x10).
#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetFlags(
    tex: *mut textureReference,
    flags: c_uint,
) -> hipError_t {
    call(|_| {
        with_ref(tex, |r| {
            r.readMode = (flags & 1 == 0) as c_int;
            r.normalized = (flags & 2 != 0) as c_int;
            r.sRGB = (flags & 0x10 != 0) as c_int;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetFlags(
    flags: *mut c_uint,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| {
        let f = with_ref(tex, |r| {
            Ok((r.readMode == 0) as c_uint
                | ((r.normalized != 0) as c_uint) << 1
                | ((r.sRGB != 0) as c_uint) << 4)
        })?;
        put(flags, f)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetFormat(
    tex: *mut textureReference,
    format: c_int,
    channels: c_int,
) -> hipError_t {
    call(|_| {
        let desc = super::array::driver_desc(format, channels as c_uint)?;
        with_ref(tex, |r| {
            r.channelDesc = desc;
            r.format = format;
            r.numChannels = channels;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetFormat(
    format: *mut c_int,
    channels: *mut c_int,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| {
        let (f, n) = with_ref(tex, |r| Ok((r.format, r.numChannels)))?;
        put(format, f)?;
        put(channels, n)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetAddress(
    offset: *mut usize,
    tex: *mut textureReference,
    ptr: *mut c_void,
    bytes: usize,
) -> hipError_t {
    let desc = match with_ref(tex, |r| Ok(r.channelDesc)) {
        Ok(d) => d,
        Err(e) => return crate::error::set_last(e),
    };
    hipBindTexture(offset, tex, ptr, &desc, bytes)
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetArray(
    tex: *mut textureReference,
    array: *const hipArray,
    _flags: c_uint,
) -> hipError_t {
    hipBindTextureToArray(tex, array, std::ptr::null())
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetAddress(
    ptr: *mut *mut c_void,
    tex: *const textureReference,
) -> hipError_t {
    call(|rt| {
        let obj = with_ref(tex, |r| Ok(r.textureObject))?;
        let info = rt.textures.get(&(obj as u64)).ok_or(INVALID_VALUE)?;
        match info.res.resource() {
            Some(Resource::Linear { ptr: p, .. }) | Some(Resource::Pitch2D { ptr: p, .. }) => {
                put(ptr, p as *mut c_void)
            }
            _ => Err(INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetAddress2D(
    tex: *mut textureReference,
    desc: *const HIP_ARRAY_DESCRIPTOR,
    ptr: *mut c_void,
    pitch: usize,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        let (bits, kind) = match d.Format {
            0x01 => (8, 1),
            0x02 => (16, 1),
            0x03 => (32, 1),
            0x08 => (8, 0),
            0x09 => (16, 0),
            0x0a => (32, 0),
            0x10 => (16, 2),
            0x20 => (32, 2),
            _ => return Err(INVALID_VALUE),
        };
        let n = d.NumChannels as c_int;
        let on = |i: c_int| if i < n { bits } else { 0 };
        let c = hipChannelFormatDesc {
            x: on(0),
            y: on(1),
            z: on(2),
            w: on(3),
            f: kind,
        };
        if ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let [a, b, k] = desc_words(&c);
        let words = [
            ptr as u64,
            a,
            b,
            k,
            d.Width as u64,
            d.Height as u64,
            pitch as u64,
        ];
        bind(rt, tex, resource(3, words))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetMaxAnisotropy(
    tex: *mut textureReference,
    max: c_uint,
) -> hipError_t {
    call(|_| {
        with_ref(tex, |r| {
            r.maxAnisotropy = max;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetMaxAnisotropy(
    max: *mut c_int,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| put(max, with_ref(tex, |r| Ok(r.maxAnisotropy as c_int))?))
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetMipmapFilterMode(
    tex: *mut textureReference,
    mode: c_int,
) -> hipError_t {
    call(|_| {
        if !(0..=1).contains(&mode) {
            return Err(INVALID_VALUE);
        }
        with_ref(tex, |r| {
            r.mipmapFilterMode = mode;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetMipmapFilterMode(
    mode: *mut c_int,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| put(mode, with_ref(tex, |r| Ok(r.mipmapFilterMode))?))
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetMipmapLevelBias(
    tex: *mut textureReference,
    bias: f32,
) -> hipError_t {
    call(|_| {
        with_ref(tex, |r| {
            r.mipmapLevelBias = bias;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetMipmapLevelBias(
    bias: *mut f32,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| put(bias, with_ref(tex, |r| Ok(r.mipmapLevelBias))?))
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetMipmapLevelClamp(
    tex: *mut textureReference,
    min: f32,
    max: f32,
) -> hipError_t {
    call(|_| {
        with_ref(tex, |r| {
            r.minMipmapLevelClamp = min;
            r.maxMipmapLevelClamp = max;
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefGetMipmapLevelClamp(
    min: *mut f32,
    max: *mut f32,
    tex: *const textureReference,
) -> hipError_t {
    call(|_| {
        let (a, b) = with_ref(tex, |r| Ok((r.minMipmapLevelClamp, r.maxMipmapLevelClamp)))?;
        put(min, a)?;
        put(max, b)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetBorderColor(
    tex: *mut textureReference,
    color: *const f32,
) -> hipError_t {
    call(|rt| {
        if tex.is_null() || color.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: four floats, as the call's contract says.
        let c = unsafe { std::ptr::read_unaligned(color as *const [f32; 4]) };
        // Taken by the next bind, as the reference's other fields are.
        rt.texref_borders.insert(tex as usize, c);
        Ok(())
    })
}

/// The reference standing for the texture variable `name` of a loaded module: binding it
/// writes the module's variable. The same variable gives the same reference each time.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetTexRef(
    out: *mut *mut textureReference,
    module: hipModule_t,
    name: *const std::ffi::c_char,
) -> hipError_t {
    call(|rt| {
        if out.is_null() || name.is_null() {
            return Err(INVALID_VALUE);
        }
        let id = super::module::module_id(rt, module)?;
        // SAFETY: a NUL-terminated variable name.
        let name = unsafe { std::ffi::CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        let (_, size) = rt.loaded(id)?.module.symbol(&name).ok_or(NOT_FOUND)?;
        if size != 0 && size < std::mem::size_of::<textureReference>() as u64 {
            return Err(INVALID_VALUE);
        }
        let known = rt
            .module_texrefs
            .iter()
            .find(|(_, (m, n))| *m == id && *n == name)
            .map(|(&p, _)| p);
        let p = match known {
            Some(p) => p,
            None => {
                // SAFETY: all-zero is a valid reference (no object bound, first modes).
                let fresh: textureReference = unsafe { std::mem::zeroed() };
                let p = Box::into_raw(Box::new(fresh)) as usize;
                rt.module_texrefs.insert(p, (id, name));
                p
            }
        };
        put(out, p as *mut textureReference)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipBindTextureToMipmappedArray(
    tex: *const textureReference,
    mipmap: *const hipMipmappedArray,
    _desc: *const hipChannelFormatDesc,
) -> hipError_t {
    call(|rt| {
        if mipmap.is_null() {
            return Err(INVALID_VALUE);
        }
        bind(rt, tex, resource(1, [mipmap as u64, 0, 0, 0, 0, 0, 0]))
    })
}

/// Binds the reference to a mipmapped array; `HIP_TRSA_OVERRIDE_FORMAT` is the only flag, and
/// the format is the array's either way (the texture object takes the resource's).
#[no_mangle]
pub unsafe extern "C" fn hipTexRefSetMipmappedArray(
    tex: *mut textureReference,
    mipmap: *mut hipMipmappedArray,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        if mipmap.is_null() || flags & !1 != 0 {
            return Err(INVALID_VALUE);
        }
        bind(rt, tex, resource(1, [mipmap as u64, 0, 0, 0, 0, 0, 0]))
    })
}
