//! Every kernel case of `gcn_tests::kernels` on gfx900 and gfx906, as code object v4 and v5,
//! through the `gcnemu` library API; every buffer is compared byte for byte with the CPU
//! reference, and a mismatch names the buffer and its first differing elements.

use gcn_tests::kernels::{self, fixture_path, Arg, Case};

/// Library-math, f16 and call-stack kernels, checked with their own references.
mod kernel_math;

/// Wave-instruction budget of one launch.
const BUDGET: u64 = 5_000_000;

/// Runs `case` on a fresh device; returns its buffers, in argument order, after the run.
fn run_case(case: &Case, target: &str, version: u32) -> Result<Vec<Vec<u8>>, String> {
    let path = fixture_path(case.fixture, target, version);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let target_id = gcn_isa::Target::from_name(target).ok_or(format!("unknown target {target}"))?;
    let mut dev = gcnemu::Device::new(gcnemu::DeviceConfig {
        target: target_id,
        ..Default::default()
    });
    let name = path.file_name().unwrap().to_string_lossy();
    let module = dev.load(&name, &bytes).map_err(|e| e.to_string())?;
    let mut buffers = Vec::new();
    let mut args = Vec::new();
    for arg in &case.args {
        args.push(match arg {
            Arg::Buffer(b) => {
                let addr = dev.alloc(b.init.len() as u64).map_err(|e| e.to_string())?;
                dev.write(addr, &b.init).map_err(|e| e.to_string())?;
                buffers.push((addr, b.init.len()));
                gcnemu::Arg::Ptr(addr)
            }
            Arg::I8(v) => gcnemu::Arg::Bytes(vec![*v as u8]),
            Arg::I32(v) => gcnemu::Arg::I32(*v),
            Arg::U32(v) => gcnemu::Arg::U32(*v),
            Arg::U64(v) => gcnemu::Arg::U64(*v),
            Arg::F32(v) => gcnemu::Arg::F32(*v),
            Arg::F64(v) => gcnemu::Arg::F64(*v),
            Arg::Bytes(b) => gcnemu::Arg::Bytes(b.clone()),
        });
    }
    let opts = gcnemu::LaunchOptions {
        dynamic_lds: case.dynamic_lds,
        // Each case runs well under a million wave-instructions; a runaway loop (a CAS loop
        // that never succeeds, a branch that never exits) fails in seconds, not hours.
        max_instructions: Some(BUDGET),
        ..Default::default()
    };
    let dims = gcnemu::Dims {
        grid: case.grid,
        block: case.block,
    };
    let stats = dev
        .launch(&module, case.kernel, dims, &args, &opts)
        .map_err(|e| e.to_string())?;
    eprintln!(
        "{} {target} v{version}: {} waves, {} wave-instructions",
        case.kernel, stats.waves, stats.wave_instructions
    );
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
    buffers
        .iter()
        .map(|&(addr, len)| dev.read(addr, len).map_err(|e| e.to_string()))
        .collect()
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
