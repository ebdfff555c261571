//! Load errors: the file they are about, and what is wrong with it.

use std::fmt;

/// What is wrong with an input file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadErrorKind {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("file of {size} bytes exceeds the {limit}-byte limit")]
    TooLarge { size: u64, limit: u64 },
    #[error("not an ELF file")]
    NotElf,
    #[error("not a 64-bit little-endian ELF file (AMDGPU code objects are ELF64 LE)")]
    WrongClass,
    #[error("ELF machine is {machine}, not EM_AMDGPU (224)")]
    NotAmdgpu { machine: u16 },
    #[error("malformed ELF: {0}")]
    Malformed(String),
    #[error("e_flags name no processor (EF_AMDGPU_MACH is 0); pass --target gfxN")]
    NoTarget,
    #[error("processor {name} (EF_AMDGPU_MACH {mach:#x}) is not a supported gfx9 target")]
    UnsupportedTarget { mach: u32, name: &'static str },
}

/// A failure to load `file`.
#[derive(Debug)]
pub struct LoadError {
    pub file: String,
    pub kind: LoadErrorKind,
}

impl LoadError {
    pub fn new(file: impl Into<String>, kind: impl Into<LoadErrorKind>) -> LoadError {
        LoadError {
            file: file.into(),
            kind: kind.into(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.kind)
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}
