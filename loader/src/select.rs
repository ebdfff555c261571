//! Which code object of a fat binary a device runs: the rule HIP's runtime applies to bundle
//! entry ids (clang's `ClangOffloadBundler.rst`, "Compatibility Rules for Target ID";
//! AMDGPUUsage, "Target ID"), written once for every caller.
//!
//! - The processor must be the one asked for.
//! - A feature the request sets (`xnack-`) matches an entry with the same setting or none
//!   ("any"); a feature the request leaves open matches every entry.
//! - Of the entries that match, the one naming the most of the request's settings wins
//!   (`gfx90a:xnack-` over `gfx90a`); among equals, the first in the file.
//! - No match is an error naming the target asked for and the targets the file has, as HIP's
//!   "no kernel image is available for execution on the device".

use crate::error::{LoadError, LoadErrorKind};
use crate::{bundle, code_object_version, target_from_e_flags, CodeObject, ElfImage, TargetId};

/// Something a device may be given to run, whose target id can be told without parsing all of
/// it.
pub trait Offered {
    /// The target id the code was built for; `None` if it names no known processor.
    fn offered_target(&self) -> Option<TargetId>;
    /// How to name it in the list of what a file has, when it names no known processor.
    fn describe(&self) -> String;
}

impl Offered for CodeObject {
    fn offered_target(&self) -> Option<TargetId> {
        Some(self.target.clone())
    }

    fn describe(&self) -> String {
        self.target.to_string()
    }
}

impl Offered for ElfImage<'_> {
    /// From the bundle entry id, which is what runtimes select by; for a plain ELF file, from
    /// its header (the processor in EF_AMDGPU_MACH, the settings in the feature bits), or from
    /// its notes when it is a code object v2 that leaves EF_AMDGPU_MACH 0.
    fn offered_target(&self) -> Option<TargetId> {
        match &self.label {
            Some(id) => bundle::target_id(id).and_then(TargetId::parse),
            None => header_target(&self.bytes).or_else(|| {
                CodeObject::parse(&self.file, None, self.bytes.to_vec())
                    .ok()
                    .map(|c| c.target)
            }),
        }
    }

    fn describe(&self) -> String {
        match &self.label {
            Some(id) => bundle::target_id(id).unwrap_or(id).to_string(),
            None => "a code object naming no known processor".to_string(),
        }
    }
}

/// The target id in an AMDGPU ELF64 header: OS/ABI @7, ABI version @8, e_flags @48.
fn header_target(bytes: &[u8]) -> Option<TargetId> {
    let version = code_object_version(*bytes.get(7)?, *bytes.get(8)?)?;
    let e_flags = u32::from_le_bytes(bytes.get(48..52)?.try_into().ok()?);
    match target_from_e_flags(e_flags, version) {
        (Some(_), id) => Some(id),
        (None, _) => None,
    }
}

