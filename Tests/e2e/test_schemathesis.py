"""Property-based contract testing: schemathesis against a running server, driven by openapi.yaml.

Every operation but the event stream (which never ends) gets a bounded number of generated requests
(examples, coverage, fuzzing and stateful phases, a fixed seed); the responses must not be 5xx and must
conform to the spec: a documented status, a documented content type, documented headers and the response
schema. The stateful phase follows the spec's links (PUT/PATCH -> GET, diff, sections by the written id).

The server runs with maxWaitSeconds=1 so a generated long poll (`wait`) ends quickly.

The coverage phase's "unexpected method" probes are limited to methods the HTTP layer knows and answers
405 for; TRACE and QUERY are answered 501 (not implemented) by design, which schemathesis would count as
server errors. They are covered by the explicit tests at the bottom.
"""

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "Sources" / "ListDeltaService" / "Web" / "openapi.yaml"
CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
    ]
)
CONFIG = """\
[phases.coverage]
unexpected-methods = ["get", "put", "post", "delete", "options", "patch"]
"""
WALL_SECONDS = 240


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
    s = Server(d, env={"LISTDELTA_MAX_WAIT_SECONDS": "1"}).start()
    yield s
    s.stop()


def test_schemathesis_conformance(st_server, tmp_path):
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    cmd = schemathesis_command() + [
        "--config-file", str(config),
        "run", str(SPEC),
        "--url", st_server.url(""),
        "--checks", CHECKS,
        "--max-examples", "25",
        "--seed", "20261121",
        "--request-timeout", "5",
        "--exclude-path", "/v1/lists/{id}/events",
        "--workers", "1",
        "--max-failures", "50",
        "--no-color",
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=WALL_SECONDS, cwd=tmp_path)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"schemathesis ran over {WALL_SECONDS} s: {(e.stdout or b'')[-4000:]!r}")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-20000:]
    assert st_server.alive(), st_server.output()
    # It tested every operation but the stream.
    spec = yaml.safe_load(SPEC.read_text())
    operations = sum(1 for path, item in spec["paths"].items() for m in item if m in ("get", "put", "patch", "delete", "post"))
    assert f"Tested: {operations - 1}" in output, output[-4000:]


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


def test_trace_is_not_implemented_problem(st_server):
    r = st_server.request("TRACE", "/healthz")
    assert r.status_code == 501
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["status"] == 501


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
    (b"GET /healthz HTTP/1.1\r\nX-Big: " + b"a" * 17000 + b"\r\n\r\n", 400),
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
    # libevent does not read a TRACE body, so the server answers 501 and closes the connection: the body (and
    # anything pipelined after it) is never answered as a request.
    assert statuses == [b"501"], out[:2000]
    assert b"Connection: close" in out
