#!/usr/bin/env bash
# The test run a change must pass, in minutes: install what is missing, build, run the suites, and
# end with one line "N passed, N failed" over all of them. Suites: header, unit (CPU), deviceless
# (cuDNN, no GPU), concurrency, gpu (skips, saying why, without a GPU), the conformance generators
# without a GPU, the C examples (each run counts as one test), the Java, C# and Go bindings (JUnit 5,
# NUnit, go test) with their examples, the cudnnfe tool and the op schema checks. The long suites
# (sanitizers, fuzzing, packages) are scripts/test_long.sh; .ci/run runs both.
set -uo pipefail
source "$(dirname "$0")/env.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
export BUILD_DIR
WITH_BINDINGS=1 "$ROOT/scripts/setup.sh" -Dtests=true -Dbindings=enabled || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

LOGS="$BUILD_DIR/test-logs"
mkdir -p "$LOGS"
source "$ROOT/scripts/test_lib.sh"

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
    run_gtest_sharded deviceless "$BUILD_DIR/tests/deviceless/cudnnfe_deviceless_tests"
else
    run_gtest_sharded deviceless "$BUILD_DIR/tests/deviceless/cudnnfe_deviceless_tests" \
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

# The README's C, Java, C# and Go programs, built and run as written: with a GPU they succeed,
# without one they stop at the handle with its checked error (each program counts as one test).
echo "=== readme"
python3 "$ROOT/scripts/readme_blocks.py" "$ROOT" "$BUILD_DIR" "$BUILD_DIR/readme-programs" >"$LOGS/readme.log" 2>&1
count_summary_log "$LOGS/readme.log" $?

# The cudnnfe tool: each case of tests/tool/tool_test.sh counts as one test.
echo "=== tool"
BUILD_DIR="$BUILD_DIR" bash "$ROOT/tests/tool/tool_test.sh" "$BUILD_DIR/tools/cudnnfe/cudnnfe" >"$LOGS/tool.log" 2>&1
count_summary_log "$LOGS/tool.log" $? '^(FAIL|skip) '

# The shell sessions the README and docs show (scripts/doc_sessions.py): each block's commands run
# as the docs describe the machine, and must print what is shown; each block counts as one test.
echo "=== doc sessions"
(cd "$ROOT" && python3 scripts/doc_sessions.py . "$BUILD_DIR" README.md docs/*.md) >"$LOGS/doc_sessions.log" 2>&1
count_summary_log "$LOGS/doc_sessions.log" $?

# The op schema against what is written by hand from it: the op reference of docs/graph-json.md
# must be its rendering, and the Java, C# and Go layers must cover every function, option field
# and enum value of the header; the library's folders keep their layer order (no include reaches
# up); and the header's operations are the op files' declarations. Each check counts as one test.
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
schema_check binding_lines python3 "$ROOT/scripts/schema/binding_lines.py" "$ROOT/bindings"
schema_check layers python3 "$ROOT/scripts/check_layers.py" "$ROOT/lib"
schema_check header python3 "$ROOT/scripts/schema/generate_header.py" --check "$ROOT"

# The header's generation and the op file listing, on small trees of their own.
echo "=== header generation"
python3 "$ROOT/tests/schema/generate_header_test.py" >"$LOGS/generate_header.log" 2>&1
count_summary_log "$LOGS/generate_header.log" $? '^(FAIL|ERROR)'

print_totals
[ "$failed" -eq 0 ]
