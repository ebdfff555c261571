//! A per-wave timeline in the Chrome trace-event format (opens in Perfetto and chrome://tracing):
//! one process per CU, one thread per wave, a complete event ("ph": "X") per stretch of cycles
//! in one state — executing, waitcnt, barrier, sleep. Timestamps are cycles (shown as µs).
//!
//! With the memory hierarchy modelled, a "memory system" process below the CUs carries counter
//! tracks ("ph": "C"), one value per [`MEMORY_SAMPLE_CYCLES`]: the L2's requests per cycle and
//! hit rate, and device memory's traffic in GB/s, so a kernel's memory-bound stretches show
//! beside the waves that wait on them.

use super::stats::StallReason;
use crate::memsys::timeline::Sample as MemorySample;
use serde::Serialize;
use std::io::Write;

/// Recording stops after this many segments so a long kernel cannot fill memory; the trace
/// then says it was truncated.
pub const MAX_SEGMENTS: usize = 4_000_000;

#[derive(Clone, Debug, PartialEq, Serialize)]
struct Segment {
    name: &'static str,
    ph: &'static str,
    ts: u64,
    dur: u64,
    pid: u32,
    tid: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct Meta {
    name: &'static str,
    ph: &'static str,
    pid: u32,
    tid: u64,
    args: MetaArgs,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct MetaArgs {
    name: String,
}

/// Cycles each memory-system counter value covers.
pub const MEMORY_SAMPLE_CYCLES: u64 = 1000;

/// One value of a counter track.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Counter {
    name: &'static str,
    ph: &'static str,
    ts: u64,
    pid: u32,
    args: CounterArgs,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct CounterArgs {
    value: f64,
}

/// The open stretch of one wave.
#[derive(Clone, Copy, Debug)]
pub struct Open {
    name: &'static str,
    since: u64,
}

#[derive(Debug, Default, PartialEq)]
pub struct Trace {
    segments: Vec<Segment>,
    meta: Vec<Meta>,
    counters: Vec<Counter>,
    pub truncated: bool,
}

/// The timeline state a stall reason shows as: ready-but-not-issued counts as executing, as a
/// profiler's "wave active" does.
pub fn state_name(r: StallReason) -> &'static str {
    match r {
        StallReason::Executing | StallReason::Issue | StallReason::Dependency => "executing",
        StallReason::Waitcnt => "waitcnt",
        StallReason::Barrier => "barrier",
        StallReason::Sleep => "sleep",
    }
}

impl Trace {
    /// Names the track of wave `tid` on CU `cu`.
    pub fn name_wave(&mut self, cu: u32, tid: u64, name: String) {
        if self.meta.len() < MAX_SEGMENTS {
            self.meta.push(Meta {
                name: "thread_name",
                ph: "M",
                pid: cu,
                tid,
                args: MetaArgs { name },
            });
        }
    }

    pub fn name_cu(&mut self, cu: u32) {
        self.meta.push(Meta {
            name: "process_name",
            ph: "M",
            pid: cu,
            tid: 0,
            args: MetaArgs {
                name: format!("CU {cu}"),
            },
        });
    }

    /// Wave `tid` is in state `name` from `now`; closes its previous stretch if it differs.
    pub fn switch(
        &mut self,
        open: &mut Option<Open>,
        cu: u32,
        tid: u64,
        name: &'static str,
        now: u64,
    ) {
        match open {
            Some(o) if o.name == name => {}
            Some(o) => {
                self.close(o, cu, tid, now);
                *open = Some(Open { name, since: now });
            }
            None => *open = Some(Open { name, since: now }),
        }
    }

    /// Ends the open stretch at `now` (the wave ended).
    pub fn finish(&mut self, open: &mut Option<Open>, cu: u32, tid: u64, now: u64) {
        if let Some(o) = open.take() {
            self.close(&o, cu, tid, now);
        }
    }

    fn close(&mut self, o: &Open, cu: u32, tid: u64, now: u64) {
        if now <= o.since {
            return;
        }
        if self.segments.len() >= MAX_SEGMENTS {
            self.truncated = true;
            return;
        }
        self.segments.push(Segment {
            name: o.name,
            ph: "X",
            ts: o.since,
            dur: now - o.since,
            pid: cu,
            tid,
        });
    }

    /// Records the memory system's counters over `[from, to)` cycles, on the track of process
    /// `pid` (after the CUs'), for an engine clocked at `clock_khz`.
    pub fn memory_sample(&mut self, pid: u32, from: u64, to: u64, d: MemorySample, clock_khz: u32) {
        if to <= from {
            return;
        }
        if self.counters.is_empty() {
            self.meta.push(Meta {
                name: "process_name",
                ph: "M",
                pid,
                tid: 0,
                args: MetaArgs {
                    name: "memory system".into(),
                },
            });
        }
        if self.counters.len() + 3 > MAX_SEGMENTS {
            self.truncated = true;
            return;
        }
        let cycles = (to - from) as f64;
        let ns = cycles * 1e6 / clock_khz.max(1) as f64;
        let hit_rate = if d.l2_requests == 0 {
            0.0
        } else {
            d.l2_hits as f64 / d.l2_requests as f64
        };
        for (name, value) in [
            ("L2 requests per cycle", d.l2_requests as f64 / cycles),
            ("L2 hit rate", hit_rate),
            ("HBM GB/s", d.dram_bytes as f64 / ns),
        ] {
            self.counters.push(Counter {
                name,
                ph: "C",
                ts: from,
                pid,
                args: CounterArgs { value },
            });
        }
    }

    /// Appends another CU's timeline.
    pub fn absorb(&mut self, other: Trace) {
        self.meta.extend(other.meta);
        self.counters.extend(other.counters);
        let room = MAX_SEGMENTS.saturating_sub(self.segments.len());
        self.truncated |= other.truncated || other.segments.len() > room;
        self.segments.extend(other.segments.into_iter().take(room));
    }

    pub fn segments(&self) -> usize {
        self.segments.len()
    }

    /// Writes the trace as JSON, event by event (a long trace is never built as one value).
    pub fn write(&self, out: &mut dyn Write, kernel: &str) -> std::io::Result<()> {
        out.write_all(b"{\"traceEvents\":[")?;
        let mut first = true;
        let mut sep = |out: &mut dyn Write| -> std::io::Result<()> {
            if !std::mem::take(&mut first) {
                out.write_all(b",\n")?;
            }
            Ok(())
        };
        for m in &self.meta {
            sep(out)?;
            serde_json::to_writer(&mut *out, m)?;
        }
        for s in &self.segments {
            sep(out)?;
            serde_json::to_writer(&mut *out, s)?;
        }
        for c in &self.counters {
            sep(out)?;
            serde_json::to_writer(&mut *out, c)?;
        }
        let other = serde_json::json!({
            "kernel": kernel,
            "kernel_demangled": crate::symbol::demangle(kernel),
            "time_unit": "1 trace microsecond = 1 GPU cycle",
            "truncated": self.truncated,
        });
        write!(out, "],\"displayTimeUnit\":\"ns\",\"otherData\":{other}}}")?;
        Ok(())
    }
}
