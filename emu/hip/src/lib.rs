//! A HIP runtime for hipcc-built programs whose kernels run on gcnemu: a drop-in
//! `libamdhip64.so.5` (soname, symbol names and versions as ROCm 5.2's), so that an unmodified
//! program runs with `gcnemu exec -- ./app` or `LD_LIBRARY_PATH=<dir with this library> ./app`.
//!
//! Device memory is host memory at the same address (an APU's view): `hipMalloc`,
//! `hipHostMalloc`, `hipMallocManaged` and `hipHostRegister` all give pointers that host code
//! and kernels share, and kernels reach nothing else. The code object for the emulated target
//! is taken from each registered `.hip_fatbin` at the first launch that needs it. Work runs when
//! it is enqueued ([`runtime`] says why that keeps HIP's ordering). Settings come from the
//! environment ([`gcnemu::settings`]). Exported functions that have no implementation log their
//! name once and return `hipErrorNotSupported` (`build.rs` generates them from
//! `abi/exports.tsv`).

mod allocation;
pub mod api;
pub mod checks;
mod cstdio;
pub mod error;
mod image;
mod log;
pub mod runtime;
pub mod stats;
pub mod types;
