//! Ops of the graphics pipeline: decoded and printed, but they need units that compute emulation
//! does not model; executing one stops the kernel with the reason.

use super::Semantics;

/// Defines ops that do not run in compute emulation, with the reason.
macro_rules! not_in_compute {
    ($($($op:ident)+ => $why:expr;)*) => {
        $($(pub(super) const $op: Semantics = Semantics::NotInCompute($why);)+)*
    };
}

const IMAGE: &str = "image ops need the texture and sampler units";
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
    IMAGE_SAMPLE IMAGE_SAMPLE_CL IMAGE_SAMPLE_D IMAGE_SAMPLE_D_CL IMAGE_SAMPLE_L IMAGE_SAMPLE_B
    IMAGE_SAMPLE_B_CL IMAGE_SAMPLE_LZ IMAGE_SAMPLE_C IMAGE_SAMPLE_C_CL IMAGE_SAMPLE_C_D
    IMAGE_SAMPLE_C_D_CL IMAGE_SAMPLE_C_L IMAGE_SAMPLE_C_B IMAGE_SAMPLE_C_B_CL IMAGE_SAMPLE_C_LZ
    IMAGE_SAMPLE_O IMAGE_SAMPLE_CL_O IMAGE_SAMPLE_D_O IMAGE_SAMPLE_D_CL_O IMAGE_SAMPLE_L_O
    IMAGE_SAMPLE_B_O IMAGE_SAMPLE_B_CL_O IMAGE_SAMPLE_LZ_O IMAGE_SAMPLE_C_O IMAGE_SAMPLE_C_CL_O
    IMAGE_SAMPLE_C_D_O IMAGE_SAMPLE_C_D_CL_O IMAGE_SAMPLE_C_L_O IMAGE_SAMPLE_C_B_O
    IMAGE_SAMPLE_C_B_CL_O IMAGE_SAMPLE_C_LZ_O IMAGE_GATHER4 IMAGE_GATHER4_CL IMAGE_GATHER4_L
    IMAGE_GATHER4_B IMAGE_GATHER4_B_CL IMAGE_GATHER4_LZ IMAGE_GATHER4_C IMAGE_GATHER4_C_CL
    IMAGE_GATHER4_C_L IMAGE_GATHER4_C_B IMAGE_GATHER4_C_B_CL IMAGE_GATHER4_C_LZ IMAGE_GATHER4_O
    IMAGE_GATHER4_CL_O IMAGE_GATHER4_L_O IMAGE_GATHER4_B_O IMAGE_GATHER4_B_CL_O
    IMAGE_GATHER4_LZ_O IMAGE_GATHER4_C_O IMAGE_GATHER4_C_CL_O IMAGE_GATHER4_C_L_O
    IMAGE_GATHER4_C_B_O IMAGE_GATHER4_C_B_CL_O IMAGE_GATHER4_C_LZ_O IMAGE_GET_LOD
    IMAGE_SAMPLE_CD IMAGE_SAMPLE_CD_CL IMAGE_SAMPLE_C_CD IMAGE_SAMPLE_C_CD_CL IMAGE_SAMPLE_CD_O
    IMAGE_SAMPLE_CD_CL_O IMAGE_SAMPLE_C_CD_O IMAGE_SAMPLE_C_CD_CL_O IMAGE_LOAD IMAGE_LOAD_MIP
    IMAGE_LOAD_PCK IMAGE_LOAD_PCK_SGN IMAGE_LOAD_MIP_PCK IMAGE_LOAD_MIP_PCK_SGN IMAGE_STORE
    IMAGE_STORE_MIP IMAGE_STORE_PCK IMAGE_STORE_MIP_PCK IMAGE_GET_RESINFO IMAGE_ATOMIC_SWAP
    IMAGE_ATOMIC_CMPSWAP IMAGE_ATOMIC_ADD IMAGE_ATOMIC_SUB IMAGE_ATOMIC_SMIN IMAGE_ATOMIC_UMIN
    IMAGE_ATOMIC_SMAX IMAGE_ATOMIC_UMAX IMAGE_ATOMIC_AND IMAGE_ATOMIC_OR IMAGE_ATOMIC_XOR
    IMAGE_ATOMIC_INC IMAGE_ATOMIC_DEC
        => IMAGE;
    EXP
        => EXPORT;
    S_ENDPGM_ORDERED_PS_DONE
        => ORDERED_PS;
}
