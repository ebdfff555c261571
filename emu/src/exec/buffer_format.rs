//! Data-format conversion of the typed buffer ops (buffer_*_format_*, tbuffer_*): a data format
//! (DFMT: component widths and packing) with a numeric format (NFMT: how a component's bits
//! become a number). Loads turn one element into up to four 32-bit (or, for d16, 16-bit)
//! results and fill components the format lacks with 0, 0, 0, 1; stores convert and clamp.
//! Packed formats list their components from the most significant end (`2_10_10_10` has X in
//! bits 9:0 and W in bits 31:30), as the hardware's register specs do.

/// BUF_DATA_FORMAT names by value (0 is INVALID, 15 reserved).
const DFMT_NAMES: [&str; 16] = [
    "INVALID",
    "8",
    "16",
    "8_8",
    "32",
    "16_16",
    "10_11_11",
    "11_11_10",
    "10_10_10_2",
    "2_10_10_10",
    "8_8_8_8",
    "32_32",
    "16_16_16_16",
    "32_32_32",
    "32_32_32_32",
    "reserved (15)",
];

/// BUF_NUM_FORMAT names by value (6 is reserved on gfx9).
const NFMT_NAMES: [&str; 8] = [
    "UNORM",
    "SNORM",
    "USCALED",
    "SSCALED",
    "UINT",
    "SINT",
    "reserved (6)",
    "FLOAT",
];

/// How a component's bits become a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// [0, 1] float from an unsigned integer.
    Unorm,
    /// [-1, 1] float from a signed integer (the most negative value also gives -1).
    Snorm,
    /// The unsigned integer as a float.
    Uscaled,
    /// The signed integer as a float.
    Sscaled,
    Uint,
    Sint,
    /// IEEE f16/f32, or the unsigned 11- and 10-bit floats of 10_11_11 / 11_11_10.
    Float,
}

impl Num {
    /// Float results (and 1.0 as the default W), as opposed to integers.
    pub fn is_float(self) -> bool {
        !matches!(self, Num::Uint | Num::Sint)
    }
}

/// A checked format: element size and (shift, width) of each component, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    pub bytes: usize,
    pub comps: &'static [(u32, u32)],
    pub num: Num,
}

fn layout(dfmt: u32) -> Option<(usize, &'static [(u32, u32)])> {
    Some(match dfmt {
        1 => (1, &[(0, 8)]),
        2 => (2, &[(0, 16)]),
        3 => (2, &[(0, 8), (8, 8)]),
        4 => (4, &[(0, 32)]),
        5 => (4, &[(0, 16), (16, 16)]),
        6 => (4, &[(0, 11), (11, 11), (22, 10)]),
        7 => (4, &[(0, 10), (10, 11), (21, 11)]),
        8 => (4, &[(0, 2), (2, 10), (12, 10), (22, 10)]),
        9 => (4, &[(0, 10), (10, 10), (20, 10), (30, 2)]),
        10 => (4, &[(0, 8), (8, 8), (16, 8), (24, 8)]),
        11 => (8, &[(0, 32), (32, 32)]),
        12 => (8, &[(0, 16), (16, 16), (32, 16), (48, 16)]),
        13 => (12, &[(0, 32), (32, 32), (64, 32)]),
        14 => (16, &[(0, 32), (32, 32), (64, 32), (96, 32)]),
        _ => return None,
    })
}

/// The format's spec, or why the combination is not one the hardware defines (the ISA leaves
/// those undefined; we stop the kernel instead of guessing).
pub fn spec(dfmt: u32, nfmt: u32) -> Result<Spec, String> {
    let name = || {
        format!(
            "data format {} ({}) with numeric format {} ({})",
            DFMT_NAMES[dfmt as usize & 15],
            dfmt,
            NFMT_NAMES[nfmt as usize & 7],
            nfmt
        )
    };
    let (bytes, comps) = layout(dfmt).ok_or_else(|| format!("{} is not defined", name()))?;
    let num = match nfmt {
        0 => Num::Unorm,
        1 => Num::Snorm,
        2 => Num::Uscaled,
        3 => Num::Sscaled,
        4 => Num::Uint,
        5 => Num::Sint,
        7 => Num::Float,
        _ => return Err(format!("{} is not defined", name())),
    };
    let widths: Vec<u32> = comps.iter().map(|c| c.1).collect();
    let ok = match num {
        // Normalised and scaled 32-bit components do not exist.
        Num::Unorm | Num::Snorm | Num::Uscaled | Num::Sscaled => widths[0] != 32,
        Num::Uint | Num::Sint => true,
        // Floats exist in 16 and 32 bits and as the packed 11/10-bit formats.
        Num::Float => matches!(dfmt, 2 | 4 | 5 | 6 | 7 | 11 | 12 | 13 | 14),
    };
    if !ok {
        return Err(format!("{} is not a valid combination", name()));
    }
    Ok(Spec { bytes, comps, num })
}

