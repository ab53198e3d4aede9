#!/usr/bin/env python3
"""Replays the findings of issue 38 (small requests that cost large work) against one server binary and prints figures.

    python3 Benchmarks/abuse.py [case ...]                             (e.g. 1a 3 5: only those)
    LISTDELTA_BIN=/path/to/an/older/listdelta python3 Benchmarks/abuse.py  (the figures before a change)

A measurement, not a test: it asserts nothing. For each case it prints one line
    finding=<n> case=<name> status=<HTTP status or outcome> seconds=<wall time> rss_growth_mb=<peak> extra=<...>
where `seconds` is the wall time of the case's main answer, `rss_growth_mb` the server's resident growth over it (its
peak, sampled every 20 ms) and `extra` whatever the finding needs. The shapes are those of Tests/e2e/test_abuse.py.

Each case starts its own server (`$LISTDELTA_BIN serve --host 127.0.0.1 --port <free> --data <temp dir>`, run in a
temp directory so no Config/listdelta.json is read) with the environment it needs, waits for GET /healthz and stops it
with SIGTERM (SIGKILL after 10 s; for 1b the stop is measured, up to 60 s). Every request has a client timeout of
60 s (status=timeout); a server left busy is killed with its case, so the next case starts on a fresh one. Both
binaries ignore LISTDELTA_ variables they do not know (ServiceConfiguration.apply(environment:) reads only its own
settings), so the same environment goes to both.

Safety: if the server's resident size passes ABUSE_RSS_LIMIT_MB (default 4096) it is killed (status=killed_rss>N):
the old binary's `copy` doubling (finding 2) heads for a document of gigabytes on a shared machine.
Finding 9 (feed links) is measured elsewhere and skipped.
"""

import base64
import gzip
import hashlib
import hmac
import json
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import requests

BIN = os.environ.get("LISTDELTA_BIN", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "debug", "listdelta"))
CAP = 60.0  # client timeout of every request, seconds
RSS_LIMIT_MB = float(os.environ.get("ABUSE_RSS_LIMIT_MB", "4096"))


class Killed(Exception):
    """The server was killed by the RSS safety limit."""


def uid(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def proc_cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class Server:
    def __init__(self, env=None, args=()):
        self.env = dict(env or {})
        self.args = [str(a) for a in args]
        self.proc = None
        self.killed_for_rss = False

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="abuse-")
        data = os.path.join(self.dir, "data")
        os.mkdir(data)
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LISTDELTA_")}
        env.update(self.env)
        self.log = open(os.path.join(self.dir, "server.log"), "w+b")
        cmd = [BIN, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", data, *self.args]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=env, cwd=self.dir)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.output()[-500:]}")
            try:
                if requests.get(self.url("/healthz"), timeout=1).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError("server not ready in 30 s")

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def rss(self):
        return proc_rss_mb(self.pid)

    def cpu(self):
        return proc_cpu_s(self.pid)

    def stop(self, timeout=10):
        """SIGTERM, then SIGKILL after `timeout` s. Returns (seconds until it exited, how)."""
        if self.proc is None:
            return 0.0, "not running"
        start = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(timeout)
                how = f"exited({rc})"
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                how = "sigkill"
        else:
            how = f"already_exited({self.proc.returncode})"
        seconds = time.monotonic() - start
        self.proc = None
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return seconds, how

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def request(self, method, path, **kw):
        kw.setdefault("timeout", CAP)
        return requests.request(method, self.url(path), **kw)

    def put_json(self, list_id, body, **kw):
        headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
        return self.request("PUT", f"/v1/lists/{list_id}", data=json.dumps(body), headers=headers, **kw)

    def patch(self, list_id, ops, **kw):
        return self.request("PATCH", f"/v1/lists/{list_id}", data=json.dumps(ops),
                            headers={"Content-Type": "application/json-patch+json"}, **kw)

    def metric(self, name, **labels):
        """Sum of a metric's samples with these labels (None when absent or unreadable)."""
        try:
            text = self.request("GET", "/metrics", timeout=5).text
        except requests.RequestException:
            return None
        total = None
        for line in text.splitlines():
            m = re.match(r"^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)", line)
            if m and m.group(1) == name and all(f'{k}="{v}"' in (m.group(2) or "") for k, v in labels.items()):
                total = (total or 0.0) + float(m.group(3))
        return total


