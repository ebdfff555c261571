//! The functional engine (`--timing off`): the waves of one workgroup step round-robin, a
//! quantum of instructions at a time, so s_barrier works and spin-waits between waves make
//! progress; memory operations complete when issued. The timing model ([`crate::cu`]) runs the
//! same semantic functions cycle by cycle; what both report is in [`crate::launch`].

use crate::exec::issue::SLOW_MODES;
use crate::exec::program::Program;
use crate::exec::{compiled, Cx, DispatchEnv, Flow, Ran};
use crate::fault::Fault;
use crate::launch::hazards::RunHazards;
use crate::launch::host::HostServices;
use crate::launch::{category_index, Counts, Stop, WaveAt, CATEGORIES};
use crate::lds::Lds;
use crate::memory::Memory;
use crate::wave::spin;
use crate::wave::{Wave, WaveState};
use gcn_isa::Op;

pub mod coresident;
pub mod groups;
pub(crate) mod host_hub;

/// Instructions a wave runs before the next wave gets its turn.
pub const QUANTUM: u32 = 64;

/// How often (in rounds of wave quanta) the functional engine looks at the clock: a round is
/// at least [`QUANTUM`] instructions, so the clock costs nothing measurable.
pub(super) const CLOCK_ROUNDS: u32 = 16;

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
            // Without the hazard tracker and the trace-level log, a loop that does not look
            // for them at every instruction.
            let watched = hazards.is_some() || tracing::enabled!(tracing::Level::TRACE);
            let hazards = hazards.as_deref_mut();
            match watched {
                false => step_wave::<false>(w, program, mem, lds, env, budget, counts, None),
                true => step_wave::<true>(w, program, mem, lds, env, budget, counts, hazards),
            }?;
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
pub(super) fn waves_at(waves: &[Wave]) -> Vec<WaveAt> {
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

/// Runs up to [`QUANTUM`] instructions of one wave; `WATCHED`: the hazard tracker or the
/// trace-level log may want each instruction.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn step_wave<const WATCHED: bool>(
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
    // The budget runs out at the instruction it cannot pay for: a quantum takes no more than
    // is left, and ends there with the stop. (The launch's counts are added once, at the end.)
    let quantum = (*budget).min(QUANTUM as u64) as u32;
    // Looked up once a quantum rather than at every instruction (an atomic load each).
    let tracing = WATCHED && tracing::enabled!(tracing::Level::TRACE);
    let mut cx = Cx {
        wave: w,
        mem,
        lds,
        program,
        env,
    };
    let mut ran = 0u32;
    // Instructions are counted by category a straight run at a time, when the wave leaves the
    // run (a jump, or the end of the quantum): an add to the launch's counts at every
    // instruction cost 5-10% of an ALU-bound run. `run_start` is where the current run began;
    // each `break` gives the end of the run with the instructions counted so far.
    let mut run_start = cx.wave.pc;
    // Without the hazard tracker or the trace log watching each instruction, the kernel's
    // compiled code once it is hot ([`compiled`]).
    let region = match WATCHED {
        false => env.compiled.as_deref().and_then(|h| h.get(program, jumped)),
        true => None,
    };
    let (result, run_end) = loop {
        if ran == quantum {
            // A whole quantum, or the budget ran out at the next instruction (unless there is
            // none: running past the end is the stop then).
            let at = cx.wave.pc;
            let result = match program.insts.get(at as usize) {
                _ if quantum == QUANTUM => Ok(()),
                Some(_) => Err(Stop::Budget {
                    wave: index,
                    index: at,
                }),
                None => Err(Stop::Fault {
                    wave: index,
                    index: at,
                    fault: Fault::PastEnd,
                }),
            };
            break (result, at);
        }
        // Compiled code from here, for what is left of the quantum, when MODE leaves
        // instructions to their usual semantics.
        if let Some(code) = region
            .and_then(|r| r.entry(cx.wave.pc))
            .filter(|_| cx.wave.mode & SLOW_MODES == 0)
        {
            let left = (quantum - ran) as u64;
            let before = cx.wave.instructions;
            let mut jumps = Jumps {
                counts: &mut *counts,
                run_start,
            };
            let state = (&mut jumps as *mut Jumps).cast();
            // SAFETY: the region calls the semantic functions of the program's instructions
            // with `cx`, as `execute` does below, and `jumped` with `state` ([`compiled`]).
            let out = unsafe { code(&mut cx, cx.wave.pc as u64, left, state) };
            run_start = jumps.run_start;
            let (k, code, stopped) = compiled::unpack(out);
            ran += k;
            cx.wave.instructions = before + k as u64;
            match code {
                // Where the wave goes next is outside the region, the quantum is over, or
                // MODE asks for the slow path: the loop goes on (to the interpreter).
                compiled::ENDED | compiled::SLOW_MODE if k > 0 => continue,
                // Nothing ran (not expected for ENDED: the quantum has room): the
                // interpreter takes the instruction.
                compiled::ENDED | compiled::SLOW_MODE => {}
                code => match code - compiled::OUTCOME {
                    c if c == Ran::Stall as u64 => {
                        cx.wave.pc = stopped;
                        break (Ok(()), stopped);
                    }
                    c if c == Ran::Faulted as u64 => {
                        let stop = Stop::Fault {
                            wave: index,
                            index: stopped,
                            fault: crate::exec::issue::taken_fault(&mut cx),
                        };
                        break (Err(stop), stopped);
                    }
                    c => {
                        // It issued, and ends the quantum.
                        ran += 1;
                        cx.wave.instructions += 1;
                        cx.wave.state = match c == Ran::Barrier as u64 {
                            true => WaveState::Barrier,
                            false => WaveState::Ended,
                        };
                        break (Ok(()), stopped + 1);
                    }
                },
            }
        }
        let at = cx.wave.pc;
        let Some(d) = program.insts.get(at as usize) else {
            let stop = Stop::Fault {
                wave: index,
                index: at,
                fault: Fault::PastEnd,
            };
            break (Err(stop), at);
        };
        // The tracker sees the instruction as it issues, before its effects, so in error mode
        // the wave stops with the consumer unexecuted. A stalled s_waitcnt issues again when
        // retried, adding wait states as the real stall does.
        if let Some(h) = hazards.as_deref_mut().filter(|_| WATCHED) {
            if let Some(finding) = h.issue(index, at) {
                let stop = Stop::Hazard {
                    wave: index,
                    index: at,
                    finding,
                };
                break (Err(stop), at);
            }
        }
        if tracing {
            tracing::trace!(wave = index, pc = format_args!("{:#x}", d.pc), "{}", d.inst);
        }
        cx.wave.pc = at + 1;
        // Memory operations complete at issue in this functional model, so the wait counters
        // stay 0 and every s_waitcnt is satisfied.
        let flow = match crate::exec::issue::execute(&mut cx, d) {
            Ok(flow) => flow,
            Err(fault) => {
                let stop = Stop::Fault {
                    wave: index,
                    index: at,
                    fault,
                };
                break (Err(stop), at);
            }
        };
        if flow != Flow::Continue {
            if flow == Flow::Stall {
                cx.wave.pc = at;
                break (Ok(()), at);
            }
            // It issued, and ends the quantum.
            ran += 1;
            cx.wave.instructions += 1;
            cx.wave.state = match flow {
                Flow::Barrier => WaveState::Barrier,
                // Flow::End (Continue and Stall are handled above).
                _ => WaveState::Ended,
            };
            break (Ok(()), at + 1);
        }
        ran += 1;
        // Per instruction: s_memtime reads it.
        cx.wave.instructions += 1;
        if cx.wave.pc != at + 1 {
            // The wave jumps: the run it leaves is counted.
            add_categories(counts, program, run_start, at + 1);
            run_start = cx.wave.pc;
            // A taken backward branch (the next instruction at or before this one).
            if cx.wave.pc <= at && env.spin_limit != 0 {
                back_edge(&mut cx, at);
            }
        }
    };
    add_categories(counts, program, run_start, run_end);
    *budget -= ran as u64;
    counts.wave_instructions += ran as u64;
    result
}

