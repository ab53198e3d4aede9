#!/usr/bin/env bash
# Polls that a cache collapses: one origin instance behind nginx running Config/nginx-cache.conf (the CDN), and
# FOLLOWERS (default "1000 5000 20000") followers of one hot list each fetching the document and following `next`
# through it (Benchmarks/cdn-followers.py: asyncio, one process per core), while a writer writes the list at the
# origin at a steady rate with one quiet gap longer than the polls' wait. Then, for comparison in the same run,
# DIRECT (default 1000) followers straight at the origin, and QUERY_FOLLOWERS (default 1000) followers of one live
# query of the list (QUERY, default its 10 items of highest n) through the cache, whose polls carry `q` and follow
# the canonical `next` links. Every follower must end on the origin's final document (or the query's result).
#
# Loopback only; each run is bounded by TIMEOUT seconds. One line per run:
#   cdn followers=<n> revisions=<n> origin_diff_requests=<n> per_revision=<x> origin_document_requests=<n>
#       delivery_p99_ms=<ms> origin_cpu_s=<s> via=cache|origin|cache-query exact=<n> polls=<n>
# origin_*: counted from the origin's own /metrics (http_requests_total) over the run; per_revision is
# origin_diff_requests / revisions; delivery: from the moment a write is sent to the moment a follower holds it,
# p99 over every follower and revision; origin_cpu_s: the origin's user + system CPU over the run; polls: the
# followers' requests (what the origin would serve without the cache).
set -euo pipefail

cd "$(dirname "$0")/.."
FOLLOWERS="${FOLLOWERS:-1000 5000 20000}"
DIRECT="${DIRECT:-1000}"
QUERY_FOLLOWERS="${QUERY_FOLLOWERS:-1000}"
DEFAULT_QUERY='{"sort":[{"path":"/model/n","order":"desc"}],"limit":10}'
QUERY="${QUERY:-$DEFAULT_QUERY}"
WAIT="${WAIT:-10}"
WRITES="${WRITES:-20}"
RATE="${RATE:-1}"
TIMEOUT="${TIMEOUT:-240}"
# NGINX_ACCESS_LOG=FILE keeps nginx's access log (worker, time, URI, status, cache status, upstream time) for a look;
# NGINX_ERROR_LOG=FILE and NGINX_ERROR_LEVEL=info its error log; NGINX_WORKERS (default 2) its worker processes.

need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl >/dev/null 2>&1 || need+=(curl)
if [ "${#need[@]}" -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX_BIN="$(command -v nginx || echo /usr/sbin/nginx)"

# 20,000 followers hold 20,000 connections to nginx: two nginx workers (SO_REUSEPORT spreads the connections) and
# two follower processes hold about 10,000 each, within a hard limit of 20,000 open files per process.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 12000 ]; then
    echo "cdn.sh: the open-file limit is $(ulimit -n); 20,000 followers need about 12,000 per process" >&2
fi
NOFILE="$(ulimit -n)"
[ "$NOFILE" = unlimited ] && NOFILE=65535

if [ -z "${LISTDELTA_BIN:-}" ]; then
    swift build -c release --product listdelta >/dev/null
    LISTDELTA_BIN="$(swift build -c release --show-bin-path)/listdelta"
fi

# shellcheck source=Benchmarks/lib/workdir.sh
source Benchmarks/lib/workdir.sh

ORIGIN_PORT="$(free_port)"
CACHE_PORT="$(free_port)"
mkdir -p "$WORK/data" "$WORK/nginx"
LISTDELTA_DURABLE_SYNC=false LISTDELTA_MAX_CONNECTIONS=30000 LISTDELTA_MAX_CONNECTIONS_PER_CLIENT=0 LISTDELTA_LOG_LEVEL=warning \
    "$LISTDELTA_BIN" serve --host 127.0.0.1 --port "$ORIGIN_PORT" --data "$WORK/data" >"$WORK/origin.log" 2>&1 &
ORIGIN_PID=$!
PIDS+=("$ORIGIN_PID")

site="$(sed -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$ORIGIN_PORT;|" -e "s|listen 80;|listen 127.0.0.1:$CACHE_PORT reuseport backlog=65535;|" \
    -e "s|/var/cache/nginx/listdelta |$WORK/nginx/cache |" Config/nginx-cache.conf)"
