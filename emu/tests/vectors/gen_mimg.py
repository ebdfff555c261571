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

# SQ_RSRC_IMG types, SQ_SEL values, SQ_TEX_CLAMP modes.
T1D, T2D, T3D = 8, 9, 10
SEL_0, SEL_1, SEL_X, SEL_Y, SEL_Z, SEL_W = 0, 1, 4, 5, 6, 7
WRAP, MIRROR, CLAMP_LAST, BORDER = 0, 1, 2, 6


def tsharp(dfmt, nfmt, width, height, kind, pitch, depth=1, sel=(SEL_X, SEL_Y, SEL_Z, SEL_W), last_level=0):
    w = [0] * 8
    w[0] = (BASE >> 8) & 0xFFFFFFFF
    w[1] = ((BASE >> 40) & 0xFF) | dfmt << 20 | nfmt << 26
    w[2] = (width - 1) | (height - 1) << 14
    w[3] = sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9 | last_level << 16 | kind << 28
    w[4] = (depth - 1) | (pitch - 1) << 13
    return w


def ssharp(clamp=(CLAMP_LAST, CLAMP_LAST, CLAMP_LAST), unnormalized=False, bilinear=False):
    w = [0] * 4
    w[0] = clamp[0] | clamp[1] << 3 | clamp[2] << 6 | (1 << 15 if unnormalized else 0)
    f = 1 if bilinear else 0
    w[2] = f << 20 | f << 22 | (2 if bilinear else 1) << 24
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
    """A VGPR list for lanes 0..3 (EXEC 0xf); the other lanes are not checked."""
    return "[" + ",".join(hexs(v) for v in vals) + ",_*60]"


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
    (offset, bias, derivatives, coordinates, LOD or clamp), a bilinear clamp-to-edge sampler
    with normalised coordinates on the one-level 4x3 image, so that the LOD changes nothing."""
    parts = name.split("_")[2:]
    gather = name.startswith("image_gather4")
    offset = parts[-1:] == ["o"]
    bias = "b" in parts
    derivs = "d" in parts or "cd" in parts
    lod = "l" in parts
    clamp = "cl" in parts
    coords = [(Fraction(3, 10), Fraction(1, 2)), (Fraction(9, 10), Fraction(1, 7)),
              (Fraction(-1, 9), Fraction(5, 4)), (Fraction(1, 2), Fraction(2, 3))]
    offs = [(1, 0), (-2, 1), (0, -1), (31, -32)] if offset else [(0, 0)] * 4
    dwords = []  # per address dword: lane values
    if offset:
        dwords.append([(ox & 0x3F) | (oy & 0x3F) << 8 for ox, oy in offs])
    if bias:
        dwords.append([f32_bits(Fraction(-1, 4))] * 4)
    if derivs:
        dwords += [[f32_bits(Fraction(k + 1, 64))] * 4 for k in range(4)]
    dwords.append([f32_bits(c[0]) for c in coords])
    dwords.append([f32_bits(c[1]) for c in coords])
    if lod:
        dwords.append([0] * 4)
    if clamp:
        dwords.append([f32_bits(Fraction(3))] * 4)
    t = tsharp(4, 7, W, H, T2D, W)
    s = ssharp(bilinear=True)
    xs = [f32_of_bits(f32_bits(c[0])) for c in coords]
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
                rows[k].append(f32_bits(FLOATS[ty][tx]))
        want = " ".join(f"v{20 + k}={lanes(r)}" for k, r in enumerate(rows))
        dst = "v[20:23]"
    else:
        vals = []
        for i in range(4):
            ax, ay = taps(i)
            total = sum(wx * wy * FLOATS[ty][tx] for ty, wy in ay for tx, wx in ax)
            vals.append(f32_bits(total))
        want = f"v20={lanes(vals)}"
        dst = "v20"
    n = len(dwords)
    vaddr = "v0" if n == 1 else f"v[0:{n - 1}]"
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
