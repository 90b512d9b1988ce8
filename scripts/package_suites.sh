#!/usr/bin/env bash
# The packaging suite: build the Debian packages, install them into a throwaway root, build and
# run outside programs against the installed files, and guard the ABI. Each check prints one line
# "PASS name", "FAIL name" or "SKIP name (why)"; the last line is "N passed, N failed, N skipped".
#
# The packages are built from a copy of the source tree in $BUILD_DIR/package with the test suites
# off and no debug info, and the copy's build directory is kept (dpkg-buildpackage -nc): the first
# run compiles everything, later ones only what changed.
# usage: scripts/package_suites.sh   (BUILD_DIR: the test build, default build/; PACKAGE_JOBS: the
# package build's parallel jobs, default 2)
set -uo pipefail
source "$(dirname "$0")/env.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
WORK=$BUILD_DIR/package
LOG_DIR=$WORK/logs
mkdir -p "$LOG_DIR"
passed=0
failed=0
skipped=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && [ -f "$2" ] && tail -15 "$2" | sed 's/^/    /'; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1 ($2)"; }
finish() { echo "$passed passed, $failed failed, $skipped skipped"; [ "$failed" -eq 0 ]; exit; }

# What building and checking packages needs beyond the test build's tools.
missing=()
for p in debhelper dpkg-dev pkg-config cmake lintian; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"; } \
        >"$LOG_DIR/apt.log" 2>&1 || { fail "install ${missing[*]}" "$LOG_DIR/apt.log"; finish; }
fi

version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
upstream=${version%%-*}
major=$(sed -nE "s/^ *version *: *'([0-9]+)\..*/\1/p" "$ROOT/meson.build" | head -1)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

# 1. Build. The tree goes to a staging copy, and from there into the kept copy only the files whose
# content changed, stamped with the time of this copy: ninja rebuilds exactly those. (Keeping the
# tree's own times instead would miss a file edited while an earlier package build compiled it:
# its time would be older than the object made from its previous content.)
src=$WORK/src/cudnnfe-$upstream
stage=$WORK/stage
rm -rf "$stage" && mkdir -p "$src" "$stage"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -co --exclude-standard -z | tar -c --null -T - 2>/dev/null) | tar -x -C "$stage"
else
    tar -c -C "$ROOT" --exclude='./build*' --exclude='./debian/tmp' . | tar -x -C "$stage"
fi
python3 - "$stage" "$src" <<'PY' || { fail "copy the tree into $src"; finish; }
import filecmp, os, shutil, sys
stage, src = sys.argv[1:]
for top, dirs, files in os.walk(stage):
    into = os.path.join(src, os.path.relpath(top, stage))
    os.makedirs(into, exist_ok=True)
    for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
        a, b = os.path.join(top, name), os.path.join(into, name)
        if os.path.islink(a):
            if not os.path.islink(b) or os.readlink(a) != os.readlink(b):
                if os.path.lexists(b):
                    os.remove(b)
                os.symlink(os.readlink(a), b)
        elif os.path.islink(b) or not os.path.isfile(b) or not filecmp.cmp(a, b, shallow=False):
            if os.path.lexists(b):
                os.remove(b)
            shutil.copyfile(a, b)
            shutil.copymode(a, b)
