//! External resources (`hipImportExternalMemory` ...). Memory comes in as a Linux file
//! descriptor (`hipExternalMemoryHandleTypeOpaqueFd`): a memfd, a shared-memory file, or the
//! descriptor `hipMemExportToShareableHandle` gives. The runtime owns the descriptor from a
//! successful import on, as CUDA's does, and a mapped buffer is the file's pages placed in
//! device address space with `mmap(MAP_SHARED)`, so host and kernels see one copy. Windows
//! and Direct3D handles do not exist here; external semaphores are Vulkan/D3D synchronisation
//! objects, which need a graphics driver to import: both are `hipErrorNotSupported`.

use super::{call, put};
use crate::allocation::{AllocClass, AllocInfo};
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::hipError_t;
use crate::vmm::{self, ExternalBuffer, ExternalMemory, GRANULARITY};
use std::ffi::{c_int, c_uint, c_void};
use std::os::fd::{AsFd, FromRawFd, OwnedFd};

/// `hipExternalMemoryHandleTypeOpaqueFd`.
const HANDLE_OPAQUE_FD: c_int = 1;

/// `hipExternalMemoryHandleDesc`.
#[repr(C)]
pub(crate) struct hipExternalMemoryHandleDesc {
    type_: c_int,
    /// The union: `fd` in the first int, or a Windows handle and name.
    handle: [u64; 2],
    size: u64,
    flags: c_uint,
}

/// `hipExternalMemoryBufferDesc`.
#[repr(C)]
pub(crate) struct hipExternalMemoryBufferDesc {
    offset: u64,
    size: u64,
    flags: c_uint,
}

#[no_mangle]
pub unsafe extern "C" fn hipImportExternalMemory(
    out: *mut *mut c_void,
    desc: *const hipExternalMemoryHandleDesc,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        if out.is_null() || d.size == 0 {
            return Err(INVALID_VALUE);
        }
        if d.type_ != HANDLE_OPAQUE_FD {
            if (2..=7).contains(&d.type_) {
                eprintln!(
                    "gcnemu-hip: hipImportExternalMemory: handle type {} is a Windows or \
                     Direct3D handle; only opaque file descriptors exist here",
                    d.type_
                );
                return Err(NOT_SUPPORTED);
            }
            return Err(INVALID_VALUE);
        }
        let raw = d.handle[0] as u32 as c_int;
        // SAFETY: fstat on the program's descriptor into a zeroed stat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if raw < 0 || unsafe { libc::fstat(raw, &mut st) } != 0 {
            return Err(INVALID_VALUE);
        }
        // The file must hold what the descriptor says (a file of unknown size, such as a
        // device node, reports 0 and cannot be checked).
        if st.st_size > 0 && (st.st_size as u64) < d.size {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the descriptor is open (fstat succeeded); the import takes it over.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let h = rt.new_handle();
        rt.vmm
            .external
            .insert(h, ExternalMemory { fd, size: d.size });
        put(out, h as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipExternalMemoryGetMappedBuffer(
    out: *mut *mut c_void,
    mem: *mut c_void,
    desc: *const hipExternalMemoryBufferDesc,
) -> hipError_t {
    call(|rt| {
        let d = unsafe { desc.as_ref() }.ok_or(INVALID_VALUE)?;
        if out.is_null() || d.size == 0 || d.flags != 0 {
            return Err(INVALID_VALUE);
        }
        let m = rt.vmm.external.get(&(mem as usize)).ok_or(INVALID_VALUE)?;
        let end = d.offset.checked_add(d.size).ok_or(INVALID_VALUE)?;
        if end > m.size {
            return Err(INVALID_VALUE);
        }
        // mmap maps whole pages from a page offset: map from the page holding `offset`.
        let page = d.offset / GRANULARITY * GRANULARITY;
        let span = (end - page).next_multiple_of(GRANULARITY);
        let base = vmm::reserve(span, GRANULARITY, 0).ok_or(OUT_OF_MEMORY)?;
        if !vmm::map_fd(base, span, m.fd.as_fd(), page) {
            vmm::release_range(base, span);
            return Err(INVALID_VALUE);
        }
        let ptr = base + (d.offset - page);
        // SAFETY: the pages stay mapped until hipFree forgets the range first.
        let registered = unsafe {
            rt.device
                .memory_mut()
                .register(ptr, d.size, gcnemu::memory::AllocKind::Registered)
        };
        if registered.is_err() {
            vmm::release_range(base, span);
            return Err(INVALID_VALUE);
        }
        let id = rt.next_buffer_id();
        rt.allocations.insert(
            ptr,
            AllocInfo {
                size: d.size,
                class: AllocClass::External,
                flags: 0,
                device: crate::devices::current(),
                id,
            },
        );
        rt.vmm.external_buffers.insert(
            ptr,
            ExternalBuffer {
                reserved: base,
                reserved_size: span,
            },
        );
        put(out, ptr as *mut c_void)
    })
}

/// `hipFree` of a buffer of external memory: the device forgets it and its pages go.
pub(crate) fn free_buffer(rt: &mut Runtime, ptr: u64) -> Result<(), hipError_t> {
    let b = rt.vmm.external_buffers.remove(&ptr).ok_or(INVALID_VALUE)?;
    rt.allocations.remove(&ptr);
    let _ = rt.device.memory_mut().free(ptr);
    vmm::release_range(b.reserved, b.reserved_size);
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipDestroyExternalMemory(mem: *mut c_void) -> hipError_t {
    // Buffers already mapped keep their pages (the mapping holds the file) until hipFree.
    call(|rt| {
        rt.vmm
            .external
            .remove(&(mem as usize))
            .map(drop)
            .ok_or(INVALID_VALUE)
    })
}

/// Says why no external semaphore can be imported.
fn no_semaphores() -> Result<(), hipError_t> {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "gcnemu-hip: external semaphores are Vulkan or Direct3D synchronisation objects, \
             which need a graphics driver to import; returning hipErrorNotSupported"
        )
    });
    Err(NOT_SUPPORTED)
}

#[no_mangle]
pub unsafe extern "C" fn hipImportExternalSemaphore(
    out: *mut *mut c_void,
    desc: *const c_void,
) -> hipError_t {
    call(|_| {
        if out.is_null() || desc.is_null() {
            return Err(INVALID_VALUE);
        }
        no_semaphores()
    })
}

/// Signal and wait: with no semaphore imported, an empty list is all there is to do, and any
/// handle is not one of ours.
fn semaphores(
    handles: *const *mut c_void,
    params: *const c_void,
    count: c_uint,
) -> Result<(), hipError_t> {
    if count == 0 {
        return Ok(());
    }
    if handles.is_null() || params.is_null() {
        return Err(INVALID_VALUE);
    }
    Err(INVALID_HANDLE)
}

#[no_mangle]
pub unsafe extern "C" fn hipSignalExternalSemaphoresAsync(
    handles: *const *mut c_void,
    params: *const c_void,
    count: c_uint,
    _stream: *mut c_void,
) -> hipError_t {
    call(|_| semaphores(handles, params, count))
}

#[no_mangle]
pub unsafe extern "C" fn hipWaitExternalSemaphoresAsync(
    handles: *const *mut c_void,
    params: *const c_void,
    count: c_uint,
    _stream: *mut c_void,
) -> hipError_t {
    call(|_| semaphores(handles, params, count))
}

#[no_mangle]
pub unsafe extern "C" fn hipDestroyExternalSemaphore(handle: *mut c_void) -> hipError_t {
    call(|_| {
        if handle.is_null() {
            return Err(INVALID_VALUE);
        }
        Err(INVALID_HANDLE)
    })
}
