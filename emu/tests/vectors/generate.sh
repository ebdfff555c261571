#!/bin/sh
# Regenerates the generated part of every vector file from the reference-model tests:
# the exec_* tests run with GEN_VECTORS=1 and record what their checks verify
# (emu/tests/exec_common/record.rs); op_vectors' ignored `generate` test then replays every
# record, keeps those that pass, and rewrites each file below its `# --- generated` line.
set -e
cd "$(dirname "$0")/../../.."
rm -rf target/tmp/vector-records
tests=$(ls emu/tests/exec_*.rs | sed 's|.*/\(exec_[a-z0-9_]*\)\.rs|--test \1|' | grep -v exec_support | grep -v exec_cli | grep -v exec_fixtures)
# shellcheck disable=SC2086
# One test thread: which run of a snippet is recorded first must not depend on timing.
GEN_VECTORS=1 cargo test -p gcnemu $tests -- --test-threads=1
cargo test -p gcnemu --test op_vectors -- --ignored generate --nocapture
