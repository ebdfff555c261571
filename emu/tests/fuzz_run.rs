//! The `run` fuzz target's property on fixed inputs: arbitrary code runs to an end (success or
//! a guest error) on the functional engine and the timing model, without panicking. The inputs
//! are the fuzz target's past findings (fuzz/regressions/run, copied from fuzz/artifacts/run)
//! plus small programs written to reach the engines' corners.

use gcn_isa::{assemble, Target};

fn with_head(head: u8, code: &[u8]) -> Vec<u8> {
    let mut v = vec![head];
    v.extend_from_slice(code);
    v
}

#[test]
fn regressions_run_to_an_end() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/run");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut n = 0;
    for e in entries {
        let path = e.unwrap().path();
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        gcnemu::fuzzing::run_bytes(&data);
        n += 1;
    }
    assert!(n > 0, "no regression input in {}", dir.display());
}

#[test]
fn corner_programs_run_to_an_end() {
    let programs = [
        // Loads and stores through the buffer in s[0:1], waits, a barrier, LDS traffic.
        "global_load_dword v1, v0, s[0:1]\nds_write_b32 v0, v1\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_barrier\nds_read_b32 v2, v0\nglobal_store_dword v0, v2, s[0:1]",
        // A spin loop the budget must end.
        "l:\ns_branch l",
        // Barriers in a loop with uneven exits, sleeps, priorities.
        "s_setprio 3\nl:\ns_sleep 1\ns_barrier\ns_cbranch_scc0 l",
        // Reads before loads complete, out-of-range memory, traps.
        "global_load_dwordx4 v[4:7], v0, s[0:1] offset:4000\nv_add_u32 v8, v4, v5\ns_trap 2",
        // Counters at their limits.
        "s_load_dwordx4 s[4:7], s[0:1], 0x0\ns_load_dwordx4 s[8:11], s[0:1], 0x10\ns_waitcnt lgkmcnt(1)\ns_waitcnt lgkmcnt(0)",
    ];
    for text in programs {
        for target in [Target::Gfx900, Target::Gfx906] {
            let code = assemble(text, target).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            for waves in 0..4u8 {
                let head = (target == Target::Gfx906) as u8 | waves << 1;
                gcnemu::fuzzing::run_bytes(&with_head(head, &code.bytes));
            }
        }
    }
    // Bytes that do not decode, and an empty program.
    gcnemu::fuzzing::run_bytes(&[0x03, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00]);
    gcnemu::fuzzing::run_bytes(&[0x00]);
    gcnemu::fuzzing::run_bytes(&[]);
}

/// The `run` target's seed corpus (`fuzz/seed.py`): the `.text` of the fixtures' hipcc kernels
/// behind a head byte asking for hipcc's SGPR layout, so the fuzzer starts from real programs.
#[test]
fn fixture_kernels_run_under_the_fuzz_harness() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hip");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "co") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let elf = gcn_loader::ElfObject::parse("fixture", &data).unwrap();
        let text = elf.sections.iter().find(|s| s.name == ".text").unwrap();
        let gfx906 = path.to_string_lossy().contains("gfx906") as u8;
        gcnemu::fuzzing::run_bytes(&with_head(8 | 2 | gfx906, text.data));
        n += 1;
    }
    assert!(n >= 10, "{n} kernels");
}
