//! Operands as LLVM's assembly text, drawn from fuzz bytes: register tuples inside the ranges
//! the generated kernel may read or write ([`super::layout`]), aligned as the target requires,
//! inline constants and literals.

use super::layout::{SGPR_FREE, SGPR_READ, VGPRS, VGPR_FREE};
use arbitrary::{Result, Unstructured};
use std::ops::Range;

/// Inline float constants (the integers -16..=64 are drawn apart).
const INLINE_FLOATS: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];

/// The first register of an aligned tuple of `dwords` in `range` (the range holds one).
fn tuple_base(u: &mut Unstructured, range: Range<u32>, dwords: u32, align: u32) -> Result<u32> {
    let first = range.start.next_multiple_of(align);
    let slots = (range.end.saturating_sub(first + dwords)) / align;
    Ok(first + align * u.int_in_range(0..=slots)?)
}

/// `s7`, `s[20:23]`, `v9`, `a[0:3]`.
pub fn tuple(prefix: char, base: u32, dwords: u32) -> String {
    if dwords == 1 {
        format!("{prefix}{base}")
    } else {
        format!("{prefix}[{base}:{}]", base + dwords - 1)
    }
}

/// SGPR tuples are aligned to 2 (pairs) or 4 (wider).
fn sgpr_align(dwords: u32) -> u32 {
    match dwords {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// SGPRs in `range`.
pub fn sgprs(u: &mut Unstructured, range: Range<u32>, dwords: u32) -> Result<String> {
    let base = tuple_base(u, range, dwords, sgpr_align(dwords))?;
    Ok(tuple('s', base, dwords))
}

/// A scalar destination: mostly free SGPRs, at times VCC or EXEC (which then masks the lanes).
pub fn sgpr_dst(u: &mut Unstructured, dwords: u32) -> Result<String> {
    let pick = u.int_in_range(0..=99u8)?;
    Ok(match (dwords, pick) {
        (2, 0..=9) => "vcc".into(),
        (2, 10..=11) => "exec".into(),
        (1, 0..=3) => "vcc_lo".into(),
        (1, 4..=5) => "vcc_hi".into(),
        _ => sgprs(u, SGPR_FREE, dwords)?,
    })
}

/// Vector registers (`prefix` v or a) in `range`; tuples even-aligned where the target wants
/// it (gfx90a) and otherwise at times not.
pub fn vgprs(
    u: &mut Unstructured,
    prefix: char,
    range: Range<u32>,
    dwords: u32,
    aligned: bool,
) -> Result<String> {
    let align = if dwords > 1 && (aligned || u.ratio(3, 4)?) {
        2
    } else {
        1
    };
    let base = tuple_base(u, range, dwords, align)?;
    Ok(tuple(prefix, base, dwords))
}

/// VGPRs written by generated code.
pub fn vgpr_dst(u: &mut Unstructured, dwords: u32, aligned: bool) -> Result<String> {
    vgprs(u, 'v', VGPR_FREE, dwords, aligned)
}

/// Any declared VGPRs, to read.
pub fn vgpr_src(u: &mut Unstructured, dwords: u32, aligned: bool) -> Result<String> {
    vgprs(u, 'v', 0..VGPRS, dwords, aligned)
}

/// AGPRs (all of them are free).
pub fn agprs(u: &mut Unstructured, dwords: u32, aligned: bool) -> Result<String> {
    vgprs(u, 'a', 0..VGPRS, dwords, aligned)
}

/// An inline constant: an integer -16..=64 or one of the float constants.
pub fn inline_constant(u: &mut Unstructured) -> Result<String> {
    Ok(if u.ratio(2, 3)? {
        u.int_in_range(-16..=64i32)?.to_string()
    } else {
        u.choose(&INLINE_FLOATS)?.to_string()
    })
}

/// A 32-bit literal.
pub fn literal(u: &mut Unstructured) -> Result<String> {
    Ok(format!("{:#x}", u.arbitrary::<u32>()?))
}

/// A scalar source: SGPRs, VCC, EXEC, M0, an inline constant, or (once per instruction, where
/// `literal_ok` still allows it) a literal; registers only where `registers_only`.
pub fn scalar_src(
    u: &mut Unstructured,
    dwords: u32,
    registers_only: bool,
    literal_ok: &mut bool,
) -> Result<String> {
    let pick = u.int_in_range(0..=99u8)?;
    Ok(match pick {
        0..=7 if dwords == 1 => u
            .choose(&["vcc_lo", "vcc_hi", "exec_lo", "m0"])?
            .to_string(),
        0..=7 if dwords == 2 => u.choose(&["vcc", "exec"])?.to_string(),
        60..=89 if !registers_only => inline_constant(u)?,
        90..=99 if !registers_only && *literal_ok => {
            *literal_ok = false;
            literal(u)?
        }
        _ => sgprs(u, SGPR_READ, dwords)?,
    })
}
