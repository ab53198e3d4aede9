#!/usr/bin/env bash
# Load test for ListDelta (loopback only, bounded in time and count).
#
#  1. Mixed workload for $DURATION seconds (default 15) on 100 lists, three wrk runs at once:
#     long-pollers (Benchmarks/lua/poll.lua: diff?from=<latest seen>&wait=5), writers (lua/write.lua: PUT),
#     readers (lua/read.lua: documents, old revisions, diffs with an explicit `to`).
#     Prints throughput and p50/p99 latency per class, and the server's VmRSS and open fds before and after.
#  2. $PARKED (default 10000) parked long polls on one list woken by one write (Benchmarks/parked-polls.py, the
#     polls spread over 2 client processes: one asyncio process is itself too slow to read 10000 answers), first on
#     the server that ran the mixed load, then on a freshly started one;
#     prints `parked polls=<N> answered=<n> all_answered_ms=<t> rss_mb=<m>`.
#
#  3. Unknown ids: a flood of GET /v1/lists/<random id> against a flood of one cached document, same concurrency
#     ($READ_CONNS), rounds interleaved; prints `unknown_ids rps=<n> cached_rps=<n> ratio=<r>`.
#  4. Overload, on a server restarted with a write queue of $OVERLOAD_QUEUE (default 100): $OVERLOAD_WRITERS
#     (default 400) connections PUT 2,000-item lists for $OVERLOAD_SECONDS (default 10) alongside readers and 200
#     long-pollers; prints `overload writes_ok=<n> writes_503=<n> writes_other=<n> write_timeouts=<n>
#     write_p99_s=<s> read_p99_ms=<ms> poll_p99_ms=<ms> threads_max=<n> rss_max_mb=<n>`.
#  5. Many lists: $MANY_CLIENTS (default 1000) clients each following 10 of 100 lists while one writer PUTs to random
#     lists at $MANY_RATE (default 100) writes/s for 10 s (Benchmarks/many-lists.py), once with one event stream per
#     client (/v1/events?lists=, 1,000 connections) and once with one stream per list (10,000 connections), each on a
#     freshly started server; prints `many_lists mode=<m> connections=<n> writes=<w> events=<got>/<expected>
#     events_per_s=<r> delay_p50_ms=<x> delay_p99_ms=<y> rss_mb=<m> rss_peak_mb=<m> server_cpu_s=<s>` per mode and
#     `many_lists_vs_single rss=<ratio> delay_p99=<ratio> cpu=<ratio>`. MANY_ONLY=1 runs this part alone.
#
# Env: LISTDELTA_BIN (default .build/release/listdelta, built if missing), SERVER_CONFIG (a --config file for it), DURATION, PARKED, POLL_CONNS (default
# 1000), WRITE_CONNS (default 4), READ_CONNS (default 32), WRK_THREADS (default 1 per class).
set -u
cd "$(dirname "$0")/.."
REPO=$(pwd)
BIN=${LISTDELTA_BIN:-$REPO/.build/release/listdelta}
DURATION=${DURATION:-15}
PARKED=${PARKED:-10000}
POLL_CONNS=${POLL_CONNS:-1000}
WRITE_CONNS=${WRITE_CONNS:-4}
READ_CONNS=${READ_CONNS:-32}
WRK_THREADS=${WRK_THREADS:-1}
LISTS=100
BASE_REVS=5
[ "$DURATION" -gt 120 ] && DURATION=120

if ! command -v wrk >/dev/null 2>&1; then
  echo "installing wrk ..."
  apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; } || {
    echo "wrk is missing and could not be installed" >&2; exit 2; }
fi
if [ ! -x "$BIN" ]; then
  echo "building the release binary ..."
  swift build -c release --product listdelta || exit 2
fi

# the descriptor limit: 65536 if allowed, else as high as the hard limit
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "fd limit: $(ulimit -n) (hard $(ulimit -Hn)); cpus: $(nproc); binary: $BIN"

