#!/usr/bin/env python3
"""Bootstraps data/gfx9-ops.tsv, the opcode table, by asking LLVM 15 what each opcode is.

For every encoding format and every value of its opcode field, this builds probe encodings whose
register fields hold distinct values (v10 for a destination, v20/v40/v60 for sources, ...), runs
`llvm-mc-15 -disassemble`, and turns the printed operands back into field names: the operand
template of that opcode (which fields it prints, in which order, and how many dwords each is).
Immediate operand classes (how inline constants and literals print) are probed the same way.

The TSV it writes is the source of truth that build.rs compiles; it is committed, and this script
is only needed to regenerate or extend it:  python3 isa-tables/data/gen_ops.py > isa-tables/data/gfx9-ops.tsv

LLVM 15 is the reference for gfx900 to gfx90a; gfx940 and gfx942 need LLVM 19 (LLVM 15 prints
gfx940's matrix ops wrongly and has no gfx942). Compare a new target with one LLVM knows as well,
under the same LLVM:  gen_ops.py --llvm-mc llvm-mc-19 --targets gfx90a,gfx940,gfx942
"""
import argparse
import re
import subprocess
import sys

LLVM_MC = "llvm-mc-15"
TARGETS = ["gfx900", "gfx906", "gfx908", "gfx90a"]


SENTINEL = ["0x00 0x00 0x80 0xbf", "0x01 0x00 0x80 0xbf", "0x02 0x00 0x80 0xbf"]  # s_nop 0, 1, 2


