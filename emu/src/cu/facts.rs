//! What each instruction of a program means to the timing model, worked out once per program:
//! the issue unit it competes for, how long it keeps its SIMD busy, which latency its completion
//! waits, and for DS ops the shape of its LDS access (for bank conflicts).

use crate::exec::program::{Decoded, Program};
use crate::wave::WaitCounters;
use gcn_isa::class::Category;
use gcn_isa::{Format, MemKind, Op, Rate, Target, D16};

/// The functional units of a CU; each cycle the issue arbiter gives each unit at most one
/// instruction of the SIMD whose turn it is (GCN whitepaper: one per type — branch, scalar
/// ALU or memory, vector ALU, vector memory, LDS, export/GDS — each from a different wave).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Valu,
    /// Scalar ALU and scalar memory share one issue port.
    Scalar,
    Vmem,
    Lds,
    Export,
    Branch,
    /// s_nop, s_waitcnt, s_barrier, s_setprio, s_sleep, s_endpgm...: handled in the
    /// instruction buffer without a functional unit.
    Internal,
}

pub const UNITS: usize = 7;

impl Unit {
    pub fn index(self) -> usize {
        self as usize
    }
}

/// What an instruction does to the wave's timing beyond occupying its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    None,
    /// s_waitcnt with its simm16.
    Waitcnt(u16),
    /// s_nop: the wave issues nothing for this many cycles.
    Nop(u32),
    /// s_sleep: about 64 × N cycles, ended early by s_wakeup.
    Sleep(u32),
    /// s_setprio: the wave's issue priority (0–3).
    Setprio(u8),
    /// s_wakeup: ends the sleep of the workgroup's other waves.
    Wakeup,
}

/// Which latency a memory instruction's completion waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    None,
    Vmem,
    Smem,
    Lds,
    Message,
}

/// Per-lane shape of a DS access, for [`crate::lds_banks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsShape {
    /// Bytes per address.
    pub bytes: u8,
    /// read2/write2/wrxchg2: two addresses per lane from the 8-bit offsets.
    pub dual: bool,
    pub st64: bool,
    pub atomic: bool,
    /// Lanes present addresses from a VGPR (false for permutes, swizzles, append/consume,
    /// add-TID and src2 forms, which cost the passes of a 32-bit access without conflicts).
    pub per_lane: bool,
}

/// What one instruction means to the timing model (not to be confused with
/// [`gcn_isa::Facts`], what the op table says of an op).
#[derive(Clone, Copy, Debug)]
pub struct InstTiming {
    pub unit: Unit,
    /// Cycles the SIMD's vector ALU is busy with this instruction (VALU only).
    pub valu_cycles: u16,
    /// Cycles the SIMD's matrix core is busy with this instruction (MFMA only; 0 for the rest).
    pub matrix_cycles: u16,
    pub special: Special,
    pub latency: Latency,
    pub ds: Option<DsShape>,
    /// A memory instruction whose results are registers (loads, returning atomics, SMEM
    /// loads): its writes land at completion.
    pub lands: bool,
    /// SMEM, DS, vector memory or FLAT: its semantics run between windows, in completion
    /// order ([`super::deferred`]).
    pub memory: bool,
    /// A memory instruction that keeps part of its destination (d16 loads write one half;
    /// image ops, conservatively): its snapshot copies the destination too. Every other one
    /// writes the whole of it in every active lane, so the copy would be wasted.
    pub keeps_dst: bool,
    /// Vector or scalar ALU, or a branch, that counts on no wait counter and has no timing
    /// of its own (not s_nop, s_sleep...): what it reads and writes is its wave's registers
    /// only, so the timing model may run it before it issues ([`super::ahead`]).
    pub pure: bool,
    /// Its issue category as [`crate::launch::Counts::by_category`] indexes it.
    pub category: u8,
    /// What a SIMD's bulk turns read of it, in one word ([`super::bulk::Code`]): which of the
    /// units they track it needs, and how long it keeps the vector ALU busy.
    pub bulk_code: super::bulk::Code,
    /// The wait counters it increments (kept here so that a turn's look at a wave reads one
    /// table).
    pub counters: gcn_isa::class::Counters,
    /// The counts at most which it may issue: an `s_waitcnt`'s, or one below the maximum of
    /// each counter it increments (6, 4 and 3 bits: a full counter takes no more), so a turn
    /// checks both with one comparison.
    pub issue_limit: WaitCounters,
}

impl InstTiming {
    /// What the run-ahead's compiled region writes for the instruction as it runs it (its
    /// [`InstTiming::bulk_code`]), or `None` if the run-ahead may not run it (not
    /// [`InstTiming::pure`]).
    pub fn ahead_code(&self) -> Option<super::bulk::Code> {
        self.pure.then_some(self.bulk_code)
    }
}

