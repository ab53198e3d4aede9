#!/usr/bin/env bash
# Runs every test: the Swift unit tests (Swift Testing), the DocC build of ListDeltaKit, then the end-to-end pytest suite
# against the debug binary, on the SQLite store and then (a chosen set that covers every
# endpoint and error, and the scale-out tests) on PostgreSQL, then the container tests: the
# image built from the Dockerfile and run with podman, compose.yaml and a rolling restart. A
# throwaway PostgreSQL cluster is started on loopback for the run and stopped at its end. Every stage runs even
# when an earlier one fails; the exit status is non-zero when any step failed.
set -euo pipefail

cd "$(dirname "$0")/.."

section() { printf '\n==> %s\n' "$*"; }

bash scripts/setup.sh --tests

failures=()

section "PostgreSQL: a throwaway cluster on loopback"
postgres_dir=$(mktemp -d /tmp/listdelta-postgres.XXXXXX)
trap 'bash scripts/postgres-cluster.sh stop "$postgres_dir" || true' EXIT
export LISTDELTA_TEST_POSTGRES_URL
LISTDELTA_TEST_POSTGRES_URL=$(bash scripts/postgres-cluster.sh start "$postgres_dir")
export LISTDELTA_TEST_POSTGRES_DIR="$postgres_dir"
echo "listening on port $(cat "$postgres_dir/port")"

section "Swift unit tests: swift build --build-tests"
if swift build --build-tests; then
    section "Swift unit tests: swift test --skip-build"
    swift_log=$(mktemp)
    if ! swift test --skip-build 2>&1 | tee "$swift_log"; then
        failures+=("swift test")
    elif grep -q "Suite .* skipped: \"needs LISTDELTA_TEST_POSTGRES_URL" "$swift_log"; then
        failures+=("swift test (the PostgreSQL suites were skipped)")
    fi
    rm -f "$swift_log"
else
    failures+=("swift build --build-tests")
fi

section "Documentation: swift package generate-documentation --target ListDeltaKit (DocC, warnings are errors)"
if ! swift package --disable-sandbox generate-documentation --target ListDeltaKit --warnings-as-errors; then
    failures+=("DocC documentation of ListDeltaKit")
fi

section "End-to-end tests: swift build --product listdelta --product listdelta-follow"
if swift build --product listdelta && swift build --product listdelta-follow; then
    section "End-to-end tests: python3 -m pytest -q Tests/e2e (SQLite store; scale-out tests on PostgreSQL)"
    if ! python3 -m pytest -q Tests/e2e; then
        failures+=("pytest Tests/e2e")
    fi
    section "End-to-end tests on the PostgreSQL store: LISTDELTA_E2E_STORE=postgres python3 -m pytest -q ..."
    if ! LISTDELTA_E2E_STORE=postgres python3 -m pytest -q Tests/e2e/test_documents.py Tests/e2e/test_diffs.py \
        Tests/e2e/test_errors.py Tests/e2e/test_events.py Tests/e2e/test_history.py Tests/e2e/test_many_lists.py \
        Tests/e2e/test_polling.py Tests/e2e/test_access.py Tests/e2e/test_durability.py Tests/e2e/test_schemathesis.py \
        Tests/e2e/test_views.py Tests/e2e/test_queries.py Tests/e2e/test_idempotency.py; then
        failures+=("pytest Tests/e2e on PostgreSQL")
    fi
else
    failures+=("swift build --product listdelta / listdelta-follow")
fi

section "Container tests: python3 -m pytest -q -s Tests/container (the image built with buildah, run with podman)"
if ! python3 -m pytest -q -s Tests/container; then
    failures+=("pytest Tests/container")
fi

echo
if [ "${#failures[@]}" -gt 0 ]; then
    echo "==> FAILED: ${failures[*]}"
    exit 1
fi
echo "==> all tests passed"