def disassemble(encodings, cpu):
    """One text (or None when LLVM rejects it) per encoding.

    Each encoding is followed by s_nop 0, s_nop 1, s_nop 2. An instruction that wants a literal it
    was not given swallows the s_nop 0; s_nop 2 can never be swallowed, so it delimits the groups.
    """
    lines = []
    for words in encodings:
        data = b"".join(w.to_bytes(4, "little") for w in words)
        lines.append(" ".join("0x%02x" % b for b in data))
        lines.extend(SENTINEL)
    run = subprocess.run(
        [LLVM_MC, "-disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + cpu, "-show-encoding"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    rejected = set()
    for line in run.stderr.splitlines():
        if "invalid instruction encoding" in line:
            rejected.add(int(line.split(":")[1]))
    groups, current = [], []
    for line in run.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith(".text"):
            continue
        text = line.split(";")[0].strip()
        if text == "s_nop 2":
            groups.append(current)
            current = []
        else:
            current.append(text)
    texts = []
    for i in range(len(encodings)):
        group = groups[i] if i < len(groups) else []
        ok = (4 * i + 1) not in rejected and len(group) == 3 and group[1:] == ["s_nop 0", "s_nop 1"]
        texts.append(group[0] if ok else None)
    return texts


REG = re.compile(r"^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")


def reg_of(tok):
    m = REG.match(tok)
    if not m:
        return None
    if m.group(2) is not None:
        return m.group(1), int(m.group(2)), 1
    lo, hi = int(m.group(3)), int(m.group(4))
    return m.group(1), lo, hi - lo + 1


def split_operands(rest):
    """Splits on commas outside (), [] and quotes."""
    out, depth, cur, quoted = [], 0, "", False
    for ch in rest:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def template(text, fields):
    """Maps each printed operand of `text` to a probe field: 'name:dwords' or a fixed token."""
    mnemonic, _, rest = text.partition(" ")
    ops = split_operands(rest)
    out = []
    for i, op in enumerate(ops):
        if i == len(ops) - 1:
            op, _, _ = op.partition(" ")  # modifiers (offset:4 glc ...) follow the last operand
            if op.startswith("hwreg(") or op.startswith("sendmsg("):
                op = ops[i]
        r = reg_of(op)
        name = None
        if r:
            for fname, (kind, value) in fields.items():
                if kind == r[0] and value == r[1]:
                    name = "%s:%d" % (fname, r[2])
                    break
        if name is None:
            name = "=" + op if op in FIXED else "?" + op.replace(" ", "")
        out.append(name)
    return mnemonic, out


FIXED = {"vcc", "exec", "off", "m0", "scc"}


def sweep(fmt, nops, build, fields, variants=(None,)):
    """Returns {opcode: (mnemonic, template)} per target."""
    result = {}
    for cpu in TARGETS:
        encs, keys = [], []
        for op in range(nops):
            for v in variants:
                encs.append(build(op, v))
                keys.append((op, v))
        texts = disassemble(encs, cpu)
        table = {}
        for (op, v), t in zip(keys, texts):
            if t is None or op in table:
                continue
            flds = fields(v) if callable(fields) else fields
            table[op] = template(t, flds)
        result[cpu] = table
    return result


# ---- probe encodings, one builder per format -------------------------------------------------
# Distinct field values: destinations 10, sources 20/40/60, scalar destinations 30.
V = lambda n: 256 + n  # a VGPR in a 9-bit source field

SOP = {"sdst": ("s", 10), "ssrc0": ("s", 20), "ssrc1": ("s", 40)}


def sop2(op, v):
    return [(2 << 30) | (op << 23) | (10 << 16) | (40 << 8) | 20]


def sopk(op, v):
    return [(0xB << 28) | (op << 23) | (10 << 16) | 0x1234] + ([0x5678] if v else [])


def sop1(op, v):
    return [(0x17D << 23) | (10 << 16) | (op << 8) | 20]


def sopc(op, v):
    return [(0x17E << 23) | (op << 16) | (40 << 8) | 20]


def sopp(op, v):
    return [(0x17F << 23) | (op << 16) | 3]


SMEM_F = {"sdata": ("s", 8), "sbase": ("s", 20)}


def smem(op, v):
    # v: (imm, sdata_used) ; sbase=10 -> s[20:21]
    imm = v
    w0 = (0x30 << 26) | (op << 18) | (imm << 17) | (8 << 6) | 10
    return [w0, 0x24 if imm else 30]


VOP_F = {"vdst": ("v", 10), "src0": ("v", 20), "vsrc1": ("v", 40), "src1": ("v", 40),
         "src2": ("v", 60), "sdst": ("s", 30), "sdst10": ("s", 10)}


def vop2(op, v):
    return [(op << 25) | (10 << 17) | (40 << 9) | V(20)] + ([0x1234] if v else [])


def vop1(op, v):
    return [(0x3F << 25) | (10 << 17) | (op << 9) | V(20)]


def vopc(op, v):
    return [(0x3E << 25) | (op << 17) | (40 << 9) | V(20)]


def vop3(op, v):
    sdst, nsrc = v
    srcs = [V(20), V(40), V(60)][:nsrc] + [0, 0, 0]
    return [(0x34 << 26) | (op << 16) | ((30 if sdst else 0) << 8) | 10,
            srcs[0] | (srcs[1] << 9) | (srcs[2] << 18)]


VOP3_VARIANTS = tuple((s, n) for n in (3, 2, 1, 0) for s in (False, True))


def vop3p(op, v):
    srcs = [V(20), V(40), V(60)][:v] + [0, 0, 0]
    return [(0x1A7 << 23) | (op << 16) | 10, srcs[0] | (srcs[1] << 9) | (srcs[2] << 18)]


VOP3_F = {"vdst": ("v", 10), "src0": ("v", 20), "src1": ("v", 40), "src2": ("v", 60),
          "sdst": ("s", 0), "vdst_s": ("s", 10),
          "vdst_a": ("a", 10), "src0_a": ("a", 20), "src1_a": ("a", 40), "src2_a": ("a", 60)}
MEMV = {"vdst": ("v", 10), "addr": ("v", 20), "data0": ("v", 40), "data1": ("v", 60)}


def ds(op, v):
    used = v  # bitmask addr, data0, data1, vdst
    a = 20 if used & 1 else 0
    d0 = 40 if used & 2 else 0
    d1 = 60 if used & 4 else 0
    vd = 10 if used & 8 else 0
    return [(0x36 << 26) | (op << 17) | 0x0201, a | (d0 << 8) | (d1 << 16) | (vd << 24)]


BUF_F = {"vdata": ("v", 10), "vaddr": ("v", 20), "srsrc": ("s", 8), "soffset": ("s", 30)}


def mubuf(op, v):
    return [(0x38 << 26) | (op << 18) | (1 << 12) | 4, 20 | (10 << 8) | (2 << 16) | (30 << 24)]


def mtbuf(op, v):
    return [(0x3A << 26) | (op << 15) | (1 << 12) | (4 << 19) | (7 << 23) | 4,
            20 | (10 << 8) | (2 << 16) | (30 << 24)]


MIMG_F = {"vdata": ("v", 10), "vaddr": ("v", 20), "srsrc": ("s", 8), "ssamp": ("s", 12)}


def mimg(op, v):
    return [(0x3C << 26) | (op << 18) | (0xF << 8), 20 | (10 << 8) | (2 << 16) | (3 << 21)]


FLAT_F = {"vdst": ("v", 10), "vaddr": ("v", 20), "vdata": ("v", 40), "saddr": ("s", 30)}


def flat(seg):
    def build(op, v):
        saddr = 30 if (v and seg != 0) else (0x7F if seg else 0)
        return [(0x37 << 26) | (op << 18) | (seg << 14) | 8,
                20 | (40 << 8) | (saddr << 16) | (10 << 24)]
    return build


def vintrp(op, v):
    return [(0x35 << 26) | (10 << 18) | (op << 16) | (3 << 10) | (1 << 8) | 20]


def exp(op, v):
    return [(0x31 << 26) | (12 << 4) | 0xF, 20 | (40 << 8) | (60 << 16) | (80 << 24)]


EXP_F = {"vsrc0": ("v", 20), "vsrc1": ("v", 40), "vsrc2": ("v", 60), "vsrc3": ("v", 80)}


def classify(inline_248, inline_242, literal):
    """An operand's immediate class from how LLVM prints 1/(2*pi), 1.0 and the literal 0x12345678."""
    if inline_248 is None:
        return "-"
    if inline_248 == "0.15915494309189532":
        if literal is None:
            return "d"
        return "d" if literal == "0x12345678" else "q"  # f64 literals are the high half
    if inline_248 == "0x3118" or inline_242 == "0x3c00":
        return "s"  # 16-bit integer
    if literal is not None and literal == "0x5678":
        return "h"  # 16-bit float: literal truncated
    return "w"


def probe_classes(fmt, op, cpu, slots):
    """Immediate class per template slot for VALU and SALU sources (see classify)."""
    def nth_operand(text, i):
        if text is None:
            return None
        ops = split_operands(text.partition(" ")[2])
        return ops[i].partition(" ")[0] if i < len(ops) else None

    classes = []
    for i, slot in enumerate(slots):
        field = slot.split(":")[0]
        encs = None
        if fmt in ("VOP3", "VOP3P") and field in ("src0", "src1", "src2"):
            shift = {"src0": 0, "src1": 9, "src2": 18}[field]
            base = (vop3 if fmt == "VOP3" else vop3p)
            nsrc = sum(1 for s in slots if s.split(":")[0] in ("src0", "src1", "src2"))
            w = base(op, (False, nsrc) if fmt == "VOP3" else nsrc)
            if slots[0].startswith("sdst") or any(s.startswith("sdst:") for s in slots):
                w = vop3(op, (True, nsrc))
            mask = ~(0x1FF << shift) & 0xFFFFFFFF
            encs = [[w[0], (w[1] & mask) | (c << shift)] for c in (248, 242)] + [None]
        elif fmt in ("VOP1", "VOP2", "VOPC") and field == "src0":
            w = {"VOP1": vop1, "VOP2": vop2, "VOPC": vopc}[fmt](op, False)[:1]
            encs = [[(w[0] & ~0x1FF) | 248], [(w[0] & ~0x1FF) | 242], [(w[0] & ~0x1FF) | 255, 0x12345678]]
        elif fmt in ("SOP1", "SOP2", "SOPC") and field in ("ssrc0", "ssrc1"):
            w = {"SOP1": sop1, "SOP2": sop2, "SOPC": sopc}[fmt](op, None)[0]
            shift = 0 if field == "ssrc0" else 8
            w &= ~(0xFF << shift)
            encs = [[w | (248 << shift)], [w | (242 << shift)], [w | (255 << shift), 0x12345678]]
        if encs is None:
            classes.append("-")
            continue
        real = [e for e in encs if e is not None]
        texts = disassemble(real, cpu) + [None] * (3 - len(real))
        classes.append(classify(*(nth_operand(t, i) for t in texts)))
    return "".join(classes)


def main():
    global LLVM_MC, TARGETS
    ap = argparse.ArgumentParser()
    ap.add_argument("--llvm-mc", default=LLVM_MC)
    ap.add_argument("--targets", default=",".join(TARGETS))
    args = ap.parse_args()
    LLVM_MC, TARGETS = args.llvm_mc, args.targets.split(",")
    specs = [
        ("SOP2", 0x60, sop2, SOP, (None,)),  # 0x60.. is the SOPK/SOP1/SOPC/SOPP space
        ("SOPK", 0x1D, sopk, SOP, (False, True)),  # 0x1d.. is the SOP1/SOPC/SOPP space
        ("SOP1", 256, sop1, SOP, (None,)),
        ("SOPC", 128, sopc, SOP, (None,)),
        ("SOPP", 128, sopp, SOP, (None,)),
        ("SMEM", 256, smem, SMEM_F, (1, 0)),
        ("VOP2", 64, vop2, VOP_F, (False, True)),
        ("VOP1", 256, vop1, VOP_F, (None,)),
        ("VOPC", 256, vopc, VOP_F, (None,)),
        ("VOP3", 0x380, vop3, VOP3_F, VOP3_VARIANTS),  # 0x380.. is VOP3P
        ("VOP3P", 128, vop3p, VOP3_F, (3, 2, 1, 0)),
        ("DS", 256, ds, MEMV, tuple(range(15, -1, -1))),
        ("MUBUF", 128, mubuf, BUF_F, (None,)),
        ("MTBUF", 16, mtbuf, BUF_F, (None,)),
        ("MIMG", 128, mimg, MIMG_F, (None,)),
        ("FLAT", 128, flat(0), FLAT_F, (False,)),
        ("SCRATCH", 128, flat(1), FLAT_F, (True, False)),
        ("GLOBAL", 128, flat(2), FLAT_F, (True, False)),
        ("VINTRP", 4, vintrp, {"vdst": ("v", 10), "vsrc": ("v", 20)}, (None,)),
        ("EXP", 1, exp, EXP_F, (None,)),
    ]
    print("# format\topcode\tmnemonic\ttargets\toperands\timmediate classes (w 32-bit, h f16, s i16, d f64, q i64, - none)")
    for fmt, n, build, fields, variants in specs:
        per_cpu = sweep(fmt, n, build, fields, variants)
        for op in range(n):
            groups = {}  # the same opcode may be named differently per target (v_mad_mix / v_fma_mix)
            for cpu in TARGETS:
                t = per_cpu[cpu].get(op)
                if t:
                    groups.setdefault((t[0], " ".join(t[1])), []).append(cpu)
            for (mnem, ops), cpus in groups.items():
                classes = probe_classes(fmt, op, cpus[0], ops.split(" ")) if ops else ""
                print("%s\t0x%03x\t%s\t%s\t%s\t%s" % (fmt, op, mnem, ",".join(cpus), ops, classes))

if __name__ == "__main__":
    main()
