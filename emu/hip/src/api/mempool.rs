//! The stream-ordered allocator and memory pools: `hipMallocAsync`, `hipFreeAsync`,
//! `hipMallocFromPoolAsync` and the `hipMemPool*` calls, with hipamd 5.2's argument checks.
//!
//! A pool's blocks come from the device's allocator and stay in the runtime's allocations while
//! the pool holds them, so kernels may use them and pointer queries know them. An allocation
//! exists when the call returns (its memory is usable by everything after it on the stream);
//! a freed block goes back to its pool at once, reusable by later work on its stream, and by
//! other streams (opportunistic reuse) and trims only once its stream reached the free: until
//! then work queued before the free may still use it. None of these calls waits for the
//! queue, as in hipamd, where they answer while kernels run. The pool keeps freed blocks up to
//! its release threshold across synchronisations and gives the rest back at
//! `hipStreamSynchronize`, `hipEventSynchronize` and `hipDeviceSynchronize`, as HIP documents;
//! `hipMemPoolTrimTo` gives back what exceeds its argument.
//!
//! ROCm 5.2 has no graph memory nodes, so during a capture these calls are not captured: the
//! allocation is made and the free done as outside one, as hipamd 5.2 does.
//!
//! Export and import work within the process: a pool created with
//! `hipMemHandleTypePosixFileDescriptor` exports as a file descriptor (a `memfd` that names it),
//! which imports as the same pool; an exported pointer imports as the same pointer.

use super::{call, call_async, call_light, put};
use crate::allocation::AllocClass;
use crate::error::*;
use crate::mempool::{Pool, PoolId};
use crate::runtime::{HeldOp, Runtime};
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

const LOCATION_DEVICE: c_int = 1;
const HANDLE_POSIX_FD: c_int = 1;
const ACCESS_NONE: c_int = 0;
const ACCESS_READ: c_int = 1;
const ACCESS_READ_WRITE: c_int = 3;

const ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: c_int = 1;
const ATTR_REUSE_ALLOW_OPPORTUNISTIC: c_int = 2;
const ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: c_int = 3;
const ATTR_RELEASE_THRESHOLD: c_int = 4;
const ATTR_RESERVED_MEM_CURRENT: c_int = 5;
const ATTR_RESERVED_MEM_HIGH: c_int = 6;
const ATTR_USED_MEM_CURRENT: c_int = 7;
const ATTR_USED_MEM_HIGH: c_int = 8;

/// The device count here: one.
fn valid_device(device: c_int) -> bool {
    device == 0
}

fn pool_of(rt: &mut Runtime, pool: hipMemPool_t) -> Result<&mut Pool, hipError_t> {
    rt.pools.get_mut(&(pool as PoolId)).ok_or(INVALID_VALUE)
}

/// hipamd's `hip::isValid` answers an unknown stream with `hipErrorInvalidValue` here.
fn check_stream(rt: &Runtime, stream: hipStream_t) -> Result<(), hipError_t> {
    rt.check_stream(stream).map_err(|_| INVALID_VALUE)
}

/// The stream's identity for reuse decisions (the legacy stream as 0).
fn stream_key(stream: hipStream_t) -> usize {
    match stream as usize {
        STREAM_LEGACY => 0,
        s => s,
    }
}

/// Allocates `size` bytes from `pool` in stream order: a freed block the pool may reuse, else a
/// new one from the device.
fn allocate(
    rt: &mut Runtime,
    out: *mut *mut c_void,
    size: usize,
    pool: PoolId,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    if out.is_null() || size == 0 {
        return Err(INVALID_VALUE);
    }
    check_stream(rt, stream)?;
    let key = stream_key(stream);
    // The call does not wait for the queue: a block freed on this stream is reusable at once
    // (stream order), one freed on another only once that stream reached the free.
    let p = rt.pools.get_mut(&pool).ok_or(INVALID_VALUE)?;
    let addr = match p.take_free(size as u64, key, |_| true) {
        Some(a) => a,
        None => {
            let a = rt.alloc(size as u64, AllocClass::Device, 0)?;
            rt.pool_blocks.insert(a, pool);
            rt.pools.get_mut(&pool).unwrap().add_busy(a, size as u64);
            a
        }
    };
    put(out, addr as *mut c_void)
}

