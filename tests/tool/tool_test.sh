#!/usr/bin/env bash
# Tests of the cudnnfe command-line tool: every subcommand, its help, and every error path with
# its exit code (0 ok, 1 bad input, 2 environment). Each case prints "ok NAME", "FAIL NAME" (with
# the command's output) or "skip NAME: why"; the last line is "N passed, N failed, N skipped".
#
#   tests/tool/tool_test.sh [PATH/TO/cudnnfe]     (default: $BUILD_DIR/tools/cudnnfe/cudnnfe)
#
# Without a GPU the cases that need one are replaced by their "no GPU" counterparts, and the
# toolkit's stub driver is made visible so that cuDNN lists its runtime-compiled engines (as the
# deviceless suite does).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/scripts/env.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
TOOL=${1:-$BUILD_DIR/tools/cudnnfe/cudnnfe}
DEVICE_JSON=${CUDNNFE_DEVICE_JSON:-$ROOT/../shared/devices/h100-sxm-80gb.json}
GRAPHS=$ROOT/examples/graphs
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
skipped=0

if [ ! -x "$TOOL" ]; then
    echo "FAIL tool: $TOOL is not built"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

# expect NAME RC PATTERN... -- COMMAND...: the command exits with RC and its output (stdout and
# stderr together) matches every extended regular expression PATTERN.
expect() {
    local name=$1 want_rc=$2
    shift 2
    local patterns=()
    while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
    shift
    local out="$WORK/$name.out"
    "$@" >"$out" 2>&1
    local rc=$? why=""
    [ "$rc" -eq "$want_rc" ] || why="exit code $rc, expected $want_rc"
    local p
    for p in "${patterns[@]}"; do
        [ -n "$why" ] && break
        grep -Eq -- "$p" "$out" || why="output does not match: $p"
    done
    if [ -z "$why" ]; then
        passed=$((passed + 1))
        echo "ok $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name: $why"
        echo "    \$ ${*#$ROOT/}"
        sed 's/^/    | /' "$out" | head -20
    fi
}

skip() {
    skipped=$((skipped + 1))
    echo "skip $1: $2"
}

# The CUDA driver as the tool finds it (found, stub or missing), from `info --json`.
driver_state() {
    "$TOOL" info --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["cuda_driver"]["state"])' 2>/dev/null
}

HAVE_GPU=0
"$TOOL" info 2>/dev/null | grep -q '^GPU 0:' && HAVE_GPU=1
# The library path without the stub driver: the "no CUDA driver" cases run with it where this
# machine has no driver of its own (NO_DRIVER=1).
PLAIN_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
NO_DRIVER=0
[ "$(driver_state)" = missing ] && NO_DRIVER=1
if [ "$HAVE_GPU" = 0 ] && [ -e "$CUDA_HOME/lib/stubs/libcuda.so" -o -e "$CUDA_HOME/lib64/stubs/libcuda.so" ]; then
    mkdir -p "$WORK/stub-driver"
    stub=$CUDA_HOME/lib/stubs/libcuda.so
    [ -e "$stub" ] || stub=$CUDA_HOME/lib64/stubs/libcuda.so
    ln -s "$stub" "$WORK/stub-driver/libcuda.so.1"
    export LD_LIBRARY_PATH="$WORK/stub-driver:$LD_LIBRARY_PATH"
fi
DRIVER=$(driver_state)
# What a command that needs a GPU says on this machine when it has none.
case "$DRIVER" in
    stub) NO_GPU_WHY="no CUDA driver \(the libcuda\.so\.1 found, .*libcuda\.so\.1, is the CUDA toolkit's stub, which runs nothing\): this machine can neither run plans nor build them for a GPU of its own" ;;
    missing) NO_GPU_WHY="no CUDA driver \(libcuda\.so\.1 not found\): this machine can neither run plans nor build them for a GPU of its own" ;;
    *) NO_GPU_WHY="no GPU on this machine" ;;
esac
# Runs a command with no CUDA driver to be found (only where NO_DRIVER=1).
without_driver() {
    env LD_LIBRARY_PATH="$PLAIN_LD_LIBRARY_PATH" "$@"
}
# json_check NAME RC PYTHON -- COMMAND...: the command exits with RC, its standard output is one
# JSON document (r in PYTHON) and PYTHON's assertions hold; it prints "valid".
json_check() {
    local name=$1 want_rc=$2 check=$3
    shift 4
    "$@" >"$WORK/$name.json" 2>"$WORK/$name.err"
    local rc=$?
    expect "$name" 0 '^valid$' -- python3 -c "
import json, sys
raw = open(sys.argv[1], 'rb').read()
assert $rc == $want_rc, 'exit code $rc, expected $want_rc; stderr: ' + open(sys.argv[2]).read()
assert not any(b < 32 and b != 10 or 127 <= b < 160 for b in raw), raw
r = json.loads(raw)
$check
print('valid')" "$WORK/$name.json" "$WORK/$name.err"
}

# --- usage and help -----------------------------------------------------------------------
expect help 0 '^usage: cudnnfe <command>' 'exit codes: 0' -- "$TOOL" --help
expect help_command 0 '^usage: cudnnfe compile' -- "$TOOL" help compile
for command in info device compile bench inspect schema; do
    expect "help_$command" 0 "^usage: cudnnfe $command" -- "$TOOL" "$command" --help
    expect "help_command_$command" 0 "^usage: cudnnfe $command" -- "$TOOL" help "$command"
done
expect help_unknown_command 1 "^cudnnfe: unknown command 'bogus' \(see 'cudnnfe --help'\)$" -- "$TOOL" help bogus
expect help_unknown_command_prints_no_usage 0 -- sh -c '! "$1" help bogus 2>/dev/null | grep -q .' sh "$TOOL"
expect help_unknown_command_suggests 1 "^cudnnfe: unknown command 'bnech'; did you mean 'bench'\?$" -- "$TOOL" help bnech
expect version 0 '^cudnnfe [0-9]+\.[0-9]+\.[0-9]+$' -- "$TOOL" --version
expect no_command 1 '^usage: cudnnfe' -- "$TOOL"
expect unknown_command 1 "^cudnnfe: unknown command 'frobnicate' \(see 'cudnnfe --help'\)$" -- "$TOOL" frobnicate
# Suggestions: a unique prefix, or within two edits (a swapped pair is one) that are fewer than
# half the letters; names a few commands begin with are all offered; nothing far off is.
expect unknown_command_prefix 1 "^cudnnfe: unknown command 'benc'; did you mean 'bench'\?$" -- "$TOOL" benc
expect unknown_command_typo 1 "^cudnnfe: unknown command 'cmpile'; did you mean 'compile'\?$" -- "$TOOL" cmpile
expect unknown_command_swapped 1 "^cudnnfe: unknown command 'inpsect'; did you mean 'inspect'\?$" -- "$TOOL" inpsect
expect unknown_command_help 1 "^cudnnfe: unknown command 'hlep'; did you mean 'help'\?$" -- "$TOOL" hlep
expect unknown_command_ambiguous 1 "^cudnnfe: unknown command 'in'; did you mean 'info' or 'inspect'\?$" -- "$TOOL" in
expect unknown_command_not_close 1 "^cudnnfe: unknown command 'matmull' \(see 'cudnnfe --help'\)$" -- "$TOOL" matmull
expect unknown_top_option 1 "^cudnnfe: unknown option '--verison'; did you mean '--version'\?$" -- "$TOOL" --verison
expect unknown_top_option_not_close 1 "^cudnnfe: unknown option '--bogus' \(see 'cudnnfe --help'\)$" -- "$TOOL" --bogus
expect bad_flag 1 "cudnnfe compile: unknown option '--bogus' \(see 'cudnnfe compile --help'\)" -- "$TOOL" compile --bogus x.json
expect bad_flag_suggests 1 "^cudnnfe compile: unknown option '--devcie'; did you mean '--device'\?$" -- "$TOOL" compile --devcie x.json
expect bad_flag_with_value_suggests 1 "^cudnnfe compile: unknown option '--devcie'; did you mean '--device'\?$" -- \
    "$TOOL" compile --devcie=gpu.json x.json
