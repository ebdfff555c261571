//! The sanitizers under a HIP program (`gcnemu exec --check`, `GCNEMU_CHECK`): each finding of a
//! kernel is printed on stderr the first time it is seen and counted over all launches; at exit
//! come the leaks (allocations still live, grouped by the code that allocated them), a summary,
//! the JSON file, and with `GCNEMU_CHECK_ERROR=1` a failing exit status.

use crate::allocation::{AllocClass, AllocInfo};
use gcnemu::check::report::{self, Finding};
use gcnemu::check::{Check, Kind};
use gcnemu::settings::Settings;
use std::collections::HashMap;
use std::ffi::c_void;

/// What the sanitizers keep between launches.
#[derive(Default)]
pub(crate) struct CheckState {
    /// Every finding so far, merged per (kind, kernel, instruction).
    findings: Vec<Finding>,
    /// Where each live allocation was made (the return address into the program), for leaks.
    pub(crate) sites: HashMap<u64, usize>,
}

impl CheckState {
    /// Takes the device's findings of the last launch, prints the new ones.
    pub(crate) fn after_launch(&mut self, new: Vec<Finding>) {
        for f in &new {
            let seen = self.findings.iter().any(|g| {
                g.kind == f.kind
                    && g.kernel == f.kernel
                    && g.place.as_ref().map(|p| p.pc) == f.place.as_ref().map(|p| p.pc)
            });
            if !seen {
                eprintln!("gcnemu: {}", f.text());
            }
        }
        report::merge(&mut self.findings, new);
    }
}

/// The first return address on the stack outside this library: the program's (or a ROCm
/// library's) call of hipMalloc.
pub(crate) fn call_site() -> usize {
    let mut frames = [std::ptr::null_mut::<c_void>(); 16];
    // SAFETY: `backtrace` writes at most `frames.len()` entries.
    let n = unsafe { libc::backtrace(frames.as_mut_ptr(), frames.len() as i32) }.max(0) as usize;
    let ours = object_base(call_site as *const c_void);
    frames[..n]
        .iter()
        .map(|&f| f as usize)
        .find(|&f| object_base(f as *const c_void) != ours)
        .unwrap_or(0)
}

/// The load address of the shared object holding `addr`.
fn object_base(addr: *const c_void) -> usize {
    // SAFETY: dladdr only reads the loader's tables and fills `info`.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if unsafe { libc::dladdr(addr, &mut info) } == 0 {
        return 0;
    }
    info.dli_fbase as usize
}

/// `file+0xOFFSET` (and the symbol, when the object exports one) of a code address.
fn describe_site(addr: usize) -> String {
    if addr == 0 {
        return "an unknown caller".into();
    }
    // SAFETY: as in `object_base`; the names are C strings owned by the loader.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if unsafe { libc::dladdr(addr as *const c_void, &mut info) } == 0 {
        return format!("{addr:#x}");
    }
    let c = |p: *const libc::c_char| {
        (!p.is_null()).then(|| {
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        })
    };
    let path = c(info.dli_fname).unwrap_or_default();
    let file = path.rsplit('/').next().unwrap_or("").to_string();
    // The return address is just past the call; -1 lands in the call instruction.
    let off = addr.wrapping_sub(info.dli_fbase as usize).wrapping_sub(1);
    let mut text = match c(info.dli_sname) {
        Some(sym) => format!(
            "{file}+{off:#x} ({sym}+{:#x})",
            addr.wrapping_sub(info.dli_saddr as usize).wrapping_sub(1)
        ),
        None => format!("{file}+{off:#x}"),
    };
    if let Some(line) = host_line(&path, off as u64) {
        text += &format!(", {line}");
    }
    text
}

/// `file:line` of `offset` in the host object at `path` (position-independent, so the offset
/// from its load base is its virtual address), when it was built with `-g`.
fn host_line(path: &str, offset: u64) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    gcn_loader::outer_line(&bytes, offset)
}

/// Live allocations of one call site and API: count, bytes, lowest address, sizes.
type LeakGroup = (u64, u64, u64, Vec<u64>);

/// The leaks: live allocations grouped by call site and API, biggest total first.
fn leaks(sites: &HashMap<u64, usize>, allocations: &HashMap<u64, AllocInfo>) -> Vec<Finding> {
    let mut groups: HashMap<(usize, &'static str), LeakGroup> = HashMap::new();
    for (&addr, info) in allocations {
        if info.class == AllocClass::Registered {
            continue;
        }
        let site = sites.get(&addr).copied().unwrap_or(0);
        let g = groups
            .entry((site, info.class.api_name()))
            .or_insert((0, 0, u64::MAX, Vec::new()));
        g.0 += 1;
        g.1 += info.size;
        g.2 = g.2.min(addr);
        g.3.push(info.size);
    }
    let mut out: Vec<Finding> = groups
        .into_iter()
        .map(|((site, api), (count, bytes, first, mut sizes))| {
            sizes.sort_unstable();
            sizes.dedup();
            let sizes: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            Finding {
                check: Check::Leaks,
                kind: Kind::Leak,
                kernel: String::new(),
                place: None,
                access: "",
                addr: first,
                len: bytes,
                workgroup: [0; 3],
                wave: 0,
                lane: 0,
                detail: format!(
                    "{count} allocation(s) of {bytes} bytes in all (sizes {}) by {api} at {} still live at exit",
                    sizes.join(", "),
                    describe_site(site)
                ),
                other: None,
                count,
            }
        })
        .collect();
    out.sort_by(|a, b| b.len.cmp(&a.len).then(a.addr.cmp(&b.addr)));
    out
}

/// The exit report: leaks (of `allocations`, the ones still live), the summary, the JSON
/// file; true when anything was found.
pub(crate) fn at_exit(
    state: &CheckState,
    settings: &Settings,
    allocations: &HashMap<u64, AllocInfo>,
) -> bool {
    let set = settings.checks;
    if set.is_empty() {
        return false;
    }
    let mut all = state.findings.clone();
    if set.has(Check::Leaks) {
        for f in leaks(&state.sites, allocations) {
            eprintln!("gcnemu: {}", f.text());
            all.push(f);
        }
    }
    eprintln!("gcnemu: {}", report::summary(set, &all));
    if let Some(path) = &settings.check_json {
        if let Err(e) = std::fs::write(path, report::json(set, &all)) {
            eprintln!("gcnemu-hip: cannot write {}: {e}", path.display());
        }
    }
    !all.is_empty()
}
