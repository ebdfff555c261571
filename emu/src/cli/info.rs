//! `gcnemu info FILE [--json]`: the code objects in a file and, per kernel, what a dispatch
//! needs to know: arguments, segment sizes, registers, workgroup limits, descriptor enables.

use super::CliError;
use gcn_loader::{CodeObject, Kernel, KernelDescriptor, KernelMeta};
use serde::Serialize;
use std::fmt::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// A code object, relocatable object, clang offload bundle, or host binary with .hip_fatbin.
    pub file: PathBuf,
    /// Print JSON (every field of every descriptor and metadata record) instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub keep: super::KeepGoing,
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    code_objects: &'a [CodeObject],
    /// Damaged bundles and entries left out of a fat binary.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    damaged: Vec<String>,
}

pub fn run(args: &InfoArgs) -> Result<super::Output, CliError> {
    let file = args.file.display().to_string();
    let bytes = gcn_loader::read_file(&args.file)?;
    let salvaged = gcn_loader::load_salvaged(&file, &bytes)?;
    let objects = salvaged.kept;
    let incomplete =
        super::warn_damaged(&file, &salvaged.damaged, args.keep, super::PRINTED_THE_REST);
    let text = if args.json {
        let report = Report {
            file,
            code_objects: &objects,
            damaged: salvaged.damaged.iter().map(|e| e.to_string()).collect(),
        };
        let mut text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::Input(format!("cannot encode JSON: {e}")))?;
        text.push('\n');
        text
    } else {
        text_report(&file, &objects)
    };
    Ok(super::Output { text, incomplete })
}

fn text_report(file: &str, objects: &[CodeObject]) -> String {
    let mut out = String::new();
    // Each target once, in file order, with how many code objects it has when more than one.
    let mut targets: Vec<(String, usize)> = Vec::new();
    for co in objects {
        let id = co.target.to_string();
        match targets.iter_mut().find(|(t, _)| *t == id) {
            Some((_, n)) => *n += 1,
            None => targets.push((id, 1)),
        }
    }
    let targets: Vec<String> = targets
        .into_iter()
        .map(|(t, n)| if n == 1 { t } else { format!("{t} ({n})") })
        .collect();
    let _ = writeln!(
        out,
        "{file}: {} code object{}; targets: {}",
        objects.len(),
        plural(objects.len()),
        targets.join(", ")
    );
    for co in objects {
        code_object(&mut out, co);
    }
    out
}

