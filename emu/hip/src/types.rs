//! The C types of ROCm 5.2's `hip/hip_runtime_api.h` that cross this library's ABI, laid out as
//! the header lays them out (field order and types are the ABI; names follow the header).

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `hipError_t`: a C enum, so any `int` may arrive; [`crate::error`] names the values.
pub(crate) type hipError_t = c_int;
/// `hipStream_t`, `hipEvent_t`, `hipModule_t`, `hipFunction_t`: opaque handles we hand out.
pub(crate) type hipStream_t = *mut c_void;
pub(crate) type hipEvent_t = *mut c_void;
pub(crate) type hipModule_t = *mut c_void;
pub(crate) type hipFunction_t = *mut c_void;
pub(crate) type hipDevice_t = c_int;
pub(crate) type hipCtx_t = *mut c_void;
pub(crate) type hipHostFn_t = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
pub(crate) type hipStreamCallback_t =
    Option<unsafe extern "C" fn(stream: hipStream_t, status: hipError_t, user_data: *mut c_void)>;

/// `hipGraph_t`, `hipGraphNode_t`, `hipGraphExec_t`: opaque handles we hand out.
pub(crate) type hipGraph_t = *mut c_void;
pub(crate) type hipGraphNode_t = *mut c_void;
pub(crate) type hipGraphExec_t = *mut c_void;

/// `dim3`, passed by value in registers (`{x, y}` in one, `z` in the next).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct dim3 {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) z: u32,
}

/// `hipMemcpyKind`.
pub(crate) mod memcpy_kind {
    pub(crate) const HOST_TO_HOST: i32 = 0;
    pub(crate) const HOST_TO_DEVICE: i32 = 1;
    pub(crate) const DEVICE_TO_HOST: i32 = 2;
    pub(crate) const DEVICE_TO_DEVICE: i32 = 3;
    pub(crate) const DEFAULT: i32 = 4;
}

/// `hipMemoryType`.
pub(crate) mod memory_type {
    pub(crate) const HOST: i32 = 0;
    pub(crate) const DEVICE: i32 = 1;
    pub(crate) const ARRAY: i32 = 2;
}

