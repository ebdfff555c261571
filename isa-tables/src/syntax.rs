//! The printed forms of special immediates and of each format's trailing modifiers.

use crate::fields::Enc;
use crate::inst::Inst;
use crate::operand::write_register;
use crate::table::{Format, Op, Slot};
use std::fmt::{self, Write};

/// An unsigned 16-bit immediate: decimal in the inline-integer range, else hex (LLVM's printU16Imm).
pub fn write_u16(f: &mut impl Write, v: u16) -> fmt::Result {
    if v <= 64 {
        write!(f, "{v}")
    } else {
        write!(f, "{v:#x}")
    }
}

const HWREG_NAMES: [(u16, &str); 12] = [
    (1, "HW_REG_MODE"),
    (2, "HW_REG_STATUS"),
    (3, "HW_REG_TRAPSTS"),
    (4, "HW_REG_HW_ID"),
    (5, "HW_REG_GPR_ALLOC"),
    (6, "HW_REG_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (15, "HW_REG_SH_MEM_BASES"),
    (16, "HW_REG_TBA_LO"),
    (17, "HW_REG_TBA_HI"),
    (18, "HW_REG_TMA_LO"),
    (19, "HW_REG_TMA_HI"),
];

/// gfx940's hardware registers beyond gfx9's (LLVM 19 names them for gfx940 and gfx942).
const GFX940_HWREG_NAMES: [(u16, &str); 5] = [
    (20, "HW_REG_XCC_ID"),
    (21, "HW_REG_SQ_PERF_SNAPSHOT_DATA"),
    (22, "HW_REG_SQ_PERF_SNAPSHOT_DATA1"),
    (23, "HW_REG_SQ_PERF_SNAPSHOT_PC_LO"),
    (24, "HW_REG_SQ_PERF_SNAPSHOT_PC_HI"),
];

pub fn hwreg_name(id: u16) -> Option<&'static str> {
    HWREG_NAMES.iter().find(|(i, _)| *i == id).map(|(_, n)| *n)
}

/// `hwreg(ID[, OFFSET, SIZE])`: id bits [5:0], offset [10:6], size-1 [15:11].
pub fn write_hwreg(f: &mut impl Write, imm: u16) -> fmt::Result {
    write_hwreg_of(f, imm, false)
}

/// [`write_hwreg`] for gfx940 and gfx942, with their own registers' names.
pub fn write_hwreg_gfx940(f: &mut impl Write, imm: u16) -> fmt::Result {
    write_hwreg_of(f, imm, true)
}

fn write_hwreg_of(f: &mut impl Write, imm: u16, gfx940: bool) -> fmt::Result {
    let id = imm & 0x3f;
    let offset = (imm >> 6) & 0x1f;
    let size = ((imm >> 11) & 0x1f) + 1;
    f.write_str("hwreg(")?;
    let gfx940_name = || {
        GFX940_HWREG_NAMES
            .iter()
            .find(|(i, _)| gfx940 && *i == id)
            .map(|(_, n)| *n)
    };
    match hwreg_name(id).or_else(gfx940_name) {
        Some(n) => f.write_str(n)?,
        None => write!(f, "{id}")?,
    }
    if offset != 0 || size != 32 {
        write!(f, ", {offset}, {size}")?;
    }
    f.write_str(")")
}

pub const MSG_NAMES: [(u16, &str); 11] = [
    (1, "MSG_INTERRUPT"),
    (2, "MSG_GS"),
    (3, "MSG_GS_DONE"),
    (4, "MSG_SAVEWAVE"),
    (5, "MSG_STALL_WAVE_GEN"),
    (6, "MSG_HALT_WAVES"),
    (7, "MSG_ORDERED_PS_DONE"),
    (8, "MSG_EARLY_PRIM_DEALLOC"),
    (9, "MSG_GS_ALLOC_REQ"),
    (10, "MSG_GET_DOORBELL"),
    (15, "MSG_SYSMSG"),
];
pub const GS_OPS: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
pub const SYSMSG_OPS: [(u16, &str); 4] = [
    (1, "SYSMSG_OP_ECC_ERR_INTERRUPT"),
    (2, "SYSMSG_OP_REG_RD"),
    (3, "SYSMSG_OP_HOST_TRAP_ACK"),
    (4, "SYSMSG_OP_TTRACE_PC"),
];

