"""Backups under writes: `listdelta backup` copies a running SQLite store, and the copy serves every revision that
was acknowledged before the backup began; PostgreSQL's pg_dump/pg_restore round trip, as docs/deployment.md gives it."""

import os
import shutil
import subprocess
import threading
import time

import pytest

import pg_support
from conftest import BIN, STORE, Server, sections_doc, uid

pytestmark = pytest.mark.skipif(STORE != "sqlite", reason="the SQLite backup runs on the SQLite store; the "
                                "PostgreSQL round trip below makes its own databases")


class Writer:
    """Writes lists without pause from a thread and records every acknowledged (list, revision) with the document
    the write was meant to leave, and when the acknowledgement arrived."""

    def __init__(self, server, lists=4):
        self.server = server
        self.lists = [uid("bk") for _ in range(lists)]
        self.acknowledged = []  # (monotonic time, list, revision, items)
        self.errors = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        step = 0
        while not self.stopping.is_set():
            lid = self.lists[step % len(self.lists)]
            items = [f"i{step}-{k}" for k in range(step % 7 + 1)]
            try:
                r = self.server.put(lid, sections_doc(("s", "S", items)))
                if r.status_code in (200, 201):
                    self.acknowledged.append((time.monotonic(), lid, r.json()["revision"], items))
                else:
                    self.errors.append(r.status_code)
            except Exception as error:  # noqa: BLE001 - recorded, asserted on below
                self.errors.append(repr(error))
            step += 1

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(10)

    def wait_for(self, count, timeout=30):
        deadline = time.monotonic() + timeout
        while len(self.acknowledged) < count:
            assert time.monotonic() < deadline, f"only {len(self.acknowledged)} writes acknowledged"
            time.sleep(0.02)


def items_of(document):
    return [item["id"] for item in document["sections"][0]["items"]]


def assert_serves(server, acknowledged):
    """`server` serves each acknowledged revision with the items that write left."""
    for _, lid, revision, items in acknowledged:
        r = server.get(f"/v1/lists/{lid}", params={"revision": revision})
        assert r.status_code == 200, f"{lid}@{revision}: {r.status_code} {r.text[:200]}"
        assert items_of(r.json()) == items, f"{lid}@{revision}"


def run_backup(*args, env=None):
    return subprocess.run([BIN, "backup", *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_backup_of_a_running_store_under_writes_serves_every_acknowledged_revision(make_server, tmp_path):
    server = make_server()
    target = tmp_path / "restored"
    target.mkdir()
    with Writer(server) as writer:
        writer.wait_for(150)
        began = time.monotonic()
        before = [w for w in writer.acknowledged if w[0] < began]
        result = run_backup("--data", server.data_dir, "--to", target)
        count_at_end = len(writer.acknowledged)
        writer.wait_for(count_at_end + 20)  # writes went on during and after the copy
    assert result.returncode == 0, result.stderr
    assert "backed up" in result.stdout and (target / "listdelta.sqlite").exists()
    assert not writer.errors, writer.errors[:5]
    assert not list(target.glob("*.partial")), "the partial copy was left behind"

    restored = Server(target).start()
    try:
        assert_serves(restored, before)
        # The copy is one instant: every list's head there is a revision the writer was acknowledged for, with the
        # document it left (never a torn write), and no list is behind what was acknowledged before the backup.
        acknowledged = {(lid, revision): items for _, lid, revision, items in writer.acknowledged}
        for lid in writer.lists:
            head = restored.doc(lid)
            assert items_of(head) == acknowledged[(lid, head["revision"])]
            latest_before = max((rev for _, l, rev, _ in before if l == lid), default=0)
            assert head["revision"] >= latest_before
    finally:
        restored.stop()


def test_backup_refuses_what_it_cannot_do_with_one_clear_line(tmp_path):
    # No database in the data directory: nothing is created there or at the destination.
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_backup("--data", empty, "--to", tmp_path / "copy.sqlite")
    assert result.returncode != 0
    assert "there is no database" in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert list(empty.iterdir()) == [] and not (tmp_path / "copy.sqlite").exists()


def test_backup_never_overwrites_and_names_pg_dump_for_postgres(make_server, tmp_path):
    server = make_server()
    server.put(uid(), sections_doc(("s", "S", ["a"])))
    existing = tmp_path / "existing.sqlite"
    existing.write_bytes(b"keep me")
    result = run_backup("--data", server.data_dir, "--to", existing)
    assert result.returncode != 0 and "exists" in result.stderr
    assert existing.read_bytes() == b"keep me"

    result = run_backup("--to", tmp_path / "x.sqlite", env={"LISTDELTA_DATABASE_URL": "postgres://u@127.0.0.1:1/db"})
    assert result.returncode != 0 and "pg_dump" in result.stderr
    assert not (tmp_path / "x.sqlite").exists()


@pytest.mark.skipif(pg_support.cluster_dir() is None, reason="needs the throwaway PostgreSQL cluster (scripts/test.sh)")
def test_postgres_pg_dump_and_pg_restore_round_trip_under_writes(tmp_path):
    """docs/deployment.md's commands (Backups): `pg_dump --format=custom` while instances write, `pg_restore --no-owner` into an
    empty database, and an instance on it serves every revision acknowledged before the dump began."""
    for tool in ("pg_dump", "pg_restore"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed (Debian package postgresql-client)")
    source_url = pg_support.new_database_url("backup_source")
    data = tmp_path / "a"
    data.mkdir()
    server = Server(data, ["--database-url", source_url]).start()
    dump = tmp_path / "listdelta.dump"
    try:
        with Writer(server) as writer:
            writer.wait_for(100)
            began = time.monotonic()
            before = [w for w in writer.acknowledged if w[0] < began]
            result = subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", f"--dbname={source_url}"],
                                    capture_output=True, text=True, timeout=120)
            writer.wait_for(len(writer.acknowledged) + 20)
        assert result.returncode == 0, result.stderr
        assert not writer.errors, writer.errors[:5]
    finally:
        server.stop()

    restored_url = pg_support.new_database_url("backup_restored")
    result = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={restored_url}", str(dump)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    data = tmp_path / "b"
    data.mkdir()
    restored = Server(data, ["--database-url", restored_url]).start()
    try:
        assert_serves(restored, before)
        # and it takes writes, numbered after what it holds
        lid = writer.lists[0]
        head = restored.doc(lid)["revision"]
        r = restored.put(lid, sections_doc(("s", "S", ["after-restore"])))
        assert r.status_code == 200 and r.json()["revision"] == head + 1
    finally:
        restored.stop()
