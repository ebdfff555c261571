//! Register and constant operands: `s5`, `v[2:3]`, `ttmp[4:7]`, `vcc`, `-|v1|`, `neg(1.0)`,
//! `sext(v2)`, `0.5`, `-16`, `0x3f800000` — the inverse of `operand::write_operand`.

use crate::operand::{
    self, EXEC_LO, FLAT_SCRATCH_LO, LITERAL, M0, TTMP0, VCC_LO, VGPR0, XNACK_MASK_LO,
};
use crate::table::ImmClass;

/// A parsed source or destination operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Operand code (see `operand.rs`); `LITERAL` when `literal` holds the value.
    pub code: u16,
    /// Registers named (1 for constants).
    pub dwords: u8,
    pub literal: Option<u32>,
    pub neg: bool,
    pub abs: bool,
    pub sext: bool,
    /// Written with the `a` prefix (gfx908 accumulation registers).
    pub agpr: bool,
}

impl Operand {
    pub(crate) fn reg(code: u16, dwords: u8) -> Operand {
        Operand {
            code,
            dwords,
            literal: None,
            neg: false,
            abs: false,
            sext: false,
            agpr: false,
        }
    }

    pub fn is_constant(&self) -> bool {
        operand::is_inline_constant(self.code) || self.code == LITERAL
    }
}

/// How to read a number that could be either an inline constant or a literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefer {
    Inline,
    Literal,
}

/// Parses a register name: `s5`, `s[4:5]`, `v7`, `a[0:3]`, `ttmp2`, `vcc`, `exec_lo`, `m0`...
pub fn parse_register(text: &str) -> Option<Operand> {
    let named: Option<(u16, u8)> = match text {
        "vcc" => Some((VCC_LO, 2)),
        "vcc_lo" => Some((VCC_LO, 1)),
        "vcc_hi" => Some((VCC_LO + 1, 1)),
        "exec" => Some((EXEC_LO, 2)),
        "exec_lo" => Some((EXEC_LO, 1)),
        "exec_hi" => Some((EXEC_LO + 1, 1)),
        "flat_scratch" => Some((FLAT_SCRATCH_LO, 2)),
        "flat_scratch_lo" => Some((FLAT_SCRATCH_LO, 1)),
        "flat_scratch_hi" => Some((FLAT_SCRATCH_LO + 1, 1)),
        "xnack_mask" => Some((XNACK_MASK_LO, 2)),
        "xnack_mask_lo" => Some((XNACK_MASK_LO, 1)),
        "xnack_mask_hi" => Some((XNACK_MASK_LO + 1, 1)),
        "m0" => Some((M0, 1)),
        "null" => Some((operand::NULL, 1)),
        "src_shared_base" | "shared_base" => Some((235, 1)),
        "src_shared_limit" | "shared_limit" => Some((236, 1)),
        "src_private_base" | "private_base" => Some((237, 1)),
        "src_private_limit" | "private_limit" => Some((238, 1)),
        "src_pops_exiting_wave_id" | "pops_exiting_wave_id" => Some((239, 1)),
        "src_vccz" | "vccz" => Some((operand::VCCZ, 1)),
        "src_execz" | "execz" => Some((operand::EXECZ, 1)),
        "src_scc" | "scc" => Some((operand::SCC, 1)),
        "src_lds_direct" | "lds_direct" => Some((operand::LDS_DIRECT, 1)),
        _ => None,
    };
    if let Some((code, dwords)) = named {
        return Some(Operand::reg(code, dwords));
    }
    let (prefix, base, max) = if let Some(r) = text.strip_prefix("ttmp") {
        ("ttmp", r, 16)
    } else if let Some(r) = text.strip_prefix('s') {
        ("s", r, 104)
    } else if let Some(r) = text.strip_prefix('v') {
        ("v", r, 256)
    } else if let Some(r) = text.strip_prefix('a') {
        ("a", r, 256)
    } else {
        return None;
    };
    let (first, last) =
        if let Some(range) = base.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (a, b) = range.split_once(':').unwrap_or((range, range));
            (a.trim().parse::<u16>().ok()?, b.trim().parse::<u16>().ok()?)
        } else {
            let n = base.parse::<u16>().ok()?;
            (n, n)
        };
    if last < first || last >= max || last - first >= 32 {
        return None;
    }
    // s102 and s103 exist only as the top of a tuple of 4 or more (`s[100:103]`); alone they are
    // flat_scratch_lo/hi.
    if prefix == "s" && last >= 102 && last - first < 3 {
        return None;
    }
    let dwords = (last - first + 1) as u8;
    let code = match prefix {
        "ttmp" => TTMP0 + first,
        "s" => first,
        _ => VGPR0 + first,
    };
    let mut op = Operand::reg(code, dwords);
    op.agpr = prefix == "a";
    Some(op)
}

/// Parses an integer as LLVM prints or accepts it: decimal or `0x` hex, optionally negative.
pub fn parse_int(text: &str) -> Option<i64> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse::<i64>().ok()?
    } else {
        return None;
    };
    Some(if neg { -v } else { v })
}

/// The inline code of a float written as text, for an operand of `class`.
fn inline_float(text: &str, class: ImmClass) -> Option<u16> {
    const TEXT: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];
    if let Some(i) = TEXT.iter().position(|t| *t == text) {
        return Some(240 + i as u16);
    }
    let v: f64 = text.parse().ok()?;
    if let Some(i) = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0]
        .iter()
        .position(|c| *c == v)
    {
        return Some(240 + i as u16);
    }
    let inv_2pi = match class {
        ImmClass::F64 | ImmClass::I64 => text == "0.15915494309189532",
        _ => text == "0.15915494",
    };
    inv_2pi.then_some(operand::INV_2PI)
}

