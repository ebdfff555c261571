//! Issuing one instruction of one wave: the hazard and stale-register checks, then either its
//! semantics (everything but memory) or a request for the memory phase ([`super::deferred`]),
//! and what the timing model does with it — when a memory operation completes (its latency,
//! LDS bank cycles, in-order return for vector memory and LDS), how long the wave and its SIMD
//! are busy, and the wave-state changes of barriers, sleeps, priorities and s_endpgm.

use super::deferred::{Request, Snapshot};
use super::engine::{account, Block, CuSim};
use super::facts::{InstTiming, Latency, Special, Unit};
use super::inflight::{InFlight, Writes};
use super::stats::{StaleRead, StallReason};
use crate::exec::issue::VSKIP;
use crate::exec::{Cx, Flow};
use crate::hazard::regs::RegSet;
use crate::launch::{category_index, Stop};
use crate::lds_banks::{bank_cost, DsAccess};
use crate::wave::spin::{Epoch, SpinState};
use crate::wave::WAVE_SIZE;

/// Cycles between a waiting wave's looks at its GWS barrier.
const GWS_RETRY: u64 = 64;
/// Cycles between two issues of one wave: its SIMD gets the issue slot every fourth cycle.
pub const CADENCE: u64 = 4;

/// Issues the next instruction of wave `s` on CU `c` at cycle `now`. A guest stop names the
/// wave for the cut ([`super::cut`]): the issues of its turn after it did not happen.
#[inline(always)]
pub fn issue(m: &mut CuSim, s: usize, now: u64) -> Result<(), (Stop, [u32; 3])> {
    let r = issue_one(m, s, now);
    if r.is_err() {
        m.cut_stopped_by(s);
    }
    r
}

