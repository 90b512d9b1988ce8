#!/usr/bin/env bash
# The library for Linux on 64-bit Arm (Grace Hopper), cross-compiled on this x86-64 machine with
# Debian's cross compiler and run under qemu-user (both installed when missing), as
# scripts/cross/aarch64-linux-gnu.ini describes. The library needs only the CUDA and cuDNN headers, which
# are the same for both architectures: it loads cuDNN and the CUDA runtime at run time.
#   build:  the library, the cudnnfe tool (and its man pages, from its help run under emulation),
#           the C examples and the unit suite, into CROSS_BUILD_DIR (default BUILD_DIR/aarch64)
#   abi:    the aarch64 library exports what abi/ lists, with the header's enums and structs
#   info:   'cudnnfe info' runs under emulation and reports the missing cuDNN cleanly
#   unit:   the unit suite under emulation (its tests that need cuDNN skip themselves)
#   glue:   the Java and C# bindings' native glue, cross-compiled from BUILD_DIR's SWIG wrappers
#   go:     the Go binding's tests, cross-compiled with cgo and run under emulation
#   debs:   the arm64 Debian packages: the library, its development files, the tool and the Java,
#           C# and Go bindings
# The deviceless suite is not run: it needs cuDNN built for aarch64, which this machine lacks (the
# CUDA toolkit here is x86-64 only, and Debian packages no cuDNN).
# Each check prints "PASS name: ..." / "FAIL name: ..." / "SKIP name: ..." and the last line is
# "N passed, N failed, N skipped". usage: BUILD_DIR=build scripts/cross_aarch64.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
CROSS_BUILD_DIR=${CROSS_BUILD_DIR:-$BUILD_DIR/aarch64}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
SYSROOT=/usr/aarch64-linux-gnu
passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $1: $2"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -15; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
finish() { echo "$passed passed, $failed failed, $skipped skipped"; [ "$failed" -eq 0 ]; exit; }
mkdir -p "$CROSS_BUILD_DIR"
log="$CROSS_BUILD_DIR/cross.log"

