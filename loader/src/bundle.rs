//! Clang offload bundles (clang's `ClangOffloadBundler.rst`, "Binary Bundle File Layout"):
//!
//! ```text
//! "__CLANG_OFFLOAD_BUNDLE__"      24 bytes
//! number of entries               u64
//! per entry: offset u64, size u64, id length u64, id bytes (e.g. hipv4-amdgcn-amd-amdhsa--gfx900)
//! entry bytes, at their offsets from the start of the bundle
//! ```
//!
//! A host binary's `.hip_fatbin` section holds one or more bundles back to back, each padded to
//! an alignment; compressed bundles (`CCOB`, see `compressed`) may appear in their place.

use crate::compressed;
use crate::error::LoadErrorKind;
use crate::printable::printable;
use crate::MAX_FILE_SIZE;
use std::borrow::Cow;

pub const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Offset, size and id length, each a u64.
const ENTRY_HEADER: u64 = 24;
/// Real ids (`hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`) are far shorter.
const MAX_ID_CHARS: usize = 128;

/// One entry of a bundle.
#[derive(Debug)]
pub struct Entry<'a> {
    /// The bundle entry id: `<kind>-<triple>-<target id>`.
    pub id: String,
    /// Where the entry starts in the input the bundle was found in (for messages).
    pub offset: u64,
    /// Borrowed from the input, or owned when it came out of a compressed bundle.
    pub bytes: Cow<'a, [u8]>,
}

impl Entry<'_> {
    /// The entry is device code for AMDGPU (`...-amdgcn-amd-amdhsa...`).
    pub fn is_amdgcn(&self) -> bool {
        self.id
            .split_once('-')
            .is_some_and(|(_, triple)| triple.starts_with("amdgcn-"))
    }
}

/// The target id part of a bundle entry id: `gfx900:xnack-` from
/// `hipv4-amdgcn-amd-amdhsa--gfx900:xnack-` (or from the older `hip-amdgcn-amd-amdhsa-gfx900`).
pub fn target_id(id: &str) -> Option<&str> {
    id.find("-gfx").map(|i| &id[i + 1..])
}

fn u64_at(data: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    let bytes = data.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// What may follow the bundles in the data [`read_all`] is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: the data is a whole file or section of bundles and zero padding.
    Exact,
    /// Anything, after the first bundle (a fat binary in memory, given as the rest of its
    /// mapping): the first bytes that are neither padding nor a magic end the scan.
    Open,
}

/// All entries of the bundles in `data`, which starts with a bundle magic (plain or
/// compressed). `base` is `data`'s offset in the input, for messages. Bundles are read one
/// after the other; between them only zero bytes (alignment padding) may stand, so with
/// [`Tail::Exact`] a bundle whose magic is damaged is an error naming where it starts, never
/// silently skipped.
///
/// With `damaged`, a bundle that cannot be read is recorded there instead, and reading goes on
/// at the next bundle magic after it (the caller says so: a file with damaged parts is never
/// taken for a whole one).
pub fn read_all<'d>(
    data: &'d [u8],
    base: u64,
    tail: Tail,
    mut damaged: Option<&mut Vec<LoadErrorKind>>,
) -> Result<Vec<Entry<'d>>, LoadErrorKind> {
    let mut entries = Vec::new();
    let mut at = 0usize;
    let mut decompressed = 0u64;
    loop {
        let (result, from) = match next_bundle(data, at, base) {
            Ok(Some(start)) => (read_bundle(data, start, base, &mut decompressed), start),
            Ok(None) => break,
            Err(_) if tail == Tail::Open && at > 0 => break,
            // Only zero bytes lie between `at` and the damage.
            Err(e) => (Err(e), at),
        };
        match result {
            Ok((found, end)) => {
                entries.extend(found);
                at = end;
            }
            Err(e) => {
                let Some(list) = damaged.as_deref_mut() else {
                    return Err(e);
                };
                list.push(e);
                match next_magic(data, from + 1) {
                    Some(next) => at = next,
                    None => break,
                }
            }
        }
    }
    Ok(entries)
}

