//! Malformed inputs, made from the good fixtures by damaging one thing each: truncated ELF
//! files, hostile header, section and note sizes, hostile msgpack metadata, broken kernel
//! descriptors, corrupt offload bundles (plain and compressed) and fat binaries, and non-code
//! files given to `lint`. `malformed_inputs.rs` runs every command on each;
//! `GCNEMU_MALFORMED_DIR=DIR cargo test -p gcnemu --test malformed_inputs` keeps the files.

use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// One section header of an ELF64 little-endian file: (name, type, offset, size) and where
/// the header itself is.
struct Sh {
    name: String,
    header: usize,
    offset: usize,
    size: usize,
}

fn u16_at(d: &[u8], at: usize) -> usize {
    u16::from_le_bytes([d[at], d[at + 1]]) as usize
}
fn u32_at(d: &[u8], at: usize) -> usize {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as usize
}
fn u64_at(d: &[u8], at: usize) -> usize {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap()) as usize
}
fn put_u16(d: &mut [u8], at: usize, v: u16) {
    d[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn put_u32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put_u64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn sections(d: &[u8]) -> Vec<Sh> {
    let (shoff, shnum, shstrndx) = (u64_at(d, 0x28), u16_at(d, 0x3c), u16_at(d, 0x3e));
    let header = |i: usize| shoff + 64 * i;
    let strtab = u64_at(d, header(shstrndx) + 24);
    (0..shnum)
        .map(|i| {
            let h = header(i);
            let name_at = strtab + u32_at(d, h);
            let end = d[name_at..].iter().position(|&b| b == 0).unwrap();
            Sh {
                name: String::from_utf8_lossy(&d[name_at..name_at + end]).into_owned(),
                header: h,
                offset: u64_at(d, h + 24),
                size: u64_at(d, h + 32),
            }
        })
        .collect()
}

fn section(d: &[u8], name: &str) -> Sh {
    sections(d).into_iter().find(|s| s.name == name).unwrap()
}

/// Where the AMDGPU metadata note's description (the msgpack) starts, and its size field.
fn metadata(d: &[u8]) -> (usize, usize) {
    let note = section(d, ".note");
    let mut at = note.offset;
    loop {
        let (namesz, descsz, kind) = (u32_at(d, at), u32_at(d, at + 4), u32_at(d, at + 8));
        let desc = at + 12 + namesz.next_multiple_of(4);
        if kind == 32 {
            return (desc, at + 4);
        }
        at = desc + descsz.next_multiple_of(4);
    }
}

fn with(base: &[u8], f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut d = base.to_vec();
    f(&mut d);
    d
}

/// A bundle with these (id, bytes) entries (clang's layout, entries aligned to 8).
fn bundle(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut header = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    header.extend((entries.len() as u64).to_le_bytes());
    let header_len: usize =
        header.len() + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let mut offset = header_len.next_multiple_of(8);
    let mut body = Vec::new();
    for (id, bytes) in entries {
        header.extend((offset as u64).to_le_bytes());
        header.extend((bytes.len() as u64).to_le_bytes());
        header.extend((id.len() as u64).to_le_bytes());
        header.extend(*id);
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

/// Every kind of malformed input, by name (the name's extension says what it pretends to be).
pub fn kinds() -> Vec<(&'static str, Vec<u8>)> {
    let co = fixture("hip/saxpy.gfx900.co");
    let co906 = fixture("hip/saxpy.gfx906.co");
    let host = fixture("loader/libfixture.so");
    let text = section(&co, ".text");
    let note = section(&co, ".note");
    let symtab = section(&co, ".symtab");
    let strtab = section(&co, ".strtab");
    let rodata = section(&co, ".rodata");
    let (meta, meta_size) = metadata(&co);
    let meta_len = u32_at(&co, meta_size);
    let kd = rodata.offset; // saxpy.kd is the only thing in .rodata
    let gfx900: &[u8] = b"hipv4-amdgcn-amd-amdhsa--gfx900";
    let good_bundle = bundle(&[(b"host-x86_64-unknown-linux-gnu", b""), (gfx900, &co)]);
    let fatbin = section(&host, ".hip_fatbin");
    let bundle_magic = |d: &[u8], n: usize| {
        let hay = &d[fatbin.offset..fatbin.offset + fatbin.size];
        let found: Vec<usize> = (0..hay.len().saturating_sub(24))
            .filter(|&i| hay[i..].starts_with(b"__CLANG_OFFLOAD_BUNDLE__"))
            .collect();
        fatbin.offset + found[n]
    };
    let fill = |d: &mut Vec<u8>, at: usize, len: usize, byte: u8| {
        d[at..at + len].iter_mut().for_each(|b| *b = byte)
    };
    let mut k: Vec<(&'static str, Vec<u8>)> = vec![
        // Truncation and headers.
        ("empty.co", Vec::new()),
        ("one-byte.co", vec![0x7f]),
        ("elf-magic-only.co", co[..4].to_vec()),
        ("truncated-ident.co", co[..16].to_vec()),
        ("truncated-header.co", co[..63].to_vec()),
        ("truncated-before-text.co", co[..text.offset + 4].to_vec()),
        ("truncated-half.co", co[..co.len() / 2].to_vec()),
        ("truncated-last-byte.co", co[..co.len() - 1].to_vec()),
        ("elf32.co", with(&co, |d| d[4] = 1)),
        ("big-endian.co", with(&co, |d| d[5] = 2)),
        ("machine-x86.co", with(&co, |d| put_u16(d, 0x12, 62))),
        ("machine-none.co", with(&co, |d| put_u16(d, 0x12, 0))),
        ("osabi-sysv.co", with(&co, |d| d[7] = 0)),
        ("abi-version-9.co", with(&co, |d| d[8] = 9)),
        ("mach-none.co", with(&co, |d| put_u32(d, 0x30, 0))),
        ("mach-unknown.co", with(&co, |d| put_u32(d, 0x30, 0xff))),
        (
            "shoff-huge.co",
            with(&co, |d| put_u64(d, 0x28, u64::MAX / 2)),
        ),
        ("shnum-huge.co", with(&co, |d| put_u16(d, 0x3c, 0xffff))),
        ("shentsize-wrong.co", with(&co, |d| put_u16(d, 0x3a, 32))),
        (
            "shstrndx-out-of-range.co",
            with(&co, |d| put_u16(d, 0x3e, 0xfff0)),
        ),
        (
            "phoff-huge.co",
            with(&co, |d| put_u64(d, 0x20, u64::MAX - 8)),
        ),
        ("phnum-huge.co", with(&co, |d| put_u16(d, 0x38, 0xffff))),
        // Sections.
        (
            "text-offset-huge.co",
            with(&co, |d| put_u64(d, text.header + 24, 1 << 40)),
        ),
        (
            "text-size-huge.co",
            with(&co, |d| put_u64(d, text.header + 32, 1 << 40)),
        ),
        (
            "text-offset-wraps.co",
            with(&co, |d| {
                put_u64(d, text.header + 24, u64::MAX - 7);
                put_u64(d, text.header + 32, 64);
            }),
        ),
        (
            "note-size-huge.co",
            with(&co, |d| put_u64(d, note.header + 32, u64::MAX)),
        ),
        (
            "symtab-size-huge.co",
            with(&co, |d| put_u64(d, symtab.header + 32, 1 << 50)),
        ),
        (
            "symtab-entsize-zero.co",
            with(&co, |d| put_u64(d, symtab.header + 56, 0)),
        ),
        (
            "symtab-link-out-of-range.co",
            with(&co, |d| put_u32(d, symtab.header + 40, 999)),
        ),
        (
            "strtab-size-huge.co",
            with(&co, |d| put_u64(d, strtab.header + 32, 1 << 48)),
        ),
        (
            "symbol-names-control-chars.co",
            with(&co, |d| {
                let names = &mut d[strtab.offset + 1..strtab.offset + strtab.size - 1];
                names
                    .iter_mut()
                    .filter(|b| **b != 0)
                    .for_each(|b| *b = 0x1b);
            }),
        ),
        // The metadata note.
        (
            "note-namesz-huge.co",
            with(&co, |d| put_u32(d, meta_size - 4, u32::MAX)),
        ),
        (
            "note-descsz-huge.co",
            with(&co, |d| put_u32(d, meta_size, u32::MAX)),
        ),
        (
            "note-descsz-zero.co",
            with(&co, |d| put_u32(d, meta_size, 0)),
        ),
        (
            "note-type-unknown.co",
            with(&co, |d| put_u32(d, meta_size + 4, 77)),
        ),
        ("msgpack-not-a-map.co", with(&co, |d| d[meta] = 0x01)),
        (
            "msgpack-map32-huge.co",
            with(&co, |d| {
                d[meta] = 0xdf;
                put_u32(d, meta + 1, u32::MAX);
            }),
        ),
        (
            "msgpack-array32-huge.co",
            with(&co, |d| {
                d[meta] = 0xdd;
                put_u32(d, meta + 1, u32::MAX);
            }),
        ),
        (
            "msgpack-str32-huge.co",
            with(&co, |d| {
                d[meta + 1] = 0xdb;
                put_u32(d, meta + 2, u32::MAX);
            }),
        ),
        (
            "msgpack-bin32-huge.co",
            with(&co, |d| {
                d[meta + 1] = 0xc6;
                put_u32(d, meta + 2, u32::MAX);
            }),
        ),
        (
            "msgpack-deep-nesting.co",
            with(&co, |d| fill(d, meta, meta_len, 0x91)),
        ),
        (
            "msgpack-reserved-byte.co",
            with(&co, |d| fill(d, meta, meta_len, 0xc1)),
        ),
        (
            "msgpack-truncated.co",
            with(&co, |d| put_u32(d, meta_size, meta_len as u32 / 2)),
        ),
        (
            "msgpack-kernel-name-escapes.co",
            with(&co, |d| {
                let m = &mut d[meta..meta + meta_len];
                let at = m.windows(5).position(|w| w == b"saxpy").unwrap();
                m[at..at + 5].copy_from_slice(b"\x1b[2J\x07");
            }),
        ),
        (
            "msgpack-bit-flips.co",
            with(&co, |d| {
                for i in (0..meta_len).step_by(7) {
                    d[meta + i] ^= 0x5a;
                }
            }),
        ),
        // The kernel descriptor.
        (
            "kd-entry-offset-huge.co",
            with(&co, |d| put_u64(d, kd + 16, 1 << 60)),
        ),
        (
            "kd-entry-offset-negative.co",
            with(&co, |d| put_u64(d, kd + 16, (-0x100000i64) as u64)),
        ),
        (
            "kd-private-size-huge.co",
            with(&co, |d| put_u32(d, kd + 4, u32::MAX)),
        ),
        (
            "kd-group-size-huge.co",
            with(&co, |d| put_u32(d, kd, u32::MAX)),
        ),
        (
            "kd-rsrc-all-ones.co",
            with(&co, |d| fill(d, kd + 48, 12, 0xff)),
        ),
        // Offload bundles.
        ("bundle-truncated-count.bundle", good_bundle[..28].to_vec()),
        (
            "bundle-count-huge.bundle",
            with(&good_bundle, |d| put_u64(d, 24, u64::MAX)),
        ),
        (
            "bundle-entry-offset-huge.bundle",
            with(&good_bundle, |d| put_u64(d, 32, 1 << 40)),
        ),
        (
            "bundle-entry-size-huge.bundle",
            with(&good_bundle, |d| put_u64(d, 40, u64::MAX)),
        ),
        (
            "bundle-id-length-huge.bundle",
            with(&good_bundle, |d| put_u64(d, 48, u64::MAX)),
        ),
        ("bundle-id-300-nuls.bundle", bundle(&[(&[0u8; 300], &co)])),
        (
            "bundle-id-control-chars.bundle",
            bundle(&[(b"hipv4-amdgcn-\x1b]0;pwned\x07--gfx900", &co)]),
        ),
        ("bundle-overlapping-entries.bundle", {
            let b = bundle(&[(gfx900, &co), (b"hipv4-amdgcn-amd-amdhsa--gfx906", &co906)]);
            with(&b, |d| {
                let first = u64_at(d, 32) as u64;
                put_u64(d, 32 + 24 + gfx900.len(), first);
            })
        }),
        (
            "bundle-entry-not-elf.bundle",
            bundle(&[(gfx900, b"this is not an ELF file")]),
        ),
        (
            "bundle-one-entry-not-elf.bundle",
            bundle(&[
                (gfx900, &co),
                (
                    b"hipv4-amdgcn-amd-amdhsa--gfx906",
                    b"this is not an ELF file",
                ),
            ]),
        ),
        (
            "bundle-id-target-mismatch.bundle",
            bundle(&[(b"hipv4-amdgcn-amd-amdhsa--gfx906", &co)]),
        ),
        (
            "bundle-host-entry-only.bundle",
            bundle(&[(b"host-x86_64-unknown-linux-gnu", b"xx")]),
        ),
        (
            "bundle-truncated-entry.bundle",
            good_bundle[..good_bundle.len() - 100].to_vec(),
        ),
        ("ccob-truncated.bundle", b"CCOB\x01\x00".to_vec()),
        ("ccob-size-huge.bundle", {
            let mut d = b"CCOB".to_vec();
            d.extend(2u16.to_le_bytes()); // version
            d.extend(1u16.to_le_bytes()); // zstd
            d.extend(u32::MAX.to_le_bytes()); // total size
            d.extend(u32::MAX.to_le_bytes()); // uncompressed size
            d.extend(0u64.to_le_bytes()); // hash
            d.extend([0u8; 64]);
            d
        }),
        ("ccob-garbage-payload.bundle", {
            let mut d = b"CCOB".to_vec();
            d.extend(1u16.to_le_bytes());
            d.extend(1u16.to_le_bytes());
            d.extend(4096u32.to_le_bytes());
            d.extend(0u64.to_le_bytes());
            d.extend([0xa5u8; 256]);
            d
        }),
        // Host binaries with .hip_fatbin.
        (
            "fatbin-second-magic-corrupt.so",
            with(&host, |d| {
                let at = bundle_magic(d, 1);
                d[at] = b'X';
            }),
        ),
        (
            "fatbin-first-magic-corrupt.so",
            with(&host, |d| {
                let at = bundle_magic(d, 0);
                d[at..at + 8].copy_from_slice(b"GARBAGE!");
            }),
        ),
        (
            "fatbin-section-size-huge.so",
            with(&host, |d| put_u64(d, fatbin.header + 32, 1 << 40)),
        ),
        (
            "fatbin-entry-count-huge.so",
            with(&host, |d| {
                let at = bundle_magic(d, 0);
                put_u64(d, at + 24, u64::MAX);
            }),
        ),
        (
            "fatbin-truncated.so",
            host[..fatbin.offset + fatbin.size / 2].to_vec(),
        ),
        // Not code at all.
        (
            "random-bytes.s",
            (0..4096u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
        ),
        ("latin1.s", b"s_endpgm ; caf\xe9\n".to_vec()),
        (
            "comments-only.s",
            b"; nothing here\n\n// nor here\n".to_vec(),
        ),
        ("nul-in-text.s", b"s_nop 0\n\0\0\0\ns_endpgm\n".to_vec()),
        ("prose.s", b"Dear reader, this is a letter.\n".to_vec()),
    ];
    k.sort_by_key(|(name, _)| *name);
    k
}
