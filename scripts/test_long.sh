#!/usr/bin/env bash
# The long suites, after scripts/test.sh: the unit, deviceless, concurrency and tool suites built
# with AddressSanitizer and UndefinedBehaviorSanitizer, the concurrency suite with ThreadSanitizer,
# minutes of fuzzing, the Debian packages, the binding packages and the aarch64 cross build. Builds what is missing as
# scripts/test.sh does and ends the same way, with one line "N passed, N failed". .ci/run runs
# both; about half an hour on two cores.
set -uo pipefail
source "$(dirname "$0")/env.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
export BUILD_DIR
WITH_BINDINGS=1 "$ROOT/scripts/setup.sh" -Dtests=true -Dbindings=enabled >/dev/null ||
    { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

LOGS="$BUILD_DIR/test-logs"
mkdir -p "$LOGS"
source "$ROOT/scripts/test_lib.sh"

# The unit, deviceless, concurrency and tool suites again, built with AddressSanitizer and
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
    run_gtest_sharded deviceless_sanitized "$SANITIZED/tests/deviceless/cudnnfe_deviceless_tests" \
        LD_LIBRARY_PATH="$SANITIZED/tests/deviceless/stub-driver:$LD_LIBRARY_PATH" "${sanitizer_env[@]}"
    run_gtest concurrency_sanitized "$SANITIZED/tests/deviceless/cudnnfe_concurrency_tests" \
        LD_LIBRARY_PATH="$SANITIZED/tests/deviceless/stub-driver:$LD_LIBRARY_PATH" "${sanitizer_env[@]}"
    echo "=== tool_sanitized"
    env "${sanitizer_env[@]}" BUILD_DIR="$SANITIZED" bash "$ROOT/tests/tool/tool_test.sh" "$SANITIZED/tools/cudnnfe/cudnnfe" \
        >"$LOGS/tool_sanitized.log" 2>&1
    count_summary_log "$LOGS/tool_sanitized.log" $? '^(FAIL|skip) '
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
count_summary_log "$LOGS/packages.log" $?

# The library for Linux on 64-bit Arm (scripts/cross_aarch64.sh): cross-compiled, its ABI checked,
# the tool, the unit suite and the Go binding's tests run under qemu-user, the Java and C# glue
# cross-compiled (the binding packages below bundle them), the arm64 Debian packages of the library,
# its development files and the tool built; each check is one test.
echo "=== aarch64"
BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/cross_aarch64.sh" >"$LOGS/aarch64.log" 2>&1
count_summary_log "$LOGS/aarch64.log" $?

# The bindings as Maven, NuGet and Go users take them (scripts/bindings_packages.sh): a Maven
# repository and a NuGet package built from the build, and outside programs using them with no
# path to the build; each check is one test.
echo "=== binding packages"
BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/bindings_packages.sh" >"$LOGS/binding_packages.log" 2>&1
count_summary_log "$LOGS/binding_packages.log" $?

print_totals
[ "$failed" -eq 0 ]
