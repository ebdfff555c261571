//! Op-level test vectors as data (`emu/tests/vectors/*.txt`): the parser, the executor and the
//! comparison used by `op_vectors.rs` (the runner) and `exec_support.rs` (the manifest's
//! *tested* column). The format is described in `emu/tests/vectors/README.md` and at the top
//! of `op_vectors.rs`; `record.rs` beside this file writes vectors from the reference-model
//! tests.

use super::run_code;
use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::{RegFile, Wave};
use std::fmt::Write as _;

pub const LANES: usize = 64;

/// A value: `base(buf) + add + lane_mul * lane` (most are plain numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub buf: Option<usize>,
    pub add: u64,
    pub lane_mul: u64,
}

impl Expr {
    pub fn num(v: u64) -> Expr {
        Expr {
            buf: None,
            add: v,
            lane_mul: 0,
        }
    }
    pub fn eval(&self, bases: &[u64], lane: usize) -> Result<u64, String> {
        let base = match self.buf {
            Some(b) => *bases
                .get(b)
                .ok_or_else(|| format!("buf{b} is not declared"))?,
            None => 0,
        };
        Ok(base
            .wrapping_add(self.add)
            .wrapping_add(self.lane_mul.wrapping_mul(lane as u64)))
    }
}

/// What an expected value accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// `_`: not checked.
    Any,
    Exact(Expr),
    /// `VALUE/MASK`: the bits of MASK equal VALUE's.
    Masked(u64, u64),
    /// `VALUE~T`: within T of VALUE as an integer (T ulps of a float of one sign).
    Near(u64, u64),
    /// `nan`: a NaN of the width (f32 for one register, f64 for a pair).
    Nan,
    /// `nan16` (bits 15:0 an f16 NaN, the rest not checked) or `nan16:HI` (bits 31:16 = HI).
    Nan16(Option<u16>),
}

