#!/usr/bin/env python3
"""Write the operations of include/cudnnfe.h from the op files.

An op's public declarations (its options struct, the struct's _INIT macro, its enums and its entry
point, with their contracts) are written once, in its file under lib/ops/, as a comment block at
the top of the file (the compiler reads them in the header, not there):

    // include/cudnnfe.h, section "Convolutions" (copied there by scripts/schema/generate_header.py):
    // typedef struct fe_conv_options {
    // ...
    // #define FE_CONV_OPTIONS_INIT
    //     { (uint32_t)sizeof(fe_conv_options), NULL, ... }

The block runs to the first line that is not a comment. A macro's continuation lines are the
indented lines after its #define; this script ends them with the backslashes, aligned, so the
block holds none (a backslash ending a // comment would join the next line to it).

The header holds, for each section, a pair of marker lines; this script replaces what lies
between them with the section's blocks. Within a section a block that declares what another uses
comes first (a shared options struct before the ops that take it), then blocks by file name, so
adding an op file places its declarations without any list to edit.

usage: generate_header.py [--check] [ROOT]
  --check: change nothing; exit 1 naming the sections that differ (the test run's check).
"""
import pathlib
import re
import sys

BLOCK_BEGIN = re.compile(r'^// include/cudnnfe\.h, section "([^"]+)" \(copied there by '
                         r'scripts/schema/generate_header\.py\):$')
SECTION_BEGIN = re.compile(r'^/\* >>> "([^"]+)": declared in the files of lib/ops, copied by '
                           r'scripts/schema/generate_header\.py \*/$')
SECTION_END = re.compile(r'^/\* <<< "([^"]+)" \*/$')

DEFINES = [
    re.compile(r'^typedef (?:struct|enum) (\w+)', re.M),
    re.compile(r'^#define (\w+)', re.M),
    re.compile(r'^FE_API [^(]*?\b(\w+)\(', re.M),
]
NAME = re.compile(r'\b(?:fe|FE)_\w+\b')


class Block:
    def __init__(self, path, section, lines):
        self.path = path
        self.section = section
        self.text = '\n'.join(lines)
        self.defines = {m for pattern in DEFINES for m in pattern.findall(self.text)}
        self.uses = set(NAME.findall(re.sub(r'/\*.*?\*/', '', self.text, flags=re.S))) - self.defines


def with_continuations(lines):
    """End a macro's lines, but its last, with backslashes aligned one column past the longest."""
    out, i = [], 0
    while i < len(lines):
        end = i + 1
        if lines[i].startswith('#define'):
            while end < len(lines) and lines[end][:1] in (' ', '\t') and lines[end].strip():
                end += 1
        if end - i == 1:
            out.append(lines[i])
        else:
            width = max(len(line) for line in lines[i:end]) + 1
            out.extend(line.ljust(width) + '\\' for line in lines[i:end - 1])
            out.append(lines[end - 1])
        i = end
    return out


def read_blocks(ops_dir):
    blocks = []
    for path in sorted(ops_dir.glob('*.cpp')):
        lines = path.read_text().split('\n')
        for i, line in enumerate(lines):
            match = BLOCK_BEGIN.match(line)
            if not match:
                continue
            body = []
            for n, text in enumerate(lines[i + 1:], start=i + 2):
                if not text.startswith('//'):
                    break
                if text != '//' and not text.startswith('// '):
                    sys.exit(f'{path}:{n}: a line of public declarations starts "// " (or is "//" alone)')
                if text.endswith('\\'):
                    sys.exit(f'{path}:{n}: no backslash at the end: a macro continues on its indented lines')
                body.append(text[3:])
            if not body:
                sys.exit(f'{path}:{i + 1}: a public declarations block with nothing under it')
            blocks.append(Block(path.name, match.group(1), with_continuations(body)))
    return blocks


def order(blocks):
    """Blocks a section's others depend on first; otherwise by file name (stable)."""
    defined_by = {name: b for b in blocks for name in b.defines}
    needs = {id(b): {id(defined_by[n]) for n in b.uses if n in defined_by and defined_by[n] is not b}
             for b in blocks}
    shared = {dep for deps in needs.values() for dep in deps}
    ready = sorted(blocks, key=lambda b: (id(b) not in shared, b.path))
    placed, out = set(), []
    while ready:
        for b in ready:
            if needs[id(b)] <= placed:
                out.append(b)
                placed.add(id(b))
                ready.remove(b)
                break
        else:
            sys.exit('declarations that need each other: ' + ', '.join(b.path for b in ready))
    return out


def render(header_lines, blocks):
    sections = {}
    for b in blocks:
        sections.setdefault(b.section, []).append(b)
    out, i, seen = [], 0, []
    while i < len(header_lines):
        line = header_lines[i]
        out.append(line)
        match = SECTION_BEGIN.match(line)
        i += 1
        if not match:
            continue
        name = match.group(1)
        seen.append(name)
        while i < len(header_lines) and not SECTION_END.match(header_lines[i]):
            i += 1
        if i == len(header_lines) or SECTION_END.match(header_lines[i]).group(1) != name:
            sys.exit(f'include/cudnnfe.h: section "{name}" has no matching end marker')
        body = [b.text for b in order(sections.get(name, []))]
        out.extend('\n\n'.join(body).split('\n') if body else [])
        out.append(header_lines[i])
        i += 1
    missing = sorted(set(sections) - set(seen))
    if missing:
        files = ', '.join(b.path for name in missing for b in sections[name])
        sys.exit(f'include/cudnnfe.h has no section {missing} ({files} declare one): add its two marker lines')
    # Every name a section uses must be declared above it (in a section before, or by hand).
    text = '\n'.join(out)
    for b in blocks:
        at = text.index(b.text)
        for name in sorted(b.uses):
            first = re.search(r'(?:typedef (?:struct|enum)|#define) ' + name + r'\b', text)
            if first and first.start() > at:
                sys.exit(f'{b.path} uses {name}, declared further down include/cudnnfe.h')
    return out


def section_body(lines, name):
    """The lines between a section's markers (None where the header has no such section)."""
    for i, line in enumerate(lines):
        match = SECTION_BEGIN.match(line)
        if match and match.group(1) == name:
            end = next((j for j in range(i + 1, len(lines)) if SECTION_END.match(lines[j])), len(lines))
            return lines[i + 1:end]
    return None


def main(argv):
    check = '--check' in argv
    args = [a for a in argv if a != '--check']
    root = pathlib.Path(args[0]) if args else pathlib.Path(__file__).resolve().parents[2]
    header = root / 'include' / 'cudnnfe.h'
    before = header.read_text().split('\n')
    blocks = read_blocks(root / 'lib' / 'ops')
    after = render(before, blocks)
    sections = sorted({b.section for b in blocks})
    if after == before:
        print(f'include/cudnnfe.h: {len(blocks)} op files\' declarations in {len(sections)} sections, up to date')
        return 0
    if check:
        differ = [name for name in sections if section_body(before, name) != section_body(after, name)]
        print(f'include/cudnnfe.h differs from the declarations in lib/ops/*.cpp (sections: '
              f'{", ".join(differ) or "none; the lines around them"}): run python3 scripts/schema/generate_header.py')
        return 1
    header.write_text('\n'.join(after))
    print(f'include/cudnnfe.h: wrote {len(blocks)} op files\' declarations in {len(sections)} sections')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
