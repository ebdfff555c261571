//! The runtime's state: the emulated devices (one `gcnemu::Device` whose address space they
//! share, see [`crate::devices`]), the code objects the program registered or loaded (once per
//! device that uses them), its allocations, streams and events, the work queued on the streams,
//! and what its kernels did.
//!
//! Every API call takes the one lock ([`with`], [`guard`]), so calls from several host threads
//! are serialised. Work runs asynchronously, as on a GPU: a kernel, copy, fill, event record,
//! stream wait, host function or graph launch is queued ([`Runtime::held`], in enqueuing order,
//! each entry naming its stream) and the call returns. One executor thread (`api::stream_ops`)
//! runs the queue one operation at a time: among the entries whose stream has nothing queued
//! before them (the null stream waiting for every blocking stream and they for it, as HIP
//! defines; `hipStreamNonBlocking` streams exempt) and whose wait holds, the one enqueued
//! first. So kernels run one at a time, each stream's work in order, and for a program that
//! synchronises correctly in the same order every run, which keeps results, statistics and
//! `--stats` output deterministic.
//!
//! A kernel runs without the lock: the executor borrows the device ([`DeviceSlot::lend`]) and
//! the module (an `Arc`), so `hipStreamQuery` and `hipEventQuery` answer `hipErrorNotReady`
//! meanwhile. A call that reaches for the device while it is lent (an allocation, a module
//! load, a copy's checks) waits for the kernel to end. Calls are of three kinds
//! (`api::CallKind`): those that enqueue and return; queries that neither wait nor enqueue; and
//! the rest, synchronous with the host, which wait before and after until the executor has run
//! all it can (`hipMemcpy`, `hipMemset`, `hipFree`'s implicit device synchronisation, module
//! load and unload ...). The synchronising calls wait on [`CHANGED`]. `HIP_LAUNCH_BLOCKING=1`
//! makes every enqueuing call wait too: work is complete when the call that enqueues it returns.
//!
//! A kernel's failure is held back until the next synchronising call, as on a GPU; a queued
//! operation that fails when it runs is reported on stderr and held the same way, and the
//! queue goes on. At exit the queue is drained first, then the statistics ([`crate::stats`])
//! and the sanitizers' report ([`crate::checks`]) are written from the state left here.

use crate::allocation::{AllocClass, AllocInfo};
use crate::checks::{self, CheckState};
use crate::error::{self, *};
use crate::graph::{Graphs, NodeKind};
use crate::mempool::{Pool, PoolId};
use crate::stats::{self, KernelStats};
use crate::types::*;
use gcnemu::board::board;
use gcnemu::memory::{AllocKind, Placement};
use gcnemu::settings::Settings;
use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions, Module};
use std::collections::HashMap;
use std::ffi::c_void;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A `.hip_fatbin` bundle a translation unit registered; its code object is loaded at first use.
pub(crate) struct Fatbin {
    /// The bundle's bytes, from its start to the end of the mapped segment that holds it.
    pub(crate) image: &'static [u8],
    /// Which file it came from, for messages.
    pub(crate) origin: String,
    /// Per device: its code object, once loaded (or why it could not be).
    pub(crate) module: Vec<Option<Result<ModuleId, String>>>,
}

pub(crate) type ModuleId = usize;

/// A code object loaded for the device.
pub(crate) struct Loaded {
    /// Shared with the executor, which runs a kernel of it without the runtime's lock.
    pub(crate) module: Arc<Module>,
    pub(crate) name: String,
}

/// Where a registered host symbol (kernel stub or variable) lives.
#[derive(Clone, Debug)]
pub(crate) struct DeviceSymbol {
    pub(crate) fatbin: usize,
    pub(crate) name: String,
    /// Variables: the size the program registered.
    pub(crate) size: u64,
}

/// A kernel named by a `hipFunction_t`.
#[derive(Clone, Debug)]
pub(crate) struct FunctionHandle {
    pub(crate) module: ModuleId,
    pub(crate) name: String,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct EventState {
    pub(crate) flags: u32,
    /// The device current when it was created.
    pub(crate) device: i32,
    /// Device time (ns) at the last record, if recorded.
    pub(crate) recorded: Option<f64>,
}

#[derive(Clone, Debug)]
pub(crate) struct StreamState {
    pub(crate) flags: u32,
    pub(crate) priority: i32,
    /// The device current when it was created.
    pub(crate) device: i32,
    /// `hipExtStreamCreateWithCUMask`: the compute units its kernels may use (bit i of word
    /// i / 32 is CU i); empty for all.
    pub(crate) cu_mask: Vec<u32>,
}

/// A `hipStreamWaitValue32/64` condition: `(*addr & mask) OP value` over `bytes` bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValueWait {
    pub(crate) addr: u64,
    pub(crate) value: u64,
    pub(crate) mask: u64,
    pub(crate) flags: u32,
    pub(crate) bytes: u8,
}

/// One operation in a stream's queue.
pub(crate) enum HeldOp {
    /// The stream waits until the condition holds.
    Wait(ValueWait),
    /// Work as a graph node stands for it (kernels, copies, fills, host functions, graphs).
    Work(NodeKind),
    /// `hipEventRecord`: the event completes when the stream gets here.
    Record(usize),
    /// `hipStreamWaitEvent` for an event whose record is itself queued.
    WaitEvent(usize),
    /// `hipStreamAddCallback`: the callback, called with the stream and `hipSuccess`.
    Callback(
        unsafe extern "C" fn(hipStream_t, hipError_t, *mut c_void),
        usize,
    ),
    /// `hipFreeAsync` number `free` of a block of `pool`: reaching it, the stream no longer
    /// uses the block, so other streams may reuse it and trims may give it back.
    FreeAsync { pool: usize, free: u64 },
    /// `hipMemPrefetchAsync` of managed `[start, end)` to `device`.
    Prefetch { start: u64, end: u64, device: i32 },
}

