//! `hipError_t` values, their names, and the per-thread last error.
//!
//! ROCm 5.2's `hipGetErrorString` returns the same text as `hipGetErrorName` (checked against
//! Debian's `libamdhip64.so.5`), and every API call stores its result as the thread's last error
//! (`HIP_RETURN` in hipamd), which `hipGetLastError` returns and resets to `hipSuccess`.

use crate::types::hipError_t;
use std::cell::Cell;
use std::ffi::CStr;

pub(crate) const SUCCESS: hipError_t = 0;
pub(crate) const INVALID_VALUE: hipError_t = 1;
pub(crate) const OUT_OF_MEMORY: hipError_t = 2;
pub(crate) const NOT_INITIALIZED: hipError_t = 3;
pub(crate) const INVALID_CONFIGURATION: hipError_t = 9;
pub(crate) const INVALID_PITCH_VALUE: hipError_t = 12;
pub(crate) const INVALID_DEVICE_POINTER: hipError_t = 17;
pub(crate) const INVALID_SYMBOL: hipError_t = 13;
pub(crate) const INVALID_MEMCPY_DIRECTION: hipError_t = 21;
pub(crate) const MISSING_CONFIGURATION: hipError_t = 52;
pub(crate) const INVALID_DEVICE_FUNCTION: hipError_t = 98;
pub(crate) const NO_DEVICE: hipError_t = 100;
pub(crate) const INVALID_DEVICE: hipError_t = 101;
pub(crate) const INVALID_CONTEXT: hipError_t = 201;
pub(crate) const CONTEXT_ALREADY_IN_USE: hipError_t = 216;
pub(crate) const PEER_ACCESS_ALREADY_ENABLED: hipError_t = 704;
pub(crate) const PEER_ACCESS_NOT_ENABLED: hipError_t = 705;
pub(crate) const INVALID_IMAGE: hipError_t = 200;
pub(crate) const NO_BINARY_FOR_GPU: hipError_t = 209;
pub(crate) const FILE_NOT_FOUND: hipError_t = 301;
pub(crate) const INVALID_HANDLE: hipError_t = 400;
pub(crate) const ILLEGAL_STATE: hipError_t = 401;
pub(crate) const NOT_FOUND: hipError_t = 500;
pub(crate) const NOT_READY: hipError_t = 600;
pub(crate) const ILLEGAL_ADDRESS: hipError_t = 700;
pub(crate) const HOST_MEMORY_ALREADY_REGISTERED: hipError_t = 712;
pub(crate) const HOST_MEMORY_NOT_REGISTERED: hipError_t = 713;
pub(crate) const CONTEXT_IS_DESTROYED: hipError_t = 709;
pub(crate) const LAUNCH_FAILURE: hipError_t = 719;
pub(crate) const COOPERATIVE_LAUNCH_TOO_LARGE: hipError_t = 720;
pub(crate) const NOT_SUPPORTED: hipError_t = 801;
pub(crate) const STREAM_CAPTURE_UNSUPPORTED: hipError_t = 900;
pub(crate) const STREAM_CAPTURE_INVALIDATED: hipError_t = 901;
pub(crate) const STREAM_CAPTURE_MERGE: hipError_t = 902;
pub(crate) const STREAM_CAPTURE_UNMATCHED: hipError_t = 903;
pub(crate) const STREAM_CAPTURE_UNJOINED: hipError_t = 904;
pub(crate) const STREAM_CAPTURE_ISOLATION: hipError_t = 905;
pub(crate) const STREAM_CAPTURE_IMPLICIT: hipError_t = 906;
pub(crate) const CAPTURED_EVENT: hipError_t = 907;
pub(crate) const STREAM_CAPTURE_WRONG_THREAD: hipError_t = 908;
pub(crate) const GRAPH_EXEC_UPDATE_FAILURE: hipError_t = 910;
pub(crate) const UNKNOWN: hipError_t = 999;