expect bad_flag_prefix 1 "^cudnnfe compile: unknown option '--check'; did you mean '--check-only'\?$" -- "$TOOL" compile --check x.json
expect bad_short_flag 1 "^cudnnfe bench: unknown option '-x' \(see 'cudnnfe bench --help'\)$" -- "$TOOL" bench -x x.json
# Every command's options are checked the same way.
expect bad_flag_suggests_info 1 "^cudnnfe info: unknown option '--jsn'; did you mean '--json'\?$" -- "$TOOL" info --jsn
expect bad_flag_suggests_device 1 "^cudnnfe device: unknown option '--ouput'; did you mean '--output'\?$" -- "$TOOL" device capture --ouput x
expect bad_flag_suggests_bench 1 "^cudnnfe bench: unknown option '--iteratons'; did you mean '--iterations'\?$" -- \
    "$TOOL" bench x.json --iteratons 3
expect bad_flag_suggests_inspect 1 "^cudnnfe inspect: unknown option '--josn'; did you mean '--json'\?$" -- "$TOOL" inspect --josn x.plan
expect bad_flag_suggests_schema 1 "^cudnnfe schema: unknown option '--hepl'; did you mean '--help'\?$" -- "$TOOL" schema --hepl
expect flag_needs_value 1 "option '-o' needs a value" -- "$TOOL" compile x.json -o
expect flag_takes_no_value 1 "option '--json' takes no value" -- "$TOOL" inspect --json=yes x.plan
expect bad_number 1 "--iterations: 'many' is not a whole number" -- "$TOOL" bench x.json --iterations many
expect number_out_of_range 1 "--autotune: 0 is outside 1\.\.1000" -- "$TOOL" compile x.json -o "$WORK/p" --autotune 0
expect knob_search_alone 1 '--knob-search extends autotuning: give --autotune N too' -- \
    "$TOOL" compile x.json -o "$WORK/p" --knob-search 2
expect bench_knob_search_alone 1 '--knob-search extends autotuning: give --autotune N too' -- \
    "$TOOL" bench x.json --knob-search 2
expect extra_argument 1 "unexpected argument 'extra'" -- "$TOOL" info extra
expect schema 0 '"entry_point":"fe_graph_conv_fprop"' '"c_type":"fe_resample_options"' -- "$TOOL" schema
expect schema_extra_argument 1 "cudnnfe schema: unexpected argument 'x'" -- "$TOOL" schema x
expect device_no_action 1 "say 'capture' or 'show'" -- "$TOOL" device
expect device_unknown_action 1 "unknown action 'steal' \(capture or show\)$" -- "$TOOL" device steal
expect device_unknown_action_suggests 1 "^cudnnfe device: unknown action 'captur'; did you mean 'capture'\?$" -- "$TOOL" device captur

# --- info and device ----------------------------------------------------------------------
if [ "$HAVE_GPU" = 1 ]; then
    expect info 0 '^cuDNN: +[0-9]+\.[0-9]+\.[0-9]+' '^CUDA runtime: +[0-9]+\.[0-9]' '^CUDA driver: +[0-9]+\.[0-9]' \
        '^GPU 0: .*compute capability [0-9]+\.[0-9]' -- "$TOOL" info
    expect device_capture 0 'captured GPU 0: ' -- "$TOOL" device capture -o "$WORK/gpu.json"
    expect device_show_captured 0 'compute capability' -- "$TOOL" device show "$WORK/gpu.json"
    expect device_capture_no_such_gpu 1 'GPU 4096 does not exist' -- "$TOOL" device capture --gpu 4096
    json_check info_json 0 '
assert r["version"] and r["header_version"] and r["cudnn"]["available"] and r["cudnn"]["version"].startswith("9."), r
assert r["cudnn"]["library"].startswith("/") and "libcudnn.so" in r["cudnn"]["library"], r
assert r["cuda_runtime"]["available"] and r["cuda_driver"]["state"] == "found" and r["cuda_driver"]["version"], r
assert r["gpu_count"] == len(r["gpus"]) >= 1 and r["gpu_count_error"] is None, r
g = r["gpus"][0]
assert g["index"] == 0 and g["name"] and g["sm_count"] > 0 and g["memory_bytes"] > 0 and "." in g["compute_capability"], g' -- \
        "$TOOL" info --json
else
    case "$DRIVER" in
        stub) driver_line="none: the CUDA toolkit's stub \(.*libcuda\.so\.1\), which runs nothing" ;;
        missing) driver_line='not found \(libcuda\.so\.1: cannot open shared object file' ;;
        *) driver_line='unknown \(no GPU to ask\)' ;;
    esac
    expect info 0 '^cuDNN: +[0-9]+\.[0-9]+\.[0-9]+' '^  loaded from /.*libcudnn\.so' "^CUDA driver: +$driver_line" \
        '^GPUs: +(none|unknown)' -- "$TOOL" info
    json_check info_json 0 '
assert r["version"] and r["cudnn"]["available"] and r["cudnn"]["version"].startswith("9."), r
assert r["cudnn"]["deviceless_plan_building"] is True and r["cudnn"]["error"] is None, r
assert r["cudnn"]["library"].startswith("/") and "libcudnn.so" in r["cudnn"]["library"], r
assert r["cuda_driver"]["state"] == "'"$DRIVER"'" and r["cuda_driver"]["version"] is None, r
assert r["gpu_count"] in (0, None) and r["gpus"] == [], r' -- "$TOOL" info --json
    expect device_capture_no_gpu 2 "^cudnnfe device capture: $NO_GPU_WHY" -- "$TOOL" device capture -o "$WORK/gpu.json"
    expect device_capture_no_gpu_writes_nothing 0 -- test ! -e "$WORK/gpu.json"
