# Sourced by the benchmark scripts: a scratch directory ($WORK) removed on exit, with every process whose pid is
# added to PIDS killed first; free_port, a free TCP port on loopback; wait_for_url, until a URL answers.
WORK="$(mktemp -d)"
chmod 755 "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_for_url URL: returns once URL answers 2xx, or fails after 10 s saying so.
wait_for_url() {
    for _ in $(seq 1 200); do
        if curl -sf -o /dev/null "$1"; then return 0; fi
        sleep 0.05
    done
    echo "$(basename "$0"): nothing answers at $1" >&2
    return 1
}
