//! The compute-unit model on assembly kernels (tests/fixtures/timing/*.s, linked into code
//! objects by its build.sh): stale reads from a missing s_waitcnt, barriers with early-ending
//! and uneven waves, a barrier deadlock, VM_CNT at its limit with every s_waitcnt field at its
//! maximum, LDS bank conflicts, S_SETPRIO, occupancy limits, and determinism of the schedules.

use gcnemu::cu::{Arbitration, StallReason, TimingConfig};
use gcnemu::{Arg, Device, DeviceConfig, Dims, Error, GuestFault, LaunchOptions, Stats};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/fixtures/timing/{name}.co",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn timing(cus: u32, arbitration: Arbitration) -> LaunchOptions {
    LaunchOptions {
        timing: Some(TimingConfig {
            cus,
            arbitration,
            ..TimingConfig::for_target(gcn_isa::Target::Gfx900)
        }),
        ..LaunchOptions::default()
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn le(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `kernel` of fixture `file` with buffers `bufs` (initial contents) and scalar `extra`
/// arguments after them; returns the stats and the buffers after the run.
fn launch(
    file: &str,
    kernel: &str,
    grid: u32,
    block: u32,
    bufs: &[Vec<u8>],
    extra: &[Arg],
    opts: &LaunchOptions,
) -> Result<(Stats, Vec<Vec<u32>>), Error> {
    let mut dev = Device::new(DeviceConfig::default());
    let module = dev.load(file, &fixture(file))?;
    let mut args = Vec::new();
    let mut addrs = Vec::new();
    for b in bufs {
        let a = dev.alloc(b.len() as u64)?;
        dev.write(a, b)?;
        addrs.push((a, b.len()));
        args.push(Arg::Ptr(a));
    }
    args.extend_from_slice(extra);
    let dims = Dims {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
    };
    let stats = dev.launch(&module, kernel, dims, &args, opts)?;
    let out = addrs
        .iter()
        .map(|&(a, n)| dev.read(a, n).map(|b| words(&b)))
        .collect::<Result<_, _>>()?;
    Ok((stats, out))
}

#[test]
fn missing_waitcnt_reads_the_old_value_and_is_reported() {
    let input: Vec<u32> = (100..164).collect();
    let bufs = [vec![0u8; 256], le(&input)];
    let (stats, out) = launch(
        "stale",
        "stale",
        1,
        64,
        &bufs,
        &[],
        &LaunchOptions::default(),
    )
    .unwrap();
    // The add ran before the load's data arrived: v4 still held 0.
    assert!(out[0].iter().all(|&v| v == 1), "{:?}", &out[0][..4]);
    assert_eq!(stats.stale_reads.len(), 1, "{:?}", stats.stale_reads);
    let r = &stats.stale_reads[0];
    assert_eq!(
        (r.access, r.registers.as_str(), r.counter),
        ("read", "v4", "vmcnt")
    );
    assert_eq!((r.kernel_offset, r.load_offset), (0x24, 0x1c));
    assert!(r.instruction.starts_with("v_add_u32") && r.load.starts_with("global_load_dword"));
    let msg = r.message();
    assert!(
        msg.starts_with(
            "read of v4 before its load completed (missing s_waitcnt vmcnt) at stale+0x24"
        ),
        "{msg}"
    );
    // Functionally (memory completing at issue) the same program computes in + 1.
    let functional = LaunchOptions {
        timing: None,
        ..LaunchOptions::default()
    };
    let (stats, out) = launch("stale", "stale", 1, 64, &bufs, &[], &functional).unwrap();
    assert_eq!(out[0], input.iter().map(|v| v + 1).collect::<Vec<_>>());
    assert!(stats.stale_reads.is_empty() && stats.timing.is_none());
}

#[test]
fn barrier_waits_for_uneven_waves_and_counts_ended_ones() {
    for arbitration in [
        Arbitration::OldestFirst,
        Arbitration::RoundRobin,
        Arbitration::Random { seed: 9 },
    ] {
        let (stats, out) = launch(
            "barrier",
            "barrier",
            1,
            256,
            &[le(&[7; 256])],
            &[],
            &timing(1, arbitration),
        )
        .unwrap();
        // Waves 0-2 saw all three flags; wave 3 ended early and stored nothing.
        assert!(out[0][..192].iter().all(|&v| v == 3), "{arbitration:?}");
        assert!(out[0][192..].iter().all(|&v| v == 7), "{arbitration:?}");
        let t = stats.timing.unwrap();
        // Wave 0 spins 1 iteration, wave 2 81: the short ones wait at the barrier.
        let barrier = t.stalls.cycles[StallReason::Barrier.index().unwrap()];
        assert!(barrier > 1000, "barrier stall cycles {barrier}");
    }
}

#[test]
fn barrier_that_cannot_complete_is_a_deadlock() {
    let mut opts = timing(1, Arbitration::OldestFirst);
    opts.timing.as_mut().unwrap().barrier_timeout = 20_000;
    let err = launch("deadlock", "deadlock", 1, 128, &[vec![0; 64]], &[], &opts).unwrap_err();
    let Error::Guest(g) = &err else {
        panic!("{err}")
    };
    match &g.fault {
        GuestFault::BarrierTimeout {
            waiting,
            running,
            cycles,
        } => {
            assert_eq!(waiting, &[0]);
            assert_eq!(running.len(), 1);
            assert_eq!(running[0].0, 1);
            assert!(*cycles > 20_000);
        }
        other => panic!("{other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("deadlock: waves [0] waited at s_barrier"),
        "{msg}"
    );
}

#[test]
fn vm_cnt_at_its_limit_and_waitcnt_fields_at_maximum() {
    let input: Vec<u32> = (1..=128).collect();
    let (stats, out) = launch(
        "waitcnt_max",
        "waitcnt_max",
        1,
        64,
        &[vec![0; 256], le(&input)],
        &[],
        &LaunchOptions::default(),
    )
    .unwrap();
    let want: Vec<u32> = (0..64).map(|i| input[i..i + 64].iter().sum()).collect();
    assert_eq!(out[0], want);
    // The 64th load waited for a slot in the counter; the program's own waits are complete.
    assert!(stats.stale_reads.is_empty(), "{:?}", stats.stale_reads);
    let waitcnt = StallReason::Waitcnt.index().unwrap();
    assert!(stats.timing.unwrap().stalls.cycles[waitcnt] > 0);
}

#[test]
fn lds_bank_conflicts_per_stride() {
    // (stride in dwords, conflict cycles): b32 accesses go in two passes of 32 lanes.
    for (stride, conflicts, bank_cycles) in [(0, 0, 2), (1, 0, 2), (2, 2, 4), (32, 62, 64)] {
        let (stats, _) = launch(
            "lds_banks",
            "lds_banks",
            1,
            64,
            &[],
            &[Arg::U32(stride)],
            &LaunchOptions::default(),
        )
        .unwrap();
        let lds = stats.timing.unwrap().lds;
        assert_eq!(
            (lds.instructions, lds.conflict_cycles, lds.bank_cycles),
            (1, conflicts, bank_cycles),
            "stride {stride}"
        );
    }
    // Conflicts slow the wave down: 32-way costs 62 more bank cycles than conflict-free; the
    // wave sees them at its next issue turn, which comes every 4 cycles.
    let cycles = |stride| {
        let (s, _) = launch(
            "lds_banks",
            "lds_banks",
            1,
            64,
            &[],
            &[Arg::U32(stride)],
            &LaunchOptions::default(),
        )
        .unwrap();
        s.timing.unwrap().cycles
    };
    let extra = cycles(32) - cycles(1);
    assert!((59..=65).contains(&extra), "{extra}");
}

#[test]
fn setprio_changes_issue_order() {
    // out[wave] = the order in which the wave finished its VALU work.
    let run = |raise: u32, arbitration| {
        let (_, out) = launch(
            "setprio",
            "setprio",
            1,
            320,
            &[vec![0; 4], vec![0; 20]],
            &[Arg::U32(raise)],
            &timing(1, arbitration),
        )
        .unwrap();
        out[1].clone()
    };
    let plain = run(0, Arbitration::OldestFirst);
    assert!(plain[0] < plain[4], "oldest first: {plain:?}");
    let raised = run(1, Arbitration::OldestFirst);
    assert!(raised[4] < raised[0], "s_setprio 3: {raised:?}");
    // Priority wins under round-robin too.
    let rr = run(1, Arbitration::RoundRobin);
    assert!(rr[4] < rr[0], "round-robin with s_setprio 3: {rr:?}");
}

#[test]
fn occupancy_limited_by_vgprs_and_lds() {
    use gcnemu::cu::occupancy::Limiter;
    for (kernel, limiter, per_cu) in [
        ("vgpr_heavy", Limiter::Vgprs, 8),
        ("lds_heavy", Limiter::Lds, 2),
    ] {
        let (stats, _) = launch(
            "occupancy",
            kernel,
            32,
            64,
            &[],
            &[Arg::U32(100)],
            &timing(1, Arbitration::OldestFirst),
        )
        .unwrap();
        let t = stats.timing.unwrap();
        assert_eq!(
            (t.occupancy.limiter, t.occupancy.waves_per_cu),
            (limiter, per_cu),
            "{kernel}"
        );
        let achieved = t.achieved_waves_per_simd;
        let limit = per_cu as f64 / 4.0;
        assert!(
            achieved <= limit + 1e-9 && achieved > limit * 0.9,
            "{kernel}: {achieved}"
        );
    }
}

#[test]
fn schedules_are_deterministic_and_seeds_vary_them() {
    let run = |arbitration| {
        let (s, out) = launch(
            "barrier",
            "barrier",
            4,
            256,
            &[vec![0; 1024]],
            &[],
            &timing(2, arbitration),
        )
        .unwrap();
        (s.timing.unwrap().cycles, out)
    };
    assert_eq!(run(Arbitration::OldestFirst), run(Arbitration::OldestFirst));
    let a = run(Arbitration::Random { seed: 1 });
    assert_eq!(a, run(Arbitration::Random { seed: 1 }));
    let cycles: std::collections::HashSet<u64> = (1..6)
        .map(|seed| run(Arbitration::Random { seed }).0)
        .collect();
    assert!(cycles.len() > 1, "five seeds gave one schedule: {cycles:?}");
}

#[test]
fn trace_has_a_track_per_wave() {
    let mut opts = timing(1, Arbitration::OldestFirst);
    opts.timing.as_mut().unwrap().trace = true;
    let (stats, _) = launch("barrier", "barrier", 1, 256, &[vec![0; 1024]], &[], &opts).unwrap();
    let mut json = Vec::new();
    stats.trace.unwrap().write(&mut json, "barrier").unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let tracks: std::collections::HashSet<u64> = events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    assert_eq!(tracks.len(), 4);
    let at_barrier = events.iter().filter(|e| e["name"] == "barrier").count();
    assert!(at_barrier >= 2, "{at_barrier} barrier stretches");
    assert!(events.iter().any(|e| e["name"] == "thread_name"));
}
