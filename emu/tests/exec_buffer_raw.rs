//! Untyped MUBUF ops: loads and stores of every width (sign extension, d16 halves), range
//! checking (whole for up to a dword, per dword for dwordx2..x4), offen/idxen/add_tid/swizzle
//! addressing, every atomic with and without glc, and the cache write-back/invalidate no-ops.
//! Expected values are worked out by hand from the ISA's definitions.

mod exec_common;
use exec_common::run_with;
use gcn_isa::Target;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::Wave;

fn memory(bytes: &[u8]) -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(1024, AllocKind::Buffer).unwrap();
    mem.write(base, bytes).unwrap();
    (mem, base)
}

/// Lane 0 only; V# in s[4:7] with `stride` and `num_records`, word 3 `w3`.
fn vsharp(w: &mut Wave, base: u64, stride: u32, num_records: u32, w3: u32) {
    w.set_exec(1);
    w.sgpr[4] = base as u32;
    w.sgpr[5] = (base >> 32) as u32 & 0xffff | stride << 16;
    w.sgpr[6] = num_records;
    w.sgpr[7] = w3;
}

fn run(asm: &str, mem: &mut Memory, setup: impl FnOnce(&mut Wave)) -> Wave {
    run_with(
        Target::Gfx900,
        &format!("{asm}\ns_waitcnt vmcnt(0)"),
        mem,
        setup,
    )
    .unwrap_or_else(|e| panic!("{asm}: {e}"))
}

const BYTES: [u8; 16] = [
    0x81, 0x7f, 0x34, 0x92, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
];

