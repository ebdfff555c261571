//! A timed launch in windows of cycles. Between windows: the memory requests completing in
//! the next window run in (cycle, CU, issue) order ([`super::deferred`]; loads of different
//! CUs between two writes on the worker threads, [`super::beside`]), ended workgroups are
//! retired and waiting ones placed round-robin on CUs with room, on one thread. Within a
//! window every CU steps its own cycles — on as many threads as configured — touching only its
//! own waves and LDS. Every decision depends on simulated state only, so a run gives the same
//! results and statistics for any thread count.

use super::beside::{self, Beside};
use super::config::{Arbitration, TimingConfig};
use super::deferred::{self, Request, Shared};
use super::engine::{Block, Cu, CuSim, Env};
use super::facts::InstTiming;
use super::lead::LeadRules;
use super::occupancy::{occupancy, Demand, Occupancy};
use super::place::{SlotPool, Start};
use super::profile::{Clock, Counters, HostProfile, Part};
use super::stats::{LdsStats, StaleRead, Stalls, TimingStats, STALL_REASONS};
use super::trace::Trace;
use crate::dispatch::Launch;
use crate::exec::program::Program;
use crate::exec::DispatchEnv;
use crate::launch::hazards::{HazardMode, HazardTable, RunHazards, Seen};
use crate::launch::Progress;
use crate::launch::{Counts, Stop};
use crate::memory::{AllocKind, Memory};
use crate::rng::Rng;
use crate::wave::spin::{Epoch, Spinner};
use crate::wave::Wave;
use gcn_loader::KernelDescriptor;
use std::collections::HashMap;

/// What a timed launch needs.
pub struct TimedRun<'a> {
    pub program: &'a Program,
    pub facts: &'a [InstTiming],
    pub models: &'a HazardTable,
    /// As [`crate::launch::hazards::Cover::UntilLeaving`] (`None`: check every instruction).
    pub leaves: Option<&'a crate::launch::hazards::Leaves>,
    pub desc: &'a KernelDescriptor,
    pub launch: &'a Launch,
    pub env: DispatchEnv,
    pub config: &'a TimingConfig,
    /// The code the run-ahead runs once it is hot ([`super::ahead`]; `None`: interpreted).
    pub ahead_code: Option<std::sync::Arc<crate::exec::compiled::HotRegion>>,
    pub entry_index: u32,
    pub progress: Option<Progress<'a>>,
    /// The wall-clock time after which the launch stops with [`Stop::Timeout`].
    pub deadline: Option<std::time::Instant>,
    /// A cooperative launch: the whole grid must be resident at once.
    pub cooperative: bool,
}

/// Windows a CU may run ahead of the dispatcher at most ([`super::lead`]): bounds how long the
/// livelock check and the budget's exact count wait for the CUs to line up.
const LEAD_WINDOWS: u64 = 256;

/// Windows between looks at the clock (a window is a few cycles of every CU).
const CLOCK_WINDOWS: u64 = 64;

/// Windows between looks for a livelock once a wave has been found spinning: a livelock lasts,
/// so looking now and then finds it as surely as looking every window.
const SPIN_WINDOWS: u64 = 16;

/// Most instructions one CU can issue in a cycle (one per unit: VALU, scalar, branch, vector
/// memory, LDS, export, with room to spare): near the end of the budget, windows log their
/// issues so the one that exhausts it is found exactly.
const MAX_ISSUES_PER_CYCLE: u64 = 8;

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
    /// Where the host's time went, when [`TimingConfig::host_profile`] asked.
    pub profile: Option<HostProfile>,
}

