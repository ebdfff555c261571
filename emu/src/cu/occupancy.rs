//! What a workgroup needs from a CU and how many fit, as gfx9 hardware allocates: per SIMD 256
//! VGPRs per lane in blocks of 4 (gfx90a: 512 VGPRs and AGPRs in one file, in blocks of 8; gfx908
//! gives each wave as many AGPRs as VGPRs from a file of its own, so they do not change the
//! count), 800 SGPRs in blocks of 16, 10 wave slots; per CU 64 KiB of
//! LDS in blocks of 512 bytes (AMDGPUUsage's LDS granularity for gfx9) and at most 16
//! workgroups that need a barrier (multi-wave ones); every wave of a workgroup on the same CU.

use crate::wave::RegFile;
use gcn_isa::Target;
use gcn_loader::KernelDescriptor;

pub const SIMDS: usize = 4;
pub const WAVES_PER_SIMD: u32 = 10;
/// VGPRs per lane of a gfx9 SIMD without a unified file (see [`Demand::vgprs_per_simd`]).
pub const VGPRS_PER_SIMD: u32 = 256;
pub const SGPRS_PER_SIMD: u32 = 800;
pub const LDS_PER_CU: u32 = 64 * 1024;
pub const LDS_GRANULE: u32 = 512;
pub const BARRIER_GROUPS_PER_CU: u32 = 16;

/// Registers and LDS one workgroup asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Demand {
    pub waves: u32,
    /// Per wave, as allocated (granulated).
    pub vgprs: u32,
    pub sgprs: u32,
    /// Per workgroup, rounded to the allocation granule.
    pub lds: u32,
    /// VGPRs per lane of one SIMD (the target's register file).
    pub vgprs_per_simd: u32,
    /// How each wave's register file is laid out (VGPRs, then AGPRs).
    pub file: RegFile,
}

impl Demand {
    pub fn new(desc: &KernelDescriptor, target: Target, waves: u32, lds_bytes: u32) -> Demand {
        let r = &desc.rsrc1;
        let features = target.features();
        // (granulated count + 1) × granule VGPRs (4, or 8 on gfx90a, where the count covers
        // the AGPRs too), (granulated + 1) × 16 SGPRs (the descriptor's count already includes
        // VCC, FLAT_SCRATCH and XNACK_MASK).
        let vgprs = (r.granulated_workitem_vgpr_count as u32 + 1) * features.vgpr_granule as u32;
        Demand {
            waves,
            vgprs,
            sgprs: (r.granulated_wavefront_sgpr_count as u32 + 1) * 16,
            lds: lds_bytes.next_multiple_of(LDS_GRANULE),
            vgprs_per_simd: features.vgprs_per_wave as u32,
            file: RegFile::new(
                target,
                vgprs as usize,
                desc.accum_offset.map(|a| a as usize),
            ),
        }
    }
}

/// What limits how many waves of this kernel a SIMD holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    WaveSlots,
    Vgprs,
    Sgprs,
    Lds,
    Workgroups,
}

impl Limiter {
    pub fn name(self) -> &'static str {
        match self {
            Limiter::WaveSlots => "wave slots",
            Limiter::Vgprs => "VGPRs",
            Limiter::Sgprs => "SGPRs",
            Limiter::Lds => "LDS",
            Limiter::Workgroups => "workgroups per CU",
        }
    }
}

/// The theoretical occupancy: waves per SIMD the resources allow, and what binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Occupancy {
    /// Waves a CU holds at once (the per-SIMD figure is this over 4, rounded up).
    pub waves_per_cu: u32,
    pub waves_per_simd: u32,
    pub workgroups_per_cu: u32,
    pub limiter: Limiter,
}

