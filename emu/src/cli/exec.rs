//! `gcnemu exec [OPTIONS] -- PROGRAM [ARGS...]`: runs a hipcc-built program with gcnemu's HIP
//! runtime (`libamdhip64.so`, crate `gcnemu-hip`) in place of ROCm's, so that its kernels run on
//! the emulator, and exits with the program's status.
//!
//! The library is found beside the `gcnemu` executable (where `cargo build` puts both), or at
//! `--lib PATH` / `GCNEMU_HIP_LIB`. Programs ask for `libamdhip64.so.5`, so a private directory
//! gets a link of that name, which goes first on `LD_LIBRARY_PATH` and into `LD_PRELOAD` (the
//! preloaded soname also wins over an `RPATH` that names ROCm's copy). The emulator options
//! travel in the `GCNEMU_*` variables of [`gcnemu::settings`], checked here before the program
//! starts.

use gcnemu::settings::{self, Settings};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ExecArgs {
    /// The processor to emulate: gfx900 (default), gfx906, gfx908 or gfx90a (the boards of
    /// `gcnemu::board`); the program's fat binaries must carry code for it.
    #[arg(long, value_name = "gfxN")]
    pub target: Option<String>,
    /// The cycle-level compute-unit model: on (the default: cycles, stale reads, event times in
    /// simulated time) or off (functional only, fastest).
    #[arg(long, value_name = "ON|OFF")]
    pub timing: Option<String>,
    /// Host threads running workgroups, or the timing model's CUs (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<String>,
    /// Compute units (default: the target's).
    #[arg(long, value_name = "N")]
    pub cus: Option<String>,
    /// Issue order of the timing model: oldest, round-robin or random.
    #[arg(long, value_name = "ORDER")]
    pub schedule: Option<String>,
    /// Seed of --schedule random.
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// Memory latencies in cycles, NAME=CYCLES[,NAME=CYCLES...] (as `gcnemu run`).
    #[arg(long = "latency", value_name = "NAME=CYCLES")]
    pub latencies: Vec<String>,
    /// Hazard checks of every issued instruction: off, warn (the default) or error.
    #[arg(long, value_name = "MODE")]
    pub hazards: Option<String>,
    /// Wave-instruction budget of each launch.
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<String>,
    /// Wall-clock seconds each launch may run (0: no limit; default 600); a launch that runs
    /// longer ends with a report of where every wave is.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<String>,
    /// Spin detector: write-free iterations of a loop before a wave's registers are compared
    /// (0: off; default 1024); a launch whose waves all repeat their loops unchanged ends as a
    /// livelock.
    #[arg(long, value_name = "N")]
    pub spin_limit: Option<String>,
    /// What clock64() and wall_clock64() read: host (the host's clock at the reported clock
    /// rates, so a kernel that waits N ticks waits the time they stand for; the default with
    /// --timing off) or instructions (the wave's instructions executed: deterministic; always
    /// with the timing model).
    #[arg(long, value_name = "HOST|INSTRUCTIONS")]
    pub clock: Option<String>,
    /// When a kernel's code is compiled to host code (the functional engine's, and the ALU
    /// runs the timing model executes ahead of issue): hot (the default: once its waves have
    /// run about a million instructions), always, or never. Results are the same either way.
    #[arg(long, value_name = "HOT|ALWAYS|NEVER")]
    pub compile: Option<String>,
    /// Bytes of device memory (default: the board's, 8 GiB for gfx900, 16 GiB for gfx906, 32 GiB
    /// for gfx908, 64 GiB for gfx90a).
    #[arg(long, value_name = "BYTES")]
    pub memory_limit: Option<String>,
    /// Emulated GPUs the program sees (1 to 16, default 1), all of the chosen board, each with
    /// its own memory limit, streams and statistics.
    #[arg(long, value_name = "N")]
    pub devices: Option<String>,
    /// At exit, print per kernel: launches, workgroups, wave-instructions, emulation time,
    /// cycles, hazard and stale-read findings, faults (on stderr).
    #[arg(long)]
    pub stats: bool,
    /// Write the same summary as JSON to PATH at exit.
    #[arg(long, value_name = "PATH")]
    pub stats_json: Option<PathBuf>,
    /// Sanitizers: memcheck, racecheck, initcheck, leaks (comma-separated) or all. Findings go
    /// to stderr as they are found; a summary (and the leaks) at exit.
    #[arg(long, value_name = "LIST")]
    pub check: Option<String>,
    /// Write the sanitizer findings as JSON to PATH at exit.
    #[arg(long, value_name = "PATH", requires = "check")]
    pub check_json: Option<PathBuf>,
    /// Exit with status 1 when a sanitizer found anything.
    #[arg(long, requires = "check")]
    pub check_error: bool,
    /// The runtime library to use (default: libamdhip64.so beside gcnemu, or GCNEMU_HIP_LIB).
    #[arg(long, value_name = "PATH")]
    pub lib: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(required = true, last = true, value_name = "PROGRAM [ARGS]...")]
    pub command: Vec<OsString>,
}

