#!/usr/bin/env bash
# Builds rocPRIM's own gtest suite (tag rocm-5.3.3) with Debian's hipcc for gfx900 and runs it
# through `gcnemu exec`, as an outside oracle for the HIP runtime. Not part of CI; see README.md.
#
#   ROCPRIM_SRC=~/src/rocPRIM OUT=/tmp/rocprim tests/peers/rocprim.sh build [FILTER...]
#   OUT=/tmp/rocprim tests/peers/rocprim.sh run [FILTER...]
#   ROCPRIM_SRC=... OUT=... tests/peers/rocprim.sh all [FILTER...]    # build, imports, run
#   OUT=/tmp/rocprim tests/peers/rocprim.sh imports [FILTER...]       # what the binaries import
#   ROCPRIM_SRC=... tests/peers/rocprim.sh list [FILTER...]           # which tests, in build order
#
# FILTER: extended regexes matched against the test name (test_warp_scan, ...); a test is
# selected when any of them matches. `warp_`, '^test_block_(scan|reduce)$'. None: all tests.
#
# Tests: test/rocprim/test_intrinsics.cpp, test_thread*.cpp, test_warp_*.cpp, test_block_*.cpp and
# test_device_*.cpp, plus the *.cpp.in ones, in that order (smallest sources first within a
# group). The iterator tests and test_basic are left out.
#
# Environment (defaults in brackets):
#   ROCPRIM_SRC      rocPRIM checkout at rocm-5.3.3; only its test/ directory is used: the
#                    library headers come from Debian's librocprim-dev (/usr/include/rocprim,
#                    also 2.10.9) [required for build/list]
#   OUT              build directory, best outside the repository [required]
#   HIPCC [hipcc]  OFFLOAD_ARCH [gfx900]  CXX_STD [c++14]  OPT [-O2]  EXTRA_CXXFLAGS []
#   GTEST_LIBS       [-lgtest_main -lgtest -pthread] (static libgtest: main's library first)
#   NICE [19]        niceness of every compile and link
#   COMPILE_TIMEOUT  seconds per compiler invocation, 0 = none [0]
#   FORCE [0]        1: rebuild binaries that already built successfully, and every object
#   GCNEMU           [<repo>/target/release/gcnemu]
#   EXEC_ARGS        options of `gcnemu exec` before the `--`, e.g. "--timing off --stats" []
#   RUN_TIMEOUT      seconds per test binary under gcnemu [1800]
#   GTEST_ARGS       extra arguments for every test binary, e.g. --gtest_filter=... []
#   WORKAROUNDS [1]  0: build without the per-test flags of `test_flags` below
#
# Layout of $OUT:
#   bin/<test>                 the test executables
#   gen/<test>/*.cpp           the slices CMake would generate from a .cpp.in
#   obj/<test>/*.o             objects, each with a .stamp (compiler, flags, the unit's hash):
#                              a build stopped part-way reuses them when it is run again
#   logs/<test>.compile.log    compiler output of every step
#   logs/<test>.time           /usr/bin/time -v of every step
#   logs/<test>.steps          one line per step: step wall_s peak_rss_kb exit_code
#                              (`reused:UNIT 0 0 0` for a kept object)
#   logs/<test>.status         status wall_s peak_rss_kb units first_error
#   logs/<test>.flags          the per-test flags used (`-` for none)
#   build-log.txt              table of all tests built so far (rewritten after each test)
#   hip-imports.txt            `name version count`: hip symbols imported, count of binaries
#   needed-libs.txt            `library count`: DT_NEEDED entries over all binaries
#   imports/<test>.*           per binary: .needed (DT_NEEDED), .hip (hip imports), .targets
#                              (offload bundles in .hip_fatbin), .list/.ntests (gtest's listing)
#   run-logs/<test>.log        output of the binary under gcnemu
#   run-summary.txt            the table printed by the last `run` that finished
#                              (run-summary.<pid>.partial while it runs)
#   run-history.txt            the tables of all finished runs, appended
#
# Exit status: 0 when everything selected built (build), passed (run) or both (all); 1 when some
# test failed to compile or to pass (the others still ran); 2 for usage errors.
# Concurrency: one build per $OUT (a lock); runs may share $OUT if their filters are disjoint
# (run-logs/<test>.log is per binary).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

