"""What the tests of client.js's writes share (test_client_writes.py under Node, test_client_writes_browser.py in
headless Chromium): the list every scenario of Tests/client/scenarios.mjs starts from, and the checks of each
scenario's result against the service, its history and the proxy's log (flaky_proxy.py).
"""

import json
from pathlib import Path

from conftest import uid
from listdelta_apply import canon_sections

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "Tests" / "client" / "scenarios.mjs"


def item(iid, text):
    return {"id": iid, "model": {"text": text}}


def base_document():
    """Sections a [a0..a3], b [b0..b2], c [c0, c1]: the list every scenario starts from (revision 1)."""
    return {"sections": [
        {"id": "a", "title": "A", "indexTitle": "A", "items": [item(f"a{k}", f"A {k}") for k in range(4)]},
        {"id": "b", "title": "B", "indexTitle": "B", "items": [item(f"b{k}", f"B {k}") for k in range(3)]},
        {"id": "c", "title": "C", "indexTitle": "C", "items": [item(f"c{k}", f"C {k}") for k in range(2)]},
    ]}


def new_list(server, prefix):
    list_id = uid(prefix)
    r = server.put(list_id, base_document())
    assert r.status_code == 201, r.text
    return list_id


def where(document):
    """{item id: (section id, index, model)}."""
    return {i["id"]: (s["id"], k, i.get("model")) for s in document["sections"] for k, i in enumerate(s["items"])}


def patch_revisions(server, list_id):
    """The revisions the list's history holds, oldest first, with the write that made each."""
    r = server.get(f"/v1/lists/{list_id}/revisions", params={"limit": 1000})
    assert r.status_code == 200, r.text
    return [(x["revision"], x["by"]["op"]) for x in reversed(r.json()["revisions"])]


def urls(server, proxy, list_id):
    """A scenario's addresses: the proxy its clients go through, the service its other clients write to."""
    return {"proxyURL": proxy.url(), "serverURL": server.url(""), "listID": list_id}


# ---------------------------------------------------------------------------
# Checks of the scenarios' results.


def check_ends_on_the_servers_document(server, list_id, client):
    """The client shows the service's document, its target too, and holds nothing pending."""
    doc = server.doc(list_id)
    assert client["pending"] == [], client["pending"]
    assert client["revision"] == doc["revision"]
    assert canon_sections(client["document"]) == canon_sections(doc)
    assert client["mirrorErrors"] == [], client["mirrorErrors"]
    assert canon_sections(client["mirror"]) == canon_sections(doc)


def followers_writes(proxy, method=None):
    """The writes the proxy saw from followers: those with an Idempotency-Key (other clients send none)."""
    return [e for e in proxy.writes(method) if e["key"] is not None]


def check_one_body_per_key(proxy):
    """A key is never sent with two different requests (a rebuilt write takes a new key)."""
    bodies = {}
    for e in followers_writes(proxy):
        bodies.setdefault(e["key"], set()).add((e["method"], e["body"]))
    assert all(len(b) == 1 for b in bodies.values()), {k: b for k, b in bodies.items() if len(b) > 1}


def in_flight(entry):
    """A 409 that says the first request with this key is still being written."""
    try:
        problem = json.loads(entry.get("answer") or "{}")
    except ValueError:
        return False
    return entry["status"] == 409 and isinstance(problem, dict) and problem.get("pointer") == "/Idempotency-Key"


def check_lost_answers_were_replayed(proxy):
    """Every write whose answer the proxy lost was sent again with its key and answered from the first answer
    (Idempotent-Replayed: true, same status); returns the keys."""
    log = followers_writes(proxy)
    lost = [(n, e) for n, e in enumerate(log) if e["fate"] in ("after", "cut") and e["status"] < 500]
    for n, e in lost:
        later = [x for x in log[n + 1:] if x["key"] == e["key"] and x["fate"] == "forwarded" and not in_flight(x)]
        assert later, ("a write whose answer was lost was not sent again with its key", e)
        assert later[0]["replayed"] == "true" and later[0]["status"] == e["status"], (e, later[0])
    return {e["key"] for _, e in lost}


