//! Guest loads, stores and atomics on device memory as host atomics.
//!
//! Workgroups of a functional dispatch run on several host threads at once, each through its
//! own view of the same allocations ([`super::Memory::worker_view`]), and guest programs may
//! race as they may on a GPU. Doing every guest access as an atomic keeps such races defined on
//! the host: loads acquire and stores release, which on x86-64 are plain moves, and a device
//! atomic is one host read-modify-write. Acquire/release rather than relaxed so that the
//! message passing GPU code relies on (write data, then set a flag another workgroup polls)
//! holds on weakly ordered hosts too. Memory is little-endian on the device; values are
//! converted with `from_le`/`to_le`, which cost nothing on little-endian hosts.

use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8};

/// Copies `out.len()` bytes from `src`.
///
/// # Safety
/// `src .. src + out.len()` is valid for reads for the call, and every concurrent access to
/// it is atomic (made by this module).
#[inline]
pub unsafe fn load(src: *mut u8, out: &mut [u8]) {
    let at = src as usize;
    match out.len() {
        4 if at.is_multiple_of(4) => {
            let v = AtomicU32::from_ptr(src.cast()).load(Acquire);
            out.copy_from_slice(&v.to_ne_bytes());
        }
        8 if at.is_multiple_of(8) => {
            let v = AtomicU64::from_ptr(src.cast()).load(Acquire);
            out.copy_from_slice(&v.to_ne_bytes());
        }
        2 if at.is_multiple_of(2) => {
            let v = AtomicU16::from_ptr(src.cast()).load(Acquire);
            out.copy_from_slice(&v.to_ne_bytes());
        }
        n if n.is_multiple_of(4) && at.is_multiple_of(4) => {
            for (i, chunk) in out.chunks_exact_mut(4).enumerate() {
                let v = AtomicU32::from_ptr(src.add(4 * i).cast()).load(Acquire);
                chunk.copy_from_slice(&v.to_ne_bytes());
            }
        }
        _ => {
            for (i, b) in out.iter_mut().enumerate() {
                *b = AtomicU8::from_ptr(src.add(i)).load(Acquire);
            }
        }
    }
}

/// The `out.len()` little-endian dwords at `src`, read with the host accesses [`load`] makes
/// for their bytes.
///
/// # Safety
/// As [`load`], for `4 * out.len()` bytes.
#[inline]
pub unsafe fn load_words(src: *mut u8, out: &mut [u32]) {
    let at = src as usize;
    match out {
        [lo, hi] if at.is_multiple_of(8) => {
            let v = u64::from_le(AtomicU64::from_ptr(src.cast()).load(Acquire));
            (*lo, *hi) = (v as u32, (v >> 32) as u32);
        }
        _ if at.is_multiple_of(4) => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = u32::from_le(AtomicU32::from_ptr(src.add(4 * i).cast()).load(Acquire));
            }
        }
        _ => {
            for (i, o) in out.iter_mut().enumerate() {
                let b = |k| AtomicU8::from_ptr(src.add(4 * i + k)).load(Acquire);
                *o = u32::from_le_bytes([b(0), b(1), b(2), b(3)]);
            }
        }
    }
}

/// Copies `data` to `dst`.
///
/// # Safety
/// `dst .. dst + data.len()` is valid for writes for the call, and every concurrent access to
/// it is atomic.
#[inline]
pub unsafe fn store(dst: *mut u8, data: &[u8]) {
    let at = dst as usize;
    match data.len() {
        4 if at.is_multiple_of(4) => {
            let v = u32::from_ne_bytes(data.try_into().unwrap_or_default());
            AtomicU32::from_ptr(dst.cast()).store(v, Release);
        }
        8 if at.is_multiple_of(8) => {
            let v = u64::from_ne_bytes(data.try_into().unwrap_or_default());
            AtomicU64::from_ptr(dst.cast()).store(v, Release);
        }
        2 if at.is_multiple_of(2) => {
            let v = u16::from_ne_bytes(data.try_into().unwrap_or_default());
            AtomicU16::from_ptr(dst.cast()).store(v, Release);
        }
        n if n.is_multiple_of(4) && at.is_multiple_of(4) => {
            for (i, chunk) in data.chunks_exact(4).enumerate() {
                let v = u32::from_ne_bytes(chunk.try_into().unwrap_or_default());
                AtomicU32::from_ptr(dst.add(4 * i).cast()).store(v, Release);
            }
        }
        _ => {
            for (i, b) in data.iter().enumerate() {
                AtomicU8::from_ptr(dst.add(i)).store(*b, Release);
            }
        }
    }
}

