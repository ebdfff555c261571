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
    #[error("more than the {limit}-byte limit in it (reading stopped there)")]
    TooLong { limit: u64 },
    #[error("empty file; expected a code object, an offload bundle or a host binary with a .hip_fatbin section")]
    Empty,
    #[error("not an ELF file")]
    NotElf,
    #[error(
        "not an ELF file, nor a clang offload bundle (starts with {magic:02x?}); expected a \
         code object, an offload bundle or a host binary with a .hip_fatbin section"
    )]
    UnknownFormat { magic: Vec<u8> },
    #[error("not a 64-bit little-endian ELF file (AMDGPU code objects are ELF64 LE)")]
    WrongClass,
    #[error("ELF machine is {machine}, not EM_AMDGPU (224)")]
    NotAmdgpu { machine: u16 },
    #[error("host ELF file (machine {machine}) with no .hip_fatbin section: no GPU code in it")]
    NoFatbin { machine: u16 },
    #[error("malformed ELF: {0}")]
    Malformed(String),
    #[error("e_flags name no processor (EF_AMDGPU_MACH is 0); pass --target gfxN")]
    NoTarget,
    #[error("e_flags name no known processor (EF_AMDGPU_MACH {mach:#x})")]
    UnknownMach { mach: u32 },
    #[error("processor {name} (EF_AMDGPU_MACH {mach:#x}) is not a supported gfx9 target")]
    UnsupportedTarget { mach: u32, name: &'static str },
    #[error(
        "OS/ABI {os_abi} with ABI version {abi_version} is not an HSA code object v2-v5 \
         (ELFOSABI_AMDGPU_HSA is 64, versions 0-3)"
    )]
    UnsupportedAbi { os_abi: u8, abi_version: u8 },
    #[error("metadata note: {0}")]
    Metadata(String),
    #[error("kernel {kernel}: {problem}")]
    Kernel { kernel: String, problem: String },
    #[error("offload bundle at offset {offset:#x}: {problem}")]
    Bundle { offset: u64, problem: String },
    #[error("compressed offload bundle at offset {offset:#x}: {problem}")]
    Compressed { offset: u64, problem: String },
    #[error("no AMDGPU code object in it{0}")]
    NoCodeObjects(String),
    #[error(
        "no code object for {requested} (no kernel image is available for it; the file has: \
         {available})"
    )]
    NoCodeObjectFor {
        requested: String,
        available: String,
    },
}

/// A failure to load `file`.
#[derive(Debug)]
pub struct LoadError {
    /// The input file, and for code inside a fat binary, which bundle entry.
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
        // File names and messages may carry strings from the file (bundle ids, kernel names):
        // nothing in them reaches the terminal unescaped.
        let text = format!("{}: {}", self.file, self.kind);
        f.write_str(&crate::printable::escape_controls(&text))
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}
