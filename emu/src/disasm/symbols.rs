//! Symbol tables as llvm-objdump-15 builds them for `-d`: per-section lists (with a dummy
//! `<section>` symbol added when a code section does not start with one), and the lookup that
//! names a branch target (`<name+0xoffset>`).

use gcn_loader::ElfObject;
use std::collections::HashMap;

/// STT_NOTYPE: the only symbols the AMDGPU symbolizer substitutes for a branch operand.
const STT_NOTYPE: u8 = 0;
/// The dummy section symbol of a code section has type STT_FUNC.
const STT_FUNC: u8 = 2;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolInfo {
    pub address: u64,
    pub name: String,
    pub st_type: u8,
}

/// All symbols, by ELF section index, plus those in no section.
pub struct SymbolTables {
    by_section: HashMap<usize, Vec<SymbolInfo>>,
    /// (section, address) to the name of the first STT_NOTYPE symbol there, in list order.
    notype_at: HashMap<(usize, u64), String>,
    absolute: Vec<SymbolInfo>,
    /// (address, size, ELF index) of every section, sorted by address then size.
    section_addresses: Vec<(u64, u64, usize)>,
    relocatable: bool,
}

impl SymbolTables {
    pub fn new(obj: &ElfObject) -> SymbolTables {
        let info = |s: &&gcn_loader::Symbol| SymbolInfo {
            address: s.address,
            name: s.name.clone(),
            st_type: s.st_type,
        };
        let by_section: HashMap<usize, Vec<SymbolInfo>> = obj
            .sections
            .iter()
            .map(|sec| {
                (
                    sec.index,
                    obj.section_symbols(sec.index).iter().map(info).collect(),
                )
            })
            .collect();
        let mut notype_at = HashMap::new();
        for (&index, symbols) in &by_section {
            for s in symbols.iter().filter(|s| s.st_type == STT_NOTYPE) {
                notype_at
                    .entry((index, s.address))
                    .or_insert_with(|| s.name.clone());
            }
        }
        let mut section_addresses: Vec<_> = obj
            .sections
            .iter()
            .map(|s| (s.address, s.size, s.index))
            .collect();
        section_addresses.sort_by_key(|&(address, size, _)| (address, size));
        SymbolTables {
            by_section,
            notype_at,
            absolute: obj.absolute_symbols().iter().map(info).collect(),
            section_addresses,
            relocatable: obj.relocatable,
        }
    }

    /// The symbols of a code section as the disassembly walks them. llvm-objdump adds a dummy
    /// symbol named after the section when the first symbol's value is not 0 (it compares with
    /// 0, not with the section address); the dummy stays visible to later target look-ups.
    pub fn code_section_symbols(
        &mut self,
        index: usize,
        address: u64,
        name: &str,
    ) -> &[SymbolInfo] {
        let needs_dummy = self.needs_dummy(index);
        let symbols = self.by_section.entry(index).or_default();
        if needs_dummy {
            let dummy = SymbolInfo {
                address,
                name: name.to_string(),
                st_type: STT_FUNC,
            };
            symbols.insert(0, dummy);
        }
        symbols
    }

    /// Does [`Self::code_section_symbols`] add a dummy symbol to section `index`?
    fn needs_dummy(&self, index: usize) -> bool {
        self.section_list(index)
            .first()
            .is_none_or(|s| s.address != 0)
    }

    /// Does the walk of the code section `index` at `address` come to a block named `wanted`
    /// (a symbol, or the dummy, at or after the section's start)? Asked before the walk, so
    /// that a listing limited to a symbol that is not there prints nothing.
    pub fn code_section_has(&self, index: usize, address: u64, name: &str, wanted: &str) -> bool {
        (self.needs_dummy(index) && name == wanted)
            || self
                .section_list(index)
                .iter()
                .any(|s| s.name == wanted && s.address >= address)
    }

    /// The STT_NOTYPE symbol of section `index` exactly at `target`, which the AMDGPU symbolizer
    /// prints in place of the branch operand (and then no `<...>` annotation follows).
    pub fn symbolized_branch(&self, index: usize, target: u64) -> Option<&str> {
        self.notype_at.get(&(index, target)).map(String::as_str)
    }

    /// Appends ` <name+0xdisp>` for a branch to `target` from code section `index`, or nothing
    /// when no symbol precedes the target.
    pub fn write_target_annotation(&self, out: &mut String, index: usize, target: u64) {
        use std::fmt::Write as _;
        let Some(symbol) = self.nearest_symbol(index, target) else {
            return;
        };
        let displacement = target.wrapping_sub(symbol.address);
        let _ = if displacement == 0 {
            write!(out, " <{}>", symbol.name)
        } else {
            write!(out, " <{}+{displacement:#x}>", symbol.name)
        };
    }

    /// The symbol that names a branch target: the last one at or before `target` in the first
    /// of the candidate lists that has one.
    fn nearest_symbol(&self, index: usize, target: u64) -> Option<&SymbolInfo> {
        fn at_or_before(list: &[SymbolInfo], target: u64) -> Option<&SymbolInfo> {
            let end = list.partition_point(|s| s.address <= target);
            end.checked_sub(1).map(|i| &list[i])
        }
        if self.relocatable {
            if let Some(symbol) = at_or_before(self.section_list(index), target) {
                return Some(symbol);
            }
        } else {
            // Every section at the address of the last section starting at or before target
            // (llvm-objdump's loop keeps collecting while the address is 0, hence `first == 0`).
            let end = self
                .section_addresses
                .partition_point(|&(a, _, _)| a <= target);
            let mut first = None;
            for &(address, _, sec) in self.section_addresses[..end].iter().rev() {
                let first_address = *first.get_or_insert(address);
                if first_address != 0 && address != first_address {
                    break;
                }
                if let Some(symbol) = at_or_before(self.section_list(sec), target) {
                    return Some(symbol);
                }
            }
        }
        at_or_before(&self.absolute, target)
    }

    fn section_list(&self, index: usize) -> &[SymbolInfo] {
        self.by_section.get(&index).map_or(&[], Vec::as_slice)
    }
}
