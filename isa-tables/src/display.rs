//! LLVM-syntax text for an [`Inst`]: the mnemonic, the operands in the table's order, then the
//! format's modifiers, exactly as `llvm-objdump-15 -d` prints them.

use crate::facts::Atomic;
use crate::fields::Enc;
use crate::inst::Inst;
use crate::operand::{self, write_operand, write_register};
use crate::syntax;
use crate::table::{Field, Format, ImmClass, ImmKind, Op, Slot};
use std::fmt::{self, Write};

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

fn source_index(field: Field) -> Option<usize> {
    field.source_index()
}

impl Inst {
    /// (neg, abs, sext) input modifiers of VALU source `i`.
    pub fn source_modifiers(&self, i: usize) -> (bool, bool, bool) {
        let float_mods = self.info().flags & crate::table::INPUT_MODS != 0;
        if !float_mods && self.enc != Enc::Sdwa {
            return (false, false, false);
        }
        let int_source = self.info().int_source(i);
        match (self.format(), self.enc) {
            (Format::Vop3, _) if int_source => (false, false, self.bit(1, 29 + i as u32)),
            (Format::Vop3, _)
                if self.gfx940 && !crate::llvm19::prints_source_modifiers(self.info().op, i) =>
            {
                (false, false, false)
            }
            // VOP3B keeps sdst where VOP3A has abs.
            (Format::Vop3, _) => {
                let abs = !crate::syntax::is_vop3b(self) && self.bit(0, 8 + i as u32);
                (self.bit(1, 29 + i as u32), abs, false)
            }
            // mad_mix/fma_mix: neg_lo is the source's neg, neg_hi its abs.
            (Format::Vop3p, _) if self.info().facts.mix => {
                (self.bit(1, 29 + i as u32), self.bit(0, 8 + i as u32), false)
            }
            (Format::Vop3p, _) => (false, false, false),
            // SDWA: float ops take neg/abs, integer ops sign extension, in the same bits.
            (_, Enc::Sdwa) if i < 2 => {
                let base = 20 + 8 * i as u32;
                if self.sdwa_float_mods() && !int_source {
                    (self.bit(1, base), self.bit(1, base + 1), false)
                } else {
                    (false, false, self.bit(1, base - 1))
                }
            }
            // v_cndmask_b32's DPP form keeps neg/abs but LLVM 15 prints neither.
            (_, Enc::Dpp) if !self.sdwa_float_mods() => (false, false, false),
            // DPP: an integer source's neg bit prints as sext; its abs bit is not printed.
            (_, Enc::Dpp) if i < 2 && int_source => (false, false, self.bit(1, 20 + 2 * i as u32)),
            (_, Enc::Dpp) if i < 2 => {
                let base = 20 + 2 * i as u32;
                (self.bit(1, base), self.bit(1, base + 1), false)
            }
            _ => (false, false, false),
        }
    }

    /// Do the SDWA and DPP forms' neg/abs bits modify the sources? v_cndmask_b32 (`sdwaint`)
    /// selects between integers: LLVM 15 takes sext there, LLVM 19 (gfx940's) neg and abs.
    pub(crate) fn sdwa_float_mods(&self) -> bool {
        let info = self.info();
        info.sdwa_float_mods() || (self.gfx940 && info.flags & crate::table::INPUT_MODS != 0)
    }

    /// Writes the text [`Display`](fmt::Display) prints straight to `f`: with a `String`, the
    /// pieces are appended directly rather than through a `Formatter`.
    pub fn write_text(&self, f: &mut impl Write) -> fmt::Result {
        if self.format() == Format::Exp {
            return self.write_exp(f);
        }
        let info = self.info();
        f.write_str(&self.mnemonic())?;
        let mut first = true;
        if let Some(dwords) = self.returned_dwords() {
            // flat/global atomics with glc return the old value: vdst comes first
            f.write_str(" ")?;
            write_register(f, self.code(Field::Vdst).unwrap_or(256), dwords, "v")?;
            first = false;
        }
        for slot in info.operands {
            if self.omits(slot) {
                continue;
            }
            f.write_str(if first { " " } else { ", " })?;
            first = false;
            match *slot {
                Slot::Reg {
                    field,
                    dwords,
                    class,
                } => self.write_reg_slot(f, field, dwords, class)?,
                Slot::Fixed(text) => self.write_fixed(f, text)?,
                Slot::Imm(kind) => self.write_imm(f, kind)?,
            }
        }
        syntax::write_modifiers(self, f)
    }