/// The entries of the bundle (plain or compressed) at `start`, and where the data after it
/// begins. `decompressed` totals what compressed bundles expanded to so far.
fn read_bundle<'d>(
    data: &'d [u8],
    start: usize,
    base: u64,
    decompressed: &mut u64,
) -> Result<(Vec<Entry<'d>>, usize), LoadErrorKind> {
    let rest = &data[start..];
    let offset = base + start as u64;
    let (entries, size) = if rest.starts_with(compressed::MAGIC) {
        let (bundle, size) = compressed::decompress(rest, offset)?;
        // A compressed bundle holds a plain one; entries' offsets are reported inside it.
        if !bundle.starts_with(BUNDLE_MAGIC) {
            return Err(LoadErrorKind::Compressed {
                offset,
                problem: "decompressed data is not an offload bundle".into(),
            });
        }
        *decompressed += bundle.len() as u64;
        if *decompressed > MAX_FILE_SIZE {
            return Err(LoadErrorKind::Compressed {
                offset,
                problem: format!(
                    "compressed bundles expand to more than the {MAX_FILE_SIZE}-byte limit"
                ),
            });
        }
        let (inner, _) = read_one(&bundle, offset)?;
        // Offsets inside the decompressed data mean nothing in the file; report the bundle's.
        let entries = inner
            .into_iter()
            .map(|e| Entry {
                offset,
                bytes: Cow::Owned(e.bytes.into_owned()),
                id: e.id,
            })
            .collect();
        (entries, size)
    } else {
        read_one(rest, offset)?
    };
    // `size` is at least the header, so the scan always moves forward.
    Ok((entries, start + size.max(1)))
}

/// Where the next bundle magic (plain or compressed) starts at or after `from`.
fn next_magic(data: &[u8], from: usize) -> Option<usize> {
    let tail = data.get(from..)?;
    (0..tail.len())
        .find(|&i| tail[i..].starts_with(BUNDLE_MAGIC) || tail[i..].starts_with(compressed::MAGIC))
        .map(|i| from + i)
}

/// Where the next bundle starts at or after `from`, past zero padding; `None` at the end.
/// Anything else there is a damaged bundle.
fn next_bundle(data: &[u8], from: usize, base: u64) -> Result<Option<usize>, LoadErrorKind> {
    let Some(tail) = data.get(from..) else {
        return Ok(None);
    };
    let Some(skip) = tail.iter().position(|&b| b != 0) else {
        return Ok(None);
    };
    let start = from + skip;
    let rest = &data[start..];
    if rest.starts_with(BUNDLE_MAGIC) || rest.starts_with(compressed::MAGIC) {
        return Ok(Some(start));
    }
    Err(LoadErrorKind::Bundle {
        offset: base + start as u64,
        problem: format!(
            "expected a bundle (\"__CLANG_OFFLOAD_BUNDLE__\" or \"CCOB\") or zero padding, found \"{}\"; the bundle is damaged",
            printable(&rest[..rest.len().min(BUNDLE_MAGIC.len())], 32)
        ),
    })
}

