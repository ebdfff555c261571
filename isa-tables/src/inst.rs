//! The decoded instruction: a row of the opcode table plus its canonical encoding words.
//!
//! Keeping the words (rather than a struct per format) makes `encode` exact by construction and
//! lets every accessor read the ISA's own bit fields; `fields.rs` says where each one lives.

use crate::facts::Atomic;
use crate::fields::{self, Enc};
use crate::operand;
use crate::table::{op_info, Field, Format, OpId, OpInfo, Slot};

/// One decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub(crate) op: OpId,
    pub(crate) enc: Enc,
    /// The (canonical) encoding: word 1 is the second dword of 64-bit formats, or the SDWA/DPP word.
    pub(crate) words: [u32; 2],
    pub(crate) literal: Option<u32>,
    /// Bytes this instruction occupied in the input (a literal LLVM folds to an inline constant
    /// still occupied its dword).
    pub(crate) len: u8,
    /// Decoded for a target with gfx90a's encodings (`Features::gfx90a_insts`), where memory
    /// instructions have an `acc` bit (their data registers are AGPRs) in place of gfx9's `tfe`,
    /// and MUBUF an `scc` cache bit.
    pub(crate) gfx90a: bool,
    /// Decoded for a target with gfx940's encodings (`Features::gfx940_insts`): the cache-policy
    /// bits print as `sc0`, `sc1` and `nt`, and the text follows LLVM 19 (the reference for these
    /// targets) where it differs from LLVM 15's.
    pub(crate) gfx940: bool,
}

impl Inst {
    pub fn op(&self) -> OpId {
        self.op
    }

