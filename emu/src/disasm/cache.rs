//! Each distinct instruction encoding decoded and formatted once.
//!
//! Compiled code repeats itself: of the 527,214 instructions in rocSPARSE's largest gfx900 code
//! object only 29,656 encodings are distinct. An instruction line is
//! `\t<text, padded>// <address>: <words>`, and all of it but the address (and a branch's
//! target, handled by the caller) follows from the instruction's bytes alone, so the line is
//! kept as the two pieces either side of the address and a repeat costs a table look-up and two
//! copies instead of a decode and a format.
//!
//! The key is the bytes the instruction occupies. `gcn_isa::decode` reads the first word, then
//! only the words the ones already read call for (the second word of a 64-bit format, then a
//! literal), so a successful decode depends on exactly the bytes it consumed: whatever follows
//! them, those bytes decode to the same instruction.

use super::line;
use gcn_isa::{Inst, Target};
use hashbrown::HashMap;

/// One encoding: its instruction, and where its pieces of the line are in [`LineCache::text`].
#[derive(Clone, Copy)]
pub struct Entry {
    pub inst: Inst,
    /// A PC-relative branch, whose line needs its target looked up.
    pub branch: bool,
    /// An `s_branch`/`s_cbranch_*` (SOPP), whose line is annotated with the target's symbol.
    pub annotated: bool,
    /// `start..text_end`: the instruction text; `start..address_at`: the tab, the text, the
    /// padding and `// `; `address_at..end`: `:` and the words.
    start: u32,
    text_end: u32,
    address_at: u32,
    end: u32,
}

/// The lines of the encodings seen so far, for one target.
pub struct LineCache {
    target: Target,
    /// Instructions of one word, by that word.
    one_word: HashMap<u32, Entry>,
    /// Instructions of two words, by both (little-endian).
    two_words: HashMap<u64, Entry>,
    /// The pieces of every entry, one after another.
    text: String,
}

impl LineCache {
    /// A rocSPARSE-sized code object needs about 3 MiB of text; past this (a fat binary of many
    /// large objects) the cache starts afresh rather than grow without bound.
    const MAX_TEXT: usize = 64 << 20;

    pub fn new(target: Target) -> LineCache {
        LineCache {
            target,
            one_word: HashMap::new(),
            two_words: HashMap::new(),
            text: String::new(),
        }
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// The entry for the instruction at the start of `rest` (the rest of its section), decoding
    /// it when its bytes are new; `None` when they do not decode.
    pub fn get(&mut self, rest: &[u8]) -> Option<Entry> {
        let first = u32::from_le_bytes(*rest.first_chunk::<4>()?);
        if let Some(entry) = self.one_word.get(&first) {
            return Some(*entry);
        }
        let both = rest.first_chunk::<8>().map(|b| u64::from_le_bytes(*b));
        if let Some(entry) = both.and_then(|key| self.two_words.get(&key)) {
            return Some(*entry);
        }
        let inst = gcn_isa::decode(rest, self.target).ok()?;
        if self.text.len() > Self::MAX_TEXT {
            self.clear();
        }
        let entry = self.format(inst, &rest[..inst.len()]);
        match (inst.len(), both) {
            (4, _) => {
                self.one_word.insert(first, entry);
            }
            (8, Some(key)) => {
                self.two_words.insert(key, entry);
            }
            // A 64-bit format with a literal is not kept: rare, and its key would be longer.
            _ => {}
        }
        Some(entry)
    }

    /// The tab, the text, the padding and `// ` (everything before the address).
    pub fn head(&self, entry: &Entry) -> &str {
        &self.text[entry.start as usize..entry.address_at as usize]
    }

    /// `:` and the instruction's words (everything after the address).
    pub fn tail(&self, entry: &Entry) -> &str {
        &self.text[entry.address_at as usize..entry.end as usize]
    }

    /// The instruction's text alone.
    pub fn text(&self, entry: &Entry) -> &str {
        &self.text[entry.start as usize + 1..entry.text_end as usize]
    }

    fn format(&mut self, inst: Inst, bytes: &[u8]) -> Entry {
        use std::fmt::Write as _;
        let start = self.text.len();
        self.text.push('\t');
        let _ = write!(self.text, "{inst}");
        let text_end = self.text.len();
        line::pad_to(&mut self.text, start, line::TEXT_COLUMN);
        self.text.push_str("// ");
        let address_at = self.text.len();
        line::words(&mut self.text, bytes);
        Entry {
            inst,
            branch: inst.branch_target(0).is_some(),
            annotated: super::annotates_branch_target(&inst),
            start: start as u32,
            text_end: text_end as u32,
            address_at: address_at as u32,
            end: self.text.len() as u32,
        }
    }

    fn clear(&mut self) {
        self.one_word.clear();
        self.two_words.clear();
        self.text.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(cache: &mut LineCache, rest: &[u8]) -> (usize, String) {
        let entry = cache.get(rest).unwrap();
        let text = format!("{}ADDR{}", cache.head(&entry), cache.tail(&entry));
        (entry.inst.len(), text)
    }

    #[test]
    fn an_encoding_is_formatted_once_and_found_by_its_own_bytes() {
        let mut cache = LineCache::new(Target::Gfx900);
        // s_waitcnt lgkmcnt(0), then what follows it in two different places
        let (len, text) = line(&mut cache, &[0x7f, 0xc0, 0x8c, 0xbf, 1, 2, 3, 4]);
        assert_eq!(len, 4);
        assert_eq!(
            text,
            format!("\ts_waitcnt lgkmcnt(0){}// ADDR: BF8CC07F", " ".repeat(39))
        );
        assert_eq!(line(&mut cache, &[0x7f, 0xc0, 0x8c, 0xbf]), (4, text));
        assert_eq!(cache.one_word.len(), 1);
        // s_load_dword s9, s[4:5], 0x4: two words
        let load = [0x42, 2, 2, 0xc0, 4, 0, 0, 0];
        let (len, text) = line(&mut cache, &load);
        assert_eq!(len, 8);
        assert!(text.ends_with("// ADDR: C0020242 00000004"), "{text}");
        assert_eq!(
            line(&mut cache, &[&load[..], &[9, 9, 9, 9]].concat()),
            (8, text)
        );
        assert_eq!(cache.two_words.len(), 1);
    }

    #[test]
    fn branches_are_marked() {
        let mut cache = LineCache::new(Target::Gfx900);
        // s_branch 3
        let entry = cache.get(&[3, 0, 0x82, 0xbf]).unwrap();
        assert!(entry.branch && entry.annotated);
        assert_eq!(cache.text(&entry), "s_branch 3");
    }

    #[test]
    fn undecodable_bytes_are_none() {
        let mut cache = LineCache::new(Target::Gfx900);
        assert!(cache.get(&[0xff, 0xff, 0xff, 0xff]).is_none());
        assert!(cache.get(&[1, 2]).is_none());
    }
}
