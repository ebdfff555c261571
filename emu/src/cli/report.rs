//! What `gcnemu run` reports after a launch: the `--stats` summary, the `--stats-json` file,
//! and the run-time findings (hazards, stale-register reads) on stderr.

use gcnemu::cu::stats::STALL_REASONS;
use gcnemu::device::{HazardFinding, Stats};
use gcnemu::launch::hazards::HazardMode;

pub fn stats_text(s: &Stats) -> String {
    let mut out = format!(
        "kernel {}: {} workgroups, {} waves, {} wave-instructions in {:.3} s ({:.1} M/s)\n",
        gcnemu::symbol::demangle(&s.kernel),
        s.workgroups,
        s.waves,
        s.wave_instructions,
        s.elapsed.as_secs_f64(),
        s.rate() / 1e6
    );
    for (name, n) in &s.by_category {
        if *n > 0 {
            out += &format!("  {name:<8} {n}\n");
        }
    }
    if s.hazard_mode != HazardMode::Off {
        let hits: u64 = s.hazards.iter().map(|h| h.hits).sum();
        out += &format!(
            "  hazards  {} finding(s), {hits} hit(s) (--hazards {})\n",
            s.hazards.len(),
            s.hazard_mode.name()
        );
    }
    if let Some(t) = &s.timing {
        out += &timing_text(s, t);
    }
    out
}

/// The timing model's part of the summary.
fn timing_text(s: &Stats, t: &gcnemu::cu::TimingStats) -> String {
    let mut out = format!(
        "  cycles   {} on {} of {} CUs, IPC {:.3} wave-instructions/cycle ({:.2} M cycles/s simulated)\n",
        t.cycles,
        t.cus_used,
        t.cus,
        t.ipc,
        t.cycles_per_second / 1e6
    );
    out += &format!(
        "  occupancy {} waves/CU possible ({:.2}/SIMD, limited by {}; {} workgroups/CU), {:.2}/SIMD achieved\n",
        t.occupancy.waves_per_cu,
        t.occupancy.waves_per_cu as f64 / 4.0,
        t.occupancy.limiter.name(),
        t.occupancy.workgroups_per_cu,
        t.achieved_waves_per_simd
    );
    let total: u64 = t.stalls.cycles.iter().sum();
    out += &format!("  stalls   {total} wave-cycles:");
    for (r, c) in STALL_REASONS.iter().zip(t.stalls.cycles) {
        out += &format!(" {} {c}", r.name());
    }
    out += "\n";
    if t.lds.instructions > 0 {
        out += &format!(
            "  banks    {} LDS accesses, {} bank cycles, {} conflict cycles\n",
            t.lds.instructions, t.lds.bank_cycles, t.lds.conflict_cycles
        );
    }
    if let Some(m) = &t.memory {
        out += &memory_text(m, t.cycles);
    }
    if !s.stale_reads.is_empty() {
        let hits: u64 = s.stale_reads.iter().map(|r| r.hits).sum();
        out += &format!(
            "  stale    {} register read(s) before their load completed, {hits} hit(s)\n",
            s.stale_reads.len()
        );
    }
    out
}

/// The memory hierarchy's counts (rocprof's names in `--stats-json`).
fn memory_text(m: &gcnemu::memsys::Counters, cycles: u64) -> String {
    use gcnemu::memsys::Counters;
    let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.1}%", 100.0 * r));
    // MI300's Infinity Cache sits between the L2's requests to memory and HBM.
    let lookups = m.mall_hit + m.mall_miss;
    let mall = match lookups {
        0 => String::new(),
        _ => format!(
            " Infinity Cache {} hit;",
            pct(Counters::rate(m.mall_hit, lookups))
        ),
    };
    format!(
        "  memory   vector L1 {} line lookups ({:.2} per instruction), {} hit; L2 {} requests, {} hit; \
         scalar cache {} hit; L2 to memory {} reads, {} write-backs;{mall} HBM {} bytes ({:.1} GB/s)\n",
        m.tcp_total_cache_accesses,
        m.lines_per_instruction(),
        pct(Counters::rate(m.tcp_hits, m.tcp_total_cache_accesses)),
        m.tcc_req,
        pct(Counters::rate(m.tcc_hit, m.tcc_req)),
        pct(Counters::rate(m.scalar_hits, m.scalar_accesses)),
        m.tcc_ea_rdreq,
        m.tcc_ea_wrreq,
        m.dram_bytes,
        m.dram_gb_per_s(cycles)
    )
}

