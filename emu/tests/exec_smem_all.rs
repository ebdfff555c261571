//! Every SMEM op: s_load_dword* (all widths, immediate and SGPR offsets, the address's low two
//! bits ignored), s_buffer_load_dword* (V# base, dwords past num_records read 0), stores,
//! every s_atomic_* / s_buffer_atomic_* in 32- and 64-bit width with and without glc, and the
//! cache-control, probe and timer ops. Expected values come from a byte model of memory and the
//! ISA's definitions (Vega ISA, "Scalar Memory Operations").

mod exec_common;
use exec_common::run_with;
use gcn_isa::Target;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::Wave;

fn word(i: usize) -> u32 {
    0x9e37_79b9u32.wrapping_mul(i as u32 + 1) ^ 0x8000_0001
}

/// 256 bytes of known dwords; returns the memory and the base address.
fn memory() -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(256, AllocKind::Buffer).unwrap();
    for i in 0..64 {
        mem.write_u32(base + 4 * i as u64, word(i)).unwrap();
    }
    (mem, base)
}

/// A V# in s[16:19] for `base` with `num_records` bytes, stride 0.
fn vsharp(w: &mut Wave, base: u64, num_records: u32) {
    w.sgpr[16] = base as u32;
    w.sgpr[17] = (base >> 32) as u32 & 0xffff;
    w.sgpr[18] = num_records;
    w.sgpr[19] = 0;
}

#[test]
fn loads_every_width_and_offset_form() {
    let loads: [(&str, usize); 5] = [
        ("s_load_dword", 1),
        ("s_load_dwordx2", 2),
        ("s_load_dwordx4", 4),
        ("s_load_dwordx8", 8),
        ("s_load_dwordx16", 16),
    ];
    for (name, n) in loads {
        let dst = if n == 1 {
            "s20".to_string()
        } else {
            format!("s[20:{}]", 19 + n)
        };
        // Immediate offset 0x10; SGPR offset s6 = 0x24; base + 2 with the low bits dropped.
        for (asm, first) in [
            (
                format!("{name} {dst}, s[0:1], 0x10\ns_waitcnt lgkmcnt(0)"),
                4,
            ),
            (format!("{name} {dst}, s[0:1], s6\ns_waitcnt lgkmcnt(0)"), 9),
            (
                format!("{name} {dst}, s[2:3], 0x8\ns_waitcnt lgkmcnt(0)"),
                2,
            ),
        ] {
            let (mut mem, base) = memory();
            let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
                w.set_pair(0, base);
                w.set_pair(2, base + 2);
                w.sgpr[6] = 0x24;
                w.sgpr[20 + n] = 0x5555;
            })
            .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
                for i in 0..n {
                    assert_eq!(w.sgpr[20 + i], word(first + i), "{asm}: dword {i}");
                }
                assert_eq!(w.sgpr[20 + n], 0x5555, "{asm}: wrote past its width");
            };
            chk(&w, &mem);
            exec_common::vet_mem(&w, &mut mem, chk);
        }
    }
}

#[test]
fn buffer_loads_read_zero_past_num_records() {
    let loads: [(&str, usize); 5] = [
        ("s_buffer_load_dword", 1),
        ("s_buffer_load_dwordx2", 2),
        ("s_buffer_load_dwordx4", 4),
        ("s_buffer_load_dwordx8", 8),
        ("s_buffer_load_dwordx16", 16),
    ];
    for (name, n) in loads {
        let dst = if n == 1 {
            "s20".to_string()
        } else {
            format!("s[20:{}]", 19 + n)
        };
        let asm = format!("{name} {dst}, s[16:19], 0x8\ns_waitcnt lgkmcnt(0)");
        // num_records = 0x14: dwords at byte offsets 0x8..0x14 exist (three of them).
        let (mut mem, base) = memory();
        let w = run_with(Target::Gfx900, &asm, &mut mem, |w| vsharp(w, base, 0x14))
            .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
            for i in 0..n {
                let want = if i < 3 { word(2 + i) } else { 0 };
                assert_eq!(w.sgpr[20 + i], want, "{asm}: dword {i}");
            }
        };
        chk(&w, &mem);
        exec_common::vet_mem(&w, &mut mem, chk);
    }
}

