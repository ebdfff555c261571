//! Kernel metadata, the same typed form for every code object version: v3/v4/v5 read it from
//! the `NT_AMDGPU_METADATA` msgpack note (`meta_msgpack`), v2 from the YAML `AMD.AMDGPU.Metadata`
//! note (`meta_yaml`). Field names follow the v3+ keys without their leading dot.

use serde::Serialize;
use std::fmt;

/// What an argument is, from its `.value_kind` (v3+ spelling; v2's CamelCase names map onto the
/// same variants).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "String")]
pub enum ValueKind {
    /// Copied into the kernarg segment by value.
    ByValue,
    /// A pointer to global memory.
    GlobalBuffer,
    /// A pointer into the dynamically allocated LDS (OpenCL `local` argument).
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    /// Padding the runtime need not fill.
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    /// v5: workgroups in the grid, per dimension.
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    /// v5: workgroup size (`hsa_kernel_dispatch_packet_t.workgroup_size_*`), u16.
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    /// v5: size of the last, partial workgroup (grid % workgroup size), u16.
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    /// v5: number of grid dimensions, u16.
    HiddenGridDims,
    /// v5: the device heap for `malloc`.
    HiddenHeapV1,
    /// v5: bytes of dynamic LDS for this dispatch.
    HiddenDynamicLdsSize,
    /// v5: base of the private aperture (high half of the flat address).
    HiddenPrivateBase,
    /// v5: base of the shared (LDS) aperture.
    HiddenSharedBase,
    /// v5: the queue pointer.
    HiddenQueuePtr,
    /// Any other kind, spelled as in the metadata.
    Other(String),
}

impl ValueKind {
    /// Every named kind with its v3+ and v2 spellings (v2 had no `hidden_*` kinds after
    /// `HiddenMultiGridSyncArg`).
    const TABLE: [(ValueKind, &'static str, &'static str); 31] = {
        use ValueKind::*;
        [
            (ByValue, "by_value", "ByValue"),
            (GlobalBuffer, "global_buffer", "GlobalBuffer"),
            (
                DynamicSharedPointer,
                "dynamic_shared_pointer",
                "DynamicSharedPointer",
            ),
            (Sampler, "sampler", "Sampler"),
            (Image, "image", "Image"),
            (Pipe, "pipe", "Pipe"),
            (Queue, "queue", "Queue"),
            (
                HiddenGlobalOffsetX,
                "hidden_global_offset_x",
                "HiddenGlobalOffsetX",
            ),
            (
                HiddenGlobalOffsetY,
                "hidden_global_offset_y",
                "HiddenGlobalOffsetY",
            ),
            (
                HiddenGlobalOffsetZ,
                "hidden_global_offset_z",
                "HiddenGlobalOffsetZ",
            ),
            (HiddenNone, "hidden_none", "HiddenNone"),
            (
                HiddenPrintfBuffer,
                "hidden_printf_buffer",
                "HiddenPrintfBuffer",
            ),
            (
                HiddenHostcallBuffer,
                "hidden_hostcall_buffer",
                "HiddenHostcallBuffer",
            ),
            (
                HiddenDefaultQueue,
                "hidden_default_queue",
                "HiddenDefaultQueue",
            ),
            (
                HiddenCompletionAction,
                "hidden_completion_action",
                "HiddenCompletionAction",
            ),
            (
                HiddenMultigridSyncArg,
                "hidden_multigrid_sync_arg",
                "HiddenMultiGridSyncArg",
            ),
            (HiddenBlockCountX, "hidden_block_count_x", ""),
            (HiddenBlockCountY, "hidden_block_count_y", ""),
            (HiddenBlockCountZ, "hidden_block_count_z", ""),
            (HiddenGroupSizeX, "hidden_group_size_x", ""),
            (HiddenGroupSizeY, "hidden_group_size_y", ""),
            (HiddenGroupSizeZ, "hidden_group_size_z", ""),
            (HiddenRemainderX, "hidden_remainder_x", ""),
            (HiddenRemainderY, "hidden_remainder_y", ""),
            (HiddenRemainderZ, "hidden_remainder_z", ""),
            (HiddenGridDims, "hidden_grid_dims", ""),
            (HiddenHeapV1, "hidden_heap_v1", ""),
            (HiddenDynamicLdsSize, "hidden_dynamic_lds_size", ""),
            (HiddenPrivateBase, "hidden_private_base", ""),
            (HiddenSharedBase, "hidden_shared_base", ""),
            (HiddenQueuePtr, "hidden_queue_ptr", ""),
        ]
    };

