//! What every VALU op shares: reading sources for all 64 lanes (SGPR/constant broadcast, DPP lane
//! movement, SDWA selection), input and output modifiers, and writing results under EXEC (with
//! DPP row/bank masks and SDWA destination selection). The per-op files only supply the lane
//! function, so each op is one line.

use super::{Cx, Fault, Flow};
use crate::exec::program::{Decoded, Src};
use crate::memory::{APERTURE_SIZE, PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};
use crate::wave::{lane_masks, mode, Row, WAVE_SIZE};
use gcn_isa::Enc;

pub type Row64 = [u64; WAVE_SIZE];
pub type Res = Result<Flow, Fault>;

/// The 32-bit value of a scalar source (SGPR, constant or special).
#[inline]
pub fn scalar32(cx: &Cx, src: Src) -> u32 {
    match src {
        Src::Sgpr(c) => cx.wave.sgpr[c as usize],
        Src::Const(v) => v as u32,
        Src::Vgpr(r) => cx.wave.vgpr[r as usize][0],
        Src::Scc => cx.wave.scc as u32,
        Src::Vccz => (cx.wave.vcc() == 0) as u32,
        Src::Execz => (cx.wave.exec() == 0) as u32,
        // A 32-bit read of an aperture register gives the high half of the 64-bit address.
        Src::Aperture(c) => (aperture(c) >> 32) as u32,
        Src::LdsDirect | Src::None => 0,
    }
}

/// The 64-bit value of a scalar source.
#[inline]
pub fn scalar64(cx: &Cx, src: Src) -> u64 {
    match src {
        Src::Sgpr(c) => cx.wave.pair(c as u16),
        Src::Const(v) => v,
        Src::Aperture(c) => aperture(c),
        _ => scalar32(cx, src) as u64,
    }
}

/// src_shared_base (235), src_shared_limit, src_private_base, src_private_limit,
/// src_pops_exiting_wave_id (239).
fn aperture(code: u16) -> u64 {
    match code {
        235 => SHARED_APERTURE_BASE,
        236 => SHARED_APERTURE_BASE + APERTURE_SIZE - 1,
        237 => PRIVATE_APERTURE_BASE,
        238 => PRIVATE_APERTURE_BASE + APERTURE_SIZE - 1,
        _ => 0,
    }
}

/// Source `i` for all lanes, as raw 32-bit values (after DPP and SDWA selection).
#[inline]
pub fn fetch(cx: &Cx, d: &Decoded, i: usize) -> Row {
    // DPP moves lanes of src0 (always a VGPR): gather straight from the register.
    if let (Enc::Dpp, 0, Src::Vgpr(r)) = (d.inst.enc(), i, d.src[i]) {
        return dpp_src0(&cx.wave.vgpr[r as usize], d.inst.words()[1], cx.wave.exec());
    }
    let mut row = match d.src[i] {
        Src::Vgpr(r) => cx.wave.vgpr[r as usize],
        other => [scalar32(cx, other); WAVE_SIZE],
    };
    match d.inst.enc() {
        Enc::Native => {}
        Enc::Dpp if i == 0 => row = dpp_src0(&row, d.inst.words()[1], cx.wave.exec()),
        Enc::Dpp => {}
        Enc::Sdwa => {
            let w = d.inst.words()[1];
            let (sel, sext) = match i {
                0 => ((w >> 16) & 7, w & (1 << 19) != 0),
                1 => ((w >> 24) & 7, w & (1 << 27) != 0),
                _ => (6, false),
            };
            if sel != 6 {
                for v in row.iter_mut() {
                    *v = sdwa_select(*v, sel, sext);
                }
            }
        }
    }
    row
}

/// Source `i` as 64-bit lane values (VGPR pairs, SGPR pairs, widened constants).
#[inline]
pub fn fetch64(cx: &Cx, d: &Decoded, i: usize) -> Row64 {
    if let Some([lo, hi]) = dpp64(cx, d, i) {
        return std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32);
    }
    match d.src[i] {
        Src::Vgpr(r) => cx.wave.row64(r as usize),
        other => [scalar64(cx, other); WAVE_SIZE],
    }
}

/// Source `i` of a 64-bit op as its (low, high) rows: a VGPR pair read in place, or `tmp`
/// filled with a scalar or constant. Lane loops then join the halves themselves, instead of
/// [`fetch64`] building a 512-byte row first (64-bit compares and shifts are much of what
/// rocPRIM's large-index kernels run).
#[inline(always)]
pub fn rows64<'a>(
    cx: &'a Cx,
    d: &Decoded,
    i: usize,
    tmp: &'a mut std::mem::MaybeUninit<[Row; 2]>,
) -> (&'a Row, &'a Row) {
    if let Some(rows) = dpp64(cx, d, i) {
        let t = tmp.write(rows);
        return (&t[0], &t[1]);
    }
    match d.src[i] {
        Src::Vgpr(r) => (
            &cx.wave.vgpr[r as usize],
            &cx.wave.vgpr[(r as usize + 1) % crate::wave::VGPRS],
        ),
        other => {
            let v = scalar64(cx, other);
            let t = tmp.write([[v as u32; WAVE_SIZE], [(v >> 32) as u32; WAVE_SIZE]]);
            (&t[0], &t[1])
        }
    }
}

/// DPP's source 0 of a 64-bit op (gfx90a's `v_fmac_f64_dpp`, gfx940's `v_mov_b64_dpp`): both
/// registers of the pair moved across lanes alike. `None` for every other source.
#[inline]
fn dpp64(cx: &Cx, d: &Decoded, i: usize) -> Option<[Row; 2]> {
    let (Enc::Dpp, 0, Src::Vgpr(r)) = (d.inst.enc(), i, d.src[i]) else {
        return None;
    };
    let w = d.inst.words()[1];
    let hi = (r as usize + 1) % crate::wave::VGPRS;
    let exec = cx.wave.exec();
    Some([
        dpp_src0(&cx.wave.vgpr[r as usize], w, exec),
        dpp_src0(&cx.wave.vgpr[hi], w, exec),
    ])
}

