#!/usr/bin/env bash
# The ABI guard: compare the built library and the header with the committed lists in abi/.
# Fails when a listed symbol is no longer exported, a listed enum value disappeared or changed, or
# a listed struct field (abi/structs.txt) moved, changed type or disappeared, or its struct did
# (the ABI is append-only). Symbols, values and fields not listed yet pass, with a note to run
# scripts/abi_update.sh and commit its output with the change. Also fails when
# debian/libcudnnfe<major>.symbols lacks a listed symbol.
# usage: scripts/abi_check.sh [LIBRARY] [HEADER]   (defaults as scripts/abi_dump.sh)
#   ABI_DIR: the committed lists (default abi/); SYMBOLS_FILE: the package's symbols file.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
abi_dir=${ABI_DIR:-$ROOT/abi}
major=$(sed -nE "s/^ *version *: *'([0-9]+)\..*/\1/p" "$ROOT/meson.build" | head -1)
symbols_file=${SYMBOLS_FILE:-$ROOT/debian/libcudnnfe$major.symbols}
now=$(mktemp -d)
trap 'rm -rf "$now"' EXIT
bash "$ROOT/scripts/abi_dump.sh" "$now" "$@" >/dev/null || { echo "abi_check: FAILED (could not dump the ABI)"; exit 1; }

broken=0
while read -r symbol; do
    [ -n "$symbol" ] || continue
    if ! grep -qxF "$symbol" "$now/symbols.txt"; then
        echo "ABI BROKEN: $symbol is listed in abi/symbols.txt but the library no longer exports it"
        broken=$((broken + 1))
    fi
    if ! grep -q "^ $symbol@" "$symbols_file"; then
        echo "OUT OF DATE: $(basename "$symbols_file") lacks $symbol (run scripts/abi_update.sh)"
        broken=$((broken + 1))
    fi
done <"$abi_dir/symbols.txt"
while read -r type name value; do
    [ -n "$name" ] || continue
    current=$(awk -v n="$name" '$2 == n {print $1 " " $3}' "$now/enums.txt")
    if [ -z "$current" ]; then
        echo "ABI BROKEN: $type $name = $value is listed in abi/enums.txt but the header no longer has it"
        broken=$((broken + 1))
    elif [ "$current" != "$type $value" ]; then
        echo "ABI BROKEN: $type $name was $value, the header now says ${current#* } (of ${current%% *})"
        broken=$((broken + 1))
    fi
done <"$abi_dir/enums.txt"
# Struct fields: abi_structs.py prints one "ABI BROKEN: ..." line per problem, then "NEW: ..." ones.
structs_report=$(python3 "$ROOT/scripts/abi_structs.py" check "$abi_dir/structs.txt" "$now/structs.txt") ||
    { echo "abi_check: FAILED (could not compare the structs)"; exit 1; }
struct_problems=$(grep -c '^ABI BROKEN: ' <<<"$structs_report")
grep '^ABI BROKEN: ' <<<"$structs_report"
broken=$((broken + struct_problems))

new_symbols=$(LC_ALL=C comm -13 "$abi_dir/symbols.txt" "$now/symbols.txt")
new_values=$(awk 'NR == FNR {listed[$2] = 1; next} !($2 in listed) {print $2}' "$abi_dir/enums.txt" "$now/enums.txt")
new_fields=$(sed -n 's/^NEW: //p' <<<"$structs_report")
new=$(echo $new_symbols $new_values $new_fields)
if [ -n "$new" ]; then
    echo "note: not listed yet (appending is fine): $new"
    echo "note: run scripts/abi_update.sh and commit abi/ and debian/$(basename "$symbols_file") with this change"
fi
symbols=$(wc -l <"$abi_dir/symbols.txt")
values=$(wc -l <"$abi_dir/enums.txt")
fields=$(wc -l <"$abi_dir/structs.txt")
if [ "$broken" -gt 0 ]; then
    echo "abi_check: FAILED ($broken problems against $symbols listed symbols, $values listed enum values and $fields listed struct fields)"
    exit 1
fi
echo "abi_check: ok ($symbols listed symbols, $values listed enum values and $fields listed struct fields present and unchanged)"
