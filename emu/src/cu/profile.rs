//! Where a timed launch spends the host's time (`TimingConfig::host_profile`, `gcnemu run
//! --host-profile`): the parts of the timing model are timed with the CPU's time-stamp counter
//! (a few nanoseconds a read, where a clock call costs tens) and summed per CU, so that the
//! figures behind a change to the model can be had from one run rather than from a profiler
//! and a build with symbols. Off, each probe is one predictable branch (there are none per
//! turn of the pass: its time is what the CU's window leaves). The parts nest: the
//! runs ahead happen inside the bulk turns, those inside each CU's window, and the CUs'
//! windows (on every thread, summed) inside the dispatcher's windows (wall clock).

use std::time::Instant;

/// The parts timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The windows, every CU's in turn or on several threads (the dispatcher's wall clock).
    Windows,
    /// One CU's window ([`CuSim::run_window`](super::engine::CuSim::run_window)), summed over
    /// CUs and threads.
    CuWindow,
    /// A SIMD's turns taken in bulk ([`super::bulk`]), with the runs ahead they start.
    Bulk,
    /// Pure stretches of a wave executed before they issue ([`super::ahead`]).
    RunAhead,
    /// The memory requests due, run between windows ([`super::deferred`]).
    Requests,
}

const PARTS: [Part; 5] = [
    Part::Windows,
    Part::CuWindow,
    Part::Bulk,
    Part::RunAhead,
    Part::Requests,
];

/// Ticks and calls per part, kept by one CU (or the dispatcher).
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub on: bool,
    ticks: [u64; PARTS.len()],
    calls: [u64; PARTS.len()],
}

/// The time-stamp counter, or nanoseconds where there is none.
#[inline(always)]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC is on every x86-64 CPU and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

impl Counters {
    pub fn new(on: bool) -> Counters {
        Counters {
            on,
            ..Counters::default()
        }
    }

    /// The counter now, if timing (0 otherwise: nothing is read).
    #[inline(always)]
    pub fn start(&self) -> u64 {
        if self.on {
            ticks()
        } else {
            0
        }
    }

    /// Adds the time since `start` to `part`.
    #[inline(always)]
    pub fn stop(&mut self, part: Part, start: u64) {
        if self.on {
            let i = part as usize;
            self.ticks[i] += ticks().wrapping_sub(start);
            self.calls[i] += 1;
        }
    }

    /// Adds another CU's figures.
    pub fn absorb(&mut self, other: &Counters) {
        for i in 0..PARTS.len() {
            self.ticks[i] += other.ticks[i];
            self.calls[i] += other.calls[i];
        }
    }
}

/// One part's share of a launch.
#[derive(Clone, Debug, PartialEq)]
pub struct PartTime {
    pub part: Part,
    /// Host seconds in it, summed over threads.
    pub seconds: f64,
    pub calls: u64,
}

/// A launch's host time by part.
#[derive(Clone, Debug, PartialEq)]
pub struct HostProfile {
    /// Wall-clock seconds of the whole launch.
    pub seconds: f64,
    /// Wave-instructions issued.
    pub instructions: u64,
    pub parts: Vec<PartTime>,
}

/// Measures a launch: the wall clock and the counter at its start, to turn ticks into seconds.
pub struct Clock {
    wall: Instant,
    ticks: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            ticks: ticks(),
        }
    }

    /// The profile of a launch that started at this clock, from every CU's counters.
    pub fn profile(&self, counters: &Counters, instructions: u64) -> HostProfile {
        let seconds = self.wall.elapsed().as_secs_f64();
        let elapsed = ticks().wrapping_sub(self.ticks).max(1);
        let per_tick = seconds / elapsed as f64;
        let parts = PARTS
            .iter()
            .map(|&part| PartTime {
                part,
                seconds: counters.ticks[part as usize] as f64 * per_tick,
                calls: counters.calls[part as usize],
            })
            .collect();
        HostProfile {
            seconds,
            instructions,
            parts,
        }
    }
}

impl HostProfile {
    /// Seconds in `part`.
    pub fn seconds_in(&self, part: Part) -> f64 {
        self.parts
            .iter()
            .find(|p| p.part == part)
            .map_or(0.0, |p| p.seconds)
    }

