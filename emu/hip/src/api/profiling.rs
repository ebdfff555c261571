//! The profiling hooks ROCm 5.2 still exports: the API and activity callback tables roctracer
//! fills (`hipRegisterApiCallback` ... `hipEnableActivityCallback`), and `hipProfilerStart`/`Stop`.
//!
//! In hipamd 5.2 a registered callback runs only once roctracer has switched tracing on through
//! entry points of its own; with no tracer attached, registering checks the id and records the
//! callback, and nothing calls it. That is what happens here: the table is kept with hipamd's
//! checks (an id past `HIP_API_ID_LAST` is `hipErrorInvalidValue`; an activity op past the three
//! `HIP_OP_ID_*` kinds makes `hipEnableActivityCallback` return false), and no tracer can attach to
//! this runtime. `hipProfilerStart`/`Stop` bracket the region an external profiler should record,
//! as CUDA's do; none is attached, so they succeed and change nothing (gcnemu's own statistics
//! cover the whole run). hipamd 5.2 answers them `hipErrorNotSupported`.

use crate::error::*;
use crate::types::hipError_t;
use std::ffi::{c_uint, c_void};
use std::sync::Mutex;

/// `HIP_API_ID_LAST` of ROCm 5.2's `hip_prof_str.h`.
const API_ID_LAST: u32 = 333;
/// `HIP_OP_ID_DISPATCH`, `COPY`, `BARRIER`.
const OP_ID_COUNT: u32 = 3;

/// A registered callback. Kept, not called: only a tracer would call it, and none can attach.
#[derive(Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
struct Entry {
    function: usize,
    arg: usize,
}

struct Table {
    api: Vec<Option<Entry>>,
    activity: Vec<Option<Entry>>,
    ops_enabled: [bool; OP_ID_COUNT as usize],
}

static TABLE: Mutex<Table> = Mutex::new(Table {
    api: Vec::new(),
    activity: Vec::new(),
    ops_enabled: [false; OP_ID_COUNT as usize],
});

/// Sets (or clears, for null) entry `id` of one of the tables; false for an id past the last.
fn set(
    pick: fn(&mut Table) -> &mut Vec<Option<Entry>>,
    id: u32,
    f: *mut c_void,
    arg: *mut c_void,
) -> bool {
    if id > API_ID_LAST {
        return false;
    }
    let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    let list = pick(&mut t);
    list.resize(API_ID_LAST as usize + 1, None);
    list[id as usize] = (!f.is_null()).then_some(Entry {
        function: f as usize,
        arg: arg as usize,
    });
    true
}

fn code(ok: bool) -> hipError_t {
    set_last(if ok { SUCCESS } else { INVALID_VALUE })
}

#[no_mangle]
pub extern "C" fn hipRegisterApiCallback(id: u32, f: *mut c_void, arg: *mut c_void) -> hipError_t {
    code(set(|t| &mut t.api, id, f, arg))
}

#[no_mangle]
pub extern "C" fn hipRemoveApiCallback(id: u32) -> hipError_t {
    code(set(
        |t| &mut t.api,
        id,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    ))
}

#[no_mangle]
pub extern "C" fn hipRegisterActivityCallback(
    id: u32,
    f: *mut c_void,
    arg: *mut c_void,
) -> hipError_t {
    code(set(|t| &mut t.activity, id, f, arg))
}

#[no_mangle]
pub extern "C" fn hipRemoveActivityCallback(id: u32) -> hipError_t {
    code(set(
        |t| &mut t.activity,
        id,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    ))
}

/// Turns activity records of one kind of operation on or off; false for an unknown kind.
#[no_mangle]
pub extern "C" fn hipEnableActivityCallback(op: c_uint, enable: bool) -> bool {
    if op >= OP_ID_COUNT {
        return false;
    }
    TABLE.lock().unwrap_or_else(|e| e.into_inner()).ops_enabled[op as usize] = enable;
    true
}

#[no_mangle]
pub unsafe extern "C" fn hipProfilerStart() -> hipError_t {
    super::call(|_| Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn hipProfilerStop() -> hipError_t {
    super::call(|_| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked_and_entries_kept() {
        let f = 0x1234 as *mut c_void;
        assert_eq!(hipRegisterApiCallback(API_ID_LAST + 1, f, f), INVALID_VALUE);
        assert_eq!(hipRegisterApiCallback(7, f, std::ptr::null_mut()), SUCCESS);
        let api = TABLE.lock().unwrap().api[7].map(|e| (e.function, e.arg));
        assert_eq!(api, Some((0x1234, 0)));
        assert_eq!(hipRemoveApiCallback(7), SUCCESS);
        assert!(TABLE.lock().unwrap().api[7].is_none());
        assert_eq!(hipRegisterActivityCallback(API_ID_LAST, f, f), SUCCESS);
        assert_eq!(hipRemoveActivityCallback(API_ID_LAST + 1), INVALID_VALUE);
        assert!(hipEnableActivityCallback(2, true));
        assert!(!hipEnableActivityCallback(3, true));
    }
}
