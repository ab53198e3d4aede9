"""Many lists over one connection: /v1/events?lists= (one event stream) and /v1/diffs?lists= (one long poll)."""

import json
import random
import threading
import time

from conftest import assert_problem, sections_doc, uid
from listdelta_apply import apply_batch_diff, canon_sections


def _doc(items):
    return sections_doc(("s", "S", items))


def _cursor(revisions):
    return ",".join(f"{lid}:{rev}" for lid, rev in revisions.items())


class Replicas:
    """What a client following many lists holds: each list's document, advanced by the events it receives."""

    def __init__(self, server, ids):
        self.server = server
        self.docs = {lid: None for lid in ids}
        self.revisions = {lid: 0 for lid in ids}
        self.seen = {lid: [] for lid in ids}

    def apply(self, ev):
        data = json.loads(ev["data"])
        lid = data["id"]
        if ev["event"] == "reset":
            self.revisions[lid] = data["current"]
            self.docs[lid] = self.server.doc(lid, data["current"]) if data["current"] else None
            return data
        assert data["from"] == self.revisions[lid], (lid, data["from"], self.revisions[lid])
        old = self.docs[lid] or {"sections": []}
        self.docs[lid] = apply_batch_diff(old, data)
        self.revisions[lid] = data["to"]
        self.seen[lid].append(data["to"])
        # The event's id is the whole set's cursor after it.
        assert ev["id"] == _cursor(self.revisions), (ev["id"], self.revisions)
        return data

    def matches_server(self):
        for lid, doc in self.docs.items():
            if doc is None:
                assert self.revisions[lid] == 0 and self.server.get(lid).status_code == 404, lid
                continue
            current = self.server.doc(lid)
            assert self.revisions[lid] == current["revision"], lid
            assert doc == {"sections": canon_sections(current)}, lid


def test_one_stream_sees_every_revision_of_a_burst_across_50_lists_in_order_once_each(server):
    ids = [uid("m") for _ in range(50)]
    for lid in ids[:25]:
        server.put(lid, _doc(["a"]))  # half exist at the start, half are created by the burst
    replicas = Replicas(server, ids)
    c = server.sse("/v1/events?lists=" + _cursor(replicas.revisions))
    try:
        assert c.status == 200
        assert c.headers["content-type"].split(";")[0] == "text/event-stream"
        for _ in range(25):  # the catch-up: one diff from 0 for each list that exists
            replicas.apply(c.next_event(5))
        assert all(replicas.revisions[lid] == 1 for lid in ids[:25])
        writes = {lid: [] for lid in ids}
        rng = random.Random(16)
        for _ in range(200):
            lid = rng.choice(ids)
            items = rng.sample("abcdefghij", rng.randint(1, 6))
            writes[lid].append(server.put(lid, _doc(items)).json()["revision"])
        expected = sum(len(revs) for revs in writes.values())
        for _ in range(expected):
            ev = c.next_event(5)
            assert ev is not None and ev["event"] == "diff", ev
            replicas.apply(ev)
        for lid in ids:
            # Every revision, in order, once each (lists that existed had revision 1 before the burst).
            assert replicas.seen[lid] == ([1] if lid in ids[:25] else []) + writes[lid], lid
        replicas.matches_server()
        try:
            ev = c.next_event(0.5)
            raise AssertionError(f"an event too many: {ev}")
        except TimeoutError:
            pass
    finally:
        c.close()


def test_last_event_id_resumes_every_list_after_a_dropped_connection(server):
    ids = [uid("r") for _ in range(5)]
    for lid in ids:
        server.put(lid, _doc(["a"]))
    replicas = Replicas(server, ids)
    target = "/v1/events?lists=" + _cursor(replicas.revisions)
    c = server.sse(target)
    last_id = None
    try:
        for _ in ids:
            ev = c.next_event(5)
            replicas.apply(ev)
            last_id = ev["id"]
    finally:
        c.close()  # the connection drops
    for k, lid in enumerate(ids):  # written while the client is away
        for n in range(k):
            server.put(lid, _doc(["a", f"x{n}"]))
    c = server.sse(target, headers={"Last-Event-ID": last_id})  # what EventSource sends when it reconnects
    try:
        moved = [lid for k, lid in enumerate(ids) if k > 0]
        for _ in moved:
            replicas.apply(c.next_event(5))
        replicas.matches_server()
    finally:
        c.close()


def test_a_deleted_list_gets_its_own_reset_while_the_others_go_on(server):
    a, b, gone = uid("a"), uid("b"), uid("gone")
    for lid in (a, b, gone):
        server.put(lid, _doc(["x"]))
    replicas = Replicas(server, [a, b, gone])
    c = server.sse("/v1/events?lists=" + _cursor(replicas.revisions))
    try:
        for _ in range(3):
            replicas.apply(c.next_event(5))
        server.delete(gone)
        ev = c.next_event(5)
        assert ev["event"] == "reset" and json.loads(ev["data"]) == {"id": gone, "current": 0}
        assert ev["id"] == f"{a}:1,{b}:1,{gone}:0"
        replicas.apply(ev)
        server.put(a, _doc(["x", "y"]))
        ev = c.next_event(5)
        assert ev["event"] == "diff" and json.loads(ev["data"])["id"] == a
        replicas.apply(ev)
        # Created again, the deleted list comes back on the same stream as a diff from 0.
        again = server.put(gone, _doc(["n"])).json()["revision"]
        ev = c.next_event(5)
        data = replicas.apply(ev)
        assert (data["id"], data["from"], data["to"]) == (gone, 0, again)
        replicas.matches_server()
    finally:
        c.close()