temp=""
for kind in client_body proxy fastcgi uwsgi scgi; do temp+="    ${kind}_temp_path $WORK/nginx/$kind;"$'\n'; done
cat >"$WORK/nginx/nginx.conf" <<EOF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes ${NGINX_WORKERS:-2};
worker_rlimit_nofile $((NOFILE - 100));
daemon off;
pid $WORK/nginx/nginx.pid;
error_log ${NGINX_ERROR_LOG:-$WORK/nginx/error.log} ${NGINX_ERROR_LEVEL:-crit};
events { worker_connections $((NOFILE - 500)); }
http {
    log_format bench '\$pid \$msec \$request_uri \$status \$upstream_cache_status \$upstream_response_time';
    access_log ${NGINX_ACCESS_LOG:-off}$( [ -n "${NGINX_ACCESS_LOG:-}" ] && echo " bench" );
    keepalive_requests 100000;
$temp
$site
}
EOF
"$NGINX_BIN" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
PIDS+=("$!")
wait_for_url "http://127.0.0.1:$ORIGIN_PORT/healthz"
wait_for_url "http://127.0.0.1:$CACHE_PORT/healthz"

origin_requests() {  # $1: route pattern
    curl -sf "http://127.0.0.1:$ORIGIN_PORT/metrics" | python3 -c '
import re, sys
route = sys.argv[1]
total = 0.0
for line in sys.stdin:
    m = re.match(r"^http_requests_total\{(.*)\}\s+(\S+)$", line.strip())
    if m and f"route=\"{route}\"" in m.group(1) and "method=\"GET\"" in m.group(1):
        total += float(m.group(2))
print(int(total))' "$1"
}

origin_cpu() {  # user + system seconds
    python3 -c '
import os, sys
fields = open(f"/proc/{sys.argv[1]}/stat").read().rsplit(")", 1)[1].split()
print((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))' "$ORIGIN_PID"
}

run() {  # $1: followers, $2: port the followers use, $3: via, $4: a live query to follow (optional)
    local list="cdn-$1-$3" diffs0 docs0 cpu0 out query=()
    [ -n "${4:-}" ] && query=(--query "$4")
    diffs0="$(origin_requests '/v1/lists/{id}/diff')"
    docs0="$(origin_requests '/v1/lists/{id}')"
    cpu0="$(origin_cpu)"
    out="$(timeout "$TIMEOUT" python3 Benchmarks/cdn-followers.py --port "$2" --origin "$ORIGIN_PORT" --list "$list" \
        --followers "$1" --wait "$WAIT" --writes "$WRITES" --rate "$RATE" --timeout "$((TIMEOUT - 20))" "${query[@]}")"
    python3 - "$out" "$diffs0" "$(origin_requests '/v1/lists/{id}/diff')" "$docs0" "$(origin_requests '/v1/lists/{id}')" \
        "$cpu0" "$(origin_cpu)" "$3" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
diffs = int(sys.argv[3]) - int(sys.argv[2])
docs = int(sys.argv[5]) - int(sys.argv[4])
cpu = float(sys.argv[7]) - float(sys.argv[6])
print(f"cdn followers={r['followers']} revisions={r['revisions']} origin_diff_requests={diffs} "
      f"per_revision={diffs / r['revisions']:.2f} origin_document_requests={docs} delivery_p99_ms={r['delivery_p99_ms']} "
      f"origin_cpu_s={cpu:.2f} via={sys.argv[8]} exact={r['exact']} polls={r['polls']}")
if r["exact"] != r["followers"] or r["error_count"]:
    print(f"cdn: {r['followers'] - r['exact']} followers did not end on the final document; errors: {r['errors']}", file=sys.stderr)
    sys.exit(1)
PY
}

for n in $FOLLOWERS; do run "$n" "$CACHE_PORT" cache; done
for n in $DIRECT; do run "$n" "$ORIGIN_PORT" origin; done
for n in $QUERY_FOLLOWERS; do run "$n" "$CACHE_PORT" cache-query "$QUERY"; done
