//! The `gcnemu` binary and the HIP runtime library (`libamdhip64.so`, crate `gcnemu-hip`), built
//! by Cargo for the tests that run HIP programs. They live in other packages, so Cargo gives no
//! `CARGO_BIN_EXE_*` here: build them (a no-op when up to date) and take the paths Cargo
//! reports.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

pub struct Built {
    pub gcnemu: PathBuf,
    pub library: PathBuf,
}

pub fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "gcnemu", "-p", "gcnemu-hip"])
            .arg("--message-format=json")
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .output()
            .expect("run cargo build");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "cargo build failed:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut gcnemu = None;
        let mut library = None;
        for line in stdout.lines() {
            if !line.contains(r#""reason":"compiler-artifact""#) {
                continue;
            }
            if let Some(at) = line.find(r#""executable":""#) {
                let rest = &line[at + 14..];
                if let Some(end) = rest.find('"') {
                    if rest[..end].ends_with("/gcnemu") {
                        gcnemu = Some(PathBuf::from(&rest[..end]));
                    }
                }
            }
            if let Some(at) = line.find("libamdhip64.so\"") {
                let start = line[..at].rfind('"').unwrap() + 1;
                library = Some(PathBuf::from(&line[start..at + "libamdhip64.so".len()]));
            }
        }
        Built {
            gcnemu: gcnemu.expect("cargo reported no gcnemu executable"),
            library: library.expect("cargo reported no libamdhip64.so"),
        }
    })
}