fi
if [ "$DRIVER" = stub ]; then
    expect info_stub_driver 0 "^CUDA driver: +none: the CUDA toolkit's stub \($WORK/stub-driver/libcuda\.so\.1\), which runs nothing$" \
        '^GPUs: +none: no CUDA driver \(plans can still be built for a GPU description: cudnnfe compile --device\)$' -- "$TOOL" info
    json_check info_json_stub_driver 0 '
assert r["cuda_driver"] == {"state": "stub", "version": None, "library": "'"$WORK"'/stub-driver/libcuda.so.1", "error": None}, r
assert r["gpu_count"] == 0, r' -- "$TOOL" info --json
fi
# --- no CUDA driver at all: the machine's fault (2), said plainly --------------------------------
if [ "$NO_DRIVER" = 1 ]; then
    NO_DRIVER_WHY='no CUDA driver \(libcuda\.so\.1 not found\): this machine can neither run plans nor build them for a GPU of its own'
    expect info_no_driver 0 '^CUDA driver: +not found \(libcuda\.so\.1: cannot open shared object file: No such file or directory\)$' \
        '^GPUs: +none: no CUDA driver \(plans can still be built for a GPU description: cudnnfe compile --device\)$' -- \
        without_driver "$TOOL" info
    json_check info_json_no_driver 0 '
d = r["cuda_driver"]
assert d["state"] == "missing" and d["version"] is None and d["library"] is None and d["error"].startswith("libcuda.so.1: "), d
assert r["gpu_count"] == 0 and r["gpus"] == [], r' -- without_driver "$TOOL" info --json
    expect bench_no_driver 2 "^cudnnfe bench: $NO_DRIVER_WHY; bench executes graphs \(to build plans for a described GPU, use 'cudnnfe compile --device GPU.json'\)$" -- \
        without_driver "$TOOL" bench "$ROOT/tests/tool/graphs/two_graphs.json"
    expect compile_no_driver 2 "^cudnnfe compile: $NO_DRIVER_WHY; give --device GPU.json \(captured with 'cudnnfe device capture' on the target\) to build for a described GPU$" -- \
        without_driver "$TOOL" compile "$ROOT/tests/tool/graphs/two_graphs.json" -o "$WORK/no-driver"
    expect compile_check_only_no_driver 2 "^cudnnfe compile: $NO_DRIVER_WHY; give --device GPU.json" -- \
        without_driver "$TOOL" compile "$ROOT/tests/tool/graphs/two_graphs.json" --check-only
    expect compile_autotune_no_driver 2 "^cudnnfe compile: $NO_DRIVER_WHY; --autotune times plans on this machine's GPU$" -- \
        without_driver "$TOOL" compile "$ROOT/tests/tool/graphs/two_graphs.json" -o "$WORK/no-driver" --autotune 2
    expect compile_no_driver_wrote_nothing 0 -- test ! -e "$WORK/no-driver"
    expect device_capture_no_driver 2 "^cudnnfe device capture: $NO_DRIVER_WHY; run it on the machine that has the GPU$" -- \
        without_driver "$TOOL" device capture
else
    skip no_driver "this machine has a CUDA driver (libcuda.so.1) of its own"
fi
expect info_without_libraries 0 '^cuDNN: +not available \(fe_cudnn_version: cuDNN could not be loaded' \
    '^CUDA runtime: +not available' '^GPUs: +unknown' -- \
    env CUDNNFE_CUDNN_LIBRARY=/nonexistent/libcudnn.so.9 CUDNNFE_CUDART_LIBRARY=/nonexistent/libcudart.so "$TOOL" info
expect device_capture_without_runtime 2 'cannot look for a GPU: fe_device_count: the CUDA runtime could not be loaded' -- \
    env CUDNNFE_CUDART_LIBRARY=/nonexistent/libcudart.so "$TOOL" device capture
if [ -f "$DEVICE_JSON" ]; then
    expect device_show 0 '^NVIDIA H100 80GB HBM3, compute capability 9\.0 \(sm_90\), 132 SMs$' 'memory: +79\.2 GiB' \
        'driver \(CUDA\): +13\.0' -- "$TOOL" device show "$DEVICE_JSON"
else
    skip device_show "no GPU description at $DEVICE_JSON"
fi
echo '{"name": "not a GPU"}' >"$WORK/not-gpu.json"
expect device_show_not_description 1 'not a GPU description' -- "$TOOL" device show "$WORK/not-gpu.json"
expect device_show_missing 1 "cannot read $WORK/none.json: No such file or directory" -- "$TOOL" device show "$WORK/none.json"

# --- files: missing, empty, not a plan, malformed arrays ----------------------------------
expect compile_missing_file 1 "cudnnfe compile: cannot read $WORK/none.json: No such file or directory" -- \
    "$TOOL" compile "$WORK/none.json" -o "$WORK/plans"
expect compile_directory_as_file 1 "cannot read $WORK: it is a directory" -- "$TOOL" compile "$WORK" --check-only
expect bench_missing_file 1 "cudnnfe bench: cannot read $WORK/none.json" -- "$TOOL" bench "$WORK/none.json"
expect inspect_missing_file 1 "cudnnfe inspect: cannot read $WORK/none.plan" -- "$TOOL" inspect "$WORK/none.plan"
expect inspect_not_a_plan 1 'fe_serialized_describe: the bytes are not a serialized cudnnfe graph' -- \
    "$TOOL" inspect "$ROOT/README.md"
: >"$WORK/empty.json"
expect compile_empty_file 1 'empty.json: the file holds no JSON \(it is empty\)' -- "$TOOL" compile "$WORK/empty.json" --check-only
printf '[\n  ]\n' >"$WORK/no-graphs.json"
expect compile_empty_array 1 'no-graphs.json: line 2: the array holds no graphs' -- "$TOOL" compile "$WORK/no-graphs.json" --check-only
printf '[\n  {"name": "a"},\n  {"name": "b"},\n]\n' >"$WORK/trailing.json"
expect compile_trailing_comma 1 "trailing.json: line 4: a graph is missing before '\]'.*trailing comma" -- \
    "$TOOL" compile "$WORK/trailing.json" --check-only
printf '[\n  {"name": "a"},\n  {"name": "b"}\n' >"$WORK/unclosed.json"
expect compile_unclosed_array 1 'unclosed.json: line 4: the array of graphs opened on line 1 is not closed' -- \
    "$TOOL" compile "$WORK/unclosed.json" --check-only
printf '[{"name": "a"}] [' >"$WORK/after.json"
expect compile_text_after_array 1 'after.json: line 1: text after the array of graphs' -- \
    "$TOOL" compile "$WORK/after.json" --check-only

