//! Kernel launches: the `<<<>>>` path (`__hipPushCallConfiguration`, then the host stub's
//! `__hipPopCallConfiguration` and `hipLaunchKernel`), `hipExtLaunchKernel`, and the module API's
//! `hipModuleLaunchKernel` with `kernelParams` or an `extra` argument buffer.

use super::call_async;
use crate::error::*;
use crate::graph::NodeKind;
use crate::runtime::{ArgSource, Runtime};
use crate::types::*;
use std::cell::RefCell;
use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

/// One `<<<grid, block, shared, stream>>>` between the push at the call site and the pop in the
/// host stub.
#[derive(Clone, Copy)]
struct CallConfiguration {
    grid: dim3,
    block: dim3,
    shared: usize,
    stream: hipStream_t,
}

thread_local! {
    static CONFIGURATIONS: RefCell<Vec<CallConfiguration>> = const { RefCell::new(Vec::new()) };
}

#[no_mangle]
pub unsafe extern "C" fn __hipPushCallConfiguration(
    grid: dim3,
    block: dim3,
    shared: usize,
    stream: hipStream_t,
) -> hipError_t {
    CONFIGURATIONS.with(|c| {
        c.borrow_mut().push(CallConfiguration {
            grid,
            block,
            shared,
            stream,
        })
    });
    set_last(SUCCESS)
}

#[no_mangle]
pub unsafe extern "C" fn __hipPopCallConfiguration(
    grid: *mut dim3,
    block: *mut dim3,
    shared: *mut usize,
    stream: *mut hipStream_t,
) -> hipError_t {
    let Some(c) = CONFIGURATIONS.with(|c| c.borrow_mut().pop()) else {
        return set_last(MISSING_CONFIGURATION);
    };
    let r = (|| {
        super::put(grid, c.grid)?;
        super::put(block, c.block)?;
        super::put(shared, c.shared)?;
        super::put(stream, c.stream)
    })();
    set_last(r.err().unwrap_or(SUCCESS))
}

/// A launch's parameters as a kernel node's, for stream capture.
fn node_params(
    func: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    extra: *mut *mut c_void,
) -> hipKernelNodeParams {
    hipKernelNodeParams {
        blockDim: block,
        extra,
        func: func as *mut c_void,
        gridDim: grid,
        kernelParams: args,
        sharedMemBytes: shared as u32,
    }
}

/// Enqueues (or captures) the kernel whose host stub is `function` (registered by
/// `__hipRegisterFunction`).
pub(super) fn launch_by_stub(
    rt: &mut Runtime,
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    let sym = rt.kernel_of_stub(function)?;
    let captured = super::capture::captured(rt, stream, |rt| {
        // The kernel as loaded for the device whose stream it is enqueued on.
        let module = rt.symbol_module_on(&sym, rt.stream_device(stream))?;
        crate::runtime::check_dims(grid, block)?;
        rt.check_launch(module, &sym.name, block, shared as u64)?;
        let mut node = super::graph::kernel_node(
            rt,
            &node_params(function, grid, block, args, shared, null_mut()),
        )?;
        if let NodeKind::Kernel(k) = &mut node {
            k.module = module;
        }
        Ok(node)
    })?;
    debug_assert!(captured, "uncaptured work is queued");
    Ok(())
}

/// Runs the kernel whose host stub is `function` now, not queued (for a synchronous call).
pub(super) fn launch_now(
    rt: &mut Runtime,
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    let sym = rt.kernel_of_stub(function)?;
    let module = rt.symbol_module_on(&sym, rt.stream_device(stream))?;
    rt.launch(
        module,
        &sym.name,
        grid,
        block,
        shared as u64,
        stream,
        ArgSource::Pointers(args as *const *const c_void),
    )
}

#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel(
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| launch_by_stub(rt, function, grid, block, args, shared, stream))
}

/// `hipExtLaunchKernel`: `hipLaunchKernel` with events recorded around the kernel.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipExtLaunchKernel(
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
    start: hipEvent_t,
    stop: hipEvent_t,
    _flags: i32,
) -> hipError_t {
    call_async(|rt| {
        super::stream::record(rt, start, stream, true)?;
        launch_by_stub(rt, function, grid, block, args, shared, stream)?;
        super::stream::record(rt, stop, stream, true)
    })
}

/// Reads an `extra` array: `HIP_LAUNCH_PARAM_BUFFER_POINTER, ptr, HIP_LAUNCH_PARAM_BUFFER_SIZE,
/// &size, HIP_LAUNCH_PARAM_END`.
pub(crate) fn extra_buffer<'a>(extra: *mut *mut c_void) -> Result<&'a [u8], hipError_t> {
    let (mut buf, mut size) = (std::ptr::null::<u8>(), None::<usize>);
    for i in (0..64).step_by(2) {
        // SAFETY: `extra` is a key/value array ending in HIP_LAUNCH_PARAM_END (bounded here).
        let key = unsafe { *extra.add(i) } as usize;
        if key == HIP_LAUNCH_PARAM_END {
            break;
        }
        let value = unsafe { *extra.add(i + 1) };
        match key {
            HIP_LAUNCH_PARAM_BUFFER_POINTER => buf = value as *const u8,
            HIP_LAUNCH_PARAM_BUFFER_SIZE if !value.is_null() => {
                size = Some(unsafe { *(value as *const usize) })
            }
            _ => return Err(INVALID_VALUE),
        }
    }
    match (buf.is_null(), size) {
        (false, Some(n)) => Ok(unsafe { std::slice::from_raw_parts(buf, n) }),
        (true, Some(0)) => Ok(&[]),
        _ => Err(INVALID_VALUE),
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn module_launch(
    rt: &mut Runtime,
    f: hipFunction_t,
    grid: dim3,
    block: dim3,
    shared: u32,
    stream: hipStream_t,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<(), hipError_t> {
    let h = rt
        .function_handles
        .get(&(f as usize))
        .cloned()
        .ok_or(INVALID_HANDLE)?;
    let captured = super::capture::captured(rt, stream, |rt| {
        crate::runtime::check_dims(grid, block)?;
        rt.check_launch(h.module, &h.name, block, shared as u64)?;
        let p = node_params(f, grid, block, params, shared as usize, extra);
        super::graph::kernel_node(rt, &p)
    })?;
    debug_assert!(captured, "uncaptured work is queued");
    Ok(())
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: hipFunction_t,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared: c_uint,
    stream: hipStream_t,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    let grid = dim3 {
        x: grid_x,
        y: grid_y,
        z: grid_z,
    };
    let block = dim3 {
        x: block_x,
        y: block_y,
        z: block_z,
    };
    call_async(|rt| module_launch(rt, f, grid, block, shared, stream, params, extra))
}

/// `hipLaunchKernel` on the per-thread default stream (hipcc's `-fgpu-default-stream=per-thread`).
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel_spt(
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
) -> hipError_t {
    hipLaunchKernel(function, grid, block, args, shared, stream)
}