PY
rm -rf "$stage"
debs=$(cd -P "$src/.." && pwd)  # where dpkg-buildpackage writes the packages
rm -f "$debs"/*.deb "$debs"/*.changes "$debs"/*.buildinfo
start=$SECONDS
(cd "$src" && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=${PACKAGE_JOBS:-2}" DEB_CFLAGS_STRIP=-g DEB_CXXFLAGS_STRIP=-g \
    CUDA_HOME="$CUDA_HOME" dpkg-buildpackage -b -us -uc -nc) >"$LOG_DIR/build.log" 2>&1
if [ $? -eq 0 ]; then pass "dpkg-buildpackage ($((SECONDS - start)) s)"; else fail "dpkg-buildpackage" "$LOG_DIR/build.log"; finish; fi

# 2. Each package holds what its ecosystem looks for.
contains() { # PACKAGE ARCH PATH...
    local deb=$debs/$1_${version}_$2.deb p
    [ -f "$deb" ] || { fail "$1: no $deb"; return; }
    dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$LOG_DIR/$1.contents"
    for p in "${@:3}"; do
        grep -qxF "$p" "$LOG_DIR/$1.contents" || { fail "$1: lacks $p" "$LOG_DIR/$1.contents"; return; }
    done
    pass "$1 holds ${*:3}"
}
libdir=/usr/lib/$triplet
contains "libcudnnfe$major" "$arch" "$libdir/libcudnnfe.so.$upstream" "$libdir/libcudnnfe.so.$major"
contains libcudnnfe-dev "$arch" /usr/include/cudnnfe.h "$libdir/libcudnnfe.so" "$libdir/pkgconfig/cudnnfe.pc" \
    "$libdir/cmake/cudnnfe/cudnnfeConfig.cmake" "$libdir/cmake/cudnnfe/cudnnfeConfigVersion.cmake"
contains libcudnnfe-java "$arch" "/usr/share/java/cudnnfe-$upstream.jar" /usr/share/java/cudnnfe.jar \
    "$libdir/jni/libcudnnfe_java.so"
contains libcudnnfe-cil "$arch" "$libdir/cli/cudnnfe/CudnnFe.dll" "$libdir/cli/cudnnfe/libcudnnfe_csharp.so"
contains golang-cudnnfe-dev all /usr/share/gocode/src/cudnnfe.dev/cudnnfe/go.mod \
    /usr/share/gocode/src/cudnnfe.dev/cudnnfe/internal/capi/capi.go
# The Go sources build against this version's header and library: the dependency says which.
go_deb=$debs/golang-cudnnfe-dev_${version}_all.deb
if dpkg-deb -f "$go_deb" Depends 2>/dev/null | grep -qE "libcudnnfe-dev \(>= ${version//./\\.}\)"; then
    pass "golang-cudnnfe-dev depends on libcudnnfe-dev >= $version"
else
    fail "golang-cudnnfe-dev's dependency on libcudnnfe-dev is not versioned: $(dpkg-deb -f "$go_deb" Depends 2>&1)"
fi
# The tool: a man page for it and for each command the document describes, bash completion, the
# documents its help and pages name, the example graphs.
tool_pages=(/usr/share/man/man1/cudnnfe.1.gz)
for c in $(sed -nE 's/^### cudnnfe ([a-z-]+).*/\1/p' "$ROOT/docs/cudnnfe-tool.md" | uniq); do
    tool_pages+=("/usr/share/man/man1/cudnnfe-$c.1.gz")
done
tool_examples=()
for g in "$ROOT"/examples/graphs/*.json; do tool_examples+=("/usr/share/doc/cudnnfe-tools/examples/graphs/${g##*/}"); done
contains cudnnfe-tools "$arch" /usr/bin/cudnnfe "${tool_pages[@]}" /usr/share/bash-completion/completions/cudnnfe \
    /usr/share/doc/cudnnfe-tools/graph-json.md /usr/share/doc/cudnnfe-tools/cudnnfe-tool.md "${tool_examples[@]}"
# The runtime package declares its symbols (dpkg-shlibdeps uses them for the packages above).
if dpkg-deb -I "$debs/libcudnnfe${major}_${version}_$arch.deb" symbols 2>/dev/null | grep -q '^ fe_version@'; then
    pass "libcudnnfe$major has a symbols file"
else
    fail "libcudnnfe$major has no symbols file listing fe_version"
fi

# 3. Install into a throwaway root.
root=$WORK/root
rm -rf "$root" && mkdir -p "$root"
ok=1
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root" || ok=0; done
lib=$root$libdir
if [ $ok = 1 ] && [ -L "$lib/libcudnnfe.so" ] && [ -f "$lib/libcudnnfe.so.$major" ]; then
    pass "dpkg -x every package into a root"
else
    fail "dpkg -x every package into a root"; finish
fi

