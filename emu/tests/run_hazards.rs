//! Run-time hazard checking (`--hazards off|warn|error`): snippets assembled with
//! `gcn_isa::assemble` and run on one wave through the engine, a compiler-built kernel whose
//! `s_nop` before `v_div_fmas_f64` is shrunk (through the CLI), and compiler output that must
//! run clean (through the library).

use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::exec::DispatchEnv;
use gcnemu::launch::hazards::{cover, Cover, HazardMode, HazardTable, Leaves, RunHazards, Seen};
use gcnemu::launch::{Counts, Stop};
use gcnemu::lds::Lds;
use gcnemu::memory::Memory;
use gcnemu::run::run_workgroup_checked;
use gcnemu::wave::{Wave, WaveState};
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `asm` (s_endpgm appended) on one wave with `s0 = s0_value`, checking hazards in
/// `mode`; returns the wave, the findings and how the run stopped.
fn run(asm: &str, s0_value: u32, mode: HazardMode) -> (Wave, Vec<Seen>, Result<(), Stop>) {
    let (program, _) = decode(asm);
    run_program(&program, s0_value, mode, None)
}

/// `asm` with s_endpgm appended, decoded at 0x1000, and its bytes.
fn decode(asm: &str) -> (Program, Vec<u8>) {
    let code =
        assemble(&format!("{asm}\ns_endpgm\n"), Target::Gfx900).unwrap_or_else(|e| panic!("{e:?}"));
    let program = Program::decode(&code.bytes, 0x1000, Target::Gfx900);
    assert!(program.bad.is_empty(), "{:?}", program.bad);
    (program, code.bytes)
}

/// As [`run`], with the instructions that leave the kernel's clean graph (`Cover::UntilLeaving`).
fn run_program(
    program: &Program,
    s0_value: u32,
    mode: HazardMode,
    leaves: Option<&Leaves>,
) -> (Wave, Vec<Seen>, Result<(), Stop>) {
    let table = HazardTable::new(program, false);
    let mut hazards = RunHazards::new(mode, &table, 1, leaves);
    hazards.start_group([0, 0, 0]);
    let mut w = Wave::new(0);
    w.set_exec(u64::MAX);
    w.sgpr[0] = s0_value;
    let mut waves = [w];
    let (mut mem, mut lds) = (Memory::default(), Lds::new(4096));
    let env = DispatchEnv {
        private_size: 0,
        ..DispatchEnv::default()
    };
    let (mut budget, mut counts) = (10_000u64, Counts::default());
    let checked = (mode != HazardMode::Off).then_some(&mut hazards);
    let r = run_workgroup_checked(
        &mut waves,
        program,
        &mut mem,
        &mut lds,
        &env,
        &mut budget,
        &mut counts,
        checked,
    );
    let [w] = waves;
    (w, hazards.findings(), r)
}

/// VALU writes VCC, v_div_fmas reads it with no wait state in between (4 required).
const DIV_FMAS: &str = "v_mov_b32 v2, 1.0\nv_mov_b32 v3, 2.0\nv_mov_b32 v4, 0.5\n\
                        v_cmp_eq_u32 vcc, v0, v0\nv_div_fmas_f32 v1, v2, v3, v4";

#[test]
fn warn_reports_the_hazard_and_the_run_completes() {
    let (w, found, r) = run(DIV_FMAS, 0, HazardMode::Warn);
    r.unwrap();
    assert_eq!(w.state, WaveState::Ended);
    assert_ne!(w.vgpr[1][0], 0, "the consumer ran");
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!(f.rule.id, "valu-vcc-div-fmas");
    assert_eq!((f.consumer, f.producer), (4, 3));
    assert_eq!((f.provided, f.required), (0, 4));
    assert_eq!(f.hits, 1);
}

#[test]
fn error_stops_before_the_consumer_runs() {
    let (w, found, r) = run(DIV_FMAS, 0, HazardMode::Error);
    let Err(Stop::Hazard {
        wave,
        index,
        finding,
    }) = r
    else {
        panic!("{r:?}")
    };
    assert_eq!((wave, index), (0, 4));
    assert_eq!(finding.rule.id, "valu-vcc-div-fmas");
    assert_eq!((finding.producer_pc, finding.provided), (3, 0));
    assert_eq!(w.pc, 4, "stopped at the consumer");
    assert_eq!(w.vgpr[1][0], 0, "the consumer did not execute");
    assert!(found.is_empty(), "error mode does not collect");
}

