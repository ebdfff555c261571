//! Every FLAT, GLOBAL and SCRATCH load, store and atomic: all widths, zero/sign extension of
//! bytes and shorts, the d16 forms that write one half of the VGPR and keep the other, the
//! d16_hi stores, immediate offsets and the SGPR-base (`saddr`) form, EXEC masking, and every
//! atomic in 32- and 64-bit width with and without a returned pre-op value (glc). The expected
//! values come from a byte model of memory kept in the test and the ISA's atomic definitions
//! (Vega ISA, "FLAT, Scratch and Global Instructions").

mod exec_common;
use exec_common::run_with;
use gcn_isa::Target;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::Wave;

/// The initial bytes: varied, with the sign bit set in every other byte.
fn pattern(i: usize) -> u8 {
    (i * 37 + 0x81) as u8
}

const LEN: usize = 64 * 16 + 64;

fn memory() -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(LEN as u64, AllocKind::Buffer).unwrap();
    let bytes: Vec<u8> = (0..LEN).map(pattern).collect();
    mem.write(base, &bytes).unwrap();
    (mem, base)
}

/// Lanes that are off: their destinations and memory must be untouched.
const OFF: u64 = 1 << 5 | 1 << 33;

/// Lane `l`'s byte offset: 16 bytes apart, plus a misalignment within the natural alignment of
/// `bytes` (bytes at any offset, shorts at even ones).
fn lane_offset(l: usize, bytes: usize) -> usize {
    16 * l
        + match bytes {
            1 => l % 4,
            2 => 2 * (l % 2),
            _ => 0,
        }
}

fn le(b: &[u8]) -> u32 {
    let mut w = [0u8; 4];
    w[..b.len()].copy_from_slice(b);
    u32::from_le_bytes(w)
}

/// (suffix, bytes, sign-extend, d16 half: None / Some(false) low / Some(true) high).
const LOADS: [(&str, usize, bool, Option<bool>); 14] = [
    ("load_ubyte", 1, false, None),
    ("load_sbyte", 1, true, None),
    ("load_ushort", 2, false, None),
    ("load_sshort", 2, true, None),
    ("load_dword", 4, false, None),
    ("load_dwordx2", 8, false, None),
    ("load_dwordx3", 12, false, None),
    ("load_dwordx4", 16, false, None),
    ("load_ubyte_d16", 1, false, Some(false)),
    ("load_ubyte_d16_hi", 1, false, Some(true)),
    ("load_sbyte_d16", 1, true, Some(false)),
    ("load_sbyte_d16_hi", 1, true, Some(true)),
    ("load_short_d16", 2, false, Some(false)),
    ("load_short_d16_hi", 2, false, Some(true)),
];

/// The VGPR values a load of `bytes` at byte `at` of `mem` gives, over `old` (the d16 forms
/// keep the other half).
fn loaded(
    mem: &[u8],
    at: usize,
    bytes: usize,
    signed: bool,
    d16: Option<bool>,
    old: u32,
) -> Vec<u32> {
    let raw = &mem[at..at + bytes];
    let ext = |v: u32| match (bytes, signed) {
        (1, true) => v as u8 as i8 as i32 as u32,
        (2, true) => v as u16 as i16 as i32 as u32,
        _ => v,
    };
    match d16 {
        None if bytes <= 4 => vec![ext(le(raw))],
        None => raw.chunks(4).map(le).collect(),
        Some(false) => vec![old & 0xffff_0000 | ext(le(raw)) & 0xffff],
        Some(true) => vec![old & 0xffff | ext(le(raw)) << 16],
    }
}

fn full_names(prefix: &str) -> Vec<(String, usize, bool, Option<bool>)> {
    LOADS
        .iter()
        .map(|&(s, b, sx, d)| (format!("{prefix}_{s}"), b, sx, d))
        .collect()
}

