//! A [`Case`] as a `gcnemu run` command line (ARCHITECTURE.md, "The command line"): input
//! buffers become `@PATH` files, all-zero ones `zeros:BYTES`, and every buffer gets `:out=PATH`
//! so that all of them are read back and compared.

use super::{Arg, Case};
use std::io;
use std::path::{Path, PathBuf};

/// The `run` arguments (without the program name) and the files the buffers are written to,
/// in argument order.
#[derive(Debug)]
pub struct CliRun {
    pub args: Vec<String>,
    pub outputs: Vec<PathBuf>,
}

/// Writes the case's input files into `dir` and builds the command line for `code_object`.
pub fn command_line(case: &Case, code_object: &Path, dir: &Path) -> io::Result<CliRun> {
    std::fs::create_dir_all(dir)?;
    let dims = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
    let mut args = vec![
        "run".to_string(),
        code_object.display().to_string(),
        "--kernel".into(),
        case.kernel.into(),
        "--grid".into(),
        dims(case.grid),
        "--block".into(),
        dims(case.block),
    ];
    if case.dynamic_lds != 0 {
        args.extend(["--dynamic-lds".into(), case.dynamic_lds.to_string()]);
    }
    let mut outputs = Vec::new();
    for (i, arg) in case.args.iter().enumerate() {
        let value = match arg {
            Arg::Buffer(b) => {
                let out = dir.join(format!("{i}-{}.out", b.name));
                let source = if b.init.iter().all(|&x| x == 0) {
                    format!("zeros:{}", b.init.len())
                } else {
                    let input = dir.join(format!("{i}-{}.in", b.name));
                    std::fs::write(&input, &b.init)?;
                    format!("@{}", input.display())
                };
                let value = format!("{source}:out={}", out.display());
                outputs.push(out);
                value
            }
            Arg::I8(v) => v.to_string(),
            Arg::I32(v) => v.to_string(),
            Arg::U32(v) => v.to_string(),
            Arg::U64(v) => format!("{v:#x}"),
            Arg::F32(v) => float_text(v.to_string(), format!("{v:?}")),
            Arg::F64(v) => float_text(v.to_string(), format!("{v:?}")),
            Arg::Bytes(b) => format!("bytes:{}", hex(b)),
        };
        // `--arg=VALUE`: a negative number after a bare `--arg` would look like an option.
        args.push(format!("--arg={value}"));
    }
    Ok(CliRun { args, outputs })
}

/// The float forms must read as floats (`3` would be the integer 3): Rust's `Debug` output
/// always has a `.`, an exponent, `inf` or `NaN`, and round-trips exactly.
fn float_text(display: String, debug: String) -> String {
    if display.contains(['.', 'e']) {
        display
    } else {
        debug
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structarg_command_line() {
        let case = super::super::by_kernel("structarg");
        let dir = std::env::temp_dir().join(format!("gcn-tests-cli-{}", std::process::id()));
        let run = command_line(&case, Path::new("x.co"), &dir).unwrap();
        assert_eq!(
            &run.args[..8],
            [
                "run",
                "x.co",
                "--kernel",
                "structarg",
                "--grid",
                "4,1,1",
                "--block",
                "64,1,1"
            ]
        );
        assert!(
            run.args[8].starts_with("--arg=bytes:f9eeeeee39300000"),
            "{}",
            run.args[8]
        );
        assert_eq!(run.args[9], "--arg=-5");
        assert!(run.args[10].starts_with("--arg=@") && run.args[10].contains(":out="));
        assert_eq!(run.args[14], "--arg=0.37");
        assert_eq!(run.args[15], "--arg=200");
        assert_eq!(run.outputs.len(), 4);
        assert_eq!(float_text("3".into(), "3.0".into()), "3.0");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
