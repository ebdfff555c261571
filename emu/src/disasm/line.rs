//! The text of one output line, byte for byte as llvm-objdump-15's AMDGCN pretty printer writes it
//! (`AMDGCNPrettyPrinter::printInst`, `dumpELFData` in `llvm-objdump.cpp`).

use std::fmt::Write;

/// Instruction text (with its leading tab) is left-justified to this many bytes before the
/// `// ADDR: WORDS` comment; longer text runs straight into the comment.
pub const TEXT_COLUMN: usize = 60;

/// `\t<text padded to 60>// <ADDR>: <WORDS>` for a decoded instruction of `bytes`.
#[cfg(test)]
pub fn instruction(out: &mut String, text: &str, address: u64, bytes: &[u8]) {
    let start = out.len();
    out.push('\t');
    out.push_str(text);
    finish_instruction(out, start, address, bytes);
}

/// Pads the line begun at `start` (tab and text already written) and appends the comment.
pub fn finish_instruction(out: &mut String, start: usize, address: u64, bytes: &[u8]) {
    pad_to(out, start, TEXT_COLUMN);
    address_and_words(out, address, bytes);
}

/// The line for bytes that do not decode: `.long` for a word, `.byte` for a tail of 1-3 bytes.
pub fn undecodable(out: &mut String, address: u64, bytes: &[u8]) {
    let start = out.len();
    if let Some(word) = bytes.first_chunk::<4>() {
        let _ = write!(out, "\t.long {:#010x} ", u32::from_le_bytes(*word));
    } else {
        out.push_str("\t.byte ");
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
        out.push_str(&hex.join(", "));
    }
    pad_to(out, start, TEXT_COLUMN);
    address_and_words(out, address, &bytes[..bytes.len().min(4)]);
}

/// `// 000000001700: C0020242 00000004`: 12 upper-case hex digits of address, then the
/// instruction as little-endian words (or as bytes when it is shorter than a word).
fn address_and_words(out: &mut String, address: u64, bytes: &[u8]) {
    out.push_str("// ");
    push_hex(out, address, 12);
    words(out, bytes);
}

/// `: C0020242 00000004`, the part of the comment after the address.
pub fn words(out: &mut String, bytes: &[u8]) {
    out.push(':');
    if bytes.len() >= 4 {
        for word in bytes.chunks_exact(4) {
            let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            out.push(' ');
            push_hex(out, word as u64, 8);
        }
    } else {
        for b in bytes {
            let _ = write!(out, " {b:02X}");
        }
    }
}

/// Upper-case hex of the low `digits` nibbles (this runs for every line, so no `format!`).
pub fn push_hex(out: &mut String, v: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for i in (0..digits).rev() {
        out.push(HEX[((v >> (4 * i)) & 0xf) as usize] as char);
    }
}

pub fn pad_to(out: &mut String, start: usize, width: usize) {
    const SPACES: &str = "                                                                ";
    let used = out.len() - start;
    out.push_str(&SPACES[..width.saturating_sub(used).min(SPACES.len())]);
}

/// Bytes under a data symbol (STT_OBJECT or STT_COMMON) in a code section: eight per line,
/// `%8x:` address, hex bytes, then printable ASCII — as llvm-objdump's `dumpELFData`.
pub fn data(out: &mut String, address: u64, bytes: &[u8]) {
    for (i, chunk) in bytes.chunks(8).enumerate() {
        let _ = write!(out, "{:>8x}:", address.wrapping_add(8 * i as u64));
        for b in chunk {
            let _ = write!(out, " {b:02x}");
        }
        pad_to(out, out.len(), 3 * (8 - chunk.len()) + 9);
        for &b in chunk {
            out.push(if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            });
        }
        out.push('\n');
    }
}

/// How many leading zero bytes llvm-objdump folds into a `\t\t...` line: none unless there are
/// at least 8, and then a multiple of 4 so an instruction that starts with a zero byte survives.
pub fn skippable_zero_bytes(bytes: &[u8]) -> usize {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    if zeros < 8 {
        0
    } else {
        zeros & !3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_text_is_padded_to_column_60() {
        let mut s = String::new();
        instruction(
            &mut s,
            "s_load_dword s9, s[4:5], 0x4",
            0x1700,
            &[0x42, 2, 2, 0xc0, 4, 0, 0, 0],
        );
        assert_eq!(
            s,
            "\ts_load_dword s9, s[4:5], 0x4                               // 000000001700: C0020242 00000004"
        );
    }

    #[test]
    fn long_text_runs_into_the_comment() {
        let mut s = String::new();
        let text =
            "v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2";
        instruction(&mut s, text, 0x10, &[2, 0x15, 2, 0, 0xf9, 2, 2, 0x7e]);
        assert!(
            s.ends_with("BYTE_2// 000000000010: 00021502 7E0202F9"),
            "{s}"
        );
    }

    #[test]
    fn undecodable_words_and_tails() {
        let mut s = String::new();
        undecodable(&mut s, 0xc, &[0, 0x40, 0xd9, 0xd3, 0xff]);
        assert_eq!(
            s,
            format!(
                "\t.long 0xd3d94000{}// 00000000000C: D3D94000",
                " ".repeat(43)
            )
        );
        s.clear();
        undecodable(&mut s, 0x30, &[1, 2]);
        assert_eq!(
            s,
            format!("\t.byte 0x01, 0x02{}// 000000000030: 01 02", " ".repeat(43))
        );
    }

    #[test]
    fn data_lines_match_dump_elf_data() {
        let mut s = String::new();
        data(&mut s, 0, &[0, 0, 0x80, 0xbf]);
        assert_eq!(s, format!("       0: 00 00 80 bf{}....\n", " ".repeat(21)));
    }

    #[test]
    fn zero_runs_fold_from_eight_bytes_in_whole_words() {
        assert_eq!(skippable_zero_bytes(&[0; 7]), 0);
        assert_eq!(skippable_zero_bytes(&[0; 8]), 8);
        assert_eq!(skippable_zero_bytes(&[0; 18]), 16);
        assert_eq!(skippable_zero_bytes(&[0, 0, 0, 0, 1, 0, 0, 0, 0]), 0);
    }
}
