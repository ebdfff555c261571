//! The C types of ROCm 5.2's `hip/hip_runtime_api.h` that cross this library's ABI, laid out as
//! the header lays them out (field order and types are the ABI; names follow the header).

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `hipError_t`: a C enum, so any `int` may arrive; [`crate::error`] names the values.
pub type hipError_t = c_int;
/// `hipStream_t`, `hipEvent_t`, `hipModule_t`, `hipFunction_t`: opaque handles we hand out.
pub type hipStream_t = *mut c_void;
pub type hipEvent_t = *mut c_void;
pub type hipModule_t = *mut c_void;
pub type hipFunction_t = *mut c_void;
pub type hipDevice_t = c_int;
pub type hipHostFn_t = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
pub type hipStreamCallback_t =
    Option<unsafe extern "C" fn(stream: hipStream_t, status: hipError_t, user_data: *mut c_void)>;

/// `dim3`, passed by value in registers (`{x, y}` in one, `z` in the next).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// `hipMemcpyKind`.
pub mod memcpy_kind {
    pub const HOST_TO_HOST: i32 = 0;
    pub const HOST_TO_DEVICE: i32 = 1;
    pub const DEVICE_TO_HOST: i32 = 2;
    pub const DEVICE_TO_DEVICE: i32 = 3;
    pub const DEFAULT: i32 = 4;
}

/// `hipMemoryType`.
pub mod memory_type {
    pub const HOST: i32 = 0;
    pub const DEVICE: i32 = 1;
}

