//! Operand codes and how LLVM prints them.
//!
//! Every register or constant operand is held as a 9-bit *operand code*, the space of the VOP
//! `src0` field: 0–101 SGPRs, 102–127 special registers and trap temporaries, 128–208 inline
//! integers, 235–239 aperture registers, 240–248 inline floats, 251–254 status bits, 255 a literal,
//! 256–511 VGPRs. Narrower fields (7-bit sdst, 8-bit VGPR fields, SGPR-pair bases) map into it.

use crate::facts::Literal64;
use crate::table::{ImmClass, OpInfo};
use std::fmt::{self, Write};

pub const FLAT_SCRATCH_LO: u16 = 102;
pub const XNACK_MASK_LO: u16 = 104;
pub const VCC_LO: u16 = 106;
pub const TTMP0: u16 = 108;
pub const M0: u16 = 124;
pub const NULL: u16 = 125;
pub const EXEC_LO: u16 = 126;
pub const INLINE_ZERO: u16 = 128;
pub const SRC_SHARED_BASE: u16 = 235;
pub const INV_2PI: u16 = 248;
pub const SDWA: u16 = 249;
pub const DPP: u16 = 250;
pub const VCCZ: u16 = 251;
pub const EXECZ: u16 = 252;
pub const SCC: u16 = 253;
pub const LDS_DIRECT: u16 = 254;
pub const LITERAL: u16 = 255;
pub const VGPR0: u16 = 256;

/// The f32 bit patterns of the inline float constants 240..=247 (0.5, -0.5, 1, -1, 2, -2, 4, -4).
const F32_INLINE: [u32; 8] = [
    0x3f00_0000,
    0xbf00_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
    0xc000_0000,
    0x4080_0000,
    0xc080_0000,
];
const F16_INLINE: [u16; 8] = [
    0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400,
];
const F64_INLINE: [u64; 8] = [
    0x3fe0_0000_0000_0000,
    0xbfe0_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xc000_0000_0000_0000,
    0x4010_0000_0000_0000,
    0xc010_0000_0000_0000,
];
const FLOAT_TEXT: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];
pub const INV_2PI_F32: u32 = 0x3e22_f983;
pub const INV_2PI_F16: u16 = 0x3118;
pub const INV_2PI_F64: u64 = 0x3fc4_5f30_6dc9_c882;

/// Is `code` an inline integer or float constant?
pub fn is_inline_constant(code: u16) -> bool {
    (128..=208).contains(&code) || (240..=248).contains(&code)
}

/// The integer an inline integer code stands for.
pub fn inline_int(code: u16) -> Option<i32> {
    match code {
        128..=192 => Some(code as i32 - 128),
        193..=208 => Some(192 - code as i32),
        _ => None,
    }
}

fn int_code(v: i64) -> Option<u16> {
    match v {
        0..=64 => Some(128 + v as u16),
        -16..=-1 => Some((192 - v) as u16),
        _ => None,
    }
}

/// The inline code that represents the literal `lit` for an operand of `class`, if any: LLVM
/// prints such a literal as the constant, so it is re-encoded inline.
pub fn literal_as_inline(lit: u32, class: ImmClass) -> Option<u16> {
    match class {
        // Printed as a placeholder whatever its value: nothing to fold.
        ImmClass::RegOnly => None,
        ImmClass::F16 | ImmClass::I16 => {
            let h = lit as u16;
            if let Some(c) = int_code(h as i16 as i64) {
                return Some(c);
            }
            if class == ImmClass::F16 {
                if let Some(i) = F16_INLINE.iter().position(|&p| p == h) {
                    return Some(240 + i as u16);
                }
                if h == INV_2PI_F16 {
                    return Some(INV_2PI);
                }
            }
            None
        }
        // LLVM's decoder zero-extends a 64-bit operand's literal, so only small integers fold.
        ImmClass::F64 | ImmClass::I64 => int_code(lit as i64),
        ImmClass::B32 | ImmClass::None => {
            if let Some(c) = int_code(lit as i32 as i64) {
                return Some(c);
            }
            if let Some(i) = F32_INLINE.iter().position(|&p| p == lit) {
                return Some(240 + i as u16);
            }
            (lit == INV_2PI_F32).then_some(INV_2PI)
        }
    }
}

