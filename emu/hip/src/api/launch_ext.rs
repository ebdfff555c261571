//! The other launch entry points ROCm 5.2 exports: CUDA's old execution-control API
//! (`hipConfigureCall`, `hipSetupArgument`, `hipLaunchByPtr`), the `hipLaunchKernelGGL` wrapper
//! of old headers (`hip_impl::hipLaunchKernelGGLImpl`), AMD's launches by global work size in
//! work-items (`hipExtModuleLaunchKernel`, `hipHccModuleLaunchKernel`), one kernel per device
//! (`hipExtLaunchMultiKernelMultiDevice`), and streams limited to some compute units
//! (`hipExtStreamCreateWithCUMask`, whose mask the timing model honours by running the
//! stream's kernels on as many CUs as the mask enables).

use super::{call, put};
use crate::error::*;
use crate::runtime::{ArgSource, Runtime};
use crate::types::*;
use std::cell::RefCell;
use std::ffi::{c_int, c_uint, c_void};

/// One `hipConfigureCall` and the arguments `hipSetupArgument` placed for it.
struct Configured {
    grid: dim3,
    block: dim3,
    shared: usize,
    stream: hipStream_t,
    /// The explicit part of the kernarg segment, as the arguments' offsets lay it out.
    args: Vec<u8>,
}

thread_local! {
    static CONFIGURED: RefCell<Vec<Configured>> = const { RefCell::new(Vec::new()) };
}

