//! A per-wave timeline in the Chrome trace-event format (opens in Perfetto and chrome://tracing):
//! one process per CU, one thread per wave, a complete event ("ph": "X") per stretch of cycles
//! in one state — executing, waitcnt, barrier, sleep. Timestamps are cycles (shown as µs).

use super::stats::StallReason;
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

    /// Appends another CU's timeline.
    pub fn absorb(&mut self, other: Trace) {
        self.meta.extend(other.meta);
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