usage() {
    sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ "$#" -ge 1 ] || usage
mode="$1"
shift
filters=("$@")
case "$mode" in
    build | run | all | imports | list) ;;
    *) usage ;;
esac

HIPCC="${HIPCC:-hipcc}"
OFFLOAD_ARCH="${OFFLOAD_ARCH:-gfx900}"
CXX_STD="${CXX_STD:-c++14}"
OPT="${OPT:--O2}"
EXTRA_CXXFLAGS="${EXTRA_CXXFLAGS:-}"
GTEST_LIBS="${GTEST_LIBS:--lgtest_main -lgtest -pthread}"
NICE="${NICE:-19}"
COMPILE_TIMEOUT="${COMPILE_TIMEOUT:-0}"
FORCE="${FORCE:-0}"
GCNEMU="${GCNEMU:-$repo_root/target/release/gcnemu}"
RUN_TIMEOUT="${RUN_TIMEOUT:-1800}"
EXEC_ARGS="${EXEC_ARGS:-}"
GTEST_ARGS="${GTEST_ARGS:-}"
WORKAROUNDS="${WORKAROUNDS:-1}"

# Per-test flags, after the common ones (the later -O wins). Each is a compiler bug workaround.
declare -A test_flags=(
    # Debian clang 15.0.6 stops with "fatal error: error in backend: failed to annotate CFG"
    # (SIAnnotateControlFlow, cf. llvm/llvm-project#58861) at -O2 and -O3 on
    # rocprim::detail::adjacent_difference_kernel<default_adjacent_difference_config<0,
    # discard_write<unsigned long>>, false, true, transform_iterator<counting_iterator<...>>, ...>
    # of RocprimDeviceAdjacentDifferenceLargeTests.LargeIndices. -O1 compiles.
    [test_device_adjacent_difference]="-O1"
)

die() {
    echo "rocprim.sh: $*" >&2
    exit 2
}

need_src() {
    [ -n "${ROCPRIM_SRC:-}" ] || die "set ROCPRIM_SRC to a rocPRIM checkout at rocm-5.3.3"
    [ -d "$ROCPRIM_SRC/test/rocprim" ] || die "$ROCPRIM_SRC/test/rocprim: no such directory"
    ROCPRIM_SRC="$(cd "$ROCPRIM_SRC" && pwd)"
}

need_out() {
    [ -n "${OUT:-}" ] || die "set OUT to a build directory (outside the repository)"
    mkdir -p "$OUT"
    OUT="$(cd "$OUT" && pwd)"
}

# True when no filter was given or the name matches one of them.
selected() {
    local name="$1" f
    [ "${#filters[@]}" -eq 0 ] && return 0
    for f in "${filters[@]}"; do
        [[ "$name" =~ $f ]] && return 0
    done
    return 1
}

# Prints `name path` for every test of the suite in build order: intrinsics, thread, warp,
# block, device; within a group by the size of the test's own files (<name>.cpp[.in], <name>.hpp,
# <name>.kernels.hpp), a rough stand-in for compile time.
all_tests() {
    local dir="$ROCPRIM_SRC/test/rocprim" group f base name size
    for group in 'test_intrinsics' 'test_thread*' 'test_warp_*' 'test_block_*' 'test_device_*'; do
        for f in "$dir"/$group.cpp "$dir"/$group.cpp.in; do
            [ -e "$f" ] || continue
            base="$(basename "$f")"
            name="${base%%.*}"
            size="$(cat "$dir/$name".* | wc -c)"
            echo "$size $name $f"
        done | sort -n | cut -d' ' -f2-
    done
}

# The tests of all_tests that the filters select.
selected_tests() {
    local name path
    while read -r name path; do
        if selected "$name"; then echo "$name $path"; fi
    done < <(all_tests)
}

