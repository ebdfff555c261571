//! The `gcnemu` command: its subcommands and their options (`cli/`) over the `gcnemu` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
