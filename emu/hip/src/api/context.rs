//! The context API (`hipCtx*`, `hipDevicePrimaryCtx*`), deprecated in HIP and kept as hipamd keeps
//! it: a context is its device's handle, one per device, and each host thread has a stack of
//! them ([`crate::devices`]). Calls hipamd 5.2 leaves unimplemented (`hipCtxSynchronize`,
//! `hipCtxGetFlags`, the cache and shared-memory settings, `hipCtxGetApiVersion`) do what CUDA's
//! driver API documents for them.

use super::{call, put};
use crate::devices::{self, context_device, context_handle};
use crate::error::*;
use crate::types::*;
use std::ffi::{c_int, c_uint};

/// `hipCtxGetApiVersion`: the driver API version contexts follow (CUDA's 3.2 context API, as
/// HIP's CUDA path reports it).
const CONTEXT_API_VERSION: c_int = 3020;
/// `hipSharedMemConfig`: 4-byte LDS banks, gfx9's only layout.
const SHARED_MEM_BANK_SIZE_FOUR_BYTE: c_int = 1;

#[no_mangle]
pub unsafe extern "C" fn hipCtxCreate(
    ctx: *mut hipCtx_t,
    _flags: c_uint,
    device: hipDevice_t,
) -> hipError_t {
    call(|rt| {
        if !(0..rt.device_count()).contains(&device) {
            return Err(INVALID_VALUE);
        }
        let h = context_handle(device);
        put(ctx, h as hipCtx_t)?;
        devices::push_context(h, device);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxDestroy(ctx: hipCtx_t) -> hipError_t {
    call(|rt| {
        context_device(ctx as usize, rt.device_count()).ok_or(INVALID_VALUE)?;
        if devices::top_context() == Some(ctx as usize) {
            devices::pop_context();
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxSetCurrent(ctx: hipCtx_t) -> hipError_t {
    call(|rt| {
        if ctx.is_null() {
            devices::set_top_context(None);
            return Ok(());
        }
        let device = context_device(ctx as usize, rt.device_count()).ok_or(INVALID_CONTEXT)?;
        devices::set_top_context(Some((ctx as usize, device)));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxGetCurrent(ctx: *mut hipCtx_t) -> hipError_t {
    call(|_| put(ctx, context_handle(devices::current()) as hipCtx_t))
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxPushCurrent(ctx: hipCtx_t) -> hipError_t {
    call(|rt| {
        let device = context_device(ctx as usize, rt.device_count()).ok_or(INVALID_CONTEXT)?;
        devices::push_context(ctx as usize, device);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxPopCurrent(ctx: *mut hipCtx_t) -> hipError_t {
    call(|_| {
        let top = devices::top_context().ok_or(INVALID_CONTEXT)?;
        if !ctx.is_null() {
            put(ctx, top as hipCtx_t)?;
        }
        devices::pop_context();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxGetDevice(device: *mut hipDevice_t) -> hipError_t {
    call(|_| put(device, devices::current()))
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxGetFlags(flags: *mut c_uint) -> hipError_t {
    call(|rt| put(flags, rt.devices[devices::current() as usize].primary_flags))
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxSynchronize() -> hipError_t {
    super::device::hipDeviceSynchronize()
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxGetApiVersion(ctx: hipCtx_t, version: *mut c_int) -> hipError_t {
    call(|rt| {
        if !ctx.is_null() {
            context_device(ctx as usize, rt.device_count()).ok_or(INVALID_CONTEXT)?;
        }
        put(version, CONTEXT_API_VERSION)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxGetCacheConfig(config: *mut c_int) -> hipError_t {
    call(|rt| put(config, rt.devices[devices::current() as usize].cache_config))
}

/// Recorded and answered back; gfx9 has one split of LDS and L1, so nothing else changes.
#[no_mangle]
pub unsafe extern "C" fn hipCtxSetCacheConfig(config: c_int) -> hipError_t {
    call(|rt| {
        // hipFuncCachePreferNone, Shared, L1, Equal.
        if !(0..=3).contains(&config) {
            return Err(INVALID_VALUE);
        }
        rt.devices[devices::current() as usize].cache_config = config;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxGetSharedMemConfig(config: *mut c_int) -> hipError_t {
    call(|rt| {
        let c = rt.devices[devices::current() as usize].shared_mem_config;
        put(
            config,
            if c == 0 {
                SHARED_MEM_BANK_SIZE_FOUR_BYTE
            } else {
                c
            },
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxSetSharedMemConfig(config: c_int) -> hipError_t {
    call(|rt| {
        // hipSharedMemBankSizeDefault, FourByte, EightByte.
        if !(0..=2).contains(&config) {
            return Err(INVALID_VALUE);
        }
        rt.devices[devices::current() as usize].shared_mem_config = config;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxGetState(
    device: hipDevice_t,
    flags: *mut c_uint,
    active: *mut c_int,
) -> hipError_t {
    call(|rt| {
        rt.check_device(device)?;
        let d = &rt.devices[device as usize];
        if !flags.is_null() {
            put(flags, d.primary_flags)?;
        }
        if !active.is_null() {
            put(active, (d.primary_retains > 0) as c_int)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxRetain(
    ctx: *mut hipCtx_t,
    device: hipDevice_t,
) -> hipError_t {
    call(|rt| {
        rt.check_device(device)?;
        put(ctx, context_handle(device) as hipCtx_t)?;
        rt.devices[device as usize].primary_retains += 1;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxRelease(device: hipDevice_t) -> hipError_t {
    call(|rt| {
        rt.check_device(device)?;
        let d = &mut rt.devices[device as usize];
        d.primary_retains = d.primary_retains.saturating_sub(1);
        Ok(())
    })
}

/// As in hipamd 5.2: accepted, nothing is torn down (the primary context lives with the device).
#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxReset(device: hipDevice_t) -> hipError_t {
    call(|rt| rt.check_device(device))
}

/// As in hipamd 5.2: the primary context is always in use, so its flags cannot change.
#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxSetFlags(
    device: hipDevice_t,
    _flags: c_uint,
) -> hipError_t {
    call(|rt| {
        rt.check_device(device)?;
        Err(CONTEXT_ALREADY_IN_USE)
    })
}
