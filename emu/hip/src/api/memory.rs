//! Memory management: allocation of every kind, copies, fills and pointer queries.
//!
//! All memory is host memory at its device address, so a copy is a `memmove` once its device
//! side has been checked: a copy whose kind names device memory must fall inside one live
//! allocation, or it returns `hipErrorInvalidValue` rather than touch anything else. Pointers the
//! runtime does not know are the program's own host memory.

use super::{call, call_async, call_light, put};
use crate::allocation::{AllocClass, AllocInfo};
use crate::error::*;
use crate::graph::{Copy3d, NodeKind, Pitched};
use crate::runtime::Runtime;
use crate::types::memcpy_kind::*;
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

const ALL_DEVICE: &[AllocClass] = &[AllocClass::Device, AllocClass::Managed];
const ALL_HOST: &[AllocClass] = &[AllocClass::Host];

fn malloc(out: *mut *mut c_void, size: usize, class: AllocClass, flags: u32) -> hipError_t {
    call(|rt| {
        super::capture::uncapturable(rt)?;
        if out.is_null() {
            return Err(INVALID_VALUE);
        }
        // HIP gives a null pointer and success for zero bytes.
        let p = if size == 0 {
            0
        } else {
            rt.alloc(size as u64, class, flags)?
        };
        put(out, p as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    malloc(ptr, size, AllocClass::Device, 0)
}

#[no_mangle]
pub unsafe extern "C" fn hipExtMallocWithFlags(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    malloc(ptr, size, AllocClass::Device, flags)
}

#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    host_malloc(ptr, size, flags)
}

/// `hipHostMalloc`'s flags as hipamd checks them: Portable (1), Mapped (2), WriteCombined (4),
/// NumaUser (1 << 29), Coherent (1 << 30) and NonCoherent (1 << 31), not the last two at once.
fn host_malloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> hipError_t {
    const COHERENT: c_uint = 1 << 30;
    const NON_COHERENT: c_uint = 1 << 31;
    let known = 0x7 | 1 << 29 | COHERENT | NON_COHERENT;
    if flags & !known != 0 || flags & (COHERENT | NON_COHERENT) == COHERENT | NON_COHERENT {
        return crate::error::set_last(INVALID_VALUE);
    }
    malloc(ptr, size, AllocClass::Host, flags)
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocHost(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    malloc(ptr, size, AllocClass::Host, 0)
}

/// The driver API's name for `hipHostMalloc` with default flags.
#[no_mangle]
pub unsafe extern "C" fn hipMemAllocHost(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    malloc(ptr, size, AllocClass::Host, 0)
}

#[no_mangle]
pub unsafe extern "C" fn hipHostAlloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    host_malloc(ptr, size, flags)
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocManaged(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    // hipMemAttachGlobal (1) or hipMemAttachHost (2); hipamd refuses a size of 0 here, where
    // hipMalloc returns a null pointer for it.
    if (flags != 1 && flags != 2) || size == 0 {
        return set_last(INVALID_VALUE);
    }
    // Managed memory is host memory here, but hipamd refuses one allocation larger than the
    // device's largest (its whole memory), as the device may have to hold all of it.
    let too_large = call_light(|rt| {
        let d = &rt.devices[crate::devices::current() as usize];
        match size as u64 > d.limit {
            true => Err(OUT_OF_MEMORY),
            false => Ok(()),
        }
    });
    if too_large != SUCCESS {
        return too_large;
    }
    malloc(ptr, size, AllocClass::Managed, flags)
}

/// Rows padded to a multiple of this many bytes (ROCm's image pitch alignment).
const PITCH_ALIGNMENT: usize = 256;

#[no_mangle]
pub unsafe extern "C" fn hipMallocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> hipError_t {
    if pitch.is_null() {
        return set_last(INVALID_VALUE);
    }
    let Some(p) = width.checked_next_multiple_of(PITCH_ALIGNMENT) else {
        return set_last(INVALID_VALUE);
    };
    let Some(total) = p.checked_mul(height) else {
        return set_last(OUT_OF_MEMORY);
    };
    let code = malloc(ptr, total, AllocClass::Device, 0);
    if code == SUCCESS {
        unsafe { *pitch = p };
    }
    code
}

#[no_mangle]
pub unsafe extern "C" fn hipMemAllocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_bytes: c_uint,
) -> hipError_t {
    // The driver API allows element sizes of 4, 8 and 16 bytes.
    if !matches!(element_bytes, 4 | 8 | 16) {
        return set_last(INVALID_VALUE);
    }
    hipMallocPitch(ptr, pitch, width, height)
}

/// A pitched 3D allocation: rows padded as `hipMallocPitch` pads them, `height * depth` rows.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc3D(out: *mut hipPitchedPtr, extent: hipExtent) -> hipError_t {
    if out.is_null() {
        return set_last(INVALID_VALUE);
    }
    let mut ptr = std::ptr::null_mut();
    let mut pitch = 0;
    let rows = match extent.height.checked_mul(extent.depth) {
        Some(r) => r,
        None => return set_last(OUT_OF_MEMORY),
    };
    let code = hipMallocPitch(&mut ptr, &mut pitch, extent.width, rows);
    if code == SUCCESS {
        unsafe {
            *out = hipPitchedPtr {
                ptr,
                pitch,
                xsize: extent.width,
                ysize: extent.height,
            }
        };
    }
    code
}

/// Fills the box `extent` (width in bytes) of pitched memory with the byte `value`, row by row,
/// after checking the whole box lies in one allocation.
fn fill_3d(
    rt: &mut Runtime,
    p: hipPitchedPtr,
    value: c_int,
    extent: hipExtent,
) -> Result<(), hipError_t> {
    let (width, height, depth) = (
        extent.width as u64,
        extent.height as u64,
        extent.depth as u64,
    );
    if width == 0 || height == 0 || depth == 0 {
        return Ok(());
    }
    let (pitch, rows) = (p.pitch as u64, (p.ysize as u64).max(height));
    if width > pitch || p.ptr.is_null() {
        return Err(INVALID_VALUE);
    }
    let start = p.ptr as u64;
    let span = ((depth - 1) * rows + height - 1) * pitch + width;
    rt.check_device_range(start, span)?;
    for z in 0..depth {
        for y in 0..height {
            let row = start + (z * rows + y) * pitch;
            fill_now::<1>(rt, row, [value as u8], width)?;
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset3D(
    p: hipPitchedPtr,
    value: c_int,
    extent: hipExtent,
) -> hipError_t {
    call(|rt| {
        super::capture::synchronous(rt)?;
        fill_3d(rt, p, value, extent)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset3D_spt(
    p: hipPitchedPtr,
    value: c_int,
    extent: hipExtent,
) -> hipError_t {
    hipMemset3D(p, value, extent)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset3DAsync(
    p: hipPitchedPtr,
    value: c_int,
    extent: hipExtent,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| {
        rt.check_stream(stream)?;
        // A graph has no node for a 3D fill: a capturing stream cannot take one. Otherwise it
        // runs now, this call being synchronous with the queue.
        super::capture::no_node(rt, stream)?;
        fill_3d(rt, p, value, extent)
    })
}

fn free(ptr: *mut c_void, classes: &[AllocClass]) -> hipError_t {
    call(|rt| {
        if ptr.is_null() {
            return Ok(());
        }
        super::capture::uncapturable(rt)?;
        // hipFree waits for the device, so it reports a held-back kernel failure too.
        if classes == ALL_DEVICE {
            free_device(rt, ptr as u64)?;
        } else {
            rt.free(ptr as u64, classes)?;
        }
        rt.take_pending()
    })
}

/// Frees device or managed memory; a block of a memory pool leaves its pool.
pub(crate) fn free_device(rt: &mut Runtime, addr: u64) -> Result<(), hipError_t> {
    if rt.vmm.external_buffers.contains_key(&addr) {
        return super::external::free_buffer(rt, addr);
    }
    rt.free(addr, ALL_DEVICE)?;
    super::mempool::forget_block(rt, addr);
    // Advice recorded for the allocation goes with it.
    rt.advice.retain(|a| a.base != addr);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    free(ptr, ALL_DEVICE)
}

#[no_mangle]
pub unsafe extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    free(ptr, ALL_HOST)
}

#[no_mangle]
pub unsafe extern "C" fn hipFreeHost(ptr: *mut c_void) -> hipError_t {
    free(ptr, ALL_HOST)
}

#[no_mangle]
pub unsafe extern "C" fn hipHostRegister(
    host: *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        // hipHostRegisterPortable (1), Mapped (2), IoMemory (4), ReadOnly (8).
        if host.is_null() || size == 0 || flags & !0xf != 0 {
            return Err(INVALID_VALUE);
        }
        let addr = host as u64;
        match rt.allocations.get(&addr).map(|a| a.class) {
            // hipamd does not refuse a second registration of an address. A program that
            // frees registered memory without unregistering it gets the same address back from
            // malloc and registers it again: the new registration replaces the stale one.
            Some(AllocClass::Registered) => rt.free(addr, &[AllocClass::Registered])?,
            Some(_) => return Err(HOST_MEMORY_ALREADY_REGISTERED),
            None => {}
        }
        // ROCr pins the pages, which fails for a range that is not all mapped; kernels must
        // never reach unmapped host memory through a registration.
        if !host_range_is_mapped(addr, size as u64) {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the program hands this memory to the device until hipHostUnregister, and
        // every page of it is mapped in the process.
        unsafe {
            rt.device.memory_mut().register(
                addr,
                size as u64,
                gcnemu::memory::AllocKind::Registered,
            )
        }
        .map_err(|e| match e {
            gcnemu::memory::MemError::Overlap { .. } => HOST_MEMORY_ALREADY_REGISTERED,
            _ => INVALID_VALUE,
        })?;
        let id = rt.next_buffer_id();
        rt.allocations.insert(
            addr,
            AllocInfo {
                size: size as u64,
                class: AllocClass::Registered,
                flags,
                device: crate::devices::current(),
                id,
            },
        );
        Ok(())
    })
}

/// Whether every page of `[addr, addr + size)` is mapped in this process: `msync` answers
/// ENOMEM for a range with an unmapped page, without touching the memory.
fn host_range_is_mapped(addr: u64, size: u64) -> bool {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let start = addr & !(page - 1);
    let Some(end) = addr.checked_add(size) else {
        return false;
    };
    let len = end - start;
    // SAFETY: MS_ASYNC on a page-aligned range only asks the kernel about the mappings; it
    // neither reads nor writes the memory.
    unsafe { libc::msync(start as *mut c_void, len as usize, libc::MS_ASYNC) == 0 }
}

#[no_mangle]
pub unsafe extern "C" fn hipHostUnregister(host: *mut c_void) -> hipError_t {
    call(|rt| {
        if host.is_null() {
            return Err(INVALID_VALUE);
        }
        rt.free(host as u64, &[AllocClass::Registered])
            .map_err(|_| HOST_MEMORY_NOT_REGISTERED)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipHostGetDevicePointer(
    device: *mut *mut c_void,
    host: *mut c_void,
    _flags: c_uint,
) -> hipError_t {
    call(|rt| {
        match rt.allocation_of(host as u64) {
            Some((_, info)) if info.class != AllocClass::Device => {}
            _ => return Err(INVALID_VALUE),
        }
        put(device, host)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipHostGetFlags(flags: *mut c_uint, host: *mut c_void) -> hipError_t {
    call(|rt| match rt.allocation_of(host as u64) {
        Some((_, info)) if info.class != AllocClass::Device => put(flags, info.flags),
        _ => Err(INVALID_VALUE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> hipError_t {
    call(|rt| {
        // The current device's own limit and the device memory counted against it. Either
        // out-pointer may be null, or both (ROCm 5.4's tests ask for success then, as CUDA
        // answers; hipamd dereferences them).
        let d = &rt.devices[crate::devices::current() as usize];
        if !free.is_null() {
            put(free, d.limit.saturating_sub(d.used) as usize)?;
        }
        if !total.is_null() {
            put(total, d.limit as usize)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPtrGetInfo(ptr: *mut c_void, size: *mut usize) -> hipError_t {
    call(|rt| match rt.allocation_of(ptr as u64) {
        Some((base, info)) if base == ptr as u64 => put(size, info.size as usize),
        _ => Err(INVALID_VALUE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemGetAddressRange(
    base: *mut *mut c_void,
    size: *mut usize,
    ptr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        let (b, info) = rt.allocation_of(ptr as u64).ok_or(NOT_FOUND)?;
        if !base.is_null() {
            put(base, b as *mut c_void)?;
        }
        if !size.is_null() {
            put(size, info.size as usize)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut hipPointerAttribute_t,
    ptr: *const c_void,
) -> hipError_t {
    call(|rt| {
        if attributes.is_null() || ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let (_, info) = rt.allocation_of(ptr as u64).ok_or(INVALID_VALUE)?;
        let p = ptr as *mut c_void;
        let (memory_type, host) = match info.class {
            AllocClass::Device | AllocClass::Mapped | AllocClass::External => {
                (memory_type::DEVICE, std::ptr::null_mut())
            }
            // ROCm backs managed memory with fine-grained host memory and reports it as such.
            AllocClass::Managed | AllocClass::Host | AllocClass::Registered => {
                (memory_type::HOST, p)
            }
        };
        put(
            attributes,
            hipPointerAttribute_t {
                memoryType: memory_type,
                device: info.device,
                devicePointer: p,
                hostPointer: host,
                isManaged: (info.class == AllocClass::Managed) as c_int,
                allocationFlags: info.flags,
            },
        )
    })
}

/// Copies `n` bytes after checking the device side(s) that `kind` names.
pub(crate) fn copy(
    rt: &mut Runtime,
    dst: u64,
    src: u64,
    n: u64,
    kind: c_int,
) -> Result<(), hipError_t> {
    check_copy(rt, dst, src, n, kind)?;
    if n == 0 {
        return Ok(());
    }
    // SAFETY: device sides were checked against live allocations; host sides are the
    // program's own memory, as it promised by passing them.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n as usize) };
    rt.device.memory_mut().note_host_write(dst, n);
    let on_device =
        |a: u64| matches!(rt.allocation_of(a), Some((_, i)) if i.class != AllocClass::Host);
    let host = !(on_device(dst) && on_device(src));
    rt.advance_transfer(n, host, false);
    Ok(())
}

/// Checks a copy of `n` bytes: the device side(s) that `kind` names lie inside live
/// allocations, and so does any side that starts inside one.
pub(crate) fn check_copy(
    rt: &Runtime,
    dst: u64,
    src: u64,
    n: u64,
    kind: c_int,
) -> Result<(), hipError_t> {
    if !(HOST_TO_HOST..=DEFAULT).contains(&kind) {
        return Err(INVALID_MEMCPY_DIRECTION);
    }
    if n == 0 {
        return Ok(());
    }
    // Nothing is mapped in the first 64 KiB (Linux's mmap_min_addr): a small integer is not a
    // pointer.
    const LOWEST: u64 = 0x1_0000;
    if dst < LOWEST || src < LOWEST {
        return Err(INVALID_VALUE);
    }
    if matches!(kind, HOST_TO_DEVICE | DEVICE_TO_DEVICE) {
        rt.check_device_range(dst, n)?;
    }
    if matches!(kind, DEVICE_TO_HOST | DEVICE_TO_DEVICE) {
        rt.check_device_range(src, n)?;
    }
    // Whatever the kind, a side inside an allocation must not run past its end.
    for p in [dst, src] {
        if rt.device_allocation(p).is_some() {
            rt.check_device_range(p, n)?;
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        super::capture::synchronous(rt)?;
        copy(rt, dst as u64, src as u64, size as u64, kind)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyWithStream(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| {
        rt.check_stream(stream)?;
        // A blocking copy on a capturing stream would synchronise it.
        super::capture::stream_sync(rt, stream)?;
        copy(rt, dst as u64, src as u64, size as u64, kind)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        rt.check_stream(stream)?;
        let captured = super::capture::captured(rt, stream, |rt| {
            super::graph::memcpy_1d(rt, dst, src, size, kind)
        })?;
        if captured {
            return Ok(());
        }
        copy(rt, dst as u64, src as u64, size as u64, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(
    dst: *mut c_void,
    src: *mut c_void,
    size: usize,
) -> hipError_t {
    hipMemcpy(dst, src, size, HOST_TO_DEVICE)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(
    dst: *mut c_void,
    src: *mut c_void,
    size: usize,
) -> hipError_t {
    hipMemcpy(dst, src, size, DEVICE_TO_HOST)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoD(
    dst: *mut c_void,
    src: *mut c_void,
    size: usize,
) -> hipError_t {
    hipMemcpy(dst, src, size, DEVICE_TO_DEVICE)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoDAsync(
    dst: *mut c_void,
    src: *mut c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    hipMemcpyAsync(dst, src, size, HOST_TO_DEVICE, stream)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoHAsync(
    dst: *mut c_void,
    src: *mut c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    hipMemcpyAsync(dst, src, size, DEVICE_TO_HOST, stream)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoDAsync(
    dst: *mut c_void,
    src: *mut c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    hipMemcpyAsync(dst, src, size, DEVICE_TO_DEVICE, stream)
}

/// Copies `height` rows of `width` bytes between pitched buffers.
#[allow(clippy::too_many_arguments)]
fn copy_2d(
    rt: &mut Runtime,
    dst: u64,
    dpitch: u64,
    src: u64,
    spitch: u64,
    width: u64,
    height: u64,
    kind: c_int,
) -> Result<(), hipError_t> {
    check_2d(rt, dst, dpitch, src, spitch, width, height, kind)?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    for row in 0..height {
        copy(rt, dst + row * dpitch, src + row * spitch, width, DEFAULT)?;
    }
    Ok(())
}

/// Checks a 2D copy as a whole, so that a bad one changes nothing (and is refused when it is
/// enqueued).
#[allow(clippy::too_many_arguments)]
fn check_2d(
    rt: &Runtime,
    dst: u64,
    dpitch: u64,
    src: u64,
    spitch: u64,
    width: u64,
    height: u64,
    kind: c_int,
) -> Result<(), hipError_t> {
    if width > dpitch || width > spitch {
        return Err(INVALID_PITCH_VALUE);
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    // Check the whole extent first so that a bad copy changes nothing.
    let span = |pitch: u64| (height - 1) * pitch + width;
    let probe = |rt: &Runtime, p: u64, pitch: u64, device: bool| -> Result<(), hipError_t> {
        if device || rt.device_allocation(p).is_some() {
            rt.check_device_range(p, span(pitch))?;
        }
        Ok(())
    };
    if !(HOST_TO_HOST..=DEFAULT).contains(&kind) {
        return Err(INVALID_MEMCPY_DIRECTION);
    }
    probe(
        rt,
        dst,
        dpitch,
        matches!(kind, HOST_TO_DEVICE | DEVICE_TO_DEVICE),
    )?;
    probe(
        rt,
        src,
        spitch,
        matches!(kind, DEVICE_TO_HOST | DEVICE_TO_DEVICE),
    )?;
    // Each row's copy refuses a small integer as a pointer (see `check_copy`).
    check_copy(rt, dst, src, width, DEFAULT)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        super::capture::synchronous(rt)?;
        copy_2d(
            rt,
            dst as u64,
            dpitch as u64,
            src as u64,
            spitch as u64,
            width as u64,
            height as u64,
            kind,
        )?;
        rt.take_pending()
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        rt.check_stream(stream)?;
        let captured = super::capture::captured(rt, stream, |rt| {
            let (w, h) = (width as u64, height as u64);
            check_2d(
                rt,
                dst as u64,
                dpitch as u64,
                src as u64,
                spitch as u64,
                w,
                h,
                kind,
            )?;
            let pitched = |ptr: u64, pitch: usize| Pitched {
                ptr,
                pitch: pitch as u64,
                xsize: width as u64,
                ysize: height as u64,
            };
            Ok(NodeKind::Memcpy(Copy3d {
                src: pitched(src as u64, spitch),
                dst: pitched(dst as u64, dpitch),
                extent: [width as u64, height as u64, 1],
                kind,
                ..Default::default()
            }))
        })?;
        if captured {
            return Ok(());
        }
        copy_2d(
            rt,
            dst as u64,
            dpitch as u64,
            src as u64,
            spitch as u64,
            width as u64,
            height as u64,
            kind,
        )
    })
}

/// Fills `count` elements of `N` bytes at device address `dst` with `value`, or adds the fill
/// to the stream's capture.
fn fill<const N: usize>(
    rt: &mut Runtime,
    dst: u64,
    value: [u8; N],
    count: u64,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    rt.check_stream(stream)?;
    // An empty fill outside a capture is nothing to do (nor to check), as hipamd has it.
    if count == 0 && !super::capture::capturing(rt, stream) {
        return super::capture::no_node(rt, stream);
    }
    let captured = super::capture::captured(rt, stream, |rt| {
        let mut v = [0u8; 4];
        v[..N].copy_from_slice(&value);
        let p = hipMemsetParams {
            dst: dst as *mut c_void,
            elementSize: N as u32,
            height: 1,
            pitch: count as usize * N,
            value: u32::from_le_bytes(v),
            width: count as usize,
        };
        Ok(NodeKind::Memset(super::graph::memset(rt, &p)?))
    })?;
    if captured {
        return Ok(());
    }
    fill_now(rt, dst, value, count)
}

/// Fills `count` elements of `N` bytes at device address `dst` with `value`, now.
pub(crate) fn fill_now<const N: usize>(
    rt: &mut Runtime,
    dst: u64,
    value: [u8; N],
    count: u64,
) -> Result<(), hipError_t> {
    let len = count.checked_mul(N as u64).ok_or(INVALID_VALUE)?;
    if len == 0 {
        return Ok(());
    }
    rt.check_device_range(dst, len)?;
    let bytes = rt
        .device
        .memory_mut()
        .bytes_mut(dst, len as usize)
        .map_err(|_| INVALID_VALUE)?;
    for chunk in bytes.chunks_exact_mut(N) {
        chunk.copy_from_slice(&value);
    }
    rt.device.memory_mut().note_host_write(dst, len);
    rt.advance_transfer(len, false, true);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset(dst: *mut c_void, value: c_int, size: usize) -> hipError_t {
    call(|rt| {
        fill(
            rt,
            dst as u64,
            [value as u8],
            size as u64,
            std::ptr::null_mut(),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetAsync(
    dst: *mut c_void,
    value: c_int,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| fill(rt, dst as u64, [value as u8], size as u64, stream))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetD8(dst: *mut c_void, value: u8, count: usize) -> hipError_t {
    call(|rt| fill(rt, dst as u64, [value], count as u64, std::ptr::null_mut()))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetD8Async(
    dst: *mut c_void,
    value: u8,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| fill(rt, dst as u64, [value], count as u64, stream))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetD16(dst: *mut c_void, value: u16, count: usize) -> hipError_t {
    call(|rt| {
        fill(
            rt,
            dst as u64,
            value.to_le_bytes(),
            count as u64,
            std::ptr::null_mut(),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetD16Async(
    dst: *mut c_void,
    value: u16,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| fill(rt, dst as u64, value.to_le_bytes(), count as u64, stream))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetD32(dst: *mut c_void, value: c_int, count: usize) -> hipError_t {
    call(|rt| {
        fill(
            rt,
            dst as u64,
            value.to_le_bytes(),
            count as u64,
            std::ptr::null_mut(),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemsetD32Async(
    dst: *mut c_void,
    value: c_int,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| fill(rt, dst as u64, value.to_le_bytes(), count as u64, stream))
}

fn fill_2d(
    rt: &mut Runtime,
    dst: u64,
    pitch: u64,
    value: u8,
    width: u64,
    height: u64,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    // hipamd validates a 2D fill's pitch as a plain value (unlike a 2D copy's).
    if width > pitch {
        return Err(INVALID_VALUE);
    }
    rt.check_stream(stream)?;
    if (width == 0 || height == 0) && !super::capture::capturing(rt, stream) {
        return super::capture::no_node(rt, stream);
    }
    let captured = super::capture::captured(rt, stream, |rt| {
        let p = hipMemsetParams {
            dst: dst as *mut c_void,
            elementSize: 1,
            height: height as usize,
            pitch: pitch as usize,
            value: value as u32,
            width: width as usize,
        };
        Ok(NodeKind::Memset(super::graph::memset(rt, &p)?))
    })?;
    if captured {
        return Ok(());
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    rt.check_device_range(dst, (height - 1) * pitch + width)?;
    for row in 0..height {
        fill(rt, dst + row * pitch, [value], width, stream)?;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset2D(
    dst: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> hipError_t {
    call(|rt| {
        fill_2d(
            rt,
            dst as u64,
            pitch as u64,
            value as u8,
            width as u64,
            height as u64,
            std::ptr::null_mut(),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset2DAsync(
    dst: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        fill_2d(
            rt,
            dst as u64,
            pitch as u64,
            value as u8,
            width as u64,
            height as u64,
            stream,
        )
    })
}

// The per-thread default stream forms (`-fgpu-default-stream=per-thread`): the same calls.

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy_spt(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
) -> hipError_t {
    hipMemcpy(dst, src, size, kind)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync_spt(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    hipMemcpyAsync(dst, src, size, kind, stream)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset_spt(dst: *mut c_void, value: c_int, size: usize) -> hipError_t {
    hipMemset(dst, value, size)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy2D_spt(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    hipMemcpy2D(dst, dpitch, src, spitch, width, height, kind)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemset2D_spt(
    dst: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> hipError_t {
    hipMemset2D(dst, pitch, value, width, height)
}
