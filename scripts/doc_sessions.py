#!/usr/bin/env python3
"""Run the shell sessions the README and docs show, and compare what they print.

A session is a fenced block whose lines include commands, '$ ' and the command; the lines after
each command, up to the next, are what it prints (standard output and standard error together, as
a terminal shows them). Each block runs in a fresh /tmp/docrun, the directory the docs name, set
up as they describe it: the repository's examples/, h100.json (the captured H100 description)
and stub/libcuda.so.1 (a link to the CUDA toolkit's stub driver); the build's cudnnfe first on
PATH. Times ('123 ms', "milliseconds": 1.5) may differ, and a shown line cut short with ' ...'
stands for a printed line that starts as it does and the lines after it up to the next one shown;
everything else must be as written.

An HTML comment on the line before a block says how to run it:
  <!-- session: gpu -->           needs a GPU: skipped (with the reason) where there is none
  <!-- session: not run: WHY -->  never run here, for the reason given
One line per block, "PASS file:line", "FAIL file:line" with the first difference, or "SKIP
file:line: why"; then "N passed, N failed, N skipped".

usage: doc_sessions.py ROOT BUILD_DIR FILE...
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r'^```[a-z]*$')
MARK = re.compile(r'^<!-- session: (gpu|not run: (.*)) -->$')
TIMES = [(re.compile(r'\b\d+(\.\d+)? ms\b'), 'N ms'), (re.compile(r'"milliseconds": [0-9.]+'), '"milliseconds": N')]
WORK = pathlib.Path('/tmp/docrun')


def sessions(path):
    """(line, mark, [(command, [expected lines])]) for each block with commands."""
    lines = path.read_text().split('\n')
    i = 0
    while i < len(lines):
        if not FENCE.match(lines[i]):
            i += 1
            continue
        start, mark = i + 1, MARK.match(lines[i - 1]) if i > 0 else None
        end = next(j for j in range(start, len(lines)) if lines[j] == '```')
        steps = []
        for line in lines[start:end]:
            if line.startswith('$ '):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        if steps:
            yield start, mark, steps
        i = end + 1


def has_gpu():
    try:
        return subprocess.run(['nvidia-smi', '-L'], capture_output=True).returncode == 0
    except OSError:
        return False


def prepare(root, cuda_home):
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    shutil.copytree(root / 'examples', WORK / 'examples')
    shutil.copy(root.parent / 'shared' / 'devices' / 'h100-sxm-80gb.json', WORK / 'h100.json')
    (WORK / 'stub').mkdir()
    (WORK / 'stub' / 'libcuda.so.1').symlink_to(pathlib.Path(cuda_home) / 'lib64' / 'stubs' / 'libcuda.so')


def normalized(text):
    for pattern, replacement in TIMES:
        text = pattern.sub(replacement, text)
    return text.rstrip('\n').split('\n')


def elided(got, want):
    """got with the lines a shown ' ...' line stands for replaced by that line."""
    out, g = [], 0
    for w, line in enumerate(want):
        if ' ...' in line and g < len(got) and got[g].startswith(line.split(' ...')[0]):
            following = want[w + 1] if w + 1 < len(want) else None
            g += 1
            while g < len(got) and got[g] != following:
                g += 1
            out.append(line)
        elif g < len(got):
            out.append(got[g])
            g += 1
    return out + got[g:]


def main():
    root, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    cuda_home = os.environ.get('CUDA_HOME', '/usr/local/cuda')
    env = {k: v for k, v in os.environ.items() if not k.startswith(('CUDNNFE_', 'LD_LIBRARY_PATH'))}
    env['PATH'] = f'{build / "tools" / "cudnnfe"}:{env.get("PATH", "/usr/bin:/bin")}'
    gpu = has_gpu()
    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for name in sys.argv[3:]:
        path = root / name
        for line, mark, steps in sessions(path):
            where = f'{name}:{line}'
            if mark and mark.group(2):
                verdict = f'SKIP {where}: {mark.group(2)}'
            elif mark and not gpu:
                verdict = f'SKIP {where}: needs a GPU'
            else:
                prepare(root, cuda_home)
                verdict = f'PASS {where}: {len(steps)} command(s)'
                for command, expected in steps:
                    run = subprocess.run(['bash', '-c', command], cwd=WORK, env=env, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
                    got, want = elided(normalized(run.stdout), normalized('\n'.join(expected))), \
                        normalized('\n'.join(expected))
                    if got != want:
                        k = next((k for k in range(max(len(got), len(want)))
                                  if k >= len(got) or k >= len(want) or got[k] != want[k]), 0)
                        verdict = (f'FAIL {where}: $ {command}\n    line {k + 1}: shown  {want[k] if k < len(want) else "(nothing)"}'
                                   f'\n    line {k + 1}: prints {got[k] if k < len(got) else "(nothing)"}')
                        break
            counts[verdict.split()[0]] += 1
            print(verdict)
    print(f'{counts["PASS"]} passed, {counts["FAIL"]} failed, {counts["SKIP"]} skipped')
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())
