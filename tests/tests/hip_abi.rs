//! The HIP runtime library has ROCm 5.2's ABI: the soname `libamdhip64.so.5` and every function
//! of `emu/hip/abi/exports.tsv` exported under its version, with the version nodes chained as
//! ROCm's are, so the dynamic linker binds programs built against ROCm's library to it.

mod common;

use object::read::elf::Dyn;
use object::read::elf::{ElfFile64, FileHeader};
use object::LittleEndian as LE;
use std::collections::HashMap;

#[test]
fn exports_every_rocm_function_with_its_version() {
    let built = common::hip::built();
    let data = std::fs::read(&built.library).unwrap();
    let file = ElfFile64::<LE>::parse(&*data).unwrap();
    let header = file.elf_header();
    let sections = header.sections(LE, &*data).unwrap();
    let versions = sections
        .versions(LE, &*data)
        .unwrap()
        .expect("symbol versions");
    let dynsyms = sections
        .symbols(LE, &*data, object::elf::SHT_DYNSYM)
        .unwrap();
    let mut exported: HashMap<String, String> = HashMap::new();
    for (i, sym) in dynsyms.iter().enumerate() {
        use object::read::elf::Sym;
        if sym.st_shndx(LE) == object::elf::SHN_UNDEF {
            continue;
        }
        let name = String::from_utf8_lossy(sym.name(LE, dynsyms.strings()).unwrap()).into_owned();
        let index = versions.version_index(LE, object::SymbolIndex(i));
        let version = versions
            .version(index)
            .unwrap()
            .map(|v| String::from_utf8_lossy(v.name()).into_owned())
            .unwrap_or_default();
        exported.insert(name, version);
    }
    let table = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../emu/hip/abi/exports.tsv"
    ))
    .unwrap();
    let mut checked = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, version) = line.split_once('\t').unwrap();
        assert_eq!(
            exported.get(name).map(String::as_str),
            Some(version),
            "{name} should be exported as {name}@@{version}"
        );
        checked += 1;
    }
    assert!(checked > 400, "only {checked} exports listed");

    // DT_SONAME names a string of .dynstr, the dynamic symbols' string table.
    let (dynamic, _) = sections.dynamic(LE, &*data).unwrap().expect(".dynamic");
    let soname = dynamic
        .iter()
        .find(|d| d.d_tag(LE) as u32 == object::elf::DT_SONAME)
        .map(|d| dynsyms.strings().get(d.d_val(LE) as u32).unwrap())
        .expect("DT_SONAME");
    assert_eq!(soname, b"libamdhip64.so.5");
}
