//! The ELF reader never panics on arbitrary bytes, and whatever it accepts can be walked.
#![no_main]

use gcn_loader::ElfObject;
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
});
