#!/usr/bin/env bash
# Compares http-bench-server (HTTPServer) with nginx serving the same 2 KB JSON, plain and gzip.
# Loopback only, bounded runs. Last line: http plain_ratio=... gzip_ratio=... plain_instr_ratio=... gzip_instr_ratio=...
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION="${DURATION:-5s}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-32}"

need=()
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
if [ "${#need[@]}" -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX_BIN="$(command -v nginx || echo /usr/sbin/nginx)"

swift build -c release --product http-bench-server >/dev/null
BIN="$(swift build -c release --show-bin-path)/http-bench-server"

WORK="$(mktemp -d)"
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

OUR_PORT="$(free_port)"
"$BIN" "$OUR_PORT" 1 >"$WORK/ours.log" 2>&1 &
OUR_PID=$!
PIDS+=("$OUR_PID")

# The same bytes for nginx: fetch them from our server once it is up.
mkdir -p "$WORK/www" "$WORK/tmp"
for _ in $(seq 1 50); do
    if curl -sf "http://127.0.0.1:$OUR_PORT/bench" -o "$WORK/www/bench"; then break; fi
    sleep 0.1
done
[ -s "$WORK/www/bench" ] || { echo "bench server did not start" >&2; exit 1; }

NGINX_PORT="$(free_port)"
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/tmp; proxy_temp_path $WORK/tmp; fastcgi_temp_path $WORK/tmp;
    uwsgi_temp_path $WORK/tmp; scgi_temp_path $WORK/tmp;
    default_type application/json;
    types { application/json json; }
    gzip on; gzip_comp_level 6; gzip_types application/json; gzip_min_length 1024; gzip_vary on;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/www;
        location = /bench { default_type application/json; }
    }
}
CONF
"$NGINX_BIN" -c "$WORK/nginx.conf" -p "$WORK" &
NGINX_MASTER=$!
PIDS+=("$NGINX_MASTER")
sleep 0.5
# perf watches the single worker, which serves every request.
NGINX_PID="$(pgrep -P "$NGINX_MASTER" | head -1 || true)"
[ -n "$NGINX_PID" ] || NGINX_PID="$NGINX_MASTER"

PERF_OK=0
if perf stat -e instructions true 2>&1 | grep -qE '^[[:space:]]*[0-9][0-9,]*[[:space:]]+instructions'; then PERF_OK=1; fi

# run NAME PORT PID [header...] -> prints "reqs p99 instr_per_req"
run() {
    local name="$1" port="$2" pid="$3"; shift 3
    local args=(-t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency --timeout 2s)
    for h in "$@"; do args+=(-H "$h"); done
    local perf_out="$WORK/perf-$name.txt"
    if [ "$PERF_OK" = 1 ]; then
        perf stat -e instructions -p "$pid" -o "$perf_out" &
        local perf_pid=$!
    fi
    wrk "${args[@]}" "http://127.0.0.1:$port/bench" >"$WORK/wrk-$name.txt"
    local instr="na"
    if [ "$PERF_OK" = 1 ]; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" 2>/dev/null || true
        instr="$(awk '/instructions/ {gsub(",","",$1); print $1}' "$perf_out" | head -1)"
    fi
    local rps p99 total
    rps="$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk-$name.txt")"
    p99="$(awk '$1=="99%" {print $2}' "$WORK/wrk-$name.txt")"
    total="$(awk '/requests in/ {print $1}' "$WORK/wrk-$name.txt")"
    local per="na"
    if [ "$instr" != "na" ] && [ -n "$instr" ] && [ "${total:-0}" -gt 0 ]; then per=$((instr / total)); fi
    echo "$name req/s=$rps p99=$p99 instr/req=$per" >&2
    echo "$rps $p99 $per"
}

read -r OURS_RPS OURS_P99 OURS_I < <(run ours-plain "$OUR_PORT" "$OUR_PID")
read -r NGX_RPS NGX_P99 NGX_I < <(run nginx-plain "$NGINX_PORT" "$NGINX_PID")
read -r OURS_GZ_RPS OURS_GZ_P99 OURS_GZ_I < <(run ours-gzip "$OUR_PORT" "$OUR_PID" 'Accept-Encoding: gzip')
read -r NGX_GZ_RPS NGX_GZ_P99 NGX_GZ_I < <(run nginx-gzip "$NGINX_PORT" "$NGINX_PID" 'Accept-Encoding: gzip')

ratio() { if [ "$1" = "na" ] || [ "$2" = "na" ]; then echo na; else awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "na" }'; fi; }

echo "ours  plain: ${OURS_RPS} req/s p99 ${OURS_P99} | gzip: ${OURS_GZ_RPS} req/s p99 ${OURS_GZ_P99}"
echo "nginx plain: ${NGX_RPS} req/s p99 ${NGX_P99} | gzip: ${NGX_GZ_RPS} req/s p99 ${NGX_GZ_P99}"
echo "http plain_ratio=$(ratio "$OURS_RPS" "$NGX_RPS") gzip_ratio=$(ratio "$OURS_GZ_RPS" "$NGX_GZ_RPS") plain_instr_ratio=$(ratio "$OURS_I" "$NGX_I") gzip_instr_ratio=$(ratio "$OURS_GZ_I" "$NGX_GZ_I")"
