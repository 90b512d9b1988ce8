# Sourced by scripts/test.sh and scripts/test_long.sh: the running counts (passed, failed,
# skipped) and how each kind of suite adds to them. Expects LOGS.
passed=0
failed=0
skipped=0

# Prints "passed failed skipped" of one GoogleTest log.
gtest_counts() {
    local log=$1
    echo "$(grep -Eo '^\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)" \
         "$(grep -Eo '^\[  FAILED  \] [0-9]+ tests?, listed below' "$log" | grep -Eo '[0-9]+' || echo 0)" \
         "$(grep -Eo '^\[  SKIPPED \] [0-9]+ tests?, listed below' "$log" | grep -Eo '[0-9]+' || echo 0)"
}

# Adds the counts of GoogleTest logs (one suite, maybe in shards), each with its process's exit
# status: a process that failed outside a test (a crash, a sanitizer report at exit) counts as one
# failure.
#   count_gtest_logs STARTED NOTE LOG RC [LOG RC ...]
count_gtest_logs() {
    local started=$1 note=$2
    shift 2
    local total_p=0 total_f=0 total_s=0 logs=()
    while [ $# -gt 0 ]; do
        local log=$1 rc=$2 p f s
        shift 2
        logs+=("$log")
        read -r p f s < <(gtest_counts "$log")
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            f=1
            tail -20 "$log"
        fi
        total_p=$((total_p + p))
        total_f=$((total_f + f))
        total_s=$((total_s + s))
    done
    cat "${logs[@]}" | grep -E '^\[  FAILED  \] [A-Za-z]' | sort -u
    # A skipping suite says why, once.
    if [ "$total_s" -gt 0 ]; then
        cat "${logs[@]}" | grep -A1 -m1 'Skipped$' | tail -1 | sed "s/^/    skipped $total_s: /"
    fi
    echo "    $total_p passed, $total_f failed, $total_s skipped ($((SECONDS - started)) s$note)"
    passed=$((passed + total_p))
    failed=$((failed + total_f))
    skipped=$((skipped + total_s))
}

# True when a process's log ends with LeakSanitizer's own tracer crashing at exit (it stops every
# thread with ptrace and can fault on one being torn down): the tests ran, but the leak check gave
# no verdict, neither clean nor a report.
lsan_gave_no_verdict() {
    local log=$1
    grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
        ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$log"
}

# Runs one GoogleTest process (environment assignments, then the binary and its arguments) into a
# log and returns its exit status. A leak check that gave no verdict is run again, up to three
# times, so that the suite ends with one: the tracer's fault is intermittent (on a loaded machine
# it has hit the same process twice in a row), and each try's log is kept beside the last.
run_gtest_process() {
    local log=$1
    shift
    env "$@" --gtest_color=no >"$log" 2>&1
    local rc=$? try
    for try in 1 2 3; do
        { [ "$rc" -ne 0 ] && lsan_gave_no_verdict "$log"; } || break
        echo "    $(basename "$log" .log): LeakSanitizer's tracer crashed at exit, no leak verdict; run again ($try of 3)"
        mv "$log" "${log%.log}.no-verdict$try.txt"
        env "$@" --gtest_color=no >"$log" 2>&1
        rc=$?
    done
    return "$rc"
}

# Runs one GoogleTest binary with the given environment assignments.
run_gtest() {
    local name=$1 binary=$2
    shift 2
    echo "=== $name"
    local started=$SECONDS
    run_gtest_process "$LOGS/$name.log" "$@" "$binary"
    count_gtest_logs "$started" "" "$LOGS/$name.log" $?
}

# Runs one GoogleTest binary as one process per core (at most four), each a shard of its tests.
# The suites' tests share nothing between processes: each names its own cache directory.
run_gtest_sharded() {
    local name=$1 binary=$2
    shift 2
    echo "=== $name"
    local started=$SECONDS shards i
    shards=$(nproc 2>/dev/null || echo 2)
    [ "$shards" -gt 4 ] && shards=4
    local pids=() results=()
    for ((i = 0; i < shards; i++)); do
        run_gtest_process "$LOGS/$name.shard$i.log" "$@" GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$i" \
            "$binary" &
        pids+=($!)
    done
    for ((i = 0; i < shards; i++)); do
        wait "${pids[$i]}"
        results+=("$LOGS/$name.shard$i.log" $?)
    done
    count_gtest_logs "$started" ", $shards processes" "${results[@]}"
}

# Adds the counts of a suite script whose last line is "N passed, N failed, N skipped"; its other
# lines are shown indented, unless a pattern names the ones to show.
count_summary_log() {
    local log=$1 rc=$2 show=${3:-}
    local p f s
    read -r p f s < <(tail -1 "$log" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p')
    if [ -z "${p:-}" ]; then p=0; f=1; s=0; tail -20 "$log"; fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    if [ -n "$show" ]; then
        grep -E "$show" "$log" | sed 's/^/    /'
    else
        grep -vE '^[0-9]+ passed' "$log" | sed 's/^/    /'
    fi
    echo "    $p passed, $f failed, $s skipped"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

# The closing line every test command ends with.
print_totals() {
    echo "($skipped skipped; logs in $LOGS; $SECONDS s in all)"
    echo "$passed passed, $failed failed"
}