/// The `hipDeviceAttribute_t` values `hipDeviceGetAttribute` answers (ROCm 5.2's numbering).
pub mod device_attribute {
    pub const ECC_ENABLED: i32 = 0;
    pub const ASYNC_ENGINE_COUNT: i32 = 2;
    pub const CAN_MAP_HOST_MEMORY: i32 = 3;
    pub const CLOCK_RATE: i32 = 5;
    pub const COMPUTE_MODE: i32 = 6;
    pub const CONCURRENT_KERNELS: i32 = 8;
    pub const CONCURRENT_MANAGED_ACCESS: i32 = 9;
    pub const COOPERATIVE_LAUNCH: i32 = 10;
    pub const COOPERATIVE_MULTI_DEVICE_LAUNCH: i32 = 11;
    pub const DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: i32 = 13;
    pub const INTEGRATED: i32 = 16;
    pub const IS_MULTI_GPU_BOARD: i32 = 17;
    pub const KERNEL_EXEC_TIMEOUT: i32 = 18;
    pub const L2_CACHE_SIZE: i32 = 19;
    pub const COMPUTE_CAPABILITY_MAJOR: i32 = 23;
    pub const MANAGED_MEMORY: i32 = 24;
    pub const MAX_BLOCKS_PER_MULTI_PROCESSOR: i32 = 25;
    pub const MAX_BLOCK_DIM_X: i32 = 26;
    pub const MAX_BLOCK_DIM_Y: i32 = 27;
    pub const MAX_BLOCK_DIM_Z: i32 = 28;
    pub const MAX_GRID_DIM_X: i32 = 29;
    pub const MAX_GRID_DIM_Y: i32 = 30;
    pub const MAX_GRID_DIM_Z: i32 = 31;
    pub const MAX_TEXTURE1_D_WIDTH: i32 = 39;
    pub const MAX_TEXTURE1_D_LINEAR: i32 = 41;
    pub const MAX_TEXTURE2_D_WIDTH: i32 = 43;
    pub const MAX_TEXTURE2_D_HEIGHT: i32 = 44;
    pub const MAX_TEXTURE3_D_WIDTH: i32 = 49;
    pub const MAX_TEXTURE3_D_HEIGHT: i32 = 50;
    pub const MAX_TEXTURE3_D_DEPTH: i32 = 51;
    pub const MAX_THREADS_PER_BLOCK: i32 = 56;
    pub const MAX_THREADS_PER_MULTI_PROCESSOR: i32 = 57;
    pub const MAX_PITCH: i32 = 58;
    pub const MEMORY_BUS_WIDTH: i32 = 59;
    pub const MEMORY_CLOCK_RATE: i32 = 60;
    pub const COMPUTE_CAPABILITY_MINOR: i32 = 61;
    pub const MULTIPROCESSOR_COUNT: i32 = 63;
    pub const PAGEABLE_MEMORY_ACCESS: i32 = 65;
    pub const PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: i32 = 66;
    pub const PCI_BUS_ID: i32 = 67;
    pub const PCI_DEVICE_ID: i32 = 68;
    pub const PCI_DOMAIN_I_D: i32 = 69;
    pub const MAX_REGISTERS_PER_BLOCK: i32 = 71;
    pub const MAX_REGISTERS_PER_MULTIPROCESSOR: i32 = 72;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: i32 = 74;
    pub const SHARED_MEM_PER_BLOCK_OPTIN: i32 = 75;
    pub const SHARED_MEM_PER_MULTIPROCESSOR: i32 = 76;
    pub const STREAM_PRIORITIES_SUPPORTED: i32 = 78;
    pub const TCC_DRIVER: i32 = 80;
    pub const TEXTURE_ALIGNMENT: i32 = 81;
    pub const TEXTURE_PITCH_ALIGNMENT: i32 = 82;
    pub const TOTAL_CONSTANT_MEMORY: i32 = 83;
    pub const TOTAL_GLOBAL_MEM: i32 = 84;
    pub const UNIFIED_ADDRESSING: i32 = 85;
    pub const WARP_SIZE: i32 = 87;
    pub const MEMORY_POOLS_SUPPORTED: i32 = 88;
    pub const CLOCK_INSTRUCTION_RATE: i32 = 10000;
    pub const MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: i32 = 10002;
    pub const GCN_ARCH: i32 = 10003;
    pub const COOPERATIVE_MULTI_DEVICE_UNMATCHED_FUNC: i32 = 10007;
    pub const COOPERATIVE_MULTI_DEVICE_UNMATCHED_GRID_DIM: i32 = 10008;
    pub const COOPERATIVE_MULTI_DEVICE_UNMATCHED_BLOCK_DIM: i32 = 10009;
    pub const COOPERATIVE_MULTI_DEVICE_UNMATCHED_SHARED_MEM: i32 = 10010;
    pub const IS_LARGE_BAR: i32 = 10011;
    pub const ASIC_REVISION: i32 = 10012;
    pub const CAN_USE_STREAM_WAIT_VALUE: i32 = 10013;
    pub const IMAGE_SUPPORT: i32 = 10014;
    pub const PHYSICAL_MULTI_PROCESSOR_COUNT: i32 = 10015;
    pub const FINE_GRAIN_SUPPORT: i32 = 10016;
}

/// `hipDeviceArch_t`: 17 one-bit feature flags in one `unsigned`.
pub type hipDeviceArch_t = c_uint;

