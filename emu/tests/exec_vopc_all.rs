//! Every VOPC compare (198 mnemonics) in its VOPC (`_e32`, writing VCC) and VOP3 (`_e64`, writing
//! an SGPR pair) encodings, on NaN, ±0, ±inf, denormal, equal, less and greater inputs; `v_cmpx_*`
//! also writes EXEC. The expected mask comes from the predicate definitions of the Vega ISA
//! (§6.4 VOPC): the `n*` float predicates are the negations, so they hold for unordered operands,
//! and `lg` is "less or greater", so it does not; `o`/`u` test for NaN. Class tests check bit
//! `class(S0)` of the mask S1 (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
//! 7 +denormal, 8 +normal, 9 +inf), classified here from the raw bit fields.

mod exec_common;
use exec_common::run;

/// Compare predicates (ISA names); the integer `ne`/`t` are `Lg`/`Tru`.
#[derive(Clone, Copy, Debug)]
enum P {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Lg,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
    Tru,
}

/// The float predicate on operands already widened to f64 (exact for f16/f32).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn fpred(p: P, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match p {
        P::F => false,
        P::Lt => a < b,
        P::Eq => a == b,
        P::Le => a <= b,
        P::Gt => a > b,
        P::Lg => !unordered && a != b,
        P::Ge => a >= b,
        P::O => !unordered,
        P::U => unordered,
        P::Nge => !(a >= b),
        P::Nlg => unordered || a == b,
        P::Ngt => !(a > b),
        P::Nle => !(a <= b),
        P::Neq => !(a == b),
        P::Nlt => !(a < b),
        P::Tru => true,
    }
}

fn ipred<T: Ord>(p: P, a: T, b: T) -> bool {
    match p {
        P::F => false,
        P::Lt => a < b,
        P::Eq => a == b,
        P::Le => a <= b,
        P::Gt => a > b,
        P::Lg => a != b,
        P::Ge => a >= b,
        P::Tru => true,
        _ => unreachable!("{p:?} is a float predicate"),
    }
}

