//! Writing test vectors from the reference-model tests (`GEN_VECTORS=1`; see
//! `emu/tests/vectors/README.md`).
//!
//! `run_with` notes the wave and memory a snippet starts from; a test helper that has just
//! checked the result against its reference model calls [`record`] with that check as a
//! closure. Only what the check verifies becomes an expected value: each register lane, SGPR,
//! SCC and changed memory dword is perturbed in turn, and it is expected only if the check then
//! fails (a byte it ignores is left out with a mask; a NaN it accepts as any NaN is written
//! `nan`; a value it accepts within a tolerance is written `VALUE~T`). The line is parsed back
//! and run as a vector before it is kept, so every kept line passes and says no more than the
//! reference model does.

use super::vectors::{self, show_expr, show_want, vgpr_name, Expr, Want, LANES};
use super::MODE_DENORMS;
use gcn_isa::Target;
use gcnemu::memory::{Memory, HEAP_BASE};
use gcnemu::wave::Wave;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, Once, OnceLock};

/// Is vector generation on (`GEN_VECTORS` set)?
pub fn on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("GEN_VECTORS").is_some())
}

struct Snap {
    asm: String,
    target: Target,
    wave: Wave,
    mem: Vec<(u64, Vec<u8>)>,
}

thread_local! {
    static PENDING: RefCell<Option<(Target, String)>> = const { RefCell::new(None) };
    static LAST: RefCell<Option<Snap>> = const { RefCell::new(None) };
    static SILENT: Cell<bool> = const { Cell::new(false) };
}

/// `run_with` is about to run `asm` for `target`.
pub fn note_asm(target: Target, asm: &str) {
    if on() {
        PENDING.with(|p| *p.borrow_mut() = Some((target, asm.to_string())));
    }
}

/// The wave and memory a run starts from (after the test's setup).
pub fn note_input(w: &Wave, mem: &Memory) {
    if !on() {
        return;
    }
    let pending = PENDING.with(|p| p.borrow_mut().take());
    let snap = pending.map(|(target, asm)| Snap {
        asm,
        target,
        wave: w.clone(),
        mem: allocations(mem),
    });
    LAST.with(|l| *l.borrow_mut() = snap);
}

/// The allocations a test made, in order (the sparse placement hands out addresses from
/// `HEAP_BASE` up, each followed by a guard granule).
fn allocations(mem: &Memory) -> Vec<(u64, Vec<u8>)> {
    const GRANULE: u64 = 64 * 1024;
    let mut out = Vec::new();
    let mut at = HEAP_BASE;
    while let Some(a) = mem.allocation(at) {
        out.push((at, a.data().to_vec()));
        at += a.len().max(1).div_ceil(GRANULE) * GRANULE + GRANULE;
    }
    out
}

fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !SILENT.with(|s| s.get()) {
                prev(info)
            }
        }));
    });
}

type Check<'a> = &'a dyn Fn(&Wave, &Memory);

fn fails(check: Check, w: &Wave, mem: &Memory) -> bool {
    SILENT.with(|s| s.set(true));
    let r = catch_unwind(AssertUnwindSafe(|| check(w, mem))).is_err();
    SILENT.with(|s| s.set(false));
    r
}

fn f32_nan(v: u32) -> bool {
    f32::from_bits(v).is_nan()
}
fn f16_nan(v: u32) -> bool {
    half::f16::from_bits(v as u16).is_nan()
}

