//! The run-time hazard check on matrix-core code: hipcc's GEMM (`tests/fixtures/hip/mfma_gemm.hip`,
//! `v_mfma_f32_32x32x8f16` into AGPRs, read back by `v_accvgpr_read`) runs clean on gfx908 and
//! gfx90a, and with the `s_nop 7` LLVM put after its last MFMA shrunk to `s_nop 0` the issued path
//! breaks the target's rule for reading an MFMA's result.

use gcn_isa::Target;
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
use std::path::PathBuf;

/// The rules (ids) the run-time check reported for one launch of `bytes`.
fn run(target: Target, bytes: &[u8]) -> Vec<&'static str> {
    let mut dev = Device::new(DeviceConfig {
        target,
        ..Default::default()
    });
    let module = dev.load("mfma_gemm", bytes).unwrap();
    let (m, n, k) = (32usize, 32usize, 16usize);
    let a = dev.alloc((2 * m * k) as u64).unwrap();
    let b = dev.alloc((2 * k * n) as u64).unwrap();
    let c = dev.alloc((4 * m * n) as u64).unwrap();
    let args = [
        Arg::Ptr(a),
        Arg::Ptr(b),
        Arg::Ptr(c),
        Arg::I32(m as i32),
        Arg::I32(n as i32),
        Arg::I32(k as i32),
    ];
    let dims = Dims {
        grid: [1, 1, 1],
        block: [64, 1, 1],
    };
    let stats = dev
        .launch(
            &module,
            "mfma_gemm_f16",
            dims,
            &args,
            &LaunchOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    stats.hazards.iter().map(|h| h.rule).collect()
}

#[test]
fn matrix_rules_hold_at_run_time() {
    for (target, rule) in [
        (Target::Gfx908, "mfma-agpr-accvgpr-read"),
        (Target::Gfx90a, "mfma-valu-read"),
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../tests/fixtures/hip/mfma_gemm.{target}.co"));
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(run(target, &bytes), Vec::<&str>::new(), "{target}");
        // `s_nop 7; s_nop 7` after the loop's last MFMA, before the first v_accvgpr_read.
        let nops = [7, 0, 0x80, 0xbf, 7, 0, 0x80, 0xbf];
        let at = bytes
            .windows(nops.len())
            .position(|w| w == nops)
            .unwrap_or_else(|| panic!("{target}: no s_nop 7 pair"));
        let mut mutant = bytes.clone();
        mutant[at] = 0;
        let found = run(target, &mutant);
        assert!(found.contains(&rule), "{target}: {found:?}");
    }
}
