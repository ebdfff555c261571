//! The timing model's use of the memory hierarchy ([`crate::memsys`]): when a vector or scalar
//! memory instruction completes follows from the lines it touches and what the caches hold.
//!
//! The hierarchy is split where the windows split the device: the coalescer and vector L1
//! belong to one CU, so a CU works them out as it issues, on whatever thread runs it; the
//! scalar caches, the L2 and device memory are shared, so they see requests only between
//! windows, in (issue cycle, CU, issue number) order — the same order on any number of
//! threads. An instruction whose completion needs the shared part is **pending** until then:
//! its completion cycle reads [`PENDING`], which a wave waiting for it treats as "not yet"; no
//! latency of the shared part is shorter than a window, so the cycle found between windows is
//! always in a later window. Vector memory returns in issue order (`last_vm`), so an
//! instruction issued behind a pending one is pending too.
//!
//! Addresses reach the caches by allocation and offset ([`Placement`]), not as the host placed
//! the buffers: the HIP runtime puts an allocation at its host address, which the host's
//! address-space randomisation moves from run to run, and the caches' sets and channels would
//! move with it.

use super::engine::{Block, CuSim};
use crate::memsys::{Access, CuMemory, L2Request, Lanes, Row, SharedMemory, VectorRequest};
use gcn_isa::MemKind;

/// Pending instructions whose room a CU keeps between settlings.
const KEPT_PENDING: usize = 64;

/// The completion cycle of an instruction waiting for the shared memory system.
pub const PENDING: u64 = u64::MAX;

/// What an instruction waits for from the shared memory system.
#[derive(Clone, Debug)]
enum Shared {
    /// Vector: its requests `to_l2[from..to]` (none when it is only behind a pending one).
    Vector {
        from: u32,
        to: u32,
    },
    Scalar {
        addr: u64,
        bytes: u32,
    },
}

/// One pending instruction.
#[derive(Clone, Debug)]
struct Pending {
    /// The CU's issue number of the request ([`super::deferred::Request::seq`]).
    seq: u64,
    slot: u32,
    issued: u64,
    /// Completion as far as the CU knows it: its L1 hits, the wave's previous vector memory.
    known: u64,
    vm: bool,
    shared: Shared,
    /// Its completion once the shared part has answered ([`PENDING`] until then). (Kept in
    /// eight bytes, and the slot and range in four each: a CU holds a hundred of these.)
    resolved: u64,
}

/// The launch's allocations by address, to name an address by allocation and offset.
#[derive(Debug, Default)]
pub struct Placement {
    /// `(base, end, serial)` in address order ([`crate::memory::Memory::serials`]).
    ranges: Vec<(u64, u64, u64)>,
}

impl Placement {
    pub fn new(ranges: Vec<(u64, u64, u64)>) -> Placement {
        Placement { ranges }
    }

    /// `addr` as (allocation serial + 1) · 2^40 + offset; an address outside every allocation
    /// of the launch's start (one allocated since) stays as it is. `hint` is the index found
    /// last, which the lanes of one instruction mostly share.
    pub fn stable(&self, addr: u64, hint: &mut usize) -> u64 {
        let within = |&(base, end, _): &(u64, u64, u64)| addr >= base && addr < end;
        if !self.ranges.get(*hint).is_some_and(within) {
            match self.ranges.partition_point(|r| r.0 <= addr).checked_sub(1) {
                Some(i) if within(&self.ranges[i]) => *hint = i,
                _ => return addr,
            }
        }
        let (base, _, serial) = self.ranges[*hint];
        ((serial + 1) << 40) + (addr - base)
    }

    /// `row` with its addresses moved as [`Placement::stable_lanes`] would move them, when
    /// they all lie in one allocation (`None` otherwise: its lanes may move apart).
    pub fn stable_row(&self, row: &Row, bytes: u32) -> Option<Row> {
        let mut hint = 0;
        let first = row.addr;
        let moved = self.stable(first, &mut hint);
        let last = first + (row.count as u64 - 1) * bytes.max(1) as u64;
        let &(base, end, _) = self.ranges.get(hint)?;
        (moved != first && first >= base && last < end).then_some(Row {
            addr: moved,
            ..*row
        })
    }

