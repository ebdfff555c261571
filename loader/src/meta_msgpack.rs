//! Code object v3/v4/v5 metadata: the msgpack map in the `NT_AMDGPU_METADATA` note
//! (AMDGPUUsage, "Code Object V3 Metadata" and later), read with `rmp-serde` into raw structs
//! whose field names are the documented keys, then turned into [`KernelMeta`].

use crate::error::LoadErrorKind;
use crate::meta::{CodeObjectMeta, KernelArg, KernelMeta, ValueKind};
use serde::Deserialize;

/// Nesting deeper than this is not metadata; refusing it keeps hostile notes from recursing.
const MAX_DEPTH: usize = 16;

#[derive(Deserialize)]
struct Document {
    #[serde(rename = "amdhsa.version")]
    version: Option<Vec<u32>>,
    #[serde(rename = "amdhsa.target")]
    target: Option<String>,
    #[serde(rename = "amdhsa.kernels", default)]
    kernels: Vec<RawKernel>,
    #[serde(rename = "amdhsa.printf", default)]
    printf: Vec<String>,
}

#[derive(Deserialize)]
struct RawKernel {
    #[serde(rename = ".name")]
    name: String,
    #[serde(rename = ".symbol")]
    symbol: String,
    #[serde(rename = ".language")]
    language: Option<String>,
    #[serde(rename = ".language_version")]
    language_version: Option<Vec<u32>>,
    #[serde(rename = ".args", default)]
    args: Vec<RawArg>,
    #[serde(rename = ".kernarg_segment_size", default)]
    kernarg_segment_size: u64,
    #[serde(rename = ".kernarg_segment_align", default)]
    kernarg_segment_align: u64,
    #[serde(rename = ".group_segment_fixed_size", default)]
    group_segment_fixed_size: u64,
    #[serde(rename = ".private_segment_fixed_size", default)]
    private_segment_fixed_size: u64,
    #[serde(rename = ".sgpr_count", default)]
    sgpr_count: u64,
    #[serde(rename = ".vgpr_count", default)]
    vgpr_count: u64,
    #[serde(rename = ".agpr_count", default)]
    agpr_count: u64,
    #[serde(rename = ".max_flat_workgroup_size", default)]
    max_flat_workgroup_size: u64,
    #[serde(rename = ".wavefront_size", default)]
    wavefront_size: u64,
    #[serde(rename = ".sgpr_spill_count", default)]
    sgpr_spill_count: u64,
    #[serde(rename = ".vgpr_spill_count", default)]
    vgpr_spill_count: u64,
    #[serde(rename = ".uses_dynamic_stack", default)]
    uses_dynamic_stack: bool,
    #[serde(rename = ".reqd_workgroup_size")]
    reqd_workgroup_size: Option<Vec<u32>>,
    #[serde(rename = ".workgroup_size_hint")]
    workgroup_size_hint: Option<Vec<u32>>,
    #[serde(rename = ".kind")]
    kind: Option<String>,
    #[serde(rename = ".uniform_work_group_size", default)]
    uniform_work_group_size: u8,
}

#[derive(Deserialize)]
struct RawArg {
    #[serde(rename = ".name")]
    name: Option<String>,
    #[serde(rename = ".type_name")]
    type_name: Option<String>,
    #[serde(rename = ".size")]
    size: u64,
    #[serde(rename = ".offset")]
    offset: u64,
    #[serde(rename = ".value_kind")]
    value_kind: String,
    #[serde(rename = ".value_type")]
    value_type: Option<String>,
    #[serde(rename = ".address_space")]
    address_space: Option<String>,
    #[serde(rename = ".pointee_align")]
    pointee_align: Option<u64>,
    #[serde(rename = ".access")]
    access: Option<String>,
    #[serde(rename = ".actual_access")]
    actual_access: Option<String>,
    #[serde(rename = ".is_const", default)]
    is_const: bool,
    #[serde(rename = ".is_restrict", default)]
    is_restrict: bool,
    #[serde(rename = ".is_volatile", default)]
    is_volatile: bool,
    #[serde(rename = ".is_pipe", default)]
    is_pipe: bool,
}

/// `[x, y, z]` from a three-element list; anything else is dropped.
pub(crate) fn dims(list: Option<Vec<u32>>) -> Option<[u32; 3]> {
    list.and_then(|v| v.try_into().ok())
}

