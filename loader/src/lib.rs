//! AMDGPU code objects: ELF files (code object v2–v5, or relocatable objects from `llvm-mc`),
//! their kernel descriptors and metadata, and the fat binaries that carry them (clang offload
//! bundles, plain or compressed, and host ELF files with a `.hip_fatbin` section).
//!
//! [`load`] takes any of these and returns every AMDGPU code object in it as a [`CodeObject`]
//! with its [`TargetId`], version and [`Kernel`]s; [`pick`] chooses the one a device runs (the
//! rule HIP applies to bundle entry ids). [`ElfObject::parse`] gives the sections and symbols of
//! one ELF for the disassembler. Nothing here panics on malformed input or allocates
//! more than the input's size (or a decompressed bundle's checked size): every problem is a
//! [`LoadError`] naming the file, and for fat binaries the bundle entry.

mod bundle;
mod code_object;
mod compressed;
mod descriptor;
mod elf;
mod error;
mod lines;
mod mach;
mod meta;
mod meta_msgpack;
mod meta_yaml;
mod printable;
mod select;
mod target;

pub use code_object::{CodeObject, Kernel};
pub use descriptor::{
    KernelCodeProperties, KernelDescriptor, PgmRsrc1, PgmRsrc2, PgmRsrc3, AMD_KERNEL_CODE_T_SIZE,
    KERNEL_DESCRIPTOR_SIZE,
};
pub use elf::{
    is_binary_input, open_readable, read_file, read_file_checked, unknown_format,
    DynamicRelocation, ElfObject, Section, Symbol, SymbolKind, MAX_FILE_SIZE, PREFIX_SIZE,
};
pub use error::{LoadError, LoadErrorKind};
pub use lines::{outer_line, LineTable};
pub use mach::{mach_name, EF_AMDGPU_MACH};
pub use meta::{CodeObjectMeta, KernelArg, KernelMeta, ValueKind};
pub use printable::{escape_controls, printable};
pub use select::{pick, Offered};
pub use target::{code_object_version, target_from_e_flags, TargetId};

use object::read::elf::{ElfFile, ElfFile32, ElfFile64, FileHeader};
use object::{Endianness, Object, ObjectSection};
use std::borrow::Cow;

/// The section of a HIP host binary that holds its offload bundles.
pub const HIP_FATBIN_SECTION: &str = ".hip_fatbin";

/// One AMDGPU ELF file found in an input, not yet parsed beyond its container.
#[derive(Debug)]
pub struct ElfImage<'a> {
    /// The name for errors and listings: the input file, plus for a bundle entry its id and
    /// offset (`lib.so:hipv4-amdgcn-amd-amdhsa--gfx900@0x3000`).
    pub file: String,
    /// The bundle entry id; `None` for a plain ELF file.
    pub label: Option<String>,
    /// Where the entry (or the compressed bundle holding it) starts in the input.
    pub bundle_offset: Option<u64>,
    pub bytes: Cow<'a, [u8]>,
}

/// The AMDGPU ELF files in `bytes` (the contents of the file called `file_name`), without
/// parsing them: the input itself if it is an AMDGPU ELF; the AMDGPU entries of an offload
/// bundle (plain or `CCOB`-compressed), or of the bundles in a host ELF's `.hip_fatbin`, in
/// file order. Entries for other targets (the host, nvptx) and empty ones are skipped; a fat
/// binary without any AMDGPU entry is an error.
///
/// `bytes` may run on past the bundles (a fat binary registered in memory comes as the rest of
/// its mapping): after the last bundle, the first bytes that are neither zero padding nor a
/// bundle end the scan. For a whole file use [`extract_file`], which allows no such tail.
pub fn extract<'a>(file_name: &str, bytes: &'a [u8]) -> Result<Vec<ElfImage<'a>>, LoadError> {
    extract_with(file_name, bytes, bundle::Tail::Open, None)
}

/// As [`extract`] for `bytes` that are a whole file: everything after a bundle must be zero
/// padding or another bundle, so a bundle whose magic is damaged is an error, not skipped.
pub fn extract_file<'a>(file_name: &str, bytes: &'a [u8]) -> Result<Vec<ElfImage<'a>>, LoadError> {
    extract_with(file_name, bytes, bundle::Tail::Exact, None)
}

