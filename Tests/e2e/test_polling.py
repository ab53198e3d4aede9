"""Long polling on /diff?wait=S."""

import threading
import time

from conftest import assert_problem, hold_cursor, sections_doc, uid
from listdelta_apply import is_empty_diff


def _poll_in_thread(server, path, params, result):
    def run():
        try:
            r = server.get(path, params=params, timeout=30)
            result["status"] = r.status_code
            result["body"] = r.json() if r.content else None
        except Exception as e:  # noqa: BLE001 - reported by the test
            result["error"] = repr(e)
        result["at"] = time.monotonic()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_held_poll_wakes_on_write(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    res = {}
    t = _poll_in_thread(server, f"/v1/lists/{lid}/diff", {"from": rev, "wait": 10, "cursor": hold_cursor()}, res)
    time.sleep(1.0)
    assert t.is_alive(), f"poll answered without a write: {res}"
    server.put(lid, sections_doc(("s", "S", ["a", "b"])))
    wrote = time.monotonic()
    t.join(5)
    assert not t.is_alive()
    assert res.get("status") == 200, res
    assert res["at"] - wrote < 1.0
    d = res["body"]
    assert (d["from"], d["to"]) == (rev, rev + 1) and len(d["items"]["inserted"]) == 1


def test_poll_times_out_with_empty_diff(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    t0 = time.monotonic()
    r = server.get(f"/v1/lists/{lid}/diff", params={"from": rev, "wait": 1, "cursor": hold_cursor()}, timeout=10)
    took = time.monotonic() - t0
    assert r.status_code == 200
    d = r.json()
    assert d["from"] == d["to"] == rev and is_empty_diff(d)
    assert 0.8 <= took < 5, took


def test_poll_not_held_when_behind_or_to_given(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    b = server.put(lid, sections_doc(("s", "S", ["b"]))).json()["revision"]
    t0 = time.monotonic()
    r = server.get(f"/v1/lists/{lid}/diff", params={"from": a, "wait": 10}, timeout=10)
    assert r.status_code == 200 and r.json()["to"] == b
    r = server.get(f"/v1/lists/{lid}/diff", params={"from": b, "to": b, "wait": 10}, timeout=10)
    assert r.status_code == 200 and is_empty_diff(r.json())
    assert time.monotonic() - t0 < 3


def test_wait_clamped_by_max_wait(make_server):
    s = make_server(["--max-wait", "2"])
    lid = uid()
    rev = s.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    t0 = time.monotonic()
    r = s.get(f"/v1/lists/{lid}/diff", params={"from": rev, "wait": 60, "cursor": hold_cursor()}, timeout=15)
    took = time.monotonic() - t0
    assert r.status_code == 200
    assert r.json()["from"] == r.json()["to"] == rev
    assert 1.5 <= took < 6, took


def test_held_poll_answers_404_on_delete(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    res = {}
    t = _poll_in_thread(server, f"/v1/lists/{lid}/diff", {"from": rev, "wait": 10, "cursor": hold_cursor()}, res)
    time.sleep(0.5)
    assert server.delete(lid).status_code == 204
    t.join(5)
    assert not t.is_alive()
    assert res.get("status") == 404, res