# Names of built binaries that the filters select, in build order when the sources are known.
selected_binaries() {
    local name path
    if [ -n "${ROCPRIM_SRC:-}" ] && [ -d "$ROCPRIM_SRC/test/rocprim" ]; then
        while read -r name path; do
            [ -x "$OUT/bin/$name" ] && echo "$name"
        done < <(selected_tests)
    else
        for path in "$OUT"/bin/test_*; do
            [ -x "$path" ] || continue
            name="$(basename "$path")"
            if selected "$name"; then echo "$name"; fi
        done
    fi
}

# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------

# Values X of "WORD == X" in a file: the slice numbers of add_rocprim_test_parallel.
slice_values() {
    grep -oE "$2[ ]*==[ ]*[0-9]+" "$1" | sed -E 's/.*==[ ]*//' | sort -un || true
}

# configure_file(@ONLY) of one slice: `#cmakedefine VAR @VAR@` becomes `#define VAR value` when
# CMake considers the value true and `/* #undef VAR */` when false (0 is false in CMake; an
# undefined macro is 0 in #if, so slice 0 still selects its branch).
configure_slice() {
    local in="$1" out="$2" test_slice="$3" suite_slice="$4" type_slice="$5" script="" var val
    for var in ROCPRIM_TEST_SLICE ROCPRIM_TEST_SUITE_SLICE ROCPRIM_TEST_TYPE_SLICE; do
        case "$var" in
            ROCPRIM_TEST_SLICE) val="$test_slice" ;;
            ROCPRIM_TEST_SUITE_SLICE) val="$suite_slice" ;;
            ROCPRIM_TEST_TYPE_SLICE) val="$type_slice" ;;
        esac
        if [ "$val" = 0 ]; then
            script+="s|^#cmakedefine[ ]+$var([ ].*)?\$|/* #undef $var */|;"
        else
            script+="s|^#cmakedefine[ ]+$var([ ].*)?\$|#define $var $val|;"
        fi
    done
    sed -E "$script" "$in" >"$out"
}

# Generates the translation units of a .cpp.in as add_rocprim_test_parallel does: one per
# non-typed slice (typed slices -1), one per (suite slice, type slice) pair (non-typed -1).
# Prints the generated paths.
generate_slices() {
    local in="$1" name="$2" dir="$OUT/gen/$2" t s ty
    rm -rf "$dir"
    mkdir -p "$dir"
    for t in $(slice_values "$in" ROCPRIM_TEST_SLICE); do
        configure_slice "$in" "$dir/${name}_$t.cpp" "$t" -1 -1
        echo "$dir/${name}_$t.cpp"
    done
    local suites types
    suites="$(slice_values "$in" ROCPRIM_TEST_SUITE_SLICE)"
    types="$(slice_values "$in" ROCPRIM_TEST_TYPE_SLICE)"
    if [ -n "$suites" ] && [ -n "$types" ]; then
        for s in $suites; do
            for ty in $types; do
                configure_slice "$in" "$dir/${name}_typed_${s}_$ty.cpp" -1 "$s" "$ty"
                echo "$dir/${name}_typed_${s}_$ty.cpp"
            done
        done
    fi
}

# "h:mm:ss" or "m:ss.ss" -> seconds.
to_seconds() {
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.1f\n", s }' <<<"$1"
}

# step NAME STEP CMD...: runs CMD under nice (and timeout), output appended to the test's
# compile log, /usr/bin/time -v appended to its .time file, `STEP wall rss rc` to its .steps.
step() {
    local name="$1" label="$2" tmp rc wall rss
    shift 2
    local -a cmd=(nice -n "$NICE")
    if [ "$COMPILE_TIMEOUT" != 0 ]; then cmd+=(timeout --kill-after=30 "$COMPILE_TIMEOUT"); fi
    cmd+=("$@")
    tmp="$(mktemp)"
    echo "+ ${cmd[*]}" >>"$OUT/logs/$name.compile.log"
    if /usr/bin/time -v -o "$tmp" "${cmd[@]}" >>"$OUT/logs/$name.compile.log" 2>&1; then
        rc=0
    else
        rc=$?
    fi
    wall="$(to_seconds "$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$tmp")")"
    rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp")"
    { echo "== $label"; cat "$tmp"; } >>"$OUT/logs/$name.time"
    echo "$label $wall ${rss:-0} $rc" >>"$OUT/logs/$name.steps"
    rm -f "$tmp"
    return "$rc"
}