def check_flaky_writers(server, list_id, proxy, result):
    """Every write resolved with a revision of its own (applied once: the revisions after the base are exactly the
    writes'), the list is what each writer's last writes say, and every client ends on it."""
    assert result["converged"], "the clients did not converge on the service's document"
    doc = server.doc(list_id)
    outcomes = [o for c in result["clients"] for o in c["outcomes"]]
    failed = [o for o in outcomes if "error" in o]
    assert not failed, failed
    assert sorted(o["revision"] for o in outcomes) == list(range(2, doc["revision"] + 1))
    assert [op for _, op in patch_revisions(server, list_id)] == ["put"] + ["patch"] * len(outcomes)
    at = where(doc)
    expected = {}
    for c in result["clients"]:
        expected.update({iid: (want["section"], want["model"]) for iid, want in c["expected"].items()})
    assert {iid: (s, model) for iid, (s, _, model) in at.items() if iid.startswith("w")} == expected
    base = where({"sections": base_document()["sections"]})
    assert {iid: (s, model) for iid, (s, _, model) in at.items() if not iid.startswith("w")} == \
        {iid: (s, model) for iid, (s, _, model) in base.items()}
    for c in result["clients"]:
        check_ends_on_the_servers_document(server, list_id, c)
    check_one_body_per_key(proxy)
    fates = [e["fate"] for e in followers_writes(proxy)]
    assert {"before", "after", "cut"} <= set(fates), fates
    assert check_lost_answers_were_replayed(proxy)


# ---------------------------------------------------------------------------


def check_rebuilt_writes(server, list_id, proxy, result):
    assert result["converged"]
    assert all("revision" in o for o in result["outcomes"]), result["outcomes"]
    doc = server.doc(list_id)
    at = where(doc)
    assert at["a2"][2] == {"text": "mine"} and at["a1"][2] == {"text": "A 1"}
    ids = [i["id"] for i in doc["sections"][0]["items"]]
    assert ids == ["other-1", "other-0", "a0", "a3", "a1", "a2", "late"], ids
    check_ends_on_the_servers_document(server, list_id, result)
    # Each write: refused by its guard (409, a failed test), then rebuilt and sent with a new key.
    log = followers_writes(proxy, "PATCH")
    assert [e["status"] for e in log] == [409, 200, 409, 200], log
    assert log[0]["key"] != log[1]["key"] and log[2]["key"] != log[3]["key"]
    assert json.loads(log[0]["answer"])["op"] == "test"
    assert json.loads(log[1]["body"])[0] == {"op": "test", "path": "/sections/0/items/3/id", "value": "a2"}
    # The target saw each write once, and no reset.
    assert [op[0] for op in result["ops"]].count("reset") == 1


def check_conflicting_writes(server, list_id, result):
    assert result["converged"]
    # The move showed at once (a0 after a3), as a batch.
    assert result["shownAtOnce"][0][1][-2:] == [["a3", {"text": "A 3"}], ["a0", {"text": "A 0"}]]
    assert [op[0] for op in result["opsAtOnce"]] == ["beginUpdates", "moveItem", "endUpdates"]
    assert [(w["kind"], w.get("id")) for w in result["pendingAtOnce"]] == \
        [("move", "a0"), ("update", "b1"), ("insert", None), ("update", "a1")]
    moved, updated, inserted, fine = result["outcomes"]
    for o, reason, kind in ((moved, "anchor", "move"), (updated, "item", "update"), (inserted, "section", "insert")):
        assert o.get("error", {}).get("name") == "ConflictError", o
        assert o["error"]["reason"] == reason and o["error"]["write"]["kind"] == kind, o
    assert "revision" in fine
    doc = server.doc(list_id)
    at = where(doc)
    assert at["a0"][:2] == ("a", 0) and at["a1"][2] == {"text": "still fine"}
    assert "new-c" not in at and [s["id"] for s in doc["sections"]] == ["a", "b"]
    assert [i["id"] for i in doc["sections"][0]["items"]] == ["a0", "a1", "a2", "late"]
    check_ends_on_the_servers_document(server, list_id, result)
    # Rolled back by diffs: the target never needed a reset.
    assert [op[0] for op in result["ops"]].count("reset") == 1