# 4. Outside programs against the installed files only. Without a GPU, cuDNN sees the
# toolkit's stub driver (as the deviceless suite does) to list its runtime-compiled engines.
run_path=$lib:$LD_LIBRARY_PATH
nvidia-smi -L >/dev/null 2>&1 || run_path=$lib:$BUILD_DIR/tests/deviceless/stub-driver:$LD_LIBRARY_PATH
out=$WORK/bin
mkdir -p "$out"
export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$lib/pkgconfig:$root/usr/share/pkgconfig PKG_CONFIG_PATH=
if flags=$(pkg-config --cflags --libs cudnnfe 2>"$LOG_DIR/pkg-config.log") &&
    cc -std=c99 -Wall -Wextra -pedantic -Werror -o "$out/pkgconfig_client" "$ROOT/tests/install/pkgconfig_client.c" \
        $flags >"$LOG_DIR/pkgconfig_client.log" 2>&1 &&
    LD_LIBRARY_PATH=$run_path "$out/pkgconfig_client" "$upstream" >>"$LOG_DIR/pkgconfig_client.log" 2>&1; then
    pass "pkg-config client: cc \$(pkg-config --cflags --libs cudnnfe) [$flags], run"
else
    cat "$LOG_DIR/pkg-config.log" >>"$LOG_DIR/pkgconfig_client.log"
    fail "pkg-config client" "$LOG_DIR/pkgconfig_client.log"
fi
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR PKG_CONFIG_PATH
# The CMake package: a project that finds cudnnfe in the root (CMAKE_PREFIX_PATH, the way a
# prefix is searched: <prefix>/lib/<arch>/cmake/cudnnfe) and links its imported target.
cmake_client=$WORK/cmake-client
rm -rf "$cmake_client" && mkdir -p "$cmake_client"
cat >"$cmake_client/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(cudnnfe_cmake_client C)
find_package(cudnnfe 1 REQUIRED)
add_executable(app app.c)
target_link_libraries(app cudnnfe::cudnnfe)
# Found in the root, not elsewhere on this machine; the target names the root's files.
get_filename_component(root "${EXPECTED_ROOT}" REALPATH)
get_target_property(location cudnnfe::cudnnfe IMPORTED_LOCATION)
get_target_property(includes cudnnfe::cudnnfe INTERFACE_INCLUDE_DIRECTORIES)
get_filename_component(found_dir "${cudnnfe_DIR}" REALPATH)
string(FIND "${found_dir}" "${root}/" in_dir)
string(FIND "${location}" "${root}/" in_location)
if(NOT in_dir EQUAL 0 OR NOT in_location EQUAL 0 OR NOT includes STREQUAL "${root}/usr/include")
  message(FATAL_ERROR "cudnnfe ${cudnnfe_VERSION} from ${cudnnfe_DIR}: ${location}, ${includes} (not in ${root})")
endif()
message(STATUS "cudnnfe ${cudnnfe_VERSION} from ${cudnnfe_DIR}: ${location}, include ${includes}")
CMAKE
cat >"$cmake_client/app.c" <<'C'
#include <cudnnfe.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (fe_version() != FE_VERSION || (argc > 1 && strcmp(fe_version_string(), argv[1]) != 0)) {
        fprintf(stderr, "library %s (%u), header %d, package %s\n", fe_version_string(), (unsigned)fe_version(),
                FE_VERSION, argc > 1 ? argv[1] : "?");
        return 1;
    }
    printf("libcudnnfe %s through find_package(cudnnfe) and cudnnfe::cudnnfe\n", fe_version_string());
    return 0;
}
C
if cmake -S "$cmake_client" -B "$cmake_client/build" -DCMAKE_PREFIX_PATH="$root/usr" -DEXPECTED_ROOT="$root" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
        -DCMAKE_C_FLAGS="-std=c99 -Wall -Wextra -pedantic -Werror" >"$LOG_DIR/cmake_client.log" 2>&1 &&
    cmake --build "$cmake_client/build" >>"$LOG_DIR/cmake_client.log" 2>&1 &&
    LD_LIBRARY_PATH=$run_path "$cmake_client/build/app" "$upstream" >>"$LOG_DIR/cmake_client.log" 2>&1; then
    pass "cmake client: find_package(cudnnfe 1 REQUIRED), target_link_libraries(app cudnnfe::cudnnfe), run: $(tail -1 "$LOG_DIR/cmake_client.log")"
else
    fail "cmake client" "$LOG_DIR/cmake_client.log"
