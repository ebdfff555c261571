//! Memory instructions run between windows, in completion order.
//!
//! At issue a memory instruction (SMEM, DS, MUBUF/MTBUF, FLAT/GLOBAL/SCRATCH) only records a
//! [`Request`]: a copy of the registers it reads. Before the CUs run the window that contains
//! its completion cycle, every such request of every CU runs — ordered by (completion cycle,
//! CU, issue number) — against global memory and its workgroup's LDS; what it writes to
//! registers becomes the landing its wave receives at that cycle. No memory latency is shorter
//! than a window, so every request completing in a window was issued before it: CUs never touch
//! shared memory while a window runs, can run it in parallel, and the result is the same for
//! any number of threads. For a program without races this is the same as reading memory at
//! issue; with races, the order is the completion order, as on a GPU.

use super::engine::{Block, CuSim};
use crate::exec::program::Program;
use crate::exec::{Cx, DispatchEnv};
use crate::fault::Fault;
use crate::hazard::regs::RegSet;
use crate::launch::hazards::HazardTable;
use crate::launch::Stop;
use crate::memory::Memory;
use crate::wave::{RegFile, Row, Wave, SCALAR_CODES, VGPRS, WAVE_SIZE};

/// SGPR codes from here up (flat_scratch, xnack_mask, VCC, trap registers, M0, EXEC) go into
/// every snapshot: instructions read some of them implicitly.
const SPECIAL_SGPRS: usize = 102;

/// Spent snapshots a CU keeps for reuse. In the steady state a window's issues take about
/// as many as the requests run before it gave back, so a few suffice; a burst (every wave's
/// first scalar loads at once, 120 per CU) would otherwise stay held for the rest of the
/// launch, into its later peak of memory.
const SNAPSHOTS_KEPT: usize = 16;

/// The wave state a memory instruction reads, copied at issue (its destination only when it
/// keeps part of it, [`super::facts::InstTiming::keeps_dst`]). Thousands are in flight at
/// once in a large launch, so it holds the SGPRs up to the highest general one the instruction
/// names, not the whole file, and only the vector registers it names: every wave's first
/// scalar loads, in flight all at once, copy none.
///
/// The copied registers are one buffer, read in order when the request runs a window or more
/// later, by which time the other CUs' windows have pushed it out of the host's caches: one
/// buffer is one miss and the hardware prefetcher's sequential lines, where a buffer per kind
/// of register (behind a box for the vector ones) was a chain of misses, each waiting on the
/// one before.
pub struct Snapshot {
    /// `low` SGPRs, `vgprs` VGPR numbers, their rows, then per AGPR its row in the wave's file
    /// and the row's values (a row is [`WAVE_SIZE`] words).
    words: Vec<u32>,
    low: u16,
    vgprs: u16,
    agprs: u16,
    sgpr_special: [u32; SCALAR_CODES - SPECIAL_SGPRS],
    scc: bool,
    mode: u32,
    trapsts: u32,
    csp: u8,
    index: u32,
    lanes: u32,
    /// Instruction index after the memory instruction (what `pc` was when it ran).
    pc: u32,
    /// The wave's register file layout.
    file: RegFile,
}

impl Snapshot {
    /// An empty snapshot, to be filled by [`Snapshot::fill`].
    pub fn empty() -> Box<Snapshot> {
        Box::new(Snapshot {
            words: Vec::new(),
            low: 0,
            vgprs: 0,
            agprs: 0,
            sgpr_special: [0; SCALAR_CODES - SPECIAL_SGPRS],
            scc: false,
            mode: 0,
            trapsts: 0,
            csp: 0,
            index: 0,
            lanes: 0,
            pc: 0,
            file: RegFile::vgprs_only(0),
        })
    }