/// Occupancy of a kernel with `d`, or `None` if one workgroup cannot fit on an empty CU.
pub fn occupancy(d: &Demand) -> Option<Occupancy> {
    if d.waves == 0 || d.vgprs > d.vgprs_per_simd || d.sgprs > SGPRS_PER_SIMD || d.lds > LDS_PER_CU
    {
        return None;
    }
    let per_simd = [
        (WAVES_PER_SIMD, Limiter::WaveSlots),
        (d.vgprs_per_simd / d.vgprs, Limiter::Vgprs),
        (SGPRS_PER_SIMD / d.sgprs, Limiter::Sgprs),
    ];
    let (simd_waves, simd_limiter) = per_simd.into_iter().min_by_key(|p| p.0).unwrap();
    // A workgroup's waves spread over the SIMDs, so the CU holds 4 × the per-SIMD count.
    let by_waves = SIMDS as u32 * simd_waves / d.waves;
    let by_lds = LDS_PER_CU.checked_div(d.lds).unwrap_or(u32::MAX);
    let by_barriers = if d.waves > 1 {
        BARRIER_GROUPS_PER_CU
    } else {
        u32::MAX
    };
    let (groups, limiter) = [
        (by_waves, simd_limiter),
        (by_lds, Limiter::Lds),
        (by_barriers, Limiter::Workgroups),
    ]
    .into_iter()
    .min_by_key(|p| p.0)
    .unwrap();
    if groups == 0 {
        return None;
    }
    Some(Occupancy {
        waves_per_cu: groups * d.waves,
        waves_per_simd: (groups * d.waves).div_ceil(SIMDS as u32).min(simd_waves),
        workgroups_per_cu: groups,
        limiter,
    })
}

/// Free resources of one CU.
#[derive(Clone, Debug)]
pub struct CuRoom {
    pub waves: [u32; SIMDS],
    pub vgprs: [u32; SIMDS],
    pub sgprs: [u32; SIMDS],
    pub lds: u32,
    pub barrier_groups: u32,
}

impl Default for CuRoom {
    fn default() -> Self {
        CuRoom::with_vgprs(VGPRS_PER_SIMD)
    }
}

impl CuRoom {
    /// An empty CU whose SIMDs have `vgprs_per_simd` VGPRs per lane.
    pub fn with_vgprs(vgprs_per_simd: u32) -> CuRoom {
        CuRoom {
            waves: [WAVES_PER_SIMD; SIMDS],
            vgprs: [vgprs_per_simd; SIMDS],
            sgprs: [SGPRS_PER_SIMD; SIMDS],
            lds: LDS_PER_CU,
            barrier_groups: BARRIER_GROUPS_PER_CU,
        }
    }
}

/// The SIMDs of a workgroup's waves, in wave order ([`CuRoom::place`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    simds: [u8; MAX_GROUP_WAVES],
    n: u8,
}

/// Waves of the largest workgroup (1024 work-items, the launch's limit).
const MAX_GROUP_WAVES: usize = 16;

impl Placement {
    /// Adds a wave on `simd`; `None` past [`MAX_GROUP_WAVES`].
    fn push(&mut self, simd: u8) -> Option<()> {
        *self.simds.get_mut(self.n as usize)? = simd;
        self.n += 1;
        Some(())
    }
}

impl std::ops::Deref for Placement {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.simds[..self.n as usize]
    }
}

impl CuRoom {
    /// SIMDs for the waves of a workgroup with demand `d`, spreading them round-robin from
    /// `start` over the SIMDs that have room; `None` if it does not fit now. (Asked at every
    /// window a CU may run ahead, so it allocates nothing.)
    pub fn place(&self, d: &Demand, start: usize) -> Option<Placement> {
        if d.lds > self.lds || (d.waves > 1 && self.barrier_groups == 0) {
            return None;
        }
        let mut room = self.clone();
        let mut simds = Placement::default();
        let mut s = start % SIMDS;
        for _ in 0..d.waves {
            let mut found = None;
            for k in 0..SIMDS {
                let i = (s + k) % SIMDS;
                if room.waves[i] > 0 && room.vgprs[i] >= d.vgprs && room.sgprs[i] >= d.sgprs {
                    found = Some(i);
                    break;
                }
            }
            let i = found?;
            room.waves[i] -= 1;
            room.vgprs[i] -= d.vgprs;
            room.sgprs[i] -= d.sgprs;
            simds.push(i as u8)?;
            s = i + 1;
        }
        Some(simds)
    }

