#!/usr/bin/env bash
# The bindings as each ecosystem takes them, built from BUILD_DIR and used by outside programs
# with no path to the build (no LD_LIBRARY_PATH, no java.library.path):
#   Java: a Maven repository, BUILD_DIR/maven-repo (dev/cudnnfe/cudnnfe/VERSION: pom, jar with the
#         native libraries under native/linux-x86_64/, -sources, -javadoc, checksums, metadata);
#         a Maven project depending on dev.cudnnfe:cudnnfe:VERSION built with `mvn -o` against
#         Debian's /usr/share/maven-repo (or, without Maven's plugins, javac against the jar).
#   C#:   a NuGet package, BUILD_DIR/nuget/CudnnFe.VERSION.nupkg; a Mono program compiled against
#         its lib/net472/CudnnFe.dll, run with the DLL beside it and from the package's
#         layout, and without the native files (a clear message naming the library).
#   Go:   a file-based module proxy, BUILD_DIR/go-proxy (cudnnfe.dev/cudnnfe/@v/: list, vVERSION.info,
#         .mod, .zip with the generated internal/capi and layer inside); a check that the module's
#         generated files are what the generators give now; a consumer module (example.com/app)
#         that runs `go get cudnnfe.dev/cudnnfe@vVERSION` through GOPROXY=file://, `go build`, and
#         runs with no LD_LIBRARY_PATH (the run path comes from BUILD_DIR/go-pkgconfig/cudnnfe.pc).
# Each check prints "PASS name: ..." / "FAIL name: ..." and the last line is
# "N passed, N failed, N skipped". usage: BUILD_DIR=build scripts/bindings_packages.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
VERSION=$(sed -nE "s/^  version : '([^']+)'.*/\1/p" "$ROOT/meson.build" | head -1)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $1: $2"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; [ -f "${3:-}" ] && sed 's/^/    /' "$3" | tail -15; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
# Outside programs see neither the build's libraries nor a java.library.path.
clean_env=(env -u LD_LIBRARY_PATH -u MONO_PATH -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS)

# --- Java: Maven repository layout
REPO="$BUILD_DIR/maven-repo"
ART="$REPO/dev/cudnnfe/cudnnfe/$VERSION"
if [ ! -f "$BUILD_DIR/bindings/java/cudnnfe.jar" ]; then
    skip java_repository "no Java binding in $BUILD_DIR"; skip java_consumer "no Java binding"
