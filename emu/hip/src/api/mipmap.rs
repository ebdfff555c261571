//! Mipmapped arrays: a chain of levels in one allocation, laid out as `crate::texture::MipmapInfo`
//! says (the layout the emulator's image instructions find levels by). A level handed out by
//! `hipGetMipmappedArrayLevel` is an ordinary array handle over that level's memory (copies to
//! and from it work as for any array), which the mipmapped array owns: `hipFreeArray` refuses
//! it, and it goes when the mipmapped array is freed.

use super::array::{driver_desc, hand_out, shape};
use super::{call, put};
use crate::allocation::AllocClass;
use crate::error::*;
use crate::runtime::Runtime;
use crate::texture::{MipmapInfo, Mipmapped};
use crate::types::*;
use std::ffi::{c_uint, c_void};

/// Levels a T# can name (LAST_LEVEL is four bits).
const MAX_LEVELS: u32 = 16;

/// The mipmapped array behind a handle the runtime gave out.
pub(crate) fn mipmap(rt: &Runtime, m: *const c_void) -> Result<MipmapInfo, hipError_t> {
    rt.mipmaps
        .get(&(m as u64))
        .map(|m| m.info)
        .ok_or(INVALID_VALUE)
}

fn create(
    rt: &mut Runtime,
    out: *mut *mut hipMipmappedArray,
    desc: &hipChannelFormatDesc,
    extent: [u64; 3],
    levels: c_uint,
    flags: u32,
) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let base = shape(desc, extent, flags)?;
    // The full chain ends at 1 x 1 x 1; 0 levels asks for the full chain, as in CUDA.
    let largest = extent.iter().copied().max().unwrap_or(1).max(1);
    let full = (64 - largest.leading_zeros()).min(MAX_LEVELS);
    let levels = if levels == 0 { full } else { levels.min(full) };
    let mut info = MipmapInfo { base, levels };
    info.base.data = rt.alloc(info.size(), AllocClass::Device, 0)?;
    let handle = Box::into_raw(Box::new(hipMipmappedArray {
        data: info.base.data as *mut c_void,
        desc: *desc,
        type_: 0,
        width: extent[0] as c_uint,
        height: extent[1] as c_uint,
        depth: extent[2] as c_uint,
        min_mipmap_level: 0,
        max_mipmap_level: levels - 1,
        flags,
        format: super::array::format_of(desc),
    }));
    rt.mipmaps.insert(
        handle as u64,
        Mipmapped {
            info,
            level_handles: Vec::new(),
        },
    );
    put(out, handle)
}

fn level(
    rt: &mut Runtime,
    out: *mut *mut hipArray,
    m: *const hipMipmappedArray,
    level: c_uint,
) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let key = m as u64;
    let info = mipmap(rt, m as *const c_void)?;
    if level >= info.levels {
        return Err(INVALID_VALUE);
    }
    let known = rt.mipmaps[&key]
        .level_handles
        .iter()
        .find(|(l, _)| *l == level)
        .map(|&(_, h)| h);
    let handle = match known {
        Some(h) => h as *mut hipArray,
        None => {
            let mut a = info.level(level);
            a.owner = key;
            let extent = [
                a.width,
                if a.dims >= 2 { a.height } else { 0 },
                if a.dims == 3 { a.depth } else { 0 },
            ];
            let h = hand_out(rt, a, extent, false);
            let entry = rt.mipmaps.get_mut(&key).expect("present");
            entry.level_handles.push((level, h as u64));
            h
        }
    };
    put(out, handle)
}

fn destroy(rt: &mut Runtime, m: *mut hipMipmappedArray) -> Result<(), hipError_t> {
    if m.is_null() {
        return Err(INVALID_VALUE);
    }
    let entry = rt.mipmaps.remove(&(m as u64)).ok_or(INVALID_VALUE)?;
    for (_, h) in entry.level_handles {
        rt.arrays.remove(&h);
        // SAFETY: the box `hand_out` leaked for this level, removed from the table above.
        drop(unsafe { Box::from_raw(h as *mut hipArray) });
    }
    rt.free(entry.info.base.data, &[AllocClass::Device])?;
    // SAFETY: the box `create` leaked for this handle, removed from the table above.
    drop(unsafe { Box::from_raw(m) });
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocMipmappedArray(
    out: *mut *mut hipMipmappedArray,
    desc: *const hipChannelFormatDesc,
    extent: hipExtent,
    levels: c_uint,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        let desc = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        let e = [
            extent.width as u64,
            extent.height as u64,
            extent.depth as u64,
        ];
        create(rt, out, desc, e, levels, flags)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMipmappedArrayCreate(
    out: *mut *mut hipMipmappedArray,
    desc: *const HIP_ARRAY3D_DESCRIPTOR,
    levels: c_uint,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        let channel = driver_desc(d.Format, d.NumChannels)?;
        let e = [d.Width as u64, d.Height as u64, d.Depth as u64];
        create(rt, out, &channel, e, levels, d.Flags)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetMipmappedArrayLevel(
    out: *mut *mut hipArray,
    m: *const hipMipmappedArray,
    k: c_uint,
) -> hipError_t {
    call(|rt| level(rt, out, m, k))
}

#[no_mangle]
pub unsafe extern "C" fn hipMipmappedArrayGetLevel(
    out: *mut *mut hipArray,
    m: *mut hipMipmappedArray,
    k: c_uint,
) -> hipError_t {
    call(|rt| level(rt, out, m, k))
}

#[no_mangle]
pub unsafe extern "C" fn hipFreeMipmappedArray(m: *mut hipMipmappedArray) -> hipError_t {
    call(|rt| {
        destroy(rt, m)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMipmappedArrayDestroy(m: *mut hipMipmappedArray) -> hipError_t {
    call(|rt| {
        destroy(rt, m)?;
        rt.take_pending()
    })
}