    pub fn take(&mut self, d: &Demand, simds: &[u8]) {
        for &s in simds {
            let s = s as usize;
            self.waves[s] -= 1;
            self.vgprs[s] -= d.vgprs;
            self.sgprs[s] -= d.sgprs;
        }
        self.lds -= d.lds;
        if d.waves > 1 {
            self.barrier_groups -= 1;
        }
    }

    /// Returns one wave's registers (when it ends).
    pub fn release_wave(&mut self, d: &Demand, simd: u8) {
        let s = simd as usize;
        self.waves[s] += 1;
        self.vgprs[s] += d.vgprs;
        self.sgprs[s] += d.sgprs;
    }

    /// Returns the workgroup's LDS and barrier (when its last wave ends).
    pub fn release_group(&mut self, d: &Demand) {
        self.lds += d.lds;
        if d.waves > 1 {
            self.barrier_groups += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demand(waves: u32, vgprs: u32, sgprs: u32, lds: u32) -> Demand {
        Demand {
            waves,
            vgprs,
            sgprs,
            lds,
            vgprs_per_simd: VGPRS_PER_SIMD,
            file: RegFile::vgprs_only(vgprs as usize),
        }
    }

    #[test]
    fn limits() {
        // 32 VGPRs: 256 / 32 = 8 waves per SIMD.
        let o = occupancy(&demand(4, 32, 16, 0)).unwrap();
        assert_eq!((o.waves_per_simd, o.limiter), (8, Limiter::Vgprs));
        // 24 VGPRs: 10 (wave slots bind: 256 / 24 = 10).
        let o = occupancy(&demand(1, 24, 32, 0)).unwrap();
        assert_eq!((o.waves_per_simd, o.limiter), (10, Limiter::WaveSlots));
        // 128 VGPRs: 2 per SIMD.
        assert_eq!(occupancy(&demand(4, 128, 16, 0)).unwrap().waves_per_simd, 2);
        // 96 SGPRs: 800 / 96 = 8.
        let o = occupancy(&demand(1, 8, 96, 0)).unwrap();
        assert_eq!((o.waves_per_simd, o.limiter), (8, Limiter::Sgprs));
        // 32 KiB of LDS per group: 2 groups per CU of 4 waves = 2 waves per SIMD.
        let o = occupancy(&demand(4, 8, 16, 32 * 1024)).unwrap();
        assert_eq!(
            (o.workgroups_per_cu, o.waves_per_simd, o.limiter),
            (2, 2, Limiter::Lds)
        );
        // 1-wave groups: 40 per CU; 2-wave groups hit the 16 barrier limit.
        assert_eq!(
            occupancy(&demand(1, 8, 16, 0)).unwrap().workgroups_per_cu,
            40
        );
        let o = occupancy(&demand(2, 8, 16, 0)).unwrap();
        assert_eq!((o.workgroups_per_cu, o.limiter), (16, Limiter::Workgroups));
        assert!(occupancy(&demand(1, 8, 16, 65 * 1024)).is_none());
    }

    #[test]
    fn placement_spreads_and_fills() {
        let d = demand(16, 64, 16, 0);
        let mut room = CuRoom::default();
        let simds = room.place(&d, 0).unwrap();
        assert_eq!(simds.iter().filter(|&&s| s == 0).count(), 4);
        room.take(&d, &simds);
        // 64 VGPRs: 4 waves per SIMD, all used.
        assert!(room.place(&demand(1, 64, 16, 0), 0).is_none());
        room.release_wave(&d, 2);
        assert_eq!(
            room.place(&demand(1, 64, 16, 0), 0).as_deref(),
            Some(&[2u8][..])
        );
    }
}
