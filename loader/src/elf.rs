//! Sections and symbols of an AMDGPU ELF file, collected the way `llvm-objdump -d` collects them
//! (so the disassembler can print the same `<name>:` blocks and branch-target annotations).

use crate::error::{LoadError, LoadErrorKind};
use crate::mach::{mach_name, EF_AMDGPU_MACH};
use gcn_isa::Target;
use object::elf::{self, FileHeader64};
use object::read::elf::{ElfFile64, FileHeader, SectionHeader, Sym};
use object::{LittleEndian as LE, Object, ObjectSection, ObjectSymbol, ObjectSymbolTable};

/// Input files larger than this are refused rather than read into memory (ROCm host libraries
/// with device code for many targets run past 1 GiB: librocsparse.so.0.1 of ROCm 5.3 is 1.3 GB).
/// Compressed bundles in one input may not expand to more than this either.
pub const MAX_FILE_SIZE: u64 = 4 << 30;

/// `STT_AMDGPU_HSA_KERNEL`: code object v2 kernels (their code starts with a 256-byte header).
const STT_AMDGPU_HSA_KERNEL: u8 = 10;

// e_ident positions of the class and data-encoding bytes.
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;

/// One ELF section.
#[derive(Clone, Debug)]
pub struct Section<'data> {
    /// The ELF section header index.
    pub index: usize,
    pub name: String,
    pub address: u64,
    pub size: u64,
    /// `SHF_EXECINSTR` is set.
    pub executable: bool,
    /// The section's bytes: loaded for executable and allocated sections with file contents.
    pub data: &'data [u8],
}

/// The ELF symbol type, as far as disassembly cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    NoType,
    Object,
    Function,
    Common,
    /// `STT_AMDGPU_HSA_KERNEL` (code object v2).
    HsaKernel,
    Other(u8),
}

impl SymbolKind {
    fn from_st_type(st_type: u8) -> SymbolKind {
        match st_type {
            elf::STT_NOTYPE => SymbolKind::NoType,
            elf::STT_OBJECT => SymbolKind::Object,
            elf::STT_FUNC => SymbolKind::Function,
            elf::STT_COMMON => SymbolKind::Common,
            STT_AMDGPU_HSA_KERNEL => SymbolKind::HsaKernel,
            other => SymbolKind::Other(other),
        }
    }
}

/// A named symbol (section symbols and unnamed ones are left out, as llvm-objdump does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// `st_value`: an address in a code object, a section offset in a relocatable object.
    pub address: u64,
    pub size: u64,
    /// The raw `st_type`; llvm-objdump orders same-address symbols by it after the name.
    pub st_type: u8,
    /// The ELF index of the section the symbol is defined in; `None` for absolute, undefined
    /// and common symbols.
    pub section: Option<usize>,
}

impl Symbol {
    pub fn kind(&self) -> SymbolKind {
        SymbolKind::from_st_type(self.st_type)
    }

    /// llvm-objdump's symbol order: address, then name, then type.
    fn order_key(&self) -> (u64, &str, u8) {
        (self.address, &self.name, self.st_type)
    }
}

/// An AMDGPU ELF file (code object or relocatable object).
#[derive(Debug)]
pub struct ElfObject<'data> {
    /// The name errors and headers use for the file.
    pub file: String,
    pub e_flags: u32,
    /// ET_REL: symbol values are section offsets and branch targets stay in their section.
    pub relocatable: bool,
    pub sections: Vec<Section<'data>>,
    /// Symbols from `.symtab`, or from `.dynsym` when `.symtab` defines none in a section.
    pub symbols: Vec<Symbol>,
    /// The dynamic relocations (`.rela.dyn`) a loader applies at the load address.
    pub dynamic_relocations: Vec<DynamicRelocation>,
}

/// One dynamic relocation: patch `offset` (a virtual address) with `kind` of the load address,
/// the symbol's value (for symbol relocations) and the addend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicRelocation {
    pub offset: u64,
    /// `R_AMDGPU_*` type (`R_AMDGPU_RELATIVE64` is 13, `R_AMDGPU_ABS64` 3).
    pub r_type: u32,
    pub addend: i64,
    /// The dynamic symbol's value and name; `None` for relocations without a symbol.
    pub symbol: Option<(u64, String)>,
}

/// Reads `path` whole if its first bytes are those of an ELF file or an offload bundle (plain
/// or compressed), refusing anything else before reading on, and files over
/// [`MAX_FILE_SIZE`] (by their size where the file system knows it, else by reading one byte
/// past the limit), so `/dev/zero` or a pipe costs only its first bytes.
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, LoadError> {
    read_file_checked(path, |prefix| {
        if is_binary_input(prefix) {
            Ok(MAX_FILE_SIZE)
        } else {
            Err(unknown_format(prefix))
        }
    })
}

