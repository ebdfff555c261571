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