/// `sendmsg(...)`: message [3:0], operation [6:4], stream [9:8].
pub fn write_sendmsg(f: &mut impl Write, imm: u16) -> fmt::Result {
    write_sendmsg_of(f, imm, false)
}

/// [`write_sendmsg`] as LLVM 19 prints it for gfx940 and gfx942, which have no
/// `SYSMSG_OP_HOST_TRAP_ACK`.
pub fn write_sendmsg_gfx940(f: &mut impl Write, imm: u16) -> fmt::Result {
    write_sendmsg_of(f, imm, true)
}

fn write_sendmsg_of(f: &mut impl Write, imm: u16, gfx940: bool) -> fmt::Result {
    let msg = imm & 0xf;
    let op = (imm >> 4) & 0x7;
    let stream = (imm >> 8) & 0x3;
    if imm & !0x37f != 0 {
        return write!(f, "{imm}");
    }
    let name = MSG_NAMES.iter().find(|(i, _)| *i == msg).map(|(_, n)| *n);
    match (msg, name) {
        (2 | 3, Some(n)) => {
            let op_ok = op <= 3 && (op != 0 || msg == 3);
            if op_ok && (op != 0 || stream == 0) {
                return if op == 0 {
                    write!(f, "sendmsg({n}, {})", GS_OPS[0])
                } else {
                    write!(f, "sendmsg({n}, {}, {stream})", GS_OPS[op as usize])
                };
            }
        }
        (15, Some(n)) => {
            let named = SYSMSG_OPS
                .iter()
                .find(|(i, _)| *i == op && !(gfx940 && op == 3));
            if let Some((_, o)) = named {
                if stream == 0 {
                    return write!(f, "sendmsg({n}, {o})");
                }
            }
        }
        (_, Some(n)) if op == 0 && stream == 0 => return write!(f, "sendmsg({n})"),
        _ => {}
    }
    write!(f, "sendmsg({msg}, {op}, {stream})")
}

/// `vmcnt(N) expcnt(N) lgkmcnt(N)`, leaving out counters at their maximum (no wait).
pub fn write_waitcnt(f: &mut impl Write, imm: u16) -> fmt::Result {
    let vm = (imm & 0xf) | ((imm >> 14) << 4);
    let exp = (imm >> 4) & 0x7;
    let lgkm = (imm >> 8) & 0xf;
    let all = vm == 63 && exp == 7 && lgkm == 15;
    let mut sep = "";
    if vm != 63 || all {
        write!(f, "vmcnt({vm})")?;
        sep = " ";
    }
    if exp != 7 || all {
        write!(f, "{sep}expcnt({exp})")?;
        sep = " ";
    }
    if lgkm != 15 || all {
        write!(f, "{sep}lgkmcnt({lgkm})")?;
    }
    Ok(())
}

pub const GPR_IDX_NAMES: [&str; 4] = ["SRC0", "SRC1", "SRC2", "DST"];

/// `gpr_idx(SRC0,DST)` for the four enable bits, or hex if other bits are set.
pub fn write_gpr_idx(f: &mut impl Write, v: u32) -> fmt::Result {
    if v > 0xf {
        return write!(f, "{v:#x}");
    }
    f.write_str("gpr_idx(")?;
    let mut first = true;
    for (i, n) in GPR_IDX_NAMES.iter().enumerate() {
        if v & (1 << i) != 0 {
            if !first {
                f.write_str(",")?;
            }
            f.write_str(n)?;
            first = false;
        }
    }
    f.write_str(")")
}