/// An operation enqueued and not yet complete (see `api::stream_ops` for the executor).
pub(crate) struct Held {
    /// Identifies it while it runs (its index moves as others complete).
    pub(crate) seq: u64,
    /// The stream's handle value (0 for the legacy null stream).
    pub(crate) stream: usize,
    /// The device current on the enqueuing thread: the null stream's work runs there.
    pub(crate) device: i32,
    /// Taken by the executor and running.
    pub(crate) started: bool,
    pub(crate) op: HeldOp,
}

/// What `hipMemAdvise` and `hipMemPrefetchAsync` recorded for `[start, end)` of managed memory.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Advice {
    /// The allocation the span lies in.
    pub(crate) base: u64,
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) read_mostly: bool,
    /// A device id, `hipCpuDeviceId` (-1) or `hipInvalidDeviceId` (-2, none).
    pub(crate) preferred: i32,
    pub(crate) accessed_by: Vec<i32>,
    pub(crate) last_prefetch: i32,
    pub(crate) coarse_grain: bool,
}

/// A kernel's arguments as the program passes them.
pub(crate) enum ArgSource<'a> {
    /// `void* args[]`: the i-th pointer points at the i-th explicit argument.
    Pointers(*const *const c_void),
    /// One buffer laid out as the kernarg segment's explicit part (`HIP_LAUNCH_PARAM_BUFFER_*`).
    Buffer(&'a [u8]),
}

pub(crate) struct Runtime {
    pub(crate) settings: Settings,
    /// The device; lent to the executor while a kernel runs (see [`DeviceSlot`]).
    pub(crate) device: DeviceSlot,
    pub(crate) fatbins: Vec<Fatbin>,
    pub(crate) modules: Vec<Option<Loaded>>,
    /// Host stub address → kernel.
    pub(crate) functions: HashMap<usize, DeviceSymbol>,
    /// Host shadow address → device variable.
    pub(crate) vars: HashMap<usize, DeviceSymbol>,
    pub(crate) allocations: HashMap<u64, AllocInfo>,
    pub(crate) function_handles: HashMap<usize, FunctionHandle>,
    pub(crate) module_handles: HashMap<usize, ModuleId>,
    pub(crate) streams: HashMap<usize, StreamState>,
    pub(crate) events: HashMap<usize, EventState>,
    next_handle: usize,
    /// A kernel failure not yet returned by a synchronising call.
    pub(crate) pending: Option<hipError_t>,
    /// Simulated device time in ns: kernels' cycles under the timing model, else their
    /// emulation time.
    pub(crate) device_ns: f64,
    kernel_stats: Vec<KernelStats>,
    /// Findings already printed, so that each is printed once per run: (kernel, rule, pc).
    reported: std::collections::HashSet<(String, &'static str, u64)>,
    pub(crate) started: Instant,
    /// Per device: memory limit and use, peers, context settings.
    pub(crate) devices: Vec<crate::devices::DeviceState>,
    /// How many of them the program sees (`HIP_VISIBLE_DEVICES` may hide some; hidden ones
    /// keep their state so that a thread's device 0 always has some).
    visible: i32,
    /// Allocation ids handed out so far.
    buffer_ids: u32,
    /// The sanitizers' findings and allocation sites (`GCNEMU_CHECK`).
    pub(crate) checks: CheckState,
    /// Graphs, executable graphs and stream captures.
    pub(crate) graphs: Graphs,
    /// Memory pools by handle; the device's default pool and the one `hipMallocAsync` uses.
    pub(crate) pools: HashMap<PoolId, Pool>,
    pub(crate) default_pool: PoolId,
    pub(crate) current_pool: PoolId,
    /// Pool-owned blocks (busy or free) → their pool.
    pub(crate) pool_blocks: HashMap<u64, PoolId>,
    /// Exported pools by the (device, inode) of the descriptor that names them.
    pub(crate) pool_exports: HashMap<(u64, u64), PoolId>,
    /// Work enqueued and not complete, every stream's, in the order it was enqueued.
    pub(crate) held: Vec<Held>,
    /// The next [`Held::seq`].
    pub(crate) next_seq: u64,
    /// `HIP_LAUNCH_BLOCKING`: every call that enqueues work returns once the work is done.
    pub(crate) launch_blocking: bool,
    /// Set by a call that enqueued work it must wait for (a copy of pageable memory).
    pub(crate) wait_after: bool,
    /// Advice on managed ranges, as disjoint spans sorted by start.
    pub(crate) advice: Vec<Advice>,
    /// HIP arrays by the address of the `hipArray` handed out (a leaked box, freed with the
    /// array).
    pub(crate) arrays: HashMap<u64, crate::texture::ArrayInfo>,
    /// Mipmapped arrays by the address of the `hipMipmappedArray` handed out (a leaked box,
    /// freed with the array).
    pub(crate) mipmaps: HashMap<u64, crate::texture::Mipmapped>,
    /// Texture objects by their device address, with the descriptors they were made from.
    pub(crate) textures: HashMap<u64, crate::texture::TextureInfo>,
    /// Surface objects by their device address, with their resource.
    pub(crate) surfaces: HashMap<u64, crate::types::hipResourceDesc>,
    /// Physical allocations, reserved ranges and mappings (`hipMemCreate`, `hipMemMap` ...).
    pub(crate) vmm: crate::vmm::Vmm,
    /// Memory opened by `hipIpcOpenMemHandle`: address → opens not yet closed.
    pub(crate) ipc_opened: HashMap<u64, u32>,
    /// Border colours set on texture references by `hipTexRefSetBorderColor` (ROCm 5.2's
    /// `textureReference` has no field for one), by the reference's address.
    pub(crate) texref_borders: HashMap<usize, [f32; 4]>,
    /// References `hipModuleGetTexRef` handed out, by their address: the module and the
    /// variable each stands for. They live as long as the process, since a program may keep
    /// the pointer past the module.
    pub(crate) module_texrefs: HashMap<usize, (ModuleId, String)>,
}

/// What an allocation of `size` bytes takes of a device's memory: whole 4 KiB pages (at least
/// one), as ROCr hands device memory out, so `hipMemGetInfo` drops by a page for a 1-byte
/// `hipMalloc`.
pub(crate) fn charged(size: u64) -> u64 {
    size.max(1).next_multiple_of(4096)
}

/// The default pool's handle, from the range of the runtime's handles (which start above it).
const DEFAULT_POOL: PoolId = 0x3ff0;

static RUNTIME: Mutex<Option<Runtime>> = Mutex::new(None);

/// Signalled (with [`RUNTIME`]'s lock) whenever the queue may have moved: work enqueued or
/// completed, memory a stream wait looks at written by an API call.
pub(crate) static CHANGED: Condvar = Condvar::new();

/// The lock, with the runtime created at the first call. `None` if the settings in the
/// environment are invalid (said once on stderr).
pub(crate) fn guard() -> Option<MutexGuard<'static, Option<Runtime>>> {
    let mut guard = lock();
    if guard.is_none() {
        match Runtime::from_env() {
            Ok(rt) => {
                *guard = Some(rt);
                report_at_exit();
            }
            Err(e) => {
                static SAID: std::sync::Once = std::sync::Once::new();
                SAID.call_once(|| eprintln!("gcnemu-hip: {e}"));
                return None;
            }
        }
    }
    Some(guard)
}

