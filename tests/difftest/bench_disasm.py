#!/usr/bin/env python3
"""Disassembly throughput: `gcnemu disasm` against `llvm-objdump-15 -d` on the same code object,
measured in one run, alternating the two, reporting medians and their ratio.

    cargo build --release
    tests/difftest/bench_disasm.py FILE.co [--mcpu gfx906] [--runs 5]
"""
import argparse
import statistics
import subprocess
import time


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    return time.perf_counter() - start, out.count(b"\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--mcpu", default="gfx906")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--gcnemu", default="target/release/gcnemu")
    ap.add_argument("--objdump", default="llvm-objdump-15")
    a = ap.parse_args()
    ours, theirs, lines = [], [], 0
    for _ in range(a.runs):
        t, lines = timed([a.gcnemu, "disasm", "--target", a.mcpu, a.file])
        ours.append(t)
        t, _ = timed([a.objdump, "-d", "--mcpu=" + a.mcpu, a.file])
        theirs.append(t)
    mo, mt = statistics.median(ours), statistics.median(theirs)
    print(f"{a.file}: {lines} lines, {a.runs} runs each")
    print(f"gcnemu disasm:   median {mo:.3f} s  ({lines / mo / 1e6:.2f} M lines/s)")
    print(f"llvm-objdump-15: median {mt:.3f} s  ({lines / mt / 1e6:.2f} M lines/s)")
    print(f"speed-up: {mt / mo:.1f}x")


if __name__ == "__main__":
    main()