elif python3 "$ROOT/bindings/java/packaging/make_maven_repo.py" "$ROOT" "$BUILD_DIR" "$REPO" "$VERSION" >"$WORK/repo.log" 2>&1; then
    problems=""
    for f in "cudnnfe-$VERSION.pom" "cudnnfe-$VERSION.jar" "cudnnfe-$VERSION-sources.jar" "cudnnfe-$VERSION-javadoc.jar"; do
        [ -s "$ART/$f" ] || problems+=" missing $f;"
        [ "$(cat "$ART/$f.sha1" 2>/dev/null)" = "$(sha1sum "$ART/$f" | cut -d' ' -f1)" ] || problems+=" bad $f.sha1;"
    done
    [ -f "$REPO/dev/cudnnfe/cudnnfe/maven-metadata.xml.sha1" ] || problems+=" missing maven-metadata.xml;"
    manifest=$(unzip -p "$ART/cudnnfe-$VERSION.jar" META-INF/MANIFEST.MF 2>/dev/null)
    grep -q "Automatic-Module-Name: dev.cudnnfe" <<<"$manifest" || problems+=" no Automatic-Module-Name;"
    grep -q "Implementation-Version: $VERSION" <<<"$manifest" || problems+=" no Implementation-Version;"
    listing=$(unzip -l "$ART/cudnnfe-$VERSION.jar")
    for lib in libcudnnfe.so.1 libcudnnfe_java.so; do
        grep -q "native/linux-x86_64/$lib" <<<"$listing" || problems+=" jar lacks native/linux-x86_64/$lib;"
        # With scripts/cross_aarch64.sh's natives in BUILD_DIR/aarch64, the jar carries them too.
        if [ -f "$BUILD_DIR/aarch64/bindings/libcudnnfe_java.so" ]; then
            unzip -p "$ART/cudnnfe-$VERSION.jar" "native/linux-aarch64/$lib" >"$WORK/jar-native" 2>/dev/null
            file "$WORK/jar-native" | grep -q "ARM aarch64" || problems+=" jar lacks an aarch64 native/linux-aarch64/$lib;"
        fi
    done
    grep -q "dev/cudnnfe/Graph.html" <<<"$(unzip -l "$ART/cudnnfe-$VERSION-javadoc.jar")" || problems+=" javadoc lacks Graph.html;"
    for f in cudnnfe-$VERSION.jar cudnnfe-$VERSION-sources.jar cudnnfe-$VERSION-javadoc.jar; do
        cmp -s <(unzip -p "$ART/$f" META-INF/LICENSE 2>/dev/null) "$ROOT/LICENSE" || problems+=" $f lacks META-INF/LICENSE;"
    done
    for element in "<url>" "<scm>" "<license>"; do
        grep -q "$element" "$ART/cudnnfe-$VERSION.pom" || problems+=" the pom lacks $element;"
    done
    if [ -z "$problems" ]; then pass java_repository "dev.cudnnfe:cudnnfe:$VERSION in $REPO"; else fail java_repository "$problems"; fi

    # The consumer: a Maven project, built offline; else javac against the repository's jar.
    app="$WORK/java-app"
    mkdir -p "$app"
    cp -r "$ROOT/bindings/java/packaging/consumer/src" "$app/"
    sed -e "s#@REPO_URL@#file://$REPO#" -e "s#@VERSION@#$VERSION#" "$ROOT/bindings/java/packaging/consumer/pom.xml.in" >"$app/pom.xml"
    cp "$ROOT/bindings/java/packaging/consumer/settings.xml" "$app/"
    how=""
    if command -v mvn >/dev/null && (cd "$app" && "${clean_env[@]}" mvn -o -B -q -s settings.xml -Daether.offline.protocols=file -Dmaven.repo.local="$WORK/m2" package) >"$WORK/mvn.log" 2>&1; then
        how="mvn -o (Debian's maven-repo for plugins, the repository as file://)"
        cp="$app/target/cudnnfe-consumer-1.jar:$WORK/m2/dev/cudnnfe/cudnnfe/$VERSION/cudnnfe-$VERSION.jar"
    else
        how="javac + java -cp (mvn -o could not build: $(grep -m1 -E 'ERROR' "$WORK/mvn.log" 2>/dev/null | cut -c1-120))"
        mkdir -p "$app/classes"
        javac -d "$app/classes" -cp "$ART/cudnnfe-$VERSION.jar" "$app/src/main/java/app/App.java" >"$WORK/javac.log" 2>&1
        cp="$app/classes:$ART/cudnnfe-$VERSION.jar"
    fi
    out=$(cd "$WORK" && "${clean_env[@]}" java -cp "$cp" app.App 2>&1)
    if [ "$out" = "cudnnfe $VERSION" ]; then pass java_consumer "$how; prints '$out' with the jar's bundled natives"
    else echo "$out" >"$WORK/java-run.log"; fail java_consumer "$how" "$WORK/java-run.log"; fi
else
    fail java_repository "make_maven_repo.py failed" "$WORK/repo.log"; skip java_consumer "no repository"
fi

# --- C#: NuGet package
FEED="$BUILD_DIR/nuget"
NUPKG="$FEED/CudnnFe.$VERSION.nupkg"
if [ ! -f "$BUILD_DIR/bindings/csharp/CudnnFe.dll" ]; then
    for t in csharp_nupkg csharp_beside_exe csharp_package_layout csharp_missing_native; do skip $t "no C# binding"; done
