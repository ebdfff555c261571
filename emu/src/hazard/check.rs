//! Evaluating one rule at one consumer over a history of earlier instructions.
//!
//! The history is abstract ([`History`]): the static lint walks the control-flow graph backwards
//! along every path, the run-time tracker walks the wave's issued instructions. Both hand each
//! earlier instruction to the same visitor, newest first, with the wait states provided by the
//! instructions in between, so a rule means the same thing in both.

use super::clause;
use super::mai::{MaiKind, MfmaClass};
use super::model::{InstModel, M0Reader, HW_REG_MODE, HW_REG_TRAPSTS, MODE_VSKIP_BIT};
use super::regs::{self, RegSet};
use super::rules::{Between, ByPasses, Check, Consumer, MfmaKind, Overlap, Producer, Rule, Wait};
use gcn_isa::operand::{EXECZ, VCCZ};
use gcn_isa::Op;

/// What the visitor tells the walk after looking at one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Keep walking past this instruction.
    Continue,
    /// This path is settled; do not walk past this instruction.
    Stop,
}

/// A sequence (or graph) of instructions before a consumer.
pub trait History {
    /// A position in the history (an instruction index, or a slot of a ring buffer).
    type Pos: Copy;

    /// Calls `visit(pos, model, wait_states_between)` for each earlier instruction, newest first,
    /// along every path, never walking past `Step::Stop`. `wait_states_between` sums the wait
    /// states of the instructions strictly between `pos` and the consumer (minimum over paths).
    fn walk_back(&self, visit: &mut dyn FnMut(Self::Pos, &InstModel, u32) -> Step);
}

/// A rule violated at a consumer: the producer, and the wait states actually provided.
#[derive(Clone, Copy, Debug)]
pub struct Hit<P> {
    pub producer: P,
    pub provided: u32,
    pub required: u32,
}

/// The registers (or hwreg id) a consumer makes a producer look for.
#[derive(Clone, Copy, Debug)]
struct Watch {
    regs: RegSet,
    hwreg: Option<u8>,
    /// The consumer's op and, for a read by a `v_dot*`, its accumulator (the dot rules exempt
    /// the same op).
    op: Op,
    dot_src_c: RegSet,
    reads: bool,
}

