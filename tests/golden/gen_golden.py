#!/usr/bin/env python3
"""Generate golden decoder/disassembler test vectors for gfx9 from llvm-mc-15.

Usage:  python3 tests/golden/gen_golden.py [--llvm-mc llvm-mc-15] [--targets gfx900,gfx906,gfx908,gfx90a]
        python3 tests/golden/gen_golden.py --llvm-mc llvm-mc-19 --targets gfx940,gfx942

Output (relative to this file's directory):
  <target>/<FORMAT>.txt   "<words>\t<llvm text>[\t<canonical words>]" per line
  <target>/invalid.txt    words llvm-mc rejects ("invalid instruction encoding")
  <target>/opcodes.tsv    format, opcode, mnemonic of every decodable opcode
  <target>/stats.txt      summary counts

Everything is deterministic: no set iteration, fixed-seed random.Random instances.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = ["gfx900", "gfx906", "gfx908", "gfx90a"]
LLVM_MC = "llvm-mc-15"
# MI300's targets follow LLVM 19: LLVM 15 prints gfx940's matrix ops wrongly and has no gfx942.
#   gen_golden.py --llvm-mc llvm-mc-19 --targets gfx940,gfx942
LLVM_19_TARGETS = ["gfx940", "gfx942"]
CHUNK = 20000

# --------------------------------------------------------------------------------------------
# llvm-mc driver
# --------------------------------------------------------------------------------------------

# s_mov_b32 s0, 0xdeadbeef : used to separate atomic blocks in llvm-mc's output.
SENTINEL = (0xBE8000FF, 0xDEADBEEF)


def words_to_bytes_str(words):
    bs = []
    for w in words:
        for i in range(4):
            bs.append("0x%02x" % ((w >> (8 * i)) & 0xFF))
    return "[" + ",".join(bs) + "]"


def hexwords(words):
    return " ".join("%08x" % w for w in words)


ENC_RE = re.compile(r"; encoding: \[([^\]]*)\]\s*$")
DIAG_RE = re.compile(r"^[^:\n]*:(\d+):(\d+): (warning|error): (.*)$")


def parse_enc(s):
    bs = [int(x, 16) for x in s.split(",") if x.strip()]
    ws = []
    for i in range(0, len(bs) - len(bs) % 4, 4):
        ws.append(bs[i] | bs[i + 1] << 8 | bs[i + 2] << 16 | bs[i + 3] << 24)
    if len(bs) % 4:
        ws.append(-1)  # not a whole number of dwords: flagged
    return tuple(ws)


def run_llvm_chunk(target, blocks):
    """blocks: list of word tuples. Returns list of results, one per block:
    ('ok', text, canon_words) | ('fail', col) | ('multi', [(text, canon)...], diags)"""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        path = f.name
        sent = words_to_bytes_str(SENTINEL)
        for b in blocks:
            f.write(words_to_bytes_str(b) + "\n")
            f.write(sent + "\n")
    try:
        p = subprocess.run(
            [LLVM_MC, "-disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target,
             "-show-encoding", path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        os.unlink(path)
    crashed = p.returncode < 0 or "Stack dump" in p.stderr
    diags = {}
    for line in p.stderr.splitlines():
        m = DIAG_RE.match(line)
        if m:
            ln = int(m.group(1))
            diags.setdefault(ln, []).append((int(m.group(2)), m.group(4)))
    groups = [[]]
    for line in p.stdout.splitlines():
        if not line.startswith("\t") or line.strip() in (".text",):
            continue
        m = ENC_RE.search(line)
        if not m and crashed:
            break  # the last line, cut short where llvm-mc aborted
        if not m:
            raise RuntimeError("unparsed llvm-mc line: %r" % line)
        text = line[: m.start()].strip()
        text = re.sub(r"\s+$", "", text)
        enc = parse_enc(m.group(1))
        if enc == SENTINEL and text == "s_mov_b32 s0, 0xdeadbeef":
            groups.append([])
        else:
            groups[-1].append((text, enc))
    if crashed:
        return None, len(groups) - 1
    if len(groups) != len(blocks) + 1 or groups[-1]:
        raise RuntimeError("sentinel mismatch: %d groups for %d blocks" % (len(groups), len(blocks)))
    res = []
    for i, b in enumerate(blocks):
        g = groups[i]
        d = diags.get(2 * i + 1, [])
        sd = diags.get(2 * i + 2, [])
        if sd:
            raise RuntimeError("sentinel diagnosed: %r" % sd)
        if len(g) == 1 and not d:
            res.append(("ok", g[0][0], g[0][1]))
        elif not g and d:
            res.append(("fail", d[0][0], d[0][1]))
        else:
            res.append(("multi", g, d))
    return res, len(blocks)


CRASHES = []


def run_llvm_safe(target, blocks):
    """Like run_llvm_chunk, but isolates blocks that crash llvm-mc (result ('crash',))."""
    out = []
    while blocks:
        res, k = run_llvm_chunk(target, blocks)
        if res is not None:
            out.extend(res)
            return out
        # blocks[:k] were fully printed before the crash; blocks[k] is the suspect.
        if k > 0:
            res0, _ = run_llvm_chunk(target, blocks[:k])
            if res0 is None:
                out.extend(run_llvm_bisect(target, blocks[:k]))
            else:
                out.extend(res0)
        r1, _ = run_llvm_chunk(target, blocks[k:k + 1])
        if r1 is None:
            CRASHES.append((target, blocks[k]))
            out.append(("crash",))
        else:
            out.extend(r1)
        blocks = blocks[k + 1:]
    return out


def run_llvm_bisect(target, blocks):
    res, _ = run_llvm_chunk(target, blocks)
    if res is not None:
        return res
    if len(blocks) == 1:
        CRASHES.append((target, blocks[0]))
        return [("crash",)]
    h = len(blocks) // 2
    return run_llvm_bisect(target, blocks[:h]) + run_llvm_bisect(target, blocks[h:])


def run_llvm(target, blocks):
    out = []
    for i in range(0, len(blocks), CHUNK):
        out.extend(run_llvm_safe(target, blocks[i:i + CHUNK]))
    return out


# --------------------------------------------------------------------------------------------
# Encoding descriptions
# --------------------------------------------------------------------------------------------

class Fmt:
    def __init__(self, name, ndw, fixed, fields, opfield, opmax, optional):
        self.name = name
        self.ndw = ndw
        self.fixed = fixed          # list of (hi, lo, value)
        self.fields = fields        # name -> (hi, lo) in the 32*ndw-bit instruction
        self.opfield = opfield
        self.opmax = opmax          # sweep op in range(opmax) (None: no opcode)
        self.optional = optional    # operand fields whose use is detected by round-trip

    def encode(self, vals):
        x = 0
        for hi, lo, v in self.fixed:
            x |= (v & ((1 << (hi - lo + 1)) - 1)) << lo
        for k, v in vals.items():
            if k == "lit":
                continue
            hi, lo = self.fields[k]
            m = (1 << (hi - lo + 1)) - 1
            x &= ~(m << lo)
            x |= (v & m) << lo
        ws = [(x >> (32 * i)) & 0xFFFFFFFF for i in range(self.ndw)]
        if vals.get("lit") is not None:
            ws.append(vals["lit"] & 0xFFFFFFFF)
        return tuple(ws)


def F(name, ndw, fixed, fields, opfield, opmax, optional):
    return Fmt(name, ndw, fixed, fields, opfield, opmax, optional)


FORMATS = [
    F("SOP2", 1, [(31, 30, 2)], {"op": (29, 23), "sdst": (22, 16), "ssrc1": (15, 8), "ssrc0": (7, 0)},
      "op", 0x60, ["sdst", "ssrc0", "ssrc1"]),
    F("SOPK", 1, [(31, 28, 0xB)], {"op": (27, 23), "sdst": (22, 16), "simm16": (15, 0)},
      "op", 0x1D, ["sdst", "simm16"]),
    F("SOP1", 1, [(31, 23, 0x17D)], {"sdst": (22, 16), "op": (15, 8), "ssrc0": (7, 0)},
      "op", 0x100, ["sdst", "ssrc0"]),
    F("SOPC", 1, [(31, 23, 0x17E)], {"op": (22, 16), "ssrc1": (15, 8), "ssrc0": (7, 0)},
      "op", 0x80, ["ssrc0", "ssrc1"]),
    F("SOPP", 1, [(31, 23, 0x17F)], {"op": (22, 16), "simm16": (15, 0)}, "op", 0x80, ["simm16"]),
    F("SMEM", 2, [(31, 26, 0x30)], {"op": (25, 18), "imm": (17, 17), "glc": (16, 16), "nv": (15, 15),
                                    "soe": (14, 14), "r13": (13, 13), "sdata": (12, 6), "sbase": (5, 0),
                                    "offset": (52, 32), "offlo": (38, 32), "soffset": (63, 57)},
      "op", 0x100, ["sdata", "sbase", "offset"]),
    F("VOP2", 1, [(31, 31, 0)], {"op": (30, 25), "vdst": (24, 17), "vsrc1": (16, 9), "src0": (8, 0)},
      "op", 0x3E, ["vdst", "src0", "vsrc1"]),
    F("VOP1", 1, [(31, 25, 0x3F)], {"vdst": (24, 17), "op": (16, 9), "src0": (8, 0)},
      "op", 0x100, ["vdst", "src0"]),
    F("VOPC", 1, [(31, 25, 0x3E)], {"op": (24, 17), "vsrc1": (16, 9), "src0": (8, 0)},
      "op", 0x100, ["src0", "vsrc1"]),
    F("VOP3", 2, [(31, 26, 0x34)], {"op": (25, 16), "clamp": (15, 15), "op_sel": (14, 11), "abs": (10, 8),
                                    "sdst": (14, 8), "vdst": (7, 0), "src0": (40, 32), "src1": (49, 41),
                                    "src2": (58, 50), "omod": (60, 59), "neg": (63, 61)},
      "op", 0x380, ["vdst", "src0", "src1", "src2"]),
    F("VOP3P", 2, [(31, 23, 0x1A7)], {"op": (22, 16), "clamp": (15, 15), "op_sel_hi2": (14, 14),
                                      "op_sel": (13, 11), "neg_hi": (10, 8), "vdst": (7, 0),
                                      "src0": (40, 32), "src1": (49, 41), "src2": (58, 50),
                                      "op_sel_hi": (60, 59), "neg_lo": (63, 61)},
      "op", 0x80, ["vdst", "src0", "src1", "src2"]),
    F("VINTRP", 1, [(31, 26, 0x35)], {"vdst": (25, 18), "op": (17, 16), "attr": (15, 10), "chan": (9, 8),
                                      "vsrc": (7, 0)},
      "op", 4, ["vdst", "vsrc", "attr", "chan"]),
    F("DS", 2, [(31, 26, 0x36)], {"r25": (25, 25), "op": (24, 17), "gds": (16, 16), "offset1": (15, 8),
                                  "offset0": (7, 0), "offset": (15, 0), "addr": (39, 32), "data0": (47, 40),
                                  "data1": (55, 48), "vdst": (63, 56)},
      "op", 0x100, ["addr", "data0", "data1", "vdst", "offset0", "offset1"]),
    F("MUBUF", 2, [(31, 26, 0x38)], {"r25": (25, 25), "op": (24, 18), "slc": (17, 17), "lds": (16, 16),
                                     "r15": (15, 15), "glc": (14, 14), "idxen": (13, 13), "offen": (12, 12),
                                     "offset": (11, 0), "vaddr": (39, 32), "vdata": (47, 40),
                                     "srsrc": (52, 48), "tfe": (55, 55), "soffset": (63, 56)},
      "op", 0x80, ["vaddr", "vdata", "srsrc", "soffset"]),
    F("MTBUF", 2, [(31, 26, 0x3A)], {"nfmt": (25, 23), "dfmt": (22, 19), "op": (18, 15), "glc": (14, 14),
                                     "idxen": (13, 13), "offen": (12, 12), "offset": (11, 0),
                                     "vaddr": (39, 32), "vdata": (47, 40), "srsrc": (52, 48),
                                     "slc": (54, 54), "tfe": (55, 55), "soffset": (63, 56)},
      "op", 0x10, ["vaddr", "vdata", "srsrc", "soffset"]),
    F("MIMG", 2, [(31, 26, 0x3C)], {"slc": (25, 25), "op": (24, 18), "lwe": (17, 17), "tfe": (16, 16),
                                    "r128": (15, 15), "da": (14, 14), "glc": (13, 13), "unorm": (12, 12),
                                    "dmask": (11, 8), "vaddr": (39, 32), "vdata": (47, 40),
                                    "srsrc": (52, 48), "ssamp": (57, 53), "d16": (63, 63)},
      "op", 0x80, ["vaddr", "vdata", "srsrc", "ssamp"]),
]
for _seg, _nm in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
    FORMATS.append(F(_nm, 2, [(31, 26, 0x37), (15, 14, _seg)],
                     {"op": (24, 18), "slc": (17, 17), "glc": (16, 16), "lds": (13, 13), "offset": (12, 0),
                      "addr": (39, 32), "data": (47, 40), "saddr": (54, 48), "nv": (55, 55), "vdst": (63, 56)},
                     "op", 0x80, ["addr", "data", "vdst"]))
FORMATS.append(F("EXP", 2, [(31, 26, 0x31)], {"vm": (12, 12), "done": (11, 11), "compr": (10, 10),
                                              "tgt": (9, 4), "en": (3, 0), "vsrc0": (39, 32),
                                              "vsrc1": (47, 40), "vsrc2": (55, 48), "vsrc3": (63, 56)},
                 None, None, []))
FMT = {f.name: f for f in FORMATS}

# Base operand values (non-zero, even so 64-bit SGPR operands stay aligned).
BASE = {
    "SOP2": {"sdst": 4, "ssrc0": 6, "ssrc1": 8},
    "SOPK": {"sdst": 4, "simm16": 0x1234},
    "SOP1": {"sdst": 4, "ssrc0": 6},
    "SOPC": {"ssrc0": 6, "ssrc1": 8},
    "SOPP": {"simm16": 3},
    "SMEM": {"imm": 1, "sdata": 8, "sbase": 2, "offset": 0x10},
    "VOP2": {"vdst": 4, "src0": 262, "vsrc1": 8},
    "VOP1": {"vdst": 4, "src0": 262},
    "VOPC": {"src0": 262, "vsrc1": 8},
    "VOP3": {"vdst": 4, "src0": 262, "src1": 264, "src2": 266},
    "VOP3P": {"vdst": 4, "src0": 262, "src1": 264, "src2": 266, "op_sel_hi": 3, "op_sel_hi2": 1},
    "VINTRP": {"vdst": 4, "vsrc": 6, "attr": 3, "chan": 1},
    "DS": {"addr": 2, "data0": 4, "data1": 6, "vdst": 8, "offset0": 0x10, "offset1": 0x20},
    "MUBUF": {"offen": 1, "vaddr": 2, "vdata": 4, "srsrc": 2, "soffset": 6},
    "MTBUF": {"offen": 1, "vaddr": 2, "vdata": 4, "srsrc": 2, "soffset": 6, "dfmt": 4, "nfmt": 0},
    "MIMG": {"dmask": 0xF, "vaddr": 2, "vdata": 4, "srsrc": 2, "ssamp": 4},
    "FLAT": {"addr": 2, "data": 4, "vdst": 6, "saddr": 0},
    "SCRATCH": {"addr": 2, "data": 4, "vdst": 6, "saddr": 0x7F},
    "GLOBAL": {"addr": 2, "data": 4, "vdst": 6, "saddr": 0x7F},
}

# --------------------------------------------------------------------------------------------
# Operand pools
# --------------------------------------------------------------------------------------------

SPECIAL = [106, 107, 126, 127, 124, 102, 103, 104, 105, 108, 109, 115, 122, 123,
           235, 236, 237, 238, 239, 251, 252, 253, 254]
INLINE_INT = [128, 129, 192, 193, 208, 130, 200]
INLINE_FP = [240, 241, 242, 243, 244, 245, 246, 247, 248]
SGPRS = [0, 1, 101, 100, 51]
SRC_POOL = SPECIAL + INLINE_INT + INLINE_FP + SGPRS          # 8-bit-encodable sources
VSRC_POOL = SRC_POOL + [256, 257, 511, 383]                  # plus VGPRs
LITERALS = [0x12345678, 0x3F800000, 0x00000001, 0xFFFFFFF0, 0xFFFF1234, 0x3C00, 0x3FF00000,
            0x3E22F983, 0xC0800000, 0x00000040, 0x00000041, 0x80000000, 0x3118, 0xBF000000,
            0xFFFFFFFF, 0x0000FFFF, 0x40490FDB]
SDST_POOL = [0, 1, 101, 106, 107, 124, 126, 127, 102, 104, 108, 123]


def rot(pool, i, k):
    """k items of pool, starting at i*k (wrapping): deterministic rotation."""
    n = len(pool)
    return [pool[(i * k + j) % n] for j in range(min(k, n))]


# --------------------------------------------------------------------------------------------
# Phase 1: opcode sweep
# --------------------------------------------------------------------------------------------

def subsets(opt):
    """All subsets of opt as lists, largest first, deterministic order."""
    n = len(opt)
    masks = sorted(range(1 << n), key=lambda m: (-bin(m).count("1"), m))
    return [[opt[i] for i in range(n) if m >> i & 1] for m in masks]


def base_vals(fmt, op, used, lit=None):
    v = {}
    if fmt.opfield:
        v[fmt.opfield] = op
    for k, x in BASE.get(fmt.name, {}).items():
        if k in fmt.optional and k not in used:
            x = 0
        v[k] = x
    if lit is not None:
        v["lit"] = lit
    return v


def strip_suffix(mn):
    for s in ("_e32", "_e64", "_sdwa", "_dpp"):
        if mn.endswith(s):
            return mn[: -len(s)]
    return mn


def sweep(target, log):
    """Returns info[fmt][op] = dict(base=vals, text, mnemonic, lit) and invalid word list."""
    blocks, meta = [], []
    for fmt in FORMATS:
        if fmt.opmax is None:
            continue
        subs = subsets(fmt.optional)
        for op in range(fmt.opmax):
            for s in subs:
                vals = base_vals(fmt, op, s)
                blocks.append(fmt.encode(vals))
                meta.append((fmt.name, op, len(s), vals))
    res = run_llvm(target, blocks)
    best = {}
    decoded_any = {}
    for (fn, op, nused, vals), b, r in zip(meta, blocks, res):
        if r[0] != "ok":
            continue
        rt = r[2] == b
        key = (fn, op)
        decoded_any.setdefault(key, (vals, r))
        cur = best.get(key)
        if rt and (cur is None or not cur[2]):
            best[key] = (vals, r, True)
        elif cur is None:
            pass
    # retry failures with a trailing literal (madmk/madak, s_setreg_imm32, ...)
    blocks2, meta2 = [], []
    for fmt in FORMATS:
        if fmt.opmax is None or fmt.name not in ("SOP2", "SOPK", "SOP1", "SOPC", "VOP2", "VOP1", "VOPC"):
            continue
        for op in range(fmt.opmax):
            if (fmt.name, op) in decoded_any:
                continue
            for s in subsets(fmt.optional):
                vals = base_vals(fmt, op, s, lit=0x12345678)
                blocks2.append(fmt.encode(vals))
                meta2.append((fmt.name, op, len(s), vals))
    for (fn, op, nused, vals), b, r in zip(meta2, blocks2, run_llvm(target, blocks2)):
        if r[0] != "ok":
            continue
        key = (fn, op)
        decoded_any.setdefault(key, (vals, r))
        if r[2] == b and (key not in best or not best[key][2]):
            best[key] = (vals, r, True)
    info = {}
    invalid = []
    for fmt in FORMATS:
        if fmt.opmax is None:
            continue
        info[fmt.name] = {}
        for op in range(fmt.opmax):
            key = (fmt.name, op)
            if key in best:
                vals, r, _ = best[key]
            elif key in decoded_any:
                vals, r = decoded_any[key]
            else:
                invalid.append((fmt.name, fmt.encode(base_vals(fmt, op, fmt.optional))))
                continue
            mn = strip_suffix(r[1].split()[0])
            info[fmt.name][op] = {"base": vals, "text": r[1], "mn": mn, "lit": "lit" in vals}
    log("  sweep: %d blocks, %d decodable opcodes" % (len(blocks) + len(blocks2),
                                                      sum(len(v) for v in info.values())))
    return info, invalid


# --------------------------------------------------------------------------------------------
# Phase 2: variants per opcode
# --------------------------------------------------------------------------------------------

def with_(base, **kw):
    v = dict(base)
    v.update(kw)
    return v


def src_variant(base, field, val, lit_ok):
    """Set a source field, appending a literal when the value is ('lit', x)."""
    if isinstance(val, tuple):
        if not lit_ok:
            return None
        return with_(base, **{field: 255, "lit": val[1]})
    return with_(base, **{field: val})


def gen_sop(fmt, op, e, i):
    b = e["base"]
    out = [b]
    has_lit = e["lit"]
    srcs = [f for f in ("ssrc0", "ssrc1") if f in fmt.fields and b.get(f, 0)]
    dst = "sdst" in fmt.fields and b.get("sdst", 0)
    # odd / high registers
    for r in (1, 3, 101, 100):
        v = dict(b)
        if dst:
            v["sdst"] = r
        for f in srcs:
            v[f] = r + 2 if r < 100 else r
        out.append(v)
    if dst:
        for d in rot(SDST_POOL, i, 4):
            out.append(with_(b, sdst=d))
    for j, f in enumerate(srcs):
        for s in rot(SRC_POOL, i * 2 + j, 9):
            out.append(with_(b, **{f: s}))
        if not has_lit:
            for L in rot(LITERALS, i * 2 + j, 4):
                out.append(with_(b, **{f: 255, "lit": L}))
    if has_lit:
        for L in rot(LITERALS, i, 5):
            out.append(with_(b, lit=L))
    return out


WAITCNTS = [0x0000, 0x0F7F, 0x0070, 0x0F0F, 0x0F70, 0x007F, 0xC07F, 0x4F7F, 0x8F7F, 0xCF7F, 0x3F7F, 0x0C7F,
            0x0F00, 0x0A53, 0x0123, 0xC000, 0xFFFF, 0x1234, 0x3000, 0x307F, 0x0F7E, 0x0F1F]
SENDMSG = [0x0001, 0x0002, 0x0003, 0x0012, 0x0022, 0x0032, 0x0112, 0x0222, 0x0322, 0x0009, 0x000F,
           0x0004, 0x0005, 0x0006, 0x0007, 0x0008, 0x000A, 0x0013, 0x0023, 0x0033, 0x0000, 0x0010,
           0x0042, 0x0122, 0x0B02, 0x0F0F, 0x000B, 0x001A]
SIMM16_GENERIC = [0, 1, 2, 3, 7, 15, 0x10, 0x3F, 0x80, 0x1234, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF, 0xFFF0]
HWREGS = []
for _id in range(0, 32):
    HWREGS.append((31 << 11) | _id)
    HWREGS.append(((_id % 32) << 11) | (((_id * 7) % 32) << 6) | _id)
HWREGS += [(0 << 11) | (0 << 6) | 1, (3 << 11) | (4 << 6) | 1, (15 << 11) | (16 << 6) | 6, 0xFFFF, 0x003F]


def gen_sopp(fmt, op, e, i):
    b = e["base"]
    mn = e["mn"]
    vals = list(SIMM16_GENERIC)
    if mn == "s_waitcnt":
        vals += WAITCNTS
    elif mn in ("s_sendmsg", "s_sendmsghalt"):
        vals += SENDMSG
    elif mn == "s_setprio":
        vals += [0, 1, 2, 3]
    elif mn == "s_nop" or mn == "s_sleep":
        vals += list(range(16))
    elif "branch" in mn:
        vals += [0xFFFD, 0x0004, 0xFFC0, 0x0100]
    elif mn == "s_set_gpr_idx_mode":
        vals += list(range(16))
    out = []
    seen = []
    for s in vals:
        if s not in seen:
            seen.append(s)
            out.append(with_(b, simm16=s))
    return out


def gen_sopk(fmt, op, e, i):
    b = e["base"]
    mn = e["mn"]
    out = gen_sop(fmt, op, e, i)
    vals = list(SIMM16_GENERIC)
    if "reg" in mn:
        vals = HWREGS
    for s in vals:
        out.append(with_(b, simm16=s))
    return out


def gen_smem(fmt, op, e, i):
    b = e["base"]
    out = [b]
    # register variants
    for sd in (0, 1, 3, 4, 101, 100, 96, 106, 124, 126, 108, 102):
        if b.get("sdata"):
            out.append(with_(b, sdata=sd))
    for sb in (0, 1, 3, 49, 50, 53, 54):
        if b.get("sbase"):
            out.append(with_(b, sbase=sb))
    # offsets
    for off in (0, 4, 0xFF, 0xFFFFF, 0x100000, 0x1FFFFF, 0x1FFFFC, 0x12345):
        out.append(with_(b, offset=off))
    # soffset (imm=0: SGPR in offset[6:0])
    for so in (0, 5, 101, 106, 124, 126, 108, 102, 127):
        out.append(with_(b, imm=0, offset=so))
    # soe forms
    out.append(with_(b, soe=1, imm=0, offset=0, soffset=5))
    out.append(with_(b, soe=1, imm=1, offset=0x20, soffset=5))
    out.append(with_(b, soe=1, imm=1, offset=0x20, soffset=124))
    out.append(with_(b, soe=1, imm=0, offset=0, soffset=106))
    # cache bits
    out.append(with_(b, glc=1))
    out.append(with_(b, nv=1))
    out.append(with_(b, glc=1, imm=0, offset=7))
    out.append(with_(b, r13=1))
    out.append(with_(b, imm=0, offset=0x3FF))   # junk above the SGPR index
    return out


def gen_vop12c(fmt, op, e, i, target):
    b = e["base"]
    name = fmt.name
    out = [b]
    has_lit = e["lit"]
    # registers: odd, high
    for regs in ((1, 257, 3), (255, 511, 255), (0, 256, 0), (3, 101, 5), (6, 0, 9)):
        v = dict(b)
        if "vdst" in v and b.get("vdst"):
            v["vdst"] = regs[0]
        if b.get("src0"):
            v["src0"] = regs[1]
        if "vsrc1" in v and b.get("vsrc1"):
            v["vsrc1"] = regs[2]
        out.append(v)
    if b.get("src0"):
        for s in rot(SRC_POOL, i, 12):
            out.append(with_(b, src0=s))
        if not has_lit:
            for L in rot(LITERALS, i, 4):
                out.append(with_(b, src0=255, lit=L))
    if has_lit:
        for L in rot(LITERALS, i, 4):
            out.append(with_(b, lit=L))
        return out
    if not b.get("src0"):
        return out
    # SDWA
    sd = {"src0": 0xF9}
    vs = b.get("vsrc1", 0)
    sdwa_base = dict(b)
    sdwa_base.update(sd)

    def sdwa(src=6, dst_sel=6, dst_unused=2 if name != "VOPC" else 0, clamp=0, omod=0, s0sel=6, s0sext=0,
             s0neg=0, s0abs=0, s0s=0, s1sel=None, s1sext=0, s1neg=0, s1abs=0, s1s=0, sdst=None, vsrc1=None):
        if s1sel is None:
            s1sel = 0 if name == "VOP1" else 6
        if name == "VOPC":
            lo = 0 if sdst is None else (0x80 | sdst) << 8
        else:
            lo = dst_sel << 8 | dst_unused << 11 | clamp << 13 | omod << 14
        if name == "VOPC" and clamp:
            lo |= clamp << 13
        w = (src & 0xFF) | lo | s0sel << 16 | s0sext << 19 | s0neg << 20 | s0abs << 21 | s0s << 23 \
            | s1sel << 24 | s1sext << 27 | s1neg << 28 | s1abs << 29 | s1s << 31
        v = dict(sdwa_base)
        if vsrc1 is not None and "vsrc1" in v:
            v["vsrc1"] = vsrc1
        v["lit"] = w
        return v
    binary = name in ("VOP2", "VOPC")
    out.append(sdwa())
    if name != "VOPC":
        for ds in rot(list(range(7)), i, 2):
            out.append(sdwa(dst_sel=ds))
        out.append(sdwa(dst_sel=0, dst_unused=i % 3))
        out.append(sdwa(dst_unused=1, dst_sel=4))
        out.append(sdwa(omod=1 + i % 3))
        out.append(sdwa(dst_unused=3))
    out.append(sdwa(clamp=1))
    for ss in rot(list(range(7)), i, 2):
        out.append(sdwa(s0sel=ss))
    out.append(sdwa(s0sel=i % 7, s0sext=1))
    out.append(sdwa(s0neg=1))
    out.append(sdwa(s0abs=1))
    out.append(sdwa(s0neg=1, s0abs=1, s0sel=5))
    out.append(sdwa(src=rot([0, 1, 101, 106, 126, 124, 108], i, 1)[0], s0s=1))
    out.append(sdwa(src=rot([0x80, 0xC1, 0xF0, 0xF2, 0xF8, 0x81, 0xEB, 0xFD], i, 1)[0], s0s=1))
    out.append(sdwa(src=255))
    if name == "VOP1" and i % 10 == 0:
        out.append(sdwa(s1sel=6))  # src1 bits set on a VOP1: llvm-mc 15 rejects
    if i % 25 == 0:
        out.append(sdwa(s0sel=7))
    if binary:
        for ss in rot(list(range(7)), i + 3, 2):
            out.append(sdwa(s1sel=ss))
        out.append(sdwa(s1sel=(i + 1) % 7, s1sext=1))
        out.append(sdwa(s1neg=1))
        out.append(sdwa(s1abs=1, s0neg=1))
        out.append(sdwa(vsrc1=rot([0, 1, 101, 106, 126, 124, 108], i, 1)[0], s1s=1))
        out.append(sdwa(vsrc1=rot([0x80, 0xC1, 0xF0, 0xF7, 0xF8], i, 1)[0], s1s=1))
    if name == "VOPC":
        for s in rot([0, 4, 1, 100, 106, 126, 108, 102], i, 3):
            out.append(sdwa(sdst=s))
        out.append(sdwa(sdst=4, clamp=1))
    # DPP
    def dpp(ctrl=0xE4, bound=0, s0neg=0, s0abs=0, s1neg=0, s1abs=0, bank=0xF, row=0xF, src=6):
        w = (src & 0xFF) | ctrl << 8 | bound << 19 | s0neg << 20 | s0abs << 21 | s1neg << 22 | s1abs << 23 \
            | bank << 24 | row << 28
        v = dict(b)
        v["src0"] = 0xFA
        v["lit"] = w
        return v
    out.append(dpp())
    for c in rot(DPP_CTRLS, i, 5):
        out.append(dpp(ctrl=c))
    out.append(dpp(bound=1, ctrl=0x111))
    out.append(dpp(bank=rot(list(range(16)), i, 1)[0], row=rot(list(range(16)), i + 5, 1)[0]))
    out.append(dpp(s0neg=1))
    out.append(dpp(s0abs=1))
    if binary:
        out.append(dpp(s1neg=1))
        out.append(dpp(s1abs=1, s0neg=1))
    out.append(dpp(src=255, ctrl=0x1B))
    out.append(dpp(ctrl=rot(DPP_BAD, i, 1)[0]))
    if target in DPP64_TARGETS:
        # row_newbcast:N (gfx90a's 64-bit DPP broadcast), reserved elsewhere on gfx9
        for c in rot([0x150 + k for k in range(16)], i, 3):
            out.append(dpp(ctrl=c))
    return out


# Targets with gfx90a's 64-bit DPP (FeatureGFX90AInsts).
DPP64_TARGETS = ("gfx90a", "gfx940", "gfx941", "gfx942")

DPP_CTRLS = ([0x00, 0x1B, 0x39, 0x4E, 0x93, 0xFF, 0x55, 0xAA, 0x27, 0xD8]
             + [0x100 + k for k in range(1, 16)] + [0x110 + k for k in range(1, 16)]
             + [0x120 + k for k in range(1, 16)] + [0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143])
DPP_BAD = [0x100, 0x110, 0x120, 0x131, 0x135, 0x139, 0x13D, 0x144, 0x150, 0x1FF, 0x133, 0x160]

VOP3_SRC_POOL = VSRC_POOL


def gen_vop3(fmt, op, e, i):
    b = e["base"]
    out = [b]
    srcs = [f for f in ("src0", "src1", "src2") if b.get(f)]
    dst = bool(b.get("vdst"))
    for regs in ((1, 257, 259, 261), (255, 511, 510, 509), (0, 256, 256, 256), (3, 1, 3, 5),
                 (7, 101, 100, 256 + 101)):
        v = dict(b)
        if dst:
            v["vdst"] = regs[0]
        for j, f in enumerate(srcs):
            v[f] = regs[1 + j]
        out.append(v)
    for j, f in enumerate(srcs):
        for s in rot(VOP3_SRC_POOL, i * 3 + j, 6):
            out.append(with_(b, **{f: s}))
    if dst:
        for d in rot([106, 126, 124, 108, 101, 1], i, 1):
            out.append(with_(b, vdst=d))
    # modifiers
    for j in range(len(srcs)):
        out.append(with_(b, neg=1 << j))
        out.append(with_(b, abs=1 << j))
    if srcs:
        out.append(with_(b, neg=7, abs=7))
    out.append(with_(b, clamp=1))
    out.append(with_(b, omod=1 + i % 3))
    out.append(with_(b, omod=3, clamp=1))
    for k in range(4):
        out.append(with_(b, op_sel=1 << k))
    out.append(with_(b, op_sel=0xF))
    out.append(with_(b, sdst=rot([106, 0, 126, 1, 100, 124, 108], i, 1)[0]))
    return out


def gen_vop3p(fmt, op, e, i):
    b = e["base"]
    if e["mn"].startswith(("v_mfma", "v_accvgpr", "v_mad_mix", "v_fma_mix")):
        # op_sel_hi bits are acc/abid (MAI) or default to 0 (mix): use a zero base
        b = with_(b, op_sel_hi=0, op_sel_hi2=0)
    out = [b]
    srcs = [f for f in ("src0", "src1", "src2") if b.get(f)]
    for regs in ((1, 257, 259, 261), (255, 511, 510, 509), (0, 256, 256, 256), (3, 1, 3, 5),
                 (7, 101, 100, 256 + 101)):
        v = dict(b)
        if b.get("vdst"):
            v["vdst"] = regs[0]
        for j, f in enumerate(srcs):
            v[f] = regs[1 + j]
        out.append(v)
    for j, f in enumerate(srcs):
        for s in rot(VOP3_SRC_POOL, i * 3 + j, 5):
            out.append(with_(b, **{f: s}))
    for k in range(3):
        out.append(with_(b, op_sel=1 << k))
        out.append(with_(b, neg_lo=1 << k))
        out.append(with_(b, neg_hi=1 << k))
    out.append(with_(b, op_sel_hi=0, op_sel_hi2=0))
    out.append(with_(b, op_sel_hi=1, op_sel_hi2=0))
    out.append(with_(b, op_sel_hi=2, op_sel_hi2=1))
    out.append(with_(b, op_sel_hi=0, op_sel_hi2=1))
    out.append(with_(b, op_sel=7, neg_lo=7, neg_hi=7))
    out.append(with_(b, clamp=1))
    out.append(with_(b, op_sel=5, op_sel_hi=1, neg_hi=2, clamp=1))
    if e["mn"].startswith(("v_mfma", "v_accvgpr")):
        for k in range(8):
            out.append(with_(b, neg_hi=k, op_sel=k, neg_lo=7 - k))
        out.append(with_(b, op_sel_hi=3, op_sel_hi2=1, clamp=1))
    return out


def gen_vintrp(fmt, op, e, i):
    b = e["base"]
    out = [b]
    for attr in range(64):
        out.append(with_(b, attr=attr, chan=attr % 4))
    for ch in range(4):
        out.append(with_(b, chan=ch))
    for vs in (0, 1, 2, 3, 255):
        out.append(with_(b, vsrc=vs))
    for vd in (0, 255, 1):
        out.append(with_(b, vdst=vd))
    return out


SWIZZLES = [0x8000 | 0xE4, 0x8000 | 0x1B, 0x8000 | 0x00, 0x8000 | 0xFF, 0x801F, 0x0041, 0x041F, 0x101F,
            0x201F, 0x401F, 0x7C00, 0x001F, 0x003F, 0x0000, 0x03E0, 0x0020 | 0x1E, 0x0C1F, 0x1C1F, 0x3C1F,
            0x041F | 0x20, 0x01E0, 0x0060 | 0x1C, 0x00A0 | 0x18, 0x7FFF, 0x0400 | 0x1F, 0x0800 | 0x1F,
            0x1000 | 0x1F, 0x2000 | 0x1F, 0x4000 | 0x1F, 0x0001 | 0x0C00, 0x1E1F, 0x0F1F, 0x1F1F,
            0x0001, 0x001E, 0x0003 | 0x0020]


def gen_ds(fmt, op, e, i):
    b = e["base"]
    mn = e["mn"]
    out = [b]
    two = "2" in mn and ("read2" in mn or "write2" in mn or "wrxchg2" in mn)
    if two:
        for o0, o1 in ((0, 0), (1, 0), (0, 1), (255, 255), (0x7F, 0x80), (3, 200)):
            out.append(with_(b, offset0=o0, offset1=o1))
    else:
        for off in (0, 4, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1234):
            out.append(with_(b, offset=off))
    if mn == "ds_swizzle_b32":
        for s in SWIZZLES:
            out.append(with_(b, offset=s))
    out.append(with_(b, gds=1))
    out.append(with_(b, gds=1, offset=0))
    out.append(with_(b, r25=1))
    for regs in ((1, 3, 5, 7), (255, 255, 255, 255), (0, 0, 0, 0), (254, 253, 252, 251)):
        v = dict(b)
        for f, r in zip(("addr", "data0", "data1", "vdst"), regs):
            if b.get(f):
                v[f] = r
        out.append(v)
    return out


SOFFS = [0x80, 0x81, 0xC1, 0xF0, 0xF8, 124, 106, 107, 126, 108, 101, 0, 1, 102, 104, 235, 253, 255, 0xFB]


def gen_mubuf(fmt, op, e, i, mtbuf=False):
    b = e["base"]
    out = [b]
    vb = b.get("vaddr", 0)
    for offen, idxen in ((0, 0), (1, 0), (0, 1), (1, 1)):
        out.append(with_(b, offen=offen, idxen=idxen))
    for off in (0, 1, 0xFFF, 0x800, 0x123):
        out.append(with_(b, offset=off, offen=0))
    out.append(with_(b, offset=0x10, offen=1))
    for k in ("glc", "slc", "tfe"):
        out.append(with_(b, **{k: 1}))
    if not mtbuf:
        out.append(with_(b, lds=1))
        out.append(with_(b, lds=1, offen=0))
        out.append(with_(b, r15=1))
        out.append(with_(b, r25=1))
    out.append(with_(b, glc=1, slc=1, tfe=1, idxen=1))
    for so in rot(SOFFS, i, 6):
        out.append(with_(b, soffset=so))
    for regs in ((1, 3, 1), (255, 255, 31), (0, 0, 0), (254, 253, 27)):
        v = dict(b)
        for f, r in zip(("vaddr", "vdata", "srsrc"), regs):
            if b.get(f):
                v[f] = r
        out.append(v)
    if mtbuf:
        for dfmt in range(16):
            for nfmt in range(8):
                if op in (0, 4) or (dfmt * 8 + nfmt) % 16 == op:
                    out.append(with_(b, dfmt=dfmt, nfmt=nfmt))
    return out


def gen_mimg(fmt, op, e, i):
    b = e["base"]
    out = [b]
    for dm in range(16):
        out.append(with_(b, dmask=dm))
    for k in ("unorm", "glc", "slc", "r128", "tfe", "lwe", "da", "d16"):
        out.append(with_(b, **{k: 1}))
    out.append(with_(b, tfe=1, dmask=3))
    out.append(with_(b, d16=1, dmask=7))
    out.append(with_(b, d16=1, tfe=1, dmask=1))
    out.append(with_(b, da=1, unorm=1, glc=1, slc=1))
    for regs in ((1, 3, 1, 3), (255, 252, 31, 31), (0, 0, 0, 0), (250, 1, 4, 1)):
        v = dict(b)
        for f, r in zip(("vaddr", "vdata", "srsrc", "ssamp"), regs):
            if b.get(f):
                v[f] = r
        out.append(v)
    return out


def gen_flat(fmt, op, e, i):
    b = e["base"]
    out = [b]
    if fmt.name == "FLAT":
        offs = (0, 1, 0x7FF, 0xFFF, 0x1000, 0x1FFF, 0x123)
        sads = (0x7F, 2, 124, 1)
    else:
        offs = (0, 1, 0xFFF, 0x1000, 0x1FFF, 0x1FFC, 0x123, 0x1800)
        sads = (2, 3, 0, 100, 106, 124, 126, 108, 0x7D, 0x7E)
    for off in offs:
        out.append(with_(b, offset=off))
    for sa in sads:
        out.append(with_(b, saddr=sa))
        out.append(with_(b, saddr=sa, offset=0x40))
    for k in ("glc", "slc", "lds", "nv"):
        out.append(with_(b, **{k: 1}))
    out.append(with_(b, glc=1, slc=1, offset=8))
    for regs in ((1, 3, 1), (255, 255, 255), (0, 0, 0), (254, 253, 252)):
        v = dict(b)
        for f, r in zip(("addr", "data", "vdst"), regs):
            if b.get(f):
                v[f] = r
        out.append(v)
    return out


def gen_exp():
    fmt = FMT["EXP"]
    out = []
    base = {"vsrc0": 1, "vsrc1": 2, "vsrc2": 3, "vsrc3": 4, "en": 0xF}
    for tgt in range(64):
        out.append(with_(base, tgt=tgt))
        out.append(with_(base, tgt=tgt, en=(tgt * 5) % 16, done=tgt % 2, vm=(tgt // 2) % 2))
        out.append(with_(base, tgt=tgt, compr=1, en=[0x3, 0xC, 0xF, 0x1][tgt % 4]))
    for en in range(16):
        out.append(with_(base, tgt=0, en=en))
        out.append(with_(base, tgt=0, en=en, compr=1))
    out.append(with_(base, tgt=9, en=0, done=1, vm=1))
    out.append({"vsrc0": 255, "vsrc1": 0, "vsrc2": 254, "vsrc3": 1, "en": 0xF, "tgt": 12, "done": 1})
    return [fmt.encode(v) for v in out]


def variants(target, info):
    """Yields (format, words)."""
    res = []
    for fmt in FORMATS:
        if fmt.opmax is None:
            continue
        for i, (op, e) in enumerate(sorted(info[fmt.name].items())):
            n = fmt.name
            if n in ("SOP2", "SOP1", "SOPC"):
                vs = gen_sop(fmt, op, e, i)
            elif n == "SOPK":
                vs = gen_sopk(fmt, op, e, i)
            elif n == "SOPP":
                vs = gen_sopp(fmt, op, e, i)
            elif n == "SMEM":
                vs = gen_smem(fmt, op, e, i)
            elif n in ("VOP1", "VOP2", "VOPC"):
                vs = gen_vop12c(fmt, op, e, i, target)
            elif n == "VOP3":
                vs = gen_vop3(fmt, op, e, i)
            elif n == "VOP3P":
                vs = gen_vop3p(fmt, op, e, i)
            elif n == "VINTRP":
                vs = gen_vintrp(fmt, op, e, i)
            elif n == "DS":
                vs = gen_ds(fmt, op, e, i)
            elif n == "MUBUF":
                vs = gen_mubuf(fmt, op, e, i)
            elif n == "MTBUF":
                vs = gen_mubuf(fmt, op, e, i, mtbuf=True)
            elif n == "MIMG":
                vs = gen_mimg(fmt, op, e, i)
            else:
                vs = gen_flat(fmt, op, e, i)
            for v in vs:
                if v is None:
                    continue
                res.append((n, fmt.encode(v)))
    for w in gen_exp():
        res.append(("EXP", w))
    return res


# --------------------------------------------------------------------------------------------
# Re-assembly check: does llvm-mc assemble its own text back to the canonical words?
# --------------------------------------------------------------------------------------------

def reassemble(target, texts):
    """Returns, per text, ('ok', words) or ('error', message)."""
    out = []
    for c in range(0, len(texts), CHUNK):
        chunk = texts[c:c + CHUNK]
        with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
            path = f.name
            f.write("".join(t + "\n" for t in chunk))
        try:
            p = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target, "-show-encoding",
                                path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        finally:
            os.unlink(path)
        errs = {}
        for line in p.stderr.splitlines():
            m = DIAG_RE.match(line)
            if m and m.group(3) == "error":
                errs.setdefault(int(m.group(1)), m.group(4))
        encs = []
        for line in p.stdout.splitlines():
            m = ENC_RE.search(line)
            if m:
                encs.append(parse_enc(m.group(1)))
        k = 0
        for i in range(len(chunk)):
            if i + 1 in errs:
                out.append(("error", errs[i + 1]))
            else:
                out.append(("ok", encs[k]))
                k += 1
        if k != len(encs):
            raise RuntimeError("assembler output mismatch")
    return out


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------

def gen_target(target, log):
    log("[%s]" % target)
    info, invalid_ops = sweep(target, log)
    cands = variants(target, info)
    # de-duplicate words per format (keep first)
    seen = {}
    uniq = []
    for n, w in cands:
        if w == SENTINEL:
            continue
        key = (n, w)
        if key in seen:
            continue
        seen[key] = True
        uniq.append((n, w))
    log("  variants: %d candidates" % len(uniq))
    res = run_llvm(target, [w for _, w in uniq])
    per_fmt = {f.name: [] for f in FORMATS}
    invalid = [w for _, w in invalid_ops]
    var_invalid = []
    multi = 0
    for (n, w), r in zip(uniq, res):
        if r[0] == "ok":
            text, canon = r[1], r[2]
            line = hexwords(w) + "\t" + text
            if canon != w:
                line += "\t" + hexwords(canon)
            per_fmt[n].append(line)
        elif r[0] == "fail":
            if r[1] == 2:
                var_invalid.append((n, w))
        else:
            multi += 1
    # opcode sweep failures: keep a deterministic sample of ~200; plus up to 100 variant failures
    rng = random.Random("invalid:" + target)
    inv = list(invalid)
    if len(inv) > 220:
        inv = sorted(rng.sample(range(len(inv)), 220))
        inv = [invalid[k] for k in inv]
    vi_by_fmt = {}
    for n, w in var_invalid:
        vi_by_fmt.setdefault(n, []).append(w)
    extra = []
    for n in sorted(vi_by_fmt):
        ws = vi_by_fmt[n]
        k = min(8, len(ws))
        extra += [ws[j] for j in sorted(rng.sample(range(len(ws)), k))]
    inv_lines = []
    for w in inv + extra:
        h = hexwords(w)
        if h not in inv_lines:
            inv_lines.append(h)
    outdir = os.path.join(HERE, target)
    os.makedirs(outdir, exist_ok=True)
    # re-assembly check
    allv = [l.split("\t") for f in FORMATS for l in per_fmt[f.name]]
    ra = reassemble(target, [v[1] for v in allv])
    rlines = []
    nerr = nmis = 0
    for v, r in zip(allv, ra):
        want = v[2] if len(v) > 2 else v[0]
        if r[0] == "error":
            nerr += 1
            rlines.append("%s\t%s\terror: %s" % (v[0], v[1], r[1]))
        elif hexwords(r[1]) != want:
            nmis += 1
            rlines.append("%s\t%s\treassembles to %s" % (v[0], v[1], hexwords(r[1])))
    with open(os.path.join(outdir, "reasm_mismatch.txt"), "w") as fh:
        fh.write("".join(l + "\n" for l in rlines))
    log("  re-assembly: %d texts rejected, %d assemble to other words" % (nerr, nmis))
    total = 0
    stats = []
    for f in FORMATS:
        lines = per_fmt[f.name]
        total += len(lines)
        with open(os.path.join(outdir, f.name + ".txt"), "w") as fh:
            fh.write("".join(l + "\n" for l in lines))
        stats.append("%s\t%d vectors\t%d opcodes" % (f.name, len(lines), len(info.get(f.name, {})) if f.opmax else 1))
    crashes = [hexwords(w) for t, w in CRASHES if t == target]
    with open(os.path.join(outdir, "crash.txt"), "w") as fh:
        fh.write("".join(l + "\n" for l in crashes))
    log("  %d encodings crash llvm-mc" % len(crashes))
    with open(os.path.join(outdir, "invalid.txt"), "w") as fh:
        fh.write("".join(l + "\n" for l in inv_lines))
    with open(os.path.join(outdir, "opcodes.tsv"), "w") as fh:
        fh.write("# format\topcode\tmnemonic\n")
        for f in FORMATS:
            if f.opmax is None:
                fh.write("EXP\t0\texp\n")
                continue
            for op, e in sorted(info[f.name].items()):
                fh.write("%s\t0x%03x\t%s\n" % (f.name, op, e["mn"]))
    with open(os.path.join(outdir, "stats.txt"), "w") as fh:
        fh.write("".join(s + "\n" for s in stats))
        fh.write("TOTAL\t%d vectors\ninvalid\t%d\ncrash\t%d\nreasm_rejected\t%d\nreasm_other_words\t%d\n"
                 % (total, len(inv_lines), len(crashes), nerr, nmis))
    log("  wrote %d vectors, %d invalid, %d multi-instruction candidates dropped" % (total, len(inv_lines), multi))


def main():
    global LLVM_MC
    ap = argparse.ArgumentParser()
    ap.add_argument("--llvm-mc", default=LLVM_MC)
    ap.add_argument("--targets", default=",".join(TARGETS))
    a = ap.parse_args()
    LLVM_MC = a.llvm_mc
    for t in a.targets.split(","):
        gen_target(t, lambda s: print(s, file=sys.stderr, flush=True))


if __name__ == "__main__":
    main()
