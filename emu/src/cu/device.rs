//! A timed launch: workgroups in dispatch order (x fastest) placed round-robin on the CUs that
//! have room, every CU stepped in global cycle order (a heap of next-event times, ties by CU
//! index, so runs are deterministic), new workgroups placed as old ones end.

use super::config::{Arbitration, TimingConfig};
use super::engine::{Block, Cu, Env, Group, Machine, WaveSlot};
use super::facts::Facts;
use super::inflight::Outstanding;
use super::occupancy::{occupancy, Demand, Occupancy};
use super::rng::Rng;
use super::stats::{LdsStats, StaleRead, StallReason, Stalls, TimingStats};
use super::trace::Trace;
use crate::device::Progress;
use crate::dispatch::{self, Launch};
use crate::exec::DispatchEnv;
use crate::lds::Lds;
use crate::memory::{AllocKind, Memory};
use crate::program::Program;
use crate::run::hazards::{HazardTable, RunHazards, Seen};
use crate::run::{Counts, Stop};
use crate::wave::Wave;
use gcn_loader::KernelDescriptor;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// What a timed launch needs.
pub struct TimedRun<'a> {
    pub program: &'a Program,
    pub facts: &'a [Facts],
    pub models: &'a HazardTable,
    pub desc: &'a KernelDescriptor,
    pub launch: &'a Launch,
    pub env: DispatchEnv,
    pub config: &'a TimingConfig,
    pub entry_index: u32,
    pub progress: Option<&'a Progress>,
}

/// How a timed launch failed.
#[derive(Debug)]
pub enum TimedError {
    /// A guest stop in workgroup `.1`.
    Guest(Stop, [u32; 3]),
    /// The launch cannot run at all (a workgroup does not fit on a CU, no memory for scratch).
    Launch(String),
}

/// The results of a timed launch.
pub struct TimedResult {
    pub stats: TimingStats,
    pub trace: Option<Trace>,
    pub hazards: Vec<Seen>,
}

/// Runs every workgroup of the launch under the timing model.
pub fn run_timed(
    r: &TimedRun,
    mem: &mut Memory,
    budget: &mut u64,
    counts: &mut Counts,
    hazards: Option<RunHazards>,
    pool: &mut Vec<WaveSlot>,
) -> Result<TimedResult, TimedError> {
    let waves_per_group = r.launch.waves_per_group();
    let demand = Demand::new(r.desc, waves_per_group, r.launch.lds_size);
    let occ = occupancy(&demand).ok_or_else(|| {
        TimedError::Launch(format!(
            "a workgroup of {} waves with {} VGPRs and {} SGPRs per wave and {} bytes of LDS does not fit on one compute unit",
            demand.waves, demand.vgprs, demand.sgprs, demand.lds
        ))
    })?;
    let config = r.config;
    if config.cus == 0 {
        return Err(TimedError::Launch(
            "the device needs at least one CU".into(),
        ));
    }
    let mut m = Machine {
        e: Env {
            program: r.program,
            facts: r.facts,
            models: r.models,
            env: &r.env,
            config,
            demand,
        },
        mem,
        slots: std::mem::take(pool),
        groups: Vec::new(),
        cus: (0..config.cus).map(Cu::new).collect(),
        budget: *budget,
        counts: Counts::default(),
        stalls: Stalls::default(),
        lds: LdsStats::default(),
        stale: HashMap::new(),
        rng: match config.arbitration {
            Arbitration::Random { seed } => Some(Rng::new(seed)),
            _ => None,
        },
        trace: config.trace.then(Trace::default),
        hazards,
        finished: Vec::new(),
        drain: 0,
    };
    let mut d = Dispatcher {
        r,
        total: r.launch.grid.iter().map(|&g| g as u64).product(),
        next_group: 0,
        done: 0,
        rr: 0,
        heap: BinaryHeap::new(),
        free_slots: Vec::new(),
        free_groups: Vec::new(),
        scratch_pool: Vec::new(),
        scratch_all: Vec::new(),
        age: 0,
        end: 0,
    };
    // Slots left by an earlier launch are free; the highest index is handed out first.
    d.free_slots = (0..m.slots.len()).rev().collect();
    let result = d.run(&mut m);
    for a in d.scratch_all.drain(..) {
        let _ = m.mem.free(a);
    }
    *budget = m.budget;
    counts.wave_instructions += m.counts.wave_instructions;
    for (a, b) in counts.by_category.iter_mut().zip(m.counts.by_category) {
        *a += b;
    }
    *pool = std::mem::take(&mut m.slots);
    result?;
    let end = d.end.max(m.drain + 1);
    let trace = m.trace.take();
    let hazards = m.hazards.take().map(|h| h.findings()).unwrap_or_default();
    Ok(TimedResult {
        stats: finish(m, occ, end),
        trace,
        hazards,
    })
}

