//! A CU runs windows ahead of the dispatcher while nothing the dispatcher does between windows
//! can reach it. Windows interleave all CUs every 40 cycles, so each CU finds its waves'
//! registers and records gone from the host's cache since its last window; run back to back,
//! a CU's windows find them where they were left.
//!
//! Between windows the dispatcher runs the memory requests due in the next one, retires the
//! groups that finished and places waiting ones. A CU may run the window from `b` ahead when,
//! as of `b`, none of that touches it:
//! - no request of its own that carries registers back (a load, an LDS read, a returning
//!   atomic) is due in the window. Stores and other requests that write no register may come
//!   due: the CU needs nothing from them but their completion cycle, which it has, and the
//!   dispatcher runs them in their place in the global order later. (Loads of other CUs only
//!   read; their stores reach this CU only through its own loads.)
//! - no request is due in the window of a group whose waves have all ended (running it may
//!   finish the group), and no group has finished, so nothing is to be retired;
//! - it has no room for a waiting group, so nothing is placed on it;
//! - no wave of it spins ([`super::device`] looks for a livelock across all CUs at once);
//! - no instruction of it waits for the shared memory hierarchy ([`super::memory`]): the
//!   dispatcher answers those in time order across CUs, at the window they were issued in.
//!
//! The dispatcher then skips the CU in those windows, does not retire or place on it until it
//! reaches the window's end, and raises a guest stop met in the lead when it reaches the
//! window it was met in. A group whose last wave ended in the lead is finished by the
//! dispatcher when it reaches the lead's end ([`CuSim::settle`]), and a request run before
//! that counts only the waves ended before its window
//! ([`CuSim::retire_if_ended_before`]). So every decision is the one the dispatcher would
//! have made window by window, and the results and statistics are the same; a launch that
//! stops before a lead's end counts only what the CU issued up to the dispatcher's window
//! ([`super::cut`]).
//!
//! Windows in which the CU has no turn (every wave waits past their end) change nothing of the
//! above but the requests coming due, so a lead passes a run of them at once when none due
//! before the run's end stops it ([`CuSim::idle_until`]), marking each as having issued
//! nothing.
//!
//! What a lead does not see: the device's write count, which the spin detector compares at
//! each taken backward branch, stays at the lead's first window (the LDS's count is the
//! group's own, and exact). A wave that spins on memory waits for loads, whose completions end
//! leads, so the count it sees is at most a lead's length late; the livelock check needs it to
//! be the current one for every wave, so it finds a livelock later, never one that is not
//! there.

use super::engine::CuSim;

/// What the dispatcher allows a lead, decided at the window it starts from.
#[derive(Clone, Copy, Debug)]
pub struct LeadRules {
    /// Cycles in a window.
    pub window: u64,
    /// The end of the last window the lead may run (the dispatcher bounds leads so that the
    /// budget cannot run out within one).
    pub until: u64,
    /// Workgroups wait to be placed.
    pub waiting: bool,
}

