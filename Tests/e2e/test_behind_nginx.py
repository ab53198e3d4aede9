"""docs/deployment.md's nginx site, as written there, in front of the service: event streams (one list and many) arrive
through nginx's default buffering as they happen, long polls are answered through it, and it keeps them open."""

import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
import requests

from conftest import free_port, sections_doc, uid
from test_hostile import wait_until

REPO = Path(__file__).resolve().parents[2]


def documented_nginx_site():
    """The ```nginx block of docs/deployment.md ("Behind a reverse proxy")."""
    text = (REPO / "docs" / "deployment.md").read_text(encoding="utf-8")
    section = text.split("\n## Behind a reverse proxy\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```nginx\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "docs/deployment.md's \"Behind a reverse proxy\" should hold one nginx site"
    return blocks[0]


_proxy_dirs = {}


def proxy_dir(base):
    """The directory of the nginx serving `base` (its configuration, logs and temporary files)."""
    return _proxy_dirs[base]


@pytest.fixture(scope="module")
def proxy(server, tmp_path_factory):
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if nginx is None:
        pytest.fail("nginx is not installed: run `bash scripts/setup.sh --tests` (Debian package nginx-light)")
    port = free_port()
    site = documented_nginx_site()
    assert "server 127.0.0.1:8080;" in site and "listen 80;" in site
    d = tmp_path_factory.mktemp("nginx")
    site = site.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{server.port};").replace(
        "listen 80;", f"listen 127.0.0.1:{port};").replace("/var/log/nginx/", f"{d}/")
    temp = "\n".join(f"    {kind}_temp_path {d}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (d / "nginx.conf").write_text(f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
{temp}
{site}
}}
""")
    process = subprocess.Popen([nginx, "-p", str(d), "-c", str(d / "nginx.conf")], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            if requests.get(base + "/healthz", timeout=1).status_code == 200:
                break
        except requests.ConnectionError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            out = process.stdout.read().decode(errors="replace")
            pytest.fail(f"nginx did not start: {out} {(d / 'error.log').read_text() if (d / 'error.log').exists() else ''}")
        time.sleep(0.05)
    _proxy_dirs[base] = d
    yield base
    process.terminate()
    process.wait(10)


def _events(response):
    """The events of a streamed response, as they arrive."""
    event = {}
    for line in response.iter_lines(decode_unicode=True):
        if line == "":
            if event:
                yield event
            event = {}
        elif not line.startswith(":"):
            key, _, value = line.partition(": ")
            event[key] = value


def _write_later(server, lid, items, delay=0.3):
    timer = threading.Timer(delay, lambda: server.put(lid, sections_doc(("s", "S", items))))
    timer.start()
    return timer


@pytest.mark.parametrize("many", [False, True])
def test_event_streams_arrive_through_default_buffering_as_they_happen(server, proxy, many):
    lid = uid("nx")
    server.put(lid, sections_doc(("s", "S", ["a"])))
    path = f"/v1/events?lists={lid}:1,{uid('other')}:0" if many else f"/v1/lists/{lid}/events?from=1"
    with requests.get(proxy + path, stream=True, timeout=10) as r:
        assert r.status_code == 200 and r.headers["Content-Type"] == "text/event-stream"
        events = _events(r)
        for round in range(3):
            timer = _write_later(server, lid, ["a", f"r{round}"])
            started = time.monotonic()
            event = next(events)
            elapsed = time.monotonic() - started
            timer.join()
            assert event["event"] == "diff" and json.loads(event["data"])["to"] == 2 + round
            assert elapsed < 1.0, f"the event took {elapsed:.2f} s through nginx: buffered?"


def test_long_polls_are_answered_through_the_proxy(server, proxy):
    for form in ("one", "many"):
        lid = uid("nxp")
        server.put(lid, sections_doc(("s", "S", ["a"])))
        path = f"/v1/lists/{lid}/diff?from=1&wait=20" if form == "one" else f"/v1/diffs?lists={lid}:1&wait=20"
        timer = _write_later(server, lid, ["a", "b"])
        started = time.monotonic()
        r = requests.get(proxy + path, timeout=10)
        timer.join()
        assert r.status_code == 200
        assert time.monotonic() - started < 1.3
        body = r.json()
        diff = body["diffs"][0] if form == "many" else body
        assert (diff["id"], diff["from"], diff["to"]) == (lid, 1, 2)


def test_the_site_hides_metrics_and_its_version_and_logs_no_query_strings(server, proxy):
    r = requests.get(proxy + "/metrics", timeout=5)
    assert r.status_code == 404
    assert requests.get(server.url("/metrics"), timeout=5).status_code == 200
    page = requests.get(proxy + "/nothing-here", timeout=5)
    assert page.headers.get("Server", "") == "nginx", page.headers.get("Server")
    lid = uid("nxlog")
    server.put(lid, sections_doc(("s", "S", ["a"])))
    assert requests.get(proxy + f"/v1/lists/{lid}?access_token=secret-in-url", timeout=5).status_code in (200, 401, 403)
    # The site writes its log in batches (buffer=64k flush=1s): the line is there within a second or so.
    log_file = next(Path(proxy_dir(proxy)).glob("listdelta.access.log"))
    assert wait_until(lambda: f"/v1/lists/{lid}" in log_file.read_text(), 10, step=0.1)
    assert "secret-in-url" not in log_file.read_text()


def test_the_site_limits_each_clients_writes(server, proxy):
    lid = uid("nxrate")
    server.put(lid, sections_doc(("s", "S", ["a"])))
    statuses = []

    def write():
        # Writes the service refuses at once (415, on its loop), so the client sends them faster than the site's 200
        # a second and burst of 400 let through.
        session = requests.Session()
        for _ in range(150):
            statuses.append(session.put(proxy + f"/v1/lists/{lid}", data="x", headers={"Content-Type": "text/plain"},
                                        timeout=5).status_code)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert 429 in statuses and 415 in statuses, sorted(set(statuses))
    assert set(statuses) <= {415, 429}
    # Reads are not rate-limited.
    session = requests.Session()
    assert all(session.get(proxy + f"/v1/lists/{lid}", timeout=5).status_code == 200 for _ in range(600))
