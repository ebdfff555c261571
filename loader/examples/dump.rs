//! Prints what `gcn_loader::load` finds in each file given on the command line (a debugging aid;
//! `gcnemu info` is the user-facing view).
fn main() {
    for path in std::env::args().skip(1) {
        match gcn_loader::load_file(std::path::Path::new(&path)) {
            Ok(objects) => {
                for co in objects {
                    println!(
                        "{} v{} {} kernels={}",
                        co.file,
                        co.version,
                        co.target,
                        co.kernels.len()
                    );
                    for k in &co.kernels {
                        println!("  {k:#?}");
                    }
                }
            }
            Err(e) => println!("error: {e}"),
        }
    }
}
