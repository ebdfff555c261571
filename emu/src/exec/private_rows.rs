//! A SCRATCH load or store with one lookup for the wave, as whole rows of the scratch backing
//! when its lanes share one private-segment offset, or lane addresses in one allocation.
//!
//! Scratch backing is swizzled with 4-byte elements and an index stride of 64
//! ([`super::access::private_address`]): dword `k` of every lane's private segment lies in the
//! 256 contiguous bytes at `flat_scratch + 256 k`, lane `l` at `4 l`. Compiled code addresses its
//! stack and spill slots with one offset for the whole wave (an SGPR, an immediate, or a VGPR
//! holding the same value in each lane), so such an access is `bytes / 4` whole rows — or, for a
//! byte or a short inside one dword, one row read (and, for a store, merged and written back)
//! ([`crate::memory::Memory::load_rows`]). A private array indexed per lane gives each lane its
//! own offset; its dwords are then gathered like a global access's
//! ([`crate::memory::Memory::load_dwords`]). The per-lane path looked up every byte of every
//! lane: 512 lookups for one `scratch_load_dwordx2`.
//!
//! Without a sanitizer only, and only when every active lane's access lies inside the private
//! segment, as whole dwords from a dword boundary or as a byte or short inside one dword, and
//! in one allocation of backing; anything else returns false and goes lane by lane, which faults
//! and reports each lane as it should.

use super::Cx;
use crate::wave::{VGPRS, WAVE_SIZE};

/// How an access's lanes are reached with one lookup.
// Made and used on the stack for one access, so the addresses' size costs no copy.
#[allow(clippy::large_enum_variant)]
enum Plan {
    /// Every lane at the same offset: the rows start here.
    Rows(u64),
    /// Each lane's first byte (the later dwords of a lane 256 bytes apart).
    Lanes([u64; WAVE_SIZE]),
}

/// How the access of `bytes` at each active lane's private `offsets` can be done with one
/// lookup, if it can: no sanitizer, some lane active, and every active lane's access inside the
/// private segment, either whole dwords from a dword boundary or a byte or short inside one
/// dword.
fn plan(cx: &Cx, offsets: &[u32; WAVE_SIZE], bytes: usize, exec: u64) -> Option<Plan> {
    #[cfg(test)]
    if tests::PER_LANE.get() {
        return None;
    }
    if exec == 0 || cx.mem.checking() {
        return None;
    }
    let size = cx.env.private_size as u64;
    let whole = bytes.is_multiple_of(4);
    let mut fits = 0u64;
    for (l, &o) in offsets.iter().enumerate() {
        let aligned = if whole {
            o % 4 == 0
        } else {
            o % 4 + bytes as u32 <= 4
        };
        fits |= ((aligned && o as u64 + bytes as u64 <= size) as u64) << l;
    }
    if fits & exec != exec {
        return None;
    }
    let scratch = cx.wave.flat_scratch();
    let first = offsets[exec.trailing_zeros() as usize];
    let mut differ = 0u64;
    for (l, &o) in offsets.iter().enumerate() {
        differ |= ((o != first) as u64) << l;
    }
    if differ & exec == 0 {
        return Some(Plan::Rows(scratch.wrapping_add(first as u64 / 4 * 256)));
    }
    Some(Plan::Lanes(std::array::from_fn(|l| {
        super::access::private_address(scratch, offsets[l], l)
    })))
}

/// The bits a byte or short access takes of its dword, and the shift to them.
fn field(offset: u32, bytes: usize) -> (u32, u32) {
    let mask = if bytes == 1 { 0xff } else { 0xffff };
    (mask, 8 * (offset % 4))
}

/// Loads `bytes` per active lane at private `offsets`: a dword per row (a byte or short zero-
/// or sign-extended into the first). None, with nothing read, for the per-lane path.
pub(super) fn load(
    cx: &Cx,
    offsets: &[u32; WAVE_SIZE],
    exec: u64,
    (bytes, signed): (usize, bool),
) -> Option<[[u32; WAVE_SIZE]; 4]> {
    let plan = plan(cx, offsets, bytes, exec)?;
    let mut rows = [[0u32; WAVE_SIZE]; 4];
    let n = bytes.div_ceil(4);
    let loaded = match &plan {
        Plan::Rows(start) => {
            let ok = cx.mem.load_rows(*start, &mut rows[..n]);
            if ok && bytes < 4 {
                let (mask, shift) = field(offsets[exec.trailing_zeros() as usize], bytes);
                rows[0].iter_mut().for_each(|v| *v = (*v >> shift) & mask);
            }
            ok
        }
        Plan::Lanes(first) if bytes < 4 => cx.mem.load_lanes(first, exec, bytes, &mut rows),
        Plan::Lanes(first) => (0..n).all(|k| {
            let at = first.map(|a| a.wrapping_add(256 * k as u64));
            cx.mem.load_dwords(&at, exec, &mut rows[k])
        }),
    };
    if !loaded {
        return None;
    }
    if signed && bytes < 4 {
        let sign = 32 - 8 * bytes as u32;
        rows[0]
            .iter_mut()
            .for_each(|v| *v = ((*v << sign) as i32 >> sign) as u32);
    }
    Some(rows)
}