class Growth:
    """The server's resident growth over a block, in MB (its peak, sampled every 20 ms); kills the server past
    RSS_LIMIT_MB."""

    def __init__(self, server):
        self.server = server
        self.pid = server.pid
        self.peak = 0.0
        self.stop = threading.Event()

    def sample(self):
        while not self.stop.is_set():
            rss = proc_rss_mb(self.pid)
            if rss is None:
                return
            self.peak = max(self.peak, rss - self.base)
            if rss > RSS_LIMIT_MB and not self.server.killed_for_rss:
                self.server.killed_for_rss = True
                self.server.kill()
                return
            self.stop.wait(0.02)

    def __enter__(self):
        self.base = proc_rss_mb(self.pid) or 0.0
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(5)
        rss = proc_rss_mb(self.pid)
        if rss is not None:
            self.peak = max(self.peak, rss - self.base)


def timed(server, call):
    """Runs `call()`; returns (response or None, outcome, seconds). The outcome is the HTTP status, `timeout`,
    `killed_rss>N` or `error:<kind>`."""
    start = time.monotonic()
    try:
        r = call()
        outcome = r.status_code
    except requests.Timeout:
        r, outcome = None, "timeout"
    except requests.RequestException as e:
        r, outcome = None, f"error:{type(e).__name__}"
    seconds = time.monotonic() - start
    if server.killed_for_rss:
        outcome = f"killed_rss>{RSS_LIMIT_MB:.0f}"
    return r, outcome, seconds


def problem_field(r, field):
    try:
        return r.json().get(field)
    except (ValueError, AttributeError):
        return None


def line(finding, case, status, seconds, growth, extra=""):
    g = "n/a" if growth is None else f"{growth:.1f}"
    s = "n/a" if seconds is None else f"{seconds:.3f}"
    print(f"finding={finding} case={case} status={status} seconds={s} rss_growth_mb={g} extra={extra}", flush=True)


def busy(*outcomes):
    return any(not isinstance(o, int) for o in outcomes)


# -- 1. Problems echo a pointer: building it was quadratic


def case_1a():
    s = Server().start()
    status = None
    try:
        body = {"kind": "array", "items": [{"id": "a", "model": {}, "/" * 800_000: 1}]}
        data = gzip.compress(json.dumps(body).encode(), 9)
        cpu0 = s.cpu()
        with Growth(s) as g:
            r, status, seconds = timed(s, lambda: s.request(
                "PUT", f"/v1/lists/{uid('slashes')}", data=data,
                headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}))
        cpu = (s.cpu() or 0) - (cpu0 or 0) if s.alive() else None
        pointer = problem_field(r, "pointer") if r is not None else None
        extra = (f"gzip_bytes={len(data)} response_bytes={len(r.content) if r is not None else 'n/a'} "
                 f"pointer_bytes={len(pointer.encode()) if pointer else 'n/a'} server_cpu_s={cpu if cpu is None else round(cpu, 2)}")
        line("1", "gzip-put-800k-slashes", status, seconds, g.peak, extra)
    finally:
        s.stop(2 if busy(status) else 10)


