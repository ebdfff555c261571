//! What each opcode *is* for scheduling: which functional unit issues it, which wait counters
//! it increments, what memory it touches, and which registers it reads or writes without naming
//! them as operands (SCC, VCC, EXEC, M0).
//!
//! The unit follows from the encoding format (SOPP branches are the ones that write the PC); the
//! rest is the row's [`Facts`] (column 8 of the table), refined per instruction by encoding bits.
//! The counters follow the Vega ISA §4.4.

use std::sync::OnceLock;

use crate::facts::{MemKind, Regs};
use crate::fields::Enc;
use crate::table::{all_ops, Format, OpId, OpInfo};
use crate::Inst;

/// The issue category of an instruction (which arbiter of a compute unit takes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// SOP1/SOP2/SOPK/SOPC: scalar ALU.
    Salu,
    /// SOPP program control that is not a branch (s_nop, s_waitcnt, s_barrier, s_endpgm, s_sendmsg...).
    Control,
    /// SOPP branches (s_branch, s_cbranch_*), which go to the branch unit.
    Branch,
    /// Scalar memory.
    Smem,
    /// VOP1/VOP2/VOPC/VOP3/VOP3P/VINTRP: vector ALU.
    Valu,
    /// DS: LDS/GDS.
    Ds,
    /// MUBUF/MTBUF/MIMG/GLOBAL/SCRATCH: vector memory.
    Vmem,
    /// FLAT: vector memory that may also address LDS, so both counters.
    Flat,
    /// EXP.
    Export,
}

/// The wait counters an instruction increments when issued (§4.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counters {
    pub vm: bool,
    pub lgkm: bool,
    pub exp: bool,
}

/// Everything [`class`] knows about one table row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpClass {
    pub category: Category,
    pub counters: Counters,
    /// `None` for instructions that do not access memory.
    pub mem: Option<MemKind>,
    pub reads: Regs,
    pub writes: Regs,
}

impl OpClass {
    /// Whether the instruction may change the program counter other than by falling through.
    pub fn is_branch(&self) -> bool {
        self.writes.contains(Regs::PC)
    }
}

/// The class of a table row.
pub fn class(id: OpId) -> &'static OpClass {
    static CLASSES: OnceLock<Vec<OpClass>> = OnceLock::new();
    &CLASSES.get_or_init(|| all_ops().iter().map(classify_row).collect())[id as usize]
}

impl Inst {
    /// The class of this instruction: its row's, refined by bits of the encoding (glc on buffer and
    /// flat atomics returns the old value; an SDWA compare with SD set writes an SGPR pair, not
    /// VCC; `lds` buffer loads write LDS at M0).
    pub fn class(&self) -> OpClass {
        let mut c = *class(self.op());
        let glc = match self.format() {
            Format::Mubuf | Format::Mtbuf => self.bits(0, 14, 1) != 0,
            Format::Flat | Format::Global | Format::Scratch => self.bits(0, 16, 1) != 0,
            Format::Mimg => self.bits(0, 13, 1) != 0,
            _ => false,
        };
        if glc && c.mem == Some(MemKind::Atomic) && self.format() != Format::Ds {
            c.mem = Some(MemKind::AtomicReturn);
        }
        if self.format() == Format::Vopc && self.enc() == Enc::Sdwa && self.bits(1, 15, 1) != 0 {
            c.writes = c.writes.without(Regs::VCC);
        }
        if self.format() == Format::Mubuf && self.bits(0, 16, 1) != 0 {
            c.reads = c.reads | Regs::M0;
        }
        c
    }
}

