//! The hazard rules, as data: one row per rule, each with an id, a one-line explanation, what
//! produces and what consumes the hazard, what it requires, when it applies, and where it comes
//! from. `gcnemu lint --rules` prints this table; the static lint (`lint.rs`, `waitcnt.rs`) and the
//! run-time tracker (`tracker.rs`) both evaluate these rows through `check.rs`, so a rule behaves
//! the same on a whole binary and on a wave's issued history.

use super::mai::MfmaClass;
use gcn_isa::Features;
use serde::Serialize;

/// The first instruction of a wait-state hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Producer {
    /// A VALU instruction writing a watched register.
    ValuWrites,
    /// An SALU instruction writing a watched register.
    SaluWrites,
    /// Any instruction writing a watched register (LLVM's DPP check).
    AnyWrites,
    /// `s_setreg_b32`/`s_setreg_imm32_b32` of the consumer's hardware register id.
    SetregSameHwreg,
    /// `s_setreg*` of TRAPSTS.
    SetregTrapsts,
    /// `s_setreg*` of MODE covering bit 28 (VSKIP).
    SetregModeVskip,
    /// `s_setvskip`.
    SetVskip,
    /// A store wider than 64 bits whose data VGPRs are watched (table 8 row 8).
    WideStoreData,
    /// A VALU other than an MFMA writing a watched register (gfx90a's "legacy VALU").
    NonMfmaValuWrites,
    /// A VALU other than an MFMA or a `v_dot*` writing a watched register.
    NonMfmaNonDotValuWrites,
    /// The nearest MFMA whose D overlaps the watched registers; `Overlap` says when its wait
    /// states apply.
    MfmaWrites(Overlap),
    /// The nearest MFMA of the kind given reading a watched register as C; MFMAs of other
    /// kinds are walked past (LLVM's `IsSMFMAReadAsCFn` skips them).
    MfmaReadsSrcC(MfmaKind),
    /// `v_accvgpr_write` writing a watched AGPR.
    AccvgprWrite,
    /// `v_accvgpr_read` writing a watched VGPR.
    AccvgprRead,
    /// Any DGEMM (f64 MFMA), whatever it writes.
    Dgemm,
    /// A `v_dot*` writing a watched register; its wait states apply unless the consumer is
    /// the same op (and, for reads, reads the register only as its accumulator SrcC).
    DotWrites,
    /// A VALU (other than a matrix-core op) writing a watched register, followed at once by a
    /// `Between` instruction, which the hardware mistakes for a wait state.
    ValuWritesThen(Between),
}

/// How an MFMA's D must overlap a consumer's registers for its wait states to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Overlap {
    /// Any overlap.
    Any,
    /// Overlapping but not the same registers; an MFMA writing exactly the watched registers is
    /// passed over (LLVM's gfx908 check skips `DstReg == Reg` and looks further back).
    NotSame,
    /// The nearest overlapping MFMA ends the search; its wait states apply if it overlaps only
    /// in part (gfx90a's "overlapped").
    Partial,
    /// As `Partial`, but the wait states apply if it writes exactly the watched registers.
    Same,
}

/// The instruction between a VALU write and its reader in a `ValuWritesThen` hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Between {
    /// A DGEMM (gfx90a): the VMEM/DS reader then misses its two wait states.
    Dgemm,
    /// `v_accvgpr_read` or `v_accvgpr_write` (gfx908).
    AccvgprReadWrite,
}

/// The second instruction of a wait-state hazard, and the registers it watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Consumer {
    /// `s_getreg_b32` (watches its hwreg id).
    Getreg,
    /// `s_setreg*` (watches its hwreg id).
    Setreg,
    /// `s_getreg_b32` of MODE.
    GetregMode,
    /// Any vector instruction (VALU, VMEM, FLAT, DS, EXP).
    VectorOp,
    /// A VALU reading `src_vccz`/`src_execz` as an operand (watches VCC/EXEC).
    ValuReadsVcczExecz,
    /// v_readlane/v_writelane with an SGPR lane select (watches it).
    LaneSelect,
    /// v_div_fmas_f32/f64 (watches VCC).
    DivFmas,
    /// A VALU writing VGPRs (watches them).
    ValuWritesVgpr,
    /// MUBUF/MTBUF/MIMG/FLAT/GLOBAL/SCRATCH reading SGPRs, EXEC included (watches them).
    VmemReadsSgpr,
    /// GDS, s_sendmsg(halt), s_ttracedata (watch M0).
    M0GdsSendmsg,
    /// LDS add-TID, LDS DMA, VINTRP, LDS_DIRECT (watch M0).
    M0Lds,
    /// s_movrels/s_movreld (watch M0).
    M0SMovrel,
    /// A DPP instruction reading VGPRs (watches them).
    DppReadsVgpr,
    /// Any DPP instruction (watches EXEC).
    Dpp,
    /// s_rfe_b64 / s_rfe_restore_b64.
    Rfe,
    /// An MFMA (watches EXEC).
    MfmaExec,
    /// An MFMA or `v_accvgpr_write` (watches EXEC).
    MfmaOrAccvgprWriteExec,
    /// An MFMA reading VGPRs as A or B, or `v_accvgpr_write` reading a VGPR (watches them).
    MaiReadsVgpr,
    /// An MFMA (of the kind given) reading C (watches those registers).
    MfmaReadsSrcC(MfmaKind),
    /// An MFMA reading A or B (watches those registers; on gfx908 only AGPRs can be hazards).
    MfmaReadsSrcAB,
    /// An MFMA reading any register (watches them).
    MfmaReads,
    /// `v_accvgpr_read` (watches its AGPR).
    AccvgprReadReads,
    /// `v_accvgpr_write` (watches the AGPR it writes).
    AccvgprWriteWrites,
    /// `v_accvgpr_read` (watches its AGPR), `v_accvgpr_write` (watches the AGPR it writes) or an
    /// MFMA reading AGPRs as A or B (watches them).
    AgprReadOrAccvgprWrite,
    /// A VALU other than an MFMA reading VGPRs or AGPRs (watches them).
    NonMfmaValuReads,
    /// VMEM, FLAT or DS reading VGPRs or AGPRs (watches them).
    MemoryReads,
    /// VMEM, FLAT, DS or export reading VGPRs or AGPRs (watches them).
    MemoryExportReads,
    /// A VALU other than an MFMA, or VMEM/FLAT/DS/export, writing VGPRs or AGPRs (watches them).
    VectorWrites,
    /// A VALU other than an MFMA, or VMEM/FLAT/DS/export, reading VGPRs or AGPRs (watches them).
    VectorReads,
    /// v_fma_f64 / v_fmac_f64.
    FmaF64,
}

