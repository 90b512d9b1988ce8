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

HAVE_GPU=0
"$TOOL" info 2>/dev/null | grep -q '^GPU 0:' && HAVE_GPU=1
if [ "$HAVE_GPU" = 0 ] && [ -e "$CUDA_HOME/lib/stubs/libcuda.so" -o -e "$CUDA_HOME/lib64/stubs/libcuda.so" ]; then
    mkdir -p "$WORK/stub-driver"
    stub=$CUDA_HOME/lib/stubs/libcuda.so
    [ -e "$stub" ] || stub=$CUDA_HOME/lib64/stubs/libcuda.so
    ln -s "$stub" "$WORK/stub-driver/libcuda.so.1"
    export LD_LIBRARY_PATH="$WORK/stub-driver:$LD_LIBRARY_PATH"
fi

# --- usage and help -----------------------------------------------------------------------
expect help 0 '^usage: cudnnfe <command>' 'exit codes: 0' -- "$TOOL" --help
expect help_command 0 '^usage: cudnnfe compile' -- "$TOOL" help compile
for command in info device compile bench inspect; do
    expect "help_$command" 0 "^usage: cudnnfe $command" -- "$TOOL" "$command" --help
done
expect version 0 '^cudnnfe [0-9]+\.[0-9]+\.[0-9]+$' -- "$TOOL" --version
expect no_command 1 '^usage: cudnnfe' -- "$TOOL"
expect unknown_command 1 "unknown command 'frobnicate'" -- "$TOOL" frobnicate
expect bad_flag 1 "cudnnfe compile: unknown option '--bogus' \(see 'cudnnfe compile --help'\)" -- "$TOOL" compile --bogus x.json
expect flag_needs_value 1 "option '-o' needs a value" -- "$TOOL" compile x.json -o
expect flag_takes_no_value 1 "option '--json' takes no value" -- "$TOOL" inspect --json=yes x.plan
expect bad_number 1 "--iterations: 'many' is not a whole number" -- "$TOOL" bench x.json --iterations many
expect number_out_of_range 1 "--autotune: 0 is outside 1\.\.1000" -- "$TOOL" compile x.json -o "$WORK/p" --autotune 0
expect extra_argument 1 "unexpected argument 'extra'" -- "$TOOL" info extra
expect device_no_action 1 "say 'capture' or 'show'" -- "$TOOL" device
expect device_unknown_action 1 "unknown action 'steal'" -- "$TOOL" device steal

# --- info and device ----------------------------------------------------------------------
if [ "$HAVE_GPU" = 1 ]; then
    expect info 0 '^cuDNN: +[0-9]+\.[0-9]+\.[0-9]+' '^CUDA runtime: +[0-9]+\.[0-9]' '^CUDA driver: +[0-9]+\.[0-9]' \
        '^GPU 0: .*compute capability [0-9]+\.[0-9]' -- "$TOOL" info
    expect device_capture 0 'captured GPU 0: ' -- "$TOOL" device capture -o "$WORK/gpu.json"
    expect device_show_captured 0 'compute capability' -- "$TOOL" device show "$WORK/gpu.json"
    expect device_capture_no_such_gpu 1 'GPU 4096 does not exist' -- "$TOOL" device capture --gpu 4096
else
    expect info 0 '^cuDNN: +[0-9]+\.[0-9]+\.[0-9]+' '^CUDA driver: +unknown' '^GPUs: +(none|unknown)' -- "$TOOL" info
    expect device_capture_no_gpu 2 'cudnnfe device capture: no GPU on this machine' -- "$TOOL" device capture -o "$WORK/gpu.json"
    expect device_capture_no_gpu_writes_nothing 0 -- test ! -e "$WORK/gpu.json"
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
    expect compile_no_gpu_no_device 2 'no GPU on this machine: give --device GPU.json' -- "$TOOL" compile "$WORK/one.json" -o "$WORK/plans"
    expect compile_autotune_no_gpu 2 '--autotune needs a GPU and this machine has none' -- \
        "$TOOL" compile "$WORK/one.json" -o "$WORK/plans" --autotune 4
    expect bench_no_gpu 2 'cudnnfe bench: no GPU on this machine' -- "$TOOL" bench "$WORK/one.json"
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

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
