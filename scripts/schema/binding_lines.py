#!/usr/bin/env python3
"""Count the bindings' hand-written lines and hold them to a limit.

Hand-written: the sources of each binding's idiomatic layer in the repository (Java's
src/main/java/dev/cudnnfe/*.java and the *.members files spliced into generated classes, C#'s
src/*.cs, Go's package files in bindings/go other than tests), every line counted. Everything the
generators write from the op schema and bindings/surface.py goes to the build directory, carries
a "Generated ... do not edit" header and is made again by every build; a file here with that
header is an error, as is a total over the limit.

usage: binding_lines.py BINDINGS_DIR [--limit N]
"""
import argparse
import pathlib
import re
import sys

GENERATED = re.compile(r'^// (Generated|Code generated)\b')


def sources(bindings):
    java = bindings / 'java' / 'src' / 'main' / 'java' / 'dev' / 'cudnnfe'
    return {
        'Java': sorted(list(java.glob('*.java')) + list(java.glob('*.members'))),
        'C#': sorted((bindings / 'csharp' / 'src').glob('*.cs')),
        'Go': sorted(p for p in (bindings / 'go').glob('*.go') if not p.name.endswith('_test.go')),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('bindings', type=pathlib.Path)
    parser.add_argument('--limit', type=int, default=2500)
    args = parser.parse_args()
    total, errors, parts = 0, [], []
    for language, files in sources(args.bindings).items():
        lines = 0
        for path in files:
            text = path.read_text().splitlines()
            if text and GENERATED.match(text[0]):
                errors.append(f'{path}: a generated file among the hand-written sources')
            lines += len(text)
        parts.append(f'{language} {lines} ({len(files)} files)')
        total += lines
    if total > args.limit:
        errors.append(f'{total} hand-written binding lines, over the limit of {args.limit}: describe the calls in '
                      'bindings/surface.py (or the options in the schema) instead')
    for e in errors:
        print(f'binding_lines: {e}', file=sys.stderr)
    print(f'binding_lines: {total} hand-written lines ({", ".join(parts)}), limit {args.limit}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
