//! Launching a kernel case of `gcn_tests::kernels` through the `gcnemu` library, shared by the
//! end-to-end test files.

#![allow(dead_code)]

pub mod hip;

use gcn_tests::kernels::{fixture_path, Arg, Case};

/// Runs `case` on a fresh device with `opts`; returns the stats and its buffers, in argument
/// order, after the run.
pub fn run_with(
    case: &Case,
    target: &str,
    version: u32,
    opts: &gcnemu::LaunchOptions,
) -> Result<(gcnemu::Stats, Vec<Vec<u8>>), String> {
    run_checked(case, target, version, opts, gcnemu::check::CheckSet::NONE)
        .map(|(stats, out, _)| (stats, out))
}

/// What [`run_checked`] returns: the stats, the buffers and the sanitizers' findings.
pub type Checked = (gcnemu::Stats, Vec<Vec<u8>>, Vec<gcnemu::check::Finding>);

/// As [`run_with`], with the sanitizers of `checks`; also returns what they found.
pub fn run_checked(
    case: &Case,
    target: &str,
    version: u32,
    opts: &gcnemu::LaunchOptions,
    checks: gcnemu::check::CheckSet,
) -> Result<Checked, String> {
    let path = fixture_path(case.fixture, target, version);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let target_id = gcn_isa::Target::from_name(target).ok_or(format!("unknown target {target}"))?;
    let mut dev = gcnemu::Device::new(gcnemu::DeviceConfig {
        target: target_id,
        ..Default::default()
    });
    dev.enable_checks(checks);
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
        ..opts.clone()
    };
    let dims = gcnemu::Dims {
        grid: case.grid,
        block: case.block,
    };
    let stats = dev
        .launch(&module, case.kernel, dims, &args, &opts)
        .map_err(|e| e.to_string())?;
    let out = buffers
        .iter()
        .map(|&(addr, len)| dev.read(addr, len).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    Ok((stats, out, dev.take_findings()))
}
