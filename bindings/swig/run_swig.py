#!/usr/bin/env python3
"""Run SWIG for one language into a clean directory and list the sources it generated.

Java and C# get one source file per struct and enum of the header, so the set of names changes as
the header grows. The list (one path a line) lets the next build step compile whatever SWIG wrote
(javac and mcs read it as an @argument file) without naming the files in meson.build.

usage: run_swig.py SWIG OUT_DIR LIST_FILE SWIG_ARGS...
"""
import pathlib
import shutil
import subprocess
import sys


def main() -> int:
    swig, out_dir, list_file, *swig_args = sys.argv[1:]
    out = pathlib.Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)  # no stale file of a struct the header dropped
    out.mkdir(parents=True)
    result = subprocess.run([swig, '-outdir', str(out), *swig_args])
    if result.returncode != 0:
        return result.returncode
    sources = sorted(p.resolve() for p in out.iterdir() if p.suffix in ('.java', '.cs', '.go'))
    pathlib.Path(list_file).write_text(''.join(f'{p}\n' for p in sources))
    return 0


if __name__ == '__main__':
    sys.exit(main())
