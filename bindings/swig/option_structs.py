#!/usr/bin/env python3
"""Write the FE_OPTIONS lines of cudnnfe.i for every option struct of the header.

An option struct is a `typedef struct fe_x { ... } fe_x;` that has a `#define FE_X_INIT` macro: it
gets FE_OPTIONS(fe_x, FE_X_INIT), a constructor starting from the macro. A pointer member followed
by its count, `size_t num_<member>`, gets FE_OPTIONS_ARRAY, a setter that keeps a copy. A fixed-size
array of tensors with its count, `fe_tensor *<member>[N]` and `size_t <member>_count`, gets
FE_OPTIONS_TENSORS, which hides both: the header's <struct>_set_<member> sets them. So structs
added to the header need no change to the interface.

usage: option_structs.py HEADER OUTPUT
"""
import re
import sys

STRUCT = re.compile(r'typedef struct (fe_\w+)\s*\{(.*?)\}\s*\1\s*;', re.S)
POINTER_MEMBER = re.compile(r'^\s*(?:const\s+)?(\w+)\s*\*\s*(\w+)\s*;', re.M)
TENSOR_ARRAY_MEMBER = re.compile(r'^\s*fe_tensor\s*\*\s*(\w+)\s*\[\s*\w+\s*\]\s*;', re.M)


def main() -> int:
    header, output = sys.argv[1:]
    text = re.sub(r'/\*.*?\*/', '', open(header).read(), flags=re.S)
    macros = set(re.findall(r'#define\s+(FE_\w+_INIT)\b', text))
    lines = ['/* Generated from cudnnfe.h by option_structs.py: one line per option struct. */']
    for name, body in STRUCT.findall(text):
        init = name.upper() + '_INIT'
        if init not in macros:
            continue
        lines.append(f'FE_OPTIONS({name}, {init})')
        for element, member in POINTER_MEMBER.findall(body):
            if re.search(rf'\bsize_t\s+num_{member}\s*;', body):
                lines.append(f'FE_OPTIONS_ARRAY({name}, {member}, num_{member}, {element})')
        for member in TENSOR_ARRAY_MEMBER.findall(body):
            if re.search(rf'\bsize_t\s+{member}_count\s*;', body):
                lines.append(f'FE_OPTIONS_TENSORS({name}, {member}, {member}_count)')
    open(output, 'w').write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