#[test]
fn off_reports_nothing() {
    let (w, found, r) = run(DIV_FMAS, 0, HazardMode::Off);
    r.unwrap();
    assert_eq!(w.state, WaveState::Ended);
    assert!(found.is_empty());
}

#[test]
fn enough_wait_states_are_clean() {
    let asm = DIV_FMAS.replace("\nv_div_fmas", "\ns_nop 3\nv_div_fmas");
    let (_, found, r) = run(&asm, 0, HazardMode::Error);
    r.unwrap();
    assert!(found.is_empty());
}

/// VCC written by a VALU op, then read by `v_div_fmas_f32` (4 wait states required) through
/// `s_nop 4` (`s0 != 0`) or around it, with the compare's and the branch's 2 (`s0 == 0`).
const NOPS_ON_ONE_SIDE: &str = "v_cmp_eq_u32 vcc, v0, v0
s_cmp_eq_u32 s0, 0
s_cbranch_scc1 1
s_nop 4
v_div_fmas_f32 v1, v2, v3, v4";

/// VCC written by a VALU op and read at once by `v_div_fmas_f32`, five times round a loop.
const HAZARD_IN_A_LOOP: &str = "s_mov_b32 s1, 5
v_cmp_eq_u32 vcc, v0, v0
v_div_fmas_f32 v1, v2, v3, v4
s_sub_u32 s1, s1, 1
s_cmp_eq_u32 s1, 0
s_cbranch_scc0 -6";

/// The NOPs sit on one side of a branch: the static lint (minimum over paths) reports this; at
/// run time only the path the wave takes counts.
#[test]
fn only_the_path_taken_counts() {
    let asm = NOPS_ON_ONE_SIDE;
    let (_, found, r) = run(asm, 1, HazardMode::Warn);
    r.unwrap();
    assert!(found.is_empty(), "through the nop: {found:?}");
    let (_, found, r) = run(asm, 0, HazardMode::Warn);
    r.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    // s_cmp and s_cbranch give one wait state each.
    assert_eq!((found[0].consumer, found[0].provided), (4, 2));
}

/// A hazard inside a loop is one finding, with a hit per iteration.
#[test]
fn findings_are_deduplicated_by_rule_and_consumer() {
    let (_, found, r) = run(HAZARD_IN_A_LOOP, 0, HazardMode::Warn);
    r.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].hits, 5);
}

/// VALU writes an SGPR that a buffer load then uses as its offset (5 wait states required).
#[test]
fn valu_sgpr_then_vmem() {
    let asm = "v_readfirstlane_b32 s4, v0\nbuffer_load_dword v1, off, s[8:11], s4";
    let (_, found, r) = run(asm, 0, HazardMode::Warn);
    r.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule.id, "valu-sgpr-vmem");
    assert_eq!((found[0].provided, found[0].required), (0, 5));
}

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(path)
}

