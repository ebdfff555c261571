//! The spin (livelock) detector: a wave that goes round the same loop with its registers
//! repeating and nothing written anywhere will go round it forever, unless some other wave or
//! the host still writes. Both engines feed it at taken backward branches only (the wave's pc
//! after an instruction is at or before that instruction), so straight-line code pays one
//! comparison per instruction.
//!
//! Writes are counted, not compared: [`crate::memory::Memory::writes`] counts every store,
//! atomic, host write (hostcall answers, copies) and mapping change of the device, and
//! [`crate::lds::Lds::writes`] every write to a workgroup's LDS. Two back-edges of one loop with
//! equal counts had no write in between, by any wave or by the host.
//!
//! Per wave ([`SpinState`]): back-edges of one loop in a row with no write are counted; once
//! there are `limit` of them the wave's state (scalar registers, SCC, MODE, the VGPRs it is
//! allocated, wait counters) is fingerprinted and compared with the next [`PERIODS`] back-edges.
//! The same fingerprint again means the loop maps this state to itself and, memory being the
//! same, will keep doing so: the wave spins. A loop whose state keeps changing (a counter, a
//! computation without stores) doubles the quiet count needed before the next look, so a long
//! register-only loop fingerprints a handful of times, not every iteration.
//!
//! A spinning wave alone is no livelock: someone may yet write the flag it waits on. The engines
//! decide at their own pace (after serving hostcalls, so that a host answer still counts): a
//! livelock is when every wave that has not ended either spins, with the counts unchanged since
//! it was found spinning, or waits at a barrier that the spinning waves will never reach, and
//! no memory write is still in flight. Workgroups not yet started cannot help: they start only
//! when a resident one ends.

use super::{Wave, VGPRS};

/// Default number of write-free iterations of one loop before a wave's state is compared.
pub const DEFAULT_SPIN_LIMIT: u32 = 1024;

/// The threads of a parallel functional dispatch, as the spin detector sees them: one thread's
/// waves all spinning is a livelock only when every other thread's waves spin too or it has no
/// workgroup left, since another thread's waves may still write what these wait for.
#[derive(Clone, Copy)]
pub struct Peers<'a> {
    /// Per thread: [`Peers::RUNNING`], [`Peers::IDLE`] (nothing left to run), or the shared
    /// write count at which its waves were last seen all stuck. A claim made before the count
    /// moved on is stale: the write may be what the thread waits for.
    pub claims: &'a [std::sync::atomic::AtomicU64],
    /// The dispatch's published write count ([`crate::memory::Memory::publish_writes`]).
    pub writes: &'a std::sync::atomic::AtomicU64,
    /// This thread's entry.
    pub me: usize,
}

impl Peers<'_> {
    pub const RUNNING: u64 = u64::MAX;
    pub const IDLE: u64 = u64::MAX - 1;

    /// Records whether this thread's waves are stuck; true when every thread's are, with no
    /// write published since any of them said so.
    pub fn all_stuck(&self, stuck: bool) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        let now = self.writes.load(SeqCst);
        let claim = if stuck { now } else { Self::RUNNING };
        let mine = &self.claims[self.me];
        // Written only on a change: the claims are read by the others every round they spin.
        if mine.load(SeqCst) != claim {
            mine.store(claim, SeqCst);
        }
        stuck
            && self.claims.iter().all(|c| {
                let c = c.load(SeqCst);
                c == now || c == Self::IDLE
            })
    }
}

/// Back-edges compared with the fingerprint: a loop whose state repeats with a period of up to
/// this many iterations (1 for a plain spin, 2 for one that toggles a register) is found.
pub const PERIODS: u32 = 8;

/// The quiet count before a look grows up to `limit` times this after looks that found the
/// state changing.
const BACKOFF_CAP: u32 = 64;

/// Writes seen so far: device memory (everyone's) and the wave's workgroup's LDS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Epoch {
    pub memory: u64,
    pub lds: u64,
}

/// One wave's detector state.
#[derive(Clone, Debug, Default)]
pub struct SpinState {
    /// The loop: its backward branch and target (instruction indices).
    pub branch: u32,
    pub target: u32,
    epoch: Epoch,
    /// Back-edges of the loop in a row with no write anywhere.
    quiet: u32,
    /// Quiet back-edges needed before the next look (0: `limit`).
    threshold: u32,
    /// The fingerprint being compared against, and how many back-edges were compared with it.
    checkpoint: Option<(u64, u64)>,
    compared: u32,
    /// The state repeated with no write in between: the wave spins (while `epoch` holds).
    pub spinning: bool,
}

impl SpinState {
    /// Wave `w` took a backward branch from instruction `branch` to `target` (`w.pc`), with
    /// the write counts at `epoch`. `vgprs` is how many VGPRs the wave is allocated. Returns
    /// true when this back-edge found the wave spinning.
    #[inline]
    pub fn back_edge(w: &mut Wave, branch: u32, epoch: Epoch, limit: u32, vgprs: u32) -> bool {
        let target = w.pc;
        let s = &mut w.spin;
        if s.branch != branch || s.target != target || s.epoch != epoch {
            s.branch = branch;
            s.target = target;
            s.epoch = epoch;
            s.quiet = 0;
            s.checkpoint = None;
            s.spinning = false;
            return false;
        }
        if s.spinning {
            return false;
        }
        s.quiet += 1;
        let threshold = if s.threshold == 0 { limit } else { s.threshold };
        if s.quiet < threshold {
            return false;
        }
        Self::look(w, branch, target, threshold, limit, vgprs)
    }

