//! gfx908 and gfx90a code objects from `tests/fixtures/loader/` (see its build.sh): `cdna.bundle`
//! (gfx900, gfx908, gfx90a:xnack-, gfx90a:xnack+) and `cdna.tgsplit.co`, checked against
//! clang-offload-bundler's entry list and llvm-objdump-19's kernel descriptor disassembly
//! (`cdna.kd.txt`).

use gcn_loader::{extract_file, load, pick, CodeObject, TargetId};
use std::collections::HashMap;
use std::path::PathBuf;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/loader")
        .join(name)
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text_fixture(name: &str) -> String {
    String::from_utf8(fixture(name)).unwrap()
}

/// llvm-objdump-19's `.amdhsa_*` directives per section of `cdna.kd.txt` (`cdna.bundle gfx908`,
/// `cdna.tgsplit.co`), each section holding the one kernel `scale`.
fn llvm_descriptors() -> HashMap<String, HashMap<String, u32>> {
    let mut out: HashMap<String, HashMap<String, u32>> = HashMap::new();
    let mut section = String::new();
    for line in text_fixture("cdna.kd.txt").lines() {
        if let Some(name) = line.strip_prefix("== ") {
            section = name.to_string();
            continue;
        }
        let mut words = line.split_whitespace();
        if let (Some(directive), Some(value)) = (words.next(), words.next()) {
            if let (Some(name), Ok(value)) = (directive.strip_prefix(".amdhsa_"), value.parse()) {
                out.entry(section.clone())
                    .or_default()
                    .insert(name.to_string(), value);
            }
        }
    }
    out
}

fn request(text: &str) -> TargetId {
    TargetId::parse(text).unwrap()
}

/// The target id of a bundle entry id in the list file (`hipv4-amdgcn-amd-amdhsa--gfx908`).
fn listed_targets() -> Vec<String> {
    text_fixture("cdna.bundle.list.txt")
        .lines()
        .filter_map(|id| id.strip_prefix("hipv4-amdgcn-amd-amdhsa--"))
        .map(str::to_string)
        .collect()
}

fn bundle() -> Vec<CodeObject> {
    load("cdna.bundle", &fixture("cdna.bundle")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn entry_ids_and_e_flags_name_the_same_targets() {
    let objects = bundle();
    let mut ours: Vec<String> = objects.iter().map(|c| c.target.to_string()).collect();
    let mut listed = listed_targets();
    ours.sort();
    listed.sort();
    assert_eq!(ours, listed);
    for co in &objects {
        // The ELF header's settings (from e_flags) agree with the entry id's.
        let id = co.label.as_deref().unwrap();
        assert!(
            id.ends_with(&format!("--{}", co.target)),
            "{id} vs {}",
            co.target
        );
    }
}

#[test]
fn descriptors_agree_with_llvm() {
    let llvm = llvm_descriptors();
    let mut checked = 0;
    let mut objects = bundle();
    objects.extend(load("cdna.tgsplit.co", &fixture("cdna.tgsplit.co")).unwrap());
    for co in &objects {
        let section = match &co.label {
            Some(_) => format!("cdna.bundle {}", co.target),
            None => "cdna.tgsplit.co".to_string(),
        };
        let want = &llvm[&section];
        let kd = &co.kernel("scale").unwrap().descriptor;
        assert_eq!(
            kd.vgprs_allocated(&co.target),
            want["next_free_vgpr"],
            "{section}"
        );
        assert_eq!(
            kd.accum_offset,
            want.get("accum_offset").copied(),
            "{section}"
        );
        assert_eq!(
            kd.tg_split,
            want.get("tg_split").map(|&on| on == 1),
            "{section}"
        );
        checked += 1;
    }
    assert_eq!(checked, 5);
    // The source parks a value in a9: the metadata's ten AccVGPRs fit after the offset.
    for co in objects.iter().filter(|c| c.target.mach == "gfx90a") {
        let k = co.kernel("scale").unwrap();
        let meta = k.meta.as_ref().unwrap();
        assert_eq!(meta.agpr_count, 10);
        let kd = &k.descriptor;
        assert!(u64::from(kd.accvgprs_allocated(&co.target).unwrap()) >= meta.agpr_count);
        assert!(u64::from(kd.vgprs_allocated(&co.target)) >= meta.vgpr_count);
    }
}

#[test]
fn bundle_selection_takes_the_exact_processor_and_setting() {
    let objects = bundle();
    let chosen = |asked: &TargetId| {
        let i = pick("cdna.bundle", &objects, asked).unwrap_or_else(|e| panic!("{e}"));
        objects[i].label.clone().unwrap()
    };
    let gfx90a = TargetId::for_device(gcn_isa::Target::Gfx90a);
    assert_eq!(chosen(&gfx90a), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
    assert_eq!(
        chosen(&request("gfx90a:xnack+")),
        "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"
    );
    // Built with xnack "any": runs on either setting.
    assert_eq!(
        chosen(&request("gfx908:xnack+")),
        "hipv4-amdgcn-amd-amdhsa--gfx908"
    );
    assert_eq!(
        chosen(&TargetId::for_device(gcn_isa::Target::Gfx900)),
        "hipv4-amdgcn-amd-amdhsa--gfx900"
    );
    // The same choice from the entry ids alone, before any code object is parsed.
    let bytes = fixture("cdna.bundle");
    let images = extract_file("cdna.bundle", &bytes).unwrap();
    let i = pick("cdna.bundle", &images, &gfx90a).unwrap();
    assert_eq!(
        images[i].label.as_deref(),
        Some("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
    );
}

#[test]
fn no_bundle_for_the_device_names_what_the_file_has() {
    let objects = bundle();
    let gfx906 = TargetId::for_device(gcn_isa::Target::Gfx906);
    let err = pick("cdna.bundle", &objects, &gfx906)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cdna.bundle: no code object for gfx906:xnack- "),
        "{err}"
    );
    for target in listed_targets() {
        assert!(err.contains(&target), "{err} lacks {target}");
    }
    // A plain code object is known by its ELF header.
    let bytes = fixture("cdna.tgsplit.co");
    let images = extract_file("cdna.tgsplit.co", &bytes).unwrap();
    let err = pick("cdna.tgsplit.co", &images, &request("gfx90a:xnack+"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("the file has: gfx90a:xnack-"), "{err}");
}

#[test]
fn an_entry_id_with_another_xnack_setting_than_its_elf_is_refused() {
    let mut bytes = fixture("cdna.bundle");
    let id = b"amdhsa--gfx90a:xnack-";
    let at = bytes.windows(id.len()).position(|w| w == id).unwrap();
    bytes[at + id.len() - 1] = b'+';
    let err = load("cdna.bundle", &bytes).unwrap_err().to_string();
    assert!(
        err.contains("entry id names gfx90a:xnack+ but the ELF header says gfx90a:xnack-"),
        "{err}"
    );
}