    /// Parses a v3+ (`hidden_block_count_x`) or v2 (`HiddenGlobalOffsetX`) spelling.
    pub fn parse(text: &str) -> ValueKind {
        Self::TABLE
            .iter()
            .find(|(_, v3, v2)| *v3 == text || (!v2.is_empty() && *v2 == text))
            .map_or_else(|| ValueKind::Other(text.to_string()), |row| row.0.clone())
    }

    /// The v3+ spelling.
    pub fn name(&self) -> &str {
        match self {
            ValueKind::Other(name) => name,
            known => Self::TABLE
                .iter()
                .find(|row| row.0 == *known)
                .map_or("", |row| row.1),
        }
    }

    /// Hidden arguments are filled by the runtime, not given by the user.
    pub fn is_hidden(&self) -> bool {
        self.name().starts_with("hidden_")
    }
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<ValueKind> for String {
    fn from(kind: ValueKind) -> String {
        kind.name().to_string()
    }
}

/// One kernel argument as the metadata describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelArg {
    /// The source name, if the compiler kept it (hidden arguments have none).
    pub name: Option<String>,
    /// The source type, e.g. `float*`.
    pub type_name: Option<String>,
    /// Bytes in the kernarg segment.
    pub size: u64,
    /// Byte offset in the kernarg segment (v2: computed from sizes and alignments).
    pub offset: u64,
    pub value_kind: ValueKind,
    /// `global`, `constant`, `local`, `private`, `generic`, `region` for pointers.
    pub address_space: Option<String>,
    /// Alignment of what a `dynamic_shared_pointer` points at.
    pub pointee_align: Option<u64>,
    /// `read_only`, `write_only`, `read_write` (images, pipes).
    pub access: Option<String>,
    pub actual_access: Option<String>,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
    pub is_pipe: bool,
    /// v2/v3 `.value_type` (removed in v4), e.g. `f32`.
    pub value_type: Option<String>,
}

/// A kernel's metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelMeta {
    /// The kernel's source-level (linkage) name.
    pub name: String,
    /// The kernel descriptor's symbol (`name.kd`; v2: the kernel symbol).
    pub symbol: String,
    /// `OpenCL C`, `HIP`, ...
    pub language: Option<String>,
    pub language_version: Option<Vec<u32>>,
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u64,
    pub kernarg_segment_align: u64,
    pub group_segment_fixed_size: u64,
    pub private_segment_fixed_size: u64,
    pub sgpr_count: u64,
    pub vgpr_count: u64,
    /// AccVGPRs (gfx908+); 0 when not given.
    pub agpr_count: u64,
    pub max_flat_workgroup_size: u64,
    pub wavefront_size: u64,
    pub sgpr_spill_count: u64,
    pub vgpr_spill_count: u64,
    /// v5 `.uses_dynamic_stack`; v2/v3/v4 leave it false (the descriptor has it too).
    pub uses_dynamic_stack: bool,
    /// `reqd_work_group_size(x, y, z)` from the source, if given.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    pub workgroup_size_hint: Option<[u32; 3]>,
    /// `normal` or `init`/`fini`.
    pub kind: Option<String>,
    pub uniform_work_group_size: bool,
}

impl KernelMeta {
    /// The arguments the user supplies (not hidden ones), in order.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| !a.value_kind.is_hidden())
    }
}

/// The metadata note of a whole code object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CodeObjectMeta {
    /// `amdhsa.version` (v2: `Version`).
    pub version: Option<Vec<u32>>,
    /// `amdhsa.target` (v4+), e.g. `amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-`.
    pub target: Option<String>,
    pub kernels: Vec<KernelMeta>,
    /// `amdhsa.printf` format strings.
    pub printf: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_kinds_round_trip_through_both_spellings() {
        for (known, v3, v2) in ValueKind::TABLE.iter() {
            let kind = ValueKind::parse(v3);
            assert_eq!(kind, *known);
            assert_eq!(kind.name(), *v3);
            if !v2.is_empty() {
                assert_eq!(ValueKind::parse(v2), kind);
            }
        }
        assert_eq!(
            ValueKind::parse("hidden_new_thing"),
            ValueKind::Other("hidden_new_thing".into())
        );
        assert!(ValueKind::parse("hidden_new_thing").is_hidden());
        assert!(ValueKind::HiddenRemainderZ.is_hidden());
        assert!(!ValueKind::GlobalBuffer.is_hidden());
    }
}
