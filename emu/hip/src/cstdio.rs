//! Device printf text goes through the C library's `stdout`/`stderr` streams, the program's own,
//! so that it interleaves with the host's printf output in program order, whatever buffering
//! the C library applies (a pipe is fully buffered, a terminal line-buffered).

use std::io::Write;

extern "C" {
    static mut stdout: *mut libc::FILE;
    static mut stderr: *mut libc::FILE;
}

pub(crate) struct CStream(*mut libc::FILE);

// SAFETY: the C library locks a FILE for each call.
unsafe impl Send for CStream {}

impl CStream {
    pub(crate) fn stdout() -> CStream {
        // SAFETY: glibc's `stdout` is initialised before any constructor runs.
        CStream(unsafe { stdout })
    }

    pub(crate) fn stderr() -> CStream {
        // SAFETY: as `stdout`.
        CStream(unsafe { stderr })
    }
}

impl Write for CStream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // SAFETY: `buf` is valid for `buf.len()` bytes; the FILE is the C library's.
        let n = unsafe { libc::fwrite(buf.as_ptr().cast(), 1, buf.len(), self.0) };
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // SAFETY: as `write`.
        match unsafe { libc::fflush(self.0) } {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    }
}
