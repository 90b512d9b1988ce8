#!/usr/bin/env bash
# The execute-overhead benchmark on a GPU machine: host time per execute of a built [1,256,256] fp16
# matmul (median of 102400 calls, issued in blocks while the GPU is busy with an untimed blocker,
# so that the calls only queue their work), in C and through each binding whose program exists,
# printed with the difference to C.
#
#   bench/bindings/run.sh [PACK_DIR] [OUT_FILE]
#
# PACK_DIR is the directory scripts/pack_bindings_for_gpu.sh made (it carries a copy of this
# script as run_bench.sh, which defaults to its own directory). No JDK, Mono or Go is needed there:
# Java runs on the pack's cut-down runtime, C# is one bundled executable, Go is a static program.
# CUDNN_LIB_DIR: where libcudnn.so.9 lives (default: PyTorch's bundled cuDNN, else the system's).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PACK=${1:-$HERE}
OUT=${2:-/dev/null}
PACK=$(cd "$PACK" && pwd)
if [ ! -d "$PACK/lib" ]; then
    echo "no pack at $PACK: run scripts/pack_bindings_for_gpu.sh first and pass its directory" >&2
    exit 2
fi
default_cudnn=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1)
CUDNN_LIB_DIR=${CUDNN_LIB_DIR:-${default_cudnn:-/usr/lib/x86_64-linux-gnu}}
export LD_LIBRARY_PATH="$PACK/lib:$CUDNN_LIB_DIR:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"

declare -A median
order=()
# run LANGUAGE COMMAND...: the program prints "execute_overhead <language> median_ns=<n> ...".
run() {
    local language=$1
    shift
    if [ ! -e "$1" ]; then
        echo "  $language: not in the pack, skipped"
        return
    fi
    local output line
    output=$("$@" 2>&1)
    printf '%s\n' "$output" >>"$OUT"
    line=$(grep -E '^execute_overhead ' <<<"$output" | tail -1)
    if [ -z "$line" ]; then
        echo "  $language: no result: $(tail -1 <<<"$output")"
        return
    fi
    median[$language]=$(sed -E 's/.*median_ns=([0-9]+).*/\1/' <<<"$line")
    order+=("$language")
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
run c "$PACK/bin/execute_overhead"
run java "$PACK/java/runtime/bin/java" -Djava.library.path="$PACK/lib" \
    -cp "$PACK/java/cudnnfe.jar:$PACK/java/cudnnfe-bench.jar" dev.cudnnfe.bench.ExecuteOverhead
run csharp "$PACK/bin/execute_overhead_csharp"
run go "$PACK/bin/execute_overhead_go"

echo "host time per execute of a built 256x256 fp16 matmul (median of 100000 calls):"
for language in "${order[@]}"; do
    awk -v l="$language" -v ns="${median[$language]}" -v c="${median[c]:-}" 'BEGIN {
        if (l != "c" && c != "") printf "  %-7s %8.2f us  (%+.2f us over C)\n", l, ns / 1000, (ns - c) / 1000
        else printf "  %-7s %8.2f us\n", l, ns / 1000 }'
done
