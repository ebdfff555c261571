//! Kernel descriptors: the 64-byte `NAME.kd` object of code object v3 and later, and the same
//! information taken from code object v2's 256-byte `amd_kernel_code_t` (AMDGPUUsage, "Kernel
//! Descriptor"; field names are the documented ones in lower case).

use crate::target::TargetId;
use gcn_isa::Agprs;
use serde::Serialize;

/// Size of a v3+ kernel descriptor.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;
/// Size of a v2 `amd_kernel_code_t`, which sits in `.text` in front of the kernel's code.
pub const AMD_KERNEL_CODE_T_SIZE: usize = 256;

/// `bits(value, lo, n)`: the `n`-bit field of `value` starting at bit `lo`.
fn bits(value: u32, lo: u32, n: u32) -> u32 {
    (value >> lo) & ((1u32 << n) - 1)
}

fn flag(value: u32, bit: u32) -> bool {
    bits(value, bit, 1) != 0
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | u64::from(u32_at(b, at + 4)) << 32
}

/// COMPUTE_PGM_RSRC1, decoded (GFX6–GFX9 meanings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PgmRsrc1 {
    /// Bits 5:0: vector registers per work-item in granules, minus one (see
    /// [`KernelDescriptor::vgprs_allocated`]).
    pub granulated_workitem_vgpr_count: u8,
    /// Bits 9:6: scalar registers per wavefront in granules, minus one.
    pub granulated_wavefront_sgpr_count: u8,
    /// Bits 11:10: wave priority.
    pub priority: u8,
    /// Bits 13:12: MODE.FP_ROUND for f32 (0 = round to nearest even).
    pub float_round_mode_32: u8,
    /// Bits 15:14: MODE.FP_ROUND for f16 and f64.
    pub float_round_mode_16_64: u8,
    /// Bits 17:16: MODE.FP_DENORM for f32 (0 = flush source and destination, 3 = none flushed).
    pub float_denorm_mode_32: u8,
    /// Bits 19:18: MODE.FP_DENORM for f16 and f64.
    pub float_denorm_mode_16_64: u8,
    /// Bit 20: start waves in privileged mode.
    #[serde(rename = "priv")]
    pub priv_: bool,
    /// Bit 21: MODE.DX10_CLAMP.
    pub enable_dx10_clamp: bool,
    /// Bit 22: MODE.DEBUG.
    pub debug_mode: bool,
    /// Bit 23: MODE.IEEE.
    pub enable_ieee_mode: bool,
    /// Bit 24: bulky.
    pub bulky: bool,
    /// Bit 25: cdbg_user.
    pub cdbg_user: bool,
    /// Bit 26: MODE.FP16_OVFL (GFX9+).
    pub fp16_ovfl: bool,
}

impl PgmRsrc1 {
    pub fn decode(raw: u32) -> PgmRsrc1 {
        PgmRsrc1 {
            granulated_workitem_vgpr_count: bits(raw, 0, 6) as u8,
            granulated_wavefront_sgpr_count: bits(raw, 6, 4) as u8,
            priority: bits(raw, 10, 2) as u8,
            float_round_mode_32: bits(raw, 12, 2) as u8,
            float_round_mode_16_64: bits(raw, 14, 2) as u8,
            float_denorm_mode_32: bits(raw, 16, 2) as u8,
            float_denorm_mode_16_64: bits(raw, 18, 2) as u8,
            priv_: flag(raw, 20),
            enable_dx10_clamp: flag(raw, 21),
            debug_mode: flag(raw, 22),
            enable_ieee_mode: flag(raw, 23),
            bulky: flag(raw, 24),
            cdbg_user: flag(raw, 25),
            fp16_ovfl: flag(raw, 26),
        }
    }
}

