//! The functional engine (`--timing off`): the waves of one workgroup step round-robin, a
//! quantum of instructions at a time, so s_barrier works and spin-waits between waves make
//! progress; memory operations complete when issued. The timing model ([`crate::cu`]) runs the
//! same semantic functions cycle by cycle; what both report is in [`crate::launch`].

use crate::exec::{Cx, DispatchEnv, Fault, Flow};
use crate::launch::hazards::RunHazards;
use crate::launch::host::HostServices;
use crate::launch::spin;
use crate::launch::{category_index, Counts, Stop, WaveAt};
use crate::lds::Lds;
use crate::memory::Memory;
use crate::program::Program;
use crate::wave::{Wave, WaveState};
use gcn_isa::Op;

pub mod groups;
pub mod host_hub;

/// Instructions a wave runs before the next wave gets its turn.
pub const QUANTUM: u32 = 64;

/// How often (in rounds of wave quanta) the functional engine looks at the clock: a round is
/// at least [`QUANTUM`] instructions, so the clock costs nothing measurable.
const CLOCK_ROUNDS: u32 = 16;

/// Runs the waves of one workgroup to completion. `budget` is decremented per wave-instruction.
pub fn run_workgroup(
    waves: &mut [Wave],
    program: &Program,
    mem: &mut Memory,
    lds: &mut Lds,
    env: &DispatchEnv,
    budget: &mut u64,
    counts: &mut Counts,
) -> Result<(), Stop> {
    run_workgroup_checked(waves, program, mem, lds, env, budget, counts, None)
}

/// As [`run_workgroup`], feeding every issued instruction to `hazards` (whose trackers the
/// caller resets per workgroup with [`RunHazards::start_group`]).
#[allow(clippy::too_many_arguments)]
pub fn run_workgroup_checked(
    waves: &mut [Wave],
    program: &Program,
    mem: &mut Memory,
    lds: &mut Lds,
    env: &DispatchEnv,
    budget: &mut u64,
    counts: &mut Counts,
    hazards: Option<&mut RunHazards>,
) -> Result<(), Stop> {
    run_workgroup_until(
        waves, program, mem, lds, env, budget, counts, hazards, None, None,
    )
}

/// As [`run_workgroup_checked`], polling `host` for hostcall requests after every round and
/// stopping with [`Stop::Timeout`] once `deadline` has passed.
#[allow(clippy::too_many_arguments)]
pub fn run_workgroup_until(
    waves: &mut [Wave],
    program: &Program,
    mem: &mut Memory,
    lds: &mut Lds,
    env: &DispatchEnv,
    budget: &mut u64,
    counts: &mut Counts,
    hazards: Option<&mut RunHazards>,
    host: Option<&mut dyn HostServices>,
    deadline: Option<std::time::Instant>,
) -> Result<(), Stop> {
    run_workgroup_among(
        waves, program, mem, lds, env, budget, counts, hazards, host, deadline, None,
    )
}

/// As [`run_workgroup_until`], as one of the threads `peers` of a parallel dispatch: the
/// workgroup's waves all spinning is a livelock only when the other threads' are too.
#[allow(clippy::too_many_arguments)]
pub fn run_workgroup_among(
    waves: &mut [Wave],
    program: &Program,
    mem: &mut Memory,
    lds: &mut Lds,
    env: &DispatchEnv,
    budget: &mut u64,
    counts: &mut Counts,
    mut hazards: Option<&mut RunHazards>,
    mut host: Option<&mut dyn HostServices>,
    deadline: Option<std::time::Instant>,
    peers: Option<spin::Peers>,
) -> Result<(), Stop> {
    let mut rounds = 0u32;
    loop {
        rounds = rounds.wrapping_add(1);
        if let Some(deadline) = deadline {
            if rounds.is_multiple_of(CLOCK_ROUNDS) && std::time::Instant::now() >= deadline {
                return Err(Stop::Timeout {
                    waves: waves_at(waves),
                });
            }
        }
        // Other threads' workgroups learn of this one's writes once a round.
        mem.publish_writes();
        if let Some(h) = host.as_deref_mut() {
            h.poll(mem).map_err(|why| Stop::Fault {
                wave: 0,
                index: waves.first().map_or(0, |w| w.pc),
                fault: Fault::Guest(format!("hostcall: {why}")),
            })?;
        }
        // After the host has answered: a wave waiting on a hostcall sees its answer as a write.
        if env.spin_limit != 0 && waves.iter().any(|w| w.spin.spinning) {
            let epoch = spin::Epoch {
                memory: mem.writes(),
                lds: lds.writes(),
            };
            let stop = livelock(waves, epoch);
            // With peers: only when every thread is stuck, and no write was published while
            // this one looked (a thread publishes before it says it is idle).
            let stuck = match peers {
                Some(p) => p.all_stuck(stop.is_some()) && mem.writes() == epoch.memory,
                None => true,
            };
            if let (true, Some(stop)) = (stuck, stop) {
                return Err(stop);
            }
        } else if let Some(p) = peers {
            p.all_stuck(false);
        }
        let mut progressed = false;
        let mut running = 0;
        for w in waves.iter_mut() {
            if w.state != WaveState::Running {
                continue;
            }
            running += 1;
            let before = w.instructions;
            step_wave(
                w,
                program,
                mem,
                lds,
                env,
                budget,
                counts,
                hazards.as_deref_mut(),
            )?;
            progressed |= w.instructions != before;
        }
        if running == 0 {
            // Release the barrier once every wave that has not ended waits at it; an ended
            // wave counts as arrived.
            let mut any = false;
            for w in waves.iter_mut().filter(|w| w.state == WaveState::Barrier) {
                w.state = WaveState::Running;
                any = true;
            }
            if !any {
                return Ok(());
            }
            continue;
        }
        if !progressed {
            let waiting = waves
                .iter()
                .filter(|w| w.state != WaveState::Ended)
                .map(|w| w.index)
                .collect();
            return Err(Stop::Deadlock { waiting });
        }
    }
}

