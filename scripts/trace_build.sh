#!/usr/bin/env bash
# What one deviceless build of a graph goes through: the library built with every function's entry
# and exit traced (-finstrument-functions, unoptimized, into BUILD_DIR), one fe_graph_build of
# GRAPH.json for the described H100, with the in-process plan cache off and then on (a first build:
# the key, a miss, the store), and the files and layers its calls ran in
# (scripts/build_trace/analyze_trace.py).
#
#   scripts/trace_build.sh [GRAPH.json] [BUILD_DIR]     default: examples/graphs/conv_seed.json, build/trace
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GRAPH=${1:-$ROOT/examples/graphs/conv_seed.json}
DIR=${2:-$ROOT/build/trace}
DEVICE=${CUDNNFE_DEVICE_JSON:-$ROOT/../shared/devices/h100-sxm-80gb.json}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$DIR/build.ninja" ]; then
    # b_lundef=false: the hooks the instrumented library calls are the tracing program's.
    meson setup "$DIR" "$ROOT" -Dbuildtype=debug -Db_lundef=false -Dcpp_args=-finstrument-functions \
        -Dbindings=disabled -Dtests=false -Dcudnn_headers="$CUDA_HOME/include" \
        -Dcudart_headers="$CUDA_HOME/include" >/dev/null
fi
VERSION=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$ROOT/meson.build")
ninja -C "$DIR" "libcudnnfe.so.$VERSION" >/dev/null
cc -O1 -rdynamic -I"$ROOT/include" "$ROOT/scripts/build_trace/trace_build.c" -L"$DIR" -lcudnnfe -ldl \
    -o "$DIR/trace_build"
for cache in off on; do
    CUDNNFE_STUB_DRIVER=1 LD_LIBRARY_PATH="$DIR:$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$DIR/trace_build" "$GRAPH" "$DEVICE" "$DIR/build-cache-$cache.trace" $([ $cache = on ] && echo cached)
    echo "$(basename "$GRAPH"), built for $(basename "$DEVICE"), plan cache $cache:"
    python3 "$ROOT/scripts/build_trace/analyze_trace.py" "$DIR/build-cache-$cache.trace" "$ROOT" "${@:3}"
done