/// Reads the bundle at the start of `data`; returns its entries and its size (the end of its
/// last entry, or of its header if later).
fn read_one(data: &[u8], base: u64) -> Result<(Vec<Entry<'_>>, usize), LoadErrorKind> {
    let fail = |problem: String| LoadErrorKind::Bundle {
        offset: base,
        problem,
    };
    let len = data.len() as u64;
    let count = u64_at(data, BUNDLE_MAGIC.len() as u64)
        .ok_or_else(|| fail("truncated before its entry count".into()))?;
    let mut pos = BUNDLE_MAGIC.len() as u64 + 8;
    // Each entry needs at least its 24-byte header, which bounds the count by the input.
    if count > (len - pos) / ENTRY_HEADER {
        return Err(fail(format!(
            "claims {count} entries but only {} bytes follow",
            len - pos
        )));
    }
    let mut spans: Vec<(u64, u64, String)> = Vec::new();
    for n in 0..count {
        let truncated = || {
            fail(format!(
                "entry {n}'s header is cut off at {:#x}",
                base + pos
            ))
        };
        let offset = u64_at(data, pos).ok_or_else(truncated)?;
        let size = u64_at(data, pos + 8).ok_or_else(truncated)?;
        let id_len = u64_at(data, pos + 16).ok_or_else(truncated)?;
        pos += ENTRY_HEADER;
        let id_end = pos
            .checked_add(id_len)
            .filter(|&end| end <= len)
            .ok_or_else(|| fail(format!("entry {n}'s id ({id_len} bytes) runs past the end")))?;
        // Ids go into messages and listings: a hostile one is escaped and cut short.
        let id = printable(&data[pos as usize..id_end as usize], MAX_ID_CHARS);
        pos = id_end;
        let end = offset.checked_add(size).filter(|&end| end <= len);
        if end.is_none() {
            return Err(fail(format!(
                "entry {id} ({size} bytes at {offset:#x}) runs past the bundle's {len} bytes"
            )));
        }
        spans.push((offset, size, id));
    }
    check_overlaps(&spans, pos).map_err(fail)?;
    let size = spans
        .iter()
        .map(|(offset, size, _)| offset + size)
        .fold(pos, u64::max);
    let entries = spans
        .into_iter()
        .map(|(offset, size, id)| Entry {
            id,
            offset: base + offset,
            bytes: Cow::Borrowed(&data[offset as usize..(offset + size) as usize]),
        })
        .collect();
    Ok((entries, size as usize))
}

