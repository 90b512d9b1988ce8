# Sourced by test.sh: the Java, C# and Go suites and examples. Each function adds its counts to
# test.sh's passed / failed / skipped and prints one summary line. Expects BUILD_DIR, LOGS, and
# BINDINGS_PATH (the LD_LIBRARY_PATH the bindings run with).

add_counts() {
    local p=$1 f=$2 s=$3
    echo "    $p passed, $f failed, $s skipped"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

# count PATTERN FILE: how many lines match (0 when none).
count() {
    grep -cE "$1" "$2" || true
}

# JUnit 5 through its console launcher; its summary counts aborted (assumption-failed) tests apart.
run_junit() {
    local log="$LOGS/java.log" java_dir="$BUILD_DIR/bindings/java"
    echo "=== java (JUnit 5)"
    LD_LIBRARY_PATH="$BINDINGS_PATH" java -Djava.library.path="$java_dir" \
        -jar /usr/share/java/junit-platform-console-standalone.jar \
        --class-path "$java_dir/cudnnfe.jar:$java_dir/cudnnfe-tests.jar" --select-package dev.cudnnfe \
        --exclude-engine=junit-vintage --disable-banner --disable-ansi-colors --details=tree >"$log" 2>&1
    local rc=$?
    local p f s c
    p=$(grep -Eo '\[ *[0-9]+ tests successful' "$log" | grep -Eo '[0-9]+' || echo 0)
    f=$(grep -Eo '\[ *[0-9]+ tests failed' "$log" | grep -Eo '[0-9]+' || echo 0)
    s=$(grep -Eo '\[ *[0-9]+ tests aborted' "$log" | grep -Eo '[0-9]+' || echo 0)
    c=$(grep -Eo '\[ *[0-9]+ containers failed' "$log" | grep -Eo '[0-9]+' || echo 0)
    f=$((f + c))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -20 "$log"; fi
    grep -E '✘' "$log" | sed 's/^/   /'
    add_counts "$p" "$f" "$s"
}

# NUnit 2.6 through nunit-console; the counts come from its XML result.
run_nunit() {
    local log="$LOGS/csharp.log" xml="$LOGS/csharp-result.xml" dir="$BUILD_DIR/bindings/csharp"
    echo "=== csharp (NUnit)"
    (cd "$dir" && LD_LIBRARY_PATH="$BINDINGS_PATH" nunit-console CudnnFe.Tests.dll -nologo -noshadow -xml="$xml") >"$log" 2>&1
    local rc=$?
    local p=0 f=0 s=0
    if [ -f "$xml" ]; then
        local header total errors failures inconclusive
        header=$(grep -m1 '<test-results' "$xml")
        total=$(sed -E 's/.* total="([0-9]+)".*/\1/' <<<"$header")
        errors=$(sed -E 's/.* errors="([0-9]+)".*/\1/' <<<"$header")
        failures=$(sed -E 's/.* failures="([0-9]+)".*/\1/' <<<"$header")
        inconclusive=$(sed -E 's/.* inconclusive="([0-9]+)".*/\1/' <<<"$header")
        s=$(sed -E 's/.* not-run="([0-9]+)".*/\1/' <<<"$header")
        f=$((errors + failures))
        p=$((total - f - inconclusive))
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -20 "$log"; fi
    grep -E '^[0-9]+\) Test (Failure|Error)' "$log" | sed 's/^/    /'
    add_counts "$p" "$f" "$s"
}

# The Go test binary (go test -c) with -test.v: one --- PASS/FAIL/SKIP line per test.
run_gotest() {
    local log="$LOGS/go.log"
    echo "=== go (go test)"
    LD_LIBRARY_PATH="$BINDINGS_PATH" "$BUILD_DIR/bindings/go/cudnnfe-go.test" -test.v >"$log" 2>&1
    local rc=$?
    local p f s
    p=$(count '^--- PASS' "$log")
    f=$(count '^--- FAIL' "$log")
    s=$(count '^--- SKIP' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -20 "$log"; fi
    grep -E '^--- FAIL' "$log" | sed 's/^/    /'
    add_counts "$p" "$f" "$s"
}

# One example run, one test: exit 0 passes, 77 skips, anything else fails.
run_example() {
    local name=$1
    shift
    (cd "$ROOT" && "$@") >"$LOGS/example_$name.log" 2>&1
    local rc=$?
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
}

run_binding_examples() {
    local java_dir="$BUILD_DIR/bindings/java" name
    echo "=== binding examples"
    for name in FirstGraph MatmulBias Sdpa StepByStep Serialization ConvTraining; do
        run_example "java_$name" env LD_LIBRARY_PATH="$BINDINGS_PATH" java -Djava.library.path="$java_dir" \
            -cp "$java_dir/cudnnfe.jar:$BUILD_DIR/examples/java/cudnnfe-examples.jar" "dev.cudnnfe.examples.$name"
        run_example "csharp_$name" env LD_LIBRARY_PATH="$BINDINGS_PATH" MONO_PATH="$BUILD_DIR/bindings/csharp" \
            mono "$BUILD_DIR/examples/csharp/$name.exe"
    done
    for name in first_graph matmul_bias sdpa step_by_step serialization conv_training; do
        run_example "go_$name" env LD_LIBRARY_PATH="$BINDINGS_PATH" "$BUILD_DIR/bindings/go/example_go_$name"
    done
}