/// Runs `f` on the runtime, creating it at the first call. `None` if the settings in the
/// environment are invalid.
pub(crate) fn with<R>(f: impl FnOnce(&mut Runtime) -> R) -> Option<R> {
    guard()?.as_mut().map(f)
}

/// The one `gcnemu::Device`. It lives outside the runtime's lock so that the executor can run
/// a kernel on it without that lock ([`DeviceSlot::lend`]); meanwhile a call that reaches for
/// the device (allocation, module load, a copy's checks) waits for the kernel to end, and a
/// call that does not (a query, an enqueue) answers at once.
pub(crate) struct DeviceSlot {
    device: NonNull<Device>,
    /// While lent: every allocation's start and the end of what the guest may reach, in
    /// address order, as they were when the kernel started (only the kernel's own buffers come
    /// and go until it ends), so that enqueuing calls can check addresses meanwhile.
    lent_ranges: Vec<(u64, u64)>,
}

/// Whether the device is lent out, and the signal that it came back.
static LENT: Mutex<bool> = Mutex::new(false);
static RETURNED: Condvar = Condvar::new();

fn wait_returned() {
    let mut lent = LENT.lock().unwrap_or_else(|e| e.into_inner());
    while *lent {
        lent = RETURNED.wait(lent).unwrap_or_else(|e| e.into_inner());
    }
}

// SAFETY: the device is reached only through the slot (under the runtime's lock, and only when
// it is not lent) or through the one loan that `lend` hands out while it is.
unsafe impl Send for DeviceSlot {}

impl Deref for DeviceSlot {
    type Target = Device;
    fn deref(&self) -> &Device {
        wait_returned();
        // SAFETY: the device is not lent (checked above; only a holder of the runtime's lock,
        // as this caller is, can lend it) and lives as long as the process.
        unsafe { self.device.as_ref() }
    }
}

impl DerefMut for DeviceSlot {
    fn deref_mut(&mut self) -> &mut Device {
        wait_returned();
        // SAFETY: as `deref`; `&mut self` is the runtime's, so no other borrow is live.
        unsafe { self.device.as_mut() }
    }
}

impl DeviceSlot {
    /// Lends the device to a caller that will use it without the runtime's lock; other calls
    /// reaching for it wait until the loan is dropped.
    pub(crate) fn lend(&mut self) -> DeviceLoan {
        self.lent_ranges = self
            .memory()
            .serials()
            .into_iter()
            .map(|(base, reach, _)| (base, reach))
            .collect();
        *LENT.lock().unwrap_or_else(|e| e.into_inner()) = true;
        DeviceLoan(self.device)
    }

    fn new(device: Device) -> DeviceSlot {
        DeviceSlot {
            device: NonNull::from(Box::leak(Box::new(device))),
            lent_ranges: Vec::new(),
        }
    }

    /// The start of the allocation whose reach holds `addr`, without waiting for a lent
    /// device: `None` when the device is not lent (ask it), `Some(None)` when no allocation
    /// holds `addr`.
    fn lent_allocation(&self, addr: u64) -> Option<Option<u64>> {
        if !*LENT.lock().unwrap_or_else(|e| e.into_inner()) {
            return None;
        }
        let i = self.lent_ranges.partition_point(|&(base, _)| base <= addr);
        Some(
            i.checked_sub(1)
                .map(|i| self.lent_ranges[i])
                .filter(|&(_, reach)| addr < reach)
                .map(|(base, _)| base),
        )
    }
}

/// The device, lent out by [`DeviceSlot::lend`].
pub(crate) struct DeviceLoan(NonNull<Device>);

// SAFETY: see `DeviceSlot`; the loan is the one way to the device while it exists.
unsafe impl Send for DeviceLoan {}

impl DeviceLoan {
    pub(crate) fn device(&mut self) -> &mut Device {
        // SAFETY: while the loan exists nothing else reaches the device (`DeviceSlot` waits).
        unsafe { self.0.as_mut() }
    }
}

impl Drop for DeviceLoan {
    fn drop(&mut self) {
        *LENT.lock().unwrap_or_else(|e| e.into_inner()) = false;
        RETURNED.notify_all();
    }
}

