"""Stopping and starting as an orchestrator sees it: the drain before a stop (readiness), 503s that say when to
retry, `listdelta health`, and start-up failures that give one clear line and a failing exit instead of a loop."""

import os
import signal
import subprocess
import threading
import time

import requests

from conftest import BIN, held_diff_poll, sections_doc, uid


def test_drain_keeps_serving_while_healthz_says_draining_then_stops(make_server):
    server = make_server(env={"LISTDELTA_DRAIN_SECONDS": "3"})
    lid = uid()
    revision = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    poll, polled = held_diff_poll(server, lid, revision, wait=30)
    time.sleep(0.3)
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    deadline = started + 2
    while True:
        health = server.get("/healthz")
        if health.status_code == 503 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert health.status_code == 503, "/healthz did not turn 503 when the drain began"
    assert health.headers["Content-Type"].startswith("application/problem+json")
    assert "draining" in health.json()["detail"] and health.headers["Retry-After"]
    # still serving everything else: a write, a read, the held poll woken by it
    r = server.put(lid, sections_doc(("s", "S", ["a", "b"])))
    assert r.status_code == 200, r.text
    assert server.doc(lid)["revision"] == revision + 1
    poll.join(5)
    assert polled["status"] == 200
    # a poll parked during the drain is answered 503 with Retry-After at the stop
    late, answer = held_diff_poll(server, lid, revision + 1, wait=30)
    time.sleep(0.3)
    assert server.proc.wait(15) == 0
    stopped = time.monotonic() - started
    assert stopped >= 2.5, f"stopped {stopped:.1f} s after SIGTERM, before the 3 s drain ended"
    late.join(5)
    assert answer["status"] == 503 and answer["headers"].get("Retry-After"), answer
    server.proc = None


def test_a_second_sigterm_ends_the_drain_at_once(make_server):
    server = make_server(env={"LISTDELTA_DRAIN_SECONDS": "60"})
    server.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 5
    while server.get("/healthz").status_code != 503:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(10) == 0
    server.proc = None


def test_health_command_follows_the_instance(make_server):
    server = make_server()
    env = {**os.environ, "LISTDELTA_PORT": str(server.port)}
    ok = subprocess.run([BIN, "health"], capture_output=True, text=True, timeout=20, env=env)
    assert ok.returncode == 0 and ok.stdout.strip() == "healthy", ok.stderr
    server.stop()
    down = subprocess.run([BIN, "health", "--port", str(server.port)], capture_output=True, text=True, timeout=20)
    assert down.returncode != 0 and "nothing answers" in down.stderr


def run_serve(*args, env=None, timeout=30):
    started = time.monotonic()
    result = subprocess.run([BIN, "serve", "--host", "127.0.0.1", "--port", "0", *map(str, args)],
                            capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
    return result, time.monotonic() - started


def test_an_unusable_data_directory_gives_one_line_and_a_failing_exit(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")
    result, _ = run_serve("--data", not_a_directory / "data")
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot start" in lines[0] and "cannot open the store" in lines[0], result.stderr


def test_an_unreadable_database_file_gives_one_line_and_a_failing_exit(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "listdelta.sqlite").write_bytes(b"this is not a database" * 100)
    result, _ = run_serve("--data", data)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot open the store" in lines[0], result.stderr


def test_an_unreachable_database_url_gives_up_after_the_start_up_wait_instead_of_looping(tmp_path):
    """A database that does not answer at start-up is waited for (30 s: it may be starting too), one line a
    second, then the process exits with one line that names it, without its password."""
    data = tmp_path / "data"
    data.mkdir()
    result, took = run_serve("--data", data, timeout=60, env={
        "LISTDELTA_DATABASE_URL": "postgres://listdelta:hunter2@127.0.0.1:1/listdelta?sslmode=disable",
        "LISTDELTA_DATABASE_TIMEOUT_SECONDS": "2"})
    assert result.returncode != 0
    assert took < 45, f"took {took:.1f} s to give up"
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if "cannot start" in line]
    assert len(fatal) == 1 and "127.0.0.1:1" in fatal[0], result.stderr[-2000:]
    stray = [line for line in lines if line not in fatal and "opening" not in line and "waiting for PostgreSQL" not in line]
    assert not stray, stray
    assert len(lines) < 40 and "hunter2" not in result.stderr


def test_an_unreadable_key_file_gives_one_line_and_a_failing_exit(tmp_path):
    result, _ = run_serve("--data", tmp_path / "d", env={"LISTDELTA_JWT_PUBLIC_KEYS": str(tmp_path / "missing.jwks")})
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "missing.jwks" in lines[0], result.stderr


def test_server_503s_carry_retry_after_when_over_the_connection_limit(make_server):
    server = make_server(env={"LISTDELTA_MAX_CONNECTIONS": "2", "LISTDELTA_MAX_CONNECTIONS_PER_CLIENT": "0"})
    lid = uid()
    revision = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    polls = [held_diff_poll(server, lid, revision, wait=5) for _ in range(2)]
    time.sleep(0.5)
    r = requests.get(server.url("/healthz"), timeout=5)
    assert r.status_code == 503 and r.headers.get("Retry-After") == "1", (r.status_code, r.headers)
    for poll, _ in polls:
        poll.join(10)
