//! Truncated, corrupt and hostile inputs: each gives a `LoadError` that names the file (and the
//! bundle entry) and says what is wrong; none panics or allocates beyond the input's size.

use gcn_loader::{load, LoadError, LoadErrorKind};
use object::read::elf::{ElfFile64, FileHeader, SectionHeader};
use object::LittleEndian as LE;
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/loader")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn error(name: &str, bytes: &[u8]) -> LoadError {
    match load(name, bytes) {
        Ok(objects) => panic!("{name}: loaded {} code objects", objects.len()),
        Err(e) => {
            assert!(e.to_string().starts_with(name), "{e}");
            e
        }
    }
}

fn message(name: &str, bytes: &[u8]) -> String {
    error(name, bytes).to_string()
}

/// File offsets of the symbol table entries (in .symtab and .dynsym) of symbol `name`.
fn symbol_entries(bytes: &[u8], name: &str) -> Vec<usize> {
    let elf = ElfFile64::<LE>::parse(bytes).unwrap();
    let sections = elf.elf_section_table();
    let mut out = Vec::new();
    for table in [elf.elf_symbol_table(), elf.elf_dynamic_symbol_table()] {
        if table.is_empty() {
            continue;
        }
        let header = sections.section(table.section()).unwrap();
        for (index, symbol) in table.symbols().iter().enumerate() {
            if table.symbol_name(LE, symbol) == Ok(name.as_bytes()) {
                out.push(header.sh_offset(LE) as usize + index * 24);
            }
        }
    }
    assert!(!out.is_empty(), "no symbol {name}");
    out
}

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// A simple deterministic generator, so the corruption tests are the same every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn every_prefix_fails_cleanly() {
    for file in ["args.v5.co", "args.v2.co", "kernels.o", "tiny.bundle"] {
        let bytes = fixture(file);
        for len in (0..bytes.len()).step_by(13) {
            if let Err(e) = load("cut", &bytes[..len]) {
                assert!(e.to_string().starts_with("cut"), "{e}");
            }
        }
    }
    let host = fixture("libfixture.so");
    for len in (0..host.len()).step_by(997) {
        let _ = load("cut.so", &host[..len]);
    }
}

#[test]
fn random_corruption_never_panics() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for file in ["args.v5.co", "args.v2.co", "kernels.o", "tiny.bundle"] {
        let original = fixture(file);
        for _ in 0..3000 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() % bytes.len() as u64) as usize;
                bytes[at] = rng.next() as u8;
            }
            let _ = load("corrupt", &bytes);
        }
    }
}

#[test]
fn truncated_bundle_names_the_entry_past_the_end() {
    let bytes = fixture("tiny.bundle");
    let text = message("tiny.bundle", &bytes[..bytes.len() - 100]);
    assert!(
        text.starts_with(
            "tiny.bundle: offload bundle at offset 0x0: entry hipv4-amdgcn-amd-amdhsa--gfx906"
        ),
        "{text}"
    );
    assert!(text.contains("runs past the bundle's"), "{text}");
}

#[test]
fn bundle_entry_with_a_huge_size_is_refused() {
    let mut bytes = fixture("tiny.bundle");
    // The second entry's size field (entries start at 32: offset, size, id length, id).
    let first_id_len = u64::from_le_bytes(bytes[48..56].try_into().unwrap()) as usize;
    let second = 56 + first_id_len;
    set_u64(&mut bytes, second + 8, u64::MAX / 2);
    let text = message("big.bundle", &bytes);
    assert!(text.contains("runs past the bundle"), "{text}");
    set_u64(&mut bytes, 24, 1 << 60);
    let text = message("big.bundle", &bytes);
    assert!(
        text.contains("claims 1152921504606846976 entries"),
        "{text}"
    );
}