/// What the check verifies of a 32-bit cell holding `v` (`fails(x)`: does the check fail with
/// `x` there?).
fn analyse(v: u32, fails: &mut dyn FnMut(u32) -> bool) -> Option<Want> {
    if f32_nan(v) {
        let alt = if v != 0x7fff_ffff {
            0x7fff_ffff
        } else {
            0xffc0_0000
        };
        if !fails(alt) && fails(0x3f80_0000) {
            return Some(Want::Nan);
        }
    }
    if f16_nan(v) {
        let lo = v & 0xffff;
        let alt = v & !0xffff | if lo != 0x7fff { 0x7fff } else { 0xfe00 };
        if !fails(alt) && fails(v & !0xffff | 0x3c00) {
            let hi_checked = fails(v ^ 0xffff_0000);
            return Some(Want::Nan16(hi_checked.then_some((v >> 16) as u16)));
        }
    }
    let mut mask = 0u64;
    for b in 0..4 {
        if fails(v ^ 0xff << (8 * b)) {
            mask |= 0xff << (8 * b);
        }
    }
    if mask == 0 {
        return None;
    }
    // A tolerance (the transcendental estimates): record the interval the check accepts.
    let (up, down) = (!fails(v.wrapping_add(1)), !fails(v.wrapping_sub(1)));
    if up || down {
        if !(up && down) || mask != 0xffff_ffff {
            return None;
        }
        let mut t = 1u32;
        while t < 1 << 24 && !fails(v.wrapping_add(2 * t)) && !fails(v.wrapping_sub(2 * t)) {
            t *= 2;
        }
        return Some(Want::Near(v as u64, t as u64));
    }
    Some(if mask == 0xffff_ffff {
        Want::Exact(Expr::num(v as u64))
    } else {
        Want::Masked(v as u64 & mask, mask)
    })
}

/// One 64-bit want from the two halves' (None: not checked).
fn join(lo: Option<Want>, hi: Option<Want>) -> Want {
    let vm = |w: Option<Want>| match w {
        None => Some((0u64, 0u64)),
        Some(Want::Exact(e)) => Some((e.add & 0xffff_ffff, 0xffff_ffffu64)),
        Some(Want::Masked(v, m)) => Some((v, m)),
        _ => None,
    };
    match (vm(lo), vm(hi)) {
        (Some((a, am)), Some((b, bm))) => {
            let (v, m) = (a | b << 32, am | bm << 32);
            match m {
                0 => Want::Any,
                u64::MAX => Want::Exact(Expr::num(v)),
                _ => Want::Masked(v, m),
            }
        }
        _ => match (lo, hi) {
            (Some(Want::Near(a, t)), Some(Want::Exact(b))) => {
                Want::Near(a | (b.add & 0xffff_ffff) << 32, t)
            }
            _ => Want::Any,
        },
    }
}

struct Sink {
    kept: std::fs::File,
    dropped: std::fs::File,
}

fn sink() -> &'static Mutex<Sink> {
    static SINK: OnceLock<Mutex<Sink>> = OnceLock::new();
    SINK.get_or_init(|| {
        let dir = records_dir();
        std::fs::create_dir_all(&dir).expect("vector records dir");
        let exe = std::env::current_exe().expect("test binary");
        let stem = exe.file_stem().unwrap().to_string_lossy().to_string();
        let stem = stem.split('-').next().unwrap_or(&stem).to_string();
        let open = |suffix: &str| {
            std::fs::File::create(dir.join(format!("{stem}.{suffix}"))).expect("record file")
        };
        Mutex::new(Sink {
            kept: open("txt"),
            dropped: open("dropped"),
        })
    })
}

/// Where the recording tests write their lines (read by `op_vectors`'s generator).
pub fn records_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("vector-records")
}

fn drop_line(asm: &str, why: &str) {
    let mut s = sink().lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(s.dropped, "{why}: {}", asm.replace('\n', "; "));
}

