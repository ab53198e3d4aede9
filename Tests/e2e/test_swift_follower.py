"""listdelta-follow, the Swift client's command-line example, against the real server."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, sections_doc, uid

FOLLOW = os.environ.get("LISTDELTA_FOLLOW_BIN", str(REPO / ".build" / "debug" / "listdelta-follow"))


def _follow(server, list_id, *args):
    if not Path(FOLLOW).exists():
        pytest.fail(f"listdelta-follow not found at {FOLLOW} (swift build --product listdelta-follow)")
    return subprocess.Popen(
        [FOLLOW, f"http://127.0.0.1:{server.port}", list_id, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _read_until(proc, marker, timeout=20):
    """Lines of the follower's output up to and including the first that starts with `marker`."""
    lines, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith(marker):
            return lines
    proc.kill()
    pytest.fail(f"no line starting with {marker!r} in: {lines} / {proc.stderr.read()}")


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_follower_prints_each_update_as_a_uikit_batch(server, mode):
    lid = uid()
    server.put(lid, sections_doc(("fruit", "Fruit", ["apple", "pear"]), ("veg", "Veg", ["leek"])))
    proc = _follow(server, lid, "--mode", mode, "--count", "3", "--wait", "5")
    try:
        first = _read_until(proc, "revision 1: first document")
        assert first == ["revision 1: first document"]
        server.put(lid, sections_doc(("fruit", "Fruit", ["pear", "apple", "fig"]), ("veg", "Veg", [])))
        out = _read_until(proc, "revision 2: diff from 1")
        out += _read_until(proc, "}")
        assert out == [
            "reloadData()",
            "§ Fruit [F] (2 items)", "  0. apple  <C>", "  1. pear  <C>",
            "§ Veg [V] (1 item)", "  0. leek  <C>",
            "", "revision 2: diff from 1",
            "performBatchUpdates {",
            "  deleteItems(at: [[1, 0]])",
            "  insertItems(at: [[0, 2]])",
            "  moveItem(at: [0, 0], to: [0, 1])",
            "}",
        ]
        server.put(lid, sections_doc(("veg", "Vegetables", ["leek"]), ("fruit", "Fruit", ["pear", "apple", "fig"])))
        out = _read_until(proc, "revision 3: diff from 2")
        rest = proc.stdout.read()  # to the end: the follower stops after --count 3 updates
        proc.wait(timeout=20)
        stderr = proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert out == [
        "§ Fruit [F] (3 items)", "  0. pear  <C>", "  1. apple  <C>", "  2. fig  <C>",
        "§ Veg [V] (0 items)", "",
        "revision 3: diff from 2",
    ]
    # The section header changed (Veg → Vegetables): reloaded after the batch, at its new index.
    assert rest.splitlines() == [
        "performBatchUpdates {",
        "  moveSection(0, toSection: 1)",
        "  insertItems(at: [[0, 0]])",
        "}",
        "reloadSections([0])",
        "§ Vegetables [V] (1 item)", "  0. leek  <C>",
        "§ Fruit [F] (3 items)", "  0. pear  <C>", "  1. apple  <C>", "  2. fig  <C>",
        "",
    ]


def test_follower_refuses_a_bad_url_and_list_id():
    for args in (["ftp://x", "a"], ["http://127.0.0.1:1", "bad/id"]):
        r = subprocess.run([FOLLOW, *args], capture_output=True, text=True, timeout=30)
        assert r.returncode == 64, r
        assert "Error:" in r.stderr


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_follower_follows_a_live_query_and_skips_writes_outside_it(server, mode):
    lid = uid()
    items = lambda *names: [{"id": n, "cell": "C", "model": {"tag": n[0]}} for n in names]  # noqa: E731
    server.put(lid, {"kind": "sections", "sections": [{"id": "s", "title": "S", "indexTitle": None, "items": items("apple", "bean", "avocado")}]})
    query = '{"where":[{"path":"/model/tag","op":"eq","value":"a"}],"sort":[{"path":"/id","order":"desc"}]}'
    proc = _follow(server, lid, "--mode", mode, "--count", "2", "--wait", "5", "--query", query)
    try:
        first = _read_until(proc, "revision 1: first document")
        assert first == ["revision 1: first document"]
        # Revision 2 leaves the query's result as it was; revision 3 adds an item to it.
        server.put(lid, {"kind": "sections", "sections": [{"id": "s", "title": "S", "indexTitle": None, "items": items("apple", "bean", "bok", "avocado")}]})
        server.put(lid, {"kind": "sections", "sections": [{"id": "s", "title": "S", "indexTitle": None, "items": items("apple", "bean", "bok", "avocado", "apricot")}]})
        out = _read_until(proc, "revision 3: diff from")
        rest = proc.stdout.read()
        proc.wait(timeout=20)
        stderr = proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert out == ["reloadData()", "§ S (2 items)", "  0. avocado  <C>", "  1. apple  <C>", "",
                   "revision 3: diff from 1" if mode == "events" else out[-1]]
    assert out[-1] in ("revision 3: diff from 1", "revision 3: diff from 2")
    assert rest.splitlines() == [
        "performBatchUpdates {", "  insertItems(at: [[0, 1]])", "}",
        "§ S (3 items)", "  0. avocado  <C>", "  1. apricot  <C>", "  2. apple  <C>", "",
    ]


def test_follower_refuses_a_query_that_is_no_json_object():
    r = subprocess.run([FOLLOW, "http://127.0.0.1:1", "a", "--query", "[1]"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 64, r
    assert "--query" in r.stderr
