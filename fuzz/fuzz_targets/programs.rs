//! Programs of valid instructions generated from the bytes (`gcnemu::fuzzing::program`), race-
//! free by construction, must end alike on the functional engine (one and two threads) and the
//! timing model (random arbitration; two threads), with the same buffer. Byte 0 picks the
//! target (gfx900, gfx906, gfx908, gfx90a), the rest drives the generator.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(why) = gcnemu::fuzzing::check_generated(data) {
        panic!("the engines disagree:\n{why}");
    }
});
