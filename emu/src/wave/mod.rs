//! The architectural state of one wavefront: SGPRs (with VCC, EXEC, M0, FLAT_SCRATCH and the trap
//! temporaries at their operand codes), VGPRs and the matrix cores' accumulation registers
//! (AGPRs) as 64-lane rows, SCC, MODE, the program counter and the wait counters.

use gcn_isa::operand::{EXEC_LO, FLAT_SCRATCH_LO, M0, VCC_LO};
use gcn_isa::{Agprs, Target};

/// Lanes in a gfx9 wavefront.
pub const WAVE_SIZE: usize = 64;
/// One VGPR across the wave: lane `l` is element `l`.
pub type Row = [u32; WAVE_SIZE];
/// VGPRs addressable by an instruction (an 8-bit register field).
pub const VGPRS: usize = 256;
/// AGPRs addressable by an instruction.
pub const AGPRS: usize = 256;
/// Rows a wave's register file can have: gfx90a's unified 512, or gfx908's 256 VGPRs and 256
/// AGPRs.
pub const MAX_ROWS: usize = 512;
/// Scalar registers addressable by a 7-bit operand code (s0–s101, specials, ttmps, m0, exec).
pub const SCALAR_CODES: usize = 128;

pub mod cache_line;
pub mod lane_masks;
pub mod spin;

/// MODE register fields (s_getreg/s_setreg hwreg 1).
pub mod mode {
    /// FP_ROUND[3:0]: bits 1:0 f32, bits 3:2 f64/f16; 0 = round to nearest even.
    pub const ROUND_MASK: u32 = 0xf;
    /// FP_DENORM[7:4]: bits 5:4 f32, bits 7:6 f64/f16; 3 = keep input and output denormals.
    pub const DENORM_SHIFT: u32 = 4;
    pub const DX10_CLAMP: u32 = 1 << 8;
    pub const IEEE: u32 = 1 << 9;
}

/// A row of zeros: what a VGPR beyond the allocation reads.
static ZERO_ROW: Row = [0; WAVE_SIZE];

/// How a wave's register file is laid out: `rows` rows, VGPRs first, the AGPRs from row
/// `agpr_base` to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegFile {
    pub rows: usize,
    pub agpr_base: usize,
}

impl RegFile {
    /// `vgprs` VGPRs and no AGPRs.
    pub fn vgprs_only(vgprs: usize) -> RegFile {
        let rows = vgprs.min(VGPRS);
        RegFile {
            rows,
            agpr_base: rows,
        }
    }

    /// The file of a wave of `target` whose kernel allocates `vgprs` registers (as the hardware
    /// rounds them). gfx908 gives a wave as many AGPRs as VGPRs, in a file of their own (LLVM
    /// allocates max(VGPRs, AGPRs) of each); gfx90a's one file holds both, the AGPRs from
    /// `accum_offset` (COMPUTE_PGM_RSRC3: (ACCUM_OFFSET + 1) * 4) on.
    pub fn new(target: Target, vgprs: usize, accum_offset: Option<usize>) -> RegFile {
        match target.features().agprs {
            Agprs::None => RegFile::vgprs_only(vgprs),
            Agprs::Separate => {
                let n = vgprs.min(VGPRS);
                RegFile {
                    rows: 2 * n,
                    agpr_base: n,
                }
            }
            Agprs::Unified => {
                let rows = vgprs.min(target.features().vgprs_per_wave as usize);
                RegFile {
                    rows,
                    agpr_base: accum_offset.unwrap_or(rows).min(rows),
                }
            }
        }
    }

    /// The whole file a wave of `target` can have, for instruction-level tests: 256 VGPRs, and
    /// 256 AGPRs where the target has them (on gfx90a, `accum_offset` 256).
    pub fn full(target: Target) -> RegFile {
        match target.features().agprs {
            Agprs::None => RegFile::vgprs_only(VGPRS),
            _ => RegFile {
                rows: VGPRS + AGPRS,
                agpr_base: VGPRS,
            },
        }
    }

    /// AGPRs the file holds.
    pub fn agprs(&self) -> usize {
        self.rows - self.agpr_base
    }
}

