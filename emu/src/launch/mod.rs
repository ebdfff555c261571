//! What both engines (the functional loop in [`crate::run`] and the timing model in
//! [`crate::cu`]) share around the semantics: why a launch stops ([`Stop`]), what it counts
//! ([`Counts`]), the run-time hazard check ([`hazards`]), the host services polled while kernels
//! run ([`host`]: hostcall printf/malloc), and the spin detector ([`spin`]).

pub mod counts;
pub mod hazards;
pub mod host;
pub mod stop;

pub use counts::{category_index, category_name, Counts, CATEGORIES};
pub use stop::{Stop, WaveAt};
