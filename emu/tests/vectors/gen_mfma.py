#!/usr/bin/env python3
"""Writes emu/tests/vectors/mfma.txt: test vectors for every MFMA of gfx908 and gfx90a.

Nothing here comes from the emulator. Two outside sources decide every expected value:

- Register layouts (which lane, register and bits hold element (block, row, column) of A, B,
  C and D, and how CBSZ/ABID/BLGP change which lanes A and B are read from) come from AMD's
  Matrix Instruction Calculator, github.com/ROCm/amd_matrix_instruction_calculator, run as an
  external program at generation time (commit 2ef91896bcdc4d26624f952e5c905c787cd9bc9e of its
  `matrix_calculator.py`; it needs the `tabulate` package). Its code is not part of this
  repository: pass its path with --calculator or MFMA_CALCULATOR.
- Products are computed on the CPU with numpy (float64, or exact integers) and rounded once.

Every vector starts from register contents, reads the A, B and C matrices out of them
through the calculator's element-to-register tables (`--register-layout`, with the
instruction's modifiers), computes D = A x B + C per block and writes D back through the
calculator's D table. Checks before anything is written:

- the calculator's other direction (`--matrix-layout`, register-to-element) must give the same
  map for every matrix and modifier set used;
- for five instructions each written line is read back and D recomputed by separate code,
  with the layouts and the CBSZ/ABID/BLGP rules written out by hand from AMD's published
  formulas (the calculator's --detail-instruction text and AMD's matrix-core notes), not from
  the tables above;
- every vector with modifiers must give a different D without them (and, where CBSZ and BLGP
  are combined, without each of them); every i8 accumulate vector must wrap around;
- every snippet is assembled with llvm-mc-15 for its target, and LLVM must print it back
  unchanged (so the text is LLVM's syntax, modifiers in LLVM's order).

Values: most vectors are exact by construction (small dyadic values: every product and every
partial sum is representable, so the order of accumulation cannot matter; this is checked).
One vector per f32/f16/bf16 instruction and target uses random normal values; its expected
values are the exact result rounded once to f32, with a tolerance `V~T` per element, T the
bound for any summation order in f32 (K+1 roundings) in ulps of the result; C is chosen so that
no result is a near-cancellation. f64 vectors are exact too, with both dwords of every value in
use (one of A and B has 36 significant bits, C 43). i8 vectors are exact; the accumulate ones
put C near 2^31 and -2^31 so that i32 sums wrap around.

Usage: gen_mfma.py [--calculator PATH] [--check-only]
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

CALC_COMMIT = "2ef91896bcdc4d26624f952e5c905c787cd9bc9e"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mfma.txt")
LLVM_MC = "llvm-mc-15"
LANES = 64

GFX908 = [
    "v_mfma_f32_32x32x1f32", "v_mfma_f32_16x16x1f32", "v_mfma_f32_4x4x1f32",
    "v_mfma_f32_32x32x2f32", "v_mfma_f32_16x16x4f32",
    "v_mfma_f32_32x32x4f16", "v_mfma_f32_16x16x4f16", "v_mfma_f32_4x4x4f16",
    "v_mfma_f32_32x32x8f16", "v_mfma_f32_16x16x16f16",
    "v_mfma_i32_32x32x4i8", "v_mfma_i32_16x16x4i8", "v_mfma_i32_4x4x4i8",
    "v_mfma_i32_32x32x8i8", "v_mfma_i32_16x16x16i8",
    "v_mfma_f32_32x32x2bf16", "v_mfma_f32_16x16x2bf16", "v_mfma_f32_4x4x2bf16",
    "v_mfma_f32_32x32x4bf16", "v_mfma_f32_16x16x8bf16",
]
GFX90A = GFX908 + [
    "v_mfma_f32_32x32x4bf16_1k", "v_mfma_f32_16x16x4bf16_1k", "v_mfma_f32_4x4x4bf16_1k",
    "v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_16x16x16bf16_1k",
    "v_mfma_f64_16x16x4f64", "v_mfma_f64_4x4x4f64",
]
ARCH = {"gfx908": "cdna1", "gfx90a": "cdna2"}
TARGETS = {"gfx908": GFX908, "gfx90a": GFX90A}

# ---------------------------------------------------------------------------------------------
# The calculator, as an external program.


class Calculator:
    def __init__(self, path):
        self.path = path
        self.cache = {}

    def run(self, *args):
        key = tuple(args)
        if key not in self.cache:
            p = subprocess.run([sys.executable, self.path, *args], capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"calculator {' '.join(args)}: {p.stdout}{p.stderr}")
            self.cache[key] = p.stdout
        return self.cache[key]

    def instructions(self, arch):
        out = self.run("-a", arch, "-L")
        return [l.strip() for l in out.splitlines()[1:] if l.strip()]

    def detail(self, arch, instr):
        out = self.run("-a", arch, "-i", instr, "-d")
        d = {}

        def field(name):
            m = re.search(r"^\s*" + re.escape(name) + r":\s*(.+)$", out, re.M)
            if not m:
                raise RuntimeError(f"{instr}: no `{name}` in --detail-instruction")
            return m.group(1).strip()

        for k in ("M", "N", "K", "blocks"):
            d[k] = int(field(k))
        for m in "ABCD":
            d["gprs_" + m] = int(field(f"GPRs required for {m}"))
        for s in ("Src0", "Src1", "Src2", "Vdst"):
            d[s] = field(s).split()[0]
        d["cbsz"] = field("CBSZ and ABID bits supported") == "True"
        d["blgp"] = field("BLGP bits supported") == "True"
        d["cd_vgpr"] = field("C and D matrix can use ArchVGPRs") == "True"
        d["cd_agpr"] = field("C and D matrix can use AccVGPRs") == "True"
        d["ab_agpr"] = (field("A matrix can use AccVGPRs") == "True"
                        and field("B matrix can use AccVGPRs") == "True")
        return d

    @staticmethod
    def mods_args(mods):
        cbsz, abid, blgp = mods
        args = []
        if cbsz:
            args += ["--cbsz", str(cbsz), "--abid", str(abid)]
        if blgp:
            args += ["--blgp", str(blgp)]
        return args

    def register_layout(self, arch, instr, mat, mods):
        """{(block, row, col): (reg, lane, lo_bit, width)} from --register-layout --csv.
        Rows/columns: A[i][k], B[k][j], C/D[i][j]."""
        out = self.run("-a", arch, "-i", instr, "-R", "-" + mat, "-c", *self.mods_args(mods))
        res = {}
        blocks, cols = None, None
        for line in out.splitlines():
            if line.startswith(("Architecture:", "Instruction:")) or not line.strip():
                continue
            if line.startswith("Block"):
                blocks = [int(x) for x in re.findall(r"\d+", line)]
                continue
            if line.startswith(mat + "["):
                cols = [int(x) for x in line.split(",")[1:]]
                continue
            cells = line.split(",")
            row = int(cells[0])
            for col, cell in zip(cols, cells[1:]):
                loc = parse_cell(cell)
                for b in blocks:
                    key = (b, row, col)
                    assert key not in res, (instr, mat, key)
                    res[key] = loc
        return res

    def matrix_layout(self, arch, instr, mat, mods):
        """The same map built from --matrix-layout --csv (register and lane to elements)."""
        out = self.run("-a", arch, "-i", instr, "-M", "-" + mat, "-c", *self.mods_args(mods))
        res = {}
        slots = None
        for line in out.splitlines():
            if line.startswith(("Architecture:", "Instruction:")) or not line.strip():
                continue
            if line.startswith("lane,"):
                slots = [parse_slot(s) for s in line.split(",")[1:]]
                continue
            cells = line.split(",")
            lane = int(cells[0])
            for (reg, lo, width), cell in zip(slots, cells[1:]):
                for ent in cell.split():
                    m = re.fullmatch(r"([ABCD])\[(\d+)\]\[(\d+)\](?:\.B(\d+))?", ent)
                    assert m and m.group(1) == mat, (instr, ent)
                    key = (int(m.group(4) or 0), int(m.group(2)), int(m.group(3)))
                    assert key not in res, (instr, mat, key)
                    res[key] = (reg, lane, lo, width)
        return res


def parse_cell(cell):
    """`v3{17}`, `v1{5}.[31:16]`, `v[3:2]{9}` -> (reg, lane, lo_bit, width)."""
    m = re.fullmatch(r"v(\d+)\{(\d+)\}(?:\.\[(\d+):(\d+)\])?", cell)
    if m:
        if m.group(3) is None:
            return (int(m.group(1)), int(m.group(2)), 0, 32)
        hi, lo = int(m.group(3)), int(m.group(4))
        return (int(m.group(1)), int(m.group(2)), lo, hi - lo + 1)
    m = re.fullmatch(r"v\[(\d+):(\d+)\]\{(\d+)\}", cell)
    if m:
        hi, lo = int(m.group(1)), int(m.group(2))
        assert hi == lo + 1 and lo % 2 == 0, cell
        return (lo, int(m.group(3)), 0, 64)
    raise ValueError(f"calculator cell `{cell}`")


def parse_slot(s):
    """`v0`, `v1.[15:8]`, `v[3:2]` -> (reg, lo_bit, width)."""
    m = re.fullmatch(r"v(\d+)(?:\.\[(\d+):(\d+)\])?", s)
    if m:
        if m.group(2) is None:
            return (int(m.group(1)), 0, 32)
        return (int(m.group(1)), int(m.group(3)), int(m.group(2)) - int(m.group(3)) + 1)
    m = re.fullmatch(r"v\[(\d+):(\d+)\]", s)
    if m:
        return (int(m.group(2)), 0, 64)
    raise ValueError(f"calculator column `{s}`")


# ---------------------------------------------------------------------------------------------
# Element types: bits <-> values.

def f32_bits(x):
    return int(np.array(x, dtype=np.float32).view(np.uint32))


def bits_f32(b):
    return float(np.array(b, dtype=np.uint32).view(np.float32))


def f16_bits(x):
    return int(np.array(x, dtype=np.float16).view(np.uint16))


def bits_f16(b):
    return float(np.array(b, dtype=np.uint16).view(np.float16))


def bf16_bits(x):
    """bf16 of an f32 value that has at most 8 significant bits (exact), or rounded to nearest
    even otherwise: the high half of the f32 bits."""
    b = f32_bits(x)
    b += 0x7FFF + ((b >> 16) & 1)
    return (b >> 16) & 0xFFFF


def bits_bf16(b):
    return bits_f32(b << 16)


def f64_bits(x):
    return int(np.array(x, dtype=np.float64).view(np.uint64))


def bits_f64(b):
    return float(np.array(b, dtype=np.uint64).view(np.float64))


def i8_bits(x):
    return x & 0xFF


def bits_i8(b):
    return b - 256 if b & 0x80 else b


TYPES = {
    # calculator name: (width, to_bits, from_bits)
    "FP32": (32, f32_bits, bits_f32),
    "FP16": (16, f16_bits, bits_f16),
    "BF16": (16, bf16_bits, bits_bf16),
    "int8": (8, i8_bits, bits_i8),
    "FP64": (64, f64_bits, bits_f64),
    "int32": (32, lambda x: x & 0xFFFFFFFF, lambda b: b - (1 << 32) if b >> 31 else b),
}

# ---------------------------------------------------------------------------------------------
# Register files of one vector: {reg: [64 x u32]} per operand.


class Operand:
    """The registers of one operand (A, B, C or D) as 32-bit words, 64 lanes each."""

    def __init__(self, nregs):
        self.w = [[0] * LANES for _ in range(nregs)]

    def get(self, reg, lane, lo, width):
        if width == 64:
            return self.w[reg][lane] | (self.w[reg + 1][lane] << 32)
        return (self.w[reg][lane] >> lo) & ((1 << width) - 1)

    def put(self, reg, lane, lo, width, bits):
        if width == 64:
            self.w[reg][lane] = bits & 0xFFFFFFFF
            self.w[reg + 1][lane] = bits >> 32
            return
        mask = ((1 << width) - 1) << lo
        self.w[reg][lane] = (self.w[reg][lane] & ~mask) | ((bits << lo) & mask)


def fill_operand(nregs, width, gen):
    """Registers whose every element slot (width bits) holds gen()'s bits."""
    op = Operand(nregs)
    step = 2 if width == 64 else 1
    for reg in range(0, nregs, step):
        for lane in range(LANES):
            for lo in range(0, 32 if width < 64 else 1, width if width < 64 else 1):
                op.put(reg, lane, lo, width, gen())
    return op