#[test]
fn bundle_entry_id_must_match_the_elf_inside() {
    let mut bytes = fixture("tiny.bundle");
    let id = b"amdhsa--gfx906";
    let at = bytes.windows(id.len()).position(|w| w == id).unwrap();
    bytes[at + id.len() - 1] = b'8';
    let text = message("swapped.bundle", &bytes);
    assert!(
        text.starts_with("swapped.bundle:hipv4-amdgcn-amd-amdhsa--gfx908@0x"),
        "{text}"
    );
    assert!(
        text.contains("entry id names gfx908 but the ELF header says gfx906"),
        "{text}"
    );
}

#[test]
fn bundle_without_device_code() {
    let mut bytes = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    bytes.extend(1u64.to_le_bytes());
    let id = b"host-x86_64-unknown-linux";
    bytes.extend((32 + 24 + id.len() as u64).to_le_bytes());
    bytes.extend(0u64.to_le_bytes());
    bytes.extend((id.len() as u64).to_le_bytes());
    bytes.extend(id);
    let text = message("host.bundle", &bytes);
    assert_eq!(
        text,
        "host.bundle: no AMDGPU code object in it (bundle entries: host-x86_64-unknown-linux)"
    );
}

#[test]
fn host_binary_without_hip_fatbin() {
    let host = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let e = error("test-binary", &host);
    assert!(
        matches!(e.kind, LoadErrorKind::NoFatbin { machine: 62 }),
        "{e}"
    );
}

#[test]
fn wrong_machine_and_abi() {
    let mut bytes = fixture("args.v4.co");
    bytes[7] = 0; // OS/ABI: System V instead of AMDGPU_HSA
    let text = message("sysv.co", &bytes);
    assert!(
        text.contains("OS/ABI 0 with ABI version 2 is not an HSA code object"),
        "{text}"
    );
    let mut bytes = fixture("args.v4.co");
    bytes[8] = 9; // ABI version 9
    assert!(message("future.co", &bytes).contains("ABI version 9"));
    let mut bytes = fixture("args.v4.co");
    bytes[0x30] = 0; // EF_AMDGPU_MACH
    assert!(message("nomach.co", &bytes).contains("EF_AMDGPU_MACH is 0"));
}

#[test]
fn missing_kernel_descriptor() {
    let mut bytes = fixture("args.v5.co");
    // Rename the descriptor symbol in both string tables (NUL-terminated there, unlike in the
    // msgpack note, which keeps naming it).
    let name = b"mixed.kd\0";
    let mut renamed = 0;
    while let Some(at) = bytes.windows(name.len()).position(|w| w == name) {
        bytes[at + 6..at + 8].copy_from_slice(b"xx");
        renamed += 1;
    }
    assert_eq!(renamed, 2);
    let text = message("nokd.co", &bytes);
    assert_eq!(
        text,
        "nokd.co: kernel mixed: the metadata names descriptor symbol mixed.kd, which is not defined"
    );
}

#[test]
fn descriptor_cut_off_by_its_section() {
    let mut bytes = fixture("args.v5.co");
    for at in symbol_entries(&bytes, "scale2d.kd") {
        set_u64(&mut bytes, at + 8, 0x1180); // st_value: 6 bytes before the end of .rodata
    }
    let text = message("short.co", &bytes);
    assert!(
        text.contains(
            "kernel scale2d: descriptor scale2d.kd at 0x1180 needs 64 bytes; its section has 6"
        ),
        "{text}"
    );
    for at in symbol_entries(&bytes, "scale2d.kd") {
        set_u64(&mut bytes, at + 8, u64::MAX - 3);
    }
    let text = message("wild.co", &bytes);
    assert!(text.contains("is outside its section .rodata"), "{text}");
}

#[test]
fn entry_point_outside_the_code() {
    let mut bytes = fixture("args.v5.co");
    // mixed.kd is at file offset 0x1100; its entry offset field is at +16.
    set_u64(&mut bytes, 0x1110, 0x10_0000);
    let text = message("far.co", &bytes);
    assert!(
        text.contains("kernel mixed: entry address 0x101100 is not in an executable section"),
        "{text}"
    );
    set_u64(&mut bytes, 0x1110, (-0x2000i64) as u64);
    assert!(message("wrap.co", &bytes).contains("is not in an executable section"));
}

