#!/usr/bin/env python3
"""Seed corpora for the fuzz targets from the repository's real code objects, so the fuzzers
start from real kernels instead of growing inputs from nothing (unseeded, `run` stayed at
inputs of <= 17 bytes, about 4 instructions, after 215k runs).

    fuzz/seed.py            # writes fuzz/corpus/{decode,loader,run}/

decode: each kernel's .text; loader: the code objects, bundles and host binaries themselves;
run: byte 0 (bit 0 gfx906, bit 3 hipcc's SGPR layout, see gcnemu::fuzzing) and the .text.
"""
import hashlib
import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = ROOT / "fuzz" / "corpus"


def text_section(data):
    """The bytes of .text of an ELF64 LE file, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", data, 0x3C)
    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i)
    names = header(shstrndx)[4]
    for i in range(shnum):
        h = header(i)
        name = data[names + h[0]:].split(b"\0", 1)[0]
        if name == b".text":
            return data[h[4]:h[4] + h[5]]
    return None


def write(kind, data):
    out = CORPUS / kind
    out.mkdir(parents=True, exist_ok=True)
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main():
    counts = {"decode": 0, "loader": 0, "run": 0}
    files = sorted(FIXTURES.glob("*/*.co")) + sorted(FIXTURES.glob("*/*.bundle")) + sorted(
        FIXTURES.glob("loader/*.so"))
    for path in files:
        data = path.read_bytes()
        if len(data) <= 1 << 20:
            write("loader", data)
            counts["loader"] += 1
        text = text_section(data)
        if not text:
            continue
        write("decode", text)
        counts["decode"] += 1
        gfx906 = 1 if "gfx906" in path.name else 0
        for head in (gfx906 | 8, gfx906 | 8 | 2):  # hipcc layout, one and two waves
            write("run", bytes([head]) + text[:8192])
            counts["run"] += 1
    print(", ".join(f"{k}: {n} inputs" for k, n in counts.items()), "in", CORPUS)


if __name__ == "__main__":
    main()
