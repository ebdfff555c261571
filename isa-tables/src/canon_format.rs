//! Format-specific canonicalisation rules (which fields LLVM ignores or rejects).

use crate::facts::D16;
use crate::inst::Inst;
use crate::operand;
use crate::table::{Field, Format, Op};

pub fn adjust(inst: &mut Inst, keep: &mut [u32; 2]) -> Result<(), (&'static str, u32)> {
    rejected_by_llvm(inst)?;
    // An arm whose guard holds is the instruction's only arm: its inner tests must not fall
    // through to the next arms, so clippy's collapsing of them would change what runs.
    #[allow(clippy::collapsible_match)]
    match inst.format() {
        Format::Vop3 if inst.info().op.is_interp() => interp_vop3(inst, keep)?,
        Format::Vop3p if inst.info().is_accvgpr_vop3p() => {
            // op_sel/neg bits of the sources it does not have are invalid, as for any VOP3P.
            let w = inst.words;
            if (w[0] >> 12) & 3 != 0 || w[1] >> 30 != 0 || (w[0] >> 9) & 3 != 0 {
                return Err(("op_sel/neg of a missing source", w[0]));
            }
            // No modifiers: LLVM re-encodes op_sel_hi as all ones and every other bit as zero.
            inst.words[0] = (inst.words[0] & !0xff00) | (1 << 14);
            inst.words[1] = (inst.words[1] & 0x07ff_ffff) | (3 << 27);
        }
        Format::Vop3p if inst.info().is_mfma() => {
            // Where C and D are always AGPRs (gfx908's rows), acc_cd is not a field.
            if inst.info().has_field(Field::VdstAgpr) {
                inst.words[0] &= !(1 << 15);
            }
        }
        Format::Vop3 | Format::Vop3p => {
            // Sources the op does not have must be zero (LLVM's decoder tables fix them).
            let has = |f: Field| {
                inst.info().operands.iter().any(|s| {
                    matches!(s, crate::table::Slot::Reg { field, .. }
                    if field.source_index().is_some() && field.source_index() == f.source_index())
                })
            };
            for (f, lo) in [(Field::Src0, 0), (Field::Src1, 9), (Field::Src2, 18)] {
                if !has(f) && (inst.words[1] >> lo) & 0x1ff != 0 {
                    return Err(("unused source", (inst.words[1] >> lo) & 0x1ff));
                }
            }
            // VOP3P: op_sel/neg bits of missing sources are invalid; their op_sel_hi reads as 1.
            if inst.format() == Format::Vop3p {
                let n = crate::syntax::nsrc(inst) as u32;
                let w = inst.words;
                let missing = |v: u32| v >> n != 0;
                if missing((w[0] >> 11) & 7) || missing(w[1] >> 29) || missing((w[0] >> 8) & 7) {
                    return Err(("op_sel/neg of a missing source", w[0]));
                }
                if n == 2 && !inst.info().facts.mix {
                    inst.words[0] |= 1 << 14;
                }
            }
            // VOP3 abs/neg: LLVM keeps them on every source of an op with input modifiers or
            // op_sel (the 16-bit integer ops keep but do not print them) and rejects them
            // anywhere else; VOP3B has sdst where abs would be.
            if inst.format() == Format::Vop3 {
                let flags = inst.info().flags;
                let vop3b = crate::syntax::is_vop3b(inst);
                let n = crate::syntax::nsrc(inst) as u32;
                let keeps = inst.gfx940 && crate::llvm19::keeps_unprinted_modifiers(inst.info().op);
                let allowed =
                    if keeps || flags & (crate::table::INPUT_MODS | crate::table::OP_SEL) != 0 {
                        (1u32 << n) - 1
                    } else {
                        0
                    };
                let abs = if vop3b { 0 } else { (inst.words[0] >> 8) & 7 };
                let neg = inst.words[1] >> 29;
                if (abs | neg) & !allowed != 0 {
                    return Err(("abs/neg of a source without modifiers", inst.words[0]));
                }
                if !vop3b {
                    keep[0] |= 0x700;
                }
                keep[1] |= 0xe000_0000;
            }
            // VOP3 op_sel bits of sources the op does not have (bits 0-2; bit 3 is the dst).
            if inst.format() == Format::Vop3 && inst.info().flags & crate::table::OP_SEL != 0 {
                let n = crate::syntax::nsrc(inst);
                let op_sel = (inst.words[0] >> 11) & 0x7;
                if op_sel >> n != 0 {
                    return Err(("op_sel of a missing source", op_sel));
                }
            }
        }
        // gfx9 SDWA compares with SD set write an SGPR pair: SGPR/TTMP pairs (aligned down),
        // flat_scratch, xnack_mask, exec or null; `vcc` is the SD-clear form.
        Format::Vopc if inst.enc() == crate::Enc::Sdwa && inst.bit(1, 15) => {
            let code = inst.bits(1, 8, 7) as u16;
            let aligned = operand::align_scalar(code, 2);
            if aligned == operand::VCC_LO {
                inst.words[1] &= !0xff00;
            } else if !(code == operand::NULL || operand::register_valid(aligned, 2)) {
                return Err(("SDWA compare destination", code as u32));
            } else {
                // an odd SGPR names its aligned pair, which is what LLVM re-encodes
                inst.words[1] = (inst.words[1] & !0x7f00) | (u32::from(aligned) << 8);
            }
        }
        // LLVM 19 gives gfx940's FP8/BF8-to-f32 conversions no dst_sel/dst_unused: a DWORD
        // destination, whatever the bits say.
        Format::Vop1
            if inst.gfx940
                && inst.enc() == crate::Enc::Sdwa
                && crate::llvm19::sdwa_without_dst(inst.info().op) =>
        {
            inst.words[1] = (inst.words[1] & !0x1f00) | (6 << 8);
        }
        // SDWA: an integer source of a float op (v_ldexp_f16's exponent) takes sext only.
        Format::Vop2
            if inst.enc() == crate::Enc::Sdwa
                && inst.info().int_source(1)
                && inst.words[1] & (3 << 28) != 0 =>
        {
            return Err(("neg/abs on an integer SDWA source", inst.words[1]));
        }
        Format::Mubuf | Format::Mtbuf => {
            // lds=1 (MUBUF bit 16) exists only for the loads the hardware can send to LDS:
            // llvm-mc-15 decodes it for buffer_load_format_x, ubyte, sbyte, ushort, sshort and
            // dword on gfx9, and rejects every other op with the bit set.
            if inst.format() == Format::Mubuf && inst.bit(0, 16) {
                if !inst.info().facts.lds {
                    return Err(("lds=1 on an op without an LDS form", inst.words[0]));
                }
                // The data goes to LDS: LLVM neither prints nor keeps vdata.
                keep[1] &= !(0xff << 8);
            }
            // LLVM 15 has no tfe form of the buffer atomics: the bit is dropped (on gfx90a the
            // bit is acc, and stays).
            if inst.info().facts.atomic.is_some() && !inst.gfx90a {
                keep[1] &= !(1 << 23);
            }
            // vaddr is "off" unless offen or idxen uses it.
            if inst.words[0] & (3 << 12) == 0 {
                keep[1] &= !0xff;
            }
        }
        // gfx940: scratch bit 13 (SVE) says the address has a VGPR part, which is `off`
        // without it; global and flat have no bit 13 (the loads to LDS are ops of their own).
        Format::Scratch if inst.gfx940 && inst.bit(0, 13) => keep[1] |= 0xff,
        Format::Scratch if inst.gfx940 => {}
        Format::Flat | Format::Global if inst.gfx940 && inst.bit(0, 13) => {
            return Err(("bit 13 of a gfx940 global/flat op", inst.words[0]));
        }
        // lds (bit 13): on gfx9 only global/scratch loads of a dword or less write LDS
        // (M0-addressed); LLVM then neither prints nor keeps vdst, and rejects every other op.
        Format::Flat | Format::Global | Format::Scratch if inst.bit(0, 13) => {
            if !inst.info().facts.lds {
                return Err(("lds=1 on an op without an LDS form", inst.words[0]));
            }
            keep[1] &= !(0xff << 24);
            if inst.format() == Format::Scratch && inst.bits(1, 16, 7) == 0x7f {
                keep[1] |= 0xff; // vaddr in use
            }
        }
        Format::Scratch if inst.bits(1, 16, 7) == 0x7f => keep[1] |= 0xff, // vaddr in use
        Format::Flat | Format::Global | Format::Scratch if inst.returned_dwords().is_some() => {
            keep[1] |= 0xff << 24 // vdst of a returning atomic
        }
        _ => {}
    }
    Ok(())
}

