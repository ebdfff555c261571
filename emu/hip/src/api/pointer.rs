//! One attribute of a pointer at a time (`hipPointerGetAttribute`, `hipDrvPointerGetAttributes`),
//! with hipamd 5.2's answers and codes: the allocation holding the pointer, its device, type and
//! range; `hipErrorInvalidValue` (and the attribute's "none" value) for memory HIP did not
//! allocate; `hipErrorNotSupported` for what ROCm does not report (the context, P2P tokens,
//! legacy IPC, allowed handle types, RDMA, the pool handle).

use super::call;
use crate::allocation::AllocClass;
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::*;
use std::ffi::{c_int, c_void};

// `hipPointer_attribute` (driver_types.h).
const CONTEXT: c_int = 1;
const MEMORY_TYPE: c_int = 2;
const DEVICE_POINTER: c_int = 3;
const HOST_POINTER: c_int = 4;
const P2P_TOKENS: c_int = 5;
const SYNC_MEMOPS: c_int = 6;
const BUFFER_ID: c_int = 7;
const IS_MANAGED: c_int = 8;
const DEVICE_ORDINAL: c_int = 9;
const IS_LEGACY_HIP_IPC_CAPABLE: c_int = 10;
const RANGE_START_ADDR: c_int = 11;
const RANGE_SIZE: c_int = 12;
const MAPPED: c_int = 13;
const ALLOWED_HANDLE_TYPES: c_int = 14;
const IS_GPU_DIRECT_RDMA_CAPABLE: c_int = 15;
const ACCESS_FLAGS: c_int = 16;
const MEMPOOL_HANDLE: c_int = 17;

/// `hipInvalidDeviceId`: the ordinal of memory no device allocated.
const INVALID_DEVICE_ID: c_int = -2;

/// Writes `v` at `data` (the program's buffer for the attribute's type).
fn write<T>(data: *mut c_void, v: T) {
    // SAFETY: `data` is non-null (checked by the callers) and holds the attribute's type.
    unsafe { (data as *mut T).write_unaligned(v) }
}

fn attribute(
    rt: &Runtime,
    data: *mut c_void,
    attr: c_int,
    ptr: *mut c_void,
) -> Result<(), hipError_t> {
    let found = rt.allocation_of(ptr as u64);
    let host_side = |class: AllocClass| {
        matches!(
            class,
            AllocClass::Host | AllocClass::Managed | AllocClass::Registered
        )
    };
    // An array's handle names its memory as the driver API does.
    if attr == MEMORY_TYPE && found.is_none() && rt.arrays.contains_key(&(ptr as u64)) {
        write(data, memory_type::ARRAY as u32);
        return Ok(());
    }
    match (attr, found) {
        (MEMORY_TYPE, Some((_, info))) => write(
            data,
            if host_side(info.class) {
                memory_type::HOST as u32
            } else {
                memory_type::DEVICE as u32
            },
        ),
        // Device and host addresses are one here.
        (DEVICE_POINTER, Some(_)) => write(data, ptr),
        (HOST_POINTER, Some((_, info))) if host_side(info.class) => write(data, ptr),
        (SYNC_MEMOPS, _) => write(data, true),
        (BUFFER_ID, Some((_, info))) => write(data, info.id),
        (IS_MANAGED, Some((_, info))) => write(data, info.class == AllocClass::Managed),
        (DEVICE_ORDINAL, Some((_, info))) => write(data, info.device),
        (RANGE_START_ADDR, Some((base, _))) => write(data, base as *mut c_void),
        // hipamd writes the size as 32 bits.
        (RANGE_SIZE, Some((_, info))) => write(data, info.size as u32),
        (MAPPED, Some(_)) => write(data, true),
        // Read-write (hipamd reports the memory's flags above bit 16: none for these).
        (ACCESS_FLAGS, _) => write(data, 0u32),
        // hipamd has no pointer-to-context query.
        (
            CONTEXT
            | P2P_TOKENS
            | IS_LEGACY_HIP_IPC_CAPABLE
            | ALLOWED_HANDLE_TYPES
            | IS_GPU_DIRECT_RDMA_CAPABLE
            | MEMPOOL_HANDLE,
            _,
        ) => return Err(NOT_SUPPORTED),
        (MEMORY_TYPE | BUFFER_ID | RANGE_SIZE, _) => {
            write(data, 0u32);
            return Err(INVALID_VALUE);
        }
        (DEVICE_POINTER | HOST_POINTER | RANGE_START_ADDR, _) => {
            write(data, std::ptr::null_mut::<c_void>());
            return Err(INVALID_VALUE);
        }
        (IS_MANAGED | MAPPED, _) => {
            write(data, false);
            return Err(INVALID_VALUE);
        }
        (DEVICE_ORDINAL, _) => {
            write(data, INVALID_DEVICE_ID);
            return Err(INVALID_VALUE);
        }
        _ => return Err(INVALID_VALUE),
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttribute(
    data: *mut c_void,
    attr: c_int,
    ptr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if ptr.is_null() || data.is_null() {
            return Err(INVALID_VALUE);
        }
        attribute(rt, data, attr, ptr)
    })
}

/// Each attribute into its own buffer; as in hipamd, one attribute's failure does not fail the
/// call.
#[no_mangle]
pub unsafe extern "C" fn hipDrvPointerGetAttributes(
    count: u32,
    attrs: *const c_int,
    data: *mut *mut c_void,
    ptr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if count == 0 || attrs.is_null() || data.is_null() || ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        for i in 0..count as usize {
            // SAFETY: the program's arrays of `count` attributes and buffers.
            let (attr, out) = unsafe { (*attrs.add(i), *data.add(i)) };
            if !out.is_null() {
                let _ = attribute(rt, out, attr, ptr);
            }
        }
        Ok(())
    })
}
