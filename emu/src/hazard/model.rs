//! The register-use model of one instruction: which registers it reads and writes (explicit
//! operands from the opcode table plus the implicit SCC/VCC/EXEC/M0 of `gcn_isa::class`), its
//! issue category, and the few encoding facts the hazard rules look at.
//!
//! Built once per instruction; the static lint and the run-time tracker share it.

use super::mai::{self, Mai, MaiKind, MfmaClass};
use super::regs::{self, RegSet};
use gcn_isa::operand::{self, EXECZ, M0, SCC, VCCZ};
use gcn_isa::{Atomic, Category, DstUse, Enc, Field, Format, Inst, MemKind, Op, OpClass, Regs};

/// Hardware register ids of `s_getreg`/`s_setreg` (`hwreg(...)`), Vega ISA §12.
pub const HW_REG_MODE: u8 = 1;
pub const HW_REG_TRAPSTS: u8 = 3;
/// MODE bit 28 is VSKIP.
pub const MODE_VSKIP_BIT: u8 = 28;

/// The `hwreg(id, offset, size)` field of an `s_getreg`/`s_setreg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hwreg {
    pub id: u8,
    pub offset: u8,
    pub size: u8,
}

impl Hwreg {
    fn decode(simm16: u16) -> Hwreg {
        Hwreg {
            id: (simm16 & 0x3f) as u8,
            offset: ((simm16 >> 6) & 0x1f) as u8,
            size: ((simm16 >> 11) & 0x1f) as u8 + 1,
        }
    }

    pub fn covers_bit(self, bit: u8) -> bool {
        (self.offset..self.offset.saturating_add(self.size)).contains(&bit)
    }
}

/// Which M0-reading instruction group an instruction belongs to (Vega ISA §4.5 table 8 has three
/// rows for "SALU writes M0"; LLVM gates them separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum M0Reader {
    /// GDS, s_sendmsg(halt), s_ttracedata.
    GdsSendmsg,
    /// LDS add-TID, LDS DMA (buffer/global/scratch with lds=1), VINTRP, LDS_DIRECT.
    Lds,
    /// s_movrels/s_movreld.
    SMovrel,
}

/// What one instruction does to registers, as the hazard rules see it.
#[derive(Clone, Debug)]
pub struct InstModel {
    pub inst: Inst,
    pub class: OpClass,
    pub reads: RegSet,
    pub writes: RegSet,
    /// Wait states this instruction provides to the ones after it: `s_nop N` gives N+1, any other
    /// instruction 1 (§4.5).
    pub wait_states: u8,
    /// Data VGPRs (first code, dwords) of a store wider than 64 bits that the hardware reads
    /// after issue (table 8 row 8); 0 dwords if none.
    wide_store: (u16, u8),
    /// The SGPR lane select (src1) of v_readlane/v_writelane, if an SGPR.
    lane_select: Option<u16>,
    pub hwreg: Option<Hwreg>,
    pub m0_reader: Option<M0Reader>,
    /// What a matrix-core instruction (MFMA, v_accvgpr_read/write) reads and writes by role.
    pub mai: Option<Mai>,
    /// `v_dot*` (LLVM `isDOT`): gfx90a has wait states of their own after them.
    pub is_dot: bool,
    /// A VOP3P `v_dot*`'s accumulator input (SrcC), which the same op may read back at once.
    pub dot_src_c: RegSet,
    /// v_fma_f64/v_fmac_f64, which gfx90a keeps two wait states from a DGEMM.
    pub is_fma_f64: bool,
    pub op: Op,
}

impl InstModel {
    pub fn new(inst: Inst) -> InstModel {
        let class = inst.class();
        let op = inst.info().op;
        let mut m = InstModel {
            inst,
            class,
            reads: implicit(class.reads),
            writes: implicit(class.writes),
            wait_states: 1,
            wide_store: (0, 0),
            lane_select: None,
            hwreg: None,
            m0_reader: None,
            mai: None,
            is_dot: mai::is_dot(op),
            dot_src_c: RegSet::EMPTY,
            is_fma_f64: matches!(op, Op::V_FMA_F64 | Op::V_FMAC_F64),
            op: inst.info().op,
        };
        m.explicit_operands();
        m.special_reads();
        m.facts();
        m
    }