# Compiles each translation unit of one test, then links; writes logs/<name>.status.
build_one() {
    local name="$1" src="$2" status="ok" first_error="" unit obj rc
    local -a units objs
    if [ "$FORCE" != 1 ] && [ -x "$OUT/bin/$name" ] && [ -f "$OUT/logs/$name.status" ] &&
        [ "$(cut -d' ' -f1 "$OUT/logs/$name.status")" = ok ]; then
        echo "  $name: already built (FORCE=1 rebuilds)"
        return 0
    fi
    rm -f "$OUT/bin/$name" "$OUT/logs/$name".{compile.log,time,steps,status,flags}
    # Objects of an earlier, unfinished build are kept: each has a stamp of what made it (below).
    [ "$FORCE" = 1 ] && rm -rf "${OUT:?}/obj/$name"
    mkdir -p "$OUT/obj/$name"
    case "$src" in
        *.cpp.in) mapfile -t units < <(generate_slices "$src" "$name") ;;
        *) units=("$src") ;;
    esac
    # Flags as test/CMakeLists.txt gives them: test/ (common_test_header.hpp) as a system include
    # directory, test/rocprim for the generated slices' "test_*.hpp" includes; C++14 (rocPRIM's
    # CMAKE_CXX_STANDARD); rocprim_hip adds nothing but the headers and hip::device.
    local -a cxxflags=(--offload-arch="$OFFLOAD_ARCH" "$OPT" -std="$CXX_STD"
        -isystem "$ROCPRIM_SRC/test" -I "$ROCPRIM_SRC/test/rocprim")
    local extra="$EXTRA_CXXFLAGS" used="-"
    if [ "$WORKAROUNDS" = 1 ] && [ -n "${test_flags[$name]:-}" ]; then
        used="${test_flags[$name]}"
        extra+=" $used"
    fi
    echo "$used" >"$OUT/logs/$name.flags"
    # shellcheck disable=SC2206 # word splitting wanted
    cxxflags+=($extra)
    objs=()
    local stamp
    for unit in "${units[@]}"; do
        obj="$OUT/obj/$name/$(basename "${unit%.cpp}").o"
        # The compiler, its flags and the unit's text: an object with the same stamp is reused,
        # so a build stopped part-way resumes where it was (a slice takes up to half an hour).
        stamp="$("$HIPCC" --version 2>&1 | head -n1) ${cxxflags[*]} $(sha256sum <"$unit")"
        if [ -f "$obj" ] && [ -f "$obj.stamp" ] && [ "$(cat "$obj.stamp")" = "$stamp" ]; then
            echo "reused:$(basename "$unit") 0 0 0" >>"$OUT/logs/$name.steps"
            objs+=("$obj")
            continue
        fi
        rm -f "$obj" "$obj.stamp"
        if step "$name" "compile:$(basename "$unit")" "$HIPCC" "${cxxflags[@]}" -c "$unit" -o "$obj"; then
            echo "$stamp" >"$obj.stamp"
            objs+=("$obj")
        else
            rc=$?
            status="FAIL"
            [ "$rc" = 124 ] && status="TIMEOUT"
            # Keep compiling the other slices: their errors go to the same log.
        fi
    done
    if [ "$status" = ok ]; then
        # shellcheck disable=SC2086 # GTEST_LIBS is a list of flags
        if ! step "$name" link "$HIPCC" --offload-arch="$OFFLOAD_ARCH" "${objs[@]}" \
            -o "$OUT/bin/$name" $GTEST_LIBS; then
            status="LINKFAIL"
        fi
    fi
    if [ "$status" != ok ]; then
        first_error="$(grep -m1 -E '(error|Error)[: ]' "$OUT/logs/$name.compile.log" ||
            tail -n1 "$OUT/logs/$name.compile.log")"
        first_error="${first_error//$ROCPRIM_SRC/\$ROCPRIM_SRC}"
    fi
    # wall = sum of the steps, rss = the largest step.
    ERR="$first_error" awk -v st="$status" -v n="${#units[@]}" \
        '{ w += $2; if ($3 > r) r = $3 }
         END { printf "%s %.1f %d %d %s\n", st, w, r, n, ENVIRON["ERR"] }' \
        "$OUT/logs/$name.steps" >"$OUT/logs/$name.status"
    echo "  $name: $(cut -d' ' -f1-2 "$OUT/logs/$name.status")s"
}

