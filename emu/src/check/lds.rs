//! racecheck, initcheck and memcheck on the LDS of one workgroup.
//!
//! Each byte remembers its last write and a read since then: which wave, lane and instruction,
//! and the wave's barrier epoch (how many `s_barrier`s it had passed). All waves of a workgroup
//! pass each barrier together, so two accesses of different waves are ordered exactly when their
//! epochs differ; in the same epoch they race, if at least one writes and they are not both
//! atomics. The epoch is read when the access executes, so under the timing model an LDS write
//! issued before a barrier without `s_waitcnt` counts after it, as the hardware may perform it.
//! A read of a byte no wave has written in this workgroup is an initcheck finding.

use super::global::site;
use super::{Access, Check, CheckSet, Kind, Record, Site};
use crate::exec::Cx;

/// One access remembered for a byte.
#[derive(Clone, Copy, Debug, Default)]
struct Mark {
    epoch: u32,
    index: u32,
    wave: u8,
    lane: u8,
    flags: u8,
}

const VALID: u8 = 1;
const ATOMIC: u8 = 2;
/// Read by more than one wave in the mark's epoch.
const MANY: u8 = 4;

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    write: Mark,
    read: Mark,
}

/// The access history of every byte of a workgroup's LDS.
#[derive(Debug)]
pub struct LdsShadow {
    cells: Vec<Cell>,
}

impl LdsShadow {
    pub fn new(size: u32) -> LdsShadow {
        LdsShadow {
            cells: vec![Cell::default(); size as usize],
        }
    }

    pub fn reset(&mut self) {
        self.cells.fill(Cell::default());
    }
}

/// A race found at one byte: the earlier access of the pair.
struct Conflict {
    mark: Mark,
    access: Access,
}

/// Checks and records one lane's access of `[addr, addr+len)`, which lies inside the LDS.
pub fn access(cx: &mut Cx, lane: usize, addr: u32, len: usize, access: Access) {
    let set = cx.mem.checks();
    let at = site(cx, lane);
    let epoch = cx.lds.epoch(cx.wave.index);
    let size = cx.lds.size();
    let shadow = cx
        .lds
        .shadow
        .get_or_insert_with(|| Box::new(LdsShadow::new(size)));
    let me = Mark {
        epoch,
        index: at.index,
        wave: at.wave as u8,
        lane: at.lane,
        flags: VALID | if access == Access::Atomic { ATOMIC } else { 0 },
    };
    let mut unwritten = None;
    let mut conflict = None;
    for (i, cell) in shadow.cells[addr as usize..addr as usize + len]
        .iter_mut()
        .enumerate()
    {
        let w = cell.write;
        let other_write = w.flags & VALID != 0 && w.wave != me.wave && w.epoch == epoch;
        match access {
            Access::Load => {
                if w.flags & VALID == 0 && unwritten.is_none() {
                    unwritten = Some(addr + i as u32);
                }
                if other_write && conflict.is_none() {
                    conflict = Some(Conflict {
                        mark: w,
                        access: write_kind(w),
                    });
                }
                let r = &mut cell.read;
                if r.flags & VALID != 0 && r.epoch == epoch {
                    if r.wave != me.wave {
                        r.flags |= MANY;
                    }
                } else {
                    *r = me;
                }
            }
            Access::Store | Access::Atomic => {
                // An atomic is checked once, as one access that reads and writes; atomics do
                // not race with atomics.
                let atomic = access == Access::Atomic;
                if atomic && w.flags & VALID == 0 && unwritten.is_none() {
                    unwritten = Some(addr + i as u32);
                }
                if other_write && !(atomic && w.flags & ATOMIC != 0) && conflict.is_none() {
                    conflict = Some(Conflict {
                        mark: w,
                        access: write_kind(w),
                    });
                }
                let r = cell.read;
                let other_read = r.flags & VALID != 0
                    && r.epoch == epoch
                    && (r.wave != me.wave || r.flags & MANY != 0);
                if other_read && conflict.is_none() {
                    conflict = Some(Conflict {
                        mark: r,
                        access: Access::Load,
                    });
                }
                cell.write = me;
            }
        }
    }
    note(cx, set, at, addr, len, access, unwritten, conflict);
}

fn write_kind(w: Mark) -> Access {
    if w.flags & ATOMIC != 0 {
        Access::Atomic
    } else {
        Access::Store
    }
}

#[allow(clippy::too_many_arguments)]
fn note(
    cx: &mut Cx,
    set: CheckSet,
    at: Site,
    addr: u32,
    len: usize,
    access: Access,
    unwritten: Option<u32>,
    conflict: Option<Conflict>,
) {
    let group = at.group;
    let Some(c) = cx.mem.check_state() else {
        return;
    };
    if let (Some(first), true) = (unwritten, set.has(Check::Initcheck)) {
        c.findings
            .note(Kind::UninitializedLdsRead, at.index, || Record {
                kind: Kind::UninitializedLdsRead,
                site: at,
                access,
                addr: addr as u64,
                len: len as u32,
                detail: format!(
                    "LDS byte {first:#x} has not been written by any wave of the workgroup"
                ),
                other: None,
                count: 1,
            });
    }
    if let (Some(k), true) = (conflict, set.has(Check::Racecheck)) {
        let other = Site {
            group,
            wave: k.mark.wave as u32,
            lane: k.mark.lane,
            index: k.mark.index,
        };
        c.findings.note(Kind::LdsRace, at.index, || Record {
            kind: Kind::LdsRace,
            site: at,
            access,
            addr: addr as u64,
            len: len as u32,
            detail: format!(
                "LDS bytes {addr:#x}..{:#x} also accessed by wave {} with no s_barrier between",
                addr as usize + len,
                other.wave
            ),
            other: Some((other, k.access)),
            count: 1,
        });
    }
}

/// memcheck: an LDS access outside the workgroup's allocation, reported and dropped. False when
/// memcheck is off (the caller faults).
pub fn outside(cx: &mut Cx, lane: usize, addr: u32, len: usize, access: Access) -> bool {
    if !cx.mem.checks().has(Check::Memcheck) {
        return false;
    }
    let at = site(cx, lane);
    let size = cx.lds.size();
    let Some(c) = cx.mem.check_state() else {
        return false;
    };
    c.would_fault += 1;
    c.findings.note(Kind::LdsOutOfBounds, at.index, || Record {
        kind: Kind::LdsOutOfBounds,
        site: at,
        access,
        addr: addr as u64,
        len: len as u32,
        detail: format!("outside the workgroup's {size}-byte LDS"),
        other: None,
        count: 1,
    });
    true
}
