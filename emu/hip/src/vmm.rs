//! Virtual memory management as data: physical allocations (`hipMemCreate`), reserved address
//! ranges (`hipMemAddressReserve`) and the mappings of the one into the other (`hipMemMap`).
//!
//! Since device addresses are host addresses here, a reserved range is host address space
//! reserved with `mmap(PROT_NONE)`, and physical memory is a `memfd` (so it can be exported as a
//! file descriptor and mapped in another process). Mapping places the memfd's pages at the
//! reserved address with `mmap(MAP_FIXED | MAP_SHARED)`; the device reaches the mapping once
//! `hipMemSetAccess` grants access (it becomes a registered range of the device's memory, an
//! allocation of class `Mapped`), and unmapping forgets it and puts `PROT_NONE` back, so a
//! kernel that touches an unmapped range faults (`hipErrorIllegalAddress`). Physical memory
//! counts against its device's limit from `hipMemCreate` until it is both released and unmapped,
//! as CUDA's driver keeps it. The emulator does not tell read-only from read-write access: a
//! device given either may read and write.

use crate::types::hipMemAllocationProp;
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

/// The granularity of sizes, offsets and addresses: the host page (what `mmap` works in).
pub(crate) const GRANULARITY: u64 = 4096;

/// Memory from `hipMemCreate` (or imported from a descriptor).
pub(crate) struct Physical {
    pub(crate) fd: OwnedFd,
    pub(crate) size: u64,
    pub(crate) prop: hipMemAllocationProp,
    /// References: the creation, and each `hipMemRetainAllocationHandle`; `hipMemRelease` drops
    /// one.
    pub(crate) references: u32,
    /// Mappings of it that exist.
    pub(crate) mappings: u32,
    /// Whether it counts against its device's limit (imported memory counts where it was made).
    pub(crate) charged: bool,
}

/// One `hipMemMap`: `size` bytes of a physical allocation from `offset`, at `base`.
pub(crate) struct Mapping {
    pub(crate) size: u64,
    pub(crate) physical: usize,
    /// Access flags per device (`hipMemAccessFlags`), as `hipMemSetAccess` set them.
    pub(crate) access: BTreeMap<i32, i32>,
    /// Whether the device's memory holds it (some device was given access).
    pub(crate) registered: bool,
}

/// Memory imported with `hipImportExternalMemory`: the file it is, which the runtime owns
/// from the import on.
pub(crate) struct ExternalMemory {
    pub(crate) fd: OwnedFd,
    pub(crate) size: u64,
}

/// A buffer of external memory (`hipExternalMemoryGetMappedBuffer`): the reservation its
/// pages are mapped into. It outlives the external memory object, until `hipFree`.
pub(crate) struct ExternalBuffer {
    pub(crate) reserved: u64,
    pub(crate) reserved_size: u64,
}

#[derive(Default)]
pub(crate) struct Vmm {
    pub(crate) physical: HashMap<usize, Physical>,
    /// Reserved ranges: base → size.
    pub(crate) reservations: BTreeMap<u64, u64>,
    /// Mappings by base address.
    pub(crate) mappings: BTreeMap<u64, Mapping>,
    /// Imported external memory by handle.
    pub(crate) external: HashMap<usize, ExternalMemory>,
    /// Buffers of external memory by the address handed out.
    pub(crate) external_buffers: HashMap<u64, ExternalBuffer>,
}

impl Vmm {
    /// The reservation that holds all of `[addr, addr+size)`.
    pub(crate) fn reservation_of(&self, addr: u64, size: u64) -> Option<(u64, u64)> {
        let (&base, &len) = self.reservations.range(..=addr).next_back()?;
        (addr.checked_add(size)? <= base + len).then_some((base, len))
    }

    /// Whether any mapping overlaps `[addr, addr+size)`.
    pub(crate) fn overlaps_mapping(&self, addr: u64, size: u64) -> bool {
        let end = addr + size;
        self.mappings
            .range(..end)
            .next_back()
            .is_some_and(|(&b, m)| b + m.size > addr)
    }

    /// The mappings inside `[addr, addr+size)` if they cover it exactly, in order.
    pub(crate) fn mappings_covering(&self, addr: u64, size: u64) -> Option<Vec<u64>> {
        let end = addr.checked_add(size)?;
        let mut at = addr;
        let mut out = Vec::new();
        for (&b, m) in self.mappings.range(addr..end) {
            if b != at {
                return None;
            }
            out.push(b);
            at = b + m.size;
        }
        (at == end && !out.is_empty()).then_some(out)
    }

    /// The mapping holding the byte at `addr`.
    pub(crate) fn mapping_at(&self, addr: u64) -> Option<(u64, &Mapping)> {
        let (&b, m) = self.mappings.range(..=addr).next_back()?;
        (addr < b + m.size).then_some((b, m))
    }
}

