//! gcnemu: run, disassemble and lint gfx9 code objects.

pub mod cli;
pub mod disasm;
pub mod hazard;
