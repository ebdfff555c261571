//! Op-level test vectors: every line of `emu/tests/vectors/*.txt` is one instruction (or a short
//! snippet) with its inputs and the values it must produce, run on one wave of the emulator.
//! Adding an opcode is one TSV row, one semantics line and one vector line here.
//!
//! # Format
//!
//! ```text
//! # comment
//! ASM | INPUTS | EXPECTED
//! v_add_u32_e32 v2, v0, v1 | v0=[1,0xffffffff] v1=2 | v2=[3,1]
//! ```
//!
//! The three sections are split by ` | ` (a space on each side; `|v1|` abs stays in the
//! assembly). ASM is LLVM syntax; several instructions are split by `;`; `s_endpgm` is
//! appended. The snippet runs for gfx906 on one wave that starts with every register 0, EXEC
//! all ones, SCC 0, MODE 0x2f0 (f32/f64/f16 denormals kept, IEEE on), no device memory and a
//! zeroed LDS; INPUTS change that, EXPECTED is checked (only what is listed).
//!
//! Both sections are `NAME=VALUE` items split by spaces:
//! - `v3=X`: every lane; `v3=[a,b,c]`: lane `l` gets item `l % 3` (the list is cycled);
//!   `x*N` in a list is N copies of x. `v[2:3]=X`: a pair, one 64-bit value a lane.
//! - `s5=X`, `s[4:5]=X` (one value split low dword first), `s[8:11]=[a,b,c,d]` (dwords);
//!   `vcc`, `vcc_lo`, `vcc_hi`, `exec`, `exec_lo`, `exec_hi`, `m0`, `flat_scratch`,
//!   `ttmp0`..`ttmp15`; `scc=0|1`; `mode=X` (input); `target=gfx900|gfx906|gfx908|gfx90a|gfx940|gfx942`
//!   (input). `a5=X`, `a5=[a,b]`: AGPR 5, one 32-bit register per item, as a VGPR (gfx908 and
//!   gfx90a and later; the wave has 256 AGPRs, on gfx90a from row 256 of its file; input `accum_offset=N`
//!   puts them from v[N]).
//! - Numbers: `12`, `-1`, `0x1f`, `0b101`; floats `1.5`, `-2e3`, `inf`, `-inf`, `qnan` (f32 in a
//!   register, f64 in a pair; suffix `h` for f16 bits: `1.5h`).
//! - Memory: `buf0=SIZE` allocates a zeroed buffer (`buf0=SIZE:ramp(M,A)`: byte i is
//!   (M·i + A) mod 256), `buf1`... in order; `buf0+16=[a,b]` writes (or, expected, checks)
//!   dwords at byte offset 16. In values, `buf0+16` is the buffer's address plus 16, and
//!   `K*lane` adds K times the lane number: `v[0:1]=buf0+16*lane`.
//! - Expected values may also be `_` (not checked), `VALUE/MASK` (only MASK's bits),
//!   `VALUE~T` (within T as an integer: T ulps of a float of one sign), `nan` (any NaN of the
//!   width: f32, or f64 for a pair), `nan16` (bits 15:0 an f16 NaN) and `nan16:HI` (and bits
//!   31:16 = HI).
//!
//! The generated part of each file (below its `# --- generated` line) comes from the
//! reference-model tests (`exec_*.rs`) with `emu/tests/vectors/generate.sh`: each expected
//! value there is one the test's reference computed and checked (see `exec_common/record.rs`).
//! Hand-written vectors go above that line.

mod exec_common;
use exec_common::record::records_dir;
use exec_common::vectors::{self, load_all, parse_line, Vector};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

