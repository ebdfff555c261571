//! Atomics of a wave's lanes on several addresses done with the host's own atomic instructions
//! (`lock xadd`, `lock and` ...): one instruction per lane where the general path
//! ([`Memory::rmw_lanes`]) runs a compare-and-swap loop around the operation; or, where no
//! other thread reaches memory ([`Memory::alone`]), a host load and store per lane.

use super::{span, Memory};
use gcn_isa::Atomic;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

/// The operations [`Memory::fetch_lanes`] and [`Memory::fetch_one`] take, at the widths they
/// take them.
fn taken(op: Atomic, bytes: usize) -> bool {
    use Atomic::*;
    matches!(
        op,
        Add | Sub | And | Or | Xor | Swap | Umin | Umax | Smin | Smax
    ) && (bytes == 4 || bytes == 8)
}

/// `op` (one [`taken`] at `bytes`) for each lane `l` of `lanes`, in order, on the host bytes
/// at `at(l)` with operand `data(l)`, each old value handed to `old(l, value)`: one host
/// atomic per lane, or, `alone`, a load and a store. One loop per operation and width, the
/// match outside it.
///
/// # Safety
/// Each lane's bytes lie in one live allocation and are aligned for the width.
#[inline(always)]
unsafe fn fetch_each(
    lanes: impl Iterator<Item = usize>,
    at: impl Fn(usize) -> *mut u8,
    data: impl Fn(usize) -> u64,
    mut old: impl FnMut(usize, u64),
    (op, bytes): (Atomic, usize),
    alone: bool,
) {
    use Atomic::*;
    macro_rules! each {
        ($atomic:ty, $int:ty, $rmw:ident, |$o:ident, $v:ident| $f:expr) => {{
            let width = u64::MAX >> (64 - 8 * bytes);
            // Guest memory is only ever accessed through atomics or relaxed copies (see
            // `relaxed`).
            if alone {
                for l in lanes {
                    let a = <$atomic>::from_ptr(at(l).cast());
                    let $v = data(l) as $int;
                    let $o = <$int>::from_le(a.load(Acquire));
                    a.store(<$int>::to_le($f), Release);
                    old(l, $o as u64 & width);
                }
            } else {
                for l in lanes {
                    let a = <$atomic>::from_ptr(at(l).cast());
                    let v = <$int>::to_le(data(l) as $int);
                    old(l, <$int>::from_le(a.$rmw(v, AcqRel)) as u64 & width);
                }
            }
        }};
    }
    match (op, bytes) {
        (Add, 4) => each!(AtomicU32, u32, fetch_add, |o, v| o.wrapping_add(v)),
        (Sub, 4) => each!(AtomicU32, u32, fetch_sub, |o, v| o.wrapping_sub(v)),
        (And, 4) => each!(AtomicU32, u32, fetch_and, |o, v| o & v),
        (Or, 4) => each!(AtomicU32, u32, fetch_or, |o, v| o | v),
        (Xor, 4) => each!(AtomicU32, u32, fetch_xor, |o, v| o ^ v),
        (Swap, 4) => each!(AtomicU32, u32, swap, |_o, v| v),
        (Umin, 4) => each!(AtomicU32, u32, fetch_min, |o, v| o.min(v)),
        (Umax, 4) => each!(AtomicU32, u32, fetch_max, |o, v| o.max(v)),
        (Smin, 4) => each!(AtomicI32, i32, fetch_min, |o, v| o.min(v)),
        (Smax, 4) => each!(AtomicI32, i32, fetch_max, |o, v| o.max(v)),
        (Add, _) => each!(AtomicU64, u64, fetch_add, |o, v| o.wrapping_add(v)),
        (Sub, _) => each!(AtomicU64, u64, fetch_sub, |o, v| o.wrapping_sub(v)),
        (And, _) => each!(AtomicU64, u64, fetch_and, |o, v| o & v),
        (Or, _) => each!(AtomicU64, u64, fetch_or, |o, v| o | v),
        (Xor, _) => each!(AtomicU64, u64, fetch_xor, |o, v| o ^ v),
        (Swap, _) => each!(AtomicU64, u64, swap, |_o, v| v),
        (Umin, _) => each!(AtomicU64, u64, fetch_min, |o, v| o.min(v)),
        (Umax, _) => each!(AtomicU64, u64, fetch_max, |o, v| o.max(v)),
        (Smin, _) => each!(AtomicI64, i64, fetch_min, |o, v| o.min(v)),
        (Smax, _) => each!(AtomicI64, i64, fetch_max, |o, v| o.max(v)),
        _ => {}
    }
}

