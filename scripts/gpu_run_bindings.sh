#!/usr/bin/env bash
# The bindings' tests and examples on a GPU machine with no JDK, Mono or Go, from the directory
# scripts/pack_bindings_for_gpu.sh made (which carries this script as run_tests.sh): the JUnit 5
# suite on the pack's cut-down Java runtime, the go test binary, the C# tests bundled with their
# runner, and the Java and Go examples
# (each verifies against a CPU reference). Ends with "N passed, N failed".
#
#   run_tests.sh [PACK_DIR] [OUT_DIR]
#
# CUDNN_LIB_DIR: where libcudnn.so.9 lives (default: PyTorch's bundled cuDNN, else the system's).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PACK=$(cd "${1:-$HERE}" && pwd)
OUT=${2:-$PACK/results}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
default_cudnn=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1)
CUDNN_LIB_DIR=${CUDNN_LIB_DIR:-${default_cudnn:-/usr/lib/x86_64-linux-gnu}}
export LD_LIBRARY_PATH="$PACK/lib:$CUDNN_LIB_DIR:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export CUDNNFE_DEVICE_JSON=${CUDNNFE_DEVICE_JSON:-$PACK/devices/h100-sxm-80gb.json}
JAVA="$PACK/java/runtime/bin/java"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | tee "$OUT/device.txt"

passed=0
failed=0
skipped=0

echo "=== java (JUnit 5)"
"$JAVA" -Djava.library.path="$PACK/lib" -jar "$PACK/java/junit-platform-console-standalone.jar" \
    --class-path "$PACK/java/cudnnfe.jar:$PACK/java/cudnnfe-tests.jar" --select-package dev.cudnnfe \
    --exclude-engine=junit-vintage --disable-banner --disable-ansi-colors --details=tree >"$OUT/java.log" 2>&1
rc=$?
p=$(grep -Eo '\[ *[0-9]+ tests successful' "$OUT/java.log" | grep -Eo '[0-9]+' || echo 0)
f=$(grep -Eo '\[ *[0-9]+ tests failed' "$OUT/java.log" | grep -Eo '[0-9]+' || echo 0)
s=$(grep -Eo '\[ *[0-9]+ tests aborted' "$OUT/java.log" | grep -Eo '[0-9]+' || echo 0)
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -20 "$OUT/java.log"; fi
grep -E '✘' "$OUT/java.log"
echo "    $p passed, $f failed, $s skipped"
passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))

echo "=== go (go test)"
(cd "$PACK" && "$PACK/bin/cudnnfe-go.test" -test.v) >"$OUT/go.log" 2>&1
rc=$?
p=$(grep -c '^--- PASS' "$OUT/go.log")
f=$(grep -c '^--- FAIL' "$OUT/go.log")
s=$(grep -c '^--- SKIP' "$OUT/go.log")
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -20 "$OUT/go.log"; fi
grep -E '^--- FAIL' "$OUT/go.log"
echo "    $p passed, $f failed, $s skipped"
passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))

if [ -x "$PACK/bin/cudnnfe_csharp_tests" ]; then
    echo "=== csharp (the NUnit tests, bundled with their runner)"
    # UnavailableTests and one deviceless test start the runtime again in a child process, which a
    # bundle has not got: they run where Mono is (the README's test command).
    (cd "$PACK" && "$PACK/bin/cudnnfe_csharp_tests" \
        --skip=UnavailableTests.,DevicelessBuildTests.WithoutAGpuCannotTellIsNotNotSupported) >"$OUT/csharp.log" 2>&1
    rc=$?
    counts=$(tail -1 "$OUT/csharp.log")
    p=$(echo "$counts" | grep -Eo '^[0-9]+' || echo 0)
    f=$(echo "$counts" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' || echo 0)
    s=$(echo "$counts" | grep -Eo '[0-9]+ skipped' | grep -Eo '[0-9]+' || echo 0)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -20 "$OUT/csharp.log"; fi
    grep -E '^FAIL' "$OUT/csharp.log"
    echo "    $p passed, $f failed, $s skipped"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
fi

echo "=== examples"
# example NAME COMMAND...: exit 0 passes, 77 skips, anything else fails.
example() {
    local name=$1
    shift
    "$@" >"$OUT/example_$name.log" 2>&1
    local rc=$?
    if [ $rc -eq 0 ]; then passed=$((passed + 1)); echo "    $name: $(tail -1 "$OUT/example_$name.log")"
    elif [ $rc -eq 77 ]; then skipped=$((skipped + 1)); echo "    $name skipped: $(tail -1 "$OUT/example_$name.log")"
    else failed=$((failed + 1)); echo "    $name FAILED:"; tail -5 "$OUT/example_$name.log"; fi
}
for name in FirstGraph MatmulBias Sdpa StepByStep Serialization ConvTraining; do
    example "java_$name" "$JAVA" -Djava.library.path="$PACK/lib" \
        -cp "$PACK/java/cudnnfe.jar:$PACK/java/cudnnfe-examples.jar" "dev.cudnnfe.examples.$name"
done
for name in first_graph matmul_bias sdpa step_by_step serialization conv_training; do
    example "go_$name" "$PACK/bin/example_go_$name"
done

# The README's programs as written: each checks every status and exits 0 only when it ran.
if [ -d "$PACK/readme" ]; then
    example readme_c "$PACK/readme/readme_c"
    example readme_java "$JAVA" -Djava.library.path="$PACK/lib" -cp "$PACK/java/cudnnfe.jar:$PACK/readme" App
    example readme_csharp env MONO_PATH="$PACK/lib" "$PACK/readme/readme_csharp"
    example readme_go "$PACK/readme/readme_go"
fi

echo "($skipped skipped; logs in $OUT)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
