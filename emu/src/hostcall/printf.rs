//! Device `printf` over hostcall: the message protocol and the C-format rendering.
//!
//! # Messages (ockl `services.cl`, ROCclr `devhcmessages.cpp`)
//!
//! A message is a stream of u64 sent by one lane over several hostcall packets. Slot word 0 of
//! each packet is the *descriptor*: bit 0 BEGIN, bit 1 END, bits 2–4 reserved, bits 5–7 the
//! number of following slot words (1–7) that carry data, bits 8–63 the message id. On BEGIN the
//! host opens a message, puts its id in the descriptor (clearing BEGIN) and returns that
//! descriptor in slot word 0, which the device passes to every later packet of the message. On
//! END the host runs the service on the accumulated words and returns its result in slot word
//! 0 (word 1 is left alone).
//!
//! # The printf message (ockl `__ockl_fprintf_*`, ROCclr `devhcprintf.cpp`)
//!
//! - word 0: control; bit 0 set means stderr, any other bit set makes the printf fail with -1;
//! - the format string, its bytes packed little-endian 8 per word, NUL-terminated and padded
//!   with zeros to a word boundary (sent 56 bytes, 7 words, per packet);
//! - one word per argument, in order: integers zero-extended from their promoted C type
//!   (`int` arguments therefore arrive as their 32-bit pattern), `float`/`double` as the bit
//!   pattern of the promoted double, pointers as their address, and the argument of each `%s`
//!   inline like the format string (a null pointer is sent as one zero word, an empty string).
//!
//! The host splits the format at its conversion specifications the way ROCclr's `format()`
//! does — a specification runs from `%` to the first of `diouxXfFeEgGaAcspn`, each `*` in it
//! consumes one argument word before the value, formatting stops silently when the arguments
//! run out — and renders each specification as glibc's `printf` would with the arguments
//! ROCclr passes it (`uint64_t` for integer conversions, so the length modifier picks how many
//! low bits count; `double`; `char *`; `void *`). The result (bytes written) goes back to the
//! device as printf's return value.

/// Conversion characters that end a specification (ROCclr's `convSpecifiers`).
const CONVERSIONS: &[u8] = b"diouxXfFeEgGaAcspn";

/// Widths and precisions beyond this are clamped, so that a stray `%999999999d` cannot make
/// the emulator allocate gigabytes.
pub const MAX_FIELD: usize = 1 << 20;

/// Where a printf's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Runs a completed printf message (control word, format string, arguments).
///
/// Returns the stream and the text, or `None` when the control word has unknown bits, in
/// which case the device's printf returns -1 and nothing is printed.
pub fn run_message(message: &[u64]) -> Option<(Stream, Vec<u8>)> {
    let (&control, rest) = message.split_first()?;
    if control & !1 != 0 {
        return None;
    }
    let stream = if control & 1 != 0 {
        Stream::Stderr
    } else {
        Stream::Stdout
    };
    Some((stream, format_words(rest)))
}

/// Renders a format string followed by its arguments, all packed in words as the device sends
/// them.
pub fn format_words(words: &[u64]) -> Vec<u8> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let fmt_len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let fmt = &bytes[..fmt_len];
    let end = words.len();
    // The format string and its NUL, rounded up to whole words.
    let mut ptr = ((fmt_len + 8) / 8).min(end);
    let mut out = Vec::new();
    let mut point = 0;
    loop {
        let Some(pct) = fmt[point..].iter().position(|&c| c == b'%') else {
            out.extend_from_slice(&fmt[point..]);
            return out;
        };
        out.extend_from_slice(&fmt[point..point + pct]);
        let mark = point + pct;
        point = mark + 1;
        if fmt.get(point) == Some(&b'%') {
            out.push(b'%');
            point += 1;
            continue;
        }
        if ptr == end {
            return out;
        }
        let Some(conv) = fmt[point..].iter().position(|c| CONVERSIONS.contains(c)) else {
            return out;
        };
        point += conv + 1;
        ptr = process_spec(&fmt[mark..point], words, &bytes, ptr, &mut out);
    }
}