/// DPP's source 0 for all lanes: `row` moved as control word `w` says, with the lanes whose
/// source lane is out of range or disabled by EXEC reading 0 (what bound_ctrl writes; without
/// bound_ctrl those lanes are not written, see [`write_mask`]). A disabled lane is no source:
/// the device library's wave reductions (`__ockl_wfred_*`, `__syncthreads_and`) rely on it,
/// reading their identity from the old value where a partial wave's lanes are off.
#[inline]
fn dpp_src0(row: &Row, w: u32, exec: u64) -> Row {
    let mut out = dpp_permute(row, w);
    if exec != u64::MAX {
        let live = lane_masks::lanes_of(dpp_live_sources((w >> 8) & 0x1ff, exec));
        for (v, on) in out.iter_mut().zip(live) {
            *v &= on;
        }
    }
    out
}

/// Lanes whose DPP source lane (under control `ctrl`) lies inside the row or wave and is
/// enabled by `exec`.
fn dpp_live_sources(ctrl: u32, exec: u64) -> u64 {
    let t = dpp_lanes(ctrl);
    if exec == u64::MAX {
        return t.valid;
    }
    // EXEC as lanes, gathered from each lane's source.
    let on = lane_masks::lanes_of(exec);
    t.valid & lane_masks::sign_bits(&std::array::from_fn(|l| on[t.source[l] as usize]))
}

/// Lane `l` of a 64-bit value held as (low, high) rows.
#[inline(always)]
pub fn join64((lo, hi): (&Row, &Row), l: usize) -> u64 {
    lo[l] as u64 | (hi[l] as u64) << 32
}

/// SDWA source select: BYTE_0..3 (0–3), WORD_0/1 (4, 5), DWORD (6).
#[inline]
pub fn sdwa_select(v: u32, sel: u32, sext: bool) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => return v,
    };
    let field = (v >> shift) & ((1 << bits) - 1);
    if sext {
        (((field << (32 - bits)) as i32) >> (32 - bits)) as u32
    } else {
        field
    }
}

/// Source lane of lane `l` under DPP control `ctrl`, or `None` if it lies outside the row/wave.
#[inline]
fn dpp_source(ctrl: u32, l: usize) -> Option<usize> {
    let row = l & !15;
    let r = l & 15;
    match ctrl {
        0x000..=0x0ff => Some((l & !3) + ((ctrl as usize >> (2 * (l & 3))) & 3)),
        0x101..=0x10f => {
            let n = (ctrl & 0xf) as usize;
            (r + n < 16).then_some(l + n)
        }
        0x111..=0x11f => {
            let n = (ctrl & 0xf) as usize;
            (r >= n).then(|| l - n)
        }
        0x121..=0x12f => {
            let n = (ctrl & 0xf) as usize;
            Some(row + ((r + 16 - n) & 15))
        }
        0x130 => (l < 63).then_some(l + 1),
        0x134 => Some((l + 1) & 63),
        0x138 => l.checked_sub(1),
        0x13c => Some((l + 63) & 63),
        0x140 => Some(row + 15 - r),
        0x141 => Some((l & !7) + 7 - (l & 7)),
        0x142 => (row >= 16).then(|| row - 1),
        0x143 => (l >= 32).then_some(31),
        // row_newbcast:n (gfx90a and later; the only control of 64-bit DPP): lane n of the row.
        0x150..=0x15f => Some(row + (ctrl & 0xf) as usize),
        _ => None,
    }
}

/// One DPP control worked out for all lanes: each lane's source lane (itself where there is
/// none) and the lanes that have one.
struct DppLanes {
    source: [u8; WAVE_SIZE],
    valid: u64,
    /// The same as two-row permutes: output row k (lanes 16k..16k+15) takes its lanes from
    /// source rows `rows[k].0` (indices 0–15 of `index[16k..]`) and `rows[k].1` (16–31). Every
    /// control draws a row from at most two rows (its own and a neighbour, or row 1 for
    /// row_bcast:31), so each output row is one AVX-512 `vpermt2d`.
    rows: [(u8, u8); 4],
    index: [u8; WAVE_SIZE],
}

/// [`DppLanes`] for every 9-bit DPP control, built once: rocPRIM's warp reductions issue DPP
/// moves in their inner loops, and working each lane's source out per instruction showed.
fn dpp_lanes(ctrl: u32) -> &'static DppLanes {
    static TABLE: std::sync::OnceLock<Vec<DppLanes>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..512u32)
            .map(|c| {
                let mut t = DppLanes {
                    source: std::array::from_fn(|l| l as u8),
                    valid: 0,
                    rows: [(0, 0), (1, 1), (2, 2), (3, 3)],
                    index: [0; WAVE_SIZE],
                };
                for l in 0..WAVE_SIZE {
                    if let Some(s) = dpp_source(c, l) {
                        t.source[l] = s as u8;
                        t.valid |= 1 << l;
                    }
                }
                for k in 0..4 {
                    let lanes = 16 * k..16 * k + 16;
                    let from = |l: &usize| t.source[*l] as usize / 16;
                    let valid: Vec<usize> = lanes.filter(|&l| t.valid >> l & 1 != 0).collect();
                    let a = valid.iter().map(from).min().unwrap_or(k);
                    let b = valid.iter().map(from).max().unwrap_or(k);
                    debug_assert!(valid.iter().all(|l| from(l) == a || from(l) == b));
                    t.rows[k] = (a as u8, b as u8);
                    for l in valid {
                        let s = t.source[l] as usize;
                        t.index[l] = (s % 16 + if s / 16 == a { 0 } else { 16 }) as u8;
                    }
                }
                t
            })
            .collect()
    });
    &table[(ctrl & 0x1ff) as usize]
}

/// `row` moved lane by lane as DPP control word `w` says. Lanes without a source read 0: with
/// bound_ctrl that is the value; without it the lane is not written (see `write_mask`), so the
/// value does not matter.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
fn dpp_permute(row: &Row, w: u32) -> Row {
    dpp_gather(row, dpp_lanes((w >> 8) & 0x1ff))
}

