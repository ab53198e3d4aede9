"""client.js writes (a follower made with {writable: true}), under Node with its own fetch, through a proxy that loses
writes and answers (flaky_proxy.py): optimistic writes by id, rebuilt after a failed guard, sent once with an
Idempotency-Key, in order, queued offline and restored from storage; and diffDocuments against the batch rules.

The scenarios are Tests/client/scenarios.mjs (shared with the Chromium tests of test_client_writes_browser.py), run by
Tests/client/run.mjs; these tests check their results against the service, its history and the proxy's log.
"""

import json
import shutil
import subprocess

import pytest

from client_writes_support import (REPO, base_document, check_conflicting_writes, check_ends_on_the_servers_document,
                                   check_flaky_writers, check_one_body_per_key, check_rebuilt_writes, followers_writes,
                                   new_list, patch_revisions, urls, where)
from conftest import uid
from flaky_proxy import FlakyProxy
from listdelta_apply import apply_batch_diff, canon_sections, check_batch_rules

CLIENT_JS = REPO / "Sources" / "ListDeltaService" / "Web" / "client.js"
RUN = REPO / "Tests" / "client" / "run.mjs"


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    """Runs a scenario under Node: `node("flakyWriters", listID=..., ...)` -> its JSON result."""
    binary = shutil.which("node")
    if binary is None:
        pytest.fail("node is not installed: apt-get install -y nodejs")
    client = tmp_path_factory.mktemp("client") / "client.mjs"
    shutil.copyfile(CLIENT_JS, client)

    def run(scenario, timeout=120, **options):
        p = subprocess.run([binary, str(RUN), str(client), scenario, json.dumps(options)], capture_output=True,
                           text=True, timeout=timeout, cwd=RUN.parent)
        assert p.returncode == 0, f"node {scenario} failed ({p.returncode}):\n{p.stderr[-4000:]}"
        return json.loads(p.stdout)

    return run


@pytest.fixture
def proxy(server):
    p = FlakyProxy(server.port)
    yield p
    p.close()


def test_diff_documents_keeps_the_batch_rules(node):
    """diffDocuments(from, to) is a batch diff the service could have sent: every rule of API.md holds (minimal moves,
    items with their sections, sorted lists, counts) and applying it gives `to`."""
    cases = node("randomDiffs", count=400, seed=3)
    assert len(cases) == 400
    for case in cases:
        check_batch_rules(case["from"], case["to"], case["diff"])
        assert apply_batch_diff(case["from"], case["diff"]) == {"sections": canon_sections(case["to"])}
        assert (case["diff"]["from"], case["diff"]["to"]) == (1, 2)


def test_writers_through_a_flaky_proxy(server, proxy, node):
    """Three writers, each with memory storage, through a proxy that loses writes before the service, their answers,
    or half of them: every write applies once, and every client ends on the service's document."""
    list_id = new_list(server, "w-node")
    result = node("flakyWriters", writers=3, writes=14, seed=11, storages="memory", **urls(server, proxy, list_id))
    check_flaky_writers(server, list_id, proxy, result)


@pytest.mark.parametrize("fate", ["after", "cut"])
def test_a_write_whose_answer_is_lost_is_applied_once(server, proxy, node, fate):
    """The answer is lost ("after") or cut in half ("cut"): the same request goes again with the same key and the
    service answers it from the first answer."""
    list_id = new_list(server, "w-lost")
    result = node("lostAnswer", fate=fate, **urls(server, proxy, list_id))
    assert result["converged"]
    assert result["outcomes"] == [{"revision": 2}, {"revision": 3}], result["outcomes"]
    assert patch_revisions(server, list_id) == [(1, "put"), (2, "patch"), (3, "patch")]
    doc = server.doc(list_id)
    assert [i["id"] for i in doc["sections"][1]["items"]] == ["b0", "lost-1", "b1", "b2"]
    assert "a1" not in where(doc)
    check_ends_on_the_servers_document(server, list_id, result)
    # Each write went twice with one key: the answer lost, then the same answer again, replayed.
    log = followers_writes(proxy, "PATCH")
    assert [(e["fate"], e["status"], e["replayed"]) for e in log] == [
        (fate, 200, None), ("forwarded", 200, "true"), (fate, 200, None), ("forwarded", 200, "true")], log
    assert log[0]["key"] == log[1]["key"] != log[2]["key"] == log[3]["key"]
    assert all(json.loads(e["answer"])["revision"] == r for e, r in zip(log, (2, 2, 3, 3)))


