//! Byte strings from input files, made safe to print: a hostile file must not put control
//! characters (terminal escapes, NULs) or pages of junk into an error message.

/// `bytes` as text: valid UTF-8 printable characters as they are, everything else escaped
/// (`\0`, `\x1b`, `\xff`), cut after `max` characters with a note of the full length.
pub fn printable(bytes: &[u8], max: usize) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if shown == max {
                return truncated(out, bytes.len());
            }
            push_char(&mut out, c);
            shown += 1;
        }
        for b in chunk.invalid() {
            if shown == max {
                return truncated(out, bytes.len());
            }
            out.push_str(&format!("\\x{b:02x}"));
            shown += 1;
        }
    }
    out
}

/// `text` with its control characters escaped (for messages built from strings that came
/// from a file).
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_char(&mut out, c);
    }
    out
}

fn push_char(out: &mut String, c: char) {
    match c {
        '\0' => out.push_str("\\0"),
        c if c.is_control() => out.extend(c.escape_default()),
        c => out.push(c),
    }
}

fn truncated(mut out: String, len: usize) -> String {
    out.push_str(&format!("... ({len} bytes)"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_invalid_bytes_are_escaped_and_long_strings_cut() {
        assert_eq!(printable(b"gfx900", 64), "gfx900");
        assert_eq!(printable(b"a\0b\x1b[2J\xff", 64), "a\\0b\\u{1b}[2J\\xff");
        assert_eq!(printable(&[0u8; 300], 4), "\\0\\0\\0\\0... (300 bytes)");
        assert_eq!(escape_controls("x\ny"), "x\\ny");
    }
}
