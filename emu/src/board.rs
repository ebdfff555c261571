//! The boards the targets stand for: one row per target, read by the timing model (its default
//! count of CUs) and by the HIP runtime (device properties and name).
//!
//! Figures are the vendors' published specifications of the board named in each row: compute
//! units, peak engine clock, memory clock, memory bus width, memory size and L2 size.

use gcn_isa::Target;

/// A GPU board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    pub name: &'static str,
    pub compute_units: u32,
    /// Peak engine clock, kHz.
    pub clock_khz: u32,
    /// Memory clock, kHz.
    pub memory_clock_khz: u32,
    /// Memory bus width, bits.
    pub bus_width: u32,
    pub memory_bytes: u64,
    pub l2_bytes: u32,
    /// `gcnArch` as HIP reports it (the processor number).
    pub gcn_arch: u32,
    /// The target-id features the board runs with by default (`rocminfo`'s ISA name):
    /// SRAM ECC on the Instinct boards, XNACK (page-fault retry) off everywhere.
    pub sramecc: Option<bool>,
    /// Accelerator complex dies (XCDs), each with its own L2, that workgroups are dealt to in
    /// turn: MI300A has 6, MI300X 8, the others one die.
    pub xcds: u32,
}

const GIB: u64 = 1 << 30;
const MIB: u32 = 1 << 20;

/// The board of `target`.
pub const fn board(target: Target) -> Board {
    match target {
        Target::Gfx900 => Board {
            name: "Radeon RX Vega 64 (gcnemu)",
            compute_units: 64,
            clock_khz: 1_630_000,
            memory_clock_khz: 945_000,
            bus_width: 2048,
            memory_bytes: 8 * GIB,
            l2_bytes: 4 * MIB,
            gcn_arch: 900,
            sramecc: None,
            xcds: 1,
        },
        // Raven Ridge APU (Ryzen 5 2400G, Radeon Vega 11): system memory, DDR4-2933 dual channel.
        Target::Gfx902 => Board {
            name: "Radeon Vega 11 Graphics (gcnemu)",
            compute_units: 11,
            clock_khz: 1_250_000,
            memory_clock_khz: 1_467_000,
            bus_width: 128,
            memory_bytes: 2 * GIB,
            l2_bytes: MIB,
            gcn_arch: 902,
            sramecc: None,
            xcds: 1,
        },
        // Vega 12 (Radeon Pro Vega 20).
        Target::Gfx904 => Board {
            name: "Radeon Pro Vega 20 (gcnemu)",
            compute_units: 20,
            clock_khz: 1_283_000,
            memory_clock_khz: 740_000,
            bus_width: 1024,
            memory_bytes: 4 * GIB,
            l2_bytes: MIB,
            gcn_arch: 904,
            sramecc: None,
            xcds: 1,
        },
        Target::Gfx906 => Board {
            name: "Radeon Instinct MI50 (gcnemu)",
            compute_units: 60,
            clock_khz: 1_725_000,
            memory_clock_khz: 1_000_000,
            bus_width: 4096,
            memory_bytes: 16 * GIB,
            l2_bytes: 4 * MIB,
            gcn_arch: 906,
            sramecc: Some(false),
            xcds: 1,
        },
        Target::Gfx908 => Board {
            name: "AMD Instinct MI100 (gcnemu)",
            compute_units: 120,
            clock_khz: 1_502_000,
            memory_clock_khz: 1_200_000,
            bus_width: 4096,
            memory_bytes: 32 * GIB,
            l2_bytes: 8 * MIB,
            gcn_arch: 908,
            sramecc: Some(true),
            xcds: 1,
        },
        // Raven 2 APU (Athlon 3000G, Radeon Vega 3): system memory, DDR4-2666 dual channel.
        Target::Gfx909 => Board {
            name: "Radeon Vega 3 Graphics (gcnemu)",
            compute_units: 3,
            clock_khz: 1_100_000,
            memory_clock_khz: 1_333_000,
            bus_width: 128,
            memory_bytes: 2 * GIB,
            l2_bytes: MIB / 2,
            gcn_arch: 909,
            sramecc: None,
            xcds: 1,
        },
        Target::Gfx90a => Board {
            name: "AMD Instinct MI210 (gcnemu)",
            compute_units: 104,
            clock_khz: 1_700_000,
            memory_clock_khz: 1_600_000,
            bus_width: 4096,
            memory_bytes: 64 * GIB,
            l2_bytes: 8 * MIB,
            gcn_arch: 910,
            sramecc: Some(true),
            xcds: 1,
        },
        // Renoir APU (Ryzen 7 4800U, Radeon Vega 8): system memory, LPDDR4X-4266.
        Target::Gfx90c => Board {
            name: "Radeon Vega 8 Graphics (gcnemu)",
            compute_units: 8,
            clock_khz: 1_750_000,
            memory_clock_khz: 2_133_000,
            bus_width: 128,
            memory_bytes: 2 * GIB,
            l2_bytes: MIB,
            gcn_arch: 912,
            sramecc: None,
            xcds: 1,
        },
        // gfx940 is the MI300 series' first processor id (the APU's early parts; production
        // MI300A reports gfx942): MI300A, six XCDs of 38 CUs, HBM3 shared with the CPUs.
        Target::Gfx940 => Board {
            name: "AMD Instinct MI300A (gcnemu)",
            compute_units: 228,
            clock_khz: 2_100_000,
            memory_clock_khz: 2_600_000,
            bus_width: 8192,
            memory_bytes: 128 * GIB,
            l2_bytes: 6 * 4 * MIB,
            gcn_arch: 940,
            sramecc: Some(true),
            xcds: 6,
        },
        // MI300X: eight XCDs of 38 CUs, each with its own 4 MiB L2.
        Target::Gfx942 => Board {
            name: "AMD Instinct MI300X (gcnemu)",
            compute_units: 304,
            clock_khz: 2_100_000,
            memory_clock_khz: 2_600_000,
            bus_width: 8192,
            memory_bytes: 192 * GIB,
            l2_bytes: 8 * 4 * MIB,
            gcn_arch: 942,
            sramecc: Some(true),
            xcds: 8,
        },
    }
}

/// The ISA name HIP reports (`gcnArchName`): the processor, the board's SRAM ECC setting and the
/// device's XNACK setting.
pub fn arch_name(target: Target, xnack: bool) -> String {
    let xnack = if xnack { '+' } else { '-' };
    match board(target).sramecc {
        Some(on) => format!(
            "{target}:sramecc{}:xnack{xnack}",
            if on { '+' } else { '-' }
        ),
        None => format!("{target}:xnack{xnack}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_a_board_of_its_own() {
        let names: std::collections::HashSet<_> =
            Target::ALL.iter().map(|&t| board(t).name).collect();
        assert_eq!(names.len(), Target::ALL.len());
        assert_eq!(board(Target::Gfx908).compute_units, 120);
        assert_eq!(board(Target::Gfx90a).compute_units, 104);
        assert_eq!(arch_name(Target::Gfx90a, false), "gfx90a:sramecc+:xnack-");
        assert_eq!(arch_name(Target::Gfx90a, true), "gfx90a:sramecc+:xnack+");
        assert_eq!(arch_name(Target::Gfx900, false), "gfx900:xnack-");
        assert_eq!(arch_name(Target::Gfx906, false), "gfx906:sramecc-:xnack-");
    }
}
