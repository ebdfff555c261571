//! Device management and queries: one device, the emulated GPU, with the figures of the board the
//! target names (`gcnemu::board`: Radeon RX Vega 64 for gfx900, Radeon Instinct MI50 for gfx906,
//! Instinct MI100 for gfx908, Instinct MI210 for gfx90a), kernel attributes from the kernel
//! descriptor, and occupancy from the CU model's rules.

use super::{call, call_light, put};
use crate::error::*;
use crate::occupancy::{self, Answer, KernelUse};
use crate::runtime::Runtime;
use crate::types::*;
use gcn_isa::Target;
use gcnemu::cu::occupancy::Demand;
use std::ffi::{c_char, c_int, c_uint, c_void};

use gcnemu::board::board;

const HIP_VERSION: c_int = 5 * 10_000_000 + 2 * 100_000 + 21153;
const LDS_BYTES: usize = 64 * 1024;
/// Workgroups a CU holds at most (the barrier limit of the occupancy rules).
const MAX_WORKGROUPS_PER_CU: c_int = 16;

pub(crate) fn cus(rt: &Runtime) -> u32 {
    rt.settings
        .launch
        .timing
        .as_ref()
        .map(|t| t.cus)
        .unwrap_or_else(|| gcnemu::cu::config::default_cus(rt.settings.target))
}

/// A device's PCI address as `hipDeviceGetPCIBusId` writes it: domain, bus, device, function.
pub(crate) fn bus_id_text(device: c_int) -> String {
    format!("0000:{:02x}:00.0", crate::devices::pci_bus(device))
}

pub(crate) fn copy_name(dst: &mut [c_char], s: &str) {
    for (d, b) in dst.iter_mut().zip(s.bytes().chain([0])) {
        *d = b as c_char;
    }
}

fn properties(rt: &Runtime, device: c_int) -> hipDeviceProp_t {
    let t = rt.settings.target;
    let b = board(t);
    // SAFETY: the struct is plain C data, for which all-zero is valid.
    let mut p: hipDeviceProp_t = unsafe { std::mem::zeroed() };
    copy_name(&mut p.name, b.name);
    copy_name(
        &mut p.gcnArchName,
        &gcnemu::board::arch_name(t, rt.settings.xnack),
    );
    let memory = rt.devices[device as usize].limit;
    p.totalGlobalMem = memory as usize;
    p.sharedMemPerBlock = LDS_BYTES;
    p.regsPerBlock = 65536;
    p.warpSize = 64;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim = [1024, 1024, 1024];
    p.maxGridSize = [i32::MAX, 65536, 65536];
    p.clockRate = b.clock_khz as c_int;
    p.memoryClockRate = b.memory_clock_khz as c_int;
    p.memoryBusWidth = b.bus_width as c_int;
    p.totalConstMem = memory.min(i32::MAX as u64) as usize;
    p.major = 9;
    p.minor = 0;
    p.multiProcessorCount = cus(rt) as c_int;
    p.l2CacheSize = b.l2_bytes as c_int;
    p.maxThreadsPerMultiProcessor = 2560;
    p.computeMode = 0;
    p.clockInstructionRate = b.clock_khz as c_int;
    // hipamd's flags (hip_device.cpp), which are the device code's __HIP_ARCH_HAS_* macros:
    // bits 0-10 (atomics, doubles, warp vote, ballot, shuffle), thread fence system (12) and 3D
    // grids (15); not funnel shift (11), the extended syncthreads (13), surface functions (14)
    // or dynamic parallelism (16).
    p.arch = 0x7ff | 1 << 12 | 1 << 15;
    p.concurrentKernels = 1;
    p.maxSharedMemoryPerMultiProcessor = LDS_BYTES;
    p.canMapHostMemory = 1;
    p.gcnArch = b.gcn_arch as c_int;
    // Cooperative launches keep the whole grid resident (`hipLaunchCooperativeKernel`).
    p.cooperativeLaunch = 1;
    p.cooperativeMultiDeviceLaunch = 1;
    p.maxTexture1DLinear = i32::MAX;
    p.maxTexture1D = 16384;
    p.maxTexture2D = [16384, 16384];
    p.maxTexture3D = [2048, 2048, 2048];
    p.memPitch = i32::MAX as usize;
    p.textureAlignment = 256;
    p.texturePitchAlignment = 256;
    p.isLargeBar = 1;
    p.managedMemory = 1;
    p.pciBusID = crate::devices::pci_bus(device);
    p.isMultiGpuBoard = (rt.device_count() > 1) as c_int;
    p.directManagedMemAccessFromHost = 1;
    p.concurrentManagedAccess = 1;
    p
}

