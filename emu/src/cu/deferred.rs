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

/// The special SGPR codes every snapshot holds, as instructions read some of them implicitly:
/// flat_scratch, xnack_mask and VCC (102–107), then M0, code 125 and EXEC (124–127). The trap
/// registers between (TTMP0–15) are read only where named, and go with the general ones then.
const SPECIAL_LOW: std::ops::Range<usize> = 102..108;
const SPECIAL_HIGH: std::ops::Range<usize> = 124..SCALAR_CODES;
const SPECIALS: usize = SPECIAL_LOW.end - SPECIAL_LOW.start + SPECIAL_HIGH.end - SPECIAL_HIGH.start;

/// The first trap register's code, and one past the last's.
const TTMPS: std::ops::Range<u16> = 108..124;

/// Words of a snapshot's header: the counts (`low` and VGPRs named), CSP and SCC, MODE,
/// TRAPSTS, the wave's index and lanes, `pc`, the register file's layout, then the specials.
const HEADER: usize = 8 + SPECIALS;

/// Set in a VGPR number of a snapshot whose row's lanes all hold one value (all the lanes
/// EXEC enables, for an instruction that reads no other), kept as that one word: the offset
/// row of 0 and the uniform comparands and bases that atomics and stores name (histogram's
/// atomics to one address name one such row each). With thousands of requests in flight,
/// their rows are most of a timed launch's heap beside the waves' registers.
const UNIFORM: u32 = 1 << 31;

/// Set in a VGPR number of a snapshot whose row is kept as the values of the lanes EXEC
/// enables only, in lane order: for global, scratch, FLAT and buffer instructions, which read
/// no other lane (a reduction's one lane that adds its sum to global memory keeps a word a
/// row, not 64).
const ACTIVE_LANES: u32 = 1 << 30;

/// Spent snapshots a CU keeps for reuse. In the steady state a window's issues take about
/// as many as the requests run before it gave back, so a few suffice; a burst (every wave's
/// first scalar loads at once, 120 per CU) would otherwise stay held for the rest of the
/// launch, into its later peak of memory.
const SNAPSHOTS_KEPT: usize = 4;

/// The wave state a memory instruction reads, copied at issue (its destination only when it
/// keeps part of it, [`super::facts::InstTiming::keeps_dst`]). Thousands are in flight at
/// once in a large launch, so it holds the SGPRs up to the highest general one the instruction
/// names, not the whole file, and only the vector registers it names: every wave's first
/// scalar loads, in flight all at once, copy none.
///
/// Everything is one buffer of words, read in order when the request runs a window or more
/// later, by which time the other CUs' windows have pushed it out of the host's caches: one
/// buffer is one miss and the hardware prefetcher's sequential lines, where a buffer per kind
/// of register (behind a box for the vector ones) was a chain of misses, each waiting on the
/// one before. The scalar state is a [`HEADER`] in the buffer rather than fields beside it,
/// which a request would have to keep behind a box of its own.
///
/// After the header: `low` SGPRs, the VGPR numbers (with [`UNIFORM`] or [`ACTIVE_LANES`] set
/// for a row kept in fewer words), their rows, then per AGPR its row in the wave's file and the
/// row's values (a row is [`WAVE_SIZE`] words).
pub struct Snapshot {
    words: Vec<u32>,
}

impl Snapshot {
    /// An empty snapshot, to be filled by [`Snapshot::fill`].
    pub fn empty() -> Snapshot {
        Snapshot { words: Vec::new() }
    }

