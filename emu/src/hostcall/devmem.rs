//! Device `malloc`/`free` over hostcall (service 3, `SERVICE_DEVMEM`).
//!
//! ockl's device heap (`dm.cl`, `__ockl_dm_alloc`/`__ockl_dm_dealloc`) asks the host for memory
//! through `__ockl_devmem_request(addr, size)`: slot word 0 = 0 and word 1 = size allocates and
//! returns the address in word 0 (0 when it fails); word 0 = an address frees that block
//! (nothing returned). The heap allocates 2 MiB *slabs* this way and finds a block's slab by
//! masking the block's address with `~0x1fffff`, and it passes every request above 3072 bytes
//! through directly, telling those apart from slab blocks on free by their low 12 bits being
//! zero. So blocks of 2 MiB or more come back 2 MiB-aligned and all others 4 KiB-aligned.

use std::collections::BTreeMap;

use crate::memory::{AllocKind, Memory};

/// Alignment of a slab (`dm.cl`: `1UL << 21`).
pub const SLAB_ALIGN: u64 = 2 << 20;
/// Alignment of every other block (the host's page).
pub const PAGE_ALIGN: u64 = 4 << 10;

/// Blocks the device heap obtained from the host and has not given back.
#[derive(Debug, Default)]
pub struct DeviceHeap {
    /// Address handed to the device → start of the allocation behind it.
    blocks: BTreeMap<u64, u64>,
}

impl DeviceHeap {
    /// Allocates `size` bytes for the device; 0 (the device's null) when `size` is 0 or memory
    /// runs out, as ROCclr answers when its buffer cannot be created.
    pub fn alloc(&mut self, mem: &mut Memory, size: u64) -> u64 {
        if size == 0 {
            return 0;
        }
        let align = if size >= SLAB_ALIGN {
            SLAB_ALIGN
        } else {
            PAGE_ALIGN
        };
        let Ok(base) = mem.alloc(size, AllocKind::Buffer) else {
            return 0;
        };
        // The device heap's allocator (ockl) keeps its own state in the blocks and counts on
        // them being zeroed, as ROCclr's are: initcheck leaves them alone.
        mem.note_host_visible(base);
        if base % align == 0 {
            self.blocks.insert(base, base);
            return base;
        }
        // Over-allocate and hand out the aligned address inside.
        let _ = mem.free(base);
        let Some(padded) = size.checked_add(align) else {
            return 0;
        };
        let Ok(base) = mem.alloc(padded, AllocKind::Buffer) else {
            return 0;
        };
        mem.note_host_visible(base);
        let addr = base.next_multiple_of(align);
        self.blocks.insert(addr, base);
        addr
    }

    /// Frees a block that [`DeviceHeap::alloc`] returned.
    pub fn free(&mut self, mem: &mut Memory, addr: u64) -> Result<(), String> {
        let base = self.blocks.remove(&addr).ok_or_else(|| {
            format!("device free of {addr:#x}, which is not a live device-malloc block")
        })?;
        mem.free(base).map_err(|e| e.to_string())
    }

    /// Number of live blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Frees every live block (when the device goes away).
    pub fn release_all(&mut self, mem: &mut Memory) {
        for (_, base) in std::mem::take(&mut self.blocks) {
            let _ = mem.free(base);
        }
    }

    /// Serves one lane's `__ockl_devmem_request(slot[0], slot[1])`.
    pub fn request(&mut self, mem: &mut Memory, slot: &mut [u64; 8]) -> Result<(), String> {
        if slot[0] != 0 {
            self.free(mem, slot[0])
        } else {
            slot[0] = self.alloc(mem, slot[1]);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Placement;

    #[test]
    fn alignment_and_free() {
        for placement in [Placement::Sparse, Placement::Host] {
            let mut mem = Memory::with_placement(64 << 20, placement);
            let mut heap = DeviceHeap::default();
            let slab = heap.alloc(&mut mem, SLAB_ALIGN);
            assert_ne!(slab, 0);
            assert_eq!(slab % SLAB_ALIGN, 0);
            mem.write_u64(slab + SLAB_ALIGN - 8, 7).unwrap();
            let small = heap.alloc(&mut mem, 5000);
            assert_eq!(small % PAGE_ALIGN, 0);
            mem.write_u64(small + 4992, 1).unwrap();
            assert_eq!(heap.len(), 2);
            heap.free(&mut mem, slab).unwrap();
            assert!(mem.read_u64(slab).is_err());
            assert!(heap
                .free(&mut mem, slab)
                .unwrap_err()
                .contains("not a live"));
            heap.release_all(&mut mem);
            assert!(heap.is_empty());
            assert_eq!(mem.used(), 0);
        }
    }

    #[test]
    fn out_of_memory_and_zero_give_null() {
        let mut mem = Memory::new(1 << 20);
        let mut heap = DeviceHeap::default();
        assert_eq!(heap.alloc(&mut mem, 0), 0);
        assert_eq!(heap.alloc(&mut mem, SLAB_ALIGN), 0);
        assert_eq!(heap.alloc(&mut mem, u64::MAX), 0);
        assert!(heap.is_empty());
    }
}
