//! Device memory: a sparse 64-bit address space made of host-allocated buffers.
//!
//! Every byte the guest can touch belongs to an [`Allocation`]; anything else is a fault. Buffers are
//! placed at 64 KiB-aligned addresses with an unmapped guard gap after each one, so an access that
//! runs off the end of a buffer faults instead of landing in its neighbour. Lookups keep the index
//! of the last allocation hit, because the 64 lanes of one instruction almost always hit one buffer.

use std::cell::Cell;

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
/// Default cap on the sum of all allocations (host memory is real memory).
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// What an allocation holds; shown in fault messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    /// A buffer the host allocated.
    Buffer,
    /// The kernarg segment of a dispatch.
    Kernarg,
    /// The `hsa_kernel_dispatch_packet_t` of a dispatch.
    DispatchPacket,
    /// The (zeroed) queue object the queue pointer names.
    Queue,
    /// Scratch backing memory for the private segments of resident waves.
    Scratch,
}

impl AllocKind {
    pub fn name(self) -> &'static str {
        match self {
            AllocKind::Buffer => "buffer",
            AllocKind::Kernarg => "kernarg segment",
            AllocKind::DispatchPacket => "dispatch packet",
            AllocKind::Queue => "queue",
            AllocKind::Scratch => "scratch",
        }
    }
}

#[derive(Debug)]
pub struct Allocation {
    pub base: u64,
    pub kind: AllocKind,
    pub data: Vec<u8>,
}

impl Allocation {
    fn end(&self) -> u64 {
        self.base + self.data.len() as u64
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
}

/// The device's global memory.
#[derive(Debug)]
pub struct Memory {
    /// Sorted by base address; allocations never overlap.
    allocs: Vec<Allocation>,
    next: u64,
    used: u64,
    limit: u64,
    last: Cell<usize>,
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new(DEFAULT_MEMORY_LIMIT)
    }
}

impl Memory {
    pub fn new(limit: u64) -> Memory {
        Memory {
            allocs: Vec::new(),
            next: HEAP_BASE,
            used: 0,
            limit,
            last: Cell::new(0),
        }
    }

    /// Allocates `len` zeroed bytes (at least one, so every allocation has an address of its own).
    pub fn alloc(&mut self, len: u64, kind: AllocKind) -> Result<u64, MemError> {
        let size = len.max(1);
        if self.used.saturating_add(size) > self.limit {
            return Err(MemError::OutOfMemory {
                len,
                used: self.used,
                limit: self.limit,
            });
        }
        let base = self.next;
        let span = size.div_ceil(GRANULE) * GRANULE;
        // One granule of guard space after each allocation.
        self.next = base + span + GRANULE;
        debug_assert!(self.next < SHARED_APERTURE_BASE);
        self.used += size;
        // `vec![0; n]` asks the allocator for zeroed pages, so untouched memory costs nothing.
        self.allocs.push(Allocation {
            base,
            kind,
            data: vec![0; size as usize],
        });
        Ok(base)
    }

    /// Releases the allocation that starts at `addr`.
    pub fn free(&mut self, addr: u64) -> Result<(), MemError> {
        let i = self
            .allocs
            .binary_search_by_key(&addr, |a| a.base)
            .map_err(|_| MemError::NotAllocationStart { addr })?;
        let a = self.allocs.remove(i);
        self.used -= a.data.len() as u64;
        self.last.set(0);
        Ok(())
    }

    /// The allocation starting at `addr`.
    pub fn allocation(&self, addr: u64) -> Option<&Allocation> {
        let i = self.allocs.binary_search_by_key(&addr, |a| a.base).ok()?;
        self.allocs.get(i)
    }

    /// Index of the allocation holding `[addr, addr+len)`.
    #[inline]
    fn find(&self, addr: u64, len: u64) -> Option<usize> {
        let end = addr.checked_add(len)?;
        let last = self.last.get();
        if let Some(a) = self.allocs.get(last) {
            if addr >= a.base && end <= a.end() {
                return Some(last);
            }
        }
        let i = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        let a = &self.allocs[i];
        (end <= a.end()).then(|| {
            self.last.set(i);
            i
        })
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
        Ok(&a.data[off..off + len])
    }

    #[inline]
    pub fn bytes_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        let i = self.find(addr, len as u64).ok_or(MemError::Unmapped {
            addr,
            len: len as u64,
        })?;
        let a = &mut self.allocs[i];
        let off = (addr - a.base) as usize;
        Ok(&mut a.data[off..off + len])
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, MemError> {
        let b = self.bytes(addr, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn read_u64(&self, addr: u64) -> Result<u64, MemError> {
        let b = self.bytes(addr, 8)?;
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
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
            return format!(
                "{:#x} bytes past the end of {} {:#x} ({} bytes)",
                addr - a.end(),
                a.kind.name(),
                a.base,
                a.data.len()
            );
        }
        "not in any allocation".to_string()
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
    fn apertures() {
        assert_eq!(flat_target(SHARED_APERTURE_BASE + 8), FlatTarget::Lds(8));
        assert_eq!(
            flat_target(PRIVATE_APERTURE_BASE + 4),
            FlatTarget::Private(4)
        );
        assert_eq!(flat_target(HEAP_BASE), FlatTarget::Global(HEAP_BASE));
    }
}
