#!/usr/bin/env bash
# Regenerate the committed ABI lists (abi/symbols.txt, abi/enums.txt, abi/structs.txt) and the runtime package's
# symbols file (debian/libcudnnfe<major>.symbols) from the built library and the header. Run it after
# adding a function, an enum value or a struct field, and commit the four files with the change
# that adds it.
# A symbol already in the symbols file keeps the version that introduced it; a new one gets the
# package version of debian/changelog.
# usage: scripts/abi_update.sh [LIBRARY] [HEADER]   (defaults as scripts/abi_dump.sh)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/scripts/abi_dump.sh" "$ROOT/abi" "$@"

version=$(sed -nE '1s/^[^ ]+ \(([^)]+)\).*/\1/p' "$ROOT/debian/changelog")
major=$(sed -nE "s/^ *version *: *'([0-9]+)\..*/\1/p" "$ROOT/meson.build" | head -1)
symbols_file=$ROOT/debian/libcudnnfe$major.symbols
old=$(mktemp)
trap 'rm -f "$old"' EXIT
[ -f "$symbols_file" ] && cp "$symbols_file" "$old"
{
    echo "libcudnnfe.so.$major libcudnnfe$major #MINVER#"
    echo "* Build-Depends-Package: libcudnnfe-dev"
    # The version node of lib/cudnnfe.map, then every exported function.
    for name in "CUDNNFE_$major@CUDNNFE_$major" $(sed "s/\$/@CUDNNFE_$major/" "$ROOT/abi/symbols.txt"); do
        since=$(awk -v s="$name" '$1 == s {print $2}' "$old")
        echo " $name ${since:-$version}"
    done
} >"$symbols_file"
echo "abi_update: wrote abi/symbols.txt, abi/enums.txt, abi/structs.txt and debian/$(basename "$symbols_file") (new entries: $version)"