/// [`dpp_permute`] as four two-row permutes (the builds for a CPU with AVX-512; a lane at a
/// time, the gather was most of what rocPRIM's DPP warp reductions cost).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
fn dpp_permute(row: &Row, w: u32) -> Row {
    use std::arch::x86_64::*;
    let t = dpp_lanes((w >> 8) & 0x1ff);
    let mut out = [0u32; WAVE_SIZE];
    // SAFETY: the build enables AVX-512F; every load and store is of 16 u32 (or 16 u8 for
    // the indices) inside `row`, `out` and `t.index`, which are 64 long.
    unsafe {
        let src: [__m512i; 4] =
            std::array::from_fn(|k| _mm512_loadu_si512(row.as_ptr().add(16 * k).cast()));
        for k in 0..4 {
            let index = _mm512_cvtepu8_epi32(_mm_loadu_si128(t.index.as_ptr().add(16 * k).cast()));
            let (a, b) = t.rows[k];
            let v = _mm512_maskz_permutex2var_epi32(
                (t.valid >> (16 * k)) as u16,
                src[a as usize],
                index,
                src[b as usize],
            );
            _mm512_storeu_si512(out.as_mut_ptr().add(16 * k).cast(), v);
        }
    }
    out
}

/// [`dpp_permute`] a lane at a time.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx512f"),
    allow(dead_code)
)]
fn dpp_gather(row: &Row, t: &DppLanes) -> Row {
    std::array::from_fn(|l| row[t.source[l] as usize] & ((t.valid >> l) as u32 & 1).wrapping_neg())
}

/// Lanes an instruction writes: EXEC, narrowed by DPP row/bank masks and DPP sources out of range
/// or disabled.
#[inline]
pub fn write_mask(cx: &Cx, d: &Decoded) -> u64 {
    let exec = cx.wave.exec();
    if d.inst.enc() != Enc::Dpp {
        return exec;
    }
    let w = d.inst.words()[1];
    let bound_zero = w & (1 << 19) != 0;
    let sources = if bound_zero {
        u64::MAX
    } else {
        dpp_live_sources((w >> 8) & 0x1ff, exec)
    };
    exec & dpp_row_bank_mask((w >> 28) & 0xf, (w >> 24) & 0xf) & sources
}

/// The lanes DPP's row and bank masks enable: bank b is lanes 4b..4b+3 of every row of 16, row
/// r is lanes 16r..16r+15.
pub(crate) fn dpp_row_bank_mask(row_mask: u32, bank_mask: u32) -> u64 {
    let mut banks = 0u64;
    let mut rows = 0u64;
    for i in 0..4 {
        if bank_mask >> i & 1 != 0 {
            banks |= 0x000f_000f_000f_000f << (4 * i);
        }
        if row_mask >> i & 1 != 0 {
            rows |= 0xffff << (16 * i);
        }
    }
    banks & rows
}

/// Writes a 32-bit result row to the instruction's VGPR destination.
#[inline]
pub fn write(cx: &mut Cx, d: &Decoded, vals: &Row) {
    let mask = write_mask(cx, d);
    if d.inst.enc() == Enc::Sdwa {
        let w = d.inst.words()[1];
        let dst_sel = (w >> 8) & 7;
        let unused = (w >> 11) & 3;
        if dst_sel != 6 {
            let old = cx.wave.vgpr[d.vdst as usize];
            let mut out = [0u32; WAVE_SIZE];
            for l in 0..WAVE_SIZE {
                out[l] = sdwa_place(vals[l], old[l], dst_sel, unused);
            }
            cx.wave.write_row(d.vdst as usize, &out, mask);
            return;
        }
    }
    cx.wave.write_row(d.vdst as usize, vals, mask);
}

/// SDWA destination: the low bits of `v` go to the selected field; the other bits are zero
/// (UNUSED_PAD), the field's sign (UNUSED_SEXT, above the field) or kept (UNUSED_PRESERVE).
fn sdwa_place(v: u32, old: u32, sel: u32, unused: u32) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        // DWORD, and the reserved 7 (which decodes): the whole register.
        _ => return v,
    };
    let mask = ((1u32 << bits) - 1) << shift;
    let field = (v << shift) & mask;
    match unused {
        2 => (old & !mask) | field,
        1 => {
            let top = shift + bits;
            let sign = (field >> (top - 1)) & 1;
            let above = if sign != 0 && top < 32 {
                !0u32 << top
            } else {
                0
            };
            field | above
        }
        _ => field,
    }
}

/// Writes a 64-bit result row to the VGPR pair at the destination.
#[inline]
pub fn write64(cx: &mut Cx, d: &Decoded, vals: &Row64) {
    let mask = write_mask(cx, d);
    cx.wave.write_row64(d.vdst as usize, vals, mask);
}

/// Writes a lane mask (compare result, carry-out) to the scalar destination pair.
#[inline]
pub fn write_sdst_mask(cx: &mut Cx, d: &Decoded, mask: u64) {
    cx.wave.set_pair(d.sdst, mask);
}

/// A 64-bit lane mask source (carry-in, v_cndmask selector).
#[inline]
pub fn mask_src(cx: &Cx, src: Src) -> u64 {
    scalar64(cx, src)
}

// ---- float modifiers and modes ----

/// Does the wave's MODE keep f32 input (bit 0) / output (bit 1) denormals?
#[inline]
pub fn denorm32(cx: &Cx) -> u32 {
    (cx.wave.mode >> mode::DENORM_SHIFT) & 3
}

#[inline]
pub fn denorm64(cx: &Cx) -> u32 {
    (cx.wave.mode >> (mode::DENORM_SHIFT + 2)) & 3
}

#[inline]
pub fn flush32(v: f32) -> f32 {
    if v.is_subnormal() {
        f32::from_bits(v.to_bits() & 0x8000_0000)
    } else {
        v
    }
}

#[inline]
fn flush64(v: f64) -> f64 {
    if v.is_subnormal() {
        f64::from_bits(v.to_bits() & (1 << 63))
    } else {
        v
    }
}

/// Source `i` as f32 with abs/neg applied and input denormals flushed if MODE says so.
#[inline]
pub fn fetch_f32(cx: &Cx, d: &Decoded, i: usize) -> [f32; WAVE_SIZE] {
    let row = fetch(cx, d, i);
    let abs = if d.mods.abs >> i & 1 != 0 {
        0x7fff_ffff
    } else {
        !0
    };
    let neg = if d.mods.neg >> i & 1 != 0 {
        0x8000_0000
    } else {
        0
    };
    let flush = denorm32(cx) & 1 == 0;
    let mut out = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let v = f32::from_bits((row[l] & abs) ^ neg);
        out[l] = if flush { flush32(v) } else { v };
    }
    out
}