/// Which MFMAs a consumer (or an `MfmaReadsSrcC` producer) stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MfmaKind {
    Any,
    /// LLVM's `isXDL`: not a DGEMM, and on gfx940 not an f32-input op either (on gfx90a, every
    /// MFMA but the DGEMMs).
    Xdl,
    /// Not XDL: a DGEMM, or one of gfx940's f32-input ops.
    NotXdl,
    /// `v_mfma_f64_4x4x4f64`.
    Dgemm4x4,
}

/// Wait states by the producing MFMA's class (see [`MfmaClass`] for the passes of each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ByPasses {
    /// After a 2-, 8- and 16-pass MFMA of gfx908/gfx90a (all XDL there but the DGEMMs).
    pub xdl: [u8; 3],
    /// After a 4-pass (f64 4x4) and an 8-pass (f64 16x16) DGEMM (gfx90a and gfx940 alike).
    pub dgemm: [u8; 2],
    /// After a 2-, 4-, 8- and 16-pass XDL op of gfx940 (LLVM's `GFX940_XDL_N_Pass*`).
    pub gfx940_xdl: [u8; 4],
    /// After a 2-, 8- and 16-pass f32-input op of gfx940, which is not XDL there (LLVM's
    /// `GFX940_SMFMA_N_Pass*`).
    pub gfx940_smfma: [u8; 3],
    /// Look the producer up as the longest MFMA from it to the consumer (on the paths walked),
    /// not as itself: LLVM's gfx908 check keeps the largest latency of every MFMA it walks past
    /// on the way to the producer, so a 16x16 MFMA's D read after a 32x32 MFMA waits as long as
    /// the 32x32's would.
    pub longest_since: bool,
}

impl ByPasses {
    /// No wait states after any MFMA: the base the rows fill in.
    pub const NONE: ByPasses = ByPasses {
        xdl: [0; 3],
        dgemm: [0; 2],
        gfx940_xdl: [0; 4],
        gfx940_smfma: [0; 3],
        longest_since: false,
    };

    pub fn get(&self, class: MfmaClass) -> u8 {
        match class {
            MfmaClass::Xdl2 => self.xdl[0],
            MfmaClass::Xdl8 => self.xdl[1],
            MfmaClass::Xdl16 => self.xdl[2],
            MfmaClass::Dgemm4 => self.dgemm[0],
            MfmaClass::Dgemm8 => self.dgemm[1],
            MfmaClass::Gfx940Xdl2 => self.gfx940_xdl[0],
            MfmaClass::Gfx940Xdl4 => self.gfx940_xdl[1],
            MfmaClass::Gfx940Xdl8 => self.gfx940_xdl[2],
            MfmaClass::Gfx940Xdl16 => self.gfx940_xdl[3],
            MfmaClass::Gfx940Smfma2 => self.gfx940_smfma[0],
            MfmaClass::Gfx940Smfma8 => self.gfx940_smfma[1],
            MfmaClass::Gfx940Smfma16 => self.gfx940_smfma[2],
        }
    }

    pub fn max(&self) -> u8 {
        self.xdl
            .into_iter()
            .chain(self.dgemm)
            .chain(self.gfx940_xdl)
            .chain(self.gfx940_smfma)
            .max()
            .unwrap_or(0)
    }

    /// Whether any gfx940 op needs wait states (the row has a gfx940 table).
    pub fn has_gfx940(&self) -> bool {
        self.gfx940_xdl
            .into_iter()
            .chain(self.gfx940_smfma)
            .any(|n| n > 0)
    }
}

/// The wait states a rule requires: a number, or one per producing MFMA's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Wait {
    Fixed(u8),
    ByPasses(ByPasses),
}

impl Wait {
    /// The most any producer needs: how far back a producer can be.
    pub fn max(&self) -> u8 {
        match self {
            Wait::Fixed(n) => *n,
            Wait::ByPasses(t) => t.max(),
        }
    }

    /// The wait states after a producer that is an MFMA of `class` (or not an MFMA: `None`).
    pub fn after(&self, class: Option<MfmaClass>) -> u8 {
        match (self, class) {
            (Wait::Fixed(n), _) => *n,
            (Wait::ByPasses(t), Some(class)) => t.get(class),
            (Wait::ByPasses(t), None) => t.max(),
        }
    }
}

impl std::fmt::Display for Wait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wait::Fixed(n) => write!(f, "{n} wait states"),
            Wait::ByPasses(t) => {
                // A gfx940-only row has no gfx908/gfx90a table to print.
                let before_gfx940 = t.xdl != [0; 3] || t.dgemm != [0, 0];
                if before_gfx940 {
                    let [a, b, c] = t.xdl;
                    write!(f, "{a}/{b}/{c} wait states after a 2/8/16-pass MFMA")?;
                    if t.dgemm != [0, 0] {
                        let [d, e] = t.dgemm;
                        write!(f, ", {d}/{e} after a 4/8-pass DGEMM")?;
                    }
                    if t.longest_since {
                        f.write_str(" (the longest MFMA from the producer on)")?;
                    }
                }
                if t.has_gfx940() {
                    let [a, b, c, d] = t.gfx940_xdl;
                    let [e, g, h] = t.gfx940_smfma;
                    if before_gfx940 {
                        f.write_str("; ")?;
                    }
                    write!(
                        f,
                        "gfx940: {a}/{b}/{c}/{d} wait states after a 2/4/8/16-pass XDL op, {e}/{g}/{h} after a 2/8/16-pass f32 op (not XDL)"
                    )?;
                    if t.dgemm != [0, 0] {
                        let [d, e] = t.dgemm;
                        write!(f, ", {d}/{e} after a DGEMM")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// Which consecutive memory instructions form a soft clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ClauseKind {
    Smem,
    /// MUBUF/MTBUF/MIMG and the FLAT family.
    Vmem,
}

/// The loads whose results must be waited for, by the counters that cover them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LoadKind {
    /// MUBUF/MTBUF/MIMG/GLOBAL/SCRATCH: VM_CNT, in issue order.
    Vmem,
    /// DS (LDS or GDS): LGKM_CNT, in order within LDS and within GDS.
    Ds,
    /// SMEM: LGKM_CNT, out of order, so only lgkmcnt(0) is safe.
    Smem,
    /// FLAT: may go to memory or LDS, so both VM_CNT and LGKM_CNT.
    Flat,
    /// EXP and GDS hold their data VGPRs until EXP_CNT says they were read.
    ExportData,
}

/// How a rule is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Check {
    /// At least `wait_states` between a producer and a consumer on every path.
    WaitStates {
        producer: Producer,
        consumer: Consumer,
        wait_states: Wait,
    },
    /// A member of a soft clause must not write what the clause reads: break the clause with one
    /// non-member instruction.
    SoftClause(ClauseKind),
    /// `s_cbranch_vccz/vccnz` after a write of only vcc_lo or vcc_hi reads a stale VCCZ until the
    /// whole of VCC is written again.
    StaleVccz,
    /// A use of a register written by an outstanding load needs a covering `s_waitcnt`.
    Waitcnt(LoadKind),
    /// Listed for completeness; a finished binary does not carry what the check needs.
    NotCheckable(&'static str),
}

/// When a rule applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Gate {
    /// Every gfx9 target.
    Gfx9,
    /// Only when XNACK replay is enabled (e_flags xnack on or any, or `--xnack on`).
    Xnack,
    /// Targets with matrix cores (`Features::mai_insts`) but not gfx90a's additions: gfx908.
    MaiNotGfx90a,
    /// Targets with gfx90a's additions (`Features::gfx90a_insts`): gfx90a and gfx940.
    Gfx90a,
    /// gfx90a's additions without gfx940's: gfx90a alone.
    Gfx90aNotGfx940,
    /// Targets with gfx940's additions (`Features::gfx940_insts`).
    Gfx940,
}