/// After a test has checked the run `run_with` just made: writes a vector of that run whose
/// expected values are what `check` verifies. `w` and `mem` are what the run left.
pub fn record(w: &Wave, mem: &mut Memory, check: Check) {
    if !on() {
        return;
    }
    let Some(snap) = LAST.with(|l| l.borrow_mut().take()) else {
        return;
    };
    // Per snippet: runs seen, vectors kept. Scalar snippets (one case a run) keep up to four
    // runs spread over the test's cases (the 1st, 14th, 53rd and 118th); vector snippets keep one
    // run (up to 64 cases); a run whose check verifies nothing is skipped for the next.
    static SEEN: OnceLock<Mutex<HashMap<String, (usize, usize)>>> = OnceLock::new();
    let key = format!("{}|{}", snap.target.name(), snap.asm);
    let scalar = snap.wave.vgpr.iter().all(|r| r.iter().all(|&x| x == 0));
    let (runs, kept) = {
        let mut seen = SEEN.get_or_init(Default::default).lock().unwrap();
        let e = seen.entry(key.clone()).or_default();
        e.0 += 1;
        *e
    };
    let wanted = if scalar {
        kept < 4 && (0..4).any(|k| runs == 1 + 13 * k * k)
    } else {
        kept < 1
    };
    if !wanted {
        return;
    }
    quiet_panics();
    if fails(check, w, mem) {
        return;
    }
    match draft(&snap, w, mem, check) {
        Ok(line) => {
            SEEN.get_or_init(Default::default)
                .lock()
                .unwrap()
                .entry(key)
                .or_default()
                .1 += 1;
            let mut s = sink().lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(s.kept, "{line}");
        }
        Err(why) => drop_line(&snap.asm, &why),
    }
}

/// A value list over the lanes: one value, `BASE+K*lane`, or the shortest cycle written with
/// `x*N` runs.
fn lanes_text(vals: &[Expr]) -> String {
    let n = vals.len();
    if vals.iter().all(|v| *v == vals[0]) {
        return show_expr(&vals[0]);
    }
    if n == LANES {
        let d = vals[1].add.wrapping_sub(vals[0].add);
        if vals[0].lane_mul == 0
            && vals.iter().enumerate().all(|(l, v)| {
                v.buf == vals[0].buf
                    && v.lane_mul == 0
                    && v.add == vals[0].add.wrapping_add(d.wrapping_mul(l as u64))
            })
            && (d as i64) > 0
            && d < 1 << 20
        {
            let mut e = vals[0];
            e.lane_mul = d;
            return show_expr(&e);
        }
    }
    list_text(vals, &|e| show_expr(e))
}

fn period<T: PartialEq>(vals: &[T]) -> usize {
    (1..=vals.len())
        .find(|&p| (0..vals.len()).all(|l| vals[l] == vals[l % p]))
        .unwrap_or(vals.len())
}

fn list_text<T: PartialEq>(vals: &[T], show: &dyn Fn(&T) -> String) -> String {
    let p = period(vals);
    if p == 1 {
        return show(&vals[0]);
    }
    let mut parts = Vec::new();
    let mut i = 0;
    while i < p {
        let mut j = i + 1;
        while j < p && vals[j] == vals[i] {
            j += 1;
        }
        let s = show(&vals[i]);
        parts.push(if j - i > 1 {
            format!("{s}*{}", j - i)
        } else {
            s
        });
        i = j;
    }
    format!("[{}]", parts.join(","))
}

fn bufs_of(snap: &Snap) -> Vec<(u64, u64)> {
    snap.mem.iter().map(|(b, d)| (*b, d.len() as u64)).collect()
}

/// A 64-bit value as `bufN+OFF` when it points into (or just past) a buffer.
fn symbol(v: u64, bufs: &[(u64, u64)]) -> Expr {
    for (k, (b, len)) in bufs.iter().enumerate() {
        if v >= *b && v <= b + len {
            return Expr {
                buf: Some(k),
                add: v - b,
                lane_mul: 0,
            };
        }
    }
    Expr::num(v)
}

const CROSS_LANE: [&str; 10] = [
    "dpp",
    "lane",
    "mbcnt",
    "swizzle",
    "permute",
    "ds_",
    "row_",
    "quad_perm",
    "wave_",
    "bcast",
];