/// The little-endian dword at `src`, as [`load`] of 4 bytes: the value itself, so that a
/// loop over lanes does not take it apart into bytes and put it together again.
///
/// # Safety
/// As [`load`], for 4 bytes.
#[inline(always)]
pub unsafe fn load_u32(src: *mut u8) -> u32 {
    if (src as usize).is_multiple_of(4) {
        u32::from_le(AtomicU32::from_ptr(src.cast()).load(Acquire))
    } else {
        let b = |i| AtomicU8::from_ptr(src.add(i)).load(Acquire);
        u32::from_le_bytes([b(0), b(1), b(2), b(3)])
    }
}

/// The byte at `src`, as [`load`] of 1 byte.
///
/// # Safety
/// As [`load`], for 1 byte.
#[inline(always)]
pub unsafe fn load_u8(src: *mut u8) -> u8 {
    AtomicU8::from_ptr(src).load(Acquire)
}

/// The little-endian short at `src`, as [`load`] of 2 bytes.
///
/// # Safety
/// As [`load`], for 2 bytes.
#[inline(always)]
pub unsafe fn load_u16(src: *mut u8) -> u16 {
    if (src as usize).is_multiple_of(2) {
        u16::from_le(AtomicU16::from_ptr(src.cast()).load(Acquire))
    } else {
        u16::from_le_bytes([load_u8(src), load_u8(src.add(1))])
    }
}

/// The little-endian quadword at `src`, as [`load`] of 8 bytes.
///
/// # Safety
/// As [`load`], for 8 bytes.
#[inline(always)]
pub unsafe fn load_u64(src: *mut u8) -> u64 {
    if (src as usize).is_multiple_of(8) {
        u64::from_le(AtomicU64::from_ptr(src.cast()).load(Acquire))
    } else {
        load_u32(src) as u64 | (load_u32(src.add(4)) as u64) << 32
    }
}

/// The 64 little-endian dwords at `src` (4-byte aligned), as [`load`] of each: two at a
/// time where `src` is 8-byte aligned, which halves the loads of a wave's row of lanes.
///
/// # Safety
/// As [`load`], for 256 bytes.
#[inline(always)]
pub unsafe fn load_row(src: *mut u8, out: &mut [u32; 64]) {
    // The next rows of a stream, asked of the host's cache before they are needed: a kernel's
    // waves read consecutive rows (`x[i]` for `i` a global index), the next workgroup's wave
    // the row [`PREFETCH_AHEAD`] bytes on, and between one row and the next the emulator does
    // enough other work that the host's own prefetchers did not keep up: saxpy over 2^24
    // elements, its rows far out of the host's caches, ran in about 0.85 of the time with
    // this, fastest runs compared (in the bench's 2^22, whose buffers were just written and
    // are still cached, the same). A prefetch never faults, and one past the allocation only
    // fetches a line.
    #[cfg(target_arch = "x86_64")]
    for k in 0..4 {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(PREFETCH_AHEAD + 64 * k).cast());
    }
    if (src as usize).is_multiple_of(8) {
        for (i, pair) in out.chunks_exact_mut(2).enumerate() {
            let v = u64::from_le(AtomicU64::from_ptr(src.add(8 * i).cast()).load(Acquire));
            pair[0] = v as u32;
            pair[1] = (v >> 32) as u32;
        }
    } else {
        for (i, o) in out.iter_mut().enumerate() {
            *o = load_u32(src.add(4 * i));
        }
    }
}

/// How far ahead of a row [`load_row`] prefetches: a workgroup of 256 work-items' row of
/// dwords (1,024, 2,048 and 4,096 bytes did the same for saxpy).
const PREFETCH_AHEAD: usize = 1024;

