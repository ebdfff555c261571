//! OpenGL interop (`hipGL*`, `hipGraphics*`). The emulator has no display and no OpenGL
//! context for a GL object to live in, so there is nothing to register or map: every call
//! checks its arguments as HIP does and then returns `hipErrorNotSupported`, saying why once
//! on stderr.

use super::call;
use crate::error::*;
use crate::types::hipError_t;
use std::ffi::{c_int, c_uint, c_void};

/// Says once why GL interop is not available, and answers `hipErrorNotSupported`.
fn no_display(name: &'static str) -> Result<(), hipError_t> {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "gcnemu-hip: {name}: OpenGL interop is not available: the emulator has no display \
             and no OpenGL context; returning hipErrorNotSupported"
        )
    });
    Err(NOT_SUPPORTED)
}

#[no_mangle]
pub unsafe extern "C" fn hipGLGetDevices(
    count: *mut c_uint,
    devices: *mut c_int,
    capacity: c_uint,
    _list: c_int,
) -> hipError_t {
    call(|_| {
        if count.is_null() || (devices.is_null() && capacity > 0) {
            return Err(INVALID_VALUE);
        }
        // No GL context can be current, so no device belongs to one.
        super::put(count, 0)?;
        no_display("hipGLGetDevices")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsGLRegisterBuffer(
    resource: *mut *mut c_void,
    _buffer: c_uint,
    _flags: c_uint,
) -> hipError_t {
    call(|_| {
        if resource.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsGLRegisterBuffer")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsGLRegisterImage(
    resource: *mut *mut c_void,
    _image: c_uint,
    _target: c_uint,
    _flags: c_uint,
) -> hipError_t {
    call(|_| {
        if resource.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsGLRegisterImage")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsMapResources(
    count: c_int,
    resources: *mut *mut c_void,
    _stream: *mut c_void,
) -> hipError_t {
    call(|_| {
        if count <= 0 || resources.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsMapResources")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsUnmapResources(
    count: c_int,
    resources: *mut *mut c_void,
    _stream: *mut c_void,
) -> hipError_t {
    call(|_| {
        if count <= 0 || resources.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsUnmapResources")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsSubResourceGetMappedArray(
    array: *mut *mut c_void,
    resource: *mut c_void,
    _index: c_uint,
    _level: c_uint,
) -> hipError_t {
    call(|_| {
        if array.is_null() || resource.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsSubResourceGetMappedArray")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsResourceGetMappedPointer(
    ptr: *mut *mut c_void,
    size: *mut usize,
    resource: *mut c_void,
) -> hipError_t {
    call(|_| {
        if ptr.is_null() || size.is_null() || resource.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsResourceGetMappedPointer")
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphicsUnregisterResource(resource: *mut c_void) -> hipError_t {
    call(|_| {
        if resource.is_null() {
            return Err(INVALID_VALUE);
        }
        no_display("hipGraphicsUnregisterResource")
    })
}
