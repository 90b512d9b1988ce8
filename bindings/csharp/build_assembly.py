#!/usr/bin/env python3
"""Compile C# sources with mcs, for meson custom targets.

Sources ending in .list are files that list sources one a line (SWIG's generated classes) and are
handed to mcs as @response files. The references are Mono's reference assemblies for .NET 4.7.2
(mscorlib, System, System.Core), and the code uses only APIs that .NET Standard 2.0 also has.

usage: build_assembly.py MCS OUT TARGET [-r:ASSEMBLY]... SOURCES...
"""
import subprocess
import sys


def main() -> int:
    mcs, out, target, *rest = sys.argv[1:]
    references = [a for a in rest if a.startswith('-r:')]
    sources = [f'@{s}' if s.endswith('.list') else s for s in rest if not s.startswith('-r:')]
    command = [mcs, '-sdk:4.7.2', '-langversion:7', '-nologo', '-warnaserror+', '-nowarn:1591',
               f'-target:{target}', f'-out:{out}', *references, *sources]
    return subprocess.run(command).returncode


if __name__ == '__main__':
    sys.exit(main())