/// Stores `bytes` per active lane at private `offsets` from DATA: the registers from `data`,
/// or with `high` (a `_d16_hi` store of a byte or short) the high half of the one. False, with
/// nothing written, for the per-lane path.
pub(super) fn store(
    cx: &mut Cx,
    offsets: &[u32; WAVE_SIZE],
    exec: u64,
    bytes: usize,
    (data, high): (usize, bool),
) -> bool {
    let Some(plan) = plan(cx, offsets, bytes, exec) else {
        return false;
    };
    let wave = &*cx.wave;
    let halves: [u32; WAVE_SIZE];
    let rows: [&[u32; WAVE_SIZE]; 4] = if high {
        halves = wave.vgpr[data % VGPRS].map(|v| v >> 16);
        [&halves; 4]
    } else {
        std::array::from_fn(|k| &wave.vgpr[(data + k) % VGPRS])
    };
    let source = |k: usize| rows[k];
    match plan {
        Plan::Rows(start) if bytes >= 4 => cx.mem.store_rows(start, exec, bytes / 4, source),
        Plan::Rows(start) => {
            // A byte or short: the lanes' other bytes of the dword are kept. The backing is
            // this wave's own, so reading the row and writing it back races with no other wave.
            let mut row = [[0u32; WAVE_SIZE]; 1];
            if !cx.mem.load_rows(start, &mut row) {
                return false;
            }
            let (mask, shift) = field(offsets[exec.trailing_zeros() as usize], bytes);
            for (old, &v) in row[0].iter_mut().zip(source(0)) {
                *old = (*old & !(mask << shift)) | ((v & mask) << shift);
            }
            cx.mem.store_rows(start, exec, 1, |_| &row[0])
        }
        Plan::Lanes(first) if bytes < 4 => {
            cx.mem
                .store_lanes(&first, exec, bytes, std::array::from_fn(source))
        }
        Plan::Lanes(first) => {
            // Every dword of every lane is found in one allocation before any is written, so
            // no store is left half done for the per-lane path to find.
            let n = bytes / 4;
            let (mut lo, mut hi) = (u64::MAX, 0);
            for (l, &a) in first.iter().enumerate() {
                if exec >> l & 1 != 0 {
                    (lo, hi) = (lo.min(a), hi.max(a));
                }
            }
            let reach = (hi - lo).saturating_add(256 * (n as u64 - 1) + 4);
            cx.mem.inside_allocation(lo, reach)
                && (0..n).all(|k| {
                    let at = first.map(|a| a.wrapping_add(256 * k as u64));
                    cx.mem.store_dwords(&at, exec, source(k))
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::program::Program;
    use crate::exec::{Cx, DispatchEnv};
    use crate::lds::Lds;
    use crate::memory::{AllocKind, Memory};
    use crate::wave::{Wave, WAVE_SIZE};
    use gcn_isa::operand::FLAT_SCRATCH_LO;
    use gcn_isa::{assemble, Target};
    use std::cell::Cell;

    thread_local! {
        /// Sends every access lane by lane, for the comparison.
        pub(super) static PER_LANE: Cell<bool> = const { Cell::new(false) };
    }

    /// SCRATCH loads and stores of every width (d16 included) give the same registers, scratch backing and
    /// faults with one lookup (whole rows, or lane addresses) as lane by lane, for offsets in an SGPR,
    /// an immediate or a VGPR (the same in every lane, or not), aligned or not, inside the
    /// private segment or running past it, and any EXEC.
    #[test]
    fn rows_agree_with_the_per_lane_path() {
        let text = [
            "scratch_load_dword v4, off, s2 offset:8",
            "scratch_load_dword v4, off, s2 offset:2",
            "scratch_load_dwordx2 v[4:5], v0, off offset:4",
            "scratch_load_dwordx3 v[4:6], off, s2",
            "scratch_load_dwordx4 v[4:7], v0, off offset:16",
            "scratch_load_ubyte v4, off, s2 offset:1",
            "scratch_load_sbyte v4, v0, off offset:3",
            "scratch_load_ushort v4, off, s2 offset:2",
            "scratch_load_sshort v4, v0, off",
            "scratch_load_ushort v4, off, s2 offset:3",
            "scratch_store_byte off, v4, s2 offset:5",
            "scratch_store_short v0, v4, off offset:2",
            "scratch_store_short off, v4, s2 offset:3",
            "scratch_store_dword off, v4, s2",
            "scratch_store_dword v0, v4, off offset:1",
            "scratch_store_dwordx2 v0, v[4:5], off",
            "scratch_store_dwordx3 off, v[4:6], s2 offset:12",
            "scratch_store_dwordx4 off, v[4:7], s2 offset:32",
            "scratch_load_short_d16 v4, off, s2 offset:2",
            "scratch_load_sbyte_d16_hi v4, v0, off offset:1",
            "scratch_load_ubyte_d16 v4, v0, off",
            "scratch_store_short_d16_hi off, v4, s2 offset:2",
            "scratch_store_byte_d16_hi v0, v4, off offset:3",
        ];
        let code = assemble(&text.join("\n"), Target::Gfx900).unwrap();
        let program = Program::decode(&code.bytes, 0, Target::Gfx900);
        assert_eq!(program.insts.len(), text.len());
        // 64 bytes of private segment per lane: 16 rows of backing.
        const PRIVATE: u32 = 64;
        const BACKING: u64 = PRIVATE as u64 * WAVE_SIZE as u64;
        let mut rows = Memory::default();
        let mut per_lane = Memory::default();
        let base = rows.alloc(BACKING, AllocKind::Scratch).unwrap();
        assert_eq!(per_lane.alloc(BACKING, AllocKind::Scratch).unwrap(), base);
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        let bytes: Vec<u8> = (0..BACKING).map(|_| next() as u8).collect();
        rows.store(base, &bytes).unwrap();
        per_lane.store(base, &bytes).unwrap();
        let env = DispatchEnv {
            private_size: PRIVATE,
            ..DispatchEnv::default()
        };
        let (mut lds_a, mut lds_b) = (Lds::new(0), Lds::new(0));
        let mut faults = 0;
        for round in 0..3000 {
            let name = text[round % text.len()];
            let d = &program.insts[round % text.len()];
            let mut wave = Wave::new(0);
            wave.set_pair(FLAT_SCRATCH_LO, base);
            // Mostly inside the segment, now and then past its end.
            let reach = if next() % 8 == 0 { 80 } else { 24 };
            wave.sgpr[2] = (next() % reach) as u32;
            let uniform = (next() % reach) as u32;
            // The same offset in every lane, or each lane its own: dword aligned, or any.
            let spread = next() % 3;
            for l in 0..WAVE_SIZE {
                wave.vgpr[0][l] = match spread {
                    0 => uniform,
                    1 => (next() % 6 * 4) as u32,
                    _ => (next() % 24) as u32,
                };
                for r in 4..8 {
                    wave.vgpr[r][l] = next() as u32;
                }
            }
            wave.set_exec(match next() % 3 {
                0 => u64::MAX,
                1 => next(),
                _ => 1 << (next() % 64),
            });
            let mut wave_b = wave.clone();
            let run = |wave: &mut Wave, mem: &mut Memory, lds: &mut Lds, one_by_one| {
                let mut cx = Cx {
                    wave,
                    mem,
                    lds,
                    program: &program,
                    env: &env,
                };
                PER_LANE.set(one_by_one);
                let r = format!("{:?}", crate::exec::issue::execute(&mut cx, d));
                PER_LANE.set(false);
                r
            };
            let a = run(&mut wave, &mut rows, &mut lds_a, false);
            let b = run(&mut wave_b, &mut per_lane, &mut lds_b, true);
            assert_eq!(a, b, "{name}");
            faults += a.starts_with("Err") as u32;
            for r in 4..8 {
                assert_eq!(wave.vgpr[r], wave_b.vgpr[r], "{name} v{r}");
            }
            let (mut x, mut y) = (vec![0u8; BACKING as usize], vec![0u8; BACKING as usize]);
            rows.load(base, &mut x).unwrap();
            per_lane.load(base, &mut y).unwrap();
            assert_eq!(x, y, "{name}");
        }
        // Both outcomes were compared: accesses inside the segment and ones that fault.
        assert!(faults > 0 && faults < 3000, "{faults} faults");
    }
}
