//! Values placed at the start of a host cache line.
//!
//! On a host with AVX-512 a wave's row of dwords (256 bytes) or of addresses (512 bytes) is
//! read and written 64 bytes at a time. Where the allocator or the stack puts such an array
//! (16 bytes into a line, say), each of those accesses spans two lines; and a read of 64 bytes
//! the instruction before just stored over two lines cannot take them from the store: it waits
//! for the store to reach the cache. VGPR rows and the vector memory paths' arrays of lane
//! addresses are therefore kept in [`CacheLine`]s.

/// `T` at the start of a host cache line (64 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct CacheLine<T>(pub T);

impl<T> std::ops::Deref for CacheLine<T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for CacheLine<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
