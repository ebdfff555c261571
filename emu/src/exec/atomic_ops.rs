//! What an atomic leaves in memory: the read-modify-write of each table [`Atomic`] that the DS,
//! buffer, flat/global and scalar atomics share. The ones with a path of their own (the DS float
//! compare-store and wrap, ds_condxchg32, the gfx908 packed f16 add) are not done here.

use super::fp;
use gcn_isa::Atomic;

/// The new memory value from the old one, the data and the second operand (comparand of
/// CmpSwap, DATA2 of MskOr). Widths up to 64 bits; `bits` is 32 or 64; the float ops are f32.
/// `None` for the ops with their own paths: callers pick their op through [`shared`] before any
/// lane runs, so a lane never meets one.
pub fn apply(op: Atomic, old: u64, data: u64, data2: u64, bits: u32) -> Option<u64> {
    let mask = if bits == 64 { !0 } else { (1u64 << bits) - 1 };
    let sx = |v: u64| {
        if bits == 64 {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let f32op = |f: fn(f32, f32) -> f32| {
        f(f32::from_bits(old as u32), f32::from_bits(data as u32)).to_bits() as u64
    };
    let r = match op {
        Atomic::Swap => data,
        Atomic::CmpSwap => {
            if old == data2 {
                data
            } else {
                old
            }
        }
        Atomic::Add => old.wrapping_add(data),
        Atomic::Sub => old.wrapping_sub(data),
        Atomic::Rsub => data.wrapping_sub(old),
        Atomic::Smin => sx(old).min(sx(data)) as u64,
        Atomic::Umin => old.min(data),
        Atomic::Smax => sx(old).max(sx(data)) as u64,
        Atomic::Umax => old.max(data),
        Atomic::And => old & data,
        Atomic::Or => old | data,
        Atomic::Xor => old ^ data,
        Atomic::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        Atomic::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        Atomic::MskOr => (old & !data) | data2,
        Atomic::FAdd => f32op(|a, b| a + b),
        Atomic::FMin => f32op(fp::min_f32),
        Atomic::FMax => f32op(fp::max_f32),
        Atomic::FCmpSwap | Atomic::Wrap | Atomic::CondXchg | Atomic::PkFAdd => return None,
    };
    Some(r & mask)
}

/// `op` when [`apply`] does it; `None` for the ops with their own paths.
pub fn shared(op: Atomic) -> Option<Atomic> {
    apply(op, 0, 0, 0, 32).map(|_| op)
}

#[cfg(test)]
mod tests {
    use super::apply;
    use gcn_isa::Atomic::*;

    #[test]
    fn atomic_edges() {
        assert_eq!(apply(Add, 0xffff_ffff, 1, 0, 32), Some(0));
        assert_eq!(apply(Smin, 5, 0xffff_ffff, 0, 32), Some(0xffff_ffff));
        assert_eq!(apply(Umin, 5, 0xffff_ffff, 0, 32), Some(5));
        assert_eq!(apply(Inc, 7, 7, 0, 32), Some(0));
        assert_eq!(apply(Inc, 6, 7, 0, 32), Some(7));
        assert_eq!(apply(Dec, 0, 9, 0, 32), Some(9));
        assert_eq!(apply(Dec, 10, 9, 0, 32), Some(9));
        assert_eq!(apply(Dec, 3, 9, 0, 32), Some(2));
        assert_eq!(apply(CmpSwap, 4, 9, 4, 32), Some(9));
        assert_eq!(apply(CmpSwap, 5, 9, 4, 32), Some(5));
        assert_eq!(apply(MskOr, 0xff, 0x0f, 0x100, 32), Some(0x1f0));
        assert_eq!(apply(Smax, u64::MAX, 1, 0, 64), Some(1));
        assert_eq!(apply(Rsub, 3, 10, 0, 32), Some(7));
    }

    #[test]
    fn own_paths_are_not_shared() {
        for op in [FCmpSwap, Wrap, CondXchg, PkFAdd] {
            assert_eq!(apply(op, 1, 2, 3, 32), None, "{op:?}");
            assert_eq!(super::shared(op), None, "{op:?}");
        }
        assert_eq!(super::shared(FAdd), Some(FAdd));
    }
}