#[test]
fn every_vector_passes() {
    let start = std::time::Instant::now();
    let (all, mut bad) = load_all();
    assert!(!all.is_empty(), "no vectors under emu/tests/vectors");
    // Two threads: the files are independent.
    let half = all.len() / 2;
    let (a, b) = all.split_at(half);
    let run =
        |vs: &[Vector]| -> Vec<String> { vs.iter().flat_map(|v| vectors::check(v).0).collect() };
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| run(a));
        let rb = run(b);
        (ha.join().unwrap(), rb)
    });
    bad.extend(ra);
    bad.extend(rb);
    eprintln!(
        "{} vectors in {} files, {:.2?}",
        all.len(),
        vectors::files().len(),
        start.elapsed()
    );
    let shown: Vec<&String> = bad.iter().take(60).collect();
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The parser rejects malformed lines with a message (the runner reports them as file:line).
#[test]
fn malformed_lines_are_errors() {
    for line in [
        "v_mov_b32 v0, 1 | v0=1",
        "v_mov_b32 v0, 1 | | ",
        "v_mov_b32 v0, 1 | q7=1 | v0=1",
        "v_mov_b32 v0, 1 | v0=[1,2 | v0=1",
        "v_mov_b32 v0, 1 | buf1=16 | v0=1",
        "v_mov_b32 v0, 1 | s[4:7]=1 | v0=1",
        "v_mov_b32 v0, 1 | | v0=0xzz",
        "v_mov_b32 v0, 1 | a[0:1]=1 | v0=1",
        "v_mov_b32 v0, 1 | a256=1 | v0=1",
        "v_mov_b32 v0, 1 | target=gfx910 | v0=1",
        "v_mov_b32 v0, 1 | accum_offset=6 | v0=1",
    ] {
        assert!(parse_line("t", 1, line).is_err(), "{line}");
    }
    let v = parse_line("t", 1, "v_mov_b32 v0, 1 | | v0=2")
        .unwrap()
        .unwrap();
    let (bad, _) = vectors::check(&v);
    assert_eq!(bad.len(), 64, "{bad:?}");
    assert!(bad[0].starts_with("t:1: `v_mov_b32 v0, 1`: v0 lane 0: got 0x1, want 0x2"));
    // An AGPR item on a target without AGPRs says so.
    let v = parse_line("t", 1, "v_mov_b32 v0, 1 | | a0=2")
        .unwrap()
        .unwrap();
    let (bad, _) = vectors::check(&v);
    assert!(bad[0].contains("a0: the wave has no such AGPR"), "{bad:?}");
    // An AGPR mismatch names the AGPR.
    let v = parse_line("t", 1, "v_accvgpr_write_b32 a3, 1 | target=gfx908 | a3=2")
        .unwrap()
        .unwrap();
    let (bad, _) = vectors::check(&v);
    assert!(bad[0].contains("a3 lane 0: got 0x1, want 0x2"), "{bad:?}");
}

const MARK: &str = "# --- generated by emu/tests/vectors/generate.sh below this line";

/// The family file a vector belongs in: its first instruction's encoding format.
fn family(v: &Vector) -> Result<String, String> {
    let out = vectors::execute(v)?;
    let (_, info) = out.ops.first().ok_or("no instruction")?;
    Ok(info.format.name().to_ascii_lowercase())
}

