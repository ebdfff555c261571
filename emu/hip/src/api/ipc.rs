//! Inter-process handles (`hipIpcGetMemHandle` ... `hipIpcOpenEventHandle`), within one process.
//!
//! A handle carries a tag, the process id, and the allocation's address, size and the offset of
//! the pointer in it (or the event's handle). Opened in the process that made it, a memory
//! handle gives back the same address (the allocation is shared already); the opens are counted
//! so that `hipIpcCloseMemHandle` accepts only what was opened. An event handle opened in the
//! process that made it is `hipErrorInvalidContext`, as in hipamd 5.2. `hipMalloc` memory is the
//! process's own heap, so no other process can map it, and an event's state lives in this
//! process: another process's handle is `hipErrorInvalidValue`. Sharing memory between
//! processes works through the virtual memory calls instead (`hipMemExportToShareableHandle`
//! with a POSIX descriptor).

use super::{call, put};
use crate::error::*;
use crate::types::*;
use std::ffi::{c_uint, c_void};

/// `HIP_IPC_HANDLE_SIZE`.
const HANDLE_SIZE: usize = 64;
const MEMORY_TAG: [u8; 8] = *b"gcnemuM\0";
const EVENT_TAG: [u8; 8] = *b"gcnemuE\0";
/// `hipEventInterprocess`.
const EVENT_INTERPROCESS: u32 = 0x4;
/// `hipIpcMemLazyEnablePeerAccess`, the only flag hipamd accepts.
const LAZY_ENABLE_PEER_ACCESS: c_uint = 0;

/// `hipIpcMemHandle_t` and `hipIpcEventHandle_t`: 64 opaque bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct IpcHandle {
    reserved: [u8; HANDLE_SIZE],
}

/// What a handle says: tag, process, then three numbers.
fn encode(tag: [u8; 8], values: [u64; 3]) -> IpcHandle {
    let mut b = [0u8; HANDLE_SIZE];
    b[..8].copy_from_slice(&tag);
    b[8..12].copy_from_slice(&std::process::id().to_le_bytes());
    for (i, v) in values.iter().enumerate() {
        b[16 + 8 * i..24 + 8 * i].copy_from_slice(&v.to_le_bytes());
    }
    IpcHandle { reserved: b }
}

/// The three numbers of a handle with `tag` made by this process; another process's handle is
/// `hipErrorInvalidValue`.
fn decode(h: &IpcHandle, tag: [u8; 8]) -> Result<[u64; 3], hipError_t> {
    let b = &h.reserved;
    if b[..8] != tag {
        return Err(INVALID_VALUE);
    }
    let pid = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
    if pid != std::process::id() {
        return Err(INVALID_VALUE);
    }
    let n = |i: usize| u64::from_le_bytes(b[16 + 8 * i..24 + 8 * i].try_into().expect("8 bytes"));
    Ok([n(0), n(1), n(2)])
}

#[no_mangle]
pub unsafe extern "C" fn hipIpcGetMemHandle(
    handle: *mut IpcHandle,
    ptr: *mut c_void,
) -> hipError_t {
    call(|rt| {
        if handle.is_null() || ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let (base, info) = rt.allocation_of(ptr as u64).ok_or(INVALID_DEVICE_POINTER)?;
        put(
            handle,
            encode(MEMORY_TAG, [base, info.size, ptr as u64 - base]),
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipIpcOpenMemHandle(
    ptr: *mut *mut c_void,
    handle: IpcHandle,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        if ptr.is_null() || flags != LAZY_ENABLE_PEER_ACCESS {
            return Err(INVALID_VALUE);
        }
        let [base, size, offset] = decode(&handle, MEMORY_TAG)?;
        if size == 0 {
            return Err(INVALID_VALUE);
        }
        // The allocation must still be the one the handle named.
        match rt.allocation_of(base) {
            Some((b, info)) if b == base && info.size == size => {}
            _ => return Err(INVALID_DEVICE_POINTER),
        }
        let addr = base + offset;
        *rt.ipc_opened.entry(addr).or_insert(0) += 1;
        put(ptr, addr as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipIpcCloseMemHandle(ptr: *mut c_void) -> hipError_t {
    call(|rt| {
        if ptr.is_null() {
            return Err(INVALID_VALUE);
        }
        let n = rt.ipc_opened.get_mut(&(ptr as u64)).ok_or(INVALID_HANDLE)?;
        *n -= 1;
        if *n == 0 {
            rt.ipc_opened.remove(&(ptr as u64));
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipIpcGetEventHandle(
    handle: *mut IpcHandle,
    event: hipEvent_t,
) -> hipError_t {
    call(|rt| {
        if handle.is_null() || event.is_null() {
            return Err(INVALID_VALUE);
        }
        let e = rt.events.get(&(event as usize)).ok_or(INVALID_HANDLE)?;
        if e.flags & EVENT_INTERPROCESS == 0 {
            return Err(INVALID_CONFIGURATION);
        }
        put(handle, encode(EVENT_TAG, [event as u64, 0, 0]))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipIpcOpenEventHandle(
    event: *mut hipEvent_t,
    handle: IpcHandle,
) -> hipError_t {
    call(|_| {
        if event.is_null() {
            return Err(INVALID_VALUE);
        }
        decode(&handle, EVENT_TAG)?;
        // hipamd 5.2 refuses an event handle in the process that made it.
        Err(INVALID_CONTEXT)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_name_their_process() {
        let h = encode(MEMORY_TAG, [0x7000, 256, 16]);
        assert_eq!(decode(&h, MEMORY_TAG), Ok([0x7000, 256, 16]));
        assert_eq!(decode(&h, EVENT_TAG), Err(INVALID_VALUE));
        let mut other = h;
        other.reserved[8] ^= 1;
        assert_eq!(decode(&other, MEMORY_TAG), Err(INVALID_VALUE));
        assert_eq!(std::mem::size_of::<IpcHandle>(), 64);
    }
}
