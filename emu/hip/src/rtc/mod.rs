//! Runtime compilation (hiprtc): programs and their compilation through AMD's code-object
//! manager, which is opened at run time ([`comgr`]), with the HIP headers of
//! `libhiprtc-builtins.so.5` ([`builtins`]). The exported `hiprtc*` functions are in
//! `api/rtc.rs`.

pub(crate) mod builtins;
pub(crate) mod comgr;
pub(crate) mod names;
pub(crate) mod program;
