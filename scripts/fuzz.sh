#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/fuzz-*.swift, each compiled together with ListDeltaCore's sources so the
# whole core is instrumented, with -sanitize=fuzzer,address; fuzz-feed with ListDeltaFeeds' sources over the core
# built as an instrumented module, and libxml2) and runs each for a bounded time: first on its
# regression inputs (every crash ever found), then fuzzing from its seed corpus.
#   bash scripts/fuzz.sh [seconds per target, default 30]
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
seconds="${1:-30}"
out=.build-fuzz
mkdir -p "$out"
mapfile -t core < <(find Sources/ListDeltaCore -name '*.swift' | sort)
# The core imports the tiny TextFormats module: built first, instrumented the same way, and linked in.
swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name TextFormats -emit-library -static \
  -emit-module -emit-module-path "$out/TextFormats.swiftmodule" Sources/TextFormats/*.swift -o "$out/libTextFormats.a"
# The feed target is ListDeltaFeeds' sources, which import ListDeltaCore: the core is built as a module the same way.
swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name ListDeltaCore -emit-library -static \
  -emit-module -emit-module-path "$out/ListDeltaCore.swiftmodule" -I "$out" "${core[@]}" -o "$out/libListDeltaCore.a" 2>&1 \
  | { grep -v "Cannot export local symbol" || true; }
mapfile -t feeds < <(find Sources/ListDeltaFeeds -name '*.swift' | sort)
status=0
for target in document patch feed; do
  # The feeds read XML through libxml2's SAX2 interface: the CLibXML2 module map, libxml2's headers, -lxml2.
  if [ "$target" = feed ]; then
    sources=("${feeds[@]}")
    libraries=(-lListDeltaCore -lTextFormats -I Sources/CLibXML2 -lxml2)
    for flag in $(pkg-config --cflags-only-I libxml-2.0); do libraries+=(-Xcc "$flag"); done
  else
    sources=("${core[@]}"); libraries=(-lTextFormats)
  fi
  swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name "Fuzz_$target" -I "$out" -L "$out" "${libraries[@]}" \
    "${sources[@]}" "Fuzz/fuzz-$target.swift" -o "$out/fuzz-$target" 2>&1 | { grep -v "Cannot export local symbol" || true; }
  work="$(mktemp -d)"
  cp Fuzz/Corpus/"$target"/* "$work"/
  regressions=(Fuzz/Regressions/"$target"/crash-* Fuzz/Regressions/"$target"/*.json)
  if [ "${#regressions[@]}" -gt 0 ]; then
    if ! "$out/fuzz-$target" "${regressions[@]}" >"$work.log" 2>&1; then
      echo "fuzz-$target: a regression input fails"; tail -30 "$work.log"; status=1
    fi
  fi
  # A crash is written to Fuzz/Regressions/<target>/, where it stays as a regression input.
  if "$out/fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -artifact_prefix="Fuzz/Regressions/$target/" "$work" >"$work.log" 2>&1; then
    echo "fuzz-$target: $(grep -Eo '#[0-9]+' "$work.log" | tail -1 | tr -d '#') inputs in ${seconds}s, no crash"
  else
    echo "fuzz-$target: CRASH (the input is saved under Fuzz/Regressions/$target/)"; tail -30 "$work.log"; status=1
  fi
  rm -rf "$work" "$work.log"
done
exit $status
