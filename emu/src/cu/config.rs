//! Knobs of the timing model. Defaults are round figures of published Vega measurements, not
//! calibrated against a particular board; every one can be set from the command line.

/// Cycles from issue to completion (data in registers, counter decremented) by memory class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Latencies {
    /// MUBUF/MTBUF/GLOBAL/SCRATCH/FLAT: a mix of L2 hits and DRAM on a Vega board is a few
    /// hundred cycles.
    pub vmem: u32,
    /// Scalar loads from the constant cache.
    pub smem: u32,
    /// LDS, before bank-conflict cycles.
    pub lds: u32,
    /// s_sendmsg until the message is sent.
    pub message: u32,
    /// Cycles the texture-address unit needs per vector memory instruction (64 lanes at 16
    /// addresses a cycle): later vector memory instructions of the CU queue behind it.
    pub vmem_issue: u32,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            vmem: 400,
            smem: 40,
            lds: 64,
            message: 8,
            vmem_issue: 4,
        }
    }
}

impl Latencies {
    /// Sets one latency from `name=cycles` (`vmem`, `smem`, `lds`, `message`, `vmem-issue`).
    pub fn set(&mut self, spec: &str) -> Result<(), String> {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("latency `{spec}`: expected NAME=CYCLES, e.g. vmem=400"))?;
        let cycles: u32 = value
            .trim()
            .parse()
            .map_err(|_| format!("latency `{spec}`: `{value}` is not a number of cycles"))?;
        if cycles == 0 || cycles > 1_000_000 {
            return Err(format!("latency `{spec}`: cycles must be 1 to 1000000"));
        }
        let slot = match name.trim() {
            "vmem" => &mut self.vmem,
            "smem" => &mut self.smem,
            "lds" => &mut self.lds,
            "message" => &mut self.message,
            "vmem-issue" => &mut self.vmem_issue,
            other => {
                return Err(format!(
                    "latency `{other}`: known names are vmem, smem, lds, message, vmem-issue"
                ))
            }
        };
        *slot = cycles;
        Ok(())
    }
}

/// How a SIMD's issue arbiter orders waves that are ready in the same cycle. S_SETPRIO's
/// priority is honoured first in every mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// The wave that started first goes first (the hardware's default).
    OldestFirst,
    /// Rotate the starting wave every cycle.
    RoundRobin,
    /// Random order among ready waves and latencies varied by up to ±50 %, from a seed: the
    /// same seed gives the same run.
    Random { seed: u64 },
}

/// The timing model of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingConfig {
    /// Compute units of the device; workgroups are spread over them.
    pub cus: u32,
    pub latencies: Latencies,
    pub arbitration: Arbitration,
    /// Record a per-wave timeline for a Chrome trace.
    pub trace: bool,
    /// A wave waiting at s_barrier for this many cycles while the rest of its workgroup keeps
    /// running ends the dispatch as a deadlock.
    pub barrier_timeout: u64,
    /// Host threads that run the CUs (results are the same for any count).
    pub threads: usize,
    /// Run waves' pure ALU stretches before they issue ([`super::ahead`]) and take a SIMD's
    /// turns in bulk while its waves run them ([`super::bulk`]). Results and statistics are
    /// the same either way; off only to compare the two (tests, the fuzz target).
    pub ahead: bool,
    /// Time the parts of the model on the host ([`super::profile`]).
    pub host_profile: bool,
    /// The target whose board's memory hierarchy ([`crate::memsys`]) times vector and scalar
    /// memory; `None`: the fixed `vmem` and `smem` latencies do.
    pub memory: Option<gcn_isa::Target>,
}

/// Compute units of the board the target names ([`crate::board`]).
pub fn default_cus(target: gcn_isa::Target) -> u32 {
    crate::board::board(target).compute_units
}

impl TimingConfig {
    /// Cycles in a window: CUs run a window on their own and memory instructions run between
    /// windows, so a window may be no longer than the shortest memory latency (latencies are
    /// at least half their setting under `--schedule random`).
    pub fn window(&self) -> u64 {
        let l = &self.latencies;
        let (vmem, smem) = match self.memory.and_then(crate::memsys::params) {
            Some(p) => (
                p.l1.latency_cycles.min(p.l2.latency_cycles),
                p.scalar.latency_cycles,
            ),
            None => (l.vmem, l.smem),
        };
        let shortest = vmem.min(smem).min(l.lds).max(1) as u64;
        match self.arbitration {
            Arbitration::Random { .. } => (shortest - shortest / 2).max(1),
            _ => shortest.max(1),
        }
    }

    pub fn for_target(target: gcn_isa::Target) -> TimingConfig {
        TimingConfig {
            cus: default_cus(target),
            latencies: Latencies::default(),
            arbitration: Arbitration::OldestFirst,
            trace: false,
            barrier_timeout: 100_000_000,
            threads: 1,
            ahead: true,
            host_profile: false,
            memory: crate::memsys::params(target).map(|_| target),
        }
    }

    /// Sets a latency from `name=cycles` ([`Latencies::set`]); a vector or scalar memory
    /// latency replaces the memory hierarchy with fixed latencies.
    pub fn set_latency(&mut self, spec: &str) -> Result<(), String> {
        self.latencies.set(spec)?;
        let name = spec.split_once('=').map_or("", |(n, _)| n.trim());
        if matches!(name, "vmem" | "smem" | "vmem-issue") {
            self.memory = None;
        }
        Ok(())
    }
}
