//! Typed buffer ops: MUBUF buffer_{load,store}_format_* (format from the V#: DATA_FORMAT and
//! NUM_FORMAT in word 3) and MTBUF tbuffer_{load,store}_format_* (format from the instruction's
//! DFMT/NFMT fields), with their d16 and d16_hi forms. Addressing and range checking are the
//! MUBUF ones (`mubuf::address`), all or nothing per element: out of range, every component
//! reads 0 except where DST_SEL asks for the constant 1, and a store is dropped.
//! Loads route the converted X, Y, Z, W through the V#'s DST_SEL_X/Y/Z/W.

use super::access::{self, Addr};
use super::buffer_format::{self, Spec};
use super::flat::d16_merge;
use super::mubuf::{address, lds_bit, load_to_lds, resource, Resource};
use super::valu::Res;
use super::{Cx, Fault, Flow};
use crate::exec::program::Decoded;
use crate::wave::WAVE_SIZE;
use gcn_isa::Format;

/// Where the 16-bit results of a d16 op go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum D16 {
    /// Full 32-bit components, one VGPR each.
    No,
    /// Two components per VGPR, X in the low half; an odd last component keeps the high half.
    Packed,
    /// One component into the high half, the low half kept.
    Hi,
}

/// The checked format of this instruction: the instruction's for MTBUF, the V#'s for MUBUF.
fn spec(d: &Decoded, rsrc: &Resource) -> Result<Spec, Fault> {
    let (dfmt, nfmt) = if d.inst.format() == Format::Mtbuf {
        (d.inst.bits(0, 19, 4), d.inst.bits(0, 23, 3))
    } else {
        (rsrc.word3 >> 15 & 15, rsrc.word3 >> 12 & 7)
    };
    buffer_format::spec(dfmt, nfmt)
        .map_err(|why| Fault::Guest(format!("{}: {why}", d.inst.info().name)))
}

/// The lds bit only exists in MUBUF (bit 16 of an MTBUF word is part of its opcode).
fn check_lds(d: &Decoded) -> Result<(), Fault> {
    if d.inst.format() == Format::Mubuf {
        lds_bit(d)?;
    }
    Ok(())
}

/// DST_SEL: 0 → 0, 1 → one, 4..7 → X..W; 2, 3 are reserved and read 0.
fn select(word3: u32, xyzw: [u32; 4], one: u32) -> [u32; 4] {
    std::array::from_fn(|i| match word3 >> (3 * i) & 7 {
        1 => one,
        s @ 4..=7 => xyzw[s as usize - 4],
        _ => 0,
    })
}

fn one(spec: &Spec, d16: D16) -> u32 {
    let float = !matches!(
        spec.num,
        buffer_format::Num::Uint | buffer_format::Num::Sint
    );
    match (float, d16) {
        (false, _) => 1,
        (true, D16::No) => 1f32.to_bits(),
        (true, _) => 0x3c00,
    }
}

fn load(cx: &mut Cx, d: &Decoded, n: usize, d16: D16) -> Res {
    // buffer_load_format_x is the one typed op with an LDS form (the decoder rejects lds=1
    // on the others, as LLVM does).
    let to_lds = d.inst.format() == Format::Mubuf && d.inst.bits(0, 16, 1) != 0;
    if to_lds && (n, d16) != (1, D16::No) {
        check_lds(d)?;
    }
    let rsrc = resource(cx, d);
    let spec = spec(d, &rsrc)?;
    let exec = cx.wave.exec();
    let vdata = d.regs[1].saturating_sub(256) as usize;
    let regs = match d16 {
        D16::No => n,
        D16::Packed => n.div_ceil(2),
        D16::Hi => 1,
    };
    let mut out: [[u32; WAVE_SIZE]; 4] = std::array::from_fn(|i| cx.wave.vgpr[(vdata + i) % 256]);
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let mut elem = [0u8; 16];
        let xyzw = match address(cx, d, &rsrc, l, spec.bytes as u64) {
            Some(a) => {
                access::load(cx, l, Addr::Global(a), &mut elem[..spec.bytes])?;
                match d16 {
                    D16::No => buffer_format::unpack32(&spec, &elem),
                    _ => buffer_format::unpack16(&spec, &elem).map(u32::from),
                }
            }
            // Out of range: every component reads 0; only DST_SEL = 1 still gives one.
            None => [0; 4],
        };
        let v = select(rsrc.word3, xyzw, one(&spec, d16));
        match d16 {
            D16::No => (0..n).for_each(|i| out[i][l] = v[i]),
            D16::Hi => out[0][l] = d16_merge(out[0][l], v[0] & 0xffff, true),
            D16::Packed => {
                for i in 0..n {
                    let r = &mut out[i / 2][l];
                    *r = d16_merge(*r, v[i] & 0xffff, i % 2 == 1);
                }
            }
        }
    }
    if to_lds {
        return load_to_lds(cx, d, exec, &out[0]);
    }
    for (i, row) in out.iter().enumerate().take(regs) {
        cx.wave.write_row(vdata + i, row, exec);
    }
    Ok(Flow::Continue)
}

