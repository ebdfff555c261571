//! Error reporting, and the few exported functions that return something other than a
//! `hipError_t` (names, half-precision conversions, channel descriptors), which must not fall to
//! the generic stubs.

use crate::error::{self, *};
use crate::runtime;
use crate::types::*;
use std::ffi::{c_char, c_int, c_void};

/// The thread's last error, reset to `hipSuccess`; a kernel failure not yet returned by a
/// synchronising call is returned (and consumed) here too.
#[no_mangle]
pub unsafe extern "C" fn hipGetLastError() -> hipError_t {
    let last = error::last();
    let pending = runtime::lock()
        .as_mut()
        .and_then(|rt| rt.pending.take())
        .unwrap_or(SUCCESS);
    error::set_last(SUCCESS);
    if last != SUCCESS {
        last
    } else {
        pending
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipPeekAtLastError() -> hipError_t {
    let last = error::last();
    if last != SUCCESS {
        return last;
    }
    runtime::lock()
        .as_ref()
        .and_then(|rt| rt.pending)
        .unwrap_or(SUCCESS)
}

#[no_mangle]
pub extern "C" fn hipGetErrorName(code: hipError_t) -> *const c_char {
    error::name(code).as_ptr()
}

#[no_mangle]
pub extern "C" fn hipGetErrorString(code: hipError_t) -> *const c_char {
    error::name(code).as_ptr()
}

#[no_mangle]
pub extern "C" fn __gnu_f2h_ieee(f: f32) -> u16 {
    half::f16::from_f32(f).to_bits()
}

#[no_mangle]
pub extern "C" fn __gnu_h2f_ieee(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

#[no_mangle]
pub extern "C" fn hipCreateChannelDesc(
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
) -> hipChannelFormatDesc {
    hipChannelFormatDesc { x, y, z, w, f }
}

#[no_mangle]
pub extern "C" fn hipApiName(_id: u32) -> *const c_char {
    c"unknown".as_ptr()
}

#[no_mangle]
pub extern "C" fn hipGetCmdName(_id: u32) -> *const c_char {
    c"unknown".as_ptr()
}

#[no_mangle]
pub extern "C" fn hipKernelNameRef(_f: hipFunction_t) -> *const c_char {
    std::ptr::null()
}

#[no_mangle]
pub extern "C" fn hipKernelNameRefByPtr(_f: *const c_void, _s: hipStream_t) -> *const c_char {
    std::ptr::null()
}

/// The device of a stream's work (the calling thread's for the null stream), or -1 for a
/// handle that is not a stream, as hipamd answers.
#[no_mangle]
pub extern "C" fn hipGetStreamDeviceId(s: hipStream_t) -> c_int {
    let mut device = -1;
    super::call(|rt| {
        if rt.check_stream(s).is_ok() {
            device = rt.stream_device(s);
        }
        Ok(())
    });
    device
}

#[no_mangle]
pub extern "C" fn hipInitActivityCallback(_id: *mut c_void, _op: *mut c_void, _arg: *mut c_void) {}

#[no_mangle]
pub extern "C" fn amd_dbgapi_get_build_name() -> *const c_char {
    c"gcnemu".as_ptr()
}

#[no_mangle]
pub extern "C" fn amd_dbgapi_get_git_hash() -> *const c_char {
    c"".as_ptr()
}

#[no_mangle]
pub extern "C" fn amd_dbgapi_get_build_id() -> usize {
    0
}