def read_matrices(op, layout, shape, from_bits):
    """Matrices[block][row][col] (Python numbers) read through a calculator layout."""
    blocks, rows, cols = shape
    m = [[[None] * cols for _ in range(rows)] for _ in range(blocks)]
    for (b, r, c), loc in layout.items():
        m[b][r][c] = from_bits(op.get(*loc))
    for b in range(blocks):
        for r in range(rows):
            assert None not in m[b][r], "layout misses elements"
    return m


# ---------------------------------------------------------------------------------------------
# One instruction: shapes, layouts, and D from register contents.


class Instr:
    def __init__(self, calc, target, name):
        self.calc, self.target, self.name = calc, target, name
        self.arch = ARCH[target]
        d = calc.detail(self.arch, name)
        self.d = d
        self.M, self.N, self.K, self.blocks = d["M"], d["N"], d["K"], d["blocks"]
        self.tin, self.tout = d["Src0"], d["Vdst"]
        assert d["Src0"] == d["Src1"] and d["Src2"] == d["Vdst"], name
        self.win = TYPES[self.tin][0]
        self.wout = TYPES[self.tout][0]
        self.wraps = 0  # i32 results that wrapped around

    def layout(self, mat, mods=(0, 0, 0)):
        if mat in "CD":
            mods = (0, 0, 0)
        if mat == "B":
            mods = (0, 0, mods[2])
        if mat == "A":
            mods = (mods[0], mods[1], 0)
        return self.calc.register_layout(self.arch, self.name, mat, mods)

    def shape(self, mat):
        return {"A": (self.blocks, self.M, self.K), "B": (self.blocks, self.K, self.N),
                "C": (self.blocks, self.M, self.N), "D": (self.blocks, self.M, self.N)}[mat]

    def matrices(self, opA, opB, opC, mods):
        fin = TYPES[self.tin][2]
        fout = TYPES[self.tout][2]
        A = read_matrices(opA, self.layout("A", mods), self.shape("A"), fin)
        B = read_matrices(opB, self.layout("B", mods), self.shape("B"), fin)
        C = read_matrices(opC, self.layout("C"), self.shape("C"), fout)
        return A, B, C

    def write_d(self, Dvals):
        """D registers from D[block][i][j] bit patterns; every slot written exactly once."""
        op = Operand(self.d["gprs_D"])
        seen = set()
        for (b, i, j), loc in self.layout("D").items():
            assert loc not in seen
            seen.add(loc)
            op.put(*loc, Dvals[b][i][j])
        step = 2 if self.wout == 64 else 1
        assert len(seen) * step == self.d["gprs_D"] * LANES, "D layout does not cover D"
        return op


