//! Hazards the gfx9 hardware leaves to software (Vega ISA §4.4, §4.5; for the matrix cores the
//! MI100 and MI200 ISA guides' §4.5 and LLVM's `checkMAIHazards908/90A`) and the checks for them.
//!
//! - `rules`: the rule table, as data (`gcnemu lint --rules`).
//! - `model`, `regs`, `mai`: what each instruction reads and writes (MFMAs by role and passes).
//! - `check`: one rule at one consumer over an abstract history (shared by static and run time);
//!   `clause`: the XNACK soft-clause rule of it.
//! - `cfg`, `lint`, `waitcnt`: the static lint of whole functions, over every path.
//! - `tracker`: the run-time checker fed with a wave's issued instructions.
//! - `output`: text, JSON and SARIF 2.1.0 reports.

pub mod asm;
pub mod cfg;
pub(crate) mod check;
pub(crate) mod clause;
pub mod lint;
pub(crate) mod mai;
pub(crate) mod model;
pub mod output;
pub(crate) mod regs;
pub mod rules;
pub(crate) mod tracker;
pub(crate) mod waitcnt;

pub use lint::{lint_object, Finding, Options, Report};
pub use rules::{Rule, RULES};
pub use tracker::{HazardTracker, RuntimeFinding};