# Rewrites build-log.txt from the status files of every test that has been attempted.
write_build_log() {
    local log="$OUT/build-log.txt" name path st wall rss n err flags total=0
    {
        echo "# rocPRIM test suite from $ROCPRIM_SRC, built by tests/peers/rocprim.sh"
        echo "# $("$HIPCC" --offload-arch="$OFFLOAD_ARCH" --version 2>/dev/null | head -n2 | tr '\n' ' ')"
        echo "# flags: --offload-arch=$OFFLOAD_ARCH $OPT -std=$CXX_STD -isystem \$ROCPRIM_SRC/test" \
            "-I \$ROCPRIM_SRC/test/rocprim $EXTRA_CXXFLAGS; link: $GTEST_LIBS; nice -n $NICE"
        echo "# headers: /usr/include/rocprim ($(dpkg-query -W -f '${Package} ${Version}' librocprim-dev 2>/dev/null || echo '?'))"
        echo "# wall_s: sum of compile and link steps; peak_rss_mb: largest step (/usr/bin/time -v);"
        echo "# units: translation units; test_flags: per-test workaround flags (see the script)"
        echo "# $(nproc) cores; written $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo
        printf '%-36s %-8s %9s %12s %5s %-10s  %s\n' test status wall_s peak_rss_mb units \
            test_flags first_error
        while read -r name path; do
            [ -f "$OUT/logs/$name.status" ] || continue
            read -r st wall rss n err <"$OUT/logs/$name.status"
            flags="$(cat "$OUT/logs/$name.flags" 2>/dev/null || echo -)"
            printf '%-36s %-8s %9s %12s %5s %-10s  %s\n' "$name" "$st" "$wall" "$((rss / 1024))" \
                "$n" "$flags" "$err"
            total="$(awk -v a="$total" -v b="$wall" 'BEGIN { printf "%.1f", a + b }')"
        done < <(all_tests)
        echo
        echo "total wall: ${total}s"
        echo
        echo "# steps: test step wall_s peak_rss_kb exit_code"
        while read -r name path; do
            [ -f "$OUT/logs/$name.steps" ] || continue
            sed "s/^/$name /" "$OUT/logs/$name.steps"
        done < <(all_tests)
    } >"$log.tmp"
    mv "$log.tmp" "$log"
}