/// Runs every workgroup of the launch under the timing model. `pool` holds the VGPR files of wave slots kept
/// from earlier launches (and gets them back).
pub fn run_timed(
    r: &TimedRun,
    mem: &mut Memory,
    budget: &mut u64,
    counts: &mut Counts,
    hazards: HazardMode,
    pool: &mut SlotPool,
    host: Option<&mut (dyn crate::launch::host::HostServices + Send)>,
) -> Result<TimedResult, TimedError> {
    let waves_per_group = r.launch.waves_per_group();
    let demand = Demand::new(r.desc, r.program.target, waves_per_group, r.launch.lds_size);
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
    let groups = r.launch.grid.iter().map(|&g| g as u64).product::<u64>();
    let resident = occ.workgroups_per_cu as u64 * config.cus as u64;
    if r.cooperative && groups > resident {
        return Err(TimedError::Launch(format!(
            "a cooperative grid of {groups} workgroups does not fit at once: {} CUs hold {} workgroups each (limited by {})",
            config.cus,
            occ.workgroups_per_cu,
            occ.limiter.name()
        )));
    }
    let env = Env {
        program: r.program,
        facts: r.facts,
        models: r.models,
        leaves: r.leaves,
        env: &r.env,
        config,
        demand,
        ahead_code: r.ahead_code.as_deref(),
    };
    // Where the launch's buffers are, for the caches to see them by allocation and offset.
    let placement = std::sync::Arc::new(match config.memory {
        Some(_) => super::memory::Placement::new(mem.serials()),
        None => super::memory::Placement::default(),
    });
    let mut sims: Vec<CuSim> = (0..config.cus)
        .map(|c| new_sim(&env, c, hazards, mem.gws_only(), &placement))
        .collect();
    let threads = config.threads.clamp(1, 256);
    let workers = if threads > 1 {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| TimedError::Launch(format!("cannot start {threads} threads: {e}")))?,
        )
    } else {
        None
    };
    let mut d = Dispatcher {
        r,
        start: Start {
            desc: r.desc,
            launch: r.launch,
            entry_index: r.entry_index,
        },
        total: r.launch.grid.iter().map(|&g| g as u64).product(),
        next_group: 0,
        done: 0,
        rr: 0,
        scratch_pool: Vec::new(),
        scratch_all: Vec::new(),
        age: 0,
        spare: std::mem::take(pool),
        budget: *budget,
        due: Vec::new(),
        order: Vec::new(),
        counts: Vec::new(),
        sorted: Vec::new(),
        beside: Beside::default(),
        prof: Counters::new(config.host_profile),
        hierarchy: config.memory.and_then(|target| {
            let params = crate::memsys::params(target)?;
            let mut caches = mem.take_caches(target, config.cus).unwrap_or_else(|| {
                let clock = crate::board::board(target).clock_khz;
                Box::new(crate::memsys::SharedMemory::new(
                    params,
                    config.cus as usize,
                    clock,
                ))
            });
            caches.new_launch(crate::board::board(target).clock_khz);
            Some(caches)
        }),
        pending: Vec::new(),
    };
    if let (true, Some(caches)) = (config.trace, d.hierarchy.as_deref_mut()) {
        caches.timeline = Some(crate::memsys::timeline::Timeline::new(
            super::trace::MEMORY_SAMPLE_CYCLES,
        ));
    }
    let mut shared = Shared {
        program: r.program,
        env: &r.env,
        mem,
        scratch: Box::new(Wave::new(0)),
    };
    let clock = Clock::start();
    let result = match &workers {
        // The windows run from a worker thread: splitting each window's CUs between the
        // threads is then a join among workers, not a job sent into the pool and waited for.
        Some(pool) => pool.install(|| d.run(&mut sims, &mut shared, Some(pool), host)),
        None => d.run(&mut sims, &mut shared, None, host),
    };
    for a in d.scratch_all.drain(..) {
        let _ = shared.mem.free(a);
    }
    // Queues' positions and waves' records held in the bulk are written back.
    for s in &mut sims {
        s.bulk_leave_all();
    }
    let timeline = d.hierarchy.as_deref_mut().and_then(|c| c.timeline.take());
    // What the memory hierarchy counted; its shared caches stay for the next launch.
    let memory = d.hierarchy.take().map(|caches| {
        let mut counters = caches.counters.clone();
        for s in sims.iter().filter_map(|s| s.memory.as_ref()) {
            counters.add(&s.l1.counters);
        }
        if let Some(target) = config.memory {
            shared.mem.keep_caches(target, config.cus, caches);
        }
        counters
    });
    let issued: u64 = sims.iter().map(|s| s.issued).sum();
    *budget = budget.saturating_sub(issued);
    for s in &sims {
        counts.add(&s.counts);
    }
    // The slots' VGPR files go back to the pool for the next launch.
    *pool = std::mem::take(&mut d.spare);
    for s in &mut sims {
        pool.put(std::mem::take(&mut s.slots));
    }
    let end = result?;
    let profile = config.host_profile.then(|| {
        let mut all = d.prof.clone();
        for s in &sims {
            all.absorb(&s.prof);
        }
        clock.profile(&all, sims.iter().map(|s| s.issued).sum())
    });
    let (mut stats, mut trace, hazards) = finish(sims, occ, end);
    if let (Some(t), Some(timeline), Some(target)) = (trace.as_mut(), timeline, config.memory) {
        // The memory system's tracks: a process after the CUs', up to the launch's end.
        let clock = crate::board::board(target).clock_khz;
        for (i, sample) in timeline.samples.iter().enumerate() {
            let from = i as u64 * timeline.bucket;
            // The last stretch ends with the launch (writes still queued may go out later).
            let end = from + timeline.bucket;
            let to = if (from + 1..end).contains(&stats.cycles) {
                stats.cycles
            } else {
                end
            };
            t.memory_sample(config.cus, from, to, *sample, clock);
        }
    }
    stats.memory = memory;
    Ok(TimedResult {
        stats,
        trace,
        hazards,
        profile,
    })
}

