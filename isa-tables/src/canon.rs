//! Validation and canonicalisation of decoded words, so that `encode(decode(x))` is the encoding
//! LLVM itself would emit for the text it prints: bits no field uses are cleared, SGPR tuples are
//! aligned, a literal equal to an inline constant becomes that constant, and an operand value the
//! instruction cannot take is an error.

use crate::decode::effective_class;
use crate::fields::{self, Enc};
use crate::inst::Inst;
use crate::operand::{self, LITERAL};
use crate::table::{Field, Format, ImmKind, Op, Slot};

type Invalid = (&'static str, u32);

/// Bits of each word that belong to fixed format bits, opcodes and modifiers (register fields
/// named by the instruction's template are added to these).
fn modifier_masks(inst: &Inst) -> [u32; 2] {
    let w0 = inst.words[0];
    match inst.format() {
        Format::Sop2 => [0xff80_0000, 0],
        Format::Sop1 => [0xff80_ff00, 0],
        // s_set_gpr_idx_on keeps its raw SSRC1 field: the gpr_idx() enables.
        Format::Sopc if inst.info().op == Op::S_SET_GPR_IDX_ON => [0xffff_ff00, 0],
        Format::Sopc => [0xffff_0000, 0],
        Format::Sopk | Format::Sopp => [0xffff_ffff, 0],
        Format::Smem => {
            let imm = w0 & (1 << 17) != 0;
            let soe = w0 & (1 << 14) != 0;
            let mut w1 = if imm {
                0x001f_ffff
            } else if soe {
                0
            } else {
                0x7f
            };
            if soe {
                w1 |= 0xfe00_0000;
            }
            // s_atc_probe* carry a 7-bit immediate where the others have sdata.
            let sdata_imm = inst
                .info()
                .operands
                .iter()
                .any(|s| matches!(s, Slot::Imm(ImmKind::SmemSdataImm)));
            let sdata_bits = if sdata_imm { 0x7f << 6 } else { 0 };
            // glc exists only on memory accesses with data (loads, stores, atomics); LLVM
            // drops it on s_atc_probe*, s_dcache_* and s_mem(real)time.
            let ops = inst.info().operands;
            let has_sdata = ops.iter().any(|s| {
                matches!(
                    s,
                    Slot::Reg {
                        field: Field::Sdata,
                        ..
                    }
                )
            });
            let has_offset = ops
                .iter()
                .any(|s| matches!(s, Slot::Imm(ImmKind::SmemOffset)));
            let glc = if has_sdata && has_offset { 1 << 16 } else { 0 };
            // Bit 15 (nv) is ignored by LLVM 15's gfx9 decoder, so it is not kept.
            [0xfffc_0000 | (1 << 17) | glc | (1 << 14) | sdata_bits, w1]
        }
        Format::Vop2 | Format::Vop1 | Format::Vopc => match inst.enc {
            Enc::Native => [0xfe00_0000 | opcode_bits(inst.format()) | 0x1ff, 0],
            // VOPC SDWA: [14:8] is the SGPR-pair destination when SD (bit 15) is set, else unused.
            Enc::Sdwa if inst.format() == Format::Vopc => {
                let sdst = if inst.words[1] & (1 << 15) != 0 {
                    0x7f00
                } else {
                    0
                };
                [
                    0xfe00_0000 | opcode_bits(inst.format()) | 0x1ff,
                    0xffbf_80ff | sdst,
                ]
            }
            Enc::Sdwa => [
                0xfe00_0000 | opcode_bits(inst.format()) | 0x1ff,
                0xffbf_ffff,
            ],
            Enc::Dpp => [
                0xfe00_0000 | opcode_bits(inst.format()) | 0x1ff,
                0xfff9_ffff,
            ],
        },
        Format::Vop3 => {
            let flags = inst.info().flags;
            let vop3b = crate::syntax::is_vop3b(inst);
            let op_sel = if flags & crate::table::OP_SEL != 0 && !vop3b {
                0x7800
            } else {
                0
            };
            let abs = if flags & crate::table::INPUT_MODS != 0 && !vop3b {
                0x700
            } else {
                0
            };
            let neg = if flags & crate::table::INPUT_MODS != 0 {
                0xe000_0000
            } else {
                0
            };
            [0xffff_8000 | op_sel | abs, 0x1800_0000 | neg]
        }
        Format::Vop3p => [0xffff_ff00, 0xf800_0000],
        // v_interp_mov_f32 holds its parameter (p10/p20/p0/invalid_param_N) where the others
        // have vsrc.
        Format::Vintrp
            if inst
                .info()
                .operands
                .iter()
                .any(|s| matches!(s, Slot::Imm(ImmKind::InterpParam))) =>
        {
            [0xfc03_ffff, 0]
        }
        Format::Vintrp => [0xfc03_ff00, 0],
        // gfx940 has no GDS (bit 16).
        Format::Ds if inst.gfx940 => [0xfffe_ffff, 0],
        // Bit 25 is gfx90a's acc (data in AGPRs), unused before.
        Format::Ds if inst.gfx90a => [0xffff_ffff, 0],
        Format::Ds => [0xfdff_ffff, 0],
        // Cache invalidations (buffer_wbinvl1*) take no operands and LLVM prints no modifiers.
        // gfx940's buffer_wbl2 and buffer_inv take the sc0 and sc1 scope bits.
        Format::Mubuf if inst.info().operands.is_empty() && inst.gfx940 => {
            [0xfc00_0000 | (0x7f << 18) | (3 << 14), 0]
        }
        Format::Mubuf if inst.info().operands.is_empty() => [0xfc00_0000 | (0x7f << 18), 0],
        Format::Mubuf => [0xfc00_0000 | (0x7f << 18) | 0x3_ffff, 1 << 23],
        Format::Mtbuf => [0xffff_ffff, (1 << 22) | (1 << 23)],
        Format::Mimg => [0xfc00_0000 | (0x7f << 18) | (1 << 25) | 0x3_ff00, 1 << 31],
        // Bit 25 is gfx940's sc1.
        Format::Flat | Format::Global | Format::Scratch => [
            0xfc00_0000 | (0x7f << 18) | 0x3_ffff | if inst.gfx940 { 1 << 25 } else { 0 },
            if inst.gfx90a { 1 << 23 } else { 0 },
        ],
        Format::Exp => [0xfc00_1fff, 0],
    }
}

fn opcode_bits(format: Format) -> u32 {
    match format {
        Format::Vop2 => 0,
        Format::Vop1 => 0xff << 9,
        _ => 0xff << 17,
    }
}

fn field_mask(inst: &Inst, field: Field) -> [u32; 2] {
    let mut m = [0u32; 2];
    if let Some(l) = fields::locate(inst.format(), inst.enc, field) {
        m[l.word as usize] |= ((1u32 << l.bits) - 1) << l.lo;
    }
    m
}

pub fn canonicalize(inst: &mut Inst) -> Result<(), Invalid> {
    let info = inst.info();
    // (LLVM 19, gfx940's reference, reads all nine bits in both cases.)
    if inst.enc == Enc::Native && crate::decode::src0_is_vgpr_only(info) && !inst.gfx940 {
        inst.words[0] |= 1 << 8;
    }
    // An AGPR-only source (v_accvgpr_read_b32, v_accvgpr_mov_b32): LLVM reads the low 8 bits as
    // the AGPR number, whatever bit 8 says, and re-encodes it set.
    if info.has_field(Field::Src0Agpr) && !inst.gfx940 {
        match info.format {
            Format::Vop1 => inst.words[0] |= 1 << 8,
            Format::Vop3p => inst.words[1] |= 1 << 8,
            _ => {}
        }
    }
    let format = info.format;
    let mut keep = modifier_masks(inst);
    let mut uses_literal = false;
    let mut literal_class = None;

    for slot in info.operands {
        let Slot::Reg {
            field,
            dwords,
            class,
        } = *slot
        else {
            if let Slot::Imm(ImmKind::Literal) = slot {
                uses_literal = true;
            }
            continue;
        };
        let m = field_mask(inst, field);
        keep[0] |= m[0];
        keep[1] |= m[1];
        let Some(loc) = fields::locate(format, inst.enc, field) else {
            continue;
        };
        let code = inst.code(field).unwrap_or(0);
        let dwords = inst.operand_dwords(field, dwords);
        let sdwa_sgpr = inst.enc == Enc::Sdwa && code < 256;
        let is_source = (sdwa_sgpr || loc.kind == fields::Kind::Code && loc.bits >= 8)
            && !matches!(field, Field::VdstSgpr | Field::Sdst);
        if is_source && operand::is_inline_constant(code) {
            continue;
        }
        if is_source && code == LITERAL {
            if inst.literal.is_some() {
                uses_literal = true;
                literal_class = Some(effective_class(class, dwords));
                continue;
            }
            return Err(("literal", code as u32));
        }
        if field == Field::Saddr && (code == 0x7f || code == operand::NULL) {
            continue; // "off", or "null" (which LLVM 15 prints for gfx9 too)
        }
        let aligned = operand::align_scalar(code, dwords);
        // LLVM 19 decodes the 64-bit specials as 256- and 512-bit operands too (and says they
        // are not in the operand's class).
        let wide_special = inst.gfx940
            && ((dwords >= 8
                && matches!(
                    aligned,
                    operand::FLAT_SCRATCH_LO
                        | operand::XNACK_MASK_LO
                        | operand::VCC_LO
                        | operand::EXEC_LO
                ))
                // the aperture and status sources, as a 128-bit matrix operand
                || (dwords == 4 && matches!(aligned, 235..=239 | 251..=253)));
        if !operand::register_valid(aligned, dwords) && !wide_special {
            return Err(("register", code as u32));
        }
        if aligned != code && inst.enc != Enc::Sdwa {
            fields::set(&mut inst.words, loc, aligned);
        }
    }
    // glc flat-family atomics return the old value to vdst, which the template does not list.
    if let Some(dwords) = inst.returned_dwords() {
        let vdst = inst.code(Field::Vdst).unwrap_or(0);
        if !operand::register_valid(vdst, dwords) {
            return Err(("returned register", vdst as u32));
        }
    }
    crate::canon_format::adjust(inst, &mut keep)?;
    inst.words[0] &= keep[0];
    inst.words[1] &= keep[1];

    // A literal LLVM would print as an inline constant is re-encoded as that constant.
    if let (Some(lit), Some(class)) = (inst.literal, literal_class) {
        if !info
            .operands
            .iter()
            .any(|s| matches!(s, Slot::Imm(ImmKind::Literal)))
        {
            let fold = if inst.gfx940 {
                operand::literal_as_inline_llvm19(lit, class, info)
            } else {
                operand::literal_as_inline(lit, class)
            };
            if let Some(code) = fold {
                for slot in info.operands {
                    if let Slot::Reg { field, .. } = *slot {
                        if inst.code(field) == Some(LITERAL) {
                            let loc = fields::locate(format, inst.enc, field).unwrap();
                            fields::set(&mut inst.words, loc, code);
                        }
                    }
                }
                inst.literal = None;
            }
        }
    }
    if !uses_literal {
        inst.literal = None;
    }
    i16_float_constant_as_literal(inst);
    Ok(())
}

/// An inline *float* constant on a 16-bit integer source stands for its f16 bit pattern, which
/// LLVM prints as hex (`0x3c00`) and re-encodes as that literal in the e32 forms (VOP1/VOP2/VOPC
/// without SDWA/DPP), the only ones with room for one. The value read is the same.
fn i16_float_constant_as_literal(inst: &mut Inst) {
    if inst.enc != Enc::Native
        || inst.literal.is_some()
        || !matches!(inst.format(), Format::Vop1 | Format::Vop2 | Format::Vopc)
    {
        return;
    }
    let Some(loc) = fields::locate(inst.format(), inst.enc, Field::Src0) else {
        return;
    };
    let Some(Slot::Reg { class, dwords, .. }) = inst.info().operands.iter().find(|s| {
        matches!(
            s,
            Slot::Reg {
                field: Field::Src0,
                ..
            }
        )
    }) else {
        return;
    };
    let code = fields::get(&inst.words, loc);
    if effective_class(*class, *dwords) != crate::table::ImmClass::I16
        || !(240..=operand::INV_2PI).contains(&code)
    {
        return;
    }
    if let Some(bits) = operand::f16_inline_bits(code) {
        fields::set(&mut inst.words, loc, LITERAL);
        inst.literal = Some(bits.into());
    }
}