/// What a fat binary with damaged parts still holds: the usable parts, and one error per
/// damaged bundle or entry that was left out (each naming its offset, or its entry).
#[derive(Debug)]
pub struct Salvaged<T> {
    pub kept: Vec<T>,
    pub damaged: Vec<LoadError>,
}

/// As [`extract_file`], but a damaged bundle of a fat binary is left out and recorded in
/// [`Salvaged::damaged`], and reading goes on at the next bundle after it. Still an error when
/// nothing usable is left (then the first damage is the error) or the container itself is
/// unreadable. Callers must say that the result is incomplete.
pub fn extract_file_salvaged<'a>(
    file_name: &str,
    bytes: &'a [u8],
) -> Result<Salvaged<ElfImage<'a>>, LoadError> {
    let mut damaged = Vec::new();
    let kept = extract_with(file_name, bytes, bundle::Tail::Exact, Some(&mut damaged));
    match kept {
        Ok(kept) => Ok(Salvaged { kept, damaged }),
        Err(e) if damaged.is_empty() => Err(e),
        Err(_) => Err(damaged.remove(0)),
    }
}

fn extract_with<'a>(
    file_name: &str,
    bytes: &'a [u8],
    tail: bundle::Tail,
    mut damaged: Option<&mut Vec<LoadError>>,
) -> Result<Vec<ElfImage<'a>>, LoadError> {
    let fail = |kind| LoadError::new(file_name, kind);
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(fail(LoadErrorKind::TooLarge {
            size: bytes.len() as u64,
            limit: MAX_FILE_SIZE,
        }));
    }
    let entries = if bytes.starts_with(&object::elf::ELFMAG) {
        match elf_machine(bytes) {
            Some(object::elf::EM_AMDGPU) | None => {
                return Ok(vec![ElfImage {
                    file: file_name.to_string(),
                    label: None,
                    bundle_offset: None,
                    bytes: Cow::Borrowed(bytes),
                }]);
            }
            Some(machine) => {
                let (offset, fatbin) = hip_fatbin(bytes)
                    .map_err(fail)?
                    .ok_or_else(|| fail(LoadErrorKind::NoFatbin { machine }))?;
                // The section's bounds are known: it holds bundles and padding only.
                read_bundles(file_name, fatbin, offset, bundle::Tail::Exact, &mut damaged)?
            }
        }
    } else if bytes.starts_with(bundle::BUNDLE_MAGIC) || bytes.starts_with(compressed::MAGIC) {
        read_bundles(file_name, bytes, 0, tail, &mut damaged)?
    } else {
        return Err(fail(elf::unknown_format(bytes)));
    };
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for entry in entries {
        if !entry.is_amdgcn() || entry.bytes.is_empty() {
            skipped.push(entry.id);
            continue;
        }
        out.push(ElfImage {
            // Two bundles in one .hip_fatbin have entries with the same id; the offset tells
            // them apart.
            file: format!("{file_name}:{}@{:#x}", entry.id, entry.offset),
            label: Some(entry.id),
            bundle_offset: Some(entry.offset),
            bytes: entry.bytes,
        });
    }
    if out.is_empty() {
        let detail = if skipped.is_empty() {
            String::new()
        } else {
            format!(" (bundle entries: {})", skipped.join(", "))
        };
        return Err(fail(LoadErrorKind::NoCodeObjects(detail)));
    }
    Ok(out)
}

/// [`bundle::read_all`], with damaged bundles going to `damaged` as errors about `file_name`
/// when it is given.
fn read_bundles<'a>(
    file_name: &str,
    data: &'a [u8],
    offset: u64,
    tail: bundle::Tail,
    damaged: &mut Option<&mut Vec<LoadError>>,
) -> Result<Vec<bundle::Entry<'a>>, LoadError> {
    let fail = |kind| LoadError::new(file_name, kind);
    match damaged {
        Some(list) => {
            let mut kinds = Vec::new();
            let entries = bundle::read_all(data, offset, tail, Some(&mut kinds)).map_err(fail)?;
            list.extend(kinds.into_iter().map(fail));
            Ok(entries)
        }
        None => bundle::read_all(data, offset, tail, None).map_err(fail),
    }
}

/// Every AMDGPU code object in `bytes` (the contents of the file called `file_name`), parsed:
/// one for a code object or relocatable object, one per AMDGPU bundle entry of a fat binary,
/// labelled with its entry id (see [`extract`]).
pub fn load(file_name: &str, bytes: &[u8]) -> Result<Vec<CodeObject>, LoadError> {
    extract_file(file_name, bytes)?
        .into_iter()
        .map(parse_image)
        .collect()
}

