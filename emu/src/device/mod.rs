//! The embedding API: a [`Device`] with its memory, code objects loaded as [`Module`]s, and
//! kernel launches with typed [`Arg`]s. See the crate documentation for an example.
//!
//! This file holds the [`Device`] and its launch; beside it, by concern: `options` (device
//! and launch settings), `args` (kernel arguments), `module` (loading code objects), `stats`
//! (what a launch found), `error` (what can go wrong) and `report` (engine results put in the
//! kernel's terms). Everything public is re-exported here.

mod args;
mod error;
mod findings;
mod module;
mod options;
mod report;
mod stats;

pub use args::{describe_args, Arg};
pub use error::{Error, GuestError, GuestFault, LoopReport, WaveReport};
pub(crate) use module::enclosing_function;
pub use module::Module;
pub use options::{
    DeviceConfig, Dims, LaunchOptions, Progress, DEFAULT_MAX_INSTRUCTIONS, DEFAULT_TIMEOUT,
};
pub use stats::{HazardFinding, StaleReadFinding, Stats};

use args::kernarg_segment;
use options::check_dims;
use report::{guest_error, hazard_finding, stale_finding};

use crate::cu::profile::HostProfile;
use crate::cu::trace::Trace;
use crate::cu::{TimedError, TimedRun, TimingConfig, TimingStats};
use crate::dispatch::{self, Launch, DYNAMIC_STACK_BYTES};
use crate::exec::clock::Clock;
use crate::exec::DispatchEnv;
use crate::hostcall::host::{DeviceHostcall, Output as HostcallOutput};
use crate::launch::hazards::{Cover, HazardMode, Seen};
use crate::launch::host::HostServices;
use crate::launch::Counts;
use crate::lds::LDS_MAX;
use crate::memory::{AllocKind, Memory};
use crate::run;
use gcn_isa::Target;
use gcn_loader::{Kernel, KernelArg, ValueKind};
use std::time::Instant;

/// Private bytes per work-item gfx9's scratch setup can give (8 MiB per wave of 64).
const MAX_PRIVATE_BYTES: u32 = 128 << 10;

/// An emulated GPU.
pub struct Device {
    config: DeviceConfig,
    mem: Memory,
    dispatches: u64,
    /// Wave slots (each with a 64 KiB VGPR file) kept from one timed launch to the next.
    wave_pool: crate::cu::place::SlotPool,
    /// Device printf and malloc (ROCm hostcall), for kernels with `hidden_hostcall_buffer`.
    hostcall: Option<DeviceHostcall>,
    /// Sanitizer findings of the launches since the last [`Device::take_findings`].
    findings: Vec<crate::check::Finding>,
    /// The device malloc heap of code object v5 kernels, allocated at the first launch that
    /// names it (`hidden_heap_v1`).
    heap: Option<u64>,
}

/// Bytes of the device malloc heap (`hidden_heap_v1`): ockl's `heap_t` of the ROCm 5 device
/// libraries takes 100,872, rounded up.
const DEVICE_HEAP_BYTES: u64 = 128 * 1024;

impl Device {
    pub fn new(config: DeviceConfig) -> Device {
        Device {
            mem: Memory::with_placement(config.memory_limit, config.placement),
            config,
            dispatches: 0,
            wave_pool: Default::default(),
            hostcall: Some(DeviceHostcall::new(HostcallOutput::default())),
            findings: Vec::new(),
            heap: None,
        }
    }

    /// Runs the sanitizers of `set` (`--check`) on every launch and on the memory allocated
    /// from now on (call it before allocating).
    pub fn enable_checks(&mut self, set: crate::check::CheckSet) {
        self.mem.enable_checks(set);
    }

    /// The sanitizer findings of the launches so far (failed ones too), merged per kernel and
    /// instruction; taking them starts a new list.
    pub fn take_findings(&mut self) -> Vec<crate::check::Finding> {
        std::mem::take(&mut self.findings)
    }

    /// Sends device printf text elsewhere than the process's stdout and stderr.
    pub fn set_printf_output(&mut self, output: HostcallOutput) {
        if let Some(h) = &mut self.hostcall {
            h.output = output;
        }
    }

    /// What kind of GPU this is.
    pub fn config(&self) -> &DeviceConfig {
        &self.config
    }

    pub fn target(&self) -> Target {
        self.config.target
    }

