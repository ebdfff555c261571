//! A code section decoded once into [`Decoded`] entries that execution walks by index.
//!
//! Everything the hot loop would otherwise work out per execution is resolved here: the semantic
//! function of the opcode (one name match per instruction at load time), source operands as
//! [`Src`] values with inline constants and literals already widened to the operand's type,
//! destination registers, input/output modifiers and branch targets as instruction indices.

use crate::exec::{self, ExecFn};
use gcn_isa::class::{Category, OpClass};
use gcn_isa::operand::{self, EXEC_LO, VCC_LO};
use gcn_isa::{Enc, Field, Format, ImmClass, Inst, Literal64, Slot, Target};

/// A source operand, resolved at load time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// No operand in this position.
    None,
    /// A scalar register by operand code (SGPRs, VCC, EXEC, M0, TTMPs, FLAT_SCRATCH).
    Sgpr(u8),
    /// A VGPR number.
    Vgpr(u8),
    /// An inline constant or literal, widened to the operand's width and type.
    Const(u64),
    /// src_shared_base / src_shared_limit / src_private_base / src_private_limit /
    /// src_pops_exiting_wave_id (operand codes 235–239).
    Aperture(u16),
    Vccz,
    Execz,
    Scc,
    LdsDirect,
}

/// VALU input and output modifiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// Bit i: take |src i| (VOP3A, SDWA).
    pub abs: u8,
    /// Bit i: negate src i (VOP3, SDWA).
    pub neg: u8,
    pub clamp: bool,
    /// Output multiplier: 0 none, 1 ×2, 2 ×4, 3 ×0.5.
    pub omod: u8,
    /// VOP3 op_sel bits (16-bit ops), VOP3P op_sel / op_sel_hi.
    pub op_sel: u8,
    pub op_sel_hi: u8,
}

impl Mods {
    pub fn is_plain(&self) -> bool {
        *self == Mods::default()
    }
}

/// One instruction, ready to execute.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub exec: ExecFn,
    pub inst: Inst,
    /// Byte address of the instruction in the code object.
    pub pc: u64,
    pub class: OpClass,
    /// Sources in ISA order (src0, src1, src2 / ssrc0, ssrc1). VOP2/VOPC native forms read VCC
    /// implicitly as src2 (v_cndmask, v_addc).
    pub src: [Src; 3],
    /// Vector destination (VGPR number), or the SGPR code of v_readlane/v_cmp_*_e64.
    pub vdst: u16,
    /// Scalar destination code: SOP sdst, SMEM sdata, VOP3B sdst, or VCC for VOP2/VOPC forms that
    /// write it implicitly.
    pub sdst: u16,
    pub mods: Mods,
    /// Memory operand codes: address (DS addr, vaddr, SMEM sbase), data (DS data0, vdata),
    /// DS data1 / FLAT saddr / buffer srsrc, and buffer soffset.
    pub regs: [u16; 4],
    /// Branch target as an instruction index (`u32::MAX` if none or outside the code).
    pub target: u32,
}

/// A decoded code section.
pub struct Program {
    pub target: Target,
    pub insts: Vec<Decoded>,
    /// Address of each entry, ascending (for `s_setpc` and entry points).
    pcs: Vec<u64>,
    /// Words that did not decode: (index, message). Executing one is a guest error.
    pub bad: Vec<(u32, String)>,
    /// Names of decoded opcodes that have no semantics yet (sorted, unique).
    pub gaps: Vec<&'static str>,
    /// Entry `i`: how many of the entries before `i` are of each issue category (indexed by
    /// the order of [`Category`]'s variants), so that a straight run of entries is counted by
    /// two lookups ([`Program::categories_between`]).
    category_prefix: Vec<[u32; CATEGORY_COUNT]>,
}

/// The issue categories ([`Category`]'s variants).
pub const CATEGORY_COUNT: usize = Category::Export as usize + 1;

