//! Code object v2 metadata: the YAML document in the `AMD` note of type
//! `NT_AMD_HSA_METADATA` ("AMD.AMDGPU.Metadata"; AMDGPUUsage, "Code Object V2 Metadata"),
//! read with `serde_yaml` and turned into the same [`KernelMeta`] as v3+.
//!
//! v2 arguments carry a size and an alignment but no offset: the offset is the previous
//! argument's end rounded up to the alignment, as the runtime lays them out.

use crate::error::LoadErrorKind;
use crate::meta::{CodeObjectMeta, KernelArg, KernelMeta, ValueKind};
use crate::meta_msgpack::dims;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Document {
    version: Option<Vec<u32>>,
    #[serde(default)]
    printf: Vec<String>,
    #[serde(default)]
    kernels: Vec<RawKernel>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawKernel {
    name: String,
    #[serde(default)]
    symbol_name: String,
    language: Option<String>,
    language_version: Option<Vec<u32>>,
    #[serde(default)]
    attrs: Attrs,
    #[serde(default)]
    args: Vec<RawArg>,
    #[serde(default)]
    code_props: CodeProps,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
struct Attrs {
    reqd_work_group_size: Option<Vec<u32>>,
    work_group_size_hint: Option<Vec<u32>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawArg {
    name: Option<String>,
    type_name: Option<String>,
    size: u64,
    #[serde(default = "one")]
    align: u64,
    value_kind: String,
    value_type: Option<String>,
    pointee_align: Option<u64>,
    addr_space_qual: Option<String>,
    acc_qual: Option<String>,
    actual_acc_qual: Option<String>,
    #[serde(default)]
    is_const: bool,
    #[serde(default)]
    is_restrict: bool,
    #[serde(default)]
    is_volatile: bool,
    #[serde(default)]
    is_pipe: bool,
}

fn one() -> u64 {
    1
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct CodeProps {
    kernarg_segment_size: u64,
    group_segment_fixed_size: u64,
    private_segment_fixed_size: u64,
    kernarg_segment_align: u64,
    wavefront_size: u64,
    #[serde(rename = "NumSGPRs")]
    num_sgprs: u64,
    #[serde(rename = "NumVGPRs")]
    num_vgprs: u64,
    max_flat_work_group_size: u64,
    is_dynamic_call_stack: bool,
    #[serde(rename = "NumSpilledSGPRs")]
    num_spilled_sgprs: u64,
    #[serde(rename = "NumSpilledVGPRs")]
    num_spilled_vgprs: u64,
}

/// Parses the note's descriptor bytes (YAML text, possibly NUL-terminated).
pub fn parse(desc: &[u8]) -> Result<CodeObjectMeta, LoadErrorKind> {
    let text = std::str::from_utf8(desc)
        .map_err(|e| LoadErrorKind::Metadata(format!("YAML note is not UTF-8: {e}")))?;
    let text = text.trim_end_matches('\0');
    let doc: Document =
        serde_yaml::from_str(text).map_err(|e| LoadErrorKind::Metadata(format!("YAML: {e}")))?;
    let kernels = doc
        .kernels
        .into_iter()
        .map(kernel)
        .collect::<Result<_, _>>()?;
    Ok(CodeObjectMeta {
        version: doc.version,
        target: None,
        kernels,
        printf: doc.printf,
    })
}

fn kernel(k: RawKernel) -> Result<KernelMeta, LoadErrorKind> {
    let mut offset = 0u64;
    let mut args = Vec::with_capacity(k.args.len());
    for a in k.args {
        if !a.align.is_power_of_two() {
            return Err(LoadErrorKind::Metadata(format!(
                "kernel {}: argument alignment {} is not a power of two",
                k.name, a.align
            )));
        }
        let overflow = || LoadErrorKind::Metadata(format!("kernel {}: arguments overflow", k.name));
        offset = offset
            .checked_next_multiple_of(a.align)
            .ok_or_else(overflow)?;
        args.push(KernelArg {
            name: a.name,
            type_name: a.type_name,
            size: a.size,
            offset,
            value_kind: ValueKind::parse(&a.value_kind),
            address_space: a.addr_space_qual.map(|s| s.to_lowercase()),
            pointee_align: a.pointee_align,
            access: a.acc_qual.map(|s| snake(&s)),
            actual_access: a.actual_acc_qual.map(|s| snake(&s)),
            is_const: a.is_const,
            is_restrict: a.is_restrict,
            is_volatile: a.is_volatile,
            is_pipe: a.is_pipe,
            value_type: a.value_type.map(|s| s.to_lowercase()),
        });
        offset = offset.checked_add(a.size).ok_or_else(overflow)?;
    }
    let p = k.code_props;
    Ok(KernelMeta {
        name: k.name,
        symbol: k.symbol_name,
        language: k.language,
        language_version: k.language_version,
        args,
        kernarg_segment_size: p.kernarg_segment_size,
        kernarg_segment_align: p.kernarg_segment_align,
        group_segment_fixed_size: p.group_segment_fixed_size,
        private_segment_fixed_size: p.private_segment_fixed_size,
        sgpr_count: p.num_sgprs,
        vgpr_count: p.num_vgprs,
        agpr_count: 0,
        max_flat_workgroup_size: p.max_flat_work_group_size,
        wavefront_size: p.wavefront_size,
        sgpr_spill_count: p.num_spilled_sgprs,
        vgpr_spill_count: p.num_spilled_vgprs,
        uses_dynamic_stack: p.is_dynamic_call_stack,
        reqd_workgroup_size: dims(k.attrs.reqd_work_group_size),
        workgroup_size_hint: dims(k.attrs.work_group_size_hint),
        kind: None,
        uniform_work_group_size: false,
    })
}

/// `ReadWrite` → `read_write`, v3's spelling of access qualifiers.
fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_argument_offsets_follow_size_and_alignment() {
        let yaml = "---
Version: [ 1, 0 ]
Kernels:
  - Name: k
    SymbolName: 'k@kd'
    Args:
      - { Name: n, TypeName: int, Size: 4, Align: 4, ValueKind: ByValue, ValueType: I32 }
      - { Name: p, TypeName: 'float*', Size: 8, Align: 8, ValueKind: GlobalBuffer,
          AddrSpaceQual: Global, AccQual: ReadWrite }
      - { Size: 8, Align: 8, ValueKind: HiddenGlobalOffsetX, ValueType: I64 }
    CodeProps: { KernargSegmentSize: 24, GroupSegmentFixedSize: 256, NumSGPRs: 12,
                 NumVGPRs: 3, MaxFlatWorkGroupSize: 256, WavefrontSize: 64 }
...
";
        let meta = parse(yaml.as_bytes()).unwrap();
        let k = &meta.kernels[0];
        let offsets: Vec<u64> = k.args.iter().map(|a| a.offset).collect();
        assert_eq!(offsets, [0, 8, 16]);
        assert_eq!(k.args[1].address_space.as_deref(), Some("global"));
        assert_eq!(k.args[1].access.as_deref(), Some("read_write"));
        assert_eq!(k.args[2].value_kind, ValueKind::HiddenGlobalOffsetX);
        assert_eq!(k.group_segment_fixed_size, 256);
        assert_eq!((k.sgpr_count, k.vgpr_count), (12, 3));
        assert_eq!(meta.version, Some(vec![1, 0]));
    }

    #[test]
    fn bad_alignment_is_an_error() {
        let yaml = "Kernels: [ { Name: k, Args: [ { Size: 4, Align: 3, ValueKind: ByValue } ] } ]";
        let err = parse(yaml.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("alignment 3"), "{err}");
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            yaml.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        yaml.push_str("Kernels: *a11\n");
        let err = parse(yaml.as_bytes()).unwrap_err().to_string();
        assert!(err.starts_with("metadata note: YAML:"), "{err}");
    }
}
