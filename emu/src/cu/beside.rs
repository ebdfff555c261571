//! Requests of a window run beside each other: between two requests that write device memory
//! (stores, atomics, cache and timer operations), the requests in completion order only read
//! device memory or touch their own CU (LDS operations, the landings of their waves): none of
//! them changes what another reads, so those of different CUs give the same results in any
//! order, as long as each CU's run in its own order. A run of at least [`MIN_RUN`] such
//! requests is shared among the worker threads by CU, each thread reading memory through its
//! own view ([`Memory::worker_view`]) into its own scratch wave; writes run one at a time
//! between runs, as before. A memory-bound launch spends about half its time running
//! requests (saxpy's timed run, 4M elements: its loads are 84% of its requests, in runs of
//! eight or more).
//!
//! The results are those of running every request in turn: memory, registers, LDS and the
//! order in which each CU's workgroups finish are the same, and when requests fault, the first
//! in completion order is the stop (later ones of its run may have run too, but they wrote
//! nothing that outlives the launch, which ends there). Not with the sanitizers (their state is one
//! thread's), nor with host placement (accesses into an allocation's page padding are counted
//! with the first one named, which threads would race for).

use super::deferred::{self, Request, Shared};
use super::engine::CuSim;
use super::facts::Latency;
use crate::launch::Stop;
use crate::memory::{Memory, Placement};
use crate::wave::Wave;
use gcn_isa::MemKind;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

/// Fewest requests in a run worth waking the other threads for.
pub const MIN_RUN: usize = 8;

/// Requests of one CU whose room a run keeps for the next.
const KEPT: usize = 16;

/// Whether request `q` of `sim` only reads device memory (or touches only its CU).
pub fn reads_only(sim: &CuSim, q: &Request) -> bool {
    let i = q.index as usize;
    // DS operations reach only their workgroup's LDS (GDS is not modelled: it faults).
    sim.e.facts[i].latency == Latency::Lds
        || sim.e.program.insts[i].class.mem == Some(MemKind::Load)
}

/// Whether runs of `mem`'s requests may be shared among threads.
pub fn allowed(mem: &Memory) -> bool {
    !mem.checking() && mem.placement() == Placement::Sparse
}

/// A CU with its requests of the run (and their places in it), and the view of memory they
/// read through.
type Task<'s, 'a> = (&'s mut CuSim<'a>, &'s mut Vec<(usize, Request)>, Memory);

/// What the threads keep from run to run.
#[derive(Default)]
pub struct Beside {
    /// The run's requests by CU, each with its place in the run.
    by_cu: Vec<Vec<(usize, Request)>>,
    /// Scratch waves for the threads (64 KiB each: boxed, as [`Shared`] holds one, so that
    /// taking one moves a pointer), and the views' shared write count (they write nothing).
    #[allow(clippy::vec_box)]
    scratch: Mutex<Vec<Box<Wave>>>,
    writes: Arc<AtomicU64>,
}

impl Beside {
    /// Runs `run` (requests with their CUs, in completion order, all [`reads_only`]) on the
    /// worker threads of the current pool. The first stop in completion order, if any.
    pub fn run(
        &mut self,
        sims: &mut [CuSim],
        shared: &mut Shared,
        run: impl Iterator<Item = (usize, Request)>,
    ) -> Result<(), (Stop, [u32; 3])> {
        use rayon::prelude::*;
        self.by_cu.resize_with(sims.len(), Vec::new);
        for (place, (c, q)) in run.enumerate() {
            self.by_cu[c].push((place, q));
        }
        let (program, env) = (shared.program, shared.env);
        let main: &Memory = shared.mem;
        let scratch = &self.scratch;
        // The views are made here (memory is not shared between threads, its views are).
        // SAFETY: they are dropped before this function returns, so before `main` can change
        // (the dispatcher holds it borrowed until then), and they serve only guest loads.
        let mut work: Vec<Task> = sims
            .iter_mut()
            .zip(self.by_cu.iter_mut())
            .filter(|(_, qs)| !qs.is_empty())
            .map(|(sim, qs)| (sim, qs, unsafe { main.worker_view(self.writes.clone()) }))
            .collect();
        let first = work
            .par_iter_mut()
            .filter_map(|(sim, qs, view)| {
                let wave = scratch.lock().expect("scratch pool").pop();
                let mut sh = Shared {
                    program,
                    env,
                    mem: view,
                    scratch: wave.unwrap_or_else(|| Box::new(Wave::new(0))),
                };
                let mut stop = None;
                for (place, q) in qs.drain(..) {
                    if stop.is_none() {
                        if let Err(e) = deferred::run(&mut sh, sim, q) {
                            stop = Some((place, e));
                        }
                    }
                }
                scratch.lock().expect("scratch pool").push(sh.scratch);
                stop
            })
            .min_by_key(|(place, _)| *place);
        drop(work);
        // Room kept for the next run, unless a burst (every wave's first loads at once) made it
        // large: it would stay in every later peak of the heap.
        for qs in &mut self.by_cu {
            qs.shrink_to(KEPT);
        }
        match first {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}
