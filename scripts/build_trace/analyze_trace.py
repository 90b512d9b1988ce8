#!/usr/bin/env python3
"""What one traced build (trace_build.c) went through: the library's source files its calls ran
in, by layer (the folders of lib/ in scripts/check_layers.py's order), and the calls that went
to a higher layer than their caller's (a virtual call or a function pointer: includes never
reach up, so only those can).

    analyze_trace.py TRACE SOURCE_ROOT [--detail]

Functions are named by addr2line from the library's debug information; a function of a header
counts in the header's folder. A file is counted as crossed when code written in it ran: the
members the compiler writes (an implicit or defaulted constructor, destructor or assignment,
which addr2line places on the class's head or on its "= default" line) run in the caller's file. Calls into code outside lib/ (the standard library's templates
compiled into the library) are passed through: a call from them is the nearest lib/ caller's.
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from check_layers import LAYERS  # noqa: E402

RANK = {name: i for i, (name, _) in enumerate(LAYERS)}


def compiler_written(function, path, line):
    """Whether `function` is a special member the compiler wrote: its line is its class's head or
    says "= default"."""
    name = function.split('(')[0].split('::')
    if len(name) < 2 or name[-1].lstrip('~') != name[-2] and name[-1] != 'operator=':
        return False
    try:
        with open(path) as f:
            text = f.read().split('\n')[int(line) - 1].strip()
    except (OSError, ValueError, IndexError):
        return False
    return text.startswith(('struct ', 'class ')) or '= default' in text


def locations(library, offsets):
    """{offset: (function, lib-relative file or None, compiler-written)} by addr2line."""
    unique = sorted(set(offsets))
    result = subprocess.run(['addr2line', '-f', '-C', '-e', library] + [hex(o) for o in unique],
                            capture_output=True, text=True, check=True).stdout.split('\n')
    out = {}
    for i, offset in enumerate(unique):
        function, location = result[2 * i], result[2 * i + 1].split(':')
        where, line = location[0], location[1].split()[0] if len(location) > 1 else '0'
        parts = os.path.normpath(where).split(os.sep)
        file = None
        if 'lib' in parts:
            rest = parts[len(parts) - 1 - parts[::-1].index('lib') + 1:]
            if len(rest) >= 2:
                file = '/'.join(rest)
        # The standard library's functions compiled in (a few lack line information of their own
        # and take a neighbour's file) are not the library's.
        if function.startswith(('std::', '__gnu_cxx::', 'void std::', 'bool std::')):
            file = None
        out[offset] = (function, file, bool(file) and compiler_written(function, where, line))
    return out


def main():
    trace, root = sys.argv[1], sys.argv[2]
    detail = '--detail' in sys.argv
    with open(trace) as f:
        library = f.readline().strip()
        events = [line.split() for line in f]
    offsets = [int(e[1], 16) for e in events if e[0] == '>']
    where = locations(library, offsets)
    files = collections.Counter()
    made = set()  # files of compiler-written members that ran
    upward = collections.Counter()
    stack = []  # the lib/ file of each open frame (None: outside lib/)
    calls = 0
    for e in events:
        if e[0] == '<':
            if stack:
                stack.pop()
            continue
        calls += 1
        function, file, compiler_made = where[int(e[1], 16)]
        if compiler_made:
            made.add(file)
            file = None
        caller = next((f for f in reversed(stack) if f), None)
        stack.append(file)
        if not file:
            continue
        files[file] += 1
        caller_rank, callee_rank = (RANK.get(f.split('/')[0]) for f in (caller or '', file))
        if caller_rank is not None and callee_rank is not None and caller_rank > callee_rank:
            upward[(caller, file, function)] += 1
    folders = collections.Counter(f.split('/')[0] for f in files)
    by_layer = sorted(folders.items(), key=lambda x: (RANK.get(x[0], len(RANK)), x[0]))
    sources = sum(1 for f in files if f.endswith('.cpp'))
    print(f'calls: {calls} function entries in the library, in {len(files)} of its files ({sources} .cpp, '
          f'{len(files) - sources} headers; {", ".join(f"{d} {n}" for d, n in by_layer)})')
    print(f'files where only compiler-written members ran (not counted): {len(made - set(files))} '
          f'({", ".join(sorted(made - set(files)))})')
    # The graph's own path, less the layers every call reaches (cuDNN's loader and descriptors,
    # errors, JSON, hashing): the count the layering work is measured by.
    own = sorted(f for f in files if f.endswith('.cpp') and f.split('/')[0] not in ('backend', 'common'))
    print(f'source files outside backend/ and common/: {len(own)} ({", ".join(own)})')
    edges = collections.Counter()
    for (caller, callee, _), n in upward.items():
        edges[(caller, callee)] += n
    print(f'calls to a higher layer: {sum(upward.values())}, over {len(edges)} caller -> callee file pairs')
    for (caller, callee), n in sorted(edges.items(), key=lambda x: -x[1]):
        print(f'  {caller} -> {callee}: {n}')
    if detail:
        for f, n in files.most_common():
            print(f'  {n:7d} {f}')
        for (caller, callee, function), n in sorted(upward.items(), key=lambda x: -x[1]):
            print(f'  up {n:5d} {caller} -> {callee}: {function}')


if __name__ == '__main__':
    main()