#[inline]
pub fn fetch_f64(cx: &Cx, d: &Decoded, i: usize) -> [f64; WAVE_SIZE] {
    let row = fetch64(cx, d, i);
    let abs = if d.mods.abs >> i & 1 != 0 {
        !(1u64 << 63)
    } else {
        !0
    };
    let neg = if d.mods.neg >> i & 1 != 0 {
        1u64 << 63
    } else {
        0
    };
    let flush = denorm64(cx) & 1 == 0;
    let mut out = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let v = f64::from_bits((row[l] & abs) ^ neg);
        out[l] = if flush { flush64(v) } else { v };
    }
    out
}

/// MODE.DX10_CLAMP: the clamp modifier turns NaN into 0; with it clear, NaN passes through.
#[inline]
pub fn dx10_clamp(cx: &Cx) -> bool {
    cx.wave.mode & mode::DX10_CLAMP != 0
}

/// The VOP3 clamp of an f32 result to [0, 1] (NaN by MODE.DX10_CLAMP).
#[inline]
pub fn clamp01_f32(v: f32, dx10: bool) -> f32 {
    if v.is_nan() {
        if dx10 {
            0.0
        } else {
            v
        }
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// Output modifier, clamp and output-denormal flush of an f32 result, as bits.
#[inline]
pub fn finish_f32(cx: &Cx, d: &Decoded, r: &[f32; WAVE_SIZE]) -> Row {
    let flush = denorm32(cx) & 2 == 0;
    let mut out = [0u32; WAVE_SIZE];
    if d.mods.omod == 0 && !d.mods.clamp && !flush {
        for l in 0..WAVE_SIZE {
            out[l] = r[l].to_bits();
        }
        return out;
    }
    let scale = [1.0f32, 2.0, 4.0, 0.5][d.mods.omod as usize & 3];
    let dx10 = dx10_clamp(cx);
    for l in 0..WAVE_SIZE {
        let mut v = r[l] * scale;
        if d.mods.clamp {
            v = clamp01_f32(v, dx10);
        }
        out[l] = if flush { flush32(v) } else { v }.to_bits();
    }
    out
}

#[inline]
pub fn finish_f64(cx: &Cx, d: &Decoded, r: &[f64; WAVE_SIZE]) -> Row64 {
    let flush = denorm64(cx) & 2 == 0;
    let scale = [1.0f64, 2.0, 4.0, 0.5][d.mods.omod as usize & 3];
    let dx10 = dx10_clamp(cx);
    let mut out = [0u64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let mut v = r[l];
        if d.mods.omod != 0 {
            v *= scale;
        }
        if d.mods.clamp {
            v = if v.is_nan() {
                if dx10 {
                    0.0
                } else {
                    v
                }
            } else {
                v.clamp(0.0, 1.0)
            };
        }
        out[l] = if flush { flush64(v) } else { v }.to_bits();
    }
    out
}

// ---- drivers: one lane function, all lanes ----

/// Integer ops with the VOP3 clamp bit saturate; that is not modelled yet, so say so.
#[inline]
fn int_clamp(d: &Decoded) -> Result<(), Fault> {
    if d.mods.clamp {
        return Err(Fault::Unsupported(
            "the clamp modifier on an integer VALU op",
        ));
    }
    Ok(())
}

/// Whether `d` runs without operand transformations: native encoding (no DPP lane movement, no
/// SDWA selection) and no input or output modifiers. The drivers below then read VGPR sources
/// in place and write the result row once, instead of copying every row through
/// [`fetch`]/[`finish_f32`]/[`write`], which is most of what a simple op costs.
#[inline(always)]
pub(crate) fn is_plain(d: &Decoded) -> bool {
    d.inst.enc() == Enc::Native && d.mods.is_plain()
}

/// Source `i` of a plain instruction: the VGPR row itself, or `tmp` holding the scalar (left
/// unwritten for a VGPR: zeroing two or three rows per instruction showed in profiles).
#[inline(always)]
fn plain_src<'a>(
    cx: &'a Cx,
    d: &Decoded,
    i: usize,
    tmp: &'a mut std::mem::MaybeUninit<Row>,
) -> &'a Row {
    // The VGPR tested first: a `match` over every source kind is a jump through a table, which
    // the VGPRs would take too.
    if let Src::Vgpr(r) = d.src[i] {
        return &cx.wave.vgpr[r as usize];
    }
    tmp.write([scalar32(cx, d.src[i]); WAVE_SIZE])
}

/// A plain instruction's source ([`is_plain`]): its VGPR's row, read in place, or the one
/// value of a scalar or constant. A lane loop then takes the value from a register, where a
/// row filled with it (`plain_src`) is 256 bytes stored and read back at every instruction
/// (`v_and_b32 v3, 1, v2`).
#[derive(Clone, Copy)]
pub(crate) enum Plain<'a> {
    Row(&'a Row),
    All(u32),
}

/// Source `i` of a plain instruction as a [`Plain`].
#[inline(always)]
pub(crate) fn plain_operand<'a>(cx: &'a Cx, d: &Decoded, i: usize) -> Plain<'a> {
    if let Src::Vgpr(r) = d.src[i] {
        return Plain::Row(&cx.wave.vgpr[r as usize]);
    }
    Plain::All(scalar32(cx, d.src[i]))
}

/// `f` of each lane's pair of values of `a` and `b`: one lane loop for each kind of source.
#[inline(always)]
pub(crate) fn lanes2<T>(a: Plain, b: Plain, f: impl Fn(u32, u32) -> T) -> [T; WAVE_SIZE] {
    use std::array::from_fn;
    match (a, b) {
        (Plain::Row(a), Plain::Row(b)) => from_fn(|l| f(a[l], b[l])),
        (Plain::All(a), Plain::Row(b)) => from_fn(|l| f(a, b[l])),
        (Plain::Row(a), Plain::All(b)) => from_fn(|l| f(a[l], b)),
        (Plain::All(a), Plain::All(b)) => from_fn(|_| f(a, b)),
    }
}