const F16: [(&str, &str, P); 16] = [
    ("v_cmp_f_f16", "v_cmpx_f_f16", P::F),
    ("v_cmp_lt_f16", "v_cmpx_lt_f16", P::Lt),
    ("v_cmp_eq_f16", "v_cmpx_eq_f16", P::Eq),
    ("v_cmp_le_f16", "v_cmpx_le_f16", P::Le),
    ("v_cmp_gt_f16", "v_cmpx_gt_f16", P::Gt),
    ("v_cmp_lg_f16", "v_cmpx_lg_f16", P::Lg),
    ("v_cmp_ge_f16", "v_cmpx_ge_f16", P::Ge),
    ("v_cmp_o_f16", "v_cmpx_o_f16", P::O),
    ("v_cmp_u_f16", "v_cmpx_u_f16", P::U),
    ("v_cmp_nge_f16", "v_cmpx_nge_f16", P::Nge),
    ("v_cmp_nlg_f16", "v_cmpx_nlg_f16", P::Nlg),
    ("v_cmp_ngt_f16", "v_cmpx_ngt_f16", P::Ngt),
    ("v_cmp_nle_f16", "v_cmpx_nle_f16", P::Nle),
    ("v_cmp_neq_f16", "v_cmpx_neq_f16", P::Neq),
    ("v_cmp_nlt_f16", "v_cmpx_nlt_f16", P::Nlt),
    ("v_cmp_tru_f16", "v_cmpx_tru_f16", P::Tru),
];
const F32: [(&str, &str, P); 16] = [
    ("v_cmp_f_f32", "v_cmpx_f_f32", P::F),
    ("v_cmp_lt_f32", "v_cmpx_lt_f32", P::Lt),
    ("v_cmp_eq_f32", "v_cmpx_eq_f32", P::Eq),
    ("v_cmp_le_f32", "v_cmpx_le_f32", P::Le),
    ("v_cmp_gt_f32", "v_cmpx_gt_f32", P::Gt),
    ("v_cmp_lg_f32", "v_cmpx_lg_f32", P::Lg),
    ("v_cmp_ge_f32", "v_cmpx_ge_f32", P::Ge),
    ("v_cmp_o_f32", "v_cmpx_o_f32", P::O),
    ("v_cmp_u_f32", "v_cmpx_u_f32", P::U),
    ("v_cmp_nge_f32", "v_cmpx_nge_f32", P::Nge),
    ("v_cmp_nlg_f32", "v_cmpx_nlg_f32", P::Nlg),
    ("v_cmp_ngt_f32", "v_cmpx_ngt_f32", P::Ngt),
    ("v_cmp_nle_f32", "v_cmpx_nle_f32", P::Nle),
    ("v_cmp_neq_f32", "v_cmpx_neq_f32", P::Neq),
    ("v_cmp_nlt_f32", "v_cmpx_nlt_f32", P::Nlt),
    ("v_cmp_tru_f32", "v_cmpx_tru_f32", P::Tru),
];
const F64: [(&str, &str, P); 16] = [
    ("v_cmp_f_f64", "v_cmpx_f_f64", P::F),
    ("v_cmp_lt_f64", "v_cmpx_lt_f64", P::Lt),
    ("v_cmp_eq_f64", "v_cmpx_eq_f64", P::Eq),
    ("v_cmp_le_f64", "v_cmpx_le_f64", P::Le),
    ("v_cmp_gt_f64", "v_cmpx_gt_f64", P::Gt),
    ("v_cmp_lg_f64", "v_cmpx_lg_f64", P::Lg),
    ("v_cmp_ge_f64", "v_cmpx_ge_f64", P::Ge),
    ("v_cmp_o_f64", "v_cmpx_o_f64", P::O),
    ("v_cmp_u_f64", "v_cmpx_u_f64", P::U),
    ("v_cmp_nge_f64", "v_cmpx_nge_f64", P::Nge),
    ("v_cmp_nlg_f64", "v_cmpx_nlg_f64", P::Nlg),
    ("v_cmp_ngt_f64", "v_cmpx_ngt_f64", P::Ngt),
    ("v_cmp_nle_f64", "v_cmpx_nle_f64", P::Nle),
    ("v_cmp_neq_f64", "v_cmpx_neq_f64", P::Neq),
    ("v_cmp_nlt_f64", "v_cmpx_nlt_f64", P::Nlt),
    ("v_cmp_tru_f64", "v_cmpx_tru_f64", P::Tru),
];
const I16: [(&str, &str, P); 8] = [
    ("v_cmp_f_i16", "v_cmpx_f_i16", P::F),
    ("v_cmp_lt_i16", "v_cmpx_lt_i16", P::Lt),
    ("v_cmp_eq_i16", "v_cmpx_eq_i16", P::Eq),
    ("v_cmp_le_i16", "v_cmpx_le_i16", P::Le),
    ("v_cmp_gt_i16", "v_cmpx_gt_i16", P::Gt),
    ("v_cmp_ne_i16", "v_cmpx_ne_i16", P::Lg),
    ("v_cmp_ge_i16", "v_cmpx_ge_i16", P::Ge),
    ("v_cmp_t_i16", "v_cmpx_t_i16", P::Tru),
];
const U16: [(&str, &str, P); 8] = [
    ("v_cmp_f_u16", "v_cmpx_f_u16", P::F),
    ("v_cmp_lt_u16", "v_cmpx_lt_u16", P::Lt),
    ("v_cmp_eq_u16", "v_cmpx_eq_u16", P::Eq),
    ("v_cmp_le_u16", "v_cmpx_le_u16", P::Le),
    ("v_cmp_gt_u16", "v_cmpx_gt_u16", P::Gt),
    ("v_cmp_ne_u16", "v_cmpx_ne_u16", P::Lg),
    ("v_cmp_ge_u16", "v_cmpx_ge_u16", P::Ge),
    ("v_cmp_t_u16", "v_cmpx_t_u16", P::Tru),
];
const I32: [(&str, &str, P); 8] = [
    ("v_cmp_f_i32", "v_cmpx_f_i32", P::F),
    ("v_cmp_lt_i32", "v_cmpx_lt_i32", P::Lt),
    ("v_cmp_eq_i32", "v_cmpx_eq_i32", P::Eq),
    ("v_cmp_le_i32", "v_cmpx_le_i32", P::Le),
    ("v_cmp_gt_i32", "v_cmpx_gt_i32", P::Gt),
    ("v_cmp_ne_i32", "v_cmpx_ne_i32", P::Lg),
    ("v_cmp_ge_i32", "v_cmpx_ge_i32", P::Ge),
    ("v_cmp_t_i32", "v_cmpx_t_i32", P::Tru),
];
const U32: [(&str, &str, P); 8] = [
    ("v_cmp_f_u32", "v_cmpx_f_u32", P::F),
    ("v_cmp_lt_u32", "v_cmpx_lt_u32", P::Lt),
    ("v_cmp_eq_u32", "v_cmpx_eq_u32", P::Eq),
    ("v_cmp_le_u32", "v_cmpx_le_u32", P::Le),
    ("v_cmp_gt_u32", "v_cmpx_gt_u32", P::Gt),
    ("v_cmp_ne_u32", "v_cmpx_ne_u32", P::Lg),
    ("v_cmp_ge_u32", "v_cmpx_ge_u32", P::Ge),
    ("v_cmp_t_u32", "v_cmpx_t_u32", P::Tru),
];
const I64: [(&str, &str, P); 8] = [
    ("v_cmp_f_i64", "v_cmpx_f_i64", P::F),
    ("v_cmp_lt_i64", "v_cmpx_lt_i64", P::Lt),
    ("v_cmp_eq_i64", "v_cmpx_eq_i64", P::Eq),
    ("v_cmp_le_i64", "v_cmpx_le_i64", P::Le),
    ("v_cmp_gt_i64", "v_cmpx_gt_i64", P::Gt),
    ("v_cmp_ne_i64", "v_cmpx_ne_i64", P::Lg),
    ("v_cmp_ge_i64", "v_cmpx_ge_i64", P::Ge),
    ("v_cmp_t_i64", "v_cmpx_t_i64", P::Tru),
];
const U64: [(&str, &str, P); 8] = [
    ("v_cmp_f_u64", "v_cmpx_f_u64", P::F),
    ("v_cmp_lt_u64", "v_cmpx_lt_u64", P::Lt),
    ("v_cmp_eq_u64", "v_cmpx_eq_u64", P::Eq),
    ("v_cmp_le_u64", "v_cmpx_le_u64", P::Le),
    ("v_cmp_gt_u64", "v_cmpx_gt_u64", P::Gt),
    ("v_cmp_ne_u64", "v_cmpx_ne_u64", P::Lg),
    ("v_cmp_ge_u64", "v_cmpx_ge_u64", P::Ge),
    ("v_cmp_t_u64", "v_cmpx_t_u64", P::Tru),
];