    /// [`Placement::stable`] of every lane's address: when they all lie in the allocation of
    /// the first (as a wave-instruction's lanes mostly do), one move for all.
    pub fn stable_lanes(&self, lanes: &mut [(usize, u64)]) {
        let mut hint = 0;
        let Some(&(_, first)) = lanes.first() else {
            return;
        };
        let moved = self.stable(first, &mut hint);
        let (lo, hi) = lanes
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &(_, a)| (lo.min(a), hi.max(a)));
        match self.ranges.get(hint) {
            Some(&(base, end, _)) if moved != first && lo >= base && hi < end => {
                let delta = moved.wrapping_sub(first);
                for (_, a) in lanes.iter_mut() {
                    *a = a.wrapping_add(delta);
                }
            }
            _ => {
                for (_, a) in lanes.iter_mut() {
                    *a = self.stable(*a, &mut hint);
                }
            }
        }
    }
}

/// A CU's side of the memory hierarchy.
pub struct CuMemoryState {
    pub l1: CuMemory,
    placement: std::sync::Arc<Placement>,
    pending: Vec<Pending>,
    to_l2: Vec<L2Request>,
    lanes: Vec<(usize, u64)>,
    /// Reused by [`CuSim::settle_memory`] (called for every CU at every window boundary).
    kept: Vec<Pending>,
    woken: Vec<usize>,
    last: Vec<(usize, u64)>,
}

impl CuMemoryState {
    pub fn new(l1: CuMemory, placement: std::sync::Arc<Placement>) -> CuMemoryState {
        CuMemoryState {
            l1,
            placement,
            pending: Vec::new(),
            to_l2: Vec::new(),
            lanes: Vec::new(),
            kept: Vec::new(),
            woken: Vec::new(),
            last: Vec::new(),
        }
    }

    /// Instructions still waiting for the shared part.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }
}

