//! The table rows a generated program draws from, per target: every op the emulator executes
//! in compute whose operands the generator can fill legally, minus the few whose result
//! depends on when or where a wave runs (clocks, hardware registers), that move the program
//! counter (branches are generated as structure), that index registers through M0 (they
//! could write the reserved registers) or that change the MODE register.

use crate::exec::support::{support, Support};
use gcn_isa::{Format, ImmKind, MemKind, Op, OpId, OpInfo, Regs, Slot, Target};
use std::sync::OnceLock;

/// The rows of one target, by the way the generator fills them.
pub struct Pool {
    /// Scalar and vector ALU ops (SOP*, VOP*), operands from [`super::operand`].
    pub alu: Vec<OpId>,
    /// `s_load_dword*` and `s_buffer_load_dword*`.
    pub smem_loads: Vec<OpId>,
    /// GLOBAL, FLAT and MUBUF loads, stores and atomics of a fixed width.
    pub vmem: Vec<OpId>,
    /// DS loads, stores and atomics on lanes' own addresses.
    pub ds: Vec<OpId>,
    /// ds_swizzle, ds_permute, ds_bpermute: lanes exchange registers, no LDS memory.
    pub ds_cross: Vec<OpId>,
}

/// The pool of `target` (built once per op set).
pub fn pool(target: Target) -> &'static Pool {
    static POOLS: OnceLock<Vec<Pool>> = OnceLock::new();
    const SETS: [Target; 4] = [
        Target::Gfx900,
        Target::Gfx906,
        Target::Gfx908,
        Target::Gfx90a,
    ];
    let pools = POOLS.get_or_init(|| SETS.iter().map(|&t| build(t)).collect());
    let index = SETS
        .iter()
        .position(|t| t.op_set() == target.op_set())
        .unwrap_or(0);
    &pools[index]
}

/// Mnemonic parts of ops left out: register indexing through M0 or the GPR index mode, MODE
/// changes, wave placement or time read back, and jumps through registers (not all of which
/// the table marks as writing the PC).
const DENIED: [&str; 11] = [
    "rfe",
    "setpc",
    "swappc",
    "movrel",
    "gpr_idx",
    "setvskip",
    "getreg",
    "setreg",
    "memtime",
    "memrealtime",
    "screen_partition",
];

fn build(target: Target) -> Pool {
    let mut p = Pool {
        alu: Vec::new(),
        smem_loads: Vec::new(),
        vmem: Vec::new(),
        ds: Vec::new(),
        ds_cross: Vec::new(),
    };
    for (id, op) in gcn_isa::all_ops().iter().enumerate() {
        let id = id as OpId;
        if op.targets & target.op_set().bit() == 0
            || support(op, target) != Support::Implemented
            || DENIED.iter().any(|d| op.name.contains(d))
            || touches(op, Regs::PC)
            || touches(op, Regs::M0)
            || op.facts.lgkm
        {
            continue;
        }
        match op.format {
            Format::Sop1
            | Format::Sop2
            | Format::Sopc
            | Format::Sopk
            | Format::Vop1
            | Format::Vop2
            | Format::Vopc
            | Format::Vop3
            | Format::Vop3p
                if op.facts.mem.is_none() && op.operands.iter().all(alu_slot) =>
            {
                p.alu.push(id)
            }
            Format::Smem if is_scalar_load(op.op) => p.smem_loads.push(id),
            Format::Global | Format::Flat | Format::Mubuf
                if op.facts.bytes > 0 && data_op(op) && !op.name.contains("_lds_") =>
            {
                p.vmem.push(id)
            }
            Format::Ds if op.name.contains("swizzle") || op.name.contains("permute") => {
                p.ds_cross.push(id)
            }
            Format::Ds
                if op.facts.bytes > 0
                    && data_op(op)
                    && !op.facts.cross
                    && !op.facts.src2
                    && !op.facts.st64 =>
            {
                p.ds.push(id)
            }
            _ => {}
        }
    }
    p
}

fn touches(op: &OpInfo, r: Regs) -> bool {
    op.facts.reads.contains(r) || op.facts.writes.contains(r)
}

/// A load, store or atomic of register data.
fn data_op(op: &OpInfo) -> bool {
    matches!(
        op.facts.mem,
        Some(MemKind::Load | MemKind::Store | MemKind::Atomic | MemKind::AtomicReturn)
    )
}

/// Can the ALU operand generator fill this slot?
fn alu_slot(s: &Slot) -> bool {
    match s {
        Slot::Reg { .. } | Slot::Fixed(_) => true,
        Slot::Imm(k) => matches!(k, ImmKind::Simm16 | ImmKind::Uimm16 | ImmKind::Literal),
    }
}

/// `s_load_dword*` and `s_buffer_load_dword*` (not the scratch loads, which need a scratch
/// setup the generated kernel has not).
fn is_scalar_load(op: Op) -> bool {
    matches!(
        op,
        Op::S_LOAD_DWORD
            | Op::S_LOAD_DWORDX2
            | Op::S_LOAD_DWORDX4
            | Op::S_LOAD_DWORDX8
            | Op::S_LOAD_DWORDX16
            | Op::S_BUFFER_LOAD_DWORD
            | Op::S_BUFFER_LOAD_DWORDX2
            | Op::S_BUFFER_LOAD_DWORDX4
            | Op::S_BUFFER_LOAD_DWORDX8
            | Op::S_BUFFER_LOAD_DWORDX16
    )
}

/// The mnemonic of a one-encoding op (to write structure: branches, the end).
pub fn mnemonic(op: Op) -> &'static str {
    gcn_isa::all_ops()
        .iter()
        .find(|r| r.op == op)
        .map_or("", |r| r.name)
}