/// As [`load`], but a damaged bundle, or a bundle entry that is not a valid code object, is
/// left out and recorded (see [`extract_file_salvaged`]). A plain code object that does not
/// parse is still an error, as is a fat binary with nothing usable left.
pub fn load_salvaged(file_name: &str, bytes: &[u8]) -> Result<Salvaged<CodeObject>, LoadError> {
    let Salvaged {
        kept: images,
        mut damaged,
    } = extract_file_salvaged(file_name, bytes)?;
    let mut kept = Vec::new();
    for image in images {
        let in_bundle = image.label.is_some();
        match parse_image(image) {
            Ok(object) => kept.push(object),
            Err(e) if in_bundle => damaged.push(e),
            Err(e) => return Err(e),
        }
    }
    if kept.is_empty() {
        return Err(damaged.remove(0));
    }
    Ok(Salvaged { kept, damaged })
}

/// Parses one extracted ELF; an entry whose id names another processor than its ELF header,
/// or another xnack or sramecc setting where both name one, is a broken bundle.
fn parse_image(image: ElfImage) -> Result<CodeObject, LoadError> {
    let id_target = image
        .label
        .as_deref()
        .and_then(bundle::target_id)
        .and_then(TargetId::parse);
    let mut code_object = CodeObject::parse(
        &image.file,
        image.label.as_deref(),
        image.bytes.into_owned(),
    )?;
    code_object.bundle_offset = image.bundle_offset;
    // Runtimes select by entry id: code for another processor or setting is a broken bundle.
    match id_target {
        Some(id) if id.specificity_for(&code_object.target).is_none() => Err(LoadError::new(
            image.file,
            LoadErrorKind::Bundle {
                offset: image.bundle_offset.unwrap_or(0),
                problem: format!(
                    "entry id names {id} but the ELF header says {}",
                    code_object.target
                ),
            },
        )),
        _ => Ok(code_object),
    }
}

/// Reads `path` and [`load`]s it, naming it as given.
pub fn load_file(path: &std::path::Path) -> Result<Vec<CodeObject>, LoadError> {
    let bytes = read_file(path)?;
    load(&path.display().to_string(), &bytes)
}

/// Every code object whose target runs on `device` (e.g. `gfx900`, `gfx906:sramecc+`); [`pick`]
/// chooses the one a device runs.
pub fn select<'a>(objects: &'a [CodeObject], device: &TargetId) -> Vec<&'a CodeObject> {
    objects
        .iter()
        .filter(|c| c.target.runs_on(device))
        .collect()
}

/// e_machine of an ELF file of either class and byte order; `None` if the header is too short
/// (the AMDGPU parser then reports what is wrong).
fn elf_machine(bytes: &[u8]) -> Option<u16> {
    let raw = bytes.get(18..20)?;
    match bytes.get(5) {
        Some(&object::elf::ELFDATA2MSB) => Some(u16::from_be_bytes([raw[0], raw[1]])),
        _ => Some(u16::from_le_bytes([raw[0], raw[1]])),
    }
}

/// The `.hip_fatbin` section's file offset and bytes, if the host ELF has one.
fn hip_fatbin(bytes: &[u8]) -> Result<Option<(u64, &[u8])>, LoadErrorKind> {
    let malformed = |e: object::Error| LoadErrorKind::Malformed(format!("host ELF: {e}"));
    match bytes.get(4) {
        Some(&object::elf::ELFCLASS32) => {
            fatbin_section(&ElfFile32::<Endianness>::parse(bytes).map_err(malformed)?)
        }
        _ => fatbin_section(&ElfFile64::<Endianness>::parse(bytes).map_err(malformed)?),
    }
    .map_err(malformed)
}

fn fatbin_section<'data, F: FileHeader<Endian = Endianness>>(
    file: &ElfFile<'data, F>,
) -> Result<Option<(u64, &'data [u8])>, object::Error> {
    let Some(section) = file.section_by_name(HIP_FATBIN_SECTION) else {
        return Ok(None);
    };
    let offset = section.file_range().map_or(0, |(offset, _)| offset);
    Ok(Some((offset, section.data()?)))
}