def test_a_pruned_revision_gets_a_reset_for_that_list_only(make_server):
    s = make_server(["--retention", "3"])
    old, fresh = uid("old"), uid("fresh")
    for k in range(6):
        s.put(old, _doc([f"i{k}"]))
    s.put(fresh, _doc(["a"]))
    c = s.sse(f"/v1/events?lists={old}:1,{fresh}:0")
    try:
        events = [c.next_event(5), c.next_event(5)]
        assert events[0]["event"] == "reset" and json.loads(events[0]["data"]) == {"id": old, "current": 6}
        assert events[1]["event"] == "diff" and json.loads(events[1]["data"])["id"] == fresh
        assert events[1]["id"] == f"{old}:6,{fresh}:1"
        s.put(old, _doc(["z"]))  # followed on from the reset's revision
        ev = c.next_event(5)
        assert ev["event"] == "diff" and (json.loads(ev["data"])["from"], json.loads(ev["data"])["to"]) == (6, 7)
    finally:
        c.close()
    r = s.get(f"/v1/diffs?lists={old}:2,{fresh}:1")
    assert r.status_code == 200
    assert r.json() == {"diffs": [], "resets": [{"id": old, "current": 7}]}


def test_many_lists_poll_answers_within_a_second_of_a_write_to_any_of_its_lists(server):
    ids = [uid("p") for _ in range(10)]
    for lid in ids:
        server.put(lid, _doc(["a"]))
    held = {lid: 1 for lid in ids}
    for written in (ids[7], ids[0], ids[9]):
        timer = threading.Timer(0.3, lambda lid=written: server.put(lid, _doc(["a", "b"])))
        started = time.monotonic()
        timer.start()
        r = server.get("/v1/diffs", params={"lists": _cursor(held), "wait": "20"})
        elapsed = time.monotonic() - started
        timer.join()
        assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
        body = r.json()
        assert [d["id"] for d in body["diffs"]] == [written] and body["resets"] == []
        diff = body["diffs"][0]
        assert (diff["from"], diff["to"]) == (1, 2)
        assert apply_batch_diff(server.doc(written, 1), diff) == {"sections": canon_sections(server.doc(written, 2))}
        assert 0.3 <= elapsed < 1.3, elapsed
        held[written] = 2
    # Nothing moved: an empty answer at the end of the wait.
    started = time.monotonic()
    r = server.get("/v1/diffs", params={"lists": _cursor(held), "wait": "0.5"})
    assert r.json() == {"diffs": [], "resets": []}
    assert 0.4 <= time.monotonic() - started < 2


def test_many_lists_poll_answers_at_once_for_every_list_that_moved_in_the_clients_order(server):
    a, b, c, missing = uid("a"), uid("b"), uid("c"), uid("missing")
    for lid in (a, b, c):
        server.put(lid, _doc(["1"]))
        server.put(lid, _doc(["1", "2"]))
    r = server.get("/v1/diffs", params={"lists": f"{c}:1,{b}:2,{a}:0,{missing}:0,gone-{missing}:3", "wait": "30"})
    body = r.json()
    assert [(d["id"], d["from"], d["to"]) for d in body["diffs"]] == [(c, 1, 2), (a, 0, 2)]
    assert body["resets"] == [{"id": f"gone-{missing}", "current": 0}]


def test_more_lists_than_allowed_is_a_clear_400(make_server):
    s = make_server(env={"LISTDELTA_MAX_LISTS_PER_REQUEST": "5"})
    six = ",".join(f"l{k}:0" for k in range(6))
    for path in ("/v1/diffs", "/v1/events"):
        body = assert_problem(s.get(path, params={"lists": six}), 400)
        assert "at most 5" in body["detail"], body
    assert s.get("/v1/diffs", params={"lists": ",".join(f"l{k}:0" for k in range(5))}).status_code == 200


def test_a_malformed_entry_fails_the_whole_request_with_a_pointer_to_it(server):
    lid = uid("ok")
    server.put(lid, _doc(["a"]))
    for lists, pointer in [
        (f"{lid}:0,bad id:1", "/lists/1"), (f"{lid}:0,x:y", "/lists/1"), (f"{lid}", "/lists/0"),
        (f"{lid}:0,{lid}:1", "/lists/1"), (f"{lid}:0,x:1,..:2", "/lists/2"), (f"{lid}:0,x:1,y:-3", "/lists/2"),
    ]:
        for path in ("/v1/diffs", "/v1/events"):
            body = assert_problem(server.get(path, params={"lists": lists}), 400)
            assert body["pointer"] == pointer, (lists, body)
    assert_problem(server.get("/v1/diffs"), 400)
    body = assert_problem(server.get("/v1/events", params={"lists": f"{lid}:0"}, headers={"Last-Event-ID": f"{lid}:zz"}), 400)
    assert body["pointer"] == "/Last-Event-ID/0"
    body = assert_problem(server.get("/v1/diffs", params={"lists": f"{lid}:0", "wait": "-1"}), 400)


def test_a_hundred_lists_with_the_longest_ids_fit_in_one_request(server):
    ids = [f"{k:03d}" + "x" * 125 for k in range(100)]
    server.put(ids[42], _doc(["a"]))
    cursor = ",".join(f"{lid}:0" for lid in ids)
    r = server.get("/v1/diffs", params={"lists": cursor})
    assert r.status_code == 200 and [d["id"] for d in r.json()["diffs"]] == [ids[42]]
    c = server.sse("/v1/events?lists=" + cursor, headers={"Last-Event-ID": cursor})
    try:
        assert c.status == 200
        ev = c.next_event(5)
        assert ev["id"] == cursor.replace(f"{ids[42]}:0", f"{ids[42]}:1")
    finally:
        c.close()