/// Parses the note's descriptor bytes.
pub fn parse(desc: &[u8]) -> Result<CodeObjectMeta, LoadErrorKind> {
    let mut de = rmp_serde::Deserializer::from_read_ref(desc);
    de.set_max_depth(MAX_DEPTH);
    let doc = Document::deserialize(&mut de)
        .map_err(|e| LoadErrorKind::Metadata(format!("msgpack: {e}")))?;
    Ok(CodeObjectMeta {
        version: doc.version,
        target: doc.target,
        printf: doc.printf,
        kernels: doc.kernels.into_iter().map(kernel).collect(),
    })
}

fn kernel(k: RawKernel) -> KernelMeta {
    KernelMeta {
        name: k.name,
        symbol: k.symbol,
        language: k.language,
        language_version: k.language_version,
        args: k.args.into_iter().map(arg).collect(),
        kernarg_segment_size: k.kernarg_segment_size,
        kernarg_segment_align: k.kernarg_segment_align,
        group_segment_fixed_size: k.group_segment_fixed_size,
        private_segment_fixed_size: k.private_segment_fixed_size,
        sgpr_count: k.sgpr_count,
        vgpr_count: k.vgpr_count,
        agpr_count: k.agpr_count,
        max_flat_workgroup_size: k.max_flat_workgroup_size,
        wavefront_size: k.wavefront_size,
        sgpr_spill_count: k.sgpr_spill_count,
        vgpr_spill_count: k.vgpr_spill_count,
        uses_dynamic_stack: k.uses_dynamic_stack,
        reqd_workgroup_size: dims(k.reqd_workgroup_size),
        workgroup_size_hint: dims(k.workgroup_size_hint),
        kind: k.kind,
        uniform_work_group_size: k.uniform_work_group_size != 0,
    }
}

fn arg(a: RawArg) -> KernelArg {
    KernelArg {
        name: a.name,
        type_name: a.type_name,
        size: a.size,
        offset: a.offset,
        value_kind: ValueKind::parse(&a.value_kind),
        address_space: a.address_space,
        pointee_align: a.pointee_align,
        access: a.access,
        actual_access: a.actual_access,
        is_const: a.is_const,
        is_restrict: a.is_restrict,
        is_volatile: a.is_volatile,
        is_pipe: a.is_pipe,
        value_type: a.value_type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// msgpack for `{"amdhsa.kernels": [k]}` with one kernel map of `(key, value)` pairs.
    fn document(kernel: &[(&str, rmpv::Value)]) -> Vec<u8> {
        use rmpv::Value;
        let map = Value::Map(
            kernel
                .iter()
                .map(|(k, v)| (Value::from(*k), v.clone()))
                .collect(),
        );
        let doc = Value::Map(vec![(
            Value::from("amdhsa.kernels"),
            Value::Array(vec![map]),
        )]);
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &doc).unwrap();
        out
    }

    #[test]
    fn kernel_fields_and_unknown_keys() {
        use rmpv::Value;
        let arg = Value::Map(vec![
            (".offset".into(), 8.into()),
            (".size".into(), 4.into()),
            (".value_kind".into(), "hidden_dynamic_lds_size".into()),
            (".some_future_key".into(), Value::Array(vec![1.into()])),
        ]);
        let bytes = document(&[
            (".name", "k".into()),
            (".symbol", "k.kd".into()),
            (".args", Value::Array(vec![arg])),
            (".vgpr_count", 12.into()),
            (".uses_dynamic_stack", true.into()),
            (
                ".reqd_workgroup_size",
                Value::Array(vec![64.into(), 2.into(), 1.into()]),
            ),
        ]);
        let meta = parse(&bytes).unwrap();
        let k = &meta.kernels[0];
        assert_eq!(k.args[0].value_kind, ValueKind::HiddenDynamicLdsSize);
        assert_eq!((k.args[0].offset, k.args[0].size), (8, 4));
        assert_eq!(k.vgpr_count, 12);
        assert!(k.uses_dynamic_stack);
        assert_eq!(k.reqd_workgroup_size, Some([64, 2, 1]));
    }

    #[test]
    fn wrong_types_and_missing_fields_are_errors() {
        let bytes = document(&[(".name", 5.into()), (".symbol", "k.kd".into())]);
        assert!(parse(&bytes)
            .unwrap_err()
            .to_string()
            .starts_with("metadata note: msgpack:"));
        let bytes = document(&[(".symbol", "k.kd".into())]);
        assert!(parse(&bytes).unwrap_err().to_string().contains(".name"));
    }

    #[test]
    fn deep_nesting_is_refused_without_recursing() {
        // 100000 nested one-element arrays under an unknown key.
        let mut bytes = vec![0x81, 0xa1, b'x'];
        bytes.resize(bytes.len() + 100_000, 0x91);
        bytes.push(0xc0);
        let err = parse(&bytes).unwrap_err().to_string();
        assert!(err.contains("depth limit"), "{err}");
    }
}
