//! The sanitizer hooks of global memory accesses (GLOBAL/FLAT/MUBUF/MTBUF, and scalar loads).
//! memcheck: every lane's access must lie inside one live allocation; one that does not is
//! reported with the nearest allocation, or as a use after free when a freed allocation held the
//! address, and is dropped (a load reads 0) so that the kernel runs on and one run reports every
//! faulting site. initcheck: a load of bytes nothing has written. racecheck follows the dwords
//! each workgroup touches ([`crate::check::group::GroupShadow`]): two of its waves accessing the
//! same bytes with no barrier between, at least one writing, race.
//!
//! The shadow state and the findings are the sanitizers' own ([`crate::check`]); what lives here
//! is where an executing instruction consults them.
use crate::check::group::{GroupShadow, Mine};
use crate::check::race::{Conflict, Mark};
use crate::check::{Access, Check, Kind, Record, Site};
use crate::exec::Cx;
use crate::memory::{AllocKind, Placement};
use gcn_isa::Format;

#[cfg(test)]
thread_local! {
    /// Tests: every checked global access goes down the per-lane path, to compare the two.
    pub(crate) static PER_LANE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Who is accessing: the wave's workgroup and position, the lane and the instruction.
pub fn site(cx: &Cx, lane: usize) -> Site {
    Site {
        group: cx.lds.group,
        wave: cx.wave.index,
        lane: lane as u8,
        index: cx.wave.pc.wrapping_sub(1),
    }
}

/// The checked form of one lane's global load (`access` is `Load`, or `Atomic` for the read of
/// a read-modify-write). Returns false when the access is outside memory and memcheck is off:
/// the caller then faults as without `--check`.
/// Records a read of `len` bytes at `addr` whose byte `first` (from the allocation's start)
/// neither the host nor a kernel has written, in the allocation at `base` of `size` bytes.
fn uninitialized_read(
    findings: &mut crate::check::Findings,
    at: Site,
    access: Access,
    addr: u64,
    len: usize,
    first: usize,
    (base, size): (u64, u64),
) {
    findings.note(Kind::UninitializedRead, at.index, || Record {
        kind: Kind::UninitializedRead,
        site: at,
        access,
        addr,
        len: len as u32,
        detail: format!(
            "byte {first:#x} of {} {base:#x} ({size} bytes) has not been written by the host or a kernel",
            AllocKind::Buffer.name()
        ),
        other: None,
        count: 1,
    });
}

pub fn load(cx: &mut Cx, lane: usize, addr: u64, out: &mut [u8], access: Access) -> bool {
    let len = out.len();
    let Some(i) = cx.mem.locate(addr, len as u64) else {
        out.fill(0);
        return outside(cx, lane, addr, len, access);
    };
    let at = site(cx, lane);
    if racecheck(cx) {
        race(cx, at, addr, len, access);
    }
    let (allocs, check) = cx.mem.check_parts();
    let a = &allocs[i];
    let off = (addr - a.base) as usize;
    out.copy_from_slice(&a.data()[off..off + len]);
    if let (Some(w), Some(c)) = (&a.written, check) {
        if let Some(first) = w.first_unwritten(off, len) {
            let (base, size) = (a.base, a.len());
            uninitialized_read(&mut c.findings, at, access, addr, len, first, (base, size));
        }
    }
    true
}

/// The checked form of one lane's global store; as [`load`].
pub fn store(cx: &mut Cx, lane: usize, addr: u64, data: &[u8], access: Access) -> bool {
    let len = data.len();
    let Some(i) = cx.mem.locate(addr, len as u64) else {
        return outside(cx, lane, addr, len, access);
    };
    // The write half of an atomic was checked with its read.
    if access != Access::Atomic && racecheck(cx) {
        let at = site(cx, lane);
        race(cx, at, addr, len, access);
    }
    cx.mem.count_write();
    let (allocs, _) = cx.mem.check_parts();
    let a = &mut allocs[i];
    let off = (addr - a.base) as usize;
    a.data_mut()[off..off + len].copy_from_slice(data);
    if let Some(w) = &mut a.written {
        w.set(off, len);
    }
    true
}

/// Whether racecheck follows the instruction's global accesses: it is on, and the workgroup
/// has more than one wave (the lanes of one wave do not race with each other, so a group of one
/// wave keeps no history).
#[inline]
fn racecheck(cx: &Cx) -> bool {
    cx.mem.checks().has(Check::Racecheck) && !cx.lds.one_wave()
}

/// racecheck: records the access of `[addr, addr+len)` by `at` in its workgroup's history of
/// global dwords, and reports a race with another wave of the group.
fn race(cx: &mut Cx, at: Site, addr: u64, len: usize, access: Access) {
    let (epoch, access) = race_kind(cx, at, access);
    race_at(cx, at, addr, len, access, epoch);
}

/// What racecheck makes of an access by instruction `at.index` of wave `at.wave`, the same for
/// all its lanes: the wave's barrier epoch, and the access as racecheck counts it (an atomic
/// load, `glc`, is an atomic access: it does not race with atomics); an atomic access marks the
/// wave as synchronizing through memory in the epoch.
fn race_kind(cx: &mut Cx, at: Site, access: Access) -> (u32, Access) {
    let epoch = cx.lds.epoch(cx.wave.index);
    let size = cx.lds.size();
    let shadow = cx
        .lds
        .shadow
        .get_or_insert_with(|| Box::new(GroupShadow::new(size)));
    let access = if access == Access::Load {
        let glc = match shadow.glc {
            Some((index, glc)) if index == at.index => glc,
            _ => {
                let glc = glc(cx.program, at.index);
                shadow.glc = Some((at.index, glc));
                glc
            }
        };
        if glc {
            Access::Atomic
        } else {
            access
        }
    } else {
        access
    };
    if access == Access::Atomic {
        shadow.note_sync(at.wave, epoch);
    }
    (epoch, access)
}

/// One lane's part of [`race`], given what [`race_kind`] made of its instruction.
fn race_at(cx: &mut Cx, at: Site, addr: u64, len: usize, access: Access, epoch: u32) {
    let size = cx.lds.size();
    let shadow = cx
        .lds
        .shadow
        .get_or_insert_with(|| Box::new(GroupShadow::new(size)));
    if let Some(k) = race_cells(shadow, at, addr, len, access, epoch) {
        report_race(cx, at, addr, len, access, epoch, k);
    }
}

/// Records the access of `[addr, addr+len)` by `at` in the history of the global dwords it
/// touches; returns the first race it makes.
#[inline]
fn race_cells(
    shadow: &mut GroupShadow,
    at: Site,
    addr: u64,
    len: usize,
    access: Access,
    epoch: u32,
) -> Option<Conflict> {
    let end = addr + len as u64;
    let mut conflict: Option<Conflict> = None;
    let mut dword = addr & !3;
    while dword < end {
        let (lo, hi) = (addr.max(dword), end.min(dword + 4));
        let mask = (((1u32 << (hi - lo)) - 1) << (lo - dword)) as u8;
        let me = Mark::new(epoch, at.index, at.wave, at.lane, access, mask);
        if let Some(cell) = shadow.global_cell(dword, epoch, at.wave) {
            conflict = conflict.or(cell.access(me, access));
        }
        dword += 4;
    }
    conflict
}

/// [`race_cells`] of each lane in `exec` (in lane order) accessing `len` bytes at `addrs[l]`,
/// each lane inside one dword (`len` at most 4) or on whole dwords (`len` a multiple of 4 and
/// every address too: `global_load_dwordx2` and wider), by instruction `first` (whose lane it
/// replaces): one mark for the instruction, and the chunk of histories looked up when a dword
/// leaves the last one's, rather than a run of dwords and its byte masks worked out per lane.
/// Lanes all on one address inside a dword (`same`) are recorded together
/// ([`crate::check::race::Cell::access_lanes`]). A lane's first race goes to `found`.
#[inline]
#[allow(clippy::too_many_arguments)]
fn race_lanes(
    shadow: &mut GroupShadow,
    first: Site,
    addrs: &[u64; 64],
    exec: u64,
    len: usize,
    access: Access,
    epoch: u32,
    same: bool,
    found: &mut Vec<(Site, u64, Conflict)>,
) {
    use crate::check::group::CHUNK;
    let mark = Mark::new(epoch, first.index, first.wave, 0, access, 0);
    // (A lane of whole dwords has every byte of each.)
    let bytes = (1u32 << len.min(4)) - 1;
    let mask = |addr: u64| (bytes << (addr & 3)) as u8;
    let at = |l: u8| Site { lane: l, ..first };
    if same && len <= 4 {
        let one = addrs[exec.trailing_zeros() as usize];
        // No room for the chunk: the lanes go unrecorded, as in `race_cells`.
        if let Some(i) = shadow.global_chunk(one / (4 * CHUNK as u64), epoch, first.wave) {
            let cell = &mut shadow.chunk(i)[(one / 4) as usize % CHUNK];
            let me = mark.with_lane_and_mask(0, mask(one));
            cell.access_lanes(exec, me, access, |l, k| found.push((at(l), one, k)));
        }
        return;
    }
    // The chunk the last lane's dword was in: (key, index), or the key of one without room.
    let mut held: Option<(u64, Option<u32>)> = None;
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let addr = addrs[l];
        let me = mark.with_lane_and_mask(l as u8, mask(addr));
        let mut conflict = None;
        for dword in (0..len.div_ceil(4)).map(|j| addr + 4 * j as u64) {
            let key = dword / (4 * CHUNK as u64);
            let i = match held {
                Some((k, i)) if k == key => i,
                _ => {
                    let i = shadow.global_chunk(key, epoch, first.wave);
                    held = Some((key, i));
                    i
                }
            };
            // No room for the chunk: the dword goes unrecorded, as in `race_cells`.
            let Some(i) = i else {
                continue;
            };
            let cell = &mut shadow.chunk(i)[(dword / 4) as usize % CHUNK];
            conflict = conflict.or(cell.access(me, access));
        }
        if let Some(k) = conflict {
            found.push((at(l as u8), addr, k));
        }
    }
}

