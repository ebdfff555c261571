//! What hipcc's generated constructors call: registration of each translation unit's fat binary,
//! its kernels and its device variables.

use super::call;
use crate::allocation::AllocClass;
use crate::error::*;
use crate::runtime::{DeviceSymbol, Fatbin};
use crate::types::*;
use std::ffi::{c_char, c_int, c_void, CStr};

/// The bytes from `ptr` to the end of the loaded segment that holds it, and the name of the
/// file that segment belongs to: a bound for parsing a bundle whose size nothing states.
fn mapped_from(ptr: *const u8) -> Option<(&'static [u8], String)> {
    struct Search {
        addr: usize,
        found: Option<(usize, String)>,
    }
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the loader passes a valid `dl_phdr_info`; `data` is our `Search`.
        let (info, search) = unsafe { (&*info, &mut *(data as *mut Search)) };
        for i in 0..info.dlpi_phnum as usize {
            let ph = unsafe { &*info.dlpi_phdr.add(i) };
            if ph.p_type != libc::PT_LOAD {
                continue;
            }
            let start = info.dlpi_addr as usize + ph.p_vaddr as usize;
            let end = start + ph.p_filesz as usize;
            if (start..end).contains(&search.addr) {
                let name = if info.dlpi_name.is_null() {
                    String::new()
                } else {
                    unsafe { CStr::from_ptr(info.dlpi_name) }
                        .to_string_lossy()
                        .into_owned()
                };
                search.found = Some((end, name));
                return 1;
            }
        }
        0
    }
    let mut search = Search {
        addr: ptr as usize,
        found: None,
    };
    // SAFETY: `visit` only reads what the loader hands it.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut search as *mut Search as *mut c_void) };
    let (end, name) = search.found?;
    let name = if name.is_empty() {
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "the program".into())
    } else {
        name
    };
    // SAFETY: `[ptr, end)` is the initialised part of a mapped segment of a loaded object.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, end - ptr as usize) };
    Some((bytes, name))
}

/// Registers a translation unit's `.hip_fatbin` bundle; returns the handle its other
/// registrations name. The code object is loaded at the first launch that needs it.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void {
    let mut handle = std::ptr::null_mut();
    call(|rt| {
        let wrapper = data as *const FatbinWrapper;
        if wrapper.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: hipcc passes its `__hip_fatbin_wrapper` object.
        let w = unsafe { &*wrapper };
        if w.magic != HIPF_MAGIC || w.binary.is_null() {
            eprintln!(
                "gcnemu-hip: __hipRegisterFatBinary: not a HIP fat binary wrapper (magic {:#x})",
                w.magic
            );
            return Err(INVALID_IMAGE);
        }
        let (segment, file) = mapped_from(w.binary as *const u8).ok_or(INVALID_IMAGE)?;
        // The bundle alone: the rest of the segment holds other bundles and data.
        let len = crate::image::image_len(segment).ok_or_else(|| {
            eprintln!(
                "gcnemu-hip: {file}: the fat binary at {:#x} is not an offload bundle or code object",
                w.binary as usize
            );
            INVALID_IMAGE
        })?;
        let image = &segment[..len];
        let origin = format!("{file}:.hip_fatbin@{:#x}", w.binary as usize);
        rt.fatbins.push(Fatbin {
            image,
            origin,
            module: Vec::new(),
        });
        // The handle is a pointer to a slot holding the fatbin's index + 1.
        let slot = Box::leak(Box::new(rt.fatbins.len() as *mut c_void));
        handle = slot as *mut *mut c_void;
        Ok(())
    });
    handle
}

/// The fatbin index a registration handle names.
fn fatbin_of(handle: *mut *mut c_void) -> Result<usize, hipError_t> {
    if handle.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: handles are the slots `__hipRegisterFatBinary` leaked.
    let n = unsafe { *handle } as usize;
    n.checked_sub(1).ok_or(INVALID_VALUE)
}