    /// Data VGPRs of a store wider than 64 bits (table 8 row 8), or the empty set.
    pub fn wide_store_data(&self) -> RegSet {
        RegSet::range(self.wide_store.0, self.wide_store.1)
    }

    /// The SGPR lane select of v_readlane/v_writelane, or the empty set.
    pub fn lane_select(&self) -> RegSet {
        self.lane_select.map_or(RegSet::EMPTY, RegSet::one)
    }

    pub fn is_valu(&self) -> bool {
        self.class.category == Category::Valu
    }

    pub fn is_salu(&self) -> bool {
        self.class.category == Category::Salu
    }

    /// MUBUF/MTBUF/MIMG/GLOBAL/SCRATCH and FLAT (LLVM's `isVMEM || isFLAT`).
    pub fn is_vmem_or_flat(&self) -> bool {
        matches!(self.class.category, Category::Vmem | Category::Flat)
    }

    pub fn is_smem(&self) -> bool {
        self.class.category == Category::Smem
    }

    /// The class of an MFMA (`None` for every other instruction, `v_accvgpr_*` included).
    pub fn mfma(&self) -> Option<MfmaClass> {
        self.mai.and_then(|m| m.class())
    }

    pub fn is_mai(&self, kind: MaiKind) -> bool {
        self.mai.is_some_and(|m| m.kind == kind)
    }

    /// VMEM, FLAT/GLOBAL/SCRATCH or DS (LLVM's `isVMEM || isFLAT || isDS`).
    pub fn is_memory(&self) -> bool {
        self.is_vmem_or_flat() || self.class.category == Category::Ds
    }

    pub fn is_export(&self) -> bool {
        self.class.category == Category::Export
    }

    pub fn is_dpp(&self) -> bool {
        self.inst.enc() == Enc::Dpp
    }

    pub fn is_setreg(&self) -> bool {
        matches!(self.op, Op::S_SETREG_B32 | Op::S_SETREG_IMM32_B32)
    }

    pub fn is_getreg(&self) -> bool {
        self.op == Op::S_GETREG_B32
    }

    /// cmpswap atomics return only the old value: the first half of their data.
    fn returns_half(&self) -> bool {
        matches!(
            self.inst.info().facts.atomic,
            Some(Atomic::CmpSwap | Atomic::FCmpSwap)
        )
    }

    /// A vector instruction in the sense of "S_SETREG MODE.vskip → any vector op".
    pub fn is_vector(&self) -> bool {
        matches!(
            self.class.category,
            Category::Valu | Category::Vmem | Category::Flat | Category::Ds | Category::Export
        )
    }

    pub fn may_store(&self) -> bool {
        matches!(
            self.class.mem,
            Some(MemKind::Store | MemKind::Atomic | MemKind::AtomicReturn)
        )
    }

    fn explicit_operands(&mut self) {
        let inst = self.inst;
        let format = inst.format();
        let mut mai = Mai::of(&inst);
        for (field, code, dwords) in inst.register_operands() {
            let dir = self.direction(field);
            if skipped(&inst, field, code) {
                continue;
            }
            let code = if code >= operand::VGPR0 && inst.is_agpr(field) {
                code - operand::VGPR0 + regs::AGPR0
            } else {
                code
            };
            let set = RegSet::range(code, dwords);
            if let Some(mai) = &mut mai {
                mai.add(field, set);
            }
            if self.is_dot && field == Field::Src2 {
                self.dot_src_c = set;
            }
            if dir.read {
                self.reads = self.reads.union(set);
            }
            if dir.write {
                let written = match (self.class.mem, field) {
                    // cmpswap returns only the old value, the first half of its data.
                    (Some(MemKind::AtomicReturn), Field::Vdata) if self.returns_half() => {
                        RegSet::range(code, dwords.div_ceil(2))
                    }
                    _ => set,
                };
                self.writes = self.writes.union(written);
            }
        }
        // Scratch with no SGPR address takes its address from a VGPR that LLVM prints as `off`'s
        // replacement, not as an operand slot.
        if format == Format::Scratch && inst.bits(1, 16, 7) == 0x7f {
            if let Some(v) = inst.code(Field::Vaddr) {
                self.reads.insert(v, 1);
            }
        }
        // A returning (glc) FLAT/GLOBAL atomic writes the old value to vdst, which the table's
        // operand list (the non-returning form) does not name.
        if format.is_flat_family() && self.class.mem == Some(MemKind::AtomicReturn) {
            let data = inst
                .register_operands()
                .find(|(field, _, _)| *field == Field::Vdata);
            if let (Some((_, _, dwords)), Some(vdst)) = (data, inst.code(Field::Vdst)) {
                let returned = if self.returns_half() {
                    dwords.div_ceil(2)
                } else {
                    dwords
                };
                self.writes.insert(vdst, returned);
            }
        }
        self.mai = mai;
        // gfx9 SDWA compares with SD set write an SGPR pair instead of VCC.
        if format == Format::Vopc && inst.enc() == Enc::Sdwa && inst.bits(1, 15, 1) != 0 {
            let code = operand::align_scalar(inst.bits(1, 8, 7) as u16, 2);
            self.writes.insert(code, 2);
        }
    }