/// The `hipDeviceAttribute_t` values `hipDeviceGetAttribute` answers (ROCm 5.2's numbering).
pub(crate) mod device_attribute {
    pub(crate) const ECC_ENABLED: i32 = 0;
    pub(crate) const ASYNC_ENGINE_COUNT: i32 = 2;
    pub(crate) const CAN_MAP_HOST_MEMORY: i32 = 3;
    pub(crate) const CLOCK_RATE: i32 = 5;
    pub(crate) const COMPUTE_MODE: i32 = 6;
    pub(crate) const CONCURRENT_KERNELS: i32 = 8;
    pub(crate) const CONCURRENT_MANAGED_ACCESS: i32 = 9;
    pub(crate) const COOPERATIVE_LAUNCH: i32 = 10;
    pub(crate) const COOPERATIVE_MULTI_DEVICE_LAUNCH: i32 = 11;
    pub(crate) const DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: i32 = 13;
    pub(crate) const INTEGRATED: i32 = 16;
    pub(crate) const IS_MULTI_GPU_BOARD: i32 = 17;
    pub(crate) const KERNEL_EXEC_TIMEOUT: i32 = 18;
    pub(crate) const L2_CACHE_SIZE: i32 = 19;
    pub(crate) const COMPUTE_CAPABILITY_MAJOR: i32 = 23;
    pub(crate) const MANAGED_MEMORY: i32 = 24;
    pub(crate) const MAX_BLOCKS_PER_MULTI_PROCESSOR: i32 = 25;
    pub(crate) const MAX_BLOCK_DIM_X: i32 = 26;
    pub(crate) const MAX_BLOCK_DIM_Y: i32 = 27;
    pub(crate) const MAX_BLOCK_DIM_Z: i32 = 28;
    pub(crate) const MAX_GRID_DIM_X: i32 = 29;
    pub(crate) const MAX_GRID_DIM_Y: i32 = 30;
    pub(crate) const MAX_GRID_DIM_Z: i32 = 31;
    pub(crate) const MAX_TEXTURE1_D_WIDTH: i32 = 39;
    pub(crate) const MAX_TEXTURE1_D_LINEAR: i32 = 41;
    pub(crate) const MAX_TEXTURE2_D_WIDTH: i32 = 43;
    pub(crate) const MAX_TEXTURE2_D_HEIGHT: i32 = 44;
    pub(crate) const MAX_TEXTURE3_D_WIDTH: i32 = 49;
    pub(crate) const MAX_TEXTURE3_D_HEIGHT: i32 = 50;
    pub(crate) const MAX_TEXTURE3_D_DEPTH: i32 = 51;
    pub(crate) const MAX_THREADS_PER_BLOCK: i32 = 56;
    pub(crate) const MAX_THREADS_PER_MULTI_PROCESSOR: i32 = 57;
    pub(crate) const MAX_PITCH: i32 = 58;
    pub(crate) const MEMORY_BUS_WIDTH: i32 = 59;
    pub(crate) const MEMORY_CLOCK_RATE: i32 = 60;
    pub(crate) const COMPUTE_CAPABILITY_MINOR: i32 = 61;
    pub(crate) const MULTIPROCESSOR_COUNT: i32 = 63;
    pub(crate) const PAGEABLE_MEMORY_ACCESS: i32 = 65;
    pub(crate) const PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: i32 = 66;
    pub(crate) const PCI_BUS_ID: i32 = 67;
    pub(crate) const PCI_DEVICE_ID: i32 = 68;
    pub(crate) const PCI_DOMAIN_I_D: i32 = 69;
    pub(crate) const MAX_REGISTERS_PER_BLOCK: i32 = 71;
    pub(crate) const MAX_REGISTERS_PER_MULTIPROCESSOR: i32 = 72;
    pub(crate) const MAX_SHARED_MEMORY_PER_BLOCK: i32 = 74;
    pub(crate) const SHARED_MEM_PER_BLOCK_OPTIN: i32 = 75;
    pub(crate) const SHARED_MEM_PER_MULTIPROCESSOR: i32 = 76;
    pub(crate) const STREAM_PRIORITIES_SUPPORTED: i32 = 78;
    pub(crate) const TCC_DRIVER: i32 = 80;
    pub(crate) const TEXTURE_ALIGNMENT: i32 = 81;
    pub(crate) const TEXTURE_PITCH_ALIGNMENT: i32 = 82;
    pub(crate) const TOTAL_CONSTANT_MEMORY: i32 = 83;
    pub(crate) const TOTAL_GLOBAL_MEM: i32 = 84;
    pub(crate) const UNIFIED_ADDRESSING: i32 = 85;
    pub(crate) const WARP_SIZE: i32 = 87;
    pub(crate) const MEMORY_POOLS_SUPPORTED: i32 = 88;
    /// Not in ROCm 5.2's header: the number later ones give it, for programs built with those.
    pub(crate) const VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: i32 = 89;
    pub(crate) const CLOCK_INSTRUCTION_RATE: i32 = 10000;
    pub(crate) const MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: i32 = 10002;
    pub(crate) const GCN_ARCH: i32 = 10003;
    pub(crate) const HDP_MEM_FLUSH_CNTL: i32 = 10005;
    pub(crate) const HDP_REG_FLUSH_CNTL: i32 = 10006;
    pub(crate) const COOPERATIVE_MULTI_DEVICE_UNMATCHED_FUNC: i32 = 10007;
    pub(crate) const COOPERATIVE_MULTI_DEVICE_UNMATCHED_GRID_DIM: i32 = 10008;
    pub(crate) const COOPERATIVE_MULTI_DEVICE_UNMATCHED_BLOCK_DIM: i32 = 10009;
    pub(crate) const COOPERATIVE_MULTI_DEVICE_UNMATCHED_SHARED_MEM: i32 = 10010;
    pub(crate) const IS_LARGE_BAR: i32 = 10011;
    pub(crate) const ASIC_REVISION: i32 = 10012;
    pub(crate) const CAN_USE_STREAM_WAIT_VALUE: i32 = 10013;
    pub(crate) const IMAGE_SUPPORT: i32 = 10014;
    pub(crate) const PHYSICAL_MULTI_PROCESSOR_COUNT: i32 = 10015;
    pub(crate) const FINE_GRAIN_SUPPORT: i32 = 10016;
}

