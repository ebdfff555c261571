//! Building one candidate encoding: operands into their fields, modifiers into their bits, and
//! the bytes through the decoder.

use super::encoding::base_words;
use super::lex::Parts;
use super::value::{parse_int, parse_operand, parse_register, Operand, Prefer};
use super::{modifiers, special, Labels};
use crate::fields::{self, Enc};
use crate::operand::LITERAL;
use crate::table::{op_info, Field, Format, ImmKind, OpId, OpInfo, Slot};
use crate::{decode, Inst, Target};

struct Builder<'a> {
    info: &'static OpInfo,
    enc: Enc,
    w: [u32; 2],
    literal: Option<u32>,
    /// The literal so far was only seen through 16-bit operands.
    literal_is_16: bool,
    prefer: Prefer,
    modifiers: &'a [&'a str],
    pc: u32,
    labels: Option<Labels<'a>>,
    target: Target,
}

/// Which source (0, 1, 2) a field is, for input modifiers.
fn source_index(field: Field) -> Option<u32> {
    field.source_index().map(|i| i as u32)
}

/// Fields whose register width follows other bits (dmask, saddr, idxen/offen).
fn variable_width(format: Format, field: Field) -> bool {
    format == Format::Mimg
        || (field == Field::Vaddr
            && matches!(format, Format::Global | Format::Mubuf | Format::Mtbuf))
}

