//! Per-lane memory access shared by DS, FLAT/GLOBAL/SCRATCH and MUBUF: global memory, the
//! workgroup's LDS, and the lane's private segment (swizzled in scratch backing memory), plus the
//! atomic read-modify-write operations.

use super::{Cx, Fault};
use crate::check::{self, Access};
use gcn_isa::Atomic;

/// Where one lane's access goes.
#[derive(Clone, Copy, Debug)]
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
    flat_scratch + (offset as u64 / 4) * 256 + lane as u64 * 4 + (offset as u64 % 4)
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
        Addr::Global(a) => check::global::load(cx, lane, a, out, access),
        Addr::Lds(a) => match cx.lds.bytes(a, out.len()) {
            Some(b) => {
                out.copy_from_slice(b);
                check::lds::access(cx, lane, a, out.len(), access);
                true
            }
            None => {
                out.fill(0);
                check::lds::outside(cx, lane, a, out.len(), access)
            }
        },
        Addr::Private(o) => {
            let outside = private_check(cx, lane, o, out.len()).is_err();
            outside && {
                out.fill(0);
                check::global::private_outside(cx, lane, o, out.len(), access)
            }
        }
    }
}

/// The sanitizers' view of a store; as [`checked_load`]. The write half of an atomic was checked
/// with its read.
#[cold]
fn checked_store(cx: &mut Cx, lane: usize, at: Addr, data: &[u8], access: Access) -> bool {
    match at {
        Addr::Global(a) => check::global::store(cx, lane, a, data, access),
        Addr::Lds(a) => match cx.lds.bytes_mut(a, data.len()) {
            Some(b) => {
                b.copy_from_slice(data);
                if access != Access::Atomic {
                    check::lds::access(cx, lane, a, data.len(), access);
                }
                true
            }
            None => check::lds::outside(cx, lane, a, data.len(), access),
        },
        Addr::Private(o) => {
            private_check(cx, lane, o, data.len()).is_err()
                && check::global::private_outside(cx, lane, o, data.len(), access)
        }
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
            out.copy_from_slice(b);
        }
        Addr::Private(o) => {
            private_check(cx, lane, o, out.len())?;
            let fs = cx.wave.flat_scratch();
            for (i, byte) in out.iter_mut().enumerate() {
                let a = private_address(fs, o + i as u32, lane);
                cx.mem
                    .load(a, std::slice::from_mut(byte))
                    .map_err(|_| global_fault(cx, lane, "scratch load", a, 1))?;
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
            Some(b) => b.copy_from_slice(data),
            None => return Err(lds_fault(cx, lane, "store", a, data.len())),
        },
        Addr::Private(o) => {
            private_check(cx, lane, o, data.len())?;
            let fs = cx.wave.flat_scratch();
            for (i, byte) in data.iter().enumerate() {
                let a = private_address(fs, o + i as u32, lane);
                if cx.mem.store(a, std::slice::from_ref(byte)).is_err() {
                    return Err(global_fault(cx, lane, "scratch store", a, 1));
                }
            }
        }
    }
    Ok(())
}

/// Atomic operations (the `<op>` of `*_atomic_<op>` / `ds_<op>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Swap,
    /// Compare and swap; `cmp` holds the comparand.
    CmpSwap,
    Add,
    Sub,
    /// DS only: MEM = DATA - MEM.
    Rsub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
    /// MEM = MEM >= DATA ? 0 : MEM + 1.
    Inc,
    /// MEM = (MEM == 0 || MEM > DATA) ? DATA : MEM - 1.
    Dec,
    /// DS only: MEM = (MEM & ~DATA) | DATA2.
    MskOr,
    AddF32,
    MinF32,
    MaxF32,
}

impl AtomicOp {
    /// The operation of a table [`Atomic`]; `None` for the DS-only float compare, wrap and
    /// conditional exchange, which have their own paths.
    pub fn of(a: Atomic) -> Option<AtomicOp> {
        Some(match a {
            Atomic::Swap => AtomicOp::Swap,
            Atomic::CmpSwap => AtomicOp::CmpSwap,
            Atomic::Add => AtomicOp::Add,
            Atomic::Sub => AtomicOp::Sub,
            Atomic::Rsub => AtomicOp::Rsub,
            Atomic::Smin => AtomicOp::Smin,
            Atomic::Umin => AtomicOp::Umin,
            Atomic::Smax => AtomicOp::Smax,
            Atomic::Umax => AtomicOp::Umax,
            Atomic::And => AtomicOp::And,
            Atomic::Or => AtomicOp::Or,
            Atomic::Xor => AtomicOp::Xor,
            Atomic::Inc => AtomicOp::Inc,
            Atomic::Dec => AtomicOp::Dec,
            Atomic::MskOr => AtomicOp::MskOr,
            Atomic::FAdd => AtomicOp::AddF32,
            Atomic::FMin => AtomicOp::MinF32,
            Atomic::FMax => AtomicOp::MaxF32,
            Atomic::FCmpSwap | Atomic::Wrap | Atomic::CondXchg | Atomic::PkFAdd => return None,
        })
    }

