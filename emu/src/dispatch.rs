//! The HSA dispatch ABI (AMDGPUUsage, "Initial Kernel Execution State"): the
//! `hsa_kernel_dispatch_packet_t`, the kernarg segment with explicit and hidden arguments, the
//! private segment (scratch) layout, and the initial SGPRs, VGPRs, EXEC and MODE of each wave.

use crate::memory::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};
use crate::wave::{Wave, WAVE_SIZE};
use gcn_loader::{KernelArg, KernelDescriptor, ValueKind};

/// Extra private bytes per work-item for kernels that declare a dynamic stack (the HIP runtime's
/// default stack size is 1 KiB; we are more generous since it costs only host memory).
pub const DYNAMIC_STACK_BYTES: u32 = 16 * 1024;

/// Word 3 of the private segment buffer V# as ROCm builds it for gfx9: DST_SEL_XYZW,
/// NUM_FORMAT_FLOAT, DATA_FORMAT_32, ELEMENT_SIZE 4 bytes, INDEX_STRIDE 64, ADD_TID_ENABLE.
pub const PRIVATE_VSHARP_WORD3: u32 = 0x00ea_7fac;

/// Everything a dispatch fixes for all its waves.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup per dimension.
    pub block: [u32; 3],
    pub dispatch_id: u64,
    pub packet: u64,
    pub queue: u64,
    pub kernarg: u64,
    /// Base of the scratch backing memory of one workgroup's waves (0 if none).
    pub scratch_base: u64,
    /// Bytes of private segment per work-item.
    pub private_size: u32,
    /// Bytes of scratch per wave (the private segment of 64 lanes, swizzled).
    pub scratch_per_wave: u64,
    pub lds_size: u32,
    /// The hostcall buffer of `hidden_hostcall_buffer` (device printf, malloc); 0 if the kernel
    /// has none.
    pub hostcall_buffer: u64,
    /// The device malloc heap of `hidden_heap_v1` (code object v5); 0 if the kernel has none.
    pub heap: u64,
    /// The target packs the work-item ids into v0 (`Features::packed_tid`, gfx90a): x in bits
    /// [9:0], y [19:10], z [29:20], where earlier targets put them in v0, v1 and v2.
    pub packed_tid: bool,
    /// The hardware sets FLAT_SCRATCH to the wave's scratch (`Features::architected_flat_scratch`,
    /// gfx940): no private segment buffer, no flat scratch init, and no wave offset SGPR.
    pub architected_flat_scratch: bool,
    /// Kernel arguments preloaded into the user SGPRs after the descriptor's enabled ones (the
    /// descriptor's KERNARG_PRELOAD_SPEC_LENGTH dwords from KERNARG_PRELOAD_SPEC_OFFSET).
    pub preload: Preload,
}

/// The kernarg dwords a dispatch preloads into each wave's user SGPRs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Preload {
    pub dwords: [u32; 16],
    pub len: u8,
}

