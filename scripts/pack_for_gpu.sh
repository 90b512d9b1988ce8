#!/usr/bin/env bash
# Gather what the gpu tier, the conformance tier, the C examples and the benchmarks need on a GPU
# machine without a compiler, stripped, into one directory laid out as a build directory (default:
# <build>/gpu-pack, about 6 MB without the benchmarks):
#
#   libcudnnfe.so*, tests/gpu/cudnnfe_gpu_tests, tests/conformance/cudnnfe_conformance (and
#   cudnnfe_vectorized_int8_probe where it was built),
#   examples/c/*, bench/*_bench and bench/libcudnn_floor.so (WITH_BENCH=1), devices/h100-sxm-80gb.json
#
#   scripts/pack_for_gpu.sh [BUILD_DIR] [PACK_DIR]
#
# On the GPU machine: scripts/gpu_run.sh PACK_DIR OUT and scripts/conformance_gpu.sh PACK_DIR OUT,
# with CUDNNFE_DEVICE_JSON=PACK_DIR/devices/h100-sxm-80gb.json for the deviceless cases.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
PACK=${2:-$BUILD/gpu-pack}
ninja -C "$BUILD" -j2 >/dev/null

rm -rf "$PACK"
mkdir -p "$PACK"/{tests/gpu,tests/conformance,examples/c,bench,devices}
for lib in "$BUILD"/libcudnnfe.so*; do
    [ -d "$lib" ] || cp -a "$lib" "$PACK/"
done
cp "$BUILD/tests/gpu/cudnnfe_gpu_tests" "$PACK/tests/gpu/"
cp "$BUILD/tests/conformance/cudnnfe_conformance" "$PACK/tests/conformance/"
probe="$BUILD/tests/conformance/cudnnfe_vectorized_int8_probe"
[ -x "$probe" ] && cp "$probe" "$PACK/tests/conformance/"
for example in "$BUILD"/examples/c/*; do
    [ -f "$example" ] && [ -x "$example" ] && cp "$example" "$PACK/examples/c/"
done
if [ "${WITH_BENCH:-0}" = 1 ]; then
    for bench in "$BUILD"/bench/*_bench; do
        [ -f "$bench" ] && cp "$bench" "$PACK/bench/"
    done
    cp "$BUILD/bench/libcudnn_floor.so" "$PACK/bench/"
fi
device="$ROOT/../shared/devices/h100-sxm-80gb.json"
[ -f "$device" ] && cp "$device" "$PACK/devices/"
find "$PACK" -type f ! -name '*.json' -exec strip --strip-unneeded {} + 2>/dev/null || true
du -sh "$PACK"