/// The literal dword for a float written as text (not an inline constant).
fn float_literal(v: f64, class: ImmClass) -> Option<u32> {
    match class {
        ImmClass::F64 => {
            let bits = v.to_bits();
            // A 64-bit operand's literal is the high half; the low half must be zero.
            (bits as u32 == 0).then_some((bits >> 32) as u32)
        }
        ImmClass::F16 | ImmClass::I16 => None,
        _ => {
            let f = v as f32;
            (f as f64 == v).then_some(f.to_bits())
        }
    }
}

/// Parses a number for an operand of `class` into an inline code or a literal.
fn parse_number(text: &str, class: ImmClass, prefer: Prefer) -> Option<Operand> {
    let constant = |code: u16, lit: Option<u32>| {
        let mut op = Operand::reg(code, 1);
        op.literal = lit;
        Some(op)
    };
    if let Some(v) = parse_int(text) {
        // The printer writes inline integers in decimal, so a small value in hex is a literal
        // (e.g. a madmk src0 sharing the K literal, or a 16-bit view of a shared literal); the
        // decoder folds it back to the inline constant wherever LLVM would.
        let hex = text.trim_start_matches('-').starts_with("0x");
        if (-16..=64).contains(&v) && !hex {
            return constant(operand::literal_as_inline(v as u32, ImmClass::B32)?, None);
        }
        // i16 operands print inline float constants as their f16 bit patterns (`0x3c00`).
        // (Only the float patterns: a hex value whose low half reads as a small integer is a
        // literal, since inline integers print in decimal.)
        let small16 = (-16..=64).contains(&(v as u16 as i16 as i64));
        if class == ImmClass::I16 && prefer == Prefer::Inline && !small16 {
            if let Some(code) = operand::literal_as_inline(v as u32, ImmClass::F16) {
                return constant(code, None);
            }
        }
        let literal = match class {
            ImmClass::F16 | ImmClass::I16 if (-0x8000..=0xffff).contains(&v) => v as u16 as u32,
            ImmClass::F16 | ImmClass::I16 => return None,
            _ if (-(1i64 << 31)..=0xffff_ffff).contains(&v) => v as u32,
            _ => return None,
        };
        return constant(LITERAL, Some(literal));
    }
    if let Some(code) = inline_float(text, class) {
        return constant(code, None);
    }
    let v: f64 = text.parse().ok()?;
    constant(LITERAL, Some(float_literal(v, class)?))
}

/// Parses a source or destination operand with its input modifiers.
pub fn parse_operand(text: &str, class: ImmClass, prefer: Prefer) -> Option<Operand> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("neg(").and_then(|r| r.strip_suffix(')')) {
        let mut op = parse_operand(inner, class, prefer)?;
        op.neg = true;
        return Some(op);
    }
    if let Some(inner) = t.strip_prefix("abs(").and_then(|r| r.strip_suffix(')')) {
        let mut op = parse_operand(inner, class, prefer)?;
        op.abs = true;
        return Some(op);
    }
    if let Some(inner) = t.strip_prefix("sext(").and_then(|r| r.strip_suffix(')')) {
        let mut op = parse_operand(inner, class, prefer)?;
        op.sext = true;
        return Some(op);
    }
    if let Some(inner) = t.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        let mut op = parse_operand(inner, class, prefer)?;
        op.abs = true;
        return Some(op);
    }
    if let Some(rest) = t.strip_prefix('-') {
        // `-1.0`, `-16` are constants; `-v1`, `-|v1|`, `-s2` negate.
        if !rest.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            let mut op = parse_operand(rest, class, prefer)?;
            op.neg = true;
            return Some(op);
        }
    }
    parse_register(t).or_else(|| parse_number(t, class, prefer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(t: &str) -> Operand {
        parse_operand(t, ImmClass::B32, Prefer::Inline).unwrap()
    }

    #[test]
    fn registers() {
        assert_eq!(op("s5").code, 5);
        assert_eq!((op("s[4:7]").code, op("s[4:7]").dwords), (4, 4));
        assert_eq!(op("v[2:3]").code, 258);
        assert_eq!(op("ttmp[4:5]").code, TTMP0 + 4);
        assert_eq!((op("vcc").code, op("vcc").dwords), (VCC_LO, 2));
        assert_eq!(op("exec_hi").code, 127);
        assert!(op("a3").agpr);
        assert!(parse_register("s102").is_none());
        assert!(parse_register("v[3:2]").is_none());
    }

    #[test]
    fn constants_and_modifiers() {
        assert_eq!(op("0").code, 128);
        assert_eq!(op("64").code, 192);
        assert_eq!(op("-16").code, 208);
        assert_eq!(op("-1.0").code, 243);
        assert_eq!(op("0.15915494").code, operand::INV_2PI);
        let l = op("0x41200000");
        assert_eq!((l.code, l.literal), (LITERAL, Some(0x4120_0000)));
        assert_eq!(op("10.0").literal, Some(0x4120_0000));
        let n = op("neg(1.0)");
        assert!(n.neg && n.code == 242);
        let m = op("-|v1|");
        assert!(m.neg && m.abs && m.code == 257);
        assert!(op("sext(v2)").sext);
        assert!(parse_operand("bogus", ImmClass::B32, Prefer::Inline).is_none());
    }
}
