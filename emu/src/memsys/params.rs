//! The memory-system parameters of each target's board, read from `params.toml` beside this
//! file: every level's size, line, associativity and measured latency, and the memory's
//! bandwidth, each with the source it comes from. Latencies are in engine cycles, as the
//! pointer-chase measurements they come from count them; bandwidth is in GB/s and turned into
//! bytes per cycle at the board's peak clock ([`crate::board`]).

use gcn_isa::Target;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// One cache level.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Level {
    pub bytes: u64,
    pub line: u32,
    pub ways: u32,
    /// Load-to-use latency of a hit in engine cycles, as a pointer chase measures it.
    pub latency_cycles: u32,
    /// Peak bandwidth, GB/s, where the level has its own limit (the MALL's).
    #[serde(default)]
    pub gb_per_s: Option<f64>,
    /// Where the figures come from.
    pub source: String,
}

/// The scalar data cache, shared by a group of CUs.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scalar {
    pub bytes: u64,
    pub line: u32,
    pub ways: u32,
    pub latency_cycles: u32,
    /// CUs that share one scalar cache.
    pub cus: u32,
    pub source: String,
}

/// The L2 (TCC): channels, each with its slice of the lines and one request per cycle.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct L2 {
    pub bytes: u64,
    pub line: u32,
    pub ways: u32,
    pub channels: u32,
    /// Bytes of consecutive addresses one channel holds before the next takes over.
    pub interleave: u32,
    pub latency_cycles: u32,
    /// Separate L2s, one per die (MI300's XCDs); CUs are dealt to them in turn.
    #[serde(default = "one")]
    pub instances: u32,
    pub source: String,
}

/// Device memory (HBM).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Dram {
    /// Load-to-use latency of a load that misses every cache.
    pub latency_cycles: u32,
    /// Peak bandwidth, GB/s (10^9 bytes per second): what the memory can move; what a kernel
    /// achieves follows from the queues in front of it.
    pub gb_per_s: f64,
    /// Independent channels the bandwidth is split over (128-bit HBM2 channels, 64-bit HBM3
    /// ones), each taking `interleave` consecutive bytes of [`L2`] in turn.
    pub channels: u32,
    /// All-bank refresh: how long a channel stops (tRFC) and how often (tREFI).
    pub refresh_ns: f64,
    pub refresh_interval_ns: f64,
    /// The data bus's turnarounds: from a read to a write (RL + BL/2 + 2 tCK - WL) and from a
    /// write to a read (WL + BL/2 + tWTR_L).
    pub read_to_write_ns: f64,
    pub write_to_read_ns: f64,
    /// Writes a channel's controller queues before writing them out together.
    pub write_queue: u32,
    pub source: String,
    /// Where the channel count and device timings come from.
    pub timing_source: String,
}

/// The memory system of one board.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The board the row describes (as [`crate::board::Board::name`] names it).
    pub board: String,
    pub l1: Level,
    pub scalar: Scalar,
    pub l2: L2,
    /// MI300's Infinity Cache (MALL), between the L2s and HBM ([`super::mall`]).
    #[serde(default)]
    pub mall: Option<Level>,
    pub dram: Dram,
}

fn one() -> u32 {
    1
}

/// The rows of `params.toml`, by target name.
fn table() -> &'static HashMap<String, Params> {
    static TABLE: OnceLock<HashMap<String, Params>> = OnceLock::new();
    TABLE.get_or_init(|| {
        toml::from_str(include_str!("params.toml"))
            .unwrap_or_else(|e| panic!("emu/src/memsys/params.toml: {e}"))
    })
}

/// The parameters of `target`'s board, or `None` for a target without a row (the APUs, whose
/// memory is the host's: the fixed latency model stays for them).
pub fn params(target: Target) -> Option<&'static Params> {
    table().get(target.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_names_its_sources() {
        for (target, p) in table() {
            for (what, src) in [
                ("l1", &p.l1.source),
                ("scalar", &p.scalar.source),
                ("l2", &p.l2.source),
                ("dram", &p.dram.source),
            ] {
                assert!(
                    src.contains('[') || src.contains("http") || src.contains("§"),
                    "{target} {what}: no source"
                );
            }
            assert!(
                p.l1.latency_cycles < p.l2.latency_cycles
                    && p.l2.latency_cycles < p.dram.latency_cycles
            );
            if let Some(m) = &p.mall {
                assert!(m.source.contains('['), "{target} mall: no source");
                assert!(p.l2.latency_cycles < m.latency_cycles);
                assert!(m.latency_cycles < p.dram.latency_cycles);
                assert!(m.line.is_power_of_two() && p.l2.line % m.line == 0);
            }
            assert!(p.l2.line.is_power_of_two() && p.l1.line.is_power_of_two());
        }
    }

    #[test]
    fn the_discrete_boards_have_rows() {
        for t in [
            Target::Gfx900,
            Target::Gfx906,
            Target::Gfx908,
            Target::Gfx90a,
            Target::Gfx942,
        ] {
            assert!(params(t).is_some(), "{}", t.name());
        }
    }
}
