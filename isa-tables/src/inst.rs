//! The decoded instruction (placeholder API while the table-driven engine is written).

use crate::{DecodeError, DecodeErrorKind, Target};
use std::fmt;

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    len: u8,
}

impl Inst {
    /// Encoded size in bytes (4, 8 or 12 with a literal).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// For a branch at byte address `pc`, the address it jumps to.
    pub fn branch_target(&self, _pc: u64) -> Option<u64> {
        None
    }
}

/// Decodes the instruction at the start of `bytes` for `target`.
pub fn decode(bytes: &[u8], _target: Target) -> Result<Inst, DecodeError> {
    Err(DecodeError {
        offset: 0,
        kind: DecodeErrorKind::Truncated { needed: 4, available: bytes.len() },
    })
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{} bytes>", self.len)
    }
}
