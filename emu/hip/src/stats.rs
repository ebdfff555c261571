//! What the program's kernels did, printed when it exits (`GCNEMU_STATS=1` on stderr,
//! `GCNEMU_STATS_JSON=PATH` as JSON): per kernel, launches, workgroups, wave-instructions,
//! emulation time, simulated cycles, hazard and stale-read findings, and faults. With several
//! devices a kernel has one row per device it ran on.

use gcnemu::settings::Settings;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct KernelStats {
    /// The kernel's symbol, and as the source spells it (C++ names demangled).
    pub(crate) name: String,
    /// The device it ran on.
    pub(crate) device: i32,
    demangled: String,
    code_object: String,
    launches: u64,
    workgroups: u64,
    wave_instructions: u64,
    emulation_seconds: f64,
    /// Under the timing model; 0 otherwise.
    cycles: u64,
    /// Distinct hazard findings (rule and instruction) over all launches.
    hazards: u64,
    stale_reads: u64,
    pub(crate) faults: u64,
}

impl KernelStats {
    pub(crate) fn new(name: &str, device: i32, code_object: String) -> KernelStats {
        KernelStats {
            name: name.to_string(),
            device,
            demangled: gcnemu::symbol::demangle(name),
            code_object,
            ..Default::default()
        }
    }

    pub(crate) fn add(&mut self, stats: Option<&gcnemu::Stats>, elapsed: Duration) {
        self.launches += 1;
        self.emulation_seconds += elapsed.as_secs_f64();
        if let Some(s) = stats {
            self.workgroups += s.workgroups;
            self.wave_instructions += s.wave_instructions;
            self.cycles += s.timing.as_ref().map_or(0, |t| t.cycles);
            self.hazards = self.hazards.max(s.hazards.len() as u64);
            self.stale_reads = self.stale_reads.max(s.stale_reads.len() as u64);
        }
    }
}

/// Writes the report the settings ask for: the table on stderr, the JSON file.
pub(crate) fn write_report(settings: &Settings, kernels: &[KernelStats], started: Instant) {
    if settings.stats {
        eprint!("{}", text(kernels, started.elapsed(), settings.devices > 1));
    }
    if let Some(path) = &settings.stats_json {
        let json = serde_json::json!({
            "target": settings.target.to_string(),
            "timing": settings.launch.timing.is_some(),
            "devices": settings.devices,
            "wall_seconds": started.elapsed().as_secs_f64(),
            "kernels": kernels,
        });
        let text = serde_json::to_string_pretty(&json).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("gcnemu-hip: cannot write {}: {e}", path.display());
        }
    }
}

/// The stderr summary: one line per kernel, in the order of first launch.
fn text(kernels: &[KernelStats], wall: Duration, several_devices: bool) -> String {
    let mut out = format!(
        "gcnemu: {} kernel(s), {:.3} s of program time\n",
        kernels.len(),
        wall.as_secs_f64()
    );
    let device_column = if several_devices { "  device" } else { "" };
    out += &format!("gcnemu:   launches  workgroups  wave-insts      emu-s      cycles  hazards  stale  faults{device_column}  kernel\n");
    for k in kernels {
        let device = if several_devices {
            format!(" {:>7}", k.device)
        } else {
            String::new()
        };
        out += &format!(
            "gcnemu: {:>10} {:>11} {:>11} {:>10.3} {:>11} {:>8} {:>6} {:>7}{device}  {}\n",
            k.launches,
            k.workgroups,
            k.wave_instructions,
            k.emulation_seconds,
            k.cycles,
            k.hazards,
            k.stale_reads,
            k.faults,
            k.demangled
        );
    }
    out
}
