"""OpenTelemetry tracing (issue 42): the servers here export OTLP/HTTP to a receiver of the test's own
(otlp_receiver.py), configured by the standard `OTEL_*` variables, and the tests read the spans it decoded.

- a PUT carrying a W3C `traceparent` exports its server span, the engine's write span and the store's append span
  in that trace, correctly parented, with their attributes, the configured service name, and the configured
  export headers on every export request;
- a long poll woken by a PUT exports a delivery span in the poll's trace, linked to the PUT's write span: on one
  instance ("local"), and, on PostgreSQL, with the poll on one instance and the PUT on another ("cross-instance");
- a source's feed fetch sends `traceparent` to the feed server (test_sources.FeedServer), naming an exported
  client span;
- `always_off` exports nothing; `traceidratio` 0.5 exports about half of the traces;
- with the receiver down, requests answer about as fast as on a server without export, and the dropped spans or
  failed exports are counted in /metrics;
- no token (header or `access_token`) and no document content reaches an exported attribute;
- a CORS preflight allows `traceparent` and `tracestate`, so a page can start a trace.
"""

import json
import re
import secrets
import statistics
import time
import uuid

import pytest

import pg_support
from browser_support import wait_for
from conftest import STORE, held_diff_poll, metric, sections_doc, uid
from otlp_receiver import CLIENT, INTERNAL, SERVER, OTLPReceiver
from test_sources import ALLOW_LOOPBACK, FeedServer, attach, entry, rss

SERVICE_NAME = "listdelta-e2e"
DB_SYSTEM = {"sqlite": "sqlite", "postgres": "postgresql"}[STORE]
QUIET_SECONDS = 1.5  # how long a test waits for spans that must not come (the export delay here is 0.1 s)


class TraceParent:
    """A fresh, sampled W3C trace context: `trace_id` (32 hex), `parent_id` (16 hex), and its `header`."""

    def __init__(self):
        self.trace_id = secrets.token_hex(16)
        self.parent_id = secrets.token_hex(8)
        self.header = f"00-{self.trace_id}-{self.parent_id}-01"

    def headers(self, **more):
        """Request headers carrying this context (plus `more`)."""
        return {"traceparent": self.header, **more}


def otel_env(receiver, **env):
    """The environment of a server exporting to `receiver` quickly, as SERVICE_NAME, sampling parent-based; `env`
    adds to it or overrides it."""
    return {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_SERVICE_NAME": SERVICE_NAME,
        "OTEL_TRACES_SAMPLER": "parentbased_always_on",
        **env,
    }


def traced(make_server, receiver, args=(), **env):
    """A server (conftest's make_server) exporting to `receiver`; see otel_env."""
    return make_server(args, env=otel_env(receiver, **env))


def span(receiver, name, trace_id, kind=None):
    """The first exported span of that name in that trace (waiting for it); checks its kind when given."""
    found = receiver.wait_for(lambda s: s["name"] == name and s["trace_id"] == trace_id)[0]
    if kind is not None:
        assert found["kind"] == kind, found
    return found


def ancestors(child, spans):
    """The span ids above `child` in its trace, nearest first, as far as `spans` have them."""
    by_id = {s["span_id"]: s for s in spans if s["trace_id"] == child["trace_id"]}
    chain = []
    parent = by_id.get(child["parent_span_id"])
    while parent is not None and parent["span_id"] not in chain:
        chain.append(parent["span_id"])
        parent = by_id.get(parent["parent_span_id"])
    return chain


def doc(n):
    """A small document, different for each `n`."""
    return sections_doc(("s", f"T{n}", [{"id": "first", "cell": "C", "model": {"n": n}}]))


@pytest.fixture
def receiver():
    with OTLPReceiver() as r:
        yield r


@pytest.fixture
def feed():
    f = FeedServer()
    yield f
    f.close()


# ---------------------------------------------------------------------------
# A write's trace