/// The watch a consumer sets up, or `None` if `m` is not a consumer of this kind.
fn watch(consumer: Consumer, m: &InstModel) -> Option<Watch> {
    let base = Watch {
        regs: RegSet::EMPTY,
        hwreg: None,
        op: m.op,
        dot_src_c: RegSet::EMPTY,
        reads: false,
    };
    let regs_only = |regs: RegSet| (!regs.is_empty()).then_some(Watch { regs, ..base });
    let none = base;
    match consumer {
        Consumer::Getreg if m.is_getreg() => m.hwreg.map(|h| Watch {
            hwreg: Some(h.id),
            ..base
        }),
        Consumer::Setreg if m.is_setreg() => m.hwreg.map(|h| Watch {
            hwreg: Some(h.id),
            ..base
        }),
        Consumer::GetregMode if m.is_getreg() && m.hwreg.is_some_and(|h| h.id == HW_REG_MODE) => {
            Some(none)
        }
        Consumer::VectorOp if m.is_vector() => Some(none),
        Consumer::ValuReadsVcczExecz if m.is_valu() => {
            let mut w = RegSet::EMPTY;
            if m.reads.contains(VCCZ) {
                w = w.union(regs::VCC);
            }
            if m.reads.contains(EXECZ) {
                w = w.union(regs::EXEC);
            }
            regs_only(w)
        }
        Consumer::LaneSelect => regs_only(m.lane_select()),
        Consumer::DivFmas if matches!(m.op, Op::V_DIV_FMAS_F32 | Op::V_DIV_FMAS_F64) => {
            regs_only(regs::VCC)
        }
        Consumer::ValuWritesVgpr if m.is_valu() => regs_only(m.writes.vgprs()),
        Consumer::VmemReadsSgpr if m.is_vmem_or_flat() => regs_only(m.reads.scalar()),
        Consumer::M0GdsSendmsg if m.m0_reader == Some(M0Reader::GdsSendmsg) => {
            regs_only(regs::M0_SET)
        }
        Consumer::M0Lds if m.m0_reader == Some(M0Reader::Lds) => regs_only(regs::M0_SET),
        Consumer::M0SMovrel if m.m0_reader == Some(M0Reader::SMovrel) => regs_only(regs::M0_SET),
        Consumer::DppReadsVgpr if m.is_dpp() => regs_only(m.reads.vgprs()),
        Consumer::Dpp if m.is_dpp() => regs_only(regs::EXEC),
        Consumer::Rfe if matches!(m.op, Op::S_RFE_B64 | Op::S_RFE_RESTORE_B64) => Some(none),
        Consumer::MfmaExec if m.mfma().is_some() => regs_only(regs::EXEC),
        Consumer::MfmaOrAccvgprWriteExec
            if m.mfma().is_some() || m.is_mai(MaiKind::AccvgprWrite) =>
        {
            regs_only(regs::EXEC)
        }
        Consumer::MaiReadsVgpr if m.mfma().is_some() || m.is_mai(MaiKind::AccvgprWrite) => {
            regs_only(m.mai?.src_ab.vgprs())
        }
        Consumer::MfmaReadsSrcC(kind) if m.mfma().is_some_and(|s| is_kind(kind, s)) => {
            regs_only(m.mai?.src_c.vector())
        }
        Consumer::MfmaReadsSrcAB if m.mfma().is_some() => regs_only(m.mai?.src_ab.vector()),
        Consumer::MfmaReads if m.mfma().is_some() => regs_only(m.reads.vector()),
        Consumer::AccvgprReadReads if m.is_mai(MaiKind::AccvgprRead) => {
            regs_only(m.mai?.src_ab.agprs())
        }
        Consumer::AccvgprWriteWrites if m.is_mai(MaiKind::AccvgprWrite) => {
            regs_only(m.mai?.dst.agprs())
        }
        Consumer::AgprReadOrAccvgprWrite => {
            let mai = m.mai?;
            match mai.kind {
                MaiKind::Mfma(_) | MaiKind::AccvgprRead => regs_only(mai.src_ab.agprs()),
                MaiKind::AccvgprWrite => regs_only(mai.dst.agprs()),
            }
        }
        Consumer::NonMfmaValuReads if m.is_valu() && m.mfma().is_none() => {
            regs_only(m.reads.vector())
        }
        Consumer::MemoryReads if m.is_memory() => regs_only(m.reads.vector()),
        Consumer::MemoryExportReads if m.is_memory() || m.is_export() => {
            regs_only(m.reads.vector())
        }
        Consumer::VectorWrites
            if (m.is_valu() && m.mfma().is_none()) || m.is_memory() || m.is_export() =>
        {
            regs_only(m.writes.vector())
        }
        Consumer::VectorReads
            if (m.is_valu() && m.mfma().is_none()) || m.is_memory() || m.is_export() =>
        {
            let regs = m.reads.vector();
            (!regs.is_empty()).then_some(Watch {
                regs,
                dot_src_c: m.dot_src_c,
                reads: true,
                ..base
            })
        }
        Consumer::FmaF64 if m.is_fma_f64 => Some(none),
        _ => None,
    }
}

fn is_kind(kind: MfmaKind, class: MfmaClass) -> bool {
    match kind {
        MfmaKind::Any => true,
        MfmaKind::Xdl => class.is_xdl(),
        MfmaKind::NotXdl => !class.is_xdl(),
        MfmaKind::Dgemm4x4 => class == MfmaClass::Dgemm4,
    }
}

/// What `m` is to a search for `producer`: not one (`None`: walk past it), or the producer
/// that settles this path, with the wait states it needs (0 when it is one that needs none, such
/// as an MFMA whose D is the same as the consumer's C where only overlaps count).
fn producer_needs(producer: Producer, wait: Wait, watch: &Watch, m: &InstModel) -> Option<u32> {
    let fixed = |hit: bool| hit.then_some(wait.after(None) as u32);
    match producer {
        Producer::MfmaWrites(overlap) => {
            let (class, mai) = (m.mfma()?, m.mai?);
            if !mai.dst.overlaps(watch.regs) {
                return None;
            }
            let same = mai.dst == watch.regs;
            let applies = match overlap {
                Overlap::Any => true,
                Overlap::NotSame if same => return None,
                Overlap::NotSame => true,
                Overlap::Partial => !same,
                Overlap::Same => same,
            };
            Some(if applies {
                wait.after(Some(class)) as u32
            } else {
                0
            })
        }
        Producer::MfmaReadsSrcC(kind) => {
            let (class, mai) = (m.mfma()?, m.mai?);
            (is_kind(kind, class) && mai.src_c.overlaps(watch.regs))
                .then(|| wait.after(Some(class)) as u32)
        }
        Producer::Dgemm => fixed(m.mfma().is_some_and(MfmaClass::is_dgemm)),
        Producer::DotWrites => {
            if !(m.is_dot && m.writes.overlaps(watch.regs)) {
                return None;
            }
            // The same op may read the result back as its accumulator at once (a read of
            // SrcA/B still waits); it may also overwrite it.
            let exempt = m.op == watch.op
                && (!watch.reads || !m.writes.overlaps(watch.regs.minus(watch.dot_src_c)));
            Some(if exempt { 0 } else { wait.after(None) as u32 })
        }
        _ => fixed(produces(producer, watch, m)),
    }
}

