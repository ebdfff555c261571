//! The `gcnemu` command line. Exit status: 0 success, 2 a usage or input error.

mod disasm;
mod exec;
mod info;
mod lint;
pub mod report;
mod run;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "gcnemu",
    version,
    about = "Disassemble, lint and run AMD GCN Vega (gfx9) code objects"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Log to stderr: -v launches and workgroups, -vv memory and waves, -vvv every issued
    /// instruction. RUST_LOG (e.g. `gcnemu=trace`) overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// Sets up `tracing` output on stderr from `-v` or RUST_LOG.
fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        Ok(spec) if !spec.is_empty() => EnvFilter::new(spec),
        _ => EnvFilter::new(match verbose {
            0 => "warn",
            1 => "gcnemu=info",
            2 => "gcnemu=debug",
            _ => "gcnemu=trace",
        }),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .try_init();
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the instructions of an AMDGPU ELF file in llvm-objdump's `-d` layout.
    Disasm(disasm::DisasmArgs),
    /// Show the code objects in a file: targets, versions, and per kernel its arguments,
    /// segment sizes, registers, workgroup limits and descriptor enables.
    Info(info::InfoArgs),
    /// Check code for the hazards gfx9 leaves to software (wait states, s_waitcnt); exit 1 on findings.
    Lint(lint::LintArgs),
    /// Run a kernel: gcnemu run FILE --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] --arg ...
    Run(run::RunArgs),
    /// Run a hipcc-built program with its kernels on the emulator: gcnemu exec [OPTIONS] -- PROGRAM [ARGS]...
    // (Boxed: its flags make it several times the size of the other commands.)
    Exec(Box<exec::ExecArgs>),
}

/// A failure the user can act on; printed as `gcnemu: <message>` with exit status 2.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Load(#[from] gcn_loader::LoadError),
    #[error("{0}")]
    Input(String),
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
}

/// What `info` prints, and why the exit status is 2 although it printed it (a fat binary with
/// damaged parts, without `--keep-going`).
pub struct Output {
    pub text: String,
    pub incomplete: Option<String>,
}

/// `--keep-going` of the commands that read code objects.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct KeepGoing {
    /// A fat binary or bundle with a damaged bundle or entry: use the rest and exit as if
    /// nothing were wrong (each damaged part is still a warning on stderr). Without it the
    /// rest is used too, but the exit status is 2 (`run` does not run at all).
    #[arg(long)]
    pub keep_going: bool,
}

/// What `info`, `disasm` and `lint` do with the rest of a damaged fat binary.
pub const PRINTED_THE_REST: &str =
    "what was printed covers the rest only (--keep-going accepts that with exit status 0)";

/// Prints each damaged part left out of `file` as a warning; returns, unless keeping going,
/// the message that makes the exit status 2, ending with what the command did (`outcome`).
pub fn warn_damaged(
    file: &str,
    damaged: &[gcn_loader::LoadError],
    keep: KeepGoing,
    outcome: &str,
) -> Option<String> {
    for d in damaged {
        eprintln!(
            "gcnemu: warning: {}; left out",
            printable_message(&d.to_string())
        );
    }
    (!damaged.is_empty() && !keep.keep_going).then(|| {
        printable_message(&format!(
            "{file}: {} damaged part(s) left out (see the warnings); {outcome}",
            damaged.len()
        ))
    })
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    // `Ok` holds why the exit status is 2 although the output was printed.
    let result = match &cli.command {
        // A listing can be far longer than its code object: it is written as it is made.
        Command::Disasm(args) => disasm::run(args),
        Command::Info(args) => info::run(args).and_then(|out| {
            write_stdout(out.text)?;
            Ok(out.incomplete)
        }),
        Command::Lint(args) => return lint::main(args),
        Command::Run(args) => return run::main(args),
        Command::Exec(args) => return exec::main(args),
    };
    match result {
        Ok(Some(incomplete)) => {
            eprintln!("gcnemu: {incomplete}");
            ExitCode::from(2)
        }
        Ok(None) => ExitCode::SUCCESS,
        // A closed pipe (`gcnemu disasm x.co | head`) is the reader's choice, not an error.
        Err(CliError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gcnemu: {}", printable_message(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// An error message made safe for the terminal: names from files (kernels, arguments,
/// symbols) may hold control characters; the message's own line breaks stay.
pub fn printable_message(message: &str) -> String {
    message
        .split('\n')
        .map(gcn_loader::escape_controls)
        .collect::<Vec<_>>()
        .join("\n")
}

fn write_stdout(text: String) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Parses a `--target` value such as `gfx906`.
/// A processor with its xnack setting, as `run --target gfx90a:xnack+` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetChoice {
    pub target: gcn_isa::Target,
    /// `:xnack+`: load the code objects built for XNACK on.
    pub xnack: bool,
}

pub fn parse_target_choice(name: &str) -> Result<TargetChoice, String> {
    let target = parse_target(name)?;
    let id = gcn_loader::TargetId::parse(name)
        .ok_or_else(|| format!("`{name}` is not a target id such as gfx90a:xnack+"))?;
    Ok(TargetChoice {
        target,
        xnack: id.xnack == Some(true),
    })
}

pub fn parse_target(name: &str) -> Result<gcn_isa::Target, String> {
    gcn_isa::Target::from_name(name).ok_or_else(|| {
        let known: Vec<String> = gcn_isa::Target::ALL.iter().map(|t| t.to_string()).collect();
        format!("unknown target `{name}` (known: {})", known.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_choices_read_xnack() {
        let c = |s| parse_target_choice(s).map(|c| (c.target.name(), c.xnack));
        assert_eq!(c("gfx90a"), Ok(("gfx90a", false)));
        assert_eq!(c("gfx90a:xnack+"), Ok(("gfx90a", true)));
        assert_eq!(c("gfx90a:sramecc+:xnack-"), Ok(("gfx90a", false)));
        assert!(c("gfx1030")
            .unwrap_err()
            .contains("unknown target `gfx1030`"));
    }
}
