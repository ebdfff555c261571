//! GPU targets and the feature gates the decoder needs.

use std::fmt;

/// A gfx9 processor. Opcode availability and a few operand rules depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Gfx900,
    Gfx902,
    Gfx904,
    Gfx906,
    Gfx908,
    Gfx909,
    Gfx90c,
}

impl Target {
    pub const ALL: [Target; 7] = [
        Target::Gfx900,
        Target::Gfx902,
        Target::Gfx904,
        Target::Gfx906,
        Target::Gfx908,
        Target::Gfx909,
        Target::Gfx90c,
    ];

    /// Parses a processor name such as `gfx906` (a target-id suffix like `:xnack-` is ignored).
    pub fn from_name(name: &str) -> Option<Target> {
        let base = name.split(':').next()?;
        Target::ALL.into_iter().find(|t| t.name() == base)
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx900 => "gfx900",
            Target::Gfx902 => "gfx902",
            Target::Gfx904 => "gfx904",
            Target::Gfx906 => "gfx906",
            Target::Gfx908 => "gfx908",
            Target::Gfx909 => "gfx909",
            Target::Gfx90c => "gfx90c",
        }
    }

    /// gfx906 and gfx908 add the dot-product ops, v_fmac_f32 and the FMA mix ops.
    pub fn has_dot_insts(self) -> bool {
        matches!(self, Target::Gfx906 | Target::Gfx908)
    }

    /// gfx908 adds the matrix (MFMA) ops and the accumulation VGPRs.
    pub fn has_mai_insts(self) -> bool {
        self == Target::Gfx908
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
