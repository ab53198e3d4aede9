"""An HTTP proxy in front of the service that loses requests and answers on demand, for the tests of client.js's writes.

Every request goes to the service on a connection of its own (HTTP/1.0: the proxy closes each connection after its
answer, so a browser never resends a request on a reused connection by itself). Writes (PUT, PATCH, POST, DELETE) can
be lost on the way in or out:

- "before": the connection is closed before the request reaches the service (the client sees a network error);
- "after": the service handles it, then the connection is closed before the answer is sent (the answer is lost);
- "cut": the status line, the headers and half the body are sent, then the connection is closed;
- "busy": the proxy answers as the service does while a request with the same Idempotency-Key is still being written
  (409, `pointer` "/Idempotency-Key", `Retry-After: 1`), without forwarding it.

`offline = True` closes every connection to the API (`/v1/...`, reads included) unanswered; the page, `/healthz` and
`/client.js` still load, so a page can be reloaded "offline". `lose(fate, n)` loses the next n writes that way;
`randomly(before=p, after=p, cut=p, seed=s)` loses each write with those probabilities. `log` records every request
to the API: method, path, Idempotency-Key, fate, and the service's status and `Idempotent-Replayed`.

A client under test (Node or a page) drives the proxy itself with POST requests to `/__proxy/...`, answered by the
proxy and never logged: `lose?fate=after&count=1`, `offline?on=1`, `random?before=&after=&cut=&seed=`.
"""

import http.client
import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

WRITES = {"PUT", "PATCH", "POST", "DELETE"}
# Not forwarded. `Host` is (a page's writes are same-origin writes only when its Origin names the Host it asked).
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
              "content-length"}


class FlakyProxy:
    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.offline = False
        self.log = []
        self._lock = threading.Lock()
        self._queued = []  # fates for the next writes
        self._odds = None  # (before, after, cut, Random)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def _handle(self):
                proxy._serve(self)

            do_GET = do_PUT = do_PATCH = do_POST = do_DELETE = do_OPTIONS = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path=""):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # -- what to lose

    def lose(self, fate, count=1):
        """Loses the next `count` writes: fate "before", "after", "cut" or "busy"."""
        assert fate in ("before", "after", "cut", "busy"), fate
        with self._lock:
            self._queued += [fate] * count

    def randomly(self, before=0.0, after=0.0, cut=0.0, seed=0):
        """Loses every write with these probabilities (None: none any more)."""
        with self._lock:
            self._odds = (before, after, cut, random.Random(seed)) if before or after or cut else None

    def _fate(self, method, path):
        with self._lock:
            if not path.startswith("/v1/"):
                return "forwarded"
            if self.offline:
                return "offline"
            if method not in WRITES:
                return "forwarded"
            if self._queued:
                return self._queued.pop(0)
            if self._odds:
                before, after, cut, rng = self._odds
                x = rng.random()
                if x < before:
                    return "before"
                if x < before + after:
                    return "after"
                if x < before + after + cut:
                    return "cut"
        return "forwarded"

    # -- what happened

    def writes(self, method=None):
        """The logged writes (of `method` only, when given)."""
        with self._lock:
            return [e for e in self.log if e["method"] in WRITES and (method is None or e["method"] == method)]

    def _record(self, entry):
        if not entry["path"].startswith("/v1/"):
            return
        with self._lock:
            self.log.append(entry)

    # -- the proxying

    def _control(self, handler):
        """A request to /__proxy/...: the client under test says what to lose."""
        url = urlsplit(handler.path)
        params = {k: v[0] for k, v in parse_qs(url.query).items()}
        what = url.path.removeprefix("/__proxy/")
        if what == "lose":
            self.lose(params["fate"], int(params.get("count", 1)))
        elif what == "offline":
            self.offline = params.get("on") == "1"
        elif what == "random":
            self.randomly(float(params.get("before", 0)), float(params.get("after", 0)), float(params.get("cut", 0)),
                          int(params.get("seed", 0)))
        else:
            handler.send_error(404)
            return
        handler.send_response(204)
        handler.send_header("Access-Control-Allow-Origin", "*")
        handler.end_headers()

    def _busy(self, handler, entry):
        problem = {"type": "about:blank", "title": "Conflict", "status": 409, "pointer": "/Idempotency-Key",
                   "detail": "a request with this Idempotency-Key is still being written"}
        data = json.dumps(problem).encode()
        entry.update(status=409, answer=data.decode())
        self._record(entry)
        handler.send_response(409)
        handler.send_header("Content-Type", "application/problem+json")
        handler.send_header("Retry-After", "1")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        handler.close_connection = True

    def _serve(self, handler):
        method = handler.command
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        if handler.path.startswith("/__proxy/"):
            return self._control(handler)
        entry = {"method": method, "path": handler.path, "key": handler.headers.get("Idempotency-Key"),
                 "body": body.decode(errors="replace") if body else None, "status": None, "replayed": None}
        fate = self._fate(method, handler.path)
        entry["fate"] = fate
        if fate in ("offline", "before"):
            self._record(entry)
            handler.close_connection = True
            return
        if fate == "busy":
            return self._busy(handler, entry)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in HOP_BY_HOP}
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=120)
        try:
            upstream.request(method, handler.path, body=body, headers=headers)
            res = upstream.getresponse()
            answer_headers = [(k, v) for k, v in res.getheaders() if k.lower() not in HOP_BY_HOP]
            entry["status"] = res.status
            entry["replayed"] = res.getheader("Idempotent-Replayed")
            if (res.getheader("Content-Type") or "").startswith("text/event-stream"):
                self._record(entry)
                return self._stream(handler, res, answer_headers)
            data = res.read()
            entry["answer"] = data.decode(errors="replace")[:2000]
        except (OSError, http.client.HTTPException) as error:
            entry["fate"] = f"upstream failed: {error}"
            self._record(entry)
            handler.close_connection = True
            return
        finally:
            upstream.close()
        self._record(entry)
        if fate == "after":
            handler.close_connection = True
            return
        try:
            self._head(handler, res, answer_headers, len(data))
            handler.wfile.write(data[: len(data) // 2] if fate == "cut" else data)
            handler.wfile.flush()
        except OSError:
            pass
        handler.close_connection = True

    @staticmethod
    def _head(handler, res, headers, length=None):
        handler.send_response_only(res.status, res.reason)
        for k, v in headers:
            handler.send_header(k, v)
        if length is not None:
            handler.send_header("Content-Length", str(length))
        handler.send_header("Connection", "close")
        handler.end_headers()

    def _stream(self, handler, res, headers):
        """An event stream, passed on as it comes (its end closes the connection)."""
        try:
            self._head(handler, res, headers)
            handler.wfile.flush()
            while chunk := res.read1(65536):
                handler.wfile.write(chunk)
                handler.wfile.flush()
        except (OSError, http.client.HTTPException):
            pass
        handler.close_connection = True
