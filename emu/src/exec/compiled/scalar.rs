//! Scalar ALU instructions and branches written into a region's code ([`super`]) instead of
//! called: each is a few host instructions on the wave's SGPRs and SCC, where a call costs
//! more than the work (saving registers, reading the operands' kinds from the
//! [`Decoded`]). A loop's bookkeeping (EXEC masks, counters, compares, branches) is half of
//! what a divergent kernel runs.
//!
//! Each op here does what its semantic function in [`crate::exec::sop`] does, for the operand
//! kinds compiled code uses: SGPRs (and VCC, EXEC, M0 by their codes) and constants. Anything
//! else (another source kind, an op not listed) is called as before.

use crate::exec::program::{Decoded, Src};
use crate::wave::{WaitCounters, Wave, SCALAR_CODES};
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use gcn_isa::operand::{EXEC_LO, VCC_LO};
use gcn_isa::Op;
use std::mem::offset_of;

/// What an inline scalar ALU op computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alu {
    /// `D = S0 op S1` with SCC set as the op says, 32 bits.
    Op32(Int32Op, SccRule),
    /// `D = S0 op S1`, SCC = D != 0, 64 bits.
    Bit64(BitOp),
    Mov32,
    Mov64,
    /// `D = SCC ? S0 : S1`.
    Cselect32,
    Cselect64,
    /// SCC = S0 cmp S1.
    Cmp32(IntCC),
    Cmp64(IntCC),
    /// D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
    Saveexec(BitOp),
    /// `s_addc_u32` (false) and `s_subb_u32` (true): SCC in, carry or borrow out to SCC.
    WithCarry(bool),
    /// A 64-bit shift of S0 by S1[5:0]; SCC = D != 0.
    Shift64(Shift),
    /// `s_movk_i32`: D = the sign-extended SIMM16.
    MovK,
    /// SCC = D cmp SIMM16 (sign-extended for the signed compares, else zero-extended).
    CmpK(IntCC),
    /// `s_addk_i32`: D += SIMM16, SCC = the signed overflow.
    AddK,
    /// `s_mulk_i32`: D *= SIMM16.
    MulK,
    /// No effect (`s_nop`).
    Nop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shift {
    Left,
    Right,
    RightSigned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Int32Op {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
    Lshl,
    Lshr,
    Ashr,
    Mul,
    MinI,
    MinU,
    MaxI,
    MaxU,
}

/// How a 32-bit op sets SCC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SccRule {
    /// Left as it is.
    Keep,
    /// D != 0.
    Nonzero,
    /// The unsigned carry or borrow.
    Carry,
    /// The signed overflow.
    Overflow,
    /// S0 < S1 (min) or S0 > S1 (max), compared as the op does.
    Picked,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BitOp {
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
}

/// A branch's condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Always,
    Scc(bool),
    /// VCC (false) or EXEC (true) is zero (`.1` false: is not).
    Zero(u16, bool),
}

/// An instruction written inline.
#[derive(Clone, Copy, Debug)]
pub enum Inline {
    /// A scalar ALU op: no call, and neither the program counter nor MODE changes.
    Alu(AluInline),
    /// A branch to the instruction `target` when `cond` holds.
    Branch { cond: Cond, target: u32 },
    /// `s_waitcnt` with these limits: it goes on when every counter is within its limit, else
    /// stalls ([`crate::exec::Ran::Stall`]).
    Waitcnt(WaitCounters),
}

/// A scalar ALU op with its operands.
#[derive(Clone, Copy, Debug)]
pub struct AluInline {
    alu: Alu,
    src: [Src; 2],
    sdst: u16,
    /// SIMM16 as the SOPK op takes it (sign- or zero-extended).
    imm: u32,
}

