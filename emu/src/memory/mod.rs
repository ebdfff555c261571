//! Device memory: a sparse 64-bit address space made of host-allocated buffers.
//!
//! Every byte the guest can touch belongs to an [`Allocation`]; anything else is a fault. Two
//! placements exist. [`Placement::Sparse`] (the default, `gcnemu run`) hands out deterministic
//! 64 KiB-aligned addresses above 4 GiB with an unmapped guard gap after each buffer, so an access
//! that runs off the end faults instead of landing in its neighbour. [`Placement::Host`] (the HIP
//! runtime) puts each allocation at the host address of its backing memory, page-aligned and
//! followed by an untouched guard page, so that host code and kernels share pointers as on an APU;
//! host memory the program registers (`hipHostRegister`) becomes an allocation of its own. Either
//! way the guest reaches only what is allocated or registered. Lookups keep the indices of the last
//! few allocations hit ([`recent`]), because the 64 lanes of one instruction almost always hit one
//! buffer and a kernel's instructions take turns among a few.

use crate::check::init::Written;
use crate::check::{Check, CheckSet, GlobalCheck};
use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod fetch;
pub mod gws;
mod recent;
mod relaxed;
pub mod tombstones;

use tombstones::Tombstones;

/// First address handed out: above 4 GiB so that a truncated 32-bit pointer never looks valid.
pub const HEAP_BASE: u64 = 0x0000_0001_0000_0000;
/// gfx9 LDS (shared) aperture for flat addresses, as ROCm's KFD sets it (`1 << 48`).
pub const SHARED_APERTURE_BASE: u64 = 1 << 48;
/// gfx9 private (scratch) aperture for flat addresses (`2 << 48`).
pub const PRIVATE_APERTURE_BASE: u64 = 2 << 48;
/// Each aperture covers 4 GiB.
pub const APERTURE_SIZE: u64 = 1 << 32;
/// Allocations start on this alignment and are followed by at least this much unmapped space.
const GRANULE: u64 = 64 * 1024;
/// Host placement: alignment of each allocation and size of the guard after it.
const HOST_PAGE: usize = 4096;
/// Default cap on the sum of all allocations (host memory is real memory).
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// How allocations get their device addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Deterministic addresses from [`HEAP_BASE`] up, with guard gaps.
    #[default]
    Sparse,
    /// The host address of the backing memory: device pointers are host pointers.
    Host,
}

/// What an allocation holds; shown in fault messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    /// A buffer the host allocated.
    Buffer,
    /// Host memory the program registered for device access (`hipHostRegister`).
    Registered,
    /// The kernarg segment of a dispatch.
    Kernarg,
    /// The `hsa_kernel_dispatch_packet_t` of a dispatch.
    DispatchPacket,
    /// The (zeroed) queue object the queue pointer names.
    Queue,
    /// Scratch backing memory for the private segments of resident waves.
    Scratch,
    /// A loaded code object's sections.
    CodeObject,
    /// The device malloc heap of code object v5 kernels (`hidden_heap_v1`): ockl's heap state,
    /// zeroed once and kept from launch to launch.
    DeviceHeap,
}

impl AllocKind {
    pub fn name(self) -> &'static str {
        match self {
            AllocKind::Buffer => "buffer",
            AllocKind::Registered => "registered host memory",
            AllocKind::Kernarg => "kernarg segment",
            AllocKind::DispatchPacket => "dispatch packet",
            AllocKind::Queue => "queue",
            AllocKind::Scratch => "scratch",
            AllocKind::CodeObject => "code object",
            AllocKind::DeviceHeap => "device malloc heap",
        }
    }
}

/// Host memory behind an allocation: zeroed memory it owns, or a range the program registered.
#[derive(Debug)]
struct Backing {
    ptr: NonNull<u8>,
    len: usize,
    /// Bytes from `ptr` the guest may touch: `len`, or (host placement) `len` rounded up to the
    /// page, as a GPU maps whole pages.
    reach: usize,
    /// `Some` when the block is ours to free.
    owned: Option<Layout>,
}

// SAFETY: an owned block is reachable only through its `Allocation` (and the worker views of a
// dispatch, which access it only atomically and end before it can be freed); a registered range was
// handed to the device by the program, which promises (as HIP requires) not to touch it while a
// kernel runs. Every access goes through `Memory`, whose `&`/`&mut` borrows order them.
unsafe impl Send for Backing {}

impl Backing {
    /// `len` zeroed bytes (at least one) followed by `guard` bytes nothing ever hands out.
    fn zeroed(len: usize, align: usize, guard: usize) -> Option<Backing> {
        let layout = Layout::from_size_align(len.checked_add(guard)?.max(1), align).ok()?;
        // SAFETY: the layout has a non-zero size. `alloc_zeroed` asks for zeroed pages, so
        // untouched memory costs nothing.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(Backing {
            ptr,
            len,
            reach: len,
            owned: Some(layout),
        })
    }

    /// The bytes the guest may touch.
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is valid for `reach` <= the block's bytes for the backing's life (see
        // the Send note).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.reach) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `bytes`, and `&mut self` makes this the only view through `Memory`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.reach) }
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        if let Some(layout) = self.owned {
            // SAFETY: allocated in `zeroed` with this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) }
        }
    }
}

#[derive(Debug)]
pub struct Allocation {
    pub base: u64,
    pub kind: AllocKind,
    backing: Backing,
    /// initcheck: which bytes have been written (`None`: not tracked, all count as written).
    pub(crate) written: Option<Written>,
    /// Allocations made before this one: a name for it that does not depend on where the host
    /// placed it, for the timing model's caches ([`Memory::serials`]).
    pub serial: u64,
}

impl Allocation {
    pub(crate) fn end(&self) -> u64 {
        self.base + self.backing.len as u64
    }

    /// The end of what the guest may touch (past `end` only in the page padding).
    fn reach_end(&self) -> u64 {
        self.base + self.backing.reach as u64
    }

    pub fn len(&self) -> u64 {
        self.backing.len as u64
    }

    pub fn is_empty(&self) -> bool {
        self.backing.len == 0
    }

    pub fn data(&self) -> &[u8] {
        &self.backing.bytes()[..self.backing.len]
    }

    pub(crate) fn data_mut(&mut self) -> &mut [u8] {
        let len = self.backing.len;
        &mut self.backing.bytes_mut()[..len]
    }
}

/// Host-side errors of the allocator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemError {
    #[error(
        "cannot allocate {len} bytes of device memory: {used} of the {limit}-byte limit in use"
    )]
    OutOfMemory { len: u64, used: u64, limit: u64 },
    #[error("no device allocation covers {len} bytes at {addr:#x}")]
    Unmapped { addr: u64, len: u64 },
    #[error("{addr:#x} is not the start of a device allocation")]
    NotAllocationStart { addr: u64 },
    #[error("{len} bytes at {addr:#x} overlap memory the device already maps")]
    Overlap { addr: u64, len: u64 },
    #[error("cannot map {len} bytes at {addr:#x}: the range is empty, wraps or meets an aperture")]
    BadRange { addr: u64, len: u64 },
}

