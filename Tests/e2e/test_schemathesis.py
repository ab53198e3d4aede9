"""Property-based contract testing: schemathesis against a running server, driven by openapi.yaml.

Every operation, the event stream included, gets a bounded number of generated requests (examples, coverage,
fuzzing and stateful phases, a fixed seed) and every check schemathesis has (`--checks all`): no 5xx; a
documented status, content type and headers; the response schema; schema-valid requests accepted and
schema-invalid ones rejected; unexpected methods answered 405 with a correct `Allow`; deleted lists gone. The
stateful phase follows the spec's links (PUT/PATCH -> GET, diff, sections, PATCH, and the event stream from
the revision before the write, so that the stream starts with a diff event).

The event stream: in OpenAPI 3.1 schemathesis reads a `text/event-stream` response's `schema` as the schema of
one event (`{"event", "id", "data"}`) and checks `data` against its `contentSchema` (`contentMediaType:
application/json`), so every event a generated request gets is checked as a batch diff (or a reset). A stream
does not end by itself: it is read for at most `request-timeout` seconds or up to `max-stream-events` events
(both set for the operation in CONFIG). The server runs with maxWaitSeconds=1, so a generated long poll (`wait`)
ends quickly, and a heartbeat every half second, so the streams carry keep-alive comments too.

Statuses allowed besides schemathesis's defaults, because a schema cannot tell them apart from the data:
- schema-valid requests may get 410 (a revision that is not, or no longer, kept) and 412 (a precondition that
  does not hold); PUT and PATCH may get 422 (a document that breaks a rule JSON Schema cannot state: ids unique
  across sections, the body's id equal to the path's, a `type` missing from `cells`, nesting depth);
- schema-valid writes (PUT, PATCH, DELETE, revert) may get 422 when their `Idempotency-Key` was first sent with
  another request to the list: generated keys repeat across generated bodies, and a schema cannot say "once";
- schema-valid source settings may get 422: the URL's scheme, its host (after resolution) or a `file:` path may be
  refused, which a schema cannot state;
- schema-valid view definitions may get 422: `of` may name the view itself or a list that is a view, which a schema
  cannot state;
- schema-valid many-lists requests may get 400: `lists` (and `Last-Event-ID`) must name each list once, not
  `.` or `..`, and at most `maxListsPerRequest` entries, which a pattern cannot say (the bound of a revision,
  2^31-1, it does say);
- schema-valid reads with a live query (`q`, `fromQuery`) may get 400: each is at most 4,096 bytes once decoded
  and the view bounds (`maxValueBytes`, `maxInValues`) apply, which the schema of a JSON-content parameter cannot
  state;
- schema-invalid writes may get 412: a malformed `If-Match` names no entity tag, so the precondition fails
  before the body is read (RFC 9110 evaluates preconditions before the content).

The unexpected-methods probes leave out QUERY, which the HTTP layer does not know (501, like any unknown
method); TRACE and CONNECT are answered 405 with `Allow`. Both are covered by the explicit tests at the bottom.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import uid

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "Sources" / "ListDeltaService" / "Web" / "openapi.yaml"
SEED = "20261130"
MAX_EXAMPLES = "60"
WALL_SECONDS = 240
DEFAULT_POSITIVE = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]
DEFAULT_NEGATIVE = ["400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429", "5xx"]


def _toml_list(statuses):
    return "[" + ", ".join(f'"{s}"' for s in statuses) + "]"


CONFIG = f"""\
request-timeout = 5

[checks.positive_data_acceptance]
expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["410", "412"])}

[phases.coverage]
unexpected-methods = ["get", "put", "post", "delete", "options", "patch", "trace"]

[[operations]]
include-operation-id = ["putList", "patchList"]
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["410", "412", "422"])}
checks.negative_data_rejection.expected-statuses = {_toml_list(DEFAULT_NEGATIVE + ["412"])}

[[operations]]
include-operation-id = "putSource"
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["422"])}

[[operations]]
include-operation-id = "putView"
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["422"])}

[[operations]]
include-operation-id = ["deleteList", "revertList"]
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["410", "412", "422"])}
checks.negative_data_rejection.expected-statuses = {_toml_list(DEFAULT_NEGATIVE + ["412"])}

[[operations]]
include-operation-id = ["getList", "getSections", "getSectionItems", "getDiff"]
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["400", "410", "412"])}