/// `hipDeviceArch_t`: 17 one-bit feature flags in one `unsigned`.
pub(crate) type hipDeviceArch_t = c_uint;

#[repr(C)]
pub(crate) struct hipDeviceProp_t {
    pub(crate) name: [c_char; 256],
    pub(crate) totalGlobalMem: usize,
    pub(crate) sharedMemPerBlock: usize,
    pub(crate) regsPerBlock: c_int,
    pub(crate) warpSize: c_int,
    pub(crate) maxThreadsPerBlock: c_int,
    pub(crate) maxThreadsDim: [c_int; 3],
    pub(crate) maxGridSize: [c_int; 3],
    pub(crate) clockRate: c_int,
    pub(crate) memoryClockRate: c_int,
    pub(crate) memoryBusWidth: c_int,
    pub(crate) totalConstMem: usize,
    pub(crate) major: c_int,
    pub(crate) minor: c_int,
    pub(crate) multiProcessorCount: c_int,
    pub(crate) l2CacheSize: c_int,
    pub(crate) maxThreadsPerMultiProcessor: c_int,
    pub(crate) computeMode: c_int,
    pub(crate) clockInstructionRate: c_int,
    pub(crate) arch: hipDeviceArch_t,
    pub(crate) concurrentKernels: c_int,
    pub(crate) pciDomainID: c_int,
    pub(crate) pciBusID: c_int,
    pub(crate) pciDeviceID: c_int,
    pub(crate) maxSharedMemoryPerMultiProcessor: usize,
    pub(crate) isMultiGpuBoard: c_int,
    pub(crate) canMapHostMemory: c_int,
    pub(crate) gcnArch: c_int,
    pub(crate) gcnArchName: [c_char; 256],
    pub(crate) integrated: c_int,
    pub(crate) cooperativeLaunch: c_int,
    pub(crate) cooperativeMultiDeviceLaunch: c_int,
    pub(crate) maxTexture1DLinear: c_int,
    pub(crate) maxTexture1D: c_int,
    pub(crate) maxTexture2D: [c_int; 2],
    pub(crate) maxTexture3D: [c_int; 3],
    pub(crate) hdpMemFlushCntl: *mut c_uint,
    pub(crate) hdpRegFlushCntl: *mut c_uint,
    pub(crate) memPitch: usize,
    pub(crate) textureAlignment: usize,
    pub(crate) texturePitchAlignment: usize,
    pub(crate) kernelExecTimeoutEnabled: c_int,
    pub(crate) ECCEnabled: c_int,
    pub(crate) tccDriver: c_int,
    pub(crate) cooperativeMultiDeviceUnmatchedFunc: c_int,
    pub(crate) cooperativeMultiDeviceUnmatchedGridDim: c_int,
    pub(crate) cooperativeMultiDeviceUnmatchedBlockDim: c_int,
    pub(crate) cooperativeMultiDeviceUnmatchedSharedMem: c_int,
    pub(crate) isLargeBar: c_int,
    pub(crate) asicRevision: c_int,
    pub(crate) managedMemory: c_int,
    pub(crate) directManagedMemAccessFromHost: c_int,
    pub(crate) concurrentManagedAccess: c_int,
    pub(crate) pageableMemoryAccess: c_int,
    pub(crate) pageableMemoryAccessUsesHostPageTables: c_int,
}

