//! End-to-end runs of code objects for the CDNA targets through the library API, with the
//! functional engine and the timing model, against CPU results.
//!
//! - The matrix-core GEMM (`tests/fixtures/hip/mfma_gemm.hip`: one wave computes a 32×32 tile of
//!   C = A·Bᵀ with `v_mfma_f32_32x32x8f16`, its accumulators in AGPRs), built by hipcc for gfx908
//!   and gfx90a. The inputs are small integers, so every product and sum is exact in f32 and any
//!   summation order gives the same bits.
//! - `tests/fixtures/cdna/acc_memory.s` (gfx90a): a load into an AGPR and a store from one, in
//!   both engines.

use gcn_isa::Target;
use gcnemu::cu::TimingConfig;
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
use std::path::PathBuf;

fn gemm(target: Target, timed: bool) {
    let name = format!("mfma_gemm.{target}.co");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hip")
        .join(&name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new(DeviceConfig {
        target,
        ..Default::default()
    });
    let module = dev.load(&name, &bytes).unwrap();
    let (m, n, k) = (64usize, 96usize, 32usize);
    let a: Vec<f32> = (0..m * k)
        .map(|x| ((x / k * 3 + x % k * 5) % 7) as f32 - 3.0)
        .collect();
    // B transposed: bt[j * k + x] is B[x][j].
    let bt: Vec<f32> = (0..n * k)
        .map(|x| ((x % k * 2 + x / k) % 5) as f32 - 2.0)
        .collect();
    let half = |v: &[f32]| -> Vec<u8> {
        v.iter()
            .flat_map(|&x| half::f16::from_f32(x).to_bits().to_le_bytes())
            .collect()
    };
    let (ha, hb) = (half(&a), half(&bt));
    let da = dev.alloc(ha.len() as u64).unwrap();
    dev.write(da, &ha).unwrap();
    let db = dev.alloc(hb.len() as u64).unwrap();
    dev.write(db, &hb).unwrap();
    let dc = dev.alloc((4 * m * n) as u64).unwrap();
    let dims = Dims {
        grid: [(n / 32) as u32, (m / 32) as u32, 1],
        block: [64, 1, 1],
    };
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(db),
        Arg::Ptr(dc),
        Arg::I32(m as i32),
        Arg::I32(n as i32),
        Arg::I32(k as i32),
    ];
    let opts = LaunchOptions {
        timing: timed.then(|| TimingConfig::for_target(target)),
        ..LaunchOptions::default()
    };
    dev.launch(&module, "mfma_gemm_f16", dims, &args, &opts)
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    let got: Vec<f32> = dev
        .read(dc, 4 * m * n)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|x| a[i * k + x] * bt[j * k + x]).sum();
            assert_eq!(got[i * n + j], want, "{target}: C[{i}][{j}]");
        }
    }
}

fn acc_memory(timed: bool) -> Result<Vec<u32>, String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cdna/acc_memory.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new(DeviceConfig {
        target: Target::Gfx90a,
        ..Default::default()
    });
    let module = dev.load("acc_memory.co", &bytes).unwrap();
    let n = 256usize;
    let input: Vec<u8> = (0..n as u32)
        .flat_map(|i| (i * 7 + 3).to_le_bytes())
        .collect();
    let din = dev.alloc(4 * n as u64).unwrap();
    dev.write(din, &input).unwrap();
    let dout = dev.alloc(4 * n as u64).unwrap();
    // One workgroup: the kernel indexes by work-item id alone.
    let dims = Dims {
        grid: [1, 1, 1],
        block: [n as u32, 1, 1],
    };
    let opts = LaunchOptions {
        timing: timed.then(|| TimingConfig::for_target(Target::Gfx90a)),
        ..LaunchOptions::default()
    };
    dev.launch(
        &module,
        "acc_memory",
        dims,
        &[Arg::Ptr(din), Arg::Ptr(dout)],
        &opts,
    )
    .map_err(|e| e.to_string())?;
    Ok(dev
        .read(dout, 4 * n)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

#[test]
fn loads_and_stores_with_data_in_agprs() {
    // Functional, and under the timing model, whose snapshots and landings carry the AGPR rows.
    for timed in [false, true] {
        let out = acc_memory(timed).unwrap();
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, i as u32 * 7 + 4, "timed {timed}: out[{i}]");
        }
    }
}

#[test]
fn mfma_gemm_gfx908() {
    gemm(Target::Gfx908, false);
}

#[test]
fn mfma_gemm_gfx90a() {
    gemm(Target::Gfx90a, false);
}

#[test]
fn mfma_gemm_timed() {
    gemm(Target::Gfx908, true);
    gemm(Target::Gfx90a, true);
}