do_build() {
    need_src
    need_out
    command -v "$HIPCC" >/dev/null || die "$HIPCC not found (apt-get install hipcc)"
    [ -d /usr/include/rocprim ] || die "/usr/include/rocprim missing (apt-get install librocprim-dev)"
    [ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
    mkdir -p "$OUT/bin" "$OUT/logs" "$OUT/obj" "$OUT/gen"
    # One build per $OUT at a time: builds share gen/, obj/ and build-log.txt.
    exec 9>"$OUT/.build.lock"
    flock -n 9 || die "another build is using $OUT"
    local name path failed=0
    while read -r name path; do
        echo "building $name"
        build_one "$name" "$path"
        [ "$(cut -d' ' -f1 "$OUT/logs/$name.status")" = ok ] || failed=1
        write_build_log
    done < <(selected_tests)
    echo "build log: $OUT/build-log.txt"
    return "$failed"
}

# ---------------------------------------------------------------------------------------------
# imports
# ---------------------------------------------------------------------------------------------

# Per binary: DT_NEEDED, the undefined dynamic symbols whose names start with hip/__hip (with
# their symbol versions), and the offload targets in .hip_fatbin. Then the unions.
do_imports() {
    need_out
    local name bin dir="$OUT/imports" bundler
    mkdir -p "$dir"
    bundler="$(command -v clang-offload-bundler || ls /usr/lib/llvm-*/bin/clang-offload-bundler 2>/dev/null | tail -n1 || true)"
    local -a names
    mapfile -t names < <(selected_binaries)
    [ "${#names[@]}" -gt 0 ] || die "no built binaries in $OUT/bin"
    for name in "${names[@]}"; do
        bin="$OUT/bin/$name"
        readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u >"$dir/$name.needed"
        # objdump -T: ADDR FLAGS... *UND* SIZE [VERSION] NAME; the version is `(hip_4.2)` or
        # `Base`, or absent for unversioned imports.
        objdump -T "$bin" | awk '{
            for (i = 1; i <= NF; i++) if ($i == "*UND*") break
            if (i > NF) next
            sym = $NF; ver = (NF >= i + 3) ? $(i + 2) : "-"
            gsub(/[()]/, "", ver)
            if (sym ~ /^_*hip/) print sym, ver
        }' | sort -u >"$dir/$name.hip"
        # Test count from gtest's own listing. This runs the binary natively: its static
        # constructors only register the fat binary, which Debian's libamdhip64 accepts without
        # a GPU; `run` falls back to this count when a binary dies before its summary.
        if (cd "$OUT/bin" && timeout 60 "./$name" --gtest_list_tests) >"$dir/$name.list" 2>&1; then
            grep -c '^  ' "$dir/$name.list" >"$dir/$name.ntests" || true
        else
            rm -f "$dir/$name.ntests"
        fi
        if [ -n "$bundler" ]; then
            objcopy -O binary --only-section=.hip_fatbin "$bin" "$dir/$name.fatbin"
            "$bundler" --list --type=o --input="$dir/$name.fatbin" 2>/dev/null |
                sort >"$dir/$name.targets" || true
            rm -f "$dir/$name.fatbin"
        fi
    done
    for name in "${names[@]}"; do cat "$dir/$name.hip"; done |
        sort | uniq -c | awk '{ print $2, $3, $1 }' | sort -k1,1 -k2,2 >"$OUT/hip-imports.txt"
    for name in "${names[@]}"; do cat "$dir/$name.needed"; done |
        sort | uniq -c | awk '{ print $2, $1 }' | sort >"$OUT/needed-libs.txt"
    echo "${#names[@]} binaries; $(wc -l <"$OUT/hip-imports.txt") hip symbols -> $OUT/hip-imports.txt"
    echo "shared libraries needed (library, binaries):"
    sed 's/^/  /' "$OUT/needed-libs.txt"
}

# ---------------------------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------------------------

# Runs one binary under gcnemu; prints `name tests passed failed skipped status wall`.
# gtest --gtest_brief=1 prints a `[  FAILED  ] Suite.Test` line per failed test and at the end
#   [==========] N tests from M test suites ran. (T ms total)
#   [  PASSED  ] P tests.
#   [  SKIPPED ] S tests.        (only when S > 0)
# Without the summary (crash, timeout, HIP_CHECK's exit()) passed is unknown (`?`), and tests is
# the count gtest listed in `imports` (or `?`).
run_one() {
    local name="$1" log="$OUT/run-logs/$1.log" start end rc status tests passed skipped failed
    start="$(date +%s.%N)"
    # shellcheck disable=SC2086 # EXEC_ARGS and GTEST_ARGS are lists of arguments
    if (cd "$OUT/bin" && timeout --kill-after=30 "$RUN_TIMEOUT" \
        "$GCNEMU" exec $EXEC_ARGS -- "./$name" --gtest_brief=1 --gtest_color=no $GTEST_ARGS) \
        >"$log" 2>&1 </dev/null; then
        rc=0
    else
        rc=$?
    fi
    end="$(date +%s.%N)"
    tests="$(sed -nE 's/^\[==========\] ([0-9]+) tests? from .* ran\..*/\1/p' "$log" | tail -n1)"
    passed="$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\.$/\1/p' "$log" | tail -n1)"
    skipped="$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?\.$/\1/p' "$log" | tail -n1)"
    skipped="${skipped:-0}"
    if [ -n "$tests" ] && [ -n "$passed" ]; then
        failed=$((tests - passed - skipped))
    else
        # Per-test failure lines only; not the "N tests, listed below:" of the verbose printer.
        failed="$(grep -cE '^\[  FAILED  \] [^ ]+\.[^ ]+' "$log" || true)"
        tests="?"
        passed="?"
        # The count from `imports` (gtest's listing), if it ran.
        if [ -s "$OUT/imports/$name.ntests" ]; then tests="$(cat "$OUT/imports/$name.ntests")"; fi
    fi
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        status="TIMEOUT"
    elif [ "$passed" = "?" ]; then
        status="CRASH($rc)"
    elif [ "$failed" != 0 ] || [ "$rc" != 0 ]; then
        status="FAIL($rc)"
    else
        status="ok"
    fi
    printf '%s %s %s %s %s %s %.1f\n' "$name" "$tests" "$passed" "$failed" "$skipped" "$status" \
        "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
}

