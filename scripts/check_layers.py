#!/usr/bin/env python3
"""The library's folders in their layer order, and a check that no file includes a header of a
folder above its own (DESIGN: no layer reaches up).

    python3 scripts/check_layers.py [LIB_DIR]

Prints one line per include that reaches up and exits 1 when there is any; otherwise prints the
number of includes between folders it checked."""
import os
import re
import sys

# Top first: a folder may include its own headers and those of the folders after it.
LAYERS = [
    ("api", "the C boundary: checks, errors, entry points"),
    ("build", "the one-call build and (de)serialization: planning and the store together"),
    ("store", "blobs, plan records and their check, the plan cache on disk"),
    ("serial", "the graph JSON, read through the ops' factories"),
    ("ops", "one file per op family: node, description, lowering"),
    ("plan", "lowering, heuristics, plans, autotuning"),
    ("schema", "the op descriptions and the option fields written from them"),
    ("runtime", "handle, buffers, execute"),
    ("graph", "tensors, nodes, validation"),
    ("backend", "cuDNN and CUDA loaded, descriptors, the capability table"),
    ("common", "errors, logging, JSON, hashing, files"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "lib")
    rank = {name: i for i, (name, _) in enumerate(LAYERS)}
    folders = sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
    unknown = [d for d in folders if d not in rank]
    if unknown:
        print("folders with no place in the layer order: " + ", ".join(unknown))
        return 1
    reaching_up, checked = [], 0
    for folder in folders:
        for root, _, files in os.walk(os.path.join(lib, folder)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == folder or m.group(1) not in rank:
                            continue
                        checked += 1
                        if rank[m.group(1)] < rank[folder]:
                            reaching_up.append("%s:%d: %s includes %s, a layer above it" %
                                               (os.path.relpath(path, os.path.join(lib, "..")), number, folder,
                                                line.strip().split()[-1]))
    for line in reaching_up:
        print(line)
    if reaching_up:
        print("%d includes reach up (order, top first: %s)" % (len(reaching_up), ", ".join(n for n, _ in LAYERS)))
        return 1
    print("layers: %d includes between %d folders, none reaching up" % (checked, len(folders)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
