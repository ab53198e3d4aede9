#!/usr/bin/env bash
# Runs every test: the Swift unit tests (Swift Testing), then the end-to-end pytest suite
# against the debug binary. Both stages run even when the first fails; the exit status
# is non-zero when any step failed.
set -euo pipefail

cd "$(dirname "$0")/.."

section() { printf '\n==> %s\n' "$*"; }

bash scripts/setup.sh --tests

failures=()

section "Swift unit tests: swift build --build-tests"
if swift build --build-tests; then
    section "Swift unit tests: swift test --skip-build"
    if ! swift test --skip-build; then
        failures+=("swift test")
    fi
else
    failures+=("swift build --build-tests")
fi

section "End-to-end tests: swift build --product listdelta --product listdelta-follow"
if swift build --product listdelta && swift build --product listdelta-follow; then
    section "End-to-end tests: python3 -m pytest -q Tests/e2e"
    if ! python3 -m pytest -q Tests/e2e; then
        failures+=("pytest Tests/e2e")
    fi
else
    failures+=("swift build --product listdelta / listdelta-follow")
fi

echo
if [ "${#failures[@]}" -gt 0 ]; then
    echo "==> FAILED: ${failures[*]}"
    exit 1
fi
echo "==> all tests passed"
