//! The loader never panics on arbitrary bytes, whatever the container (ELF code object, offload
//! bundle, compressed bundle, host ELF with .hip_fatbin), and what it accepts is consistent:
//! every error names the file, code objects copied out of a plain input are no bigger than it,
//! every kernel's descriptor and entry point are inside the ELF, and the disassembler's view of
//! each code object parses too.
//!
//! Seed it with the fixtures: `cp tests/fixtures/loader/*.co tests/fixtures/loader/*.o
//! tests/fixtures/loader/*.bundle tests/fixtures/hip/*.co fuzz/corpus/loader/`.
#![no_main]

use gcn_loader::{load, ElfObject};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(obj) = ElfObject::parse("fuzz", data) {
        let _ = obj.target();
        for f in obj.functions() {
            let _ = &f.name;
        }
        for s in obj.code_sections() {
            let _ = s.data.len();
        }
    }
    match load("fuzz", data) {
        Err(e) => assert!(e.to_string().starts_with("fuzz"), "{e}"),
        Ok(objects) => {
            assert!(!objects.is_empty());
            let copied: usize = objects.iter().map(|c| c.bytes.len()).sum();
            // Only a compressed bundle may yield more bytes than it holds.
            if !data.starts_with(b"CCOB") && !data.windows(4).any(|w| w == b"CCOB") {
                assert!(copied <= data.len(), "{copied} > {}", data.len());
            }
            for co in &objects {
                assert!((2..=5).contains(&co.version));
                let elf = co.elf().expect("a loaded code object re-parses");
                for k in &co.kernels {
                    assert!(!k.name.is_empty() || k.meta.is_some());
                    // The entry is inside the section the loader named.
                    let section = elf
                        .sections
                        .iter()
                        .find(|s| s.index == k.code_section_index)
                        .expect("code section exists");
                    let start = if co.relocatable { 0 } else { section.address };
                    assert!(k.entry >= start && k.entry - start < section.size.max(1));
                    if let Some(meta) = &k.meta {
                        for arg in meta.explicit_args() {
                            let _ = arg.value_kind.name();
                        }
                    }
                    let _ = k.descriptor.vgprs_allocated(&co.target);
                    let _ = k.descriptor.wavefront_size();
                }
                let _ = co.target.to_string();
            }
        }
    }
});
