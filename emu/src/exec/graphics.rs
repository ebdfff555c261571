//! Ops of the graphics pipeline: decoded and printed, but they need units that compute emulation
//! does not model; executing one stops the kernel with the reason.

use super::Semantics;

/// Defines ops that do not run in compute emulation, with the reason.
macro_rules! not_in_compute {
    ($($($op:ident)+ => $why:expr;)*) => {
        $($(pub(super) const $op: Semantics = Semantics::NotInCompute($why);)+)*
    };
}

const EXPORT: &str = "exports feed the graphics pipeline's render targets and positions";
const INTERP: &str = "interpolation reads pixel-shader attributes set up by the graphics pipeline";
const BINNING: &str =
    "a lookup for binning primitives to the four shader engines' screen tiles in \
    the graphics pipeline; its table is not given in a form we can verify";
const ORDERED_PS: &str = "primitive ordered pixel shading exists only in pixel shaders";

not_in_compute! {
    V_SCREEN_PARTITION_4SE_B32
        => BINNING;
    V_INTERP_P1_F32 V_INTERP_P2_F32 V_INTERP_MOV_F32 V_INTERP_P1LL_F16 V_INTERP_P1LV_F16
    V_INTERP_P2_LEGACY_F16 V_INTERP_P2_F16
        => INTERP;
    EXP
        => EXPORT;
    S_ENDPGM_ORDERED_PS_DONE
        => ORDERED_PS;
}
