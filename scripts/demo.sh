#!/usr/bin/env bash
# The demo: build cudnnfe and run the seed's first graph (a convolution). On a GPU it executes
# and checks the result against a CPU reference; without one it builds the cuDNN plan for the
# H100 description and says so.
set -euo pipefail
source "$(dirname "$0")/env.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
export BUILD_DIR
"$ROOT/scripts/setup.sh" -Dtests=false >/dev/null
cd "$ROOT"
"$BUILD_DIR/examples/c/first_graph" "$@"
