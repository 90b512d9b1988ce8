"""Layer and RMS normalization, forward and backward: cudnnfe (bench/norm_bench) against PyTorch
eager and torch.compile, as effective memory bandwidth beside the device's own copy bandwidth.

Usage: python3 bench/norm_compare.py BUILD_DIR [OUT_FILE]

bfloat16 activations and weights, float statistics, token x hidden shapes below. Every
implementation is timed the same way: CALLS calls (alternating two input sets) captured in one
CUDA graph, replayed between CUDA events, median over BATCHES replays. GB/s counts the ideal
traffic, each tensor read or written once (the same formula as norm_bench):
  forward:  read x, scale (, bias); write y and the statistics (mean and 1/std, or 1/rms)
  backward: read dy, x, scale and the statistics; write dx, dscale (, dbias)
The device's bandwidth is norm_bench's device-to-device cudaMemcpyAsync of a 1 GiB buffer, timed
the same way and counted as read + write; "% of copy" is GB/s over that.

What runs on the PyTorch side: forward, F.layer_norm / F.rms_norm; layernorm backward,
aten.native_layer_norm_backward (the kernel autograd calls) from the forward's mean and rstd;
rmsnorm backward in eager, torch.autograd.grad through F.rms_norm (whatever eager autograd runs),
compiled, the backward formula dx = rstd * (g - xhat * mean(g * xhat)), dw = sum(dy * xhat) with
g = dy * w, xhat = x * rstd, which Inductor fuses like its own decomposition.
"""
import os
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F

SHAPES = [(8192, 4096), (16384, 8192), (4096, 12288)]
BATCHES, CALLS, SETS = 20, 10, 2
EPS = 1e-5
COPY_BYTES = 1 << 30
torch._dynamo.config.cache_size_limit = 64


def traffic(op, direction, tokens, hidden):
    """Ideal bytes of one call (bf16 tensors, float statistics)."""
    elements, stats = tokens * hidden, (1 if op == "rmsnorm" else 2)
    if direction == "fwd":
        return 2 * (2 * elements + (1 if op == "rmsnorm" else 2) * hidden) + 4 * stats * tokens
    return 2 * (3 * elements + (2 if op == "rmsnorm" else 3) * hidden) + 4 * stats * tokens


def time_graph(fn, sets, stream=None):
    """Median microseconds per call of fn(*set), CALLS calls captured in a CUDA graph on `stream`."""
    stream = stream or torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(3):
            fn(*sets[i % SETS])
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for i in range(CALLS):
            fn(*sets[i % SETS])
    graph.replay()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(BATCHES):
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0 / CALLS)
    del graph
    return statistics.median(times)


def run_bench(build, *args):
    line = subprocess.run([os.path.join(build, "bench", "norm_bench"), *map(str, args)], check=True,
                          capture_output=True, text=True).stdout.strip()
    fields = dict(kv.split("=", 1) for kv in line.split())
    if "error" in fields:
        raise RuntimeError(line)
    return fields


def rms_backward(dy, x, rstd, w):
    xhat = x.float() * rstd
    g = dy.float() * w.float()
    dx = rstd * (g - xhat * (g * xhat).mean(-1, keepdim=True))
    dw = (dy.float() * xhat).sum(0)
    return dx.to(x.dtype), dw.to(w.dtype)


