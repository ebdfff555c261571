#!/usr/bin/env python3
"""Bootstraps the facts column (column 8) of gfx9-ops.tsv from the mnemonics, once.

What an opcode *is* beyond its syntax used to be guessed from its mnemonic all over the emulator
(implicit SCC/VCC/EXEC/M0 use, memory kind and shape, atomic operation, issue rate). This script
wrote those guesses into the table, where they are now maintained by hand: build.rs reads the
column and nothing else parses mnemonics. Re-running it overwrites hand edits; it is kept as the
record of how the column was first filled (and checked against the emulator's old derivations).

Tokens, space-separated (absent = no / default):
  r=REGS w=REGS   implicit reads / writes, `+`-joined from scc vcc exec m0 pc
  lgkm            a control op that counts on LGKM_CNT (s_sendmsg)
  mem=KIND        load | store | atomic | atomic_rtn | other (memory formats only)
  bytes=N         bytes per element accessed (per lane for vector and LDS memory)
  sext            a load that sign-extends
  d16=HALF        lo | hi: a 16-bit result or source in that half of the VGPR; packed: d16 format
  comps=N         buffer/tbuffer format ops: components (x=1 ... xyzw=4)
  atomic=OP       the read-modify-write: swap cmpswap add sub rsub smin umin smax umax and or xor
                  inc dec mskor fadd fmin fmax fcmpswap wrap condxchg pk_fadd
                  pk_fadd_bf16
  dual            DS two-address ops (read2, write2, wrxchg2); st64: their offsets count 64 elements
  src2            DS `_src2_` ops (operand addresses from the address register, no data)
  cross           DS ops whose lanes do not each access their own address (swizzle, permute...)
  dst=D           how the destination slot is used when not only written: read (s_cmpk_*,
                  s_setreg_b32, s_cbranch_i_fork keep an operand in sdst; v_interp_*_e64 a VGPR
                  source), rw (accumulators:
                  s_addk/s_mulk/s_cmovk, s_cmov_*, s_bitset*, v_mac_*, v_fmac_*, v_writelane_b32)
  f16src          VOP3 rows whose sources the hardware reads as f16 (inline float constants are
                  f16 bit patterns): every `_f16` op, including v_ldexp_f16's and
                  v_cmp_class_f16's integer src1 (LLVM issue 58167); the printed immediate classes
                  cannot tell, since llvm-objdump prints them like 32-bit floats
  round=R         VALU ops with a float result, by how MODE.FP_ROUND affects it: f32 (an f32
                  result that depends on the direction), wide (f16/f64, FP_ROUND[3:2]), exact (a
                  float result that is exact in every direction: compares, min/max, floor...,
                  widening conversions, moves); absent: no float result
  lds             buffer/global/scratch loads with an LDS-DMA form (the `lds` bit: the data goes
                  to LDS at M0): dword-or-less loads, and buffer_load_format_x
  gather4         MIMG gather4 ops (always four components)
  int16x2         VOP3P packed 16-bit integer ops (LLVM 15 decodes neg only on src0)
  mix             VOP3P mixed-precision ops (v_mad_mix*, v_fma_mix*): op_sel_hi defaults to 0
                  and neg_lo/neg_hi print as each source's neg/abs
  lit64=L         how a 32-bit literal fills a 64-bit source: high (the high half of an f64:
                  `_f64` ops) or sext (`_i64` ops); absent: zero-extended
  rate=R          VALU issue rate: quarter (transcendental, 32-bit integer multiply), dp (f64),
                  dp_quarter (f64 transcendental); absent = full rate
Run from the repository root: python3 isa-tables/data/derive_facts.py"""
import re

