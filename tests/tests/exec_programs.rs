//! hipcc-built programs (`tests/fixtures/programs/`, sources beside them, rebuilt by `build.sh`)
//! run unmodified through `gcnemu exec` and the HIP runtime library; each checks its own results
//! against a CPU reference and prints `PASS`. CI has no hipcc and no GPU: the executables are
//! committed and need only the C/C++ runtime libraries and ours.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn program(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/programs")).join(name)
}

/// Runs `gcnemu exec OPTIONS -- PROGRAM ARGS`.
fn exec(options: &[&str], name: &str, args: &[&str]) -> Output {
    let built = common::hip::built();
    Command::new(&built.gcnemu)
        .arg("exec")
        .args(options)
        .arg("--lib")
        .arg(&built.library)
        .arg("--")
        .arg(program(name))
        .args(args)
        .output()
        .expect("run gcnemu exec")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The program exits 0 with `PASS` as its last line.
fn assert_passes(options: &[&str], name: &str, args: &[&str]) -> (String, String) {
    let out = exec(options, name, args);
    let (stdout, stderr) = text(&out);
    assert!(
        out.status.success() && stdout.lines().last() == Some("PASS"),
        "{name} {options:?}: status {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    (stdout, stderr)
}

#[test]
fn launch_configurations_arguments_and_symbols() {
    assert_passes(&["--timing", "off"], "launch", &[]);
}

#[test]
fn arrays_textures_and_surfaces() {
    assert_passes(&["--timing", "off"], "texture", &[]);
    assert_passes(&["--timing", "off", "--target", "gfx906"], "texture", &[]);
}

#[test]
fn textures_under_the_timing_model() {
    assert_passes(&[], "texture", &[]);
}

#[test]
fn launch_under_the_timing_model() {
    assert_passes(&[], "launch", &[]);
}

/// Grid-wide sync in cooperative launches: the functional engine on one and two threads and on
/// gfx90a code, and the timing model with the board's CUs and with 4 (two workgroups of the
/// reduction share a CU, and the largest grid is 32 workgroups), oldest-first and round-robin.
#[test]
fn cooperative_launches_sync_the_whole_grid() {
    assert_passes(&["--timing", "off", "--threads", "1"], "cooperative", &[]);
    assert_passes(&["--timing", "off", "--threads", "2"], "cooperative", &[]);
    assert_passes(
        &["--timing", "off", "--target", "gfx90a"],
        "cooperative",
        &[],
    );
    assert_passes(&[], "cooperative", &[]);
    assert_passes(&["--cus", "4"], "cooperative", &[]);
    assert_passes(
        &["--cus", "4", "--schedule", "round-robin"],
        "cooperative",
        &[],
    );
}

#[test]
fn memory_allocation_copies_and_queries() {
    assert_passes(&["--timing", "off"], "memory", &[]);
}

#[test]
fn streams_events_and_host_functions() {
    assert_passes(&["--timing", "off"], "streams", &[]);
    // Under the timing model events measure simulated time.
    assert_passes(&[], "streams", &[]);
}

#[test]
fn work_runs_asynchronously_and_synchronising_calls_wait() {
    // While a long kernel runs its stream and events are not ready, the copy and callback
    // behind it have not happened; after the synchronisation they have, in order.
    assert_passes(&["--timing", "off"], "async", &[]);
}

#[test]
fn launch_blocking_completes_work_before_the_call_returns() {
    let built = common::hip::built();
    let out = Command::new(&built.gcnemu)
        .args(["exec", "--timing", "off", "--lib"])
        .arg(&built.library)
        .arg("--")
        .arg(program("async"))
        .arg("blocking")
        .env("HIP_LAUNCH_BLOCKING", "1")
        .output()
        .expect("run gcnemu exec");
    let (stdout, stderr) = text(&out);
    assert!(
        out.status.success() && stdout.lines().last() == Some("PASS"),
        "status {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
}

#[test]
fn graphs_built_instantiated_updated_and_launched() {
    assert_passes(&["--timing", "off"], "graph", &[]);
}

#[test]
fn stream_capture_across_streams_and_its_errors() {
    assert_passes(&["--timing", "off"], "capture", &[]);
}

#[test]
fn memory_pools_managed_advice_and_stream_values() {
    assert_passes(&["--timing", "off"], "mempool", &[]);
    // Kernels held behind a stream wait run under the timing model as they do without it.
    assert_passes(&["--timing", "on"], "mempool", &[]);
}

#[test]
fn a_stream_wait_nothing_satisfies_is_reported_not_hung() {
    let (_, stderr) = assert_passes(
        &["--timing", "off", "--timeout", "1"],
        "mempool",
        &["stuck"],
    );
    assert!(
        stderr.contains("deadlock") && stderr.contains("hipStreamWaitValue32"),
        "{stderr}"
    );
}

#[test]
fn device_properties_and_attributes() {
    let (stdout, _) = assert_passes(&["--timing", "off"], "device", &[]);
    assert!(stdout.contains("gfx900"), "{stdout}");
    let (stdout, _) = assert_passes(&["--timing", "off", "--target", "gfx906"], "device", &[]);
    assert!(stdout.contains("gfx906"), "{stdout}");
}

#[test]
fn several_devices_peers_contexts_and_other_launches() {
    assert_passes(&["--timing", "off", "--devices", "2"], "devices", &[]);
    // Under the timing model a stream masked to 4 CUs runs a kernel longer; statistics have a
    // row per kernel and device.
    let (stdout, stderr) = assert_passes(&["--devices", "2", "--stats"], "devices", &["timed"]);
    assert!(stdout.contains("ms on 4"), "{stdout}");
    assert!(stderr.contains("  device  kernel"), "{stderr}");
}

#[test]
fn virtual_memory_and_ipc() {
    assert_passes(&["--timing", "off"], "vmm", &[]);
    let (stdout, stderr) = assert_passes(&["--timing", "off"], "vmm", &["unmapped"]);
    assert!(stdout.contains("hipErrorIllegalAddress"), "{stdout}");
    assert!(stderr.contains("outside device memory"), "{stderr}");
}

#[test]
fn bad_calls_return_rocm_error_codes() {
    assert_passes(&["--timing", "off"], "errors", &[]);
    assert_passes(&[], "errors", &[]);
}

#[test]
fn a_kernel_fault_is_reported_and_the_host_goes_on() {
    for args in [&[][..], &["memcpy"][..]] {
        let (stdout, stderr) = assert_passes(&["--timing", "off"], "fault", args);
        assert!(stdout.contains("hipErrorIllegalAddress"), "{stdout}");
        // The emulator's report: kernel, workgroup, wave, lane, instruction, address.
        for part in [
            "kernel `wild_store(int*, unsigned long)`",
            "workgroup (0, 0, 0)",
            "global_store_dword",
            "lane 0: store of 4 bytes at",
            "outside device memory",
        ] {
            assert!(stderr.contains(part), "{part}\n{stderr}");
        }
    }
}

#[test]
fn device_abort_traps_and_the_host_goes_on() {
    let (stdout, stderr) = assert_passes(&["--timing", "off"], "assert", &["abort"]);
    assert!(stdout.contains("hipErrorLaunchFailure"), "{stdout}");
    assert!(stderr.contains("s_trap 2"), "{stderr}");
}

#[test]
fn device_printf_interleaves_with_host_output() {
    let expected = "before kernel\n\
                    thread 0 value 0.000000 str zero\n\
                    thread 1 value 1.500000 str one\n\
                    thread 2 value 3.000000 str two\n\
                    thread 3 value 4.500000 str three\n\
                    after kernel\n\
                    PASS\n";
    for timing in ["on", "off"] {
        let (stdout, _) = assert_passes(&["--timing", timing], "printf", &[]);
        assert_eq!(stdout, expected, "timing {timing}");
    }
}

#[test]
fn device_malloc_and_free() {
    assert_passes(&["--timing", "off", "--threads", "1"], "devmalloc", &[]);
    // Workgroups on several threads: each malloc and free holds the other workers while the
    // device's memory changes, and their views follow it.
    assert_passes(&["--timing", "off", "--threads", "4"], "devmalloc", &[]);
    assert_passes(&[], "devmalloc", &[]);
}

#[test]
fn device_assert_prints_its_message_and_traps() {
    let (stdout, stderr) = assert_passes(&["--timing", "off"], "assert", &[]);
    assert!(stdout.contains("hipErrorLaunchFailure"), "{stdout}");
    assert!(
        stderr.contains("Device-side assertion `i != bad_lane' failed."),
        "{stderr}"
    );
}

#[test]
fn module_api_loads_code_objects() {
    let saxpy = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hip/saxpy.gfx900.co");
    let globals = program("module_globals.gfx900.co");
    assert_passes(
        &["--timing", "off"],
        "module",
        &[saxpy, globals.to_str().unwrap()],
    );
}

/// hiprtc compiles through Debian's `libamd_comgr.so.2` with the headers of
/// `libhiprtc-builtins.so.5`, which the runtime opens when a program compiles; `.ci/run` installs
/// them (and sets `GCNEMU_REQUIRE_ROCM_LIBS=1`), and a machine without them skips.
#[test]
fn hiprtc_compiles_loads_and_launches() {
    for needs in ["libamd_comgr.so.2", "libhiprtc-builtins.so.5"] {
        if library_program("rtc", needs).is_none() {
            return;
        }
    }
    assert_passes(&["--timing", "off"], "rtc", &[]);
    // Compiled for the device's own ISA name, `gfx90a:sramecc-:xnack-`.
    assert_passes(&["--timing", "off", "--target", "gfx90a"], "rtc", &[]);
}

#[test]
fn no_code_object_for_the_target_is_named() {
    // The programs carry gfx900, gfx906 and gfx90a:xnack- code only.
    let out = exec(&["--timing", "off", "--target", "gfx908"], "launch", &[]);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success(), "{stdout}");
    assert!(stderr.contains("no code object for gfx908"), "{stderr}");
    assert!(
        stderr.contains("gfx900") && stderr.contains("gfx906") && stderr.contains("gfx90a:xnack-"),
        "{stderr}"
    );
    // Their gfx90a code is built for xnack off.
    let out = exec(
        &["--timing", "off", "--target", "gfx90a:xnack+"],
        "launch",
        &[],
    );
    assert!(!out.status.success());
    assert!(text(&out).1.contains("no code object for gfx90a:xnack+"));
}

/// The programs whose checks hold on every target (the others expect a fault, or findings of
/// the sanitizers, or load code objects named on their command line).
const ON_EVERY_TARGET: [&str; 9] = [
    "launch",
    "memory",
    "streams",
    "device",
    "errors",
    "printf",
    "devmalloc",
    "graph",
    "capture",
];

/// The programs' gfx90a code objects (hipcc's own code for MI200: packed work-item ids, the
/// unified register file, its hostcalls' L2 write-backs) pass the same checks.
#[test]
fn the_programs_run_on_gfx90a() {
    let gfx90a = ["--timing", "off", "--target", "gfx90a"];
    for name in ON_EVERY_TARGET {
        assert_passes(&gfx90a, name, &[]);
    }
    assert_passes(&["--target", "gfx90a"], "launch", &[]);
    let saxpy = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/hip/saxpy.gfx90a.co");
    let globals = program("module_globals.gfx90a.co");
    assert_passes(&gfx90a, "module", &[saxpy, globals.to_str().unwrap()]);
}

/// The same programs built by clang-19 for MI300X (`fixtures/programs/build-gfx942.sh`: LLVM 19's
/// code, with `v_lshl_add_u64` addressing, `sc0`/`sc1` cache bits and architected flat scratch)
/// pass the same checks on gfx942, in both engines.
#[test]
fn the_programs_run_on_gfx942() {
    let gfx942 = ["--timing", "off", "--target", "gfx942"];
    let built = |name: &str| program(&format!("gfx942/{name}"));
    for name in ON_EVERY_TARGET {
        assert_passes(&gfx942, &format!("gfx942/{name}"), &[]);
    }
    assert_passes(&["--target", "gfx942"], "gfx942/launch", &[]);
    let (saxpy, globals) = (built("saxpy.co"), built("module_globals.co"));
    assert_passes(
        &gfx942,
        "gfx942/module",
        &[saxpy.to_str().unwrap(), globals.to_str().unwrap()],
    );
}

#[test]
fn stats_report_each_kernel() {
    let (_, stderr) = assert_passes(&["--timing", "off", "--stats"], "launch", &[]);
    assert!(stderr.contains("launches"), "{stderr}");
    let json = std::env::temp_dir().join(format!("gcnemu-exec-stats-{}.json", std::process::id()));
    assert_passes(
        &["--timing", "off", "--stats-json", json.to_str().unwrap()],
        "streams",
        &[],
    );
    let report = std::fs::read_to_string(&json).unwrap();
    let _ = std::fs::remove_file(&json);
    assert!(report.contains("\"wave_instructions\""), "{report}");
    assert!(report.contains("\"launches\""), "{report}");
}

#[test]
fn bad_settings_are_rejected_before_the_program_runs() {
    let out = exec(&["--timing", "sometimes"], "launch", &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("GCNEMU_TIMING=sometimes"), "{stderr}");
}

/// Programs linked against Debian's ROCm libraries (`tests/fixtures/libraries/`): the libraries'
/// own fat binaries register with our runtime and their gfx900 kernels run. They need the
/// libraries at run time (`librocrand1`, `libhipsparse0`; hiprtc's `libamd-comgr2` and
/// `libhiprtc-builtins5`); `.ci/run` installs them and sets
/// `GCNEMU_REQUIRE_ROCM_LIBS=1`, without which a machine lacking them skips these checks.
fn library_program(name: &str, needs: &str) -> Option<PathBuf> {
    let installed = ["/usr/lib/x86_64-linux-gnu", "/usr/lib", "/opt/rocm/lib"]
        .iter()
        .any(|d| std::path::Path::new(d).join(needs).exists());
    if !installed {
        assert!(
            std::env::var_os("GCNEMU_REQUIRE_ROCM_LIBS").is_none(),
            "{needs} is not installed (apt-get install librocrand1 libhipsparse0 \
             libamd-comgr2 libhiprtc-builtins5)"
        );
        eprintln!("skipping {name}: {needs} is not installed");
        return None;
    }
    Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/libraries")).join(name))
}

fn assert_library_passes(options: &[&str], path: &std::path::Path, args: &[&str]) {
    let built = common::hip::built();
    let out = Command::new(&built.gcnemu)
        .arg("exec")
        .args(options)
        .arg("--lib")
        .arg(&built.library)
        .arg("--")
        .arg(path)
        .args(args)
        .output()
        .expect("run gcnemu exec");
    let (stdout, stderr) = text(&out);
    assert!(
        out.status.success() && stdout.lines().last() == Some("PASS"),
        "{}: status {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        path.display(),
        out.status
    );
}

#[test]
fn rocsparse_kernels_from_hipsparse() {
    for name in ["hipsparse_csrmv", "hipsparse_convert"] {
        if let Some(p) = library_program(name, "libhipsparse.so.0") {
            assert_library_passes(&["--timing", "off"], &p, &[]);
        }
    }
}

/// The same programs on the CDNA targets run rocSPARSE's and rocRAND's own gfx908 and
/// gfx90a:xnack- code objects (packed FP32, `v_fmac_f64`, AGPR spills, packed work-item ids).
#[test]
fn cdna_kernels_from_the_libraries() {
    for target in ["gfx908", "gfx90a"] {
        let options = ["--timing", "off", "--target", target];
        for name in ["hipsparse_csrmv", "hipsparse_convert"] {
            if let Some(p) = library_program(name, "libhipsparse.so.0") {
                assert_library_passes(&options, &p, &[]);
            }
        }
        if let Some(p) = library_program("rocrand_uniform", "librocrand.so.1") {
            assert_library_passes(&options, &p, &["philox", "sobol32"]);
        }
    }
}

#[test]
fn rocrand_generators() {
    // Checked statistically, and bit for bit against rocRAND's engines run on the CPU. XORWOW
    // is left to release builds (`tests/fixtures/libraries/README.md`): its engine set-up is
    // 93M wave-instructions, minutes in a debug build.
    if let Some(p) = library_program("rocrand_uniform", "librocrand.so.1") {
        let generators = ["philox", "mrg32k3a", "sobol32", "mtgp32"];
        assert_library_passes(&["--timing", "off"], &p, &generators);
    }
}
