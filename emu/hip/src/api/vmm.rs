//! The virtual memory management calls (`hipMemCreate` ... `hipMemImportFromShareableHandle`) on
//! the data of [`crate::vmm`]. Argument checks are hipamd 5.2's where it has them; what 5.2 leaves
//! undone (it maps nothing, exports nothing) works as CUDA's driver API documents: mappings at
//! any granularity-aligned offset, access per device, retained handles, and export and import
//! as a POSIX file descriptor (`hipMemHandleTypePosixFileDescriptor`), which another process
//! may import to map the same physical memory.

use super::{call, put};
use crate::allocation::{AllocClass, AllocInfo};
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::*;
use crate::vmm::{self, Mapping, Physical, GRANULARITY};
use std::collections::BTreeMap;
use std::ffi::{c_int, c_ulonglong, c_void};
use std::os::fd::{AsRawFd, BorrowedFd};

/// `hipMemAllocationTypePinned`.
const ALLOCATION_PINNED: c_int = 1;
/// `hipMemLocationTypeDevice`.
const LOCATION_DEVICE: c_int = 1;
/// `hipMemHandleTypeNone`, `hipMemHandleTypePosixFileDescriptor`.
const HANDLE_NONE: c_int = 0;
const HANDLE_POSIX_FD: c_int = 1;
/// `hipMemAccessFlags`.
const ACCESS_NONE: c_int = 0;
const ACCESS_READ: c_int = 1;
const ACCESS_READ_WRITE: c_int = 3;

fn read<T: Copy>(p: *const T) -> Result<T, hipError_t> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: a non-null pointer to the C type, per the signature.
    Ok(unsafe { p.read_unaligned() })
}

