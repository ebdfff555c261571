//! A wave's ALU instructions run before they issue. The timing model issues one instruction
//! of a wave every few turns and executes it at issue, so each execution finds the wave's
//! registers gone from the host's cache (a CU's forty waves, then the next CU's). A run of
//! pure instructions ([`super::facts::InstTiming::pure`]: vector or scalar ALU and branches that
//! read and write only their wave's registers) gives the same results whenever it runs, as
//! long as nothing else reads or writes those registers meanwhile: no load of the wave has a
//! register still to land (checked before the run), and the run stops before anything else
//! (memory, waits, barriers, s_endpgm). So when such a run is next and the SIMD's turns are
//! taken in bulk ([`super::bulk`]), the wave executes it at once, up to [`AHEAD`]
//! instructions, with the functional engine's locality, and the timing model still issues the
//! instructions one by one, reading their indices from [`Ahead`] (after the bulk
//! ends, [`issue::issue`] issues what is left there).
//!
//! What still depends on when an instruction issues is done at its issue: the stall
//! statistics, the launch's instruction counts, the budget and the issue log, the barrier
//! timeout, and the spin detector's look at a taken backward branch — a run ends with such a
//! branch, so the wave's registers are those after it when it issues. A fault ends the run too
//! and is raised when its instruction issues. (The wave's own count, which s_memtime reads, is
//! kept as the instructions run.)

use super::bulk::{self, Code};
use super::engine::{account, CuSim};
use super::issue;
use super::stats::StallReason;
use crate::exec::compiled;
use crate::exec::issue::{taken_fault, SLOW_MODES};
use crate::exec::{Cx, Flow, Ran};
use crate::fault::Fault;
use crate::launch::Stop;
use crate::wave::spin::{Epoch, SpinState};

/// Instructions a wave runs ahead at most (a compiled loop body usually fits; a queue is
/// three cache lines).
pub const AHEAD: usize = 28;

/// Room for the codes of a queue: [`AHEAD`] rounded up to a power of two.
pub const AHEAD_CODES: usize = AHEAD.next_power_of_two();

/// How a run ahead ended, for its last instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Nothing to do at its issue beyond the usual.
    Plain,
    /// A taken backward branch: the spin detector looks at it as it issues.
    BackEdge,
    /// It faulted (the run executed it as far as it went): [`Ahead::fault`] is raised at its
    /// issue.
    Fault,
    /// It ended the wave's flow (none of the pure instructions does; kept for safety).
    Flow(Flow),
}

/// Instructions a wave has executed and not yet issued, oldest first. Kept apart from the
/// wave's slot ([`CuSim::aheads`]), in two cache lines, since every issue reads it.
#[derive(Clone, Debug)]
pub struct Ahead {
    index: [u32; AHEAD],
    /// What the bulk turns read of each ([`bulk::Code`]; the last of a run that ended in a
    /// fault or a flow is marked [`bulk::IMPURE`]: [`issue::issue`] issues it).
    /// (Padded to a power of two, so that the bulk's lanes copy it with one store and read it
    /// back in words, [`bulk`]'s `Lane::pack`.)
    code: [Code; AHEAD_CODES],
    head: u8,
    len: u8,
    end: End,
    fault: Option<Box<Fault>>,
}

impl Default for Ahead {
    fn default() -> Self {
        Ahead {
            index: [0; AHEAD],
            code: [0; AHEAD_CODES],
            head: 0,
            len: 0,
            end: End::Plain,
            fault: None,
        }
    }
}

impl Ahead {
    /// The next instruction to issue, if one ran ahead.
    #[inline(always)]
    pub fn front(&self) -> Option<u32> {
        (self.head < self.len).then(|| self.index[self.head as usize])
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head >= self.len
    }