/// [`race_cells`] of each lane in `exec` (in lane order) when the lanes make a row
/// (`p[threadIdx.x]`) of bytes, halves or dwords (`len` 1, 2 or 4) from the dword boundary
/// `row`: lane l at `row + len * l`, so dword k holds lanes [k * per, (k + 1) * per), in at
/// most two chunks, each looked up once and gone through as consecutive histories. Races go to
/// `found`.
#[inline]
#[allow(clippy::too_many_arguments)]
fn race_row(
    shadow: &mut GroupShadow,
    first: Site,
    addrs: &[u64; 64],
    exec: u64,
    row: u64,
    len: usize,
    access: Access,
    epoch: u32,
    found: &mut Vec<(Site, u64, Conflict)>,
) {
    use crate::check::group::CHUNK;
    let mark = Mark::new(epoch, first.index, first.wave, 0, access, 0);
    let bytes = (1u32 << len) - 1;
    let at = |l: u8| Site { lane: l, ..first };
    let per = 4 / len;
    let dwords = 64 / per;
    let first_slot = (row / 4) as usize % CHUNK;
    // Dwords [0, split) in the first chunk, [split, dwords) in the next.
    let split = (CHUNK - first_slot).min(dwords);
    for (lo, hi) in [(0, split), (split, dwords)] {
        // The lanes on dwords [lo, hi).
        let part = match (hi - lo) * per {
            0 => 0,
            n => exec & u64::MAX >> (64 - n) << (lo * per),
        };
        if part == 0 {
            continue;
        }
        let at_lo = row.wrapping_add(4 * lo as u64);
        let key = at_lo / (4 * CHUNK as u64);
        let slot = (at_lo / 4) as usize % CHUNK;
        let dwords = u64::MAX >> (64 - (hi - lo)) << slot;
        let Some((i, mine)) = shadow.global_chunk_seen(key, epoch, first.wave, dwords) else {
            continue;
        };
        if per == 1 && hi - lo == CHUNK && part == u64::MAX && mine != Mine::Unknown {
            // A row of dwords on the whole chunk, every lane on, that nothing can race with:
            // one mark for the chunk, stored into its histories only when something else
            // looks at them (below, with the same marks).
            let none = Mark::default();
            match (access, mine) {
                (Access::Load, Mine::Nothing) => {
                    shadow.set_rows(i, mark.with_lane_and_mask(0, 0xf), none);
                    continue;
                }
                (Access::Store | Access::Atomic, _) => {
                    shadow.set_rows(i, none, mark.with_lane_and_mask(0, 0xf));
                    continue;
                }
                _ => {}
            }
        }
        let cells = &mut shadow.chunk(i)[slot..slot + (hi - lo)];
        // Lanes [l0, l0 + per) on cells[k]: their marks, the bytes of them all.
        let group = |k: usize| {
            let l0 = (lo + k) * per;
            let lanes = (part >> l0 & ((1 << per) - 1)) as u32;
            let lane_mark = move |j: u32| {
                let mask = bytes << (j as usize * len);
                mark.with_lane_and_mask((l0 + j as usize) as u8, mask as u8)
            };
            let all = (0..per).fold(0, |m, j| m | ((lanes >> j & 1) * bytes) << (j * len));
            (l0, lanes, lane_mark, all as u8)
        };
        if mine != Mine::Unknown {
            // Nothing of the interval in the chunk but the wave's own accesses (the row's
            // first touch, or a store after the wave's own load): no lane races, and its
            // access becomes the history as `Cell::access` would make it, with no history
            // looked at first.
            // Every lane of the part on (the usual case): the marks stored with no lane looked
            // at in EXEC, where that matters (a first load, a store). A dword's read is its
            // first lane's mark with the bytes of all its lanes (every byte); its write is its
            // last lane's, with that lane's bytes.
            let full = part == u64::MAX >> (64 - (hi - lo) * per) << (lo * per);
            match (access, mine) {
                (Access::Load, Mine::Nothing) if full => {
                    let me = mark.with_lane_and_mask(0, 0xf);
                    for (k, cell) in cells.iter_mut().enumerate() {
                        cell.read = me.with_lane(((lo + k) * per) as u8);
                    }
                    continue;
                }
                (Access::Store | Access::Atomic, _) if full => {
                    let me = mark.with_lane_and_mask(0, (bytes << (4 - len)) as u8);
                    for (k, cell) in cells.iter_mut().enumerate() {
                        cell.write = me.with_lane(((lo + k) * per + per - 1) as u8);
                    }
                    continue;
                }
                _ => {}
            }
            if per == 1 {
                let me = mark.with_lane_and_mask(0, 0xf);
                for (k, cell) in cells.iter_mut().enumerate() {
                    let l = lo + k;
                    let me = me.with_lane(l as u8);
                    let mut new = *cell;
                    match (access, mine) {
                        // No read of the interval to add the bytes to.
                        (Access::Load, Mine::Nothing) => new.read = me,
                        _ => new.record_own(me, me, 0xf, access),
                    }
                    cell.select(part >> l & 1 != 0, new);
                }
                continue;
            }
            for (k, cell) in cells.iter_mut().enumerate() {
                let (_, lanes, lane_mark, all) = group(k);
                if lanes == 0 {
                    continue;
                }
                let (a, b) = (lanes.trailing_zeros(), 31 - lanes.leading_zeros());
                cell.record_own(lane_mark(a), lane_mark(b), all, access);
            }
            continue;
        }
        for (k, cell) in cells.iter_mut().enumerate() {
            let (l0, lanes, lane_mark, all) = group(k);
            if lanes == 0 {
                continue;
            }
            // Lanes sharing a dword (a row of bytes or halves) are taken at once when none
            // of them can race.
            let (a, b) = (lanes.trailing_zeros(), 31 - lanes.leading_zeros());
            if per > 1 && cell.access_own(lane_mark(a), lane_mark(b), all, access) {
                continue;
            }
            for j in (0..per as u32).filter(|j| lanes >> j & 1 != 0) {
                let l = l0 + j as usize;
                if let Some(k) = cell.access(lane_mark(j), access) {
                    found.push((at(l as u8), addrs[l], k));
                }
            }
        }
    }
}

