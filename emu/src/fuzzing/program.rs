//! The generator: fuzz bytes to a kernel of valid instructions for one target.
//!
//! A program is the prologue ([`super::layout::prologue`]) and a block of items drawn from the
//! bytes: ALU ops, memory ops, waits, `s_nop`/`s_setprio`/`s_sleep`, forward branches over a
//! nested block, counted loops (at most two deep, at most four iterations), and, outside any
//! branch or loop so that every wave of a workgroup meets the same ones, barriers that switch
//! the shared LDS area between its write and read phases. Each instruction is assembled on its
//! own by `gcn_isa::assemble_inst` as it is drawn (a text the assembler refuses is dropped and
//! counted), then the whole text by `gcn_isa::assemble`, which resolves the labels.

use super::alu::alu_text;
use super::layout::{self, reg};
use super::memory::{ds_cross_text, ds_text, smem_text, vmem_text, LdsPhase, MemoryText};
use super::pending::{destination, registers, Pending};
use super::pool::{mnemonic, pool, Pool};
use arbitrary::{Result, Unstructured};
use gcn_isa::{assemble, assemble_inst, op_info, Assembly, MemKind, Op, Target};

/// Instructions a generated program may have (its loops run them at most 16 times).
const MAX_LINES: usize = 400;
/// Items of a branch's or a loop's block.
const NESTED_ITEMS: u32 = 24;

/// A generated program.
pub struct Generated {
    pub target: Target,
    /// Waves per workgroup (1, 2 or 4).
    pub waves: u32,
    pub text: String,
    pub assembly: Assembly,
    /// Drawn instructions the assembler refused (a generator's mistake; tests keep it rare).
    pub refused: Vec<String>,
}

struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    target: Target,
    pool: &'static Pool,
    lanes: u32,
    lines: Vec<String>,
    pending: Pending,
    phase: LdsPhase,
    labels: u32,
    refused: Vec<String>,
}

/// Draws a program for `target` from `u`. `None` when the whole text does not assemble (never
/// expected; the tests say so).
pub fn generate(u: &mut Unstructured, target: Target) -> Result<Option<Generated>> {
    let waves = *u.choose(&[1u32, 2, 4])?;
    let mut g = Gen {
        u,
        target,
        pool: pool(target),
        lanes: waves * 64,
        lines: layout::prologue(target, waves),
        pending: Pending::default(),
        phase: LdsPhase::Write,
        labels: 0,
        refused: Vec::new(),
    };
    g.block(0, 0)?;
    g.lines.push(mnemonic(Op::S_ENDPGM).into());
    let text = g.lines.join("\n");
    let refused = g.refused;
    Ok(assemble(&text, target).ok().map(|assembly| Generated {
        target,
        waves,
        text,
        assembly,
        refused,
    }))
}

impl Gen<'_, '_> {
    /// Items until the bytes or the room run out, or the block draws its end (a nested one
    /// has at most [`NESTED_ITEMS`]).
    fn block(&mut self, depth: u32, loops: u32) -> Result<()> {
        let mut items = 0;
        while self.lines.len() < MAX_LINES && !self.u.is_empty() {
            items += 1;
            if depth > 0 && items > NESTED_ITEMS {
                return Ok(());
            }
            match self.u.int_in_range(0..=99u8)? {
                0..=44 => self.alu()?,
                45..=56 => self.vmem()?,
                57..=61 => self.smem()?,
                62..=71 => self.ds()?,
                72..=74 => self.waitcnt()?,
                75..=77 => self.control()?,
                78..=82 if depth < 3 => self.forward(depth, loops)?,
                83..=85 if loops < 2 => self.counted_loop(depth, loops)?,
                86..=88 if depth == 0 => self.barrier(),
                89..=92 if depth > 0 => return Ok(()),
                _ => self.alu()?,
            }
        }
        Ok(())
    }

    /// Assembles `text`; if it assembles, waits first for the loads it would race with, emits
    /// it, and returns the registers it names.
    fn emit(&mut self, text: String) -> Option<u128> {
        let Ok(inst) = assemble_inst(&text, self.target) else {
            self.refused.push(text);
            return None;
        };
        let touched = registers(&inst);
        if let Some(wait) = self.pending.wait_before(touched) {
            self.apply_wait(&wait);
            self.lines.push(wait);
        }
        self.lines.push(text);
        Some(touched)
    }

    /// The state after an `s_waitcnt` text of ours.
    fn apply_wait(&mut self, wait: &str) {
        let count = |name: &str| {
            let start = wait.find(&format!("{name}("))? + name.len() + 1;
            wait[start..].split(')').next()?.parse().ok()
        };
        self.pending.wait(count("vmcnt"), count("lgkmcnt"));
    }

    fn wait_all(&mut self) {
        let wait = "s_waitcnt vmcnt(0) lgkmcnt(0)";
        self.apply_wait(wait);
        self.lines.push(wait.into());
    }

    fn alu(&mut self) -> Result<()> {
        let id = *self.u.choose(&self.pool.alu)?;
        if let Some(text) = alu_text(self.u, self.target, op_info(id))? {
            self.emit(text);
        }
        Ok(())
    }

