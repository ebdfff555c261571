//! Stream memory operations (`hipStreamWaitValue32/64`, `hipStreamWriteValue32/64`) and the
//! work they hold back.
//!
//! All other work runs when it is enqueued. A wait whose condition does not hold yet cannot:
//! the stream stops there, and what is enqueued on it afterwards (and, by the null stream's
//! implicit synchronisation, on the null stream after a blocking stream or on blocking streams
//! after the null stream) is kept in `Runtime::held` as the graph node it stands for. After
//! every API call the held work is looked at again, in order, and what may run runs: another
//! stream's `hipStreamWriteValue`, a kernel or a copy may have changed the memory, or host code.
//! A synchronising call waits for the held work it covers; if nothing changes for a while the
//! stream is stuck for good (only another host thread could still write the memory), and the
//! call says so on stderr and returns `hipErrorLaunchFailure` rather than hang, as a kernel that
//! deadlocks does.

use super::call;
use crate::error::{name_str, *};
use crate::graph::NodeKind;
use crate::runtime::{self, Held, HeldOp, Runtime, ValueWait};
use crate::types::*;
use std::ffi::{c_uint, c_void};
use std::time::{Duration, Instant};

const WAIT_GTE: u32 = 0;
const WAIT_EQ: u32 = 1;
const WAIT_AND: u32 = 2;
const WAIT_NOR: u32 = 3;

const STREAM_NON_BLOCKING: u32 = 1;

/// How long a synchronising call waits without any held work moving before it reports the
/// stream as stuck (bounded by `GCNEMU_TIMEOUT`): long enough for another host thread to do
/// its part, short enough that a program waiting on a value nothing will write ends.
const STALL: Duration = Duration::from_secs(5);

/// The stream a handle names, with the legacy null stream as 0.
fn id(stream: hipStream_t) -> usize {
    match stream as usize {
        STREAM_LEGACY => 0,
        s => s,
    }
}

/// Whether work on `s` synchronises with the legacy null stream.
fn blocking(rt: &Runtime, s: usize) -> bool {
    rt.streams
        .get(&s)
        .is_none_or(|st| st.flags & STREAM_NON_BLOCKING == 0)
}

/// Whether work enqueued on `s` must come after held item `h`.
fn after(rt: &Runtime, s: usize, h: &Held) -> bool {
    h.stream == s
        || (s == 0 && blocking(rt, h.stream))
        || (h.stream == 0 && s != 0 && blocking(rt, s))
}

/// Whether new work on `stream` must be held.
pub(crate) fn must_hold(rt: &Runtime, stream: hipStream_t) -> bool {
    let s = id(stream);
    rt.held.iter().any(|h| after(rt, s, h))
}

/// Called for work that is not captured: holds the node `make` builds if the stream is held
/// (`true`), else leaves the caller to run the work now (`false`).
pub(crate) fn hold(
    rt: &mut Runtime,
    stream: hipStream_t,
    make: impl FnOnce(&mut Runtime) -> Result<NodeKind, hipError_t>,
) -> Result<bool, hipError_t> {
    if !must_hold(rt, stream) {
        return Ok(false);
    }
    let kind = make(rt)?;
    push(rt, stream, HeldOp::Work(kind));
    Ok(true)
}

pub(crate) fn push(rt: &mut Runtime, stream: hipStream_t, op: HeldOp) {
    rt.held.push(Held {
        stream: id(stream),
        op,
    });
}

/// Whether an event's record is still held.
pub(crate) fn event_held(rt: &Runtime, event: usize) -> bool {
    rt.held
        .iter()
        .any(|h| matches!(h.op, HeldOp::Record(e) if e == event))
}

/// Whether `stream` still has held work (for the legacy stream: any blocking stream too).
pub(crate) fn stream_held(rt: &Runtime, stream: hipStream_t) -> bool {
    let s = id(stream);
    rt.held
        .iter()
        .any(|h| h.stream == s || (s == 0 && blocking(rt, h.stream)))
}

