#!/usr/bin/env bash
# Formats the package's Swift sources in place with the toolchain's `swift format`, using the
# repository's .swift-format. With --lint, changes nothing and exits non-zero on any finding.
#
#   Scripts/format.sh          # format in place
#   Scripts/format.sh --lint   # check only (CI-friendly)
set -euo pipefail

cd "$(dirname "$0")/.."

mode=format
case "${1:-}" in
    --lint) mode=lint ;;
    "") ;;
    *) echo "usage: $0 [--lint]" >&2; exit 2 ;;
esac

paths=()
for dir in Package.swift Sources Tests Examples Benchmarks/Package.swift Benchmarks/Benchmarks; do
    [[ -e "$dir" ]] && paths+=("$dir")
done

if [[ "$mode" == lint ]]; then
    exec swift format lint --strict --recursive --parallel "${paths[@]}"
else
    exec swift format format --in-place --recursive --parallel "${paths[@]}"
fi