    /// Forgets what ran ahead (the slot takes a new wave).
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
        self.end = End::Plain;
        self.fault = None;
    }

    /// The codes of its instructions, by position.
    pub(super) fn codes(&self) -> &[Code; AHEAD_CODES] {
        &self.code
    }

    /// The position past the last instruction.
    pub(super) fn len(&self) -> u8 {
        self.len
    }

    /// The position of the next instruction.
    pub(super) fn head(&self) -> u8 {
        self.head
    }

    /// Moves the position of the next instruction (the bulk turns took those before it).
    pub(super) fn set_head(&mut self, head: u8) {
        debug_assert!(head <= self.len);
        self.head = head;
    }

    /// Takes the next instruction: its index, and how the run ended if it was the last.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> (u32, End) {
        let index = self.index[self.head as usize];
        self.head += 1;
        let end = if self.is_empty() {
            self.end
        } else {
            End::Plain
        };
        (index, end)
    }
}

impl CuSim<'_> {
    /// After wave `s`'s queue gave an instruction: whether anything is left in it.
    #[inline(always)]
    pub(super) fn note_pop(&mut self, s: usize) {
        if self.aheads[s].is_empty() {
            self.hot[s].ahead = false;
            self.queued -= 1;
        }
    }

    /// Wave `s` issued taken backward branch `index`, the last instruction of its run: its
    /// registers are those after it, and the spin detector looks at them with this window's
    /// write counts.
    pub(super) fn back_edge(&mut self, s: usize, index: u32) {
        let slot = &mut self.slots[s];
        let group = self.groups[slot.group].as_ref().expect("resident group");
        let epoch = Epoch {
            memory: self.mem_epoch,
            lds: group.lds.writes(),
        };
        let env = self.e.env;
        self.spin_seen |=
            SpinState::back_edge(&mut slot.wave, index, epoch, env.spin_limit, env.vgprs);
    }

    /// The instruction index wave `s` issues next.
    #[inline(always)]
    pub fn next_index(&self, s: usize) -> u32 {
        match self.queued != 0 && self.hot[s].ahead {
            true => self.aheads[s].front().expect("ran ahead"),
            false => self.slots[s].wave.pc,
        }
    }
}

/// Runs ahead from wave `s`'s PC if a pure instruction is there; false if none ran.
pub(super) fn run(m: &mut CuSim, s: usize) -> bool {
    let start = m.prof.start();
    let ran = run_stretch(m, s);
    m.prof.stop(super::profile::Part::RunAhead, start);
    ran
}