fn field(elem: u128, shift: u32, bits: u32) -> u32 {
    ((elem >> shift) & ((1u128 << bits) - 1)) as u32
}

fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

/// An unsigned small float (5-bit exponent, bias 15, `mbits` mantissa bits, no sign).
fn small_float_to_f32(v: u32, mbits: u32) -> f32 {
    let (e, m) = (v >> mbits, v & ((1 << mbits) - 1));
    let scale = (1u32 << mbits) as f64;
    match e {
        0 => (m as f64 / scale * 2f64.powi(-14)) as f32,
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => ((1.0 + m as f64 / scale) * 2f64.powi(e as i32 - 15)) as f32,
    }
}

/// f32 to an unsigned small float: round to nearest even; negative numbers and -0 give 0,
/// finite values above the largest give the largest, +inf and NaN stay themselves.
fn f32_to_small_float(x: f32, mbits: u32) -> u32 {
    let one = 1u32 << mbits;
    if x.is_nan() {
        return (31 << mbits) | (one >> 1);
    }
    if x <= 0.0 {
        return 0;
    }
    if x.is_infinite() {
        return 31 << mbits;
    }
    let max = (30 << mbits) | (one - 1);
    let x = x as f64;
    let min_normal = 2f64.powi(-14);
    if x < min_normal {
        // Denormal: m * 2^-14 / 2^mbits; rounding up to `one` lands on the smallest normal.
        return (x / min_normal * one as f64).round_ties_even() as u32;
    }
    let e = x.log2().floor() as i32;
    // log2 can be off by one next to powers of two; fix e so that 2^e <= x < 2^(e+1).
    let e = if 2f64.powi(e) > x {
        e - 1
    } else if 2f64.powi(e + 1) <= x {
        e + 1
    } else {
        e
    };
    let m = ((x / 2f64.powi(e) - 1.0) * one as f64).round_ties_even() as u32;
    let (e, m) = if m == one { (e + 1, 0) } else { (e, m) };
    let biased = e + 15;
    if biased >= 31 {
        return max;
    }
    ((biased as u32) << mbits) | m
}

/// A component's value as a float (for the float numeric formats).
fn to_float(spec: &Spec, raw: u32, bits: u32) -> f64 {
    let umax = ((1u64 << bits) - 1) as f64;
    match spec.num {
        Num::Unorm => raw as f64 / umax,
        Num::Snorm => (sext(raw, bits) as f64 / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0),
        Num::Uscaled => raw as f64,
        Num::Sscaled => sext(raw, bits) as f64,
        Num::Float => match bits {
            16 => half::f16::from_bits(raw as u16).to_f64(),
            32 => f32::from_bits(raw) as f64,
            b => small_float_to_f32(raw, b - 5) as f64,
        },
        Num::Uint | Num::Sint => unreachable!("integer formats are not floats"),
    }
}

/// Unpacks a little-endian element into its components (raw bits), lowest first.
fn raw_components(spec: &Spec, elem: &[u8]) -> Vec<(u32, u32)> {
    let mut buf = [0u8; 16];
    buf[..spec.bytes].copy_from_slice(&elem[..spec.bytes]);
    let e = u128::from_le_bytes(buf);
    spec.comps
        .iter()
        .map(|&(shift, bits)| (field(e, shift, bits), bits))
        .collect()
}

/// Loads: the element's X, Y, Z, W as 32-bit results (f32 bits or integers), missing
/// components 0, 0, 0 and 1 (1.0 for float formats).
pub fn unpack32(spec: &Spec, elem: &[u8]) -> [u32; 4] {
    let one = if spec.num.is_float() {
        1f32.to_bits()
    } else {
        1
    };
    let mut out = [0, 0, 0, one];
    for (i, (raw, bits)) in raw_components(spec, elem).into_iter().enumerate() {
        out[i] = match spec.num {
            Num::Uint => raw,
            Num::Sint => sext(raw, bits) as u32,
            Num::Float if bits == 32 => raw,
            _ => (to_float(spec, raw, bits) as f32).to_bits(),
        };
    }
    out
}