impl Builder<'_> {
    fn format(&self) -> Format {
        self.info.format
    }

    fn has_modifier(&self, name: &str) -> bool {
        self.modifiers
            .iter()
            .any(|m| *m == name || m.split_once(':').map(|(n, _)| n) == Some(name))
    }

    fn set_bits(&mut self, word: usize, lo: u32, bits: u32, v: u32) {
        let mask = ((1u64 << bits) - 1) as u32;
        self.w[word] = (self.w[word] & !(mask << lo)) | ((v & mask) << lo);
    }

    /// Records the instruction's one literal dword. Operands sharing it may show different
    /// widths of it (a 16-bit operand prints only the low half), so a 16-bit view agrees with a
    /// 32-bit one whose low half matches, and the 32-bit value wins.
    fn set_literal(&mut self, v: u32, only_low_half: bool) -> Result<(), String> {
        let v16 = |x: u32| x & 0xffff;
        match self.literal {
            Some(old) if old == v => Ok(()),
            Some(old) if only_low_half && v16(old) == v16(v) => Ok(()),
            Some(old) if self.literal_is_16 && v16(old) == v16(v) => {
                self.literal = Some(v);
                self.literal_is_16 = only_low_half;
                Ok(())
            }
            Some(_) => Err("only one literal constant per instruction".into()),
            None => {
                self.literal = Some(v);
                self.literal_is_16 = only_low_half;
                Ok(())
            }
        }
    }

    /// Stores a register or constant operand into `field`.
    /// `low_half`: the operand is 16-bit, so a literal shows only its low half.
    fn put(
        &mut self,
        field: Field,
        op: &Operand,
        text: &str,
        low_half: bool,
    ) -> Result<(), String> {
        let code = op.code;
        let fits = |c: u16| c <= 0xff || (256..512).contains(&c);
        match (self.enc, field) {
            (Enc::Sdwa, Field::Src0) if fits(code) => {
                self.set_bits(1, 0, 8, code as u32 & 0xff);
                self.set_bits(1, 23, 1, (code < 256) as u32);
            }
            (Enc::Sdwa, Field::Vsrc1) if fits(code) => {
                self.set_bits(0, 9, 8, code as u32 & 0xff);
                self.set_bits(1, 31, 1, (code < 256) as u32);
            }
            _ => {
                let loc = fields::locate(self.format(), self.enc, field)
                    .ok_or_else(|| format!("`{text}`: no field for it in this encoding"))?;
                if !fields::set(&mut self.w, loc, code) {
                    return Err(format!("`{text}` cannot be encoded in this operand"));
                }
            }
        }
        if code == LITERAL {
            self.set_literal(op.literal.unwrap_or(0), low_half)?;
        }
        self.put_register_file(field, op, text)?;
        self.put_modifiers(field, op, text)
    }

    /// An AGPR where the field can hold one sets the bit that says so; elsewhere it is an error.
    fn put_register_file(&mut self, field: Field, op: &Operand, text: &str) -> Result<(), String> {
        let vector = !op.is_constant() && op.code >= 256;
        // An AGPR field takes its AGPRs here and must not reach the last arms, which refuse
        // AGPRs: so its test stays inside its arm.
        #[allow(clippy::collapsible_match)]
        match field {
            Field::VdstAgpr | Field::Src0Agpr | Field::Src1Agpr | Field::Src2Agpr => {
                if vector && !op.agpr {
                    return Err(format!("`{text}`: expected an AGPR"));
                }
            }
            Field::VdstAcd | Field::Src2Acd if vector => {
                // D and C share one bit: the second of them must agree with the first.
                let acd = self.w[0] & (1 << 15) != 0;
                if field == Field::Src2Acd && acd != op.agpr {
                    return Err(format!(
                        "`{text}`: C and D must both be AGPRs or both VGPRs"
                    ));
                }
                self.set_bits(0, 15, 1, op.agpr as u32);
            }
            Field::Src0Acc if vector => self.set_bits(1, 27, 1, op.agpr as u32),
            Field::Src1Acc if vector => self.set_bits(1, 28, 1, op.agpr as u32),
            Field::Vdata | Field::Vdst | Field::Data0 | Field::Data1
                if vector && op.agpr && self.target.has_gfx90a_insts() =>
            {
                let (word, bit) = match self.format() {
                    Format::Ds => (0, 25),
                    Format::Mimg => (0, 16),
                    Format::Mubuf
                    | Format::Mtbuf
                    | Format::Flat
                    | Format::Global
                    | Format::Scratch => (1, 23),
                    _ => return Err(format!("`{text}`: AGPRs are not allowed here")),
                };
                self.set_bits(word, bit, 1, 1);
            }
            _ if op.agpr => return Err(format!("`{text}`: AGPRs are not allowed here")),
            _ => {}
        }
        Ok(())
    }

    fn put_modifiers(&mut self, field: Field, op: &Operand, text: &str) -> Result<(), String> {
        if !(op.neg || op.abs || op.sext) {
            return Ok(());
        }
        let i =
            source_index(field).ok_or_else(|| format!("`{text}`: modifiers on a non-source"))?;
        let vop3b = crate::syntax::is_vop3b_info(self.info);
        let int_source = self.info.int_source(i as usize);
        match (self.format(), self.enc) {
            // an integer source's neg bit is written `sext(...)`
            (Format::Vop3, _) if int_source && op.sext && !op.neg && !op.abs => {
                self.set_bits(1, 29 + i, 1, 1);
            }
            (Format::Vop3, _) if !(op.sext || int_source || vop3b && op.abs) => {
                self.set_bits(1, 29 + i, 1, op.neg as u32);
                if !vop3b {
                    self.set_bits(0, 8 + i, 1, op.abs as u32);
                }
            }
            (Format::Vop3p, _) if self.info.facts.mix && !op.sext => {
                self.set_bits(1, 29 + i, 1, op.neg as u32);
                self.set_bits(0, 8 + i, 1, op.abs as u32);
            }
            (_, Enc::Sdwa) if i < 2 => {
                let base = 20 + 8 * i;
                self.set_bits(1, base, 1, op.neg as u32);
                self.set_bits(1, base + 1, 1, op.abs as u32);
                self.set_bits(1, base - 1, 1, op.sext as u32);
            }
            (_, Enc::Dpp) if i < 2 && int_source && op.sext && !op.neg && !op.abs => {
                self.set_bits(1, 20 + 2 * i, 1, 1);
            }
            (_, Enc::Dpp) if i < 2 && !op.sext && !int_source => {
                self.set_bits(1, 20 + 2 * i, 1, op.neg as u32);
                self.set_bits(1, 21 + 2 * i, 1, op.abs as u32);
            }
            _ => {
                return Err(format!(
                    "`{text}`: input modifiers need the _e64, _sdwa or _dpp form"
                ))
            }
        }
        Ok(())
    }

    fn reg_slot(
        &mut self,
        field: Field,
        dwords: u8,
        class: crate::ImmClass,
        text: &str,
    ) -> Result<(), String> {
        let format = self.format();
        if text == "off" {
            return match (format, field) {
                (Format::Flat | Format::Global | Format::Scratch, Field::Saddr) => {
                    self.set_bits(1, 16, 7, 0x7f);
                    Ok(())
                }
                // Buffers without idxen/offen print `off` for vaddr.
                (Format::Mubuf | Format::Mtbuf, Field::Vaddr) => Ok(()),
                // Exports: a disabled lane.
                (Format::Exp, _) => Ok(()),
                _ => Err("`off` is not allowed here".into()),
            };
        }
        let class = crate::decode::source_class(self.info, self.enc, field, class, dwords);
        // LLVM 19 (gfx940) prints a packed f16 pair's literal whole.
        let packed_literal = self.target.has_gfx940_insts()
            && class == crate::ImmClass::F16
            && crate::llvm19::packed_f16_source(self.info.op)
            && parse_int(text).is_some_and(|v| (0x1_0000..=0xffff_ffff).contains(&v));
        let class = if packed_literal {
            crate::ImmClass::B32
        } else {
            class
        };
        let mut op = parse_operand(text, class, self.prefer)
            .ok_or_else(|| format!("`{text}`: not a register or constant"))?;
        // LLVM 19 (gfx940) prints a 16-bit integer operand's literal that holds an f32 inline
        // value as that float: the text stands for the 32-bit literal.
        if self.target.has_gfx940_insts()
            && class == crate::ImmClass::I16
            && self.enc == Enc::Native
            && matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc)
            && text.contains('.')
        {
            let bits = crate::llvm19::f32_inline_text_bits(text)
                .ok_or_else(|| format!("`{text}`: not an inline float"))?;
            op = Operand::reg(crate::operand::LITERAL, 1);
            op.literal = Some(bits);
        }
        // GLOBAL/SCRATCH saddr = 0x7d prints as `null` (a name llvm-mc-15 itself only accepts
        // on gfx10, but its disassembler prints it for gfx9).
        if field == Field::Saddr && op.code == crate::operand::NULL && op.dwords == 1 {
            op.dwords = dwords.max(1);
        }
        // A 128-bit scalar operand starting at a 64-bit special register (or null) prints as that
        // register's name (`s_load_dwordx4 vcc, ...`, see operand::register_valid).
        if dwords == 4 && !op.is_constant() && crate::operand::register_valid(op.code, 4) {
            let special_pair = op.dwords == 2 && (102..128).contains(&op.code);
            if special_pair || (op.code == crate::operand::NULL && op.dwords == 1) {
                op.dwords = 4;
            }
        }
        // Aperture and status sources (src_shared_base, src_scc...) read as 32 or 64 bits.
        let is_reg = !op.is_constant() && !(235..=254).contains(&op.code);
        // An MFMA's C in scalar registers prints as LLVM 15 decodes it (see
        // `Inst::operand_dwords`); the decoder checks the width when the words come back.
        let scalar_mfma_c = matches!(field, Field::Src2Agpr | Field::Src2Acd) && op.code < 256;
        if is_reg && op.dwords != dwords.max(1) && !variable_width(format, field) && !scalar_mfma_c
        {
            return Err(format!(
                "`{text}`: expected a {}-bit register",
                32 * dwords.max(1) as u32
            ));
        }
        if format == Format::Exp {
            return self.exp_lane(field, &op, text);
        }
        let low_half = matches!(class, crate::ImmClass::F16 | crate::ImmClass::I16);
        self.put(field, &op, text, low_half)
    }

    /// An export lane: enables it and stores its VGPR (with `compr`, lanes 0-1 share vsrc0 and
    /// lanes 2-3 vsrc1).
    fn exp_lane(&mut self, field: Field, op: &Operand, text: &str) -> Result<(), String> {
        const LANES: [Field; 4] = [Field::Vsrc0, Field::Vsrc1Exp, Field::Vsrc2, Field::Vsrc3];
        let lane = LANES
            .iter()
            .position(|f| *f == field)
            .ok_or("bad export operand")?;
        if op.code < 256 || op.is_constant() {
            return Err(format!("`{text}`: exports take VGPRs"));
        }
        if self.has_modifier("compr") {
            // LLVM enables compressed lanes in pairs, one pair per packed register, and reads
            // the register from the pair's first operand (the second repeats it).
            if lane % 2 == 1 {
                return Ok(());
            }
            self.set_bits(0, lane as u32, 2, 0b11);
            return self.put(LANES[lane / 2], op, text, false);
        }
        self.set_bits(0, lane as u32, 1, 1);
        self.put(field, op, text, false)
    }

    fn fixed_slot(&mut self, fixed: &str, text: &str) -> Result<(), String> {
        if text == fixed {
            return Ok(());
        }
        match (fixed, self.format(), self.enc) {
            // gfx9 SDWA compares may write any SGPR pair (the SD bit).
            ("vcc", Format::Vopc, Enc::Sdwa) => {
                let r = parse_register(text)
                    .filter(|r| r.code < 128 && (r.dwords == 2 || r.code == crate::operand::NULL));
                let r = r.ok_or_else(|| format!("`{text}`: expected an SGPR pair"))?;
                self.set_bits(1, 8, 7, r.code as u32);
                self.set_bits(1, 15, 1, 1);
                Ok(())
            }
            // scratch: a VGPR address when there is no SGPR base.
            ("off", Format::Scratch, _) => {
                let r = parse_register(text).filter(|r| r.code >= 256 && r.dwords == 1);
                let r = r.ok_or_else(|| format!("`{text}`: expected `off` or a VGPR"))?;
                if self.target.has_gfx940_insts() {
                    // gfx940: SVE says the address has a VGPR part
                    self.set_bits(0, 13, 1, 1);
                }
                self.put(Field::Vaddr, &r, text, false)
            }
            _ => Err(format!("expected `{fixed}`, found `{text}`")),
        }
    }

    fn label(&self, text: &str) -> Result<u16, String> {
        if let Some(v) = parse_int(text) {
            return i16::try_from(v)
                .map(|v| v as u16)
                .or_else(|_| u16::try_from(v))
                .map_err(|_| format!("`{text}`: branch offset out of range"));
        }
        let target = self
            .labels
            .and_then(|l| l(text))
            .ok_or_else(|| format!("unknown label `{text}`"))?;
        let delta = (target as i64 - (self.pc as i64 + 4)) / 4;
        i16::try_from(delta)
            .map(|d| d as u16)
            .map_err(|_| format!("label `{text}` is too far for a 16-bit branch"))
    }

    fn imm_slot(&mut self, kind: ImmKind, text: &str) -> Result<(), String> {
        let bad = || format!("`{text}`: bad {kind:?} operand");
        let simm = |t: &str| {
            parse_int(t).and_then(|v| {
                i16::try_from(v)
                    .map(|v| v as u16)
                    .ok()
                    .or_else(|| u16::try_from(v).ok())
            })
        };
        match kind {
            ImmKind::Simm16 | ImmKind::Uimm16 => {
                let v = match simm(text) {
                    Some(v) => v,
                    None if self.labels.is_some() => self.label(text)?,
                    None => return Err(bad()),
                };
                self.set_bits(0, 0, 16, v as u32);
            }
            ImmKind::Label => {
                let v = self.label(text)?;
                self.set_bits(0, 0, 16, v as u32);
            }
            ImmKind::Hwreg => {
                let v = if self.target.has_gfx940_insts() {
                    special::hwreg_gfx940(text)
                } else {
                    special::hwreg(text)
                };
                self.set_bits(0, 0, 16, v.ok_or_else(bad)? as u32)
            }
            ImmKind::Sendmsg => {
                let v = if self.target.has_gfx940_insts() {
                    special::sendmsg_gfx940(text)
                } else {
                    special::sendmsg(text)
                };
                self.set_bits(0, 0, 16, v.ok_or_else(bad)? as u32)
            }
            ImmKind::Waitcnt => {
                self.set_bits(0, 0, 16, special::waitcnt(text).ok_or_else(bad)? as u32)
            }
            ImmKind::GprIdxMode => {
                self.set_bits(0, 0, 16, special::gpr_idx(text).ok_or_else(bad)? as u32)
            }
            ImmKind::GprIdxOn => {
                let v = special::gpr_idx(text)
                    .filter(|v| *v <= 0xff)
                    .ok_or_else(bad)?;
                self.set_bits(0, 8, 8, v as u32);
            }
            ImmKind::SmemOffset => self.smem_offset(text)?,
            ImmKind::SmemSdataImm => {
                let v = parse_int(text)
                    .filter(|v| (0..0x80).contains(v))
                    .ok_or_else(bad)?;
                self.set_bits(0, 6, 7, v as u32);
            }
            ImmKind::Literal => {
                let v = match parse_int(text) {
                    Some(v) if (-(1i64 << 31)..=0xffff_ffff).contains(&v) => v as u32,
                    Some(_) => return Err(bad()),
                    None => text.parse::<f32>().map_err(|_| bad())?.to_bits(),
                };
                self.set_literal(v, false)?;
            }
            ImmKind::InterpAttr => {
                let (attr, chan) = special::interp_attr(text).ok_or_else(bad)?;
                if self.format() == Format::Vintrp {
                    self.set_bits(0, 10, 6, attr);
                    self.set_bits(0, 8, 2, chan);
                } else {
                    self.set_bits(1, 0, 6, attr);
                    self.set_bits(1, 6, 2, chan);
                }
            }
            ImmKind::InterpParam => {
                let p = special::interp_param(text).ok_or_else(bad)?;
                if self.format() == Format::Vintrp {
                    self.set_bits(0, 0, 8, p)
                } else {
                    self.set_bits(1, 9, 9, p)
                }
            }
            ImmKind::ExpTgt => self.set_bits(0, 4, 6, special::exp_target(text).ok_or_else(bad)?),
        }
        Ok(())
    }

    /// SMEM offset: an immediate, an SGPR, or an SGPR plus an `offset:` modifier (soe).
    fn smem_offset(&mut self, text: &str) -> Result<(), String> {
        if let Some(r) = parse_register(text).filter(|r| r.code < 128 && r.dwords == 1) {
            if self.has_modifier("offset") {
                self.set_bits(0, 14, 1, 1);
                self.set_bits(1, 25, 7, r.code as u32);
            } else {
                self.set_bits(1, 0, 7, r.code as u32);
            }
            return Ok(());
        }
        let v = parse_int(text).ok_or_else(|| format!("`{text}`: bad SMEM offset"))?;
        if !(-(1 << 20)..(1 << 21)).contains(&v) {
            return Err(format!("`{text}`: SMEM offset out of range"));
        }
        self.set_bits(0, 17, 1, 1);
        self.set_bits(1, 0, 21, v as u32);
        Ok(())
    }
}

