//! One AMDGPU code object: its target, version, kernels (descriptor + metadata + entry point).

use crate::descriptor::{KernelDescriptor, AMD_KERNEL_CODE_T_SIZE, KERNEL_DESCRIPTOR_SIZE};
use crate::error::{LoadError, LoadErrorKind};
use crate::meta::{CodeObjectMeta, KernelMeta};
use crate::target::{code_object_version, target_from_e_flags, TargetId};
use crate::{meta_msgpack, meta_yaml, ElfObject};
use object::elf::{self, FileHeader64};
use object::read::elf::{ElfFile64, ElfSymbol64, FileHeader, SectionHeader, Sym};
use object::{
    LittleEndian as LE, Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget,
    SymbolIndex,
};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// `STT_AMDGPU_HSA_KERNEL`: a code object v2 kernel symbol (its code starts with an
/// `amd_kernel_code_t`).
const STT_AMDGPU_HSA_KERNEL: u8 = 10;
/// `NT_AMDGPU_METADATA` in notes named `AMDGPU` (v3+ msgpack).
const NT_AMDGPU_METADATA: u32 = 32;
/// `NT_AMD_HSA_ISA_VERSION` in notes named `AMD` (v2: vendor, arch, major.minor.stepping).
const NT_AMD_HSA_ISA_VERSION: u32 = 3;
/// `NT_AMD_HSA_METADATA` in notes named `AMD` (v2 YAML).
const NT_AMD_HSA_METADATA: u32 = 10;
/// `NT_AMD_HSA_ISA_NAME` in notes named `AMD` (v2: `amdgcn-amd-amdhsa--gfx900+xnack`).
const NT_AMD_HSA_ISA_NAME: u32 = 11;
/// `R_AMDGPU_REL64`: how a relocatable object fills `kernel_code_entry_byte_offset`.
const R_AMDGPU_REL64: u32 = 5;
/// Offset of `kernel_code_entry_byte_offset` in a kernel descriptor.
const ENTRY_OFFSET_FIELD: u64 = 16;

/// A kernel: its descriptor, its metadata (if the code object has a metadata note) and where
/// its first instruction is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kernel {
    /// The kernel's symbol name (the descriptor symbol without `.kd`).
    pub name: String,
    pub descriptor: KernelDescriptor,
    pub meta: Option<KernelMeta>,
    /// Virtual address of the first instruction. In a relocatable object (ET_REL) this is the
    /// offset in the section named by [`Kernel::code_section`], since nothing has an address yet.
    pub entry: u64,
    /// Address of the kernel descriptor (`kernel_object` in a dispatch packet); for v2 the
    /// address of the `amd_kernel_code_t`.
    pub descriptor_address: u64,
    /// The section holding the code (normally `.text`).
    pub code_section: String,
    /// That section's ELF section header index (names need not be unique).
    pub code_section_index: usize,
    /// Bytes of code from `entry`, from the kernel's function symbol when it has a size.
    pub code_size: Option<u64>,
}

/// An AMDGPU code object, owning its ELF bytes.
#[derive(Clone, Debug, Serialize)]
pub struct CodeObject {
    /// The name errors and listings use: the input file, plus for code from a fat binary the
    /// bundle entry id and its offset in the file (`lib.so:hipv4-amdgcn-amd-amdhsa--gfx900@0x3000`).
    pub file: String,
    /// The offload bundle entry id this came from; `None` for a plain ELF file.
    pub label: Option<String>,
    /// Where the bundle entry starts in the input file (for a compressed bundle: where the
    /// compressed bundle starts); `None` for a plain ELF file.
    pub bundle_offset: Option<u64>,
    pub target: TargetId,
    /// Code object version, 2..=5.
    pub version: u8,
    /// ET_REL (e.g. from `llvm-mc -filetype=obj`): addresses are section offsets.
    pub relocatable: bool,
    /// The ELF file.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    pub kernels: Vec<Kernel>,
    /// The whole metadata note (version, target string, printf formats), if there is one.
    pub meta: Option<CodeObjectMeta>,
}

