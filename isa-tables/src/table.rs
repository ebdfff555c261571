//! The opcode table: one row per (format, opcode, targets), compiled from `data/gfx9-ops.tsv`.

use crate::facts::{Atomic, DstUse, Facts, Literal64, MemKind, Rate, Regs, Rounding, D16};
use crate::target::OpSet;
use crate::Target;

/// A gfx9 encoding format (the first word's fixed bits select it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Sop2,
    Sopk,
    Sop1,
    Sopc,
    Sopp,
    Smem,
    Vop2,
    Vop1,
    Vopc,
    Vop3,
    Vop3p,
    Vintrp,
    Ds,
    Mubuf,
    Mtbuf,
    Mimg,
    Flat,
    Global,
    Scratch,
    Exp,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Sop2 => "SOP2",
            Format::Sopk => "SOPK",
            Format::Sop1 => "SOP1",
            Format::Sopc => "SOPC",
            Format::Sopp => "SOPP",
            Format::Smem => "SMEM",
            Format::Vop2 => "VOP2",
            Format::Vop1 => "VOP1",
            Format::Vopc => "VOPC",
            Format::Vop3 => "VOP3",
            Format::Vop3p => "VOP3P",
            Format::Vintrp => "VINTRP",
            Format::Ds => "DS",
            Format::Mubuf => "MUBUF",
            Format::Mtbuf => "MTBUF",
            Format::Mimg => "MIMG",
            Format::Flat => "FLAT",
            Format::Global => "GLOBAL",
            Format::Scratch => "SCRATCH",
            Format::Exp => "EXP",
        }
    }

    /// FLAT, GLOBAL and SCRATCH share one encoding, told apart by the `seg` field.
    pub fn is_flat_family(self) -> bool {
        matches!(self, Format::Flat | Format::Global | Format::Scratch)
    }
}

/// An encoding field that holds a register operand (see `fields.rs` for where each one lives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Sdst,
    Ssrc0,
    Ssrc1,
    Sdata,
    Sbase,
    Vdst,
    /// VOPC-as-VOP3 and v_readlane write an SGPR through the vdst field.
    VdstSgpr,
    VdstAgpr,
    Src0,
    Src0Agpr,
    Vsrc1,
    Src1,
    Src1Agpr,
    Src2,
    Src2Agpr,
    /// gfx90a MFMA D and C: AGPRs when the `acc_cd` bit (word 0 bit 15) is set, else VGPRs.
    VdstAcd,
    Src2Acd,
    /// MFMA A and B: AGPRs when their `acc` bit (word 1 bit 27, 28) is set, else VGPRs (or, as
    /// for any VOP3P source, SGPRs and constants).
    Src0Acc,
    Src1Acc,
    Addr,
    Data0,
    Data1,
    Vdata,
    Vaddr,
    Srsrc,
    Ssamp,
    Soffset,
    Saddr,
    Vsrc,
    Vsrc0,
    Vsrc1Exp,
    Vsrc2,
    Vsrc3,
}

impl Field {
    /// The VALU source position (0, 1, 2) of a source field, whichever register file it names.
    pub fn source_index(self) -> Option<usize> {
        match self {
            Field::Src0 | Field::Src0Agpr | Field::Src0Acc => Some(0),
            Field::Src1 | Field::Src1Agpr | Field::Src1Acc | Field::Vsrc1 => Some(1),
            Field::Src2 | Field::Src2Agpr | Field::Src2Acd => Some(2),
            _ => None,
        }
    }
}

/// How an operand prints inline constants and literals (LLVM's operand types collapse to these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmClass {
    /// Register only, or a width whose constants print like 32-bit ones.
    None,
    /// 32-bit int or float: float inline constants print as floats, literals as 32-bit hex.
    B32,
    /// f16: literals keep their low 16 bits.
    F16,
    /// i16: float inline constants print as their f16 bit patterns.
    I16,
    /// f64: a 32-bit literal is the high half of the value.
    F64,
    /// i64: a 32-bit literal is sign-extended.
    I64,
    /// A source that takes registers only (LLVM's register-class operands: v_readfirstlane_b32's
    /// src0, a carry-in, s_setpc_b64's target...): LLVM 15 decodes a constant there but prints
    /// `/*invalid immediate*/`, which no assembler takes back.
    RegOnly,
}

/// A format-specific immediate operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmKind {
    Simm16,
    Uimm16,
    Label,
    Hwreg,
    Sendmsg,
    Waitcnt,
    GprIdxMode,
    GprIdxOn,
    SmemOffset,
    SmemSdataImm,
    Literal,
    InterpAttr,
    InterpParam,
    ExpTgt,
}

/// One printed operand of an instruction, in LLVM's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Reg {
        field: Field,
        dwords: u8,
        class: ImmClass,
    },
    Imm(ImmKind),
    /// A register LLVM prints but the encoding implies (`vcc` of VOP2 carry ops, `off`).
    Fixed(&'static str),
}

/// One row of the opcode table.
#[derive(Debug)]
pub struct OpInfo {
    /// The mnemonic as LLVM prints it for this encoding (`v_add_f32_e32`, `v_add_f32_e64`).
    pub name: &'static str,
    /// The operation, shared by the op's encodings.
    pub op: Op,
    pub format: Format,
    pub opcode: u32,
    /// One bit per [`OpSet`] ([`OpSet::bit`]): gfx900 (and the other gfx90x APUs), gfx906,
    /// gfx908, gfx90a.
    pub targets: u8,
    /// `OP_SEL` and `INPUT_MODS` bits.
    pub flags: u8,
    pub facts: Facts,
    pub operands: &'static [Slot],
}