/// COMPUTE_PGM_RSRC2, decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PgmRsrc2 {
    /// Bit 0: SCRATCH_EN: the wave gets a private segment (and its wave byte offset SGPR).
    pub enable_private_segment: bool,
    /// Bits 5:1: USER_SGPR: how many user SGPRs the CP loads.
    pub user_sgpr_count: u8,
    /// Bit 6: TRAP_PRESENT.
    pub enable_trap_handler: bool,
    /// Bit 7: TGID_X_EN: an SGPR with the workgroup id x.
    pub enable_sgpr_workgroup_id_x: bool,
    /// Bit 8: TGID_Y_EN.
    pub enable_sgpr_workgroup_id_y: bool,
    /// Bit 9: TGID_Z_EN.
    pub enable_sgpr_workgroup_id_z: bool,
    /// Bit 10: TG_SIZE_EN: an SGPR with workgroup info.
    pub enable_sgpr_workgroup_info: bool,
    /// Bits 12:11: TIDIG_COMP_CNT: 0 = only v0 (id x), 1 = v0..v1, 2 = v0..v2.
    pub enable_vgpr_workitem_id: u8,
    /// Bit 13: EXCP_EN_MSB address watch.
    pub enable_exception_address_watch: bool,
    /// Bit 14: memory violation exception.
    pub enable_exception_memory: bool,
    /// Bits 23:15: LDS_SIZE in granules; the CP sets it from the dispatch, code objects leave 0.
    pub granulated_lds_size: u16,
    /// Bits 30:24: EXCP_EN: IEEE invalid, denormal source, divide by zero, overflow, underflow,
    /// inexact, integer divide by zero — bit 0 of this field is bit 24 of the register.
    pub enable_exception: u8,
}

impl PgmRsrc2 {
    pub fn decode(raw: u32) -> PgmRsrc2 {
        PgmRsrc2 {
            enable_private_segment: flag(raw, 0),
            user_sgpr_count: bits(raw, 1, 5) as u8,
            enable_trap_handler: flag(raw, 6),
            enable_sgpr_workgroup_id_x: flag(raw, 7),
            enable_sgpr_workgroup_id_y: flag(raw, 8),
            enable_sgpr_workgroup_id_z: flag(raw, 9),
            enable_sgpr_workgroup_info: flag(raw, 10),
            enable_vgpr_workitem_id: bits(raw, 11, 2) as u8,
            enable_exception_address_watch: flag(raw, 13),
            enable_exception_memory: flag(raw, 14),
            granulated_lds_size: bits(raw, 15, 9) as u16,
            enable_exception: bits(raw, 24, 7) as u8,
        }
    }
}

/// COMPUTE_PGM_RSRC3 in its GFX90A layout (`COMPUTE_PGM_RSRC3_GFX90A` in LLVM's
/// `AMDHSAKernelDescriptor.h`). Before gfx90a the register is reserved and code objects leave it
/// zero, so both fields read 0 there; [`KernelDescriptor::accum_offset`] and
/// [`KernelDescriptor::tg_split`] say whether they apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PgmRsrc3 {
    /// Bits 5:0: ACCUM_OFFSET: the first AccVGPR of the unified register file is
    /// v[(ACCUM_OFFSET + 1) * 4].
    pub accum_offset: u8,
    /// Bit 16: TG_SPLIT: the waves of a workgroup may be spread over several CUs (then LDS is
    /// not shared between them, and the compiler keeps memory coherent across CUs).
    pub tg_split: bool,
}

impl PgmRsrc3 {
    pub fn decode(raw: u32) -> PgmRsrc3 {
        PgmRsrc3 {
            accum_offset: bits(raw, 0, 6) as u8,
            tg_split: flag(raw, 16),
        }
    }
}

/// The kernel code properties: which user SGPRs the CP initialises (in this order in the
/// SGPR file), and wave size and stack use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelCodeProperties {
    /// Bit 0: four SGPRs: the private segment buffer descriptor (V#).
    pub enable_sgpr_private_segment_buffer: bool,
    /// Bit 1: two SGPRs: address of the dispatch packet.
    pub enable_sgpr_dispatch_ptr: bool,
    /// Bit 2: two SGPRs: address of the queue.
    pub enable_sgpr_queue_ptr: bool,
    /// Bit 3: two SGPRs: address of the kernarg segment.
    pub enable_sgpr_kernarg_segment_ptr: bool,
    /// Bit 4: two SGPRs: the 64-bit dispatch id.
    pub enable_sgpr_dispatch_id: bool,
    /// Bit 5: two SGPRs: flat scratch init.
    pub enable_sgpr_flat_scratch_init: bool,
    /// Bit 6: one SGPR: the work-item private segment size.
    pub enable_sgpr_private_segment_size: bool,
    /// Bit 10: wave32 (GFX10+).
    pub enable_wavefront_size32: bool,
    /// Bit 11: the kernel uses a dynamically sized stack.
    pub uses_dynamic_stack: bool,
}

