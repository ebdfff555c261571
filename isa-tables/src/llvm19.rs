//! Where LLVM 19 prints gfx9 code unlike LLVM 15. The reference text of gfx940 and gfx942 is
//! LLVM 19's (an `Inst` decoded for them has `gfx940` set), that of gfx900 to gfx90a LLVM 15's;
//! the printer asks here only for the former.
//!
//! LLVM 19's disassembler checks each register operand against the register class the operand
//! takes and names the class in a comment when the register is not in it; a constant where only
//! registers are allowed prints its value, then a comment.

use crate::inst::Inst;
use crate::operand::{
    is_inline_constant, EXEC_LO, LDS_DIRECT, LITERAL, M0, SCC, SRC_SHARED_BASE, TTMP0, VCCZ, VGPR0,
};
use crate::table::{Field, Format, Op};

/// The register class LLVM 19 says the register `code` (`dwords` wide) in `field` is not in.
pub(crate) fn register_class_note(
    inst: &Inst,
    field: Field,
    code: u16,
    dwords: u8,
) -> Option<&'static str> {
    // Constants, and the special sources LLVM decodes like constants (src_shared_base...,
    // src_vccz, src_execz, src_scc), have no register class to be outside of.
    if is_inline_constant(code)
        || code == LITERAL
        || (SRC_SHARED_BASE..=SRC_SHARED_BASE + 4).contains(&code)
        || (VCCZ..=SCC).contains(&code)
    {
        return None;
    }
    let info = inst.info();
    let vector = code >= VGPR0;
    let scalar_tuple = code <= 101 || (TTMP0..TTMP0 + 16).contains(&code);
    match (info.format, field) {
        // SMEM data: no M0 or EXEC in a 32- or 64-bit destination, only SGPR and TTMP tuples
        // wider.
        (Format::Smem, Field::Sdata) => match dwords {
            1 => (code == M0 || code == EXEC_LO || code == EXEC_LO + 1)
                .then_some("SReg_32_XM0_XEXEC"),
            2 => (code == EXEC_LO).then_some("SReg_64_XEXEC"),
            _ => (!scalar_tuple).then(|| sreg(dwords)),
        },
        (Format::Smem, Field::Sbase) if dwords > 2 => (!scalar_tuple).then(|| sreg(dwords)),
        // SALU sources are SGPRs or constants; LDS_DIRECT is neither.
        (
            Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk,
            Field::Ssrc0 | Field::Ssrc1,
        ) => (code == LDS_DIRECT).then(|| sreg(dwords)),
        _ if info.is_mfma() => match field {
            // A and B: VGPRs or AGPRs.
            Field::Src0Acc | Field::Src1Acc => (!vector).then(|| av(dwords)),
            // C: VGPRs or AGPRs as acc_cd says.
            Field::Src2Acd if inst.bit(0, 15) => (!vector).then(|| areg(dwords)),
            Field::Src2Acd => (!vector).then(|| vreg(dwords)),
            // The sparse ops' index register.
            Field::Src2 => (!vector).then_some("VGPR_32"),
            _ => None,
        },
        _ => match (info.op, field) {
            (Op::V_READFIRSTLANE_B32 | Op::V_READLANE_B32, Field::Src0) => {
                (!vector && code != LDS_DIRECT).then_some("VRegOrLds_32")
            }
            // Lane selects and writelane's value are scalars.
            (Op::V_READLANE_B32 | Op::V_WRITELANE_B32, Field::Src1)
            | (Op::V_WRITELANE_B32, Field::Src0) => vector.then_some("SReg_32"),
            // A carry-in is an SGPR pair (the class LLVM names for any wave size).
            (
                Op::V_CNDMASK_B32 | Op::V_ADDC_CO_U32 | Op::V_SUBB_CO_U32 | Op::V_SUBBREV_CO_U32,
                Field::Src2,
            ) if info.format == Format::Vop3 => vector.then_some("SReg_1_XEXEC"),
            (Op::V_MQSAD_U32_U8, Field::Src2) => (!vector).then(|| vreg(dwords)),
            (Op::V_SWAP_B32, Field::Src0) => (!vector).then_some("VGPR_32"),
            (Op::V_ACCVGPR_MOV_B32 | Op::V_ACCVGPR_READ_B32, Field::Src0Agpr) => {
                (!vector).then_some("AGPR_32")
            }
            _ => None,
        },
    }
}

