//! `gcnemu disasm`: an AMDGPU ELF file in llvm-objdump-15's `-d` layout.
//!
//! The walk follows `disassembleObject` in llvm-objdump: each executable section is cut at its
//! symbols (the last of several symbols at one address names the block); data symbols are
//! dumped as bytes; runs of 8+ zero bytes fold into `...`; words that do not decode print as
//! `.long`; branch targets are annotated with the nearest preceding symbol.

mod cache;
mod line;
mod source;
mod symbols;

use cache::LineCache;
use gcn_isa::{Format, Inst, Target};
use gcn_loader::{mach_name, ElfObject, Section};
use std::fmt::Write as _;
use std::io;
use symbols::{SymbolInfo, SymbolTables};

const STT_OBJECT: u8 = 1;
const STT_COMMON: u8 = 5;
const STT_AMDGPU_HSA_KERNEL: u8 = 10;
/// A code object v2 kernel starts with its 256-byte `amd_kernel_code_t`.
const AMD_KERNEL_CODE_T_SIZE: u64 = 256;

/// What to disassemble.
pub struct Options<'a> {
    pub target: Target,
    /// Only the block of the symbol with this name (llvm-objdump's `--disassemble-symbols`).
    pub symbol: Option<&'a str>,
    /// Interleave the source lines of this line table (`--source`).
    pub lines: Option<&'a gcn_loader::LineTable>,
}

/// What stopped a listing: a problem with the input (a message naming the file, given before
/// anything was written) or a failed write.
#[derive(Debug)]
pub enum Error {
    Input(String),
    Output(io::Error),
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Output(e)
    }
}

/// The listing of every code object in a file's `bytes`: a code object or relocatable object
/// (exactly llvm-objdump's listing), or each AMDGPU entry of an offload bundle or of a host
/// binary's `.hip_fatbin`, one after the other, each under its own `<file>:<entry id>@<offset>:`
/// header. `target` overrides the ELF's processor for a plain ELF and picks the entries for that
/// processor in a fat binary; without it, entries for processors the decoder does not know are
/// left out (`Listing::skipped`). `symbol` limits the listing to one function or kernel; `source`
/// interleaves the source lines of code objects that have a DWARF line table. `Err` is a
/// message naming the file.
pub fn disassemble_file(
    file: &str,
    bytes: &[u8],
    target: Option<Target>,
    symbol: Option<&str>,
    source: bool,
) -> Result<Listing, String> {
    let images = gcn_loader::extract_file(file, bytes).map_err(|e| e.to_string())?;
    let mut text = Vec::new();
    let mut listing =
        write_images(file, images, target, symbol, source, &mut text).map_err(|e| match e {
            Error::Input(message) => message,
            Error::Output(e) => e.to_string(),
        })?;
    if let Some(e) = listing.damaged.first() {
        return Err(e.to_string());
    }
    listing.text = String::from_utf8_lossy(&text).into_owned();
    Ok(listing)
}

