#!/usr/bin/env bash
# What tracing costs a request (issue 42): requests per second of the same workload with tracing off (no OTLP
# endpoint), sampling 1% of traces (traceidratio 0.01) and 100% (always_on), exporting to a local OTLP/HTTP sink
# that answers at once; and, when BASELINE_BIN names a build from before tracing, that build too. Each mode runs
# ROUNDS times, interleaved (so a noisy neighbour hits every mode alike); the median is reported, and its ratio to
# the median with tracing off measured in the same run.
#
# Two workloads, wrk with 16 connections for DURATION seconds (default 6): `read` (Benchmarks/lua/read.lua:
# documents, old revisions and diffs of 100 lists of 5 revisions) and `write` (Benchmarks/lua/write.lua: small
# diffs to 100 lists). One line per workload and mode:
#   trace_cost workload=<read|write> mode=<baseline|off|ratio_1pct|always_on> rps=<median> ratio_to_off=<x> rounds=<r1,r2,...> spans_per_s=<n>
# spans_per_s is what the sink received over the runs of that mode (0 off).
# Env: LISTDELTA_BIN (default .build/release/listdelta, built if missing), BASELINE_BIN, DURATION, ROUNDS (default
# 3). Needs wrk (apt-get install wrk) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-6}"
ROUNDS="${ROUNDS:-3}"
BIN="${LISTDELTA_BIN:-.build/release/listdelta}"
[ -x "$BIN" ] || swift build -c release --product listdelta >&2
command -v wrk >/dev/null || { echo "error: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d /tmp/listdelta-trace-cost.XXXXXX)
pid=""
sink=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    [ -n "$sink" ] && kill "$sink" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The sink: reads each export, counts its spans (opentelemetry-proto, which scripts/setup.sh installs) and answers
# 200 with an empty ExportTraceServiceResponse.
sink_port=$(free_port)
python3 - "$sink_port" "$work/spans" <<'PY' &
import gzip, sys, http.server, threading
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
port, out = int(sys.argv[1]), sys.argv[2]
count = 0
lock = threading.Lock()
class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        global count
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while (size := int(self.rfile.readline().split(b";")[0], 16)) > 0:
                body += self.rfile.read(size)
                self.rfile.readline()
            self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        export = ExportTraceServiceRequest.FromString(body)
        received = sum(len(scope.spans) for resource in export.resource_spans for scope in resource.scope_spans)
        with lock:
            count += received
            open(out, "w").write(str(count))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Sink).serve_forever()
PY
sink=$!
echo 0 >"$work/spans"

export LD_LISTS=100 LD_BASE_REVS=5

# run MODE WORKLOAD: starts the server in MODE, seeds it, warms up, prints the requests per second of one wrk run.
run() {
    local mode=$1 workload=$2 bin=$BIN port args=()
    case "$mode" in
        baseline) bin=$BASELINE_BIN ;;
        off) ;;
        ratio_1pct) args=(--otlp-endpoint "http://127.0.0.1:$sink_port" --traces-sampler traceidratio --traces-sampler-arg 0.01) ;;
        always_on) args=(--otlp-endpoint "http://127.0.0.1:$sink_port" --traces-sampler always_on) ;;
    esac
    port=$(free_port)
    rm -rf "$work/data"
    LISTDELTA_LOG_LEVEL=warning "$bin" serve --host 127.0.0.1 --port "$port" --data "$work/data" "${args[@]}" >"$work/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    python3 - "$port" <<'PY'
import json, sys, http.client
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
for k in range(100):
    for r in range(1, 6):
        secs = [{"id": f"s{s}", "title": f"Section {s}", "items": [
            {"id": f"i{s}-{(j + r) % 10}", "cell": "C", "model": {"n": (j + r) % 10, "r": r if j == s else 0}} for j in range(10)]}
            for s in range(1, 4)]
        c.request("PUT", f"/v1/lists/load-{k}", json.dumps({"kind": "sections", "sections": secs}), {"Content-Type": "application/json"})
        resp = c.getresponse(); resp.read()
        assert resp.status in (200, 201), resp.status
PY
    wrk -t1 -c16 -d2s -s "Benchmarks/lua/$workload.lua" "http://127.0.0.1:$port" >/dev/null 2>&1
    local before
    before=$(cat "$work/spans")
    wrk -t1 -c16 -d"${DURATION}s" -s "Benchmarks/lua/$workload.lua" "http://127.0.0.1:$port" >"$work/wrk" 2>&1
    sleep 1.5  # the batch processor's next export
    echo "$(awk '/Requests\/sec/ { print $2 }' "$work/wrk") $(( $(cat "$work/spans") - before ))"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
}

modes=(off ratio_1pct always_on)
[ -n "${BASELINE_BIN:-}" ] && modes=(baseline "${modes[@]}")
for workload in read write; do
    declare -A results=() spans=()
    for _ in $(seq 1 "$ROUNDS"); do
        for mode in "${modes[@]}"; do
            read -r rps count < <(run "$mode" "$workload")
            results[$mode]="${results[$mode]:-}${results[$mode]:+,}$rps"
            spans[$mode]=$(( ${spans[$mode]:-0} + count ))
        done
    done
    python3 - "$workload" "$ROUNDS" "$DURATION" "${modes[@]}" <<PY
import sys, statistics
workload, rounds, duration, modes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
results = {$(for m in "${modes[@]}"; do printf '"%s": "%s", ' "$m" "${results[$m]}"; done)}
spans = {$(for m in "${modes[@]}"; do printf '"%s": %s, ' "$m" "${spans[$m]}"; done)}
off = statistics.median(float(x) for x in results["off"].split(","))
for mode in modes:
    median = statistics.median(float(x) for x in results[mode].split(","))
    print(f"trace_cost workload={workload} mode={mode} rps={median:.0f} ratio_to_off={median / off:.3f} rounds={results[mode]} "
          f"spans_per_s={spans[mode] / (rounds * duration):.0f}")
PY
    unset results spans
done