/// CU `c`'s simulation.
fn new_sim<'a>(
    env: &'a Env<'a>,
    c: u32,
    hazards: HazardMode,
    no_memory: Memory,
    placement: &std::sync::Arc<super::memory::Placement>,
) -> CuSim<'a> {
    CuSim {
        e: env,
        cu: Cu::new(c, env.demand.vgprs_per_simd),
        // Grown as workgroups are placed ([`CuSim::start_group`]).
        slots: Vec::new(),
        hot: Vec::new(),
        groups: Vec::new(),
        free_slots: Vec::new(),
        free_groups: Vec::new(),
        counts: Counts::default(),
        stalls: Stalls::default(),
        lds: LdsStats::default(),
        stale: HashMap::new(),
        // Each CU draws from its own stream, so the draws do not depend on thread timing.
        rng: match env.config.arbitration {
            Arbitration::Random { seed } => Some(Rng::new(
                seed ^ (c as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            )),
            _ => None,
        },
        trace: env.config.trace.then(Trace::default),
        hazards: match hazards {
            HazardMode::Off => None,
            mode => Some(RunHazards::new(mode, env.models, 0, env.leaves)),
        },
        finished: Vec::new(),
        drain: 0,
        requests: Default::default(),
        snapshots: Vec::new(),
        spare: Vec::new(),
        seq: 0,
        issued: 0,
        last_issued: (0, 0, [0; 3]),
        log_issues: false,
        issue_log: Vec::new(),
        no_memory,
        mem_epoch: 0,
        spin_seen: false,
        window_stop: 0,
        lead_until: 0,
        held: None,
        bulk: Default::default(),
        aheads: Vec::new(),
        queued: 0,
        barrier_min: u64::MAX,
        bulk_window: false,
        bulk_retry: [0; super::occupancy::SIMDS],
        bulk_backoff: [0; super::occupancy::SIMDS],
        prof: Counters::new(env.config.host_profile),
        cut: Default::default(),
        memory: env.config.memory.and_then(crate::memsys::params).map(|p| {
            let l1 = crate::memsys::CuMemory::new(p);
            super::memory::CuMemoryState::new(l1, placement.clone())
        }),
    }
}