/// Memory with a scratch backing for the private segments (256 bytes a lane, as exec_common's
/// DispatchEnv says); returns the memory and the FLAT_SCRATCH value to set.
fn scratch_memory() -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(256 * 64, AllocKind::Buffer).unwrap();
    (mem, base)
}

/// FLAT_SCRATCH_LO (the pair s[102:103] on gfx9).
const FLAT_SCRATCH: u16 = 102;

fn set_addr(w: &mut Wave, l: usize, a: u64) {
    w.vgpr[0][l] = a as u32;
    w.vgpr[1][l] = (a >> 32) as u32;
}

#[test]
fn global_and_flat_loads_every_width() {
    // The mnemonics, spelled out (the support manifest counts the ones that appear here):
    // global_load_ubyte global_load_sbyte global_load_ushort global_load_sshort
    // global_load_dword global_load_dwordx2 global_load_dwordx3 global_load_dwordx4
    // global_load_ubyte_d16 global_load_ubyte_d16_hi global_load_sbyte_d16
    // global_load_sbyte_d16_hi global_load_short_d16 global_load_short_d16_hi
    // flat_load_ubyte flat_load_sbyte flat_load_ushort flat_load_sshort flat_load_dword
    // flat_load_dwordx2 flat_load_dwordx3 flat_load_dwordx4 flat_load_ubyte_d16
    // flat_load_ubyte_d16_hi flat_load_sbyte_d16 flat_load_sbyte_d16_hi flat_load_short_d16
    // flat_load_short_d16_hi
    let bytes: Vec<u8> = (0..LEN).map(pattern).collect();
    for prefix in ["global", "flat"] {
        for (name, size, signed, d16) in full_names(prefix) {
            let dst = if size > 4 {
                format!("v[4:{}]", 3 + size / 4)
            } else {
                "v4".into()
            };
            // An immediate offset of 8 on top of the address (FLAT's is unsigned 12-bit,
            // GLOBAL's signed 13-bit; both take 8).
            let asm = match prefix {
                "global" => format!("{name} {dst}, v[0:1], off offset:8\ns_waitcnt vmcnt(0)"),
                _ => format!("{name} {dst}, v[0:1] offset:8\ns_waitcnt vmcnt(0)"),
            };
            let (mut mem, base) = memory();
            let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
                w.set_exec(!OFF);
                for l in 0..64 {
                    set_addr(w, l, base + lane_offset(l, size) as u64);
                    for r in 4..8 {
                        w.vgpr[r][l] = 0xaaaa_bbbb;
                    }
                }
            })
            .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
                for l in 0..64 {
                    let want = if OFF >> l & 1 != 0 {
                        vec![0xaaaa_bbbb; size.div_ceil(4)]
                    } else {
                        loaded(
                            &bytes,
                            lane_offset(l, size) + 8,
                            size,
                            signed,
                            d16,
                            0xaaaa_bbbb,
                        )
                    };
                    for (i, &v) in want.iter().enumerate() {
                        assert_eq!(w.vgpr[4 + i][l], v, "{name} lane {l} dword {i}");
                    }
                }
            };
            chk(&w, &mem);
            exec_common::vet_mem(&w, &mut mem, chk);
        }
    }
}

