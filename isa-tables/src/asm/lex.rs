//! Splitting one instruction's text into mnemonic, operands and trailing modifiers.
//!
//! LLVM separates operands with commas and modifiers with spaces (`ds_add_u32 v2, v4 offset:16`);
//! commas and spaces inside `(...)`, `[...]`, `|...|` and quotes belong to the operand
//! (`sendmsg(MSG_GS, GS_OP_EMIT, 0)`, `quad_perm:[0,1,2,3]`, `swizzle(BITMASK_PERM,"01pi0")`).

/// A line split into its parts.
#[derive(Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    pub mnemonic: &'a str,
    /// Everything after the mnemonic, trimmed.
    pub rest: &'a str,
    pub operands: Vec<&'a str>,
    pub modifiers: Vec<&'a str>,
}

/// Removes a trailing `//` or `;` comment.
pub fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => return &line[..i],
            '/' if !quoted && line[i..].starts_with("//") => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Top-level items of `s` separated by `sep` (a comma, or any whitespace when `sep` is ' ').
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut in_abs) = (0i32, false, false);
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' if !quoted => depth += 1,
            ')' | ']' if !quoted => depth -= 1,
            // `|v1|` is an absolute value; a `|` directly after a separator or `-` opens one.
            '|' if !quoted && depth == 0 => in_abs = !in_abs,
            _ => {}
        }
        let at_sep = if sep == ' ' {
            c.is_whitespace()
        } else {
            c == sep
        };
        if at_sep && depth == 0 && !quoted && !in_abs {
            out.push(s[start..i].trim());
            start = i + c.len_utf8();
        }
    }
    out.push(s[start..].trim());
    out.retain(|p| !p.is_empty());
    out
}

/// Splits an instruction (comment already removed).
pub fn split(line: &str) -> Parts<'_> {
    let line = line.trim();
    let (mnemonic, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let mut operands = split_top(rest, ',');
    let mut modifiers = Vec::new();
    if let Some(last) = operands.pop() {
        let mut words = split_top(last, ' ');
        if !words.is_empty() {
            let first = words.remove(0);
            // `a, b c d`: when there are commas, the words after the last operand are modifiers;
            // a comma-free tail (`s_waitcnt vmcnt(0) lgkmcnt(0)`) is kept whole by the caller.
            operands.push(first);
            modifiers = words;
        }
    }
    Parts {
        mnemonic,
        rest,
        operands,
        modifiers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_and_modifiers() {
        let p = split("ds_add_u32 v2, v4 offset:8208 gds");
        assert_eq!(p.mnemonic, "ds_add_u32");
        assert_eq!(p.operands, ["v2", "v4"]);
        assert_eq!(p.modifiers, ["offset:8208", "gds"]);
        let p = split("v_mov_b32_dpp v0, -|v1| quad_perm:[0,1,2,3] row_mask:0xf");
        assert_eq!(p.operands, ["v0", "-|v1|"]);
        assert_eq!(p.modifiers, ["quad_perm:[0,1,2,3]", "row_mask:0xf"]);
        let p = split("s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 0)");
        assert_eq!(p.operands, ["sendmsg(MSG_GS, GS_OP_EMIT, 0)"]);
        let p = split("ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"0 1pi\")");
        assert_eq!(p.modifiers, ["offset:swizzle(BITMASK_PERM,\"0 1pi\")"]);
        let p = split("s_endpgm");
        assert!(p.operands.is_empty());
        assert_eq!(strip_comment("s_nop 0 // 000000: BF800000"), "s_nop 0 ");
    }
}