    /// Copies from `w` the scalar state and the VGPRs of `regs` (operand codes): those the
    /// instruction reads, and for a d16 load its destination (it keeps the other half).
    /// `exec_lanes_only`: the instruction reads only the lanes EXEC enables, and the rows may
    /// keep only those. Fills in place, so a recycled snapshot costs no allocation.
    pub fn fill(&mut self, w: &Wave, regs: RegSet, exec_lanes_only: bool) {
        let low = match regs.end_below(TTMPS.end) > TTMPS.start {
            true => TTMPS.end,
            false => regs.end_below(SPECIAL_LOW.start as u16),
        } as usize;
        let vgprs = || regs.vgpr_numbers().filter(|&v| (v as usize) < VGPRS);
        let agpr_rows = regs
            .agpr_numbers()
            .filter(|&a| w.vgpr.agpr_row(a as usize).is_some());
        let lanes = match exec_lanes_only {
            true => w.exec(),
            false => u64::MAX,
        };
        // How each named row is kept: one word, the active lanes' words, or all 64.
        let kept = |v: u16| -> (u32, usize) {
            let row = &w.vgpr[v as usize];
            match uniform_in(row, lanes) {
                true => (UNIFORM, 1),
                false if lanes != u64::MAX => (ACTIVE_LANES, lanes.count_ones() as usize),
                false => (0, WAVE_SIZE),
            }
        };
        // (Each row looked at once, up to 64 of them; an instruction names far fewer.)
        let mut how = [0u32; 64];
        let mut named = 0;
        let mut row_words = 0;
        for v in vgprs() {
            let (h, n) = kept(v);
            if let Some(x) = how.get_mut(named) {
                *x = h;
            }
            named += 1;
            row_words += n;
        }
        let agprs = agpr_rows.count();
        // Exactly what it holds: grown by doubling, a snapshot held up to twice its words, and
        // a launch holds one for each memory instruction in flight.
        let len = HEADER + low + named + row_words + agprs * (1 + WAVE_SIZE);
        let words = &mut self.words;
        words.clear();
        if words.capacity() < len {
            // A new buffer, not the old one grown: nothing in it is kept, and growing it in
            // place copied it.
            *words = Vec::with_capacity(len);
        }
        let file = w.vgpr.file();
        words.extend_from_slice(&[
            low as u32 | (named as u32) << 16,
            (w.csp as u32) << 16 | (w.scc as u32) << 24,
            w.mode,
            w.trapsts,
            w.index,
            w.lanes,
            w.pc,
            file.rows as u32 | (file.agpr_base as u32) << 16,
        ]);
        words.extend_from_slice(&w.sgpr[SPECIAL_LOW]);
        words.extend_from_slice(&w.sgpr[SPECIAL_HIGH]);
        words.extend_from_slice(&w.sgpr[..low]);
        let first = len - agprs * (1 + WAVE_SIZE) - row_words;
        words.resize(first, 0);
        for (i, v) in vgprs().enumerate() {
            let row = &w.vgpr[v as usize];
            let how = if i < 64 { how[i] } else { kept(v).0 };
            words[first - named + i] = u32::from(v) | how;
            match how {
                UNIFORM => words.push(row[lanes.trailing_zeros() as usize % WAVE_SIZE]),
                ACTIVE_LANES => {
                    let mut e = lanes;
                    while e != 0 {
                        words.push(row[e.trailing_zeros() as usize]);
                        e &= e - 1;
                    }
                }
                _ => words.extend_from_slice(row),
            }
        }
        for a in regs.agpr_numbers() {
            if let Some(row) = w.vgpr.agpr_row(a as usize) {
                words.push(row as u32);
                words.extend_from_slice(w.vgpr.row(row).unwrap_or(&[0; WAVE_SIZE]));
            }
        }
    }

    /// The wave's position in its workgroup.
    fn wave_index(&self) -> u32 {
        self.words[4]
    }

    /// Loads the copy into `w` (a scratch wave; registers the instruction does not read keep
    /// whatever they held, which it does not look at).
    fn restore(&self, w: &mut Wave) {
        let (header, rest) = self.words.split_at(HEADER);
        let low = (header[0] & 0xffff) as usize;
        let named = (header[0] >> 16) as usize;
        let (sgprs, rest) = rest.split_at(low);
        w.sgpr[..low].copy_from_slice(sgprs);
        // What the instruction does not name is left over from an earlier request; debug
        // builds (the tests) poison it, so a read the register model missed shows.
        #[cfg(debug_assertions)]
        w.sgpr[low.min(SPECIAL_LOW.start)..SPECIAL_LOW.start].fill(0xdead_5bad);
        let (special_low, special_high) = header[8..].split_at(SPECIAL_LOW.len());
        w.sgpr[SPECIAL_LOW].copy_from_slice(special_low);
        w.sgpr[SPECIAL_HIGH].copy_from_slice(special_high);
        w.csp = (header[1] >> 16) as u8;
        w.scc = header[1] >> 24 & 1 != 0;
        w.mode = header[2];
        w.trapsts = header[3];
        w.index = header[4];
        w.lanes = header[5];
        w.pc = header[6];
        // The AGPRs are rows past the VGPRs, where this wave's file puts them.
        w.ensure_file(RegFile {
            rows: (header[7] & 0xffff) as usize,
            agpr_base: (header[7] >> 16) as usize,
        });
        let (ids, mut rest) = rest.split_at(named);
        let exec = w.exec();
        for &id in ids {
            let row = &mut w.vgpr[(id & !(UNIFORM | ACTIVE_LANES)) as usize];
            rest = match id & (UNIFORM | ACTIVE_LANES) {
                UNIFORM => {
                    *row = [rest[0]; WAVE_SIZE];
                    &rest[1..]
                }
                ACTIVE_LANES => {
                    // The other lanes are left over from an earlier request; debug builds
                    // poison them, so a read of one shows.
                    #[cfg(debug_assertions)]
                    row.fill(0xdead_5bad);
                    let n = exec.count_ones() as usize;
                    let mut e = exec;
                    for &x in &rest[..n] {
                        row[e.trailing_zeros() as usize] = x;
                        e &= e - 1;
                    }
                    &rest[n..]
                }
                _ => {
                    row.copy_from_slice(&rest[..WAVE_SIZE]);
                    &rest[WAVE_SIZE..]
                }
            };
        }
        for agpr in rest.chunks_exact(WAVE_SIZE + 1) {
            let row: &Row = agpr[1..].try_into().expect("a row's words");
            w.write_file_row(agpr[0] as usize, row, u64::MAX);
        }
    }
}

