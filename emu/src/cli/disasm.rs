//! `gcnemu disasm FILE [--target gfxN] [--kernel NAME] [--source]`.

use super::{parse_target, CliError};
use std::io::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct DisasmArgs {
    /// A code object (.co/.hsaco), relocatable AMDGPU ELF object (.o), clang offload bundle,
    /// or host executable/library with a .hip_fatbin section.
    pub file: PathBuf,
    /// The processor to decode for (default: the one named in the ELF header's e_flags); in a
    /// fat binary, only the code objects for this processor.
    #[arg(long, value_parser = parse_target)]
    pub target: Option<gcn_isa::Target>,
    /// Only the function or kernel with this symbol name.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Interleave the source lines (`file:line` and its text), as `llvm-objdump -S`, for code
    /// objects with a DWARF line table (`hipcc -g`).
    #[arg(long)]
    pub source: bool,
    #[command(flatten)]
    pub keep: super::KeepGoing,
}

/// Writes the listing to stdout as it is made; `Ok` holds the reason the exit status is 2
/// although it was printed (a damaged part of a fat binary, without `--keep-going`).
pub fn run(args: &DisasmArgs) -> Result<Option<String>, CliError> {
    let bytes = gcn_loader::read_file(&args.file)?;
    let name = args.file.display().to_string();
    let salvaged = gcn_loader::extract_file_salvaged(&name, &bytes)?;
    let mut damaged = salvaged.damaged;
    let mut stdout = std::io::stdout().lock();
    let listing = gcnemu::disasm::write_images(
        &name,
        salvaged.kept,
        args.target,
        args.kernel.as_deref(),
        args.source,
        &mut stdout,
    )
    .map_err(|e| match e {
        gcnemu::disasm::Error::Input(message) => CliError::Input(message),
        gcnemu::disasm::Error::Output(e) => CliError::Output(e),
    })?;
    stdout.flush()?;
    damaged.extend(listing.damaged);
    let incomplete = super::warn_damaged(&name, &damaged, args.keep, super::PRINTED_THE_REST);
    for skipped in &listing.skipped {
        eprintln!("gcnemu: skipped {skipped}");
    }
    Ok(incomplete)
}
