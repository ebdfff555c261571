//! The global wave sync (GWS) resources of a device: the hardware barriers that
//! `ds_gws_init` and `ds_gws_barrier` use, outside any workgroup. HIP's
//! `cooperative_groups::grid_group::sync()` (ockl's `__ockl_grid_sync` on gfx9) has one wave of
//! every workgroup of the grid wait at resource 0 for all the others, which works only when the
//! whole grid is resident at once (a cooperative launch).
//!
//! Each resource holds the waves that have arrived in its current round and the round's
//! number; the wave that completes a round starts the next one, and the waves of the finished
//! round see the number change and go on. The state is one atomic word per resource, so the
//! worker threads of a functional dispatch and the compute units of the timing model share it.

use std::sync::atomic::{AtomicU64, Ordering};

/// GWS resources of a gfx9 device (the resource id is 6 bits: offset + M0[21:16]).
pub const RESOURCES: usize = 64;

/// The GWS resources; shared by every view of a device's memory.
#[derive(Debug)]
pub struct Gws {
    /// Per resource: the round in bits [63:32], waves arrived in it in [31:0].
    state: [AtomicU64; RESOURCES],
}

impl Default for Gws {
    fn default() -> Self {
        Gws {
            state: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// What a wave's arrival at a GWS barrier did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// It was the last the round waited for: the round is over and everyone goes on.
    Released,
    /// It waits for the end of round `round`.
    Waiting { round: u32 },
}

impl Gws {
    /// `ds_gws_init`: resource `id` starts a fresh round with no wave arrived.
    pub fn init(&self, id: usize) {
        let s = &self.state[id % RESOURCES];
        let round = (s.load(Ordering::SeqCst) >> 32).wrapping_add(1);
        s.store(round << 32, Ordering::SeqCst);
    }

    /// `ds_gws_barrier` with `count` waves taking part: one more wave arrives at resource `id`.
    pub fn arrive(&self, id: usize, count: u32) -> Arrival {
        let s = &self.state[id % RESOURCES];
        let mut cur = s.load(Ordering::SeqCst);
        loop {
            let (round, arrived) = ((cur >> 32) as u32, cur as u32);
            let (next, arrival) = if arrived.saturating_add(1) >= count {
                ((round.wrapping_add(1) as u64) << 32, Arrival::Released)
            } else {
                (
                    (round as u64) << 32 | (arrived + 1) as u64,
                    Arrival::Waiting { round },
                )
            };
            match s.compare_exchange_weak(cur, next, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return arrival,
                Err(now) => cur = now,
            }
        }
    }

    /// Whether round `round` of resource `id` is over.
    pub fn released(&self, id: usize, round: u32) -> bool {
        (self.state[id % RESOURCES].load(Ordering::SeqCst) >> 32) as u32 != round
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_of_count_waves_releases_the_round() {
        let g = Gws::default();
        g.init(0);
        let waits: Vec<_> = (0..3).map(|_| g.arrive(0, 4)).collect();
        let Arrival::Waiting { round } = waits[0] else {
            panic!("{waits:?}")
        };
        assert!(waits.iter().all(|a| *a == Arrival::Waiting { round }));
        assert!(!g.released(0, round));
        // Another resource is not touched.
        assert_eq!(g.arrive(1, 2), Arrival::Waiting { round: 0 });
        assert_eq!(g.arrive(0, 4), Arrival::Released);
        assert!(g.released(0, round));
        // The next round counts from zero again.
        assert_ne!(g.arrive(0, 4), Arrival::Released);
        // One wave alone is a round of one.
        assert_eq!(g.arrive(5, 1), Arrival::Released);
    }
}
