//! What an atomic leaves in memory: the read-modify-write of each table [`Atomic`] that the DS,
//! buffer, flat/global and scalar atomics share. The ones with a path of their own (the DS float
//! compare-store and wrap, ds_condxchg32) are not done here.

use super::{bf16, f16, fp};
use gcn_isa::Atomic;

/// The new memory value from the old one, the data and the second operand (comparand of
/// CmpSwap, DATA2 of MskOr). Widths up to 64 bits; `bits` is 32 or 64; the float ops are f32 or
/// (gfx90a's `*_f64` atomics) f64 by width, rounding to nearest even with denormals kept, and the
/// packed adds (`*_pk_add_f16`, gfx940's `*_pk_add_bf16`) add each f16 or bf16 half the same way.
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
    let float = |f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64| {
        if bits == 64 {
            f64op(f64::from_bits(old), f64::from_bits(data)).to_bits()
        } else {
            f32op(f32::from_bits(old as u32), f32::from_bits(data as u32)).to_bits() as u64
        }
    };
    // An f16 sum computed in f32 and rounded once to f16 is the correctly rounded f16 sum
    // (f32's 24 bits are at least twice f16's 11, plus 2).
    let add_f16 = |a: u64, b: u64| {
        let (a, b) = (f16::f16_to_f32(a as u16), f16::f16_to_f32(b as u16));
        f16::f32_to_f16(a + b) as u64
    };
    // The same holds for bf16's 8 bits.
    let add_bf16 = |a: u64, b: u64| {
        let (a, b) = (bf16::bf16_to_f32(a as u16), bf16::bf16_to_f32(b as u16));
        bf16::f32_to_bf16(a + b) as u64
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
        Atomic::FAdd => float(|a, b| a + b, |a, b| a + b),
        Atomic::FMin => float(fp::min_f32, fp::min_f64),
        Atomic::FMax => float(fp::max_f32, fp::max_f64),
        Atomic::PkFAdd => add_f16(old, data) | add_f16(old >> 16, data >> 16) << 16,
        Atomic::PkFAddBf16 => add_bf16(old, data) | add_bf16(old >> 16, data >> 16) << 16,
        Atomic::FCmpSwap | Atomic::Wrap | Atomic::CondXchg => return None,
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
        for op in [FCmpSwap, Wrap, CondXchg] {
            assert_eq!(apply(op, 1, 2, 3, 32), None, "{op:?}");
            assert_eq!(super::shared(op), None, "{op:?}");
        }
        assert_eq!(super::shared(FAdd), Some(FAdd));
    }

    #[test]
    fn float_atomics_by_width() {
        let (one, half) = (1.0f64.to_bits(), 0.5f64.to_bits());
        assert_eq!(apply(FAdd, one, half, 0, 64), Some(1.5f64.to_bits()));
        assert_eq!(apply(FMin, one, half, 0, 64), Some(half));
        assert_eq!(apply(FMax, one, f64::NAN.to_bits(), 0, 64), Some(one));
        let (one, half) = (1.0f32.to_bits() as u64, 0.5f32.to_bits() as u64);
        assert_eq!(apply(FAdd, one, half, 0, 32), Some(1.5f32.to_bits() as u64));
        // f16 halves: 1.0 + 0.5 = 1.5 (0x3e00) low, 2.0 + -2.0 = 0 high; 65504 + 8 rounds back
        // to 65504, and 65504 + 16, halfway to 65536, rounds to the even side: infinity
        assert_eq!(
            apply(PkFAdd, 0x4000_3c00, 0xc000_3800, 0, 32),
            Some(0x0000_3e00)
        );
        assert_eq!(apply(PkFAdd, 0x7bff, 0x4800, 0, 32), Some(0x7bff));
        assert_eq!(apply(PkFAdd, 0x7bff, 0x4c00, 0, 32), Some(0x7c00));
        // bf16 halves: 1.0 + 0.5 = 1.5 (0x3fc0) low; 256 + 1 (a tie at bf16's 8 bits) rounds to
        // even, 256, high; 256 + 3 rounds up to 260 (0x4382).
        assert_eq!(
            apply(PkFAddBf16, 0x4380_3f80, 0x3f80_3f00, 0, 32),
            Some(0x4380_3fc0)
        );
        assert_eq!(apply(PkFAddBf16, 0x4380, 0x4040, 0, 32), Some(0x4382));
    }
}