def case_1b():
    s = Server().start()
    stop_seconds, how = None, "n/a"
    try:
        lid = uid("path")
        s.put_json(lid, {"kind": "array", "items": [{"id": "a", "model": {}}]})
        ops = [{"op": "add", "path": "/sections/0/items/7/model/" + "~1" * 4_000_000, "value": 1}]
        cpu0 = s.cpu()
        with Growth(s) as g:
            r, status, seconds = timed(s, lambda: s.patch(lid, ops))
        cpu = (s.cpu() or 0) - (cpu0 or 0) if s.alive() else None
        pointer = problem_field(r, "pointer") if r is not None else None
        busy_cpu = None
        if s.alive():  # is a worker still at it? CPU over the next second
            c = s.cpu()
            time.sleep(1)
            busy_cpu = (s.cpu() or 0) - (c or 0)
    finally:
        stop_seconds, how = s.stop(CAP)
    line("1", "patch-8mb-path", status, seconds, g.peak,
         f"body_bytes={len(json.dumps(ops))} response_bytes={len(r.content) if r is not None else 'n/a'} "
         f"pointer_bytes={len(pointer.encode()) if pointer else 'n/a'} server_cpu_s={cpu if cpu is None else round(cpu, 2)} "
         f"cpu_in_1s_after={busy_cpu if busy_cpu is None else round(busy_cpu, 2)} "
         f"sigterm_stop_seconds={stop_seconds:.2f} stop={how}")


def case_1c():
    s = Server().start()
    status = None
    try:
        data = json.dumps({"of": "base", "/" * 60_000: 1})
        with Growth(s) as g:
            r, status, seconds = timed(s, lambda: s.request("PUT", f"/v1/lists/{uid('v')}/view", data=data,
                                                            headers={"Content-Type": "application/json"}))
        pointer = problem_field(r, "pointer") if r is not None else None
        detail = problem_field(r, "detail") if r is not None else None
        line("1", "view-unknown-member-60k-slashes", status, seconds, g.peak,
             f"response_bytes={len(r.content) if r is not None else 'n/a'} "
             f"pointer_bytes={len(pointer.encode()) if pointer else 'n/a'} detail_bytes={len(detail.encode()) if detail else 'n/a'}")
    finally:
        s.stop(2 if busy(status) else 10)


# -- 2. JSON Patch `copy` doubles a document


def case_2(model_bytes, name):
    s = Server().start()
    status = None
    get_status = get_seconds = get_growth = stored = None
    try:
        lid = uid("copies")
        s.put_json(lid, {"kind": "array", "items": [{"id": "a", "model": {"x": "y" * model_bytes}}]})
        ops = [{"op": "copy", "from": "/sections/0/items/0/model", "path": f"/sections/0/items/0/model/c{n}"}
               for n in range(21)]
        cpu0 = s.cpu()
        with Growth(s) as g:
            r, status, seconds = timed(s, lambda: s.patch(lid, ops))
        cpu = (s.cpu() or 0) - (cpu0 or 0) if s.alive() else None
        if s.alive() and not busy(status):
            with Growth(s) as gg:
                rg, get_status, get_seconds = timed(s, lambda: s.request("GET", f"/v1/lists/{lid}",
                                                                        headers={"Accept-Encoding": "identity"}))
            get_growth = gg.peak
            if rg is not None and rg.status_code == 200:
                stored = len(rg.content)
                try:
                    revision = rg.json().get("revision")
                except ValueError:
                    revision = "?"
            else:
                revision = None
        else:
            revision = None
        line("2", name, status, seconds, g.peak,
             f"patch_bytes={len(json.dumps(ops))} server_cpu_s={cpu if cpu is None else round(cpu, 2)} "
             f"pointer={problem_field(r, 'pointer') if r is not None and status != 200 else 'n/a'} "
             f"get_status={get_status} get_seconds={'n/a' if get_seconds is None else round(get_seconds, 3)} "
             f"stored_document_bytes={stored} revision={revision} "
             f"get_rss_growth_mb={'n/a' if get_growth is None else round(get_growth, 1)}")
    finally:
        s.stop(2 if busy(status, get_status or 0) else 10)


# -- 3. A view's `in` was a linear scan


