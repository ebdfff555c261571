//! The memory hierarchy of the timing model: what a vector or scalar memory instruction costs
//! once its addresses are known, from the board's parameters ([`params`], a table with its
//! sources).
//!
//! The path a vector access takes, as on gfx9 hardware:
//! - the **coalescer** ([`coalesce`]) turns the active lanes' addresses into cache-line
//!   requests, one line per cycle of the CU's texture-address unit;
//! - the CU's **vector L1** (TCP, [`cache::Cache`]) serves hits; loads that miss, and every
//!   store and atomic, go on to the L2 — the L1 is write-through and does not allocate on a
//!   write; `glc` loads skip it;
//! - the **L2** (TCC) is split into channels by address ([`params::L2::interleave`]); a channel
//!   takes one request per cycle, so requests that pile onto one channel queue. The L2 is
//!   write-back and allocates on writes; atomics are performed there, one lane at a time;
//! - **device memory** is a queue with the board's sustained bandwidth: a line that misses the
//!   L2 (or a dirty line it evicts) occupies it for `line / bandwidth`, and a load's data
//!   arrives the measured memory latency after its turn starts. So a kernel that moves more
//!   lines takes longer, and one that moves more than the bandwidth allows waits.
//!
//! Scalar loads go through the scalar cache of their CU group, then the L2.
//!
//! Latencies are load-to-use, as a pointer chase measures them: a hit at a level completes that
//! level's measured latency after its line is sent. Every request is counted under the names
//! rocprof and omniperf use ([`counters::Counters`]).
//!
//! The state changes with every request, so the order of calls is part of the result: the
//! timing model makes them in simulated-time order, the same on any number of threads.

pub mod cache;
pub mod coalesce;
pub mod counters;
pub mod params;

use cache::{Cache, Lookup};
use coalesce::{coalesce, Coalesced};
use counters::Counters;
pub use params::Params;

/// What a vector memory instruction does with its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Load,
    Store,
    Atomic,
}

/// One vector memory instruction, as its lanes' addresses say.
#[derive(Clone, Copy, Debug)]
pub struct VectorRequest<'a> {
    pub cu: usize,
    /// The cycle it issues.
    pub at: u64,
    pub access: Access,
    /// The active lanes and their byte addresses, in lane order.
    pub lanes: &'a [(usize, u64)],
    /// Bytes per lane.
    pub bytes: u32,
    /// `glc`: the load bypasses the L1.
    pub glc: bool,
}

/// Time in 1/256 cycle, so that bandwidths of a fraction of a line per cycle add up exactly.
const FRAC: u64 = 256;

/// The caches and queues of one device, in cycles of the engine clock.
pub struct MemorySystem {
    l1_line: u32,
    scalar_line: u32,
    l2_line: u32,
    l1_hit: u64,
    scalar_hit: u64,
    l2_hit: u64,
    dram_latency: u64,
    /// Fractional cycles one L2 line occupies device memory.
    dram_per_line: u64,
    scalar_cus: usize,
    l2_channels: u64,
    l2_interleave: u64,
    l2_instances: usize,
    l1: Vec<Cache>,
    /// When each CU's texture-address unit is free.
    ta_free: Vec<u64>,
    scalar: Vec<Cache>,
    /// `l2_instances * channels` slices and when each is free.
    l2: Vec<Cache>,
    l2_free: Vec<u64>,
    /// When device memory is free, in 1/[`FRAC`] cycles.
    dram_free: u64,
    pub counters: Counters,
    scratch: Coalesced,
}

impl MemorySystem {
    /// The memory system of a device of `cus` CUs with `params`, clocked at `clock_khz`.
    pub fn new(params: &Params, cus: usize, clock_khz: u32) -> MemorySystem {
        let cycles = |c: u32| c.max(1) as u64;
        let l2 = &params.l2;
        let slices = (l2.instances * l2.channels) as usize;
        let slice_bytes = l2.bytes / slices as u64;
        let scalar_cus = params.scalar.cus.max(1) as usize;
        // Bytes per cycle of device memory at this clock.
        let bytes_per_cycle = params.dram.gb_per_s * 1e9 / (clock_khz as f64 * 1e3);
        MemorySystem {
            l1_line: params.l1.line,
            scalar_line: params.scalar.line,
            l2_line: l2.line,
            l1_hit: cycles(params.l1.latency_cycles),
            scalar_hit: cycles(params.scalar.latency_cycles),
            l2_hit: cycles(l2.latency_cycles),
            dram_latency: cycles(params.dram.latency_cycles),
            dram_per_line: ((l2.line as f64 / bytes_per_cycle) * FRAC as f64)
                .round()
                .max(1.0) as u64,
            scalar_cus,
            l2_channels: l2.channels.max(1) as u64,
            l2_interleave: l2.interleave.max(l2.line) as u64,
            l2_instances: l2.instances.max(1) as usize,
            l1: (0..cus)
                .map(|_| Cache::new(params.l1.bytes, params.l1.line, params.l1.ways))
                .collect(),
            ta_free: vec![0; cus],
            scalar: (0..cus.div_ceil(scalar_cus))
                .map(|_| Cache::new(params.scalar.bytes, params.scalar.line, params.scalar.ways))
                .collect(),
            l2: (0..slices)
                .map(|_| Cache::new(slice_bytes, l2.line, l2.ways))
                .collect(),
            l2_free: vec![0; slices],
            dram_free: 0,
            counters: Counters::default(),
            scratch: Coalesced::default(),
        }
    }

