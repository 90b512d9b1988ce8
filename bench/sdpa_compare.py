"""Attention: cudnnfe (bench/sdpa_bench) against PyTorch's scaled_dot_product_attention with each
backend it has (cuDNN, flash, memory-efficient), same shapes, in one run.

Usage: python3 bench/sdpa_compare.py BUILD_DIR [OUT_FILE] [fwd|bwd|fp8|lowering|bwd-reference] [FIRST_ROW]

FIRST_ROW (fwd, bwd): start the sweep at that row (0-based), to finish a sweep in parts.
bwd-reference: the four backward configurations the reference frontend was measured on (same
H100, cuDNN 9.19, engine eng6_k24=26), cudnnfe and PyTorch's cuDNN backend in 5 interleaved
rounds (median of the rounds' medians), beside the reference's figures. bwd-rounds ROW...: the
same interleaved measure for rows of the bwd sweep (0-based), e.g. to settle a close row.

fp8: the FP8 (E4M3) forward of cudnnfe beside its bf16 forward and PyTorch's bf16 backends
(PyTorch's scaled_dot_product_attention takes no FP8 tensors). lowering: cudnnfe's forward
lowered as cuDNN's native SDPA operation and as the composite pattern, on graphs both take.

TFLOP/s count only unmasked score elements: forward = 2 matmuls = 4 * d flops per element,
backward = 5 matmuls = 10 * d flops per element. Each implementation: warm-up, then the median
of the timed calls (CUDA events). PyTorch's backward is timed as torch.autograd.grad of one
forward output (the backward kernels alone).
"""
import os
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ITERATIONS = 20
BACKENDS = [("torch cudnn", SDPBackend.CUDNN_ATTENTION), ("torch flash", SDPBackend.FLASH_ATTENTION),
            ("torch efficient", SDPBackend.EFFICIENT_ATTENTION)]


def configs():
    # Llama-style GQA: b=1, 64 query heads, 8 KV heads, d=128.
    for s in (2048, 4096, 8192, 16384):
        for causal in (False, True):
            yield ("gqa64/8", 1, 64, 8, s, 128, causal)
    # FlashAttention-3's sweep: 16k tokens in total, hidden 2048.
    for d in (64, 128, 256):
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            for causal in (False, True):
                yield ("fa3", 16384 // s, 2048 // d, 2048 // d, s, d, causal)


def unmasked(s, causal):
    return s * (s + 1) / 2 if causal else s * s


def time_torch(backend, b, hq, hk, s, d, causal, backward):
    grad = backward
    q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=grad)
    k = torch.randn(b, hk, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=grad)
    v = torch.randn(b, hk, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=grad)
    gqa = hq != hk
    try:
        with sdpa_kernel([backend]):
            if backward:
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
                d_out = torch.randn_like(out)
                fn = lambda: torch.autograd.grad(out, (q, k, v), d_out, retain_graph=True)
            else:
                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for _ in range(ITERATIONS):
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
        return statistics.median(times)
    except RuntimeError as e:
        return None


def run_cudnnfe(build, b, hq, hk, s, d, causal, dtype, direction, implementation="auto"):
    line = subprocess.run([os.path.join(build, "bench", "sdpa_bench"), str(b), str(hq), str(hk), str(s), str(s),
                           str(d), str(int(causal)), dtype, str(ITERATIONS), direction, implementation],
                          capture_output=True, text=True).stdout.strip()
    fields = dict(kv.split("=", 1) for kv in line.split(" ") if "=" in kv)
    return fields if "median_ms" in fields else {"error": line[:80]}


def other_table(build, mode, out):
    """fp8 and lowering comparisons: cudnnfe variants side by side (forward)."""
    if mode == "fp8":
        columns = ["cudnnfe fp8", "cudnnfe bf16", "torch cudnn bf16", "torch flash bf16"]
        rows = [c + (direction,) for direction in ("fwd", "bwd") for c in configs() if c[0] == "gqa64/8"]
    else:
        columns = ["cudnnfe native", "cudnnfe composite", "cudnnfe auto"]
        rows = [c + ("fwd",) for c in configs() if not c[6]]  # the native operation takes no mask here
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}; {mode}\n"
              f"TFLOP/s = (4 forward, 10 backward) * b * h_q * d * unmasked score elements / time "
              f"(median of {ITERATIONS})\n")
    table = "| pass | sweep | b | h_q/h_k | s | d | causal | " + " | ".join(columns) + " | notes |\n"
    table += "|---" * (8 + len(columns)) + "|\n"
    print(header + table, end="", flush=True)
    for sweep, b, hq, hk, s, d, causal, direction in rows:
        flops = (10.0 if direction == "bwd" else 4.0) * b * hq * d * unmasked(s, causal)
        tf = lambda ms: f"{flops / (ms * 1e-3) / 1e12:.0f}"
        cells, notes = [], []
        if mode == "fp8":
            runs = [run_cudnnfe(build, b, hq, hk, s, d, causal, "fp8", direction),
                    run_cudnnfe(build, b, hq, hk, s, d, causal, "bf16", direction)]
        else:
            runs = [run_cudnnfe(build, b, hq, hk, s, d, causal, "bf16", "fwd", impl)
                    for impl in ("native", "composite", "auto")]
        for r in runs:
            cells.append(tf(float(r["median_ms"])) if "median_ms" in r else "n/a")
            notes.append(r.get("engine", r.get("error", "")) + ("/" + r["implementation"] if "implementation" in r else ""))
        if mode == "fp8":
            for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
                ms = time_torch(backend, b, hq, hk, s, d, causal, direction == "bwd")
                cells.append("n/a" if ms is None else tf(ms))
        row = f"| {direction} | {sweep} | {b} | {hq}/{hk} | {s} | {d} | {'yes' if causal else 'no'} | " + \
              " | ".join(cells) + f" | {'; '.join(notes)} |\n"
        table += row
        print(row, end="", flush=True)
        torch.cuda.empty_cache()
    if out:
        out.write(header + "\n" + table)


