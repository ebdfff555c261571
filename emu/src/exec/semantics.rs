//! The semantics of every op: an exhaustive match over [`Op`], generated from the table's op
//! list. Each arm names the constant that one of the format files defines with `semantics!` (or
//! the graphics and other-chip files with their reasons), so a new table row without semantics
//! is a compile error here, and two files defining the same op are an ambiguity error.

use super::Semantics;
use gcn_isa::Op;

#[allow(unused_imports)]
use super::{
    accvgpr::*, cvt_fp8::*, dot_accumulate::*, ds::*, ds_atomic::*, ds_cross::*, ds_gws::*,
    flat::*, fork::*, gpr_idx::*, graphics::*, hwreg::*, ieee_minmax::*, mfma::*, mimg::*,
    mov64::*, mtbuf::*, mubuf::*, pk_f32::*, smem::*, smem_scratch::*, smem_write::*, sop::*,
    sop_movrel::*, sop_state::*, vop::*, vop16::*, vop3_pack_sad::*, vop3p::*,
    vop_graphics_math::*, vopc::*,
};

macro_rules! table {
    ($($op:ident)*) => {
        /// The semantics of `op`.
        pub fn semantics(op: Op) -> Semantics {
            match op {
                $(Op::$op => $op,)*
            }
        }
    };
}

gcn_isa::for_each_op!(table);
