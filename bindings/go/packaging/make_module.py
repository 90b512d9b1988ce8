#!/usr/bin/env python3
"""The Go module cudnnfe.dev/cudnnfe as `go get` takes it, served by a file-based module proxy.

  proxy   SOURCE_ROOT BUILD_DIR PROXY VERSION [--pc-dir DIR]
          Assembles the module: the package's Go sources (bindings/go/*.go, not the tests), go.mod,
          internal/capi (its doc.go, the SWIG output capi.go and capi_wrap.c from BUILD_DIR, and
          owned_memory.c/.h) and the layer generated from the op schema (BUILD_DIR/bindings/go/
          generated-layer/*.go). Writes PROXY/cudnnfe.dev/cudnnfe/@v/{list, vVERSION.info,
          vVERSION.mod, vVERSION.zip} (zip entries under cudnnfe.dev/cudnnfe@vVERSION/), the layout
          GOPROXY=file://PROXY serves. The module finds the library with `#cgo pkg-config:
          cudnnfe`, so it holds no path of this machine. With --pc-dir, also writes DIR/cudnnfe.pc
          for the build tree: BUILD_DIR's uninstalled .pc with `-Wl,-rpath,<libdir>` added to
          Libs, so that a program built with PKG_CONFIG_PATH=DIR runs without LD_LIBRARY_PATH
          (an installed library in the system's directories needs no run path).

  check   SOURCE_ROOT BUILD_DIR ZIP
          Staleness: runs the generators again now (option_structs.py and SWIG on the interface,
          BUILD_DIR's `cudnnfe schema` and generate_layer.py) into a temporary directory, and
          compares every file of the module zip with that fresh output (generated files) or with
          the source tree (hand-written files). Prints the stale files and exits 1 if any differ.

usage: make_module.py proxy|check ...
"""
import argparse
import datetime
import difflib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

MODULE = 'cudnnfe.dev/cudnnfe'
# A fixed time for every zip entry: the same inputs give the same bytes (go.sum stays valid).
STAMP = (2020, 1, 1, 0, 0, 0)


def module_files(root: pathlib.Path, build: pathlib.Path) -> dict:
    """Module path -> (origin path, 'generated' or 'source')."""
    go = root / 'bindings/go'
    files = {}
    for path in sorted(go.glob('*.go')):
        if not path.name.endswith('_test.go'):
            files[path.name] = (path, 'source')
    files['go.mod'] = (go / 'go.mod', 'source')
    files['LICENSE'] = (root / 'LICENSE', 'source')
    files['internal/capi/doc.go'] = (go / 'internal/capi/doc.go', 'source')
    for name in ('owned_memory.c', 'owned_memory.h'):
        files['internal/capi/' + name] = (root / 'bindings/swig' / name, 'source')
    for name in ('capi.go', 'capi_wrap.c'):
        files['internal/capi/' + name] = (build / 'bindings/go' / name, 'generated')
    layer = sorted((build / 'bindings/go/generated-layer').glob('*.go'))
    if not layer:
        sys.exit(f'no generated layer in {build}/bindings/go/generated-layer')
    for path in layer:
        files[path.name] = (path, 'generated')
    for name, (path, _) in files.items():
        if not path.is_file():
            sys.exit(f'missing {path} (for {name}): build {build} first')
    return files


def release_time(root: pathlib.Path) -> str:
    """The commit's time (else SOURCE_DATE_EPOCH, else now), RFC 3339 in UTC, for the .info file."""
    stamp = None
    try:
        out = subprocess.run(['git', '-C', str(root), 'log', '-1', '--format=%ct'],
                             capture_output=True, text=True, check=True).stdout.strip()
        stamp = int(out) if out else None
    except (OSError, subprocess.CalledProcessError, ValueError):
        pass
    if stamp is None:
        stamp = int(os.environ.get('SOURCE_DATE_EPOCH', datetime.datetime.now().timestamp()))
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def write_zip(path: pathlib.Path, prefix: str, files: dict) -> None:
    tmp = path.with_suffix('.zip.tmp')
    with zipfile.ZipFile(tmp, 'w', zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(f'{prefix}/{name}', STAMP)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, files[name][0].read_bytes())
    tmp.replace(path)


def write_pc(build: pathlib.Path, pc_dir: pathlib.Path) -> pathlib.Path:
    """The build tree's cudnnfe.pc with the library's directory as run path."""
    source = build / 'meson-uninstalled/cudnnfe-uninstalled.pc'
    text = source.read_text()
    libs = re.search(r'^Libs:(.*)$', text, re.M)
    lib_dir = re.search(r'-L(\S+)', libs.group(1)) if libs else None
    if not lib_dir:
        sys.exit(f'{source}: no "Libs: -L<dir>" line')
    text = text.replace(libs.group(0), f'Libs: -L{lib_dir.group(1)} -Wl,-rpath,{lib_dir.group(1)} '
                        + libs.group(1).replace(lib_dir.group(0), '', 1).strip())
    pc_dir.mkdir(parents=True, exist_ok=True)
    out = pc_dir / 'cudnnfe.pc'
    out.write_text('# The build tree\'s cudnnfe-uninstalled.pc with a run path (make_module.py).\n' + text)
    return out