impl Preload {
    /// The dwords `spec` asks for (KERNARG_PRELOAD_SPEC_LENGTH in bits [6:0], the offset in
    /// dwords in [15:7]: the descriptor's u16 at byte 58) from the kernarg segment `kernarg`;
    /// dwords past its end are the padding's zeros. `None` if the length is over 16, more than
    /// the user SGPRs hold.
    pub fn of(spec: u16, kernarg: &[u8]) -> Option<Preload> {
        let (len, offset) = ((spec & 0x7f) as usize, (spec >> 7) as usize);
        if len > 16 {
            return None;
        }
        let mut dwords = [0u32; 16];
        for (i, d) in dwords.iter_mut().enumerate().take(len) {
            let at = 4 * (offset + i);
            if let Some(b) = kernarg.get(at..at + 4) {
                *d = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
        Some(Preload {
            dwords,
            len: len as u8,
        })
    }
}

impl Launch {
    pub fn group_items(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    pub fn waves_per_group(&self) -> u32 {
        self.group_items().div_ceil(WAVE_SIZE as u32)
    }

    /// Dimensions as HIP reports them to hidden_grid_dims and the packet's setup field.
    pub fn dims(&self) -> u16 {
        if self.grid[2] > 1 || self.block[2] > 1 {
            3
        } else if self.grid[1] > 1 || self.block[1] > 1 {
            2
        } else {
            1
        }
    }
}

fn put(buf: &mut [u8], off: usize, bytes: &[u8]) {
    if let Some(dst) = buf.get_mut(off..off + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

/// The 64-byte `hsa_kernel_dispatch_packet_t`.
pub fn dispatch_packet(l: &Launch, kernel_object: u64) -> [u8; 64] {
    let mut p = [0u8; 64];
    // HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier bit, system-scope acquire and release fences.
    let header: u16 = 2 | 1 << 8 | 2 << 9 | 2 << 11;
    put(&mut p, 0, &header.to_le_bytes());
    put(&mut p, 2, &l.dims().to_le_bytes());
    for i in 0..3 {
        put(&mut p, 4 + 2 * i, &(l.block[i] as u16).to_le_bytes());
        let items = l.grid[i].saturating_mul(l.block[i]);
        put(&mut p, 12 + 4 * i, &items.to_le_bytes());
    }
    put(&mut p, 24, &l.private_size.to_le_bytes());
    put(&mut p, 28, &l.lds_size.to_le_bytes());
    put(&mut p, 32, &kernel_object.to_le_bytes());
    put(&mut p, 40, &l.kernarg.to_le_bytes());
    // completion_signal @56 stays 0: there is no host to signal.
    p
}

/// Fills the hidden arguments of `args` (explicit ones are written by the caller).
pub fn write_hidden_args(seg: &mut [u8], args: &[KernelArg], l: &Launch, dynamic_lds: u32) {
    for a in args {
        let off = a.offset as usize;
        let size = (a.size as usize).min(8);
        let value: u64 = match a.value_kind {
            ValueKind::HiddenBlockCountX => l.grid[0] as u64,
            ValueKind::HiddenBlockCountY => l.grid[1] as u64,
            ValueKind::HiddenBlockCountZ => l.grid[2] as u64,
            ValueKind::HiddenGroupSizeX => l.block[0] as u64,
            ValueKind::HiddenGroupSizeY => l.block[1] as u64,
            ValueKind::HiddenGroupSizeZ => l.block[2] as u64,
            // The grid is whole workgroups, so no partial group remains in any dimension.
            ValueKind::HiddenRemainderX
            | ValueKind::HiddenRemainderY
            | ValueKind::HiddenRemainderZ => 0,
            ValueKind::HiddenGridDims => l.dims() as u64,
            ValueKind::HiddenDynamicLdsSize => dynamic_lds as u64,
            ValueKind::HiddenPrivateBase => PRIVATE_APERTURE_BASE >> 32,
            ValueKind::HiddenSharedBase => SHARED_APERTURE_BASE >> 32,
            ValueKind::HiddenQueuePtr => l.queue,
            ValueKind::HiddenHostcallBuffer => l.hostcall_buffer,
            ValueKind::HiddenHeapV1 => l.heap,
            // Global offsets are zero (no offset grid); the printf buffer (OpenCL), device-side
            // enqueue and completion actions are services this emulator does not provide, so
            // their pointers are null and a kernel that uses them faults on the null access
            // instead of corrupting memory. The multi-grid sync argument is the launch's
            // ([`write_multigrid_sync`]).
            _ => continue,
        };
        put(seg, off, &value.to_le_bytes()[..size]);
    }
}

/// Fills `hidden_multigrid_sync_arg` with `value`: what the HIP runtime passes there (0 for a
/// plain launch, 1 for a cooperative one, the multi-grid sync information's address for a
/// multi-device one), which ockl's grid and multi-grid functions read.
pub fn write_multigrid_sync(seg: &mut [u8], args: &[KernelArg], value: u64) {
    for a in args {
        if a.value_kind == ValueKind::HiddenMultigridSyncArg {
            let size = (a.size as usize).min(8);
            put(seg, a.offset as usize, &value.to_le_bytes()[..size]);
        }
    }
}

/// MODE from compute_pgm_rsrc1: FP_ROUND [3:0], FP_DENORM [7:4], DX10_CLAMP [8], IEEE [9].
pub fn initial_mode(desc: &KernelDescriptor) -> u32 {
    let r = &desc.rsrc1;
    (r.float_round_mode_32 as u32 & 3)
        | (r.float_round_mode_16_64 as u32 & 3) << 2
        | (r.float_denorm_mode_32 as u32 & 3) << 4
        | (r.float_denorm_mode_16_64 as u32 & 3) << 6
        | (r.enable_dx10_clamp as u32) << 8
        | (r.enable_ieee_mode as u32) << 9
}

/// Sets up wave `index` of workgroup `group`: user SGPRs in the order of the descriptor's enables,
/// then the system SGPRs of rsrc2, work-item ids in v0–v2, EXEC for the work-items it covers, and
/// MODE.
pub fn init_wave(w: &mut Wave, desc: &KernelDescriptor, l: &Launch, group: [u32; 3], index: u32) {
    let p = &desc.kernel_code_properties;
    // At most 16 user SGPRs (4+2+2+2+2+2+1, then preloaded arguments) and 5 system SGPRs.
    let mut user = [0u32; 16];
    let mut n = 0usize;
    let mut push = |_: &mut Wave, v: u32| {
        if let Some(u) = user.get_mut(n) {
            *u = v;
            n += 1;
        }
    };
    let wave_offset = index as u64 * l.scratch_per_wave;
    if p.enable_sgpr_private_segment_buffer {
        push(w, l.scratch_base as u32);
        // Base [47:32], stride 0, swizzle_enable [31].
        push(w, ((l.scratch_base >> 32) as u32 & 0xffff) | 1 << 31);
        push(w, u32::MAX);
        push(w, PRIVATE_VSHARP_WORD3);
    }
    if p.enable_sgpr_dispatch_ptr {
        push(w, l.packet as u32);
        push(w, (l.packet >> 32) as u32);
    }
    if p.enable_sgpr_queue_ptr {
        push(w, l.queue as u32);
        push(w, (l.queue >> 32) as u32);
    }
    if p.enable_sgpr_kernarg_segment_ptr {
        push(w, l.kernarg as u32);
        push(w, (l.kernarg >> 32) as u32);
    }
    if p.enable_sgpr_dispatch_id {
        push(w, l.dispatch_id as u32);
        push(w, (l.dispatch_id >> 32) as u32);
    }
    if p.enable_sgpr_flat_scratch_init {
        // gfx9: the scratch backing base; the prologue adds the wave offset into FLAT_SCRATCH.
        push(w, l.scratch_base as u32);
        push(w, (l.scratch_base >> 32) as u32);
    }
    if p.enable_sgpr_private_segment_size {
        push(w, l.private_size);
    }
    // Preloaded kernel arguments follow the enabled user SGPRs (AMDGPUUsage, "Preloaded Kernel
    // Arguments"); there are 16 user SGPRs in all.
    for &d in l.preload.dwords.iter().take(l.preload.len as usize) {
        push(w, d);
    }
    w.sgpr[..n].copy_from_slice(&user[..n]);
    // System SGPRs follow the user SGPR count the descriptor declares.
    let mut s = (desc.rsrc2.user_sgpr_count as usize).max(n);
    let r2 = &desc.rsrc2;
    for (on, v) in [
        (r2.enable_sgpr_workgroup_id_x, group[0]),
        (r2.enable_sgpr_workgroup_id_y, group[1]),
        (r2.enable_sgpr_workgroup_id_z, group[2]),
        // Workgroup info: waves in the workgroup in [5:0].
        (r2.enable_sgpr_workgroup_info, l.waves_per_group() & 0x3f),
        // With architected flat scratch the wave finds its scratch in FLAT_SCRATCH alone.
        (
            r2.enable_private_segment && !l.architected_flat_scratch,
            wave_offset as u32,
        ),
    ] {
        if on && s < 102 {
            w.sgpr[s] = v;
            s += 1;
        }
    }
    // FLAT_SCRATCH as the prologue would set it, for code that uses it without initialising
    // (and as the hardware sets it where flat scratch is architected).
    w.set_pair(
        gcn_isa::operand::FLAT_SCRATCH_LO,
        l.scratch_base + wave_offset,
    );

    w.group = group[0]
        .wrapping_add(group[1].wrapping_mul(l.grid[0]))
        .wrapping_add(group[2].wrapping_mul(l.grid[0]).wrapping_mul(l.grid[1]));
    let items = l.group_items();
    let first = index * WAVE_SIZE as u32;
    let lanes = items.saturating_sub(first).min(WAVE_SIZE as u32);
    w.lanes = lanes;
    w.set_exec(if lanes == 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    });
    let ids = r2.enable_vgpr_workitem_id;
    let (bx, by) = (l.block[0], l.block[1]);
    // Work-item (x, y, z) of the wave's first lane, then counted up lane by lane: a division
    // per lane showed when rocPRIM's large tests start hundreds of millions of workgroups.
    let (mut x, mut y, mut z) = (first % bx, (first / bx) % by, first / (bx * by));
    if lanes == WAVE_SIZE as u32 && x + WAVE_SIZE as u32 <= bx {
        // The whole wave in one row of the block (any block of 64 or more work-items across):
        // only x changes, so each id is a row filled at once, not counted lane by lane.
        let (y, z) = (if ids >= 1 { y } else { 0 }, if ids >= 2 { z } else { 0 });
        if l.packed_tid {
            let yz = y << 10 | z << 20;
            for (lane, v) in w.vgpr[0].iter_mut().enumerate() {
                *v = (x + lane as u32) | yz;
            }
        } else {
            for (lane, v) in w.vgpr[0].iter_mut().enumerate() {
                *v = x + lane as u32;
            }
            if ids >= 1 {
                w.vgpr[1] = [y; WAVE_SIZE];
            }
            if ids >= 2 {
                w.vgpr[2] = [z; WAVE_SIZE];
            }
        }
        w.mode = initial_mode(desc);
        return;
    }
    for lane in 0..lanes as usize {
        if l.packed_tid {
            // AMDGPUUsage, "VGPR register set up order": the ids not enabled read as 0.
            let y = if ids >= 1 { y } else { 0 };
            let z = if ids >= 2 { z } else { 0 };
            w.vgpr[0][lane] = x | y << 10 | z << 20;
        } else {
            w.vgpr[0][lane] = x;
            if ids >= 1 {
                w.vgpr[1][lane] = y;
            }
            if ids >= 2 {
                w.vgpr[2][lane] = z;
            }
        }
        x += 1;
        if x == bx {
            x = 0;
            y += 1;
            if y == by {
                y = 0;
                z += 1;
            }
        }
    }
    w.mode = initial_mode(desc);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The work-item ids of every lane of every wave, against x, y, z worked out from the flat
    /// index by division, for blocks that do not fill their last wave, whose rows do not
    /// line up with waves, and whose rows hold whole waves (set a row at a time).
    #[test]
    fn workitem_ids_follow_the_block_shape() {
        for block in [
            [100, 1, 1],
            [5, 3, 7],
            [16, 16, 1],
            [3, 1, 50],
            [1, 65, 2],
            [128, 3, 2],
            [192, 2, 1],
        ] {
            let mut desc = KernelDescriptor::default();
            desc.rsrc2.enable_vgpr_workitem_id = 2;
            let l = Launch {
                grid: [1, 1, 1],
                block,
                dispatch_id: 0,
                packet: 0,
                queue: 0,
                kernarg: 0,
                scratch_base: 0,
                private_size: 0,
                scratch_per_wave: 0,
                lds_size: 0,
                hostcall_buffer: 0,
                heap: 0,
                packed_tid: false,
                architected_flat_scratch: false,
                preload: Preload::default(),
            };
            for packed_tid in [false, true] {
                let l = Launch {
                    packed_tid,
                    ..l.clone()
                };
                let items = l.group_items();
                let (bx, by) = (block[0], block[1]);
                for wave in 0..l.waves_per_group() {
                    let mut w = Wave::with_vgprs(wave, 4);
                    init_wave(&mut w, &desc, &l, [0; 3], wave);
                    for lane in 0..WAVE_SIZE {
                        let f = wave * WAVE_SIZE as u32 + lane as u32;
                        let got = [w.vgpr[0][lane], w.vgpr[1][lane], w.vgpr[2][lane]];
                        let [x, y, z] = if f < items {
                            [f % bx, (f / bx) % by, f / (bx * by)]
                        } else {
                            [0; 3]
                        };
                        // gfx90a: x, y and z in 10-bit fields of v0, v1 and v2 untouched
                        let want = if packed_tid {
                            [x | y << 10 | z << 20, 0, 0]
                        } else {
                            [x, y, z]
                        };
                        assert_eq!(got, want, "block {block:?} wave {wave} lane {lane}");
                    }
                }
            }
        }
    }

    /// The preload spec's length and offset (in dwords) pick kernarg dwords, zeros past the
    /// segment's end; more than the 16 user SGPRs is refused.
    #[test]
    fn preload_reads_the_dwords_the_spec_names() {
        let seg: Vec<u8> = (0u8..12).collect();
        let p = Preload::of(2 | 1 << 7, &seg).unwrap();
        assert_eq!(p.len, 2);
        assert_eq!(p.dwords[..3], [0x0706_0504, 0x0b0a_0908, 0]);
        let p = Preload::of(2 | 2 << 7, &seg).unwrap();
        assert_eq!(p.dwords[..2], [0x0b0a_0908, 0]);
        assert_eq!(Preload::of(0, &seg).unwrap().len, 0);
        assert_eq!(Preload::of(17, &seg), None);
    }

    /// Preloaded dwords follow the enabled user SGPRs; with architected flat scratch no wave
    /// offset SGPR follows the workgroup id, and FLAT_SCRATCH holds the wave's scratch.
    #[test]
    fn preloaded_arguments_and_architected_scratch_set_up_the_sgprs() {
        let mut desc = KernelDescriptor::default();
        desc.kernel_code_properties.enable_sgpr_kernarg_segment_ptr = true;
        desc.rsrc2.enable_sgpr_workgroup_id_x = true;
        desc.rsrc2.enable_private_segment = true;
        desc.rsrc2.user_sgpr_count = 5;
        let mut preload = Preload::default();
        preload.dwords[..3].copy_from_slice(&[7, 8, 9]);
        preload.len = 3;
        let l = Launch {
            grid: [4, 1, 1],
            block: [128, 1, 1],
            dispatch_id: 0,
            packet: 0,
            queue: 0,
            kernarg: 0x1_0000_2000,
            scratch_base: 0x4000,
            private_size: 16,
            scratch_per_wave: 1024,
            lds_size: 0,
            hostcall_buffer: 0,
            heap: 0,
            packed_tid: true,
            architected_flat_scratch: true,
            preload,
        };
        for architected in [true, false] {
            let l = Launch {
                architected_flat_scratch: architected,
                ..l.clone()
            };
            let mut w = Wave::with_vgprs(1, 4);
            init_wave(&mut w, &desc, &l, [3, 0, 0], 1);
            assert_eq!(
                w.sgpr[..7],
                [0x2000, 1, 7, 8, 9, 3, if architected { 0 } else { 1024 }]
            );
            assert_eq!(w.pair(gcn_isa::operand::FLAT_SCRATCH_LO), 0x4000 + 1024);
        }
    }
}