/// Input VGPR rows of a draft: (first, count, per-lane values).
type Rows = Vec<(u16, u16, Vec<Expr>)>;

struct Draft {
    head: Vec<String>,
    rows: Rows,
    tail: Vec<String>,
    vexp: Vec<(u16, u16, Vec<Want>)>,
    other_exp: Vec<String>,
}

impl Draft {
    fn text(&self, asm: &str) -> String {
        let mut ins: Vec<String> = self.head.clone();
        for (f, c, vals) in &self.rows {
            ins.push(format!("{}={}", vgpr_name(*f, *c), lanes_text(vals)));
        }
        ins.extend(self.tail.iter().cloned());
        let mut outs: Vec<String> = Vec::new();
        for (f, c, wants) in &self.vexp {
            outs.push(format!(
                "{}={}",
                vgpr_name(*f, *c),
                list_text(wants, &show_want)
            ));
        }
        outs.extend(self.other_exp.iter().cloned());
        format!(
            "{} | {} | {}",
            asm.trim().replace('\n', "; "),
            ins.join(" "),
            outs.join(" ")
        )
    }
}

fn sgpr_text(code: u16, count: u16) -> Option<String> {
    Some(match (code, count) {
        (106, 2) => "vcc".into(),
        (126, 2) => "exec".into(),
        (102, 2) => "flat_scratch".into(),
        (104, 2) => "xnack_mask".into(),
        (124, 1) => "m0".into(),
        (106, 1) => "vcc_lo".into(),
        (107, 1) => "vcc_hi".into(),
        (126, 1) => "exec_lo".into(),
        (127, 1) => "exec_hi".into(),
        (102, 1) => "flat_scratch_lo".into(),
        (103, 1) => "flat_scratch_hi".into(),
        (c, 1) if (108..124).contains(&c) => format!("ttmp{}", c - 108),
        (c, 1) if c < 102 => format!("s{c}"),
        (c, 2) if c + 1 < 102 => format!("s[{c}:{}]", c + 1),
        _ => return None,
    })
}

/// The SGPRs `present` says to write, as `(code, count)`: paired where both halves are and
/// the snippet names the pair.
fn sgpr_groups(present: &dyn Fn(u16) -> bool, asm: &str) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    let mut c = 0u16;
    while c < 128 {
        if !present(c) {
            c += 1;
            continue;
        }
        // Pairs the snippet names as one operand (`s[4:5]`, vcc, exec, flat_scratch).
        let named = c >= 102 || asm.contains(&format!("s[{c}:{}]", c + 1));
        let pairable = c.is_multiple_of(2) && named && sgpr_text(c, 2).is_some() && present(c + 1);
        if pairable {
            out.push((c, 2));
            c += 2;
        } else {
            out.push((c, 1));
            c += 1;
        }
    }
    out
}