#[test]
fn corrupt_metadata_note() {
    let mut bytes = fixture("args.v5.co");
    // The msgpack map key ".group_segment_fixed_size" followed by a value: turn the key's
    // string into one that claims more bytes than the note holds.
    let key = b".kernarg_segment_size";
    let at = bytes.windows(key.len()).position(|w| w == key).unwrap();
    bytes[at - 1] = 0xdb; // str32 marker...
    let text = message("meta.co", &bytes);
    assert!(
        text.starts_with("meta.co: metadata note: msgpack:"),
        "{text}"
    );
}

#[test]
fn section_headers_past_the_end() {
    let mut bytes = fixture("args.v4.co");
    let header = object::elf::FileHeader64::<LE>::parse(&*bytes).unwrap();
    let shoff = header.e_shoff(LE);
    assert!(shoff > 0);
    set_u64(&mut bytes, 0x28, 1 << 40); // e_shoff
    let text = message("shoff.co", &bytes);
    assert!(text.contains("malformed ELF"), "{text}");
}

#[test]
fn huge_section_size() {
    let mut bytes = fixture("args.v4.co");
    let elf = ElfFile64::<LE>::parse(&*bytes).unwrap();
    let shoff = elf.elf_header().e_shoff(LE) as usize;
    let text_index = elf
        .elf_section_table()
        .iter()
        .position(|s| elf.elf_section_table().section_name(LE, s) == Ok(b".text"))
        .unwrap();
    // sh_size is at +32 in a 64-byte section header.
    set_u64(&mut bytes, shoff + text_index * 64 + 32, 1 << 50);
    let text = message("size.co", &bytes);
    assert!(text.contains("malformed ELF"), "{text}");
}

#[test]
fn compressed_bundle_bomb_is_refused_before_inflating() {
    let mut bytes = b"CCOB".to_vec();
    bytes.extend(3u16.to_le_bytes()); // version 3: u64 sizes
    bytes.extend(0u16.to_le_bytes()); // zlib
    bytes.extend(40u64.to_le_bytes());
    bytes.extend((1u64 << 40).to_le_bytes()); // claims 1 TiB
    bytes.extend(0u64.to_le_bytes());
    bytes.extend([0x78, 0x9c, 3, 0, 0, 0, 0, 1]);
    let text = message("bomb.bundle", &bytes);
    assert_eq!(
        text,
        "bomb.bundle: compressed offload bundle at offset 0x0: uncompressed size 1099511627776 \
         exceeds the 4294967296-byte limit"
    );
}

#[test]
fn compressed_bundle_round_trip() {
    use std::io::Write;
    let plain = fixture("tiny.bundle");
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&plain).unwrap();
    let packed = encoder.finish().unwrap();
    let mut bytes = b"CCOB".to_vec();
    bytes.extend(2u16.to_le_bytes());
    bytes.extend(0u16.to_le_bytes());
    bytes.extend((24 + packed.len() as u32).to_le_bytes());
    bytes.extend((plain.len() as u32).to_le_bytes());
    bytes.extend(0u64.to_le_bytes());
    bytes.extend(&packed);
    let objects = load("tiny.ccob", &bytes).unwrap();
    let ids: Vec<&str> = objects.iter().filter_map(|c| c.label.as_deref()).collect();
    assert_eq!(
        ids,
        [
            "hipv4-amdgcn-amd-amdhsa--gfx900",
            "hipv4-amdgcn-amd-amdhsa--gfx906"
        ]
    );
    assert_eq!(objects[1].kernels[0].name, "fill");
    // Cut inside the compressed data.
    let text = message("cut.ccob", &bytes[..bytes.len() - 40]);
    assert!(
        text.contains("compressed offload bundle at offset 0x0"),
        "{text}"
    );
}
