//! `gcnemu run FILE --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg ARG]...
//! [--dynamic-lds BYTES] [--stats] [--stats-json PATH] [--hazards off|warn|error]
//! [--max-instructions N] [--target gfxN]`.
//!
//! Exit status: 0 success, 1 a guest error (fault, trap, exhausted budget), 2 a usage or input
//! error. Each `--arg` is one of `42`, `-7`, `0x1f`, `1.5`, `bytes:HEX`, `@PATH`, `zeros:BYTES`;
//! the two buffer forms take a `:out=PATH` suffix that writes the buffer back after the run.
//!
//! `--hazards warn` (the default) checks every issued instruction against the hazard rules and
//! prints what it found on stderr after the run, as `gcnemu lint` words it; `error` makes the
//! first finding a guest error (exit 1); `off` skips the check.

use super::parse_target;
use crate::device::{
    describe_args, Arg, Device, DeviceConfig, Dims, HazardFinding, LaunchOptions, Stats,
};
use crate::run::hazards::HazardMode;
use gcn_loader::{KernelArg, ValueKind};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
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
    /// Dynamic LDS bytes per workgroup.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pub dynamic_lds: u32,
    /// Print a summary of the run (to stdout).
    #[arg(long)]
    pub stats: bool,
    /// Write the summary as JSON to PATH.
    #[arg(long, value_name = "PATH")]
    pub stats_json: Option<PathBuf>,
    /// Wave-instruction budget; running out is a guest error (exit 1).
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<u64>,
    /// Check issued instructions against the hazard rules: off, warn (report after the run) or
    /// error (the first hazard is a guest error).
    #[arg(long, value_enum, value_name = "MODE", default_value_t = HazardMode::Warn)]
    pub hazards: HazardMode,
    /// The processor to run as (default: the first gfx9 code object in FILE).
    #[arg(long, value_parser = parse_target)]
    pub target: Option<gcn_isa::Target>,
}