/// Stores the 64 dwords of `row` little-endian at `src`, as [`load_row`] loads them.
///
/// # Safety
/// As [`store`], for 256 bytes.
#[inline(always)]
pub unsafe fn store_row(dst: *mut u8, row: &[u32; 64]) {
    if (dst as usize).is_multiple_of(8) {
        for (i, pair) in row.chunks_exact(2).enumerate() {
            let v = pair[0] as u64 | (pair[1] as u64) << 32;
            AtomicU64::from_ptr(dst.add(8 * i).cast()).store(v.to_le(), Release);
        }
    } else {
        for (i, v) in row.iter().enumerate() {
            store_u32(dst.add(4 * i), *v);
        }
    }
}

/// Stores the dword `v` little-endian at `dst`, as [`store`] of its 4 bytes.
///
/// # Safety
/// As [`store`], for 4 bytes.
#[inline(always)]
pub unsafe fn store_u32(dst: *mut u8, v: u32) {
    if (dst as usize).is_multiple_of(4) {
        AtomicU32::from_ptr(dst.cast()).store(v.to_le(), Release);
    } else {
        for (i, b) in v.to_le_bytes().into_iter().enumerate() {
            AtomicU8::from_ptr(dst.add(i)).store(b, Release);
        }
    }
}

/// Stores the byte `v` at `dst`, as [`store`] of 1 byte.
///
/// # Safety
/// As [`store`], for 1 byte.
#[inline(always)]
pub unsafe fn store_u8(dst: *mut u8, v: u8) {
    AtomicU8::from_ptr(dst).store(v, Release);
}

/// Stores the short `v` little-endian at `dst`, as [`store`] of its 2 bytes.
///
/// # Safety
/// As [`store`], for 2 bytes.
#[inline(always)]
pub unsafe fn store_u16(dst: *mut u8, v: u16) {
    if (dst as usize).is_multiple_of(2) {
        AtomicU16::from_ptr(dst.cast()).store(v.to_le(), Release);
    } else {
        let [b0, b1] = v.to_le_bytes();
        store_u8(dst, b0);
        store_u8(dst.add(1), b1);
    }
}

/// Stores the quadword `v` little-endian at `dst`, as [`store`] of its 8 bytes.
///
/// # Safety
/// As [`store`], for 8 bytes.
#[inline(always)]
pub unsafe fn store_u64(dst: *mut u8, v: u64) {
    if (dst as usize).is_multiple_of(8) {
        AtomicU64::from_ptr(dst.cast()).store(v.to_le(), Release);
    } else {
        store_u32(dst, v as u32);
        store_u32(dst.add(4), (v >> 32) as u32);
    }
}

/// The 64 bytes (`bytes` 1) or little-endian shorts (`bytes` 2) from `src` on, zero-extended
/// into `out`: a quadword's lanes at a time where `src` is 8-byte aligned, else as [`load`] of
/// each.
///
/// # Safety
/// As [`load`], for `64 * bytes` bytes.
#[inline(always)]
pub unsafe fn load_row_narrow(src: *mut u8, bytes: usize, out: &mut [u32; 64]) {
    // One loop per width, so the lanes of each quadword are unpacked with constant shifts (with
    // the width a variable, a loop of a shift and a mask per lane).
    match bytes {
        1 => load_row_narrow_of::<1>(src, out),
        _ => load_row_narrow_of::<2>(src, out),
    }
}

#[inline(always)]
unsafe fn load_row_narrow_of<const N: usize>(src: *mut u8, out: &mut [u32; 64]) {
    let bits = 8 * N as u32;
    if (src as usize).is_multiple_of(8) {
        for (i, lanes) in out.chunks_exact_mut(8 / N).enumerate() {
            let v = u64::from_le(AtomicU64::from_ptr(src.add(8 * i).cast()).load(Acquire));
            for (k, o) in lanes.iter_mut().enumerate() {
                *o = (v >> (bits * k as u32)) as u32 & (u32::MAX >> (32 - bits));
            }
        }
    } else if N == 1 {
        for (l, o) in out.iter_mut().enumerate() {
            *o = load_u8(src.add(l)) as u32;
        }
    } else {
        for (l, o) in out.iter_mut().enumerate() {
            *o = load_u16(src.add(2 * l)) as u32;
        }
    }
}