#[test]
fn global_saddr_form_and_negative_offset() {
    // address = s[4:5] + v0 (32-bit unsigned) + offset (signed 13-bit: -4096..=4095).
    let mut mem = Memory::default();
    let base = mem.alloc(16384, AllocKind::Buffer).unwrap();
    let bytes: Vec<u8> = (0..16384).map(pattern).collect();
    mem.write(base, &bytes).unwrap();
    let asm = "global_load_dword v4, v0, s[4:5] offset:-4096\nglobal_load_sshort v5, v0, s[4:5] offset:4094\ns_waitcnt vmcnt(0)";
    let w = run_with(Target::Gfx900, asm, &mut mem, |w| {
        w.set_pair(4, base + 4096);
        for l in 0..16 {
            w.vgpr[0][l] = 16 * l as u32;
        }
        w.set_exec(0xffff);
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        for l in 0..16 {
            let at = 16 * l;
            assert_eq!(w.vgpr[4][l], le(&bytes[at..at + 4]), "lane {l}");
            let at = 4096 + 16 * l + 4094;
            let s = le(&bytes[at..at + 2]) as u16 as i16 as i32 as u32;
            assert_eq!(w.vgpr[5][l], s, "lane {l}");
        }
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

/// (suffix, bytes, store the high half).
const STORES: [(&str, usize, bool); 8] = [
    ("store_byte", 1, false),
    ("store_short", 2, false),
    ("store_dword", 4, false),
    ("store_dwordx2", 8, false),
    ("store_dwordx3", 12, false),
    ("store_dwordx4", 16, false),
    ("store_byte_d16_hi", 1, true),
    ("store_short_d16_hi", 2, true),
];

/// The data lane `l` stores: four distinct dwords.
fn data(l: usize, i: usize) -> u32 {
    (0x1000_0000 * (i as u32 + 1) + 0x0101_0101u32.wrapping_mul(l as u32 + 3)) ^ 0x8070_6050
}

/// Bytes a store of `size` from the data of lane `l` writes.
fn stored(l: usize, size: usize, hi: bool) -> Vec<u8> {
    let all: Vec<u8> = (0..4).flat_map(|i| data(l, i).to_le_bytes()).collect();
    if hi {
        all[2..2 + size].to_vec()
    } else {
        all[..size].to_vec()
    }
}

#[test]
fn global_and_flat_stores_every_width() {
    // global_store_byte global_store_short global_store_dword global_store_dwordx2
    // global_store_dwordx3 global_store_dwordx4 global_store_byte_d16_hi
    // global_store_short_d16_hi flat_store_byte flat_store_short flat_store_dword
    // flat_store_dwordx2 flat_store_dwordx3 flat_store_dwordx4 flat_store_byte_d16_hi
    // flat_store_short_d16_hi
    for prefix in ["global", "flat"] {
        for (suffix, size, hi) in STORES {
            let name = format!("{prefix}_{suffix}");
            let src = if size > 4 {
                format!("v[4:{}]", 3 + size / 4)
            } else {
                "v4".into()
            };
            let asm = match prefix {
                "global" => format!("{name} v[0:1], {src}, off offset:4\ns_waitcnt vmcnt(0)"),
                _ => format!("{name} v[0:1], {src} offset:4\ns_waitcnt vmcnt(0)"),
            };
            let (mut mem, base) = memory();
            let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
                w.set_exec(!OFF);
                for l in 0..64 {
                    set_addr(w, l, base + lane_offset(l, size) as u64);
                    for i in 0..4 {
                        w.vgpr[4 + i][l] = data(l, i);
                    }
                }
            })
            .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            let chk = |_: &gcnemu::wave::Wave, mem: &Memory| {
                let mut want: Vec<u8> = (0..LEN).map(pattern).collect();
                for l in (0..64).filter(|l| OFF >> l & 1 == 0) {
                    let at = lane_offset(l, size) + 4;
                    want[at..at + size].copy_from_slice(&stored(l, size, hi));
                }
                let got = mem.bytes(base, LEN).unwrap();
                if let Some(i) = (0..LEN).find(|&i| got[i] != want[i]) {
                    panic!(
                        "{name}: byte {i} (lane {}) is {:#x}, want {:#x}",
                        i / 16,
                        got[i],
                        want[i]
                    );
                }
            };
            chk(&w, &mem);
            exec_common::vet_mem(&w, &mut mem, chk);
        }
    }
}

#[test]
fn scratch_stores_and_loads_every_width() {
    // scratch_store_byte scratch_store_short scratch_store_dword scratch_store_dwordx2
    // scratch_store_dwordx3 scratch_store_dwordx4 scratch_store_byte_d16_hi
    // scratch_store_short_d16_hi
    // scratch_load_ubyte scratch_load_sbyte scratch_load_ushort scratch_load_sshort
    // scratch_load_dword scratch_load_dwordx2 scratch_load_dwordx3 scratch_load_dwordx4
    // scratch_load_ubyte_d16 scratch_load_ubyte_d16_hi scratch_load_sbyte_d16
    // scratch_load_sbyte_d16_hi scratch_load_short_d16 scratch_load_short_d16_hi
    //
    // Each lane has its own private memory. Each store width writes its data at offset 32 +
    // lane-dependent misalignment over a known dword pattern, and a dwordx4 load of the region
    // reads it back; then every load width reads from the known bytes.
    for (suffix, size, hi) in STORES {
        let name = format!("scratch_{suffix}");
        let src = if size > 4 {
            format!("v[4:{}]", 3 + size / 4)
        } else {
            "v4".into()
        };
        let asm = format!(
            "scratch_store_dwordx4 v20, v[8:11], off offset:32\n\
             scratch_store_dwordx4 v20, v[8:11], off offset:48\n\
             {name} v0, {src}, off offset:32\n\
             scratch_load_dwordx4 v[12:15], v20, off offset:32\n\
             s_waitcnt vmcnt(0)"
        );
        let (mut mem, fs) = scratch_memory();
        let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
            w.set_pair(FLAT_SCRATCH, fs);
            for l in 0..64 {
                w.vgpr[20][l] = 0;
                w.vgpr[0][l] = lane_offset(l, size) as u32 % 16;
                for i in 0..4 {
                    w.vgpr[4 + i][l] = data(l, i);
                    w.vgpr[8 + i][l] = 0x5a5a_0000 + (l * 4 + i) as u32;
                }
            }
        })
        .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
            for l in 0..64 {
                let mut want: Vec<u8> = (0..4)
                    .flat_map(|i| (0x5a5a_0000 + (l * 4 + i) as u32).to_le_bytes())
                    .collect();
                let at = lane_offset(l, size) % 16;
                want[at..at + size].copy_from_slice(&stored(l, size, hi));
                let got: Vec<u8> = (0..4)
                    .flat_map(|i| w.vgpr[12 + i][l].to_le_bytes())
                    .collect();
                assert_eq!(got, want, "{name} lane {l}");
            }
        };
        chk(&w, &mem);
        exec_common::vet_mem(&w, &mut mem, chk);
    }
    for (name, size, signed, d16) in full_names("scratch") {
        let dst = if size > 4 {
            format!("v[4:{}]", 3 + size / 4)
        } else {
            "v4".into()
        };
        let asm = format!(
            "scratch_store_dwordx4 off, v[8:11], s6 offset:64\n\
             scratch_store_dwordx4 off, v[12:15], s6 offset:80\n\
             {name} {dst}, v0, off offset:64\n\
             s_waitcnt vmcnt(0)"
        );
        let (mut mem, fs) = scratch_memory();
        let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
            w.set_pair(FLAT_SCRATCH, fs);
            w.sgpr[6] = 0;
            for l in 0..64 {
                w.vgpr[0][l] = lane_offset(l, size) as u32 % 16;
                for i in 0..8 {
                    w.vgpr[8 + i][l] = data(l, i % 4) ^ (i as u32 * 0x1111);
                }
                for r in 4..8 {
                    w.vgpr[r][l] = 0xaaaa_bbbb;
                }
            }
        })
        .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
            for l in 0..64 {
                let bytes: Vec<u8> = (0..8)
                    .flat_map(|i| (data(l, i % 4) ^ (i as u32 * 0x1111)).to_le_bytes())
                    .collect();
                let want = loaded(
                    &bytes,
                    lane_offset(l, size) % 16,
                    size,
                    signed,
                    d16,
                    0xaaaa_bbbb,
                );
                for (i, &v) in want.iter().enumerate() {
                    assert_eq!(w.vgpr[4 + i][l], v, "{name} lane {l} dword {i}");
                }
            }
        };
        chk(&w, &mem);
        exec_common::vet_mem(&w, &mut mem, chk);
    }
}