fi
# Its version file: SameMajorVersion, as CMake's write_basic_package_version_file has it.
minor=$(echo "$upstream" | cut -d. -f2)
accepted="$major;$major.0;$upstream EXACT;$major.0...<$((major + 1))"
refused="$((major + 1));$((major - 1));$major.$((minor + 1));$major.0...$((major + 1)).0"
cmake_versions=$WORK/cmake-versions
rm -rf "$cmake_versions" && mkdir -p "$cmake_versions"
cat >"$cmake_versions/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.19)
project(cudnnfe_versions NONE)
set(answers "")
foreach(kind IN ITEMS ACCEPTED REFUSED)
  foreach(spec IN LISTS ${kind})
    set(cudnnfe_DIR "${CONFIG_DIR}" CACHE PATH "" FORCE)
    unset(cudnnfe_FOUND)
    separate_arguments(args UNIX_COMMAND "${spec}")
    find_package(cudnnfe ${args} QUIET)
    if((kind STREQUAL "ACCEPTED") AND NOT cudnnfe_FOUND)
      message(SEND_ERROR "find_package(cudnnfe ${spec}) refused version ${cudnnfe_VERSION}")
    elseif((kind STREQUAL "REFUSED") AND cudnnfe_FOUND)
      message(SEND_ERROR "find_package(cudnnfe ${spec}) accepted version ${cudnnfe_VERSION}")
    endif()
  endforeach()
endforeach()
CMAKE
if cmake -S "$cmake_versions" -B "$cmake_versions/build" -DCONFIG_DIR="$lib/cmake/cudnnfe" -DACCEPTED="$accepted" \
        -DREFUSED="$refused" >"$LOG_DIR/cmake_versions.log" 2>&1; then
    pass "cmake package version $upstream: accepts ${accepted//;/, }; refuses ${refused//;/, }"
else
    fail "cmake package version" "$LOG_DIR/cmake_versions.log"
fi
if cc -std=c99 -Wall -Wextra -pedantic -Werror -o "$out/dlopen_client" "$ROOT/tests/install/dlopen_client.c" -ldl \
        >"$LOG_DIR/dlopen_client.log" 2>&1 &&
    LD_LIBRARY_PATH=$run_path "$out/dlopen_client" "libcudnnfe.so.$major" "$ROOT/abi/symbols.txt" "$upstream" \
        >>"$LOG_DIR/dlopen_client.log" 2>&1; then
    pass "dlopen client: $(tail -1 "$LOG_DIR/dlopen_client.log")"
else
    fail "dlopen client" "$LOG_DIR/dlopen_client.log"
fi
if cc -std=c99 -Wall -Wextra -pedantic -Werror -I"$root/usr/include" -o "$out/dlopen_demo" \
        "$ROOT/examples/c/dlopen_demo.c" -ldl >"$LOG_DIR/dlopen_demo.log" 2>&1; then
    (cd "$ROOT" && LD_LIBRARY_PATH=$run_path "$out/dlopen_demo") >>"$LOG_DIR/dlopen_demo.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then pass "dlopen_demo on the installed library: $(tail -1 "$LOG_DIR/dlopen_demo.log")"
    elif [ $rc -eq 77 ]; then skip "dlopen_demo on the installed library" "$(tail -1 "$LOG_DIR/dlopen_demo.log")"
    else fail "dlopen_demo on the installed library" "$LOG_DIR/dlopen_demo.log"; fi
else
    fail "dlopen_demo builds against the installed header" "$LOG_DIR/dlopen_demo.log"
fi
# The bindings from their packages. The Java and C# glue find libcudnnfe.so.1 through their run
# paths, so the root's library directory is not on LD_LIBRARY_PATH for them.
client() { # NAME LOG COMMAND...: one test, passing when COMMAND succeeds
    local name=$1 log=$2
    shift 2
    if "$@" >"$log" 2>&1; then pass "$name: $(tail -1 "$log")"; else fail "$name" "$log"; fi
}
if command -v java >/dev/null 2>&1; then
    client "java client" "$LOG_DIR/java_client.log" java -Djava.library.path="$lib/jni" \
        -cp "$root/usr/share/java/cudnnfe.jar" "$ROOT/tests/install/VersionClient.java" "$upstream"
else
    skip "java client" "no java"
fi
if command -v mcs >/dev/null 2>&1 && command -v mono >/dev/null 2>&1; then
    cs_dir=$lib/cli/cudnnfe
    client "c# client" "$LOG_DIR/csharp_client.log" sh -c 'mcs -nologo -r:"$1/CudnnFe.dll" -out:"$2/VersionClient.exe" "$3" &&
        MONO_PATH="$1" mono "$2/VersionClient.exe" "$4"' sh "$cs_dir" "$out" "$ROOT/tests/install/VersionClient.cs" "$upstream"
