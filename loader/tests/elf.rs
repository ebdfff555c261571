//! The loader on the committed HIP fixtures and on broken inputs.

use gcn_isa::Target;
use gcn_loader::{ElfObject, LoadErrorKind, SymbolKind};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hip")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn code_object_target_sections_and_kernels() {
    for (file, target) in [
        ("saxpy.gfx900.co", Target::Gfx900),
        ("saxpy.gfx906.co", Target::Gfx906),
    ] {
        let bytes = fixture(file);
        let obj = ElfObject::parse(file, &bytes).unwrap();
        assert_eq!(obj.target().unwrap(), target);
        assert!(!obj.relocatable);
        let code: Vec<_> = obj.code_sections().collect();
        assert_eq!(code.len(), 1);
        assert_eq!(code[0].name, ".text");
        assert_eq!(code[0].data.len() as u64, code[0].size);
        let functions = obj.functions();
        assert_eq!(functions.len(), 1);
        assert_eq!(functions[0].name, "saxpy");
        assert_eq!(functions[0].kind(), SymbolKind::Function);
        assert_eq!(functions[0].address, code[0].address);
        assert!(functions[0].size > 0 && functions[0].size <= code[0].size);
        // The kernel descriptor is a data symbol outside the code.
        assert!(obj
            .symbols
            .iter()
            .any(|s| s.name == "saxpy.kd" && s.kind() == SymbolKind::Object));
    }
}

#[test]
fn every_prefix_of_a_code_object_loads_or_fails_cleanly() {
    let bytes = fixture("reduce.gfx900.co");
    for len in (0..bytes.len()).step_by(7) {
        if let Err(e) = ElfObject::parse("cut.co", &bytes[..len]) {
            assert!(e.to_string().starts_with("cut.co: "), "{e}");
        }
    }
}

#[test]
fn corrupted_headers_fail_cleanly() {
    let original = fixture("loop.gfx900.co");
    for offset in 0..0x40 {
        for value in [0x00, 0xff, 0x7f] {
            let mut bytes = original.clone();
            bytes[offset] = value;
            let _ = ElfObject::parse("bad.co", &bytes);
        }
    }
}

#[test]
fn wrong_files_are_named_and_explained() {
    let err = ElfObject::parse("notes.txt", b"hello").unwrap_err();
    assert!(matches!(err.kind, LoadErrorKind::NotElf));
    assert_eq!(err.to_string(), "notes.txt: not an ELF file");

    let host = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let err = ElfObject::parse("host", &host).unwrap_err();
    assert!(matches!(err.kind, LoadErrorKind::NotAmdgpu { .. }), "{err}");

    let mut other_gpu = fixture("saxpy.gfx900.co");
    other_gpu[0x30] = 0x2a; // EF_AMDGPU_MACH_AMDGCN_GFX803
    let obj = ElfObject::parse("old.co", &other_gpu).unwrap();
    let err = obj.target().unwrap_err();
    assert_eq!(
        err.to_string(),
        "old.co: processor gfx803 (EF_AMDGPU_MACH 0x2a) is not a supported gfx9 target"
    );
}
