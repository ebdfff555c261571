//! Engine settings carried in environment variables: `gcnemu exec` writes them from its flags and
//! the HIP runtime library (`libamdhip64.so.5`, crate `gcnemu-hip`) reads them in the program it
//! runs. One parser serves both, so `exec` rejects a bad value before it starts the program.
//!
//! | variable | value | default |
//! |---|---|---|
//! | `GCNEMU_TARGET` | `gfx900`, `gfx906`, `gfx908`, `gfx90a`, ... | `gfx900` |
//! | `GCNEMU_TIMING` | `on` or `off` | `on` |
//! | `GCNEMU_THREADS` | host threads running workgroups (functional) or CUs (timing model) | every core |
//! | `GCNEMU_CUS` | compute units | the target's |
//! | `GCNEMU_SCHEDULE` | `oldest`, `round-robin`, `random` | `oldest` |
//! | `GCNEMU_SEED` | seed of `random` | 0 |
//! | `GCNEMU_LATENCY` | `NAME=CYCLES[,NAME=CYCLES...]` | see `gcnemu run --help` |
//! | `GCNEMU_HAZARDS` | `off`, `warn`, `error` | `warn` |
//! | `GCNEMU_MAX_INSTRUCTIONS` | wave-instruction budget per launch | 2×10^10 |
//! | `GCNEMU_TIMEOUT` | wall-clock seconds per launch (`0`: none) | 600 |
//! | `GCNEMU_CLOCK` | `host` (s_memtime and s_memrealtime follow the host's clock at the board's rates) or `instructions` (they count the wave's instructions: deterministic); `host` is functional-engine only | `host` with `GCNEMU_TIMING=off`, else `instructions` |
//! | `GCNEMU_COMPILE` | when a kernel's code is compiled to host code (functional engine, and the timing model's runs ahead): `hot` (once it has run a while), `always`, `never` (results are the same) | `hot` |
//! | `GCNEMU_SPIN_LIMIT` | spin detector: write-free loop iterations before a look (`0`: off) | 1024 |
//! | `GCNEMU_STATS` | `1`: a per-kernel summary on stderr at exit | off |
//! | `GCNEMU_STATS_JSON` | path of the same summary as JSON | none |
//! | `GCNEMU_MEMORY_LIMIT` | bytes of device memory | 4 GiB |
//! | `GCNEMU_DEVICES` | emulated GPUs the HIP runtime offers (1 to 16), each with its own memory limit | 1 |
//! | `GCNEMU_CHECK` | sanitizers: `memcheck,racecheck,initcheck,leaks` or `all` | none |
//! | `GCNEMU_CHECK_JSON` | path of the sanitizer findings as JSON, written at exit | none |
//! | `GCNEMU_CHECK_ERROR` | `1`: exit with status 1 when a sanitizer found anything | off |

use crate::check::CheckSet;
use crate::cu::{Arbitration, TimingConfig};
use crate::device::{LaunchOptions, DEFAULT_MAX_INSTRUCTIONS, DEFAULT_TIMEOUT};
use crate::launch::hazards::HazardMode;
use crate::memory::DEFAULT_MEMORY_LIMIT;
use crate::wave::spin::DEFAULT_SPIN_LIMIT;
use gcn_isa::Target;
use std::path::PathBuf;

pub const TARGET: &str = "GCNEMU_TARGET";
pub const TIMING: &str = "GCNEMU_TIMING";
pub const THREADS: &str = "GCNEMU_THREADS";
pub const CUS: &str = "GCNEMU_CUS";
pub const SCHEDULE: &str = "GCNEMU_SCHEDULE";
pub const SEED: &str = "GCNEMU_SEED";
pub const LATENCY: &str = "GCNEMU_LATENCY";
pub const HAZARDS: &str = "GCNEMU_HAZARDS";
pub const MAX_INSTRUCTIONS: &str = "GCNEMU_MAX_INSTRUCTIONS";
pub const STATS: &str = "GCNEMU_STATS";
pub const STATS_JSON: &str = "GCNEMU_STATS_JSON";
pub const MEMORY_LIMIT: &str = "GCNEMU_MEMORY_LIMIT";
pub const TIMEOUT: &str = "GCNEMU_TIMEOUT";
pub const CHECK: &str = "GCNEMU_CHECK";
pub const CHECK_JSON: &str = "GCNEMU_CHECK_JSON";
pub const CHECK_ERROR: &str = "GCNEMU_CHECK_ERROR";
pub const SPIN_LIMIT: &str = "GCNEMU_SPIN_LIMIT";
pub const DEVICES: &str = "GCNEMU_DEVICES";
pub const CLOCK: &str = "GCNEMU_CLOCK";
pub const COMPILE: &str = "GCNEMU_COMPILE";