impl CodeObject {
    /// The sections and symbols, for the disassembler.
    pub fn elf(&self) -> Result<ElfObject<'_>, LoadError> {
        ElfObject::parse(&self.file, &self.bytes)
    }

    /// The kernel with this name (with or without `.kd`).
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        let name = name.strip_suffix(".kd").unwrap_or(name);
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The decoder's target for this code object's processor, if supported.
    pub fn isa_target(&self) -> Option<gcn_isa::Target> {
        self.target.isa_target()
    }

    /// Parses one AMDGPU ELF file. `file` names it in errors; `label` is its bundle entry id.
    pub fn parse(file: &str, label: Option<&str>, bytes: Vec<u8>) -> Result<CodeObject, LoadError> {
        let fail = |kind| LoadError::new(file, kind);
        // The ELF checks (magic, class, machine) with their errors.
        ElfObject::parse(file, &bytes)?;
        let malformed = |e: object::Error| fail(LoadErrorKind::Malformed(e.to_string()));
        let header = FileHeader64::<LE>::parse(&*bytes).map_err(malformed)?;
        let ident = header.e_ident();
        let version = code_object_version(ident.os_abi, ident.abi_version).ok_or_else(|| {
            fail(LoadErrorKind::UnsupportedAbi {
                os_abi: ident.os_abi,
                abi_version: ident.abi_version,
            })
        })?;
        let elf_file = ElfFile64::<LE>::parse(&*bytes).map_err(malformed)?;
        let relocatable = header.e_type(LE) == elf::ET_REL;
        let (mach, mut target) = target_from_e_flags(header.e_flags(LE), version);
        let notes = read_notes(&elf_file, version).map_err(fail)?;
        if mach.is_none() {
            // v2 objects may leave EF_AMDGPU_MACH 0 and name the processor in a note.
            match notes.isa.as_deref().and_then(TargetId::parse) {
                Some(id) => target = id,
                None if header.e_flags(LE) & crate::EF_AMDGPU_MACH != 0 => {
                    let mach = header.e_flags(LE) & crate::EF_AMDGPU_MACH;
                    return Err(fail(LoadErrorKind::UnknownMach { mach }));
                }
                None => return Err(fail(LoadErrorKind::NoTarget)),
            }
        }
        let reader = Reader::new(&elf_file, relocatable);
        let mut kernels = if version == 2 {
            reader.v2_kernels(notes.meta.as_ref())
        } else {
            reader.kernels(notes.meta.as_ref())
        }
        .map_err(fail)?;
        for k in &mut kernels {
            k.descriptor
                .apply_target(&target)
                .map_err(|problem| fail(kernel_error(&k.name, problem)))?;
        }
        Ok(CodeObject {
            file: file.to_string(),
            label: label.map(str::to_string),
            bundle_offset: None,
            target,
            version,
            relocatable,
            kernels,
            meta: notes.meta,
            bytes,
        })
    }
}

#[derive(Default)]
struct Notes {
    meta: Option<CodeObjectMeta>,
    /// v2 processor from an ISA note, as a target id string.
    isa: Option<String>,
}