/// SMEM offset: an immediate (signed 21-bit for loads), an SGPR, or both (soe).
pub fn write_smem_offset(inst: &Inst, f: &mut impl Write) -> fmt::Result {
    let imm = inst.bit(0, 17);
    let soe = inst.bit(0, 14);
    if soe {
        // an SGPR offset, plus the immediate as an `offset:` modifier (written with the modifiers)
        return write_register(f, inst.bits(1, 25, 7) as u16, 1, "v");
    }
    if imm {
        write_smem_imm(inst, f)
    } else {
        write_register(f, inst.bits(1, 0, 7) as u16, 1, "v")
    }
}

/// LLVM 15 prints every SMEM immediate offset as a signed 21-bit value (stores included).
fn write_smem_imm(inst: &Inst, f: &mut impl Write) -> fmt::Result {
    let raw = inst.bits(1, 0, 21);
    if raw & (1 << 20) != 0 {
        write!(f, "-{:#x}", (1u32 << 21) - raw)
    } else {
        write!(f, "{raw:#x}")
    }
}

pub fn write_interp_attr(inst: &Inst, f: &mut impl Write) -> fmt::Result {
    let (attr, chan) = if inst.format() == Format::Vintrp {
        (inst.bits(0, 10, 6), inst.bits(0, 8, 2))
    } else {
        (inst.bits(1, 0, 6), inst.bits(1, 6, 2))
    };
    write!(f, "attr{attr}.{}", ["x", "y", "z", "w"][chan as usize])
}

pub fn write_interp_param(inst: &Inst, f: &mut impl Write) -> fmt::Result {
    // VINTRP: bits 7:0; VOP3: the 9-bit src1 field
    let p = if inst.format() == Format::Vintrp {
        inst.bits(0, 0, 8)
    } else {
        inst.bits(1, 9, 9)
    };
    match p {
        0 => f.write_str("p10"),
        1 => f.write_str("p20"),
        2 => f.write_str("p0"),
        _ => write!(f, "invalid_param_{p}"),
    }
}

pub fn write_exp_target(f: &mut impl Write, tgt: u32) -> fmt::Result {
    match tgt {
        0..=7 => write!(f, "mrt{tgt}"),
        8 => f.write_str("mrtz"),
        9 => f.write_str("null"),
        12..=15 => write!(f, "pos{}", tgt - 12),
        32..=63 => write!(f, "param{}", tgt - 32),
        _ => write!(f, "invalid_target_{tgt}"),
    }
}

const SDWA_SEL: [&str; 8] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "SEL_7",
];
// LLVM prints the reserved value 3 as UNUSED_PAD.
const DST_UNUSED: [&str; 4] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];

fn flag(f: &mut impl Write, on: bool, name: &str) -> fmt::Result {
    if on {
        write!(f, " {name}")
    } else {
        Ok(())
    }
}

fn write_clamp_omod(f: &mut impl Write, clamp: bool, omod: u32) -> fmt::Result {
    flag(f, clamp, "clamp")?;
    match omod {
        1 => f.write_str(" mul:2"),
        2 => f.write_str(" mul:4"),
        3 => f.write_str(" div:2"),
        _ => Ok(()),
    }
}

pub(crate) fn nsrc(inst: &Inst) -> usize {
    if inst.gfx940 && crate::llvm19::three_source_modifiers(inst.info().op) {
        return 3;
    }
    inst.info()
        .operands
        .iter()
        .filter(|s| matches!(s, Slot::Reg { field, .. } if field.source_index().is_some()))
        .count()
}

fn write_bits_list(f: &mut impl Write, name: &str, v: u32, n: usize) -> fmt::Result {
    write!(f, " {name}:[")?;
    for i in 0..n {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{}", (v >> i) & 1)?;
    }
    f.write_str("]")
}