    /// `exp TARGET a, b, c, d`: a disabled lane prints `off`; with `compr` lanes 0-1 show vsrc0
    /// and lanes 2-3 vsrc1 (each holds two packed 16-bit values).
    fn write_exp(&self, f: &mut impl Write) -> fmt::Result {
        f.write_str("exp ")?;
        syntax::write_exp_target(f, self.bits(0, 4, 6))?;
        let (en, compr) = (self.bits(0, 0, 4), self.bit(0, 10));
        for lane in 0..4 {
            f.write_str(if lane == 0 { " " } else { ", " })?;
            if en & (1 << lane) == 0 {
                f.write_str("off")?;
                continue;
            }
            let src = if compr { lane / 2 } else { lane };
            write_register(f, operand::VGPR0 + self.bits(1, 8 * src, 8) as u16, 1, "v")?;
        }
        syntax::write_modifiers(self, f)
    }

    /// For a returning (glc) flat-family atomic, the width of the value it returns.
    pub fn returned_dwords(&self) -> Option<u8> {
        let info = self.info();
        if !info.format.is_flat_family() || info.facts.atomic.is_none() || !self.bit(0, 16) {
            return None;
        }
        let data = info.operands.iter().find_map(|s| match s {
            Slot::Reg {
                field: Field::Vdata,
                dwords,
                ..
            } => Some(*dwords),
            _ => None,
        })?;
        Some(
            if matches!(info.facts.atomic, Some(Atomic::CmpSwap | Atomic::FCmpSwap)) {
                data / 2
            } else {
                data
            },
        )
    }

    /// Operands LLVM leaves out in some encodings.
    fn omits(&self, slot: &Slot) -> bool {
        if let (Format::Sopp, Slot::Imm(ImmKind::Uimm16)) = (self.format(), slot) {
            // s_endpgm's immediate is printed only when set
            return self.info().op == Op::S_ENDPGM && self.simm16() == 0;
        }
        match (self.format(), slot) {
            // buffer loads to LDS have no data register
            (
                Format::Mubuf,
                Slot::Reg {
                    field: Field::Vdata,
                    ..
                },
            ) => self.bit(0, 16),
            // nor do global/scratch loads into LDS (gfx940 has ops of their own for them)
            (
                Format::Global | Format::Scratch,
                Slot::Reg {
                    field: Field::Vdst, ..
                },
            ) => self.bit(0, 13) && !self.gfx940,
            _ => false,
        }
    }

    fn write_fixed(&self, f: &mut impl Write, text: &str) -> fmt::Result {
        if text == "off" && self.format() == Format::Scratch && self.gfx940 {
            // gfx940: the address has a VGPR part when SVE (bit 13) says so
            if !self.bit(0, 13) {
                return f.write_str("off");
            }
            return write_register(f, self.code(Field::Vaddr).unwrap_or(256), 1, "v");
        }
        if text == "off" && self.format() == Format::Scratch && self.bits(1, 16, 7) == 0x7f {
            // scratch: the address is a VGPR unless an SGPR supplies it
            return write_register(f, self.code(Field::Vaddr).unwrap_or(256), 1, "v");
        }
        if text == "vcc"
            && self.format() == Format::Vopc
            && self.enc == Enc::Sdwa
            && self.bit(1, 15)
        {
            // gfx9 SDWA compares may write any SGPR pair (SD bit).
            let code = ((self.words[1] >> 8) & 0x7f) as u16;
            return write_register(f, operand::align_scalar(code, 2), 2, "v");
        }
        f.write_str(text)
    }

