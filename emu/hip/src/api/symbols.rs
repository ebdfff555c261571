//! Device variables by their host shadows: `hipMemcpyToSymbol`, `hipMemcpyFromSymbol`,
//! `hipGetSymbolAddress`, `hipGetSymbolSize`. The variables live in the code object's sections,
//! initialised from it when it loads.

use super::memory::copy;
use super::{call, call_async, put};
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::memcpy_kind::*;
use crate::types::*;
use std::ffi::{c_int, c_void};

/// The device address of `offset..offset+size` of the variable `symbol`, checked.
fn symbol_range(
    rt: &mut Runtime,
    symbol: *const c_void,
    size: usize,
    offset: usize,
) -> Result<u64, hipError_t> {
    let (addr, len) = rt.var_address(symbol)?;
    let end = (offset as u64)
        .checked_add(size as u64)
        .ok_or(INVALID_VALUE)?;
    if end > len {
        return Err(INVALID_VALUE);
    }
    Ok(addr + offset as u64)
}

pub(crate) fn to_symbol(
    rt: &mut Runtime,
    symbol: *const c_void,
    src: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> Result<(), hipError_t> {
    if !matches!(kind, HOST_TO_DEVICE | DEVICE_TO_DEVICE | DEFAULT) {
        return Err(INVALID_MEMCPY_DIRECTION);
    }
    let dst = symbol_range(rt, symbol, size, offset)?;
    copy(rt, dst, src as u64, size as u64, kind)
}

pub(crate) fn from_symbol(
    rt: &mut Runtime,
    dst: *mut c_void,
    symbol: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> Result<(), hipError_t> {
    if !matches!(kind, DEVICE_TO_HOST | DEVICE_TO_DEVICE | DEFAULT) {
        return Err(INVALID_MEMCPY_DIRECTION);
    }
    let src = symbol_range(rt, symbol, size, offset)?;
    copy(rt, dst as u64, src, size as u64, kind)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        super::capture::synchronous(rt)?;
        to_symbol(rt, symbol, src, size, offset, kind)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        rt.check_stream(stream)?;
        // The direction is checked first, as the blocking form does.
        if !matches!(kind, HOST_TO_DEVICE | DEVICE_TO_DEVICE | DEFAULT) {
            return Err(INVALID_MEMCPY_DIRECTION);
        }
        let captured = super::capture::captured(rt, stream, |rt| {
            super::graph::to_symbol(rt, symbol, src, size, offset, kind)
        })?;
        if captured {
            return Ok(());
        }
        to_symbol(rt, symbol, src, size, offset, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        super::capture::synchronous(rt)?;
        from_symbol(rt, dst, symbol, size, offset, kind)?;
        rt.take_pending()
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    call_async(|rt| {
        rt.check_stream(stream)?;
        if !matches!(kind, DEVICE_TO_HOST | DEVICE_TO_DEVICE | DEFAULT) {
            return Err(INVALID_MEMCPY_DIRECTION);
        }
        let captured = super::capture::captured(rt, stream, |rt| {
            super::graph::from_symbol(rt, dst, symbol, size, offset, kind)
        })?;
        if captured {
            return Ok(());
        }
        from_symbol(rt, dst, symbol, size, offset, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolAddress(
    device: *mut *mut c_void,
    symbol: *const c_void,
) -> hipError_t {
    call(|rt| {
        let (addr, _) = rt.var_address(symbol)?;
        put(device, addr as *mut c_void)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolSize(size: *mut usize, symbol: *const c_void) -> hipError_t {
    call(|rt| {
        let (_, len) = rt.var_address(symbol)?;
        put(size, len as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbol_spt(
    symbol: *const c_void,
    src: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    hipMemcpyToSymbol(symbol, src, size, offset, kind)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbol_spt(
    dst: *mut c_void,
    symbol: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    hipMemcpyFromSymbol(dst, symbol, size, offset, kind)
}
