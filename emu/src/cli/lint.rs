//! `gcnemu lint FILE... [--target gfxN] [--format text|json|sarif] [--context N]
//! [--allow RULE]... [--deny RULE]... [--xnack on|off] [--rules]`.
//!
//! Exit status: 0 no findings, 1 findings, 2 a usage or input error.

use super::parse_target;
use gcn_loader::ElfObject;
use gcnemu::hazard::asm;
use gcnemu::hazard::lint::{self, Options};
use gcnemu::hazard::output::{self, Linted};
use gcnemu::hazard::rules::{Check, RULES};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}

#[derive(clap::Args, Debug)]
pub struct LintArgs {
    /// Code objects (.co/.hsaco), relocatable AMDGPU ELF objects (.o), offload bundles, host
    /// binaries with a .hip_fatbin section (every code object in them), or assembly text (.s).
    #[arg(required_unless_present = "rules")]
    pub files: Vec<PathBuf>,
    /// The processor (default: the one named in each ELF header's e_flags).
    #[arg(long, value_parser = parse_target)]
    pub target: Option<gcn_isa::Target>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Lines of disassembly to show before each finding's instruction.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub context: usize,
    /// Do not report RULE (a rule id, `nop`, `waitcnt` or `all`); repeatable.
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<String>,
    /// Report RULE even if allowed (applied after --allow); repeatable.
    #[arg(long, value_name = "RULE")]
    pub deny: Vec<String>,
    /// XNACK replay on or off (default: from e_flags; "any" counts as on, as in LLVM).
    #[arg(long, value_enum)]
    pub xnack: Option<OnOff>,
    /// List the rules and exit.
    #[arg(long)]
    pub rules: bool,
    #[command(flatten)]
    pub keep: super::KeepGoing,
}

/// Runs the subcommand, printing its own output; returns the exit status.
pub fn main(args: &LintArgs) -> ExitCode {
    match run(args) {
        Ok((text, findings, incomplete)) => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => {
                    eprintln!("gcnemu: cannot write output: {e}");
                    return ExitCode::from(2);
                }
            }
            for message in &incomplete {
                eprintln!("gcnemu: {message}");
            }
            if !incomplete.is_empty() {
                ExitCode::from(2)
            } else if findings > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            eprintln!("gcnemu: {}", super::printable_message(&message));
            ExitCode::from(2)
        }
    }
}

/// The report text, the number of findings, and per file with damaged parts left out (without
/// `--keep-going`) why the exit status is 2.
fn run(args: &LintArgs) -> Result<(String, usize, Vec<String>), String> {
    if args.rules {
        return Ok((rules_table(), 0, Vec::new()));
    }
    let mut incomplete = Vec::new();
    let enabled = enabled_rules(&args.allow, &args.deny)?;
    let mut inputs = Vec::new();
    for path in &args.files {
        let name = path.display().to_string();
        let bytes = read_input(path)?;
        let options = |target, xnack| Options {
            target,
            xnack,
            enabled: enabled.clone(),
            context: args.context,
        };
        if !gcn_loader::is_binary_input(&bytes) {
            let source = assembly_text(&name, &bytes)?;
            let target = args
                .target
                .or_else(|| asm::declared_target(source))
                .unwrap_or(gcn_isa::Target::Gfx900);
            let xnack = args.xnack == Some(OnOff::On);
            let report = asm::lint_source(&name, source, &options(target, xnack))?;
            inputs.push(Linted {
                label: name.clone(),
                uri: name,
                report,
            });
            continue;
        }
        // Every code object in the file: one for a plain ELF, one per AMDGPU entry of a fat
        // binary (offload bundle, or a host file's .hip_fatbin).
        let salvaged =
            gcn_loader::extract_file_salvaged(&name, &bytes).map_err(|e| e.to_string())?;
        let (images, mut damaged) = (salvaged.kept, salvaged.damaged);
        let plain = images.len() == 1 && images[0].label.is_none();
        let mut jobs = Vec::new();
        let mut skipped: Vec<&'static str> = Vec::new();
        for image in &images {
            let obj = match ElfObject::parse(&image.file, &image.bytes) {
                Ok(obj) => obj,
                // A bundle entry that is not an ELF file is a damaged part of the fat binary.
                Err(e) if !plain => {
                    damaged.push(e);
                    continue;
                }
                Err(e) => return Err(e.to_string()),
            };
            let own = obj.target();
            let target = match (args.target, own) {
                // A plain ELF is decoded for the processor asked for.
                (Some(wanted), _) if plain => wanted,
                // In a fat binary, --target picks the code objects for that processor.
                (Some(wanted), Ok(own)) if own == wanted => own,
                (Some(_), _) => continue,
                (None, Ok(own)) => own,
                (None, Err(e)) if plain => return Err(e.to_string()),
                (None, Err(_)) => {
                    skipped.push(gcn_loader::mach_name(obj.mach()).unwrap_or("unknown"));
                    continue;
                }
            };
            let xnack = match args.xnack {
                Some(v) => v == OnOff::On,
                None => xnack_from_flags(obj.e_flags),
            };
            jobs.push((image.file.clone(), obj, options(target, xnack)));
        }
        if jobs.is_empty() && !damaged.is_empty() && skipped.is_empty() {
            return Err(damaged.swap_remove(0).to_string());
        }
        incomplete.extend(super::warn_damaged(
            &name,
            &damaged,
            args.keep,
            super::PRINTED_THE_REST,
        ));
        if !skipped.is_empty() {
            skipped.sort();
            let mut kinds = skipped.clone();
            kinds.dedup();
            eprintln!(
                "gcnemu: {name}: skipped {} code objects for processors that are not gfx9 ({})",
                skipped.len(),
                kinds.join(", ")
            );
        }
        for (label, report) in lint_parallel(jobs) {
            inputs.push(Linted {
                label,
                uri: name.clone(),
                report,
            });
        }
    }
    let findings = inputs.iter().map(|i| i.report.findings.len()).sum();
    let text = match args.format {
        Format::Text => output::text(&inputs),
        Format::Json => output::json(&inputs),
        Format::Sarif => output::sarif(&inputs),
    };
    Ok((text, findings, incomplete))
}

