"""nginx as a shared cache in front of a server, running Config/nginx-cache.conf as written (the configuration
docs/deployment.md shows), with only its addresses and cache directory replaced."""

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import requests

from conftest import free_port

REPO = Path(__file__).resolve().parents[2]
CACHE_CONF = REPO / "Config" / "nginx-cache.conf"


def nginx_binary():
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if nginx is None:
        pytest.fail("nginx is not installed: run `bash scripts/setup.sh --tests` (Debian package nginx-light)")
    return nginx


def cache_site(origin_port, listen_port, cache_dir):
    """Config/nginx-cache.conf aimed at the origin, listening on loopback, caching under `cache_dir`."""
    site = CACHE_CONF.read_text(encoding="utf-8")
    for needle in ("server 127.0.0.1:8080;", "listen 80;", "/var/cache/nginx/listdelta "):
        assert site.count(needle) == 1, f"{CACHE_CONF} should hold {needle!r} once"
    return (site.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{origin_port};")
            .replace("listen 80;", f"listen 127.0.0.1:{listen_port};")
            .replace("/var/cache/nginx/listdelta ", f"{cache_dir} "))


class Cache:
    """A running nginx cache; `url(path)` addresses it, `access_log()` reads the requests it received."""

    def __init__(self, origin, workdir, worker_connections=1024):
        self.origin = origin
        self.dir = Path(workdir)
        self.port = free_port()
        temp = "\n".join(f"    {kind}_temp_path {self.dir}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (self.dir / "nginx.conf").write_text(f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections {worker_connections}; }}
http {{
    log_format cache '$request_uri $status $upstream_cache_status';
    access_log {self.dir}/access.log cache;
{temp}
{cache_site(origin.port, self.port, self.dir / "cache")}
}}
""")
        self.process = subprocess.Popen([nginx_binary(), "-p", str(self.dir), "-c", str(self.dir / "nginx.conf")],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                if requests.get(self.url("/healthz"), timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                out = self.process.stdout.read().decode(errors="replace")
                log = self.dir / "error.log"
                pytest.fail(f"nginx did not start: {out} {log.read_text() if log.exists() else ''}")
            time.sleep(0.05)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def access_log(self):
        """(request URI, status, cache status) of every request so far."""
        path = self.dir / "access.log"
        if not path.exists():
            return []
        return [tuple(line.split(" ")) for line in path.read_text().splitlines() if line.count(" ") == 2]

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


def requests_to_origin(server, route, method="GET"):
    """`http_requests_total` of `route` and `method` summed over statuses, from the origin's /metrics."""
    total = 0.0
    for line in server.get("/metrics").text.splitlines():
        m = re.match(r"^http_requests_total\{(.*)\}\s+(\S+)$", line.strip())
        if m and f'route="{route}"' in m.group(1) and f'method="{method}"' in m.group(1):
            total += float(m.group(2))
    return total


def next_link(response):
    """The `rel="next"` target of a response's `Link`, or None."""
    m = re.match(r'^<([^>]*)>; rel="next"$', response.headers.get("Link", ""))
    return m.group(1) if m else None


def cursor_of(target):
    m = re.search(r"[?&]cursor=([0-9]+)", target or "")
    return int(m.group(1)) if m else None
