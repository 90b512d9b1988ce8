#!/usr/bin/env python3
"""Replay a GPU conformance run without a GPU, to see what the library's refusals now make of it.

    scripts/conformance_replay.py BUILD_DIR SEED LOG [LOG...]

Each LOG is a runner's output from a GPU (`cudnnfe_conformance --family ... --seed SEED`). The
same cases are drawn again devicelessly (the H100 description) with the library in BUILD_DIR,
and each case's verdict on the GPU is set beside its verdict now: a case that was WRONG and is
still supported is a rule that misses; one that was right and is refused now is a rule that
refuses more than it must. Prints the transitions per family, then those two lists.
"""
import collections
import os
import pathlib
import re
import subprocess
import sys

CASE = re.compile(r'^(\w+) case=(\d+) .*?=> (\w+)')


def verdicts(lines):
    """{(family, case): verdict} of a runner's output."""
    out = {}
    for line in lines:
        m = CASE.match(line)
        if m:
            out[(m.group(1), int(m.group(2)))] = m.group(3).lower()
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    build, seed, logs = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    gpu = {}
    for log in logs:
        gpu.update(verdicts(pathlib.Path(log).read_text(errors='replace').splitlines()))
    root = pathlib.Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env['LD_LIBRARY_PATH'] = f'{build}/tests/deviceless/stub-driver:{build}:/usr/local/cuda/lib64'
    env.setdefault('CUDNNFE_DEVICE_JSON', str(root.parent / 'shared' / 'devices' / 'h100-sxm-80gb.json'))
    now = {}
    for family in sorted({f for f, _ in gpu}):
        count = max(c for f, c in gpu if f == family) + 1
        run = subprocess.run([str(build / 'tests' / 'conformance' / 'cudnnfe_conformance'), '--deviceless',
                              '--family', family, '--seed', seed, '--count', str(count)],
                             env=env, capture_output=True, text=True)
        now.update(verdicts(run.stdout.splitlines()))
    transitions = collections.Counter()
    misses, wider = [], []
    for key, before in sorted(gpu.items()):
        after = now.get(key, 'missing')
        transitions[(key[0], before, after)] += 1
        if before in ('wrong', 'error') and after == 'supported':
            misses.append(key)
        if before == 'right' and after == 'refused':
            wider.append(key)
    for (family, before, after), n in sorted(transitions.items()):
        print(f'{family}: {before} -> {after}: {n}')
    print(f'wrong on the GPU, still supported: {len(misses)}' + ''.join(f'\n  {f} case {c}' for f, c in misses))
    print(f'right on the GPU, refused now: {len(wider)}' + ''.join(f'\n  {f} case {c}' for f, c in wider))
    return 1 if misses else 0


if __name__ == '__main__':
    sys.exit(main())