/// The stale-register findings (missing `s_waitcnt`), one warning each.
pub fn stale_text(file: &str, s: &Stats) -> String {
    let mut out = String::new();
    for r in &s.stale_reads {
        out += &format!("{file}: warning[missing-waitcnt]: {}\n", r.message());
    }
    out
}

/// The run-time hazard findings, worded as `gcnemu lint` words its diagnostics.
pub fn hazard_text(file: &str, s: &Stats) -> String {
    let loc = |off: i64| {
        let sign = if off < 0 { "-" } else { "+" };
        format!("{}{sign}{:#x}", s.kernel, off.unsigned_abs())
    };
    let mut out = String::new();
    for h in &s.hazards {
        let [x, y, z] = h.workgroup;
        out += &format!(
            "{file}:{}: warning[{}]: {}: `{}` at {:#x}, then `{}` with {} of the {} required\n",
            loc(h.kernel_offset),
            h.rule,
            h.summary,
            h.producer,
            h.producer_pc,
            h.instruction,
            h.provided,
            h.required
        );
        out += &format!(
            "  note: producer at {} ({:#x}): {}\n",
            loc(h.producer_offset),
            h.producer_pc,
            h.producer
        );
        out += &format!(
            "  required: {}; provided: {}\n  fix: {}\n",
            h.required, h.provided, h.fix
        );
        out += &format!(
            "  issued {} time(s); first by workgroup ({x}, {y}, {z}) wave {}\n",
            h.hits, h.wave
        );
    }
    let n = s.hazards.len();
    out += &format!(
        "{n} hazard finding{} at run time in kernel `{}`\n",
        if n == 1 { "" } else { "s" },
        gcnemu::symbol::demangle(&s.kernel)
    );
    out
}

fn hazard_json(h: &HazardFinding) -> serde_json::Value {
    serde_json::json!({
        "rule": h.rule,
        "address": h.pc,
        "offset": h.kernel_offset,
        "instruction": h.instruction,
        "producer_address": h.producer_pc,
        "producer_offset": h.producer_offset,
        "producer": h.producer,
        "required": h.required,
        "provided": h.provided,
        "fix": h.fix,
        "hits": h.hits,
        "workgroup": h.workgroup,
        "wave": h.wave,
    })
}

pub fn stats_json(s: &Stats) -> String {
    let by: serde_json::Map<String, serde_json::Value> = s
        .by_category
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    let v = serde_json::json!({
        "kernel": s.kernel,
        "kernel_demangled": gcnemu::symbol::demangle(&s.kernel),
        "workgroups": s.workgroups,
        "waves": s.waves,
        "wave_instructions": s.wave_instructions,
        "by_category": by,
        "seconds": s.elapsed.as_secs_f64(),
        "hazards": {
            "mode": s.hazard_mode.name(),
            "findings": s.hazards.len(),
            "hits": s.hazards.iter().map(|h| h.hits).sum::<u64>(),
            "list": s.hazards.iter().map(hazard_json).collect::<Vec<_>>(),
        },
    });
    let mut v = v;
    if let Some(t) = &s.timing {
        v["timing"] = serde_json::to_value(t).unwrap_or_default();
        v["timing"]["stale_reads"] = serde_json::to_value(&s.stale_reads).unwrap_or_default();
    }
    format!("{v:#}\n")
}
