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
        let by_section = obj
            .sections
            .iter()
            .map(|sec| {
                (
                    sec.index,
                    obj.section_symbols(sec.index).iter().map(info).collect(),
                )
            })
            .collect();
        let mut section_addresses: Vec<_> = obj
            .sections
            .iter()
            .map(|s| (s.address, s.size, s.index))
            .collect();
        section_addresses.sort_by_key(|&(address, size, _)| (address, size));
        SymbolTables {
            by_section,
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
        let symbols = self.by_section.get(&index)?;
        symbols
            .iter()
            .find(|s| s.address == target && s.st_type == STT_NOTYPE)
            .map(|s| s.name.as_str())
    }

    /// ` <name+0xdisp>` for a branch to `target` from code section `index`, or `None` when no
    /// symbol precedes the target.
    pub fn target_annotation(&self, index: usize, target: u64) -> Option<String> {
        let mut candidates: Vec<&[SymbolInfo]> = Vec::new();
        if self.relocatable {
            candidates.push(self.section_list(index));
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
                candidates.push(self.section_list(sec));
            }
        }
        candidates.push(&self.absolute);
        let symbol = candidates.iter().find_map(|list| {
            let end = list.partition_point(|s| s.address <= target);
            end.checked_sub(1).map(|i| &list[i])
        })?;
        let displacement = target.wrapping_sub(symbol.address);
        Some(if displacement == 0 {
            format!(" <{}>", symbol.name)
        } else {
            format!(" <{}+{displacement:#x}>", symbol.name)
        })
    }

    fn section_list(&self, index: usize) -> &[SymbolInfo] {
        self.by_section.get(&index).map_or(&[], Vec::as_slice)
    }
}