    /// The report's lines, indented by nesting: each part's seconds, its share of the part
    /// it is in, and nanoseconds per wave-instruction; the bulk turns without the runs ahead
    /// they started, and what is left of each part besides the parts in it.
    pub fn lines(&self) -> Vec<String> {
        let get = |p: Part| {
            self.parts
                .iter()
                .find(|x| x.part == p)
                .map_or((0.0, 0), |x| (x.seconds, x.calls))
        };
        let (windows, _) = get(Part::Windows);
        let (cus, cu_calls) = get(Part::CuWindow);
        let (bulk, bulk_calls) = get(Part::Bulk);
        let (ahead, ahead_calls) = get(Part::RunAhead);
        let (requests, requests_calls) = get(Part::Requests);
        let rows: [(usize, &str, f64, f64, Option<u64>); 9] = [
            (0, "launch (wall clock)", self.seconds, self.seconds, None),
            (1, "windows (wall clock)", windows, self.seconds, None),
            (
                2,
                "CUs' windows (all threads)",
                cus,
                windows,
                Some(cu_calls),
            ),
            (
                3,
                "bulk turns, without runs ahead",
                bulk - ahead,
                cus,
                Some(bulk_calls),
            ),
            (
                3,
                "runs ahead (the semantics)",
                ahead,
                cus,
                Some(ahead_calls),
            ),
            (3, "the pass, arbiter, the rest", cus - bulk, cus, None),
            (
                1,
                "requests between windows",
                requests,
                self.seconds,
                Some(requests_calls),
            ),
            (
                1,
                "dispatcher, placement",
                self.seconds - windows - requests,
                self.seconds,
                None,
            ),
            (0, "wave-instructions", 0.0, 0.0, None),
        ];
        rows.iter()
            .map(|&(depth, name, s, parent, calls)| {
                if parent == 0.0 {
                    return format!("{name}: {}", self.instructions);
                }
                let s = s.max(0.0);
                let calls = calls.map_or(String::new(), |c| format!(", {c} calls"));
                let name = format!("{}{name}", "  ".repeat(depth));
                format!(
                    "{name:<38} {s:>9.3} s {:>5.1}% {:>6.1} ns/instruction{calls}",
                    100.0 * s / parent.max(1e-12),
                    s * 1e9 / self.instructions.max(1) as f64,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Part;
    use crate::cu::test_launch::{launch_text, LOOP};
    use crate::cu::{Arbitration, TimingConfig};
    use gcn_isa::Target;

    fn run(host_profile: bool) -> crate::cu::TimedResult {
        let config = TimingConfig {
            cus: 1,
            arbitration: Arbitration::OldestFirst,
            host_profile,
            ..TimingConfig::for_target(Target::Gfx900)
        };
        let (result, ..) = launch_text(LOOP, (4, 256), 4096, &config, 1 << 30);
        result.unwrap_or_else(|_| panic!("the loop runs"))
    }

    #[test]
    fn the_profile_times_every_part_and_changes_no_result() {
        let with = run(true);
        let without = run(false);
        assert_eq!(with.stats, without.stats);
        assert!(without.profile.is_none());
        let p = with.profile.expect("asked for");
        // 16 waves, 10 instructions each outside the loop and 6 in each of its 40 rounds.
        assert_eq!(p.instructions, 16 * (10 + 6 * 40));
        let calls = |part: Part| p.parts.iter().find(|x| x.part == part).unwrap().calls;
        for part in [Part::Windows, Part::CuWindow, Part::Bulk, Part::RunAhead] {
            assert!(calls(part) > 0, "{part:?} never timed");
        }
        assert!(calls(Part::Requests) > 0);
        // Nested parts fit in the parts they are in (one thread: the CU's windows are the
        // windows), allowing for the counter reads themselves.
        let s = |part: Part| p.seconds_in(part);
        let slack = 1e-3;
        assert!(s(Part::RunAhead) <= s(Part::Bulk) + slack);
        assert!(s(Part::Bulk) <= s(Part::CuWindow) + slack);
        assert!(s(Part::CuWindow) <= s(Part::Windows) + slack);
        assert!(s(Part::Windows) + s(Part::Requests) <= p.seconds + slack);
        let lines = p.lines();
        assert!(lines[0].starts_with("launch (wall clock)"), "{lines:?}");
        assert!(lines
            .iter()
            .any(|l| l.contains("runs ahead (the semantics)")));
        assert_eq!(
            lines.last().unwrap(),
            &format!("wave-instructions: {}", p.instructions)
        );
    }
}
