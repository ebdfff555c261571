//! DS (LDS) instruction tests: every atomic with and without return (32/64-bit, integer and
//! float, with wrap-around, signedness, NaN and ±0 edges), the exchanges, src2 forms, append/
//! consume, add-tid addressing, read/write widths incl. read2/write2(st64), and the cross-lane
//! swizzle/permute ops. Expected values are worked out by hand from the ISA's definitions.

mod exec_common;
use exec_common::run;
use gcnemu::fault::Fault;
use gcnemu::wave::Wave;

/// One atomic case: the plain and returning mnemonics ("" if the form does not exist), the
/// memory value before, DATA0, DATA1 and the memory value after.
struct Case {
    plain: &'static str,
    rtn: &'static str,
    init: u64,
    d0: u64,
    d1: u64,
    new: u64,
}

const fn c(plain: &'static str, rtn: &'static str, init: u64, d0: u64, d1: u64, new: u64) -> Case {
    Case {
        plain,
        rtn,
        init,
        d0,
        d1,
        new,
    }
}

const NAN32: u64 = 0x7fc0_0000;
const NEG0_32: u64 = 0x8000_0000;
const ONE32: u64 = 0x3f80_0000;
const TWO32: u64 = 0x4000_0000;
const NAN64: u64 = 0x7ff8_0000_0000_0000;
const NEG0_64: u64 = 0x8000_0000_0000_0000;
const ONE64: u64 = 0x3ff0_0000_0000_0000;
const TWO64: u64 = 0x4000_0000_0000_0000;

/// 32-bit atomics. The second-operand ops (mskor, cmpst, wrap) take DATA1 as well.
const CASES32: &[Case] = &[
    c("ds_add_u32", "ds_add_rtn_u32", 0xffff_ffff, 2, 0, 1),
    c("ds_sub_u32", "ds_sub_rtn_u32", 1, 2, 0, 0xffff_ffff),
    c("ds_rsub_u32", "ds_rsub_rtn_u32", 3, 10, 0, 7),
    // inc: old >= data ? 0 : old + 1.
    c("ds_inc_u32", "ds_inc_rtn_u32", 7, 7, 0, 0),
    c("ds_inc_u32", "ds_inc_rtn_u32", 6, 7, 0, 7),
    // dec: (old == 0 || old > data) ? data : old - 1.
    c("ds_dec_u32", "ds_dec_rtn_u32", 0, 9, 0, 9),
    c("ds_dec_u32", "ds_dec_rtn_u32", 10, 9, 0, 9),
    c("ds_dec_u32", "ds_dec_rtn_u32", 3, 9, 0, 2),
    c(
        "ds_min_i32",
        "ds_min_rtn_i32",
        5,
        0xffff_ffff,
        0,
        0xffff_ffff,
    ),
    c(
        "ds_max_i32",
        "ds_max_rtn_i32",
        0x8000_0000,
        0x7fff_ffff,
        0,
        0x7fff_ffff,
    ),
    c("ds_min_u32", "ds_min_rtn_u32", 5, 0xffff_ffff, 0, 5),
    c(
        "ds_max_u32",
        "ds_max_rtn_u32",
        5,
        0xffff_ffff,
        0,
        0xffff_ffff,
    ),
    c("ds_and_b32", "ds_and_rtn_b32", 0xf0f0, 0xff00, 0, 0xf000),
    c("ds_or_b32", "ds_or_rtn_b32", 0xf0f0, 0x0f00, 0, 0xfff0),
    c("ds_xor_b32", "ds_xor_rtn_b32", 0xf0f0, 0xffff, 0, 0x0f0f),
    // mskor: (old & ~DATA0) | DATA1.
    c("ds_mskor_b32", "ds_mskor_rtn_b32", 0xff, 0x0f, 0x100, 0x1f0),
    c("", "ds_wrxchg_rtn_b32", 5, 9, 0, 9),
    // cmpst: DATA0 is the comparand, DATA1 the new value.
    c("ds_cmpst_b32", "ds_cmpst_rtn_b32", 4, 4, 9, 9),
    c("ds_cmpst_b32", "ds_cmpst_rtn_b32", 5, 4, 9, 5),
    // Float compare: -0 == +0; NaN equals nothing, not even the same bits.
    c("ds_cmpst_f32", "ds_cmpst_rtn_f32", NEG0_32, 0, ONE32, ONE32),
    c(
        "ds_cmpst_f32",
        "ds_cmpst_rtn_f32",
        NAN32,
        NAN32,
        ONE32,
        NAN32,
    ),
    c("ds_cmpst_f32", "ds_cmpst_rtn_f32", ONE32, TWO32, 0, ONE32),
    // Float min/max: a NaN operand loses; -0 < +0.
    c("ds_min_f32", "ds_min_rtn_f32", NAN32, TWO32, 0, TWO32),
    c("ds_min_f32", "ds_min_rtn_f32", 0, NEG0_32, 0, NEG0_32),
    c("ds_max_f32", "ds_max_rtn_f32", NEG0_32, 0, 0, 0),
    c("ds_max_f32", "ds_max_rtn_f32", ONE32, NAN32, 0, ONE32),
    c("ds_add_f32", "ds_add_rtn_f32", ONE32, TWO32, 0, 0x4040_0000),
    // wrap: old >= DATA0 ? old - DATA0 : old + DATA1.
    c("", "ds_wrap_rtn_b32", 10, 3, 100, 7),
    c("", "ds_wrap_rtn_b32", 2, 3, 100, 102),
    c("", "ds_wrap_rtn_b32", 3, 3, 100, 0),
];

