//! Every kernel case of `gcn_tests::kernels` on gfx900 and gfx906, as code object v4 and v5,
//! through the `gcnemu` library API; every buffer is compared byte for byte with the CPU
//! reference, and a mismatch names the buffer and its first differing elements.

mod common;

use gcn_tests::kernels::{self, fixture_path, Case};

/// Library-math, f16 and call-stack kernels, checked with their own references.
mod kernel_math;

/// Wave-instruction budget of one launch.
const BUDGET: u64 = 5_000_000;

/// Runs `case` on a fresh device; returns its buffers, in argument order, after the run.
fn run_case(case: &Case, target: &str, version: u32) -> Result<Vec<Vec<u8>>, String> {
    let opts = gcnemu::LaunchOptions {
        // Each case runs well under a million wave-instructions; a runaway loop (a CAS loop
        // that never succeeds, a branch that never exits) fails in seconds, not hours.
        max_instructions: Some(BUDGET),
        ..Default::default()
    };
    let (stats, buffers) = common::run_with(case, target, version, &opts)?;
    eprintln!(
        "{} {target} v{version}: {} waves, {} wave-instructions",
        case.kernel, stats.waves, stats.wave_instructions
    );
    // LLVM placed the s_waitcnts: no register may be read before its load completed.
    if let Some(r) = stats.stale_reads.first() {
        return Err(r.message());
    }
    // Every work-item of a launch runs: one wave per 64 work-items of each workgroup.
    let groups: u64 = case.grid.iter().map(|&g| u64::from(g)).product();
    let per_group = u64::from(case.block.iter().product::<u32>()).div_ceil(64);
    if (stats.workgroups, stats.waves) != (groups, groups * per_group) {
        return Err(format!(
            "stats: {} workgroups and {} waves, expected {groups} and {}",
            stats.workgroups,
            stats.waves,
            groups * per_group
        ));
    }
    Ok(buffers)
}

fn check(kernel: &str, target: &str, version: u32) {
    let case = kernels::by_kernel(kernel);
    let got = run_case(&case, target, version)
        .unwrap_or_else(|e| panic!("{kernel} {target} v{version}: {e}"));
    if let Err(msg) = case.check(&got) {
        panic!("{target} v{version}: {msg}");
    }
}

/// A store to an unmapped address is a guest error naming the kernel and the address.
#[test]
fn fault_names_the_address() {
    let addr: u64 = 0xdead_beef_0000;
    for target in kernels::TARGETS {
        for version in kernels::VERSIONS {
            let path = fixture_path("oob", target, version);
            let bytes = std::fs::read(&path).unwrap();
            let mut dev = gcnemu::Device::new(gcnemu::DeviceConfig {
                target: gcn_isa::Target::from_name(target).unwrap(),
                ..Default::default()
            });
            let module = dev.load("oob", &bytes).unwrap();
            let dims = gcnemu::Dims {
                grid: [2, 1, 1],
                block: [64, 1, 1],
            };
            let args = [gcnemu::Arg::U64(addr), gcnemu::Arg::I32(7)];
            let opts = gcnemu::LaunchOptions::default();
            let err = match dev.launch(&module, "oob_store", dims, &args, &opts) {
                Ok(_) => panic!("{target} v{version}: oob_store ran without a fault"),
                Err(e) => e,
            };
            assert!(err.is_guest(), "{target} v{version}: {err}");
            let msg = err.to_string();
            assert!(
                msg.contains("oob_store") && msg.contains(&format!("{addr:#x}")),
                "{target} v{version}: {msg}"
            );
        }
    }
}

/// One test: `kernel_test!(kernel, test_name, "gfxN", version [, #[ignore = "why"]])`.
macro_rules! kernel_test {
    ($kernel:ident, $name:ident, $target:literal, $v:literal $(, #[$m:meta])*) => {
        #[test]
        $(#[$m])*
        fn $name() {
            super::check(stringify!($kernel), $target, $v);
        }
    };
}

/// One module per kernel and one test per target and code object version, so that a failure,
/// or an `#[ignore]` (written out with `kernel_test!`), is as narrow as it can be.
macro_rules! kernel_tests {
    ($kernel:ident) => {
        mod $kernel {
            kernel_test!($kernel, gfx900_v4, "gfx900", 4);
            kernel_test!($kernel, gfx900_v5, "gfx900", 5);
            kernel_test!($kernel, gfx906_v4, "gfx906", 4);
            kernel_test!($kernel, gfx906_v5, "gfx906", 5);
        }
    };
}

kernel_tests!(saxpy);
kernel_tests!(index2d);
kernel_tests!(structarg);
kernel_tests!(transpose);
kernel_tests!(ballot);
kernel_tests!(shuffle);
kernel_tests!(loops);
kernel_tests!(dmath);
kernel_tests!(index3d);
kernel_tests!(block_reduce);
kernel_tests!(intmath);
kernel_tests!(atomics);
kernel_tests!(ldsatomics);
kernel_tests!(fmath);