/// `f` of each lane's three values of `a`, `b` and `c`, as [`lanes2`].
#[inline(always)]
pub(crate) fn lanes3<T>(
    a: Plain,
    b: Plain,
    c: Plain,
    f: impl Fn(u32, u32, u32) -> T,
) -> [T; WAVE_SIZE] {
    use std::array::from_fn;
    use Plain::{All, Row as R};
    match (a, b, c) {
        (R(a), R(b), R(c)) => from_fn(|l| f(a[l], b[l], c[l])),
        (All(a), R(b), R(c)) => from_fn(|l| f(a, b[l], c[l])),
        (R(a), All(b), R(c)) => from_fn(|l| f(a[l], b, c[l])),
        (R(a), R(b), All(c)) => from_fn(|l| f(a[l], b[l], c)),
        (All(a), All(b), R(c)) => from_fn(|l| f(a, b, c[l])),
        (All(a), R(b), All(c)) => from_fn(|l| f(a, b[l], c)),
        (R(a), All(b), All(c)) => from_fn(|l| f(a[l], b, c)),
        (All(a), All(b), All(c)) => from_fn(|_| f(a, b, c)),
    }
}

/// The lane mask of `pred` over each lane's pair of values of `a` and `b`, as [`lanes2`].
#[inline(always)]
pub(crate) fn mask2(a: Plain, b: Plain, pred: impl Fn(u32, u32) -> bool) -> u64 {
    use crate::wave::lane_masks::lane_bits;
    match (a, b) {
        (Plain::Row(a), Plain::Row(b)) => lane_bits(|l| pred(a[l], b[l])),
        (Plain::All(a), Plain::Row(b)) => lane_bits(|l| pred(a, b[l])),
        (Plain::Row(a), Plain::All(b)) => lane_bits(|l| pred(a[l], b)),
        (Plain::All(a), Plain::All(b)) => match pred(a, b) {
            true => u64::MAX,
            false => 0,
        },
    }
}

/// Source `i` as raw 32-bit values, as [`fetch`] gives it, but read in place when the
/// encoding leaves it as it is (everything but DPP's source 0 and SDWA's selections): DPP ops,
/// much of what rocPRIM's warp scans run, then copy one row instead of two.
#[inline(always)]
pub(crate) fn src_row<'a>(
    cx: &'a Cx,
    d: &Decoded,
    i: usize,
    tmp: &'a mut std::mem::MaybeUninit<Row>,
) -> &'a Row {
    match (d.inst.enc(), i) {
        (Enc::Native, _) | (Enc::Dpp, 1..) => plain_src(cx, d, i, tmp),
        _ => tmp.write(fetch(cx, d, i)),
    }
}

/// Writes a plain instruction's result row under EXEC.
#[inline(always)]
fn plain_write(cx: &mut Cx, d: &Decoded, r: &Row) {
    let exec = cx.wave.exec();
    cx.wave.write_row(d.vdst as usize, r, exec);
}

/// f32 inputs and outputs keep denormals (MODE.FP_DENORM f32 = 3), so plain f32 ops need no
/// flushing either.
#[inline(always)]
fn plain_f32(cx: &Cx, d: &Decoded) -> bool {
    is_plain(d) && denorm32(cx) == 3
}

/// `f` over the rows of sources 0 and 1: in place when `d` is plain, else as [`fetch`] gives
/// them. `floats` asks for f32 inputs (plain then also needs MODE to keep f32 denormals).
#[inline(always)]
pub fn with_rows2<R>(cx: &Cx, d: &Decoded, floats: bool, f: impl FnOnce(&Row, &Row) -> R) -> R {
    if is_plain(d) && (!floats || denorm32(cx) == 3) {
        let (mut ta, mut tb) = (
            std::mem::MaybeUninit::uninit(),
            std::mem::MaybeUninit::uninit(),
        );
        let a = plain_src(cx, d, 0, &mut ta);
        let b = plain_src(cx, d, 1, &mut tb);
        return f(a, b);
    }
    if floats {
        let a = fetch_f32(cx, d, 0).map(f32::to_bits);
        let b = fetch_f32(cx, d, 1).map(f32::to_bits);
        return f(&a, &b);
    }
    let (mut ta, mut tb) = (
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
    );
    f(src_row(cx, d, 0, &mut ta), src_row(cx, d, 1, &mut tb))
}

/// Plain sources `0..N` of `d` as rows (see [`is_plain`]), then `f` over them.
macro_rules! with_plain_rows {
    ($cx:expr, $d:expr, [$($a:ident: $i:expr),*], $body:expr) => {{
        $(let mut $a = std::mem::MaybeUninit::<Row>::uninit();)*
        $(let $a = plain_src($cx, $d, $i, &mut $a);)*
        $body
    }};
}

/// V_MOV_B32: a plain one copies its source row, or writes its scalar, straight into the
/// destination (the general path would build the result on the stack first, and a copy
/// read back from there just after it was stored costs more than the move itself).
#[inline]
pub fn mov_b32(cx: &mut Cx, d: &Decoded) -> Res {
    if is_plain(d) {
        let exec = cx.wave.exec();
        let dst = d.vdst as usize % crate::wave::VGPRS;
        // Tested one kind at a time: a `match` over every source kind is a jump through a
        // table, which the common VGPR and SGPR moves would take too.
        let done = if let Src::Vgpr(r) = d.src[0] {
            cx.wave.vgpr.copy_row(dst, r as usize, exec)
        } else {
            let value = match d.src[0] {
                Src::Sgpr(c) => cx.wave.sgpr[c as usize],
                other => scalar32_out_of_line(cx, other),
            };
            cx.wave.vgpr.fill_row(dst, value, exec);
            true
        };
        if done {
            return Ok(Flow::Continue);
        }
    }
    mov_b32_general(cx, d)
}

/// [`mov_b32`] through [`u32_1`], out of line as [`f32_2_general`].
#[inline(never)]
fn mov_b32_general(cx: &mut Cx, d: &Decoded) -> Res {
    u32_1(cx, d, |a| a)
}

#[inline(never)]
fn scalar32_out_of_line(cx: &Cx, src: Src) -> u32 {
    scalar32(cx, src)
}