/// A stream reaching free number `free` of a block of `pool`.
pub(crate) fn reached(rt: &mut Runtime, pool: PoolId, free: u64) {
    if let Some(p) = rt.pools.get_mut(&pool) {
        p.reached(free);
    }
}

/// Gives the device back every block in `blocks`.
fn release(rt: &mut Runtime, blocks: Vec<crate::mempool::FreeBlock>) {
    for b in blocks {
        rt.pool_blocks.remove(&b.addr);
        let _ = rt.free(b.addr, &[AllocClass::Device]);
    }
}

/// At a synchronisation: every pool gives back the freed memory it holds over its threshold.
pub(crate) fn release_over_threshold(rt: &mut Runtime) {
    let ids: Vec<PoolId> = rt.pools.keys().copied().collect();
    for id in ids {
        let p = rt.pools.get_mut(&id).unwrap();
        let keep = p.release_threshold.max(p.used());
        let blocks = p.trim_to(keep);
        release(rt, blocks);
    }
}

/// `hipFree` of a pool block: it leaves its pool (the caller frees the memory).
pub(crate) fn forget_block(rt: &mut Runtime, addr: u64) {
    if let Some(pool) = rt.pool_blocks.remove(&addr) {
        if let Some(p) = rt.pools.get_mut(&pool) {
            p.busy.remove(&addr);
            p.free.retain(|b| b.addr != addr);
        }
    }
}

/// `hipDeviceReset`: the device's memory is gone, pools made by the program with it.
pub(crate) fn reset(rt: &mut Runtime) {
    rt.pool_blocks.clear();
    rt.pools.clear();
    rt.pools.insert(rt.default_pool, Pool::new(0, 0));
    rt.current_pool = rt.default_pool;
}

// The stream-ordered calls and the pool's attributes do not wait for the queue: hipamd answers
// them while kernels run (a free behind a running kernel leaves its block in use meanwhile).