/// The most devices `GCNEMU_DEVICES` may ask for.
pub const MAX_DEVICES: u32 = 16;

/// Every variable this module reads.
pub const ALL: [&str; 20] = [
    TARGET,
    TIMING,
    THREADS,
    CUS,
    SCHEDULE,
    SEED,
    LATENCY,
    HAZARDS,
    MAX_INSTRUCTIONS,
    STATS,
    STATS_JSON,
    MEMORY_LIMIT,
    TIMEOUT,
    CHECK,
    CHECK_JSON,
    CHECK_ERROR,
    SPIN_LIMIT,
    DEVICES,
    CLOCK,
    COMPILE,
];

/// How a program's kernels are run.
#[derive(Clone)]
pub struct Settings {
    pub target: Target,
    /// `GCNEMU_TARGET=gfx90a:xnack+`: the device runs with XNACK on ([`crate::DeviceConfig::xnack`]).
    pub xnack: bool,
    pub memory_limit: u64,
    /// How many GPUs the HIP runtime offers (`GCNEMU_DEVICES`), all of `target`.
    pub devices: u32,
    /// Options of every launch (no progress callback).
    pub launch: LaunchOptions,
    /// Print a per-kernel summary at exit.
    pub stats: bool,
    pub stats_json: Option<PathBuf>,
    /// The sanitizers to run.
    pub checks: CheckSet,
    /// Where to write their findings at exit.
    pub check_json: Option<PathBuf>,
    /// Exit with status 1 when they found anything.
    pub check_error: bool,
}

