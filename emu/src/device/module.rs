//! A code object in device memory ([`Module`]): loading it (placing its sections, applying its
//! dynamic relocations, decoding `.text`) and what launches ask of it, worked out once: hazard
//! models, whether a kernel is hazard-free, timing facts, source lines, symbols, compiled code.

use crate::cu::facts::InstTiming;
use crate::exec::compiled::{Compile, HotRegion};
use crate::exec::program::Program;
use crate::launch::hazards::{Cover, HazardTable};
use crate::memory::AllocKind;
use gcn_loader::{CodeObject, Kernel};
use std::sync::{Arc, OnceLock};

use super::{Device, Error};

/// The compiled code of a module's kernels, by entry, whether compiled at once, and whether
/// for the timing model's run-ahead (`None`: too large to compile).
type HotRegions = hashbrown::HashMap<(u32, bool, bool), Option<Arc<HotRegion>>>;

/// A code object placed in device memory, decoded and ready to launch.
pub struct Module {
    pub object: CodeObject,
    /// Device address the ELF's virtual address 0 maps to.
    pub load_base: u64,
    pub program: Program,
    /// XNACK replay allowed by the code object (on or any): gates the soft-clause rules.
    pub xnack: bool,
    /// Hazard models of `program`, built by the first launch that checks hazards.
    hazard_table: OnceLock<HazardTable>,
    /// The `.text` bytes and their device address, for the static hazard check.
    text: (u64, Vec<u8>),
    /// Per kernel entry: how much of its runs the hazard tracker checks ([`Module::hazard_cover`]).
    hazard_cover: std::sync::Mutex<hashbrown::HashMap<u64, Cover>>,
    timing_facts: OnceLock<Vec<InstTiming>>,
    /// The DWARF line table, read at the first question about a source line.
    lines: OnceLock<Option<gcn_loader::LineTable>>,
    /// Per kernel entry (instruction index), whether compiled at once, and whether for the
    /// run-ahead: its compiled code, shared by its launches.
    hot_regions: std::sync::Mutex<HotRegions>,
}

impl Drop for Module {
    /// Waits for the kernels being compiled in the background: they read `program`.
    fn drop(&mut self) {
        let regions = self
            .hot_regions
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for region in regions.values().flatten() {
            region.finish_compiling();
        }
    }
}

impl Module {
    /// The compiled code of the kernel entered at instruction `entry` ([`HotRegion`]) as
    /// `compile` asks, shared by its launches so that they count towards its compiling
    /// together; `None` for [`Compile::Never`].
    pub fn hot_region(&self, entry: u32, compile: Compile) -> Option<Arc<HotRegion>> {
        self.region_for(entry, compile, false, || {
            HotRegion::of(&self.program, entry, compile)
        })
    }

    /// As [`Module::hot_region`], the code the timing model's run-ahead runs
    /// ([`HotRegion::ahead`]): the kernel's pure instructions ([`InstTiming::pure`]), each with
    /// its code for the bulk turns ([`InstTiming::ahead_code`]).
    pub fn ahead_region(&self, entry: u32, compile: Compile) -> Option<Arc<HotRegion>> {
        self.region_for(entry, compile, true, || {
            let runs = self
                .timing_facts()
                .iter()
                .map(InstTiming::ahead_code)
                .collect();
            HotRegion::ahead(&self.program, entry, compile, runs)
        })
    }

    fn region_for(
        &self,
        entry: u32,
        compile: Compile,
        ahead: bool,
        make: impl FnOnce() -> Option<HotRegion>,
    ) -> Option<Arc<HotRegion>> {
        if compile == Compile::Never {
            return None;
        }
        let mut regions = self
            .hot_regions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        regions
            .entry((entry, compile == Compile::Always, ahead))
            .or_insert_with(|| make().map(Arc::new))
            .clone()
    }

    /// `file:line` of the instruction at device address `pc`, when the code object carries a
    /// DWARF line table (`hipcc -g`).
    pub fn source_line(&self, pc: u64) -> Option<String> {
        self.line_table()?.line(pc.checked_sub(self.load_base)?)
    }

