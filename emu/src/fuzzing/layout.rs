//! Where a generated program's data lives, which registers hold what, and the prologue that
//! sets them up. Every region is written by whom it belongs to, so that no two waves' accesses
//! can race (see the module doc of [`super`]).
//!
//! The buffer the kernarg segment points into (one allocation of [`BUFFER_SIZE`] bytes):
//!
//! | bytes | what | who touches it |
//! | --- | --- | --- |
//! | `0x0000..` | kernarg: pointers to the input, the output and the atomics areas | read by the prologue |
//! | [`IN`] | input, a fixed pattern of integers and floats | read by every lane |
//! | [`OUT`] | one [`SLOT`]-byte slot per lane of the grid | stores and atomics of its lane only |
//! | [`ATOMICS`] | one [`ATOMIC_AREA`] per (commutative atomic, width) | non-returning atomics of that kind |
//!
//! LDS: one [`LDS_SLOT`]-byte slot per lane, and a shared area of one dword per lane that its
//! lane writes before a barrier and every lane reads after it.

use gcn_isa::Target;

/// Bytes of the buffer.
pub const BUFFER_SIZE: u64 = 0x8000;
/// The input area: offset and size.
pub const IN: (u64, u64) = (0x1000, 0x2000);
/// The output area: offset and size (two workgroups of up to 256 lanes).
pub const OUT: (u64, u64) = (0x3000, 0x4000);
/// The atomics areas' offset.
pub const ATOMICS: u64 = 0x7000;
/// Bytes of output per lane.
pub const SLOT: u32 = 32;
/// Bytes of one atomics area.
pub const ATOMIC_AREA: u32 = 64;
/// Bytes of LDS per lane, from LDS address 0.
pub const LDS_SLOT: u32 = 16;
/// The shared LDS area: one dword per lane of the workgroup.
pub const LDS_SHARED: u32 = 0x1000;
/// LDS bytes a workgroup allocates.
pub const LDS_SIZE: u32 = 0x2000;
/// Workgroups in the grid.
pub const GROUPS: u32 = 2;

/// The SGPRs and VGPRs the prologue sets and generated code only reads. A generated
/// instruction writes only SGPRs [`SGPR_FREE`] and VGPRs [`VGPR_FREE`] (and VCC, EXEC, SCC),
/// so the addresses below stay in their lane's regions.
pub mod reg {
    /// s[0:1]: the kernarg pointer; s2 the workgroup id; s[4:5] the input, s[6:7] the output,
    /// s[16:17] the atomics areas; s[8:11] and s[12:15] buffer resources of output and input;
    /// s18, s19 loop counters.
    pub const IN_BASE: &str = "s[4:5]";
    pub const OUT_BASE: &str = "s[6:7]";
    pub const OUT_RSRC: &str = "s[8:11]";
    pub const IN_RSRC: &str = "s[12:15]";
    pub const ATOMIC_BASE: &str = "s[16:17]";
    pub const LOOP_COUNTER: u32 = 18;
    /// v1 the lane's output slot (from [`OUT_BASE`]), v2 its input offset, v3 an address made
    /// just before its use, v[4:5] the output slot's flat address, v[6:7] the input's, v8 the
    /// LDS slot, v9 the lane's dword of the shared LDS area.
    pub const OUT_SLOT: &str = "v1";
    pub const IN_LANE: &str = "v2";
    pub const ADDRESS: &str = "v3";
    pub const OUT_FLAT: &str = "v[4:5]";
    pub const IN_FLAT: &str = "v[6:7]";
    pub const LDS_OWN: &str = "v8";
    pub const LDS_SHARED_OWN: &str = "v9";
}

/// SGPRs generated code may write.
pub const SGPR_FREE: std::ops::Range<u32> = 20..40;
/// SGPRs generated code may read: all the kernel declares below VCC.
pub const SGPR_READ: std::ops::Range<u32> = 0..40;
/// VGPRs generated code may write.
pub const VGPR_FREE: std::ops::Range<u32> = 10..32;
/// VGPRs (and, on gfx908 and gfx90a, AGPRs) the kernel declares.
pub const VGPRS: u32 = 32;
/// The descriptor's granulated SGPR count: (2 + 1) * 16 = 48 SGPRs.
pub const GRANULATED_SGPRS: u8 = 2;

