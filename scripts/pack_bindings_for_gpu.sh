#!/usr/bin/env bash
# Gather what the bindings' tests, examples and overhead benchmark need on a GPU machine that has
# no JDK, Mono or Go, into one directory (default: <build>/bindings-gpu):
#
#   lib/      libcudnnfe.so.1 and the JNI and P/Invoke glue libraries
#   bin/      the C benchmark, the go test binary, the Go examples and benchmark, the C# benchmark
#             and tests, each bundled with its Mono runtime (mkbundle)
#   java/     a Java runtime cut down with jlink, cudnnfe.jar, the test, example and benchmark jars,
#             JUnit 5's console launcher
#   devices/  the captured H100 description, for the deviceless tests
#   readme/   the README's C, Java, C# and Go programs, built as written (scripts/readme_blocks.py)
#   run_tests.sh  (scripts/gpu_run_bindings.sh)   run_bench.sh  (bench/bindings/run.sh)
#
#   scripts/pack_bindings_for_gpu.sh [BUILD_DIR] [PACK_DIR]
#
# On the GPU machine: PACK_DIR/run_tests.sh, then PACK_DIR/run_bench.sh. The build must have the
# bindings (bash scripts/setup.sh -Dtests=true -Dbindings=enabled).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
PACK=${2:-$BUILD/bindings-gpu}
ninja -C "$BUILD" -j2 >/dev/null

rm -rf "$PACK"
mkdir -p "$PACK"/{lib,bin,java,devices}
PACK=$(cd "$PACK" && pwd)  # the README programs are built from another directory
cp -L "$BUILD/libcudnnfe.so.1" "$PACK/lib/"
cp -L "$BUILD/bench/bindings/execute_overhead" "$PACK/bin/"
[ -f "$ROOT/../shared/devices/h100-sxm-80gb.json" ] && cp "$ROOT/../shared/devices/h100-sxm-80gb.json" "$PACK/devices/"
cp "$ROOT/scripts/gpu_run_bindings.sh" "$PACK/run_tests.sh"
cp "$ROOT/bench/bindings/run.sh" "$PACK/run_bench.sh"

if [ -f "$BUILD/bindings/java/cudnnfe.jar" ]; then
    cp -L "$BUILD/bindings/java/libcudnnfe_java.so" "$PACK/lib/"
    cp "$BUILD/bindings/java/cudnnfe.jar" "$BUILD/bindings/java/cudnnfe-tests.jar" \
       "$BUILD/examples/java/cudnnfe-examples.jar" "$BUILD/bench/bindings/cudnnfe-bench.jar" \
       /usr/share/java/junit-platform-console-standalone.jar "$PACK/java/"
    # java.base for cudnnfe; java.logging and jdk.zipfs for JUnit's launcher and class scanning.
    jlink --add-modules java.base,java.logging,jdk.zipfs --strip-debug --no-header-files --no-man-pages \
        --compress=2 --output "$PACK/java/runtime"
fi
if [ -f "$BUILD/bindings/go/cudnnfe-go.test" ]; then
    cp "$BUILD/bindings/go/cudnnfe-go.test" "$BUILD"/bindings/go/example_go_* "$BUILD/bindings/go/execute_overhead_go" "$PACK/bin/"
fi
if [ -f "$BUILD/bench/bindings/execute_overhead_csharp" ]; then
    cp -L "$BUILD/bindings/csharp/libcudnnfe_csharp.so" "$PACK/lib/"
    cp "$BUILD/bench/bindings/execute_overhead_csharp" "$PACK/bin/"
    [ -f "$BUILD/bindings/csharp/cudnnfe_csharp_tests" ] && cp "$BUILD/bindings/csharp/cudnnfe_csharp_tests" "$PACK/bin/"
    # The bundled runtime's file and process calls go through Mono's native shim, which a
    # machine without Mono lacks; it is looked up by the name the class libraries import.
    cp -L /usr/lib/libmono-native.so "$PACK/lib/libSystem.Native.so"
fi
python3 "$ROOT/scripts/readme_blocks.py" --pack "$PACK" "$ROOT" "$BUILD" "$BUILD/readme-pack-work" >/dev/null
echo "packed into $PACK ($(du -sh "$PACK" | cut -f1)); on the GPU machine: $(basename "$PACK")/run_tests.sh, then $(basename "$PACK")/run_bench.sh"