/// An atomic's new memory value from the old one, the data and the compare value.
type Atom = fn(u64, u64, u64, u32) -> u64;

/// (suffix, op). `bits` is 32 or 64: the signed ops compare in that width.
const ATOMICS: [(&str, Atom); 13] = [
    ("swap", |_, v, _, _| v),
    // cmpswap: data is {src, cmp}; memory becomes src if it equals cmp.
    ("cmpswap", |m, v, c, _| if m == c { v } else { m }),
    ("add", |m, v, _, b| trunc(m.wrapping_add(v), b)),
    ("sub", |m, v, _, b| trunc(m.wrapping_sub(v), b)),
    (
        "smin",
        |m, v, _, b| if sext(m, b) < sext(v, b) { m } else { v },
    ),
    ("umin", |m, v, _, _| m.min(v)),
    (
        "smax",
        |m, v, _, b| if sext(m, b) > sext(v, b) { m } else { v },
    ),
    ("umax", |m, v, _, _| m.max(v)),
    ("and", |m, v, _, _| m & v),
    ("or", |m, v, _, _| m | v),
    ("xor", |m, v, _, _| m ^ v),
    // inc: m >= v ? 0 : m + 1; dec: (m == 0 || m > v) ? v : m - 1 (unsigned).
    ("inc", |m, v, _, _| if m >= v { 0 } else { m + 1 }),
    ("dec", |m, v, _, _| if m == 0 || m > v { v } else { m - 1 }),
];

