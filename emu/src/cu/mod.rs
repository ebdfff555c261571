//! The compute-unit model: workgroups placed on CUs by occupancy, waves issuing cycle by
//! cycle under the gfx9 issue rules, memory operations completing after a latency with their data
//! landing in registers only then, VM/LGKM/EXP counters, barriers, banked LDS, and what it shows
//! (stall cycles by reason, occupancy, a Chrome trace, stale-read diagnostics).
//!
//! The functional loop in [`crate::run`] stays as the fast path (`--timing off`); both call the
//! same semantic functions, so results differ only where the program itself depends on timing
//! (a missing `s_waitcnt`, a race).
//!
//! Modules: [`ahead`] (ALU runs executed before they issue), [`arbiter`] (the issue rule: which
//! waves a SIMD's turn issues), [`beside`] (a window's loads of
//! different CUs run on the worker threads), [`bulk`] (a SIMD's turns many at
//! a time while its waves run pure instructions), [`config`] (latencies, CU count, arbitration), [`facts`] (what each instruction means
//! to the timing: issue unit, VALU cycles, latency class, LDS access shape), [`occupancy`]
//! (placement limits), [`memory`] (the memory hierarchy's answers: lines, caches, bandwidth), [`inflight`] (outstanding memory operations and their register landing),
//! [`engine`] (one CU stepping a cycle), [`issue`] (one instruction issuing), [`deferred`]
//! (memory instructions run between windows, in completion order), [`requests`] (a CU's
//! memory instructions waiting to run, by completion), [`place`] (starting a
//! workgroup), [`device`] (the windows over all CUs, on one or more threads), [`lead`] (a CU
//! running windows ahead of the others while nothing between windows reaches it), [`cut`] (what
//! a launch that stops has issued, whatever ran ahead), [`stats`] and [`trace`].

pub(crate) mod ahead;
pub(crate) mod arbiter;
pub(crate) mod beside;
pub(crate) mod bulk;
pub mod config;
pub(crate) mod cut;
pub(crate) mod deferred;
pub mod device;
pub(crate) mod engine;
pub(crate) mod facts;
pub(crate) mod inflight;
pub(crate) mod issue;
pub(crate) mod lead;
pub(crate) mod memory;
pub mod occupancy;
pub(crate) mod place;
pub(crate) mod profile;
pub(crate) mod requests;
pub mod stats;
#[cfg(test)]
pub(crate) mod test_launch;
pub(crate) mod trace;

pub use config::{Arbitration, Latencies, TimingConfig};
pub use device::{run_timed, TimedError, TimedResult, TimedRun};
pub use stats::{StaleRead, StallReason, TimingStats};