/// Entries may not overlap each other or the header: copying each out must cost no more than
/// the input's size, whatever the offsets say.
fn check_overlaps(spans: &[(u64, u64, String)], header_end: u64) -> Result<(), String> {
    let mut sorted: Vec<&(u64, u64, String)> = spans.iter().filter(|s| s.1 > 0).collect();
    sorted.sort_by_key(|s| s.0);
    let mut previous_end = header_end;
    let mut previous = "the bundle header";
    for (offset, size, id) in sorted {
        if *offset < previous_end {
            return Err(format!(
                "entry {id} at {offset:#x} overlaps {previous} (which ends at {previous_end:#x})"
            ));
        }
        previous_end = offset + size;
        previous = id;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A bundle with these (id, bytes) entries, data aligned to 8.
    pub(crate) fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut header = BUNDLE_MAGIC.to_vec();
        header.extend((entries.len() as u64).to_le_bytes());
        let header_len: usize =
            header.len() + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
        let mut offset = header_len.next_multiple_of(8);
        let mut body = Vec::new();
        for (id, bytes) in entries {
            header.extend((offset as u64).to_le_bytes());
            header.extend((bytes.len() as u64).to_le_bytes());
            header.extend((id.len() as u64).to_le_bytes());
            header.extend(id.as_bytes());
            body.push((offset, *bytes));
            offset = (offset + bytes.len()).next_multiple_of(8);
        }
        let mut out = header;
        for (offset, bytes) in body {
            out.resize(offset, 0);
            out.extend(bytes);
        }
        out
    }

    #[test]
    fn entries_and_target_ids() {
        let data = bundle(&[
            ("host-x86_64-unknown-linux-gnu", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx900:xnack-", b"AAAA"),
            ("hip-amdgcn-amd-amdhsa-gfx906", b"BBBBBB"),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", b"C"),
        ]);
        let entries = read_all(&data, 0, Tail::Exact, None).unwrap();
        assert_eq!(entries.len(), 4);
        assert!(!entries[0].is_amdgcn());
        assert_eq!(target_id(&entries[1].id), Some("gfx900:xnack-"));
        assert_eq!(&entries[1].bytes[..], b"AAAA");
        assert_eq!(target_id(&entries[2].id), Some("gfx906"));
        assert_eq!(&entries[2].bytes[..], b"BBBBBB");
        assert_eq!(target_id(&entries[3].id), Some("gfx90a:sramecc+:xnack-"));
    }

    #[test]
    fn concatenated_bundles_with_padding_are_all_read() {
        let mut data = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx900", b"one")]);
        data.resize(4096, 0);
        let second = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx906", b"two")]);
        data.extend(&second);
        let entries = read_all(&data, 0x1000, Tail::Exact, None).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(&entries[1].bytes[..], b"two");
        assert!(entries[1].offset > 0x1000 + 4096);
    }

    #[test]
    fn a_damaged_bundle_between_good_ones_is_an_error_not_skipped() {
        let mut data = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx900", b"one")]);
        data.resize(4096, 0);
        let mut second = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx906", b"two")]);
        second[0] = b'X';
        data.extend(&second);
        let err = read_all(&data, 0x1000, Tail::Exact, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("offset 0x2000"), "{err}");
        assert!(err.contains("found \"X_CLANG_OFFLOAD_BUNDLE__\""), "{err}");
        // In memory, the data after the first bundle may be anything.
        let entries = read_all(&data, 0x1000, Tail::Open, None).unwrap();
        assert_eq!(entries.len(), 1);
        // Keeping going: the damage is recorded and the bundles around it are read.
        let mut third = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx908", b"three")]);
        let mut more = data.clone();
        more.resize(more.len().next_multiple_of(4096), 0);
        more.append(&mut third);
        let mut damaged = Vec::new();
        let entries = read_all(&more, 0x1000, Tail::Exact, Some(&mut damaged)).unwrap();
        let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "hipv4-amdgcn-amd-amdhsa--gfx900",
                "hipv4-amdgcn-amd-amdhsa--gfx908"
            ]
        );
        assert_eq!(damaged.len(), 1);
        assert!(
            damaged[0].to_string().contains("offset 0x2000"),
            "{}",
            damaged[0]
        );
    }

    #[test]
    fn hostile_ids_are_escaped_and_cut() {
        let id = [0u8; 300];
        let data = bundle(&[(std::str::from_utf8(&id).unwrap(), b"x")]);
        let entries = read_all(&data, 0, Tail::Exact, None).unwrap();
        assert!(entries[0].id.starts_with("\\0\\0"), "{}", entries[0].id);
        assert!(
            entries[0].id.ends_with("... (300 bytes)"),
            "{}",
            entries[0].id
        );
    }

    #[test]
    fn hostile_headers_are_refused() {
        let good = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx900", b"code")]);
        let err = |data: &[u8]| {
            read_all(data, 0, Tail::Exact, None)
                .unwrap_err()
                .to_string()
        };
        // Entry count far beyond the input.
        let mut many = good.clone();
        many[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(err(&many).contains("claims 18446744073709551615 entries"));
        // Entry past the end.
        let mut past = good.clone();
        past[40..48].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(
            err(&past).contains("runs past the bundle"),
            "{}",
            err(&past)
        );
        // Offset + size overflowing.
        let mut wrap = good.clone();
        wrap[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(err(&wrap).contains("runs past the bundle"));
        // Id length past the end.
        let mut id = good.clone();
        id[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(err(&id).contains("id ("));
        // Truncated header.
        assert!(err(&good[..30]).contains("truncated"));
        // Two entries on the same bytes.
        let two = bundle(&[("a-amdgcn-x", b"12345678"), ("b-amdgcn-y", b"abcdefgh")]);
        let mut overlap = two.clone();
        let first_offset = two[32..40].to_vec();
        let second_header = 32 + 24 + "a-amdgcn-x".len();
        overlap[second_header..second_header + 8].copy_from_slice(&first_offset);
        assert!(
            err(&overlap).contains("overlaps a-amdgcn-x"),
            "{}",
            err(&overlap)
        );
    }
}
