"""The image as users run it: built from the repository's Dockerfile, it carries exactly the libraries the binary
loads, adds at most 100 MB to its base, serves (a PUT, a diff, a long poll, a feed source through libxml2) as a
non-root user on a named volume and on PostgreSQL, passes its health check, and stops cleanly on SIGTERM."""

import re
import subprocess
import threading
import time
import uuid

import pytest
import requests

import pg_support
from conftest import BASE, IMAGE, LIMITS, TOKEN, Container, Figures, free_port, logs, podman, wait_until
from listdelta_apply import apply_batch_diff, canon_sections

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Container feed</title><link>https://example.com/</link>
<item><guid>one</guid><title>First &amp; foremost</title><link>https://example.com/1</link></item>
<item><guid>two</guid><title>Second</title><link>https://example.com/2</link></item>
</channel></rss>
"""


def name(prefix):
    return f"ld-{prefix}-{uuid.uuid4().hex[:8]}"


def doc(*items):
    return {"kind": "array", "title": "T", "items": [{"id": i, "model": {"v": i}} for i in items]}


@pytest.fixture
def cleanup():
    containers, volumes = [], []
    yield containers, volumes
    for container in containers:
        container.remove()
    for volume in volumes:
        podman("volume", "rm", "-f", volume, check=False)


def packages(image):
    listing = podman("run", "--rm", *LIMITS, "--entrypoint", "dpkg-query", image, "-W", "-f", "${Package}\n").stdout
    return set(listing.split())


def test_runtime_carries_exactly_the_shared_libraries_the_binary_needs(image):
    ldd = podman("run", "--rm", *LIMITS, "--entrypoint", "ldd", image, "/usr/local/bin/listdelta").stdout
    assert "not found" not in ldd, ldd
    loaded = {re.sub(r"\.so.*", "", name) for name in re.findall(r"^\s*(\S+\.so[.\d]*)", ldd, re.M)}
    # libevent, zlib and SQLite, and the C and C++ runtimes; the Swift runtime and libxml2 are linked in
    assert {"libevent-2.1", "libz", "libsqlite3"} <= loaded, sorted(loaded)
    assert loaded <= {"linux-vdso", "libevent-2.1", "libz", "libsqlite3", "libm", "libstdc++", "libgcc_s", "libc",
                      "/lib64/ld-linux-x86-64"}, f"unexpected libraries: {sorted(loaded)}"
    # and the image installs exactly the packages that carry them, beyond its base (zlib is in the base)
    added = packages(image) - packages(BASE)
    assert added == {"libevent-2.1-7", "libsqlite3-0"}, sorted(added)
    # the CA certificates for https sources, without the ca-certificates package and its openssl
    listing = podman("run", "--rm", *LIMITS, "--entrypoint", "ls", image, "-l", "/etc/ssl/certs/ca-certificates.crt")
    assert listing.returncode == 0 and int(listing.stdout.split()[4]) > 100_000, listing.stdout


def test_binary_is_stripped_and_the_image_is_small(image, tmp_path):
    container = podman("create", image).stdout.strip()
    try:
        podman("cp", f"{container}:/usr/local/bin/listdelta", str(tmp_path / "listdelta"))
    finally:
        podman("rm", "-v", container, check=False)
    sections = subprocess.run(["readelf", "-S", "-W", str(tmp_path / "listdelta")], capture_output=True, text=True).stdout
    assert ".symtab" not in sections and ".debug_info" not in sections, "the binary carries symbols or debug info"
    added = Figures.values["image_mb"] - Figures.values["base_mb"]
    assert added <= 100, f"the image adds {added} MB to debian:bookworm-slim (at most 100)"


def test_serves_as_users_run_it_and_stops_cleanly(image, cleanup, tmp_path):
    containers, volumes = cleanup
    volume = name("data")
    volumes.append(volume)
    feeds = tmp_path / "feeds"
    feeds.mkdir()
    (feeds / "feed.xml").write_text(RSS)
    feeds.chmod(0o755)
    (feeds / "feed.xml").chmod(0o644)
    container = Container(name("serve"), image, volumes=[f"{volume}:/data", f"{feeds}:/feeds:ro"],
                          env={"LISTDELTA_SOURCE_DIRECTORY": "/feeds"})
    containers.append(container)
    started = time.monotonic()
    container.run()
    container.wait_healthy()
    Figures.values["start_ms"] = round((time.monotonic() - started) * 1000)
    base, auth = container.url, container.headers()

    # non-root: the process runs as the image's user
    status = container.exec("cat", "/proc/1/status").stdout
    assert re.search(r"^Uid:\s+10001\s", status, re.M), status
    # the image's own health check
    assert podman("healthcheck", "run", container.name, check=False).returncode == 0, logs(container.name)

    # a PUT, a diff, a long poll woken by a write
    lists = f"{base}/v1/lists"
    assert requests.put(f"{lists}/fruits", json=doc("apple"), timeout=10).status_code == 401  # a token is needed
    r = requests.put(f"{lists}/fruits", json=doc("apple", "banana"), headers=auth, timeout=10)
    assert r.status_code == 201, r.text
    first = requests.get(f"{lists}/fruits", timeout=10).json()
    polled = {}

    def poll():
        answer = requests.get(f"{lists}/fruits/diff", params={"from": 1, "wait": 20}, timeout=30)
        polled["status"], polled["body"] = answer.status_code, answer.json()

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.3)
    assert requests.put(f"{lists}/fruits", json=doc("cherry", "apple"), headers=auth, timeout=10).status_code == 200
    poller.join(10)
    assert polled["status"] == 200 and polled["body"]["to"] == 2
    applied = apply_batch_diff(first, polled["body"])
    assert canon_sections(applied) == canon_sections(requests.get(f"{lists}/fruits", timeout=10).json())

    # a feed source from the mounted directory, parsed by libxml2 inside the image
    r = requests.put(f"{lists}/news/source", json={"url": "file:///feeds/feed.xml"}, headers=auth, timeout=20)
    assert r.status_code == 201, r.text
    assert r.json()["lastError"] is None, r.json()
    news = requests.get(f"{lists}/news", timeout=10).json()
    titles = [item["model"]["title"] for section in news["sections"] for item in section["items"]]
    assert titles == ["First & foremost", "Second"]

    # SIGTERM with a held long poll and an open event stream: both are ended, the process exits 0, quickly
    held = {}

    def hold():
        answer = requests.get(f"{lists}/fruits/diff", params={"from": 2, "wait": 30}, timeout=40)
        held["status"], held["retry"] = answer.status_code, answer.headers.get("Retry-After")

    holder = threading.Thread(target=hold)
    holder.start()
    stream = requests.get(f"{lists}/fruits/events", params={"from": 2}, stream=True, timeout=40)
    assert stream.status_code == 200
    time.sleep(0.5)
    started = time.monotonic()
    podman("stop", "-t", "10", container.name)
    stop_ms = round((time.monotonic() - started) * 1000)
    Figures.values["stop_ms"] = stop_ms
    holder.join(10)
    assert held == {"status": 503, "retry": "1"}, held
    assert b"".join(stream.iter_content(chunk_size=None)) is not None  # the stream ended instead of hanging
    state = container.state()
    assert state["ExitCode"] == 0, logs(container.name)
    assert stop_ms < 5000, f"podman stop took {stop_ms} ms"

    # the same container started again, then a new container on the same named volume: the data is there
    podman("start", container.name)
    container.wait_healthy()
    assert requests.get(f"{lists}/fruits", timeout=10).json()["revision"] == 2
    container.remove()
    again = Container(name("again"), image, volumes=[f"{volume}:/data"])
    containers.append(again)
    again.run()
    again.wait_healthy()
    r = requests.get(f"{again.url}/v1/lists/fruits", params={"revision": 1}, timeout=10)
    assert r.status_code == 200 and [i["id"] for i in r.json()["sections"][0]["items"]] == ["apple", "banana"]
    assert requests.get(f"{again.url}/v1/lists/news", timeout=10).status_code == 200


@pytest.mark.skipif(pg_support.cluster_dir() is None, reason="needs the throwaway PostgreSQL cluster (scripts/test.sh)")
def test_runs_on_postgresql_through_its_url(image, cleanup):
    containers, _ = cleanup
    url = pg_support.new_database_url("container")
    # the cluster listens on loopback only, so this container shares the host's network
    container = Container(name("pg"), image, network="host",
                          env={"LISTDELTA_DATABASE_URL": url, "LISTDELTA_HOST": "127.0.0.1"})
    containers.append(container)
    container.run()
    container.wait_healthy()
    lists = f"{container.url}/v1/lists"
    assert requests.put(f"{lists}/shared", json=doc("a"), headers=container.headers(), timeout=10).status_code == 201
    podman("restart", "-t", "10", container.name)
    container.wait_healthy()
    assert requests.get(f"{lists}/shared", timeout=10).json()["revision"] == 1
    # the same database from the host: the revision is in PostgreSQL, not in the container
    out = subprocess.run(["psql", url.split("?")[0], "-At", "-c", "select count(*) from list_head"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and int(out.stdout.strip() or 0) >= 1, out.stderr


def run_to_exit(image, env, volumes=(), timeout=90):
    """Runs a container that is expected to refuse to start; its exit code, its own output (not podman's) and the
    seconds it took."""
    container = name("refuse")
    command = ["run", "-d", "--name", container, *LIMITS]
    for key, value in env.items():
        command += ["-e", f"{key}={value}"]
    for volume in volumes:
        command += ["-v", volume]
    started = time.monotonic()
    try:
        podman(*command, image)
        code = int(podman("wait", container, timeout=timeout).stdout.strip())
        took = time.monotonic() - started
        return code, logs(container), took
    finally:
        podman("rm", "-f", "-v", container, check=False)


def test_a_missing_secret_a_read_only_volume_or_an_unreachable_database_give_one_line_and_an_exit(image, tmp_path):
    # no write token while bound to 0.0.0.0
    code, out, _ = run_to_exit(image, {})
    assert code != 0 and "LISTDELTA_WRITE_TOKENS" in out, out
    # a volume the service's user cannot write
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o755)
    code, out, _ = run_to_exit(image, {"LISTDELTA_WRITE_TOKENS": TOKEN}, [f"{locked}:/data"])
    lines = [line for line in out.splitlines() if line.strip()]
    assert code != 0 and len(lines) == 1 and "cannot open the store" in lines[0], out
    # a database that does not answer: it gives up within its timeout instead of looping
    code, out, took = run_to_exit(image, {
        "LISTDELTA_WRITE_TOKENS": TOKEN,
        "LISTDELTA_DATABASE_URL": "postgres://listdelta@127.0.0.1:1/listdelta?sslmode=disable",
        "LISTDELTA_DATABASE_TIMEOUT_SECONDS": "2"})
    assert code != 0 and "cannot start" in out and took < 50, (code, took, out)


def test_needs_no_network_at_run_time(image, cleanup):
    containers, _ = cleanup
    container = Container(name("offline"), image, args=[])
    containers.append(container)
    # no network at all but loopback inside: it still starts and serves (checked from inside, with its own probe)
    podman("run", "-d", "--name", container.name, "--network", "none", *LIMITS, "-e", f"LISTDELTA_WRITE_TOKENS={TOKEN}",
           image)
    wait_until(lambda: container.exec("listdelta", "health").returncode == 0, 30,
               lambda: f"not healthy without a network: {logs(container.name)}")
