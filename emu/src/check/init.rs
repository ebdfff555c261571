//! initcheck's shadow of an allocation: one bit per byte, set once anything has written the
//! byte (a host copy or fill, or a kernel store or atomic). A kernel read of a byte whose bit is
//! clear reads memory nothing has written.

/// The written bits of one allocation.
#[derive(Clone, Debug)]
pub struct Written {
    words: Vec<u64>,
    len: usize,
}

impl Written {
    /// `len` bytes, none written yet.
    pub fn new(len: usize) -> Written {
        Written {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Marks `[off, off+len)` written (clipped to the allocation).
    pub fn set(&mut self, off: usize, len: usize) {
        let end = off.saturating_add(len).min(self.len);
        let mut i = off;
        while i < end {
            let (w, b) = (i / 64, i % 64);
            let n = (64 - b).min(end - i);
            let mask = if n == 64 { !0 } else { ((1u64 << n) - 1) << b };
            self.words[w] |= mask;
            i += n;
        }
    }

    /// The first byte of `[off, off+len)` not yet written, if any (bytes past the allocation
    /// count as written: memcheck speaks for them).
    pub fn first_unwritten(&self, off: usize, len: usize) -> Option<usize> {
        let end = off.saturating_add(len).min(self.len);
        let mut i = off;
        while i < end {
            let (w, b) = (i / 64, i % 64);
            let n = (64 - b).min(end - i);
            let mask = if n == 64 { !0 } else { ((1u64 << n) - 1) << b };
            let missing = !self.words[w] & mask;
            if missing != 0 {
                return Some(w * 64 + missing.trailing_zeros() as usize);
            }
            i += n;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_across_words() {
        let mut w = Written::new(200);
        assert_eq!(w.first_unwritten(0, 4), Some(0));
        w.set(60, 80);
        assert_eq!(w.first_unwritten(60, 80), None);
        assert_eq!(w.first_unwritten(56, 8), Some(56));
        assert_eq!(w.first_unwritten(136, 8), Some(140));
        // Clipped at the end.
        w.set(190, 50);
        assert_eq!(w.first_unwritten(190, 40), None);
    }
}