fn read(addr: u64, bytes: u8) -> u64 {
    // SAFETY: the address was checked to lie inside a live allocation when the wait was
    // enqueued; allocations are host memory at their device address. Volatile: another host
    // thread may be writing it.
    unsafe {
        if bytes == 4 {
            std::ptr::read_volatile(addr as *const u32) as u64
        } else {
            std::ptr::read_volatile(addr as *const u64)
        }
    }
}

/// The condition of HIP's reference for each flag.
fn holds(w: &ValueWait) -> bool {
    let v = read(w.addr, w.bytes) & w.mask;
    let full = if w.bytes == 4 {
        u32::MAX as u64
    } else {
        u64::MAX
    };
    match w.flags {
        WAIT_GTE => v >= w.value,
        WAIT_EQ => v == w.value,
        WAIT_AND => v & w.value != 0,
        _ => !(v | (w.value & w.mask)) & full != 0,
    }
}

/// Runs whatever held work may run now, in order, until nothing more can.
pub(crate) fn progress(rt: &mut Runtime) {
    'again: loop {
        for i in 0..rt.held.len() {
            let h = &rt.held[i];
            if rt.held[..i].iter().any(|e| after(rt, h.stream, e)) {
                continue;
            }
            let ready = match &h.op {
                HeldOp::Wait(w) => holds(w),
                HeldOp::WaitEvent(e) => !rt.held[..i]
                    .iter()
                    .any(|x| matches!(x.op, HeldOp::Record(r) if r == *e)),
                _ => true,
            };
            if !ready {
                continue;
            }
            let h = rt.held.remove(i);
            run(rt, h);
            continue 'again;
        }
        return;
    }
}

fn run(rt: &mut Runtime, h: Held) {
    let stream = if h.stream == 0 {
        std::ptr::null_mut()
    } else {
        h.stream as hipStream_t
    };
    let r = match h.op {
        HeldOp::Wait(_) | HeldOp::WaitEvent(_) => Ok(()),
        HeldOp::Record(e) => {
            let now = rt.device_ns;
            if let Some(ev) = rt.events.get_mut(&e) {
                ev.recorded = Some(now);
            }
            Ok(())
        }
        HeldOp::FreeAsync(addr) => super::mempool::free_now(rt, addr, h.stream),
        HeldOp::Prefetch { start, end, device } => {
            super::managed::prefetch_now(rt, start, end, device);
            Ok(())
        }
        HeldOp::Work(NodeKind::Host { func, user_data }) => {
            rt.released_hosts.push((func, user_data));
            Ok(())
        }
        HeldOp::Work(NodeKind::Graph(g)) => {
            let mut steps = Vec::new();
            let r = super::graph_exec::flatten(&rt.graphs, g, &mut steps);
            r.and_then(|()| {
                for step in steps {
                    match step {
                        super::graph_exec::Step::Host(f, d) => rt.released_hosts.push((f, d)),
                        super::graph_exec::Step::Work(k) => super::graph_exec::run(rt, &k, stream)?,
                    }
                }
                Ok(())
            })
        }
        HeldOp::Work(kind) => super::graph_exec::run(rt, &kind, stream),
    };
    if let Err(e) = r {
        // Its enqueuing call returned long ago: the error comes with the next synchronisation.
        eprintln!(
            "gcnemu-hip: work held behind a stream wait failed when it ran: {}",
            name_str(e)
        );
        rt.pending.get_or_insert(e);
    }
}

