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
//! - **device memory** ([`dram`]) is its channels, each a queue with its share of the board's
//!   peak bandwidth, less refresh and the turnarounds between reads and writes: a line that
//!   misses the L2 (or a dirty line it evicts) occupies its channel for `line / bandwidth`,
//!   and a load's data arrives the measured memory latency after its turn starts. So a kernel
//!   that moves more lines takes longer, and one that moves more than the bandwidth allows
//!   waits;
//! - on MI300, the **Infinity Cache** ([`mall`]) sits in front of each memory channel: the L2's
//!   reads come from it when it holds their lines, at its own latency, and its writes stay there
//!   until it evicts them.
//!
//! Scalar loads go through the scalar cache of their CU group, then the L2.
//!
//! Latencies are load-to-use, as a pointer chase measures them: a hit at a level completes that
//! level's measured latency after its line is sent. Every request is counted under the names
//! rocprof and omniperf use ([`counters::Counters`]).
//!
//! The state changes with every request, so the order of calls is part of the result: the
//! timing model makes them in simulated-time order, the same on any number of threads.
//!
//! Sets, channels and interleave blocks are found with [`divisor::Divisor`]: shifts and masks
//! for the power-of-two geometries of every board, where each request made a dozen 64-bit
//! divisions.

pub mod cache;
pub mod coalesce;
pub mod counters;
pub mod divisor;
pub mod dram;
pub mod mall;
pub mod params;
pub mod timeline;

use cache::{Cache, Lookup};
use coalesce::{coalesce, coalesce_row, Coalesced};
pub use counters::Counters;
use divisor::Divisor;
use dram::DeviceMemory;
pub use params::{params, Params};
use timeline::Timeline;

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
    pub lanes: Lanes<'a>,
    /// Bytes per lane.
    pub bytes: u32,
    /// `glc`: the load bypasses the L1.
    pub glc: bool,
}

/// The active lanes of a vector access and their byte addresses.
#[derive(Clone, Copy, Debug)]
pub enum Lanes<'a> {
    /// Each active lane and its address, in lane order.
    Each(&'a [(usize, u64)]),
    /// A row (`p[threadIdx.x]`, the common case), told by its ends: the lanes of `Row::lanes`
    /// at consecutive accesses.
    Row(Row),
}

/// Lanes `first..first + count`, lane `first + k` at `addr + k * bytes` for an access of
/// `bytes` bytes a lane, none reaching past the top of the address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub first: usize,
    pub count: usize,
    pub addr: u64,
}

impl Row {
    /// The row of an access of `bytes` a lane by the lanes `exec` when they are consecutive
    /// (`exec` one run of ones) and lane `l` is at `lane0 + l * bytes`: `None` otherwise, or
    /// when the last byte would pass the top of the address space.
    pub fn of(exec: u64, lane0: u64, bytes: u32) -> Option<Row> {
        let first = exec.trailing_zeros() as usize;
        let run = exec.checked_shr(first as u32)?;
        if run & run.wrapping_add(1) != 0 {
            return None;
        }
        let count = run.count_ones() as usize;
        let bytes = bytes.max(1) as u64;
        let addr = lane0.checked_add(first as u64 * bytes)?;
        addr.checked_add(count as u64 * bytes - 1)?;
        Some(Row { first, count, addr })
    }

    /// Each lane and its address, in lane order (what [`Lanes::Each`] would list).
    pub fn lanes(&self, bytes: u32) -> impl Iterator<Item = (usize, u64)> + '_ {
        let bytes = bytes.max(1) as u64;
        (0..self.count).map(move |k| (self.first + k, self.addr + k as u64 * bytes))
    }

    /// The lanes whose access starts in line `line` (of `1 << shift` bytes).
    fn lanes_starting_in(&self, line: u64, shift: u32, bytes: u32) -> usize {
        let bytes = bytes.max(1) as u64;
        let start = line << shift;
        let end = start.saturating_add((1u64 << shift) - 1);
        if end < self.addr {
            return 0;
        }
        let lo = start.saturating_sub(self.addr).div_ceil(bytes);
        let hi = ((end - self.addr) / bytes).min(self.count as u64 - 1);
        (hi + 1).saturating_sub(lo) as usize
    }
}

