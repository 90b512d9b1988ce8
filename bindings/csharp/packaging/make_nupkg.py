#!/usr/bin/env python3
"""Pack the C# binding as a NuGet package, OUT_DIR/CudnnFe.VERSION.nupkg (a folder that serves as
a local feed): CudnnFe.nuspec, lib/net472/CudnnFe.dll, CudnnFe.xml and CudnnFe.dll.config (Mono's dllmap),
runtimes/linux-x64/native/libcudnnfe_csharp.so and libcudnnfe.so.1 (and runtimes/linux-arm64/native/ when
BUILD_DIR/aarch64 holds scripts/cross_aarch64.sh's), and build/net472/CudnnFe.targets
(copies the native files beside a .NET Framework / Mono program), with the OPC parts NuGet writes
([Content_Types].xml, _rels/.rels). The assembly is built against .NET Framework 4.7.2's reference
assemblies (mscorlib; Debian has no .NET Standard reference pack), and is labelled so: net472,
which Mono runs and .NET 5+ projects load through NuGet's framework fallback.

usage: make_nupkg.py BUILD_DIR OUT_DIR VERSION [--rid linux-x64]
"""
import argparse
import pathlib
import sys
import zipfile

ID = 'CudnnFe'
# The target framework the assembly is compiled for (build_assembly.py: -sdk:4.7.2).
TFM = 'net472'
STAMP = (2020, 1, 1, 0, 0, 0)
HERE = pathlib.Path(__file__).parent


def add(z: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, STAMP)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('build', type=pathlib.Path)
    parser.add_argument('out', type=pathlib.Path)
    parser.add_argument('version')
    parser.add_argument('--rid', default='linux-x64')
    args = parser.parse_args()

    csharp = args.build / 'bindings/csharp'
    native = f'runtimes/{args.rid}/native/'
    files = {
        f'{ID}.nuspec': ((HERE / 'CudnnFe.nuspec.in').read_text().replace('@VERSION@', args.version).encode(), 0o644),
        f'lib/{TFM}/{ID}.dll': ((csharp / 'CudnnFe.dll').read_bytes(), 0o644),
        f'lib/{TFM}/{ID}.xml': ((csharp / 'CudnnFe.xml').read_bytes(), 0o644),
        # Mono's dllmap: the glue from runtimes/RID/native when the DLL is used in place.
        f'lib/{TFM}/{ID}.dll.config': ((HERE / 'CudnnFe.dll.config').read_bytes(), 0o644),
        native + 'libcudnnfe_csharp.so': ((csharp / 'libcudnnfe_csharp.so').read_bytes(), 0o755),
        native + 'libcudnnfe.so.1': ((args.build / 'libcudnnfe.so.1').resolve().read_bytes(), 0o755),
        f'build/{TFM}/{ID}.targets': ((HERE / 'CudnnFe.targets').read_bytes(), 0o644),
        'LICENSE': ((HERE.resolve().parents[2] / 'LICENSE').read_bytes(), 0o644),
    }
    # The aarch64 natives of scripts/cross_aarch64.sh, when BUILD_DIR/aarch64 holds them.
    cross = args.build / 'aarch64'
    if (cross / 'bindings' / 'libcudnnfe_csharp.so').is_file():
        files['runtimes/linux-arm64/native/libcudnnfe_csharp.so'] = (
            (cross / 'bindings' / 'libcudnnfe_csharp.so').read_bytes(), 0o755)
        files['runtimes/linux-arm64/native/libcudnnfe.so.1'] = ((cross / 'libcudnnfe.so.1').resolve().read_bytes(), 0o755)
    content_types = ('<?xml version="1.0" encoding="utf-8"?>\n'
                     '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                     '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />'
                     '<Default Extension="nuspec" ContentType="application/octet" />'
                     '<Default Extension="dll" ContentType="application/octet" />'
                     '<Default Extension="xml" ContentType="application/octet" />'
                     '<Default Extension="so" ContentType="application/octet" />'
                     '<Default Extension="1" ContentType="application/octet" />'
                     '<Default Extension="targets" ContentType="application/octet" />'
                     '<Default Extension="config" ContentType="application/octet" />'
                     '</Types>')
    rels = ('<?xml version="1.0" encoding="utf-8"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/{ID}.nuspec" Id="R0" />'
            '</Relationships>')
    args.out.mkdir(parents=True, exist_ok=True)
    package = args.out / f'{ID}.{args.version}.nupkg'
    with zipfile.ZipFile(package, 'w') as z:
        add(z, '_rels/.rels', rels.encode())
        for name in sorted(files):
            data, mode = files[name]
            add(z, name, data, mode)
        add(z, '[Content_Types].xml', content_types.encode())
    print(package)
    return 0


if __name__ == '__main__':
    sys.exit(main())
