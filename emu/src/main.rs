fn main() -> std::process::ExitCode {
    gcnemu::cli::main()
}