elif python3 "$ROOT/bindings/csharp/packaging/make_nupkg.py" "$BUILD_DIR" "$FEED" "$VERSION" >"$WORK/nupkg.log" 2>&1; then
    pkg="$WORK/pkg"
    mkdir -p "$pkg" && (cd "$pkg" && unzip -q "$NUPKG")
    problems=""
    for f in CudnnFe.nuspec lib/net472/CudnnFe.dll lib/net472/CudnnFe.xml \
             runtimes/linux-x64/native/libcudnnfe_csharp.so runtimes/linux-x64/native/libcudnnfe.so.1; do
        [ -s "$pkg/$f" ] || problems+=" missing $f;"
    done
    cmp -s "$pkg/LICENSE" "$ROOT/LICENSE" || problems+=" no LICENSE;"
    if [ -f "$BUILD_DIR/aarch64/bindings/libcudnnfe_csharp.so" ]; then
        for f in libcudnnfe_csharp.so libcudnnfe.so.1; do
            file "$pkg/runtimes/linux-arm64/native/$f" 2>/dev/null | grep -q "ARM aarch64" ||
                problems+=" no aarch64 runtimes/linux-arm64/native/$f;"
        done
    fi
    grep -q "<id>CudnnFe</id>" "$pkg/CudnnFe.nuspec" && grep -q "<version>$VERSION</version>" "$pkg/CudnnFe.nuspec" || problems+=" nuspec id/version;"
    # AssemblyVersion = package version (read back through reflection).
    cat >"$WORK/asmver.cs" <<'CS'