/// One request for a line that the vector L1 sends on to the L2 (a miss, a store, an atomic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L2Request {
    /// A byte address in the line.
    pub addr: u64,
    /// The cycle it leaves the CU.
    pub sent: u64,
    pub access: Access,
    /// Lane operations of an atomic on the line (1 otherwise).
    pub ops: u32,
}

/// An L1 line's fill time while the L2 has not answered yet: a request that hits the line
/// then goes on to the L2 too, and waits there for the same fill.
pub const FILL_UNKNOWN: u64 = u64::MAX;

/// Time in 1/256 cycle, so that bandwidths of a fraction of a line per cycle add up exactly.
pub(crate) const FRAC: u64 = 256;

/// The part of the memory system a CU owns: its texture-address unit and vector L1. What it
/// decides depends on the CU's own requests only, so a CU works it out as it issues.
#[derive(Clone, Debug)]
pub struct CuMemory {
    line: u32,
    hit: u64,
    l1: Cache,
    /// When the texture-address unit is free.
    ta_free: u64,
    pub counters: Counters,
    scratch: Coalesced,
}

impl CuMemory {
    pub fn new(params: &Params) -> CuMemory {
        CuMemory {
            line: params.l1.line,
            hit: params.l1.latency_cycles.max(1) as u64,
            l1: Cache::new(params.l1.bytes, params.l1.line, params.l1.ways),
            ta_free: 0,
            counters: Counters::default(),
            scratch: Coalesced::default(),
        }
    }

    /// Coalesces `req` and looks its lines up in the L1: returns when the last hit is back
    /// (`req.at` if none), and appends what goes on to the L2 to `out`.
    pub fn issue(&mut self, req: &VectorRequest, out: &mut Vec<L2Request>) -> u64 {
        let mut c = std::mem::take(&mut self.scratch);
        match req.lanes {
            Lanes::Each(lanes) => coalesce(lanes, req.bytes, self.line, &mut c),
            Lanes::Row(row) => coalesce_row(&row, req.bytes, self.line, &mut c),
        }
        self.counters.vector_instructions += 1;
        self.counters.ta_busy_cycles += c.cycles as u64;
        let start = req.at.max(self.ta_free);
        self.ta_free = start + c.cycles as u64;
        let mut done = req.at;
        let n = c.lines.len().max(1) as u64;
        let shift = self.line.trailing_zeros();
        for (i, &line) in c.lines.iter().enumerate() {
            // Lines leave the TA spread over its busy cycles.
            let sent = start + c.cycles as u64 * i as u64 / n;
            let addr = line << shift;
            let to_l2 = |access, ops| L2Request {
                addr,
                sent,
                access,
                ops,
            };
            match req.access {
                Access::Load => {
                    self.counters.tcp_total_cache_accesses += 1;
                    let hit = !req.glc && self.l1.access(line, false) == Lookup::Hit;
                    let filled = self.l1.fill_ready(line);
                    if hit && filled != FILL_UNKNOWN {
                        self.counters.tcp_hits += 1;
                        done = done.max((sent + self.hit).max(filled));
                    } else {
                        if !hit && !req.glc {
                            self.l1.set_fill_ready(line, FILL_UNKNOWN);
                        }
                        self.counters.tcp_tcc_read_req += 1;
                        out.push(to_l2(Access::Load, 1));
                    }
                }
                Access::Store => {
                    self.counters.tcp_total_cache_accesses += 1;
                    self.counters.tcp_tcc_write_req += 1;
                    out.push(to_l2(Access::Store, 1));
                }
                Access::Atomic => {
                    self.counters.tcp_tcc_atomic_req += 1;
                    let lanes = match req.lanes {
                        Lanes::Each(lanes) => {
                            lanes.iter().filter(|&&(_, a)| a >> shift == line).count()
                        }
                        Lanes::Row(row) => row.lanes_starting_in(line, shift, req.bytes),
                    };
                    out.push(to_l2(Access::Atomic, lanes.max(1) as u32));
                }
            }
        }
        self.scratch = c;
        done
    }

