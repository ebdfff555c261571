//! The text assembler: LLVM-syntax instructions back to [`Inst`].
//!
//! It is the inverse of `Display`, built on the same table: the mnemonic selects candidate rows,
//! each operand is parsed against its slot in the row's template and stored into the slot's
//! encoding field, trailing modifiers set their bits, and the resulting bytes go through
//! [`decode`](crate::decode) so that validation and canonicalisation are the decoder's own. Where
//! the text is ambiguous (a mnemonic without `_e32`/`_e64`, a constant that may be inline or a
//! literal) the candidate whose disassembly is the input text wins, so `assemble(display(x))`
//! gives back `x`.

mod encoding;
mod lex;
mod modifiers;
mod operands;
mod program;
mod special;
mod value;

pub use program::{assemble, Assembly};
pub use value::Prefer;

use crate::fields::Enc;
use crate::table::{lookup_name, op_info, Format, OpId};
use crate::{Inst, Target};
use std::fmt;

/// Why a line of assembly could not be assembled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line number in the source (0 for a single instruction).
    pub line: usize,
    /// The offending text.
    pub text: String,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "`{}`: {}", self.text, self.message)
    }
}

impl std::error::Error for AsmError {}

/// Texts the assembler cannot read back to the same text by design: an invalid (or gfx90a/gfx10)
/// DPP control or a constant where only registers go prints as a comment without its value; a
/// compressed export's lanes are enabled in pairs by LLVM's assembler (which this one follows),
/// so a half-enabled pair cannot be written; and a swizzle bitmask assembles to LLVM's masks for
/// it, which may print as another form. LLVM 19's text (gfx940, gfx942) says so of an operand
/// outside its register class or a constant where only registers go in a comment after it,
/// which its assembler rejects as this one does.
pub fn is_lossy_text(text: &str) -> bool {
    text.contains("/* Invalid dpp_ctrl value */")
        || text.contains("is not supported on ASICs earlier than")
        || text.contains("/* 64 bit dpp only supports row_newbcast */")
        || text.contains("/* DP ALU dpp only supports row_newbcast */")
        || text.contains("/*invalid immediate*/")
        || text.contains("/*Invalid immediate*/")
        || text.contains("/*Invalid register, operand has")
        || special::bitmask_text_prints_otherwise(text)
        || (text.starts_with("exp ") && text.contains(" compr"))
}

/// Resolves a branch label to an offset in bytes from the start of the program.
pub(crate) type Labels<'a> = &'a dyn Fn(&str) -> Option<u32>;

/// Assembles one instruction (branch targets as numbers, not labels).
pub fn assemble_inst(text: &str, target: Target) -> Result<Inst, AsmError> {
    assemble_at(text, target, 0, None).map_err(|message| AsmError {
        line: 0,
        text: text.trim().to_string(),
        message,
    })
}

/// The table rows (and encodings) a mnemonic may denote, most preferred first.
fn candidates(mnemonic: &str, target: Target) -> Vec<(OpId, Enc)> {
    let mut out: Vec<(OpId, Enc)> = lookup_name(mnemonic, target)
        .map(|o| (o, Enc::Native))
        .collect();
    for (suffix, enc) in [("_sdwa", Enc::Sdwa), ("_dpp", Enc::Dpp)] {
        if let Some(base) = mnemonic.strip_suffix(suffix) {
            let extended = [format!("{base}_e32"), base.to_string()];
            for name in &extended {
                for op in lookup_name(name, target) {
                    if matches!(
                        op_info(op).format,
                        Format::Vop1 | Format::Vop2 | Format::Vopc
                    ) {
                        out.push((op, enc));
                    }
                }
            }
        }
    }
    // `v_nop_e64`, `v_clrexcp_e64`: ops without operands print the same in both encodings,
    // so their rows carry no suffix; the suffix picks the encoding (as LLVM's assembler does).
    for (suffix, vop3) in [("_e64", true), ("_e32", false)] {
        if let Some(base) = mnemonic.strip_suffix(suffix).filter(|_| out.is_empty()) {
            out.extend(
                lookup_name(base, target)
                    .filter(|&o| (op_info(o).format == Format::Vop3) == vop3)
                    .map(|o| (o, Enc::Native)),
            );
        }
    }
    if out.is_empty() {
        // `v_add_f32` without an encoding suffix: the 32-bit form if the operands allow it.
        for suffix in ["_e32", "_e64"] {
            out.extend(
                lookup_name(&format!("{mnemonic}{suffix}"), target).map(|o| (o, Enc::Native)),
            );
        }
    }
    out
}

fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Assembles one instruction placed at byte offset `pc` of a program with `labels`.
pub(crate) fn assemble_at(
    text: &str,
    target: Target,
    pc: u32,
    labels: Option<Labels>,
) -> Result<Inst, String> {
    let parts = lex::split(text);
    let rows = candidates(parts.mnemonic, target);
    if rows.is_empty() {
        return Err(format!(
            "unknown mnemonic `{}` for {target}",
            parts.mnemonic
        ));
    }
    let wanted = normalize(text);
    let mut fallback: Option<Inst> = None;
    let mut first_error: Option<String> = None;
    for &(op, enc) in &rows {
        // LLVM reads an i16 operand's `0x3c00` as a literal first.
        for prefer in [Prefer::Literal, Prefer::Inline] {
            match operands::build(op, enc, &parts, prefer, target, pc, labels) {
                Ok(inst) => {
                    if normalize(&inst.to_string()) == wanted {
                        return Ok(inst);
                    }
                    fallback.get_or_insert(inst);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
    }
    fallback.ok_or_else(|| first_error.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asm(t: &str) -> Vec<u8> {
        assemble_inst(t, Target::Gfx900)
            .unwrap_or_else(|e| panic!("{e}"))
            .encode()
    }

    fn words(t: &str) -> Vec<u32> {
        assemble_inst(t, Target::Gfx900).unwrap().encode_words()
    }

    #[test]
    fn an_encoding_suffix_picks_the_encoding_of_an_op_without_operands() {
        // llvm-mc-15 -mcpu=gfx900: v_nop_e64 [0x00,0x00,0x40,0xd1,0x00,0x00,0x00,0x00],
        // v_clrexcp_e32 [0x00,0x6a,0x00,0x7e].
        assert_eq!(words("v_nop_e64"), [0xd1400000, 0]);
        assert_eq!(words("v_clrexcp_e64"), [0xd1750000, 0]);
        assert_eq!(words("v_clrexcp_e32"), [0x7e006a00]);
        assert_eq!(words("v_nop"), [0x7e000000]);
    }

    #[test]
    fn common_instructions() {
        // Encodings from llvm-mc-15 -arch=amdgcn -mcpu=gfx900 -show-encoding.
        assert_eq!(words("s_mov_b32 s0, s1"), [0xbe800001]);
        assert_eq!(words("s_add_u32 s0, s1, 0x1234"), [0x8000ff01, 0x1234]);
        assert_eq!(words("v_add_f32_e32 v0, v1, v2"), [0x02000501]);
        assert_eq!(words("v_add_f32 v0, v1, v2"), [0x02000501]);
        assert_eq!(words("s_waitcnt vmcnt(0) lgkmcnt(0)"), [0xbf8c0070]);
        assert_eq!(words("s_endpgm"), [0xbf810000]);
        assert_eq!(words("v_pk_add_f16 v0, v1, v2"), [0xd38f4000, 0x18020501]);
        assert_eq!(
            words("global_load_dword v1, v[2:3], off offset:16"),
            [0xdc508010, 0x017f0002]
        );
        assert_eq!(
            words("ds_add_u32 v2, v4 offset:8208"),
            [0xd8002010, 0x00000402]
        );
        assert_eq!(asm("s_nop 0"), [0, 0, 0x80, 0xbf]);
    }

    #[test]
    fn errors_name_the_problem() {
        let e = assemble_inst("v_bogus v0", Target::Gfx900).unwrap_err();
        assert!(e.message.contains("unknown mnemonic"), "{e}");
        let e = assemble_inst("s_mov_b32 s0", Target::Gfx900).unwrap_err();
        assert!(e.message.contains("too few operands"), "{e}");
        let e = assemble_inst("s_mov_b32 s0, s1, s2", Target::Gfx900).unwrap_err();
        assert!(e.message.contains("too many operands"), "{e}");
        let e = assemble_inst("s_mov_b32 s0, v1", Target::Gfx900).unwrap_err();
        assert!(!e.message.is_empty());
    }
}
