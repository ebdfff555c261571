//! gfx940's 64-bit move, `v_mov_b64`: a VGPR pair, SGPR pair or constant into a VGPR pair, in
//! one instruction (gfx90a and earlier move the two halves with two `v_mov_b32`).
//!
//! Its DPP form is gfx90a's 64-bit DPP (`v_fmac_f64_dpp`, `v_pk_*_f32` DPP): LLVM takes only
//! `row_newbcast:n` for it ("DP ALU dpp only supports row_newbcast"), and each lane of a row of
//! 16 then reads both dwords of lane n of its row. (`row_newbcast` has the encodings 0x150–0x15f
//! that gfx10 and later call `row_share`, which reads lane n of the row; LLVM accepts
//! `row_share` for DP ALU DPP on gfx12 where gfx9 takes `row_newbcast`.) Every lane has a
//! source, so row and bank masks and EXEC alone say which lanes are written; other controls
//! are refused with a guest error rather than guessed.

use super::valu::{dpp_row_bank_mask, fetch64, write64, Res};
use super::{Cx, Fault, Flow};
use crate::exec::program::{Decoded, Src};
use crate::wave::WAVE_SIZE;
use gcn_isa::Enc;

/// V_MOV_B64: D.u64 = S0.u64.
fn v_mov_b64(cx: &mut Cx, d: &Decoded) -> Res {
    if d.inst.enc() == Enc::Dpp {
        return mov_b64_dpp(cx, d);
    }
    let a = fetch64(cx, d, 0);
    write64(cx, d, &a);
    Ok(Flow::Continue)
}

/// V_MOV_B64 with DPP `row_newbcast:n`: D.u64[lane] = S0.u64[row base + n].
fn mov_b64_dpp(cx: &mut Cx, d: &Decoded) -> Res {
    let w = d.inst.words()[1];
    let ctrl = (w >> 8) & 0x1ff;
    if !(0x150..=0x15f).contains(&ctrl) {
        return Err(Fault::Unsupported(
            "64-bit DPP with a control other than row_newbcast",
        ));
    }
    let Src::Vgpr(r) = d.src[0] else {
        return Err(Fault::Guest("v_mov_b64_dpp needs a VGPR source".into()));
    };
    let n = (ctrl & 0xf) as usize;
    let a = cx.wave.row64(r as usize);
    let out: [u64; WAVE_SIZE] = std::array::from_fn(|l| a[(l & !15) + n]);
    let mask = cx.wave.exec() & dpp_row_bank_mask((w >> 28) & 0xf, (w >> 24) & 0xf);
    cx.wave.write_row64(d.vdst as usize, &out, mask);
    Ok(Flow::Continue)
}

semantics! {
    V_MOV_B64 => v_mov_b64;
}
