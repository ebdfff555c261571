//! Memory instructions of table rows, as assembly text whose addresses stay in the regions the
//! lane may touch ([`super::layout`]): loads anywhere in the input, stores and atomics in the
//! lane's own output slot, non-returning commutative atomics in the atomics area of their kind,
//! LDS in the lane's own slot or, between barriers, the shared area (written in one phase to the
//! lane's own dword, read by anyone in the next). An address made from a register is masked
//! into the region by the instructions before it.

use super::layout::{reg, ATOMIC_AREA, IN, LDS_SHARED, LDS_SLOT, SLOT};
use super::operand::{sgprs, vgpr_dst, vgpr_src};
use super::pending::Counter;
use arbitrary::{Result, Unstructured};
use gcn_isa::{Atomic, Field, Format, MemKind, OpInfo, Slot, Target};

/// A memory instruction and the address arithmetic before it.
pub struct MemoryText {
    pub setup: Vec<String>,
    pub text: String,
    pub counter: Counter,
}

/// What the shared LDS area is for until the next barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LdsPhase {
    /// Each lane may write its own dword.
    Write,
    /// Anyone may read any dword of the workgroup's lanes.
    Read,
}

/// An offset in `0..=max` that is a multiple of `align`.
fn offset(u: &mut Unstructured, max: u32, align: u32) -> Result<u32> {
    Ok(u.int_in_range(0..=max / align)? * align)
}

/// A register of earlier results, to make an address from.
fn any_vgpr(u: &mut Unstructured) -> Result<String> {
    vgpr_src(u, 1, false)
}

/// The width of a row's data operand (`vdata`, `data0` or `vdst`), in dwords.
fn data_dwords(op: &OpInfo, fields: &[Field]) -> u32 {
    op.operands
        .iter()
        .find_map(|s| match s {
            Slot::Reg { field, dwords, .. } if fields.contains(field) => Some(*dwords as u32),
            _ => None,
        })
        .unwrap_or(1)
}

/// The commutative atomics (their final value does not depend on the order lanes apply them,
/// so lanes of every wave may share an address) and their area's index.
fn shared_area(atomic: Atomic, bytes: u8) -> Option<u32> {
    let kind = match atomic {
        Atomic::Add => 0,
        Atomic::Sub => 1,
        Atomic::Smin => 2,
        Atomic::Umin => 3,
        Atomic::Smax => 4,
        Atomic::Umax => 5,
        Atomic::And => 6,
        Atomic::Or => 7,
        Atomic::Xor => 8,
        _ => return None,
    };
    Some(kind * 2 + (bytes == 8) as u32)
}

