"""ResNet-50's convolutions in the three directions of training: cudnnfe (bench/conv_bench) against
PyTorch with torch.backends.cudnn.benchmark=True, in one run.

Usage: python3 bench/conv_compare.py BUILD_DIR [OUT_FILE] [fp16|bf16|all] [fprop|dgrad|wgrad|all]

Batch 64, channels-last fp16 / bf16, the 23 distinct convolutions of ResNet-50 v1.5. Both sides
are timed the same way (kernel_bench's method, through torch_compare.time_torch): batches of
calls between two CUDA events over 4 rotating input sets, median over batches, once captured in
a CUDA graph (kernel time: the TFLOP/s) and once issued eagerly. Each PyTorch call returns a new
tensor in the block its predecessor freed, so conv_bench writes one output buffer too (rotating
outputs costs a memory-bound layer the eviction of the last output's dirty lines from L2). Each
side idles SETTLE_MS between its tuning (cudnn.benchmark's first call, cudnnfe's autotuned build)
and its timed calls: tuning leaves the GPU near its power limit with its clock lowered for a
while, and the longer tuning (cudnnfe's, with the knob search) would otherwise pay for it. PyTorch runs conv2d for fprop and
aten.convolution_backward with one output for dgrad (grad_input) and wgrad (grad_weight), which
is what autograd calls; with cudnn.benchmark=True it times cuDNN's algorithms on first use and
keeps the fastest. cudnnfe takes the first plan that builds from its default heuristics (mode A,
then FALLBACK), or, with CUDNNFE_BENCH_AUTOTUNE=N in the environment, the fastest of the first N
candidates timed on the GPU (fe_build_options.autotune).
The totals weight each shape by how often ResNet-50 has it (53 convolutions).
"""
import os
import shlex
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_compare  # noqa: E402  (the shared timing method)

