//! memcheck's memory of freed allocations: a freed buffer's block stays out of the host
//! allocator's reach for a while (its quarantine), so that a use after free reads the block
//! it was, not another allocation, and the report can name what was freed.

use super::{AllocKind, Allocation};
use std::collections::VecDeque;

/// Freed allocations whose blocks are kept back from the host allocator, up to this many bytes.
const QUARANTINE_BYTES: u64 = 256 << 20;
/// Tombstones kept (the oldest go first).
const MAX_TOMBSTONES: usize = 1 << 16;

/// A freed allocation.
#[derive(Debug)]
pub struct Tombstone {
    pub base: u64,
    pub len: u64,
    pub kind: AllocKind,
    /// The block itself while it is in quarantine.
    held: Option<Allocation>,
}

/// The freed allocations memcheck remembers, newest last.
#[derive(Debug, Default)]
pub struct Tombstones {
    list: VecDeque<Tombstone>,
    held_bytes: u64,
}

impl Tombstones {
    /// Remembers a freed allocation; `held` keeps its block out of reuse for a while.
    pub fn bury(&mut self, base: u64, len: u64, kind: AllocKind, held: Option<Allocation>) {
        if held.is_some() {
            self.held_bytes += len;
        }
        self.list.push_back(Tombstone {
            base,
            len,
            kind,
            held,
        });
        // Oldest blocks go back to the allocator first; their tombstones stay a while longer.
        let mut i = 0;
        while self.held_bytes > QUARANTINE_BYTES && i < self.list.len() {
            if let Some(a) = self.list[i].held.take() {
                self.held_bytes -= a.len();
            }
            i += 1;
        }
        if self.list.len() > MAX_TOMBSTONES {
            if let Some(t) = self.list.pop_front() {
                if t.held.is_some() {
                    self.held_bytes -= t.len;
                }
            }
        }
    }

    /// The most recently freed allocation that held `addr`.
    pub fn find(&self, addr: u64) -> Option<&Tombstone> {
        self.list
            .iter()
            .rev()
            .find(|t| addr >= t.base && addr < t.base + t.len.max(1))
    }
}
