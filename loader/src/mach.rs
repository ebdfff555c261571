//! `EF_AMDGPU_MACH`: the processor field of an AMDGPU ELF header's e_flags (code object v3 and
//! later; LLVM `BinaryFormat/ELF.h`).

/// Mask of the processor field in e_flags.
pub const EF_AMDGPU_MACH: u32 = 0xff;

/// The processor name for an `EF_AMDGPU_MACH` value, for the values this project meets.
pub fn mach_name(mach: u32) -> Option<&'static str> {
    Some(match mach {
        0x028 => "gfx801",
        0x029 => "gfx802",
        0x02a => "gfx803",
        0x02b => "gfx810",
        0x02c => "gfx900",
        0x02d => "gfx902",
        0x02e => "gfx904",
        0x02f => "gfx906",
        0x030 => "gfx908",
        0x031 => "gfx909",
        0x032 => "gfx90c",
        0x033 => "gfx1010",
        0x034 => "gfx1011",
        0x035 => "gfx1012",
        0x036 => "gfx1030",
        0x03f => "gfx90a",
        0x040 => "gfx940",
        0x04b => "gfx941",
        0x04c => "gfx942",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gfx9_target_has_its_mach_value() {
        for (mach, name) in [
            (0x2c, "gfx900"),
            (0x2d, "gfx902"),
            (0x2e, "gfx904"),
            (0x2f, "gfx906"),
            (0x30, "gfx908"),
            (0x31, "gfx909"),
            (0x32, "gfx90c"),
            (0x3f, "gfx90a"),
            (0x40, "gfx940"),
            (0x4c, "gfx942"),
        ] {
            assert_eq!(mach_name(mach), Some(name));
            assert!(gcn_isa::Target::from_name(name).is_some(), "{name}");
        }
        assert_eq!(mach_name(0), None);
    }
}
