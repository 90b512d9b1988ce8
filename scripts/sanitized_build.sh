#!/usr/bin/env bash
# Build the unit and deviceless suites and the cudnnfe tool with AddressSanitizer and
# UndefinedBehaviorSanitizer into DIR (no bindings, no GPU tier), for scripts/test.sh.
#
#   scripts/sanitized_build.sh DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$1
if [ ! -f "$DIR/build.ninja" ]; then
    # b_lundef=false: the library links the sanitizer runtimes the programs provide. Unoptimized:
    # four times faster to compile, and the suites' time is spent in cuDNN, which is not instrumented.
    meson setup "$DIR" "$ROOT" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
        -Dbindings=disabled -Dtests=true
fi
# The library by its file name, which carries the version meson.build states.
VERSION=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$ROOT/meson.build")
ninja -C "$DIR" "libcudnnfe.so.$VERSION" tests/unit/cudnnfe_unit_tests tests/deviceless/cudnnfe_deviceless_tests \
    tests/deviceless/cache_writer tests/deviceless/cudnnfe_concurrency_tests tools/cudnnfe/cudnnfe
