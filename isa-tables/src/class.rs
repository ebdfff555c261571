//! What each opcode *is*, beyond its syntax: which functional unit issues it, which wait counters
//! it increments, what memory it touches, and which registers it reads or writes without naming
//! them as operands (SCC, VCC, EXEC, M0).
//!
//! Everything is derived from the table row (format and mnemonic), once, into [`OpClass`] values
//! indexed by [`OpId`]; callers such as the emulator and the linter look them up at load time.
//! The rules follow the Vega ISA: §4.4 for the counters, the per-op pseudo-code for SCC/VCC/EXEC.

use std::sync::OnceLock;

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

/// What a memory instruction does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    Load,
    Store,
    /// An atomic read-modify-write that does not return the old value.
    Atomic,
    /// An atomic that returns the pre-op value (LLVM: `_rtn` for DS, `glc` for buffer/flat).
    AtomicReturn,
    /// Cache control, timers and probes: no data in registers moved to or from memory.
    Other,
}

/// A set of the special registers instructions use implicitly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Regs(u8);

impl Regs {
    pub const NONE: Regs = Regs(0);
    pub const SCC: Regs = Regs(1);
    pub const VCC: Regs = Regs(2);
    pub const EXEC: Regs = Regs(4);
    pub const M0: Regs = Regs(8);
    /// The program counter (branches, calls, s_setpc).
    pub const PC: Regs = Regs(16);

    pub const fn union(self, o: Regs) -> Regs {
        Regs(self.0 | o.0)
    }
    pub const fn contains(self, o: Regs) -> bool {
        self.0 & o.0 == o.0 && o.0 != 0
    }
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for Regs {
    type Output = Regs;
    fn bitor(self, o: Regs) -> Regs {
        self.union(o)
    }
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
            c.writes = Regs(c.writes.0 & !Regs::VCC.0);
        }
        if self.format() == Format::Mubuf && self.bits(0, 16, 1) != 0 {
            c.reads = c.reads | Regs::M0;
        }
        c
    }
}

fn classify_row(op: &OpInfo) -> OpClass {
    let name = op.base_name();
    let category = category(op.format, name);
    let counters = match category {
        Category::Smem | Category::Ds => Counters {
            lgkm: true,
            ..Counters::default()
        },
        Category::Vmem => Counters {
            vm: true,
            ..Counters::default()
        },
        Category::Flat => Counters {
            vm: true,
            lgkm: true,
            ..Counters::default()
        },
        Category::Export => Counters {
            exp: true,
            ..Counters::default()
        },
        // s_sendmsg increments LGKM_CNT until the message is sent (§4.4).
        Category::Control if name.starts_with("s_sendmsg") => Counters {
            lgkm: true,
            ..Counters::default()
        },
        _ => Counters::default(),
    };
    // s_memtime/s_memrealtime count as s_load_dwordx2 (§4.4); there is no gfx9 SMEM op outside LGKM.
    let mem = match category {
        Category::Smem | Category::Ds | Category::Vmem | Category::Flat => Some(mem_kind(name)),
        _ => None,
    };
    let (reads, writes) = implicit(op.format, name);
    OpClass {
        category,
        counters,
        mem,
        reads,
        writes,
    }
}

fn category(format: Format, name: &str) -> Category {
    match format {
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => Category::Salu,
        Format::Sopp if name.starts_with("s_branch") || name.starts_with("s_cbranch") => {
            Category::Branch
        }
        Format::Sopp => Category::Control,
        Format::Smem => Category::Smem,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3p => Category::Valu,
        Format::Vintrp => Category::Valu,
        Format::Ds => Category::Ds,
        Format::Mubuf | Format::Mtbuf | Format::Mimg | Format::Global | Format::Scratch => {
            Category::Vmem
        }
        Format::Flat => Category::Flat,
        Format::Exp => Category::Export,
    }
}

fn mem_kind(name: &str) -> MemKind {
    let has = |s: &str| name.contains(s);
    if has("atomic") || has("_cmpst_") || is_ds_atomic(name) {
        // DS atomics that return print `_rtn_`; buffer/flat ones decide it with glc, which is a
        // per-instruction bit: report the form without return here and let `Inst` refine it.
        return if has("_rtn") {
            MemKind::AtomicReturn
        } else {
            MemKind::Atomic
        };
    }
    if has("load") || has("read") || has("gather") || has("sample") || has("get_resinfo") {
        return MemKind::Load;
    }
    if has("store") || has("write") {
        return MemKind::Store;
    }
    // ds_swizzle/permute/bpermute move data between lanes and return it, like a load.
    if has("swizzle") || has("permute") || has("append") || has("consume") || has("ordered_count") {
        return MemKind::Load;
    }
    MemKind::Other
}

/// DS read-modify-write ops are named after the operation, not "atomic".
fn is_ds_atomic(name: &str) -> bool {
    const OPS: [&str; 21] = [
        "add", "sub", "rsub", "inc", "dec", "min", "max", "and", "or", "xor", "mskor", "cmpst",
        "wrxchg", "condxchg", "umin", "umax", "fmin", "fmax", "add_f32", "wrap", "cmpxchg",
    ];
    let Some(rest) = name.strip_prefix("ds_") else {
        return false;
    };
    let rest = rest.strip_prefix("rtn_").unwrap_or(rest);
    OPS.iter()
        .any(|o| rest.starts_with(o) && rest.len() > o.len())
        && !rest.starts_with("read")
        && !rest.starts_with("write")
}