# ---------------------------------------------------------------------------------------------
# Arithmetic.

def ulp32(x):
    x = abs(x)
    e = math.frexp(x)[1] - 1  # x in [2^e, 2^(e+1))
    return 2.0 ** (max(e, -126) - 23)


def compute(ins, A, B, C, exact):
    """D bit patterns [block][i][j] and, for inexact vectors, tolerances in ulps (else 0)."""
    blocks, M, N, K = ins.blocks, ins.M, ins.N, ins.K
    T = np.zeros((blocks, M, N), dtype=np.int64)
    if ins.tout == "int32":
        a, b, c = (np.array(x, dtype=np.int64) for x in (A, B, C))
        total = np.einsum("bik,bkj->bij", a, b) + c  # |products| <= 2^14: no int64 overflow
        ins.wraps += int(np.sum((total < -(1 << 31)) | (total >= (1 << 31))))
        return (total & 0xFFFFFFFF).tolist(), T  # i32 wrap-around
    a, b, c = (np.array(x, dtype=np.float64) for x in (A, B, C))
    # Every product of two inputs is exact in float64 (at most 48 significant bits here).
    terms = np.concatenate([a[:, :, :, None] * b[:, None, :, :], c[:, :, None, :]], axis=2)
    if exact:
        mant = 53 if ins.tout == "FP64" else 24
        # All terms are multiples of 2^-s and their magnitudes sum below 2^(mant-s): every
        # partial sum in any order is then exact with mant significant bits.
        s = next(s for s in range(200) if np.all(np.floor(terms * 2.0**s) == terms * 2.0**s))
        assert np.max(np.sum(np.abs(terms), axis=2)) * 2.0**s < 2.0**mant, ins.name
        d = np.sum(terms, axis=2)  # exact (integers on one grid, below 2^53)
        if mant == 53:
            return d.view(np.uint64).astype(object).tolist(), T
        d32 = d.astype(np.float32)
        assert np.all(d32.astype(np.float64) == d), ins.name
        return d32.view(np.uint32).astype(object).tolist(), T
    assert ins.tout == "FP32"
    D = np.zeros((blocks, M, N), dtype=np.uint32)
    for idx in np.ndindex(blocks, M, N):
        ts = terms[idx[0], idx[1], :, idx[2]]
        v = float(sum(Fraction(float(t)) for t in ts))  # the exact sum, rounded once
        r = np.float32(v)
        # K+1 roundings of at most half an ulp of |partial sum| <= sum|terms| each (products
        # of f32 inputs may be rounded too), plus this rounding of the exact value.
        bound = (K + 1) * float(np.sum(np.abs(ts))) * 2.0 ** -24
        T[idx] = max(2, math.ceil(bound / ulp32(float(r))) + 1)
        D[idx] = f32_bits(r)
    return D.astype(object).tolist(), T