/// Waits (the lock released between looks, so other host threads can run) until `done` holds.
/// A stream that does not move for [`STALL`] is reported with what it waits for, and the call
/// fails with `hipErrorLaunchFailure`.
pub(crate) fn wait_for(what: &str, done: impl Fn(&Runtime) -> bool) -> Result<(), hipError_t> {
    let mut last = usize::MAX;
    let mut since = Instant::now();
    loop {
        let state = runtime::with(|rt| {
            progress(rt);
            let limit = rt.settings.launch.timeout.map_or(STALL, |t| t.min(STALL));
            (done(rt), rt.held.len(), limit)
        });
        let Some((finished, count, limit)) = state else {
            return Err(NOT_INITIALIZED);
        };
        if finished {
            return Ok(());
        }
        if count != last {
            last = count;
            since = Instant::now();
        } else if since.elapsed() >= limit {
            runtime::with(|rt| report_stuck(rt, what, limit));
            return Err(LAUNCH_FAILURE);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn report_stuck(rt: &Runtime, what: &str, limit: Duration) {
    eprintln!(
        "gcnemu-hip: deadlock: {what} waits for held work that has not moved for {:.1} s; nothing enqueued can run:",
        limit.as_secs_f64()
    );
    for h in &rt.held {
        if let HeldOp::Wait(w) = &h.op {
            let op = [
                "(v & mask) >= value",
                "(v & mask) == value",
                "(v & mask) & value != 0",
                "~((v & mask) | (value & mask)) != 0",
            ];
            eprintln!(
                "  stream {:#x}: hipStreamWaitValue{} on {:#x} for {} with value {:#x}, mask {:#x}; v is {:#x}",
                h.stream,
                w.bytes * 8,
                w.addr,
                op[w.flags as usize],
                w.value,
                w.mask,
                read(w.addr, w.bytes)
            );
        }
    }
    eprintln!(
        "gcnemu-hip: the held work stays held; the program sees hipErrorLaunchFailure from this call"
    );
}

/// hipamd's checks (`ihipStreamOperation`): the stream, a pointer inside an allocation the
/// device knows, and for waits one of the four flags.
fn check(rt: &Runtime, stream: hipStream_t, ptr: *mut c_void, bytes: u8) -> Result<(), hipError_t> {
    rt.check_stream(stream)?;
    rt.check_device_range(ptr as u64, bytes as u64)
}

fn wait_value(stream: hipStream_t, w: ValueWait) -> hipError_t {
    call(|rt| {
        check(rt, stream, w.addr as *mut c_void, w.bytes)?;
        if w.flags > WAIT_NOR {
            return Err(INVALID_VALUE);
        }
        super::capture::stream_sync(rt, stream)?;
        if !must_hold(rt, stream) && holds(&w) {
            return Ok(());
        }
        push(rt, stream, HeldOp::Wait(w));
        Ok(())
    })
}

fn write_value(stream: hipStream_t, ptr: *mut c_void, value: u64, bytes: u8) -> hipError_t {
    call(|rt| {
        check(rt, stream, ptr, bytes)?;
        super::capture::stream_sync(rt, stream)?;
        // The write as 32-bit fills (one or two), which a held stream keeps as fill nodes.
        let words: Vec<crate::graph::Memset> = (0..bytes as u64 / 4)
            .map(|i| crate::graph::Memset {
                dst: ptr as u64 + 4 * i,
                element_size: 4,
                value: (value >> (32 * i)) as u32,
                width: 1,
                height: 1,
                pitch: 4,
            })
            .collect();
        let held = must_hold(rt, stream);
        for w in words {
            if held {
                push(rt, stream, HeldOp::Work(NodeKind::Memset(w)));
            } else {
                super::memory::fill_now(rt, w.dst, w.value.to_le_bytes(), 1)?;
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamWaitValue32(
    stream: hipStream_t,
    ptr: *mut c_void,
    value: u32,
    flags: c_uint,
    mask: u32,
) -> hipError_t {
    let w = ValueWait {
        addr: ptr as u64,
        value: value as u64,
        mask: mask as u64,
        flags,
        bytes: 4,
    };
    wait_value(stream, w)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamWaitValue64(
    stream: hipStream_t,
    ptr: *mut c_void,
    value: u64,
    flags: c_uint,
    mask: u64,
) -> hipError_t {
    let w = ValueWait {
        addr: ptr as u64,
        value,
        mask,
        flags,
        bytes: 8,
    };
    wait_value(stream, w)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamWriteValue32(
    stream: hipStream_t,
    ptr: *mut c_void,
    value: u32,
    _flags: c_uint,
) -> hipError_t {
    write_value(stream, ptr, value as u64, 4)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamWriteValue64(
    stream: hipStream_t,
    ptr: *mut c_void,
    value: u64,
    _flags: c_uint,
) -> hipError_t {
    write_value(stream, ptr, value, 8)
}