fn issue_one(m: &mut CuSim, s: usize, now: u64) -> Result<(), (Stop, [u32; 3])> {
    // What ran ahead for the bulk turns issues from there (the general path runs nothing
    // ahead: runs between memory instructions are short, and would not repay it).
    if m.queued != 0 && m.hot[s].ahead {
        return super::ahead::issue_next(m, s, now);
    }
    let program = m.e.program;
    let index = m.slots[s].wave.pc;
    let d = &program.insts[index as usize];
    let f: InstTiming = m.e.facts[index as usize];
    let wave_index = m.slots[s].wave.index;
    if let Some(h) = &mut m.hazards {
        let group_id = m.groups[m.slots[s].group].as_ref().map_or([0; 3], |g| g.id);
        if let Some(finding) = h.issue_slot(s, wave_index, group_id, index) {
            return Err((
                Stop::Hazard {
                    wave: wave_index,
                    index,
                    finding,
                },
                group_id,
            ));
        }
    }
    if !m.slots[s].out.pending.is_empty() {
        check_stale(m, s, index, &f, now);
    }
    barrier_timeout(m, s, now)?;
    account(
        &mut m.hot[s],
        &mut m.slots[s],
        &mut m.stalls,
        &mut m.trace,
        now,
        StallReason::Executing,
    );
    trace_issue(m, s, now, d);

    let models = m.e.models;
    let counters = d.class.counters;
    let slot = &mut m.slots[s];
    let flow = if f.memory && slot.wave.mode & VSKIP == 0 {
        // A memory instruction runs between windows, in completion order (`deferred`), on a
        // copy of what it reads now; its registers land at completion.
        let model = &models.models[index as usize];
        let writes = if f.lands { model.writes } else { RegSet::EMPTY };
        slot.wave.pc = index + 1;
        let mut snap = m.snapshots.pop().unwrap_or_else(Snapshot::empty);
        let mut reads = if f.keeps_dst {
            model.reads.union(model.writes)
        } else {
            model.reads
        };
        if d.inst.format() == gcn_isa::Format::Mimg {
            // The address VGPRs an image op reads depend on its T#'s type, which the operand
            // table cannot know: copy as many as any variant reads.
            if let Some(v) = d.inst.code(gcn_isa::table::Field::Vaddr) {
                let last = crate::hazard::regs::AGPR0;
                let room = last
                    .saturating_sub(v)
                    .min(crate::exec::MIMG_ADDRESS_DWORDS as u16);
                reads.insert(v, room as u8);
            }
        }
        // Vector memory other than DS and image ops reads only the lanes EXEC enables.
        let exec_lanes_only = matches!(
            d.inst.format(),
            gcn_isa::Format::Flat
                | gcn_isa::Format::Global
                | gcn_isa::Format::Scratch
                | gcn_isa::Format::Mubuf
                | gcn_isa::Format::Mtbuf
        );
        snap.fill(&slot.wave, reads, exec_lanes_only);
        slot.wave.counters.issue(counters);
        let seq = m.seq;
        let done = completion(m, s, &f, d, now, seq);
        m.seq += 1;
        let slot = &mut m.slots[s];
        if f.latency == Latency::Lds {
            slot.out.last_lds = done;
        }
        slot.out.push(InFlight {
            done,
            counters,
            index,
            seq,
            regs: Writes::new(writes),
            landing: None,
        });
        let group = slot.group;
        let g = m.groups[group].as_mut().expect("resident group");
        g.outstanding += 1;
        g.lds_requests += super::engine::may_reach_lds(d.inst.format()) as u32;
        let q = Request {
            done,
            issued: now,
            seq,
            slot: s,
            group,
            index,
            lands: f.lands,
            snap,
        };
        // (The dispatcher puts a CU's requests in issue order: the bulk turns may have issued
        // a scalar load of another SIMD at a later cycle of this window already.)
        m.requests.push(q);
        Flow::Continue
    } else {
        slot.wave.pc = index + 1;
        let before = slot.wave.counters;
        slot.wave.counters.issue(counters);
        let group = m.groups[slot.group].as_mut().expect("resident group");
        let mut cx = Cx {
            wave: &mut slot.wave,
            mem: &mut m.no_memory,
            lds: &mut group.lds,
            program,
            env: m.e.env,
        };
        let id = group.id;
        let flow = crate::exec::issue::execute(&mut cx, d).map_err(|fault| {
            (
                Stop::Fault {
                    wave: wave_index,
                    index,
                    fault,
                },
                id,
            )
        })?;
        if flow == Flow::Stall {
            // s_waitcnt (checked before issue) and a wave waiting at a GWS barrier stall; it
            // did not issue, so it counts nothing, and retries next turn.
            slot.wave.pc = index;
            slot.wave.counters = before;
            if slot.wave.gws_wait.is_some() {
                // A wave at a GWS barrier looks again after a while, as hardware holds it
                // off the issue port: polling every cycle would, oldest first, keep the
                // waves it waits for from issuing.
                let h = &mut m.hot[s];
                h.ready_at = now + GWS_RETRY;
                h.block = Block::Sleep;
                account(
                    h,
                    slot,
                    &mut m.stalls,
                    &mut m.trace,
                    now + CADENCE,
                    StallReason::Sleep,
                );
                return Ok(());
            }
            m.hot[s].block = Block::Waitcnt;
            return Ok(());
        }
        // A taken backward branch (the next instruction at or before this one).
        let limit = m.e.env.spin_limit;
        if slot.wave.pc <= index && flow == Flow::Continue && limit != 0 {
            let epoch = Epoch {
                memory: m.mem_epoch,
                lds: group.lds.writes(),
            };
            m.spin_seen |= SpinState::back_edge(&mut slot.wave, index, epoch, limit, m.e.env.vgprs);
        }
        // s_sendmsg counts on LGKM_CNT until the message is sent; a vector memory op skipped
        // by MODE.vskip has issued nothing to wait for.
        if counters.lgkm && !f.memory {
            let done = completion(m, s, &f, d, now, u64::MAX);
            m.slots[s].out.push(InFlight {
                done,
                counters,
                index,
                seq: u64::MAX,
                regs: Writes::NONE,
                landing: None,
            });
        } else if f.memory {
            m.slots[s].wave.counters.complete(counters);
        }
        flow
    };
    // (One that ran ahead is counted as it issues, in `ahead::issue_next`.)
    m.counts.wave_instructions += 1;
    m.counts.by_category[category_index(d.class.category)] += 1;
    m.slots[s].wave.instructions += 1;
    after_issue(m, s, now, index, &f, flow)
}

/// A wave that keeps running while others of its group wait at the barrier for longer than
/// the timeout will, in all likelihood, never arrive: report a deadlock, not a hang.
#[inline(always)]
pub fn barrier_timeout(m: &mut CuSim, s: usize, now: u64) -> Result<(), (Stop, [u32; 3])> {
    let g = m.slots[s].group;
    if let Some(group) = m.groups[g].as_ref() {
        if group.barrier_since != u64::MAX && now - group.barrier_since > m.e.config.barrier_timeout
        {
            let id = group.id;
            // The report names where the running waves are: those of SIMDs in the bulk have
            // their positions written back first.
            m.bulk_leave_all();
            return Err((m.barrier_timeout(g, now), id));
        }
    }
    Ok(())
}

