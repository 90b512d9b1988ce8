#!/usr/bin/env python3
"""Compile C# sources with mcs, for meson custom targets.

Sources ending in .list are files that list sources one a line (SWIG's generated classes) and are
handed to mcs as @response files. The references are Mono's reference assemblies for .NET 4.7.2
(mscorlib, System, System.Core), and the code uses only APIs that .NET Standard 2.0 also has.

When the sources hold packaging/NativeLibraryLoader.cs (CudnnFe.dll), the assembly's XML
documentation is written beside it (OUT with .xml), and the generated NativeApi.cs and
NativeApiPINVOKE.cs are compiled from copies whose static initialization calls
NativeLibraryLoader.EnsureLoaded(), so the native glue is looked for (beside the DLL, in a NuGet
package's runtimes/ layout) before the first P/Invoke.

A -keyfile:KEY argument strong-names the assembly with KEY (packaging/CudnnFe.snk for CudnnFe.dll
and its tests, the friend assembly of InternalsVisibleTo).

usage: build_assembly.py MCS OUT TARGET [-r:ASSEMBLY]... [-keyfile:KEY] SOURCES...
"""
import pathlib
import subprocess
import sys

# Mono resolves a P/Invoke's library when the method is first called, before its class's static
# initializer runs: NativeApi (whose methods the hand-written layer calls) loads the glue in its
# static constructor, then checks that the glue and the C library are the assembly's version;
# NativeApiPINVOKE's first initializer loads it too, for .NET's resolver.
HOOKS = {
    'NativeApiPINVOKE.cs': ('internal class NativeApiPINVOKE {',
                            '  internal static readonly bool NativeLoaded = NativeLibraryLoader.EnsureLoaded();\n'),
    'NativeApi.cs': ('internal static class NativeApi {',
                     '  static NativeApi() {\n'
                     '    NativeLibraryLoader.EnsureLoaded();\n'
                     '    NativeLibraryLoader.CheckVersions(FE_VERSION, fe_swig_glue_version(), fe_version());\n'
                     '  }\n'),
}


def hook_loader(listing: str, out: str) -> str:
    """A copy of the response file LISTING with NativeApi.cs and NativeApiPINVOKE.cs replaced by
    hooked copies (LISTING itself when it holds neither)."""
    lines = pathlib.Path(listing).read_text().split()
    hooked_any = False
    for i, line in enumerate(lines):
        name = pathlib.Path(line).name
        if name in HOOKS:
            anchor, hook = HOOKS[name]
            text = pathlib.Path(line).read_text()
            if anchor not in text:
                raise SystemExit(f'{line}: no "{anchor}" to hook the native loader into')
            hooked = pathlib.Path(out + '.' + name)
            hooked.write_text(text.replace(anchor, anchor + '\n' + hook, 1))
            lines[i] = str(hooked.resolve())
            hooked_any = True
    if not hooked_any:
        return listing
    copy = pathlib.Path(out + '.' + pathlib.Path(listing).name)
    copy.write_text('\n'.join(lines) + '\n')
    return str(copy)


def main() -> int:
    mcs, out, target, *rest = sys.argv[1:]
    references = [a for a in rest if a.startswith(('-r:', '-keyfile:'))]
    files = [s for s in rest if not s.startswith(('-r:', '-keyfile:'))]
    doc = []
    if any(pathlib.Path(s).name == 'NativeLibraryLoader.cs' for s in files):
        files = [hook_loader(s, out) if s.endswith('.list') else s for s in files]
        doc = [f'-doc:{pathlib.Path(out).with_suffix(".xml")}']
    sources = [f'@{s}' if s.endswith('.list') else s for s in files]
    command = [mcs, '-sdk:4.7.2', '-langversion:7', '-nologo', '-warnaserror+', '-nowarn:1591',
               f'-target:{target}', f'-out:{out}', *doc, *references, *sources]
    return subprocess.run(command).returncode


if __name__ == '__main__':
    sys.exit(main())