impl Program {
    /// Decodes `code`, loaded at byte address `base`, linearly from its start.
    pub fn decode(code: &[u8], base: u64, target: Target) -> Program {
        let mut insts = Vec::new();
        let mut pcs = Vec::new();
        let mut bad = Vec::new();
        let mut gaps = Vec::new();
        let mut off = 0usize;
        // A stand-in for undecodable words: s_nop 0, whose semantics are replaced.
        let placeholder = gcn_isa::decode(&[0, 0, 0x80, 0xbf], target).ok();
        while off + 4 <= code.len() {
            let pc = base + off as u64;
            match gcn_isa::decode(&code[off..], target) {
                Ok(inst) => {
                    if let exec::Semantics::NotEmulated(_) = exec::op_semantics(inst.info()) {
                        gaps.push(inst.info().name);
                    }
                    let exec = exec::resolve(&inst);
                    insts.push(prepare(inst, pc, exec));
                    pcs.push(pc);
                    off += inst.len();
                }
                Err(e) => {
                    if let Some(p) = placeholder {
                        bad.push((insts.len() as u32, format!("{e}")));
                        insts.push(prepare(p, pc, exec::undecodable));
                        pcs.push(pc);
                    }
                    off += 4;
                }
            }
        }
        gaps.sort_unstable();
        gaps.dedup();
        let mut category_prefix = Vec::with_capacity(insts.len() + 1);
        let mut before = [0u32; CATEGORY_COUNT];
        category_prefix.push(before);
        for d in &insts {
            before[d.class.category as usize] += 1;
            category_prefix.push(before);
        }
        let mut p = Program {
            target,
            insts,
            pcs,
            bad,
            gaps,
            category_prefix,
        };
        p.link();
        p
    }

    /// The index of the instruction at byte address `pc`.
    #[inline]
    pub fn index_of_pc(&self, pc: u64) -> Option<u32> {
        self.pcs.binary_search(&pc).ok().map(|i| i as u32)
    }

    pub fn len(&self) -> usize {
        self.insts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// Resolves branch targets to indices.
    fn link(&mut self) {
        for i in 0..self.insts.len() {
            let d = &self.insts[i];
            if let Some(t) = d.inst.branch_target(d.pc) {
                let idx = self.index_of_pc(t).unwrap_or(u32::MAX);
                self.insts[i].target = idx;
            }
        }
    }

    /// How many of the entries `from..to` are of each issue category (indexed by the order of
    /// [`Category`]'s variants); none for a range that is empty or leaves the program.
    #[inline]
    pub fn categories_between(&self, from: u32, to: u32) -> [u32; CATEGORY_COUNT] {
        match (
            self.category_prefix.get(from as usize),
            self.category_prefix.get(to as usize),
        ) {
            (Some(a), Some(b)) if from <= to => std::array::from_fn(|k| b[k] - a[k]),
            _ => [0; CATEGORY_COUNT],
        }
    }

    /// The message for an undecodable word at `index`, if it is one.
    pub fn bad_word(&self, index: u32) -> Option<&str> {
        self.bad
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, m)| m.as_str())
    }
}

