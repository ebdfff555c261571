//! Decoder invariants on arbitrary bytes, for every target:
//! decode never panics; display never panics; the canonical encoding of anything that decodes
//! decodes to the same instruction with the same text (canonicalisation is idempotent); and the
//! assembler reads that text back to an instruction that prints the same.
#![no_main]

use gcn_isa::{assemble_inst, decode, is_lossy_text, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for target in [Target::Gfx900, Target::Gfx906, Target::Gfx908] {
        let Ok(inst) = decode(data, target) else {
            continue;
        };
        assert!(inst.len() <= data.len());
        let text = inst.to_string();
        assert!(!text.is_empty());
        let canonical = inst.encode();
        let again = decode(&canonical, target).expect("canonical encoding decodes");
        assert_eq!(
            again.encode(),
            canonical,
            "encode(decode(encode(x))) != encode(x) for {text}"
        );
        assert_eq!(
            again.to_string(),
            text,
            "canonical encoding prints differently"
        );
        if !is_lossy_text(&text) {
            let parsed = assemble_inst(&text, target)
                .unwrap_or_else(|e| panic!("`{text}` does not assemble: {e}"));
            assert_eq!(
                parsed.to_string(),
                text,
                "parse(display(x)) prints differently"
            );
        }
    }
});
