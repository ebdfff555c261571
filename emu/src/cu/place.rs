//! Starting a workgroup on a CU: its waves get slots (reusing the VGPR files of earlier ones),
//! the initial registers of the dispatch ABI, SIMDs, and an LDS.

use super::engine::{Block, CuSim, Group, Hot, WaveSlot};
use super::inflight::Outstanding;
use super::stats::StallReason;
use crate::dispatch::{self, Launch};
use crate::lds::Lds;
use crate::wave::{Vgprs, Wave};
use gcn_loader::KernelDescriptor;

/// What every workgroup of a launch starts from.
pub struct Start<'a> {
    pub desc: &'a KernelDescriptor,
    pub launch: &'a Launch,
    pub entry_index: u32,
}

impl CuSim<'_> {
    /// Starts workgroup `id` on this CU at cycle `now`, its waves on `simds`, with scratch at
    /// `scratch`; `age` numbers the waves in dispatch order (their trace tracks); new slots come
    /// from `spare` (slots of earlier launches) before being allocated.
    #[allow(clippy::too_many_arguments)] // what a placement needs, each from another owner
    pub fn start_group(
        &mut self,
        start: &Start,
        id: [u32; 3],
        simds: &[u8],
        scratch: Option<u64>,
        age: &mut u64,
        spare: &mut SlotPool,
        now: u64,
    ) {
        let c = self.cu.id;
        tracing::debug!(cycle = now, cu = c, group = ?id, waves = simds.len(), "workgroup placed");
        let mut launch = start.launch.clone();
        launch.scratch_base = scratch.unwrap_or(0);
        let g = match self.free_groups.pop() {
            Some(g) => g,
            None => {
                self.groups.push(None);
                self.groups.len() - 1
            }
        };
        let demand = self.e.demand;
        self.cu.integrate(now);
        self.cu.room.take(&demand, simds);
        let first_use = !self.cu.used;
        self.cu.used = true;
        let mut slots = Vec::with_capacity(simds.len());
        // A SIMD's waves leave the bulk before new ones join them.
        for &simd in simds.iter() {
            self.bulk_leave(simd);
        }
        for (i, &simd) in simds.iter().enumerate() {
            let s = match self.free_slots.pop() {
                Some(s) => s,
                None => {
                    // Grown by the group's waves, not doubled and not sized for a full CU at
                    // once: a launch of fewer waves than the CUs hold (collatz's 16 a CU where
                    // 40 fit) holds slots only for those.
                    let more = simds.len() - i;
                    self.slots.reserve_exact(more);
                    self.hot.reserve_exact(more);
                    self.aheads.reserve_exact(more);
                    self.slots.push(spare.pop().unwrap_or_else(new_slot));
                    self.hot.push(Hot::FREE);
                    self.aheads.push(Default::default());
                    self.slots.len() - 1
                }
            };
            let w = &mut self.slots[s];
            w.wave.reset(i as u32, demand.file);
            dispatch::init_wave(&mut w.wave, start.desc, &launch, id, i as u32);
            w.wave.pc = start.entry_index;
            // (A wave ends at s_endpgm, which never runs ahead, so its queue is empty; kept
            // exact anyway.)
            self.aheads[s].clear();
            if self.hot[s].ahead {
                self.queued -= 1;
            }
            w.cu = c;
            w.simd = simd;
            w.group = g;
            w.age = *age;
            *age += 1;
            self.hot[s] = Hot {
                ready_at: now,
                since: now,
                reason: StallReason::Issue,
                block: Block::None,
                prio: 0,
                ahead: false,
            };
            w.out.clear(&mut self.spare);
            w.trace = None;
            self.cu.wake(simd, now);
            self.cu.simd_slots[simd as usize].push(s);
            if let Some(tr) = &mut self.trace {
                if first_use && i == 0 {
                    tr.name_cu(c);
                }
                let name = format!("wg({},{},{}) wave {i}", id[0], id[1], id[2]);
                tr.name_wave(c, w.age, name);
                tr.switch(&mut w.trace, c, w.age, "executing", now);
            }
            if let Some(h) = &mut self.hazards {
                h.reset_slot(s);
            }
            self.cu.slots.push(s);
            slots.push(s);
        }
        self.groups[g] = Some(Group {
            id,
            lds: Lds::for_group(start.launch.lds_size, id).with_waves(simds.len() as u32),
            slots,
            alive: simds.len() as u32,
            cu: c,
            scratch,
            barrier_since: u64::MAX,
            outstanding: 0,
            lds_requests: 0,
            retired: false,
            ended_at: u64::MAX,
        });
    }

    /// Frees the storage of a finished group (its slots and index), returning its scratch.
    pub fn release(&mut self, g: usize) -> Option<Group> {
        let group = self.groups[g].take()?;
        self.free_slots.extend(&group.slots);
        self.free_groups.push(g);
        Some(group)
    }
}

/// A slot holding no wave yet.
pub fn new_slot() -> WaveSlot {
    WaveSlot {
        wave: Wave::with_vgprs(0, 0),
        cu: 0,
        simd: 0,
        group: 0,
        age: 0,
        out: Outstanding::default(),
        trace: None,
    }
}

/// The VGPR files of earlier launches' waves (a wave's largest part), for new slots to reuse:
/// each of a launch's slots comes with a file from here before one is allocated. Only the
/// files are kept, not the slots: a launch allocates its CUs' vectors of slots at its start,
/// and slots kept whole would be held twice until placements had taken them all. Files come
/// out in the order of the launch that left them, its last CU's last wave first.
#[derive(Default)]
pub struct SlotPool {
    files: Vec<Vgprs>,
}

impl SlotPool {
    /// A slot holding no wave yet, with a file of an earlier launch if any is left.
    pub fn pop(&mut self) -> Option<WaveSlot> {
        let file = self.files.pop()?;
        let mut slot = new_slot();
        slot.wave.vgpr = file;
        Some(slot)
    }

    /// Keeps the files of a CU's slots for the next launch.
    pub fn put(&mut self, slots: Vec<WaveSlot>) {
        self.files.extend(slots.into_iter().map(|s| s.wave.vgpr));
    }
}