#[inline]
pub fn u32_1(cx: &mut Cx, d: &Decoded, f: impl Fn(u32) -> u32) -> Res {
    if is_plain(d) {
        let r: Row = with_plain_rows!(cx, d, [a: 0], std::array::from_fn(|l| f(a[l])));
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    u32_1_general(cx, d, f)
}

/// [`u32_1`] past its plain path, out of line as [`f32_2_general`].
#[inline(never)]
fn u32_1_general(cx: &mut Cx, d: &Decoded, f: impl Fn(u32) -> u32) -> Res {
    int_clamp(d)?;
    let a = fetch(cx, d, 0);
    let mut r = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l]);
    }
    write(cx, d, &r);
    Ok(Flow::Continue)
}

#[inline]
pub fn u32_2(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32) -> u32) -> Res {
    if is_plain(d) {
        let r: Row = lanes2(plain_operand(cx, d, 0), plain_operand(cx, d, 1), f);
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    u32_2_general(cx, d, f)
}

/// [`u32_2`] past its plain path, out of line as [`f32_2_general`].
#[inline(never)]
fn u32_2_general(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32) -> u32) -> Res {
    int_clamp(d)?;
    let (mut ta, mut tb) = (
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
    );
    let a = src_row(cx, d, 0, &mut ta);
    let b = src_row(cx, d, 1, &mut tb);
    let r: Row = std::array::from_fn(|l| f(a[l], b[l]));
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// Integer ops whose VOP3 clamp bit is modelled: the lane function gets the bit.
#[inline]
pub fn u32_2c(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32, bool) -> u32) -> Res {
    if is_plain(d) {
        let (a, b) = (plain_operand(cx, d, 0), plain_operand(cx, d, 1));
        let r: Row = lanes2(a, b, |a, b| f(a, b, false));
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    u32_2c_general(cx, d, f)
}

/// [`u32_2c`] past its plain path, out of line as [`f32_2_general`].
#[inline(never)]
fn u32_2c_general(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32, bool) -> u32) -> Res {
    let (a, b, sat) = (fetch(cx, d, 0), fetch(cx, d, 1), d.mods.clamp);
    let r: Row = std::array::from_fn(|l| f(a[l], b[l], sat));
    write(cx, d, &r);
    Ok(Flow::Continue)
}

/// Float-to-integer conversions: the source takes the float input modifiers (neg/abs) and the
/// MODE denormal flush; the result is an integer, so clamp and omod do not apply.
#[inline]
pub fn from_f32(cx: &mut Cx, d: &Decoded, f: impl Fn(f32) -> u32) -> Res {
    if plain_f32(cx, d) {
        let r: Row = with_plain_rows!(
            cx,
            d,
            [a: 0],
            std::array::from_fn(|l| f(f32::from_bits(a[l])))
        );
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    from_f32_general(cx, d, f)
}

/// [`from_f32`] past its plain path, out of line as [`f32_2_general`].
#[inline(never)]
fn from_f32_general(cx: &mut Cx, d: &Decoded, f: impl Fn(f32) -> u32) -> Res {
    let a = fetch_f32(cx, d, 0);
    let r: Row = std::array::from_fn(|l| f(a[l]));
    write(cx, d, &r);
    Ok(Flow::Continue)
}

#[inline]
pub fn u32_3(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32, u32) -> u32) -> Res {
    if is_plain(d) {
        let r: Row = with_plain_rows!(
            cx,
            d,
            [a: 0, b: 1, c: 2],
            std::array::from_fn(|l| f(a[l], b[l], c[l]))
        );
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    u32_3_general(cx, d, f)
}

/// [`u32_3`] past its plain path, out of line as [`f32_2_general`].
#[inline(never)]
fn u32_3_general(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32, u32) -> u32) -> Res {
    int_clamp(d)?;
    let a = fetch(cx, d, 0);
    let b = fetch(cx, d, 1);
    let c = fetch(cx, d, 2);
    let mut r = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l], b[l], c[l]);
    }
    write(cx, d, &r);
    Ok(Flow::Continue)
}

#[inline]
pub fn f32_1(cx: &mut Cx, d: &Decoded, f: impl Fn(f32) -> f32) -> Res {
    if plain_f32(cx, d) {
        let r: Row = with_plain_rows!(
            cx,
            d,
            [a: 0],
            std::array::from_fn(|l| f(f32::from_bits(a[l])).to_bits())
        );
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    f32_1_general(cx, d, f)
}

/// [`f32_1`] past its plain path, out of line as [`f32_2_general`].
#[inline(never)]
fn f32_1_general(cx: &mut Cx, d: &Decoded, f: impl Fn(f32) -> f32) -> Res {
    let a = fetch_f32(cx, d, 0);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l]);
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

#[inline]
pub fn f32_2(cx: &mut Cx, d: &Decoded, f: impl Fn(f32, f32) -> f32) -> Res {
    if plain_f32(cx, d) {
        let (a, b) = (plain_operand(cx, d, 0), plain_operand(cx, d, 1));
        let r: Row = lanes2(a, b, |a, b| {
            f(f32::from_bits(a), f32::from_bits(b)).to_bits()
        });
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    f32_2_general(cx, d, f)
}

/// [`f32_2`] through [`fetch_f32`] and [`finish_f32`]. Out of line, so that the plain path
/// keeps a small frame (this one holds three rows on the stack).
#[inline(never)]
fn f32_2_general(cx: &mut Cx, d: &Decoded, f: impl Fn(f32, f32) -> f32) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l], b[l]);
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

#[inline]
pub fn f32_3(cx: &mut Cx, d: &Decoded, f: impl Fn(f32, f32, f32) -> f32) -> Res {
    if plain_f32(cx, d) {
        let (a, b) = (plain_operand(cx, d, 0), plain_operand(cx, d, 1));
        let r: Row = lanes3(a, b, plain_operand(cx, d, 2), |a, b, c| {
            let v = f32::from_bits;
            f(v(a), v(b), v(c)).to_bits()
        });
        plain_write(cx, d, &r);
        return Ok(Flow::Continue);
    }
    f32_3_general(cx, d, f)
}

