//! The queue's executor, and the stream memory operations (`hipStreamWaitValue32/64`,
//! `hipStreamWriteValue32/64`).
//!
//! Work enqueued on any stream is kept in `Runtime::held` as the graph node it stands for (or a
//! record, a wait, a callback ...). One thread, started with the runtime, takes the entries one
//! at a time in the order [`next`] gives and runs them: a kernel and a host function without
//! the runtime's lock, the rest under it. A stream wait is an entry that runs once its
//! condition holds; another stream's `hipStreamWriteValue`, a kernel, a copy or host code may
//! make it hold, so while one is queued the executor looks again every millisecond. A
//! synchronising call waits for the work it covers; if the executor is idle with that work
//! still queued for a while, the stream is stuck for good (only another host thread could still
//! write the memory), and the call says so on stderr and returns `hipErrorLaunchFailure`
//! rather than hang, as a kernel that deadlocks does.

use super::call_async;
use crate::error::{name_str, *};
use crate::graph::NodeKind;
use crate::runtime::{self, ArgSource, Held, HeldOp, Runtime, ValueWait};
use crate::types::*;
use std::ffi::{c_uint, c_void};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

const WAIT_GTE: u32 = 0;
const WAIT_EQ: u32 = 1;
const WAIT_AND: u32 = 2;
const WAIT_NOR: u32 = 3;

const STREAM_NON_BLOCKING: u32 = 1;

/// How long a synchronising call waits with the executor idle and work still queued before it
/// reports the stream as stuck (bounded by `GCNEMU_TIMEOUT`): long enough for another host thread to do
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

/// Called for work that is not captured: enqueues the node `make` builds on `stream`. Returns
/// whether it did (always), for callers that would otherwise run the work now.
pub(crate) fn hold(
    rt: &mut Runtime,
    stream: hipStream_t,
    make: impl FnOnce(&mut Runtime) -> Result<NodeKind, hipError_t>,
) -> Result<bool, hipError_t> {
    let kind = make(rt)?;
    note_pageable(rt, &kind);
    push(rt, stream, HeldOp::Work(kind));
    Ok(true)
}

/// A GPU copies pageable host memory (memory the runtime does not know) through a staging
/// buffer before the call returns, so a program may reuse it, or read what was copied to it,
/// at once: the call enqueuing such a copy waits until it has run.
fn note_pageable(rt: &mut Runtime, kind: &NodeKind) {
    let sides = match kind {
        NodeKind::Memcpy1D { dst, src, .. } => vec![*dst, *src],
        NodeKind::Memcpy(c) => vec![c.dst.ptr, c.src.ptr],
        NodeKind::MemcpyFromSymbol { dst, .. } => vec![*dst],
        NodeKind::MemcpyToSymbol { src, .. } => vec![*src],
        _ => Vec::new(),
    };
    if sides.iter().any(|&a| rt.allocation_of(a).is_none()) {
        rt.wait_after = true;
    }
}

/// Enqueues `op` on `stream`, for the calling thread's device.
pub(crate) fn push(rt: &mut Runtime, stream: hipStream_t, op: HeldOp) {
    let device = crate::devices::current();
    push_at(rt, rt.held.len(), id(stream), device, op);
}

fn push_at(rt: &mut Runtime, at: usize, stream: usize, device: i32, op: HeldOp) {
    let seq = rt.next_seq;
    rt.next_seq += 1;
    rt.held.insert(
        at,
        Held {
            seq,
            stream,
            device,
            started: false,
            op,
        },
    );
}

/// Queues graph `g`'s nodes on `stream` as they are now, in topological order, child graphs
/// inline: event record and wait nodes as the stream calls they stand for, the rest as work.
pub(crate) fn push_graph(
    rt: &mut Runtime,
    stream: hipStream_t,
    g: crate::graph::GraphId,
) -> Result<(), hipError_t> {
    let mut steps = Vec::new();
    super::graph_exec::flatten(&rt.graphs, g, &mut steps)?;
    for step in steps {
        let op = match step {
            super::graph_exec::Step::Host(func, user_data) => {
                HeldOp::Work(NodeKind::Host { func, user_data })
            }
            super::graph_exec::Step::Work(NodeKind::EventRecord(e)) => HeldOp::Record(e),
            super::graph_exec::Step::Work(NodeKind::WaitEvent(e)) => HeldOp::WaitEvent(e),
            super::graph_exec::Step::Work(kind) => {
                note_pageable(rt, &kind);
                HeldOp::Work(kind)
            }
        };
        push(rt, stream, op);
    }
    Ok(())
}

/// Whether an event's record is still queued (or running).
pub(crate) fn event_held(rt: &Runtime, event: usize) -> bool {
    rt.held
        .iter()
        .any(|h| matches!(h.op, HeldOp::Record(e) if e == event))
}

