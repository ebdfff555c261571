#!/usr/bin/env python3
"""Writes emu/tests/vectors/mfma.txt (test vectors for every MFMA of gfx908 and gfx90a) and
emu/tests/vectors/mfma_gfx940.txt (every MFMA and sparse SMFMAC of gfx940, a few on gfx942).

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

gfx940 and gfx942 (MI300, `--architecture cdna3`; mfma_gfx940.txt). The arithmetic follows
the model stated in emu/src/exec/mfma/mod.rs, computed here on its own:

- Layouts as above, plus the calculator's `--compression` table for a sparse op's indices
  (which lane, register and 4 bits hold the two 2-bit indices of each group of 4 k; ABID
  chooses the set when CBSZ is 0) and its negations on the f64 ops (BLGP's three bits negate
  A, B and C there; LLVM writes them `neg:[a,b,c]`). A sparse op's A slot of a group holds its
  two kept items, low bits first, item s at the k its bits [2s+1:2s] name; D is also the
  accumulator. The calculator's --detail-instruction formulas are evaluated for every element
  and compared with its tables: they agree except the B register of the four 16-bit sparse
  ops, `(k % 4)` in the text where the tables (and the text's own register-to-element
  direction, k = 8*floor(lane/16) + 2*GPR_num + floor(GPR_bits/16)) have floor(k/2) % 4; the
  generator stops if any other disagreement appears.
- Values: fp8/bf8 are ml_dtypes' float8_e4m3fnuz and float8_e5m2fnuz (checked first: 0x80 the
  only NaN, no inf, no -0, extremes 240 and 57344); xf32 is the f32 register with its low 13
  bits cut (a NaN stays NaN). Exact vectors give every xf32 input random cut bits, and for
  each xf32 op at least one vector's D must differ from the D of inputs rounded to nearest
  even instead.
- Products are exact; a pass is the K_L consecutive k one A lane holds for a row (taken from
  the calculator's A table, and B's must group k the same way; for a sparse op the kept half
  of them); each pass's products are added to the accumulator with one rounding to f32, passes
  in k order (f32 inputs: one k a pass). Random vectors are centred on that and carry the
  bound of the passes' roundings in any pass order, in ulps; the others are exact.
- No denormal flush: the first vector of each f16, bf16, fp8 and bf8 op has denormal A
  inputs. One vector of each 16x16 fp8/bf8 and xf32 op has a NaN input (the byte 0x80, or an
  f32 NaN whose payload is all in the cut bits) and expects the canonical 0x7fc00000.
- Sparse ops: random index sets in every set of src2; the vectors must change if the indices
  were ignored, if ABID were ignored (a non-zero set), or if CBSZ did not override ABID.
  f64 negations must change D, each bit on its own too.
- The hand-written second path covers v_mfma_f32_16x16x32_fp8_fp8, v_mfma_f32_16x16x8_xf32,
  v_smfmac_f32_16x16x32_f16 and v_mfma_f64_16x16x4_f64 (with neg).
- Every snippet is assembled with llvm-mc-19 for gfx940 or gfx942 and must print back
  unchanged.

Usage: gen_mfma.py [--calculator PATH] [--check-only] [--only cdna12|cdna3]
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
        d["sparse"] = re.search(r"^\s*Sparse A matrix:\s*True", out, re.M) is not None
        for m in "ABCD":
            if m == "C" and d["sparse"]:  # a sparse op's accumulator is D; src2 holds indices
                d["gprs_C"] = int(field("GPRs required for D"))
                continue
            d["gprs_" + m] = int(field(f"GPRs required for {m}"))
        for s in ("Src0", "Src1", "Src2", "Vdst"):
            d[s] = field(s).split()[0]
        d["cbsz"] = field("CBSZ and ABID bits supported") == "True"
        d["blgp"] = field("BLGP bits supported") == "True"
        cd = "D matrix" if d["sparse"] else "C and D matrix"
        d["cd_vgpr"] = field(f"{cd} can use ArchVGPRs") == "True"
        d["cd_agpr"] = field(f"{cd} can use AccVGPRs") == "True"
        d["text"] = out
        d["ab_agpr"] = (field("A matrix can use AccVGPRs") == "True"
                        and field("B matrix can use AccVGPRs") == "True")
        return d

    @staticmethod
    def mods_args(mods):
        cbsz, abid, blgp = mods
        args = []
        if cbsz:
            args += ["--cbsz", str(cbsz)]
        if cbsz or abid:  # (a sparse op's ABID chooses its index set with CBSZ 0)
            args += ["--abid", str(abid)]
        if blgp:
            args += ["--blgp", str(blgp)]
        return args

    def register_layout(self, arch, instr, mat, mods):
        """{(block, row, col): (reg, lane, lo_bit, width)} from --register-layout --csv.
        Rows/columns: A[i][k], B[k][j], C/D[i][j]; mat `k` is a sparse op's compression
        indices (K[i][k], the calculator's `--compression`). Elements the modifiers negate
        (gfx940's f64 ops) are listed by negated()."""
        return self.register_layout_neg(arch, instr, mat, mods)[0]

    def negated(self, arch, instr, mat, mods):
        """The elements the calculator shows negated (`-v[1:0]{0}`) under these modifiers."""
        return self.register_layout_neg(arch, instr, mat, mods)[1]

    def register_layout_neg(self, arch, instr, mat, mods):
        flag, letter = ("-k", "K") if mat == "k" else ("-" + mat, mat)
        out = self.run("-a", arch, "-i", instr, "-R", flag, "-c", *self.mods_args(mods))
        res, neg = {}, set()
        blocks, cols = None, None
        for line in out.splitlines():
            if line.startswith(("Architecture:", "Instruction:")) or not line.strip():
                continue
            if line.startswith("Block"):
                blocks = [int(x) for x in re.findall(r"\d+", line)]
                continue
            if line.startswith(letter + "["):
                cols = [int(x) for x in line.split(",")[1:]]
                continue
            cells = line.split(",")
            row = int(cells[0])
            for col, cell in zip(cols, cells[1:]):
                minus = cell.startswith("-")
                loc = parse_cell(cell[1:] if minus else cell)
                for b in blocks:
                    key = (b, row, col)
                    assert key not in res, (instr, mat, key)
                    res[key] = loc
                    if minus:
                        neg.add(key)
        return res, neg

    def matrix_layout(self, arch, instr, mat, mods):
        """The same map built from --matrix-layout --csv (register and lane to elements)."""
        return self.matrix_layout_neg(arch, instr, mat, mods)[0]

    def matrix_layout_neg(self, arch, instr, mat, mods):
        flag, letter = ("-k", "K") if mat == "k" else ("-" + mat, mat)
        out = self.run("-a", arch, "-i", instr, "-M", flag, "-c", *self.mods_args(mods))
        res, neg = {}, set()
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
                    m = re.fullmatch(r"(-?)([ABCDK])\[(\d+)\]\[(\d+)\](?:\.B(\d+))?", ent)
                    assert m and m.group(2) == letter, (instr, ent)
                    key = (int(m.group(5) or 0), int(m.group(3)), int(m.group(4)))
                    assert key not in res, (instr, mat, key)
                    res[key] = (reg, lane, lo, width)
                    if m.group(1):
                        neg.add(key)
        return res, neg


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


def assemble_all(lines_by_target, llvm_mc=LLVM_MC, mnemonics=("v_mfma",)):
    """Every snippet through `llvm_mc` (llvm-mc-15; llvm-mc-19 for gfx940/gfx942); LLVM must
    print each back unchanged. `mnemonics`: the prefixes of the printed lines to compare."""
    for target, asms in lines_by_target.items():
        with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
            f.write("\n".join(asms) + "\n")
            path = f.name
        p = subprocess.run([llvm_mc, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}",
                            "-show-encoding", path], capture_output=True, text=True)
        os.unlink(path)
        if p.returncode != 0 or p.stderr.strip():
            raise RuntimeError(f"{llvm_mc} {target}:\n{p.stderr}")
        printed = [l.split(";")[0].strip() for l in p.stdout.splitlines()
                   if l.strip().startswith(mnemonics)]
        assert len(printed) == len(asms), (target, len(printed), len(asms))
        for want, got in zip(asms, printed):
            if " ".join(want.split()) != " ".join(got.split()):
                raise RuntimeError(f"{target}: `{want}` prints as `{got}`")


# ---------------------------------------------------------------------------------------------
# gfx940 and gfx942 (MI300, CDNA3): mfma_gfx940.txt.
#
# The same calculator (`--architecture cdna3`) gives the layouts, including where a sparse op's
# compression indices are (`--compression`) and which elements BLGP negates on the f64 ops.
# The arithmetic is the model of emu/src/exec/mfma/mod.rs, computed here independently:
# products exact; the products one lane holds for one row (a pass: the K_L consecutive k of
# one A lane, for a sparse op the kept half of them) are added to the accumulator with one
# rounding to f32 per pass, the passes in k order; f32 inputs are one pass per k (one FMA);
# xf32 is an f32 with its low 13 mantissa bits cut (a NaN stays NaN); fp8/bf8 are the FNUZ
# formats of ml_dtypes (float8_e4m3fnuz, float8_e5m2fnuz); no denormal flush; a NaN result
# is 0x7fc00000.

import ml_dtypes  # noqa: E402

OUT940 = os.path.join(HERE, "mfma_gfx940.txt")
LLVM_MC_CDNA3 = "llvm-mc-19"
GFX940 = [
    "v_mfma_f32_32x32x1_2b_f32", "v_mfma_f32_16x16x1_4b_f32", "v_mfma_f32_4x4x1_16b_f32",
    "v_mfma_f32_32x32x2_f32", "v_mfma_f32_16x16x4_f32",
    "v_mfma_f32_32x32x4_2b_f16", "v_mfma_f32_16x16x4_4b_f16", "v_mfma_f32_4x4x4_16b_f16",
    "v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_f16",
    "v_mfma_i32_32x32x4_2b_i8", "v_mfma_i32_16x16x4_4b_i8", "v_mfma_i32_4x4x4_16b_i8",
    "v_mfma_i32_32x32x16_i8", "v_mfma_i32_16x16x32_i8",
    "v_mfma_f32_32x32x4_2b_bf16", "v_mfma_f32_16x16x4_4b_bf16", "v_mfma_f32_4x4x4_16b_bf16",
    "v_mfma_f32_32x32x8_bf16", "v_mfma_f32_16x16x16_bf16",
    "v_mfma_f64_16x16x4_f64", "v_mfma_f64_4x4x4_4b_f64",
    "v_mfma_f32_16x16x8_xf32", "v_mfma_f32_32x32x4_xf32",
    "v_mfma_f32_16x16x32_bf8_bf8", "v_mfma_f32_16x16x32_bf8_fp8",
    "v_mfma_f32_16x16x32_fp8_bf8", "v_mfma_f32_16x16x32_fp8_fp8",
    "v_mfma_f32_32x32x16_bf8_bf8", "v_mfma_f32_32x32x16_bf8_fp8",
    "v_mfma_f32_32x32x16_fp8_bf8", "v_mfma_f32_32x32x16_fp8_fp8",
    "v_smfmac_f32_16x16x32_f16", "v_smfmac_f32_32x32x16_f16",
    "v_smfmac_f32_16x16x32_bf16", "v_smfmac_f32_32x32x16_bf16",
    "v_smfmac_i32_16x16x64_i8", "v_smfmac_i32_32x32x32_i8",
    "v_smfmac_f32_16x16x64_bf8_bf8", "v_smfmac_f32_16x16x64_bf8_fp8",
    "v_smfmac_f32_16x16x64_fp8_bf8", "v_smfmac_f32_16x16x64_fp8_fp8",
    "v_smfmac_f32_32x32x32_bf8_bf8", "v_smfmac_f32_32x32x32_bf8_fp8",
    "v_smfmac_f32_32x32x32_fp8_bf8", "v_smfmac_f32_32x32x32_fp8_fp8",
]
# gfx942 runs the same ops: a few vectors there, one per kind of input.
GFX942 = ["v_mfma_f32_4x4x1_16b_f32", "v_mfma_f32_16x16x8_xf32", "v_mfma_f32_16x16x32_fp8_bf8",
          "v_mfma_i32_16x16x32_i8", "v_mfma_f64_4x4x4_4b_f64", "v_smfmac_f32_16x16x32_bf16",
          "v_smfmac_f32_32x32x32_bf8_fp8"]
ARCH.update({"gfx940": "cdna3", "gfx942": "cdna3"})


def f8_type(name):
    return {"FP8": ml_dtypes.float8_e4m3fnuz, "BF8": ml_dtypes.float8_e5m2fnuz}[name]


def f8_bits(name):
    def to_bits(x):
        a = np.array([x], dtype=np.float64).astype(f8_type(name))
        assert float(a.astype(np.float64)[0]) == x, (name, x)  # exact values only
        return int(a.view(np.uint8)[0])
    return to_bits


def bits_f8(name):
    def from_bits(b):
        return float(np.array([b], dtype=np.uint8).view(f8_type(name)).astype(np.float64)[0])
    return from_bits


def bits_xf32(b):
    """xf32: the f32 in the register with its low 13 mantissa bits cut; a NaN stays NaN."""
    if (b >> 23) & 0xFF == 0xFF and b & 0x7FFFFF:
        return math.nan
    return bits_f32(b & ~0x1FFF)


def bits_xf32_rne(b):
    """The same register rounded to nearest even instead (only to show that cutting matters)."""
    if (b >> 23) & 0xFF == 0xFF:
        return bits_xf32(b)
    low = b & 0x1FFF
    b &= ~0x1FFF
    if low > 0x1000 or (low == 0x1000 and b & 0x2000):
        b += 0x2000
    return bits_f32(b)


TYPES.update({
    "FP8": (8, f8_bits("FP8"), bits_f8("FP8")),
    "BF8": (8, f8_bits("BF8"), bits_f8("BF8")),
    "XF32": (32, f32_bits, bits_xf32),
})


def check_fnuz_formats():
    """ml_dtypes' FNUZ types are the formats of the model: one NaN (0x80), no inf, no -0,
    largest 240 (E4M3, bias 8) and 57344 (E5M2, bias 16), smallest 2^-10 and 2^-17."""
    for name, top, tiny in (("FP8", 240.0, 2.0**-10), ("BF8", 57344.0, 2.0**-17)):
        v = [bits_f8(name)(b) for b in range(256)]
        assert [b for b in range(256) if math.isnan(v[b])] == [0x80], name
        assert not any(math.isinf(x) for x in v if not math.isnan(x)), name
        assert max(x for x in v if not math.isnan(x)) == top, name
        assert min(x for x in v if not math.isnan(x) and x > 0) == tiny, name
        assert v[0] == 0.0 and [b for b in range(256) if v[b] == 0.0] == [0], name


def round_f32(x):
    """An exact rational rounded once to f32 (nearest even; denormals kept), as a float."""
    if x == 0:
        return 0.0
    sign, a = (-1 if x < 0 else 1), abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    q = Fraction(2) ** (max(e, -126) - 23)
    n = a / q
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl & 1):
        fl += 1
    r = float(fl * q)
    assert r < 2.0**128
    return sign * r


