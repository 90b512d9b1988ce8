#!/usr/bin/env python3
"""Build the Go module with its SWIG-generated layer, for a meson custom target.

The generated files (capi.go, capi_wrap.c) are build outputs, so the module is assembled under
STAGE with them, mirroring the repository's layout (bindings/go, examples/go, bench/bindings/go) so
that the examples' relative `replace` directives hold. Then: gofmt check, go vet, the test binary
(`go test -c`), and one binary per --binary NAME=PACKAGE_DIR. Go's caches live in the build
directory; nothing is fetched (GOPROXY=off: the module needs only the standard library).

The layer generated from the op schema (--layer FILE, generate_layer.py) joins the package's own
sources.

usage: go_build.py GO GOFMT SOURCE_ROOT BUILD_ROOT STAGE GENERATED_FILES... --layer FILE... --test OUT
       [--binary NAME=DIR]...
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys

TREES = ['bindings/go', 'examples/go', 'bench/bindings/go']


def stage_tree(source_root: pathlib.Path, stage: pathlib.Path) -> None:
    shutil.rmtree(stage, ignore_errors=True)
    for tree in TREES:
        if (source_root / tree).is_dir():
            shutil.copytree(source_root / tree, stage / tree,
                            ignore=shutil.ignore_patterns('*.py', 'meson.build', '*.md'))


def run(command, cwd, env) -> None:
    result = subprocess.run(command, cwd=cwd, env=env)
    if result.returncode != 0:
        sys.exit(result.returncode)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('go')
    parser.add_argument('gofmt')
    parser.add_argument('source_root', type=pathlib.Path)
    parser.add_argument('build_root', type=pathlib.Path)
    parser.add_argument('stage', type=pathlib.Path)
    parser.add_argument('generated', nargs='+', type=pathlib.Path)
    parser.add_argument('--layer', nargs='+', type=pathlib.Path, default=[])
    parser.add_argument('--test', required=True)
    parser.add_argument('--binary', action='append', default=[])
    args = parser.parse_args()

    stage_tree(args.source_root, args.stage)
    module = args.stage / 'bindings/go'
    for path in args.generated:
        shutil.copy(path, module / 'internal/capi' / path.name)
    for path in args.layer:
        shutil.copy(path, module / path.name)

    go_home = args.build_root / 'bindings/go/go-cache'
    env = dict(os.environ,
               PKG_CONFIG_PATH=os.pathsep.join(filter(None, [str(args.build_root / 'meson-uninstalled'),
                                                             os.environ.get('PKG_CONFIG_PATH')])),
               GOCACHE=str(go_home / 'build'), GOPATH=str(go_home / 'path'), GOPROXY='off',
               GOFLAGS='-mod=mod', GO111MODULE='on', CGO_ENABLED='1', GOTOOLCHAIN='local')

    unformatted = subprocess.run([args.gofmt, '-l', '.'],
                                 cwd=module, capture_output=True, text=True).stdout.split()
    unformatted = [f for f in unformatted if not f.startswith('internal/capi/capi')]
    if unformatted:
        print('not gofmt-formatted: ' + ' '.join(unformatted), file=sys.stderr)
        return 1
    run([args.go, 'vet', '.'], module, env)
    # No symbol table or DWARF (panics still name functions): smaller binaries to carry.
    flags = ['-trimpath', '-ldflags=-s -w']
    run([args.go, 'test', '-c', *flags, '-o', os.path.abspath(args.test), '.'], module, env)
    outputs = [args.test]
    for binary in args.binary:
        name, package = binary.split('=', 1)
        run([args.go, 'build', *flags, '-o', os.path.abspath(name), '.'], args.stage / package, env)
        outputs.append(name)
    # go leaves an unchanged binary untouched; ninja must still see it as newer than the sources.
    for output in outputs:
        os.utime(output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