# --- compile: options and environment -------------------------------------------------------
echo '{}' >"$WORK/one.json"
expect compile_needs_output 1 'say where the plans go with -o DIR' -- "$TOOL" compile "$WORK/one.json"
expect compile_needs_file 1 'give a graph file' -- "$TOOL" compile -o "$WORK/plans"
expect compile_device_missing 1 "--device: cannot read $WORK/none.json" -- \
    "$TOOL" compile "$WORK/one.json" --device "$WORK/none.json" -o "$WORK/plans"
expect compile_device_not_description 1 "--device $WORK/not-gpu.json: not a GPU description" -- \
    "$TOOL" compile "$WORK/one.json" --device "$WORK/not-gpu.json" -o "$WORK/plans"
expect compile_autotune_with_device 1 '--autotune times plans on this machine.s GPU; it cannot be used with --device' -- \
    "$TOOL" compile "$WORK/one.json" --device "$DEVICE_JSON" -o "$WORK/plans" --autotune 4
if [ "$HAVE_GPU" = 0 ]; then
    expect compile_no_gpu_no_device 2 "^cudnnfe compile: $NO_GPU_WHY.*give --device GPU.json" -- "$TOOL" compile "$WORK/one.json" -o "$WORK/plans"
    expect compile_autotune_no_gpu 2 "^cudnnfe compile: ($NO_GPU_WHY; --autotune times plans on this machine's GPU|--autotune needs a GPU and this machine has none)$" -- \
        "$TOOL" compile "$WORK/one.json" -o "$WORK/plans" --autotune 4
    expect bench_no_gpu 2 "^cudnnfe bench: $NO_GPU_WHY" -- "$TOOL" bench "$WORK/one.json"
    # Nothing but the message: standard output stays empty with --json too.
    expect bench_json_no_gpu 0 -- sh -c '"$1" bench --json "$2" 2>/dev/null; test $? = 2' sh "$TOOL" "$WORK/one.json"
    expect bench_json_no_gpu_prints_nothing 0 -- sh -c '! "$1" bench --json "$2" 2>/dev/null | grep -q .' sh "$TOOL" "$WORK/one.json"
    expect compile_json_no_gpu_prints_nothing 0 -- sh -c '! "$1" compile --json "$2" -o "$3" 2>/dev/null | grep -q .' \
        sh "$TOOL" "$WORK/one.json" "$WORK/plans"
fi

# --- compile and inspect: graph files to plans, deviceless -----------------------------------
FIXTURES=$ROOT/tests/tool/graphs
if [ ! -f "$DEVICE_JSON" ]; then
    skip compile_deviceless "no GPU description at $DEVICE_JSON"
else
    expect compile_deviceless 0 '^\[1/2\] small_conv \.\.\. built in [0-9]+ ms \(engine eng[0-9]+.*\) -> .*/plans/small_conv\.plan$' \
        '^\[2/2\] pointwise_conv \.\.\. built in [0-9]+ ms' '^2 of 2 graphs compiled into' -- \
        "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" -o "$WORK/plans"
    expect compile_wrote_plans 0 -- test -s "$WORK/plans/small_conv.plan" -a -s "$WORK/plans/pointwise_conv.plan"
    expect compile_same_name_twice 0 '^\[3/4\] small_conv \.\.\. taken from the plan cache in [0-9]+ ms .* -> .*/small_conv-2\.plan$' -- \
        "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" -o "$WORK/twice" --max-workspace 0 \
        --output="$WORK/twice" -- "$FIXTURES/two_graphs.json"
    expect inspect_plan 0 "^$WORK/plans/small_conv.plan: cudnnfe serialized graph, format 1, [0-9]+ bytes" \
        '^built by: cudnnfe [0-9]+\.[0-9]+\.[0-9]+ with cuDNN 9\.[0-9]+\.[0-9]+$' \
        '^target: NVIDIA H100 80GB HBM3, sm 900, 132 SMs' '^plan: eng[0-9]+.*\(engine [0-9]+\), workspace [0-9]+ bytes' \
        '"name":"small_conv"' '^uid map:$' '^  input  x +uid=1 +half +\[4, 32, 16, 16\]$' '^  input  w +uid=2 ' \
        '^  output y +uid=[0-9]+ +half +\[4, 64, 16, 16\]$' \
        '^build options: heuristics A, FALLBACK; policy HEURISTICS_CHOICE; no workspace limit$' -- "$TOOL" inspect "$WORK/plans/small_conv.plan"
    expect inspect_max_workspace 0 '^build options: heuristics A, FALLBACK; policy HEURISTICS_CHOICE; max workspace 0 bytes$' -- \
        "$TOOL" inspect "$WORK/twice/small_conv.plan"
    expect inspect_json 0 '^valid$' -- sh -c "\"$TOOL\" inspect --json \"$WORK/plans/small_conv.plan\" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r[\"format\"] == 1 and r[\"size_bytes\"] > 0, r
