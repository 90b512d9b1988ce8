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
for command in info device compile bench inspect schema; do
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
expect knob_search_alone 1 '--knob-search extends autotuning: give --autotune N too' -- \
    "$TOOL" compile x.json -o "$WORK/p" --knob-search 2
expect bench_knob_search_alone 1 '--knob-search extends autotuning: give --autotune N too' -- \
    "$TOOL" bench x.json --knob-search 2
expect extra_argument 1 "unexpected argument 'extra'" -- "$TOOL" info extra
expect schema 0 '"entry_point":"fe_graph_conv_fprop"' '"c_type":"fe_resample_options"' -- "$TOOL" schema
expect schema_extra_argument 1 "cudnnfe schema: unexpected argument 'x'" -- "$TOOL" schema x
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
        '^  output y +uid=[0-9]+ +half +\[4, 64, 16, 16\]$' -- "$TOOL" inspect "$WORK/plans/small_conv.plan"
    expect inspect_json 0 '^valid$' -- sh -c "\"$TOOL\" inspect --json \"$WORK/plans/small_conv.plan\" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r[\"format\"] == 1 and r[\"size_bytes\"] > 0, r
assert r[\"cudnn_version\"].startswith(\"9.\") and r[\"library_version\"], r
assert r[\"device\"].startswith(\"NVIDIA H100 80GB HBM3\") and r[\"engine\"].startswith(\"eng\"), r
assert r[\"workspace_bytes\"] >= 0 and r[\"engine_index\"] >= 0 and r[\"autotuned_us\"] is None and r[\"attention\"] == [], r
assert [(u[\"name\"], u[\"role\"], u[\"uid\"]) for u in r[\"uids\"]][:2] == [(\"x\", \"input\", 1), (\"w\", \"input\", 2)], r[\"uids\"]
assert r[\"graph\"][\"name\"] == \"small_conv\" and r[\"graph\"][\"ops\"][0][\"op\"] == \"conv_fprop\", r[\"graph\"]
print(\"valid\")'"
    head -c 1000 "$WORK/plans/small_conv.plan" >"$WORK/truncated.plan"
    expect inspect_truncated 1 'fe_serialized_describe: the serialized graph is corrupted or truncated' -- \
        "$TOOL" inspect "$WORK/truncated.plan"
    # Terminal control sequences in a blob's strings are printed escaped, never as they are.
    python3 - "$WORK/plans/small_conv.plan" "$WORK/escapes.plan" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
out, at = bytearray(data[:24]), 24
while at < len(data) - 8:
    tag, length = struct.unpack_from('<IQ', data, at)
    body = data[at + 12:at + 12 + length]
    if tag == 0x46505254:  # FPRT: the target's name
        body = b'\x1b]0;retitled\x07\x1b[2J' + body
    if tag == 0x4F505453:  # OPTS: a C1 CSI, raw and as UTF-8, and DEL
        body = body + b' \x9b31m \xc2\x9b32m \x7f'
    out += struct.pack('<IQ', tag, len(body)) + body
    at += 12 + length
h = 14695981039346656037
for c in out:
    h = ((h ^ c) * 1099511628211) & 0xffffffffffffffff
open(sys.argv[2], 'wb').write(bytes(out) + struct.pack('<Q', h))
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
    if [ "$HAVE_GPU" = 0 ]; then
        # A runtime-compiled engine lists (the stub driver) but cannot compile without a GPU.
        expect compile_needs_gpu_to_finish 1 '^\[1/2\] fine \.\.\. failed$' \
            "cudnnfe compile: .*second_graph_broken.json, graph 1 of 2 \(fine\): fe_graph_build: graph 'fine': none of [0-9]+ viable engine configs built a plan" -- \
            "$TOOL" compile "$FIXTURES/second_graph_broken.json" --device "$DEVICE_JSON" -o "$WORK/unfinished"
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
expect bench_malformed_json_or_no_gpu "$((2 - HAVE_GPU))" "$([ "$HAVE_GPU" = 1 ] && echo 'line 5: expected' || echo 'no GPU on this machine')" -- \
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

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
