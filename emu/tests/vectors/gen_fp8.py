#!/usr/bin/env python3
"""Writes emu/tests/vectors/fp8.txt: test vectors for gfx940's FP8/BF8 conversions.

Nothing here comes from the emulator. The expected values come from:

- PyPI's `ml_dtypes` (`float8_e4m3fnuz`, `float8_e5m2fnuz`: MI300's FP8 and BF8, one NaN 0x80,
  no infinities, no negative zero) for every byte -> f32 value (all 256 of each format) and
  for f32 -> byte rounding to nearest even (numpy float32 -> ml_dtypes is one RNE rounding).
- The rules the emulator documents in `emu/src/exec/fp8.rs`, applied here explicitly where
  ml_dtypes has no say: NaN and +-Inf give 0x80; a finite value whose rounded magnitude
  exceeds the largest (240 / 57344) gives 0x80 (the clamp bit, which would saturate it,
  is not accepted by LLVM 19's assembler on these ops, so no vector here sets it); a result
  that rounds to zero is 0x00. The generator checks that ml_dtypes agrees with each rule it
  can speak to (overflow to NaN, no -0) before using it.
- Stochastic rounding (`v_cvt_sr_*`) from this file's own rendering of ROCm's reference model
  (rocBLAS `rocblas_hip_f8_impl.h` `cast_to_f8`, HIP's `amd_hip_fp8.h`), written with exact
  rationals rather than bits: the f32 value is first truncated to a multiple of
  2^(E - 23), E being its exponent or, below the format's smallest normal exponent, that
  exponent (the reference shifts the significand right there); the random value's low
  23 - m bits (m the format's mantissa bits) times 2^(E - 23) are added, and the sum is
  truncated to a multiple of 2^(E - m). The magnitude then goes through ml_dtypes (it is
  exactly representable, or above the largest value) and the rules above.

Which part of a register each op reads and writes is LLVM 19's (gfx940,
`llvm/test/CodeGen/AMDGPU/llvm.amdgcn.cvt.fp8.ll`): SDWA `src0_sel:BYTE_n` / `WORD_1` for the
sources of `v_cvt_f32_*` / `v_cvt_pk_f32_*`; op_sel[3] (printed `op_sel:[0,0,1]`) for the word
of `v_cvt_pk_*_f32`; op_sel[3:2] (`op_sel:[0,0,1,0]` byte 1, `[0,0,0,1]` byte 2) for the byte
of `v_cvt_sr_*`. Bytes and words of the destination that are not written keep their value.

Every snippet is assembled with llvm-mc-19 for gfx940, and LLVM must print it back unchanged.

Usage: gen_fp8.py [--check-only]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fp8.txt")
LLVM_MC = "llvm-mc-19"
LANES = 64
NAN8 = 0x80

# name, ml_dtypes type, mantissa bits, exponent bias, largest value
FORMATS = {
    "fp8": (ml_dtypes.float8_e4m3fnuz, 3, 8, 240.0),
    "bf8": (ml_dtypes.float8_e5m2fnuz, 2, 16, 57344.0),
}


def f32_bits(x):
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def f32_of_bits(b):
    return np.array([b], dtype=np.uint32).view(np.float32)[0]


def decode(byte, fmt):
    """ml_dtypes' value of `byte` as f32 bits; its NaN as the canonical quiet NaN."""
    t = FORMATS[fmt][0]
    v = np.array([byte], dtype=np.uint8).view(t).astype(np.float32)[0]
    if np.isnan(v):
        return 0x7FC00000
    return f32_bits(v)


def encode_exact(mag, negative, fmt):
    """A magnitude on the format's grid (a Fraction), or above its largest value, as a byte."""
    t, _, _, top = FORMATS[fmt]
    if mag > Fraction(top):
        return NAN8
    if mag == 0:
        return 0
    v = np.float32(float(mag))
    assert Fraction(float(v)) == mag
    b = int(np.array([-v if negative else v], dtype=np.float32).astype(t).view(np.uint8)[0])
    assert Fraction(float(np.array([b], dtype=np.uint8).view(t).astype(np.float64)[0])) == (
        -mag if negative else mag), (mag, fmt)
    return b