    /// The cycle `req`'s last line is back (loads, atomics) or acknowledged by the L2 (stores).
    pub fn vector(&mut self, req: &VectorRequest) -> u64 {
        let mut c = std::mem::take(&mut self.scratch);
        coalesce(req.lanes, req.bytes, self.l1_line, &mut c);
        let cu = req.cu.min(self.ta_free.len().saturating_sub(1));
        self.counters.vector_instructions += 1;
        self.counters.ta_busy_cycles += c.cycles as u64;
        let start = req.at.max(self.ta_free[cu]);
        self.ta_free[cu] = start + c.cycles as u64;
        let mut done = start;
        let n = c.lines.len().max(1) as u64;
        for (i, &line) in c.lines.iter().enumerate() {
            // Lines leave the TA spread over its busy cycles.
            let sent = start + c.cycles as u64 * i as u64 / n;
            let line_addr = line * self.l1_line as u64;
            let ready = match req.access {
                Access::Load => {
                    self.counters.tcp_total_cache_accesses += 1;
                    if !req.glc && self.l1[cu].access(line, false) == Lookup::Hit {
                        self.counters.tcp_hits += 1;
                        sent + self.l1_hit
                    } else {
                        self.counters.tcp_tcc_read_req += 1;
                        self.l2_access(cu, line_addr, sent, Access::Load, 1)
                    }
                }
                Access::Store => {
                    self.counters.tcp_total_cache_accesses += 1;
                    self.counters.tcp_tcc_write_req += 1;
                    self.l2_access(cu, line_addr, sent, Access::Store, 1)
                }
                Access::Atomic => {
                    self.counters.tcp_tcc_atomic_req += 1;
                    let shift = self.l1_line.trailing_zeros();
                    let lanes = req
                        .lanes
                        .iter()
                        .filter(|&&(_, a)| a >> shift == line)
                        .count()
                        .max(1);
                    self.l2_access(cu, line_addr, sent, Access::Atomic, lanes as u64)
                }
            };
            done = done.max(ready);
        }
        self.scratch = c;
        done
    }

    /// The cycle a scalar load of `bytes` at `addr`, issued by `cu` at `at`, has its data.
    pub fn scalar(&mut self, cu: usize, at: u64, addr: u64, bytes: u32) -> u64 {
        let group = (cu / self.scalar_cus).min(self.scalar.len().saturating_sub(1));
        let line_bytes = self.scalar_line as u64;
        let mut done = at;
        for line in addr / line_bytes..=(addr + bytes.max(1) as u64 - 1) / line_bytes {
            self.counters.scalar_accesses += 1;
            let ready = if self.scalar[group].access(line, false) == Lookup::Hit {
                self.counters.scalar_hits += 1;
                at + self.scalar_hit
            } else {
                self.l2_access(cu, line * line_bytes, at, Access::Load, 1)
            };
            done = done.max(ready);
        }
        done
    }

    /// Empties every vector L1 and scalar cache (a new dispatch: the packet's acquire fence).
    pub fn invalidate_l1(&mut self) {
        self.l1.iter_mut().for_each(Cache::invalidate_all);
        self.scalar.iter_mut().for_each(Cache::invalidate_all);
    }

    /// One request for the line holding `addr` reaching the L2 at `at`; `ops` lane operations
    /// for an atomic.
    fn l2_access(&mut self, cu: usize, addr: u64, at: u64, access: Access, ops: u64) -> u64 {
        let instance = cu % self.l2_instances;
        // The channel is chosen by the interleave block; within a channel, lines are indexed
        // by the address without the channel bits, so every set of the slice is used.
        let block = addr / self.l2_interleave;
        let channel = block % self.l2_channels;
        let line = (block / self.l2_channels) * (self.l2_interleave / self.l2_line as u64)
            + (addr % self.l2_interleave) / self.l2_line as u64;
        let slice = instance * self.l2_channels as usize + channel as usize;
        self.counters.tcc_req += 1;
        // A channel takes a request per cycle; an atomic holds it a cycle per lane.
        let start = at.max(self.l2_free[slice]);
        self.l2_free[slice] = start + ops;
        let write = access != Access::Load;
        match self.l2[slice].access(line, write) {
            Lookup::Hit => {
                self.counters.tcc_hit += 1;
                start + ops - 1 + self.l2_hit
            }
            Lookup::Miss { evicted_dirty } => {
                self.counters.tcc_miss += 1;
                if evicted_dirty.is_some() {
                    self.counters.tcc_ea_wrreq += 1;
                    self.dram_free = self.dram_free.max(start * FRAC) + self.dram_per_line;
                }
                if access == Access::Store {
                    // A write allocates without reading: the line is written whole or merged
                    // when it is written back.
                    return start + self.l2_hit;
                }
                self.counters.tcc_ea_rdreq += 1;
                let turn = self.dram_free.max(start * FRAC);
                self.dram_free = turn + self.dram_per_line;
                turn.div_ceil(FRAC) + self.dram_latency + ops - 1
            }
        }
    }
}

#[cfg(test)]
mod tests;