/// The DPP control as LLVM 15 prints it. gfx90a has `row_newbcast`, and its DPP of a 64-bit
/// source (`src0_64`) takes nothing else. LLVM 19 (`llvm19`, gfx940's reference) says so of any
/// op with a 64-bit operand (its "DP ALU" ops), in other words.
pub fn write_dpp_ctrl(
    f: &mut impl Write,
    c: u32,
    gfx90a: bool,
    src0_64: bool,
    llvm19: bool,
) -> fmt::Result {
    match c {
        0x150..=0x15f if gfx90a => write!(f, " row_newbcast:{}", c - 0x150),
        _ if llvm19 && src0_64 => f.write_str("  /* DP ALU dpp only supports row_newbcast */"),
        _ if gfx90a && src0_64 => f.write_str("  /* 64 bit dpp only supports row_newbcast */"),
        0x000..=0x0ff => write!(
            f,
            " quad_perm:[{},{},{},{}]",
            c & 3,
            (c >> 2) & 3,
            (c >> 4) & 3,
            (c >> 6) & 3
        ),
        0x101..=0x10f => write!(f, " row_shl:{}", c - 0x100),
        0x111..=0x11f => write!(f, " row_shr:{}", c - 0x110),
        0x121..=0x12f => write!(f, " row_ror:{}", c - 0x120),
        0x130 => f.write_str(" wave_shl:1"),
        0x134 => f.write_str(" wave_rol:1"),
        0x138 => f.write_str(" wave_shr:1"),
        0x13c => f.write_str(" wave_ror:1"),
        0x140 => f.write_str(" row_mirror"),
        0x141 => f.write_str(" row_half_mirror"),
        0x142 => f.write_str(" row_bcast:15"),
        0x143 => f.write_str(" row_bcast:31"),
        // gfx90a/gfx10 controls: LLVM 15 names them in a comment (with its doubled space).
        0x150..=0x15f => f.write_str(
            "  /* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */",
        ),
        0x160..=0x16f => {
            f.write_str(" /* row_xmask is not supported on ASICs earlier than GFX10 */")
        }
        _ => f.write_str(" /* Invalid dpp_ctrl value */"),
    }
}

pub(crate) const DFMT: [&str; 16] = [
    "BUF_DATA_FORMAT_INVALID",
    "BUF_DATA_FORMAT_8",
    "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8",
    "BUF_DATA_FORMAT_32",
    "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11",
    "BUF_DATA_FORMAT_11_11_10",
    "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10",
    "BUF_DATA_FORMAT_8_8_8_8",
    "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16",
    "BUF_DATA_FORMAT_32_32_32",
    "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15",
];
pub(crate) const NFMT: [&str; 8] = [
    "BUF_NUM_FORMAT_UNORM",
    "BUF_NUM_FORMAT_SNORM",
    "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED",
    "BUF_NUM_FORMAT_UINT",
    "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6",
    "BUF_NUM_FORMAT_FLOAT",
];

