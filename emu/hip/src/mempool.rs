//! Memory pools of the stream-ordered allocator (`hipMallocAsync`, `hipMemPoolCreate` ...) as
//! data: which blocks each pool has handed out (busy) and which it holds for reuse (free), its
//! attributes and its statistics. Addresses come from and go back to the device's allocator
//! through the runtime; this module only decides which block an allocation reuses and which
//! free blocks a trim or a synchronisation gives back.

use std::collections::HashMap;

/// A pool's handle value, as the program sees it (`hipMemPool_t`).
pub(crate) type PoolId = usize;

/// A block freed with `hipFreeAsync`, held for reuse.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FreeBlock {
    pub(crate) addr: u64,
    pub(crate) size: u64,
    /// The stream the free was ordered on: later work on it may reuse the block at once.
    pub(crate) stream: usize,
    /// While the stream has not reached the free (work before it still queued or running):
    /// the number of the `hipFreeAsync`, which its queued point reports back. Until then no
    /// other stream may reuse the block, and no trim gives it back.
    pub(crate) pending: Option<u64>,
}

/// `hipMemPoolReuse*` flags; all enabled by default, as in HIP and CUDA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reuse {
    pub(crate) follow_event_dependencies: bool,
    pub(crate) opportunistic: bool,
    pub(crate) internal_dependencies: bool,
}

#[derive(Debug)]
pub(crate) struct Pool {
    pub(crate) device: i32,
    /// Handed-out blocks: address → size.
    pub(crate) busy: HashMap<u64, u64>,
    /// Freed blocks, oldest first.
    pub(crate) free: Vec<FreeBlock>,
    pub(crate) reuse: Reuse,
    pub(crate) release_threshold: u64,
    /// High watermarks since their last reset to 0.
    pub(crate) used_high: u64,
    pub(crate) reserved_high: u64,
    /// `hipMemPoolSetAccess` by device id: `hipMemAccessFlags`.
    pub(crate) access: HashMap<i32, i32>,
    /// Created by `hipMemPoolCreate` with these handle types (export is allowed only then).
    pub(crate) handle_types: i32,
}

impl Pool {
    pub(crate) fn new(device: i32, handle_types: i32) -> Pool {
        Pool {
            device,
            busy: HashMap::new(),
            free: Vec::new(),
            reuse: Reuse {
                follow_event_dependencies: true,
                opportunistic: true,
                internal_dependencies: true,
            },
            release_threshold: 0,
            used_high: 0,
            reserved_high: 0,
            access: HashMap::new(),
            handle_types,
        }
    }

    /// Bytes handed out to the program.
    pub(crate) fn used(&self) -> u64 {
        self.busy.values().sum()
    }

    /// Bytes the pool holds from the device's allocator: handed out or held for reuse.
    pub(crate) fn reserved(&self) -> u64 {
        self.used() + self.free.iter().map(|b| b.size).sum::<u64>()
    }

    /// A freed block an allocation of `size` bytes ordered on `stream` may take: one freed on
    /// the same stream (stream order makes it safe), or, when opportunistic reuse is allowed,
    /// one whose free has completed on another stream (`free_done` says which have).
    pub(crate) fn take_free(
        &mut self,
        size: u64,
        stream: usize,
        free_done: impl Fn(&FreeBlock) -> bool,
    ) -> Option<u64> {
        let i = self.free.iter().position(|b| {
            b.size >= size
                && (b.stream == stream
                    || (self.reuse.opportunistic && b.pending.is_none() && free_done(b)))
        })?;
        let b = self.free.remove(i);
        self.busy.insert(b.addr, b.size);
        self.note_use();
        Some(b.addr)
    }

    /// Records a block newly taken from the device's allocator as handed out.
    pub(crate) fn add_busy(&mut self, addr: u64, size: u64) {
        self.busy.insert(addr, size);
        self.note_use();
        self.reserved_high = self.reserved_high.max(self.reserved());
    }

    fn note_use(&mut self) {
        self.used_high = self.used_high.max(self.used());
    }

    /// `hipFreeAsync` on `stream`: the block is held for reuse, `pending` until the stream
    /// reaches the free (see [`FreeBlock::pending`]). `false` if the pool did not hand it out.
    pub(crate) fn give_back(&mut self, addr: u64, stream: usize, pending: Option<u64>) -> bool {
        match self.busy.remove(&addr) {
            Some(size) => {
                self.free.push(FreeBlock {
                    addr,
                    size,
                    stream,
                    pending,
                });
                true
            }
            None => false,
        }
    }

    /// The stream reached free number `free`: its block, unless its own stream took it again
    /// meanwhile, is no longer in use by anything.
    pub(crate) fn reached(&mut self, free: u64) {
        for b in &mut self.free {
            if b.pending == Some(free) {
                b.pending = None;
            }
        }
    }

    /// Takes freed blocks (oldest first) out of the pool until it holds at most `keep` bytes,
    /// as `hipMemPoolTrimTo` does, and returns them for the caller to release.
    pub(crate) fn trim_to(&mut self, keep: u64) -> Vec<FreeBlock> {
        let mut reserved = self.reserved();
        let mut out = Vec::new();
        let mut i = 0;
        while reserved > keep && i < self.free.len() {
            // A block whose free its stream has not reached may still be in use.
            if self.free[i].pending.is_some() {
                i += 1;
                continue;
            }
            let b = self.free.remove(i);
            reserved -= b.size;
            out.push(b);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_whose_free_is_not_reached_stays_with_its_stream() {
        let mut p = Pool::new(0, 0);
        p.add_busy(0x1000, 256);
        assert!(p.give_back(0x1000, 7, Some(42)));
        assert_eq!((p.used(), p.reserved()), (0, 256));
        // Neither another stream nor a trim may take it while work before the free is queued.
        assert_eq!(p.take_free(256, 8, |_| true), None);
        assert!(p.trim_to(0).is_empty());
        // Its own stream may: stream order puts the new work after the old.
        assert_eq!(p.take_free(256, 7, |_| true), Some(0x1000));
        assert!(p.give_back(0x1000, 7, Some(43)));
        // The first free's point, reached now, says nothing of the second.
        p.reached(42);
        assert_eq!(p.take_free(256, 8, |_| true), None);
        p.reached(43);
        assert_eq!(p.take_free(256, 8, |_| true), Some(0x1000));
        assert!(p.give_back(0x1000, 8, None));
        assert_eq!(p.trim_to(0).len(), 1);
        assert_eq!(p.reserved(), 0);
    }
}