/// The `-v` log's line for an issue (at trace level).
#[inline(always)]
pub fn trace_issue(m: &CuSim, s: usize, now: u64, d: &crate::exec::program::Decoded) {
    let slot = &m.slots[s];
    tracing::trace!(
        cycle = now,
        cu = slot.cu,
        simd = slot.simd,
        group = ?m.groups[slot.group].as_ref().map(|g| g.id),
        wave = slot.wave.index,
        pc = format_args!("{:#x}", d.pc),
        "{}",
        d.inst
    );
}

/// What follows an instruction's issue, executed or not (and counted by the caller): how long
/// the wave and its SIMD are busy, the wave-state changes of s_nop, s_sleep, s_setprio,
/// s_wakeup, and of its flow (a barrier, the end of the wave).
#[inline(always)]
pub fn after_issue(
    m: &mut CuSim,
    s: usize,
    now: u64,
    index: u32,
    f: &InstTiming,
    flow: Flow,
) -> Result<(), (Stop, [u32; 3])> {
    let wave_index = m.slots[s].wave.index;
    m.issued += 1;
    // Only near the end of the budget does the dispatcher read these (the group is looked up
    // only then).
    if m.log_issues {
        let group_id = m.group_id(s);
        m.last_issued = (wave_index, index, group_id);
        m.issue_log.push((now, wave_index, index, group_id));
    }
    let cu = &mut m.cu;
    let slot = &mut m.slots[s];
    let h = &mut m.hot[s];
    h.ready_at = now + CADENCE;
    if f.unit == Unit::Valu {
        let simd = slot.simd as usize;
        cu.valu_busy[simd] = now + f.valu_cycles as u64;
        cu.valu_owner[simd] = s;
        if f.matrix_cycles != 0 {
            cu.matrix_busy[simd] = now + f.matrix_cycles as u64;
            cu.matrix_owner[simd] = s;
        }
    }
    match f.special {
        Special::Nop(n) if n as u64 > CADENCE => {
            h.ready_at = now + n as u64;
            h.block = Block::Nop;
            account(
                h,
                slot,
                &mut m.stalls,
                &mut m.trace,
                now + CADENCE,
                StallReason::Sleep,
            );
        }
        Special::Sleep(n) => {
            h.ready_at = now + (n as u64).max(CADENCE);
            h.block = Block::Sleep;
            account(
                h,
                slot,
                &mut m.stalls,
                &mut m.trace,
                now + CADENCE,
                StallReason::Sleep,
            );
        }
        Special::Setprio(p) => {
            let simd = slot.simd as usize;
            cu.raised[simd] = cu.raised[simd] + (p != 0) as u16 - (h.prio != 0) as u16;
            h.prio = p;
        }
        Special::Wakeup => {
            let g = slot.group;
            m.wakeup(g, now);
        }
        _ => {}
    }
    match flow {
        Flow::Barrier => {
            m.hot[s].block = Block::Barrier;
            let slot = &mut m.slots[s];
            let g = slot.group;
            if let Some(group) = m.groups[g].as_mut() {
                group.barrier_since = group.barrier_since.min(now);
            }
            m.barrier_min = m.barrier_min.min(now);
            account(
                &mut m.hot[s],
                slot,
                &mut m.stalls,
                &mut m.trace,
                now + 1,
                StallReason::Barrier,
            );
            m.check_barrier(g, now);
        }
        Flow::End => m.end_wave(s, now),
        Flow::Continue | Flow::Stall => {}
    }
    Ok(())
}