/// A GLOBAL, FLAT or MUBUF load, store or atomic.
pub fn vmem_text(u: &mut Unstructured, target: Target, op: &OpInfo) -> Result<MemoryText> {
    let aligned = target.features().gfx90a_insts;
    let bytes = op.facts.bytes as u32;
    let kind = op.facts.mem.unwrap_or(MemKind::Load);
    let counter = if op.format == Format::Flat {
        Counter::Both
    } else {
        Counter::Vm
    };
    let data = data_dwords(op, &[Field::Vdata]);
    let mut setup = Vec::new();
    let name = op.name;
    let text = match kind {
        MemKind::Load => {
            let dst = vgpr_dst(u, data_dwords(op, &[Field::Vdst, Field::Vdata]), aligned)?;
            let off = offset(u, 0xff0, bytes.min(4))?;
            let dynamic = u.ratio(1, 3)?;
            if dynamic {
                setup.push(format!(
                    "v_and_b32 {}, 0xffc, {}",
                    reg::ADDRESS,
                    any_vgpr(u)?
                ));
            }
            let lane = if dynamic { reg::ADDRESS } else { reg::IN_LANE };
            match op.format {
                Format::Flat => format!("{name} {dst}, {} offset:{off}", reg::IN_FLAT),
                Format::Mubuf => {
                    format!(
                        "{name} {dst}, {lane}, {}, 0 offen offset:{off}",
                        reg::IN_RSRC
                    )
                }
                _ if !dynamic && u.ratio(1, 3)? => {
                    format!("{name} {dst}, {}, off offset:{off}", reg::IN_FLAT)
                }
                _ => format!("{name} {dst}, {lane}, {} offset:{off}", reg::IN_BASE),
            }
        }
        MemKind::Store => {
            let src = vgpr_src(u, data, aligned)?;
            let dynamic = bytes <= 16 && op.format != Format::Flat && u.ratio(1, 3)?;
            if dynamic {
                setup.push(format!("v_and_b32 {}, 12, {}", reg::ADDRESS, any_vgpr(u)?));
                setup.push(format!(
                    "v_add_u32 {0}, {1}, {0}",
                    reg::ADDRESS,
                    reg::OUT_SLOT
                ));
            }
            let off = offset(u, if dynamic { 16 } else { SLOT } - bytes, bytes.min(4))?;
            let lane = if dynamic { reg::ADDRESS } else { reg::OUT_SLOT };
            match op.format {
                Format::Flat => format!("{name} {}, {src} offset:{off}", reg::OUT_FLAT),
                Format::Mubuf => {
                    format!(
                        "{name} {src}, {lane}, {}, 0 offen offset:{off}",
                        reg::OUT_RSRC
                    )
                }
                _ if !dynamic && u.ratio(1, 3)? => {
                    format!("{name} {}, {src}, off offset:{off}", reg::OUT_FLAT)
                }
                _ => format!("{name} {lane}, {src}, {} offset:{off}", reg::OUT_BASE),
            }
        }
        MemKind::Atomic | MemKind::AtomicReturn => {
            let atomic = op.facts.atomic.unwrap_or(Atomic::Swap);
            let area = shared_area(atomic, op.facts.bytes);
            // gfx908's float atomics in memory return nothing.
            let returns = !(target == Target::Gfx908
                && matches!(atomic, Atomic::FAdd | Atomic::PkFAdd))
                && u.ratio(1, 2)?;
            match area {
                Some(area) if !returns && op.format == Format::Global && u.ratio(1, 2)? => {
                    setup.push(format!(
                        "v_and_b32 {}, 0x38, {}",
                        reg::ADDRESS,
                        any_vgpr(u)?
                    ));
                    let src = vgpr_src(u, data, aligned)?;
                    format!(
                        "{name} {}, {src}, {} offset:{}",
                        reg::ADDRESS,
                        reg::ATOMIC_BASE,
                        area * ATOMIC_AREA
                    )
                }
                _ => {
                    let off = offset(u, SLOT - bytes, bytes)?;
                    let glc = if returns { " glc" } else { "" };
                    let ret = vgpr_dst(u, bytes / 4, aligned)?;
                    match op.format {
                        Format::Mubuf => {
                            // The returned value lands in vdata, so vdata must be free.
                            let data = vgpr_dst(u, data, aligned)?;
                            format!(
                                "{name} {data}, {}, {}, 0 offen offset:{off}{glc}",
                                reg::OUT_SLOT,
                                reg::OUT_RSRC
                            )
                        }
                        Format::Flat => {
                            let src = vgpr_src(u, data, aligned)?;
                            let ret = if returns {
                                format!("{ret}, ")
                            } else {
                                String::new()
                            };
                            format!("{name} {ret}{}, {src} offset:{off}{glc}", reg::OUT_FLAT)
                        }
                        _ => {
                            let src = vgpr_src(u, data, aligned)?;
                            let ret = if returns {
                                format!("{ret}, ")
                            } else {
                                String::new()
                            };
                            format!(
                                "{name} {ret}{}, {src}, {} offset:{off}{glc}",
                                reg::OUT_SLOT,
                                reg::OUT_BASE
                            )
                        }
                    }
                }
            }
        }
        MemKind::Other => name.to_string(),
    };
    let cache = if matches!(kind, MemKind::Load | MemKind::Store) && u.ratio(1, 6)? {
        " slc"
    } else {
        ""
    };
    Ok(MemoryText {
        setup,
        text: text + cache,
        counter,
    })
}