/// Whether `m` is a producer for `watch`.
fn produces(producer: Producer, watch: &Watch, m: &InstModel) -> bool {
    let hwreg = |id: u8| m.is_setreg() && m.hwreg.is_some_and(|h| h.id == id);
    match producer {
        Producer::ValuWrites => m.is_valu() && m.writes.overlaps(watch.regs),
        Producer::SaluWrites => m.is_salu() && m.writes.overlaps(watch.regs),
        Producer::AnyWrites => m.writes.overlaps(watch.regs),
        Producer::SetregSameHwreg => watch.hwreg.is_some_and(hwreg),
        Producer::SetregTrapsts => hwreg(HW_REG_TRAPSTS),
        Producer::SetregModeVskip => {
            hwreg(HW_REG_MODE) && m.hwreg.is_some_and(|h| h.covers_bit(MODE_VSKIP_BIT))
        }
        Producer::SetVskip => m.op == Op::S_SETVSKIP,
        Producer::WideStoreData => m.wide_store_data().overlaps(watch.regs),
        Producer::NonMfmaValuWrites => {
            m.is_valu() && m.mfma().is_none() && m.writes.overlaps(watch.regs)
        }
        Producer::NonMfmaNonDotValuWrites => {
            m.is_valu() && m.mfma().is_none() && !m.is_dot && m.writes.overlaps(watch.regs)
        }
        Producer::AccvgprWrite => m.is_mai(MaiKind::AccvgprWrite) && m.writes.overlaps(watch.regs),
        Producer::AccvgprRead => m.is_mai(MaiKind::AccvgprRead) && m.writes.overlaps(watch.regs),
        // The VALU of a `ValuWritesThen` hazard (its walk is `valu_then`).
        Producer::ValuWritesThen(between) => {
            let valu = match between {
                Between::Dgemm => m.is_valu(),
                Between::AccvgprReadWrite => m.is_valu() && m.mai.is_none(),
            };
            valu && m.writes.overlaps(watch.regs)
        }
        Producer::MfmaWrites(_)
        | Producer::MfmaReadsSrcC(_)
        | Producer::Dgemm
        | Producer::DotWrites => producer_needs(producer, Wait::Fixed(0), watch, m).is_some(),
    }
}

/// Whether `m` is the instruction a `ValuWritesThen(between)` hazard needs right before its
/// consumer.
fn is_between(between: Between, m: &InstModel) -> bool {
    match between {
        Between::Dgemm => m.mfma().is_some_and(MfmaClass::is_dgemm),
        Between::AccvgprReadWrite => {
            m.is_mai(MaiKind::AccvgprRead) || m.is_mai(MaiKind::AccvgprWrite)
        }
    }
}

/// Whether `m` could be the consumer of `rule` (cheap pre-filter before any walk).
pub fn is_consumer(rule: &Rule, m: &InstModel) -> bool {
    match rule.check {
        Check::WaitStates { consumer, .. } => watch(consumer, m).is_some(),
        Check::SoftClause(kind) => clause::is_member(kind, m),
        Check::StaleVccz => m.reads.contains(VCCZ) && !m.is_valu(),
        Check::Waitcnt(_) | Check::NotCheckable(_) => false,
    }
}