    /// Whether an explicit operand in `field` is read, written or both.
    fn direction(&self, field: Field) -> Dir {
        let format = self.inst.format();
        match field {
            Field::Sdst | Field::Vdst => match self.inst.info().facts.dst {
                DstUse::Write => Dir::WRITE,
                DstUse::Read => Dir::READ,
                DstUse::ReadWrite => Dir::READ_WRITE,
            },
            // A sparse MFMA accumulates into its destination (the op table's `dst=rw`).
            Field::VdstAgpr | Field::VdstAcd if self.inst.info().facts.dst == DstUse::ReadWrite => {
                Dir::READ_WRITE
            }
            Field::VdstSgpr | Field::VdstAgpr | Field::VdstAcd => Dir::WRITE,
            Field::Sdata => match self.class.mem {
                Some(MemKind::Store | MemKind::Atomic) => Dir::READ,
                Some(MemKind::AtomicReturn) => Dir::READ_WRITE,
                _ => Dir::WRITE,
            },
            Field::Vdata if !format.is_flat_family() => match self.class.mem {
                Some(MemKind::Store | MemKind::Atomic) => Dir::READ,
                Some(MemKind::AtomicReturn) => Dir::READ_WRITE,
                Some(MemKind::Load) => Dir::WRITE,
                _ => Dir::READ,
            },
            _ => Dir::READ,
        }
    }

    fn special_reads(&mut self) {
        match self.op {
            Op::S_CBRANCH_VCCZ | Op::S_CBRANCH_VCCNZ => self.reads.insert(VCCZ, 1),
            Op::S_CBRANCH_EXECZ | Op::S_CBRANCH_EXECNZ => self.reads.insert(EXECZ, 1),
            Op::S_CBRANCH_SCC0 | Op::S_CBRANCH_SCC1 => self.reads.insert(SCC, 1),
            _ => {}
        }
    }

    fn facts(&mut self) {
        let inst = self.inst;
        if self.op == Op::S_NOP {
            self.wait_states = (inst.simm16() & 7) as u8 + 1;
        }
        if self.is_setreg() || self.is_getreg() {
            self.hwreg = Some(Hwreg::decode(inst.simm16()));
        }
        if matches!(self.op, Op::V_READLANE_B32 | Op::V_WRITELANE_B32) {
            if let Some(code) = inst.code(Field::Src1) {
                if code < 128 {
                    self.lane_select = Some(code);
                }
            }
        }
        self.wide_store = self.wide_store();
        self.m0_reader = self.m0_group();
    }

    /// Table 8 row 8: stores (and cmpswap_x2 atomics) whose data is wider than 64 bits.
    fn wide_store(&self) -> (u16, u8) {
        if !self.may_store() {
            return (0, 0);
        }
        let inst = self.inst;
        let Some(data) = inst
            .register_operands()
            .find(|(field, _, _)| *field == Field::Vdata)
        else {
            return (0, 0);
        };
        let (_, code, dwords) = data;
        if dwords <= 2 {
            return (0, 0);
        }
        let applies = match inst.format() {
            // Not when soffset is an SGPR (ISA remark; LLVM checks "soffset is not a register").
            Format::Mubuf | Format::Mtbuf => inst.code(Field::Soffset).is_some_and(|c| c >= 128),
            // Only with a 128-bit T# (r128); all 256-bit-T# forms are exempt.
            Format::Mimg => inst.bits(0, 15, 1) != 0,
            Format::Flat | Format::Global | Format::Scratch => true,
            _ => false,
        };
        if applies {
            (code, dwords)
        } else {
            (0, 0)
        }
    }

