//! The DS ops that do not take their address as ADDR + offset: the src2 atomics (both operands
//! in LDS), ds_append/ds_consume (a counter at an M0-based address) and
//! ds_write/read_addtid_b32 (an address from M0, the offset and the lane id).

use super::access::{self, Addr};
use super::ds::{data0, gds_check, offset16, vaddr};
use super::ds_atomic::{ds_op, rmw, Op};
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::Atomic;

/// The two addresses of a src2 op (ISA: `A = ADDR_BASE; B = A + 4 * (offset1[7] ?
/// {A[31], A[31:17]} : {offset1[6], offset1[6:0], offset0})`): the dword stride is a signed
/// 15-bit number taken from the offset, or, with offset bit 15 set, from ADDR[31:17]; in that
/// mode only ADDR[16:0] addresses LDS.
pub fn src2_addresses(addr: u32, offset: u32) -> (u32, u32) {
    let (a, stride15) = if offset & 0x8000 != 0 {
        (addr & 0x1_ffff, addr >> 17)
    } else {
        (addr, offset & 0x7fff)
    };
    // Sign-extend the 15-bit stride (bit 14 is the sign).
    let stride = ((stride15 << 17) as i32) >> 17;
    (a, a.wrapping_add((stride as u32).wrapping_mul(4)))
}

/// DS_<op>_SRC2_<type>: MEM[A] = op(MEM[A], MEM[B]); no data VGPRs, no return.
fn src2(cx: &mut Cx, d: &Decoded, op: Op, bytes: usize) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (a, b) = src2_addresses(cx.wave.vgpr[vaddr(d)][l], offset16(d));
        let mut buf = [0u8; 8];
        access::load(cx, l, Addr::Lds(b), &mut buf[..bytes])?;
        let src = u64::from_le_bytes(buf);
        // The B operand plays DATA0's role (for write_src2, the exchange's new value).
        rmw(cx, l, a, op, src, 0, bytes)?;
    }
    Ok(Flow::Continue)
}

/// `ds_<op>_src2_<type>`: the operation and width from the table (write_src2 is an exchange).
fn src2_op(cx: &mut Cx, d: &Decoded) -> Res {
    let facts = &d.inst.info().facts;
    let op = facts.atomic.and_then(ds_op).ok_or(Fault::Unimplemented)?;
    src2(cx, d, op, facts.bytes as usize)
}

/// The LDS byte address M0 supplies to append/consume and the add-tid ops: M0[15:0].
fn m0_base(cx: &Cx) -> u32 {
    cx.wave.m0() & 0xffff
}

/// DS_APPEND / DS_CONSUME: adds (`sign` = 1) or subtracts popcount(EXEC) at M0[15:0] + offset
/// once for the wave; every active lane gets the value before the update.
fn append(cx: &mut Cx, d: &Decoded, sign: i32) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    if exec == 0 {
        return Ok(Flow::Continue);
    }
    let a = m0_base(cx).wrapping_add(offset16(d));
    let lane = exec.trailing_zeros() as usize;
    let n = exec.count_ones() as i32 * sign;
    let old = rmw(cx, lane, a, Op::Int(Atomic::Add), n as u32 as u64, 0, 4)?;
    cx.wave
        .write_row(d.vdst as usize, &[old as u32; WAVE_SIZE], exec);
    Ok(Flow::Continue)
}

/// Lane `l`'s address for the add-tid ops: M0[15:0] + offset + 4 * l.
fn addtid_address(cx: &Cx, d: &Decoded, l: usize) -> u32 {
    m0_base(cx)
        .wrapping_add(offset16(d))
        .wrapping_add(4 * l as u32)
}

/// DS_WRITE_ADDTID_B32: MEM[M0 + offset + 4 * lane] = DATA0.
fn write_addtid(cx: &mut Cx, d: &Decoded) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let v = cx.wave.vgpr[data0(d)][l];
        let a = addtid_address(cx, d, l);
        access::store(cx, l, Addr::Lds(a), &v.to_le_bytes())?;
    }
    Ok(Flow::Continue)
}

/// DS_READ_ADDTID_B32: VDST = MEM[M0 + offset + 4 * lane].
fn read_addtid(cx: &mut Cx, d: &Decoded) -> Res {
    gds_check(d)?;
    let exec = cx.wave.exec();
    let mut out = [0u32; WAVE_SIZE];
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let mut buf = [0u8; 4];
        access::load(cx, l, Addr::Lds(addtid_address(cx, d, l)), &mut buf)?;
        out[l] = u32::from_le_bytes(buf);
    }
    cx.wave.write_row(d.vdst as usize, &out, exec);
    Ok(Flow::Continue)
}

semantics! {
    DS_APPEND => |cx, d| append(cx, d, 1);
    DS_CONSUME => |cx, d| append(cx, d, -1);
    DS_WRITE_ADDTID_B32 => write_addtid;
    DS_READ_ADDTID_B32 => read_addtid;
    DS_ADD_SRC2_U32 => src2_op;
    DS_SUB_SRC2_U32 => src2_op;
    DS_RSUB_SRC2_U32 => src2_op;
    DS_INC_SRC2_U32 => src2_op;
    DS_DEC_SRC2_U32 => src2_op;
    DS_MIN_SRC2_I32 => src2_op;
    DS_MAX_SRC2_I32 => src2_op;
    DS_MIN_SRC2_U32 => src2_op;
    DS_MAX_SRC2_U32 => src2_op;
    DS_AND_SRC2_B32 => src2_op;
    DS_OR_SRC2_B32 => src2_op;
    DS_XOR_SRC2_B32 => src2_op;
    DS_WRITE_SRC2_B32 => src2_op;
    DS_MIN_SRC2_F32 => src2_op;
    DS_MAX_SRC2_F32 => src2_op;
    DS_ADD_SRC2_F32 => src2_op;
    DS_ADD_SRC2_U64 => src2_op;
    DS_SUB_SRC2_U64 => src2_op;
    DS_RSUB_SRC2_U64 => src2_op;
    DS_INC_SRC2_U64 => src2_op;
    DS_DEC_SRC2_U64 => src2_op;
    DS_MIN_SRC2_I64 => src2_op;
    DS_MAX_SRC2_I64 => src2_op;
    DS_MIN_SRC2_U64 => src2_op;
    DS_MAX_SRC2_U64 => src2_op;
    DS_AND_SRC2_B64 => src2_op;
    DS_OR_SRC2_B64 => src2_op;
    DS_XOR_SRC2_B64 => src2_op;
    DS_WRITE_SRC2_B64 => src2_op;
    DS_MIN_SRC2_F64 => src2_op;
    DS_MAX_SRC2_F64 => src2_op;
}
