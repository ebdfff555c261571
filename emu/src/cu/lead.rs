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
//! - it has no room for a waiting group, so nothing is placed on it.
//! - no wave of it spins ([`super::device`] looks for a livelock across all CUs at once).
//!
//! The dispatcher then skips the CU in those windows, does not retire or place on it until it
//! reaches the window's end, and raises a guest stop met in the lead when it reaches the
//! window it was met in. A group whose last wave ended in the lead is finished by the
//! dispatcher when it reaches the lead's end ([`CuSim::settle`]), and a request run before
//! that counts only the waves ended before its window
//! ([`CuSim::retire_if_ended_before`]). So every decision is the one the dispatcher would
//! have made window by window, and the results and statistics are the same.
//!
//! What a lead does not see: the device's write count, which the spin detector compares at
//! each taken backward branch, stays at the lead's first window. A wave spinning on memory
//! loads, whose completions end leads, so its count is that of the window at most a lead's
//! length late; the livelock check needs the count to be the current one for every wave, so
//! it finds a livelock only later, never one that is not there.

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
        while b < rules.until && self.may_lead(b, rules) {
            let stop = b + rules.window;
            let ran = self.run_window(b, stop);
            self.lead_until = stop;
            if let Err(stop) = ran {
                self.held = Some(stop);
                return;
            }
            b = stop;
        }
    }

    /// Whether nothing the dispatcher does at the boundary `b` and in the window from it
    /// touches this CU (the module's rules).
    pub fn may_lead(&self, b: u64, rules: &LeadRules) -> bool {
        let due = b + rules.window;
        self.held.is_none()
            && !self.spin_seen
            && self.finished.is_empty()
            && !(rules.waiting
                && self
                    .cu
                    .room
                    .place(&self.e.demand, self.cu.slots.len())
                    .is_some())
            && self
                .requests
                .iter()
                .all(|q| q.done >= due || q.writes.is_empty() && self.alive(q.group))
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