def proxy(args) -> int:
    version = 'v' + args.version.lstrip('v')
    files = module_files(args.root, args.build)
    go_mod = files['go.mod'][0].read_text()
    declared = re.search(r'^module\s+(\S+)', go_mod, re.M)
    if not declared or declared.group(1) != MODULE:
        sys.exit(f'go.mod declares {declared.group(1) if declared else "no module"}, not {MODULE}')
    at_v = args.proxy / MODULE / '@v'
    at_v.mkdir(parents=True, exist_ok=True)
    write_zip(at_v / f'{version}.zip', f'{MODULE}@{version}', files)
    (at_v / f'{version}.mod').write_text(go_mod)
    (at_v / f'{version}.info').write_text(json.dumps({'Version': version, 'Time': release_time(args.root)}) + '\n')
    versions = sorted({p.stem for p in at_v.glob('v*.info')},
                      key=lambda v: [int(x) if x.isdigit() else x for x in re.split(r'[.-]', v[1:])])
    (at_v / 'list').write_text(''.join(v + '\n' for v in versions))
    print(f'{at_v}/{version}.zip: {len(files)} files '
          f'({sum(1 for _, kind in files.values() if kind == "generated")} generated)')
    if args.pc_dir:
        print(f'{write_pc(args.build, args.pc_dir)}: Libs with -Wl,-rpath')
    return 0


def regenerate(root: pathlib.Path, build: pathlib.Path, out: pathlib.Path) -> dict:
    """Module path -> bytes, from the generators run now, as meson runs them."""
    swig_dir = root / 'bindings/swig'
    subprocess.run([sys.executable, str(swig_dir / 'option_structs.py'), str(root / 'include/cudnnfe.h'),
                    str(out / 'option_structs.i')], check=True)
    # meson runs SWIG in the build directory with the interface's path relative to it (SWIG writes
    # that path into capi.go).
    interface = os.path.relpath(swig_dir / 'cudnnfe.i', build)
    subprocess.run(['swig', '-go', '-cgo', '-intgosize', '64', '-I' + str(root / 'include'), '-I' + str(swig_dir),
                    '-I' + str(out), '-outdir', str(out), '-o', str(out / 'capi_wrap.c'), interface],
                   cwd=build, check=True)
    schema = subprocess.run([str(build / 'tools/cudnnfe/cudnnfe'), 'schema'], capture_output=True, check=True).stdout
    (out / 'op_schema.json').write_bytes(schema)
    layer = out / 'layer'
    layer.mkdir()
    gofmt = shutil.which('gofmt') or 'gofmt'
    subprocess.run([sys.executable, str(root / 'bindings/go/generate_layer.py'), str(out / 'op_schema.json'),
                    str(layer), '--gofmt', gofmt], check=True)
    fresh = {'internal/capi/capi.go': (out / 'capi.go').read_bytes(),
             'internal/capi/capi_wrap.c': (out / 'capi_wrap.c').read_bytes()}
    for path in layer.glob('*.go'):
        fresh[path.name] = path.read_bytes()
    return fresh


def check(args) -> int:
    with zipfile.ZipFile(args.zip) as z:
        names = [n for n in z.namelist() if not n.endswith('/')]
        prefix = names[0].split('/', 2)[0] + '/' + names[0].split('/', 2)[1] + '/' if names else ''
        module = {n[len(prefix):]: z.read(n) for n in names}
    sources = {name: path for name, (path, kind) in module_files(args.root, args.build).items() if kind == 'source'}
    with tempfile.TemporaryDirectory() as tmp:
        fresh = regenerate(args.root, args.build, pathlib.Path(tmp))
    stale, details = [], []
    for name in sorted(set(module) | set(fresh) | set(sources)):
        want = fresh.get(name)
        if want is None and name in sources:
            want = sources[name].read_bytes()
        have = module.get(name)
        if have == want:
            continue
        why = 'missing from the module' if have is None else 'not generated any more' if want is None else 'differs'
        stale.append(f'{name} ({why})')
        if have is not None and want is not None:
            diff = difflib.unified_diff(have.decode(errors='replace').splitlines(),
                                        want.decode(errors='replace').splitlines(),
                                        f'module/{name}', f'now/{name}', lineterm='', n=1)
            details.extend(list(diff)[:12])
    if stale:
        print('stale: ' + ', '.join(stale))
        print('\n'.join(details))
        return 1
    print(f'{len(module)} files match ({len(fresh)} regenerated now, {len(sources)} from the source tree)')
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('proxy')
    p.add_argument('root', type=pathlib.Path)
    p.add_argument('build', type=pathlib.Path)
    p.add_argument('proxy', type=pathlib.Path)
    p.add_argument('version')
    p.add_argument('--pc-dir', type=pathlib.Path)
    c = sub.add_parser('check')
    c.add_argument('root', type=pathlib.Path)
    c.add_argument('build', type=pathlib.Path)
    c.add_argument('zip', type=pathlib.Path)
    args = parser.parse_args()
    args.root, args.build = args.root.resolve(), args.build.resolve()
    return proxy(args) if args.command == 'proxy' else check(args)


if __name__ == '__main__':
    sys.exit(main())
