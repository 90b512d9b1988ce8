#!/usr/bin/env bash
# Build the library and the concurrency suite (tests/deviceless/concurrency_test.cpp) with
# ThreadSanitizer into DIR, for scripts/test.sh.
#
#   scripts/thread_sanitized_build.sh DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$1
if [ ! -f "$DIR/build.ninja" ]; then
    # b_lundef=false: the library links the sanitizer runtime the program provides.
    meson setup "$DIR" "$ROOT" -Db_sanitize=thread -Db_lundef=false -Dbuildtype=plain -Dcpp_args="-O1 -g1" \
        -Dbindings=disabled -Dtests=true
fi
# The library by its file name, which carries the version meson.build states.
VERSION=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$ROOT/meson.build")
ninja -C "$DIR" "libcudnnfe.so.$VERSION" tests/deviceless/cudnnfe_concurrency_tests
