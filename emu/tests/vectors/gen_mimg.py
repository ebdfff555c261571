#!/usr/bin/env python3
"""Writes emu/tests/vectors/mimg.txt: test vectors for the MIMG image ops in compute.

Nothing here comes from the emulator. Descriptors are built from the Vega ISA's image resource
(T#) and sampler (S#) tables; texels are laid out linearly (row y of slice z at
(z * height + y) * pitch texels from the base), the layout the emulator documents for the images
it runs (`emu/src/exec/mimg/texel.rs`). Expected values follow the rules
`emu/src/exec/mimg/filter.rs` states, worked out with exact rationals:

- a normalised coordinate c becomes u = c * size rounded to f32, then u is rounded to the
  nearest 1/256 of a texel (ties to even);
- point filtering takes texel floor(u); bilinear takes floor(u - 1/2) and the next, weighted by
  the fraction of u - 1/2 (an exact multiple of 1/256);
- address modes on texel indices: wrap, mirror, clamp to the last texel, border (transparent
  black);
- the weighted sum is exact, then rounded once to f32 (nearest even).

Mip levels (`texel.rs`): resource level r is max(1, W >> r) by max(1, H >> r) (3D: by
max(1, D >> r)), with every slice or face at every level, rows max(1, PITCH >> r) texels apart,
each level right after the previous one's last slice; the view's level 0 is BASE_LEVEL. The LOD
(`lod.rs`): coarse quad derivatives (lanes 4q+1 and 4q+2 minus lane 4q, f32) or the given ones,
in texels of the view's level 0; log2 of the longer vector rounded to 1/256 (the script computes
it in floating point and asserts it is not within 1e-6 of a rounding tie); plus the S# LOD_BIAS
and `_b`'s bias (rounded to 1/256); clamped below by MIN_LOD and `_cl`, above by MAX_LOD; at or
below 0 the mag filter, else the min filter; MIP_FILTER none, point (ceil(LOD + 1/2) - 1) or
linear (the two levels around the LOD, weighted by its fraction). Depth compare (`compare.rs`):
`reference OP texel` on the texel's X as 1.0 or 0.0, filtered; the reference clamped to [0, 1]
for UNORM. Cubes (`sample.rs`): s, t normalised over the face, the face (cube arrays:
8 * slice + face) selecting layer 6 * slice + face, taps clamped to the face's edges. `_pck`
(`mod.rs`): components' raw bits, zero- or sign-extended. D16 forms of the `_pck` ops have no
vector: llvm-mc-15 refuses `d16` on them.

UNORM texels are v / (2^n - 1) rounded to f32. Loads outside the image read 0, stores outside
it are dropped. Every snippet is assembled with llvm-mc-15 for gfx900 and must print back
unchanged.

The vectors run with `target=gfx900`; buf0, the first buffer a vector declares, is at
0x1_0000_0000 (the test memory's first 64 KiB-aligned address above 4 GiB), which the T#s name.

Usage: gen_mimg.py [--check-only]
"""

import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

BASE = 0x1_0000_0000
HERE = os.path.dirname(os.path.abspath(__file__))

# SQ_RSRC_IMG types, SQ_SEL values, SQ_TEX_CLAMP modes, SQ_TEX_Z_FILTER (MIP_FILTER) values,
# SQ_TEX_DEPTH_COMPARE functions.
T1D, T2D, T3D, TCUBE, T1DA, T2DA = 8, 9, 10, 11, 12, 13
MIP_NONE, MIP_POINT, MIP_LINEAR = 0, 1, 2
NEVER, LESS, EQUAL, LEQUAL, GREATER, NOTEQUAL, GEQUAL, ALWAYS = range(8)
SEL_0, SEL_1, SEL_X, SEL_Y, SEL_Z, SEL_W = 0, 1, 4, 5, 6, 7
WRAP, MIRROR, CLAMP_LAST, BORDER = 0, 1, 2, 6


def tsharp(dfmt, nfmt, width, height, kind, pitch, depth=1, sel=(SEL_X, SEL_Y, SEL_Z, SEL_W), last_level=0, base_level=0):
    w = [0] * 8
    w[0] = (BASE >> 8) & 0xFFFFFFFF
    w[1] = ((BASE >> 40) & 0xFF) | dfmt << 20 | nfmt << 26
    w[2] = (width - 1) | (height - 1) << 14
    w[3] = sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9 | base_level << 12 | last_level << 16 | kind << 28
    w[4] = (depth - 1) | (pitch - 1) << 13
    return w


def ssharp(clamp=(CLAMP_LAST, CLAMP_LAST, CLAMP_LAST), unnormalized=False, bilinear=False, mag=None, minf=None,
           mip=MIP_NONE, min_lod=0, max_lod=15 * 256, lod_bias=0, compare=0):
    """The S# words (Vega ISA "Image Sampler" table). min_lod/max_lod are u4.8 and lod_bias s5.8,
    all in 1/256 of a level; mag/minf override the bilinear switch for one filter."""
    w = [0] * 4
    w[0] = clamp[0] | clamp[1] << 3 | clamp[2] << 6 | compare << 12 | (1 << 15 if unnormalized else 0)
    w[1] = min_lod | max_lod << 12
    f = 1 if bilinear else 0
    mag = f if mag is None else mag
    minf = f if minf is None else minf
    w[2] = (lod_bias & 0x3FFF) | mag << 20 | minf << 22 | (2 if bilinear else 1) << 24 | mip << 26
    return w


def f32_bits(x):
    """An exact rational rounded to the nearest f32 (ties to even), as bits."""
    x = Fraction(x)
    if x == 0:
        return 0
    sign = 0x80000000 if x < 0 else 0
    a = abs(x)
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)
    m = a / Fraction(2) ** (e - 23)
    q = math.floor(m)
    r = m - q
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and q % 2 == 1):
        q += 1
    if q == 1 << 24:
        q, e = 1 << 23, e + 1
    if q < 1 << 23:
        return sign | q  # denormal
    assert e + 127 < 255
    return sign | (e + 127) << 23 | (q - (1 << 23))


def f32(x):
    """The f32 nearest x, as a Fraction."""
    return Fraction(struct.unpack("<f", struct.pack("<I", f32_bits(x)))[0])


def f32_of_bits(b):
    return Fraction(struct.unpack("<f", struct.pack("<I", b))[0])


def address(mode, i, n):
    if mode == WRAP:
        return i % n
    if mode == MIRROR:
        m = i % (2 * n)
        return 2 * n - 1 - m if m >= n else m
    if mode == CLAMP_LAST:
        return min(max(i, 0), n - 1)
    return i if 0 <= i < n else None


def quantise(u):
    q = u * 256
    fl = math.floor(q)
    r = q - fl
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    return Fraction(fl, 256)


def axis(c, size, normalized, bilinear, mode):
    u = f32(c * size) if normalized else Fraction(c)
    q = quantise(u)
    if not bilinear:
        return [(address(mode, math.floor(q), size), Fraction(1))]
    t = q - Fraction(1, 2)
    i0 = math.floor(t)
    b = t - i0
    return [(address(mode, i0, size), 1 - b), (address(mode, i0 + 1, size), b)]


def sample2d(texels, w, h, x, y, normalized, bilinear, modes):
    total = Fraction(0)
    for ty, wy in axis(y, h, normalized, bilinear, modes[1]):
        for tx, wx in axis(x, w, normalized, bilinear, modes[0]):
            if wx * wy == 0:
                continue
            v = Fraction(0) if tx is None or ty is None else texels[ty][tx]
            total += wx * wy * v
    return f32_bits(total)


def hexs(v):
    return f"{v:#x}"


def lanes(vals):
    """A VGPR list for the first lanes (EXEC covers them); the other lanes are not checked."""
    return "[" + ",".join(hexs(v) for v in vals) + f",_*{64 - len(vals)}]"


