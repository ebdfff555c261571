//! Where a memory instruction reaches device memory, worked out as it issues, for the timing
//! model's memory system ([`crate::memsys`]): the active lanes' addresses of a vector access,
//! the address and size of a scalar load. The access itself runs later, between windows, on a
//! copy of the registers it reads now, so both see the same addresses.

use super::Cx;
use crate::exec::program::Decoded;
use gcn_isa::{Format, MemKind};

/// What a vector memory instruction does, as the memory system needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorAccess {
    /// Bytes per lane.
    pub bytes: u32,
    pub kind: MemKind,
    /// The GLC bit: a load that bypasses the vector L1.
    pub glc: bool,
    /// The active lanes as a row, when they make one (and none were listed).
    pub row: Option<crate::memsys::Row>,
}

/// The access of a FLAT, GLOBAL, SCRATCH, MUBUF or MTBUF instruction, with its active lanes'
/// device-memory addresses appended to `out` (lanes that reach the LDS, and buffer lanes out
/// of range, are left out), or, for a FLAT or GLOBAL row, told by its ends in
/// [`VectorAccess::row`]. `None` for other instructions and for cache controls, which move no
/// data.
pub fn vector(cx: &Cx, d: &Decoded, out: &mut Vec<(usize, u64)>) -> Option<VectorAccess> {
    let info = d.inst.info();
    let kind = info.facts.mem.filter(|k| *k != MemKind::Other)?;
    let bytes = match (info.facts.bytes, info.facts.comps) {
        (0, 0) => 4,
        (0, c) => 4 * c as u32,
        (b, _) => b as u32,
    };
    let mut row = None;
    let glc = match info.format {
        Format::Flat | Format::Global | Format::Scratch => {
            row = super::flat::timing_row(cx, d, bytes);
            if row.is_none() {
                super::flat::timing_lanes(cx, d, out);
            }
            d.inst.bits(0, 16, 1) != 0
        }
        Format::Mubuf | Format::Mtbuf => {
            super::mubuf::timing_lanes(cx, d, bytes as u64, out);
            d.inst.bits(0, 14, 1) != 0
        }
        _ => return None,
    };
    Some(VectorAccess {
        bytes,
        kind,
        glc,
        row,
    })
}

/// The device-memory address and size of a scalar load (`s_load_*`, `s_buffer_load_*`).
pub fn scalar(cx: &Cx, d: &Decoded) -> Option<(u64, u32)> {
    super::smem::timing_address(cx, d)
}