else
    skip "c# client" "no mcs or mono"
fi
if command -v go >/dev/null 2>&1; then
    go_client=$WORK/go-client
    rm -rf "$go_client" && mkdir -p "$go_client"
    cp "$ROOT/tests/install/go/main.go" "$go_client/"
    printf 'module example.com/client\n\ngo 1.19\n\nrequire cudnnfe.dev/cudnnfe v0.0.0\n\nreplace cudnnfe.dev/cudnnfe => %s\n' \
        "$root/usr/share/gocode/src/cudnnfe.dev/cudnnfe" >"$go_client/go.mod"
    client "go client" "$LOG_DIR/go_client.log" env -C "$go_client" GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local \
        CGO_ENABLED=1 GOCACHE="$WORK/go-cache" GOPATH="$WORK/go-path" PKG_CONFIG_SYSROOT_DIR="$root" \
        PKG_CONFIG_LIBDIR="$lib/pkgconfig" PKG_CONFIG_PATH= sh -c 'go build -o client . && LD_LIBRARY_PATH="$1" ./client "$2"' \
        sh "$run_path" "$upstream"
else
    skip "go client" "no go"
fi
if LD_LIBRARY_PATH=$run_path "$root/usr/bin/cudnnfe" --help >"$LOG_DIR/tool.log" 2>&1; then
    pass "installed cudnnfe tool runs"
else
    fail "installed cudnnfe tool runs" "$LOG_DIR/tool.log"
fi
# Its man pages render with no warning from groff, one for each command of 'cudnnfe --help'.
tool_commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' "$LOG_DIR/tool.log" | uniq)
: >"$LOG_DIR/man.log"
ok=1
for c in "" $tool_commands; do
    page=$root/usr/share/man/man1/cudnnfe${c:+-$c}.1.gz
    [ -f "$page" ] || { echo "no page $page" >>"$LOG_DIR/man.log"; ok=0; continue; }
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>>"$LOG_DIR/man.log" >/dev/null || ok=0
done
if [ $ok = 1 ] && [ -n "$tool_commands" ] && [ ! -s "$LOG_DIR/man.log" ]; then
    pass "man pages: cudnnfe(1) and cudnnfe-{$(echo $tool_commands | tr ' ' ,)}(1) render with no warnings"
else
    fail "man pages" "$LOG_DIR/man.log"
fi
# The bash completion offers the commands, and each command's options as its help lists them.
if LD_LIBRARY_PATH=$run_path bash -c '
    source "$1"; tool=$2; shift 2
    complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _cudnnfe; echo "${COMPREPLY[*]}"; }
    got=" $(complete_words cudnnfe "") "
    for c in "$@"; do [[ $got == *" $c "* ]] || { echo "cudnnfe <TAB> lacks $c: $got"; exit 1; }; done
    for c in "$@"; do
        got=" $(complete_words cudnnfe "$c" -) "
        for o in $("$tool" help "$c" | sed -n "/^options:/,/^\$/p" | grep -oE "^  -[-a-z]+(, --[-a-z]+)?" | tr -d ,); do
            [[ $got == *" $o "* ]] || { echo "cudnnfe $c -<TAB> lacks $o: $got"; exit 1; }
        done
    done
    got=" $(complete_words cudnnfe device "") "
    [[ $got == *" capture "* && $got == *" show "* ]] || { echo "cudnnfe device <TAB>: $got"; exit 1; }
    echo "completes the $# commands, their options and the device actions"' \
        sh "$root/usr/share/bash-completion/completions/cudnnfe" "$root/usr/bin/cudnnfe" $tool_commands \
        >"$LOG_DIR/completion.log" 2>&1 && [ -n "$tool_commands" ]; then
    pass "bash completion: $(tail -1 "$LOG_DIR/completion.log")"
else
    fail "bash completion" "$LOG_DIR/completion.log"
fi