# ---------------------------------------------------------------------------------------------
# Value generators.

class Rng:
    def __init__(self, seed):
        self.r = np.random.default_rng(seed)

    def dyadic(self, lim=32, den=4):
        """m/den, m in [-lim, lim] without 0: at most 6 significant bits (exact in f16, bf16)."""
        m = int(self.r.integers(1, lim + 1))
        return (m if self.r.integers(2) else -m) / den

    def normal(self):
        return float(self.r.standard_normal())

    def grid(self, g=16):
        return round(float(self.r.standard_normal()) * 2**g) / 2**g

    def wide(self, bits):
        """A value in (-1, 1) with `bits` significant bits, the top one set."""
        m = int(self.r.integers(1 << (bits - 1), 1 << bits))
        return (m if self.r.integers(2) else -m) / 2.0**bits

    def int8(self):
        return int(self.r.integers(-128, 128))

    def int8_extreme(self):
        return int(self.r.choice([-128, -127, 126, 127]))

    def int32(self):
        return int(self.r.integers(-(1 << 31), 1 << 31))


def gen_inputs(ins, rng, kind):
    """Register contents for A, B, C: kind in plain / acc / mod / random."""
    win, wout = ins.win, ins.wout
    to_in, to_out = TYPES[ins.tin][1], TYPES[ins.tout][1]
    ia, ib = ins.d["gprs_A"], ins.d["gprs_B"]
    nc = ins.d["gprs_C"]
    if ins.tin == "int8":
        if kind == "acc":  # large magnitudes, C near 2^31 and -2^31: sums wrap both ways
            srcA = srcB = lambda: to_in(rng.int8_extreme())
            cgen = lambda: to_out(rng.int32() % (1 << 19) + (1 << 31) - (1 << 18))
        else:
            srcA = srcB = lambda: to_in(rng.int8())
            cgen = lambda: to_out(rng.int32())
    elif ins.tin == "FP64":
        # Both dwords of every f64 in use, still exact: one of A and B has 36 significant
        # bits, the other at most 6 (random: 11), C 43.
        wide = lambda: to_in(rng.wide(36))
        if kind == "random":
            srcA, srcB = (lambda: to_in(rng.grid(8))), wide
        elif kind == "mod":
            srcA, srcB = (lambda: to_in(rng.dyadic())), wide
        else:
            srcA, srcB = wide, (lambda: to_in(rng.dyadic()))
        cgen = lambda: to_out(rng.wide(40) * 8)
    elif kind == "random":
        if ins.tin == "FP32":
            srcA = srcB = lambda: to_in(rng.normal())
        else:
            srcA = srcB = lambda: to_in(float(np.float32(rng.normal())))
        cgen = lambda: to_out(rng.normal())
    else:
        srcA = srcB = lambda: to_in(rng.dyadic())
        cgen = lambda: to_out(rng.dyadic(1024, 16))
    opA = fill_operand(ia, win, srcA)
    opB = fill_operand(ib, win, srcB)
    opC = Operand(nc) if kind == "plain" else fill_operand(nc, wout, cgen)
    return opA, opB, opC