fn gcnemu(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `dmath` (hipcc gfx900) with the compiler's `s_nop 1` between `v_div_scale_f64 ... vcc` and
/// `v_div_fmas_f64` shrunk to `s_nop 0`: 3 of the 4 wait states.
fn mutant_dmath(dir: &Path) -> PathBuf {
    let mut bytes = std::fs::read(fixture("kernels/dmath.gfx900.v4.co")).unwrap();
    // s_nop 1 (bf800001) then v_div_fmas_f64 v[5:6] (d1e30005), little-endian.
    let pattern = [0x01, 0x00, 0x80, 0xbf, 0x05, 0x00, 0xe3, 0xd1];
    let at: Vec<usize> = (0..bytes.len() - 8)
        .filter(|&i| bytes[i..i + 8] == pattern)
        .collect();
    assert_eq!(
        at.len(),
        1,
        "the fixture has one s_nop 1 before v_div_fmas_f64"
    );
    bytes[at[0]] = 0;
    let path = dir.join("dmath-mutant.co");
    std::fs::write(&path, bytes).unwrap();
    path
}

fn dmath_args(file: &Path, mode: &str, json: &Path) -> Vec<String> {
    let mut a: Vec<String> = [
        "run",
        &file.display().to_string(),
        "--kernel",
        "dmath",
        "--grid",
        "2",
        "--block",
        "64",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for buf in ["1024", "1024", "1024", "8192", "2048"] {
        a.push("--arg".into());
        a.push(format!("zeros:{buf}"));
    }
    a.extend(["--arg", "128", "--hazards", mode, "--stats-json"].map(String::from));
    a.push(json.display().to_string());
    a
}

#[test]
fn cli_modes_on_a_shrunk_compiler_nop() {
    let dir = std::env::temp_dir().join(format!("gcnemu-run-hazards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = mutant_dmath(&dir);
    let json = dir.join("stats.json");
    let call = |mode: &str| {
        let args = dmath_args(&file, mode, &json);
        gcnemu(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };

    let (code, _, err) = call("warn");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("dmath+0x140: warning[valu-vcc-div-fmas]"),
        "{err}"
    );
    assert!(err.contains("note: producer at dmath+0x124"), "{err}");
    assert!(
        err.contains("required: 4 wait states; provided: 3 wait states"),
        "{err}"
    );
    assert!(err.contains("issued 2 time(s)"), "one per wave: {err}");
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(stats["hazards"]["mode"], "warn");
    assert_eq!(stats["hazards"]["findings"], 1);
    assert_eq!(stats["hazards"]["hits"], 2);
    assert_eq!(stats["hazards"]["list"][0]["rule"], "valu-vcc-div-fmas");
    assert_eq!(stats["hazards"]["list"][0]["offset"], 0x140);

    let (code, _, err) = call("error");
    assert_eq!(code, 1, "{err}");
    for part in [
        "kernel `dmath`",
        "workgroup (0, 0, 0), wave 0",
        "(dmath+0x140)",
        "`v_div_fmas_f64 v[5:6], v[5:6], v[7:8], v[17:18]`",
        "hazard [valu-vcc-div-fmas]",
    ] {
        assert!(err.contains(part), "missing {part}: {err}");
    }

    let (code, _, err) = call("off");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("hazard"), "{err}");
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(stats["hazards"]["findings"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Compiler output runs clean: LLVM inserted the NOPs these kernels need (dmath has four).
#[test]
fn compiler_output_has_no_findings() {
    for target in [Target::Gfx900, Target::Gfx906] {
        let mut dev = Device::new(DeviceConfig {
            target,
            ..Default::default()
        });
        let opts = LaunchOptions {
            hazards: HazardMode::Error,
            ..Default::default()
        };
        for v in ["v4", "v5"] {
            let name = format!("kernels/dmath.{target}.{v}.co");
            let module = dev
                .load(&name, &std::fs::read(fixture(&name)).unwrap())
                .unwrap();
            let bufs: Vec<u64> = [1024, 1024, 1024, 8192, 2048]
                .iter()
                .map(|&n| dev.alloc(n).unwrap())
                .collect();
            let mut args: Vec<Arg> = bufs.iter().map(|&b| Arg::Ptr(b)).collect();
            args.push(Arg::I32(128));
            let dims = Dims {
                grid: [2, 1, 1],
                block: [64, 1, 1],
            };
            let stats = dev.launch(&module, "dmath", dims, &args, &opts).unwrap();
            assert!(stats.hazards.is_empty(), "{name}: {:?}", stats.hazards);
        }

        let name = format!("hip/saxpy.{target}.co");
        let module = dev
            .load(&name, &std::fs::read(fixture(&name)).unwrap())
            .unwrap();
        let (x, y) = (dev.alloc(4096).unwrap(), dev.alloc(4096).unwrap());
        let args = [Arg::F32(2.0), Arg::Ptr(x), Arg::Ptr(y), Arg::I32(1000)];
        let dims = Dims {
            grid: [4, 1, 1],
            block: [256, 1, 1],
        };
        let warn = LaunchOptions::default();
        let stats = dev.launch(&module, "saxpy", dims, &args, &warn).unwrap();
        assert_eq!(stats.hazard_mode, HazardMode::Warn);
        assert!(stats.hazards.is_empty(), "{name}: {:?}", stats.hazards);
    }
}

/// The control-flow graph of code decoded at 0x1000 with its entry there.
fn graph_of(bytes: &[u8]) -> gcnemu::hazard::cfg::Graph {
    let end = 0x1000 + bytes.len() as u64;
    gcnemu::hazard::cfg::Graph::build(bytes, 0x1000, 0x1000, end, Target::Gfx900)
}

/// A kernel whose own code is clean but which calls a function that reads, 3 wait states after
/// the call's `v_readfirstlane`, the SGPR it wrote (5 required). Its cover checks waves only
/// from the call on, with the history recorded before it: the hazard is found when the call is
/// taken (s0 = 1) and nothing is checked when it is not.
#[test]
fn a_clean_kernel_is_checked_from_where_it_leaves_its_graph() {
    let asm = "s_getpc_b64 s[4:5]\n\
               s_add_u32 s4, s4, 28\n\
               s_addc_u32 s5, s5, 0\n\
               v_readfirstlane_b32 s6, v0\n\
               s_cmp_eq_u32 s0, 0\n\
               s_cbranch_scc1 1\n\
               s_swappc_b64 s[30:31], s[4:5]\n\
               s_endpgm\n\
               buffer_load_dword v1, off, s[8:11], s6\n\
               s_setpc_b64 s[30:31]";
    let (program, bytes) = decode(asm);
    let graph = graph_of(&bytes);
    let enabled = HazardTable::new(&program, false).enabled;
    let Cover::UntilLeaving(leaves) = cover(&graph, enabled, &program) else {
        panic!("a kernel with a call is clean only until it leaves its graph");
    };
    // The call leaves; the callee's two instructions are not in the graph.
    let leaving: Vec<u32> = (0..program.insts.len() as u32 + 2)
        .filter(|&i| leaves.leaves(i))
        .collect();
    assert_eq!(leaving, [6, 8, 9, 10, 11, 12]);
    for cover in [None, Some(&*leaves)] {
        let (w, found, r) = run_program(&program, 1, HazardMode::Warn, cover);
        r.unwrap();
        assert_eq!(w.state, WaveState::Ended);
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(f.rule.id, "valu-sgpr-vmem");
        assert_eq!((f.consumer, f.producer, f.provided), (8, 3, 3));
        let (_, found, r) = run_program(&program, 0, HazardMode::Error, cover);
        r.unwrap();
        assert!(found.is_empty(), "{found:?}");
    }
    // Without the call, the same kernel is clean on every run.
    let body = asm.replace("s_swappc_b64 s[30:31], s[4:5]", "s_nop 0");
    let (program, bytes) = decode(&body);
    let graph = graph_of(&bytes);
    assert!(matches!(cover(&graph, enabled, &program), Cover::Clean));
}

/// A consumer the static walk finds a violating producer for is where a wave leaves the graph:
/// the kernel is not checked throughout, its waves are checked from where they reach that
/// consumer, with the history recorded before it, and find what a full check finds — on the
/// path through the NOPs (nothing) and the path around them (one finding), and in a loop (one
/// finding, a hit per iteration).
#[test]
fn a_kernel_is_checked_from_its_first_violated_consumer() {
    // (code, consumer, producer and wait states provided, runs as (s0, hits)).
    let kernels = [
        (NOPS_ON_ONE_SIDE, 4, (0, 2), [(1, 0), (0, 1)]),
        (HAZARD_IN_A_LOOP, 2, (1, 0), [(0, 5), (1, 5)]),
    ];
    for (asm, consumer, (producer, provided), runs) in kernels {
        let (program, bytes) = decode(asm);
        let enabled = HazardTable::new(&program, false).enabled;
        let Cover::UntilLeaving(leaves) = cover(&graph_of(&bytes), enabled, &program) else {
            panic!("a kernel with a violated consumer is checked from it on");
        };
        let leaving: Vec<u32> = (0..program.insts.len() as u32)
            .filter(|&i| leaves.leaves(i))
            .collect();
        assert_eq!(leaving, [consumer]);
        for (s0, hits) in runs {
            for cover in [None, Some(&*leaves)] {
                let (_, found, r) = run_program(&program, s0, HazardMode::Warn, cover);
                r.unwrap();
                let found: Vec<_> = found
                    .iter()
                    .map(|f| (f.rule.id, f.consumer, f.producer, f.provided, f.hits))
                    .collect();
                match hits {
                    0 => assert!(found.is_empty(), "{found:?}"),
                    n => {
                        let want = ("valu-vcc-div-fmas", consumer, producer, provided, n);
                        assert_eq!(found, [want]);
                    }
                }
            }
        }
    }
}
