//! gfx940's conversions between f32 and the 8-bit floats FP8 and BF8 (the formats, rounding and
//! overflow rules are in [`super::fp8`]).
//!
//! Which part of a register each one reads or writes, as LLVM 19 encodes the intrinsics
//! (`llvm/test/CodeGen/AMDGPU/llvm.amdgcn.cvt.fp8.ll`, gfx940):
//!
//! - `v_cvt_f32_{fp8,bf8}`: byte `n` of S0 by SDWA `src0_sel:BYTE_n` (byte 0 in the VOP1
//!   encoding). In the VOP3 encoding op_sel[1:0] name the byte (op_sel[0] its low bit), as
//!   gfx950's and gfx12's VOP3 forms of these ops do; LLVM 19 takes no op_sel for gfx940 here.
//! - `v_cvt_pk_f32_{fp8,bf8}`: word 1 of S0 by SDWA `src0_sel:WORD_1` (VOP3: op_sel[0]); its
//!   low byte gives D[0], its high byte D[1] (a VGPR pair).
//! - `v_cvt_pk_{fp8,bf8}_f32`: S0 and S1 become bytes 0 and 1 of a word, written into word 0 of
//!   D, or word 1 with op_sel[3] (printed `op_sel:[0,0,1]`); the other word of D is kept.
//! - `v_cvt_sr_{fp8,bf8}_f32`: S0 rounded stochastically with the random bits of S1, written
//!   into byte op_sel[3:2] of D (op_sel[2] the low bit: `op_sel:[0,0,1,0]` is byte 1,
//!   `op_sel:[0,0,0,1]` byte 2); the other bytes of D are kept.
//!
//! The f32 sources take the neg/abs input modifiers and MODE's f32 input-denormal flush as every
//! f32 source does. Whether the flush applies makes no difference here: every f32 denormal lies
//! below half the smallest BF8 denormal (2^-17), so nearest-even rounding gives +0 either way,
//! and the stochastic rule shifts its significand out entirely before adding the random bits.
//! The VOP3 clamp bit saturates finite overflow of the 8-bit results (see [`super::fp8`]);
//! LLVM 19 does not print or accept it on these ops, but the encoding has it. The f32 results
//! take omod and clamp as other f32 results.

use super::fp8::{f32_to_fp8, fp8_to_f32, Rounding};
use super::valu::{fetch, fetch_f32, finish_f32, write, write64, Res};
use super::{Cx, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::Format;

/// Is `d` in the VOP3 encoding (where op_sel picks the part of S0 or D)?
fn vop3(d: &Decoded) -> bool {
    d.inst.format() == Format::Vop3
}

/// V_CVT_F32_FP8 / V_CVT_F32_BF8: D.f32 = the selected byte of S0.
fn cvt_f32_8(cx: &mut Cx, d: &Decoded, bf8: bool) -> Res {
    let a = fetch(cx, d, 0);
    // SDWA has already moved the selected byte down (`fetch`).
    let shift = if vop3(d) {
        8 * (d.mods.op_sel as u32 & 3)
    } else {
        0
    };
    let r: [f32; WAVE_SIZE] = std::array::from_fn(|l| fp8_to_f32((a[l] >> shift) as u8, bf8));
    let out = finish_f32(cx, d, &r);
    write(cx, d, &out);
    Ok(Flow::Continue)
}

/// V_CVT_PK_F32_FP8 / V_CVT_PK_F32_BF8: D[0].f32, D[1].f32 = the two bytes of the selected word
/// of S0.
fn cvt_pk_f32_8(cx: &mut Cx, d: &Decoded, bf8: bool) -> Res {
    let a = fetch(cx, d, 0);
    let shift = if vop3(d) && d.mods.op_sel & 1 != 0 {
        16
    } else {
        0
    };
    let word = |l: usize| (a[l] >> shift) as u16;
    let lo: [f32; WAVE_SIZE] = std::array::from_fn(|l| fp8_to_f32(word(l) as u8, bf8));
    let hi: [f32; WAVE_SIZE] = std::array::from_fn(|l| fp8_to_f32((word(l) >> 8) as u8, bf8));
    let (lo, hi) = (finish_f32(cx, d, &lo), finish_f32(cx, d, &hi));
    let out = std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32);
    write64(cx, d, &out);
    Ok(Flow::Continue)
}

/// D with the bits of `mask` replaced by `bits` (in place), in every written lane.
fn merge(cx: &mut Cx, d: &Decoded, mask: u32, bits: &[u32; WAVE_SIZE]) {
    let old = cx.wave.vgpr[d.vdst as usize];
    let out = std::array::from_fn(|l| old[l] & !mask | bits[l] & mask);
    write(cx, d, &out);
}