/// The timing of every instruction of `program`, by instruction index.
pub fn program_facts(program: &Program) -> Vec<InstTiming> {
    program
        .insts
        .iter()
        .map(|d| facts(d, program.target))
        .collect()
}

fn facts(d: &Decoded, target: Target) -> InstTiming {
    let info = d.inst.info();
    let class = d.class;
    let unit = match class.category {
        Category::Valu => Unit::Valu,
        Category::Salu | Category::Smem => Unit::Scalar,
        Category::Vmem | Category::Flat => Unit::Vmem,
        Category::Ds => Unit::Lds,
        Category::Export => Unit::Export,
        Category::Branch => Unit::Branch,
        Category::Control => Unit::Internal,
    };
    let simm = d.inst.simm16();
    let special = match info.op {
        Op::S_WAITCNT => Special::Waitcnt(simm),
        // s_nop N gives N + 1 wait states (only the low 4 bits count).
        Op::S_NOP => Special::Nop((simm as u32 & 0xf) + 1),
        // "Sleep for 64-960 clocks": SIMM16[3:0] × 64, and s_sleep 0 is a 1-cycle pause.
        Op::S_SLEEP => Special::Sleep(((simm as u32 & 0xf) * 64).max(1)),
        Op::S_SETPRIO => Special::Setprio((simm & 3) as u8),
        Op::S_WAKEUP => Special::Wakeup,
        _ => Special::None,
    };
    let latency = match class.category {
        Category::Vmem | Category::Flat => Latency::Vmem,
        Category::Smem => Latency::Smem,
        Category::Ds => Latency::Lds,
        _ if class.counters.lgkm => Latency::Message,
        _ => Latency::None,
    };
    // A matrix op issues through the SIMD's vector ALU port like a full-rate op, then keeps
    // the SIMD's matrix core busy for its passes (LLVM's SISchedule.td: the XDL/DGEMM unit for
    // 2-16 passes of four cycles, the VALU not at all). Other vector work of the SIMD overlaps
    // it; the next matrix op waits for the core. The hardware does not wait for a matrix op's
    // result: the program's s_nops do (the hazard rules), so the model needs no more.
    let matrix_cycles = info.op.mfma_shape().map_or(0, |s| s.cycles() as u16);
    let cycles = match unit {
        Unit::Valu if matrix_cycles != 0 => valu_cycles(Rate::Full, target),
        Unit::Valu => valu_cycles(info.facts.rate, target),
        _ => 0,
    };
    let timing = InstTiming {
        unit,
        valu_cycles: cycles,
        matrix_cycles,
        special,
        latency,
        ds: (class.category == Category::Ds).then(|| ds_shape(&info.facts)),
        lands: matches!(class.mem, Some(MemKind::Load | MemKind::AtomicReturn)),
        // The GWS ops touch no memory and no LDS: they run at issue, where a wave waiting at
        // a GWS barrier stalls and tries again.
        memory: matches!(
            class.category,
            Category::Smem | Category::Ds | Category::Vmem | Category::Flat
        ) && !matches!(info.op, Op::DS_GWS_INIT | Op::DS_GWS_BARRIER),
        keeps_dst: info.facts.d16 != D16::No || info.format == Format::Mimg,
        pure: matches!(
            class.category,
            Category::Valu | Category::Salu | Category::Branch
        ) && class.counters == Default::default()
            && special == Special::None,
        category: crate::launch::category_index(class.category) as u8,
        // The bulk turns track the vector ALU, not the matrix core: they stop at a matrix op.
        bulk_code: super::bulk::code(
            match unit {
                Unit::Valu if matrix_cycles != 0 => super::bulk::OTHER,
                Unit::Valu => super::bulk::VALU,
                Unit::Scalar => super::bulk::SCALAR,
                Unit::Branch => super::bulk::BRANCH,
                _ => super::bulk::OTHER,
            },
            cycles,
        ),
        counters: class.counters,
        issue_limit: match special {
            Special::Waitcnt(simm) => {
                // s_waitcnt increments no counter, so it has no limit of its own.
                debug_assert_eq!(class.counters, Default::default());
                WaitCounters::waitcnt(simm)
            }
            _ => {
                let below = |increments: bool, max: u8| if increments { max - 1 } else { u8::MAX };
                WaitCounters {
                    vm: below(class.counters.vm, 63),
                    lgkm: below(class.counters.lgkm, 15),
                    exp: below(class.counters.exp, 7),
                }
            }
        },
    };
    // The bulk turns count a pure instruction by the unit its code names.
    let unit = (timing.bulk_code & 3) as usize;
    debug_assert!(
        !timing.pure
            || unit == super::bulk::OTHER as usize
            || super::cut::PURE_CATEGORY[unit] == timing.category as usize,
        "{:?}",
        info.op
    );
    timing
}