/// `d` written inline, if it is one of the ops here with operands they take.
pub fn inline(d: &Decoded) -> Option<Inline> {
    let op = d.inst.info().op;
    if let Some(cond) = branch(op) {
        // (A branch whose target is not an instruction faults: its semantic function says so.)
        return (d.target != u32::MAX).then_some(Inline::Branch {
            cond,
            target: d.target,
        });
    }
    if op == Op::S_WAITCNT {
        return Some(Inline::Waitcnt(WaitCounters::waitcnt(d.inst.simm16())));
    }
    let alu = alu(op)?;
    for (i, width) in operands(alu).into_iter().enumerate() {
        let Some(wide) = width else { continue };
        match d.src[i] {
            Src::Const(_) => {}
            // A pair's second register must exist (the semantic function reads it).
            Src::Sgpr(c) if (c as usize + wide as usize) < SCALAR_CODES => {}
            _ => return None,
        }
    }
    let simm16 = d.inst.simm16();
    // (The unsigned compares zero-extend SIMM16; every other SOPK op sign-extends it.)
    let unsigned = matches!(
        op,
        Op::S_CMPK_EQ_U32
            | Op::S_CMPK_LG_U32
            | Op::S_CMPK_GT_U32
            | Op::S_CMPK_GE_U32
            | Op::S_CMPK_LT_U32
            | Op::S_CMPK_LE_U32
    );
    let imm = match unsigned {
        true => simm16 as u32,
        false => simm16 as i16 as i32 as u32,
    };
    Some(Inline::Alu(AluInline {
        alu,
        src: [d.src[0], d.src[1]],
        sdst: d.sdst,
        imm,
    }))
}

/// The sources an op reads: `Some(true)` a 64-bit one, `Some(false)` a 32-bit one.
fn operands(alu: Alu) -> [Option<bool>; 2] {
    match alu {
        Alu::Op32(..) | Alu::Cselect32 | Alu::Cmp32(_) | Alu::WithCarry(_) => {
            [Some(false), Some(false)]
        }
        Alu::Bit64(_) | Alu::Cselect64 | Alu::Cmp64(_) => [Some(true), Some(true)],
        Alu::Shift64(_) => [Some(true), Some(false)],
        Alu::Mov32 => [Some(false), None],
        Alu::Mov64 | Alu::Saveexec(_) => [Some(true), None],
        Alu::MovK | Alu::CmpK(_) | Alu::AddK | Alu::MulK | Alu::Nop => [None, None],
    }
}

fn branch(op: Op) -> Option<Cond> {
    Some(match op {
        Op::S_BRANCH => Cond::Always,
        Op::S_CBRANCH_SCC0 => Cond::Scc(false),
        Op::S_CBRANCH_SCC1 => Cond::Scc(true),
        Op::S_CBRANCH_VCCZ => Cond::Zero(VCC_LO, true),
        Op::S_CBRANCH_VCCNZ => Cond::Zero(VCC_LO, false),
        Op::S_CBRANCH_EXECZ => Cond::Zero(EXEC_LO, true),
        Op::S_CBRANCH_EXECNZ => Cond::Zero(EXEC_LO, false),
        _ => return None,
    })
}