#[repr(C)]
pub struct hipDeviceProp_t {
    pub name: [c_char; 256],
    pub totalGlobalMem: usize,
    pub sharedMemPerBlock: usize,
    pub regsPerBlock: c_int,
    pub warpSize: c_int,
    pub maxThreadsPerBlock: c_int,
    pub maxThreadsDim: [c_int; 3],
    pub maxGridSize: [c_int; 3],
    pub clockRate: c_int,
    pub memoryClockRate: c_int,
    pub memoryBusWidth: c_int,
    pub totalConstMem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub multiProcessorCount: c_int,
    pub l2CacheSize: c_int,
    pub maxThreadsPerMultiProcessor: c_int,
    pub computeMode: c_int,
    pub clockInstructionRate: c_int,
    pub arch: hipDeviceArch_t,
    pub concurrentKernels: c_int,
    pub pciDomainID: c_int,
    pub pciBusID: c_int,
    pub pciDeviceID: c_int,
    pub maxSharedMemoryPerMultiProcessor: usize,
    pub isMultiGpuBoard: c_int,
    pub canMapHostMemory: c_int,
    pub gcnArch: c_int,
    pub gcnArchName: [c_char; 256],
    pub integrated: c_int,
    pub cooperativeLaunch: c_int,
    pub cooperativeMultiDeviceLaunch: c_int,
    pub maxTexture1DLinear: c_int,
    pub maxTexture1D: c_int,
    pub maxTexture2D: [c_int; 2],
    pub maxTexture3D: [c_int; 3],
    pub hdpMemFlushCntl: *mut c_uint,
    pub hdpRegFlushCntl: *mut c_uint,
    pub memPitch: usize,
    pub textureAlignment: usize,
    pub texturePitchAlignment: usize,
    pub kernelExecTimeoutEnabled: c_int,
    pub ECCEnabled: c_int,
    pub tccDriver: c_int,
    pub cooperativeMultiDeviceUnmatchedFunc: c_int,
    pub cooperativeMultiDeviceUnmatchedGridDim: c_int,
    pub cooperativeMultiDeviceUnmatchedBlockDim: c_int,
    pub cooperativeMultiDeviceUnmatchedSharedMem: c_int,
    pub isLargeBar: c_int,
    pub asicRevision: c_int,
    pub managedMemory: c_int,
    pub directManagedMemAccessFromHost: c_int,
    pub concurrentManagedAccess: c_int,
    pub pageableMemoryAccess: c_int,
    pub pageableMemoryAccessUsesHostPageTables: c_int,
}

#[repr(C)]
pub struct hipPointerAttribute_t {
    pub memoryType: c_int,
    pub device: c_int,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
    pub isManaged: c_int,
    pub allocationFlags: c_uint,
}

#[repr(C)]
pub struct hipFuncAttributes {
    pub binaryVersion: c_int,
    pub cacheModeCA: c_int,
    pub constSizeBytes: usize,
    pub localSizeBytes: usize,
    pub maxDynamicSharedSizeBytes: c_int,
    pub maxThreadsPerBlock: c_int,
    pub numRegs: c_int,
    pub preferredShmemCarveout: c_int,
    pub ptxVersion: c_int,
    pub sharedSizeBytes: usize,
}

/// `hipChannelFormatDesc`, returned by value from `hipCreateChannelDesc`.
#[repr(C)]
pub struct hipChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: c_int,
}

/// The wrapper `__hipRegisterFatBinary` receives: `{ magic "HIPF", version 1, binary, unused }`.
#[repr(C)]
pub struct FatbinWrapper {
    pub magic: u32,
    pub version: u32,
    pub binary: *const c_void,
    pub unused: *const c_void,
}

pub const HIPF_MAGIC: u32 = 0x4849_5046;

/// `extra` keys of `hipModuleLaunchKernel`.
pub const HIP_LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
pub const HIP_LAUNCH_PARAM_BUFFER_SIZE: usize = 2;
pub const HIP_LAUNCH_PARAM_END: usize = 3;

/// `hipStreamPerThread` and the legacy default stream are handles, not objects.
pub const STREAM_LEGACY: usize = 1;
pub const STREAM_PER_THREAD: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes as hipcc's clang computes them for ROCm 5.2's header (offsetof checked with a
    /// C program compiled by hipcc).
    #[test]
    fn layouts() {
        assert_eq!(std::mem::size_of::<dim3>(), 12);
        assert_eq!(std::mem::size_of::<hipPointerAttribute_t>(), 32);
        assert_eq!(std::mem::size_of::<hipFuncAttributes>(), 56);
        assert_eq!(std::mem::size_of::<hipDeviceProp_t>(), 792);
        assert_eq!(std::mem::offset_of!(hipDeviceProp_t, gcnArchName), 396);
        assert_eq!(std::mem::offset_of!(hipDeviceProp_t, hdpMemFlushCntl), 696);
    }
}