/// As [`disassemble_file`] for the ELF images extracted from `file`, written to `sink` as it is
/// made (the returned [`Listing::text`] is empty); a bundle entry that is not an ELF file is
/// left out and named in [`Listing::damaged`] (a plain ELF file that is not is the error).
/// Every input error is found before the first byte is written, so an `Error::Input` leaves
/// `sink` untouched.
pub fn write_images(
    file: &str,
    images: Vec<gcn_loader::ElfImage>,
    target: Option<Target>,
    symbol: Option<&str>,
    source: bool,
    sink: &mut dyn io::Write,
) -> Result<Listing, Error> {
    let line_table =
        |image: &gcn_loader::ElfImage<'_>| -> Result<Option<gcn_loader::LineTable>, Error> {
            if !source {
                return Ok(None);
            }
            gcn_loader::LineTable::parse(&image.file, &image.bytes)
                .map_err(|e| Error::Input(e.to_string()))
        };
    let mut out = Out::new(sink);
    // Shared by the code objects of one target, which share much of their code too.
    let mut cache = None;
    let mut listing = Listing {
        text: String::new(),
        skipped: Vec::new(),
        damaged: Vec::new(),
    };
    if let [image] = &images[..] {
        if image.label.is_none() {
            let input = |e: gcn_loader::LoadError| Error::Input(e.to_string());
            let obj = ElfObject::parse(&image.file, &image.bytes).map_err(input)?;
            let target = match target {
                Some(target) => target,
                None => obj.target().map_err(input)?,
            };
            let lines = line_table(image)?;
            let options = Options {
                target,
                symbol,
                lines: lines.as_ref(),
            };
            disassemble(&obj, &options, &mut out, &mut cache).map_err(|e| match e {
                Error::Input(why) => Error::Input(format!("{file}: {why}")),
                e => e,
            })?;
            out.flush()?;
            return Ok(listing);
        }
    }
    // Everything that can fail is settled for all entries before any is written, so that an
    // error leaves no partial listing behind.
    let mut jobs = Vec::new();
    let mut processors = Vec::new();
    for image in &images {
        let obj = match ElfObject::parse(&image.file, &image.bytes) {
            Ok(obj) => obj,
            Err(e) => {
                listing.damaged.push(e);
                continue;
            }
        };
        let own = mach_name(obj.mach()).unwrap_or("unknown");
        if !processors.contains(&own) {
            processors.push(own);
        }
        let decode_for = match target {
            Some(wanted) if wanted.name() != own => continue,
            Some(wanted) => wanted,
            None => match obj.target() {
                Ok(t) => t,
                Err(e) => {
                    listing.skipped.push(e.to_string());
                    continue;
                }
            },
        };
        let lines = line_table(image)?;
        jobs.push((obj, decode_for, lines));
    }
    let mut listed = 0;
    for (obj, target, lines) in &jobs {
        let options = Options {
            target: *target,
            symbol,
            lines: lines.as_ref(),
        };
        // With one symbol asked for, code objects without it are passed over.
        match disassemble(obj, &options, &mut out, &mut cache) {
            Ok(()) => listed += 1,
            Err(Error::Input(_)) => {}
            Err(e) => return Err(e),
        }
    }
    if listed == 0 && processors.is_empty() {
        if let Some(e) = listing.damaged.first() {
            return Err(Error::Input(e.to_string()));
        }
    }
    if listed == 0 {
        let mut why = match (target, symbol) {
            (Some(t), _) if !processors.contains(&t.name()) => format!("no code object for {t}"),
            (_, Some(name)) => {
                format!("no code object has a symbol named {name} in a code section")
            }
            _ => "no code object for a supported processor".to_string(),
        };
        why.push_str(&format!(" (it has: {})", processors.join(", ")));
        return Err(Error::Input(format!("{file}: {why}")));
    }
    out.flush()?;
    Ok(listing)
}

/// What [`disassemble_file`] printed and left out.
pub struct Listing {
    /// The listing ([`disassemble_file`]; empty from [`write_images`], which wrote it).
    pub text: String,
    /// One line per code object left out because the decoder does not support its processor.
    pub skipped: Vec<String>,
    /// Bundle entries left out because they are not valid ELF files.
    pub damaged: Vec<gcn_loader::LoadError>,
}

/// Where the listing goes: lines are formatted into `buf`, which is handed to `sink` each time
/// it passes [`Out::FLUSH_AT`] bytes, so a listing of any length costs one small buffer that
/// stays in cache (rather than one string as long as the listing).
struct Out<'w> {
    buf: String,
    sink: &'w mut dyn io::Write,
}

impl<'w> Out<'w> {
    const FLUSH_AT: usize = 128 * 1024;