impl KernelCodeProperties {
    pub fn decode(raw: u16) -> KernelCodeProperties {
        let raw = u32::from(raw);
        KernelCodeProperties {
            enable_sgpr_private_segment_buffer: flag(raw, 0),
            enable_sgpr_dispatch_ptr: flag(raw, 1),
            enable_sgpr_queue_ptr: flag(raw, 2),
            enable_sgpr_kernarg_segment_ptr: flag(raw, 3),
            enable_sgpr_dispatch_id: flag(raw, 4),
            enable_sgpr_flat_scratch_init: flag(raw, 5),
            enable_sgpr_private_segment_size: flag(raw, 6),
            enable_wavefront_size32: flag(raw, 10),
            uses_dynamic_stack: flag(raw, 11),
        }
    }

    /// User SGPRs these enables ask for (4+2+2+2+2+2+1 at most).
    pub fn user_sgprs(&self) -> u32 {
        [
            (self.enable_sgpr_private_segment_buffer, 4),
            (self.enable_sgpr_dispatch_ptr, 2),
            (self.enable_sgpr_queue_ptr, 2),
            (self.enable_sgpr_kernarg_segment_ptr, 2),
            (self.enable_sgpr_dispatch_id, 2),
            (self.enable_sgpr_flat_scratch_init, 2),
            (self.enable_sgpr_private_segment_size, 1),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| n)
        .sum()
    }
}

/// A kernel descriptor, every field decoded. For code object v2 the same fields are filled
/// from `amd_kernel_code_t` (see [`KernelDescriptor::from_amd_kernel_code_t`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelDescriptor {
    /// @0: LDS bytes per workgroup, not counting dynamic LDS.
    pub group_segment_fixed_size: u32,
    /// @4: scratch bytes per work-item, not counting a dynamic stack.
    pub private_segment_fixed_size: u32,
    /// @8: bytes of the kernarg segment, hidden arguments included.
    pub kernarg_size: u32,
    /// @16: entry address minus descriptor address (v2: from the `amd_kernel_code_t` start).
    pub kernel_code_entry_byte_offset: i64,
    /// @44, raw.
    pub compute_pgm_rsrc3: u32,
    /// @48, raw.
    pub compute_pgm_rsrc1: u32,
    /// @52, raw.
    pub compute_pgm_rsrc2: u32,
    /// @56, raw.
    pub kernel_code_properties_raw: u16,
    /// @58, raw: KERNARG_PRELOAD_SPEC_LENGTH [6:0] (dwords preloaded into user SGPRs) and
    /// KERNARG_PRELOAD_SPEC_OFFSET [15:7] (dwords into the kernarg segment), gfx940 on.
    pub kernarg_preload: u16,
    pub rsrc1: PgmRsrc1,
    pub rsrc2: PgmRsrc2,
    pub rsrc3: PgmRsrc3,
    pub kernel_code_properties: KernelCodeProperties,
    /// The first AccVGPR, on targets with a unified register file (gfx90a): `a[n]` is
    /// `v[accum_offset + n]`, and v0 up to it are the ArchVGPRs. `None` elsewhere: gfx908 has a
    /// separate AccVGPR file and no offset. Set by the code object, which knows the target.
    pub accum_offset: Option<u32>,
    /// COMPUTE_PGM_RSRC3.TG_SPLIT on targets that have it (gfx90a); `None` elsewhere.
    pub tg_split: Option<bool>,
    /// v2 only: `amd_kernel_code_t.wavefront_size` as a power of two (6 = wave64); v3+ say wave32
    /// through kernel code properties.
    pub wavefront_size_log2: Option<u8>,
    /// v2 only: `workitem_vgpr_count` and `wavefront_sgpr_count` as the compiler wrote them.
    pub v2_register_counts: Option<(u16, u16)>,
}

impl KernelDescriptor {
    /// Decodes a 64-byte descriptor.
    pub fn from_bytes(b: &[u8; KERNEL_DESCRIPTOR_SIZE]) -> KernelDescriptor {
        let rsrc1 = u32_at(b, 48);
        let rsrc2 = u32_at(b, 52);
        let rsrc3 = u32_at(b, 44);
        let properties = u16_at(b, 56);
        KernelDescriptor {
            group_segment_fixed_size: u32_at(b, 0),
            private_segment_fixed_size: u32_at(b, 4),
            kernarg_size: u32_at(b, 8),
            kernel_code_entry_byte_offset: u64_at(b, 16) as i64,
            compute_pgm_rsrc3: rsrc3,
            compute_pgm_rsrc1: rsrc1,
            compute_pgm_rsrc2: rsrc2,
            kernel_code_properties_raw: properties,
            kernarg_preload: u16_at(b, 58),
            rsrc1: PgmRsrc1::decode(rsrc1),
            rsrc2: PgmRsrc2::decode(rsrc2),
            rsrc3: PgmRsrc3::decode(rsrc3),
            kernel_code_properties: KernelCodeProperties::decode(properties),
            accum_offset: None,
            tg_split: None,
            wavefront_size_log2: None,
            v2_register_counts: None,
        }
    }