#[no_mangle]
pub unsafe extern "C" fn hipInit(flags: c_uint) -> hipError_t {
    call_light(|_| {
        if flags == 0 {
            Ok(())
        } else {
            Err(INVALID_VALUE)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> hipError_t {
    call_light(|rt| {
        put(count, rt.device_count())?;
        // As hipamd: a count of 0 comes with hipErrorNoDevice.
        if rt.device_count() == 0 {
            return Err(NO_DEVICE);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipSetDevice(device: c_int) -> hipError_t {
    call_light(|rt| {
        rt.check_device(device)?;
        crate::devices::set_current(device);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(device: *mut c_int) -> hipError_t {
    call_light(|_| put(device, crate::devices::current()))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGet(device: *mut hipDevice_t, ordinal: c_int) -> hipError_t {
    call_light(|rt| {
        rt.check_device(ordinal)?;
        put(device, ordinal)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(
    prop: *mut hipDeviceProp_t,
    device: c_int,
) -> hipError_t {
    call_light(|rt| {
        rt.check_device(device)?;
        put(prop, properties(rt, device))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(
    name: *mut c_char,
    len: c_int,
    device: hipDevice_t,
) -> hipError_t {
    call_light(|rt| {
        rt.check_device(device)?;
        if name.is_null() || len <= 0 {
            return Err(INVALID_VALUE);
        }
        let text = board(rt.settings.target).name;
        // SAFETY: the program's buffer of `len` bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(name, len as usize) };
        let n = text.len().min(out.len() - 1);
        copy_name(&mut out[..=n], &text[..n]);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device: hipDevice_t) -> hipError_t {
    call_light(|rt| {
        rt.check_device(device)?;
        put(bytes, rt.devices[device as usize].limit as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    device: hipDevice_t,
) -> hipError_t {
    call_light(|rt| {
        rt.check_device(device)?;
        put(major, 9)?;
        put(minor, 0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetPCIBusId(
    bus_id: *mut c_char,
    len: c_int,
    device: c_int,
) -> hipError_t {
    call_light(|rt| {
        rt.check_device(device)?;
        if bus_id.is_null() || len < 13 {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the program's buffer of `len` >= 13 bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(bus_id, len as usize) };
        copy_name(out, &bus_id_text(device));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device: c_int,
) -> hipError_t {
    call_light(|rt| {
        use crate::types::device_attribute::*;
        rt.check_device(device)?;
        let p = properties(rt, device);
        let clamp = |v: usize| v.min(i32::MAX as usize) as c_int;
        let v = match attribute {
            ECC_ENABLED => p.ECCEnabled,
            ASYNC_ENGINE_COUNT => 0,
            CAN_MAP_HOST_MEMORY => p.canMapHostMemory,
            CLOCK_RATE => p.clockRate,
            COMPUTE_MODE => p.computeMode,
            CONCURRENT_KERNELS => p.concurrentKernels,
            CONCURRENT_MANAGED_ACCESS => p.concurrentManagedAccess,
            COOPERATIVE_LAUNCH => p.cooperativeLaunch,
            COOPERATIVE_MULTI_DEVICE_LAUNCH => p.cooperativeMultiDeviceLaunch,
            DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => p.directManagedMemAccessFromHost,
            INTEGRATED => p.integrated,
            IS_MULTI_GPU_BOARD => p.isMultiGpuBoard,
            KERNEL_EXEC_TIMEOUT => p.kernelExecTimeoutEnabled,
            L2_CACHE_SIZE => p.l2CacheSize,
            COMPUTE_CAPABILITY_MAJOR => p.major,
            MANAGED_MEMORY => p.managedMemory,
            MAX_BLOCKS_PER_MULTI_PROCESSOR => MAX_WORKGROUPS_PER_CU,
            MAX_BLOCK_DIM_X => p.maxThreadsDim[0],
            MAX_BLOCK_DIM_Y => p.maxThreadsDim[1],
            MAX_BLOCK_DIM_Z => p.maxThreadsDim[2],
            MAX_GRID_DIM_X => p.maxGridSize[0],
            MAX_GRID_DIM_Y => p.maxGridSize[1],
            MAX_GRID_DIM_Z => p.maxGridSize[2],
            MAX_TEXTURE1_D_WIDTH => p.maxTexture1D,
            MAX_TEXTURE1_D_LINEAR => p.maxTexture1DLinear,
            MAX_TEXTURE2_D_WIDTH => p.maxTexture2D[0],
            MAX_TEXTURE2_D_HEIGHT => p.maxTexture2D[1],
            MAX_TEXTURE3_D_WIDTH => p.maxTexture3D[0],
            MAX_TEXTURE3_D_HEIGHT => p.maxTexture3D[1],
            MAX_TEXTURE3_D_DEPTH => p.maxTexture3D[2],
            MAX_THREADS_PER_BLOCK => p.maxThreadsPerBlock,
            MAX_THREADS_PER_MULTI_PROCESSOR => p.maxThreadsPerMultiProcessor,
            MAX_PITCH => clamp(p.memPitch),
            MEMORY_BUS_WIDTH => p.memoryBusWidth,
            MEMORY_CLOCK_RATE => p.memoryClockRate,
            COMPUTE_CAPABILITY_MINOR => p.minor,
            MULTIPROCESSOR_COUNT => p.multiProcessorCount,
            PAGEABLE_MEMORY_ACCESS => p.pageableMemoryAccess,
            PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES => {
                p.pageableMemoryAccessUsesHostPageTables
            }
            PCI_BUS_ID => p.pciBusID,
            PCI_DEVICE_ID => p.pciDeviceID,
            PCI_DOMAIN_I_D => p.pciDomainID,
            MAX_REGISTERS_PER_BLOCK => p.regsPerBlock,
            MAX_REGISTERS_PER_MULTIPROCESSOR => p.regsPerBlock,
            MAX_SHARED_MEMORY_PER_BLOCK => clamp(p.sharedMemPerBlock),
            SHARED_MEM_PER_BLOCK_OPTIN => clamp(p.sharedMemPerBlock),
            SHARED_MEM_PER_MULTIPROCESSOR => clamp(p.maxSharedMemoryPerMultiProcessor),
            STREAM_PRIORITIES_SUPPORTED => 1,
            TCC_DRIVER => p.tccDriver,
            TEXTURE_ALIGNMENT => clamp(p.textureAlignment),
            TEXTURE_PITCH_ALIGNMENT => clamp(p.texturePitchAlignment),
            TOTAL_CONSTANT_MEMORY => clamp(p.totalConstMem),
            TOTAL_GLOBAL_MEM => clamp(p.totalGlobalMem),
            UNIFIED_ADDRESSING => 1,
            WARP_SIZE => p.warpSize,
            MEMORY_POOLS_SUPPORTED => 1,
            VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 1,
            CLOCK_INSTRUCTION_RATE => p.clockInstructionRate,
            MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => clamp(p.maxSharedMemoryPerMultiProcessor),
            GCN_ARCH => p.gcnArch,
            // The host data path's flush registers: none, device memory is host memory.
            HDP_MEM_FLUSH_CNTL | HDP_REG_FLUSH_CNTL => 0,
            COOPERATIVE_MULTI_DEVICE_UNMATCHED_FUNC => 0,
            COOPERATIVE_MULTI_DEVICE_UNMATCHED_GRID_DIM => 0,
            COOPERATIVE_MULTI_DEVICE_UNMATCHED_BLOCK_DIM => 0,
            COOPERATIVE_MULTI_DEVICE_UNMATCHED_SHARED_MEM => 0,
            IS_LARGE_BAR => p.isLargeBar,
            ASIC_REVISION => p.asicRevision,
            CAN_USE_STREAM_WAIT_VALUE => 1,
            IMAGE_SUPPORT => 1,
            PHYSICAL_MULTI_PROCESSOR_COUNT => p.multiProcessorCount,
            FINE_GRAIN_SUPPORT => 1,
            _ => return Err(INVALID_VALUE),
        };
        put(value, v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceSynchronize() -> hipError_t {
    let code = call_light(|rt| super::capture::uncapturable(rt));
    if code != SUCCESS {
        return code;
    }
    if let Err(e) = super::stream_ops::wait_for("hipDeviceSynchronize", |rt| rt.held.is_empty()) {
        return set_last(e);
    }
    call_light(|rt| {
        super::mempool::release_over_threshold(rt);
        rt.take_pending()
    })
}

/// Frees every allocation of the current device and forgets its streams, events and peers, as
/// a device reset does; registered code stays loadable.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceReset() -> hipError_t {
    call(|rt| {
        let device = crate::devices::current();
        let addrs: Vec<u64> = rt
            .allocations
            .iter()
            .filter(|(_, info)| info.device == device)
            .map(|(&a, _)| a)
            .collect();
        for a in addrs {
            rt.allocations.remove(&a);
            let _ = rt.device.memory_mut().free(a);
        }
        let d = &mut rt.devices[device as usize];
        d.used = 0;
        d.peers.clear();
        rt.streams.retain(|_, s| s.device != device);
        rt.events.retain(|_, e| e.device != device);
        rt.graphs.captures.clear();
        rt.graphs.capturing.clear();
        rt.graphs.captured_events.clear();
        rt.pending = None;
        rt.held.clear();
        rt.advice.clear();
        super::mempool::reset(rt);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(version: *mut c_int) -> hipError_t {
    call_light(|_| put(version, HIP_VERSION))
}

#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(version: *mut c_int) -> hipError_t {
    call_light(|_| put(version, HIP_VERSION))
}

#[no_mangle]
pub unsafe extern "C" fn hipSetDeviceFlags(flags: c_uint) -> hipError_t {
    // hipDeviceScheduleMask, hipDeviceMapHost, hipDeviceLmemResizeToMax.
    const SCHEDULE_MASK: c_uint = 0x7;
    const SUPPORTED: c_uint = SCHEDULE_MASK | 0x8 | 0x10;
    call_light(|rt| {
        if flags & !SUPPORTED != 0 {
            return Err(INVALID_VALUE);
        }
        // As hipamd: the device keeps the scheduling part only.
        rt.devices[crate::devices::current() as usize].flags = flags & SCHEDULE_MASK;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceFlags(flags: *mut c_uint) -> hipError_t {
    call_light(|rt| put(flags, rt.devices[crate::devices::current() as usize].flags))
}

#[no_mangle]
pub unsafe extern "C" fn hipChooseDevice(
    device: *mut c_int,
    prop: *const hipDeviceProp_t,
) -> hipError_t {
    call_light(|_| {
        // All devices are alike, so the first matches best.
        if prop.is_null() {
            return Err(INVALID_VALUE);
        }
        put(device, 0)
    })
}

/// Cache and shared-memory configuration: accepted, as ROCm accepts them; gfx9 has no choice.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceSetCacheConfig(_config: c_int) -> hipError_t {
    call_light(|_| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetCacheConfig(config: *mut c_int) -> hipError_t {
    call_light(|_| put(config, 0))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceSetSharedMemConfig(_config: c_int) -> hipError_t {
    call_light(|_| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetSharedMemConfig(config: *mut c_int) -> hipError_t {
    // hipSharedMemBankSizeFourByte
    call_light(|_| put(config, 1))
}

#[no_mangle]
pub unsafe extern "C" fn hipFuncSetCacheConfig(_f: *const c_void, _config: c_int) -> hipError_t {
    call(|_| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn hipFuncSetSharedMemConfig(
    _f: *const c_void,
    _config: c_int,
) -> hipError_t {
    call(|_| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn hipFuncSetAttribute(
    f: *const c_void,
    _attr: c_int,
    _value: c_int,
) -> hipError_t {
    call(|rt| {
        if rt.functions.contains_key(&(f as usize)) {
            Ok(())
        } else {
            Err(INVALID_DEVICE_FUNCTION)
        }
    })
}

/// `hipLimitStackSize` (0), `hipLimitPrintfFifoSize` (1), `hipLimitMallocHeapSize` (2).
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetLimit(value: *mut usize, limit: c_int) -> hipError_t {
    call(|_| match limit {
        0 => put(value, 1024),
        1 => put(value, 1 << 20),
        2 => put(value, 8 << 20),
        _ => Err(INVALID_VALUE),
    })
}

/// The kernel behind a host stub or a `hipFunction_t`: its descriptor and metadata.
#[derive(Clone, Copy)]
pub(crate) enum KernelRef {
    Stub(*const c_void),
    Handle(hipFunction_t),
}

fn with_kernel<R>(
    rt: &mut Runtime,
    k: KernelRef,
    f: impl FnOnce(&gcn_loader::Kernel) -> R,
) -> Result<R, hipError_t> {
    let (module, name) = match k {
        KernelRef::Stub(p) => {
            let sym = rt
                .functions
                .get(&(p as usize))
                .cloned()
                .ok_or(INVALID_DEVICE_FUNCTION)?;
            (rt.symbol_module(&sym)?, sym.name)
        }
        KernelRef::Handle(h) => {
            let f = rt
                .function_handles
                .get(&(h as usize))
                .cloned()
                .ok_or(INVALID_HANDLE)?;
            (f.module, f.name)
        }
    };
    let loaded = rt.loaded(module)?;
    let kernel = loaded.module.kernel(&name).ok_or(INVALID_DEVICE_FUNCTION)?;
    Ok(f(kernel))
}

/// Largest workgroup the kernel was compiled for.
fn max_threads(k: &gcn_loader::Kernel) -> u32 {
    k.meta
        .as_ref()
        .map(|m| m.max_flat_workgroup_size as u32)
        .filter(|&n| n > 0)
        .unwrap_or(1024)
        .min(1024)
}

fn attributes(k: &gcn_loader::Kernel, target: Target) -> hipFuncAttributes {
    let d = &k.descriptor;
    let demand = Demand::new(d, target, 1, 0);
    hipFuncAttributes {
        binaryVersion: 90,
        cacheModeCA: 0,
        constSizeBytes: 0,
        localSizeBytes: d.private_segment_fixed_size as usize,
        maxDynamicSharedSizeBytes: (LDS_BYTES as u32).saturating_sub(d.group_segment_fixed_size)
            as c_int,
        maxThreadsPerBlock: max_threads(k) as c_int,
        numRegs: demand.vgprs as c_int,
        preferredShmemCarveout: 0,
        ptxVersion: 90,
        sharedSizeBytes: d.group_segment_fixed_size as usize,
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttributes(
    attr: *mut hipFuncAttributes,
    f: *const c_void,
) -> hipError_t {
    call(|rt| {
        if attr.is_null() {
            return Err(INVALID_VALUE);
        }
        let t = rt.settings.target;
        let a = with_kernel(rt, KernelRef::Stub(f), |k| attributes(k, t))?;
        put(attr, a)
    })
}

/// `hipFunction_attribute`: the CUDA driver's order.
#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttribute(
    value: *mut c_int,
    attrib: c_int,
    f: hipFunction_t,
) -> hipError_t {
    call(|rt| {
        let t = rt.settings.target;
        let a = with_kernel(rt, KernelRef::Handle(f), |k| attributes(k, t))?;
        let v = match attrib {
            0 => a.maxThreadsPerBlock,
            1 => a.sharedSizeBytes as c_int,
            2 => a.constSizeBytes as c_int,
            3 => a.localSizeBytes as c_int,
            4 => a.numRegs,
            5 => a.ptxVersion,
            6 => a.binaryVersion,
            7 => a.cacheModeCA,
            8 => a.maxDynamicSharedSizeBytes,
            9 => a.preferredShmemCarveout,
            _ => return Err(INVALID_VALUE),
        };
        put(value, v)
    })
}

/// hipamd's occupancy answer for kernel `k` ([`crate::occupancy`]); an unknown host stub is
/// `hipErrorInvalidValue`, as hipamd answers.
pub(crate) fn occupancy_of(
    rt: &mut Runtime,
    k: KernelRef,
    block: u32,
    dynamic_lds: usize,
) -> Result<(Answer, u32), hipError_t> {
    let (t, cus) = (rt.settings.target, cus(rt));
    let stub = matches!(k, KernelRef::Stub(_));
    with_kernel(rt, k, |k| {
        let a = occupancy::answer(KernelUse::of(k, t), t, block, dynamic_lds as u64, cus);
        (a, max_threads(k))
    })
    .map_err(|e| match (stub, e) {
        (true, INVALID_DEVICE_FUNCTION) => INVALID_VALUE,
        (_, e) => e,
    })
}

fn max_active_blocks(
    rt: &mut Runtime,
    k: KernelRef,
    out: *mut c_int,
    block: c_int,
    dynamic_lds: usize,
) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // The kernel first: an unknown one is the error even with a bad block size.
    occupancy_of(rt, k, 1, dynamic_lds)?;
    let n = match block {
        ..=0 => {
            put(out, 0)?;
            return Err(INVALID_VALUE);
        }
        // Larger than any workgroup: none fit (and no error).
        b if b as u32 > occupancy::MAX_BLOCK => 0,
        b => occupancy_of(rt, k, b as u32, dynamic_lds)?.0.blocks_per_cu,
    };
    put(out, n.min(c_int::MAX as u32) as c_int)
}

/// The block size (up to `limit`, or the largest workgroup for 0) that keeps the most waves
/// resident, and the grid of such blocks that fills every CU, as hipamd works them out. The
/// block is also held to the kernel's launch bound, so that it can be launched.
fn potential_block_size(
    rt: &mut Runtime,
    k: KernelRef,
    grid: *mut c_int,
    block: *mut c_int,
    dynamic_lds: usize,
    limit: c_int,
) -> Result<(), hipError_t> {
    if grid.is_null() || block.is_null() {
        return Err(INVALID_VALUE);
    }
    let limit = match limit {
        l if l <= 0 || l as u32 > occupancy::MAX_BLOCK => occupancy::MAX_BLOCK,
        l => l as u32,
    };
    let (_, bound) = occupancy_of(rt, k, 1, dynamic_lds)?;
    let (a, _) = occupancy_of(rt, k, limit.min(bound), dynamic_lds)?;
    put(block, a.best_block.min(bound) as c_int)?;
    put(grid, a.blocks_per_grid.min(c_int::MAX as u32) as c_int)
}

#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    f: *const c_void,
    block_size: c_int,
    dynamic_lds: usize,
) -> hipError_t {
    call(|rt| max_active_blocks(rt, KernelRef::Stub(f), blocks, block_size, dynamic_lds))
}

#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    f: *const c_void,
    block_size: c_int,
    dynamic_lds: usize,
    _flags: c_uint,
) -> hipError_t {
    call(|rt| max_active_blocks(rt, KernelRef::Stub(f), blocks, block_size, dynamic_lds))
}

#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxPotentialBlockSize(
    grid: *mut c_int,
    block: *mut c_int,
    f: *const c_void,
    dynamic_lds: usize,
    limit: c_int,
) -> hipError_t {
    call(|rt| potential_block_size(rt, KernelRef::Stub(f), grid, block, dynamic_lds, limit))
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    f: hipFunction_t,
    block_size: c_int,
    dynamic_lds: usize,
) -> hipError_t {
    call(|rt| max_active_blocks(rt, KernelRef::Handle(f), blocks, block_size, dynamic_lds))
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    f: hipFunction_t,
    block_size: c_int,
    dynamic_lds: usize,
    _flags: c_uint,
) -> hipError_t {
    call(|rt| max_active_blocks(rt, KernelRef::Handle(f), blocks, block_size, dynamic_lds))
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSize(
    grid: *mut c_int,
    block: *mut c_int,
    f: hipFunction_t,
    dynamic_lds: usize,
    limit: c_int,
) -> hipError_t {
    call(|rt| potential_block_size(rt, KernelRef::Handle(f), grid, block, dynamic_lds, limit))
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
    grid: *mut c_int,
    block: *mut c_int,
    f: hipFunction_t,
    dynamic_lds: usize,
    limit: c_int,
    _flags: c_uint,
) -> hipError_t {
    call(|rt| potential_block_size(rt, KernelRef::Handle(f), grid, block, dynamic_lds, limit))
}
