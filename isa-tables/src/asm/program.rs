//! Whole programs: one instruction per line, `label:` definitions, branch targets by label,
//! `//` and `;` comments. Directives that do not emit code (`.text`, `.globl`, `.amdhsa_kernel`
//! blocks, metadata) are skipped; `.p2align` pads with `s_nop 0` as LLVM does in code sections;
//! any other directive is an error, so nothing is silently dropped from the code.

use super::{assemble_at, lex, AsmError};
use crate::{Inst, Target};
use std::collections::BTreeMap;

/// An assembled program.
#[derive(Clone, Debug, Default)]
pub struct Assembly {
    /// Each instruction with its byte offset from the start.
    pub insts: Vec<(u32, Inst)>,
    /// Label → byte offset.
    pub labels: BTreeMap<String, u32>,
    /// The encoded program.
    pub bytes: Vec<u8>,
}

/// Directives that produce no code.
const IGNORED: [&str; 12] = [
    ".text",
    ".globl",
    ".global",
    ".type",
    ".size",
    ".section",
    ".amdgcn_target",
    ".hsa_code_object_version",
    ".hsa_code_object_isa",
    ".amdhsa_code_object_version",
    ".ident",
    ".file",
];

/// Block directives whose whole body is metadata: (start, end).
const BLOCKS: [(&str, &str); 3] = [
    (".amdhsa_kernel", ".end_amdhsa_kernel"),
    (".amdgpu_metadata", ".end_amdgpu_metadata"),
    (".amd_kernel_code_t", ".end_amd_kernel_code_t"),
];

enum Line<'a> {
    Inst(&'a str),
    Align(u32),
}

