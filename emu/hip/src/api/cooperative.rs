//! Cooperative launches: `hipLaunchCooperativeKernel` (and `_spt`), whose grid is resident all
//! at once so that `cooperative_groups::this_grid().sync()` works, and
//! `hipLaunchCooperativeKernelMultiDevice`, a grid per device with `this_multi_grid()` across
//! them (one device: the launches run one after another, so grids on several could not meet).
//!
//! The checks and error codes are hipamd 5.2's (`hipLaunchCooperativeKernel_common`,
//! `ihipLaunchKernel_validate`, `ihipLaunchCooperativeKernelMultiDevice`): an unregistered
//! kernel is `hipErrorInvalidSymbol`, a grid of more work-items than 32 bits
//! `hipErrorInvalidConfiguration`, a block past the kernel's launch bound
//! `hipErrorLaunchFailure`, and a grid larger than the device holds at once by hipamd's
//! occupancy rules ([`crate::occupancy`]; shared memory past a CU's counts as none fitting)
//! `hipErrorCooperativeLaunchTooLarge`. The kernel's `hidden_multigrid_sync_arg` gets what
//! ROCclr passes: 1 for a cooperative grid, the address of the device's multi-grid sync
//! information (`mg_info` of ockl) for a multi-device launch, 0 otherwise.
//!
//! A cooperative launch into a stream that captures becomes an ordinary kernel node there.
//! Otherwise it runs when called: the call is synchronous with the queue (it waits for the
//! work enqueued before it), since a queued kernel node has no place for the cooperative flags.

use super::call;
use super::device::{occupancy_of, KernelRef};
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::*;
use std::ffi::{c_uint, c_void};

/// `hipLaunchParams`: one device's part of a multi-device launch.
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(non_snake_case)]
pub(crate) struct hipLaunchParams {
    pub(crate) func: *mut c_void,
    pub(crate) gridDim: dim3,
    pub(crate) blockDim: dim3,
    pub(crate) args: *mut *mut c_void,
    pub(crate) sharedMem: usize,
    pub(crate) stream: hipStream_t,
}

/// Devices a multi-device launch may span (the runtime has one).
const DEVICES: i32 = 1;

/// Bytes of ockl's `mg_sync` (two counters) and `mg_info` (the sync pointer, grid id and
/// count, the work-items of the grids before and of all).
const MG_SYNC_BYTES: u64 = 8;
const MG_INFO_BYTES: u64 = 32;

/// hipamd's checks of a cooperative grid beyond the launch's own: its work-items fit 32 bits
/// per dimension, the block the kernel's bound, and the grid the device at once.
fn check_cooperative(
    rt: &mut Runtime,
    f: *const c_void,
    grid: dim3,
    block: dim3,
    shared: usize,
) -> Result<(), hipError_t> {
    if !rt.functions.contains_key(&(f as usize)) {
        return Err(INVALID_SYMBOL);
    }
    let items = [
        grid.x as u64 * block.x as u64,
        grid.y as u64 * block.y as u64,
        grid.z as u64 * block.z as u64,
    ];
    if items.iter().any(|&n| n > u32::MAX as u64) {
        return Err(INVALID_CONFIGURATION);
    }
    if items.contains(&0) {
        return Err(INVALID_VALUE);
    }
    let threads = block.x as u64 * block.y as u64 * block.z as u64;
    if threads > crate::occupancy::MAX_BLOCK as u64 {
        return Err(INVALID_CONFIGURATION);
    }
    let (answer, bound) = occupancy_of(rt, KernelRef::Stub(f), threads as u32, shared)?;
    if threads > bound as u64 {
        return Err(LAUNCH_FAILURE);
    }
    let groups = items.iter().product::<u64>() / threads;
    if groups > answer.blocks_per_grid as u64 {
        return Err(COOPERATIVE_LAUNCH_TOO_LARGE);
    }
    Ok(())
}

/// Launches kernel `f` with the grid resident at once and `multigrid_sync` as its hidden
/// multi-grid argument.
#[allow(clippy::too_many_arguments)]
fn launch(
    rt: &mut Runtime,
    f: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
    cooperative: bool,
    multigrid_sync: u64,
) -> Result<(), hipError_t> {
    if cooperative {
        check_cooperative(rt, f, grid, block, shared)?;
    }
    let saved = (
        rt.settings.launch.cooperative,
        rt.settings.launch.multigrid_sync,
    );
    rt.settings.launch.cooperative = cooperative;
    rt.settings.launch.multigrid_sync = multigrid_sync;
    // Captured, it is an ordinary kernel node; else it runs now (the call is synchronous with
    // the queue), as a queued kernel would not keep the flags.
    let r = if rt.graphs.capturing.contains_key(&(stream as usize)) {
        super::launch::launch_by_stub(rt, f, grid, block, args, shared, stream)
    } else {
        super::capture::no_node(rt, stream)
            .and_then(|()| super::launch::launch_now(rt, f, grid, block, args, shared, stream))
    };
    (
        rt.settings.launch.cooperative,
        rt.settings.launch.multigrid_sync,
    ) = saved;
    r
}