fn prepare(inst: Inst, pc: u64, exec: ExecFn) -> Decoded {
    let info = inst.info();
    let format = info.format;
    let mut d = Decoded {
        exec,
        inst,
        pc,
        class: inst.class(),
        src: [Src::None; 3],
        vdst: 0,
        sdst: 0,
        mods: Mods::default(),
        regs: [0; 4],
        target: u32::MAX,
    };
    let mut n = 0;
    let mut named_sdst = false;
    for slot in info.operands {
        let Slot::Reg {
            field,
            dwords,
            class,
        } = *slot
        else {
            continue;
        };
        match field {
            Field::Src0
            | Field::Vsrc1
            | Field::Src1
            | Field::Src2
            | Field::Ssrc0
            | Field::Ssrc1
                if n < 3 =>
            {
                if let Some(code) = inst.code(field) {
                    let class = if info.facts.f16src {
                        ImmClass::F16
                    } else {
                        class
                    };
                    d.src[n] = resolve_src(&inst, code, dwords, class);
                }
                n += 1;
            }
            Field::Vdst => d.vdst = inst.code(field).map_or(0, |c| c.saturating_sub(256)),
            Field::VdstSgpr | Field::Sdst | Field::Sdata => {
                d.sdst = inst.code(field).unwrap_or(0);
                named_sdst = true;
            }
            _ => {}
        }
    }
    // glc flat/global/scratch atomics return the old value to a vdst the template does not list.
    if inst.returned_dwords().is_some() {
        d.vdst = inst.code(Field::Vdst).map_or(0, |c| c.saturating_sub(256));
    }
    // Memory operands by role: [address, data, resource/base, offset register].
    let fields: [&[Field]; 4] = [
        &[Field::Addr, Field::Vaddr, Field::Sbase],
        &[Field::Data0, Field::Vdata],
        &[Field::Data1, Field::Saddr, Field::Srsrc],
        &[Field::Soffset],
    ];
    for (reg, names) in d.regs.iter_mut().zip(fields) {
        if let Some(c) = names.iter().find_map(|f| inst.code(*f)) {
            *reg = c;
        }
    }
    match format {
        Format::Vop2 | Format::Vopc | Format::Vop1 => {
            // Native VOP2/VOPC: carry-out and compare results go to VCC, carry-in comes from it.
            if d.src[2] == Src::None {
                d.src[2] = Src::Sgpr(VCC_LO as u8);
            }
            // (v_readfirstlane_b32 names its SGPR destination instead.)
            if !named_sdst {
                d.sdst = VCC_LO;
            }
            match inst.enc() {
                Enc::Sdwa => sdwa_mods(&inst, &mut d),
                Enc::Dpp => dpp_mods(&inst, &mut d),
                Enc::Native => {}
            }
        }
        Format::Vop3 => {
            let w0 = inst.words()[0];
            let w1 = inst.words()[1];
            let vop3b = info.operands.iter().any(|s| {
                matches!(
                    s,
                    Slot::Reg {
                        field: Field::Sdst,
                        ..
                    }
                )
            });
            if !vop3b {
                d.mods.abs = ((w0 >> 8) & 7) as u8;
                d.mods.op_sel = ((w0 >> 11) & 0xf) as u8;
            }
            d.mods.clamp = w0 & (1 << 15) != 0;
            d.mods.omod = ((w1 >> 27) & 3) as u8;
            d.mods.neg = ((w1 >> 29) & 7) as u8;
            // v_cndmask_b32_e64 etc. name their mask in src2; carry ops without one use VCC.
            if d.src[2] == Src::None {
                d.src[2] = Src::Sgpr(VCC_LO as u8);
            }
        }
        Format::Vop3p => {
            let w0 = inst.words()[0];
            let w1 = inst.words()[1];
            d.mods.neg = ((w1 >> 29) & 7) as u8; // neg_lo
            d.mods.abs = ((w0 >> 8) & 7) as u8; // neg_hi
            d.mods.op_sel = ((w0 >> 11) & 7) as u8;
            d.mods.op_sel_hi = ((w1 >> 27) & 3) as u8 | (((w0 >> 14) & 1) as u8) << 2;
            d.mods.clamp = w0 & (1 << 15) != 0;
        }
        _ => {}
    }
    d
}

/// SDWA word (word 1): dst_sel [10:8], dst_unused [12:11], clamp 13, omod [15:14] (VOP1/2),
/// src0_sel [18:16], src0_sext 19, src0_neg 20, src0_abs 21, S0 23, src1_sel [26:24], src1_sext 27,
/// src1_neg 28, src1_abs 29, S1 31. VOPC: sdst [14:8] with SD at 15.
fn sdwa_mods(inst: &Inst, d: &mut Decoded) {
    let w = inst.words()[1];
    d.mods.neg = (((w >> 20) & 1) | ((w >> 28) & 1) << 1) as u8;
    d.mods.abs = (((w >> 21) & 1) | ((w >> 29) & 1) << 1) as u8;
    if inst.format() == Format::Vopc {
        if w & (1 << 15) != 0 {
            d.sdst = ((w >> 8) & 0x7f) as u16;
        }
    } else {
        d.mods.clamp = w & (1 << 13) != 0;
        d.mods.omod = ((w >> 14) & 3) as u8;
    }
}