/// A register range: SGPRs by operand code, or VGPRs; `count` registers from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    S {
        first: u16,
        count: u16,
    },
    V {
        first: u16,
        count: u16,
    },
    /// One AGPR (the matrix cores' accumulation registers).
    A {
        first: u16,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    Target(Target),
    /// gfx90a: the first AGPR's row in the unified file (default 256).
    AccumOffset(u32),
    Mode(u32),
    Scc(bool),
    /// An SGPR range: one value split low dword first, or a list of dwords.
    Sgpr(u16, Vec<Expr>, u16),
    /// A VGPR (count 1) or pair (count 2): values cycled over the lanes.
    Vgpr(u16, u16, Vec<Expr>),
    /// An AGPR: values cycled over the lanes.
    Agpr(u16, Vec<Expr>),
    /// `bufN=SIZE` or `bufN=SIZE:ramp(MUL,ADD)`: byte i is (MUL*i + ADD) mod 256.
    Buf(usize, u64, Option<(u8, u8)>),
    /// `bufN+OFF=[dwords]`.
    Mem(usize, u64, Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Scc(bool),
    /// An SGPR range: one want over the whole range (≤ 64 bits) or a list of dword wants.
    Sgpr(u16, u16, Vec<Want>),
    /// A VGPR or pair: wants cycled over the lanes.
    Vgpr(u16, u16, Vec<Want>),
    /// An AGPR: wants cycled over the lanes.
    Agpr(u16, Vec<Want>),
    /// Dwords of memory at `bufN+OFF`.
    Mem(usize, u64, Vec<Want>),
    /// `stop=WORD`: the snippet ends the wave with a guest error whose text holds WORD (a trap,
    /// a halt), so no register is left to check.
    Stop(String),
}

#[derive(Clone, Debug)]
pub struct Vector {
    pub file: String,
    pub line: usize,
    /// Instructions separated by `;` (s_endpgm is appended).
    pub asm: String,
    pub target: Target,
    pub inputs: Vec<Input>,
    pub expects: Vec<Expect>,
}

impl Vector {
    pub fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing.

fn parse_int(s: &str) -> Result<u64, String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        u64::from_str_radix(&h.replace('_', ""), 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        u64::from_str_radix(&b.replace('_', ""), 2)
    } else {
        body.replace('_', "").parse::<u64>()
    }
    .map_err(|_| format!("bad number `{s}`"))?;
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// A float literal (`1.5`, `-2e3`, `inf`, `-inf`, `qnan`; suffix `h` for f16) as bits of
/// `bits` width, or None if `s` is not one.
fn parse_float(s: &str, bits: u32) -> Option<Result<u64, String>> {
    let (body, half) = match s.strip_suffix('h') {
        Some(b) if !s.starts_with("0x") => (b, true),
        _ => (s, false),
    };
    let t = body.trim_start_matches('-');
    if t.contains("lane") || t.contains("buf") || t.contains('+') && !t.contains("e+") {
        return None;
    }
    let looks = t.contains('.')
        || t == "inf"
        || t == "qnan"
        || (t.contains('e') && !t.starts_with("0x") && t.chars().next()?.is_ascii_digit());
    if !looks {
        return None;
    }
    let x: f64 = match t {
        "inf" => f64::INFINITY,
        "qnan" => f64::NAN,
        _ => match t.parse() {
            Ok(x) => x,
            Err(_) => return Some(Err(format!("bad float `{s}`"))),
        },
    };
    let x = if body.starts_with('-') { -x } else { x };
    Some(Ok(if half {
        half::f16::from_f64(x).to_bits() as u64
    } else if bits == 64 {
        x.to_bits()
    } else {
        (x as f32).to_bits() as u64
    }))
}

/// `term(+term)*`, terms: a number, a float, `bufN`, `K*lane`, `lane`.
fn parse_expr(s: &str, bits: u32) -> Result<Expr, String> {
    if let Some(f) = parse_float(s, bits) {
        return f.map(Expr::num);
    }
    let mut e = Expr::num(0);
    for term in s.split('+') {
        let term = term.trim();
        if term.is_empty() {
            return Err(format!("bad value `{s}`"));
        }
        if let Some(n) = term.strip_prefix("buf") {
            if e.buf.is_some() {
                return Err(format!("two buffers in `{s}`"));
            }
            e.buf = Some(n.parse().map_err(|_| format!("bad buffer `{term}`"))?);
        } else if term == "lane" {
            e.lane_mul = e.lane_mul.wrapping_add(1);
        } else if let Some(k) = term.strip_suffix("*lane") {
            e.lane_mul = e.lane_mul.wrapping_add(parse_int(k)?);
        } else {
            e.add = e.add.wrapping_add(parse_int(term)?);
        }
    }
    Ok(e)
}

/// A list `[a,b*3,c]` (`x*N`: N copies) or a single item.
fn parse_list<T: Clone>(
    s: &str,
    item: &dyn Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let Some(inner) = s.strip_prefix('[') else {
        return Ok(vec![item(s)?]);
    };
    let inner = inner
        .strip_suffix(']')
        .ok_or_else(|| format!("unclosed list `{s}`"))?;
    let mut out = Vec::new();
    for part in inner.split(',') {
        let part = part.trim();
        let (x, n) = match part.rsplit_once('*') {
            Some((x, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => {
                (x, n.parse::<usize>().map_err(|e| e.to_string())?)
            }
            _ => (part, 1),
        };
        let v = item(x)?;
        out.extend(std::iter::repeat_n(v, n));
    }
    if out.is_empty() {
        return Err("empty list".into());
    }
    Ok(out)
}

fn parse_want(s: &str, bits: u32) -> Result<Want, String> {
    if s == "_" {
        return Ok(Want::Any);
    }
    if s == "nan" {
        return Ok(Want::Nan);
    }
    if s == "nan16" {
        return Ok(Want::Nan16(None));
    }
    if let Some(hi) = s.strip_prefix("nan16:") {
        return Ok(Want::Nan16(Some(parse_int(hi)? as u16)));
    }
    if let Some((v, m)) = s.split_once('/') {
        let m = parse_int(m)?;
        return Ok(Want::Masked(parse_int(v)? & m, m));
    }
    if let Some((v, t)) = s.split_once('~') {
        return Ok(Want::Near(parse_expr(v, bits)?.add, parse_int(t)?));
    }
    Ok(Want::Exact(parse_expr(s, bits)?))
}

/// SGPR names by operand code.
fn named_sgpr(name: &str) -> Option<(u16, u16)> {
    Some(match name {
        "vcc" => (106, 2),
        "vcc_lo" => (106, 1),
        "vcc_hi" => (107, 1),
        "exec" => (126, 2),
        "exec_lo" => (126, 1),
        "exec_hi" => (127, 1),
        "m0" => (124, 1),
        "flat_scratch" => (102, 2),
        "flat_scratch_lo" => (102, 1),
        "flat_scratch_hi" => (103, 1),
        "xnack_mask" => (104, 2),
        _ => {
            if let Some(n) = name.strip_prefix("ttmp") {
                let n: u16 = n.parse().ok()?;
                (n < 16).then_some((108 + n, 1))?
            } else {
                return None;
            }
        }
    })
}

fn parse_reg(name: &str) -> Result<Reg, String> {
    if let Some((first, count)) = named_sgpr(name) {
        return Ok(Reg::S { first, count });
    }
    let bad = || format!("unknown register `{name}`");
    let (kind, rest) = name.split_at(1);
    let (first, count) = if let Some(r) = rest.strip_prefix('[') {
        let r = r.strip_suffix(']').ok_or_else(bad)?;
        let (a, b) = r.split_once(':').ok_or_else(bad)?;
        let (a, b): (u16, u16) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if b < a {
            return Err(bad());
        }
        (a, b - a + 1)
    } else {
        (rest.parse::<u16>().map_err(|_| bad())?, 1)
    };
    match kind {
        "s" if first + count <= 102 => Ok(Reg::S { first, count }),
        "v" if first + count <= 256 && count <= 2 => Ok(Reg::V { first, count }),
        "a" if first < 256 && count == 1 => Ok(Reg::A { first }),
        _ => Err(bad()),
    }
}

/// `bufN+OFF` (or `bufN`) as a memory place.
fn parse_mem_place(name: &str) -> Option<Result<(usize, u64), String>> {
    let rest = name.strip_prefix("buf")?;
    let (n, off) = match rest.split_once('+') {
        Some((n, off)) => (n, Some(off)),
        None => (rest, None),
    };
    let n: usize = match n.parse() {
        Ok(n) => n,
        Err(_) => return Some(Err(format!("bad buffer `{name}`"))),
    };
    Some(match off {
        Some(o) => parse_int(o).map(|o| (n, o)),
        None => Ok((n, u64::MAX)),
    })
}

fn parse_input(tok: &str, target: &mut Target) -> Result<Input, String> {
    let (name, val) = tok
        .split_once('=')
        .ok_or_else(|| format!("`{tok}` is not NAME=VALUE"))?;
    match name {
        "target" => {
            let t = match val {
                "gfx900" => Target::Gfx900,
                "gfx906" => Target::Gfx906,
                "gfx908" => Target::Gfx908,
                "gfx90a" => Target::Gfx90a,
                "gfx940" => Target::Gfx940,
                "gfx942" => Target::Gfx942,
                _ => return Err(format!("unknown target `{val}`")),
            };
            *target = t;
            return Ok(Input::Target(t));
        }
        "mode" => return Ok(Input::Mode(parse_int(val)? as u32)),
        "accum_offset" => {
            let n = parse_int(val)? as u32;
            if n == 0 || !n.is_multiple_of(4) || n > 256 {
                return Err(format!("accum_offset={val}: a multiple of 4 from 4 to 256"));
            }
            return Ok(Input::AccumOffset(n));
        }
        "scc" => return Ok(Input::Scc(parse_int(val)? != 0)),
        _ => {}
    }
    if let Some(place) = parse_mem_place(name) {
        let (n, off) = place?;
        if off == u64::MAX {
            let (size, ramp) = match val.split_once(":ramp(") {
                Some((size, r)) => {
                    let r = r
                        .strip_suffix(')')
                        .ok_or_else(|| format!("bad ramp `{val}`"))?;
                    let (m, a) = r
                        .split_once(',')
                        .ok_or_else(|| format!("bad ramp `{val}`"))?;
                    (size, Some((parse_int(m)? as u8, parse_int(a)? as u8)))
                }
                None => (val, None),
            };
            return Ok(Input::Buf(n, parse_int(size)?, ramp));
        }
        return Ok(Input::Mem(n, off, parse_list(val, &|x| parse_expr(x, 32))?));
    }
    match parse_reg(name)? {
        Reg::S { first, count } => {
            let bits = if count == 2 { 64 } else { 32 };
            let vals = parse_list(val, &|x| parse_expr(x, bits))?;
            if vals.len() == 1 && count > 2 {
                return Err(format!("{name} takes a list of {count} dwords"));
            }
            if vals.len() > 1 && vals.len() != count as usize {
                return Err(format!("{name} takes {count} dwords, got {}", vals.len()));
            }
            Ok(Input::Sgpr(first, vals, count))
        }
        Reg::V { first, count } => {
            let vals = parse_list(val, &|x| parse_expr(x, 32 * count as u32))?;
            Ok(Input::Vgpr(first, count, vals))
        }
        Reg::A { first } => Ok(Input::Agpr(first, parse_list(val, &|x| parse_expr(x, 32))?)),
    }
}

fn parse_expect(tok: &str) -> Result<Expect, String> {
    let (name, val) = tok
        .split_once('=')
        .ok_or_else(|| format!("`{tok}` is not NAME=VALUE"))?;
    if name == "scc" {
        return Ok(Expect::Scc(parse_int(val)? != 0));
    }
    if name == "stop" {
        return Ok(Expect::Stop(val.to_string()));
    }
    if let Some(place) = parse_mem_place(name) {
        let (n, off) = place?;
        if off == u64::MAX {
            return Err(format!("`{name}` needs an offset (`{name}+0`)"));
        }
        return Ok(Expect::Mem(
            n,
            off,
            parse_list(val, &|x| parse_want(x, 32))?,
        ));
    }
    match parse_reg(name)? {
        Reg::S { first, count } => {
            let bits = if count == 2 { 64 } else { 32 };
            let wants = parse_list(val, &|x| parse_want(x, bits))?;
            if wants.len() == 1 && count > 2 {
                return Err(format!("{name} takes a list of {count} dwords"));
            }
            if wants.len() > 1 && wants.len() != count as usize {
                return Err(format!("{name} takes {count} dwords, got {}", wants.len()));
            }
            Ok(Expect::Sgpr(first, count, wants))
        }
        Reg::V { first, count } => Ok(Expect::Vgpr(
            first,
            count,
            parse_list(val, &|x| parse_want(x, 32 * count as u32))?,
        )),
        Reg::A { first } => Ok(Expect::Agpr(
            first,
            parse_list(val, &|x| parse_want(x, 32))?,
        )),
    }
}

/// Parses one line; `Ok(None)` for blank and comment lines.
pub fn parse_line(file: &str, line: usize, text: &str) -> Result<Option<Vector>, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    // Sections split at a `|` with white space (or the line's end) on both sides, so that
    // `|v1|` (abs) stays in the assembly.
    let b = text.as_bytes();
    let mut parts = Vec::new();
    let mut from = 0;
    for i in 0..b.len() {
        let spaced = |j: Option<&u8>| j.is_none_or(|c| c.is_ascii_whitespace());
        if b[i] == b'|' && spaced(i.checked_sub(1).map(|j| &b[j])) && spaced(b.get(i + 1)) {
            parts.push(&text[from..i]);
            from = i + 1;
        }
    }
    parts.push(&text[from..]);
    if parts.len() != 3 {
        return Err("a vector is `ASM | INPUTS | EXPECTED` (sections split by ` | `)".into());
    }
    let mut target = Target::Gfx906;
    let inputs = parts[1]
        .split_whitespace()
        .map(|t| parse_input(t, &mut target))
        .collect::<Result<Vec<_>, _>>()?;
    let expects = parts[2]
        .split_whitespace()
        .map(parse_expect)
        .collect::<Result<Vec<_>, _>>()?;
    if expects.is_empty() {
        return Err("no expected value".into());
    }
    if expects.len() > 1 && expects.iter().any(|e| matches!(e, Expect::Stop(_))) {
        return Err("`stop=` is the only expectation of a vector (a stopped wave is gone)".into());
    }
    let mut bufs = 0;
    for i in &inputs {
        if let Input::Buf(n, ..) = i {
            if *n != bufs {
                return Err(format!("buf{n} declared out of order (expected buf{bufs})"));
            }
            bufs += 1;
        }
    }
    Ok(Some(Vector {
        file: file.to_string(),
        line,
        asm: parts[0].trim().to_string(),
        target,
        inputs,
        expects,
    }))
}

/// Every vector of one file's text; parse errors as `file:line: message`.
pub fn parse_file(file: &str, text: &str) -> (Vec<Vector>, Vec<String>) {
    let (mut vs, mut errs) = (Vec::new(), Vec::new());
    for (i, l) in text.lines().enumerate() {
        match parse_line(file, i + 1, l) {
            Ok(Some(v)) => vs.push(v),
            Ok(None) => {}
            Err(e) => errs.push(format!("{file}:{}: {e}", i + 1)),
        }
    }
    (vs, errs)
}

/// The vector files: `emu/tests/vectors/*.txt`, sorted by name.
pub fn files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------------
// Running and checking.

/// What a vector's run left behind.
pub struct Outcome {
    pub wave: Wave,
    pub mem: Memory,
    pub bases: Vec<u64>,
    /// The table rows (`inst.mnemonic()`, with `_sdwa`/`_dpp`) and (format, name) of the ops
    /// the snippet holds.
    pub ops: Vec<(String, &'static gcn_isa::OpInfo)>,
    /// The guest error that ended the wave, where the vector expects one (`stop=`); the wave
    /// is then a fresh one.
    pub stop: Option<String>,
}

/// The assembled snippet (instructions split at `;`, s_endpgm appended).
pub fn assemble_vector(v: &Vector) -> Result<Vec<u8>, String> {
    let text = format!("{}\ns_endpgm\n", v.asm.replace(';', "\n"));
    assemble(&text, v.target)
        .map(|c| c.bytes)
        .map_err(|e| format!("does not assemble: {e:?}"))
}

pub fn execute(v: &Vector) -> Result<Outcome, String> {
    let bytes = assemble_vector(v)?;
    let program = Program::decode(&bytes, 0x1000, v.target);
    let ops = program
        .insts
        .iter()
        .map(|d| (d.inst.mnemonic().into_owned(), d.inst.info()))
        .collect();
    let mut mem = Memory::default();
    let mut bases = Vec::new();
    for i in &v.inputs {
        if let Input::Buf(_, size, ramp) = i {
            let base = mem
                .alloc(*size, AllocKind::Buffer)
                .map_err(|e| e.to_string())?;
            if let Some((m, a)) = ramp {
                let data: Vec<u8> = (0..*size)
                    .map(|k| (k as u8).wrapping_mul(*m).wrapping_add(*a))
                    .collect();
                mem.write(base, &data).map_err(|e| e.to_string())?;
            }
            bases.push(base);
        }
    }
    for i in &v.inputs {
        if let Input::Mem(n, off, vals) = i {
            let base = *bases
                .get(*n)
                .ok_or_else(|| format!("buf{n} is not declared"))?;
            for (k, e) in vals.iter().enumerate() {
                let x = e.eval(&bases, 0)? as u32;
                mem.write_u32(base + off + 4 * k as u64, x)
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    let mut err = None;
    let setup = |w: &mut Wave| {
        // A gfx90a file with AGPRs from `accum_offset`: a fresh wave, EXEC and MODE kept.
        for i in &v.inputs {
            if let Input::AccumOffset(n) = i {
                let (exec, mode) = (w.exec(), w.mode);
                *w = Wave::with_file(0, RegFile::new(v.target, 512, Some(*n as usize)));
                w.set_exec(exec);
                w.mode = mode;
            }
        }
        for i in &v.inputs {
            if let Err(e) = apply(w, i, &bases) {
                err = Some(e);
            }
        }
    };
    let r = run_code(v.target, &bytes, &mut mem, setup);
    if let Some(e) = err {
        return Err(e);
    }
    let expects_stop = v.expects.iter().any(|e| matches!(e, Expect::Stop(_)));
    let (wave, stop) = match r {
        Ok(wave) => (wave, None),
        Err(f) if expects_stop => (Wave::new(0), Some(f.to_string())),
        Err(f) => return Err(format!("faults: {f:?}")),
    };
    Ok(Outcome {
        wave,
        mem,
        bases,
        ops,
        stop,
    })
}

fn apply(w: &mut Wave, i: &Input, bases: &[u64]) -> Result<(), String> {
    match i {
        Input::Mode(m) => w.mode = *m,
        Input::Scc(b) => w.scc = *b,
        Input::Sgpr(first, vals, count) => {
            if vals.len() == 1 {
                let x = vals[0].eval(bases, 0)?;
                for k in 0..*count {
                    w.sgpr[(first + k) as usize] = (x >> (32 * k)) as u32;
                }
            } else {
                for (k, e) in vals.iter().enumerate() {
                    w.sgpr[*first as usize + k] = e.eval(bases, 0)? as u32;
                }
            }
        }
        Input::Vgpr(first, count, vals) => {
            for l in 0..LANES {
                let x = vals[l % vals.len()].eval(bases, l)?;
                for k in 0..*count {
                    w.vgpr[(first + k) as usize][l] = (x >> (32 * k)) as u32;
                }
            }
        }
        Input::Agpr(n, vals) => {
            let row = agpr_row(w, *n)?;
            for l in 0..LANES {
                let x = vals[l % vals.len()].eval(bases, l)? as u32;
                if let Some(r) = w.vgpr.row_mut(row) {
                    r[l] = x;
                }
            }
        }
        Input::Target(_) | Input::AccumOffset(_) | Input::Buf(..) | Input::Mem(..) => {}
    }
    Ok(())
}

/// The row of the wave's register file that holds AGPR `n`.
fn agpr_row(w: &Wave, n: u16) -> Result<usize, String> {
    w.vgpr
        .agpr_row(n as usize)
        .ok_or_else(|| format!("a{n}: the wave has no such AGPR (set target=gfx908 or gfx90a)"))
}

/// Does `got` (of `bits` bits) satisfy `want`?
pub fn satisfies(want: &Want, got: u64, bits: u32, bases: &[u64], lane: usize) -> bool {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let got = got & mask;
    match want {
        Want::Any => true,
        Want::Exact(e) => e.eval(bases, lane).is_ok_and(|x| x & mask == got),
        Want::Masked(v, m) => got & m == v & m,
        Want::Near(v, t) => got.abs_diff(*v) <= *t,
        Want::Nan => {
            if bits == 64 {
                f64::from_bits(got).is_nan()
            } else {
                f32::from_bits(got as u32).is_nan()
            }
        }
        Want::Nan16(hi) => {
            half::f16::from_bits(got as u16).is_nan() && hi.is_none_or(|h| (got >> 16) as u16 == h)
        }
    }
}

pub fn show_want(w: &Want) -> String {
    match w {
        Want::Any => "_".into(),
        Want::Exact(e) => show_expr(e),
        Want::Masked(v, m) => format!("{v:#x}/{m:#x}"),
        Want::Near(v, t) => format!("{v:#x}~{t}"),
        Want::Nan => "nan".into(),
        Want::Nan16(None) => "nan16".into(),
        Want::Nan16(Some(h)) => format!("nan16:{h:#x}"),
    }
}

pub fn show_expr(e: &Expr) -> String {
    let mut s = String::new();
    if let Some(b) = e.buf {
        let _ = write!(s, "buf{b}");
    }
    if e.add != 0 || (e.buf.is_none() && e.lane_mul == 0) {
        if !s.is_empty() {
            s.push('+');
        }
        let _ = write!(s, "{:#x}", e.add);
    }
    if e.lane_mul != 0 {
        if !s.is_empty() {
            s.push('+');
        }
        if e.lane_mul == 1 {
            s.push_str("lane");
        } else {
            let _ = write!(s, "{}*lane", e.lane_mul);
        }
    }
    s
}

fn sgpr_name(first: u16, count: u16) -> String {
    match (first, count) {
        (106, 2) => "vcc".into(),
        (126, 2) => "exec".into(),
        (102, 2) => "flat_scratch".into(),
        (124, 1) => "m0".into(),
        (106, 1) => "vcc_lo".into(),
        (107, 1) => "vcc_hi".into(),
        (126, 1) => "exec_lo".into(),
        (127, 1) => "exec_hi".into(),
        (f, 1) if f < 102 => format!("s{f}"),
        (f, c) if f + c <= 102 => format!("s[{f}:{}]", f + c - 1),
        (f, 1) => format!("sgpr code {f}"),
        (f, c) => format!("sgpr codes {f}..{}", f + c - 1),
    }
}

pub fn vgpr_name(first: u16, count: u16) -> String {
    if count == 1 {
        format!("v{first}")
    } else {
        format!("v[{first}:{}]", first + count - 1)
    }
}

/// Every mismatch between the vector's expected values and `out`, as readable lines.
pub fn mismatches(v: &Vector, out: &Outcome) -> Vec<String> {
    let mut bad = Vec::new();
    let at = v.at();
    let (w, bases) = (&out.wave, &out.bases);
    for e in &v.expects {
        match e {
            Expect::Stop(word) => match &out.stop {
                Some(text) if text.contains(word.as_str()) => {}
                Some(text) => bad.push(format!(
                    "{at}: `{}`: stopped with `{text}`, want `{word}`",
                    v.asm
                )),
                None => bad.push(format!(
                    "{at}: `{}`: ran to its end, want a stop (`{word}`)",
                    v.asm
                )),
            },
            Expect::Scc(b) => {
                if w.scc != *b {
                    bad.push(format!(
                        "{at}: `{}`: scc: got {}, want {}",
                        v.asm, w.scc as u8, *b as u8
                    ));
                }
            }
            Expect::Sgpr(first, count, wants) => {
                let parts: Vec<(u16, u16, &Want)> = if wants.len() == 1 {
                    vec![(*first, *count, &wants[0])]
                } else {
                    wants
                        .iter()
                        .enumerate()
                        .map(|(k, want)| (first + k as u16, 1, want))
                        .collect()
                };
                for (f, c, want) in parts {
                    let got = (0..c).fold(0u64, |acc, k| {
                        acc | (w.sgpr[(f + k) as usize] as u64) << (32 * k)
                    });
                    if !satisfies(want, got, 32 * c as u32, bases, 0) {
                        bad.push(format!(
                            "{at}: `{}`: {}: got {got:#x}, want {}",
                            v.asm,
                            sgpr_name(f, c),
                            show_want(want)
                        ));
                    }
                }
            }
            Expect::Vgpr(first, count, wants) => {
                for l in 0..LANES {
                    let want = &wants[l % wants.len()];
                    let got = (0..*count).fold(0u64, |acc, k| {
                        acc | (w.vgpr[(first + k) as usize][l] as u64) << (32 * k)
                    });
                    if !satisfies(want, got, 32 * *count as u32, bases, l) {
                        bad.push(format!(
                            "{at}: `{}`: {} lane {l}: got {got:#x}, want {}",
                            v.asm,
                            vgpr_name(*first, *count),
                            show_want(want)
                        ));
                    }
                }
            }
            Expect::Agpr(n, wants) => {
                let row = match agpr_row(w, *n) {
                    Ok(r) => w.vgpr.row(r).copied().unwrap_or([0; LANES]),
                    Err(e) => {
                        bad.push(format!("{at}: `{}`: {e}", v.asm));
                        continue;
                    }
                };
                for l in 0..LANES {
                    let want = &wants[l % wants.len()];
                    if !satisfies(want, row[l] as u64, 32, bases, l) {
                        bad.push(format!(
                            "{at}: `{}`: a{n} lane {l}: got {:#x}, want {}",
                            v.asm,
                            row[l],
                            show_want(want)
                        ));
                    }
                }
            }
            Expect::Mem(n, off, wants) => {
                let Some(base) = bases.get(*n) else {
                    bad.push(format!("{at}: buf{n} is not declared"));
                    continue;
                };
                for (k, want) in wants.iter().enumerate() {
                    let addr = base + off + 4 * k as u64;
                    match out.mem.read_u32(addr) {
                        Ok(got) if satisfies(want, got as u64, 32, bases, 0) => {}
                        Ok(got) => bad.push(format!(
                            "{at}: `{}`: buf{n}+{:#x}: got {got:#x}, want {}",
                            v.asm,
                            off + 4 * k as u64,
                            show_want(want)
                        )),
                        Err(e) => bad.push(format!("{at}: buf{n}+{:#x}: {e}", off + 4 * k as u64)),
                    }
                }
            }
        }
    }
    bad
}

/// Runs `v` and returns its failures (empty when it passes) and the ops it ran.
pub fn check(v: &Vector) -> (Vec<String>, Vec<(String, &'static gcn_isa::OpInfo)>) {
    match execute(v) {
        Ok(out) => (mismatches(v, &out), out.ops),
        Err(e) => (vec![format!("{}: `{}`: {e}", v.at(), v.asm)], Vec::new()),
    }
}

/// Every vector of every file, and the parse errors.
pub fn load_all() -> (Vec<Vector>, Vec<String>) {
    let (mut all, mut errs) = (Vec::new(), Vec::new());
    for path in files() {
        let name = format!(
            "emu/tests/vectors/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (v, e) = parse_file(&name, &text);
        all.extend(v);
        errs.extend(e);
    }
    (all, errs)
}
