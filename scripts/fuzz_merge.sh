#!/usr/bin/env bash
# Fold what a fuzzing run found into the committed seed corpora: for each target, the inputs of
# $BUILD_DIR/fuzz/corpus/<target> that add coverage over fuzz/corpus/<target> (libFuzzer's
# -merge=1), named by their content. Run scripts/fuzz.sh first, as long as you like
# (FUZZ_SECONDS), then commit what this adds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
# Absolute: the fuzz build runs in fuzz/, where a relative path would land in the source tree.
BUILD_DIR=$(mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" && pwd)
OUT="$BUILD_DIR/fuzz"
for target in ${FUZZ_TARGETS:-graph_from_json deserialize api_calls}; do
    found="$OUT/corpus/$target"
    [ -d "$found" ] || { echo "$target: nothing found yet (run scripts/fuzz.sh)"; continue; }
    before=$(find "$ROOT/fuzz/corpus/$target" -type f | wc -l)
    "$OUT/fuzz_$target" -merge=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048 "$ROOT/fuzz/corpus/$target" "$found" \
        >"$OUT/$target.merge.log" 2>&1
    after=$(find "$ROOT/fuzz/corpus/$target" -type f | wc -l)
    echo "$target: $before seed inputs, $after after the merge"
done
