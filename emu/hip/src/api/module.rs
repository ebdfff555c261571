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

/// The length of the code object or offload bundle at `image`, from its own headers (the API
/// passes no size).
fn image_len(image: *const u8) -> Option<usize> {
    // SAFETY (all reads): the program passes a whole image; each read stays inside the extent
    // the headers read so far promise.
    let read = |off: usize, n: usize| unsafe { std::slice::from_raw_parts(image.add(off), n) };
    let u64_at = |off: usize| u64::from_le_bytes(read(off, 8).try_into().unwrap());
    let u16_at = |off: usize| u16::from_le_bytes(read(off, 2).try_into().unwrap()) as u64;
    let head = read(0, 24);
    if head.starts_with(b"\x7fELF") {
        // ELF64: the section header table is normally last; take the furthest of it and of the
        // sections and segments it describes.
        let (shoff, shentsize, shnum) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c));
        let (phoff, phentsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
        let mut end = shoff + shentsize * shnum;
        for i in 0..shnum {
            let sh = (shoff + i * shentsize) as usize;
            let sh_type = u32::from_le_bytes(read(sh + 4, 4).try_into().unwrap());
            if sh_type != 8 {
                // not SHT_NOBITS
                end = end.max(u64_at(sh + 0x18) + u64_at(sh + 0x20));
            }
        }
        for i in 0..phnum {
            let ph = (phoff + i * phentsize) as usize;
            end = end.max(u64_at(ph + 0x08) + u64_at(ph + 0x20));
        }
        return (end <= MAX_IMAGE).then_some(end as usize);
    }
    if head == b"__CLANG_OFFLOAD_BUNDLE__" {
        let n = u64_at(24);
        if n > 4096 {
            return None;
        }
        let (mut at, mut end) = (32usize, 32u64);
        for _ in 0..n {
            let (offset, size, id_len) = (u64_at(at), u64_at(at + 8), u64_at(at + 16));
            if id_len > 4096 {
                return None;
            }
            at += 24 + id_len as usize;
            end = end.max(offset + size).max(at as u64);
        }
        return (end <= MAX_IMAGE).then_some(end as usize);
    }
    if head.starts_with(b"CCOB") {
        // Compressed bundle: version (u16), method (u16), total size (u32).
        let total = u32::from_le_bytes(read(8, 4).try_into().unwrap()) as usize;
        return Some(total);
    }
    None
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
        let len = image_len(image as *const u8).ok_or(INVALID_IMAGE)?;
        // SAFETY: the extent the image's own headers give.
        let bytes = unsafe { std::slice::from_raw_parts(image as *const u8, len) };
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

fn module_id(rt: &Runtime, module: hipModule_t) -> Result<usize, hipError_t> {
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