def lanes_in(vals):
    return "[" + ",".join(hexs(v) for v in vals) + "]"


def sgprs(first, words):
    return f"s[{first}:{first + len(words) - 1}]=[" + ",".join(hexs(w) for w in words) + "]"


def dwords_of(texels_bits):
    return "[" + ",".join(hexs(w) for w in texels_bits) + "]"


# A 4x3 float image (pitch 4), values with bits that bilinear weights do not keep exact.
W, H = 4, 3
FLOATS = [[f32(Fraction(1, 3) * (3 * y + x) - Fraction(7, 5)) for x in range(W)] for y in range(H)]
FLOAT_BITS = [f32_bits(v) for row in FLOATS for v in row]
FLOAT_BUF = f"buf0=64 buf0+0={dwords_of(FLOAT_BITS)}"


def vec_load_float():
    coords = [(0, 0), (3, 2), (4, 0), (1, 2)]
    want = [FLOAT_BITS[y * W + x] if x < W and y < H else 0 for x, y in coords]
    t = tsharp(4, 7, W, H, T2D, W)
    return ("image_load v4, v[0:1], s[8:15] dmask:0x1 unorm; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0={lanes_in([c[0] for c in coords])} v1={lanes_in([c[1] for c in coords])} {sgprs(8, t)} {FLOAT_BUF}",
            f"v4={lanes(want)}")


def vec_load_unorm_swizzle():
    # 8_8_8_8 UNORM, 2x2; DST_SEL (Z, Y, X, 1); DMASK 0xb returns components 0, 1, 3.
    px = [(10, 200, 255, 7), (0, 1, 128, 254), (33, 66, 99, 132), (255, 0, 255, 0)]
    words = [p[0] | p[1] << 8 | p[2] << 16 | p[3] << 24 for p in px]
    t = tsharp(10, 0, 2, 2, T2D, 2, sel=(SEL_Z, SEL_Y, SEL_X, SEL_1))
    coords = [(0, 0), (1, 0), (0, 1), (1, 1)]
    rows = [[], [], []]
    for x, y in coords:
        p = px[y * 2 + x]
        comps = [Fraction(p[2], 255), Fraction(p[1], 255), Fraction(p[0], 255), Fraction(1)]
        for k, c in enumerate([0, 1, 3]):
            rows[k].append(f32_bits(comps[c]))
    return ("image_load v[4:6], v[0:1], s[8:15] dmask:0xb unorm; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0={lanes_in([c[0] for c in coords])} v1={lanes_in([c[1] for c in coords])} {sgprs(8, t)} buf0=64 buf0+0={dwords_of(words)}",
            " ".join(f"v{4 + k}={lanes(r)}" for k, r in enumerate(rows)))


def vec_store_uint16():
    # 16_16 UINT, 3x2 (pitch 4); lanes store (x, y) = (lane, 1) with lane 3 outside.
    t = tsharp(5, 4, 3, 2, T2D, 4)
    xs, ys = [0, 1, 2, 3], [1, 1, 1, 1]
    d0, d1 = [0x1234, 0xFFFF, 7, 9], [0xABCD, 0, 0x8000, 9]
    mem = [0xEEEEEEEE] * 8
    for x, y, a, b in zip(xs, ys, d0, d1):
        if x < 3 and y < 2:
            mem[y * 4 + x] = a | b << 16
    return ("image_store v[4:5], v[0:1], s[8:15] dmask:0x3 unorm; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0={lanes_in(xs)} v1={lanes_in(ys)} v4={lanes_in(d0)} v5={lanes_in(d1)} {sgprs(8, t)} buf0=64 buf0+0={dwords_of([0xEEEEEEEE] * 8)}",
            f"buf0+0={dwords_of(mem)}")


def vec_sample(name, coords, normalized, bilinear, modes, gather=False):
    t = tsharp(4, 7, W, H, T2D, W)
    s = ssharp(clamp=(modes[0], modes[1], CLAMP_LAST), unnormalized=not normalized, bilinear=bilinear)
    xs = [f32_bits(c[0]) for c in coords]
    ys = [f32_bits(c[1]) for c in coords]
    if gather:
        rows = [[], [], [], []]
        for (x, y) in coords:
            ax = axis(f32_of_bits(f32_bits(x)), W, normalized, True, modes[0])
            ay = axis(f32_of_bits(f32_bits(y)), H, normalized, True, modes[1])
            taps = [(ax[0][0], ay[1][0]), (ax[1][0], ay[1][0]), (ax[1][0], ay[0][0]), (ax[0][0], ay[0][0])]
            for k, (tx, ty) in enumerate(taps):
                rows[k].append(0 if tx is None or ty is None else f32_bits(FLOATS[ty][tx]))
        asm = "image_gather4_lz v[4:7], v[0:1], s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)"
        want = " ".join(f"v{4 + k}={lanes(r)}" for k, r in enumerate(rows))
    else:
        vals = [sample2d(FLOATS, W, H, f32_of_bits(f32_bits(x)), f32_of_bits(f32_bits(y)), normalized, bilinear, modes)
                for x, y in coords]
        asm = f"{name} v4, v[0:1], s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)"
        want = f"v4={lanes(vals)}"
    return (asm,
            f"target=gfx900 exec=0xf v0={lanes_in(xs)} v1={lanes_in(ys)} {sgprs(8, t)} {sgprs(16, s)} {FLOAT_BUF}",
            want)


def vec_sample_l():
    # An explicit LOD of 0 on a one-level image: the mag filter (bilinear), level 0.
    t = tsharp(4, 7, W, H, T2D, W)
    s = ssharp(bilinear=True)
    coords = [(Fraction(3, 10), Fraction(1, 2)), (Fraction(9, 10), Fraction(1, 7)), (Fraction(1, 2), Fraction(1, 2)), (Fraction(-1, 9), Fraction(5, 4))]
    xs = [f32_bits(c[0]) for c in coords]
    ys = [f32_bits(c[1]) for c in coords]
    vals = [sample2d(FLOATS, W, H, f32_of_bits(x), f32_of_bits(y), True, True, (CLAMP_LAST, CLAMP_LAST)) for x, y in zip(xs, ys)]
    return ("image_sample_l v4, v[0:2], s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0={lanes_in(xs)} v1={lanes_in(ys)} v2=0 {sgprs(8, t)} {sgprs(16, s)} {FLOAT_BUF}",
            f"v4={lanes(vals)}")


def vec_resinfo():
    # 7x5 with LAST_LEVEL 2: levels 7x5, 3x2, 1x1; a level past the last gives 0 sizes.
    t = tsharp(4, 7, 7, 5, T2D, 8, last_level=2)
    levels = [0, 1, 2, 3]
    size = lambda l: (max(7 >> l, 1), max(5 >> l, 1), 1) if l <= 2 else (0, 0, 0)
    rows = [[size(l)[0] for l in levels], [size(l)[1] for l in levels], [size(l)[2] for l in levels], [3] * 4]
    return ("image_get_resinfo v[4:7], v0, s[8:15] dmask:0xf unorm; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0={lanes_in(levels)} {sgprs(8, t)}",
            " ".join(f"v{4 + k}={lanes(r)}" for k, r in enumerate(rows)))