/// The operands the text gives for a row, after the format's special cases.
fn operand_texts<'p>(info: &OpInfo, parts: &'p Parts<'p>) -> Vec<&'p str> {
    if info
        .operands
        .iter()
        .any(|s| matches!(s, Slot::Imm(ImmKind::Waitcnt)))
    {
        // `vmcnt(0) lgkmcnt(0)` is one operand with spaces.
        return if parts.rest.is_empty() {
            vec![]
        } else {
            vec![parts.rest]
        };
    }
    if info.operands.is_empty() {
        return vec![];
    }
    let mut ops: Vec<&str> = parts.operands.clone();
    if info.format == Format::Exp && !ops.is_empty() {
        // `exp mrt0 v1, v2, v3, v4`: the target is separated by a space.
        if let Some((tgt, first)) = ops[0].split_once(char::is_whitespace) {
            ops.splice(0..1, [tgt, first.trim()]);
        }
    }
    ops
}

/// Builds the instruction for row `op` in encoding `enc` from the split text.
pub fn build(
    op: OpId,
    enc: Enc,
    parts: &Parts,
    prefer: Prefer,
    target: Target,
    pc: u32,
    labels: Option<Labels>,
) -> Result<Inst, String> {
    let info = op_info(op);
    let mut b = Builder {
        info,
        enc,
        w: base_words(info, enc),
        literal: None,
        literal_is_16: false,
        prefer,
        modifiers: &parts.modifiers,
        pc,
        labels,
        target,
    };
    let texts = operand_texts(info, parts);
    let mut texts = texts.iter().copied();
    let slots: Vec<&Slot> = info
        .operands
        .iter()
        .filter(|s| {
            // buffer and global/scratch loads into LDS have no data register
            let lds_data = match info.format {
                Format::Mubuf => Field::Vdata,
                Format::Global | Format::Scratch => Field::Vdst,
                _ => return true,
            };
            !(b.has_modifier("lds") && matches!(s, Slot::Reg { field, .. } if *field == lds_data))
        })
        .collect();
    // glc flat-family atomics name the returned register first.
    let returns = info.format.is_flat_family()
        && info.facts.atomic.is_some()
        && parts.operands.len() == slots.len() + 1;
    if returns {
        let t = texts.next().unwrap_or_default();
        let r = parse_register(t)
            .filter(|r| r.code >= 256)
            .ok_or_else(|| format!("`{t}`: expected a VGPR"))?;
        b.put(Field::Vdst, &r, t, false)?;
    }
    for slot in slots {
        let Some(text) = texts.next() else {
            if let Slot::Imm(_) = slot {
                continue; // a trailing immediate may be left out (s_endpgm)
            }
            return Err("too few operands".into());
        };
        match *slot {
            Slot::Reg {
                field,
                dwords,
                class,
            } => b.reg_slot(field, dwords, class, text)?,
            Slot::Fixed(fixed) => b.fixed_slot(fixed, text)?,
            Slot::Imm(kind) => b.imm_slot(kind, text)?,
        }
    }
    if let Some(extra) = texts.next() {
        return Err(format!("too many operands (from `{extra}`)"));
    }
    let mut mods: Vec<&str> = parts.modifiers.clone();
    if info.operands.is_empty() {
        mods = parts
            .operands
            .iter()
            .chain(&parts.modifiers)
            .copied()
            .collect();
    }
    if !info
        .operands
        .iter()
        .any(|s| matches!(s, Slot::Imm(ImmKind::Waitcnt)))
    {
        for m in &mods {
            modifiers::apply(info, enc, &mut b.w, m, target.has_gfx940_insts())?;
        }
    }
    let one_word = matches!(
        info.format,
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc | Format::Sopp | Format::Vintrp
    ) || (matches!(info.format, Format::Vop1 | Format::Vop2 | Format::Vopc)
        && enc == Enc::Native);
    let mut words = vec![b.w[0]];
    if !one_word {
        words.push(b.w[1]);
    }
    words.extend(b.literal);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let inst = decode(&bytes, target)
        .map_err(|e| format!("encodes to invalid words {words:08x?}: {e}"))?;
    if inst.op() != op || inst.len() != bytes.len() {
        return Err(format!(
            "encodes to {words:08x?}, which decodes as `{inst}`"
        ));
    }
    Ok(inst)
}