impl ExecArgs {
    /// The `GCNEMU_*` variables the flags set (unset flags leave the environment's own).
    fn variables(&self) -> Vec<(&'static str, String)> {
        let mut vars = Vec::new();
        let mut set = |name, value: &Option<String>| {
            if let Some(v) = value {
                vars.push((name, v.clone()));
            }
        };
        set(settings::TARGET, &self.target);
        set(settings::TIMING, &self.timing);
        set(settings::THREADS, &self.threads);
        set(settings::CUS, &self.cus);
        set(settings::SCHEDULE, &self.schedule);
        set(settings::SEED, &self.seed);
        set(settings::HAZARDS, &self.hazards);
        set(settings::MAX_INSTRUCTIONS, &self.max_instructions);
        set(settings::MEMORY_LIMIT, &self.memory_limit);
        set(settings::DEVICES, &self.devices);
        set(settings::TIMEOUT, &self.timeout);
        set(settings::SPIN_LIMIT, &self.spin_limit);
        set(settings::CLOCK, &self.clock);
        set(settings::COMPILE, &self.compile);
        set(settings::CHECK, &self.check);
        if let Some(p) = &self.check_json {
            vars.push((settings::CHECK_JSON, p.display().to_string()));
        }
        if self.check_error {
            vars.push((settings::CHECK_ERROR, "1".into()));
        }
        if !self.latencies.is_empty() {
            vars.push((settings::LATENCY, self.latencies.join(",")));
        }
        if self.stats {
            vars.push((settings::STATS, "1".into()));
        }
        if let Some(p) = &self.stats_json {
            vars.push((settings::STATS_JSON, p.display().to_string()));
        }
        vars
    }
}

/// The runtime library: `--lib`, `GCNEMU_HIP_LIB`, or `libamdhip64.so` beside this executable.
fn find_library(args: &ExecArgs) -> Result<PathBuf, String> {
    let explicit = args
        .lib
        .clone()
        .or_else(|| std::env::var_os("GCNEMU_HIP_LIB").map(PathBuf::from));
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{}: no such runtime library", p.display()))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate gcnemu itself: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // Test binaries live one level down, in deps/.
    for d in [dir, dir.parent().unwrap_or(dir)] {
        let p = d.join("libamdhip64.so");
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(format!(
        "no libamdhip64.so beside {}: build it with `cargo build --release` (crate gcnemu-hip), or pass --lib PATH",
        exe.display()
    ))
}

/// A directory holding `libamdhip64.so.5` → the library; removed on drop.
struct LibDir(PathBuf);

impl LibDir {
    fn new(lib: &Path) -> Result<LibDir, String> {
        let lib = lib
            .canonicalize()
            .map_err(|e| format!("{}: {e}", lib.display()))?;
        let dir = std::env::temp_dir().join(format!("gcnemu-exec-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::os::unix::fs::symlink(&lib, dir.join("libamdhip64.so.5"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(LibDir(dir))
    }
}

impl Drop for LibDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn main(args: &ExecArgs) -> ExitCode {
    match exec(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gcnemu: {e}");
            ExitCode::from(2)
        }
    }
}

fn exec(args: &ExecArgs) -> Result<ExitCode, String> {
    let vars = args.variables();
    // Check the settings the program will see: the environment's, overridden by the flags.
    let overrides: HashMap<&str, &String> = vars.iter().map(|(k, v)| (*k, v)).collect();
    Settings::from_vars(|name| {
        overrides
            .get(name)
            .map(|v| v.to_string())
            .or_else(|| std::env::var(name).ok())
    })?;
    let lib = find_library(args)?;
    let dir = LibDir::new(&lib)?;
    let (program, rest) = args
        .command
        .split_first()
        .ok_or("no program given after --")?;
    let mut library_path = OsString::from(&dir.0);
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
        library_path.push(":");
        library_path.push(old);
    }
    let mut preload = OsString::from(dir.0.join("libamdhip64.so.5"));
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    let status = std::process::Command::new(program)
        .args(rest)
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .env("LD_LIBRARY_PATH", library_path)
        .env("LD_PRELOAD", preload)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(program).display()))?;
    drop(dir);
    if let Some(code) = status.code() {
        return Ok(ExitCode::from(code as u8));
    }
    use std::os::unix::process::ExitStatusExt;
    let signal = status.signal().unwrap_or(0);
    eprintln!(
        "gcnemu: {} was killed by signal {signal}",
        Path::new(program).display()
    );
    Ok(ExitCode::from((128 + signal) as u8))
}
