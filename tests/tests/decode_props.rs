//! The fuzz invariants (fuzz/fuzz_targets/decode.rs) over a fixed pseudo-random sample, so CI
//! checks them without cargo-fuzz: decode and display never panic, truncated input is an error,
//! the canonical encoding decodes back to itself with the same text, and the assembler reads
//! that text back.

use gcn_isa::{assemble_inst, decode, is_lossy_text, DecodeErrorKind, Target};

/// xorshift64*: deterministic words without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

#[test]
fn random_words_keep_the_decoder_invariants() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0;
    for i in 0..150_000 {
        // Bias the first word toward the encodings' fixed prefixes so every format is reached.
        let mut w0 = rng.next();
        if i % 2 == 0 {
            let prefixes = [
                0x8000_0000,
                0xb000_0000,
                0xbe80_0000,
                0xbf00_0000,
                0xbf80_0000,
                0xc000_0000,
                0xc400_0000,
                0xd000_0000,
                0xd380_0000,
                0xd400_0000,
                0xd800_0000,
                0xdc00_0000,
                0xe000_0000,
                0xe800_0000,
                0xf000_0000,
                0x7c00_0000,
                0x7e00_0000,
            ];
            let p = prefixes[(rng.next() as usize) % prefixes.len()];
            let keep = if p >= 0xc000_0000 && p != 0xbf80_0000 {
                0x03ff_ffff
            } else {
                0x007f_ffff
            };
            w0 = p | (w0 & keep);
        }
        let words = [w0, rng.next(), rng.next()];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for target in [
            Target::Gfx900,
            Target::Gfx906,
            Target::Gfx908,
            Target::Gfx90a,
            Target::Gfx940,
        ] {
            let Ok(inst) = decode(&bytes, target) else {
                continue;
            };
            decoded += 1;
            let text = inst.to_string();
            let canonical = inst.encode();
            let again = decode(&canonical, target).unwrap_or_else(|e| {
                panic!("{words:08x?} `{text}`: canonical {canonical:02x?} fails: {e}")
            });
            assert_eq!(again.encode(), canonical, "{words:08x?} `{text}`");
            assert_eq!(again.to_string(), text, "{words:08x?}");
            // The assembler reads the text back to an instruction that prints the same (the bytes
            // may differ only where the text does not show them, e.g. a f16 literal's high half;
            // the golden vectors check exact bytes against LLVM).
            if !is_lossy_text(&text) {
                let parsed = assemble_inst(&text, target)
                    .unwrap_or_else(|e| panic!("{words:08x?} `{text}`: {e}"));
                assert_eq!(parsed.to_string(), text, "{words:08x?}");
            }
            // Every proper prefix is truncated input, never a panic or a wrong instruction.
            for cut in 0..inst.len() {
                match decode(&bytes[..cut], target) {
                    Err(e) => assert!(matches!(e.kind, DecodeErrorKind::Truncated { .. }), "{e}"),
                    Ok(short) => panic!("{words:08x?}: {cut}-byte prefix decoded as `{short}`"),
                }
            }
        }
    }
    assert!(
        decoded > 50_000,
        "only {decoded} of the sampled words decode"
    );
}

/// Inputs the `decode` fuzz target once failed on (fuzz/regressions/decode, copied from
/// cargo-fuzz's artifacts): the same invariants must hold for them in every test run.
#[test]
fn fuzz_regressions_keep_the_invariants() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/decode");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        for target in [
            Target::Gfx900,
            Target::Gfx906,
            Target::Gfx908,
            Target::Gfx90a,
            Target::Gfx940,
        ] {
            let Ok(inst) = decode(&data, target) else {
                continue;
            };
            let text = inst.to_string();
            let again = decode(&inst.encode(), target).expect("canonical encoding decodes");
            assert_eq!(again.to_string(), text, "{}", path.display());
            if !is_lossy_text(&text) {
                let parsed = assemble_inst(&text, target)
                    .unwrap_or_else(|e| panic!("{}: `{text}`: {e}", path.display()));
                assert_eq!(parsed.to_string(), text, "{}", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no regression input decodes");
}
