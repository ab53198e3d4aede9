"""The throwaway PostgreSQL cluster of the end-to-end suite (scripts/postgres-cluster.sh), started by scripts/test.sh
and named by LISTDELTA_TEST_POSTGRES_DIR."""

import os
import subprocess
import uuid
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "postgres-cluster.sh"


def cluster_dir():
    """The cluster's directory, or None when the suite runs without one."""
    return os.environ.get("LISTDELTA_TEST_POSTGRES_DIR") or None


def _run(*args):
    out = subprocess.run(["bash", str(SCRIPT), *args], check=True, capture_output=True, text=True, timeout=60)
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def new_database_url(prefix="t"):
    """A fresh, empty database of the cluster; its URL."""
    return _run("createdb", cluster_dir(), f"{prefix}_{uuid.uuid4().hex[:16]}")


def pause():
    """Stops the server at once, as an outage would."""
    _run("pause", cluster_dir())


def resume():
    """Starts it again on the same port, with its data."""
    _run("resume", cluster_dir())
