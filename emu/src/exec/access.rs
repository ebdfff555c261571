//! Per-lane memory access shared by DS, FLAT/GLOBAL/SCRATCH and MUBUF: global memory, the
//! workgroup's LDS, and the lane's private segment (swizzled in scratch backing memory), plus the
//! read-modify-write every atomic goes through (what it computes is [`super::atomic_ops`]).

use super::{atomic_ops, Cx, Fault};
use crate::check::Access;
use gcn_isa::Atomic;

/// Where one lane's access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    Global(u64),
    Lds(u32),
    /// Byte offset in the lane's private segment.
    Private(u32),
}

/// Scratch backing is swizzled as the private segment buffer describes it (element size 4,
/// index stride 64): dword `o / 4` of lane `l` lives at `(o / 4) * 256 + l * 4`.
#[inline]
pub fn private_address(flat_scratch: u64, offset: u32, lane: usize) -> u64 {
    // FLAT_SCRATCH is the program's to set: an address past the top wraps (and faults as
    // memory that is not there) rather than overflowing.
    flat_scratch.wrapping_add((offset as u64 / 4) * 256 + lane as u64 * 4 + (offset as u64 % 4))
}

/// The pieces of an access of `len` bytes at private `offset` that each lie in one dword, as
/// (start in the access, length): the bytes of one dword of a lane are contiguous in scratch
/// backing ([`private_address`]), the next dword is 256 bytes on.
fn dword_pieces(offset: u32, len: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut i = 0;
    std::iter::from_fn(move || {
        (i < len).then(|| {
            let take = (4 - (offset as usize + i) % 4).min(len - i);
            let piece = (i, take);
            i += take;
            piece
        })
    })
}

fn private_check(cx: &Cx, lane: usize, offset: u32, len: usize) -> Result<(), Fault> {
    let size = cx.env.private_size;
    if offset as u64 + len as u64 > size as u64 {
        return Err(Fault::Private {
            lane: lane as u8,
            offset,
            len: len as u32,
            size,
        });
    }
    Ok(())
}

fn global_fault(cx: &Cx, lane: usize, what: &'static str, addr: u64, len: usize) -> Fault {
    Fault::Memory {
        lane: lane as u8,
        what,
        addr,
        len: len as u32,
        detail: cx.mem.describe(addr),
    }
}

fn lds_fault(cx: &Cx, lane: usize, what: &'static str, addr: u32, len: usize) -> Fault {
    Fault::Lds {
        lane: lane as u8,
        what,
        addr,
        len: len as u32,
        size: cx.lds.size(),
    }
}

/// Reads `out.len()` bytes for `lane`.
#[inline]
pub fn load(cx: &mut Cx, lane: usize, at: Addr, out: &mut [u8]) -> Result<(), Fault> {
    if cx.mem.checking() && checked_load(cx, lane, at, out, Access::Load) {
        return Ok(());
    }
    load_unchecked(cx, lane, at, out)
}

/// Reads the bytes a partial store merges into (MTBUF formats that leave components alone). The
/// sanitizers do not count it as a read; an address the store will report reads as 0.
pub fn peek(cx: &Cx, lane: usize, at: Addr, out: &mut [u8]) -> Result<(), Fault> {
    match load_unchecked(cx, lane, at, out) {
        Err(_) if cx.mem.checking() => {
            out.fill(0);
            Ok(())
        }
        r => r,
    }
}

/// The sanitizers' view of a load (`--check`); true when they performed it or reported and
/// dropped it, false to let it fault as it would without them.
#[cold]
fn checked_load(cx: &mut Cx, lane: usize, at: Addr, out: &mut [u8], access: Access) -> bool {
    match at {
        Addr::Global(a) => super::check_global::load(cx, lane, a, out, access),
        Addr::Lds(a) => match cx.lds.bytes(a, out.len()) {
            Some(b) => {
                out.copy_from_slice(b);
                super::check_lds::access(cx, lane, a, out.len(), access);
                true
            }
            None => {
                out.fill(0);
                super::check_lds::outside(cx, lane, a, out.len(), access)
            }
        },
        Addr::Private(o) => {
            let outside = private_check(cx, lane, o, out.len()).is_err();
            outside && {
                out.fill(0);
                super::check_global::private_outside(cx, lane, o, out.len(), access)
            }
        }
    }
}

/// The sanitizers' view of a store; as [`checked_load`]. The write half of an atomic was checked
/// with its read.
#[cold]
fn checked_store(cx: &mut Cx, lane: usize, at: Addr, data: &[u8], access: Access) -> bool {
    match at {
        Addr::Global(a) => super::check_global::store(cx, lane, a, data, access),
        Addr::Lds(a) => match cx.lds.bytes_mut(a, data.len()) {
            Some(b) => {
                b.copy_from_slice(data);
                if access != Access::Atomic {
                    super::check_lds::access(cx, lane, a, data.len(), access);
                }
                true
            }
            None => super::check_lds::outside(cx, lane, a, data.len(), access),
        },
        Addr::Private(o) => {
            private_check(cx, lane, o, data.len()).is_err()
                && super::check_global::private_outside(cx, lane, o, data.len(), access)
        }
    }
}

