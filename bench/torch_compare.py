"""Kernel time of the seed graphs: cudnnfe (kernel_bench) against PyTorch, in one run.

Usage: python3 bench/torch_compare.py BUILD_DIR [OUT_FILE]

Both sides are timed the same way: batches of back-to-back calls between two CUDA events,
rotating over 4 input sets, median over batches. PyTorch runs the same operation with the
same dtypes and layout: conv2d on channels-last fp16 tensors (cudnn.benchmark off, then on),
and bmm + bias (two kernels) and baddbmm (one fused kernel) in fp16.
"""
import os
import statistics
import subprocess
import sys

import torch

BATCHES, CALLS, SETS = 30, 50, 4


def time_torch(fn, sets):
    for i in range(50):
        fn(*sets[i % SETS])
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    per_call = []
    for _ in range(BATCHES):
        start.record()
        for i in range(CALLS):
            fn(*sets[i % SETS])
        stop.record()
        stop.synchronize()
        per_call.append(start.elapsed_time(stop) * 1000.0 / CALLS)
    return statistics.median(per_call)


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    rows = []
    env = dict(os.environ)
    for graph in ("conv", "matmul_bias"):
        line = subprocess.run([os.path.join(build, "bench", "kernel_bench"), graph, str(BATCHES), str(CALLS)],
                              check=True, capture_output=True, text=True, env=env).stdout.strip()
        fields = dict(kv.split("=", 1) for kv in line.split())
        rows.append((graph, "cudnnfe", float(fields["median_us"]), fields["engine"]))

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
              f"method: median over {BATCHES} batches of {CALLS} back-to-back calls timed with CUDA events, "
              f"{SETS} rotating input sets\n")
    table = "| graph | implementation | median us/call | TFLOP/s | note |\n|---|---|---|---|---|\n"
    for graph, impl, us, note in rows:
        table += f"| {graph} | {impl} | {us:.2f} | {flops[graph] / (us * 1e-6) / 1e12:.1f} | {note} |\n"
    print(header + table)
    if out:
        out.write(header + "\n" + table)


if __name__ == "__main__":
    main()