impl Memory {
    /// Integer atomic `op` (add, sub, and, or, xor, swap, signed and unsigned min and max) of
    /// `bytes` (4 or 8) for the lanes set in `exec`, in lane order, lane `l` at `addrs[l]` with
    /// operand `data[l]`, old values into `olds`, when every lane's access is naturally
    /// aligned and inside one allocation; false (nothing done) otherwise, for the general path.
    pub fn fetch_lanes(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        bytes: usize,
        op: Atomic,
        data: &[u64; 64],
        olds: &mut [u64; 64],
    ) -> bool {
        if !taken(op, bytes) {
            return false;
        }
        let Some((lo, hi)) = span(addrs, exec, bytes as u64) else {
            return exec == 0;
        };
        let Some(p) = self.window(lo, hi) else {
            return false;
        };
        // The set bits of `exec`, lowest first: a filter over all 64 mispredicted a branch for
        // each lane of a random EXEC (a histogram's `if (count) atomicAdd(...)`).
        let lanes = std::iter::successors(Some(exec), |&m| Some(m & m.wrapping_sub(1)))
            .take_while(|&m| m != 0)
            .map(|m| m.trailing_zeros() as usize);
        // `bytes` is 4 or 8: a mask, not a division per lane; every lane's host address is
        // looked at (wrapping for those below `lo`, which are not in `exec`), so the loop
        // vectorises.
        let odd = bytes - 1;
        let host = |l: usize| (p as usize).wrapping_add(addrs[l].wrapping_sub(lo) as usize);
        let misaligned = (0..64).fold(0, |m, l| m | ((host(l) & odd != 0) as u64) << l);
        if misaligned & exec != 0 {
            return false;
        }
        self.writes = self.writes.wrapping_add(1);
        // No other thread reaches memory ([`Memory::alone`]): each lane a host load and a host
        // store in lane order, which no one can tell from one read-modify-write, and which
        // costs a fraction of one.
        let alone = self.alone();
        let at = |l: usize| p.wrapping_add((addrs[l] - lo) as usize);
        // SAFETY: `window` checked every lane's bytes lie in one live allocation, and each is
        // aligned for the width.
        unsafe {
            fetch_each(
                lanes,
                at,
                |l| data[l],
                |l, o| olds[l] = o,
                (op, bytes),
                alone,
            );
        }
        true
    }