/// A wave's register file: the rows its kernel allocates (`granulated count + 1) * 4` VGPRs on
/// gfx9, followed by its AGPRs on gfx908; gfx90a's unified file of VGPRs and AGPRs), not all
/// the encoding can name, so a resident wave costs what the hardware gives it (the timing model
/// keeps thousands resident). Indexing by a VGPR number reads the row of that number; AGPRs are
/// reached through [`Vgprs::agpr_row`]. An instruction naming a VGPR beyond the allocation
/// (undefined on hardware; compiled code never does) reads zeros and its write is dropped,
/// except that on gfx908 such a VGPR reads the AGPR row of its number, as one file of rows holds
/// both.
#[derive(Clone)]
pub struct Vgprs {
    rows: Vec<CacheLineRow>,
    /// The row of a0; `rows.len()` when the wave has no AGPRs.
    agpr_base: usize,
    /// Where writes beyond the allocation go (cleared at every such access; allocated at the
    /// first, which compiled code never makes).
    spare: Option<Box<Row>>,
}

/// A row at the start of a host cache line ([`cache_line`]).
type CacheLineRow = cache_line::CacheLine<Row>;

const ZEROED: CacheLineRow = cache_line::CacheLine([0; WAVE_SIZE]);

impl Vgprs {
    /// The rows as rows.
    #[inline(always)]
    fn all(&self) -> &[Row] {
        // SAFETY: `CacheLine` is `repr(C)` around one `Row`, whose size (256 bytes) is a
        // multiple of its alignment, so it has the size of a `Row` and no padding, and a slice
        // of them is a slice of rows.
        unsafe { std::slice::from_raw_parts(self.rows.as_ptr().cast(), self.rows.len()) }
    }

    /// The rows as rows, mutable.
    #[inline(always)]
    fn all_mut(&mut self) -> &mut [Row] {
        // SAFETY: as in `all`; the borrow of `self` is held for the slice's life.
        unsafe { std::slice::from_raw_parts_mut(self.rows.as_mut_ptr().cast(), self.rows.len()) }
    }

    /// A zeroed file laid out as `file`.
    fn new(file: RegFile) -> Vgprs {
        let n = file.rows.min(MAX_ROWS);
        Vgprs {
            rows: vec![ZEROED; n],
            agpr_base: file.agpr_base.min(n),
            spare: None,
        }
    }

    /// Makes the file zeroed rows laid out as `file`, giving back memory a larger earlier
    /// allocation held.
    fn reset(&mut self, file: RegFile) {
        let n = file.rows.min(MAX_ROWS);
        if self.rows.capacity() > 2 * n.max(8) {
            self.rows = Vec::with_capacity(n);
        }
        self.rows.clear();
        self.rows.resize(n, ZEROED);
        self.agpr_base = file.agpr_base.min(n);
    }

    /// The layout of the file.
    pub fn file(&self) -> RegFile {
        RegFile {
            rows: self.rows.len(),
            agpr_base: self.agpr_base,
        }
    }

    /// The row that holds AGPR `n`, if the wave has it.
    #[inline]
    pub fn agpr_row(&self, n: usize) -> Option<usize> {
        let row = self.agpr_base.checked_add(n)?;
        (row < self.rows.len()).then_some(row)
    }

    /// Row `row` of the file counted from its start (VGPRs, then AGPRs), if the file has it.
    #[inline]
    pub fn row(&self, row: usize) -> Option<&Row> {
        self.all().get(row)
    }

    /// Row `row` of the file counted from its start, mutable.
    #[inline]
    pub fn row_mut(&mut self, row: usize) -> Option<&mut Row> {
        self.all_mut().get_mut(row)
    }

    /// The allocated rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Row> {
        self.all().iter()
    }

    /// Rows `start..start + n` as one slice, when they all lie in the allocation (a wide load
    /// then fills them in place).
    #[inline]
    pub fn rows_mut(&mut self, start: usize, n: usize) -> Option<&mut [Row]> {
        self.all_mut().get_mut(start..start.checked_add(n)?)
    }
}

impl std::ops::Index<usize> for Vgprs {
    type Output = Row;

    #[inline(always)]
    fn index(&self, i: usize) -> &Row {
        self.all().get(i).unwrap_or(&ZERO_ROW)
    }
}

