//! Ops of gfx908 (MI100) and gfx90a (MI200) that gfx900/gfx906 do not have and whose semantics
//! are not written yet: the emulator decodes and prints them but does not run them; executing one
//! is a guest error naming the instruction.

use super::Semantics;

const GFX908: &str = "a gfx908 op (matrix cores, accumulation registers, packed-float atomics)";
const GFX90A: &str =
    "a gfx90a op (matrix cores, packed FP32, 64-bit FMAC, FP64 atomics, accumulation registers)";

macro_rules! not_emulated {
    ($($op:ident)*) => {
        $(pub(super) const $op: Semantics = Semantics::NotEmulated(GFX908);)*
    };
    (gfx90a: $($op:ident)*) => {
        $(pub(super) const $op: Semantics = Semantics::NotEmulated(GFX90A);)*
    };
}

not_emulated! {
    V_DOT2C_F32_F16 V_DOT2C_I32_I16 V_DOT4C_I32_I8 V_DOT8C_I32_I4
    V_PK_FMAC_F16 V_MFMA_F32_32X32X1F32 V_MFMA_F32_16X16X1F32 V_MFMA_F32_4X4X1F32
    V_MFMA_F32_32X32X2F32 V_MFMA_F32_16X16X4F32 V_MFMA_F32_32X32X4F16 V_MFMA_F32_16X16X4F16
    V_MFMA_F32_4X4X4F16 V_MFMA_F32_32X32X8F16 V_MFMA_F32_16X16X16F16 V_MFMA_I32_32X32X4I8
    V_MFMA_I32_16X16X4I8 V_MFMA_I32_4X4X4I8 V_MFMA_I32_32X32X8I8 V_MFMA_I32_16X16X16I8
    V_ACCVGPR_READ_B32 V_ACCVGPR_WRITE_B32 V_MFMA_F32_32X32X2BF16 V_MFMA_F32_16X16X2BF16
    V_MFMA_F32_4X4X2BF16 V_MFMA_F32_32X32X4BF16 V_MFMA_F32_16X16X8BF16 BUFFER_ATOMIC_ADD_F32
    BUFFER_ATOMIC_PK_ADD_F16 GLOBAL_ATOMIC_ADD_F32 GLOBAL_ATOMIC_PK_ADD_F16
}

not_emulated! { gfx90a:
    V_FMAC_F64 V_ACCVGPR_MOV_B32 V_PK_FMA_F32 V_PK_MUL_F32 V_PK_ADD_F32 V_PK_MOV_B32
    V_MFMA_F32_32X32X4BF16_1K V_MFMA_F32_16X16X4BF16_1K V_MFMA_F32_4X4X4BF16_1K
    V_MFMA_F32_32X32X8BF16_1K V_MFMA_F32_16X16X16BF16_1K V_MFMA_F64_16X16X4F64 V_MFMA_F64_4X4X4F64
    DS_ADD_F64 DS_ADD_RTN_F64 BUFFER_ATOMIC_ADD_F64 BUFFER_ATOMIC_MIN_F64 BUFFER_ATOMIC_MAX_F64
    FLAT_ATOMIC_ADD_F64 FLAT_ATOMIC_MIN_F64 FLAT_ATOMIC_MAX_F64 GLOBAL_ATOMIC_ADD_F64
    GLOBAL_ATOMIC_MIN_F64 GLOBAL_ATOMIC_MAX_F64
}
