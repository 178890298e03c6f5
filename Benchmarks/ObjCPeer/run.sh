#!/usr/bin/env bash
# Builds and runs the Objective-C peer (forwarding.m) with GNUstep from Debian's packages.
#
#   Benchmarks/ObjCPeer/run.sh                    time every variant (ns/call medians)
#   Benchmarks/ObjCPeer/run.sh bench VARIANT...   time some variants
#   Benchmarks/ObjCPeer/run.sh count VARIANT N    run one variant N times (for callgrind)
#   Benchmarks/ObjCPeer/run.sh list               variant names
#   Benchmarks/ObjCPeer/run.sh build              build only; prints the binary's path
#
# Installs gobjc, gnustep-make and libgnustep-base-dev with apt-get when they are missing
# (needs root or sudo). Compiles with the Swift toolchain's clang (for blocks; GCC's
# Objective-C has none) against GCC's libobjc, with `gnustep-config` flags; set CC=gcc to
# build with gcc instead (the block variants are then left out).
# Environment: OBJC_PEER_BUILD (output folder, default Benchmarks/ObjCPeer/.build).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${OBJC_PEER_BUILD:-$here/.build}"

install_missing() {
  local missing=()
  command -v gnustep-config >/dev/null 2>&1 || missing+=(gnustep-make libgnustep-base-dev)
  [ -e /usr/include/GNUstep/Foundation/Foundation.h ] || missing+=(libgnustep-base-dev)
  command -v gcc >/dev/null 2>&1 && [ -d "$(gcc -print-file-name=include)/objc" ] \
    || missing+=(gobjc)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

pick_compiler() {
  if [ -n "${CC:-}" ]; then echo "$CC"; return; fi
  local swift clang
  swift="$(command -v swift || true)"
  if [ -n "$swift" ]; then
    clang="$(dirname "$(readlink -f "$swift")")/clang"
    [ -x "$clang" ] && { echo "$clang"; return; }
  fi
  command -v clang >/dev/null 2>&1 && { echo clang; return; }
  echo gcc
}

build_peer() {
  install_missing
  mkdir -p "$build/shim/objc"
  local cc binary="$build/forwarding"
  cc="$(pick_compiler)"
  local flags=(-O2 -std=gnu11 $(gnustep-config --objc-flags) -gdwarf-4)
  if "$cc" --version 2>/dev/null | grep -q clang; then
    # GNUstep's headers include <objc/blocks_runtime.h> when the compiler has blocks; GCC's
    # libobjc ships none, and GNUstep Base exports _Block_copy/_Block_release itself.
    cat >"$build/shim/objc/blocks_runtime.h" <<'HEADER'
#pragma once
void *_Block_copy(const void *);
void _Block_release(const void *);
#define Block_copy(x) ((__typeof(x))_Block_copy((const void *)(x)))
#define Block_release(x) _Block_release((const void *)(x))
HEADER
    flags+=(-fobjc-runtime=gcc -fblocks -Wno-deprecated-declarations
            -I"$build/shim" -I"$(gcc -print-file-name=include)")
  fi
  # -MMD from gnustep-config writes a .d file next to the output.
  (cd "$build" && "$cc" "${flags[@]}" "$here/forwarding.m" -o "$binary" \
    $(gnustep-config --base-libs)) >&2
  echo "$binary"
}

binary="$(build_peer)"
if [ "${1:-}" = "build" ]; then
  echo "$binary"
  exit 0
fi
exec "$binary" "$@"
