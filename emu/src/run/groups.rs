//! The workgroups of a functional dispatch: one after another on one thread, or handed out in
//! order to several threads (`--threads`), each worker with its own waves, LDS, scratch and
//! hazard trackers and its own view of device memory ([`Memory::worker_view`]).
//!
//! What several threads change, and what they do not: a program without races between
//! workgroups gets the same memory, counts and hazard findings on any number of threads
//! (findings keep the first workgroup, in dispatch order, that showed them). A program whose
//! workgroups race (atomics aside, which are host atomics) may see another order, as on a GPU;
//! one whose workgroups wait for each other can finish where one thread would report a
//! livelock. When several workgroups fail, the one first in dispatch order is reported, as on
//! one thread. The instruction budget is never exceeded, but threads take it in slices of
//! [`BUDGET_SLICE`], so a launch may stop up to one slice per further thread early, and which
//! wave runs out may differ.

use super::host_hub::HostHub;
use super::run_workgroup_among;
use crate::dispatch::{self, Launch};
use crate::exec::program::Program;
use crate::exec::DispatchEnv;
use crate::launch::hazards::{HazardMode, HazardTable, Leaves, RunHazards, Seen};
use crate::launch::host::HostServices;
use crate::launch::{Counts, Progress, Stop};
use crate::lds::Lds;
use crate::memory::Memory;
use crate::wave::spin::Peers;
use crate::wave::{RegFile, Wave};
use gcn_loader::KernelDescriptor;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Budget a worker takes from the dispatch's at a time.
const BUDGET_SLICE: u64 = 1 << 16;

/// Everything every workgroup of a dispatch shares.
pub struct Dispatch<'a> {
    pub program: &'a Program,
    pub desc: &'a KernelDescriptor,
    /// The launch; `scratch_base` is the scratch of worker 0, each further worker's follows at
    /// [`Dispatch::scratch_per_group`] bytes.
    pub launch: &'a Launch,
    pub env: DispatchEnv,
    pub entry_index: u32,
    /// The register file (VGPRs, AGPRs) the kernel allocates (cleared when a wave starts).
    pub regs: RegFile,
    /// The mode, the models, and which instructions leave the clean graph (as
    /// [`crate::launch::hazards::Cover::UntilLeaving`]).
    pub hazards: Option<(HazardMode, &'a HazardTable, Option<&'a Leaves>)>,
    pub deadline: Option<Instant>,
    pub progress: Option<Progress<'a>>,
    /// Every workgroup is resident at once and they take turns ([`super::coresident`]); the
    /// launch gives each its own scratch, `scratch_per_group` apart.
    pub cooperative: bool,
}

/// How a dispatch ended: counts and hazard findings, or the first failing workgroup's stop.
pub struct Outcome {
    pub counts: Counts,
    pub hazards: Vec<Seen>,
    pub result: Result<(), ([u32; 3], Stop)>,
}