    /// The code object's line table, if it has one (a damaged one counts as none, said once).
    pub fn line_table(&self) -> Option<&gcn_loader::LineTable> {
        self.lines
            .get_or_init(|| {
                match gcn_loader::LineTable::parse(&self.object.file, &self.object.bytes) {
                    Ok(t) => t,
                    Err(e) => {
                        tracing::warn!("no source lines: {e}");
                        None
                    }
                }
            })
            .as_ref()
    }

    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.object
            .kernels
            .iter()
            .find(|k| k.name == name || k.meta.as_ref().is_some_and(|m| m.name == name))
    }

    /// The device address and size of the global symbol `name` (a `__device__` variable, a
    /// kernel, its descriptor).
    pub fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        let elf = self.object.elf().ok()?;
        elf.symbols
            .iter()
            .find(|s| s.name == name && s.section.is_some())
            .map(|s| (self.load_base + s.address, s.size))
    }

    /// Names of opcodes in this module's code that have no semantics yet.
    pub fn unimplemented_ops(&self) -> &[&'static str] {
        &self.program.gaps
    }

    /// The hazard models of this module's code, built on first use.
    pub fn hazard_table(&self) -> &HazardTable {
        self.hazard_table
            .get_or_init(|| HazardTable::new(&self.program, self.xnack))
    }

    /// How much of kernel `k`'s runs the hazard tracker must check (worked out once per kernel
    /// from its control-flow graph, [`crate::launch::hazards::cover`]).
    pub fn hazard_cover(&self, k: &Kernel) -> Cover {
        let entry = self.load_base + k.entry;
        let mut cache = self.hazard_cover.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(entry)
            .or_insert_with(|| {
                let (base, bytes) = &self.text;
                let text_end = base + bytes.len() as u64;
                let end = k
                    .code_size
                    .map_or(text_end, |n| entry.saturating_add(n).min(text_end));
                if entry < *base || entry >= end {
                    return Cover::Full;
                }
                let graph =
                    crate::hazard::cfg::Graph::build(bytes, *base, entry, end, self.program.target);
                crate::launch::hazards::cover(&graph, self.hazard_table().enabled, &self.program)
            })
            .clone()
    }

    /// What each instruction means to the timing model, worked out at the first timed launch.
    pub fn timing_facts(&self) -> &[InstTiming] {
        self.timing_facts
            .get_or_init(|| crate::cu::facts::program_facts(&self.program))
    }
}

impl Device {
    /// Loads the code object for this device's target from `bytes` (a code object, offload
    /// bundle or host binary with `.hip_fatbin`), copies its sections into device memory and
    /// decodes its code.
    pub fn load(&mut self, file_name: &str, bytes: &[u8]) -> Result<Module, Error> {
        let objects = gcn_loader::load(file_name, bytes)?;
        self.load_objects(file_name, objects)
    }

