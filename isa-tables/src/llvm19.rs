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
    let note = match (info.format, field) {
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
    };
    note
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