    /// Records when the line of a load the L2 answered is in the L1.
    pub fn filled(&mut self, r: &L2Request, at: u64) {
        if r.access == Access::Load {
            self.l1
                .set_fill_ready(r.addr >> self.line.trailing_zeros(), at);
        }
    }

    /// Empties the L1 (a new dispatch: the packet's acquire fence invalidates it) and starts
    /// the cycle count again.
    pub fn new_launch(&mut self) {
        self.l1.invalidate_all();
        self.ta_free = 0;
    }
}

/// The part of the memory system CUs share: the scalar caches of CU groups, the L2 channels
/// and device memory. Requests reach it in simulated-time order, between windows.
#[derive(Clone, Debug)]
pub struct SharedMemory {
    scalar_line: u32,
    l2_line: u32,
    scalar_hit: u64,
    l2_hit: u64,
    dram_latency: u64,
    scalar_cus: usize,
    l2_channels: Divisor,
    l2_interleave: Divisor,
    /// L2 lines per interleave block.
    l2_per_block: Divisor,
    l2_line_div: Divisor,
    l2_instances: usize,
    scalar: Vec<Cache>,
    /// `l2_instances * channels` slices and when each is free.
    l2: Vec<Cache>,
    l2_free: Vec<u64>,
    /// MI300's Infinity Cache, in front of device memory.
    mall: Option<mall::Mall>,
    /// Dirty MALL lines evicted by the request being worked (kept for its allocation).
    mall_evicted: Vec<u64>,
    /// Bytes device memory moves per access: the MALL's line if there is one, else the L2's.
    dram_line: u64,
    dram: DeviceMemory,
    pub counters: Counters,
    /// The launch's counts over time, when a trace asks for them.
    pub timeline: Option<Timeline>,
}

impl SharedMemory {
    /// The shared memory system of a device of `cus` CUs clocked at `clock_khz`.
    pub fn new(params: &Params, cus: usize, clock_khz: u32) -> SharedMemory {
        let l2 = &params.l2;
        let slices = (l2.instances.max(1) * l2.channels.max(1)) as usize;
        let scalar_cus = params.scalar.cus.max(1) as usize;
        let dram_line = params
            .mall
            .as_ref()
            .map_or(l2.line, |m| m.line.min(l2.line));
        SharedMemory {
            scalar_line: params.scalar.line,
            l2_line: l2.line,
            scalar_hit: params.scalar.latency_cycles.max(1) as u64,
            l2_hit: l2.latency_cycles.max(1) as u64,
            dram_latency: params.dram.latency_cycles.max(1) as u64,
            scalar_cus,
            l2_channels: Divisor::new(l2.channels as u64),
            l2_interleave: Divisor::new(l2.interleave.max(l2.line) as u64),
            l2_per_block: Divisor::new((l2.interleave.max(l2.line) / l2.line.max(1)) as u64),
            l2_line_div: Divisor::new(l2.line as u64),
            l2_instances: l2.instances.max(1) as usize,
            scalar: (0..cus.max(1).div_ceil(scalar_cus))
                .map(|_| Cache::new(params.scalar.bytes, params.scalar.line, params.scalar.ways))
                .collect(),
            l2: (0..slices)
                .map(|_| Cache::new(l2.bytes / slices as u64, l2.line, l2.ways))
                .collect(),
            l2_free: vec![0; slices],
            mall: params
                .mall
                .as_ref()
                .map(|m| mall::Mall::new(m, params.dram.channels, l2.interleave as u64, clock_khz)),
            mall_evicted: Vec::new(),
            dram_line: dram_line as u64,
            dram: DeviceMemory::new(&params.dram, dram_line, l2.interleave as u64, clock_khz),
            timeline: None,
            counters: Counters {
                clock_khz,
                ..Counters::default()
            },
        }
    }