/// The livelock of a workgroup run on its own, if it is one: every wave that has not ended
/// spins with nothing written since, or waits at the barrier (the group is filled in by the
/// caller).
fn livelock(waves: &[Wave], epoch: spin::Epoch) -> Option<Stop> {
    let mut spinners = Vec::new();
    let mut barrier = 0;
    for w in waves {
        match w.state {
            WaveState::Ended => {}
            WaveState::Barrier => barrier += 1,
            WaveState::Running if w.spin.stuck_at(epoch) => spinners.push(spin::Spinner {
                group: [0; 3],
                wave: w.index,
                target: w.spin.target,
                branch: w.spin.branch,
            }),
            WaveState::Running => return None,
        }
    }
    (!spinners.is_empty()).then_some(Stop::Livelock { spinners, barrier })
}

/// Where each wave that has not ended is (the group is filled in by the caller).
fn waves_at(waves: &[Wave]) -> Vec<WaveAt> {
    waves
        .iter()
        .filter(|w| w.state != WaveState::Ended)
        .map(|w| WaveAt {
            group: [0; 3],
            wave: w.index,
            index: w.pc,
            waits: match w.state {
                WaveState::Barrier => Op::S_BARRIER.name().into(),
                _ => "running".into(),
            },
        })
        .collect()
}

/// Runs up to [`QUANTUM`] instructions of one wave.
#[inline]
#[allow(clippy::too_many_arguments)]
fn step_wave(
    w: &mut Wave,
    program: &Program,
    mem: &mut Memory,
    lds: &mut Lds,
    env: &DispatchEnv,
    budget: &mut u64,
    counts: &mut Counts,
    mut hazards: Option<&mut RunHazards>,
) -> Result<(), Stop> {
    let index = w.index;
    let mut cx = Cx {
        wave: w,
        mem,
        lds,
        program,
        env,
    };
    for _ in 0..QUANTUM {
        let at = cx.wave.pc;
        let Some(d) = program.insts.get(at as usize) else {
            return Err(Stop::Fault {
                wave: index,
                index: at,
                fault: Fault::PastEnd,
            });
        };
        if *budget == 0 {
            return Err(Stop::Budget {
                wave: index,
                index: at,
            });
        }
        // The tracker sees the instruction as it issues, before its effects, so in error mode
        // the wave stops with the consumer unexecuted. A stalled s_waitcnt issues again when
        // retried, adding wait states as the real stall does.
        if let Some(h) = hazards.as_deref_mut() {
            if let Some(finding) = h.issue(index, at) {
                return Err(Stop::Hazard {
                    wave: index,
                    index: at,
                    finding,
                });
            }
        }
        tracing::trace!(wave = index, pc = format_args!("{:#x}", d.pc), "{}", d.inst);
        cx.wave.pc = at + 1;
        // Memory operations complete at issue in this functional model, so the wait counters
        // stay 0 and every s_waitcnt is satisfied.
        let flow = crate::exec::issue::execute(&mut cx, d).map_err(|fault| Stop::Fault {
            wave: index,
            index: at,
            fault,
        })?;
        match flow {
            Flow::Continue => {}
            Flow::Stall => {
                cx.wave.pc = at;
                return Ok(());
            }
            Flow::Barrier | Flow::End => {}
        }
        *budget -= 1;
        cx.wave.instructions += 1;
        counts.wave_instructions += 1;
        counts.by_category[category_index(d.class.category)] += 1;
        match flow {
            Flow::Barrier => {
                cx.wave.state = WaveState::Barrier;
                return Ok(());
            }
            Flow::End => {
                cx.wave.state = WaveState::Ended;
                return Ok(());
            }
            _ => {}
        }
        // A taken backward branch (the next instruction at or before this one).
        if cx.wave.pc <= at && env.spin_limit != 0 {
            let epoch = spin::Epoch {
                memory: cx.mem.writes(),
                lds: cx.lds.writes(),
            };
            spin::SpinState::back_edge(cx.wave, at, epoch, env.spin_limit, env.vgprs);
        }
    }
    Ok(())
}