static class V {
    static void Main(string[] a) {
        var name = System.Reflection.AssemblyName.GetAssemblyName(a[0]);
        var token = name.GetPublicKeyToken();
        var framework = System.Reflection.Assembly.LoadFrom(a[0]).GetCustomAttributes(typeof(System.Runtime.Versioning.TargetFrameworkAttribute), false);
        System.Console.WriteLine(name.Version + " " + (token == null ? "" : System.BitConverter.ToString(token).Replace("-", "").ToLowerInvariant())
            + " " + (framework.Length == 1 ? ((System.Runtime.Versioning.TargetFrameworkAttribute)framework[0]).FrameworkName : "none"));
    }
}
CS
    mcs -nologo -out:"$WORK/asmver.exe" "$WORK/asmver.cs" >/dev/null 2>&1
    read -r asmver token framework <<<"$(mono "$WORK/asmver.exe" "$pkg/lib/net472/CudnnFe.dll" 2>&1)"
    [ "$asmver" = "$VERSION.0" ] || problems+=" AssemblyVersion $asmver;"
    [ "$token" = 7d79bb413ff89a4b ] || problems+=" not strong-named with CudnnFe.snk (token '$token');"
    [ "$framework" = ".NETFramework,Version=v4.7.2" ] || problems+=" framework '$framework' is not the package's net472;"
    grep -q 'targetFramework=".NETFramework4.7.2"' "$pkg/CudnnFe.nuspec" || problems+=" nuspec framework;"
    if [ -z "$problems" ]; then pass csharp_nupkg "$NUPKG (AssemblyVersion $asmver, strong-named $token, $framework)"; else fail csharp_nupkg "$problems"; fi

    src="$ROOT/bindings/csharp/packaging/consumer/App.cs"
    # (a) what a user copies: the DLL and the native files beside the program.
    a="$WORK/cs-beside"; mkdir -p "$a"
    cp "$pkg/lib/net472/CudnnFe.dll" "$pkg"/runtimes/linux-x64/native/* "$a/"
    if mcs -nologo -out:"$a/app.exe" -r:"$a/CudnnFe.dll" "$src" >"$WORK/mcs.log" 2>&1; then
        out=$(cd "$WORK" && "${clean_env[@]}" mono "$a/app.exe" 2>&1)
        if [ "$out" = "cudnnfe $VERSION" ]; then pass csharp_beside_exe "mono app.exe prints '$out'"
        else echo "$out" >"$WORK/cs-a.log"; fail csharp_beside_exe "mono app.exe" "$WORK/cs-a.log"; fi
        # (b) the DLL used in place in the unpacked package (natives in runtimes/linux-x64/native).
        b="$WORK/cs-layout"; mkdir -p "$b"; cp "$a/app.exe" "$b/"
        out=$(cd "$WORK" && "${clean_env[@]}" MONO_PATH="$pkg/lib/net472" mono "$b/app.exe" 2>&1)
        if [ "$out" = "cudnnfe $VERSION" ]; then pass csharp_package_layout "MONO_PATH=<pkg>/lib/net472 prints '$out'"
        else echo "$out" >"$WORK/cs-b.log"; fail csharp_package_layout "runtimes/linux-x64/native not found" "$WORK/cs-b.log"; fi
        # (c) the DLL alone: the message must name the missing library.
        c="$WORK/cs-missing"; mkdir -p "$c"; cp "$a/app.exe" "$pkg/lib/net472/CudnnFe.dll" "$c/"
        out=$(cd "$WORK" && "${clean_env[@]}" mono "$c/app.exe" 2>&1)
        if [ $? -ne 0 ] && grep -q "^CudnnFe: cannot load the native library libcudnnfe_csharp.so" <<<"$out"; then
            pass csharp_missing_native "$(grep -m1 '^CudnnFe: cannot load' <<<"$out" | cut -c1-90)..."
        else echo "$out" >"$WORK/cs-c.log"; fail csharp_missing_native "no clear message" "$WORK/cs-c.log"; fi
    else
        fail csharp_beside_exe "mcs failed" "$WORK/mcs.log"; skip csharp_package_layout "no program"; skip csharp_missing_native "no program"
    fi
else
    fail csharp_nupkg "make_nupkg.py failed" "$WORK/nupkg.log"
    for t in csharp_beside_exe csharp_package_layout csharp_missing_native; do skip $t "no package"; done
fi

# --- Go: module proxy (GOPROXY=file://)
GOPROXY_DIR="$BUILD_DIR/go-proxy"
GO_PC_DIR="$BUILD_DIR/go-pkgconfig"
GO_AT_V="$GOPROXY_DIR/cudnnfe.dev/cudnnfe/@v"
GO_ZIP="$GO_AT_V/v$VERSION.zip"
make_module=(python3 "$ROOT/bindings/go/packaging/make_module.py")
if ! command -v go >/dev/null || [ ! -f "$BUILD_DIR/bindings/go/capi.go" ]; then
    for t in go_proxy go_generated_fresh go_stale_detected go_consumer; do skip $t "no Go binding in $BUILD_DIR (or no go)"; done
elif "${make_module[@]}" proxy "$ROOT" "$BUILD_DIR" "$GOPROXY_DIR" "$VERSION" --pc-dir "$GO_PC_DIR" >"$WORK/go-proxy.log" 2>&1; then
    problems=""
    grep -qx "v$VERSION" "$GO_AT_V/list" 2>/dev/null || problems+=" list lacks v$VERSION;"
    grep -q "\"Version\": \"v$VERSION\"" "$GO_AT_V/v$VERSION.info" 2>/dev/null || problems+=" bad .info;"
    cmp -s "$GO_AT_V/v$VERSION.mod" "$ROOT/bindings/go/go.mod" || problems+=" .mod is not go.mod;"
    listing=$(unzip -Z1 "$GO_ZIP" 2>/dev/null)
    for f in go.mod LICENSE library.go ops_generated.go internal/capi/capi.go internal/capi/capi_wrap.c internal/capi/owned_memory.h; do
        grep -qx "cudnnfe.dev/cudnnfe@v$VERSION/$f" <<<"$listing" || problems+=" zip lacks $f;"
    done
    grep -v "^cudnnfe.dev/cudnnfe@v$VERSION/" <<<"$listing" | grep -q . && problems+=" zip entries outside cudnnfe.dev/cudnnfe@v$VERSION/;"
    grep -q "_test.go$" <<<"$listing" && problems+=" zip holds tests;"
    grep -q "Libs:.*-Wl,-rpath," "$GO_PC_DIR/cudnnfe.pc" 2>/dev/null || problems+=" $GO_PC_DIR/cudnnfe.pc has no run path;"
    if [ -z "$problems" ]; then pass go_proxy "cudnnfe.dev/cudnnfe v$VERSION in $GOPROXY_DIR ($(wc -l <<<"$listing") files)"
    else fail go_proxy "$problems" "$WORK/go-proxy.log"; fi

    # Staleness: the module's generated files against the generators run now (and the
    # hand-written ones against the source tree).
    if "${make_module[@]}" check "$ROOT" "$BUILD_DIR" "$GO_ZIP" >"$WORK/go-check.log" 2>&1; then
        pass go_generated_fresh "$(tail -1 "$WORK/go-check.log")"
    else fail go_generated_fresh "$(grep -m1 '^stale:' "$WORK/go-check.log" || echo 'check failed')" "$WORK/go-check.log"; fi
    # ... and the check itself names a generated file that differs (a copy of the zip, capi.go edited).
    python3 - "$GO_ZIP" "$WORK/go-stale.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, zipfile.ZipFile(sys.argv[2], 'w') as out:
    for name in z.namelist():
        out.writestr(name, z.read(name) + (b'// stale\n' if name.endswith('/internal/capi/capi.go') else b''))
PY
    out=$("${make_module[@]}" check "$ROOT" "$BUILD_DIR" "$WORK/go-stale.zip" 2>&1)
    if [ $? -ne 0 ] && grep -q "^stale: internal/capi/capi.go (differs)" <<<"$out"; then
        pass go_stale_detected "an edited capi.go is named: $(grep -m1 '^stale:' <<<"$out")"
    else echo "$out" >"$WORK/go-stale.log"; fail go_stale_detected "an edited capi.go went unnoticed" "$WORK/go-stale.log"; fi

    # The consumer: a module of its own, `go get` through the proxy, `go build`, run with no
    # LD_LIBRARY_PATH. pkg-config finds the build's library through BUILD_DIR/go-pkgconfig (an
    # installed libcudnnfe-dev has the system's cudnnfe.pc); no CGO_* flags.
    app="$WORK/go-app"
    cp -r "$ROOT/bindings/go/packaging/consumer" "$app"
    go_cache="$BUILD_DIR/bindings/go/go-cache/build"
    [ -d "$go_cache" ] || go_cache="$WORK/go-build-cache"
    go_env=("${clean_env[@]}" -u CGO_CFLAGS -u CGO_LDFLAGS -u GOPRIVATE -u GONOPROXY -u GOWORK
            GOPATH="$WORK/gopath" GOCACHE="$go_cache" GOPROXY="file://$GOPROXY_DIR" GOSUMDB=off GONOSUMDB='*'
            GOFLAGS="-mod=mod -modcacherw" GO111MODULE=on GOTOOLCHAIN=local CGO_ENABLED=1
            PKG_CONFIG_PATH="$GO_PC_DIR")
    if (cd "$app" && "${go_env[@]}" go get "cudnnfe.dev/cudnnfe@v$VERSION" && "${go_env[@]}" go build -o app .) >"$WORK/go-build.log" 2>&1; then
        out=$(cd "$WORK" && "${clean_env[@]}" "$app/app" 2>&1)
        runpath=$(readelf -d "$app/app" 2>/dev/null | sed -nE 's/.*(RUNPATH|RPATH).*\[(.*)\]/\2/p')
        if [ "$out" = "cudnnfe $VERSION" ]; then pass go_consumer "go get via GOPROXY=file://, go build; prints '$out' with run path ${runpath:-none}"
        else echo "$out" >"$WORK/go-run.log"; fail go_consumer "the program (run path ${runpath:-none})" "$WORK/go-run.log"; fi
    else
        fail go_consumer "go get / go build failed" "$WORK/go-build.log"
    fi
else
    fail go_proxy "make_module.py failed" "$WORK/go-proxy.log"
    for t in go_generated_fresh go_stale_detected go_consumer; do skip $t "no module"; done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