impl Settings {
    /// Reads the settings from the process environment.
    pub fn from_env() -> Result<Settings, String> {
        Settings::from_vars(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `var` (a variable's value, or `None` when unset). An empty
    /// value counts as unset. The error names the variable and what it accepts.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let get = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let bad = |name: &str, value: &str, want: &str| format!("{name}={value}: expected {want}");
        let number = |name: &str| -> Result<Option<u64>, String> {
            get(name)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map_err(|_| bad(name, &v, "a non-negative integer"))
                })
                .transpose()
        };
        let target = match get(TARGET) {
            Some(v) => Target::from_name(v.trim()).ok_or_else(|| {
                let known: Vec<String> = Target::ALL.iter().map(|t| t.to_string()).collect();
                bad(TARGET, &v, &format!("one of {}", known.join(", ")))
            })?,
            None => Target::Gfx900,
        };
        let xnack = get(TARGET)
            .and_then(|v| gcn_loader::TargetId::parse(v.trim()))
            .is_some_and(|id| id.xnack == Some(true));
        let timing_on = match get(TIMING).as_deref().map(str::trim) {
            None | Some("on") => true,
            Some("off") => false,
            Some(v) => return Err(bad(TIMING, v, "on or off")),
        };
        let timing_only = [CUS, SCHEDULE, SEED, LATENCY];
        let threads = match number(THREADS)? {
            Some(n) if (1..=256).contains(&n) => n as usize,
            Some(n) => return Err(bad(THREADS, &n.to_string(), "1 to 256")),
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let timing = if timing_on {
            let mut t = TimingConfig::for_target(target);
            if let Some(n) = number(CUS)? {
                if !(1..=1024).contains(&n) {
                    return Err(bad(CUS, &n.to_string(), "1 to 1024"));
                }
                t.cus = n as u32;
            }
            let seed = number(SEED)?.unwrap_or(0);
            t.arbitration = match get(SCHEDULE).as_deref().map(str::trim) {
                None | Some("oldest") => Arbitration::OldestFirst,
                Some("round-robin") => Arbitration::RoundRobin,
                Some("random") => Arbitration::Random { seed },
                Some(v) => return Err(bad(SCHEDULE, v, "oldest, round-robin or random")),
            };
            if let Some(specs) = get(LATENCY) {
                for spec in specs.split(',') {
                    t.set_latency(spec.trim())
                        .map_err(|e| format!("{LATENCY}: {e}"))?;
                }
            }
            t.threads = threads;
            Some(t)
        } else {
            if let Some(name) = timing_only.iter().find(|n| get(n).is_some()) {
                return Err(format!(
                    "{name} needs the timing model; unset it or {TIMING}=off"
                ));
            }
            None
        };
        // A program that spins on clock64() for the time the reported clock rate promises gets
        // that time on the functional engine only from the host's clock (crate::exec::clock).
        let host_clock = match get(CLOCK).as_deref().map(str::trim) {
            None => !timing_on,
            Some("host") if timing_on => {
                return Err(format!("{CLOCK}=host needs {TIMING}=off"));
            }
            Some("host") => true,
            Some("instructions") => false,
            Some(v) => return Err(bad(CLOCK, v, "host or instructions")),
        };
        let hazards = match get(HAZARDS).as_deref().map(str::trim) {
            None => HazardMode::Warn,
            Some(v) => v
                .parse()
                .map_err(|_| bad(HAZARDS, v, "off, warn or error"))?,
        };
        let max_instructions = number(MAX_INSTRUCTIONS)?.unwrap_or(DEFAULT_MAX_INSTRUCTIONS);
        let stats = match get(STATS).as_deref().map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(bad(STATS, v, "0 or 1")),
        };
        let memory_limit = number(MEMORY_LIMIT)?.unwrap_or(DEFAULT_MEMORY_LIMIT);
        let timeout = match get(TIMEOUT) {
            None => Some(DEFAULT_TIMEOUT),
            Some(v) => parse_timeout(&v).map_err(|why| format!("{TIMEOUT}={v}: {why}"))?,
        };
        let checks = match get(CHECK) {
            Some(v) => CheckSet::parse(&v).map_err(|why| format!("{CHECK}={v}: {why}"))?,
            None => CheckSet::NONE,
        };
        let check_error = match get(CHECK_ERROR).as_deref().map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(bad(CHECK_ERROR, v, "0 or 1")),
        };
        if checks.is_empty() {
            if let Some(name) = [CHECK_JSON, CHECK_ERROR].iter().find(|n| get(n).is_some()) {
                return Err(format!("{name} needs {CHECK}"));
            }
        }
        let spin_limit = match number(SPIN_LIMIT)? {
            Some(n) => u32::try_from(n)
                .map_err(|_| bad(SPIN_LIMIT, &n.to_string(), "at most 4294967295"))?,
            None => DEFAULT_SPIN_LIMIT,
        };
        let compile = match get(COMPILE) {
            Some(v) => v
                .trim()
                .parse()
                .map_err(|why| format!("{COMPILE}: {why}"))?,
            None => Default::default(),
        };
        let devices = match number(DEVICES)? {
            None => 1,
            Some(n) if (1..=MAX_DEVICES as u64).contains(&n) => n as u32,
            Some(n) => return Err(bad(DEVICES, &n.to_string(), "1 to 16")),
        };
        Ok(Settings {
            target,
            xnack,
            memory_limit,
            devices,
            launch: LaunchOptions {
                dynamic_lds: 0,
                max_instructions: Some(max_instructions),
                progress: None,
                hazards,
                timing,
                timeout,
                spin_limit,
                threads,
                cooperative: false,
                multigrid_sync: 0,
                host_clock,
                compile,
            },
            stats,
            stats_json: get(STATS_JSON).map(PathBuf::from),
            checks,
            check_json: get(CHECK_JSON).map(PathBuf::from),
            check_error,
        })
    }
}