/// Whether `stream` still has work queued or running, or work its next work would wait for:
/// for the legacy stream any blocking stream's, for a blocking stream the legacy stream's.
pub(crate) fn stream_held(rt: &Runtime, stream: hipStream_t) -> bool {
    let s = id(stream);
    rt.held.iter().any(|h| after(rt, s, h))
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

/// The queued operation to run next: among those whose stream (and, through the null stream's
/// implicit synchronisation, whose blocking streams) has nothing before them, the one enqueued
/// first. That order is the enqueuing order but for what stream waits hold back, so a program
/// that synchronises correctly runs its kernels in the same order every time.
fn next(rt: &Runtime) -> Option<usize> {
    if rt.held.iter().any(|h| h.started) {
        return None;
    }
    (0..rt.held.len()).find(|&i| {
        let h = &rt.held[i];
        if rt.held[..i].iter().any(|e| after(rt, h.stream, e)) {
            return false;
        }
        match &h.op {
            HeldOp::Wait(w) => holds(w),
            HeldOp::WaitEvent(e) => !rt.held[..i]
                .iter()
                .any(|x| matches!(x.op, HeldOp::Record(r) if r == *e)),
            _ => true,
        }
    })
}

/// Whether the executor has nothing to do: nothing running, nothing that may run. What is still
/// queued then waits for memory a stream wait looks at.
pub(crate) fn quiescent(rt: &Runtime) -> bool {
    next(rt).is_none() && !rt.held.iter().any(|h| h.started)
}

type Guard = MutexGuard<'static, Option<Runtime>>;

/// Starts the executor thread, once per process (a child the program forks has none of its
/// parent's threads: it starts its own).
pub(crate) fn start_executor() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static STARTED: AtomicBool = AtomicBool::new(false);
    static STARTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    if STARTED.load(Ordering::Acquire) {
        return;
    }
    let _starting = STARTING.lock().unwrap_or_else(|e| e.into_inner());
    if STARTED.load(Ordering::Acquire) {
        return;
    }
    extern "C" fn forked_child() {
        STARTED.store(false, Ordering::Release);
    }
    static AT_FORK: std::sync::Once = std::sync::Once::new();
    // SAFETY: registers a plain function that lives as long as the process.
    AT_FORK.call_once(|| unsafe {
        libc::pthread_atfork(None, None, Some(forked_child));
    });
    let spawned = std::thread::Builder::new()
        .name("gcnemu-hip-queue".into())
        .spawn(executor);
    if let Err(e) = spawned {
        eprintln!("gcnemu-hip: cannot start the thread that runs queued work: {e}");
    }
    STARTED.store(true, Ordering::Release);
}

/// The executor: runs queued operations one at a time, each stream's in order ([`next`]).
/// Kernels and host functions run without the runtime's lock, so that calls on other threads
/// (and `hipStreamQuery` on this one) go on meanwhile.
fn executor() {
    runtime::mark_executor();
    let mut g = runtime::lock();
    loop {
        let Some(rt) = g.as_mut() else {
            g = runtime::CHANGED.wait(g).unwrap_or_else(|e| e.into_inner());
            continue;
        };
        let Some(i) = next(rt) else {
            // A stream wait may be waiting for a host thread's plain store, which signals
            // nothing: look again now and then while one is queued.
            let poll = rt.held.iter().any(|h| matches!(h.op, HeldOp::Wait(_)));
            g = if poll {
                runtime::CHANGED
                    .wait_timeout(g, POLL)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            } else {
                runtime::CHANGED.wait(g).unwrap_or_else(|e| e.into_inner())
            };
            continue;
        };
        rt.held[i].started = true;
        let seq = rt.held[i].seq;
        g = run(g, i);
        if let Some(rt) = g.as_mut() {
            rt.held.retain(|h| h.seq != seq);
        }
        runtime::CHANGED.notify_all();
    }
}

/// How often the executor looks at the memory of a stream wait nothing signals.
const POLL: Duration = Duration::from_millis(1);