    /// Parses the op part of a mnemonic (`add`, `smin`/`min_i32`, `cmpswap`/`cmpst`...).
    pub fn parse(op: &str) -> Option<AtomicOp> {
        Some(match op {
            "swap" | "wrxchg" => AtomicOp::Swap,
            "cmpswap" | "cmpst" => AtomicOp::CmpSwap,
            "add" => AtomicOp::Add,
            "sub" => AtomicOp::Sub,
            "rsub" => AtomicOp::Rsub,
            "smin" | "min_i32" | "min_i64" => AtomicOp::Smin,
            "umin" | "min_u32" | "min_u64" => AtomicOp::Umin,
            "smax" | "max_i32" | "max_i64" => AtomicOp::Smax,
            "umax" | "max_u32" | "max_u64" => AtomicOp::Umax,
            "and" => AtomicOp::And,
            "or" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            "inc" => AtomicOp::Inc,
            "dec" => AtomicOp::Dec,
            "mskor" => AtomicOp::MskOr,
            "add_f32" => AtomicOp::AddF32,
            "min_f32" => AtomicOp::MinF32,
            "max_f32" => AtomicOp::MaxF32,
            _ => return None,
        })
    }

    /// The new memory value from the old one, the data and the second operand (comparand of
    /// CmpSwap, DATA2 of MskOr). Widths up to 64 bits; `bits` is 32 or 64.
    pub fn apply(self, old: u64, data: u64, data2: u64, bits: u32) -> u64 {
        let mask = if bits == 64 { !0 } else { (1u64 << bits) - 1 };
        let sx = |v: u64| {
            if bits == 64 {
                v as i64
            } else {
                v as u32 as i32 as i64
            }
        };
        let r = match self {
            AtomicOp::Swap => data,
            AtomicOp::CmpSwap => {
                if old == data2 {
                    data
                } else {
                    old
                }
            }
            AtomicOp::Add => old.wrapping_add(data),
            AtomicOp::Sub => old.wrapping_sub(data),
            AtomicOp::Rsub => data.wrapping_sub(old),
            AtomicOp::Smin => sx(old).min(sx(data)) as u64,
            AtomicOp::Umin => old.min(data),
            AtomicOp::Smax => sx(old).max(sx(data)) as u64,
            AtomicOp::Umax => old.max(data),
            AtomicOp::And => old & data,
            AtomicOp::Or => old | data,
            AtomicOp::Xor => old ^ data,
            AtomicOp::Inc => {
                if old >= data {
                    0
                } else {
                    old + 1
                }
            }
            AtomicOp::Dec => {
                if old == 0 || old > data {
                    data
                } else {
                    old - 1
                }
            }
            AtomicOp::MskOr => (old & !data) | data2,
            AtomicOp::AddF32 => {
                (f32::from_bits(old as u32) + f32::from_bits(data as u32)).to_bits() as u64
            }
            AtomicOp::MinF32 => {
                super::fp::min_f32(f32::from_bits(old as u32), f32::from_bits(data as u32))
                    .to_bits() as u64
            }
            AtomicOp::MaxF32 => {
                super::fp::max_f32(f32::from_bits(old as u32), f32::from_bits(data as u32))
                    .to_bits() as u64
            }
        };
        r & mask
    }
}

/// One lane's atomic at `at`; returns the old value. `bytes` is 4 or 8.
pub fn atomic(
    cx: &mut Cx,
    lane: usize,
    at: Addr,
    op: AtomicOp,
    data: u64,
    data2: u64,
    bytes: usize,
) -> Result<u64, Fault> {
    rmw(cx, lane, at, bytes, |old| {
        op.apply(old, data, data2, 8 * bytes as u32)
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
        if check::global::misaligned_atomic(cx, lane, addr, bytes, lds) {
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

#[cfg(test)]
mod tests {
    use super::AtomicOp::*;

    #[test]
    fn atomic_edges() {
        assert_eq!(Add.apply(0xffff_ffff, 1, 0, 32), 0);
        assert_eq!(Smin.apply(5, 0xffff_ffff, 0, 32), 0xffff_ffff);
        assert_eq!(Umin.apply(5, 0xffff_ffff, 0, 32), 5);
        assert_eq!(Inc.apply(7, 7, 0, 32), 0);
        assert_eq!(Inc.apply(6, 7, 0, 32), 7);
        assert_eq!(Dec.apply(0, 9, 0, 32), 9);
        assert_eq!(Dec.apply(10, 9, 0, 32), 9);
        assert_eq!(Dec.apply(3, 9, 0, 32), 2);
        assert_eq!(CmpSwap.apply(4, 9, 4, 32), 9);
        assert_eq!(CmpSwap.apply(5, 9, 4, 32), 5);
        assert_eq!(MskOr.apply(0xff, 0x0f, 0x100, 32), 0x1f0);
        assert_eq!(Smax.apply(u64::MAX, 1, 0, 64), 1);
        assert_eq!(Rsub.apply(3, 10, 0, 32), 7);
    }
}
