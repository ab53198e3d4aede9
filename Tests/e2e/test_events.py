"""Server-Sent Events on /events."""

import json

from conftest import assert_problem, sections_doc, uid
from listdelta_apply import apply_batch_diff, canon_sections


def test_first_event_then_one_per_write(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    b = server.put(lid, sections_doc(("s", "S", ["a", "b"]))).json()["revision"]
    c = server.sse(f"/v1/lists/{lid}/events?from={a}")
    try:
        assert c.status == 200
        assert c.headers["content-type"].split(";")[0] == "text/event-stream"
        ev = c.next_event(5)
        assert ev["event"] == "diff" and ev["id"] == str(b)
        d = json.loads(ev["data"])
        assert (d["from"], d["to"]) == (a, b)
        server.put(lid, sections_doc(("s", "S", ["b"])))
        ev = c.next_event(5)
        assert ev["event"] == "diff" and ev["id"] == str(b + 1)
        d = json.loads(ev["data"])
        assert (d["from"], d["to"]) == (b, b + 1)
        assert apply_batch_diff(server.doc(lid, b), d) == {"sections": canon_sections(server.doc(lid, b + 1))}
    finally:
        c.close()


def test_from_current_sends_nothing_until_write(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    c = server.sse(f"/v1/lists/{lid}/events?from={a}")
    try:
        assert c.status == 200
        try:
            ev = c.next_event(1.0)
            raise AssertionError(f"unexpected event {ev}")
        except TimeoutError:
            pass
        server.put(lid, sections_doc(("s", "S", ["z"])))
        ev = c.next_event(5)
        assert ev["event"] == "diff" and ev["id"] == str(a + 1)
    finally:
        c.close()


def test_last_event_id_resumes(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    b = server.put(lid, sections_doc(("s", "S", ["b"]))).json()["revision"]
    c2 = server.put(lid, sections_doc(("s", "S", ["c"]))).json()["revision"]
    c = server.sse(f"/v1/lists/{lid}/events?from={a}", headers={"Last-Event-ID": str(b)})
    try:
        ev = c.next_event(5)
        d = json.loads(ev["data"])
        assert ev["event"] == "diff" and (d["from"], d["to"]) == (b, c2) and ev["id"] == str(c2)
    finally:
        c.close()


def test_delete_sends_reset_and_ends(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    c = server.sse(f"/v1/lists/{lid}/events?from={a}")
    try:
        assert c.status == 200
        server.delete(lid)
        ev = c.next_event(5)
        assert ev["event"] == "reset" and json.loads(ev["data"]) == {"current": 0}
        assert c.next_event(5) is None
    finally:
        c.close()


def test_pruned_from_sends_reset(make_server):
    s = make_server(["--retention", "3"])
    lid = uid()
    for k in range(6):
        s.put(lid, sections_doc(("s", f"T{k}", ["a"])))
    c = s.sse(f"/v1/lists/{lid}/events?from=1")
    try:
        assert c.status == 200
        ev = c.next_event(5)
        assert ev["event"] == "reset" and json.loads(ev["data"]) == {"current": 6}
        assert c.next_event(5) is None
    finally:
        c.close()


def test_events_unknown_list_404(server):
    c = server.sse(f"/v1/lists/{uid('nope')}/events?from=0")
    try:
        assert c.status == 404
        assert c.headers["content-type"].split(";")[0] == "application/problem+json"
    finally:
        c.close()


def test_event_stream_not_held_back_by_gzip(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    b = server.put(lid, sections_doc(("s", "S", ["b"]))).json()["revision"]
    c = server.sse(f"/v1/lists/{lid}/events?from={a}", headers={"Accept-Encoding": "gzip"})
    try:
        ev = c.next_event(3)
        assert ev["event"] == "diff" and ev["id"] == str(b)
    finally:
        c.close()