def keep_away_from_zero(ins, A, B, C, opC):
    """For random vectors: where A x B + C nearly cancels, move C (same f32 value in its
    register) so that |D| is at least a quarter of the sum of the magnitudes of its terms."""
    lay = ins.layout("C")
    for (b, i, j), loc in lay.items():
        prods = [A[b][i][k] * B[b][k][j] for k in range(ins.K)]
        p = math.fsum(prods)
        s = math.fsum(abs(x) for x in prods)
        c = C[b][i][j]
        if abs(p + c) < 0.25 * (s + abs(c)):
            sign = 1.0 if p >= 0 else -1.0
            c = float(np.float32(sign * (abs(c) + 0.5 * s)))
            C[b][i][j] = c
            opC.put(*loc, f32_bits(c))


# ---------------------------------------------------------------------------------------------
# Vector text.

def reg_range(kind, first, n):
    return f"{kind}{first}" if n == 1 else f"{kind}[{first}:{first + n - 1}]"


def items(kind, first, op, want=None):
    """`aN=[...]` items, one per 32-bit register; `want[r][lane]` adds `~T` tolerances."""
    out = []
    for r, lanes in enumerate(op.w):
        vals = [f"0x{x:x}" for x in lanes]
        if want is not None:
            vals = [v if want[r][l] == 0 else f"{v}~{want[r][l]}" for l, v in enumerate(vals)]
        if len(set(vals)) == 1:
            out.append(f"{kind}{first + r}={vals[0]}")
        else:
            out.append(f"{kind}{first + r}=[{','.join(vals)}]")
    return out


def mods_text(mods):
    cbsz, abid, blgp = mods
    t = ""
    if cbsz:
        t += f" cbsz:{cbsz}"
    if abid:
        t += f" abid:{abid}"
    if blgp:
        t += f" blgp:{blgp}"
    return t


def build_vector(ins, rng, kind, mods, cd, ab, inplace):
    """One vector line. cd: 'a' or 'v' for C/D; ab: 'v' or 'a' for A/B."""
    opA, opB, opC = gen_inputs(ins, rng, kind)
    ins.wraps = 0
    A, B, C = ins.matrices(opA, opB, opC, mods)
    if kind == "random" and ins.tout == "FP32":
        keep_away_from_zero(ins, A, B, C, opC)
    exact = not (kind == "random" and ins.tout == "FP32")
    D, T = compute(ins, A, B, C, exact)
    opD = ins.write_d(D)
    if mods != (0, 0, 0):  # the modifiers must change the result, or the vector tests nothing
        A0, B0, _ = ins.matrices(opA, opB, opC, (0, 0, 0))
        assert compute(ins, A0, B0, C, exact)[0] != D, (ins.name, mods)
        if mods[0] and mods[2]:  # and each of CBSZ/ABID and BLGP on its own
            for part in ((mods[0], mods[1], 0), (0, 0, mods[2])):
                A1, B1, _ = ins.matrices(opA, opB, opC, part)
                assert compute(ins, A1, B1, C, exact)[0] != D, (ins.name, mods)
    want = None
    if not exact:
        lay = ins.layout("D")
        want = [[0] * LANES for _ in range(ins.d["gprs_D"])]
        for (b, i, j), (reg, lane, _, _) in lay.items():
            want[reg][lane] = T[b][i][j]
    na, nb, nc = ins.d["gprs_A"], ins.d["gprs_B"], ins.d["gprs_C"]
    # Register placement: C/D first (D at 0, C after it unless in place), then A and B at
    # even register numbers; with A/B in VGPRs and C/D in VGPRs, A and B come first.
    if cd == "v":
        a0, b0 = 0, 2
        d0 = 4
    else:
        d0 = 0
    c0 = d0 if inplace else d0 + nc
    if ab == "a":
        a0 = c0 + nc if cd == "a" else 0
        b0 = a0 + 2
    elif cd == "a":
        a0, b0 = 0, 2
    asm = (f"{ins.name} {reg_range(cd, d0, nc)}, {reg_range(ab, a0, na)}, "
           f"{reg_range(ab, b0, nb)}, {reg_range(cd, c0, nc)}{mods_text(mods)}")
    inputs = [f"target={ins.target}"] + items(ab, a0, opA) + items(ab, b0, opB)
    if kind != "plain":
        inputs += items(cd, c0, opC)
    expected = items(cd, d0, opD, want)
    vec = {"asm": asm, "A": opA, "B": opB, "C": opC, "D": opD, "mods": mods, "T": want}
    return f"{asm} | {' '.join(inputs)} | {' '.join(expected)}", vec