/// The device's global memory.
#[derive(Debug)]
pub struct Memory {
    /// Sorted by base address; allocations never overlap.
    allocs: Vec<Allocation>,
    placement: Placement,
    next: u64,
    used: u64,
    limit: u64,
    last: recent::Recent,
    /// Accesses past an allocation's end into its page padding (host placement): allowed, as
    /// on a GPU, but counted, with the first one kept for the report.
    padding: Cell<(u64, Option<PaddingAccess>)>,
    /// The sanitizers' state (`--check`); `None` costs the access path one branch.
    check: Option<Box<GlobalCheck>>,
    /// memcheck: the buffers freed so far, some of them still held back from reuse.
    tombstones: Tombstones,
    /// Writes so far (every store, atomic and host write, and every change of the mapping): the
    /// spin detector's sign that memory may have changed ([`crate::wave::spin`]).
    writes: u64,
    /// A worker view's link to the writes of the other workers of its dispatch
    /// ([`Memory::worker_view`]); `None` for the device's own memory.
    shared_writes: Option<SharedWrites>,
    /// One clone in each worker view made from this memory, alive while the view is: with no
    /// other clone, no other thread is touching the allocations ([`Memory::alone`]).
    views: Arc<()>,
    /// The device's global wave sync resources, shared with every worker view.
    gws: Arc<gws::Gws>,
    /// The timing model's shared caches (scalar caches, L2) and memory queue, which keep their
    /// contents from one launch to the next as the hardware's do, for the target and CU count
    /// they were made for.
    caches: Option<(gcn_isa::Target, u32, Box<crate::memsys::SharedMemory>)>,
    /// Allocations made so far ([`Allocation::serial`]).
    serial: u64,
}

/// The write count the worker views of one dispatch share: each view adds to it when it has
/// written since it last did ([`Memory::publish_writes`]), so a wave spinning on a flag another
/// workgroup sets sees memory change.
#[derive(Debug)]
struct SharedWrites {
    total: Arc<AtomicU64>,
    published: u64,
}

/// The range `[lowest, highest + len)` of the lanes' addresses set in `exec`; `None` when no
/// lane is set or the range wraps.
#[inline]
pub(crate) fn span(addrs: &[u64; 64], exec: u64, len: u64) -> Option<(u64, u64)> {
    if exec == 0 {
        return None;
    }
    let (mut lo, mut hi) = (u64::MAX, 0);
    for (l, &a) in addrs.iter().enumerate() {
        if exec >> l & 1 != 0 {
            lo = lo.min(a);
            hi = hi.max(a);
        }
    }
    Some((lo, hi.checked_add(len)?))
}

/// Whether lane `l` addresses `addrs[0] + step * l`, every lane the next `step` bytes after the
/// one before it (what `buf[threadIdx.x]` compiles to): then the wave's access is one block.
#[inline]
fn in_a_row(addrs: &[u64; 64], step: u64) -> bool {
    let first = addrs[0];
    let apart = (0..64).fold(0, |m, l| m | addrs[l] ^ first.wrapping_add(step * l as u64));
    apart == 0
}

/// Loads a row of 64 lanes of `bytes` (1, 2, 4, 8, 12 or 16) each from `p` on into `out`, as
/// little-endian dwords (a narrow value zero-extended), each lane's value with the host accesses
/// [`relaxed::load`] makes for its width, bytes and shorts a quadword at a time.
///
/// # Safety
/// The `64 * bytes` bytes from `p` on lie in one allocation.
#[inline(always)]
unsafe fn load_row_of(p: *mut u8, bytes: usize, out: &mut [[u32; 64]; 4]) {
    match bytes {
        1 | 2 => relaxed::load_row_narrow(p, bytes, &mut out[0]),
        4 => relaxed::load_row(p, &mut out[0]),
        8 => (0..64).for_each(|l| {
            let v = relaxed::load_u64(p.add(8 * l));
            out[0][l] = v as u32;
            out[1][l] = (v >> 32) as u32;
        }),
        // 12 or 16: dword by dword, as `relaxed::load` reads them.
        _ => (0..64).for_each(|l| {
            for (i, row) in out.iter_mut().enumerate().take(bytes / 4) {
                row[l] = relaxed::load_u32(p.add(bytes * l + 4 * i));
            }
        }),
    }
}

/// Stores the low `bytes` of each lane's dwords `rows[..][l]` as a row from `p` on, as
/// [`load_row_of`] loads them.
///
/// # Safety
/// As [`load_row_of`].
#[inline(always)]
unsafe fn store_row_of(p: *mut u8, bytes: usize, rows: [&[u32; 64]; 4]) {
    match bytes {
        1 | 2 => relaxed::store_row_narrow(p, bytes, rows[0]),
        4 => relaxed::store_row(p, rows[0]),
        8 => (0..64).for_each(|l| {
            let v = rows[0][l] as u64 | (rows[1][l] as u64) << 32;
            relaxed::store_u64(p.add(8 * l), v)
        }),
        // 12 or 16: dword by dword, as `relaxed::store` writes them.
        _ => (0..64).for_each(|l| {
            for (i, row) in rows.iter().enumerate().take(bytes / 4) {
                relaxed::store_u32(p.add(bytes * l + 4 * i), row[l]);
            }
        }),
    }
}

/// An access that ran past the end of an allocation but stayed in its last page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaddingAccess {
    pub addr: u64,
    pub len: u64,
    pub base: u64,
    pub size: u64,
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new(DEFAULT_MEMORY_LIMIT)
    }
}

impl Memory {
    pub fn new(limit: u64) -> Memory {
        Memory::with_placement(limit, Placement::Sparse)
    }

    pub fn with_placement(limit: u64, placement: Placement) -> Memory {
        Memory {
            allocs: Vec::new(),
            placement,
            next: HEAP_BASE,
            used: 0,
            limit,
            last: recent::Recent::default(),
            padding: Cell::new((0, None)),
            check: None,
            tombstones: Tombstones::default(),
            writes: 0,
            shared_writes: None,
            views: Arc::default(),
            gws: Arc::default(),
            caches: None,
            serial: 0,
        }
    }

    /// Turns the sanitizers of `set` on for what is allocated from now on.
    pub fn enable_checks(&mut self, set: CheckSet) {
        self.check = (!set.is_empty()).then(|| Box::new(GlobalCheck::new(set)));
        // A new set of sanitizers starts with no memory of earlier frees (the blocks held back
        // go back to the allocator).
        self.tombstones = Tombstones::default();
    }

    /// Whether any sanitizer runs: the one test the access path makes.
    #[inline(always)]
    pub fn checking(&self) -> bool {
        self.check.is_some()
    }

    pub fn checks(&self) -> CheckSet {
        self.check.as_ref().map_or(CheckSet::NONE, |c| c.set)
    }

    /// The sanitizers' state.
    /// memcheck's record of the buffers freed so far.
    pub fn tombstones(&self) -> &Tombstones {
        &self.tombstones
    }

    pub fn check_state(&mut self) -> Option<&mut GlobalCheck> {
        self.check.as_deref_mut()
    }

    /// A write made through [`Memory::check_parts`] (the sanitizers' checked store), counted
    /// as [`Memory::bytes_mut`] counts its own.
    pub(crate) fn count_write(&mut self) {
        self.writes = self.writes.wrapping_add(1);
    }

