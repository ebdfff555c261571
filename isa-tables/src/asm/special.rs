//! Immediates with their own notation: `hwreg(...)`, `sendmsg(...)`, `vmcnt(0) lgkmcnt(0)`,
//! `gpr_idx(...)`, `swizzle(...)`, export targets and interpolation operands.
//!
//! The 16-bit notations are parsed by inverting the printer: every value is printed once and the
//! text → value map is kept, so the assembler accepts exactly what the disassembler prints (the
//! lowest value wins when several print alike, which is the canonical one). Plain integers are
//! accepted too, for hand-written code.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::value::parse_int;
use crate::syntax;

type Printer = fn(&mut String, u16) -> std::fmt::Result;

fn inverse(printer: Printer) -> HashMap<String, u16> {
    let mut map = HashMap::with_capacity(1 << 16);
    for v in 0..=u16::MAX {
        let mut s = String::new();
        if printer(&mut s, v).is_ok() {
            map.entry(normalize(&s)).or_insert(v);
        }
    }
    map
}

/// Whitespace-insensitive key (`hwreg(HW_REG_MODE, 0, 4)` = `hwreg(HW_REG_MODE,0,4)`).
fn normalize(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn lookup(
    map: &'static OnceLock<HashMap<String, u16>>,
    printer: Printer,
    text: &str,
) -> Option<u16> {
    if let Some(v) = parse_int(text) {
        return u16::try_from(v)
            .ok()
            .or_else(|| i16::try_from(v).ok().map(|v| v as u16));
    }
    map.get_or_init(|| inverse(printer))
        .get(&normalize(text))
        .copied()
}

pub fn hwreg(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    lookup(&MAP, syntax::write_hwreg, text)
}

pub fn sendmsg(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    lookup(&MAP, syntax::write_sendmsg, text)
}

/// [`hwreg`] with gfx940's register names.
pub fn hwreg_gfx940(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    lookup(&MAP, syntax::write_hwreg_gfx940, text)
}

/// [`sendmsg`] as gfx940's text has it.
pub fn sendmsg_gfx940(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    lookup(&MAP, syntax::write_sendmsg_gfx940, text)
}

pub fn waitcnt(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    if let Some(v) = lookup(&MAP, syntax::write_waitcnt, text) {
        return Some(v);
    }
    // Hand-written subsets in any order: counters not named do not wait.
    let (mut vm, mut exp, mut lgkm) = (63u16, 7u16, 15u16);
    for part in text.split(|c: char| c.is_whitespace() || c == '&' || c == ',') {
        if part.is_empty() {
            continue;
        }
        let (name, rest) = part.split_once('(')?;
        let n = parse_int(rest.strip_suffix(')')?)?;
        match name {
            "vmcnt" if (0..64).contains(&n) => vm = n as u16,
            "expcnt" if (0..8).contains(&n) => exp = n as u16,
            "lgkmcnt" if (0..16).contains(&n) => lgkm = n as u16,
            _ => return None,
        }
    }
    Some((vm & 0xf) | (exp << 4) | (lgkm << 8) | ((vm >> 4) << 14))
}

pub fn gpr_idx(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    lookup(&MAP, |s, v| syntax::write_gpr_idx(s, v as u32), text)
}

/// ds_swizzle_b32's `offset:` value: `swizzle(...)` or an integer.
pub fn swizzle(text: &str) -> Option<u16> {
    static MAP: OnceLock<HashMap<String, u16>> = OnceLock::new();
    let print: Printer = |s, v| {
        let mut t = String::new();
        syntax::write_swizzle(&mut t, v as u32)?;
        s.push_str(t.trim_start().strip_prefix("offset:").unwrap_or(&t));
        Ok(())
    };
    // A bitmask text assembles to LLVM's masks for it, even where those print back as another
    // form (`"p1000"` is `swizzle(BROADCAST,16,8)`); the printer's inverse covers the rest.
    bitmask_perm(text).or_else(|| lookup(&MAP, print, text))
}

/// Does the text hold a `swizzle(BITMASK_PERM,...)` that LLVM's masks for it print otherwise
/// (`"p1000"` assembles to what prints as `swizzle(BROADCAST,16,8)`)? Several encodings print
/// as one bitmask text, and the assembler writes LLVM's, not the one that was printed.
pub(crate) fn bitmask_text_prints_otherwise(text: &str) -> bool {
    let Some(start) = text.find("swizzle(BITMASK_PERM") else {
        return false;
    };
    let Some(len) = text[start..].find(')') else {
        return false;
    };
    let swizzle = &text[start..=start + len];
    let Some(v) = bitmask_perm(swizzle) else {
        return false;
    };
    let mut again = String::new();
    if syntax::write_swizzle(&mut again, v as u32).is_err() {
        return true;
    }
    normalize(again.trim_start().strip_prefix("offset:").unwrap_or(&again)) != normalize(swizzle)
}

/// `swizzle(BITMASK_PERM,"01pi0")`, one character per lane-id bit from bit 4 down: `0`/`1` force
/// the bit, `p` passes it through, `i` inverts it. Several masks print alike; this picks the
/// one LLVM's assembler writes (`1` in the or-mask, `p` in the and-mask, `i` in and and xor).
fn bitmask_perm(text: &str) -> Option<u16> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let body = t
        .strip_prefix("swizzle(BITMASK_PERM,\"")?
        .strip_suffix("\")")?;
    if body.len() != 5 {
        return None;
    }
    let (mut and, mut or, mut xor) = (0u16, 0u16, 0u16);
    for (i, c) in body.chars().enumerate() {
        let bit = 1 << (4 - i);
        match c {
            '0' => {}
            '1' => or |= bit,
            'p' => and |= bit,
            'i' => {
                and |= bit;
                xor |= bit;
            }
            _ => return None,
        }
    }
    Some(and | or << 5 | xor << 10)
}