/// What a compiled region's jumps update ([`jumped`]): the counts by category, and where the
/// current straight run began.
struct Jumps<'a> {
    counts: &'a mut Counts,
    run_start: u32,
}

/// The wave at `cx` left instruction `at` for its `pc` in compiled code ([`compiled`]): the
/// straight run it leaves is counted, and a backward branch shown to the spin detector, as the
/// interpreter's loop does.
extern "C-unwind" fn jumped(cx: &mut Cx, jumps: *mut std::ffi::c_void, at: u64) {
    // SAFETY: the region hands back the pointer `step_wave` gave it, to its `Jumps`, which
    // lives until the region returns.
    let jumps = unsafe { &mut *jumps.cast::<Jumps>() };
    let at = at as u32;
    add_categories(jumps.counts, cx.program, jumps.run_start, at + 1);
    jumps.run_start = cx.wave.pc;
    if cx.wave.pc <= at && cx.env.spin_limit != 0 {
        back_edge(cx, at);
    }
}

/// The spin detector's look at a taken backward branch at instruction `at`.
#[inline(never)]
fn back_edge(cx: &mut Cx, at: u32) {
    let epoch = spin::Epoch {
        memory: cx.mem.writes(),
        lds: cx.lds.writes(),
    };
    spin::SpinState::back_edge(cx.wave, at, epoch, cx.env.spin_limit, cx.env.vgprs);
}

