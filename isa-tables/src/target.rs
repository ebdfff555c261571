//! GPU targets as rows of features.
//!
//! What differs between gfx9 members is a named feature (LLVM's `AMDGPU.td` names the same ones:
//! `FeatureDot*Insts`, `FeatureMAIInsts`, `FeatureGFX90AInsts`, `FeaturePackedFP32Ops`, ...), and
//! code asks for the feature, never for a list of targets. A new gfx9 target is one row of
//! [`Target::features`] plus its new ops in the op table.

use std::fmt;

/// A gfx9 processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Gfx900,
    Gfx902,
    Gfx904,
    Gfx906,
    Gfx908,
    Gfx909,
    Gfx90a,
    Gfx90c,
    Gfx940,
    Gfx942,
}

/// Which column of the op table a target decodes with: the targets LLVM's disassembler was
/// asked about when the table was made (`isa-tables/data/gen_ops.py`). The gfx90x APUs decode as
/// gfx900 does, and gfx942 as gfx940 (LLVM gives them the same instructions; they differ in
/// whether stores must set sc0 sc1, a code generation matter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpSet {
    Gfx900 = 0,
    Gfx906 = 1,
    Gfx908 = 2,
    Gfx90a = 3,
    Gfx940 = 4,
}

impl OpSet {
    pub const COUNT: usize = 5;
    pub const ALL: [OpSet; OpSet::COUNT] = [
        OpSet::Gfx900,
        OpSet::Gfx906,
        OpSet::Gfx908,
        OpSet::Gfx90a,
        OpSet::Gfx940,
    ];

    /// The bit of an op table row's `targets` mask.
    pub fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// How the accumulation registers (AGPRs) of the matrix cores are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agprs {
    /// No AGPRs.
    None,
    /// gfx908: a file of 256 AGPRs per lane beside the 256 VGPRs.
    Separate,
    /// gfx90a: one file of 512 registers per lane; the kernel's VGPRs come first and `a[n]` is
    /// `v[accum_offset + n]` (`accum_offset` from COMPUTE_PGM_RSRC3).
    Unified,
}

/// What a target has, by the names LLVM gives the features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Features {
    pub op_set: OpSet,
    /// `FeatureDot1Insts`..: the dot-product ops, `v_fmac_f32`, the FMA mix ops (gfx906+).
    pub dot_insts: bool,
    /// `FeatureMAIInsts`: the matrix (MFMA) ops and `v_accvgpr_*`.
    pub mai_insts: bool,
    pub agprs: Agprs,
    /// `FeatureGFX90AInsts`: MFMA C/D in VGPRs, 64-bit register tuples even-aligned, FP64 atomics,
    /// `v_fmac_f64`, 64-bit DPP.
    pub gfx90a_insts: bool,
    /// `FeatureGFX940Insts`: the cache-policy bits are `sc0`, `sc1` and `nt` (where gfx90a has
    /// glc, scc and slc), `buffer_inv`, `v_mov_b64`, `v_lshl_add_u64`, the renamed matrix ops,
    /// the sparse `v_smfmac_*` ops, and the flat-scratch forms with both an SGPR and a VGPR.
    pub gfx940_insts: bool,
    /// `FeatureFP8Insts` and `FeatureFP8ConversionInsts`: the FP8/BF8 matrix ops and the
    /// `v_cvt_*_fp8`/`_bf8` conversions (MI300's FNUZ formats).
    pub fp8_insts: bool,
    /// `FeatureXF32Insts`: the `xf32` matrix ops.
    pub xf32_insts: bool,
    /// `FeatureArchitectedFlatScratch`: the wave's scratch base is set up by the hardware
    /// (FLAT_SCRATCH is not a kernel argument and no private segment buffer is passed).
    pub architected_flat_scratch: bool,
    /// `FeatureKernargPreload`: kernel arguments can arrive preloaded in user SGPRs.
    pub kernarg_preload: bool,
    /// `FeaturePackedFP32Ops`: `v_pk_fma_f32`, `v_pk_mul_f32`, `v_pk_add_f32`, `v_pk_mov_b32`.
    pub packed_fp32: bool,
    /// `FeaturePackedTID`: the work-item ids arrive packed in v0 (x [9:0], y [19:10], z [29:20]).
    pub packed_tid: bool,
    /// Architected VGPRs per lane a wave can be given (AGPRs of a unified file included).
    pub vgprs_per_wave: u16,
    /// VGPRs are allocated in blocks of this many (LLVM's `getVGPRAllocGranule`).
    pub vgpr_granule: u16,
    /// Cycles a wave's f64 FMA keeps its SIMD busy (4 is full rate: 64 lanes over 16 ALUs).
    pub f64_cycles: u16,
}

