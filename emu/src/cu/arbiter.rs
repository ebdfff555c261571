//! The issue rule (module [`super::engine`]), once, on waves as bits in issue order: for each
//! unit, the first wave that needs it and that nothing else holds takes it. The pass
//! ([`super::engine::CuSim::take_turn`]) gives it a turn's ready waves ordered by priority and
//! arbitration, with what holds each; the bulk turns ([`super::bulk`]) give it their masks,
//! where age is the issue order and only a busy vector ALU holds a wave.

use super::stats::StallReason;

/// The waves that issue: of the waves `free` (nothing but their unit holds them), for each
/// unit the first (lowest bit) of those `needs` it. Waves needing no unit are not given here:
/// nothing contends for what they need.
#[inline(always)]
pub(crate) fn winners<const N: usize>(needs: [u32; N], free: u32) -> u32 {
    needs.iter().fold(0, |won, &m| won | first(m & free))
}

/// Why a wave whose unit is busy stalls: for Dependency if with its own earlier instruction
/// (`own`), else for Issue.
#[inline(always)]
pub(crate) fn busy_reason(own: bool) -> StallReason {
    match own {
        true => StallReason::Dependency,
        false => StallReason::Issue,
    }
}

/// The first wave of `waves`, as a mask.
#[inline(always)]
pub(crate) fn first(waves: u32) -> u32 {
    waves & waves.wrapping_neg()
}

#[cfg(test)]
mod tests {
    use super::winners;

    #[test]
    fn each_unit_goes_to_its_first_free_wave() {
        // Waves 0 and 2 need unit 0, 1 and 3 unit 1, 4 unit 2; wave 0 is held.
        let needs = [0b00101, 0b01010, 0b10000];
        assert_eq!(winners(needs, 0b11110), 0b10110);
        assert_eq!(winners(needs, 0), 0);
        assert_eq!(winners(needs, u32::MAX), 0b10011);
    }
}