/// How the lanes of an instruction lie: all on one address, in a row (`p[threadIdx.x]`: lane l
/// at `row + len * l`, `len` a power of two, with no wrap), or otherwise; found in one pass
/// over the lanes, with no early exit, so that it vectorises.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Same,
    Row(u64),
    Other,
}

/// How far the addresses of the lanes in `exec` (all of them, with `ALL`) are from `one`, and
/// from a row from `row` of `1 << shift` bytes a lane: an OR of the differences' bits each.
#[inline(always)]
fn apart<const ALL: bool>(
    addrs: &[u64; 64],
    exec: u64,
    one: u64,
    row: u64,
    shift: u32,
) -> (u64, u64) {
    (0..64).fold((0, 0), |(e, p), l| {
        let active = if ALL {
            u64::MAX
        } else {
            (exec >> l & 1).wrapping_neg()
        };
        let want = row.wrapping_add((l as u64) << shift);
        (
            e | (addrs[l] ^ one) & active,
            p | (addrs[l] ^ want) & active,
        )
    })
}

/// The [`Shape`] of the lanes in `exec` (not 0) accessing `len` bytes at `addrs[l]`, and the
/// range they cover ([`crate::memory::span`], found without another pass when they lie in one
/// place or a row).
#[inline]
fn shape(addrs: &[u64; 64], exec: u64, len: usize) -> (Shape, Option<(u64, u64)>) {
    let (first, last) = (exec.trailing_zeros(), 63 - exec.leading_zeros());
    let one = addrs[first as usize];
    let shift = len.trailing_zeros();
    let row = one.wrapping_sub((first as u64) << shift);
    // With every lane in EXEC (the usual case) the pass has no mask to make per lane.
    let (elsewhere, apart) = match exec {
        u64::MAX => apart::<true>(addrs, exec, one, row, shift),
        _ => apart::<false>(addrs, exec, one, row, shift),
    };
    let end = addrs[last as usize];
    if elsewhere == 0 {
        (Shape::Same, one.checked_add(len as u64).map(|hi| (one, hi)))
    } else if len.is_power_of_two() && apart == 0 && end >= one {
        (
            Shape::Row(row),
            end.checked_add(len as u64).map(|hi| (one, hi)),
        )
    } else {
        (Shape::Other, crate::memory::span(addrs, exec, len as u64))
    }
}

