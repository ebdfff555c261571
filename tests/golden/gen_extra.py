#!/usr/bin/env python3
"""Golden vectors for the few instructions the opcode sweep cannot reach (see extra.s, and
extra.<target>.s for a target's own).

Usage: python3 tests/golden/gen_extra.py [--llvm-mc llvm-mc-15] [--llvm-mc-19 llvm-mc-19]
gfx940 and gfx942 are assembled with LLVM 19 (as their sweep is).
Writes <target>/EXTRA.txt as "<words>\t<llvm text>", the same format as the sweep's files.
"""

import argparse
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx942"]
LLVM_19_TARGETS = ["gfx940", "gfx942"]
# Targets with another's instruction set (and so its extra.<target>.s).
SAME_OPS_AS = {"gfx942": "gfx940"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llvm-mc", default="llvm-mc-15")
    ap.add_argument("--llvm-mc-19", default="llvm-mc-19")
    ap.add_argument("--targets", default=",".join(TARGETS))
    args = ap.parse_args()
    for target in args.targets.split(","):
        llvm_mc = args.llvm_mc_19 if target in LLVM_19_TARGETS else args.llvm_mc
        # extra.s for every target, then extra.<target>.s where one has ops of its own
        own = SAME_OPS_AS.get(target, target)
        srcs = [os.path.join(HERE, "extra.s"), os.path.join(HERE, "extra.%s.s" % own)]
        out = "".join(subprocess.run(
            [llvm_mc, "-arch=amdgcn", f"-mcpu={target}", "-show-encoding", src],
            check=True, capture_output=True, text=True).stdout for src in srcs if os.path.exists(src))
        lines = []
        for line in out.splitlines():
            m = re.match(r"\s*(.*?)\s*; encoding: \[(.*)\]", line)
            if not m:
                continue
            text, enc = m.group(1), [int(b, 16) for b in m.group(2).split(",")]
            words = [int.from_bytes(bytes(enc[i:i + 4]), "little") for i in range(0, len(enc), 4)]
            lines.append(" ".join("%08x" % w for w in words) + "\t" + text)
        with open(os.path.join(HERE, target, "EXTRA.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(target, len(lines), "vectors")


if __name__ == "__main__":
    main()
