#!/usr/bin/env bash
# Scale-out benchmark: ListDelta instances on one PostgreSQL database, against the SQLite store in the same run
# (loopback only, bounded in time: about 1.5 minutes at the defaults).
#
#  - writes_1 / writes_2: PUTs per second (Benchmarks/lua/write.lua: 100 lists, small diffs) with one instance, and
#    with two instances on one database taking the same load split between them (summed);
#  - reads_1 / reads_2: the same for reads (Benchmarks/lua/read.lua: documents, old revisions, fixed diffs);
#  - cross_wake_p99_ms: 1,000 long polls parked on instance B, woken by one write through instance A: the p99 of
#    the time from sending the write to each poll's complete answer (Benchmarks/parked-polls.py --write-port),
#    the worst of $WAKE_ROUNDS rounds after one unmeasured round;
#  - sqlite_writes: writes_1's load on the embedded SQLite store, the baseline.
#  - pgbench_append: PostgreSQL alone running one append as the service sends it (Benchmarks/pgbench-append.sql)
#    through pgbench, with as many clients as the instance has write threads (8, the default on PostgreSQL);
#  - same_wake_p99_ms: the same 1,000 polls on instance B woken by a write through B itself, the worst of
#    $WAKE_ROUNDS rounds (what cross_wake_p99_ms is compared with).
# Prints one line:
#   scale writes_1=<req/s> pgbench_append=<tx/s> writes_2=<req/s> reads_1=<req/s> reads_2=<req/s> cross_wake_p99_ms=<ms>
#         same_wake_p99_ms=<ms> sqlite_writes=<req/s>
# Env: LISTDELTA_BIN (default .build/release/listdelta, built if missing), DURATION (seconds per wrk run, default
# 8), CONNECTIONS (wrk connections per run, default 16), WAKE_ROUNDS (default 3). Needs wrk and PostgreSQL's server
# (apt-get install wrk postgresql); the cluster is a throwaway one (scripts/postgres-cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-8}
CONNECTIONS=${CONNECTIONS:-16}
WAKE_ROUNDS=${WAKE_ROUNDS:-3}
BIN=${LISTDELTA_BIN:-.build/release/listdelta}
if [ -z "${LISTDELTA_BIN:-}" ] && [ ! -x "$BIN" ]; then swift build -c release --product listdelta >&2; fi
command -v wrk >/dev/null || { echo "error: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d /tmp/listdelta-scale.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    bash scripts/postgres-cluster.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

bash scripts/postgres-cluster.sh start "$work/pg" >/dev/null
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start NAME [ARGS...]: a server in the background, once /healthz answers; sets $port and $pid. Its poll cursors'
# intervals last an hour: the wake rounds hold their polls (wait=60, no cursor) until a write, and with the default
# 20 s a poll without a cursor is answered at its interval's end, before the write when opening 1,000 takes long.
start() {
    local name=$1
    shift
    port=$(free_port)
    LISTDELTA_CURSOR_SECONDS=3600 LISTDELTA_MAX_CONNECTIONS_PER_CLIENT=0 LISTDELTA_LOG_LEVEL=warning "$BIN" serve --host 127.0.0.1 --port "$port" --data "$work/$name" "$@" >"$work/$name.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 1 300); do
        if curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then return; fi
        sleep 0.1
    done
    echo "error: $name did not start: $(tail -5 "$work/$name.log")" >&2
    exit 1
}

stop_all() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
}