/// Reports race `k` of the access by `at`, unless either wave synchronizes through memory in
/// the epoch.
#[cold]
fn report_race(
    cx: &mut Cx,
    at: Site,
    addr: u64,
    len: usize,
    access: Access,
    epoch: u32,
    k: Conflict,
) {
    let Some(shadow) = cx.lds.shadow.as_deref() else {
        return;
    };
    if shadow.synced(at.wave, epoch) || shadow.synced(k.mark.wave() as u32, epoch) {
        return;
    }
    let other = Site {
        group: at.group,
        wave: k.mark.wave() as u32,
        lane: k.mark.lane(),
        index: k.mark.index(),
    };
    if let Some(c) = cx.mem.check_state() {
        c.findings.note(Kind::GlobalRace, at.index, || Record {
            kind: Kind::GlobalRace,
            site: at,
            access,
            addr,
            len: len as u32,
            detail: format!(
                "also accessed by wave {} of the workgroup with no s_barrier between",
                other.wave
            ),
            other: Some((other, k.access)),
            count: 1,
        });
    }
}

/// The checked form of one instruction's global accesses: `len` bytes at `addrs[l]` for each
/// lane set in `exec` (`access` a load, a store, or an atomic as one access that reads and
/// writes), when they all lie inside one live allocation. memcheck then has nothing to report,
/// and racecheck and initcheck are done lane by lane in lane order, as [`load`] and [`store`]
/// do them, with the allocation, the site and racecheck's view of the instruction found once,
/// and initcheck's bits read once for the whole range when it is written already (the usual
/// case). The caller moves the data (the sanitizers do not look at it). False, with nothing
/// recorded, when the lanes are not all inside one allocation (page padding excluded): the
/// per-lane path then reports each lane as it should.
pub fn lanes(cx: &mut Cx, addrs: &[u64; 64], exec: u64, len: usize, access: Access) -> bool {
    #[cfg(test)]
    if PER_LANE.get() {
        return false;
    }
    if exec == 0 {
        return true;
    }
    let (shape, span) = shape(addrs, exec, len);
    let Some((lo, hi)) = span else {
        return false;
    };
    let Some(i) = cx.mem.locate(lo, hi - lo) else {
        return false;
    };
    let first = site(cx, 0);
    // The write half of an atomic is checked with its read.
    let race = racecheck(cx).then(|| race_kind(cx, first, access));
    let (reads, writes) = (access != Access::Store, access != Access::Load);
    let (allocs, _) = cx.mem.check_parts();
    let (base, size) = (allocs[i].base, allocs[i].len());
    // initcheck: nothing to find, and nothing to mark, when every byte of the range is written
    // (looked at for a range of a few pages at most; lanes spread wider are looked at one by
    // one).
    let written = allocs[i].written.as_ref().is_none_or(|w| {
        hi - lo <= 4 * 4096
            && w.first_unwritten((lo - base) as usize, (hi - lo) as usize)
                .is_none()
    });
    if written {
        // racecheck alone: the lanes' histories first, then the races they made, in lane
        // order (reporting one changes no history, and whether a wave synchronizes through
        // memory is settled for the instruction by `race_kind`).
        let Some((epoch, access)) = race else {
            return true;
        };
        let found = race_found(cx, first, (addrs, exec, len), shape, (epoch, access));
        for (at, addr, k) in found {
            report_race(cx, at, addr, len, access, epoch, k);
        }
        return true;
    }
    // initcheck lane by lane; each lane's race reported before its read of unwritten bytes,
    // in lane order as `load` and `store` make them.
    let mut found = match race {
        Some(race) => race_found(cx, first, (addrs, exec, len), shape, race),
        None => Vec::new(),
    }
    .into_iter()
    .peekable();
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let (addr, at) = (
            addrs[l],
            Site {
                lane: l as u8,
                ..first
            },
        );
        if let (Some((epoch, access)), Some(&(by, addr, k))) = (race, found.peek()) {
            if by.lane as usize == l {
                found.next();
                report_race(cx, by, addr, len, access, epoch, k);
            }
        }
        let off = (addr - base) as usize;
        let (allocs, check) = cx.mem.check_parts();
        let Some(w) = &mut allocs[i].written else {
            continue;
        };
        if let (true, Some(first), Some(c)) = (reads, w.first_unwritten(off, len), check) {
            uninitialized_read(&mut c.findings, at, access, addr, len, first, (base, size));
        }
        if writes {
            w.set(off, len);
        }
    }
    true
}