impl std::ops::IndexMut<usize> for Vgprs {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut Row {
        if i < self.rows.len() {
            &mut self.all_mut()[i]
        } else {
            self.out_of_range()
        }
    }
}

impl Vgprs {
    /// Copies row `src` to row `dst` in the lanes set in `exec`, row to row: a copy through a
    /// row on the stack stalls on reading back what was just stored there. False (nothing
    /// done) if either lies outside the allocation.
    #[inline]
    pub fn copy_row(&mut self, dst: usize, src: usize, exec: u64) -> bool {
        let n = self.rows.len();
        if dst >= n || src >= n {
            return false;
        }
        if dst != src {
            let (d, s) = if dst < src {
                let (lo, hi) = self.all_mut().split_at_mut(src);
                (&mut lo[dst], &hi[0])
            } else {
                let (lo, hi) = self.all_mut().split_at_mut(dst);
                (&mut hi[0], &lo[src])
            };
            select_lanes(d, s, exec);
        }
        true
    }

    /// Writes `value` to row `dst` in the lanes set in `exec` (outside the allocation, to the
    /// spare row, as any write there).
    #[inline]
    pub fn fill_row(&mut self, dst: usize, value: u32, exec: u64) {
        let row = &mut self[dst];
        if exec == u64::MAX {
            *row = [value; WAVE_SIZE];
        } else {
            lane_masks::merge_lanes(row, &[value; WAVE_SIZE], exec);
        }
    }

    #[cold]
    fn out_of_range(&mut self) -> &mut Row {
        let row = self.spare.get_or_insert_with(|| Box::new([0; WAVE_SIZE]));
        **row = [0; WAVE_SIZE];
        row
    }
}

/// `row` takes `vals` in the lanes set in `exec`.
#[inline(always)]
pub fn select_lanes(row: &mut Row, vals: &Row, exec: u64) {
    if exec == u64::MAX {
        *row = *vals;
    } else {
        lane_masks::merge_lanes(row, vals, exec);
    }
}

/// Where a wave is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveState {
    Running,
    /// Waiting at s_barrier for the rest of its workgroup.
    Barrier,
    /// Executed s_endpgm.
    Ended,
}

/// Outstanding-operation counters of §4.4. The functional engine completes memory operations at
/// issue (`issue` then `complete` in the same step); the timing model completes them after
/// their latency, and `s_waitcnt` stalls on these values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaitCounters {
    pub vm: u8,
    pub lgkm: u8,
    pub exp: u8,
}

impl WaitCounters {
    pub fn issue(&mut self, c: gcn_isa::class::Counters) {
        self.vm += c.vm as u8;
        self.lgkm += c.lgkm as u8;
        self.exp += c.exp as u8;
    }

    pub fn complete(&mut self, c: gcn_isa::class::Counters) {
        self.vm -= c.vm as u8;
        self.lgkm -= c.lgkm as u8;
        self.exp -= c.exp as u8;
    }

    /// Does an `s_waitcnt` with this simm16 let the wave continue? (gfx9 field layout.)
    pub fn satisfies(&self, simm16: u16) -> bool {
        self.within(&WaitCounters::waitcnt(simm16))
    }

    /// The counts an `s_waitcnt` with this simm16 waits for (gfx9 field layout).
    pub fn waitcnt(simm16: u16) -> WaitCounters {
        let s = simm16;
        WaitCounters {
            vm: ((s & 0xf) | ((s >> 14) & 3) << 4) as u8,
            lgkm: ((s >> 8) & 0xf) as u8,
            exp: ((s >> 4) & 7) as u8,
        }
    }

    /// Is every counter at most its `limit`?
    #[inline]
    pub fn within(&self, limit: &WaitCounters) -> bool {
        self.vm <= limit.vm && self.lgkm <= limit.lgkm && self.exp <= limit.exp
    }
}