#[no_mangle]
pub unsafe extern "C" fn hipConfigureCall(
    grid: dim3,
    block: dim3,
    shared: usize,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| {
        rt.check_stream(stream)?;
        CONFIGURED.with(|c| {
            c.borrow_mut().push(Configured {
                grid,
                block,
                shared,
                stream,
                args: Vec::new(),
            })
        });
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipSetupArgument(
    arg: *const c_void,
    size: usize,
    offset: usize,
) -> hipError_t {
    call(|_| {
        if arg.is_null() && size != 0 {
            return Err(INVALID_VALUE);
        }
        let end = offset.checked_add(size).ok_or(INVALID_VALUE)?;
        // Kernarg segments are small; this bounds what a bad offset can make us allocate.
        if end > 1 << 20 {
            return Err(INVALID_VALUE);
        }
        CONFIGURED.with(|c| {
            let mut c = c.borrow_mut();
            let top = c.last_mut().ok_or(MISSING_CONFIGURATION)?;
            if top.args.len() < end {
                top.args.resize(end, 0);
            }
            if size > 0 {
                // SAFETY: the program's argument of `size` bytes.
                let bytes = unsafe { std::slice::from_raw_parts(arg as *const u8, size) };
                top.args[offset..end].copy_from_slice(bytes);
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipLaunchByPtr(function: *const c_void) -> hipError_t {
    call(|rt| {
        let c = CONFIGURED
            .with(|c| c.borrow_mut().pop())
            .ok_or(MISSING_CONFIGURATION)?;
        let sym = rt.kernel_of_stub(function)?;
        let device = rt.stream_device(c.stream);
        let module = rt.symbol_module_on(&sym, device)?;
        rt.launch(
            module,
            &sym.name,
            c.grid,
            c.block,
            c.shared as u64,
            c.stream,
            ArgSource::Buffer(&c.args),
        )
    })
}

/// `hip_impl::hipLaunchKernelGGLImpl(uintptr_t function, const dim3& grid, const dim3& block,
/// uint32_t shared, hipStream_t, void** args)`: `hipLaunchKernel` by the kernel's host stub.
#[allow(non_snake_case)]
#[export_name = "_ZN8hip_impl22hipLaunchKernelGGLImplEmRK4dim3S2_jP12ihipStream_tPPv"]
pub unsafe extern "C" fn hipLaunchKernelGGLImpl(
    function: usize,
    grid: *const dim3,
    block: *const dim3,
    shared: u32,
    stream: hipStream_t,
    args: *mut *mut c_void,
) -> hipError_t {
    if grid.is_null() || block.is_null() {
        return set_last(INVALID_VALUE);
    }
    // SAFETY: C++ references, never null in a well-formed call (checked above all the same).
    let (grid, block) = unsafe { (*grid, *block) };
    super::launch::hipLaunchKernel(
        function as *const c_void,
        grid,
        block,
        args,
        shared as usize,
        stream,
    )
}

/// A launch by global work size: the grid is the work-items over the block, which must divide
/// them (the emulator runs whole workgroups; partial ones are not modelled).
#[allow(clippy::too_many_arguments)]
fn launch_work_items(
    rt: &mut Runtime,
    f: hipFunction_t,
    global: [u32; 3],
    local: [u32; 3],
    shared: usize,
    stream: hipStream_t,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: hipEvent_t,
    stop: hipEvent_t,
) -> Result<(), hipError_t> {
    if global.contains(&0) || local.contains(&0) {
        return Err(INVALID_VALUE);
    }
    if global.iter().zip(&local).any(|(g, l)| g % l != 0) {
        return Err(INVALID_VALUE);
    }
    let grid = dim3 {
        x: global[0] / local[0],
        y: global[1] / local[1],
        z: global[2] / local[2],
    };
    let block = dim3 {
        x: local[0],
        y: local[1],
        z: local[2],
    };
    let shared = u32::try_from(shared).map_err(|_| INVALID_VALUE)?;
    super::stream::record(rt, start, stream, true)?;
    super::launch::module_launch(rt, f, grid, block, shared, stream, params, extra)?;
    super::stream::record(rt, stop, stream, true)
}

#[allow(non_snake_case)]
#[export_name = "_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j"]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipExtModuleLaunchKernel(
    f: hipFunction_t,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
    shared: usize,
    stream: hipStream_t,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: hipEvent_t,
    stop: hipEvent_t,
    _flags: u32,
) -> hipError_t {
    call(|rt| {
        launch_work_items(
            rt,
            f,
            [global_x, global_y, global_z],
            [local_x, local_y, local_z],
            shared,
            stream,
            params,
            extra,
            start,
            stop,
        )
    })
}

#[allow(non_snake_case)]
#[export_name = "_Z24hipHccModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_"]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipHccModuleLaunchKernel(
    f: hipFunction_t,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
    shared: usize,
    stream: hipStream_t,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: hipEvent_t,
    stop: hipEvent_t,
) -> hipError_t {
    hipExtModuleLaunchKernel(
        f, global_x, global_y, global_z, local_x, local_y, local_z, shared, stream, params, extra,
        start, stop, 0,
    )
}

/// `hipLaunchParams`.
#[repr(C)]
pub(crate) struct hipLaunchParams {
    func: *mut c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
}

/// One kernel per device, each on a stream of its own device (hipamd's checks: no more launches
/// than devices, every stream valid and non-null, no device twice).
#[no_mangle]
pub unsafe extern "C" fn hipExtLaunchMultiKernelMultiDevice(
    list: *mut hipLaunchParams,
    count: c_int,
    _flags: c_uint,
) -> hipError_t {
    call(|rt| {
        if list.is_null() || count < 0 || count > rt.device_count() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the program's array of `count` launches.
        let launches = unsafe { std::slice::from_raw_parts(list, count as usize) };
        let mut seen = Vec::new();
        for l in launches {
            rt.check_stream(l.stream).map_err(|_| INVALID_VALUE)?;
            if l.block.x as u64 * l.block.y as u64 * l.block.z as u64 == 0 {
                return Err(INVALID_CONFIGURATION);
            }
            if l.stream.is_null() {
                return Err(INVALID_HANDLE);
            }
            let device = rt.stream_device(l.stream);
            if seen.contains(&device) {
                return Err(INVALID_DEVICE);
            }
            seen.push(device);
        }
        for (l, &device) in launches.iter().zip(&seen) {
            let sym = rt.kernel_of_stub(l.func as *const c_void)?;
            let module = rt.symbol_module_on(&sym, device)?;
            rt.launch(
                module,
                &sym.name,
                l.grid,
                l.block,
                l.shared as u64,
                l.stream,
                ArgSource::Pointers(l.args as *const *const c_void),
            )?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipExtStreamCreateWithCUMask(
    stream: *mut hipStream_t,
    size: u32,
    mask: *const u32,
) -> hipError_t {
    call(|rt| {
        if stream.is_null() {
            return Err(INVALID_HANDLE);
        }
        if size == 0 || mask.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the program's array of `size` words.
        let words = unsafe { std::slice::from_raw_parts(mask, size as usize) }.to_vec();
        super::stream::new_stream(rt, stream, 0, 0, words)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipExtStreamGetCUMask(
    stream: hipStream_t,
    size: u32,
    mask: *mut u32,
) -> hipError_t {
    call(|rt| {
        if mask.is_null() {
            return Err(INVALID_VALUE);
        }
        rt.check_stream(stream)?;
        let cus = super::device::cus(rt);
        if (size as u64) < cus.div_ceil(32) as u64 {
            return Err(INVALID_VALUE);
        }
        let own = rt
            .streams
            .get(&(stream as usize))
            .map(|s| s.cu_mask.clone())
            .unwrap_or_default();
        for (i, w) in crate::cu_mask::effective(&own, cus).into_iter().enumerate() {
            // SAFETY: `size` >= the words written, checked above.
            put(unsafe { mask.add(i) }, w)?;
        }
        Ok(())
    })
}
