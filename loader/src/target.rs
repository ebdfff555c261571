//! Target ids (`gfx900:xnack-`) and what the ELF header says about them: the code object version
//! from OS/ABI + ABI version, the processor and xnack/sramecc settings from e_flags
//! (AMDGPUUsage, "ELF Header" and "Target ID").

use crate::mach::{mach_name, EF_AMDGPU_MACH};
use serde::Serialize;
use std::fmt;

/// `ELFOSABI_AMDGPU_HSA`: the OS/ABI byte of HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;

// e_flags feature bits. Code object v2 used bit 0 for xnack; v3 used one bit per feature;
// v4 and later use two-bit fields that can also say "any" and "unsupported".
const EF_AMDGPU_XNACK_V2: u32 = 0x01;
const EF_AMDGPU_XNACK_V3: u32 = 0x100;
const EF_AMDGPU_SRAMECC_V3: u32 = 0x200;
const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;

/// A processor and its feature settings, as in a target id `gfx906:sramecc+:xnack-`.
///
/// `None` for a feature means "any" (the code runs either way) or "not applicable". Code object
/// v2 only records xnack on; v3 cannot tell "on" from "any" (see [`target_from_e_flags`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TargetId {
    /// The processor name, e.g. `gfx900`.
    pub mach: String,
    /// `xnack+` is `Some(true)`, `xnack-` is `Some(false)`.
    pub xnack: Option<bool>,
    /// `sramecc+` is `Some(true)`, `sramecc-` is `Some(false)`.
    pub sramecc: Option<bool>,
}

impl TargetId {
    /// A processor with no feature settings.
    pub fn new(mach: impl Into<String>) -> TargetId {
        TargetId {
            mach: mach.into(),
            xnack: None,
            sramecc: None,
        }
    }

    /// Parses `gfx906`, `gfx906:sramecc+:xnack-`, and the v2 spelling `gfx900+xnack`.
    /// Unknown features are ignored; `None` if there is no `gfx` processor name.
    pub fn parse(text: &str) -> Option<TargetId> {
        let mut parts = text.split(':');
        let head = parts.next()?;
        let (mach, v2_features) = match head.find('+') {
            Some(i) => (&head[..i], &head[i..]),
            None => (head, ""),
        };
        if !mach.starts_with("gfx") || mach.len() < 4 {
            return None;
        }
        let mut id = TargetId::new(mach);
        for feature in v2_features.split('+').filter(|f| !f.is_empty()) {
            id.set_feature(feature, true);
        }
        for part in parts {
            let (name, on) = match part.strip_suffix('+') {
                Some(name) => (name, true),
                None => match part.strip_suffix('-') {
                    Some(name) => (name, false),
                    None => continue,
                },
            };
            id.set_feature(name, on);
        }
        Some(id)
    }

    fn set_feature(&mut self, name: &str, on: bool) {
        match name {
            "xnack" => self.xnack = Some(on),
            "sramecc" => self.sramecc = Some(on),
            _ => {}
        }
    }

    /// The target id a device of processor `target` runs as when nothing more is said: xnack
    /// off where the processor has the setting (ROCm runs with XNACK off unless `HSA_XNACK=1`),
    /// sramecc either way (`gfx90a:xnack-`, `gfx900:xnack-`).
    pub fn for_device(target: gcn_isa::Target) -> TargetId {
        let mut id = TargetId::new(target.name());
        if supports_xnack(target.name()) {
            id.xnack = Some(false);
        }
        id
    }

    /// Whether code built for `self` may run on a device configured as `device`: same processor,
    /// and each feature either unspecified on one side or equal.
    pub fn runs_on(&self, device: &TargetId) -> bool {
        self.specificity_for(device).is_some()
    }