    /// The allocations and the sanitizers' state at once, for the checked access path.
    pub(crate) fn check_parts(&mut self) -> (&mut [Allocation], Option<&mut GlobalCheck>) {
        (&mut self.allocs, self.check.as_deref_mut())
    }

    /// Index of the live allocation holding all of `[addr, addr+len)`, its page padding
    /// excluded (the sanitizers report what the page-granular path lets through).
    #[inline]
    pub(crate) fn locate(&self, addr: u64, len: u64) -> Option<usize> {
        let end = addr.checked_add(len)?;
        let i = match self.candidate(addr, end)? {
            Ok(hit) => return Some(hit),
            Err(i) => i,
        };
        let a = &self.allocs[i];
        (end <= a.end()).then(|| {
            self.last.hit(i, a.base, a.end());
            i
        })
    }

    /// Whether the unchecked path lets `[addr, addr+len)` through (page padding included),
    /// without counting it as a padding access.
    pub(crate) fn reachable(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else {
            return false;
        };
        let i = self.allocs.partition_point(|a| a.base <= addr);
        i.checked_sub(1)
            .is_some_and(|i| end <= self.allocs[i].reach_end())
    }

    /// Whether `addr` lies in an allocation, its page padding or the guard page after it: memory
    /// that is the allocation's own, whatever else the host has there.
    pub(crate) fn near_allocation(&self, addr: u64) -> bool {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        i.checked_sub(1).is_some_and(|i| {
            let a = &self.allocs[i];
            let guard = match self.placement {
                Placement::Host => HOST_PAGE as u64,
                Placement::Sparse => GRANULE,
            };
            addr < a.reach_end() + guard
        })
    }

    /// initcheck: the host wrote `[addr, addr+len)` (a copy or fill the runtime made).
    pub fn note_host_write(&mut self, addr: u64, len: u64) {
        self.writes = self.writes.wrapping_add(1);
        if self.check.is_none() || len == 0 {
            return;
        }
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if let Some(a) = i.checked_sub(1).map(|i| &mut self.allocs[i]) {
            if addr < a.end() {
                let off = (addr - a.base) as usize;
                if let Some(w) = &mut a.written {
                    w.set(off, len as usize);
                }
            }
        }
    }

    /// initcheck: the allocation at `base` holds memory the host writes directly (host or
    /// managed memory), so all of it counts as written.
    pub fn note_host_visible(&mut self, base: u64) {
        if let Ok(i) = self.allocs.binary_search_by_key(&base, |a| a.base) {
            self.allocs[i].written = None;
        }
    }

    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The cap on the sum of all allocations.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Allocates `len` zeroed bytes (at least one, so every allocation has an address of its own).
    pub fn alloc(&mut self, len: u64, kind: AllocKind) -> Result<u64, MemError> {
        let size = len.max(1);
        let oom = || MemError::OutOfMemory {
            len,
            used: self.used,
            limit: self.limit,
        };
        if self.used.saturating_add(size) > self.limit {
            return Err(oom());
        }
        let size_host = usize::try_from(size).map_err(|_| oom())?;
        let (backing, base) = match self.placement {
            Placement::Sparse => {
                let backing = Backing::zeroed(size_host, 16, 0).ok_or_else(oom)?;
                let base = self.next;
                let span = size.div_ceil(GRANULE) * GRANULE;
                // One granule of guard space after each allocation.
                self.next = base + span + GRANULE;
                debug_assert!(self.next < SHARED_APERTURE_BASE);
                (backing, base)
            }
            Placement::Host => {
                let padded = size_host
                    .checked_next_multiple_of(HOST_PAGE)
                    .ok_or_else(oom)?;
                let mut backing =
                    Backing::zeroed(size_host, HOST_PAGE, padded - size_host + HOST_PAGE)
                        .ok_or_else(oom)?;
                backing.reach = padded;
                let base = backing.ptr.as_ptr() as u64;
                (backing, base)
            }
        };
        self.used += size;
        // initcheck tracks the buffers programs allocate; what the runtime fills (kernargs,
        // packets, code) is written by construction, and scratch is the compiler's business.
        let written = match &self.check {
            Some(c) if c.set.has(Check::Initcheck) && kind == AllocKind::Buffer => {
                Some(Written::new(size_host))
            }
            _ => None,
        };
        self.writes += 1;
        self.insert(Allocation {
            base,
            kind,
            backing,
            written,
            serial: 0,
        });
        Ok(base)
    }

    /// Makes `len` bytes of host memory at `addr` reachable by the guest at the same address
    /// (`hipHostRegister`). They stay the program's: [`Memory::free`] only forgets them.
    ///
    /// # Safety
    /// `[addr, addr+len)` must be memory the caller may read and write until it is freed here.
    pub unsafe fn register(
        &mut self,
        addr: u64,
        len: u64,
        kind: AllocKind,
    ) -> Result<(), MemError> {
        let end = addr.checked_add(len);
        if len == 0 || addr == 0 || end.is_none_or(|e| e > SHARED_APERTURE_BASE) {
            return Err(MemError::BadRange { addr, len });
        }
        if self.overlaps(addr, len) {
            return Err(MemError::Overlap { addr, len });
        }
        self.writes += 1;
        let backing = Backing {
            ptr: NonNull::new(addr as *mut u8).ok_or(MemError::BadRange { addr, len })?,
            len: len as usize,
            reach: len as usize,
            owned: None,
        };
        self.insert(Allocation {
            base: addr,
            kind,
            backing,
            written: None,
            serial: 0,
        });
        Ok(())
    }

    fn overlaps(&self, addr: u64, len: u64) -> bool {
        let i = self.allocs.partition_point(|a| a.base < addr + len);
        i.checked_sub(1)
            .is_some_and(|i| self.allocs[i].end() > addr)
    }

    /// Each allocation's range and serial number, for [`crate::memsys`]'s placement-free
    /// addresses: `(base, end, serial)` in address order.
    pub fn serials(&self) -> Vec<(u64, u64, u64)> {
        self.allocs
            .iter()
            .map(|a| (a.base, a.reach_end(), a.serial))
            .collect()
    }

    fn insert(&mut self, mut a: Allocation) {
        a.serial = self.serial;
        self.serial += 1;
        let i = self.allocs.partition_point(|b| b.base < a.base);
        self.allocs.insert(i, a);
        self.last.clear();
    }

    /// Releases the allocation that starts at `addr` (forgets it, for registered memory).
    pub fn free(&mut self, addr: u64) -> Result<(), MemError> {
        let i = self
            .allocs
            .binary_search_by_key(&addr, |a| a.base)
            .map_err(|_| MemError::NotAllocationStart { addr })?;
        let a = self.allocs.remove(i);
        self.writes += 1;
        if a.backing.owned.is_some() {
            self.used -= a.len();
        }
        self.last.clear();
        if self.checks().has(Check::Memcheck) && a.kind == AllocKind::Buffer {
            // Keeps the block (so the host allocator cannot hand its addresses out again while
            // a use after free may still come) and a tombstone naming it.
            let held = a.backing.owned.is_some();
            self.tombstones
                .bury(a.base, a.len(), a.kind, held.then_some(a));
        }
        Ok(())
    }