[[operations]]
include-operation-id = "getEvents"
request-timeout = 1
max-stream-events = 1
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["400", "410", "412"])}

[[operations]]
include-operation-id = "getManyEvents"
request-timeout = 1
max-stream-events = 1
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["400"])}

[[operations]]
include-operation-id = "getManyDiffs"
checks.positive_data_acceptance.expected-statuses = {_toml_list(DEFAULT_POSITIVE + ["400"])}
"""

# A generated source URL that passes the host policy names a public host this machine may not reach: its fetch
# (synchronous in PUT .../source) must fail well within request-timeout (5 s).
SOURCE_ENV = {"LISTDELTA_SOURCE_TIMEOUT_SECONDS": "2"}


def schemathesis_command():
    """The CLI of the schemathesis installed in this interpreter (CI: pip install schemathesis==4.32.5)."""
    try:
        import schemathesis  # noqa: F401
    except ImportError:
        pytest.fail("schemathesis is not installed: pip install schemathesis==4.32.5")
    return [sys.executable, "-m", "schemathesis.cli"]


@pytest.fixture(scope="module")
def st_server(tmp_path_factory):
    from conftest import Server

    d = tmp_path_factory.mktemp("st") / "db"
    d.mkdir()
    s = Server(d, env={"LISTDELTA_MAX_WAIT_SECONDS": "1", "LISTDELTA_HEARTBEAT_SECONDS": "0.5", **SOURCE_ENV}).start()
    yield s
    s.stop()


def test_schemathesis_conformance(st_server, tmp_path):
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    har = tmp_path / "run.har"
    cmd = schemathesis_command() + [
        "--config-file", str(config),
        "run", str(SPEC),
        "--url", st_server.url(""),
        "--checks", "all",
        "--max-examples", MAX_EXAMPLES,
        "--seed", SEED,
        "--workers", "1",
        "--max-failures", "50",
        "--report", "har", "--report-har-path", str(har),
        "--no-color",
    ]
    env = dict(os.environ)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=WALL_SECONDS, cwd=tmp_path, env=env)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"schemathesis ran over {WALL_SECONDS} s: {(e.stdout or b'')[-4000:]!r}")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-20000:]
    assert st_server.alive(), st_server.output()
    # It tested every operation, the stream included.
    spec = yaml.safe_load(SPEC.read_text())
    operations = sum(1 for path, item in spec["paths"].items() for m in item if m in ("get", "put", "patch", "delete", "post"))
    assert f"Tested: {operations}" in output, output[-4000:]
    # The stream's check was a real one: some generated requests got diff events (validated as batch diffs).
    entries = json.loads(har.read_text())["log"]["entries"]
    streamed = [
        e for e in entries
        if e["request"]["method"] == "GET" and re.search(r"/v1/lists/[^/]+/events", e["request"]["url"])
        and e["response"]["status"] == 200 and "event: diff" in (e["response"]["content"].get("text") or "")
    ]
    assert streamed, "no generated request to the event stream got a diff event"


def test_schemathesis_conformance_with_private_reads_and_a_scoped_token(tmp_path_factory, tmp_path):
    """The same checks against a server with `readAccess: token`, every request carrying a read-scoped JWT for the
    lists matching `a*`: the reads it covers answer as in public mode, the others and every write 403 (a shorter
    run: the operations' own behaviour was checked above)."""
    import jwt

    from conftest import Server

    secret = "schemathesis-secret-0123456789-abcdefgh"
    data = tmp_path_factory.mktemp("st-token") / "db"
    data.mkdir()
    server = Server(data, env={
        "LISTDELTA_MAX_WAIT_SECONDS": "1", "LISTDELTA_HEARTBEAT_SECONDS": "0.5", "LISTDELTA_JWT_SECRET": secret,
        "LISTDELTA_READ_ACCESS": "token", **SOURCE_ENV,
    }).start()
    try:
        token = jwt.encode({"exp": int(time.time()) + 3600, "scope": "read", "lists": ["a*"]}, secret, algorithm="HS256")
        config = tmp_path / "schemathesis.toml"
        config.write_text(CONFIG)
        cmd = schemathesis_command() + [
            "--config-file", str(config), "run", str(SPEC), "--url", server.url(""), "--checks", "all",
            "--max-examples", "20", "--seed", SEED, "--workers", "1", "--max-failures", "20", "--no-color",
            "--header", f"Authorization: Bearer {token}",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=WALL_SECONDS, cwd=tmp_path, env=dict(os.environ))
        output = done.stdout + done.stderr
        assert done.returncode == 0, output[-20000:]
        assert server.alive(), server.output()
        assert token not in server.output()
    finally:
        server.stop()


# -- the event stream's data against the spec's schemas, without schemathesis


@pytest.fixture(scope="module")
def spec_validator():
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    spec = yaml.safe_load(SPEC.read_text())
    registry = Registry().with_resource("urn:listdelta:openapi", DRAFT202012.create_resource(spec))

    def validator(name):
        return Draft202012Validator({"$ref": f"urn:listdelta:openapi#/components/schemas/{name}"}, registry=registry)

    return validator


def _check_event(ev, spec_validator):
    """Validates an event (envelope and data) against the spec; returns its data."""
    envelope = {k: v for k, v in ev.items() if v is not None}
    spec_validator("ListEvent").validate(envelope)  # jsonschema treats contentSchema as an annotation only
    data = json.loads(ev["data"])
    spec_validator("BatchDiff" if ev["event"] == "diff" else "ResetEventData").validate(data)
    if ev["event"] == "diff":
        assert ev["id"] == str(data["to"]), ev
    return data


def test_event_stream_data_matches_the_spec(st_server, spec_validator):
    lid = uid("sse")
    doc = {"kind": "sections", "cells": {"T": "TextCell"}, "sections": [
        {"id": "a", "title": "A", "indexTitle": "A", "items": [{"id": "1", "type": "T", "model": {"n": 1}}, {"id": "2", "cell": None}]},
        {"id": "b", "title": None, "indexTitle": None, "items": [{"id": "3", "model": [1, {"x": None}]}]},
    ]}
    assert st_server.put(lid, doc).status_code == 201
    stream = st_server.sse(f"/v1/lists/{lid}/events?from=0")
    try:
        assert stream.status == 200
        assert stream.headers["content-type"].split(";")[0] == "text/event-stream"
        diffs = [_check_event(stream.next_event(5), spec_validator)]
        r = st_server.patch(lid, [
            {"op": "move", "from": "/sections/1/items/0", "path": "/sections/0/items/0"},
            {"op": "replace", "path": "/sections/0/title", "value": "Ah"},
        ])
        assert r.status_code == 200, r.text
        diffs.append(_check_event(stream.next_event(5), spec_validator))
        doc["sections"].reverse()
        assert st_server.put(lid, doc).status_code == 200
        diffs.append(_check_event(stream.next_event(5), spec_validator))
        assert [(d["from"], d["to"]) for d in diffs] == [(0, 1), (1, 2), (2, 3)]
        assert diffs[1]["items"]["moved"] and diffs[2]["sections"]["moved"], diffs
        # Resuming with Last-Event-ID catches up from that revision; a `from` that is no revision resets.
        resumed = st_server.sse(f"/v1/lists/{lid}/events?from=0", headers={"Last-Event-ID": "1"})
        try:
            d = _check_event(resumed.next_event(5), spec_validator)
            assert (d["from"], d["to"]) == (1, 3)
        finally:
            resumed.close()
        gone = st_server.sse(f"/v1/lists/{lid}/events?from=99")
        try:
            ev = gone.next_event(5)
            assert ev["event"] == "reset" and _check_event(ev, spec_validator) == {"current": 3}
            assert gone.next_event(5) is None
        finally:
            gone.close()
        time.sleep(1)  # a heartbeat comment (every 0.5 s here) comes between events
        assert st_server.delete(lid).status_code == 204
        ev = stream.next_event(5)
        assert ev["event"] == "reset" and _check_event(ev, spec_validator) == {"current": 0}
        assert stream.next_event(5) is None
        assert ": keep-alive" in stream.comments
    finally:
        stream.close()


# -- what schemathesis found (fixed): `from` checked beside Last-Event-ID, pointers read by code point, If-Match


def test_events_checks_from_even_with_last_event_id(st_server):
    lid = uid("lei")
    assert st_server.put(lid, {"items": [{"id": "a"}]}).status_code == 201
    for bad in ("abc", "-1", "2147483648"):
        stream = st_server.sse(f"/v1/lists/{lid}/events?from={bad}", headers={"Last-Event-ID": "0"}, timeout=5)
        try:
            assert stream.status == 400, bad
        finally:
            stream.close()


def test_json_pointer_escapes_are_read_by_code_point(st_server):
    lid = uid("ptr")
    assert st_server.put(lid, {"items": [{"id": "a", "model": {}}]}).status_code == 201
    # "~0" then U+0301 is the key "~\u0301" (RFC 6901); "~" then U+0301 is not a pointer.
    r = st_server.patch(lid, [{"op": "add", "path": "/sections/0/items/0/model/~0\u0301", "value": 1}])
    assert r.status_code == 200, r.text
    assert st_server.doc(lid)["sections"][0]["items"][0]["model"] == {"~\u0301": 1}
    r = st_server.patch(lid, [{"op": "add", "path": "/sections/0/items/0/model/x~\u0301", "value": 1}])
    assert r.status_code == 400, r.text


def test_if_match_is_strong_and_any_listed_tag_will_do(st_server):
    lid = uid("ifm")
    assert st_server.put(lid, {"items": []}).status_code == 201
    # Any one of the listed tags matching is enough (RFC 9110 13.1.1) ...
    r = st_server.put(lid, {"items": [{"id": "a"}]}, headers={"If-Match": '"9", "1"'})
    assert r.status_code == 200, r.text
    # ... but a weak tag never matches for If-Match (strong comparison).
    r = st_server.put(lid, {"items": []}, headers={"If-Match": 'W/"2"'})
    assert r.status_code == 412, r.text
    assert r.headers["Content-Type"] == "application/problem+json"


def test_patch_of_a_missing_list_is_404_whatever_its_preconditions(st_server):
    for condition in ('"1"', "*"):
        r = st_server.patch(uid("nolist"), [], headers={"If-Match": condition})
        assert r.status_code == 404, (condition, r.text)


# -- the methods left out of the coverage phase


def _raw(port, data, wait=0.5):
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    try:
        s.sendall(data)
        time.sleep(wait)
        s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
    except socket.timeout:
        return out
    finally:
        s.close()


@pytest.mark.parametrize("method", ["TRACE", "CONNECT"])
@pytest.mark.parametrize("path, allow", [("/healthz", "GET, HEAD"), ("/v1/lists/x", "GET, HEAD, PUT, PATCH, DELETE")])
def test_trace_and_connect_are_not_allowed(st_server, method, path, allow):
    out = _raw(st_server.port, f"{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405 "), out[:300]
    fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in head.decode().split("\r\n")[1:])}
    assert fields["content-type"] == "application/problem+json"
    assert fields["allow"] == allow
    assert fields["connection"] == "close"
    assert json.loads(body)["status"] == 405