impl CuSim<'_> {
    /// Runs windows from `b` (the end of the window just run) ahead while
    /// [`CuSim::may_lead`] allows and `rules.until` is not reached. A guest stop ends the lead
    /// and is held for the dispatcher.
    pub fn lead(&mut self, mut b: u64, rules: &LeadRules) {
        self.cut_lead(b, rules.window);
        while b < rules.until && self.may_lead(b, rules) {
            // The dispatcher may stop the launch at `b` ([`super::cut`]).
            if !self.cut_mark() {
                break;
            }
            let idle = self.idle_until(b, rules);
            if idle > b + rules.window {
                // The windows after the first each begin with nothing issued since the last.
                let windows = (idle - b) / rules.window;
                self.cut_idle(windows - 1);
                self.lead_until = idle;
                #[cfg(test)]
                tests::LEAD_WINDOWS.with(|n| n.set(n.get() + windows));
                #[cfg(test)]
                tests::IDLE_WINDOWS.with(|n| n.set(n.get() + windows));
                b = idle;
                continue;
            }
            let stop = b + rules.window;
            let ran = self.run_window(b, stop);
            self.lead_until = stop;
            #[cfg(test)]
            tests::LEAD_WINDOWS.with(|n| n.set(n.get() + 1));
            if let Err(stop) = ran {
                self.held = Some(stop);
                return;
            }
            b = stop;
        }
    }

    /// The end of the windows from `b` that the lead may pass together, when there are at
    /// least two (else the first one's end): windows with no turn in them (every wave waits
    /// past their end: the CU's next turn, `Cu::next`, is later) change nothing
    /// [`CuSim::may_lead`] looks at but the requests coming due, so they pass while none due
    /// before their end stops the lead.
    fn idle_until(&self, b: u64, rules: &LeadRules) -> u64 {
        let w = rules.window;
        let stop = b + w;
        let next = self.cu.next;
        if next < stop + w {
            return stop;
        }
        let end = (b + (next - b) / w * w).min(rules.until);
        match end > stop && self.requests.due_before(end).all(|q| self.passes(q)) {
            true => end,
            false => stop,
        }
    }

    /// Whether request `q` may come due in a window run ahead: it writes no register and its
    /// group has a wave that has not ended.
    fn passes(&self, q: &super::deferred::Request) -> bool {
        q.writes(self.e.models).is_empty() && self.alive(q.group)
    }

    /// Whether nothing the dispatcher does at the boundary `b` and in the window from it
    /// touches this CU (the module's rules).
    pub fn may_lead(&self, b: u64, rules: &LeadRules) -> bool {
        let due = b + rules.window;
        self.held.is_none()
            && !self.spin_seen
            && self.finished.is_empty()
            && self.memory.as_ref().is_none_or(|m| !m.has_pending())
            && !(rules.waiting
                && self
                    .cu
                    .room
                    .place(&self.e.demand, self.cu.slots.len())
                    .is_some())
            && self.requests.due_before(due).all(|q| self.passes(q))
    }

    /// Whether group `g` has a wave that has not ended.
    fn alive(&self, g: usize) -> bool {
        self.groups[g].as_ref().is_some_and(|g| g.alive > 0)
    }

    /// At the end of a lead: groups whose last wave ended in it and whose requests have run
    /// since are finished now, as they would have been when that wave ended.
    pub fn settle(&mut self) {
        for g in 0..self.groups.len() {
            self.retire_if_done(g);
        }
    }

    /// The stop held from a lead if it was met before cycle `stop`.
    pub fn held_before(&mut self, stop: u64) -> Option<(u64, crate::launch::Stop, [u32; 3])> {
        match &self.held {
            Some((cycle, ..)) if *cycle < stop => self.held.take(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cu::test_launch::{outcome, Outcome};
    use crate::cu::{Arbitration, TimingConfig};
    use gcn_isa::Target;
    use std::cell::Cell;

    thread_local! {
        /// Windows run ahead on this thread (a one-thread launch runs on the caller's).
        pub static LEAD_WINDOWS: Cell<u64> = const { Cell::new(0) };
        /// Of those, windows passed together with no turn in them.
        pub static IDLE_WINDOWS: Cell<u64> = const { Cell::new(0) };
    }

    /// Waves looping over vector and scalar ALU work with a store every eighth turn of the
    /// loop and one at the end: stores come due while CUs run ahead, groups end and others
    /// wait for their room.
    const STORING_LOOP: &str = "
        s_load_dwordx2 s[2:3], s[0:1], 0x0
        v_lshlrev_b32 v3, 2, v0
        v_mov_b32 v1, 0
        s_mov_b32 s4, 0
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v5, s3
        v_add_co_u32 v4, vcc, s2, v3
        v_addc_co_u32 v5, vcc, 0, v5, vcc
    again:
        v_add_u32 v1, v1, v0
        v_mul_lo_u32 v2, v1, v1
        v_xor_b32 v1, v1, v2
        s_add_u32 s4, s4, 1
        s_and_b32 s5, s4, 7
        s_cmp_lg_u32 s5, 0
        s_cbranch_scc1 skip
        global_store_dword v[4:5], v1, off
    skip:
        s_cmp_lg_u32 s4, 200
        s_cbranch_scc1 again
        global_store_dword v[4:5], v1, off
        s_endpgm";

    /// Statistics (or the stop), counts, budget left and buffer of 24 workgroups of 256 on
    /// two CUs, with the run-ahead (and so the leads) on or off.
    fn run(
        text: &str,
        ahead: bool,
        threads: usize,
        arbitration: Arbitration,
        budget: u64,
    ) -> Outcome {
        let config = TimingConfig {
            cus: 2,
            threads,
            arbitration,
            ahead,
            ..TimingConfig::for_target(Target::Gfx900)
        };
        outcome(text, (24, 256), &config, budget)
    }

    #[test]
    fn windows_run_ahead_give_the_results_and_statistics_of_windows_in_step() {
        // Without the last store, a group's waves may all end while stores of theirs are
        // still to run: the dispatcher must not finish it before it reaches their end.
        let no_last_store = STORING_LOOP.replace(
            "s_cbranch_scc1 again\n        global_store_dword v[4:5], v1, off",
            "s_cbranch_scc1 again",
        );
        assert_ne!(no_last_store, STORING_LOOP);
        for arbitration in [
            Arbitration::OldestFirst,
            Arbitration::RoundRobin,
            Arbitration::Random { seed: 7 },
        ] {
            for text in [STORING_LOOP, &no_last_store] {
                let in_step = run(text, false, 1, arbitration, u64::MAX);
                assert!(in_step.0.is_ok(), "{:?}", in_step.0);
                let before = LEAD_WINDOWS.with(Cell::get);
                let ahead = run(text, true, 1, arbitration, u64::MAX);
                let led = LEAD_WINDOWS.with(Cell::get) - before;
                assert!(led > 100, "{arbitration:?}: {led} windows run ahead");
                assert_eq!(ahead, in_step, "{arbitration:?}");
                assert_eq!(run(text, true, 2, arbitration, u64::MAX), in_step);
            }
        }
    }

    /// Waves that sleep in their loop leave windows with no turn in them, which a lead passes
    /// together: the results and statistics, and the stop of a budget that runs out, a trap
    /// or a store that faults meanwhile, are those of windows in step.
    #[test]
    fn windows_passed_together_give_what_windows_in_step_give() {
        // The outcome in step, after checking that a lead passing windows together gives it.
        let as_in_step = |text: &str, budget: u64| {
            let in_step = run(text, false, 1, Arbitration::OldestFirst, budget);
            let before = IDLE_WINDOWS.with(Cell::get);
            assert_eq!(
                run(text, true, 1, Arbitration::OldestFirst, budget),
                in_step
            );
            let passed = IDLE_WINDOWS.with(Cell::get) - before;
            assert!(passed > 0, "no windows passed together");
            in_step
        };
        let sleepy = STORING_LOOP.replace("again:", "again:\n s_sleep 4");
        let done = as_in_step(&sleepy, u64::MAX);
        assert!(done.0.is_ok(), "{:?}", done.0);
        let forever = sleepy.replace("s_cmp_lg_u32 s4, 200", "s_cmp_lg_u32 s4, 0");
        let budget = as_in_step(&forever, 600_000);
        assert!(
            budget.0.as_ref().is_err_and(|e| e.starts_with("Budget")),
            "{:?}",
            budget.0
        );
        let trap = as_in_step(&with_trap(&sleepy), u64::MAX);
        assert!(
            trap.0.as_ref().is_err_and(|e| e.contains("Trap")),
            "{:?}",
            trap.0
        );
        // A store that faults as it runs, between windows, with the other CU ahead of it
        // (its lead is taken back to the stop's boundary).
        let faulting = sleepy.replace(
            "skip:",
            "skip:\n s_cmp_lg_u32 s4, 100\n s_cbranch_scc1 keep\n \
             v_add_co_u32 v4, vcc, 0x100000, v4\nkeep:",
        );
        let fault = as_in_step(&faulting, u64::MAX);
        assert!(fault.0.is_err(), "{:?}", fault.0);
    }

    /// A budget that runs out while the waves loop: leads run while it is far and stop before
    /// it is near, so the stop names the instruction it names in step.
    #[test]
    fn the_budget_runs_out_where_it_would_in_step() {
        let forever = STORING_LOOP.replace("s_cmp_lg_u32 s4, 200", "s_cmp_lg_u32 s4, 0");
        let budget = 600_000;
        let in_step = run(&forever, false, 1, Arbitration::OldestFirst, budget);
        assert!(
            in_step.0.as_ref().is_err_and(|e| e.starts_with("Budget")),
            "{:?}",
            in_step.0
        );
        let before = LEAD_WINDOWS.with(Cell::get);
        let ahead = run(&forever, true, 1, Arbitration::OldestFirst, budget);
        assert!(LEAD_WINDOWS.with(Cell::get) > before, "no lead ran");
        assert_eq!(ahead, in_step);
    }

    /// `text` whose waves trap in their loop's 150th turn, those of the workgroups that start
    /// after the buffer's third word was stored.
    fn with_trap(text: &str) -> String {
        text.replace(
            "again:",
            "s_load_dword s6, s[2:3], 0x8\n s_waitcnt lgkmcnt(0)\nagain:",
        )
        .replace(
            "skip:",
            "skip:\n s_cmp_eq_u32 s4, 150\n s_cbranch_scc0 go\n \
             s_cmp_eq_u32 s6, 0\n s_cbranch_scc1 go\n s_trap 2\ngo:",
        )
    }

    /// Waves of the workgroups that start after the buffer's third word was stored trap at
    /// issue in their loop's 150th turn, in a window the other CU may have run ahead of: the
    /// stop, and the counts and budget of what issued before it, are those of windows in step.
    #[test]
    fn a_trap_stops_the_launch_where_it_would_in_step() {
        let trapping = with_trap(STORING_LOOP);
        let in_step = run(&trapping, false, 1, Arbitration::OldestFirst, u64::MAX);
        assert!(
            in_step.0.as_ref().is_err_and(|e| e.contains("Trap")),
            "{:?}",
            in_step.0
        );
        let before = LEAD_WINDOWS.with(Cell::get);
        assert_eq!(
            run(&trapping, true, 1, Arbitration::OldestFirst, u64::MAX),
            in_step
        );
        assert!(LEAD_WINDOWS.with(Cell::get) > before, "no lead ran");
        assert_eq!(
            run(&trapping, true, 2, Arbitration::OldestFirst, u64::MAX),
            in_step
        );
    }

    /// A store past the buffer's allocation faults when it runs, between windows: the stop,
    /// and the counts and budget of what issued before it, are those of windows in step,
    /// however far its CU or the other one ran ahead.
    #[test]
    fn a_store_that_faults_stops_the_launch_where_it_would_in_step() {
        let faulting = STORING_LOOP.replace(
            "s_cmp_lg_u32 s4, 200",
            "s_cmp_lg_u32 s4, 200\n v_add_co_u32 v4, vcc, 0x100000, v4",
        );
        let in_step = run(&faulting, false, 1, Arbitration::OldestFirst, u64::MAX);
        assert!(in_step.0.is_err(), "{:?}", in_step.0);
        let before = LEAD_WINDOWS.with(Cell::get);
        assert_eq!(
            run(&faulting, true, 1, Arbitration::OldestFirst, u64::MAX),
            in_step
        );
        assert!(LEAD_WINDOWS.with(Cell::get) > before, "no lead ran");
        assert_eq!(
            run(&faulting, true, 2, Arbitration::OldestFirst, u64::MAX),
            in_step
        );
    }
}