/// Evaluates a NOP rule (wait states, soft clause, stale VCCZ) at consumer `m`.
pub fn check<H: History>(rule: &Rule, m: &InstModel, history: &H) -> Option<Hit<H::Pos>> {
    match rule.check {
        Check::WaitStates {
            producer,
            consumer,
            wait_states,
        } => {
            let w = watch(consumer, m)?;
            if let Producer::ValuWritesThen(between) = producer {
                return valu_then(between, &w, wait_states.max() as u32, history);
            }
            if let Wait::ByPasses(t) = wait_states {
                if t.longest_since {
                    return by_longest(producer, t, &w, history);
                }
            }
            let reach = wait_states.max() as u32;
            let fixed = matches!(wait_states, Wait::Fixed(_));
            // The worst shortfall over all paths; each path ends at its nearest producer.
            let mut worst: Option<Hit<H::Pos>> = None;
            let shortfall = |h: &Hit<H::Pos>| h.required - h.provided;
            history.walk_back(&mut |pos, prev, between| {
                if between >= reach {
                    return Step::Stop;
                }
                // With one requirement for every producer, a producer further back can only
                // fall shorter of it than the one found.
                if fixed && worst.is_some_and(|b| b.provided <= between) {
                    return Step::Stop;
                }
                let Some(required) = producer_needs(producer, wait_states, &w, prev) else {
                    return Step::Continue;
                };
                if between < required {
                    let hit = Hit {
                        producer: pos,
                        provided: between,
                        required,
                    };
                    if worst.is_none_or(|b| shortfall(&hit) > shortfall(&b)) {
                        worst = Some(hit);
                    }
                }
                Step::Stop
            });
            worst
        }
        Check::SoftClause(kind) => clause::soft_clause(kind, m, history),
        Check::StaleVccz => stale_vccz(m, history),
        Check::Waitcnt(_) | Check::NotCheckable(_) => None,
    }
}

/// A rule whose producer needs the wait states of the longest MFMA from it to the consumer
/// (LLVM's gfx908 check): the walk notes every MFMA and every producer with the wait states
/// before the consumer; each producer then needs the most that any MFMA no further back than it
/// needs. On a straight line that is exactly LLVM's count; across branches an MFMA of another
/// path may count too, which only asks for more.
fn by_longest<H: History>(
    producer: Producer,
    t: ByPasses,
    w: &Watch,
    history: &H,
) -> Option<Hit<H::Pos>> {
    let reach = t.max() as u32;
    let mut mfmas: Vec<(u32, u32)> = Vec::new();
    let mut producers: Vec<(H::Pos, u32)> = Vec::new();
    history.walk_back(&mut |pos, prev, between| {
        if between >= reach {
            return Step::Stop;
        }
        if let Some(class) = prev.mfma() {
            mfmas.push((between, t.get(class) as u32));
        }
        if producer_needs(producer, Wait::ByPasses(t), w, prev).is_some() {
            producers.push((pos, between));
            return Step::Stop;
        }
        Step::Continue
    });
    producers
        .into_iter()
        .filter_map(|(pos, provided)| {
            let required = mfmas
                .iter()
                .filter(|(at, _)| *at <= provided)
                .map(|(_, needs)| *needs)
                .max()?;
            (provided < required).then_some(Hit {
                producer: pos,
                provided,
                required,
            })
        })
        .max_by_key(|h| h.required - h.provided)
}

/// A `ValuWritesThen(between)` hazard: the instruction right before the consumer is a
/// `between` (on the path walked), and the one before it a VALU writing a watched register.
fn valu_then<H: History>(
    between: Between,
    w: &Watch,
    required: u32,
    history: &H,
) -> Option<Hit<H::Pos>> {
    let mut found = None;
    history.walk_back(&mut |pos, prev, ws| {
        if ws == 0 {
            // Only paths through a `between` right before the consumer are followed.
            return if is_between(between, prev) {
                Step::Continue
            } else {
                Step::Stop
            };
        }
        if ws < required && found.is_none() && produces(Producer::ValuWritesThen(between), w, prev)
        {
            found = Some(Hit {
                producer: pos,
                provided: ws,
                required,
            });
        }
        Step::Stop
    });
    found
}

fn stale_vccz<H: History>(m: &InstModel, history: &H) -> Option<Hit<H::Pos>> {
    if m.is_valu() || !m.reads.contains(VCCZ) {
        return None;
    }
    let mut found = None;
    history.walk_back(&mut |pos, prev, between| {
        if found.is_some() {
            return Step::Stop;
        }
        let vcc = prev.writes.intersect(regs::VCC);
        if vcc.is_empty() {
            return Step::Continue;
        }
        if vcc != regs::VCC {
            found = Some(Hit {
                producer: pos,
                provided: between,
                required: u32::MAX,
            });
        }
        Step::Stop
    });
    found
}
