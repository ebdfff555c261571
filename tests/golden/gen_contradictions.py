#!/usr/bin/env python3
"""Find the golden vectors on which LLVM contradicts itself, and ask llvm-mc-19 about them.

Usage: python3 tests/golden/gen_contradictions.py [--llvm-mc llvm-mc-15] [--llvm-mc-19 llvm-mc-19]
                                                  [--targets gfx900,gfx906,gfx908,gfx90a]

A vector's encodings come from LLVM 15 twice over: the canonical column (llvm-mc's re-encoding
of the instruction it decoded) and, in reasm_mismatch.txt, the words its assembler gives for the
printed text. Either is an oracle only if LLVM's own disassembler prints those words as the same
text. Where it does not, LLVM contradicts itself (a decoder and an encoder that disagree on one
operand), and the test cannot take either side on LLVM 15's word.

Writes <target>/contradictions.txt, one line per contradiction:
  <words>\t<text>\t<canonical|reassembly>\t<LLVM 15's words>\t<how LLVM 15 prints them>\t<llvm-19>
where the last column is the words llvm-mc-19 assembles the text to when llvm-mc-19 prints them
back as the same text (LLVM 19 agrees with itself there, so it is the oracle), else `-`.

For gfx940 and gfx942, whose vectors come from LLVM 19, LLVM 19 is both the first and the
second opinion: the contradictions are those of LLVM 19 with itself.
"""

import argparse
import os
import sys

import gen_golden
from gen_golden import HERE, LLVM_19_TARGETS, TARGETS, hexwords


def vectors(target):
    """(words, text, canonical or None) of every sweep vector of `target`."""
    out = []
    d = os.path.join(HERE, target)
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt") or not name[:-4].isupper():
            continue
        with open(os.path.join(d, name)) as fh:
            for line in fh:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 2:
                    continue
                words = tuple(int(w, 16) for w in cols[0].split())
                canon = tuple(int(w, 16) for w in cols[2].split()) if len(cols) > 2 else None
                out.append((words, cols[1], canon))
    return out


def reassembled(target):
    """words -> the words LLVM 15's assembler gives for their text (reasm_mismatch.txt)."""
    out = {}
    with open(os.path.join(HERE, target, "reasm_mismatch.txt")) as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) > 2 and cols[2].startswith("reassembles to "):
                again = tuple(int(w, 16) for w in cols[2][len("reassembles to "):].split())
                out[tuple(int(w, 16) for w in cols[0].split())] = again
    return out


def printed(target, llvm_mc, blocks):
    """How `llvm_mc` prints each block of words (None where it does not print one instruction)."""
    gen_golden.LLVM_MC = llvm_mc
    return [r[1] if r[0] == "ok" else None for r in gen_golden.run_llvm(target, list(blocks))]


def contradictions(target, llvm_mc, llvm_mc_19):
    reasm = reassembled(target)
    asked = []  # (words, text, kind, llvm's words)
    for words, text, canon in vectors(target):
        if canon is not None:
            asked.append((words, text, "canonical", canon))
        if words in reasm:
            asked.append((words, text, "reassembly", reasm[words]))
    texts = printed(target, llvm_mc, [a[3] for a in asked])
    found = [a + (t,) for a, t in zip(asked, texts) if t != a[1]]
    if not found:
        return []
    oracle = ["-"] * len(found)
    if llvm_mc_19:
        gen_golden.LLVM_MC = llvm_mc_19
        enc = gen_golden.reassemble(target, [f[1] for f in found])
        ok = [i for i, e in enumerate(enc) if e[0] == "ok"]
        back = printed(target, llvm_mc_19, [enc[i][1] for i in ok])
        for i, t in zip(ok, back):
            if t == found[i][1]:
                oracle[i] = hexwords(enc[i][1])
    return [
        "\t".join([hexwords(w), text, kind, hexwords(theirs), str(their_text), o])
        for (w, text, kind, theirs, their_text), o in zip(found, oracle)
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llvm-mc", default="llvm-mc-15")
    ap.add_argument("--llvm-mc-19", default="llvm-mc-19")
    ap.add_argument("--targets", default=",".join(TARGETS))
    a = ap.parse_args()
    for t in a.targets.split(","):
        first = a.llvm_mc_19 if t in LLVM_19_TARGETS else a.llvm_mc
        lines = contradictions(t, first, a.llvm_mc_19)
        with open(os.path.join(HERE, t, "contradictions.txt"), "w") as fh:
            fh.write("".join(l + "\n" for l in lines))
        print(t, len(lines), "contradictions", file=sys.stderr)


if __name__ == "__main__":
    main()
