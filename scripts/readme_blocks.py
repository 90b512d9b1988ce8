#!/usr/bin/env python3
"""Compile and run the README's C, Java, C# and Go programs as they are written.

Each fenced block of one of those languages is a whole program. It is built against the build
directory (C with cc, Java with javac, C# with mcs, Go in a module that replaces cudnnfe.dev/cudnnfe
with the build's) and run with the library there and nothing else on the loader's path: on a
machine with a GPU it must succeed; without one it must stop at the handle with a checked error,
exit 1 and print the message naming the call (never crash). One line per block, then
"N passed, N failed, N skipped".

usage: readme_blocks.py ROOT BUILD_DIR [WORK_DIR]
       readme_blocks.py --pack PACK_DIR ROOT BUILD_DIR [WORK_DIR]

With --pack, the programs are built and copied into PACK_DIR/readme (C and Go executables, the Java
class, the C# program bundled with its Mono runtime) for the bindings' GPU runner, not run here.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

BLOCK = re.compile(r'^```(c|java|csharp|go)\n(.*?)^```$', re.S | re.M)
# What each language's message names when the handle cannot be made (no GPU).
HANDLE = {'c': 'fe_handle_create', 'java': 'new Handle', 'csharp': 'new Handle', 'go': 'cudnnfe.NewHandle'}


def has_gpu():
    try:
        return subprocess.run(['nvidia-smi', '-L'], capture_output=True).returncode == 0
    except OSError:
        return False


def build(language, source, work, root, build_dir, env):
    """The command that runs the program, after building it in `work`."""
    if language == 'c':
        (work / 'app.c').write_text(source)
        subprocess.run(['cc', '-std=c99', '-Wall', '-Wextra', '-Werror', '-I', str(root / 'include'), 'app.c',
                        '-L', str(build_dir), '-lcudnnfe', '-o', 'app'], cwd=work, check=True, env=env)
        return [str(work / 'app')]
    if language == 'java':
        jar = str(build_dir / 'bindings' / 'java' / 'cudnnfe.jar')
        (work / 'App.java').write_text(source)
        subprocess.run(['javac', '-cp', jar, 'App.java'], cwd=work, check=True, env=env)
        return ['java', '-Djava.library.path=' + str(build_dir / 'bindings' / 'java'), '-cp', f'{jar}:{work}', 'App']
    if language == 'csharp':
        dll = str(build_dir / 'bindings' / 'csharp' / 'CudnnFe.dll')
        (work / 'App.cs').write_text(source)
        subprocess.run(['mcs', '-warnaserror', '-out:app.exe', '-r:' + dll, 'App.cs'], cwd=work, check=True, env=env)
        return ['mono', str(work / 'app.exe')]
    (work / 'main.go').write_text(source)
    module = build_dir / 'bindings' / 'go' / 'src' / 'bindings' / 'go'
    (work / 'go.mod').write_text(f'module app\n\ngo 1.19\n\nrequire cudnnfe.dev/cudnnfe v1.4.0\n\n'
                                 f'replace cudnnfe.dev/cudnnfe => {module}\n')
    formatted = subprocess.run(['gofmt', '-l', 'main.go'], cwd=work, capture_output=True, text=True, check=True)
    if formatted.stdout.strip():
        raise RuntimeError('the Go block is not gofmt-formatted')
    subprocess.run(['go', 'build', '-o', 'app', '.'], cwd=work, check=True, env=env)
    return [str(work / 'app')]


def pack(language, command, work, build_dir, into, env):
    """Copy the built program into `into`, runnable on a machine without a compiler, JDK or Mono."""
    if language in ('c', 'go'):
        shutil.copy(command[0], into / f'readme_{language}')
    elif language == 'java':
        shutil.copy(work / 'App.class', into / 'App.class')
    else:
        mono = '/usr/lib/mono/4.5'
        subprocess.run(['mkbundle', '--simple', '--deps', '-o', str(into / 'readme_csharp'), str(work / 'app.exe'),
                        str(build_dir / 'bindings' / 'csharp' / 'CudnnFe.dll'), '-L', str(build_dir / 'bindings' / 'csharp'),
                        '-L', mono, '--machine-config', '/etc/mono/4.5/machine.config', '--no-config'],
                       cwd=work, check=True, env=env, capture_output=True)


def main():
    args = sys.argv[1:]
    pack_dir = None
    if args[:1] == ['--pack']:
        pack_dir = pathlib.Path(args[1]) / 'readme'
        pack_dir.mkdir(parents=True, exist_ok=True)
        args = args[2:]
    root, build_dir = pathlib.Path(args[0]).resolve(), pathlib.Path(args[1]).resolve()
    work_root = pathlib.Path(args[2]) if len(args) > 2 else pathlib.Path(tempfile.mkdtemp())
    gpu = has_gpu()
    cuda = os.environ.get('CUDA_HOME', '/usr/local/cuda')
    env = dict(os.environ, LD_LIBRARY_PATH=f'{build_dir}:{cuda}/lib64',
               MONO_PATH=str(build_dir / 'bindings' / 'csharp'),
               PKG_CONFIG_PATH=str(build_dir / 'meson-uninstalled'),
               GOCACHE=str(work_root / 'go' / 'cache'), GOPATH=str(work_root / 'go' / 'path'), GOPROXY='off',
               GOFLAGS='-mod=mod', GO111MODULE='on', CGO_ENABLED='1', GOTOOLCHAIN='local')
    env.pop('CUDNNFE_DEVICE_JSON', None)
    passed = failed = 0
    text = (root / 'README.md').read_text()
    for i, (language, source) in enumerate(BLOCK.findall(text)):
        work = work_root / f'{language}{i}'
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        try:
            command = build(language, source, work, root, build_dir, env)
            if pack_dir:
                pack(language, command, work, build_dir, pack_dir, env)
                passed += 1
                print(f'    {language}: packed')
                continue
            run = subprocess.run(command, cwd=work, capture_output=True, text=True, env=env, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, RuntimeError) as e:
            failed += 1
            print(f'    {language} FAILED: {e}')
            continue
        message = (run.stderr.strip() or run.stdout.strip()).splitlines()
        last = message[-1] if message else ''
        if gpu:
            ok = run.returncode == 0
        else:
            ok = run.returncode == 1 and HANDLE[language] in last
        print(f'    {language}: {"ok" if ok else "FAILED"} (exit {run.returncode}: {last[:100]})')
        passed, failed = passed + ok, failed + (not ok)
    if passed + failed < 4:
        print(f'    the README has {passed + failed} of its 4 programs (C, Java, C#, Go)')
        failed += 1
    print(f'{passed} passed, {failed} failed, 0 skipped')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
