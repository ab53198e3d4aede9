"""History and undo against the real binary: the revision list, revert and redo, bad input, pruning,
checkpoints, kill -9, and watchers woken by a revert."""

import json
import re
import threading
import time

import requests

from conftest import Server, assert_problem, sections_doc, uid
from listdelta_apply import apply_batch_diff, canon_sections

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def revert(server, list_id, to, **headers):
    h = {"Content-Type": "application/json"}
    h.update({k.replace("_", "-"): v for k, v in headers.items()})
    body = to if isinstance(to, (bytes, str)) else json.dumps({"to": to})
    return server.request("POST", f"/v1/lists/{list_id}/revert", data=body, headers=h)


def history(server, list_id, **params):
    r = server.get(f"/v1/lists/{list_id}/revisions", params=params)
    assert r.status_code == 200, (r.status_code, r.text)
    return r.json()


def all_revisions(server, list_id, limit=2):
    out, before = [], None
    while True:
        page = history(server, list_id, limit=limit, **({"before": before} if before else {}))
        out += page["revisions"]
        if page["next"] is None:
            return out, page
        before = page["next"]


def doc_items(server, list_id, revision=None):
    return canon_sections(server.doc(list_id, revision))


def test_history_pages_every_write_with_its_origin_counts_and_changes(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a", "b", "c"])))
    server.patch(lid, [{"op": "remove", "path": "/sections/0/items/1"}])
    server.patch(lid, [{"op": "replace", "path": "/sections/0/items/0/model", "value": {"v": "A"}}])
    server.put(lid, sections_doc(("s", "S", ["c", "a"]), ("t", "T", ["d"])))
    assert revert(server, lid, 2).status_code == 200
    revisions, last_page = all_revisions(server, lid)
    assert [r["revision"] for r in revisions] == [5, 4, 3, 2, 1]
    assert last_page["oldestRevision"] == 1
    assert [r["by"] for r in revisions] == [{"op": "revert", "to": 2}, {"op": "put"}, {"op": "patch"}, {"op": "patch"}, {"op": "put"}]
    assert [(r["sections"], r["items"]) for r in revisions] == [(1, 2), (2, 3), (1, 2), (1, 2), (1, 3)]
    for r in revisions:
        assert RFC3339.match(r["committedAt"]), r
    times = [r["committedAt"] for r in revisions]
    assert times == sorted(times, reverse=True)
    # The change sizes are those of each revision's own batch diff.
    for r in revisions:
        d = server.diff(lid, r["revision"] - 1, r["revision"])
        for part in ("sections", "items"):
            assert r["changes"][part] == {k: len(d[part][k]) for k in ("deleted", "inserted", "moved", "updated")}, (r, d)
    assert revisions[3]["changes"]["items"] == {"deleted": 1, "inserted": 0, "moved": 0, "updated": 0}
    assert revisions[4]["changes"]["sections"]["inserted"] == 1
    # Paging: the first page's next is the before of the second.
    page = history(server, lid, limit=2)
    assert [r["revision"] for r in page["revisions"]] == [5, 4] and page["next"] == 4
    assert [r["revision"] for r in history(server, lid, before=4, limit=2)["revisions"]] == [3, 2]
    assert history(server, lid, before=1)["revisions"] == []


def test_history_shows_only_the_current_incarnation(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    server.patch(lid, [{"op": "add", "path": "/sections/0/items/-", "value": {"id": "b", "cell": "C", "model": {}}}])
    assert server.delete(lid).status_code == 204
    assert_problem(server.get(f"/v1/lists/{lid}/revisions"), 404)
    server.put(lid, sections_doc(("s", "S", ["x"])))
    page = history(server, lid)
    assert [r["revision"] for r in page["revisions"]] == [3] and page["oldestRevision"] == 3
    # Revisions of the earlier incarnation cannot be reverted to.
    body = assert_problem(revert(server, lid, 2), 410)
    assert body["current"] == 3
    assert_problem(server.get(f"/v1/lists/{uid()}/revisions"), 404)


def test_revert_is_undo_and_a_later_revert_is_redo(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a", "b"])))
    server.put(lid, sections_doc(("s", "Renamed", ["b", "c"]), ("t", "T", ["a"])))
    good, bad = doc_items(server, lid, 1), doc_items(server, lid, 2)
    r = revert(server, lid, 1, If_Match='"2"')
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["revision"] == 3 and body["id"] == lid
    assert r.headers["ETag"] == '"3"'
    # The diff in the answer leads from 2 to the restored content, like any write's.
    assert canon_sections(apply_batch_diff(server.doc(lid, 2), body["diff"])) == good
    assert doc_items(server, lid) == good
    redo = revert(server, lid, 2)
    assert redo.status_code == 200 and redo.json()["revision"] == 4
    assert doc_items(server, lid) == bad
    # Reverting to the content it has already: no revision, an empty diff.
    same = revert(server, lid, 2)
    assert same.status_code == 200
    assert same.json()["revision"] == 4
    d = same.json()["diff"]
    assert d["from"] == d["to"] == 4 and all(not d[p][k] for p in ("sections", "items") for k in d[p])
    assert history(server, lid)["revisions"][0]["by"] == {"op": "revert", "to": 2}


def test_revert_refuses_bad_input_and_writes_nothing(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    server.patch(lid, [{"op": "add", "path": "/sections/0/items/-", "value": {"id": "b", "cell": "C", "model": {}}}])
    for body in ['{}', '{"to": "1"}', '{"to": 1.5}', '{"to": -1}', '{"to": null}', '[1]', '{"to": 1, "and": 2}', 'not json', '{"to": 99999999999}']:
        assert_problem(revert(server, lid, body), 400)
    for to in (0, 3, 1000):
        problem = assert_problem(revert(server, lid, to), 410)
        assert problem["current"] == 2
    assert_problem(revert(server, lid, 1, If_Match='"1"'), 412)
    r = server.request("POST", f"/v1/lists/{lid}/revert", data='{"to":1}', headers={"Content-Type": "text/plain"})
    assert_problem(r, 415)
    assert_problem(revert(server, uid(), 1), 404)
    assert [r["revision"] for r in history(server, lid)["revisions"]] == [2, 1]
    assert server.doc(lid)["revision"] == 2


def test_revert_across_checkpoints_and_pruning(make_server):
    server = make_server(args=["--retention", "40"])
    lid = uid()
    # Big enough documents and enough writes that checkpoints are taken along the way.
    items = [f"i{n}" for n in range(300)]
    server.put(lid, sections_doc(("s", "S", items)))
    contents = {1: doc_items(server, lid)}
    for rev in range(2, 90):
        ops = [{"op": "replace", "path": f"/sections/0/items/{rev % 300}/model", "value": {"v": rev}},
               {"op": "move", "from": "/sections/0/items/0", "path": "/sections/0/items/-"}]
        assert server.patch(lid, ops).status_code == 200
        contents[rev] = doc_items(server, lid)
    page = history(server, lid, limit=1000)
    assert page["oldestRevision"] == 50 and [r["revision"] for r in page["revisions"]] == list(range(89, 49, -1))
    assert_problem(revert(server, lid, 49), 410)
    for target, expected_revision in ((50, 90), (88, 91), (70, 92)):
        r = revert(server, lid, target)
        assert r.status_code == 200, r.text
        assert r.json()["revision"] == expected_revision
        assert doc_items(server, lid) == contents[target]
    # After a restart nothing is in memory: the same revisions rebuild from the store.
    server.restart()
    for target in (55, 75, 89):
        assert doc_items(server, lid, target) == contents[target]
        d = server.diff(lid, target)
        assert canon_sections(apply_batch_diff(server.doc(lid, target), d)) == doc_items(server, lid)


def test_revert_survives_kill_9_once_acknowledged(make_server):
    server = make_server()
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a", "b"])))
    server.put(lid, sections_doc(("s", "S", ["z"])))
    assert revert(server, lid, 1).json()["revision"] == 3
    server.kill9()
    server.start()
    assert server.doc(lid)["revision"] == 3
    assert doc_items(server, lid) == doc_items(server, lid, 1)
    assert history(server, lid)["revisions"][0]["by"] == {"op": "revert", "to": 1}


def test_a_revert_wakes_a_long_poll_and_an_event_stream(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    server.put(lid, sections_doc(("s", "S", ["a", "b"])))
    result = {}

    def poll():
        result["r"] = server.get(f"/v1/lists/{lid}/diff", params={"from": 2, "wait": 20}, timeout=25)

    t = threading.Thread(target=poll)
    t.start()
    stream = server.sse(f"/v1/lists/{lid}/events?from=2")
    time.sleep(0.5)
    started = time.monotonic()
    assert revert(server, lid, 1).status_code == 200
    t.join(10)
    assert time.monotonic() - started < 5
    woken = result["r"]
    assert woken.status_code == 200 and woken.json()["to"] == 3
    assert [i["id"] for i in apply_batch_diff(server.doc(lid, 2), woken.json())["sections"][0]["items"]] == ["a"]
    event = stream.next_event(timeout=10)
    stream.close()
    assert event["event"] == "diff" and json.loads(event["data"])["to"] == 3


def test_history_limits_and_parameters_are_checked(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    for params in ({"limit": 0}, {"limit": 1001}, {"limit": "x"}, {"before": -1}, {"before": "1.5"}):
        assert_problem(server.get(f"/v1/lists/{lid}/revisions", params=params), 400)
    assert_problem(server.get("/v1/lists/bad%20id/revisions"), 400)


def test_racing_reverts_with_one_if_match_let_exactly_one_win(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    server.put(lid, sections_doc(("s", "S", ["b"])))
    server.put(lid, sections_doc(("s", "S", ["c"])))
    results = []
    barrier = threading.Barrier(6)

    def go(to):
        barrier.wait()
        results.append(revert(server, lid, to, If_Match='"3"').status_code)

    threads = [threading.Thread(target=go, args=(1 + k % 2,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert sorted(results) == [200] + [412] * 5, results
    assert server.doc(lid)["revision"] == 4
    assert [r["revision"] for r in history(server, lid)["revisions"]] == [4, 3, 2, 1]