    /// How closely code built for `self` fits a device asking for `request`: `None` if it cannot
    /// run there (another processor, or a feature set the other way), else how many features
    /// both name with the same setting. A bundle for `gfx90a:xnack-` fits a `gfx90a:xnack-`
    /// request better (1) than one for plain `gfx90a` (0), which runs with xnack either way.
    pub fn specificity_for(&self, request: &TargetId) -> Option<u8> {
        if self.mach != request.mach {
            return None;
        }
        let mut same = 0;
        for (offered, asked) in [(self.xnack, request.xnack), (self.sramecc, request.sramecc)] {
            match (offered, asked) {
                (Some(a), Some(b)) if a != b => return None,
                (Some(_), Some(_)) => same += 1,
                _ => {}
            }
        }
        Some(same)
    }

    /// The `gcn_isa` target for this processor, if the decoder supports it.
    pub fn isa_target(&self) -> Option<gcn_isa::Target> {
        gcn_isa::Target::from_name(&self.mach)
    }
}

impl fmt::Display for TargetId {
    /// The canonical target id: features in alphabetical order (`sramecc` before `xnack`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.mach)?;
        let sign = |on: bool| if on { '+' } else { '-' };
        if let Some(on) = self.sramecc {
            write!(f, ":sramecc{}", sign(on))?;
        }
        if let Some(on) = self.xnack {
            write!(f, ":xnack{}", sign(on))?;
        }
        Ok(())
    }
}

/// The code object version (2..=5) from e_ident's OS/ABI and ABI version bytes, or `None` when
/// they name no HSA code object version this loader knows.
pub fn code_object_version(os_abi: u8, abi_version: u8) -> Option<u8> {
    if os_abi != ELFOSABI_AMDGPU_HSA {
        return None;
    }
    // ELFABIVERSION_AMDGPU_HSA_V2 = 0, V3 = 1, V4 = 2, V5 = 3.
    match abi_version {
        0..=3 => Some(abi_version + 2),
        _ => None,
    }
}