/// The kernarg image: the three areas' addresses in a buffer at `buf`.
pub fn kernarg(buf: u64) -> [u64; 3] {
    [buf + IN.0, buf + OUT.0, buf + ATOMICS]
}

/// The input area's contents: integers small and large, floats ordinary and special, so that
/// arithmetic on loaded values takes many paths.
pub fn input_pattern() -> Vec<u8> {
    const SPECIAL: [u32; 12] = [
        0x3f80_0000, // 1.0
        0xc020_0000, // -2.5
        0x7fc0_0000, // NaN
        0x7f80_0000, // +inf
        0x0000_0001, // a denormal
        0x8000_0000, // -0.0
        0x4049_0fdb, // pi
        0xffff_ffff,
        0x0000_0007,
        0x0000_0040,
        0x3c00_4000, // f16 pair 1.0, 2.0
        0x0000_0000,
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..IN.1 / 4)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = match i % 4 {
                0 => SPECIAL[(x % SPECIAL.len() as u64) as usize],
                1 => (x % 200) as u32,
                _ => x as u32,
            };
            v.to_le_bytes()
        })
        .collect()
}

/// The prologue: loads the areas' addresses, makes each lane's offsets and the buffer
/// resources, fills the free registers from the input, and writes the lane's LDS slot and
/// shared dword, so that nothing later reads memory no one wrote. `waves` per workgroup.
pub fn prologue(target: Target, waves: u32) -> Vec<String> {
    let group_bytes = waves * 64 * SLOT;
    let mut p: Vec<String> = [
        "s_load_dwordx4 s[4:7], s[0:1], 0x0",
        "s_load_dwordx2 s[16:17], s[0:1], 0x10",
        &format!("s_mul_i32 s3, s2, {group_bytes:#x}"),
        "v_lshlrev_b32 v1, 5, v0",
        "v_add_u32 v1, s3, v1",
        // A lane's input offset: a stride of 37 dwords, wrapped into the first 4 KiB.
        "v_mul_u32_u24 v2, 0x94, v0",
        "v_and_b32 v2, 0xffc, v2",
        "v_lshlrev_b32 v8, 4, v0",
        "v_lshlrev_b32 v9, 2, v0",
        "v_add_u32 v9, 0x1000, v9",
        "s_mov_b32 m0, -1",
        "s_waitcnt lgkmcnt(0)",
        "v_mov_b32 v5, s7",
        "v_add_co_u32 v4, vcc, s6, v1",
        "v_addc_co_u32 v5, vcc, 0, v5, vcc",
        "v_mov_b32 v7, s5",
        "v_add_co_u32 v6, vcc, s4, v2",
        "v_addc_co_u32 v7, vcc, 0, v7, vcc",
        // Buffer resources: base, stride 0, size in bytes, 32-bit float format.
        "s_mov_b32 s8, s6",
        "s_and_b32 s9, s7, 0xffff",
        &format!("s_mov_b32 s10, {:#x}", OUT.1),
        "s_mov_b32 s11, 0x27000",
        "s_mov_b32 s12, s4",
        "s_and_b32 s13, s5, 0xffff",
        &format!("s_mov_b32 s14, {:#x}", IN.1),
        "s_mov_b32 s15, 0x27000",
        "global_load_dwordx4 v[10:13], v2, s[4:5]",
        "global_load_dwordx4 v[14:17], v2, s[4:5] offset:256",
        "global_load_dwordx4 v[18:21], v2, s[4:5] offset:512",
        "global_load_dwordx4 v[22:25], v2, s[4:5] offset:768",
        "global_load_dwordx4 v[26:29], v2, s[4:5] offset:1024",
        "global_load_dwordx2 v[30:31], v2, s[4:5] offset:1280",
        "s_load_dwordx16 s[20:35], s[4:5], 0x40",
        "s_load_dwordx4 s[36:39], s[4:5], 0x80",
        "s_waitcnt vmcnt(0) lgkmcnt(0)",
        "ds_write_b128 v8, v[10:13]",
        "ds_write_b32 v9, v14",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if target.features().agprs != gcn_isa::Agprs::None {
        for a in 0..VGPRS {
            p.push(format!("v_accvgpr_write_b32 a{a}, v{}", 10 + a % 22));
        }
    }
    p.push("s_waitcnt lgkmcnt(0)".into());
    p
}
