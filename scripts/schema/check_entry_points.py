#!/usr/bin/env python3
"""Check that the call shape the bindings' generators derive from the op schema
(bindings/schema_model.py: Op.c_arguments) is the header's: for every op, the entry point's
arguments after the graph have the same count and kinds (tensor, array, count, enum, struct), and
each tensor argument is named as the schema names it (schema::argument_name), which is how an
entry point made from its description names a NULL argument; and that the entry point is declared
in the header section of the op's family (the section its file's declaration block names, which
must be the family its description gives).
Prints one line per op that differs and exits 1 when one does.

usage: check_entry_points.py SCHEMA_JSON HEADER
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / 'bindings'))
import schema_model  # noqa: E402


def c_kind(declaration):
    """The kind of one C parameter, as c_arguments names roles."""
    d = ' '.join(declaration.split())
    if re.match(r'(const )?fe_\w+_(options|scales) \*', d):
        return 'scales' if '_scales' in d else 'options'
    if d.startswith('fe_tensor **'):
        return 'output'
    if d.startswith('fe_tensor *const *'):
        return 'inputs'
    if d.startswith('fe_tensor *'):
        return 'input'
    if d.startswith('size_t '):
        return 'count'
    if re.match(r'fe_\w+ \w+$', d):
        return 'enum'
    return 'param'


def expected_kind(role, what):
    if role == 'mode':
        return 'enum'
    if role == 'param' and what.type == 'enum':
        return 'enum'
    return role


SECTION = re.compile(r'/\* >>> "([^"]+)".*?\*/(.*?)/\* <<< "\1" \*/', re.S)


def section_of(raw_header, entry_point):
    """The generated section of the header that declares `entry_point`, or None."""
    for m in SECTION.finditer(raw_header):
        if re.search(r'FE_API\s+fe_status\s+' + entry_point + r'\s*\(', m.group(2)):
            return m.group(1)
    return None


def main():
    model = schema_model.load(sys.argv[1])
    raw = pathlib.Path(sys.argv[2]).read_text()
    text = re.sub(r'/\*.*?\*/', ' ', raw, flags=re.S)
    bad = 0
    for op in model.ops:
        section = section_of(raw, op.entry_point)
        if section is not None and section != op.family:
            print(f'{op.kind}: {op.entry_point} is declared in the section "{section}", its description\'s family is '
                  f'"{op.family}"')
            bad += 1
        m = re.search(r'FE_API\s+fe_status\s+' + op.entry_point + r'\s*\((.*?)\)\s*;', text, re.S)
        if not m:
            print(f'{op.kind}: {op.entry_point} is not in the header')
            bad += 1
            continue
        declarations = m.group(1).split(',')[1:]
        header = [c_kind(a) for a in declarations]
        derived = [expected_kind(role, what) for role, _, what in op.c_arguments()]
        if header != derived:
            print(f'{op.kind}: the header has ({", ".join(header)}), the schema gives ({", ".join(derived)})')
            bad += 1
            continue
        names = [re.search(r'(\w+)\s*$', a).group(1) for a in declarations]
        for (role, _, what), name in zip(op.c_arguments(), names):
            if role in ('input', 'output') and what.argument != name:
                print(f'{op.kind}: the header names {what.name} `{name}`, the schema `{what.argument}`')
                bad += 1
    conveniences = [(op, c) for op in model.ops for c in op.conveniences]
    for op, c in conveniences:
        m = re.search(r'FE_API\s+fe_status\s+' + c.entry_point + r'\s*\((.*?)\)\s*;', text, re.S)
        if not m:
            print(f'{c.entry_point}: a convenience of {op.kind}, not in the header')
            bad += 1
            continue
        declared = [' '.join(a.split()) for a in m.group(1).split(',')]
        expected = (['fe_graph *graph'] + [f'fe_tensor *{operand}' for operand in c.operands] +
                    [f'const {op.options.c_type} *options', 'fe_tensor **out_y'])
        if declared != expected:
            print(f'{c.entry_point}: the header has ({", ".join(declared)}), its description gives '
                  f'({", ".join(expected)})')
            bad += 1
    total = len(model.ops) + len(conveniences)
    print(f'{total - bad} of {total} entry points (ops and conveniences) have the shape the schema gives')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
