#!/usr/bin/env bash
# The conformance tier on a machine with a GPU, from a build directory made elsewhere (it needs
# no compiler here): the randomized suite of every op family at the sizes of its committed
# results, and the capability table's probes, each in a process of its own.
#
#   scripts/conformance_gpu.sh [BUILD_DIR] [OUT_DIR] [PART...]
#
# PART: suite (every family at its default count, each family or group of small families in a
# process of its own, in parallel: a kernel fault loses only that process's CUDA context), probes,
# or FAMILY[,FAMILY...][:COUNT]; default both. SEED fixes the seed (default: the time); THREADS
# the workers in all (default: one per core), which take the machine's GPUs in turn.
# CUDNN_LIB_DIR: where libcudnn.so.9 lives (default: PyTorch's bundled cuDNN, else the system's).
# DEADLINE: seconds after which each family's runner reports what finished and names the cases
# still running (a kernel that never returns), instead of running on.
# Writes OUT_DIR/conformance-*.log and the summary tables conformance-*.md and probes.md.
set -u
BUILD=${1:-build}
OUT=${2:-conformance-results}
shift 2 2>/dev/null || shift $#
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(suite probes)
mkdir -p "$OUT"
default_cudnn=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1)
CUDNN_LIB_DIR=${CUDNN_LIB_DIR:-${default_cudnn:-/usr/lib/x86_64-linux-gnu}}
export LD_LIBRARY_PATH="$BUILD:$CUDNN_LIB_DIR:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
SEED=${SEED:-$(date +%s)}
THREADS=${THREADS:-$(nproc)}
runner="$BUILD/tests/conformance/cudnnfe_conformance"
deadline=()
[ -n "${DEADLINE:-}" ] && deadline=(--deadline "$DEADLINE")
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    echo "seed $SEED, $THREADS threads, $(date -u +%Y-%m-%d)"
} | tee -a "$OUT/device.txt"

status=0
for part in "${parts[@]}"; do
    case $part in
        probes)
            "$runner" --probe all --seed "$SEED" --summary "$OUT/probes.md" 2>&1 | tee "$OUT/probes.log" | grep '^probe '
            ;;
        suite)
            # Workers in proportion to each group's cases (the default counts).
            groups=(attention_fwd:6 attention_bwd:5 attention_mod_fwd,attention_mod_bwd:2 attention_fp8_fwd:6 attention_fp8_bwd:2 conv,conv_int8,conv_genstats,conv_reduction:4 matmul,matmul_block_scale,swiglu:4 norm,norm_fused:3
                    pointwise,reduction,resample,moe:4 softmax,bn_finalize,layout:2)
            pids=()
            for group in "${groups[@]}"; do
                families=${group%%:*}
                threads=$(( ${group##*:} * THREADS / 30 ))
                [ "$threads" -lt 1 ] && threads=1
                name=${families//,/-}
                "$runner" --family "$families" --seed "$SEED" --threads "$threads" "${deadline[@]}" \
                    --summary "$OUT/conformance-$name.md" >"$OUT/conformance-$name.log" 2>&1 &
                pids+=($!)
            done
            for pid in "${pids[@]}"; do wait "$pid" || status=1; done
            for group in "${groups[@]}"; do
                log="$OUT/conformance-$(echo "${group%%:*}" | tr , -).log"
                grep -E '=> (WRONG|ERROR)|^the CUDA context is lost|^SLOW|running at the deadline' "$log" | head -40
                sed -n '/^| family | cases/,/^$/p' "$log"
            done
            ;;
        *)
            families=${part%%:*}
            count=()
            [ "$families" != "$part" ] && count=(--count "${part##*:}")
            name=${families//,/-}
            "$runner" --family "$families" "${count[@]}" --seed "$SEED" --threads "$THREADS" "${deadline[@]}" \
                --summary "$OUT/conformance-$name.md" >"$OUT/conformance-$name.log" 2>&1 || status=1
            grep -E '=> (WRONG|ERROR)|context is lost|^SLOW|running at the deadline' "$OUT/conformance-$name.log" | head -40
            sed -n '/^| family | cases/,$p' "$OUT/conformance-$name.log"
            ;;
    esac
done
exit $status
