#!/usr/bin/env bash
# Builds every DocC catalog (Sources/<Module>/<Module>.docc) with the toolchain's `docc`,
# treating warnings (a broken symbol link, an unresolved article reference) as errors.
#
#   Scripts/docs.sh                          # symbol graphs from a debug build in .build
#   Scripts/docs.sh --scratch-path .build-werror -Xswiftc -warnings-as-errors
#                                            # reuse CI's warnings-as-errors build (same flags)
#
# Symbol graphs come from `swift package dump-symbol-graph` (public symbols), which reuses an
# up-to-date build with the same flags; each catalog is converted with its module's graphs
# (and its extensions' `Module@Other` graphs). Archives go to .build-docs/<Module>.doccarchive.
set -euo pipefail

cd "$(dirname "$0")/.."

docc_bin=$(command -v docc || true)
if [[ -z "$docc_bin" ]]; then
    swift_bin=$(command -v swift)
    docc_bin="$(dirname "$(readlink -f "$swift_bin")")/docc"
fi
[[ -x "$docc_bin" ]] || { echo "docs.sh: docc not found next to swift" >&2; exit 2; }

# tee -a: standard error may be a log file (CI's), which tee without -a would truncate.
graphs_line=$(swift package "$@" dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols 2>&1 \
    | tee -a /dev/stderr | grep '^Files written to ' || true)
graphs=${graphs_line#Files written to }
[[ -d "$graphs" ]] || { echo "docs.sh: no symbol graphs written" >&2; exit 2; }

out=.build-docs
rm -rf "$out"
mkdir -p "$out"

# The library modules in dependency order: each is converted with the archives of those before
# it, so that a link such as ``RetainGraph/LiveGraph`` in LeakTracking's catalog resolves.
# A module without a catalog (TrackedTimers) is converted from its symbol graphs alone.
modules=(StackTraces ObjectGraph HeapExport HeapGraph ProcessAttach RetainGraph TrackedTimers ReferenceReflection HeapCensus RetainGraphReports HeapGrowth HeapProfiles LeakTracking RetainGraphTesting SuiteLeaks HeapDumps)
for catalog in Sources/*/*.docc; do
    module=$(basename "$catalog" .docc)
    [[ " ${modules[*]} " == *" $module "* ]] \
        || { echo "docs.sh: add $module to the module order in $0" >&2; exit 2; }
done

status=0
dependencies=()
for module in "${modules[@]}"; do
    dir="$out/graphs/$module"
    mkdir -p "$dir"
    cp "$graphs/$module.symbols.json" "$dir/"
    for extension in "$graphs/$module@"*.symbols.json; do
        [[ -e "$extension" ]] && cp "$extension" "$dir/"
    done
    catalog=()
    [[ -d "Sources/$module/$module.docc" ]] && catalog=("Sources/$module/$module.docc")
    echo "== docc convert $module ${catalog[*]:-(symbol graphs only)}"
    if ! "$docc_bin" convert "${catalog[@]}" --additional-symbol-graph-dir "$dir" \
        --output-dir "$out/$module.doccarchive" --fallback-display-name "$module" \
        --fallback-bundle-identifier "$module" \
        --enable-experimental-external-link-support "${dependencies[@]}" \
        --warnings-as-errors; then
        status=1
    fi
    dependencies+=(--dependency "$out/$module.doccarchive")
done
if ((status != 0)); then
    echo 'docs.sh: a link to another module'"'"'s symbol must be absolute (``/RetainGraph/LiveGraph``);' \
        'a package-internal or Foundation symbol is plain code voice' >&2
fi
exit $status
