//! Managed memory hints: `hipMemAdvise`, `hipMemPrefetchAsync`, `hipMemRangeGetAttribute(s)`
//! and `hipStreamAttachMemAsync`, with hipamd's checks.
//!
//! Managed memory is host memory both sides reach, so no hint moves anything. The runtime
//! records them for the managed range they name, per span (`Runtime::advice`), so that the range
//! attributes answer as ROCm's HMM does: a read-mostly range only if every byte is, a preferred
//! or last-prefetch location only if every byte agrees (else `hipInvalidDeviceId`), and the
//! devices every byte is accessed by. A prefetch is stream-ordered: it is recorded when its
//! stream gets to it.

use super::call;
use crate::allocation::AllocClass;
use crate::error::*;
use crate::runtime::{Advice, HeldOp, Runtime};
use crate::types::*;
use std::ffi::{c_int, c_void};

const CPU: i32 = -1;
const NONE: i32 = -2;

const SET_READ_MOSTLY: c_int = 1;
const UNSET_READ_MOSTLY: c_int = 2;
const SET_PREFERRED_LOCATION: c_int = 3;
const UNSET_PREFERRED_LOCATION: c_int = 4;
const SET_ACCESSED_BY: c_int = 5;
const UNSET_ACCESSED_BY: c_int = 6;
const SET_COARSE_GRAIN: c_int = 100;
const UNSET_COARSE_GRAIN: c_int = 101;

const ATTR_READ_MOSTLY: c_int = 1;
const ATTR_PREFERRED_LOCATION: c_int = 2;
const ATTR_ACCESSED_BY: c_int = 3;
const ATTR_LAST_PREFETCH_LOCATION: c_int = 4;
const ATTR_COHERENCY_MODE: c_int = 100;

/// The managed allocation holding `[addr, addr+count)`, or `hipErrorInvalidValue`.
fn managed_range(rt: &Runtime, addr: u64, count: u64) -> Result<u64, hipError_t> {
    match rt.allocation_of(addr) {
        Some((base, info))
            if info.class == AllocClass::Managed && addr + count <= base + info.size =>
        {
            Ok(base)
        }
        _ => Err(INVALID_VALUE),
    }
}

/// Splits the spans so that `start` and `end` are span edges, creating default spans where
/// `[start, end)` has none, and returns the indices of the spans inside.
fn spans(rt: &mut Runtime, base: u64, start: u64, end: u64) -> std::ops::Range<usize> {
    let default = |s: u64, e: u64| Advice {
        base,
        start: s,
        end: e,
        read_mostly: false,
        preferred: NONE,
        accessed_by: Vec::new(),
        last_prefetch: NONE,
        coarse_grain: false,
    };
    let mut out: Vec<Advice> = Vec::new();
    let mut at = start;
    for a in std::mem::take(&mut rt.advice) {
        if a.end <= start || a.start >= end {
            out.push(a);
            continue;
        }
        if a.start < start {
            out.push(Advice {
                end: start,
                ..a.clone()
            });
        }
        if a.start.max(start) > at {
            out.push(default(at, a.start.max(start)));
        }
        out.push(Advice {
            start: a.start.max(start),
            end: a.end.min(end),
            ..a.clone()
        });
        at = a.end.min(end);
        if a.end > end {
            out.push(Advice { start: end, ..a });
        }
    }
    if at < end {
        out.push(default(at, end));
    }
    out.sort_by_key(|a| a.start);
    let first = out
        .iter()
        .position(|a| a.start >= start)
        .unwrap_or(out.len());
    let last = out.iter().position(|a| a.start >= end).unwrap_or(out.len());
    rt.advice = out;
    first..last
}

