//! One scalar or vector ALU instruction of a table row, as assembly text with operands that
//! are legal for it: destinations among the free registers, at most one scalar value on a
//! vector op's constant bus (counting an implicit VCC read), literals only where gfx9 encodes
//! them (SOP and 32-bit VOP forms, one per instruction), carry and mask sources in SGPRs,
//! AGPRs where the op names them, and modifiers the row allows.

use super::layout::{SGPR_FREE, SGPR_READ};
use super::operand::{
    agprs, inline_constant, literal, scalar_src, sgpr_dst, sgprs, vgpr_dst, vgpr_src,
};
use arbitrary::{Result, Unstructured};
use gcn_isa::table::{INPUT_MODS, NO_CLAMP, NO_OMOD};
use gcn_isa::{DstUse, Field, Format, ImmClass, ImmKind, Op, OpInfo, Regs, Rounding, Slot, Target};

/// What a vector op's sources have used of the constant bus and the literal.
struct Bus {
    /// Scalar values still allowed (gfx9: one, SGPR or literal).
    scalar: u32,
    literal_ok: bool,
}

/// The text of `op` with drawn operands, or `None` for a slot this generator does not fill.
pub fn alu_text(u: &mut Unstructured, target: Target, op: &OpInfo) -> Result<Option<String>> {
    let aligned = target.features().gfx90a_insts;
    let vector = !matches!(
        op.format,
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk
    );
    let wide = matches!(op.format, Format::Vop3 | Format::Vop3p);
    let implicit_vcc = op.facts.reads.contains(Regs::VCC);
    let has_mask = op.operands.iter().any(is_mask);
    let literal_slot = op.operands.contains(&Slot::Imm(ImmKind::Literal));
    let mut bus = Bus {
        scalar: if !vector {
            2
        } else if implicit_vcc || has_mask || literal_slot {
            0
        } else {
            1
        },
        literal_ok: !wide && !literal_slot,
    };
    // gfx90a MFMA: C and D both in AGPRs or both in VGPRs (one bit says which).
    let acd_agpr = u.ratio(2, 3)?;
    let mut operands = Vec::new();
    for (i, slot) in op.operands.iter().enumerate() {
        let text = match *slot {
            Slot::Fixed(s) => s.to_string(),
            Slot::Imm(ImmKind::Simm16 | ImmKind::Uimm16) => format!("{:#x}", u.arbitrary::<u16>()?),
            Slot::Imm(ImmKind::Literal) => literal(u)?,
            Slot::Imm(_) => return Ok(None),
            Slot::Reg {
                field,
                dwords,
                class,
            } => {
                let dwords = dwords as u32;
                let only_registers = class == ImmClass::RegOnly;
                match field {
                    Field::Sdst if op.facts.dst == DstUse::Read => sgprs(u, SGPR_READ, dwords)?,
                    Field::Sdst if !vector => sgprs(u, SGPR_FREE, dwords)?,
                    Field::Sdst | Field::VdstSgpr => sgpr_dst(u, dwords)?,
                    Field::Ssrc0 | Field::Ssrc1 => {
                        scalar_src(u, dwords, only_registers, &mut bus.literal_ok)?
                    }
                    Field::Vdst => vgpr_dst(u, dwords, aligned)?,
                    Field::VdstAgpr | Field::Src0Agpr | Field::Src1Agpr | Field::Src2Agpr => {
                        agprs(u, dwords, aligned)?
                    }
                    Field::VdstAcd | Field::Src2Acd => {
                        if acd_agpr || dwords > 16 {
                            agprs(u, dwords, aligned)?
                        } else {
                            vgpr_dst(u, dwords, aligned)?
                        }
                    }
                    Field::Src0Acc | Field::Src1Acc | Field::Vsrc1 => vgpr_src(u, dwords, aligned)?,
                    Field::Src2 if is_mask(slot) => {
                        if u.ratio(1, 3)? {
                            "vcc".into()
                        } else {
                            sgprs(u, SGPR_READ, 2)?
                        }
                    }
                    Field::Src0 | Field::Src1 | Field::Src2 => {
                        let lane_select =
                            i == 2 && matches!(op.op, Op::V_READLANE_B32 | Op::V_WRITELANE_B32);
                        if lane_select {
                            u.int_in_range(0..=63u32)?.to_string()
                        } else if op.op == Op::V_WRITELANE_B32 {
                            scalar_src(u, 1, true, &mut false)?
                        } else if matches!(
                            op.op,
                            Op::V_READLANE_B32 | Op::V_READFIRSTLANE_B32 | Op::V_ACCVGPR_WRITE_B32
                        ) {
                            vgpr_src(u, 1, aligned)?
                        } else {
                            let source = field.source_index().unwrap_or(0);
                            let mods = wide
                                && op.flags & INPUT_MODS != 0
                                && !op.int_source(source)
                                && op.format != Format::Vop3p;
                            vector_src(u, dwords, class, aligned, &mut bus, mods)?
                        }
                    }
                    _ => return Ok(None),
                }
            }
        };
        operands.push(text);
    }
    let mut text = op.name.to_string();
    if !operands.is_empty() {
        text.push(' ');
        text.push_str(&operands.join(", "));
    }
    if wide {
        text.push_str(&modifiers(u, op)?);
    }
    Ok(Some(text))
}