    fn new(sink: &'w mut dyn io::Write) -> Out<'w> {
        Out {
            buf: String::with_capacity(Out::FLUSH_AT + 4096),
            sink,
        }
    }

    /// Called between lines: writes out what has piled up once there is enough of it (whole
    /// lines, so a line-buffered sink passes it straight through).
    fn line_done(&mut self) -> io::Result<()> {
        if self.buf.len() >= Out::FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.write_all(self.buf.as_bytes())?;
        self.buf.clear();
        Ok(())
    }
}

/// Writes the listing of `obj` to `out`; `Error::Input` (before anything is written) names a
/// requested symbol that no code section holds.
fn disassemble(
    obj: &ElfObject,
    options: &Options,
    out: &mut Out,
    cache: &mut Option<LineCache>,
) -> Result<(), Error> {
    let mut tables = SymbolTables::new(obj);
    let code_sections = || obj.code_sections().filter(|s| s.size > 0);
    if let Some(name) = options.symbol {
        if !code_sections().any(|s| tables.code_section_has(s.index, s.address, &s.name, name)) {
            return Err(Error::Input(format!(
                "no symbol named {name} in a code section"
            )));
        }
    }
    out.buf
        .push_str(&format!("\n{}:\tfile format elf64-amdgpu\n", obj.file));
    let cache = match cache {
        Some(cache) if cache.target() == options.target => cache,
        _ => cache.insert(LineCache::new(options.target)),
    };
    let mut source = options.lines.map(source::SourceLines::new);
    for section in code_sections() {
        let symbols = tables
            .code_section_symbols(section.index, section.address, &section.name)
            .to_vec();
        let mut walk = SectionWalk {
            section,
            tables: &tables,
            options,
            out: &mut *out,
            cache: &mut *cache,
            source: source.as_mut(),
        };
        walk.blocks(&symbols)?;
    }
    Ok(())
}

struct SectionWalk<'a, 'o, 'w, 's> {
    section: &'a Section<'a>,
    tables: &'a SymbolTables,
    options: &'a Options<'a>,
    out: &'o mut Out<'w>,
    cache: &'o mut LineCache,
    source: Option<&'o mut source::SourceLines<'s>>,
}

impl SectionWalk<'_, '_, '_, '_> {
    fn blocks(&mut self, symbols: &[SymbolInfo]) -> io::Result<()> {
        let section_end = self.section.address.saturating_add(self.section.size);
        let mut printed_header = false;
        for (i, symbol) in symbols.iter().enumerate() {
            if self.options.symbol.is_some_and(|name| name != symbol.name) {
                continue;
            }
            let start = symbol.address;
            if start < self.section.address {
                continue;
            }
            let end = symbols
                .get(i + 1)
                .map_or(section_end, |next| next.address.min(section_end));
            if start >= end {
                continue;
            }
            let buf = &mut self.out.buf;
            if !printed_header {
                printed_header = true;
                let _ = write!(buf, "\nDisassembly of section {}:\n", self.section.name);
            }
            let _ = write!(buf, "\n{start:016x} <{}>:\n", symbol.name);
            let base = self.section.address;
            self.block(symbol, start - base, end - base)?;
        }
        Ok(())
    }

    /// One symbol's bytes, `start..end` as section offsets.
    fn block(&mut self, symbol: &SymbolInfo, mut start: u64, end: u64) -> io::Result<()> {
        let bytes = self.section.data;
        if symbol.st_type == STT_AMDGPU_HSA_KERNEL {
            self.kernel_code_header(&symbol.name);
            start += AMD_KERNEL_CODE_T_SIZE;
        }
        if matches!(symbol.st_type, STT_OBJECT | STT_COMMON) {
            let data = slice(bytes, start, end);
            line::data(&mut self.out.buf, self.section.address + start, data);
            return self.out.line_done();
        }
        let mut index = start;
        while index < end {
            let zeros = line::skippable_zero_bytes(slice(bytes, index, end));
            if zeros > 0 {
                self.out.buf.push_str("\t\t...\n");
                index += zeros as u64;
                continue;
            }
            // Like llvm-objdump, decode from the rest of the section, not just this block.
            let rest = slice(bytes, index, bytes.len() as u64);
            if rest.is_empty() {
                break;
            }
            index += self.instruction(rest, self.section.address + index) as u64;
            self.out.line_done()?;
        }
        Ok(())
    }

