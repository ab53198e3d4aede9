#!/usr/bin/env python3
"""N parked long polls woken by one write (stdlib asyncio, raw HTTP/1.1, loopback only).

Opens --polls connections (default 10000), each sending
  GET /v1/lists/<list>/diff?from=<current>&wait=60
waits until the server's /metrics gauge listdelta_parked_polls reaches N (bounded), records the server's RSS,
PUTs a change to the list and measures the time from sending the PUT until every poll has its complete 200 answer.
With --write-port the PUT goes to another instance sharing the database (a cross-instance wake-up).
Prints exactly:
  parked polls=<N> answered=<n> all_answered_ms=<t> rss_mb=<m> p99_ms=<t>
(rss_mb: the server's VmRSS with all polls parked), plus details. Everything is bounded by --deadline seconds.
"""

import argparse
import asyncio
import json
import os
import resource
import sys
import time
import urllib.request


def vm(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])  # kB
    except OSError:
        pass
    return -1


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return -1.0


def fds(pid):
    import os
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def http(port, method, path, body=None, ctype="application/json", timeout=30):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", ctype)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def parked_gauge(port):
    try:
        _, text = http(port, "GET", "/metrics", timeout=5)
    except Exception:  # noqa: BLE001
        return -1
    for line in text.decode().splitlines():
        if line.startswith("listdelta_parked_polls"):
            return int(float(line.split()[-1]))
    return -1


async def poll(port, path, sent, done, errors, connect_sem):
    try:
        async with connect_sem:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await writer.drain()
        sent.append(1)
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        chunked = False
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
            if k.strip().lower() == b"transfer-encoding" and b"chunked" in v.lower():
                chunked = True
        if chunked:
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            await reader.readexactly(length)
        done.append((time.monotonic(), status))
        writer.close()
    except Exception as e:  # noqa: BLE001
        errors.append(repr(e))


