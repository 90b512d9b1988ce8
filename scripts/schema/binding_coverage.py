#!/usr/bin/env python3
"""Check that the Java, C# and Go idiomatic layers cover the whole C ABI.

Every function of cudnnfe.h must be called by each binding's hand-written layer (directly, or
through the helper the SWIG interface puts in its place); every field of every option struct
(a struct with an _INIT macro) must be set by it, and every field of a struct the library fills
in (OUTPUT_STRUCTS) read by it; and every value of every enum must exist in
the binding's enum of the same name. What a binding leaves out on purpose is listed in
EXCEPTIONS below, each with its reason. Prints one line per gap and exits 1 when there is one.

Each binding's generated layer (written from the op schema into BUILD_DIR/bindings/<language>/
generated-layer/) counts as part of its layer.

usage: binding_coverage.py HEADER BINDINGS_DIR [BUILD_DIR]
"""
import pathlib
import re
import sys

# (language, C name) -> why the binding does not call or set it.
EXCEPTIONS = {
    ('*', 'fe_last_error_message'): 'read by each binding\'s error check (Check / call)',
    ('*', 'fe_conv_options_set_padding'): 'Padding goes through the pre and post padding setters',
    ('*', 'fe_resample_options_set_padding'): 'Padding goes through the pre and post padding setters',
    ('go', 'fe_status_string'): 'Status.String names the Go constants, generated from the status enum',
}

# Functions the SWIG interface replaces by a helper of its own (bindings/swig/cudnnfe.i): calling
# the helper covers the function.
HELPERS = {
    'fe_graph_engine_knobs': 'fe_swig_engine_knobs',
    'fe_graph_add_candidate': 'fe_swig_add_candidate',
}

# Structs the library fills in for the caller: each binding reads every field (and sets none but
# struct_size, which its _INIT value carries).
OUTPUT_STRUCTS = {'fe_config_info'}

LANGUAGES = {
    'java': ('java/src/main/java/dev/cudnnfe', '.java'),
    'csharp': ('csharp/src', '.cs'),
    'go': ('go', '.go'),
}


def camel(c_type):
    """fe_resample_padding -> ResamplePadding"""
    return ''.join(part.capitalize() for part in c_type[3:].split('_'))


def parse_header(path):
    text = re.sub(r'/\*.*?\*/', ' ', pathlib.Path(path).read_text(), flags=re.S)
    functions = re.findall(r'FE_API\s+[\w\s\*]*?\b(fe_\w+)\s*\(', text)
    structs = {}
    macros = set(re.findall(r'#define\s+(FE_\w+_INIT)\b', text))
    for name, body in re.findall(r'typedef struct (fe_\w+)\s*\{(.*?)\}\s*\1\s*;', text, re.S):
        if name.upper() + '_INIT' not in macros:
            continue
        fields = []
        for declaration in body.split(';'):
            for part in declaration.split(','):
                m = re.search(r'(\w+)\s*(\[[^\]]*\])?\s*$', part.strip())
                if m and m.group(1) != 'struct_size':
                    fields.append(m.group(1))
        structs[name] = fields
    enums = {}
    for name, body in re.findall(r'typedef enum (fe_\w+)\s+FE_ENUM_BASE\s*\{(.*?)\}', text, re.S):
        enums[name] = {int(v) for v in re.findall(r'FE_\w+\s*=\s*(-?\d+)', body)}
    return functions, structs, enums


def sources(root, language, build):
    folder, suffix = LANGUAGES[language]
    files = sorted((root / folder).glob('*' + suffix))
    if build is not None:
        files += sorted((build / 'bindings' / language / 'generated-layer').rglob('*' + suffix))
    if language == 'go':
        files = [f for f in files if not f.name.endswith('_test.go')]
    return '\n'.join(f.read_text() for f in files)


def called(text, language, function):
    function = HELPERS.get(function, function)
    if language == 'go':
        return re.search(r'\bcapi\.' + function[0].upper() + function[1:] + r'\b', text) is not None
    return re.search(r'\bNativeApi(\.|::)' + function + r'\b', text) is not None


