//! Compiles `data/gfx9-ops.tsv` (the opcode table) into Rust arrays: `OPS` and the per-format index.
//!
//! Each row is `format opcode mnemonic targets operands classes`; see data/gen_ops.py for how the
//! table was bootstrapped from LLVM. Operand tokens are `field:dwords`, `=token` (printed as is) or
//! `?sample` (a format-specific immediate; its kind is inferred here from the sample text).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

const FORMATS: &[&str] = &[
    "SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "SMEM", "VOP2", "VOP1", "VOPC", "VOP3", "VOP3P",
    "VINTRP", "DS", "MUBUF", "MTBUF", "MIMG", "FLAT", "GLOBAL", "SCRATCH", "EXP",
];

fn format_variant(f: &str) -> String {
    let mut s = String::new();
    for (i, c) in f.chars().enumerate() {
        if i == 0 {
            s.push(c);
        } else {
            s.push(c.to_ascii_lowercase());
        }
    }
    s
}

fn field_variant(name: &str) -> &'static str {
    match name {
        "sdst" => "Sdst",
        "ssrc0" => "Ssrc0",
        "ssrc1" => "Ssrc1",
        "sdata" => "Sdata",
        "sbase" => "Sbase",
        "vdst" => "Vdst",
        "vdst_s" | "sdst10" => "VdstSgpr",
        "vdst_a" => "VdstAgpr",
        "src0" => "Src0",
        "src0_a" => "Src0Agpr",
        "vsrc1" => "Vsrc1",
        "src1" => "Src1",
        "src1_a" => "Src1Agpr",
        "src2" => "Src2",
        "src2_a" => "Src2Agpr",
        "vdst_acd" => "VdstAcd",
        "src2_acd" => "Src2Acd",
        "src0_acc" => "Src0Acc",
        "src1_acc" => "Src1Acc",
        "addr" => "Addr",
        "data0" => "Data0",
        "data1" => "Data1",
        "vdata" => "Vdata",
        "vaddr" => "Vaddr",
        "srsrc" => "Srsrc",
        "ssamp" => "Ssamp",
        "soffset" => "Soffset",
        "saddr" => "Saddr",
        "vsrc" => "Vsrc",
        "vsrc0" => "Vsrc0",
        "vsrc1_exp" => "Vsrc1Exp",
        "vsrc2" => "Vsrc2",
        "vsrc3" => "Vsrc3",
        other => panic!("gfx9-ops.tsv: unknown operand field `{other}`"),
    }
}

/// The kind of a `?sample` immediate, from its format, mnemonic and sample text.
fn immediate_kind(format: &str, mnemonic: &str, sample: &str) -> &'static str {
    if sample.starts_with("hwreg(") {
        return "Hwreg";
    }
    if sample.starts_with("sendmsg(") {
        return "Sendmsg";
    }
    if sample.starts_with("vmcnt(") {
        return "Waitcnt";
    }
    if sample.starts_with("gpr_idx(") {
        return "GprIdxMode";
    }
    if ["pos", "mrt", "param", "null"]
        .iter()
        .any(|p| sample.starts_with(p))
    {
        return "ExpTgt";
    }
    if sample.starts_with("attr") {
        return "InterpAttr";
    }
    if sample.starts_with('p') || sample.starts_with("invalid_param") {
        return "InterpParam";
    }
    match format {
        "SOPK" if mnemonic == "s_setreg_imm32_b32" => "Literal",
        "SOPK" if mnemonic == "s_cbranch_i_fork" || mnemonic == "s_call_b64" => "Label",
        "SOPK" => "Simm16",
        "SOPP" if mnemonic.starts_with("s_branch") || mnemonic.starts_with("s_cbranch") => "Label",
        "SOPP" => "Uimm16",
        "SOPC" => "GprIdxOn",
        "SMEM" if sample.starts_with("0x") => "SmemOffset",
        "SMEM" => "SmemSdataImm",
        "VOP2" => "Literal",
        _ => panic!("gfx9-ops.tsv: no immediate kind for `{sample}` in {format} {mnemonic}"),
    }
}