/// The target named by e_flags for a code object of `version`; the processor is `None` when
/// EF_AMDGPU_MACH is 0 (old v2 objects name it in a note instead) or unknown.
pub fn target_from_e_flags(e_flags: u32, version: u8) -> (Option<&'static str>, TargetId) {
    let mach = mach_name(e_flags & EF_AMDGPU_MACH);
    let mut id = TargetId::new(mach.unwrap_or(""));
    match version {
        0..=2 => {
            if e_flags & EF_AMDGPU_XNACK_V2 != 0 {
                id.xnack = Some(true);
            }
        }
        3 => {
            // LLVM sets a v3 bit when the feature is on *or* "any", so a set bit leaves the
            // setting open; a clear bit means off, where the processor has the feature at all.
            let setting =
                |bit: u32, supported: bool| (e_flags & bit == 0 && supported).then_some(false);
            let name = mach.unwrap_or("");
            id.xnack = setting(EF_AMDGPU_XNACK_V3, supports_xnack(name));
            id.sramecc = setting(EF_AMDGPU_SRAMECC_V3, supports_sramecc(name));
        }
        _ => {
            // 0 = unsupported and 1 = any both leave the setting open; 2 = off; 3 = on.
            let setting = |field: u32| match field {
                2 => Some(false),
                3 => Some(true),
                _ => None,
            };
            id.xnack = setting((e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8);
            id.sramecc = setting((e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10);
        }
    }
    (mach, id)
}

/// Processors with an xnack setting (AMDGPUUsage's processor table, gfx8 to gfx10.1).
fn supports_xnack(mach: &str) -> bool {
    matches!(
        mach,
        "gfx801"
            | "gfx810"
            | "gfx900"
            | "gfx902"
            | "gfx904"
            | "gfx906"
            | "gfx908"
            | "gfx909"
            | "gfx90a"
            | "gfx90c"
            | "gfx940"
            | "gfx1010"
            | "gfx1011"
            | "gfx1012"
            | "gfx1013"
    )
}

/// Processors with an sramecc setting.
fn supports_sramecc(mach: &str) -> bool {
    matches!(mach, "gfx906" | "gfx908" | "gfx90a" | "gfx940")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_ids_parse_and_print_canonically() {
        let id = TargetId::parse("gfx906:xnack-:sramecc+").unwrap();
        assert_eq!(id.mach, "gfx906");
        assert_eq!((id.xnack, id.sramecc), (Some(false), Some(true)));
        assert_eq!(id.to_string(), "gfx906:sramecc+:xnack-");
        assert_eq!(TargetId::parse("gfx900+xnack").unwrap().xnack, Some(true));
        assert_eq!(TargetId::parse("gfx90c").unwrap().to_string(), "gfx90c");
        assert_eq!(TargetId::parse("x86_64"), None);
    }

    #[test]
    fn compatibility_treats_unspecified_as_any() {
        let any = TargetId::parse("gfx900").unwrap();
        let off = TargetId::parse("gfx900:xnack-").unwrap();
        let on = TargetId::parse("gfx900:xnack+").unwrap();
        assert!(off.runs_on(&any) && any.runs_on(&on));
        assert!(!off.runs_on(&on));
        assert!(!off.runs_on(&TargetId::parse("gfx906").unwrap()));
    }

    #[test]
    fn e_flags_settings_per_version() {
        // gfx906 with v4 fields: sramecc on (0xc00), xnack off (0x200).
        let (mach, id) = target_from_e_flags(0xe2f, 4);
        assert_eq!(mach, Some("gfx906"));
        assert_eq!(id.to_string(), "gfx906:sramecc+:xnack-");
        // v4 "any" (0x100) leaves xnack open.
        assert_eq!(target_from_e_flags(0x12c, 4).1.xnack, None);
        // v3 single bits: set is "on or any", clear is off where the feature exists.
        assert_eq!(target_from_e_flags(0x32f, 3).1.to_string(), "gfx906");
        assert_eq!(
            target_from_e_flags(0x02f, 3).1.to_string(),
            "gfx906:sramecc-:xnack-"
        );
        assert_eq!(target_from_e_flags(0x02c, 3).1.to_string(), "gfx900:xnack-");
        assert_eq!(target_from_e_flags(0x001, 2).1.xnack, Some(true));
    }

    #[test]
    fn cdna_settings_from_e_flags_and_bundle_ids() {
        // gfx908 (0x30) and gfx90a (0x3f), v4 and v5 fields: xnack off (0x200), sramecc any
        // (0x400) or on (0xc00).
        for version in [4, 5] {
            let (mach, id) = target_from_e_flags(0x630, version);
            assert_eq!(
                (mach, id.to_string().as_str()),
                (Some("gfx908"), "gfx908:xnack-")
            );
            assert_eq!(
                target_from_e_flags(0x63f, version).1.to_string(),
                "gfx90a:xnack-"
            );
            assert_eq!(
                target_from_e_flags(0xf3f, version).1.to_string(),
                "gfx90a:sramecc+:xnack+"
            );
        }
        // v3: a clear bit is off on both processors, which have both settings.
        assert_eq!(
            target_from_e_flags(0x03f, 3).1.to_string(),
            "gfx90a:sramecc-:xnack-"
        );
        assert_eq!(target_from_e_flags(0x23f, 3).1.to_string(), "gfx90a:xnack-");
        let id = TargetId::parse("gfx90a:sramecc+:xnack-").unwrap();
        assert_eq!((id.xnack, id.sramecc), (Some(false), Some(true)));
        assert_eq!(id.isa_target(), Some(gcn_isa::Target::Gfx90a));
    }

    #[test]
    fn specificity_counts_the_settings_both_name() {
        let request = TargetId::parse("gfx90a:sramecc+:xnack-").unwrap();
        let score = |offered: &str| TargetId::parse(offered).unwrap().specificity_for(&request);
        assert_eq!(score("gfx90a"), Some(0));
        assert_eq!(score("gfx90a:xnack-"), Some(1));
        assert_eq!(score("gfx90a:sramecc+:xnack-"), Some(2));
        assert_eq!(score("gfx90a:xnack+"), None);
        assert_eq!(score("gfx908:xnack-"), None);
    }

    #[test]
    fn os_abi_and_version() {
        assert_eq!(code_object_version(64, 0), Some(2));
        assert_eq!(code_object_version(64, 3), Some(5));
        assert_eq!(code_object_version(64, 4), None);
        assert_eq!(code_object_version(65, 0), None);
    }
}