/// Bytes [`read_file_checked`] shows its check: enough for every magic number.
pub const PREFIX_SIZE: usize = 64;

/// The input starts as an ELF file or a clang offload bundle (plain or `CCOB`) does.
pub fn is_binary_input(prefix: &[u8]) -> bool {
    prefix.starts_with(&elf::ELFMAG)
        || prefix.starts_with(crate::bundle::BUNDLE_MAGIC)
        || prefix.starts_with(crate::compressed::MAGIC)
}

/// The error for an input that is none of the known formats, or empty.
pub fn unknown_format(prefix: &[u8]) -> LoadErrorKind {
    if prefix.is_empty() {
        return LoadErrorKind::Empty;
    }
    LoadErrorKind::UnknownFormat {
        magic: prefix.iter().take(8).copied().collect(),
    }
}

/// Opens `path` if it is a regular file or a pipe, refusing anything else by its type before a
/// byte is read: a device never ends (`/dev/zero`) or waits for a person (a terminal), and a
/// directory or socket has no contents to read. A pipe is read up to the caller's limit.
pub fn open_readable(
    path: &std::path::Path,
) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path)?.file_type();
    let what = if kind.is_file() || kind.is_fifo() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    };
    if let Some(what) = what {
        return Err(std::io::Error::other(format!(
            "is {what}; only regular files and pipes are read"
        )));
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    Ok((file, meta))
}

/// Reads `path` whole when `check` accepts its first [`PREFIX_SIZE`] bytes (fewer for a
/// shorter file), up to the size limit `check` returns for what it saw.
pub fn read_file_checked(
    path: &std::path::Path,
    check: impl FnOnce(&[u8]) -> Result<u64, LoadErrorKind>,
) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    let file_name = path.display().to_string();
    let fail = |kind: LoadErrorKind| LoadError::new(&file_name, kind);
    let io_err = |e| LoadError::new(&file_name, LoadErrorKind::Io(e));
    let (mut file, meta) = open_readable(path).map_err(io_err)?;
    let mut bytes = Vec::with_capacity(PREFIX_SIZE);
    (&mut file)
        .take(PREFIX_SIZE as u64)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    let limit = check(&bytes).map_err(fail)?;
    // Devices and pipes report 0; only a regular file's size is known before reading.
    let size = if meta.is_file() { meta.len() } else { 0 };
    if size > limit {
        return Err(fail(LoadErrorKind::TooLarge { size, limit }));
    }
    bytes.reserve(size.saturating_sub(bytes.len() as u64) as usize);
    file.take((limit + 1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > limit {
        return Err(fail(LoadErrorKind::TooLong { limit }));
    }
    Ok(bytes)
}

impl<'data> ElfObject<'data> {
    /// Parses `data`, the contents of the file called `file`.
    pub fn parse(file: &str, data: &'data [u8]) -> Result<ElfObject<'data>, LoadError> {
        let fail = |kind| LoadError::new(file, kind);
        if !data.starts_with(&elf::ELFMAG) {
            return Err(fail(LoadErrorKind::NotElf));
        }
        if data.get(EI_CLASS) != Some(&elf::ELFCLASS64)
            || data.get(EI_DATA) != Some(&elf::ELFDATA2LSB)
        {
            return Err(fail(LoadErrorKind::WrongClass));
        }
        let malformed = |e: object::Error| fail(LoadErrorKind::Malformed(e.to_string()));
        let header = FileHeader64::<LE>::parse(data).map_err(malformed)?;
        let machine = header.e_machine(LE);
        if machine != elf::EM_AMDGPU {
            return Err(fail(LoadErrorKind::NotAmdgpu { machine }));
        }
        let elf_file = ElfFile64::<LE>::parse(data).map_err(malformed)?;
        let sections = collect_sections(&elf_file).map_err(malformed)?;
        let mut symbols = collect_symbols(elf_file.symbols());
        if symbols.iter().all(|s| s.section.is_none()) {
            symbols = collect_symbols(elf_file.dynamic_symbols());
            symbols.retain(|s| s.section.is_some());
        }
        let dynamic_relocations = collect_dynamic_relocations(&elf_file);
        Ok(ElfObject {
            file: file.to_string(),
            e_flags: header.e_flags(LE),
            relocatable: header.e_type(LE) == elf::ET_REL,
            sections,
            symbols,
            dynamic_relocations,
        })
    }

    /// The `EF_AMDGPU_MACH` field of e_flags.
    pub fn mach(&self) -> u32 {
        self.e_flags & EF_AMDGPU_MACH
    }

    /// The gfx9 target named by e_flags.
    pub fn target(&self) -> Result<Target, LoadError> {
        let mach = self.mach();
        let fail = |kind| LoadError::new(&self.file, kind);
        if mach == 0 {
            return Err(fail(LoadErrorKind::NoTarget));
        }
        let name = mach_name(mach).unwrap_or("unknown");
        Target::from_name(name).ok_or(fail(LoadErrorKind::UnsupportedTarget { mach, name }))
    }

    /// Executable sections with contents, in section-header order.
    pub fn code_sections(&self) -> impl Iterator<Item = &Section<'data>> {
        self.sections.iter().filter(|s| s.executable)
    }

    /// The symbols defined in section `index` (an ELF section index), in llvm-objdump's order.
    pub fn section_symbols(&self, index: usize) -> Vec<&Symbol> {
        self.sorted(|s| s.section == Some(index))
    }

    /// Symbols in no section (absolute, undefined, common), in llvm-objdump's order.
    pub fn absolute_symbols(&self) -> Vec<&Symbol> {
        self.sorted(|s| s.section.is_none())
    }

    /// Functions and kernels in executable sections, by address (then name).
    pub fn functions(&self) -> Vec<&Symbol> {
        let executable = |s: &Symbol| {
            self.sections
                .iter()
                .any(|sec| Some(sec.index) == s.section && sec.executable)
        };
        self.sorted(|s| {
            matches!(s.kind(), SymbolKind::Function | SymbolKind::HsaKernel) && executable(s)
        })
    }

    fn sorted(&self, keep: impl Fn(&Symbol) -> bool) -> Vec<&Symbol> {
        let mut out: Vec<&Symbol> = self.symbols.iter().filter(|s| keep(s)).collect();
        out.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        out
    }
}

fn collect_sections<'data>(
    elf_file: &ElfFile64<'data, LE>,
) -> Result<Vec<Section<'data>>, object::Error> {
    let mut out = Vec::new();
    for section in elf_file.sections() {
        let header = section.elf_section_header();
        let executable = header.sh_flags(LE) & u64::from(elf::SHF_EXECINSTR) != 0;
        let has_bytes = header.sh_type(LE) != elf::SHT_NOBITS;
        // Code, and what a loader copies to the device (.rodata, .data, .dynamic ...).
        let allocated = header.sh_flags(LE) & u64::from(elf::SHF_ALLOC) != 0;
        let data = if (executable || allocated) && has_bytes {
            section.data()?
        } else {
            &[]
        };
        out.push(Section {
            index: section.index().0,
            name: String::from_utf8_lossy(section.name_bytes()?).into_owned(),
            address: section.address(),
            size: section.size(),
            executable: executable && has_bytes,
            data,
        });
    }
    Ok(out)
}

