#!/usr/bin/env bash
# Install what building and testing cudnnfe needs on Debian/Ubuntu (only what is missing),
# then configure and build into BUILD_DIR (default: build).
#
# Expects the CUDA runtime and cuDNN 9 headers under CUDA_HOME (default /usr/local/cuda);
# override with CUDNN_HEADERS / CUDART_HEADERS when they live elsewhere. WITH_BINDINGS=1 also
# installs what the Java, C# and Go bindings and their tests need (SWIG, a JDK, JUnit 5, Mono,
# NUnit, Go, Maven and its plugins); meson builds each language whose tools it finds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

packages=(meson ninja-build pkg-config g++ libgtest-dev)
if [ "${WITH_BINDINGS:-0}" = 1 ]; then
    packages+=(swig default-jdk-headless junit5 mono-devel nunit-console libnunit-cil-dev golang-go)
    # The Maven consumer of the binding packages builds offline with Debian's Maven plugins.
    packages+=(maven libmaven-compiler-plugin-java libmaven-jar-plugin-java libmaven-resources-plugin-java
               libsurefire-java)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

options=(-Dcudnn_headers="${CUDNN_HEADERS:-$CUDA_HOME/include}" -Dcudart_headers="${CUDART_HEADERS:-$CUDA_HOME/include}")
if [ -f "$BUILD_DIR/build.ninja" ]; then
    meson configure "$BUILD_DIR" "${options[@]}" "$@" >/dev/null
else
    meson setup "$BUILD_DIR" "$ROOT" "${options[@]}" "$@"
fi
ninja -C "$BUILD_DIR"