    /// The allocation holding the byte at `addr`.
    pub fn allocation_containing(&self, addr: u64) -> Option<&Allocation> {
        self.find(addr, 1).map(|i| &self.allocs[i])
    }

    /// The allocation starting at `addr`.
    pub fn allocation(&self, addr: u64) -> Option<&Allocation> {
        let i = self.allocs.binary_search_by_key(&addr, |a| a.base).ok()?;
        self.allocs.get(i)
    }

    /// `Ok` with one of the last allocations hit when it holds `[addr, end)` (padding
    /// excluded), else `Err` with the one starting at or below `addr`, for the caller to check
    /// the end against; `None` when none starts there.
    #[inline]
    fn candidate(&self, addr: u64, end: u64) -> Option<Result<usize, usize>> {
        if let Some(i) = self.last.find(addr, end) {
            return Some(Ok(i));
        }
        let i = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        Some(Err(i))
    }

    /// Index of the allocation holding `[addr, addr+len)`.
    #[inline]
    fn find(&self, addr: u64, len: u64) -> Option<usize> {
        let end = addr.checked_add(len)?;
        let i = match self.candidate(addr, end)? {
            Ok(hit) => return Some(hit),
            Err(i) => i,
        };
        let a = &self.allocs[i];
        if end > a.reach_end() {
            return None;
        }
        if end > a.end() {
            self.note_padding(addr, len, a);
        } else {
            self.last.hit(i, a.base, a.end());
        }
        Some(i)
    }

    #[cold]
    fn note_padding(&self, addr: u64, len: u64, a: &Allocation) {
        let (n, first) = self.padding.get();
        let first = first.or(Some(PaddingAccess {
            addr,
            len,
            base: a.base,
            size: a.len(),
        }));
        self.padding.set((n + 1, first));
    }

    /// Takes the count of accesses into allocations' page padding since the last call, and the
    /// first of them.
    pub fn take_padding_accesses(&self) -> (u64, Option<PaddingAccess>) {
        self.padding.replace((0, None))
    }

    /// The bytes `[addr, addr+len)`, which must lie inside one allocation.
    #[inline]
    pub fn bytes(&self, addr: u64, len: usize) -> Result<&[u8], MemError> {
        let i = self.find(addr, len as u64).ok_or(MemError::Unmapped {
            addr,
            len: len as u64,
        })?;
        let a = &self.allocs[i];
        let off = (addr - a.base) as usize;
        Ok(&a.backing.bytes()[off..off + len])
    }