/// Consumes the arguments of one specification starting at word `ptr`, renders it into
/// `out` and returns the index of the next unused word.
fn process_spec(spec: &[u8], words: &[u64], bytes: &[u8], ptr: usize, out: &mut Vec<u8>) -> usize {
    let end = words.len();
    let stars = spec.iter().filter(|&&c| c == b'*').count();
    // As ROCclr: more than two stars, or too few words for the stars and the value, ends the
    // formatting.
    if stars > 2 || end - ptr < stars + 1 {
        return end;
    }
    let star_values = &words[ptr..ptr + stars];
    let at = ptr + stars;
    let (arg, next) = match spec[spec.len() - 1] {
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' | b'c' => (Arg::Int(words[at]), at + 1),
        b's' => {
            let from = &bytes[at * 8..end * 8];
            let len = from.iter().position(|&b| b == 0).unwrap_or(from.len());
            (Arg::Str(&from[..len]), (at + (len + 8) / 8).min(end))
        }
        b'p' => (Arg::Ptr(words[at]), at + 1),
        b'n' => return at + 1,
        // f F e E g G a A
        _ => (Arg::Float(f64::from_bits(words[at])), at + 1),
    };
    match parse_spec(spec, star_values) {
        Some(s) => render(&s, arg, out),
        // Not a specification glibc would accept: print it as it stands.
        None => out.extend_from_slice(spec),
    }
    next
}

/// One argument as the host `printf` sees it.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    /// An integer conversion's 64-bit word; the length modifier picks the bits that count.
    Int(u64),
    Float(f64),
    /// The bytes of a string, without its NUL.
    Str(&'a [u8]),
    Ptr(u64),
}

/// Length modifiers, folded by the width they give an integer argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    Char,
    Short,
    Int,
    /// l ll q j z Z t: 64 bits on the LP64 host.
    Long,
    /// L: long double; the device's is a double.
    LongDouble,
}

/// A parsed conversion specification.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    length: Length,
    conv: u8,
}

/// Parses `%[flags][width][.precision][length]conv`, taking `*` values from `stars` in order
/// (each the low 32 bits of its word, as `int`). `None` if `spec` is not of that form.
pub fn parse_spec(spec: &[u8], stars: &[u64]) -> Option<Spec> {
    let mut s = Spec {
        minus: false,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: 0,
        precision: None,
        length: Length::Int,
        conv: 0,
    };
    let mut stars = stars.iter().map(|&w| w as u32 as i32);
    let mut i = 1;
    let at = |i: usize| spec.get(i).copied().unwrap_or(0);
    loop {
        match at(i) {
            b'-' => s.minus = true,
            b'+' => s.plus = true,
            b' ' => s.space = true,
            b'#' => s.alt = true,
            b'0' => s.zero = true,
            // Thousands grouping and locale digits: no effect in the C locale.
            b'\'' | b'I' => {}
            _ => break,
        }
        i += 1;
    }
    let digits = |i: &mut usize| {
        let mut n: usize = 0;
        while at(*i).is_ascii_digit() {
            n = n
                .saturating_mul(10)
                .saturating_add((at(*i) - b'0') as usize);
            *i += 1;
        }
        n
    };
    if at(i) == b'*' {
        i += 1;
        let w = stars.next()?;
        if w < 0 {
            s.minus = true;
        }
        s.width = w.unsigned_abs() as usize;
    } else {
        s.width = digits(&mut i);
    }
    if at(i) == b'.' {
        i += 1;
        if at(i) == b'*' {
            i += 1;
            let p = stars.next()?;
            s.precision = (p >= 0).then_some(p as usize);
        } else {
            s.precision = Some(digits(&mut i));
        }
    }
    s.length = match (at(i), at(i + 1)) {
        (b'h', b'h') => {
            i += 2;
            Length::Char
        }
        (b'l', b'l') => {
            i += 2;
            Length::Long
        }
        (b'h', _) => {
            i += 1;
            Length::Short
        }
        (b'l' | b'q' | b'j' | b'z' | b'Z' | b't', _) => {
            i += 1;
            Length::Long
        }
        (b'L', _) => {
            i += 1;
            Length::LongDouble
        }
        _ => Length::Int,
    };
    if i + 1 != spec.len() || !CONVERSIONS.contains(&spec[i]) {
        return None;
    }
    s.conv = spec[i];
    s.width = s.width.min(MAX_FIELD);
    s.precision = s.precision.map(|p| p.min(MAX_FIELD));
    Some(s)
}