def test_a_write_whose_first_request_is_in_flight_waits_and_keeps_its_key(server, proxy, node):
    """A 409 naming /Idempotency-Key (the first request with the key still being written) is no failed guard: the
    follower waits its Retry-After and sends the same request with the same key again."""
    list_id = new_list(server, "w-busy")
    result = node("lostAnswer", fate="busy", **urls(server, proxy, list_id))
    assert result["converged"]
    assert result["outcomes"] == [{"revision": 2}, {"revision": 3}], result["outcomes"]
    assert patch_revisions(server, list_id) == [(1, "put"), (2, "patch"), (3, "patch")]
    check_ends_on_the_servers_document(server, list_id, result)
    log = followers_writes(proxy, "PATCH")
    assert [(e["fate"], e["status"]) for e in log] == [("busy", 409), ("forwarded", 200)] * 2, log
    assert log[0]["key"] == log[1]["key"] and log[2]["key"] == log[3]["key"]
    check_one_body_per_key(proxy)


def test_a_rebuilt_write_lands_on_its_item(server, proxy, node):
    """Indexes moved under a write: its guard fails, it is rebuilt with a new key and lands on the item it names."""
    list_id = new_list(server, "w-rebuild")
    check_rebuilt_writes(server, list_id, proxy, node("rebuiltWrites", **urls(server, proxy, list_id)))


def test_conflicting_writes_are_refused_and_rolled_back(server, proxy, node):
    """Writes whose anchor, item or section is gone reject with a ConflictError and are rolled back by diffs."""
    list_id = new_list(server, "w-conflict")
    check_conflicting_writes(server, list_id, node("conflictingWrites", **urls(server, proxy, list_id)))


def test_offline_writes_are_stored_restored_and_sent_once(server, proxy, node):
    """Offline: writes queue and are stored; stop() leaves them; a new follower on the storage shows them before any
    request and sends each once when the API answers again."""
    list_id = new_list(server, "w-offline")
    result = node("offlineThenRestored", storage="memory", **urls(server, proxy, list_id))
    before = result["before"]
    assert before["offline"] and before["stored"], before
    assert "offline" in before["states"]
    assert [w["kind"] for w in before["pending"]] == ["insert", "update", "move"]
    # stop() left them stored, with the server's document and its revision.
    stored = result["stored"]
    assert stored["revision"] == 1 and stored["document"]["revision"] == 1
    assert [w["kind"] for w in stored["pending"]] == ["insert", "update", "move"]
    assert stored["pending"][0]["key"] and stored["pending"][0]["request"]["method"] == "PATCH"
    # The new follower showed them at once, before any request: the stored document with the writes on top.
    restored = result["restored"]
    assert restored["calls"][0] == ["target", "reset", "restored"], restored["calls"][:3]
    assert canon_sections(restored["document"]) == canon_sections(before["document"])
    assert [w["key"] for w in restored["pending"]][0] == stored["pending"][0]["key"]
    assert result["whileOffline"]["state"] == "offline" and len(result["whileOffline"]["pending"]) == 3
    # Online again: each write sent once, in order; nothing left stored.
    after = result["after"]
    assert after["converged"] and result["storedEmptyAfter"]
    check_ends_on_the_servers_document(server, list_id, after)
    assert patch_revisions(server, list_id) == [(1, "put"), (2, "patch"), (3, "patch"), (4, "patch")]
    at = where(server.doc(list_id))
    assert at["offline-1"][:2] == ("a", 2) and at["b2"][2] == {"text": "offline"} and at["c0"][:2] == ("b", 0)
    forwarded = [e for e in followers_writes(proxy, "PATCH") if e["fate"] == "forwarded"]
    assert [e["status"] for e in forwarded] == [200, 200, 200], forwarded
    assert forwarded[0]["key"] == stored["pending"][0]["key"]
    check_one_body_per_key(proxy)