def torch_cases(op, direction, tokens, hidden):
    """(implementation, fn, sets, note, stream) for PyTorch eager and torch.compile; stream is where
    fn must be captured (None: any)."""
    dev, bf16 = "cuda", torch.bfloat16

    def tensors():
        x = torch.randn(tokens, hidden, device=dev, dtype=bf16)
        w = torch.rand(hidden, device=dev, dtype=bf16) + 0.5
        b = torch.randn(hidden, device=dev, dtype=bf16)
        dy = torch.randn(tokens, hidden, device=dev, dtype=bf16)
        return x, w, b, dy

    raw = [tensors() for _ in range(SETS)]
    if direction == "fwd":
        if op == "layernorm":
            fn = lambda x, w, b: F.layer_norm(x, (hidden,), w, b, EPS)
            sets = [(x, w, b) for x, w, b, _ in raw]
        else:
            fn = lambda x, w: F.rms_norm(x, (hidden,), w, EPS)
            sets = [(x, w) for x, w, _, _ in raw]
        yield "torch eager", fn, sets, "", None
        yield "torch.compile", torch.compile(fn, dynamic=False), sets, "Inductor (Triton)", None
        return
    if op == "layernorm":
        sets = []
        for x, w, b, dy in raw:
            _, mean, rstd = torch.ops.aten.native_layer_norm(x, [hidden], w, b, EPS)
            sets.append((dy, x, mean, rstd, w, b))
        fn = lambda dy, x, mean, rstd, w, b: torch.ops.aten.native_layer_norm_backward(
            dy, x, [hidden], mean, rstd, w, b, [True, True, True])
        yield "torch eager", fn, sets, "aten.native_layer_norm_backward", None
        yield "torch.compile", torch.compile(fn, dynamic=False), sets, "Inductor (Triton)", None
        return
    # rmsnorm backward: eager through autograd (one saved forward per set), compiled from the formula.
    # Autograd runs backward kernels on the stream their forward ran on: run the forwards on the
    # stream the backward calls are then captured on.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    graphs = []
    with torch.cuda.stream(side):
        for x, w, _, dy in raw:
            x, w = x.detach().requires_grad_(), w.detach().requires_grad_()
            graphs.append((F.rms_norm(x, (hidden,), w, EPS), x, w, dy))
    note = type(graphs[0][0].grad_fn).__name__
    yield ("torch eager", lambda y, x, w, dy: torch.autograd.grad(y, (x, w), dy, retain_graph=True), graphs,
           "autograd (" + note + ")", side)
    sets = []
    for x, w, _, dy in raw:
        x, w = x.detach(), w.detach()
        rstd = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + EPS)
        sets.append((dy, x, rstd, w))
    yield ("torch.compile", torch.compile(rms_backward, dynamic=False), sets, "Inductor (Triton), from the formula",
           None)


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    copy = run_bench(build, "copy", COPY_BYTES, BATCHES, CALLS)
    copy_gbps = float(copy["gbps"])
    rows = []
    for op in ("layernorm", "rmsnorm"):
        for direction in ("fwd", "bwd"):
            for tokens, hidden in SHAPES:
                fields = run_bench(build, op, direction, tokens, hidden, BATCHES, CALLS)
                rows.append((op, direction, tokens, hidden, "cudnnfe", float(fields["graph_us"]), fields["engine"]))
                print(rows[-1], flush=True)
    for op in ("layernorm", "rmsnorm"):
        for direction in ("fwd", "bwd"):
            for tokens, hidden in SHAPES:
                for impl, fn, sets, note, stream in torch_cases(op, direction, tokens, hidden):
                    try:
                        us = time_graph(fn, sets, stream)
                    except Exception as e:  # report, keep going
                        print(f"{op} {direction} {tokens}x{hidden} {impl}: {e}", file=sys.stderr)
                        continue
                    rows.append((op, direction, tokens, hidden, impl, us, note))
                    print(rows[-1], flush=True)
                torch.cuda.empty_cache()

    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}\n"
              f"copy bandwidth (cudaMemcpyAsync device to device, {COPY_BYTES >> 20} MiB, read + write): "
              f"{copy_gbps:.0f} GB/s\n"
              f"method: {CALLS} calls over {SETS} input sets captured in a CUDA graph, median of {BATCHES} "
              f"replays; GB/s of the ideal traffic (bf16 tensors, float statistics)\n")
    table = ("| op | dir | tokens x hidden | implementation | us/call | GB/s | % of copy | note |\n"
             "|---|---|---|---|---|---|---|---|\n")
    order = {"cudnnfe": 0, "torch eager": 1, "torch.compile": 2}
    rows.sort(key=lambda r: (r[0], r[1] == "bwd", SHAPES.index((r[2], r[3])), order[r[4]]))
    for op, direction, tokens, hidden, impl, us, note in rows:
        gbps = traffic(op, direction, tokens, hidden) / (us * 1e3)
        table += (f"| {op} | {direction} | {tokens}x{hidden} | {impl} | {us:.1f} | {gbps:.0f} | "
                  f"{100 * gbps / copy_gbps:.0f}% | {note} |\n")
    print(header + table)
    if out:
        out.write(header + "\n" + table)


if __name__ == "__main__":
    main()