fn cooperative_kernel(
    rt: &mut Runtime,
    f: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: u32,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    rt.check_stream(stream).map_err(|_| INVALID_VALUE)?;
    launch(rt, f, grid, block, args, shared as usize, stream, true, 1)
}

#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernel(
    f: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: c_uint,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| cooperative_kernel(rt, f, grid, block, args, shared, stream))
}

/// `hipLaunchCooperativeKernel` on the per-thread default stream.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernel_spt(
    f: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: c_uint,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| cooperative_kernel(rt, f, grid, block, args, shared, stream))
}

/// A grid per device of `list`: cooperative ones share a multi-grid sync (`cooperative`), or
/// plain ones. (`hipExtLaunchMultiKernelMultiDevice` is in `launch_ext.rs`, across devices.)
fn multi_device(
    rt: &mut Runtime,
    list: *mut hipLaunchParams,
    devices: i32,
    cooperative: bool,
) -> Result<(), hipError_t> {
    if devices > DEVICES || list.is_null() {
        return Err(INVALID_VALUE);
    }
    let n = devices.max(0) as usize;
    // SAFETY: the caller passes `devices` entries.
    let list = unsafe { std::slice::from_raw_parts(list, n) };
    for p in list {
        rt.check_stream(p.stream).map_err(|_| INVALID_VALUE)?;
    }
    let mut all = 0u64;
    for p in list {
        let threads = p.blockDim.x as u64 * p.blockDim.y as u64 * p.blockDim.z as u64;
        if threads == 0 {
            return Err(INVALID_CONFIGURATION);
        }
        // hipamd finds each grid's device through its stream, so the null stream will not do.
        if p.stream.is_null() {
            return Err(INVALID_HANDLE);
        }
        all += p.gridDim.x as u64 * p.gridDim.y as u64 * p.gridDim.z as u64 * threads;
    }
    if n == 0 {
        return Ok(());
    }
    // The sync counters, then each grid's information.
    let sync = match cooperative {
        true => Some(
            rt.device
                .alloc(MG_SYNC_BYTES + MG_INFO_BYTES * n as u64)
                .map_err(|_| OUT_OF_MEMORY)?,
        ),
        false => None,
    };
    let mut before = 0u64;
    let mut result = Ok(());
    for (i, p) in list.iter().enumerate() {
        let arg = match sync {
            Some(base) => {
                let info = base + MG_SYNC_BYTES + MG_INFO_BYTES * i as u64;
                let mut bytes = Vec::with_capacity(MG_INFO_BYTES as usize);
                bytes.extend(base.to_le_bytes());
                bytes.extend((i as u32).to_le_bytes());
                bytes.extend((n as u32).to_le_bytes());
                bytes.extend(before.to_le_bytes());
                bytes.extend(all.to_le_bytes());
                if rt.device.write(info, &bytes).is_err() {
                    result = Err(OUT_OF_MEMORY);
                    break;
                }
                info
            }
            None => 0,
        };
        let r = launch(
            rt,
            p.func,
            p.gridDim,
            p.blockDim,
            p.args,
            p.sharedMem,
            p.stream,
            cooperative,
            arg,
        );
        if let Err(e) = r {
            result = Err(e);
            break;
        }
        before += [p.gridDim.x, p.gridDim.y, p.gridDim.z]
            .iter()
            .zip([p.blockDim.x, p.blockDim.y, p.blockDim.z])
            .map(|(&g, b)| g as u64 * b as u64)
            .product::<u64>();
    }
    // Every launch has run by now (they run at once, the call being synchronous with the
    // queue), unless a stream wait holds one: then the information stays for it.
    if let (Some(base), true) = (sync, rt.held.is_empty()) {
        let _ = rt.device.free(base);
    }
    result
}

#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernelMultiDevice(
    list: *mut hipLaunchParams,
    devices: i32,
    _flags: c_uint,
) -> hipError_t {
    // The pre- and post-launch synchronisation flags change nothing: the call is synchronous
    // with the queue, waiting for earlier work before its launches and for them after.
    call(|rt| multi_device(rt, list, devices, true))
}