#[no_mangle]
pub unsafe extern "C" fn hipMemAdvise(
    ptr: *const c_void,
    count: usize,
    advice: c_int,
    device: c_int,
) -> hipError_t {
    call(|rt| {
        if ptr.is_null()
            || count == 0
            || (device != CPU && !(0..rt.device_count()).contains(&device))
        {
            return Err(INVALID_VALUE);
        }
        let (start, end) = (ptr as u64, ptr as u64 + count as u64);
        let base = managed_range(rt, start, count as u64)?;
        if ![
            SET_READ_MOSTLY,
            UNSET_READ_MOSTLY,
            SET_PREFERRED_LOCATION,
            UNSET_PREFERRED_LOCATION,
            SET_ACCESSED_BY,
            UNSET_ACCESSED_BY,
            SET_COARSE_GRAIN,
            UNSET_COARSE_GRAIN,
        ]
        .contains(&advice)
        {
            return Err(INVALID_VALUE);
        }
        let range = spans(rt, base, start, end);
        for a in &mut rt.advice[range] {
            match advice {
                SET_READ_MOSTLY => a.read_mostly = true,
                UNSET_READ_MOSTLY => a.read_mostly = false,
                SET_PREFERRED_LOCATION => a.preferred = device,
                UNSET_PREFERRED_LOCATION => a.preferred = NONE,
                SET_ACCESSED_BY if !a.accessed_by.contains(&device) => a.accessed_by.push(device),
                UNSET_ACCESSED_BY => a.accessed_by.retain(|&d| d != device),
                SET_COARSE_GRAIN => a.coarse_grain = true,
                UNSET_COARSE_GRAIN => a.coarse_grain = false,
                _ => {}
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemPrefetchAsync(
    ptr: *const c_void,
    count: usize,
    device: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call(|rt| {
        if ptr.is_null() || count == 0 {
            return Err(INVALID_VALUE);
        }
        rt.check_stream(stream).map_err(|_| CONTEXT_IS_DESTROYED)?;
        let (start, len) = (ptr as u64, count as u64);
        let Some((base, info)) = rt.allocation_of(start) else {
            return Err(INVALID_VALUE);
        };
        if start + len > base + info.size {
            return Err(INVALID_VALUE);
        }
        if device != CPU && !(0..rt.device_count()).contains(&device) {
            return Err(INVALID_DEVICE);
        }
        if info.class != AllocClass::Managed {
            // Nothing to move or record for memory that is not managed.
            return Ok(());
        }
        // Queued, the prefetch is recorded when the stream gets to it. ROCm 5.2 has no prefetch
        // node: during a capture it is queued all the same, as the work there is done at once.
        let op = HeldOp::Prefetch {
            start,
            end: start + len,
            device,
        };
        super::stream_ops::push(rt, stream, op);
        Ok(())
    })
}

/// A prefetch reaching its point in its stream: the range's last prefetch location.
pub(crate) fn prefetch_now(rt: &mut Runtime, start: u64, end: u64, device: i32) {
    let Some((base, _)) = rt.allocation_of(start) else {
        return;
    };
    let range = spans(rt, base, start, end);
    for a in &mut rt.advice[range] {
        a.last_prefetch = device;
    }
}

/// One attribute of `[start, end)` into `data` (`size` bytes), as HMM answers it.
fn attribute(
    rt: &mut Runtime,
    data: *mut c_void,
    size: usize,
    attr: c_int,
    start: u64,
    end: u64,
) -> Result<(), hipError_t> {
    if data.is_null() || size == 0 {
        return Err(INVALID_VALUE);
    }
    if let Some((base, info)) = rt.allocation_of(start) {
        if info.class == AllocClass::Device && end <= base + info.size {
            return device_memory_attribute(data, size, attr);
        }
    }
    let base = managed_range(rt, start, end - start)?;
    let range = spans(rt, base, start, end);
    let spans = &rt.advice[range];
    let same = |f: &dyn Fn(&Advice) -> i32| {
        let first = f(&spans[0]);
        if spans.iter().all(|a| f(a) == first) {
            first
        } else {
            NONE
        }
    };
    let one = |v: i32| -> Result<(), hipError_t> {
        if size != 4 {
            return Err(INVALID_VALUE);
        }
        super::put(data as *mut i32, v)
    };
    match attr {
        ATTR_READ_MOSTLY => one(spans.iter().all(|a| a.read_mostly) as i32),
        ATTR_PREFERRED_LOCATION => one(same(&|a| a.preferred)),
        ATTR_LAST_PREFETCH_LOCATION => one(same(&|a| a.last_prefetch)),
        ATTR_COHERENCY_MODE => {
            let coarse = spans.iter().filter(|a| a.coarse_grain).count();
            // hipMemRangeCoherencyMode: fine 0, coarse 1, indeterminate 2.
            one(match coarse {
                0 => 0,
                n if n == spans.len() => 1,
                _ => 2,
            })
        }
        ATTR_ACCESSED_BY => {
            if !size.is_multiple_of(4) {
                return Err(INVALID_VALUE);
            }
            // Devices every byte is accessed by, then hipInvalidDeviceId to the end.
            let mut devices: Vec<i32> = spans[0]
                .accessed_by
                .iter()
                .copied()
                .filter(|d| spans.iter().all(|a| a.accessed_by.contains(d)))
                .collect();
            devices.resize(size / 4, NONE);
            for (i, d) in devices.into_iter().enumerate() {
                // SAFETY: `size` bytes at `data`, per the call's contract.
                unsafe { (data as *mut i32).add(i).write_unaligned(d) };
            }
            Ok(())
        }
        _ => Err(INVALID_VALUE),
    }
}

/// One attribute of `hipMalloc` memory, which HMM does not manage: no advice, no prefetch,
/// and coarse grained (ROCm answers so for device memory).
fn device_memory_attribute(data: *mut c_void, size: usize, attr: c_int) -> Result<(), hipError_t> {
    let one = |v: i32| -> Result<(), hipError_t> {
        if size != 4 {
            return Err(INVALID_VALUE);
        }
        super::put(data as *mut i32, v)
    };
    match attr {
        ATTR_READ_MOSTLY => one(0),
        ATTR_PREFERRED_LOCATION | ATTR_LAST_PREFETCH_LOCATION => one(NONE),
        ATTR_COHERENCY_MODE => one(1),
        ATTR_ACCESSED_BY => {
            if !size.is_multiple_of(4) {
                return Err(INVALID_VALUE);
            }
            for i in 0..size / 4 {
                // SAFETY: `size` bytes at `data`, per the call's contract.
                unsafe { (data as *mut i32).add(i).write_unaligned(NONE) };
            }
            Ok(())
        }
        _ => Err(INVALID_VALUE),
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipMemRangeGetAttribute(
    data: *mut c_void,
    data_size: usize,
    attribute_: c_int,
    ptr: *const c_void,
    count: usize,
) -> hipError_t {
    call(|rt| {
        if data.is_null() || data_size == 0 || ptr.is_null() || count == 0 {
            return Err(INVALID_VALUE);
        }
        let start = ptr as u64;
        attribute(rt, data, data_size, attribute_, start, start + count as u64)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemRangeGetAttributes(
    data: *mut *mut c_void,
    data_sizes: *mut usize,
    attributes: *mut c_int,
    num_attributes: usize,
    ptr: *const c_void,
    count: usize,
) -> hipError_t {
    call(|rt| {
        if data.is_null()
            || data_sizes.is_null()
            || attributes.is_null()
            || num_attributes == 0
            || ptr.is_null()
            || count == 0
        {
            return Err(INVALID_VALUE);
        }
        let start = ptr as u64;
        for i in 0..num_attributes {
            // SAFETY: three arrays of `num_attributes` entries, per the call's contract.
            let (d, s, a) = unsafe { (*data.add(i), *data_sizes.add(i), *attributes.add(i)) };
            attribute(rt, d, s, a, start, start + count as u64)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipStreamAttachMemAsync(
    stream: hipStream_t,
    ptr: *mut c_void,
    length: usize,
    flags: std::ffi::c_uint,
) -> hipError_t {
    const ATTACH_GLOBAL: u32 = 1;
    const ATTACH_HOST: u32 = 2;
    const ATTACH_SINGLE: u32 = 4;
    // hipamd (from ROCm 5.4) checks the arguments as CUDA documents them and attaches nothing:
    // all memory stays attached globally. The null stream is allowed, and a length of 0 means
    // the whole allocation.
    call(|rt| {
        if ptr.is_null() || ![ATTACH_GLOBAL, ATTACH_HOST, ATTACH_SINGLE].contains(&flags) {
            return Err(INVALID_VALUE);
        }
        if flags == ATTACH_SINGLE && stream.is_null() {
            return Err(INVALID_VALUE);
        }
        rt.check_stream(stream)?;
        match rt.allocation_of(ptr as u64) {
            // Memory of the program's own would need pageable memory access (HMM), which the
            // emulated devices do not report.
            None => Err(INVALID_VALUE),
            // Managed and host allocations are attached whole, or not at all.
            Some((_, info))
                if matches!(info.class, AllocClass::Managed | AllocClass::Host)
                    && length != 0
                    && length as u64 != info.size =>
            {
                Err(INVALID_VALUE)
            }
            Some(_) => Ok(()),
        }
    })
}