assert r[\"cudnn_version\"].startswith(\"9.\") and r[\"library_version\"], r
assert r[\"device\"].startswith(\"NVIDIA H100 80GB HBM3\") and r[\"engine\"].startswith(\"eng\"), r
assert r[\"workspace_bytes\"] >= 0 and r[\"engine_index\"] >= 0 and r[\"autotuned_us\"] is None and r[\"attention\"] == [], r
assert [(u[\"name\"], u[\"role\"], u[\"uid\"]) for u in r[\"uids\"]][:2] == [(\"x\", \"input\", 1), (\"w\", \"input\", 2)], r[\"uids\"]
assert r[\"graph\"][\"name\"] == \"small_conv\" and r[\"graph\"][\"ops\"][0][\"op\"] == \"conv_fprop\", r[\"graph\"]
assert r[\"build_options\"] == \"heuristics A, FALLBACK; policy HEURISTICS_CHOICE; no workspace limit\", r[\"build_options\"]
assert r[\"build\"] == {\"heuristic_modes\": [\"A\", \"FALLBACK\"], \"policy\": \"HEURISTICS_CHOICE\", \"max_workspace_bytes\": None}, r[\"build\"]
print(\"valid\")'"
    # Every option the library writes into a plan, with the numbers it writes, reads as names
    # (heuristic modes, policy, note masks); a part this tool does not know stays as it is.
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$ROOT/tests/tool" python3 - "$WORK/plans/small_conv.plan" "$WORK/options.plan" <<'PY'
import sys
from plan_parts import reseal
def edit(tag, body):
    if tag == 0x4F505453:  # OPTS: the build options, as fe_graph_build writes them
        body = (b'modes 0 1 2 3; policy 1; max workspace 1048576; autotune 4; knob search 2; notes -410 -1 +1 +8; '
                b'not engines eng6,eng7_k2=1; max shared memory 65536; sm count 8; dynamic shapes; policy 9; a newer part 3')
    return body
reseal(sys.argv[1], sys.argv[2], edit)
PY
    expect inspect_build_options_named 0 '^build options: heuristics INSTANT, B, FALLBACK, A; policy ALL; max workspace 1048576 bytes; autotune 4 candidates; knob search 2 rounds; not notes NONDETERMINISTIC, 0x400, RUNTIME_COMPILATION; only notes TENSOR_CORE, SUPPORTS_CUDA_GRAPH_NATIVE_API; not engines eng6,eng7_k2=1; max shared memory 65536 bytes; sm count 8; dynamic shapes; policy 9; a newer part 3$' -- \
        "$TOOL" inspect "$WORK/options.plan"
    json_check inspect_json_build_options_named 0 '
assert r["build"] == {
    "heuristic_modes": ["INSTANT", "B", "FALLBACK", "A"], "policy": "ALL", "max_workspace_bytes": 1048576,
    "autotune_candidates": 4, "knob_search_rounds": 2,
    "deselected_numerical_notes": ["NONDETERMINISTIC", "0x400"], "deselected_behavior_notes": ["RUNTIME_COMPILATION"],
    "required_numerical_notes": ["TENSOR_CORE"], "required_behavior_notes": ["SUPPORTS_CUDA_GRAPH_NATIVE_API"],
    "deselected_engines": "eng6,eng7_k2=1", "max_shared_memory_bytes": 65536, "sm_count_target": 8,
    "dynamic_shapes": True, "other": ["policy 9", "a newer part 3"]}, r["build"]
assert r["build_options"].startswith("heuristics INSTANT, B, FALLBACK, A; policy ALL;"), r["build_options"]' -- \
        "$TOOL" inspect --json "$WORK/options.plan"
    # compile --json: one entry per graph (and per file refused), in the order of the files.
    json_check compile_json 1 '
a, b, c = r["graphs"]
assert r["target"]["device_file"] == "'"$DEVICE_JSON"'" and r["target"]["gpu_index"] is None, r["target"]
assert r["target"]["gpu"].startswith("NVIDIA H100 80GB HBM3, compute capability 9.0"), r["target"]
assert r["check_only"] is False and r["output_directory"] == "'"$WORK"'/json-plans", r
assert a["file"].endswith("two_graphs.json") and (a["graph"], a["graphs_in_file"], a["name"]) == (1, 2, "small_conv"), a
assert a["result"] == "built" and a["ok"] and a["milliseconds"] >= 0 and a["engine"].startswith("eng"), a
assert a["workspace_bytes"] >= 0 and a["plan_file"] == "'"$WORK"'/json-plans/small_conv.plan" and a["error"] is None, a
assert b["name"] == "pointwise_conv" and b["ok"] and b["plan_file"].endswith("/pointwise_conv.plan"), b
assert c["file"] == "'"$WORK"'/none.json" and c["graph"] is None and c["name"] is None and c["result"] == "refused", c
assert c["error"] == {"exit_code": 1, "status": None, "message": "cannot read '"$WORK"'/none.json: No such file or directory"}, c
assert r["compiled"] == 2 and r["total"] == 2 and r["exit_code"] == 1, r' -- \
        "$TOOL" compile --json "$FIXTURES/two_graphs.json" "$WORK/none.json" --device "$DEVICE_JSON" -o "$WORK/json-plans"
    expect compile_json_wrote_plans 0 -- test -s "$WORK/json-plans/small_conv.plan" -a -s "$WORK/json-plans/pointwise_conv.plan"
    expect compile_json_message_on_stderr 0 "^cudnnfe compile: cannot read $WORK/none.json: No such file or directory$" -- \
        cat "$WORK/compile_json.err"
    json_check compile_json_check_only 0 '
for g in r["graphs"]:
    assert g["result"] == "supported" and g["ok"] and g["engine_configs"] >= g["viable_engine_configs"] > 0, g
    assert "engine" not in g and "plan_file" not in g, g
assert [g["name"] for g in r["graphs"]] == ["small_conv", "pointwise_conv"], r
assert r["check_only"] and r["output_directory"] is None and r["supported"] == 2 and r["exit_code"] == 0, r' -- \
        "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" --check-only --json
    head -c 1000 "$WORK/plans/small_conv.plan" >"$WORK/truncated.plan"
    expect inspect_truncated 1 'fe_serialized_describe: the serialized graph is corrupted or truncated' -- \
        "$TOOL" inspect "$WORK/truncated.plan"
    # Terminal control sequences in a blob's strings are printed escaped, never as they are.
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$ROOT/tests/tool" python3 - "$WORK/plans/small_conv.plan" "$WORK/escapes.plan" <<'PY'
import sys
from plan_parts import reseal
def edit(tag, body):
    if tag == 0x46505254:  # FPRT: the target's name
        body = b'\x1b]0;retitled\x07\x1b[2J' + body
    if tag == 0x4F505453:  # OPTS: a C1 CSI, raw and as UTF-8, and DEL
        body = body + b' \x9b31m \xc2\x9b32m \x7f'
    return body
reseal(sys.argv[1], sys.argv[2], edit)
PY
    expect inspect_escapes_controls 0 '^target: \\x1b\]0;retitled\\x07\\x1b\[2JNVIDIA H100' \
        '^build options: .* \\x9b31m \\xc2\\x9b32m \\x7f$' -- "$TOOL" inspect "$WORK/escapes.plan"
    expect inspect_prints_no_controls 0 '^clean$' -- sh -c "\"$TOOL\" inspect \"$WORK/escapes.plan\" | LC_ALL=C grep -c \"\$(printf '[\\001-\\011\\013-\\037\\177-\\237]')\" | grep -qx 0 && echo clean"
    expect inspect_json_escapes_controls 0 '^valid$' -- sh -c "\"$TOOL\" inspect --json \"$WORK/escapes.plan\" | python3 -c '
import json, sys
raw = sys.stdin.buffer.read()
assert not any(b < 32 and b != 10 or 127 <= b < 160 for b in raw), raw
r = json.loads(raw)
assert r[\"device\"].startswith(\"\\x1b]0;retitled\"), r[\"device\"]
print(\"valid\")'"
    if [ -d "$GRAPHS" ] && ls "$GRAPHS"/*.json >/dev/null 2>&1; then
        # A file may hold several graphs (a JSON array): count the graphs, not the files.
        n=$(python3 -c 'import json, sys; print(sum(len(g) if isinstance(g, list) else 1 for g in (json.load(open(f)) for f in sys.argv[1:])))' "$GRAPHS"/*.json)
        expect compile_check_only_examples 0 "^$n of $n graphs supported$" '^\[1/[0-9]+\] [a-z_0-9]+ \.\.\. supported \([0-9]+ of [0-9]+ engine configs viable\)' -- \
            "$TOOL" compile "$GRAPHS"/*.json --device "$DEVICE_JSON" --check-only
        # Convolutions finalize whole plans with no GPU; the others need one to compile theirs.
        for example in "$GRAPHS"/conv*.json; do
            [ -f "$example" ] || continue
            name=$(basename "$example" .json)
            expect "compile_example_$name" 0 '^1 of 1 graphs compiled' -- "$TOOL" compile "$example" --device "$DEVICE_JSON" -o "$WORK/examples"
            plan=$(ls "$WORK"/examples/*.plan 2>/dev/null | head -1)
            expect "inspect_example_$name" 0 '^uid map:$' '^  input ' '^  output ' -- "$TOOL" inspect "${plan:-missing}"
            rm -rf "$WORK/examples"
        done
    else
        skip compile_check_only_examples "no example graphs in $GRAPHS"
    fi
    if [ "$HAVE_GPU" = 0 ] && [ "$DRIVER" = stub ]; then
        # A runtime-compiled engine lists (the stub driver) but cannot compile without a GPU: the
        # machine's fault (2), though the library says FE_STATUS_NOT_SUPPORTED.
        expect compile_needs_gpu_to_finish 2 '^\[1/2\] fine \.\.\. cannot tell here$' \
            "cudnnfe compile: .*second_graph_broken.json, graph 1 of 2 \(fine\): the target supports it, but its engines compile their kernels on a GPU, and this machine has none: no CUDA driver \(the libcuda\.so\.1 found, .*, is the CUDA toolkit's stub, which runs nothing\); the library said: fe_graph_build: graph 'fine': its plans cannot be built here: none of [0-9]+ viable engine configs built a plan; first failure: [^;]*$" \
            "graph 2 of 2: fe_graph_from_json: line 17" '^0 of 2 graphs compiled' -- \
            "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" -o "$WORK/unfinished"
        json_check compile_json_needs_gpu_to_finish 2 '
f, b = r["graphs"]
assert f["name"] == "fine" and f["result"] == "cannot_tell" and not f["ok"] and f["plan_file"] is None, f
assert f["error"]["exit_code"] == 2 and f["error"]["status"] == "FE_STATUS_CANNOT_TELL", f
assert "compile their kernels on a GPU" in f["error"]["message"], f
assert b["name"] is None and b["result"] == "refused" and b["error"]["exit_code"] == 1, b
assert b["error"]["status"] == "FE_STATUS_INVALID_ARGUMENT" and "line 17" in b["error"]["message"], b
assert r["compiled"] == 0 and r["total"] == 2 and r["exit_code"] == 2, r' -- \
            "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" -o "$WORK/unfinished" --json
    fi
    if [ "$NO_DRIVER" = 1 ]; then
        # Without a driver cuDNN lists no runtime-compiled engine and the library says it cannot
        # tell (FE_STATUS_CANNOT_TELL): the tool says why, exit code 2. Convolutions served
        # by precompiled engines still build.
        expect compile_check_only_no_driver_runtime_compiled 2 '^\[1/2\] fine \.\.\. cannot tell here$' \
            "\(fine\): whether the target supports it cannot be told here: no CUDA driver \(libcuda\.so\.1 not found\), and without one cuDNN lists none of its runtime-compiled engines; the library said: fe_graph_check_support: .*no engine config" \
            "^cudnnfe compile: note: with CUDNNFE_STUB_DRIVER=1 the library loads the CUDA toolkit's stub driver, cuDNN lists those engines and --check-only can tell$" -- \
            without_driver "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" --check-only
        # CUDNNFE_STUB_DRIVER=1: the library loads the toolkit's stub itself, and the support check
        # lists the ranked engine configs of a runtime-compiled graph for the described GPU.
        expect compile_stub_driver_candidates 1 '^\[1/2\] fine \.\.\. supported' '^ +1\. eng[0-9].*; notes: [A-Z_]' -- \
            without_driver env CUDNNFE_STUB_DRIVER=1 "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" --check-only --candidates
        expect compile_candidates_need_check_only 1 'give --check-only too' -- \
            "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" -o "$WORK/x" --candidates
        expect compile_no_driver_runtime_compiled 2 \
            "\(fine\): it cannot be built here: no CUDA driver \(libcuda\.so\.1 not found\), and without one cuDNN lists none of its runtime-compiled engines; the library said: fe_graph_build: .*no engine config" -- \
            without_driver "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" -o "$WORK/no-driver-plans"
        expect compile_no_driver_precompiled 0 '^\[1/2\] small_conv \.\.\. built' '^2 of 2 graphs compiled' -- \
            without_driver "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" -o "$WORK/no-driver-plans"
        json_check compile_json_no_driver 2 '
f = r["graphs"][0]
assert f["name"] == "fine" and f["error"]["exit_code"] == 2 and f["error"]["status"] == "FE_STATUS_CANNOT_TELL", f
assert "no CUDA driver (libcuda.so.1 not found)" in f["error"]["message"], f
assert "install the NVIDIA driver" not in f["error"]["message"], f
assert r["graphs"][1]["error"]["exit_code"] == 1 and r["exit_code"] == 2, r' -- \
            without_driver "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" --check-only --json
        # The ranked engine configs' notes by name, as cudnnfe.h spells them without the prefix.
        json_check compile_json_candidates_name_notes 1 '
ranked = r["graphs"][0]["ranked"]
assert ranked and all(isinstance(n, str) and n.isupper() for c in ranked for n in c["numerical_notes"] + c["behavior_notes"]), ranked
assert any("RUNTIME_COMPILATION" in c["behavior_notes"] for c in ranked), ranked' -- \
            without_driver env CUDNNFE_STUB_DRIVER=1 "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" --check-only --candidates --json
    fi
    if [ "$HAVE_GPU" = 0 ] && [ -n "${stub:-}" ] && command -v nm >/dev/null && command -v cc >/dev/null; then
        # A driver that sees no GPU (cuInit: CUDA_ERROR_NO_DEVICE, as a real one with every GPU
        # hidden), made from the stub's symbols: the support check answers, the build of a
        # runtime-compiled engine cannot tell and says the driver sees no GPU, precompiled ones build.
        mkdir -p "$WORK/no-device-driver"
        python3 "$ROOT/tests/support/no_device_driver.py" "$stub" >"$WORK/no-device-driver/nodevice.c" &&
            cc -shared -fPIC -w -Wl,-soname,libcuda.so.1 -o "$WORK/no-device-driver/libcuda.so.1" \
                "$WORK/no-device-driver/nodevice.c"
        no_device() { env LD_LIBRARY_PATH="$WORK/no-device-driver:$PLAIN_LD_LIBRARY_PATH" "$@"; }
        expect info_no_device 0 '^CUDA driver: +unknown \(no GPU to ask\)$' '^GPUs: +none' -- no_device "$TOOL" info
        expect compile_check_only_no_device 1 '^\[1/2\] fine \.\.\. supported' -- \
            no_device "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" --check-only
        expect compile_no_device_runtime_compiled 2 '^\[1/2\] fine \.\.\. cannot tell here$' \
            "the CUDA driver here sees no GPU \(cuInit: no CUDA-capable device\)" -- \
            no_device "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" -o "$WORK/no-device-plans"
        expect compile_no_device_precompiled 0 '^\[1/2\] small_conv \.\.\. built' '^2 of 2 graphs compiled' -- \
            no_device "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" -o "$WORK/no-device-plans"
    else
        skip no_device_driver "a GPU is here, or no stub driver, nm or cc to make a driver that sees none"
    fi
    # A link planted at the name the temporary file used to have (plan name + ".tmp" + pid; exec
    # keeps the shell's pid) is neither followed nor renamed into place.
    mkdir -p "$WORK/planted"
    echo unrelated >"$WORK/victim"
    expect compile_ignores_planted_link 0 '^2 of 2 graphs compiled' -- sh -c \
        'ln -s "$1/victim" "$1/planted/small_conv.plan.tmp$$" && exec "$2" compile "$3" --device "$4" -o "$1/planted"' \
        sh "$WORK" "$TOOL" "$FIXTURES/two_graphs.json" "$DEVICE_JSON"
    expect planted_link_not_followed 0 -- sh -c \
        'test "$(cat "$1/victim")" = unrelated && test -f "$1/planted/small_conv.plan" -a ! -L "$1/planted/small_conv.plan"' \
        sh "$WORK"
    expect check_only_writes_nothing 0 '^\[1/2\] small_conv \.\.\. supported' '^2 of 2 graphs supported$' -- \
        "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" --check-only -o "$WORK/nothing"
    expect check_only_wrote_nothing 0 -- test ! -e "$WORK/nothing"
fi

# --- graphs the library refuses: its message, with the file's line and the field -------------
expect malformed_json 1 "cudnnfe compile: $FIXTURES/malformed.json: fe_graph_from_json: line 5: expected ',' or '}'" -- \
    "$TOOL" compile "$FIXTURES/malformed.json" --device "$DEVICE_JSON" --check-only
expect malformed_json_second_graph 1 '^\[2/2\] .*second_graph_broken\.json, graph 2 of 2: refused$' \
    "second_graph_broken.json, graph 2 of 2: fe_graph_from_json: line 17: expected ',' or '}'" -- \
    "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" --check-only
expect unknown_op 1 "unknown_op.json: fe_graph_from_json: line 11, ops\[0\]\.op: unknown operation 'matmultiply'" -- \
    "$TOOL" compile "$FIXTURES/unknown_op.json" --device "$DEVICE_JSON" -o "$WORK/refused"
expect bad_attribute 1 'bad_attribute.json: fe_graph_from_json: line 16, ops\[0\]\.attributes\.stride: expected an array of integers' -- \
    "$TOOL" compile "$FIXTURES/bad_attribute.json" --device "$DEVICE_JSON" -o "$WORK/refused"
expect refused_graphs_write_nothing 0 -- test ! -e "$WORK/refused/unknown_op.plan" -a ! -e "$WORK/refused/bad_stride.plan"
expect bench_malformed_json_or_no_gpu "$((2 - HAVE_GPU))" "$([ "$HAVE_GPU" = 1 ] && echo 'line 5: expected' || echo "$NO_GPU_WHY")" -- \
    "$TOOL" bench "$FIXTURES/malformed.json"
expect compile_unwritable_output 1 'cannot create directory /proc/cudnnfe' -- \
    "$TOOL" compile "$FIXTURES/two_graphs.json" --device "$DEVICE_JSON" -o /proc/cudnnfe/plans

# --- on a GPU: build for it, autotune, bench ------------------------------------------------------
if [ "$HAVE_GPU" = 1 ]; then
    expect compile_for_this_gpu 0 '^2 of 2 graphs compiled' -- "$TOOL" compile "$FIXTURES/two_graphs.json" -o "$WORK/gpu-plans"
    expect compile_autotune 0 '^\[1/2\] small_conv \.\.\. built in' '^2 of 2 graphs compiled' -- \
        "$TOOL" compile "$FIXTURES/two_graphs.json" -o "$WORK/tuned" --autotune 3
    expect inspect_autotuned 0 '^autotuned: [0-9.]+ us median$' -- "$TOOL" inspect "$WORK/tuned/small_conv.plan"
    expect bench 0 '^graph +median +TFLOPS +GB/s +workspace  engine$' \
        '^small_conv +[0-9.]+ (us|ms) +[0-9.]+ +[0-9.]+ +[0-9.]+ [KMG]?i?B  eng[0-9]+' '^pointwise_conv +[0-9.]+ (us|ms) +[0-9.]+ ' -- \
        "$TOOL" bench "$FIXTURES/two_graphs.json" --iterations 5
    expect bench_autotune 0 '^small_conv .*\(best of [0-9]+\)' -- "$TOOL" bench "$FIXTURES/two_graphs.json" --autotune 3 --iterations 3
    json_check bench_json 0 '
assert r["file"].endswith("two_graphs.json") and r["gpu"]["index"] == 0 and r["gpu"]["name"], r
assert r["iterations"] == 3 and r["warmup"] == 3 and r["autotune"] == 2 and r["knob_search"] is None, r
assert [g["name"] for g in r["graphs"]] == ["small_conv", "pointwise_conv"], r
for g in r["graphs"]:
    assert g["ok"] and g["error"] is None and g["median_seconds"] > 0 and g["flops"] > 0 and g["tflops"] > 0, g
    assert g["bytes"] > 0 and g["gb_per_second"] > 0 and g["workspace_bytes"] >= 0, g
    assert g["engine"].startswith("eng") and g["plans_timed"] >= 1, g
assert r["exit_code"] == 0, r' -- "$TOOL" bench --json "$FIXTURES/two_graphs.json" --autotune 2 --iterations 3
    json_check bench_json_refused 1 '
f, b = r["graphs"]
assert f["name"] == "fine" and f["ok"] and f["tflops"] > 0 and f["plans_timed"] is None, f
assert b["name"] is None and not b["ok"] and b["error"]["exit_code"] == 1 and "line 17" in b["error"]["message"], b
assert r["exit_code"] == 1, r' -- "$TOOL" bench --json "$FIXTURES/second_graph_broken.json" --iterations 2
    json_check compile_json_this_gpu 0 '
assert r["target"]["device_file"] is None and r["target"]["gpu_index"] == 0 and r["target"]["gpu"], r["target"]
assert [g["result"] for g in r["graphs"]] == ["built", "built"] and r["compiled"] == 2, r' -- \
        "$TOOL" compile --json "$FIXTURES/two_graphs.json" -o "$WORK/gpu-json-plans"
    expect bench_knob_search 0 '^small_conv .*\(best of [0-9]+\)' -- \
        "$TOOL" bench "$FIXTURES/two_graphs.json" --autotune 3 --knob-search 1 --iterations 3
    if [ -d "$GRAPHS" ]; then
        expect bench_examples 0 '^graph +median' -- "$TOOL" bench "$GRAPHS/sdpa_forward.json" --iterations 5
    fi
fi

# --- install: meson puts the tool in bindir ---------------------------------------------------
if [ -f "$BUILD_DIR/build.ninja" ] && command -v meson >/dev/null; then
    if meson install -C "$BUILD_DIR" --no-rebuild --quiet --tags runtime --destdir "$WORK/install" >"$WORK/install.log" 2>&1; then
        bindir=$(meson introspect "$BUILD_DIR" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"] + "/" + o["bindir"])')
        libdir=$(dirname "$(find "$WORK/install" -name 'libcudnnfe.so*' | head -1)")
        expect installed_to_bindir 0 '^cudnnfe [0-9]' -- env LD_LIBRARY_PATH="$libdir" "$WORK/install$bindir/cudnnfe" --version
    else
        failed=$((failed + 1))
        echo "FAIL installed_to_bindir: meson install failed"
        sed 's/^/    | /' "$WORK/install.log" | tail -10
    fi
else
    skip installed_to_bindir "no meson build directory at $BUILD_DIR"
fi

# Names from a file with ESC and BEL (an xterm title sequence) are printed escaped: the
# compile line, and the error naming an unknown tensor.
python3 - "$GRAPHS/conv_seed.json" "$WORK/escape.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
g["name"] = "t\u001b]0;pwned\u0007"
g["outputs"] = ["y\u001b[2J"]
json.dump(g, open(sys.argv[2], "w"))
PY
expect names_escaped_in_compile 1 't\\x1b\]0;pwned\\x07|y\\x1b\[2J' -- "$TOOL" compile "$WORK/escape.json" --check-only \
    --device "$DEVICE_JSON"
if grep -q $'\x1b' "$WORK/names_escaped_in_compile.out"; then
    failed=$((failed + 1)); echo "FAIL names_raw_in_compile: an ESC reached the output"
else
    passed=$((passed + 1)); echo "ok names_raw_in_compile"
fi

# The environment the library reads. CUDNNFE_LOG_DEST naming a FIFO or a link: the library
# neither waits for a reader nor follows the link; the log goes to stderr, which says why.
mkfifo "$WORK/log.fifo"
expect log_dest_fifo_does_not_block 0 'CUDNNFE_LOG_DEST .*log.fifo is not used' -- \
    env CUDNNFE_LOG_LEVEL=info CUDNNFE_LOG_DEST="$WORK/log.fifo" timeout 60 "$TOOL" info
expect log_dest_fifo_untouched_when_off 0 -- \
    env CUDNNFE_LOG_DEST="$WORK/log.fifo" timeout 60 "$TOOL" info
ln -s "$WORK/log.target" "$WORK/log.link"
expect log_dest_link_not_followed 0 'CUDNNFE_LOG_DEST .*log.link is not used' -- \
    env CUDNNFE_LOG_LEVEL=info CUDNNFE_LOG_DEST="$WORK/log.link" "$TOOL" info
if [ -e "$WORK/log.target" ]; then
    failed=$((failed + 1)); echo "FAIL log_dest_link_target_untouched: the library wrote through the link"
else
    passed=$((passed + 1)); echo "ok log_dest_link_target_untouched"
fi

# A setuid program's environment belongs to the user who started it: CUDNNFE_CUDNN_LIBRARY (a
# library the loader would open) is ignored there. The probe loads libcudnnfe by its path and
# asks for cuDNN's version; the planted library leaves a marker when it is loaded. Run plainly,
# the plant is loaded (so the case can fail); run setuid to another user, it must not be.
LIBRARY=$(ls "$(dirname "$(dirname "$(dirname "$TOOL")")")"/libcudnnfe.so* 2>/dev/null | head -1)
if [ "$(id -u)" != 0 ]; then
    skip setuid_environment_ignored "running a program setuid to another user needs root"
elif ! command -v cc >/dev/null || [ -z "$LIBRARY" ]; then
    skip setuid_environment_ignored "needs a C compiler and the library next to the tool"
else
    probe_dir=$(mktemp -d /tmp/cudnnfe-setuid-XXXXXX)
    chmod 0755 "$probe_dir"
    cat >"$probe_dir/plant.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen(getenv("PLANT_MARKER"), "w");
    if (f) fclose(f);
}
C
    cat >"$probe_dir/probe.c" <<'C'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    int (*version)(int64_t *) = (int (*)(int64_t *))dlsym(lib, "fe_cudnn_version");
    int64_t v = 0;
    if (version) version(&v);
    return 0;
}
C
    if cc -shared -fPIC -o "$probe_dir/plant.so" "$probe_dir/plant.c" && cc -o "$probe_dir/probe" "$probe_dir/probe.c" -ldl; then
        chmod 0755 "$probe_dir/plant.so" "$probe_dir/probe"
        mkdir -m 1777 "$probe_dir/out"
        env CUDNNFE_CUDNN_LIBRARY="$probe_dir/plant.so" PLANT_MARKER="$probe_dir/out/plain" "$probe_dir/probe" "$LIBRARY" \
            2>"$probe_dir/plain.err"
        plain_rc=$?
        chown 65534 "$probe_dir/probe" && chmod u+s "$probe_dir/probe"
        env CUDNNFE_CUDNN_LIBRARY="$probe_dir/plant.so" PLANT_MARKER="$probe_dir/out/setuid" "$probe_dir/probe" "$LIBRARY" \
            2>/dev/null
        if [ "$plain_rc" -ne 0 ]; then
            # A sanitizer build of the library loads only into programs built with the sanitizer
            # (ASan: "runtime does not come first"): the probe cannot run it.
            skip setuid_environment_ignored "a plain program cannot load $LIBRARY: $(head -c 160 "$probe_dir/plain.err" | tr -d "\n")"
        elif [ ! -e "$probe_dir/out/plain" ]; then
            failed=$((failed + 1)); echo "FAIL setuid_environment_ignored: the planted library was not loaded even plainly"
        elif [ -e "$probe_dir/out/setuid" ]; then
            failed=$((failed + 1)); echo "FAIL setuid_environment_ignored: a setuid program loaded the library CUDNNFE_CUDNN_LIBRARY named"
        else
            passed=$((passed + 1)); echo "ok setuid_environment_ignored"
        fi
    else
        skip setuid_environment_ignored "the probe did not compile"
    fi
    rm -rf "$probe_dir"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
