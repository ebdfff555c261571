//! Ops of gfx908 (MI100) and gfx90a (MI200) that gfx900/gfx906 do not have and whose semantics
//! are not written yet: the emulator decodes and prints them but does not run them; executing one
//! is a guest error naming the instruction.

use super::Semantics;

const GFX908: &str = "a gfx908 op (the accumulating dot products and v_pk_fmac_f16)";

macro_rules! not_emulated {
    ($($op:ident)*) => {
        $(pub(super) const $op: Semantics = Semantics::NotEmulated(GFX908);)*
    };
}

not_emulated! {
    V_DOT2C_F32_F16 V_DOT2C_I32_I16 V_DOT4C_I32_I8 V_DOT8C_I32_I4 V_PK_FMAC_F16
}
