//! Trailing modifiers (`offset:16 glc`, `clamp mul:2`, `dst_sel:WORD_1`, `row_shl:1`...): the
//! inverse of `syntax::write_modifiers`, one function per format family.

use super::encoding::set_op_sel_hi;
use super::special;
use super::value::parse_int;
use crate::fields::Enc;
use crate::syntax::{DFMT, NFMT};
use crate::table::{Format, Op, OpInfo};

/// A modifier that did not apply.
pub type ModError = String;

struct Words<'a> {
    w: &'a mut [u32; 2],
}

impl Words<'_> {
    fn set(&mut self, word: usize, lo: u32, bits: u32, v: u32) -> Result<(), ModError> {
        let mask = if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        if v > mask {
            return Err(format!("value {v} does not fit in {bits} bits"));
        }
        self.w[word] = (self.w[word] & !(mask << lo)) | (v << lo);
        Ok(())
    }
    fn flag(&mut self, word: usize, bit: u32) -> Result<(), ModError> {
        self.set(word, bit, 1, 1)
    }
}

fn int(v: Option<&str>, name: &str) -> Result<u32, ModError> {
    let v = v.ok_or_else(|| format!("`{name}` needs a value"))?;
    let n = parse_int(v).ok_or_else(|| format!("`{name}:{v}`: not a number"))?;
    u32::try_from(n).map_err(|_| format!("`{name}:{v}`: out of range"))
}

/// `[1,0,1]` as bits (element i is bit i).
fn bit_list(v: Option<&str>, name: &str) -> Result<u32, ModError> {
    let v = v.ok_or_else(|| format!("`{name}` needs a value"))?;
    let inner = v
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("`{name}:{v}`: expected [..]"))?;
    let mut out = 0;
    for (i, b) in inner.split(',').enumerate() {
        match b.trim() {
            "0" => {}
            "1" => out |= 1 << i,
            _ => return Err(format!("`{name}:{v}`: elements must be 0 or 1")),
        }
    }
    Ok(out)
}

const SDWA_SEL: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];

fn sdwa_sel(v: Option<&str>, name: &str) -> Result<u32, ModError> {
    let v = v.unwrap_or("");
    SDWA_SEL
        .iter()
        .position(|s| *s == v)
        .map(|i| i as u32)
        .or_else(|| (v == "SEL_7").then_some(7))
        .ok_or_else(|| format!("`{name}:{v}`: unknown selector"))
}

fn dst_unused(v: Option<&str>) -> Result<u32, ModError> {
    match v.unwrap_or("") {
        "UNUSED_PAD" => Ok(0),
        "UNUSED_SEXT" => Ok(1),
        "UNUSED_PRESERVE" => Ok(2),
        o => Err(format!("`dst_unused:{o}`: unknown value")),
    }
}

fn dpp_ctrl(name: &str, v: Option<&str>) -> Result<Option<u32>, ModError> {
    let n = || int(v, name);
    Ok(Some(match name {
        "quad_perm" => {
            let v = v.unwrap_or("");
            let inner = v
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .unwrap_or("");
            let lanes: Vec<u32> = inner
                .split(',')
                .filter_map(|x| x.trim().parse().ok())
                .collect();
            if lanes.len() != 4 || lanes.iter().any(|l| *l > 3) {
                return Err(format!("`quad_perm:{v}`: expected four lanes 0-3"));
            }
            lanes[0] | (lanes[1] << 2) | (lanes[2] << 4) | (lanes[3] << 6)
        }
        "row_shl" | "row_shr" | "row_ror" => {
            let k = n()?;
            if !(1..=15).contains(&k) {
                return Err(format!("`{name}:{k}`: expected 1-15"));
            }
            k + match name {
                "row_shl" => 0x100,
                "row_shr" => 0x110,
                _ => 0x120,
            }
        }
        "wave_shl" => 0x130,
        "wave_rol" => 0x134,
        "wave_shr" => 0x138,
        "wave_ror" => 0x13c,
        "row_mirror" => 0x140,
        "row_half_mirror" => 0x141,
        "row_bcast" => match n()? {
            15 => 0x142,
            31 => 0x143,
            k => return Err(format!("`row_bcast:{k}`: expected 15 or 31")),
        },
        // gfx90a (other targets' decoders reject the control)
        "row_newbcast" => match n()? {
            k @ 0..=15 => 0x150 + k,
            k => return Err(format!("`row_newbcast:{k}`: expected 0-15")),
        },
        _ => return Ok(None),
    }))
}

