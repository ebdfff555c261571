//! Stream capture: between `hipStreamBeginCapture` and `hipStreamEndCapture` the work enqueued on
//! a capturing stream becomes nodes of the capture's graph instead of running. Each capturing
//! stream keeps the nodes its next operation depends on (its last node, or several after a
//! join). `hipEventRecord` on a capturing stream remembers those nodes in the event, and
//! `hipStreamWaitEvent` on another stream adds them to that stream's, which joins the stream to
//! the capture (a fork); the origin stream waiting on an event of the forked stream joins it
//! back. The capture may end only when every stream that joined is joined back.
//!
//! What may not run during a capture follows CUDA's rules, which HIP documents as its own: a
//! stream's own synchronisation invalidates its capture (`hipErrorStreamCaptureUnsupported`);
//! work on the legacy null stream, which would synchronise with a capturing blocking stream,
//! invalidates that capture (`hipErrorStreamCaptureImplicit`); and calls that may not be captured
//! (allocation, device synchronisation) fail with `hipErrorStreamCaptureUnsupported` while a
//! capture the calling thread's mode forbids them in is under way.

use super::graph::handles;
use super::{call, put};
use crate::error::*;
use crate::graph::*;
use crate::runtime::Runtime;
use crate::types::*;
use std::cell::Cell;
use std::ffi::{c_int, c_uint, c_ulonglong};

thread_local! {
    /// This thread's `hipStreamCaptureMode` (`hipThreadExchangeStreamCaptureMode`).
    static MODE: Cell<c_int> = const { Cell::new(CAPTURE_MODE_GLOBAL) };
}

const STREAM_NON_BLOCKING: u32 = 1;

fn is_legacy(stream: hipStream_t) -> bool {
    let s = stream as usize;
    s == 0 || s == STREAM_LEGACY
}

/// Work on the legacy stream waits for every blocking stream, a capturing one too: that capture
/// is invalidated and the call fails.
fn implicit(rt: &mut Runtime) -> Result<(), hipError_t> {
    let blocking: Vec<CaptureId> = rt
        .graphs
        .capturing
        .iter()
        .filter(|(s, _)| {
            rt.streams
                .get(s)
                .is_none_or(|st| st.flags & STREAM_NON_BLOCKING == 0)
        })
        .map(|(_, c)| c.capture)
        .collect();
    if blocking.is_empty() {
        return Ok(());
    }
    for c in blocking {
        if let Some(c) = rt.graphs.captures.get_mut(&c) {
            c.invalidated = true;
        }
    }
    Err(STREAM_CAPTURE_IMPLICIT)
}

/// Whether a capture under way forbids this thread a call that cannot be captured: one this
/// thread began (unless relaxed), or a global one while this thread's mode is global.
fn forbidden(rt: &Runtime) -> bool {
    let mode = MODE.with(|m| m.get());
    if mode == CAPTURE_MODE_RELAXED {
        return false;
    }
    let me = std::thread::current().id();
    rt.graphs.captures.values().any(|c| {
        !c.invalidated
            && ((c.thread == me && c.mode != CAPTURE_MODE_RELAXED)
                || (mode == CAPTURE_MODE_GLOBAL && c.mode == CAPTURE_MODE_GLOBAL))
    })
}

/// For calls that cannot be captured (allocation, `hipDeviceSynchronize`).
pub(crate) fn uncapturable(rt: &Runtime) -> Result<(), hipError_t> {
    match forbidden(rt) {
        true => Err(STREAM_CAPTURE_UNSUPPORTED),
        false => Ok(()),
    }
}

/// For blocking calls on the legacy stream (`hipMemcpy`, `hipMemset`).
pub(crate) fn synchronous(rt: &mut Runtime) -> Result<(), hipError_t> {
    implicit(rt)?;
    uncapturable(rt)
}

