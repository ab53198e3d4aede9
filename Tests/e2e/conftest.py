"""Fixtures for the ListDelta end-to-end suite: start the real binary, talk HTTP."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
import zlib
from pathlib import Path

import pytest
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("LISTDELTA_BIN", str(REPO / ".build" / "debug" / "listdelta"))
TIMEOUT = 10

# `LISTDELTA_E2E_STORE=postgres` runs every server of the suite on the PostgreSQL store: each data directory gets a
# fresh database of the throwaway cluster scripts/test.sh started (LISTDELTA_TEST_POSTGRES_DIR), kept across restarts.
STORE = os.environ.get("LISTDELTA_E2E_STORE", "sqlite")
_databases = {}


def database_for(data_dir):
    """The database URL of a data directory's server on the PostgreSQL store (created on first use)."""
    import pg_support

    if data_dir not in _databases:
        _databases[data_dir] = pg_support.new_database_url()
    return _databases[data_dir]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def uid(prefix="t"):
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _headers(headers, kw):
    out = dict(headers or {})
    for k, v in kw.items():
        out[k.replace("_", "-")] = v
    return out


# The servers' cursor interval (cursorSeconds) unless a test sets its own: a poll without `cursor` is held until the
# end of its interval at most, which at the default 20 s would cut a held poll short whenever a test ran near an
# interval's end. Tests that time a hold also send `hold_cursor()`.
E2E_CURSOR_SECONDS = 3600


def hold_cursor():
    """The next cursor interval's number: a poll sent with it is held for its whole `wait` (the interval ends at
    least E2E_CURSOR_SECONDS from now)."""
    return int(time.time() // E2E_CURSOR_SECONDS) + 1


class Server:
    def __init__(self, data_dir, args=(), env=None):
        self.data_dir = str(data_dir)
        self.args = [str(a) for a in args]
        self.env = dict(env or {})
        self.proc = None
        self.port = None
        self.log = None

    # -- lifecycle
    def start(self):
        if not os.path.exists(BIN):
            pytest.fail(f"listdelta binary not found at {BIN} (set LISTDELTA_BIN)")
        self.port = free_port()
        env = dict(os.environ)
        env["LISTDELTA_CURSOR_SECONDS"] = str(E2E_CURSOR_SECONDS)
        env.update(self.env)
        if self.log:
            self.log.close()
        self.log = open(os.path.join(self.data_dir, f"..{os.sep}server-{self.port}.log"), "w+b")
        cmd = [BIN, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data_dir, *self.args]
        if STORE == "postgres" and not any(a.startswith("--database-url") for a in self.args) and "LISTDELTA_DATABASE_URL" not in self.env:
            cmd += ["--database-url", database_for(self.data_dir)]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"server exited with {self.proc.returncode}: {self.output()}")
            try:
                r = requests.get(self.url("/healthz"), timeout=1)
                if r.status_code == 200 and r.json() == {"status": "ok"}:
                    return self
            except (requests.RequestException, ValueError):
                pass
            time.sleep(0.1)
        self.kill9()
        pytest.fail(f"server not ready in 30 s: {self.output()}")

    def output(self):
        if not self.log:
            return ""
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def stop(self, timeout=15):
        """SIGTERM; returns the exit code (None if it did not exit in time, then killed)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            rc = None
        self.proc = None
        return rc

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def restart(self):
        rc = self.stop()
        self.start()
        return rc

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    # -- HTTP
    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def request(self, method, path, **kw):
        kw.setdefault("timeout", TIMEOUT)
        return requests.request(method, self.url(path), **kw)

    def get(self, path, params=None, headers=None, **kw):
        if not path.startswith("/"):
            path = f"/v1/lists/{path}"
        timeout = kw.pop("timeout", TIMEOUT)
        stream = kw.pop("stream", False)
        return self.request("GET", path, params=params, headers=_headers(headers, kw), timeout=timeout, stream=stream)

    def put(self, list_id, body, headers=None, **kw):
        h = {"Content-Type": "application/json"}
        timeout = kw.pop("timeout", TIMEOUT)
        h.update(_headers(headers, kw))
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return self.request("PUT", f"/v1/lists/{list_id}", data=data, headers=h, timeout=timeout)

    def patch(self, list_id, ops, headers=None, **kw):
        h = {"Content-Type": "application/json-patch+json"}
        timeout = kw.pop("timeout", TIMEOUT)
        h.update(_headers(headers, kw))
        data = ops if isinstance(ops, (bytes, str)) else json.dumps(ops)
        return self.request("PATCH", f"/v1/lists/{list_id}", data=data, headers=h, timeout=timeout)

    def delete(self, list_id, headers=None, **kw):
        return self.request("DELETE", f"/v1/lists/{list_id}", headers=_headers(headers, kw))

    def doc(self, list_id, revision=None):
        r = self.get(list_id, params={"revision": revision} if revision is not None else None)
        assert r.status_code == 200, (r.status_code, r.text)
        return r.json()

    def diff(self, list_id, frm, to=None, fmt=None):
        params = {"from": frm}
        if to is not None:
            params["to"] = to
        if fmt:
            params["format"] = fmt
        r = self.get(f"/v1/lists/{list_id}/diff", params=params)
        assert r.status_code == 200, (r.status_code, r.text)
        return r.json()

    def all_list_ids(self):
        ids, after = [], None
        for _ in range(1000):
            params = {"limit": 1000}
            if after is not None:
                params["after"] = after
            r = self.get("/v1/lists", params=params)
            assert r.status_code == 200, r.text
            body = r.json()
            ids += [x["id"] for x in body["lists"]]
            after = body["next"]
            if after is None:
                return ids
        raise AssertionError("list paging does not end")

    def raw(self, method, target, headers=None, body=None, timeout=TIMEOUT):
        """A request whose target is sent exactly as given (no URL normalisation)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, target, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def sse(self, path, headers=None, timeout=10):
        return SSEClient(self.port, path, headers, timeout)