def case_3(values):
    s = Server().start()
    status = None
    follow = "n/a"
    try:
        base, vid = uid("base"), uid("view")
        items = [{"id": f"i{n}", "model": {"t": f"text {n} " * 20}} for n in range(5000)]
        s.put_json(base, {"kind": "array", "items": items})
        definition = {"of": base, "where": [{"path": "/id", "op": "in",
                                             "value": [f"i{n}" for n in range(0, values * 10, 10)]}]}
        data = json.dumps(definition)
        cpu0 = s.cpu()
        with Growth(s) as g:
            r, status, seconds = timed(s, lambda: s.request("PUT", f"/v1/lists/{vid}/view", data=data,
                                                            headers={"Content-Type": "application/json"}))
        cpu = (s.cpu() or 0) - (cpu0 or 0) if s.alive() else None
        follow_cpu = None
        if status in (200, 201):
            before = s.request("GET", f"/v1/lists/{vid}", timeout=CAP)
            before_rev = before.json().get("revision") if before.status_code == 200 else None
            c = s.cpu()
            start = time.monotonic()
            w = s.patch(base, [{"op": "remove", "path": "/sections/0/items/0"}])  # i0, which the view holds
            follow = "timeout"
            while time.monotonic() - start < CAP:
                try:
                    v = s.request("GET", f"/v1/lists/{vid}", timeout=max(1.0, CAP - (time.monotonic() - start)))
                    if v.status_code == 200 and v.json().get("revision") != before_rev:
                        follow = f"{time.monotonic() - start:.3f}"
                        break
                except requests.RequestException:
                    pass
                time.sleep(0.05)
            follow_cpu = (s.cpu() or 0) - (c or 0)
            write_status = w.status_code
        else:
            write_status = "n/a"
        line("3", f"view-in-{values}-values-over-5000-items", status, seconds, g.peak,
             f"definition_bytes={len(data)} create_server_cpu_s={cpu if cpu is None else round(cpu, 2)} "
             f"base_write_status={write_status} follow_seconds={follow} "
             f"follow_server_cpu_s={follow_cpu if follow_cpu is None else round(follow_cpu, 2)} "
             f"problem_pointer={problem_field(r, 'pointer') if r is not None and status not in (200, 201) else 'n/a'}")
    finally:
        s.stop(2 if busy(status) or follow == "timeout" else 10)


# -- 4. Event streams that never read


def server_side_sockets(port, client_ports):
    """{client port: (state, send-q)} of the server's sockets to those client ports (from `ss`)."""
    out = subprocess.run(["ss", "-tanH", "state", "all", f"( sport = :{port} )"], capture_output=True, text=True).stdout
    found = {}
    for row in out.splitlines():
        parts = row.split()
        if len(parts) < 5:
            continue
        peer = parts[4].rsplit(":", 1)[-1]
        peer_port = int(peer) if peer.isdigit() else None
        if peer_port in client_ports:
            found[peer_port] = (parts[0], int(parts[2]))
    return found


