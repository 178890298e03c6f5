#!/usr/bin/env bash
# Builds a portable retain-graph: one archive to copy into a container or onto a machine with no
# Swift toolchain, and attach from there (Documentation/Containers.md).
#
#   Scripts/package-portable.sh            # VERSION=… to name it; else `git describe`
#
# Builds `retain-graph` in release with the Swift standard library and Foundation linked
# statically (--static-swift-stdlib, scratch path .build-portable), then bundles what it loads
# that a slim image lacks:
#   lib/libswiftRemoteMirror.so   dlopened to read Swift metadata (from the toolchain that built
#                                 the tool: the attach checks the target runs that Swift version)
#   lib/<every shared library the tool or the mirror needs but glibc's and the C++ runtime's>,
#                                 as `ldd` lists them (libunwind and liblzma on Debian 12)
# The executable finds lib/ through its RPATH ($ORIGIN/../lib, an RPATH rather than a RUNPATH
# so that it also serves the libraries' own dependencies), and the mirror library through its
# default search (<exe dir>/../lib first). What stays the system's: glibc (the version printed
# below or later) and the C++ runtime, libstdc++ and libgcc_s, which every glibc image but the
# most minimal has: bundling the build machine's libstdc++ would raise the glibc needed to its
# own (2.36 for Debian 12's, which Ubuntu 22.04's 2.35 lacks).
#
# Output: .build-portable/retain-graph-VERSION-linux-ARCH.tar.gz, holding
# retain-graph-VERSION-linux-ARCH/{bin/retain-graph, lib/…, README}. Prints its size.
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-portable
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
arch=$(uname -m)
name="retain-graph-$version-linux-$arch"

echo "==> Building retain-graph (release, static Swift standard library)"
swift build -c release --product retain-graph --static-swift-stdlib --scratch-path "$scratch" \
    -Xlinker -rpath -Xlinker '$ORIGIN/../lib' -Xlinker --disable-new-dtags
binary=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/retain-graph

# The toolchain's runtime folder: where its libswiftRemoteMirror.so lies.
runtime=$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')
mirror="$runtime/linux/libswiftRemoteMirror.so"
[[ -f "$mirror" ]] || { echo "error: no $mirror in this toolchain" >&2; exit 1; }

stage="$scratch/portable/$name"
rm -rf "$scratch/portable"
mkdir -p "$stage/bin" "$stage/lib"
cp "$binary" "$stage/bin/retain-graph"
strip --strip-debug "$stage/bin/retain-graph"
cp "$mirror" "$stage/lib/libswiftRemoteMirror.so"

# Every library ldd resolves for the tool and the mirror, but glibc's own (always there, and
# bound to the system's loader), the C++ runtime's and the mirror itself.
glibc='^(linux-vdso|libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux[-a-z0-9_]*)\.so'
cxx='^(libstdc\+\+|libgcc_s)\.so'
for file in "$stage/bin/retain-graph" "$stage/lib/libswiftRemoteMirror.so"; do
    if ldd "$file" | grep -q 'not found'; then
        echo "error: $file needs a library this machine lacks:" >&2
        ldd "$file" >&2
        exit 1
    fi
    ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
        while read -r soname path; do
            [[ "$soname" =~ $glibc || "$soname" =~ $cxx ]] && continue
            [[ "$soname" == libswiftRemoteMirror.so ]] && continue
            [[ -e "$stage/lib/$soname" ]] || cp -L "$path" "$stage/lib/$soname"
        done
done

glibc_needed=$(objdump -T "$stage/bin/retain-graph" "$stage/lib/"*.so* 2>/dev/null |
    grep -o 'GLIBC_[0-9.]*' | sort -V -u | tail -1)
swift_version=$(swift --version 2>/dev/null | head -1)
cat >"$stage/README" <<EOF
retain-graph $version for Linux $arch: attach to a running Swift program and see what holds its
objects. Run bin/retain-graph attach PID as root or with CAP_SYS_PTRACE; lib/ holds the
libswiftRemoteMirror.so of the toolchain that built it ($swift_version), which reads targets
of that Swift version (another: --remote-mirror PATH), and the libraries it needs but glibc
($glibc_needed or later) and libstdc++/libgcc_s. In a container: Documentation/Containers.md.
EOF
fmt -w 96 "$stage/README" >"$stage/README.tmp" && mv "$stage/README.tmp" "$stage/README"

# It runs from where it is unpacked, with what it bundles.
"$stage/bin/retain-graph" attach --help >/dev/null

archive="$scratch/$name.tar.gz"
tar -czf "$archive" -C "$scratch/portable" "$name"
size=$(stat -c %s "$archive")
echo "==> $archive: $size bytes ($(awk -v b="$size" 'BEGIN { printf "%.1f MiB", b / 1048576 }'))"
echo "    bundled: $(cd "$stage/lib" && echo *)"
echo "    needs glibc: $glibc_needed or later"