def test_trace_on_unknown_path_is_not_found(st_server):
    r = st_server.request("TRACE", "/no/such/path")
    assert r.status_code == 404
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["status"] == 404


def test_unknown_method_is_a_problem(st_server):
    r = st_server.request("QUERY", "/healthz")
    assert r.status_code == 501
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["status"] == 501


@pytest.mark.parametrize("data, status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /healthz HTTP/1.1\r\nno colon\r\n\r\n", 400),
    (b"GET /healthz HTTP/3.7\r\n\r\n", 400),
    (b"FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 501),
    (b"GET /healthz HTTP/1.1\r\nX-Big: " + b"a" * 45000 + b"\r\n\r\n", 400),  # over maxHeadersSize (16 KiB + 280 B per list a request may name)
])
def test_requests_libevent_refuses_are_problems(st_server, data, status):
    out = _raw(st_server.port, data)
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), out[:300]
    assert b"Content-Type: application/problem+json" in head
    assert b"<HTML>" not in out
    assert json.loads(body)["status"] == status


def test_trace_body_does_not_become_a_request(st_server):
    body = b"GET /v1/lists HTTP/1.1\r\nHost: x\r\n\r\n"
    data = b"TRACE /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    data += b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    out = _raw(st_server.port, data)
    statuses = [line.split()[1] for line in out.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]
    # The server answers TRACE 405 and closes the connection: the body (and anything pipelined after it) is
    # never answered as a request.
    assert statuses == [b"405"], out[:2000]
    assert b"Connection: close" in out
