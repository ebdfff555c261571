//! The gfx9 ("Vega") instruction set as data, and everything derived from it:
//! [`decode`], [`encode`], LLVM-syntax [`std::fmt::Display`] and the text [`assemble`]r.
//!
//! The opcode table lives in `data/gfx9-ops.tsv`; `build.rs` turns it into Rust arrays.

mod error;
mod target;

pub use error::{DecodeError, DecodeErrorKind};
pub use target::Target;

mod inst;
pub use inst::{decode, Inst};
