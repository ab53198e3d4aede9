"""Idempotency-Key on writes (issue 41): the first answer of a write with a key is kept with its list, as durably
as the revision it made, and answered again to the same key with the same request (Idempotent-Replayed: true),
writing nothing: after kill -9, under concurrent resends, and (on PostgreSQL) on another instance.

Runs on the store the suite runs on (LISTDELTA_E2E_STORE); the cross-instance tests need the suite's cluster."""

import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from conftest import assert_problem, sections_doc, uid


def doc(n):
    return sections_doc(("s", f"T{n}", [{"id": "a", "model": {"n": n}}]))


def add_item(item_id):
    return [{"op": "add", "path": "/sections/0/items/-", "value": {"id": item_id, "model": {}}}]


def revision_count(server, list_id):
    return len(server.get(f"/v1/lists/{list_id}/revisions", params={"limit": 1000}).json()["revisions"])


def send_until_answered(send, attempts=200):
    """Sends until the answer is not "the first request with this key is under way" (409 on /Idempotency-Key)."""
    for _ in range(attempts):
        r = send()
        if r.status_code == 409 and r.json().get("pointer") == "/Idempotency-Key":
            assert r.headers.get("Retry-After") == "1"
            time.sleep(0.02)
            continue
        return r
    pytest.fail("the key stayed under way")


def test_a_write_acknowledged_before_kill9_is_replayed_after_the_restart_and_not_applied_again(make_server):
    s = make_server()
    lid = uid("idem")
    key = str(uuid.uuid4())
    assert s.put(lid, doc(1)).status_code == 201
    first = s.patch(lid, add_item("b"), headers={"Idempotency-Key": key})
    assert first.status_code == 200 and first.json()["revision"] == 2
    s.kill9()
    s.start()
    again = s.patch(lid, add_item("b"), headers={"Idempotency-Key": key})
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert revision_count(s, lid) == 2
    assert [i["id"] for i in s.doc(lid)["sections"][0]["items"]] == ["a", "b"]
    # A refusal is kept too: the same key with the same request is the same 409, and nothing changes.
    guard = [{"op": "test", "path": "/sections/0/items/0/id", "value": "zz"}, {"op": "remove", "path": "/sections/0/items/0"}]
    refused = s.patch(lid, guard, headers={"Idempotency-Key": "guard-1"})
    assert_problem(refused, 409)
    s.kill9()
    s.start()
    replayed = s.patch(lid, guard, headers={"Idempotency-Key": "guard-1"})
    assert replayed.status_code == 409 and replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.json() == refused.json()


def test_the_same_write_sent_many_times_at_once_is_applied_once_and_every_sender_gets_its_answer(server):
    lid = uid("idem")
    assert server.put(lid, doc(1)).status_code == 201
    key = str(uuid.uuid4())

    def send():
        return send_until_answered(lambda: server.patch(lid, add_item("once"), headers={"Idempotency-Key": key}))

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: send(), range(16)))
    assert {r.status_code for r in answers} == {200}
    assert {r.json()["revision"] for r in answers} == {2}
    assert sum(r.headers.get("Idempotent-Replayed") != "true" for r in answers) == 1
    assert revision_count(server, lid) == 2


def test_a_key_with_another_request_is_422_and_a_malformed_key_400_and_nothing_changes(server):
    lid = uid("idem")
    assert server.put(lid, doc(1), headers={"Idempotency-Key": "k"}).status_code == 201
    other = server.put(lid, doc(2), headers={"Idempotency-Key": "k"})
    assert_problem(other, 422)
    assert other.json()["pointer"] == "/Idempotency-Key"
    bad = server.put(lid, doc(3), headers={"Idempotency-Key": "two words"})
    assert_problem(bad, 400)
    assert bad.json()["pointer"] == "/Idempotency-Key"
    assert server.doc(lid)["revision"] == 1


def test_a_browser_may_send_the_key_and_read_the_replay_header(server):
    r = server.request("OPTIONS", "/v1/lists/x", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "PATCH",
        "Access-Control-Request-Headers": "idempotency-key, content-type"})
    assert "idempotency-key" in r.headers["Access-Control-Allow-Headers"].lower()
    lid = uid("idem")
    r = server.put(lid, doc(1), headers={"Origin": "https://app.example", "Idempotency-Key": "cors"})
    exposed = [h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")]
    assert "idempotent-replayed" in exposed and "retry-after" in exposed


pg_support = pytest.importorskip("pg_support")
needs_cluster = pytest.mark.skipif(pg_support.cluster_dir() is None, reason="no PostgreSQL cluster (scripts/test.sh starts one)")


@needs_cluster
def test_a_write_acknowledged_by_one_instance_is_replayed_by_the_other(make_server):
    url = pg_support.new_database_url("idem")
    a, b = make_server(["--database-url", url]), make_server(["--database-url", url])
    lid = uid("idem")
    first = a.put(lid, doc(1), headers={"Idempotency-Key": "create"})
    assert first.status_code == 201
    again = b.put(lid, doc(1), headers={"Idempotency-Key": "create"})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert_problem(b.put(lid, doc(9), headers={"Idempotency-Key": "create"}), 422)
    assert revision_count(b, lid) == 1


@needs_cluster
def test_one_write_sent_to_both_instances_at_once_is_applied_once(make_server):
    url = pg_support.new_database_url("idem")
    a, b = make_server(["--database-url", url]), make_server(["--database-url", url])
    lid = uid("idem")
    assert a.put(lid, doc(1)).status_code == 201
    for round_ in range(10):
        key = f"both-{round_}"
        barrier = threading.Barrier(2)

        def send(server):
            barrier.wait()
            return send_until_answered(lambda: server.patch(lid, add_item(f"x{round_}"), headers={"Idempotency-Key": key}))

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(send, [a, b]))
        assert [r.status_code for r in answers] == [200, 200], [r.text for r in answers]
        assert answers[0].json()["revision"] == answers[1].json()["revision"] == round_ + 2
    assert revision_count(a, lid) == 11
    assert [i["id"] for i in b.doc(lid)["sections"][0]["items"]] == ["a", *[f"x{n}" for n in range(10)]]