impl Target {
    pub const ALL: [Target; 10] = [
        Target::Gfx900,
        Target::Gfx902,
        Target::Gfx904,
        Target::Gfx906,
        Target::Gfx908,
        Target::Gfx909,
        Target::Gfx90a,
        Target::Gfx90c,
        Target::Gfx940,
        Target::Gfx942,
    ];

    /// The features of each target (AMDGPU.td's `FeatureISAVersion9_0_*` and `9_4_*`; rates from
    /// the boards' published peak FP64 against FP32: Vega 10 1/16, MI50 1/2, MI100 1/2, MI200
    /// and MI300 1/1).
    pub const fn features(self) -> Features {
        const VEGA: Features = Features {
            op_set: OpSet::Gfx900,
            dot_insts: false,
            mai_insts: false,
            agprs: Agprs::None,
            gfx90a_insts: false,
            gfx940_insts: false,
            fp8_insts: false,
            xf32_insts: false,
            architected_flat_scratch: false,
            kernarg_preload: false,
            packed_fp32: false,
            packed_tid: false,
            vgprs_per_wave: 256,
            vgpr_granule: 4,
            f64_cycles: 64,
        };
        const GFX90A: Features = Features {
            op_set: OpSet::Gfx90a,
            dot_insts: true,
            mai_insts: true,
            agprs: Agprs::Unified,
            gfx90a_insts: true,
            packed_fp32: true,
            packed_tid: true,
            kernarg_preload: true,
            vgprs_per_wave: 512,
            vgpr_granule: 8,
            f64_cycles: 4,
            ..VEGA
        };
        match self {
            Target::Gfx900 | Target::Gfx902 | Target::Gfx904 | Target::Gfx909 | Target::Gfx90c => {
                VEGA
            }
            Target::Gfx906 => Features {
                op_set: OpSet::Gfx906,
                dot_insts: true,
                f64_cycles: 8,
                ..VEGA
            },
            Target::Gfx908 => Features {
                op_set: OpSet::Gfx908,
                dot_insts: true,
                mai_insts: true,
                agprs: Agprs::Separate,
                f64_cycles: 8,
                ..VEGA
            },
            Target::Gfx90a => GFX90A,
            // `FeatureISAVersion9_4_Common` plus FP8 and XF32 (both MI300 targets).
            Target::Gfx940 | Target::Gfx942 => Features {
                op_set: OpSet::Gfx940,
                gfx940_insts: true,
                fp8_insts: true,
                xf32_insts: true,
                architected_flat_scratch: true,
                ..GFX90A
            },
        }
    }

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
            Target::Gfx90a => "gfx90a",
            Target::Gfx90c => "gfx90c",
            Target::Gfx940 => "gfx940",
            Target::Gfx942 => "gfx942",
        }
    }

    pub fn op_set(self) -> OpSet {
        self.features().op_set
    }

    /// gfx906 and later add the dot-product ops, v_fmac_f32 and the FMA mix ops.
    pub fn has_dot_insts(self) -> bool {
        self.features().dot_insts
    }

    /// gfx908 and later add the matrix (MFMA) ops and the accumulation VGPRs.
    pub fn has_mai_insts(self) -> bool {
        self.features().mai_insts
    }

    /// gfx90a's additions (see [`Features::gfx90a_insts`]).
    pub fn has_gfx90a_insts(self) -> bool {
        self.features().gfx90a_insts
    }

    /// gfx940's additions (see [`Features::gfx940_insts`]).
    pub fn has_gfx940_insts(self) -> bool {
        self.features().gfx940_insts
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MI300's two targets decode as one op set with gfx90a's additions and gfx940's; no
    /// earlier target has gfx940's.
    #[test]
    fn mi300_targets_extend_gfx90a() {
        for name in ["gfx940", "gfx942:sramecc+:xnack-"] {
            let t = Target::from_name(name).unwrap();
            let f = t.features();
            assert_eq!(f.op_set, OpSet::Gfx940, "{name}");
            assert!(f.gfx90a_insts && f.gfx940_insts && f.fp8_insts && f.xf32_insts);
            assert_eq!(f.agprs, Agprs::Unified);
            assert!(f.architected_flat_scratch && f.packed_tid && f.packed_fp32);
        }
        let before = Target::ALL.iter().filter(|t| !t.has_gfx940_insts());
        assert_eq!(before.clone().count(), 8);
        assert!(before.into_iter().all(|t| t.op_set() != OpSet::Gfx940));
    }
}
