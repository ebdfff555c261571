//! A HIP runtime for hipcc-built programs whose kernels run on gcnemu: a drop-in
//! `libamdhip64.so.5` (soname, symbol names and versions as ROCm 5.2's), so that an unmodified
//! program runs with `gcnemu exec -- ./app` or `LD_LIBRARY_PATH=<dir with this library> ./app`.
//!
//! Device memory is host memory at the same address (an APU's view): `hipMalloc`, `hipHostMalloc`,
//! `hipMallocManaged` and `hipHostRegister` all give pointers that host code and kernels share, and
//! kernels reach nothing else. The code object for the emulated target is taken from each
//! registered `.hip_fatbin` at the first launch that needs it. Work runs asynchronously on an
//! executor thread, in an order HIP's stream rules allow (`src/runtime.rs` says how). Settings come
//! from the environment ([`gcnemu::settings`]). Exported functions that have no implementation log
//! their name once and return `hipErrorNotSupported` (`build.rs` generates them from
//! `abi/exports.tsv`).
//!
//! The crate's API is its C ABI and nothing else: the `extern "C"` functions of `src/api/` and
//! the stubs of `build.rs`, under ROCm 5.2's names and symbol versions, which a program or a
//! ROCm library reaches through the dynamic linker. An embedder builds the `cdylib` and puts it
//! where the program looks for `libamdhip64.so.5` (`gcnemu exec` does this), and configures it
//! with the `GCNEMU_*` variables. There is no Rust API: every module is private, and inside them
//! only the exported functions are `pub` (the form `build.rs` looks for), everything else
//! `pub(crate)` at most. The README's "Module layers" says which module may use which.

mod allocation;
mod api;
mod checks;
mod cstdio;
mod cu_mask;
mod devices;
mod error;
mod graph;
mod image;
mod log;
mod mempool;
mod occupancy;
mod rtc;
mod runtime;
mod stats;
mod texture;
mod types;
mod vmm;
