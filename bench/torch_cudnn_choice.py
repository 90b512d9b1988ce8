"""Which cuDNN plan PyTorch keeps for one convolution under cudnn.benchmark=True, read from
cuDNN's own API log: the plan its later calls execute, printed as cudnnfe's engine tag
("kept: eng62_k2=0_k27=2..."; conv_bench's CUDNNFE_BENCH_CONFIG takes it), and the log of those
calls written to OUT_FILE, with the engine and knob lines first.

Usage: CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=LOG python3 bench/torch_cudnn_choice.py LOG OUT_FILE \\
           N C K H R STRIDE PAD fp16|bf16 fprop|dgrad|wgrad
"""
import os
import re
import sys

import torch

# cudnnBackendKnobType_t, by the names cuDNN's log prints.
KNOB_TYPES = {
    "SPLIT_K": 0, "SWIZZLE": 1, "TILE_SIZE": 2, "USE_TEX": 3, "EDGE": 4, "KBLOCK": 5, "LDGA": 6, "LDGB": 7,
    "CHUNK_K": 8, "SPLIT_H": 9, "WINO_TILE": 10, "MULTIPLY": 11, "SPLIT_K_BUF": 12, "TILEK": 13, "STAGES": 14,
    "REDUCTION_MODE": 15, "CTA_SPLIT_K_MODE": 16, "SPLIT_K_SLC": 17, "IDX_MODE": 18, "SLICED": 19, "SPLIT_RS": 20,
    "SINGLEBUFFER": 21, "LDGC": 22, "SPECFILT": 23, "KERNEL_CFG": 24, "WORKSPACE": 25, "TILE_CGA": 26,
    "TILE_CGA_M": 27, "TILE_CGA_N": 28, "BLOCK_SIZE": 29, "OCCUPANCY": 30, "ARRAY_SIZE_PER_THREAD": 31,
    "NUM_C_PER_BLOCK": 32, "SPLIT_COLS": 33, "TILE_ROWS": 34, "TILE_COLS": 35, "LOAD_SIZE": 36, "CTA_COUNT": 37,
    "STREAM_K": 38, "SPLIT_P_SLC": 39, "TILE_M": 40, "TILE_N": 41, "WARP_SPEC_CFG": 42, "SWAP_AB": 43,
}


def executed_tags(text):
    """The engine tag of each cudnnBackendExecute() in the log, in order."""
    tags = []
    for block in text.split("function cudnnBackendExecute() called")[1:]:
        block = block.split("Time:")[0]
        engine = re.search(r"engine_id: type=int; val=(\d+);", block)
        if not engine:
            continue
        knobs = block.split("knobDesc", 1)[1].split("numericalNotes", 1)[0] if "knobDesc" in block else ""
        pairs = sorted((KNOB_TYPES[name], value)
                       for name, value in re.findall(r"CUDNN_KNOB_TYPE_(\w+): type=int; val=(-?\d+);", knobs))
        tags.append(f"eng{engine.group(1)}" + "".join(f"_k{t}={v}" for t, v in pairs))
    return tags


def main():
    log, out = sys.argv[1], sys.argv[2]
    n, c, k, h, r, stride, pad = (int(v) for v in sys.argv[3:10])
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[sys.argv[10]]
    direction = sys.argv[11]
    torch.backends.cudnn.benchmark = True

    def nhwc(*shape):
        return torch.randn(*shape, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)

    x, w = nhwc(n, c, h, h), nhwc(k, c, r, r)
    o = (h + 2 * pad - r) // stride + 1
    dy = nhwc(n, k, o, o)
    mask = {"dgrad": [True, False, False], "wgrad": [False, True, False]}.get(direction)

    def call():
        if mask is None:
            return torch.nn.functional.conv2d(x, w, stride=stride, padding=pad)
        return torch.ops.aten.convolution_backward(dy, x, w, None, [stride] * 2, [pad] * 2, [1, 1], False, [0, 0], 1,
                                                   mask)

    call()  # the benchmark: every candidate plan is built and timed here
    torch.cuda.synchronize()
    start = os.path.getsize(log)
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    with open(log, errors="replace") as f:
        f.seek(start)
        text = f.read()
    keys = [line for line in text.splitlines() if re.search(r"globalIndex|knob|KNOB|engine", line, re.I)]
    tags = executed_tags(text)
    print("kept:", max(set(tags), key=tags.count) if tags else "none (no execution in the log)")
    with open(out, "w") as f:
        f.write(f"# {' '.join(sys.argv[3:])}: {len(text)} bytes of log after the benchmark call\n")
        f.write("\n".join(keys[:400]) + "\n\n# the log itself\n" + text[:200000])
    print(f"{out}: {len(keys)} engine/knob lines, executions: {', '.join(sorted(set(tags)))}")


if __name__ == "__main__":
    main()