/// DPP word: src0 [7:0], dpp_ctrl [16:8], bound_ctrl 19, src0_neg 20, src0_abs 21, src1_neg 22,
/// src1_abs 23, bank_mask [27:24], row_mask [31:28].
fn dpp_mods(inst: &Inst, d: &mut Decoded) {
    let w = inst.words()[1];
    d.mods.neg = (((w >> 20) & 1) | ((w >> 22) & 1) << 1) as u8;
    d.mods.abs = (((w >> 21) & 1) | ((w >> 23) & 1) << 1) as u8;
}

/// Turns an operand code into a [`Src`], widening constants to the operand's type.
pub(crate) fn resolve_src(inst: &Inst, code: u16, dwords: u8, class: ImmClass) -> Src {
    let wide = dwords >= 2;
    match code {
        0..=127 => Src::Sgpr(code as u8),
        256..=511 => Src::Vgpr((code - 256) as u8),
        128..=208 => {
            let v = operand::inline_int(code).unwrap_or(0) as i64;
            Src::Const(if wide { v as u64 } else { v as u32 as u64 })
        }
        240..=248 => Src::Const(inline_float(code, wide, class)),
        operand::LITERAL => {
            let lit = inst.literal().unwrap_or(0);
            Src::Const(match inst.info().facts.lit64 {
                _ if !wide => lit as u64,
                Literal64::High => (lit as u64) << 32,
                Literal64::Sext => lit as i32 as i64 as u64,
                Literal64::Zext => lit as u64,
            })
        }
        235..=239 => Src::Aperture(code),
        operand::VCCZ => Src::Vccz,
        operand::EXECZ => Src::Execz,
        operand::SCC => Src::Scc,
        operand::LDS_DIRECT => Src::LdsDirect,
        _ => Src::Const(0),
    }
}

/// The inline float constants 0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2π) in the operand's type.
fn inline_float(code: u16, wide: bool, class: ImmClass) -> u64 {
    const F: [f64; 8] = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0];
    if code == operand::INV_2PI {
        return if wide {
            operand::INV_2PI_F64
        } else if matches!(class, ImmClass::F16 | ImmClass::I16) {
            operand::INV_2PI_F16 as u64
        } else {
            operand::INV_2PI_F32 as u64
        };
    }
    let v = F[(code - 240) as usize];
    if wide {
        v.to_bits()
    } else if matches!(class, ImmClass::F16 | ImmClass::I16) {
        crate::exec::f16::f32_to_f16(v as f32) as u64
    } else {
        (v as f32).to_bits() as u64
    }
}

/// EXEC as an operand code, for semantics that name it.
pub const EXEC: u16 = EXEC_LO;

#[cfg(test)]
mod tests {
    use super::{Program, CATEGORY_COUNT};
    use gcn_isa::{assemble, Target};

    /// Every range of a program with instructions of several categories, counted from the
    /// prefix counts and one instruction at a time; ranges that are empty, reversed or leave
    /// the program count nothing.
    #[test]
    fn categories_between_count_each_instruction_of_the_range() {
        let text = "
            s_mov_b32 s0, 0
            v_mov_b32 v0, 1
            s_load_dword s1, s[2:3], 0x0
            s_waitcnt lgkmcnt(0)
            ds_write_b32 v0, v0
            global_load_dword v1, v[2:3], off
            v_add_u32 v0, v0, v1
            s_cbranch_scc1 0
            s_endpgm";
        let code = assemble(text, Target::Gfx900).unwrap();
        let p = Program::decode(&code.bytes, 0, Target::Gfx900);
        let n = p.len() as u32;
        for from in 0..=n + 1 {
            for to in 0..=n + 1 {
                let mut want = [0u32; CATEGORY_COUNT];
                if from <= to && to <= n {
                    for d in &p.insts[from as usize..to as usize] {
                        want[d.class.category as usize] += 1;
                    }
                }
                assert_eq!(p.categories_between(from, to), want, "{from}..{to}");
            }
        }
        assert_eq!(p.categories_between(0, u32::MAX), [0; CATEGORY_COUNT]);
    }
}