    /// Builds the descriptor from a code object v2 `amd_kernel_code_t` (256 bytes). Its
    /// `kernel_code_properties` keeps the user SGPR enables in the same low bits as v3.
    pub fn from_amd_kernel_code_t(b: &[u8; AMD_KERNEL_CODE_T_SIZE]) -> KernelDescriptor {
        let resource_registers = u64_at(b, 48);
        let rsrc1 = resource_registers as u32;
        let rsrc2 = (resource_registers >> 32) as u32;
        // Only bits [6:0] mean the same thing in v2; the rest (grid workgroup counts, ordered
        // append, element size, ptr64, dynamic call stack, debug, xnack) are v2-only.
        let properties = (u32_at(b, 56) & 0x7f) as u16;
        let is_dynamic_callstack = flag(u32_at(b, 56), 20);
        let mut kernel_code_properties = KernelCodeProperties::decode(properties);
        kernel_code_properties.uses_dynamic_stack = is_dynamic_callstack;
        KernelDescriptor {
            group_segment_fixed_size: u32_at(b, 64),
            private_segment_fixed_size: u32_at(b, 60),
            kernarg_size: u64_at(b, 72).min(u64::from(u32::MAX)) as u32,
            kernel_code_entry_byte_offset: u64_at(b, 16) as i64,
            compute_pgm_rsrc3: 0,
            compute_pgm_rsrc1: rsrc1,
            compute_pgm_rsrc2: rsrc2,
            kernel_code_properties_raw: properties,
            kernarg_preload: 0,
            rsrc1: PgmRsrc1::decode(rsrc1),
            rsrc2: PgmRsrc2::decode(rsrc2),
            rsrc3: PgmRsrc3::default(),
            kernel_code_properties,
            accum_offset: None,
            tg_split: None,
            wavefront_size_log2: Some(b[103]),
            v2_register_counts: Some((u16_at(b, 86), u16_at(b, 84))),
        }
    }

    /// Fills in what COMPUTE_PGM_RSRC3 means on `target`: the AccVGPR offset where the
    /// register file is unified, TG_SPLIT where it exists. An offset past the VGPRs the
    /// descriptor allocates is an error (the assembler refuses to write one).
    pub(crate) fn apply_target(&mut self, target: &TargetId) -> Result<(), String> {
        let Some(features) = target.isa_target().map(gcn_isa::Target::features) else {
            return Ok(());
        };
        if features.agprs == Agprs::Unified {
            let offset = (u32::from(self.rsrc3.accum_offset) + 1) * 4;
            let allocated = self.vgprs_allocated(target);
            if offset > allocated {
                return Err(format!(
                    "COMPUTE_PGM_RSRC3.ACCUM_OFFSET {} puts the first AccVGPR at v{offset}, past \
                     the {allocated} VGPRs the descriptor allocates",
                    self.rsrc3.accum_offset
                ));
            }
            self.accum_offset = Some(offset);
        }
        if features.gfx90a_insts {
            self.tg_split = Some(self.rsrc3.tg_split);
        }
        Ok(())
    }

    /// VGPRs the hardware allocates per work-item on `target`: (granulated count + 1) × the
    /// target's VGPR granule (4 on gfx900–gfx908, 8 on gfx90a; the field is encoded in the same
    /// granule as registers are allocated in).
    ///
    /// On gfx90a this is the whole unified file: ArchVGPRs v0 up to [`Self::accum_offset`],
    /// then the AccVGPRs up to this count (see [`Self::accvgprs_allocated`]). On gfx908 each of
    /// the two files (VGPRs, AccVGPRs) gets this many: the compiler encodes the larger count.
    /// Processors the decoder does not know take the encoding granule of gfx6–gfx10 for their
    /// wave size (4 for wave64, 8 for wave32).
    pub fn vgprs_allocated(&self, target: &TargetId) -> u32 {
        let granule = match target.isa_target() {
            Some(t) => u32::from(t.features().vgpr_granule),
            None if self.wavefront_size() == 32 => 8,
            None => 4,
        };
        (u32::from(self.rsrc1.granulated_workitem_vgpr_count) + 1) * granule
    }