/// Assembles a program for `target`.
pub fn assemble(source: &str, target: Target) -> Result<Assembly, AsmError> {
    let mut lines: Vec<(usize, Line)> = Vec::new();
    // label → index in `lines` of the line it precedes (lines.len() at the end)
    let mut label_line: BTreeMap<String, usize> = BTreeMap::new();
    let mut block_end: Option<&str> = None;
    for (i, raw) in source.lines().enumerate() {
        let n = i + 1;
        let err = |message: String| AsmError {
            line: n,
            text: raw.trim().to_string(),
            message,
        };
        let mut text = lex::strip_comment(raw).trim();
        if let Some(end) = block_end {
            if text.starts_with(end) {
                block_end = None;
            }
            continue;
        }
        // Labels (several may share a line with an instruction). A name made only of label
        // characters before the first `:` is a label; `offset:16` inside an instruction is not,
        // since the text before its colon holds the mnemonic and operands.
        while let Some((name, rest)) = text.split_once(':') {
            let name = name.trim();
            let is_label = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c));
            if !is_label {
                break;
            }
            if label_line.insert(name.to_string(), lines.len()).is_some() {
                return Err(err(format!("label `{name}` defined twice")));
            }
            text = rest.trim();
        }
        if text.is_empty() {
            continue;
        }
        if text.starts_with('.') {
            let directive = text.split_whitespace().next().unwrap_or(text);
            if let Some((_, end)) = BLOCKS.iter().find(|(s, _)| *s == directive) {
                block_end = Some(end);
            } else if directive == ".p2align" || directive == ".align" {
                let arg = text[directive.len()..]
                    .split(',')
                    .next()
                    .unwrap_or("")
                    .trim();
                let v: u32 = arg
                    .parse()
                    .map_err(|_| err(format!("bad alignment `{arg}`")))?;
                let bytes = if directive == ".p2align" {
                    1u32.checked_shl(v)
                } else {
                    Some(v)
                };
                let bytes = bytes.filter(|b| b.is_power_of_two() && *b <= 4096);
                lines.push((
                    n,
                    Line::Align(bytes.ok_or_else(|| err(format!("bad alignment `{arg}`")))?),
                ));
            } else if !IGNORED.contains(&directive) {
                return Err(err(format!("unsupported directive `{directive}`")));
            }
            continue;
        }
        lines.push((n, Line::Inst(text)));
    }

    // Pass 1: sizes do not depend on label values, so lay out with every label at 0.
    let any = |_: &str| Some(0u32);
    let mut start_pc = Vec::with_capacity(lines.len() + 1);
    let mut pc = 0u32;
    for (n, line) in &lines {
        start_pc.push(pc);
        match line {
            Line::Align(a) => pc = pc.div_ceil(*a) * *a,
            Line::Inst(text) => {
                let inst = assemble_at(text, target, pc, Some(&any)).map_err(|m| AsmError {
                    line: *n,
                    text: text.to_string(),
                    message: m,
                })?;
                // The bytes pass 2 will emit: `encode` may fold a literal that fits an inline
                // constant (as LLVM does), so `inst.len()` can overstate the size.
                pc += inst.encode().len() as u32;
            }
        }
    }
    start_pc.push(pc);
    let labels: BTreeMap<String, u32> = label_line
        .into_iter()
        .map(|(k, i)| (k, start_pc[i]))
        .collect();

    // Pass 2: real label values.
    let lookup = |name: &str| labels.get(name).copied();
    let mut out = Assembly {
        labels: labels.clone(),
        ..Assembly::default()
    };
    for (n, line) in &lines {
        match line {
            Line::Align(a) => {
                while !(out.bytes.len() as u32).is_multiple_of(*a) {
                    out.bytes.extend_from_slice(&0xbf80_0000u32.to_le_bytes()); // s_nop 0
                }
            }
            Line::Inst(text) => {
                let pc = out.bytes.len() as u32;
                let inst = assemble_at(text, target, pc, Some(&lookup)).map_err(|m| AsmError {
                    line: *n,
                    text: text.to_string(),
                    message: m,
                })?;
                out.bytes.extend(inst.encode());
                out.insts.push((pc, inst));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_after_a_literal_folded_to_an_inline_constant() {
        // 0x14 prints as a literal but encodes inline (4 bytes), as llvm-mc-15 encodes it.
        let a = assemble(
            "s_branch l\ns_add_u32 s0, s1, 0x14\nv_add_u32 v0, 0x14, v1\nl:\ns_endpgm\n",
            Target::Gfx900,
        )
        .unwrap();
        assert_eq!(a.labels["l"], 12);
        assert_eq!(a.bytes.len(), 16);
        assert_eq!(&a.bytes[..4], &[0x02, 0x00, 0x82, 0xbf]);
    }

    #[test]
    fn labels_and_branches() {
        let src = "
            .text
            start:
              s_mov_b32 s0, 0      // comment
            loop: s_add_u32 s0, s0, 1
              s_cmp_lt_u32 s0, 10
              s_cbranch_scc1 loop
              s_branch done
              s_nop 0
            done:
              s_endpgm
        ";
        let a = assemble(src, Target::Gfx900).unwrap();
        assert_eq!(a.labels["start"], 0);
        assert_eq!(a.labels["loop"], 4);
        assert_eq!(a.labels["done"], 24);
        let texts: Vec<String> = a.insts.iter().map(|(_, i)| i.to_string()).collect();
        // s_cbranch_scc1 at 12 jumps back to 4: (4 - 16) / 4 = -3
        assert_eq!(texts[3], "s_cbranch_scc1 65533");
        assert_eq!(texts[4], "s_branch 1");
        assert_eq!(a.bytes.len(), 28);
    }

    #[test]
    fn errors_carry_line_numbers() {
        let e = assemble("s_nop 0\n v_bogus v1\n", Target::Gfx900).unwrap_err();
        assert_eq!(e.line, 2);
        let e = assemble("s_branch nowhere", Target::Gfx900).unwrap_err();
        assert!(e.message.contains("unknown label"), "{e}");
        let e = assemble(".byte 1", Target::Gfx900).unwrap_err();
        assert!(e.message.contains("unsupported directive"), "{e}");
    }
}
