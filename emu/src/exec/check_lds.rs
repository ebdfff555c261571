//! The sanitizer hooks of LDS accesses: racecheck, initcheck and memcheck on the LDS of one
//! workgroup.
//!
//! Each byte has a [`crate::check::race::Cell`] ([`crate::check::lds_history`]). The epoch is read when the access executes, so under
//! the timing model an LDS write issued before a barrier without `s_waitcnt` counts after it, as
//! the hardware may perform it. A read of a byte no wave of the workgroup has written is an
//! initcheck finding.

use super::check_global::site;
use super::Cx;
use crate::check::group::GroupShadow;
use crate::check::race::{Conflict, Mark};
use crate::check::{Access, Check, CheckSet, Kind, Record, Site};

/// The workgroup's sanitizer state, made at its first use.
pub fn shadow<'a>(cx: &'a mut Cx) -> &'a mut GroupShadow {
    let size = cx.lds.size();
    cx.lds
        .shadow
        .get_or_insert_with(|| Box::new(GroupShadow::new(size)))
}

/// Checks and records one lane's access of `[addr, addr+len)`, which lies inside the LDS.
pub fn access(cx: &mut Cx, lane: usize, addr: u32, len: usize, access: Access) {
    let set = cx.mem.checks();
    let at = site(cx, lane);
    let epoch = cx.lds.epoch(cx.wave.index);
    lane_access(cx, set, at, epoch, addr, len, access);
}

/// The checked form of one DS instruction's accesses: each part `(addresses, len)` for each
/// lane set in `exec`, lane by lane in lane order and part by part within a lane, as
/// [`access`] checks them one at a time, with the site and the epoch found once. Every access
/// lies inside the LDS (the caller has checked).
pub fn access_lanes(cx: &mut Cx, exec: u64, parts: &[(&[u32; 64], usize)], access: Access) {
    let set = cx.mem.checks();
    let first = site(cx, 0);
    let epoch = cx.lds.epoch(cx.wave.index);
    let mark = Mark::new(epoch, first.index, first.wave, 0, access, 1);
    // The histories first, with the shadow found once, then what they found in the same order:
    // a report changes no history.
    let shadow = shadow(cx);
    let mut found = Vec::new();
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let me = mark.with_lane(l as u8);
        for &(addrs, len) in parts {
            let addr = addrs[l];
            let (unwritten, conflict) = shadow.lds.access(addr as usize, len, me, access);
            if unwritten.is_some() || conflict.is_some() {
                let unwritten = unwritten.map(|i| addr + i as u32);
                found.push((l, addr, len, unwritten, conflict));
            }
        }
    }
    for (l, addr, len, unwritten, conflict) in found {
        let at = Site {
            lane: l as u8,
            ..first
        };
        note(cx, set, at, addr, len, access, unwritten, conflict);
    }
}

/// One lane's access of `[addr, addr+len)` by `at` in barrier epoch `epoch`.
fn lane_access(
    cx: &mut Cx,
    set: CheckSet,
    at: Site,
    epoch: u32,
    addr: u32,
    len: usize,
    access: Access,
) {
    let shadow = shadow(cx);
    let me = Mark::new(epoch, at.index, at.wave, at.lane, access, 1);
    // A load, or an atomic (checked once, as one access that reads and writes), of a byte no
    // wave has written is initcheck's; a race racecheck's.
    let (unwritten, conflict) = shadow.lds.access(addr as usize, len, me, access);
    let unwritten = unwritten.map(|i| addr + i as u32);
    if unwritten.is_some() || conflict.is_some() {
        note(cx, set, at, addr, len, access, unwritten, conflict);
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
            wave: k.mark.wave() as u32,
            lane: k.mark.lane(),
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
