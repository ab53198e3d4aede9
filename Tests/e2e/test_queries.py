"""Live queries (API.md "Live queries", docs/queries.md): a filter, a sort or a window of any list, followed by URL.

What a user checks: `GET ?q=` is the query over the base at every revision (compared with the naive evaluator of
test_views.py, written from the contract), diffs between any two revisions replay, a held poll is woken by a base
write that changes the result and by no other, `fromQuery` turns one query's result into another's, `next` links
carry one canonical `q` whichever way it was written, event streams skip the revisions that change nothing, a write
on one PostgreSQL instance wakes a poll on another, and `maxQueries` answers 503. Every test runs on both stores.
"""

import json
import random
import threading
import time
from urllib.parse import quote

import pytest

import pg_support
import test_views as views
from conftest import assert_problem, hold_cursor, uid
from listdelta_apply import apply_batch_diff, apply_json_patch, canon_sections


def q_text(query):
    return json.dumps(query, separators=(",", ":"))


def query_doc(server, base, query, revision=None):
    params = {"q": q_text(query)}
    if revision is not None:
        params["revision"] = revision
    r = server.get(f"/v1/lists/{base}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def query_diff(server, base, query, frm, to=None, fmt=None, **extra):
    params = {"from": frm, "q": q_text(query), **extra}
    if to is not None:
        params["to"] = to
    if fmt:
        params["format"] = fmt
    return server.get(f"/v1/lists/{base}/diff", params=params)


def is_whole_list(query):
    """Whether the query's canonical form is `{}` (every member absent or its default): the whole list."""
    return (not query.get("where") and not query.get("sort") and query.get("offset", 0) == 0
            and query.get("limit", views.MAX_ITEMS) == views.MAX_ITEMS and query.get("sections", "keep") == "keep")


def expected(base_id, base_doc, query):
    if is_whole_list(query):
        return without(base_doc, "revision")
    return views.expected_view(base_id, base_doc, {"of": base_id, **query})


def without(doc, *keys):
    return {k: v for k, v in doc.items() if k not in keys}


def random_query(rng, base):
    definition = views.random_definition(rng, base)
    definition.pop("of")
    return definition


def assert_is_the_query(server, base, query, revision=None):
    base_doc = server.doc(base, revision)
    got = query_doc(server, base, query, revision)
    assert got["revision"] == base_doc["revision"]
    want = expected(base, base_doc, query)
    actual = without(got, "revision", "query")
    if "kind" not in want:
        actual.pop("kind", None)
    assert actual == want, (query, base_doc["revision"])
    return got


def test_queries_of_every_op_sort_window_and_grouping_are_the_query_over_the_base_after_random_writes(server):
    rng = random.Random(40)
    base = uid("qbase")
    doc = views.random_base(rng)
    revisions = [views.put_ok(server, base, doc)]
    queries = [random_query(rng, base) for _ in range(40)]
    queries += [{"where": [views.random_condition(rng)]} for _ in range(20)]
    queries += [{"sort": [{"path": "/model/rank", "order": "desc"}], "offset": 2, "limit": 3, "sections": "none"},
                {"sections": {"by": "/model/cat"}, "limit": 5}]
    for _ in range(12):
        doc = views.mutate(rng, doc)
        revisions.append(views.put_ok(server, base, doc))
        for query in queries:
            assert_is_the_query(server, base, query)
    # And at old revisions, from their documents.
    for revision in rng.sample(revisions, 4):
        for query in rng.sample(queries, 10):
            assert_is_the_query(server, base, query, revision)


def test_the_document_carries_the_canonical_query_and_a_tag_of_its_own(server):
    base = uid("qbase")
    views.put_ok(server, base, views.random_base(random.Random(1)))
    spelled = '{"limit": 3, "sort": [{"order": "asc", "path": "/model/rank"}], "offset": 0}'
    r = server.get(f"/v1/lists/{base}", params={"q": spelled})
    assert r.status_code == 200, r.text
    assert r.json()["query"] == {"sort": [{"path": "/model/rank"}], "limit": 3}
    assert list(r.json().keys())[:4] == ["id", "kind", "revision", "query"]
    assert r.headers["ETag"] != server.get(base).headers["ETag"]
    other = server.get(f"/v1/lists/{base}", params={"q": '{"limit":4}'})
    assert other.headers["ETag"] != r.headers["ETag"]
    whole = server.get(f"/v1/lists/{base}", params={"q": "{}"})
    assert whole.json() == server.doc(base) and whole.headers["ETag"] == server.get(base).headers["ETag"]


def test_diffs_between_any_two_revisions_replay_in_both_formats(server):
    rng = random.Random(41)
    base = uid("qbase")
    doc = views.random_base(rng)
    revisions = [views.put_ok(server, base, doc)]
    for _ in range(8):
        doc = views.mutate(rng, doc)
        revisions.append(views.put_ok(server, base, doc))
    for query in [random_query(rng, base) for _ in range(12)]:
        for _ in range(4):
            frm, to = sorted(rng.sample([0] + revisions, 2))
            old = {"sections": []} if frm == 0 else query_doc(server, base, query, frm)
            new = query_doc(server, base, query, to)
            r = query_diff(server, base, query, frm, to)
            assert r.status_code == 200, r.text
            assert "immutable" in r.headers["Cache-Control"]
            assert (r.json()["from"], r.json()["to"]) == (frm, to)
            assert canon_sections(apply_batch_diff(old, r.json())) == canon_sections(new), (query, frm, to)
            patch = query_diff(server, base, query, frm, to, fmt="json-patch")
            assert patch.status_code == 200, patch.text
            assert canon_sections(apply_json_patch(without(old, "query"), patch.json())) == canon_sections(new)


def poll_in_thread(server, base, query, frm, wait):
    result = {}

    def run():
        r = query_diff(server, base, query, frm, wait=wait, cursor=hold_cursor())
        result["at"] = time.monotonic()
        result["response"] = r

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def test_a_held_poll_is_woken_by_a_write_that_changes_the_result_and_by_no_other(server):
    base = uid("qbase")
    items = [views.item(f"i{n}", {"read": n % 2 == 0, "rank": n}) for n in range(10)]
    rev = views.put_ok(server, base, {"kind": "array", "sections": [{"id": "main", "title": None, "indexTitle": None, "items": items}]})
    unread = {"where": [{"path": "/model/read", "op": "eq", "value": False}], "sort": [{"path": "/model/rank", "order": "desc"}], "limit": 3}
    thread, result = poll_in_thread(server, base, unread, rev, wait=20)
    time.sleep(0.5)
    # A read item changes, and an unread one beyond the limit: neither changes the result.
    r = server.patch(base, [{"op": "replace", "path": "/sections/0/items/0/model/rank", "value": 100},
                            {"op": "replace", "path": "/sections/0/items/1/model/rank", "value": 0}])
    assert r.status_code == 200, r.text
    time.sleep(1.5)
    assert "response" not in result, result["response"].text
    sent = time.monotonic()
    r = server.patch(base, [{"op": "replace", "path": "/sections/0/items/3/model/rank", "value": 50}])
    assert r.status_code == 200, r.text
    thread.join(10)
    answer = result["response"]
    assert answer.status_code == 200, answer.text
    assert result["at"] - sent < 1.0
    assert (answer.json()["from"], answer.json()["to"]) == (rev, rev + 2)
    assert canon_sections(apply_batch_diff(query_doc(server, base, unread, rev), answer.json())) == \
        canon_sections(query_doc(server, base, unread))


def test_a_hold_that_ends_unchanged_moves_to_the_newest_base_revision(server):
    base = uid("qbase")
    rev = views.put_ok(server, base, {"kind": "array", "sections": [{"id": "m", "title": None, "indexTitle": None,
                                                                    "items": [views.item("a", {"k": 1}), views.item("b", {"k": 2})]}]})
    only_a = {"where": [{"path": "/id", "op": "eq", "value": "a"}]}
    thread, result = poll_in_thread(server, base, only_a, rev, wait=2)
    time.sleep(0.3)
    assert server.patch(base, [{"op": "replace", "path": "/sections/0/items/1/model/k", "value": 3}]).status_code == 200
    thread.join(10)
    answer = result["response"].json()
    assert (answer["from"], answer["to"]) == (rev, rev + 1)
    assert answer["items"] == {"deleted": [], "inserted": [], "moved": [], "updated": []}
    assert result["response"].links["next"]["url"].split("?")[1].startswith(f"from={rev + 1}&q=")


def test_next_links_carry_one_canonical_q_whatever_form_was_sent(server):
    base = uid("qbase")
    views.put_ok(server, base, views.random_base(random.Random(3)))
    canonical = {"where": [{"path": "/model/cat", "op": "ne", "value": "x"}], "sort": [{"path": "/model/rank", "order": "desc"}], "limit": 5}
    forms = [
        q_text(canonical),
        '{ "limit":5, "sort":[{"order":"desc","path":"/model/rank"}], "where":[{"value":"x","op":"ne","path":"/model/cat"}], "offset":0, "sections":"keep" }',
    ]
    links = set()
    for form in forms:
        r = server.get(f"/v1/lists/{base}/diff", params={"from": 0, "q": form, "format": "batch", "wait": "1"})
        assert r.status_code == 200, r.text
        target = r.links["next"]["url"]
        links.add(target.rsplit("&cursor=", 1)[0])
        members = [m.split("=", 1)[0] for m in target.split("?", 1)[1].split("&")]
        assert members == ["from", "format", "q", "wait", "cursor"]
    assert len(links) == 1
    encoded = quote(q_text(canonical), safe="-_.!~*'()")
    assert f"&q={encoded}&" in links.pop() + "&"


def test_changing_the_query_is_a_diff_answered_at_once(server):
    base = uid("qbase")
    items = [views.item(f"i{n:02d}", {"rank": n, "cat": "ab"[n % 2]}) for n in range(50)]
    rev = views.put_ok(server, base, {"kind": "array", "sections": [{"id": "m", "title": None, "indexTitle": None, "items": items}]})
    by_rank = {"sort": [{"path": "/model/rank"}], "limit": 20}
    steps = [
        (by_rank, {"sort": [{"path": "/model/rank"}], "limit": 40}),                # show 20 more: inserts only
        (by_rank, {"sort": [{"path": "/model/rank"}], "offset": 20, "limit": 20}),  # the window moves
        (by_rank, {"sort": [{"path": "/model/rank"}], "where": [{"path": "/model/cat", "op": "eq", "value": "a"}], "limit": 20}),
    ]
    for old, new in steps:
        started = time.monotonic()
        r = server.get(f"/v1/lists/{base}/diff", params={"from": rev, "fromQuery": q_text(old), "q": q_text(new), "wait": 20,
                                                         "cursor": hold_cursor()})
        assert time.monotonic() - started < 3, "fromQuery is never held"
        assert r.status_code == 200, r.text
        assert canon_sections(apply_batch_diff(query_doc(server, base, old, rev), r.json())) == canon_sections(query_doc(server, base, new))
        assert "fromQuery" not in r.links["next"]["url"]
    grow = server.get(f"/v1/lists/{base}/diff", params={"from": rev, "fromQuery": q_text(steps[0][0]), "q": q_text(steps[0][1])}).json()
    assert grow["items"]["deleted"] == [] and grow["items"]["moved"] == [] and len(grow["items"]["inserted"]) == 20
    # Without q, fromQuery leads back to the whole list.
    back = server.get(f"/v1/lists/{base}/diff", params={"from": rev, "fromQuery": q_text(by_rank)})
    assert canon_sections(apply_batch_diff(query_doc(server, base, by_rank, rev), back.json())) == canon_sections(server.doc(base))


def test_an_event_stream_sends_only_the_revisions_that_change_the_result(server):
    base = uid("qbase")
    rev = views.put_ok(server, base, {"kind": "array", "sections": [{"id": "m", "title": None, "indexTitle": None,
                                                                    "items": [views.item("a", {"k": 1}), views.item("b", {"k": 2})]}]})
    only_a = {"where": [{"path": "/id", "op": "eq", "value": "a"}]}
    stream = server.sse(f"/v1/lists/{base}/events?from={rev}&q={quote(q_text(only_a))}")
    assert stream.status == 200
    try:
        time.sleep(0.3)
        server.patch(base, [{"op": "replace", "path": "/sections/0/items/1/model/k", "value": 5}])  # rev+1: b only
        server.patch(base, [{"op": "replace", "path": "/sections/0/items/0/model/k", "value": 6}])  # rev+2: a
        event = stream.next_event(timeout=10)
        assert event["event"] == "diff" and event["id"] == str(rev + 2)
        diff = json.loads(event["data"])
        assert (diff["from"], diff["to"]) == (rev, rev + 2)
        assert diff["items"]["updated"][0]["item"]["model"] == {"k": 6}
    finally:
        stream.close()


def test_malformed_queries_are_400_naming_the_member_inside_q(server):
    base = uid("qbase")
    views.put_ok(server, base, views.random_base(random.Random(2)))
    cases = [
        (f"/v1/lists/{base}", {"q": "not json"}, "/q"),
        (f"/v1/lists/{base}", {"q": '{"of":"x"}'}, "/q/of"),
        (f"/v1/lists/{base}/diff", {"from": 0, "q": '{"limit":0}'}, "/q/limit"),
        (f"/v1/lists/{base}/diff", {"from": 0, "q": '{"where":[{"path":"/model/x","op":"near","value":1}]}'}, "/q/where/0/op"),
        (f"/v1/lists/{base}/diff", {"from": 0, "fromQuery": '{"offset":"2"}'}, "/fromQuery/offset"),
        (f"/v1/lists/{base}/events", {"q": '{"sections":"all"}'}, "/q/sections"),
        (f"/v1/lists/{base}", {"q": '{"where":[{"path":"/x","op":"in","value":["' + "y" * 4100 + '"]}]}'}, "/q"),
        (f"/v1/lists/{base}/sections", {"q": "{}"}, "/q"),
        ("/v1/diffs", {"lists": f"{base}:0", "q": "{}"}, "/q"),
    ]
    for path, params, pointer in cases:
        body = assert_problem(server.get(path, params=params), 400)
        assert body["pointer"] == pointer, (path, params, body)


def test_max_queries_answers_503_to_one_more_held_query(make_server):
    server = make_server(env={"LISTDELTA_MAX_QUERIES": "2"})
    base = uid("qbase")
    rev = views.put_ok(server, base, views.random_base(random.Random(4)))
    held = [poll_in_thread(server, base, {"limit": n}, rev, wait=5) for n in (1, 2)]
    time.sleep(0.8)
    r = query_diff(server, base, {"limit": 3}, rev, wait=5, cursor=hold_cursor())
    assert_problem(r, 503)
    assert "Retry-After" in r.headers
    # The same queries again share what is held; an answer at once holds nothing.
    again = poll_in_thread(server, base, {"limit": 1}, rev, wait=1)
    assert query_diff(server, base, {"limit": 3}, 0).status_code == 200
    for thread, result in held + [again]:
        thread.join(10)
        assert result["response"].status_code == 200


@pytest.mark.skipif(pg_support.cluster_dir() is None, reason="no PostgreSQL cluster (scripts/test.sh starts one)")
def test_a_write_on_one_instance_wakes_a_query_poll_on_another(make_server):
    url = pg_support.new_database_url()
    a = make_server(["--database-url", url])
    b = make_server(["--database-url", url])
    base = uid("qbase")
    items = [views.item(f"i{n}", {"read": n % 2 == 0}) for n in range(6)]
    rev = views.put_ok(a, base, {"kind": "array", "sections": [{"id": "m", "title": None, "indexTitle": None, "items": items}]})
    unread = {"where": [{"path": "/model/read", "op": "eq", "value": False}]}
    assert b.doc(base)["revision"] == rev
    thread, result = poll_in_thread(b, base, unread, rev, wait=20)
    time.sleep(0.5)
    assert a.patch(base, [{"op": "add", "path": "/sections/0/items/0/model/x", "value": 1}]).status_code == 200  # read item
    time.sleep(1.5)
    assert "response" not in result
    sent = time.monotonic()
    assert a.patch(base, [{"op": "replace", "path": "/sections/0/items/1/model/read", "value": True}]).status_code == 200
    thread.join(10)
    assert result["response"].status_code == 200, result["response"].text
    assert result["at"] - sent < 1.5
    assert result["response"].json()["to"] == rev + 2
    assert [i["id"] for s in query_doc(b, base, unread)["sections"] for i in s["items"]] == ["i3", "i5"]