fn alu(op: Op) -> Option<Alu> {
    use Alu::*;
    use SccRule::*;
    Some(match op {
        Op::S_ADD_U32 => Op32(Int32Op::Add, Carry),
        Op::S_SUB_U32 => Op32(Int32Op::Sub, Carry),
        Op::S_ADD_I32 => Op32(Int32Op::Add, Overflow),
        Op::S_SUB_I32 => Op32(Int32Op::Sub, Overflow),
        Op::S_AND_B32 => Op32(Int32Op::And, Nonzero),
        Op::S_OR_B32 => Op32(Int32Op::Or, Nonzero),
        Op::S_XOR_B32 => Op32(Int32Op::Xor, Nonzero),
        Op::S_ANDN2_B32 => Op32(Int32Op::Andn2, Nonzero),
        Op::S_ORN2_B32 => Op32(Int32Op::Orn2, Nonzero),
        Op::S_LSHL_B32 => Op32(Int32Op::Lshl, Nonzero),
        Op::S_LSHR_B32 => Op32(Int32Op::Lshr, Nonzero),
        Op::S_ASHR_I32 => Op32(Int32Op::Ashr, Nonzero),
        Op::S_MUL_I32 => Op32(Int32Op::Mul, Keep),
        Op::S_MIN_I32 => Op32(Int32Op::MinI, Picked),
        Op::S_MIN_U32 => Op32(Int32Op::MinU, Picked),
        Op::S_MAX_I32 => Op32(Int32Op::MaxI, Picked),
        Op::S_MAX_U32 => Op32(Int32Op::MaxU, Picked),
        Op::S_AND_B64 => Bit64(BitOp::And),
        Op::S_OR_B64 => Bit64(BitOp::Or),
        Op::S_XOR_B64 => Bit64(BitOp::Xor),
        Op::S_ANDN2_B64 => Bit64(BitOp::Andn2),
        Op::S_ORN2_B64 => Bit64(BitOp::Orn2),
        Op::S_MOV_B32 => Mov32,
        Op::S_MOV_B64 => Mov64,
        Op::S_CSELECT_B32 => Cselect32,
        Op::S_CSELECT_B64 => Cselect64,
        Op::S_CMP_EQ_I32 | Op::S_CMP_EQ_U32 => Cmp32(IntCC::Equal),
        Op::S_CMP_LG_I32 | Op::S_CMP_LG_U32 => Cmp32(IntCC::NotEqual),
        Op::S_CMP_GT_I32 => Cmp32(IntCC::SignedGreaterThan),
        Op::S_CMP_GE_I32 => Cmp32(IntCC::SignedGreaterThanOrEqual),
        Op::S_CMP_LT_I32 => Cmp32(IntCC::SignedLessThan),
        Op::S_CMP_LE_I32 => Cmp32(IntCC::SignedLessThanOrEqual),
        Op::S_CMP_GT_U32 => Cmp32(IntCC::UnsignedGreaterThan),
        Op::S_CMP_GE_U32 => Cmp32(IntCC::UnsignedGreaterThanOrEqual),
        Op::S_CMP_LT_U32 => Cmp32(IntCC::UnsignedLessThan),
        Op::S_CMP_LE_U32 => Cmp32(IntCC::UnsignedLessThanOrEqual),
        Op::S_CMP_EQ_U64 => Cmp64(IntCC::Equal),
        Op::S_CMP_LG_U64 => Cmp64(IntCC::NotEqual),
        Op::S_AND_SAVEEXEC_B64 => Saveexec(BitOp::And),
        Op::S_OR_SAVEEXEC_B64 => Saveexec(BitOp::Or),
        Op::S_XOR_SAVEEXEC_B64 => Saveexec(BitOp::Xor),
        Op::S_ANDN2_SAVEEXEC_B64 => Saveexec(BitOp::Andn2),
        Op::S_ORN2_SAVEEXEC_B64 => Saveexec(BitOp::Orn2),
        Op::S_ADDC_U32 => WithCarry(false),
        Op::S_SUBB_U32 => WithCarry(true),
        Op::S_LSHL_B64 => Shift64(self::Shift::Left),
        Op::S_LSHR_B64 => Shift64(self::Shift::Right),
        Op::S_ASHR_I64 => Shift64(self::Shift::RightSigned),
        Op::S_MOVK_I32 => MovK,
        Op::S_CMPK_EQ_I32 | Op::S_CMPK_EQ_U32 => CmpK(IntCC::Equal),
        Op::S_CMPK_LG_I32 | Op::S_CMPK_LG_U32 => CmpK(IntCC::NotEqual),
        Op::S_CMPK_GT_I32 => CmpK(IntCC::SignedGreaterThan),
        Op::S_CMPK_GE_I32 => CmpK(IntCC::SignedGreaterThanOrEqual),
        Op::S_CMPK_LT_I32 => CmpK(IntCC::SignedLessThan),
        Op::S_CMPK_LE_I32 => CmpK(IntCC::SignedLessThanOrEqual),
        Op::S_CMPK_GT_U32 => CmpK(IntCC::UnsignedGreaterThan),
        Op::S_CMPK_GE_U32 => CmpK(IntCC::UnsignedGreaterThanOrEqual),
        Op::S_CMPK_LT_U32 => CmpK(IntCC::UnsignedLessThan),
        Op::S_CMPK_LE_U32 => CmpK(IntCC::UnsignedLessThanOrEqual),
        Op::S_ADDK_I32 => AddK,
        Op::S_MULK_I32 => MulK,
        Op::S_NOP => Nop,
        _ => return None,
    })
}