    /// Copies from `w` the scalar state and the VGPRs of `regs` (operand codes): those the
    /// instruction reads, and for a d16 load its destination (it keeps the other half).
    /// Fills in place, so a recycled snapshot costs no allocation.
    pub fn fill(&mut self, w: &Wave, regs: RegSet) {
        let low = regs.end_below(SPECIAL_SGPRS as u16) as usize;
        let vgprs = || regs.vgpr_numbers().filter(|&v| (v as usize) < VGPRS);
        let agpr_rows = regs
            .agpr_numbers()
            .filter(|&a| w.vgpr.agpr_row(a as usize).is_some());
        // Exactly what it holds: grown by doubling, a snapshot held up to twice its words, and
        // a launch holds one for each memory instruction in flight.
        let len = low + vgprs().count() * (1 + WAVE_SIZE) + agpr_rows.count() * (1 + WAVE_SIZE);
        let words = &mut self.words;
        words.clear();
        words.reserve_exact(len);
        words.extend_from_slice(&w.sgpr[..low]);
        self.low = low as u16;
        self.sgpr_special.copy_from_slice(&w.sgpr[SPECIAL_SGPRS..]);
        self.scc = w.scc;
        self.mode = w.mode;
        self.trapsts = w.trapsts;
        self.csp = w.csp;
        self.index = w.index;
        self.lanes = w.lanes;
        self.pc = w.pc;
        self.file = w.vgpr.file();
        words.extend(vgprs().map(u32::from));
        self.vgprs = (words.len() - low) as u16;
        for v in vgprs() {
            words.extend_from_slice(&w.vgpr[v as usize]);
        }
        let mut agprs = 0;
        for a in regs.agpr_numbers() {
            if let Some(row) = w.vgpr.agpr_row(a as usize) {
                words.push(row as u32);
                words.extend_from_slice(w.vgpr.row(row).unwrap_or(&[0; WAVE_SIZE]));
                agprs += 1;
            }
        }
        self.agprs = agprs;
    }

    /// Loads the copy into `w` (a scratch wave; registers the instruction does not read keep
    /// whatever they held, which it does not look at).
    fn restore(&self, w: &mut Wave) {
        let low = self.low as usize;
        let (sgprs, rest) = self.words.split_at(low);
        w.sgpr[..low].copy_from_slice(sgprs);
        // What the instruction does not name is left over from an earlier request; debug
        // builds (the tests) poison it, so a read the register model missed shows.
        #[cfg(debug_assertions)]
        w.sgpr[low..SPECIAL_SGPRS].fill(0xdead_5bad);
        w.sgpr[SPECIAL_SGPRS..].copy_from_slice(&self.sgpr_special);
        w.scc = self.scc;
        w.mode = self.mode;
        w.trapsts = self.trapsts;
        w.csp = self.csp;
        w.index = self.index;
        w.lanes = self.lanes;
        w.pc = self.pc;
        // The AGPRs are rows past the VGPRs, where this wave's file puts them.
        w.ensure_file(self.file);
        let (ids, rest) = rest.split_at(self.vgprs as usize);
        let (rows, agprs) = rest.split_at(ids.len() * WAVE_SIZE);
        for (&v, row) in ids.iter().zip(rows.chunks_exact(WAVE_SIZE)) {
            w.vgpr[v as usize].copy_from_slice(row);
        }
        for agpr in agprs.chunks_exact(WAVE_SIZE + 1) {
            let row: &Row = agpr[1..].try_into().expect("a row's words");
            w.write_file_row(agpr[0] as usize, row, u64::MAX);
        }
    }
}

/// A memory instruction waiting to run.
pub struct Request {
    pub done: u64,
    /// The cycle it issued: a CU's requests due at one cycle run in this order.
    pub issued: u64,
    pub seq: u64,
    /// The wave's slot and workgroup on its CU.
    pub slot: usize,
    pub group: usize,
    pub index: u32,
    /// Whether it writes registers ([`super::facts::InstTiming::lands`]): which ones is the
    /// instruction's model's, looked up when needed rather than carried (a register set is
    /// larger than the rest of a request, and thousands are in flight).
    pub lands: bool,
    pub snap: Box<Snapshot>,
}

impl Request {
    /// Registers it writes (what its landing carries).
    pub fn writes(&self, models: &HazardTable) -> RegSet {
        match self.lands {
            true => models.models[self.index as usize].writes,
            false => RegSet::EMPTY,
        }
    }
}

/// What a request needs besides its CU.
pub struct Shared<'a> {
    pub program: &'a Program,
    pub env: &'a DispatchEnv,
    pub mem: &'a mut Memory,
    /// Reused for every request (its VGPR file is 64 KiB).
    pub scratch: Box<Wave>,
}