def case_4():
    env = {"LISTDELTA_MAX_OUTPUT_BYTES": str(1 << 20)}
    s = Server(env=env).start()
    sockets, statuses = [], []
    try:
        lid = uid("slow")
        s.put_json(lid, {"kind": "array", "items": [{"id": "a"}]})
        for _ in range(10):
            sock = socket.create_connection(("127.0.0.1", s.port), timeout=5)
            sock.sendall(f"GET /v1/lists/{lid}/events?from=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Accept-Encoding: identity\r\n\r\n".encode())
            sockets.append(sock)
        ports = {sock.getsockname()[1] for sock in sockets}
        time.sleep(0.3)
        statuses = []
        start = time.monotonic()
        with Growth(s) as g:
            for n in range(20):
                items = [{"id": f"{n}-{k}", "model": {"t": f"{n}{k}" + "x" * 1000}} for k in range(1000)]
                _, st, _ = timed(s, lambda: s.put_json(lid, {"kind": "array", "items": items}))
                statuses.append(st)
                if busy(st):
                    break
            seconds = time.monotonic() - start
            # Let the server act on full outputs (the new one ends such streams).
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and s.alive():
                side = server_side_sockets(s.port, ports)
                if sum(1 for p in ports if side.get(p, ("gone",))[0] == "ESTAB") == 0:
                    break
                time.sleep(0.2)
        side = server_side_sockets(s.port, ports) if s.alive() else {}
        ended_ss = sum(1 for p in ports if side.get(p, ("gone",))[0] != "ESTAB")
        send_q = sum(q for _, q in side.values())
        metric = s.metric("http_streams_ended_total") if s.alive() else None
        status = ",".join(sorted({str(x) for x in statuses}))
        line("4", "10-unread-streams-20-puts-of-1mb", f"puts:{status}", seconds, g.peak,
             f"puts={len(statuses)} LISTDELTA_MAX_OUTPUT_BYTES={1 << 20} "
             f"streams_ended_metric={'n/a' if metric is None else int(metric)} "
             f"streams_ended_by_ss={ended_ss}/10 server_send_q_bytes={send_q} rss_after_mb={s.rss() or 0:.0f}")
    finally:
        for sock in sockets:
            sock.close()
        s.stop(2 if any(busy(x) for x in statuses) else 10)


# -- 5. One client taking every connection with trickled heads


def case_5():
    s = Server(env={"LISTDELTA_MAX_CONNECTIONS": "50"}).start()
    sockets, opened = [], []
    try:
        for _ in range(60):
            try:
                sock = socket.create_connection(("127.0.0.1", s.port), source_address=("127.0.0.2", 0), timeout=5)
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHo")
            except OSError:
                continue
            sockets.append(sock)
            opened.append(time.monotonic())
        time.sleep(0.2)
        results, times = [], []
        with Growth(s) as g:
            for _ in range(5):
                _, st, sec = timed(s, lambda: requests.get(s.url("/healthz"), timeout=10))
                results.append(str(st))
                times.append(sec)
        # How long the trickled sockets stay open: until the server closes them (observed up to 75 s).
        window = 75.0
        first_answer = {}
        closed_at = {}
        sel = selectors.DefaultSelector()
        for i, sock in enumerate(sockets):
            sock.setblocking(False)
            sel.register(sock, selectors.EVENT_READ, i)
        t0 = opened[0] if opened else time.monotonic()
        while len(closed_at) < len(sockets) and time.monotonic() - t0 < window:
            for key, _ in sel.select(timeout=0.2):
                i = key.data
                try:
                    chunk = key.fileobj.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                if chunk and i not in first_answer:
                    first_answer[i] = chunk.split(b"\r\n", 1)[0].decode(errors="replace")
                if not chunk:
                    closed_at[i] = time.monotonic() - opened[i]
                    sel.unregister(key.fileobj)
        sel.close()
        answers = {}
        for i in range(len(sockets)):
            a = first_answer.get(i, "none")
            code = a.split(" ")[1] if a.startswith("HTTP/") else a
            answers[code] = answers.get(code, 0) + 1
        lifetimes = sorted(closed_at.values())
        still_open = len(sockets) - len(closed_at)
        life = (f"min={lifetimes[0]:.1f} median={statistics.median(lifetimes):.1f} max={lifetimes[-1]:.1f}"
                if lifetimes else "none_closed")
        line("5", "60-trickled-heads-then-5-healthz", "healthz:" + ",".join(results), max(times), g.peak,
             f"healthz_seconds={','.join(f'{t:.3f}' for t in times)} trickled_opened={len(sockets)} "
             f"trickled_answers={json.dumps(answers, separators=(',', ':'))} trickled_open_seconds[{life}] "
             f"still_open_after_{window:.0f}s={still_open}")
    finally:
        for sock in sockets:
            sock.close()
        s.stop()


# -- 6. Cross-origin and foreign-Host writes on an anonymous loopback instance


