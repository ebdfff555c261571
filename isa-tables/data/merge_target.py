#!/usr/bin/env python3
"""Folds a target newly added to gen_ops.py into the maintained op table.

gfx9-ops.tsv is maintained by hand after gen_ops.py bootstrapped it (operand templates corrected,
flags and facts columns added), so a regenerated table cannot replace it. This script reads a
freshly generated table (gen_ops.py with the new target in TARGETS) and the target's golden
opcode list (tests/golden/TARGET/opcodes.tsv and EXTRA.txt, which also have the ops without operands that
gen_ops.py leaves out), and:
  - adds TARGET to every maintained row whose (format, opcode, mnemonic) the target decodes,
    unless gen_ops.py put the target in a row of its own for that opcode (other operands);
  - prints the generated rows that only TARGET has, for their operands, flags and facts to be
    written by hand (to stderr, as a list to work through).

    python3 isa-tables/data/gen_ops.py > /tmp/ops.tsv
    python3 tests/golden/gen_golden.py --targets gfx90a && python3 tests/golden/gen_extra.py
    python3 isa-tables/data/merge_target.py gfx90a /tmp/ops.tsv > /tmp/merged.tsv

The generated table need not list every target of the maintained one: a row's targets are
compared with the generated groups only where the generated table has them. So a target that
only LLVM 19 knows is folded in from a table generated with LLVM 19 for it and a neighbour:

    python3 isa-tables/data/gen_ops.py --llvm-mc llvm-mc-19 --targets gfx90a,gfx940,gfx942 > /tmp/ops.tsv
    python3 isa-tables/data/merge_target.py gfx940 /tmp/ops.tsv > /tmp/merged.tsv

Targets that decode as another (gfx942 as gfx940) are folded into it (SAME_OPS_AS).
"""
import re
import sys

SAME_OPS_AS = {"gfx942": "gfx940"}

target, generated = sys.argv[1], sys.argv[2]
gen = {}
only_new = []
generated_targets = set()
for line in open(generated):
    if line.startswith("#"):
        continue
    c = line.rstrip("\n").split("\t")
    cpus = []
    for cpu in c[3].split(","):
        cpu = SAME_OPS_AS.get(cpu, cpu)
        if cpu not in cpus:
            cpus.append(cpu)
    generated_targets.update(cpus)
    gen.setdefault((c[0], c[1], c[2]), []).append(cpus)
    if cpus == [target]:
        only_new.append("\t".join(c[:3] + [target] + c[4:]))

golden = set()
for line in open("tests/golden/%s/opcodes.tsv" % target):
    if not line.startswith("#"):
        fmt, opcode, mnemonic = line.rstrip("\n").split("\t")
        golden.add((fmt, opcode, mnemonic))
# EXTRA.txt: the ops the sweep cannot reach (gen_extra.py), by mnemonic
extra = {line.split("\t")[1].split()[0] for line in open("tests/golden/%s/EXTRA.txt" % target)}

for line in open("isa-tables/data/gfx9-ops.tsv"):
    if line.startswith("#"):
        sys.stdout.write(line)
        continue
    c = line.rstrip("\n").split("\t")
    cpus = c[3].split(",")
    base = re.sub(r"_e(32|64)$", "", c[2])
    groups = gen.get((c[0], c[1], c[2]), [])
    compared = [t for t in cpus if t in generated_targets]
    own_row = any(target in g and not all(t in g for t in compared) for g in groups)
    decodes = (c[0], c[1], base) in golden or base in extra
    # A row of targets the generated table does not know (gfx908's own MFMA rows beside
    # gfx90a's) cannot be compared; the target's own rows are listed below instead.
    if target not in cpus and decodes and compared and not own_row:
        c[3] = ",".join(cpus + [target])
    sys.stdout.write("\t".join(c) + "\n")

print("rows only %s decodes (to add by hand):" % target, file=sys.stderr)
for line in only_new:
    print("  " + line, file=sys.stderr)
