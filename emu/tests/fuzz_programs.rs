//! The `programs` fuzz target's property on fixed inputs: a program generated from the bytes
//! (`gcnemu::fuzzing::program`), race-free by construction, ends alike on the functional
//! engine and the timing model, with the same buffer. The inputs are byte strings from a fixed
//! PRNG on every target, and the target's past findings (fuzz/regressions/programs: inputs,
//! or `.s` programs minimised from them, whose first line names the target and waves). The
//! generated programs must also be deep: assembled without refusals, mostly successful, long
//! and storing.

use gcnemu::fuzzing::{check_generated, check_program, check_text, Checked, TARGETS};

/// Byte strings of `len` from a xorshift PRNG seeded with `seed`.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn checked(result: Result<Option<Checked>, String>) -> Option<Checked> {
    result.unwrap_or_else(|why| panic!("the engines disagree:\n{why}"))
}

/// Programs per target.
const SEEDS: u64 = 32;

#[test]
fn engines_agree_on_generated_programs() {
    for target in TARGETS {
        let mut done = Vec::new();
        for seed in 0..SEEDS {
            let data = bytes(seed + 1, 1200);
            if let Some(c) = checked(check_program(target, &data)) {
                done.push(c);
            }
        }
        let n = done.len();
        let ok = done.iter().filter(|c| c.result == "ok").count();
        // Deep: over 100 instructions per wave (two workgroups of `waves`).
        let deep = done
            .iter()
            .filter(|c| c.wave_instructions > 200 * c.waves as u64)
            .count();
        let storing = done.iter().filter(|c| c.stored > 0).count();
        let refused: Vec<&String> = done.iter().flat_map(|c| &c.refused).collect();
        let lines: usize = done.iter().map(|c| c.instructions).sum();
        assert!(
            n as u64 == SEEDS,
            "{target}: {n} of {SEEDS} inputs gave a program"
        );
        assert!(
            ok * 10 >= n * 9,
            "{target}: only {ok} of {n} programs succeeded"
        );
        assert!(
            deep * 10 >= n * 6,
            "{target}: only {deep} of {n} programs ran deep"
        );
        assert!(
            storing * 10 >= n * 8,
            "{target}: only {storing} of {n} programs stored"
        );
        assert!(
            refused.len() * 100 <= lines,
            "{target}: the assembler refused {} of {lines} drawn instructions, e.g. {:?}",
            refused.len(),
            refused.first()
        );
    }
}

#[test]
fn regressions_agree() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/programs");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut n = 0;
    for e in entries {
        let path = e.unwrap().path();
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // A minimised program's text, or the fuzz target's bytes.
        if path.extension().is_some_and(|x| x == "s") {
            let text = String::from_utf8(data).unwrap();
            let c = checked(check_text(&text));
            assert!(
                c.is_some(),
                "{}: no target or does not assemble",
                path.display()
            );
        } else {
            checked(check_generated(&data));
        }
        n += 1;
    }
    assert!(n > 0, "no regression input in {}", dir.display());
}