def case_6():
    s = Server().start()
    try:
        body = {"kind": "array", "items": [{"id": "a"}]}
        victim = uid("victim")
        s.put_json(victim, body)
        attacker = {"Origin": "https://attacker.example"}
        lid = uid("cors")
        r, st, sec = timed(s, lambda: s.put_json(lid, body, headers=attacker))
        line("6", "put-origin-attacker", st, sec, None,
             f"list_created={s.request('GET', f'/v1/lists/{lid}').status_code == 200} detail={problem_field(r, 'detail') if st != 201 else ''}")
        r, st, sec = timed(s, lambda: s.request("DELETE", f"/v1/lists/{victim}", headers=attacker))
        line("6", "delete-origin-attacker", st, sec, None,
             f"list_still_there={s.request('GET', f'/v1/lists/{victim}').status_code == 200} detail={problem_field(r, 'detail') if st != 204 else ''}")
        lid = uid("host")
        r, st, sec = timed(s, lambda: s.put_json(lid, body, headers={"Host": "attacker.example"}))
        line("6", "put-host-attacker", st, sec, None,
             f"list_created={s.request('GET', f'/v1/lists/{lid}').status_code == 200} detail={problem_field(r, 'detail') if st != 201 else ''}")
    finally:
        s.stop()


# -- 7. Security headers and Vary


def case_7():
    s = Server(env={"LISTDELTA_CORS_ORIGINS": "https://app.example"}).start()
    names = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")

    def present(r):
        return ",".join(f"{n}:{'yes' if n in r.headers else 'no'}" for n in names)

    try:
        r, st, sec = timed(s, lambda: s.request("GET", "/"))
        line("7", "headers-page", st, sec, None, present(r) + f" csp={json.dumps(r.headers.get('Content-Security-Policy'))}")
        lid = uid("headers")
        s.put_json(lid, {"kind": "array", "items": [{"id": "a"}]})
        r, st, sec = timed(s, lambda: s.request("GET", f"/v1/lists/{lid}"))
        line("7", "headers-json", st, sec, None, present(r) + f" csp={json.dumps(r.headers.get('Content-Security-Policy'))}")
        r, st, sec = timed(s, lambda: s.request("GET", f"/v1/lists/{lid}/diff", params={"from": 0, "to": 1}))
        vary = ", ".join(v for k, v in r.raw.headers.items() if k.lower() == "vary") if r is not None else ""
        vary = vary or None  # absent
        line("7", "vary-immutable-diff-no-origin", st, sec, None,
             f"vary={json.dumps(vary)} cache_control={json.dumps(r.headers.get('Cache-Control') if r is not None else None)} "
             f"LISTDELTA_CORS_ORIGINS=https://app.example")
    finally:
        s.stop()


# -- 8. Request validation


def case_8():
    s = Server(args=["--write-token", "secret", "--read-access", "token"]).start()
    try:
        body = b'{"kind":"array","items":[]}'
        lid = uid("cl")
        start = time.monotonic()
        status_line, closed = "none", "n/a"
        with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
            sock.sendall(f"PUT /v1/lists/{lid} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         f"Authorization: Bearer secret\r\nContent-Length: {len(body)}\r\nContent-Length: 5\r\n\r\n".encode()
                         + body)
            try:
                answer = sock.recv(65536)
                seconds = time.monotonic() - start
                status_line = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"
                sock.settimeout(3)
                try:
                    rest = sock.recv(65536)
                    while rest and b"\r\n\r\n" not in answer:
                        answer += rest
                        rest = sock.recv(65536)
                    closed = "yes" if rest == b"" else "no"
                except socket.timeout:
                    closed = "no(kept-alive)"
            except socket.timeout:
                seconds, status_line = time.monotonic() - start, "timeout"
            except OSError as e:
                seconds, status_line = time.monotonic() - start, f"error:{type(e).__name__}"
        created = s.request("GET", f"/v1/lists/{lid}", headers={"Authorization": "Bearer secret"}).status_code
        code = status_line.split(" ")[1] if status_line.startswith("HTTP/") else status_line
        line("8", "two-content-lengths", code, seconds, None,
             f"status_line={json.dumps(status_line)} connection_closed_after={closed} list_status_after={created}")
        r1, st1, sec1 = timed(s, lambda: s.request("GET", "/v1/lists", params=[("access_token", "secret"), ("access_token", "other")]))
        r2, st2, _ = timed(s, lambda: s.request("GET", "/v1/lists", params=[("access_token", "other"), ("access_token", "secret")]))
        line("8", "two-access-tokens", f"secret+other:{st1}", sec1, None,
             f"other+secret:{st2} detail={json.dumps(problem_field(r1, 'detail'))}")
    finally:
        s.stop()


