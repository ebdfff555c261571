//! The gfx9 ("Vega") instruction set as data, and everything derived from it:
//! [`decode`], [`Inst::encode`], LLVM-syntax [`std::fmt::Display`] and the text assembler ([`assemble`], [`assemble_inst`]).
//!
//! The opcode table lives in `data/gfx9-ops.tsv`; `build.rs` turns it into Rust arrays.

pub mod asm;
mod canon;
mod canon_format;
pub mod class;
mod decode;
mod display;
mod error;
pub mod facts;
pub mod fields;
mod inst;
mod llvm19;
pub mod mfma;
mod op;
pub mod operand;
mod syntax;
pub mod table;
mod target;

pub use asm::{assemble, assemble_inst, is_lossy_text, AsmError, Assembly};
pub use class::{Category, Counters, OpClass};
pub use decode::{classify, decode};
pub use error::{DecodeError, DecodeErrorKind};
pub use facts::{Atomic, DstUse, Facts, Literal64, MemKind, Rate, Regs, Rounding, D16};
pub use fields::Enc;
pub use inst::Inst;
pub use mfma::{MatrixInput, MfmaShape};
pub use table::{
    all_ops, lookup, op_info, Field, Format, ImmClass, ImmKind, Op, OpId, OpInfo, Slot,
};
pub use target::{Agprs, Features, OpSet, Target};