    fn m0_group(&self) -> Option<M0Reader> {
        let inst = self.inst;
        let op = self.op;
        if matches!(op, Op::S_SENDMSG | Op::S_SENDMSGHALT | Op::S_TTRACEDATA) {
            return Some(M0Reader::GdsSendmsg);
        }
        if inst.format() == Format::Ds
            && inst.bits(0, 16, 1) != 0
            && !matches!(op, Op::DS_NOP | Op::DS_PERMUTE_B32 | Op::DS_BPERMUTE_B32)
        {
            return Some(M0Reader::GdsSendmsg);
        }
        if matches!(
            op,
            Op::S_MOVRELS_B32 | Op::S_MOVRELS_B64 | Op::S_MOVRELD_B32 | Op::S_MOVRELD_B64
        ) {
            return Some(M0Reader::SMovrel);
        }
        let lds_dma = match inst.format() {
            Format::Mubuf => inst.bits(0, 16, 1) != 0,
            Format::Global | Format::Scratch => inst.bits(0, 13, 1) != 0,
            _ => false,
        };
        if lds_dma
            || matches!(op, Op::DS_READ_ADDTID_B32 | Op::DS_WRITE_ADDTID_B32)
            || inst.format() == Format::Vintrp
            || self.reads.contains(operand::LDS_DIRECT)
        {
            return Some(M0Reader::Lds);
        }
        None
    }
}

#[derive(Clone, Copy)]
struct Dir {
    read: bool,
    write: bool,
}

impl Dir {
    const READ: Dir = Dir {
        read: true,
        write: false,
    };
    const WRITE: Dir = Dir {
        read: false,
        write: true,
    };
    const READ_WRITE: Dir = Dir {
        read: true,
        write: true,
    };
}

/// Operand slots that hold no register in this encoding.
fn skipped(inst: &Inst, field: Field, code: u16) -> bool {
    match (inst.format(), field) {
        // `off`: no SGPR address.
        (Format::Global | Format::Scratch, Field::Saddr) => code == 0x7f,
        // Buffer ops with neither offen nor idxen have no VGPR address.
        (Format::Mubuf | Format::Mtbuf, Field::Vaddr) => inst.bits(0, 12, 2) == 0,
        // Buffer loads to LDS write no VGPR.
        (Format::Mubuf, Field::Vdata) => inst.bits(0, 16, 1) != 0,
        _ => false,
    }
}