def test_a_put_with_a_traceparent_exports_server_write_and_store_spans_in_its_trace(make_server, receiver):
    key = uuid.uuid4().hex
    s = traced(make_server, receiver, OTEL_EXPORTER_OTLP_HEADERS=f"x-e2e-key={key}")
    lid, context = uid(), TraceParent()
    r = s.put(lid, doc(1), headers=context.headers())
    assert r.status_code == 201, r.text
    revision = r.json()["revision"]

    server = span(receiver, "PUT /v1/lists/{id}", context.trace_id, SERVER)
    assert server["parent_span_id"] == context.parent_id, server
    attrs = server["attributes"]
    assert attrs.get("http.request.method") == "PUT", attrs
    assert attrs.get("http.route") == "/v1/lists/{id}", attrs
    assert attrs.get("http.response.status_code") == 201, attrs  # an int, not "201"
    assert attrs.get("url.path") == f"/v1/lists/{lid}", attrs
    assert server["resource"].get("service.name") == SERVICE_NAME, server["resource"]

    # The server span says which pool ran the request and how long it waited in its queue.
    assert attrs.get("listdelta.pool") == "write", attrs
    assert isinstance(attrs.get("listdelta.queue.wait_ms"), float), attrs
    write = span(receiver, "listdelta.write", context.trace_id, INTERNAL)
    assert write["parent_span_id"] == server["span_id"], (write, server)
    assert write["attributes"].get("listdelta.list.id") == lid, write
    assert write["attributes"].get("listdelta.revision") == revision, write

    append = span(receiver, "listdelta.store.append", context.trace_id, CLIENT)
    assert write["span_id"] in ancestors(append, receiver.spans()), (append, write)
    assert append["attributes"].get("db.system.name") == DB_SYSTEM, append

    # OTEL_EXPORTER_OTLP_HEADERS reach the receiver on every export.
    exports = receiver.exports()
    assert exports and all(e["headers"].get("x-e2e-key") == key for e in exports), exports


# ---------------------------------------------------------------------------
# A woken poll's delivery span


def woken_poll_delivery(receiver, poller, writer):
    """Parks a poll on `poller` (with a traceparent of its own), wakes it with a PUT to `writer` (with another);
    checks the delivery span `poller` exported: in the poll's trace, a child of the poll's server span, linked to
    the PUT's write span, naming the list and revision. Returns (delivery span, write span)."""
    lid = uid()
    rev = writer.put(lid, doc(1)).json()["revision"]
    poll_context, put_context = TraceParent(), TraceParent()
    thread, result = held_diff_poll(poller, lid, rev, headers=poll_context.headers())
    wait_for(lambda: (metric(poller, "listdelta_parked_polls") or 0) >= 1, message="the poll parked")
    assert writer.put(lid, doc(2), headers=put_context.headers()).status_code == 200
    thread.join(10)
    assert result.get("status") == 200 and result["body"]["to"] == rev + 1, result

    write = span(receiver, "listdelta.write", put_context.trace_id, INTERNAL)
    poll = span(receiver, "GET /v1/lists/{id}/diff", poll_context.trace_id, SERVER)
    assert poll["parent_span_id"] == poll_context.parent_id, poll
    delivery = span(receiver, "listdelta.deliver", poll_context.trace_id)
    # Parked from the poll's work on the read pool, or from its handler: under the poll's server span either way.
    assert poll["span_id"] in ancestors(delivery, receiver.spans()), (delivery, poll)
    links = [(link["trace_id"], link["span_id"]) for link in delivery["links"]]
    assert (put_context.trace_id, write["span_id"]) in links, (delivery, write)
    assert delivery["attributes"].get("listdelta.list.id") == lid, delivery
    assert delivery["attributes"].get("listdelta.revision") == rev + 1, delivery
    return delivery, write


def test_a_long_poll_woken_by_a_put_exports_a_delivery_span_linked_to_the_write(make_server, receiver):
    s = traced(make_server, receiver)
    delivery, _ = woken_poll_delivery(receiver, s, s)
    assert delivery["attributes"].get("listdelta.delivery") == "local", delivery
    # The delivery lag histogram counted it, as local.
    assert (metric(s, "listdelta_delivery_lag_seconds_count", origin="local") or 0) >= 1


@pytest.mark.skipif(STORE != "postgres", reason="two instances share a store on PostgreSQL only (LISTDELTA_E2E_STORE=postgres)")
def test_a_poll_on_another_instance_links_its_delivery_to_the_write_across_instances(make_server, receiver):
    url = pg_support.new_database_url()
    a, b = (traced(make_server, receiver, ["--database-url", url], OTEL_RESOURCE_ATTRIBUTES=f"listdelta.e2e.instance={name}")
            for name in ("a", "b"))
    delivery, write = woken_poll_delivery(receiver, b, a)
    assert delivery["attributes"].get("listdelta.delivery") == "cross-instance", delivery
    assert (metric(b, "listdelta_delivery_lag_seconds_count", origin="cross-instance") or 0) >= 1
    assert delivery["resource"].get("listdelta.e2e.instance") == "b", delivery["resource"]
    assert write["resource"].get("listdelta.e2e.instance") == "a", write["resource"]


# ---------------------------------------------------------------------------
# Context out: a source's fetch


