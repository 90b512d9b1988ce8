#!/usr/bin/env python3
"""Compile Java sources into a jar (javac, then jar), for meson custom targets.

Sources ending in .list are files that list sources one a line (SWIG's generated classes) and are
handed to javac as @argument files.

usage: build_jar.py JAVAC JAR OUT_JAR [--classpath CP] SOURCES...
"""
import pathlib
import shutil
import subprocess
import sys


def main() -> int:
    javac, jar, out_jar, *rest = sys.argv[1:]
    classpath = []
    if rest[:1] == ['--classpath']:
        classpath = ['-classpath', rest[1]]
        rest = rest[2:]
    sources = [f'@{s}' if s.endswith('.list') else s for s in rest]
    classes = pathlib.Path(out_jar + '.classes')
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    compile_ = [javac, '--release', '11', '-encoding', 'UTF-8', '-Xlint:all,-serial', '-Werror',
                '-d', str(classes), *classpath, *sources]
    if subprocess.run(compile_).returncode != 0:
        return 1
    return subprocess.run([jar, '--create', '--file', out_jar, '-C', str(classes), '.']).returncode


if __name__ == '__main__':
    sys.exit(main())