fn sreg(dwords: u8) -> &'static str {
    match dwords {
        1 => "SReg_32",
        2 => "SReg_64",
        4 => "SReg_128",
        8 => "SReg_256",
        _ => "SReg_512",
    }
}

fn vreg(dwords: u8) -> &'static str {
    match dwords {
        1 => "VGPR_32",
        2 => "VReg_64",
        4 => "VReg_128",
        8 => "VReg_256",
        16 => "VReg_512",
        _ => "VReg_1024",
    }
}

fn areg(dwords: u8) -> &'static str {
    match dwords {
        1 => "AGPR_32",
        2 => "AReg_64",
        4 => "AReg_128",
        8 => "AReg_256",
        16 => "AReg_512",
        _ => "AReg_1024",
    }
}

fn av(dwords: u8) -> &'static str {
    match dwords {
        1 => "AV_32",
        2 => "AV_64",
        4 => "AV_128",
        8 => "AV_256",
        16 => "AV_512",
        _ => "AV_1024",
    }
}

/// The 32-bit literal an inline float's text stands for on a 16-bit integer operand (see
/// [`write_i16_literal`]).
pub(crate) fn f32_inline_text_bits(text: &str) -> Option<u32> {
    crate::operand::f32_inline_bits(text)
}

/// A 16-bit integer operand's literal: LLVM 19 prints one whose 32 bits are an f32 inline value
/// as that float, any other as its low half.
pub(crate) fn write_i16_literal(f: &mut impl std::fmt::Write, lit: u32) -> std::fmt::Result {
    use crate::operand::{literal_as_inline, write_inline};
    use crate::table::ImmClass;
    match literal_as_inline(lit, ImmClass::B32) {
        Some(code @ 240..=248) => write_inline(f, code, ImmClass::B32),
        _ => write!(f, "{:#x}", lit as u16),
    }
}

/// gfx940's stochastic-rounding conversions: LLVM 19 gives them three sources' worth of input
/// modifiers and op_sel (src1's neg/abs are kept but not printed, see
/// [`prints_source_modifiers`]), whereas the op has two.
pub(crate) fn three_source_modifiers(op: Op) -> bool {
    matches!(op, Op::V_CVT_SR_FP8_F32 | Op::V_CVT_SR_BF8_F32)
}

/// Ops whose VOP3 neg/abs bits LLVM 19 keeps without printing them: the integer dot products
/// with accumulation (their VOP3 forms are new in LLVM 19) and the stochastic-rounding
/// conversions.
pub(crate) fn keeps_unprinted_modifiers(op: Op) -> bool {
    matches!(
        op,
        Op::V_DOT2C_I32_I16 | Op::V_DOT4C_I32_I8 | Op::V_DOT8C_I32_I4
    ) || three_source_modifiers(op)
}

/// Does LLVM 19 print source `i`'s neg/abs?
pub(crate) fn prints_source_modifiers(op: Op, i: usize) -> bool {
    !(three_source_modifiers(op) && i > 0)
}

/// LLVM 19 takes omod on the f16 VOP3 ops with op_sel (v_mad_f16, v_min3_f16...), which LLVM 15
/// rejects.
pub(crate) fn takes_omod(info: &crate::table::OpInfo) -> bool {
    use crate::table::{INPUT_MODS, OP_SEL};
    info.flags & OP_SEL != 0 && info.flags & INPUT_MODS != 0
}

/// gfx940's conversions from FP8/BF8, whose SDWA forms LLVM 19 defines without dst_sel and
/// dst_unused (the destination is a whole dword, or two).
pub(crate) fn sdwa_without_dst(op: Op) -> bool {
    matches!(
        op,
        Op::V_CVT_F32_FP8 | Op::V_CVT_F32_BF8 | Op::V_CVT_PK_F32_FP8 | Op::V_CVT_PK_F32_BF8
    )
}

/// The VOP2 ops whose 32-bit source holds two f16 values: LLVM 19 prints their literal whole.
pub(crate) fn packed_f16_source(op: Op) -> bool {
    matches!(op, Op::V_DOT2C_F32_F16 | Op::V_PK_FMAC_F16)
}
