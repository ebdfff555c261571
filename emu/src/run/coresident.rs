//! Cooperative dispatches in the functional engine: every workgroup of the grid is resident
//! at once, as a cooperative launch guarantees on a GPU, so workgroups may wait for each other
//! (a grid-wide `sync()` at a GWS barrier, a flag another workgroup sets).
//!
//! Each worker thread holds its share of the workgroups (on one thread all of them; on
//! several, workgroup `n` goes to thread `n % threads`) and gives them turns in dispatch order:
//! a workgroup runs until its waves wait — every wave that has not ended stalls at a GWS
//! barrier, spins on memory nothing has changed ([`crate::wave::spin`]), or waits at s_barrier
//! for such waves — or for [`TURN_ROUNDS`] rounds of wave quanta (a loop whose polling writes,
//! such as an atomic, never looks like spinning), then the next one has its turn.
//!
//! A whole round of turns in which every workgroup only waited and nothing was written (no
//! store, atomic, host answer or GWS arrival, on any thread) can never end: it is reported as a
//! livelock naming the spinning waves, or as a deadlock when all wait at barriers. Race-free
//! programs get the same results on any number of threads; the normal dispatch path
//! ([`super::groups`]) is not touched by any of this.

use super::groups::{fan_out, take_budget, Dispatch, Outcome};
use super::host_hub::HostHub;
use super::{step_wave, waves_at, CLOCK_ROUNDS};
use crate::dispatch;
use crate::fault::Fault;
use crate::launch::hazards::{RunHazards, Seen};
use crate::launch::host::HostServices;
use crate::launch::{Counts, Stop};
use crate::lds::Lds;
use crate::memory::Memory;
use crate::wave::spin::{self, Peers};
use crate::wave::{Wave, WaveState};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Rounds of wave quanta a workgroup runs in one turn at most.
pub const TURN_ROUNDS: u32 = 256;

/// One resident workgroup: its waves (with their own scratch), LDS and hazard trackers.
struct Resident<'a> {
    /// Dispatch-order number.
    n: u64,
    group: [u32; 3],
    waves: Vec<Wave>,
    lds: Lds,
    hazards: Option<RunHazards<'a>>,
}

impl<'a> Resident<'a> {
    /// Workgroup `n`, with scratch slot `n` of the launch's.
    fn new(d: &Dispatch<'a>, n: u64) -> Resident<'a> {
        let group = d.group(n);
        let count = d.launch.waves_per_group();
        let mut launch = d.launch.clone();
        if launch.scratch_base != 0 {
            launch.scratch_base += n * d.scratch_per_group();
        }
        let waves = (0..count)
            .map(|i| {
                let mut w = Wave::with_file(i, d.regs);
                dispatch::init_wave(&mut w, d.desc, &launch, group, i);
                w.pc = d.entry_index;
                w
            })
            .collect();
        let mut lds = Lds::new(d.launch.lds_size).with_waves(count);
        lds.start_group(group);
        let hazards = d.hazards.map(|(mode, table, leaves)| {
            let mut h = RunHazards::new(mode, table, count, leaves);
            h.start_group(group);
            h
        });
        Resident {
            n,
            group,
            waves,
            lds,
            hazards,
        }
    }
}

/// How a workgroup's turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Turn {
    Ended,
    /// Its waves all wait (see the module docs).
    Waiting,
    /// It used its rounds.
    Preempted,
}

/// What one thread works through: its workgroups and its share of the budget.
struct Share<'a, 'h> {
    residents: Vec<Resident<'a>>,
    counts: Counts,
    findings: Vec<Vec<Seen>>,
    budget: u64,
    /// Rounds run so far (the clock is read every [`CLOCK_ROUNDS`]).
    rounds: u32,
    host: Option<&'h mut dyn HostServices>,
}

/// Whether every wave of a workgroup that has not ended waits, with at least one not at
/// s_barrier (all at s_barrier is the barrier's release).
fn all_wait(waves: &[Wave], mem: &Memory, epoch: spin::Epoch) -> bool {
    let mut any = false;
    for w in waves {
        match w.state {
            WaveState::Ended | WaveState::Barrier => {}
            WaveState::Running => {
                let gws = w
                    .gws_wait
                    .is_some_and(|(id, round)| !mem.gws().released(id as usize, round));
                if !gws && !w.spin.stuck_at(epoch) {
                    return false;
                }
                any = true;
            }
        }
    }
    any
}

