//! Several devices: peer access between them, copies from one to another, their links and
//! identities (`hipDeviceGetByPCIBusId`, `hipDeviceGetUuid`). All devices share one address
//! space ([`crate::devices`]), so a peer copy is a device-to-device copy and every pair of
//! devices can reach each other over one emulated XGMI hop. Codes are hipamd 5.2's
//! (`hip_peer.cpp`).

use super::{call, put};
use crate::error::*;
use crate::runtime::Runtime;
use crate::types::*;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// `hipDevP2PAttr*`.
const P2P_PERFORMANCE_RANK: c_int = 0;
const P2P_ACCESS_SUPPORTED: c_int = 1;
const P2P_NATIVE_ATOMIC_SUPPORTED: c_int = 2;
const P2P_ARRAY_ACCESS_SUPPORTED: c_int = 3;

/// `HSA_AMD_LINK_INFO_TYPE_XGMI`: the link type `hipExtGetLinkTypeAndHopCount` reports.
const LINK_TYPE_XGMI: u32 = 4;

/// Whether `device` may be given access to `peer`'s memory: any two distinct devices.
fn can_access(rt: &Runtime, device: c_int, peer: c_int) -> Result<bool, hipError_t> {
    if device == peer {
        return Ok(false);
    }
    rt.check_device(device)?;
    rt.check_device(peer)?;
    Ok(true)
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceCanAccessPeer(
    can: *mut c_int,
    device: c_int,
    peer: c_int,
) -> hipError_t {
    call(|rt| {
        if can.is_null() {
            return Err(INVALID_VALUE);
        }
        let ok = can_access(rt, device, peer)?;
        put(can, ok as c_int)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceEnablePeerAccess(peer: c_int, flags: c_uint) -> hipError_t {
    call(|rt| {
        let device = crate::devices::current();
        if flags != 0 {
            return Err(INVALID_VALUE);
        }
        if !can_access(rt, device, peer).unwrap_or(false) {
            return Err(INVALID_DEVICE);
        }
        if !rt.devices[device as usize].peers.insert(peer) {
            return Err(PEER_ACCESS_ALREADY_ENABLED);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceDisablePeerAccess(peer: c_int) -> hipError_t {
    call(|rt| {
        let device = crate::devices::current();
        if !can_access(rt, device, peer).unwrap_or(false) {
            return Err(INVALID_DEVICE);
        }
        if !rt.devices[device as usize].peers.remove(&peer) {
            return Err(PEER_ACCESS_NOT_ENABLED);
        }
        Ok(())
    })
}

/// `hipCtxEnablePeerAccess`: the context's device is the peer (hipamd 5.2 accepts anything).
#[no_mangle]
pub unsafe extern "C" fn hipCtxEnablePeerAccess(peer: hipCtx_t, flags: c_uint) -> hipError_t {
    let device = match context_device(peer) {
        Ok(d) => d,
        Err(e) => return set_last(e),
    };
    hipDeviceEnablePeerAccess(device, flags)
}

#[no_mangle]
pub unsafe extern "C" fn hipCtxDisablePeerAccess(peer: hipCtx_t) -> hipError_t {
    let device = match context_device(peer) {
        Ok(d) => d,
        Err(e) => return set_last(e),
    };
    hipDeviceDisablePeerAccess(device)
}

/// The device of a context handle; anything else is `hipErrorInvalidContext`.
fn context_device(ctx: hipCtx_t) -> Result<c_int, hipError_t> {
    let mut out = Err(INVALID_CONTEXT);
    call(|rt| {
        out =
            crate::devices::context_device(ctx as usize, rt.device_count()).ok_or(INVALID_CONTEXT);
        Ok(())
    });
    out
}

fn check_pair(dst_device: c_int, src_device: c_int) -> hipError_t {
    call(|rt| {
        rt.check_device(dst_device)?;
        rt.check_device(src_device)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyPeer(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    size: usize,
) -> hipError_t {
    let code = check_pair(dst_device, src_device);
    if code != SUCCESS {
        return code;
    }
    super::memory::hipMemcpy(dst, src, size, memcpy_kind::DEVICE_TO_DEVICE)
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyPeerAsync(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    let code = check_pair(dst_device, src_device);
    if code != SUCCESS {
        return code;
    }
    super::memory::hipMemcpyAsync(dst, src, size, memcpy_kind::DEVICE_TO_DEVICE, stream)
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetP2PAttribute(
    value: *mut c_int,
    attr: c_int,
    src_device: c_int,
    dst_device: c_int,
) -> hipError_t {
    call(|rt| {
        if value.is_null() {
            return Err(INVALID_VALUE);
        }
        if src_device == dst_device {
            return Err(INVALID_DEVICE);
        }
        rt.check_device(src_device)?;
        rt.check_device(dst_device)?;
        let v = match attr {
            // hipamd reports the link type here; one XGMI hop ranks as 0, the best.
            P2P_PERFORMANCE_RANK => 0,
            P2P_ACCESS_SUPPORTED | P2P_ARRAY_ACCESS_SUPPORTED => 1,
            // Kernels' atomics on a peer's memory are the host's atomics on shared memory.
            P2P_NATIVE_ATOMIC_SUPPORTED => 1,
            _ => return Err(INVALID_VALUE),
        };
        put(value, v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipExtGetLinkTypeAndHopCount(
    device1: c_int,
    device2: c_int,
    link_type: *mut u32,
    hop_count: *mut u32,
) -> hipError_t {
    call(|rt| {
        if link_type.is_null() || hop_count.is_null() || device1 == device2 {
            return Err(INVALID_VALUE);
        }
        if device1 < 0 || device2 < 0 {
            return Err(INVALID_VALUE);
        }
        rt.check_device(device1)?;
        rt.check_device(device2)?;
        put(link_type, LINK_TYPE_XGMI)?;
        put(hop_count, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetByPCIBusId(
    device: *mut c_int,
    bus_id: *const c_char,
) -> hipError_t {
    call(|rt| {
        if device.is_null() || bus_id.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: a NUL-terminated string, per the C signature.
        let text = unsafe { CStr::from_ptr(bus_id) }.to_string_lossy();
        let wanted = parse_bus_id(&text).ok_or(INVALID_VALUE)?;
        let found = (0..rt.device_count())
            .find(|&d| parse_bus_id(&super::device::bus_id_text(d)) == Some(wanted))
            .ok_or(INVALID_VALUE)?;
        put(device, found)
    })
}

/// `domain:bus:device` of a PCI address (hex fields, as hipamd's `sscanf("%04x:%02x:%02x")`).
fn parse_bus_id(text: &str) -> Option<(u32, u32, u32)> {
    let mut fields = text.trim().splitn(3, ':');
    let domain = u32::from_str_radix(fields.next()?, 16).ok()?;
    let bus = u32::from_str_radix(fields.next()?, 16).ok()?;
    let rest = fields.next()?;
    let dev = rest.split('.').next()?;
    let dev = u32::from_str_radix(dev, 16).ok()?;
    Some((domain, bus, dev))
}

#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetUuid(uuid: *mut [u8; 16], device: c_int) -> hipError_t {
    call(|rt| {
        if uuid.is_null() {
            return Err(INVALID_VALUE);
        }
        rt.check_device(device)?;
        put(uuid, crate::devices::uuid(device))
    })
}

#[cfg(test)]
mod tests {
    use super::parse_bus_id;

    #[test]
    fn bus_ids_parse_as_hipamd_reads_them() {
        assert_eq!(parse_bus_id("0000:03:00.0"), Some((0, 3, 0)));
        assert_eq!(parse_bus_id("0000:0a:00"), Some((0, 10, 0)));
        assert_eq!(parse_bus_id("bogus"), None);
        assert_eq!(parse_bus_id("0000:zz:00.0"), None);
    }
}