async def main_async(a):
    port = a.port
    lid = a.list
    st, body = http(port, "GET", f"/v1/lists/{lid}")
    rev = json.loads(body)["revision"]
    path = f"/v1/lists/{lid}/diff?from={rev}&wait=60"
    sent, done, errors = [], [], []
    sem = asyncio.Semaphore(a.connect_concurrency)
    t_open = time.monotonic()
    tasks = [asyncio.create_task(poll(port, path, sent, done, errors, sem)) for _ in range(a.polls)]
    deadline = t_open + a.deadline
    parked = -1
    while time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        parked = await asyncio.get_running_loop().run_in_executor(None, parked_gauge, port)
        if parked >= (a.gauge or a.polls) or (errors and len(sent) + len(errors) >= a.polls and parked >= len(sent)):
            break
    t_parked = time.monotonic() - t_open
    await asyncio.sleep(0.5)  # let the last parked requests settle
    rss_kb = vm(a.pid, "VmRSS") if a.pid else -1
    hwm_kb = vm(a.pid, "VmHWM") if a.pid else -1
    nfds = fds(a.pid) if a.pid else -1
    print(f"opened {len(sent)} polls ({len(errors)} errors) in {t_parked:.1f} s; gauge listdelta_parked_polls={parked}; "
          f"server VmRSS={rss_kb / 1024:.1f} MB VmHWM={hwm_kb / 1024:.1f} MB fds={nfds}", flush=True)
    await asyncio.sleep(float(os.environ.get("PARKED_PAUSE", "0")))  # e.g. to attach a profiler
    early = len(done)
    doc = {"kind": "sections", "sections": [{"id": "s1", "title": "A", "items": [
        {"id": "i1", "model": {"n": rev + 1, "woken": True}}]}]}
    loop = asyncio.get_running_loop()
    cpu0 = cpu_seconds(a.pid) if a.pid else -1
    t0 = time.monotonic()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    put_done = []

    def do_put():
        out = http(a.write_port or port, "PUT", f"/v1/lists/{lid}", json.dumps(doc).encode())
        put_done.append(time.monotonic())
        return out

    put = loop.run_in_executor(None, do_put if not a.no_write else (lambda: (0, b"")))
    end = t0 + min(60.0, max(5.0, deadline - time.monotonic()))
    while time.monotonic() < end and len(done) + len(errors) < len(sent):
        await asyncio.sleep(0.005)
    put_status, _ = await put
    t_all = (max(t for t, _ in done[early:]) - t0) * 1000 if len(done) > early else -1
    answered = sum(1 for _, s in done[early:] if s == 200)
    after = [(t - t0) * 1000 for t, _ in done[early:]]
    after.sort()
    p50 = after[len(after) // 2] if after else -1
    p99 = after[min(len(after) - 1, (len(after) * 99) // 100)] if after else -1
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    put_ms = (put_done[0] - t0) * 1000 if put_done else -1
    print(f"PUT answered after {put_ms:.0f} ms; first poll answered after {after[0] if after else -1:.0f} ms; "
          f"client CPU during the wake-up {client_cpu:.2f} s", flush=True)
    rss_after = vm(a.pid, "VmRSS") if a.pid else -1
    cpu1 = cpu_seconds(a.pid) if a.pid else -1
    threads = vm(a.pid, "Threads") if a.pid else -1
    print(f"PUT {put_status}; answered before the write: {early}; after: {answered} x 200 "
          f"(p50 {p50:.0f} ms, last {t_all:.0f} ms); errors {len(errors)} {errors[:3]}; "
          f"server VmRSS after answering={rss_after / 1024:.1f} MB, server CPU for the wake-up {cpu1 - cpu0:.2f} s, "
          f"server threads {threads}", flush=True)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if done:
        print(f"monotonic clock at the first / last answer: {min(t for t, _ in done):.3f} / "
              f"{max(t for t, _ in done):.3f}; write sent at {t0:.3f}", flush=True)
    print(f"parked polls={a.polls} answered={answered} all_answered_ms={t_all:.0f} rss_mb={rss_kb / 1024:.1f} "
          f"p99_ms={p99:.0f}", flush=True)
    return 0 if answered == a.polls else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int, default=0, help="server pid, for VmRSS")
    ap.add_argument("--list", default="parked")
    ap.add_argument("--polls", type=int, default=10000)
    ap.add_argument("--connect-concurrency", type=int, default=256)
    ap.add_argument("--deadline", type=float, default=90)
    ap.add_argument("--gauge", type=int, default=0, help="parked polls to wait for (default --polls)")
    ap.add_argument("--no-write", action="store_true", help="do not write; another client wakes the polls")
    ap.add_argument("--write-port", type=int, default=0,
                    help="write through this port (another instance on the same database); default --port")
    ap.add_argument("--procs", type=int, default=2,
                    help="client processes sharing the polls (one asyncio process is itself too slow for 10000)")
    a = ap.parse_args()
    a.polls = max(1, min(a.polls, 50000))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.polls + 512
    if soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
        except (ValueError, OSError):
            pass
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        print(f"warning: fd limit {soft} < {want}", file=sys.stderr)
    if a.procs > 1 and not a.no_write:
        sys.exit(run_split(a))
    sys.exit(asyncio.run(main_async(a)))


def run_split(a):
    """Runs the polls in a.procs processes: helpers park theirs and only wait; this one writes once all are parked."""
    import subprocess
    procs = max(1, min(a.procs, 16))
    share = a.polls // procs
    helpers = []
    for k in range(procs - 1):
        cmd = [sys.executable, __file__, "--port", str(a.port), "--pid", str(a.pid), "--list", a.list,
               "--polls", str(share), "--gauge", str(a.polls), "--no-write", "--procs", "1", "--deadline", str(a.deadline)]
        helpers.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
    own = a.polls - share * (procs - 1)
    cmd = [sys.executable, __file__, "--port", str(a.port), "--pid", str(a.pid), "--list", a.list,
           "--polls", str(own), "--gauge", str(a.polls), "--procs", "1", "--deadline", str(a.deadline)]
    env = dict(os.environ, PARKED_PAUSE=os.environ.get("PARKED_PAUSE", "1"))
    outs = []
    try:
        writer = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, timeout=a.deadline + 90)
        outs.append(writer.stdout)
        for h in helpers:
            outs.append(h.communicate(timeout=a.deadline + 90)[0])
    finally:
        for h in helpers:
            if h.poll() is None:
                h.kill()
    sent, last, answered, rss = None, None, 0, None
    for k, out in enumerate(outs):
        for line in out.splitlines():
            print(f"  [client {k}] {line}")
            if line.startswith("monotonic clock"):
                nums = [float(x) for x in line.replace("/", " ").replace(";", " ").split() if x[0].isdigit()]
                last = max(last or 0, nums[1])
                if k == 0:
                    sent = nums[2]
            if line.startswith("parked polls="):
                f = dict(x.split("=") for x in line.split()[1:])
                answered += int(f["answered"])
                if k == 0:
                    rss = f["rss_mb"]
    t_all = (last - sent) * 1000 if sent is not None and last is not None else -1
    print(f"parked polls={a.polls} answered={answered} all_answered_ms={t_all:.0f} rss_mb={rss}", flush=True)
    return 0 if answered == a.polls else 1


if __name__ == "__main__":
    main()
