# Sourced by the benchmark scripts: a scratch directory ($WORK) removed on exit, with every process whose pid is
# added to PIDS killed first, and free_port, a free TCP port on loopback.
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