#[repr(C)]
pub(crate) struct hipPointerAttribute_t {
    pub(crate) memoryType: c_int,
    pub(crate) device: c_int,
    pub(crate) devicePointer: *mut c_void,
    pub(crate) hostPointer: *mut c_void,
    pub(crate) isManaged: c_int,
    pub(crate) allocationFlags: c_uint,
}

#[repr(C)]
pub(crate) struct hipFuncAttributes {
    pub(crate) binaryVersion: c_int,
    pub(crate) cacheModeCA: c_int,
    pub(crate) constSizeBytes: usize,
    pub(crate) localSizeBytes: usize,
    pub(crate) maxDynamicSharedSizeBytes: c_int,
    pub(crate) maxThreadsPerBlock: c_int,
    pub(crate) numRegs: c_int,
    pub(crate) preferredShmemCarveout: c_int,
    pub(crate) ptxVersion: c_int,
    pub(crate) sharedSizeBytes: usize,
}

/// `hipChannelFormatDesc`, returned by value from `hipCreateChannelDesc`: bits per channel and
/// the channels' kind (`hipChannelFormatKind`: signed 0, unsigned 1, float 2, none 3).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct hipChannelFormatDesc {
    pub(crate) x: c_int,
    pub(crate) y: c_int,
    pub(crate) z: c_int,
    pub(crate) w: c_int,
    pub(crate) f: c_int,
}

/// The wrapper `__hipRegisterFatBinary` receives: `{ magic "HIPF", version 1, binary, unused }`.
#[repr(C)]
pub(crate) struct FatbinWrapper {
    pub(crate) magic: u32,
    pub(crate) version: u32,
    pub(crate) binary: *const c_void,
    pub(crate) unused: *const c_void,
}

pub(crate) const HIPF_MAGIC: u32 = 0x4849_5046;