#[test]
fn stores_every_width() {
    let stores: [(&str, usize, bool); 6] = [
        ("s_store_dword", 1, false),
        ("s_store_dwordx2", 2, false),
        ("s_store_dwordx4", 4, false),
        ("s_buffer_store_dword", 1, true),
        ("s_buffer_store_dwordx2", 2, true),
        ("s_buffer_store_dwordx4", 4, true),
    ];
    for (name, n, buffer) in stores {
        let src = if n == 1 {
            "s20".to_string()
        } else {
            format!("s[20:{}]", 19 + n)
        };
        let base_reg = if buffer { "s[16:19]" } else { "s[0:1]" };
        // One store in range at 0x20, and (buffer forms) one at 0x30 past num_records = 0x30,
        // which is dropped.
        let asm = format!(
            "{name} {src}, {base_reg}, 0x20\n{name} {src}, {base_reg}, 0x30\ns_waitcnt lgkmcnt(0)"
        );
        let (mut mem, base) = memory();
        let _w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
            w.set_pair(0, base);
            vsharp(w, base, 0x30);
            for i in 0..4 {
                w.sgpr[20 + i] = 0xc0de_0000 + i as u32;
            }
        })
        .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
            for i in 0..64 {
                let got = mem.read_u32(base + 4 * i as u64).unwrap();
                let stored_at = |o: usize| (o..o + n).contains(&i);
                let want = if stored_at(8) {
                    0xc0de_0000 + (i - 8) as u32
                } else if stored_at(12) && !buffer {
                    0xc0de_0000 + (i - 12) as u32
                } else {
                    word(i)
                };
                assert_eq!(got, want, "{name}: dword {i}");
            }
        };
        chk(&_w, &mem);
        exec_common::vet_mem(&_w, &mut mem, chk);
    }
}

type Atom = fn(u64, u64, u64, u32) -> u64;

