#!/usr/bin/env bash
# Compares the HTTP layer (http-bench-server, one loop) with nginx (one worker) serving the same 2 KB JSON,
# plain and gzip'd (ours sends the stored gzip bytes, nginx compresses per request), and with bare libevent
# evhttp (Benchmarks/bare-evhttp.c), the floor the layer is built on. The layer runs twice: with its default
# single-entry response heads ("ours") and with plain evhttp_add_header heads ("ourshead"), to show what the
# libevent-specific head buys (the line `response_head single_entry/plain ...`).
#
# Loopback only; every run is bounded in time. All servers run in the same sitting, interleaved over ROUNDS
# rounds, and each ratio is the median of the per-round ratios (the machine is shared and noisy).
#
# Figures per server and mode:
#   req/s and p99 from wrk;
#   cpu_us/req: the server's CPU time (user + system, from /proc) during the wrk run over the requests served,
#     the kernel's work included;
#   instr/req: hardware instructions with `perf stat` where the machine has counters; otherwise callgrind's
#     instruction count (user space only, the kernel excluded), measured in a separate run under valgrind.
# Last line: http plain_ratio=... gzip_ratio=... plain_instr_ratio=... gzip_instr_ratio=... (the instruction
# ratios are perf's, or na where perf has no counters; callgrind's ratios are printed on the line above).
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION="${DURATION:-5s}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-32}"
ROUNDS="${ROUNDS:-3}"
CALLGRIND_SECONDS="${CALLGRIND_SECONDS:-4}"

need=()
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v curl >/dev/null 2>&1 || need+=(curl)
if [ "${#need[@]}" -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX_BIN="$(command -v nginx || echo /usr/sbin/nginx)"
CC_BIN="${CC:-$(command -v cc || command -v clang)}"

# OURS_BIN measures another build of http-bench-server (an earlier commit's, to compare before and after a change).
if [ -z "${OURS_BIN:-}" ]; then
    swift build -c release --product http-bench-server >/dev/null
    OURS_BIN="$(swift build -c release --show-bin-path)/http-bench-server"
fi

# shellcheck source=Benchmarks/lib/workdir.sh
source Benchmarks/lib/workdir.sh

"$CC_BIN" -O2 -o "$WORK/bare-evhttp" Benchmarks/bare-evhttp.c -levent

mkdir -p "$WORK/www" "$WORK/tmp"
nginx_conf() {  # PORT -> writes $WORK/nginx-PORT.conf (one process: no master, so /proc and valgrind see it all)
    cat >"$WORK/nginx-$1.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $WORK/nginx-$1.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/tmp; proxy_temp_path $WORK/tmp; fastcgi_temp_path $WORK/tmp;
    uwsgi_temp_path $WORK/tmp; scgi_temp_path $WORK/tmp;
    default_type application/json;
    gzip on; gzip_comp_level 6; gzip_types application/json; gzip_min_length 1024; gzip_vary on;
    server {
        listen 127.0.0.1:$1;
        root $WORK/www;
        location = /bench { default_type application/json; }
    }
}
CONF
}

# stop_server PID: SIGTERM, then SIGKILL after 5 s (a server under valgrind may not get round to exiting)
stop_server() {
    kill "$1" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# start NAME PORT [wrapper...] -> starts the server NAME on PORT, sets STARTED_PID
start() {
    local name="$1" port="$2"; shift 2
    case "$name" in
        ours) "$@" "$OURS_BIN" "$port" 1 single-entry >"$WORK/$name-$port.log" 2>&1 & ;;
        ourshead) "$@" "$OURS_BIN" "$port" 1 plain >"$WORK/$name-$port.log" 2>&1 & ;;
        bare) "$@" "$WORK/bare-evhttp" "$port" "$WORK/plain.json" "$WORK/body.gz" >"$WORK/$name-$port.log" 2>&1 & ;;
        nginx) nginx_conf "$port"; "$@" "$NGINX_BIN" -c "$WORK/nginx-$port.conf" -p "$WORK" >"$WORK/$name-$port.log" 2>&1 & ;;
    esac
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
    wait_for_url "http://127.0.0.1:$port/bench"
}

# The bytes: ours makes them; nginx and bare evhttp serve the same plain bytes (and bare the same gzip bytes).
OURS_PORT="$(free_port)"
start ours "$OURS_PORT"
OURS_PID=$STARTED_PID
curl -sf "http://127.0.0.1:$OURS_PORT/bench" -o "$WORK/plain.json"
curl -sf -H 'Accept-Encoding: gzip' "http://127.0.0.1:$OURS_PORT/bench" -o "$WORK/body.gz"
cp "$WORK/plain.json" "$WORK/www/bench"
chmod -R a+rX "$WORK/www"
[ "$(wc -c <"$WORK/plain.json")" -eq 2048 ] || { echo "expected a 2048-byte body" >&2; exit 1; }
BARE_PORT="$(free_port)"
start bare "$BARE_PORT"
BARE_PID=$STARTED_PID
NGINX_PORT="$(free_port)"
start nginx "$NGINX_PORT"
NGINX_PID=$STARTED_PID
OURSHEAD_PORT="$(free_port)"
start ourshead "$OURSHEAD_PORT"
OURSHEAD_PID=$STARTED_PID
grep -q "response heads single-entry" "$WORK/ours-$OURS_PORT.log" || { echo "ours: single-entry heads are not in use with this libevent" >&2; exit 1; }