# (b, h_q, h_k, s, d, causal, reference frontend's TFLOP/s)
REFERENCE_BACKWARD = [(4, 16, 16, 2048, 128, False, 482), (2, 8, 8, 4096, 256, False, 367),
                      (2, 6, 6, 1024, 64, True, 81), (1, 64, 8, 4096, 128, True, 443)]
ROUNDS = 5


def reference_table(build, out, rows=None):
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}; bf16; backward\n"
              f"TFLOP/s = 10 * b * h_q * d * unmasked score elements / time; median over {ROUNDS} interleaved "
              f"rounds of each one's median of {ITERATIONS}\n")
    table = ("| b | h_q/h_k | s | d | causal | cudnnfe | torch cudnn | reference frontend | cudnnfe / torch cudnn "
             "| cudnnfe / reference | cudnnfe engine |\n")
    table += "|---" * 11 + "|\n"
    print(header + table, end="", flush=True)
    for b, hq, hk, s, d, causal, reference in rows or REFERENCE_BACKWARD:
        flops = 10.0 * b * hq * d * unmasked(s, causal)
        ours, theirs, engine = [], [], ""
        for _ in range(ROUNDS):
            r = run_cudnnfe(build, b, hq, hk, s, d, causal, "bf16", "bwd")
            if "median_ms" in r:
                ours.append(float(r["median_ms"]))
                engine = r.get("engine", "")
            ms = time_torch(SDPBackend.CUDNN_ATTENTION, b, hq, hk, s, d, causal, True)
            if ms is not None:
                theirs.append(ms)
            torch.cuda.empty_cache()
        tf = lambda times: flops / (statistics.median(times) * 1e-3) / 1e12 if times else float("nan")
        a, t = tf(ours), tf(theirs)
        versus = f"{a / reference:.3f}" if reference else "n/a"
        row = (f"| {b} | {hq}/{hk} | {s} | {d} | {'yes' if causal else 'no'} | {a:.0f} | {t:.0f} | {reference or 'n/a'} | "
               f"{a / t:.3f} | {versus} | {engine} |\n")
        table += row
        print(row, end="", flush=True)
    if out:
        out.write(header + "\n" + table)


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    mode = sys.argv[3] if len(sys.argv) > 3 else "fwd"
    first_row = int(sys.argv[4]) if len(sys.argv) > 4 and mode in ("fwd", "bwd") else 0
    if mode in ("fp8", "lowering"):
        return other_table(build, mode, out)
    if mode == "bwd-reference":
        return reference_table(build, out)
    if mode == "bwd-rounds":
        sweep = list(configs())
        rows = [sweep[int(i)][1:] + (None,) for i in sys.argv[4:]]
        return reference_table(build, out, rows)
    backward = mode == "bwd"
    per_element = 10.0 if backward else 4.0
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}; bf16; "
              f"{'backward' if backward else 'forward'}\n"
              f"TFLOP/s = {per_element:g} * b * h_q * d * unmasked score elements / time (median of {ITERATIONS})\n")
    columns = ["cudnnfe"] + [name for name, _ in BACKENDS]
    table = "| sweep | b | h_q/h_k | s | d | causal | " + " | ".join(columns) + " | cudnnfe engine |\n"
    table += "|---" * (7 + len(columns)) + "|\n"
    print(header + table, end="", flush=True)
    for sweep, b, hq, hk, s, d, causal in list(configs())[first_row:]:
        flops = per_element * b * hq * d * unmasked(s, causal)
        line = subprocess.run([os.path.join(build, "bench", "sdpa_bench"), str(b), str(hq), str(hk), str(s), str(s),
                               str(d), str(int(causal)), "bf16", str(ITERATIONS), "bwd" if backward else "fwd"],
                              capture_output=True, text=True).stdout.strip()
        fields = dict(kv.split("=", 1) for kv in line.split(" ") if "=" in kv)
        cells = []
        if "median_ms" in fields:
            cells.append(f"{flops / (float(fields['median_ms']) * 1e-3) / 1e12:.0f}")
            engine = fields.get("engine", "")
        else:
            cells.append("n/a")
            engine = line[:80]
        for _, backend in BACKENDS:
            ms = time_torch(backend, b, hq, hk, s, d, causal, backward)
            cells.append("n/a" if ms is None else f"{flops / (ms * 1e-3) / 1e12:.0f}")
        row = f"| {sweep} | {b} | {hq}/{hk} | {s} | {d} | {'yes' if causal else 'no'} | " + " | ".join(cells) + \
              f" | {engine} |\n"
        table += row
        print(row, end="", flush=True)
        torch.cuda.empty_cache()
    if out:
        out.write(header + "\n" + table)


if __name__ == "__main__":
    main()