/// Encodings llvm-mc-15 rejects as invalid although every field has a meaning.
fn rejected_by_llvm(inst: &Inst) -> Result<(), (&'static str, u32)> {
    let info = inst.info();
    let (w0, w1) = (inst.words[0], inst.words[1]);
    match (inst.format(), inst.enc()) {
        // gfx9 has no VOPC DPP in LLVM 15.
        (Format::Vopc, crate::Enc::Dpp) => Err(("VOPC DPP", w1)),
        // SDWA and DPP only carry 32-bit operands (gfx90a's DPP 64-bit ones too; LLVM 19
        // decodes the SDWA of gfx940's conversions to a pair of f32).
        (Format::Vop1 | Format::Vop2 | Format::Vopc, crate::Enc::Sdwa | crate::Enc::Dpp)
            if !(inst.gfx90a && inst.enc() == crate::Enc::Dpp)
                && info.operands.iter().any(|s| match *s {
                    crate::table::Slot::Reg {
                        dwords: 2.., field, ..
                    } => {
                        !(inst.gfx940
                            && field == crate::table::Field::Vdst
                            && crate::llvm19::sdwa_without_dst(info.op))
                    }
                    _ => false,
                }) =>
        {
            Err(("SDWA/DPP of a 64-bit op", w1))
        }
        // The accumulating VOP2 ops (v_mac, v_fmac, the v_dot*c of gfx908+, v_pk_fmac_f16) have
        // no SDWA form in LLVM 15; v_pk_fmac_f16 has no DPP form either.
        (Format::Vop2, crate::Enc::Sdwa)
            if matches!(
                info.op,
                Op::V_MAC_F32 | Op::V_MAC_F16 | Op::V_FMAC_F32 | Op::V_PK_FMAC_F16
            ) || info.op.is_dot_accumulate() =>
        {
            Err(("SDWA form of an accumulating op", w1))
        }
        (Format::Vop2, crate::Enc::Dpp) if info.op == Op::V_PK_FMAC_F16 => {
            Err(("DPP form of v_pk_fmac_f16", w1))
        }
        // The 16-bit integer dot products take no neg_lo/neg_hi on src1 in LLVM 15.
        (Format::Vop3p, _)
            if matches!(info.op, Op::V_DOT2_I32_I16 | Op::V_DOT2_U32_U16)
                && !inst.gfx940
                && (w1 & (1 << 30) != 0 || w0 & (1 << 9) != 0) =>
        {
            Err(("neg of a 16-bit integer dot product's src1", w1))
        }
        // LLVM 19 has no SDWA v_swap_b32.
        (Format::Vop1, crate::Enc::Sdwa) if inst.gfx940 && info.op == Op::V_SWAP_B32 => {
            Err(("SDWA v_swap_b32", w1))
        }
        // SDWA omod (bits 15:14) only where the op's VOP3 form has omod.
        (Format::Vop1 | Format::Vop2, crate::Enc::Sdwa)
            if (w1 >> 14) & 3 != 0 && vop3_form_lacks(info, crate::table::NO_OMOD) =>
        {
            Err(("SDWA omod on an op without it", w1))
        }
        // SDWA: neg/abs (bits 20-21, 28-29) only on float ops, sext (19, 27) only on integer
        // sources.
        (Format::Vop1 | Format::Vop2 | Format::Vopc, crate::Enc::Sdwa) => {
            let float = inst.sdwa_float_mods();
            for i in 0..2u32 {
                let base = 20 + 8 * i;
                let int_src = !float || info.int_source(i as usize);
                let neg_abs = (w1 >> base) & 3 != 0;
                let sext = w1 & (1 << (base - 1)) != 0;
                if (int_src && neg_abs) || (!int_src && sext) {
                    return Err(("SDWA source modifier", w1));
                }
            }
            Ok(())
        }
        // DPP: neg/abs only on ops with input modifiers (and gfx908's v_dot*c accumulators,
        // whose DPP form keeps them unprinted).
        (Format::Vop1 | Format::Vop2, crate::Enc::Dpp)
            if info.flags & crate::table::INPUT_MODS == 0
                && !info.op.is_dot_accumulate()
                && w1 & (0xf << 20) != 0 =>
        {
            Err(("DPP source modifier", w1))
        }
        // VOP3 output modifiers exist only where the table says so.
        (Format::Vop3, _) if w0 & (1 << 15) != 0 && info.flags & crate::table::NO_CLAMP != 0 => {
            Err(("clamp on an op without it", w0))
        }
        (Format::Vop3, _)
            if (w1 >> 27) & 3 != 0
                && info.flags & crate::table::NO_OMOD != 0
                && !(inst.gfx940 && crate::llvm19::takes_omod(info)) =>
        {
            Err(("omod on an op without it", w1))
        }
        // SOPP ops without an operand take no immediate.
        (Format::Sopp, _) if info.operands.is_empty() && w0 & 0xffff != 0 => {
            Err(("immediate of an operand-less SOPP op", w0 & 0xffff))
        }
        // SMEM ops without an offset (s_memtime, s_dcache_*) reject imm = 1.
        (Format::Smem, _)
            if w0 & (1 << 17) != 0
                && !info.operands.iter().any(|s| {
                    matches!(
                        s,
                        crate::table::Slot::Imm(crate::table::ImmKind::SmemOffset)
                    )
                }) =>
        {
            Err(("SMEM imm bit without an offset", w0))
        }
        // FLAT (seg 0) has no saddr: the field must be 0.
        (Format::Flat, _) if (w1 >> 16) & 0x7f != 0 => Err(("FLAT saddr", (w1 >> 16) & 0x7f)),
        // d16 exists only on the image loads, stores, samples and gathers that convert data.
        (Format::Mimg, _) if w1 & (1 << 31) != 0 => {
            if info.facts.d16 == D16::Packed {
                Ok(())
            } else {
                Err(("d16 on an image op without it", w1))
            }
        }
        // The sparse matrix ops have no blgp (their B is not broadcast).
        (Format::Vop3p, _)
            if inst.gfx940 && w1 >> 29 != 0 && info.op.mfma_shape().is_some_and(|s| s.sparse) =>
        {
            Err(("blgp of a sparse matrix op", w1))
        }
        // gfx940 has no GDS; LLVM 19 ignores the bit except on the permutes, which reject it.
        (Format::Ds, _)
            if inst.gfx940
                && w0 & (1 << 16) != 0
                && matches!(info.op, Op::DS_PERMUTE_B32 | Op::DS_BPERMUTE_B32) =>
        {
            Err(("gds on a gfx940 permute", w0))
        }
        // The GWS ops work on the global wave sync resources only: LLVM rejects them without
        // the gds bit.
        (Format::Ds, _)
            if w0 & (1 << 16) == 0 && matches!(info.op, Op::DS_GWS_INIT | Op::DS_GWS_BARRIER) =>
        {
            Err(("a GWS op without gds", w0))
        }
        // gfx940's loads to LDS have no data register for acc to make an AGPR.
        (Format::Global | Format::Scratch, _)
            if inst.gfx940
                && w1 & (1 << 23) != 0
                && !info.operands.iter().any(|s| {
                    matches!(
                        s,
                        crate::table::Slot::Reg {
                            field: crate::table::Field::Vdst | crate::table::Field::Vdata,
                            ..
                        }
                    )
                }) =>
        {
            Err(("acc on a load to LDS", w1))
        }
        // ds_nop has no operands and no offset.
        (Format::Ds, _) if info.op == Op::DS_NOP && (w0 & 0x201_ffff != 0 || w1 != 0) => {
            Err(("ds_nop operands", w0))
        }
        // DS bit 25 (unused) is ignored by LLVM except on the src2 ops, which reject it.
        (Format::Ds, _) if w0 & (1 << 25) != 0 && info.facts.src2 => {
            Err(("DS bit 25 on a src2 op", w0))
        }
        // Packed 16-bit integer ops: LLVM 15 decodes neg_lo/neg_hi on src0 only.
        // (LLVM 19, gfx940's reference, decodes them on every source.)
        (Format::Vop3p, _)
            if info.facts.int16x2 && !inst.gfx940 && (w1 >> 30 != 0 || (w0 >> 9) & 3 != 0) =>
        {
            Err(("neg of a packed integer op", w0))
        }
        _ => Ok(()),
    }
}

