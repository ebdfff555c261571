//! The seeded generator behind `--schedule random`: SplitMix64 (Steele, Lea and Flood, 2014),
//! a few lines with good statistical quality for shuffling issue order and jittering latencies.
//! Not for anything needing unpredictability.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant at these sizes.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// `cycles` varied uniformly within ±50 %, at least 1.
    pub fn jitter(&mut self, cycles: u32) -> u32 {
        let half = cycles as u64 / 2;
        (cycles as u64 - half + self.below(2 * half + 1)).max(1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_bounded() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            let x = a.jitter(400);
            assert_eq!(x, b.jitter(400));
            assert!((200..=600).contains(&x));
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
