//! The HIP headers runtime compilation needs (`hiprtc_runtime.h`): one preprocessed text that
//! ROCm keeps in `libhiprtc-builtins.so.5` (Debian's `libhiprtc-builtins5`) as the data symbols
//! `__hipRTC_header` and `__hipRTC_header_size`. It is opened at run time, as comgr is, and the
//! text copied once.

use libloading::Library;
use std::sync::OnceLock;

pub(crate) const LIBRARY: &str = "libhiprtc-builtins.so.5";
pub(crate) const PACKAGE: &str = "libhiprtc-builtins5";
/// The name the header is added and force-included under.
pub(crate) const NAME: &str = "hiprtc_runtime.h";

/// A header larger than this is not the one ROCm ships (a few hundred KiB).
const MAX_SIZE: u32 = 64 << 20;

pub(crate) fn header() -> Result<&'static [u8], String> {
    static HEADER: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    HEADER.get_or_init(load).as_deref().map_err(Clone::clone)
}

fn load() -> Result<Vec<u8>, String> {
    // SAFETY: the library is data only; its initialisers have no preconditions.
    let lib = unsafe { Library::new(LIBRARY) }.map_err(|e| e.to_string())?;
    // SAFETY: the symbols' addresses are those of a `const char[]` and an `unsigned`.
    let (text, size) = unsafe {
        let text = *lib
            .get::<*const u8>(b"__hipRTC_header\0")
            .map_err(|e| e.to_string())?;
        let size = *lib
            .get::<*const u32>(b"__hipRTC_header_size\0")
            .map_err(|e| e.to_string())?;
        (text, size)
    };
    if text.is_null() || size.is_null() {
        return Err("__hipRTC_header is null".into());
    }
    // SAFETY: a non-null pointer to the `unsigned` size.
    let size = unsafe { size.read_unaligned() };
    if size > MAX_SIZE {
        return Err(format!("__hipRTC_header_size is {size}"));
    }
    // SAFETY: the library holds `size` bytes of text at `text`; they are copied before it is
    // closed.
    let bytes = unsafe { std::slice::from_raw_parts(text, size as usize) }.to_vec();
    // The header's size counts a terminating NUL, which is not part of the source.
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    Ok(bytes[..end].to_vec())
}
