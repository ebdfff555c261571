//! Requests that kernels make of the host while they run — ROCm's *hostcall* (device `printf`,
//! `malloc`/`free`): a wave fills a packet in device memory and spins until the host has
//! answered. The engines poll between steps (the functional engine after each round of wave
//! quanta, the timing model after each window's memory operations), so a spinning wave is
//! answered within one round.

use crate::memory::Memory;

pub trait HostServices {
    /// Serves whatever the kernels have asked for since the last call. An error (a malformed
    /// request) ends the dispatch as a guest error. Every request visible in memory is
    /// answered by the call that sees it, through `mem`: the spin detector takes a poll that
    /// wrote nothing to mean the host owes no wave an answer.
    fn poll(&mut self, mem: &mut Memory) -> Result<(), String>;
}