/// The f32 bit pattern of the inline float LLVM prints as `text` (`1.0`, `0.15915494`).
pub(crate) fn f32_inline_bits(text: &str) -> Option<u32> {
    if text == "0.15915494" {
        return Some(INV_2PI_F32);
    }
    FLOAT_TEXT
        .iter()
        .position(|t| *t == text)
        .map(|i| F32_INLINE[i])
}

/// [`literal_as_inline`] as LLVM 19 (gfx940's reference) decides it for an operand of `class` of
/// the op `info`: a 32-bit literal of a 64-bit float operand is the value's high half, so it folds
/// when that double is an inline float; a 16-bit integer operand's literal folds only when all 32
/// bits are an inline integer, a packed f16 pair's when they are an inline integer or an f16
/// inline value in the low half.
pub fn literal_as_inline_llvm19(lit: u32, class: ImmClass, info: &OpInfo) -> Option<u16> {
    match class {
        ImmClass::I16 => int_code(lit as i32 as i64),
        ImmClass::F16 if crate::llvm19::packed_f16_source(info.op) => int_code(lit as i32 as i64)
            .or_else(|| {
                let low = u16::try_from(lit).ok()?;
                F16_INLINE
                    .iter()
                    .position(|&p| p == low)
                    .map(|i| 240 + i as u16)
                    .or((low == INV_2PI_F16).then_some(INV_2PI))
            }),
        ImmClass::F64 if info.facts.lit64 == Literal64::High && lit == 0 => Some(INLINE_ZERO),
        ImmClass::F64 if info.facts.lit64 == Literal64::High => F64_INLINE
            .iter()
            .position(|&p| p == (lit as u64) << 32)
            .map(|i| 240 + i as u16),
        _ => literal_as_inline(lit, class),
    }
}

/// Writes the literal `lit` as LLVM does for an operand of `class` (after canonicalisation, so it is
/// never an inline value).
pub fn write_literal(out: &mut impl Write, lit: u32, class: ImmClass) -> fmt::Result {
    match class {
        ImmClass::F16 | ImmClass::I16 => write!(out, "{:#x}", lit as u16),
        _ => write!(out, "{:#x}", lit),
    }
}

/// The f16 bit pattern of an inline float code (240..=248).
pub fn f16_inline_bits(code: u16) -> Option<u16> {
    match code {
        INV_2PI => Some(INV_2PI_F16),
        240..=247 => Some(F16_INLINE[(code - 240) as usize]),
        _ => None,
    }
}

/// Writes an inline constant code for an operand of `class`.
pub fn write_inline(out: &mut impl Write, code: u16, class: ImmClass) -> fmt::Result {
    if let Some(v) = inline_int(code) {
        return write!(out, "{v}");
    }
    let i = (code - 240) as usize;
    match class {
        ImmClass::I16 if code == INV_2PI => write!(out, "{:#x}", INV_2PI_F16),
        ImmClass::I16 => write!(out, "{:#x}", F16_INLINE[i]),
        ImmClass::F64 | ImmClass::I64 if code == INV_2PI => out.write_str("0.15915494309189532"),
        _ if code == INV_2PI => out.write_str("0.15915494"),
        _ => out.write_str(FLOAT_TEXT[i]),
    }
}

/// Aligns an SGPR or TTMP tuple base down as the hardware (and LLVM's decoder) does:
/// 64-bit tuples to 2, wider ones to 4. VGPR tuples need no alignment on gfx9.
pub fn align_scalar(code: u16, dwords: u8) -> u16 {
    let align = match dwords {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    };
    if code < 102 {
        code & !(align - 1)
    } else if (TTMP0..TTMP0 + 16).contains(&code) {
        TTMP0 + ((code - TTMP0) & !(align - 1))
    } else {
        code
    }
}