/// `dst.copy_from_slice(src)` for one lane's access: with the usual lengths spelled out, each is
/// a move instead of a call to `memcpy` (which a length known only at run time becomes, and
/// which was a fifth of rocPRIM's LDS-heavy kernels).
#[inline(always)]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    #[inline(always)]
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) {
        let d: &mut [u8; N] = dst.try_into().expect("same length");
        *d = src.try_into().expect("same length");
    }
    match src.len() {
        1 => fixed::<1>(dst, src),
        2 => fixed::<2>(dst, src),
        4 => fixed::<4>(dst, src),
        8 => fixed::<8>(dst, src),
        16 => fixed::<16>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

fn load_unchecked(cx: &Cx, lane: usize, at: Addr, out: &mut [u8]) -> Result<(), Fault> {
    match at {
        Addr::Global(a) => cx
            .mem
            .load(a, out)
            .map_err(|_| global_fault(cx, lane, "load", a, out.len()))?,
        Addr::Lds(a) => {
            let b = cx
                .lds
                .bytes(a, out.len())
                .ok_or_else(|| lds_fault(cx, lane, "load", a, out.len()))?;
            copy_small(out, b);
        }
        Addr::Private(o) => {
            private_check(cx, lane, o, out.len())?;
            let fs = cx.wave.flat_scratch();
            for (i, len) in dword_pieces(o, out.len()) {
                let a = private_address(fs, o + i as u32, lane);
                if cx.mem.load(a, &mut out[i..i + len]).is_err() {
                    // The first byte that is not there names the fault.
                    let bad = (0..len)
                        .map(|j| a + j as u64)
                        .find(|&b| cx.mem.load(b, &mut [0]).is_err())
                        .unwrap_or(a);
                    return Err(global_fault(cx, lane, "scratch load", bad, 1));
                }
            }
        }
    }
    Ok(())
}

/// Writes `data` for `lane`.
#[inline]
pub fn store(cx: &mut Cx, lane: usize, at: Addr, data: &[u8]) -> Result<(), Fault> {
    if cx.mem.checking() && checked_store(cx, lane, at, data, Access::Store) {
        return Ok(());
    }
    store_unchecked(cx, lane, at, data)
}

fn store_unchecked(cx: &mut Cx, lane: usize, at: Addr, data: &[u8]) -> Result<(), Fault> {
    match at {
        Addr::Global(a) => {
            if cx.mem.store(a, data).is_err() {
                return Err(global_fault(cx, lane, "store", a, data.len()));
            }
        }
        Addr::Lds(a) => match cx.lds.bytes_mut(a, data.len()) {
            Some(b) => copy_small(b, data),
            None => return Err(lds_fault(cx, lane, "store", a, data.len())),
        },
        Addr::Private(o) => {
            private_check(cx, lane, o, data.len())?;
            let fs = cx.wave.flat_scratch();
            for (i, len) in dword_pieces(o, data.len()) {
                let a = private_address(fs, o + i as u32, lane);
                if cx.mem.store(a, &data[i..i + len]).is_err() {
                    // Byte by byte, so the bytes before the first that is not there are
                    // written and that byte names the fault, as one byte at a time would.
                    for (j, byte) in data[i..i + len].iter().enumerate() {
                        let b = a + j as u64;
                        if cx.mem.store(b, std::slice::from_ref(byte)).is_err() {
                            return Err(global_fault(cx, lane, "scratch store", b, 1));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// One lane's atomic at `at` (an op [`atomic_ops::shared`] let through); returns the old value.
/// `bytes` is 4 or 8.
pub fn atomic(
    cx: &mut Cx,
    lane: usize,
    at: Addr,
    op: Atomic,
    data: u64,
    data2: u64,
    bytes: usize,
) -> Result<u64, Fault> {
    rmw(cx, lane, at, bytes, |old| {
        atomic_ops::apply(op, old, data, data2, 8 * bytes as u32).unwrap_or(old)
    })
}

/// One lane's read-modify-write of `bytes` (4 or 8) at `at`: MEM = new(MEM); returns the old
/// value. The sanitizers see it as one atomic access.
pub fn rmw(
    cx: &mut Cx,
    lane: usize,
    at: Addr,
    bytes: usize,
    mut new: impl FnMut(u64) -> u64,
) -> Result<u64, Fault> {
    let mut buf = [0u8; 8];
    if cx.mem.checking() {
        let (addr, lds) = match at {
            Addr::Global(a) => (a, false),
            Addr::Lds(a) => (a as u64, true),
            Addr::Private(o) => (o as u64, false),
        };
        if super::check_global::misaligned_atomic(cx, lane, addr, bytes, lds) {
            return Ok(0);
        }
        if checked_load(cx, lane, at, &mut buf[..bytes], Access::Atomic) {
            let old = u64::from_le_bytes(buf);
            checked_store(
                cx,
                lane,
                at,
                &new(old).to_le_bytes()[..bytes],
                Access::Atomic,
            );
            return Ok(old);
        }
    }
    // Global memory is shared by the workgroups running on other threads: one host atomic.
    if let Addr::Global(a) = at {
        return cx
            .mem
            .rmw(a, bytes, &mut new)
            .map_err(|_| global_fault(cx, lane, "atomic", a, bytes));
    }
    load_unchecked(cx, lane, at, &mut buf[..bytes])?;
    let old = u64::from_le_bytes(buf);
    store_unchecked(cx, lane, at, &new(old).to_le_bytes()[..bytes])?;
    Ok(old)
}