/// [`f32_3`] through [`fetch_f32`] and [`finish_f32`], out of line as [`f32_2_general`].
#[inline(never)]
fn f32_3_general(cx: &mut Cx, d: &Decoded, f: impl Fn(f32, f32, f32) -> f32) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let c = fetch_f32(cx, d, 2);
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l], b[l], c[l]);
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// An f32 op whose third input is the destination's old value (v_mac_f32, v_fmac_f32).
#[inline]
pub fn f32_acc(cx: &mut Cx, d: &Decoded, f: impl Fn(f32, f32, f32) -> f32) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let c = cx.wave.vgpr[d.vdst as usize];
    let mut r = [0f32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l], b[l], f32::from_bits(c[l]));
    }
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// An f64 op whose third input is the destination pair's old value (v_fmac_f64).
#[inline]
pub fn f64_acc(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, f64, f64) -> f64) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch_f64(cx, d, 1);
    let c = cx.wave.row64(d.vdst as usize);
    let r: [f64; WAVE_SIZE] = std::array::from_fn(|l| f(a[l], b[l], f64::from_bits(c[l])));
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

#[inline]
pub fn f64_1(cx: &mut Cx, d: &Decoded, f: impl Fn(f64) -> f64) -> Res {
    let a = fetch_f64(cx, d, 0);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l]);
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

#[inline]
pub fn f64_2(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, f64) -> f64) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch_f64(cx, d, 1);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l], b[l]);
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

#[inline]
pub fn f64_3(cx: &mut Cx, d: &Decoded, f: impl Fn(f64, f64, f64) -> f64) -> Res {
    let a = fetch_f64(cx, d, 0);
    let b = fetch_f64(cx, d, 1);
    let c = fetch_f64(cx, d, 2);
    let mut r = [0f64; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        r[l] = f(a[l], b[l], c[l]);
    }
    let out = finish_f64(cx, d, &r);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

/// A 64-bit shift of VOP3: D.u64 = S1.u64 shifted by S0.u[5:0].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift64 {
    Left,
    Right,
    RightSigned,
}

impl Shift64 {
    #[inline(always)]
    fn apply(self, a: u32, b: u64) -> u64 {
        let s = a & 63;
        match self {
            Shift64::Left => b << s,
            Shift64::Right => b >> s,
            Shift64::RightSigned => ((b as i64) >> s) as u64,
        }
    }
}

/// A 64-bit shift ([`Shift64`]). A plain one of a VGPR pair by a constant or SGPR (the
/// `idx << 2` of an address) works on the pair's 32-bit halves: on a host without AVX-512 the
/// 64-bit lanes the general path builds, shifts and splits again are half as many per vector
/// instruction (`v_lshlrev_b64`: 258 host instructions, 180 in halves).
#[inline]
pub fn u64_rev_shift(cx: &mut Cx, d: &Decoded, kind: Shift64) -> Res {
    if let (true, Src::Vgpr(r)) = (is_plain(d), d.src[1]) {
        if let Plain::All(a) = plain_operand(cx, d, 0) {
            let (lo, hi) = (
                &cx.wave.vgpr[r as usize],
                &cx.wave.vgpr[(r as usize + 1) % crate::wave::VGPRS],
            );
            let (lo, hi) = shift_halves(kind, a & 63, lo, hi);
            let exec = cx.wave.exec();
            cx.wave.write_row(d.vdst as usize, &lo, exec);
            cx.wave.write_row(d.vdst as usize + 1, &hi, exec);
            return Ok(Flow::Continue);
        }
    }
    let mut tb = std::mem::MaybeUninit::uninit();
    let b = rows64(cx, d, 1, &mut tb);
    let f = |a, b| kind.apply(a, b);
    // (The shift amount is most often a constant: `v_lshlrev_b64 v[0:1], 2, v[0:1]`.)
    let r: Row64 = match is_plain(d).then(|| plain_operand(cx, d, 0)) {
        Some(Plain::All(a)) => std::array::from_fn(|l| f(a, join64(b, l))),
        Some(Plain::Row(a)) => std::array::from_fn(|l| f(a[l], join64(b, l))),
        None => {
            let a = fetch(cx, d, 0);
            std::array::from_fn(|l| f(a[l], join64(b, l)))
        }
    };
    write64(cx, d, &r);
    Ok(Flow::Continue)
}

/// The rows `lo` and `hi` of 64-bit lanes shifted by `s` (0 to 63), as new low and high rows:
/// one loop per case, with `s` the same in every lane.
#[inline(always)]
fn shift_halves(kind: Shift64, s: u32, lo: &Row, hi: &Row) -> (Row, Row) {
    use std::array::from_fn;
    match (kind, s) {
        (_, 0) => (*lo, *hi),
        (Shift64::Left, 1..32) => (
            from_fn(|l| lo[l] << s),
            from_fn(|l| hi[l] << s | lo[l] >> (32 - s)),
        ),
        (Shift64::Left, _) => ([0; WAVE_SIZE], from_fn(|l| lo[l] << (s - 32))),
        (Shift64::Right, 1..32) => (
            from_fn(|l| lo[l] >> s | hi[l] << (32 - s)),
            from_fn(|l| hi[l] >> s),
        ),
        (Shift64::Right, _) => (from_fn(|l| hi[l] >> (s - 32)), [0; WAVE_SIZE]),
        (Shift64::RightSigned, 1..32) => (
            from_fn(|l| lo[l] >> s | hi[l] << (32 - s)),
            from_fn(|l| ((hi[l] as i32) >> s) as u32),
        ),
        (Shift64::RightSigned, _) => (
            from_fn(|l| ((hi[l] as i32) >> (s - 32)) as u32),
            from_fn(|l| ((hi[l] as i32) >> 31) as u32),
        ),
    }
}