fn write_range(out: &mut impl Write, prefix: &str, first: u16, dwords: u8) -> fmt::Result {
    out.write_str(prefix)?;
    if dwords <= 1 {
        write_dec(out, first)
    } else {
        out.write_char('[')?;
        write_dec(out, first)?;
        out.write_char(':')?;
        write_dec(out, first + dwords as u16 - 1)?;
        out.write_char(']')
    }
}

/// A register number in decimal; every operand of every listed instruction goes through here, so
/// it avoids the general formatting machinery.
fn write_dec(out: &mut impl Write, v: u16) -> fmt::Result {
    let mut buf = [0u8; 5];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        out.write_char(b as char)?;
    }
    Ok(())
}

/// Is `code` a register (or register-like special) that can be `dwords` wide?
pub fn register_valid(code: u16, dwords: u8) -> bool {
    let d = dwords.max(1) as u16;
    match code {
        // LLVM 15's SGPR tuples of 4 or more reach s103 (s[100:103], s[96:103], s[88:103]);
        // single registers and pairs end at s101.
        0..=101 if d >= 4 => code + d <= 104,
        0..=101 => code + d <= 102,
        FLAT_SCRATCH_LO | XNACK_MASK_LO | VCC_LO | EXEC_LO => d <= 2 || d == 4,
        // a 128-bit operand also decodes as the 64-bit specials (and null)
        NULL if d == 4 => true,
        103 | 105 | 107 | 127 | M0 | NULL => d == 1,
        108..=123 => code + d <= 124,
        235..=239 | 251..=253 => d <= 2,
        LDS_DIRECT => d == 1,
        256..=511 => code + d <= 512,
        _ => false,
    }
}

/// Writes a register operand (no constants): `s5`, `s[4:5]`, `vcc`, `ttmp[2:3]`, `v[0:3]`...
pub fn write_register(out: &mut impl Write, code: u16, dwords: u8, vprefix: &str) -> fmt::Result {
    let wide = dwords >= 2;
    match code {
        0..=101 => write_range(out, "s", code, dwords),
        FLAT_SCRATCH_LO if wide => out.write_str("flat_scratch"),
        XNACK_MASK_LO if wide => out.write_str("xnack_mask"),
        VCC_LO if wide => out.write_str("vcc"),
        EXEC_LO if wide => out.write_str("exec"),
        102 => out.write_str("flat_scratch_lo"),
        103 => out.write_str("flat_scratch_hi"),
        104 => out.write_str("xnack_mask_lo"),
        105 => out.write_str("xnack_mask_hi"),
        106 => out.write_str("vcc_lo"),
        107 => out.write_str("vcc_hi"),
        108..=123 => write_range(out, "ttmp", code - TTMP0, dwords),
        M0 => out.write_str("m0"),
        NULL => out.write_str("null"),
        126 => out.write_str("exec_lo"),
        127 => out.write_str("exec_hi"),
        235 => out.write_str("src_shared_base"),
        236 => out.write_str("src_shared_limit"),
        237 => out.write_str("src_private_base"),
        238 => out.write_str("src_private_limit"),
        239 => out.write_str("src_pops_exiting_wave_id"),
        VCCZ => out.write_str("src_vccz"),
        EXECZ => out.write_str("src_execz"),
        SCC => out.write_str("src_scc"),
        LDS_DIRECT => out.write_str("src_lds_direct"),
        256..=511 => write_range(out, vprefix, code - VGPR0, dwords),
        _ => write!(out, "<invalid operand {code}>"),
    }
}

/// Writes any source operand: register, inline constant or (canonical) literal.
pub fn write_operand(
    out: &mut impl Write,
    code: u16,
    dwords: u8,
    class: ImmClass,
    literal: u32,
) -> fmt::Result {
    if class == ImmClass::RegOnly && (is_inline_constant(code) || code == LITERAL) {
        out.write_str("/*invalid immediate*/")
    } else if is_inline_constant(code) {
        write_inline(out, code, class)
    } else if code == LITERAL {
        write_literal(out, literal, class)
    } else {
        write_register(out, code, dwords, "v")
    }
}