impl Share<'_, '_> {
    /// Gives resident `i` a turn.
    fn turn(&mut self, d: &Dispatch, i: usize, mem: &mut Memory) -> Result<Turn, Stop> {
        let r = &mut self.residents[i];
        for _ in 0..TURN_ROUNDS {
            self.rounds = self.rounds.wrapping_add(1);
            if let Some(deadline) = d.deadline {
                if self.rounds.is_multiple_of(CLOCK_ROUNDS) && std::time::Instant::now() >= deadline
                {
                    return Err(Stop::Timeout { waves: Vec::new() });
                }
            }
            mem.publish_writes();
            if let Some(h) = self.host.as_deref_mut() {
                h.poll(mem).map_err(|why| Stop::Fault {
                    wave: 0,
                    index: r.waves.first().map_or(0, |w| w.pc),
                    fault: Fault::Guest(format!("hostcall: {why}")),
                })?;
            }
            let epoch = spin::Epoch {
                memory: mem.writes(),
                lds: r.lds.writes(),
            };
            if all_wait(&r.waves, mem, epoch) {
                return Ok(Turn::Waiting);
            }
            let mut progressed = false;
            let mut running = 0;
            for w in r.waves.iter_mut() {
                if w.state != WaveState::Running {
                    continue;
                }
                running += 1;
                let before = w.instructions;
                let watched = r.hazards.is_some() || tracing::enabled!(tracing::Level::TRACE);
                let (env, lds, counts) = (&d.env, &mut r.lds, &mut self.counts);
                let budget = &mut self.budget;
                match watched {
                    false => step_wave::<false>(w, d.program, mem, lds, env, budget, counts, None),
                    true => {
                        let h = r.hazards.as_mut();
                        step_wave::<true>(w, d.program, mem, lds, env, budget, counts, h)
                    }
                }?;
                progressed |= w.instructions != before;
            }
            if running == 0 {
                let mut any = false;
                for w in r.waves.iter_mut().filter(|w| w.state == WaveState::Barrier) {
                    w.state = WaveState::Running;
                    any = true;
                }
                if !any {
                    return Ok(Turn::Ended);
                }
                continue;
            }
            if !progressed {
                // Every running wave stalls at a GWS barrier.
                return Ok(Turn::Waiting);
            }
        }
        Ok(Turn::Preempted)
    }

    /// Runs the workgroups to their end in turns. `refill` adds to the budget when it runs out
    /// (false: none left); `peers` are the other threads of a parallel dispatch.
    fn run(
        &mut self,
        d: &Dispatch,
        mem: &mut Memory,
        refill: &dyn Fn(&mut u64) -> bool,
        peers: Option<Peers>,
        done: &AtomicU64,
        failed: &AtomicBool,
    ) -> Result<(), (u64, [u32; 3], Stop)> {
        while !self.residents.is_empty() {
            if failed.load(Ordering::Relaxed) {
                return Ok(());
            }
            mem.publish_writes();
            let before = mem.writes();
            let mut all_waiting = true;
            let mut i = 0;
            while i < self.residents.len() {
                let mut r = self.turn(d, i, mem);
                while matches!(r, Err(Stop::Budget { .. })) && refill(&mut self.budget) {
                    r = Ok(Turn::Preempted);
                }
                match r {
                    Ok(Turn::Ended) => {
                        let r = self.residents.remove(i);
                        if let Some(h) = &r.hazards {
                            self.findings.push(h.findings());
                        }
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if let Some(p) = d.progress {
                            p(n, d.groups());
                        }
                        all_waiting = false;
                        continue;
                    }
                    Ok(Turn::Waiting) => {}
                    Ok(Turn::Preempted) => all_waiting = false,
                    Err(stop) => return Err(self.locate(i, stop)),
                }
                i += 1;
            }
            if self.residents.is_empty() {
                break;
            }
            mem.publish_writes();
            let quiet = all_waiting && mem.writes() == before;
            let stuck = match peers {
                Some(p) => p.all_stuck(quiet) && mem.writes() == before,
                None => quiet,
            };
            if stuck {
                return Err(self.stuck());
            }
            if all_waiting && peers.is_some() {
                // What these wait for is another thread's to do.
                std::thread::yield_now();
            }
        }
        Ok(())
    }