class Instr940(Instr):
    """A gfx940 matrix op: the calculator's CDNA3 tables, both input types, sparsity, xf32,
    and the passes (groups of k one lane holds) of the arithmetic model."""

    def __init__(self, calc, target, name):
        self.calc, self.target, self.name = calc, target, name
        self.arch = ARCH[target]
        d = calc.detail(self.arch, name)
        self.d = d
        self.M, self.N, self.K, self.blocks = d["M"], d["N"], d["K"], d["blocks"]
        self.sparse = d["sparse"]
        xf = "XF32" if name.endswith("_xf32") else None
        self.ta, self.tb = xf or d["Src0"], xf or d["Src1"]
        self.tin, self.tout = self.ta, d["Vdst"]
        self.f64neg = self.tout == "FP64"  # BLGP negates A, B, C on gfx940's f64 ops
        if self.sparse:
            assert d["Src2"] == "A", name  # "A matrix compression indices"
        else:
            assert d["Src2"] == d["Vdst"], name
        self.win = TYPES[self.ta][0]
        assert TYPES[self.tb][0] == self.win
        self.wout = TYPES[self.tout][0]
        self.wraps = 0
        self.passes = self.find_passes()

    def layout(self, mat, mods=(0, 0, 0)):
        if mat == "C" and self.sparse:
            mat = "D"
        if self.f64neg:  # the three bits negate A, B and C, as the calculator shows
            mods = (0, 0, mods[2]) if mat in "ABC" else (0, 0, 0)
        elif mat in "CD":
            mods = (0, 0, 0)
        elif mat == "B":
            mods = (0, 0, mods[2])
        elif mat in "Ak":
            mods = (mods[0], mods[1], 0)
            if mat == "A" and self.sparse:  # CBSZ/ABID choose the index set, not A's lanes
                mods = (0, 0, 0)
        return self.calc.register_layout(self.arch, self.name, mat, mods)

    def negated(self, mat, mods):
        if not self.f64neg or mat not in "ABC":
            return set()
        return self.calc.negated(self.arch, self.name, mat, (0, 0, mods[2]))

    def find_passes(self):
        """[[k...], ...]: the k of each pass, in k order, from the calculator's A layout
        (the k one lane holds for one row); B's layout must group the k the same way."""
        la, lb = self.layout("A"), self.layout("B")
        groups = []
        for lay, rows in ((la, self.M), (lb, self.N)):
            for b in range(self.blocks):
                for r in range(rows):
                    by_lane = {}
                    for k in range(self.K):
                        loc = lay[(b, r, k)] if lay is la else lay[(b, k, r)]
                        by_lane.setdefault(loc[1], []).append(k)
                    groups.append(sorted(by_lane.values()))
        assert all(g == groups[0] for g in groups), self.name
        passes = groups[0]
        kl = len(passes[0])
        assert all(p == list(range(p[0], p[0] + kl)) for p in passes), self.name
        assert kl == self.K * self.M * self.blocks // LANES, (self.name, kl)
        return passes

    def matrices(self, opA, opB, opC, mods, opK=None, index_mods=None):
        """Dense A, B, C values (negations applied). For a sparse op the kept A items are
        placed at the k their indices name; index_mods picks the index set as CBSZ/ABID
        would (default: the instruction's own), or "none": indices ignored (items at k 0, 1
        of each group)."""
        fa, fb, fc = TYPES[self.ta][2], TYPES[self.tb][2], TYPES[self.tout][2]
        B = read_matrices(opB, self.layout("B", mods), self.shape("B"), fb)
        C = read_matrices(opC, self.layout("C"), self.shape("C"), fc)
        if self.sparse:
            A = self.sparse_a(opA, opK, mods if index_mods is None else index_mods, fa)
        else:
            A = read_matrices(opA, self.layout("A", mods), self.shape("A"), fa)
        for mat, m in (("A", A), ("B", B), ("C", C)):
            for (b, r, c) in self.negated(mat, mods):
                m[b][r][c] = -m[b][r][c]
        return A, B, C

    def sparse_a(self, opA, opK, imods, fa):
        la = self.layout("A")
        lk = None if imods == "none" else self.layout("k", imods)
        A = [[[0.0] * self.K for _ in range(self.M)] for _ in range(self.blocks)]
        w = self.win
        for b in range(self.blocks):
            for i in range(self.M):
                for g in range(self.K // 4):
                    locs = {la[(b, i, 4 * g + t)] for t in range(4)}
                    assert len(locs) == 1, (self.name, "a group of 4 k in one A slot")
                    reg, lane, lo, width = locs.pop()
                    assert width == 2 * w
                    if lk is None:
                        idx = [0, 1]
                    else:
                        klocs = {lk[(b, i, 4 * g + t)] for t in range(4)}
                        assert len(klocs) == 1, (self.name, "a group's indices in one field")
                        kreg, klane, klo, kwidth = klocs.pop()
                        assert (kreg, klane, kwidth) == (0, lane, 4), self.name  # A's lane
                        field = opK.get(kreg, klane, klo, kwidth)
                        idx = [field & 3, field >> 2]
                        assert idx[0] != idx[1]
                    for s in range(2):
                        A[b][i][4 * g + idx[s]] = fa(opA.get(reg, lane, lo + s * w, w))
        return A


def compute940(ins, A, B, C, exact):
    """D bit patterns and tolerances under the model (module doc of emu/src/exec/mfma)."""
    blocks, M, N = ins.blocks, ins.M, ins.N
    if ins.tout in ("int32", "FP64"):
        return compute(ins, A, B, C, exact)
    a, b, c = (np.array(x, dtype=np.float64) for x in (A, B, C))
    T = np.zeros((blocks, M, N), dtype=np.int64)
    terms = np.concatenate([a[:, :, :, None] * b[:, None, :, :], c[:, :, None, :]], axis=2)
    nan = np.any(np.isnan(terms), axis=2)
    D = np.zeros((blocks, M, N), dtype=np.uint32)
    if exact:
        t = np.where(np.isnan(terms), 0.0, terms)
        # As compute(): all terms on one grid, magnitudes below 2^24 of it, so that no pass
        # (nor any other order of summation) rounds.
        s = next(s for s in range(200) if np.all(np.floor(t * 2.0**s) == t * 2.0**s))
        assert s < 149 and np.max(np.sum(np.abs(t), axis=2)) * 2.0**s < 2.0**24, ins.name
        d = np.sum(t, axis=2)
        d32 = d.astype(np.float32)
        assert np.all(d32.astype(np.float64) == d), ins.name
        D = d32.view(np.uint32).copy()
        D[nan] = 0x7FC00000
        return D.astype(object).tolist(), T
    assert not np.any(nan)
    for idx in np.ndindex(blocks, M, N):
        bb, i, j = idx
        acc = Fraction(C[bb][i][j])
        for ks in ins.passes:  # one rounding per pass, passes in k order
            acc = Fraction(round_f32(acc + sum(Fraction(A[bb][i][k]) * Fraction(B[bb][k][j])
                                               for k in ks)))
        r = float(acc)
        ts = terms[bb, i, :, j]
        # The model's roundings (one per pass), and as many more for any other pass order.
        bound = (len(ins.passes) + 1) * float(np.sum(np.abs(ts))) * 2.0 ** -24
        T[idx] = max(2, math.ceil(bound / ulp32(r)) + 1)
        D[idx] = f32_bits(r)
    return D.astype(object).tolist(), T


def index_operand(rng):
    """src2 of a sparse op: in every 4-bit field two different 2-bit indices, in order."""
    pairs = [(x, y) for x in range(4) for y in range(4) if x < y]
    op = Operand(1)
    for lane in range(LANES):
        w = 0
        for f in range(8):
            x, y = pairs[int(rng.r.integers(len(pairs)))]
            w |= (x | y << 2) << (4 * f)
        op.w[0][lane] = w
    return op


def elem_gen(rng, t, kind, role):
    """Bits of one input element of type t. role: 'A' or 'B'."""
    to = TYPES[t][1]
    if t in ("FP8", "BF8"):
        fb = bits_f8(t)
        if kind == "random":  # any byte but the NaN: every exponent, denormals too
            def g():
                while True:
                    x = int(rng.r.integers(256))
                    if x != 0x80:
                        return x
            return g
        if kind == "plain" and role == "A":  # denormals and the smallest normals
            top = 1 if t == "FP8" else 2  # exponent field <= 1 (E4M3) or <= 2 (E5M2)
            sh = 3 if t == "FP8" else 2
            def g():
                while True:
                    x = int(rng.r.integers(256))
                    if x != 0x80 and ((x & 0x7F) >> sh) <= top and fb(x) != 0:
                        return x
            return g
        lim = 16 if t == "FP8" else 8  # 4 and 3 significant bits
        return lambda: to(rng.dyadic(lim, 4))
    if t == "XF32":
        if kind == "random":
            return lambda: f32_bits(rng.normal())
        # small dyadic values with the 13 bits xf32 cuts set at random
        return lambda: f32_bits(rng.dyadic()) | int(rng.r.integers(1 << 13))
    if t in ("FP16", "BF16"):
        if kind == "random":
            return lambda: to(float(np.float32(rng.normal())))
        if kind == "plain" and role == "A":  # denormal inputs (not flushed on gfx940)
            scale = 2.0**-20 if t == "FP16" else 2.0**-130
            return lambda: to(rng.dyadic() * scale)
        return lambda: to(rng.dyadic())
    if t == "FP32":
        return (lambda: to(rng.normal())) if kind == "random" else (lambda: to(rng.dyadic()))
    raise ValueError(t)


def gen_inputs940(ins, rng, kind):
    if ins.tin in ("int8", "FP64"):
        opA, opB, opC = gen_inputs(ins, rng, kind)
    else:
        opA = fill_operand(ins.d["gprs_A"], ins.win, elem_gen(rng, ins.ta, kind, "A"))
        opB = fill_operand(ins.d["gprs_B"], ins.win, elem_gen(rng, ins.tb, kind, "B"))
        nc = ins.d["gprs_C"]
        if kind == "plain":
            opC = Operand(nc)
        elif kind == "random":
            opC = fill_operand(nc, 32, lambda: f32_bits(rng.normal()))
        else:
            opC = fill_operand(nc, 32, lambda: f32_bits(rng.dyadic(1024, 16)))
    opK = index_operand(rng) if ins.sparse else None
    return opA, opB, opC, opK


def keep_away940(ins, A, B, C, opC):
    lay = ins.layout("C")
    for (b, i, j), loc in lay.items():
        prods = [A[b][i][k] * B[b][k][j] for k in range(ins.K)]
        p, s, c = math.fsum(prods), math.fsum(abs(x) for x in prods), C[b][i][j]
        if abs(p + c) < 0.25 * (s + abs(c)):
            c = float(np.float32((1.0 if p >= 0 else -1.0) * (abs(c) + 0.5 * s)))
            C[b][i][j] = c
            opC.put(*loc, f32_bits(c))


def mods_text940(ins, mods):
    cbsz, abid, blgp = mods
    if ins.f64neg:
        return f" neg:[{blgp & 1},{blgp >> 1 & 1},{blgp >> 2 & 1}]" if blgp else ""
    return mods_text(mods)


class Alloc:
    """Registers of one kind handed out in order, each range at an even register."""

    def __init__(self):
        self.next = {"v": 0, "a": 0}

    def take(self, kind, n):
        first = self.next[kind]
        first += first & 1
        self.next[kind] = first + n
        return first


def build_vector940(ins, rng, kind, mods, cd, ab, inplace, special=None):
    """One gfx940/gfx942 vector line and its parts. special: 'nan' puts one NaN (fp8/bf8:
    the byte 0x80; xf32: 0x7f800001, whose cut bits are its payload) into A."""
    opA, opB, opC, opK = gen_inputs940(ins, rng, kind)
    if special == "nan":
        reg, lane = int(rng.r.integers(ins.d["gprs_A"])), int(rng.r.integers(LANES))
        if ins.win == 8:
            opA.put(reg, lane, 8 * int(rng.r.integers(4)), 8, 0x80)
        else:
            opA.put(reg, lane, 0, 32, 0x7F800001)
    ins.wraps = 0
    A, B, C = ins.matrices(opA, opB, opC, mods, opK)
    exact = kind != "random" or ins.tout in ("int32", "FP64")
    if not exact:
        keep_away940(ins, A, B, C, opC)
    D, T = compute940(ins, A, B, C, exact)
    opD = ins.write_d(D)

    def other(**kw):
        a, b, c = ins.matrices(opA, opB, opC, kw.get("mods", mods), opK, kw.get("imods"))
        return compute940(ins, a, b, c, kw.get("exact", exact))[0]

    # The modifiers must change the result, or the vector tests nothing.
    if ins.sparse:
        assert other(imods="none") != D, (ins.name, "index bits ignored")
        if mods[0] == 0 and mods[1]:
            assert other(imods=(0, 0, 0)) != D, (ins.name, "ABID ignored")
        if mods[0] and mods[1]:
            assert other(imods=(0, mods[1], 0)) != D, (ins.name, "CBSZ ignored")
    elif mods != (0, 0, 0):
        assert other(mods=(0, 0, 0)) != D, (ins.name, mods)
        if ins.f64neg:  # and each negation on its own
            for bit in (1, 2, 4):
                if mods[2] & bit:
                    assert other(mods=(0, 0, mods[2] & ~bit)) != D, (ins.name, mods)
        elif mods[0] and mods[2]:
            for part in ((mods[0], mods[1], 0), (0, 0, mods[2])):
                assert other(mods=part) != D, (ins.name, mods)
    if special == "nan":
        assert any(x == 0x7FC00000 for blk in D for row in blk for x in row), ins.name
    if ins.ta == "XF32" and kind != "random" and special is None:  # cutting, not rounding
        TYPES["XF32"] = (32, f32_bits, bits_xf32_rne)
        try:
            rne = other(exact=False)  # (rounded inputs have more bits: the model's passes)
        finally:
            TYPES["XF32"] = (32, f32_bits, bits_xf32)
        ins.rne_differs = getattr(ins, "rne_differs", 0) + (rne != D)
    want = None
    if not exact:
        want = [[0] * LANES for _ in range(ins.d["gprs_D"])]
        for (b, i, j), (reg, lane, _, _) in ins.layout("D").items():
            want[reg][lane] = T[b][i][j]
    na, nb, nc = ins.d["gprs_A"], ins.d["gprs_B"], ins.d["gprs_C"]
    al = Alloc()
    d0 = al.take(cd, nc)
    c0 = d0 if inplace or ins.sparse else al.take(cd, nc)
    a0 = al.take(ab, na)
    b0 = al.take(ab, nb)
    src2 = reg_range(cd, c0, nc)
    if ins.sparse:
        k0 = al.take("v", 1)
        src2 = f"v{k0}"
    asm = (f"{ins.name} {reg_range(cd, d0, nc)}, {reg_range(ab, a0, na)}, "
           f"{reg_range(ab, b0, nb)}, {src2}{mods_text940(ins, mods)}")
    inputs = [f"target={ins.target}"] + items(ab, a0, opA) + items(ab, b0, opB)
    if ins.sparse:
        inputs += items("v", k0, opK)
    if kind != "plain":
        inputs += items(cd, c0, opC)
    expected = items(cd, d0, opD, want)
    vec = {"asm": asm, "A": opA, "B": opB, "C": opC, "D": opD, "K": opK, "mods": mods}
    return f"{asm} | {' '.join(inputs)} | {' '.join(expected)}", vec


def plan940(ins, rng):
    """(label, kind, mods, cd, ab, inplace, special) for each vector of ins on gfx940."""
    p = [("plain", "plain", (0, 0, 0), "v", "v", False, None),
         ("acc", "acc", (0, 0, 0), "a", "a", True, None)]
    if ins.sparse:
        sets = 4 if ins.win == 16 else 2  # index sets of 8 bits (16-bit inputs) or 16
        abid = int(rng.r.integers(1, sets))
        p[1] = ("acc", "acc", (0, abid, 0), "a", "a", True, None)
        cbsz = int(rng.r.integers(1, 3))
        p.append(("cbsz", "mod", (cbsz, int(rng.r.integers(1, sets)), 0), "v", "v", True, None))
        p.append(("random", "random", (0, int(rng.r.integers(sets)), 0), "v", "a", True, None))
        return p
    if ins.f64neg:
        negs = [int(x) for x in rng.r.choice([1, 2, 4, 5, 6], size=2, replace=False)]
        p.append(("neg0", "mod", (0, 0, negs[0]), "a", "v", False, None))
        p.append(("neg1", "mod", (0, 0, negs[1]), "v", "v", True, None))
    else:
        mods = modifier_sets(ins, rng)
        if ins.d["gprs_D"] > 16:
            mods = mods[:1]
        for n, m in enumerate(mods):
            p.append((f"mod{n}", "mod", m, "a" if n == 0 else "v", "v", False, None))
        if not mods:  # no modifiers: C/D in VGPRs in place instead
            p.append(("acc-v", "acc", (0, 0, 0), "v", "v", True, None))
    p.append(("random", "random", (0, 0, 0), "v", "a", False, None))
    if ins.ta in ("FP8", "BF8", "XF32") and ins.M == 16:
        p.append(("nan", "acc", (0, 0, 0), "v", "v", True, "nan"))
    return p


def plan942(ins, rng):
    """Two vectors of each op on gfx942: one with its modifiers where it has them."""
    p = plan940(ins, rng)
    return [p[1], next((x for x in p if x[2] != (0, 0, 0) and x[0] != "acc"), p[0])]


def check_layout_directions940(calc, ins, mods_list):
    """The calculator's two directions agree (maps and negations), for A, B, C/D and a
    sparse op's indices, with every modifier set used; a sparse op's A is the same under
    CBSZ/ABID (they choose the index set only)."""
    for mods in [(0, 0, 0)] + mods_list:
        for mat in ("A", "B", "C", "D", "k") if ins.sparse else "ABCD":
            if mat == "C" and ins.sparse:
                continue
            if ins.f64neg:
                m = (0, 0, mods[2]) if mat in "ABC" else (0, 0, 0)
            else:
                m = {"A": (mods[0], mods[1], 0), "k": (mods[0], mods[1], 0),
                     "B": (0, 0, mods[2])}.get(mat, (0, 0, 0))
            r = calc.register_layout_neg(ins.arch, ins.name, mat, m)
            x = calc.matrix_layout_neg(ins.arch, ins.name, mat, m)
            if mat == "A" and ins.sparse:
                plain = calc.register_layout(ins.arch, ins.name, "A", (0, 0, 0))
                assert {k: v for k, v in r[0].items() if k[0] == 0} == plain, ins.name
                assert {k: v for k, v in x[0].items() if k[0] == 0} == plain, ins.name
                continue
            assert r == x, f"{ins.name} {mat} {m}: the calculator's two directions differ"
            b, rows, cols = (ins.blocks, ins.M, ins.K) if mat == "k" else ins.shape(mat)
            assert len(r[0]) == b * rows * cols, (ins.name, mat, m)


def detail_formulas(ins):
    """The calculator's --detail-instruction text, element to register ("GPR", "Lane"), as
    formulas evaluated for every element and compared with its tables (no modifiers).
    Returns the matrices where they disagree, with one example each."""
    text = ins.d["text"].split("element to register mapping with no modifiers:")[1]
    text = text.split("Register to matrix element")[0]
    f = {}
    for line in text.splitlines():
        m = re.match(r"\s*(A|B|C or D|D|compression)\[\w\]\[\w\](?:\.block)? (GPR|Lane): (.+)$",
                     line)
        if m:
            f[(m.group(1), m.group(2))] = m.group(3).strip()
    env = {"floor": math.floor}

    def ev(expr, **kw):
        return eval(expr, env, kw)  # the calculator's own arithmetic text

    bad = {}
    mats = [("A", "A", "ik"), ("B", "B", "kj"),
            ("D" if ins.sparse else "C or D", "D", "ij")]
    if ins.sparse:
        mats.append(("compression", "k", "ik"))
    for name, mat, idx in mats:
        lay = ins.calc.register_layout(ins.arch, ins.name, mat, (0, 0, 0))
        gpr, lane = f[(name, "GPR")], f[(name, "Lane")]
        for (b, r, c), (reg, ln, lo, width) in lay.items():
            var = {idx[0]: r, idx[1]: c, "block": b}
            if gpr.startswith("["):  # a register pair: [1:0], [2*floor(i / 4)+1 : 2*floor(i / 4)]
                g, glo = ev(gpr[1:-1].split(":")[1], **var), 0
            elif ".[" in gpr:
                g_expr, bits = gpr.split(".[", 1)
                g = ev(g_expr, **var)
                glo = ev(bits.rstrip("]").split(":")[1], **var)
            else:
                g, glo = ev(gpr, **var), lo if width == 2 * ins.win else 0
            got = (g, ev(lane, **var), glo)
            if got != (reg, ln, lo):
                bad.setdefault(mat, (name + " " + gpr, (b, r, c), got, (reg, ln, lo)))
    return bad


# The one known disagreement: the sparse 16-bit ops' B GPR text, `(k % 4)`, where the tables
# (and the text's own register-to-element direction, k = 8*floor(lane/16) + 2*GPR_num +
# floor(GPR_bits/16)) have floor(k / 2) % 4.
DETAIL_TEXT_ERRORS = {"v_smfmac_f32_16x16x32_f16", "v_smfmac_f32_32x32x16_f16",
                      "v_smfmac_f32_16x16x32_bf16", "v_smfmac_f32_32x32x16_bf16"}


# ---------------------------------------------------------------------------------------------
# Second path for gfx940: four ops written out by hand from the calculator's formulas
# (--detail-instruction), with the arithmetic model written out again.

def hand_d940(name, A, B, C, K, mods):
    """D words from raw registers. A, B, C, K (sparse indices): Operand."""
    cbsz, abid, blgp = mods
    D = Operand(len(C.w))
    f8 = bits_f8("FP8")

    def passes(acc, pass_products):
        for ps in pass_products:  # one rounding per pass
            acc = Fraction(round_f32(acc + sum(ps)))
        return acc

    if name == "v_mfma_f32_16x16x32_fp8_fp8":
        # A[i][k]: reg (k/4)%2 byte k%4, lane 16*(k/8)+i; B the same with j;
        # D[i][j]: reg i%4, lane 16*(i/4)+j. A lane holds 8 k: 4 passes of 8.
        for i in range(16):
            for j in range(16):
                ps = []
                for p in range(4):
                    s = []
                    for k in range(8 * p, 8 * p + 8):
                        sh = 8 * (k % 4)
                        a = f8((A.w[(k // 4) % 2][16 * (k // 8) + i] >> sh) & 0xFF)
                        b = f8((B.w[(k // 4) % 2][16 * (k // 8) + j] >> sh) & 0xFF)
                        if math.isnan(a) or math.isnan(b):
                            s.append(None)
                        else:
                            s.append(Fraction(a) * Fraction(b))
                    ps.append(s)
                reg, lane = i % 4, 16 * (i // 4) + j
                if any(x is None for s in ps for x in s):
                    D.w[reg][lane] = 0x7FC00000
                    continue
                acc = passes(Fraction(bits_f32(C.w[reg][lane])), ps)
                D.w[reg][lane] = f32_bits(float(acc))
        return D
    if name == "v_mfma_f32_16x16x8_xf32":
        # A[i][k]: reg k%2, lane 16*(k/2)+i; B the same; D as above. 4 passes of 2 k.
        def xf(w):
            if (w >> 23) & 0xFF == 0xFF and w & 0x7FFFFF:
                return None
            return Fraction(bits_f32(w & 0xFFFFE000))
        for i in range(16):
            for j in range(16):
                reg, lane = i % 4, 16 * (i // 4) + j
                ps, nan = [], False
                for p in range(4):
                    s = []
                    for k in (2 * p, 2 * p + 1):
                        a, b = xf(A.w[k % 2][16 * (k // 2) + i]), xf(B.w[k % 2][16 * (k // 2) + j])
                        nan |= a is None or b is None
                        s.append(Fraction(0) if nan else a * b)
                    ps.append(s)
                if nan:
                    D.w[reg][lane] = 0x7FC00000
                    continue
                acc = passes(Fraction(bits_f32(C.w[reg][lane])), ps)
                D.w[reg][lane] = f32_bits(float(acc))
        return D
    if name == "v_smfmac_f32_16x16x32_f16":
        # A: group g = k/4 of row i in reg g%2, lane 16*(g/2)+i, kept items low half first;
        # indices: src2 bits 4*(g%2) + 8*set of the same lane, item s at bits [2s+1:2s];
        # set = ABID when CBSZ is 0. B[k][j]: reg (k%8)/2, half k%2, lane 16*(k/8)+j.
        # D (also the accumulator): reg i%4, lane 16*(i/4)+j. 4 passes of 8 k.
        st = 0 if cbsz else abid
        for i in range(16):
            for j in range(16):
                ps = []
                for p in range(4):
                    s = []
                    for g in (2 * p, 2 * p + 1):
                        lane = 16 * (g // 2) + i
                        field = (K.w[0][lane] >> (4 * (g % 2) + 8 * st)) & 0xF
                        for item in range(2):
                            k = 4 * g + ((field >> (2 * item)) & 3)
                            a = bits_f16((A.w[g % 2][lane] >> (16 * item)) & 0xFFFF)
                            b = bits_f16((B.w[(k % 8) // 2][16 * (k // 8) + j] >> (16 * (k % 2)))
                                         & 0xFFFF)
                            s.append(Fraction(a) * Fraction(b))
                    ps.append(s)
                reg, lane = i % 4, 16 * (i // 4) + j
                acc = passes(Fraction(bits_f32(C.w[reg][lane])), ps)
                D.w[reg][lane] = f32_bits(float(acc))
        return D
    if name == "v_mfma_f64_16x16x4_f64":
        # A[i][k]: pair, lane 16k+i; B[k][j] lane 16k+j; D[i][j] pair 2*(i/4), lane
        # 16*(i%4)+j; neg:[a,b,c] (BLGP bits 0, 1, 2) negate A, B and C.
        sa, sb, sc = (-1 if blgp & 1 else 1), (-1 if blgp & 2 else 1), (-1 if blgp & 4 else 1)
        for i in range(16):
            for j in range(16):
                s = Fraction(0)
                for k in range(4):
                    a = bits_f64(A.w[0][16 * k + i] | A.w[1][16 * k + i] << 32)
                    b = bits_f64(B.w[0][16 * k + j] | B.w[1][16 * k + j] << 32)
                    s += sa * sb * Fraction(a) * Fraction(b)
                reg, lane = 2 * (i // 4), 16 * (i % 4) + j
                s += sc * Fraction(bits_f64(C.w[reg][lane] | C.w[reg + 1][lane] << 32))
                bits = f64_bits(float(s))
                D.w[reg][lane], D.w[reg + 1][lane] = bits & 0xFFFFFFFF, bits >> 32
        return D
    return None


HAND940 = ("v_mfma_f32_16x16x32_fp8_fp8", "v_mfma_f32_16x16x8_xf32", "v_smfmac_f32_16x16x32_f16",
           "v_mfma_f64_16x16x4_f64")


def hand_check940(line, mods, what):
    """Reads the written line back (operands, then modifiers parsed from the text) and
    recomputes D by hand_d940."""
    asm, inputs, expected = line.split(" | ")
    name, rest = asm.split(" ", 1)
    modtext = re.findall(r"(cbsz|abid|blgp):(\d+)|neg:\[(\d),(\d),(\d)\]", rest)
    parsed = {"cbsz": 0, "abid": 0, "blgp": 0}
    for key, val, n0, n1, n2 in modtext:
        if key:
            parsed[key] = int(val)
        else:
            parsed["blgp"] = int(n0) | int(n1) << 1 | int(n2) << 2
    assert (parsed["cbsz"], parsed["abid"], parsed["blgp"]) == mods, what
    ops = [o.strip() for o in re.sub(r"\s(cbsz|abid|blgp|neg):\S+", "", rest).split(",")]
    _, _, ins_regs, exp_regs = parse_text(f"{name} {', '.join(ops)} | {inputs} | {expected}")
    A, _, _ = operand_from_text(ins_regs, ops[1])
    B, _, _ = operand_from_text(ins_regs, ops[2])
    sparse = name.startswith("v_smfmac")
    C, _, _ = operand_from_text(ins_regs, ops[0] if sparse else ops[3])
    K = operand_from_text(ins_regs, ops[3])[0] if sparse else None
    _, kind, first = operand_from_text({}, ops[0])
    hd = hand_d940(name, A, B, C, K, mods)
    for r in range(len(hd.w)):
        for lane in range(LANES):
            want, tol = exp_regs[f"{kind}{first + r}"][lane]
            assert abs(hd.w[r][lane] - want) <= tol, \
                f"{what}: hand path differs, {kind}{first + r} lane {lane}"


def generate940(calc):
    """The lines of mfma_gfx940.txt, and a summary of what was checked."""
    listed = calc.instructions("cdna3")
    assert sorted(listed) == sorted(GFX940), set(listed) ^ set(GFX940)
    check_fnuz_formats()
    lines, asms, counts = [], {"gfx940": [], "gfx942": []}, {}
    hand_checked, rne_shown, text_errors = 0, 0, {}
    for target, names in (("gfx940", GFX940), ("gfx942", GFX942)):
        for name in names:
            ins = Instr940(calc, target, name)
            rng = Rng(abs(hash_text(target + name)))
            p = plan940(ins, rng) if target == "gfx940" else plan942(ins, rng)
            check_layout_directions940(calc, ins, [x[2] for x in p if x[2] != (0, 0, 0)])
            if target == "gfx940":
                bad = detail_formulas(ins)
                if bad:
                    text_errors[name] = bad
            kl = len(ins.passes[0])
            lines.append(f"# {target} {name}: {ins.blocks} block(s) of {ins.M}x{ins.N}x{ins.K}"
                         f"{' (4:2 sparse A)' if ins.sparse else ''}, {ins.ta}"
                         f"{'' if ins.tb == ins.ta else ' x ' + ins.tb} -> {ins.tout}, "
                         f"{len(ins.passes)} pass(es) of {kl} k")
            for label, kind, mods, cd, ab, inplace, special in p:
                line, vec = build_vector940(ins, rng, kind, mods, cd, ab, inplace, special)
                if name in HAND940:
                    hand_check940(line, mods, f"{target} {name} {label}")
                    hand_checked += 1
                if ins.tin == "int8" and kind == "acc":
                    assert ins.wraps > 0, f"{target} {name}: no i32 wrap-around"
                lines.append(line)
                asms[target].append(vec["asm"])
                counts[(target, name)] = counts.get((target, name), 0) + 1
            if ins.ta == "XF32":
                assert ins.rne_differs > 0, f"{name}: no vector where cutting to xf32 matters"
                rne_shown += ins.rne_differs
    assert set(text_errors) == DETAIL_TEXT_ERRORS, text_errors
    for name, bad in text_errors.items():
        assert set(bad) == {"B"}, (name, bad)
    assemble_all(asms, LLVM_MC_CDNA3, ("v_mfma", "v_smfmac"))
    assert hand_checked >= 10, hand_checked
    return lines, counts, hand_checked, rne_shown, text_errors


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calculator", default=os.environ.get("MFMA_CALCULATOR"),
                    help="path of the calculator's matrix_calculator.py")
    ap.add_argument("--check-only", action="store_true", help="do not write the files")
    ap.add_argument("--only", choices=("cdna12", "cdna3"),
                    help="only mfma.txt (gfx908, gfx90a) or only mfma_gfx940.txt")
    args = ap.parse_args()
    if not args.calculator or not os.path.exists(args.calculator):
        sys.exit("gen_mfma.py: give the calculator's matrix_calculator.py with --calculator "
                 f"(github.com/ROCm/amd_matrix_instruction_calculator, commit {CALC_COMMIT})")
    calc = Calculator(args.calculator)

    if args.only != "cdna3":
        main_cdna12(calc, args)
    if args.only != "cdna12":
        main_cdna3(calc, args)


def main_cdna12(calc, args):
    """mfma.txt: gfx908 and gfx90a."""
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


def main_cdna3(calc, args):
    """mfma_gfx940.txt: gfx940 and gfx942."""
    lines, counts, hand_checked, rne_shown, text_errors = generate940(calc)
    header = [
        "# MFMA and SMFMAC test vectors for gfx940 and gfx942 (format: emu/tests/vectors/README.md).",
        "# Generated by emu/tests/vectors/gen_mfma.py, not by hand and not from the emulator:",
        "# register layouts, sparse index places and f64 negations from AMD's Matrix Instruction",
        f"# Calculator (--architecture cdna3, {CALC_COMMIT[:12]}), fp8/bf8 values from ml_dtypes'",
        "# FNUZ types, products exact (rationals), one rounding to f32 per pass (the k one lane",
        "# holds). Exact values except on `V~T` items: random inputs, T = the error bound of the",
        "# passes' roundings in any pass order, in ulps. AGPRs and VGPRs are distinct registers.",
        "",
    ]
    text = "\n".join(header + lines) + "\n"
    total = sum(counts.values())
    print(f"gfx940/gfx942: {total} vectors, {len(text) / 1e6:.2f} MB, {hand_checked} checked by "
          f"the hand path, {rne_shown} where xf32 rounding instead of cutting changes D")
    for name, bad in text_errors.items():
        for mat, (formula, elem, got, want) in bad.items():
            print(f"  calculator text differs from its tables: {name} {mat} `{formula}`: "
                  f"element {elem} -> {got}, tables {want}")
    for (t, n), c in counts.items():
        print(f"  {t} {n}: {c}")
    if not args.check_only:
        with open(OUT940, "w") as f:
            f.write(text)


def hash_text(s):
    """A stable seed (Python's hash() of a str changes between runs)."""
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFF
    return h


if __name__ == "__main__":
    main()