    /// The cycle a scalar load of `bytes` at `addr`, issued by `cu` at `at`, has its data.
    pub fn scalar(&mut self, cu: usize, at: u64, addr: u64, bytes: u32) -> u64 {
        let group = (cu / self.scalar_cus).min(self.scalar.len() - 1);
        let line_bytes = self.scalar_line as u64;
        let mut done = at;
        // (At the top of the address space, where the load faults when it runs, the lines
        // stop at the last.)
        let last = addr.saturating_add(bytes.max(1) as u64 - 1) / line_bytes;
        for line in addr / line_bytes..=last {
            self.counters.scalar_accesses += 1;
            let ready = if self.scalar[group].access(line, false) == Lookup::Hit {
                self.counters.scalar_hits += 1;
                (at + self.scalar_hit).max(self.scalar[group].fill_ready(line))
            } else {
                let r = L2Request {
                    addr: line * line_bytes,
                    sent: at,
                    access: Access::Load,
                    ops: 1,
                };
                let done = self.l2(cu, &r);
                self.scalar[group].set_fill_ready(line, done);
                done
            };
            done = done.max(ready);
        }
        done
    }

    /// When request `r` from `cu` is done: a load's or atomic's data back at the CU, a store
    /// acknowledged.
    pub fn l2(&mut self, cu: usize, r: &L2Request) -> u64 {
        let (addr, ops) = (r.addr, r.ops.max(1) as u64);
        let instance = cu % self.l2_instances;
        // The channel is chosen by the interleave block; within a channel, lines are indexed
        // by the address without the channel bits, so every set of the slice is used.
        let block = self.l2_interleave.quotient(addr);
        let channel = self.l2_channels.remainder(block);
        let line = self.l2_channels.quotient(block) * self.l2_per_block.get()
            + self
                .l2_line_div
                .quotient(self.l2_interleave.remainder(addr));
        let slice = instance * self.l2_channels.get() as usize + channel as usize;
        self.counters.tcc_req += 1;
        // A channel takes a request per cycle; an atomic holds it a cycle per lane.
        let start = r.sent.max(self.l2_free[slice]);
        self.l2_free[slice] = start + ops;
        let write = r.access != Access::Load;
        let lookup = self.l2[slice].access(line, write);
        if let Some(t) = self.timeline.as_mut() {
            let s = t.at(start);
            s.l2_requests += 1;
            s.l2_hits += (lookup == Lookup::Hit) as u64;
        }
        match lookup {
            Lookup::Hit => {
                self.counters.tcc_hit += 1;
                // A line still being filled serves its requests in arrival order once the
                // data is there.
                let filled = self.l2[slice].fill_ready(line);
                (start + ops - 1 + self.l2_hit).max(filled + ops)
            }
            Lookup::Miss { evicted_dirty } => {
                self.counters.tcc_miss += 1;
                if let Some(victim) = evicted_dirty {
                    self.counters.tcc_ea_wrreq += 1;
                    let victim = self.slice_line_address(channel, victim);
                    match self.mall.as_mut() {
                        Some(m) => {
                            let mut out = std::mem::take(&mut self.mall_evicted);
                            m.write(victim, self.l2_line as u64, start * FRAC, &mut out);
                            self.mall_write_backs(&mut out, start);
                            self.mall_evicted = out;
                        }
                        None => self.dram_write(victim, start),
                    }
                }
                if r.access == Access::Store {
                    // A write allocates without reading: the line is written whole or merged
                    // when it is written back.
                    return start + self.l2_hit;
                }
                self.counters.tcc_ea_rdreq += 1;
                if let Some(m) = self.mall.as_mut() {
                    let mut out = std::mem::take(&mut self.mall_evicted);
                    let read = m.read(addr, self.l2_line as u64, start * FRAC, &mut out);
                    let latency = m.latency;
                    self.mall_write_backs(&mut out, start);
                    self.mall_evicted = out;
                    if let mall::Read::Hit(turn) = read {
                        self.counters.mall_hit += 1;
                        let done = turn.div_ceil(FRAC) + latency + ops - 1;
                        self.l2[slice].set_fill_ready(line, done + 1 - ops);
                        return done;
                    }
                    self.counters.mall_miss += 1;
                }
                // The line from memory, in the pieces it moves (two MALL lines on MI300).
                let mut turn = 0;
                for piece in (0..self.l2_line as u64).step_by(self.dram_line as usize) {
                    self.counters.dram_bytes += self.dram_line;
                    let t = self.dram.read(addr + piece, start * FRAC);
                    if let Some(tl) = self.timeline.as_mut() {
                        tl.at(t / FRAC).dram_bytes += self.dram_line;
                    }
                    turn = turn.max(t);
                }
                let done = turn.div_ceil(FRAC) + self.dram_latency + ops - 1;
                self.l2[slice].set_fill_ready(line, done + 1 - ops);
                done
            }
        }
    }

