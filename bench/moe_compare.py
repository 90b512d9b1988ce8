"""The MoE grouped matmul at Mixtral and other sizes: cudnnfe's grouped op (bench/moe_bench) with its
plan chosen by heuristics, by autotuning and by a knob search, against cudnnfe's per-expert loop (the
same program) and PyTorch: a loop of one torch.mm per expert, and torch._grouped_mm where this PyTorch
has it.

Usage: python3 bench/moe_compare.py BUILD_DIR [OUT_FILE]

Each token picks TOP_K distinct experts at random; the routed rows (bf16, random in [-1, 1]) are
grouped by expert, each expert's weight [K, N] stored K-contiguous. moe_bench times its two contenders
with CUDA events (its own rounds, medians); PyTorch's are timed as norm_compare.time_graph does
(CALLS calls captured in a CUDA graph, median of BATCHES replays) over the same number of rows per
expert as drawn here. ROUNDS rounds interleave the implementations; the table has their medians.
TFLOP/s counts 2 * rows * K * N.
"""
import os
import statistics
import subprocess
import sys

import torch

from norm_compare import BATCHES, CALLS, SETS, time_graph

# (label, experts, top_k, tokens, K, N)
SHAPES = [("Mixtral 8x7B up projection, 4096 tokens", 8, 2, 4096, 4096, 14336),
          ("the same, a 16-token decode step", 8, 2, 16, 4096, 14336),
          ("128 experts (gpt-oss-120b sizes), 2048 tokens", 128, 4, 2048, 2880, 5760),
          ("64 small experts, 1024 tokens", 64, 6, 1024, 2048, 1408)]
ROUNDS = int(os.environ.get("MOE_ROUNDS", "3"))
# How cudnnfe's grouped plan is chosen: heuristics, tuned (autotuning) and knobs (a knob search,
# the slowest to build); MOE_CHOICES takes a comma-separated subset.
CHOICES = os.environ.get("MOE_CHOICES", "heuristics,tuned,knobs").split(",")


def moe_bench(build, shape, choice):
    _, experts, top_k, tokens, k, n = shape
    line = subprocess.run([os.path.join(build, "bench", "moe_bench"), str(experts), str(top_k), str(tokens), str(k),
                           str(n), "5", "20", choice], check=True, capture_output=True, text=True).stdout.strip()
    fields = dict(kv.split("=", 1) for kv in line.split())
    if "error" in fields:
        raise RuntimeError(line)
    return fields


def routed_counts(experts, top_k, tokens, generator):
    """Rows per expert when every token picks top_k distinct experts at random."""
    picks = torch.stack([torch.randperm(experts, generator=generator)[:top_k] for _ in range(tokens)])
    return torch.bincount(picks.flatten(), minlength=experts).tolist()


def torch_contenders(shape, generator):
    _, experts, top_k, tokens, k, n = shape
    counts = routed_counts(experts, top_k, tokens, generator)
    rows = sum(counts)
    sets = []
    for _ in range(SETS):
        x = torch.rand(rows, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
        # [E, N, K] transposed: each expert's [K, N] weight with K contiguous, as cudnnfe reads it.
        w = (torch.rand(experts, n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1).transpose(1, 2)
        sets.append((x, w))
    bounds = [0]
    for c in counts:
        bounds.append(bounds[-1] + c)
    offsets = torch.tensor(bounds[1:], device="cuda", dtype=torch.int32)

    def loop(x, w):
        for e in range(experts):
            if counts[e]:
                torch.mm(x[bounds[e]:bounds[e + 1]], w[e])

    contenders = {"torch loop of mm": loop}
    if hasattr(torch, "_grouped_mm"):
        contenders["torch._grouped_mm"] = lambda x, w: torch._grouped_mm(x, w, offs=offsets)
    return rows, sets, contenders


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    generator = torch.Generator().manual_seed(1234)
    table = ("| shape | rows | implementation | ms | TFLOP/s | vs the cudnnfe loop | note |\n"
             "|---|---|---|---|---|---|---|\n")
    for shape in SHAPES:
        label, experts, top_k, tokens, k, n = shape
        rows, sets, contenders = torch_contenders(shape, generator)
        times, notes = {}, {}
        for _ in range(ROUNDS):
            for choice in CHOICES:
                fields = moe_bench(build, shape, choice)
                times.setdefault(f"cudnnfe grouped ({choice})", []).append(float(fields["grouped_ms"]))
                notes[f"cudnnfe grouped ({choice})"] = "plan " + fields["grouped_engine"]
                times.setdefault("cudnnfe loop", []).append(float(fields["loop_ms"]))
                notes["cudnnfe loop"] = f"{fields['experts_with_rows']} matmuls"
            for name, fn in contenders.items():
                try:
                    times.setdefault(name, []).append(time_graph(fn, sets) / 1000)
                    notes[name] = "eager, CUDA graph replay"
                except RuntimeError as e:  # an op this PyTorch or GPU lacks
                    notes[name] = "failed: " + str(e).splitlines()[0][:80]
        loop_ms = statistics.median(times["cudnnfe loop"])
        for name, values in times.items():
            ms = statistics.median(values)
            tflops = 2 * rows * k * n / (ms * 1e9)
            table += f"| {label} | {rows} | {name} | {ms:.4f} | {tflops:.0f} | {loop_ms / ms:.2f}x | {notes[name]} |\n"
        for name in contenders:
            if name not in times:
                table += f"| {label} | {rows} | {name} | - | - | - | {notes.get(name, '')} |\n"
        print("\n".join(line for line in table.splitlines() if line.startswith(f"| {label} |")), flush=True)
        del sets
        torch.cuda.empty_cache()
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}\n"
              f"method: moe_bench's CUDA events (5 rounds of 20 calls, medians) for cudnnfe; {CALLS} calls over "
              f"{SETS} input sets captured in a CUDA graph, median of {BATCHES} replays for PyTorch; median of "
              f"{ROUNDS} interleaved rounds; random bf16 inputs in [-1, 1]\n")
    print(header + table)
    if out:
        out.write(header + "\n" + table)


if __name__ == "__main__":
    main()