/// The wave's registers as the code reaches them: `wave` points at the [`Wave`].
pub struct Regs {
    pub wave: Value,
}

/// Loads and stores of the wave's scalar state: never trapping (the [`Wave`] is there while
/// the region runs), and a pair of SGPRs only 4-byte aligned.
fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl Regs {
    fn sgpr_at(code: u16) -> i32 {
        (offset_of!(Wave, sgpr) + 4 * code as usize) as i32
    }

    fn scc_at() -> i32 {
        offset_of!(Wave, scc) as i32
    }

    fn src32(&self, b: &mut FunctionBuilder, src: Src) -> Value {
        match src {
            Src::Sgpr(c) => b
                .ins()
                .load(types::I32, flags(), self.wave, Regs::sgpr_at(c as u16)),
            Src::Const(v) => b.ins().iconst(types::I32, v as u32 as i64),
            _ => unreachable!("`inline` takes SGPRs and constants"),
        }
    }

    fn src64(&self, b: &mut FunctionBuilder, src: Src) -> Value {
        match src {
            Src::Sgpr(c) => self.pair(b, c as u16),
            Src::Const(v) => b.ins().iconst(types::I64, v as i64),
            _ => unreachable!("`inline` takes SGPRs and constants"),
        }
    }

    fn pair(&self, b: &mut FunctionBuilder, code: u16) -> Value {
        b.ins()
            .load(types::I64, flags(), self.wave, Regs::sgpr_at(code))
    }

    fn set32(&self, b: &mut FunctionBuilder, sdst: u16, v: Value) {
        b.ins()
            .store(flags(), v, self.wave, Regs::sgpr_at(sdst & 127));
    }

    fn set64(&self, b: &mut FunctionBuilder, sdst: u16, v: Value) {
        b.ins()
            .store(flags(), v, self.wave, Regs::sgpr_at(sdst & 126));
    }

    fn scc(&self, b: &mut FunctionBuilder) -> Value {
        b.ins().load(types::I8, flags(), self.wave, Regs::scc_at())
    }

    /// Stores SCC from an `i8` that is 0 or 1.
    fn set_scc(&self, b: &mut FunctionBuilder, v: Value) {
        b.ins().store(flags(), v, self.wave, Regs::scc_at());
    }

    /// The scalar ALU op `op`, on the wave's registers.
    pub fn alu(&self, b: &mut FunctionBuilder, op: &AluInline) {
        let ne0 = |b: &mut FunctionBuilder, v: Value| b.ins().icmp_imm_u(IntCC::NotEqual, v, 0);
        match op.alu {
            Alu::Op32(f, rule) => {
                let (x, y) = (self.src32(b, op.src[0]), self.src32(b, op.src[1]));
                let (v, scc) = op32(b, f, rule, x, y);
                self.set32(b, op.sdst, v);
                let scc = match rule {
                    SccRule::Keep => None,
                    SccRule::Nonzero => Some(ne0(b, v)),
                    _ => scc,
                };
                if let Some(scc) = scc {
                    self.set_scc(b, scc);
                }
            }
            Alu::Bit64(f) => {
                let (x, y) = (self.src64(b, op.src[0]), self.src64(b, op.src[1]));
                let v = bit64(b, f, x, y);
                self.set64(b, op.sdst, v);
                let scc = ne0(b, v);
                self.set_scc(b, scc);
            }
            Alu::Mov32 => {
                let v = self.src32(b, op.src[0]);
                self.set32(b, op.sdst, v);
            }
            Alu::Mov64 => {
                let v = self.src64(b, op.src[0]);
                self.set64(b, op.sdst, v);
            }
            Alu::Cselect32 | Alu::Cselect64 => {
                let wide = op.alu == Alu::Cselect64;
                let (x, y) = match wide {
                    true => (self.src64(b, op.src[0]), self.src64(b, op.src[1])),
                    false => (self.src32(b, op.src[0]), self.src32(b, op.src[1])),
                };
                let scc = self.scc(b);
                let v = b.ins().select(scc, x, y);
                match wide {
                    true => self.set64(b, op.sdst, v),
                    false => self.set32(b, op.sdst, v),
                }
            }
            Alu::Cmp32(cc) => {
                let (x, y) = (self.src32(b, op.src[0]), self.src32(b, op.src[1]));
                let scc = b.ins().icmp(cc, x, y);
                self.set_scc(b, scc);
            }
            Alu::Cmp64(cc) => {
                let (x, y) = (self.src64(b, op.src[0]), self.src64(b, op.src[1]));
                let scc = b.ins().icmp(cc, x, y);
                self.set_scc(b, scc);
            }
            Alu::WithCarry(sub) => {
                let (x, y) = (self.src32(b, op.src[0]), self.src32(b, op.src[1]));
                // In 64 bits, as the semantic functions do (Cranelift's x86 backend has no
                // add with carry-in).
                let scc = self.scc(b);
                let wide = |b: &mut FunctionBuilder, v| b.ins().uextend(types::I64, v);
                let (x, y, scc) = (wide(b, x), wide(b, y), wide(b, scc));
                let (v, c) = match sub {
                    false => {
                        let s = b.ins().iadd(x, y);
                        let s = b.ins().iadd(s, scc);
                        let high = b.ins().ushr_imm_u(s, 32);
                        (s, b.ins().icmp_imm_u(IntCC::NotEqual, high, 0))
                    }
                    true => {
                        let y = b.ins().iadd(y, scc);
                        let borrow = b.ins().icmp(IntCC::UnsignedGreaterThan, y, x);
                        (b.ins().isub(x, y), borrow)
                    }
                };
                let v = b.ins().ireduce(types::I32, v);
                self.set32(b, op.sdst, v);
                self.set_scc(b, c);
            }
            Alu::Shift64(f) => {
                let (x, y) = (self.src64(b, op.src[0]), self.src32(b, op.src[1]));
                let y = b.ins().band_imm_u(y, 63);
                let v = match f {
                    Shift::Left => b.ins().ishl(x, y),
                    Shift::Right => b.ins().ushr(x, y),
                    Shift::RightSigned => b.ins().sshr(x, y),
                };
                self.set64(b, op.sdst, v);
                let scc = ne0(b, v);
                self.set_scc(b, scc);
            }
            Alu::MovK => {
                let v = b.ins().iconst(types::I32, op.imm as i64);
                self.set32(b, op.sdst, v);
            }
            Alu::CmpK(cc) => {
                let x = self.src32(b, Src::Sgpr((op.sdst & 127) as u8));
                let y = b.ins().iconst(types::I32, op.imm as i64);
                let scc = b.ins().icmp(cc, x, y);
                self.set_scc(b, scc);
            }
            Alu::AddK => {
                let x = self.src32(b, Src::Sgpr((op.sdst & 127) as u8));
                let y = b.ins().iconst(types::I32, op.imm as i64);
                let (v, o) = b.ins().sadd_overflow(x, y);
                self.set32(b, op.sdst, v);
                self.set_scc(b, o);
            }
            Alu::MulK => {
                let x = self.src32(b, Src::Sgpr((op.sdst & 127) as u8));
                let v = b.ins().imul_imm_s(x, op.imm as i32 as i64);
                self.set32(b, op.sdst, v);
            }
            Alu::Nop => {}
            Alu::Saveexec(f) => {
                let s = self.src64(b, op.src[0]);
                let exec = self.pair(b, EXEC_LO);
                self.set64(b, op.sdst, exec);
                let new = bit64(b, f, s, exec);
                self.set64(b, EXEC_LO, new);
                let scc = ne0(b, new);
                self.set_scc(b, scc);
            }
        }
    }

    /// Whether every wait counter is within `limit` (an `i8`, 0 or 1).
    pub fn within(&self, b: &mut FunctionBuilder, limit: WaitCounters) -> Value {
        let at = offset_of!(Wave, counters);
        let fields = [
            (offset_of!(WaitCounters, vm), limit.vm),
            (offset_of!(WaitCounters, lgkm), limit.lgkm),
            (offset_of!(WaitCounters, exp), limit.exp),
        ];
        let mut all = b.ins().iconst(types::I8, 1);
        for (field, limit) in fields {
            let v = b
                .ins()
                .load(types::I8, flags(), self.wave, (at + field) as i32);
            let ok = b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, v, limit as i64);
            all = b.ins().band(all, ok);
        }
        all
    }

    /// Whether the branch's condition holds (an `i8`, 0 or 1).
    pub fn taken(&self, b: &mut FunctionBuilder, cond: Cond) -> Value {
        match cond {
            Cond::Always => b.ins().iconst(types::I8, 1),
            Cond::Scc(set) => {
                let scc = self.scc(b);
                let cc = if set { IntCC::NotEqual } else { IntCC::Equal };
                b.ins().icmp_imm_u(cc, scc, 0)
            }
            Cond::Zero(code, zero) => {
                let v = self.pair(b, code);
                let cc = if zero { IntCC::Equal } else { IntCC::NotEqual };
                b.ins().icmp_imm_u(cc, v, 0)
            }
        }
    }
}