/// Cycles a wave64 VALU instruction keeps its SIMD (16 lanes wide) busy, from the published
/// rates: full rate is 4 cycles; transcendentals and 32-bit integer multiplies are quarter
/// rate; double precision runs at the target's rate ([`gcn_isa::Features::f64_cycles`]).
pub fn valu_cycles(rate: Rate, target: Target) -> u16 {
    let dp = target.features().f64_cycles;
    match rate {
        Rate::Full => 4,
        Rate::Quarter => 16,
        Rate::Double => dp,
        Rate::DoubleQuarter => dp * 4,
    }
}

fn ds_shape(f: &gcn_isa::Facts) -> DsShape {
    DsShape {
        bytes: f.bytes,
        dual: f.dual,
        st64: f.st64,
        atomic: matches!(f.mem, Some(MemKind::Atomic | MemKind::AtomicReturn)),
        per_lane: !f.cross,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcn_isa::table::lookup_name;

    fn facts_of(name: &str) -> &'static gcn_isa::Facts {
        let id = lookup_name(name, Target::Gfx900).next().expect(name);
        &gcn_isa::op_info(id).facts
    }

    fn cycles(name: &str, target: Target) -> u16 {
        valu_cycles(facts_of(name).rate, target)
    }

    #[test]
    fn matrix_ops_keep_the_matrix_core_for_their_passes() {
        let text = "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\n\
                    v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]\n\
                    v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1]\n\
                    v_accvgpr_read_b32 v0, a0";
        let code = gcn_isa::assemble(text, Target::Gfx90a).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx90a);
        let cycles: Vec<(u16, u16)> = program_facts(&program)
            .iter()
            .map(|f| (f.valu_cycles, f.matrix_cycles))
            .collect();
        // An issue of four cycles, then 16, 2 and 4 passes of four cycles; the AGPR read is a
        // plain VALU op.
        assert_eq!(cycles, [(4, 64), (4, 8), (4, 16), (4, 0)]);
    }

    /// Cycles of one wave running `body` on gfx90a under the timing model.
    fn cycles_of(body: &str) -> u64 {
        use crate::cu::test_launch::launch;
        use crate::cu::TimingConfig;
        use crate::memory::{AllocKind, Memory};
        let code = gcn_isa::assemble(&format!("{body}\ns_endpgm"), Target::Gfx90a).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx90a);
        let mut mem = Memory::new(1 << 16);
        let kernarg = mem.alloc(8, AllocKind::Buffer).unwrap();
        let config = TimingConfig::for_target(Target::Gfx90a);
        let (result, ..) = launch(&program, &mut mem, kernarg, (1, 64), &config, 1000);
        result.map_err(|e| format!("{e:?}")).unwrap().stats.cycles
    }

    #[test]
    fn vector_work_overlaps_a_matrix_op_and_the_next_matrix_op_waits_for_the_core() {
        const MFMA: &str = "v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]";
        const ADD: &str = "v_add_u32 v8, v8, v9";
        let adds = |n: usize| vec![ADD; n].join("\n");
        let one = cycles_of(MFMA);
        let two = cycles_of(&format!("{MFMA}\n{MFMA}"));
        // Eight passes of four cycles before the second one may issue.
        assert_eq!(two - one, 32, "{one} {two}");
        // Six adds fit in the first one's 32 cycles; ten do not.
        let six = cycles_of(&format!("{MFMA}\n{}\n{MFMA}", adds(6)));
        let ten = cycles_of(&format!("{MFMA}\n{}\n{MFMA}", adds(10)));
        assert_eq!(six, two);
        assert!(ten > two, "{ten} {two}");
        // Without a matrix op between, the adds take their own four cycles each.
        assert_eq!(cycles_of(&adds(10)) - cycles_of(&adds(6)), 16);
    }

    #[test]
    fn valu_rates() {
        assert_eq!(cycles("v_add_f32_e32", Target::Gfx900), 4);
        assert_eq!(cycles("v_rcp_f32_e32", Target::Gfx900), 16);
        assert_eq!(cycles("v_fma_f64", Target::Gfx900), 64);
        assert_eq!(cycles("v_fma_f64", Target::Gfx906), 8);
        assert_eq!(cycles("v_mul_lo_u32", Target::Gfx906), 16);
        assert_eq!(cycles("v_rsq_f64_e64", Target::Gfx900), 256);
    }

    #[test]
    fn ds_shapes() {
        let s = ds_shape(facts_of("ds_read2st64_b64"));
        assert_eq!((s.bytes, s.dual, s.st64, s.atomic), (8, true, true, false));
        let s = ds_shape(facts_of("ds_add_rtn_u32"));
        assert_eq!((s.bytes, s.dual, s.atomic), (4, false, true));
        assert_eq!(ds_shape(facts_of("ds_write_b128")).bytes, 16);
        assert_eq!(ds_shape(facts_of("ds_read_u8")).bytes, 1);
        assert!(!ds_shape(facts_of("ds_bpermute_b32")).per_lane);
    }
}
