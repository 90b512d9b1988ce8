#!/usr/bin/env bash
# The execute-overhead benchmark on a GPU machine: host time per execute of a built [1,256,256] fp16
# matmul (median of 102400 calls, issued in blocks while the GPU is busy with an untimed blocker,
# so that the calls only queue their work), in C and through each binding whose program exists.
# ROUNDS rounds (default 5), each running every language's program once, the order rotated from
# round to round; printed: each language's median over the rounds, and its median difference to
# C's run of the same round (runs close in time, so the machine's drift from run to run cancels).
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
ROUNDS=${ROUNDS:-5}
PACK=$(cd "$PACK" && pwd)
if [ ! -d "$PACK/lib" ]; then
    echo "no pack at $PACK: run scripts/pack_bindings_for_gpu.sh first and pass its directory" >&2
    exit 2
fi
default_cudnn=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1)
CUDNN_LIB_DIR=${CUDNN_LIB_DIR:-${default_cudnn:-/usr/lib/x86_64-linux-gnu}}
export LD_LIBRARY_PATH="$PACK/lib:$CUDNN_LIB_DIR:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"

languages=(c java csharp go)
declare -A command
command[c]="$PACK/bin/execute_overhead"
command[java]="$PACK/java/runtime/bin/java -Djava.library.path=$PACK/lib -cp $PACK/java/cudnnfe.jar:$PACK/java/cudnnfe-bench.jar dev.cudnnfe.bench.ExecuteOverhead"
command[csharp]="$PACK/bin/execute_overhead_csharp"
command[go]="$PACK/bin/execute_overhead_go"

# one LANGUAGE: the median ns of one run of its program ("" when it is missing or printed none).
one() {
    local cmd=${command[$1]}
    [ -e "${cmd%% *}" ] || return
    local output
    output=$($cmd 2>&1)
    printf '%s\n' "$output" >>"$OUT"
    grep -E '^execute_overhead ' <<<"$output" | tail -1 | sed -nE 's/.*median_ns=([0-9]+).*/\1/p'
}

declare -A runs diffs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
for ((r = 0; r < ROUNDS; ++r)); do
    declare -A this=()
    for ((i = 0; i < ${#languages[@]}; ++i)); do
        language=${languages[$(((i + r) % ${#languages[@]}))]}
        this[$language]=$(one "$language")
    done
    for language in "${languages[@]}"; do
        [ -n "${this[$language]}" ] || continue
        runs[$language]+="${this[$language]} "
        [ -n "${this[c]}" ] && diffs[$language]+="$((this[$language] - this[c])) "
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
echo "host time per execute of a built 256x256 fp16 matmul (median of 102400 calls a run; medians over $ROUNDS rounds):"
for language in "${languages[@]}"; do
    if [ -z "${runs[$language]:-}" ]; then
        echo "  $language: not in the pack or no result, skipped"
        continue
    fi
    ns=$(median <<<"${runs[$language]}")
    if [ "$language" = c ]; then
        awk -v ns="$ns" 'BEGIN { printf "  %-7s %8.2f us\n", "c", ns / 1000 }'
    else
        d=$(median <<<"${diffs[$language]:-}")
        awk -v l="$language" -v ns="$ns" -v d="${d:-0}" \
            'BEGIN { printf "  %-7s %8.2f us  (%+.2f us over C, the median of the rounds'"'"' differences)\n", l, ns / 1000, d / 1000 }'
    fi
done