    /// AccVGPRs of a unified register file: from [`Self::accum_offset`] to the end of the
    /// allocation. `None` on targets without a unified file.
    pub fn accvgprs_allocated(&self, target: &TargetId) -> Option<u32> {
        let offset = self.accum_offset?;
        Some(self.vgprs_allocated(target).saturating_sub(offset))
    }

    /// SGPRs the hardware allocates per wave on gfx9: (granules + 1) × 8 (the field counts
    /// VCC, FLAT_SCRATCH and XNACK_MASK too).
    pub fn sgprs_allocated(&self) -> u32 {
        (u32::from(self.rsrc1.granulated_wavefront_sgpr_count) + 1) * 8
    }

    /// Wave size: 32 if the wave32 enable is set, else from v2's field, else 64.
    pub fn wavefront_size(&self) -> u32 {
        if self.kernel_code_properties.enable_wavefront_size32 {
            32
        } else {
            match self.wavefront_size_log2 {
                Some(5) => 32,
                _ => 64,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_descriptor_field_lands_where_the_abi_puts_it() {
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&1024u32.to_le_bytes());
        b[4..8].copy_from_slice(&16u32.to_le_bytes());
        b[8..12].copy_from_slice(&280u32.to_le_bytes());
        b[16..24].copy_from_slice(&(-64i64).to_le_bytes());
        b[44..48].copy_from_slice(&0x0001_0003u32.to_le_bytes());
        // rsrc1: vgpr granules 5, sgpr granules 2, denorm32 3, dx10 clamp, ieee.
        let rsrc1: u32 = 5 | 2 << 6 | 3 << 16 | 1 << 21 | 1 << 23;
        b[48..52].copy_from_slice(&rsrc1.to_le_bytes());
        // rsrc2: scratch, 8 user SGPRs, tgid x and z, tidig 2, lds 3, divide-by-zero.
        let rsrc2: u32 = 1 | 8 << 1 | 1 << 7 | 1 << 9 | 2 << 11 | 3 << 15 | 1 << 26;
        b[52..56].copy_from_slice(&rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&0b1000_0000_1001u16.to_le_bytes());
        let kd = KernelDescriptor::from_bytes(&b);
        assert_eq!(kd.group_segment_fixed_size, 1024);
        assert_eq!(kd.private_segment_fixed_size, 16);
        assert_eq!(kd.kernarg_size, 280);
        assert_eq!(kd.kernel_code_entry_byte_offset, -64);
        assert_eq!(kd.rsrc1.granulated_workitem_vgpr_count, 5);
        assert_eq!(kd.vgprs_allocated(&TargetId::new("gfx900")), 24);
        assert_eq!(kd.sgprs_allocated(), 24);
        assert_eq!(kd.rsrc1.float_denorm_mode_32, 3);
        assert!(kd.rsrc1.enable_dx10_clamp && kd.rsrc1.enable_ieee_mode && !kd.rsrc1.priv_);
        assert!(kd.rsrc2.enable_private_segment);
        assert_eq!(kd.rsrc2.user_sgpr_count, 8);
        assert!(kd.rsrc2.enable_sgpr_workgroup_id_x && !kd.rsrc2.enable_sgpr_workgroup_id_y);
        assert!(kd.rsrc2.enable_sgpr_workgroup_id_z);
        assert_eq!(kd.rsrc2.enable_vgpr_workitem_id, 2);
        assert_eq!(kd.rsrc2.granulated_lds_size, 3);
        assert_eq!(kd.rsrc2.enable_exception, 1 << 2);
        assert_eq!(kd.rsrc3.accum_offset, 3);
        assert!(kd.rsrc3.tg_split);
        let p = kd.kernel_code_properties;
        assert!(p.enable_sgpr_private_segment_buffer && p.enable_sgpr_kernarg_segment_ptr);
        assert!(!p.enable_sgpr_dispatch_ptr && p.uses_dynamic_stack);
        assert_eq!(p.user_sgprs(), 6);
        assert_eq!(kd.wavefront_size(), 64);
    }

    /// A descriptor with these VGPR granules and COMPUTE_PGM_RSRC3.
    fn with_rsrc(vgpr_granules: u32, rsrc3: u32) -> KernelDescriptor {
        let mut b = [0u8; 64];
        b[44..48].copy_from_slice(&rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&vgpr_granules.to_le_bytes());
        KernelDescriptor::from_bytes(&b)
    }

    #[test]
    fn gfx90a_counts_vgprs_in_eights_and_places_the_accvgprs() {
        let gfx90a = TargetId::parse("gfx90a:xnack-").unwrap();
        // LLVM's kernel_32_agprs: 9 ArchVGPRs and 32 AccVGPRs; VGPRBlocks 5, ACCUM_OFFSET 2.
        let mut kd = with_rsrc(5, 2);
        kd.apply_target(&gfx90a).unwrap();
        assert_eq!(kd.vgprs_allocated(&gfx90a), 48);
        assert_eq!(kd.accum_offset, Some(12));
        assert_eq!(kd.accvgprs_allocated(&gfx90a), Some(36));
        assert_eq!(kd.tg_split, Some(false));
        let mut split = with_rsrc(0, 1 << 16);
        split.apply_target(&gfx90a).unwrap();
        assert_eq!((split.accum_offset, split.tg_split), (Some(4), Some(true)));
        // The same kernel for gfx908: VGPRBlocks 7 in fours, two files, RSRC3 zero.
        let gfx908 = TargetId::parse("gfx908:xnack-").unwrap();
        let mut kd = with_rsrc(7, 0);
        kd.apply_target(&gfx908).unwrap();
        assert_eq!(kd.vgprs_allocated(&gfx908), 32);
        assert_eq!((kd.accum_offset, kd.tg_split), (None, None));
        assert_eq!(kd.accvgprs_allocated(&gfx908), None);
    }

    #[test]
    fn an_accum_offset_past_the_allocation_is_refused() {
        let gfx90a = TargetId::new("gfx90a");
        // 8 VGPRs allocated, AccVGPRs from v12.
        let err = with_rsrc(0, 2).apply_target(&gfx90a).unwrap_err();
        assert!(
            err.contains("ACCUM_OFFSET 2 puts the first AccVGPR at v12"),
            "{err}"
        );
        assert!(err.contains("the 8 VGPRs"), "{err}");
        // Exactly at the end: no AccVGPRs, allowed.
        let mut kd = with_rsrc(0, 1);
        kd.apply_target(&gfx90a).unwrap();
        assert_eq!(kd.accvgprs_allocated(&gfx90a), Some(0));
    }

    #[test]
    fn processors_outside_gfx9_take_the_granule_of_their_wave_size() {
        let gfx1030 = TargetId::new("gfx1030");
        let mut kd = with_rsrc(3, 0);
        assert_eq!(kd.vgprs_allocated(&gfx1030), 16);
        kd.kernel_code_properties.enable_wavefront_size32 = true;
        assert_eq!(kd.vgprs_allocated(&gfx1030), 32);
    }

    #[test]
    fn amd_kernel_code_t_fields_map_onto_the_descriptor() {
        let mut b = [0u8; 256];
        b[16..24].copy_from_slice(&256u64.to_le_bytes());
        let resources: u64 = 0x0000_0092 << 32 | 0x00af_0041;
        b[48..56].copy_from_slice(&resources.to_le_bytes());
        b[56..60].copy_from_slice(&(0b1001u32 | 1 << 20).to_le_bytes());
        b[60..64].copy_from_slice(&8u32.to_le_bytes());
        b[64..68].copy_from_slice(&512u32.to_le_bytes());
        b[72..80].copy_from_slice(&24u64.to_le_bytes());
        b[84..86].copy_from_slice(&14u16.to_le_bytes());
        b[86..88].copy_from_slice(&6u16.to_le_bytes());
        b[103] = 6;
        let kd = KernelDescriptor::from_amd_kernel_code_t(&b);
        assert_eq!(kd.kernel_code_entry_byte_offset, 256);
        assert_eq!(kd.compute_pgm_rsrc1, 0x00af_0041);
        assert_eq!(kd.compute_pgm_rsrc2, 0x92);
        assert_eq!(kd.rsrc2.user_sgpr_count, 9);
        assert!(kd.rsrc2.enable_sgpr_workgroup_id_x);
        assert_eq!(kd.group_segment_fixed_size, 512);
        assert_eq!(kd.private_segment_fixed_size, 8);
        assert_eq!(kd.kernarg_size, 24);
        assert!(kd.kernel_code_properties.enable_sgpr_kernarg_segment_ptr);
        assert!(kd.kernel_code_properties.uses_dynamic_stack);
        assert_eq!(kd.v2_register_counts, Some((6, 14)));
        assert_eq!(kd.wavefront_size(), 64);
    }
}
