//! The loads in flight at a point of a generated program, so that it waits (`s_waitcnt`)
//! before any instruction reads or writes a register a load has not yet filled.
//!
//! Without the wait the program would be racy within a wave: the functional engine completes a
//! load when it issues, the timing model when its latency has passed (as a GPU does), so a
//! register read in between differs by design. Vector memory returns in issue order, so a wait
//! can leave younger loads in flight (`vmcnt(n)`); scalar loads may return out of order, so
//! LGKM_CNT waits to zero once one is in flight.

use gcn_isa::{Field, Format, Inst};

/// A set of registers: bits 0..64 SGPRs, 64..96 VGPRs, 96..128 AGPRs (the generated kernel
/// declares no more).
pub type RegSet = u128;

/// The registers `inst` names (read or written), as a [`RegSet`].
pub fn registers(inst: &Inst) -> RegSet {
    register_set(inst, |_| true)
}

/// The registers a memory instruction writes when it completes: `vdst`, a scalar load's
/// `sdata`, a buffer load's or returning atomic's `vdata`.
/// A FLAT or GLOBAL atomic's returned value (with `glc`) goes to `vdst`, which the table's
/// operands do not list (they are the non-returning form's).
pub fn destination(inst: &Inst) -> RegSet {
    let buffer = inst.format() == Format::Mubuf;
    let mut set = register_set(inst, |f| {
        matches!(f, Field::Vdst | Field::Sdata) || (buffer && f == Field::Vdata)
    });
    let facts = &inst.info().facts;
    if matches!(inst.format(), Format::Flat | Format::Global) && facts.atomic.is_some() {
        if let Some(code) = inst.code(Field::Vdst) {
            let first = code as u32 & 0xff;
            for r in first..(first + facts.bytes as u32 / 4).min(32) {
                set |= 1u128 << (64 + r);
            }
        }
    }
    set
}

fn register_set(inst: &Inst, wanted: impl Fn(Field) -> bool) -> RegSet {
    let mut set = 0;
    for (field, code, dwords) in inst.register_operands().filter(|o| wanted(o.0)) {
        let (base, first) = match code {
            0..=63 => (0, code as u32),
            256..=511 if inst.is_agpr(field) => (96, code as u32 - 256),
            256..=511 => (64, code as u32 - 256),
            _ => continue,
        };
        for r in first..first + dwords as u32 {
            if r < 32 || (base == 0 && r < 64) {
                set |= 1u128 << (base + r);
            }
        }
    }
    set
}

/// The loads and stores in flight on one counter, oldest first, each with the registers it
/// will write.
#[derive(Clone, Debug, Default)]
struct Queue {
    writes: Vec<RegSet>,
    /// A scalar load is in flight: the counter may count down out of order.
    unordered: bool,
}

impl Queue {
    /// The count to wait for so that nothing writing `touched` is in flight.
    fn wait_for(&self, touched: RegSet, max: usize) -> Option<usize> {
        let newest = self.writes.iter().rposition(|w| w & touched != 0)?;
        let younger = self.writes.len() - 1 - newest;
        Some(if self.unordered { 0 } else { younger.min(max) })
    }

    fn wait(&mut self, count: usize) {
        if count == 0 {
            *self = Queue::default();
        } else if self.writes.len() > count {
            self.writes.drain(..self.writes.len() - count);
        }
    }

    /// After a join: one entry for all of both paths' loads, so that anything they write waits
    /// for every older operation (sound whatever path was taken).
    fn merge(&mut self, other: &Queue) {
        let all = self
            .writes
            .iter()
            .chain(&other.writes)
            .fold(0, |a, w| a | w);
        let unordered = self.unordered || other.unordered;
        self.writes = if all == 0 && self.writes.is_empty() && other.writes.is_empty() {
            Vec::new()
        } else {
            vec![all]
        };
        self.unordered = unordered;
    }
}

/// The two counters' queues.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    vm: Queue,
    lgkm: Queue,
}

/// Which counters a memory instruction counts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    Vm,
    Lgkm,
    /// Scalar memory: LGKM_CNT, out of order.
    Smem,
    /// FLAT: both.
    Both,
}

/// gfx9's largest VM_CNT and LGKM_CNT waits.
const VM_MAX: usize = 63;
const LGKM_MAX: usize = 15;

impl Pending {
    /// The `s_waitcnt` needed before an instruction that names `touched`, if one is.
    pub fn wait_before(&self, touched: RegSet) -> Option<String> {
        let vm = self.vm.wait_for(touched, VM_MAX);
        let lgkm = self.lgkm.wait_for(touched, LGKM_MAX);
        let parts: Vec<String> = [("vmcnt", vm), ("lgkmcnt", lgkm)]
            .iter()
            .filter_map(|(name, n)| n.map(|n| format!("{name}({n})")))
            .collect();
        (!parts.is_empty()).then(|| format!("s_waitcnt {}", parts.join(" ")))
    }

    /// What an `s_waitcnt` leaves in flight.
    pub fn wait(&mut self, vm: Option<usize>, lgkm: Option<usize>) {
        if let Some(n) = vm {
            self.vm.wait(n);
        }
        if let Some(n) = lgkm {
            self.lgkm.wait(n);
        }
    }

    /// An issued memory instruction that will write `writes`.
    pub fn issue(&mut self, counter: Counter, writes: RegSet) {
        if matches!(counter, Counter::Vm | Counter::Both) {
            self.vm.writes.push(writes);
        }
        if matches!(counter, Counter::Lgkm | Counter::Smem | Counter::Both) {
            self.lgkm.writes.push(writes);
            self.lgkm.unordered |= matches!(counter, Counter::Smem | Counter::Both);
        }
    }

    /// The state where two paths join.
    pub fn merge(&mut self, other: &Pending) {
        self.vm.merge(&other.vm);
        self.lgkm.merge(&other.lgkm);
    }
}