/// Adds the instructions `from..to` of `program`, a straight run a wave executed, to the
/// counts by category.
#[inline]
fn add_categories(counts: &mut Counts, program: &Program, from: u32, to: u32) {
    let run = program.categories_between(from, to);
    for c in CATEGORIES {
        counts.by_category[category_index(c)] += run[c as usize] as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::{run_workgroup, QUANTUM};
    use crate::exec::program::Program;
    use crate::exec::DispatchEnv;
    use crate::launch::{category_index, Counts, Stop, CATEGORIES};
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::Wave;
    use gcn_isa::{assemble, Target};

    /// Two waves of `program` with EXEC `exec` run as one workgroup under `env` and `budget`:
    /// how it ended, the waves, the budget left and the counts.
    fn two_waves(
        program: &Program,
        env: &DispatchEnv,
        budget: u64,
        exec: u64,
    ) -> (Result<(), Stop>, [Wave; 2], u64, Counts) {
        let mut waves = [Wave::new(0), Wave::new(1)];
        for w in &mut waves {
            w.set_exec(exec);
        }
        let (mut mem, mut lds) = (Memory::default(), Lds::new(0));
        let (mut left, mut counts) = (budget, Counts::default());
        let r = run_workgroup(
            &mut waves,
            program,
            &mut mem,
            &mut lds,
            env,
            &mut left,
            &mut counts,
        );
        (r, waves, left, counts)
    }

    /// Two waves of a loop with s_memtime in it, under every budget up to what they need: the
    /// run stops at the instruction the budget cannot pay for — where a count per instruction
    /// stops, in the wave whose quantum it falls in — with exactly the budget counted, and
    /// s_memtime reads the instructions before it. Interpreted and compiled alike.
    #[test]
    fn a_budget_stops_at_the_instruction_it_cannot_pay_for() {
        let text = "
            s_mov_b32 s2, 0
        again:
            s_memtime s[10:11]
            s_add_u32 s2, s2, 1
            s_cmp_lt_u32 s2, 40
            s_cbranch_scc1 again
            s_endpgm";
        let code = assemble(text, Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        // Per wave: the s_mov, 40 turns of four, the s_endpgm.
        let per_wave = 1 + 40 * 4 + 1;
        // The index of a wave's instruction `n` (from 0).
        let index_at = |n: u64| match n {
            0 => 0,
            n if n == per_wave - 1 => 5,
            n => 1 + (n - 1) % 4,
        };
        // Where the budget runs out: the waves take quanta in turn, each up to its end.
        let reference = |budget: u64| {
            let (mut done, mut left) = ([0u64; 2], budget);
            loop {
                for (w, done) in done.iter_mut().enumerate() {
                    let k = (per_wave - *done).min(QUANTUM as u64);
                    if k == 0 {
                        continue;
                    }
                    if left < k {
                        return (w as u32, index_at(*done + left) as u32);
                    }
                    (left, *done) = (left - k, *done + k);
                }
            }
        };
        let compiled = std::sync::Arc::new(crate::exec::compiled::HotRegion::new(0, 0));
        let compiled_env = DispatchEnv {
            compiled: Some(compiled.clone()),
            ..DispatchEnv::default()
        };
        let budgets = 0..=2 * per_wave + 3;
        let runs = budgets.flat_map(|b| [(b, DispatchEnv::default()), (b, compiled_env.clone())]);
        for (budget, env) in runs {
            let (r, waves, left, counts) = two_waves(&program, &env, budget, 0);
            let ran: u64 = waves.iter().map(|w| w.instructions).sum();
            assert_eq!(counts.wave_instructions, ran, "budget {budget}");
            // By category, counted a run at a time: what counting each instruction gives.
            let mut by_category = [0u64; CATEGORIES.len()];
            for w in &waves {
                for n in 0..w.instructions {
                    let d = &program.insts[index_at(n) as usize];
                    by_category[category_index(d.class.category)] += 1;
                }
            }
            assert_eq!(counts.by_category, by_category, "budget {budget}");
            if budget >= 2 * per_wave {
                assert!(r.is_ok(), "budget {budget}: {r:?}");
                assert_eq!((left, ran), (budget - 2 * per_wave, 2 * per_wave));
                for w in &waves {
                    // The last s_memtime came after the s_mov and 39 turns of four.
                    let t = w.sgpr[10] as u64 | (w.sgpr[11] as u64) << 32;
                    assert_eq!(t, 1 + 39 * 4);
                }
                continue;
            }
            match r {
                Err(Stop::Budget { wave, index }) => {
                    assert_eq!((wave, index), reference(budget), "budget {budget}")
                }
                other => panic!("budget {budget}: {other:?}"),
            }
            assert_eq!((left, ran), (0, budget), "budget {budget}");
        }
        assert!(
            compiled.get(&program, super::jumped).is_some(),
            "the region compiled"
        );
    }

    /// Every scalar op and branch compiled code writes inline
    /// ([`crate::exec::compiled`]'s `scalar`), on operands at the edges of their ranges
    /// (carries, signed overflow, shifts past the width, SIMM16 sign- and zero-extended), with
    /// SCC kept after each: compiled, the waves end with the interpreter's SGPRs, SCC and EXEC.
    #[test]
    fn scalar_ops_written_inline_compute_what_their_functions_do() {
        let text = "
            s_mov_b32 s0, -1
            s_mov_b32 s1, 1
            s_mov_b32 s2, 0x80000000
            s_mov_b32 s3, 0x7fffffff
            s_mov_b64 s[4:5], -1
            s_mov_b32 s6, 0x12345678
            s_mov_b32 s7, 0x9abcdef0
            s_add_u32 s10, s0, s1
            s_cselect_b32 s40, 1, 0
            s_addc_u32 s11, s0, 0
            s_cselect_b32 s41, 1, 0
            s_sub_u32 s12, s1, s0
            s_cselect_b32 s42, 1, 0
            s_subb_u32 s13, s1, s1
            s_cselect_b32 s43, 1, 0
            s_add_i32 s14, s3, s1
            s_cselect_b32 s44, 1, 0
            s_sub_i32 s15, s2, s1
            s_cselect_b32 s45, 1, 0
            s_min_i32 s16, s2, s3
            s_cselect_b32 s46, 1, 0
            s_max_u32 s17, s2, s3
            s_cselect_b32 s47, 1, 0
            s_min_u32 s18, s6, s7
            s_max_i32 s19, s6, s7
            s_cselect_b32 s48, 1, 0
            s_lshl_b32 s20, s6, 36
            s_lshr_b32 s21, s7, s1
            s_ashr_i32 s22, s7, 4
            s_mul_i32 s23, s6, s7
            s_andn2_b32 s24, s6, s7
            s_orn2_b32 s25, s6, s7
            s_xor_b32 s26, s6, s6
            s_cselect_b32 s49, 1, 0
            s_lshl_b64 s[26:27], s[6:7], 40
            s_cselect_b32 s50, 1, 0
            s_lshr_b64 s[28:29], s[6:7], s1
            s_ashr_i64 s[30:31], s[6:7], 63
            s_and_b64 s[32:33], s[4:5], s[6:7]
            s_andn2_b64 s[34:35], s[4:5], s[6:7]
            s_or_b64 s[62:63], s[6:7], s[28:29]
            s_xor_b64 s[64:65], s[6:7], s[28:29]
            s_orn2_b64 s[66:67], s[6:7], s[28:29]
            s_cselect_b32 s68, 1, 0
            s_xor_b32 s69, s6, s7
            s_or_b32 s70, s6, s1
            s_and_b32 s71, s6, s1
            s_cmp_eq_u64 s[62:63], s[64:65]
            s_cselect_b32 s72, 1, 0
            s_mov_b64 vcc, s[6:7]
            s_cbranch_vccz skip
            s_cbranch_vccnz vcc_set
            s_add_u32 s73, 1, 2
        vcc_set:
            s_or_saveexec_b64 s[74:75], s[6:7]
            s_xor_saveexec_b64 s[76:77], s[4:5]
            s_andn2_saveexec_b64 s[78:79], s[6:7]
            s_cbranch_execnz exec_set
            s_add_u32 s80, 1, 2
        exec_set:
            s_mov_b64 exec, -1
            s_cmp_eq_u32 s1, 1
            s_cbranch_scc1 one
            s_add_u32 s81, 1, 2
        one:
            s_cmp_lt_i32 s2, s3
            s_cselect_b32 s51, 1, 0
            s_cmp_gt_u32 s2, s3
            s_cselect_b64 s[36:37], s[6:7], s[4:5]
            s_cmp_lg_u64 s[4:5], s[6:7]
            s_cselect_b32 s52, 1, 0
            s_movk_i32 s53, 0x8000
            s_cmpk_lt_u32 s53, 0x8001
            s_cselect_b32 s54, 1, 0
            s_cmpk_lt_i32 s53, 0x8001
            s_cselect_b32 s55, 1, 0
            s_addk_i32 s3, 0x1
            s_cselect_b32 s56, 1, 0
            s_mulk_i32 s6, 0xfffe
            s_and_saveexec_b64 s[38:39], s[6:7]
            s_cselect_b32 s57, 1, 0
            s_orn2_saveexec_b64 s[58:59], s[4:5]
            s_nop 0
            s_waitcnt lgkmcnt(0)
            s_cbranch_execz skip
            s_add_u32 s60, 1, 2
        skip:
            s_cbranch_scc0 done
            s_add_u32 s61, 3, 4
        done:
            s_endpgm";
        let code = assemble(text, Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let run = |compiled: bool| {
            let env = DispatchEnv {
                compiled: compiled
                    .then(|| std::sync::Arc::new(crate::exec::compiled::HotRegion::new(0, 0))),
                ..DispatchEnv::default()
            };
            let (r, waves, _, counts) = two_waves(&program, &env, 1 << 20, u64::MAX);
            let w = &waves[0];
            (format!("{r:?}"), counts.by_category, w.sgpr, w.scc, w.pc)
        };
        // (Cranelift refuses some of its instructions on some hosts; then nothing compiles.)
        let region = crate::exec::compiled::HotRegion::new(0, 0);
        assert!(region.get(&program, super::jumped).is_some(), "compiled");
        let interpreted = run(false);
        // Carry out of -1 + 1, the borrow of 1 - 1 - 1, the signed overflow of the addk.
        assert_eq!(
            [40, 41, 43, 44, 56].map(|s| interpreted.2[s]),
            [1, 1, 1, 1, 1],
            "{interpreted:?}"
        );
        assert_eq!(run(true), interpreted);
    }

    /// A program that changes MODE (round towards zero, then back) inside a loop, waits at a
    /// barrier, and faults on a load outside device memory: compiled, the waves end with the registers,
    /// counts and stop of the interpreter's run, under budgets that stop it anywhere.
    #[test]
    fn compiled_code_runs_as_the_interpreter_does() {
        let text = "
            s_mov_b32 s2, 0
            v_mov_b32 v1, 1.0
        again:
            s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xf
            v_add_f32 v2, 0x33ffffff, v1
            s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
            v_add_f32 v3, 0x33ffffff, v1
            v_add_u32 v8, v8, v2
            s_add_u32 s2, s2, 1
            s_cmp_lt_u32 s2, 30
            s_cbranch_scc1 again
            s_barrier
            v_mov_b32 v4, s2
            s_cmp_eq_u32 s2, 0
            s_cbranch_scc1 done
            v_mov_b32 v6, 0
            v_mov_b32 v7, 0
            global_load_dword v5, v[6:7], off
        done:
            s_endpgm";
        let code = assemble(text, Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let compiled = crate::exec::compiled::HotRegion::new(0, 0);
        assert!(
            compiled.get(&program, super::jumped).is_some(),
            "the region compiles"
        );
        let run = |budget: u64, compiled: bool| {
            let env = DispatchEnv {
                compiled: compiled
                    .then(|| std::sync::Arc::new(crate::exec::compiled::HotRegion::new(0, 0))),
                ..DispatchEnv::default()
            };
            let (r, waves, left, counts) = two_waves(&program, &env, budget, u64::MAX);
            let state: Vec<_> = waves
                .iter()
                .map(|w| {
                    (
                        w.pc,
                        w.instructions,
                        w.mode,
                        w.sgpr[2],
                        [1, 2, 3, 4, 8].map(|v| w.vgpr[v][5]),
                    )
                })
                .collect();
            (
                format!("{r:?}"),
                left,
                counts.wave_instructions,
                counts.by_category,
                state,
            )
        };
        let whole = run(1 << 20, false);
        assert!(whole.0.contains("Fault"), "{whole:?}");
        // Just under one ulp above 1.0: towards zero 1.0, to nearest the next float.
        assert_eq!(whole.4[0].4[1..3], [0x3f80_0000, 0x3f80_0001], "{whole:?}");
        for budget in (0..700).step_by(7).chain([1 << 20]) {
            assert_eq!(run(budget, true), run(budget, false), "budget {budget}");
        }
    }

    /// A region entered past the program's start (a kernel after others in its code object):
    /// its code covers its own instructions, and an instruction before them — reached through
    /// s_setpc, which leaves the region by its jump table — runs interpreted. The waves end
    /// as the interpreter's do.
    #[test]
    fn a_region_past_the_start_leaves_for_instructions_before_it() {
        let text = "
            s_branch kernel
            s_endpgm
        kernel:
            s_mov_b32 s2, 0
        again:
            s_add_u32 s2, s2, 1
            s_cmp_lt_u32 s2, 10
            s_cbranch_scc1 again
            v_mov_b32 v1, s2
            s_getpc_b64 s[4:5]
            s_sub_u32 s4, s4, 28
            s_subb_u32 s5, s5, 0
            s_setpc_b64 s[4:5]";
        let code = assemble(text, Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let kernel = 2;
        let region = crate::exec::compiled::HotRegion::new(kernel, 0);
        let compiled = region
            .get(&program, super::jumped)
            .expect("the region compiles");
        // (Instruction 1 follows nothing in the region: only the s_setpc reaches it.)
        for (index, inside) in [(0, false), (1, false), (2, true), (5, true), (10, true)] {
            assert_eq!(
                compiled.entry(index).is_some(),
                inside,
                "instruction {index}"
            );
        }
        let run = |compiled: bool| {
            let env = DispatchEnv {
                compiled: compiled
                    .then(|| std::sync::Arc::new(crate::exec::compiled::HotRegion::new(kernel, 0))),
                ..DispatchEnv::default()
            };
            let (r, waves, left, counts) = two_waves(&program, &env, 1 << 20, u64::MAX);
            let state: Vec<_> = waves
                .iter()
                .map(|w| (w.pc, w.instructions, w.sgpr[2], w.vgpr[1][63]))
                .collect();
            (format!("{r:?}"), left, counts.by_category, state)
        };
        let interpreted = run(false);
        assert_eq!(interpreted.0, "Ok(())");
        // Each wave: the branch, the s_mov, ten turns of three, the v_mov and four to the
        // s_setpc, then the s_endpgm it jumped back to.
        assert_eq!(interpreted.3[0], (2, 1 + 1 + 30 + 5 + 1, 10, 10));
        assert_eq!(run(true), interpreted);
    }
}