    /// A look at the state after enough quiet back-edges: the rare, slow part.
    #[cold]
    #[inline(never)]
    fn look(
        w: &mut Wave,
        branch: u32,
        target: u32,
        threshold: u32,
        limit: u32,
        vgprs: u32,
    ) -> bool {
        let scalar = scalar_fingerprint(w);
        let s = &mut w.spin;
        match s.checkpoint {
            None => {
                let vector = vector_fingerprint(w, vgprs);
                w.spin.checkpoint = Some((scalar, vector));
                w.spin.compared = 0;
                false
            }
            Some((c_scalar, c_vector)) => {
                // The scalar state is cheap and, in most loops that are not spinning, already
                // differs (a counter, an address): only then are the VGPRs looked at.
                if c_scalar == scalar && c_vector == vector_fingerprint(w, vgprs) {
                    tracing::debug!(wave = w.index, branch, target, "wave spins");
                    w.spin.spinning = true;
                    return true;
                }
                let s = &mut w.spin;
                s.compared += 1;
                if s.compared >= PERIODS {
                    s.checkpoint = None;
                    s.quiet = 0;
                    s.threshold = threshold
                        .saturating_mul(2)
                        .min(limit.saturating_mul(BACKOFF_CAP));
                }
                false
            }
        }
    }

    /// The wave spins and nothing has been written since it was found spinning.
    #[inline]
    pub fn stuck_at(&self, epoch: Epoch) -> bool {
        self.spinning && self.epoch == epoch
    }
}

/// One step of a fast, non-cryptographic 64-bit fold (FxHash's multiplier).
#[inline]
fn fold(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

fn scalar_fingerprint(w: &Wave) -> u64 {
    let mut h = fold(0, w.pc as u64);
    for pair in w.sgpr.chunks_exact(2) {
        h = fold(h, pair[0] as u64 | (pair[1] as u64) << 32);
    }
    let c = w.counters;
    h = fold(
        h,
        w.scc as u64 | (w.mode as u64) << 8 | (w.csp as u64) << 40,
    );
    h = fold(
        h,
        w.trapsts as u64 | (c.vm as u64) << 32 | (c.lgkm as u64) << 40,
    );
    fold(h, c.exp as u64)
}

fn vector_fingerprint(w: &Wave, vgprs: u32) -> u64 {
    let mut h = 0;
    // The VGPRs the kernel allocates and the AGPRs after them (a loop may count in either).
    let agpr_base = w.vgpr.file().agpr_base;
    let vgpr_rows = (vgprs as usize).min(VGPRS).min(agpr_base);
    let rows = w.vgpr.iter().take(vgpr_rows);
    for row in rows.chain(w.vgpr.iter().skip(agpr_base)) {
        for pair in row.chunks_exact(2) {
            h = fold(h, pair[0] as u64 | (pair[1] as u64) << 32);
        }
    }
    h
}

/// A wave found in a livelock: where it is and the loop it goes round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spinner {
    pub group: [u32; 3],
    pub wave: u32,
    /// The loop's target and its backward branch (instruction indices).
    pub target: u32,
    pub branch: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(w: &mut Wave, n: u32, epoch: Epoch, limit: u32) -> Option<u32> {
        (1..=n).find(|_| {
            w.pc = 3;
            SpinState::back_edge(w, 9, epoch, limit, 4)
        })
    }

    #[test]
    fn a_repeating_state_with_no_writes_spins() {
        let mut w = Wave::new(0);
        let e = Epoch { memory: 5, lds: 1 };
        // The first back-edge starts counting; `limit` quiet ones, then the next repeats.
        assert_eq!(edges(&mut w, 100, e, 16), Some(18));
        assert!(w.spin.stuck_at(e));
        assert!(!w.spin.stuck_at(Epoch { memory: 6, lds: 1 }));
        // A write anywhere starts over.
        w.pc = 3;
        assert!(!SpinState::back_edge(
            &mut w,
            9,
            Epoch { memory: 6, lds: 1 },
            16,
            4
        ));
        assert!(!w.spin.spinning);
    }

    #[test]
    fn changing_registers_or_writes_never_spin() {
        let mut w = Wave::new(0);
        let e = Epoch::default();
        for i in 0..10_000u32 {
            w.vgpr[3][7] = i;
            w.pc = 3;
            assert!(!SpinState::back_edge(&mut w, 9, e, 16, 4));
        }
        let mut w = Wave::new(0);
        for i in 0..10_000u64 {
            w.pc = 3;
            let e = Epoch { memory: i, lds: 0 };
            assert!(!SpinState::back_edge(&mut w, 9, e, 16, 4));
        }
    }

    #[test]
    fn changing_agprs_never_spin() {
        let file = crate::wave::RegFile::new(gcn_isa::Target::Gfx908, 4, None);
        let mut w = Wave::with_file(0, file);
        let e = Epoch::default();
        for i in 0..10_000u32 {
            let a1 = w.vgpr.agpr_row(1).unwrap();
            w.vgpr.row_mut(a1).unwrap()[7] = i;
            w.pc = 3;
            assert!(!SpinState::back_edge(&mut w, 9, e, 16, 4));
        }
    }

    #[test]
    fn a_period_of_two_is_found_and_looks_back_off() {
        let mut w = Wave::new(0);
        let e = Epoch::default();
        let mut found = None;
        for i in 0..1000u32 {
            w.sgpr[0] = i % 2;
            w.pc = 3;
            if SpinState::back_edge(&mut w, 9, e, 16, 4) {
                found = Some(i);
                break;
            }
        }
        assert_eq!(found, Some(18));
        // A counter: each miss doubles the quiet count before the next look.
        let mut w = Wave::new(0);
        for i in 0..2000u32 {
            w.sgpr[0] = i;
            w.pc = 3;
            SpinState::back_edge(&mut w, 9, e, 16, 4);
        }
        assert!(w.spin.threshold >= 256, "{}", w.spin.threshold);
    }
}