/// A 32-bit op with carry: `f(a, b, carry_in) -> (result, carry_out)`, the carry-in 0 or 1 and
/// the carry-out the top bit of its word; carry-in from src2 (or VCC), carry-out to sdst (or
/// VCC).
#[inline]
pub fn carry(cx: &mut Cx, d: &Decoded, f: impl Fn(u32, u32, u32) -> (u32, u32)) -> Res {
    if is_plain(d) {
        let cin = mask_src(cx, d.src[2]);
        let exec = cx.wave.exec();
        let (a, b) = (plain_operand(cx, d, 0), plain_operand(cx, d, 1));
        let (r, cout) = match (a, b) {
            (Plain::All(a), Plain::Row(b)) => carry_lanes(|_| a, |l| b[l], cin, &f),
            (Plain::Row(a), Plain::All(b)) => carry_lanes(|l| a[l], |_| b, cin, &f),
            (Plain::All(a), Plain::All(b)) => carry_lanes(|_| a, |_| b, cin, &f),
            (Plain::Row(a), Plain::Row(b)) => carry_rows(a, b, cin, &f),
        };
        plain_write(cx, d, &r);
        write_sdst_mask(cx, d, cout & exec);
        return Ok(Flow::Continue);
    }
    let (mut ta, mut tb) = (
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
    );
    let a = src_row(cx, d, 0, &mut ta);
    let b = src_row(cx, d, 1, &mut tb);
    let cin = mask_src(cx, d.src[2]);
    let exec = write_mask(cx, d);
    let (r, cout) = carry_rows(a, b, cin, &f);
    write(cx, d, &r);
    // Lane-mask results of VALU ops hold 0 for lanes that did not execute.
    write_sdst_mask(cx, d, cout & exec);
    Ok(Flow::Continue)
}

/// `f` over the lanes of `a` and `b` with the carry-in bits of `cin` (each lane's 0 or 1): the
/// result row and the carry-out bits, each the top bit of the word `f` gives with the result
/// (so the loop stays a vector loop, and the bits are gathered from the words as they are).
#[inline(always)]
fn carry_rows(a: &Row, b: &Row, cin: u64, f: &impl Fn(u32, u32, u32) -> (u32, u32)) -> (Row, u64) {
    carry_lanes(|l| a[l], |l| b[l], cin, f)
}

/// [`carry_rows`] with each source's lane `l` given by `a(l)` and `b(l)` (a row's, or a
/// scalar's one value).
#[inline(always)]
fn carry_lanes(
    a: impl Fn(usize) -> u32,
    b: impl Fn(usize) -> u32,
    cin: u64,
    f: &impl Fn(u32, u32, u32) -> (u32, u32),
) -> (Row, u64) {
    let cin = lane_masks::lanes_of(cin);
    let mut r = [0u32; WAVE_SIZE];
    let mut cout = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        let (v, c) = f(a(l), b(l), cin[l] & 1);
        r[l] = v;
        cout[l] = c;
    }
    (r, lane_masks::sign_bits(&cout))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`lanes2`], [`lanes3`] and [`mask2`] give each lane its own sources' values, in order,
    /// for every mix of rows and scalars.
    #[test]
    fn plain_sources_reach_each_lane_in_order() {
        let rows: [Row; 3] =
            std::array::from_fn(|i| std::array::from_fn(|l| (l as u32 + 1) * (i as u32 * 100 + 7)));
        let scalars = [11u32, 13, 17];
        let value = |i: usize, row: bool, l: usize| if row { rows[i][l] } else { scalars[i] };
        let plain = |i: usize, row: bool| {
            if row {
                Plain::Row(&rows[i])
            } else {
                Plain::All(scalars[i])
            }
        };
        // Weighs each source differently, so that a source in another's place shows.
        let f3 = |a: u32, b: u32, c: u32| a.wrapping_mul(3) ^ b.wrapping_mul(5) ^ c.wrapping_mul(7);
        for kinds in 0..8 {
            let row = |i: usize| kinds >> i & 1 != 0;
            let got = lanes3(plain(0, row(0)), plain(1, row(1)), plain(2, row(2)), f3);
            let want: Row = std::array::from_fn(|l| {
                f3(
                    value(0, row(0), l),
                    value(1, row(1), l),
                    value(2, row(2), l),
                )
            });
            assert_eq!(got, want, "kinds {kinds:03b}");
            let got = lanes2(plain(0, row(0)), plain(1, row(1)), |a, b| a.wrapping_sub(b));
            let want: Row =
                std::array::from_fn(|l| value(0, row(0), l).wrapping_sub(value(1, row(1), l)));
            assert_eq!(got, want, "kinds {kinds:03b}");
            let got = mask2(plain(0, row(0)), plain(1, row(1)), |a, b| a % 3 > b % 5);
            let want = (0..WAVE_SIZE)
                .filter(|&l| value(0, row(0), l) % 3 > value(1, row(1), l) % 5)
                .fold(0u64, |m, l| m | 1 << l);
            assert_eq!(got, want, "kinds {kinds:03b}");
        }
    }

    /// The row and bank masks as the ISA states them, lane by lane.
    fn masks_by_lane(row_mask: u32, bank_mask: u32) -> u64 {
        (0..WAVE_SIZE).fold(0, |m, l| {
            let ok = row_mask >> (l / 16) & 1 != 0 && bank_mask >> ((l & 15) / 4) & 1 != 0;
            m | (ok as u64) << l
        })
    }

    #[test]
    fn dpp_moves_agree_with_the_lane_rules() {
        let row: Row = std::array::from_fn(|l| 0x9e37_79b9u32.wrapping_mul(l as u32 + 1));
        for ctrl in 0..512u32 {
            let want: Row = std::array::from_fn(|l| dpp_source(ctrl, l).map_or(0, |s| row[s]));
            assert_eq!(dpp_permute(&row, ctrl << 8), want, "ctrl {ctrl:#x}");
            assert_eq!(dpp_gather(&row, dpp_lanes(ctrl)), want, "ctrl {ctrl:#x}");
        }
    }

    #[test]
    fn dpp_tables_agree_with_the_lane_rules() {
        for ctrl in 0..512u32 {
            let t = dpp_lanes(ctrl);
            for l in 0..WAVE_SIZE {
                let s = dpp_source(ctrl, l);
                assert_eq!(
                    t.valid >> l & 1 != 0,
                    s.is_some(),
                    "ctrl {ctrl:#x} lane {l}"
                );
                if let Some(s) = s {
                    assert_eq!(t.source[l] as usize, s, "ctrl {ctrl:#x} lane {l}");
                }
            }
        }
        for row_mask in 0..16u32 {
            for bank_mask in 0..16u32 {
                assert_eq!(
                    dpp_row_bank_mask(row_mask, bank_mask),
                    masks_by_lane(row_mask, bank_mask),
                    "row_mask {row_mask:#x} bank_mask {bank_mask:#x}"
                );
            }
        }
    }
}