/// v_cndmask_b32_e64's mask and the carry-in of v_addc/v_subb: a 64-bit register-only source.
fn is_mask(slot: &Slot) -> bool {
    matches!(
        slot,
        Slot::Reg {
            field: Field::Src2,
            dwords: 2,
            class: ImmClass::RegOnly
        }
    )
}

/// A VALU source: mostly VGPRs; an SGPR or a literal while the constant bus has room; inline
/// constants; with `mods`, float negation and absolute value on registers.
fn vector_src(
    u: &mut Unstructured,
    dwords: u32,
    class: ImmClass,
    aligned: bool,
    bus: &mut Bus,
    mods: bool,
) -> Result<String> {
    let only_registers = class == ImmClass::RegOnly;
    let pick = u.int_in_range(0..=99u8)?;
    let register = match pick {
        0..=14 if bus.scalar > 0 => {
            bus.scalar -= 1;
            sgprs(u, SGPR_READ, dwords)?
        }
        15..=34 if !only_registers => return inline_constant(u),
        35..=39 if !only_registers && bus.scalar > 0 && bus.literal_ok => {
            bus.scalar -= 1;
            bus.literal_ok = false;
            // A 16-bit operand's literal holds 16 bits.
            return if matches!(class, ImmClass::F16 | ImmClass::I16) {
                Ok(format!("{:#x}", u.arbitrary::<u16>()?))
            } else {
                literal(u)
            };
        }
        _ => vgpr_src(u, dwords, aligned)?,
    };
    if !mods {
        return Ok(register);
    }
    Ok(match u.int_in_range(0..=9u8)? {
        0 => format!("-{register}"),
        1 => format!("|{register}|"),
        2 => format!("-|{register}|"),
        _ => register,
    })
}

/// VOP3 clamp and output modifier, VOP3P op_sel and clamp, where the row allows them.
fn modifiers(u: &mut Unstructured, op: &OpInfo) -> Result<String> {
    let mut m = String::new();
    if op.format == Format::Vop3p {
        if op.is_mfma() || op.is_accvgpr_vop3p() {
            return Ok(m);
        }
        let sources = op
            .operands
            .iter()
            .filter(|s| matches!(s, Slot::Reg { field, .. } if field.source_index().is_some()))
            .count();
        if u.ratio(1, 3)? {
            let bits: Vec<String> = (0..sources)
                .map(|_| Ok((u.arbitrary::<bool>()? as u8).to_string()))
                .collect::<Result<_>>()?;
            m.push_str(&format!(" op_sel:[{}]", bits.join(",")));
        }
        if u.ratio(1, 3)? {
            let bits: Vec<String> = (0..sources)
                .map(|_| Ok((u.arbitrary::<bool>()? as u8).to_string()))
                .collect::<Result<_>>()?;
            m.push_str(&format!(" op_sel_hi:[{}]", bits.join(",")));
        }
    }
    // Integer clamping (saturation) is not emulated, and ops computed bitwise (exact results,
    // compares) count as integer ones: clamp only rounded float results.
    let rounded =
        matches!(op.facts.round, Rounding::F32 | Rounding::Wide) && op.flags & INPUT_MODS != 0;
    let compare = op.has_field(Field::VdstSgpr);
    if op.flags & NO_CLAMP == 0 && rounded && !compare && u.ratio(1, 8)? {
        m.push_str(" clamp");
    }
    if op.format == Format::Vop3
        && op.flags & (NO_OMOD | INPUT_MODS) == INPUT_MODS
        && u.ratio(1, 8)?
    {
        m.push_str(u.choose(&[" mul:2", " mul:4", " div:2"])?);
    }
    Ok(m)
}