/// `extra` keys of `hipModuleLaunchKernel`.
pub(crate) const HIP_LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
pub(crate) const HIP_LAUNCH_PARAM_BUFFER_SIZE: usize = 2;
pub(crate) const HIP_LAUNCH_PARAM_END: usize = 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipKernelNodeParams {
    pub(crate) blockDim: dim3,
    pub(crate) extra: *mut *mut c_void,
    pub(crate) func: *mut c_void,
    pub(crate) gridDim: dim3,
    pub(crate) kernelParams: *mut *mut c_void,
    pub(crate) sharedMemBytes: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipMemsetParams {
    pub(crate) dst: *mut c_void,
    pub(crate) elementSize: c_uint,
    pub(crate) height: usize,
    pub(crate) pitch: usize,
    pub(crate) value: c_uint,
    pub(crate) width: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipHostNodeParams {
    pub(crate) fn_: hipHostFn_t,
    pub(crate) userData: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipPitchedPtr {
    pub(crate) ptr: *mut c_void,
    pub(crate) pitch: usize,
    pub(crate) xsize: usize,
    pub(crate) ysize: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipExtent {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) depth: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipPos {
    pub(crate) x: usize,
    pub(crate) y: usize,
    pub(crate) z: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipMemcpy3DParms {
    pub(crate) srcArray: *mut c_void,
    pub(crate) srcPos: hipPos,
    pub(crate) srcPtr: hipPitchedPtr,
    pub(crate) dstArray: *mut c_void,
    pub(crate) dstPos: hipPos,
    pub(crate) dstPtr: hipPitchedPtr,
    pub(crate) extent: hipExtent,
    pub(crate) kind: c_int,
}

/// `hipStreamCaptureStatus`.
pub(crate) const CAPTURE_STATUS_NONE: c_int = 0;
pub(crate) const CAPTURE_STATUS_ACTIVE: c_int = 1;
pub(crate) const CAPTURE_STATUS_INVALIDATED: c_int = 2;
/// `hipStreamCaptureMode`.
pub(crate) const CAPTURE_MODE_GLOBAL: c_int = 0;
pub(crate) const CAPTURE_MODE_RELAXED: c_int = 2;
/// `hipGraphExecUpdateResult`.
pub(crate) const UPDATE_SUCCESS: c_int = 0;
pub(crate) const UPDATE_ERROR_TOPOLOGY_CHANGED: c_int = 2;
pub(crate) const UPDATE_ERROR_NODE_TYPE_CHANGED: c_int = 3;

/// `hipStreamPerThread` and the legacy default stream are handles, not objects.
pub(crate) const STREAM_LEGACY: usize = 1;
pub(crate) const STREAM_PER_THREAD: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes as hipcc's clang computes them for ROCm 5.2's header (offsetof checked with a
    /// C program compiled by hipcc).
    #[test]
    fn layouts() {
        assert_eq!(std::mem::size_of::<dim3>(), 12);
        // The texture types, as clang lays out ROCm 5.2's header.
        assert_eq!(std::mem::size_of::<hipChannelFormatDesc>(), 20);
        assert_eq!(std::mem::size_of::<hipArray>(), 64);
        assert_eq!(std::mem::size_of::<hipResourceDesc>(), 64);
        assert_eq!(std::mem::size_of::<hipTextureDesc>(), 64);
        assert_eq!(std::mem::size_of::<hipResourceViewDesc>(), 48);
        assert_eq!(std::mem::size_of::<textureReference>(), 88);
        assert_eq!(std::mem::offset_of!(textureReference, textureObject), 72);
        assert_eq!(std::mem::size_of::<HIP_ARRAY3D_DESCRIPTOR>(), 40);
        assert_eq!(std::mem::size_of::<hipPointerAttribute_t>(), 32);
        assert_eq!(std::mem::size_of::<hipFuncAttributes>(), 56);
        assert_eq!(std::mem::size_of::<hipDeviceProp_t>(), 792);
        assert_eq!(std::mem::offset_of!(hipDeviceProp_t, gcnArchName), 396);
        assert_eq!(std::mem::offset_of!(hipDeviceProp_t, hdpMemFlushCntl), 696);
        assert_eq!(std::mem::size_of::<hipKernelNodeParams>(), 64);
        assert_eq!(std::mem::offset_of!(hipKernelNodeParams, kernelParams), 48);
        assert_eq!(std::mem::size_of::<hipMemsetParams>(), 48);
        assert_eq!(std::mem::size_of::<hipMemcpy3DParms>(), 160);
        assert_eq!(std::mem::offset_of!(hipMemcpy3DParms, extent), 128);
    }
}

/// `hipMemPool_t` and the structures of the memory-pool calls.
pub(crate) type hipMemPool_t = *mut c_void;

#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipMemLocation {
    pub(crate) type_: c_int,
    pub(crate) id: c_int,
}

#[repr(C)]
pub(crate) struct hipMemPoolProps {
    pub(crate) allocType: c_int,
    pub(crate) handleTypes: c_int,
    pub(crate) location: hipMemLocation,
    pub(crate) win32SecurityAttributes: *mut c_void,
    pub(crate) reserved: [u8; 64],
}

/// `hipMemAllocationProp`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct hipMemAllocationProp {
    pub(crate) compressionType: u8,
    pub(crate) location: hipMemLocation,
    pub(crate) requestedHandleType: i32,
    pub(crate) type_: i32,
    pub(crate) usage: u16,
    /// A pointer in C; kept as a number, which makes the struct `Send` (it is never followed).
    pub(crate) win32HandleMetaData: usize,
}

#[repr(C)]
pub(crate) struct hipMemAccessDesc {
    pub(crate) location: hipMemLocation,
    pub(crate) flags: c_int,
}

#[repr(C)]
pub(crate) struct hipMemPoolPtrExportData {
    pub(crate) reserved: [u8; 64],
}

/// `hipTextureObject_t` and `hipSurfaceObject_t`: device addresses of the objects.
pub(crate) type hipTextureObject_t = *mut c_void;
pub(crate) type hipSurfaceObject_t = *mut c_void;

/// `hipArray`: what a `hipArray_t` points to (programs may read its fields).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct hipArray {
    pub(crate) data: *mut c_void,
    pub(crate) desc: hipChannelFormatDesc,
    pub(crate) type_: c_uint,
    pub(crate) width: c_uint,
    pub(crate) height: c_uint,
    pub(crate) depth: c_uint,
    pub(crate) Format: c_int,
    pub(crate) NumChannels: c_uint,
    pub(crate) isDrv: bool,
    pub(crate) textureType: c_uint,
}

/// `hipMipmappedArray`: what a `hipMipmappedArray_t` points to.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct hipMipmappedArray {
    pub(crate) data: *mut c_void,
    pub(crate) desc: hipChannelFormatDesc,
    pub(crate) type_: c_uint,
    pub(crate) width: c_uint,
    pub(crate) height: c_uint,
    pub(crate) depth: c_uint,
    pub(crate) min_mipmap_level: c_uint,
    pub(crate) max_mipmap_level: c_uint,
    pub(crate) flags: c_uint,
    pub(crate) format: c_int,
}

/// `HIP_ARRAY_DESCRIPTOR` (hipArrayCreate).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct HIP_ARRAY_DESCRIPTOR {
    pub(crate) Width: usize,
    pub(crate) Height: usize,
    pub(crate) Format: c_int,
    pub(crate) NumChannels: c_uint,
}

