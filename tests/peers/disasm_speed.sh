#!/usr/bin/env bash
# Disassembly throughput of `gcnemu disasm` against `llvm-objdump-15 -d` on the largest gfx900
# code object of Debian's rocSPARSE (the one with the most code in .text). Not part of CI.
#
#   apt-get install -y libhipsparse-dev llvm-15     # pulls librocsparse0
#   cargo build --release
#   tests/peers/disasm_speed.sh                     # RUNS=21 interleaved pairs
#
# It extracts the code object from the library's .hip_fatbin into $OUT (never into the
# repository), checks that both tools print byte-identical listings of it, then times RUNS pairs
# of runs, both writing to /dev/null, alternating which tool goes first in each pair so that
# neither always runs on a warm or a cold machine. It prints each tool's median wall time and
# the ratio of the medians.
#
# Environment (defaults in brackets):
#   LIB      host library with a .hip_fatbin [/usr/lib/x86_64-linux-gnu/librocsparse.so.0]
#   OUT      scratch directory [/tmp/gcnemu-disasm-speed]
#   RUNS     number of pairs [21]
#   MCPU     processor [gfx900]
#   GCNEMU   [<repo>/target/release/gcnemu]
#   OBJDUMP  [llvm-objdump-15]
#   OBJ      time this code object instead of extracting one
#
# `gcnemu disasm` runs on one thread, as llvm-objdump does.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIB="${LIB:-/usr/lib/x86_64-linux-gnu/librocsparse.so.0}"
OUT="${OUT:-/tmp/gcnemu-disasm-speed}"
RUNS="${RUNS:-21}"
MCPU="${MCPU:-gfx900}"
GCNEMU="${GCNEMU:-$repo_root/target/release/gcnemu}"
OBJDUMP="${OBJDUMP:-llvm-objdump-15}"

mkdir -p "$OUT"

# The code object of target $MCPU with the largest .text, split out of the clang offload bundles
# in the library's .hip_fatbin (with the bundle reader of tests/difftest/difftest.py).
extract() {
    local dest="$OUT/$(basename "$LIB")-$MCPU-largest.co"
    if [[ ! -s "$dest" ]]; then
        python3 - "$repo_root/tests/difftest" "$LIB" "$MCPU" "$dest" >&2 <<'EOF'
import mmap, sys
sys.path.insert(0, sys.argv[1])
from difftest import amdgpu_target, bundle_entries, bundle_target, elf_sections
lib, mcpu, dest = sys.argv[2:5]
best = None
with open(lib, "rb") as fh:
    data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    for name, offset, size in elf_sections(data):
        if name != ".hip_fatbin":
            continue
        for ident, obj in bundle_entries(data[offset:offset + size]):
            if bundle_target(ident) != mcpu or amdgpu_target(obj) != mcpu:
                continue
            text = sum(s for n, _, s in elf_sections(obj) if n == ".text")
            if best is None or text > best[0]:
                best = (text, ident, obj)
if best is None:
    sys.exit(f"{lib}: no {mcpu} code object in a .hip_fatbin")
with open(dest, "wb") as out:
    out.write(best[2])
print(f"{dest}: {best[1]}, {len(best[2])} bytes, .text {best[0]} bytes")
EOF
    fi
    echo "$dest"
}

obj="${OBJ:-$(extract)}"
ours=("$GCNEMU" disasm --target "$MCPU" "$obj")
theirs=("$OBJDUMP" -d "--mcpu=$MCPU" "$obj")

"${ours[@]}" >"$OUT/gcnemu.txt"
"${theirs[@]}" >"$OUT/objdump.txt"
if ! cmp -s "$OUT/gcnemu.txt" "$OUT/objdump.txt"; then
    echo "the listings differ: diff $OUT/gcnemu.txt $OUT/objdump.txt" >&2
    exit 1
fi
lines=$(wc -l <"$OUT/gcnemu.txt")
bytes=$(wc -c <"$OUT/gcnemu.txt")

# Wall time of one run in microseconds.
time_us() {
    local start=$EPOCHREALTIME
    "$@" >/dev/null
    local end=$EPOCHREALTIME
    echo $(( (${end/./} - ${start/./}) ))
}

median() {
    sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: >"$OUT/gcnemu.us"
: >"$OUT/objdump.us"
for ((i = 0; i < RUNS; i++)); do
    if ((i % 2 == 0)); then
        time_us "${ours[@]}" >>"$OUT/gcnemu.us"
        time_us "${theirs[@]}" >>"$OUT/objdump.us"
    else
        time_us "${theirs[@]}" >>"$OUT/objdump.us"
        time_us "${ours[@]}" >>"$OUT/gcnemu.us"
    fi
done

ours_us=$(median <"$OUT/gcnemu.us")
theirs_us=$(median <"$OUT/objdump.us")
echo "$obj: $lines lines, $bytes bytes of listing, identical; $RUNS interleaved pairs"
awk -v o="$ours_us" -v t="$theirs_us" 'BEGIN {
    printf "gcnemu disasm:   median %.1f ms\n", o / 1000
    printf "llvm-objdump-15: median %.1f ms\n", t / 1000
    printf "ratio: %.1fx\n", t / o
}'
