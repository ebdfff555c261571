//! The ops only gfx940 and gfx942 (MI300) have: decoded, printed, assembled and linted, but not
//! run yet (a gfx940/gfx942 launch is refused before any of them could execute).

use super::Semantics;

/// Defines ops that do not run yet, with the reason.
macro_rules! not_emulated {
    ($($($op:ident)+ => $why:expr;)*) => {
        $($(pub(super) const $op: Semantics = Semantics::NotEmulated($why);)+)*
    };
}

const MI300: &str = "gfx940/gfx942 code does not run yet";

not_emulated! {
    V_FMAMK_F32 V_FMAAK_F32 V_MOV_B64 V_LSHL_ADD_U64
    V_CVT_F32_FP8 V_CVT_F32_BF8 V_CVT_PK_F32_FP8 V_CVT_PK_F32_BF8
    V_CVT_PK_FP8_F32 V_CVT_PK_BF8_F32 V_CVT_SR_FP8_F32 V_CVT_SR_BF8_F32
    DS_PK_ADD_F16 DS_PK_ADD_BF16 DS_PK_ADD_RTN_F16 DS_PK_ADD_RTN_BF16
    BUFFER_INV
    FLAT_ATOMIC_ADD_F32 FLAT_ATOMIC_PK_ADD_F16 FLAT_ATOMIC_PK_ADD_BF16 GLOBAL_ATOMIC_PK_ADD_BF16
    GLOBAL_LOAD_LDS_UBYTE GLOBAL_LOAD_LDS_SBYTE GLOBAL_LOAD_LDS_USHORT GLOBAL_LOAD_LDS_SSHORT
    GLOBAL_LOAD_LDS_DWORD
    SCRATCH_LOAD_LDS_UBYTE SCRATCH_LOAD_LDS_SBYTE SCRATCH_LOAD_LDS_USHORT SCRATCH_LOAD_LDS_SSHORT
    SCRATCH_LOAD_LDS_DWORD
        => MI300;
}