/// Renders one conversion as glibc does.
pub fn render(s: &Spec, arg: Arg, out: &mut Vec<u8>) {
    match (s.conv, arg) {
        (b'd' | b'i', Arg::Int(w)) => {
            let v = match s.length {
                Length::Char => w as i8 as i64,
                Length::Short => w as i16 as i64,
                Length::Int | Length::LongDouble => w as i32 as i64,
                Length::Long => w as i64,
            };
            let sign = sign_prefix(s, v < 0);
            integer(s, sign, v.unsigned_abs(), 10, false, out);
        }
        (b'o' | b'u' | b'x' | b'X', Arg::Int(w)) => {
            let v = match s.length {
                Length::Char => w as u8 as u64,
                Length::Short => w as u16 as u64,
                Length::Int | Length::LongDouble => w as u32 as u64,
                Length::Long => w,
            };
            let base = match s.conv {
                b'o' => 8,
                b'u' => 10,
                _ => 16,
            };
            integer(s, "", v, base, s.conv == b'X', out);
        }
        (b'c', Arg::Int(w)) => {
            let mut buf = [0u8; 4];
            let text: &[u8] = if s.length == Length::Long {
                // %lc: a wide character, written as UTF-8.
                match char::from_u32(w as u32) {
                    Some(c) => c.encode_utf8(&mut buf).as_bytes(),
                    None => b"",
                }
            } else {
                buf[0] = w as u8;
                &buf[..1]
            };
            pad(s, b"", text, false, out);
        }
        (b's', Arg::Str(bytes)) => {
            let n = s.precision.map_or(bytes.len(), |p| p.min(bytes.len()));
            pad(s, b"", &bytes[..n], false, out);
        }
        (b'p', Arg::Ptr(0)) => pad(s, b"", b"(nil)", false, out),
        (b'p', Arg::Ptr(v)) => {
            // glibc prints a non-null pointer as %#lx, keeping the + and space flags.
            let hex = Spec {
                alt: true,
                length: Length::Long,
                conv: b'x',
                ..*s
            };
            integer(&hex, sign_prefix(s, false), v, 16, false, out);
        }
        (_, Arg::Float(x)) => float(s, x, out),
        // A conversion and an argument that do not belong together: nothing to print.
        _ => {}
    }
}

fn sign_prefix(s: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    }
}

/// Integer conversions: precision is the minimum number of digits, `#` adds `0x`/`0X` to
/// non-zero hex and makes octal start with 0, `0` pads with zeros unless a precision is given.
fn integer(s: &Spec, sign: &str, v: u64, base: u64, upper: bool, out: &mut Vec<u8>) {
    let mut digits = Vec::new();
    let mut n = v;
    let table: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    while n != 0 {
        digits.push(table[(n % base) as usize]);
        n /= base;
    }
    let precision = s.precision.unwrap_or(1);
    while digits.len() < precision {
        digits.push(b'0');
    }
    if s.alt && base == 8 && digits.last() != Some(&b'0') {
        digits.push(b'0');
    }
    digits.reverse();
    let mut prefix = sign.as_bytes().to_vec();
    if s.alt && base == 16 && v != 0 {
        prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
    }
    pad(s, &prefix, &digits, s.zero && s.precision.is_none(), out);
}

