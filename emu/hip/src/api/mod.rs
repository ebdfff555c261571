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

/// Runs one API call on the runtime: panics are caught (none may cross into the program), and
/// the result becomes the thread's last error.
pub(crate) fn call(f: impl FnOnce(&mut Runtime) -> Result<(), hipError_t>) -> hipError_t {
    let mut hosts = Vec::new();
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
        runtime::with(|rt| {
            let r = f(rt);
            // This call may have written what a stream wait waits for.
            if !rt.held.is_empty() {
                stream_ops::progress(rt);
            }
            hosts = std::mem::take(&mut rt.released_hosts);
            r
        })
    }));
    let code = match r {
        Ok(Some(Ok(()))) => SUCCESS,
        Ok(Some(Err(e))) => e,
        Ok(None) => NOT_INITIALIZED,
        Err(_) => UNKNOWN,
    };
    // Host functions of held work that ran: outside the lock, so they may call HIP.
    for (f, data) in hosts {
        // SAFETY: the program's host function with the data it gave for it.
        unsafe { f(data as *mut std::ffi::c_void) };
    }
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