/// For a stream's own synchronisation or query: on a capturing stream it invalidates the
/// capture.
pub(crate) fn stream_sync(rt: &mut Runtime, stream: hipStream_t) -> Result<(), hipError_t> {
    if is_legacy(stream) {
        return implicit(rt);
    }
    match rt
        .graphs
        .capturing
        .get(&(stream as usize))
        .map(|s| s.capture)
    {
        Some(c) => {
            if let Some(c) = rt.graphs.captures.get_mut(&c) {
                c.invalidated = true;
            }
            Err(STREAM_CAPTURE_UNSUPPORTED)
        }
        None => Ok(()),
    }
}

/// Whether work enqueued on `stream` is captured (the stream captures).
pub(crate) fn capturing(rt: &Runtime, stream: hipStream_t) -> bool {
    !is_legacy(stream) && rt.graphs.capturing.contains_key(&(stream as usize))
}

/// For work a graph has no node for: refused on a capturing stream (as `captured` would when
/// asked for a node), nothing otherwise.
pub(crate) fn no_node(rt: &mut Runtime, stream: hipStream_t) -> Result<(), hipError_t> {
    if is_legacy(stream) {
        return implicit(rt);
    }
    match rt.graphs.capturing.get(&(stream as usize)) {
        Some(_) => Err(STREAM_CAPTURE_UNSUPPORTED),
        None => Ok(()),
    }
}

/// Called by every call that enqueues work on `stream`: if the stream captures, the node `make`
/// builds is added to the capture's graph after the stream's dependencies and `true` returned;
/// otherwise the node is queued on the stream (and `true` returned too).
pub(crate) fn captured(
    rt: &mut Runtime,
    stream: hipStream_t,
    make: impl FnOnce(&mut Runtime) -> Result<NodeKind, hipError_t>,
) -> Result<bool, hipError_t> {
    if is_legacy(stream) {
        implicit(rt)?;
        return super::stream_ops::hold(rt, stream, make);
    }
    let s = stream as usize;
    let Some(id) = rt.graphs.capturing.get(&s).map(|c| c.capture) else {
        // Not captured: it goes to the stream's queue.
        return super::stream_ops::hold(rt, stream, make);
    };
    let capture = &rt.graphs.captures[&id];
    if capture.invalidated {
        return Err(STREAM_CAPTURE_INVALIDATED);
    }
    let graph = capture.graph;
    let kind = make(rt)?;
    let deps = rt.graphs.capturing[&s].deps.clone();
    let node = rt.graphs.add_node(graph, kind, &deps)?;
    if let NodeKind::Graph(child) = rt.graphs.nodes[&node].kind {
        rt.graphs.graphs.get_mut(&child).unwrap().owner = Some(node);
    }
    rt.graphs.capturing.get_mut(&s).unwrap().deps = vec![node];
    Ok(true)
}

/// `hipEventRecord` on a capturing stream: the event remembers the stream's dependencies
/// (`true`); on other streams the caller records it.
pub(crate) fn record(
    rt: &mut Runtime,
    event: usize,
    stream: hipStream_t,
) -> Result<bool, hipError_t> {
    if is_legacy(stream) {
        implicit(rt)?;
        return Ok(false);
    }
    let Some(c) = rt.graphs.capturing.get(&(stream as usize)) else {
        rt.graphs.captured_events.remove(&event);
        return Ok(false);
    };
    let entry = (c.capture, c.deps.clone());
    rt.graphs.captured_events.insert(event, entry);
    Ok(true)
}

/// `hipStreamWaitEvent`: waiting for an event recorded in a capture joins the stream to it.
pub(crate) fn wait(rt: &mut Runtime, stream: hipStream_t, event: usize) -> Result<(), hipError_t> {
    let Some((id, nodes)) = rt.graphs.captured_events.get(&event).cloned() else {
        // An event recorded outside any capture is complete already.
        return Ok(());
    };
    if !rt.graphs.captures.contains_key(&id) {
        return Ok(());
    }
    if is_legacy(stream) {
        return Err(STREAM_CAPTURE_ISOLATION);
    }
    match rt.graphs.capturing.get_mut(&(stream as usize)) {
        Some(c) if c.capture == id => {
            for n in nodes {
                if !c.deps.contains(&n) {
                    c.deps.push(n);
                }
            }
            Ok(())
        }
        Some(_) => Err(STREAM_CAPTURE_MERGE),
        None => {
            rt.graphs.capturing.insert(
                stream as usize,
                StreamCapture {
                    capture: id,
                    deps: nodes,
                },
            );
            Ok(())
        }
    }
}

