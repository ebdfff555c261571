//! Streams, events and host callbacks. Work is queued on its stream and run by the executor
//! (`super::stream_ops`): a stream is idle when nothing of it is queued, an event complete when
//! the executor got to its record, and host functions and callbacks run on the executor thread,
//! without the runtime's lock, so they may call HIP.
//!
//! An event's time is the device's time when it was recorded: the simulated time of the kernels
//! so far under the timing model (cycles at the emulated clock), their emulation time otherwise.

use super::{call_async, call_light, put};
use crate::error::*;
use crate::graph::NodeKind;
use crate::runtime::{EventState, HeldOp, Runtime, StreamState};
use crate::types::*;
use std::ffi::{c_float, c_int, c_uint, c_void};

const EVENT_DISABLE_TIMING: u32 = 0x2;

/// hipamd's three stream priorities: high (-1), normal (0) and low (1). Programs that split
/// the range into low, normal and high streams need all three.
const PRIORITY_HIGH: i32 = -1;
const PRIORITY_LOW: i32 = 1;

fn create_stream(out: *mut hipStream_t, flags: u32, priority: i32) -> hipError_t {
    call_light(|rt| new_stream(rt, out, flags, priority, Vec::new()))
}

/// Creates a stream of the calling thread's device.
pub(crate) fn new_stream(
    rt: &mut Runtime,
    out: *mut hipStream_t,
    flags: u32,
    priority: i32,
    cu_mask: Vec<u32>,
) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let h = rt.new_handle();
    rt.streams.insert(
        h,
        StreamState {
            flags,
            priority,
            device: crate::devices::current(),
            cu_mask,
        },
    );
    put(out, h as hipStream_t)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(stream: *mut hipStream_t) -> hipError_t {
    create_stream(stream, 0, 0)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithFlags(
    stream: *mut hipStream_t,
    flags: c_uint,
) -> hipError_t {
    if flags > 1 {
        return set_last(INVALID_VALUE);
    }
    create_stream(stream, flags, 0)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithPriority(
    stream: *mut hipStream_t,
    flags: c_uint,
    priority: c_int,
) -> hipError_t {
    if flags > 1 {
        return set_last(INVALID_VALUE);
    }
    create_stream(stream, flags, priority.clamp(PRIORITY_HIGH, PRIORITY_LOW))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> hipError_t {
    call_light(|_| {
        if !least.is_null() {
            put(least, PRIORITY_LOW)?;
        }
        if !greatest.is_null() {
            put(greatest, PRIORITY_HIGH)?;
        }
        Ok(())
    })
}

/// A stream created here (not the null, legacy or per-thread stream).
fn created(rt: &Runtime, stream: hipStream_t) -> Result<StreamState, hipError_t> {
    if stream.is_null() {
        return Err(INVALID_HANDLE);
    }
    // hipamd: a handle that is no stream (destroyed, or never made) fails `hip::isValid`.
    rt.streams
        .get(&(stream as usize))
        .cloned()
        .ok_or(CONTEXT_IS_DESTROYED)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamDestroy(stream: hipStream_t) -> hipError_t {
    // The stream's work completes first.
    let code = call_light(|rt| created(rt, stream).map(|_| ()));
    if code != SUCCESS {
        return code;
    }
    let what = format!("hipStreamDestroy({stream:?})");
    let s = stream as usize;
    if let Err(e) = super::stream_ops::wait_for(&what, |rt| {
        !super::stream_ops::stream_held(rt, s as hipStream_t)
    }) {
        return set_last(e);
    }
    call_light(|rt| {
        created(rt, stream)?;
        super::capture::forget_stream(rt, stream as usize);
        rt.streams.remove(&(stream as usize));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamSynchronize(stream: hipStream_t) -> hipError_t {
    let code = call_light(|rt| {
        rt.check_stream(stream)?;
        super::capture::stream_sync(rt, stream)
    });
    if code != SUCCESS {
        return code;
    }
    let what = format!("hipStreamSynchronize({stream:?})");
    let s = stream as usize;
    if let Err(e) = super::stream_ops::wait_for(&what, |rt| {
        !super::stream_ops::stream_held(rt, s as hipStream_t)
    }) {
        return set_last(e);
    }
    call_light(|rt| {
        super::mempool::release_over_threshold(rt);
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamQuery(stream: hipStream_t) -> hipError_t {
    call_light(|rt| {
        rt.check_stream(stream)?;
        super::capture::stream_sync(rt, stream)?;
        match super::stream_ops::stream_held(rt, stream) {
            true => Err(NOT_READY),
            false => Ok(()),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamWaitEvent(
    stream: hipStream_t,
    event: hipEvent_t,
    flags: c_uint,
) -> hipError_t {
    call_async(|rt| {
        event_state(rt, event)?;
        // hipamd knows no flags here (CUDA's `cudaEventWaitExternal` has no HIP counterpart).
        if flags != 0 {
            return Err(INVALID_VALUE);
        }
        rt.check_stream(stream)?;
        super::capture::wait(rt, stream, event as usize)?;
        if super::stream_ops::event_held(rt, event as usize) {
            // The event completes when the executor gets to its record: the stream waits.
            super::stream_ops::push(rt, stream, HeldOp::WaitEvent(event as usize));
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamGetFlags(stream: hipStream_t, flags: *mut c_uint) -> hipError_t {
    call_light(|rt| {
        // hipamd asks the null stream for no flags: it answers hipErrorInvalidValue.
        if stream.is_null() {
            return Err(INVALID_VALUE);
        }
        rt.check_stream(stream)?;
        let f = rt.streams.get(&(stream as usize)).map_or(0, |s| s.flags);
        put(flags, f)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamGetPriority(
    stream: hipStream_t,
    priority: *mut c_int,
) -> hipError_t {
    call_light(|rt| {
        rt.check_stream(stream)?;
        let p = rt.streams.get(&(stream as usize)).map_or(0, |s| s.priority);
        put(priority, p)
    })
}

/// Enqueues a host function or callback on `stream`, unless the stream captures: then `node`
/// is what the capture records.
fn enqueue_host(stream: hipStream_t, node: Option<NodeKind>, op: HeldOp) -> hipError_t {
    call_async(|rt| {
        rt.check_stream(stream)?;
        let captured = match node {
            Some(n) => super::capture::captured(rt, stream, |_| Ok(n))?,
            // A stream callback cannot be a graph node (its signature is not a host node's).
            None => super::capture::stream_sync(rt, stream).map(|_| false)?,
        };
        if !captured {
            super::stream_ops::push(rt, stream, op);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipLaunchHostFunc(
    stream: hipStream_t,
    f: hipHostFn_t,
    user_data: *mut c_void,
) -> hipError_t {
    let Some(f) = f else {
        return set_last(INVALID_VALUE);
    };
    let node = NodeKind::Host {
        func: f,
        user_data: user_data as usize,
    };
    // A captured host node is recorded, an uncaptured one queued by `captured` itself.
    call_async(|rt| {
        rt.check_stream(stream)?;
        super::capture::captured(rt, stream, |_| Ok(node)).map(|_| ())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamAddCallback(
    stream: hipStream_t,
    callback: hipStreamCallback_t,
    user_data: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    let Some(cb) = callback else {
        return set_last(INVALID_VALUE);
    };
    if flags != 0 {
        return set_last(INVALID_VALUE);
    }
    enqueue_host(stream, None, HeldOp::Callback(cb, user_data as usize))
}

fn create_event(out: *mut hipEvent_t, flags: u32) -> hipError_t {
    call_light(|rt| {
        if out.is_null() {
            return Err(INVALID_VALUE);
        }
        let h = rt.new_handle();
        rt.events.insert(
            h,
            EventState {
                flags,
                device: crate::devices::current(),
                recorded: None,
            },
        );
        put(out, h as hipEvent_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(event: *mut hipEvent_t) -> hipError_t {
    create_event(event, 0)
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreateWithFlags(
    event: *mut hipEvent_t,
    flags: c_uint,
) -> hipError_t {
    // hipEventDefault, BlockingSync (1), DisableTiming (2), Interprocess (4), and AMD's release
    // flags (ReleaseToDevice 1 << 30, ReleaseToSystem 1 << 31). hipamd refuses both release
    // flags at once, and an interprocess event that keeps timing.
    const RELEASE: c_uint = 0xc000_0000;
    let illegal = flags & !(RELEASE | 0x7) != 0
        || flags & RELEASE == RELEASE
        || (flags & 0x4 != 0 && flags & 0x2 == 0);
    if illegal {
        return set_last(INVALID_VALUE);
    }
    create_event(event, flags)
}

/// An event recorded in a capture under way has no completion to wait for or ask about.
fn captured_event(rt: &Runtime, event: hipEvent_t) -> Result<(), hipError_t> {
    match rt.graphs.captured_events.get(&(event as usize)) {
        Some((c, _)) if rt.graphs.captures.contains_key(c) => Err(CAPTURED_EVENT),
        _ => Ok(()),
    }
}

fn event_state(rt: &Runtime, event: hipEvent_t) -> Result<EventState, hipError_t> {
    rt.events
        .get(&(event as usize))
        .copied()
        .ok_or(INVALID_HANDLE)
}

/// Records `event` on `stream` at the device's current time.
pub(crate) fn record(
    rt: &mut Runtime,
    event: hipEvent_t,
    stream: hipStream_t,
    optional: bool,
) -> Result<(), hipError_t> {
    if optional && event.is_null() {
        return Ok(());
    }
    rt.check_stream(stream)?;
    event_state(rt, event)?;
    if super::capture::record(rt, event as usize, stream)? {
        return Ok(());
    }
    super::stream_ops::push(rt, stream, HeldOp::Record(event as usize));
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) -> hipError_t {
    call_async(|rt| {
        // An event belongs to the device it was created on; hipamd refuses to record it on
        // another device's stream (the null stream of a device made current since included).
        if let Some(e) = rt.events.get(&(event as usize)) {
            if rt.check_stream(stream).is_ok() && e.device != rt.stream_device(stream) {
                return Err(INVALID_HANDLE);
            }
        }
        record(rt, event, stream, false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventDestroy(event: hipEvent_t) -> hipError_t {
    call_light(|rt| {
        event_state(rt, event)?;
        rt.events.remove(&(event as usize));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventSynchronize(event: hipEvent_t) -> hipError_t {
    let code = call_light(|rt| {
        event_state(rt, event)?;
        captured_event(rt, event)
    });
    if code != SUCCESS {
        return code;
    }
    let e = event as usize;
    let what = format!("hipEventSynchronize({event:?})");
    if let Err(code) =
        super::stream_ops::wait_for(&what, |rt| !super::stream_ops::event_held(rt, e))
    {
        return set_last(code);
    }
    call_light(|rt| {
        super::mempool::release_over_threshold(rt);
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventQuery(event: hipEvent_t) -> hipError_t {
    call_light(|rt| {
        event_state(rt, event)?;
        captured_event(rt, event)?;
        match super::stream_ops::event_held(rt, event as usize) {
            true => Err(NOT_READY),
            false => Ok(()),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(
    ms: *mut c_float,
    start: hipEvent_t,
    stop: hipEvent_t,
) -> hipError_t {
    call_light(|rt| {
        if ms.is_null() {
            return Err(INVALID_VALUE);
        }
        let (a, b) = (event_state(rt, start)?, event_state(rt, stop)?);
        // hipamd: events of two devices have no common clock.
        if (a.flags | b.flags) & EVENT_DISABLE_TIMING != 0 || a.device != b.device {
            return Err(INVALID_HANDLE);
        }
        // hipamd: an event never recorded is an invalid handle; one whose record has not
        // completed has no time yet.
        let queued = |e: hipEvent_t| super::stream_ops::event_held(rt, e as usize);
        if (a.recorded.is_none() && !queued(start)) || (b.recorded.is_none() && !queued(stop)) {
            return Err(INVALID_HANDLE);
        }
        if queued(start) || queued(stop) {
            return Err(NOT_READY);
        }
        match (a.recorded, b.recorded) {
            (Some(t0), Some(t1)) => put(ms, ((t1 - t0) / 1e6) as f32),
            _ => Err(INVALID_HANDLE),
        }
    })
}

// The per-thread default stream forms (`-fgpu-default-stream=per-thread`): the same calls.

#[no_mangle]
pub unsafe extern "C" fn hipStreamSynchronize_spt(stream: hipStream_t) -> hipError_t {
    hipStreamSynchronize(stream)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamQuery_spt(stream: hipStream_t) -> hipError_t {
    hipStreamQuery(stream)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamWaitEvent_spt(
    stream: hipStream_t,
    event: hipEvent_t,
    flags: c_uint,
) -> hipError_t {
    hipStreamWaitEvent(stream, event, flags)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamGetFlags_spt(
    stream: hipStream_t,
    flags: *mut c_uint,
) -> hipError_t {
    // The null stream of a per-thread-default-stream call is the thread's own stream.
    let stream = match stream.is_null() {
        true => STREAM_PER_THREAD as hipStream_t,
        false => stream,
    };
    hipStreamGetFlags(stream, flags)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamGetPriority_spt(
    stream: hipStream_t,
    priority: *mut c_int,
) -> hipError_t {
    hipStreamGetPriority(stream, priority)
}