fn draft(snap: &Snap, out: &Wave, mem: &mut Memory, check: Check) -> Result<String, String> {
    let inw = &snap.wave;
    let fresh = Wave::new(0);
    if inw.csp != 0 || inw.trapsts != 0 || inw.lanes != fresh.lanes || inw.index != 0 {
        return Err("wave state the format does not hold".into());
    }
    let bufs = bufs_of(snap);
    let after = allocations(mem);
    if after.len() != snap.mem.len() {
        return Err("allocations changed".into());
    }
    // Inputs.
    let mut head = Vec::new();
    if snap.target != Target::Gfx906 {
        head.push(format!("target={}", snap.target.name()));
    }
    if inw.mode != MODE_DENORMS {
        head.push(format!("mode={:#x}", inw.mode));
    }
    if inw.scc {
        head.push("scc=1".into());
    }
    let in_present = |c: u16| match c {
        126 | 127 => inw.exec() != u64::MAX,
        125 => false,
        _ => inw.sgpr[c as usize] != 0,
    };
    for (c, n) in sgpr_groups(&in_present, &snap.asm) {
        let name = sgpr_text(c, n).ok_or_else(|| format!("SGPR code {c} set"))?;
        let v = if n == 2 {
            symbol(inw.pair(c), &bufs)
        } else {
            Expr::num(inw.sgpr[c as usize] as u64)
        };
        head.push(format!("{name}={}", show_expr(&v)));
    }
    let mut rows: Rows = Vec::new();
    let mut r = 0usize;
    while r < 256 {
        if inw.vgpr[r].iter().all(|&x| x == 0) {
            r += 1;
            continue;
        }
        if r + 1 < 256 && !bufs.is_empty() {
            let pair: Vec<Expr> = (0..LANES)
                .map(|l| {
                    symbol(
                        inw.vgpr[r][l] as u64 | (inw.vgpr[r + 1][l] as u64) << 32,
                        &bufs,
                    )
                })
                .collect();
            if pair.iter().all(|e| e.buf.is_some()) {
                rows.push((r as u16, 2, pair));
                r += 2;
                continue;
            }
        }
        rows.push((
            r as u16,
            1,
            inw.vgpr[r].iter().map(|&x| Expr::num(x as u64)).collect(),
        ));
        r += 1;
    }
    let mut tail = Vec::new();
    for (k, (_, data)) in snap.mem.iter().enumerate() {
        let len = data.len();
        let (m, a) = (data.get(1).map_or(0, |b| b.wrapping_sub(data[0])), data[0]);
        let ramp = len > 1
            && data
                .iter()
                .enumerate()
                .all(|(i, &b)| b == (i as u8).wrapping_mul(m).wrapping_add(a));
        if ramp && data.iter().any(|&b| b != 0) {
            tail.push(format!("buf{k}={len}:ramp({m},{a:#x})"));
            continue;
        }
        tail.push(format!("buf{k}={len}"));
        if data.iter().any(|&b| b != 0) {
            if len % 4 != 0 {
                return Err("buffer of odd length with contents".into());
            }
            let dw: Vec<Expr> = data
                .chunks(4)
                .map(|c| Expr::num(u32::from_le_bytes(c.try_into().unwrap()) as u64))
                .collect();
            tail.push(format!("buf{k}+0={}", list_text_full(&dw)));
        }
    }
    // Expected values: what the check verifies.
    let mut pw = out.clone();
    // Rows the run changed, and the VGPRs the snippet names (a result may equal what was there).
    let named = named_vgprs(&snap.asm);
    let changed: Vec<usize> = (0..256)
        .filter(|&r| inw.vgpr[r] != out.vgpr[r] || named.contains(&r))
        .collect();
    let mut vexp: Vec<(u16, u16, Vec<Want>)> = Vec::new();
    let mut done: HashSet<usize> = HashSet::new();
    for &r in &changed {
        if done.contains(&r) {
            continue;
        }
        // A pair whose f64 NaN results the check takes as any NaN.
        let mut pair_nan = [false; LANES];
        if r + 1 < 256 {
            for (l, pn) in pair_nan.iter_mut().enumerate() {
                let p = out.vgpr[r][l] as u64 | (out.vgpr[r + 1][l] as u64) << 32;
                if !f64::from_bits(p).is_nan() {
                    continue;
                }
                let mut with = |x: u64| {
                    pw.vgpr[r][l] = x as u32;
                    pw.vgpr[r + 1][l] = (x >> 32) as u32;
                    let f = fails(check, &pw, mem);
                    pw.vgpr[r][l] = out.vgpr[r][l];
                    pw.vgpr[r + 1][l] = out.vgpr[r + 1][l];
                    f
                };
                let alt = if p != 0x7ff0_0000_0000_0001 {
                    0x7ff0_0000_0000_0001
                } else {
                    0xfff8_0000_0000_0000
                };
                *pn = !with(alt) && with(1f64.to_bits());
            }
        }
        let mut cell = |row: usize, l: usize| {
            let v = out.vgpr[row][l];
            let mut f = |x: u32| {
                pw.vgpr[row][l] = x;
                let f = fails(check, &pw, mem);
                pw.vgpr[row][l] = v;
                f
            };
            analyse(v, &mut f)
        };
        if pair_nan.iter().any(|&b| b) {
            let wants: Vec<Want> = (0..LANES)
                .map(|l| {
                    if pair_nan[l] {
                        Want::Nan
                    } else {
                        join(cell(r, l), cell(r + 1, l))
                    }
                })
                .collect();
            done.insert(r + 1);
            if wants.iter().any(|w| *w != Want::Any) {
                vexp.push((r as u16, 2, wants));
            }
            continue;
        }
        let wants: Vec<Want> = (0..LANES)
            .map(|l| cell(r, l).unwrap_or(Want::Any))
            .collect();
        if wants.iter().any(|w| *w != Want::Any) {
            vexp.push((r as u16, 1, wants));
        }
    }
    let mut sg: Vec<Option<Want>> = vec![None; 128];
    for c in 0..128u16 {
        if c == 125 {
            continue;
        }
        let v = out.sgpr[c as usize];
        let mut f = |x: u32| {
            pw.sgpr[c as usize] = x;
            let f = fails(check, &pw, mem);
            pw.sgpr[c as usize] = v;
            f
        };
        sg[c as usize] = analyse(v, &mut f);
    }
    let mut other_exp = Vec::new();
    let exact = |w: &Option<Want>| matches!(w, Some(Want::Exact(_)));
    for (c, n) in sgpr_groups(&|c| sg[c as usize].is_some(), &snap.asm) {
        let Some(name) = sgpr_text(c, n) else {
            return Err(format!("checked SGPR code {c} has no name"));
        };
        if n == 2 && exact(&sg[c as usize]) && exact(&sg[c as usize + 1]) {
            other_exp.push(format!("{name}={:#x}", out.pair(c)));
        } else if n == 2 {
            for k in 0..2 {
                let name = sgpr_text(c + k, 1).unwrap();
                other_exp.push(format!(
                    "{name}={}",
                    show_want(sg[(c + k) as usize].as_ref().unwrap())
                ));
            }
        } else {
            other_exp.push(format!(
                "{name}={}",
                show_want(sg[c as usize].as_ref().unwrap())
            ));
        }
    }
    pw.scc = !out.scc;
    if fails(check, &pw, mem) {
        other_exp.push(format!("scc={}", out.scc as u8));
    }
    pw.scc = out.scc;
    // Memory dwords the run changed.
    for (k, ((base, before), (_, now))) in snap.mem.iter().zip(&after).enumerate() {
        let mut run: Option<(u64, Vec<Want>)> = None;
        let flush = |run: &mut Option<(u64, Vec<Want>)>, other: &mut Vec<String>| {
            if let Some((off, wants)) = run.take() {
                let wants = trim(wants);
                if !wants.is_empty() {
                    other.push(format!("buf{k}+{off:#x}={}", list_text_full(&wants)));
                }
            }
        };
        for d in 0..before.len() / 4 {
            let at = 4 * d;
            if before[at..at + 4] == now[at..at + 4] {
                flush(&mut run, &mut other_exp);
                continue;
            }
            let v = u32::from_le_bytes(now[at..at + 4].try_into().unwrap());
            let addr = base + at as u64;
            let mut f = |x: u32| {
                mem.write_u32(addr, x).unwrap();
                let f = fails(check, out, mem);
                mem.write_u32(addr, v).unwrap();
                f
            };
            let want = analyse(v, &mut f).unwrap_or(Want::Any);
            match &mut run {
                Some((_, wants)) => wants.push(want),
                None => run = Some((at as u64, vec![want])),
            }
        }
        flush(&mut run, &mut other_exp);
    }
    other_exp.retain(|s| !s.ends_with("=_"));
    if vexp.is_empty() && other_exp.is_empty() {
        return Err("the check verifies nothing it can be perturbed on".into());
    }
    let mut d = Draft {
        head,
        rows,
        tail,
        vexp,
        other_exp,
    };
    let full = d.text(&snap.asm);
    verify(&full)?;
    // A shorter line where the op works lane by lane: up to 32 distinct input lanes, cycled.
    let compactable = snap.mem.is_empty()
        && inw.exec() == u64::MAX
        && d.other_exp.is_empty()
        && !d.rows.is_empty()
        && !CROSS_LANE.iter().any(|w| snap.asm.contains(w));
    if compactable {
        let mut keys = HashSet::new();
        let mut src = Vec::new();
        for l in 0..LANES {
            if d.vexp.iter().all(|(_, _, w)| w[l] == Want::Any) {
                continue;
            }
            let key: Vec<Expr> = d.rows.iter().map(|(_, _, v)| v[l]).collect();
            if keys.insert(key) {
                src.push(l);
            }
            if src.len() == 32 {
                break;
            }
        }
        if !src.is_empty() {
            let pick = |l: usize| src[l % src.len()];
            for (_, _, v) in &mut d.rows {
                *v = (0..LANES).map(|l| v[pick(l)]).collect();
            }
            for (_, _, w) in &mut d.vexp {
                *w = (0..LANES).map(|l| w[pick(l)]).collect();
            }
            let short = d.text(&snap.asm);
            if verify(&short).is_ok() {
                return Ok(short);
            }
        }
    }
    Ok(full)
}