def test_a_follower_survives_storage_failures_stops_and_throwing_callbacks(server, proxy, node):
    """Restored twice while offline, each follower shows the stored document; a storage whose first read fails keeps
    its stored write, which is then sent; a follower without storage that stops rejects its pending write with an
    AbortError; an onDiff that throws neither rejects the write nor makes it twice."""
    list_id = new_list(server, "w-survive")
    result = node("survivals", **urls(server, proxy, list_id))
    assert result["restores"] == [True, True]
    assert result["sent"]
    assert result["abandoned"]["error"]["name"] == "AbortError", result["abandoned"]
    assert "revision" in result["thrown"], result["thrown"]
    assert result["revisionsMade"] == 1


def test_a_put_makes_the_list_a_writable_follower_meets_as_missing(server, proxy, node):
    """A writable follower of a list that does not exist sends its put (the follower meanwhile retries its 404), the
    put makes the list, and the follower loads it and writes by id on it."""
    list_id = uid("w-created")
    result = node("createdByPut", **urls(server, proxy, list_id))
    assert result["converged"], result
    assert result["outcomes"] == [{"revision": 1}, {"revision": 2}]
    assert [i["id"] for i in server.doc(list_id)["sections"][0]["items"]] == ["a", "b"]
    check_ends_on_the_servers_document(server, list_id, result)


def test_a_put_made_while_the_storage_is_read_goes_after_the_stored_write(server, proxy, node):
    """A follower whose storage holds a write sends it first, even when a put is made before the storage was read; then
    the put, each once."""
    list_id = new_list(server, "w-restoring")
    result = node("putWhileRestoring", **urls(server, proxy, list_id))
    assert result["converged"], result
    assert result["put"] == {"revision": result["base"] + 2}, result["put"]
    assert [i["id"] for i in server.doc(list_id)["sections"][0]["items"]] == ["p"]
    stored_first = server.doc(list_id, result["base"] + 1)
    assert "stored" in [i["id"] for s in stored_first["sections"] for i in s["items"]], stored_first
    assert server.doc(list_id)["revision"] == result["base"] + 2
    check_ends_on_the_servers_document(server, list_id, result)


def test_put_and_raw_patch_with_a_function_token(make_server, node):
    """put() and patch() with a token function on a service that wants a write token; a raw patch the service cannot
    apply is a ConflictError ("patch"), rolled back."""
    server = make_server(["--write-token", "secret"])
    proxy = FlakyProxy(server.port)
    try:
        list_id = uid("w-raw")
        assert server.put(list_id, base_document(), Authorization="Bearer secret").status_code == 201
        result = node("wholeAndRaw", token="secret", **urls(server, proxy, list_id))
    finally:
        proxy.close()
    assert result["converged"]
    put, added, refused = result["outcomes"]
    assert put == {"revision": 2} and added == {"revision": 3}
    assert refused["error"]["name"] == "ConflictError" and refused["error"]["reason"] == "patch", refused
    # put() showed the short array form as the service stores it.
    assert canon_sections(result["shownAfterPut"]) == canon_sections(server.doc(list_id, 2))
    assert result["shownAfterPut"]["kind"] == "array"
    # The refused patch showed at once (apple removed), then came back.
    assert [x[0] for x in result["shownAtOnce"][0][1]] == ["pear", "plum"]
    assert ["fig", "apple", "pear", "plum"] == [i["id"] for i in server.doc(list_id)["sections"][0]["items"]]
    check_ends_on_the_servers_document(server, list_id, result)
    # Every write went without a token first (401), then with the fresh one.
    assert result["asked"].count(True) >= 3 and False in result["asked"]
