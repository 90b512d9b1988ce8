#!/usr/bin/env bash
# Build the libFuzzer targets of fuzz/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer) and
# run each for a bounded time from its committed seed corpus (fuzz/corpus/<target>/).
#
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_SEED      libFuzzer's -seed (default 1: the same mutations each run, so a failure in CI
#                  repeats); 0 picks a random one
#   BUILD_DIR      where the build goes ($BUILD_DIR/fuzz; default build)
#   FUZZ_TARGETS   the targets to run (default: graph_from_json deserialize api_calls)
#   FUZZ_JOBS      targets fuzzed at once (default: the number of cores)
#
# Prints one line per target: "PASS <target> ...", "FAIL <target> ..." (with the crashing input
# kept under $BUILD_DIR/fuzz/artifacts/) or "SKIP <target>: why"; exits non-zero when one failed.
# New inputs the fuzzer finds go to a working copy of the corpus, never into the repository;
# scripts/fuzz_merge.sh folds the ones that add coverage back into fuzz/corpus/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
# Absolute: the fuzz build runs in fuzz/, where a relative path would land in the source tree.
BUILD_DIR=$(mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" && pwd)
OUT="$BUILD_DIR/fuzz"
SECONDS_EACH=${FUZZ_SECONDS:-60}
SEED=${FUZZ_SEED:-1}
TARGETS=${FUZZ_TARGETS:-graph_from_json deserialize api_calls}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

skip_all() {
    for t in $TARGETS; do echo "SKIP $t: $1"; done
    exit 0
}

# clang with libFuzzer: Debian's clang package has it; install it when missing.
fuzzer_works() {
    command -v clang++ >/dev/null 2>&1 || return 1
    local probe
    probe=$(mktemp -d)
    printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }\n' \
        >"$probe/probe.cpp"
    clang++ -fsanitize=fuzzer,address "$probe/probe.cpp" -o "$probe/probe" >/dev/null 2>&1
    local rc=$?
    rm -rf "$probe"
    return $rc
}
if ! fuzzer_works; then
    echo "installing clang (libFuzzer)"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q clang; } >/dev/null 2>&1
    fuzzer_works || skip_all "no clang with -fsanitize=fuzzer (apt-get install clang failed)"
fi

mkdir -p "$OUT"
echo "building the fuzz targets into $OUT"
if ! make -C "$ROOT/fuzz" -j2 OUT="$OUT" CUDA_INCLUDE="$CUDA_HOME/include" >"$OUT.build.log" 2>&1; then
    tail -20 "$OUT.build.log"
    for t in $TARGETS; do echo "FAIL $t: the fuzz build failed (see $OUT.build.log)"; done
    exit 1
fi

# One target: fuzz it, then write its verdict to $OUT/<target>.verdict.
fuzz_target() {
    local target=$1
    local binary="$OUT/fuzz_$target" corpus="$OUT/corpus/$target" artifacts="$OUT/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    cp -n "$ROOT/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null
    local options=(-max_total_time="$SECONDS_EACH" -seed="$SEED" -timeout=10 -rss_limit_mb=2048 -max_len=65536
                   -artifact_prefix="$artifacts/" -print_final_stats=1)
    [ -f "$ROOT/fuzz/$target.dict" ] && options+=(-dict="$ROOT/fuzz/$target.dict")
    local log="$OUT/$target.log"
    "$binary" "${options[@]}" "$corpus" >"$log" 2>&1
    local rc=$?
    local runs
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
    local found
    found=$(find "$corpus" -type f | wc -l)
    if [ $rc -eq 0 ]; then
        echo "PASS $target: $runs inputs in ${SECONDS_EACH}s, no crash; corpus of $found inputs" >"$OUT/$target.verdict"
    else
        local crash
        crash=$(ls -t "$artifacts" 2>/dev/null | head -1)
        {
            echo "FAIL $target: exit $rc; input kept as $artifacts/$crash (replay: $binary $artifacts/$crash)"
            grep -E 'ERROR:|runtime error|SUMMARY|property broken' "$log" | head -5 | sed 's/^/    /'
        } >"$OUT/$target.verdict"
    fi
}

# The targets run side by side, as many at once as there are cores.
jobs_at_once=${FUZZ_JOBS:-$(nproc)}
for target in $TARGETS; do
    rm -f "$OUT/$target.verdict"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n; done
    fuzz_target "$target" &
done
wait
failed=0
for target in $TARGETS; do
    if [ -f "$OUT/$target.verdict" ]; then
        cat "$OUT/$target.verdict"
        grep -q '^PASS' "$OUT/$target.verdict" || failed=$((failed + 1))
    else
        echo "FAIL $target: no verdict (see $OUT/$target.log)"
        failed=$((failed + 1))
    fi
done
[ $failed -eq 0 ]