fn collect_dynamic_relocations(file: &ElfFile64<LE>) -> Vec<DynamicRelocation> {
    let Some(relocs) = file.dynamic_relocations() else {
        return Vec::new();
    };
    relocs
        .map(|(offset, r)| {
            let r_type = match r.flags() {
                object::RelocationFlags::Elf { r_type } => r_type,
                _ => 0,
            };
            let symbol = match r.target() {
                object::RelocationTarget::Symbol(i) => file
                    .dynamic_symbol_table()
                    .and_then(|t| t.symbol_by_index(i).ok())
                    .map(|s| (s.address(), s.name().unwrap_or("").to_string())),
                _ => None,
            };
            DynamicRelocation {
                offset,
                r_type,
                addend: r.addend(),
                symbol,
            }
        })
        .collect()
}

fn collect_symbols<'data, 'file>(
    symbols: object::read::elf::ElfSymbolIterator<'data, 'file, FileHeader64<LE>>,
) -> Vec<Symbol> {
    let mut out = Vec::new();
    for symbol in symbols {
        let raw = symbol.elf_symbol();
        let st_type = raw.st_type();
        // Names that do not resolve are skipped, as llvm-objdump skips them with a warning.
        let Ok(name) = symbol.name_bytes() else {
            continue;
        };
        if name.is_empty() || st_type == elf::STT_SECTION {
            continue;
        }
        out.push(Symbol {
            name: String::from_utf8_lossy(name).into_owned(),
            address: raw.st_value(LE),
            size: raw.st_size(LE),
            st_type,
            section: symbol.section_index().map(|i| i.0),
        });
    }
    out
}
