//! The hazard rules, as data: one row per rule, each with an id, a one-line explanation, what
//! produces and what consumes the hazard, what it requires, when it applies, and where it comes
//! from. `gcnemu lint --rules` prints this table; the static lint (`lint.rs`, `waitcnt.rs`) and the
//! run-time tracker (`tracker.rs`) both evaluate these rows through `check.rs`, so a rule behaves
//! the same on a whole binary and on a wave's issued history.

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
        wait_states: u8,
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
    /// The wait states the rule requires, if it is a wait-state rule.
    pub fn wait_states(&self) -> Option<u8> {
        match self.check {
            Check::WaitStates { wait_states, .. } => Some(wait_states),
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
            Check::WaitStates { wait_states, .. } => format!("{wait_states} wait states"),
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
        wait_states,
    }
}

/// Every rule, in the order of the Vega ISA table, then LLVM-only checks, then waitcnt rules.
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
}