fn implicit(r: Regs) -> RegSet {
    let mut set = RegSet::EMPTY;
    if r.contains(Regs::SCC) {
        set.insert(SCC, 1);
    }
    if r.contains(Regs::VCC) {
        set = set.union(regs::VCC);
    }
    if r.contains(Regs::EXEC) {
        set = set.union(regs::EXEC);
    }
    if r.contains(Regs::M0) {
        set.insert(M0, 1);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcn_isa::operand::VGPR0;
    use gcn_isa::{assemble_inst, Target};

    fn model(text: &str) -> InstModel {
        InstModel::new(assemble_inst(text, Target::Gfx900).expect(text))
    }

    fn v(n: u16, dwords: u8) -> RegSet {
        RegSet::range(VGPR0 + n, dwords)
    }

    #[test]
    fn reads_and_writes() {
        let m = model("v_mac_f32_e32 v0, v1, v2");
        assert!(m.reads.contains_all(v(0, 3)) && m.writes == v(0, 1));
        let m = model("s_cmpk_eq_i32 s3, 0x10");
        assert!(m.reads.contains(3) && !m.writes.contains(3) && m.writes.contains(SCC));
        let m = model("v_add_co_u32_e32 v0, vcc, v1, v2");
        assert!(m.writes.contains_all(regs::VCC) && m.reads.contains_all(regs::EXEC));
        let m = model("global_load_dwordx2 v[0:1], v[2:3], off");
        assert_eq!(m.writes, v(0, 2));
        assert_eq!(m.reads, v(2, 2).union(regs::EXEC));
        let m = model("global_atomic_cmpswap_x2 v[0:1], v[2:3], v[4:7], off glc");
        assert_eq!(m.writes, v(0, 2));
        let m = model("buffer_atomic_cmpswap v[0:1], off, s[4:7], 0 glc");
        assert_eq!(m.writes, v(0, 1), "returns only the old value");
        let m = model("s_load_dwordx2 s[4:5], s[0:1], 0x0");
        assert_eq!(m.writes, RegSet::range(4, 2));
        assert_eq!(m.reads, RegSet::range(0, 2));
        let m = model("s_cbranch_vccz 2");
        assert!(m.reads.contains(VCCZ));
    }

    #[test]
    fn rule_facts() {
        assert_eq!(model("s_nop 5").wait_states, 6);
        assert_eq!(model("v_nop").wait_states, 1);
        assert_eq!(
            model("v_readlane_b32 s0, v1, s7").lane_select(),
            RegSet::one(7)
        );
        assert!(model("v_readlane_b32 s0, v1, 7").lane_select().is_empty());
        let h = model("s_setreg_b32 hwreg(HW_REG_MODE, 28, 1), s0")
            .hwreg
            .unwrap();
        assert!(h.id == HW_REG_MODE && h.covers_bit(MODE_VSKIP_BIT));
        assert_eq!(
            model("flat_store_dwordx4 v[0:1], v[2:5]").wide_store_data(),
            v(2, 4)
        );
        assert!(model("buffer_store_dwordx4 v[2:5], off, s[0:3], s4")
            .wide_store_data()
            .is_empty());
        assert_eq!(
            model("s_sendmsg sendmsg(MSG_INTERRUPT)").m0_reader,
            Some(M0Reader::GdsSendmsg)
        );
        assert_eq!(
            model("ds_read_addtid_b32 v0").m0_reader,
            Some(M0Reader::Lds)
        );
        assert_eq!(model("ds_read_b32 v0, v1").m0_reader, None);
    }

    #[test]
    fn matrix_operands_by_role_and_register_file() {
        use super::regs::AGPR0;
        let a = |n: u16, dwords: u8| RegSet::range(AGPR0 + n, dwords);
        let m = InstModel::new(
            assemble_inst("v_mfma_f32_4x4x1f32 a[0:3], a0, v1, a[4:7]", Target::Gfx908).unwrap(),
        );
        let mai = m.mai.unwrap();
        assert_eq!(m.mfma(), Some(MfmaClass::Xdl2));
        assert_eq!(mai.dst, a(0, 4));
        assert_eq!(mai.src_ab, a(0, 1).union(v(1, 1)));
        assert_eq!(mai.src_c, a(4, 4));
        assert!(m.writes.contains_all(a(0, 4)) && !m.writes.overlaps(v(0, 4)));
        // gfx90a: C and D are VGPRs unless acc_cd is set.
        let m = InstModel::new(
            assemble_inst(
                "v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]",
                Target::Gfx90a,
            )
            .unwrap(),
        );
        assert_eq!(m.mfma(), Some(MfmaClass::Dgemm8));
        assert_eq!(m.mai.unwrap().dst, v(0, 8));
        let m = InstModel::new(assemble_inst("v_accvgpr_read_b32 v2, a7", Target::Gfx90a).unwrap());
        assert!(m.is_mai(MaiKind::AccvgprRead) && m.reads == a(7, 1).union(regs::EXEC));
        assert!(model("v_mac_f32_e32 v0, v1, v2").mai.is_none());
    }

    /// gfx940's sparse MFMAs accumulate into their destination, and their src2 is the index
    /// register, read as A and B are (LLVM's `$idx`; its `$src2` is the tied accumulator).
    #[test]
    fn sparse_mfma_reads_its_destination_as_c_and_its_index_as_a_b() {
        let m = InstModel::new(
            assemble_inst(
                "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10",
                Target::Gfx940,
            )
            .unwrap(),
        );
        let mai = m.mai.unwrap();
        assert_eq!(m.mfma(), Some(MfmaClass::Gfx940Xdl4));
        assert_eq!(mai.dst, v(0, 4));
        assert_eq!(mai.src_c, v(0, 4));
        assert_eq!(mai.src_ab, v(4, 6).union(v(10, 1)));
        assert!(m.reads.contains_all(v(0, 11)) && m.writes == v(0, 4));
        let m = InstModel::new(
            assemble_inst(
                "v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[8:11]",
                Target::Gfx940,
            )
            .unwrap(),
        );
        assert_eq!(m.mfma(), Some(MfmaClass::Gfx940Smfma8));
        assert_eq!(m.mai.unwrap().src_c, v(8, 4));
        assert!(!m.reads.overlaps(v(0, 4)));
    }
}