/// Runs request `r` of CU `sim`, due in the window from cycle `start`: its semantics against
/// memory and its group's LDS, then hands the registers it wrote to its wave for the completion
/// cycle.
pub fn run(
    sh: &mut Shared,
    sim: &mut CuSim,
    r: Request,
    start: u64,
) -> Result<(), (Stop, [u32; 3])> {
    let d = &sh.program.insts[r.index as usize];
    let writes = r.writes(sim.e.models);
    // The snapshot holds a destination only if the instruction keeps part of it; debug builds
    // (the tests) poison the others, so a lane the semantics leave unwritten shows when the
    // landing writes it.
    #[cfg(debug_assertions)]
    for v in writes.vgpr_numbers() {
        sh.scratch.vgpr[v as usize] = [0xdead_5bad; crate::wave::WAVE_SIZE];
    }
    r.snap.restore(&mut sh.scratch);
    let exec = sh.scratch.exec();
    let group = sim.groups[r.group]
        .as_mut()
        .expect("a group outlives its requests");
    let group_id = group.id;
    let mut cx = Cx {
        wave: &mut sh.scratch,
        mem: sh.mem,
        lds: &mut group.lds,
        program: sh.program,
        env: sh.env,
    };
    let result = crate::exec::issue::execute(&mut cx, d);
    group.outstanding -= 1;
    let wave = r.snap.index;
    if sim.snapshots.len() < SNAPSHOTS_KEPT {
        sim.snapshots.push(r.snap);
    }
    if let Err(fault) = result {
        return Err((fault_stop(wave, r.index, fault), group_id));
    }
    let slot = &mut sim.slots[r.slot];
    if sim.hot[r.slot].block != Block::Ended && !writes.is_empty() {
        slot.out
            .attach(r.seq, &sh.scratch, writes, exec, &mut sim.spare);
    }
    sim.retire_if_ended_before(r.group, start);
    Ok(())
}

fn fault_stop(wave: u32, index: u32, fault: Fault) -> Stop {
    Stop::Fault { wave, index, fault }
}

#[cfg(test)]
mod tests {
    use crate::cu::test_launch::launch;
    use crate::cu::{Arbitration, TimingConfig};
    use crate::exec::program::Program;
    use crate::memory::{AllocKind, Memory};
    use gcn_isa::{assemble, Target};

    /// A d16 load keeps the other half of its destination (its snapshot copies it) and a
    /// plain load overwrites all of it (its snapshot does not), each in the lanes active at
    /// issue only: in the other lanes both registers keep what they held.
    #[test]
    fn loads_land_in_their_issue_lanes_and_d16_keeps_the_other_half() {
        let text = "
            s_load_dwordx2 s[2:3], s[0:1], 0x0
            v_lshlrev_b32 v1, 2, v0
            v_mov_b32 v4, 0x11112222
            v_mov_b32 v5, 0x33334444
            s_waitcnt lgkmcnt(0)
            v_mov_b32 v3, s3
            v_add_co_u32 v2, vcc, s2, v1
            v_addc_co_u32 v3, vcc, 0, v3, vcc
            s_mov_b32 exec_lo, 0x0f0f0f0f
            s_mov_b32 exec_hi, 0x0f0f0f0f
            global_load_short_d16_hi v4, v[2:3], off
            global_load_dword v5, v[2:3], off
            s_waitcnt vmcnt(0)
            s_mov_b64 exec, -1
            global_store_dword v[2:3], v4, off offset:256
            global_store_dword v[2:3], v5, off offset:512
            s_endpgm";
        let code = assemble(text, Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        let mut mem = Memory::new(1 << 20);
        let kernarg = mem.alloc(8, AllocKind::Buffer).unwrap();
        let data = mem.alloc(768, AllocKind::Buffer).unwrap();
        mem.write_u64(kernarg, data).unwrap();
        let input = |l: u32| 0xa000_0000 | l << 16 | (0x100 + l);
        for l in 0..64 {
            mem.write_u32(data + 4 * l as u64, input(l)).unwrap();
        }
        let config = TimingConfig {
            cus: 1,
            arbitration: Arbitration::OldestFirst,
            ..TimingConfig::for_target(Target::Gfx900)
        };
        let (result, _, _) = launch(&program, &mut mem, kernarg, (1, 64), &config, 1000);
        assert!(result.is_ok());
        for l in 0..64u32 {
            let active = l % 8 < 4;
            let v4 = mem.read_u32(data + 256 + 4 * l as u64).unwrap();
            let v5 = mem.read_u32(data + 512 + 4 * l as u64).unwrap();
            if active {
                assert_eq!(v4, (input(l) & 0xffff) << 16 | 0x2222, "lane {l}");
                assert_eq!(v5, input(l), "lane {l}");
            } else {
                assert_eq!((v4, v5), (0x1111_2222, 0x3333_4444), "lane {l}");
            }
        }
    }
}