class SSEClient:
    """A minimal Server-Sent Events reader on a raw socket, every read bounded."""

    def __init__(self, port, path, headers=None, timeout=10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw = b""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.raw:
            data = self._recv(deadline)
            if not data:
                raise AssertionError("connection closed before headers")
            self.raw += data
        head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        head_lines = head.decode("latin-1").split("\r\n")
        self.status = int(head_lines[0].split()[1])
        self.headers = {}
        for ln in head_lines[1:]:
            k, _, v = ln.partition(":")
            self.headers[k.strip().lower()] = v.strip()
        self.chunked = "chunked" in self.headers.get("transfer-encoding", "").lower()
        self.length = int(self.headers["content-length"]) if "content-length" in self.headers else None
        self.gz = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.headers.get("content-encoding") == "gzip" else None
        self.chunk_left = 0
        self.need_crlf = False
        self.done = False
        self.text = ""
        self.comments = []

    def _recv(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("SSE read timed out")
        self.sock.settimeout(left)
        try:
            return self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("SSE read timed out") from None

    def _payload(self, deadline):
        """Next payload bytes; b'' at the end of the body."""
        while True:
            if self.done:
                return b""
            if not self.chunked:
                if self.raw:
                    out = self.raw
                    if self.length is not None:
                        out = out[: self.length]
                        self.length -= len(out)
                        if self.length == 0:
                            self.done = True
                    self.raw = b""
                    return out
                if self.length == 0:
                    self.done = True
                    return b""
            elif self.chunk_left > 0 and self.raw:
                out = self.raw[: self.chunk_left]
                self.raw = self.raw[len(out):]
                self.chunk_left -= len(out)
                self.need_crlf = self.chunk_left == 0
                return out
            elif self.chunk_left == 0 and self.need_crlf and len(self.raw) >= 2:
                self.raw = self.raw[2:]
                self.need_crlf = False
                continue
            elif self.chunk_left == 0 and not self.need_crlf and b"\r\n" in self.raw:
                size, self.raw = self.raw.split(b"\r\n", 1)
                n = int(size.split(b";")[0], 16)
                if n == 0:
                    self.done = True
                    return b""
                self.chunk_left = n
                continue
            data = self._recv(deadline)
            if not data:
                self.done = True
                return b""
            self.raw += data

    def read_body(self, timeout=10):
        deadline = time.monotonic() + timeout
        out = b""
        while True:
            p = self._payload(deadline)
            if not p:
                return out
            out += p

    def next_event(self, timeout=10):
        """The next event as {"event","data","id"}, or None when the stream ended."""
        deadline = time.monotonic() + timeout
        ev = {"event": None, "data": [], "id": None}
        while True:
            while "\n" in self.text:
                line, self.text = self.text.split("\n", 1)
                line = line.rstrip("\r")
                if line == "":
                    if ev["data"] or ev["event"]:
                        return {"event": ev["event"] or "message", "data": "\n".join(ev["data"]), "id": ev["id"]}
                    continue
                if line.startswith(":"):
                    self.comments.append(line)
                    continue
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "data":
                    ev["data"].append(value)
                elif field in ("event", "id"):
                    ev[field] = value
            p = self._payload(deadline)
            if not p:
                return None
            if self.gz:
                p = self.gz.decompress(p)
            self.text += p.decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def metric(server, name, **labels):
    """A sample's value from the server's /metrics (None when absent)."""
    for line in server.get("/metrics").text.splitlines():
        m = re.match(r"^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)", line)
        if m and m.group(1) == name and all(f'{k}="{v}"' in (m.group(2) or "") for k, v in labels.items()):
            return float(m.group(3))
    return None


def held_diff_poll(server, list_id, from_revision, wait=20, headers=None):
    """Starts `GET /v1/lists/{id}/diff?from=N&wait=S` (with `headers`, if given) on a thread; returns (thread,
    result), where result gets "at" (time.monotonic() of the answer), "status", "headers" and "body" once it answers."""
    result = {}

    def poll():
        r = server.get(f"/v1/lists/{list_id}/diff", params={"from": from_revision, "wait": wait, "cursor": hold_cursor()},
                       headers=headers, timeout=wait + 10)
        result["at"] = time.monotonic()
        result["status"], result["headers"], result["body"] = r.status_code, r.headers, r.json()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    return thread, result


def assert_problem(r, status):
    """An RFC 9457 problem with the given status; returns the body."""
    assert r.status_code == status, (r.status_code, r.text[:500])
    ctype = r.headers.get("Content-Type", "")
    assert ctype.split(";")[0].strip() == "application/problem+json", ctype
    body = r.json()
    for k in ("type", "title", "status", "detail"):
        assert k in body, (k, body)
    assert body["status"] == status, body
    return body


def etag_rev(r):
    return r.headers["ETag"]


def sections_doc(*sections, **extra):
    """{"kind":"sections","sections":[...]} from (id, title, [item ids or dicts]) tuples."""
    out = {"kind": "sections", "sections": []}
    for sid, title, items in sections:
        out["sections"].append(
            {
                "id": sid,
                "title": title,
                "indexTitle": title[0] if title else None,
                "items": [i if isinstance(i, dict) else {"id": i, "cell": "C", "model": {"v": i}} for i in items],
            }
        )
    out.update(extra)
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("data") / "db"
    d.mkdir()
    s = Server(d).start()
    yield s
    s.stop()


@pytest.fixture
def make_server(tmp_path_factory):
    started = []

    def make(args=(), env=None, data_dir=None):
        if data_dir is None:
            data_dir = tmp_path_factory.mktemp("data") / "db"
            data_dir.mkdir()
        s = Server(data_dir, args, env).start()
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()


@pytest.fixture
def put(server):
    return server.put


@pytest.fixture
def get(server):
    return server.get