/// Every value of ROCm 5.2's `hipError_t` with its name, as Debian's library prints them.
const NAMES: &[(hipError_t, &CStr)] = &[
    (0, c"hipSuccess"),
    (1, c"hipErrorInvalidValue"),
    (2, c"hipErrorOutOfMemory"),
    (3, c"hipErrorNotInitialized"),
    (4, c"hipErrorDeinitialized"),
    (5, c"hipErrorProfilerDisabled"),
    (6, c"hipErrorProfilerNotInitialized"),
    (7, c"hipErrorProfilerAlreadyStarted"),
    (8, c"hipErrorProfilerAlreadyStopped"),
    (9, c"hipErrorInvalidConfiguration"),
    (12, c"hipErrorInvalidPitchValue"),
    (13, c"hipErrorInvalidSymbol"),
    (17, c"hipErrorInvalidDevicePointer"),
    (21, c"hipErrorInvalidMemcpyDirection"),
    (35, c"hipErrorInsufficientDriver"),
    (52, c"hipErrorMissingConfiguration"),
    (53, c"hipErrorPriorLaunchFailure"),
    (98, c"hipErrorInvalidDeviceFunction"),
    (100, c"hipErrorNoDevice"),
    (101, c"hipErrorInvalidDevice"),
    (200, c"hipErrorInvalidImage"),
    (201, c"hipErrorInvalidContext"),
    (202, c"hipErrorContextAlreadyCurrent"),
    (205, c"hipErrorMapFailed"),
    (206, c"hipErrorUnmapFailed"),
    (207, c"hipErrorArrayIsMapped"),
    (208, c"hipErrorAlreadyMapped"),
    (209, c"hipErrorNoBinaryForGpu"),
    (210, c"hipErrorAlreadyAcquired"),
    (211, c"hipErrorNotMapped"),
    (212, c"hipErrorNotMappedAsArray"),
    (213, c"hipErrorNotMappedAsPointer"),
    (214, c"hipErrorECCNotCorrectable"),
    (215, c"hipErrorUnsupportedLimit"),
    (216, c"hipErrorContextAlreadyInUse"),
    (217, c"hipErrorPeerAccessUnsupported"),
    (218, c"hipErrorInvalidKernelFile"),
    (219, c"hipErrorInvalidGraphicsContext"),
    (300, c"hipErrorInvalidSource"),
    (301, c"hipErrorFileNotFound"),
    (302, c"hipErrorSharedObjectSymbolNotFound"),
    (303, c"hipErrorSharedObjectInitFailed"),
    (304, c"hipErrorOperatingSystem"),
    (400, c"hipErrorInvalidHandle"),
    (401, c"hipErrorIllegalState"),
    (500, c"hipErrorNotFound"),
    (600, c"hipErrorNotReady"),
    (700, c"hipErrorIllegalAddress"),
    (701, c"hipErrorLaunchOutOfResources"),
    (702, c"hipErrorLaunchTimeOut"),
    (704, c"hipErrorPeerAccessAlreadyEnabled"),
    (705, c"hipErrorPeerAccessNotEnabled"),
    (708, c"hipErrorSetOnActiveProcess"),
    (709, c"hipErrorContextIsDestroyed"),
    (710, c"hipErrorAssert"),
    (712, c"hipErrorHostMemoryAlreadyRegistered"),
    (713, c"hipErrorHostMemoryNotRegistered"),
    (719, c"hipErrorLaunchFailure"),
    (720, c"hipErrorCooperativeLaunchTooLarge"),
    (801, c"hipErrorNotSupported"),
    (900, c"hipErrorStreamCaptureUnsupported"),
    (901, c"hipErrorStreamCaptureInvalidated"),
    (902, c"hipErrorStreamCaptureMerge"),
    (903, c"hipErrorStreamCaptureUnmatched"),
    (904, c"hipErrorStreamCaptureUnjoined"),
    (905, c"hipErrorStreamCaptureIsolation"),
    (906, c"hipErrorStreamCaptureImplicit"),
    (907, c"hipErrorCapturedEvent"),
    (908, c"hipErrorStreamCaptureWrongThread"),
    (910, c"hipErrorGraphExecUpdateFailure"),
    (999, c"hipErrorUnknown"),
    (1052, c"hipErrorRuntimeMemory"),
    (1053, c"hipErrorRuntimeOther"),
    (1054, c"hipErrorTbd"),
];

/// The name of `code`; unknown values are `hipErrorUnknown`, as in ROCm.
pub(crate) fn name(code: hipError_t) -> &'static CStr {
    NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(c"hipErrorUnknown", |(_, n)| n)
}

/// The name as Rust text, for messages.
pub(crate) fn name_str(code: hipError_t) -> &'static str {
    name(code).to_str().unwrap_or("hipErrorUnknown")
}

thread_local! {
    static LAST: Cell<hipError_t> = const { Cell::new(SUCCESS) };
}

/// Records `code` as this thread's last error and returns it.
pub(crate) fn set_last(code: hipError_t) -> hipError_t {
    LAST.with(|l| l.set(code));
    code
}

pub(crate) fn last() -> hipError_t {
    LAST.with(|l| l.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(name(INVALID_VALUE), c"hipErrorInvalidValue");
        assert_eq!(name(LAUNCH_FAILURE), c"hipErrorLaunchFailure");
        assert_eq!(name(12345), c"hipErrorUnknown");
        assert_eq!(name(OUT_OF_MEMORY), c"hipErrorOutOfMemory");
    }
}
