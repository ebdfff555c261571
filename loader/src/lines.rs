//! Source lines of a code object's instructions, from its DWARF line table (`hipcc -g`): the
//! rows of every line program in `.debug_line`, sorted by address, so that any address of the
//! code maps to the `file:line` whose row covers it.

use crate::error::{LoadError, LoadErrorKind};
use object::{Object, ObjectSection};
use std::borrow::Cow;

/// One row: code from `address` on (up to the next row) comes from `line` of `files[file]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    address: u64,
    file: u32,
    line: u32,
    /// The row ends a sequence: the address past its last instruction, mapping to nothing.
    end: bool,
}

/// Address → source line, for one code object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable {
    rows: Vec<Row>,
    files: Vec<String>,
}

impl LineTable {
    /// The line table of an ELF code object; `None` when it has no `.debug_line`.
    pub fn parse(file: &str, data: &[u8]) -> Result<Option<LineTable>, LoadError> {
        let fail = |why: String| LoadError::new(file, LoadErrorKind::Malformed(why));
        let elf = object::File::parse(data).map_err(|e| fail(e.to_string()))?;
        if elf.section_by_name(".debug_line").is_none() {
            return Ok(None);
        }
        let load = |id: gimli::SectionId| -> Result<Cow<[u8]>, gimli::Error> {
            Ok(match elf.section_by_name(id.name()) {
                Some(s) => s.uncompressed_data().unwrap_or(Cow::Borrowed(&[])),
                None => Cow::Borrowed(&[]),
            })
        };
        let sections = gimli::DwarfSections::load(load).map_err(|e| fail(format!("DWARF: {e}")))?;
        let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::LittleEndian));
        let dwarf_error = |e: gimli::Error| fail(format!("DWARF line table: {e}"));
        let mut table = LineTable::default();
        let mut units = dwarf.units();
        while let Some(header) = units.next().map_err(dwarf_error)? {
            let unit = dwarf.unit(header).map_err(dwarf_error)?;
            let Some(program) = unit.line_program.clone() else {
                continue;
            };
            let mut names: Vec<Option<u32>> = Vec::new();
            let mut rows = program.rows();
            while let Some((header, row)) = rows.next_row().map_err(dwarf_error)? {
                let index = row.file_index() as usize;
                if names.len() <= index {
                    names.resize(index + 1, None);
                }
                let file_id = match names[index] {
                    Some(id) => id,
                    None => {
                        let name = match row.file(header) {
                            Some(f) => file_name(&dwarf, &unit, header, f),
                            None => "<unknown>".to_string(),
                        };
                        let id = match table.files.iter().position(|n| *n == name) {
                            Some(i) => i as u32,
                            None => {
                                table.files.push(name);
                                table.files.len() as u32 - 1
                            }
                        };
                        names[index] = Some(id);
                        id
                    }
                };
                table.rows.push(Row {
                    address: row.address(),
                    file: file_id,
                    line: row.line().map_or(0, |l| l.get() as u32),
                    end: row.end_sequence(),
                });
            }
        }
        // Stable: within one address the later row (what the program ends up at) wins below.
        table.rows.sort_by_key(|r| r.address);
        Ok(Some(table))
    }

    /// `file:line` of the instruction at `address` (an ELF virtual address), if a row covers
    /// it with a line.
    pub fn line(&self, address: u64) -> Option<String> {
        let i = self.rows.partition_point(|r| r.address <= address);
        let row = self.rows.get(i.checked_sub(1)?)?;
        if row.end || row.line == 0 {
            return None;
        }
        let file = self.files.get(row.file as usize)?;
        Some(format!("{file}:{}", row.line))
    }

    /// The source line numbers covered by `[start, end)`, in address order, with their file.
    pub fn lines_in(&self, start: u64, end: u64) -> Vec<(String, u32)> {
        let from = self.rows.partition_point(|r| r.address < start);
        self.rows[from..]
            .iter()
            .take_while(|r| r.address < end)
            .filter(|r| !r.end && r.line != 0)
            .filter_map(|r| Some((self.files.get(r.file as usize)?.clone(), r.line)))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Where the code at `address` sits in the function that was compiled, through every call the
/// compiler inlined: the line of the outermost frame (for a host call of `hipMalloc` through
/// HIP's inline template wrapper, the caller's line, not the header's). `None` without DWARF.
pub fn outer_line(data: &[u8], address: u64) -> Option<String> {
    let elf = object::File::parse(data).ok()?;
    let load = |id: gimli::SectionId| -> Result<Cow<[u8]>, gimli::Error> {
        Ok(match elf.section_by_name(id.name()) {
            Some(s) => s.uncompressed_data().unwrap_or(Cow::Borrowed(&[])),
            None => Cow::Borrowed(&[]),
        })
    };
    let sections = gimli::DwarfSections::load(load).ok()?;
    let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::LittleEndian));
    let context = addr2line::Context::from_dwarf(dwarf).ok()?;
    let mut frames = context.find_frames(address).skip_all_loads().ok()?;
    let mut outer = None;
    while let Ok(Some(frame)) = frames.next() {
        if let Some(l) = frame.location {
            if let (Some(file), Some(line)) = (l.file, l.line) {
                outer = Some(format!("{file}:{line}"));
            }
        }
    }
    outer
}

/// The path of a line-program file entry: its directory joined with its name unless the name
/// is absolute.
fn file_name<R: gimli::Reader>(
    dwarf: &gimli::Dwarf<R>,
    unit: &gimli::Unit<R>,
    header: &gimli::LineProgramHeader<R>,
    file: &gimli::FileEntry<R>,
) -> String {
    let text = |v: gimli::AttributeValue<R>| -> Option<String> {
        let s = dwarf.attr_string(unit, v).ok()?;
        Some(s.to_string_lossy().ok()?.into_owned())
    };
    let name = text(file.path_name()).unwrap_or_else(|| "<unknown>".into());
    if name.starts_with('/') {
        return name;
    }
    match file.directory(header).and_then(text) {
        Some(dir) if !dir.is_empty() => format!("{}/{name}", dir.trim_end_matches('/')),
        _ => name,
    }
}