impl Dispatch<'_> {
    pub fn groups(&self) -> u64 {
        self.launch.grid.iter().map(|&g| g as u64).product()
    }

    /// Scratch bytes one workgroup's waves use.
    pub fn scratch_per_group(&self) -> u64 {
        self.launch.scratch_per_wave * self.launch.waves_per_group() as u64
    }

    /// The workgroup with dispatch-order number `n` (x fastest).
    pub(super) fn group(&self, n: u64) -> [u32; 3] {
        let [gx, gy, _] = self.launch.grid.map(|g| g as u64);
        [
            (n % gx) as u32,
            (n / gx % gy) as u32,
            (n / (gx * gy)) as u32,
        ]
    }

    /// Runs every workgroup in order on this thread; `host` answers hostcalls.
    pub fn run(
        &self,
        mem: &mut Memory,
        budget: u64,
        host: Option<&mut dyn HostServices>,
    ) -> Outcome {
        if self.cooperative {
            return self.run_coresident(mem, budget, host);
        }
        let mut worker = Worker::new(self, 0);
        let mut budget = budget;
        let mut host = host;
        let mut result = Ok(());
        for n in 0..self.groups() {
            let group = self.group(n);
            let host = host.as_mut().map(|h| &mut **h as &mut dyn HostServices);
            let r = worker.run_group(self, group, mem, &mut budget, host, None);
            if let Err(stop) = r {
                result = Err((group, stop));
                break;
            }
            if let Some(p) = self.progress {
                p(n + 1, self.groups());
            }
        }
        worker.outcome(result)
    }

    /// Runs the workgroups on `threads` host threads (this one among them), handing them out in
    /// dispatch order; `host` answers hostcalls, one worker at a time ([`HostHub`]). `mem`
    /// changes meanwhile only through `host`, with every worker held.
    pub fn run_parallel(
        &self,
        mem: &mut Memory,
        budget: u64,
        threads: usize,
        host: Option<&mut (dyn HostServices + Send)>,
    ) -> Outcome {
        if self.cooperative {
            return self.run_coresident_parallel(mem, budget, threads, host);
        }
        let total = self.groups();
        let next = AtomicU64::new(0);
        let done = AtomicU64::new(0);
        let failed = AtomicBool::new(false);
        let budget = AtomicU64::new(budget);
        let writes = Arc::new(AtomicU64::new(0));
        let main: *mut Memory = mem;
        // SAFETY: the views are dropped before this function returns, so before `mem` (borrowed
        // for all of it) can change other than through the hub; they are used only for guest
        // accesses, and follow the hub's changes.
        let views: Vec<Memory> = (0..threads)
            .map(|_| unsafe { (*main).worker_view(writes.clone()) })
            .collect();
        // SAFETY: as for the views; nothing else touches `mem` until the workers are done.
        let hub = host.map(|h| unsafe { HostHub::new(h, main, self.launch.hostcall_buffer) });
        let claims: Vec<AtomicU64> = (0..threads)
            .map(|_| AtomicU64::new(Peers::RUNNING))
            .collect();
        let work = |index: usize, mut view: Memory| {
            let peers = Some(Peers {
                claims: &claims,
                writes: &writes,
                me: index,
            });
            let mut worker = Worker::new(self, index);
            let mut host = hub.as_ref().map(|h| h.worker(&mut view));
            let mut local = 0u64;
            let mut result = Ok(());
            while !failed.load(Ordering::Relaxed) {
                // The last round's writes, before this thread can say it is idle.
                view.publish_writes();
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    break;
                }
                let group = self.group(n);
                claims[index].store(Peers::RUNNING, Ordering::SeqCst);
                let h = host.as_mut().map(|h| h as &mut dyn HostServices);
                let mut r = worker.run_group(self, group, &mut view, &mut local, h, peers);
                // Out of its slice: take another and go on where the waves stopped.
                while matches!(r, Err(Stop::Budget { .. })) && take_budget(&budget, &mut local) {
                    let h = host.as_mut().map(|h| h as &mut dyn HostServices);
                    r = worker.resume(self, group, &mut view, &mut local, h, peers);
                }
                if let Err(stop) = r {
                    result = Err((n, group, stop));
                    failed.store(true, Ordering::Relaxed);
                    break;
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(p) = self.progress {
                    p(d, total);
                }
            }
            // Nothing left to run: this thread writes nothing more, and no longer holds up an
            // answer to a hostcall.
            drop(host);
            view.publish_writes();
            claims[index].store(Peers::IDLE, Ordering::SeqCst);
            // What was not spent goes back for the others.
            budget.fetch_add(local, Ordering::Relaxed);
            (worker, result, view)
        };
        let finished = fan_out(views, &work);
        let mut counts = Counts::default();
        let mut lists = Vec::new();
        let mut first: Option<(u64, [u32; 3], Stop)> = None;
        for (worker, result, view) in finished {
            mem.absorb_padding(&view);
            counts.add(&worker.counts);
            if let Some(h) = &worker.hazards {
                lists.push(h.findings());
            }
            if let Err((n, group, stop)) = result {
                if first.as_ref().is_none_or(|f| n < f.0) {
                    first = Some((n, group, stop));
                }
            }
        }
        let grid = self.launch.grid;
        Outcome {
            counts,
            hazards: crate::launch::hazards::merge(lists, grid),
            result: first.map_or(Ok(()), |(_, g, s)| Err((g, s))),
        }
    }
}

