"""Shutdown, restart and kill -9 durability."""

import random
import threading
import time

import requests

from conftest import Server, sections_doc, uid
from listdelta_apply import apply_batch_diff, apply_json_patch, canon_sections


def test_sigterm_exits_zero(make_server):
    s = make_server()
    lid = uid()
    rev = s.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    # a held poll and an open event stream must not keep the server from stopping
    res = {}

    def poll():
        try:
            res["status"] = s.get(f"/v1/lists/{lid}/diff", params={"from": rev, "wait": 30}, timeout=30).status_code
        except requests.RequestException as e:
            res["error"] = repr(e)

    t = threading.Thread(target=poll, daemon=True)
    t.start()
    c = s.sse(f"/v1/lists/{lid}/events?from={rev}")
    time.sleep(0.5)
    t0 = time.monotonic()
    rc = s.stop(timeout=15)
    c.close()
    assert rc == 0, s.output()
    assert time.monotonic() - t0 < 15
    t.join(5)
    assert not t.is_alive()


def test_restart_keeps_everything(make_server, tmp_path):
    data = tmp_path / "db"
    data.mkdir()
    s = make_server(data_dir=data)
    lists = {}
    for n in range(3):
        lid = uid()
        for k in range(4):
            s.put(lid, sections_doc(("s", f"T{k}", [f"i{j}" for j in range(k + n)]), ("t", None, [f"x{k}"])))
        lists[lid] = s.doc(lid)["revision"]
    short = uid()
    s.put(short, {"kind": "array", "title": "Fruits", "items": [{"id": "a", "cell": "C"}]})
    lists[short] = 1
    snap = {}
    for lid, cur in lists.items():
        for r in range(1, cur + 1):
            snap[(lid, "doc", r)] = s.doc(lid, r)
        for a in range(0, cur + 1):
            snap[(lid, "diff", a)] = s.diff(lid, a, cur)
            snap[(lid, "patch", a)] = s.diff(lid, a, cur, fmt="json-patch")
    summary = s.get("/v1/lists", params={"limit": 1000}).json()
    assert s.stop() == 0
    s.start()
    assert s.get("/v1/lists", params={"limit": 1000}).json() == summary
    for lid, cur in lists.items():
        assert s.doc(lid)["revision"] == cur
        for r in range(1, cur + 1):
            assert s.doc(lid, r) == snap[(lid, "doc", r)]
        for a in range(0, cur + 1):
            assert s.diff(lid, a, cur) == snap[(lid, "diff", a)]
            assert s.diff(lid, a, cur, fmt="json-patch") == snap[(lid, "patch", a)]
    lid = next(iter(lists))
    r = s.put(lid, sections_doc(("s", "after restart", [])))
    assert r.json()["revision"] == lists[lid] + 1


def test_kill9_durability(make_server, tmp_path):
    data = tmp_path / "db"
    data.mkdir()
    s = make_server(["--retention", "100000"], data_dir=data)
    lid = uid()
    acked = []
    failures = []
    stop = threading.Event()

    def writer():
        expected = None
        for i in range(1, 2001):
            if stop.is_set():
                return
            try:
                if i % 3 == 0 and expected is not None:
                    ops = [{"op": "replace", "path": "/sections/0/items/0/model", "value": {"n": i}},
                           {"op": "add", "path": "/sections/0/items/-", "value": {"id": f"p{i}", "cell": "P", "model": i}}]
                    nxt = {"sections": canon_sections(apply_json_patch(expected, ops))}
                    r = s.patch(lid, ops)
                else:
                    # Rewritten wholesale: every item but the first is new, so each revision's undo diff is as
                    # large as the document (the old revisions are read back below, after the restart).
                    body = sections_doc(("s", f"T{i}", [{"id": "first", "cell": "C", "model": {"n": i}}] + [f"i{i}-{j}" for j in range(40 + i % 7)]),
                                        ("u", None, [f"u{i % 5}"]))
                    nxt = {"sections": canon_sections(body)}
                    r = s.put(lid, body)
            except requests.RequestException:
                return
            if r.status_code not in (200, 201):
                failures.append((r.status_code, r.text[:300]))
                return
            acked.append((r.json()["revision"], nxt))
            expected = nxt

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    time.sleep(3.0)
    s.kill9()
    stop.set()
    t.join(15)
    assert not t.is_alive()
    assert not failures, failures
    assert len(acked) >= 10, len(acked)
    revs = [r for r, _ in acked]
    assert revs == list(range(revs[0], revs[0] + len(revs)))
    s.start()
    cur = s.doc(lid)["revision"]
    assert cur in (revs[-1], revs[-1] + 1)
    rnd = random.Random(9)
    docs = {}
    # Every acknowledged revision, read back after the restart (each rebuilt the cheaper way: not walked back through
    # every wholesale rewrite since).
    for rev, want in acked:
        got = s.doc(lid, rev)
        assert got["revision"] == rev
        assert canon_sections(got) == want["sections"], rev
        docs[rev] = got
    keys = sorted(docs)
    for _ in range(20):
        a, b = rnd.choice(keys), rnd.choice(keys)
        d = s.diff(lid, a, b)
        assert apply_batch_diff(docs[a], d) == {"sections": canon_sections(docs[b])}, (a, b)
    assert s.put(lid, sections_doc(("s", "post", []))).json()["revision"] == cur + 1
