//! `gcn_loader::load` on the committed fixtures of `tests/fixtures/loader/` (see its build.sh),
//! checked against what the sources (`args.hip`, `tiny.hip`, `kernels.s`) say.

use gcn_loader::{load, CodeObject, Kernel, TargetId, ValueKind};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/loader")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load_one(name: &str) -> CodeObject {
    let mut objects = load(name, &fixture(name)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(objects.len(), 1, "{name}");
    objects.remove(0)
}

fn kernel<'a>(co: &'a CodeObject, name: &str) -> &'a Kernel {
    co.kernel(name)
        .unwrap_or_else(|| panic!("{}: no kernel {name}", co.file))
}

/// (offset, size, kind) of each argument.
fn layout(k: &Kernel) -> Vec<(u64, u64, ValueKind)> {
    let meta = k.meta.as_ref().expect("metadata");
    meta.args
        .iter()
        .map(|a| (a.offset, a.size, a.value_kind.clone()))
        .collect()
}

/// `mixed(char c, Pair p, float* out, short s, double d)` with `struct Pair { int; double; }`:
/// 1 byte at 0, 16 bytes aligned to 8, a pointer, 2 bytes, an 8-byte double.
fn mixed_explicit() -> Vec<(u64, u64, ValueKind)> {
    vec![
        (0, 1, ValueKind::ByValue),
        (8, 16, ValueKind::ByValue),
        (24, 8, ValueKind::GlobalBuffer),
        (32, 2, ValueKind::ByValue),
        (40, 8, ValueKind::ByValue),
    ]
}

/// `scale2d(const float* in, float* out, int width, float k)`.
fn scale2d_explicit() -> Vec<(u64, u64, ValueKind)> {
    vec![
        (0, 8, ValueKind::GlobalBuffer),
        (8, 8, ValueKind::GlobalBuffer),
        (16, 4, ValueKind::ByValue),
        (20, 4, ValueKind::ByValue),
    ]
}

/// The first instruction of every kernel decodes: the entry point really is code.
fn entries_are_code(co: &CodeObject) {
    let elf = co.elf().unwrap();
    let target = co.isa_target().expect("a gfx9 target");
    for k in &co.kernels {
        let section = elf
            .code_sections()
            .find(|s| s.index == k.code_section_index)
            .unwrap();
        assert_eq!(section.name, k.code_section);
        let offset = if co.relocatable {
            k.entry
        } else {
            k.entry - section.address
        };
        let bytes = &section.data[offset as usize..];
        gcn_isa::decode(bytes, target)
            .unwrap_or_else(|e| panic!("{} {}: entry does not decode: {e:?}", co.file, k.name));
        if let Some(size) = k.code_size {
            assert!(offset + size <= section.size, "{} {}", co.file, k.name);
        }
    }
}

#[test]
fn every_code_object_version_gives_the_same_kernels() {
    for (file, version, target) in [
        ("args.v2.co", 2, "gfx900"),
        ("args.v3.co", 3, "gfx906"),
        ("args.v4.co", 4, "gfx900:xnack-"),
        ("args.v5.co", 5, "gfx906:sramecc+:xnack-"),
    ] {
        let co = load_one(file);
        assert_eq!(co.version, version, "{file}");
        assert_eq!(co.target.to_string(), target, "{file}");
        assert_eq!(co.label, None);
        let names: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["mixed", "scale2d"], "{file}");

        let mixed = kernel(&co, "mixed");
        let args = layout(mixed);
        assert_eq!(args[..5], mixed_explicit()[..], "{file}");
        let meta = mixed.meta.as_ref().unwrap();
        assert_eq!(meta.explicit_args().count(), 5);
        // __shared__ float tile[256] and __launch_bounds__(256).
        assert_eq!(meta.group_segment_fixed_size, 1024, "{file}");
        assert_eq!(mixed.descriptor.group_segment_fixed_size, 1024, "{file}");
        assert_eq!(meta.max_flat_workgroup_size, 256, "{file}");
        assert_eq!(meta.wavefront_size, 64);
        assert_eq!(meta.kernarg_segment_align, 8);
        assert!(mixed.descriptor.kernarg_size as u64 >= 48);
        assert_eq!(
            u64::from(mixed.descriptor.kernarg_size),
            meta.kernarg_segment_size
        );

        let scale2d = kernel(&co, "scale2d");
        assert_eq!(layout(scale2d)[..4], scale2d_explicit()[..], "{file}");
        let meta = scale2d.meta.as_ref().unwrap();
        // Only `extern __shared__`: no fixed LDS; no launch bounds: the 1024 default.
        assert_eq!(meta.group_segment_fixed_size, 0);
        assert_eq!(meta.max_flat_workgroup_size, 1024);
        // threadIdx.y/blockIdx.y are used: work-item id y in v1, workgroup id y in an SGPR.
        let rsrc2 = scale2d.descriptor.rsrc2;
        assert_eq!(rsrc2.enable_vgpr_workitem_id, 1, "{file}");
        assert!(rsrc2.enable_sgpr_workgroup_id_x && rsrc2.enable_sgpr_workgroup_id_y);
        assert!(!rsrc2.enable_sgpr_workgroup_id_z);
        assert_eq!(mixed.descriptor.rsrc2.enable_vgpr_workitem_id, 0);

        for k in &co.kernels {
            let meta = k.meta.as_ref().unwrap();
            let kd = &k.descriptor;
            // Two independent records of the same kernel agree.
            assert!(
                meta.vgpr_count <= u64::from(kd.vgprs_allocated(&co.target)),
                "{file} {}",
                k.name
            );
            assert!(meta.vgpr_count > 0 && meta.sgpr_count > 0);
            assert_eq!(
                u64::from(kd.group_segment_fixed_size),
                meta.group_segment_fixed_size
            );
            assert_eq!(
                u64::from(kd.private_segment_fixed_size),
                meta.private_segment_fixed_size
            );
            // HIP kernels read their arguments through the kernarg pointer.
            assert!(kd.kernel_code_properties.enable_sgpr_kernarg_segment_ptr);
            assert_eq!(
                u32::from(kd.rsrc2.user_sgpr_count),
                kd.kernel_code_properties.user_sgprs()
            );
            assert_eq!(kd.wavefront_size(), 64);
            assert!(kd.rsrc1.enable_ieee_mode && kd.rsrc1.enable_dx10_clamp);
            assert_eq!(
                k.entry,
                k.descriptor_address
                    .wrapping_add(kd.kernel_code_entry_byte_offset as u64)
            );
            assert_eq!(k.code_section, ".text");
        }
        entries_are_code(&co);
    }
}

