//! HIP arrays: creation and destruction, their channel descriptor, and copies to and from them
//! (2D, linear offsets, 3D). An array is linear device memory (rows padded to 256 bytes, slices
//! of whole rows) behind a `hipArray` the program may read; `crate::texture` says why. A copy
//! that names an array becomes a pitched 3D copy over that memory, so arrays in graph memcpy
//! nodes work as stream copies do.

use super::{call, put};
use crate::allocation::AllocClass;
use crate::error::*;
use crate::graph::{Copy3d, NodeKind, Pitched};
use crate::runtime::Runtime;
use crate::texture::{self, ArrayInfo, ARRAY_CUBEMAP, ARRAY_LAYERED, ROW_ALIGNMENT};
use crate::types::memcpy_kind::*;
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

/// Largest array dimensions (the device's `maxTexture*` limits): 1D, 2D and 3D.
const MAX_1D: u64 = 16384;
const MAX_2D: u64 = 16384;
const MAX_3D: u64 = 2048;
/// Layers of a layered array.
const MAX_LAYERS: u64 = 2048;

/// `hipArray_Format` (driver API) to bits and kind: UNSIGNED_INT8/16/32 (0x01..0x03),
/// SIGNED_INT8/16/32 (0x08..0x0a), HALF (0x10), FLOAT (0x20).
fn driver_format(format: c_int) -> Option<(c_int, c_int)> {
    Some(match format {
        0x01 => (8, 1),
        0x02 => (16, 1),
        0x03 => (32, 1),
        0x08 => (8, 0),
        0x09 => (16, 0),
        0x0a => (32, 0),
        0x10 => (16, 2),
        0x20 => (32, 2),
        _ => return None,
    })
}

/// The driver format of a channel descriptor (for `hipArray::Format`).
fn format_of(desc: &hipChannelFormatDesc) -> c_int {
    match (desc.x, desc.f) {
        (8, 1) => 0x01,
        (16, 1) => 0x02,
        (32, 1) => 0x03,
        (8, 0) => 0x08,
        (16, 0) => 0x09,
        (32, 0) => 0x0a,
        (16, 2) => 0x10,
        _ => 0x20,
    }
}

/// Creates an array of `width` x `height` x `depth` elements (0 for a missing dimension).
fn create(
    rt: &mut Runtime,
    out: *mut *mut hipArray,
    desc: &hipChannelFormatDesc,
    extent: [u64; 3],
    flags: u32,
    driver: bool,
) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = texture::format(desc, false).ok_or(INVALID_VALUE)?;
    let [width, height, depth] = extent;
    let dims = if depth > 0 {
        3
    } else if height > 0 {
        2
    } else {
        1
    };
    let layered = flags & ARRAY_LAYERED != 0;
    let cube = flags & ARRAY_CUBEMAP != 0;
    let known = ARRAY_LAYERED
        | texture::ARRAY_SURFACE_LOAD_STORE
        | ARRAY_CUBEMAP
        | texture::ARRAY_TEXTURE_GATHER;
    if width == 0 || flags & !known != 0 || (height == 0 && depth > 0) {
        return Err(INVALID_VALUE);
    }
    let fits = match (dims, layered) {
        _ if cube => width == height && depth == 6 * if layered { depth / 6 } else { 1 },
        (1, _) => width <= MAX_1D,
        (2, false) => width <= MAX_2D && height <= MAX_2D,
        (2, true) => width <= MAX_1D && height <= MAX_LAYERS,
        (_, true) => width <= MAX_2D && height <= MAX_2D && depth <= MAX_LAYERS,
        _ => width <= MAX_3D && height <= MAX_3D && depth <= MAX_3D,
    };
    if !fits || (layered && dims == 1) {
        return Err(INVALID_VALUE);
    }
    let element = f.bytes as u64;
    let pitch = (width * element).next_multiple_of(ROW_ALIGNMENT);
    // A layered array with a height of 0 is a 1D layered array: its layers are rows.
    let (dims, height, depth) = if layered && depth == 0 {
        (1, 1, height)
    } else {
        (dims, height.max(1), depth.max(1))
    };
    let mut info = ArrayInfo {
        data: 0,
        desc: *desc,
        element,
        width,
        height,
        depth,
        pitch,
        flags,
        dims,
    };
    info.data = rt.alloc(info.size(), AllocClass::Device, 0)?;
    let handle = Box::into_raw(Box::new(hipArray {
        data: info.data as *mut c_void,
        desc: *desc,
        type_: 0,
        width: width as c_uint,
        height: extent[1] as c_uint,
        depth: extent[2] as c_uint,
        Format: format_of(desc),
        NumChannels: f.channels,
        isDrv: driver,
        textureType: 0,
    }));
    rt.arrays.insert(handle as u64, info);
    put(out, handle)
}