/// The ISA's atomic definitions: new memory value from (old, data, compare, bits).
const ATOMICS: [(&str, Atom); 13] = [
    ("swap", |_, v, _, _| v),
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
fn atomics_every_op_both_widths() {
    // s_atomic_swap s_atomic_cmpswap s_atomic_add s_atomic_sub s_atomic_smin s_atomic_umin
    // s_atomic_smax s_atomic_umax s_atomic_and s_atomic_or s_atomic_xor s_atomic_inc
    // s_atomic_dec s_atomic_swap_x2 s_atomic_cmpswap_x2 s_atomic_add_x2 s_atomic_sub_x2
    // s_atomic_smin_x2 s_atomic_umin_x2 s_atomic_smax_x2 s_atomic_umax_x2 s_atomic_and_x2
    // s_atomic_or_x2 s_atomic_xor_x2 s_atomic_inc_x2 s_atomic_dec_x2
    // s_buffer_atomic_swap s_buffer_atomic_cmpswap s_buffer_atomic_add s_buffer_atomic_sub
    // s_buffer_atomic_smin s_buffer_atomic_umin s_buffer_atomic_smax s_buffer_atomic_umax
    // s_buffer_atomic_and s_buffer_atomic_or s_buffer_atomic_xor s_buffer_atomic_inc
    // s_buffer_atomic_dec s_buffer_atomic_swap_x2 s_buffer_atomic_cmpswap_x2
    // s_buffer_atomic_add_x2 s_buffer_atomic_sub_x2 s_buffer_atomic_smin_x2
    // s_buffer_atomic_umin_x2 s_buffer_atomic_smax_x2 s_buffer_atomic_umax_x2
    // s_buffer_atomic_and_x2 s_buffer_atomic_or_x2 s_buffer_atomic_xor_x2
    // s_buffer_atomic_inc_x2 s_buffer_atomic_dec_x2
    let edge: [u64; 6] = [
        0,
        1,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff_ffff_ffff,
        0x8000_0000_0000_0005,
    ];
    for buffer in [false, true] {
        for bits in [32u32, 64] {
            for (op, f) in ATOMICS {
                for glc in [false, true] {
                    let x2 = if bits == 64 { "_x2" } else { "" };
                    let name = if buffer {
                        format!("s_buffer_atomic_{op}{x2}")
                    } else {
                        format!("s_atomic_{op}{x2}")
                    };
                    let words = (bits / 32) as usize * if op == "cmpswap" { 2 } else { 1 };
                    let data = if words == 1 {
                        "s20".to_string()
                    } else {
                        format!("s[20:{}]", 19 + words)
                    };
                    let base_reg = if buffer { "s[16:19]" } else { "s[0:1]" };
                    let asm = format!(
                        "{name} {data}, {base_reg}, 0x10{}\ns_waitcnt lgkmcnt(0)",
                        if glc { " glc" } else { "" }
                    );
                    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
                    for (k, &m0) in edge.iter().enumerate() {
                        let m0 = m0 & mask;
                        let v = edge[(k + 2) % edge.len()] & mask;
                        for cmp in [m0, m0 ^ 1] {
                            let (mut mem, base) = memory();
                            mem.write_u64(
                                base + 0x10,
                                m0 | if bits == 32 { 0x7777_0000_0000_0000 } else { 0 },
                            )
                            .unwrap();
                            let w = run_with(Target::Gfx900, &asm, &mut mem, |w| {
                                w.set_pair(0, base);
                                vsharp(w, base, 0x100);
                                let mut d = vec![v];
                                if op == "cmpswap" {
                                    d.push(cmp);
                                }
                                let dw: Vec<u32> = d
                                    .iter()
                                    .flat_map(|&x| {
                                        if bits == 32 {
                                            vec![x as u32]
                                        } else {
                                            vec![x as u32, (x >> 32) as u32]
                                        }
                                    })
                                    .collect();
                                for (i, &x) in dw.iter().enumerate() {
                                    w.sgpr[20 + i] = x;
                                }
                            })
                            .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                            let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
                                let what = format!("{asm}: mem {m0:#x} data {v:#x} cmp {cmp:#x}");
                                let got = mem.read_u64(base + 0x10).unwrap();
                                let want = f(m0, v, cmp, bits) & mask;
                                if bits == 32 {
                                    assert_eq!(got & 0xffff_ffff, want, "{what}: memory");
                                    assert_eq!(got >> 32, 0x7777_0000, "{what}: next dword");
                                } else {
                                    assert_eq!(got, want, "{what}: memory");
                                }
                                // glc returns the pre-op value in the first data SGPR(s); without
                                // it they keep the data.
                                let ret = w.sgpr[20] as u64
                                    | if bits == 64 {
                                        (w.sgpr[21] as u64) << 32
                                    } else {
                                        0
                                    };
                                assert_eq!(ret, if glc { m0 } else { v }, "{what}: SDATA");
                            };
                            chk(&w, &mem);
                            exec_common::vet_mem(&w, &mut mem, chk);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn buffer_atomics_past_num_records_do_nothing() {
    let (mut mem, base) = memory();
    let _w = run_with(
        Target::Gfx900,
        "s_buffer_atomic_add s20, s[16:19], 0x10 glc\ns_waitcnt lgkmcnt(0)",
        &mut mem,
        |w| {
            vsharp(w, base, 0x10);
            w.sgpr[20] = 5;
        },
    )
    .unwrap();
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(mem.read_u32(base + 0x10).unwrap(), word(4));
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
    // Out of range (0x10 + 4 > num_records): no memory access. What SDATA holds then is not
    // specified, so only memory is checked.
}

#[test]
fn cache_controls_probes_and_timers() {
    // The emulator has no scalar cache: invalidates, write-backs, discards and ATC probes
    // change no state the program can see, and execution continues. s_memtime and
    // s_memrealtime count up: a later read is larger.
    let (mut mem, base) = memory();
    let asm = "s_memtime s[10:11]\ns_dcache_inv\ns_dcache_wb\ns_dcache_inv_vol\ns_dcache_wb_vol\ns_atc_probe 7, s[0:1], 0x10\ns_atc_probe_buffer 7, s[16:19], 0x10\ns_dcache_discard s[0:1], 0x0\ns_dcache_discard_x2 s[0:1], 0x0\ns_memrealtime s[12:13]\ns_memtime s[14:15]\ns_waitcnt lgkmcnt(0)\ns_load_dword s20, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)";
    let w = run_with(Target::Gfx900, asm, &mut mem, |w| {
        w.set_pair(0, base);
        vsharp(w, base, 0x100);
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert!(
            w.pair(14) > w.pair(10),
            "s_memtime went backwards: {} then {}",
            w.pair(10),
            w.pair(14)
        );
        assert!(w.pair(12) >= w.pair(10) && w.pair(12) <= w.pair(14));
        assert_eq!(w.sgpr[20], word(0));
        for i in 0..64 {
            assert_eq!(mem.read_u32(base + 4 * i as u64).unwrap(), word(i));
        }
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}
