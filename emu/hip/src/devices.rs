//! The emulated GPUs a program sees (`GCNEMU_DEVICES`, `gcnemu exec --devices N`), and which one
//! each host thread is using.
//!
//! All devices are boards of the one target and share one `gcnemu::Device`: one guest address
//! space, in which every allocation is host memory at its device address. What makes them
//! separate devices is the runtime's bookkeeping: each allocation, stream, event, loaded code
//! object and kernel statistic belongs to one device; each device has its own memory limit and
//! use, its own null stream, its own PCI bus id and UUID, and the set of peers whose memory its
//! kernels were allowed to reach. Because the address space is shared, a kernel of one device
//! can read another's memory whether or not peer access was enabled (on a GPU without it the
//! access faults); the runtime answers the peer-access calls with HIP's codes all the same.
//!
//! The current device and the context stack are per host thread, as in hipamd: a context is a
//! device's handle ([`context_handle`]); `hipCtxPushCurrent` and `hipCtxSetCurrent` make its
//! device current and put it on the calling thread's stack, `hipCtxPopCurrent` takes it off (the
//! current device stays), and `hipSetDevice` changes only the current device.

use std::cell::RefCell;
use std::collections::BTreeSet;

/// What the runtime keeps per device.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeviceState {
    /// Bytes of device memory it may hand out.
    pub(crate) limit: u64,
    /// Bytes of device memory handed out (device allocations, pool blocks, physical memory).
    pub(crate) used: u64,
    /// Devices whose memory this one's kernels were given access to.
    pub(crate) peers: BTreeSet<i32>,
    /// `hipDevicePrimaryCtxRetain` minus `Release`.
    pub(crate) primary_retains: u32,
    /// `hipDevicePrimaryCtxSetFlags`.
    pub(crate) primary_flags: u32,
    /// `hipCtxSetCacheConfig` / `hipCtxSetSharedMemConfig` of the device's context.
    pub(crate) cache_config: i32,
    pub(crate) shared_mem_config: i32,
    /// `hipSetDeviceFlags`: the scheduling flags.
    pub(crate) flags: u32,
}

/// How many of `devices` the program may see: `HIP_VISIBLE_DEVICES` (or `CUDA_VISIBLE_DEVICES`)
/// lists device indices, as hipamd reads it; the list stops at the first index that is not a
/// device. The devices are alike, so only their number matters.
pub(crate) fn visible(devices: u32, list: Option<&str>) -> u32 {
    let Some(list) = list.filter(|l| !l.trim().is_empty()) else {
        return devices;
    };
    let mut seen = Vec::new();
    for entry in list.split(',') {
        match entry.trim().parse::<u32>() {
            Ok(i) if i < devices && !seen.contains(&i) => seen.push(i),
            _ => break,
        }
    }
    seen.len() as u32
}

/// A host thread's view: its current device and context stack (context handles).
struct ThreadState {
    device: i32,
    contexts: Vec<usize>,
}

thread_local! {
    static THREAD: RefCell<ThreadState> = const {
        RefCell::new(ThreadState { device: 0, contexts: Vec::new() })
    };
}

/// The calling thread's current device.
pub(crate) fn current() -> i32 {
    THREAD.with(|t| t.borrow().device)
}

/// Makes `device` the calling thread's current device.
pub(crate) fn set_current(device: i32) {
    THREAD.with(|t| t.borrow_mut().device = device)
}

/// Context handles lie below the runtime's other handles (which start at 0x4000).
const CONTEXT_BASE: usize = 0x3e00;

/// A device's context handle (`hipCtx_t`): one per device, as hipamd's contexts are its devices.
pub(crate) fn context_handle(device: i32) -> usize {
    CONTEXT_BASE + 16 * (device as usize + 1)
}

/// The device a context handle names, if it is one of `count` devices' contexts.
pub(crate) fn context_device(handle: usize, count: i32) -> Option<i32> {
    let d = handle.checked_sub(CONTEXT_BASE + 16)?;
    (d % 16 == 0 && ((d / 16) as i32) < count).then_some((d / 16) as i32)
}

/// Pushes a context on the thread's stack and makes its device current.
pub(crate) fn push_context(handle: usize, device: i32) {
    THREAD.with(|t| {
        let mut t = t.borrow_mut();
        t.contexts.push(handle);
        t.device = device;
    })
}

/// Pops the thread's top context (the current device stays, as in hipamd).
pub(crate) fn pop_context() -> Option<usize> {
    THREAD.with(|t| t.borrow_mut().contexts.pop())
}

/// The thread's top context, if its stack is not empty.
pub(crate) fn top_context() -> Option<usize> {
    THREAD.with(|t| t.borrow().contexts.last().copied())
}

/// Replaces the thread's top context (pushes it on an empty stack), or pops it for null, as
/// `hipCtxSetCurrent` does.
pub(crate) fn set_top_context(handle: Option<(usize, i32)>) {
    match handle {
        Some((h, device)) => THREAD.with(|t| {
            let mut t = t.borrow_mut();
            match t.contexts.last_mut() {
                Some(top) => *top = h,
                None => t.contexts.push(h),
            }
            t.device = device;
        }),
        None => {
            pop_context();
        }
    }
}

/// The PCI bus id of device `d`: each device on a bus of its own, as separate boards are.
pub(crate) fn pci_bus(d: i32) -> i32 {
    d + 3
}

/// A device's UUID: stable, distinct per device, and recognisably gcnemu's.
pub(crate) fn uuid(d: i32) -> [u8; 16] {
    let mut u = *b"gcnemu-device-00";
    u[14] = b'0' + (d / 10) as u8;
    u[15] = b'0' + (d % 10) as u8;
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_handles_name_their_device_only() {
        for d in 0..16 {
            assert_eq!(context_device(context_handle(d), 16), Some(d));
        }
        assert_eq!(context_device(context_handle(2), 2), None);
        assert_eq!(context_device(context_handle(0) + 1, 16), None);
        assert_eq!(context_device(0, 16), None);
        assert_eq!(context_device(0x4010, 16), None);
    }

    #[test]
    fn the_stack_is_per_thread_and_sets_the_device() {
        push_context(context_handle(1), 1);
        push_context(context_handle(0), 0);
        assert_eq!(current(), 0);
        assert_eq!(pop_context(), Some(context_handle(0)));
        assert_eq!(current(), 0);
        assert_eq!(top_context(), Some(context_handle(1)));
        std::thread::spawn(|| {
            assert_eq!(current(), 0);
            assert_eq!(top_context(), None);
        })
        .join()
        .unwrap();
        set_top_context(Some((context_handle(0), 0)));
        assert_eq!(top_context(), Some(context_handle(0)));
        assert_eq!(pop_context(), Some(context_handle(0)));
        assert_eq!(pop_context(), None);
        assert_eq!(top_context(), None);
        set_current(1);
        assert_eq!(current(), 1);
    }

    #[test]
    fn visible_devices_count_up_to_the_first_bad_entry() {
        assert_eq!(visible(4, None), 4);
        assert_eq!(visible(4, Some("")), 4);
        assert_eq!(visible(4, Some("1,3")), 2);
        assert_eq!(visible(4, Some("0,7,1")), 1);
        assert_eq!(visible(2, Some("-1")), 0);
    }

    #[test]
    fn devices_differ_in_bus_and_uuid() {
        assert_ne!(pci_bus(0), pci_bus(1));
        assert_ne!(uuid(0), uuid(1));
        assert_eq!(&uuid(12)[14..], b"12");
    }
}
