//! What both engines (the functional loop in [`crate::run`] and the timing model in
//! [`crate::cu`]) share around the semantics: why a launch stops ([`Stop`]), what it counts
//! ([`Counts`]), the run-time hazard check ([`hazards`]), the host services polled while kernels
//! run ([`host`]: hostcall printf/malloc), and how a launch reports its progress ([`Progress`]).
//! The spin detector both use is the wave's ([`crate::wave::spin`]).

pub mod counts;
pub mod hazards;
pub mod host;
pub mod stop;

pub use counts::{category_index, category_name, Counts, CATEGORIES};
pub use stop::{Stop, WaveAt};

/// Called after each workgroup with (workgroups done, workgroups in total).
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Send + Sync);