impl Gate {
    /// Whether a rule with this gate applies to a target with `features`.
    pub fn applies(self, features: Features, xnack: bool) -> bool {
        match self {
            Gate::Gfx9 => true,
            Gate::Xnack => xnack,
            Gate::MaiNotGfx90a => features.mai_insts && !features.gfx90a_insts,
            Gate::Gfx90a => features.gfx90a_insts,
            Gate::Gfx90aNotGfx940 => features.gfx90a_insts && !features.gfx940_insts,
            Gate::Gfx940 => features.gfx940_insts,
        }
    }

    /// The gates of the matrix-core rules (every target with `mai_insts`).
    pub fn is_matrix(self) -> bool {
        matches!(
            self,
            Gate::MaiNotGfx90a | Gate::Gfx90a | Gate::Gfx90aNotGfx940 | Gate::Gfx940
        )
    }

    /// The targets a rule applies to, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Gate::Gfx9 => "gfx9",
            Gate::Xnack => "gfx9, XNACK enabled",
            Gate::MaiNotGfx90a => {
                "matrix cores without gfx90a's additions (mai_insts, not gfx90a_insts: gfx908)"
            }
            Gate::Gfx90a => "gfx90a's additions (gfx90a_insts: gfx90a, gfx940, gfx942)",
            Gate::Gfx90aNotGfx940 => {
                "gfx90a's additions without gfx940's (gfx90a_insts, not gfx940_insts: gfx90a)"
            }
            Gate::Gfx940 => "gfx940's additions (gfx940_insts: gfx940, gfx942)",
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rule {
    pub id: &'static str,
    pub summary: &'static str,
    pub first: &'static str,
    pub second: &'static str,
    pub check: Check,
    pub gate: Gate,
    pub reference: &'static str,
    /// Checked unless `--allow`ed; rules off by default are enabled with `--deny`.
    pub default_on: bool,
}

impl Rule {
    /// The most wait states the rule requires, if it is a wait-state rule.
    pub fn wait_states(&self) -> Option<u8> {
        match self.check {
            Check::WaitStates { wait_states, .. } => Some(wait_states.max()),
            _ => None,
        }
    }

    /// Rules fixed by inserting `s_nop` or independent instructions (the "NOP rules").
    pub fn is_nop_rule(&self) -> bool {
        matches!(
            self.check,
            Check::WaitStates { .. } | Check::SoftClause(_) | Check::StaleVccz
        )
    }