fn finish(m: Machine, occ: Occupancy, end: u64) -> TimingStats {
    let cycles = end.max(1);
    let (wave_cycles, active) = m.cus.iter().fold((0u64, 0u64), |(w, a), cu| {
        (w + cu.wave_cycles, a + cu.active_cycles)
    });
    let mut stale: Vec<StaleRead> = m.stale.into_values().collect();
    stale.sort_by_key(|s| (s.consumer, s.load, s.access));
    TimingStats {
        cycles,
        cus: m.cus.len() as u32,
        cus_used: m.cus.iter().filter(|c| c.used).count() as u32,
        ipc: m.counts.wave_instructions as f64 / cycles as f64,
        occupancy: occ,
        achieved_waves_per_simd: wave_cycles as f64 / (4.0 * active.max(1) as f64),
        stalls: m.stalls,
        lds: m.lds,
        latencies: m.e.config.latencies,
        arbitration: m.e.config.arbitration,
        stale_reads: stale,
        cycles_per_second: 0.0,
    }
}

struct Dispatcher<'r, 'a> {
    r: &'r TimedRun<'a>,
    total: u64,
    next_group: u64,
    done: u64,
    rr: usize,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    free_slots: Vec<usize>,
    free_groups: Vec<usize>,
    /// Scratch regions of ended groups, for reuse, and every region allocated.
    scratch_pool: Vec<u64>,
    scratch_all: Vec<u64>,
    age: u64,
    /// One past the last cycle anything happened.
    end: u64,
}

impl Dispatcher<'_, '_> {
    fn run(&mut self, m: &mut Machine) -> Result<(), TimedError> {
        self.place(m, 0)?;
        while let Some(Reverse((mut t, c))) = self.heap.pop() {
            let c = c as usize;
            if m.cus[c].next != t || m.cus[c].stepped.is_some_and(|s| s >= t) {
                continue;
            }
            loop {
                m.step(c, t).map_err(|(s, g)| TimedError::Guest(s, g))?;
                self.end = self.end.max(t + 1);
                if !m.finished.is_empty() {
                    self.retire(m, t);
                    self.place(m, t + 1)?;
                }
                let next = m.next_event(c, t).unwrap_or(u64::MAX);
                // Still the earliest event (ties go to the lower CU, as the heap orders
                // them): step again without a round trip through the heap.
                let first = self
                    .heap
                    .peek()
                    .is_none_or(|Reverse(p)| (next, c as u32) < *p);
                if next != u64::MAX && first {
                    m.cus[c].next = next;
                    t = next;
                    continue;
                }
                self.schedule(m, c, next);
                break;
            }
        }
        if let Some(g) = m.groups.iter().position(|g| g.is_some()) {
            // Nothing can happen any more, yet waves remain: they wait for each other.
            let (stop, id) = m.deadlock(g);
            return Err(TimedError::Guest(stop, id));
        }
        if self.next_group < self.total {
            return Err(TimedError::Launch(
                "workgroups remain but none can be placed".into(),
            ));
        }
        Ok(())
    }

    fn schedule(&mut self, m: &mut Machine, c: usize, t: u64) {
        m.cus[c].next = t;
        if t != u64::MAX {
            self.heap.push(Reverse((t, c as u32)));
        }
    }

    /// Frees what the groups that ended hold.
    fn retire(&mut self, m: &mut Machine, now: u64) {
        for g in std::mem::take(&mut m.finished) {
            let group = m.groups[g].take().expect("finished group was resident");
            self.free_slots.extend(&group.slots);
            self.free_groups.push(g);
            if let Some(a) = group.scratch {
                self.scratch_pool.push(a);
            }
            self.done += 1;
            tracing::debug!(cycle = now, cu = group.cu, group = ?group.id, "workgroup done");
            self.end = self.end.max(now + 1);
            if let Some(p) = self.r.progress {
                p(self.done, self.total);
            }
        }
    }

    /// Places waiting workgroups, in order, on CUs with room, starting at cycle `now`.
    fn place(&mut self, m: &mut Machine, now: u64) -> Result<(), TimedError> {
        let cus = m.cus.len();
        while self.next_group < self.total {
            let mut placed = false;
            for k in 0..cus {
                let c = (self.rr + k) % cus;
                let start = m.cus[c].slots.len();
                let Some(simds) = m.cus[c].room.place(&m.e.demand, start) else {
                    continue;
                };
                let Some(scratch) = self.scratch(m)? else {
                    return Ok(());
                };
                self.start_group(m, c, &simds, scratch, now);
                self.rr = (c + 1) % cus;
                placed = true;
                break;
            }
            if !placed {
                break;
            }
        }
        Ok(())
    }