def field_set(text, language, struct, field):
    setter = struct.replace('_options', '') + '_options_set_' + field
    if called(text, language, setter):
        return True
    # A fixed-size array's count <member>_count is set with its array by the header's setter.
    if field.endswith('_count') and called(text, language, setter[:-len('_count')]):
        return True
    # An array member and its count are set together by the interface's set_<member> helper.
    member = field[len('num_'):] if field.startswith('num_') else field
    if re.search(r'\.[sS]et_' + member + r'\(', text):
        return True
    if language == 'java':
        return re.search(r'[.:]set' + field[0].upper() + field[1:] + r'\b', text) is not None
    if language == 'csharp':
        return re.search(r'\.' + field + r'\s*=[^=]', text) is not None
    return re.search(r'\.Set' + field[0].upper() + field[1:] + r'\b', text) is not None


def field_read(text, language, field):
    if language == 'java':
        return re.search(r'\.get' + field[0].upper() + field[1:] + r'\(', text) is not None
    if language == 'csharp':
        return re.search(r'\.' + field + r'\b(?!\s*=[^=])', text) is not None
    return re.search(r'\.Get' + field[0].upper() + field[1:] + r'\(', text) is not None


def enum_values(text, language, c_type):
    name = camel(c_type)
    if language == 'java':
        m = re.search(r'public enum ' + name + r'\s*\{(.*?)\n\}', text, re.S)
        return {int(v) for v in re.findall(r'\b[A-Z][A-Z0-9_]*\((-?\d+)\)', m.group(1))} if m else set()
    if language == 'csharp':
        m = re.search(r'public enum ' + name + r'\s*(?::\s*\w+\s*)?\{(.*?)\}', text, re.S)
        return {int(v) for v in re.findall(r'=\s*(-?\d+)', m.group(1))} if m else set()
    values = {int(v) for v in re.findall(r'\b\w+\s+' + name + r'\s*=\s*(-?\d+)', text)}
    codes = re.search(name[0].lower() + name[1:] + r'Codes\s*=\s*\[\.\.\.\]int32\{([^}]*)\}', text)
    if codes:
        values |= {int(v) for v in re.findall(r'-?\d+', codes.group(1))}
    # An iota enum whose code() method maps it to the C values.
    method = re.search(r'func \(\w+ ' + name + r'\) code\(\)[^{]*\{(.*?)\n\}', text, re.S)
    if method:
        values |= {int(v) for v in re.findall(r'return (-?\d+)', method.group(1))}
    return values


def excused(language, name):
    return (language, name) in EXCEPTIONS or ('*', name) in EXCEPTIONS


def main():
    header, bindings = sys.argv[1], pathlib.Path(sys.argv[2])
    build = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else None
    functions, structs, enums = parse_header(header)
    gaps = []
    for language in LANGUAGES:
        text = sources(bindings, language, build)
        for function in functions:
            if not excused(language, function) and not called(text, language, function):
                gaps.append(f'{language}: no binding calls {function}')
        for struct, fields in structs.items():
            for field in fields:
                if excused(language, f'{struct}.{field}'):
                    continue
                if struct in OUTPUT_STRUCTS:
                    if not field_read(text, language, field):
                        gaps.append(f'{language}: {struct}.{field} is never read')
                elif not field_set(text, language, struct, field):
                    gaps.append(f'{language}: {struct}.{field} is never set')
        for c_type, values in enums.items():
            missing = values - enum_values(text, language, c_type)
            for value in sorted(missing):
                if not excused(language, f'{c_type}={value}'):
                    gaps.append(f'{language}: {camel(c_type)} lacks {c_type} value {value}')
    for gap in gaps:
        print(gap)
    checked = len(functions) + sum(len(f) for f in structs.values()) + sum(len(v) for v in enums.values())
    print(f'binding_coverage: {checked} functions, option fields and enum values in 3 languages; {len(gaps)} gaps')
    return 1 if gaps else 0


if __name__ == '__main__':
    sys.exit(main())
