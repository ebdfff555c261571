//! HIP arrays: creation and destruction, their channel descriptor, and copies to and from them
//! (2D, linear offsets, 3D). An array is linear device memory (rows padded to 256 bytes, slices
//! of whole rows) behind a `hipArray` the program may read; `crate::texture` says why. A copy
//! that names an array becomes a pitched 3D copy over that memory, so arrays in graph memcpy
//! nodes work as stream copies do.

use super::{call, call_async, put};
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
pub(crate) fn format_of(desc: &hipChannelFormatDesc) -> c_int {
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

/// The shape of an array of `width` x `height` x `depth` elements (0 for a missing dimension)
/// with `flags`, checked against the device's limits; its memory not yet allocated.
pub(crate) fn shape(
    desc: &hipChannelFormatDesc,
    extent: [u64; 3],
    flags: u32,
) -> Result<ArrayInfo, hipError_t> {
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
        // A cube map has 6 faces (a layered one, a multiple of 6), square.
        _ if cube => {
            width == height
                && width <= MAX_2D
                && if layered {
                    depth > 0 && depth.is_multiple_of(6) && depth <= MAX_LAYERS
                } else {
                    depth == 6
                }
        }
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
    Ok(ArrayInfo {
        data: 0,
        desc: *desc,
        element,
        width,
        height,
        depth,
        pitch,
        flags,
        dims,
        owner: 0,
    })
}

/// A new `hipArray` handle for `info`, whose fields the program may read.
pub(crate) fn hand_out(
    rt: &mut Runtime,
    info: ArrayInfo,
    extent: [u64; 3],
    driver: bool,
) -> *mut hipArray {
    let handle = Box::into_raw(Box::new(hipArray {
        data: info.data as *mut c_void,
        desc: info.desc,
        type_: 0,
        width: extent[0] as c_uint,
        height: extent[1] as c_uint,
        depth: extent[2] as c_uint,
        Format: format_of(&info.desc),
        NumChannels: [info.desc.x, info.desc.y, info.desc.z, info.desc.w]
            .iter()
            .filter(|&&b| b != 0)
            .count() as c_uint,
        isDrv: driver,
        textureType: 0,
    }));
    rt.arrays.insert(handle as u64, info);
    handle
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
    let mut info = shape(desc, extent, flags)?;
    info.data = rt.alloc(info.size(), AllocClass::Device, 0)?;
    let handle = hand_out(rt, info, extent, driver);
    put(out, handle)
}

/// The array behind a handle the runtime gave out.
pub(crate) fn array(rt: &Runtime, a: *const c_void) -> Result<ArrayInfo, hipError_t> {
    rt.arrays.get(&(a as u64)).copied().ok_or(INVALID_VALUE)
}

fn destroy(rt: &mut Runtime, a: *mut hipArray) -> Result<(), hipError_t> {
    // hipamd answers an array it does not know (never made, or freed already) as it answers
    // a destroyed stream.
    let info = array(rt, a as *const c_void).map_err(|_| CONTEXT_IS_DESTROYED)?;
    // A level of a mipmapped array goes with the mipmapped array.
    if info.owner != 0 {
        return Err(INVALID_VALUE);
    }
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

/// The channel descriptor of `channels` channels of a driver format (`hipArray_Format`).
pub(crate) fn driver_desc(
    format: c_int,
    channels: c_uint,
) -> Result<hipChannelFormatDesc, hipError_t> {
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
        given: None,
    })
}

