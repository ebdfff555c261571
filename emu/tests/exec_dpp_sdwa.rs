//! DPP and SDWA, the two VALU source/destination modifiers, against their definitions in the
//! Vega ISA ("Data Parallel Processing" and "Sub-Dword Addressing"):
//! - DPP: lane l of src0 is read from another lane: quad_perm (within each quad), row_shl/shr
//!   (lane l reads l ± n of its 16-lane row; outside the row is invalid), row_ror (rotate in the
//!   row), wave_shl/shr/rol/ror by one lane, row_mirror / row_half_mirror, row_bcast:15 (row r
//!   reads lane 16r-1; row 0 invalid) and row_bcast:31 (rows 2-3 read lane 31). An invalid
//!   source lane is not written, unless bound_ctrl:0 (BOUND_CTRL=1), which reads 0 instead.
//!   row_mask / bank_mask (4 lanes a bank in each row) leave unselected lanes unwritten.
//! - SDWA: each source is a byte / word / dword field, zero- or (sext) sign-extended; the result
//!   goes to a byte / word / dword field of the destination, the rest zero (UNUSED_PAD),
//!   sign-extended above the field (UNUSED_SEXT) or kept (UNUSED_PRESERVE).

mod exec_common;
use exec_common::run;

/// Source lane of `l` for a DPP control written as LLVM spells it, or None when invalid.
fn dpp_src(ctrl: &str, l: usize) -> Option<usize> {
    let (row, r) = (l / 16 * 16, l % 16);
    let num = |p: &str| ctrl.strip_prefix(p).map(|n| n.parse::<usize>().unwrap());
    if let Some(p) = ctrl.strip_prefix("quad_perm:[") {
        let sel: Vec<usize> = p
            .trim_end_matches(']')
            .split(',')
            .map(|x| x.parse().unwrap())
            .collect();
        return Some(l / 4 * 4 + sel[l % 4]);
    }
    if let Some(n) = num("row_shl:") {
        return (r + n < 16).then_some(l + n);
    }
    if let Some(n) = num("row_shr:") {
        return (r >= n).then(|| l - n);
    }
    if let Some(n) = num("row_ror:") {
        return Some(row + (r + 16 - n) % 16);
    }
    match ctrl {
        "wave_shl:1" => (l < 63).then_some(l + 1),
        "wave_rol:1" => Some((l + 1) % 64),
        "wave_shr:1" => l.checked_sub(1),
        "wave_ror:1" => Some((l + 63) % 64),
        "row_mirror" => Some(row + 15 - r),
        "row_half_mirror" => Some(l / 8 * 8 + 7 - l % 8),
        "row_bcast:15" => (row >= 16).then(|| row - 1),
        "row_bcast:31" => (l >= 32).then_some(31),
        _ => panic!("unknown DPP control {ctrl}"),
    }
}

fn dpp_controls() -> Vec<String> {
    let mut c: Vec<String> = [
        "quad_perm:[0,1,2,3]",
        "quad_perm:[3,2,1,0]",
        "quad_perm:[1,1,0,3]",
        "quad_perm:[2,0,3,1]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for n in 1..16 {
        c.push(format!("row_shl:{n}"));
        c.push(format!("row_shr:{n}"));
        c.push(format!("row_ror:{n}"));
    }
    for s in [
        "wave_shl:1",
        "wave_rol:1",
        "wave_shr:1",
        "wave_ror:1",
        "row_mirror",
        "row_half_mirror",
        "row_bcast:15",
        "row_bcast:31",
    ] {
        c.push(s.to_string());
    }
    c
}

#[test]
fn dpp_every_control_with_and_without_bound_ctrl() {
    for ctrl in dpp_controls() {
        for bound in [false, true] {
            let asm = format!(
                "v_mov_b32_dpp v1, v0 {ctrl} row_mask:0xf bank_mask:0xf{}",
                if bound { " bound_ctrl:0" } else { "" }
            );
            let w = run(&asm, |w| {
                for l in 0..64 {
                    w.vgpr[0][l] = 0x100 + l as u32;
                    w.vgpr[1][l] = 0xdead_0000 + l as u32;
                }
            })
            .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
            let chk = |w: &gcnemu::wave::Wave| {
                for l in 0..64 {
                    let want = match dpp_src(&ctrl, l) {
                        Some(s) => 0x100 + s as u32,
                        None if bound => 0,
                        None => 0xdead_0000 + l as u32,
                    };
                    assert_eq!(w.vgpr[1][l], want, "{asm}: lane {l}");
                }
            };
            chk(&w);
            exec_common::vet(&w, chk);
        }
    }
}