/// Operand width of a compare: where its two sources live.
#[derive(Clone, Copy, PartialEq)]
enum W {
    /// 16-bit sources in bits [15:0]; the high half holds garbage the compare must ignore.
    B16,
    B32,
    /// 64-bit sources in v[0:1] and v[2:3].
    B64,
}

/// Lanes that are off in the `_e64` runs: their result bits must be 0 and EXEC keeps them off.
const OFF: u64 = 1 << 3 | 1 << 40 | 1 << 63;

/// Runs `name` (a v_cmp or v_cmpx mnemonic) in both encodings over `cases` (64 lanes a run) and
/// compares the lane mask with `want(a, b)`. `b_width` is the second source's width (32 for the
/// class masks of f64).
fn check(name: &str, w: W, class: bool, cases: &[(u64, u64)], want: &dyn Fn(u64, u64) -> bool) {
    let cmpx = name.starts_with("v_cmpx");
    let (a, b) = match (w, class) {
        (W::B64, false) => ("v[0:1]", "v[2:3]"),
        (W::B64, true) => ("v[0:1]", "v2"),
        _ => ("v0", "v1"),
    };
    for chunk in cases.chunks(64) {
        let case = |l: usize| chunk[l % chunk.len()];
        let setup = |wv: &mut gcnemu::wave::Wave| {
            for l in 0..64 {
                let (x, y) = case(l);
                match w {
                    W::B16 => {
                        wv.vgpr[0][l] = 0xdead_0000 | x as u32;
                        wv.vgpr[1][l] = 0xbeef_0000 | y as u32;
                    }
                    W::B32 => {
                        wv.vgpr[0][l] = x as u32;
                        wv.vgpr[1][l] = y as u32;
                    }
                    W::B64 => {
                        wv.vgpr[0][l] = x as u32;
                        wv.vgpr[1][l] = (x >> 32) as u32;
                        wv.vgpr[2][l] = y as u32;
                        if !class {
                            wv.vgpr[3][l] = (y >> 32) as u32;
                        }
                    }
                }
            }
        };
        let mut expect = 0u64;
        for l in 0..64 {
            let (x, y) = case(l);
            expect |= (want(x, y) as u64) << l;
        }
        let explain = |got: u64, want: u64| {
            let l = (got ^ want).trailing_zeros() as usize;
            let (x, y) = case(l.min(63));
            format!(
                "lane {l}: a={x:#x} b={y:#x} got {} want {}",
                got >> l & 1,
                want >> l & 1
            )
        };
        // VOPC: the mask goes to VCC (and EXEC for cmpx), all lanes on.
        let asm = format!("{name}_e32 vcc, {a}, {b}");
        let wv = run(&asm, setup).unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        let chk = |wv: &gcnemu::wave::Wave| {
            assert_eq!(wv.vcc(), expect, "{asm}: {}", explain(wv.vcc(), expect));
            let exec = if cmpx { expect } else { u64::MAX };
            assert_eq!(wv.exec(), exec, "{asm}: EXEC");
        };
        chk(&wv);
        exec_common::vet(&wv, chk);
        // VOP3: the mask goes to s[20:21]; lanes off in EXEC read 0; VCC is untouched.
        let asm = format!("{name}_e64 s[20:21], {a}, {b}");
        let wv = run(&asm, |wv| {
            setup(wv);
            wv.set_exec(!OFF);
            wv.set_vcc(0x1234_5678_9abc_def0);
        })
        .unwrap_or_else(|e| panic!("{asm}: {e:?}"));
        let masked = expect & !OFF;
        let chk = |wv: &gcnemu::wave::Wave| {
            assert_eq!(
                wv.pair(20),
                masked,
                "{asm}: {}",
                explain(wv.pair(20), masked)
            );
            assert_eq!(wv.vcc(), 0x1234_5678_9abc_def0, "{asm}: VCC written");
            let exec = if cmpx { masked } else { !OFF };
            assert_eq!(wv.exec(), exec, "{asm}: EXEC");
        };
        chk(&wv);
        exec_common::vet(&wv, chk);
    }
}

