//! Lists the code objects `gcn_loader::load` finds in each file named on the command line, one
//! line each (label, version, target, kernel count), and the time the load took. Used to check
//! the loader on large ROCm libraries: `cargo run -p gcn-loader --example list -- lib.so`.
use std::time::Instant;

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let start = Instant::now();
        match gcn_loader::load_file(std::path::Path::new(&path)) {
            Ok(objects) => {
                let kernels: usize = objects.iter().map(|c| c.kernels.len()).sum();
                for co in &objects {
                    println!(
                        "{}\tv{}\t{}\t{} kernels",
                        co.label.as_deref().unwrap_or("-"),
                        co.version,
                        co.target,
                        co.kernels.len()
                    );
                }
                eprintln!(
                    "{path}: {} code objects, {kernels} kernels, loaded in {:.2?}",
                    objects.len(),
                    start.elapsed()
                );
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
            }
        }
    }
    std::process::exit(i32::from(failed));
}