/// Implicit special-register reads and writes of one row.
fn implicit(format: Format, name: &str) -> (Regs, Regs) {
    let mut r = Regs::NONE;
    let mut w = Regs::NONE;
    match format {
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => {
            if reads_scc(name) {
                r = r | Regs::SCC;
            }
            if writes_scc(format, name) {
                w = w | Regs::SCC;
            }
            if name.contains("saveexec") || name.contains("wrexec") {
                r = r | Regs::EXEC;
                w = w | Regs::EXEC;
            }
            if name.starts_with("s_movrel") || name == "s_set_gpr_idx_idx" {
                r = r | Regs::M0;
            }
            if name == "s_set_gpr_idx_on" || name == "s_set_gpr_idx_idx" {
                w = w | Regs::M0;
            }
            if matches!(
                name,
                "s_setpc_b64" | "s_swappc_b64" | "s_call_b64" | "s_rfe_b64"
            ) || name.starts_with("s_cbranch")
            {
                w = w | Regs::PC;
            }
            if name.starts_with("s_cbranch") && name.contains("fork") {
                r = r | Regs::EXEC;
                w = w | Regs::EXEC;
            }
            if name == "s_cbranch_join" {
                w = w | Regs::EXEC;
            }
        }
        Format::Sopp => {
            if name.starts_with("s_branch") || name.starts_with("s_cbranch") {
                w = w | Regs::PC;
            }
            if name.starts_with("s_cbranch_scc") {
                r = r | Regs::SCC;
            }
            if name.starts_with("s_cbranch_vcc") {
                r = r | Regs::VCC;
            }
            if name.starts_with("s_cbranch_exec") {
                r = r | Regs::EXEC;
            }
            if name.starts_with("s_sendmsg") || name == "s_set_gpr_idx_off" {
                r = r | Regs::M0;
            }
            if name == "s_set_gpr_idx_mode" || name == "s_set_gpr_idx_off" {
                w = w | Regs::M0;
            }
        }
        Format::Vop1
        | Format::Vop2
        | Format::Vopc
        | Format::Vop3
        | Format::Vop3p
        | Format::Vintrp => {
            // Every VALU op is masked by EXEC (v_readlane/readfirstlane read it only to pick a lane,
            // which is still a read of EXEC).
            r = r | Regs::EXEC;
            let e32 = matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc);
            if format == Format::Vopc && e32 {
                w = w | Regs::VCC;
            }
            if name.starts_with("v_cmpx_") {
                w = w | Regs::EXEC;
            }
            if e32 && (is_carry_in(name) || name == "v_cndmask_b32") {
                r = r | Regs::VCC;
            }
            if e32 && (is_carry_in(name) || is_carry_out(name)) {
                w = w | Regs::VCC;
            }
            // v_div_fmas reads VCC in every encoding (its "src3").
            if name.starts_with("v_div_fmas") {
                r = r | Regs::VCC;
            }
            if name.starts_with("v_movrel") || name.starts_with("v_interp") {
                r = r | Regs::M0;
            }
        }
        Format::Ds => {
            // gfx9 LDS needs no M0 bounds; the exceptions take M0 as data.
            if name.contains("addtid") || name.starts_with("ds_gws") || name.contains("ordered") {
                r = r | Regs::M0;
            }
        }
        // `lds` buffer loads write LDS at M0.
        Format::Mubuf => {
            r = r | Regs::EXEC;
        }
        Format::Smem
        | Format::Exp
        | Format::Mtbuf
        | Format::Mimg
        | Format::Flat
        | Format::Global
        | Format::Scratch => {}
    }
    if matches!(
        format,
        Format::Ds
            | Format::Mtbuf
            | Format::Mimg
            | Format::Flat
            | Format::Global
            | Format::Scratch
            | Format::Exp
    ) {
        r = r | Regs::EXEC;
    }
    (r, w)
}

fn is_carry_out(name: &str) -> bool {
    matches!(name, "v_add_co_u32" | "v_sub_co_u32" | "v_subrev_co_u32")
}

fn is_carry_in(name: &str) -> bool {
    matches!(name, "v_addc_co_u32" | "v_subb_co_u32" | "v_subbrev_co_u32")
}

fn reads_scc(name: &str) -> bool {
    name.starts_with("s_addc")
        || name.starts_with("s_subb")
        || name.starts_with("s_cselect")
        || name.starts_with("s_cmov")
}

fn writes_scc(format: Format, name: &str) -> bool {
    if format == Format::Sopc {
        return !name.starts_with("s_set");
    }
    const PREFIXES: [&str; 24] = [
        "s_add_",
        "s_sub_",
        "s_addc_",
        "s_subb_",
        "s_min_",
        "s_max_",
        "s_and_",
        "s_or_",
        "s_xor_",
        "s_andn",
        "s_orn",
        "s_nand_",
        "s_nor_",
        "s_xnor_",
        "s_lshl",
        "s_lshr_",
        "s_ashr_",
        "s_bfe_",
        "s_absdiff_",
        "s_not_",
        "s_wqm_",
        "s_bcnt",
        "s_quadmask_",
        "s_abs_",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || name.starts_with("s_cmpk_")
        || name == "s_addk_i32"
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