/// Reserves `size` bytes of host address space (aligned to `align`, at `hint` if free there):
/// nothing can be read, written or placed there by the host allocator.
pub(crate) fn reserve(size: u64, align: u64, hint: u64) -> Option<u64> {
    let align = align.max(GRANULARITY);
    // Over-reserve by the alignment, then give back the ends.
    let span = size.checked_add(align)?;
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    // SAFETY: a fresh anonymous mapping; the kernel picks the place (`hint` is only a hint).
    let p = unsafe {
        libc::mmap(
            hint as *mut c_void,
            span as usize,
            libc::PROT_NONE,
            flags,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    let start = p as u64;
    let base = if hint != 0 && start == hint && hint.is_multiple_of(align) {
        hint
    } else {
        start.next_multiple_of(align)
    };
    // SAFETY: unmapping the parts of our own mapping outside [base, base+size).
    unsafe {
        if base > start {
            libc::munmap(start as *mut c_void, (base - start) as usize);
        }
        let end = start + span;
        if end > base + size {
            libc::munmap((base + size) as *mut c_void, (end - base - size) as usize);
        }
    }
    Some(base)
}

/// Gives a reserved range back to the host.
pub(crate) fn release_range(base: u64, size: u64) {
    // SAFETY: a range this module reserved, with no mapping left in it.
    unsafe { libc::munmap(base as *mut c_void, size as usize) };
}

/// Places `size` bytes of `physical` from `offset` at `base` (inside a reservation).
pub(crate) fn map(base: u64, size: u64, physical: &Physical, offset: u64) -> bool {
    map_fd(base, size, physical.fd.as_fd(), offset)
}

/// Places `size` bytes of the file `fd` from `offset` (a multiple of [`GRANULARITY`]) at
/// `base` (inside a reservation).
pub(crate) fn map_fd(base: u64, size: u64, fd: BorrowedFd, offset: u64) -> bool {
    let flags = libc::MAP_SHARED | libc::MAP_FIXED;
    // SAFETY: `[base, base+size)` lies in a reservation of ours with no mapping in it, so
    // replacing what is there touches nothing else.
    let p = unsafe {
        libc::mmap(
            base as *mut c_void,
            size as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            fd.as_raw_fd(),
            offset as libc::off_t,
        )
    };
    p as u64 == base
}

/// Puts the reservation back over a mapping.
pub(crate) fn unmap(base: u64, size: u64) {
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED;
    // SAFETY: a mapping of ours inside a reservation of ours.
    unsafe {
        libc::mmap(
            base as *mut c_void,
            size as usize,
            libc::PROT_NONE,
            flags,
            -1,
            0,
        )
    };
}

/// A new memfd of `size` zero bytes.
pub(crate) fn memfd(size: u64) -> Option<OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain system calls; the descriptor is owned from here on.
    unsafe {
        let fd = libc::memfd_create(c"gcnemu-hip-physical".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let fd = OwnedFd::from_raw_fd(fd);
        (libc::ftruncate(fd.as_raw_fd(), size as libc::off_t) == 0).then_some(fd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn physical(size: u64) -> Physical {
        Physical {
            fd: memfd(size).unwrap(),
            size,
            // SAFETY: plain data.
            prop: unsafe { std::mem::zeroed() },
            references: 1,
            mappings: 0,
            charged: false,
        }
    }

    #[test]
    fn prop_has_the_c_layout() {
        use crate::types::hipMemAllocationProp;
        assert_eq!(std::mem::size_of::<hipMemAllocationProp>(), 32);
        assert_eq!(std::mem::offset_of!(hipMemAllocationProp, location), 4);
        assert_eq!(std::mem::offset_of!(hipMemAllocationProp, type_), 16);
        assert_eq!(
            std::mem::offset_of!(hipMemAllocationProp, win32HandleMetaData),
            24
        );
    }

    #[test]
    fn two_mappings_of_one_memfd_share_their_bytes() {
        let p = physical(2 * GRANULARITY);
        let base = reserve(4 * GRANULARITY, 65536, 0).unwrap();
        assert_eq!(base % 65536, 0);
        assert!(map(base, 2 * GRANULARITY, &p, 0));
        assert!(map(base + 2 * GRANULARITY, GRANULARITY, &p, GRANULARITY));
        // SAFETY: both ranges were just mapped read-write.
        unsafe {
            *((base + GRANULARITY + 8) as *mut u32) = 0xfeed;
            assert_eq!(*((base + 2 * GRANULARITY + 8) as *const u32), 0xfeed);
        }
        unmap(base, 3 * GRANULARITY);
        release_range(base, 4 * GRANULARITY);
    }

    #[test]
    fn ranges_are_found_and_covered_exactly() {
        let mut v = Vmm::default();
        v.reservations.insert(0x10000, 0x10000);
        assert_eq!(v.reservation_of(0x12000, 0x1000), Some((0x10000, 0x10000)));
        assert_eq!(v.reservation_of(0x1f000, 0x2000), None);
        for b in [0x10000, 0x11000] {
            v.mappings.insert(
                b,
                Mapping {
                    size: 0x1000,
                    physical: 1,
                    access: BTreeMap::new(),
                    registered: false,
                },
            );
        }
        assert!(v.overlaps_mapping(0x10800, 0x100));
        assert!(!v.overlaps_mapping(0x12000, 0x1000));
        assert_eq!(
            v.mappings_covering(0x10000, 0x2000),
            Some(vec![0x10000, 0x11000])
        );
        assert_eq!(v.mappings_covering(0x10000, 0x3000), None);
        assert_eq!(v.mappings_covering(0x10800, 0x800), None);
        assert_eq!(v.mapping_at(0x11fff).map(|(b, _)| b), Some(0x11000));
        assert!(v.mapping_at(0x12000).is_none());
    }
}