def test_a_source_fetch_sends_the_traceparent_of_its_exported_client_span(make_server, receiver, feed):
    s = traced(make_server, receiver, **ALLOW_LOOPBACK)
    feed.set("/traced.xml", rss("Traced", [entry("a"), entry("b")]))
    attach(s, uid("src"), feed.url("/traced.xml"))  # fetches at once
    seen = feed.seen("/traced.xml")
    assert seen, "the feed server was not asked"
    header = seen[0]["headers"].get("traceparent")
    m = re.fullmatch(r"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})", header or "")
    assert m, seen[0]["headers"]
    trace_id, parent_id, flags = m.groups()
    assert int(flags, 16) & 1, f"not sampled: {header}"
    fetch = receiver.wait_for(lambda x: x["trace_id"] == trace_id and x["span_id"] == parent_id)[0]
    assert (fetch["name"], fetch["kind"]) == ("GET", CLIENT), fetch
    assert fetch["attributes"].get("http.request.method") == "GET", fetch
    assert fetch["attributes"].get("server.address") == "127.0.0.1", fetch


# ---------------------------------------------------------------------------
# Sampling


def test_with_sampling_always_off_nothing_is_exported(make_server, receiver):
    s = traced(make_server, receiver, OTEL_TRACES_SAMPLER="always_off")
    lid = uid()
    # Sampled parents: always_off is not parent-based, so it drops their spans too.
    rev = s.put(lid, doc(1), headers=TraceParent().headers()).json()["revision"]
    assert s.get(lid, headers=TraceParent().headers()).status_code == 200
    thread, result = held_diff_poll(s, lid, rev, headers=TraceParent().headers())
    wait_for(lambda: (metric(s, "listdelta_parked_polls") or 0) >= 1, message="the poll parked")
    assert s.put(lid, doc(2), headers=TraceParent().headers()).status_code == 200
    thread.join(10)
    assert result.get("status") == 200, result
    time.sleep(QUIET_SECONDS)
    assert receiver.spans() == [], receiver.summary()


def test_traceidratio_exports_about_its_share_of_the_traces(make_server, receiver):
    s = traced(make_server, receiver, OTEL_TRACES_SAMPLER="traceidratio", OTEL_TRACES_SAMPLER_ARG="0.5")
    lid = uid()
    assert s.put(lid, doc(1)).status_code == 201
    requests_sent = 60
    for _ in range(requests_sent):
        assert s.get(lid).status_code == 200
    time.sleep(QUIET_SECONDS)
    traces = {x["trace_id"] for x in receiver.spans()
              if x["name"] == "GET /v1/lists/{id}" and x["attributes"].get("url.path") == f"/v1/lists/{lid}"}
    # Binomial(60, 0.5): 30 ± 3.9; outside 12..48 is a chance below one in 10^5.
    assert 12 <= len(traces) <= 48, (len(traces), receiver.summary())


# ---------------------------------------------------------------------------
# An exporter that is down


def test_with_the_receiver_down_requests_are_as_fast_and_lost_spans_are_counted(make_server, receiver):
    receiver.stop()  # its port now refuses connections
    down = traced(make_server, receiver)
    plain = make_server()
    lid = uid()
    for s in (down, plain):
        assert s.put(lid, doc(1)).status_code == 201
        for _ in range(10):  # warm both up
            s.get(lid)
    latencies = {down: [], plain: []}
    for _ in range(50):  # interleaved, so that anything else slowing the machine slows both
        for s in (down, plain):
            started = time.perf_counter()
            r = s.get(lid)
            latencies[s].append(time.perf_counter() - started)
            assert r.status_code == 200, r.text
    ratio = statistics.median(latencies[down]) / statistics.median(latencies[plain])
    assert ratio <= 3, f"median GET {ratio:.2f}x slower with the exporter down"

    counters = ("listdelta_trace_spans_dropped_total", "listdelta_trace_export_failures_total")

    def counted():
        for _ in range(50):  # more spans, more failed exports
            assert down.get(lid).status_code == 200
        values = {name: metric(down, name) or 0 for name in counters}
        return values if any(v > 0 for v in values.values()) else None

    wait_for(counted, timeout=15, interval=0.2, message=f"one of {counters} above 0")
    assert receiver.spans() == []


# ---------------------------------------------------------------------------
# What never reaches an attribute


