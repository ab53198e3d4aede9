"""Hostile clients: trickled partial requests, clients that never read, bursts beyond the connection limit.

Each test starts its own server with a short timeout and a small connection limit; every wait is bounded.
"""

import os
import socket
import subprocess
import threading
import time

import pytest
import requests

from conftest import assert_problem, uid

TIMEOUT_S = 2
MAX_CONN = 50
# The global limit is what these tests press on: the per-client one (test_abuse.py) is off, every client here being
# one loopback address.
ENV = {"LISTDELTA_TIMEOUT_SECONDS": str(TIMEOUT_S), "LISTDELTA_MAX_CONNECTIONS": str(MAX_CONN),
       "LISTDELTA_MAX_CONNECTIONS_PER_CLIENT": "0"}


def vm_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_until(pred, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


class Prober:
    """A background client that keeps asking the server (fresh connections) and records every outcome."""

    def __init__(self, s, paths, period=0.05, timeout=3):
        self.s, self.paths, self.period, self.timeout = s, paths, period, timeout
        self.results = []  # (path, status or exception, seconds)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        n = 0
        deadline = time.monotonic() + 30  # bounded whatever happens
        while not self.stop.is_set() and time.monotonic() < deadline:
            path = self.paths[n % len(self.paths)]
            n += 1
            t0 = time.monotonic()
            try:
                r = requests.get(self.s.url(path), timeout=self.timeout, headers={"Connection": "close"})
                self.results.append((path, r.status_code, time.monotonic() - t0))
            except requests.RequestException as e:
                self.results.append((path, type(e).__name__, time.monotonic() - t0))
            self.stop.wait(self.period)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(10)

    def check(self, min_count, max_seconds=1.0):
        assert len(self.results) >= min_count, self.results
        bad = [x for x in self.results if x[1] != 200 or x[2] > max_seconds]
        assert not bad, bad


def closed_by_server(sock, timeout):
    """Seconds until the server closes `sock` (EOF or reset, any bytes it sends first are read); None if not."""
    t0 = time.monotonic()
    deadline = t0 + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            return None
        except OSError:  # reset
            return time.monotonic() - t0
        if not data:
            return time.monotonic() - t0
    return None


def test_trickled_partial_request_is_dropped_after_timeout(make_server):
    s = make_server(env=ENV)
    lid = uid()
    assert s.put(lid, {"sections": [{"id": "s", "title": "S", "items": [{"id": "a", "model": 1}]}]}).status_code == 201
    with Prober(s, ["/healthz", f"/v1/lists/{lid}"]) as prober:
        sock = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        try:
            # a partial request, byte by byte (each gap below the timeout), then silence
            for b in b"GET /v1/lists/" + lid.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ":
                sock.sendall(bytes([b]))
                time.sleep(0.02)
            after = closed_by_server(sock, TIMEOUT_S + 4)
        finally:
            sock.close()
    assert after is not None, "a stalled partial request was not disconnected"
    assert after < TIMEOUT_S + 3, after
    prober.check(min_count=10)
    assert s.get("/healthz").status_code == 200


REQUEST_DEADLINE_S = 3


def test_slowloris_is_dropped_after_request_deadline(make_server):
    s = make_server(env={**ENV, "LISTDELTA_REQUEST_TIMEOUT_SECONDS": str(REQUEST_DEADLINE_S)})
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=5)
    answer = b""
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        t0 = time.monotonic()
        dropped_after = None
        while time.monotonic() - t0 < 3 * REQUEST_DEADLINE_S:  # bounded: 9 s
            # one header line every half idle timeout: the idle timeout never fires, the request deadline does
            try:
                sock.sendall(b"X-Slow: a\r\n")
            except OSError:
                dropped_after = time.monotonic() - t0
                break
            sock.settimeout(0.5 * TIMEOUT_S)
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                dropped_after = time.monotonic() - t0
                break
            answer += data
            if not data or b"\r\n\r\n" in answer:
                dropped_after = time.monotonic() - t0
                break
    finally:
        sock.close()
    assert dropped_after is not None, "a client sending one header line per second was never disconnected"
    assert dropped_after < REQUEST_DEADLINE_S + 2, dropped_after
    if answer:  # the 408 is best effort (written straight to the socket before it is closed)
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b"application/problem+json" in answer
    assert s.get("/healthz").status_code == 200


