//! The extent of a code object or offload bundle in memory, from its own headers: the API calls
//! that hand one over (`__hipRegisterFatBinary`, `hipModuleLoadData`) pass no size, and what
//! follows a bundle in a `.hip_fatbin` (the next bundle, padding) is not part of it.

/// The length of the ELF file, clang offload bundle or compressed bundle at the start of
/// `bytes`, or `None` if it is none of those or its headers point outside `bytes`. Only the
/// headers are read.
pub(crate) fn image_len(bytes: &[u8]) -> Option<usize> {
    let read = |off: u64, n: u64| bytes.get(off as usize..off.checked_add(n)? as usize);
    let u64_at = |off: u64| Some(u64::from_le_bytes(read(off, 8)?.try_into().ok()?));
    let u32_at = |off: u64| Some(u32::from_le_bytes(read(off, 4)?.try_into().ok()?) as u64);
    let u16_at = |off: u64| Some(u16::from_le_bytes(read(off, 2)?.try_into().ok()?) as u64);
    let head = read(0, 24)?;
    let end = if head.starts_with(b"\x7fELF") {
        // ELF64: the furthest of the section header table, the sections with contents and the
        // segments.
        let (shoff, shentsize, shnum) = (u64_at(0x28)?, u16_at(0x3a)?, u16_at(0x3c)?);
        let (phoff, phentsize, phnum) = (u64_at(0x20)?, u16_at(0x36)?, u16_at(0x38)?);
        let mut end = shoff.checked_add(shentsize * shnum)?;
        for i in 0..shnum {
            let sh = shoff.checked_add(i * shentsize)?;
            // SHT_NOBITS sections take no room in the file.
            if u32_at(sh + 4)? != 8 {
                end = end.max(u64_at(sh + 0x18)?.checked_add(u64_at(sh + 0x20)?)?);
            }
        }
        for i in 0..phnum {
            let ph = phoff.checked_add(i * phentsize)?;
            end = end.max(u64_at(ph + 0x08)?.checked_add(u64_at(ph + 0x20)?)?);
        }
        end
    } else if head == b"__CLANG_OFFLOAD_BUNDLE__" {
        // Entries: offset, size, id length, id.
        let n = u64_at(24)?;
        let (mut at, mut end) = (32u64, 32u64);
        for _ in 0..n.min(1 << 16) {
            let (offset, size, id_len) = (u64_at(at)?, u64_at(at + 8)?, u64_at(at + 16)?);
            at = at.checked_add(24)?.checked_add(id_len)?;
            end = end.max(offset.checked_add(size)?).max(at);
        }
        end
    } else if head.starts_with(b"CCOB") {
        // Compressed bundle: magic, version (u16), method (u16), total size (u32).
        u32_at(8)?
    } else {
        return None;
    };
    (end <= bytes.len() as u64).then_some(end as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_extent_stops_at_its_last_entry() {
        let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
        b.extend(1u64.to_le_bytes());
        b.extend(64u64.to_le_bytes()); // offset
        b.extend(8u64.to_le_bytes()); // size
        b.extend(3u64.to_le_bytes()); // id length
        b.extend(b"abc");
        b.resize(64, 0);
        b.extend([7u8; 8]);
        b.extend([0xffu8; 100]); // what follows the bundle
        assert_eq!(image_len(&b), Some(72));
        assert_eq!(image_len(&b[..70]), None);
        assert_eq!(image_len(b"not an image at all, no"), None);
    }
}