TMP=$(mktemp -d /tmp/listdelta-load.XXXXXX)
SERVER_PID=""
WRK_PIDS=""
cleanup() {
  for p in $WRK_PIDS; do kill "$p" 2>/dev/null; done
  if [ -n "$SERVER_PID" ]; then kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
mkdir -p "$TMP/data"
start_server() {
  LISTDELTA_MAX_QUEUED_REQUESTS=${SERVER_QUEUE:-1000} LISTDELTA_MAX_CONNECTIONS=20000 LISTDELTA_MAX_CONNECTIONS_PER_CLIENT=0 LISTDELTA_LOG_LEVEL=${LISTDELTA_LOG_LEVEL:-warning} \
    "$BIN" serve ${SERVER_CONFIG:+--config "$SERVER_CONFIG"} --host 127.0.0.1 --port "$PORT" --data "$TMP/data" --retention 100000 >>"$TMP/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    curl -fs "$URL/healthz" >/dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "server died:"; cat "$TMP/server.log"; exit 2; }
    sleep 0.1
  done
  curl -fs "$URL/healthz" >/dev/null || { echo "server not ready"; exit 2; }
}
stop_server() {
  kill "$SERVER_PID" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
}
start_server

rss() { awk '/^VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$SERVER_PID/status"; }
hwm() { awk '/^VmHWM/ {printf "%.1f MB", $2/1024}' "/proc/$SERVER_PID/status"; }
nfd() { ls "/proc/$SERVER_PID/fd" | wc -l; }

many_lists() {
  echo
  echo "== many lists: ${MANY_CLIENTS:-1000} clients x 10 of 100 lists, ${MANY_RATE:-100} writes/s for 10 s: one stream per client vs one per list =="
  local mode
  for mode in many single; do
    stop_server
    start_server
    timeout 300 python3 Benchmarks/many-lists.py --port "$PORT" --pid "$SERVER_PID" --mode "$mode" \
      --clients "${MANY_CLIENTS:-1000}" --rate "${MANY_RATE:-100}" --prefix "ml-$mode" 2>"$TMP/many-$mode.err" | tee "$TMP/many-$mode.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "many-lists $mode failed:"; cat "$TMP/many-$mode.err"; MANY_RC=1; }
  done
  python3 - "$TMP/many-many.txt" "$TMP/many-single.txt" <<'EOF'
import re, sys
def fields(path):
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", open(path).read())}
many, single = fields(sys.argv[1]), fields(sys.argv[2])
if many and single:
    print(f"many_lists_vs_single rss={many['rss_mb'] / single['rss_mb']:.2f} delay_p99={many['delay_p99_ms'] / single['delay_p99_ms']:.2f} "
          f"cpu={many['server_cpu_s'] / single['server_cpu_s']:.2f} connections={many['connections'] / single['connections']:.2f}")
EOF
}
MANY_RC=0
if [ "${MANY_ONLY:-0}" = "1" ]; then
  many_lists
  exit "$MANY_RC"
fi

echo "creating $LISTS lists x $BASE_REVS revisions ..."
python3 - "$PORT" "$LISTS" "$BASE_REVS" <<'EOF' || exit 2
import json, sys, http.client
port, lists, revs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
for k in range(lists):
    for r in range(1, revs + 1):
        secs = [{"id": f"s{s}", "title": f"Section {s}", "items": [
            {"id": f"i{s}-{(j + r) % 10}", "cell": "C", "model": {"n": (j + r) % 10, "text": f"item {s}-{j}", "r": r if j == s else 0}}
            for j in range(10)]} for s in range(1, 4)]
        c.request("PUT", f"/v1/lists/load-{k}", json.dumps({"kind": "sections", "sections": secs}),
                  {"Content-Type": "application/json"})
        resp = c.getresponse(); resp.read()
        assert resp.status in (200, 201), resp.status
EOF

echo
echo "== mixed workload: ${DURATION}s, $POLL_CONNS long-pollers (wait=5), $WRITE_CONNS writers, $READ_CONNS readers =="
echo "server before: VmRSS $(rss), fds $(nfd)"
export LD_LISTS=$LISTS LD_WAIT=5 LD_BASE_REVS=$BASE_REVS
wrk -t"$WRK_THREADS" -c"$POLL_CONNS" -d"${DURATION}s" --timeout 10s --latency -s Benchmarks/lua/poll.lua "$URL" >"$TMP/poll.txt" 2>&1 &
WRK_PIDS="$WRK_PIDS $!"
wrk -t"$WRK_THREADS" -c"$WRITE_CONNS" -d"${DURATION}s" --timeout 10s --latency -s Benchmarks/lua/write.lua "$URL" >"$TMP/write.txt" 2>&1 &
WRK_PIDS="$WRK_PIDS $!"
wrk -t"$WRK_THREADS" -c"$READ_CONNS" -d"${DURATION}s" --timeout 10s --latency -s Benchmarks/lua/read.lua "$URL" >"$TMP/read.txt" 2>&1 &
WRK_PIDS="$WRK_PIDS $!"
sleep $((DURATION / 2))
echo "server during: VmRSS $(rss), fds $(nfd)"
for p in $WRK_PIDS; do wait "$p"; done
WRK_PIDS=""
sleep 1
echo "server after: VmRSS $(rss) (peak VmHWM $(hwm)), fds $(nfd)"
# what the caches hold by their own accounting, against their budget (cacheBytes)
curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^listdelta_cached_(bodies|documents)_bytes/ {printf "%s=%.1fMB ", $1, $2 / 1048576} END {print ""}'
for class in poll write read; do
  f="$TMP/$class.txt"
  reqs=$(awk '/Requests\/sec/ {print $2}' "$f")
  p50=$(awk '$1=="50%" {print $2}' "$f")
  p99=$(awk '$1=="99%" {print $2}' "$f")
  errs=$(grep -E "Socket errors|Non-2xx" "$f" | tr '\n' ' ')
  total=$(awk '/requests in/ {print $1}' "$f")
  echo "load class=$class requests=$total rps=$reqs p50=$p50 p99=$p99 ${errs}"
done
if [ -n "${VERBOSE:-}" ]; then cat "$TMP/poll.txt" "$TMP/write.txt" "$TMP/read.txt"; fi
curl -fs "$URL/healthz" >/dev/null && echo "healthz after load: 200" || echo "healthz after load: FAILED"

parked() {
  timeout 180 python3 Benchmarks/parked-polls.py --port "$PORT" --pid "$SERVER_PID" --list parked --polls "$PARKED"
  RC=$?
  sleep 2
  echo "server after the polls closed: VmRSS $(rss) (peak VmHWM $(hwm)), fds $(nfd)"
  curl -fs "$URL/healthz" >/dev/null && echo "healthz: 200" || echo "healthz: FAILED"
}
curl -fs -X PUT -H 'Content-Type: application/json' \
  -d '{"sections":[{"id":"s1","title":"A","items":[{"id":"i1","model":{"n":1}}]}]}' "$URL/v1/lists/parked" >/dev/null
echo
echo "== $PARKED parked long polls woken by one write, on the server that just ran the mixed load =="
echo "server before: VmRSS $(rss), fds $(nfd)"
parked
RC1=$RC
echo
echo "== $PARKED parked long polls woken by one write, on a freshly started server (same data) =="
stop_server
start_server
echo "server before: VmRSS $(rss), fds $(nfd)"
parked
RC2=$RC

# wrk's p99 of a class in milliseconds (wrk prints us, ms or s).
p99_ms() {
  awk '$1=="99%" { v=$2; if (v ~ /us$/) { sub(/us/,"",v); v=v/1000 } else if (v ~ /ms$/) { sub(/ms/,"",v) } else if (v ~ /s$/) { sub(/s/,"",v); v=v*1000 } printf "%.2f", v }' "$1"
}
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }

echo
echo "== unknown ids: GET of random ids that no list has vs. one cached document, $READ_CONNS connections, 3 x 5s rounds each =="
curl -fs "$URL/v1/lists/load-0" >/dev/null
UNKNOWN_SUM=0; CACHED_SUM=0
for round in 1 2 3; do
  wrk -t1 -c"$READ_CONNS" -d5s --timeout 10s -s Benchmarks/lua/unknown.lua "$URL" >"$TMP/unknown.txt" 2>&1
  wrk -t1 -c"$READ_CONNS" -d5s --timeout 10s "$URL/v1/lists/load-0" >"$TMP/cached.txt" 2>&1
  echo "round $round: unknown rps=$(rps "$TMP/unknown.txt") $(grep -E 'Non-2xx' "$TMP/unknown.txt" | tr -s ' ') cached rps=$(rps "$TMP/cached.txt")"
  UNKNOWN_SUM=$(python3 -c "print($UNKNOWN_SUM + $(rps "$TMP/unknown.txt"))")
  CACHED_SUM=$(python3 -c "print($CACHED_SUM + $(rps "$TMP/cached.txt"))")
done
python3 -c "u=$UNKNOWN_SUM/3; c=$CACHED_SUM/3; print(f'unknown_ids rps={u:.0f} cached_rps={c:.0f} ratio={u/c:.2f}')"

OVERLOAD_QUEUE=${OVERLOAD_QUEUE:-100}
OVERLOAD_WRITERS=${OVERLOAD_WRITERS:-400}
OVERLOAD_SECONDS=${OVERLOAD_SECONDS:-10}
echo
echo "== overload: $OVERLOAD_WRITERS writers of 2,000-item lists for ${OVERLOAD_SECONDS}s (write queue $OVERLOAD_QUEUE), $READ_CONNS readers, 200 long-pollers =="
stop_server
SERVER_QUEUE=$OVERLOAD_QUEUE start_server
echo "server before: VmRSS $(rss), threads $(awk '/^Threads/ {print $2}' /proc/$SERVER_PID/status)"
SAMPLES="$TMP/samples.txt"
( while kill -0 "$SERVER_PID" 2>/dev/null; do
    awk '/^Threads/ {t=$2} /^VmRSS/ {r=$2} END {print t, r}' "/proc/$SERVER_PID/status" >>"$SAMPLES" 2>/dev/null
    sleep 0.25
  done ) &
SAMPLER=$!
wrk -t2 -c"$OVERLOAD_WRITERS" -d"${OVERLOAD_SECONDS}s" --timeout 10s --latency -s Benchmarks/lua/flood.lua "$URL" >"$TMP/flood.txt" 2>&1 &
WRK_PIDS="$!"
wrk -t1 -c"$READ_CONNS" -d"${OVERLOAD_SECONDS}s" --timeout 10s --latency -s Benchmarks/lua/read.lua "$URL" >"$TMP/oread.txt" 2>&1 &
WRK_PIDS="$WRK_PIDS $!"
wrk -t1 -c200 -d"${OVERLOAD_SECONDS}s" --timeout 10s --latency -s Benchmarks/lua/poll.lua "$URL" >"$TMP/opoll.txt" 2>&1 &
WRK_PIDS="$WRK_PIDS $!"
for p in $WRK_PIDS; do wait "$p"; done
WRK_PIDS=""
sleep 1
kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null
FLOOD=$(grep '^flood ' "$TMP/flood.txt")
ok=$(echo "$FLOOD" | sed -E 's/.*ok=([0-9]+).*/\1/')
busy=$(echo "$FLOOD" | sed -E 's/.*busy=([0-9]+).*/\1/')
other=$(echo "$FLOOD" | sed -E 's/.*other=([0-9]+).*/\1/')
timeouts=$(grep -Eo 'timeout [0-9]+' "$TMP/flood.txt" | awk '{print $2}'); timeouts=${timeouts:-0}
wp99=$(echo "$FLOOD" | sed -E 's/.*p99_s=([0-9.]+).*/\1/')
threads_max=$(awk 'BEGIN {m=0} $1>m {m=$1} END {print m}' "$SAMPLES")
rss_max=$(awk 'BEGIN {m=0} $2>m {m=$2} END {printf "%.0f", m/1024}' "$SAMPLES")
echo "readers: rps=$(rps "$TMP/oread.txt") p99=$(p99_ms "$TMP/oread.txt")ms $(grep -E 'Socket errors|Non-2xx' "$TMP/oread.txt" | tr '\n' ' ')"
echo "pollers: rps=$(rps "$TMP/opoll.txt") p99=$(p99_ms "$TMP/opoll.txt")ms $(grep -E 'Socket errors|Non-2xx' "$TMP/opoll.txt" | tr '\n' ' ')"
echo "overload writes_ok=$ok writes_503=$busy writes_other=$other write_timeouts=$timeouts write_p99_s=$wp99 read_p99_ms=$(p99_ms "$TMP/oread.txt") poll_p99_ms=$(p99_ms "$TMP/opoll.txt") threads_max=$threads_max rss_max_mb=$rss_max"
curl -fs "$URL/healthz" >/dev/null && echo "healthz after overload: 200" || echo "healthz after overload: FAILED"

many_lists

[ "$RC1" -eq 0 ] && [ "$RC2" -eq 0 ] && [ "$MANY_RC" -eq 0 ]