/// Ends a capture: its streams and events leave it.
fn end(rt: &mut Runtime, id: CaptureId) -> Option<Capture> {
    rt.graphs.capturing.retain(|_, c| c.capture != id);
    rt.graphs.captured_events.retain(|_, (c, _)| *c != id);
    rt.graphs.captures.remove(&id)
}

/// A stream leaves its capture when destroyed; the capture cannot complete without its origin.
pub(crate) fn forget_stream(rt: &mut Runtime, stream: usize) {
    if let Some(c) = rt.graphs.capturing.remove(&stream) {
        rt.graphs.destroyed_while_capturing.insert(stream);
        if let Some(capture) = rt.graphs.captures.get_mut(&c.capture) {
            if capture.origin == stream {
                capture.invalidated = true;
            }
        }
    }
}

fn check(rt: &Runtime, stream: hipStream_t) -> Result<(), hipError_t> {
    rt.check_stream(stream).map_err(|_| INVALID_VALUE)
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamBeginCapture(stream: hipStream_t, mode: c_int) -> hipError_t {
    call(|rt| {
        check(rt, stream)?;
        if is_legacy(stream) {
            return Err(STREAM_CAPTURE_UNSUPPORTED);
        }
        if !(CAPTURE_MODE_GLOBAL..=CAPTURE_MODE_RELAXED).contains(&mode) {
            return Err(INVALID_VALUE);
        }
        if rt.graphs.capturing.contains_key(&(stream as usize)) {
            return Err(ILLEGAL_STATE);
        }
        let graph = rt.graphs.create(None, None);
        let id = rt.graphs.new_capture_id();
        rt.graphs.captures.insert(
            id,
            Capture {
                graph,
                mode,
                invalidated: false,
                origin: stream as usize,
                thread: std::thread::current().id(),
            },
        );
        rt.graphs.capturing.insert(
            stream as usize,
            StreamCapture {
                capture: id,
                deps: Vec::new(),
            },
        );
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamEndCapture(
    stream: hipStream_t,
    graph: *mut hipGraph_t,
) -> hipError_t {
    call(|rt| {
        // The null stream never captures (CUDA's answer, and hipamd's since 5.3).
        if is_legacy(stream) {
            return Err(ILLEGAL_STATE);
        }
        if graph.is_null() {
            return Err(INVALID_VALUE);
        }
        if rt
            .graphs
            .destroyed_while_capturing
            .contains(&(stream as usize))
        {
            return Err(CONTEXT_IS_DESTROYED);
        }
        check(rt, stream)?;
        let s = stream as usize;
        let id = rt.graphs.capturing.get(&s).ok_or(ILLEGAL_STATE)?.capture;
        let c = &rt.graphs.captures[&id];
        if c.origin != s {
            return Err(STREAM_CAPTURE_UNMATCHED);
        }
        if c.mode != CAPTURE_MODE_RELAXED && c.thread != std::thread::current().id() {
            return Err(STREAM_CAPTURE_WRONG_THREAD);
        }
        let invalidated = c.invalidated;
        // Every stream that joined must be joined back: its nodes are the origin's
        // dependencies or come before them.
        let joined = rt.graphs.with_ancestors(&rt.graphs.capturing[&s].deps);
        let unjoined = rt
            .graphs
            .capturing
            .values()
            .filter(|c| c.capture == id)
            .any(|c| c.deps.iter().any(|n| !joined.contains(n)));
        let capture = end(rt, id).unwrap();
        let failure = match (invalidated, unjoined) {
            (true, _) => Some(STREAM_CAPTURE_INVALIDATED),
            (false, true) => Some(STREAM_CAPTURE_UNJOINED),
            _ => None,
        };
        if let Some(e) = failure {
            rt.graphs.destroy(capture.graph);
            put(graph, std::ptr::null_mut())?;
            return Err(e);
        }
        put(graph, capture.graph as hipGraph_t)
    })
}

/// The capture status of a stream, and its capture if it is in one.
fn status(rt: &Runtime, stream: hipStream_t) -> (c_int, Option<(CaptureId, &StreamCapture)>) {
    match rt.graphs.capturing.get(&(stream as usize)) {
        Some(c) => match rt.graphs.captures.get(&c.capture) {
            Some(capture) if capture.invalidated => {
                (CAPTURE_STATUS_INVALIDATED, Some((c.capture, c)))
            }
            Some(_) => (CAPTURE_STATUS_ACTIVE, Some((c.capture, c))),
            None => (CAPTURE_STATUS_NONE, None),
        },
        None => (CAPTURE_STATUS_NONE, None),
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamIsCapturing(stream: hipStream_t, out: *mut c_int) -> hipError_t {
    call(|rt| {
        if out.is_null() {
            return Err(INVALID_VALUE);
        }
        check(rt, stream)?;
        put(out, status(rt, stream).0)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo(
    stream: hipStream_t,
    out: *mut c_int,
    id: *mut c_ulonglong,
) -> hipError_t {
    hipStreamGetCaptureInfo_v2(
        stream,
        out,
        id,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    )
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo_v2(
    stream: hipStream_t,
    out: *mut c_int,
    id: *mut c_ulonglong,
    graph: *mut hipGraph_t,
    deps: *mut *const hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(|rt| {
        if out.is_null() {
            return Err(INVALID_VALUE);
        }
        check(rt, stream)?;
        let (st, c) = status(rt, stream);
        put(out, st)?;
        if let (CAPTURE_STATUS_ACTIVE, Some((cid, sc))) = (st, c) {
            if !id.is_null() {
                put(id, cid)?;
            }
            if !graph.is_null() {
                put(graph, rt.graphs.captures[&cid].graph as hipGraph_t)?;
            }
            // The stream's own list: valid until its next captured operation, as in HIP.
            if !deps.is_null() {
                put(deps, sc.deps.as_ptr() as *const hipGraphNode_t)?;
            }
            if !count.is_null() {
                put(count, sc.deps.len())?;
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamUpdateCaptureDependencies(
    stream: hipStream_t,
    deps: *mut hipGraphNode_t,
    count: usize,
    flags: c_uint,
) -> hipError_t {
    call(|rt| {
        check(rt, stream)?;
        let (st, c) = status(rt, stream);
        if st == CAPTURE_STATUS_NONE {
            return Err(ILLEGAL_STATE);
        }
        let graph = rt.graphs.captures[&c.unwrap().0].graph;
        let nodes = handles(deps, count)?;
        for n in &nodes {
            if rt.graphs.node(*n)?.graph != graph {
                return Err(INVALID_VALUE);
            }
        }
        let sc = rt.graphs.capturing.get_mut(&(stream as usize)).unwrap();
        match flags {
            // hipStreamAddCaptureDependencies
            0 => {
                for n in nodes {
                    if !sc.deps.contains(&n) {
                        sc.deps.push(n);
                    }
                }
            }
            // hipStreamSetCaptureDependencies
            1 => sc.deps = nodes,
            _ => return Err(INVALID_VALUE),
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipThreadExchangeStreamCaptureMode(mode: *mut c_int) -> hipError_t {
    call(|_| {
        if mode.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: a non-null pointer to the program's mode.
        let new = unsafe { *mode };
        if !(CAPTURE_MODE_GLOBAL..=CAPTURE_MODE_RELAXED).contains(&new) {
            return Err(INVALID_VALUE);
        }
        put(mode, MODE.with(|m| m.replace(new)))
    })
}