/// VOP3: LLVM prints the op_sel field.
pub const OP_SEL: u8 = 1;
/// VALU: the sources take neg/abs input modifiers.
pub const INPUT_MODS: u8 = 2;
/// VALU with INPUT_MODS: source 1 (`INT_SRC1`) or 2 (`INT_SRC2`) is an integer (v_ldexp's
/// exponent, v_cvt_pk_u8_f32's byte index and accumulator): LLVM prints its neg bit as `sext(...)`
/// and does not print its abs bit.
pub const INT_SRC1: u8 = 4;
pub const INT_SRC2: u8 = 8;
/// VOP2 with INPUT_MODS whose SDWA form treats both sources as integers (v_cndmask_b32: sext
/// instead of neg/abs).
pub const SDWA_INT: u8 = 16;
/// VOP3: llvm-mc-15 rejects the encoding with clamp set (integer ops and compares without it).
pub const NO_CLAMP: u8 = 32;
/// VOP3: llvm-mc-15 rejects the encoding with omod set (all but float-result arithmetic).
pub const NO_OMOD: u8 = 64;

impl OpInfo {
    /// Do the SDWA source modifiers of this op mean neg/abs (float) rather than sext?
    pub fn sdwa_float_mods(&self) -> bool {
        self.flags & INPUT_MODS != 0 && self.flags & SDWA_INT == 0
    }

    /// Is VALU source `i` an integer operand of an op with input modifiers?
    pub fn int_source(&self, i: usize) -> bool {
        match i {
            1 => self.flags & INT_SRC1 != 0,
            2 => self.flags & INT_SRC2 != 0,
            _ => false,
        }
    }

    /// A matrix multiply-accumulate (`v_mfma_*`): VOP3P whose modifier bits are `cbsz` (word 0
    /// [10:8]), `abid` [14:11], `acc_cd` [15], the A/B `acc` bits (word 1 [28:27]) and `blgp`
    /// [31:29] (LLVM's `VOP3Pe_MAI`).
    pub fn is_mfma(&self) -> bool {
        self.has_field(Field::Src0Acc)
    }

    /// `v_accvgpr_read_b32`/`v_accvgpr_write_b32`: VOP3P without modifiers.
    pub fn is_accvgpr_vop3p(&self) -> bool {
        self.format == Format::Vop3p
            && (self.has_field(Field::VdstAgpr) || self.has_field(Field::Src0Agpr))
            && !self.is_mfma()
    }

    pub fn has_field(&self, f: Field) -> bool {
        self.operands
            .iter()
            .any(|s| matches!(s, Slot::Reg { field, .. } if *field == f))
    }

    /// The mnemonic without LLVM's encoding suffix (`_e32`, `_e64`).
    pub fn base_name(&self) -> &'static str {
        self.name
            .strip_suffix("_e32")
            .or_else(|| self.name.strip_suffix("_e64"))
            .unwrap_or(self.name)
    }
}

include!(concat!(env!("OUT_DIR"), "/ops.rs"));

/// Index of a row in the opcode table.
pub type OpId = u16;

pub fn op_info(id: OpId) -> &'static OpInfo {
    &OPS[id as usize]
}

/// All rows, for tests and manifests.
pub fn all_ops() -> &'static [OpInfo] {
    &OPS
}

pub(crate) fn target_bit(target: Target) -> u8 {
    target.op_set().bit()
}

/// Finds the row for `opcode` of `format` on `target`.
pub fn lookup(format: Format, opcode: u32, target: Target) -> Option<OpId> {
    // A dense (op set, format, opcode) → row index, built once: decoding looks up every
    // instruction, and a direct index is several times cheaper than searching the rows.
    static INDEX: std::sync::OnceLock<Vec<Vec<OpId>>> = std::sync::OnceLock::new();
    const NONE: OpId = OpId::MAX;
    let index = INDEX.get_or_init(|| {
        let mut index = Vec::new();
        for set in OpSet::ALL {
            for f in 0..FORMAT_START.len() - 1 {
                let rows = &OPS[FORMAT_START[f] as usize..FORMAT_START[f + 1] as usize];
                let len = rows
                    .iter()
                    .map(|r| r.opcode as usize + 1)
                    .max()
                    .unwrap_or(0);
                let mut table = vec![NONE; len];
                for (i, r) in rows.iter().enumerate().rev() {
                    if r.targets & set.bit() != 0 {
                        table[r.opcode as usize] = (FORMAT_START[f] as usize + i) as OpId;
                    }
                }
                index.push(table);
            }
        }
        index
    });
    let per_target = FORMAT_START.len() - 1;
    let slot = target.op_set() as usize * per_target + format as usize;
    index[slot]
        .get(opcode as usize)
        .copied()
        .filter(|&id| id != NONE)
}

/// Finds a row by printed mnemonic (for the assembler).
pub fn lookup_name(name: &str, target: Target) -> impl Iterator<Item = OpId> + '_ {
    let bit = target_bit(target);
    OPS.iter()
        .enumerate()
        .filter(move |(_, r)| r.name == name && r.targets & bit != 0)
        .map(|(i, _)| i as OpId)
}