# 5. The ABI guard, on the installed library and header.
if bash "$ROOT/scripts/abi_check.sh" "$lib/libcudnnfe.so.$major" "$root/usr/include/cudnnfe.h" >"$LOG_DIR/abi.log" 2>&1; then
    pass "$(tail -1 "$LOG_DIR/abi.log")"
    grep '^note:' "$LOG_DIR/abi.log" | sed 's/^/    /'
else
    fail "abi_check" "$LOG_DIR/abi.log"
fi
# The guard can fail: a listed symbol that is gone and a changed enum value are both refused.
fake=$WORK/abi-fake
rm -rf "$fake" && cp -r "$ROOT/abi" "$fake"
echo fe_no_longer_exported >>"$fake/symbols.txt"
LC_ALL=C sort -o "$fake/symbols.txt" "$fake/symbols.txt"
sed -i 's/^fe_data_type FE_DATA_HALF .*/fe_data_type FE_DATA_HALF 99/' "$fake/enums.txt"
ABI_DIR=$fake bash "$ROOT/scripts/abi_check.sh" "$lib/libcudnnfe.so.$major" "$root/usr/include/cudnnfe.h" \
    >"$LOG_DIR/abi-fake.log" 2>&1
if [ $? -ne 0 ] && grep -q 'ABI BROKEN: fe_no_longer_exported' "$LOG_DIR/abi-fake.log" &&
    grep -q 'ABI BROKEN: fe_data_type FE_DATA_HALF was 99' "$LOG_DIR/abi-fake.log"; then
    pass "abi_check refuses a removed symbol and a changed enum value"
else
    fail "abi_check refuses a removed symbol and a changed enum value" "$LOG_DIR/abi-fake.log"
fi
# ... and a struct field that moved or changed type, or a struct that is gone: the fake list has a
# struct the header lacks, and a header with two fields of fe_conv_options swapped is checked.
rm -rf "$fake" && cp -r "$ROOT/abi" "$fake"
echo "fe_gone_options 0 struct_size uint32_t" >>"$fake/structs.txt"
swapped=$WORK/abi-swapped.h
python3 - "$root/usr/include/cudnnfe.h" "$swapped" <<'PY'
import sys
text = open(sys.argv[1]).read()
first = "    fe_conv_mode mode;"
second = "    fe_data_type compute_data_type;            /* default: the graph's */"
start = text.index("typedef struct fe_conv_options")
a, b = text.index(first, start), text.index(second, start)
line_a, line_b = text[a:text.index("\n", a)], text[b:text.index("\n", b)]
text = text[:a] + line_b + text[a + len(line_a):b] + line_a + text[b + len(line_b):]
open(sys.argv[2], "w").write(text)
PY
ABI_DIR=$fake bash "$ROOT/scripts/abi_check.sh" "$lib/libcudnnfe.so.$major" "$swapped" >"$LOG_DIR/abi-structs.log" 2>&1
if [ $? -ne 0 ] && grep -q 'ABI BROKEN: fe_conv_options.mode was field 7, the header now has it at 8' "$LOG_DIR/abi-structs.log" &&
    grep -q 'ABI BROKEN: fe_conv_options.compute_data_type was field 8, the header now has it at 7' "$LOG_DIR/abi-structs.log" &&
    grep -q 'ABI BROKEN: struct fe_gone_options is listed' "$LOG_DIR/abi-structs.log"; then
    pass "abi_check refuses swapped struct fields and a removed struct"
else
    fail "abi_check refuses swapped struct fields and a removed struct" "$LOG_DIR/abi-structs.log"
fi

# 6. lintian on the packages: no error and no warning (debian/*.lintian-overrides say why for any
# tag overridden).
changes=$(ls "$debs"/*.changes 2>/dev/null | head -1)
lintian --fail-on error,warning --display-info --show-overrides "$changes" >"$LOG_DIR/lintian.log" 2>&1
rc=$?
tags=$(grep -cE '^[EW]: ' "$LOG_DIR/lintian.log")
if [ $rc -eq 0 ] && [ "$tags" -eq 0 ]; then
    pass "lintian: no errors or warnings, $(grep -c '^I: ' "$LOG_DIR/lintian.log") infos, $(grep -c '^O: ' "$LOG_DIR/lintian.log") overridden"
else
    fail "lintian ($tags errors and warnings)" "$LOG_DIR/lintian.log"
    grep -E '^[EW]: ' "$LOG_DIR/lintian.log" | sed 's/^/    /'
fi
finish