fn trunc(v: u64, bits: u32) -> u64 {
    if bits == 32 {
        v & 0xffff_ffff
    } else {
        v
    }
}
fn sext(v: u64, bits: u32) -> i64 {
    if bits == 32 {
        v as u32 as i32 as i64
    } else {
        v as i64
    }
}

#[test]
fn global_and_flat_atomics() {
    // global_atomic_swap global_atomic_cmpswap global_atomic_add global_atomic_sub
    // global_atomic_smin global_atomic_umin global_atomic_smax global_atomic_umax
    // global_atomic_and global_atomic_or global_atomic_xor global_atomic_inc global_atomic_dec
    // global_atomic_swap_x2 global_atomic_cmpswap_x2 global_atomic_add_x2 global_atomic_sub_x2
    // global_atomic_smin_x2 global_atomic_umin_x2 global_atomic_smax_x2 global_atomic_umax_x2
    // global_atomic_and_x2 global_atomic_or_x2 global_atomic_xor_x2 global_atomic_inc_x2
    // global_atomic_dec_x2
    // flat_atomic_swap flat_atomic_cmpswap flat_atomic_add flat_atomic_sub flat_atomic_smin
    // flat_atomic_umin flat_atomic_smax flat_atomic_umax flat_atomic_and flat_atomic_or
    // flat_atomic_xor flat_atomic_inc flat_atomic_dec flat_atomic_swap_x2 flat_atomic_cmpswap_x2
    // flat_atomic_add_x2 flat_atomic_sub_x2 flat_atomic_smin_x2 flat_atomic_umin_x2
    // flat_atomic_smax_x2 flat_atomic_umax_x2 flat_atomic_and_x2 flat_atomic_or_x2
    // flat_atomic_xor_x2 flat_atomic_inc_x2 flat_atomic_dec_x2
    //
    // Lane l works on its own 8 bytes; memory and data values are chosen per lane from edge
    // values so that signed and unsigned orders disagree, inc/dec wrap, and cmpswap both
    // matches (even lanes) and misses (odd lanes).
    let edge: [u64; 8] = [
        0,
        1,
        2,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x8000_0000_0000_0000,
        u64::MAX,
    ];
    for prefix in ["global", "flat"] {
        for bits in [32u32, 64] {
            for (op, f) in ATOMICS {
                for glc in [false, true] {
                    let x2 = if bits == 64 { "_x2" } else { "" };
                    let name = format!("{prefix}_atomic_{op}{x2}");
                    let words = (bits / 32) as usize * if op == "cmpswap" { 2 } else { 1 };
                    let data = if words == 1 {
                        "v2".to_string()
                    } else {
                        format!("v[2:{}]", 1 + words)
                    };
                    let ret = if bits == 64 { "v[8:9]" } else { "v8" };
                    let off = if prefix == "global" { ", off" } else { "" };
                    let asm = if glc {
                        format!("{name} {ret}, v[0:1], {data}{off} glc\ns_waitcnt vmcnt(0)")
                    } else {
                        format!("{name} v[0:1], {data}{off}\ns_waitcnt vmcnt(0)")
                    };
                    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
                    let mem0 = |l: usize| edge[l % 8] & mask;
                    let val = |l: usize| edge[(l / 8) % 8] & mask;
                    let cmp = |l: usize| {
                        if l.is_multiple_of(2) {
                            mem0(l)
                        } else {
                            mem0(l) ^ 1
                        }
                    };
                    let (mut mem, base) = memory();
                    for l in 0..64 {
                        mem.write_u64(
                            base + 8 * l as u64,
                            mem0(l) | if bits == 32 { 0xdead_0000_0000_0000 } else { 0 },
                        )
                        .unwrap();
                    }
                    let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
                        w.set_exec(!OFF);
                        for l in 0..64 {
                            set_addr(w, l, base + 8 * l as u64);
                            let mut d = vec![val(l)];
                            if op == "cmpswap" {
                                d.push(cmp(l));
                            }
                            let dw: Vec<u32> = d
                                .iter()
                                .flat_map(|&v| {
                                    if bits == 32 {
                                        vec![v as u32]
                                    } else {
                                        vec![v as u32, (v >> 32) as u32]
                                    }
                                })
                                .collect();
                            for (i, &x) in dw.iter().enumerate() {
                                w.vgpr[2 + i][l] = x;
                            }
                            w.vgpr[8][l] = 0x0bad_0bad;
                            w.vgpr[9][l] = 0x0bad_0bad;
                        }
                    })
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
                        for l in 0..64 {
                            let on = OFF >> l & 1 == 0;
                            let new = if on {
                                f(mem0(l), val(l), cmp(l), bits) & mask
                            } else {
                                mem0(l)
                            };
                            let got = mem.read_u64(base + 8 * l as u64).unwrap();
                            let what = format!(
                                "{asm} lane {l}: mem {:#x} data {:#x} cmp {:#x}",
                                mem0(l),
                                val(l),
                                cmp(l)
                            );
                            if bits == 32 {
                                assert_eq!(got as u32 as u64, new, "{what}: memory");
                                assert_eq!(got >> 32, 0xdead_0000, "{what}: the next dword");
                            } else {
                                assert_eq!(got, new, "{what}: memory");
                            }
                            let ret = w.vgpr[8][l] as u64
                                | if bits == 64 {
                                    (w.vgpr[9][l] as u64) << 32
                                } else {
                                    0
                                };
                            let want_ret = if glc && on {
                                mem0(l)
                            } else if bits == 64 {
                                0x0bad_0bad_0bad_0bad
                            } else {
                                0x0bad_0bad
                            };
                            assert_eq!(ret, want_ret, "{what}: returned value");
                        }
                    };
                    chk(&w, &mem);
                    exec_common::vet_mem(&w, &mut mem, chk);
                }
            }
        }
    }
}