/// The trailing modifiers of each format.
pub fn write_modifiers(inst: &Inst, f: &mut impl Write) -> fmt::Result {
    let w0 = inst.words[0];
    let b0 = |b: u32| w0 & (1 << b) != 0;
    match inst.format() {
        Format::Smem => {
            if b0(14) && b0(17) {
                f.write_str(" offset:")?;
                write_smem_imm(inst, f)?;
            }
            // Bit 15 (nv) is not decoded by LLVM 15 for gfx9: it is neither printed nor kept.
            flag(f, b0(16), "glc")
        }
        Format::Vop1 | Format::Vop2 | Format::Vopc => match inst.enc {
            Enc::Native => Ok(()),
            Enc::Sdwa => {
                let w1 = inst.words[1];
                let is_vopc = inst.format() == Format::Vopc;
                if !is_vopc {
                    write_clamp_omod(f, w1 & (1 << 13) != 0, (w1 >> 14) & 3)?;
                }
                // (gfx940's conversions from FP8/BF8 have no destination selects in LLVM 19.)
                let dst_sel = !(inst.gfx940 && crate::llvm19::sdwa_without_dst(inst.info().op));
                if !is_vopc && dst_sel {
                    write!(f, " dst_sel:{}", SDWA_SEL[((w1 >> 8) & 7) as usize])?;
                    write!(f, " dst_unused:{}", DST_UNUSED[((w1 >> 11) & 3) as usize])?;
                }
                write!(f, " src0_sel:{}", SDWA_SEL[((w1 >> 16) & 7) as usize])?;
                if inst.format() != Format::Vop1 {
                    write!(f, " src1_sel:{}", SDWA_SEL[((w1 >> 24) & 7) as usize])?;
                }
                Ok(())
            }
            Enc::Dpp => {
                let w1 = inst.words[1];
                let src0_64 = inst.info().operands.iter().any(|s| match s {
                    // LLVM 19: any 64-bit operand
                    Slot::Reg { dwords: 2.., .. } if inst.gfx940 => true,
                    Slot::Reg {
                        field: crate::table::Field::Src0,
                        dwords: 2..,
                        ..
                    } => true,
                    _ => false,
                });
                write_dpp_ctrl(f, (w1 >> 8) & 0x1ff, inst.gfx90a, src0_64, inst.gfx940)?;
                write!(
                    f,
                    " row_mask:{:#x} bank_mask:{:#x}",
                    w1 >> 28,
                    (w1 >> 24) & 0xf
                )?;
                flag(f, w1 & (1 << 19) != 0, "bound_ctrl:1")
            }
        },
        Format::Vop3 => {
            // One element per source, then the destination's, which is always bit 3.
            let op_sel = (w0 >> 11) & 0xf;
            if op_sel != 0 && inst.info().flags & crate::table::OP_SEL != 0 {
                let n = nsrc(inst);
                let listed = (op_sel & ((1 << n) - 1)) | ((op_sel >> 3) << n);
                write_bits_list(f, "op_sel", listed, n + 1)?;
            }
            // f16 interpolation: the attribute's high half (src0 bit 8)
            let interp_high = inst.info().op.is_interp() && inst.bit(1, 8);
            flag(f, interp_high, "high")?;
            write_clamp_omod(f, b0(15), (inst.words[1] >> 27) & 3)
        }
        Format::Vop3p if inst.info().is_mfma() => {
            let cbsz = (w0 >> 8) & 7;
            let abid = (w0 >> 11) & 0xf;
            let blgp = inst.words[1] >> 29;
            if cbsz != 0 {
                write!(f, " cbsz:{cbsz}")?;
            }
            if abid != 0 {
                write!(f, " abid:{abid}")?;
            }
            let dgemm = inst.info().op.mfma_shape().is_some_and(|s| s.is_dgemm());
            if blgp != 0 && inst.gfx940 && dgemm {
                // gfx940's f64 ops negate A, B and C with these bits (LLVM 19's `neg`).
                return write_bits_list(f, "neg", blgp, 3);
            }
            if blgp != 0 {
                write!(f, " blgp:{blgp}")?;
            }
            Ok(())
        }
        Format::Vop3p if inst.info().is_accvgpr_vop3p() => Ok(()),
        Format::Vop3p => {
            let n = nsrc(inst);
            let op_sel = (w0 >> 11) & 7;
            let op_sel_hi = ((inst.words[1] >> 27) & 3) | (((w0 >> 14) & 1) << 2);
            let neg_lo = inst.words[1] >> 29;
            let neg_hi = (w0 >> 8) & 7;
            let full = (1u32 << n) - 1;
            if op_sel & full != 0 {
                write_bits_list(f, "op_sel", op_sel, n)?;
            }
            let mix = inst.info().facts.mix;
            if (!mix && op_sel_hi & full != full) || (mix && op_sel_hi & full != 0) {
                write_bits_list(f, "op_sel_hi", op_sel_hi, n)?;
            }
            // The mix ops show neg_lo/neg_hi as each source's neg/abs instead.
            if !mix && neg_lo & full != 0 {
                write_bits_list(f, "neg_lo", neg_lo, n)?;
            }
            if !mix && neg_hi & full != 0 {
                write_bits_list(f, "neg_hi", neg_hi, n)?;
            }
            flag(f, b0(15), "clamp")
        }
        Format::Ds => {
            let (o0, o1) = (w0 & 0xff, (w0 >> 8) & 0xff);
            if inst.info().facts.dual {
                if o0 != 0 {
                    write!(f, " offset0:{o0}")?;
                }
                if o1 != 0 {
                    write!(f, " offset1:{o1}")?;
                }
            } else if inst.info().op == Op::DS_SWIZZLE_B32 {
                write_swizzle(f, w0 & 0xffff)?;
            } else if w0 & 0xffff != 0 {
                write!(f, " offset:{}", w0 & 0xffff)?;
            }
            // gfx940 has no GDS: LLVM 19 ignores the bit there.
            flag(f, b0(16) && !inst.gfx940, "gds")
        }
        Format::Mubuf | Format::Mtbuf => {
            if inst.format() == Format::Mtbuf {
                let dfmt = (w0 >> 19) & 0xf;
                let nfmt = (w0 >> 23) & 0x7;
                // Only the parts that differ from the defaults (BUF_DATA_FORMAT_8, UNORM).
                match (dfmt != 1, nfmt != 0) {
                    (true, true) => write!(
                        f,
                        " format:[{},{}]",
                        DFMT[dfmt as usize], NFMT[nfmt as usize]
                    )?,
                    (true, false) => write!(f, " format:[{}]", DFMT[dfmt as usize])?,
                    (false, true) => write!(f, " format:[{}]", NFMT[nfmt as usize])?,
                    (false, false) => {}
                }
            }
            flag(f, b0(13), "idxen")?;
            flag(f, b0(12), "offen")?;
            if w0 & 0xfff != 0 {
                write!(f, " offset:{}", w0 & 0xfff)?;
            }
            let slc = if inst.format() == Format::Mtbuf {
                inst.words[1] & (1 << 22) != 0
            } else {
                b0(17)
            };
            if inst.gfx940 {
                // gfx940's cache-policy bits: glc is sc0, slc nt and MUBUF bit 15 sc1, printed in
                // this order.
                write_cache_policy(f, b0(14), slc, inst.format() == Format::Mubuf && b0(15))?;
                return flag(f, inst.format() == Format::Mubuf && b0(16), "lds");
            }
            flag(f, b0(14), "glc")?;
            flag(f, slc, "slc")?;
            if inst.format() == Format::Mubuf {
                // gfx90a's MUBUF bit 15 is the `scc` cache-policy bit (llvm-mc-15 prints it,
                // though its assembler takes it only for gfx940).
                flag(f, inst.gfx90a && b0(15), "scc")?;
                flag(f, b0(16), "lds")?;
            }
            flag(f, !inst.gfx90a && inst.words[1] & (1 << 23) != 0, "tfe")
        }
        Format::Mimg => {
            if (w0 >> 8) & 0xf != 0 {
                write!(f, " dmask:{:#x}", (w0 >> 8) & 0xf)?;
            }
            flag(f, b0(12), "unorm")?;
            flag(f, b0(13), "glc")?;
            flag(f, b0(25), "slc")?;
            flag(f, b0(15), "a16")?;
            flag(f, !inst.gfx90a && b0(16), "tfe")?;
            flag(f, b0(17), "lwe")?;
            flag(f, b0(14), "da")?;
            flag(f, inst.words[1] & (1 << 31) != 0, "d16")
        }
        Format::Flat | Format::Global | Format::Scratch => {
            let raw = w0 & 0x1fff;
            let off = if inst.format() == Format::Flat {
                raw as i32
            } else {
                ((raw << 19) as i32) >> 19
            };
            if off != 0 {
                write!(f, " offset:{off}")?;
            }
            if inst.gfx940 {
                // Bit 13 is the scratch address's VGPR enable there, printed as an operand.
                return write_cache_policy(f, b0(16), b0(17), b0(25));
            }
            flag(f, b0(16), "glc")?;
            flag(f, b0(17), "slc")?;
            flag(f, b0(13), "lds")
        }
        Format::Exp => {
            flag(f, b0(11), "done")?;
            flag(f, b0(10), "compr")?;
            flag(f, b0(12), "vm")
        }
        _ => Ok(()),
    }
}