/// `format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]` as (dfmt, nfmt).
fn mtbuf_format(v: Option<&str>) -> Result<(u32, u32), ModError> {
    let v = v.unwrap_or("");
    if let Ok(n) = int(Some(v), "format") {
        return Ok((n & 0xf, (n >> 4) & 7));
    }
    let inner = v
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("`format:{v}`: expected [..]"))?;
    let (mut dfmt, mut nfmt) = (1, 0);
    for part in inner.split(',').map(str::trim) {
        if let Some(d) = DFMT.iter().position(|n| *n == part) {
            dfmt = d as u32;
        } else if let Some(n) = NFMT.iter().position(|n| *n == part) {
            nfmt = n as u32;
        } else {
            return Err(format!("`format:{v}`: unknown `{part}`"));
        }
    }
    Ok((dfmt, nfmt))
}

/// Applies one `name[:value]` modifier to the words of a `format`/`enc` instruction; `gfx940`
/// names the cache-policy bits `sc0`, `sc1` and `nt` in place of `glc`, `scc` and `slc`.
pub fn apply(
    info: &OpInfo,
    enc: Enc,
    w: &mut [u32; 2],
    modifier: &str,
    gfx940: bool,
) -> Result<(), ModError> {
    let (format, op) = (info.format, info.op);
    let (name, value) = match modifier.split_once(':') {
        Some((n, v)) => (n, Some(v)),
        None => (modifier, None),
    };
    let mut w = Words { w };
    let unknown = || {
        Err(format!(
            "unknown modifier `{modifier}` for {}",
            format.name()
        ))
    };
    // Output modifiers shared by VOP3 and SDWA.
    let (clamp_at, omod_at) = match (format, enc) {
        (Format::Vop3, _) => (Some((0, 15)), Some((1, 27))),
        (Format::Vop3p, _) => (Some((0, 15)), None),
        (Format::Vop1 | Format::Vop2 | Format::Vopc, Enc::Sdwa) => (Some((1, 13)), Some((1, 14))),
        _ => (None, None),
    };
    match (name, clamp_at, omod_at) {
        ("clamp", Some((word, bit)), _) => return w.flag(word, bit),
        ("mul", _, Some((word, lo))) => {
            return match int(value, name)? {
                1 => Ok(()),
                2 => w.set(word, lo, 2, 1),
                4 => w.set(word, lo, 2, 2),
                k => Err(format!("`mul:{k}`: expected 2 or 4")),
            }
        }
        ("div", _, Some((word, lo))) => {
            return match int(value, name)? {
                1 => Ok(()),
                2 => w.set(word, lo, 2, 3),
                k => Err(format!("`div:{k}`: expected 2")),
            }
        }
        _ => {}
    }
    // gfx940's cache-policy bits, where the other targets have glc, slc and scc.
    let name = match (gfx940, format, name) {
        (
            true,
            Format::Mubuf | Format::Mtbuf | Format::Flat | Format::Global | Format::Scratch,
            _,
        ) => match name {
            "sc0" => "glc",
            "nt" => "slc",
            "sc1" if format == Format::Mubuf => "scc",
            "sc1" if format != Format::Mtbuf => "sc1",
            "glc" | "slc" | "scc" => return unknown(),
            other => other,
        },
        _ => name,
    };
    match format {
        Format::Smem => match name {
            "glc" => w.flag(0, 16),
            // `offset:` beside an SGPR offset operand: the soe form (set by the caller).
            "offset" => {
                let v = parse_int(value.unwrap_or("")).ok_or("`offset` needs a number")?;
                w.flag(0, 14)?;
                w.flag(0, 17)?;
                w.set(1, 0, 21, (v as u32) & 0x1f_ffff)
            }
            _ => unknown(),
        },
        Format::Vop1 | Format::Vop2 | Format::Vopc => match (enc, name) {
            (Enc::Sdwa, "dst_sel") => w.set(1, 8, 3, sdwa_sel(value, name)?),
            (Enc::Sdwa, "dst_unused") => w.set(1, 11, 2, dst_unused(value)?),
            (Enc::Sdwa, "src0_sel") => w.set(1, 16, 3, sdwa_sel(value, name)?),
            (Enc::Sdwa, "src1_sel") => w.set(1, 24, 3, sdwa_sel(value, name)?),
            (Enc::Dpp, "row_mask") => w.set(1, 28, 4, int(value, name)?),
            (Enc::Dpp, "bank_mask") => w.set(1, 24, 4, int(value, name)?),
            // LLVM prints `bound_ctrl:1`; older syntax wrote `bound_ctrl:0` for the same bit.
            (Enc::Dpp, "bound_ctrl") => w.flag(1, 19),
            (Enc::Dpp, _) => match dpp_ctrl(name, value)? {
                Some(c) => w.set(1, 8, 9, c),
                None => unknown(),
            },
            _ => unknown(),
        },
        Format::Vop3 => match name {
            // One element per source, the last for the destination (bit 3).
            "op_sel" => {
                let n = value.map_or(0, |v| v.split(',').count()).max(1) as u32;
                let v = bit_list(value, name)?;
                let srcs = v & ((1 << (n - 1)) - 1);
                w.set(0, 11, 4, srcs | ((v >> (n - 1)) << 3))
            }
            "high" if op.is_interp() => w.flag(1, 8),
            _ => unknown(),
        },
        Format::Vop3p if info.is_mfma() => match name {
            "cbsz" => w.set(0, 8, 3, int(value, name)?),
            "abid" => w.set(0, 11, 4, int(value, name)?),
            "blgp" => w.set(1, 29, 3, int(value, name)?),
            // gfx940's f64 ops: the same bits negate A, B and C
            "neg" if gfx940 => w.set(1, 29, 3, bit_list(value, name)?),
            _ => unknown(),
        },
        Format::Vop3p => match name {
            "op_sel" => w.set(0, 11, 3, bit_list(value, name)?),
            "op_sel_hi" => {
                let n = value.map_or(0, |v| v.split(',').count());
                set_op_sel_hi(w.w, bit_list(value, name)?, n);
                Ok(())
            }
            "neg_lo" => w.set(1, 29, 3, bit_list(value, name)?),
            "neg_hi" => w.set(0, 8, 3, bit_list(value, name)?),
            _ => unknown(),
        },
        Format::Ds => match name {
            "offset" if op == Op::DS_SWIZZLE_B32 => {
                let v = special::swizzle(value.unwrap_or(""))
                    .ok_or_else(|| format!("`{modifier}`: bad swizzle"))?;
                w.set(0, 0, 16, v as u32)
            }
            "offset" => w.set(0, 0, 16, int(value, name)?),
            "offset0" => w.set(0, 0, 8, int(value, name)?),
            "offset1" => w.set(0, 8, 8, int(value, name)?),
            "gds" => w.flag(0, 16),
            _ => unknown(),
        },
        Format::Mubuf | Format::Mtbuf => match name {
            "offset" => w.set(0, 0, 12, int(value, name)?),
            "offen" => w.flag(0, 12),
            "idxen" => w.flag(0, 13),
            "glc" => w.flag(0, 14),
            "slc" if format == Format::Mtbuf => w.flag(1, 22),
            "slc" => w.flag(0, 17),
            "lds" if format == Format::Mubuf => w.flag(0, 16),
            // gfx90a (the decoder drops the bit for other targets)
            "scc" if format == Format::Mubuf => w.flag(0, 15),
            "tfe" => w.flag(1, 23),
            "format" if format == Format::Mtbuf => {
                let (dfmt, nfmt) = mtbuf_format(value)?;
                w.set(0, 19, 4, dfmt)?;
                w.set(0, 23, 3, nfmt)
            }
            _ => unknown(),
        },
        Format::Mimg => match name {
            "dmask" => w.set(0, 8, 4, int(value, name)?),
            "unorm" => w.flag(0, 12),
            "glc" => w.flag(0, 13),
            "da" => w.flag(0, 14),
            "a16" | "r128" => w.flag(0, 15),
            "tfe" => w.flag(0, 16),
            "lwe" => w.flag(0, 17),
            "slc" => w.flag(0, 25),
            "d16" => w.flag(1, 31),
            _ => unknown(),
        },
        Format::Flat | Format::Global | Format::Scratch => match name {
            "offset" => {
                let v = parse_int(value.unwrap_or("")).ok_or("`offset` needs a number")?;
                // FLAT offsets are unsigned (the disassembler shows all 13 bits), the others signed.
                let ok = if format == Format::Flat {
                    (0..8192).contains(&v)
                } else {
                    (-4096..4096).contains(&v)
                };
                if !ok {
                    return Err(format!("`offset:{v}` out of range"));
                }
                w.set(0, 0, 13, (v as u32) & 0x1fff)
            }
            "glc" => w.flag(0, 16),
            "slc" => w.flag(0, 17),
            "sc1" => w.flag(0, 25),
            "lds" if !gfx940 => w.flag(0, 13),
            _ => unknown(),
        },
        Format::Exp => match name {
            "done" => w.flag(0, 11),
            "compr" => w.flag(0, 10),
            "vm" => w.flag(0, 12),
            _ => unknown(),
        },
        _ => unknown(),
    }
}
