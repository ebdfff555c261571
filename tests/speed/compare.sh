#!/usr/bin/env bash
# Before/after speed of two gcnemu builds on the bench kernels, through the CLI, runs alternating
# between the builds (the machine's load changes over time), medians of the `--stats` times.
#   tests/speed/compare.sh OLD_GCNEMU NEW_GCNEMU [RUNS] [extra flags for both, e.g. --timing off]
# The bench binary (`cargo run --release -p gcnemu --bin bench`) is the reference for ratios to
# native code; this script is for comparing builds, e.g. a commit before a change.
set -euo pipefail
old="$1"; new="$2"; runs="${3:-5}"; shift $(( $# < 3 ? $# : 3 ))
here="$(cd "$(dirname "$0")/.." && pwd)"
fx="$here/fixtures/hip"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import struct, sys
w = sys.argv[1]
n = 4 << 20
open(f"{w}/x.bin", "wb").write(struct.pack(f"<{n}f", *[(i % 1000) * 0.25 for i in range(n)]))
open(f"{w}/y.bin", "wb").write(struct.pack(f"<{n}f", *[float(i % 7) for i in range(n)]))
m = 1 << 20
open(f"{w}/r.bin", "wb").write(struct.pack(f"<{m}f", *[float(i % 8) for i in range(m)]))
open(f"{w}/h.bin", "wb").write(bytes(((i * 2654435761 % 2**32) >> 13) & 0xff ^ (i & 3) for i in range(n)))
open(f"{w}/s.bin", "wb").write(struct.pack("<4i", 2**31 - 1, -2**31, 0, 0))
open(f"{w}/c.bin", "wb").write(struct.pack("<65536I", *[(i * 2654435761 % 2**32) % 100000 + 1 for i in range(65536)]))
PY
declare -A args=(
  [mandelbrot]="$fx/mandelbrot.gfx900.co --kernel mandelbrot --grid 64,48 --block 16,16 --arg zeros:3145728 --arg 1024 --arg 768 --arg 256 --arg -2.0 --arg -1.125 --arg 0.0029296875"
  [saxpy]="$fx/saxpy.gfx900.co --kernel saxpy --grid 16384 --block 256 --arg 1.5 --arg @$work/x.bin --arg @$work/y.bin --arg 4194304"
  [reduce]="$fx/reduce.gfx900.co --kernel reduce_sum --grid 4096 --block 256 --arg @$work/r.bin --arg zeros:4 --arg 1048576"
  [histogram]="$fx/atomics.gfx900.co --kernel histogram --grid 16384 --block 256 --arg @$work/h.bin --arg zeros:1024 --arg @$work/s.bin --arg 4194304"
  [collatz]="$fx/loop.gfx900.co --kernel collatz --grid 256 --block 256 --arg @$work/c.bin --arg zeros:262144 --arg 1000 --arg 2"
)
seconds() {
  local t
  t="$("$@" --stats 2>&1 | sed -n 's/.* in \([0-9.]*\) s .*/\1/p' | head -1)"
  [ -n "$t" ] || { echo "no time from: $*" >&2; exit 1; }
  echo "$t"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-11s %10s %10s %7s\n" kernel "old s" "new s" "old/new"
for k in mandelbrot saxpy reduce histogram collatz; do
  o=(); n=()
  for _ in $(seq "$runs"); do
    o+=("$(seconds "$old" run ${args[$k]} "$@")")
    n+=("$(seconds "$new" run ${args[$k]} "$@")")
  done
  mo="$(printf '%s\n' "${o[@]}" | median)"; mn="$(printf '%s\n' "${n[@]}" | median)"
  printf "%-11s %10s %10s %7.2f\n" "$k" "$mo" "$mn" "$(echo "$mo / $mn" | bc -l)"
done
