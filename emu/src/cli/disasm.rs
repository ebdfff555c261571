//! `gcnemu disasm FILE [--target gfxN] [--kernel NAME]`.

use super::{parse_target, CliError};
use gcn_loader::ElfObject;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct DisasmArgs {
    /// A code object (.co/.hsaco) or relocatable AMDGPU ELF object (.o).
    pub file: PathBuf,
    /// The processor to decode for (default: the one named in the ELF header's e_flags).
    #[arg(long, value_parser = parse_target)]
    pub target: Option<gcn_isa::Target>,
    /// Only the function or kernel with this symbol name.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
}

/// The listing, ready to print.
pub fn run(args: &DisasmArgs) -> Result<String, CliError> {
    let bytes = gcn_loader::read_file(&args.file)?;
    let name = args.file.display().to_string();
    let obj = ElfObject::parse(&name, &bytes)?;
    let target = match args.target {
        Some(target) => target,
        None => obj.target()?,
    };
    let options = crate::disasm::Options {
        target,
        symbol: args.kernel.as_deref(),
    };
    crate::disasm::disassemble(&obj, &options).map_err(|e| CliError::Input(format!("{name}: {e}")))
}