    fn write_reg_slot(
        &self,
        f: &mut impl Write,
        field: Field,
        dwords: u8,
        class: ImmClass,
    ) -> fmt::Result {
        let code = self.code(field).unwrap_or(0);
        let dwords = self.operand_dwords(field, dwords);
        let mut class = crate::decode::source_class(self.info(), self.enc, field, class, dwords);
        if self.gfx940
            && self.format() == Format::Vop3p
            && class == ImmClass::I16
            && (240..=operand::INV_2PI).contains(&code)
        {
            // LLVM 19 prints a packed 16-bit integer op's inline float constants as floats.
            class = ImmClass::B32;
        }
        let (neg, abs, sext) = source_index(field)
            .map(|i| self.source_modifiers(i))
            .unwrap_or_default();
        let is_imm = operand::is_inline_constant(code) || code == operand::LITERAL;
        let agpr = self.is_agpr(field);
        if neg {
            f.write_str(if is_imm && !abs { "neg(" } else { "-" })?;
        }
        if abs {
            f.write_str("|")?;
        }
        if sext {
            f.write_str("sext(")?;
        }
        let buffer_without_vaddr = field == Field::Vaddr
            && matches!(self.format(), Format::Mubuf | Format::Mtbuf)
            && self.bits(0, 12, 2) == 0;
        let register_only = class == ImmClass::RegOnly
            || matches!(field, Field::Src0Acc | Field::Src1Acc)
            || (self.gfx940 && matches!(field, Field::Src0Agpr))
            || (self.gfx940
                && field == Field::Src0
                && crate::decode::src0_is_vgpr_only(self.info()));
        if (field == Field::Saddr && code == 0x7f) || buffer_without_vaddr {
            f.write_str("off")?;
        } else if self.gfx940 && register_only && is_imm {
            // LLVM 19 prints the constant as a 32-bit one (a literal that is an inline float
            // as that float), then says it may not be there.
            let lit = self.literal.unwrap_or(0);
            match operand::literal_as_inline(lit, ImmClass::B32) {
                Some(inline) if code == operand::LITERAL => {
                    operand::write_inline(f, inline, ImmClass::B32)?
                }
                _ => write_operand(f, code, dwords, ImmClass::B32, lit)?,
            }
            f.write_str("/*Invalid immediate*/")?;
        } else if matches!(field, Field::Src0Acc | Field::Src1Acc) && is_imm {
            // MFMA A and B are registers only (LLVM's AV operands): LLVM 15 prints a constant
            // there as a placeholder.
            f.write_str("/*invalid immediate*/")?;
        } else if self.gfx940
            && class == ImmClass::F16
            && code == operand::LITERAL
            && crate::llvm19::packed_f16_source(self.info().op)
        {
            write!(f, "{:#x}", self.literal.unwrap_or(0))?;
        } else if self.gfx940 && class == ImmClass::I16 && code == operand::LITERAL {
            crate::llvm19::write_i16_literal(f, self.literal.unwrap_or(0))?;
        } else if agpr && code >= operand::VGPR0 {
            write_register(f, code, dwords, "a")?;
        } else {
            write_operand(f, code, dwords, class, self.literal.unwrap_or(0))?;
        }
        if self.gfx940 {
            let table_dwords = self
                .info()
                .operands
                .iter()
                .find_map(|s| match *s {
                    Slot::Reg {
                        field: f, dwords, ..
                    } if f == field => Some(dwords),
                    _ => None,
                })
                .unwrap_or(dwords);
            if let Some(class) = crate::llvm19::register_class_note(self, field, code, table_dwords)
            {
                write!(
                    f,
                    "/*Invalid register, operand has '{class}' register class*/"
                )?;
            }
        }
        if sext {
            f.write_str(")")?;
        }
        if abs {
            f.write_str("|")?;
        }
        if neg && is_imm && !abs {
            f.write_str(")")?;
        }
        Ok(())
    }

    fn write_imm(&self, f: &mut impl Write, kind: ImmKind) -> fmt::Result {
        let imm = self.simm16();
        match kind {
            ImmKind::Simm16 => write!(f, "{:#x}", imm),
            ImmKind::Uimm16 if self.info().op == Op::S_ENDPGM => write!(f, "{imm}"),
            ImmKind::Uimm16 => syntax::write_u16(f, imm),
            ImmKind::Label => write!(f, "{}", imm),
            ImmKind::Hwreg if self.gfx940 => syntax::write_hwreg_gfx940(f, imm),
            ImmKind::Hwreg => syntax::write_hwreg(f, imm),
            ImmKind::Sendmsg if self.gfx940 => syntax::write_sendmsg_gfx940(f, imm),
            ImmKind::Sendmsg => syntax::write_sendmsg(f, imm),
            ImmKind::Waitcnt => syntax::write_waitcnt(f, imm),
            ImmKind::GprIdxMode => syntax::write_gpr_idx(f, imm as u32),
            ImmKind::GprIdxOn => syntax::write_gpr_idx(f, self.bits(0, 8, 8)),
            ImmKind::SmemOffset => syntax::write_smem_offset(self, f),
            ImmKind::SmemSdataImm => syntax::write_u16(f, self.bits(0, 6, 7) as u16),
            // s_setreg_imm32_b32's value prints like an inline constant when it is one.
            ImmKind::Literal if self.format() == Format::Sopk => {
                let lit = self.literal.unwrap_or(0);
                match operand::literal_as_inline(lit, ImmClass::B32) {
                    Some(code) => operand::write_inline(f, code, ImmClass::B32),
                    None => write!(f, "{lit:#x}"),
                }
            }
            ImmKind::Literal => write!(f, "{:#x}", self.literal.unwrap_or(0)),
            ImmKind::InterpAttr => syntax::write_interp_attr(self, f),
            ImmKind::InterpParam => syntax::write_interp_param(self, f),
            ImmKind::ExpTgt => syntax::write_exp_target(f, self.bits(0, 4, 6)),
        }
    }
}