do_run() {
    need_out
    [ -x "$GCNEMU" ] || die "$GCNEMU is not built (cargo build --release) or set GCNEMU"
    # Absolute, since the binaries run from $OUT/bin.
    GCNEMU="$(cd "$(dirname "$GCNEMU")" && pwd)/$(basename "$GCNEMU")"
    mkdir -p "$OUT/run-logs"
    local -a names
    mapfile -t names < <(selected_binaries)
    [ "${#names[@]}" -gt 0 ] || die "no built binaries in $OUT/bin (run the build mode first)"
    local name row fmt='%-36s %6s %7s %7s %8s %-12s %9s\n' bad=0
    local tests passed failed skipped status
    # The table goes to run-summary.<pid>.partial while running and becomes run-summary.txt at
    # the end (and is appended to run-history.txt), so runs of disjoint filters can share $OUT.
    local summary="$OUT/run-summary.$$.partial"
    {
        echo "# $GCNEMU exec $EXEC_ARGS -- ./<test> --gtest_brief=1 --gtest_color=no $GTEST_ARGS"
        echo "# timeout ${RUN_TIMEOUT}s per binary; $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        # shellcheck disable=SC2059 # the format is a variable on purpose
        printf "$fmt" binary tests passed failed skipped status wall_s
    } | tee "$summary"
    local t_tests=0 t_passed=0 t_failed=0 t_skipped=0
    for name in "${names[@]}"; do
        row="$(run_one "$name")"
        # shellcheck disable=SC2059,SC2086 # the row is split into the columns on purpose
        printf "$fmt" $row | tee -a "$summary"
        read -r _ tests passed failed skipped status _ <<<"$row"
        [ "$status" = ok ] || bad=1
        [ "$tests" = "?" ] || t_tests=$((t_tests + tests))
        [ "$passed" = "?" ] || t_passed=$((t_passed + passed))
        t_failed=$((t_failed + failed))
        t_skipped=$((t_skipped + skipped))
    done
    # shellcheck disable=SC2059
    printf "$fmt" total "$t_tests" "$t_passed" "$t_failed" "$t_skipped" "" "" | tee -a "$summary"
    { cat "$summary"; echo; } >>"$OUT/run-history.txt"
    mv "$summary" "$OUT/run-summary.txt"
    echo "logs: $OUT/run-logs/"
    return "$bad"
}

# ---------------------------------------------------------------------------------------------

main() {
    local status=0
    case "$mode" in
        list)
            need_src
            selected_tests
            ;;
        build) do_build || status=1 ;;
        imports) do_imports ;;
        run) do_run || status=1 ;;
        all)
            do_build || status=1
            do_imports
            do_run || status=1
            ;;
    esac
    return "$status"
}

# One line, so bash has read the whole file before running anything: editing the script while a
# long run is going does not change what that run executes next.
main; exit "$?"
