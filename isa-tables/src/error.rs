//! Decode errors: typed, with the byte offset of the offending instruction.

use std::fmt;

/// Why a byte sequence is not a valid instruction for the target.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The instruction needs `needed` bytes but only `available` remain.
    Truncated { needed: usize, available: usize },
    /// The encoding's opcode field names no instruction on this target.
    InvalidOpcode { format: &'static str, opcode: u32 },
    /// An operand field holds a value the instruction cannot take.
    InvalidOperand { what: &'static str, value: u32 },
    /// The first word matches no gfx9 encoding.
    UnknownEncoding { word: u32 },
}

/// A decode failure at `offset` bytes into the input given to the decoder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub offset: usize,
    pub kind: DecodeErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {:#x}: ", self.offset)?;
        match &self.kind {
            DecodeErrorKind::Truncated { needed, available } => write!(
                f,
                "truncated instruction: needs {needed} bytes, {available} available"
            ),
            DecodeErrorKind::InvalidOpcode { format, opcode } => {
                write!(f, "invalid {format} opcode {opcode:#x}")
            }
            DecodeErrorKind::InvalidOperand { what, value } => {
                write!(f, "invalid {what} operand {value:#x}")
            }
            DecodeErrorKind::UnknownEncoding { word } => {
                write!(f, "word {word:#010x} matches no gfx9 encoding")
            }
        }
    }
}

impl std::error::Error for DecodeError {}
