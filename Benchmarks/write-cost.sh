#!/usr/bin/env bash
# What one write costs the instance: CPU and thread switches per write, split by the kind of thread that spends
# them, under writes_1's load (Benchmarks/lua/write.lua: 16 wrk connections over 100 lists, small diffs), on a
# throwaway PostgreSQL cluster and on the embedded SQLite store, in the same run; each store again with every write
# sent with an Idempotency-Key of its own (store=<store>-keyed: the key's lookup and the kept answer).
#
# Read from /proc/<pid>/task/*/stat (user + system ticks) and status (voluntary context switches) before and after
# one wrk run of DURATION seconds (default 8), divided by the writes it made. Thread kinds, by name: `listdelta`
# (the event loops and the worker pools), `NIO-*` (PostgresNIO's event loops), `*qos*` (Dispatch, where the
# PostgreSQL pool's tasks run). One line per store:
#   write_cost store=<sqlite|sqlite-keyed|postgres|postgres-keyed> writes_per_s=<n> cpu_ms=<total> switches=<total> <kind>_cpu_ms=<x> <kind>_switches=<y>...
# Env: LISTDELTA_BIN (default .build/release/listdelta, built if missing), DURATION. Needs wrk and PostgreSQL's
# server (apt-get install wrk postgresql).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-8}"
BIN="${LISTDELTA_BIN:-.build/release/listdelta}"
[ -x "$BIN" ] || swift build -c release --product listdelta >&2
command -v wrk >/dev/null || { echo "error: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d /tmp/listdelta-write-cost.XXXXXX)
chmod 755 "$work"
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    wait 2>/dev/null || true
    bash scripts/postgres-cluster.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
bash scripts/postgres-cluster.sh start "$work/pg" >/dev/null
export LD_LISTS=100

# threads: one line per thread: its id, kind, voluntary switches, CPU ticks.
threads() {
    for task in /proc/"$pid"/task/*; do
        local name kind
        name=$(cat "$task/comm" 2>/dev/null) || continue
        case "$name" in NIO-*) kind=nio ;; *qos*) kind=dispatch ;; *) kind=service ;; esac
        echo "${task##*/} $kind $(awk '/^voluntary_ctxt_switches/ { print $2 }' "$task/status") $(awk '{ print $14 + $15 }' "$task/stat")"
    done
}

# measure STORE ARGS...: starts the server, warms it up, measures one wrk run.
measure() {
    local store=$1
    shift
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    LISTDELTA_LOG_LEVEL=warning "$BIN" serve --host 127.0.0.1 --port "$port" --data "$work/$store" "$@" >"$work/$store.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    wrk -t1 -c4 -d2s -s Benchmarks/lua/write.lua "http://127.0.0.1:$port" >/dev/null 2>&1
    threads >"$work/before"
    wrk -t1 -c16 -d"${DURATION}s" -s Benchmarks/lua/write.lua "http://127.0.0.1:$port" >"$work/wrk" 2>&1
    threads >"$work/after"
    local rps hz
    rps=$(awk '/Requests\/sec/ { print $2 }' "$work/wrk")
    hz=$(getconf CLK_TCK)
    # Only threads alive at both samples count; the pools' and loops' threads live as long as the server.
    awk -v writes="$(echo "$rps * $DURATION" | bc)" -v hz="$hz" -v store="$store" -v rps="$rps" '
        FNR == NR { before_switches[$1] = $3; before_ticks[$1] = $4; next }
        ($1 in before_ticks) { switches[$2] += $3 - before_switches[$1]; ticks[$2] += $4 - before_ticks[$1] }
        END {
            line = sprintf("write_cost store=%s writes_per_s=%.0f", store, rps)
            for (k in ticks) { cpu += ticks[k]; sw += switches[k] }
            line = line sprintf(" cpu_ms=%.3f switches=%.1f", cpu * 1000 / hz / writes, sw / writes)
            split("service nio dispatch", kinds, " ")
            for (i = 1; i <= 3; i++) { k = kinds[i]; line = line sprintf(" %s_cpu_ms=%.3f %s_switches=%.1f", k, ticks[k] * 1000 / hz / writes, k, switches[k] / writes) }
            print line
        }' "$work/before" "$work/after"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
}

measure sqlite
export LD_IDEMPOTENCY=1
measure sqlite-keyed
unset LD_IDEMPOTENCY
measure postgres --database-url "$(bash scripts/postgres-cluster.sh createdb "$work/pg" write_cost)"
export LD_IDEMPOTENCY=1
measure postgres-keyed --database-url "$(bash scripts/postgres-cluster.sh createdb "$work/pg" write_cost_keyed)"
unset LD_IDEMPOTENCY
