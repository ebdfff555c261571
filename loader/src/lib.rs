//! AMDGPU ELF code objects: sections and symbols for the disassembler (issue 2); the full loader
//! (metadata, kernel descriptors, offload bundles) follows.
//!
//! [`ElfObject::parse`] accepts a code object (`.co`/`.hsaco`, ET_DYN) or a relocatable object
//! (ET_REL, e.g. from `llvm-mc -filetype=obj`). It borrows the file's bytes and never panics on
//! malformed input: every problem is a [`LoadError`] naming the file.

mod elf;
mod error;
mod mach;

pub use elf::{read_file, ElfObject, Section, Symbol, SymbolKind, MAX_FILE_SIZE};
pub use error::{LoadError, LoadErrorKind};
pub use mach::{mach_name, EF_AMDGPU_MACH};