#[test]
fn dpp_row_and_bank_masks_and_an_alu_op() {
    // v_add_u32_dpp: DPP moves src0 only; row_mask 0b1010 and bank_mask 0b0110 select rows 1, 3
    // and banks 1, 2 (lanes 4-11 of each row); the other lanes keep v2. Lanes off in EXEC are
    // not written either, and are no source: lane 22 reads lane 21, which is off, so with
    // bound_ctrl it reads 0, as for a source outside the row.
    let asm = "v_add_u32_dpp v2, v0, v1 row_shr:1 row_mask:0xa bank_mask:0x6 bound_ctrl:0";
    let w = run(asm, |w| {
        w.set_exec(!(1u64 << 21));
        for l in 0..64 {
            w.vgpr[0][l] = 1000 * l as u32;
            w.vgpr[1][l] = l as u32;
            w.vgpr[2][l] = 7;
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for l in 0..64 {
            let (row, bank) = (l / 16, l % 16 / 4);
            let written = (row == 1 || row == 3) && (bank == 1 || bank == 2) && l != 21;
            let src0 = if l % 16 == 0 || l == 22 {
                0
            } else {
                1000 * (l as u32 - 1)
            };
            let want = if written { src0 + l as u32 } else { 7 };
            assert_eq!(w.vgpr[2][l], want, "lane {l}");
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

/// Source field of an SDWA select: BYTE_0..3, WORD_0/1 or DWORD, zero- or sign-extended.
fn sel(v: u32, s: &str, sext: bool) -> u32 {
    let (shift, bits) = match s {
        "BYTE_0" => (0, 8),
        "BYTE_1" => (8, 8),
        "BYTE_2" => (16, 8),
        "BYTE_3" => (24, 8),
        "WORD_0" => (0, 16),
        "WORD_1" => (16, 16),
        _ => return v,
    };
    let f = (v >> shift) & ((1u32 << bits) - 1);
    if sext && f >> (bits - 1) & 1 == 1 {
        f | !((1u32 << bits) - 1)
    } else {
        f
    }
}

/// The destination after writing `r` to field `s` with `unused` handling over `old`.
fn place(r: u32, s: &str, unused: &str, old: u32) -> u32 {
    let (shift, bits) = match s {
        "BYTE_0" => (0, 8),
        "BYTE_1" => (8, 8),
        "BYTE_2" => (16, 8),
        "BYTE_3" => (24, 8),
        "WORD_0" => (0, 16),
        "WORD_1" => (16, 16),
        _ => return r,
    };
    let mask = ((1u64 << bits) - 1) as u32;
    let field = (r & mask) << shift;
    match unused {
        "UNUSED_PAD" => field,
        "UNUSED_PRESERVE" => old & !(mask << shift) | field,
        // Sign of the field's top bit copied into every bit above it; bits below are zero.
        _ => {
            let top = shift + bits;
            if r >> (bits - 1) & 1 == 1 && top < 32 {
                field | (u32::MAX << top)
            } else {
                field
            }
        }
    }
}

const SELS: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];

#[test]
fn sdwa_source_selects_with_sext() {
    // v_add_u32_sdwa: D = sel(S0) + sel(S1), every pair of selects, zero- and sign-extended.
    let (a, b) = (0x8f7e_a5c3u32, 0x7081_92f4u32);
    for s0 in SELS {
        for s1 in SELS {
            for sx in [false, true] {
                let (o0, o1) = if sx {
                    ("sext(v0)", "sext(v1)")
                } else {
                    ("v0", "v1")
                };
                let asm = format!("v_add_u32_sdwa v2, {o0}, {o1} dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:{s0} src1_sel:{s1}");
                let w = run(&asm, |w| {
                    w.vgpr[0] = [a; 64];
                    w.vgpr[1] = [b; 64];
                })
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                let chk = |w: &gcnemu::wave::Wave| {
                    let want = sel(a, s0, sx).wrapping_add(sel(b, s1, sx));
                    assert_eq!(w.vgpr[2][0], want, "{asm}");
                };
                chk(&w);
                exec_common::vet(&w, chk);
            }
        }
    }
}

#[test]
fn sdwa_destination_selects_and_unused_bits() {
    // v_mov_b32_sdwa: the low bits of S0's field go to the selected destination field.
    let (src, old) = (0x1234_80f5u32, 0xa5a5_a5a5u32);
    for d in SELS {
        for unused in ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"] {
            for s in ["BYTE_0", "WORD_0", "DWORD"] {
                let asm =
                    format!("v_mov_b32_sdwa v1, v0 dst_sel:{d} dst_unused:{unused} src0_sel:{s}");
                let w = run(&asm, |w| {
                    w.vgpr[0] = [src; 64];
                    w.vgpr[1] = [old; 64];
                })
                .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
                let chk = |w: &gcnemu::wave::Wave| {
                    let want = place(sel(src, s, false), d, unused, old);
                    assert_eq!(
                        w.vgpr[1][0], want,
                        "{asm}: got {:#x} want {want:#x}",
                        w.vgpr[1][0]
                    );
                };
                chk(&w);
                exec_common::vet(&w, chk);
            }
        }
    }
}

#[test]
fn sdwa_f16_halves_neg_abs_and_compares() {
    // The compiler's half2 code on gfx900: an f16 add of the high halves into the high half
    // of D (the low half kept), |x| and -x on SDWA float sources, an f16 -> f32 conversion of a
    // high half, and a VOPC compare of selected bytes writing VCC.
    let h = |x: f32| half::f16::from_f32(x).to_bits() as u32;
    let asm = "v_add_f16_sdwa v2, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_1\n\
               v_mul_f32_sdwa v3, -v4, |v5| dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD\n\
               v_cvt_f32_f16_sdwa v6, v0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1\n\
               v_cmp_eq_u32_sdwa vcc, v7, v8 src0_sel:BYTE_1 src1_sel:BYTE_2";
    let w = run(asm, |w| {
        for l in 0..64 {
            w.vgpr[0][l] = h(1.5) << 16 | h(100.0);
            w.vgpr[1][l] = h(-0.25) << 16 | h(7.0);
            w.vgpr[2][l] = 0xbeef_1234;
            w.vgpr[4][l] = 3.0f32.to_bits();
            w.vgpr[5][l] = (-2.0f32).to_bits();
            w.vgpr[7][l] = (l as u32) << 8;
            w.vgpr[8][l] = if l % 3 == 0 {
                (l as u32) << 16
            } else {
                0xff << 16
            };
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], h(1.25) << 16 | 0x1234);
        assert_eq!(w.vgpr[3][0], (-6.0f32).to_bits());
        assert_eq!(w.vgpr[6][0], 1.5f32.to_bits());
        let want: u64 = (0..64)
            .filter(|l| l % 3 == 0 || *l == 0xff)
            .fold(0, |m, l| m | 1 << l);
        assert_eq!(w.vcc(), want);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