impl CuSim<'_> {
    /// The completion of vector memory instruction `d` issued by wave `s` at `now` as request
    /// `seq`, or [`PENDING`]; `None` if it moves no data through the hierarchy (cache
    /// controls), for the fixed latency to apply.
    pub(super) fn vector_completion(
        &mut self,
        s: usize,
        d: &crate::exec::program::Decoded,
        seq: u64,
        now: u64,
    ) -> Option<u64> {
        let cu = self.cu.id as usize;
        let slot = &mut self.slots[s];
        let group = self.groups[slot.group].as_mut().expect("resident group");
        let state = self.memory.as_mut()?;
        state.lanes.clear();
        let cx = crate::exec::Cx {
            wave: &mut slot.wave,
            mem: &mut self.no_memory,
            lds: &mut group.lds,
            program: self.e.program,
            env: self.e.env,
        };
        let access = crate::exec::lanes::vector(&cx, d, &mut state.lanes)?;
        // A row within one allocation moves whole; any other is listed lane by lane.
        let row = access.row.and_then(|r| {
            let moved = state.placement.stable_row(&r, access.bytes);
            if moved.is_none() {
                state.lanes.extend(r.lanes(access.bytes));
            }
            moved
        });
        let lanes = match row {
            Some(r) => Lanes::Row(r),
            None => {
                state.placement.stable_lanes(&mut state.lanes);
                Lanes::Each(&state.lanes)
            }
        };
        let req = VectorRequest {
            cu,
            at: now,
            access: match access.kind {
                MemKind::Load => Access::Load,
                MemKind::Store => Access::Store,
                _ => Access::Atomic,
            },
            lanes,
            bytes: access.bytes,
            glc: access.glc,
        };
        let from = state.to_l2.len();
        let hits = state.l1.issue(&req, &mut state.to_l2);
        let last_vm = slot.out.last_vm;
        if state.to_l2.len() == from && last_vm != PENDING {
            return Some(hits.max(last_vm));
        }
        let known = if last_vm == PENDING {
            hits
        } else {
            hits.max(last_vm)
        };
        state.pending.push(Pending {
            seq,
            slot: s as u32,
            issued: now,
            known,
            vm: true,
            shared: Shared::Vector {
                from: from as u32,
                to: state.to_l2.len() as u32,
            },
            resolved: PENDING,
        });
        Some(PENDING)
    }

    /// The completion of scalar load `d` (always [`PENDING`]: the scalar cache is shared), or
    /// `None` for SMEM ops that read no memory.
    pub(super) fn scalar_completion(
        &mut self,
        s: usize,
        d: &crate::exec::program::Decoded,
        seq: u64,
        now: u64,
    ) -> Option<u64> {
        let slot = &mut self.slots[s];
        let group = self.groups[slot.group].as_mut().expect("resident group");
        let state = self.memory.as_mut()?;
        let cx = crate::exec::Cx {
            wave: &mut slot.wave,
            mem: &mut self.no_memory,
            lds: &mut group.lds,
            program: self.e.program,
            env: self.e.env,
        };
        let (addr, bytes) = crate::exec::lanes::scalar(&cx, d)?;
        let addr = state.placement.stable(addr, &mut 0);
        state.pending.push(Pending {
            seq,
            slot: s as u32,
            issued: now,
            known: now,
            vm: false,
            shared: Shared::Scalar { addr, bytes },
            resolved: PENDING,
        });
        Some(PENDING)
    }

    /// Sets the completion of every pending instruction that has been answered, as of the
    /// boundary `at`: in the wave's outstanding operations and the CU's requests, in issue
    /// order so that vector memory still returns in order, and wakes the waves that waited.
    pub fn settle_memory(&mut self, at: u64) {
        let Some(state) = self.memory.as_mut() else {
            return;
        };
        if !state.pending.iter().any(|p| p.resolved != PENDING) {
            return;
        }
        self.bulk_leave_all();
        let state = self.memory.as_mut().expect("checked");
        let mut woken = std::mem::take(&mut state.woken);
        // The completion of the last vector memory instruction of each slot settled here.
        let mut last = std::mem::take(&mut state.last);
        let mut kept = std::mem::take(&mut state.kept);
        let mut pending = std::mem::take(&mut state.pending);
        for p in pending.drain(..) {
            if p.resolved == PENDING {
                kept.push(p);
                continue;
            }
            let mut done = p.resolved;
            let slot = p.slot as usize;
            if p.vm {
                if let Some(&(_, prev)) = last.iter().find(|(s, _)| *s == slot) {
                    done = done.max(prev);
                }
            }
            // The wave may have ended meanwhile (its operations are gone; operations are
            // found by issue number).
            let alive = self.slots[slot].out.resolve(p.seq, done);
            if p.vm && alive {
                match last.iter_mut().find(|(s, _)| *s == slot) {
                    Some(e) => e.1 = done,
                    None => last.push((slot, done)),
                }
            }
            self.requests.resolve(p.seq, done);
            self.drain = self.drain.max(done);
            woken.push(slot);
        }
        let state = self.memory.as_mut().expect("checked");
        state.pending = kept;
        // Drained: its room serves the next settling, unless a burst (every wave's first
        // scalar loads at once) made it large, which would stay in the launch's later peak.
        if pending.capacity() <= KEPT_PENDING {
            state.kept = pending;
        }
        if state.pending.is_empty() {
            state.to_l2.clear();
        }
        for &(s, done) in &last {
            let still = state.pending.iter().any(|p| p.vm && p.slot as usize == s);
            if !still {
                self.slots[s].out.settle_last_vm(done);
            }
        }
        woken.sort_unstable();
        woken.dedup();
        for &s in &woken {
            let h = &mut self.hot[s];
            // Only a wave waiting for a pending operation waits for ever; it looks again.
            if matches!(h.block, Block::Ended | Block::Barrier) || h.ready_at != PENDING {
                continue;
            }
            h.ready_at = at;
            let simd = self.slots[s].simd;
            self.cu.wake(simd, at);
        }
        last.clear();
        woken.clear();
        let state = self.memory.as_mut().expect("checked");
        state.last = last;
        state.woken = woken;
        self.cu.next = self.cu.next.min(self.cu.first_turn(at).unwrap_or(u64::MAX));
    }
}

