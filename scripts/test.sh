#!/usr/bin/env bash
# The whole test run: install what is missing, build, run every suite, and end with one line
# "N passed, N failed" over all of them. Suites: unit (CPU), deviceless (cuDNN, no GPU), gpu
# (skips, saying why, without a GPU), the C examples (each run counts as one test), and the Java,
# C# and Go bindings (JUnit 5, NUnit, go test) with their examples.
set -uo pipefail
source "$(dirname "$0")/env.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
export BUILD_DIR
WITH_BINDINGS=1 "$ROOT/scripts/setup.sh" -Dtests=true -Dbindings=enabled || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
skipped=0
LOGS="$BUILD_DIR/test-logs"
mkdir -p "$LOGS"

# Run one GoogleTest binary; add its counts.
run_gtest() {
    local name=$1 binary=$2
    shift 2
    echo "=== $name"
    local started=$SECONDS
    env "$@" "$binary" --gtest_color=no >"$LOGS/$name.log" 2>&1
    local rc=$?
    local p f s
    p=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$LOGS/$name.log" | grep -Eo '[0-9]+$' || echo 0)
    f=$(grep -Eo '^\[  FAILED  \] [0-9]+ tests?, listed below' "$LOGS/$name.log" | grep -Eo '[0-9]+' || echo 0)
    s=$(grep -Eo '^\[  SKIPPED \] [0-9]+ tests?, listed below' "$LOGS/$name.log" | grep -Eo '[0-9]+' || echo 0)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1  # crashed or failed outside a test
        tail -20 "$LOGS/$name.log"
    fi
    grep -E '^\[  FAILED  \] [A-Za-z]' "$LOGS/$name.log" | sort -u
    # A skipping suite says why, once.
    if [ "$s" -gt 0 ]; then
        grep -A1 -m1 'Skipped$' "$LOGS/$name.log" | tail -1 | sed "s/^/    skipped $s: /"
    fi
    echo "    $p passed, $f failed, $s skipped ($((SECONDS - started)) s)"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

echo "=== header"
for check in "$BUILD_DIR"/tests/header_check_*; do
    [ -f "$check" ] && [ -x "$check" ] || continue
    # Built with -pedantic -Werror as C99 / C++17: that it exists and runs is the test.
    if "$check"; then passed=$((passed + 1)); echo "    $(basename "$check") ok"; else failed=$((failed + 1)); echo "    $(basename "$check") FAILED"; fi
done

run_gtest unit "$BUILD_DIR/tests/unit/cudnnfe_unit_tests" CUDNNFE_LIBRARY_PATH="$BUILD_DIR/libcudnnfe.so"
run_gtest unit_unavailable "$BUILD_DIR/tests/unit/cudnnfe_unit_unavailable_tests" \
    CUDNNFE_CUDNN_LIBRARY=/nonexistent/libcudnn.so.9 CUDNNFE_CUDART_LIBRARY=/nonexistent/libcudart.so
if nvidia-smi -L >/dev/null 2>&1; then
    run_gtest deviceless "$BUILD_DIR/tests/deviceless/cudnnfe_deviceless_tests"
else
    run_gtest deviceless "$BUILD_DIR/tests/deviceless/cudnnfe_deviceless_tests" \
        LD_LIBRARY_PATH="$BUILD_DIR/tests/deviceless/stub-driver:$LD_LIBRARY_PATH"
fi
run_gtest concurrency "$BUILD_DIR/tests/deviceless/cudnnfe_concurrency_tests" \
    LD_LIBRARY_PATH="$BUILD_DIR/tests/deviceless/stub-driver:$LD_LIBRARY_PATH"
run_gtest gpu "$BUILD_DIR/tests/gpu/cudnnfe_gpu_tests"

# The conformance tier's generators without a GPU (tests/conformance/README.md): every graph
# they draw validates, reads back identically from its JSON and passes cuDNN's support check for
# the described H100, or is refused with a reason. A fixed seed, so a run here repeats; each case
# counts as one test. On a GPU the suite runs at scale with scripts/conformance_gpu.sh.
echo "=== conformance (deviceless)"
LD_LIBRARY_PATH="$BUILD_DIR/tests/deviceless/stub-driver:$LD_LIBRARY_PATH" \
    "$BUILD_DIR/tests/conformance/cudnnfe_conformance" --deviceless --count "${CONFORMANCE_COUNT:-40}" \
    --seed 20261128 --threads 2 >"$LOGS/conformance.log" 2>&1
conformance_rc=$?
read -r conf_p conf_f < <(awk -F'|' 'NF >= 10 && /^\| [a-z_0-9]+ \| [0-9]+ \|/ { p += $4 + $5 + $6; f += $7 + $8 } END { print p + 0, f + 0 }' \
    "$LOGS/conformance.log")
if [ "$conformance_rc" -ne 0 ] && [ "$conf_f" -eq 0 ]; then conf_f=1; tail -20 "$LOGS/conformance.log"; fi
grep -E '=> (WRONG|ERROR)' "$LOGS/conformance.log" | head -20 | sed 's/^/    /'
echo "    $conf_p passed, $conf_f failed"
passed=$((passed + conf_p))
failed=$((failed + conf_f))

echo "=== examples"
# Without a GPU, the examples see the toolkit's stub driver (as the deviceless suite does) so
# cuDNN lists its runtime-compiled engines; on a GPU machine the real driver must stay visible.
example_path=$LD_LIBRARY_PATH
if ! nvidia-smi -L >/dev/null 2>&1; then
    example_path="$BUILD_DIR/tests/deviceless/stub-driver:$LD_LIBRARY_PATH"
fi
for example in "$BUILD_DIR"/examples/c/*; do
    [ -f "$example" ] && [ -x "$example" ] || continue
    name=$(basename "$example")
    (cd "$ROOT" && LD_LIBRARY_PATH="$example_path" "$example") >"$LOGS/example_$name.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1))
        echo "    $name: $(tail -1 "$LOGS/example_$name.log")"
    elif [ $rc -eq 77 ]; then
        skipped=$((skipped + 1))
        echo "    $name skipped: $(tail -1 "$LOGS/example_$name.log")"
    else
        failed=$((failed + 1))
        echo "    $name FAILED:"
        tail -5 "$LOGS/example_$name.log"
    fi
done

# The bindings see the library in the build directory and, without a GPU, the stub driver.
BINDINGS_PATH="$BUILD_DIR:$example_path"
source "$ROOT/scripts/bindings_suites.sh"
run_junit
run_nunit
run_gotest
run_binding_examples

# The cudnnfe tool: each case of tests/tool/tool_test.sh counts as one test.
echo "=== tool"
BUILD_DIR="$BUILD_DIR" bash "$ROOT/tests/tool/tool_test.sh" "$BUILD_DIR/tools/cudnnfe/cudnnfe" >"$LOGS/tool.log" 2>&1
tool_rc=$?
read -r tool_p tool_f tool_s < <(tail -1 "$LOGS/tool.log" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p')
if [ -z "${tool_p:-}" ]; then tool_p=0; tool_f=1; tool_s=0; tail -20 "$LOGS/tool.log"; fi
if [ "$tool_rc" -ne 0 ] && [ "$tool_f" -eq 0 ]; then tool_f=1; fi
grep -E '^(FAIL|skip) ' "$LOGS/tool.log" | sed 's/^/    /'
echo "    $tool_p passed, $tool_f failed, $tool_s skipped"
passed=$((passed + tool_p))
failed=$((failed + tool_f))
skipped=$((skipped + tool_s))

# The unit, deviceless and tool suites again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (scripts/sanitized_build.sh): any report fails the suite. Leaks inside
# NVIDIA's libraries are suppressed by scripts/lsan.supp, which names them.
echo "=== sanitizers"
SANITIZED="$BUILD_DIR/sanitized"
sanitizer_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
               UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
               LSAN_OPTIONS=suppressions="$ROOT/scripts/lsan.supp":print_suppressions=0)
if bash "$ROOT/scripts/sanitized_build.sh" "$SANITIZED" >"$LOGS/sanitized_build.log" 2>&1; then
    run_gtest unit_sanitized "$SANITIZED/tests/unit/cudnnfe_unit_tests" CUDNNFE_LIBRARY_PATH="$SANITIZED/libcudnnfe.so" \
        "${sanitizer_env[@]}"
    run_gtest deviceless_sanitized "$SANITIZED/tests/deviceless/cudnnfe_deviceless_tests" \
        LD_LIBRARY_PATH="$SANITIZED/tests/deviceless/stub-driver:$LD_LIBRARY_PATH" "${sanitizer_env[@]}"
    run_gtest concurrency_sanitized "$SANITIZED/tests/deviceless/cudnnfe_concurrency_tests" \
        LD_LIBRARY_PATH="$SANITIZED/tests/deviceless/stub-driver:$LD_LIBRARY_PATH" "${sanitizer_env[@]}"
    echo "=== tool_sanitized"
    env "${sanitizer_env[@]}" BUILD_DIR="$SANITIZED" bash "$ROOT/tests/tool/tool_test.sh" "$SANITIZED/tools/cudnnfe/cudnnfe" \
        >"$LOGS/tool_sanitized.log" 2>&1
    read -r san_p san_f san_s < <(tail -1 "$LOGS/tool_sanitized.log" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p')
    if [ -z "${san_p:-}" ]; then san_p=0; san_f=1; san_s=0; tail -20 "$LOGS/tool_sanitized.log"; fi
    grep -E '^(FAIL|skip) ' "$LOGS/tool_sanitized.log" | sed 's/^/    /'
    echo "    $san_p passed, $san_f failed, $san_s skipped"
    passed=$((passed + san_p))
    failed=$((failed + san_f))
    skipped=$((skipped + san_s))
else
    failed=$((failed + 1))
    echo "    the sanitized build failed:"
    tail -20 "$LOGS/sanitized_build.log"
fi

# The concurrency suite built with ThreadSanitizer (scripts/thread_sanitized_build.sh): a data
# race, a lock-order inversion or a signal-unsafe call fails it.
echo "=== thread sanitizer"
THREAD_SANITIZED="$BUILD_DIR/thread-sanitized"
if bash "$ROOT/scripts/thread_sanitized_build.sh" "$THREAD_SANITIZED" >"$LOGS/thread_sanitized_build.log" 2>&1; then
    run_gtest concurrency_thread_sanitized "$THREAD_SANITIZED/tests/deviceless/cudnnfe_concurrency_tests" \
        LD_LIBRARY_PATH="$THREAD_SANITIZED/tests/deviceless/stub-driver:$LD_LIBRARY_PATH" TSAN_OPTIONS=halt_on_error=1
else
    failed=$((failed + 1))
    echo "    the thread-sanitized build failed:"
    tail -20 "$LOGS/thread_sanitized_build.log"
fi

# The op schema against what is written by hand from it: the op reference of docs/graph-json.md
# must be its rendering, and the Java, C# and Go layers must cover every function, option field
# and enum value of the header. Each check counts as one test.
echo "=== schema"
schema_check() {
    local name=$1
    shift
    if "$@" >"$LOGS/schema_$name.log" 2>&1; then
        passed=$((passed + 1))
        echo "    $name: $(tail -1 "$LOGS/schema_$name.log")"
    else
        failed=$((failed + 1))
        echo "    $name FAILED:"
        sed 's/^/      /' "$LOGS/schema_$name.log" | head -30
    fi
}
"$BUILD_DIR/tools/cudnnfe/cudnnfe" schema >"$LOGS/schema.json" 2>"$LOGS/schema.err"
schema_check docs python3 "$ROOT/scripts/schema/render_docs.py" "$LOGS/schema.json" "$ROOT/docs/graph-json.md" --check
schema_check entry_points python3 "$ROOT/scripts/schema/check_entry_points.py" "$LOGS/schema.json" "$ROOT/include/cudnnfe.h"
schema_check binding_coverage python3 "$ROOT/scripts/schema/binding_coverage.py" "$ROOT/include/cudnnfe.h" "$ROOT/bindings" "$BUILD_DIR"

# The libFuzzer targets of fuzz/ (scripts/fuzz.sh): each counts as one test, a crash fails it.
# FUZZ_SECONDS per target (two minutes here, the targets side by side on the cores), from the
# committed corpora.
echo "=== fuzz"
FUZZ_SECONDS=${FUZZ_SECONDS:-120} BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/fuzz.sh" >"$LOGS/fuzz.log" 2>&1
fuzz_lines=0
while read -r verdict rest; do
    fuzz_lines=$((fuzz_lines + 1))
    case $verdict in
        PASS) passed=$((passed + 1)); echo "    $rest" ;;
        FAIL) failed=$((failed + 1)); echo "    FAILED $rest" ;;
        SKIP) skipped=$((skipped + 1)); echo "    skipped $rest" ;;
    esac
done < <(grep -E '^(PASS|FAIL|SKIP) ' "$LOGS/fuzz.log")
if [ "$fuzz_lines" -eq 0 ]; then failed=$((failed + 1)); tail -20 "$LOGS/fuzz.log"; fi
grep -E '^    ' "$LOGS/fuzz.log"

# The packaging suite (scripts/package_suites.sh): Debian packages built and installed into a
# throwaway root, outside programs built against them, the ABI guard; each check is one test.
echo "=== packages"
BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/package_suites.sh" >"$LOGS/packages.log" 2>&1
pkg_rc=$?
read -r pkg_p pkg_f pkg_s < <(tail -1 "$LOGS/packages.log" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p')
if [ -z "${pkg_p:-}" ]; then pkg_p=0; pkg_f=1; pkg_s=0; tail -20 "$LOGS/packages.log"; fi
if [ "$pkg_rc" -ne 0 ] && [ "$pkg_f" -eq 0 ]; then pkg_f=1; fi
grep -vE '^[0-9]+ passed' "$LOGS/packages.log" | sed 's/^/    /'
echo "    $pkg_p passed, $pkg_f failed, $pkg_s skipped"
passed=$((passed + pkg_p))
failed=$((failed + pkg_f))
skipped=$((skipped + pkg_s))

# The bindings as Maven, NuGet and Go users take them (scripts/bindings_packages.sh): a Maven
# repository and a NuGet package built from the build, and outside programs using them with no
# path to the build; each check is one test.
echo "=== binding packages"
BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/bindings_packages.sh" >"$LOGS/binding_packages.log" 2>&1
bp_rc=$?
read -r bp_p bp_f bp_s < <(tail -1 "$LOGS/binding_packages.log" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p')
if [ -z "${bp_p:-}" ]; then bp_p=0; bp_f=1; bp_s=0; tail -20 "$LOGS/binding_packages.log"; fi
if [ "$bp_rc" -ne 0 ] && [ "$bp_f" -eq 0 ]; then bp_f=1; fi
grep -vE '^[0-9]+ passed' "$LOGS/binding_packages.log" | sed 's/^/    /'
echo "    $bp_p passed, $bp_f failed, $bp_s skipped"
passed=$((passed + bp_p))
failed=$((failed + bp_f))
skipped=$((skipped + bp_s))

echo "($skipped skipped; logs in $LOGS; $SECONDS s in all)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