const CASES64: &[Case] = &[
    c("ds_add_u64", "ds_add_rtn_u64", u64::MAX, 2, 0, 1),
    c("ds_sub_u64", "ds_sub_rtn_u64", 0, 1, 0, u64::MAX),
    c("ds_rsub_u64", "ds_rsub_rtn_u64", 3, 10, 0, 7),
    c("ds_inc_u64", "ds_inc_rtn_u64", 1 << 32, 1 << 32, 0, 0),
    c(
        "ds_inc_u64",
        "ds_inc_rtn_u64",
        0xffff_ffff,
        1 << 32,
        0,
        1 << 32,
    ),
    c("ds_dec_u64", "ds_dec_rtn_u64", 0, 9, 0, 9),
    c(
        "ds_dec_u64",
        "ds_dec_rtn_u64",
        1 << 32,
        1 << 33,
        0,
        0xffff_ffff,
    ),
    c("ds_min_i64", "ds_min_rtn_i64", 5, u64::MAX, 0, u64::MAX),
    c("ds_max_i64", "ds_max_rtn_i64", u64::MAX, 1, 0, 1),
    c("ds_min_u64", "ds_min_rtn_u64", 5, u64::MAX, 0, 5),
    c("ds_max_u64", "ds_max_rtn_u64", 5, 1 << 32, 0, 1 << 32),
    c(
        "ds_and_b64",
        "ds_and_rtn_b64",
        0xff00_ff00_ff00_ff00,
        0x0ff0_0ff0_0ff0_0ff0,
        0,
        0x0f00_0f00_0f00_0f00,
    ),
    c(
        "ds_or_b64",
        "ds_or_rtn_b64",
        0xf0,
        1 << 32,
        0,
        0x1_0000_00f0,
    ),
    c(
        "ds_xor_b64",
        "ds_xor_rtn_b64",
        0xffff_0000_ffff_0000,
        u64::MAX,
        0,
        0x0000_ffff_0000_ffff,
    ),
    c(
        "ds_mskor_b64",
        "ds_mskor_rtn_b64",
        0xffff_ffff_0000_00ff,
        0xffff_0000_0000_000f,
        1 << 48,
        0x0001_ffff_0000_00f0,
    ),
    c(
        "",
        "ds_wrxchg_rtn_b64",
        5,
        0x1234_5678_9abc_def0,
        0,
        0x1234_5678_9abc_def0,
    ),
    c(
        "ds_cmpst_b64",
        "ds_cmpst_rtn_b64",
        0x1_0000_0004,
        0x1_0000_0004,
        9,
        9,
    ),
    // Only the low dwords match: no store.
    c(
        "ds_cmpst_b64",
        "ds_cmpst_rtn_b64",
        0x2_0000_0004,
        0x1_0000_0004,
        9,
        0x2_0000_0004,
    ),
    c(
        "ds_cmpst_f64",
        "ds_cmpst_rtn_f64",
        NEG0_64,
        0,
        0x3ff8_0000_0000_0000,
        0x3ff8_0000_0000_0000,
    ),
    c(
        "ds_cmpst_f64",
        "ds_cmpst_rtn_f64",
        NAN64,
        NAN64,
        ONE64,
        NAN64,
    ),
    c(
        "ds_min_f64",
        "ds_min_rtn_f64",
        NAN64,
        0xc000_0000_0000_0000,
        0,
        0xc000_0000_0000_0000,
    ),
    c("ds_min_f64", "ds_min_rtn_f64", 0, NEG0_64, 0, NEG0_64),
    c("ds_max_f64", "ds_max_rtn_f64", ONE64, TWO64, 0, TWO64),
    c("ds_max_f64", "ds_max_rtn_f64", NEG0_64, 0, 0, 0),
    c("ds_max_f64", "ds_max_rtn_f64", TWO64, NAN64, 0, TWO64),
];