#[no_mangle]
pub unsafe extern "C" fn hipMallocAsync(
    ptr: *mut *mut c_void,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        let pool = rt.current_pool;
        allocate(rt, ptr, size, pool, stream)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMallocFromPoolAsync(
    ptr: *mut *mut c_void,
    size: usize,
    pool: hipMemPool_t,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        if pool.is_null() {
            return Err(INVALID_VALUE);
        }
        pool_of(rt, pool)?;
        allocate(rt, ptr, size, pool as PoolId, stream)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipFreeAsync(ptr: *mut c_void, stream: hipStream_t) -> hipError_t {
    let mut pooled = false;
    let code = call_async(|rt| {
        if ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        check_stream(rt, stream)?;
        let addr = ptr as u64;
        let Some(&pool) = rt.pool_blocks.get(&addr) else {
            return Ok(());
        };
        pooled = true;
        // The block goes back to its pool now, for later work on this stream; for the rest
        // once the stream gets here, if work before the free is still queued.
        let pending = super::stream_ops::stream_held(rt, stream).then_some(rt.next_seq);
        let p = rt.pools.get_mut(&pool).ok_or(INVALID_VALUE)?;
        if !p.give_back(addr, stream_key(stream), pending) {
            return Err(INVALID_VALUE);
        }
        if let Some(free) = pending {
            super::stream_ops::push(rt, stream, HeldOp::FreeAsync { pool, free });
        }
        Ok(())
    });
    if code != SUCCESS || pooled {
        return code;
    }
    // hipamd frees memory no pool handed out as hipFree would (waiting for the device).
    call(|rt| {
        super::memory::free_device(rt, ptr as u64)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetDefaultMemPool(
    pool: *mut hipMemPool_t,
    device: c_int,
) -> hipError_t {
    call(|rt| {
        if pool.is_null() || !valid_device(device) {
            return Err(INVALID_VALUE);
        }
        put(pool, rt.default_pool as hipMemPool_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceSetMemPool(device: c_int, pool: hipMemPool_t) -> hipError_t {
    call(|rt| {
        if pool.is_null() || !valid_device(device) {
            return Err(INVALID_VALUE);
        }
        pool_of(rt, pool)?;
        rt.current_pool = pool as PoolId;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetMemPool(pool: *mut hipMemPool_t, device: c_int) -> hipError_t {
    call(|rt| {
        if pool.is_null() || !valid_device(device) {
            return Err(INVALID_VALUE);
        }
        put(pool, rt.current_pool as hipMemPool_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolCreate(
    pool: *mut hipMemPool_t,
    props: *const hipMemPoolProps,
) -> hipError_t {
    call(|rt| {
        if pool.is_null() || props.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: non-null, a `hipMemPoolProps` per the signature.
        let p = unsafe { &*props };
        if p.location.type_ != LOCATION_DEVICE || !valid_device(p.location.id) {
            return Err(INVALID_VALUE);
        }
        let h = rt.new_handle();
        rt.pools.insert(h, Pool::new(p.location.id, p.handleTypes));
        put(pool, h as hipMemPool_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolDestroy(pool: hipMemPool_t) -> hipError_t {
    call(|rt| {
        if pool.is_null() {
            return Err(INVALID_VALUE);
        }
        let id = pool as PoolId;
        if id == rt.default_pool {
            // The device's default pool lives as long as the device.
            return Err(INVALID_VALUE);
        }
        let p = rt.pools.remove(&id).ok_or(INVALID_VALUE)?;
        release(rt, p.free.clone());
        // Blocks still handed out stay valid until freed; they belong to no pool any more.
        for addr in p.busy.keys() {
            rt.pool_blocks.remove(addr);
        }
        if rt.current_pool == id {
            rt.current_pool = rt.default_pool;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolTrimTo(
    pool: hipMemPool_t,
    min_bytes_to_hold: usize,
) -> hipError_t {
    call_light(|rt| {
        if pool.is_null() {
            return Err(INVALID_VALUE);
        }
        let p = pool_of(rt, pool)?;
        let blocks = p.trim_to(min_bytes_to_hold as u64);
        release(rt, blocks);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolSetAttribute(
    pool: hipMemPool_t,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    call_light(|rt| {
        if pool.is_null() || value.is_null() {
            return Err(INVALID_VALUE);
        }
        let p = pool_of(rt, pool)?;
        // SAFETY: non-null; the attribute's type is `int` or `uint64_t` as HIP documents.
        let int = || unsafe { (value as *const i32).read_unaligned() } != 0;
        let u64v = || unsafe { (value as *const u64).read_unaligned() };
        match attr {
            ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES => p.reuse.follow_event_dependencies = int(),
            ATTR_REUSE_ALLOW_OPPORTUNISTIC => p.reuse.opportunistic = int(),
            ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES => p.reuse.internal_dependencies = int(),
            ATTR_RELEASE_THRESHOLD => p.release_threshold = u64v(),
            // The high watermarks can only be reset, to zero (they restart from now).
            ATTR_RESERVED_MEM_HIGH if u64v() == 0 => p.reserved_high = p.reserved(),
            ATTR_USED_MEM_HIGH if u64v() == 0 => p.used_high = p.used(),
            _ => return Err(INVALID_VALUE),
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolGetAttribute(
    pool: hipMemPool_t,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    call_light(|rt| {
        if pool.is_null() || value.is_null() {
            return Err(INVALID_VALUE);
        }
        let p = pool_of(rt, pool)?;
        let flag = |b: bool| put(value as *mut i32, b as i32);
        let bytes = |n: u64| put(value as *mut u64, n);
        match attr {
            ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES => flag(p.reuse.follow_event_dependencies),
            ATTR_REUSE_ALLOW_OPPORTUNISTIC => flag(p.reuse.opportunistic),
            ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES => flag(p.reuse.internal_dependencies),
            ATTR_RELEASE_THRESHOLD => bytes(p.release_threshold),
            ATTR_RESERVED_MEM_CURRENT => bytes(p.reserved()),
            ATTR_RESERVED_MEM_HIGH => bytes(p.reserved_high.max(p.reserved())),
            ATTR_USED_MEM_CURRENT => bytes(p.used()),
            ATTR_USED_MEM_HIGH => bytes(p.used_high),
            _ => Err(INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolSetAccess(
    pool: hipMemPool_t,
    desc_list: *const hipMemAccessDesc,
    count: usize,
) -> hipError_t {
    call(|rt| {
        if pool.is_null() || (desc_list.is_null() && count > 0) {
            return Err(INVALID_VALUE);
        }
        pool_of(rt, pool)?;
        // SAFETY: `count` descriptors, per the signature.
        let descs = match count {
            0 => &[][..],
            n => unsafe { std::slice::from_raw_parts(desc_list, n) },
        };
        for d in descs {
            if d.location.type_ != LOCATION_DEVICE
                || !valid_device(d.location.id)
                || ![ACCESS_NONE, ACCESS_READ, ACCESS_READ_WRITE].contains(&d.flags)
            {
                return Err(INVALID_VALUE);
            }
        }
        let p = pool_of(rt, pool)?;
        for d in descs {
            p.access.insert(d.location.id, d.flags);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolGetAccess(
    flags: *mut c_int,
    pool: hipMemPool_t,
    location: *mut hipMemLocation,
) -> hipError_t {
    call(|rt| {
        if flags.is_null() || pool.is_null() || location.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: non-null, per the signature.
        let loc = unsafe { location.read_unaligned() };
        if loc.type_ != LOCATION_DEVICE || !valid_device(loc.id) {
            return Err(INVALID_VALUE);
        }
        let p = pool_of(rt, pool)?;
        // The pool's own device always has full access.
        let f = match p.access.get(&loc.id) {
            _ if loc.id == p.device => ACCESS_READ_WRITE,
            Some(&f) => f,
            None => ACCESS_NONE,
        };
        put(flags, f)
    })
}

/// The (device, inode) of an open file: how an exported descriptor names its pool.
fn file_id(fd: c_int) -> Option<(u64, u64)> {
    // SAFETY: fstat on a descriptor the program gave; a zeroed stat is valid to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolExportToShareableHandle(
    shared_handle: *mut c_void,
    pool: hipMemPool_t,
    handle_type: c_int,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        if shared_handle.is_null() || pool.is_null() || flags != 0 {
            return Err(INVALID_VALUE);
        }
        let p = pool_of(rt, pool)?;
        if handle_type != HANDLE_POSIX_FD || p.handle_types & HANDLE_POSIX_FD == 0 {
            return Err(INVALID_VALUE);
        }
        // SAFETY: a C string literal; the descriptor becomes the program's.
        let fd = unsafe { libc::memfd_create(c"gcnemu-hip-mempool".as_ptr(), libc::MFD_CLOEXEC) };
        let id = file_id(fd).ok_or(OUT_OF_MEMORY)?;
        rt.pool_exports.insert(id, pool as PoolId);
        put(shared_handle as *mut c_int, fd)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolImportFromShareableHandle(
    pool: *mut hipMemPool_t,
    shared_handle: *mut c_void,
    handle_type: c_int,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        if pool.is_null() || handle_type != HANDLE_POSIX_FD || flags != 0 {
            return Err(INVALID_VALUE);
        }
        // CUDA and HIP pass the descriptor itself in the pointer-sized argument.
        let fd = shared_handle as usize as c_int;
        let id = file_id(fd).ok_or(INVALID_VALUE)?;
        let p = *rt.pool_exports.get(&id).ok_or(INVALID_VALUE)?;
        if !rt.pools.contains_key(&p) {
            return Err(INVALID_VALUE);
        }
        put(pool, p as hipMemPool_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolExportPointer(
    export_data: *mut hipMemPoolPtrExportData,
    ptr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if export_data.is_null() || ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let addr = ptr as u64;
        let pool = *rt.pool_blocks.get(&addr).ok_or(INVALID_VALUE)?;
        let mut data = hipMemPoolPtrExportData { reserved: [0; 64] };
        data.reserved[..8].copy_from_slice(&addr.to_le_bytes());
        data.reserved[8..16].copy_from_slice(&(pool as u64).to_le_bytes());
        put(export_data, data)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPoolImportPointer(
    ptr: *mut *mut c_void,
    pool: hipMemPool_t,
    export_data: *mut hipMemPoolPtrExportData,
) -> hipError_t {
    call(|rt| {
        if ptr.is_null() || pool.is_null() || export_data.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: non-null, per the signature.
        let data = unsafe { export_data.read_unaligned() };
        let addr = u64::from_le_bytes(data.reserved[..8].try_into().unwrap());
        let from = u64::from_le_bytes(data.reserved[8..16].try_into().unwrap()) as PoolId;
        match rt.pool_blocks.get(&addr) {
            Some(&p)
                if p == pool as PoolId && p == from && rt.pools[&p].busy.contains_key(&addr) =>
            {
                put(ptr, addr as *mut c_void)
            }
            _ => Err(INVALID_VALUE),
        }
    })
}