/// The array behind a handle the runtime gave out.
pub(crate) fn array(rt: &Runtime, a: *const c_void) -> Result<ArrayInfo, hipError_t> {
    rt.arrays.get(&(a as u64)).copied().ok_or(INVALID_VALUE)
}

fn destroy(rt: &mut Runtime, a: *mut hipArray) -> Result<(), hipError_t> {
    let info = rt.arrays.remove(&(a as u64)).ok_or(INVALID_VALUE)?;
    rt.free(info.data, &[AllocClass::Device])?;
    // SAFETY: the box `create` leaked for this handle, removed from the table above.
    drop(unsafe { Box::from_raw(a) });
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocArray(
    array: *mut *mut hipArray,
    desc: *const hipChannelFormatDesc,
    width: usize,
    height: usize,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        let desc = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        create(
            rt,
            array,
            desc,
            [width as u64, height as u64, 0],
            flags,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMalloc3DArray(
    array: *mut *mut hipArray,
    desc: *const hipChannelFormatDesc,
    extent: hipExtent,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        let desc = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        let e = [
            extent.width as u64,
            extent.height as u64,
            extent.depth as u64,
        ];
        create(rt, array, desc, e, flags, false)
    })
}

fn driver_desc(format: c_int, channels: c_uint) -> Result<hipChannelFormatDesc, hipError_t> {
    let (bits, f) = driver_format(format).ok_or(INVALID_VALUE)?;
    let on = |i: c_uint| if i < channels { bits } else { 0 };
    if !matches!(channels, 1 | 2 | 4) {
        return Err(INVALID_VALUE);
    }
    Ok(hipChannelFormatDesc {
        x: on(0),
        y: on(1),
        z: on(2),
        w: on(3),
        f,
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipArrayCreate(
    array: *mut *mut hipArray,
    desc: *const HIP_ARRAY_DESCRIPTOR,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        let c = driver_desc(d.Format, d.NumChannels)?;
        create(rt, array, &c, [d.Width as u64, d.Height as u64, 0], 0, true)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipArray3DCreate(
    array: *mut *mut hipArray,
    desc: *const HIP_ARRAY3D_DESCRIPTOR,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        let c = driver_desc(d.Format, d.NumChannels)?;
        let e = [d.Width as u64, d.Height as u64, d.Depth as u64];
        create(rt, array, &c, e, d.Flags, true)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipFreeArray(array: *mut hipArray) -> hipError_t {
    call(|rt| {
        if array.is_null() {
            return Err(INVALID_VALUE);
        }
        destroy(rt, array)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipArrayDestroy(array: *mut hipArray) -> hipError_t {
    hipFreeArray(array)
}

#[no_mangle]
pub unsafe extern "C" fn hipGetChannelDesc(
    desc: *mut hipChannelFormatDesc,
    array: *const hipArray,
) -> hipError_t {
    call(|rt| {
        let a = self::array(rt, array as *const c_void)?;
        put(desc, a.desc)
    })
}

/// An array as one side of a pitched copy, with `pos` (x in elements) turned into bytes and
/// checked, with `extent` (width in bytes), against its size.
fn array_side(
    a: &ArrayInfo,
    pos: [u64; 3],
    extent: [u64; 3],
) -> Result<(Pitched, [u64; 3]), hipError_t> {
    let row = a.width * a.element;
    let x = pos[0].checked_mul(a.element).ok_or(INVALID_VALUE)?;
    let ok = x.checked_add(extent[0]).is_some_and(|e| e <= row)
        && pos[1].checked_add(extent[1]).is_some_and(|e| e <= a.height)
        && pos[2].checked_add(extent[2]).is_some_and(|e| e <= a.depth);
    if !ok {
        return Err(INVALID_VALUE);
    }
    let pitched = Pitched {
        ptr: a.data,
        pitch: a.pitch,
        xsize: row,
        ysize: a.height,
    };
    Ok((pitched, [x, pos[1], pos[2]]))
}

/// A `hipMemcpy3DParms` with arrays on either side as a pitched copy: extent and array
/// positions are in elements when an array is named, in bytes otherwise.
pub(crate) fn copy_3d(rt: &Runtime, p: &hipMemcpy3DParms) -> Result<Copy3d, hipError_t> {
    if p.srcArray.is_null() && p.dstArray.is_null() {
        return super::graph::copy_3d(p);
    }
    let (src_a, dst_a) = (!p.srcArray.is_null(), !p.dstArray.is_null());
    if (src_a && !p.srcPtr.ptr.is_null()) || (dst_a && !p.dstPtr.ptr.is_null()) {
        return Err(INVALID_VALUE);
    }
    if !(HOST_TO_HOST..=DEFAULT).contains(&p.kind) {
        return Err(INVALID_MEMCPY_DIRECTION);
    }
    let element = if src_a {
        array(rt, p.srcArray)?.element
    } else {
        array(rt, p.dstArray)?.element
    };
    let extent = [
        p.extent.width as u64 * element,
        p.extent.height as u64,
        p.extent.depth as u64,
    ];
    let linear = |q: &hipPitchedPtr, pos: &hipPos| -> Result<(Pitched, [u64; 3]), hipError_t> {
        if q.ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let x = pos.x as u64 * element;
        if extent[1] * extent[2] > 1 && x + extent[0] > q.pitch as u64 {
            return Err(INVALID_PITCH_VALUE);
        }
        let pitched = Pitched {
            ptr: q.ptr as u64,
            pitch: q.pitch as u64,
            xsize: q.xsize as u64,
            ysize: q.ysize as u64,
        };
        Ok((pitched, [x, pos.y as u64, pos.z as u64]))
    };
    let pos = |q: &hipPos| [q.x as u64, q.y as u64, q.z as u64];
    let (src, src_pos) = if src_a {
        array_side(&array(rt, p.srcArray)?, pos(&p.srcPos), extent)?
    } else {
        linear(&p.srcPtr, &p.srcPos)?
    };
    let (dst, dst_pos) = if dst_a {
        array_side(&array(rt, p.dstArray)?, pos(&p.dstPos), extent)?
    } else {
        linear(&p.dstPtr, &p.dstPos)?
    };
    Ok(Copy3d {
        src,
        src_pos,
        dst,
        dst_pos,
        extent,
        kind: p.kind,
    })
}

/// Runs a copy now, or adds it to the stream's capture.
fn enqueue(rt: &mut Runtime, c: Copy3d, stream: Option<hipStream_t>) -> Result<(), hipError_t> {
    match stream {
        Some(s) => {
            rt.check_stream(s)?;
            if super::capture::captured(rt, s, |_| Ok(NodeKind::Memcpy(c)))? {
                return Ok(());
            }
            super::graph_exec::run_copy_3d(rt, &c)
        }
        None => {
            super::capture::synchronous(rt)?;
            super::graph_exec::run_copy_3d(rt, &c)?;
            rt.take_pending()
        }
    }
}

fn memcpy_3d(p: *const hipMemcpy3DParms, stream: Option<hipStream_t>) -> hipError_t {
    call(|rt| {
        let p = unsafe { p.as_ref() }.ok_or(INVALID_VALUE)?;
        let c = copy_3d(rt, p)?;
        enqueue(rt, c, stream)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3D(p: *const hipMemcpy3DParms) -> hipError_t {
    memcpy_3d(p, None)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3D_spt(p: *const hipMemcpy3DParms) -> hipError_t {
    memcpy_3d(p, None)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3DAsync(
    p: *const hipMemcpy3DParms,
    stream: hipStream_t,
) -> hipError_t {
    memcpy_3d(p, Some(stream))
}

/// A 2D copy between an array (at byte column `x`, row `y`) and pitched memory.
#[allow(clippy::too_many_arguments)]
fn copy_2d_array(
    rt: &mut Runtime,
    a: *const c_void,
    x: u64,
    y: u64,
    mem: u64,
    pitch: u64,
    width: u64,
    height: u64,
    to_array: bool,
    kind: c_int,
) -> Result<Copy3d, hipError_t> {
    if mem == 0 {
        return Err(INVALID_VALUE);
    }
    let info = array(rt, a)?;
    if !(HOST_TO_HOST..=DEFAULT).contains(&kind) {
        return Err(INVALID_MEMCPY_DIRECTION);
    }
    if width > pitch && height > 1 {
        return Err(INVALID_PITCH_VALUE);
    }
    if x % info.element != 0 {
        return Err(INVALID_VALUE);
    }
    let (side, pos) = array_side(&info, [x / info.element, y, 0], [width, height, 1])?;
    let linear = Pitched {
        ptr: mem,
        pitch,
        xsize: width,
        ysize: height,
    };
    let (src, src_pos, dst, dst_pos) = if to_array {
        (linear, [0; 3], side, pos)
    } else {
        (side, pos, linear, [0; 3])
    };
    Ok(Copy3d {
        src,
        src_pos,
        dst,
        dst_pos,
        extent: [width, height, 1],
        kind,
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DToArray(
    dst: *mut hipArray,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        let c = copy_2d_array(
            rt,
            dst as _,
            w_offset as u64,
            h_offset as u64,
            src as u64,
            spitch as u64,
            width as u64,
            height as u64,
            true,
            kind,
        )?;
        enqueue(rt, c, None)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DToArray_spt(
    dst: *mut hipArray,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    hipMemcpy2DToArray(dst, w_offset, h_offset, src, spitch, width, height, kind)
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DToArrayAsync(
    dst: *mut hipArray,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| {
        let c = copy_2d_array(
            rt,
            dst as _,
            w_offset as u64,
            h_offset as u64,
            src as u64,
            spitch as u64,
            width as u64,
            height as u64,
            true,
            kind,
        )?;
        enqueue(rt, c, Some(stream))
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DFromArray(
    dst: *mut c_void,
    dpitch: usize,
    src: *const hipArray,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        let c = copy_2d_array(
            rt,
            src as _,
            w_offset as u64,
            h_offset as u64,
            dst as u64,
            dpitch as u64,
            width as u64,
            height as u64,
            false,
            kind,
        )?;
        enqueue(rt, c, None)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DFromArray_spt(
    dst: *mut c_void,
    dpitch: usize,
    src: *const hipArray,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    hipMemcpy2DFromArray(dst, dpitch, src, w_offset, h_offset, width, height, kind)
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DFromArrayAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const hipArray,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| {
        let c = copy_2d_array(
            rt,
            src as _,
            w_offset as u64,
            h_offset as u64,
            dst as u64,
            dpitch as u64,
            width as u64,
            height as u64,
            false,
            kind,
        )?;
        enqueue(rt, c, Some(stream))
    })
}

/// `count` bytes between an array, from byte `offset` of its rows laid end to end (row
/// `offset / row`), and linear memory: whole rows, or a part of one row.
fn copy_linear(
    rt: &mut Runtime,
    a: *const c_void,
    offset: u64,
    mem: u64,
    count: u64,
    to_array: bool,
    kind: c_int,
) -> Result<(), hipError_t> {
    let info = array(rt, a)?;
    let row = info.width * info.element;
    let (x, y) = (offset % row, offset / row);
    // Within one row, or whole rows from the start of one.
    let (width, height) = if x + count <= row {
        (count, 1)
    } else if x == 0 && count % row == 0 {
        (row, count / row)
    } else {
        return Err(INVALID_VALUE);
    };
    if count == 0 {
        return Ok(());
    }
    let c = copy_2d_array(rt, a, x, y, mem, width, width, height, to_array, kind)?;
    enqueue(rt, c, None)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToArray(
    dst: *mut hipArray,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        let info = array(rt, dst as _)?;
        let offset = h_offset as u64 * info.width * info.element + w_offset as u64;
        copy_linear(rt, dst as _, offset, src as u64, count as u64, true, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromArray(
    dst: *mut c_void,
    src: *const hipArray,
    w_offset: usize,
    h_offset: usize,
    count: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        let info = array(rt, src as _)?;
        let offset = h_offset as u64 * info.width * info.element + w_offset as u64;
        copy_linear(rt, src as _, offset, dst as u64, count as u64, false, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoA(
    dst: *mut hipArray,
    dst_offset: usize,
    src: *const c_void,
    count: usize,
) -> hipError_t {
    call(|rt| {
        copy_linear(
            rt,
            dst as _,
            dst_offset as u64,
            src as u64,
            count as u64,
            true,
            HOST_TO_DEVICE,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAtoH(
    dst: *mut c_void,
    src: *mut hipArray,
    src_offset: usize,
    count: usize,
) -> hipError_t {
    call(|rt| {
        copy_linear(
            rt,
            src as _,
            src_offset as u64,
            dst as u64,
            count as u64,
            false,
            DEVICE_TO_HOST,
        )
    })
}