/// Does the VOP3 (`_e64`) row of this VOP1/VOP2 op carry `flag` (NO_CLAMP / NO_OMOD)?
fn vop3_form_lacks(info: &crate::table::OpInfo, flag: u8) -> bool {
    crate::table::all_ops()
        .iter()
        .find(|r| r.format == Format::Vop3 && r.op == info.op)
        .is_some_and(|r| r.flags & flag != 0)
}

/// VOP3-encoded interpolation: src0 holds the attribute (bits 5:0), channel (7:6) and, for the
/// f16 forms, `high` (bit 8); src1 is vsrc (v_interp_mov_f32: the parameter); src2 the f16
/// forms' third source. LLVM 15 rejects abs/neg on src0 and on sources the op lacks, `high` on
/// the f32 forms, and literals; op_sel bits are dropped.
fn interp_vop3(inst: &mut Inst, keep: &mut [u32; 2]) -> Result<(), (&'static str, u32)> {
    let w = inst.words;
    let is_mov = inst.info().op == Op::V_INTERP_MOV_F32;
    let f16 = inst.info().facts.f16src;
    let has_src2 = crate::syntax::nsrc(inst) == 2;
    let src1 = (w[1] >> 9) & 0x1ff;
    let src2 = (w[1] >> 18) & 0x1ff;
    let (abs, neg) = ((w[0] >> 8) & 7, w[1] >> 29);
    // source i may carry modifiers when it is a real source: src1 (not for mov), src2 if present
    let allowed = if is_mov {
        0
    } else {
        0b010 | if has_src2 { 0b100 } else { 0 }
    };
    if abs & !allowed != 0 || neg & !allowed != 0 {
        return Err(("interpolation source modifier", w[0]));
    }
    if !f16 && w[1] & (1 << 8) != 0 {
        return Err(("`high` on an f32 interpolation", w[1]));
    }
    if !has_src2 && src2 != 0 {
        return Err(("unused source", src2));
    }
    if (!is_mov && src1 == u32::from(operand::LITERAL)) || src2 == u32::from(operand::LITERAL) {
        return Err(("literal", operand::LITERAL.into()));
    }
    keep[0] |= 0x700; // abs bits (validated above)
    keep[1] |= 0x1ff | (0x1ff << 9) | 0xe000_0000;
    if has_src2 {
        keep[1] |= 0x1ff << 18;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{decode, Target};

    /// Which MUBUF ops decode with lds=1, as llvm-mc-15 -disassemble answers for every opcode
    /// with offen and lds set (gfx900 and gfx906 alike).
    #[test]
    fn lds_bit_only_on_the_lds_loads() {
        for target in [Target::Gfx900, Target::Gfx906] {
            let accepted: Vec<String> = (0u32..128)
                .filter_map(|op| {
                    let w0: u32 = 0xe000_0000 | op << 18 | 1 << 16 | 1 << 12;
                    let mut b = w0.to_le_bytes().to_vec();
                    b.extend([0, 0, 1, 0x80]);
                    decode(&b, target).ok().map(|i| i.info().name.to_string())
                })
                .collect();
            assert_eq!(
                accepted,
                [
                    "buffer_load_format_x",
                    "buffer_load_ubyte",
                    "buffer_load_sbyte",
                    "buffer_load_ushort",
                    "buffer_load_sshort",
                    "buffer_load_dword"
                ],
                "{target}"
            );
        }
    }
}