/// Writes `prefix` and `body` in a field of `s.width`: left-justified with `-`, else padded on
/// the left with spaces, or with zeros between prefix and body when `zeros`.
fn pad(s: &Spec, prefix: &[u8], body: &[u8], zeros: bool, out: &mut Vec<u8>) {
    let fill = s.width.saturating_sub(prefix.len() + body.len());
    if s.minus {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zeros {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

/// Floating-point conversions f F e E g G a A, correctly rounded (to nearest, ties to even) as
/// glibc prints them.
fn float(s: &Spec, x: f64, out: &mut Vec<u8>) {
    let upper = s.conv.is_ascii_uppercase();
    let sign = sign_prefix(s, x.is_sign_negative());
    if !x.is_finite() {
        let body: &[u8] = match (x.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        pad(s, sign.as_bytes(), body, false, out);
        return;
    }
    let a = x.abs();
    let mut prefix = sign.as_bytes().to_vec();
    let body = match s.conv.to_ascii_lowercase() {
        b'f' => fixed(a, s.precision.unwrap_or(6), s.alt),
        b'e' => exponential(a, s.precision.unwrap_or(6), s.alt, upper),
        b'g' => general(a, s.precision.unwrap_or(6), s.alt, upper),
        _ => {
            prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
            hex_float(a, s.precision, s.alt, upper)
        }
    };
    pad(s, &prefix, body.as_bytes(), s.zero, out);
}

/// Digits past this many after the point (for %f) or after the first (for %e) are zeros for
/// every double (the longest exact expansion, of the smallest subnormal, has 1074), so Rust's
/// formatter — whose precision stops at 65535 — is asked for at most this many.
const EXACT_DIGITS: usize = 1100;

fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.min(EXACT_DIGITS);
    let mut t = format!("{a:.p$}");
    t.extend(std::iter::repeat_n('0', precision - p));
    if alt && precision == 0 {
        t.push('.');
    }
    t
}

/// `d.ddde±XX`, and the decimal exponent after rounding.
fn exp_parts(a: f64, precision: usize) -> (String, i32) {
    let p = precision.min(EXACT_DIGITS);
    let mut t = format!("{a:.p$e}");
    let e = t.find('e').expect("Rust's {:e} has an exponent");
    t.insert_str(e, &"0".repeat(precision - p));
    let (mantissa, exp) = t.split_once('e').expect("Rust's {:e} has an exponent");
    (
        mantissa.to_string(),
        exp.parse().expect("a decimal exponent"),
    )
}

fn exponential(a: f64, precision: usize, alt: bool, upper: bool) -> String {
    let (mut t, exp) = exp_parts(a, precision);
    if alt && precision == 0 {
        t.push('.');
    }
    t.push(if upper { 'E' } else { 'e' });
    t.push(if exp < 0 { '-' } else { '+' });
    t.push_str(&format!("{:02}", exp.unsigned_abs()));
    t
}

/// %g: %e or %f by the exponent, then (without `#`) no trailing zeros or bare point.
fn general(a: f64, precision: usize, alt: bool, upper: bool) -> String {
    let p = precision.max(1);
    let x = if a == 0.0 { 0 } else { exp_parts(a, p - 1).1 };
    let mut t = if x < -4 || x >= p as i32 {
        exponential(a, p - 1, alt, upper)
    } else {
        fixed(a, (p as i32 - 1 - x) as usize, alt)
    };
    if !alt {
        let exp_at = t.find(['e', 'E']).unwrap_or(t.len());
        let (num, exp) = t.split_at(exp_at);
        if num.contains('.') {
            let num = num.trim_end_matches('0').trim_end_matches('.');
            t = format!("{num}{exp}");
        }
    }
    t
}

/// %a without the `0x`: `h.hhhp±d`, normalised to a leading 1 (0 for zero and subnormals), the
/// shortest exact digits without a precision, else rounded to nearest, ties to even.
fn hex_float(a: f64, precision: Option<usize>, alt: bool, upper: bool) -> String {
    let bits = a.to_bits();
    let biased = (bits >> 52) as i32;
    let mut frac = bits & ((1 << 52) - 1);
    let (mut lead, exp) = match (biased, frac) {
        (0, 0) => (0u64, 0),
        (0, _) => (0, -1022),
        _ => (1, biased - 1023),
    };
    let mut ndigits = 13usize;
    match precision {
        None => {
            while ndigits > 0 && frac & 0xf == 0 {
                frac >>= 4;
                ndigits -= 1;
            }
        }
        Some(p) if p < 13 => {
            let shift = 4 * (13 - p) as u32;
            let keep = frac >> shift;
            let rest = frac & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            let mut kept = keep;
            // Ties go to an even last digit, which is the leading one at precision 0.
            let odd = if p == 0 { lead & 1 } else { keep & 1 } == 1;
            if rest > half || (rest == half && odd) {
                kept += 1;
                if p == 0 || kept >> (4 * p) != 0 {
                    lead += 1;
                    kept = 0;
                }
            }
            frac = kept;
            ndigits = p;
        }
        Some(_) => {}
    }
    let mut t = String::new();
    t.push(char::from_digit(lead as u32, 16).unwrap());
    let mut digits = if ndigits > 0 {
        format!("{frac:0ndigits$x}")
    } else {
        String::new()
    };
    if let Some(p) = precision {
        while digits.len() < p {
            digits.push('0');
        }
    }
    if !digits.is_empty() || alt {
        t.push('.');
    }
    t.push_str(&digits);
    t.push('p');
    t.push(if exp < 0 { '-' } else { '+' });
    t.push_str(&exp.unsigned_abs().to_string());
    if upper {
        t.make_ascii_uppercase();
    }
    t
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One argument of a test case, as the device would send it.
    #[derive(Clone, Copy)]
    pub(crate) enum T<'a> {
        /// An `int` (or promoted char/short): zero-extended 32-bit pattern.
        I(i32),
        /// A 64-bit integer.
        L(i64),
        D(f64),
        S(&'a str),
        P(u64),
    }

    /// Packs `bytes` and a NUL as the device does: 8 bytes per word, zero-padded.
    pub(crate) fn pack_str(bytes: &[u8], words: &mut Vec<u64>) {
        let mut b = bytes.to_vec();
        b.push(0);
        for chunk in b.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            words.push(u64::from_le_bytes(w));
        }
    }

    pub(crate) fn message_words(fmt: &str, args: &[T]) -> Vec<u64> {
        let mut words = Vec::new();
        pack_str(fmt.as_bytes(), &mut words);
        for a in args {
            match *a {
                T::I(v) => words.push(v as u32 as u64),
                T::L(v) => words.push(v as u64),
                T::D(v) => words.push(v.to_bits()),
                T::S(s) => pack_str(s.as_bytes(), &mut words),
                T::P(v) => words.push(v),
            }
        }
        words
    }

    #[track_caller]
    fn t(fmt: &str, args: &[T], expected: &[u8]) {
        let got = format_words(&message_words(fmt, args));
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(expected),
            "format {fmt:?}"
        );
        assert_eq!(got, expected, "format {fmt:?}");
    }

    use T::*;

    #[test]
    fn literals_and_percent() {
        t("hello\n", &[], b"hello\n");
        t("100%% sure %%d\n", &[], b"100% sure %d\n");
        t("", &[], b"");
        // Running out of arguments stops the output at that specification.
        t("a=%d b=%d tail\n", &[I(1)], b"a=1 b=");
        // A lone % at the end prints nothing more.
        t("x%", &[I(1)], b"x");
        t("%n|%d", &[P(0), I(5)], b"|5");
    }

    #[test]
    fn strings_inline_and_following_arguments() {
        t(
            "%s|%d",
            &[S("a longer string of text"), I(7)],
            b"a longer string of text|7",
        );
        t(
            "[%10s][%-6s][%.2s]",
            &[S("abc"), S("ab"), S("xyz")],
            b"[       abc][ab    ][xy]",
        );
        t("[%s]%d", &[S(""), I(3)], b"[]3");
        // Exactly eight bytes: the NUL takes a word of its own.
        t("%s%d", &[S("12345678"), I(9)], b"123456789");
        t("%*s|%-*s|", &[I(5), S("ab"), I(4), S("c")], b"   ab|c   |");
        t("%.*s|", &[I(-1), S("abcdef")], b"abcdef|");
    }

    #[test]
    fn star_values_are_ints() {
        t("[%*d]", &[I(-6), I(42)], b"[42    ]");
        t("[%.*f]", &[I(2), D(2.34159)], b"[2.34]");
        t("[%*.*e]", &[I(12), I(3), D(-1234.5)], b"[  -1.234e+03]");
        // Too few words for the stars and the value: formatting ends.
        t("[%*d]", &[I(5)], b"[]");
    }

    #[test]
    fn where_glibc_is_not_followed() {
        // glibc 2.36 prints "1.e+06", dropping the zeros that # keeps.
        t(
            "%#g|%#.3G",
            &[D(999999.5), D(999.5)],
            b"1.00000e+06|1.00E+03",
        );
        // The device's long double is a double (glibc would read an x87 long double).
        t("%Lf %Le", &[D(1.25), D(-2.0)], b"1.250000 -2.000000e+00");
        // %lc writes the character as UTF-8 whatever the locale.
        t(
            "[%lc][%3lc]",
            &[I(0xe9), I(0x41)],
            "[\u{e9}][  A]".as_bytes(),
        );
    }

    #[test]
    fn malformed_specification_is_printed_as_is() {
        t("[%1$d]", &[I(5)], b"[%1$d]");
        t("[%ks]", &[S("abc")], b"[%ks]");
    }

    #[test]
    fn random_formats_never_panic() {
        let alphabet = b"%%%-+ #0'*.123456789hlLqjzZtdiouxXfFeEgGaAcspnk$ab";
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for _ in 0..20000 {
            let len = (next() % 24) as usize;
            let fmt: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let mut words = Vec::new();
            pack_str(&fmt, &mut words);
            for _ in 0..next() % 6 {
                words.push(match next() % 3 {
                    0 => next(),
                    1 => next() % 40,
                    _ => (next() % 40).wrapping_sub(20),
                });
            }
            let _ = format_words(&words);
            let _ = format_words(&words[..words.len() / 2]);
        }
    }

    #[test]
    fn control_word() {
        let mut m = vec![1];
        m.extend(message_words("err %d", &[I(2)]));
        assert_eq!(run_message(&m), Some((Stream::Stderr, b"err 2".to_vec())));
        m[0] = 0;
        assert_eq!(run_message(&m), Some((Stream::Stdout, b"err 2".to_vec())));
        m[0] = 4;
        assert_eq!(run_message(&m), None);
        assert_eq!(run_message(&[]), None);
    }

    /// Expected strings produced by glibc 2.36's `snprintf` with the same format and the C
    /// types the device promotes to.
    #[test]
    fn matches_glibc() {
        let failures = std::cell::RefCell::new(Vec::new());
        let t = |fmt: &str, args: &[T], expected: &[u8]| {
            let got = format_words(&message_words(fmt, args));
            if got != expected {
                failures.borrow_mut().push(format!(
                    "{fmt:?}\n   got {:?}\n glibc {:?}",
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(expected)
                ));
            }
        };
        include!("printf_glibc_cases.rs");
        let failures = failures.into_inner();
        assert!(
            failures.is_empty(),
            "{} mismatches:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