#[test]
fn v5_hidden_arguments_follow_the_explicit_ones() {
    let co = load_one("args.v5.co");
    let args = layout(kernel(&co, "scale2d"));
    let hidden: Vec<(u64, u64, ValueKind)> = args[4..10].to_vec();
    assert_eq!(
        hidden,
        [
            (24, 4, ValueKind::HiddenBlockCountX),
            (28, 4, ValueKind::HiddenBlockCountY),
            (32, 4, ValueKind::HiddenBlockCountZ),
            (36, 2, ValueKind::HiddenGroupSizeX),
            (38, 2, ValueKind::HiddenGroupSizeY),
            (40, 2, ValueKind::HiddenGroupSizeZ),
        ]
    );
    let kinds: Vec<&ValueKind> = args.iter().map(|a| &a.2).collect();
    for kind in [
        ValueKind::HiddenRemainderX,
        ValueKind::HiddenGlobalOffsetX,
        ValueKind::HiddenGridDims,
        ValueKind::HiddenHeapV1,
        ValueKind::HiddenQueuePtr,
    ] {
        assert!(kinds.contains(&&kind), "{kind}");
    }
    assert!(!kinds.iter().any(|k| matches!(k, ValueKind::Other(_))));
    // v5 kernels take 256 bytes of hidden arguments after the explicit ones.
    assert_eq!(kernel(&co, "scale2d").descriptor.kernarg_size, 24 + 256);
}

#[test]
fn v2_uses_amd_kernel_code_t_and_yaml() {
    let co = load_one("args.v2.co");
    let mixed = kernel(&co, "mixed");
    let kd = &mixed.descriptor;
    assert_eq!(kd.kernel_code_entry_byte_offset, 256);
    assert_eq!(mixed.entry, mixed.descriptor_address + 256);
    let (vgprs, sgprs) = kd.v2_register_counts.unwrap();
    let meta = mixed.meta.as_ref().unwrap();
    assert_eq!(
        (u64::from(vgprs), u64::from(sgprs)),
        (meta.vgpr_count, meta.sgpr_count)
    );
    assert_eq!(meta.language.as_deref(), Some("OpenCL C"));
    assert_eq!(co.meta.as_ref().unwrap().version, Some(vec![1, 0]));
}