# wrk_rps SCRIPT CONNECTIONS PORT...: runs wrk against every port at once (the connections split between them) and
# prints the summed requests per second.
wrk_rps() {
    local script=$1 connections=$2 total=0 out
    shift 2
    local share=$((connections / $#)) files=() runs=()
    for port in "$@"; do
        out="$work/wrk-$port-$RANDOM"
        files+=("$out")
        wrk -t1 -c"$share" -d"${DURATION}s" -s "$script" "http://127.0.0.1:$port" >"$out" 2>&1 &
        runs+=($!)
    done
    for run in "${runs[@]}"; do wait "$run"; done
    for out in "${files[@]}"; do
        grep -q "Requests/sec" "$out" || { echo "error: wrk failed: $(cat "$out")" >&2; exit 1; }
        total=$(awk -v t="$total" '/Requests\/sec/ { printf "%.0f", t + $2 }' "$out")
    done
    echo "$total"
}

export LD_LISTS=100
seed() {  # seed PORT: creates the lists the readers read, with a few revisions each
    wrk -t1 -c4 -d2s -s Benchmarks/lua/write.lua "http://127.0.0.1:$1" >/dev/null 2>&1
}

# The SQLite baseline.
start sqlite
sqlite_writes=$(wrk_rps Benchmarks/lua/write.lua "$CONNECTIONS" "$port")
stop_all

# One instance on PostgreSQL.
url=$(bash scripts/postgres-cluster.sh createdb "$work/pg" scale_one)
start one --database-url "$url"
writes_1=$(wrk_rps Benchmarks/lua/write.lua "$CONNECTIONS" "$port")
reads_1=$(wrk_rps Benchmarks/lua/read.lua "$CONNECTIONS" "$port")
stop_all
# The same instance with 2 write threads (SQLite's default) instead of PostgreSQL's 8.
LISTDELTA_WRITE_THREADS=2 start one2 --database-url "$url"
writes_1_two=$(wrk_rps Benchmarks/lua/write.lua "$CONNECTIONS" "$port")
stop_all
# PostgreSQL alone: one append as the service sends it (Benchmarks/pgbench-append.sql, the append function) and as
# it was sent before it (Benchmarks/pgbench-append-statements.sql, eight round trips), through pgbench, no service.
# pgbench_append is the figure with as many clients as the instance has write threads (8 by default on
# PostgreSQL): the most appends it has in flight at once.
pgbench_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/pgbench
pgbench_tps() {  # pgbench_tps SCRIPT CLIENTS
    PGPASSWORD=$(cat "$work/pg/password") "$pgbench_bin" -n -h 127.0.0.1 -p "$(cat "$work/pg/port")" -U listdelta \
        -c "$2" -j 1 -T "$DURATION" -f "$1" scale_one 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | cut -d. -f1
}
pgbench_append=$(pgbench_tps Benchmarks/pgbench-append.sql 8)
pgbench_two=$(pgbench_tps Benchmarks/pgbench-append.sql 2)
echo "details: one instance with writeThreads 8 (the default): $writes_1 writes/s against pgbench with 8 clients: ${pgbench_append:-?} transactions/s (ratio $(awk -v a="$writes_1" -v b="${pgbench_append:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'))" >&2
echo "details: one instance with writeThreads 2: $writes_1_two writes/s against pgbench with 2 clients: ${pgbench_two:-?} transactions/s (ratio $(awk -v a="$writes_1_two" -v b="${pgbench_two:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'))" >&2
echo "details: the eight statements of the release before the function, through pgbench with 2 clients: $(pgbench_tps Benchmarks/pgbench-append-statements.sql 2) transactions/s" >&2
echo "details: the same with $CONNECTIONS clients (as many as wrk's connections): $(pgbench_tps Benchmarks/pgbench-append.sql "$CONNECTIONS") (the function), $(pgbench_tps Benchmarks/pgbench-append-statements.sql "$CONNECTIONS") (the eight statements)" >&2

# sql DATABASE QUERY: one value, as the cluster's superuser (for the details printed to stderr).
sql() {
    PGPASSWORD=$(cat "$work/pg/superuser-password") psql -X -qtA -h 127.0.0.1 -p "$(cat "$work/pg/port")" -U postgres -d "$1" -c "$2"
}

# Two instances on one database.
url=$(bash scripts/postgres-cluster.sh createdb "$work/pg" scale_two)
start a --database-url "$url"
a=$port
start b --database-url "$url"
b=$port
b_pid=$pid
wal_before=$(sql scale_two "SELECT pg_current_wal_lsn()")
writes_2=$(wrk_rps Benchmarks/lua/write.lua "$CONNECTIONS" "$a" "$b")
revisions=$(sql scale_two "SELECT coalesce(sum(revision), 0) FROM list_head")
wal_bytes=$(sql scale_two "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal_before')")
echo "details: two instances wrote $revisions revisions, $wal_bytes bytes of WAL ($((${wal_bytes%.*} / (revisions > 0 ? revisions : 1))) per revision)" >&2
reads_2=$(wrk_rps Benchmarks/lua/read.lua "$CONNECTIONS" "$a" "$b")

# 1,000 polls parked on b, woken by a write through a (cross) or through b itself (same: what answering them
# costs without crossing instances). One unmeasured round of each first (b's first 1,000 connections, its first
# rendering), then the measured rounds alternate, so that both see the same machine; each figure is the worst of
# its rounds.
curl -fs -X PUT -H 'Content-Type: application/json' --data '{"kind":"sections","sections":[]}' \
    "http://127.0.0.1:$a/v1/lists/parked" >/dev/null
# wake_p99 NAME ROUND [--write-port PORT]: one round of 1,000 parked polls on b; prints the p99 in ms.
wake_p99() {
    local name=$1 round=$2 line p99 answered
    shift 2
    line=$(python3 Benchmarks/parked-polls.py --port "$b" --pid "$b_pid" "$@" --list parked --polls 1000 \
        --procs 1 --deadline 60 | tee "$work/wake-$name-$round.log" | grep '^parked polls=' || true)
    echo "details: $name wake round $round: $(grep -E '^(opened|PUT [0-9])' "$work/wake-$name-$round.log" | tr '\n' ' ')" >&2
    p99=$(echo "$line" | sed -n 's/.*p99_ms=\([0-9-]*\).*/\1/p')
    answered=$(echo "$line" | sed -n 's/.*answered=\([0-9]*\).*/\1/p')
    if [ -z "$p99" ] || [ "${answered:-0}" -ne 1000 ]; then
        echo "error: the $name wake-up failed: $(tail -3 "$work/wake-$name-$round.log")" >&2
        exit 1
    fi
    echo "$p99"
}
wake_p99 cross 0 --write-port "$a" >/dev/null || exit 1
wake_p99 same 0 >/dev/null || exit 1
wake=0
same=0
for round in $(seq 1 "$WAKE_ROUNDS"); do
    p99=$(wake_p99 cross "$round" --write-port "$a") && [ -n "$p99" ] || exit 1
    [ "$p99" -gt "$wake" ] && wake=$p99
    p99=$(wake_p99 same "$round") && [ -n "$p99" ] || exit 1
    [ "$p99" -gt "$same" ] && same=$p99
done
stop_all

echo "scale writes_1=$writes_1 pgbench_append=$pgbench_append writes_2=$writes_2 reads_1=$reads_1 reads_2=$reads_2 cross_wake_p99_ms=$wake same_wake_p99_ms=$same sqlite_writes=$sqlite_writes"