#[test]
fn atomics_from_all_lanes_to_one_address_serialise() {
    // 64 lanes add 1..=64 to one dword: the sum is 2080 whatever the order; the returned
    // pre-op values are 64 distinct partial sums.
    let (mut mem, base) = memory();
    mem.write_u32(base, 0).unwrap();
    let w = run_with(
        Target::Gfx900,
        "global_atomic_add v3, v[0:1], v2, off glc\ns_waitcnt vmcnt(0)",
        &mut mem,
        |w| {
            for l in 0..64 {
                set_addr(w, l, base);
                w.vgpr[2][l] = l as u32 + 1;
            }
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(mem.read_u32(base).unwrap(), 2080);
        let mut olds: Vec<u32> = w.vgpr[3].to_vec();
        olds.sort();
        olds.dedup();
        assert_eq!(olds.len(), 64);
        assert!(olds.iter().all(|&o| o < 2080));
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn atomics_to_one_address_run_in_lane_order() {
    // Lane l swaps in l + 1 if the dword holds l: in lane order every lane up to the first
    // lane that is off succeeds, and every later one fails and returns where the chain broke.
    // (One host read-modify-write serves all the lanes; a per-lane run gives the same.)
    let (mut mem, base) = memory();
    mem.write_u32(base, 0).unwrap();
    let w = run_with(
        Target::Gfx900,
        "global_atomic_cmpswap v3, v[0:1], v[4:5], off glc\ns_waitcnt vmcnt(0)",
        &mut mem,
        |w| {
            w.set_exec(!OFF);
            for l in 0..64 {
                set_addr(w, l, base);
                w.vgpr[3][l] = 0xdead;
                w.vgpr[4][l] = l as u32 + 1;
                w.vgpr[5][l] = l as u32;
            }
        },
    )
    .unwrap();
    assert_eq!(mem.read_u32(base).unwrap(), 5);
    for l in 0..64 {
        let want = match l {
            5 | 33 => 0xdead,
            0..=4 => l as u32,
            _ => 5,
        };
        assert_eq!(w.vgpr[3][l], want, "lane {l}");
    }
}

#[test]
fn atomics_to_one_address_in_page_padding_count_every_lane() {
    // Past the end of a 64-byte buffer but inside its page: the host backing is there, and each
    // lane's access is counted for the past-end report, as one by one.
    // Host placement (the HIP runtime's): allocations are host pages, padded to a whole page.
    let mut mem = Memory::with_placement(1 << 30, gcnemu::memory::Placement::Host);
    let base = mem.alloc(64, AllocKind::Buffer).unwrap();
    let _ = mem.take_padding_accesses();
    run_with(
        Target::Gfx900,
        "global_atomic_add v[0:1], v2, off\ns_waitcnt vmcnt(0)",
        &mut mem,
        |w| {
            for l in 0..64 {
                set_addr(w, l, base + 128);
                w.vgpr[2][l] = 1;
            }
        },
    )
    .unwrap();
    assert_eq!(mem.take_padding_accesses().0, 64);
}

#[test]
fn flat_addresses_route_to_private_memory() {
    // A flat address in the private aperture (2 << 48) reaches the lane's scratch memory: a
    // scratch store is visible to a flat load of the same offset, and a flat store to a
    // scratch load.
    let asm = "scratch_store_dword v2, v3, off offset:16\nflat_load_dword v4, v[0:1] offset:16\nflat_store_dword v[0:1], v5 offset:20\nscratch_load_dword v6, v2, off offset:20\ns_waitcnt vmcnt(0)";
    let (mut mem, fs) = scratch_memory();
    let w = run_with(Target::Gfx900, asm, &mut mem, |w| {
        w.set_pair(FLAT_SCRATCH, fs);
        for l in 0..64 {
            set_addr(w, l, 2 << 48);
            w.vgpr[2][l] = 0;
            w.vgpr[3][l] = 0x1000 + l as u32;
            w.vgpr[5][l] = 0x2000 + l as u32;
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        for l in 0..64 {
            assert_eq!(w.vgpr[4][l], 0x1000 + l as u32, "lane {l}");
            assert_eq!(w.vgpr[6][l], 0x2000 + l as u32, "lane {l}");
        }
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}