/// hipamd's check of a property block: pinned memory on one of the devices.
fn check_prop(rt: &Runtime, prop: &hipMemAllocationProp) -> Result<(), hipError_t> {
    if prop.type_ != ALLOCATION_PINNED
        || prop.location.type_ != LOCATION_DEVICE
        || rt.check_device(prop.location.id).is_err()
    {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

fn aligned(v: u64) -> bool {
    v.is_multiple_of(GRANULARITY)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemGetAllocationGranularity(
    granularity: *mut usize,
    prop: *const hipMemAllocationProp,
    _option: c_int,
) -> hipError_t {
    call(|rt| {
        if granularity.is_null() {
            return Err(INVALID_VALUE);
        }
        check_prop(rt, &read(prop)?)?;
        // Minimum and recommended alike: the host page.
        put(granularity, GRANULARITY as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemCreate(
    handle: *mut *mut c_void,
    size: usize,
    prop: *const hipMemAllocationProp,
    flags: c_ulonglong,
) -> hipError_t {
    call(|rt| {
        if handle.is_null() || size == 0 || flags != 0 {
            return Err(INVALID_VALUE);
        }
        let prop = read(prop)?;
        check_prop(rt, &prop)?;
        if ![HANDLE_NONE, HANDLE_POSIX_FD].contains(&prop.requestedHandleType) {
            return Err(NOT_SUPPORTED);
        }
        if !aligned(size as u64) {
            return Err(INVALID_VALUE);
        }
        let device = prop.location.id;
        rt.charge(device, size as u64)?;
        let Some(fd) = vmm::memfd(size as u64) else {
            rt.devices[device as usize].used -= size as u64;
            return Err(OUT_OF_MEMORY);
        };
        let h = rt.new_handle();
        rt.vmm.physical.insert(
            h,
            Physical {
                fd,
                size: size as u64,
                prop,
                references: 1,
                mappings: 0,
                charged: true,
            },
        );
        put(handle, h as *mut c_void)
    })
}

/// Forgets a physical allocation once nothing refers to it or maps it.
fn drop_if_unused(rt: &mut Runtime, h: usize) {
    let Some(p) = rt.vmm.physical.get(&h) else {
        return;
    };
    if p.references == 0 && p.mappings == 0 {
        let p = rt.vmm.physical.remove(&h).expect("present");
        if p.charged {
            rt.devices[p.prop.location.id as usize].used -= p.size;
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipMemRelease(handle: *mut c_void) -> hipError_t {
    call(|rt| {
        let h = handle as usize;
        let p = rt.vmm.physical.get_mut(&h).ok_or(INVALID_VALUE)?;
        if p.references == 0 {
            return Err(INVALID_VALUE);
        }
        p.references -= 1;
        drop_if_unused(rt, h);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemAddressReserve(
    ptr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    addr: *mut c_void,
    flags: c_ulonglong,
) -> hipError_t {
    call(|rt| {
        if ptr.is_null() || flags != 0 || size == 0 || !aligned(size as u64) {
            return Err(INVALID_VALUE);
        }
        if alignment != 0 && !alignment.is_power_of_two() {
            return Err(INVALID_VALUE);
        }
        let base = vmm::reserve(size as u64, alignment as u64, addr as u64).ok_or(OUT_OF_MEMORY)?;
        rt.vmm.reservations.insert(base, size as u64);
        put(ptr, base as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemAddressFree(ptr: *mut c_void, size: usize) -> hipError_t {
    call(|rt| {
        let (base, size) = (ptr as u64, size as u64);
        if base == 0 || size == 0 {
            return Err(INVALID_VALUE);
        }
        if rt.vmm.reservations.get(&base) != Some(&size) || rt.vmm.overlaps_mapping(base, size) {
            return Err(INVALID_VALUE);
        }
        rt.vmm.reservations.remove(&base);
        vmm::release_range(base, size);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemMap(
    ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: *mut c_void,
    flags: c_ulonglong,
) -> hipError_t {
    call(|rt| {
        let (base, size, offset, h) = (ptr as u64, size as u64, offset as u64, handle as usize);
        if base == 0 || h == 0 || size == 0 || flags != 0 {
            return Err(INVALID_VALUE);
        }
        if !aligned(base) || !aligned(size) || !aligned(offset) {
            return Err(INVALID_VALUE);
        }
        let p = rt.vmm.physical.get(&h).ok_or(INVALID_VALUE)?;
        if offset.checked_add(size).is_none_or(|e| e > p.size) {
            return Err(INVALID_VALUE);
        }
        if rt.vmm.reservation_of(base, size).is_none() || rt.vmm.overlaps_mapping(base, size) {
            return Err(INVALID_VALUE);
        }
        if !vmm::map(base, size, p, offset) {
            return Err(OUT_OF_MEMORY);
        }
        rt.vmm.physical.get_mut(&h).expect("present").mappings += 1;
        rt.vmm.mappings.insert(
            base,
            Mapping {
                size,
                physical: h,
                access: BTreeMap::new(),
                registered: false,
            },
        );
        Ok(())
    })
}

/// Makes a mapping reachable by the device or not, as its access flags say.
fn update_registration(rt: &mut Runtime, base: u64) -> Result<(), hipError_t> {
    let m = &rt.vmm.mappings[&base];
    let wanted = m.access.values().any(|&f| f != ACCESS_NONE);
    let (size, registered, h) = (m.size, m.registered, m.physical);
    if wanted == registered {
        return Ok(());
    }
    if wanted {
        // SAFETY: the mapping's pages stay mapped read-write until hipMemUnmap, which forgets
        // the range first.
        unsafe {
            rt.device
                .memory_mut()
                .register(base, size, gcnemu::memory::AllocKind::Registered)
        }
        .map_err(|_| INVALID_VALUE)?;
        let device = rt.vmm.physical[&h].prop.location.id;
        let id = rt.next_buffer_id();
        rt.allocations.insert(
            base,
            AllocInfo {
                size,
                class: AllocClass::Mapped,
                flags: 0,
                device,
                id,
            },
        );
    } else {
        forget(rt, base);
    }
    rt.vmm.mappings.get_mut(&base).expect("present").registered = wanted;
    Ok(())
}

/// Takes a mapping out of the device's memory (kernels fault there from now on).
fn forget(rt: &mut Runtime, base: u64) {
    rt.allocations.remove(&base);
    let _ = rt.device.memory_mut().free(base);
}

#[no_mangle]
pub unsafe extern "C" fn hipMemUnmap(ptr: *mut c_void, size: usize) -> hipError_t {
    call(|rt| {
        let (base, size) = (ptr as u64, size as u64);
        if base == 0 || size == 0 {
            return Err(INVALID_VALUE);
        }
        let bases = rt.vmm.mappings_covering(base, size).ok_or(INVALID_VALUE)?;
        for b in bases {
            let m = rt.vmm.mappings.remove(&b).expect("present");
            if m.registered {
                forget(rt, b);
            }
            vmm::unmap(b, m.size);
            if let Some(p) = rt.vmm.physical.get_mut(&m.physical) {
                p.mappings -= 1;
            }
            drop_if_unused(rt, m.physical);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemSetAccess(
    ptr: *mut c_void,
    size: usize,
    desc: *const hipMemAccessDesc,
    count: usize,
) -> hipError_t {
    call(|rt| {
        let (base, size) = (ptr as u64, size as u64);
        if base == 0 || size == 0 || desc.is_null() || count == 0 {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the program's array of `count` descriptors.
        let descs = unsafe { std::slice::from_raw_parts(desc, count) };
        for d in descs {
            if d.location.type_ != LOCATION_DEVICE
                || ![ACCESS_NONE, ACCESS_READ, ACCESS_READ_WRITE].contains(&d.flags)
            {
                return Err(INVALID_VALUE);
            }
            rt.check_device(d.location.id)?;
        }
        let bases = rt.vmm.mappings_covering(base, size).ok_or(INVALID_VALUE)?;
        for b in bases {
            let m = rt.vmm.mappings.get_mut(&b).expect("present");
            for d in descs {
                m.access.insert(d.location.id, d.flags);
            }
            update_registration(rt, b)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemGetAccess(
    flags: *mut c_ulonglong,
    location: *const hipMemLocation,
    ptr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if flags.is_null() || ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let loc = read(location)?;
        if loc.type_ != LOCATION_DEVICE {
            return Err(INVALID_VALUE);
        }
        rt.check_device(loc.id)?;
        let (_, m) = rt.vmm.mapping_at(ptr as u64).ok_or(INVALID_VALUE)?;
        let f = m.access.get(&loc.id).copied().unwrap_or(ACCESS_NONE);
        put(flags, f as c_ulonglong)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemRetainAllocationHandle(
    handle: *mut *mut c_void,
    addr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if handle.is_null() || addr.is_null() {
            return Err(INVALID_VALUE);
        }
        let (_, m) = rt.vmm.mapping_at(addr as u64).ok_or(INVALID_VALUE)?;
        let h = m.physical;
        rt.vmm.physical.get_mut(&h).ok_or(INVALID_VALUE)?.references += 1;
        put(handle, h as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemGetAllocationPropertiesFromHandle(
    prop: *mut hipMemAllocationProp,
    handle: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if prop.is_null() {
            return Err(INVALID_VALUE);
        }
        let p = rt
            .vmm
            .physical
            .get(&(handle as usize))
            .ok_or(INVALID_VALUE)?;
        put(prop, p.prop)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemExportToShareableHandle(
    shareable: *mut c_void,
    handle: *mut c_void,
    handle_type: c_int,
    flags: c_ulonglong,
) -> hipError_t {
    call(|rt| {
        if flags != 0 || handle.is_null() || shareable.is_null() {
            return Err(INVALID_VALUE);
        }
        let p = rt
            .vmm
            .physical
            .get(&(handle as usize))
            .ok_or(INVALID_VALUE)?;
        // Only memory created to be shared this way may be exported (as in CUDA).
        if handle_type != HANDLE_POSIX_FD || p.prop.requestedHandleType != HANDLE_POSIX_FD {
            return Err(INVALID_VALUE);
        }
        // SAFETY: duplicating a descriptor we own; the copy is the program's to close.
        let fd = unsafe { libc::fcntl(p.fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
        if fd < 0 {
            return Err(OUT_OF_MEMORY);
        }
        put(shareable as *mut c_int, fd)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemImportFromShareableHandle(
    handle: *mut *mut c_void,
    os_handle: *mut c_void,
    handle_type: c_int,
) -> hipError_t {
    call(|rt| {
        if handle.is_null() || os_handle.is_null() {
            return Err(INVALID_VALUE);
        }
        if handle_type != HANDLE_POSIX_FD {
            return Err(INVALID_VALUE);
        }
        // CUDA's convention: the descriptor itself, cast to a pointer.
        let raw = i32::try_from(os_handle as usize).map_err(|_| INVALID_VALUE)?;
        // SAFETY: fstat on the program's descriptor; a zeroed stat is valid to fill.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(raw, &mut st) } != 0 || st.st_size <= 0 {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the descriptor is open (fstat succeeded) for the length of this call.
        let fd = unsafe { BorrowedFd::borrow_raw(raw) }
            .try_clone_to_owned()
            .map_err(|_| INVALID_VALUE)?;
        let device = crate::devices::current();
        // SAFETY: plain data.
        let mut prop: hipMemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = ALLOCATION_PINNED;
        prop.location = hipMemLocation {
            type_: LOCATION_DEVICE,
            id: device,
        };
        prop.requestedHandleType = HANDLE_POSIX_FD;
        let h = rt.new_handle();
        rt.vmm.physical.insert(
            h,
            Physical {
                fd,
                size: st.st_size as u64,
                prop,
                references: 1,
                mappings: 0,
                // The exporter's device counts it.
                charged: false,
            },
        );
        put(handle, h as *mut c_void)
    })
}

/// Maps memory into sparse arrays or mipmap tails. Arrays here are never sparse (there is no
/// `hipArraySparse` storage to map into), so every entry names something that cannot take a
/// mapping.
#[no_mangle]
pub unsafe extern "C" fn hipMemMapArrayAsync(
    list: *mut c_void,
    count: std::ffi::c_uint,
    _stream: *mut c_void,
) -> hipError_t {
    call(|_| {
        if count == 0 {
            return Ok(());
        }
        if list.is_null() {
            return Err(INVALID_VALUE);
        }
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!(
                "gcnemu-hip: hipMemMapArrayAsync: the emulator has no sparse arrays to map \
                 memory into; returning hipErrorNotSupported"
            )
        });
        Err(NOT_SUPPORTED)
    })
}