/// All ordered pairs of `vals`.
fn pairs(vals: &[u64]) -> Vec<(u64, u64)> {
    vals.iter()
        .flat_map(|&a| vals.iter().map(move |&b| (a, b)))
        .collect()
}

fn f16_val(x: u64) -> f64 {
    half::f16::from_bits(x as u16).to_f64()
}

// Edge values: NaN (quiet), -inf, a negative normal, -0, +0, the smallest denormal, two positive
// normals (equal, less and greater pairs) and +inf.
const F16_VALS: [u64; 9] = [
    0x7e00, 0xfc00, 0xbc00, 0x8000, 0x0000, 0x0001, 0x3c00, 0x4000, 0x7c00,
];
const F32_VALS: [u64; 9] = [
    0x7fc0_0000,
    0xff80_0000,
    0xbf80_0000,
    0x8000_0000,
    0,
    1,
    0x3f80_0000,
    0x4000_0000,
    0x7f80_0000,
];
const F64_VALS: [u64; 9] = [
    0x7ff8_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x8000_0000_0000_0000,
    0,
    1,
    0x3ff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0x7ff0_0000_0000_0000,
];

/// A float compare family: its ops, operand width, edge values and their value as f64.
type FloatTable<'a> = (
    &'a [(&'a str, &'a str, P); 16],
    W,
    &'a [u64],
    fn(u64) -> f64,
);

