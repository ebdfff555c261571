//! Hazards the gfx9 hardware leaves to software (Vega ISA §4.4, §4.5; for the matrix cores the
//! MI100 and MI200 ISA guides' §4.5 and LLVM's `checkMAIHazards908/90A` and `checkMAIVALUHazards`,
//! whose `hasGFX940Insts` branches in LLVM 19 give gfx940/gfx942's counts) and the checks for them.
//!
//! - `rules`: the rule table, as data (`gcnemu lint --rules`). A matrix rule's wait states are a
//!   table by the producing MFMA's class: gfx908/gfx90a's 2/8/16-pass ops, the DGEMMs, and
//!   gfx940's XDL (2/4/8/16 passes) and f32 (not XDL there; 2/8/16 passes) ops.
//! - `model`, `regs`, `mai`: what each instruction reads and writes (MFMAs by role, class and
//!   passes; a sparse `v_smfmac_*` reads its index as A/B and its destination as C).
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
