#!/usr/bin/env python3
"""Adds to the flags column of gfx9-ops.tsv from the golden vectors LLVM printed (tests/golden):
`opsel` for VOP3 ops LLVM prints op_sel for, `mods` for ops that take neg/abs input modifiers.
Run after gen_ops.py and gen_golden.py:  python3 isa-tables/data/derive_flags.py"""
import glob
import re

# Per op set, from its targets' vectors: LLVM 19 (gfx940's reference) prints op_sel and input
# modifiers for some ops LLVM 15 (gfx900-gfx90a's) does not.
opsel, mods = {}, {}
for f in glob.glob("tests/golden/gfx9*/VOP*.txt"):
    target = f.split("/")[2]
    for line in open(f):
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 2:
            continue
        text = cols[1]
        base = re.sub(r"_(e32|e64|sdwa|dpp)$", "", text.split()[0])
        if " op_sel:" in text and "VOP3P" not in f:
            opsel.setdefault(target, set()).add(base)
        if "|" in text or re.search(r"[ ,]-[vs\[]", text) or "neg(" in text:
            mods.setdefault(target, set()).add(base)
rows = []
for line in open("isa-tables/data/gfx9-ops.tsv"):
    if line.startswith("#"):
        rows.append(line)
        continue
    c = line.rstrip("\n").split("\t")
    ncols = max(len(c), 7)
    c = c + [""] * (8 - len(c))
    base = re.sub(r"_(e32|e64)$", "", c[2])
    flags = []
    targets = c[3].split(",")
    if any(base in opsel.get(t, ()) for t in targets) and c[0] == "VOP3":
        flags.append("opsel")
    if any(base in mods.get(t, ()) for t in targets):
        flags.append("mods")
    # Flags are only added: those the texts cannot show (noclamp, noomod, mods of ops whose
    # vectors happen to have none) were written by hand and stay.
    kept = [f for f in c[6].split(",") if f and f not in flags]
    c[6] = ",".join([f for f in ("opsel", "mods") if f in flags or f in kept]
                    + [f for f in kept if f not in ("opsel", "mods")])
    rows.append("\t".join(c[:ncols]) + "\n")
open("isa-tables/data/gfx9-ops.tsv", "w").write("".join(rows))