/// `gfx90a:xnack+` loads the fat binary's xnack+ code object, the default the xnack- one
/// (`tests/fixtures/loader/cdna.bundle` has both); gfx908's, built for either setting, loads
/// both ways.
#[test]
fn the_device_xnack_setting_picks_the_code_object() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/loader/cdna.bundle");
    let bytes = std::fs::read(&path).unwrap();
    for (target, xnack) in [
        (Target::Gfx90a, false),
        (Target::Gfx90a, true),
        (Target::Gfx908, true),
    ] {
        let mut dev = Device::new(DeviceConfig {
            target,
            xnack,
            ..Default::default()
        });
        let module = dev.load("cdna.bundle", &bytes).unwrap();
        assert_eq!(module.object.target.mach, target.name());
        let built_for = module.object.target.xnack;
        match target {
            Target::Gfx90a => assert_eq!(built_for, Some(xnack), "{target} xnack {xnack}"),
            _ => assert_eq!(built_for, None, "{target}: built for either setting"),
        }
    }
    let config = DeviceConfig {
        target: Target::Gfx90a,
        xnack: true,
        ..Default::default()
    };
    assert_eq!(config.target_id().to_string(), "gfx90a:xnack+");
}

/// Runs kernel `name` of `tests/fixtures/mi300/dispatch.co` on gfx942 over `groups` workgroups
/// of `block` work-items, with `args`; the outputs are the buffers `outs` (in dwords).
fn mi300_dispatch(
    name: &str,
    groups: u32,
    block: u32,
    scalars: &[Arg],
    outs: usize,
    timed: bool,
) -> Result<Vec<Vec<u32>>, String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mi300/dispatch.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new(DeviceConfig {
        target: Target::Gfx942,
        ..Default::default()
    });
    let module = dev.load("dispatch.co", &bytes).map_err(|e| e.to_string())?;
    let n = (groups * block) as usize;
    let bufs: Vec<u64> = (0..outs)
        .map(|_| dev.alloc(4 * n as u64).unwrap())
        .collect();
    let mut args: Vec<Arg> = bufs.iter().map(|&b| Arg::Ptr(b)).collect();
    args.extend_from_slice(scalars);
    let opts = LaunchOptions {
        timing: timed.then(|| TimingConfig::for_target(Target::Gfx942)),
        ..LaunchOptions::default()
    };
    let dims = Dims {
        grid: [groups, 1, 1],
        block: [block, 1, 1],
    };
    dev.launch(&module, name, dims, &args, &opts)
        .map_err(|e| e.to_string())?;
    Ok(bufs
        .iter()
        .map(|&b| {
            dev.read(b, 4 * n)
                .unwrap()
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
        .collect())
}

/// gfx942 preloads the kernel arguments the descriptor asks for into the SGPRs after the
/// kernarg pointer, and starts the kernel 256 bytes in, past the loads (a trap in the fixture)
/// that firmware without preloading runs.
#[test]
fn mi300_preloads_kernel_arguments_and_skips_the_fallback_loads() {
    for timed in [false, true] {
        let out = mi300_dispatch("preload", 3, 64, &[Arg::I32(1000)], 1, timed).unwrap();
        for (i, v) in out[0].iter().enumerate() {
            assert_eq!(*v, 1000 + i as u32, "timed {timed}: out[{i}]");
        }
    }
}

/// With architected flat scratch, FLAT_SCRATCH holds each wave's scratch and no wave offset
/// SGPR follows the workgroup id: the private stores and loads of two waves a group land in
/// their own memory, and the SGPR after the workgroup id is 0 in every wave.
#[test]
fn mi300_scratch_is_architected() {
    for timed in [false, true] {
        let out = mi300_dispatch("scratch", 2, 128, &[], 2, timed).unwrap();
        for (i, (v, s)) in out[0].iter().zip(&out[1]).enumerate() {
            assert_eq!(*v, 3 * i as u32, "timed {timed}: out[{i}]");
            assert_eq!(*s, 0, "timed {timed}: out2[{i}]");
        }
    }
}

/// s_getreg of XCC_ID on MI300X names the XCD of the wave's workgroup: workgroups are dealt to
/// the 8 XCDs in turn.
#[test]
fn mi300_xcc_id_deals_workgroups_to_the_xcds() {
    for timed in [false, true] {
        let out = mi300_dispatch("xcc", 20, 64, &[], 1, timed).unwrap();
        for (g, xcc) in out[0].iter().take(20).enumerate() {
            assert_eq!(*xcc, g as u32 % 8, "timed {timed}: workgroup {g}");
        }
    }
}
