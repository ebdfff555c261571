//! The data-moving ops that FLAT/GLOBAL/SCRATCH and MUBUF share, named by the same suffixes
//! (`load_ubyte`, `store_dwordx4`, `load_short_d16_hi`...): one table maps a suffix to its width,
//! sign extension and d16 half; each format supplies how it addresses memory.

use super::valu::Res;
use super::ExecFn;
use crate::program::Decoded;

use super::Cx;

/// A vector-memory format's loads and stores of `bytes` per lane.
pub trait VectorMemory {
    fn load(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool) -> Res;
    /// A 16-bit result into the low or (`hi`) high half of the VGPR, keeping the other half.
    fn load_d16(cx: &mut Cx, d: &Decoded, bytes: usize, signed: bool, hi: bool) -> Res;
    fn store(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res;
    /// Stores the high 16 bits of the data VGPR.
    fn store_d16_hi(cx: &mut Cx, d: &Decoded, bytes: usize) -> Res;
}

/// The semantic function of a load/store suffix, for format `T`.
pub fn resolve<T: VectorMemory>(op: &str) -> Option<ExecFn> {
    Some(match op {
        "load_ubyte" => |cx, d| T::load(cx, d, 1, false),
        "load_sbyte" => |cx, d| T::load(cx, d, 1, true),
        "load_ushort" => |cx, d| T::load(cx, d, 2, false),
        "load_sshort" => |cx, d| T::load(cx, d, 2, true),
        "load_dword" => |cx, d| T::load(cx, d, 4, false),
        "load_dwordx2" => |cx, d| T::load(cx, d, 8, false),
        "load_dwordx3" => |cx, d| T::load(cx, d, 12, false),
        "load_dwordx4" => |cx, d| T::load(cx, d, 16, false),
        "store_byte" => |cx, d| T::store(cx, d, 1),
        "store_short" => |cx, d| T::store(cx, d, 2),
        "store_dword" => |cx, d| T::store(cx, d, 4),
        "store_dwordx2" => |cx, d| T::store(cx, d, 8),
        "store_dwordx3" => |cx, d| T::store(cx, d, 12),
        "store_dwordx4" => |cx, d| T::store(cx, d, 16),
        "load_ubyte_d16" => |cx, d| T::load_d16(cx, d, 1, false, false),
        "load_ubyte_d16_hi" => |cx, d| T::load_d16(cx, d, 1, false, true),
        "load_sbyte_d16" => |cx, d| T::load_d16(cx, d, 1, true, false),
        "load_sbyte_d16_hi" => |cx, d| T::load_d16(cx, d, 1, true, true),
        "load_short_d16" => |cx, d| T::load_d16(cx, d, 2, false, false),
        "load_short_d16_hi" => |cx, d| T::load_d16(cx, d, 2, false, true),
        "store_byte_d16_hi" => |cx, d| T::store_d16_hi(cx, d, 1),
        "store_short_d16_hi" => |cx, d| T::store_d16_hi(cx, d, 2),
        _ => return None,
    })
}