/// Lints code objects on all available cores, keeping their order.
fn lint_parallel(jobs: Vec<(String, ElfObject<'_>, Options)>) -> Vec<(String, lint::Report)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<lint::Report>> = Vec::new();
    results.resize_with(jobs.len(), || None);
    let results = std::sync::Mutex::new(results);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((_, obj, options)) = jobs.get(k) else {
                    break;
                };
                let report = lint::lint_object(obj, options);
                results.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(report);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    jobs.into_iter()
        .zip(results)
        .map(|((label, _, _), report)| (label, report.unwrap_or_default()))
        .collect()
}

/// Assembly text is read whole only up to this size; real sources are far smaller.
const MAX_SOURCE_SIZE: u64 = 64 << 20;

/// Reads a lint input: a binary (ELF, offload bundle) under the loader's limits, or text under
/// [`MAX_SOURCE_SIZE`]; what is neither is refused by its first bytes, before reading on.
fn read_input(path: &std::path::Path) -> Result<Vec<u8>, String> {
    gcn_loader::read_file_checked(path, |prefix| {
        if gcn_loader::is_binary_input(prefix) {
            Ok(gcn_loader::MAX_FILE_SIZE)
        } else if looks_like_text(prefix) {
            Ok(MAX_SOURCE_SIZE)
        } else {
            Err(gcn_loader::unknown_format(prefix))
        }
    })
    .map_err(|e| e.to_string())
}

/// Text as an assembler would take it: no NULs or control characters other than whitespace
/// (a multi-byte character cut at the end of the prefix is still text).
fn looks_like_text(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes
            .iter()
            .all(|&b| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        && match std::str::from_utf8(bytes) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none(),
        }
}

/// `bytes` as assembly source: UTF-8 text with at least one line of code; otherwise the error
/// the other commands give for a file that is not a code object.
fn assembly_text<'a>(name: &str, bytes: &'a [u8]) -> Result<&'a str, String> {
    let not_code =
        || gcn_loader::LoadError::new(name, gcn_loader::unknown_format(bytes)).to_string();
    let text = std::str::from_utf8(bytes).map_err(|_| not_code())?;
    if !looks_like_text(bytes) {
        return Err(not_code());
    }
    let code = text.lines().any(|line| {
        let line = line.split([';', '#']).next().unwrap_or("");
        let line = line.split("//").next().unwrap_or("");
        !line.trim().is_empty()
    });
    if !code {
        return Err(format!(
            "{name}: no instructions or directives in it (only blank lines and comments); expected assembly text or a code object"
        ));
    }
    Ok(text)
}

/// e_flags bit 8 is set for XNACK "on" (code object v3) and for "any" and "on" (v4+); LLVM
/// applies the XNACK rules in both cases.
fn xnack_from_flags(e_flags: u32) -> bool {
    e_flags & 0x100 != 0
}

/// The rule ids to evaluate after `--allow` and `--deny`.
pub fn enabled_rules(allow: &[String], deny: &[String]) -> Result<Vec<&'static str>, String> {
    let checkable = |r: &&gcnemu::hazard::Rule| !matches!(r.check, Check::NotCheckable(_));
    let mut enabled: Vec<&'static str> = RULES
        .iter()
        .filter(checkable)
        .filter(|r| r.default_on)
        .map(|r| r.id)
        .collect();
    for name in allow {
        let ids = select(name)?;
        enabled.retain(|id| !ids.contains(id));
    }
    for name in deny {
        for id in select(name)? {
            if !enabled.contains(&id) {
                enabled.push(id);
            }
        }
    }
    Ok(enabled)
}

fn select(name: &str) -> Result<Vec<&'static str>, String> {
    let pick = |f: &dyn Fn(&gcnemu::hazard::Rule) -> bool| {
        RULES
            .iter()
            .filter(|r| !matches!(r.check, Check::NotCheckable(_)) && f(r))
            .map(|r| r.id)
            .collect()
    };
    Ok(match name {
        "all" => pick(&|_| true),
        "nop" => pick(&|r| r.is_nop_rule()),
        "waitcnt" => pick(&|r| matches!(r.check, Check::Waitcnt(_))),
        id => match RULES.iter().find(|r| r.id == id) {
            Some(r) if matches!(r.check, Check::NotCheckable(_)) => {
                return Err(format!("rule `{id}` cannot be checked on a binary"))
            }
            Some(r) => vec![r.id],
            None => {
                let known: Vec<&str> = RULES.iter().map(|r| r.id).collect();
                return Err(format!(
                    "unknown rule `{id}` (known: all, nop, waitcnt, {})",
                    known.join(", ")
                ));
            }
        },
    })
}

/// `--rules`: one block per rule.
fn rules_table() -> String {
    let mut out = String::new();
    for r in RULES {
        let gate = r.gate.describe();
        out.push_str(&format!(
            "{}\n  {}\n  first:    {}\n  second:   {}\n  requires: {}\n  applies:  {}\n  source:   {}\n",
            r.id,
            r.summary,
            r.first,
            r.second,
            r.requirement(),
            gate,
            r.reference
        ));
        if !r.default_on {
            out.push_str("  off by default (enable with --deny)\n");
        }
        if let Check::NotCheckable(why) = r.check {
            out.push_str(&format!("  not checked: {why}\n"));
        }
        out.push('\n');
    }
    out
}
