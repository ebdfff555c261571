//! Division by a number fixed when the memory system is built (sets, channels, interleave,
//! line sizes): a shift and a mask when it is a power of two, as every geometry in the
//! parameter table is, so that the lookups of each request do not pay for a 64-bit division
//! each (tens of cycles apiece on the host); a division otherwise.

/// A divisor of at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divisor {
    d: u64,
    /// log2(d) when `d` is a power of two, else `u32::MAX`.
    shift: u32,
}

impl Divisor {
    /// Dividing by `d` (0 counts as 1).
    pub fn new(d: u64) -> Divisor {
        let d = d.max(1);
        let shift = match d.is_power_of_two() {
            true => d.trailing_zeros(),
            false => u32::MAX,
        };
        Divisor { d, shift }
    }

    /// The divisor itself.
    pub fn get(self) -> u64 {
        self.d
    }

    /// `x / d` (the quotient).
    #[inline(always)]
    pub fn quotient(self, x: u64) -> u64 {
        match self.shift {
            u32::MAX => x / self.d,
            s => x >> s,
        }
    }

    /// `x % d` (the remainder).
    #[inline(always)]
    pub fn remainder(self, x: u64) -> u64 {
        match self.shift {
            u32::MAX => x % self.d,
            _ => x & (self.d - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;

    #[test]
    fn agrees_with_division_for_powers_of_two_and_others() {
        let xs = [
            0,
            1,
            2,
            63,
            64,
            65,
            255,
            256,
            1 << 40,
            u64::MAX - 1,
            u64::MAX,
        ];
        for d in [0, 1, 2, 3, 4, 6, 7, 16, 64, 96, 256, 1000, 1 << 20] {
            let v = Divisor::new(d);
            for &x in &xs {
                let d = d.max(1);
                assert_eq!(
                    (v.quotient(x), v.remainder(x)),
                    (x / d, x % d),
                    "{x} by {d}"
                );
            }
        }
    }
}
