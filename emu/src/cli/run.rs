//! `gcnemu run FILE --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg ARG]...
//! [--dynamic-lds BYTES] [--stats] [--stats-json PATH] [--trace-json PATH]
//! [--hazards off|warn|error] [--timing on|off] [--cus N] [--schedule oldest|round-robin|random]
//! [--seed N] [--latency NAME=CYCLES]... [--threads N] [--max-instructions N] [--target gfxN]
//! [--cooperative]`.
//!
//! Exit status: 0 success, 1 a guest error (fault, trap, exhausted budget), 2 a usage or input
//! error. Each `--arg` is one of `42`, `-7`, `0x1f`, `1.5`, `bytes:HEX`, `@PATH`, `zeros:BYTES`;
//! the two buffer forms take a `:out=PATH` suffix that writes the buffer back after the run.
//!
//! `--hazards warn` (the default) checks every issued instruction against the hazard rules and
//! prints what it found on stderr after the run, as `gcnemu lint` words it; `error` makes the
//! first finding a guest error (exit 1); `off` skips the check.
//!
//! `--timing on` (the default) runs the cycle-level compute-unit model ([`gcnemu::cu`]): the
//! summary gains cycles, IPC, occupancy and stall cycles, reads of registers whose load had not
//! completed are reported on stderr, and `--trace-json` writes a per-wave timeline. `--timing
//! off` runs functionally only, workgroup after workgroup, for speed.

use super::report::{hazard_text, stale_text, stats_json, stats_text};
use super::{parse_target_choice, TargetChoice};
use gcn_loader::{KernelArg, ValueKind};
use gcnemu::arg_type::Scalar;
use gcnemu::cu::{Arbitration, TimingConfig};
use gcnemu::device::{describe_args, Arg, Device, DeviceConfig, Dims, LaunchOptions};
use gcnemu::launch::hazards::HazardMode;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// A code object, offload bundle or host binary with a .hip_fatbin section.
    pub file: PathBuf,
    /// The kernel to launch.
    #[arg(long, value_name = "NAME")]
    pub kernel: String,
    /// Workgroups per dimension (HIP's gridDim): X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    pub grid: [u32; 3],
    /// Work-items per workgroup (HIP's blockDim): X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    pub block: [u32; 3],
    /// A kernel argument, in order: 42, -7, 0x1f, 1.5, bytes:HEX, @PATH[:out=PATH],
    /// zeros:BYTES[:out=PATH].
    #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Bytes of device memory, which `@PATH` and `zeros:` buffers count against (default 4 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = gcnemu::memory::DEFAULT_MEMORY_LIMIT)]
    pub memory_limit: u64,
    /// Dynamic LDS bytes per workgroup.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pub dynamic_lds: u32,
    /// Print a summary of the run (to stdout).
    #[arg(long)]
    pub stats: bool,
    /// Write the summary as JSON to PATH.
    #[arg(long, value_name = "PATH")]
    pub stats_json: Option<PathBuf>,
    /// Wall-clock seconds the launch may run (0: no limit); running longer is a guest error
    /// (exit 1) reporting where every wave is.
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = timeout_arg)]
    pub timeout: Timeout,
    #[command(flatten)]
    pub keep: super::KeepGoing,
    /// Wave-instruction budget; running out is a guest error (exit 1).
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<u64>,
    /// Spin detector: after N iterations of a loop with no memory write anywhere, compare the
    /// wave's registers; when every wave repeats its loop unchanged (or waits at a barrier for
    /// those), end the run as a livelock (exit 1) naming the loops. 0 turns it off.
    #[arg(long, value_name = "N", default_value_t = gcnemu::wave::spin::DEFAULT_SPIN_LIMIT)]
    pub spin_limit: u32,
    /// When the kernel's code is compiled to host code (the functional engine's, and the ALU
    /// runs the timing model executes ahead of issue): hot (once its waves have run about a
    /// million instructions), always, or never. Results are the same either way.
    #[arg(long, value_name = "HOT|ALWAYS|NEVER", default_value = "hot")]
    pub compile: gcnemu::exec::compiled::Compile,
    /// Check issued instructions against the hazard rules: off, warn (report after the run) or
    /// error (the first hazard is a guest error).
    #[arg(long, value_name = "MODE", default_value_t = HazardMode::Warn, value_parser = hazard_mode())]
    pub hazards: HazardMode,
    /// The processor to run as, with `:xnack+` for the code built for XNACK on (default: the
    /// first gfx9 code object in FILE; xnack off).
    #[arg(long, value_parser = parse_target_choice)]
    pub target: Option<TargetChoice>,
    /// The cycle-level compute-unit model: on (cycles, stalls, stale reads, traces) or off
    /// (functional only, fastest).
    #[arg(long, value_enum, value_name = "ON|OFF", default_value_t = Switch::On)]
    pub timing: Switch,
    /// Compute units (default: the board's, 64 for gfx900, 60 for gfx906, 120 for gfx908, 104
    /// for gfx90a).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cus: Option<u32>,
    /// Issue arbitration among ready waves: oldest (first), round-robin, or random (also varies
    /// latencies by up to ±50 %, from --seed) to shake out races and missing waits.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = Schedule::Oldest)]
    pub schedule: Schedule,
    /// Seed of --schedule random.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Memory latencies in cycles, NAME=CYCLES[,NAME=CYCLES...]: vmem=400, smem=40, lds=64,
    /// message=8, vmem-issue=4 by default.
    #[arg(long = "latency", value_name = "NAME=CYCLES")]
    pub latencies: Vec<String>,
    /// Write a Chrome trace-event timeline (one track per wave; open in Perfetto) to PATH.
    #[arg(long, value_name = "PATH")]
    pub trace_json: Option<PathBuf>,
    /// Host threads (default: the machine's cores): the timing model's CUs, or with
    /// `--timing off` the workgroups. Timing results and statistics are the same for any count;
    /// functional results too unless workgroups race (see README, "Threads").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Sanitizers: memcheck, racecheck, initcheck, leaks (comma-separated) or all. Findings go
    /// to stderr; a faulting access is reported and dropped, so the kernel runs on.
    #[arg(long, value_name = "LIST", value_parser = gcnemu::check::CheckSet::parse)]
    pub check: Option<gcnemu::check::CheckSet>,
    /// Write the sanitizer findings as JSON to PATH.
    #[arg(long, value_name = "PATH", requires = "check")]
    pub check_json: Option<PathBuf>,
    /// Exit with status 1 when a sanitizer finds anything.
    #[arg(long, requires = "check")]
    pub check_error: bool,
    /// Print where the host's time went in the timing model (to stdout): the bulk turns, the
    /// semantics run ahead, the pass, the memory requests between windows.
    #[arg(long)]
    pub host_profile: bool,
    /// A cooperative launch (as `hipLaunchCooperativeKernel`): every workgroup is resident at
    /// once, so workgroups may wait for each other (grid-wide sync at a GWS barrier, flags);
    /// under the timing model the grid must fit the CUs at once. The kernel's
    /// `hidden_multigrid_sync_arg` is 1, as HIP passes it.
    #[arg(long)]
    pub cooperative: bool,
}