/// Gathers what `GEN_VECTORS=1` runs of the reference-model tests recorded and rewrites the
/// generated part of every family file (run by `emu/tests/vectors/generate.sh`).
#[test]
#[ignore]
fn generate() {
    let dir = records_dir();
    let mut lines: Vec<String> = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("no records: run emu/tests/vectors/generate.sh")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    names.sort();
    for p in names {
        lines.extend(
            std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .map(String::from),
        );
    }
    // Sorted, so that the choices below do not depend on the order the test threads ran in.
    lines.sort();
    let mut seen = HashSet::new();
    let mut per_asm: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_family: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut dropped = 0;
    for line in lines {
        let asm = line.split(" | ").next().unwrap_or("").trim().to_string();
        // The same snippet from several tests or runs: up to four different vectors.
        let n = per_asm.entry(asm.clone()).or_insert(0usize);
        if *n >= 4 || !seen.insert(line.clone()) {
            continue;
        }
        *n += 1;
        let v = match parse_line("record", 1, &line) {
            Ok(Some(v)) => v,
            _ => {
                dropped += 1;
                continue;
            }
        };
        let (bad, _) = vectors::check(&v);
        let fam = match family(&v) {
            Ok(f) if bad.is_empty() => f,
            _ => {
                dropped += 1;
                continue;
            }
        };
        by_family.entry(fam).or_default().push((asm, line));
    }
    // VOP3 (`_e64`) rows of VOP1/VOP2/VOPC ops that the tests run only as `_e32`: the same
    // vector with the `_e64` mnemonic (the VOP3 encoding of the op without modifiers computes
    // the same values; the expected values stay the reference model's).
    let covered = |vs: &BTreeMap<String, Vec<(String, String)>>| -> HashSet<String> {
        let mut rows = HashSet::new();
        for (_, l) in vs.values().flatten() {
            if let Ok(Some(v)) = parse_line("record", 1, l) {
                if let Ok(out) = vectors::execute(&v) {
                    for (m, info) in out.ops {
                        if m == info.name {
                            rows.insert(m);
                        }
                    }
                }
            }
        }
        rows
    };
    let mut rows = covered(&by_family);
    let e64_rows: HashSet<&str> = gcn_isa::all_ops()
        .iter()
        .filter(|o| o.format == gcn_isa::Format::Vop3 && o.name.ends_with("_e64"))
        .map(|o| o.name)
        .collect();
    let e32_rows: HashSet<&str> = gcn_isa::all_ops()
        .iter()
        .filter(|o| {
            use gcn_isa::Format::*;
            matches!(o.format, Vop1 | Vop2 | Vopc) && o.name.ends_with("_e32")
        })
        .map(|o| o.name)
        .collect();
    let mut derived = Vec::new();
    let mut underived = Vec::new();
    for (asm, line) in by_family.values().flatten() {
        let insts: Vec<&str> = asm.split(';').collect();
        for (k, inst) in insts.iter().enumerate() {
            let first = inst.split_whitespace().next().unwrap_or("");
            let base = first.strip_suffix("_e32").unwrap_or(first);
            let e64 = format!("{base}_e64");
            if !e32_rows.contains(format!("{base}_e32").as_str())
                || rows.contains(&e64)
                || !e64_rows.contains(e64.as_str())
            {
                continue;
            }
            let mut new_insts: Vec<String> = insts.iter().map(|s| s.to_string()).collect();
            new_insts[k] = inst.replacen(first, &e64, 1);
            let new_asm = new_insts.join(";");
            let new_line = format!("{new_asm}{}", &line[asm.len()..]);
            let ok = match parse_line("derived", 1, &new_line) {
                Ok(Some(v)) => vectors::check(&v).0.is_empty(),
                _ => false,
            };
            if ok {
                rows.insert(e64);
                derived.push((new_asm, new_line));
            } else {
                underived.push(new_asm);
            }
        }
    }
    eprintln!(
        "{} _e64 vectors derived; not derivable: {underived:?}",
        derived.len()
    );
    by_family.entry("vop3".into()).or_default().extend(derived);
    let vdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut total = 0;
    for (fam, mut vs) in by_family {
        vs.sort();
        total += vs.len();
        let path = vdir.join(format!("{fam}.txt"));
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let hand = match old.find(MARK) {
            Some(i) => old[..i].to_string(),
            None if old.is_empty() => format!(
                "# {} test vectors (format: emu/tests/vectors/README.md).\n# Hand-written vectors go here, above the generated part.\n\n",
                fam.to_ascii_uppercase()
            ),
            None => format!("{}\n\n", old.trim_end()),
        };
        let mut text = hand;
        text.push_str(MARK);
        text.push_str(" (from the reference-model tests; do not edit by hand)\n");
        for (_, l) in vs {
            text.push_str(&l);
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
    }
    eprintln!("{total} vectors written, {dropped} records dropped");
}
