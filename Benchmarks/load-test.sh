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
# Env: LISTDELTA_BIN (default .build/release/listdelta, built if missing), DURATION, PARKED, POLL_CONNS (default
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
  LISTDELTA_MAX_CONNECTIONS=20000 LISTDELTA_LOG_LEVEL=${LISTDELTA_LOG_LEVEL:-warning} \
    "$BIN" serve --host 127.0.0.1 --port "$PORT" --data "$TMP/data" --retention 100000 >>"$TMP/server.log" 2>&1 &
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
[ "$RC1" -eq 0 ] && [ "$RC" -eq 0 ]