    /// The line at `addr` (of what device memory moves at once) written to it at cycle `at`.
    fn dram_write(&mut self, addr: u64, at: u64) {
        self.counters.dram_bytes += self.dram_line;
        if let Some(out) = self.dram.write(addr, at * FRAC) {
            if let Some(t) = self.timeline.as_mut() {
                t.at(out.start / FRAC).dram_bytes += out.lines * self.dram_line;
            }
        }
    }

    /// The dirty lines the MALL evicted at cycle `at` go to device memory.
    fn mall_write_backs(&mut self, lines: &mut Vec<u64>, at: u64) {
        for addr in lines.drain(..) {
            self.dram_write(addr, at);
        }
    }

    /// The address of line `line` of an L2 slice of `channel` (the inverse of the indexing in
    /// [`SharedMemory::l2`]), so that a line the slice evicts goes to its own memory channel.
    fn slice_line_address(&self, channel: u64, line: u64) -> u64 {
        let per_block = self.l2_per_block;
        let block = per_block.quotient(line) * self.l2_channels.get() + channel;
        block * self.l2_interleave.get() + per_block.remainder(line) * self.l2_line as u64
    }

    /// Starts a launch, whose cycles count from 0: the caches keep their lines, the queues are
    /// empty and every fill has arrived, and the counters start again.
    pub fn new_launch(&mut self, clock_khz: u32) {
        self.l2_free.fill(0);
        self.dram.new_launch();
        if let Some(m) = self.mall.as_mut() {
            m.new_launch();
        }
        self.l2.iter_mut().for_each(Cache::settle_fills);
        self.scalar.iter_mut().for_each(Cache::settle_fills);
        self.counters = Counters {
            clock_khz,
            ..Counters::default()
        };
        self.timeline = None;
    }

    /// Bytes of one L2 line (what one `TCC_EA_RDREQ` or `TCC_EA_WRREQ` moves here).
    pub fn l2_line(&self) -> u32 {
        self.l2_line
    }
}

/// A whole device's memory system worked in one place: each request's CU part, then its
/// shared part at once. The timing model splits the two (the CU part at issue, the shared part
/// between windows in time order); this is the model on its own, for tests and tools.
pub struct MemorySystem {
    pub cus: Vec<CuMemory>,
    pub shared: SharedMemory,
    to_l2: Vec<L2Request>,
}

impl MemorySystem {
    /// The memory system of a device of `cus` CUs with `params`, clocked at `clock_khz`.
    pub fn new(params: &Params, cus: usize, clock_khz: u32) -> MemorySystem {
        MemorySystem {
            cus: (0..cus.max(1)).map(|_| CuMemory::new(params)).collect(),
            shared: SharedMemory::new(params, cus, clock_khz),
            to_l2: Vec::new(),
        }
    }

    /// The cycle `req`'s last line is back (loads, atomics) or acknowledged by the L2 (stores).
    pub fn vector(&mut self, req: &VectorRequest) -> u64 {
        let cu = req.cu.min(self.cus.len() - 1);
        self.to_l2.clear();
        let mut done = self.cus[cu].issue(req, &mut self.to_l2);
        for r in &self.to_l2 {
            let at = self.shared.l2(cu, r);
            self.cus[cu].filled(r, at);
            done = done.max(at);
        }
        done
    }

    /// The cycle a scalar load of `bytes` at `addr`, issued by `cu` at `at`, has its data.
    pub fn scalar(&mut self, cu: usize, at: u64, addr: u64, bytes: u32) -> u64 {
        self.shared.scalar(cu, at, addr, bytes)
    }

    /// Every CU's counters and the shared ones, added up.
    pub fn counters(&self) -> Counters {
        let mut c = self.shared.counters.clone();
        self.cus.iter().for_each(|m| c.add(&m.counters));
        c
    }
}

#[cfg(test)]
mod tests;