/// racecheck of the lanes in `exec` accessing `len` bytes at `addrs[l]` (lying as `shape`
/// says), by instruction `first` as [`race_kind`] made of it: the histories recorded, and each
/// lane's first race, in lane order.
fn race_found(
    cx: &mut Cx,
    first: Site,
    (addrs, exec, len): (&[u64; 64], u64, usize),
    shape: Shape,
    (epoch, access): (u32, Access),
) -> Vec<(Site, u64, Conflict)> {
    let size = cx.lds.size();
    let shadow = cx
        .lds
        .shadow
        .get_or_insert_with(|| Box::new(GroupShadow::new(size)));
    let mut found = Vec::new();
    let one = addrs[exec.trailing_zeros() as usize];
    let same = shape == Shape::Same;
    // Else each lane inside one dword (every whole aligned dword, every byte), or on whole
    // dwords.
    let fits = || match (same, len <= 4) {
        (true, true) => (one & 3) + len as u64 <= 4,
        (false, true) => {
            (0..64).fold(0, |m, l| {
                m | ((addrs[l] & 3) + len as u64 > 4) as u64 & exec >> l & 1
            }) == 0
        }
        (_, false) => {
            len.is_multiple_of(4)
                && (0..64).fold(0, |m, l| m | addrs[l] & 3 & (exec >> l & 1).wrapping_neg()) == 0
        }
    };
    match shape {
        Shape::Row(row) if len <= 4 && row.is_multiple_of(4) => race_row(
            shadow, first, addrs, exec, row, len, access, epoch, &mut found,
        ),
        _ if fits() => race_lanes(
            shadow, first, addrs, exec, len, access, epoch, same, &mut found,
        ),
        _ => {
            let mut lanes = exec;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let (addr, at) = (
                    addrs[l],
                    Site {
                        lane: l as u8,
                        ..first
                    },
                );
                if let Some(k) = race_cells(shadow, at, addr, len, access, epoch) {
                    found.push((at, addr, k));
                }
            }
        }
    }
    found
}

