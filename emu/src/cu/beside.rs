//! Requests of a window run beside each other: between two requests that write device memory
//! (stores, atomics, cache and timer operations), the requests in completion order only read
//! device memory or touch their own CU (LDS operations, the landings of their waves): none of
//! them changes what another reads, so those of different CUs give the same results in any
//! order, as long as each CU's run in its own order. A run with at least [`MIN_RUN`] vector
//! memory loads is shared among the worker threads by CU, each thread reading memory through its
//! own view ([`Memory::worker_view`]) into its own scratch wave; writes run one at a time
//! between runs. In a memory-bound launch most requests are loads that come in such runs.
//!
//! The results are those of running every request in turn: memory, registers, LDS and the
//! order in which each CU's workgroups finish are the same, and when requests fault, the
//! first in completion order is the stop (later ones of its run may have run too, but they
//! wrote nothing that outlives the launch, which ends there). Not with the sanitizers (their
//! state is one thread's), nor with host placement (accesses into an allocation's page padding
//! are counted with the first one named, which threads would race for).

use super::deferred::{self, Request, Shared};
use super::engine::CuSim;
use super::facts::Latency;
use crate::launch::Stop;
use crate::memory::{Memory, Placement};
use crate::wave::Wave;
use gcn_isa::MemKind;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Fewest vector memory loads in a run worth waking the other threads for: LDS operations and
/// scalar loads are too cheap to share (a histogram's runs are mostly LDS atomics, and shared
/// they took longer).
pub const MIN_RUN: usize = 8;

/// Requests of one CU whose room a run keeps for the next.
const KEPT: usize = 16;

/// Pieces a run's CUs are cut into per thread: a few, so that a thread done early takes
/// another's, and each with one view of memory and one scratch wave.
const PIECES_PER_THREAD: usize = 2;

/// For request `q` of `sim`: `None` if it may write device memory, else what it counts
/// towards [`MIN_RUN`] (1 for a vector memory load, 0 for an LDS operation or scalar load,
/// which reach only their CU or only read).
pub fn weight(sim: &CuSim, q: &Request) -> Option<usize> {
    let i = q.index as usize;
    let latency = sim.e.facts[i].latency;
    // DS operations reach only their workgroup's LDS (GDS is not modelled: it faults).
    if latency == Latency::Lds {
        return Some(0);
    }
    (sim.e.program.insts[i].class.mem == Some(MemKind::Load))
        .then_some((latency == Latency::Vmem) as usize)
}

/// Whether runs of `mem`'s requests may be shared among threads.
pub fn allowed(mem: &Memory) -> bool {
    !mem.checking() && mem.placement() == Placement::Sparse
}

/// A CU with its requests of the run (and their places in it).
type Task<'s, 'a> = (&'s mut CuSim<'a>, &'s mut Vec<(usize, Request)>);

/// What the threads keep from run to run.
#[derive(Default)]
pub struct Beside {
    /// The run's requests by CU, each with its place in the run.
    by_cu: Vec<Vec<(usize, Request)>>,
    /// Scratch waves for the threads (64 KiB each: boxed, as [`Shared`] holds one, so that
    /// taking one moves a pointer), and the views' shared write count (they write nothing).
    #[allow(clippy::vec_box)]
    scratch: Vec<Box<Wave>>,
    writes: Arc<AtomicU64>,
}

impl Beside {
    /// Runs `run` (requests with their CUs, in completion order, each with a [`weight`]) on the
    /// worker threads of the current pool. The first stop in completion order, if any.
    pub fn run(
        &mut self,
        sims: &mut [CuSim],
        shared: &mut Shared,
        run: impl Iterator<Item = (usize, Request)>,
        start: u64,
    ) -> Result<(), (Stop, [u32; 3])> {
        use rayon::prelude::*;
        self.by_cu.resize_with(sims.len(), Vec::new);
        for (place, (c, q)) in run.enumerate() {
            self.by_cu[c].push((place, q));
        }
        let (program, env) = (shared.program, shared.env);
        let main: &Memory = shared.mem;
        let mut work: Vec<Task> = sims
            .iter_mut()
            .zip(self.by_cu.iter_mut())
            .filter(|(_, qs)| !qs.is_empty())
            .collect();
        // The CUs in a few pieces per thread (for balance), each with a view of memory and a
        // scratch wave: views are made here, since memory is not shared between threads and
        // its views are. SAFETY: the views are dropped before this function returns, so before
        // `main` can change (the dispatcher holds it borrowed until then), and they serve only
        // guest loads.
        let pieces = (rayon::current_num_threads() * PIECES_PER_THREAD).min(work.len());
        let per_piece = work.len().div_ceil(pieces.max(1));
        let mut tools: Vec<(Memory, Option<Box<Wave>>)> = (0..pieces)
            .map(|_| {
                let view = unsafe { main.worker_view(self.writes.clone()) };
                let wave = self.scratch.pop().unwrap_or_else(|| Box::new(Wave::new(0)));
                (view, Some(wave))
            })
            .collect();
        let first = work
            .par_chunks_mut(per_piece.max(1))
            .zip(tools.par_iter_mut())
            .filter_map(|(cus, (view, wave))| {
                let mut sh = Shared {
                    program,
                    env,
                    mem: view,
                    scratch: wave.take().expect("a scratch wave per piece"),
                };
                let mut stop: Option<(usize, (Stop, [u32; 3]))> = None;
                for (sim, qs) in cus.iter_mut() {
                    for (place, q) in qs.drain(..) {
                        if stop.as_ref().is_some_and(|s| s.0 < place) {
                            continue;
                        }
                        if let Err(e) = deferred::run(&mut sh, sim, q, start) {
                            stop = Some((place, e));
                        }
                    }
                }
                *wave = Some(sh.scratch);
                stop
            })
            .min_by_key(|(place, _)| *place);
        drop(work);
        self.scratch
            .extend(tools.into_iter().filter_map(|(_, wave)| wave));
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
