//! What went wrong inside the guest: the error an instruction ends its wave with, shared by
//! the instruction semantics, the wave state that holds it and both engines' stop reasons.

/// What went wrong inside the guest; the dispatcher adds kernel, workgroup, wave and PC.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    #[error("no semantics implemented for this instruction yet")]
    Unimplemented,
    #[error("{0} is not supported yet")]
    Unsupported(&'static str),
    #[error("{0} is not supported in compute emulation: {1}")]
    NotInCompute(&'static str, &'static str),
    #[error("the code word does not decode: {0}")]
    Undecodable(String),
    #[error("lane {lane}: {what} of {len} bytes at {addr:#x} is outside device memory ({detail})")]
    Memory {
        lane: u8,
        what: &'static str,
        addr: u64,
        len: u32,
        detail: String,
    },
    #[error("lane {lane}: LDS {what} of {len} bytes at {addr:#x} is outside the workgroup's {size}-byte LDS")]
    Lds {
        lane: u8,
        what: &'static str,
        addr: u32,
        len: u32,
        size: u32,
    },
    #[error("lane {lane}: private (scratch) access of {len} bytes at offset {offset:#x} is outside the {size}-byte private segment")]
    Private {
        lane: u8,
        offset: u32,
        len: u32,
        size: u32,
    },
    #[error("scalar {what} of {len} bytes at {addr:#x} is outside device memory ({detail})")]
    ScalarMemory {
        what: &'static str,
        addr: u64,
        len: u32,
        detail: String,
    },
    #[error("jump to {addr:#x}, which is not the start of a decoded instruction")]
    BadJump { addr: u64 },
    #[error("execution ran past the end of the code")]
    PastEnd,
    #[error("s_trap {id}{meaning}", id = .0, meaning = trap_meaning(*.0))]
    Trap(u16),
    #[error("{reg} is outside the wave's {count} {file}")]
    Register {
        reg: String,
        count: usize,
        file: &'static str,
    },
    #[error("{0}")]
    Guest(String),
}

/// What the compiler means by a trap id (AMDGPUUsage, "Trap Handler ABI").
fn trap_meaning(id: u16) -> &'static str {
    match id {
        2 => " (llvm.trap: the kernel called abort(), a failed assert() or __builtin_trap())",
        3 => " (llvm.debugtrap)",
        _ => "",
    }
}