/// `HIP_ARRAY3D_DESCRIPTOR` (hipArray3DCreate).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct HIP_ARRAY3D_DESCRIPTOR {
    pub(crate) Width: usize,
    pub(crate) Height: usize,
    pub(crate) Depth: usize,
    pub(crate) Format: c_int,
    pub(crate) NumChannels: c_uint,
    pub(crate) Flags: c_uint,
}

/// `hipResourceDesc`: the resource type (array 0, mipmapped array 1, linear 2, pitch2D 3) and
/// its union, kept as the words it occupies (`res` below reads them by type).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct hipResourceDesc {
    pub(crate) resType: c_int,
    pub(crate) res: [u64; 7],
}

/// `hipResourceDesc`'s union, by resource type.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Resource {
    Array(*mut hipArray),
    Mipmap(*mut hipMipmappedArray),
    Linear {
        ptr: u64,
        desc: hipChannelFormatDesc,
        bytes: u64,
    },
    Pitch2D {
        ptr: u64,
        desc: hipChannelFormatDesc,
        width: u64,
        height: u64,
        pitch: u64,
    },
}

impl hipResourceDesc {
    /// The union read by `resType`; `None` for an unknown type.
    pub(crate) fn resource(&self) -> Option<Resource> {
        let r = &self.res;
        // The channel descriptor: five ints from the second word (after the pointer).
        let desc = || hipChannelFormatDesc {
            x: r[1] as u32 as c_int,
            y: (r[1] >> 32) as u32 as c_int,
            z: r[2] as u32 as c_int,
            w: (r[2] >> 32) as u32 as c_int,
            f: r[3] as u32 as c_int,
        };
        Some(match self.resType {
            0 => Resource::Array(r[0] as *mut hipArray),
            1 => Resource::Mipmap(r[0] as *mut hipMipmappedArray),
            2 => Resource::Linear {
                ptr: r[0],
                desc: desc(),
                bytes: r[4],
            },
            3 => Resource::Pitch2D {
                ptr: r[0],
                desc: desc(),
                width: r[4],
                height: r[5],
                pitch: r[6],
            },
            _ => return None,
        })
    }
}

