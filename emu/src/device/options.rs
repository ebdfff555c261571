//! How a device and a launch are set up: [`DeviceConfig`], [`Dims`], [`LaunchOptions`] and
//! their defaults, and the checks a grid must pass before it runs.

use crate::cu::TimingConfig;
use crate::launch::hazards::HazardMode;
use crate::memory::{Placement, DEFAULT_MEMORY_LIMIT};
use crate::wave::spin::DEFAULT_SPIN_LIMIT;
use gcn_isa::Target;
use std::sync::Arc;
use std::time::Duration;

use super::Error;

/// What kind of GPU the device is.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// The processor; `load` picks the code object built for it.
    pub target: Target,
    /// Cap on device memory (host memory backs it).
    pub memory_limit: u64,
    /// Where allocations live: deterministic device addresses, or at their host addresses so
    /// that host and kernels share pointers (the HIP runtime).
    pub placement: Placement,
    /// The device runs with XNACK (page-fault retry) on, as `gfx90a:xnack+` says: `load` takes
    /// the code objects built for `xnack+` (or either), rather than ROCm's default `xnack-`.
    pub xnack: bool,
}

impl DeviceConfig {
    /// The target id the device asks a fat binary for ([`gcn_loader::pick`]'s request).
    pub fn target_id(&self) -> gcn_loader::TargetId {
        let mut id = gcn_loader::TargetId::for_device(self.target);
        if id.xnack.is_some() {
            id.xnack = Some(self.xnack);
        }
        id
    }
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            target: Target::Gfx900,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            placement: Placement::Sparse,
            xnack: false,
        }
    }
}

/// Grid size in workgroups (HIP's gridDim) and workgroup size in work-items (blockDim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// Called after each workgroup with (workgroups done, workgroups in total).
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// Options of one launch.
#[derive(Clone)]
pub struct LaunchOptions {
    /// Dynamic LDS bytes per workgroup, on top of the kernel's static LDS.
    pub dynamic_lds: u32,
    /// Wave-instruction budget; running out is a guest error. `None`: unlimited.
    pub max_instructions: Option<u64>,
    pub progress: Option<Progress>,
    /// Check every issued instruction against the hazard rules: `Warn` (the default) collects
    /// findings into [`Stats::hazards`](super::Stats::hazards), `Error` ends the dispatch at the
    /// first one.
    pub hazards: HazardMode,
    /// The cycle-level compute-unit model ([`crate::cu`]); `None` runs functionally only
    /// (fastest; workgroups one after another, memory completing at issue). A `cus` of 0
    /// means the target's own CU count.
    pub timing: Option<TimingConfig>,
    /// Wall-clock limit of the launch; running past it is a guest error reporting where every
    /// wave is. `None`: no limit.
    pub timeout: Option<Duration>,
    /// The spin detector ([`crate::wave::spin`]): write-free iterations of one loop before a
    /// wave's state is compared; a launch whose waves all spin (or wait at a barrier for the
    /// spinning ones) ends as a livelock. 0 turns it off.
    pub spin_limit: u32,
    /// Host threads of the functional engine (`timing: None`): workgroups run on this many
    /// at once ([`crate::run::groups`] says what that changes); 0 means every core. Launches
    /// with sanitizers or a hostcall buffer (device printf) run on one.
    pub threads: usize,
    /// A cooperative launch (`hipLaunchCooperativeKernel`): every workgroup of the grid is
    /// resident at once, so workgroups may wait for each other (grid-wide `sync()`). The
    /// functional engine then runs the workgroups in turn, each until its waves wait
    /// ([`crate::run::coresident`]); the timing model needs the grid to fit the device.
    pub cooperative: bool,
    /// The value of the kernel's `hidden_multigrid_sync_arg`: 0 for a plain launch, 1 for a
    /// cooperative one (its grid is valid), or the device address of the multi-grid sync
    /// information of a multi-device launch.
    pub multigrid_sync: u64,
    /// s_memtime and s_memrealtime follow the host's clock at the board's rates
    /// ([`crate::exec::clock`]) instead of counting the wave's instructions. Functional engine
    /// only: the timing model's clocks stay deterministic.
    pub host_clock: bool,
    /// When the functional engine compiles the kernel's code ([`crate::exec::compiled`]);
    /// results are the same either way.
    pub compile: crate::exec::compiled::Compile,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            dynamic_lds: 0,
            max_instructions: Some(DEFAULT_MAX_INSTRUCTIONS),
            progress: None,
            hazards: HazardMode::default(),
            timing: Some(TimingConfig {
                cus: 0,
                ..TimingConfig::for_target(Target::Gfx900)
            }),
            timeout: Some(DEFAULT_TIMEOUT),
            spin_limit: DEFAULT_SPIN_LIMIT,
            threads: 0,
            cooperative: false,
            multigrid_sync: 0,
            host_clock: false,
            compile: Default::default(),
        }
    }
}

/// Default wall-clock limit of one launch: far beyond any test or library kernel (the slowest
/// take seconds), short enough that a kernel spinning forever ends with a report.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Default wave-instruction budget of a launch: minutes of emulation, so a runaway kernel ends.
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 20_000_000_000;

/// Rejects grids and blocks the hardware cannot dispatch: an empty dimension, a workgroup past
/// 1024 work-items, a dimension past 2^32 work-items.
pub(super) fn check_dims(d: &Dims) -> Result<(), Error> {
    if d.grid.contains(&0) || d.block.contains(&0) {
        return Err(Error::Launch(format!(
            "grid {:?} and block {:?} must be at least 1 in every dimension",
            d.grid, d.block
        )));
    }
    let items: u64 = d.block.iter().map(|&b| b as u64).product();
    if items > 1024 {
        return Err(Error::Launch(format!(
            "a workgroup of {items} work-items is larger than gfx9's 1024"
        )));
    }
    for i in 0..3 {
        if d.grid[i] as u64 * d.block[i] as u64 > u32::MAX as u64 {
            return Err(Error::Launch(format!(
                "grid dimension {i}: {} x {} work-items exceeds 2^32",
                d.grid[i], d.block[i]
            )));
        }
    }
    Ok(())
}