    /// As [`Device::load`], from the code objects already read out of the file called
    /// `file_name` (say, what [`gcn_loader::load_salvaged`] kept of a damaged fat binary).
    pub fn load_objects(
        &mut self,
        file_name: &str,
        mut objects: Vec<CodeObject>,
    ) -> Result<Module, Error> {
        let target = self.config.target;
        // The loader's rule: this processor, its xnack setting, the most specific entry.
        let chosen = gcn_loader::pick(file_name, &objects, &self.config.target_id())?;
        let object = objects.swap_remove(chosen);
        let problem = |p: String| Error::Module {
            file: object.file.clone(),
            problem: p,
        };
        if object.relocatable {
            return Err(problem(
                "a relocatable object cannot run; link it first (ld.lld -shared)".into(),
            ));
        }
        let elf = object.elf()?;
        let end = elf
            .sections
            .iter()
            .filter(|s| s.address != 0 || s.executable)
            .map(|s| s.address.saturating_add(s.size))
            .max()
            .unwrap_or(0);
        if end > 1 << 32 {
            return Err(problem(format!("sections span {end:#x} bytes")));
        }
        let load_base = self.mem.alloc(end.max(4), AllocKind::CodeObject)?;
        let mut text: Option<(u64, Vec<u8>)> = None;
        for s in &elf.sections {
            if s.address == 0 && !s.executable {
                continue;
            }
            if !s.data.is_empty() && s.data.len() as u64 == s.size {
                self.mem.write(load_base + s.address, s.data)?;
            }
            if s.executable && s.name == ".text" {
                text = Some((s.address, s.data.to_vec()));
            }
        }
        for r in &elf.dynamic_relocations {
            self.relocate(load_base, end, r).map_err(problem)?;
        }
        let (text_addr, code) = text.ok_or_else(|| problem("no .text section".into()))?;
        // As the lint: e_flags bit 8 is XNACK "on" (v3) or "on"/"any" (v4+); v2 used bit 0.
        let xnack =
            object.target.xnack == Some(true) || (object.version >= 3 && elf.e_flags & 0x100 != 0);
        drop(elf);
        let program = Program::decode(&code, load_base + text_addr, target);
        Ok(Module {
            object,
            load_base,
            program,
            xnack,
            text: (load_base + text_addr, code),
            hazard_cover: Default::default(),
            hazard_table: OnceLock::new(),
            timing_facts: OnceLock::new(),
            lines: OnceLock::new(),
            hot_regions: Default::default(),
        })
    }

    /// Applies one dynamic relocation of a code object placed at `base` (`span` bytes), as
    /// ROCm's loader does: pointers in `.data` to other globals become device addresses.
    fn relocate(
        &mut self,
        base: u64,
        span: u64,
        r: &gcn_loader::DynamicRelocation,
    ) -> Result<(), String> {
        // R_AMDGPU_ABS32_LO, _HI, ABS64, ABS32, RELATIVE64.
        const ABS32_LO: u32 = 1;
        const ABS32_HI: u32 = 2;
        const ABS64: u32 = 3;
        const ABS32: u32 = 6;
        const RELATIVE64: u32 = 13;
        let symbol = || match &r.symbol {
            Some((value, _)) => Ok(base.wrapping_add(*value)),
            None => Err(format!(
                "dynamic relocation type {} at {:#x} has no symbol",
                r.r_type, r.offset
            )),
        };
        let value = match r.r_type {
            RELATIVE64 => base.wrapping_add_signed(r.addend),
            ABS64 | ABS32_LO | ABS32_HI | ABS32 => symbol()?.wrapping_add_signed(r.addend),
            t => {
                return Err(format!(
                    "unsupported dynamic relocation type {t} at {:#x}",
                    r.offset
                ))
            }
        };
        let width = if matches!(r.r_type, RELATIVE64 | ABS64) {
            8
        } else {
            4
        };
        if r.offset.checked_add(width).is_none_or(|end| end > span) {
            return Err(format!(
                "dynamic relocation at {:#x} lies outside the loaded sections",
                r.offset
            ));
        }
        let bytes = match r.r_type {
            ABS32_HI => ((value >> 32) as u32).to_le_bytes().to_vec(),
            ABS32_LO | ABS32 => (value as u32).to_le_bytes().to_vec(),
            _ => value.to_le_bytes().to_vec(),
        };
        self.mem
            .write(base + r.offset, &bytes)
            .map_err(|e| e.to_string())
    }
}

/// The function symbol whose code holds `pc`, and the offset into it.
pub(crate) fn enclosing_function(module: &Module, pc: u64) -> Option<(String, u64)> {
    let elf = module.object.elf().ok()?;
    let vaddr = pc.checked_sub(module.load_base)?;
    elf.functions()
        .into_iter()
        .filter(|f| f.address <= vaddr && (f.size == 0 || vaddr < f.address + f.size))
        .max_by_key(|f| f.address)
        .map(|f| (f.name.clone(), vaddr - f.address))
}