/// Merges the CUs' figures into the launch's.
fn finish(sims: Vec<CuSim>, occ: Occupancy, end: u64) -> (TimingStats, Option<Trace>, Vec<Seen>) {
    let first = &sims[0];
    let config = first.e.config;
    let drain = sims.iter().map(|s| s.drain + 1).max().unwrap_or(0);
    let cycles = end.max(drain).max(1);
    let (mut wave_cycles, mut active) = (0u64, 0u64);
    let mut stalls = Stalls::default();
    let mut lds = LdsStats::default();
    let mut stale: HashMap<(u32, u32, &'static str), StaleRead> = HashMap::new();
    let mut trace = config.trace.then(Trace::default);
    let mut seen: HashMap<(&'static str, u32), Seen> = HashMap::new();
    let mut instructions = 0;
    let cus_used = sims.iter().filter(|s| s.cu.used).count() as u32;
    for s in sims {
        wave_cycles += s.cu.wave_cycles;
        active += s.cu.active_cycles;
        for i in 0..STALL_REASONS.len() {
            stalls.cycles[i] += s.stalls.cycles[i];
        }
        lds.instructions += s.lds.instructions;
        lds.bank_cycles += s.lds.bank_cycles;
        lds.conflict_cycles += s.lds.conflict_cycles;
        instructions += s.counts.wave_instructions;
        // CUs in index order: the first one to see a finding names where it was seen.
        for (k, v) in s.stale {
            stale.entry(k).and_modify(|e| e.hits += v.hits).or_insert(v);
        }
        if let (Some(all), Some(t)) = (&mut trace, s.trace) {
            all.absorb(t);
        }
        for f in s.hazards.map(|h| h.findings()).unwrap_or_default() {
            seen.entry((f.rule.id, f.consumer))
                .and_modify(|e| e.hits += f.hits)
                .or_insert(f);
        }
    }
    let mut stale: Vec<StaleRead> = stale.into_values().collect();
    stale.sort_by_key(|s| (s.consumer, s.load, s.access));
    let mut hazards: Vec<Seen> = seen.into_values().collect();
    hazards.sort_by_key(|s| (s.consumer, s.rule.id));
    let stats = TimingStats {
        cycles,
        cus: config.cus,
        cus_used,
        ipc: instructions as f64 / cycles as f64,
        occupancy: occ,
        achieved_waves_per_simd: wave_cycles as f64 / (4.0 * active.max(1) as f64),
        stalls,
        lds,
        latencies: config.latencies,
        arbitration: config.arbitration,
        stale_reads: stale,
        cycles_per_second: 0.0,
        memory: None,
    };
    (stats, trace, hazards)
}

struct Dispatcher<'r, 'a> {
    r: &'r TimedRun<'a>,
    start: Start<'a>,
    total: u64,
    next_group: u64,
    done: u64,
    rr: usize,
    /// Scratch regions of ended groups, for reuse, and every region allocated.
    scratch_pool: Vec<u64>,
    scratch_all: Vec<u64>,
    age: u64,
    spare: SlotPool,
    budget: u64,
    /// The requests due in a window and their run order, kept for the next window.
    due: Vec<Option<(usize, Request)>>,
    order: Vec<(u64, usize)>,
    /// [`sort_by_cycle`]'s buffers, kept likewise.
    counts: Vec<u32>,
    sorted: Vec<(u64, usize)>,
    /// Runs of requests shared among the threads.
    beside: Beside,
    /// Host time by part, when asked for ([`super::profile`]).
    prof: Counters,
    /// The shared part of the memory hierarchy (`None`: fixed latencies), and the order in
    /// which a window's pending instructions reach it.
    hierarchy: Option<Box<crate::memsys::SharedMemory>>,
    pending: Vec<(u64, usize, usize)>,
}

impl Dispatcher<'_, '_> {
    /// Runs windows until every workgroup has ended; returns the cycle after the last one. A
    /// launch that stops counts what the CUs issued up to where the dispatcher stopped
    /// ([`super::cut`]).
    fn run(
        &mut self,
        sims: &mut [CuSim],
        shared: &mut Shared,
        workers: Option<&rayon::ThreadPool>,
        host: Option<&mut (dyn crate::launch::host::HostServices + Send)>,
    ) -> Result<u64, TimedError> {
        let mut reached = 0;
        let result = self.run_windows(sims, shared, workers, host, &mut reached);
        if result.is_err() {
            for s in sims.iter_mut() {
                s.cut_at_boundary(reached);
            }
        }
        result
    }

    /// [`Dispatcher::run`]'s windows; `reached` is the boundary up to which every CU that did
    /// not stop has run when they stop.
    fn run_windows(
        &mut self,
        sims: &mut [CuSim],
        shared: &mut Shared,
        workers: Option<&rayon::ThreadPool>,
        mut host: Option<&mut (dyn crate::launch::host::HostServices + Send)>,
        reached: &mut u64,
    ) -> Result<u64, TimedError> {
        let window = self.r.config.window();
        let mut t = 0u64;
        let mut end = 0u64;
        let mut windows = 0u64;
        loop {
            windows += 1;
            *reached = t;
            if let Some(deadline) = self.r.deadline {
                if windows.is_multiple_of(CLOCK_WINDOWS) && std::time::Instant::now() >= deadline {
                    sims.iter_mut().for_each(|s| s.bulk_leave_all());
                    let waves = sims.iter().flat_map(|s| s.waves_at()).collect();
                    return Err(TimedError::Guest(Stop::Timeout { waves }, [0; 3]));
                }
            }
            let stop = t + window;
            let start = self.prof.start();
            self.run_requests(sims, shared, t, stop, workers.is_some())?;
            self.prof.stop(Part::Requests, start);
            // Hostcall packets pushed by this window's memory operations are answered before
            // the waves spinning on them run again.
            if let Some(h) = host.as_deref_mut() {
                h.poll(shared.mem).map_err(|why| {
                    let fault = crate::fault::Fault::Guest(format!("hostcall: {why}"));
                    let stop = Stop::Fault {
                        wave: 0,
                        index: self.r.entry_index,
                        fault,
                    };
                    TimedError::Guest(stop, [0, 0, 0])
                })?;
            }
            // Running requests can finish a group whose waves had already ended.
            self.retire(sims, t);
            self.place(sims, shared.mem, t)?;
            let spin_seen = sims.iter().any(|s| s.spin_seen);
            // (Not while a CU runs ahead: the waves must be looked at as of one cycle.)
            if windows.is_multiple_of(SPIN_WINDOWS)
                && spin_seen
                && sims.iter().all(|s| s.lead_until <= t)
            {
                if let Some((stop, group)) = livelock(sims, shared.mem.writes()) {
                    return Err(TimedError::Guest(stop, group));
                }
            }
            let left = self
                .budget
                .saturating_sub(sims.iter().map(|s| s.issued).sum());
            let near = left <= window * sims.len() as u64 * MAX_ISSUES_PER_CYCLE;
            let mem_epoch = shared.mem.writes();
            for s in sims.iter_mut() {
                s.issue_log.clear();
                s.log_issues = near;
                s.mem_epoch = mem_epoch;
            }
            // CUs may run windows ahead (`lead`) where nothing records the order of issues
            // across CUs, no host answers the waves, no sanitizer looks at requests (the race
            // check reads their waves' barrier counts as they run), no wave spins, and the
            // budget is far: further than every CU can issue in the longest lead. And on one
            // thread only: on several, a window waits for the longest lead of its CUs, and the
            // threads idle (the bench's mandelbrot on two threads was slower with them).
            let leads = self.r.config.ahead
                && workers.is_none()
                && host.is_none()
                && !shared.mem.checking()
                && !spin_seen
                && sims[0].trace.is_none()
                && sims[0].hazards.is_none()
                && !tracing::enabled!(tracing::Level::TRACE)
                && left / 2
                    > (LEAD_WINDOWS + 1) * window * sims.len() as u64 * MAX_ISSUES_PER_CYCLE;
            let rules = leads.then_some(LeadRules {
                window,
                until: stop + LEAD_WINDOWS * window,
                waiting: self.next_group < self.total,
            });
            let start = self.prof.start();
            *reached = stop;
            run_window(sims, t, stop, workers, rules)?;
            self.prof.stop(Part::Windows, start);
            // What this window's memory instructions wait for from the shared caches.
            if let Some(caches) = self.hierarchy.as_deref_mut() {
                super::memory::resolve(caches, sims, stop, &mut self.pending);
            }
            // A lead that ended here: its groups whose last wave ended in it finish now.
            for s in sims.iter_mut().filter(|s| s.lead_until == stop) {
                s.settle();
            }
            // Groups that ended free their CU for the next window's placements.
            self.retire(sims, stop);
            self.place(sims, shared.mem, stop)?;
            let issued: u64 = sims.iter().map(|s| s.issued).sum();
            if issued > self.budget {
                let (wave, index, group) = exhausting_issue(sims, left);
                return Err(TimedError::Guest(Stop::Budget { wave, index }, group));
            }
            for s in sims.iter() {
                if let Some(last) = s.cu.stepped {
                    end = end.max(last + 1);
                }
            }
            let resident = sims.iter().any(|s| s.groups.iter().any(|g| g.is_some()));
            let requests = sims.iter().filter_map(|s| s.requests.first_done()).min();
            if !resident && requests.is_none() && self.next_group >= self.total {
                return Ok(end);
            }
            // The next window with something in it (windows stay aligned to `window`), and the
            // last window of each lead, at whose end the dispatcher may retire and place.
            let leads_end = sims
                .iter()
                .filter(|s| s.lead_until > stop)
                .map(|s| s.lead_until - window);
            let next = sims
                .iter()
                .map(|s| s.cu.next)
                .chain(leads_end)
                .chain(requests)
                .min()
                .unwrap_or(u64::MAX);
            if next == u64::MAX {
                if self.next_group < self.total && !resident {
                    return Err(TimedError::Launch(
                        "workgroups remain but none can be placed".into(),
                    ));
                }
                // Waves remain but none can ever issue again and nothing is in flight.
                let (c, g) = sims
                    .iter()
                    .enumerate()
                    .find_map(|(c, s)| s.groups.iter().position(|g| g.is_some()).map(|g| (c, g)))
                    .expect("a resident group");
                let (stop, id) = sims[c].deadlock(g);
                return Err(TimedError::Guest(stop, id));
            }
            t = stop.max(next - next % window);
        }
    }

    /// Runs, in (completion cycle, CU, issue) order, every request completing in the window
    /// `[start, stop)` (none completes earlier).
    fn run_requests(
        &mut self,
        sims: &mut [CuSim],
        shared: &mut Shared,
        start: u64,
        stop: u64,
        workers: bool,
    ) -> Result<(), TimedError> {
        let parallel = workers && beside::allowed(shared.mem);
        // Each CU's requests come in (completion, issue) order, so gathering them CU by CU and
        // sorting by completion cycle alone, keeping ties in place, gives the order. The keys are
        // sorted, not the requests.
        let (due, order) = (&mut self.due, &mut self.order);
        due.clear();
        order.clear();
        for (c, s) in sims.iter_mut().enumerate() {
            s.requests.take_due(stop, |q| {
                order.push((q.done, due.len()));
                due.push(Some((c, q)));
            });
        }
        sort_by_cycle(order, &mut self.counts, &mut self.sorted);
        let (sorted, beside) = (&self.sorted, &mut self.beside);
        let guest = |(s, g)| TimedError::Guest(s, g);
        let weight = |due: &[Option<(usize, Request)>], sims: &[CuSim], k: usize| {
            let (c, q) = due[k].as_ref().expect("not run yet");
            beside::weight(&sims[*c], q)
        };
        let mut i = 0;
        while i < sorted.len() {
            // The requests from `i` that do not write device memory: run by CU on the worker
            // threads if they weigh enough (`beside`), else one by one.
            let (mut j, mut loads) = (i, 0);
            if parallel {
                while let Some(w) = sorted.get(j).and_then(|&(_, k)| weight(due, sims, k)) {
                    loads += w;
                    j += 1;
                }
            }
            if loads >= beside::MIN_RUN {
                let run = sorted[i..j]
                    .iter()
                    .map(|&(_, k)| due[k].take().expect("each request runs once"));
                beside.run(sims, shared, run, start).map_err(guest)?;
                i = j;
                continue;
            }
            for &(_, k) in &sorted[i..j.max(i + 1)] {
                let (c, q) = due[k].take().expect("each request runs once");
                deferred::run(shared, &mut sims[c], q, start).map_err(guest)?;
            }
            i = j.max(i + 1);
        }
        // Kept for the next window, unless a burst (every wave's first loads at once) made
        // them large: they would stay in every later peak of the heap.
        for v in [&mut self.order, &mut self.sorted] {
            v.clear();
            v.shrink_to(KEPT_REQUESTS);
        }
        self.due.clear();
        self.due.shrink_to(KEPT_REQUESTS);
        Ok(())
    }

    /// Frees what the groups that ended hold.
    fn retire(&mut self, sims: &mut [CuSim], now: u64) {
        // A CU that ran ahead has its groups retired when the dispatcher reaches its lead's end.
        for s in sims.iter_mut().filter(|s| s.lead_until <= now) {
            for g in std::mem::take(&mut s.finished) {
                let Some(group) = s.release(g) else { continue };
                if let Some(a) = group.scratch {
                    self.scratch_pool.push(a);
                }
                self.done += 1;
                tracing::debug!(cycle = now, cu = group.cu, group = ?group.id, "workgroup done");
                if let Some(p) = self.r.progress {
                    p(self.done, self.total);
                }
            }
        }
    }

    /// Places waiting workgroups, in order, on CUs with room, starting at cycle `now`.
    fn place(&mut self, sims: &mut [CuSim], mem: &mut Memory, now: u64) -> Result<(), TimedError> {
        let cus = sims.len();
        let demand = sims[0].e.demand;
        while self.next_group < self.total {
            let mut placed = false;
            for k in 0..cus {
                let c = (self.rr + k) % cus;
                // A CU running ahead had no room as of `now` (`lead`).
                if sims[c].lead_until > now {
                    continue;
                }
                let start = sims[c].cu.slots.len();
                let Some(simds) = sims[c].cu.room.place(&demand, start) else {
                    continue;
                };
                let Some(scratch) = self.scratch(mem)? else {
                    return Ok(());
                };
                let l = self.r.launch;
                let n = self.next_group;
                self.next_group += 1;
                let (gx, gy) = (l.grid[0] as u64, l.grid[1] as u64);
                let id = [
                    (n % gx) as u32,
                    (n / gx % gy) as u32,
                    (n / (gx * gy)) as u32,
                ];
                let sim = &mut sims[c];
                sim.start_group(
                    &self.start,
                    id,
                    &simds,
                    scratch,
                    &mut self.age,
                    &mut self.spare,
                    now,
                );
                sim.cu.next = sim.cu.next.min(sim.cu.first_turn(now).unwrap_or(u64::MAX));
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
    fn scratch(&mut self, mem: &mut Memory) -> Result<Option<Option<u64>>, TimedError> {
        let l = self.r.launch;
        let bytes = l.scratch_per_wave * l.waves_per_group() as u64;
        if bytes == 0 {
            return Ok(Some(None));
        }
        if let Some(a) = self.scratch_pool.pop() {
            return Ok(Some(Some(a)));
        }
        match mem.alloc(bytes, AllocKind::Scratch) {
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
}

/// The livelock of the launch, if it is one (looked at between windows, after the memory
/// requests and the host have run): every resident wave that has not ended spins with nothing
/// written since it was found spinning, or waits at a barrier; no write is in flight; and
/// workgroups still to come cannot start, as none of these will end. The stop comes with the
/// first spinning wave's workgroup.
fn livelock(sims: &[CuSim], memory: u64) -> Option<(Stop, [u32; 3])> {
    let mut spinners = Vec::new();
    let mut barrier = 0;
    for sim in sims {
        let program = sim.e.program;
        let writing = sim
            .requests
            .iter()
            .any(|q| program.insts[q.index as usize].class.mem != Some(gcn_isa::MemKind::Load));
        if writing {
            return None;
        }
        for group in sim.groups.iter().flatten() {
            let epoch = Epoch {
                memory,
                lds: group.lds.writes(),
            };
            for &s in &group.slots {
                let w = &sim.slots[s];
                match sim.hot[s].block {
                    Block::Ended => {}
                    Block::Barrier => barrier += 1,
                    _ if w.wave.spin.stuck_at(epoch) => spinners.push(Spinner {
                        group: group.id,
                        wave: w.wave.index,
                        target: w.wave.spin.target,
                        branch: w.wave.spin.branch,
                    }),
                    _ => return None,
                }
            }
        }
    }
    let group = spinners.first()?.group;
    Some((Stop::Livelock { spinners, barrier }, group))
}

/// The instruction that went past the budget: issue number `left` of the window in (cycle, CU,
/// issue) order, the order in which the CUs' issues would interleave on one clock, so the stop
/// is the same for any thread count and exact for any budget.
fn exhausting_issue(sims: &[CuSim], left: u64) -> (u32, u32, [u32; 3]) {
    // (cycle, CU, wave, instruction index, workgroup)
    type Issue = (u64, usize, u32, u32, [u32; 3]);
    let mut issues: Vec<Issue> = sims
        .iter()
        .enumerate()
        .flat_map(|(c, s)| {
            s.issue_log
                .iter()
                .map(move |&(cycle, wave, index, group)| (cycle, c, wave, index, group))
        })
        .collect();
    // Stable: within a (cycle, CU) the log keeps issue order.
    issues.sort_by_key(|&(cycle, c, ..)| (cycle, c));
    match issues.get(left as usize) {
        Some(&(_, _, wave, index, group)) => (wave, index, group),
        // Not logged (cannot happen while MAX_ISSUES_PER_CYCLE holds): the last issue seen.
        None => sims
            .iter()
            .find(|s| s.issued > 0)
            .map_or((0, 0, [0; 3]), |s| s.last_issue()),
    }
}

/// Puts `order`'s (cycle, index) pairs into `sorted` by cycle, keeping pairs of one cycle in
/// their order. The cycles of one window's requests span at most a window, so counting them
/// per cycle does it in two passes; a wider span (not seen: a request is run in the window it
/// completes in) falls back to a stable sort.
fn sort_by_cycle(order: &[(u64, usize)], counts: &mut Vec<u32>, sorted: &mut Vec<(u64, usize)>) {
    /// Widest span of cycles counted rather than sorted.
    const SPAN: u64 = 1 << 16;
    sorted.clear();
    let (Some(lo), Some(hi)) = (
        order.iter().map(|o| o.0).min(),
        order.iter().map(|o| o.0).max(),
    ) else {
        return;
    };
    if hi - lo >= SPAN {
        sorted.extend_from_slice(order);
        sorted.sort_by_key(|&(cycle, _)| cycle);
        return;
    }
    counts.clear();
    counts.resize((hi - lo) as usize + 1, 0);
    for &(cycle, _) in order {
        counts[(cycle - lo) as usize] += 1;
    }
    // Each cycle's first place.
    let mut at = 0;
    for c in counts.iter_mut() {
        let n = *c;
        *c = at;
        at += n;
    }
    sorted.resize(order.len(), (0, 0));
    for &o in order {
        let c = &mut counts[(o.0 - lo) as usize];
        sorted[*c as usize] = o;
        *c += 1;
    }
}

/// Requests of one window whose room [`Dispatcher::run_requests`] keeps for the next.
const KEPT_REQUESTS: usize = 256;

/// Every CU steps its cycles in `[start, stop)`, on the worker threads if there are any, and
/// then runs further windows ahead if `leads` allows ([`super::lead`]); a CU that ran this
/// window ahead already gives the stop it met there, if any. The first guest stop, by
/// (cycle, CU), wins.
fn run_window(
    sims: &mut [CuSim],
    start: u64,
    stop: u64,
    workers: Option<&rayon::ThreadPool>,
    leads: Option<LeadRules>,
) -> Result<(), TimedError> {
    // Every CU runs its window, even after another stopped; the earliest stop is kept
    // (no vector of results per window: a launch runs thousands of windows).
    let stop_of = |(c, s): (usize, &mut CuSim)| {
        if s.lead_until >= stop {
            let e = s.held_before(stop)?;
            return Some((e.0, c, e.1, e.2));
        }
        if let Err(e) = s.run_window(start, stop) {
            return Some((e.0, c, e.1, e.2));
        }
        if let Some(rules) = &leads {
            s.lead(stop, rules);
        }
        None
    };
    let first = match workers {
        Some(pool) => {
            use rayon::prelude::*;
            pool.install(|| {
                sims.par_iter_mut()
                    .enumerate()
                    .filter_map(stop_of)
                    .min_by_key(|e| (e.0, e.1))
            })
        }
        None => sims
            .iter_mut()
            .enumerate()
            .filter_map(stop_of)
            .min_by_key(|e| (e.0, e.1)),
    };
    match first {
        Some((_, _, stop, g)) => Err(TimedError::Guest(stop, g)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by_cycle;

    /// What [`sort_by_cycle`] must give: a stable sort by cycle.
    fn sorted(order: &[(u64, usize)]) -> Vec<(u64, usize)> {
        let mut want = order.to_vec();
        want.sort_by_key(|&(cycle, _)| cycle);
        let (mut counts, mut got) = (Vec::new(), vec![(9, 9)]);
        sort_by_cycle(order, &mut counts, &mut got);
        assert_eq!(got, want, "{order:?}");
        got
    }

    #[test]
    fn requests_sort_by_cycle_keeping_ties_in_order() {
        assert!(sorted(&[]).is_empty());
        // Ties keep their order (CU, then issue), counted or, over a wide span, sorted.
        let order = [(107, 0), (100, 1), (107, 2), (103, 3), (100, 4), (139, 5)];
        assert_eq!(sorted(&order)[..2], [(100, 1), (100, 4)]);
        let wide = [(5 << 20, 0), (3, 1), (5 << 20, 2), (3, 3), (7, 4)];
        assert_eq!(sorted(&wide)[..2], [(3, 1), (3, 3)]);
        // A pseudo-random mix over a window's span.
        let mix: Vec<(u64, usize)> = (0..500).map(|k| (1000 + (k * 37 % 41) as u64, k)).collect();
        sorted(&mix);
    }
}