def vec_load_3d_d16():
    # 32 FLOAT 3D image 2x2x2, read with D16: f16 pairs (X in bits 15:0, Y = 0 in 31:16),
    # then Z = 0 and W = 1.0.
    vals = [Fraction(k, 4) - 1 for k in range(8)]
    t = tsharp(4, 7, 2, 2, T3D, 2, depth=2)
    coords = [(0, 0, 0), (1, 1, 1), (0, 1, 1), (1, 0, 2)]

    def f16(v):
        return struct.unpack("<H", struct.pack("<e", float(v)))[0]

    lo, hi = [], []
    for x, y, z in coords:
        inside = z < 2
        v = vals[(z * 2 + y) * 2 + x] if inside else 0
        lo.append(f16(v))
        hi.append(f16(1) << 16 if inside else 0)
    return ("image_load v[4:5], v[0:2], s[8:15] dmask:0xf unorm d16; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0={lanes_in([c[0] for c in coords])} v1={lanes_in([c[1] for c in coords])} v2={lanes_in([c[2] for c in coords])} {sgprs(8, t)} buf0=64 buf0+0={dwords_of([f32_bits(v) for v in vals])}",
            f"v4={lanes(lo)} v5={lanes(hi)}")


def variant_vector(name):
    """One vector for a sample or gather4 variant: its address dwords in the ISA's order
    (offset, bias, z-compare, derivatives, coordinates, LOD or clamp), a bilinear clamp-to-edge
    sampler with normalised coordinates on the one-level 4x3 image, so that the LOD changes
    nothing; the compare variants compare with less-or-equal."""
    parts = name.split("_")[2:]
    gather = name.startswith("image_gather4")
    offset = parts[-1:] == ["o"]
    bias = "b" in parts
    derivs = "d" in parts or "cd" in parts
    lod = "l" in parts
    clamp = "cl" in parts
    comp = "c" in parts
    refs = [f32(r) for r in (FLOATS[1][1], Fraction(0), FLOATS[2][3] - Fraction(1, 100), Fraction(-1, 5))]
    coords = [(Fraction(3, 10), Fraction(1, 2)), (Fraction(9, 10), Fraction(1, 7)),
              (Fraction(-1, 9), Fraction(5, 4)), (Fraction(1, 2), Fraction(2, 3))]
    offs = [(1, 0), (-2, 1), (0, -1), (31, -32)] if offset else [(0, 0)] * 4
    dwords = []  # per address dword: lane values
    if offset:
        dwords.append([(ox & 0x3F) | (oy & 0x3F) << 8 for ox, oy in offs])
    if bias:
        dwords.append([f32_bits(Fraction(-1, 4))] * 4)
    if comp:
        dwords.append([f32_bits(r) for r in refs])
    if derivs:
        dwords += [[f32_bits(Fraction(k + 1, 64))] * 4 for k in range(4)]
    dwords.append([f32_bits(c[0]) for c in coords])
    dwords.append([f32_bits(c[1]) for c in coords])
    if lod:
        dwords.append([0] * 4)
    if clamp:
        dwords.append([f32_bits(Fraction(3))] * 4)
    t = tsharp(4, 7, W, H, T2D, W)
    s = ssharp(bilinear=True, compare=LEQUAL if comp else 0)
    xs = [f32_of_bits(f32_bits(c[0])) for c in coords]

    def val(i, tx, ty):
        v = FLOATS[ty][tx]
        return depth_compare(LEQUAL, refs[i], v) if comp else v
    ys = [f32_of_bits(f32_bits(c[1])) for c in coords]

    def taps(i):
        # Offsets move the texel indices before the address mode.
        ox, oy = offs[i]
        return shift_axis(f32(xs[i] * W), W, ox), shift_axis(f32(ys[i] * H), H, oy)

    if gather:
        rows = [[], [], [], []]
        for i in range(4):
            ax, ay = taps(i)
            order = [(ax[0][0], ay[1][0]), (ax[1][0], ay[1][0]), (ax[1][0], ay[0][0]), (ax[0][0], ay[0][0])]
            for k, (tx, ty) in enumerate(order):
                rows[k].append(f32_bits(val(i, tx, ty)))
        want = " ".join(f"v{20 + k}={lanes(r)}" for k, r in enumerate(rows))
        dst = "v[20:23]"
    else:
        vals = []
        for i in range(4):
            ax, ay = taps(i)
            total = sum(wx * wy * val(i, tx, ty) for ty, wy in ay for tx, wx in ax)
            vals.append(f32_bits(total))
        want = f"v20={lanes(vals)}"
        dst = "v20"
    vaddr = vreg_range(0, len(dwords))
    ins = " ".join(f"v{k}={lanes_in(d)}" for k, d in enumerate(dwords))
    return (f"{name} {dst}, {vaddr}, s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf {ins} {sgprs(8, t)} {sgprs(16, s)} {FLOAT_BUF}",
            want)


def shift_axis(u, size, off):
    """Bilinear taps of texel-space u with a texel offset, clamped to the edge."""
    q = quantise(u)
    t = q - Fraction(1, 2)
    i0 = math.floor(t) + off
    b = t - math.floor(t)
    return [(address(CLAMP_LAST, i0, size), 1 - b), (address(CLAMP_LAST, i0 + 1, size), b)]


SAMPLE_VARIANTS = [
    "image_sample", "image_sample_cl", "image_sample_d", "image_sample_d_cl", "image_sample_l",
    "image_sample_b", "image_sample_b_cl", "image_sample_lz", "image_sample_cd", "image_sample_cd_cl",
    "image_sample_o", "image_sample_cl_o", "image_sample_d_o", "image_sample_d_cl_o", "image_sample_l_o",
    "image_sample_b_o", "image_sample_b_cl_o", "image_sample_lz_o", "image_sample_cd_o",
    "image_sample_cd_cl_o", "image_gather4", "image_gather4_cl", "image_gather4_l", "image_gather4_b",
    "image_gather4_b_cl", "image_gather4_lz", "image_gather4_o", "image_gather4_cl_o", "image_gather4_l_o",
    "image_gather4_b_o", "image_gather4_b_cl_o", "image_gather4_lz_o",
    "image_sample_c", "image_sample_c_cl", "image_sample_c_d", "image_sample_c_d_cl", "image_sample_c_l",
    "image_sample_c_b", "image_sample_c_b_cl", "image_sample_c_lz", "image_sample_c_o", "image_sample_c_cl_o",
    "image_sample_c_d_o", "image_sample_c_d_cl_o", "image_sample_c_l_o", "image_sample_c_b_o",
    "image_sample_c_b_cl_o", "image_sample_c_lz_o", "image_sample_c_cd", "image_sample_c_cd_cl",
    "image_sample_c_cd_o", "image_sample_c_cd_cl_o", "image_gather4_c", "image_gather4_c_cl", "image_gather4_c_l",
    "image_gather4_c_b", "image_gather4_c_b_cl", "image_gather4_c_lz", "image_gather4_c_o", "image_gather4_c_cl_o",
    "image_gather4_c_l_o", "image_gather4_c_b_o", "image_gather4_c_b_cl_o", "image_gather4_c_lz_o",
]


def vec_mip():
    """image_load_mip and image_store_mip at level 0 of a one-level 2x2 32 UINT image."""
    t = tsharp(4, 4, 2, 2, T2D, 2)
    mem = [11, 22, 33, 44]
    load = ("image_load_mip v4, v[0:2], s[8:15] dmask:0x1 unorm; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xf v0=[0,1,0,1] v1=[0,0,1,1] v2=[0,0,0,1] {sgprs(8, t)} buf0=64 buf0+0={dwords_of(mem)}",
            # Level 1 is past the one level: 0.
            f"v4={lanes([11, 22, 33, 0])}")
    store = ("image_store_mip v4, v[0:2], s[8:15] dmask:0x1 unorm; s_waitcnt vmcnt(0)",
             f"target=gfx900 exec=0xf v0=[0,1,0,1] v1=[0,0,1,1] v2=[0,0,0,1] v4=[5,6,7,8] {sgprs(8, t)} buf0=64 buf0+0={dwords_of(mem)}",
             f"buf0+0={dwords_of([5, 6, 7, 44])}")
    return [load, store]