# Every server must answer 200 with the same bytes, plain and gzip'd (a benchmark of error pages means nothing).
for port in "$OURS_PORT" "$BARE_PORT" "$NGINX_PORT" "$OURSHEAD_PORT"; do
    curl -sf "http://127.0.0.1:$port/bench" | cmp -s - "$WORK/plain.json" || { echo "port $port: wrong plain body" >&2; exit 1; }
    headers="$(curl -sf -D - -o "$WORK/check.gz" -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/bench")"
    grep -qi '^content-encoding: gzip' <<<"$headers" || { echo "port $port: gzip not applied" >&2; exit 1; }
    gzip -dc "$WORK/check.gz" | cmp -s - "$WORK/plain.json" || { echo "port $port: wrong gzip body" >&2; exit 1; }
done

PERF_OK=0
if perf stat -e instructions true 2>&1 | grep -qE '^[[:space:]]*[0-9][0-9,]*[[:space:]]+instructions'; then PERF_OK=1; fi

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CLK_TCK="$(getconf CLK_TCK)"

# run NAME PORT PID [header...] -> prints "req/s p99_ms cpu_us_per_req perf_instr_per_req"
run() {
    local name="$1" port="$2" pid="$3"; shift 3
    local args=(-t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency --timeout 2s)
    for h in "$@"; do args+=(-H "$h"); done
    local out="$WORK/wrk-$name.txt" perf_out="$WORK/perf-$name.txt" perf_pid=""
    if [ "$PERF_OK" = 1 ]; then
        perf stat -e instructions -p "$pid" -o "$perf_out" &
        perf_pid=$!
    fi
    local before after
    before="$(cpu_ticks "$pid")"
    wrk "${args[@]}" "http://127.0.0.1:$port/bench" >"$out"
    after="$(cpu_ticks "$pid")"
    local instr="na"
    if [ -n "$perf_pid" ]; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" 2>/dev/null || true
        instr="$(awk '/instructions/ {gsub(",","",$1); print $1}' "$perf_out" | head -1)"
    fi
    if grep -q 'Non-2xx' "$out"; then echo "$name: wrk saw non-2xx answers" >&2; cat "$out" >&2; exit 1; fi
    local rps p99 total
    rps="$(awk '/Requests\/sec/ {print $2}' "$out")"
    p99="$(awk '$1=="99%" { v=$2; if (v ~ /us$/) { sub("us","",v); v/=1000 } else if (v ~ /ms$/) { sub("ms","",v) } else if (v ~ /s$/) { sub("s","",v); v*=1000 }; print v }' "$out")"
    total="$(awk '/requests in/ {print $1}' "$out")"
    local cpu per="na"
    cpu="$(awk -v t=$((after - before)) -v n="$total" -v hz="$CLK_TCK" 'BEGIN { printf "%.2f", t * 1e6 / hz / n }')"
    if [ "$instr" != "na" ] && [ -n "$instr" ] && [ "${total:-0}" -gt 0 ]; then per=$((instr / total)); fi
    echo "$rps $p99 $cpu $per"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "na"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { if [ "$1" = "na" ] || [ "$2" = "na" ]; then echo na; else awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "na" }'; fi; }

declare -A RPS CPU P99 PERF
: >"$WORK/ratios"
for round in $(seq 1 "$ROUNDS"); do
    for mode in plain gzip; do
        header=()
        [ "$mode" = gzip ] && header=('Accept-Encoding: gzip')
        for name in ours nginx bare ourshead; do
            case "$name" in
                ours) port=$OURS_PORT pid=$OURS_PID ;; nginx) port=$NGINX_PORT pid=$NGINX_PID ;;
                bare) port=$BARE_PORT pid=$BARE_PID ;; ourshead) port=$OURSHEAD_PORT pid=$OURSHEAD_PID ;;
            esac
            rps=""
            read -r rps p99 cpu per < <(run "$name-$mode" "$port" "$pid" "${header[@]}") || true
            [ -n "${rps:-}" ] || { echo "$name-$mode: no result" >&2; exit 1; }
            echo "round $round $name-$mode req/s=$rps p99_ms=$p99 cpu_us/req=$cpu perf_instr/req=$per" >&2
            RPS[$name-$mode]+="$rps "
            CPU[$name-$mode]+="$cpu "
            P99[$name-$mode]+="$p99 "
            PERF[$name-$mode]+="$per "
            eval "last_rps_$name=$rps last_cpu_$name=$cpu"
        done
        # shellcheck disable=SC2154
        echo "$mode $(ratio "$last_rps_ours" "$last_rps_nginx") $(ratio "$last_cpu_ours" "$last_cpu_nginx") $(ratio "$last_cpu_ours" "$last_cpu_bare") $(ratio "$last_rps_ours" "$last_rps_ourshead") $(ratio "$last_cpu_ours" "$last_cpu_ourshead")" >>"$WORK/ratios"
    done