/// A kernel launch with everything checked and gathered under the runtime's lock, ready to run
/// on the device without it.
pub(crate) struct PreparedLaunch {
    pub(crate) module: Arc<Module>,
    module_id: ModuleId,
    pub(crate) kernel: String,
    pub(crate) dims: Dims,
    pub(crate) args: Vec<Arg>,
    pub(crate) opts: LaunchOptions,
    device: i32,
}

thread_local! {
    static ON_EXECUTOR: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as the executor, the thread that runs queued work.
pub(crate) fn mark_executor() {
    ON_EXECUTOR.with(|c| c.set(true));
}

/// Whether the calling thread is the executor (a host function calling HIP): it must not wait
/// for the queue it is running.
pub(crate) fn on_executor() -> bool {
    ON_EXECUTOR.with(|c| c.get())
}

/// Waits at exit until the queue is empty, so that the statistics and the sanitizers' report
/// cover the work the program enqueued, unless what is left cannot run (nothing has run for a
/// second: stream waits on memory nothing will write).
fn drain(mut guard: MutexGuard<'static, Option<Runtime>>) -> MutexGuard<'static, Option<Runtime>> {
    if on_executor() {
        return guard;
    }
    let mut idle_since = Instant::now();
    loop {
        let Some(rt) = guard.as_ref() else {
            return guard;
        };
        if rt.held.is_empty() {
            return guard;
        }
        if rt.held.iter().any(|h| h.started) {
            idle_since = Instant::now();
        } else if idle_since.elapsed() >= Duration::from_secs(1) {
            return guard;
        }
        guard = CHANGED
            .wait_timeout(guard, Duration::from_millis(20))
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// Registers the exit report (once): the statistics, then the sanitizers' leaks and summary.
fn report_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        extern "C" fn report() {
            // The program may exit while another thread holds the lock: then say nothing rather
            // than hang.
            let guard = match lock_for_exit() {
                Some(g) => drain(g),
                None => return,
            };
            if let Some(rt) = guard.as_ref() {
                stats::write_report(&rt.settings, &rt.kernel_stats, rt.started);
                if checks::at_exit(&rt.checks, &rt.settings, &rt.allocations)
                    && rt.settings.check_error
                {
                    // The program's own status is lost either way; flush what it printed.
                    // SAFETY: flushing every C stream and ending the process, as exit would.
                    unsafe {
                        libc::fflush(std::ptr::null_mut());
                        libc::_exit(1);
                    }
                }
            }
        }
        // SAFETY: `report` is a plain function that lives as long as the process.
        unsafe { libc::atexit(report) };
    });
}

/// The lock for the exit report, unless another thread keeps it (the executor takes it for
/// moments at a time: a second's tries).
fn lock_for_exit() -> Option<MutexGuard<'static, Option<Runtime>>> {
    let start = Instant::now();
    loop {
        match RUNTIME.try_lock() {
            Ok(g) => return Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                if start.elapsed() >= Duration::from_secs(1) {
                    return None;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }
}

/// The lock, even if a panic in an earlier call poisoned it (the state stays consistent: every
/// call validates before it changes anything).
pub(crate) fn lock() -> MutexGuard<'static, Option<Runtime>> {
    RUNTIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A launch's dimensions, as hipamd's `ihipLaunchKernel_validate` checks them: an empty
/// dimension is an invalid value, a block over 1024 work-items an invalid configuration.
pub(crate) fn check_dims(grid: dim3, block: dim3) -> Result<(), hipError_t> {
    let (grid, block) = ([grid.x, grid.y, grid.z], [block.x, block.y, block.z]);
    if grid.contains(&0) || block.contains(&0) {
        return Err(INVALID_VALUE);
    }
    if block.iter().map(|&b| b as u64).product::<u64>() > 1024 {
        return Err(INVALID_CONFIGURATION);
    }
    Ok(())
}

impl Runtime {
    fn from_env() -> Result<Runtime, String> {
        let settings = Settings::from_env()?;
        crate::log::init();
        // Unless GCNEMU_MEMORY_LIMIT says otherwise, the board's memory: untouched pages of
        // an allocation cost the host nothing.
        let memory_limit = match std::env::var_os(gcnemu::settings::MEMORY_LIMIT) {
            Some(v) if !v.is_empty() => settings.memory_limit,
            _ => board(settings.target).memory_bytes,
        };
        // One address space for all devices, each held to its own limit by the runtime.
        let mut device = Device::new(DeviceConfig {
            target: settings.target,
            memory_limit: memory_limit.saturating_mul(settings.devices as u64),
            placement: Placement::Host,
            xnack: settings.xnack,
        });
        device.enable_checks(settings.checks);
        device.set_printf_output(gcnemu::hostcall::host::Output {
            out: Box::new(crate::cstdio::CStream::stdout()),
            err: Box::new(crate::cstdio::CStream::stderr()),
        });
        let list = std::env::var("HIP_VISIBLE_DEVICES")
            .or_else(|_| std::env::var("CUDA_VISIBLE_DEVICES"))
            .ok();
        let visible = crate::devices::visible(settings.devices, list.as_deref());
        let devices = vec![
            crate::devices::DeviceState {
                limit: memory_limit,
                ..Default::default()
            };
            settings.devices.max(1) as usize
        ];
        Ok(Runtime {
            settings,
            device: DeviceSlot::new(device),
            fatbins: Vec::new(),
            modules: Vec::new(),
            functions: HashMap::new(),
            vars: HashMap::new(),
            allocations: HashMap::new(),
            function_handles: HashMap::new(),
            module_handles: HashMap::new(),
            streams: HashMap::new(),
            events: HashMap::new(),
            next_handle: 0x4000,
            pending: None,
            device_ns: 0.0,
            kernel_stats: Vec::new(),
            reported: Default::default(),
            started: Instant::now(),
            devices,
            visible: visible as i32,
            buffer_ids: 0,
            checks: Default::default(),
            graphs: Graphs::default(),
            pools: HashMap::from([(DEFAULT_POOL, Pool::new(0, 0))]),
            default_pool: DEFAULT_POOL,
            current_pool: DEFAULT_POOL,
            pool_blocks: HashMap::new(),
            pool_exports: HashMap::new(),
            held: Vec::new(),
            next_seq: 0,
            wait_after: false,
            launch_blocking: std::env::var("HIP_LAUNCH_BLOCKING")
                .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false")),
            advice: Vec::new(),
            arrays: HashMap::new(),
            mipmaps: HashMap::new(),
            textures: HashMap::new(),
            surfaces: HashMap::new(),
            vmm: Default::default(),
            ipc_opened: HashMap::new(),
            texref_borders: HashMap::new(),
            module_texrefs: HashMap::new(),
        })
    }

    /// A fresh opaque handle value: never null, never one of the special stream values.
    pub(crate) fn new_handle(&mut self) -> usize {
        self.next_handle += 16;
        self.next_handle
    }

    /// The engine clock, which turns simulated cycles into event times.
    fn clock_khz(&self) -> i32 {
        board(self.settings.target).clock_khz as i32
    }

    /// Advances device time by what moving `bytes` takes, so that events around copies and
    /// fills measure them: at the board's memory bandwidth (HBM or DDR peak: memory clock x 2
    /// transfers x bus width), read and write, when both sides are device memory (`host` false),
    /// else at the host link's (PCIe x16 of the board's generation, 128b/130b coding: 3.0 on
    /// Vega 10, 4.0 on MI50, MI100 and MI210, 5.0 on MI300X; the APUs' host memory is their
    /// memory). Fills write once.
    pub(crate) fn advance_transfer(&mut self, bytes: u64, host: bool, fill: bool) {
        let b = board(self.settings.target);
        let memory = b.memory_clock_khz as f64 * 1e3 * 2.0 * b.bus_width as f64 / 8.0;
        let pcie_lane = |gt_s: f64| gt_s * 1e9 * 128.0 / 130.0 / 8.0;
        let link = match self.settings.target {
            gcn_isa::Target::Gfx900 | gcn_isa::Target::Gfx904 => 16.0 * pcie_lane(8.0),
            gcn_isa::Target::Gfx906 | gcn_isa::Target::Gfx908 | gcn_isa::Target::Gfx90a => {
                16.0 * pcie_lane(16.0)
            }
            gcn_isa::Target::Gfx942 => 16.0 * pcie_lane(32.0),
            _ => memory,
        };
        let ns = if host {
            bytes as f64 / link * 1e9
        } else if fill {
            bytes as f64 / memory * 1e9
        } else {
            2.0 * bytes as f64 / memory * 1e9
        };
        self.device_ns += ns;
    }

    /// Takes the held-back kernel failure, if any, for a synchronising call to return.
    pub(crate) fn take_pending(&mut self) -> Result<(), hipError_t> {
        match self.pending.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The next allocation's `id`.
    pub(crate) fn next_buffer_id(&mut self) -> u32 {
        self.buffer_ids += 1;
        self.buffer_ids
    }

    /// How many devices the program sees.
    pub(crate) fn device_count(&self) -> i32 {
        self.visible
    }

    /// Checks a device ordinal: `hipErrorInvalidDevice` unless it names one of the devices.
    pub(crate) fn check_device(&self, device: i32) -> Result<(), hipError_t> {
        if (0..self.device_count()).contains(&device) {
            Ok(())
        } else {
            Err(INVALID_DEVICE)
        }
    }

    /// The device a stream's work runs on: its own, or the calling thread's for the null and
    /// per-thread streams.
    pub(crate) fn stream_device(&self, s: hipStream_t) -> i32 {
        self.streams
            .get(&(s as usize))
            .map_or_else(crate::devices::current, |st| st.device)
    }

    /// Checks a stream handle: null, the per-thread or legacy stream, or one created here.
    pub(crate) fn check_stream(&self, s: hipStream_t) -> Result<(), hipError_t> {
        let h = s as usize;
        if h == 0 || h == STREAM_PER_THREAD || h == STREAM_LEGACY || self.streams.contains_key(&h) {
            Ok(())
        } else {
            // hipamd's answer to a handle that fails `hip::isValid` (destroyed, never made).
            Err(CONTEXT_IS_DESTROYED)
        }
    }

    /// Allocates zeroed memory that host code and kernels share.
    pub(crate) fn alloc(
        &mut self,
        size: u64,
        class: AllocClass,
        flags: u32,
    ) -> Result<u64, hipError_t> {
        let device = crate::devices::current();
        // Device memory counts against the current device's limit (host memory only against
        // the emulator's total).
        if class == AllocClass::Device {
            self.charge(device, size)?;
        }
        let addr = match self.device.memory_mut().alloc(size, AllocKind::Buffer) {
            Ok(a) => a,
            Err(_) => {
                if class == AllocClass::Device {
                    self.devices[device as usize].used -= charged(size);
                }
                return Err(OUT_OF_MEMORY);
            }
        };
        let id = self.next_buffer_id();
        self.allocations.insert(
            addr,
            AllocInfo {
                size,
                class,
                flags,
                device,
                id,
            },
        );
        if class != AllocClass::Device {
            // Host and managed memory are written by host code the runtime never sees.
            self.device.memory_mut().note_host_visible(addr);
        }
        if self.settings.checks.has(gcnemu::check::Check::Leaks) {
            self.checks.sites.insert(addr, checks::call_site());
        }
        Ok(addr)
    }

    /// Counts `size` bytes, in whole pages ([`charged`]), against `device`'s memory limit.
    pub(crate) fn charge(&mut self, device: i32, size: u64) -> Result<(), hipError_t> {
        let d = &mut self.devices[device as usize];
        let size = charged(size);
        if d.used.saturating_add(size) > d.limit {
            return Err(OUT_OF_MEMORY);
        }
        d.used += size;
        Ok(())
    }

    /// Frees an allocation made by [`Runtime::alloc`] of one of `classes`.
    pub(crate) fn free(&mut self, addr: u64, classes: &[AllocClass]) -> Result<(), hipError_t> {
        let info = match self.allocations.get(&addr) {
            Some(info) if classes.contains(&info.class) => *info,
            _ => return Err(INVALID_VALUE),
        };
        if info.class == AllocClass::Device {
            self.devices[info.device as usize].used -= charged(info.size);
        }
        self.allocations.remove(&addr);
        self.checks.sites.remove(&addr);
        self.device
            .memory_mut()
            .free(addr)
            .map_err(|_| INVALID_VALUE)
    }

    /// The allocation holding `addr`: its start and what it is.
    pub(crate) fn allocation_of(&self, addr: u64) -> Option<(u64, AllocInfo)> {
        let (base, _) = self.device_allocation(addr)?;
        let info = self.allocations.get(&base)?;
        Some((base, *info))
    }

    /// The device memory allocation holding `addr` (the runtime's, a code object's, registered
    /// host memory ...): its start and length. While a kernel runs it is answered from the
    /// ranges taken when the kernel started, the length from the runtime's own record (a code
    /// object's: up to its last page), so enqueuing calls need not wait for the device.
    pub(crate) fn device_allocation(&self, addr: u64) -> Option<(u64, u64)> {
        match self.device.lent_allocation(addr) {
            Some(hit) => {
                let base = hit?;
                let i = self.device.lent_ranges.partition_point(|&(b, _)| b < base);
                let reach = self.device.lent_ranges[i].1;
                let len = self.allocations.get(&base).map_or(reach - base, |a| a.size);
                Some((base, len))
            }
            None => {
                let a = self.device.memory().allocation_containing(addr)?;
                Some((a.base, a.len()))
            }
        }
    }

    /// Checks that `[addr, addr+len)` lies inside one allocation the device can reach.
    pub(crate) fn check_device_range(&self, addr: u64, len: u64) -> Result<(), hipError_t> {
        if addr == 0 {
            return Err(INVALID_VALUE);
        }
        if len == 0 {
            return Ok(());
        }
        match self.device_allocation(addr) {
            Some((base, size)) if addr + len <= base + size => Ok(()),
            _ => Err(INVALID_VALUE),
        }
    }

    /// The code object of a registered fatbin for `device`, loaded at its first use there.
    fn fatbin_module(&mut self, fatbin: usize, device: i32) -> Result<ModuleId, hipError_t> {
        let count = self.devices.len();
        let f = self
            .fatbins
            .get_mut(fatbin)
            .ok_or(INVALID_DEVICE_FUNCTION)?;
        f.module.resize(count, None);
        if let Some(r) = &f.module[device as usize] {
            return r.clone().map_err(|_| NO_BINARY_FOR_GPU);
        }
        let (image, origin) = (f.image, f.origin.clone());
        // A load of its own: each device has its own copy of the code object's variables.
        let r = self.load_bundle(image, &origin);
        if let Err(e) = &r {
            eprintln!("gcnemu-hip: {e}");
        }
        self.fatbins[fatbin].module[device as usize] = Some(r.clone());
        r.map_err(|_| NO_BINARY_FOR_GPU)
    }

    /// Loads the code object for the device's target out of an offload bundle (or a code object).
    pub(crate) fn load_bundle(&mut self, bytes: &[u8], origin: &str) -> Result<ModuleId, String> {
        let images = gcn_loader::extract(origin, bytes).map_err(|e| e.to_string())?;
        // The loader's rule, on the entry ids (or a bare code object's ELF header).
        let request = self.device.config().target_id();
        let chosen = gcn_loader::pick(origin, &images, &request).map_err(|e| {
            format!("{e}; rebuild with --offload-arch={request} or run with GCNEMU_TARGET set to one of those")
        })?;
        let image = &images[chosen];
        let module = self
            .device
            .load(&image.file, &image.bytes)
            .map_err(|e| e.to_string())?;
        tracing::info!(code_object = %image.file, kernels = module.object.kernels.len(), "loaded");
        self.modules.push(Some(Loaded {
            module: Arc::new(module),
            name: image.file.clone(),
        }));
        Ok(self.modules.len() - 1)
    }

    /// The module a registered host symbol (kernel stub or variable) belongs to, loaded for the
    /// calling thread's device.
    pub(crate) fn symbol_module(&mut self, sym: &DeviceSymbol) -> Result<ModuleId, hipError_t> {
        self.fatbin_module(sym.fatbin, crate::devices::current())
    }

    /// The kernel a host stub (`__hipRegisterFunction`'s `function`) stands for.
    pub(crate) fn kernel_of_stub(
        &self,
        function: *const c_void,
    ) -> Result<DeviceSymbol, hipError_t> {
        self.functions
            .get(&(function as usize))
            .cloned()
            .ok_or(INVALID_DEVICE_FUNCTION)
    }

    /// [`Runtime::symbol_module`] for `device`.
    pub(crate) fn symbol_module_on(
        &mut self,
        sym: &DeviceSymbol,
        device: i32,
    ) -> Result<ModuleId, hipError_t> {
        self.fatbin_module(sym.fatbin, device)
    }

    pub(crate) fn loaded(&self, id: ModuleId) -> Result<&Loaded, hipError_t> {
        self.modules
            .get(id)
            .and_then(|m| m.as_ref())
            .ok_or(INVALID_HANDLE)
    }

    /// The device address and size of a `__device__`/`__constant__` variable, by its host shadow.
    pub(crate) fn var_address(&mut self, host: *const c_void) -> Result<(u64, u64), hipError_t> {
        let sym = self
            .vars
            .get(&(host as usize))
            .cloned()
            .ok_or(INVALID_SYMBOL)?;
        let id = self.symbol_module(&sym)?;
        let m = self.loaded(id)?;
        let (addr, size) = m.module.symbol(&sym.name).ok_or(INVALID_SYMBOL)?;
        Ok((addr, if size == 0 { sym.size } else { size }))
    }

    /// The kernel a launch names by `func`: a registered host stub or a `hipFunction_t`.
    pub(crate) fn kernel_of(&mut self, func: usize) -> Result<(ModuleId, String), hipError_t> {
        if let Some(sym) = self.functions.get(&func).cloned() {
            return Ok((self.symbol_module(&sym)?, sym.name));
        }
        match self.function_handles.get(&func) {
            Some(h) => Ok((h.module, h.name.clone())),
            None => Err(INVALID_DEVICE_FUNCTION),
        }
    }

    /// Copies a kernel's explicit arguments out of the program's memory, one buffer per
    /// argument, sized by the kernel's metadata.
    pub(crate) fn kernel_args(
        &self,
        module: ModuleId,
        kernel: &str,
        args: ArgSource,
    ) -> Result<Vec<Vec<u8>>, hipError_t> {
        let k = self
            .loaded(module)?
            .module
            .kernel(kernel)
            .ok_or(INVALID_DEVICE_FUNCTION)?;
        let explicit: Vec<(u64, u64)> = k
            .meta
            .as_ref()
            .map(|m| {
                m.args
                    .iter()
                    .filter(|a| !a.value_kind.is_hidden())
                    .map(|a| (a.offset, a.size))
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::with_capacity(explicit.len());
        for (i, &(offset, size)) in explicit.iter().enumerate() {
            let bytes = match args {
                ArgSource::Pointers(p) => {
                    if p.is_null() {
                        return Err(INVALID_VALUE);
                    }
                    // SAFETY: HIP's contract: `args` holds one pointer per explicit argument,
                    // each to a value of the argument's size.
                    let ptr = unsafe { *p.add(i) };
                    if ptr.is_null() {
                        return Err(INVALID_VALUE);
                    }
                    unsafe { std::slice::from_raw_parts(ptr as *const u8, size as usize) }.to_vec()
                }
                ArgSource::Buffer(buf) => buf
                    .get(offset as usize..(offset + size) as usize)
                    .ok_or(INVALID_VALUE)?
                    .to_vec(),
            };
            out.push(bytes);
        }
        Ok(out)
    }

    /// Runs a kernel to completion. Launch errors (bad configuration, arguments) return at once;
    /// a failure of the kernel itself is reported on stderr and held for the next synchronising
    /// call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch(
        &mut self,
        module: ModuleId,
        kernel: &str,
        grid: dim3,
        block: dim3,
        shared: u64,
        stream: hipStream_t,
        args: ArgSource,
    ) -> Result<(), hipError_t> {
        let p = self.prepare_launch(module, kernel, grid, block, shared, stream, args)?;
        let result = self
            .device
            .launch(&p.module, &p.kernel, p.dims, &p.args, &p.opts);
        self.finish_launch(&p, result)
    }

    /// Checks a launch and gathers what running it takes ([`Runtime::launch`]'s first half).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prepare_launch(
        &mut self,
        module: ModuleId,
        kernel: &str,
        grid: dim3,
        block: dim3,
        shared: u64,
        stream: hipStream_t,
        args: ArgSource,
    ) -> Result<PreparedLaunch, hipError_t> {
        self.check_stream(stream)?;
        check_dims(grid, block)?;
        let grid = [grid.x, grid.y, grid.z];
        let block = [block.x, block.y, block.z];
        let shared = u32::try_from(shared).map_err(|_| INVALID_VALUE)?;
        let launch_args: Vec<Arg> = self
            .kernel_args(module, kernel, args)?
            .into_iter()
            .map(Arg::Bytes)
            .collect();
        let loaded = self.loaded(module)?;
        let k = loaded
            .module
            .kernel(kernel)
            .ok_or(INVALID_DEVICE_FUNCTION)?;
        // A block over the kernel's launch bounds: hipamd's `ihipLaunchKernel_validate` refuses
        // it with hipErrorLaunchFailure.
        let bound = k.meta.as_ref().map_or(0, |m| m.max_flat_workgroup_size);
        if bound > 0 && block.iter().map(|&b| b as u64).product::<u64>() > bound {
            return Err(LAUNCH_FAILURE);
        }
        let mut opts = self.settings.launch.clone();
        opts.dynamic_lds = shared;
        let device = self.stream_device(stream);
        if let (Some(st), Some(t)) = (self.streams.get(&(stream as usize)), opts.timing.as_mut()) {
            if !st.cu_mask.is_empty() {
                let mask = crate::cu_mask::effective(&st.cu_mask, t.cus);
                t.cus = mask.iter().map(|w| w.count_ones()).sum();
            }
        }
        let module_arc = loaded.module.clone();
        Ok(PreparedLaunch {
            module: module_arc,
            module_id: module,
            kernel: kernel.to_string(),
            dims: Dims { grid, block },
            args: launch_args,
            opts,
            device,
        })
    }

    /// Checks that a block fits the kernel's launch bounds and its LDS the hardware, as
    /// hipamd's `ihipLaunchKernel_validate` does before the launch is enqueued.
    pub(crate) fn check_launch(
        &self,
        module: ModuleId,
        kernel: &str,
        block: dim3,
        shared: u64,
    ) -> Result<(), hipError_t> {
        let k = self
            .loaded(module)?
            .module
            .kernel(kernel)
            .ok_or(INVALID_DEVICE_FUNCTION)?;
        let bound = k.meta.as_ref().map_or(0, |m| m.max_flat_workgroup_size);
        let items = block.x as u64 * block.y as u64 * block.z as u64;
        if bound > 0 && items > bound {
            return Err(LAUNCH_FAILURE);
        }
        if k.descriptor.group_segment_fixed_size as u64 + shared > 64 * 1024 {
            return Err(INVALID_CONFIGURATION);
        }
        Ok(())
    }

    /// Accounts for a launch that ran ([`Runtime::launch`]'s second half): time, statistics,
    /// sanitizer findings, a kernel failure held for the next synchronising call.
    pub(crate) fn finish_launch(
        &mut self,
        p: &PreparedLaunch,
        result: Result<gcnemu::Stats, gcnemu::Error>,
    ) -> Result<(), hipError_t> {
        let (module, kernel, device) = (p.module_id, p.kernel.as_str(), p.device);
        let name = p
            .module
            .kernel(kernel)
            .map_or_else(|| kernel.to_string(), |k| k.name.clone());
        match result {
            Ok(stats) => {
                self.device_ns += match &stats.timing {
                    Some(t) => t.cycles as f64 * 1e6 / self.clock_khz() as f64,
                    None => stats.elapsed.as_nanos() as f64,
                };
                self.report_findings(&stats);
                let found = self.device.take_findings();
                self.checks.after_launch(found);
                if stats.dropped_faults > 0 {
                    // memcheck let the kernel run on past accesses that fault on a GPU: the
                    // program still gets the error it would get without --check.
                    eprintln!(
                        "gcnemu: kernel `{name}`: {} access(es) outside device memory (reported by memcheck); the program sees hipErrorIllegalAddress from its next synchronising call",
                        stats.dropped_faults
                    );
                    self.pending.get_or_insert(ILLEGAL_ADDRESS);
                }
                self.record(&name, device, module, Some(&stats), stats.elapsed);
                Ok(())
            }
            Err(gcnemu::Error::Guest(g)) => {
                let found = self.device.take_findings();
                self.checks.after_launch(found);
                let code = match &g.fault {
                    gcnemu::GuestFault::Fault(
                        gcnemu::fault::Fault::Memory { .. }
                        | gcnemu::fault::Fault::ScalarMemory { .. }
                        | gcnemu::fault::Fault::Lds { .. }
                        | gcnemu::fault::Fault::Private { .. },
                    ) => ILLEGAL_ADDRESS,
                    _ => LAUNCH_FAILURE,
                };
                let origin = &self.modules[module]
                    .as_ref()
                    .map_or("", |l| l.name.as_str());
                eprintln!("gcnemu: {origin}: {g}");
                eprintln!(
                    "gcnemu: the program sees {} from its next synchronising call",
                    error::name_str(code)
                );
                self.record(&name, device, module, None, Duration::ZERO);
                if let Some(s) = self
                    .kernel_stats
                    .iter_mut()
                    .find(|s| s.name == name && s.device == device)
                {
                    s.faults += 1;
                }
                self.pending.get_or_insert(code);
                Ok(())
            }
            Err(e) => {
                eprintln!("gcnemu-hip: launch of `{kernel}`: {e}");
                Err(match e {
                    gcnemu::Error::Arguments(_) => INVALID_VALUE,
                    gcnemu::Error::NoKernel { .. } => INVALID_DEVICE_FUNCTION,
                    gcnemu::Error::Memory(_) => OUT_OF_MEMORY,
                    _ => INVALID_CONFIGURATION,
                })
            }
        }
    }

    /// Prints each hazard and stale-read finding the first time it is seen.
    fn report_findings(&mut self, stats: &gcnemu::Stats) {
        for h in &stats.hazards {
            if self.reported.insert((stats.kernel.clone(), h.rule, h.pc)) {
                eprintln!(
                    "gcnemu: warning[{}]: {}: kernel `{}` at {:#x} (+{:#x}) `{}`: producer `{}` at +{:#x}; required {}, provided {}; {}",
                    h.rule,
                    h.summary,
                    stats.kernel,
                    h.pc,
                    h.kernel_offset,
                    h.instruction,
                    h.producer,
                    h.producer_offset,
                    h.required,
                    h.provided,
                    h.fix
                );
            }
        }
        if let Some(p) = &stats.first_padding_access {
            if self.reported.insert((stats.kernel.clone(), "past-end", 0)) {
                eprintln!(
                    "gcnemu: warning[past-end]: kernel `{}`: {} access(es) past the end of an allocation, inside its last page (harmless on a GPU, which maps whole pages; a bug all the same); the first: {} bytes at {:#x}, {:#x} bytes past the end of the {}-byte allocation at {:#x}",
                    stats.kernel,
                    stats.padding_accesses,
                    p.len,
                    p.addr,
                    p.addr - (p.base + p.size),
                    p.size,
                    p.base
                );
            }
        }
        for r in &stats.stale_reads {
            if self
                .reported
                .insert((stats.kernel.clone(), "missing-waitcnt", r.pc))
            {
                eprintln!("gcnemu: warning[missing-waitcnt]: {}", r.message());
            }
        }
    }

    fn record(
        &mut self,
        name: &str,
        device: i32,
        module: ModuleId,
        stats: Option<&gcnemu::Stats>,
        elapsed: Duration,
    ) {
        let i = match self
            .kernel_stats
            .iter()
            .position(|s| s.name == name && s.device == device)
        {
            Some(i) => i,
            None => {
                let code_object = self.modules[module]
                    .as_ref()
                    .map_or(String::new(), |l| l.name.clone());
                self.kernel_stats
                    .push(KernelStats::new(name, device, code_object));
                self.kernel_stats.len() - 1
            }
        };
        self.kernel_stats[i].add(stats, elapsed);
    }
}