/// `--timeout`: `None` for 0 (no limit).
#[derive(Clone, Copy, Debug)]
pub struct Timeout(pub Option<std::time::Duration>);

fn timeout_arg(text: &str) -> Result<Timeout, String> {
    gcnemu::settings::parse_timeout(text).map(Timeout)
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    On,
    Off,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    Oldest,
    RoundRobin,
    Random,
}

/// The timing model the flags ask for, or `None` with `--timing off`.
fn timing_config(args: &RunArgs, target: gcn_isa::Target) -> Result<Option<TimingConfig>, Failure> {
    let timing_only = args.cus.is_some()
        || args.schedule != Schedule::Oldest
        || !args.latencies.is_empty()
        || args.trace_json.is_some()
        || args.host_profile;
    if args.timing == Switch::Off {
        if timing_only {
            return Err(Failure::Usage(
                "--cus, --schedule, --latency, --trace-json and --host-profile need the timing model; drop --timing off".into(),
            ));
        }
        return Ok(None);
    }
    let mut t = TimingConfig::for_target(target);
    if let Some(n) = args.cus {
        t.cus = n;
    }
    t.arbitration = match args.schedule {
        Schedule::Oldest => Arbitration::OldestFirst,
        Schedule::RoundRobin => Arbitration::RoundRobin,
        Schedule::Random => Arbitration::Random { seed: args.seed },
    };
    for spec in args.latencies.iter().flat_map(|l| l.split(',')) {
        t.set_latency(spec).map_err(Failure::Usage)?;
    }
    t.trace = args.trace_json.is_some();
    t.host_profile = args.host_profile;
    t.threads = match args.threads {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(Some(t))
}

/// `X[,Y[,Z]]`, each at least 1.
fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{text}`: expected X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let p = p.trim();
        d[i] = p.parse().map_err(|_| {
            if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                format!("`{p}` is too large (at most {})", u32::MAX)
            } else {
                format!("`{p}` is not a positive integer")
            }
        })?;
        if d[i] == 0 {
            return Err(format!("`{text}`: dimensions must be at least 1"));
        }
    }
    Ok(d)
}

enum Failure {
    Usage(String),
    Guest(String),
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure::Usage(e.to_string())
    }
}

pub fn main(args: &RunArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(m)) => {
            eprintln!("gcnemu: {}", super::printable_message(&m));
            ExitCode::from(2)
        }
        Err(Failure::Guest(m)) => {
            eprintln!("gcnemu: {}", super::printable_message(&m));
            ExitCode::from(1)
        }
    }
}

/// A buffer to write back after the run.
struct OutFile {
    addr: u64,
    len: usize,
    path: PathBuf,
}

fn run(args: &RunArgs) -> Result<(), Failure> {
    let bytes = gcn_loader::read_file(&args.file)?;
    let name = args.file.display().to_string();
    let salvaged = gcn_loader::load_salvaged(&name, &bytes)?;
    // A damaged fat binary runs only when asked to: the kernel may be in the part left out.
    let outcome = "nothing was run (--keep-going runs from the rest)";
    if let Some(why) = super::warn_damaged(&name, &salvaged.damaged, args.keep, outcome) {
        return Err(Failure::Usage(why));
    }
    let objects = salvaged.kept;
    let (target, xnack) = match args.target {
        Some(c) => (c.target, c.xnack),
        None => objects
            .iter()
            .find_map(|o| o.isa_target())
            .map(|t| (t, false))
            .ok_or_else(|| Failure::Usage(format!("{name}: no gfx9 code object")))?,
    };
    let mut dev = Device::new(DeviceConfig {
        target,
        memory_limit: args.memory_limit,
        xnack,
        ..Default::default()
    });
    let checks = args.check.unwrap_or_default();
    dev.enable_checks(checks);
    let module = dev.load_objects(&name, objects)?;
    let kernel = module.kernel(&args.kernel).ok_or_else(|| {
        let names = module.object.kernels.iter().map(|k| k.name.as_str());
        Failure::Usage(format!(
            "no kernel `{}` in {name} ({})",
            args.kernel,
            gcnemu::symbol::name_list(names, &name)
        ))
    })?;
    let specs: Vec<&KernelArg> = kernel
        .meta
        .as_ref()
        .map(|m| {
            m.args
                .iter()
                .filter(|a| !a.value_kind.is_hidden())
                .collect()
        })
        .unwrap_or_default();
    if specs.len() != args.args.len() {
        return Err(Failure::Usage(format!(
            "kernel `{}` takes {} argument(s), {} given\n{}",
            args.kernel,
            specs.len(),
            args.args.len(),
            describe_args(&specs)
        )));
    }
    let mut launch_args = Vec::new();
    let mut outs = Vec::new();
    for (i, (text, spec)) in args.args.iter().zip(&specs).enumerate() {
        let arg = parse_arg(&mut dev, text, spec, &mut outs).map_err(|why| {
            Failure::Usage(format!(
                "--arg {i} `{text}` ({}): {why}\n{}",
                spec.name.as_deref().unwrap_or("unnamed"),
                describe_args(&specs)
            ))
        })?;
        launch_args.push(arg);
    }
    let mut opts = LaunchOptions {
        dynamic_lds: args.dynamic_lds,
        hazards: args.hazards,
        timing: timing_config(args, dev.target())?,
        timeout: args.timeout.0,
        spin_limit: args.spin_limit,
        compile: args.compile,
        threads: args.threads.map_or(0, |n| n as usize),
        cooperative: args.cooperative,
        multigrid_sync: args.cooperative as u64,
        ..Default::default()
    };
    if let Some(n) = args.max_instructions {
        opts.max_instructions = Some(n);
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let (progress, bar) = progress_bar();
        opts.progress = Some(progress);
        bar
    });
    let dims = Dims {
        grid: args.grid,
        block: args.block,
    };
    let result = dev.launch(&module, &args.kernel, dims, &launch_args, &opts);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let found = if checks.is_empty() {
        0
    } else {
        report_checks(args, checks, dev.take_findings())?
    };
    let stats = match result {
        Ok(s) => s,
        Err(e) if e.is_guest() => return Err(Failure::Guest(e.to_string())),
        Err(e) => return Err(Failure::Usage(e.to_string())),
    };
    if !stats.hazards.is_empty() {
        eprint!("{}", hazard_text(&name, &stats));
    }
    if !stats.stale_reads.is_empty() {
        eprint!("{}", stale_text(&name, &stats));
    }
    if let (Some(path), Some(trace)) = (&args.trace_json, &stats.trace) {
        let file = std::fs::File::create(path)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        let mut w = std::io::BufWriter::new(file);
        trace
            .write(&mut w, &stats.kernel)
            .and_then(|()| w.flush())
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    for o in &outs {
        let data = dev.read(o.addr, o.len)?;
        std::fs::write(&o.path, data)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", o.path.display())))?;
    }
    if args.stats {
        print!("{}", stats_text(&stats));
        let _ = std::io::stdout().flush();
    }
    if let Some(p) = &stats.host_profile {
        println!("host time of `{}`:", stats.kernel);
        for line in p.lines() {
            println!("  {line}");
        }
        let _ = std::io::stdout().flush();
    }
    if let Some(path) = &args.stats_json {
        std::fs::write(path, stats_json(&stats))
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    if args.check_error && found > 0 {
        return Err(Failure::Guest(format!(
            "{found} sanitizer finding(s) (--check-error)"
        )));
    }
    Ok(())
}

/// Prints the sanitizer findings and their summary on stderr, writes `--check-json`; returns
/// how many there were.
fn report_checks(
    args: &RunArgs,
    checks: gcnemu::check::CheckSet,
    findings: Vec<gcnemu::check::Finding>,
) -> Result<usize, Failure> {
    use gcnemu::check::report;
    for f in &findings {
        eprintln!("gcnemu: {}", f.text());
    }
    eprintln!("gcnemu: {}", report::summary(checks, &findings));
    if let Some(path) = &args.check_json {
        std::fs::write(path, report::json(checks, &findings))
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(findings.len())
}

/// Turns one `--arg` into a launch argument; buffer forms allocate device memory.
fn parse_arg(
    dev: &mut Device,
    text: &str,
    spec: &KernelArg,
    outs: &mut Vec<OutFile>,
) -> Result<Arg, String> {
    let (body, out) = split_out(text)?;
    let buffer = |dev: &mut Device, data: &[u8], outs: &mut Vec<OutFile>, out: Option<PathBuf>| {
        if data.is_empty() {
            return Err(
                "an empty buffer: a kernel can touch none of it (give at least 1 byte)".into(),
            );
        }
        let addr = dev.alloc(data.len() as u64).map_err(|e| e.to_string())?;
        dev.write(addr, data).map_err(|e| e.to_string())?;
        if let Some(path) = out {
            outs.push(OutFile {
                addr,
                len: data.len(),
                path,
            });
        }
        Ok(Arg::Ptr(addr))
    };
    if let Some(path) = body.strip_prefix('@') {
        let memory = dev.memory();
        let room = memory.limit().saturating_sub(memory.used());
        let data = read_buffer_file(path, room)?;
        return buffer(dev, &data, outs, out);
    }
    if let Some(n) = body.strip_prefix("zeros:") {
        let n: u64 = parse_uint(n).ok_or_else(|| match n.split_once(':') {
            Some((_, suffix)) => {
                format!("unknown suffix `:{suffix}` (buffers take only `:out=PATH`)")
            }
            None => format!("`{n}` is not a byte count"),
        })?;
        let limit = dev.memory().limit();
        if n > limit {
            return Err(format!(
                "{n} bytes is more than the device's {limit}-byte memory"
            ));
        }
        return buffer(dev, &vec![0u8; n as usize], outs, out);
    }
    if out.is_some() {
        return Err("`:out=` only applies to @PATH and zeros:BYTES buffers".into());
    }
    if let Some(hex) = body.strip_prefix("bytes:") {
        return parse_hex(hex).map(Arg::Bytes);
    }
    if spec.value_kind == ValueKind::GlobalBuffer {
        return Err("this argument is a pointer: give @PATH or zeros:BYTES".into());
    }
    let declared = gcnemu::arg_type::declared(spec);
    if let Some(v) = parse_int(body) {
        // `2` for a `float` means 2.0; hex stays the raw bits, the way to give those.
        let decimal = !body.trim_start_matches('-').starts_with("0x")
            && !body.trim_start_matches('-').starts_with("0X");
        if declared == Some(Scalar::Float) && decimal {
            return float_arg(v as f64, spec);
        }
        return Ok(if v < 0 {
            Arg::I64(v as i64)
        } else {
            Arg::U64(v as u64)
        });
    }
    if let Ok(f) = body.parse::<f64>() {
        if declared == Some(Scalar::Integer) {
            return Err(format!(
                "a float for an integer argument ({})",
                spec.type_name
                    .as_deref()
                    .or(spec.value_type.as_deref())
                    .unwrap_or("integer")
            ));
        }
        return float_arg(f, spec);
    }
    Err("not an integer, float, bytes:HEX, @PATH or zeros:BYTES".into())
}

/// A float in a slot of the argument's size.
fn float_arg(f: f64, spec: &KernelArg) -> Result<Arg, String> {
    match spec.size {
        4 => Ok(Arg::F32(f as f32)),
        8 => Ok(Arg::F64(f)),
        n => Err(format!("a float does not fit a {n}-byte argument")),
    }
}

/// Splits a `:out=PATH` suffix off an argument.
fn split_out(text: &str) -> Result<(&str, Option<PathBuf>), String> {
    match text.rsplit_once(":out=") {
        Some((b, p)) if !p.is_empty() => Ok((b, Some(PathBuf::from(p)))),
        Some(_) => Err("`:out=` needs a path".into()),
        None => Ok((text, None)),
    }
}

/// The contents of an `@PATH` buffer: a regular file or a pipe (a device such as `/dev/zero`
/// is refused before any read), refused once it passes `room` (the device memory left), so a
/// pipe costs no more than the device could hold.
fn read_buffer_file(path: &str, room: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let (file, meta) = gcn_loader::open_readable(std::path::Path::new(path))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let too_large = |size: String| {
        format!("{path}: {size} is more than the {room} bytes of device memory left")
    };
    if meta.is_file() && meta.len() > room {
        return Err(too_large(format!("{} bytes", meta.len())));
    }
    let mut data = Vec::new();
    file.take(room.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if data.len() as u64 > room {
        return Err(too_large("its content".into()));
    }
    Ok(data)
}

fn parse_uint(t: &str) -> Option<u64> {
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

/// `42`, `-7`, `0x1f`, `-0x10`.
fn parse_int(t: &str) -> Option<i128> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let v = parse_uint(body)? as i128;
    Some(if neg { -v } else { v })
}

fn parse_hex(hex: &str) -> Result<Vec<u8>, String> {
    let clean: String = hex
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    if !clean.len().is_multiple_of(2) {
        return Err(format!("`{hex}`: an odd number of hex digits"));
    }
    (0..clean.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&clean[i..i + 2], 16).map_err(|_| format!("`{hex}` is not hex"))
        })
        .collect()
}

/// The workgroups done, on stderr (a terminal): drawn once a launch has run half a second,
/// at most ten times a second. The bar is returned to be cleared when the launch ends.
fn progress_bar() -> (gcnemu::device::Progress, indicatif::ProgressBar) {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
    let style = ProgressStyle::with_template("[{bar:40}] {pos}/{len} workgroups, {elapsed}")
        .map(|s| s.progress_chars("#>-"))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    let start = Instant::now();
    let shown = bar.clone();
    let progress: gcnemu::device::Progress = Arc::new(move |done, total| {
        if start.elapsed().as_millis() < 500 {
            return;
        }
        shown.set_length(total);
        shown.set_position(done);
    });
    (progress, bar)
}

/// `--hazards off|warn|error` (clap lists the values in help and errors).
fn hazard_mode() -> impl clap::builder::TypedValueParser<Value = HazardMode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["off", "warn", "error"])
        .try_map(|s| s.parse::<HazardMode>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_value(type_name: &str, size: u64) -> KernelArg {
        KernelArg {
            name: Some("n".into()),
            type_name: Some(type_name.into()),
            size,
            offset: 0,
            value_kind: ValueKind::ByValue,
            address_space: None,
            pointee_align: None,
            access: None,
            actual_access: None,
            is_const: false,
            is_restrict: false,
            is_volatile: false,
            is_pipe: false,
            value_type: None,
        }
    }

    #[test]
    fn typed_arguments_take_their_kind_of_number() {
        let mut dev = Device::new(DeviceConfig::default());
        let mut outs = Vec::new();
        let mut parse = |text: &str, spec: &KernelArg| parse_arg(&mut dev, text, spec, &mut outs);
        let e = parse("1.5", &by_value("int", 4)).unwrap_err();
        assert!(e.contains("a float for an integer argument (int)"), "{e}");
        assert!(matches!(parse("7", &by_value("int", 4)), Ok(Arg::U64(7))));
        assert!(matches!(parse("2", &by_value("float", 4)), Ok(Arg::F32(f)) if f == 2.0));
        assert!(matches!(
            parse("0x3f800000", &by_value("float", 4)),
            Ok(Arg::U64(0x3f80_0000))
        ));
        // Without a type in the metadata, the size decides.
        assert!(matches!(parse("1.5", &by_value("struct S", 4)), Ok(Arg::F32(f)) if f == 1.5));
    }
}
