#!/usr/bin/env python3
"""The fields of the header's structs, for the ABI guard (scripts/abi_dump.sh, abi_check.sh).

  abi_structs.py dump HEADER          print "STRUCT INDEX FIELD TYPE" for every field of every
                                      `typedef struct fe_x { ... } fe_x;`, in declaration order
  abi_structs.py check LISTED NOW     compare a committed list with a fresh dump: print one
                                      "ABI BROKEN: ..." line per field that moved, changed type
                                      or disappeared and per struct that disappeared, then one
                                      "NEW: fe_x.field" line per field not listed yet

A caller compiled against the header lays its structs out by these fields, so a field may only
be appended. TYPE is normalized text ("const char *", "int64_t[3]"): whitespace collapsed and
array bounds evaluated with the header's integer macros (FE_MAX_DIMS is 8), so respelling a bound
changes nothing while changing its value is a break.
"""
import re
import sys

STRUCT = re.compile(r'typedef\s+struct\s+(fe_\w+)\s*\{(.*?)\}\s*\1\s*;', re.S)
MACRO = re.compile(r'^\s*#\s*define\s+(\w+)\s+(.+?)\s*$', re.M)
DECLARATOR = re.compile(r'^(\**)\s*(\w+)\s*((?:\[[^\]]*\])*)$')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def integer_macros(text):
    """Macros whose value is an integer expression of other such macros (FE_MAX_DIMS 8)."""
    values = {}
    for name, value in MACRO.findall(text):
        expression = re.sub(r'\b([A-Za-z_]\w*)\b', lambda m: str(values.get(m.group(1), m.group(1))), value)
        if re.fullmatch(r'[0-9+\-*/() ]+', expression):
            values[name] = int(eval(expression))  # digits and operators only
    return values


def bound(text, macros):
    expression = re.sub(r'\b([A-Za-z_]\w*)\b', lambda m: str(macros.get(m.group(1), m.group(1))), text)
    if re.fullmatch(r'[0-9+\-*/() ]+', expression):
        return str(int(eval(expression)))
    return ' '.join(text.split())


def fields(body, macros):
    """(name, type) of each member, declarations with several declarators ("double min, max;")
    split into one field each."""
    out = []
    for declaration in body.split(';'):
        declaration = ' '.join(declaration.split())
        if not declaration:
            continue
        head, *rest = declaration.split(',')
        match = re.match(r'^(.*?)(\**\s*\w+\s*(?:\[[^\]]*\]\s*)*)$', head.strip())
        if not match:
            raise SystemExit(f'abi_structs: cannot read the declaration "{declaration}"')
        base = match.group(1).strip()
        for declarator in [match.group(2)] + rest:
            parts = DECLARATOR.match(declarator.strip().replace(' ', ''))
            if not parts or not base:
                raise SystemExit(f'abi_structs: cannot read the declaration "{declaration}"')
            stars, name, arrays = parts.groups()
            kind = base + (' ' + stars if stars else '')
            for size in re.findall(r'\[([^\]]*)\]', arrays):
                kind += f'[{bound(size, macros)}]'
            out.append((name, kind))
    return out


def dump(header):
    text = strip_comments(open(header).read())
    macros = integer_macros(text)
    for struct, body in STRUCT.findall(text):
        for index, (name, kind) in enumerate(fields(body, macros)):
            print(f'{struct} {index} {name} {kind}')


def read(path):
    """{struct: {field: (index, type)}} from a dump."""
    structs = {}
    for line in open(path):
        line = line.rstrip('\n')
        if not line.strip():
            continue
        struct, index, name, kind = line.split(' ', 3)
        structs.setdefault(struct, {})[name] = (int(index), kind)
    return structs


def check(listed_path, now_path):
    listed, now = read(listed_path), read(now_path)
    new = []
    for struct, members in listed.items():
        if struct not in now:
            print(f'ABI BROKEN: struct {struct} is listed in abi/structs.txt but the header no longer has it')
            continue
        for name, (index, kind) in sorted(members.items(), key=lambda item: item[1][0]):
            if name not in now[struct]:
                print(f'ABI BROKEN: {struct}.{name} (field {index}, {kind}) is listed in abi/structs.txt '
                      f'but the header no longer has it')
                continue
            now_index, now_kind = now[struct][name]
            if now_index != index:
                print(f'ABI BROKEN: {struct}.{name} was field {index}, the header now has it at {now_index} '
                      f'(fields are only appended)')
            if now_kind != kind:
                print(f'ABI BROKEN: {struct}.{name} was {kind}, the header now says {now_kind}')
    for struct, members in now.items():
        for name, (index, _) in sorted(members.items(), key=lambda item: item[1][0]):
            if name not in listed.get(struct, {}):
                new.append(f'{struct}.{name}')
    for name in new:
        print(f'NEW: {name}')


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'dump':
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == 'check':
        check(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit('usage: abi_structs.py dump HEADER | check LISTED NOW')


if __name__ == '__main__':
    main()