    /// A memory instruction: its address arithmetic, then itself, then what it will write is in
    /// flight.
    fn memory(&mut self, m: MemoryText, writes_data: bool) {
        for line in m.setup {
            if self.emit(line).is_none() {
                return;
            }
        }
        let Ok(inst) = assemble_inst(&m.text, self.target) else {
            self.refused.push(m.text);
            return;
        };
        // A load or returning atomic writes its destination when it lands; the address and
        // stored data it has read at issue.
        let written = if writes_data { destination(&inst) } else { 0 };
        if let Some(wait) = self.pending.wait_before(registers(&inst) | written) {
            self.apply_wait(&wait);
            self.lines.push(wait);
        }
        self.lines.push(m.text);
        self.pending.issue(m.counter, written);
    }

    fn vmem(&mut self) -> Result<()> {
        let id = *self.u.choose(&self.pool.vmem)?;
        let op = op_info(id);
        let m = vmem_text(self.u, self.target, op)?;
        let writes = op.facts.mem == Some(MemKind::Load) || m.text.ends_with(" glc");
        self.memory(m, writes);
        Ok(())
    }

    fn smem(&mut self) -> Result<()> {
        let id = *self.u.choose(&self.pool.smem_loads)?;
        let m = smem_text(self.u, op_info(id))?;
        self.memory(m, true);
        Ok(())
    }

    fn ds(&mut self) -> Result<()> {
        if self.u.ratio(1, 6)? {
            let id = *self.u.choose(&self.pool.ds_cross)?;
            let m = ds_cross_text(self.u, self.target, op_info(id))?;
            self.memory(m, true);
            return Ok(());
        }
        let id = *self.u.choose(&self.pool.ds)?;
        let op = op_info(id);
        let m = ds_text(self.u, self.target, op, self.phase, self.lanes)?;
        let writes = matches!(op.facts.mem, Some(MemKind::Load | MemKind::AtomicReturn));
        self.memory(m, writes);
        Ok(())
    }

    /// A wait of the program's own choosing (more waiting is always safe).
    fn waitcnt(&mut self) -> Result<()> {
        let vm = self.u.int_in_range(0..=3usize)?;
        let lgkm = self.u.int_in_range(0..=3usize)?;
        let wait = format!("s_waitcnt vmcnt({vm}) lgkmcnt({lgkm})");
        self.apply_wait(&wait);
        self.lines.push(wait);
        Ok(())
    }

    fn control(&mut self) -> Result<()> {
        let line = match self.u.int_in_range(0..=3u8)? {
            0 => format!("s_nop {}", self.u.int_in_range(0..=7u8)?),
            1 => format!("s_setprio {}", self.u.int_in_range(0..=3u8)?),
            // v_cmpx and writes to EXEC switch lanes off; switch them all on again.
            2 => "s_mov_b64 exec, -1".into(),
            _ => format!("s_sleep {}", self.u.int_in_range(0..=2u8)?),
        };
        self.lines.push(line);
        Ok(())
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    /// A branch over a block: where the paths join, whatever either left in flight is.
    fn forward(&mut self, depth: u32, loops: u32) -> Result<()> {
        let branch = mnemonic(*self.u.choose(&[
            Op::S_CBRANCH_SCC0,
            Op::S_CBRANCH_SCC1,
            Op::S_CBRANCH_VCCZ,
            Op::S_CBRANCH_VCCNZ,
            Op::S_CBRANCH_EXECZ,
            Op::S_CBRANCH_EXECNZ,
            Op::S_CBRANCH_SCC1,
            Op::S_CBRANCH_VCCZ,
            Op::S_BRANCH,
        ])?);
        let label = self.label();
        self.lines.push(format!("{branch} {label}"));
        let taken = self.pending.clone();
        self.block(depth + 1, loops)?;
        self.pending.merge(&taken);
        self.lines.push(format!("{label}:"));
        Ok(())
    }

    /// A loop counted down in its own SGPR, which no generated instruction writes; nothing is
    /// in flight where it starts or jumps back.
    fn counted_loop(&mut self, depth: u32, loops: u32) -> Result<()> {
        let counter = format!("s{}", reg::LOOP_COUNTER + loops);
        let iterations = self.u.int_in_range(1..=4u32)?;
        self.wait_all();
        self.lines
            .push(format!("s_mov_b32 {counter}, {iterations}"));
        let label = self.label();
        self.lines.push(format!("{label}:"));
        self.block(depth + 1, loops + 1)?;
        self.wait_all();
        self.lines
            .push(format!("s_sub_u32 {counter}, {counter}, 1"));
        self.lines.push(format!("s_cmp_lg_u32 {counter}, 0"));
        self.lines.push(format!("s_cbranch_scc1 {label}"));
        Ok(())
    }

    /// Every access before it done, then the shared LDS area changes phase.
    fn barrier(&mut self) {
        self.wait_all();
        self.lines.push(mnemonic(Op::S_BARRIER).into());
        self.phase = match self.phase {
            LdsPhase::Write => LdsPhase::Read,
            LdsPhase::Read => LdsPhase::Write,
        };
    }
}

impl Generated {
    /// A program from its text (to replay or minimise a finding).
    pub fn from_text(target: Target, waves: u32, text: &str) -> Option<Generated> {
        let assembly = assemble(text, target).ok()?;
        Some(Generated {
            target,
            waves,
            text: text.to_string(),
            assembly,
            refused: Vec::new(),
        })
    }
}
