//! The spin detector: a kernel whose waves all spin on a flag nobody sets ends as a
//! livelock naming its loop, in both engines and long before `--timeout`; waves that spin on a
//! flag another wave or workgroup sets after a long write-free loop, waves waiting for the host
//! to answer a hostcall, and waves waiting at a barrier are no livelock, even with the detector
//! at its most eager (`--spin-limit 1`). Kernels: `tests/fixtures/timing/spin.s`.

use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::exec::DispatchEnv;
use gcnemu::launch::host::HostServices;
use gcnemu::launch::{Counts, Stop};
use gcnemu::lds::Lds;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::run::run_workgroup_until;
use gcnemu::wave::Wave;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn fixture(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(path)
        .display()
        .to_string()
}

fn gcnemu(args: &[&str]) -> (i32, String, String, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed(),
    )
}

#[test]
fn a_spin_on_a_flag_nobody_sets_is_a_livelock_naming_the_loop() {
    let co = fixture("timing/spin.co");
    for timing in ["off", "on"] {
        let (status, _, stderr, elapsed) = gcnemu(&[
            "run",
            &co,
            "--kernel",
            "spin",
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "zeros:64",
            "--timing",
            timing,
            "--timeout",
            "120",
        ]);
        assert_eq!(status, 1, "{timing}: {stderr}");
        assert!(
            elapsed < Duration::from_secs(20),
            "{timing}: {elapsed:?}, not well before the timeout"
        );
        assert!(
            stderr.contains("kernel `spin`: livelock: ")
                && stderr.contains("with no change to memory or to their registers"),
            "{timing}: {stderr}"
        );
        // The loop: from the s_sleep at .Lwait to the backward branch.
        assert!(
            stderr.contains("workgroup (0, 0, 0) wave 1: loop 0x")
                && stderr.contains("(spin+0x14 to spin+0x2c) `s_cbranch_scc1"),
            "{timing}: {stderr}"
        );
        // The functional engine runs workgroups one after another: only the first group's
        // waves exist; the timing model has both groups resident.
        let waves = if timing == "off" { 2 } else { 4 };
        assert!(
            stderr.contains(&format!("{waves} wave(s) go round")),
            "{stderr}"
        );
    }
}

#[test]
fn the_detector_can_be_turned_off() {
    let co = fixture("timing/spin.co");
    let (status, _, stderr, _) = gcnemu(&[
        "run",
        &co,
        "--kernel",
        "spin",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "zeros:64",
        "--timing",
        "off",
        "--spin-limit",
        "0",
        "--timeout",
        "0.5",
    ]);
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains("timeout: still running after 0.5 s"),
        "{stderr}"
    );
    assert!(!stderr.contains("livelock"), "{stderr}");
}

#[test]
fn a_spin_on_a_flag_another_wave_sets_is_no_livelock() {
    let co = fixture("timing/spin.co");
    let out = std::env::temp_dir().join(format!("gcnemu-handoff-{}", std::process::id()));
    let out_arg = format!("zeros:64:out={}", out.display());
    for timing in ["off", "on"] {
        for limit in ["1", "1024"] {
            // 3 workgroups of 2 waves: each waits for the one before, which first counts 3000
            // iterations without writing anything.
            let (status, _, stderr, _) = gcnemu(&[
                "run",
                &co,
                "--kernel",
                "handoff",
                "--grid",
                "3",
                "--block",
                "128",
                "--arg",
                &out_arg,
                "--arg",
                "3000",
                "--arg",
                "2",
                "--timing",
                timing,
                "--spin-limit",
                limit,
            ]);
            assert_eq!(status, 0, "{timing} {limit}: {stderr}");
            let flags: Vec<u32> = std::fs::read(&out)
                .unwrap()
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(&flags[..8], &[0, 1, 1, 1, 1, 1, 1, 0], "{timing} {limit}");
        }
    }
    let _ = std::fs::remove_file(out);
}

#[test]
fn stores_through_the_sanitizers_count_as_writes() {
    // `--check all` stores through its own checked path: the handoff must still go through,
    // and the spin on a flag nobody sets must still be a livelock.
    let co = fixture("timing/spin.co");
    for timing in ["off", "on"] {
        let (status, _, stderr, _) = gcnemu(&[
            "run",
            &co,
            "--kernel",
            "handoff",
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "zeros:64",
            "--arg",
            "500",
            "--arg",
            "2",
            "--timing",
            timing,
            "--spin-limit",
            "1",
            "--check",
            "all",
        ]);
        assert_eq!(status, 0, "{timing}: {stderr}");
        let (status, _, stderr, _) = gcnemu(&[
            "run", &co, "--kernel", "spin", "--grid", "1", "--block", "64", "--arg", "zeros:64",
            "--timing", timing, "--check", "all",
        ]);
        assert_eq!(status, 1, "{timing}: {stderr}");
        assert!(stderr.contains("livelock"), "{timing}: {stderr}");
    }
}