/// Whether instruction `index` has its `glc` bit set (a vector memory instruction).
fn glc(program: &crate::exec::program::Program, index: u32) -> bool {
    let Some(d) = program.insts.get(index as usize) else {
        return false;
    };
    match d.inst.info().format {
        Format::Flat | Format::Global | Format::Scratch => d.inst.bits(0, 16, 1) != 0,
        Format::Mubuf | Format::Mtbuf => d.inst.bits(0, 14, 1) != 0,
        _ => false,
    }
}

/// memcheck: an atomic at an address that is not a multiple of its size. Returns true when it
/// was reported (and the atomic is to be dropped).
pub fn misaligned_atomic(cx: &mut Cx, lane: usize, addr: u64, bytes: usize, lds: bool) -> bool {
    if addr.is_multiple_of(bytes as u64) || !cx.mem.checks().has(Check::Memcheck) {
        return false;
    }
    let at = site(cx, lane);
    let detail = if lds {
        format!("LDS address {addr:#x} is not a multiple of {bytes}")
    } else {
        format!("{addr:#x} is not a multiple of {bytes}")
    };
    if let Some(c) = cx.mem.check_state() {
        c.findings
            .note(Kind::MisalignedAtomic, at.index, || Record {
                kind: Kind::MisalignedAtomic,
                site: at,
                access: Access::Atomic,
                addr,
                len: bytes as u32,
                detail,
                other: None,
                count: 1,
            });
    }
    true
}