def rne(bits, fmt):
    """f32 bits -> byte, round to nearest even."""
    t, _, _, top = FORMATS[fmt]
    x = f32_of_bits(bits)
    if not np.isfinite(x):
        return NAN8
    b = int(np.array([x], dtype=np.float32).astype(t).view(np.uint8)[0])
    if b == NAN8:
        # ml_dtypes gives NaN only for a finite value above the largest: check that it is
        # beyond the rounding threshold (the largest plus half a step), as the rule says.
        _, m, bias, _ = FORMATS[fmt]
        half_step = Fraction(2) ** (int(np.log2(top)) - m - 1)
        assert Fraction(float(abs(x))) >= Fraction(top) + half_step, (bits, fmt)
    return b


def stochastic(bits, r, fmt):
    """f32 bits -> byte, rounded stochastically with random bits `r` (module doc)."""
    _, m, bias, _ = FORMATS[fmt]
    x = f32_of_bits(bits)
    if not np.isfinite(x):
        return NAN8
    a = abs(Fraction(float(x)))
    if a == 0:
        return 0
    emin = 1 - bias
    # floor(log2(a)), at least emin (f32 denormals lie far below emin).
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(emin, e)
    grid = Fraction(2) ** (e - 23)
    t = (a // grid) * grid
    drop = 23 - m
    s = t + (r & ((1 << drop) - 1)) * grid
    q = Fraction(2) ** (e - m)
    mag = (s // q) * q
    return encode_exact(mag, x < 0, fmt)


# ---------------------------------------------------------------------------------------------
# Inputs.


class Rng:
    """xorshift64*: a fixed sequence, so regenerating gives the same file."""

    def __init__(self, seed):
        self.s = seed or 1

    def next(self):
        s = self.s
        s ^= (s >> 12)
        s ^= (s << 25) & 0xFFFFFFFFFFFFFFFF
        s ^= (s >> 27)
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF


def grid_values(fmt):
    """Every finite value of the format, in order, as Fractions."""
    t = FORMATS[fmt][0]
    vals = set()
    for b in range(256):
        v = np.array([b], dtype=np.uint8).view(t).astype(np.float64)[0]
        if not np.isnan(v):
            vals.add(Fraction(float(v)))
    return sorted(vals)


def f32_near(fr):
    """The f32 bits of `fr` (exact) and of its two f32 neighbours."""
    b = f32_bits(float(fr))
    assert Fraction(float(f32_of_bits(b))) == fr
    return [b, b + 1, b - 1] if fr > 0 else [b]


def rne_inputs(fmt, rng):
    """f32 bit patterns for RNE: exact values, ties and their neighbours, the edges, random."""
    _, m, bias, top = FORMATS[fmt]
    g = [v for v in grid_values(fmt) if v >= 0]
    out = []
    for v in g:
        out.append(f32_bits(float(v)))
    for lo, hi in zip(g, g[1:]):
        out += f32_near((lo + hi) / 2)
    # Above the largest: the tie at max + half a step, beyond it, far beyond.
    step = Fraction(2) ** (int(np.log2(top)) - m)
    out += f32_near(Fraction(top) + step / 2)
    out += [f32_bits(float(top) * 1.5), f32_bits(1e30), f32_bits(3.4e38)]
    # Below the smallest denormal: half of it (a tie to 0), just above and below.
    out += f32_near(Fraction(2) ** (1 - bias - m - 1))
    out += [f32_bits(1e-30), 0x00000001, 0x007FFFFF, 0x00800000]
    # Specials.
    out += [0x7F800000, 0x7FC00000, 0x7F800001, 0xFFC00000]
    for _ in range(200):
        e = rng.next() % (2 * bias + 8) - bias - m - 3
        mant = rng.next() & 0x7FFFFF
        out.append(((e + 127) << 23) | mant)
    # Both signs of everything.
    return out + [b ^ 0x80000000 for b in out]


def sr_inputs(fmt, rng):
    """(f32 bits, random bits) pairs for stochastic rounding."""
    _, m, bias, top = FORMATS[fmt]
    drop = 23 - m
    g = [v for v in grid_values(fmt) if v > 0]
    vals = []
    for v in g[::3]:
        vals.append(f32_bits(float(v)))
    for lo, hi in list(zip(g, g[1:]))[::2]:
        vals += f32_near((lo + hi) / 2)
        vals.append(f32_bits(float(lo + (hi - lo) / 4)))
    step = Fraction(2) ** (int(np.log2(top)) - m)
    vals += f32_near(Fraction(top) + step / 2)
    vals += [f32_bits(float(top + step / 4)), f32_bits(1e30)]
    # Denormal results, a quarter and three quarters of the smallest denormal.
    tiny = Fraction(2) ** (1 - bias - m)
    vals += [f32_bits(float(tiny / 4)), f32_bits(float(3 * tiny / 4)),
             f32_bits(float(5 * tiny / 2)), 0x00000001, 0x7F800000, 0x7FC00000, 0]
    for _ in range(120):
        e = rng.next() % (2 * bias + 6) - bias - m - 2
        vals.append(((e + 127) << 23) | (rng.next() & 0x7FFFFF))
    vals += [b ^ 0x80000000 for b in vals]
    specials = [0, (1 << drop) - 1, 1 << (drop - 1), (1 << (drop - 1)) - 1, 0xFFFFFFFF,
                0xFFFFFFFF ^ ((1 << drop) - 1)]
    pairs = []
    for i, v in enumerate(vals):
        r = specials[i % len(specials)] if i % 3 == 0 else rng.next() & 0xFFFFFFFF
        pairs.append((v, r))
    return pairs


# ---------------------------------------------------------------------------------------------
# Vectors.


def hexes(vals):
    return "[" + ",".join(f"{v:#x}" for v in vals) + "]"


def chunks(xs, n):
    return [xs[i:i + n] for i in range(0, len(xs), n)]


def pad(xs, n, fill):
    return xs + [fill] * (n - len(xs))


def target_of(i):
    """Mostly gfx940; every third vector gfx942 (the same ops)."""
    return "gfx942" if i % 3 == 2 else "gfx940"


def decode_vectors(fmt):
    """All 256 bytes, four to a lane, through every byte and word select and encoding."""
    src = [sum((4 * l + k) << (8 * k) for k in range(4)) for l in range(LANES)]
    out = []
    for i, (asm, byte) in enumerate([
        (f"v_cvt_f32_{fmt}_e32 v1, v0", 0),
        (f"v_cvt_f32_{fmt}_sdwa v1, v0 src0_sel:BYTE_1", 1),
        (f"v_cvt_f32_{fmt}_sdwa v1, v0 src0_sel:BYTE_2", 2),
        (f"v_cvt_f32_{fmt}_sdwa v1, v0 src0_sel:BYTE_3", 3),
        (f"v_cvt_f32_{fmt}_e64 v1, v0", 0),
    ]):
        want = [decode((s >> (8 * byte)) & 0xFF, fmt) for s in src]
        out.append(f"{asm} | target={target_of(i)} v0={hexes(src)} | v1={hexes(want)}")
    for i, (asm, word) in enumerate([
        (f"v_cvt_pk_f32_{fmt}_e32 v[2:3], v0", 0),
        (f"v_cvt_pk_f32_{fmt}_sdwa v[2:3], v0 src0_sel:WORD_1", 1),
        (f"v_cvt_pk_f32_{fmt}_e64 v[2:3], v0", 0),
    ]):
        lo = [decode((s >> (16 * word)) & 0xFF, fmt) for s in src]
        hi = [decode((s >> (16 * word + 8)) & 0xFF, fmt) for s in src]
        out.append(f"{asm} | target={target_of(i)} v0={hexes(src)} | "
                   f"v2={hexes(lo)} v3={hexes(hi)}")
    # A scalar source: the same byte for every lane.
    b = 0xB7
    out.append(f"v_cvt_f32_{fmt}_e32 v1, s4 | target=gfx940 s4={0x12345600 | b:#x} | "
               f"v1={decode(b, fmt):#x}")
    return out


def rne_vectors(fmt, rng):
    vals = rne_inputs(fmt, rng)
    out = []
    old = 0xDEADBEEF
    for i, part in enumerate(chunks(vals, 2 * LANES)):
        a = pad(part[:LANES], LANES, 0)
        b = pad(part[LANES:], LANES, 0)
        for k, (sel, shift) in enumerate([("", 0), (" op_sel:[0,0,1]", 16)]):
            if k == 1 and i % 2 == 1:
                continue
            word = [rne(x, fmt) | rne(y, fmt) << 8 for x, y in zip(a, b)]
            want = [(old & ~(0xFFFF << shift)) | (w << shift) for w in word]
            asm = f"v_cvt_pk_{fmt}_f32 v2, v0, v1{sel}"
            out.append(f"{asm} | target={target_of(i + k)} v0={hexes(a)} v1={hexes(b)} "
                       f"v2={old:#x} | v2={hexes(want)}")
    # Input modifiers: -S0, |S1|, and both on one source.
    a, b = pad(vals[:LANES], LANES, 0), pad(vals[LANES:2 * LANES], LANES, 0)
    for mods, fa, fb in [
        ("-v0, |v1|", lambda x: x ^ 0x80000000, lambda x: x & 0x7FFFFFFF),
        ("-|v0|, -v1", lambda x: x | 0x80000000, lambda x: x ^ 0x80000000),
    ]:
        want = [rne(fa(x), fmt) | rne(fb(y), fmt) << 8 for x, y in zip(a, b)]
        out.append(f"v_cvt_pk_{fmt}_f32 v2, {mods} | target=gfx940 v0={hexes(a)} "
                   f"v1={hexes(b)} | v2={hexes(want)}")
    return out


def sr_vectors(fmt, rng):
    pairs = sr_inputs(fmt, rng)
    out = []
    old = 0x5A5A5A5A
    sels = [("", 0), (" op_sel:[0,0,1,0]", 1), (" op_sel:[0,0,0,1]", 2),
            (" op_sel:[0,0,1,1]", 3)]
    for i, part in enumerate(chunks(pairs, LANES)):
        part = pad(part, LANES, (0, 0))
        sel, byte = sels[i % 4]
        a = [p[0] for p in part]
        r = [p[1] for p in part]
        want = [(old & ~(0xFF << (8 * byte))) | stochastic(x, y, fmt) << (8 * byte)
                for x, y in part]
        out.append(f"v_cvt_sr_{fmt}_f32 v2, v0, v1{sel} | target={target_of(i)} "
                   f"v0={hexes(a)} v1={hexes(r)} v2={old:#x} | v2={hexes(want)}")
    # Input modifiers on the f32 source.
    part = pad(pairs[:LANES], LANES, (0, 0))
    a = [p[0] for p in part]
    r = [p[1] for p in part]
    want = [stochastic((x & 0x7FFFFFFF) ^ 0x80000000, y, fmt) for x, y in part]
    out.append(f"v_cvt_sr_{fmt}_f32 v2, -|v0|, v1 | target=gfx940 v0={hexes(a)} "
               f"v1={hexes(r)} | v2={hexes(want)}")
    return out


# ---------------------------------------------------------------------------------------------
# Checks.


def self_checks():
    """The rules against what ml_dtypes says where both speak, and a few values by hand."""
    for fmt, (t, m, bias, top) in FORMATS.items():
        assert decode(0x80, fmt) == 0x7FC00000
        assert decode(0x7F, fmt) == f32_bits(top)
        assert decode(0x01, fmt) == f32_bits(2.0 ** (1 - bias - m))
        # ml_dtypes has no -0, and overflows to its NaN: the rules say the same.
        assert rne(f32_bits(-0.0), fmt) == 0 and rne(f32_bits(-1e-30), fmt) == 0
        assert rne(f32_bits(top * 2), fmt) == NAN8
        for b in range(256):
            if b != NAN8:
                assert rne(decode(b, fmt), fmt) == b, (fmt, b)
                for r in (0, 0x12345678, 0xFFFFFFFF):
                    assert stochastic(decode(b, fmt), r, fmt) == b, (fmt, b, r)
    # FP8 1 + 1/16 is halfway between 0x40 and 0x41: RNE keeps 0x40; SR goes up with random
    # bits of at least half of 2^20.
    assert rne(f32_bits(1.0625), "fp8") == 0x40
    assert stochastic(f32_bits(1.0625), 0x7FFFF, "fp8") == 0x40
    assert stochastic(f32_bits(1.0625), 0x80000, "fp8") == 0x41
    # Half the smallest FP8 denormal (2^-11): SR's bits are counted after the shift.
    assert stochastic(f32_bits(2.0 ** -11), 0x80000, "fp8") == 0x01
    assert stochastic(f32_bits(2.0 ** -11), 0x7FFFF, "fp8") == 0x00
    # A carry into the next binade, and past the largest value.
    assert stochastic(f32_bits(1.9375), 0xFFFFF, "fp8") == 0x48
    assert stochastic(f32_bits(248.0), 0x80000, "fp8") == NAN8
    assert stochastic(f32_bits(-248.0), 0x7FFFF, "fp8") == 0xFF


def assemble_all(lines):
    """Every snippet through llvm-mc-19 for gfx940; LLVM must print each back unchanged."""
    asms = [l.split(" | ")[0] for l in lines if not l.startswith("#") and l.strip()]
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(asms) + "\n")
        path = f.name
    p = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx940",
                        "-show-encoding", path], capture_output=True, text=True)
    os.unlink(path)
    if p.returncode != 0 or p.stderr.strip():
        raise RuntimeError(f"llvm-mc:\n{p.stderr}")
    printed = [l.split(";")[0].strip() for l in p.stdout.splitlines()
               if l.strip().startswith("v_")]
    assert len(printed) == len(asms), (len(printed), len(asms))
    for want, got in zip(asms, printed):
        if " ".join(want.split()) != " ".join(got.split()):
            raise RuntimeError(f"`{want}` prints as `{got}`")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check-only", action="store_true", help="do not write fp8.txt")
    args = ap.parse_args()
    self_checks()
    lines = [
        "# FP8/BF8 conversion vectors for gfx940/gfx942 (format: emu/tests/vectors/README.md).",
        "# Generated by emu/tests/vectors/gen_fp8.py, not by hand and not from the emulator:",
        "# byte values and nearest-even rounding from ml_dtypes (float8_e4m3fnuz,",
        "# float8_e5m2fnuz), stochastic rounding from the script's rendering of ROCm's",
        "# reference model, NaN/overflow/zero rules as emu/src/exec/fp8.rs states them.",
    ]
    for k, fmt in enumerate(FORMATS):
        rng = Rng(0x9E3779B97F4A7C15 + k)
        lines.append("")
        lines.append(f"# {fmt} -> f32: all 256 bytes (byte 4l+k in byte k of lane l)")
        lines += decode_vectors(fmt)
        lines.append(f"# f32 -> {fmt}, round to nearest even (v_cvt_pk_{fmt}_f32)")
        lines += rne_vectors(fmt, rng)
        lines.append(f"# f32 -> {fmt}, stochastic rounding (v_cvt_sr_{fmt}_f32)")
        lines += sr_vectors(fmt, rng)
    assemble_all(lines)
    vectors = sum(1 for l in lines if l and not l.startswith("#"))
    if not args.check_only:
        with open(OUT, "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"gen_fp8.py: {vectors} vectors" + ("" if args.check_only else f" -> {OUT}"))


if __name__ == "__main__":
    sys.exit(main())