# -- 10. Token lifetime; one message for refused source hosts


def hs256(claims, secret):
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64(json.dumps(claims).encode())
    signature = hmac.new(secret.encode(), f"{head}.{payload}".encode(), hashlib.sha256).digest()
    return f"{head}.{payload}.{b64(signature)}"


def case_10():
    secret = "s" * 40
    s = Server(env={"LISTDELTA_JWT_SECRET": secret}, args=["--read-access", "token"]).start()
    try:
        token = hs256({"exp": 1e300, "scope": "read", "lists": ["*"]}, secret)
        lid = uid("jwt")
        r, st, sec = timed(s, lambda: s.request("GET", f"/v1/lists/{lid}", headers={"Authorization": f"Bearer {token}"}))
        anon = s.request("GET", f"/v1/lists/{lid}").status_code
        line("10", "jwt-exp-1e300", st, sec, None,
             f"(404=accepted,list_absent) without_token={anon} detail={json.dumps(problem_field(r, 'detail'))}")
    finally:
        s.stop()
    s = Server().start()
    try:
        details, statuses, seconds = [], [], []
        for url in ("http://localhost:9/feed", "http://no-such-host.invalid/feed"):
            host = url.split("/")[2].split(":")[0]
            r, st, sec = timed(s, lambda: s.request("PUT", f"/v1/lists/{uid('src')}/source", data=json.dumps({"url": url}),
                                                    headers={"Content-Type": "application/json"}))
            statuses.append(str(st))
            seconds.append(sec)
            d = problem_field(r, "detail") if r is not None else None
            details.append(d.replace(host, "HOST") if d else d)
        line("10", "source-detail-localhost-vs-invalid", ",".join(statuses), max(seconds), None,
             f"equal_with_host_replaced={'yes' if details[0] == details[1] else 'no'} "
             f"details={json.dumps(details)}")
    finally:
        s.stop()


CASES = {
    "1a": case_1a,
    "1b": case_1b,
    "1c": case_1c,
    "2": lambda: case_2(4000, "patch-21-copies-of-4kb-model"),
    # The review's own shape: a 31-byte model ({"x": 23 'y'}) doubled 21 times is the 77.6 MB document it stored
    # (the 4 KB model of test_abuse.py heads for 8.6 GB on the old binary, which cannot finish it).
    "2s": lambda: case_2(23, "patch-21-copies-of-31b-model"),
    "3": lambda: case_3(50_000),
    "3s": lambda: case_3(1_000),
    "4": case_4,
    "5": case_5,
    "6": case_6,
    "7": case_7,
    "8": case_8,
    "10": case_10,
}


def main():
    if not os.access(BIN, os.X_OK):
        sys.exit(f"no server binary at {BIN} (set LISTDELTA_BIN)")
    chosen = sys.argv[1:] or list(CASES)
    print(f"# binary={BIN} client_timeout_s={CAP:.0f} rss_limit_mb={RSS_LIMIT_MB:.0f}", flush=True)
    for name in chosen:
        try:
            CASES[name]()
        except Exception as e:  # noqa: BLE001 - a measurement goes on with the next case
            line(name.rstrip("s"), name, "error", None, None, f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