ATOMICS = {
    "swap": lambda old, a, b: a,
    "add": lambda old, a, b: (old + a) & 0xFFFFFFFF,
    "sub": lambda old, a, b: (old - a) & 0xFFFFFFFF,
    "smin": lambda old, a, b: min(sx(old), sx(a)) & 0xFFFFFFFF,
    "umin": lambda old, a, b: min(old, a),
    "smax": lambda old, a, b: max(sx(old), sx(a)) & 0xFFFFFFFF,
    "umax": lambda old, a, b: max(old, a),
    "and": lambda old, a, b: old & a,
    "or": lambda old, a, b: old | a,
    "xor": lambda old, a, b: old ^ a,
    # inc/dec wrap at the data value (ISA: tmp >= DATA ? 0 : tmp + 1; tmp == 0 || tmp > DATA ? DATA : tmp - 1).
    "inc": lambda old, a, b: 0 if old >= a else old + 1,
    "dec": lambda old, a, b: a if old == 0 or old > a else old - 1,
}


def sx(v):
    return v - (1 << 32) if v & 0x80000000 else v


def vec_atomics():
    """Each image atomic with glc on four texels of a 4x1 32 UINT image, one per lane."""
    t = tsharp(4, 4, 4, 1, T2D, 4)
    mem = [5, 0xFFFFFFF0, 0x80000000, 0]
    data = [3, 0x10, 7, 0xFFFFFFFF]
    out = []
    for name, f in ATOMICS.items():
        new = [f(o, a, 0) for o, a in zip(mem, data)]
        out.append((f"image_atomic_{name} v4, v[0:1], s[8:15] dmask:0x1 unorm glc; s_waitcnt vmcnt(0)",
                    f"target=gfx900 exec=0xf v0=[0,1,2,3] v1=0 v4={lanes_in(data)} {sgprs(8, t)} buf0=64 buf0+0={dwords_of(mem)}",
                    f"v4={lanes(mem)} buf0+0={dwords_of(new)}"))
    # cmpswap: data (new value) then the compare value; lanes 1 and 3 compare unequal.
    cmp = [5, 1, 0x80000000, 9]
    new = [d if o == c else o for o, d, c in zip(mem, data, cmp)]
    out.append(("image_atomic_cmpswap v[4:5], v[0:1], s[8:15] dmask:0x3 unorm glc; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0xf v0=[0,1,2,3] v1=0 v4={lanes_in(data)} v5={lanes_in(cmp)} {sgprs(8, t)} buf0=64 buf0+0={dwords_of(mem)}",
                f"v4={lanes(mem)} buf0+0={dwords_of(new)}"))
    return out


# ---------------------------------------------------------------------------------------------
# Mip levels, LOD, depth compare, image_get_lod, _pck, cube maps: the rules of
# emu/src/exec/mimg/texel.rs (layout), lod.rs (LOD), compare.rs, sample.rs (cubes) and mod.rs
# (_pck), restated here.

def vreg_range(first, n):
    """A VGPR range of n registers as llvm-mc takes it for vaddr: 1 to 8, then 16."""
    size = n if n <= 8 else 16
    return f"v{first}" if size == 1 else f"v[{first}:{first + size - 1}]"


class MipImage:
    """A linear image with mip levels: resource level r is max(1, W >> r) x max(1, H >> r)
    (3D: x max(1, D >> r)), every level with the same slices or faces, rows max(1, PITCH >> r)
    texels apart, each level right after the previous one's last slice."""

    def __init__(self, kind, w, h, d, pitch, levels, value, base=0, last=None, dfmt=4, nfmt=7):
        self.kind, self.w, self.h, self.d, self.pitch = kind, w, h, d, pitch
        self.res_levels, self.value, self.base = levels, value, base
        self.last = levels - 1 if last is None else last
        self.dfmt, self.nfmt = dfmt, nfmt

    def rext(self, r):
        sh = lambda v: max(1, v >> r)
        if self.kind == T3D:
            return (sh(self.w), sh(self.h), sh(self.d))
        if self.kind == T1D:
            return (sh(self.w), 1, 1)
        if self.kind == T1DA:
            return (sh(self.w), 1, self.d)
        return (sh(self.w), sh(self.h), self.d)

    def rpitch(self, r):
        return max(1, self.pitch >> r)

    def start(self, r):
        return sum(self.rpitch(j) * self.rext(j)[1] * self.rext(j)[2] for j in range(r))

    def index(self, r, x, y, z):
        return self.start(r) + (z * self.rext(r)[1] + y) * self.rpitch(r) + x

    def views(self):
        return self.last - self.base + 1

    def extent(self, v):
        return self.rext(self.base + v)

    def tex(self, v, x, y, z):
        return self.value(self.base + v, x, y, z)

    def words(self, pad=0xDEADBEEF):
        out = [pad] * self.start(self.res_levels)
        for r in range(self.res_levels):
            w, h, d = self.rext(r)
            for z in range(d):
                for y in range(h):
                    for x in range(w):
                        v = self.value(r, x, y, z)
                        out[self.index(r, x, y, z)] = f32_bits(v) if self.nfmt == 7 else v
        return out

    def buf(self):
        ws = self.words()
        return f"buf0={4 * len(ws)} buf0+0={dwords_of(ws)}"

    def tsharp(self):
        return tsharp(self.dfmt, self.nfmt, self.w, self.h, self.kind, self.pitch, depth=self.d,
                      last_level=self.last, base_level=self.base)


class Samp:
    def __init__(self, mag=1, minf=1, mip=MIP_NONE, min_lod=0, max_lod=15 * 256, lod_bias=0, compare=0,
                 clamp=(CLAMP_LAST, CLAMP_LAST, CLAMP_LAST)):
        self.mag, self.minf, self.mip = mag, minf, mip
        self.min_lod, self.max_lod, self.lod_bias, self.compare, self.clamp = min_lod, max_lod, lod_bias, compare, clamp

    def words(self):
        return ssharp(clamp=self.clamp, bilinear=False, mag=self.mag, minf=self.minf, mip=self.mip,
                      min_lod=self.min_lod, max_lod=self.max_lod, lod_bias=self.lod_bias, compare=self.compare)


NEG_INF = Fraction(-10 ** 9)  # below every clamp: stands for log2(0)


def raw_lod(dx, dy):
    """log2 of the longer derivative vector (exact rationals, in texels), to the nearest 1/256."""
    l2 = max(sum(d * d for d in dx), sum(d * d for d in dy))
    if l2 == 0:
        return NEG_INF
    v = 128 * (math.log2(l2.numerator) - math.log2(l2.denominator))
    assert abs(v - math.floor(v) - Fraction(1, 2)) > 1e-6, "LOD too near a rounding tie"
    return Fraction(math.floor(v + 0.5), 256)


def finish(sp, raw, bias=Fraction(0), cl=None):
    lod = raw + Fraction(sp.lod_bias, 256) + quantise(bias)
    lo = Fraction(sp.min_lod, 256)
    if cl is not None:
        lo = max(lo, quantise(cl))
    return lod, min(max(lod, lo), Fraction(sp.max_lod, 256))


def pick(sp, lod, levels, gather=False):
    last = levels - 1
    lv = lambda v: min(max(v, 0), last)
    if sp.mip == MIP_LINEAR and not gather and lod > 0:
        i = math.floor(lod)
        f = lod - i
        if f == 0 or i >= last:
            return [(lv(i), Fraction(1))]
        return [(lv(i), 1 - f), (lv(i + 1), f)]
    if sp.mip in (MIP_POINT, MIP_LINEAR):
        return [(lv(math.ceil(lod + Fraction(1, 2)) - 1), Fraction(1))]
    return [(0, Fraction(1))]