/// The index in `candidates` of the code a device asking for `request` runs (see the module
/// documentation for the rule). `file` names the input in the error.
pub fn pick<T: Offered>(
    file: &str,
    candidates: &[T],
    request: &TargetId,
) -> Result<usize, LoadError> {
    let mut best: Option<(usize, u8)> = None;
    for (i, candidate) in candidates.iter().enumerate() {
        let Some(score) = candidate
            .offered_target()
            .and_then(|t| t.specificity_for(request))
        else {
            continue;
        };
        // Strictly better only: among equals the first in the file stays.
        let better = match best {
            None => true,
            Some((_, best_score)) => score > best_score,
        };
        if better {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| i).ok_or_else(|| {
        let mut available: Vec<String> = Vec::new();
        for c in candidates {
            let name = c
                .offered_target()
                .map_or_else(|| c.describe(), |t| t.to_string());
            if !available.contains(&name) {
                available.push(name);
            }
        }
        LoadError::new(
            file,
            LoadErrorKind::NoCodeObjectFor {
                requested: request.to_string(),
                available: available.join(", "),
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates known only by their target ids.
    struct Id(&'static str);

    impl Offered for Id {
        fn offered_target(&self) -> Option<TargetId> {
            TargetId::parse(self.0)
        }
        fn describe(&self) -> String {
            self.0.to_string()
        }
    }

    fn pick_from(ids: &[&'static str], request: &str) -> Result<&'static str, String> {
        let candidates: Vec<Id> = ids.iter().map(|s| Id(s)).collect();
        pick("fat.so", &candidates, &TargetId::parse(request).unwrap())
            .map(|i| ids[i])
            .map_err(|e| e.to_string())
    }

    const DEBIAN_ROCM: [&str; 6] = [
        "gfx803",
        "gfx900:xnack-",
        "gfx906:xnack-",
        "gfx908:xnack-",
        "gfx90a:xnack+",
        "gfx90a:xnack-",
    ];

    #[test]
    fn the_processor_must_be_the_one_asked_for() {
        assert_eq!(
            pick_from(&DEBIAN_ROCM, "gfx908:xnack-"),
            Ok("gfx908:xnack-")
        );
        assert_eq!(pick_from(&DEBIAN_ROCM, "gfx908"), Ok("gfx908:xnack-"));
        assert!(pick_from(&["gfx906", "gfx90a"], "gfx908").is_err());
    }

    #[test]
    fn a_set_feature_matches_the_same_setting_or_any() {
        assert_eq!(
            pick_from(&DEBIAN_ROCM, "gfx90a:xnack-"),
            Ok("gfx90a:xnack-")
        );
        assert_eq!(
            pick_from(&DEBIAN_ROCM, "gfx90a:xnack+"),
            Ok("gfx90a:xnack+")
        );
        assert_eq!(pick_from(&["gfx90a"], "gfx90a:xnack+"), Ok("gfx90a"));
        assert_eq!(
            pick_from(&["gfx90a:sramecc+:xnack-"], "gfx90a:xnack-"),
            Ok("gfx90a:sramecc+:xnack-")
        );
        assert!(pick_from(&["gfx90a:sramecc+"], "gfx90a:sramecc-").is_err());
        assert!(pick_from(&["gfx900:xnack+"], "gfx900:xnack-").is_err());
    }

    #[test]
    fn the_most_specific_match_wins_then_the_first() {
        // "any" first in the file, the exact setting later: the exact one.
        assert_eq!(
            pick_from(
                &["gfx90a", "gfx90a:xnack+", "gfx90a:xnack-"],
                "gfx90a:xnack-"
            ),
            Ok("gfx90a:xnack-")
        );
        assert_eq!(
            pick_from(
                &["gfx90a:xnack-", "gfx90a:sramecc+:xnack-"],
                "gfx90a:sramecc+:xnack-"
            ),
            Ok("gfx90a:sramecc+:xnack-")
        );
        // A request leaving sramecc open takes either; the first of equals.
        assert_eq!(
            pick_from(
                &["gfx90a:sramecc-:xnack-", "gfx90a:sramecc+:xnack-"],
                "gfx90a:xnack-"
            ),
            Ok("gfx90a:sramecc-:xnack-")
        );
    }

    #[test]
    fn devices_ask_for_xnack_off_and_any_sramecc() {
        let gfx90a = TargetId::for_device(gcn_isa::Target::Gfx90a);
        assert_eq!(gfx90a.to_string(), "gfx90a:xnack-");
        assert_eq!(
            TargetId::for_device(gcn_isa::Target::Gfx908).to_string(),
            "gfx908:xnack-"
        );
        let candidates: Vec<Id> = DEBIAN_ROCM.iter().map(|s| Id(s)).collect();
        let i = pick("lib.so", &candidates, &gfx90a).unwrap();
        assert_eq!(DEBIAN_ROCM[i], "gfx90a:xnack-");
    }

    #[test]
    fn no_match_names_the_request_and_what_the_file_has() {
        let err = pick_from(
            &[
                "gfx900:xnack-",
                "gfx906:xnack-",
                "gfx900:xnack-",
                "gfx90a:xnack+",
            ],
            "gfx90a:xnack-",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "fat.so: no code object for gfx90a:xnack- (no kernel image is available for it; \
             the file has: gfx900:xnack-, gfx906:xnack-, gfx90a:xnack+)"
        );
    }
}