/// The mnemonic without LLVM's encoding suffix.
fn base_name(name: &str) -> &str {
    name.strip_suffix("_e32")
        .or_else(|| name.strip_suffix("_e64"))
        .unwrap_or(name)
}

/// `Regs` expression of a `+`-joined register list (`scc+exec`).
fn regs(list: &str) -> Result<String, String> {
    let mut parts = Vec::new();
    for r in list.split('+') {
        parts.push(match r {
            "scc" => "Regs::SCC",
            "vcc" => "Regs::VCC",
            "exec" => "Regs::EXEC",
            "m0" => "Regs::M0",
            "pc" => "Regs::PC",
            other => return Err(format!("unknown register `{other}` in facts")),
        });
    }
    Ok(parts.iter().fold("Regs::NONE".to_string(), |acc, p| {
        format!("{acc}.union({p})")
    }))
}

/// The `Facts` expression of a facts column (tokens documented in data/derive_facts.py).
fn facts(column: &str) -> Result<String, String> {
    let mut f = std::collections::BTreeMap::new();
    for (k, v) in [
        ("reads", "Regs::NONE"),
        ("writes", "Regs::NONE"),
        ("lgkm", "false"),
        ("mem", "None"),
        ("bytes", "0"),
        ("sext", "false"),
        ("d16", "D16::No"),
        ("comps", "0"),
        ("atomic", "None"),
        ("dual", "false"),
        ("st64", "false"),
        ("src2", "false"),
        ("cross", "false"),
        ("rate", "Rate::Full"),
        ("dst", "DstUse::Write"),
        ("f16src", "false"),
        ("round", "Rounding::Integer"),
        ("lds", "false"),
        ("gather4", "false"),
        ("int16x2", "false"),
        ("mix", "false"),
        ("lit64", "Literal64::Zext"),
    ] {
        f.insert(k, v.to_string());
    }
    for tok in column.split(' ').filter(|t| !t.is_empty()) {
        let (key, value) = tok.split_once('=').unwrap_or((tok, ""));
        let expr = match (key, value) {
            ("r", v) => ("reads", regs(v)?),
            ("w", v) => ("writes", regs(v)?),
            (
                "lgkm" | "sext" | "dual" | "st64" | "src2" | "cross" | "f16src" | "lds" | "gather4"
                | "int16x2" | "mix",
                "",
            ) => (key, "true".into()),
            ("mem", v) => (
                "mem",
                format!(
                    "Some(MemKind::{})",
                    match v {
                        "load" => "Load",
                        "store" => "Store",
                        "atomic" => "Atomic",
                        "atomic_rtn" => "AtomicReturn",
                        "other" => "Other",
                        _ => return Err(format!("unknown memory kind `{v}`")),
                    }
                ),
            ),
            ("bytes" | "comps", v) => {
                let n: u8 = v.parse().map_err(|_| format!("bad count `{tok}`"))?;
                (key, n.to_string())
            }
            ("d16", v) => (
                "d16",
                match v {
                    "lo" => "D16::Lo",
                    "hi" => "D16::Hi",
                    "packed" => "D16::Packed",
                    _ => return Err(format!("unknown d16 half `{v}`")),
                }
                .into(),
            ),
            ("atomic", v) => (
                "atomic",
                format!(
                    "Some(Atomic::{})",
                    match v {
                        "swap" => "Swap",
                        "cmpswap" => "CmpSwap",
                        "add" => "Add",
                        "sub" => "Sub",
                        "rsub" => "Rsub",
                        "smin" => "Smin",
                        "umin" => "Umin",
                        "smax" => "Smax",
                        "umax" => "Umax",
                        "and" => "And",
                        "or" => "Or",
                        "xor" => "Xor",
                        "inc" => "Inc",
                        "dec" => "Dec",
                        "mskor" => "MskOr",
                        "fadd" => "FAdd",
                        "fmin" => "FMin",
                        "fmax" => "FMax",
                        "fcmpswap" => "FCmpSwap",
                        "wrap" => "Wrap",
                        "condxchg" => "CondXchg",
                        "pk_fadd" => "PkFAdd",
                        "pk_fadd_bf16" => "PkFAddBf16",
                        _ => return Err(format!("unknown atomic `{v}`")),
                    }
                ),
            ),
            ("dst", v) => (
                "dst",
                match v {
                    "read" => "DstUse::Read",
                    "rw" => "DstUse::ReadWrite",
                    _ => return Err(format!("unknown destination use `{v}`")),
                }
                .into(),
            ),
            ("lit64", v) => (
                "lit64",
                match v {
                    "high" => "Literal64::High",
                    "sext" => "Literal64::Sext",
                    _ => return Err(format!("unknown literal extension `{v}`")),
                }
                .into(),
            ),
            ("round", v) => (
                "round",
                match v {
                    "exact" => "Rounding::Exact",
                    "f32" => "Rounding::F32",
                    "wide" => "Rounding::Wide",
                    _ => return Err(format!("unknown rounding `{v}`")),
                }
                .into(),
            ),
            ("rate", v) => (
                "rate",
                match v {
                    "quarter" => "Rate::Quarter",
                    "dp" => "Rate::Double",
                    "dp_quarter" => "Rate::DoubleQuarter",
                    _ => return Err(format!("unknown rate `{v}`")),
                }
                .into(),
            ),
            _ => return Err(format!("unknown fact `{tok}`")),
        };
        f.insert(expr.0, expr.1);
    }
    let fields: Vec<String> = f.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    Ok(format!("Facts {{ {} }}", fields.join(", ")))
}

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap();
    let path = Path::new(&manifest).join("data/gfx9-ops.tsv");
    println!("cargo:rerun-if-changed=data/gfx9-ops.tsv");
    let text = fs::read_to_string(&path).expect("read data/gfx9-ops.tsv");

    let mut rows: Vec<(usize, u32, String, u8, String, u8, String)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(
            cols.len() >= 5,
            "gfx9-ops.tsv:{}: expected 6 columns",
            n + 1
        );
        let format = FORMATS
            .iter()
            .position(|f| *f == cols[0])
            .unwrap_or_else(|| panic!("gfx9-ops.tsv:{}: unknown format {}", n + 1, cols[0]));
        let opcode = u32::from_str_radix(cols[1].trim_start_matches("0x"), 16).unwrap();
        let mut targets = 0u8;
        for t in cols[3].split(',') {
            targets |= match t {
                "gfx900" => 1,
                "gfx906" => 2,
                "gfx908" => 4,
                "gfx90a" => 8,
                "gfx940" => 16,
                other => panic!("gfx9-ops.tsv:{}: unknown target {other}", n + 1),
            };
        }
        let classes: Vec<char> = cols.get(5).map(|c| c.chars().collect()).unwrap_or_default();
        let mut slots = String::new();
        for (i, tok) in cols[4].split(' ').filter(|t| !t.is_empty()).enumerate() {
            let scalar = cols[0].starts_with("SOP");
            let class = match classes.get(i).copied().unwrap_or('-') {
                'd' if scalar => "I64", // SALU 64-bit literals are zero-extended integers
                'w' => "B32",
                'h' => "F16",
                's' => "I16",
                'd' => "F64",
                'q' => "I64",
                'r' => "RegOnly",
                _ => "None",
            };
            let kind = if let Some(fixed) = tok.strip_prefix('=') {
                format!("Slot::Fixed(\"{fixed}\")")
            } else if let Some(sample) = tok.strip_prefix('?') {
                format!(
                    "Slot::Imm(ImmKind::{})",
                    immediate_kind(cols[0], cols[2], sample)
                )
            } else {
                let (field, dwords) = tok.split_once(':').expect("field:dwords");
                let field = if cols[0] == "EXP" && field == "vsrc1" {
                    "vsrc1_exp"
                } else {
                    field
                };
                format!(
                    "Slot::Reg {{ field: Field::{}, dwords: {}, class: ImmClass::{} }}",
                    field_variant(field),
                    dwords,
                    class
                )
            };
            write!(slots, "{kind}, ").unwrap();
        }
        let mut flags = 0u8;
        for f in cols
            .get(6)
            .unwrap_or(&"")
            .split(',')
            .filter(|f| !f.is_empty())
        {
            flags |= match f {
                "opsel" => 1,
                "mods" => 2,
                "int1" => 4,
                "int2" => 8,
                "sdwaint" => 16,
                "noclamp" => 32,
                "noomod" => 64,
                other => panic!("gfx9-ops.tsv:{}: unknown flag {other}", n + 1),
            };
        }
        let facts = facts(cols.get(7).copied().unwrap_or(""))
            .unwrap_or_else(|e| panic!("gfx9-ops.tsv:{}: {e}", n + 1));
        rows.push((
            format,
            opcode,
            cols[2].to_string(),
            targets,
            slots,
            flags,
            facts,
        ));
    }
    rows.sort_by_key(|r| (r.0, r.1));

    let mut out = String::new();
    out.push_str("// @generated by build.rs from data/gfx9-ops.tsv. Do not edit.\n");
    writeln!(out, "pub(crate) static OPS: [OpInfo; {}] = [", rows.len()).unwrap();
    // One `Op` per operation: the encodings of one op (`v_add_f32_e32`, `v_add_f32_e64`) share it.
    let mut ops: Vec<String> = Vec::new();
    for row in &rows {
        let base = base_name(&row.2);
        if !ops.iter().any(|o| o == base) {
            ops.push(base.to_string());
        }
    }
    for (format, opcode, name, targets, slots, flags, facts) in &rows {
        writeln!(
            out,
            "    OpInfo {{ name: \"{name}\", op: Op::{}, format: Format::{}, opcode: {opcode:#x}, targets: {targets}, flags: {flags}, facts: {facts}, operands: &[{slots}] }},",
            base_name(name).to_ascii_uppercase(),
            format_variant(FORMATS[*format])
        )
        .unwrap();
    }
    out.push_str("];\n");
    out.push_str(
        "/// An operation of the instruction set: one per mnemonic, shared by its encodings.\n\
         #[allow(non_camel_case_types)]\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n\
         #[repr(u16)]\npub enum Op {\n",
    );
    for op in &ops {
        writeln!(out, "    {},", op.to_ascii_uppercase()).unwrap();
    }
    out.push_str("}\n");
    writeln!(
        out,
        "impl Op {{\n    /// Every op, in table order.\n    pub const ALL: [Op; {}] = [",
        ops.len()
    )
    .unwrap();
    for op in &ops {
        writeln!(out, "        Op::{},", op.to_ascii_uppercase()).unwrap();
    }
    out.push_str("    ];\n    /// The mnemonic without an encoding suffix (`v_add_f32`).\n    pub fn name(self) -> &'static str {\n        OP_NAMES[self as usize]\n    }\n}\n");
    writeln!(out, "static OP_NAMES: [&str; {}] = {:?};", ops.len(), ops).unwrap();
    // For tables over every op in other crates (the emulator's semantics): `$m! { OP ... }`, so
    // that a row added here without an entry there does not compile.
    out.push_str("/// Calls `$m! { S_ADD_U32 S_SUB_U32 ... }` with every [`Op`].\n#[macro_export]\nmacro_rules! for_each_op {\n    ($m:ident) => {\n        $m! {");
    for op in &ops {
        write!(out, " {}", op.to_ascii_uppercase()).unwrap();
    }
    out.push_str(" }\n    };\n}\n");
    // FORMAT_START[f]..FORMAT_START[f+1] is the range of OPS rows of format f, sorted by opcode.
    let mut starts = vec![0usize; FORMATS.len() + 1];
    for (f, start) in starts.iter_mut().enumerate().take(FORMATS.len()) {
        *start = rows.iter().position(|r| r.0 >= f).unwrap_or(rows.len());
    }
    starts[FORMATS.len()] = rows.len();
    writeln!(
        out,
        "pub(crate) static FORMAT_START: [u16; {}] = {:?};",
        starts.len(),
        starts
    )
    .unwrap();

    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("ops.rs");
    fs::write(dest, out).unwrap();
}