def taps(u, n, linear, mode, off=0):
    q = quantise(u)
    if not linear:
        return [(address(mode, math.floor(q) + off, n), Fraction(1))]
    t = q - Fraction(1, 2)
    i0 = math.floor(t)
    b = t - i0
    return [(address(mode, i0 + off, n), 1 - b), (address(mode, i0 + 1 + off, n), b)]


def depth_compare(func, ref, v):
    ok = [False, ref < v, ref == v, ref <= v, ref > v, ref != v, ref >= v, True][func]
    return Fraction(1 if ok else 0)


def cube_layer(c, layers):
    n = max(math.floor(c + Fraction(1, 2)), 0)
    cubes = max(layers // 6, 1)
    return min(6 * min(n // 8, cubes - 1) + min(n % 8, 5), layers - 1)


def model_sample(img, sp, c, lod, gather=False, ref=None, offs=(0, 0), comp=0):
    """One lane's sample (f32 bits of X; with ref, the filtered comparison) or gather4 (four
    f32 bits), c the lane's coordinates (f32 values), lod the clamped LOD or None for _lz."""
    magnify = True if lod is None else lod <= 0
    picks = [(0, Fraction(1))] if lod is None else pick(sp, lod, img.views(), gather)
    lin = True if gather else (sp.mag if magnify else sp.minf) == 1
    cube = img.kind == TCUBE
    dims = 1 if img.kind in (T1D, T1DA) else 2
    total = Fraction(0)
    for level, wm in picks:
        size = img.extent(level)
        ax = []
        for i in range(dims):
            mode = CLAMP_LAST if cube else sp.clamp[i]
            ax.append(taps(f32(c[i] * size[i]), size[i], lin, mode, offs[i]))
        if dims == 1:
            ax.append([(0, Fraction(1))])
        if img.kind in (T1DA, T2DA):
            z = min(max(math.floor(c[dims] + Fraction(1, 2)), 0), size[2] - 1)
        elif cube:
            z = cube_layer(c[2], size[2])
        else:
            z = 0

        def val(tx, ty):
            v = Fraction(0) if tx is None or ty is None else img.tex(level, tx, ty, z)
            return v if ref is None else depth_compare(sp.compare, ref, v)

        if gather:
            (x0, _), (x1, _) = ax[0]
            (y0, _), (y1, _) = ax[1]
            return [f32_bits(val(x, y)) for x, y in [(x0, y1), (x1, y1), (x1, y0), (x0, y0)]]
        for ty, wy in ax[1]:
            for tx, wx in ax[0]:
                if wm * wx * wy != 0:
                    total += wm * wx * wy * val(tx, ty)
    return f32_bits(total)


def quad_derivs(coords, l, size):
    """Coarse derivatives of lane l's quad in texels: lane 4q+1 and 4q+2 minus lane 4q (f32)."""
    q = l & ~3
    dx = [f32(coords[q + 1][i] - coords[q][i]) * size[i] for i in range(2)]
    dy = [f32(coords[q + 2][i] - coords[q][i]) * size[i] for i in range(2)]
    return dx, dy


def regs(first, rows):
    """v{first}.. inputs from per-dword lane lists."""
    return " ".join(f"v{first + k}={lanes_in([v if isinstance(v, int) else f32_bits(v) for v in r])}" for k, r in enumerate(rows))


def outs(first, rows):
    return " ".join(f"v{first + k}={lanes(r)}" for k, r in enumerate(rows))


def mip_float(r, x, y, z):
    return f32(Fraction(1, 3) * (x + 5 * y + 7 * z) + 10 * r - Fraction(7, 5))


def vec_mip_load_store():
    out = []
    val = lambda r, x, y, z: 1000 * r + 100 * z + 10 * y + x + 1
    # 2D 6x4 with PITCH 8: levels 6x4 (pitch 8), 3x2 (pitch 4), 1x1 (pitch 2).
    img = MipImage(T2D, 6, 4, 1, 8, 3, val, nfmt=4)
    pts = [(5, 3, 0), (2, 1, 1), (0, 0, 2), (3, 0, 1), (0, 0, 3), (1, 1, 1), (0, 1, 2), (2, 0, 1)]

    def load(img, pts, coords):
        want = []
        for p in pts:
            *xyz, lv = p
            x, y, z = (xyz + [0, 0])[:3]
            inside = lv < img.views() and all(a < b for a, b in zip((x, y, z), img.extent(lv)))
            want.append(img.tex(lv, x, y, z) if inside else 0)
        rows = [[p[k] for p in pts] for k in range(coords + 1)]
        return (f"image_load_mip v20, {vreg_range(0, coords + 1)}, s[8:15] dmask:0x1 unorm; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec={hex((1 << len(pts)) - 1)} {regs(0, rows)} {sgprs(8, img.tsharp())} {img.buf()}",
                f"v20={lanes(want)}")

    out.append(load(img, pts, 2))
    # A view of levels 1..2 (BASE_LEVEL 1): view level 0 is resource level 1.
    view = MipImage(T2D, 6, 4, 1, 8, 3, val, nfmt=4, base=1, last=2)
    out.append(load(view, [(2, 1, 0), (0, 0, 1), (0, 0, 2), (1, 1, 0)], 2))
    # A 2D array 4x2 with 3 slices and 2 levels; a 3D image 4x2x4 with 3 levels.
    arr = MipImage(T2DA, 4, 2, 3, 4, 2, val, nfmt=4)
    out.append(load(arr, [(3, 1, 2, 0), (1, 0, 2, 1), (0, 0, 1, 1), (1, 1, 0, 0), (0, 1, 1, 1), (1, 0, 3, 1)], 3))
    vol = MipImage(T3D, 4, 2, 4, 4, 3, val, nfmt=4)
    out.append(load(vol, [(3, 1, 3, 0), (1, 0, 1, 1), (0, 0, 0, 2), (0, 0, 2, 1), (1, 0, 0, 1)], 3))
    # image_store_mip into levels 1 and 2 of the 2D image; one lane past the last level.
    ws = img.words()
    pts = [(1, 1, 1), (0, 0, 2), (2, 0, 1), (0, 0, 3)]
    data = [0xAAAA0001, 0xAAAA0002, 0xAAAA0003, 0xAAAA0004]
    new = list(ws)
    for (x, y, lv), v in zip(pts, data):
        if lv < 3:
            new[img.index(lv, x, y, 0)] = v
    out.append(("image_store_mip v20, v[0:2], s[8:15] dmask:0x1 unorm; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0xf {regs(0, [[p[k] for p in pts] for k in range(3)])} v20={lanes_in(data)} {sgprs(8, img.tsharp())} {img.buf()}",
                f"buf0+0={dwords_of(new)}"))
    # image_get_resinfo of the 3D image seen from BASE_LEVEL 1.
    v3 = MipImage(T3D, 4, 2, 4, 4, 3, val, nfmt=4, base=1, last=2)
    rows = [[], [], [], []]
    for lv in range(4):
        e = v3.extent(lv) if lv < v3.views() else (0, 0, 0)
        for k in range(3):
            rows[k].append(e[k])
        rows[3].append(v3.views())
    out.append(("image_get_resinfo v[4:7], v0, s[8:15] dmask:0xf unorm; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0xf v0=[0,1,2,3] {sgprs(8, v3.tsharp())}",
                outs(4, rows)))
    return out


# An 8x8 float image with 4 levels (8, 4, 2, 1), pitch 8, for the LOD vectors.
LODIMG = MipImage(T2D, 8, 8, 1, 8, 4, mip_float)


def vec_mip_sample_l(sp, lods, img=LODIMG, name="image_sample_l"):
    coords = [(Fraction(3 * k + 1, 29), Fraction(17 - 2 * k, 23)) for k in range(len(lods))]
    want = []
    for c, lod in zip(coords, lods):
        want.append(model_sample(img, sp, c, finish(sp, quantise(f32(lod)))[1]))
    rows = [[f32(c[0]) for c in coords], [f32(c[1]) for c in coords], [f32(l) for l in lods]]
    return (f"{name} v20, v[0:2], s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec={hex((1 << len(lods)) - 1)} {regs(0, rows)} {sgprs(8, img.tsharp())} {sgprs(16, sp.words())} {img.buf()}",
            f"v20={lanes(want)}")


# Four quads: per quad a base point and the steps to lanes 4q+1 and 4q+2 (normalised).
QUADS = [((Fraction(1, 5), Fraction(3, 10)), (Fraction(1, 4), 0), (0, Fraction(1, 8))),
         ((Fraction(3, 5), Fraction(1, 7)), (Fraction(3, 16), Fraction(1, 16)), (0, Fraction(1, 32))),
         ((Fraction(2, 5), Fraction(4, 7)), (Fraction(1, 64), 0), (0, Fraction(1, 128))),
         ((Fraction(1, 9), Fraction(5, 6)), (Fraction(1, 2), Fraction(1, 2)), (Fraction(-1, 4), Fraction(3, 4)))]


def quad_coords():
    out = []
    for (bx, by), (ax, ay), (cx, cy) in QUADS:
        out += [(f32(bx), f32(by)), (f32(bx + ax), f32(by + ay)), (f32(bx + cx), f32(by + cy)),
                (f32(bx + ax + cx), f32(by + ay + cy))]
    return out


def vec_implicit(name, sp, bias=None, cl=None, derivs=False, img=LODIMG):
    """image_sample / _b / _cl / _d / _cd on 16 lanes (four quads) of LODIMG."""
    coords = quad_coords()
    size = img.extent(0)
    rows, want = [], []
    given = [((Fraction(5, 16), Fraction(-1, 8)), (Fraction(1, 40), Fraction(3, 8))),
             ((Fraction(1, 256), 0), (0, Fraction(1, 512))),
             ((Fraction(3, 2), 0), (0, Fraction(1, 8))),
             ((Fraction(1, 8), Fraction(1, 8)), (Fraction(1, 16), Fraction(-1, 8)))]
    biases = [Fraction(1, 2), Fraction(-3, 4), Fraction(1, 3), Fraction(2)]
    clamps = [Fraction(0), Fraction(5, 4), Fraction(3, 8), Fraction(7, 3)]
    for l, c in enumerate(coords):
        if derivs:
            gx, gy = given[l % 4]
            dx, dy = [f32(v) * s for v, s in zip(gx, size)], [f32(v) * s for v, s in zip(gy, size)]
        else:
            dx, dy = quad_derivs(coords, l, size)
        lod = finish(sp, raw_lod(dx, dy), f32(biases[l // 4]) if bias else Fraction(0),
                     f32(clamps[l // 4]) if cl else None)[1]
        want.append(model_sample(img, sp, c, lod))
    if bias:
        rows.append([f32(biases[l // 4]) for l in range(16)])
    if derivs:
        for k in range(2):
            rows.append([f32(given[l % 4][0][k]) for l in range(16)])
        for k in range(2):
            rows.append([f32(given[l % 4][1][k]) for l in range(16)])
    rows.append([c[0] for c in coords])
    rows.append([c[1] for c in coords])
    if cl:
        rows.append([f32(clamps[l // 4]) for l in range(16)])
    return (f"{name} v20, {vreg_range(0, len(rows))}, s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xffff {regs(0, rows)} {sgprs(8, img.tsharp())} {sgprs(16, sp.words())} {img.buf()}",
            f"v20={lanes(want)}")


def vec_get_lod(sp, img=LODIMG):
    coords = quad_coords()
    size = img.extent(0)
    xs, ys = [], []
    for l in range(16):
        dx, dy = quad_derivs(coords, l, size)
        un, cl = finish(sp, raw_lod(dx, dy))
        xs.append(f32_bits(min(max(cl, 0), img.views() - 1)))
        ys.append(f32_bits(un))
    return ("image_get_lod v[20:21], v[0:1], s[8:15], s[16:19] dmask:0x3; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0xffff {regs(0, [[c[0] for c in coords], [c[1] for c in coords]])} {sgprs(8, img.tsharp())} {sgprs(16, sp.words())} {img.buf()}",
            f"v20={lanes(xs)} v21={lanes(ys)}")


DEPTH = MipImage(T2D, W, H, 1, W, 1, lambda r, x, y, z: FLOATS[y][x])


def vec_compare(func, bilinear=False, gather=False, img=DEPTH, unorm_refs=False, buf=None):
    sp = Samp(mag=1 if bilinear else 0, minf=1 if bilinear else 0, compare=func)
    coords = [(Fraction(3, 8), Fraction(1, 2)), (Fraction(5, 8), Fraction(1, 6)), (Fraction(1, 8), Fraction(5, 6)),
              (Fraction(7, 8), Fraction(1, 2)), (Fraction(1, 3), Fraction(2, 5)), (Fraction(4, 5), Fraction(3, 4))]
    if unorm_refs:
        refs = [Fraction(-1, 2), Fraction(3, 2), Fraction(1, 3), Fraction(0), Fraction(1), Fraction(400, 65535)]
    else:
        # A texel's own value, values between texels, and the extremes.
        refs = [FLOATS[1][1], FLOATS[0][2] + Fraction(1, 7), FLOATS[2][0], Fraction(-100), Fraction(100), FLOATS[1][2]]
    refs = [f32(r) for r in refs]
    unorm = img.nfmt == 0
    rows_out = [[], [], [], []]
    want = []
    for c, r in zip(coords, refs):
        rr = min(max(r, 0), 1) if unorm else r
        v = model_sample(img, sp, (f32(c[0]), f32(c[1])), None, gather=gather, ref=rr)
        if gather:
            for k in range(4):
                rows_out[k].append(v[k])
        else:
            want.append(v)
    name = "image_gather4_c_lz" if gather else "image_sample_c_lz"
    dst = "v[20:23]" if gather else "v20"
    exp = outs(20, rows_out) if gather else f"v20={lanes(want)}"
    rows = [refs, [f32(c[0]) for c in coords], [f32(c[1]) for c in coords]]
    return (f"{name} {dst}, v[0:2], s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0x3f {regs(0, rows)} {sgprs(8, img.tsharp())} {sgprs(16, sp.words())} {buf or img.buf()}",
            exp)


def vec_compare_unorm16():
    # 16 UNORM depth (DATA_FORMAT 2): texels k * 9000 / 65535; the reference is clamped to [0, 1].
    raw = [[(3 * y + x) * 9000 % 65536 for x in range(W)] for y in range(H)]
    img = MipImage(T2D, W, H, 1, W, 1, lambda r, x, y, z: Fraction(raw[y][x], 65535), dfmt=2, nfmt=0)
    halves = [raw[y][x] for y in range(H) for x in range(W)]
    words = [halves[i] | (halves[i + 1] << 16 if i + 1 < len(halves) else 0) for i in range(0, len(halves), 2)]
    return vec_compare(GEQUAL, bilinear=True, img=img, unorm_refs=True, buf=f"buf0=64 buf0+0={dwords_of(words)}")


def vec_pck():
    out = []
    # 8_8_8_8 (UNORM: nothing is converted), 2x2.
    px = [(0x10, 0x80, 0xFF, 0x7F), (0x01, 0xFE, 0x00, 0x81), (0x55, 0xAA, 0x33, 0xCC), (0x7F, 0x80, 0x00, 0xFF)]
    words = [p[0] | p[1] << 8 | p[2] << 16 | p[3] << 24 for p in px]
    t = tsharp(10, 0, 2, 2, T2D, 2)
    coords = [(0, 0), (1, 0), (0, 1), (2, 1)]
    sx8 = lambda v: v - 256 if v & 0x80 else v
    for sgn in (False, True):
        rows = [[], [], []]
        for x, y in coords:
            p = px[y * 2 + x] if x < 2 and y < 2 else (0, 0, 0, 0)
            for k, comp in enumerate([0, 2, 3]):
                v = p[comp]
                rows[k].append((sx8(v) & 0xFFFFFFFF) if sgn else v)
        name = "image_load_pck_sgn" if sgn else "image_load_pck"
        out.append((f"{name} v[20:22], v[0:1], s[8:15] dmask:0xd unorm; s_waitcnt vmcnt(0)",
                    f"target=gfx900 exec=0xf {regs(0, [[c[0] for c in coords], [c[1] for c in coords]])} {sgprs(8, t)} buf0=64 buf0+0={dwords_of(words)}",
                    outs(20, rows)))
    # 16_16 SINT-less (FLOAT numeric format: still raw) with two levels, at level 1.
    val16 = lambda r, x, y, z: (0x8000 * ((x + y) % 2) + 0x1234 * (r + 1) + 0x111 * x + 0x22 * y) & 0xFFFF
    img = MipImage(T2D, 4, 2, 1, 4, 2, lambda r, x, y, z: val16(r, x, y, z) | (val16(r, x, y, z) ^ 0xF00F) << 16, nfmt=4)
    t = tsharp(5, 7, 4, 2, T2D, 4, last_level=1)
    pts = [(0, 0, 1), (1, 0, 1), (0, 0, 0), (3, 1, 0), (2, 0, 1)]
    sx16 = lambda v: v - 0x10000 if v & 0x8000 else v
    for sgn in (False, True):
        rows = [[], []]
        for x, y, lv in pts:
            inside = x < img.extent(lv)[0] and y < img.extent(lv)[1]
            w = img.tex(lv, x, y, 0) if inside else 0
            for k in range(2):
                v = (w >> (16 * k)) & 0xFFFF
                rows[k].append((sx16(v) & 0xFFFFFFFF) if sgn else v)
        name = "image_load_mip_pck_sgn" if sgn else "image_load_mip_pck"
        out.append((f"{name} v[20:21], v[0:2], s[8:15] dmask:0x3 unorm; s_waitcnt vmcnt(0)",
                    f"target=gfx900 exec=0x1f {regs(0, [[p[k] for p in pts] for k in range(3)])} {sgprs(8, t)} {img.buf()}",
                    outs(20, rows)))
    # image_store_pck: the low 8 bits of each component, as they are (8_8_8_8 UNORM).
    t8 = tsharp(10, 0, 2, 2, T2D, 2)
    data = [[0x12345678, 0xFFFFFF80, 0x100, 0x7F], [0xAB, 0xCD, 0xEF, 0x01]]
    mem = [0xEEEEEEEE] * 4
    new = list(mem)
    # Lanes (0, 1) and (1, 0) store components X, Y, W (DMASK 0xb; Z 0).
    for (x, y), d in zip([(0, 1), (1, 0)], data):
        comps = [d[0], d[1], 0, d[2]]
        new[y * 2 + x] = sum((v & 0xFF) << (8 * k) for k, v in enumerate(comps))
    out.append(("image_store_pck v[20:22], v[0:1], s[8:15] dmask:0xb unorm; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0x3 v0=[0,1] v1=[1,0] {regs(20, [[d[k] for d in data] for k in range(3)])} {sgprs(8, t8)} buf0=64 buf0+0={dwords_of(mem)}",
                f"buf0+0={dwords_of(new)}"))
    # image_store_mip_pck into level 1 of the 16_16 image.
    ws = img.words()
    new = list(ws)
    pts = [(0, 0, 1), (1, 0, 1), (3, 0, 0), (0, 1, 1)]
    data = [[0xFFFF1234, 0xABCD], [0x8000, 0x10007], [1, 2], [3, 4]]
    for (x, y, lv), d in zip(pts, data):
        if x < img.extent(lv)[0] and y < img.extent(lv)[1]:
            new[img.index(lv, x, y, 0)] = (d[0] & 0xFFFF) | (d[1] & 0xFFFF) << 16
    out.append(("image_store_mip_pck v[20:21], v[0:2], s[8:15] dmask:0x3 unorm; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0xf {regs(0, [[p[k] for p in pts] for k in range(3)])} {regs(20, [[d[k] for d in data] for k in range(2)])} {sgprs(8, t)} {img.buf()}",
                f"buf0+0={dwords_of(new)}"))
    return out


def cube_value(r, x, y, z):
    return f32(Fraction(x + 4 * y, 7) + 3 * z + 20 * r - Fraction(5, 3))


def vec_cube():
    out = []
    # One cube 4x4 (DEPTH 5: six faces), two levels; a cube array of two cubes (DEPTH 11).
    cube = MipImage(TCUBE, 4, 4, 6, 4, 2, cube_value)
    arr = MipImage(TCUBE, 4, 4, 12, 4, 1, cube_value)
    coords = [(Fraction(1, 2), Fraction(1, 2), 0), (Fraction(1, 16), Fraction(15, 16), 3), (Fraction(0), Fraction(1), 5),
              (Fraction(5, 16), Fraction(9, 10), Fraction(9, 5)), (Fraction(-1, 4), Fraction(5, 4), 7), (Fraction(3, 4), Fraction(1, 3), Fraction(5, 2))]
    for bilinear in (False, True):
        sp = Samp(mag=int(bilinear), minf=int(bilinear))
        want = [model_sample(cube, sp, (f32(a), f32(b), f32(f)), None) for a, b, f in coords]
        rows = [[f32(c[k]) for c in coords] for k in range(3)]
        out.append(("image_sample_lz v20, v[0:2], s[8:15], s[16:19] dmask:0x1 da; s_waitcnt vmcnt(0)",
                    f"target=gfx900 exec=0x3f {regs(0, rows)} {sgprs(8, cube.tsharp())} {sgprs(16, sp.words())} {cube.buf()}",
                    f"v20={lanes(want)}"))
    # sample_l at level 1 (2x2 faces) and between the levels (MIP_FILTER linear).
    sp = Samp(mip=MIP_LINEAR)
    lods = [Fraction(1), Fraction(1, 2), Fraction(3, 4), Fraction(0), Fraction(2), Fraction(1, 4)]
    want = [model_sample(cube, sp, (f32(a), f32(b), f32(f)), finish(sp, quantise(f32(lv)))[1]) for (a, b, f), lv in zip(coords, lods)]
    rows = [[f32(c[k]) for c in coords] for k in range(3)] + [[f32(l) for l in lods]]
    out.append(("image_sample_l v20, v[0:3], s[8:15], s[16:19] dmask:0x1 da; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0x3f {regs(0, rows)} {sgprs(8, cube.tsharp())} {sgprs(16, sp.words())} {cube.buf()}",
                f"v20={lanes(want)}"))
    # Cube array: third component 8 * slice + face.
    sp = Samp(mag=1, minf=1)
    acoords = [(Fraction(1, 3), Fraction(1, 2), 8 + 2), (Fraction(1, 2), Fraction(1, 5), 5), (Fraction(2, 3), Fraction(3, 4), 8 * 5 + 7),
               (Fraction(1, 5), Fraction(4, 5), Fraction(83, 10)), (Fraction(9, 10), Fraction(1, 10), -3), (Fraction(1, 2), Fraction(1, 2), 14)]
    want = [model_sample(arr, sp, (f32(a), f32(b), f32(f)), None) for a, b, f in acoords]
    rows = [[f32(c[k]) for c in acoords] for k in range(3)]
    out.append(("image_sample_lz v20, v[0:2], s[8:15], s[16:19] dmask:0x1 da; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0x3f {regs(0, rows)} {sgprs(8, arr.tsharp())} {sgprs(16, sp.words())} {arr.buf()}",
                f"v20={lanes(want)}"))
    # image_load on the cube array: (x, y, layer = 6 * slice + face).
    pts = [(0, 0, 0), (3, 2, 5), (1, 3, 7), (2, 2, 11), (0, 0, 12)]
    want = [f32_bits(arr.tex(0, x, y, z)) if z < 12 else 0 for x, y, z in pts]
    out.append(("image_load v20, v[0:2], s[8:15] dmask:0x1 unorm da; s_waitcnt vmcnt(0)",
                f"target=gfx900 exec=0x1f {regs(0, [[p[k] for p in pts] for k in range(3)])} {sgprs(8, arr.tsharp())} {arr.buf()}",
                f"v20={lanes(want)}"))
    return out


def vec_lod_vectors():
    out = []
    lods = [Fraction(-1), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(5, 4), Fraction(5, 2), Fraction(15, 4), Fraction(7),
            Fraction(1, 1000), Fraction(3, 2)]
    for mip in (MIP_NONE, MIP_POINT, MIP_LINEAR):
        out.append(vec_mip_sample_l(Samp(mip=mip), lods))
    # Point mag filter, bilinear min filter: the LOD's sign picks the filter.
    out.append(vec_mip_sample_l(Samp(mag=0, minf=1, mip=MIP_LINEAR), lods))
    # The sampler's LOD_BIAS (+1.5, then -0.75), MIN_LOD 0.5 and MAX_LOD 2.25.
    out.append(vec_mip_sample_l(Samp(mip=MIP_LINEAR, lod_bias=384, min_lod=128, max_lod=576), lods))
    out.append(vec_mip_sample_l(Samp(mip=MIP_POINT, lod_bias=-192), lods))
    # A view of levels 1..3 (BASE_LEVEL 1).
    view = MipImage(T2D, 8, 8, 1, 8, 4, mip_float, base=1, last=3)
    out.append(vec_mip_sample_l(Samp(mip=MIP_LINEAR), lods, img=view))
    out.append(vec_mip_sample_l(Samp(mip=MIP_POINT), lods, img=view))
    # Implicit LODs from the quads, with _b, _cl, _d, _cd.
    sp = Samp(mip=MIP_LINEAR)
    out.append(vec_implicit("image_sample", sp))
    out.append(vec_implicit("image_sample", Samp(mag=0, minf=1, mip=MIP_POINT)))
    out.append(vec_implicit("image_sample_b", sp, bias=True))
    out.append(vec_implicit("image_sample_cl", sp, cl=True))
    out.append(vec_implicit("image_sample_b_cl", Samp(mip=MIP_LINEAR, lod_bias=-100, max_lod=600), bias=True, cl=True))
    out.append(vec_implicit("image_sample_d", sp, derivs=True))
    out.append(vec_implicit("image_sample_cd", Samp(mip=MIP_POINT, min_lod=64), derivs=True))
    out.append(vec_implicit("image_sample_d_cl", sp, derivs=True, cl=True))
    out.append(vec_implicit("image_sample", Samp(mip=MIP_LINEAR), img=view))
    # image_get_lod: plain, and with the sampler's bias and clamps.
    out.append(vec_get_lod(Samp(mip=MIP_LINEAR)))
    out.append(vec_get_lod(Samp(mip=MIP_LINEAR, lod_bias=-320, min_lod=64, max_lod=300)))
    out.append(vec_get_lod(Samp(mip=MIP_POINT), img=view))
    return out


def vec_gather_mip():
    """gather4_l reads the level MIP_FILTER point would."""
    sp = Samp(mip=MIP_LINEAR)
    lods = [Fraction(0), Fraction(3, 5), Fraction(1, 2), Fraction(2), Fraction(5, 2), Fraction(9)]
    coords = [(Fraction(3 * k + 1, 29), Fraction(17 - 2 * k, 23)) for k in range(len(lods))]
    rows_out = [[], [], [], []]
    for c, lv in zip(coords, lods):
        v = model_sample(LODIMG, sp, (f32(c[0]), f32(c[1])), finish(sp, quantise(f32(lv)))[1], gather=True)
        for k in range(4):
            rows_out[k].append(v[k])
    rows = [[f32(c[0]) for c in coords], [f32(c[1]) for c in coords], [f32(l) for l in lods]]
    return ("image_gather4_l v[20:23], v[0:2], s[8:15], s[16:19] dmask:0x1; s_waitcnt vmcnt(0)",
            f"target=gfx900 exec=0x3f {regs(0, rows)} {sgprs(8, LODIMG.tsharp())} {sgprs(16, sp.words())} {LODIMG.buf()}",
            outs(20, rows_out))


def new_vectors():
    out = vec_mip_load_store()
    out += vec_lod_vectors()
    out.append(vec_gather_mip())
    for func in range(8):
        out.append(vec_compare(func))
    out.append(vec_compare(LESS, bilinear=True))
    out.append(vec_compare(GREATER, gather=True))
    out.append(vec_compare_unorm16())
    out += vec_pck()
    out += vec_cube()
    return out


def vectors():
    F = Fraction
    out = [vec_load_float(), vec_load_unorm_swizzle(), vec_store_uint16(), vec_resinfo(), vec_load_3d_d16(), vec_sample_l()]
    texel_coords = [(F(13, 10), F(7, 10)), (F(-1, 5), F(29, 10)), (F(377, 100), F(3, 2)), (F(2), F(1))]
    norm_coords = [(F(-3, 10), F(7, 5)), (F(11, 10), F(-1, 7)), (F(1, 2), F(1, 2)), (F(-17, 8), F(33, 10))]
    out.append(vec_sample("image_sample_lz", texel_coords, False, True, (CLAMP_LAST, CLAMP_LAST)))
    out.append(vec_sample("image_sample_lz", texel_coords, False, True, (BORDER, BORDER)))
    out.append(vec_sample("image_sample_lz", texel_coords, False, False, (CLAMP_LAST, CLAMP_LAST)))
    out.append(vec_sample("image_sample_lz", norm_coords, True, False, (WRAP, MIRROR)))
    out.append(vec_sample("image_sample_lz", norm_coords, True, True, (MIRROR, WRAP)))
    out.append(vec_sample("image_sample", norm_coords, True, True, (WRAP, BORDER)))
    out.append(vec_sample("image_gather4_lz", norm_coords, True, True, (WRAP, CLAMP_LAST), gather=True))
    out += [variant_vector(n) for n in SAMPLE_VARIANTS]
    out += vec_mip()
    out += vec_atomics()
    out += new_vectors()
    return out


def check_assembly(lines):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.s")
        insts = [i.strip() for asm, _, _ in lines for i in asm.split(";")]
        with open(src, "w") as f:
            f.write("\n".join(insts) + "\n")
        out = subprocess.run(["llvm-mc-15", "-arch=amdgcn", "-mcpu=gfx900", src], capture_output=True, text=True, check=True).stdout
        printed = [l.strip() for l in out.splitlines() if l.strip() and not l.strip().startswith(".")]
        for a, b in zip(insts, printed):
            if a != b:
                sys.exit(f"llvm-mc-15 prints `{b}` for `{a}`")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args()
    lines = vectors()
    check_assembly(lines)
    text = "# MIMG test vectors (format: emu/tests/vectors/README.md), written by gen_mimg.py (its\n" \
           "# docstring gives the rules); do not edit by hand.\n"
    text += "".join(f"{a} | {i} | {w}\n" for a, i, w in lines)
    path = os.path.join(HERE, "mimg.txt")
    if args.check_only:
        sys.exit(0 if open(path).read() == text else "mimg.txt is stale")
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