# ---------------------------------------------------------------------------------------------
# Second path: layouts and modifiers written out by hand for a few instructions (MI100/MI200
# ISA guides, matrix chapter), D recomputed from the raw register words.

def blgp_src_lane(blgp, lane):
    """Lane whose B data the multiplier sees in `lane` under BLGP."""
    return [lane, lane % 32, 32 + lane % 32, (lane + 16) % 64,
            lane % 16, 16 + lane % 16, 32 + lane % 16, 48 + lane % 16][blgp]


def abid_src_block(cbsz, abid, block):
    """Block of A used for `block` under CBSZ/ABID: block abid of its group of 2^cbsz."""
    return (block >> cbsz << cbsz) + abid if cbsz else block


def hand_d(name, A, B, C, mods):
    """D words for three instructions, from hand-written layouts. A, B, C: Operand."""
    cbsz, abid, blgp = mods
    D = Operand(len(C.w))
    if name == "v_mfma_f32_4x4x1f32":  # 16 blocks of 4x4x1; A/B lane 4b+i, D reg i lane 4b+j
        for b in range(16):
            ab = abid_src_block(cbsz, abid, b)
            for i in range(4):
                for j in range(4):
                    a = bits_f32(A.w[0][4 * ab + i])
                    bb = bits_f32(B.w[0][blgp_src_lane(blgp, 4 * b + j)])
                    c = bits_f32(C.w[i][4 * b + j])
                    D.w[i][4 * b + j] = f32_bits(a * bb + c)
        return D
    if name == "v_mfma_f32_16x16x4f16":  # 4 blocks; A lane 16b+i, reg k//2 half k%2
        for b in range(4):
            ab = abid_src_block(cbsz, abid, b)
            for i in range(16):
                for j in range(16):
                    s = Fraction(0)
                    for k in range(4):
                        a = bits_f16((A.w[k // 2][16 * ab + i] >> (16 * (k % 2))) & 0xFFFF)
                        bl = blgp_src_lane(blgp, 16 * b + j)
                        bb = bits_f16((B.w[k // 2][bl] >> (16 * (k % 2))) & 0xFFFF)
                        s += Fraction(a) * Fraction(bb)
                    reg, lane = 4 * b + i % 4, 16 * (i // 4) + j
                    s += Fraction(bits_f32(C.w[reg][lane]))
                    D.w[reg][lane] = f32_bits(float(s))
        return D
    if name == "v_mfma_f32_32x32x8f16":  # 1 block; A lane 32(k//4)+i, reg (k//2)%2, half k%2
        for i in range(32):
            for j in range(32):
                s = Fraction(0)
                for k in range(8):
                    sh = 16 * (k % 2)
                    a = bits_f16((A.w[(k // 2) % 2][32 * (k // 4) + i] >> sh) & 0xFFFF)
                    bl = blgp_src_lane(blgp, 32 * (k // 4) + j)
                    bb = bits_f16((B.w[(k // 2) % 2][bl] >> sh) & 0xFFFF)
                    s += Fraction(a) * Fraction(bb)
                reg, lane = 4 * (i // 8) + i % 4, 32 * ((i // 4) % 2) + j
                s += Fraction(bits_f32(C.w[reg][lane]))
                D.w[reg][lane] = f32_bits(float(s))
        return D
    if name == "v_mfma_i32_32x32x4i8":  # 2 blocks; A lane 32b+i, byte k; D reg 16b+4(i//8)+i%4
        for b in range(2):
            ab = abid_src_block(cbsz, abid, b)
            for i in range(32):
                for j in range(32):
                    s = 0
                    for k in range(4):
                        a = bits_i8((A.w[0][32 * ab + i] >> (8 * k)) & 0xFF)
                        bb = bits_i8((B.w[0][blgp_src_lane(blgp, 32 * b + j)] >> (8 * k)) & 0xFF)
                        s += a * bb
                    reg, lane = 16 * b + 4 * (i // 8) + i % 4, 32 * ((i // 4) % 2) + j
                    D.w[reg][lane] = (s + C.w[reg][lane]) & 0xFFFFFFFF
        return D
    if name == "v_mfma_f64_16x16x4f64":  # A lane 16k+i (pair); D pair i//4, lane 16(i%4)+j
        for i in range(16):
            for j in range(16):
                s = Fraction(0)
                for k in range(4):
                    a = bits_f64(A.w[0][16 * k + i] | A.w[1][16 * k + i] << 32)
                    bb = bits_f64(B.w[0][16 * k + j] | B.w[1][16 * k + j] << 32)
                    s += Fraction(a) * Fraction(bb)
                reg, lane = 2 * (i // 4), 16 * (i % 4) + j
                s += Fraction(bits_f64(C.w[reg][lane] | C.w[reg + 1][lane] << 32))
                bits = f64_bits(float(s))
                D.w[reg][lane], D.w[reg + 1][lane] = bits & 0xFFFFFFFF, bits >> 32
        return D
    return None


def parse_text(line):
    """The vector's text read back: (mnemonic, [operand ranges], inputs, expected), the
    values as {register name: [64 words]} and {register name: [64 (word, tolerance)]}."""
    asm, inputs, expected = line.split(" | ")
    name, rest = asm.split(" ", 1)
    ops = [o.strip() for o in rest.split(" cbsz")[0].split(" abid")[0].split(" blgp")[0]
           .split(",")]

    def regs(items, tol):
        out = {}
        for it in items.split():
            k, v = it.split("=", 1)
            if k == "target":
                continue
            vals = v[1:-1].split(",") if v.startswith("[") else [v] * LANES
            assert len(vals) == LANES, it
            if tol:
                out[k] = [(int(x.split("~")[0], 16), int(x.split("~")[1]) if "~" in x else 0)
                          for x in vals]
            else:
                out[k] = [int(x, 16) for x in vals]
        return out

    return name, ops, regs(inputs, False), regs(expected, True)


def operand_from_text(regfile, spec):
    """An Operand from a range like `a[4:7]` or `v2`; registers not listed are 0."""
    m = re.fullmatch(r"([av])(?:(\d+)|\[(\d+):(\d+)\])", spec)
    kind = m.group(1)
    first, last = (int(m.group(2)),) * 2 if m.group(2) else (int(m.group(3)), int(m.group(4)))
    op = Operand(last - first + 1)
    for n in range(first, last + 1):
        op.w[n - first] = list(regfile.get(f"{kind}{n}", [0] * LANES))
    return op, kind, first


def hand_check(line, mods, what):
    """Reads the written line back and recomputes D with the hand-written layouts."""
    name, ops, inputs, expected = parse_text(line)
    A, _, _ = operand_from_text(inputs, ops[1])
    B, _, _ = operand_from_text(inputs, ops[2])
    C, _, _ = operand_from_text(inputs, ops[3])
    D, kind, first = operand_from_text({}, ops[0])
    hd = hand_d(name, A, B, C, mods)
    assert len(expected) == len(hd.w), what
    for r in range(len(hd.w)):
        for l in range(LANES):
            want, tol = expected[f"{kind}{first + r}"][l]
            assert abs(hd.w[r][l] - want) <= tol, f"{what}: hand path differs, {kind}{first + r} lane {l}"


HAND = ("v_mfma_f32_4x4x1f32", "v_mfma_f32_16x16x4f16", "v_mfma_f32_32x32x8f16",
        "v_mfma_i32_32x32x4i8", "v_mfma_f64_16x16x4f64")

# ---------------------------------------------------------------------------------------------
# The vectors of one instruction on one target.


def modifier_sets(ins, rng):
    """Two CBSZ/ABID/BLGP combinations (as many as the instruction supports), varied across
    instructions so that every BLGP value and several broadcast sizes are exercised."""
    out = []
    lb = ins.blocks.bit_length() - 1
    blgps = [int(x) for x in rng.r.choice(np.arange(1, 8), size=2, replace=False)]
    for n in range(2):
        cbsz = abid = blgp = 0
        if ins.d["cbsz"] and lb > 0:
            cbsz = int(rng.r.integers(1, lb + 1)) if n == 0 else lb
            abid = int(rng.r.integers(0, 1 << cbsz))
            if n == 0 and abid == 0:
                abid = (1 << cbsz) - 1
        if ins.d["blgp"]:
            blgp = blgps[n]
        if (cbsz, abid, blgp) != (0, 0, 0) and (cbsz, abid, blgp) not in out:
            out.append((cbsz, abid, blgp))
    return out


def plan(ins, rng):
    """(label, kind, mods, cd, ab, inplace) for each vector of ins."""
    t = ins.target
    cdv = "v" if t == "gfx90a" else "a"
    p = [
        ("plain", "plain", (0, 0, 0), cdv, "v", False),
        ("acc", "acc", (0, 0, 0), "a", "a", True),
    ]
    mods = modifier_sets(ins, rng)
    if ins.d["gprs_D"] > 16:  # keep the file small: one modifier vector for 32-register D
        mods = mods[:1]
    for n, m in enumerate(mods):
        p.append((f"mod{n}", "mod", m, "a" if n == 0 else cdv, "v", False))
    if not mods:  # f64 on gfx90a: no modifiers; C/D in VGPRs in place instead
        p.append(("acc-v", "acc", (0, 0, 0), "v", "v", True))
    p.append(("random", "random", (0, 0, 0), cdv, "a" if t == "gfx90a" else "v", False))
    return p


# ---------------------------------------------------------------------------------------------
# Checks.

def check_layout_directions(calc, ins, mods_list):
    for mods in [(0, 0, 0)] + mods_list:
        for mat in "ABCD":
            m = mods
            if mat in "CD":
                m = (0, 0, 0)
            elif mat == "A":
                m = (mods[0], mods[1], 0)
            else:
                m = (0, 0, mods[2])
            r = calc.register_layout(ins.arch, ins.name, mat, m)
            x = calc.matrix_layout(ins.arch, ins.name, mat, m)
            assert r == x, f"{ins.name} {mat} {m}: the calculator's two directions differ"
            b, rows, cols = ins.shape(mat)
            assert len(r) == b * rows * cols, (ins.name, mat, m)


def assemble_all(lines_by_target):
    """Every snippet through llvm-mc-15; LLVM must print each back unchanged."""
    for target, asms in lines_by_target.items():
        with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
            f.write("\n".join(asms) + "\n")
            path = f.name
        p = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}",
                            "-show-encoding", path], capture_output=True, text=True)
        os.unlink(path)
        if p.returncode != 0 or p.stderr.strip():
            raise RuntimeError(f"llvm-mc {target}:\n{p.stderr}")
        printed = [l.split(";")[0].strip() for l in p.stdout.splitlines()
                   if l.strip().startswith("v_mfma")]
        assert len(printed) == len(asms), (target, len(printed), len(asms))
        for want, got in zip(asms, printed):
            if " ".join(want.split()) != " ".join(got.split()):
                raise RuntimeError(f"{target}: `{want}` prints as `{got}`")


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calculator", default=os.environ.get("MFMA_CALCULATOR"),
                    help="path of the calculator's matrix_calculator.py")
    ap.add_argument("--check-only", action="store_true", help="do not write mfma.txt")
    args = ap.parse_args()
    if not args.calculator or not os.path.exists(args.calculator):
        sys.exit("gen_mfma.py: give the calculator's matrix_calculator.py with --calculator "
                 f"(github.com/ROCm/amd_matrix_instruction_calculator, commit {CALC_COMMIT})")
    calc = Calculator(args.calculator)

    for target, names in TARGETS.items():
        listed = calc.instructions(ARCH[target])
        assert sorted(listed) == sorted(names), (target, set(listed) ^ set(names))

    lines = []
    asms = {t: [] for t in TARGETS}
    counts = {}
    hand_checked = 0
    for target, names in TARGETS.items():
        for name in names:
            ins = Instr(calc, target, name)
            # One seed per instruction and target: regenerating one does not move the others.
            rng = Rng(abs(hash_text(target + name)))
            p = plan(ins, rng)
            check_layout_directions(calc, ins, [x[2] for x in p if x[2] != (0, 0, 0)])
            lines.append(f"# {target} {name}: {ins.blocks} block(s) of {ins.M}x{ins.N}x"
                         f"{ins.K}, {ins.tin} -> {ins.tout}")
            for label, kind, mods, cd, ab, inplace in p:
                line, vec = build_vector(ins, rng, kind, mods, cd, ab, inplace)
                if name in HAND:
                    hand_check(line, mods, f"{target} {name} {label}")
                    hand_checked += 1
                if ins.tin == "int8" and kind == "acc":
                    assert ins.wraps > 0, f"{target} {name}: no i32 wrap-around"
                lines.append(line)
                asms[target].append(vec["asm"])
                counts[(target, name)] = counts.get((target, name), 0) + 1
    assemble_all(asms)
    assert hand_checked >= 10, hand_checked

    header = [
        "# MFMA test vectors for gfx908 and gfx90a (format: emu/tests/vectors/README.md).",
        "# Generated by emu/tests/vectors/gen_mfma.py, not by hand and not from the emulator:",
        "# register layouts and CBSZ/ABID/BLGP from AMD's Matrix Instruction Calculator",
        f"# (github.com/ROCm/amd_matrix_instruction_calculator, {CALC_COMMIT[:12]}), products",
        "# computed with numpy/exact rationals. Exact values except on `V~T` items: random",
        "# inputs, T = the error bound of any f32 summation order (K+1 roundings), in ulps.",
        "# gfx90a vectors assume a[n] and v[n] are distinct registers (ACC offset above v67).",
        "",
    ]
    text = "\n".join(header + lines) + "\n"
    total = sum(counts.values())
    print(f"{total} vectors, {len(text) / 1e6:.2f} MB, {hand_checked} checked by the hand path")
    for (t, n), c in counts.items():
        print(f"  {t} {n}: {c}")
    if not args.check_only:
        with open(OUT, "w") as f:
            f.write(text)


def hash_text(s):
    """A stable seed (Python's hash() of a str changes between runs)."""
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFF
    return h


if __name__ == "__main__":
    main()