/// A scalar load from the input (through its address or its buffer resource).
pub fn smem_text(u: &mut Unstructured, op: &OpInfo) -> Result<MemoryText> {
    let dwords = data_dwords(op, &[Field::Sdata]);
    let dst = sgprs(u, super::layout::SGPR_FREE, dwords)?;
    // s_buffer_load takes a buffer resource (four SGPRs) where s_load takes an address.
    let resource = op.operands.iter().any(|s| {
        matches!(
            s,
            Slot::Reg {
                field: Field::Sbase,
                dwords: 4,
                ..
            }
        )
    });
    let base = if resource { reg::IN_RSRC } else { reg::IN_BASE };
    let off = offset(u, IN.1 as u32 - 64, 4)?;
    Ok(MemoryText {
        setup: Vec::new(),
        text: format!("{} {dst}, {base}, {off:#x}", op.name),
        counter: Counter::Smem,
    })
}

/// An LDS load, store or atomic on the lane's own slot, or on the shared area as `phase`
/// allows.
pub fn ds_text(
    u: &mut Unstructured,
    target: Target,
    op: &OpInfo,
    phase: LdsPhase,
    lanes: u32,
) -> Result<MemoryText> {
    let aligned = target.features().gfx90a_insts;
    let bytes = op.facts.bytes as u32;
    let kind = op.facts.mem.unwrap_or(MemKind::Load);
    let mut setup = Vec::new();
    let single = !op.facts.dual && bytes <= 4;
    let (address, offsets) =
        if single && kind == MemKind::Load && phase == LdsPhase::Read && u.ratio(1, 2)? {
            let mask = (lanes * 4 - 1) & !3;
            setup.push(format!(
                "v_and_b32 {}, {mask:#x}, {}",
                reg::ADDRESS,
                any_vgpr(u)?
            ));
            let off = LDS_SHARED + offset(u, 3, bytes)?;
            (reg::ADDRESS, format!(" offset:{off}"))
        } else if single && kind == MemKind::Store && phase == LdsPhase::Write && u.ratio(1, 2)? {
            let off = offset(u, 4 - bytes, bytes)?;
            (reg::LDS_SHARED_OWN, format!(" offset:{off}"))
        } else if op.facts.dual {
            let last = LDS_SLOT / bytes - 1;
            let a = u.int_in_range(0..=last)?;
            let b = u.int_in_range(0..=last)?;
            (reg::LDS_OWN, format!(" offset0:{a} offset1:{b}"))
        } else {
            let off = offset(u, LDS_SLOT - bytes, bytes)?;
            (reg::LDS_OWN, format!(" offset:{off}"))
        };
    let mut operands = Vec::new();
    for slot in op.operands {
        if let Slot::Reg { field, dwords, .. } = *slot {
            operands.push(match field {
                Field::Vdst => vgpr_dst(u, dwords as u32, aligned)?,
                Field::Addr => address.to_string(),
                _ => vgpr_src(u, dwords as u32, aligned)?,
            });
        }
    }
    Ok(MemoryText {
        setup,
        text: format!("{} {}{offsets}", op.name, operands.join(", ")),
        counter: Counter::Lgkm,
    })
}

/// ds_swizzle, ds_permute, ds_bpermute: any lane's register, no LDS memory.
pub fn ds_cross_text(u: &mut Unstructured, target: Target, op: &OpInfo) -> Result<MemoryText> {
    let aligned = target.features().gfx90a_insts;
    let mut operands = Vec::new();
    for slot in op.operands {
        if let Slot::Reg { field, dwords, .. } = *slot {
            operands.push(match field {
                Field::Vdst => vgpr_dst(u, dwords as u32, aligned)?,
                _ => vgpr_src(u, dwords as u32, aligned)?,
            });
        }
    }
    let off = if op.name.contains("swizzle") {
        format!(" offset:{:#x}", u.arbitrary::<u16>()?)
    } else {
        String::new()
    };
    Ok(MemoryText {
        setup: Vec::new(),
        text: format!("{} {}{off}", op.name, operands.join(", ")),
        counter: Counter::Lgkm,
    })
}