    /// Puts resident `i`'s group into its stop (a timeout lists every resident's waves).
    fn locate(&self, i: usize, mut stop: Stop) -> (u64, [u32; 3], Stop) {
        let r = &self.residents[i];
        match &mut stop {
            Stop::Timeout { waves } => {
                for r in &self.residents {
                    waves.extend(waves_at(&r.waves).into_iter().map(|mut w| {
                        w.group = r.group;
                        w
                    }));
                }
            }
            Stop::Livelock { spinners, .. } => spinners.iter_mut().for_each(|s| s.group = r.group),
            _ => {}
        }
        (r.n, r.group, stop)
    }

    /// The stop of workgroups that wait for each other forever: a livelock naming the spinning
    /// waves, or a deadlock of the first workgroup's waves when all wait at barriers.
    fn stuck(&self) -> (u64, [u32; 3], Stop) {
        let mut spinners = Vec::new();
        let mut barrier = 0;
        for r in &self.residents {
            for w in r.waves.iter().filter(|w| w.state != WaveState::Ended) {
                match w.state {
                    WaveState::Running if w.gws_wait.is_none() && w.spin.spinning => {
                        spinners.push(spin::Spinner {
                            group: r.group,
                            wave: w.index,
                            target: w.spin.target,
                            branch: w.spin.branch,
                        })
                    }
                    _ => barrier += 1,
                }
            }
        }
        let first = &self.residents[0];
        if spinners.is_empty() {
            let waiting = first
                .waves
                .iter()
                .filter(|w| w.state != WaveState::Ended)
                .map(|w| w.index)
                .collect();
            return (first.n, first.group, Stop::Deadlock { waiting });
        }
        let s = &spinners[0];
        let at = self
            .residents
            .iter()
            .find(|r| r.group == s.group)
            .map_or(first.n, |r| r.n);
        (at, s.group, Stop::Livelock { spinners, barrier })
    }
}