/// memcheck: a private (scratch) access past the work-item's segment, reported and dropped;
/// false when memcheck is off (the caller faults).
pub fn private_outside(cx: &mut Cx, lane: usize, offset: u32, len: usize, access: Access) -> bool {
    if !cx.mem.checks().has(Check::Memcheck) {
        return false;
    }
    let at = site(cx, lane);
    let size = cx.env.private_size;
    let Some(c) = cx.mem.check_state() else {
        return false;
    };
    c.would_fault += 1;
    c.findings
        .note(Kind::PrivateOutOfBounds, at.index, || Record {
            kind: Kind::PrivateOutOfBounds,
            site: at,
            access,
            addr: offset as u64,
            len: len as u32,
            detail: format!("outside the work-item's {size}-byte private segment"),
            other: None,
            count: 1,
        });
    true
}

/// memcheck: a scalar load (`s_load_dword*`) outside every live allocation, reported (as by
/// lane 0) and dropped; false when memcheck is off (the caller faults).
pub fn scalar_outside(cx: &mut Cx, addr: u64, len: usize) -> bool {
    outside(cx, 0, addr, len, Access::Load)
}

/// An access outside every live allocation: reported under memcheck (true), else left to fault.
fn outside(cx: &mut Cx, lane: usize, addr: u64, len: usize, access: Access) -> bool {
    if !cx.mem.checks().has(Check::Memcheck) {
        return false;
    }
    let at = site(cx, lane);
    // An access into an allocation's page padding goes through on a GPU; one past it faults.
    let faults = !cx.mem.reachable(addr, len as u64);
    let host = cx.mem.placement() == Placement::Host && !cx.mem.near_allocation(addr);
    let freed = cx
        .mem
        .tombstones()
        .find(addr)
        .map(|t| (t.kind.name(), t.base, t.len));
    let Some(c) = cx.mem.check_state() else {
        return false;
    };
    c.would_fault += faults as u64;
    let kind = match freed {
        Some(_) => Kind::UseAfterFree,
        None => Kind::OutOfBounds,
    };
    // The description (a search of the allocations, or of the process's mappings) only for
    // the first occurrence of each finding.
    if c.findings.bump(kind, at.index) {
        return true;
    }
    let detail = match freed {
        Some((name, base, size)) => format!(
            "inside {name} {base:#x} ({size} bytes) at +{:#x}, which has been freed",
            addr - base
        ),
        None => {
            let nearest = cx.mem.describe(addr);
            match host.then(|| host_mapping(addr)).flatten() {
                Some(what) => format!(
                    "host memory ({what}) the program never registered with hipHostRegister; nearest allocation: {nearest}"
                ),
                None => nearest,
            }
        }
    };
    if let Some(c) = cx.mem.check_state() {
        c.findings.note(kind, at.index, || Record {
            kind,
            site: at,
            access,
            addr,
            len: len as u32,
            detail,
            other: None,
            count: 1,
        });
    }
    true
}

/// What the process has mapped at `addr` (`[heap]`, `[stack]`, a file, `anonymous memory`),
/// from `/proc/self/maps`: under the HIP runtime device pointers are host pointers, so a kernel
/// handed plain host memory reaches an address that is mapped but not registered.
fn host_mapping(addr: u64) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (lo, hi) = fields.next()?.split_once('-')?;
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).ok()?,
            u64::from_str_radix(hi, 16).ok()?,
        );
        if !(lo..hi).contains(&addr) {
            return None;
        }
        let path = fields.nth(4).unwrap_or("");
        Some(if path.is_empty() {
            "anonymous memory".to_string()
        } else {
            path.to_string()
        })
    })
}