    #[inline]
    pub fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        let i = self.find(addr, len as u64).ok_or(MemError::Unmapped {
            addr,
            len: len as u64,
        })?;
        self.writes = self.writes.wrapping_add(1);
        let a = &mut self.allocs[i];
        let off = (addr - a.base) as usize;
        Ok(&mut a.backing.bytes_mut()[off..off + len])
    }

    /// Whether this is the device's own memory with no worker view made from it alive, and
    /// its addresses are not the host program's (placed [`Placement::Sparse`]; with
    /// [`Placement::Host`] a HIP program's own threads may reach them, as system-scope atomics
    /// on host memory allow): then no other thread reaches its allocations, and a guest
    /// read-modify-write may be a host load and store rather than a host atomic (which costs
    /// several times as much), with the same result.
    #[inline]
    pub fn alone(&self) -> bool {
        self.shared_writes.is_none()
            && Arc::strong_count(&self.views) == 1
            && self.placement == Placement::Sparse
    }

    /// The device's global wave sync resources (`ds_gws_*`).
    #[inline]
    pub fn gws(&self) -> &gws::Gws {
        &self.gws
    }

    /// An empty memory sharing this one's GWS resources: what the timing model's CUs run
    /// their non-memory instructions against (`ds_gws_*` among them).
    pub fn gws_only(&self) -> Memory {
        let mut m = Memory::new(0);
        m.gws = self.gws.clone();
        m
    }

    /// A change to device state outside memory (a wave arriving at a GWS barrier) counted as a
    /// write, so that the spin detector sees waves waiting on it make progress.
    #[inline]
    pub fn note_write(&mut self) {
        self.writes = self.writes.wrapping_add(1);
    }

    /// How many writes (and mapping changes) memory has seen: equal counts mean unchanged
    /// memory.
    #[inline]
    pub fn writes(&self) -> u64 {
        match &self.shared_writes {
            None => self.writes,
            Some(s) => self.writes.wrapping_add(s.total.load(Ordering::Relaxed)),
        }
    }

    /// A worker view tells the other workers that it has written since it last told them
    /// (called once per round of the run loop, so the shared count is touched rarely).
    #[inline]
    pub fn publish_writes(&mut self) {
        if let Some(s) = &mut self.shared_writes {
            if s.published != self.writes {
                s.published = self.writes;
                s.total.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Where the guest's `[addr, addr+len)` lives on the host; it lies inside one allocation.
    #[inline]
    fn guest_ptr(&self, addr: u64, len: usize) -> Result<*mut u8, MemError> {
        let i = self.find(addr, len as u64).ok_or(MemError::Unmapped {
            addr,
            len: len as u64,
        })?;
        let a = &self.allocs[i];
        // SAFETY: `find` checked that the range lies within the allocation's reach.
        Ok(unsafe { a.backing.ptr.as_ptr().add((addr - a.base) as usize) })
    }

    /// A guest load of `out.len()` bytes at `addr` (see [`relaxed`] for why it is atomic).
    #[inline]
    pub fn load(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        let p = self.guest_ptr(addr, out.len())?;
        // SAFETY: `p` is valid for the range; guest accesses are all atomic.
        unsafe { relaxed::load(p, out) };
        Ok(())
    }

    /// A guest load of `out.len()` little-endian dwords at `addr` (a multiple of 4), with the
    /// host accesses [`Memory::load`] makes for their bytes, into dwords rather than bytes: a
    /// scalar load's registers. (Always inlined: each scalar load's width is then a constant
    /// here, and the copy straight-line code; left to the inliner, it was not inlined in
    /// some builds, a call and a loop of a length known at run time.)
    #[inline(always)]
    pub fn load_words(&self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        let p = self.guest_ptr(addr, 4 * out.len())?;
        // SAFETY: `p` is valid for the range; guest accesses are all atomic.
        unsafe { relaxed::load_words(p, out) };
        Ok(())
    }

    /// A guest store of `data` at `addr`.
    #[inline]
    pub fn store(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        let p = self.guest_ptr(addr, data.len())?;
        self.writes = self.writes.wrapping_add(1);
        // SAFETY: as in `load`.
        unsafe { relaxed::store(p, data) };
        Ok(())
    }

    /// A guest read-modify-write of the `bytes`-byte (4 or 8) value at `addr`: one host atomic
    /// when aligned (what device atomics need once workgroups run on several threads), else a
    /// load and a store. Returns the old value.
    #[inline]
    pub fn rmw(
        &mut self,
        addr: u64,
        bytes: usize,
        mut new: impl FnMut(u64) -> u64,
    ) -> Result<u64, MemError> {
        let p = self.guest_ptr(addr, bytes)?;
        self.writes = self.writes.wrapping_add(1);
        // SAFETY: as in `load`.
        if let Some(old) = unsafe { relaxed::rmw(p, bytes, &mut new) } {
            return Ok(old);
        }
        let mut buf = [0u8; 8];
        // SAFETY: as in `load`.
        unsafe { relaxed::load(p, &mut buf[..bytes]) };
        let old = u64::from_le_bytes(buf);
        unsafe { relaxed::store(p, &new(old).to_le_bytes()[..bytes]) };
        Ok(old)
    }

    /// Whether `[addr, addr + len)` lies inside one allocation, not reaching into its page
    /// padding (whose accesses are counted one by one, so fast paths leave them to the per-lane
    /// path).
    #[inline]
    pub fn inside_allocation(&self, addr: u64, len: u64) -> bool {
        self.window(addr, addr.saturating_add(len)).is_some()
    }

    /// The host address of guest address `lo` when `[lo, hi)` lies inside one allocation
    /// (not its page padding, whose accesses are counted one by one): one lookup for all the
    /// lanes of a vector access whose addresses span that range.
    #[inline]
    fn window(&self, lo: u64, hi: u64) -> Option<*mut u8> {
        // `locate`, not `find`: a range reaching into the page padding goes to the per-lane
        // path, which counts each such access once.
        let a = &self.allocs[self.locate(lo, hi.checked_sub(lo)?)?];
        // SAFETY: `locate` checked the range against the allocation.
        Some(unsafe { a.backing.ptr.as_ptr().add((lo - a.base) as usize) })
    }

    /// For an access of every lane, `bytes` each, in a row (lane `l` at `addrs[0] + bytes * l`,
    /// what `buf[threadIdx.x]` compiles to): `Some` with the host address of the first lane's
    /// bytes when the whole row lies in one allocation (not its page padding), `Some(None)`
    /// when it does not (the per-lane path then reports what faults). `None` for any other
    /// access. One look at the addresses, where the general path makes two.
    #[inline]
    fn row(&self, addrs: &[u64; 64], exec: u64, bytes: u64) -> Option<Option<*mut u8>> {
        if exec != u64::MAX || !in_a_row(addrs, bytes) {
            return None;
        }
        Some(self.row_window(addrs[0], bytes as usize))
    }

    /// Guest dword loads of the lanes set in `exec` from `addrs` into `out`, when they all lie
    /// in one allocation; false (nothing loaded) otherwise, for the per-lane path to do them
    /// and report what faults.
    #[inline]
    pub fn load_dwords(&self, addrs: &[u64; 64], exec: u64, out: &mut [u32; 64]) -> bool {
        if let Some(row) = self.row(addrs, exec, 4) {
            let Some(p) = row else { return false };
            // SAFETY: the lanes' 256 bytes from `p` on lie in one allocation.
            unsafe { relaxed::load_row(p, out) };
            return true;
        }
        let Some((lo, hi)) = span(addrs, exec, 4) else {
            return exec == 0;
        };
        let Some(p) = self.window(lo, hi) else {
            return false;
        };
        for (l, o) in out.iter_mut().enumerate() {
            if exec >> l & 1 != 0 {
                // SAFETY: the lane's dword lies in the window.
                *o = unsafe { relaxed::load_u32(p.add((addrs[l] - lo) as usize)) };
            }
        }
        true
    }

    /// Guest dword stores of `vals` to `addrs` in the lanes set in `exec`, as
    /// [`Memory::load_dwords`].
    #[inline]
    pub fn store_dwords(&mut self, addrs: &[u64; 64], exec: u64, vals: &[u32; 64]) -> bool {
        if let Some(row) = self.row(addrs, exec, 4) {
            let Some(p) = row else { return false };
            self.writes = self.writes.wrapping_add(1);
            // SAFETY: the lanes' 256 bytes from `p` on lie in one allocation; lanes in a row
            // do not overlap, so their order does not matter.
            unsafe { relaxed::store_row(p, vals) };
            return true;
        }
        let Some((lo, hi)) = span(addrs, exec, 4) else {
            return exec == 0;
        };
        let Some(p) = self.window(lo, hi) else {
            return false;
        };
        self.writes = self.writes.wrapping_add(1);
        if hi - lo == 4 {
            // Every lane on one dword (`atomicExch` whose result is unused, a flag every lane
            // sets): the last lane's store is what lane order leaves, and the one store is
            // one of the orders the hardware may serialise the lanes in.
            let last = 63 - exec.leading_zeros() as usize;
            // SAFETY: the dword is the window.
            unsafe { relaxed::store_u32(p, vals[last]) };
            return true;
        }
        for (l, v) in vals.iter().enumerate() {
            if exec >> l & 1 != 0 {
                // SAFETY: the lane's dword lies in the window.
                unsafe { relaxed::store_u32(p.add((addrs[l] - lo) as usize), *v) };
            }
        }
        true
    }

    /// Guest loads of `bytes` (1, 2, 4, 8, 12 or 16) per lane at `addrs`, in the lanes set in
    /// `exec`, as little-endian dwords into `out` (a narrow value zero-extended into
    /// `out[0]`), when they all lie in one allocation; false (nothing loaded) otherwise, for
    /// the per-lane path to do them and report what faults. Each lane's value is read with the
    /// host accesses [`relaxed::load`] makes for its width, as on the per-lane path; but every
    /// lane's byte or short in a row, from an aligned start, a quadword at a time (as
    /// [`relaxed::load_row`] reads a row of dwords two at a time).
    #[inline]
    pub fn load_lanes(
        &self,
        addrs: &[u64; 64],
        exec: u64,
        bytes: usize,
        out: &mut [[u32; 64]; 4],
    ) -> bool {
        if let Some(row) = self.row(addrs, exec, bytes as u64) {
            let Some(p) = row else { return false };
            // SAFETY: the lanes' bytes from `p` on lie in one allocation.
            unsafe { load_row_of(p, bytes, out) };
            return true;
        }
        self.load_lanes_apart(addrs, exec, bytes, out)
    }

    /// Guest loads of a full wave's row of `bytes` per lane from `base` on (lane `l` at
    /// `base + bytes * l`), as [`Memory::load_lanes`] loads such a row, for a caller that knows
    /// the lanes form a row without their 64 addresses. False (nothing loaded) when the row
    /// does not lie in one allocation.
    #[inline]
    pub fn load_row_lanes(&self, base: u64, bytes: usize, out: &mut [[u32; 64]; 4]) -> bool {
        let Some(p) = self.row_window(base, bytes) else {
            return false;
        };
        // SAFETY: the lanes' bytes from `p` on lie in one allocation.
        unsafe { load_row_of(p, bytes, out) };
        true
    }

    /// [`Memory::load_row_lanes`] of dwords, straight into `out`.
    #[inline]
    pub fn load_dword_row(&self, base: u64, out: &mut [u32; 64]) -> bool {
        let Some(p) = self.row_window(base, 4) else {
            return false;
        };
        // SAFETY: the lanes' 256 bytes from `p` on lie in one allocation.
        unsafe { relaxed::load_row(p, out) };
        true
    }

    /// Guest stores of a full wave's row (as [`Memory::load_row_lanes`]), with the host
    /// accesses of [`Memory::store_lanes`].
    #[inline]
    pub fn store_row_lanes(&mut self, base: u64, bytes: usize, rows: [&[u32; 64]; 4]) -> bool {
        let Some(p) = self.row_window(base, bytes) else {
            return false;
        };
        self.writes = self.writes.wrapping_add(1);
        // SAFETY: the lanes' bytes from `p` on lie in one allocation; lanes in a row do not
        // overlap, so their order does not matter.
        unsafe { store_row_of(p, bytes, rows) };
        true
    }

    /// The `bytes` (1 to 16) at guest `addr`, as little-endian dwords (a narrow value
    /// zero-extended), read with the host accesses [`relaxed::load`] makes for the width:
    /// what every lane of a wave whose lanes all address `addr` loads. `None` (nothing loaded)
    /// unless the bytes lie inside one allocation.
    #[inline]
    pub fn load_one(&self, addr: u64, bytes: usize) -> Option<[u32; 4]> {
        let p = self.window(addr, addr.checked_add(bytes as u64)?)?;
        let mut buf = [0u8; 16];
        // SAFETY: the bytes lie in one allocation.
        unsafe { relaxed::load(p, &mut buf[..bytes]) };
        Some(std::array::from_fn(|i| {
            u32::from_le_bytes([buf[4 * i], buf[4 * i + 1], buf[4 * i + 2], buf[4 * i + 3]])
        }))
    }

    /// Stores the low `bytes` (1 to 16) of `vals` at guest `addr`, as [`Memory::load_one`]
    /// loads them: what a wave whose lanes all store to `addr` leaves (its last lane's
    /// value). False (nothing stored) unless the bytes lie inside one allocation.
    #[inline]
    pub fn store_one(&mut self, addr: u64, bytes: usize, vals: [u32; 4]) -> bool {
        let Some(p) = addr
            .checked_add(bytes as u64)
            .and_then(|end| self.window(addr, end))
        else {
            return false;
        };
        self.writes = self.writes.wrapping_add(1);
        let mut buf = [0u8; 16];
        for (i, v) in vals.iter().enumerate() {
            buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        // SAFETY: the bytes lie in one allocation.
        unsafe { relaxed::store(p, &buf[..bytes]) };
        true
    }

    /// The host address of a row of 64 lanes of `bytes` each from guest `base` on, when the
    /// whole row lies in one allocation (not its page padding).
    #[inline]
    fn row_window(&self, base: u64, bytes: usize) -> Option<*mut u8> {
        self.window(base, base.checked_add(64 * bytes as u64)?)
    }

    /// [`Memory::load_lanes`] of lanes not in a row: each lane's address looked at.
    #[inline]
    fn load_lanes_apart(
        &self,
        addrs: &[u64; 64],
        exec: u64,
        bytes: usize,
        out: &mut [[u32; 64]; 4],
    ) -> bool {
        let Some((lo, hi)) = span(addrs, exec, bytes as u64) else {
            return exec == 0;
        };
        let Some(p) = self.window(lo, hi) else {
            return false;
        };
        // One loop per width, each lane's value read whole: assembling it from a byte buffer
        // stalled on every lane (narrow stores forwarded to a wide load).
        let lanes = (0..64).filter(|l| exec >> l & 1 != 0);
        // SAFETY (every arm): each active lane's bytes lie in the window.
        let at = |a: u64| unsafe { p.add((a - lo) as usize) };
        match bytes {
            1 => lanes.for_each(|l| out[0][l] = unsafe { relaxed::load_u8(at(addrs[l])) } as u32),
            2 => lanes.for_each(|l| out[0][l] = unsafe { relaxed::load_u16(at(addrs[l])) } as u32),
            4 => lanes.for_each(|l| out[0][l] = unsafe { relaxed::load_u32(at(addrs[l])) }),
            8 => lanes.for_each(|l| {
                let v = unsafe { relaxed::load_u64(at(addrs[l])) };
                out[0][l] = v as u32;
                out[1][l] = (v >> 32) as u32;
            }),
            _ => lanes.for_each(|l| {
                let mut buf = [0u8; 16];
                unsafe { relaxed::load(at(addrs[l]), &mut buf[..bytes]) };
                for (i, row) in out.iter_mut().enumerate().take(bytes.div_ceil(4)) {
                    let b = &buf[4 * i..4 * i + 4];
                    row[l] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }),
        }
        true
    }

    /// Guest stores of the low `bytes` of each lane's dwords `rows[..][l]` to `addrs`, lane by
    /// lane in lane order, with the host accesses of [`Memory::load_lanes`].
    #[inline]
    pub fn store_lanes(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        bytes: usize,
        rows: [&[u32; 64]; 4],
    ) -> bool {
        if let Some(row) = self.row(addrs, exec, bytes as u64) {
            let Some(p) = row else { return false };
            self.writes = self.writes.wrapping_add(1);
            // SAFETY: the lanes' bytes from `p` on lie in one allocation; lanes in a row do
            // not overlap, so their order does not matter.
            unsafe { store_row_of(p, bytes, rows) };
            return true;
        }
        self.store_lanes_apart(addrs, exec, bytes, rows)
    }

    /// [`Memory::store_lanes`] of lanes not in a row: each lane's address looked at, lane by
    /// lane in lane order (two lanes may store to one place).
    #[inline]
    fn store_lanes_apart(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        bytes: usize,
        rows: [&[u32; 64]; 4],
    ) -> bool {
        let Some((lo, hi)) = span(addrs, exec, bytes as u64) else {
            return exec == 0;
        };
        let Some(p) = self.window(lo, hi) else {
            return false;
        };
        self.writes = self.writes.wrapping_add(1);
        let lanes = (0..64).filter(|l| exec >> l & 1 != 0);
        // SAFETY (every arm): each active lane's bytes lie in the window.
        let at = |a: u64| unsafe { p.add((a - lo) as usize) };
        // One loop per width, each lane's value stored whole, with the host accesses
        // [`relaxed::store`] makes for its width.
        match bytes {
            1 => lanes.for_each(|l| unsafe { relaxed::store_u8(at(addrs[l]), rows[0][l] as u8) }),
            2 => lanes.for_each(|l| unsafe { relaxed::store_u16(at(addrs[l]), rows[0][l] as u16) }),
            4 => lanes.for_each(|l| unsafe { relaxed::store_u32(at(addrs[l]), rows[0][l]) }),
            8 => lanes.for_each(|l| {
                let v = rows[0][l] as u64 | (rows[1][l] as u64) << 32;
                unsafe { relaxed::store_u64(at(addrs[l]), v) }
            }),
            // 12 or 16: dword by dword, as `relaxed::store` writes them.
            _ => lanes.for_each(|l| {
                for (i, row) in rows.iter().enumerate().take(bytes / 4) {
                    unsafe { relaxed::store_u32(at(addrs[l]).add(4 * i), row[l]) };
                }
            }),
        }
        true
    }

    /// Guest read-modify-writes of `bytes` (4 or 8) per lane at `addrs`, in the lanes set in
    /// `exec`, in lane order: lane `l`'s value becomes `new(l, old)` and `old` is returned in
    /// `olds[l]`. Each lane is one host atomic, as [`Memory::rmw`] makes it; one lookup for
    /// all of them when they lie in one allocation, else false (nothing done) for the per-lane
    /// path to do them and report what faults.
    #[inline]
    pub fn rmw_lanes(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        bytes: usize,
        mut new: impl FnMut(usize, u64) -> u64,
        olds: &mut [u64; 64],
    ) -> bool {
        let Some((lo, hi)) = span(addrs, exec, bytes as u64) else {
            return exec == 0;
        };
        let Some(p) = self.window(lo, hi) else {
            return false;
        };
        self.writes = self.writes.wrapping_add(1);
        for (l, &a) in addrs.iter().enumerate() {
            if exec >> l & 1 == 0 {
                continue;
            }
            // SAFETY: the lane's bytes lie in the window.
            let p = unsafe { p.add((a - lo) as usize) };
            let step = |old| new(l, old);
            // SAFETY: as above.
            olds[l] = match unsafe { relaxed::rmw(p, bytes, step) } {
                Some(old) => old,
                // Misaligned: a load and a store, as `rmw` does it.
                None => {
                    let mut buf = [0u8; 8];
                    // SAFETY: as above.
                    unsafe { relaxed::load(p, &mut buf[..bytes]) };
                    let old = u64::from_le_bytes(buf);
                    // SAFETY: as above.
                    unsafe { relaxed::store(p, &new(l, old).to_le_bytes()[..bytes]) };
                    old
                }
            };
        }
        true
    }

    /// Guest dword loads of whole rows of lanes from one block: lane `l` of row `i` from
    /// `start + 256 * i + 4 * l` into `rows[i][l]` (scratch as compiled code reaches it, see
    /// `exec::mubuf`). Every lane is loaded — the block is in bounds — and the caller keeps
    /// those of the active ones. False (nothing loaded) unless the block lies in one
    /// allocation, for the per-lane path to do it.
    #[inline]
    pub fn load_rows(&self, start: u64, rows: &mut [[u32; 64]]) -> bool {
        let Some(p) = start
            .checked_add(256 * rows.len() as u64)
            .and_then(|hi| self.window(start, hi))
        else {
            return false;
        };
        for (i, row) in rows.iter_mut().enumerate() {
            // SAFETY: the row lies in the window.
            unsafe { relaxed::load_row(p.add(256 * i), row) };
        }
        true
    }

    /// Guest dword stores of `n` rows of lanes (`row(i)`) to one block, laid out as in
    /// [`Memory::load_rows`], in the lanes set in `exec`.
    #[inline]
    pub fn store_rows<'r>(
        &mut self,
        start: u64,
        exec: u64,
        n: usize,
        row: impl Fn(usize) -> &'r [u32; 64],
    ) -> bool {
        let Some(p) = start
            .checked_add(256 * n as u64)
            .and_then(|hi| self.window(start, hi))
        else {
            return false;
        };
        self.writes = self.writes.wrapping_add(1);
        for i in 0..n {
            // SAFETY: the row lies in the window.
            let p = unsafe { p.add(256 * i) };
            if exec == u64::MAX {
                // SAFETY: as above.
                unsafe { relaxed::store_row(p, row(i)) };
                continue;
            }
            for (l, v) in row(i).iter().enumerate() {
                if exec >> l & 1 != 0 {
                    // SAFETY: as above.
                    unsafe { relaxed::store_u32(p.add(4 * l), *v) };
                }
            }
        }
        true
    }

    /// A view of the same allocations for one worker thread of a parallel functional dispatch:
    /// it reaches exactly the bytes this memory reaches, keeps its own lookup cache and write
    /// count, and shares `total` with the other views for the spin detector. It has no
    /// sanitizer state (dispatches with `--check` run on one thread) and owns nothing.
    ///
    /// # Safety
    /// The view must be dropped before `self` is mutated or dropped, and used only for guest
    /// accesses ([`Memory::load`], [`Memory::store`], [`Memory::rmw`]) and lookups: those are
    /// atomic, so views on several threads may touch the same bytes.
    /// The shared caches a timed launch of `target` on `cus` CUs continues with: the last
    /// launch's if it was of the same device, else `None` (the caller makes them anew).
    pub fn take_caches(
        &mut self,
        target: gcn_isa::Target,
        cus: u32,
    ) -> Option<Box<crate::memsys::SharedMemory>> {
        match self.caches.take() {
            Some((t, c, caches)) if t == target && c == cus => Some(caches),
            _ => None,
        }
    }

    /// Keeps the shared caches for the next timed launch.
    pub fn keep_caches(
        &mut self,
        target: gcn_isa::Target,
        cus: u32,
        caches: Box<crate::memsys::SharedMemory>,
    ) {
        self.caches = Some((target, cus, caches));
    }

    pub(crate) unsafe fn worker_view(&self, total: Arc<AtomicU64>) -> Memory {
        Memory {
            allocs: self.borrowed_allocs(),
            placement: self.placement,
            next: self.next,
            used: self.used,
            limit: self.limit,
            last: recent::Recent::default(),
            padding: Cell::new((0, None)),
            check: None,
            tombstones: Tombstones::default(),
            writes: 0,
            shared_writes: Some(SharedWrites {
                total,
                published: 0,
            }),
            views: self.views.clone(),
            gws: self.gws.clone(),
            caches: None,
            serial: self.serial,
        }
    }

    /// This memory's allocations as a view holds them: the same backing, owned by `self`.
    fn borrowed_allocs(&self) -> Vec<Allocation> {
        self.allocs
            .iter()
            .map(|a| Allocation {
                base: a.base,
                kind: a.kind,
                backing: Backing {
                    ptr: a.backing.ptr,
                    len: a.backing.len,
                    reach: a.backing.reach,
                    owned: None,
                },
                written: None,
                serial: a.serial,
            })
            .collect()
    }

    /// Makes a worker view reach what `main` (the memory it was made from) reaches now, after
    /// `main` allocated or freed while the view's thread was held (device `malloc`/`free` over
    /// hostcall, [`crate::run::host_hub`]). The view keeps its own counts.
    ///
    /// # Safety
    /// As for [`Memory::worker_view`]; and `main` must not change during the call.
    pub(crate) unsafe fn follow(&mut self, main: &Memory) {
        debug_assert!(self.shared_writes.is_some(), "only a worker view follows");
        self.allocs = main.borrowed_allocs();
        self.last.clear();
        self.next = main.next;
        self.used = main.used;
        self.limit = main.limit;
    }

    /// A worker view tells the others that memory changed outside the guest's stores (the
    /// host answered a hostcall), so that a wave spinning on the answer sees a write.
    pub(crate) fn announce_write(&self) {
        if let Some(s) = &self.shared_writes {
            s.total.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Adds the page-padding accesses a worker view counted to this memory's.
    pub(crate) fn absorb_padding(&self, view: &Memory) {
        let (n, first) = view.take_padding_accesses();
        let (m, mine) = self.padding.get();
        self.padding.set((m + n, mine.or(first)));
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, MemError> {
        let mut b = [0u8; 4];
        self.load(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub fn read_u64(&self, addr: u64) -> Result<u64, MemError> {
        let mut b = [0u8; 8];
        self.load(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), MemError> {
        self.bytes_mut(addr, 4)?.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    pub fn write_u64(&mut self, addr: u64, v: u64) -> Result<(), MemError> {
        self.bytes_mut(addr, 8)?.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    /// Writes `data` at `addr` (host side).
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        self.bytes_mut(addr, data.len())?.copy_from_slice(data);
        self.note_host_write(addr, data.len() as u64);
        Ok(())
    }

    /// Bytes in use.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// A short description of what lies at `addr`, for fault messages.
    pub fn describe(&self, addr: u64) -> String {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if let Some(a) = i.checked_sub(1).map(|i| &self.allocs[i]) {
            if addr < a.end() {
                return format!(
                    "inside {} {:#x}+{:#x}",
                    a.kind.name(),
                    a.base,
                    addr - a.base
                );
            }
        }
        // The nearest allocation the program knows of, below or above: the dispatch's own
        // kernarg segment, packet, queue and scratch mean nothing to it.
        let visible = |a: &&Allocation| {
            !matches!(
                a.kind,
                AllocKind::Kernarg
                    | AllocKind::DispatchPacket
                    | AllocKind::Queue
                    | AllocKind::Scratch
            )
        };
        let below = self.allocs[..i].iter().rev().find(visible);
        let above = self.allocs[i..].iter().find(visible);
        let past = below.map(|a| (addr - a.end(), a));
        let before = above.map(|a| (a.base - addr, a));
        match (past, before) {
            (Some((d, a)), b) if b.is_none_or(|(e, _)| d <= e) => format!(
                "{d:#x} bytes past the end of {} {:#x} ({} bytes)",
                a.kind.name(),
                a.base,
                a.len()
            ),
            (_, Some((d, a))) => format!(
                "{d:#x} bytes before {} {:#x} ({} bytes)",
                a.kind.name(),
                a.base,
                a.len()
            ),
            _ => "not in any allocation".to_string(),
        }
    }
}

/// Where a flat address points (gfx9 apertures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatTarget {
    Global(u64),
    /// Byte offset in the workgroup's LDS.
    Lds(u32),
    /// Byte offset in the lane's private segment.
    Private(u32),
}

#[inline]
pub fn flat_target(addr: u64) -> FlatTarget {
    if addr.wrapping_sub(SHARED_APERTURE_BASE) < APERTURE_SIZE {
        FlatTarget::Lds(addr as u32)
    } else if addr.wrapping_sub(PRIVATE_APERTURE_BASE) < APERTURE_SIZE {
        FlatTarget::Private(addr as u32)
    } else {
        FlatTarget::Global(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_guard_gap() {
        let mut m = Memory::new(1 << 20);
        let a = m.alloc(16, AllocKind::Buffer).unwrap();
        let b = m.alloc(16, AllocKind::Buffer).unwrap();
        assert!(b >= a + 2 * GRANULE);
        m.write_u32(a + 12, 0xdead_beef).unwrap();
        assert_eq!(m.read_u32(a + 12).unwrap(), 0xdead_beef);
        assert_eq!(
            m.read_u32(a + 13),
            Err(MemError::Unmapped {
                addr: a + 13,
                len: 4
            })
        );
        assert!(m.read_u32(a - 4).is_err());
        assert!(m.describe(a + 20).contains("4 bytes past the end"));
        assert_eq!(m.read_u32(b).unwrap(), 0);
    }

    #[test]
    fn limit_and_free() {
        let mut m = Memory::new(100);
        let a = m.alloc(60, AllocKind::Buffer).unwrap();
        assert!(matches!(
            m.alloc(60, AllocKind::Buffer),
            Err(MemError::OutOfMemory { .. })
        ));
        m.free(a).unwrap();
        assert!(m.read_u32(a).is_err());
        m.alloc(60, AllocKind::Buffer).unwrap();
        assert_eq!(
            m.free(a + 1),
            Err(MemError::NotAllocationStart { addr: a + 1 })
        );
    }

    #[test]
    fn host_placement_shares_pointers() {
        let mut m = Memory::with_placement(1 << 20, Placement::Host);
        let a = m.alloc(100, AllocKind::Buffer).unwrap();
        assert_eq!(a % HOST_PAGE as u64, 0);
        m.write_u32(a + 96, 7).unwrap();
        // SAFETY: `a` is the host address of a live 100-byte allocation.
        assert_eq!(unsafe { *((a + 96) as *const u32) }, 7);
        assert!(m.read_u32(a + 4096).is_err());
        assert!(m.describe(a + 4100).contains("0xfa0 bytes past the end"));
        m.free(a).unwrap();
        assert_eq!(m.used(), 0);
    }

    #[test]
    fn host_placement_reaches_the_page_padding_and_counts_it() {
        let mut m = Memory::with_placement(1 << 20, Placement::Host);
        let a = m.alloc(8, AllocKind::Buffer).unwrap();
        m.write_u32(a + 4, 1).unwrap();
        assert_eq!(m.take_padding_accesses(), (0, None));
        // Past the 8 bytes but inside the page: allowed, as on a GPU, and counted.
        m.write_u32(a + 8, 2).unwrap();
        assert_eq!(m.read_u32(a + 4092).unwrap(), 0);
        let (n, first) = m.take_padding_accesses();
        assert_eq!(n, 2);
        assert_eq!(
            first,
            Some(PaddingAccess {
                addr: a + 8,
                len: 4,
                base: a,
                size: 8
            })
        );
        // Past the page: a fault.
        assert!(m.read_u32(a + 4094).is_err());
        assert!(m.read_u32(a + 4096).is_err());
        assert_eq!(m.allocation(a).unwrap().data().len(), 8);
        // The sparse placement has no padding.
        let mut s = Memory::new(1 << 20);
        let b = s.alloc(8, AllocKind::Buffer).unwrap();
        assert!(s.read_u32(b + 8).is_err());
    }

    #[test]
    fn registered_host_memory() {
        let mut m = Memory::with_placement(1 << 20, Placement::Host);
        let mut host = vec![1u32, 2, 3, 4];
        let addr = host.as_mut_ptr() as u64;
        // SAFETY: `host` outlives its registration, which ends at `free` below.
        unsafe { m.register(addr, 16, AllocKind::Registered).unwrap() };
        assert_eq!(
            unsafe { m.register(addr + 8, 16, AllocKind::Registered) },
            Err(MemError::Overlap {
                addr: addr + 8,
                len: 16
            })
        );
        assert_eq!(m.read_u32(addr + 4).unwrap(), 2);
        m.write_u32(addr + 12, 40).unwrap();
        assert_eq!(m.used(), 0);
        m.free(addr).unwrap();
        assert_eq!(host[3], 40);
        assert!(m.read_u32(addr).is_err());
    }

    #[test]
    fn apertures() {
        assert_eq!(flat_target(SHARED_APERTURE_BASE + 8), FlatTarget::Lds(8));
        assert_eq!(
            flat_target(PRIVATE_APERTURE_BASE + 4),
            FlatTarget::Private(4)
        );
        assert_eq!(flat_target(HEAP_BASE), FlatTarget::Global(HEAP_BASE));
    }
}