fn c_name(p: *const c_char) -> Result<String, hipError_t> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: a NUL-terminated name from hipcc's registration code.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterFunction(
    modules: *mut *mut c_void,
    host_function: *const c_void,
    _device_function: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _block_dim: *mut dim3,
    _grid_dim: *mut dim3,
    _warp_size: *mut c_int,
) {
    call(|rt| {
        let fatbin = fatbin_of(modules)?;
        let name = c_name(device_name)?;
        rt.functions.insert(
            host_function as usize,
            DeviceSymbol {
                fatbin,
                name,
                size: 0,
            },
        );
        Ok(())
    });
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterVar(
    modules: *mut *mut c_void,
    var: *mut c_void,
    _host_var: *mut c_char,
    device_var: *const c_char,
    _ext: c_int,
    size: usize,
    _constant: c_int,
    _global: c_int,
) {
    call(|rt| {
        let fatbin = fatbin_of(modules)?;
        let name = c_name(device_var)?;
        rt.vars.insert(
            var as usize,
            DeviceSymbol {
                fatbin,
                name,
                size: size as u64,
            },
        );
        Ok(())
    });
}

/// A `__managed__` variable: managed memory initialised from `init_value`, its address stored
/// in `*pointer` (the host's view) and in the device variable `name` (the kernels' view).
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterManagedVar(
    modules: *mut c_void,
    pointer: *mut *mut c_void,
    init_value: *const c_void,
    name: *const c_char,
    size: usize,
    _align: u32,
) {
    call(|rt| {
        let fatbin = fatbin_of(modules as *mut *mut c_void)?;
        let name = c_name(name)?;
        if pointer.is_null() {
            return Err(INVALID_VALUE);
        }
        let addr = rt.alloc(size as u64, AllocClass::Managed, 0)?;
        if !init_value.is_null() && size > 0 {
            // SAFETY: `init_value` holds the variable's `size`-byte initialiser; `addr` is a
            // fresh allocation of that size.
            unsafe {
                std::ptr::copy_nonoverlapping(init_value as *const u8, addr as *mut u8, size)
            };
        }
        unsafe { *pointer = addr as *mut c_void };
        // The device-side variable holds the pointer; it is set when the module loads.
        let sym = DeviceSymbol {
            fatbin,
            name,
            size: 8,
        };
        rt.vars.insert(pointer as usize, sym.clone());
        let id = rt.symbol_module(&sym)?;
        let m = rt.loaded(id)?;
        if let Some((dev, _)) = m.module.symbol(&sym.name) {
            rt.device
                .memory_mut()
                .write(dev, &addr.to_le_bytes())
                .map_err(|_| INVALID_SYMBOL)?;
        }
        Ok(())
    });
}

#[no_mangle]
pub unsafe extern "C" fn __hipRegisterSurface(
    _modules: *mut *mut c_void,
    _var: *mut c_void,
    _host_var: *mut c_char,
    _device_var: *const c_char,
    _type: c_int,
    _ext: c_int,
) {
    super::unsupported("__hipRegisterSurface");
}

/// A `texture<T, dim, mode>` variable: a `textureReference` on both sides, registered as a
/// device variable so that binding it can write the texture object the kernels read.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterTexture(
    modules: *mut *mut c_void,
    var: *mut c_void,
    _host_var: *mut c_char,
    device_var: *const c_char,
    _type: c_int,
    _norm: c_int,
    _ext: c_int,
) {
    call(|rt| {
        let fatbin = fatbin_of(modules)?;
        let name = c_name(device_var)?;
        let size = std::mem::size_of::<crate::types::textureReference>() as u64;
        rt.vars
            .insert(var as usize, DeviceSymbol { fatbin, name, size });
        Ok(())
    });
}

/// Called by each translation unit's destructor at exit. The code stays loaded: other
/// translation units' destructors may still copy from device memory.
#[no_mangle]
pub unsafe extern "C" fn __hipUnregisterFatBinary(modules: *mut *mut c_void) {
    call(|_| fatbin_of(modules).map(|_| ()));
}