TSV = "isa-tables/data/gfx9-ops.tsv"
SCALAR = {"SOP1", "SOP2", "SOPK", "SOPC"}
VALU = {"VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "VINTRP"}
MEMORY = {"SMEM", "DS", "MUBUF", "MTBUF", "MIMG", "FLAT", "GLOBAL", "SCRATCH"}
VMEM_DATA = {"MUBUF", "MTBUF", "FLAT", "GLOBAL", "SCRATCH"}

DS_ATOMIC_OPS = ["add", "sub", "rsub", "inc", "dec", "min", "max", "and", "or", "xor", "mskor",
                 "cmpst", "wrxchg", "condxchg", "umin", "umax", "fmin", "fmax", "add_f32", "wrap",
                 "cmpxchg"]


def base(name):
    return re.sub(r"_(e32|e64)$", "", name)


def is_ds_atomic(name):
    if not name.startswith("ds_"):
        return False
    rest = name[3:]
    if rest.startswith("rtn_"):
        rest = rest[4:]
    return (any(rest.startswith(o) and len(rest) > len(o) for o in DS_ATOMIC_OPS)
            and not rest.startswith("read") and not rest.startswith("write"))


def mem_kind(name):
    has = lambda s: s in name
    if has("atomic") or has("_cmpst_") or is_ds_atomic(name):
        return "atomic_rtn" if has("_rtn") else "atomic"
    if has("load") or has("read") or has("gather") or has("sample") or has("get_resinfo"):
        return "load"
    if has("store") or has("write"):
        return "store"
    if any(has(s) for s in ("swizzle", "permute", "append", "consume", "ordered_count")):
        return "load"
    return "other"


def writes_scc(fmt, name):
    if fmt == "SOPC":
        return not name.startswith("s_set")
    prefixes = ["s_add_", "s_sub_", "s_addc_", "s_subb_", "s_min_", "s_max_", "s_and_", "s_or_",
                "s_xor_", "s_andn", "s_orn", "s_nand_", "s_nor_", "s_xnor_", "s_lshl", "s_lshr_",
                "s_ashr_", "s_bfe_", "s_absdiff_", "s_not_", "s_wqm_", "s_bcnt", "s_quadmask_",
                "s_abs_"]
    return (any(name.startswith(p) for p in prefixes) or name.startswith("s_cmpk_")
            or name == "s_addk_i32")


def implicit(fmt, name):
    r, w = set(), set()
    if fmt in SCALAR:
        if any(name.startswith(p) for p in ("s_addc", "s_subb", "s_cselect", "s_cmov")):
            r.add("scc")
        if writes_scc(fmt, name):
            w.add("scc")
        if "saveexec" in name or "wrexec" in name:
            r.add("exec"); w.add("exec")
        if name.startswith("s_movrel") or name == "s_set_gpr_idx_idx":
            r.add("m0")
        if name in ("s_set_gpr_idx_on", "s_set_gpr_idx_idx"):
            w.add("m0")
        if name in ("s_setpc_b64", "s_swappc_b64", "s_call_b64", "s_rfe_b64") \
                or name.startswith("s_cbranch"):
            w.add("pc")
        if name.startswith("s_cbranch") and "fork" in name:
            r.add("exec"); w.add("exec")
        if name == "s_cbranch_join":
            w.add("exec")
    elif fmt == "SOPP":
        if name.startswith("s_branch") or name.startswith("s_cbranch"):
            w.add("pc")
        if name.startswith("s_cbranch_scc"):
            r.add("scc")
        if name.startswith("s_cbranch_vcc"):
            r.add("vcc")
        if name.startswith("s_cbranch_exec"):
            r.add("exec")
        if name.startswith("s_sendmsg") or name == "s_set_gpr_idx_off":
            r.add("m0")
        if name in ("s_set_gpr_idx_mode", "s_set_gpr_idx_off"):
            w.add("m0")
    elif fmt in VALU:
        r.add("exec")
        e32 = fmt in ("VOP1", "VOP2", "VOPC")
        carry_in = name in ("v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32")
        carry_out = name in ("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32")
        if fmt == "VOPC":
            w.add("vcc")
        if name.startswith("v_cmpx_"):
            w.add("exec")
        if e32 and (carry_in or name == "v_cndmask_b32"):
            r.add("vcc")
        if e32 and (carry_in or carry_out):
            w.add("vcc")
        if name.startswith("v_div_fmas"):
            r.add("vcc")
        if name.startswith("v_movrel") or name.startswith("v_interp"):
            r.add("m0")
    elif fmt == "DS":
        if "addtid" in name or name.startswith("ds_gws") or "ordered" in name:
            r.add("m0")
    elif fmt == "MUBUF":
        r.add("exec")
    if fmt in ("DS", "MTBUF", "MIMG", "FLAT", "GLOBAL", "SCRATCH", "EXP"):
        r.add("exec")
    order = ["scc", "vcc", "exec", "m0", "pc"]
    return [x for x in order if x in r], [x for x in order if x in w]


def vmem_shape(name):
    """bytes/sext/d16/comps/atomic of FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF data ops."""
    toks = []
    op = name.split("_", 1)[1]
    m = re.fullmatch(r"(load|store)_format_(d16_hi_|d16_)?(x|xy|xyz|xyzw)", op)
    if m:
        d16 = {"d16_hi_": "hi", "d16_": "packed", None: None}[m.group(2)]
        toks.append(f"comps={len(m.group(3))}")
        if d16:
            toks.append(f"d16={d16}")
        return toks
    widths = {"byte": 1, "ubyte": 1, "sbyte": 1, "short": 2, "ushort": 2, "sshort": 2,
              "dword": 4, "dwordx2": 8, "dwordx3": 12, "dwordx4": 16}
    m = re.fullmatch(r"(load|store)_(u?s?byte|u?s?short|byte|short|dword(?:x[234])?)(_d16)?(_hi)?",
                     op)
    if m:
        toks.append(f"bytes={widths[m.group(2)]}")
        if m.group(2) in ("sbyte", "sshort"):
            toks.append("sext")
        if m.group(3) or m.group(4):
            toks.append("d16=hi" if m.group(4) else "d16=lo")
        return toks
    m = re.fullmatch(r"atomic_([a-z]+)(_x2)?", op)
    if m:
        toks.append(f"bytes={8 if m.group(2) else 4}")
        toks.append(f"atomic={m.group(1)}")
    if op in ("atomic_add_f32", "atomic_pk_add_f16"):  # gfx908
        toks += ["bytes=4", "atomic=" + ("fadd" if op == "atomic_add_f32" else "pk_fadd")]
    return toks


DS_WIDTH = {"u8": 1, "i8": 1, "b8": 1, "u16": 2, "i16": 2, "b16": 2, "u32": 4, "i32": 4,
            "b32": 4, "f32": 4, "u64": 8, "i64": 8, "b64": 8, "f64": 8, "b96": 12, "b128": 16}


def ds_shape(name):
    toks = []
    rest = name[3:]
    m = re.search(r"_(u8|i8|b8|u16|i16|b16|u32|i32|b32|f32|u64|i64|b64|f64|b96|b128)(_d16)?(_hi)?$",
                  rest)
    if m:
        toks.append(f"bytes={DS_WIDTH[m.group(1)]}")
        if m.group(1) in ("i8", "i16"):
            toks.append("sext")
        if m.group(2) or m.group(3):
            toks.append("d16=hi" if m.group(3) else "d16=lo")
    elif rest in ("append", "consume") or rest.startswith("gws") or rest.startswith("ordered"):
        toks.append("bytes=4")
    if re.match(r"(read2|write2|wrxchg2)", rest):
        toks.append("dual")
    if "st64" in rest:
        toks.append("st64")
    if "_src2_" in rest:
        toks.append("src2")
    if any(s in rest for s in ("swizzle", "permute", "append", "consume", "addtid", "src2",
                               "gws", "ordered")) or rest == "nop":
        toks.append("cross")
    if is_ds_atomic(name) or "_src2_" in rest:
        op = re.sub(r"_rtn|_src2", "", rest)
        op, ty = op.rsplit("_", 1)
        float_ty = ty.startswith("f")
        op = re.sub(r"^wrxchg2(st64)?$", "wrxchg", op)
        atomic = {
            "wrxchg": "swap", "write": "swap", "cmpst": "fcmpswap" if float_ty else "cmpswap",
            "min": "fmin" if float_ty else ("umin" if ty[0] in "ub" else "smin"),
            "max": "fmax" if float_ty else ("umax" if ty[0] in "ub" else "smax"),
            "add": "fadd" if float_ty else "add", "condxchg32": "condxchg",
        }.get(op, op)
        toks.append(f"atomic={atomic}")
    return toks


def smem_shape(name):
    """bytes/atomic of SMEM loads, stores and atomics."""
    m = re.fullmatch(r"s_(?:buffer_|scratch_)?(?:load|store)_dword(x\d+)?", name)
    if m:
        return [f"bytes={4 * int(m.group(1)[1:]) if m.group(1) else 4}"]
    m = re.fullmatch(r"s_(?:buffer_)?atomic_([a-z]+)(_x2)?", name)
    if m:
        return [f"bytes={8 if m.group(2) else 4}", f"atomic={m.group(1)}"]
    return []


def rounding(name):
    types = ["f16", "f32", "f64", "i4", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64",
             "b32", "b64"]
    result = next((t for t in name.split("_") if t in types), None)
    if result not in ("f16", "f32", "f64"):
        return None
    exact_prefixes = ["v_cmp", "v_min", "v_max", "v_med3", "v_floor", "v_ceil", "v_trunc",
                      "v_rndne", "v_fract", "v_frexp", "v_cubeid", "v_cubesc", "v_cubetc",
                      "v_div_fixup", "v_mov", "v_pk_min", "v_pk_max"]
    exact_names = ["v_cvt_off_f32_i4", "v_cvt_f32_ubyte0", "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2",
                   "v_cvt_f32_ubyte3", "v_cvt_f32_f16", "v_cvt_f64_f32", "v_cvt_f64_i32",
                   "v_cvt_f64_u32", "v_cvt_pkrtz_f16_f32", "v_pk_mov_b32"]
    if any(name.startswith(p) for p in exact_prefixes) or name in exact_names:
        return "exact"
    return "f32" if result == "f32" else "wide"


def valu_rate(name):
    trans = ["v_rcp_", "v_rsq_", "v_sqrt_", "v_exp_", "v_log_", "v_sin_", "v_cos_", "v_rcp_iflag"]
    quarter_int = ["v_mul_lo_u32", "v_mul_hi_u32", "v_mul_hi_i32", "v_mad_u64_u32",
                   "v_mad_i64_i32", "v_mul_lo_i32"]
    f64 = "f64" in name or (name.startswith("v_div_fmas") and name.endswith("64"))
    quarter = (any(name.startswith(p) for p in trans) or name in quarter_int
               or name.startswith("v_trig_preop"))
    return {(True, True): "dp_quarter", (True, False): "dp", (False, True): "quarter"}.get(
        (f64, quarter))


def dst_use(fmt, name):
    if fmt == "SOPK" and (name.startswith("s_cmpk_") or name in ("s_setreg_b32", "s_cbranch_i_fork")):
        return "read"
    if fmt == "VOP3" and name.startswith("v_interp_"):
        return "read"  # the e64 form carries a VGPR source in the sdst slot
    if fmt == "SOPK" and name in ("s_addk_i32", "s_mulk_i32", "s_cmovk_i32"):
        return "rw"
    if fmt == "SOP1" and (name.startswith("s_cmov_") or name.startswith("s_bitset")):
        return "rw"
    if fmt in VALU and (name.startswith("v_mac_") or name.startswith("v_fmac_")
                        or name.startswith("v_pk_fmac_") or name == "v_writelane_b32"):
        return "rw"
    return None


def mimg_shape(name):
    toks = []
    m = re.fullmatch(r"image_atomic_([a-z]+)", name)
    if m:
        toks.append("atomic=" + m.group(1))
    if name.startswith("image_gather4"):
        toks.append("gather4")
    if (name.startswith("image_sample") or name.startswith("image_gather4")
            or name in ("image_load", "image_load_mip", "image_store", "image_store_mip")):
        toks.append("d16=packed")
    return toks


def facts(fmt, mnemonic):
    name = base(mnemonic)
    r, w = implicit(fmt, name)
    toks = []
    if r:
        toks.append("r=" + "+".join(r))
    if w:
        toks.append("w=" + "+".join(w))
    if fmt == "SOPP" and name.startswith("s_sendmsg"):
        toks.append("lgkm")
    if fmt in MEMORY:
        toks.append("mem=" + mem_kind(name))
    if fmt in VMEM_DATA:
        toks += vmem_shape(name)
    if fmt == "DS":
        toks += ds_shape(name)
    if fmt == "SMEM":
        toks += smem_shape(name)
    if fmt == "MIMG":
        toks += mimg_shape(name)
    lds_loads = ("load_ubyte", "load_sbyte", "load_ushort", "load_sshort", "load_dword")
    if (fmt == "MUBUF" and name in ["buffer_" + l for l in lds_loads + ("load_format_x",)]) or \
            (fmt in ("GLOBAL", "SCRATCH") and name.split("_", 1)[1] in lds_loads):
        toks.append("lds")
    if fmt == "VOP3P" and name.startswith("v_pk_") and name[-3:] in ("i16", "u16", "b16"):
        toks.append("int16x2")
    if fmt == "VOP3P" and "_mix" in name:
        toks.append("mix")
    if fmt == "VOP3" and name.endswith("_f16"):
        toks.append("f16src")
    if "_f64" in name:
        toks.append("lit64=high")
    elif "_i64" in name:
        toks.append("lit64=sext")
    dst = dst_use(fmt, name)
    if dst:
        toks.append("dst=" + dst)
    if fmt in VALU and rounding(name):
        toks.append("round=" + rounding(name))
    if fmt in VALU:
        rate = valu_rate(name)
        if rate:
            toks.append("rate=" + rate)
    return " ".join(toks)


def main():
    out = []
    for line in open(TSV):
        if line.startswith("#"):
            if line.startswith("# format") and "\tfacts" not in line:
                line = line.rstrip("\n") + "\tfacts (see isa-tables/data/derive_facts.py)\n"
            out.append(line)
            continue
        c = line.rstrip("\n").split("\t")
        c = c[:7] + [""] * (7 - len(c))
        out.append("\t".join(c + [facts(c[0], c[2])]) + "\n")
    open(TSV, "w").write("".join(out))


if __name__ == "__main__":
    main()