/// When the memory operation just issued (as request `seq`) completes: from the memory
/// hierarchy when the board has one ([`super::memory`]; possibly not known until the window
/// ends), else after the fixed latency of its class.
fn completion(
    m: &mut CuSim,
    s: usize,
    f: &InstTiming,
    d: &crate::exec::program::Decoded,
    now: u64,
    seq: u64,
) -> u64 {
    if m.memory.is_some() {
        let hierarchy = match f.latency {
            Latency::Vmem => m.vector_completion(s, d, seq, now),
            Latency::Smem => m.scalar_completion(s, d, seq, now),
            _ => None,
        };
        if let Some(done) = hierarchy {
            return done;
        }
    }
    let lat = &m.e.config.latencies;
    let mut jitter = |cycles: u32| match &mut m.rng {
        Some(r) => r.jitter(cycles) as u64,
        None => cycles as u64,
    };
    let cu = &mut m.cu;
    let slot = &m.slots[s];
    match f.latency {
        Latency::Vmem => {
            // The texture-address unit takes one instruction per `vmem_issue` cycles; vector
            // memory returns in issue order (§4.4), so never before the wave's previous one.
            let start = now.max(cu.vmem_free);
            cu.vmem_free = start + lat.vmem_issue as u64;
            let done = cu.vmem_free + jitter(lat.vmem);
            done.max(slot.out.last_vm)
        }
        Latency::Lds => {
            let cycles = match f.ds {
                Some(shape) if shape.per_lane => {
                    let cost = lds_cost(&slot.wave, d, shape);
                    m.lds.conflict_cycles += cost.extra() as u64;
                    cost.cycles as u64
                }
                // Permutes, swizzles, append/consume: one 32-bit pass per half wave.
                _ => 2,
            };
            m.lds.instructions += 1;
            m.lds.bank_cycles += cycles;
            // The LDS pipeline serves one instruction at a time, in order.
            let start = now.max(cu.lds_free);
            cu.lds_free = start + cycles.max(1);
            (cu.lds_free + jitter(lat.lds)).max(slot.out.last_lds)
        }
        Latency::Smem => now + jitter(lat.smem),
        Latency::Message | Latency::None => now + jitter(lat.message),
    }
}

/// The bank cost of a DS instruction from its lanes' addresses (read after the semantics ran,
/// with any result held back, so the address registers are as at issue).
fn lds_cost(
    w: &crate::wave::Wave,
    d: &crate::exec::program::Decoded,
    shape: super::facts::DsShape,
) -> crate::lds_banks::BankCost {
    let base = &w.vgpr[(d.regs[0].wrapping_sub(256) as usize) % crate::wave::VGPRS];
    let exec = w.exec();
    if shape.dual {
        let (a0, a1) = DsAccess::dual_addresses(
            base,
            d.inst.bits(0, 0, 8) as u8,
            d.inst.bits(0, 8, 8) as u8,
            shape.bytes as u32,
            shape.st64,
        );
        bank_cost(&DsAccess {
            exec,
            addr: &a0,
            addr1: Some(&a1),
            bytes: shape.bytes as u32,
            atomic: shape.atomic,
        })
    } else {
        let off = d.inst.bits(0, 0, 16);
        let addr: [u32; WAVE_SIZE] = std::array::from_fn(|l| base[l].wrapping_add(off));
        bank_cost(&DsAccess {
            exec,
            addr: &addr,
            addr1: None,
            bytes: shape.bytes as u32,
            atomic: shape.atomic,
        })
    }
}

/// Records a read (or overwrite) of a register an outstanding load will still write.
fn check_stale(m: &mut CuSim, s: usize, index: u32, f: &InstTiming, now: u64) {
    let model = &m.e.models.models[index as usize];
    let slot = &m.slots[s];
    // A load's own destinations may be outstanding from an earlier load of the same counter:
    // vector memory returns in order, so that is not a hazard; only reads and non-load writes.
    let checks = [("read", model.reads), ("write", model.writes)];
    for (access, regs) in checks {
        // Most instructions of a wave with loads outstanding touch none of their registers.
        if (access == "write" && f.lands) || slot.out.pending.intersect(regs).is_empty() {
            continue;
        }
        let Some((op, both)) = slot.out.writer_of(regs) else {
            continue;
        };
        let group = m.groups[slot.group].as_ref().map_or([0; 3], |g| g.id);
        let counter = if op.counters.vm { "vmcnt" } else { "lgkmcnt" };
        let seen = |hits| StaleRead {
            consumer: index,
            load: op.index,
            access,
            registers: both.to_string(),
            counter,
            hits,
            workgroup: group,
            wave: slot.wave.index,
            cycle: now,
        };
        let e = m
            .stale
            .entry((index, op.index, access))
            .or_insert_with(|| seen(0));
        // The first by cycle names it: the bulk turns may have issued a later one already.
        if now < e.cycle {
            *e = seen(e.hits);
        }
        e.hits += 1;
    }
}
