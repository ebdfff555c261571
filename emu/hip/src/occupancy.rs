//! Occupancy as HIP's runtime (hipamd 5.2, `ihipOccupancyMaxActiveBlocksPerMultiprocessor`)
//! reports it to programs, which is also the limit it holds cooperative launches to: per SIMD at
//! most 8 waves (the SPI's 32 per CU on gfx9), fewer when the kernel's VGPRs (a 256-entry file in
//! blocks of 4; 512 in blocks of 8 on the unified files of gfx90a and gfx940) or SGPRs (800 in
//! blocks of 16) run out; per CU the 4 SIMDs' waves and the 64 KiB of LDS. The counts are the
//! code object metadata's `.vgpr_count` and `.sgpr_count` (as ROCclr reads them), or the
//! descriptor's granulated counts for a code object without metadata.
//!
//! The compute-unit model ([`gcnemu::cu::occupancy`]) places workgroups by the hardware's own
//! limits (10 wave slots per SIMD, the barrier limit of 16 multi-wave workgroups per CU), which
//! hold at least as many: a grid HIP accepts as cooperative is resident at once there too.

use gcn_isa::Target;

/// Waves per SIMD hipamd counts on gfx9.
const WAVES_PER_SIMD: u32 = 8;
const SIMDS: u32 = 4;
const WAVE: u32 = 64;
const SGPRS_PER_SIMD: u32 = 800;
pub(crate) const LDS_PER_CU: u64 = 64 * 1024;
/// The largest workgroup a device takes.
pub(crate) const MAX_BLOCK: u32 = 1024;

/// What occupancy depends on in a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KernelUse {
    pub(crate) vgprs: u32,
    pub(crate) sgprs: u32,
    /// Static LDS per workgroup.
    pub(crate) lds: u64,
}

impl KernelUse {
    pub(crate) fn of(k: &gcn_loader::Kernel, target: Target) -> KernelUse {
        let d = gcnemu::cu::occupancy::Demand::new(&k.descriptor, target, 1, 0);
        let (vgprs, sgprs) = match &k.meta {
            Some(m) if m.vgpr_count > 0 || m.sgpr_count > 0 => {
                (m.vgpr_count as u32, m.sgpr_count as u32)
            }
            _ => (d.vgprs, d.sgprs),
        };
        KernelUse {
            vgprs,
            sgprs,
            lds: k.descriptor.group_segment_fixed_size as u64,
        }
    }
}

/// hipamd's three answers for one block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Answer {
    /// Workgroups of the block size one CU holds.
    pub(crate) blocks_per_cu: u32,
    /// The block size (work-items) up to the one asked for that fills a CU best.
    pub(crate) best_block: u32,
    /// Workgroups of `best_block` the whole device holds.
    pub(crate) blocks_per_grid: u32,
}

/// The occupancy of `k` with `block` work-items and `dynamic_lds` bytes of dynamic LDS per
/// workgroup on `cus` CUs; `block` must be 1 to [`MAX_BLOCK`].
pub(crate) fn answer(
    k: KernelUse,
    target: Target,
    block: u32,
    dynamic_lds: u64,
    cus: u32,
) -> Answer {
    let f = target.features();
    let (file, granule) = (f.vgprs_per_wave as u32, f.vgpr_granule as u32);
    // hipamd looks at the registers only when the kernel reports SGPRs.
    let mut gpr_waves = WAVES_PER_SIMD;
    if k.sgprs > 0 {
        let vgpr_waves = file / k.vgprs.max(1).next_multiple_of(granule);
        let sgpr_waves = SGPRS_PER_SIMD / k.sgprs.next_multiple_of(16);
        gpr_waves = vgpr_waves.min(sgpr_waves);
    }
    let alu_threads = SIMDS * WAVES_PER_SIMD.min(gpr_waves) * WAVE;
    let lds = k.lds.saturating_add(dynamic_lds);
    let lds_groups = match lds {
        0 => u32::MAX,
        n => (LDS_PER_CU / n) as u32,
    };
    let rounded = block.next_multiple_of(WAVE);
    let best_block = alu_threads.min(rounded);
    let blocks_per_grid = match best_block {
        0 => 0,
        b => (alu_threads / b).min(lds_groups).saturating_mul(cus),
    };
    Answer {
        blocks_per_cu: (alu_threads / rounded).min(lds_groups),
        best_block,
        blocks_per_grid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> KernelUse {
        KernelUse {
            vgprs: 8,
            sgprs: 16,
            lds: 0,
        }
    }

    #[test]
    fn wave_slots_bind_a_small_kernel_at_eight_per_simd() {
        // 32 waves of 64 per CU.
        let a = answer(small(), Target::Gfx900, 256, 0, 64);
        assert_eq!(a.blocks_per_cu, 8);
        assert_eq!(a.best_block, 256);
        assert_eq!(a.blocks_per_grid, 8 * 64);
        // 65 work-items take two waves.
        assert_eq!(answer(small(), Target::Gfx900, 65, 0, 64).blocks_per_cu, 16);
        // A block larger than the CU's waves is one per CU at the CU's size.
        let a = answer(small(), Target::Gfx900, 1024, 0, 4);
        assert_eq!(
            (a.blocks_per_cu, a.best_block, a.blocks_per_grid),
            (2, 1024, 8)
        );
    }

    #[test]
    fn registers_and_lds_bind_as_hipamd_counts_them() {
        // 100 VGPRs → 104 → 2 waves per SIMD of a 256 file.
        let k = KernelUse {
            vgprs: 100,
            ..small()
        };
        assert_eq!(answer(k, Target::Gfx900, 64, 0, 1).blocks_per_cu, 8);
        // gfx90a's unified file: 104 → 512/104 = 4 per SIMD.
        assert_eq!(answer(k, Target::Gfx90a, 64, 0, 1).blocks_per_cu, 16);
        // 102 SGPRs → 112 → 7 per SIMD.
        let k = KernelUse {
            sgprs: 102,
            ..small()
        };
        assert_eq!(answer(k, Target::Gfx900, 64, 0, 1).blocks_per_cu, 28);
        // 20 KiB of static and 4 KiB of dynamic LDS: 2 per CU (no allocation granule).
        let k = KernelUse {
            lds: 20 * 1024,
            ..small()
        };
        assert_eq!(answer(k, Target::Gfx900, 64, 4096, 1).blocks_per_cu, 2);
        // More than a CU's LDS: none.
        let a = answer(small(), Target::Gfx900, 64, 65537, 60);
        assert_eq!((a.blocks_per_cu, a.blocks_per_grid), (0, 0));
    }
}