    /// Allocates `len` zeroed bytes of device memory; returns the device address.
    pub fn alloc(&mut self, len: u64) -> Result<u64, Error> {
        Ok(self.mem.alloc(len, AllocKind::Buffer)?)
    }

    pub fn free(&mut self, addr: u64) -> Result<(), Error> {
        Ok(self.mem.free(addr)?)
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Error> {
        Ok(self.mem.write(addr, data)?)
    }

    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, Error> {
        Ok(self.mem.bytes(addr, len)?.to_vec())
    }

    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// The memory itself, for embedders that manage it (the HIP runtime registers host memory).
    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.mem
    }

    /// Releases a module's device memory. Its kernels cannot be launched afterwards.
    pub fn unload(&mut self, module: &Module) -> Result<(), Error> {
        Ok(self.mem.free(module.load_base)?)
    }

    /// Runs `kernel` over the grid and returns statistics; the kernel's buffers hold its results.
    pub fn launch(
        &mut self,
        module: &Module,
        kernel: &str,
        dims: Dims,
        args: &[Arg],
        opts: &LaunchOptions,
    ) -> Result<Stats, Error> {
        let start = Instant::now();
        // The kernel as its source names it, for the errors below (worked out only for them).
        let shown = || crate::symbol::demangle(kernel);
        let k = module.kernel(kernel).ok_or_else(|| Error::NoKernel {
            name: kernel.to_string(),
            file: module.object.file.clone(),
            available: crate::symbol::name_list(
                module.object.kernels.iter().map(|k| k.name.as_str()),
                &module.object.file,
            ),
        })?;
        check_dims(&dims)?;
        tracing::info!(kernel, grid = ?dims.grid, block = ?dims.block, timing = opts.timing.is_some(), "launch");
        let desc = &k.descriptor;
        if desc.kernel_code_properties.enable_wavefront_size32 {
            return Err(Error::Launch("wave32 kernels are not gfx9 code".into()));
        }
        let lds_size = desc.group_segment_fixed_size as u64 + opts.dynamic_lds as u64;
        if lds_size > LDS_MAX as u64 {
            return Err(Error::Launch(format!(
                "kernel `{}` needs {lds_size} bytes of LDS ({} static + {} dynamic); a workgroup may have {LDS_MAX}",
                shown(), desc.group_segment_fixed_size, opts.dynamic_lds
            )));
        }
        // A kernel that preloads arguments starts 256 bytes in: the bytes before are the
        // loads that firmware without preloading runs (AMDGPUUsage, "Preloaded Kernel
        // Arguments").
        let preloads = desc.kernarg_preload & 0x7f != 0;
        let entry = module.load_base + k.entry + if preloads { 256 } else { 0 };
        let entry_index = module
            .program
            .index_of_pc(entry)
            .ok_or_else(|| Error::Module {
                file: module.object.file.clone(),
                problem: format!(
                    "kernel `{}` entry {:#x}{} is not in .text",
                    shown(),
                    k.entry,
                    if preloads {
                        " + 256 (it preloads kernel arguments)"
                    } else {
                        ""
                    }
                ),
            })?;

        // Kernarg segment, explicit arguments first; the hidden ones once the launch is laid out.
        let meta_args: &[KernelArg] = k.meta.as_ref().map_or(&[], |m| &m.args);
        let mut seg = kernarg_segment(kernel, k, args)?;
        let kernarg_size = seg.len() as u64;

        // Private segment and its scratch backing for one workgroup's waves.
        let mut private_size = desc.private_segment_fixed_size;
        if desc.kernel_code_properties.uses_dynamic_stack {
            private_size = private_size.saturating_add(DYNAMIC_STACK_BYTES);
        }
        // COMPUTE_TMPRING_SIZE.WAVESIZE is 13 bits of 1 KiB: at most 8 MiB of scratch per wave,
        // 128 KiB per work-item; a descriptor asking for more is broken, and must not overflow.
        if private_size > MAX_PRIVATE_BYTES {
            return Err(Error::Launch(format!(
                "kernel `{}` asks for {private_size} bytes of private memory per work-item; gfx9 scratch allows at most {MAX_PRIVATE_BYTES}",
                shown()
            )));
        }
        let private_size = private_size.next_multiple_of(4);
        let scratch_per_wave = (private_size as u64 * 64).next_multiple_of(1024);
        let mut launch = Launch {
            grid: dims.grid,
            block: dims.block,
            dispatch_id: self.dispatches,
            packet: 0,
            queue: 0,
            kernarg: 0,
            scratch_base: 0,
            private_size,
            scratch_per_wave,
            lds_size: lds_size as u32,
            hostcall_buffer: 0,
            heap: 0,
            packed_tid: self.config.target.features().packed_tid,
            architected_flat_scratch: self.config.target.features().architected_flat_scratch,
            preload: dispatch::Preload::default(),
        };
        let waves_per_group = launch.waves_per_group();
        let total_groups = dims.grid.iter().map(|&g| g as u64).product::<u64>();
        let workers = self.functional_workers(opts, dims);
        tracing::debug!(threads = workers, "workgroups run on");
        let _ = self.mem.take_padding_accesses();
        let mut temp = Vec::new();
        // Taken out for the dispatch, so that the engines can poll it beside the memory.
        let mut hostcall = self.hostcall.take();
        let result = (|| {
            let mut alloc = |mem: &mut Memory, len: u64, kind| -> Result<u64, Error> {
                let a = mem.alloc(len, kind)?;
                temp.push(a);
                Ok(a)
            };
            // Scalar loads fetch whole dwordx2/x4/x8 groups and may read past the last argument,
            // as on hardware, where the kernarg buffer is padded: pad by one 64-byte line.
            let padded = kernarg_size.next_multiple_of(64) + 64;
            launch.kernarg = alloc(&mut self.mem, padded, AllocKind::Kernarg)?;
            launch.packet = alloc(&mut self.mem, 64, AllocKind::DispatchPacket)?;
            launch.queue = alloc(&mut self.mem, 256, AllocKind::Queue)?;
            // The timing model gives each resident workgroup its own scratch; the functional
            // engine one per worker thread.
            // A cooperative dispatch has every workgroup resident: one each.
            let resident = match opts.cooperative {
                true => total_groups,
                false => workers as u64,
            };
            if scratch_per_wave > 0 && opts.timing.is_none() {
                launch.scratch_base = alloc(
                    &mut self.mem,
                    scratch_per_wave * waves_per_group as u64 * resident,
                    AllocKind::Scratch,
                )?;
            }
            if meta_args
                .iter()
                .any(|a| a.value_kind == ValueKind::HiddenHostcallBuffer)
            {
                // Every wave that can be resident at once may hold a packet.
                let waves = match &opts.timing {
                    Some(t) => {
                        let cus = match t.cus {
                            0 => crate::cu::config::default_cus(self.config.target),
                            n => n,
                        };
                        cus * crate::cu::occupancy::SIMDS as u32
                            * crate::cu::occupancy::WAVES_PER_SIMD
                    }
                    // Each worker thread has one workgroup resident (all, if cooperative).
                    None => (waves_per_group as u64 * resident).min(u32::MAX as u64) as u32,
                };
                if let Some(h) = &mut hostcall {
                    launch.hostcall_buffer = h.buffer_for(&mut self.mem, waves)?;
                }
            }
            if meta_args
                .iter()
                .any(|a| a.value_kind == ValueKind::HiddenHeapV1)
            {
                launch.heap = match self.heap {
                    Some(h) => h,
                    None => {
                        // ockl's heap_t of the ROCm 5 device libraries (100,872 bytes), zeroed:
                        // its slabs come from the host by hostcall, as for code object v4.
                        let h = self.mem.alloc(DEVICE_HEAP_BYTES, AllocKind::DeviceHeap)?;
                        self.heap = Some(h);
                        h
                    }
                };
            }
            dispatch::write_hidden_args(&mut seg, meta_args, &launch, opts.dynamic_lds);
            dispatch::write_multigrid_sync(&mut seg, meta_args, opts.multigrid_sync);
            launch.preload =
                dispatch::Preload::of(desc.kernarg_preload, &seg).ok_or_else(|| {
                    Error::Launch(format!(
                        "kernel `{}` preloads {} kernel argument dwords; the user SGPRs hold 16",
                        shown(),
                        desc.kernarg_preload & 0x7f
                    ))
                })?;
            self.mem.write(launch.kernarg, &seg)?;
            let packet =
                dispatch::dispatch_packet(&launch, module.load_base + k.descriptor_address);
            self.mem.write(launch.packet, &packet)?;
            let host = match &mut hostcall {
                Some(h) if launch.hostcall_buffer != 0 => Some(h as &mut (dyn HostServices + Send)),
                _ => None,
            };
            match &opts.timing {
                Some(t) => {
                    self.execute_timed(module, k, kernel, entry_index, &launch, opts, t, host)
                }
                None => self
                    .execute(module, k, kernel, entry_index, &launch, opts, host, workers)
                    .map(|(c, seen)| (c, seen, None)),
            }
        })();
        self.hostcall = hostcall;
        let mut dropped_faults = 0;
        if let Some(c) = self.mem.check_state() {
            dropped_faults = std::mem::take(&mut c.would_fault);
            let records = c.findings.take();
            let found = findings::findings(module, k, records);
            crate::check::report::merge(&mut self.findings, found);
        }
        let (padding_accesses, first_padding_access) = self.mem.take_padding_accesses();
        for a in temp {
            let _ = self.mem.free(a);
        }
        self.dispatches += 1;
        let (counts, seen, timed) = result?;
        let total = dims.grid.iter().map(|&g| g as u64).product::<u64>();
        let hazards = seen.iter().map(|s| hazard_finding(module, k, s)).collect();
        let elapsed = start.elapsed();
        let (timing, trace, host_profile) = match timed {
            Some((mut t, trace, profile)) => {
                t.cycles_per_second = t.cycles as f64 / elapsed.as_secs_f64().max(1e-9);
                (Some(t), trace.map(std::sync::Arc::new), profile)
            }
            None => (None, None, None),
        };
        let stale_reads = timing
            .as_ref()
            .map(|t| {
                t.stale_reads
                    .iter()
                    .map(|r| stale_finding(module, k, r))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Stats {
            kernel: kernel.to_string(),
            workgroups: total,
            waves: total * waves_per_group as u64,
            wave_instructions: counts.wave_instructions,
            by_category: crate::launch::CATEGORIES
                .iter()
                .zip(counts.by_category)
                .map(|(c, n)| (crate::launch::category_name(*c), n))
                .collect(),
            elapsed,
            hazard_mode: opts.hazards,
            hazards,
            timing,
            stale_reads,
            trace,
            host_profile,
            padding_accesses,
            first_padding_access,
            dropped_faults,
        })
    }

    /// Threads a functional launch of `dims` runs on: `opts.threads` (0: every core), at most
    /// one per workgroup, and one when sanitizers run (their state is one thread's).
    fn functional_workers(&self, opts: &LaunchOptions, dims: Dims) -> usize {
        if opts.timing.is_some() || self.mem.checking() {
            return 1;
        }
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let groups = dims.grid.iter().map(|&g| g as u64).product::<u64>();
        threads.min(groups.min(1024) as usize).max(1)
    }

    /// Runs the workgroups under the compute-unit model, several CUs and workgroups at once.
    #[allow(clippy::too_many_arguments)]
    fn execute_timed(
        &mut self,
        module: &Module,
        k: &Kernel,
        kernel: &str,
        entry_index: u32,
        launch: &Launch,
        opts: &LaunchOptions,
        timing: &TimingConfig,
        host: Option<&mut (dyn HostServices + Send)>,
    ) -> Result<Timed, Error> {
        let mut config = timing.clone();
        if config.cus == 0 {
            config.cus = crate::cu::config::default_cus(self.config.target);
        }
        let table = module.hazard_table();
        let cover = module.hazard_cover(k);
        let run = TimedRun {
            program: &module.program,
            facts: module.timing_facts(),
            models: table,
            leaves: match &cover {
                Cover::UntilLeaving(l) => Some(&**l),
                _ => None,
            },
            desc: &k.descriptor,
            launch,
            env: dispatch_env(module.program.target, k, launch, opts, 1, None),
            config: &config,
            ahead_code: match config.ahead {
                true => module.ahead_region(entry_index, opts.compile),
                false => None,
            },
            entry_index,
            progress: opts
                .progress
                .as_deref()
                .map(|p| p as crate::launch::Progress),
            deadline: opts.timeout.map(|t| Instant::now() + t),
            cooperative: opts.cooperative,
        };
        let limit = opts.max_instructions.unwrap_or(u64::MAX);
        let mut budget = limit;
        let mut counts = Counts::default();
        match crate::cu::run_timed(
            &run,
            &mut self.mem,
            &mut budget,
            &mut counts,
            // A kernel no run can show a hazard in needs no tracker.
            match cover {
                Cover::Clean => HazardMode::Off,
                _ => opts.hazards,
            },
            &mut self.wave_pool,
            host,
        ) {
            Ok(r) => Ok((counts, r.hazards, Some((r.stats, r.trace, r.profile)))),
            Err(TimedError::Guest(stop, group)) => {
                Err(guest_error(module, k, kernel, group, stop, opts))
            }
            Err(TimedError::Launch(why)) => Err(Error::Launch(format!(
                "kernel `{}`: {why}",
                crate::symbol::demangle(kernel)
            ))),
        }
    }

    /// Runs the workgroups functionally: in dispatch order on one thread, or on `workers`
    /// threads ([`crate::run::groups`]).
    #[allow(clippy::too_many_arguments)]
    fn execute(
        &mut self,
        module: &Module,
        k: &Kernel,
        kernel: &str,
        entry_index: u32,
        launch: &Launch,
        opts: &LaunchOptions,
        host: Option<&mut (dyn HostServices + Send)>,
        workers: usize,
    ) -> Result<(Counts, Vec<Seen>), Error> {
        let progress = opts
            .progress
            .as_deref()
            .map(|p| p as crate::launch::Progress);
        let cover = module.hazard_cover(k);
        let demand = crate::cu::occupancy::Demand::new(&k.descriptor, module.program.target, 1, 0);
        let dispatch = run::groups::Dispatch {
            program: &module.program,
            desc: &k.descriptor,
            launch,
            env: dispatch_env(
                module.program.target,
                k,
                launch,
                opts,
                workers,
                module.hot_region(entry_index, opts.compile),
            ),
            entry_index,
            regs: demand.file,
            hazards: match (opts.hazards, &cover) {
                (HazardMode::Off, _) | (_, Cover::Clean) => None,
                (mode, Cover::UntilLeaving(leaves)) => {
                    Some((mode, module.hazard_table(), Some(&**leaves)))
                }
                (mode, Cover::Full) => Some((mode, module.hazard_table(), None)),
            },
            deadline: opts.timeout.map(|t| Instant::now() + t),
            progress,
            cooperative: opts.cooperative,
        };
        let budget = opts.max_instructions.unwrap_or(u64::MAX);
        let out = if workers > 1 {
            dispatch.run_parallel(&mut self.mem, budget, workers, host)
        } else {
            dispatch.run(
                &mut self.mem,
                budget,
                host.map(|h| h as &mut dyn HostServices),
            )
        };
        match out.result {
            Ok(()) => Ok((out.counts, out.hazards)),
            Err((group, stop)) => Err(guest_error(module, k, kernel, group, stop, opts)),
        }
    }
}

/// What the semantics need to know of a launch: the private segment size, the registers each
/// wave is allocated (as the hardware rounds them) and the clock its s_memtime reads. `workers`
/// are the host threads running its workgroups; `compiled`, the kernel's code compiled once
/// hot, for the functional engine.
fn dispatch_env(
    target: Target,
    k: &Kernel,
    launch: &Launch,
    opts: &LaunchOptions,
    workers: usize,
    compiled: Option<std::sync::Arc<crate::exec::compiled::HotRegion>>,
) -> DispatchEnv {
    let demand = crate::cu::occupancy::Demand::new(&k.descriptor, target, 1, 0);
    let b = crate::board::board(target);
    DispatchEnv {
        private_size: launch.private_size,
        vgprs: demand.vgprs,
        sgprs: demand.sgprs,
        vgpr_granule: target.features().vgpr_granule as u32,
        spin_limit: opts.spin_limit,
        xcds: b.xcds,
        clock: match opts.host_clock && opts.timing.is_none() {
            true => Clock::host(
                b.clock_khz as u64 * 1000,
                resident_groups(target, k, launch) / workers.max(1) as u64,
            ),
            false => Clock::Instructions,
        },
        compiled,
    }
}

/// Workgroups of `launch` the device holds at once: as many as its CUs have room for, or the
/// whole grid if smaller.
fn resident_groups(target: Target, k: &Kernel, launch: &Launch) -> u64 {
    let groups: u64 = launch.grid.iter().map(|&g| g as u64).product();
    let waves = launch.waves_per_group();
    let demand = crate::cu::occupancy::Demand::new(&k.descriptor, target, waves, launch.lds_size);
    let per_cu = crate::cu::occupancy::occupancy(&demand).map_or(1, |o| o.workgroups_per_cu);
    let cus = crate::board::board(target).compute_units as u64;
    groups.min(cus * per_cu as u64)
}

/// What a launch's execution returns: counts, hazards seen, and the timing model's results.
type Timed = (
    Counts,
    Vec<Seen>,
    Option<(TimingStats, Option<Trace>, Option<HostProfile>)>,
);