def test_connection_flood_without_requests_is_bounded(make_server):
    s = make_server(env=ENV)
    base = open_fds(s.proc.pid)
    socks = []
    try:
        for _ in range(4 * MAX_CONN):
            socks.append(socket.create_connection(("127.0.0.1", s.port), timeout=5))
        time.sleep(0.5)
        held = open_fds(s.proc.pid) - base
        # counted from accept: at most the limit plus the overflow kept to answer 503 (an eighth, at least 16)
        assert held <= MAX_CONN + max(16, MAX_CONN // 8), held
        assert held >= MAX_CONN, held
        # a request on a connection over the limit is refused with a problem, not left hanging
        extra = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        extra.settimeout(5)
        try:
            reply = extra.recv(65536)
        except OSError:
            reply = b""
        extra.close()
        assert reply == b"" or reply.startswith(b"HTTP/1.1 503 "), reply[:200]
    finally:
        for sock in socks:
            sock.close()
    # once the idle connections are gone (their descriptors closed), the server serves again
    wait_until(lambda: open_fds(s.proc.pid) <= base + 2, 5, step=0.1)
    assert s.get("/healthz").status_code == 200


def listen_backlogs(port):
    """The backlog of each socket listening on `port`, as `ss` reports it (its Send-Q column)."""
    out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return [int(line.split()[2]) for line in out.splitlines()]


def test_the_listen_backlog_holds_a_burst_of_clients_moving_over(make_server):
    # When one instance of two stops, its clients all arrive at the other at once: a backlog of libevent's 128
    # dropped their SYNs, and nginx counted the instance as failed. Each loop's socket holds min(maxConnections,
    # 4096), as far as the kernel allows.
    somaxconn = int(open("/proc/sys/net/core/somaxconn").read())
    for env, backlog in ((None, 4096), ({"LISTDELTA_MAX_CONNECTIONS": "300"}, 300)):
        backlogs = listen_backlogs(make_server(env=env).port)
        assert backlogs and set(backlogs) == {min(backlog, somaxconn)}, backlogs


def test_clients_that_never_read_do_not_block_others(make_server):
    s = make_server(env=ENV)
    lid = uid()
    items = [{"id": f"i{j}", "cell": "C", "model": {"text": "x" * 300, "n": j}} for j in range(3000)]
    assert s.put(lid, {"sections": [{"id": "s", "title": "S", "items": items}]}).status_code == 201
    size = len(s.get(lid).content)
    assert size > 1_000_000, size
    small = uid()
    s.put(small, {"sections": [{"id": "s", "title": "S", "items": [{"id": "a", "model": 1}]}]})
    fds_before = open_fds(s.proc.pid)
    hogs = []
    try:
        for _ in range(20):
            h = socket.socket()
            h.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            h.connect(("127.0.0.1", s.port))
            # ten pipelined requests for the large document (no gzip), never read
            h.sendall(f"GET /v1/lists/{lid} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode() * 10)
            hogs.append(h)
        with Prober(s, ["/healthz", f"/v1/lists/{small}", f"/v1/lists/{lid}"], period=0.1) as prober:
            time.sleep(1.5)
        prober.check(min_count=8)
        # the write timeout ends the stuck connections: the server gives their descriptors back
        assert wait_until(lambda: open_fds(s.proc.pid) <= fds_before + 2, TIMEOUT_S + 5), (
            open_fds(s.proc.pid), fds_before)
    finally:
        for h in hogs:
            h.close()
    assert s.get("/healthz").status_code == 200


def _burst(port, n):
    socks = []
    for _ in range(n):
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    for c in socks:
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    statuses = []
    problems = []
    for c in socks:
        data = b""
        deadline = time.monotonic() + 5
        while b"\r\n\r\n" not in data and time.monotonic() < deadline:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
        statuses.append(status)
        if status == 503:
            problems.append((head.decode("latin-1"), body))
    return socks, statuses, problems


def test_burst_beyond_connection_limit(make_server):
    s = make_server(env=ENV)
    pid = s.proc.pid
    existing = requests.Session()
    assert existing.get(s.url("/healthz"), timeout=5).status_code == 200  # a counted, kept-alive connection
    base_fds = open_fds(pid)
    # warm up the allocator with one burst, then measure
    socks, _, _ = _burst(s.port, 100)
    for c in socks:
        c.close()
    # closed connections are uncounted in libevent's close callback, which also closes the descriptor
    assert wait_until(lambda: open_fds(pid) <= base_fds, 5), (open_fds(pid), base_fds)
    rss_before = vm_rss_mb(pid)
    n = 400
    for _ in range(3):
        socks, statuses, problems = _burst(s.port, n)
        try:
            # counted from accept: within the limit 200; over it 503 (a problem, then close); beyond the hard cap
            # (an eighth more, at least 16) closed as soon as accepted, without an answer (None)
            assert set(statuses) <= {200, 503, None}, statuses
            ok, over, dropped = statuses.count(200), statuses.count(503), statuses.count(None)
            assert MAX_CONN - 5 <= ok <= MAX_CONN - 1, ok  # the existing connection holds one place
            assert 1 <= over, statuses
            # places freed by answered 503s can be taken by connections still in the accept queue, so the split
            # is not exact; the bound on open descriptors is checked by test_connection_flood_without_requests
            cap = MAX_CONN + max(16, MAX_CONN // 8)
            assert dropped >= n - 2 * cap, (ok, over, dropped)
            head, body = problems[0]
            assert "application/problem+json" in head.lower(), head
            assert "connection: close" in head.lower(), head
            assert b'"status":503' in body.replace(b" ", b""), body
            # the existing connection keeps being served during the burst
            r = existing.get(s.url("/healthz"), timeout=5)
            assert r.status_code == 200
            if ok == MAX_CONN - 1:  # every place taken: one more connection is over the limit too
                assert_problem(requests.get(s.url("/healthz"), timeout=5), 503)
        finally:
            for c in socks:
                c.close()
        assert wait_until(lambda: open_fds(pid) <= base_fds, 5), (open_fds(pid), base_fds)
    assert wait_until(lambda: requests.get(s.url("/healthz"), timeout=5).status_code == 200, 5)
    rss_after = vm_rss_mb(pid)
    assert rss_after < rss_before + 30, (rss_before, rss_after)
    assert existing.get(s.url("/healthz"), timeout=5).status_code == 200
    existing.close()