#[test]
fn relocatable_object_from_llvm_mc() {
    let co = load_one("kernels.o");
    assert!(co.relocatable);
    assert_eq!((co.version, co.target.mach.as_str()), (4, "gfx906"));
    let copy = kernel(&co, "copy");
    let lds_sum = kernel(&co, "lds_sum");
    // Offsets in .text, from the R_AMDGPU_REL64 relocations (`.p2align 8` puts lds_sum at 256).
    assert_eq!((copy.entry, lds_sum.entry), (0, 256));
    let names: Vec<Option<&str>> = copy
        .meta
        .as_ref()
        .unwrap()
        .args
        .iter()
        .map(|a| a.name.as_deref())
        .collect();
    assert_eq!(names, [Some("src"), Some("dst")]);
    let src = &copy.meta.as_ref().unwrap().args[0];
    assert_eq!(src.type_name.as_deref(), Some("const int*"));
    assert!(src.is_const);

    let kd = &lds_sum.descriptor;
    assert_eq!(kd.group_segment_fixed_size, 2048);
    assert_eq!(kd.private_segment_fixed_size, 32);
    let p = kd.kernel_code_properties;
    assert!(p.enable_sgpr_private_segment_buffer && p.enable_sgpr_dispatch_ptr);
    assert!(p.enable_sgpr_queue_ptr && !p.enable_sgpr_kernarg_segment_ptr);
    assert_eq!(kd.rsrc2.user_sgpr_count, 8);
    assert!(kd.rsrc2.enable_private_segment);
    assert!(kd.rsrc2.enable_sgpr_workgroup_id_y && kd.rsrc2.enable_sgpr_workgroup_info);
    assert_eq!(kd.rsrc2.enable_vgpr_workitem_id, 1);
    // .amdhsa_exception_int_div_zero is the last of the seven exception enables.
    assert_eq!(kd.rsrc2.enable_exception, 1 << 6);
    assert_eq!(kd.rsrc1.float_denorm_mode_32, 0);
    assert_eq!(kd.rsrc1.float_denorm_mode_16_64, 3);
    let meta = lds_sum.meta.as_ref().unwrap();
    assert_eq!(meta.reqd_workgroup_size, Some([128, 1, 1]));
    assert_eq!(meta.args[0].value_kind, ValueKind::DynamicSharedPointer);
    assert_eq!(meta.args[0].pointee_align, Some(16));
    assert_eq!(meta.args[1].value_kind, ValueKind::HiddenGlobalOffsetX);
    assert_eq!(copy.descriptor.kernarg_size, 16);
    assert!(
        !copy
            .descriptor
            .kernel_code_properties
            .enable_sgpr_dispatch_ptr
    );
    entries_are_code(&co);
}

/// The AMDGPU lines of `clang-offload-bundler -list`, the independent oracle.
fn listed_ids(list_file: &str) -> Vec<String> {
    String::from_utf8(fixture(list_file))
        .unwrap()
        .lines()
        .filter(|l| l.contains("amdgcn"))
        .map(str::to_string)
        .collect()
}

#[test]
fn standalone_bundle() {
    let objects = load("tiny.bundle", &fixture("tiny.bundle")).unwrap();
    let labels: Vec<String> = objects.iter().map(|c| c.label.clone().unwrap()).collect();
    assert_eq!(labels, listed_ids("tiny.bundle.list.txt"));
    let targets: Vec<String> = objects.iter().map(|c| c.target.mach.clone()).collect();
    assert_eq!(targets, ["gfx900", "gfx906"]);
    for co in &objects {
        assert_eq!(co.kernels.len(), 1);
        let fill = kernel(co, "fill");
        // fill(unsigned* out, unsigned value)
        assert_eq!(
            layout(fill)[..2],
            [(0, 8, ValueKind::GlobalBuffer), (8, 4, ValueKind::ByValue)]
        );
        assert!(co
            .file
            .starts_with("tiny.bundle:hipv4-amdgcn-amd-amdhsa--gfx90"));
        entries_are_code(co);
    }
}

#[test]
fn host_library_with_two_bundles_in_hip_fatbin() {
    let objects = load("libfixture.so", &fixture("libfixture.so")).unwrap();
    let summary: Vec<(String, Vec<String>)> = objects
        .iter()
        .map(|c| {
            (
                c.target.mach.clone(),
                c.kernels.iter().map(|k| k.name.clone()).collect(),
            )
        })
        .collect();
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        summary,
        [
            ("gfx900".to_string(), names(&["mixed", "scale2d"])),
            ("gfx906".to_string(), names(&["mixed", "scale2d"])),
            ("gfx900".to_string(), names(&["fill"])),
            ("gfx906".to_string(), names(&["fill"])),
        ]
    );
    // Two bundles: entries of the second start past a 4 KiB-aligned bundle boundary.
    let offsets: Vec<u64> = objects.iter().map(|c| c.bundle_offset.unwrap()).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    for co in &objects {
        assert_eq!(
            co.label.as_deref(),
            Some(format!("hipv4-amdgcn-amd-amdhsa--{}", co.target.mach).as_str())
        );
        entries_are_code(co);
    }
    let gfx906 = TargetId::parse("gfx906").unwrap();
    let picked = gcn_loader::select(&objects, &gfx906);
    assert_eq!(picked.len(), 2);
    assert!(picked.iter().all(|c| c.target.mach == "gfx906"));
}
