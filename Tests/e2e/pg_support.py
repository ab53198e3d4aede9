"""The throwaway PostgreSQL cluster of the end-to-end suite (scripts/postgres-cluster.sh), started by scripts/test.sh
and named by LISTDELTA_TEST_POSTGRES_DIR. Plain functions; the fixtures live in conftest.py and the tests."""

import os
import re
import subprocess
import uuid
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "postgres-cluster.sh"


def cluster_dir():
    """The cluster's directory, or None when the suite runs without one."""
    return os.environ.get("LISTDELTA_TEST_POSTGRES_DIR") or None


def _run(*args):
    """Runs the script on the cluster; its last line of output. Raises RuntimeError with its messages on failure."""
    directory = cluster_dir()
    if directory is None:
        raise RuntimeError("no PostgreSQL cluster: LISTDELTA_TEST_POSTGRES_DIR is not set (scripts/test.sh sets it)")
    command = ["bash", str(SCRIPT), args[0], directory, *args[1:]]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"{' '.join(command[2:])} took over 90 s") from error
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(command[2:])} failed ({out.returncode}): {out.stderr.strip()}")
    lines = out.stdout.strip().splitlines()
    return lines[-1] if lines else ""


def new_database_url(prefix="t"):
    """A fresh, empty database of the cluster, owned by listdelta, named PREFIX_<random>; its URL."""
    prefix = re.sub(r"[^a-z0-9_]", "_", prefix.lower())[:40] or "t"
    if prefix[0].isdigit():
        prefix = "_" + prefix
    return _run("createdb", f"{prefix}_{uuid.uuid4().hex[:16]}")


def pause():
    """Stops the server at once, as an outage would (its data and port are kept)."""
    _run("pause")


def resume():
    """Starts it again on the same port, with its data; returns once it accepts connections."""
    _run("resume")
