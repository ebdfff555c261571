//! Scalar ALU (SOP1, SOP2, SOPK, SOPC) and program control (SOPP). Each op is one function with
//! its ISA pseudo-code; `resolve` maps mnemonics to them. (s_getreg/s_setreg: [`super::hwreg`].)

use super::valu::{scalar32, scalar64, Res};
use super::{Cx, Fault, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::WaveState;

#[inline]
fn s0(cx: &Cx, d: &Decoded) -> u32 {
    sgpr_first(cx, d.src[0])
}
#[inline]
fn s1(cx: &Cx, d: &Decoded) -> u32 {
    sgpr_first(cx, d.src[1])
}
/// A 32-bit source, an SGPR or a constant tested first (as [`sgpr_first64`]).
#[inline(always)]
fn sgpr_first(cx: &Cx, src: Src) -> u32 {
    match src {
        Src::Sgpr(c) => cx.wave.sgpr[c as usize],
        Src::Const(v) => v as u32,
        _ => scalar32_out_of_line(cx, src),
    }
}
/// (`valu` has its own copy, so that each is inlined as its callers' codegen unit prefers.)
#[inline(never)]
fn scalar32_out_of_line(cx: &Cx, src: Src) -> u32 {
    scalar32(cx, src)
}
#[inline]
fn s0_64(cx: &Cx, d: &Decoded) -> u64 {
    sgpr_first64(cx, d.src[0])
}
#[inline]
fn s1_64(cx: &Cx, d: &Decoded) -> u64 {
    sgpr_first64(cx, d.src[1])
}
/// A 64-bit source, an SGPR pair tested first: [`scalar64`]'s `match` over every kind is a
/// jump through a table, which the pairs (EXEC, VCC, masks) nearly every SOP op reads would
/// take too.
#[inline(always)]
fn sgpr_first64(cx: &Cx, src: Src) -> u64 {
    if let Src::Sgpr(c) = src {
        return cx.wave.pair(c as u16);
    }
    scalar64_out_of_line(cx, src)
}
#[inline(never)]
fn scalar64_out_of_line(cx: &Cx, src: Src) -> u64 {
    scalar64(cx, src)
}
#[inline]
fn set(cx: &mut Cx, d: &Decoded, v: u32) {
    cx.wave.sgpr[d.sdst as usize & 127] = v;
}
#[inline]
fn set64(cx: &mut Cx, d: &Decoded, v: u64) {
    cx.wave.set_pair(d.sdst & 126, v);
}
#[inline]
fn ok() -> Res {
    Ok(Flow::Continue)
}

/// SOP2/SOP1 ops of the form `D = f(S0, S1); SCC = (D != 0)` and friends.
macro_rules! sop {
    ($($name:ident ($cx:ident, $d:ident) $body:block)*) => {
        $(fn $name($cx: &mut Cx, $d: &Decoded) -> Res { $body ok() })*
    };
}

fn bitop32(cx: &mut Cx, d: &Decoded, v: u32) {
    set(cx, d, v);
    cx.wave.scc = v != 0;
}

fn bitop64(cx: &mut Cx, d: &Decoded, v: u64) {
    set64(cx, d, v);
    cx.wave.scc = v != 0;
}

/// D = EXEC; EXEC = f(S0, EXEC); SCC = (EXEC != 0).
fn saveexec(cx: &mut Cx, d: &Decoded, f: impl Fn(u64, u64) -> u64) -> Res {
    let s = s0_64(cx, d);
    let exec = cx.wave.exec();
    set64(cx, d, exec);
    let new = f(s, exec);
    cx.wave.set_exec(new);
    cx.wave.scc = new != 0;
    ok()
}

/// Bit field parameters of s_bfe: offset S1[4:0] (or [5:0]), width S1[22:16].
fn bfe(v: u64, s1: u32, bits: u32, signed: bool) -> u64 {
    let off = s1 & (bits - 1);
    let width = (s1 >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    // A field running past the top bit has only the bits that exist, and the signed form takes
    // its sign from the top one: the ISA's `(S0.i >> offset) & mask` is an arithmetic shift.
    let width = width.min(bits - off);
    let field = if width >= 64 {
        v >> off
    } else {
        (v >> off) & ((1u64 << width) - 1)
    };
    if signed && width < 64 {
        let sh = 64 - width;
        (((field << sh) as i64) >> sh) as u64
    } else {
        field
    }
}

sop! {
    // ---- SOP2 ----
    s_add_u32(cx, d) { let (r, c) = s0(cx, d).overflowing_add(s1(cx, d)); set(cx, d, r); cx.wave.scc = c; }
    s_sub_u32(cx, d) { let (r, c) = s0(cx, d).overflowing_sub(s1(cx, d)); set(cx, d, r); cx.wave.scc = c; }
    s_add_i32(cx, d) { let (r, o) = (s0(cx, d) as i32).overflowing_add(s1(cx, d) as i32); set(cx, d, r as u32); cx.wave.scc = o; }
    s_sub_i32(cx, d) { let (r, o) = (s0(cx, d) as i32).overflowing_sub(s1(cx, d) as i32); set(cx, d, r as u32); cx.wave.scc = o; }
    s_addc_u32(cx, d) {
        let s = s0(cx, d) as u64 + s1(cx, d) as u64 + cx.wave.scc as u64;
        set(cx, d, s as u32); cx.wave.scc = s >> 32 != 0;
    }
    s_subb_u32(cx, d) {
        let (a, b) = (s0(cx, d) as u64, s1(cx, d) as u64 + cx.wave.scc as u64);
        set(cx, d, a.wrapping_sub(b) as u32); cx.wave.scc = b > a;
    }
    s_min_i32(cx, d) { let (a, b) = (s0(cx, d) as i32, s1(cx, d) as i32); set(cx, d, a.min(b) as u32); cx.wave.scc = a < b; }
    s_min_u32(cx, d) { let (a, b) = (s0(cx, d), s1(cx, d)); set(cx, d, a.min(b)); cx.wave.scc = a < b; }
    s_max_i32(cx, d) { let (a, b) = (s0(cx, d) as i32, s1(cx, d) as i32); set(cx, d, a.max(b) as u32); cx.wave.scc = a > b; }
    s_max_u32(cx, d) { let (a, b) = (s0(cx, d), s1(cx, d)); set(cx, d, a.max(b)); cx.wave.scc = a > b; }
    s_cselect_b32(cx, d) { let v = if cx.wave.scc { s0(cx, d) } else { s1(cx, d) }; set(cx, d, v); }
    s_cselect_b64(cx, d) { let v = if cx.wave.scc { s0_64(cx, d) } else { s1_64(cx, d) }; set64(cx, d, v); }
    s_and_b32(cx, d) { let v = s0(cx, d) & s1(cx, d); bitop32(cx, d, v); }
    s_and_b64(cx, d) { let v = s0_64(cx, d) & s1_64(cx, d); bitop64(cx, d, v); }
    s_or_b32(cx, d) { let v = s0(cx, d) | s1(cx, d); bitop32(cx, d, v); }
    s_or_b64(cx, d) { let v = s0_64(cx, d) | s1_64(cx, d); bitop64(cx, d, v); }
    s_xor_b32(cx, d) { let v = s0(cx, d) ^ s1(cx, d); bitop32(cx, d, v); }
    s_xor_b64(cx, d) { let v = s0_64(cx, d) ^ s1_64(cx, d); bitop64(cx, d, v); }
    s_andn2_b32(cx, d) { let v = s0(cx, d) & !s1(cx, d); bitop32(cx, d, v); }
    s_andn2_b64(cx, d) { let v = s0_64(cx, d) & !s1_64(cx, d); bitop64(cx, d, v); }
    s_orn2_b32(cx, d) { let v = s0(cx, d) | !s1(cx, d); bitop32(cx, d, v); }
    s_orn2_b64(cx, d) { let v = s0_64(cx, d) | !s1_64(cx, d); bitop64(cx, d, v); }
    s_nand_b32(cx, d) { let v = !(s0(cx, d) & s1(cx, d)); bitop32(cx, d, v); }
    s_nand_b64(cx, d) { let v = !(s0_64(cx, d) & s1_64(cx, d)); bitop64(cx, d, v); }
    s_nor_b32(cx, d) { let v = !(s0(cx, d) | s1(cx, d)); bitop32(cx, d, v); }
    s_nor_b64(cx, d) { let v = !(s0_64(cx, d) | s1_64(cx, d)); bitop64(cx, d, v); }
    s_xnor_b32(cx, d) { let v = !(s0(cx, d) ^ s1(cx, d)); bitop32(cx, d, v); }
    s_xnor_b64(cx, d) { let v = !(s0_64(cx, d) ^ s1_64(cx, d)); bitop64(cx, d, v); }
    // Shifts take the amount from S1[4:0] (S1[5:0] for 64-bit).
    s_lshl_b32(cx, d) { let v = s0(cx, d) << (s1(cx, d) & 31); bitop32(cx, d, v); }
    s_lshl_b64(cx, d) { let v = s0_64(cx, d) << (s1(cx, d) & 63); bitop64(cx, d, v); }
    s_lshr_b32(cx, d) { let v = s0(cx, d) >> (s1(cx, d) & 31); bitop32(cx, d, v); }
    s_lshr_b64(cx, d) { let v = s0_64(cx, d) >> (s1(cx, d) & 63); bitop64(cx, d, v); }
    s_ashr_i32(cx, d) { let v = ((s0(cx, d) as i32) >> (s1(cx, d) & 31)) as u32; bitop32(cx, d, v); }
    s_ashr_i64(cx, d) { let v = ((s0_64(cx, d) as i64) >> (s1(cx, d) & 63)) as u64; bitop64(cx, d, v); }
    s_bfm_b32(cx, d) { let v = ((1u64 << (s0(cx, d) & 31)) as u32).wrapping_sub(1) << (s1(cx, d) & 31); set(cx, d, v); }
    s_bfm_b64(cx, d) { let v = ((1u128 << (s0(cx, d) & 63)) as u64).wrapping_sub(1) << (s1(cx, d) & 63); set64(cx, d, v); }
    s_mul_i32(cx, d) { let v = s0(cx, d).wrapping_mul(s1(cx, d)); set(cx, d, v); }
    s_mul_hi_u32(cx, d) { let v = ((s0(cx, d) as u64 * s1(cx, d) as u64) >> 32) as u32; set(cx, d, v); }
    s_mul_hi_i32(cx, d) { let v = ((s0(cx, d) as i32 as i64 * s1(cx, d) as i32 as i64) >> 32) as u32; set(cx, d, v); }
    s_bfe_u32(cx, d) { let v = bfe(s0(cx, d) as u64, s1(cx, d), 32, false) as u32; bitop32(cx, d, v); }
    s_bfe_i32(cx, d) { let v = bfe(s0(cx, d) as u64, s1(cx, d), 32, true) as u32; bitop32(cx, d, v); }
    s_bfe_u64(cx, d) { let v = bfe(s0_64(cx, d), s1(cx, d), 64, false); bitop64(cx, d, v); }
    s_bfe_i64(cx, d) { let v = bfe(s0_64(cx, d), s1(cx, d), 64, true); bitop64(cx, d, v); }
    s_absdiff_i32(cx, d) { let v = (s0(cx, d) as i32).wrapping_sub(s1(cx, d) as i32).unsigned_abs(); bitop32(cx, d, v); }
    // gfx9: D = (S0 << n) + S1; SCC = unsigned overflow of the whole operation.
    s_lshl1_add_u32(cx, d) { lshl_add(cx, d, 1); }
    s_lshl2_add_u32(cx, d) { lshl_add(cx, d, 2); }
    s_lshl3_add_u32(cx, d) { lshl_add(cx, d, 3); }
    s_lshl4_add_u32(cx, d) { lshl_add(cx, d, 4); }
    s_pack_ll_b32_b16(cx, d) { let v = (s0(cx, d) & 0xffff) | s1(cx, d) << 16; set(cx, d, v); }
    s_pack_lh_b32_b16(cx, d) { let v = (s0(cx, d) & 0xffff) | (s1(cx, d) & 0xffff_0000); set(cx, d, v); }
    s_pack_hh_b32_b16(cx, d) { let v = (s0(cx, d) >> 16) | (s1(cx, d) & 0xffff_0000); set(cx, d, v); }

    // ---- SOP1 ----
    s_mov_b32(cx, d) { let v = s0(cx, d); set(cx, d, v); }
    s_mov_b64(cx, d) { let v = s0_64(cx, d); set64(cx, d, v); }
    s_cmov_b32(cx, d) { if cx.wave.scc { let v = s0(cx, d); set(cx, d, v); } }
    s_cmov_b64(cx, d) { if cx.wave.scc { let v = s0_64(cx, d); set64(cx, d, v); } }
    s_not_b32(cx, d) { let v = !s0(cx, d); bitop32(cx, d, v); }
    s_not_b64(cx, d) { let v = !s0_64(cx, d); bitop64(cx, d, v); }
    s_wqm_b32(cx, d) { let v = wqm(s0(cx, d) as u64) as u32; bitop32(cx, d, v); }
    s_wqm_b64(cx, d) { let v = wqm(s0_64(cx, d)); bitop64(cx, d, v); }
    s_brev_b32(cx, d) { let v = s0(cx, d).reverse_bits(); set(cx, d, v); }
    s_brev_b64(cx, d) { let v = s0_64(cx, d).reverse_bits(); set64(cx, d, v); }
    s_bcnt0_i32_b32(cx, d) { let v = s0(cx, d).count_zeros(); bitop32(cx, d, v); }
    s_bcnt0_i32_b64(cx, d) { let v = s0_64(cx, d).count_zeros(); bitop32(cx, d, v); }
    s_bcnt1_i32_b32(cx, d) { let v = s0(cx, d).count_ones(); bitop32(cx, d, v); }
    s_bcnt1_i32_b64(cx, d) { let v = s0_64(cx, d).count_ones(); bitop32(cx, d, v); }
    // Position of the first 0/1 from the LSB, or -1.
    s_ff0_i32_b32(cx, d) { let a = s0(cx, d); set(cx, d, if a == !0 { !0 } else { a.trailing_ones() }); }
    s_ff0_i32_b64(cx, d) { let a = s0_64(cx, d); set(cx, d, if a == !0 { !0 } else { a.trailing_ones() }); }
    s_ff1_i32_b32(cx, d) { let a = s0(cx, d); set(cx, d, if a == 0 { !0 } else { a.trailing_zeros() }); }
    s_ff1_i32_b64(cx, d) { let a = s0_64(cx, d); set(cx, d, if a == 0 { !0 } else { a.trailing_zeros() }); }
    // Position of the first 1 from the MSB, or -1; the _i32 forms skip leading sign bits.
    s_flbit_i32_b32(cx, d) { let a = s0(cx, d); set(cx, d, if a == 0 { !0 } else { a.leading_zeros() }); }
    s_flbit_i32_b64(cx, d) { let a = s0_64(cx, d); set(cx, d, if a == 0 { !0 } else { a.leading_zeros() }); }
    s_flbit_i32(cx, d) {
        let a = s0(cx, d) as i32;
        set(cx, d, if a == 0 || a == -1 { !0 } else { (a ^ (a >> 31)).leading_zeros() });
    }
    s_flbit_i32_i64(cx, d) {
        let a = s0_64(cx, d) as i64;
        set(cx, d, if a == 0 || a == -1 { !0 } else { (a ^ (a >> 63)).leading_zeros() });
    }
    s_sext_i32_i8(cx, d) { let v = s0(cx, d) as i8 as i32 as u32; set(cx, d, v); }
    s_sext_i32_i16(cx, d) { let v = s0(cx, d) as i16 as i32 as u32; set(cx, d, v); }
    s_bitset0_b32(cx, d) { let b = s0(cx, d) & 31; let v = cx.wave.sgpr[d.sdst as usize & 127] & !(1 << b); set(cx, d, v); }
    s_bitset1_b32(cx, d) { let b = s0(cx, d) & 31; let v = cx.wave.sgpr[d.sdst as usize & 127] | (1 << b); set(cx, d, v); }
    s_bitset0_b64(cx, d) { let b = s0(cx, d) & 63; let v = cx.wave.pair(d.sdst & 126) & !(1 << b); set64(cx, d, v); }
    s_bitset1_b64(cx, d) { let b = s0(cx, d) & 63; let v = cx.wave.pair(d.sdst & 126) | (1 << b); set64(cx, d, v); }
    s_abs_i32(cx, d) { let v = (s0(cx, d) as i32).unsigned_abs(); bitop32(cx, d, v); }
    s_quadmask_b32(cx, d) { let v = quadmask(s0(cx, d) as u64) as u32; bitop32(cx, d, v); }
    s_quadmask_b64(cx, d) { let v = quadmask(s0_64(cx, d)); bitop64(cx, d, v); }
    // Return address of s_getpc is the next instruction.
    s_getpc_b64(cx, d) { set64(cx, d, d.pc + 4); }

    // ---- SOPC: SCC = compare(S0, S1) ----
    s_cmp_eq_i32(cx, d) { cx.wave.scc = s0(cx, d) == s1(cx, d); }
    s_cmp_lg_i32(cx, d) { cx.wave.scc = s0(cx, d) != s1(cx, d); }
    s_cmp_gt_i32(cx, d) { cx.wave.scc = (s0(cx, d) as i32) > s1(cx, d) as i32; }
    s_cmp_ge_i32(cx, d) { cx.wave.scc = (s0(cx, d) as i32) >= s1(cx, d) as i32; }
    s_cmp_lt_i32(cx, d) { cx.wave.scc = (s0(cx, d) as i32) < (s1(cx, d) as i32); }
    s_cmp_le_i32(cx, d) { cx.wave.scc = (s0(cx, d) as i32) <= s1(cx, d) as i32; }
    s_cmp_eq_u32(cx, d) { cx.wave.scc = s0(cx, d) == s1(cx, d); }
    s_cmp_lg_u32(cx, d) { cx.wave.scc = s0(cx, d) != s1(cx, d); }
    s_cmp_gt_u32(cx, d) { cx.wave.scc = s0(cx, d) > s1(cx, d); }
    s_cmp_ge_u32(cx, d) { cx.wave.scc = s0(cx, d) >= s1(cx, d); }
    s_cmp_lt_u32(cx, d) { cx.wave.scc = s0(cx, d) < s1(cx, d); }
    s_cmp_le_u32(cx, d) { cx.wave.scc = s0(cx, d) <= s1(cx, d); }
    s_cmp_eq_u64(cx, d) { cx.wave.scc = s0_64(cx, d) == s1_64(cx, d); }
    s_cmp_lg_u64(cx, d) { cx.wave.scc = s0_64(cx, d) != s1_64(cx, d); }
    s_bitcmp0_b32(cx, d) { cx.wave.scc = s0(cx, d) >> (s1(cx, d) & 31) & 1 == 0; }
    s_bitcmp1_b32(cx, d) { cx.wave.scc = s0(cx, d) >> (s1(cx, d) & 31) & 1 == 1; }
    s_bitcmp0_b64(cx, d) { cx.wave.scc = s0_64(cx, d) >> (s1(cx, d) & 63) & 1 == 0; }
    s_bitcmp1_b64(cx, d) { cx.wave.scc = s0_64(cx, d) >> (s1(cx, d) & 63) & 1 == 1; }

    // ---- SOPK: simm16 is sign-extended for _i32, zero-extended for _u32 ----
    s_movk_i32(cx, d) { set(cx, d, simm(d)); }
    s_cmovk_i32(cx, d) { if cx.wave.scc { set(cx, d, simm(d)); } }
    s_addk_i32(cx, d) {
        let old = cx.wave.sgpr[d.sdst as usize & 127] as i32;
        let (r, o) = old.overflowing_add(simm(d) as i32);
        set(cx, d, r as u32); cx.wave.scc = o;
    }
    s_mulk_i32(cx, d) { let v = cx.wave.sgpr[d.sdst as usize & 127].wrapping_mul(simm(d)); set(cx, d, v); }
    s_cmpk_eq_i32(cx, d) { cx.wave.scc = sk(cx, d) as i32 == simm(d) as i32; }
    s_cmpk_lg_i32(cx, d) { cx.wave.scc = sk(cx, d) as i32 != simm(d) as i32; }
    s_cmpk_gt_i32(cx, d) { cx.wave.scc = sk(cx, d) as i32 > simm(d) as i32; }
    s_cmpk_ge_i32(cx, d) { cx.wave.scc = sk(cx, d) as i32 >= simm(d) as i32; }
    s_cmpk_lt_i32(cx, d) { cx.wave.scc = (sk(cx, d) as i32) < simm(d) as i32; }
    s_cmpk_le_i32(cx, d) { cx.wave.scc = sk(cx, d) as i32 <= simm(d) as i32; }
    s_cmpk_eq_u32(cx, d) { cx.wave.scc = sk(cx, d) == uimm(d); }
    s_cmpk_lg_u32(cx, d) { cx.wave.scc = sk(cx, d) != uimm(d); }
    s_cmpk_gt_u32(cx, d) { cx.wave.scc = sk(cx, d) > uimm(d); }
    s_cmpk_ge_u32(cx, d) { cx.wave.scc = sk(cx, d) >= uimm(d); }
    s_cmpk_lt_u32(cx, d) { cx.wave.scc = sk(cx, d) < uimm(d); }
    s_cmpk_le_u32(cx, d) { cx.wave.scc = sk(cx, d) <= uimm(d); }

    // ---- SOPP without control flow ----
    s_nop(_cx, _d) {}
    // Scheduling hints and cache controls have no functional effect.
    s_sleep(_cx, _d) {}
    s_setprio(_cx, _d) {}
    s_icache_inv(_cx, _d) {}
    s_incperflevel(_cx, _d) {}
    s_decperflevel(_cx, _d) {}
    s_ttracedata(_cx, _d) {}
}

fn lshl_add(cx: &mut Cx, d: &Decoded, n: u32) {
    let wide = ((s0(cx, d) as u64) << n) + s1(cx, d) as u64;
    set(cx, d, wide as u32);
    cx.wave.scc = wide >> 32 != 0;
}

/// The SOPK destination's current value.
fn sk(cx: &Cx, d: &Decoded) -> u32 {
    cx.wave.sgpr[d.sdst as usize & 127]
}
fn simm(d: &Decoded) -> u32 {
    d.inst.simm16() as i16 as i32 as u32
}
fn uimm(d: &Decoded) -> u32 {
    d.inst.simm16() as u32
}

/// Whole quad mode: each 4-bit group becomes all ones if any bit of it is set.
fn wqm(v: u64) -> u64 {
    let mut out = 0;
    for q in 0..16 {
        if v >> (4 * q) & 0xf != 0 {
            out |= 0xf << (4 * q);
        }
    }
    out
}

/// Bit q of the result is set if any bit of group q of four is set.
fn quadmask(v: u64) -> u64 {
    let mut out = 0;
    for q in 0..16 {
        if v >> (4 * q) & 0xf != 0 {
            out |= 1 << q;
        }
    }
    out
}

// ---- control flow ----

fn jump(cx: &mut Cx, d: &Decoded) -> Res {
    if d.target == u32::MAX {
        let addr = d.inst.branch_target(d.pc).unwrap_or(0);
        return Err(Fault::BadJump { addr });
    }
    cx.wave.pc = d.target;
    ok()
}

fn branch_if(cx: &mut Cx, d: &Decoded, taken: bool) -> Res {
    if taken {
        jump(cx, d)
    } else {
        ok()
    }
}

fn s_branch(cx: &mut Cx, d: &Decoded) -> Res {
    jump(cx, d)
}
fn s_cbranch_scc0(cx: &mut Cx, d: &Decoded) -> Res {
    branch_if(cx, d, !cx.wave.scc)
}
fn s_cbranch_scc1(cx: &mut Cx, d: &Decoded) -> Res {
    branch_if(cx, d, cx.wave.scc)
}
fn s_cbranch_vccz(cx: &mut Cx, d: &Decoded) -> Res {
    branch_if(cx, d, cx.wave.vcc() == 0)
}
fn s_cbranch_vccnz(cx: &mut Cx, d: &Decoded) -> Res {
    branch_if(cx, d, cx.wave.vcc() != 0)
}
fn s_cbranch_execz(cx: &mut Cx, d: &Decoded) -> Res {
    branch_if(cx, d, cx.wave.exec() == 0)
}
fn s_cbranch_execnz(cx: &mut Cx, d: &Decoded) -> Res {
    branch_if(cx, d, cx.wave.exec() != 0)
}
/// Debugger branches: no debugger is attached, so never taken.
fn s_cbranch_cdbg(_: &mut Cx, _: &Decoded) -> Res {
    ok()
}

fn goto_addr(cx: &mut Cx, addr: u64) -> Res {
    match cx.program.index_of_pc(addr) {
        Some(i) => {
            cx.wave.pc = i;
            ok()
        }
        None => Err(Fault::BadJump { addr }),
    }
}

/// PC = S0.u64.
fn s_setpc_b64(cx: &mut Cx, d: &Decoded) -> Res {
    let addr = s0_64(cx, d);
    goto_addr(cx, addr)
}

/// D.u64 = PC + 4; PC = S0.u64.
fn s_swappc_b64(cx: &mut Cx, d: &Decoded) -> Res {
    let addr = s0_64(cx, d);
    set64(cx, d, d.pc + 4);
    goto_addr(cx, addr)
}

/// D.u64 = PC + 4; PC = PC + simm16 * 4 + 4.
fn s_call_b64(cx: &mut Cx, d: &Decoded) -> Res {
    set64(cx, d, d.pc + 4);
    let addr = (d.pc as i64 + 4 + d.inst.simm16() as i16 as i64 * 4) as u64;
    goto_addr(cx, addr)
}

fn s_endpgm(cx: &mut Cx, _: &Decoded) -> Res {
    cx.wave.state = WaveState::Ended;
    Ok(Flow::End)
}

fn s_barrier(cx: &mut Cx, _: &Decoded) -> Res {
    cx.lds.note_barrier(cx.wave.index);
    Ok(Flow::Barrier)
}

/// Stalls until the counters are at or below the fields of simm16.
fn s_waitcnt(cx: &mut Cx, d: &Decoded) -> Res {
    if cx.wave.counters.satisfies(d.inst.simm16()) {
        ok()
    } else {
        Ok(Flow::Stall)
    }
}

fn s_trap(_: &mut Cx, d: &Decoded) -> Res {
    Err(Fault::Trap(d.inst.simm16() & 0xff))
}

/// No message has a functional effect in compute emulation except ending the wave, which
/// s_endpgm does; a message is accepted and dropped.
pub(super) fn s_sendmsg(_: &mut Cx, _: &Decoded) -> Res {
    ok()
}

/// EXEC = f(S0, EXEC); SDST = EXEC; SCC = EXEC != 0.
fn wrexec(cx: &mut Cx, d: &Decoded, f: fn(u64, u64) -> u64) -> Res {
    let s = s0_64(cx, d);
    let new = f(s, cx.wave.exec());
    cx.wave.set_exec(new);
    cx.wave.set_pair(d.sdst & 126, new);
    cx.wave.scc = new != 0;
    Ok(Flow::Continue)
}

/// Each bit of S0.u32 twice: bit i goes to bits 2i and 2i+1.
pub fn bitreplicate(v: u32) -> u64 {
    (0..32).fold(0u64, |r, i| r | (((v as u64 >> i) & 1) * (3 << (2 * i))))
}

semantics! {
    S_ANDN1_WREXEC_B64 => |cx, d| wrexec(cx, d, |s, e| !s & e);
    S_ANDN2_WREXEC_B64 => |cx, d| wrexec(cx, d, |s, e| s & !e);
    S_BITREPLICATE_B64_B32 => |cx, d| {
        let v = bitreplicate(s0(cx, d));
        set64(cx, d, v);
        ok()
    };
    S_NOP => s_nop;
    S_SLEEP => s_sleep;
    S_SETPRIO => s_setprio;
    S_ICACHE_INV => s_icache_inv;
    S_INCPERFLEVEL => s_incperflevel;
    S_DECPERFLEVEL => s_decperflevel;
    S_TTRACEDATA => s_ttracedata;
    S_ADD_U32 => s_add_u32;
    S_SUB_U32 => s_sub_u32;
    S_ADD_I32 => s_add_i32;
    S_SUB_I32 => s_sub_i32;
    S_ADDC_U32 => s_addc_u32;
    S_SUBB_U32 => s_subb_u32;
    S_MIN_I32 => s_min_i32;
    S_MIN_U32 => s_min_u32;
    S_MAX_I32 => s_max_i32;
    S_MAX_U32 => s_max_u32;
    S_CSELECT_B32 => s_cselect_b32;
    S_CSELECT_B64 => s_cselect_b64;
    S_AND_B32 => s_and_b32;
    S_AND_B64 => s_and_b64;
    S_OR_B32 => s_or_b32;
    S_OR_B64 => s_or_b64;
    S_XOR_B32 => s_xor_b32;
    S_XOR_B64 => s_xor_b64;
    S_ANDN2_B32 => s_andn2_b32;
    S_ANDN2_B64 => s_andn2_b64;
    S_ORN2_B32 => s_orn2_b32;
    S_ORN2_B64 => s_orn2_b64;
    S_NAND_B32 => s_nand_b32;
    S_NAND_B64 => s_nand_b64;
    S_NOR_B32 => s_nor_b32;
    S_NOR_B64 => s_nor_b64;
    S_XNOR_B32 => s_xnor_b32;
    S_XNOR_B64 => s_xnor_b64;
    S_LSHL_B32 => s_lshl_b32;
    S_LSHL_B64 => s_lshl_b64;
    S_LSHR_B32 => s_lshr_b32;
    S_LSHR_B64 => s_lshr_b64;
    S_ASHR_I32 => s_ashr_i32;
    S_ASHR_I64 => s_ashr_i64;
    S_BFM_B32 => s_bfm_b32;
    S_BFM_B64 => s_bfm_b64;
    S_MUL_I32 => s_mul_i32;
    S_MUL_HI_U32 => s_mul_hi_u32;
    S_MUL_HI_I32 => s_mul_hi_i32;
    S_BFE_U32 => s_bfe_u32;
    S_BFE_I32 => s_bfe_i32;
    S_BFE_U64 => s_bfe_u64;
    S_BFE_I64 => s_bfe_i64;
    S_ABSDIFF_I32 => s_absdiff_i32;
    S_LSHL1_ADD_U32 => s_lshl1_add_u32;
    S_LSHL2_ADD_U32 => s_lshl2_add_u32;
    S_LSHL3_ADD_U32 => s_lshl3_add_u32;
    S_LSHL4_ADD_U32 => s_lshl4_add_u32;
    S_PACK_LL_B32_B16 => s_pack_ll_b32_b16;
    S_PACK_LH_B32_B16 => s_pack_lh_b32_b16;
    S_PACK_HH_B32_B16 => s_pack_hh_b32_b16;
    S_MOV_B32 => s_mov_b32;
    S_MOV_B64 => s_mov_b64;
    S_CMOV_B32 => s_cmov_b32;
    S_CMOV_B64 => s_cmov_b64;
    S_NOT_B32 => s_not_b32;
    S_NOT_B64 => s_not_b64;
    S_WQM_B32 => s_wqm_b32;
    S_WQM_B64 => s_wqm_b64;
    S_BREV_B32 => s_brev_b32;
    S_BREV_B64 => s_brev_b64;
    S_BCNT0_I32_B32 => s_bcnt0_i32_b32;
    S_BCNT0_I32_B64 => s_bcnt0_i32_b64;
    S_BCNT1_I32_B32 => s_bcnt1_i32_b32;
    S_BCNT1_I32_B64 => s_bcnt1_i32_b64;
    S_FF0_I32_B32 => s_ff0_i32_b32;
    S_FF0_I32_B64 => s_ff0_i32_b64;
    S_FF1_I32_B32 => s_ff1_i32_b32;
    S_FF1_I32_B64 => s_ff1_i32_b64;
    S_FLBIT_I32_B32 => s_flbit_i32_b32;
    S_FLBIT_I32_B64 => s_flbit_i32_b64;
    S_FLBIT_I32 => s_flbit_i32;
    S_FLBIT_I32_I64 => s_flbit_i32_i64;
    S_SEXT_I32_I8 => s_sext_i32_i8;
    S_SEXT_I32_I16 => s_sext_i32_i16;
    S_BITSET0_B32 => s_bitset0_b32;
    S_BITSET1_B32 => s_bitset1_b32;
    S_BITSET0_B64 => s_bitset0_b64;
    S_BITSET1_B64 => s_bitset1_b64;
    S_ABS_I32 => s_abs_i32;
    S_QUADMASK_B32 => s_quadmask_b32;
    S_QUADMASK_B64 => s_quadmask_b64;
    S_GETPC_B64 => s_getpc_b64;
    S_CMP_EQ_I32 => s_cmp_eq_i32;
    S_CMP_LG_I32 => s_cmp_lg_i32;
    S_CMP_GT_I32 => s_cmp_gt_i32;
    S_CMP_GE_I32 => s_cmp_ge_i32;
    S_CMP_LT_I32 => s_cmp_lt_i32;
    S_CMP_LE_I32 => s_cmp_le_i32;
    S_CMP_EQ_U32 => s_cmp_eq_u32;
    S_CMP_LG_U32 => s_cmp_lg_u32;
    S_CMP_GT_U32 => s_cmp_gt_u32;
    S_CMP_GE_U32 => s_cmp_ge_u32;
    S_CMP_LT_U32 => s_cmp_lt_u32;
    S_CMP_LE_U32 => s_cmp_le_u32;
    S_CMP_EQ_U64 => s_cmp_eq_u64;
    S_CMP_LG_U64 => s_cmp_lg_u64;
    S_BITCMP0_B32 => s_bitcmp0_b32;
    S_BITCMP1_B32 => s_bitcmp1_b32;
    S_BITCMP0_B64 => s_bitcmp0_b64;
    S_BITCMP1_B64 => s_bitcmp1_b64;
    S_MOVK_I32 => s_movk_i32;
    S_CMOVK_I32 => s_cmovk_i32;
    S_ADDK_I32 => s_addk_i32;
    S_MULK_I32 => s_mulk_i32;
    S_CMPK_EQ_I32 => s_cmpk_eq_i32;
    S_CMPK_LG_I32 => s_cmpk_lg_i32;
    S_CMPK_GT_I32 => s_cmpk_gt_i32;
    S_CMPK_GE_I32 => s_cmpk_ge_i32;
    S_CMPK_LT_I32 => s_cmpk_lt_i32;
    S_CMPK_LE_I32 => s_cmpk_le_i32;
    S_CMPK_EQ_U32 => s_cmpk_eq_u32;
    S_CMPK_LG_U32 => s_cmpk_lg_u32;
    S_CMPK_GT_U32 => s_cmpk_gt_u32;
    S_CMPK_GE_U32 => s_cmpk_ge_u32;
    S_CMPK_LT_U32 => s_cmpk_lt_u32;
    S_CMPK_LE_U32 => s_cmpk_le_u32;
    S_AND_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| s & e);
    S_OR_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| s | e);
    S_XOR_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| s ^ e);
    S_ANDN2_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| s & !e);
    S_ORN2_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| s | !e);
    S_NAND_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| !(s & e));
    S_NOR_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| !(s | e));
    S_XNOR_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| !(s ^ e));
    S_ANDN1_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| !s & e);
    S_ORN1_SAVEEXEC_B64 => |cx, d| saveexec(cx, d, |s, e| !s | e);
    S_BRANCH => s_branch;
    S_CBRANCH_SCC0 => s_cbranch_scc0;
    S_CBRANCH_SCC1 => s_cbranch_scc1;
    S_CBRANCH_VCCZ => s_cbranch_vccz;
    S_CBRANCH_VCCNZ => s_cbranch_vccnz;
    S_CBRANCH_EXECZ => s_cbranch_execz;
    S_CBRANCH_EXECNZ => s_cbranch_execnz;
    S_CBRANCH_CDBGSYS => s_cbranch_cdbg;
    S_CBRANCH_CDBGUSER => s_cbranch_cdbg;
    S_CBRANCH_CDBGSYS_OR_USER => s_cbranch_cdbg;
    S_CBRANCH_CDBGSYS_AND_USER => s_cbranch_cdbg;
    S_SETPC_B64 => s_setpc_b64;
    S_SWAPPC_B64 => s_swappc_b64;
    S_CALL_B64 => s_call_b64;
    S_ENDPGM => s_endpgm;
    S_BARRIER => s_barrier;
    S_WAITCNT => s_waitcnt;
    S_TRAP => s_trap;
    S_SENDMSG => s_sendmsg;
}