#[test]
fn waves_waiting_for_a_hostcall_answer_are_no_livelock() {
    let co = fixture("hip/printf.gfx900.co");
    for timing in ["off", "on"] {
        let (status, stdout, stderr, _) = gcnemu(&[
            "run",
            &co,
            "--kernel",
            "hello",
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "zeros:256",
            "--arg",
            "6",
            "--timing",
            timing,
            "--spin-limit",
            "1",
        ]);
        assert_eq!(status, 0, "{timing}: {stderr}");
        assert_eq!(stdout.lines().count(), 6, "{timing}: {stdout}");
        assert!(stdout.contains("lane 5 of 6: 0x4fb"), "{timing}: {stdout}");
    }
}

#[test]
fn a_spin_that_keeps_a_barrier_from_completing_is_a_livelock() {
    // deadlock.s: wave 1 spins on an LDS flag that wave 0 writes only after s_barrier.
    let co = fixture("timing/deadlock.co");
    for timing in ["off", "on"] {
        let (status, _, stderr, _) = gcnemu(&[
            "run", &co, "--kernel", "deadlock", "--grid", "1", "--block", "128", "--arg",
            "zeros:64", "--timing", timing,
        ]);
        assert_eq!(status, 1, "{timing}: {stderr}");
        assert!(
            stderr.contains("1 wave(s) go round a loop")
                && stderr.contains("(1 more wait at s_barrier for them)")
                && stderr.contains("workgroup (0, 0, 0) wave 1: loop 0x"),
            "{timing}: {stderr}"
        );
    }
}

/// A host that answers a request (a non-zero word at `request`) by writing `answer`, as the
/// hostcall server does: every request it can see is served at the poll that sees it.
struct Host {
    request: u64,
    answer: u64,
    answers: bool,
    polls: u32,
}

impl HostServices for Host {
    fn poll(&mut self, mem: &mut Memory) -> Result<(), String> {
        self.polls += 1;
        let asked = mem.read_u32(self.request).map_err(|e| e.to_string())?;
        let answered = mem.read_u32(self.answer).map_err(|e| e.to_string())?;
        if self.answers && asked != 0 && answered == 0 {
            mem.write_u32(self.answer, 7).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// One wave stores a request, then spins until the answer is non-zero (a loop of 5
/// instructions, so the detector finds it spinning within one round of wave quanta, before the
/// host's next poll).
fn hostcall_wave(answers: bool) -> (Result<(), Stop>, Memory, u64) {
    let asm = "
        s_mov_b32 s4, 1
        v_mov_b32 v3, s4
        global_store_dword v[0:1], v3, off
        s_waitcnt vmcnt(0)
        wait:
        global_load_dword v4, v[0:1], off offset:4 glc
        s_waitcnt vmcnt(0)
        v_readfirstlane_b32 s5, v4
        s_cmp_eq_u32 s5, 0
        s_cbranch_scc1 wait
        s_endpgm
    ";
    let code = assemble(asm, Target::Gfx900).unwrap_or_else(|e| panic!("{e:?}"));
    let program = Program::decode(&code.bytes, 0x1000, Target::Gfx900);
    let mut mem = Memory::default();
    let buf = mem.alloc(64, AllocKind::Buffer).unwrap();
    let mut w = Wave::new(0);
    w.set_exec(u64::MAX);
    w.vgpr[0] = [buf as u32; 64];
    w.vgpr[1] = [(buf >> 32) as u32; 64];
    let mut waves = [w];
    let mut lds = Lds::new(0);
    let env = DispatchEnv {
        spin_limit: 1,
        ..DispatchEnv::default()
    };
    let mut host = Host {
        request: buf,
        answer: buf + 4,
        answers,
        polls: 0,
    };
    let (mut budget, mut counts) = (1_000_000u64, Counts::default());
    let r = run_workgroup_until(
        &mut waves,
        &program,
        &mut mem,
        &mut lds,
        &env,
        &mut budget,
        &mut counts,
        None,
        Some(&mut host),
        None,
    );
    assert!(host.polls >= 2, "{} polls", host.polls);
    (r, mem, buf)
}

#[test]
fn an_answer_from_the_host_counts_as_a_write() {
    let (r, mem, buf) = hostcall_wave(true);
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(mem.read_u32(buf + 4).unwrap(), 7);
    // The same wave with a host that never answers spins for good.
    let (r, _, _) = hostcall_wave(false);
    match r {
        Err(Stop::Livelock { spinners, barrier }) => {
            assert_eq!(barrier, 0);
            assert_eq!(spinners.len(), 1);
            // The loop: from `wait` (instruction 4) to the s_cbranch_scc1 (instruction 8).
            assert_eq!((spinners[0].target, spinners[0].branch), (4, 8));
        }
        other => panic!("{other:?}"),
    }
}