def test_no_token_and_no_document_reach_an_exported_attribute(make_server, receiver):
    token = f"static-tracing-token-{uuid.uuid4().hex}"
    marker = f"document-marker-{uuid.uuid4().hex}"
    s = traced(make_server, receiver, LISTDELTA_WRITE_TOKENS=token, LISTDELTA_READ_ACCESS="token")
    bearer = {"Authorization": f"Bearer {token}"}
    lid = uid()
    document = sections_doc(("s", marker, [{"id": "x", "cell": "C", "model": {"note": marker}}]))
    put, by_header, by_query = TraceParent(), TraceParent(), [TraceParent(), TraceParent()]
    assert s.put(lid, document, headers=put.headers(**bearer)).status_code == 201
    assert s.get(lid, headers=by_header.headers(**bearer)).status_code == 200
    assert s.get(lid, params={"access_token": token}, headers=by_query[0].headers()).status_code == 200
    assert s.get(f"/v1/lists/{lid}/diff", params={"from": 0, "access_token": token},
                 headers=by_query[1].headers()).status_code == 200

    span(receiver, "listdelta.write", put.trace_id)
    for context in (put, by_header, *by_query):
        receiver.wait_for(lambda x, t=context.trace_id: x["trace_id"] == t and x["kind"] == SERVER)
    time.sleep(QUIET_SECONDS)  # the rest of each trace
    spans = receiver.spans()
    exported = json.dumps([{k: x[k] for k in ("name", "attributes", "links", "resource")} for x in spans], default=repr)
    assert token not in exported, "a token reached an exported span"
    assert marker not in exported, "the document reached an exported span"
    for context in by_query:
        server = next(x for x in spans if x["trace_id"] == context.trace_id and x["kind"] == SERVER)
        query = server["attributes"].get("url.query")
        assert query is None or token not in query, server


# ---------------------------------------------------------------------------
# A page may start the trace


@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_a_cors_preflight_allows_traceparent_and_tracestate(server, method):
    origin = "http://example.com"
    r = server.request("OPTIONS", f"/v1/lists/{uid()}", headers={
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "traceparent, tracestate",
    })
    assert r.status_code in (200, 204), (r.status_code, r.text)
    assert r.headers.get("Access-Control-Allow-Origin") in ("*", origin), r.headers
    allowed = {h.strip().lower() for h in r.headers.get("Access-Control-Allow-Headers", "").split(",")}
    assert {"traceparent", "tracestate"} <= allowed, r.headers.get("Access-Control-Allow-Headers")


# ---------------------------------------------------------------------------
# Flags and logs


def test_the_flags_win_over_the_otel_variables(make_server, receiver):
    """--otlp-endpoint and --traces-sampler given to `listdelta serve` win over OTEL_TRACES_SAMPLER=always_off and
    an OTEL_EXPORTER_OTLP_ENDPOINT that nothing listens on."""
    env = otel_env(receiver, OTEL_TRACES_SAMPLER="always_off", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    s = make_server(("--otlp-endpoint", receiver.url, "--traces-sampler", "always_on"), env=env)
    context = TraceParent()
    assert s.get(f"/v1/lists/{uid()}", headers=context.headers()).status_code == 404
    server = span(receiver, "GET /v1/lists/{id}", context.trace_id, SERVER)
    assert server["attributes"].get("http.response.status_code") == 404, server


def test_json_log_lines_carry_the_trace_and_span_of_their_request(make_server, receiver):
    s = make_server(env=otel_env(receiver, LISTDELTA_LOG_FORMAT="json", LISTDELTA_LOG_LEVEL="info"))
    context, lid = TraceParent(), uid()
    assert s.put(lid, doc(1), headers=context.headers()).status_code == 201
    server = span(receiver, "PUT /v1/lists/{id}", context.trace_id, SERVER)
    lines = [json.loads(line) for line in s.output().splitlines() if line.startswith("{")]
    assert lines, s.output()
    assert all({"time", "level", "label", "message"} <= set(line) for line in lines), lines
    logged = [line for line in lines if line["message"].startswith(f"PUT /v1/lists/{lid} 201")]
    assert len(logged) == 1, lines
    assert logged[0]["trace_id"] == context.trace_id, logged
    assert logged[0]["span_id"] == server["span_id"], (logged, server)


def test_a_huge_or_malformed_trace_context_starts_a_new_trace_and_is_never_recorded(make_server, receiver):
    """traceparent and tracestate are what a client sends: a malformed or oversized pair (within the server's header
    limit) is answered as fast as any request, starts a trace of its own, and none of it reaches an attribute."""
    s = traced(make_server, receiver)
    junk = "z" * 6000
    hostile = {"traceparent": "00-" + junk, "tracestate": ",".join(f"k{i}={junk[:200]}" for i in range(30))}
    lid = uid()
    started = time.monotonic()
    r = s.put(lid, doc(1), headers=hostile)
    assert r.status_code == 201, r.text
    assert time.monotonic() - started < 5
    server = receiver.wait_for(lambda x: x["name"] == "PUT /v1/lists/{id}" and x["attributes"].get("url.path") == f"/v1/lists/{lid}")[0]
    assert server["parent_span_id"] in ("", None), server  # a new trace, not the junk's
    assert junk[:50] not in json.dumps([x for x in receiver.spans()]), "the junk context was recorded"
