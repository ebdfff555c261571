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