#[test]
fn loads_of_every_width_and_per_dword_range_checks() {
    let (mut mem, base) = memory(&BYTES);
    let w = run(
        "buffer_load_ubyte v1, off, s[4:7], 0\nbuffer_load_sbyte v2, off, s[4:7], 0\nbuffer_load_ushort v3, off, s[4:7], 0 offset:2\nbuffer_load_sshort v4, off, s[4:7], 0 offset:2\nbuffer_load_dword v5, off, s[4:7], 0 offset:4\nbuffer_load_dwordx2 v[6:7], off, s[4:7], 0 offset:4\nbuffer_load_dwordx3 v[8:10], off, s[4:7], 0\nbuffer_load_dwordx4 v[11:14], off, s[4:7], 0 offset:4\nbuffer_load_dword v15, off, s[4:7], 0 offset:10\nbuffer_load_ushort v16, off, s[4:7], 0 offset:10",
        &mut mem,
        // num_records 12: dword 3 (bytes 12..16) is out of range.
        |w| vsharp(w, base, 0, 12, 0),
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        let v = |r: usize| w.vgpr[r][0];
        assert_eq!([v(1), v(2)], [0x81, 0xffff_ff81]);
        assert_eq!([v(3), v(4)], [0x9234, 0xffff_9234]);
        assert_eq!(v(5), 0x4433_2211);
        assert_eq!([v(6), v(7)], [0x4433_2211, 0x8877_6655]);
        assert_eq!([v(8), v(9), v(10)], [0x9234_7f81, 0x4433_2211, 0x8877_6655]);
        // Dwords at 4 and 8 are in range, 12 is not: it reads 0 (and so does the 4th).
        assert_eq!(
            [v(11), v(12), v(13), v(14)],
            [0x4433_2211, 0x8877_6655, 0, 0]
        );
        // A dword at 10 straddles the end (10 + 4 > 12): all out; a short at 10 fits.
        assert_eq!([v(15), v(16)], [0, 0x8877]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn d16_loads_and_stores() {
    let (mut mem, base) = memory(&BYTES);
    let w = run(
        "buffer_load_ubyte_d16_hi v1, off, s[4:7], 0\nbuffer_load_sbyte_d16 v2, off, s[4:7], 0\nbuffer_load_sbyte_d16_hi v3, off, s[4:7], 0 offset:1\nbuffer_store_byte_d16_hi v4, off, s[4:7], 0 offset:8",
        &mut mem,
        |w| {
            vsharp(w, base, 0, 64, 0);
            for r in 1..4 {
                w.vgpr[r][0] = 0x5555_6666;
            }
            w.vgpr[4][0] = 0x00ab_0000;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(w.vgpr[1][0], 0x0081_6666);
        assert_eq!(w.vgpr[2][0], 0x5555_ff81);
        assert_eq!(w.vgpr[3][0], 0x007f_6666);
        assert_eq!(mem.bytes(base + 8, 2).unwrap(), &[0xab, 0x66]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn stores_of_every_width_drop_out_of_range_dwords() {
    let (mut mem, base) = memory(&[0xee; 32]);
    let _w = run(
        "buffer_store_byte v1, off, s[4:7], 0\nbuffer_store_short v1, off, s[4:7], 0 offset:2\nbuffer_store_dword v2, off, s[4:7], 0 offset:4\nbuffer_store_dwordx2 v[2:3], off, s[4:7], 0 offset:8\nbuffer_store_dwordx3 v[2:4], off, s[4:7], 0 offset:16\nbuffer_store_dwordx4 v[2:5], off, s[4:7], 0 offset:20",
        &mut mem,
        // num_records 28: the dwordx4 at 20 writes its first two dwords only.
        |w| {
            vsharp(w, base, 0, 28, 0);
            w.vgpr[1][0] = 0x1234_5678;
            for (r, v) in [(2, 0xa0a0_a0a0), (3, 0xb1b1_b1b1), (4, 0xc2c2_c2c2), (5, 0xd3d3_d3d3)] {
                w.vgpr[r][0] = v;
            }
        },
    );
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        let m = mem.bytes(base, 32).unwrap();
        assert_eq!(m[0..4], [0x78, 0xee, 0x78, 0x56]);
        assert_eq!(m[4..8], [0xa0; 4]);
        assert_eq!(m[8..16], [0xa0, 0xa0, 0xa0, 0xa0, 0xb1, 0xb1, 0xb1, 0xb1]);
        assert_eq!(m[16..20], [0xa0; 4]);
        // dwordx3 at 16 wrote 16..28; then dwordx4 at 20 overwrote 20..28; 28.. is untouched.
        assert_eq!(m[20..28], [0xa0, 0xa0, 0xa0, 0xa0, 0xb1, 0xb1, 0xb1, 0xb1]);
        assert_eq!(m[28..32], [0xee; 4]);
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
}

#[test]
fn offen_idxen_add_tid_and_swizzle_addressing() {
    let (mut mem, base) = memory(&[0; 1024]);
    let words: Vec<u8> = (0..256u32).flat_map(|i| i.to_le_bytes()).collect();
    mem.write(base, &words).unwrap();
    // idxen + offen: VADDR = index, VADDR+1 = offset; address = index * stride + offset + inst
    // offset + soffset = 3 * 16 + 8 + 4 + 4 = 64 -> dword 16.
    let w = run(
        "s_mov_b32 s8, 4\nbuffer_load_dword v3, v[0:1], s[4:7], s8 idxen offen offset:4",
        &mut mem,
        |w| {
            vsharp(w, base, 16, 4, 0);
            w.vgpr[0][0] = 3;
            w.vgpr[1][0] = 8;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(w.vgpr[3][0], 16);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
    // ADD_TID_ENABLE: lane l adds l to the index; lanes 0 and 5 with stride 8 read dwords 0, 10.
    let w = run("buffer_load_dword v3, off, s[4:7], 0", &mut mem, |w| {
        vsharp(w, base, 8, 64, 1 << 23);
        w.set_exec(1 | 1 << 5);
    });
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!([w.vgpr[3][0], w.vgpr[3][5]], [0, 10]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
    // Swizzled: element size 4 (field 1), index stride 8 (field 0), stride 8. Index 9, offset 4:
    // (9 / 8 * 8 + 4 / 4 * 4) * 8 + (9 % 8) * 4 + 0 = 96 + 4 = 100 -> dword 25.
    let w = run(
        "buffer_load_dword v3, v0, s[4:7], 0 idxen offset:4",
        &mut mem,
        |w| {
            vsharp(w, base, 8, 64, 1 << 19);
            w.sgpr[5] |= 1 << 31;
            w.vgpr[0][0] = 9;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(w.vgpr[3][0], 25);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

/// (x1 mnemonic, x2 mnemonic, memory before, data, comparand, memory after)
const ATOMICS: &[(&str, &str, u64, u64, u64, u64)] = &[
    ("buffer_atomic_swap", "buffer_atomic_swap_x2", 5, 9, 0, 9),
    (
        "buffer_atomic_cmpswap",
        "buffer_atomic_cmpswap_x2",
        4,
        9,
        4,
        9,
    ),
    (
        "buffer_atomic_cmpswap",
        "buffer_atomic_cmpswap_x2",
        5,
        9,
        4,
        5,
    ),
    (
        "buffer_atomic_add",
        "buffer_atomic_add_x2",
        u64::MAX,
        2,
        0,
        1,
    ),
    (
        "buffer_atomic_sub",
        "buffer_atomic_sub_x2",
        1,
        2,
        0,
        u64::MAX,
    ),
    (
        "buffer_atomic_smin",
        "buffer_atomic_smin_x2",
        5,
        u64::MAX,
        0,
        u64::MAX,
    ),
    (
        "buffer_atomic_umin",
        "buffer_atomic_umin_x2",
        5,
        u64::MAX,
        0,
        5,
    ),
    (
        "buffer_atomic_smax",
        "buffer_atomic_smax_x2",
        u64::MAX,
        1,
        0,
        1,
    ),
    (
        "buffer_atomic_umax",
        "buffer_atomic_umax_x2",
        5,
        u64::MAX,
        0,
        u64::MAX,
    ),
    (
        "buffer_atomic_and",
        "buffer_atomic_and_x2",
        0xf0f0,
        0xff00,
        0,
        0xf000,
    ),
    (
        "buffer_atomic_or",
        "buffer_atomic_or_x2",
        0xf0f0,
        0x0f00,
        0,
        0xfff0,
    ),
    (
        "buffer_atomic_xor",
        "buffer_atomic_xor_x2",
        0xf0f0,
        0xffff,
        0,
        0x0f0f,
    ),
    // inc: old >= data ? 0 : old + 1; dec: (old == 0 || old > data) ? data : old - 1.
    ("buffer_atomic_inc", "buffer_atomic_inc_x2", 7, 7, 0, 0),
    ("buffer_atomic_inc", "buffer_atomic_inc_x2", 6, 7, 0, 7),
    ("buffer_atomic_dec", "buffer_atomic_dec_x2", 0, 9, 0, 9),
    ("buffer_atomic_dec", "buffer_atomic_dec_x2", 3, 9, 0, 2),
];

#[test]
fn atomics_with_and_without_glc() {
    for &(x1, x2, init, data, cmp, new) in ATOMICS {
        for wide in [false, true] {
            let (name, mask) = if wide {
                (x2, u64::MAX)
            } else {
                (x1, 0xffff_ffff)
            };
            let cmpswap = name.contains("cmpswap");
            let (glc_regs, plain_regs) = match (wide, cmpswap) {
                (false, false) => ("v2", "v6"),
                (false, true) => ("v[2:3]", "v[6:7]"),
                (true, false) => ("v[2:3]", "v[6:7]"),
                (true, true) => ("v[2:5]", "v[6:9]"),
            };
            let bytes: Vec<u8> = [init & mask, init & mask]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            let (mut mem, base) = memory(&bytes);
            let asm = format!(
                "{name} {glc_regs}, off, s[4:7], 0 glc\n{name} {plain_regs}, off, s[4:7], 0 offset:8"
            );
            let w = run(&asm, &mut mem, |w| {
                vsharp(w, base, 0, 64, 0);
                let n = if wide { 2 } else { 1 };
                for start in [2, 6] {
                    for (k, v) in [data & mask, cmp & mask].iter().enumerate() {
                        w.vgpr[start + k * n][0] = *v as u32;
                        if wide {
                            w.vgpr[start + k * n + 1][0] = (*v >> 32) as u32;
                        }
                    }
                }
            });
            let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
                let get = |r: usize| {
                    w.vgpr[r][0] as u64
                        | if wide {
                            (w.vgpr[r + 1][0] as u64) << 32
                        } else {
                            0
                        }
                };
                let size = if wide { 8 } else { 4 };
                let read = |off: u64| {
                    let mut b = [0u8; 8];
                    b[..size].copy_from_slice(mem.bytes(base + off, size).unwrap());
                    u64::from_le_bytes(b)
                };
                assert_eq!(get(2), init & mask, "{name} glc returns the old value");
                assert_eq!(get(6), data & mask, "{name} without glc leaves VDATA");
                assert_eq!(read(0), new & mask, "{name} memory");
                assert_eq!(read(8), new & mask, "{name} memory (no glc)");
            };
            chk(&w, &mem);
            exec_common::vet_mem(&w, &mut mem, chk);
        }
    }
}

#[test]
fn atomics_out_of_range_do_nothing() {
    let (mut mem, base) = memory(&[7, 0, 0, 0]);
    let w = run(
        "buffer_atomic_add v2, off, s[4:7], 0 glc\nbuffer_wbinvl1\nbuffer_wbinvl1_vol",
        &mut mem,
        |w| {
            vsharp(w, base, 0, 0, 0);
            w.vgpr[2][0] = 5;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(mem.bytes(base, 4).unwrap(), &[7, 0, 0, 0]);
        // The returned value of an out-of-range atomic is 0, like a load.
        assert_eq!(w.vgpr[2][0], 0);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}
