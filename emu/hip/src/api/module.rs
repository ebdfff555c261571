//! The module API: code objects the program loads itself (`hipModuleLoad`, `hipModuleLoadData`),
//! their kernels and globals.

use super::{call, put};
use crate::error::*;
use crate::runtime::{FunctionHandle, Runtime};
use crate::types::*;
use std::ffi::{c_char, c_uint, c_void, CStr};

/// Files larger than this are not code objects anyone loads.
const MAX_IMAGE: u64 = 1 << 30;

fn new_module(rt: &mut Runtime, bytes: &[u8], origin: &str) -> Result<hipModule_t, hipError_t> {
    let id = rt.load_bundle(bytes, origin).map_err(|e| {
        eprintln!("gcnemu-hip: {e}");
        if e.contains("no code object for") {
            NO_BINARY_FOR_GPU
        } else {
            INVALID_IMAGE
        }
    })?;
    let h = rt.new_handle();
    rt.module_handles.insert(h, id);
    Ok(h as hipModule_t)
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoad(
    module: *mut hipModule_t,
    fname: *const c_char,
) -> hipError_t {
    call(|rt| {
        if module.is_null() || fname.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: a NUL-terminated path from the program.
        let path = unsafe { CStr::from_ptr(fname) }
            .to_string_lossy()
            .into_owned();
        let meta = std::fs::metadata(&path).map_err(|_| FILE_NOT_FOUND)?;
        if meta.len() > MAX_IMAGE {
            eprintln!(
                "gcnemu-hip: {path}: {} bytes is too large for a code object",
                meta.len()
            );
            return Err(INVALID_IMAGE);
        }
        let bytes = std::fs::read(&path).map_err(|_| FILE_NOT_FOUND)?;
        let m = new_module(rt, &bytes, &path)?;
        put(module, m)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(
    module: *mut hipModule_t,
    image: *const c_void,
) -> hipError_t {
    call(|rt| {
        if module.is_null() || image.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the program passes a whole image; `image_len` reads only inside the extent
        // its headers promise, bounded by MAX_IMAGE.
        let whole = unsafe { std::slice::from_raw_parts(image as *const u8, MAX_IMAGE as usize) };
        let len = crate::image::image_len(whole).ok_or(INVALID_IMAGE)?;
        let bytes = &whole[..len];
        let origin = format!("code object at {:#x}", image as usize);
        let m = new_module(rt, bytes, &origin)?;
        put(module, m)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadDataEx(
    module: *mut hipModule_t,
    image: *const c_void,
    _num_options: c_uint,
    _options: *mut c_void,
    _values: *mut *mut c_void,
) -> hipError_t {
    hipModuleLoadData(module, image)
}

pub(crate) fn module_id(rt: &Runtime, module: hipModule_t) -> Result<usize, hipError_t> {
    rt.module_handles
        .get(&(module as usize))
        .copied()
        .ok_or(INVALID_HANDLE)
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleUnload(module: hipModule_t) -> hipError_t {
    call(|rt| {
        let id = module_id(rt, module)?;
        rt.module_handles.remove(&(module as usize));
        rt.function_handles.retain(|_, f| f.module != id);
        if let Some(l) = rt.modules[id].take() {
            let _ = rt.device.unload(&l.module);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    function: *mut hipFunction_t,
    module: hipModule_t,
    name: *const c_char,
) -> hipError_t {
    call(|rt| {
        if function.is_null() || name.is_null() {
            return Err(INVALID_VALUE);
        }
        let id = module_id(rt, module)?;
        // SAFETY: a NUL-terminated kernel name.
        let name = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        if rt.loaded(id)?.module.kernel(&name).is_none() {
            return Err(NOT_FOUND);
        }
        let h = rt.new_handle();
        rt.function_handles
            .insert(h, FunctionHandle { module: id, name });
        put(function, h as hipFunction_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetGlobal(
    device: *mut *mut c_void,
    bytes: *mut usize,
    module: hipModule_t,
    name: *const c_char,
) -> hipError_t {
    call(|rt| {
        if name.is_null() {
            return Err(INVALID_VALUE);
        }
        let id = module_id(rt, module)?;
        // SAFETY: a NUL-terminated symbol name.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        let (addr, size) = rt.loaded(id)?.module.symbol(&name).ok_or(NOT_FOUND)?;
        if !device.is_null() {
            put(device, addr as *mut c_void)?;
        }
        if !bytes.is_null() {
            put(bytes, size as usize)?;
        }
        Ok(())
    })
}