#[test]
fn float_compares() {
    let tables: [FloatTable; 3] = [
        (&F16, W::B16, &F16_VALS, f16_val),
        (&F32, W::B32, &F32_VALS, |x| f32::from_bits(x as u32) as f64),
        (&F64, W::B64, &F64_VALS, f64::from_bits),
    ];
    for (ops, w, vals, conv) in tables {
        let cases = pairs(vals);
        for &(cmp, cmpx, p) in ops {
            for name in [cmp, cmpx] {
                check(name, w, false, &cases, &|a, b| fpred(p, conv(a), conv(b)));
            }
        }
    }
}

#[test]
fn integer_compares() {
    // 16-bit: 0, 1, 5, -1, the signed extremes and one past them; compared signed or unsigned.
    let v16: Vec<u64> = [0u64, 1, 5, 0xffff, 0x7fff, 0x8000, 0x8001, 0xfffe].to_vec();
    let v32: Vec<u64> = [
        0u64,
        1,
        5,
        0xffff_ffff,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0x1_0000,
    ]
    .to_vec();
    // 64-bit values whose halves disagree in order with the whole (a compare must not be two
    // 32-bit compares).
    let v64: Vec<u64> = [
        0,
        1,
        u64::MAX,
        i64::MAX as u64,
        i64::MIN as u64,
        0x1_0000_0000,
        0xffff_ffff,
        0x8000_0000_0000_0001,
    ]
    .to_vec();
    type Row = (
        &'static [(&'static str, &'static str, P); 8],
        W,
        Vec<u64>,
        fn(P, u64, u64) -> bool,
    );
    let tables: [Row; 6] = [
        (&I16, W::B16, v16.clone(), |p, a, b| {
            ipred(p, a as i16, b as i16)
        }),
        (&U16, W::B16, v16, |p, a, b| ipred(p, a as u16, b as u16)),
        (&I32, W::B32, v32.clone(), |p, a, b| {
            ipred(p, a as i32, b as i32)
        }),
        (&U32, W::B32, v32, |p, a, b| ipred(p, a as u32, b as u32)),
        (&I64, W::B64, v64.clone(), |p, a, b| {
            ipred(p, a as i64, b as i64)
        }),
        (&U64, W::B64, v64, |p, a, b| ipred(p, a, b)),
    ];
    for (ops, w, vals, pred) in tables {
        let cases = pairs(&vals);
        for &(cmp, cmpx, p) in ops {
            for name in [cmp, cmpx] {
                check(name, w, false, &cases, &|a, b| pred(p, a, b));
            }
        }
    }
}

/// The class index of a float from its sign, exponent and mantissa fields (`mbits` mantissa
/// bits, `ebits` exponent bits): the quiet bit is the mantissa's top bit.
fn class_of(x: u64, ebits: u32, mbits: u32) -> u32 {
    let neg = x >> (ebits + mbits) & 1 != 0;
    let exp = x >> mbits & ((1 << ebits) - 1);
    let man = x & ((1 << mbits) - 1);
    let emax = (1 << ebits) - 1;
    let pos = match (exp, man) {
        (e, 0) if e == emax => 9,
        (e, m) if e == emax => return if m >> (mbits - 1) & 1 != 0 { 1 } else { 0 },
        (0, 0) => 6,
        (0, _) => 7,
        _ => 8,
    };
    // -inf 2, -normal 3, -denormal 4, -0 5 mirror 9, 8, 7, 6.
    if neg {
        11 - pos
    } else {
        pos
    }
}

