//! Every implemented SOP2, SOP1, SOPK, SOPC and SOPP op, table-driven: each op runs on edge
//! operands (0, 1, all ones, the signed extremes, shift amounts at and past the width, bit-field
//! descriptors) with SCC in and out checked. The expected results are the ISA pseudo-code (Vega
//! ISA §5 and the instruction descriptions) written out here with Rust integer arithmetic:
//! `None` for SCC means the op leaves SCC alone.

mod exec_common;
use exec_common::run;

/// 32-bit edge values; as shift amounts and bit-field descriptors they cover 0, 1, 31, 32 (wraps
/// to 0 in [4:0]), 33 and offset/width fields (0x0010_0004: width 16 at offset 4; 0x0020_0000:
/// width 32; 0x0007_001c: width 7 at offset 28, running past bit 31).
const V32: [u32; 12] = [
    0,
    1,
    0xffff_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0x1234_5678,
    31,
    32,
    33,
    0x0010_0004,
    0x0020_0000,
    0x0007_001c,
];

/// 64-bit edge values (the second source of 64-bit shifts and bfe reads them as amounts or
/// descriptors too: 63, 64, 0x0030_0008 = width 48 at offset 8, 0x0040_0020 = width 64 at 32).
const V64: [u64; 11] = [
    0,
    1,
    u64::MAX,
    i64::MAX as u64,
    i64::MIN as u64,
    0x0123_4567_89ab_cdef,
    0xffff_ffff,
    63,
    64,
    0x0030_0008,
    0x0040_0020,
];