/// `X[,Y[,Z]]`, each at least 1.
fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{text}`: expected X, X,Y or X,Y,Z"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("`{p}` is not a positive integer"))?;
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
            eprintln!("gcnemu: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Guest(m)) => {
            eprintln!("gcnemu: {m}");
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
    let target = match args.target {
        Some(t) => t,
        None => gcn_loader::load(&name, &bytes)?
            .iter()
            .find_map(|o| o.isa_target())
            .ok_or_else(|| Failure::Usage(format!("{name}: no gfx9 code object")))?,
    };
    let mut dev = Device::new(DeviceConfig {
        target,
        ..Default::default()
    });
    let module = dev.load(&name, &bytes)?;
    let kernel = module.kernel(&args.kernel).ok_or_else(|| {
        let names: Vec<&str> = module
            .object
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect();
        Failure::Usage(format!(
            "no kernel `{}` in {name} (kernels: {})",
            args.kernel,
            names.join(", ")
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
        ..Default::default()
    };
    if let Some(n) = args.max_instructions {
        opts.max_instructions = Some(n);
    }
    if std::io::stderr().is_terminal() {
        opts.progress = Some(progress_bar());
    }
    let dims = Dims {
        grid: args.grid,
        block: args.block,
    };
    let result = dev.launch(&module, &args.kernel, dims, &launch_args, &opts);
    if opts.progress.is_some() {
        eprint!("\r\x1b[2K");
    }
    let stats = match result {
        Ok(s) => s,
        Err(e) if e.is_guest() => return Err(Failure::Guest(e.to_string())),
        Err(e) => return Err(Failure::Usage(e.to_string())),
    };
    if !stats.hazards.is_empty() {
        eprint!("{}", hazard_text(&name, &stats));
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
    if let Some(path) = &args.stats_json {
        std::fs::write(path, stats_json(&stats))
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// Turns one `--arg` into a launch argument; buffer forms allocate device memory.
fn parse_arg(
    dev: &mut Device,
    text: &str,
    spec: &KernelArg,
    outs: &mut Vec<OutFile>,
) -> Result<Arg, String> {
    let (body, out) = match text.rsplit_once(":out=") {
        Some((b, p)) if !p.is_empty() => (b, Some(PathBuf::from(p))),
        Some(_) => return Err("`:out=` needs a path".into()),
        None => (text, None),
    };
    let buffer = |dev: &mut Device, data: &[u8], outs: &mut Vec<OutFile>, out: Option<PathBuf>| {
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
        let data = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        return buffer(dev, &data, outs, out);
    }
    if let Some(n) = body.strip_prefix("zeros:") {
        let n: u64 = parse_uint(n).ok_or_else(|| format!("`{n}` is not a byte count"))?;
        if n > crate::memory::DEFAULT_MEMORY_LIMIT {
            return Err(format!("{n} bytes is more than the device's memory"));
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
    if let Some(v) = parse_int(body) {
        return Ok(if v < 0 {
            Arg::I64(v as i64)
        } else {
            Arg::U64(v as u64)
        });
    }
    if let Ok(f) = body.parse::<f64>() {
        return match spec.size {
            4 => Ok(Arg::F32(f as f32)),
            8 => Ok(Arg::F64(f)),
            n => Err(format!("a float does not fit a {n}-byte argument")),
        };
    }
    Err("not an integer, float, bytes:HEX, @PATH or zeros:BYTES".into())
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

fn progress_bar() -> crate::device::Progress {
    let last = Mutex::new(Instant::now());
    let start = Instant::now();
    Arc::new(move |done, total| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        // Only long runs get a bar, redrawn at most ten times a second.
        if start.elapsed().as_millis() < 500 || last.elapsed().as_millis() < 100 {
            return;
        }
        *last = Instant::now();
        let width = 40;
        let filled = (done * width / total.max(1)) as usize;
        eprint!(
            "\r[{}{}] {done}/{total} workgroups",
            "#".repeat(filled),
            " ".repeat(width as usize - filled)
        );
    })
}

fn stats_text(s: &Stats) -> String {
    let mut out = format!(
        "kernel {}: {} workgroups, {} waves, {} wave-instructions in {:.3} s ({:.1} M/s)\n",
        s.kernel,
        s.workgroups,
        s.waves,
        s.wave_instructions,
        s.elapsed.as_secs_f64(),
        s.rate() / 1e6
    );
    for (name, n) in &s.by_category {
        if *n > 0 {
            out += &format!("  {name:<8} {n}\n");
        }
    }
    if s.hazard_mode != HazardMode::Off {
        let hits: u64 = s.hazards.iter().map(|h| h.hits).sum();
        out += &format!(
            "  hazards  {} finding(s), {hits} hit(s) (--hazards {})\n",
            s.hazards.len(),
            s.hazard_mode.name()
        );
    }
    out
}

/// The run-time hazard findings, worded as `gcnemu lint` words its diagnostics.
fn hazard_text(file: &str, s: &Stats) -> String {
    let loc = |off: i64| {
        let sign = if off < 0 { "-" } else { "+" };
        format!("{}{sign}{:#x}", s.kernel, off.unsigned_abs())
    };
    let mut out = String::new();
    for h in &s.hazards {
        let [x, y, z] = h.workgroup;
        out += &format!(
            "{file}:{}: warning[{}]: {}: `{}` at {:#x}, then `{}` with {} of the {} required\n",
            loc(h.kernel_offset),
            h.rule,
            h.summary,
            h.producer,
            h.producer_pc,
            h.instruction,
            h.provided,
            h.required
        );
        out += &format!(
            "  note: producer at {} ({:#x}): {}\n",
            loc(h.producer_offset),
            h.producer_pc,
            h.producer
        );
        out += &format!(
            "  required: {}; provided: {}\n  fix: {}\n",
            h.required, h.provided, h.fix
        );
        out += &format!(
            "  issued {} time(s); first by workgroup ({x}, {y}, {z}) wave {}\n",
            h.hits, h.wave
        );
    }
    let n = s.hazards.len();
    out += &format!(
        "{n} hazard finding{} at run time in kernel `{}`\n",
        if n == 1 { "" } else { "s" },
        s.kernel
    );
    out
}

fn hazard_json(h: &HazardFinding) -> serde_json::Value {
    serde_json::json!({
        "rule": h.rule,
        "address": h.pc,
        "offset": h.kernel_offset,
        "instruction": h.instruction,
        "producer_address": h.producer_pc,
        "producer_offset": h.producer_offset,
        "producer": h.producer,
        "required": h.required,
        "provided": h.provided,
        "fix": h.fix,
        "hits": h.hits,
        "workgroup": h.workgroup,
        "wave": h.wave,
    })
}

fn stats_json(s: &Stats) -> String {
    let by: serde_json::Map<String, serde_json::Value> = s
        .by_category
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    let v = serde_json::json!({
        "kernel": s.kernel,
        "workgroups": s.workgroups,
        "waves": s.waves,
        "wave_instructions": s.wave_instructions,
        "by_category": by,
        "seconds": s.elapsed.as_secs_f64(),
        "hazards": {
            "mode": s.hazard_mode.name(),
            "findings": s.hazards.len(),
            "hits": s.hazards.iter().map(|h| h.hits).sum::<u64>(),
            "list": s.hazards.iter().map(hazard_json).collect::<Vec<_>>(),
        },
    });
    format!("{v:#}\n")
}
