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
    #[cfg(test)]
    if super::check_global::PER_LANE.get() {
        for l in (0..64).filter(|l| exec >> l & 1 != 0) {
            for &(addrs, len) in parts {
                self::access(cx, l, addrs[l], len, access);
            }
        }
        return;
    }
    let set = cx.mem.checks();
    let first = site(cx, 0);
    let epoch = cx.lds.epoch(cx.wave.index);
    let mark = Mark::new(epoch, first.index, first.wave, 0, access, 1);
    // The histories first, with the shadow found once, then what they found in the same order:
    // a report changes no history.
    let shadow = shadow(cx);
    let mut found = Vec::new();
    // Whole aligned dwords (`sdata[i]`, the usual case): the lanes' histories in one loop.
    // With every lane in EXEC (the usual case) the pass has no mask to make per lane.
    let unaligned = parts.iter().fold(0, |m, &(addrs, len)| {
        let low = match exec {
            u64::MAX => addrs.iter().fold(0, |m, a| m | a & 3),
            _ => (0..64).fold(0, |m, l| {
                m | addrs[l] & 3 & (exec >> l & 1).wrapping_neg() as u32
            }),
        };
        m | (len != 4) as u32 | low
    });
    if unaligned == 0 && (1..=2).contains(&parts.len()) {
        let rows: [&[u32; 64]; 2] = [parts[0].0, parts[parts.len() - 1].0];
        let mut dwords = Vec::new();
        shadow
            .lds
            .access_dwords(exec, &rows[..parts.len()], mark, access, &mut dwords);
        for (l, p, unwritten, conflict) in dwords {
            let addr = parts[p as usize].0[l as usize];
            let unwritten = unwritten.map(|i| addr + i as u32);
            found.push((l as usize, addr, 4, unwritten, conflict));
        }
    } else {
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
            index: k.mark.index(),
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

#[cfg(test)]
mod tests {
    use super::super::check_global::PER_LANE;
    use crate::check::{CheckSet, Kind};
    use crate::exec::program::Program;
    use crate::exec::{Cx, DispatchEnv};
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::Wave;
    use gcn_isa::{assemble, Target};

    /// DS instructions under `--check all` record the same findings (races between the waves
    /// of a workgroup, reads of bytes no wave wrote) in the same order, and leave the same
    /// registers and LDS, wave-wide as lane by lane: waves take turns with and without
    /// barriers between them, on rows of dwords (`sdata[threadIdx.x]`) and on lanes crowding a
    /// few places, with accesses of other sizes and dwords off their boundary splitting dwords
    /// between them.
    #[test]
    fn checked_ds_accesses_record_the_same_findings_wave_wide_and_per_lane() {
        let text = [
            "ds_write_b32 v0, v2",
            "ds_read_b32 v4, v0",
            "ds_read2_b32 v[4:5], v0 offset1:1",
            "ds_write2_b32 v0, v2, v3 offset1:2",
            "ds_add_u32 v0, v2",
            "ds_add_rtn_u32 v4, v0, v2",
            "ds_write_b8 v0, v2 offset:1",
            "ds_read_u16 v4, v0 offset:2",
            "ds_write_b64 v0, v[2:3]",
            "ds_read_b64 v[4:5], v0",
            "ds_write_b32 v0, v2 offset:2",
            "ds_read_b32 v4, v0 offset:1",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        const SIZE: u32 = 512;
        let all = CheckSet::parse("all").unwrap();
        let (mut wide, mut per_lane) = (Memory::default(), Memory::default());
        wide.enable_checks(all);
        per_lane.enable_checks(all);
        let (mut lds_wide, mut lds_per_lane) = (Lds::new(SIZE), Lds::new(SIZE));
        let mut rng = crate::rng::Rng::new(0xbb67_ae85_84ca_a73b);
        let mut next = move || rng.next_u64();
        let env = DispatchEnv::default();
        let mut waves: Vec<Wave> = (0..4).map(Wave::new).collect();
        for round in 0..4000 {
            let i = round % text.len();
            let d = &program.insts[i];
            let w = (next() % 4) as usize;
            if next() % 16 == 0 {
                for n in 0..4 {
                    lds_wide.note_barrier(n);
                    lds_per_lane.note_barrier(n);
                }
            }
            let wave = &mut waves[w];
            let row = next() % 2 == 0;
            let start = 8 * (next() % 16) as u32;
            for l in 0..64 {
                wave.vgpr[0][l] = if row {
                    start + 4 * l as u32
                } else {
                    8 * (next() % 40) as u32
                };
                for r in 2..6 {
                    wave.vgpr[r][l] = (next() % 5) as u32;
                }
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            wave.pc = i as u32 + 1;
            let mut other = wave.clone();
            for (wave, mem, lds, per) in [
                (&mut *wave, &mut wide, &mut lds_wide, false),
                (&mut other, &mut per_lane, &mut lds_per_lane, true),
            ] {
                let mut cx = Cx {
                    wave,
                    mem,
                    lds,
                    program: &program,
                    env: &env,
                };
                PER_LANE.set(per);
                crate::exec::issue::execute(&mut cx, d).unwrap();
                PER_LANE.set(false);
            }
            for r in 4..6 {
                assert_eq!(wave.vgpr[r], other.vgpr[r], "{} v{r}", text[i]);
            }
            assert_eq!(
                lds_wide.bytes(0, SIZE as usize),
                lds_per_lane.bytes(0, SIZE as usize),
                "{}",
                text[i]
            ); // And the same byte histories (a report names only a site's first race).
            let history = |lds: &Lds, b: usize| lds.shadow.as_ref().map(|s| s.lds.byte(b));
            for b in 0..SIZE as usize {
                let (a, w) = (history(&lds_wide, b), history(&lds_per_lane, b));
                assert_eq!(a, w, "{} byte {b:#x}", text[i]);
            }
        }
        let found = |m: &mut Memory| m.check_state().unwrap().findings.take();
        let (got, want) = (found(&mut wide), found(&mut per_lane));
        assert!(want.iter().any(|r| r.kind == Kind::LdsRace));
        assert!(want.iter().any(|r| r.kind == Kind::UninitializedLdsRead));
        assert_eq!(got, want);
    }
}
