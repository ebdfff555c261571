//! Ops of gfx908 (MI100) that gfx900/gfx906 do not have: the emulator decodes and prints them
//! but does not run them; executing one is a guest error naming the instruction.

use super::Semantics;

const GFX908: &str = "a gfx908 op (matrix cores, accumulation registers, packed-float atomics)";

macro_rules! not_emulated {
    ($($op:ident)*) => {
        $(pub(super) const $op: Semantics = Semantics::NotEmulated(GFX908);)*
    };
}

not_emulated! {
    V_DOT2C_F32_F16 V_DOT2C_I32_I16 V_DOT4C_I32_I8 V_DOT8C_I32_I4 V_PK_FMAC_F16
    BUFFER_ATOMIC_ADD_F32 BUFFER_ATOMIC_PK_ADD_F16 GLOBAL_ATOMIC_ADD_F32 GLOBAL_ATOMIC_PK_ADD_F16
}