/// (Out of line: its loop is the hot one, and inlined into its callers it kept fewer of its
/// values in registers across the semantics' calls, depending on what the callers held.)
#[inline(never)]
fn run_stretch(m: &mut CuSim, s: usize) -> bool {
    let facts = m.e.facts;
    let slot = &mut m.slots[s];
    let pc = slot.wave.pc as usize;
    // The run-time hazard tracker sees each instruction as it issues, with its wave's state.
    if !facts.get(pc).is_some_and(|f| f.pure)
        || !m.e.config.ahead
        || m.hazards.is_some()
        || !slot.out.pending.is_empty()
    {
        return false;
    }
    let program = m.e.program;
    let env = m.e.env;
    let group = m.groups[slot.group].as_mut().expect("resident group");
    let ahead = &mut m.aheads[s];
    let mut cx = Cx {
        wave: &mut slot.wave,
        mem: &mut m.no_memory,
        lds: &mut group.lds,
        program,
        env,
    };
    ahead.clear();
    // The instructions and their facts as slices of one length (one bounds check each), and
    // the queue's length in a local: the semantics are called through a pointer, so a field
    // would be stored and loaded again around every call.
    let insts = &program.insts[..program.insts.len().min(facts.len())];
    let facts = &facts[..insts.len()];
    let back_edges = env.spin_limit != 0;
    let region = m.e.ahead_code.and_then(|h| h.get_ahead(program));
    let mut n = 0;
    while n < AHEAD {
        let at = cx.wave.pc;
        // The compiled code from here, when MODE leaves instructions to their usual semantics.
        if let Some(code) = region
            .and_then(|r| r.entry(at))
            .filter(|_| cx.wave.mode & SLOW_MODES == 0)
        {
            let left = AHEAD - n;
            // (Each instruction's code is its `bulk_code`, written by the region.)
            let mut out = compiled::AheadOut {
                index: ahead.index[n..].as_mut_ptr(),
                code: ahead.code[n..].as_mut_ptr(),
            };
            let to = (&mut out as *mut compiled::AheadOut).cast();
            // SAFETY: the region calls the semantic functions of the program's instructions
            // with `cx`, as `execute` does below, and writes at most `left` indices and codes
            // from `index[n]` and `code[n]` ([`compiled::Region::compile_ahead`]).
            let out = unsafe { code(&mut cx, at as u64, left as u64, to) };
            let (k, code, stopped) = compiled::unpack(out);
            n += k as usize;
            match code {
                // Where the wave goes next is not pure, the run is full, or MODE asks for
                // the interpreter: the loop goes on (to the interpreter).
                compiled::ENDED | compiled::SLOW_MODE if k > 0 => continue,
                compiled::ENDED | compiled::SLOW_MODE => {}
                compiled::BACK_EDGE if back_edges => {
                    ahead.end = End::BackEdge;
                    break;
                }
                compiled::BACK_EDGE => continue,
                code => {
                    // Instruction `stopped` ran with an outcome that ends the run.
                    ahead.index[n] = stopped;
                    ahead.code[n] = facts[stopped as usize].bulk_code | bulk::IMPURE;
                    n += 1;
                    ahead.end = match compiled::outcome(code).and_then(Ran::flow) {
                        Some(flow) => End::Flow(flow),
                        None => {
                            ahead.fault = Some(Box::new(taken_fault(&mut cx)));
                            End::Fault
                        }
                    };
                    break;
                }
            }
        }
        let Some(f) = facts.get(at as usize).filter(|f| f.pure) else {
            break;
        };
        let d = &insts[at as usize];
        cx.wave.pc = at + 1;
        ahead.index[n] = at;
        ahead.code[n] = f.bulk_code;
        n += 1;
        match crate::exec::issue::execute(&mut cx, d) {
            Ok(Flow::Continue) => {}
            Ok(flow) => {
                ahead.end = End::Flow(flow);
                ahead.code[n - 1] |= bulk::IMPURE;
                break;
            }
            Err(fault) => {
                ahead.end = End::Fault;
                ahead.fault = Some(Box::new(fault));
                ahead.code[n - 1] |= bulk::IMPURE;
                break;
            }
        }
        if cx.wave.pc <= at && back_edges {
            ahead.end = End::BackEdge;
            break;
        }
    }
    ahead.len = n as u8;
    // The wave's own count, as if each had issued as it ran (a faulting one did not).
    cx.wave.instructions += n as u64 - (ahead.end == End::Fault) as u64;
    m.hot[s].ahead = true;
    m.queued += 1;
    true
}

/// Issues the oldest instruction that ran ahead: everything [`issue::issue`] does at issue
/// but executing it.
pub fn issue_next(m: &mut CuSim, s: usize, now: u64) -> Result<(), (Stop, [u32; 3])> {
    issue::barrier_timeout(m, s, now)?;
    let (index, end) = m.aheads[s].pop();
    m.note_pop(s);
    let slot = &mut m.slots[s];
    let d = &m.e.program.insts[index as usize];
    let f = m.e.facts[index as usize];
    account(
        &mut m.hot[s],
        slot,
        &mut m.stalls,
        &mut m.trace,
        now,
        StallReason::Executing,
    );
    issue::trace_issue(m, s, now, d);
    let mut flow = Flow::Continue;
    match end {
        End::Plain => {}
        End::BackEdge => m.back_edge(s, index),
        End::Fault => {
            let wave = m.slots[s].wave.index;
            let fault = *m.aheads[s].fault.take().expect("a fault ends the run");
            return Err((Stop::Fault { wave, index, fault }, m.group_id(s)));
        }
        End::Flow(f) => flow = f,
    }
    m.counts.wave_instructions += 1;
    m.counts.by_category[f.category as usize] += 1;
    issue::after_issue(m, s, now, index, &f, flow)
}