impl Dispatch<'_> {
    /// Runs a cooperative dispatch on this thread ([`Dispatch::run`] with `cooperative`).
    pub(super) fn run_coresident(
        &self,
        mem: &mut Memory,
        budget: u64,
        host: Option<&mut dyn HostServices>,
    ) -> Outcome {
        let mut share = Share {
            residents: (0..self.groups()).map(|n| Resident::new(self, n)).collect(),
            counts: Counts::default(),
            findings: Vec::new(),
            budget,
            rounds: 0,
            host,
        };
        let (done, failed) = (AtomicU64::new(0), AtomicBool::new(false));
        let result = share.run(self, mem, &|_| false, None, &done, &failed);
        share.findings.extend(
            share
                .residents
                .iter()
                .filter_map(|r| r.hazards.as_ref().map(|h| h.findings())),
        );
        Outcome {
            counts: share.counts,
            hazards: crate::launch::hazards::merge(share.findings, self.launch.grid),
            result: result.map_err(|(_, g, s)| (g, s)),
        }
    }

    /// Runs a cooperative dispatch on `threads` threads, workgroup `n` on thread
    /// `n % threads` ([`Dispatch::run_parallel`] with `cooperative`).
    pub(super) fn run_coresident_parallel(
        &self,
        mem: &mut Memory,
        budget: u64,
        threads: usize,
        host: Option<&mut (dyn HostServices + Send)>,
    ) -> Outcome {
        let done = AtomicU64::new(0);
        let failed = AtomicBool::new(false);
        let budget = AtomicU64::new(budget);
        let writes = Arc::new(AtomicU64::new(0));
        let main: *mut Memory = mem;
        // SAFETY: as in `run_parallel`: the views are dropped before this function returns and
        // are used only for guest accesses.
        let views: Vec<Memory> = (0..threads)
            .map(|_| unsafe { (*main).worker_view(writes.clone()) })
            .collect();
        // SAFETY: as for the views.
        let hub = host.map(|h| unsafe { HostHub::new(h, main, self.launch.hostcall_buffer) });
        let claims: Vec<AtomicU64> = (0..threads)
            .map(|_| AtomicU64::new(Peers::RUNNING))
            .collect();
        let total = self.groups();
        let work = |index: usize, mut view: Memory| {
            let peers = Peers {
                claims: &claims,
                writes: &writes,
                me: index,
            };
            let mut host = hub.as_ref().map(|h| h.worker(&mut view));
            let mut share = Share {
                residents: (index as u64..total)
                    .step_by(threads)
                    .map(|n| Resident::new(self, n))
                    .collect(),
                counts: Counts::default(),
                findings: Vec::new(),
                budget: 0,
                rounds: 0,
                host: host.as_mut().map(|h| h as &mut dyn HostServices),
            };
            take_budget(&budget, &mut share.budget);
            let refill = |local: &mut u64| take_budget(&budget, local);
            let result = share.run(self, &mut view, &refill, Some(peers), &done, &failed);
            if result.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            share.findings.extend(
                share
                    .residents
                    .iter()
                    .filter_map(|r| r.hazards.as_ref().map(|h| h.findings())),
            );
            let Share {
                counts,
                findings,
                budget: left,
                ..
            } = share;
            drop(host);
            view.publish_writes();
            claims[index].store(Peers::IDLE, Ordering::SeqCst);
            budget.fetch_add(left, Ordering::Relaxed);
            (counts, findings, result, view)
        };
        let finished = fan_out(views, &work);
        let mut counts = Counts::default();
        let mut lists = Vec::new();
        let mut first: Option<(u64, [u32; 3], Stop)> = None;
        for (c, findings, result, view) in finished {
            mem.absorb_padding(&view);
            counts.add(&c);
            lists.extend(findings);
            if let Err((n, group, stop)) = result {
                if first.as_ref().is_none_or(|f| n < f.0) {
                    first = Some((n, group, stop));
                }
            }
        }
        Outcome {
            counts,
            hazards: crate::launch::hazards::merge(lists, self.launch.grid),
            result: first.map_or(Ok(()), |(_, g, s)| Err((g, s))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::groups::Dispatch;
    use crate::dispatch::{Launch, Preload};
    use crate::exec::program::Program;
    use crate::exec::DispatchEnv;
    use crate::launch::Stop;
    use crate::memory::{AllocKind, Memory};
    use gcn_isa::{assemble, Target};
    use gcn_loader::KernelDescriptor;

    /// Workgroups of one wave: s[0:1] is the buffer (the kernarg pointer), s2 the group.
    fn run(
        text: &str,
        groups: u32,
        cooperative: bool,
        threads: usize,
    ) -> (Vec<u32>, Result<(), Stop>) {
        let code = assemble(text, Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let mut desc = KernelDescriptor::default();
        desc.kernel_code_properties.enable_sgpr_kernarg_segment_ptr = true;
        desc.rsrc2.enable_sgpr_workgroup_id_x = true;
        desc.rsrc1.granulated_workitem_vgpr_count = 3;
        desc.rsrc1.granulated_wavefront_sgpr_count = 2;
        let mut mem = Memory::default();
        let buf = mem.alloc(4096, AllocKind::Buffer).unwrap();
        let launch = Launch {
            grid: [groups, 1, 1],
            block: [64, 1, 1],
            dispatch_id: 0,
            packet: 0,
            queue: 0,
            kernarg: buf,
            scratch_base: 0,
            private_size: 0,
            scratch_per_wave: 0,
            lds_size: 0,
            hostcall_buffer: 0,
            heap: 0,
            packed_tid: false,
            architected_flat_scratch: false,
            preload: Preload::default(),
        };
        let env = DispatchEnv {
            spin_limit: 16,
            ..DispatchEnv::default()
        };
        let d = Dispatch {
            program: &program,
            desc: &desc,
            launch: &launch,
            env,
            entry_index: 0,
            regs: crate::wave::RegFile::full(Target::Gfx900),
            hazards: None,
            deadline: None,
            progress: None,
            cooperative,
        };
        let out = match threads {
            1 => d.run(&mut mem, 100_000_000, None),
            n => d.run_parallel(&mut mem, 100_000_000, n, None),
        };
        let bytes = mem.bytes(buf, 4 * (16 + groups as usize)).unwrap();
        let words = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        (words, out.result.map_err(|(_, s)| s))
    }

    /// Every workgroup but the last spins until the last sets the flag at word 0; then each
    /// writes its number + 1 to word 16 + group.
    fn flag_kernel(groups: u32) -> String {
        format!(
            "
            v_mov_b32 v1, 0
            s_cmp_eq_u32 s2, {last}
            s_cbranch_scc1 set
        wait:
            s_sleep 1
            global_load_dword v2, v1, s[0:1] glc
            s_waitcnt vmcnt(0)
            v_readfirstlane_b32 s4, v2
            s_cmp_eq_u32 s4, 0
            s_cbranch_scc1 wait
            s_branch out
        set:
            v_mov_b32 v2, 1
            global_store_dword v1, v2, s[0:1]
        out:
            s_lshl_b32 s5, s2, 2
            s_add_u32 s5, s5, 64
            v_mov_b32 v3, s5
            s_add_u32 s6, s2, 1
            v_mov_b32 v4, s6
            global_store_dword v3, v4, s[0:1]
            s_endpgm",
            last = groups - 1
        )
    }

    #[test]
    fn workgroups_wait_for_a_flag_the_last_one_sets() {
        for threads in [1, 2, 3] {
            let (words, r) = run(&flag_kernel(5), 5, true, threads);
            assert!(r.is_ok(), "{threads} threads: {r:?}");
            assert_eq!(words[0], 1);
            assert_eq!(&words[16..21], &[1, 2, 3, 4, 5], "{threads} threads");
        }
        // Run one after another, the first workgroup waits for one that never starts.
        let (_, r) = run(&flag_kernel(5), 5, false, 1);
        assert!(matches!(r, Err(Stop::Livelock { .. })), "{r:?}");
    }

    /// Each lane adds 1 to word 0, its workgroup waits at GWS barrier 0 for all of them, then copies
    /// word 0 to word 16 + group: every copy sees every add.
    fn gws_kernel(groups: u32) -> String {
        format!(
            "
            v_mov_b32 v1, 0
            v_mov_b32 v2, 1
            global_atomic_add v1, v2, s[0:1]
            s_waitcnt vmcnt(0)
            s_mov_b32 m0, 0
            v_mov_b32 v0, {nm1}
            ds_gws_barrier v0 gds
            s_waitcnt lgkmcnt(0)
            global_load_dword v5, v1, s[0:1] glc
            s_waitcnt vmcnt(0)
            s_lshl_b32 s5, s2, 2
            s_add_u32 s5, s5, 64
            v_mov_b32 v3, s5
            global_store_dword v3, v5, s[0:1]
            s_endpgm",
            nm1 = groups - 1
        )
    }

    #[test]
    fn a_gws_barrier_holds_every_workgroup_until_all_arrive() {
        for threads in [1, 2] {
            let (words, r) = run(&gws_kernel(6), 6, true, threads);
            assert!(r.is_ok(), "{threads} threads: {r:?}");
            // Every lane of every workgroup's wave adds.
            assert_eq!(words[0], 6 * 64);
            assert_eq!(&words[16..22], &[6 * 64; 6], "{threads} threads");
        }
    }

    #[test]
    fn a_barrier_that_counts_more_workgroups_than_the_grid_is_a_deadlock() {
        // Each waits for 7 arrivals; only 6 workgroups come.
        let text = gws_kernel(7);
        for threads in [1, 2] {
            let (_, r) = run(&text, 6, true, threads);
            match r {
                Err(Stop::Deadlock { waiting }) => assert_eq!(waiting, [0], "{threads}"),
                other => panic!("{threads} threads: {other:?}"),
            }
        }
    }

    #[test]
    fn a_flag_nobody_sets_is_a_livelock_of_every_workgroup() {
        // The last workgroup is 9, which the grid of 4 does not have.
        let text = flag_kernel(10);
        for threads in [1, 2] {
            let (_, r) = run(&text, 4, true, threads);
            match r {
                Err(Stop::Livelock { spinners, .. }) => {
                    let groups: Vec<_> = spinners.iter().map(|s| s.group[0]).collect();
                    assert_eq!(groups.len(), if threads == 1 { 4 } else { 2 }, "{groups:?}");
                }
                other => panic!("{threads} threads: {other:?}"),
            }
        }
    }
}