/// gfx940's cache-policy modifiers, in LLVM 19's order.
fn write_cache_policy(f: &mut impl Write, sc0: bool, nt: bool, sc1: bool) -> fmt::Result {
    flag(f, sc0, "sc0")?;
    flag(f, nt, "nt")?;
    flag(f, sc1, "sc1")
}

pub fn is_vop3b(inst: &Inst) -> bool {
    is_vop3b_info(inst.info())
}

/// VOP3B rows carry an SGPR destination (`sdst`) where VOP3A has the abs bits.
pub fn is_vop3b_info(info: &crate::table::OpInfo) -> bool {
    info.operands.iter().any(|s| {
        matches!(
            s,
            Slot::Reg {
                field: crate::table::Field::Sdst,
                ..
            }
        )
    })
}

/// ds_swizzle_b32's offset, in LLVM's `swizzle(...)` notation where it has one.
///
/// Offset bit 15 set with bits 14:8 clear selects quad-permute mode (four 2-bit lane selects);
/// bit 15 clear selects bitmask mode, lane = ((id & and) | or) ^ xor over 5-bit masks at bits
/// 4:0, 9:5 and 14:10. Bitmask forms that are a swap, a reverse or a broadcast get those names.
pub fn write_swizzle(f: &mut impl Write, off: u32) -> fmt::Result {
    if off == 0 {
        return Ok(());
    }
    if off & 0xff00 == 0x8000 {
        let l = |i: u32| (off >> (2 * i)) & 3;
        return write!(
            f,
            " offset:swizzle(QUAD_PERM,{},{},{},{})",
            l(0),
            l(1),
            l(2),
            l(3)
        );
    }
    if off & 0x8000 != 0 {
        return write!(f, " offset:{off}");
    }
    let and_mask = off & 0x1f;
    let or_mask = (off >> 5) & 0x1f;
    let xor_mask = (off >> 10) & 0x1f;
    if and_mask == 0x1f && or_mask == 0 && xor_mask.count_ones() == 1 {
        // exchange lanes whose ids differ in one bit
        return write!(f, " offset:swizzle(SWAP,{xor_mask})");
    }
    if and_mask == 0x1f && or_mask == 0 && xor_mask != 0 && (xor_mask + 1).is_power_of_two() {
        // reverse the lane order within groups of xor + 1
        return write!(f, " offset:swizzle(REVERSE,{})", xor_mask + 1);
    }
    let group = 0x20 - and_mask;
    if group > 1 && group.is_power_of_two() && or_mask < group && xor_mask == 0 {
        // every lane of a group reads lane `or` of its group
        return write!(f, " offset:swizzle(BROADCAST,{group},{or_mask})");
    }
    // Per lane-id bit, from bit 4 down, what the result bit is when the id bit is 0 and when
    // it is 1: constant 0 or 1, passed through (`p`) or inverted (`i`).
    let when0 = or_mask ^ xor_mask;
    let when1 = (and_mask | or_mask) ^ xor_mask;
    write!(f, " offset:swizzle(BITMASK_PERM,\"")?;
    for i in (0..5).rev() {
        let c = match ((when0 >> i) & 1, (when1 >> i) & 1) {
            (0, 0) => '0',
            (1, 1) => '1',
            (0, 1) => 'p',
            _ => 'i',
        };
        f.write_char(c)?;
    }
    f.write_str("\")")
}
