#!/usr/bin/env bash
# Dump the public ABI as three lists:
#   OUT_DIR/symbols.txt  the exported function names, one a line (from the built library), sorted
#   OUT_DIR/enums.txt    "ENUM_TYPE ENUMERATOR VALUE", one a line (from the header, values as the
#                        C compiler computes them), sorted
#   OUT_DIR/structs.txt  "STRUCT INDEX FIELD TYPE", one a line per field of every struct of the
#                        header, in declaration order (scripts/abi_structs.py)
# usage: scripts/abi_dump.sh OUT_DIR [LIBRARY] [HEADER]
#   LIBRARY defaults to $BUILD_DIR/libcudnnfe.so (BUILD_DIR: build), HEADER to include/cudnnfe.h.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: abi_dump.sh OUT_DIR [LIBRARY] [HEADER]}
library=${2:-${BUILD_DIR:-$ROOT/build}/libcudnnfe.so}
header=${3:-$ROOT/include/cudnnfe.h}
[ -f "$library" ] || { echo "abi_dump: no library at $library (build first)" >&2; exit 2; }
[ -f "$header" ] || { echo "abi_dump: no header at $header" >&2; exit 2; }
mkdir -p "$out"

# Defined dynamic symbols, without their version node (fe_x@@CUDNNFE_1 -> fe_x).
nm -D --defined-only "$library" | awk '{print $3}' | sed 's/@.*//' | grep '^fe_' | LC_ALL=C sort -u >"$out/symbols.txt"

# The enumerators of every `typedef enum NAME ... { ... } NAME;` in the header, printed by a
# generated C program so that implicit and computed values come out as the compiler sees them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$header" >"$work/enums.c" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
text = re.sub(r'//[^\n]*', ' ', text)
print('#include <stdio.h>')
print('#include "%s"' % sys.argv[1])
print('int main(void) {')
for body, name in re.findall(r'typedef\s+enum\b[^{;]*\{([^}]*)\}\s*(\w+)\s*;', text):
    for item in body.split(','):
        item = item.strip()
        if not item:
            continue
        enumerator = re.match(r'[A-Za-z_]\w*', item).group(0)
        print('    printf("%%s %%s %%lld\\n", "%s", "%s", (long long)%s);' % (name, enumerator, enumerator))
print('    return 0;')
print('}')
PY
cc -std=c99 -o "$work/enums" "$work/enums.c"
"$work/enums" | LC_ALL=C sort >"$out/enums.txt"
python3 "$ROOT/scripts/abi_structs.py" dump "$header" >"$out/structs.txt"
echo "abi_dump: $(wc -l <"$out/symbols.txt") symbols, $(wc -l <"$out/enums.txt") enum values," \
    "$(wc -l <"$out/structs.txt") struct fields -> $out"