BATCHES, CALLS, SETS = 10, 20, 4
SETTLE_MS = 300  # idle time between a side's tuning and its timing (conv_bench.c says why)
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def cudnnfe_rows(build, types, dirs):
    """One dict per configuration line of conv_bench."""
    command = [os.path.join(build, "bench", "conv_bench"), "all", types, dirs, str(BATCHES), str(CALLS)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    rows = []
    for line in process.stdout:
        try:
            items = shlex.split(line.strip())
        except ValueError:  # an error message with an unbalanced quote
            items = line.split()
        fields = dict(item.split("=", 1) for item in items if "=" in item)
        if "layer" not in fields:
            continue
        print("cudnnfe", line.strip(), file=sys.stderr, flush=True)
        rows.append(fields)
    if process.wait() != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {process.returncode}")
    return rows


def torch_call(row):
    """(function, input sets) for a configuration, on channels-last tensors."""
    n, c, k, h = (int(row[key]) for key in ("n", "c", "k", "h"))
    r, stride, pad, out = (int(row[key]) for key in ("r", "stride", "pad", "out"))
    dtype = DTYPES[row["type"]]

    def nhwc(*shape):
        return torch.randn(*shape, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)

    sets = [(nhwc(n, c, h, h), nhwc(k, c, r, r), nhwc(n, k, out, out)) for _ in range(SETS)]
    s, p = [stride, stride], [pad, pad]
    if row["dir"] == "fprop":
        return (lambda x, w, dy: torch.nn.functional.conv2d(x, w, stride=stride, padding=pad)), sets
    mask = [True, False, False] if row["dir"] == "dgrad" else [False, True, False]
    index = 0 if row["dir"] == "dgrad" else 1
    return (lambda x, w, dy: torch.ops.aten.convolution_backward(dy, x, w, None, s, p, [1, 1], False, [0, 0], 1,
                                                                 mask)[index]), sets


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    types = sys.argv[3] if len(sys.argv) > 3 else "all"
    dirs = sys.argv[4] if len(sys.argv) > 4 else "all"
    torch_compare.BATCHES, torch_compare.CALLS, torch_compare.SETS = BATCHES, CALLS, SETS

    os.environ["CUDNNFE_BENCH_SETTLE_MS"] = str(SETTLE_MS)
    rows = cudnnfe_rows(build, types, dirs)
    torch.backends.cudnn.benchmark = True
    for row in rows:
        fn, sets = torch_call(row)
        try:
            row["torch_eager_us"], row["torch_graph_us"] = torch_compare.time_torch(fn, sets, SETTLE_MS / 1e3)
        except RuntimeError as error:  # a shape PyTorch refuses: report it, go on
            row["torch_error"] = str(error).splitlines()[0]
        print("torch", row["layer"], row["dir"], row["type"], row.get("torch_graph_us", row.get("torch_error")),
              file=sys.stderr, flush=True)
        del sets
        torch.cuda.empty_cache()

    def flops(row):
        n, c, k, r, o = (int(row[key]) for key in ("n", "c", "k", "r", "out"))
        return 2.0 * n * k * c * r * r * o * o

    def tflops(row, key):
        return f"{flops(row) / (float(row[key]) * 1e-6) / 1e12:.1f}" if key in row else "n/a"

    autotune = int(os.environ.get("CUDNNFE_BENCH_AUTOTUNE", "0") or 0)
    search = int(os.environ.get("CUDNNFE_BENCH_KNOB_SEARCH", "0") or 0)
    how = (f"autotuned (fastest of the first {autotune} candidates, timed on the GPU)" if autotune > 0
           else "default heuristics (A, then FALLBACK), first plan that builds")
    if autotune > 0 and search > 0:
        how += f", then up to {search} rounds of knob search"
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}\n"
              f"ResNet-50 v1.5 convolutions, batch 64, channels-last, fp32 math; {CALLS} calls over {SETS} rotating "
              f"input sets, timed with CUDA events, median of {BATCHES} batches, after {SETTLE_MS} ms idle "
              f"following each side's tuning; kernel time from a CUDA graph of the calls. cudnnfe: {how}. PyTorch: "
              f"cudnn.benchmark=True.\n")
    table = ("| layer | count | dir | type | cudnnfe us | cudnnfe TFLOP/s | torch us | torch TFLOP/s | "
             "torch / cudnnfe time | cudnnfe engine | build ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    totals = {}
    for row in rows:
        ours = "graph_us" in row
        theirs = "torch_graph_us" in row
        ratio = f"{float(row['torch_graph_us']) / float(row['graph_us']):.2f}" if ours and theirs else "n/a"
        ours_us = row.get("graph_us", row.get("error", "n/a"))
        torch_us = f"{row['torch_graph_us']:.2f}" if theirs else row.get("torch_error", "n/a")
        table += (f"| {row['layer']} | {row['count']} | {row['dir']} | {row['type']} | {ours_us} | "
                  f"{tflops(row, 'graph_us')} | {torch_us} | {tflops(row, 'torch_graph_us')} | {ratio} | "
                  f"{row.get('engine', 'n/a')} | {row.get('build_ms', 'n/a')} |\n")
        if ours and theirs:
            total = totals.setdefault((row["type"], row["dir"]), [0.0, 0.0, 0.0])
            count = int(row["count"])
            total[0] += count * float(row["graph_us"])
            total[1] += count * row["torch_graph_us"]
            total[2] += count * flops(row)
    summary = ("\nWhole network (each shape times its count in ResNet-50):\n\n"
               "| type | dir | cudnnfe ms | torch ms | cudnnfe TFLOP/s | torch TFLOP/s | torch / cudnnfe time |\n"
               "|---|---|---|---|---|---|---|\n")
    for (dtype, direction), (ours, theirs, work) in sorted(totals.items()):
        summary += (f"| {dtype} | {direction} | {ours / 1e3:.3f} | {theirs / 1e3:.3f} | {work / (ours * 1e-6) / 1e12:.1f} | "
                    f"{work / (theirs * 1e-6) / 1e12:.1f} | {theirs / ours:.2f} |\n")
    print(header + "\n" + table + summary)
    if out:
        out.write(header + "\n" + table + summary)


if __name__ == "__main__":
    main()