/// V_CVT_PK_FP8_F32 / V_CVT_PK_BF8_F32: D.u16[op_sel[3]] = {S1 as byte, S0 as byte}, rounded to
/// nearest even.
fn cvt_pk_8_f32(cx: &mut Cx, d: &Decoded, bf8: bool) -> Res {
    let a = fetch_f32(cx, d, 0);
    let b = fetch_f32(cx, d, 1);
    let enc = |v: f32| f32_to_fp8(v, bf8, Rounding::NearestEven, d.mods.clamp) as u32;
    let shift = if d.mods.op_sel & 8 != 0 { 16 } else { 0 };
    let bits = std::array::from_fn(|l| (enc(a[l]) | enc(b[l]) << 8) << shift);
    merge(cx, d, 0xffff << shift, &bits);
    Ok(Flow::Continue)
}

/// V_CVT_SR_FP8_F32 / V_CVT_SR_BF8_F32: D.u8[op_sel[3:2]] = S0 rounded stochastically with the
/// random bits S1.
fn cvt_sr_8_f32(cx: &mut Cx, d: &Decoded, bf8: bool) -> Res {
    let a = fetch_f32(cx, d, 0);
    let r = fetch(cx, d, 1);
    let shift = 8 * ((d.mods.op_sel as u32 >> 2) & 3);
    let bits = std::array::from_fn(|l| {
        (f32_to_fp8(a[l], bf8, Rounding::Stochastic(r[l]), d.mods.clamp) as u32) << shift
    });
    merge(cx, d, 0xff << shift, &bits);
    Ok(Flow::Continue)
}

semantics! {
    V_CVT_F32_FP8 => |cx, d| cvt_f32_8(cx, d, false);
    V_CVT_F32_BF8 => |cx, d| cvt_f32_8(cx, d, true);
    V_CVT_PK_F32_FP8 => |cx, d| cvt_pk_f32_8(cx, d, false);
    V_CVT_PK_F32_BF8 => |cx, d| cvt_pk_f32_8(cx, d, true);
    V_CVT_PK_FP8_F32 => |cx, d| cvt_pk_8_f32(cx, d, false);
    V_CVT_PK_BF8_F32 => |cx, d| cvt_pk_8_f32(cx, d, true);
    V_CVT_SR_FP8_F32 => |cx, d| cvt_sr_8_f32(cx, d, false);
    V_CVT_SR_BF8_F32 => |cx, d| cvt_sr_8_f32(cx, d, true);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::program::Program;
    use crate::exec::DispatchEnv;
    use crate::lds::Lds;
    use crate::memory::Memory;
    use crate::wave::Wave;
    use gcn_isa::Target;

    /// Runs one instruction, given as its two dwords, on a wave `setup` prepares.
    fn run(words: [u32; 2], setup: impl FnOnce(&mut Wave)) -> Wave {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let program = Program::decode(&bytes, 0, Target::Gfx940);
        assert!(program.bad.is_empty(), "{:?}", program.bad);
        let mut wave = Wave::new(0);
        wave.set_exec(u64::MAX);
        // Denormals kept, IEEE on (the vectors' MODE).
        wave.mode = 0x2f0;
        setup(&mut wave);
        let (mut mem, mut lds, env) = (Memory::default(), Lds::new(0), DispatchEnv::default());
        let mut cx = Cx {
            wave: &mut wave,
            mem: &mut mem,
            lds: &mut lds,
            program: &program,
            env: &env,
        };
        crate::exec::issue::execute(&mut cx, &program.insts[0]).unwrap();
        wave
    }

    /// The clamp bit (VOP3 bit 15), which LLVM 19 does not assemble on these ops: finite
    /// overflow saturates, infinity still gives NaN; without it overflow is NaN.
    #[test]
    fn clamp_saturates_finite_overflow() {
        // v_cvt_pk_fp8_f32 v0, v1, v2 is d2a20000 00020501 (llvm-mc-19, gfx940).
        let pk = |clamp: u32| [0xd2a2_0000 | clamp << 15, 0x0002_0501];
        let setup = |w: &mut Wave| {
            w.vgpr[0] = [0xdead_beef; WAVE_SIZE];
            w.vgpr[1] = [1000f32.to_bits(); WAVE_SIZE];
            w.vgpr[2] = [f32::NEG_INFINITY.to_bits(); WAVE_SIZE];
        };
        assert_eq!(run(pk(1), setup).vgpr[0][0], 0xdead_807f);
        assert_eq!(run(pk(0), setup).vgpr[0][0], 0xdead_8080);
        // v_cvt_sr_bf8_f32 v0, v1, v2 op_sel:[0,0,1,1] is d2a56000 00020501.
        let sr = |clamp: u32| [0xd2a5_6000 | clamp << 15, 0x0002_0501];
        let setup = |w: &mut Wave| {
            w.vgpr[0] = [0x1234_5678; WAVE_SIZE];
            w.vgpr[1] = [(-1e6f32).to_bits(); WAVE_SIZE];
            w.vgpr[2] = [0; WAVE_SIZE];
        };
        assert_eq!(run(sr(1), setup).vgpr[0][0], 0xff34_5678);
        assert_eq!(run(sr(0), setup).vgpr[0][0], 0x8034_5678);
    }
}