/// One wavefront.
#[derive(Clone)]
pub struct Wave {
    /// Indexed by operand code: 0–101 SGPRs, 102/103 FLAT_SCRATCH, 104/105 XNACK_MASK,
    /// 106/107 VCC, 108–123 TTMP0–15, 124 M0, 125 (unused), 126/127 EXEC.
    pub sgpr: [u32; SCALAR_CODES],
    pub vgpr: Vgprs,
    pub scc: bool,
    /// Index of the next instruction in the program.
    pub pc: u32,
    pub mode: u32,
    pub trapsts: u32,
    pub counters: WaitCounters,
    pub state: WaveState,
    /// Position of the wave in its workgroup (0-based).
    pub index: u32,
    /// The workgroup's linear id in its dispatch (x fastest), which picks its XCD on MI300.
    pub group: u32,
    /// Work-items of the workgroup this wave covers (lanes beyond start with EXEC clear).
    pub lanes: u32,
    /// Wave-instructions executed.
    pub instructions: u64,
    /// CSP[2:0], the fork/join control-stack pointer of §4.6 (entries live in SGPRs; see
    /// [`crate::exec::fork`]).
    pub csp: u8,
    /// The spin detector's view of the wave's loops ([`crate::wave::spin`]).
    pub spin: crate::wave::spin::SpinState,
    /// The fault of the instruction just run, while it goes from its semantic function to
    /// [`crate::exec::issue::execute`] ([`crate::exec::Ran::Faulted`]).
    pub fault: Option<Box<crate::fault::Fault>>,
    /// The GWS barrier round (resource, round) the wave waits to see end, after arriving at
    /// `ds_gws_barrier` ([`crate::memory::gws`]).
    pub gws_wait: Option<(u8, u32)>,
}

/// A register pair's value as the host holds two adjacent u32s in one u64 (and back): the low
/// register first.
#[inline]
fn halves_in_order(v: u64) -> u64 {
    if cfg!(target_endian = "little") {
        v
    } else {
        v.rotate_left(32)
    }
}

impl Wave {
    /// Wave `index` with all 256 VGPRs and no AGPRs (what instruction-level tests use).
    pub fn new(index: u32) -> Wave {
        Wave::with_vgprs(index, VGPRS)
    }

    /// Wave `index` with `vgprs` VGPRs and no AGPRs.
    pub fn with_vgprs(index: u32, vgprs: usize) -> Wave {
        Wave::with_file(index, RegFile::vgprs_only(vgprs))
    }

    /// Wave `index` with a register file laid out as `file`.
    pub fn with_file(index: u32, file: RegFile) -> Wave {
        Wave {
            sgpr: [0; SCALAR_CODES],
            vgpr: Vgprs::new(file),
            scc: false,
            pc: 0,
            mode: 0,
            trapsts: 0,
            counters: WaitCounters::default(),
            state: WaveState::Running,
            index,
            group: 0,
            lanes: 0,
            instructions: 0,
            csp: 0,
            spin: Default::default(),
            fault: None,
            gws_wait: None,
        }
    }

    /// Makes this the fresh wave `index` of a new workgroup with a zeroed register file laid
    /// out as `file` (what the kernel allocates), reusing the file's memory.
    pub fn reset(&mut self, index: u32, file: RegFile) {
        self.sgpr = [0; SCALAR_CODES];
        self.vgpr.reset(file);
        self.scc = false;
        self.pc = 0;
        self.mode = 0;
        self.trapsts = 0;
        self.counters = WaitCounters::default();
        self.state = WaveState::Running;
        self.index = index;
        self.group = 0;
        self.lanes = 0;
        self.instructions = 0;
        self.csp = 0;
        self.spin = Default::default();
        self.fault = None;
        self.gws_wait = None;
    }

    #[inline]
    pub fn pair(&self, code: u16) -> u64 {
        let c = code as usize;
        let pair = &self.sgpr[c..c + 2];
        // SAFETY: `pair` is two u32s, eight bytes, read unaligned.
        let v = unsafe { pair.as_ptr().cast::<u64>().read_unaligned() };
        halves_in_order(v)
    }

    /// Writes both registers of the pair at once. Every VALU op reads EXEC (and a carry VCC) as
    /// one 64-bit load; after two 32-bit stores of it the host cannot forward the stores to the
    /// load and waits for them to reach its cache, about 15 cycles per such read.
    #[inline]
    pub fn set_pair(&mut self, code: u16, v: u64) {
        let c = code as usize;
        let pair = &mut self.sgpr[c..c + 2];
        // SAFETY: `pair` is two u32s, eight bytes, written unaligned.
        unsafe {
            pair.as_mut_ptr()
                .cast::<u64>()
                .write_unaligned(halves_in_order(v))
        }
    }

