//! Compressed offload bundles (clang's `OffloadBundler.h`, `CompressedOffloadBundle`):
//!
//! ```text
//! "CCOB"                      4 bytes
//! version                     u16 (1, 2 or 3)
//! compression method          u16 (llvm::compression::Format: 0 = zlib, 1 = zstd)
//! total size of this bundle   u32 in v2, u64 in v3 (absent in v1)
//! uncompressed size           u32 in v1/v2, u64 in v3
//! truncated MD5 of the data   u64 (not checked here)
//! compressed data
//! ```
//!
//! v1 has no total size: its data runs to the next bundle magic or the end of the input.

use crate::error::LoadErrorKind;
use crate::MAX_FILE_SIZE;
use std::io::Read;

pub const MAGIC: &[u8] = b"CCOB";
const ZLIB: u16 = 0;
const ZSTD: u16 = 1;

fn le(data: &[u8], at: usize, n: usize) -> Option<u64> {
    let bytes = data.get(at..at + n)?;
    Some(bytes.iter().rev().fold(0u64, |v, &b| v << 8 | u64::from(b)))
}

/// Decompresses the bundle at the start of `data` (which starts with [`MAGIC`]); returns the
/// plain bundle and how many bytes of `data` the compressed one occupies. `offset` is its place
/// in the input, for messages.
pub fn decompress(data: &[u8], offset: u64) -> Result<(Vec<u8>, usize), LoadErrorKind> {
    let fail = |problem: String| LoadErrorKind::Compressed { offset, problem };
    let truncated = || fail("header is cut off".into());
    let version = le(data, 4, 2).ok_or_else(truncated)? as u16;
    let method = le(data, 6, 2).ok_or_else(truncated)? as u16;
    let (total, uncompressed, header) = match version {
        1 => (None, le(data, 8, 4).ok_or_else(truncated)?, 20),
        2 => (
            Some(le(data, 8, 4).ok_or_else(truncated)?),
            le(data, 12, 4).ok_or_else(truncated)?,
            24,
        ),
        3 => (
            Some(le(data, 8, 8).ok_or_else(truncated)?),
            le(data, 16, 8).ok_or_else(truncated)?,
            32,
        ),
        v => return Err(fail(format!("unknown format version {v} (known: 1, 2, 3)"))),
    };
    let end = match total {
        Some(total) => {
            if total < header as u64 || total > data.len() as u64 {
                return Err(fail(format!(
                    "header says {total} bytes but {} are available",
                    data.len()
                )));
            }
            total as usize
        }
        // v1: up to the next bundle (plain or compressed) or the end.
        None => (header..data.len())
            .find(|&i| {
                data[i..].starts_with(MAGIC) || data[i..].starts_with(crate::bundle::BUNDLE_MAGIC)
            })
            .unwrap_or(data.len()),
    };
    if uncompressed > MAX_FILE_SIZE {
        return Err(fail(format!(
            "uncompressed size {uncompressed} exceeds the {MAX_FILE_SIZE}-byte limit"
        )));
    }
    let payload = data.get(header..end).ok_or_else(truncated)?;
    // Read at most one byte more than promised, so a lying header cannot make us allocate more.
    let limit = uncompressed + 1;
    let mut out = Vec::new();
    let result = match method {
        ZLIB => flate2::read::ZlibDecoder::new(payload)
            .take(limit)
            .read_to_end(&mut out),
        ZSTD => ruzstd::decoding::StreamingDecoder::new(payload)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|d| d.take(limit).read_to_end(&mut out)),
        m => {
            return Err(fail(format!(
                "unknown compression method {m} (known: 0 = zlib, 1 = zstd)"
            )))
        }
    };
    result.map_err(|e| fail(format!("cannot decompress: {e}")))?;
    if out.len() as u64 != uncompressed {
        return Err(fail(format!(
            "decompressed to {}{} bytes, header says {uncompressed}",
            if out.len() as u64 > uncompressed {
                "more than "
            } else {
                ""
            },
            out.len().min(uncompressed as usize)
        )));
    }
    Ok((out, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// A v2 or v3 compressed bundle around `payload`.
    pub(crate) fn ccob(version: u16, method: u16, plain_len: u64, payload: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(version.to_le_bytes());
        out.extend(method.to_le_bytes());
        let header = if version == 3 { 32 } else { 24 };
        let total = (header + payload.len()) as u64;
        if version == 3 {
            out.extend(total.to_le_bytes());
            out.extend(plain_len.to_le_bytes());
        } else {
            out.extend((total as u32).to_le_bytes());
            out.extend((plain_len as u32).to_le_bytes());
        }
        out.extend(0u64.to_le_bytes());
        out.extend(payload);
        out
    }

    #[test]
    fn zlib_v2_and_v3() {
        let plain = b"__CLANG_OFFLOAD_BUNDLE__ and more".repeat(10);
        for version in [2, 3] {
            let data = ccob(version, ZLIB, plain.len() as u64, &zlib(&plain));
            let (out, used) = decompress(&data, 0).unwrap();
            assert_eq!(out, plain);
            assert_eq!(used, data.len());
        }
    }

    #[test]
    fn zstd_v2() {
        let plain = b"zstd payload ".repeat(50);
        let packed = ruzstd::encoding::compress_to_vec(
            &plain[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        let data = ccob(2, ZSTD, plain.len() as u64, &packed);
        assert_eq!(decompress(&data, 0).unwrap().0, plain);
    }

    #[test]
    fn lying_headers_are_errors() {
        let plain = vec![7u8; 1000];
        let packed = zlib(&plain);
        let small = ccob(2, ZLIB, 10, &packed);
        let err = decompress(&small, 0x40).unwrap_err().to_string();
        assert!(
            err.contains("at offset 0x40") && err.contains("more than 10"),
            "{err}"
        );
        let huge = ccob(3, ZLIB, 1 << 50, &packed);
        assert!(decompress(&huge, 0)
            .unwrap_err()
            .to_string()
            .contains("limit"));
        let mut cut = ccob(2, ZLIB, 1000, &packed);
        cut.truncate(cut.len() - 5);
        assert!(decompress(&cut, 0)
            .unwrap_err()
            .to_string()
            .contains("available"));
        let method = ccob(2, 9, 1000, &packed);
        assert!(decompress(&method, 0)
            .unwrap_err()
            .to_string()
            .contains("method 9"));
        let garbage = ccob(2, ZLIB, 1000, b"not zlib at all");
        assert!(decompress(&garbage, 0)
            .unwrap_err()
            .to_string()
            .contains("cannot decompress"));
    }
}
