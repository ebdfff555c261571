//! A set of registers, indexed by operand code (see `gcn_isa::operand`): SGPRs 0–101, the special
//! scalar registers 102–127 (VCC 106/107, M0 124, EXEC 126/127), the status bits VCCZ 251,
//! EXECZ 252, SCC 253, LDS_DIRECT 254, VGPRs 256–511, and past the decoder's codes the matrix
//! cores' accumulation registers (AGPRs) 512–767.
//!
//! Using the decoder's own code space means an operand `(code, dwords)` becomes a bit range with
//! no translation, and "does this write overlap that read" is one AND over twelve words. AGPRs
//! get codes of their own even where gfx90a keeps them in the VGPR file (`a[n]` is
//! `v[accum_offset + n]`): the hazard rules, like LLVM's, name them apart, and which VGPR an AGPR
//! is depends on the kernel descriptor, not on the instruction.

use gcn_isa::operand::{self, EXEC_LO, M0, VCC_LO, VGPR0};
use std::fmt;

/// Register codes above this are not registers.
const CODES: usize = 768;

/// The code of `a0` (`AGPR0 + n` is `a[n]`).
pub const AGPR0: u16 = 512;

#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RegSet([u64; CODES / 64]);

pub const VCC: RegSet = RegSet::range(VCC_LO, 2);
pub const EXEC: RegSet = RegSet::range(EXEC_LO, 2);
pub const M0_SET: RegSet = RegSet::range(M0, 1);

impl RegSet {
    pub const EMPTY: RegSet = RegSet([0; CODES / 64]);

    /// `dwords` registers starting at `code` (clipped to the code space).
    pub const fn range(code: u16, dwords: u8) -> RegSet {
        let mut set = RegSet::EMPTY;
        let mut i = 0;
        while i < dwords as usize {
            let c = code as usize + i;
            if c < CODES {
                set.0[c / 64] |= 1 << (c % 64);
            }
            i += 1;
        }
        set
    }

    pub fn one(code: u16) -> RegSet {
        RegSet::range(code, 1)
    }

    pub fn insert(&mut self, code: u16, dwords: u8) {
        *self = self.union(RegSet::range(code, dwords));
    }

    pub const fn union(self, o: RegSet) -> RegSet {
        let mut out = self;
        let mut i = 0;
        while i < out.0.len() {
            out.0[i] |= o.0[i];
            i += 1;
        }
        out
    }

    pub fn intersect(self, o: RegSet) -> RegSet {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(o.0) {
            *a &= b;
        }
        out
    }

    pub fn minus(self, o: RegSet) -> RegSet {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(o.0) {
            *a &= !b;
        }
        out
    }

    pub fn overlaps(self, o: RegSet) -> bool {
        self.0.iter().zip(o.0).any(|(a, b)| a & b != 0)
    }

    pub fn contains_all(self, o: RegSet) -> bool {
        o.minus(self).is_empty()
    }