/// d16 loads: 16-bit results; float formats give f16 (rounded to nearest even), integer
/// formats the low 16 bits of the (sign- or zero-extended) integer.
pub fn unpack16(spec: &Spec, elem: &[u8]) -> [u16; 4] {
    let one = if spec.num.is_float() { 0x3c00 } else { 1 };
    let mut out = [0, 0, 0, one];
    for (i, (raw, bits)) in raw_components(spec, elem).into_iter().enumerate() {
        out[i] = match spec.num {
            Num::Uint => raw as u16,
            Num::Sint => sext(raw, bits) as u16,
            Num::Float if bits == 16 => raw as u16,
            _ => half::f16::from_f64(to_float(spec, raw, bits)).to_bits(),
        };
    }
    out
}

/// A float to an integer field: NaN gives 0, then clamp to [lo, hi] and round (`round`: to
/// nearest, halves away from zero; else toward zero).
fn float_to_int(x: f64, lo: f64, hi: f64, round: bool) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let x = x.clamp(lo, hi);
    (if round { x.round() } else { x.trunc() }) as i64
}

/// One store component: `v` is the 32-bit data (f32 bits or an integer), packed into `bits`.
fn pack_component(spec: &Spec, v: u32, bits: u32, float_in: Option<f64>) -> u32 {
    let mask = ((1u64 << bits) - 1) as u32;
    let umax = ((1u64 << bits) - 1) as f64;
    let smax = ((1u64 << (bits - 1)) - 1) as f64;
    let f = || float_in.unwrap_or(f32::from_bits(v) as f64);
    let r = match spec.num {
        Num::Unorm => float_to_int(f() * umax, 0.0, umax, true),
        Num::Snorm => float_to_int(f().clamp(-1.0, 1.0) * smax, -smax, smax, true),
        Num::Uscaled => float_to_int(f(), 0.0, umax, false),
        Num::Sscaled => float_to_int(f(), -smax - 1.0, smax, false),
        Num::Uint => (v as u64).min(umax as u64) as i64,
        Num::Sint => (v as i32 as i64).clamp(-(smax as i64) - 1, smax as i64),
        Num::Float => {
            return match (bits, float_in) {
                (32, None) => v,
                (32, Some(x)) => (x as f32).to_bits(),
                (16, None) => half::f16::from_f32(f32::from_bits(v)).to_bits() as u32,
                (16, Some(x)) => half::f16::from_f64(x).to_bits() as u32,
                (b, _) => f32_to_small_float(f() as f32, b - 5),
            }
        }
    };
    r as u32 & mask
}

/// Stores the first `n` of `vals` (32-bit data) into `elem`, keeping the other components'
/// bits: a store with fewer components than the format changes only those it has.
pub fn pack32(spec: &Spec, vals: &[u32; 4], n: usize, elem: &mut [u8]) {
    pack(spec, n, elem, |i, bits| {
        pack_component(spec, vals[i], bits, None)
    });
}

/// d16 stores: 16-bit data, f16 for the float formats, a 16-bit integer (zero- or sign-
/// extended) for UINT/SINT.
pub fn pack16(spec: &Spec, vals: &[u16; 4], n: usize, elem: &mut [u8]) {
    pack(spec, n, elem, |i, bits| {
        let h = vals[i];
        match spec.num {
            Num::Uint => pack_component(spec, h as u32, bits, None),
            Num::Sint => pack_component(spec, h as i16 as i32 as u32, bits, None),
            _ => {
                let x = half::f16::from_bits(h).to_f64();
                pack_component(spec, 0, bits, Some(x))
            }
        }
    });
}

fn pack(spec: &Spec, n: usize, elem: &mut [u8], mut value: impl FnMut(usize, u32) -> u32) {
    let mut buf = [0u8; 16];
    buf[..spec.bytes].copy_from_slice(&elem[..spec.bytes]);
    let mut e = u128::from_le_bytes(buf);
    for (i, &(shift, bits)) in spec.comps.iter().enumerate().take(n) {
        let mask = ((1u128 << bits) - 1) << shift;
        e = (e & !mask) | ((value(i, bits) as u128) << shift & mask);
    }
    elem[..spec.bytes].copy_from_slice(&e.to_le_bytes()[..spec.bytes]);
}