/// Runs a copy now, or adds it to the stream's capture.
fn enqueue(rt: &mut Runtime, c: Copy3d, stream: Option<hipStream_t>) -> Result<(), hipError_t> {
    match stream {
        Some(s) => {
            rt.check_stream(s)?;
            if super::capture::captured(rt, s, |_| Ok(NodeKind::Memcpy(c.clone())))? {
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
    let kind = match stream {
        Some(_) => super::CallKind::Async,
        None => super::CallKind::Sync,
    };
    super::call_as(kind, |rt| {
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
    if !x.is_multiple_of(info.element) {
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
        given: None,
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
    call_async(|rt| {
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
    call_async(|rt| {
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
    } else if x == 0 && count.is_multiple_of(row) {
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

/// One side of a driver-API copy: its memory type, pointers, byte position and pitch.
struct DriverSide {
    kind: c_int,
    host: u64,
    device: u64,
    array: *const c_void,
    pos: [u64; 3],
    pitch: u64,
    rows: u64,
}

/// The pitched side of a driver-API copy (`extent` in bytes), and whether it is device memory.
fn driver_side(
    rt: &Runtime,
    s: &DriverSide,
    extent: [u64; 3],
) -> Result<(Pitched, [u64; 3], bool), hipError_t> {
    // hipMemoryTypeHost, Device, Array, Unified.
    let linear = |ptr: u64, device: bool| -> Result<(Pitched, [u64; 3], bool), hipError_t> {
        if ptr == 0 {
            return Err(INVALID_VALUE);
        }
        // A pitch of 0 is rows packed one after the other, as an OpenCL buffer rectangle's
        // (hipamd builds these copies as such), so rows as wide as the copy.
        let pitch = if s.pitch == 0 { extent[0] } else { s.pitch };
        if extent[1] * extent[2] > 1 && s.pos[0] + extent[0] > pitch {
            return Err(INVALID_PITCH_VALUE);
        }
        let p = Pitched {
            ptr,
            pitch,
            xsize: pitch,
            ysize: s.rows,
        };
        Ok((p, s.pos, device))
    };
    match s.kind {
        0 => linear(s.host, false),
        1 | 3 => linear(s.device, true),
        2 => {
            let a = array(rt, s.array)?;
            if !s.pos[0].is_multiple_of(a.element) {
                return Err(INVALID_VALUE);
            }
            let pos = [s.pos[0] / a.element, s.pos[1], s.pos[2]];
            let (p, pos) = array_side(&a, pos, extent)?;
            Ok((p, pos, true))
        }
        _ => Err(INVALID_VALUE),
    }
}

/// A driver-API copy: the direction follows from the memory types.
fn driver_copy(
    rt: &Runtime,
    src: &DriverSide,
    dst: &DriverSide,
    extent: [u64; 3],
) -> Result<Copy3d, hipError_t> {
    let (src_p, src_pos, src_dev) = driver_side(rt, src, extent)?;
    let (dst_p, dst_pos, dst_dev) = driver_side(rt, dst, extent)?;
    let kind = match (src_dev, dst_dev) {
        (false, false) => HOST_TO_HOST,
        (false, true) => HOST_TO_DEVICE,
        (true, false) => DEVICE_TO_HOST,
        (true, true) => DEVICE_TO_DEVICE,
    };
    Ok(Copy3d {
        src: src_p,
        src_pos,
        dst: dst_p,
        dst_pos,
        extent,
        kind,
        given: None,
    })
}

fn param_2d(rt: &Runtime, p: *const hip_Memcpy2D) -> Result<Copy3d, hipError_t> {
    let p = unsafe { p.as_ref() }.ok_or(INVALID_VALUE)?;
    let side =
        |kind, host: *const c_void, device: *mut c_void, array: *mut hipArray, x, y, pitch| {
            DriverSide {
                kind,
                host: host as u64,
                device: device as u64,
                array: array as *const c_void,
                pos: [x as u64, y as u64, 0],
                pitch: pitch as u64,
                rows: 0,
            }
        };
    let src = side(
        p.srcMemoryType,
        p.srcHost,
        p.srcDevice,
        p.srcArray,
        p.srcXInBytes,
        p.srcY,
        p.srcPitch,
    );
    let dst = side(
        p.dstMemoryType,
        p.dstHost,
        p.dstDevice,
        p.dstArray,
        p.dstXInBytes,
        p.dstY,
        p.dstPitch,
    );
    driver_copy(rt, &src, &dst, [p.WidthInBytes as u64, p.Height as u64, 1])
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyParam2D(p: *const hip_Memcpy2D) -> hipError_t {
    call(|rt| {
        let c = param_2d(rt, p)?;
        enqueue(rt, c, None)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyParam2DAsync(
    p: *const hip_Memcpy2D,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        let c = param_2d(rt, p)?;
        enqueue(rt, c, Some(stream))
    })
}

/// `hipDrvMemcpy2DUnaligned`: the same copy (no alignment rule applies to host memory here).
#[no_mangle]
pub unsafe extern "C" fn hipDrvMemcpy2DUnaligned(p: *const hip_Memcpy2D) -> hipError_t {
    hipMemcpyParam2D(p)
}

fn drv_3d(rt: &Runtime, p: *const HIP_MEMCPY3D) -> Result<Copy3d, hipError_t> {
    let p = unsafe { p.as_ref() }.ok_or(INVALID_VALUE)?;
    // Mip levels other than 0 belong to mipmapped arrays, which this runtime does not create.
    if p.srcLOD != 0 || p.dstLOD != 0 {
        return Err(INVALID_VALUE);
    }
    let src = DriverSide {
        kind: p.srcMemoryType,
        host: p.srcHost as u64,
        device: p.srcDevice as u64,
        array: p.srcArray as *const c_void,
        pos: [p.srcXInBytes as u64, p.srcY as u64, p.srcZ as u64],
        pitch: p.srcPitch as u64,
        rows: p.srcHeight as u64,
    };
    let dst = DriverSide {
        kind: p.dstMemoryType,
        host: p.dstHost as u64,
        device: p.dstDevice as u64,
        array: p.dstArray as *const c_void,
        pos: [p.dstXInBytes as u64, p.dstY as u64, p.dstZ as u64],
        pitch: p.dstPitch as u64,
        rows: p.dstHeight as u64,
    };
    driver_copy(
        rt,
        &src,
        &dst,
        [p.WidthInBytes as u64, p.Height as u64, p.Depth as u64],
    )
}

#[no_mangle]
pub unsafe extern "C" fn hipDrvMemcpy3D(p: *const HIP_MEMCPY3D) -> hipError_t {
    call(|rt| {
        let c = drv_3d(rt, p)?;
        enqueue(rt, c, None)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDrvMemcpy3DAsync(
    p: *const HIP_MEMCPY3D,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        let c = drv_3d(rt, p)?;
        enqueue(rt, c, Some(stream))
    })
}