type Sop2 = (&'static str, fn(u32, u32, bool) -> (u32, Option<bool>));
type Sop2W = (&'static str, fn(u64, u64, bool) -> (u64, Option<bool>));

/// Signed bit-field extract of `width` bits at `off` from a `bits`-wide value (width 0 gives
/// 0; a field running past the top takes the bits that exist, sign from the top one).
fn bfe(v: u64, off: u32, width: u32, bits: u32, signed: bool) -> u64 {
    if width == 0 {
        return 0;
    }
    let avail = bits - off;
    let w = width.min(avail);
    let field = if w == 64 {
        v
    } else {
        (v >> off) & ((1u64 << w) - 1)
    };
    if signed && field >> (w - 1) & 1 == 1 && w < 64 {
        field | !((1u64 << w) - 1)
    } else {
        field
    }
}

fn nz(v: u32) -> Option<bool> {
    Some(v != 0)
}
fn nz64(v: u64) -> Option<bool> {
    Some(v != 0)
}

/// D = (S0 << n) + S1 with SCC the carry out of the 64-bit sum (shifted-out bits count).
fn lshl_add(a: u32, b: u32, n: u32) -> (u32, Option<bool>) {
    let t = ((a as u64) << n) + b as u64;
    (t as u32, Some(t >> 32 != 0))
}

const SOP2_32: [Sop2; 36] = [
    ("s_add_u32", |a, b, _| {
        let t = a as u64 + b as u64;
        (t as u32, Some(t >> 32 != 0))
    }),
    ("s_sub_u32", |a, b, _| (a.wrapping_sub(b), Some(b > a))),
    ("s_add_i32", |a, b, _| {
        let t = a as i32 as i64 + b as i32 as i64;
        (t as u32, Some(t != t as i32 as i64))
    }),
    ("s_sub_i32", |a, b, _| {
        let t = a as i32 as i64 - b as i32 as i64;
        (t as u32, Some(t != t as i32 as i64))
    }),
    ("s_addc_u32", |a, b, c| {
        let t = a as u64 + b as u64 + c as u64;
        (t as u32, Some(t >> 32 != 0))
    }),
    ("s_subb_u32", |a, b, c| {
        let t = a as i64 - b as i64 - c as i64;
        (t as u32, Some(t < 0))
    }),
    ("s_min_i32", |a, b, _| {
        ((a as i32).min(b as i32) as u32, Some((a as i32) < b as i32))
    }),
    ("s_min_u32", |a, b, _| (a.min(b), Some(a < b))),
    ("s_max_i32", |a, b, _| {
        ((a as i32).max(b as i32) as u32, Some(a as i32 > b as i32))
    }),
    ("s_max_u32", |a, b, _| (a.max(b), Some(a > b))),
    ("s_cselect_b32", |a, b, c| (if c { a } else { b }, None)),
    ("s_and_b32", |a, b, _| (a & b, nz(a & b))),
    ("s_or_b32", |a, b, _| (a | b, nz(a | b))),
    ("s_xor_b32", |a, b, _| (a ^ b, nz(a ^ b))),
    ("s_andn2_b32", |a, b, _| (a & !b, nz(a & !b))),
    ("s_orn2_b32", |a, b, _| (a | !b, nz(a | !b))),
    ("s_nand_b32", |a, b, _| (!(a & b), nz(!(a & b)))),
    ("s_nor_b32", |a, b, _| (!(a | b), nz(!(a | b)))),
    ("s_xnor_b32", |a, b, _| (!(a ^ b), nz(!(a ^ b)))),
    ("s_lshl_b32", |a, b, _| (a << (b & 31), nz(a << (b & 31)))),
    ("s_lshr_b32", |a, b, _| (a >> (b & 31), nz(a >> (b & 31)))),
    ("s_ashr_i32", |a, b, _| {
        let v = ((a as i32) >> (b & 31)) as u32;
        (v, nz(v))
    }),
    ("s_bfm_b32", |a, b, _| {
        ((((1u64 << (a & 31)) - 1) as u32) << (b & 31), None)
    }),
    ("s_mul_i32", |a, b, _| (a.wrapping_mul(b), None)),
    ("s_bfe_u32", |a, b, _| {
        let v = bfe(a as u64, b & 31, b >> 16 & 0x7f, 32, false) as u32;
        (v, nz(v))
    }),
    ("s_bfe_i32", |a, b, _| {
        let v = bfe(a as u64, b & 31, b >> 16 & 0x7f, 32, true) as u32;
        (v, nz(v))
    }),
    // The pseudo-code works in 32 bits: D.i = S0.i - S1.i (wrapping); if D.i < 0 then D = -D.
    // So 1 - i32::MIN wraps to -0x7fffffff and gives 0x7fffffff.
    ("s_absdiff_i32", |a, b, _| {
        let v = (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32;
        (v, nz(v))
    }),
    ("s_mul_hi_u32", |a, b, _| {
        (((a as u64 * b as u64) >> 32) as u32, None)
    }),
    ("s_mul_hi_i32", |a, b, _| {
        (((a as i32 as i64 * b as i32 as i64) >> 32) as u32, None)
    }),
    ("s_lshl1_add_u32", |a, b, _| lshl_add(a, b, 1)),
    ("s_lshl2_add_u32", |a, b, _| lshl_add(a, b, 2)),
    ("s_lshl3_add_u32", |a, b, _| lshl_add(a, b, 3)),
    ("s_lshl4_add_u32", |a, b, _| lshl_add(a, b, 4)),
    ("s_pack_ll_b32_b16", |a, b, _| {
        ((a & 0xffff) | b << 16, None)
    }),
    ("s_pack_lh_b32_b16", |a, b, _| {
        ((a & 0xffff) | (b & 0xffff_0000), None)
    }),
    ("s_pack_hh_b32_b16", |a, b, _| {
        ((a >> 16) | (b & 0xffff_0000), None)
    }),
];

const SOP2_64: [Sop2W; 16] = [
    ("s_cselect_b64", |a, b, c| (if c { a } else { b }, None)),
    ("s_and_b64", |a, b, _| (a & b, nz64(a & b))),
    ("s_or_b64", |a, b, _| (a | b, nz64(a | b))),
    ("s_xor_b64", |a, b, _| (a ^ b, nz64(a ^ b))),
    ("s_andn2_b64", |a, b, _| (a & !b, nz64(a & !b))),
    ("s_orn2_b64", |a, b, _| (a | !b, nz64(a | !b))),
    ("s_nand_b64", |a, b, _| (!(a & b), nz64(!(a & b)))),
    ("s_nor_b64", |a, b, _| (!(a | b), nz64(!(a | b)))),
    ("s_xnor_b64", |a, b, _| (!(a ^ b), nz64(!(a ^ b)))),
    // Shift amounts are S1[5:0] (S1 is 32 bits: the low half of the pair given here).
    ("s_lshl_b64", |a, b, _| (a << (b & 63), nz64(a << (b & 63)))),
    ("s_lshr_b64", |a, b, _| (a >> (b & 63), nz64(a >> (b & 63)))),
    ("s_ashr_i64", |a, b, _| {
        let v = ((a as i64) >> (b & 63)) as u64;
        (v, nz64(v))
    }),
    // s_bfm_b64 has 32-bit sources: ((1 << S0[5:0]) - 1) << S1[5:0].
    ("s_bfm_b64", |a, b, _| {
        let m = if a & 63 == 0 {
            0
        } else {
            u64::MAX >> (64 - (a & 63))
        };
        (m << (b & 63), None)
    }),
    ("s_mul_i32", |a, b, _| {
        ((a as u32).wrapping_mul(b as u32) as u64, None)
    }),
    ("s_bfe_u64", |a, b, _| {
        let v = bfe(a, b as u32 & 63, (b >> 16) as u32 & 0x7f, 64, false);
        (v, nz64(v))
    }),
    ("s_bfe_i64", |a, b, _| {
        let v = bfe(a, b as u32 & 63, (b >> 16) as u32 & 0x7f, 64, true);
        (v, nz64(v))
    }),
];

/// Operand syntax of a 64-bit op: which sources are pairs (s_lshl_b64's amount and
/// s_bfm_b64's sources are 32-bit).
fn sop2_64_syntax(name: &str) -> &'static str {
    match name {
        "s_lshl_b64" | "s_lshr_b64" | "s_ashr_i64" | "s_bfe_u64" | "s_bfe_i64" => {
            "s[10:11], s[4:5], s6"
        }
        "s_bfm_b64" => "s[10:11], s4, s6",
        "s_mul_i32" => "s10, s4, s6",
        _ => "s[10:11], s[4:5], s[6:7]",
    }
}

#[test]
fn sop2_32_bit() {
    for (name, f) in SOP2_32 {
        for a in V32 {
            for b in V32 {
                for scc in [false, true] {
                    let asm = format!("{name} s10, s4, s5");
                    let w = run(&asm, |w| {
                        w.sgpr[4] = a;
                        w.sgpr[5] = b;
                        w.scc = scc;
                    })
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                    let chk = |w: &gcnemu::wave::Wave| {
                        let (d, c) = f(a, b, scc);
                        let what = format!("{name} {a:#x}, {b:#x} (scc {scc})");
                        assert_eq!(w.sgpr[10], d, "{what}: D");
                        assert_eq!(w.scc, c.unwrap_or(scc), "{what}: SCC");
                    };
                    chk(&w);
                    exec_common::vet(&w, chk);
                }
            }
        }
    }
}

#[test]
fn sop2_64_bit() {
    for (name, f) in SOP2_64 {
        let syntax = sop2_64_syntax(name);
        for a in V64 {
            for b in V64 {
                for scc in [false, true] {
                    let asm = format!("{name} {syntax}");
                    let w = run(&asm, |w| {
                        w.set_pair(4, a);
                        w.set_pair(6, b);
                        w.sgpr[11] = 0x5a5a_5a5a;
                        w.scc = scc;
                    })
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                    let chk = |w: &gcnemu::wave::Wave| {
                        // 32-bit sources see the low half.
                        let (sa, sb) = match name {
                            "s_bfm_b64" | "s_mul_i32" => (a & 0xffff_ffff, b & 0xffff_ffff),
                            "s_cselect_b64" | "s_and_b64" | "s_or_b64" | "s_xor_b64"
                            | "s_andn2_b64" | "s_orn2_b64" | "s_nand_b64" | "s_nor_b64"
                            | "s_xnor_b64" => (a, b),
                            _ => (a, b & 0xffff_ffff),
                        };
                        let (d, c) = f(sa, sb, scc);
                        let got = if name == "s_mul_i32" {
                            assert_eq!(w.sgpr[11], 0x5a5a_5a5a, "s_mul_i32 wrote s11");
                            w.sgpr[10] as u64
                        } else {
                            w.pair(10)
                        };
                        let what = format!("{name} {a:#x}, {b:#x} (scc {scc})");
                        assert_eq!(got, d, "{what}: D");
                        assert_eq!(w.scc, c.unwrap_or(scc), "{what}: SCC");
                    };
                    chk(&w);
                    exec_common::vet(&w, chk);
                }
            }
        }
    }
}

type Sop1 = (&'static str, fn(u32, bool) -> (u32, Option<bool>));
type Sop1W = (&'static str, fn(u64, bool) -> (u64, Option<bool>));

/// Index of the first set bit from the LSB, or -1.
fn ff1(v: u64) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        v.trailing_zeros()
    }
}

/// Each 4-bit group: all ones if any bit of it is set (whole quad mode).
fn wqm(v: u64, bits: u32) -> u64 {
    (0..bits / 4).fold(0, |acc, q| {
        acc | if v >> (4 * q) & 0xf != 0 {
            0xf << (4 * q)
        } else {
            0
        }
    })
}

/// Bit q of the result: any bit of group q of the input (bits/4 groups).
fn quadmask(v: u64, bits: u32) -> u64 {
    (0..bits / 4).fold(0, |acc, q| acc | ((v >> (4 * q) & 0xf != 0) as u64) << q)
}

/// s_flbit_i32 (signed): leading bits equal to the sign bit, counted from the MSB, before the
/// first differing one; -1 for 0 and for all ones.
fn flbit_signed(v: i64, bits: u32) -> u32 {
    if v == 0 || v == -1 {
        return u32::MAX;
    }
    let x = if v < 0 { !v } else { v } as u64;
    x.leading_zeros() - (64 - bits)
}

const SOP1_32: [Sop1; 17] = [
    ("s_mov_b32", |a, _| (a, None)),
    ("s_cmov_b32", |a, c| (if c { a } else { 0xdead_beef }, None)),
    ("s_not_b32", |a, _| (!a, nz(!a))),
    ("s_wqm_b32", |a, _| {
        (wqm(a as u64, 32) as u32, nz(wqm(a as u64, 32) as u32))
    }),
    ("s_brev_b32", |a, _| (a.reverse_bits(), None)),
    ("s_bcnt0_i32_b32", |a, _| {
        (a.count_zeros(), nz(a.count_zeros()))
    }),
    ("s_bcnt1_i32_b32", |a, _| {
        (a.count_ones(), nz(a.count_ones()))
    }),
    ("s_ff0_i32_b32", |a, _| (ff1(!a as u64), None)),
    ("s_ff1_i32_b32", |a, _| (ff1(a as u64), None)),
    ("s_flbit_i32_b32", |a, _| {
        (if a == 0 { u32::MAX } else { a.leading_zeros() }, None)
    }),
    ("s_flbit_i32", |a, _| {
        (flbit_signed(a as i32 as i64, 32), None)
    }),
    ("s_sext_i32_i8", |a, _| (a as i8 as i32 as u32, None)),
    ("s_sext_i32_i16", |a, _| (a as i16 as i32 as u32, None)),
    // D is read-modify-write: it starts as 0xdead_beef.
    ("s_bitset0_b32", |a, _| {
        (0xdead_beef & !(1 << (a & 31)), None)
    }),
    ("s_bitset1_b32", |a, _| (0xdead_beef | 1 << (a & 31), None)),
    ("s_quadmask_b32", |a, _| {
        (
            quadmask(a as u64, 32) as u32,
            nz(quadmask(a as u64, 32) as u32),
        )
    }),
    ("s_abs_i32", |a, _| {
        (
            (a as i32).wrapping_abs() as u32,
            nz((a as i32).wrapping_abs() as u32),
        )
    }),
];

const SOP1_64: [Sop1W; 14] = [
    ("s_mov_b64", |a, _| (a, None)),
    ("s_cmov_b64", |a, c| {
        (if c { a } else { 0xdead_beef_0bad_f00d }, None)
    }),
    ("s_not_b64", |a, _| (!a, nz64(!a))),
    ("s_wqm_b64", |a, _| (wqm(a, 64), nz64(wqm(a, 64)))),
    ("s_brev_b64", |a, _| (a.reverse_bits(), None)),
    // The count and index ops write one SGPR (here the low half of the pair).
    ("s_bcnt0_i32_b64", |a, _| {
        (a.count_zeros() as u64, nz64(a.count_zeros() as u64))
    }),
    ("s_bcnt1_i32_b64", |a, _| {
        (a.count_ones() as u64, nz64(a.count_ones() as u64))
    }),
    ("s_ff0_i32_b64", |a, _| (ff1(!a) as u64, None)),
    ("s_ff1_i32_b64", |a, _| (ff1(a) as u64, None)),
    ("s_flbit_i32_b64", |a, _| {
        (
            (if a == 0 { u32::MAX } else { a.leading_zeros() }) as u64,
            None,
        )
    }),
    ("s_flbit_i32_i64", |a, _| {
        (flbit_signed(a as i64, 64) as u64, None)
    }),
    // S0 is 32 bits (a bit index); D is the pair, read-modify-write.
    ("s_bitset0_b64", |a, _| {
        (0xdead_beef_0bad_f00d & !(1 << (a & 63)), None)
    }),
    ("s_bitset1_b64", |a, _| {
        (0xdead_beef_0bad_f00d | 1 << (a & 63), None)
    }),
    ("s_quadmask_b64", |a, _| {
        (quadmask(a, 64), nz64(quadmask(a, 64)))
    }),
];

#[test]
fn sop1_32_bit() {
    for (name, f) in SOP1_32 {
        for a in V32 {
            for scc in [false, true] {
                let asm = format!("{name} s10, s4");
                let w = run(&asm, |w| {
                    w.sgpr[4] = a;
                    w.sgpr[10] = 0xdead_beef;
                    w.scc = scc;
                })
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                let chk = |w: &gcnemu::wave::Wave| {
                    let (d, c) = f(a, scc);
                    let what = format!("{name} {a:#x} (scc {scc})");
                    assert_eq!(w.sgpr[10], d, "{what}: D");
                    assert_eq!(w.scc, c.unwrap_or(scc), "{what}: SCC");
                };
                chk(&w);
                exec_common::vet(&w, chk);
            }
        }
    }
}

#[test]
fn sop1_64_bit() {
    for (name, f) in SOP1_64 {
        let one_dst =
            name.starts_with("s_bcnt") || name.starts_with("s_ff") || name.starts_with("s_flbit");
        let one_src = name.starts_with("s_bitset");
        let asm = match (one_dst, one_src) {
            (true, _) => format!("{name} s10, s[4:5]"),
            (_, true) => format!("{name} s[10:11], s4"),
            _ => format!("{name} s[10:11], s[4:5]"),
        };
        for a in V64 {
            for scc in [false, true] {
                let w = run(&asm, |w| {
                    w.set_pair(4, a);
                    w.set_pair(10, 0xdead_beef_0bad_f00d);
                    w.scc = scc;
                })
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                let chk = |w: &gcnemu::wave::Wave| {
                    let src = if one_src { a & 0xffff_ffff } else { a };
                    let (d, c) = f(src, scc);
                    let got = if one_dst {
                        assert_eq!(w.sgpr[11], 0xdead_beef, "{asm}: wrote s11");
                        w.sgpr[10] as u64
                    } else {
                        w.pair(10)
                    };
                    let what = format!("{asm} with {a:#x} (scc {scc})");
                    assert_eq!(got, d, "{what}: D");
                    assert_eq!(w.scc, c.unwrap_or(scc), "{what}: SCC");
                };
                chk(&w);
                exec_common::vet(&w, chk);
            }
        }
    }
}

#[test]
fn saveexec_forms() {
    // D = EXEC; EXEC = op(S0, EXEC); SCC = EXEC != 0.
    type F = fn(u64, u64) -> u64;
    let ops: [(&str, F); 10] = [
        ("s_and_saveexec_b64", |s, e| s & e),
        ("s_or_saveexec_b64", |s, e| s | e),
        ("s_xor_saveexec_b64", |s, e| s ^ e),
        ("s_andn2_saveexec_b64", |s, e| s & !e),
        ("s_orn2_saveexec_b64", |s, e| s | !e),
        ("s_nand_saveexec_b64", |s, e| !(s & e)),
        ("s_nor_saveexec_b64", |s, e| !(s | e)),
        ("s_xnor_saveexec_b64", |s, e| !(s ^ e)),
        ("s_andn1_saveexec_b64", |s, e| !s & e),
        ("s_orn1_saveexec_b64", |s, e| !s | e),
    ];
    let vals = [0u64, u64::MAX, 0x0000_ffff_0000_ffff, 0xff00_ff00_ff00_ff00];
    for (name, f) in ops {
        for s in vals {
            for e in vals {
                let asm = format!("{name} s[10:11], s[4:5]");
                let w = run(&asm, |w| {
                    w.set_pair(4, s);
                    w.set_exec(e);
                })
                .unwrap_or_else(|err| panic!("{asm}: {err:?}"));
                let chk = |w: &gcnemu::wave::Wave| {
                    let what = format!("{name} S0={s:#x} EXEC={e:#x}");
                    assert_eq!(w.pair(10), e, "{what}: D");
                    assert_eq!(w.exec(), f(s, e), "{what}: EXEC");
                    assert_eq!(w.scc, f(s, e) != 0, "{what}: SCC");
                };
                chk(&w);
                exec_common::vet(&w, chk);
            }
        }
    }
}

#[test]
fn pc_ops_getpc_setpc_swappc_call() {
    // The program starts at 0x1000 (exec_common): s_getpc_b64 gives the address of the next
    // instruction; s_swappc_b64 jumps and saves the return address; s_setpc_b64 returns.
    // Layout (4 bytes each): 0x1000 getpc | 0x1004 s_add_u32 | 0x1008 s_addc_u32 | 0x100c swappc
    // | 0x1010 s_mov_b32 s20, 1 | 0x1014 s_branch end | 0x1018 sub: s_mov_b32 s21, 2 | 0x101c
    // setpc | 0x1020 end: s_call_b64 s[40:41], sub2 | 0x1024 ...
    let w = run(
        "s_getpc_b64 s[30:31]\ns_add_u32 s32, s30, 20\ns_addc_u32 s33, s31, 0\ns_swappc_b64 s[34:35], s[32:33]\ns_mov_b32 s20, 1\ns_branch end\nsub:\ns_mov_b32 s21, 2\ns_setpc_b64 s[34:35]\nend:\ns_call_b64 s[40:41], sub2\ns_mov_b32 s23, 4\ns_endpgm\nsub2:\ns_mov_b32 s22, 3\ns_setpc_b64 s[40:41]",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(
            w.pair(30),
            0x1004,
            "s_getpc_b64: address of the next instruction"
        );
        assert_eq!(w.pair(34), 0x1010, "s_swappc_b64: return address");
        assert_eq!((w.sgpr[20], w.sgpr[21]), (1, 2), "called and returned");
        assert_eq!(
            (w.sgpr[22], w.sgpr[23]),
            (3, 4),
            "s_call_b64 called and returned"
        );
        assert_eq!(w.pair(40), 0x1024, "s_call_b64: return address");
        assert_eq!((w.sgpr[22], w.sgpr[23]), (3, 4));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sopk_ops() {
    // simm16 is sign-extended for the _i32 forms and zero-extended for the _u32 compares.
    let imms: [u16; 5] = [0, 1, 0x7fff, 0x8000, 0xffff];
    type F = fn(u32, u16, bool) -> (u32, Option<bool>);
    let ops: [(&str, F); 16] = [
        ("s_movk_i32", |_, k, _| (k as i16 as u32, None)),
        ("s_cmovk_i32", |d, k, c| {
            (if c { k as i16 as u32 } else { d }, None)
        }),
        ("s_cmpk_eq_i32", |d, k, _| {
            (d, Some(d as i32 == k as i16 as i32))
        }),
        ("s_cmpk_lg_i32", |d, k, _| {
            (d, Some(d as i32 != k as i16 as i32))
        }),
        ("s_cmpk_gt_i32", |d, k, _| {
            (d, Some(d as i32 > k as i16 as i32))
        }),
        ("s_cmpk_ge_i32", |d, k, _| {
            (d, Some(d as i32 >= k as i16 as i32))
        }),
        ("s_cmpk_lt_i32", |d, k, _| {
            (d, Some((d as i32) < k as i16 as i32))
        }),
        ("s_cmpk_le_i32", |d, k, _| {
            (d, Some(d as i32 <= k as i16 as i32))
        }),
        ("s_cmpk_eq_u32", |d, k, _| (d, Some(d == k as u32))),
        ("s_cmpk_lg_u32", |d, k, _| (d, Some(d != k as u32))),
        ("s_cmpk_gt_u32", |d, k, _| (d, Some(d > k as u32))),
        ("s_cmpk_ge_u32", |d, k, _| (d, Some(d >= k as u32))),
        ("s_cmpk_lt_u32", |d, k, _| (d, Some(d < k as u32))),
        ("s_cmpk_le_u32", |d, k, _| (d, Some(d <= k as u32))),
        ("s_addk_i32", |d, k, _| {
            let t = d as i32 as i64 + k as i16 as i64;
            (t as u32, Some(t != t as i32 as i64))
        }),
        ("s_mulk_i32", |d, k, _| {
            (d.wrapping_mul(k as i16 as u32), None)
        }),
    ];
    let dvals = [
        0u32,
        1,
        0x7fff,
        0x8000,
        0xffff,
        0xffff_ffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_8000,
    ];
    for (name, f) in ops {
        for d in dvals {
            for k in imms {
                for scc in [false, true] {
                    let asm = format!("{name} s10, {k:#x}");
                    let w = run(&asm, |w| {
                        w.sgpr[10] = d;
                        w.scc = scc;
                    })
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                    let chk = |w: &gcnemu::wave::Wave| {
                        let (want, c) = f(d, k, scc);
                        let what = format!("{name} s10={d:#x}, {k:#x} (scc {scc})");
                        assert_eq!(w.sgpr[10], want, "{what}: D");
                        assert_eq!(w.scc, c.unwrap_or(scc), "{what}: SCC");
                    };
                    chk(&w);
                    exec_common::vet(&w, chk);
                }
            }
        }
    }
}

#[test]
fn getreg_setreg_mode_and_trapsts() {
    // hwreg(HW_REG_MODE, 4, 4) is the FP denormal field: write 0 (flush all), read it back;
    // s_setreg_imm32_b32 writes a literal; TRAPSTS keeps what is written to its fields.
    let w = run(
        "s_getreg_b32 s10, hwreg(HW_REG_MODE)\ns_mov_b32 s4, 0\ns_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s4\ns_getreg_b32 s11, hwreg(HW_REG_MODE)\ns_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xc\ns_getreg_b32 s12, hwreg(HW_REG_MODE, 4, 4)\ns_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 4), 5\ns_getreg_b32 s13, hwreg(HW_REG_TRAPSTS, 0, 4)\ns_cmp_eq_u32 s4, 0\ns_getreg_b32 s14, hwreg(HW_REG_STATUS, 0, 1)",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        let mode0 = exec_common::MODE_DENORMS;
        assert_eq!(w.sgpr[10], mode0);
        assert_eq!(w.sgpr[11], mode0 & !0xf0, "denormal field cleared");
        assert_eq!(w.sgpr[12], 0xc);
        assert_eq!(w.mode, mode0 & !0xf0 | 0xc0);
        assert_eq!(w.sgpr[13], 5);
        assert_eq!(w.sgpr[14], 1, "STATUS.SCC");
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sopc_compares() {
    type F = fn(u32, u32) -> bool;
    let ops: [(&str, F); 14] = [
        ("s_cmp_eq_i32", |a, b| a as i32 == b as i32),
        ("s_cmp_lg_i32", |a, b| a as i32 != b as i32),
        ("s_cmp_gt_i32", |a, b| a as i32 > b as i32),
        ("s_cmp_ge_i32", |a, b| a as i32 >= b as i32),
        ("s_cmp_lt_i32", |a, b| (a as i32) < b as i32),
        ("s_cmp_le_i32", |a, b| a as i32 <= b as i32),
        ("s_cmp_eq_u32", |a, b| a == b),
        ("s_cmp_lg_u32", |a, b| a != b),
        ("s_cmp_gt_u32", |a, b| a > b),
        ("s_cmp_ge_u32", |a, b| a >= b),
        ("s_cmp_lt_u32", |a, b| a < b),
        ("s_cmp_le_u32", |a, b| a <= b),
        // SCC = S0[S1[4:0]] == 0 / == 1.
        ("s_bitcmp0_b32", |a, b| a >> (b & 31) & 1 == 0),
        ("s_bitcmp1_b32", |a, b| a >> (b & 31) & 1 == 1),
    ];
    for (name, f) in ops {
        for a in V32 {
            for b in V32 {
                for scc in [false, true] {
                    let asm = format!("{name} s4, s5");
                    let w = run(&asm, |w| {
                        w.sgpr[4] = a;
                        w.sgpr[5] = b;
                        w.scc = scc;
                    })
                    .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                    let chk = |w: &gcnemu::wave::Wave| {
                        assert_eq!(w.scc, f(a, b), "{name} {a:#x}, {b:#x}");
                    };
                    chk(&w);
                    exec_common::vet(&w, chk);
                }
            }
        }
    }
    type G = fn(u64, u64) -> bool;
    let ops64: [(&str, &str, G); 4] = [
        ("s_cmp_eq_u64", "s[4:5], s[6:7]", |a, b| a == b),
        ("s_cmp_lg_u64", "s[4:5], s[6:7]", |a, b| a != b),
        // S1 is a 32-bit bit index, [5:0] used.
        ("s_bitcmp0_b64", "s[4:5], s6", |a, b| a >> (b & 63) & 1 == 0),
        ("s_bitcmp1_b64", "s[4:5], s6", |a, b| a >> (b & 63) & 1 == 1),
    ];
    for (name, ops, f) in ops64 {
        for a in V64 {
            for b in V64 {
                let asm = format!("{name} {ops}");
                let w = run(&asm, |w| {
                    w.set_pair(4, a);
                    w.set_pair(6, b);
                })
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                let chk = |w: &gcnemu::wave::Wave| {
                    let b = if ops.ends_with("s6") {
                        b & 0xffff_ffff
                    } else {
                        b
                    };
                    assert_eq!(w.scc, f(a, b), "{name} {a:#x}, {b:#x}");
                };
                chk(&w);
                exec_common::vet(&w, chk);
            }
        }
    }
}

#[test]
fn sopp_conditional_branches() {
    // Each branch skips `s_mov_b32 sN, 1` when taken; the conditions come from SCC and VCC.
    let cases: [(&str, bool, u64, bool); 8] = [
        ("s_cbranch_scc0", false, 0, true),
        ("s_cbranch_scc0", true, 0, false),
        ("s_cbranch_scc1", true, 0, true),
        ("s_cbranch_scc1", false, 0, false),
        ("s_cbranch_vccz", false, 0, true),
        ("s_cbranch_vccz", false, 1 << 63, false),
        ("s_cbranch_vccnz", false, 1 << 63, true),
        ("s_cbranch_vccnz", false, 0, false),
    ];
    for (name, scc, vcc, taken) in cases {
        let asm = format!("{name} skip\ns_mov_b32 s10, 1\nskip:\ns_mov_b32 s11, 2");
        let w = run(&asm, |w| {
            w.scc = scc;
            w.set_vcc(vcc);
        })
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            assert_eq!(
                w.sgpr[10],
                if taken { 0 } else { 1 },
                "{name} scc={scc} vcc={vcc:#x}"
            );
            assert_eq!(w.sgpr[11], 2);
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn sopp_ops_without_visible_effect_continue() {
    // Scheduling hints, performance counters, cache invalidation of the instruction cache,
    // messages and debugger branches (no debugger is attached: never taken) change no register
    // state visible to the program; execution goes on to the next instruction. s_barrier with a
    // single wave passes at once.
    let w = run(
        "s_mov_b32 s10, 7\ns_sleep 2\ns_setprio 3\ns_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)\ns_icache_inv\ns_incperflevel 1\ns_decperflevel 1\ns_ttracedata\ns_barrier\ns_cbranch_cdbgsys skip\ns_cbranch_cdbguser skip\ns_cbranch_cdbgsys_or_user skip\ns_cbranch_cdbgsys_and_user skip\ns_mov_b32 s11, 8\nskip:\ns_mov_b32 s12, 9",
        |w| w.scc = true,
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.sgpr[10], w.sgpr[11], w.sgpr[12]), (7, 8, 9));
        assert!(w.scc);
        assert_eq!(w.exec(), u64::MAX);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