/// Runs queued operation `i` (marked started); returns with the lock held again.
fn run(mut g: Guard, i: usize) -> Guard {
    let Some(rt) = g.as_mut() else { return g };
    let h = &rt.held[i];
    let (s, device) = (h.stream, h.device);
    crate::devices::set_current(device);
    let stream = if s == 0 {
        std::ptr::null_mut()
    } else {
        s as hipStream_t
    };
    let r = match &h.op {
        HeldOp::Wait(_) | HeldOp::WaitEvent(_) => Ok(()),
        &HeldOp::Record(e) => {
            let now = rt.device_ns;
            if let Some(ev) = rt.events.get_mut(&e) {
                ev.recorded = Some(now);
            }
            Ok(())
        }
        &HeldOp::FreeAsync { pool, free } => {
            super::mempool::reached(rt, pool, free);
            Ok(())
        }
        &HeldOp::Prefetch { start, end, device } => {
            super::managed::prefetch_now(rt, start, end, device);
            Ok(())
        }
        &HeldOp::Work(NodeKind::Host { func, user_data }) => {
            drop(g);
            // SAFETY: the program's host function with the data it gave for it.
            unsafe { func(user_data as *mut c_void) };
            return runtime::lock();
        }
        &HeldOp::Callback(func, user_data) => {
            drop(g);
            // SAFETY: the program's callback with the data it gave for it; the stream's work
            // before it is complete.
            unsafe { func(stream, SUCCESS, user_data as *mut c_void) };
            return runtime::lock();
        }
        HeldOp::Work(NodeKind::Kernel(k)) => {
            let k = k.clone();
            let ptrs: Vec<*const c_void> = k.args.iter().map(|a| a.as_ptr().cast()).collect();
            let prepared = rt.prepare_launch(
                k.module,
                &k.name,
                k.grid,
                k.block,
                k.shared as u64,
                stream,
                ArgSource::Pointers(ptrs.as_ptr()),
            );
            match prepared {
                Err(e) => Err(e),
                Ok(p) => {
                    let mut loan = rt.device.lend();
                    drop(g);
                    let result = loan
                        .device()
                        .launch(&p.module, &p.kernel, p.dims, &p.args, &p.opts);
                    drop(loan);
                    g = runtime::lock();
                    match g.as_mut() {
                        Some(rt) => rt.finish_launch(&p, result),
                        None => Ok(()),
                    }
                }
            }
        }
        HeldOp::Work(kind) => {
            let kind = kind.clone();
            super::graph_exec::run(rt, &kind, stream)
        }
    };
    if let (Err(e), Some(rt)) = (r, g.as_mut()) {
        // Its enqueuing call returned long ago: the error comes with the next synchronisation.
        eprintln!(
            "gcnemu-hip: queued work failed when it ran: {}",
            name_str(e)
        );
        rt.pending.get_or_insert(e);
    }
    g
}

/// Waits, the lock released meanwhile, until the executor has nothing it can do (what is still
/// queued waits for memory): what a synchronous call waits for before and after its work.
pub(crate) fn quiesce(mut g: Guard) -> Guard {
    if runtime::on_executor() {
        return g;
    }
    while g.as_ref().is_some_and(|rt| !quiescent(rt)) {
        g = runtime::CHANGED
            .wait_timeout(g, Duration::from_millis(50))
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    g
}

/// Waits (the lock released meanwhile) until `done` holds. If the executor stays idle with
/// work still queued for [`STALL`], nothing enqueued can run: the stuck streams are reported,
/// and the call fails with `hipErrorLaunchFailure`.
pub(crate) fn wait_for(what: &str, done: impl Fn(&Runtime) -> bool) -> Result<(), hipError_t> {
    start_executor();
    let Some(mut g) = runtime::guard() else {
        return Err(NOT_INITIALIZED);
    };
    let mut idle_since: Option<Instant> = None;
    loop {
        let Some(rt) = g.as_mut() else {
            return Err(NOT_INITIALIZED);
        };
        // From a host function the queue cannot move until it returns.
        if done(rt) || runtime::on_executor() {
            return Ok(());
        }
        let limit = rt.settings.launch.timeout.map_or(STALL, |t| t.min(STALL));
        if quiescent(rt) {
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= limit {
                report_stuck(rt, what, limit);
                return Err(LAUNCH_FAILURE);
            }
        } else {
            idle_since = None;
        }
        g = runtime::CHANGED
            .wait_timeout(g, Duration::from_millis(20))
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

fn report_stuck(rt: &Runtime, what: &str, limit: Duration) {
    eprintln!(
        "gcnemu-hip: deadlock: {what} waits for queued work that has not moved for {:.1} s; nothing enqueued can run:",
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
        "gcnemu-hip: the queued work stays queued; the program sees hipErrorLaunchFailure from this call"
    );
}

/// hipamd's checks (`ihipStreamOperation`): the stream, a pointer inside an allocation the
/// device knows, and for waits one of the four flags.
fn check(rt: &Runtime, stream: hipStream_t, ptr: *mut c_void, bytes: u8) -> Result<(), hipError_t> {
    rt.check_stream(stream)?;
    rt.check_device_range(ptr as u64, bytes as u64)
}

fn wait_value(stream: hipStream_t, w: ValueWait) -> hipError_t {
    call_async(|rt| {
        check(rt, stream, w.addr as *mut c_void, w.bytes)?;
        if w.flags > WAIT_NOR {
            return Err(INVALID_VALUE);
        }
        super::capture::stream_sync(rt, stream)?;
        push(rt, stream, HeldOp::Wait(w));
        Ok(())
    })
}

fn write_value(stream: hipStream_t, ptr: *mut c_void, value: u64, bytes: u8) -> hipError_t {
    call_async(|rt| {
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
        for w in words {
            push(rt, stream, HeldOp::Work(NodeKind::Memset(w)));
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
