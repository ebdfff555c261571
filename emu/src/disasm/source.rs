//! `gcnemu disasm --source`: the source lines of the code, from the code object's DWARF line
//! table, interleaved with the instructions as `llvm-objdump -S` does: before the first
//! instruction of each new line, `; file:line` and the line's text (when the file can be read).

use gcn_loader::LineTable;
use std::collections::HashMap;

pub struct SourceLines<'a> {
    table: &'a LineTable,
    /// Each source file's lines, or `None` when it cannot be read.
    files: HashMap<String, Option<Vec<String>>>,
    last: Option<String>,
}

impl<'a> SourceLines<'a> {
    pub fn new(table: &'a LineTable) -> SourceLines<'a> {
        SourceLines {
            table,
            files: HashMap::new(),
            last: None,
        }
    }

    /// Prints the source line of the instruction at `address` if it differs from the last one.
    pub fn before(&mut self, address: u64, out: &mut String) {
        let Some(at) = self.table.line(address) else {
            return;
        };
        if self.last.as_deref() == Some(at.as_str()) {
            return;
        }
        out.push_str(&format!("; {at}\n"));
        if let Some((file, line)) = at.rsplit_once(':') {
            let text = self.files.entry(file.to_string()).or_insert_with(|| {
                std::fs::read_to_string(file)
                    .ok()
                    .map(|t| t.lines().map(str::to_string).collect())
            });
            let line = line.parse::<usize>().ok().and_then(|n| n.checked_sub(1));
            if let (Some(lines), Some(n)) = (text, line) {
                if let Some(l) = lines.get(n) {
                    out.push_str(&format!(";   {}\n", l.trim_end()));
                }
            }
        }
        self.last = Some(at);
    }
}