fn trim(mut w: Vec<Want>) -> Vec<Want> {
    while w.last() == Some(&Want::Any) {
        w.pop();
    }
    w
}

/// A dword list, every entry written (runs as `x*N`); no cycling.
fn list_text_full<T: PartialEq + Clone + ShowItem>(vals: &[T]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < vals.len() {
        let mut j = i + 1;
        while j < vals.len() && vals[j] == vals[i] {
            j += 1;
        }
        let s = vals[i].show();
        parts.push(if j - i > 1 {
            format!("{s}*{}", j - i)
        } else {
            s
        });
        i = j;
    }
    if vals.len() == 1 {
        return parts.pop().unwrap();
    }
    format!("[{}]", parts.join(","))
}

trait ShowItem {
    fn show(&self) -> String;
}
impl ShowItem for Expr {
    fn show(&self) -> String {
        show_expr(self)
    }
}
impl ShowItem for Want {
    fn show(&self) -> String {
        show_want(self)
    }
}

/// The line parses and passes as a vector.
fn verify(line: &str) -> Result<(), String> {
    let v = vectors::parse_line("generated", 1, line)?.ok_or("empty line")?;
    let (bad, _) = vectors::check(&v);
    if let Some(b) = bad.first() {
        return Err(format!("replay: {b}"));
    }
    Ok(())
}

/// The VGPRs named in `asm` (`v3`, `v[4:7]`).
fn named_vgprs(asm: &str) -> HashSet<usize> {
    let mut out = HashSet::new();
    let b = asm.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i] == b'v' && word_start {
            let rest = &asm[i + 1..];
            if let Some(r) = rest.strip_prefix('[') {
                if let Some((range, _)) = r.split_once(']') {
                    if let Some((x, y)) = range.split_once(':') {
                        if let (Ok(x), Ok(y)) =
                            (x.trim().parse::<usize>(), y.trim().parse::<usize>())
                        {
                            out.extend(x..=y.min(255));
                        }
                    }
                }
            } else {
                let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                let end = rest[digits.len()..].chars().next();
                if !digits.is_empty() && !end.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    if let Ok(n) = digits.parse::<usize>() {
                        out.insert(n.min(255));
                    }
                }
            }
        }
        i += 1;
    }
    out
}