/// Runs `work` once per memory view, each on its own thread (the first on this one), and
/// gives back the results in view order; a worker's panic goes on in this thread.
pub(super) fn fan_out<R: Send>(
    views: Vec<Memory>,
    work: &(impl Fn(usize, Memory) -> R + Sync),
) -> Vec<R> {
    let mut finished = Vec::with_capacity(views.len());
    std::thread::scope(|s| {
        let mut views = views.into_iter().enumerate();
        let (_, mine) = views.next().expect("at least one worker");
        let handles: Vec<_> = views
            .map(|(i, view)| s.spawn(move || work(i, view)))
            .collect();
        finished.push(work(0, mine));
        for h in handles {
            match h.join() {
                Ok(f) => finished.push(f),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    finished
}

/// Moves up to [`BUDGET_SLICE`] from the dispatch's budget to a worker's; false when none is left.
pub(super) fn take_budget(budget: &AtomicU64, local: &mut u64) -> bool {
    let taken = budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
            (b > 0).then(|| b - b.min(BUDGET_SLICE))
        })
        .map_or(0, |b| b.min(BUDGET_SLICE));
    *local += taken;
    taken > 0
}

/// What one thread needs to run workgroups: the waves, the LDS, its scratch and its trackers.
struct Worker<'a> {
    waves: Vec<Wave>,
    lds: Lds,
    launch: Launch,
    hazards: Option<RunHazards<'a>>,
    counts: Counts,
}

impl<'a> Worker<'a> {
    fn new(d: &Dispatch<'a>, index: usize) -> Worker<'a> {
        let n = d.launch.waves_per_group();
        let mut launch = d.launch.clone();
        if launch.scratch_base != 0 {
            launch.scratch_base += index as u64 * d.scratch_per_group();
        }
        Worker {
            waves: (0..n).map(|i| Wave::with_file(i, d.regs)).collect(),
            lds: Lds::new(d.launch.lds_size).with_waves(n),
            launch,
            hazards: d
                .hazards
                .map(|(mode, table, leaves)| RunHazards::new(mode, table, n, leaves)),
            counts: Counts::default(),
        }
    }

    /// Runs workgroup `group` to its end; a stop carries the group in its wave positions.
    fn run_group(
        &mut self,
        d: &Dispatch,
        group: [u32; 3],
        mem: &mut Memory,
        budget: &mut u64,
        host: Option<&mut dyn HostServices>,
        peers: Option<Peers>,
    ) -> Result<(), Stop> {
        for (i, w) in self.waves.iter_mut().enumerate() {
            w.reset(i as u32, d.regs);
            dispatch::init_wave(w, d.desc, &self.launch, group, i as u32);
            w.pc = d.entry_index;
        }
        self.lds.start_group(group);
        if let Some(h) = &mut self.hazards {
            h.start_group(group);
        }
        self.resume(d, group, mem, budget, host, peers)
    }

    /// Runs the waves as they are until the workgroup ends or stops.
    fn resume(
        &mut self,
        d: &Dispatch,
        group: [u32; 3],
        mem: &mut Memory,
        budget: &mut u64,
        host: Option<&mut dyn HostServices>,
        peers: Option<Peers>,
    ) -> Result<(), Stop> {
        let r = run_workgroup_among(
            &mut self.waves,
            d.program,
            mem,
            &mut self.lds,
            &d.env,
            budget,
            &mut self.counts,
            self.hazards.as_mut(),
            host,
            d.deadline,
            peers,
        );
        r.map_err(|mut stop| {
            match &mut stop {
                Stop::Timeout { waves } => waves.iter_mut().for_each(|w| w.group = group),
                Stop::Livelock { spinners, .. } => {
                    spinners.iter_mut().for_each(|s| s.group = group)
                }
                _ => {}
            }
            stop
        })
    }

    fn outcome(self, result: Result<(), ([u32; 3], Stop)>) -> Outcome {
        Outcome {
            counts: self.counts,
            hazards: self.hazards.map(|h| h.findings()).unwrap_or_default(),
            result,
        }
    }
}
