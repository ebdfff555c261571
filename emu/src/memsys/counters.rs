//! What the memory system counted, under the names of the hardware counters rocprof and
//! omniperf report where one exists (AMD's "MI200/MI300 performance counters" and the
//! omniperf memory chart: TCP is the vector L1, TCC the L2, EA the memory interface).

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Vector memory wave-instructions that reached the coalescer.
    pub vector_instructions: u64,
    /// Cycles the CUs' texture-address units spent sending lines (one per line per lane group).
    pub ta_busy_cycles: u64,
    /// `TCP_TOTAL_CACHE_ACCESSES`: vector L1 tag lookups (loads and stores, per line).
    pub tcp_total_cache_accesses: u64,
    /// Vector L1 lookups that hit (`TCP_TOTAL_CACHE_ACCESSES` minus the misses).
    pub tcp_hits: u64,
    /// `TCP_TCC_READ_REQ`: reads the vector L1 sent on to the L2.
    pub tcp_tcc_read_req: u64,
    /// `TCP_TCC_WRITE_REQ`: writes the vector L1 sent on to the L2.
    pub tcp_tcc_write_req: u64,
    /// `TCP_TCC_ATOMIC_REQ`: atomics the vector L1 sent on to the L2.
    pub tcp_tcc_atomic_req: u64,
    /// Scalar cache lookups and hits.
    pub scalar_accesses: u64,
    pub scalar_hits: u64,
    /// `TCC_REQ`: requests the L2 received.
    pub tcc_req: u64,
    /// `TCC_HIT` / `TCC_MISS`.
    pub tcc_hit: u64,
    pub tcc_miss: u64,
    /// `TCC_EA_RDREQ`: line reads the L2 sent to device memory.
    pub tcc_ea_rdreq: u64,
    /// `TCC_EA_WRREQ`: dirty lines the L2 wrote back to device memory.
    pub tcc_ea_wrreq: u64,
    /// MI300's Infinity Cache (MALL): L2 line reads it held whole, and those it did not (which
    /// go on to device memory). rocprof has no counter of these for MI300.
    pub mall_hit: u64,
    pub mall_miss: u64,
    /// Bytes device memory moved (both directions).
    pub dram_bytes: u64,
    /// The engine clock the cycles count at, kHz (to turn bytes per cycle into GB/s).
    pub clock_khz: u32,
}

impl Counters {
    /// Adds `o`'s counts to these.
    pub fn add(&mut self, o: &Counters) {
        self.vector_instructions += o.vector_instructions;
        self.ta_busy_cycles += o.ta_busy_cycles;
        self.tcp_total_cache_accesses += o.tcp_total_cache_accesses;
        self.tcp_hits += o.tcp_hits;
        self.tcp_tcc_read_req += o.tcp_tcc_read_req;
        self.tcp_tcc_write_req += o.tcp_tcc_write_req;
        self.tcp_tcc_atomic_req += o.tcp_tcc_atomic_req;
        self.scalar_accesses += o.scalar_accesses;
        self.scalar_hits += o.scalar_hits;
        self.tcc_req += o.tcc_req;
        self.tcc_hit += o.tcc_hit;
        self.tcc_miss += o.tcc_miss;
        self.tcc_ea_rdreq += o.tcc_ea_rdreq;
        self.tcc_ea_wrreq += o.tcc_ea_wrreq;
        self.mall_hit += o.mall_hit;
        self.mall_miss += o.mall_miss;
        self.dram_bytes += o.dram_bytes;
        self.clock_khz = self.clock_khz.max(o.clock_khz);
    }

    /// L1 lines per vector wave-instruction: 4 for unit-stride dwords, up to 64 (or more for
    /// wide or straddling accesses) when every lane has its own line.
    pub fn lines_per_instruction(&self) -> f64 {
        self.tcp_total_cache_accesses as f64 / self.vector_instructions.max(1) as f64
    }

    /// Device memory's achieved bandwidth over `cycles`, GB/s.
    pub fn dram_gb_per_s(&self, cycles: u64) -> f64 {
        self.dram_bytes as f64 * self.clock_khz as f64 * 1e3 / cycles.max(1) as f64 / 1e9
    }

    /// Hits as a share of lookups, or `None` without lookups.
    pub fn rate(hits: u64, of: u64) -> Option<f64> {
        (of > 0).then(|| hits as f64 / of as f64)
    }
}