fn takes_data1(name: &str) -> bool {
    ["mskor", "cmpst", "wrap"].iter().any(|k| name.contains(k))
}

/// Runs one atomic on lane 0 at LDS address 8 and checks (returned value, memory after) with
/// `check`.
fn atomic(name: &str, rtn: bool, wide: bool, k: &Case, check: impl Fn(u64, u64)) {
    let (v, data) = if wide {
        ("v[10:11]", ["v[12:13]", "v[14:15]"])
    } else {
        ("v10", ["v12", "v14"])
    };
    let (dst, read) = if wide {
        ("v[16:17]", "ds_read_b64 v[18:19], v0")
    } else {
        ("v16", "ds_read_b32 v18, v0")
    };
    let write = if wide { "ds_write_b64" } else { "ds_write_b32" };
    let operands = if takes_data1(name) {
        format!("{}, {}", data[0], data[1])
    } else {
        data[0].to_string()
    };
    let op = if rtn {
        format!("{name} {dst}, v0, {operands}")
    } else {
        format!("{name} v0, {operands}")
    };
    let asm = format!("{write} v0, {v}\n{op}\n{read}\ns_waitcnt lgkmcnt(0)");
    let w = run(&asm, |w| {
        w.set_exec(1);
        w.vgpr[0][0] = 8;
        for (reg, val) in [
            (10, k.init),
            (12, k.d0),
            (14, k.d1),
            (16, 0xdead_beef_dead_beef),
        ] {
            w.vgpr[reg][0] = val as u32;
            w.vgpr[reg + 1][0] = (val >> 32) as u32;
        }
    })
    .unwrap_or_else(|e| panic!("{asm}: {e}"));
    let chk = |w: &Wave| {
        let get = |r: usize| {
            w.vgpr[r][0] as u64
                | if wide {
                    (w.vgpr[r + 1][0] as u64) << 32
                } else {
                    0
                }
        };
        check(get(16), get(18))
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

fn check_cases(cases: &[Case], wide: bool) {
    for k in cases {
        for (name, rtn) in [(k.plain, false), (k.rtn, true)] {
            if name.is_empty() {
                continue;
            }
            atomic(name, rtn, wide, k, |ret, mem| {
                assert_eq!(mem, k.new, "{name}: memory after, from {:#x}", k.init);
                let expect_ret = if rtn {
                    k.init
                } else if wide {
                    0xdead_beef_dead_beef
                } else {
                    0xdead_beef
                };
                assert_eq!(ret, expect_ret, "{name}: returned value");
            });
        }
    }
}

#[test]
fn atomics_32_bit() {
    check_cases(CASES32, false);
}

#[test]
fn atomics_64_bit() {
    check_cases(CASES64, true);
}

/// All 64 lanes add to one address: lanes run in order, so lane l sees l * 3 (plus the start).
#[test]
fn lanes_hitting_one_address_serialise_in_lane_order() {
    let w = run(
        "v_mov_b32_e32 v0, 0\nv_mov_b32_e32 v1, 100\nds_write_b32 v0, v1\nv_mov_b32_e32 v2, 3\nds_add_rtn_u32 v3, v0, v2\nds_read_b32 v4, v0\ns_waitcnt lgkmcnt(0)",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for l in 0..64 {
            assert_eq!(w.vgpr[3][l], 100 + 3 * l as u32);
            assert_eq!(w.vgpr[4][l], 100 + 3 * 64);
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

/// Seeds LDS dwords 0..63 with 0x100 + i through ds_write_addtid_b32 (M0 = 0, all lanes), then
/// restores EXEC.
const SEED: &str = "s_mov_b64 s[90:91], exec\ns_mov_b64 exec, -1\ns_mov_b32 m0, 0\nv_mbcnt_lo_u32_b32 v40, -1, 0\nv_mbcnt_hi_u32_b32 v40, -1, v40\nv_add_u32_e32 v41, 0x100, v40\nds_write_addtid_b32 v41\ns_waitcnt lgkmcnt(0)\ns_mov_b64 exec, s[90:91]";

fn seeded(asm: &str, setup: impl FnOnce(&mut Wave)) -> Wave {
    run(&format!("{SEED}\n{asm}\ns_waitcnt lgkmcnt(0)"), setup)
        .unwrap_or_else(|e| panic!("{asm}: {e}"))
}

#[test]
fn addtid_uses_m0_offset_and_lane() {
    // Lane l reads dword (M0 + 8 + 4l) / 4 = l + 3 (M0 = 4): 0x100 + l + 3.
    let w = seeded("s_mov_b32 m0, 4\nds_read_addtid_b32 v1 offset:8", |_| {});
    let chk = |w: &gcnemu::wave::Wave| {
        for l in 0..61 {
            assert_eq!(w.vgpr[1][l], 0x103 + l as u32);
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
    // M0 bits above 15 are not part of the base.
    let w = seeded("s_mov_b32 m0, 0x10004\nds_read_addtid_b32 v1", |_| {});
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[1][0], 0x101);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn read_and_write_widths() {
    let w = seeded(
        "v_mov_b32_e32 v0, 0\nds_read_u8 v1, v0 offset:5\nds_read_i8 v2, v0 offset:9\nds_read_u16 v3, v0 offset:4\nds_read_i16 v4, v0 offset:8\nds_read_b64 v[5:6], v0 offset:4\nds_read_b96 v[7:9], v0 offset:8\nds_read_b128 v[10:13], v0 offset:16",
        |_| {},
    );
    let chk = |w: &gcnemu::wave::Wave| {
        // Dword i holds 0x100 + i: bytes (0x00 + i, 0x01, 0, 0).
        assert_eq!(w.vgpr[1][0], 0x01); // byte 5 = high byte of 0x101
        assert_eq!(w.vgpr[2][0], 0x01); // byte 9 = 0x01, positive
        assert_eq!(w.vgpr[3][0], 0x101);
        assert_eq!(w.vgpr[4][0], 0x102);
        assert_eq!([w.vgpr[5][0], w.vgpr[6][0]], [0x101, 0x102]);
        assert_eq!(
            [w.vgpr[7][0], w.vgpr[8][0], w.vgpr[9][0]],
            [0x102, 0x103, 0x104]
        );
        assert_eq!(
            [w.vgpr[10][0], w.vgpr[11][0], w.vgpr[12][0], w.vgpr[13][0]],
            [0x104, 0x105, 0x106, 0x107]
        );
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run(
        "v_mov_b32_e32 v0, 0\nds_write_b128 v0, v[4:7]\nds_write_b8 v0, v1 offset:1\nds_write_b16 v0, v2 offset:6\nds_write_b96 v0, v[4:6] offset:16\nds_write_b64 v0, v[6:7] offset:32\nds_read_b128 v[10:13], v0\nds_read_i8 v14, v0 offset:1\nds_read_i16 v15, v0 offset:6\nds_read_b96 v[16:18], v0 offset:16\nds_read_b64 v[19:20], v0 offset:32\ns_waitcnt lgkmcnt(0)",
        |w| {
            w.set_exec(1);
            w.vgpr[1][0] = 0xaaaa_aa80;
            w.vgpr[2][0] = 0xbbbb_8001;
            for i in 0..4 {
                w.vgpr[4 + i][0] = 0x1111_1111 * (i as u32 + 1);
            }
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(
            [w.vgpr[10][0], w.vgpr[11][0], w.vgpr[12][0], w.vgpr[13][0]],
            [0x1111_8011, 0x8001_2222, 0x3333_3333, 0x4444_4444]
        );
        assert_eq!(w.vgpr[14][0], 0xffff_ff80); // -128
        assert_eq!(w.vgpr[15][0], 0xffff_8001);
        assert_eq!(
            [w.vgpr[16][0], w.vgpr[17][0], w.vgpr[18][0]],
            [0x1111_1111, 0x2222_2222, 0x3333_3333]
        );
        assert_eq!([w.vgpr[19][0], w.vgpr[20][0]], [0x3333_3333, 0x4444_4444]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn d16_halves() {
    let w = seeded(
        "v_mov_b32_e32 v0, 0\nds_read_u8_d16_hi v1, v0 offset:5\nds_write_b8_d16_hi v0, v4 offset:12\nds_read_i8_d16 v2, v0 offset:12\nds_read_u16_d16_hi v3, v0 offset:8\nds_read_b32 v5, v0 offset:12",
        |w| {
            for r in 1..4 {
                w.vgpr[r] = [0x5555_6666; 64];
            }
            w.vgpr[4] = [0x00f7_0000; 64];
        },
    );
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[1][0], 0x0001_6666);
        assert_eq!(w.vgpr[2][0], 0x5555_fff7); // 0xf7 sign-extended to 16 bits
        assert_eq!(w.vgpr[3][0], 0x0102_6666);
        assert_eq!(w.vgpr[5][0], 0x1f7); // byte 0 of dword 3 (0x103) replaced by 0xf7
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn read2_write2_and_st64() {
    // Offsets count elements: 4 bytes (b32), 8 (b64), 256 (st64_b32), 512 (st64_b64).
    let w = run(
        "v_mov_b32_e32 v0, 8\nds_write2_b32 v0, v1, v2 offset0:1 offset1:3\nds_read_b32 v10, v0 offset:4\nds_read_b32 v11, v0 offset:12\nds_write2st64_b32 v0, v1, v2 offset0:1 offset1:2\nds_read_b32 v12, v0 offset:256\nds_read_b32 v13, v0 offset:512\nds_write2_b64 v0, v[4:5], v[6:7] offset0:2 offset1:5\nds_read2_b64 v[20:23], v0 offset0:2 offset1:5\nds_write2st64_b64 v0, v[4:5], v[6:7] offset0:3 offset1:1\nds_read2st64_b64 v[24:27], v0 offset0:1 offset1:3\nds_read2st64_b32 v[28:29], v0 offset0:1 offset1:2\nds_read2_b32 v[30:31], v0 offset0:3 offset1:1\ns_waitcnt lgkmcnt(0)",
        |w| {
            w.set_exec(1);
            for (r, v) in [(1, 0xa1), (2, 0xa2), (4, 0xb4), (5, 0xb5), (6, 0xb6), (7, 0xb7)] {
                w.vgpr[r][0] = v;
            }
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!([w.vgpr[10][0], w.vgpr[11][0]], [0xa1, 0xa2]);
        assert_eq!([w.vgpr[12][0], w.vgpr[13][0]], [0xa1, 0xa2]);
        assert_eq!(
            [w.vgpr[20][0], w.vgpr[21][0], w.vgpr[22][0], w.vgpr[23][0]],
            [0xb4, 0xb5, 0xb6, 0xb7]
        );
        // st64_b64 wrote DATA1 at 8 + 512 and DATA0 at 8 + 1536; read back in the other order.
        assert_eq!(
            [w.vgpr[24][0], w.vgpr[25][0], w.vgpr[26][0], w.vgpr[27][0]],
            [0xb6, 0xb7, 0xb4, 0xb5]
        );
        // st64_b32 wrote 8 + 256 and 8 + 512; the st64_b64 pair later overwrote 8 + 512 with 0xb6.
        assert_eq!([w.vgpr[28][0], w.vgpr[29][0]], [0xa1, 0xb6]);
        assert_eq!([w.vgpr[30][0], w.vgpr[31][0]], [0xa2, 0xa1]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn wrxchg2_returns_both_old_values() {
    let w = seeded(
        "v_mov_b32_e32 v0, 4\nds_wrxchg2_rtn_b32 v[2:3], v0, v10, v11 offset0:1 offset1:2\nds_read2_b32 v[4:5], v0 offset0:1 offset1:2\nds_wrxchg2st64_rtn_b32 v[6:7], v0, v10, v11 offset0:0 offset1:1\nds_read_b32 v8, v0 offset:256",
        |w| {
            w.set_exec(1);
            w.vgpr[10][0] = 0xaa;
            w.vgpr[11][0] = 0xbb;
        },
    );
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!([w.vgpr[2][0], w.vgpr[3][0]], [0x102, 0x103]);
        assert_eq!([w.vgpr[4][0], w.vgpr[5][0]], [0xaa, 0xbb]);
        assert_eq!([w.vgpr[6][0], w.vgpr[7][0]], [0x101, 0]);
        assert_eq!(w.vgpr[8][0], 0xbb);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = seeded(
        "v_mov_b32_e32 v0, 0\nds_wrxchg2_rtn_b64 v[2:5], v0, v[10:11], v[12:13] offset0:1 offset1:3\nds_read2_b64 v[20:23], v0 offset0:1 offset1:3\nds_wrxchg2st64_rtn_b64 v[6:9], v0, v[10:11], v[12:13] offset0:0 offset1:1\nds_read_b64 v[24:25], v0 offset:512",
        |w| {
            w.set_exec(1);
            for (r, v) in [(10, 0xa0), (11, 0xa1), (12, 0xb0), (13, 0xb1)] {
                w.vgpr[r][0] = v;
            }
        },
    );
    let chk = |w: &gcnemu::wave::Wave| {
        let row = |r: usize| {
            [
                w.vgpr[r][0],
                w.vgpr[r + 1][0],
                w.vgpr[r + 2][0],
                w.vgpr[r + 3][0],
            ]
        };
        assert_eq!(row(2), [0x102, 0x103, 0x106, 0x107]);
        assert_eq!(row(20), [0xa0, 0xa1, 0xb0, 0xb1]);
        assert_eq!(row(6), [0x100, 0x101, 0, 0]);
        assert_eq!([w.vgpr[24][0], w.vgpr[25][0]], [0xb0, 0xb1]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn condxchg32_writes_dwords_whose_bit31_is_set() {
    let w = seeded(
        "v_mov_b32_e32 v0, 0\nds_condxchg32_rtn_b64 v[2:3], v0, v[4:5] offset:8\nds_read2_b32 v[6:7], v0 offset0:2 offset1:3\nds_condxchg32_rtn_b64 v[8:9], v0, v[10:11] offset:16\nds_read2_b32 v[12:13], v0 offset0:4 offset1:5",
        |w| {
            w.set_exec(1);
            w.vgpr[4][0] = 0x8000_0055; // written as 0x55
            w.vgpr[5][0] = 0x7fff_ffff; // bit 31 clear: kept
            w.vgpr[10][0] = 0x0000_0001;
            w.vgpr[11][0] = 0xffff_ffff; // written as 0x7fffffff
        },
    );
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!([w.vgpr[2][0], w.vgpr[3][0]], [0x102, 0x103]);
        assert_eq!([w.vgpr[6][0], w.vgpr[7][0]], [0x55, 0x103]);
        assert_eq!([w.vgpr[8][0], w.vgpr[9][0]], [0x104, 0x105]);
        assert_eq!([w.vgpr[12][0], w.vgpr[13][0]], [0x104, 0x7fff_ffff]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn append_and_consume_count_active_lanes() {
    // M0 = 0x10008 (base 8: bits above 15 ignored); the counter is at 8 + 4 = 12 (0x103).
    let w = seeded(
        "s_mov_b32 m0, 0x10008\ns_mov_b32 exec_lo, 0xf0f\ns_mov_b32 exec_hi, 1\nds_append v1 offset:4\ns_mov_b32 exec_lo, 7\ns_mov_b32 exec_hi, 0\nds_consume v2 offset:4\ns_mov_b32 exec_lo, 1\nds_read_b32 v3, v0 offset:12\ns_waitcnt lgkmcnt(0)\ns_mov_b32 exec_lo, 0\nds_append v4 offset:4\ns_mov_b32 exec_lo, 1\nds_read_b32 v5, v0 offset:12",
        |w| {
            w.vgpr[0] = [0; 64];
            w.vgpr[1] = [0xeeee; 64];
            w.vgpr[4] = [0xeeee; 64];
        },
    );
    let chk = |w: &gcnemu::wave::Wave| {
        for l in [0, 3, 8, 11, 32] {
            assert_eq!(w.vgpr[1][l], 0x103, "lane {l}");
        }
        assert_eq!(w.vgpr[1][4], 0xeeee); // inactive lanes keep their value
        assert_eq!(w.vgpr[2][0], 0x103 + 9);
        assert_eq!(w.vgpr[2][2], 0x103 + 9);
        assert_eq!(w.vgpr[3][0], 0x103 + 9 - 3);
        // With EXEC = 0 nothing changes.
        assert_eq!(w.vgpr[4][0], 0xeeee);
        assert_eq!(w.vgpr[5][0], 0x103 + 6);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

/// One src2 case: mnemonic, 64-bit, MEM[A] before, MEM[B], MEM[A] after.
const SRC2: &[(&str, bool, u64, u64, u64)] = &[
    ("ds_add_src2_u32", false, 0xffff_ffff, 3, 2),
    ("ds_sub_src2_u32", false, 1, 3, 0xffff_fffe),
    ("ds_rsub_src2_u32", false, 1, 3, 2),
    ("ds_inc_src2_u32", false, 3, 3, 0),
    ("ds_dec_src2_u32", false, 0, 7, 7),
    ("ds_min_src2_i32", false, 1, 0xffff_fffe, 0xffff_fffe),
    ("ds_max_src2_i32", false, 1, 0xffff_fffe, 1),
    ("ds_min_src2_u32", false, 1, 0xffff_fffe, 1),
    ("ds_max_src2_u32", false, 1, 0xffff_fffe, 0xffff_fffe),
    ("ds_and_src2_b32", false, 0xff, 0xf0f, 0xf),
    ("ds_or_src2_b32", false, 0xff, 0xf0f, 0xfff),
    ("ds_xor_src2_b32", false, 0xff, 0xf0f, 0xff0),
    ("ds_write_src2_b32", false, 0xff, 0xf0f, 0xf0f),
    ("ds_min_src2_f32", false, ONE32, NAN32, ONE32),
    ("ds_max_src2_f32", false, NEG0_32, 0, 0),
    ("ds_add_src2_f32", false, ONE32, TWO32, 0x4040_0000),
    ("ds_add_src2_u64", true, u64::MAX, 3, 2),
    ("ds_sub_src2_u64", true, 1, 3, u64::MAX - 1),
    ("ds_rsub_src2_u64", true, 1, 1 << 32, 0xffff_ffff),
    ("ds_inc_src2_u64", true, 3, 4, 4),
    ("ds_dec_src2_u64", true, 5, 4, 4),
    ("ds_min_src2_i64", true, 1, u64::MAX, u64::MAX),
    ("ds_max_src2_i64", true, 1, u64::MAX, 1),
    ("ds_min_src2_u64", true, 1, u64::MAX, 1),
    ("ds_max_src2_u64", true, 1, u64::MAX, u64::MAX),
    ("ds_and_src2_b64", true, 0xff << 32, 0xf0f << 32, 0xf << 32),
    ("ds_or_src2_b64", true, 0xff << 32, 0xf0f, 0xff_0000_0f0f),
    ("ds_xor_src2_b64", true, u64::MAX, 1, u64::MAX - 1),
    (
        "ds_write_src2_b64",
        true,
        0,
        0x1234_5678_9abc_def0,
        0x1234_5678_9abc_def0,
    ),
    ("ds_min_src2_f64", true, ONE64, TWO64, ONE64),
    ("ds_max_src2_f64", true, NAN64, NEG0_64, NEG0_64),
];

/// A = 64 (ADDR), B = A + 4 * 6 = 88 from offset 6; then with offset bit 15 the stride comes
/// from ADDR[31:17]: ADDR = (-4 << 17) | 128 gives A = 128, B = 128 - 16 = 112.
#[test]
fn src2_ops_take_b_from_the_offset_or_the_address() {
    for &(name, wide, a, b, after) in SRC2 {
        let (w, r, va, vb) = if wide {
            ("ds_write_b64", "ds_read_b64 v[20:21]", "v[2:3]", "v[4:5]")
        } else {
            ("ds_write_b32", "ds_read_b32 v20", "v2", "v4")
        };
        let asm = format!(
            "v_mov_b32_e32 v0, 64\n{w} v0, {va}\n{w} v0, {vb} offset:24\n{name} v0 offset:6\n{r}, v0\nv_mov_b32_e32 v1, 0xfff80080\nv_mov_b32_e32 v0, 128\n{w} v0, {va}\nv_mov_b32_e32 v0, 112\n{w} v0, {vb}\n{name} v1 offset:32768\nv_mov_b32_e32 v0, 128\n{r2}, v0\ns_waitcnt lgkmcnt(0)",
            r2 = r.replace("v20", "v22").replace("v[20:21]", "v[22:23]"),
        );
        let wv = run(&asm, |w| {
            w.set_exec(1);
            for (reg, v) in [(2, a), (4, b)] {
                w.vgpr[reg][0] = v as u32;
                w.vgpr[reg + 1][0] = (v >> 32) as u32;
            }
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let chk = |wv: &gcnemu::wave::Wave| {
            let get = |r: usize| {
                wv.vgpr[r][0] as u64
                    | if wide {
                        (wv.vgpr[r + 1][0] as u64) << 32
                    } else {
                        0
                    }
            };
            assert_eq!(get(20), after, "{name} with the offset stride");
            assert_eq!(get(22), after, "{name} with the address stride");
        };
        chk(&wv);
        exec_common::vet(&wv, chk);
    }
}

#[test]
fn swizzle_modes() {
    // Quad permute (offset bit 15): lane 4q + i takes lane 4q + sel[i]; sel = [3, 2, 1, 0].
    // BitMask mode: and 0x1f, or 0, xor 1 swaps neighbours within each half.
    let w = run(
        "ds_swizzle_b32 v1, v0 offset:0x801b\nds_swizzle_b32 v2, v0 offset:0x041f\ns_waitcnt lgkmcnt(0)",
        |w| {
            w.vgpr[0] = std::array::from_fn(|l| l as u32);
            w.set_exec(!(1u64 << 6));
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // Lane 5 reads inactive lane 6 (0); lane 6 itself is not written.
        assert_eq!(&w.vgpr[1][..8], &[3, 2, 1, 0, 7, 0, 0, 4]);
        assert_eq!(w.vgpr[2][32], 33);
        assert_eq!(w.vgpr[2][33], 32);
        assert_eq!(w.vgpr[2][7], 0); // reads inactive lane 6
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn permute_and_bpermute() {
    // Lane l sends to / reads from lane (l + 1) % 64 (address 4 * (l + 1), wrapped at 256).
    let w = run(
        "ds_permute_b32 v2, v0, v1\nds_bpermute_b32 v3, v0, v1\nds_permute_b32 v4, v5, v1\ns_waitcnt lgkmcnt(0)",
        |w| {
            w.vgpr[0] = std::array::from_fn(|l| 4 * (l as u32 + 1));
            w.vgpr[1] = std::array::from_fn(|l| 1000 + l as u32);
            // Every lane targets lane 2: the highest lane wins, other lanes get 0.
            w.vgpr[5] = [8; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][1], 1000);
        assert_eq!(w.vgpr[2][0], 1063);
        assert_eq!(w.vgpr[3][0], 1001);
        assert_eq!(w.vgpr[3][63], 1000);
        assert_eq!(w.vgpr[4][2], 1063);
        assert_eq!(w.vgpr[4][3], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn bpermute_reads_zero_from_an_inactive_lane() {
    // Lane l reads lane (l + 1) % 64 with lane 5 off: lane 4 reads 0, lane 5 keeps its value.
    let w = run("ds_bpermute_b32 v3, v0, v1\ns_waitcnt lgkmcnt(0)", |w| {
        w.vgpr[0] = std::array::from_fn(|l| 4 * (l as u32 + 1));
        w.vgpr[1] = std::array::from_fn(|l| 1000 + l as u32);
        w.vgpr[3] = [7; 64];
        w.set_exec(!(1u64 << 5));
    })
    .unwrap();
    assert_eq!(&w.vgpr[3][3..7], &[1004, 0, 7, 1007]);
    assert_eq!(w.vgpr[3][63], 1000);
}

#[test]
fn nop_and_errors() {
    run("ds_nop", |_| {}).unwrap();
    let e = run("ds_add_u32 v0, v1 gds", |_| {}).unwrap_err();
    assert!(matches!(e, Fault::NotInCompute("ds_add_u32", _)), "{e:?}");
    // Outside the 4 KiB workgroup LDS of the harness: a fault naming lane and address.
    let e = run("v_mov_b32_e32 v0, 0x1000\nds_read_b32 v1, v0", |_| {}).unwrap_err();
    assert!(
        matches!(
            e,
            Fault::Lds {
                lane: 0,
                addr: 0x1000,
                ..
            }
        ),
        "{e:?}"
    );
}