    /// Scratch for one more group: `Some(None)` if the kernel needs none, `None` if memory is
    /// short while other groups hold scratch (the group waits for one to end).
    fn scratch(&mut self, m: &mut Machine) -> Result<Option<Option<u64>>, TimedError> {
        let l = self.r.launch;
        let bytes = l.scratch_per_wave * l.waves_per_group() as u64;
        if bytes == 0 {
            return Ok(Some(None));
        }
        if let Some(a) = self.scratch_pool.pop() {
            return Ok(Some(Some(a)));
        }
        match m.mem.alloc(bytes, AllocKind::Scratch) {
            Ok(a) => {
                self.scratch_all.push(a);
                Ok(Some(Some(a)))
            }
            Err(_) if !self.scratch_all.is_empty() => Ok(None),
            Err(e) => Err(TimedError::Launch(format!(
                "no device memory for one workgroup's scratch ({bytes} bytes): {e}"
            ))),
        }
    }

    fn start_group(
        &mut self,
        m: &mut Machine,
        c: usize,
        simds: &[u8],
        scratch: Option<u64>,
        now: u64,
    ) {
        let l = self.r.launch;
        let n = self.next_group;
        self.next_group += 1;
        let (gx, gy) = (l.grid[0] as u64, l.grid[1] as u64);
        let id = [
            (n % gx) as u32,
            (n / gx % gy) as u32,
            (n / (gx * gy)) as u32,
        ];
        tracing::debug!(cycle = now, cu = c, group = ?id, waves = simds.len(), "workgroup placed");
        let mut launch = l.clone();
        launch.scratch_base = scratch.unwrap_or(0);
        let g = match self.free_groups.pop() {
            Some(g) => g,
            None => {
                m.groups.push(None);
                m.groups.len() - 1
            }
        };
        let demand = m.e.demand;
        let cu = &mut m.cus[c];
        cu.integrate(now);
        cu.room.take(&demand, simds);
        let first_use = !cu.used;
        cu.used = true;
        let mut slots = Vec::with_capacity(simds.len());
        for (i, &simd) in simds.iter().enumerate() {
            let s = match self.free_slots.pop() {
                Some(s) => s,
                None => {
                    m.slots.push(new_slot());
                    m.slots.len() - 1
                }
            };
            let w = &mut m.slots[s];
            w.wave.reset(i as u32, demand.vgprs as usize);
            dispatch::init_wave(&mut w.wave, self.r.desc, &launch, id, i as u32);
            w.wave.pc = self.r.entry_index;
            w.cu = c as u32;
            w.simd = simd;
            w.group = g;
            w.age = self.age;
            self.age += 1;
            w.prio = 0;
            w.ready_at = now;
            w.block = Block::None;
            w.out.clear();
            w.reason = StallReason::Issue;
            w.since = now;
            w.trace = None;
            cu.wake(simd, now);
            cu.simd_slots[simd as usize].push(s);
            if let Some(tr) = &mut m.trace {
                if first_use && i == 0 {
                    tr.name_cu(c as u32);
                }
                tr.name_wave(
                    c as u32,
                    w.age,
                    format!("wg({},{},{}) wave {i}", id[0], id[1], id[2]),
                );
                tr.switch(&mut w.trace, c as u32, w.age, "executing", now);
            }
            if let Some(h) = &mut m.hazards {
                h.reset_slot(s);
            }
            cu.slots.push(s);
            slots.push(s);
        }
        m.groups[g] = Some(Group {
            id,
            lds: Lds::new(l.lds_size),
            slots,
            alive: simds.len() as u32,
            cu: c as u32,
            scratch,
            barrier_since: u64::MAX,
        });
        let t = simds
            .iter()
            .map(|&s| super::engine::turn(now, s))
            .min()
            .unwrap_or(now);
        if t < m.cus[c].next {
            self.schedule(m, c, t);
        }
    }
}

fn new_slot() -> WaveSlot {
    WaveSlot {
        wave: Wave::new(0),
        cu: 0,
        simd: 0,
        group: 0,
        age: 0,
        prio: 0,
        ready_at: 0,
        block: Block::Ended,
        out: Outstanding::default(),
        reason: StallReason::Issue,
        since: 0,
        trace: None,
    }
}
