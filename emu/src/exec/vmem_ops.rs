//! The data-moving ops that FLAT/GLOBAL/SCRATCH and MUBUF share (`load_ubyte`, `store_dwordx4`,
//! `load_short_d16_hi`, `atomic_add_x2`...): their width, sign extension, d16 half and atomic
//! operation are table facts; each format supplies how it addresses memory.

use super::atomic_ops;
use super::valu::Res;
use super::Fault;
use crate::exec::program::Decoded;
use gcn_isa::{Atomic, D16};

use super::Cx;

/// A vector-memory format's loads and stores of `bytes` per lane.
pub trait VectorMemory {
    fn load(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool) -> Res;
    /// A 16-bit result into the low or (`hi`) high half of the VGPR, keeping the other half.
    fn load_d16(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool, hi: bool) -> Res;
    fn store(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res;
    /// Stores the high 16 bits of the data VGPR.
    fn store_d16_hi(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res;
    /// An atomic of `bytes` (4 or 8); glc returns the old value.
    fn atomic(cx: &mut Cx, d: &Decoded, op: Atomic, bytes: usize) -> Res;
}

/// A load shaped by the op's table facts: width, sign extension, d16 half.
pub fn load<T: VectorMemory>(cx: &mut Cx, d: &Decoded) -> Res {
    let f = &d.inst.info().facts;
    let bytes = f.bytes as usize;
    match f.d16 {
        D16::Lo => T::load_d16(cx, d, bytes, f.sext, false),
        D16::Hi => T::load_d16(cx, d, bytes, f.sext, true),
        D16::No | D16::Packed => T::load(cx, d, bytes, f.sext),
    }
}

/// A store shaped by the op's table facts: width, and whether it stores the high half.
pub fn store<T: VectorMemory>(cx: &mut Cx, d: &Decoded) -> Res {
    let f = &d.inst.info().facts;
    match f.d16 {
        D16::Hi => T::store_d16_hi(cx, d, f.bytes as usize),
        _ => T::store(cx, d, f.bytes as usize),
    }
}

/// An atomic with the operation and width of the op's table facts.
pub fn atomic<T: VectorMemory>(cx: &mut Cx, d: &Decoded) -> Res {
    let f = &d.inst.info().facts;
    let op = f
        .atomic
        .and_then(atomic_ops::shared)
        .ok_or(Fault::Unimplemented)?;
    T::atomic(cx, d, op, f.bytes as usize)
}
