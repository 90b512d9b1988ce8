"""Kernel time of the seed graphs: cudnnfe (kernel_bench) against PyTorch, in one run.

Usage: python3 bench/torch_compare.py BUILD_DIR [OUT_FILE]

Both sides are timed the same way: batches of calls between two CUDA events, rotating over 4
input sets, median over batches, once captured in a CUDA graph (kernel time) and once issued
eagerly (launch cost included). PyTorch runs the same operation with the
same dtypes and layout: conv2d on channels-last fp16 tensors (cudnn.benchmark off, then on),
and bmm + bias (two kernels) and baddbmm (one fused kernel) in fp16.
"""
import os
import statistics
import subprocess
import sys
import time

import torch

BATCHES, CALLS, SETS = 30, 50, 4


def time_torch(fn, sets, settle_s=0.0):
    """(eager, graphed) median microseconds per call; with settle_s, the GPU idles that long
    after the first call (where cudnn.benchmark times its algorithms) before the timed ones."""
    fn(*sets[0])
    torch.cuda.synchronize()
    time.sleep(settle_s)
    for i in range(1, 50):
        fn(*sets[i % SETS])
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    eager = []
    for _ in range(BATCHES):
        start.record()
        for i in range(CALLS):
            fn(*sets[i % SETS])
        stop.record()
        stop.synchronize()
        eager.append(start.elapsed_time(stop) * 1000.0 / CALLS)
    # The same calls captured in a CUDA graph: kernel time without Python's launch cost.
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(3):
            fn(*sets[i % SETS])
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(CALLS):
            fn(*sets[i % SETS])
    graph.replay()
    torch.cuda.synchronize()
    graphed = []
    for _ in range(BATCHES):
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        graphed.append(start.elapsed_time(stop) * 1000.0 / CALLS)
    return statistics.median(eager), statistics.median(graphed)


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    rows = []
    env = dict(os.environ)
    for graph in ("conv", "matmul_bias"):
        line = subprocess.run([os.path.join(build, "bench", "kernel_bench"), graph, str(BATCHES), str(CALLS)],
                              check=True, capture_output=True, text=True, env=env).stdout.strip()
        fields = dict(kv.split("=", 1) for kv in line.split())
        rows.append((graph, "cudnnfe", (float(fields["eager_us"]), float(fields["graph_us"])), fields["engine"]))

    dev = "cuda"
    conv_sets = [(torch.randn(8, 64, 56, 56, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last),
                  torch.randn(32, 64, 3, 3, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last))
                 for _ in range(SETS)]
    conv = lambda x, w: torch.nn.functional.conv2d(x, w, padding=1)
    torch.backends.cudnn.benchmark = False
    rows.append(("conv", "torch conv2d", time_torch(conv, conv_sets), "cudnn.benchmark=False"))
    torch.backends.cudnn.benchmark = True
    rows.append(("conv", "torch conv2d", time_torch(conv, conv_sets), "cudnn.benchmark=True"))

    mm_sets = [(torch.randn(16, 128, 512, device=dev, dtype=torch.float16),
                torch.randn(16, 512, 128, device=dev, dtype=torch.float16),
                torch.randn(1, 128, 128, device=dev, dtype=torch.float16)) for _ in range(SETS)]
    rows.append(("matmul_bias", "torch matmul + d", time_torch(lambda a, b, d: torch.matmul(a, b) + d, mm_sets),
                 "two kernels"))
    rows.append(("matmul_bias", "torch baddbmm", time_torch(
        lambda a, b, d: torch.baddbmm(d, a, b), mm_sets), "one kernel"))

    flops = {"conv": 2.0 * 8 * 32 * 56 * 56 * 64 * 9, "matmul_bias": 2.0 * 16 * 128 * 128 * 512}
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}\n"
              f"method: {CALLS} calls over {SETS} rotating input sets, timed with CUDA events, median of "
              f"{BATCHES} batches; kernel time from a CUDA graph of the calls (no launch gaps), eager time "
              f"from the calls issued back to back (host launch cost included)\n")
    table = ("| graph | implementation | kernel us/call (CUDA graph) | TFLOP/s | eager us/call | note |\n"
             "|---|---|---|---|---|---|\n")
    for graph, impl, (eager, graphed), note in rows:
        table += (f"| {graph} | {impl} | {graphed:.2f} | {flops[graph] / (graphed * 1e-6) / 1e12:.1f} | "
                  f"{eager:.2f} | {note} |\n")
    print(header + table)
    if out:
        out.write(header + "\n" + table)


if __name__ == "__main__":
    main()