/// Answers, in (issue cycle, CU, issue number) order, every pending instruction of `sims`
/// issued before `stop`, from the shared memory system, then settles them.
pub fn resolve(
    shared: &mut SharedMemory,
    sims: &mut [CuSim],
    stop: u64,
    order: &mut Vec<(u64, usize, usize)>,
) {
    order.clear();
    for (c, s) in sims.iter().enumerate() {
        if let Some(m) = &s.memory {
            for (k, p) in m.pending.iter().enumerate() {
                if p.issued < stop && p.resolved == PENDING {
                    order.push((p.issued, c, k));
                }
            }
        }
    }
    if order.is_empty() {
        return;
    }
    order.sort_unstable();
    for &(_, c, k) in order.iter() {
        let cu = sims[c].cu.id as usize;
        let m = sims[c]
            .memory
            .as_mut()
            .expect("pending instructions have a memory state");
        let p = &m.pending[k];
        let done = match &p.shared {
            Shared::Vector { from, to } => {
                let mut done = p.known;
                for r in &m.to_l2[*from as usize..*to as usize] {
                    let at = shared.l2(cu, r);
                    m.l1.filled(r, at);
                    done = done.max(at);
                }
                done
            }
            Shared::Scalar { addr, bytes } => shared.scalar(cu, p.issued, *addr, *bytes),
        };
        m.pending[k].resolved = done;
    }
    for s in sims.iter_mut() {
        s.settle_memory(stop);
    }
}

#[cfg(test)]
mod tests {
    use super::Placement;

    /// Lanes in one allocation, spread over two, and partly outside every allocation name
    /// their addresses as one lane at a time does.
    #[test]
    fn stable_lanes_agree_with_one_lane_at_a_time() {
        let p = Placement::new(vec![
            (0x1000, 0x2000, 3),
            (0x2000, 0x2800, 7),
            (0x9000, 0x9100, 1),
        ]);
        let mut rng = crate::rng::Rng::new(11);
        for case in 0..2000 {
            let base = [0x1000, 0x1f00, 0x2700, 0x8f00, 0x9000][case % 5];
            let spread = [16, 0x200, 0x1000][case / 5 % 3];
            let mut lanes: Vec<(usize, u64)> = (0..1 + case % 64)
                .map(|l| (l, base + rng.below(spread)))
                .collect();
            let want: Vec<(usize, u64)> = lanes
                .iter()
                .map(|&(l, a)| (l, p.stable(a, &mut 0)))
                .collect();
            p.stable_lanes(&mut lanes);
            assert_eq!(lanes, want, "case {case}");
        }
    }

    /// A row moves as its lanes would, or is left to them when they might not move together.
    #[test]
    fn stable_row_agrees_with_its_lanes() {
        let p = Placement::new(vec![(0x1000, 0x2000, 3), (0x2000, 0x2800, 7)]);
        for (addr, count, bytes) in [
            (0x1000, 64, 4),
            (0x1f00, 64, 4),
            (0x1f00, 60, 4),
            (0x1ffc, 1, 4),
            (0x27c0, 16, 4),
            (0x27c0, 17, 4),
            (0x800, 64, 1),
        ] {
            let row = super::Row {
                first: 2,
                count,
                addr,
            };
            let mut lanes: Vec<(usize, u64)> = row.lanes(bytes).collect();
            p.stable_lanes(&mut lanes);
            match p.stable_row(&row, bytes) {
                Some(moved) => assert_eq!(moved.lanes(bytes).collect::<Vec<_>>(), lanes),
                // Only a row that leaves its allocation, or lies in none, is refused.
                None => {
                    assert!(addr + (count as u64 - 1) * bytes as u64 >= 0x2000 || addr < 0x1000)
                }
            }
        }
    }
}