fn classify_row(op: &OpInfo) -> OpClass {
    let f = &op.facts;
    let category = match op.format {
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => Category::Salu,
        Format::Sopp if f.writes.contains(Regs::PC) => Category::Branch,
        Format::Sopp => Category::Control,
        Format::Smem => Category::Smem,
        Format::Vop1
        | Format::Vop2
        | Format::Vopc
        | Format::Vop3
        | Format::Vop3p
        | Format::Vintrp => Category::Valu,
        Format::Ds => Category::Ds,
        Format::Mubuf | Format::Mtbuf | Format::Mimg | Format::Global | Format::Scratch => {
            Category::Vmem
        }
        Format::Flat => Category::Flat,
        Format::Exp => Category::Export,
    };
    let counters = Counters {
        vm: matches!(category, Category::Vmem | Category::Flat),
        lgkm: matches!(category, Category::Smem | Category::Ds | Category::Flat) || f.lgkm,
        exp: category == Category::Export,
    };
    OpClass {
        category,
        counters,
        mem: f.mem,
        reads: f.reads,
        writes: f.writes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::lookup_name;
    use crate::Target;

    fn of(name: &str) -> &'static OpClass {
        class(lookup_name(name, Target::Gfx900).next().expect(name))
    }

    #[test]
    fn categories_and_counters() {
        assert_eq!(of("s_load_dwordx2").category, Category::Smem);
        assert!(of("s_load_dwordx2").counters.lgkm);
        assert_eq!(
            of("global_load_dword").counters,
            Counters {
                vm: true,
                ..Default::default()
            }
        );
        let flat = of("flat_load_dword").counters;
        assert!(flat.vm && flat.lgkm && !flat.exp);
        assert!(of("s_sendmsg").counters.lgkm);
        assert!(of("exp").counters.exp);
        assert_eq!(of("s_cbranch_execz").category, Category::Branch);
        assert_eq!(of("s_waitcnt").category, Category::Control);
        assert_eq!(of("v_add_f32_e64").category, Category::Valu);
    }

    #[test]
    fn memory_kinds() {
        assert_eq!(of("ds_read_b32").mem, Some(MemKind::Load));
        assert_eq!(of("ds_write2_b32").mem, Some(MemKind::Store));
        assert_eq!(of("ds_add_u32").mem, Some(MemKind::Atomic));
        assert_eq!(of("ds_add_rtn_u32").mem, Some(MemKind::AtomicReturn));
        assert_eq!(of("ds_cmpst_rtn_b32").mem, Some(MemKind::AtomicReturn));
        assert_eq!(of("ds_bpermute_b32").mem, Some(MemKind::Load));
        assert_eq!(of("ds_read_addtid_b32").mem, Some(MemKind::Load));
        assert_eq!(of("ds_add_src2_u32").mem, Some(MemKind::Atomic));
        assert_eq!(of("global_atomic_add").mem, Some(MemKind::Atomic));
        assert_eq!(of("buffer_store_dwordx4").mem, Some(MemKind::Store));
        assert_eq!(of("s_dcache_wb").mem, Some(MemKind::Other));
        assert_eq!(of("v_add_f32_e32").mem, None);
    }

    #[test]
    fn implicit_registers() {
        assert!(of("s_add_u32").writes.contains(Regs::SCC));
        assert!(!of("s_mov_b32").writes.contains(Regs::SCC));
        assert!(of("s_cselect_b64").reads.contains(Regs::SCC));
        assert!(of("s_and_saveexec_b64")
            .writes
            .contains(Regs::EXEC | Regs::SCC));
        assert!(of("v_cmp_eq_u32_e32").writes.contains(Regs::VCC));
        assert!(!of("v_cmp_eq_u32_e64").writes.contains(Regs::VCC));
        assert!(of("v_cmpx_eq_u32_e64").writes.contains(Regs::EXEC));
        assert!(of("v_addc_co_u32_e32").reads.contains(Regs::VCC));
        assert!(!of("v_addc_co_u32_e64").reads.contains(Regs::VCC));
        assert!(of("v_cndmask_b32_e32").reads.contains(Regs::VCC));
        assert!(of("v_div_fmas_f32").reads.contains(Regs::VCC));
        assert!(of("s_cbranch_vccz").reads.contains(Regs::VCC));
        assert!(of("s_swappc_b64").is_branch());
        assert!(of("s_movrels_b32").reads.contains(Regs::M0));
        assert!(of("ds_write_addtid_b32").reads.contains(Regs::M0));
        assert!(of("v_add_u32_e32").reads.contains(Regs::EXEC));
    }
}
