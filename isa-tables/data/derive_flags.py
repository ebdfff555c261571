#!/usr/bin/env python3
"""Fills the flags column of gfx9-ops.tsv from the golden vectors LLVM printed (tests/golden):
`opsel` for VOP3 ops LLVM prints op_sel for, `mods` for ops that take neg/abs input modifiers.
Run after gen_ops.py and gen_golden.py:  python3 isa-tables/data/derive_flags.py"""
import glob
import re

opsel, mods = set(), set()
for f in glob.glob("tests/golden/gfx90*/VOP*.txt"):
    for line in open(f):
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 2:
            continue
        text = cols[1]
        base = re.sub(r"_(e32|e64|sdwa|dpp)$", "", text.split()[0])
        if " op_sel:" in text and "VOP3P" not in f:
            opsel.add(base)
        if "|" in text or re.search(r"[ ,]-[vs\[]", text) or "neg(" in text:
            mods.add(base)
rows = []
for line in open("isa-tables/data/gfx9-ops.tsv"):
    if line.startswith("#"):
        rows.append(line)
        continue
    c = line.rstrip("\n").split("\t")
    c = c[:6] + [""] * (6 - len(c))
    base = re.sub(r"_(e32|e64)$", "", c[2])
    flags = []
    if base in opsel and c[0] == "VOP3":
        flags.append("opsel")
    if base in mods:
        flags.append("mods")
    rows.append("\t".join(c + [",".join(flags)]) + "\n")
open("isa-tables/data/gfx9-ops.tsv", "w").write("".join(rows))
