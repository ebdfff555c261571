//! The exported C functions, grouped as HIP's API reference groups them.

mod array;
mod capture;
mod context;
mod cooperative;
mod device;
mod errors;
mod external;
mod graph;
mod graph_exec;
mod interop;
mod ipc;
mod launch;
mod launch_ext;
mod managed;
mod memory;
mod mempool;
mod mipmap;
mod module;
mod peer;
mod pointer;
mod profiling;
mod register;
mod rtc;
mod stream;
mod stream_ops;
mod symbols;
mod texture;
mod texture_driver;
mod texture_ref;
mod vmm;

use crate::error::{self, *};
use crate::runtime::{self, Runtime};
use crate::types::hipError_t;
use std::panic::AssertUnwindSafe;

/// How an API call relates to the work queued on streams.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum CallKind {
    /// Synchronous with the host: waits until the executor has run what it can before and
    /// after the call (a blocking copy, a free, an allocation, a module load ...). Calls not
    /// written with the queue in mind get this, which is always a legal schedule.
    Sync,
    /// Enqueues work and returns (`hipLaunchKernel`, `hipMemcpyAsync`, `hipEventRecord` ...);
    /// under `HIP_LAUNCH_BLOCKING` it waits as `Sync` does after the call.
    Async,
    /// Neither waits nor enqueues: queries and bookkeeping that must answer while a kernel runs
    /// (`hipStreamQuery`, `hipEventQuery`, `hipGetDevice` ...).
    Light,
}

/// Runs one synchronous API call on the runtime ([`CallKind::Sync`]).
pub(crate) fn call(f: impl FnOnce(&mut Runtime) -> Result<(), hipError_t>) -> hipError_t {
    call_as(CallKind::Sync, f)
}

/// Runs one API call that enqueues work ([`CallKind::Async`]).
pub(crate) fn call_async(f: impl FnOnce(&mut Runtime) -> Result<(), hipError_t>) -> hipError_t {
    call_as(CallKind::Async, f)
}

/// Runs one API call that only looks or keeps books ([`CallKind::Light`]).
pub(crate) fn call_light(f: impl FnOnce(&mut Runtime) -> Result<(), hipError_t>) -> hipError_t {
    call_as(CallKind::Light, f)
}

/// Runs one API call on the runtime: panics are caught (none may cross into the program), and
/// the result becomes the thread's last error.
pub(crate) fn call_as(
    kind: CallKind,
    f: impl FnOnce(&mut Runtime) -> Result<(), hipError_t>,
) -> hipError_t {
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut g = runtime::guard()?;
        stream_ops::start_executor();
        if kind == CallKind::Sync {
            g = stream_ops::quiesce(g);
        }
        let rt = g.as_mut()?;
        let enqueued = rt.next_seq;
        let r = f(rt);
        let wait_after = std::mem::take(&mut rt.wait_after);
        let pushed = rt.next_seq != enqueued;
        let wait = pushed && (kind == CallKind::Sync || rt.launch_blocking || wait_after);
        // This call may have enqueued work, or written what a stream wait waits for; with
        // nothing queued and nothing new, there is no one to tell.
        if pushed || !rt.held.is_empty() {
            runtime::CHANGED.notify_all();
        }
        if wait {
            drop(stream_ops::quiesce(g));
        }
        Some(r)
    }));
    let code = match r {
        Ok(Some(Ok(()))) => SUCCESS,
        Ok(Some(Err(e))) => e,
        Ok(None) => NOT_INITIALIZED,
        Err(_) => UNKNOWN,
    };
    error::set_last(code)
}

/// The body of every exported function without an implementation.
pub(crate) fn unsupported(name: &'static str) -> hipError_t {
    static SAID: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.contains(&name) {
        said.push(name);
        eprintln!("gcnemu-hip: {name} is not supported; returning hipErrorNotSupported");
    }
    error::set_last(NOT_SUPPORTED)
}

/// Writes `value` through an out-pointer the program passed; null is `hipErrorInvalidValue`.
pub(crate) fn put<T>(out: *mut T, value: T) -> Result<(), hipError_t> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: a non-null out-pointer of the right type, per the function's C signature.
    unsafe { out.write_unaligned(value) };
    Ok(())
}

include!(concat!(env!("OUT_DIR"), "/exports.rs"));
