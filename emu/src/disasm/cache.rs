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

/// One encoding: its size, whether it branches, and where its pieces of the line are in
/// [`LineCache::text`]. Kept small (16 bytes), as the tables are read once per instruction.
#[derive(Clone, Copy)]
pub struct Entry {
    /// Where the instruction text starts (its tab just before it).
    start: u32,
    /// A branch's target less its own address; 0 for other instructions.
    displacement: i32,
    /// The text's length (without the tab), and that of everything before the address: the
    /// tab, the text, the padding and `// `.
    text_len: u16,
    head_len: u16,
    /// The length of `:` and the words, which follow the head.
    tail_len: u8,
    /// Bytes the instruction occupies.
    len: u8,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    /// A PC-relative branch, whose operand may give way to a symbol.
    Branch,
    /// An `s_branch`/`s_cbranch_*`, whose line also names the target's symbol.
    AnnotatedBranch,
}

impl Entry {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// The branch target of the instruction at `address`, for branches.
    pub fn branch_target(&self, address: u64) -> Option<u64> {
        (self.kind != Kind::Plain).then(|| address.wrapping_add(self.displacement as i64 as u64))
    }

    /// Is the line of this branch annotated with the target's symbol?
    pub fn annotated(&self) -> bool {
        self.kind == Kind::AnnotatedBranch
    }
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
        let start = entry.start as usize;
        &self.text[start..start + entry.head_len as usize]
    }

    /// `:` and the instruction's words (everything after the address).
    pub fn tail(&self, entry: &Entry) -> &str {
        let start = entry.start as usize + entry.head_len as usize;
        &self.text[start..start + entry.tail_len as usize]
    }

    /// The instruction's text alone.
    pub fn text(&self, entry: &Entry) -> &str {
        let start = entry.start as usize + 1;
        &self.text[start..start + entry.text_len as usize]
    }

    fn format(&mut self, inst: Inst, bytes: &[u8]) -> Entry {
        let start = self.text.len();
        self.text.push('\t');
        let _ = inst.write_text(&mut self.text);
        let text_len = self.text.len() - start - 1;
        line::pad_to(&mut self.text, start, line::TEXT_COLUMN);
        self.text.push_str("// ");
        let head_len = self.text.len() - start;
        line::words(&mut self.text, bytes);
        let tail_len = self.text.len() - start - head_len;
        let (kind, displacement) = match inst.branch_target(0) {
            None => (Kind::Plain, 0),
            Some(d) if super::annotates_branch_target(&inst) => (Kind::AnnotatedBranch, d as i32),
            Some(d) => (Kind::Branch, d as i32),
        };
        Entry {
            start: start as u32,
            displacement,
            // LLVM's longest text for one instruction is under 200 bytes; the words are 2 at most.
            text_len: text_len as u16,
            head_len: head_len as u16,
            tail_len: tail_len as u8,
            len: inst.len() as u8,
            kind,
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
        (entry.len(), text)
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

    /// What the cache relies on: an instruction decodes the same whatever follows its bytes.
    #[test]
    fn a_decode_depends_only_on_the_bytes_it_consumed() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut decoded = 0;
        for _ in 0..20_000 {
            let bytes: Vec<u8> = [random(), random()]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(12)
                .collect();
            let Ok(inst) = gcn_isa::decode(&bytes, Target::Gfx906) else {
                continue;
            };
            decoded += 1;
            let other_tail = [&bytes[..inst.len()], &random().to_le_bytes()[..]].concat();
            let again = gcn_isa::decode(&other_tail, Target::Gfx906).unwrap();
            assert_eq!(again, inst, "{bytes:02x?}");
            assert_eq!(again.to_string(), inst.to_string());
        }
        assert!(decoded > 1000, "{decoded}");
    }

    #[test]
    fn branches_are_marked() {
        let mut cache = LineCache::new(Target::Gfx900);
        // s_branch 3
        let entry = cache.get(&[3, 0, 0x82, 0xbf]).unwrap();
        assert_eq!(entry.branch_target(0x100), Some(0x110));
        assert!(entry.annotated());
        assert_eq!(cache.text(&entry), "s_branch 3");
        // s_getpc_b64 s[0:1] is no branch
        let entry = cache.get(&[0x00, 0x1c, 0x80, 0xbe]).unwrap();
        assert_eq!(entry.branch_target(0x100), None);
    }

    #[test]
    fn undecodable_bytes_are_none() {
        let mut cache = LineCache::new(Target::Gfx900);
        assert!(cache.get(&[0xff, 0xff, 0xff, 0xff]).is_none());
        assert!(cache.get(&[1, 2]).is_none());
    }
}
