#!/usr/bin/env python3
"""Render the op reference of docs/graph-json.md from the op schema (`cudnnfe schema`).

The reference sits in the document between the BEGIN and END marker lines below. With --check,
compare the committed text with the rendering and exit 1 (printing the first difference and the
command that regenerates it) when they differ; without it, rewrite the document.

usage: render_docs.py SCHEMA_JSON DOC [--check]
"""
import difflib
import json
import sys

BEGIN = '<!-- op reference: generated from the op schema by scripts/schema/render_docs.py; do not edit -->'
END = '<!-- end of the op reference -->'
REGENERATE = 'build/tools/cudnnfe/cudnnfe schema > schema.json && python3 scripts/schema/render_docs.py schema.json docs/graph-json.md'

# Fields that are not attributes: the op's own members, inputs, and counts the arrays carry.
NOT_ATTRIBUTES = {'name', 'tensor', 'spatial_count', 'dims_count', 'tensor_count', 'tensor_array'}

TYPE_TEXT = {
    'flag': 'boolean',
    'integer': 'integer',
    'number': 'number',
    'data_type': 'data type',
    'axes': 'array of dims',
    'spatial_array': 'array, one integer per spatial dim',
    'dims_array': 'array of integers',
}


def number_text(value):
    return f'{value:g}' if isinstance(value, float) else str(value)


def field_default(field, enums):
    default, kind = field['default'], field['type']
    if kind == 'flag':
        return 'false' if not default else 'true'
    if kind in ('enum', 'data_type'):
        names = {v['value']: v['json_name'] for v in enums[field['enum']]['values']}
        return f'`"{names.get(default, default)}"`'
    if kind == 'spatial_array':
        return number_text(default[0]) + ' in every dim' if len(set(default)) == 1 else str(default)
    if kind == 'axes':
        return 'required'
    return number_text(default)


def type_text(kind, enum_name, enums):
    if kind == 'enum':
        return ', '.join(f'`"{v["json_name"]}"`' for v in enums[enum_name]['values'])
    return TYPE_TEXT[kind]


def port_list(ports, optional_note):
    out = []
    for p in ports:
        name = f'`{p["name"]}`'
        when = p.get('when')
        if when == 'optional':
            out.append(f'*{name}*')
        elif when:
            out.append(f'{name} (with `{when}`)')
        elif p.get('type'):
            out.append(f'{name} ({p["type"]})')
        else:
            out.append(name)
    return ', '.join(out) if out else optional_note


def render(schema):
    enums = {e['c_type']: e for e in schema['enums']}
    structs = {s['c_type']: s for s in schema['structs']}
    families = []
    for op in schema['ops']:
        if not families or families[-1][0] != op['family']:
            families.append((op['family'], []))
        families[-1][1].append(op)
    lines = []
    for family, ops in families:
        lines += [f'### {family}', '', '| op | inputs (optional in *italics*) | outputs | C call |', '|---|---|---|---|']
        attributes = {}  # name -> (row, [op kinds])
        for op in ops:
            options = structs.get(op.get('options'))
            scales = structs.get(op.get('scales'))
            inputs = list(op['inputs'])
            if scales:
                inputs += [{'name': f['name'], 'doc': f['doc']} for f in scales['fields']]
            if options:
                for f in options['fields']:
                    if f['name'] not in op['takes']:
                        continue
                    if f['type'] == 'tensor':
                        inputs.append({'name': f.get('port', f['name']), 'when': 'optional', 'doc': f['doc']})
                    elif f['type'] == 'tensor_array':
                        inputs.append({'name': f'{f["name"]}_<i>', 'when': 'optional', 'doc': f['doc']})
            kind = f'`{op["kind"]}`'
            if op.get('kinds'):
                kind = 'one kind per mode (below)'
            lines.append(f'| {kind} | {port_list(inputs, "none")} | {port_list(op["outputs"], "none")} | '
                         f'`{op["entry_point"]}` |')
            rows = []
            for p in op['params']:
                default = 'required' if p['required'] else ('true' if p['type'] == 'flag' else 'absent')
                rows.append((p['name'], type_text(p['type'], p.get('enum'), enums), default, p['doc']))
            if options:
                for f in options['fields']:
                    if f['type'] in NOT_ATTRIBUTES or f['name'] == 'compute_data_type' or f['name'] not in op['takes']:
                        continue
                    rows.append((f['name'], type_text(f['type'], f.get('enum'), enums), field_default(f, enums),
                                 f['doc']))
            for row in rows:
                attributes.setdefault(row[0], (row, []))[1].append(op['kind'])
        lines.append('')
        for op in ops:
            if op.get('kinds'):
                names = ', '.join(f'`{v["json_name"]}`' for v in enums[op['kinds']]['values'])
                lines += [f'The kinds ({op["kinds"]}): {names}.', '']
        if attributes:
            lines += ['| attribute | type | default | ops | meaning |', '|---|---|---|---|---|']
            for name, (row, kinds) in attributes.items():
                which = 'all' if len(kinds) == len(ops) else ', '.join(f'`{k}`' for k in kinds)
                lines.append(f'| `{row[0]}` | {row[1]} | {row[2]} | {which} | {row[3]} |')
            lines.append('')
        no_compute = [op['kind'] for op in ops if not op['takes_compute_data_type']]
        if no_compute:
            if len(no_compute) == len(ops):
                lines += ['None takes a compute data type.', '']
            else:
                verb = 'takes' if len(no_compute) == 1 else 'take'
                lines += [', '.join(f'`{k}`' for k in no_compute) + f' {verb} no compute data type.', '']
    return '\n'.join(lines).rstrip('\n') + '\n'


def main():
    schema_path, doc_path, *flags = sys.argv[1:]
    schema = json.load(open(schema_path))
    text = open(doc_path).read()
    if BEGIN not in text or END not in text:
        print(f'render_docs: {doc_path} lacks the marker lines of the op reference')
        return 1
    head, rest = text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    rendered = '\n' + render(schema) + '\n'
    if '--check' in flags:
        if body == rendered:
            print(f'render_docs: the op reference of {doc_path} matches the op schema')
            return 0
        diff = difflib.unified_diff(body.splitlines(), rendered.splitlines(), 'committed', 'schema', lineterm='', n=1)
        print(f'render_docs: the op reference of {doc_path} differs from the op schema; regenerate it with\n'
              f'  {REGENERATE}')
        for line in list(diff)[:20]:
            print('  ' + line)
        return 1
    open(doc_path, 'w').write(head + BEGIN + rendered + END + tail)
    print(f'render_docs: wrote the op reference of {doc_path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