/// A timeout in seconds (fractions allowed); `0` means none.
pub fn parse_timeout(text: &str) -> Result<Option<std::time::Duration>, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s >= 0.0 && *s < 1e9)
        .ok_or("expected seconds, e.g. 600 or 0.5 (0: no timeout)")?;
    Ok((seconds > 0.0).then(|| std::time::Duration::from_secs_f64(seconds)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(vars: &[(&str, &str)]) -> Result<Settings, String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_vars(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_match_gcnemu_run() {
        let s = parse(&[]).unwrap();
        assert_eq!(s.target, Target::Gfx900);
        assert!(s.launch.timing.is_some());
        assert_eq!(s.launch.hazards, HazardMode::Warn);
        assert_eq!(s.launch.max_instructions, Some(DEFAULT_MAX_INSTRUCTIONS));
        assert_eq!(s.launch.timeout, Some(DEFAULT_TIMEOUT));
        assert_eq!(s.launch.spin_limit, DEFAULT_SPIN_LIMIT);
        assert_eq!(parse(&[(SPIN_LIMIT, "0")]).unwrap().launch.spin_limit, 0);
        assert!(!s.stats);
        assert_eq!(s.devices, 1);
        assert_eq!(parse(&[(DEVICES, "4")]).unwrap().devices, 4);
    }

    #[test]
    fn the_host_clock_is_the_functional_engines_default() {
        let host = |vars: &[(&str, &str)]| parse(vars).map(|s| s.launch.host_clock);
        assert_eq!(host(&[]), Ok(false));
        assert_eq!(host(&[(TIMING, "off")]), Ok(true));
        assert_eq!(host(&[(TIMING, "off"), (CLOCK, "instructions")]), Ok(false));
        assert_eq!(host(&[(CLOCK, "instructions")]), Ok(false));
        let e = host(&[(CLOCK, "host")]).unwrap_err();
        assert!(
            e.contains("GCNEMU_CLOCK=host needs GCNEMU_TIMING=off"),
            "{e}"
        );
        let e = host(&[(TIMING, "off"), (CLOCK, "wall")]).unwrap_err();
        assert!(
            e.contains("GCNEMU_CLOCK=wall: expected host or instructions"),
            "{e}"
        );
    }

    #[test]
    fn timeout_in_seconds_or_none() {
        let timeout = |v| parse(&[(TIMEOUT, v)]).map(|s| s.launch.timeout);
        assert_eq!(
            timeout("2.5"),
            Ok(Some(std::time::Duration::from_millis(2500)))
        );
        assert_eq!(timeout("0"), Ok(None));
        let e = timeout("soon").unwrap_err();
        assert!(e.contains("GCNEMU_TIMEOUT=soon: expected seconds"), "{e}");
    }

    #[test]
    fn values_and_errors() {
        let s = parse(&[
            (TARGET, "gfx906"),
            (TIMING, "off"),
            (HAZARDS, "error"),
            (STATS, "1"),
        ])
        .unwrap();
        assert_eq!(s.target, Target::Gfx906);
        assert!(s.launch.timing.is_none());
        // The CDNA targets, with a target-id suffix as HIP spells them.
        for (name, t, xnack) in [
            ("gfx908", Target::Gfx908, false),
            ("gfx90a:xnack-", Target::Gfx90a, false),
            ("gfx90a:xnack+", Target::Gfx90a, true),
            ("gfx90a:sramecc+:xnack+", Target::Gfx90a, true),
        ] {
            let s = parse(&[(TARGET, name)]).unwrap();
            assert_eq!((s.target, s.xnack), (t, xnack), "{name}");
        }
        assert_eq!(s.launch.hazards, HazardMode::Error);
        assert!(s.stats);
        let s = parse(&[
            (CHECK, "all"),
            (CHECK_ERROR, "1"),
            (CHECK_JSON, "/tmp/c.json"),
        ])
        .unwrap();
        assert_eq!(s.checks.names(), "memcheck,racecheck,initcheck,leaks");
        assert!(s.check_error);
        assert_eq!(s.check_json, Some(PathBuf::from("/tmp/c.json")));
        let s = parse(&[(SCHEDULE, "random"), (SEED, "7"), (LATENCY, "vmem=100")]).unwrap();
        let t = s.launch.timing.unwrap();
        assert_eq!(t.arbitration, Arbitration::Random { seed: 7 });
        assert_eq!(t.latencies.vmem, 100);
        for (vars, needle) in [
            (
                &[(TIMING, "maybe")][..],
                "GCNEMU_TIMING=maybe: expected on or off",
            ),
            (&[(TARGET, "gfx1100")][..], "GCNEMU_TARGET=gfx1100"),
            (
                &[(TIMING, "off"), (CUS, "4")][..],
                "GCNEMU_CUS needs the timing model",
            ),
            (&[(THREADS, "-1")][..], "non-negative integer"),
            (&[(LATENCY, "bogus=1")][..], "GCNEMU_LATENCY"),
            (
                &[(CHECK, "memcheck,asan")][..],
                "GCNEMU_CHECK=memcheck,asan: unknown check `asan`",
            ),
            (
                &[(CHECK_ERROR, "1")][..],
                "GCNEMU_CHECK_ERROR needs GCNEMU_CHECK",
            ),
            (&[(DEVICES, "0")][..], "GCNEMU_DEVICES=0: expected 1 to 16"),
            (
                &[(DEVICES, "17")][..],
                "GCNEMU_DEVICES=17: expected 1 to 16",
            ),
        ] {
            let e = parse(vars).err().unwrap();
            assert!(e.contains(needle), "{e}");
        }
    }
}
