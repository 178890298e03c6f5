#!/usr/bin/env bash
# Checks the portable archive where no Swift toolchain exists: unpacks it, starts a Swift
# program outside (the session server example if it is built, with three sessions, else the
# attach fixture `attach-global-cache`: a target needs its own runtime), then, in a mount
# namespace where the toolchain's folder is hidden under an empty tmpfs and every system copy
# of a library the archive bundles is hidden under an empty file, runs the unpacked tool
# against it and checks that it reports the target's objects.
#
#   Scripts/check-portable.sh [ARCHIVE]   # default: the newest .build-portable/*.tar.gz
#
# Needs root (unshare -m, mount). What it shows: the archive needs nothing from the toolchain
# and none of the system's copies of what it bundles. What it cannot show here: another
# distribution, glibc or container runtime (no Docker or Kubernetes on this machine).
set -euo pipefail

cd "$(dirname "$0")/.."
archive=${1:-$(ls -t .build-portable/*.tar.gz 2>/dev/null | head -1)}
[[ -f "$archive" ]] || { echo "error: no archive (make portable first)" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "error: needs root (unshare -m)" >&2; exit 1; }

# Waits (60 s at most) for a line matching $1 in the target's output.
wait_for_line() {
    for _ in $(seq 1200); do
        grep -q "$1" "$work/target.out" && return 0
        kill -0 "$target_pid" 2>/dev/null || break
        sleep 0.05
    done
    echo "error: the target did not start:" >&2
    cat "$work/target.out" >&2
    exit 1
}

work=$(mktemp -d)
target_pid=
cleanup() {
    [[ -n "$target_pid" ]] && kill -KILL "$target_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

tar -xzf "$archive" -C "$work"
unpacked=$(echo "$work"/retain-graph-*)
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")  # …/usr

# The target: the session server example when it is built (CI's server step builds it), with
# three sessions opened; else the attach fixture attach-global-cache.
server=.build-server/debug/session-server
if [[ -x "$server" ]]; then
    echo "==> Target: the session server ($server), started outside"
    stdbuf -oL "$server" --port 0 >"$work/target.out" 2>&1 &  # print is buffered in a file
    target_pid=$!
    disown "$target_pid"
    wait_for_line '^session-server: http'
    port=$(sed -n 's|^session-server: http://[^:]*:\([0-9]*\).*|\1|p' "$work/target.out")
    for user in ada grace barbara; do
        body="{\"user\":\"$user\"}"
        exec 5<>"/dev/tcp/127.0.0.1/$port"
        printf '%s\r\n' "POST /sessions HTTP/1.1" "Host: 127.0.0.1" "Connection: close" \
            "Content-Type: application/json" "Content-Length: ${#body}" "" >&5
        printf '%s' "$body" >&5
        cat <&5 >/dev/null
        exec 5>&-
    done
    expected='SessionServer.Session'
else
    echo "==> Target: attach-global-cache (built with the toolchain, started outside)"
    swift build --package-path Tests/Fixtures/AttachTargets --scratch-path .build-fixtures-attach \
        --product attach-global-cache >/dev/null
    fifo="$work/ready"
    mkfifo "$fifo"
    .build-fixtures-attach/debug/attach-global-cache <"$fifo" >"$work/target.out" &
    target_pid=$!
    disown "$target_pid"
    exec 3>"$fifo"  # its standard input stays open: it waits for commands
    wait_for_line '^ready'
    expected='CachedSession'
fi

# Inside the namespace: hide the toolchain, and each bundled library's system copies.
hide='toolchain=$1; mount -t tmpfs tmpfs "$1"; shift'
hide+='; for lib in "$@"; do for copy in /lib/*/"$lib" /usr/lib/*/"$lib" /lib64/"$lib"; do'
hide+='   [ -e "$copy" ] && mount --bind /dev/null "$copy"; done; done'
check='if command -v swift >/dev/null && swift --version >/dev/null 2>&1; then'
check+='  echo "error: the toolchain is still visible" >&2; exit 1; fi'
check+='; for mirror in "$toolchain/lib/swift/linux" /usr/lib/swift/linux; do'
check+='   if [ -e "$mirror/libswiftRemoteMirror.so" ]; then'
check+='     echo "error: $mirror/libswiftRemoteMirror.so is visible" >&2; exit 1; fi; done'
bundled=$(cd "$unpacked/lib" && ls | grep -v '^libswiftRemoteMirror.so$' || true)
echo "==> In a mount namespace without $toolchain, system copies of: $(echo $bundled) hidden"
output=$(unshare -m --propagation private sh -c "
    $hide
    $check
    echo \"ldd in the namespace:\" >&2
    ldd '$unpacked/bin/retain-graph' >&2
    exec '$unpacked/bin/retain-graph' attach $target_pid --top 200
" sh "$toolchain" $bundled)
echo "$output" | head -12
grep -q "$expected" <<<"$output" || {
    echo "error: the target's objects were not reported" >&2
    exit 1
}
echo "==> The portable tool read the target with no toolchain: ok"