/// `hipTextureDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct hipTextureDesc {
    pub(crate) addressMode: [c_int; 3],
    pub(crate) filterMode: c_int,
    pub(crate) readMode: c_int,
    pub(crate) sRGB: c_int,
    pub(crate) borderColor: [f32; 4],
    pub(crate) normalizedCoords: c_int,
    pub(crate) maxAnisotropy: c_uint,
    pub(crate) mipmapFilterMode: c_int,
    pub(crate) mipmapLevelBias: f32,
    pub(crate) minMipmapLevelClamp: f32,
    pub(crate) maxMipmapLevelClamp: f32,
}

/// `hipResourceViewDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct hipResourceViewDesc {
    pub(crate) format: c_int,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) depth: usize,
    pub(crate) firstMipmapLevel: c_uint,
    pub(crate) lastMipmapLevel: c_uint,
    pub(crate) firstLayer: c_uint,
    pub(crate) lastLayer: c_uint,
}

/// `textureReference`: what a `texture<T, dim, mode>` variable is, on the host and the device;
/// the kernels read `textureObject`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct textureReference {
    pub(crate) normalized: c_int,
    pub(crate) readMode: c_int,
    pub(crate) filterMode: c_int,
    pub(crate) addressMode: [c_int; 3],
    pub(crate) channelDesc: hipChannelFormatDesc,
    pub(crate) sRGB: c_int,
    pub(crate) maxAnisotropy: c_uint,
    pub(crate) mipmapFilterMode: c_int,
    pub(crate) mipmapLevelBias: f32,
    pub(crate) minMipmapLevelClamp: f32,
    pub(crate) maxMipmapLevelClamp: f32,
    pub(crate) textureObject: hipTextureObject_t,
    pub(crate) numChannels: c_int,
    pub(crate) format: c_int,
}

/// `hip_Memcpy2D` (driver API); memory types: host 0, device 1, array 2, unified 3.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct hip_Memcpy2D {
    pub(crate) srcXInBytes: usize,
    pub(crate) srcY: usize,
    pub(crate) srcMemoryType: c_int,
    pub(crate) srcHost: *const c_void,
    pub(crate) srcDevice: *mut c_void,
    pub(crate) srcArray: *mut hipArray,
    pub(crate) srcPitch: usize,
    pub(crate) dstXInBytes: usize,
    pub(crate) dstY: usize,
    pub(crate) dstMemoryType: c_int,
    pub(crate) dstHost: *mut c_void,
    pub(crate) dstDevice: *mut c_void,
    pub(crate) dstArray: *mut hipArray,
    pub(crate) dstPitch: usize,
    pub(crate) WidthInBytes: usize,
    pub(crate) Height: usize,
}

/// `HIP_MEMCPY3D` (driver API).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct HIP_MEMCPY3D {
    pub(crate) srcXInBytes: c_uint,
    pub(crate) srcY: c_uint,
    pub(crate) srcZ: c_uint,
    pub(crate) srcLOD: c_uint,
    pub(crate) srcMemoryType: c_int,
    pub(crate) srcHost: *const c_void,
    pub(crate) srcDevice: *mut c_void,
    pub(crate) srcArray: *mut hipArray,
    pub(crate) srcPitch: c_uint,
    pub(crate) srcHeight: c_uint,
    pub(crate) dstXInBytes: c_uint,
    pub(crate) dstY: c_uint,
    pub(crate) dstZ: c_uint,
    pub(crate) dstLOD: c_uint,
    pub(crate) dstMemoryType: c_int,
    pub(crate) dstHost: *mut c_void,
    pub(crate) dstDevice: *mut c_void,
    pub(crate) dstArray: *mut hipArray,
    pub(crate) dstPitch: c_uint,
    pub(crate) dstHeight: c_uint,
    pub(crate) WidthInBytes: c_uint,
    pub(crate) Height: c_uint,
    pub(crate) Depth: c_uint,
}