/// Whether the lanes of `lanes` all hold one value in `row` (an OR of each one's difference
/// from the first, which vectorises).
fn uniform_in(row: &Row, lanes: u64) -> bool {
    let first = row[lanes.trailing_zeros() as usize % WAVE_SIZE];
    (0..WAVE_SIZE).fold(0, |m, l| {
        m | (row[l] ^ first) & (lanes >> l & 1).wrapping_neg() as u32
    }) == 0
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
    pub snap: Snapshot,
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
    if super::engine::may_reach_lds(d.inst.format()) {
        group.lds_requests -= 1;
        if group.alive == 0 && group.lds_requests == 0 {
            group.lds.release();
        }
    }
    let wave = r.snap.wave_index();
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

    /// A snapshot keeps a uniform row as one word and, for an instruction that reads only the
    /// lanes EXEC enables, a row as those lanes: restored, every lane the instruction reads
    /// holds what the wave held, and the scalar state comes back whole.
    #[test]
    fn compact_rows_restore_the_lanes_an_instruction_reads() {
        use super::{Snapshot, HEADER, WAVE_SIZE};
        use crate::hazard::regs::RegSet;
        use crate::wave::Wave;
        use gcn_isa::operand::VGPR0;
        let mut w = Wave::new(3);
        for v in 0..8 {
            w.vgpr[v] = std::array::from_fn(|l| (v * 1000 + l * 7) as u32);
        }
        w.vgpr[2] = [0; WAVE_SIZE];
        // Uniform in the active lanes only.
        w.vgpr[3] = std::array::from_fn(|l| if l % 2 == 0 { 42 } else { l as u32 });
        for (i, s) in w.sgpr.iter_mut().enumerate() {
            *s = 0x1000 + i as u32;
        }
        let exec = 0x5555_0000_0000_5555u64;
        w.set_exec(exec);
        w.scc = true;
        w.csp = 2;
        w.mode = 0x3f0;
        w.pc = 77;
        let mut regs = RegSet::one(5); // s5
        regs.insert(VGPR0 + 1, 3); // v1, v2, v3
        regs.insert(VGPR0 + 6, 1); // v6
        for exec_lanes_only in [false, true] {
            let mut snap = Snapshot::empty();
            snap.fill(&w, regs, exec_lanes_only);
            // Rows v1 and v6 whole or as their 16 lanes; v2 one word; v3 one word only when
            // the inactive lanes do not count.
            let rows = match exec_lanes_only {
                true => 16 + 1 + 1 + 16,
                false => WAVE_SIZE + 1 + WAVE_SIZE + WAVE_SIZE,
            };
            assert_eq!(snap.words.len(), HEADER + 6 + 4 + rows);
            let mut back = Wave::new(0);
            snap.restore(&mut back);
            assert_eq!(back.exec(), exec);
            assert_eq!(&back.sgpr[..6], &w.sgpr[..6]);
            assert_eq!(&back.sgpr[102..108], &w.sgpr[102..108]);
            assert_eq!(&back.sgpr[124..], &w.sgpr[124..]);
            assert_eq!(
                (back.scc, back.csp, back.mode, back.pc, back.index),
                (true, 2, 0x3f0, 77, 3)
            );
            for v in [1, 2, 3, 6] {
                for l in 0..WAVE_SIZE {
                    if !exec_lanes_only || exec >> l & 1 != 0 {
                        assert_eq!(back.vgpr[v][l], w.vgpr[v][l], "v{v} lane {l}");
                    }
                }
            }
        }
    }

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