    /// Prints the instruction at the start of `rest` and returns its size in bytes.
    fn instruction(&mut self, rest: &[u8], address: u64) -> usize {
        let out = &mut self.out.buf;
        if let Some(s) = self.source.as_deref_mut() {
            s.before(address, out);
        }
        let Some(entry) = self.cache.get(rest) else {
            let size = rest.len().min(4);
            line::undecodable(out, address, &rest[..size]);
            out.push('\n');
            return size;
        };
        let size = entry.len();
        let target = entry.branch_target(address);
        if let Some(target) = target {
            if let Some(name) = self.tables.symbolized_branch(self.section.index, target) {
                // The symbol takes the place of the operand, which changes the padding too.
                let start = out.len();
                out.push('\t');
                out.push_str(&replace_last_operand(self.cache.text(&entry), name));
                line::finish_instruction(out, start, address, &rest[..size]);
                out.push('\n');
                return size;
            }
        }
        out.push_str(self.cache.head(&entry));
        line::push_hex(out, address, 12);
        out.push_str(self.cache.tail(&entry));
        if let Some(target) = target.filter(|_| entry.annotated()) {
            self.tables
                .write_target_annotation(out, self.section.index, target);
        }
        out.push('\n');
        size
    }

    /// llvm-objdump's report for a code object v2 kernel header, which it does not decode. It
    /// prints the first 256 bytes of the section (not of the symbol), as LLVM 15 does.
    fn kernel_code_header(&mut self, name: &str) {
        let out = &mut self.out.buf;
        let _ = writeln!(
            out,
            "// Error in decoding {name} : Decoding failed region as bytes."
        );
        for b in self
            .section
            .data
            .iter()
            .take(AMD_KERNEL_CODE_T_SIZE as usize)
        {
            let _ = writeln!(out, "\t.byte\t {b:#X}");
        }
    }
}

fn slice(bytes: &[u8], start: u64, end: u64) -> &[u8] {
    let end = (end.min(bytes.len() as u64)) as usize;
    let start = (start as usize).min(end);
    &bytes[start..end]
}

/// llvm-objdump annotates a target only when the instruction's first operand is the PC-relative
/// one: `s_branch` and the `s_cbranch_<cond>` family (the SOPP branches), not `s_call_b64` or
/// the fork/join ops.
fn annotates_branch_target(inst: &Inst) -> bool {
    inst.format() == Format::Sopp
}

/// `s_branch 65535` with the operand replaced by a symbol name: `s_branch lbl`.
fn replace_last_operand(text: &str, name: &str) -> String {
    match text.rfind(' ') {
        Some(i) => format!("{}{name}", &text[..=i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sopp_branches_get_target_annotations() {
        let annotates = |text: &str| {
            annotates_branch_target(&gcn_isa::assemble_inst(text, Target::Gfx900).unwrap())
        };
        assert!(annotates("s_branch 3"));
        assert!(annotates("s_cbranch_execz 65524"));
        assert!(!annotates("s_call_b64 s[0:1], 2"));
        assert!(!annotates("s_cbranch_i_fork s[0:1], 3"));
        assert!(!annotates("s_cbranch_join s0"));
    }

    #[test]
    fn symbolized_operand_replaces_the_immediate() {
        assert_eq!(
            replace_last_operand("s_branch 65534", "lbl2"),
            "s_branch lbl2"
        );
        assert_eq!(
            replace_last_operand("s_call_b64 s[0:1], 2", "f"),
            "s_call_b64 s[0:1], f"
        );
    }
}