/// Stores the low byte (`bytes` 1) or short (`bytes` 2) of each of the 64 dwords of `row`
/// from `dst` on, as [`load_row_narrow`] loads them.
///
/// # Safety
/// As [`store`], for `64 * bytes` bytes.
#[inline(always)]
pub unsafe fn store_row_narrow(dst: *mut u8, bytes: usize, row: &[u32; 64]) {
    match bytes {
        1 => store_row_narrow_of::<1>(dst, row),
        _ => store_row_narrow_of::<2>(dst, row),
    }
}

#[inline(always)]
unsafe fn store_row_narrow_of<const N: usize>(dst: *mut u8, row: &[u32; 64]) {
    let bits = 8 * N as u32;
    if (dst as usize).is_multiple_of(8) {
        for (i, lanes) in row.chunks_exact(8 / N).enumerate() {
            let v = lanes.iter().enumerate().fold(0u64, |v, (k, &x)| {
                v | ((x & (u32::MAX >> (32 - bits))) as u64) << (bits * k as u32)
            });
            AtomicU64::from_ptr(dst.add(8 * i).cast()).store(v.to_le(), Release);
        }
    } else if N == 1 {
        for (l, &v) in row.iter().enumerate() {
            store_u8(dst.add(l), v as u8);
        }
    } else {
        for (l, &v) in row.iter().enumerate() {
            store_u16(dst.add(2 * l), v as u16);
        }
    }
}

/// Replaces the `bytes`-byte (4 or 8) little-endian value at `p` with `new(old)` as one host
/// atomic operation; returns the old value. `None` when `p` is not aligned to `bytes`: the
/// caller does the access as a load and a store, which is not atomic against other threads.
///
/// # Safety
/// As [`store`], for `bytes` bytes.
#[inline]
pub unsafe fn rmw(p: *mut u8, bytes: usize, mut new: impl FnMut(u64) -> u64) -> Option<u64> {
    let at = p as usize;
    match bytes {
        4 if at.is_multiple_of(4) => {
            let a = AtomicU32::from_ptr(p.cast());
            let step = |v: u32| Some(u32::to_le(new(u32::from_le(v) as u64) as u32));
            let old = a.fetch_update(AcqRel, Acquire, step).unwrap_or_else(|v| v);
            Some(u32::from_le(old) as u64)
        }
        8 if at.is_multiple_of(8) => {
            let a = AtomicU64::from_ptr(p.cast());
            let step = |v: u64| Some(u64::to_le(new(u64::from_le(v))));
            let old = a.fetch_update(AcqRel, Acquire, step).unwrap_or_else(|v| v);
            Some(u64::from_le(old))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_at_every_alignment_and_size() {
        let mut buf = [0u64; 4];
        let base = buf.as_mut_ptr().cast::<u8>();
        for off in 0..8 {
            for len in [1, 2, 3, 4, 8, 12, 16] {
                let data: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37) ^ off).collect();
                let mut out = vec![0u8; len];
                unsafe {
                    store(base.add(off as usize), &data);
                    load(base.add(off as usize), &mut out);
                }
                assert_eq!(out, data, "offset {off} length {len}");
            }
        }
    }

    #[test]
    fn dwords_at_every_alignment() {
        let mut buf = [0u64; 2];
        let base = buf.as_mut_ptr().cast::<u8>();
        for off in 0..5 {
            let v = 0x8765_4321u32.rotate_left(off as u32 * 5);
            let mut bytes = [0u8; 4];
            unsafe {
                store_u32(base.add(off), v);
                load(base.add(off), &mut bytes);
                assert_eq!(bytes, v.to_le_bytes(), "offset {off}");
                store(base.add(off), &(!v).to_le_bytes());
                assert_eq!(load_u32(base.add(off)), !v, "offset {off}");
            }
        }
    }

    #[test]
    fn rmw_returns_old_and_stores_new() {
        let mut buf = [0u64; 2];
        let p = buf.as_mut_ptr().cast::<u8>();
        unsafe {
            store(p, &7u32.to_le_bytes());
            assert_eq!(rmw(p, 4, |v| v + 5), Some(7));
            let mut out = [0u8; 4];
            load(p, &mut out);
            assert_eq!(u32::from_le_bytes(out), 12);
            assert_eq!(rmw(p.add(8), 8, |_| u64::MAX), Some(0));
            assert_eq!(rmw(p.add(2), 4, |v| v), None);
        }
    }
}
