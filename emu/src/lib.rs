//! gcnemu: run, disassemble and lint gfx9 code objects.
//!
//! # Running kernels from Rust
//!
//! ```no_run
//! use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
//! let bytes = std::fs::read("saxpy.gfx900.co").unwrap();
//! let mut dev = Device::new(DeviceConfig::default()); // gfx900; set `target` for gfx906
//! let module = dev.load("saxpy.gfx900.co", &bytes)?;  // code object, bundle or host binary
//! let n = 1024u32;
//! let x = dev.alloc(4 * n as u64)?;
//! let y = dev.alloc(4 * n as u64)?;
//! dev.write(x, &vec![0u8; 4 * n as usize])?;
//! let dims = Dims { grid: [n / 256, 1, 1], block: [256, 1, 1] };
//! let args = [Arg::F32(2.0), Arg::Ptr(x), Arg::Ptr(y), Arg::I32(n as i32)];
//! let stats = dev.launch(&module, "saxpy", dims, &args, &LaunchOptions::default())?;
//! let out = dev.read(y, 4 * n as usize)?;
//! println!("{} wave-instructions", stats.wave_instructions);
//! # Ok::<(), gcnemu::Error>(())
//! ```
//!
//! [`Device::load`] picks the code object for the device's target, places its sections in
//! device memory and decodes `.text` once ([`exec::program::Program`]). [`Device::launch`] builds the
//! HSA dispatch (packet, kernarg segment with hidden arguments, scratch, initial registers; see
//! [`dispatch`]) and runs the workgroups in order ([`run`]). A kernel's own failure — a memory
//! fault, a trap, an instruction without semantics, an exhausted budget — is
//! [`Error::Guest`] with the kernel, workgroup, wave, PC and instruction.
//!
//! # The API
//!
//! [`Device`] and the types beside it are the API for running code objects. Below it, the
//! building blocks that tests and tools drive directly are public too: a decoded program
//! ([`exec::program::Program`]), a wave's state ([`wave::Wave`]), device memory
//! ([`memory::Memory`]), a workgroup's LDS ([`lds::Lds`]), one instruction
//! ([`exec::issue::execute`]), the functional engine ([`run::run_workgroup`]), the timing model
//! ([`cu::run_timed`]), the sanitizers' findings ([`check`]), the hazard lint ([`hazard`]) and the
//! disassembler ([`disasm`]). The engines' internals are crate-private. The modules form layers
//! without circles; emu/README.md lists them.

// The module docs are the design notes of the code beside them and name the internal modules
// they work with; `cargo doc --document-private-items` renders those links.
#![allow(rustdoc::private_intra_doc_links)]

pub mod arg_type;
pub mod board;
pub mod check;
pub mod cu;
pub mod device;
pub mod disasm;
pub(crate) mod dispatch;
pub mod exec;
pub mod fault;
#[doc(hidden)]
pub mod fuzzing;
pub mod hazard;
pub mod hostcall;
pub mod launch;
pub mod lds;
pub(crate) mod lds_banks;
pub mod memory;
pub mod memsys;
pub(crate) mod rng;
pub mod run;
pub mod settings;
pub mod symbol;
pub mod wave;

pub use device::{
    Arg, Device, DeviceConfig, Dims, Error, GuestError, GuestFault, HazardFinding, LaunchOptions,
    Module, Stats,
};
pub use launch::hazards::HazardMode;
