#!/usr/bin/env python3
"""Publish the Java binding into a Maven repository directory (the layout a file:// or an HTTP
repository serves): dev/cudnnfe/cudnnfe/VERSION/ with the pom, the jar (classes of the build's
cudnnfe.jar, a manifest with Automatic-Module-Name and Implementation-Version, and the native
libraries under native/PLATFORM/, and under native/linux-aarch64/ too when BUILD_DIR/aarch64 holds
the cross-compiled ones of scripts/cross_aarch64.sh), the -sources and -javadoc jars, a .sha1 and
.md5 beside each file, and the artifact's maven-metadata.xml.

usage: make_maven_repo.py SOURCE_ROOT BUILD_DIR REPO VERSION [--platform linux-x86_64]
"""
import argparse
import hashlib
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

GROUP, ARTIFACT, MODULE = 'dev.cudnnfe', 'cudnnfe', 'dev.cudnnfe'
# A fixed time for every entry: the same inputs give the same bytes.
STAMP = (2020, 1, 1, 0, 0, 0)


def manifest(version: str) -> str:
    return ('Manifest-Version: 1.0\r\n'
            f'Automatic-Module-Name: {MODULE}\r\n'
            f'Implementation-Title: {ARTIFACT}\r\n'
            f'Implementation-Version: {version}\r\n'
            f'Implementation-Vendor-Id: {GROUP}\r\n'
            'Created-By: bindings/java/packaging/make_maven_repo.py\r\n\r\n')


def add(z: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, STAMP)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def write_jar(path: pathlib.Path, version: str, entries: dict) -> None:
    """entries: name -> (bytes, mode); the manifest comes first, as JarInputStream expects."""
    with zipfile.ZipFile(path, 'w') as z:
        add(z, 'META-INF/MANIFEST.MF', manifest(version).encode())
        add(z, 'META-INF/LICENSE', (pathlib.Path(__file__).resolve().parents[3] / 'LICENSE').read_bytes())
        for name in sorted(entries):
            data, mode = entries[name]
            add(z, name, data, mode)


def java_sources(build: pathlib.Path, source_root: pathlib.Path) -> dict:
    """Every source of the jar, by its path in the package tree (from its package line)."""
    java = build / 'bindings/java'
    files = sorted((source_root / 'bindings/java/src/main/java').rglob('*.java'))
    for listing in ('generated-java.list', 'generated-layer.list'):
        files += [pathlib.Path(line) for line in (java / listing).read_text().split() if line.endswith('.java')]
    out = {}
    for f in files:
        package = re.search(r'^package\s+([\w.]+)\s*;', f.read_text(encoding='utf-8'), re.M)
        prefix = package.group(1).replace('.', '/') + '/' if package else ''
        out[prefix + f.name] = f
    return out


def checksums(path: pathlib.Path) -> None:
    data = path.read_bytes()
    for algorithm in ('sha1', 'md5'):
        path.with_name(path.name + '.' + algorithm).write_text(hashlib.new(algorithm, data).hexdigest())


def metadata(repo_artifact: pathlib.Path, version: str) -> None:
    versions = sorted({p.name for p in repo_artifact.iterdir() if p.is_dir()} | {version},
                      key=lambda v: [int(x) if x.isdigit() else x for x in re.split(r'[.-]', v)])
    listed = ''.join(f'      <version>{v}</version>\n' for v in versions)
    path = repo_artifact / 'maven-metadata.xml'
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n'
                    f'  <groupId>{GROUP}</groupId>\n  <artifactId>{ARTIFACT}</artifactId>\n'
                    f'  <versioning>\n    <latest>{versions[-1]}</latest>\n    <release>{versions[-1]}</release>\n'
                    f'    <versions>\n{listed}    </versions>\n'
                    f'    <lastUpdated>{time.strftime("%Y%m%d%H%M%S", time.gmtime())}</lastUpdated>\n'
                    '  </versioning>\n</metadata>\n')
    checksums(path)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('source_root', type=pathlib.Path)
    parser.add_argument('build', type=pathlib.Path)
    parser.add_argument('repo', type=pathlib.Path)
    parser.add_argument('version')
    parser.add_argument('--platform', default='linux-x86_64')
    args = parser.parse_args()

    java = args.build / 'bindings/java'
    artifact_dir = args.repo / GROUP.replace('.', '/') / ARTIFACT
    out = artifact_dir / args.version
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    base = out / f'{ARTIFACT}-{args.version}'

    # The jar: the build's classes, and the libraries (the real files, not the links).
    entries = {}
    with zipfile.ZipFile(java / 'cudnnfe.jar') as built:
        for info in built.infolist():
            if info.filename.startswith('META-INF/') or info.is_dir():
                continue
            entries[info.filename] = (built.read(info), 0o644)
    native = f'native/{args.platform}/'
    entries[native + 'libcudnnfe.so.1'] = ((args.build / 'libcudnnfe.so.1').resolve().read_bytes(), 0o755)
    entries[native + 'libcudnnfe_java.so'] = ((java / 'libcudnnfe_java.so').read_bytes(), 0o755)
    cross = args.build / 'aarch64'
    if (cross / 'bindings' / 'libcudnnfe_java.so').is_file():
        entries['native/linux-aarch64/libcudnnfe.so.1'] = ((cross / 'libcudnnfe.so.1').resolve().read_bytes(), 0o755)
        entries['native/linux-aarch64/libcudnnfe_java.so'] = ((cross / 'bindings' / 'libcudnnfe_java.so').read_bytes(),
                                                             0o755)
    write_jar(base.with_name(base.name + '.jar'), args.version, entries)

    sources = java_sources(args.build, args.source_root)
    write_jar(base.with_name(base.name + '-sources.jar'), args.version,
              {name: (path.read_bytes(), 0o644) for name, path in sources.items()})

    # Javadoc of the public API, from the JDK's javadoc.
    with tempfile.TemporaryDirectory() as tmp:
        docs = pathlib.Path(tmp) / 'docs'
        result = subprocess.run(['javadoc', '-quiet', '-Xdoclint:none', '--release', '11', '-encoding', 'UTF-8',
                                 '-docencoding', 'UTF-8', '-charset', 'UTF-8', '-public', '-notimestamp',
                                 '-windowtitle', f'cudnnfe {args.version}', '-d', str(docs),
                                 *map(str, sources.values())], capture_output=True, text=True)
        if result.returncode != 0 or not (docs / 'index.html').is_file():
            print(result.stdout + result.stderr, file=sys.stderr)
            return 1
        write_jar(base.with_name(base.name + '-javadoc.jar'), args.version,
                  {str(p.relative_to(docs)): (p.read_bytes(), 0o644) for p in docs.rglob('*') if p.is_file()})

    pom = (pathlib.Path(__file__).parent / 'pom.xml.in').read_text().replace('@VERSION@', args.version)
    base.with_name(base.name + '.pom').write_text(pom)
    for f in sorted(out.iterdir()):
        if f.suffix in ('.jar', '.pom'):
            checksums(f)
    metadata(artifact_dir, args.version)
    print(f'{base}.jar')
    return 0


if __name__ == '__main__':
    sys.exit(main())