missing=()
for p in g++-aarch64-linux-gnu qemu-user; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    if ! { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"; } >"$log" 2>&1; then
        for t in build abi info unit glue go debs; do skip $t "could not install ${missing[*]} (see $log)"; done
        finish
    fi
fi

options=(--cross-file "$ROOT/scripts/cross/aarch64-linux-gnu.ini" -Dbindings=disabled -Dtests=true
         -Dcudnn_headers="${CUDNN_HEADERS:-$CUDA_HOME/include}" -Dcudart_headers="${CUDART_HEADERS:-$CUDA_HOME/include}")
[ -f "$CROSS_BUILD_DIR/build.ninja" ] || meson setup "$CROSS_BUILD_DIR" "$ROOT" "${options[@]}" >>"$log" 2>&1
version=$(sed -nE "s/^  version : '([^']+)'.*/\1/p" "$ROOT/meson.build" | head -1)
targets=("libcudnnfe.so.$version" tools/cudnnfe/cudnnfe scripts/man/cudnnfe.1 tests/unit/cudnnfe_unit_tests)
if ! ninja -C "$CROSS_BUILD_DIR" "${targets[@]}" examples/c/first_graph >>"$log" 2>&1; then
    fail build "the cross build failed" "$log"
    for t in abi info unit glue go debs; do skip $t "no aarch64 build"; done
    finish
fi
library="$CROSS_BUILD_DIR/libcudnnfe.so.1"
if file -L "$library" | grep -q "ARM aarch64"; then
    pass build "$(file -L "$library" | cut -d: -f2 | cut -d, -f1-2 | sed 's/^ //'), with the tool, its man pages, the C examples and the unit suite"
else
    fail build "$library is not an aarch64 library: $(file -L "$library")"
fi

if bash "$ROOT/scripts/abi_check.sh" "$library" >"$CROSS_BUILD_DIR/abi.log" 2>&1; then
    pass abi "$(tail -1 "$CROSS_BUILD_DIR/abi.log" | sed 's/^abi_check: //')"
else
    fail abi "the aarch64 library's ABI differs from abi/" "$CROSS_BUILD_DIR/abi.log"
fi

# The cross toolchain's C library first: with Debian's arm64 multiarch libc also installed (the debs
# check installs it), the emulated loader would otherwise mix the two builds and hang in threads.
emulate=(env LD_LIBRARY_PATH="$CROSS_BUILD_DIR:$SYSROOT/lib" qemu-aarch64 -L "$SYSROOT")
out=$("${emulate[@]}" "$CROSS_BUILD_DIR/tools/cudnnfe/cudnnfe" info 2>&1)
if grep -q "^cudnnfe $version" <<<"$out" && grep -q "^cuDNN: *not available" <<<"$out"; then
    pass info "cudnnfe $version under qemu-aarch64; cuDNN: not available (none for aarch64 here)"
else
    echo "$out" >"$CROSS_BUILD_DIR/info.log"
    fail info "cudnnfe info under emulation" "$CROSS_BUILD_DIR/info.log"
fi

# The unit tests that need cuDNN skip themselves (there is none for aarch64 here); the four that
# bound the CPU time of reading large texts are left out, as emulation runs them ten times slower.
timed=BoundedReading.DuplicateKeyCheckIsLinearInTheMembers:BoundedReading.ManyOperationsReadInLinearTime
timed+=:BoundedReading.ADenseTextIsReadInEightTimesItsSize:BoundedReading.CheckingATextKeepsNoValues
env CUDNNFE_LIBRARY_PATH="$CROSS_BUILD_DIR/libcudnnfe.so" "${emulate[@]}" "$CROSS_BUILD_DIR/tests/unit/cudnnfe_unit_tests" --gtest_brief=1 \
    --gtest_filter="${CROSS_UNIT_FILTER:--$timed}" \
    >"$CROSS_BUILD_DIR/unit.log" 2>&1
rc=$?
summary=$(grep -E '^\[  (PASSED|FAILED)  \]' "$CROSS_BUILD_DIR/unit.log" | head -2 | tr '\n' ' ')
if [ $rc -eq 0 ]; then pass unit "${summary:-no summary} under qemu-aarch64"
else fail unit "${summary:-the unit suite did not finish} under qemu-aarch64" "$CROSS_BUILD_DIR/unit.log"; fi

# The bindings' native glue for aarch64, from the SWIG wrappers of BUILD_DIR (the same C for every
# architecture), linked against the aarch64 library with every symbol resolved; the binding
# packages bundle them (native/linux-aarch64 in the jar, runtimes/linux-arm64 in the NuGet package).
glue() {  # glue NAME WRAPPER [CFLAGS...]
    local name=$1 wrapper=$2
    shift 2
    mkdir -p "$CROSS_BUILD_DIR/bindings"
    aarch64-linux-gnu-gcc -shared -fPIC -O2 -fno-strict-aliasing -I "$ROOT/include" -I "$ROOT/bindings/swig" "$@" \
        "$wrapper" "$ROOT/bindings/swig/owned_memory.c" -L "$CROSS_BUILD_DIR" -lcudnnfe -Wl,--no-undefined \
        -Wl,-rpath,'$ORIGIN' -o "$CROSS_BUILD_DIR/bindings/$name" >>"$log" 2>&1
}
java_include=$(dirname "$(dirname "$(readlink -f "$(command -v javac 2>/dev/null || echo /usr/lib/jvm/default-java/bin/javac)")")")/include
if [ ! -f "$BUILD_DIR/bindings/java/cudnnfe_java_wrap.c" ] || [ ! -f "$BUILD_DIR/bindings/csharp/cudnnfe_csharp_wrap.c" ]; then
    skip glue "no SWIG wrappers in $BUILD_DIR (build the bindings there first)"
elif glue libcudnnfe_java.so "$BUILD_DIR/bindings/java/cudnnfe_java_wrap.c" -I "$java_include" -I "$java_include/linux" &&
     glue libcudnnfe_csharp.so "$BUILD_DIR/bindings/csharp/cudnnfe_csharp_wrap.c"; then
    pass glue "libcudnnfe_java.so and libcudnnfe_csharp.so for aarch64, every symbol resolved by the aarch64 library"
else
    fail glue "the glue did not cross-compile" "$log"
fi

# Go: the binding's test binary cross-compiled (cgo with the cross compiler, the aarch64 library
# through its uninstalled pkg-config file) and run under emulation, its children too.
module="$BUILD_DIR/bindings/go/src/bindings/go"
if ! command -v go >/dev/null || [ ! -d "$module" ]; then
    skip go "no Go module in $BUILD_DIR (build the bindings there first)"
elif (cd "$module" && env PKG_CONFIG_PATH="$CROSS_BUILD_DIR/meson-uninstalled" GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
        CGO_ENABLED=1 GOCACHE="$CROSS_BUILD_DIR/go-cache" GOPATH="$CROSS_BUILD_DIR/go-path" GOPROXY=off GOFLAGS=-mod=mod \
        GO111MODULE=on GOTOOLCHAIN=local go test -c -trimpath -o "$CROSS_BUILD_DIR/bindings/cudnnfe-go.test" .) >>"$log" 2>&1; then
    CUDNNFE_TEST_RUNNER="qemu-aarch64 -L $SYSROOT" "${emulate[@]}" "$CROSS_BUILD_DIR/bindings/cudnnfe-go.test" -test.v \
        >"$CROSS_BUILD_DIR/go.log" 2>&1
    rc=$?
    counts="$(grep -c '^--- PASS' "$CROSS_BUILD_DIR/go.log") passed, $(grep -c '^--- SKIP' "$CROSS_BUILD_DIR/go.log") skipped"
    if [ $rc -eq 0 ]; then pass go "the Go binding's tests under qemu-aarch64: $counts (those needing cuDNN skip)"
    else fail go "the Go binding's tests under qemu-aarch64 ($counts)" "$CROSS_BUILD_DIR/go.log"; fi
else
    fail go "the Go binding did not cross-compile" "$log"
fi

# The arm64 Debian packages of the library, its development files, the tool and the bindings: a
# Debian cross build (dpkg-buildpackage -a arm64) of a copy of the tree, with this cross file; the
# bindings' glue is cross-compiled, their jar, assembly and Go sources made by this machine's
# SWIG, JDK, Mono and Go. Needs dpkg's arm64 architecture,
# crossbuild-essential-arm64 and arm64's C and C++ runtimes (for dpkg-shlibdeps), installed when
# missing.
debs_dir=$CROSS_BUILD_DIR/debs
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
cross_packages=(crossbuild-essential-arm64 libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64)
cross_installed() {
    local p
    for p in "${cross_packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || return 1
    done
}
if ! dpkg --print-foreign-architectures | grep -qx arm64 || ! cross_installed; then
    { $SUDO dpkg --add-architecture arm64 && $SUDO apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${cross_packages[@]}"; } >>"$log" 2>&1
fi
if ! cross_installed; then
    skip debs "could not install ${cross_packages[*]} (see $log)"
    finish
fi
rm -rf "$debs_dir" && mkdir -p "$debs_dir/src"
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$debs_dir/src")
deb_version=$(cd "$debs_dir/src" && dpkg-parsechangelog -S Version)
start=$SECONDS
(cd "$debs_dir/src" && DH_MESON_CROSS_FILE="$ROOT/scripts/cross/aarch64-linux-gnu.ini" CUDA_HOME="$CUDA_HOME" \
    DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=${PACKAGE_JOBS:-2}" DEB_CFLAGS_STRIP=-g DEB_CXXFLAGS_STRIP=-g \
    dpkg-buildpackage -a arm64 -b -us -uc -d) >"$debs_dir/build.log" 2>&1
if [ $? -ne 0 ]; then
    fail debs "dpkg-buildpackage -a arm64 failed" "$debs_dir/build.log"
    finish
fi
problems=()
for pkg in libcudnnfe1 libcudnnfe-dev cudnnfe-tools libcudnnfe-java libcudnnfe-cil golang-cudnnfe-dev; do
    arch=arm64
    [ "$pkg" = golang-cudnnfe-dev ] && arch=all  # the module's sources, built by cgo where used
    deb=$debs_dir/${pkg}_${deb_version}_${arch}.deb
    if [ ! -f "$deb" ]; then problems+=("no $pkg"); continue; fi
    [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || problems+=("$pkg is not $arch")
    dpkg-deb -x "$deb" "$debs_dir/root"
done
root_lib=$debs_dir/root/usr/lib/aarch64-linux-gnu
for glue in jni/libcudnnfe_java.so cli/cudnnfe/libcudnnfe_csharp.so; do
    file -L "$root_lib/$glue" 2>/dev/null | grep -q "ARM aarch64" || problems+=("no aarch64 $glue")
done
[ -f "$root_lib/cli/cudnnfe/CudnnFe.dll" ] || problems+=("libcudnnfe-cil has no CudnnFe.dll")
ls "$debs_dir"/root/usr/share/java/cudnnfe-*.jar >/dev/null 2>&1 || problems+=("libcudnnfe-java has no jar")
[ -f "$debs_dir/root/usr/share/gocode/src/cudnnfe.dev/cudnnfe/internal/capi/capi.go" ] ||
    problems+=("golang-cudnnfe-dev has no generated capi.go")
so=$(ls "$debs_dir"/root/usr/lib/aarch64-linux-gnu/libcudnnfe.so.1.* 2>/dev/null | head -1)
file -L "${so:-/nonexistent}" | grep -q "ARM aarch64" || problems+=("libcudnnfe1 holds no aarch64 library")
file "$debs_dir/root/usr/bin/cudnnfe" | grep -q "ARM aarch64" || problems+=("cudnnfe-tools holds no aarch64 tool")
[ -f "$debs_dir/root/usr/share/man/man1/cudnnfe.1.gz" ] || problems+=("cudnnfe-tools has no man page")
[ -f "$debs_dir/root/usr/lib/aarch64-linux-gnu/pkgconfig/cudnnfe.pc" ] || problems+=("libcudnnfe-dev has no cudnnfe.pc")
dpkg-deb -I "$debs_dir/libcudnnfe1_${deb_version}_arm64.deb" symbols 2>/dev/null | grep -q '^ fe_version@' ||
    problems+=("libcudnnfe1 has no symbols file")
depends=$(dpkg-deb -f "$debs_dir/libcudnnfe1_${deb_version}_arm64.deb" Depends 2>/dev/null)
grep -q "libc6" <<<"$depends" || problems+=("libcudnnfe1's Depends name no libc6: $depends")
if [ ${#problems[@]} -eq 0 ]; then
    pass debs "libcudnnfe1, libcudnnfe-dev, cudnnfe-tools, libcudnnfe-java and libcudnnfe-cil ${deb_version} for arm64, golang-cudnnfe-dev for all ($((SECONDS - start)) s): aarch64 library, tool and glue, man pages, symbols, Depends: $depends"
else
    fail debs "$(IFS=';'; echo "${problems[*]}")" "$debs_dir/build.log"
fi
finish