    #[inline]
    pub fn exec(&self) -> u64 {
        self.pair(EXEC_LO)
    }

    #[inline]
    pub fn set_exec(&mut self, v: u64) {
        self.set_pair(EXEC_LO, v)
    }

    #[inline]
    pub fn vcc(&self) -> u64 {
        self.pair(VCC_LO)
    }

    #[inline]
    pub fn set_vcc(&mut self, v: u64) {
        self.set_pair(VCC_LO, v)
    }

    pub fn m0(&self) -> u32 {
        self.sgpr[M0 as usize]
    }

    pub fn flat_scratch(&self) -> u64 {
        self.pair(FLAT_SCRATCH_LO)
    }

    /// Lays the register file out as `file`, zeroed, unless it already is (the timing model's
    /// scratch wave takes the layout of each wave whose memory instruction it runs).
    pub fn ensure_file(&mut self, file: RegFile) {
        if self.vgpr.file() != file {
            self.vgpr.reset(file);
        }
    }

    /// Writes row `row` of the register file (VGPRs, then AGPRs from the file's `agpr_base`) in
    /// the lanes of `exec`; a row beyond the file is dropped.
    pub fn write_file_row(&mut self, row: usize, vals: &Row, exec: u64) {
        if let Some(r) = self.vgpr.row_mut(row) {
            select_lanes(r, vals, exec);
        }
    }

    /// Writes `vals` to VGPR `reg` in the lanes set in `exec`.
    #[inline]
    pub fn write_row(&mut self, reg: usize, vals: &Row, exec: u64) {
        select_lanes(&mut self.vgpr[reg % VGPRS], vals, exec);
    }

    /// Writes 64-bit lane values to the VGPR pair starting at `reg`.
    #[inline]
    pub fn write_row64(&mut self, reg: usize, vals: &[u64; WAVE_SIZE], exec: u64) {
        let mut lo = [0u32; WAVE_SIZE];
        let mut hi = [0u32; WAVE_SIZE];
        for l in 0..WAVE_SIZE {
            lo[l] = vals[l] as u32;
            hi[l] = (vals[l] >> 32) as u32;
        }
        self.write_row(reg, &lo, exec);
        self.write_row(reg + 1, &hi, exec);
    }

    /// The 64-bit lane values of the VGPR pair starting at `reg`.
    #[inline]
    pub fn row64(&self, reg: usize) -> [u64; WAVE_SIZE] {
        let lo = &self.vgpr[reg % VGPRS];
        let hi = &self.vgpr[(reg + 1) % VGPRS];
        let mut out = [0u64; WAVE_SIZE];
        for l in 0..WAVE_SIZE {
            out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
        }
        out
    }
}

impl std::fmt::Debug for Wave {
    // The register files are too large to print whole; show where the wave is.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wave")
            .field("index", &self.index)
            .field("pc", &self.pc)
            .field("state", &self.state)
            .field("exec", &format_args!("{:#x}", self.exec()))
            .field("scc", &self.scc)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waitcnt_fields() {
        let mut c = WaitCounters::default();
        // s_waitcnt vmcnt(0) expcnt(7) lgkmcnt(15) = 0x0f70
        assert!(c.satisfies(0x0f70));
        c.vm = 1;
        assert!(!c.satisfies(0x0f70));
        // vmcnt(63): low bits 0xf, high bits 3 << 14
        assert!(c.satisfies(0xcf7f));
        c.vm = 0;
        c.lgkm = 1;
        // lgkmcnt(0) = 0xc07f
        assert!(!c.satisfies(0xc07f));
    }

    #[test]
    fn merge_under_exec() {
        let mut w = Wave::new(0);
        let vals = [7u32; WAVE_SIZE];
        w.write_row(3, &vals, 0b101);
        assert_eq!(&w.vgpr[3][..4], &[7, 0, 7, 0]);
        w.write_row64(4, &[u64::MAX - 1; WAVE_SIZE], u64::MAX);
        assert_eq!(w.row64(4)[63], u64::MAX - 1);
        assert_eq!(w.vgpr[5][0], u32::MAX);
    }
}