#[test]
fn class_tests() {
    // One value of each class (sNaN, qNaN, ∓inf, ∓normal, ∓denormal, ∓0), each against every
    // single-bit mask, an all-classes mask, and a mask with bits above 9 only.
    let f16: [u64; 10] = [
        0x7d00, 0x7e00, 0xfc00, 0xc000, 0x8201, 0x8000, 0, 0x3ff, 0x3555, 0x7c00,
    ];
    let f32: [u64; 10] = [
        0x7fa0_0000,
        0xffc0_0001,
        0xff80_0000,
        0xc2f6_e979,
        0x8000_0001,
        0x8000_0000,
        0,
        0x007f_ffff,
        0x0080_0000,
        0x7f80_0000,
    ];
    let f64: [u64; 10] = [
        0x7ff4_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0xbff0_0000_0000_0001,
        0x800f_ffff_ffff_ffff,
        0x8000_0000_0000_0000,
        0,
        1,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
    ];
    let masks: Vec<u64> = (0..10).map(|b| 1 << b).chain([0x3ff, 0xfc00]).collect();
    let cases = |vals: &[u64]| -> Vec<(u64, u64)> {
        vals.iter()
            .flat_map(|&v| masks.iter().map(move |&m| (v, m)))
            .collect()
    };
    // (cmp, cmpx, width, one value per class, exponent bits, mantissa bits).
    type ClassSet<'a> = (&'a str, &'a str, W, &'a [u64], u32, u32);
    let sets: [ClassSet; 3] = [
        ("v_cmp_class_f16", "v_cmpx_class_f16", W::B16, &f16, 5, 10),
        ("v_cmp_class_f32", "v_cmpx_class_f32", W::B32, &f32, 8, 23),
        ("v_cmp_class_f64", "v_cmpx_class_f64", W::B64, &f64, 11, 52),
    ];
    for (cmp, cmpx, w, vals, e, m) in sets {
        // The reference classifier must agree with the table's intent (one value per class).
        for (i, &v) in vals.iter().enumerate() {
            assert_eq!(class_of(v, e, m), i as u32, "{cmp}: class of {v:#x}");
        }
        for name in [cmp, cmpx] {
            // The f16 mask operand is 16 bits wide here too (high garbage must be ignored).
            let cs: Vec<(u64, u64)> = cases(vals)
                .into_iter()
                .map(|(v, m)| (v, if w == W::B16 { m & 0xffff } else { m }))
                .collect();
            check(name, w, true, &cs, &|v, mask| {
                mask >> class_of(v, e, m) & 1 != 0
            });
        }
    }
}

#[test]
fn vop3_source_modifiers_apply_before_the_compare() {
    // neg and abs are VOP3 input modifiers: -a == |b| holds for a = -2, b = -2 and b = 2.
    let w = run("v_cmp_eq_f32_e64 s[4:5], -v0, |v1|\nv_cmp_lt_f64_e64 s[6:7], -v[2:3], v[4:5]\nv_cmp_class_f32_e64 s[8:9], -v0, v6", |w| {
        for l in 0..64 {
            w.vgpr[0][l] = (-2.0f32).to_bits();
            w.vgpr[1][l] = if l % 2 == 0 { (-2.0f32).to_bits() } else { 3.0f32.to_bits() };
            let d = if l < 32 { 1.0f64 } else { -1.0 };
            w.vgpr[2][l] = d.to_bits() as u32;
            w.vgpr[3][l] = (d.to_bits() >> 32) as u32;
            w.vgpr[4][l] = 0;
            w.vgpr[5][l] = 0;
            w.vgpr[6][l] = 1 << 8; // +normal
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.pair(4), 0x5555_5555_5555_5555);
        assert_eq!(w.pair(6), 0x0000_0000_ffff_ffff); // -1 < 0, 1 < 0 false
        assert_eq!(w.pair(8), u64::MAX); // -(-2) = +2 is +normal
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