    pub fn info(&self) -> &'static OpInfo {
        op_info(self.op)
    }

    pub fn format(&self) -> Format {
        self.info().format
    }

    pub fn enc(&self) -> Enc {
        self.enc
    }

    /// The mnemonic as LLVM prints it (`v_add_f32_e32`, `v_add_f32_sdwa`...).
    pub fn mnemonic(&self) -> std::borrow::Cow<'static, str> {
        let info = self.info();
        match self.enc {
            Enc::Native => info.name.into(),
            Enc::Sdwa => format!("{}_sdwa", info.base_name()).into(),
            Enc::Dpp => format!("{}_dpp", info.base_name()).into(),
        }
    }

    /// Bytes consumed from the input.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn words(&self) -> [u32; 2] {
        self.words
    }

    pub fn literal(&self) -> Option<u32> {
        self.literal
    }

    /// Number of encoding dwords before the literal.
    pub(crate) fn base_dwords(&self) -> usize {
        if self.enc != Enc::Native {
            return 2;
        }
        match self.format() {
            Format::Sop2
            | Format::Sopk
            | Format::Sop1
            | Format::Sopc
            | Format::Sopp
            | Format::Vop2
            | Format::Vop1
            | Format::Vopc
            | Format::Vintrp => 1,
            _ => 2,
        }
    }

    /// The canonical encoding, as little-endian dwords.
    pub fn encode_words(&self) -> Vec<u32> {
        let mut out = self.words[..self.base_dwords()].to_vec();
        out.extend(self.literal);
        out
    }

    /// The canonical encoding as bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_words()
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect()
    }

    /// Does `field`, when it holds a vector register, name an accumulation register (AGPR)?
    pub fn is_agpr(&self, field: Field) -> bool {
        match field {
            Field::VdstAgpr | Field::Src0Agpr | Field::Src1Agpr | Field::Src2Agpr => true,
            Field::VdstAcd | Field::Src2Acd => self.words[0] & (1 << 15) != 0,
            Field::Src0Acc => self.words[1] & (1 << 27) != 0,
            Field::Src1Acc => self.words[1] & (1 << 28) != 0,
            Field::Vdata | Field::Vdst | Field::Data0 | Field::Data1 => self.memory_acc(),
            _ => false,
        }
    }

    /// gfx90a memory instructions: is the `acc` bit set, so that the data registers are AGPRs?
    /// (DS bit 25; MUBUF, MTBUF and the FLAT family word 1 bit 23; MIMG bit 16.)
    pub fn memory_acc(&self) -> bool {
        self.gfx90a
            && match self.format() {
                Format::Ds => self.words[0] & (1 << 25) != 0,
                Format::Mubuf | Format::Mtbuf | Format::Flat | Format::Global | Format::Scratch => {
                    self.words[1] & (1 << 23) != 0
                }
                Format::Mimg => self.words[0] & (1 << 16) != 0,
                _ => false,
            }
    }

    /// The operand code held by `field`, if this encoding has it.
    pub fn code(&self, field: Field) -> Option<u16> {
        if self.enc == Enc::Sdwa && field == Field::Vsrc1 {
            // SDWA: vsrc1 is an SGPR when the S1 bit (word 1, bit 31) is set.
            let raw = ((self.words[0] >> 9) & 0xff) as u16;
            return Some(if self.words[1] & (1 << 31) != 0 {
                raw
            } else {
                256 + raw
            });
        }
        if self.enc == Enc::Sdwa && field == Field::Src0 {
            // SDWA: src0 is an SGPR when the S0 bit (word 1, bit 23) is set.
            let raw = (self.words[1] & 0xff) as u16;
            return Some(if self.words[1] & (1 << 23) != 0 {
                raw
            } else {
                256 + raw
            });
        }
        fields::locate(self.format(), self.enc, field).map(|l| fields::get(&self.words, l))
    }

    /// The raw bits `[lo, lo+bits)` of word `word`.
    pub fn bits(&self, word: usize, lo: u32, bits: u32) -> u32 {
        (self.words[word] >> lo) & ((1u32 << bits) - 1)
    }

    pub(crate) fn bit(&self, word: usize, b: u32) -> bool {
        self.words[word] & (1 << b) != 0
    }

    /// The simm16 of SOPK/SOPP.
    pub fn simm16(&self) -> u16 {
        self.words[0] as u16
    }

    /// For a branch at byte address `pc`: the address it jumps to (`pc + 4 + simm16 * 4`).
    pub fn branch_target(&self, pc: u64) -> Option<u64> {
        let is_label = self
            .info()
            .operands
            .iter()
            .any(|s| matches!(s, Slot::Imm(crate::table::ImmKind::Label)));
        if !is_label {
            return None;
        }
        let off = self.simm16() as i16 as i64;
        Some((pc as i64 + 4 + off * 4) as u64)
    }

    /// Register operands as (field, code, dwords), in printed order.
    pub fn register_operands(&self) -> impl Iterator<Item = (Field, u16, u8)> + '_ {
        self.info().operands.iter().filter_map(move |s| match *s {
            Slot::Reg { field, dwords, .. } => {
                let code = self.code(field)?;
                (!operand::is_inline_constant(code) && code != operand::LITERAL).then_some((
                    field,
                    code,
                    self.operand_dwords(field, dwords),
                ))
            }
            _ => None,
        })
    }

    /// The width of a register operand, which for images depends on dmask/d16/tfe.
    pub fn operand_dwords(&self, field: Field, table_dwords: u8) -> u8 {
        match (self.format(), field) {
            // global: a 64-bit address unless an SGPR base supplies it
            (Format::Global, Field::Vaddr) => {
                return if self.bits(1, 16, 7) == 0x7f { 2 } else { 1 }
            }
            // buffers: index and offset together take two VGPRs
            (Format::Mubuf | Format::Mtbuf, Field::Vaddr) => {
                return if self.bits(0, 12, 2) == 3 { 2 } else { 1 }
            }
            _ => {}
        }
        if self.format() == Format::Mimg && field == Field::Vdata {
            return self.mimg_vdata_dwords();
        }
        if matches!(field, Field::Src2Agpr | Field::Src2Acd) {
            return self.mfma_scalar_c_dwords(table_dwords);
        }
        table_dwords
    }

    /// The width LLVM 15 gives an MFMA's C operand held in scalar registers: it has no 1024-bit
    /// scalar tuple, so a 32-register C prints its first SGPR or TTMP alone, and the special
    /// registers print by name (the 64-bit ones as pairs) whatever the width.
    fn mfma_scalar_c_dwords(&self, table_dwords: u8) -> u8 {
        let code = self.code(Field::Src2).unwrap_or(operand::VGPR0);
        match code {
            0..=101 | 108..=123 if table_dwords == 32 => 1,
            operand::VCC_LO
            | operand::EXEC_LO
            | operand::FLAT_SCRATCH_LO
            | operand::XNACK_MASK_LO => 2,
            235..=239 | 251..=253 => 1,
            _ => table_dwords,
        }
    }

    /// MIMG vdata width, as LLVM 15 decodes it: one dword per dmask bit (gather4 always
    /// returns 4), halved and rounded up with d16 (packed on gfx9), plus one with tfe. LLVM
    /// only has some widths per kind of op; for any other the op keeps its default width:
    /// atomics 1 or 2 (default 1), cmpswap 2 or 4 (default 2), gather4 2, 4 or 5 (default 4),
    /// everything else 1 to 5.
    fn mimg_vdata_dwords(&self) -> u8 {
        let facts = &self.info().facts;
        let gather = facts.gather4;
        let (default, widths): (u32, &[u32]) = if facts.atomic == Some(Atomic::CmpSwap) {
            (2, &[2, 4])
        } else if facts.atomic.is_some() {
            (1, &[1, 2])
        } else if gather {
            (4, &[2, 4, 5])
        } else {
            (4, &[1, 2, 3, 4, 5])
        };
        let mut n = if gather {
            4
        } else {
            self.bits(0, 8, 4).count_ones().max(1)
        };
        if self.bit(1, 31) {
            n = n.div_ceil(2); // d16 packs two components per dword
        }
        if self.bit(0, 16) && !self.gfx90a {
            n += 1; // tfe returns a status dword (on gfx90a the bit is acc)
        }
        if widths.contains(&n) {
            n as u8
        } else {
            default as u8
        }
    }
}
