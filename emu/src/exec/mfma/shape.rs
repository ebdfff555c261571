//! One matrix op's shape and where its values live in the registers, and the modifier fields
//! that change which values it reads.

use crate::wave::WAVE_SIZE;
use gcn_isa::{MatrixInput as Input, Target};

/// One matrix op's shape (from the ISA table's [`gcn_isa::MfmaShape`]), with the layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub blocks: usize,
    /// A's element type (and B's, but for the mixed FP8/BF8 ops).
    pub input: Input,
    pub b_input: Input,
    /// A 4:2 structured-sparse A (`v_smfmac_*`): A holds half of its elements, src2 their
    /// indices, and D is the accumulator.
    pub sparse: bool,
}

impl From<gcn_isa::MfmaShape> for Shape {
    fn from(s: gcn_isa::MfmaShape) -> Shape {
        Shape {
            m: s.m as usize,
            n: s.n as usize,
            k: s.k as usize,
            blocks: s.blocks as usize,
            input: s.input,
            b_input: s.b_input,
            sparse: s.sparse,
        }
    }
}

impl Shape {
    /// K_L: the items of B (and of a dense A) each lane holds.
    pub fn items_per_lane(&self) -> usize {
        self.k * self.m * self.blocks / WAVE_SIZE
    }

    /// The items of A each lane holds: K_L, or half of them for a sparse A.
    pub fn a_items(&self) -> usize {
        if self.sparse {
            self.items_per_lane() / 2
        } else {
            self.items_per_lane()
        }
    }

    /// Registers of A.
    pub fn a_regs(&self) -> usize {
        (self.a_items() * self.input.bits() as usize).div_ceil(32)
    }

    /// Registers of B.
    pub fn b_regs(&self) -> usize {
        (self.items_per_lane() * self.b_input.bits() as usize).div_ceil(32)
    }

    /// Registers of C (and D).
    pub fn output_regs(&self) -> usize {
        self.m * self.n * self.blocks / WAVE_SIZE * self.input.result_bits() as usize / 32
    }

    /// Where D[b,i,j] (and C[b,i,j]) is: (item, lane).
    pub fn output_at(&self, b: usize, i: usize, j: usize) -> (usize, usize) {
        let h = if self.input == Input::F64 { 1 } else { 4 };
        let groups_per_reg = WAVE_SIZE / self.n;
        let blocks_per_reg = (WAVE_SIZE * h).div_ceil(self.m * self.n);
        let item = (b / blocks_per_reg) * (self.m * self.n * blocks_per_reg / WAVE_SIZE)
            + (i / (h * groups_per_reg)) * h
            + i % h;
        let lane = (b % blocks_per_reg) * self.n
            + ((i / h) % groups_per_reg) * blocks_per_reg * self.n
            + j;
        (item, lane)
    }

    /// The lane and item that hold A[b,i,k] of a dense A (or B[b,k,j] with `i` = j and M = N).
    #[cfg(test)]
    pub fn input_at(&self, b: usize, i: usize, k: usize) -> (usize, usize) {
        let kl = self.items_per_lane();
        (k % kl, i + self.m * (b + self.blocks * (k / kl)))
    }

    /// Bits of src2 per lane that one set of a sparse op's indices takes: two per stored
    /// element of A (the calculator's "compression" matrix: 8 bits for 16-bit inputs, 16 for
    /// 8-bit ones).
    pub fn index_bits(&self) -> u32 {
        2 * self.a_items() as u32
    }
}

/// The fields of a matrix op's encoding that change which values it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// CBSZ and ABID: the A block broadcast to groups of blocks; on a sparse op, which set of
    /// indices in src2 (ABID, when CBSZ is 0).
    pub cbsz: u32,
    pub abid: u32,
    /// BLGP: the B lane pattern ([`blgp_lane`]).
    pub blgp: u32,
    /// A, B and C negated: gfx940's f64 ops read BLGP's three bits so (the calculator,
    /// "Using the BLGP Modifier to Negate FP64 Input Matrices in the CDNA 3 Architecture").
    pub neg: [bool; 3],
}

impl Modifiers {
    /// The modifiers of an op of `shape` encoded in `words`, on `target`.
    pub fn of(words: &[u32], shape: &Shape, target: Target) -> Modifiers {
        let (w0, w1) = (
            words.first().copied().unwrap_or(0),
            words.get(1).copied().unwrap_or(0),
        );
        let blgp = w1 >> 29;
        let mods = Modifiers {
            cbsz: (w0 >> 8) & 7,
            abid: (w0 >> 11) & 0xf,
            blgp,
            neg: [false; 3],
        };
        if shape.input == Input::F64 && target.has_gfx940_insts() {
            Modifiers {
                blgp: 0,
                neg: [blgp & 1 != 0, blgp & 2 != 0, blgp & 4 != 0],
                ..mods
            }
        } else {
            mods
        }
    }

    /// The set of a sparse op's indices src2 holds for `shape`, as a shift: ABID picks one of
    /// the sets when CBSZ is 0; otherwise the first set is used (the calculator's README,
    /// "Printing Compression Index Information for a Sparse Matrix Instruction").
    pub fn index_shift(&self, shape: &Shape) -> u32 {
        let width = shape.index_bits().max(1);
        let sets = (32 / width).max(1);
        if self.cbsz == 0 {
            (self.abid % sets) * width
        } else {
            0
        }
    }
}

/// The lane of B whose value lane `l` takes under BLGP `blgp`: 0 as is; 1, 2 broadcast lanes
/// 0–31 or 32–63 to both halves; 3 rotates down by 16 (lane l takes lane l + 16); 4–7 broadcast
/// lanes 0–15, 16–31, 32–47 or 48–63 to each group of 16.
pub fn blgp_lane(l: usize, blgp: u32) -> usize {
    match blgp {
        1 => l % 32,
        2 => l % 32 + 32,
        3 => (l + 16) % 64,
        4..=7 => l % 16 + 16 * (blgp as usize - 4),
        _ => l,
    }
}

/// The block whose A values block `b` uses: with CBSZ, groups of 2^CBSZ blocks all take block
/// ABID of their group (ignored for one-block ops, and CBSZ 0).
pub fn a_block(b: usize, blocks: usize, cbsz: u32, abid: u32) -> usize {
    if cbsz == 0 || blocks == 1 {
        return b;
    }
    let group = (1usize << cbsz).min(blocks);
    (b / group) * group + (abid as usize % group)
}

/// The B item a sparse A's stored item `stored` multiplies, by the lane's index set `set`:
/// stored items 2c and 2c + 1 are the two kept elements of the group of four that starts at
/// B's item 4c, and bits [2s+1:2s] of the set say which of the four stored item s is.
pub fn sparse_b_item(stored: usize, set: u32) -> usize {
    4 * (stored / 2) + ((set >> (2 * stored)) & 3) as usize
}