    /// [`Memory::fetch_lanes`] of one access: `op` with operand `data` on the `bytes` at
    /// `addr`, the old value returned; `None` (nothing done) where `fetch_lanes` declines.
    /// What the lanes of a wave on one address come to once their operands are combined.
    pub fn fetch_one(&mut self, addr: u64, bytes: usize, op: Atomic, data: u64) -> Option<u64> {
        if !taken(op, bytes) {
            return None;
        }
        let p = self.window(addr, addr.checked_add(bytes as u64)?)?;
        if (p as usize) & (bytes - 1) != 0 {
            return None;
        }
        self.writes = self.writes.wrapping_add(1);
        let alone = self.alone();
        let mut old = 0;
        // SAFETY: `window` checked the bytes lie in one live allocation; they are aligned.
        unsafe {
            fetch_each(
                std::iter::once(0),
                |_| p,
                |_| data,
                |_, o| old = o,
                (op, bytes),
                alone,
            );
        }
        Some(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::AllocKind;

    /// What `op` makes of `old` with operand `v`, `bits` wide, written out for the test.
    fn reference(op: Atomic, old: u64, v: u64, bits: u32) -> u64 {
        let mask = u64::MAX >> (64 - bits);
        let signed = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let r = match op {
            Atomic::Add => old.wrapping_add(v),
            Atomic::Sub => old.wrapping_sub(v),
            Atomic::And => old & v,
            Atomic::Or => old | v,
            Atomic::Xor => old ^ v,
            Atomic::Swap => v,
            Atomic::Umin => old.min(v),
            Atomic::Umax => old.max(v),
            Atomic::Smin => signed(old).min(signed(v)) as u64,
            Atomic::Smax => signed(old).max(signed(v)) as u64,
            _ => unreachable!("not taken by fetch_lanes"),
        };
        r & mask
    }

    /// The host-instruction path leaves memory and returns old values exactly as the general
    /// read-modify-write path, for every operation it takes, both widths, lanes on repeated and
    /// distinct addresses and random exec masks, with host atomics (a worker view alive) and
    /// with loads and stores (the memory alone); it declines misaligned lanes, lanes outside
    /// an allocation and the other operations.
    #[test]
    fn agrees_with_the_general_path_and_declines_the_rest() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let ops = [
            Atomic::Add,
            Atomic::Sub,
            Atomic::And,
            Atomic::Or,
            Atomic::Xor,
            Atomic::Swap,
            Atomic::Umin,
            Atomic::Umax,
            Atomic::Smin,
            Atomic::Smax,
        ];
        for round in 0..200 {
            let op = ops[round % ops.len()];
            let bytes = if round % 3 == 0 { 8 } else { 4 };
            let bits = 8 * bytes as u32;
            let init: Vec<u8> = (0..256).map(|_| rand() as u8).collect();
            let exec = rand() | 1;
            let addrs_in = |base: u64, r: &mut dyn FnMut() -> u64| -> [u64; 64] {
                std::array::from_fn(|_| base + bytes as u64 * (r() % (256 / bytes as u64)))
            };
            let mut fast = Memory::new(1 << 20);
            let mut slow = Memory::new(1 << 20);
            // SAFETY: the view is never used, only held.
            let view =
                (round % 2 == 0).then(|| unsafe { fast.worker_view(std::sync::Arc::default()) });
            assert_eq!(fast.alone(), view.is_none());
            let (a, b) = (
                fast.alloc(256, AllocKind::Buffer).unwrap(),
                slow.alloc(256, AllocKind::Buffer).unwrap(),
            );
            fast.write(a, &init).unwrap();
            slow.write(b, &init).unwrap();
            let offsets = addrs_in(0, &mut rand);
            // Operands as registers hold them: `bytes` wide.
            let data: [u64; 64] = std::array::from_fn(|_| rand() & (u64::MAX >> (64 - bits)));
            let (mut of, mut os) = ([0u64; 64], [0u64; 64]);
            let fa: [u64; 64] = std::array::from_fn(|l| a + offsets[l]);
            let sa: [u64; 64] = std::array::from_fn(|l| b + offsets[l]);
            assert!(fast.fetch_lanes(&fa, exec, bytes, op, &data, &mut of));
            let new = |l: usize, old| reference(op, old, data[l], bits);
            assert!(slow.rmw_lanes(&sa, exec, bytes, new, &mut os));
            for l in 0..64 {
                if exec >> l & 1 != 0 {
                    assert_eq!(of[l], os[l], "{op:?} {bytes} lane {l}");
                }
            }
            let (mut mf, mut ms) = (vec![0u8; 256], vec![0u8; 256]);
            fast.load(a, &mut mf).unwrap();
            slow.load(b, &mut ms).unwrap();
            assert_eq!(mf, ms, "{op:?} {bytes}");
            // Declined: a misaligned lane, a lane past the allocation, another operation.
            let mut odd = fa;
            odd[0] += 2;
            assert!(!fast.fetch_lanes(&odd, 1, bytes, op, &data, &mut of));
            let mut past = fa;
            past[0] = a + 4096;
            assert!(!fast.fetch_lanes(&past, 1, bytes, op, &data, &mut of));
            assert!(!fast.fetch_lanes(&fa, exec, bytes, Atomic::CmpSwap, &data, &mut of));
            // One access: what one lane alone does on the general path, and the same declines.
            let (one_f, one_s) = (fa[0], sa[0]);
            let got = fast.fetch_one(one_f, bytes, op, data[0]).unwrap();
            assert!(slow.rmw_lanes(&[one_s; 64], 1, bytes, new, &mut os));
            assert_eq!(got, os[0], "{op:?} {bytes} one");
            fast.load(a, &mut mf).unwrap();
            slow.load(b, &mut ms).unwrap();
            assert_eq!(mf, ms, "{op:?} {bytes} one");
            assert_eq!(fast.fetch_one(one_f + 2, bytes, op, 1), None);
            assert_eq!(fast.fetch_one(a + 4096, bytes, op, 1), None);
            assert_eq!(fast.fetch_one(a + 256, bytes, op, 1), None);
            assert_eq!(fast.fetch_one(one_f, bytes, Atomic::CmpSwap, 1), None);
            fast.load(a, &mut mf).unwrap();
            assert_eq!(mf, ms, "{op:?} {bytes}: a declined access changed nothing");
        }
    }
}
