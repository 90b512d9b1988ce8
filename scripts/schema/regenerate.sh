#!/usr/bin/env bash
# Regenerate every committed file made from the op files, in the order they depend on each other,
# after adding or changing an op (docs/adding-an-op.md): the header's operations (before the build:
# the op files compile against them), then, from the built library, the ABI lists with the Debian
# symbols and the op reference of docs/graph-json.md. The test run fails while any of them differs.
# usage: scripts/schema/regenerate.sh [BUILD_DIR]   (default: build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
python3 "$ROOT/scripts/schema/generate_header.py" "$ROOT"
if ! ninja -C "$BUILD" >"$BUILD/regenerate-build.log" 2>&1; then
    if grep -q 'meson setup --reconfigure' "$BUILD/regenerate-build.log"; then
        meson setup --reconfigure "$BUILD" >/dev/null
        ninja -C "$BUILD" >"$BUILD/regenerate-build.log" 2>&1 || { tail -20 "$BUILD/regenerate-build.log"; exit 1; }
    else
        tail -20 "$BUILD/regenerate-build.log"
        exit 1
    fi
fi
bash "$ROOT/scripts/abi_update.sh" "$BUILD/libcudnnfe.so"
schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
"$BUILD/tools/cudnnfe/cudnnfe" schema >"$schema"
python3 "$ROOT/scripts/schema/render_docs.py" "$schema" "$ROOT/docs/graph-json.md"