/// A 32-bit op's result and the SCC its rule computes alongside (`None`: from the result,
/// or unchanged).
fn op32(
    b: &mut FunctionBuilder,
    f: Int32Op,
    rule: SccRule,
    x: Value,
    y: Value,
) -> (Value, Option<Value>) {
    let shift = |b: &mut FunctionBuilder| b.ins().band_imm_u(y, 31);
    match f {
        Int32Op::Add | Int32Op::Sub => {
            let (v, c) = match (f, rule) {
                (Int32Op::Add, SccRule::Carry) => b.ins().uadd_overflow(x, y),
                (Int32Op::Add, _) => b.ins().sadd_overflow(x, y),
                (_, SccRule::Carry) => b.ins().usub_overflow(x, y),
                _ => b.ins().ssub_overflow(x, y),
            };
            (v, Some(c))
        }
        Int32Op::And => (b.ins().band(x, y), None),
        Int32Op::Or => (b.ins().bor(x, y), None),
        Int32Op::Xor => (b.ins().bxor(x, y), None),
        Int32Op::Andn2 => (b.ins().band_not(x, y), None),
        Int32Op::Orn2 => (b.ins().bor_not(x, y), None),
        Int32Op::Lshl => {
            let s = shift(b);
            (b.ins().ishl(x, s), None)
        }
        Int32Op::Lshr => {
            let s = shift(b);
            (b.ins().ushr(x, s), None)
        }
        Int32Op::Ashr => {
            let s = shift(b);
            (b.ins().sshr(x, s), None)
        }
        Int32Op::Mul => (b.ins().imul(x, y), None),
        Int32Op::MinI | Int32Op::MinU | Int32Op::MaxI | Int32Op::MaxU => {
            let cc = match f {
                Int32Op::MinI => IntCC::SignedLessThan,
                Int32Op::MinU => IntCC::UnsignedLessThan,
                Int32Op::MaxI => IntCC::SignedGreaterThan,
                _ => IntCC::UnsignedGreaterThan,
            };
            let picked = b.ins().icmp(cc, x, y);
            (b.ins().select(picked, x, y), Some(picked))
        }
    }
}

fn bit64(b: &mut FunctionBuilder, f: BitOp, x: Value, y: Value) -> Value {
    match f {
        BitOp::And => b.ins().band(x, y),
        BitOp::Or => b.ins().bor(x, y),
        BitOp::Xor => b.ins().bxor(x, y),
        BitOp::Andn2 => b.ins().band_not(x, y),
        BitOp::Orn2 => b.ins().bor_not(x, y),
    }
}
