#!/usr/bin/env bash
# Run the gpu tier, the C examples and the kernel benchmark on a machine with a GPU, from a
# build directory made on another machine (it needs no compiler or GoogleTest here).
#
#   scripts/gpu_run.sh [BUILD_DIR] [OUT_DIR]
#
# CUDNN_LIB_DIR: where libcudnn.so.9 lives (default: PyTorch's bundled cuDNN, else the system's).
set -u
BUILD=${1:-build}
OUT=${2:-gpu-results}
mkdir -p "$OUT"
default_cudnn=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1)
CUDNN_LIB_DIR=${CUDNN_LIB_DIR:-${default_cudnn:-/usr/lib/x86_64-linux-gnu}}
export LD_LIBRARY_PATH="$BUILD:$CUDNN_LIB_DIR:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export CUDNNFE_DEVICE_JSON=${CUDNNFE_DEVICE_JSON:-$PWD/shared/devices/h100-sxm-80gb.json}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"

status=0
"$BUILD/tests/gpu/cudnnfe_gpu_tests" 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "^\[  (PASSED|FAILED) |FAILED|Failure|plan eng|elements, max" || true
grep -q "^\[  FAILED  \]" "$OUT/gpu_tests.log" && status=1
grep -E "^\[  PASSED  \]|tests ran" "$OUT/gpu_tests.log"

for example in "$BUILD"/examples/c/*; do
    [ -f "$example" ] && [ -x "$example" ] || continue
    echo "== $(basename "$example")"
    "$example" 2>&1 | tee -a "$OUT/examples.log" || status=1
done

if [ -x "$BUILD/bench/kernel_bench" ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
    python3 "$(dirname "$0")/../bench/torch_compare.py" "$BUILD" "$OUT/kernel_bench.md" 2>&1 | tee "$OUT/bench.log"
fi
if [ -x "$BUILD/bench/sdpa_bench" ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
    python3 "$(dirname "$0")/../bench/sdpa_compare.py" "$BUILD" "$OUT/sdpa_bench.md" fwd 2>&1 | tee "$OUT/sdpa_bench.log"
    python3 "$(dirname "$0")/../bench/sdpa_compare.py" "$BUILD" "$OUT/sdpa_bench_bwd.md" bwd 2>&1 | tee "$OUT/sdpa_bench_bwd.log"
fi
if [ -x "$BUILD/bench/norm_bench" ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
    python3 "$(dirname "$0")/../bench/norm_compare.py" "$BUILD" "$OUT/norm_bench.md" 2>&1 | tee "$OUT/norm_bench.log"
fi
if [ -x "$BUILD/bench/conv_bench" ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
    python3 "$(dirname "$0")/../bench/conv_compare.py" "$BUILD" "$OUT/conv_bench.md" 2>"$OUT/conv_bench.log" | tee -a "$OUT/bench.log"
fi
exit $status
