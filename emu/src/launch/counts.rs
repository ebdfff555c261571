//! What a launch counts, in either engine: wave-instructions, in total and by issue category.

use gcn_isa::class::Category;

/// Counts of executed wave-instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub wave_instructions: u64,
    /// By issue category, indexed by [`category_index`].
    pub by_category: [u64; CATEGORIES.len()],
}

impl Counts {
    /// Adds another thread's counts.
    pub fn add(&mut self, other: &Counts) {
        self.wave_instructions += other.wave_instructions;
        for (a, b) in self.by_category.iter_mut().zip(other.by_category) {
            *a += b;
        }
    }
}

/// The categories in the order of [`Counts::by_category`].
pub const CATEGORIES: [Category; 9] = [
    Category::Salu,
    Category::Control,
    Category::Branch,
    Category::Smem,
    Category::Valu,
    Category::Ds,
    Category::Vmem,
    Category::Flat,
    Category::Export,
];

/// The index of `c` in [`CATEGORIES`] (a match, so the per-instruction count is a table
/// lookup rather than a search).
#[inline]
pub const fn category_index(c: Category) -> usize {
    match c {
        Category::Salu => 0,
        Category::Control => 1,
        Category::Branch => 2,
        Category::Smem => 3,
        Category::Valu => 4,
        Category::Ds => 5,
        Category::Vmem => 6,
        Category::Flat => 7,
        Category::Export => 8,
    }
}

pub fn category_name(c: Category) -> &'static str {
    match c {
        Category::Salu => "salu",
        Category::Control => "control",
        Category::Branch => "branch",
        Category::Smem => "smem",
        Category::Valu => "valu",
        Category::Ds => "lds",
        Category::Vmem => "vmem",
        Category::Flat => "flat",
        Category::Export => "export",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_index_is_the_position_in_categories() {
        for (i, c) in CATEGORIES.iter().enumerate() {
            assert_eq!(category_index(*c), i);
        }
    }
}