    pub fn requirement(&self) -> String {
        match self.check {
            Check::WaitStates { wait_states, .. } => wait_states.to_string(),
            Check::SoftClause(_) => "1 non-clause instruction".into(),
            Check::StaleVccz => "a write of all of vcc".into(),
            Check::Waitcnt(LoadKind::Vmem) => "s_waitcnt vmcnt".into(),
            Check::Waitcnt(LoadKind::Ds) => "s_waitcnt lgkmcnt".into(),
            Check::Waitcnt(LoadKind::Smem) => "s_waitcnt lgkmcnt(0)".into(),
            Check::Waitcnt(LoadKind::Flat) => "s_waitcnt vmcnt and lgkmcnt".into(),
            Check::Waitcnt(LoadKind::ExportData) => "s_waitcnt expcnt".into(),
            Check::NotCheckable(_) => "-".into(),
        }
    }
}

const fn ws(producer: Producer, consumer: Consumer, wait_states: u8) -> Check {
    Check::WaitStates {
        producer,
        consumer,
        wait_states: Wait::Fixed(wait_states),
    }
}

/// A rule whose wait states depend on the producing MFMA's class.
const fn by_passes(producer: Producer, consumer: Consumer, table: ByPasses) -> Check {
    Check::WaitStates {
        producer,
        consumer,
        wait_states: Wait::ByPasses(table),
    }
}

/// As [`by_passes`], by the longest MFMA from the producer to the consumer (gfx908).
const fn by_longest_passes(producer: Producer, consumer: Consumer, xdl: [u8; 3]) -> Check {
    Check::WaitStates {
        producer,
        consumer,
        wait_states: Wait::ByPasses(ByPasses {
            xdl,
            longest_since: true,
            ..ByPasses::NONE
        }),
    }
}

/// Every rule, in the order of the Vega ISA table, then LLVM-only checks, then the matrix-core
/// rules of gfx908 and of gfx90a, then waitcnt rules.
pub static RULES: &[Rule] = &[
    Rule {
        id: "setreg-getreg",
        summary: "s_getreg reads a hardware register too soon after s_setreg wrote it",
        first: "S_SETREG hwreg X",
        second: "S_GETREG hwreg X",
        check: ws(Producer::SetregSameHwreg, Consumer::Getreg, 2),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 1; LLVM GCNHazardRecognizer::checkGetRegHazards (compares the hwreg id only)",
    },
    Rule {
        id: "setreg-setreg",
        summary: "two s_setreg of the same hardware register too close together",
        first: "S_SETREG hwreg X",
        second: "S_SETREG hwreg X",
        check: ws(Producer::SetregSameHwreg, Consumer::Setreg, 2),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 2; LLVM GCNHazardRecognizer::checkSetRegHazards (getSetRegWaitStates = 2)",
    },
    Rule {
        id: "setvskip-getreg-mode",
        summary: "s_getreg of MODE reads VSKIP before s_setvskip's write lands",
        first: "S_SETVSKIP",
        second: "S_GETREG MODE",
        check: ws(Producer::SetVskip, Consumer::GetregMode, 2),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 3 (not modelled by LLVM)",
    },
    Rule {
        id: "setreg-vskip-vector",
        summary: "a vector instruction issues before an s_setreg of MODE.vskip takes effect",
        first: "S_SETREG MODE.vskip",
        second: "any vector instruction",
        check: ws(Producer::SetregModeVskip, Consumer::VectorOp, 2),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 4 (not modelled by LLVM)",
    },
    Rule {
        id: "valu-vcc-exec-vccz-data",
        summary: "a VALU reads src_vccz/src_execz as data before a VALU write of VCC/EXEC updates it",
        first: "VALU writes VCC or EXEC",
        second: "VALU reads VCCZ or EXECZ as an operand",
        check: ws(Producer::ValuWrites, Consumer::ValuReadsVcczExecz, 5),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 5 (not modelled by LLVM)",
    },
    Rule {
        id: "valu-sgpr-lane-select",
        summary: "v_readlane/v_writelane uses an SGPR lane select a VALU wrote too recently",
        first: "VALU writes SGPR/VCC (v_readlane, v_cmp, v_add/sub carry, v_div_scale)",
        second: "V_READLANE/V_WRITELANE with that SGPR as lane select",
        check: ws(Producer::ValuWrites, Consumer::LaneSelect, 4),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 6; LLVM GCNHazardRecognizer::checkRWLaneHazards",
    },
    Rule {
        id: "valu-vcc-div-fmas",
        summary: "v_div_fmas reads VCC too soon after a VALU wrote it",
        first: "VALU writes VCC (including v_div_scale)",
        second: "V_DIV_FMAS_F32/F64",
        check: ws(Producer::ValuWrites, Consumer::DivFmas, 4),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 7; LLVM GCNHazardRecognizer::checkDivFMasHazards",
    },
    Rule {
        id: "wide-store-data-overwrite",
        summary: "a VALU overwrites the data VGPRs of a >64-bit store before the store has read them",
        first: "FLAT/GLOBAL/SCRATCH_STORE_X3/X4, *_ATOMIC_{F}CMPSWAP_X2, BUFFER_STORE_DWORDX3/X4, BUFFER_STORE_FORMAT_XYZ(W) without SGPR soffset, IMAGE_STORE > 64 bits with a 128-bit T#",
        second: "VALU writes the VGPRs holding the store data",
        check: ws(Producer::WideStoreData, Consumer::ValuWritesVgpr, 1),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 8; LLVM GCNHazardRecognizer::checkVALUHazards/createsVALUHazard (has12DWordStoreHazard)",
    },
    Rule {
        id: "valu-sgpr-vmem",
        summary: "a vector memory instruction reads an SGPR (or EXEC) a VALU wrote too recently",
        first: "VALU writes SGPR",
        second: "VMEM/FLAT reads that SGPR",
        check: ws(Producer::ValuWrites, Consumer::VmemReadsSgpr, 5),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 9; LLVM GCNHazardRecognizer::checkVMEMHazards (counts the implicit EXEC read too)",
    },
    Rule {
        id: "salu-m0-gds-sendmsg",
        summary: "GDS, s_sendmsg or s_ttracedata reads M0 right after an SALU wrote it",
        first: "SALU writes M0",
        second: "GDS, S_SENDMSG, S_SENDMSGHALT, S_TTRACEDATA",
        check: ws(Producer::SaluWrites, Consumer::M0GdsSendmsg, 1),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 10; LLVM GCNHazardRecognizer::checkReadM0Hazards (hasReadM0SendMsgHazard)",
    },
    Rule {
        id: "valu-vgpr-dpp",
        summary: "a DPP instruction reads a VGPR the previous VALU wrote",
        first: "VALU writes VGPR",
        second: "VALU DPP reads that VGPR",
        check: ws(Producer::ValuWrites, Consumer::DppReadsVgpr, 2),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 11; LLVM GCNHazardRecognizer::checkDPPHazards (LLVM counts any writer; the ISA names VALU writers)",
    },
    Rule {
        id: "any-vgpr-dpp",
        summary: "a DPP instruction reads a VGPR written by any instruction (a load included) too recently",
        first: "any instruction writes VGPR (LLVM's stricter form of row 11)",
        second: "VALU DPP reads that VGPR",
        check: ws(Producer::AnyWrites, Consumer::DppReadsVgpr, 2),
        gate: Gate::Gfx9,
        default_on: false,
        reference: "LLVM GCNHazardRecognizer::checkDPPHazards (IsHazardDefFn returns true for every writer); off by default: the ISA (§4.5 table 8 row 11) names VALU writers only",
    },
    Rule {
        id: "valu-exec-dpp",
        summary: "a DPP instruction issues too soon after a VALU wrote EXEC (EXEC is not forwarded to DPP)",
        first: "VALU writes EXEC",
        second: "VALU DPP",
        check: ws(Producer::ValuWrites, Consumer::Dpp, 5),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 12; LLVM GCNHazardRecognizer::checkDPPHazards",
    },
    Rule {
        id: "vcc-alias-mixed-use",
        summary: "VCC written through its SGPR alias and read by name (or the reverse) as a VALU constant",
        first: "VALU writes VCC through its SGPR alias (or by name)",
        second: "VALU reads VCC as a constant by the other name",
        check: Check::NotCheckable(
            "the SGPR number that aliases VCC depends on the wave's SGPR allocation, which instruction bytes do not name",
        ),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 13 (not modelled by LLVM, which always names vcc)",
    },
    Rule {
        id: "setreg-trapsts-rfe",
        summary: "s_rfe right after an s_setreg of TRAPSTS",
        first: "S_SETREG TRAPSTS",
        second: "S_RFE_B64, S_RFE_RESTORE_B64",
        check: ws(Producer::SetregTrapsts, Consumer::Rfe, 1),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 14; LLVM GCNHazardRecognizer::checkRFEHazards",
    },
    Rule {
        id: "salu-m0-lds",
        summary: "an LDS add-TID/LDS-DMA/VINTRP/LDS_DIRECT instruction reads M0 right after an SALU wrote it",
        first: "SALU writes M0",
        second: "DS *_ADDTID, buffer/global/scratch with lds=1, VINTRP, LDS_DIRECT",
        check: ws(Producer::SaluWrites, Consumer::M0Lds, 1),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 15; LLVM GCNHazardRecognizer::checkReadM0Hazards (hasReadM0MovRelInterpHazard, hasReadM0LdsDmaHazard, hasReadM0LdsDirectHazard)",
    },
    Rule {
        id: "salu-m0-smovrel",
        summary: "s_movrels/s_movreld reads M0 right after an SALU wrote it",
        first: "SALU writes M0",
        second: "S_MOVRELS_*, S_MOVRELD_*",
        check: ws(Producer::SaluWrites, Consumer::M0SMovrel, 1),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.5 table 8 row 16; LLVM GCNHazardRecognizer::checkReadM0Hazards (hasReadM0MovRelInterpHazard)",
    },
    Rule {
        id: "smem-soft-clause",
        summary: "with XNACK replay, an SMEM soft clause member writes a register the clause reads (or a store follows loads)",
        first: "consecutive SMEM instructions, one writing a register",
        second: "SMEM reading that register, or any SMEM store, in the same clause",
        check: Check::SoftClause(ClauseKind::Smem),
        gate: Gate::Xnack,
        default_on: true,
        reference: "LLVM GCNHazardRecognizer::checkSoftClauseHazards (via checkSMRDHazards; isXNACKEnabled)",
    },
    Rule {
        id: "vmem-soft-clause",
        summary: "with XNACK replay, a VMEM/FLAT soft clause member writes a register the clause reads (or a store follows loads)",
        first: "consecutive VMEM/FLAT instructions, one writing a register",
        second: "VMEM/FLAT reading that register, or any store, in the same clause",
        check: Check::SoftClause(ClauseKind::Vmem),
        gate: Gate::Xnack,
        default_on: true,
        reference: "LLVM GCNHazardRecognizer::checkSoftClauseHazards (via checkVMEMHazards; isXNACKEnabled)",
    },
    Rule {
        id: "stale-vccz",
        summary: "s_cbranch_vccz/vccnz after a write of only vcc_lo or vcc_hi branches on a stale VCCZ",
        first: "write of vcc_lo or vcc_hi alone",
        second: "S_CBRANCH_VCCZ/VCCNZ with no write of all of VCC in between",
        check: Check::StaleVccz,
        gate: Gate::Gfx9,
        default_on: true,
        reference: "LLVM SIInsertWaitcnts (partialVCCWritesUpdateVCCZ is false up to gfx9; it inserts s_mov_b64 vcc, vcc)",
    },
    Rule {
        id: "valu-exec-mai",
        summary: "an MFMA or v_accvgpr_write issues too soon after a VALU wrote EXEC",
        first: "VALU writes EXEC",
        second: "MFMA or V_ACCVGPR_WRITE",
        check: ws(Producer::ValuWrites, Consumer::MfmaOrAccvgprWriteExec, 4),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (VALUWritesExecWaitStates)",
    },
    Rule {
        id: "valu-vgpr-mai",
        summary: "an MFMA or v_accvgpr_write reads a VGPR a VALU wrote too recently",
        first: "VALU writes VGPR",
        second: "MFMA reads it as SrcA/B, or V_ACCVGPR_WRITE reads it",
        check: ws(Producer::ValuWrites, Consumer::MaiReadsVgpr, 2),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (LegacyVALUWritesVGPRWaitStates)",
    },
    Rule {
        id: "mfma-agpr-srcc-overlap",
        summary: "an MFMA reads as SrcC AGPRs that overlap, but are not the same as, an earlier MFMA's result",
        first: "MFMA writes AGPRs",
        second: "MFMA reads an overlapping, different AGPR range as SrcC",
        check: ws(Producer::MfmaWrites(Overlap::NotSame), Consumer::MfmaReadsSrcC(MfmaKind::Any), 2),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (MFMAWritesAGPROverlappedSrcCWaitStates; the same range as SrcC needs none)",
    },
    Rule {
        id: "mfma-agpr-srcab",
        summary: "an MFMA reads as SrcA/B an AGPR an earlier MFMA wrote too recently",
        first: "MFMA writes AGPRs",
        second: "MFMA reads one as SrcA/B",
        check: ws(Producer::MfmaWrites(Overlap::NotSame), Consumer::MfmaReadsSrcAB, 4),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (MFMAWritesAGPROverlappedSrcABWaitStates)",
    },
    Rule {
        id: "mfma-agpr-accvgpr-read",
        summary: "v_accvgpr_read reads an AGPR before the MFMA writing it has finished",
        first: "MFMA writes AGPRs",
        second: "V_ACCVGPR_READ reads one",
        check: by_longest_passes(Producer::MfmaWrites(Overlap::NotSame), Consumer::AccvgprReadReads, [4, 10, 18]),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (MFMA{4x4,16x16,32x32}WritesAGPRAccVgprReadWaitStates)",
    },
    Rule {
        id: "mfma-agpr-accvgpr-write",
        summary: "v_accvgpr_write overwrites an AGPR before the MFMA writing it has finished",
        first: "MFMA writes AGPRs",
        second: "V_ACCVGPR_WRITE writes one",
        check: by_longest_passes(Producer::MfmaWrites(Overlap::NotSame), Consumer::AccvgprWriteWrites, [1, 7, 15]),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (MFMA{4x4,16x16,32x32}WritesAGPRAccVgprWriteWaitStates)",
    },
    Rule {
        id: "accvgpr-write-mfma-srcc",
        summary: "an MFMA reads as SrcC an AGPR v_accvgpr_write just wrote",
        first: "V_ACCVGPR_WRITE writes AGPR",
        second: "MFMA reads it as SrcC",
        check: ws(Producer::AccvgprWrite, Consumer::MfmaReadsSrcC(MfmaKind::Any), 1),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (AccVGPRWriteMFMAReadSrcCWaitStates)",
    },
    Rule {
        id: "accvgpr-write-agpr-read",
        summary: "an AGPR v_accvgpr_write wrote is read as MFMA SrcA/B, by v_accvgpr_read, or written again, too soon",
        first: "V_ACCVGPR_WRITE writes AGPR",
        second: "MFMA reads it as SrcA/B, V_ACCVGPR_READ reads it, or V_ACCVGPR_WRITE writes it",
        check: ws(Producer::AccvgprWrite, Consumer::AgprReadOrAccvgprWrite, 3),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (AccVGPRWriteMFMAReadSrcABWaitStates, AccVGPRWriteAccVgprReadWaitStates; a v_accvgpr_write's own AGPR counts as SrcA/B)",
    },
    Rule {
        id: "mfma-srcc-accvgpr-write",
        summary: "v_accvgpr_write overwrites an AGPR an MFMA is still reading as SrcC",
        first: "MFMA reads AGPRs as SrcC",
        second: "V_ACCVGPR_WRITE writes one",
        check: by_longest_passes(Producer::MfmaReadsSrcC(MfmaKind::Any), Consumer::AccvgprWriteWrites, [0, 5, 13]),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards908 (MFMA{4x4,16x16,32x32}ReadSrcCAccVgprWriteWaitStates)",
    },
    Rule {
        id: "accvgpr-read-memory",
        summary: "a VMEM/FLAT/DS instruction reads a VGPR v_accvgpr_read wrote too recently",
        first: "V_ACCVGPR_READ writes VGPR",
        second: "VMEM, FLAT or DS reads it",
        check: ws(Producer::AccvgprRead, Consumer::MemoryReads, 2),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAILdStHazards (AccVgprReadLdStWaitStates)",
    },
    Rule {
        id: "valu-accvgpr-memory",
        summary: "a VMEM/FLAT/DS instruction reads a VGPR a VALU wrote just before a v_accvgpr_read/write",
        first: "VALU writes VGPR, then V_ACCVGPR_READ/WRITE",
        second: "VMEM, FLAT or DS reads the VGPR",
        check: ws(Producer::ValuWritesThen(Between::AccvgprReadWrite), Consumer::MemoryReads, 2),
        gate: Gate::MaiNotGfx90a,
        default_on: true,
        reference: "AMD MI100 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAILdStHazards (VALUWriteAccVgprRdWrLdStDepVALUWaitStates: one wait state after the v_accvgpr_*, two after the VALU)",
    },
    Rule {
        id: "valu-exec-mfma",
        summary: "an MFMA issues too soon after a VALU wrote EXEC",
        first: "VALU (not MFMA) writes EXEC",
        second: "MFMA",
        check: ws(Producer::NonMfmaValuWrites, Consumer::MfmaExec, 4),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards90A (VALUWritesExecWaitStates)",
    },
    Rule {
        id: "valu-mfma-read",
        summary: "an MFMA reads a VGPR or AGPR a VALU wrote too recently",
        first: "VALU (not MFMA, not v_dot*) writes VGPR/AGPR",
        second: "MFMA reads it",
        check: ws(Producer::NonMfmaNonDotValuWrites, Consumer::MfmaReads, 2),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards90A (LegacyVALUNotDotWritesVGPRWaitStates)",
    },
    Rule {
        id: "mfma-srcc-overlap",
        summary: "an XDL MFMA reads as SrcC registers that overlap, but are not the same as, an earlier MFMA's result",
        first: "MFMA writes VGPRs/AGPRs",
        second: "XDL MFMA (any but a DGEMM; on gfx940 not an f32 op either) reads an overlapping, different range as SrcC",
        check: by_passes(Producer::MfmaWrites(Overlap::Partial), Consumer::MfmaReadsSrcC(MfmaKind::Xdl), ByPasses {
            xdl: [2, 8, 16],
            gfx940_xdl: [3, 5, 9, 17],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards90A (SMFMA{4x4,16x16,32x32}WritesVGPROverlappedSMFMASrcCWaitStates; none after a DGEMM; gfx940: GFX940_XDL_N_PassWritesVGPROverlappedSMFMASrcCWaitStates = passes + 1, none after an f32 op or a DGEMM)",
    },
    Rule {
        id: "mfma-dgemm-srcc-overlap",
        summary: "a DGEMM (on gfx940 also an f32 MFMA, not XDL there) reads as SrcC registers that overlap, but are not the same as, an earlier MFMA's result",
        first: "MFMA writes VGPRs/AGPRs",
        second: "DGEMM (gfx940: or V_MFMA_F32_*_F32) reads an overlapping, different range as SrcC",
        check: by_passes(Producer::MfmaWrites(Overlap::Partial), Consumer::MfmaReadsSrcC(MfmaKind::NotXdl), ByPasses {
            xdl: [3, 9, 17],
            dgemm: [4, 9],
            gfx940_xdl: [3, 5, 9, 17],
            gfx940_smfma: [2, 8, 16],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards90A (SMFMA{4x4,16x16,32x32}WritesVGPROverlappedDMFMASrcCWaitStates, DMFMA{4x4,16x16}WritesVGPROverlappedSrcCWaitStates; gfx940: GFX940_XDL_N_PassWritesVGPROverlappedSMFMASrcCWaitStates = passes + 1, GFX940_SMFMA_N_PassWritesVGPROverlappedSMFMASrcCWaitStates = passes)",
    },
    Rule {
        id: "dgemm-4x4-srcc-same",
        summary: "v_mfma_f64_4x4x4f64 reads as SrcC the result of the v_mfma_f64_4x4x4f64 just before it",
        first: "V_MFMA_F64_4X4X4F64 writes VGPRs/AGPRs",
        second: "V_MFMA_F64_4X4X4F64 reads the same registers as SrcC",
        check: by_passes(Producer::MfmaWrites(Overlap::Same), Consumer::MfmaReadsSrcC(MfmaKind::Dgemm4x4), ByPasses {
            dgemm: [4, 0],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards90A (DMFMA4x4WritesVGPRFullSrcCWaitStates)",
    },
    Rule {
        id: "mfma-4x4-srcc-same",
        summary: "an MFMA reads as SrcC the result of the 2-pass (4x4) MFMA just before it",
        first: "2-pass MFMA (V_MFMA_*_4X4X*_16B_*) writes VGPRs/AGPRs",
        second: "MFMA reads the same registers as SrcC",
        check: by_passes(Producer::MfmaWrites(Overlap::Same), Consumer::MfmaReadsSrcC(MfmaKind::Any), ByPasses {
            gfx940_xdl: [2, 0, 0, 0],
            gfx940_smfma: [2, 0, 0],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx940,
        default_on: true,
        reference: "LLVM 19 GCNHazardRecognizer::checkMAIHazards90A (GFX940_SMFMA4x4WritesVGPRFullSrcCWaitStates: a producer of 2 passes, XDL or not; the same registers after a longer MFMA need none)",
    },
    Rule {
        id: "mfma-srcab",
        summary: "an MFMA reads as SrcA/B a register an earlier MFMA wrote too recently",
        first: "MFMA writes VGPRs/AGPRs",
        second: "MFMA reads one as SrcA/B (or as a v_smfmac_*'s index)",
        check: by_passes(Producer::MfmaWrites(Overlap::Any), Consumer::MfmaReadsSrcAB, ByPasses {
            xdl: [5, 11, 19],
            dgemm: [6, 11],
            gfx940_xdl: [5, 7, 11, 19],
            gfx940_smfma: [4, 10, 18],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIHazards90A (SMFMA{4x4,16x16,32x32}WritesVGPROverlappedSrcABWaitStates, DMFMA{4x4,16x16}WritesVGPROverlappedMFMASrcABWaitStates; gfx940: GFX940_XDL_N_PassWritesVGPROverlappedSrcABWaitStates = passes + 3, GFX940_SMFMA_N_PassWritesVGPROverlappedSrcABWaitStates = passes + 2; a v_smfmac_*'s index register counts as A/B)",
    },
    Rule {
        id: "mfma-valu-read",
        summary: "a VALU reads a register before the MFMA writing it has finished",
        first: "MFMA writes VGPRs/AGPRs",
        second: "VALU (not MFMA; v_accvgpr_read included) reads one",
        check: by_passes(Producer::MfmaWrites(Overlap::Any), Consumer::NonMfmaValuReads, ByPasses {
            xdl: [5, 11, 19],
            dgemm: [6, 11],
            gfx940_xdl: [5, 7, 11, 19],
            gfx940_smfma: [4, 10, 18],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}WriteVgprVALUMemExpReadWaitStates, DMFMA{4x4,16x16}WriteVgprVALUReadWaitStates; gfx940: GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates = passes + 3, GFX940_SMFMA_N_PassWriteVgprVALUMemExpReadWaitStates = passes + 2)",
    },
    Rule {
        id: "mfma-memory-read",
        summary: "a VMEM/FLAT/DS/export instruction reads a register before the MFMA writing it has finished",
        first: "MFMA writes VGPRs/AGPRs",
        second: "VMEM, FLAT, DS or EXP reads one",
        check: by_passes(Producer::MfmaWrites(Overlap::Any), Consumer::MemoryExportReads, ByPasses {
            xdl: [5, 11, 19],
            dgemm: [9, 18],
            gfx940_xdl: [5, 7, 11, 19],
            gfx940_smfma: [4, 10, 18],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}WriteVgprVALUMemExpReadWaitStates, DMFMA{4x4,16x16}WriteVgprMemExpReadWaitStates; gfx940: GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates = passes + 3, GFX940_SMFMA_N_PassWriteVgprVALUMemExpReadWaitStates = passes + 2)",
    },
    Rule {
        id: "mfma-vector-write",
        summary: "a VALU or memory instruction overwrites a register before the MFMA writing it has finished",
        first: "MFMA writes VGPRs/AGPRs",
        second: "VALU (not MFMA), VMEM, FLAT, DS or EXP writes one",
        check: by_passes(Producer::MfmaWrites(Overlap::Any), Consumer::VectorWrites, ByPasses {
            xdl: [5, 11, 19],
            dgemm: [6, 11],
            gfx940_xdl: [5, 7, 11, 19],
            gfx940_smfma: [4, 10, 18],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}WriteVgprVALUWawWaitStates, DMFMA{4x4,16x16}WriteVgprVALUWriteWaitStates; gfx940: GFX940_XDL_N_PassWriteVgprVALUWawWaitStates = passes + 3, GFX940_SMFMA_N_PassWriteVgprVALUWawWaitStates = passes + 2)",
    },
    Rule {
        id: "mfma-srcc-vector-write",
        summary: "a VALU or memory instruction overwrites a register an XDL MFMA is still reading as SrcC",
        first: "XDL MFMA (any but a DGEMM; on gfx940 not an f32 op either) reads VGPRs/AGPRs as SrcC",
        second: "VALU (not MFMA), VMEM, FLAT, DS or EXP writes one",
        check: by_passes(Producer::MfmaReadsSrcC(MfmaKind::Xdl), Consumer::VectorWrites, ByPasses {
            xdl: [1, 7, 15],
            gfx940_xdl: [1, 3, 7, 15],
            ..ByPasses::NONE
        }),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (SMFMA{4x4,16x16,32x32}ReadVgprVALUWarWaitStates; gfx940: GFX940_XDL4PassReadVgprVALUWarWaitStates for 4 passes, the f32 ops are passed over; a v_smfmac_* reads its destination as SrcC)",
    },
    Rule {
        id: "dgemm-fma-f64",
        summary: "v_fma_f64/v_fmac_f64 issues too soon after a DGEMM",
        first: "DGEMM (V_MFMA_F64_*)",
        second: "V_FMA_F64, V_FMAC_F64",
        check: ws(Producer::Dgemm, Consumer::FmaF64, 2),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (DMFMAToFMA64WaitStates)",
    },
    Rule {
        id: "dot-vector-read",
        summary: "a register a v_dot* wrote is read too soon by another op (or by the same op as SrcA/B)",
        first: "V_DOT* writes VGPR",
        second: "VALU (not MFMA), VMEM, FLAT, DS or EXP reads it, except the same V_DOT* reading it as SrcC",
        check: ws(Producer::DotWrites, Consumer::VectorReads, 3),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (DotWriteSameDotReadSrcAB, DotWriteDifferentVALURead)",
    },
    Rule {
        id: "dot-vector-write",
        summary: "a register a v_dot* wrote is overwritten too soon by another op",
        first: "V_DOT* writes VGPR",
        second: "VALU (not MFMA; not the same V_DOT*), VMEM, FLAT, DS or EXP writes it",
        check: ws(Producer::DotWrites, Consumer::VectorWrites, 3),
        gate: Gate::Gfx90a,
        default_on: true,
        reference: "AMD MI200 ISA §4.5 (manually inserted wait states); LLVM GCNHazardRecognizer::checkMAIVALUHazards (DotWriteDifferentVALUWrite)",
    },
    Rule {
        id: "valu-dgemm-memory",
        summary: "a VMEM/FLAT/DS instruction reads a register a VALU wrote with only a DGEMM in between",
        first: "VALU writes VGPR/AGPR, then a DGEMM",
        second: "VMEM, FLAT or DS reads the register",
        check: ws(Producer::ValuWritesThen(Between::Dgemm), Consumer::MemoryReads, 2),
        gate: Gate::Gfx90aNotGfx940,
        default_on: true,
        reference: "LLVM 16+ GCNHazardRecognizer::checkMAIVALUHazards (DMFMABetweenVALUWriteVMEMRead: the hardware fails to insert its own two wait states; not in LLVM 15, and only without hasGFX940Insts)",
    },
    Rule {
        id: "waitcnt-vmem",
        summary: "a register loaded by MUBUF/MTBUF/MIMG/GLOBAL/SCRATCH is used before s_waitcnt vmcnt covers the load",
        first: "vector memory load or returning atomic",
        second: "read or overwrite of its destination",
        check: Check::Waitcnt(LoadKind::Vmem),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.4 (VM_CNT: reads and writes return in issue order)",
    },
    Rule {
        id: "waitcnt-ds",
        summary: "a register loaded by DS is used before s_waitcnt lgkmcnt covers the load",
        first: "DS read or returning atomic",
        second: "read or overwrite of its destination",
        check: Check::Waitcnt(LoadKind::Ds),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.4 (LGKM_CNT: LDS returns in order; LDS and GDS out of order with each other)",
    },
    Rule {
        id: "waitcnt-smem",
        summary: "an SGPR loaded by SMEM is used before s_waitcnt lgkmcnt(0)",
        first: "scalar memory load or returning atomic",
        second: "read or overwrite of its destination",
        check: Check::Waitcnt(LoadKind::Smem),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.4 (scalar memory reads return out of order: only lgkmcnt(0) is safe)",
    },
    Rule {
        id: "waitcnt-flat",
        summary: "a register loaded by FLAT is used before both vmcnt and lgkmcnt cover the load",
        first: "FLAT load or returning atomic",
        second: "read or overwrite of its destination",
        check: Check::Waitcnt(LoadKind::Flat),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.4 and §9 (FLAT counts on VM_CNT and LGKM_CNT)",
    },
    Rule {
        id: "waitcnt-export-data",
        summary: "a VGPR an export or GDS instruction still holds is overwritten before s_waitcnt expcnt",
        first: "EXP, or DS with gds=1",
        second: "write of a VGPR it reads",
        check: Check::Waitcnt(LoadKind::ExportData),
        gate: Gate::Gfx9,
        default_on: true,
        reference: "Vega ISA §4.4 (EXP_CNT: decremented when the VGPRs have been read out)",
    },
];

/// Looks a rule up by id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T8: &str = "Vega ISA §4.5 table 8";

    #[test]
    fn ids_are_unique_and_every_table_row_is_present() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        for row in 1..=16 {
            let tag = format!("{T8} row {row}");
            let tag = tag.as_str();
            assert!(
                RULES.iter().any(|r| r.reference.starts_with(tag)
                    && r.reference[tag.len()..].starts_with([';', ' '])),
                "no rule for {tag}"
            );
        }
    }

    #[test]
    fn matrix_rules_cite_llvm_and_name_their_feature() {
        for r in RULES.iter().filter(|r| r.gate.is_matrix()) {
            assert!(
                r.reference.contains("GCNHazardRecognizer::check"),
                "{}",
                r.id
            );
            let Check::WaitStates { wait_states, .. } = r.check else {
                panic!("{}: not a wait-state rule", r.id)
            };
            // gfx908 has no DGEMM: its tables must not pretend otherwise.
            if let (Gate::MaiNotGfx90a, Wait::ByPasses(t)) = (r.gate, wait_states) {
                assert_eq!(t.dgemm, [0, 0], "{}", r.id);
            }
            assert!(wait_states.max() > 0 && wait_states.max() <= 19, "{}", r.id);
        }
    }

    /// gfx940's tables are LLVM's formulas of the producer's passes (`GFX940_*_N_Pass*`): one
    /// row per formula, checked at every pass count a gfx940 class has.
    #[test]
    fn gfx940_tables_are_llvms_formulas_of_the_passes() {
        let table = |id: &str| match rule(id).map(|r| r.check) {
            Some(Check::WaitStates {
                wait_states: Wait::ByPasses(t),
                ..
            }) => t,
            other => panic!("{id}: {other:?}"),
        };
        let xdl = |t: ByPasses, f: fn(u8) -> u8| {
            assert_eq!(t.gfx940_xdl, [2, 4, 8, 16].map(f));
        };
        let smfma = |t: ByPasses, f: fn(u8) -> u8| {
            assert_eq!(t.gfx940_smfma, [2, 8, 16].map(f));
        };
        // ...WritesVGPROverlappedSMFMASrcC: XDL passes + 1; SMFMA passes, but none before an
        // XDL reader.
        xdl(table("mfma-srcc-overlap"), |p| p + 1);
        smfma(table("mfma-srcc-overlap"), |_| 0);
        xdl(table("mfma-dgemm-srcc-overlap"), |p| p + 1);
        smfma(table("mfma-dgemm-srcc-overlap"), |p| p);
        // ...WritesVGPROverlappedSrcAB, ...WriteVgprVALUMemExpRead, ...WriteVgprVALUWaw.
        for id in [
            "mfma-srcab",
            "mfma-valu-read",
            "mfma-memory-read",
            "mfma-vector-write",
        ] {
            xdl(table(id), |p| p + 3);
            smfma(table(id), |p| p + 2);
        }
        // ...ReadVgprVALUWar: the gfx90a numbers, and 3 for gfx940's 4 passes (passes - 1).
        xdl(table("mfma-srcc-vector-write"), |p| p - 1);
        smfma(table("mfma-srcc-vector-write"), |_| 0);
        // GFX940_SMFMA4x4WritesVGPRFullSrcCWaitStates.
        xdl(table("mfma-4x4-srcc-same"), |p| if p == 2 { 2 } else { 0 });
        smfma(table("mfma-4x4-srcc-same"), |p| if p == 2 { 2 } else { 0 });
        // Every other row by passes that applies to gfx940 has a gfx940 table, but the one
        // whose producers are DGEMMs only.
        for r in RULES {
            let Check::WaitStates {
                wait_states: Wait::ByPasses(t),
                ..
            } = r.check
            else {
                continue;
            };
            if r.gate.applies(gcn_isa::Target::Gfx940.features(), false) {
                assert!(t.has_gfx940() || r.id == "dgemm-4x4-srcc-same", "{}", r.id);
            }
        }
    }
}
