//! Arbitrary machine code on the functional engine and the timing model (one and two host
//! threads): it may fail as a guest, never panic or hang. Byte 0 picks the target and the wave
//! count, the rest is code (see `gcnemu::fuzzing`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gcnemu::fuzzing::run_bytes(data);
});