    pub fn is_empty(self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    pub fn contains(self, code: u16) -> bool {
        (code as usize) < CODES && self.0[code as usize / 64] & (1 << (code % 64)) != 0
    }

    /// The scalar registers an instruction can name as an SGPR operand: s0–s101, flat_scratch,
    /// xnack_mask, vcc, ttmp0–15, m0 and exec (LLVM's SReg class).
    pub fn scalar(self) -> RegSet {
        self.intersect(SCALAR)
    }

    pub fn vgprs(self) -> RegSet {
        self.intersect(VGPRS)
    }

    pub fn agprs(self) -> RegSet {
        self.intersect(AGPRS)
    }

    /// VGPRs and AGPRs.
    pub fn vector(self) -> RegSet {
        self.intersect(VGPRS.union(AGPRS))
    }

    /// One past the highest code below `limit` in the set (0 if there is none): the length of
    /// a copy that covers them.
    pub fn end_below(self, limit: u16) -> u16 {
        let limit = (limit as usize).min(CODES);
        for i in (0..limit.div_ceil(64)).rev() {
            let below = limit - i * 64;
            let mask = if below >= 64 {
                u64::MAX
            } else {
                (1 << below) - 1
            };
            let word = self.0[i] & mask;
            if word != 0 {
                return (i * 64 + 64 - word.leading_zeros() as usize) as u16;
            }
        }
        0
    }

    /// The AGPRs in the set, as AGPR numbers, ascending.
    pub fn agpr_numbers(self) -> impl Iterator<Item = u16> {
        self.agprs().codes().map(|c| c - AGPR0)
    }

    /// The VGPRs in the set, as VGPR numbers, ascending (only their codes' words are looked
    /// at; AGPRs are not among them).
    pub fn vgpr_numbers(self) -> impl Iterator<Item = u16> {
        let (mut words, mut i) = (self.0, VGPR0 as usize / 64);
        std::iter::from_fn(move || {
            while i < AGPR0 as usize / 64 {
                let word = &mut words[i];
                if *word != 0 {
                    let bit = word.trailing_zeros() as usize;
                    *word &= *word - 1;
                    return Some((i * 64 + bit - VGPR0 as usize) as u16);
                }
                i += 1;
            }
            None
        })
    }

    /// The codes in the set, ascending; visits set bits only.
    pub fn codes(self) -> impl Iterator<Item = u16> {
        self.0.into_iter().enumerate().flat_map(|(i, mut word)| {
            std::iter::from_fn(move || {
                if word == 0 {
                    return None;
                }
                let bit = word.trailing_zeros() as u16;
                word &= word - 1;
                Some(i as u16 * 64 + bit)
            })
        })
    }
}

const SCALAR: RegSet = RegSet::range(0, 128);
const VGPRS: RegSet = RegSet::range(VGPR0, 255).union(RegSet::range(VGPR0 + 255, 1));
const AGPRS: RegSet = RegSet::range(AGPR0, 255).union(RegSet::range(AGPR0 + 255, 1));

/// Prints the set as register names, merging runs: `s[4:5], vcc, v[0:3]`.
impl fmt::Display for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut code = 0u16;
        while (code as usize) < CODES {
            if !self.contains(code) {
                code += 1;
                continue;
            }
            let mut len = 1u16;
            // Runs never cross a naming boundary (s101|flat_scratch, vcc|ttmp0, ...).
            while self.contains(code + len) && same_file(code, code + len) && len < 16 {
                len += 1;
            }
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            let mut text = String::new();
            if code >= AGPR0 {
                operand::write_register(&mut text, code - AGPR0 + VGPR0, len as u8, "a")?;
            } else {
                operand::write_register(&mut text, code, len as u8, "v")?;
            }
            f.write_str(&text)?;
            code += len;
        }
        if first {
            f.write_str("(none)")?;
        }
        Ok(())
    }
}

impl fmt::Debug for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{self}}}")
    }
}

/// Whether two codes belong to the same register file for printing as one range.
fn same_file(a: u16, b: u16) -> bool {
    let file = |c: u16| match c {
        0..=101 => 0,
        102 | 103 => 1,
        104 | 105 => 2,
        106 | 107 => 3,
        108..=123 => 4,
        126 | 127 => 5,
        256..=511 => 6,
        512..=767 => 7,
        _ => 8 + c,
    };
    file(a) == file(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_cover_the_codes_below_a_limit_and_vgprs_come_by_number() {
        let set = RegSet::range(4, 2)
            .union(RegSet::range(100, 3))
            .union(EXEC)
            .union(RegSet::range(VGPR0 + 63, 2))
            .union(RegSet::one(VGPR0 + 255));
        assert_eq!(set.end_below(102), 102);
        assert_eq!(set.end_below(101), 101);
        assert_eq!(set.end_below(64), 6);
        assert_eq!(set.end_below(4), 0);
        assert_eq!(RegSet::EMPTY.end_below(512), 0);
        assert_eq!(set.end_below(600), VGPR0 + 256);
        assert_eq!(set.vgpr_numbers().collect::<Vec<_>>(), [63, 64, 255]);
        let by_code: Vec<u16> = set.vgprs().codes().map(|c| c - VGPR0).collect();
        assert_eq!(by_code, [63, 64, 255]);
        assert_eq!(RegSet::range(0, 100).vgpr_numbers().count(), 0);
    }

    #[test]
    fn ranges_overlap_and_print() {
        let a = RegSet::range(4, 2);
        let b = RegSet::range(5, 4);
        assert!(a.overlaps(b));
        assert!(!a.overlaps(RegSet::range(6, 1)));
        assert_eq!(a.to_string(), "s[4:5]");
        assert_eq!(VCC.to_string(), "vcc");
        assert_eq!(RegSet::one(VCC_LO).to_string(), "vcc_lo");
        assert_eq!(
            RegSet::range(VGPR0 + 2, 3).union(EXEC).to_string(),
            "exec, v[2:4]"
        );
        assert!(RegSet::range(VGPR0, 4).vgprs().contains(VGPR0 + 3));
        assert!(RegSet::range(VGPR0, 4).scalar().is_empty());
        assert!(RegSet::range(VGPR0 + 510 - 256, 4).contains(511));
        let acc = RegSet::range(AGPR0 + 4, 4);
        assert_eq!(acc.to_string(), "a[4:7]");
        assert_eq!(
            acc.union(RegSet::range(VGPR0 + 4, 1)).to_string(),
            "v4, a[4:7]"
        );
        assert!(acc.vgprs().is_empty() && acc.agprs() == acc && acc.vector() == acc);
        assert!(!acc.overlaps(RegSet::range(VGPR0 + 4, 4)));
    }
}