fn read_notes(elf_file: &ElfFile64<LE>, version: u8) -> Result<Notes, LoadErrorKind> {
    let mut out = Notes::default();
    let data = elf_file.data();
    for header in elf_file.elf_section_table().iter() {
        let notes = header
            .notes(LE, data)
            .map_err(|e| LoadErrorKind::Malformed(format!("note section: {e}")))?;
        let Some(mut notes) = notes else { continue };
        while let Some(note) = notes
            .next()
            .map_err(|e| LoadErrorKind::Malformed(format!("note: {e}")))?
        {
            let desc = note.desc();
            match (note.name(), note.n_type(LE)) {
                (b"AMDGPU", NT_AMDGPU_METADATA) if version >= 3 => {
                    out.meta = Some(meta_msgpack::parse(desc)?);
                }
                (b"AMD", NT_AMD_HSA_METADATA) if version == 2 => {
                    out.meta = Some(meta_yaml::parse(desc)?);
                }
                (b"AMD", NT_AMD_HSA_ISA_NAME) => {
                    let text = String::from_utf8_lossy(desc);
                    let text = text.trim_end_matches('\0');
                    out.isa = text.rsplit('-').next().map(str::to_string);
                }
                (b"AMD", NT_AMD_HSA_ISA_VERSION) if out.isa.is_none() => {
                    out.isa = isa_version_note(desc);
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

/// `NT_AMD_HSA_ISA_VERSION`: u16 vendor size, u16 arch size, u32 major, minor, stepping; then the
/// names. gfx9 spells `gfx{major}{minor}{stepping}` with the stepping in hex (`gfx90c`).
fn isa_version_note(desc: &[u8]) -> Option<String> {
    let word = |at: usize| {
        desc.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    let (major, minor, stepping) = (word(4)?, word(8)?, word(12)?);
    if major == 0 || major > 99 || minor > 9 || stepping > 15 {
        return None;
    }
    Some(format!("gfx{major}{minor}{stepping:x}"))
}

struct Reader<'a, 'data> {
    elf: &'a ElfFile64<'data, LE>,
    relocatable: bool,
    /// Defined symbols by name (.symtab first, then .dynsym), so that finding each kernel's
    /// symbols costs O(1) however many kernels a (possibly hostile) file declares.
    defined: HashMap<&'data [u8], (bool, SymbolIndex)>,
    /// Executable sections with contents, as (address, size, name, index), by address.
    code_sections: Vec<(u64, u64, String, usize)>,
}

/// Where a symbol's bytes are: its section and its offset in it.
struct Located<'data> {
    section_name: String,
    section_index: usize,
    /// The section's bytes from the symbol on.
    bytes: &'data [u8],
    /// The symbol's offset in its section.
    offset: u64,
    address: u64,
}

fn kernel_error(kernel: &str, problem: String) -> LoadErrorKind {
    LoadErrorKind::Kernel {
        kernel: kernel.to_string(),
        problem,
    }
}

impl<'a, 'data> Reader<'a, 'data> {
    fn new(elf: &'a ElfFile64<'data, LE>, relocatable: bool) -> Reader<'a, 'data> {
        let mut defined = HashMap::new();
        for (dynamic, table) in [(false, elf.symbols()), (true, elf.dynamic_symbols())] {
            for s in table {
                if let (Ok(name), Some(_)) = (s.name_bytes(), s.section_index()) {
                    defined.entry(name).or_insert((dynamic, s.index()));
                }
            }
        }
        let mut code_sections: Vec<_> = elf
            .sections()
            .filter(|s| {
                let h = s.elf_section_header();
                h.sh_flags(LE) & u64::from(elf::SHF_EXECINSTR) != 0
                    && h.sh_type(LE) != elf::SHT_NOBITS
            })
            .map(|s| {
                let name = s.name().unwrap_or("?").to_string();
                (s.address(), s.size(), name, s.index().0)
            })
            .collect();
        code_sections.sort_by_key(|s| (s.0, s.1));
        Reader {
            elf,
            relocatable,
            defined,
            code_sections,
        }
    }

    /// The defined symbol called `name`, from .symtab if it is there, else from .dynsym.
    fn symbol(&self, name: &str) -> Option<ElfSymbol64<'data, 'a, LE>> {
        let &(dynamic, index) = self.defined.get(name.as_bytes())?;
        if dynamic {
            self.elf.dynamic_symbol_table()?.symbol_by_index(index).ok()
        } else {
            self.elf.symbol_by_index(index).ok()
        }
    }

    fn locate(
        &self,
        kernel: &str,
        symbol: &ElfSymbol64<'data, '_, LE>,
    ) -> Result<Located<'data>, LoadErrorKind> {
        let what = |e: String| kernel_error(kernel, e);
        let index = symbol
            .section_index()
            .ok_or_else(|| what("symbol is not in a section".into()))?;
        let section = self
            .elf
            .section_by_index(index)
            .map_err(|e| what(format!("symbol's section: {e}")))?;
        if section.elf_section_header().sh_type(LE) == elf::SHT_NOBITS {
            return Err(what(format!(
                "symbol is in {}, which has no file contents",
                section.name().unwrap_or("?")
            )));
        }
        let data = section
            .data()
            .map_err(|e| what(format!("section contents: {e}")))?;
        let value = symbol.elf_symbol().st_value(LE);
        let offset = if self.relocatable {
            value
        } else {
            value.wrapping_sub(section.address())
        };
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|o| data.get(o..))
            .ok_or_else(|| {
                what(format!(
                    "symbol address {value:#x} is outside its section {} ({:#x} bytes at {:#x})",
                    section.name().unwrap_or("?"),
                    data.len(),
                    section.address()
                ))
            })?;
        Ok(Located {
            section_name: section.name().unwrap_or("?").to_string(),
            section_index: index.0,
            bytes,
            offset,
            address: value,
        })
    }

    /// v3+: kernels named by the metadata (each must have its `.kd`), or else every `*.kd`.
    fn kernels(&self, meta: Option<&CodeObjectMeta>) -> Result<Vec<Kernel>, LoadErrorKind> {
        let mut named: Vec<(String, String, Option<KernelMeta>)> = Vec::new();
        match meta {
            Some(meta) if !meta.kernels.is_empty() => {
                for k in &meta.kernels {
                    let symbol = if k.symbol.is_empty() {
                        format!("{}.kd", k.name)
                    } else {
                        k.symbol.clone()
                    };
                    let name = symbol.strip_suffix(".kd").unwrap_or(&k.name).to_string();
                    named.push((name, symbol, Some(k.clone())));
                }
            }
            _ => {
                let mut seen = HashSet::new();
                for s in self.elf.symbols().chain(self.elf.dynamic_symbols()) {
                    let Ok(sym_name) = s.name() else { continue };
                    let is_object = s.elf_symbol().st_type() == elf::STT_OBJECT;
                    if let Some(name) = sym_name.strip_suffix(".kd") {
                        if is_object && !name.is_empty() && seen.insert(name) {
                            named.push((name.to_string(), sym_name.to_string(), None));
                        }
                    }
                }
            }
        }
        named
            .into_iter()
            .map(|(name, symbol, meta)| self.kernel(name, &symbol, meta))
            .collect()
    }

    fn kernel(
        &self,
        name: String,
        kd_symbol: &str,
        meta: Option<KernelMeta>,
    ) -> Result<Kernel, LoadErrorKind> {
        let symbol = self.symbol(kd_symbol).ok_or_else(|| {
            kernel_error(
                &name,
                format!("the metadata names descriptor symbol {kd_symbol}, which is not defined"),
            )
        })?;
        let at = self.locate(&name, &symbol)?;
        let raw: &[u8; KERNEL_DESCRIPTOR_SIZE] = at
            .bytes
            .get(..KERNEL_DESCRIPTOR_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                kernel_error(
                    &name,
                    format!(
                        "descriptor {kd_symbol} at {:#x} needs 64 bytes; its section has {}",
                        at.address,
                        at.bytes.len()
                    ),
                )
            })?;
        let descriptor = KernelDescriptor::from_bytes(raw);
        let (entry, (code_section, code_section_index)) = if self.relocatable {
            self.relocated_entry(&name, &at)?
        } else {
            let entry = at
                .address
                .wrapping_add(descriptor.kernel_code_entry_byte_offset as u64);
            (entry, self.code_section_at(&name, entry)?)
        };
        let code_size = self
            .symbol(&name)
            .map(|s| s.size())
            .filter(|&size| size > 0);
        Ok(Kernel {
            name,
            descriptor,
            meta,
            entry,
            descriptor_address: at.address,
            code_section,
            code_section_index,
            code_size,
        })
    }

    /// In ET_REL the entry offset is a `R_AMDGPU_REL64` relocation `S + A - P` at descriptor
    /// offset 16; with P = descriptor + 16 the entry is `S + A - 16`, an offset in S's section.
    fn relocated_entry(
        &self,
        name: &str,
        kd: &Located,
    ) -> Result<(u64, (String, usize)), LoadErrorKind> {
        let place = kd.offset + ENTRY_OFFSET_FIELD;
        let kd_section = self
            .elf
            .sections()
            .find(|s| s.name().ok() == Some(kd.section_name.as_str()));
        let relocation = kd_section.and_then(|s| {
            s.relocations().find(|(offset, r)| {
                *offset == place
                    && matches!(r.flags(), object::RelocationFlags::Elf { r_type } if r_type == R_AMDGPU_REL64)
            })
        });
        let Some((_, relocation)) = relocation else {
            return Err(kernel_error(
                name,
                format!(
                    "relocatable object without an R_AMDGPU_REL64 relocation for the entry \
                     offset at {}+{place:#x}",
                    kd.section_name
                ),
            ));
        };
        let RelocationTarget::Symbol(index) = relocation.target() else {
            return Err(kernel_error(name, "entry relocation has no symbol".into()));
        };
        let target = self
            .elf
            .symbol_by_index(index)
            .map_err(|e| kernel_error(name, format!("entry relocation symbol: {e}")))?;
        let section_index = target
            .section_index()
            .ok_or_else(|| kernel_error(name, "entry relocation symbol is undefined".into()))?;
        let section = self
            .elf
            .section_by_index(section_index)
            .map_err(|e| kernel_error(name, format!("entry section: {e}")))?;
        let entry = target
            .address()
            .wrapping_add(relocation.addend() as u64)
            .wrapping_sub(ENTRY_OFFSET_FIELD);
        if entry >= section.size() {
            return Err(kernel_error(
                name,
                format!(
                    "entry {entry:#x} is past the end of {} ({:#x} bytes)",
                    section.name().unwrap_or("?"),
                    section.size()
                ),
            ));
        }
        Ok((
            entry,
            (section.name().unwrap_or("?").to_string(), section_index.0),
        ))
    }

    /// The executable section holding `address`, or an error saying the entry points elsewhere.
    fn code_section_at(&self, name: &str, address: u64) -> Result<(String, usize), LoadErrorKind> {
        // The last section starting at or below the address (a binary search, so that many
        // kernels and many sections stay cheap).
        let after = self.code_sections.partition_point(|s| s.0 <= address);
        after
            .checked_sub(1)
            .map(|i| &self.code_sections[i])
            .filter(|s| address - s.0 < s.1)
            .map(|s| (s.2.clone(), s.3))
            .ok_or_else(|| {
                kernel_error(
                    name,
                    format!("entry address {address:#x} is not in an executable section"),
                )
            })
    }

    /// v2: each `STT_AMDGPU_HSA_KERNEL` symbol starts with an `amd_kernel_code_t`.
    fn v2_kernels(&self, meta: Option<&CodeObjectMeta>) -> Result<Vec<Kernel>, LoadErrorKind> {
        let mut out: Vec<Kernel> = Vec::new();
        let mut seen = HashSet::new();
        // v2 metadata names kernels by name (its SymbolName is `name@kd`); the first entry wins.
        let mut meta_by_name: HashMap<&str, &KernelMeta> = HashMap::new();
        for k in meta.iter().flat_map(|m| &m.kernels) {
            meta_by_name.entry(k.name.as_str()).or_insert(k);
        }
        for symbol in self.elf.symbols().chain(self.elf.dynamic_symbols()) {
            if symbol.elf_symbol().st_type() != STT_AMDGPU_HSA_KERNEL
                || symbol.section_index().is_none()
            {
                continue;
            }
            // Unnamed kernels cannot be asked for; they only come from corrupt string tables.
            let Ok(name) = symbol.name() else { continue };
            if name.is_empty() || !seen.insert(name) {
                continue;
            }
            let at = self.locate(name, &symbol)?;
            let raw: &[u8; AMD_KERNEL_CODE_T_SIZE] = at
                .bytes
                .get(..AMD_KERNEL_CODE_T_SIZE)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| {
                    kernel_error(
                        name,
                        format!(
                            "amd_kernel_code_t at {:#x} needs 256 bytes; its section has {}",
                            at.address,
                            at.bytes.len()
                        ),
                    )
                })?;
            let descriptor = KernelDescriptor::from_amd_kernel_code_t(raw);
            let entry = at
                .address
                .wrapping_add(descriptor.kernel_code_entry_byte_offset as u64);
            let (code_section, code_section_index) = if self.relocatable {
                // The code follows its header in the same section.
                let section_size = (at.offset as usize).saturating_add(at.bytes.len()) as u64;
                if entry >= section_size {
                    return Err(kernel_error(
                        name,
                        format!("entry {entry:#x} is past the end of {}", at.section_name),
                    ));
                }
                (at.section_name.clone(), at.section_index)
            } else {
                self.code_section_at(name, entry)?
            };
            let kernel_meta = meta_by_name.get(name).map(|&k| k.clone());
            let size = symbol.size();
            out.push(Kernel {
                name: name.to_string(),
                descriptor,
                meta: kernel_meta,
                entry,
                descriptor_address: at.address,
                code_section,
                code_section_index,
                code_size: (size > AMD_KERNEL_CODE_T_SIZE as u64)
                    .then(|| size - AMD_KERNEL_CODE_T_SIZE as u64),
            });
        }
        Ok(out)
    }
}