done

# Instructions per request with callgrind (user space only) when perf has no counters here.
declare -A IR
if [ "$PERF_OK" = 0 ]; then
    for mode in plain gzip; do
        header=()
        [ "$mode" = gzip ] && header=(-H 'Accept-Encoding: gzip')
        for name in ours nginx bare ourshead; do
            port="$(free_port)"
            start "$name" "$port" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/cg-$name-$mode.%p"
            pid=$STARTED_PID
            callgrind_control -i on "$pid" >/dev/null 2>&1
            total="$(wrk -t1 -c4 -d"${CALLGRIND_SECONDS}s" --timeout 5s "${header[@]}" "http://127.0.0.1:$port/bench" | awk '/requests in/ {print $1}')"
            callgrind_control -i off "$pid" >/dev/null 2>&1
            callgrind_control -d "$pid" >/dev/null 2>&1
            stop_server "$pid"
            ir="$(cat "$WORK"/cg-"$name-$mode".* | awk '/^totals:/ { s += $2 } END { print s + 0 }')"
            IR[$name-$mode]=$((ir / total))
            echo "callgrind $name-$mode requests=$total instr/req=${IR[$name-$mode]} (user space)" >&2
        done
    done
fi

instr() {  # NAME-MODE -> instructions per request (perf median, else callgrind)
    if [ "$PERF_OK" = 1 ]; then
        # shellcheck disable=SC2086
        printf '%s\n' ${PERF[$1]} | median
    else
        echo "${IR[$1]:-na}"
    fi
}
instr_source="callgrind, user space only"
[ "$PERF_OK" = 1 ] && instr_source="perf, user and kernel"
two() { case "$1" in na) echo na ;; *) printf '%.2f' "$1" ;; esac; }

for name in ours nginx bare ourshead; do
    for mode in plain gzip; do
        # shellcheck disable=SC2086
        echo "$name $mode: req/s=$(printf '%s\n' ${RPS[$name-$mode]} | median) p99_ms=$(printf '%s\n' ${P99[$name-$mode]} | median) cpu_us/req=$(printf '%s\n' ${CPU[$name-$mode]} | median) instr/req=$(instr "$name-$mode")"
    done
done
plain_rps_ratio="$(awk '$1=="plain" {print $2}' "$WORK/ratios" | median)"
gzip_rps_ratio="$(awk '$1=="gzip" {print $2}' "$WORK/ratios" | median)"
echo "cpu per request (user + system), ours/nginx: plain=$(two "$(awk '$1=="plain" {print $3}' "$WORK/ratios" | median)") gzip=$(two "$(awk '$1=="gzip" {print $3}' "$WORK/ratios" | median)"); ours/bare evhttp: plain=$(two "$(awk '$1=="plain" {print $4}' "$WORK/ratios" | median)") gzip=$(two "$(awk '$1=="gzip" {print $4}' "$WORK/ratios" | median)")"
echo "instructions per request ($instr_source), ours/nginx: plain=$(two "$(ratio "$(instr ours-plain)" "$(instr nginx-plain)")") gzip=$(two "$(ratio "$(instr ours-gzip)" "$(instr nginx-gzip)")"); ours/bare evhttp: plain=$(two "$(ratio "$(instr ours-plain)" "$(instr bare-plain)")") gzip=$(two "$(ratio "$(instr ours-gzip)" "$(instr bare-gzip)")")"
echo "response_head single_entry/plain: rps plain=$(two "$(awk '$1=="plain" {print $5}' "$WORK/ratios" | median)") gzip=$(two "$(awk '$1=="gzip" {print $5}' "$WORK/ratios" | median)"); cpu/req plain=$(two "$(awk '$1=="plain" {print $6}' "$WORK/ratios" | median)") gzip=$(two "$(awk '$1=="gzip" {print $6}' "$WORK/ratios" | median)"); instr/req plain=$(two "$(ratio "$(instr ours-plain)" "$(instr ourshead-plain)")") gzip=$(two "$(ratio "$(instr ours-gzip)" "$(instr ourshead-gzip)")")"
# The last line's instruction ratios are hardware counts (perf, kernel included), as the targets are; without
# counters they are na, and callgrind's user-space counts above are the stand-in.
plain_instr=na
gzip_instr=na
if [ "$PERF_OK" = 1 ]; then
    plain_instr="$(two "$(ratio "$(instr ours-plain)" "$(instr nginx-plain)")")"
    gzip_instr="$(two "$(ratio "$(instr ours-gzip)" "$(instr nginx-gzip)")")"
fi
echo "http plain_ratio=$(two "$plain_rps_ratio") gzip_ratio=$(two "$gzip_rps_ratio") plain_instr_ratio=$plain_instr gzip_instr_ratio=$gzip_instr"