fn store(cx: &mut Cx, d: &Decoded, n: usize, d16: D16) -> Res {
    let rsrc = resource(cx, d);
    let spec = spec(d, &rsrc)?;
    let exec = cx.wave.exec();
    let vdata = d.regs[1].saturating_sub(256) as usize;
    for l in 0..WAVE_SIZE {
        if exec >> l & 1 == 0 {
            continue;
        }
        let Some(a) = address(cx, d, &rsrc, l, spec.bytes as u64) else {
            continue;
        };
        let reg = |i: usize| cx.wave.vgpr[(vdata + i) % 256][l];
        let mut elem = [0u8; 16];
        // Components the op does not supply keep their bits: read the element first.
        access::peek(cx, l, Addr::Global(a), &mut elem[..spec.bytes])?;
        match d16 {
            D16::No => {
                let v: [u32; 4] = std::array::from_fn(reg);
                buffer_format::pack32(&spec, &v, n, &mut elem);
            }
            D16::Packed => {
                let h: [u16; 4] = std::array::from_fn(|i| (reg(i / 2) >> (16 * (i % 2))) as u16);
                buffer_format::pack16(&spec, &h, n, &mut elem);
            }
            D16::Hi => {
                let h = [(reg(0) >> 16) as u16, 0, 0, 0];
                buffer_format::pack16(&spec, &h, 1, &mut elem);
            }
        }
        access::store(cx, l, Addr::Global(a), &elem[..spec.bytes])?;
    }
    Ok(Flow::Continue)
}

/// How the op packs its components, from the table's d16 fact.
fn packing(d: &Decoded) -> D16 {
    match d.inst.info().facts.d16 {
        gcn_isa::D16::Packed => D16::Packed,
        gcn_isa::D16::Hi => D16::Hi,
        gcn_isa::D16::No | gcn_isa::D16::Lo => D16::No,
    }
}

/// `{buffer,tbuffer}_load_format_*`: the components and packing from the table.
fn format_load(cx: &mut Cx, d: &Decoded) -> Res {
    load(cx, d, d.inst.info().facts.comps as usize, packing(d))
}

/// `{buffer,tbuffer}_store_format_*`.
fn format_store(cx: &mut Cx, d: &Decoded) -> Res {
    store(cx, d, d.inst.info().facts.comps as usize, packing(d))
}

semantics! {
    BUFFER_LOAD_FORMAT_X => format_load;
    BUFFER_LOAD_FORMAT_XY => format_load;
    BUFFER_LOAD_FORMAT_XYZ => format_load;
    BUFFER_LOAD_FORMAT_XYZW => format_load;
    BUFFER_STORE_FORMAT_X => format_store;
    BUFFER_STORE_FORMAT_XY => format_store;
    BUFFER_STORE_FORMAT_XYZ => format_store;
    BUFFER_STORE_FORMAT_XYZW => format_store;
    BUFFER_LOAD_FORMAT_D16_X => format_load;
    BUFFER_LOAD_FORMAT_D16_XY => format_load;
    BUFFER_LOAD_FORMAT_D16_XYZ => format_load;
    BUFFER_LOAD_FORMAT_D16_XYZW => format_load;
    BUFFER_STORE_FORMAT_D16_X => format_store;
    BUFFER_STORE_FORMAT_D16_XY => format_store;
    BUFFER_STORE_FORMAT_D16_XYZ => format_store;
    BUFFER_STORE_FORMAT_D16_XYZW => format_store;
    BUFFER_LOAD_FORMAT_D16_HI_X => format_load;
    BUFFER_STORE_FORMAT_D16_HI_X => format_store;
    TBUFFER_LOAD_FORMAT_X => format_load;
    TBUFFER_LOAD_FORMAT_XY => format_load;
    TBUFFER_LOAD_FORMAT_XYZ => format_load;
    TBUFFER_LOAD_FORMAT_XYZW => format_load;
    TBUFFER_STORE_FORMAT_X => format_store;
    TBUFFER_STORE_FORMAT_XY => format_store;
    TBUFFER_STORE_FORMAT_XYZ => format_store;
    TBUFFER_STORE_FORMAT_XYZW => format_store;
    TBUFFER_LOAD_FORMAT_D16_X => format_load;
    TBUFFER_LOAD_FORMAT_D16_XY => format_load;
    TBUFFER_LOAD_FORMAT_D16_XYZ => format_load;
    TBUFFER_LOAD_FORMAT_D16_XYZW => format_load;
    TBUFFER_STORE_FORMAT_D16_X => format_store;
    TBUFFER_STORE_FORMAT_D16_XY => format_store;
    TBUFFER_STORE_FORMAT_D16_XYZ => format_store;
    TBUFFER_STORE_FORMAT_D16_XYZW => format_store;
}