fn code_object(out: &mut String, co: &CodeObject) {
    let _ = write!(out, "\ncode object v{} for {}", co.version, co.target);
    if let Some(label) = &co.label {
        let _ = write!(out, ", bundle entry {label}");
    }
    if let Some(offset) = co.bundle_offset {
        let _ = write!(out, " at {offset:#x}");
    }
    if co.relocatable {
        out.push_str(" (relocatable)");
    }
    let _ = writeln!(
        out,
        ": {} kernel{}",
        co.kernels.len(),
        plural(co.kernels.len())
    );
    for k in &co.kernels {
        kernel(out, co, k);
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn kernel(out: &mut String, co: &CodeObject, k: &Kernel) {
    let kd = &k.descriptor;
    let _ = writeln!(out, "\n  kernel {}", k.name);
    let size = k
        .code_size
        .map_or(String::new(), |s| format!(", {s} bytes of code"));
    let _ = writeln!(
        out,
        "    entry {:#x} in {}{size}; descriptor at {:#x}",
        k.entry, k.code_section, k.descriptor_address
    );
    let _ = writeln!(
        out,
        "    LDS {} bytes (fixed; dynamic LDS is added at dispatch), scratch {} bytes per work-item{}",
        kd.group_segment_fixed_size,
        kd.private_segment_fixed_size,
        if kd.kernel_code_properties.uses_dynamic_stack {
            " + dynamic stack"
        } else {
            ""
        }
    );
    registers(out, co, kd, k.meta.as_ref());
    if let Some(meta) = &k.meta {
        workgroup(out, meta);
    }
    enables(out, kd);
    match &k.meta {
        Some(meta) => arguments(out, meta),
        None => {
            let _ = writeln!(
                out,
                "    kernarg segment {} bytes; no metadata, so no argument list",
                kd.kernarg_size
            );
        }
    }
}

fn registers(out: &mut String, co: &CodeObject, kd: &KernelDescriptor, meta: Option<&KernelMeta>) {
    let allocated = format!(
        "allocated {} VGPRs, {} SGPRs",
        kd.vgprs_allocated(&co.target),
        kd.sgprs_allocated()
    );
    match meta {
        Some(m) => {
            let _ = writeln!(
                out,
                "    registers: {} VGPRs, {} SGPRs, {} AGPRs ({allocated}); spills {} SGPRs, {} VGPRs",
                m.vgpr_count, m.sgpr_count, m.agpr_count, m.sgpr_spill_count, m.vgpr_spill_count
            );
        }
        None => {
            let _ = writeln!(out, "    registers: {allocated}");
        }
    }
    unified_file(out, co, kd);
}

/// gfx90a's COMPUTE_PGM_RSRC3: where the AccVGPRs start in the unified file, and TG_SPLIT.
fn unified_file(out: &mut String, co: &CodeObject, kd: &KernelDescriptor) {
    let mut parts = Vec::new();
    if let Some(offset) = kd.accum_offset {
        let room = kd.accvgprs_allocated(&co.target).unwrap_or(0);
        parts.push(format!(
            "accum_offset {offset}: ArchVGPRs v0-v{}, AccVGPRs from v{offset} ({room} in the \
             allocation)",
            offset - 1
        ));
    }
    if let Some(split) = kd.tg_split {
        parts.push(format!("tg_split {}", on_off(split)));
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "    {}", parts.join("; "));
    }
}

fn workgroup(out: &mut String, m: &KernelMeta) {
    let _ = write!(
        out,
        "    workgroup: at most {} work-items, wave{}",
        m.max_flat_workgroup_size, m.wavefront_size
    );
    if let Some([x, y, z]) = m.reqd_workgroup_size {
        let _ = write!(out, ", required size {x}x{y}x{z}");
    }
    out.push('\n');
}

fn enables(out: &mut String, kd: &KernelDescriptor) {
    let p = kd.kernel_code_properties;
    let user: Vec<&str> = [
        (
            p.enable_sgpr_private_segment_buffer,
            "private_segment_buffer",
        ),
        (p.enable_sgpr_dispatch_ptr, "dispatch_ptr"),
        (p.enable_sgpr_queue_ptr, "queue_ptr"),
        (p.enable_sgpr_kernarg_segment_ptr, "kernarg_segment_ptr"),
        (p.enable_sgpr_dispatch_id, "dispatch_id"),
        (p.enable_sgpr_flat_scratch_init, "flat_scratch_init"),
        (p.enable_sgpr_private_segment_size, "private_segment_size"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    let r2 = kd.rsrc2;
    let mut system: Vec<&str> = [
        (r2.enable_sgpr_workgroup_id_x, "workgroup_id_x"),
        (r2.enable_sgpr_workgroup_id_y, "workgroup_id_y"),
        (r2.enable_sgpr_workgroup_id_z, "workgroup_id_z"),
        (r2.enable_sgpr_workgroup_info, "workgroup_info"),
        (
            r2.enable_private_segment,
            "private_segment_wavefront_offset",
        ),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    if system.is_empty() {
        system.push("none");
    }
    let workitem =
        ["x", "x, y", "x, y, z", "x, y, z (3)"][usize::from(r2.enable_vgpr_workitem_id & 3)];
    let _ = writeln!(
        out,
        "    user SGPRs ({}): {}",
        r2.user_sgpr_count,
        if user.is_empty() {
            "none".to_string()
        } else {
            user.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "    system SGPRs: {}; work-item id VGPRs: {workitem}",
        system.join(", ")
    );
    let r1 = kd.rsrc1;
    let _ =
        writeln!(
        out,
        "    mode: ieee {}, dx10_clamp {}, round f32 {} f16/f64 {}, denorm f32 {} f16/f64 {}{}{}",
        on_off(r1.enable_ieee_mode),
        on_off(r1.enable_dx10_clamp),
        r1.float_round_mode_32,
        r1.float_round_mode_16_64,
        r1.float_denorm_mode_32,
        r1.float_denorm_mode_16_64,
        if r2.enable_trap_handler { ", trap handler" } else { "" },
        if r2.enable_exception != 0 {
            format!(", exceptions {:#x}", r2.enable_exception)
        } else {
            String::new()
        }
    );
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

fn arguments(out: &mut String, m: &KernelMeta) {
    let _ = writeln!(
        out,
        "    kernarg segment {} bytes, align {}; {} argument{}:",
        m.kernarg_segment_size,
        m.kernarg_segment_align,
        m.args.len(),
        plural(m.args.len())
    );
    let _ = writeln!(
        out,
        "      {:>6} {:>4}  {:<32} {:<14} name",
        "offset", "size", "kind", "type"
    );
    for a in &m.args {
        let mut kind = a.value_kind.to_string();
        if let Some(space) = &a.address_space {
            kind = format!("{kind} ({space})");
        }
        let _ = writeln!(
            out,
            "      {:>6} {:>4}  {:<32} {:<14} {}",
            a.offset,
            a.size,
            kind,
            a.type_name.as_deref().unwrap_or("-"),
            a.name.as_deref().unwrap_or("-")
        );
    }
}
