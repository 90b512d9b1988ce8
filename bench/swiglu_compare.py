"""SwiGLU's first half, y = silu(x Wg) * (x Wu), bfloat16, Llama-size shapes: cudnnfe's one graph
(bench/swiglu_bench one), the same graph autotuned (swiglu_bench tuned), against the same split into two matmul graphs and a pointwise graph
(swiglu_bench split), PyTorch eager (F.silu(x @ Wg) * (x @ Wu)) and torch.compile of that.

Usage: python3 bench/swiglu_compare.py BUILD_DIR [OUT_FILE]

Random inputs in [-1, 1]. Every implementation is timed the same way (norm_compare.time_graph and
swiglu_bench: CALLS calls over two input sets captured in one CUDA graph, replayed between CUDA
events, median over BATCHES replays), in ROUNDS rounds that interleave the implementations; the
table has the median of the rounds. TFLOP/s counts the two matmuls (4 * tokens * model * hidden).
"""
import os
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F

from norm_compare import BATCHES, CALLS, SETS, time_graph

# (tokens, model, hidden): Llama 2 7B's FFN, Llama 3 8B's, and a decode-size batch of tokens.
SHAPES = [(4096, 4096, 11008), (8192, 4096, 14336), (128, 4096, 14336)]
ROUNDS = 3


def cudnnfe(build, form, tokens, model, hidden):
    line = subprocess.run([os.path.join(build, "bench", "swiglu_bench"), form, str(tokens), str(model), str(hidden),
                           str(BATCHES), str(CALLS)], check=True, capture_output=True, text=True).stdout.strip()
    fields = dict(kv.split("=", 1) for kv in line.split())
    if "error" in fields:
        raise RuntimeError(line)
    return float(fields["graph_us"]), fields["engine"]


def swiglu(x, w_gate, w_up):
    return F.silu(x @ w_gate) * (x @ w_up)


def main():
    build = sys.argv[1]
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    compiled = torch.compile(swiglu, dynamic=False)
    rows = []
    for tokens, model, hidden in SHAPES:
        sets = [tuple(torch.rand(r, c, device="cuda", dtype=torch.bfloat16) * 2 - 1
                      for r, c in ((tokens, model), (model, hidden), (model, hidden))) for _ in range(SETS)]
        times = {name: [] for name in ("cudnnfe one graph", "cudnnfe one graph, autotuned", "cudnnfe split",
                                       "torch eager", "torch.compile")}
        notes = {}
        for _ in range(ROUNDS):
            for form, name in (("one", "cudnnfe one graph"), ("tuned", "cudnnfe one graph, autotuned"),
                               ("split", "cudnnfe split")):
                us, engine = cudnnfe(build, form, tokens, model, hidden)
                times[name].append(us)
                notes[name] = "plan " + engine
            times["torch eager"].append(time_graph(swiglu, sets))
            times["torch.compile"].append(time_graph(compiled, sets))
        notes["torch eager"] = "two cuBLAS matmuls, silu, multiply"
        notes["torch.compile"] = "Inductor"
        for name, values in times.items():
            rows.append((tokens, model, hidden, name, statistics.median(values), notes[name]))
            print(rows[-1], flush=True)
        del sets
        torch.cuda.empty_cache()
    header = (f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"cuDNN {torch.backends.cudnn.version()}, CUDA {torch.version.cuda}\n"
              f"method: {CALLS} calls over {SETS} input sets captured in a CUDA graph, median of {BATCHES} "
              f"replays, median of {ROUNDS} interleaved rounds; random bf16 inputs in [-1, 1]\n")
    table = ("| tokens x model x hidden | implementation | us/call | TFLOP/s | speed vs one graph | note |\n"
             "|---|---|---|---|---|---|\n")
    one = {(t, m, h): us for t, m, h, name, us, _ in rows if name == "cudnnfe one graph"}
    for tokens, model, hidden, name, us, note in rows:
        tflops = 4 * tokens * model * hidden / (us * 1e6)
        table += (f"| {tokens}x{model}x{hidden} | {name} | {us:.1f} | {tflops:.0f} | "
                  f"{one[(tokens, model, hidden)] / us:.2f}x | {note} |\n")
    print(header + table)
    if out:
        out.write(header + "\n" + table)


if __name__ == "__main__":
    main()