/// An export target: `mrt0`..`mrt7`, `mrtz`, `null`, `pos0`..`pos3`, `param0`..`param31`.
pub fn exp_target(text: &str) -> Option<u32> {
    let num = |p: &str, max: u32| {
        text.strip_prefix(p)
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| *n < max)
    };
    match text {
        "mrtz" => Some(8),
        "null" => Some(9),
        _ => num("mrt", 8)
            .or_else(|| num("pos", 4).map(|n| n + 12))
            .or_else(|| num("param", 32).map(|n| n + 32))
            .or_else(|| num("invalid_target_", 64)),
    }
}

/// `attrN.c` as (attribute, channel).
pub fn interp_attr(text: &str) -> Option<(u32, u32)> {
    let (attr, chan) = text.strip_prefix("attr")?.split_once('.')?;
    let attr = attr.parse::<u32>().ok().filter(|a| *a < 64)?;
    let chan = ["x", "y", "z", "w"].iter().position(|c| *c == chan)? as u32;
    Some((attr, chan))
}

/// `p10`, `p20`, `p0` (v_interp_mov_f32's parameter).
pub fn interp_param(text: &str) -> Option<u32> {
    match text {
        "p10" => Some(0),
        "p20" => Some(1),
        "p0" => Some(2),
        _ => text.strip_prefix("invalid_param_")?.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_forms_invert() {
        assert_eq!(waitcnt("vmcnt(0) lgkmcnt(0)"), Some(0x0070));
        assert_eq!(waitcnt("lgkmcnt(0) vmcnt(0)"), Some(0x0070));
        assert_eq!(waitcnt("vmcnt(63) expcnt(7) lgkmcnt(15)"), Some(0xcf7f));
        let mut s = String::new();
        syntax::write_hwreg(&mut s, 0x1801).unwrap();
        assert_eq!(hwreg(&s), Some(0x1801));
        assert_eq!(hwreg("hwreg(HW_REG_MODE,0,4)"), Some(0x1801));
        assert_eq!(sendmsg("sendmsg(MSG_INTERRUPT)"), Some(1));
        assert_eq!(gpr_idx("gpr_idx(SRC0,DST)"), Some(9));
        assert_eq!(
            swizzle("swizzle(QUAD_PERM,0,1,2,3)"),
            Some(0x8000 | 0b11_10_01_00)
        );
        assert_eq!(exp_target("param3"), Some(35));
        assert_eq!(interp_attr("attr2.w"), Some((2, 3)));
    }
}
