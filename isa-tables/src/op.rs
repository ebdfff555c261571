//! Families of [`Op`]s that the decoder, printer and assembler treat alike, named by variant
//! (the op list itself is generated from the table).

use crate::table::Op;

impl Op {
    /// Parameter interpolation (VINTRP and its VOP3 forms): the VOP3 forms pack the attribute,
    /// channel and `high` into src0.
    pub fn is_interp(self) -> bool {
        matches!(
            self,
            Op::V_INTERP_P1_F32
                | Op::V_INTERP_P2_F32
                | Op::V_INTERP_MOV_F32
                | Op::V_INTERP_P1LL_F16
                | Op::V_INTERP_P1LV_F16
                | Op::V_INTERP_P2_LEGACY_F16
                | Op::V_INTERP_P2_F16
        )
    }

    /// gfx908's accumulating dot products (VOP2 `v_dot*c`), whose DPP form keeps source
    /// modifiers without printing them.
    pub fn is_dot_accumulate(self) -> bool {
        matches!(
            self,
            Op::V_DOT2C_F32_F16 | Op::V_DOT2C_I32_I16 | Op::V_DOT4C_I32_I8 | Op::V_DOT8C_I32_I4
        )
    }
}
