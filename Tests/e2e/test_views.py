"""Views (docs/views.md, docs/api.md Views): a list kept equal, at every revision, to a query over another list.

What a user checks: `PUT/GET/DELETE /v1/lists/{id}/view` and their exact answers, the view's exact document for every
operator, sort order, limit and sections mode, the 409s and 422s (with their `pointer`), that a view follows its base
within a second of the base write's acknowledgement (also through long polls, event streams, a second instance on
PostgreSQL and a `kill -9`), that its diffs replay, its history, and access with scoped tokens.

`expected_view` below is a naive evaluator of the rules, written from the contract alone; the randomized test and the
crash tests compare the service's views with it. Every test works on both stores (LISTDELTA_E2E_STORE=postgres); the
two-instance test needs the throwaway PostgreSQL cluster (scripts/test.sh) and is skipped without it.
"""

import copy
import functools
import json
import random
import re
import threading
import time

import jwt
import pytest
import requests

import pg_support
from conftest import assert_problem, held_diff_poll, uid
from listdelta_apply import apply_batch_diff, apply_json_patch, canon_sections

MAX_ITEMS = 250000  # the default maxItems: a view's default (and largest) limit
DEFINITION_KEYS = ["of", "where", "sort", "offset", "limit", "sections", "basedOn"]
SETTLE_SECONDS = 5  # how long a test waits for a view to reach its base's revision (the contract says 1 s)


# ---------------------------------------------------------------------------
# The naive evaluator (the contract's rules, one by one)


class _Missing:
    def __repr__(self):
        return "MISSING"


MISSING = _Missing()


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_eq(a, b):
    """JSON equality: numbers by value (1 == 1.0), true is not 1, objects without regard to key order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) or is_number(b):
        return is_number(a) and is_number(b) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_eq(a[k], b[k]) for k in a)
    return False


def resolve(item, section_id, path):
    """The value at `path` (a view path) in an item as served, or MISSING."""
    if path == "/section":
        return section_id
    current = {k: v for k, v in item.items() if k in ("id", "type", "cell", "model")}
    for raw in path[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict):
            if token not in current:
                return MISSING
            current = current[token]
        elif isinstance(current, list):
            if not re.fullmatch(r"0|[1-9][0-9]*", token) or int(token) >= len(current):
                return MISSING
            current = current[int(token)]
        else:
            return MISSING
    return current


def holds(value, op, operand):
    """Whether one condition holds for the item's `value` (MISSING when the path is not there)."""
    if op == "exists":
        return (value is not MISSING) == operand
    if value is MISSING:
        return op == "ne"
    if op == "eq":
        return json_eq(value, operand)
    if op == "ne":
        return not json_eq(value, operand)
    if op in ("lt", "lte", "gt", "gte"):
        if not ((is_number(value) and is_number(operand)) or (isinstance(value, str) and isinstance(operand, str))):
            return False
        return {"lt": value < operand, "lte": value <= operand, "gt": value > operand, "gte": value >= operand}[op]
    if op == "in":
        return any(json_eq(value, x) for x in operand)
    if op == "contains":
        if isinstance(value, str):
            return isinstance(operand, str) and operand in value
        if isinstance(value, list):
            return any(json_eq(x, operand) for x in value)
        return False
    if op == "prefix":
        return isinstance(value, str) and value.startswith(operand)
    raise AssertionError(f"unknown op {op}")


def rank(v):
    """missing < null < false < true < numbers < strings < arrays and objects."""
    if v is MISSING:
        return 0
    if v is None:
        return 1
    if v is False:
        return 2
    if v is True:
        return 3
    if is_number(v):
        return 4
    if isinstance(v, str):
        return 5
    return 6


def compare_values(a, b):
    ra, rb = rank(a), rank(b)
    if ra != rb:
        return -1 if ra < rb else 1
    if ra in (4, 5):
        return -1 if a < b else (1 if a > b else 0)  # Python compares str by code point
    return 0


def section_text(v):
    """The `by` rule: a non-empty string as it is, anything else its compact JSON text."""
    if v is MISSING:
        return "null"
    if isinstance(v, str) and v != "":
        return v
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def truncated_id(text):
    raw = text.encode()
    if len(raw) <= 256:
        return text
    cut = raw[:256]
    while True:
        try:
            return cut.decode()
        except UnicodeDecodeError:
            cut = cut[:-1]


def expected_view(view_id, base, definition, max_sections=10000):
    """The view's document (without `revision`) for base document `base` (None: no base). `kind` is left out when
    the base does not exist and the sections are kept (the contract does not say it)."""
    where = definition.get("where", [])
    sort = definition.get("sort", [])
    offset = definition.get("offset", 0)
    limit = definition.get("limit", MAX_ITEMS)
    mode = definition.get("sections", "keep")
    rows = []  # (base section index, section id, item)
    for s, section in enumerate((base or {}).get("sections", [])):
        for item in section["items"]:
            rows.append((s, section["id"], item))
    rows = [r for r in rows if all(holds(resolve(r[2], r[1], c["path"]), c["op"], c["value"]) for c in where)]

    def cmp(x, y):
        for key in sort:
            c = compare_values(resolve(x[2], x[1], key["path"]), resolve(y[2], y[1], key["path"]))
            if key.get("order", "asc") == "desc":
                c = -c
            if c:
                return c
        return 0

    rows = sorted(rows, key=functools.cmp_to_key(cmp))[offset:offset + limit]
    out = {"id": view_id}
    if mode == "keep":
        if base is not None:
            out["kind"] = base["kind"]
        sections = []
        for s, section in enumerate((base or {}).get("sections", [])):
            items = [copy.deepcopy(r[2]) for r in rows if r[0] == s]
            if items:
                sections.append({"id": section["id"], "title": section.get("title"), "indexTitle": section.get("indexTitle"), "items": items})
    elif mode == "none":
        out["kind"] = "array"
        sections = [{"id": "main", "title": None, "indexTitle": None, "items": [copy.deepcopy(r[2]) for r in rows]}]
    else:
        out["kind"] = "sections"
        groups = {}
        for r in rows:
            text = section_text(resolve(r[2], r[1], mode["by"]))
            key = truncated_id(text)  # texts that agree on their first 256 bytes share a section (ids are unique)
            if key not in groups:
                if len(groups) >= max_sections:
                    continue
                groups[key] = {"id": key, "title": text, "indexTitle": None, "items": []}
            groups[key]["items"].append(copy.deepcopy(r[2]))
        sections = list(groups.values())
    if base is not None and "cells" in base:
        out["cells"] = base["cells"]
    out["sections"] = sections
    return out


def assert_view_is_the_query(server, view_id, definition, base_id, max_sections=10000):
    """The view's current document equals the query over its base's current document."""
    r = server.get(base_id)
    base = r.json() if r.status_code == 200 else None
    actual = server.doc(view_id)
    assert actual["revision"] >= 1
    revision = actual["revision"]
    actual = {k: v for k, v in actual.items() if k != "revision"}
    expected = expected_view(view_id, base, definition, max_sections)
    if "kind" not in expected:
        actual.pop("kind", None)
    if actual != expected:
        state = get_view(server, view_id).json()
        latest = revisions(server, view_id)[:3]
        time.sleep(1)
        later = server.doc(view_id)
        raise AssertionError(f"view {view_id} (GET: revision {revision}; 1 s later: revision {later['revision']}, "
                             f"{'now the query' if {k: v for k, v in later.items() if k != 'revision'} == expected else 'still not the query'}) "
                             f"is not the query over {base_id} at revision {(base or {}).get('revision')}: "
                             f"GET view {state}, its newest revisions {latest}, definition {definition}, "
                             f"view {json.dumps(actual)[:2000]}, expected {json.dumps(expected)[:2000]}")


# ---------------------------------------------------------------------------
# HTTP helpers


def put_view(server, view_id, body, token=None, content_type="application/json"):
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return server.request("PUT", f"/v1/lists/{view_id}/view", data=data, headers=headers)


def get_view(server, view_id, token=None):
    return server.get(f"/v1/lists/{view_id}/view", headers={"Authorization": f"Bearer {token}"} if token else None)


def delete_view(server, view_id, token=None):
    return server.request("DELETE", f"/v1/lists/{view_id}/view", headers={"Authorization": f"Bearer {token}"} if token else {})


def revisions(server, list_id):
    r = server.get(f"/v1/lists/{list_id}/revisions", params={"limit": 1000})
    assert r.status_code == 200, r.text
    return r.json()["revisions"]


def revert(server, list_id, to):
    return server.request("POST", f"/v1/lists/{list_id}/revert", data=json.dumps({"to": to}),
                          headers={"Content-Type": "application/json"})


def make_view(server, view_id, definition, status=201):
    r = put_view(server, view_id, definition)
    assert r.status_code == status, r.text
    return r.json()


def settle(server, view_id, base_revision, timeout=SETTLE_SECONDS):
    """Waits until the view was computed from `base_revision` of its base; returns GET .../view."""
    deadline = time.monotonic() + timeout
    while True:
        r = get_view(server, view_id)
        assert r.status_code == 200, r.text
        state = r.json()
        if state["basedOn"] == base_revision:
            return state
        assert time.monotonic() < deadline, f"view {view_id} at basedOn {state['basedOn']}, not {base_revision}"
        time.sleep(0.02)


def base_revision(server, base_id):
    r = server.get(base_id)
    return r.json()["revision"] if r.status_code == 200 else 0


def put_ok(server, list_id, body, **kw):
    r = server.put(list_id, body, **kw)
    assert r.status_code in (200, 201), r.text
    return r.json()["revision"]


def item(item_id, model=None, type_=None, cell="C"):
    out = {"id": item_id, "cell": cell, "model": model}
    if type_ is not None:
        out["type"] = type_
    return out


def ids(doc):
    return [i["id"] for s in doc["sections"] for i in s["items"]]


# ---------------------------------------------------------------------------
# The definition: defaults, 201/200, GET, DELETE


def test_a_view_is_answered_with_its_defaults_filled_in(server):
    base, view = uid("base"), uid("view")
    rev = put_ok(server, base, {"kind": "sections", "sections": [
        {"id": "s", "title": "S", "indexTitle": None, "items": [item("a", {"n": 1})]}]})
    r = put_view(server, view, {"of": base})
    assert r.status_code == 201, r.text
    assert r.headers["Content-Type"].split(";")[0] == "application/json"
    assert r.json() == {"of": base, "where": [], "sort": [], "offset": 0, "limit": MAX_ITEMS, "sections": "keep", "basedOn": rev}
    assert list(r.json()) == DEFINITION_KEYS
    assert get_view(server, view).json() == r.json()
    # The view's content is there at once, as revision 1 of the new list.
    doc = server.doc(view)
    assert doc == {"id": view, "kind": "sections", "revision": 1,
                   "sections": [{"id": "s", "title": "S", "indexTitle": None, "items": [item("a", {"n": 1})]}]}
    # A sort key without `order` is answered with "asc"; a changed definition is 200 and makes a view revision.
    definition = {"of": base, "where": [{"path": "/id", "op": "eq", "value": "zzz"}], "sort": [{"path": "/model/n"}],
                  "limit": 5, "sections": {"by": "/model/n"}}
    r = put_view(server, view, definition)
    assert r.status_code == 200, r.text
    assert r.json() == {"of": base, "where": [{"path": "/id", "op": "eq", "value": "zzz"}],
                        "sort": [{"path": "/model/n", "order": "asc"}], "offset": 0, "limit": 5,
                        "sections": {"by": "/model/n"}, "basedOn": rev}
    assert server.doc(view) == {"id": view, "kind": "sections", "revision": 2, "sections": []}
    # The same definition again: 200, nothing written.
    r = put_view(server, view, definition)
    assert r.status_code == 200 and r.json()["basedOn"] == rev
    assert server.doc(view)["revision"] == 2
    # What GET .../view answers can be sent back as it is: its read-only basedOn (even a wrong one) is ignored.
    served = get_view(server, view).json()
    r = put_view(server, view, {**served, "basedOn": 999})
    assert r.status_code == 200 and r.json() == served
    assert server.doc(view)["revision"] == 2
    assert [h["by"] for h in revisions(server, view)] == [{"op": "view", "of": base, "revision": rev}] * 2


def test_a_view_of_a_list_that_does_not_exist_is_created_empty_and_filled_when_the_base_comes(server):
    base, keep, flat = uid("nobase"), uid("view"), uid("view")
    r = put_view(server, keep, {"of": base})
    assert r.status_code == 201, r.text
    assert r.json()["basedOn"] == 0
    doc = server.doc(keep)
    assert doc["revision"] == 1 and doc["sections"] == [] and doc["id"] == keep
    assert put_view(server, flat, {"of": base, "sections": "none"}).status_code == 201
    assert server.doc(flat) == {"id": flat, "kind": "array", "revision": 1,
                                "sections": [{"id": "main", "title": None, "indexTitle": None, "items": []}]}
    rev = put_ok(server, base, {"kind": "array", "title": "Fruits", "items": [item("apple"), item("pear")]})
    for view, definition in ((keep, {"of": base}), (flat, {"of": base, "sections": "none"})):
        settle(server, view, rev)
        assert_view_is_the_query(server, view, definition, base)
    assert server.doc(keep)["kind"] == "array"
    assert server.doc(keep)["sections"] == [{"id": "main", "title": "Fruits", "indexTitle": "F", "items": [item("apple"), item("pear")]}]


def test_an_existing_list_becomes_a_view_with_one_more_revision(server):
    base, view = uid("base"), uid("view")
    rev = put_ok(server, base, {"items": [item("x", {"v": 1}), item("y", {"v": 2})]})
    put_ok(server, view, {"items": [item("mine")]})
    put_ok(server, view, {"items": [item("mine"), item("more")]})
    r = put_view(server, view, {"of": base, "where": [{"path": "/model/v", "op": "gt", "value": 1}]})
    assert r.status_code == 201, r.text
    doc = server.doc(view)
    assert doc["revision"] == 3 and ids(doc) == ["y"]
    assert [h["by"]["op"] for h in revisions(server, view)] == ["view", "put", "put"]
    assert revisions(server, view)[0]["by"] == {"op": "view", "of": base, "revision": rev}


def test_changing_the_base_recomputes_the_view_from_the_new_base_only(server):
    first, second, view = uid("base"), uid("base"), uid("view")
    put_ok(server, first, {"items": [item("a", {"n": 1})]})
    put_ok(server, second, {"items": [item("x", {"n": 5})]})
    second_rev = put_ok(server, second, {"items": [item("x", {"n": 5}), item("y", {"n": 6})]})
    make_view(server, view, {"of": first, "sections": "none"})
    state = make_view(server, view, {"of": second, "sections": "none"}, status=200)
    assert state["of"] == second and state["basedOn"] == second_rev
    assert ids(server.doc(view)) == ["x", "y"]
    assert revisions(server, view)[0]["by"] == {"op": "view", "of": second, "revision": second_rev}
    # The old base no longer moves it; the new one does.
    put_ok(server, first, {"items": [item("a", {"n": 1}), item("b", {"n": 2})]})
    rev = put_ok(server, second, {"items": [item("y", {"n": 6})]})
    settle(server, view, rev)
    assert ids(server.doc(view)) == ["y"]
    assert get_view(server, view).json()["of"] == second


def test_the_limit_is_bounded_by_max_items(make_server):
    server = make_server(env={"LISTDELTA_MAX_ITEMS": "100"})
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item(f"i{n}") for n in range(100)]})
    assert make_view(server, view, {"of": base})["limit"] == 100
    assert make_view(server, view, {"of": base, "limit": 100}, status=200)["limit"] == 100
    problem = assert_problem(put_view(server, view, {"of": base, "limit": 101}), 422)
    assert problem["pointer"] == "/limit"
    assert len(ids(server.doc(view))) == 100


def test_view_writes_need_a_write_token_when_tokens_are_configured(make_server):
    server = make_server(["--write-token", "secret"])
    base, view = uid("base"), uid("view")
    assert server.put(base, {"items": [item("a")]}, headers={"Authorization": "Bearer secret"}).status_code == 201
    assert_problem(put_view(server, view, {"of": base}), 401)
    assert_problem(put_view(server, view, {"of": base}, token="wrong"), 403)
    assert put_view(server, view, {"of": base}, token="secret").status_code == 201
    assert get_view(server, view).status_code == 200  # reads stay public
    assert_problem(delete_view(server, view), 401)
    assert_problem(delete_view(server, view, token="wrong"), 403)
    assert delete_view(server, view, token="secret").status_code == 204


def test_get_and_delete_of_a_list_that_is_no_view_are_404(server):
    plain = uid("plain")
    put_ok(server, plain, {"items": []})
    for lid in (plain, uid("none")):
        assert_problem(get_view(server, lid), 404)
        assert_problem(delete_view(server, lid), 404)


def test_delete_view_keeps_the_list_writable_and_it_no_longer_follows(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a"), item("b")]})
    make_view(server, view, {"of": base, "sort": [{"path": "/id", "order": "desc"}]})
    before = server.doc(view)
    assert ids(before) == ["b", "a"]
    r = delete_view(server, view)
    assert r.status_code == 204 and not r.content
    assert_problem(get_view(server, view), 404)
    assert_problem(delete_view(server, view), 404)
    assert server.doc(view) == before
    rev = put_ok(server, base, {"items": [item("c")]})
    time.sleep(1.5)
    assert server.doc(view) == before  # no longer follows
    assert server.put(view, {"kind": "array", "items": [item("own")]}).status_code == 200
    assert server.doc(view)["revision"] == before["revision"] + 1
    assert revisions(server, view)[0]["by"] == {"op": "put"}
    # And it may become a view again.
    assert put_view(server, view, {"of": base}).status_code == 201
    settle(server, view, rev)
    assert ids(server.doc(view)) == ["c"]


def test_deleting_the_view_list_detaches_the_view(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a")]})
    make_view(server, view, {"of": base})
    assert server.delete(view).status_code == 204
    assert_problem(server.get(view), 404)
    assert_problem(get_view(server, view), 404)
    put_ok(server, base, {"items": [item("a"), item("b")]})
    time.sleep(1.5)
    assert_problem(server.get(view), 404)  # the base's writes do not bring it back
    assert_problem(get_view(server, view), 404)
    # The id is free: a plain list now.
    assert server.put(view, {"items": []}).status_code == 201
    assert_problem(get_view(server, view), 404)


# ---------------------------------------------------------------------------
# Conditions: every operator


OPS_BASE = {
    "kind": "sections",
    "sections": [
        {"id": "s1", "title": "One", "indexTitle": "1", "items": [
            item("a", {"n": 1, "s": "apple", "tags": ["x", "y"], "read": False}, "T1"),
            item("b", {"n": 1.0, "s": "Banana", "tags": ["y"], "read": True}, "T1"),
            item("c", {"n": 2.5, "s": "cherry", "tags": [], "read": False, "extra": None}, "T1"),
            item("d", {"n": "3", "s": "", "read": True}, "T2"),
        ]},
        {"id": "s2", "title": "Two", "indexTitle": "2", "items": [
            item("e", {"n": None, "s": "\u00e1pple", "tags": "x y"}, "T2"),
            item("f", {"n": 10, "s": "b", "nested": {"k": [1, {"z": True}]}, "a/b": 1, "~t": 2}),
            item("g", None, cell="C2"),
            item("h", {"n": -1, "s": "apple pie", "tags": ["x"], "read": False, "obj": {"a": 1, "b": 2}}, "T1"),
            item("i", {"s": "\U0001F600"}, "T3"),
            item("j", {"s": "\uff21"}, "T3"),
        ]},
    ],
}

ALL = list("abcdefghij")


@pytest.fixture(scope="module")
def ops_base(server):
    base = uid("ops")
    put_ok(server, base, OPS_BASE)
    return base


@pytest.mark.parametrize("conditions, expected", [
    # eq: JSON equality, numbers by value, objects without key order, arrays element by element
    ([("/model/n", "eq", 1)], ["a", "b"]),
    ([("/model/n", "eq", 1.0)], ["a", "b"]),
    ([("/model/n", "eq", "3")], ["d"]),
    ([("/model/n", "eq", 3)], []),
    ([("/model/n", "eq", None)], ["e"]),
    ([("/model/read", "eq", 0)], []),
    ([("/model/read", "eq", False)], ["a", "c", "h"]),
    ([("/model/obj", "eq", {"b": 2, "a": 1})], ["h"]),
    ([("/model/tags", "eq", ["x", "y"])], ["a"]),
    ([("/model/tags", "eq", ["y", "x"])], []),
    ([("/model", "eq", None)], ["g"]),
    ([("/model/nested/k/1/z", "eq", True)], ["f"]),
    ([("/model/tags/0", "eq", "x")], ["a", "h"]),
    ([("/model/a~1b", "eq", 1)], ["f"]),
    ([("/model/~0t", "eq", 2)], ["f"]),
    # ne: a missing path is "not equal"
    ([("/model/n", "ne", 1)], ["c", "d", "e", "f", "g", "h", "i", "j"]),
    ([("/model/read", "ne", True)], ["a", "c", "e", "f", "g", "h", "i", "j"]),
    # lt/lte/gt/gte: numbers with numbers, strings with strings (by code point), else false
    ([("/model/n", "lt", 2)], ["a", "b", "h"]),
    ([("/model/n", "lte", 2.5)], ["a", "b", "c", "h"]),
    ([("/model/n", "gt", 2.5)], ["f"]),
    ([("/model/n", "gte", 2.5)], ["c", "f"]),
    ([("/model/n", "lt", "4")], ["d"]),
    ([("/model/s", "gt", "apple")], ["c", "e", "f", "h", "i", "j"]),
    ([("/model/s", "lt", "b")], ["a", "b", "d", "h"]),
    ([("/model/s", "gte", 0)], []),
    ([("/model/s", "gt", "\uff21")], ["i"]),  # U+1F600 > U+FF21 by code point (not by UTF-16 unit)
    ([("/model/s", "lt", "\U0001F600")], ["a", "b", "c", "d", "e", "f", "h", "j"]),
    # in
    ([("/model/n", "in", [1, "3", None])], ["a", "b", "d", "e"]),
    ([("/model/s", "in", [])], []),
    # contains: a substring of a string, an element of an array
    ([("/model/s", "contains", "pp")], ["a", "e", "h"]),
    ([("/model/tags", "contains", "x")], ["a", "e", "h"]),
    ([("/model/tags", "contains", "y")], ["a", "b", "e"]),
    ([("/model/nested/k", "contains", {"z": True})], ["f"]),
    ([("/model/n", "contains", 1)], []),
    # prefix
    ([("/model/s", "prefix", "app")], ["a", "h"]),
    ([("/model/s", "prefix", "")], ["a", "b", "c", "d", "e", "f", "h", "i", "j"]),
    ([("/model/n", "prefix", "3")], ["d"]),
    # exists
    ([("/model/extra", "exists", True)], ["c"]),
    ([("/model/read", "exists", False)], ["e", "f", "g", "i", "j"]),
    ([("/type", "exists", False)], ["f", "g"]),
    ([("/type", "exists", True)], ["a", "b", "c", "d", "e", "h", "i", "j"]),
    # the item's own members and /section
    ([("/type", "eq", "T2")], ["d", "e"]),
    ([("/cell", "eq", "C2")], ["g"]),
    ([("/id", "in", ["c", "zz", "j"])], ["c", "j"]),
    ([("/section", "eq", "s2")], ["e", "f", "g", "h", "i", "j"]),
    ([("/section", "ne", "s1")], ["e", "f", "g", "h", "i", "j"]),
    ([("/section", "prefix", "s")], ALL),
    # all conditions hold; none at all
    ([("/section", "eq", "s1"), ("/model/read", "eq", False)], ["a", "c"]),
    ([], ALL),
])
def test_every_operator(server, ops_base, conditions, expected):
    where = [{"path": p, "op": op, "value": v} for p, op, v in conditions]
    definition = {"of": ops_base, "where": where, "sections": "none"}
    # The evaluator agrees with the expectation written by hand (it checks the other tests).
    assert ids(expected_view("x", OPS_BASE, definition)) == expected
    view = uid("op")
    state = make_view(server, view, definition)
    assert state["where"] == where and state["basedOn"] == 1
    doc = server.doc(view)
    assert ids(doc) == expected, (conditions, ids(doc))
    assert_view_is_the_query(server, view, definition, ops_base)


# ---------------------------------------------------------------------------
# Sort and limit


SORT_VALUES = {
    "i12": {"x": 1}, "i5": 3, "i1": MISSING, "i9": "B", "i3": False, "i14": [0], "i7": 1.5, "i2": None, "i10": "",
    "i13": 3, "i4": True, "i15": MISSING, "i6": -2, "i11": [1], "i8": "b",
}


def sort_base():
    items = []
    for n, (item_id, v) in enumerate(SORT_VALUES.items()):
        model = {"g": n % 2} if v is MISSING else {"v": v, "g": n % 2}
        items.append(item(item_id, model))
    return {"kind": "sections", "sections": [
        {"id": "first", "title": "First", "indexTitle": "F", "items": items[:7]},
        {"id": "second", "title": "Second", "indexTitle": "S", "items": items[7:]},
    ]}


ASC = ["i1", "i15", "i2", "i3", "i4", "i6", "i7", "i5", "i13", "i10", "i9", "i8", "i12", "i14", "i11"]
DESC = ["i12", "i14", "i11", "i8", "i9", "i10", "i5", "i13", "i7", "i6", "i4", "i3", "i2", "i1", "i15"]


@pytest.fixture(scope="module")
def sorted_base(server):
    base = uid("sort")
    put_ok(server, base, sort_base())
    return base


@pytest.mark.parametrize("sort, limit, expected", [
    ([{"path": "/model/v", "order": "asc"}], None, ASC),
    ([{"path": "/model/v"}], None, ASC),
    ([{"path": "/model/v", "order": "desc"}], None, DESC),
    ([{"path": "/model/v"}], 4, ASC[:4]),
    ([{"path": "/model/v", "order": "desc"}], 3, DESC[:3]),
    ([{"path": "/model/v"}], 1, ASC[:1]),
    ([], None, list(SORT_VALUES)),  # the base's order
    ([], 2, list(SORT_VALUES)[:2]),
    # several keys: the first first, ties broken by the next, then the base's order
    ([{"path": "/section", "order": "desc"}, {"path": "/model/v"}], None,
     [i for i in ASC if i in list(SORT_VALUES)[7:]] + [i for i in ASC if i in list(SORT_VALUES)[:7]]),
    ([{"path": "/model/g"}, {"path": "/model/v", "order": "desc"}], None, None),  # computed in the test
])
def test_sort_with_mixed_types_ties_and_limit(server, sorted_base, sort, limit, expected):
    definition = {"of": sorted_base, "sort": sort, "sections": "none"}
    if limit is not None:
        definition["limit"] = limit
    if expected is None:  # computed: g = index % 2 in the base's order
        order = list(SORT_VALUES)
        expected = [i for i in DESC if order.index(i) % 2 == 0] + [i for i in DESC if order.index(i) % 2 == 1]
    assert ids(expected_view("x", sort_base(), definition)) == expected
    view = uid("sorted")
    state = make_view(server, view, definition)
    assert state["sort"] == [{"path": k["path"], "order": k.get("order", "asc")} for k in sort]
    assert state["limit"] == (MAX_ITEMS if limit is None else limit)
    assert ids(server.doc(view)) == expected
    assert_view_is_the_query(server, view, definition, sorted_base)


def test_sorted_items_stay_in_their_sections_with_keep(server, sorted_base):
    view = uid("sorted")
    definition = {"of": sorted_base, "sort": [{"path": "/model/v", "order": "desc"}], "limit": 6}
    make_view(server, view, definition)
    doc = server.doc(view)
    # The six first of DESC, each in its base section, sections in the base's order.
    first = set(list(SORT_VALUES)[:7])
    assert [(s["id"], [i["id"] for i in s["items"]]) for s in doc["sections"]] == [
        ("first", [i for i in DESC[:6] if i in first]), ("second", [i for i in DESC[:6] if i not in first])]
    assert_view_is_the_query(server, view, definition, sorted_base)


def test_a_window_takes_limit_items_after_offset_and_moves_with_base_writes(server):
    base, view = uid("base"), uid("window")
    put_ok(server, base, {"items": [item(f"i{n}", {"n": n}) for n in range(10)]})
    definition = {"of": base, "sort": [{"path": "/model/n", "order": "desc"}], "offset": 4, "limit": 3, "sections": "none"}
    state = make_view(server, view, definition)
    assert (state["offset"], state["limit"]) == (4, 3)
    assert ids(server.doc(view)) == ["i5", "i4", "i3"]
    # An item that sorts before the window pushes the window's items down by one.
    revision = put_ok(server, base, {"items": [item(f"i{n}", {"n": n}) for n in (*range(10), 20)]})
    settle(server, view, revision)
    assert ids(server.doc(view)) == ["i6", "i5", "i4"]
    # One removed before the window pulls them back up; one removed after it changes nothing shown.
    revision = put_ok(server, base, {"items": [item(f"i{n}", {"n": n}) for n in (*range(1, 9), 20)]})
    settle(server, view, revision)
    assert ids(server.doc(view)) == ["i5", "i4", "i3"]
    assert_view_is_the_query(server, view, definition, base)
    # A window past the last match holds nothing.
    state = make_view(server, view, {**definition, "offset": 9}, status=200)
    settle(server, view, revision)
    assert ids(server.doc(view)) == []


# ---------------------------------------------------------------------------
# Sections


def test_keep_keeps_titles_and_index_titles_and_leaves_empty_sections_out(server):
    base, view = uid("base"), uid("view")
    body = {"kind": "sections", "cells": {"T": "TCell"}, "sections": [
        {"id": "top", "title": "Top", "indexTitle": "T", "items": [{"id": "1", "type": "T", "model": {"keep": True}}]},
        {"id": "mid", "title": "Middle", "indexTitle": None, "items": [{"id": "2", "type": "T", "model": {"keep": False}}]},
        {"id": "low", "title": None, "indexTitle": "L", "items": [{"id": "3", "type": "T", "model": {"keep": True}},
                                                                  {"id": "4", "type": "T", "model": {}}]},
        {"id": "empty", "title": "Empty", "indexTitle": "E", "items": []},
    ]}
    put_ok(server, base, body)
    make_view(server, view, {"of": base, "where": [{"path": "/model/keep", "op": "eq", "value": True}]})
    doc = server.doc(view)
    assert doc == {"id": view, "kind": "sections", "revision": 1, "cells": {"T": "TCell"}, "sections": [
        {"id": "top", "title": "Top", "indexTitle": "T", "items": [{"id": "1", "type": "T", "cell": "TCell", "model": {"keep": True}}]},
        {"id": "low", "title": None, "indexTitle": "L", "items": [{"id": "3", "type": "T", "cell": "TCell", "model": {"keep": True}}]},
    ]}
    # Nothing left: no section at all.
    make_view(server, view, {"of": base, "where": [{"path": "/id", "op": "eq", "value": "none"}]}, status=200)
    assert server.doc(view)["sections"] == []
    assert server.doc(view)["kind"] == "sections"


def test_none_is_one_main_section_of_an_array(server, ops_base):
    view = uid("view")
    definition = {"of": ops_base, "where": [{"path": "/type", "op": "eq", "value": "T2"}], "sections": "none"}
    make_view(server, view, definition)
    doc = server.doc(view)
    assert doc == {"id": view, "kind": "array", "revision": 1, "sections": [
        {"id": "main", "title": None, "indexTitle": None, "items": [OPS_BASE["sections"][0]["items"][3], OPS_BASE["sections"][1]["items"][0]]}]}


def test_by_groups_by_the_text_of_a_value(server):
    base, view = uid("base"), uid("view")
    models = [("a", {"cat": 12}), ("b", {"cat": "Fruit"}), ("c", {"cat": "12"}), ("d", {}), ("e", {"cat": None}),
              ("f", {"cat": ""}), ("g", {"cat": True}), ("h", {"cat": [1, 2]}), ("i", {"cat": "Fruit"}), ("j", {"cat": "null"})]
    rev = put_ok(server, base, {"kind": "sections", "sections": [
        {"id": "x", "title": "X", "items": [item(i, m) for i, m in models[:5]]},
        {"id": "y", "title": "Y", "items": [item(i, m) for i, m in models[5:]]}]})
    definition = {"of": base, "sections": {"by": "/model/cat"}}
    state = make_view(server, view, definition)
    assert state["sections"] == {"by": "/model/cat"} and state["basedOn"] == rev
    doc = server.doc(view)
    assert doc["kind"] == "sections"
    assert [(s["id"], s["title"], s["indexTitle"], [i["id"] for i in s["items"]]) for s in doc["sections"]] == [
        ("12", "12", None, ["a", "c"]),           # 12 and "12": one section
        ("Fruit", "Fruit", None, ["b", "i"]),
        ("null", "null", None, ["d", "e", "j"]),  # missing, null and the string "null"
        ('""', '""', None, ["f"]),                # the empty string
        ("true", "true", None, ["g"]),
        ("[1,2]", "[1,2]", None, ["h"]),
    ]
    assert_view_is_the_query(server, view, definition, base)
    # The order of first appearance is that of the sorted items.
    definition = {"of": base, "sort": [{"path": "/id", "order": "desc"}], "sections": {"by": "/model/cat"}}
    make_view(server, view, definition, status=200)
    assert [s["id"] for s in server.doc(view)["sections"]] == ["null", "Fruit", "[1,2]", "true", '""', "12"]
    assert_view_is_the_query(server, view, definition, base)
    # By /section: one section per base section, titled with its id.
    make_view(server, view, {"of": base, "sections": {"by": "/section"}}, status=200)
    assert [(s["id"], s["title"]) for s in server.doc(view)["sections"]] == [("x", "x"), ("y", "y")]


def test_by_cuts_long_ids_at_a_character_boundary(server):
    base, view = uid("base"), uid("view")
    long_text = "\u00e9" * 200  # 400 UTF-8 bytes
    put_ok(server, base, {"items": [item("a", {"cat": long_text}), item("b", {"cat": "x" * 255 + "\u00e9"})]})
    make_view(server, view, {"of": base, "sections": {"by": "/model/cat"}})
    sections = server.doc(view)["sections"]
    assert [s["id"] for s in sections] == ["\u00e9" * 128, "x" * 255]
    assert [len(s["id"].encode()) for s in sections] == [256, 255]
    assert [s["title"] for s in sections] == [long_text, "x" * 255 + "\u00e9"]
    # Texts that agree on their first 256 bytes share one section (ids are unique), titled with the first text.
    shared = "y" * 256
    definition = {"of": base, "sections": {"by": "/model/cat"}}
    put_ok(server, base, {"items": [item("a", {"cat": shared + "A"}), item("b", {"cat": shared + "B"}), item("c", {"cat": shared})]})
    settle(server, view, base_revision(server, base))
    assert [(s["id"], s["title"], [i["id"] for i in s["items"]]) for s in server.doc(view)["sections"]] == [
        (shared, shared + "A", ["a", "b", "c"])]
    assert_view_is_the_query(server, view, definition, base)


def test_by_makes_at_most_max_sections_groups(make_server):
    server = make_server(env={"LISTDELTA_MAX_SECTIONS": "3"})
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item(f"i{n}", {"cat": f"c{n % 5}"}) for n in range(10)]})
    definition = {"of": base, "sections": {"by": "/model/cat"}}
    make_view(server, view, definition)
    doc = server.doc(view)
    assert [(s["id"], [i["id"] for i in s["items"]]) for s in doc["sections"]] == [
        ("c0", ["i0", "i5"]), ("c1", ["i1", "i6"]), ("c2", ["i2", "i7"])]
    assert_view_is_the_query(server, view, definition, base, max_sections=3)


# ---------------------------------------------------------------------------
# Following the base


def test_a_deleted_base_empties_the_view_and_a_recreated_one_fills_it(server):
    base, keep, flat = uid("base"), uid("view"), uid("view")
    rev = put_ok(server, base, {"kind": "sections", "sections": [{"id": "s", "title": "S", "items": [item("a"), item("b")]}]})
    make_view(server, keep, {"of": base})
    make_view(server, flat, {"of": base, "sections": "none"})
    assert server.delete(base).status_code == 204
    for view in (keep, flat):
        state = settle(server, view, 0)
        assert state["basedOn"] == 0
    assert server.doc(keep)["sections"] == [] and server.doc(keep)["revision"] == 2
    assert server.doc(flat)["sections"] == [{"id": "main", "title": None, "indexTitle": None, "items": []}]
    for view in (keep, flat):
        history = revisions(server, view)
        assert [h["by"] for h in history] == [{"op": "view", "of": base, "revision": 0}, {"op": "view", "of": base, "revision": rev}]
    # The base comes back (its revisions never reuse a number): the views fill again.
    again = put_ok(server, base, {"kind": "sections", "sections": [{"id": "t", "title": "T", "items": [item("c")]}]})
    assert again > rev
    for view, definition in ((keep, {"of": base}), (flat, {"of": base, "sections": "none"})):
        settle(server, view, again)
        assert_view_is_the_query(server, view, definition, base)
        assert server.doc(view)["revision"] == 3
        assert revisions(server, view)[0]["by"] == {"op": "view", "of": base, "revision": again}


def test_a_base_revision_that_does_not_change_the_view_makes_no_view_revision_but_moves_based_on(server):
    base, view = uid("base"), uid("view")
    docs = lambda read_b: {"items": [item("a", {"read": False}), item("b", {"read": read_b, "text": str(read_b)})]}  # noqa: E731
    put_ok(server, base, docs(True))
    make_view(server, view, {"of": base, "where": [{"path": "/model/read", "op": "eq", "value": False}]})
    assert server.doc(view)["revision"] == 1
    for n in range(3):
        rev = put_ok(server, base, {"items": [item("a", {"read": False}), item("b", {"read": True, "n": n})]})
        settle(server, view, rev)
        assert server.doc(view)["revision"] == 1
    assert len(revisions(server, view)) == 1
    # One that does change it makes one.
    rev = put_ok(server, base, docs(False))
    settle(server, view, rev)
    assert server.doc(view)["revision"] == 2 and ids(server.doc(view)) == ["a", "b"]
    assert revisions(server, view)[0]["by"] == {"op": "view", "of": base, "revision": rev}


def test_when_based_on_names_a_base_revision_the_document_is_the_one_computed_from_it(server):
    """`basedOn` is the base revision the view's *current* revision was computed from: once GET .../view names R, the
    document served is that revision (the newest of the history, `by` naming R), never the one before."""
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a", {"cat": "x"})]})
    make_view(server, view, {"of": base, "where": [{"path": "/model/cat", "op": "eq", "value": "x"}], "sections": {"by": "/model/cat"}})
    stale = []
    for n in range(150):
        rev = put_ok(server, base, {"items": [item("a", {"cat": "x" if n % 2 else "y"})]})
        settle(server, view, rev)
        doc = server.doc(view)
        newest = revisions(server, view)[0]
        if (doc["revision"], newest["by"]["revision"]) != (newest["revision"], rev):
            stale.append({"base": rev, "document": doc["revision"], "newest": newest["revision"], "by": newest["by"]})
    assert stale == []


def test_a_view_follows_its_base_within_a_second_of_the_write(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item(f"i{n}", {"n": n}) for n in range(50)]})
    definition = {"of": base, "where": [{"path": "/model/n", "op": "gte", "value": 10}],
                  "sort": [{"path": "/model/n", "order": "desc"}], "limit": 20, "sections": "none"}
    make_view(server, view, definition)
    lags = []
    for k in range(6):
        r = server.put(base, {"items": [item(f"i{n}", {"n": n + k + 1}) for n in range(50 + k)]})
        assert r.status_code == 200, r.text
        acknowledged = time.monotonic()
        rev = r.json()["revision"]
        while get_view(server, view).json()["basedOn"] != rev:
            assert time.monotonic() - acknowledged < SETTLE_SECONDS
            time.sleep(0.005)
        lags.append(time.monotonic() - acknowledged)
        assert_view_is_the_query(server, view, definition, base)
        time.sleep(0.2)
    assert max(lags) < 1.0, lags


def test_views_of_a_5000_item_base_follow_within_a_second(server):
    """The 1 s bound with a base of some size: four views (the 20 newest unread, all items by category, all items
    re-sorted, a few) follow single-item patches and a PUT that reverses every section."""
    base = uid("large")
    items = [item(f"i{n}", {"n": n, "cat": f"c{n % 37}", "read": n % 3 == 0}) for n in range(5000)]
    sections = [{"id": f"s{k}", "title": f"S{k}", "indexTitle": None, "items": items[k::10]} for k in range(10)]
    put_ok(server, base, {"kind": "sections", "sections": sections})
    definitions = {
        uid("large-view"): {"of": base, "where": [{"path": "/model/read", "op": "eq", "value": False}],
                            "sort": [{"path": "/model/n", "order": "desc"}], "limit": 20, "sections": "none"},
        uid("large-view"): {"of": base, "sections": {"by": "/model/cat"}},
        uid("large-view"): {"of": base, "sort": [{"path": "/model/cat"}, {"path": "/id", "order": "desc"}]},
        uid("large-view"): {"of": base, "where": [{"path": "/model/n", "op": "lt", "value": 100}]},
    }
    for view, definition in definitions.items():
        make_view(server, view, definition)
    lags = []

    def measure(response):
        assert response.status_code == 200, response.text
        acknowledged, rev = time.monotonic(), response.json()["revision"]
        for view in definitions:
            while get_view(server, view).json()["basedOn"] != rev:
                assert time.monotonic() - acknowledged < SETTLE_SECONDS
                time.sleep(0.005)
        lags.append(round(time.monotonic() - acknowledged, 3))

    for k, n in enumerate((17, 2500, 4999, 3)):
        measure(server.patch(base, [{"op": "replace", "path": f"/sections/{n % 10}/items/{n // 10}/model/n", "value": 10000 + k}]))
    measure(server.put(base, {"kind": "sections", "sections": [dict(s, items=list(reversed(s["items"]))) for s in sections]}))
    for view, definition in definitions.items():
        assert_view_is_the_query(server, view, definition, base)
    assert max(lags) < 1.0, lags


def test_a_held_long_poll_on_the_view_is_woken_by_a_base_write(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a", {"n": 1})]})
    make_view(server, view, {"of": base, "sort": [{"path": "/model/n", "order": "desc"}]})
    rev = server.doc(view)["revision"]
    thread, result = held_diff_poll(server, view, rev, wait=20)
    time.sleep(1.0)
    assert thread.is_alive(), f"the poll answered before any write: {result}"
    r = server.put(base, {"items": [item("a", {"n": 1}), item("b", {"n": 2})]})
    assert r.status_code == 200
    acknowledged = time.monotonic()
    thread.join(10)
    assert result.get("status") == 200, result
    assert result["at"] - acknowledged < 1.0, result["at"] - acknowledged
    diff = result["body"]
    assert (diff["id"], diff["from"], diff["to"]) == (view, rev, rev + 1)
    assert diff["items"]["inserted"] == [{"at": [0, 0], "item": item("b", {"n": 2})}]
    assert diff["counts"] == {"from": [1], "to": [2]}
    assert "next" in result["headers"].get("Link", "")


def test_an_event_stream_on_the_view_receives_the_diff_of_a_base_write(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a", {"c": "x"}), item("b", {"c": "y"})]})
    make_view(server, view, {"of": base, "sections": {"by": "/model/c"}})
    rev = server.doc(view)["revision"]
    stream = server.sse(f"/v1/lists/{view}/events?from={rev}", timeout=10)
    try:
        assert stream.status == 200
        time.sleep(0.3)
        put_ok(server, base, {"items": [item("a", {"c": "y"}), item("b", {"c": "y"}), item("c", {"c": "z"})]})
        event = stream.next_event(timeout=5)
        assert event is not None and event["event"] == "diff", event
        diff = json.loads(event["data"])
        assert (diff["id"], diff["from"], diff["to"], event["id"]) == (view, rev, rev + 1, str(rev + 1))
        after = server.doc(view, rev + 1)
        assert apply_batch_diff(server.doc(view, rev), diff) == {"sections": canon_sections(after)}
        assert [(s["id"], ids({"sections": [s]})) for s in after["sections"]] == [("y", ["a", "b"]), ("z", ["c"])]
        # The base deleted: the view is emptied, one more diff (no reset: the view itself still exists).
        assert server.delete(base).status_code == 204
        event = stream.next_event(timeout=5)
        assert event is not None and event["event"] == "diff", event
        diff = json.loads(event["data"])
        assert (diff["from"], diff["to"]) == (rev + 1, rev + 2)
        assert diff["sections"]["deleted"] == [0, 1] and diff["counts"] == {"from": [2, 1], "to": []}
        assert server.doc(view)["sections"] == []
    finally:
        stream.close()


def test_a_many_lists_poll_holding_a_view_is_woken_by_a_base_write(server):
    base, view, other = uid("base"), uid("view"), uid("other")
    put_ok(server, base, {"items": [item("a", {"n": 1})]})
    put_ok(server, other, {"items": []})
    make_view(server, view, {"of": base, "where": [{"path": "/model/n", "op": "gt", "value": 1}], "sections": "none"})
    rev = server.doc(view)["revision"]
    result = {}

    def poll():
        r = server.get("/v1/diffs", params={"lists": f"{other}:1,{view}:{rev}", "wait": 20}, timeout=30)
        result["at"], result["status"], result["body"] = time.monotonic(), r.status_code, r.json()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    time.sleep(1.0)
    assert thread.is_alive(), result
    put_ok(server, base, {"items": [item("a", {"n": 1}), item("b", {"n": 2})]})
    acknowledged = time.monotonic()
    thread.join(10)
    assert result.get("status") == 200, result
    assert result["at"] - acknowledged < 1.0
    assert result["body"]["resets"] == []
    [diff] = result["body"]["diffs"]
    assert (diff["id"], diff["from"], diff["to"]) == (view, rev, rev + 1)
    assert diff["items"]["inserted"] == [{"at": [0, 0], "item": item("b", {"n": 2})}]


def test_the_diffs_between_view_revisions_replay(server):
    rng = random.Random(7)
    base, view = uid("base"), uid("view")
    definition = {"of": base, "where": [{"path": "/model/read", "op": "ne", "value": True}],
                  "sort": [{"path": "/model/rank", "order": "desc"}, {"path": "/id"}], "limit": 12,
                  "sections": {"by": "/model/cat"}}
    base_rev = put_ok(server, base, random_base(rng))
    make_view(server, view, definition)
    for _ in range(8):
        base_rev = put_ok(server, base, mutate(rng, server.doc(base)))
        settle(server, view, base_rev)
    current = server.doc(view)["revision"]
    assert current >= 5, current
    docs = {r: server.doc(view, r) for r in range(1, current + 1)}
    docs[0] = None
    for a in range(0, current + 1):
        for b in range(0, current + 1):
            if a == b or b == 0:
                continue
            diff = server.diff(view, a, b)
            assert (diff["from"], diff["to"]) == (a, b)
            assert apply_batch_diff(docs[a], diff) == {"sections": canon_sections(docs[b])}, (a, b)
            patch = server.diff(view, a, b, fmt="json-patch")
            start = {} if a == 0 else copy.deepcopy(docs[a])
            assert apply_json_patch(start, patch) == docs[b], (a, b)


def test_every_view_revision_is_the_query_over_the_base_revision_it_names(server):
    """A burst of quick base writes (which a view may fold): every view revision, read back, is the query over the
    base revision its `by` names, and those base revisions only grow."""
    rng = random.Random(11)
    base = uid("burst")
    put_ok(server, base, random_base(rng))
    definitions = {uid("bview"): {"of": base, "sort": [{"path": "/model/rank", "order": "desc"}], "limit": 6, "sections": "none"},
                   uid("bview"): {"of": base, "where": [{"path": "/model/read", "op": "eq", "value": True}]},
                   uid("bview"): {"of": base, "sections": {"by": "/model/cat"}}}
    for view, definition in definitions.items():
        make_view(server, view, definition)
    doc = server.doc(base)
    for _ in range(25):
        doc = mutate(rng, doc)
        rev = put_ok(server, base, doc)
    for view, definition in definitions.items():
        settle(server, view, rev)
        history = list(reversed(revisions(server, view)))
        named = [h["by"]["revision"] for h in history]
        assert named == sorted(set(named)), named
        assert len(history) <= 26
        for h in history:
            base_doc = server.doc(base, h["by"]["revision"])
            view_doc = {k: v for k, v in server.doc(view, h["revision"]).items() if k != "revision"}
            assert view_doc == expected_view(view, base_doc, definition), (view, h)


def test_a_base_write_that_changes_only_cells_or_kind_makes_a_view_revision(server):
    base, view = uid("base"), uid("view")
    items = [{"id": "a", "type": "A", "cell": "X"}]
    put_ok(server, base, {"kind": "array", "title": "T", "cells": {"A": "ACell"}, "items": items})
    make_view(server, view, {"of": base})
    assert server.doc(view)["cells"] == {"A": "ACell"} and server.doc(view)["kind"] == "array"
    rev = put_ok(server, base, {"kind": "array", "title": "T", "cells": {"A": "ACell", "B": "BCell"}, "items": items})
    settle(server, view, rev)
    doc = server.doc(view)
    assert doc["revision"] == 2 and doc["cells"] == {"A": "ACell", "B": "BCell"}
    assert_view_is_the_query(server, view, {"of": base}, base)
    rev = put_ok(server, base, {"kind": "sections", "cells": {"A": "ACell", "B": "BCell"}, "sections": [
        {"id": "main", "title": "T", "indexTitle": "T", "items": [{"id": "a", "type": "A", "cell": "X"}]}]})
    settle(server, view, rev)
    doc = server.doc(view)
    assert doc["revision"] == 3 and doc["kind"] == "sections"
    assert_view_is_the_query(server, view, {"of": base}, base)


def test_the_history_of_a_view(server):
    base, view = uid("base"), uid("view")
    r1 = put_ok(server, base, {"items": [item("a", {"n": 1})]})
    make_view(server, view, {"of": base, "where": [{"path": "/model/n", "op": "gt", "value": 0}]})
    r2 = put_ok(server, base, {"items": [item("a", {"n": 1}), item("b", {"n": 2})]})
    settle(server, view, r2)
    r3 = put_ok(server, base, {"items": [item("b", {"n": 2})]})
    settle(server, view, r3)
    history = revisions(server, view)
    assert [(h["revision"], h["by"], h["items"]) for h in history] == [
        (3, {"op": "view", "of": base, "revision": r3}, 1),
        (2, {"op": "view", "of": base, "revision": r2}, 2),
        (1, {"op": "view", "of": base, "revision": r1}, 1),
    ]
    assert history[0]["changes"]["items"] == {"deleted": 1, "inserted": 0, "moved": 0, "updated": 0}
    assert all(h["committedAt"] for h in history)


# ---------------------------------------------------------------------------
# 409: what a view refuses, and what cannot become a view


def test_put_patch_and_revert_of_a_view_are_409_naming_the_base(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a")]})
    make_view(server, view, {"of": base})
    put_ok(server, base, {"items": [item("a"), item("b")]})
    settle(server, view, 2)
    before = server.doc(view)
    for r in (server.put(view, {"items": [item("x")]}),
              server.patch(view, [{"op": "remove", "path": "/sections/0/items/0"}]),
              revert(server, view, 1)):
        problem = assert_problem(r, 409)
        assert base in problem["detail"], problem
    assert server.doc(view) == before
    assert get_view(server, view).json()["of"] == base


def test_a_list_cannot_have_both_a_source_and_a_view(make_server):
    # Sources may reach 127.0.0.1: one whose feed cannot be fetched (port 1) is attached all the same.
    server = make_server(env={"LISTDELTA_SOURCE_HOSTS": "127.0.0.1", "LISTDELTA_SOURCE_TIMEOUT_SECONDS": "2"})
    base, fed, view = uid("base"), uid("fed"), uid("view")
    put_ok(server, base, {"items": [item("a")]})
    source = {"url": "http://127.0.0.1:1/feed.xml"}
    r = server.request("PUT", f"/v1/lists/{fed}/source", json=source)
    assert r.status_code == 201, r.text
    assert_problem(put_view(server, fed, {"of": base}), 409)
    assert_problem(get_view(server, fed), 404)
    make_view(server, view, {"of": base})
    assert_problem(server.request("PUT", f"/v1/lists/{view}/source", json=source), 409)
    assert_problem(server.get(f"/v1/lists/{view}/source"), 404)
    assert get_view(server, view).status_code == 200


def test_a_base_cannot_become_a_view_nor_a_view_a_base(server):
    base, view, other = uid("base"), uid("view"), uid("other")
    put_ok(server, base, {"items": [item("a")]})
    put_ok(server, other, {"items": [item("o")]})
    make_view(server, view, {"of": base})
    # The base of a view cannot become a view (no chains) ...
    assert_problem(put_view(server, base, {"of": other}), 409)
    assert_problem(get_view(server, base), 404)
    # ... and a view cannot be the base of another.
    problem = assert_problem(put_view(server, uid("chain"), {"of": view}), 422)
    assert problem["pointer"] == "/of", problem
    # Once the view is detached, its former base is free to become one.
    assert delete_view(server, view).status_code == 204
    assert put_view(server, base, {"of": other}).status_code == 201


def test_no_chain_is_refused_once_the_view_or_its_base_role_is_gone(server):
    base, other, view = uid("base"), uid("other"), uid("view")
    put_ok(server, base, {"items": [item("a")]})
    put_ok(server, other, {"items": [item("o")]})
    make_view(server, view, {"of": base})
    # A deleted base is still followed by its view: it cannot become a view.
    assert server.delete(base).status_code == 204
    problem = assert_problem(put_view(server, base, {"of": other}), 409)
    assert view in problem["detail"] or base in problem["detail"], problem
    # The view list deleted: its former base may become a view.
    assert server.delete(view).status_code == 204
    assert put_view(server, base, {"of": other}).status_code == 201
    # A detached view may be the base of a view.
    assert delete_view(server, base).status_code == 204
    assert put_view(server, uid("view"), {"of": base}).status_code == 201


def test_the_number_of_views_is_bounded_by_max_views(make_server):
    server = make_server(env={"LISTDELTA_MAX_VIEWS": "2"})
    base = uid("base")
    put_ok(server, base, {"items": [item("a")]})
    first, second = uid("view"), uid("view")
    make_view(server, first, {"of": base})
    make_view(server, second, {"of": base})
    third = uid("view")
    assert_problem(put_view(server, third, {"of": base}), 409)
    assert_problem(server.get(third), 404)  # a refused request changes nothing
    # Changing one is no new view.
    make_view(server, second, {"of": base, "sections": "none"}, status=200)
    assert delete_view(server, first).status_code == 204
    make_view(server, third, {"of": base})
    assert server.delete(second).status_code == 204
    make_view(server, uid("view"), {"of": base})


# ---------------------------------------------------------------------------
# 422 with the pointer of each bad member; 400, 415


BAD_DEFINITIONS = [
    ({"of": "no spaces"}, "/of"),
    ({"of": ""}, "/of"),
    ({"of": "x" * 129}, "/of"),
    ({"of": 5}, "/of"),
    ({"of": None}, "/of"),
    ({}, "/of"),
    ({"of": "BASE", "colour": "red"}, "/colour"),
    ({"of": "BASE", "where": {}}, "/where"),
    ({"of": "BASE", "where": [{"path": "/foo", "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "where": [{"path": "model", "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "where": [{"path": "/section/x", "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "where": [{"path": "/id/x", "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "where": [{"path": "/type/0", "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "sort": [{"path": "/cell/x"}]}, "/sort/0/path"),
    ({"of": "BASE", "where": [5]}, "/where/0"),
    ({"of": "BASE", "sort": ["/id"]}, "/sort/0"),
    ({"of": "BASE", "where": [{"path": "", "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "where": [{"path": 5, "op": "eq", "value": 1}]}, "/where/0/path"),
    ({"of": "BASE", "where": [{"path": "/id", "op": "like", "value": "a"}]}, "/where/0/op"),
    ({"of": "BASE", "where": [{"path": "/id", "value": "a"}]}, "/where/0/op"),
    ({"of": "BASE", "where": [{"path": "/id", "op": "eq", "value": "a"}, {"path": "/id", "op": "LT", "value": "a"}]}, "/where/1/op"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "lt", "value": True}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "gte", "value": None}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "gt", "value": [1]}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "lte", "value": {"a": 1}}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "in", "value": "abc"}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "prefix", "value": 1}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/model/n", "op": "exists", "value": "yes"}]}, "/where/0/value"),
    ({"of": "BASE", "where": [{"path": "/id", "op": "eq", "value": "a", "note": 1}]}, "/where/0/note"),
    ({"of": "BASE", "sort": {}}, "/sort"),
    ({"of": "BASE", "sort": [{"path": "/nope"}]}, "/sort/0/path"),
    ({"of": "BASE", "sort": [{"path": "/id"}, {"path": "/model~2"}]}, "/sort/1/path"),
    ({"of": "BASE", "sort": [{"path": "/id", "order": "up"}]}, "/sort/0/order"),
    ({"of": "BASE", "sort": [{"path": "/id", "order": "ASC"}]}, "/sort/0/order"),
    ({"of": "BASE", "limit": -1}, "/limit"),
    ({"of": "BASE", "limit": 0}, "/limit"),
    ({"of": "BASE", "offset": -1}, "/offset"),
    ({"of": "BASE", "offset": 2.5}, "/offset"),
    ({"of": "BASE", "offset": MAX_ITEMS + 1}, "/offset"),
    ({"of": "BASE", "limit": 1.5}, "/limit"),
    ({"of": "BASE", "limit": "10"}, "/limit"),
    ({"of": "BASE", "limit": MAX_ITEMS + 1}, "/limit"),
    ({"of": "BASE", "sections": "group"}, "/sections"),
    ({"of": "BASE", "sections": 5}, "/sections"),
    ({"of": "BASE", "sections": {"by": "/nope"}}, "/sections/by"),
    ({"of": "BASE", "sections": {"by": "/model/a", "then": 1}}, "/sections/then"),
]


@pytest.mark.parametrize("body, pointer", BAD_DEFINITIONS, ids=[json.dumps(b, separators=(",", ":"))[:70] for b, _ in BAD_DEFINITIONS])
def test_bad_definitions_are_422_with_the_pointer_of_the_member(server, body, pointer):
    base, view = uid("base"), uid("bad")
    put_ok(server, base, {"items": [item("a")]})
    body = {k: (base if v == "BASE" else v) for k, v in body.items()}
    problem = assert_problem(put_view(server, view, body), 422)
    assert problem["pointer"] == pointer, problem
    assert_problem(get_view(server, view), 404)
    assert_problem(server.get(view), 404)  # nothing was created


def test_a_view_of_itself_is_422_on_of_and_a_refused_change_keeps_the_view(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a")]})
    problem = assert_problem(put_view(server, view, {"of": view}), 422)
    assert problem["pointer"] == "/of"
    state = make_view(server, view, {"of": base, "sections": "none"})
    problem = assert_problem(put_view(server, view, {"of": view}), 422)
    assert problem["pointer"] == "/of"
    problem = assert_problem(put_view(server, view, {"of": base, "limit": -5}), 422)
    assert problem["pointer"] == "/limit"
    assert get_view(server, view).json() == state


def test_malformed_bodies_and_media_types(server):
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a")]})
    for body in ("[]", '"x"', "null", "not json", '{"of": '):
        assert_problem(put_view(server, view, body), 400)
    assert_problem(put_view(server, view, json.dumps({"of": base}), content_type="text/plain"), 415)
    assert_problem(get_view(server, view), 404)
    assert_problem(server.get(view), 404)


# ---------------------------------------------------------------------------
# Access


SECRET = "views-e2e-secret-0123456789-abcdefghij"


def mint(scope, lists):
    return jwt.encode({"exp": int(time.time()) + 600, "scope": scope, "lists": lists}, SECRET, algorithm="HS256")


def test_reading_a_view_needs_read_access_to_the_view_only(make_server):
    server = make_server(["--write-token", "static"], env={"LISTDELTA_JWT_SECRET": SECRET, "LISTDELTA_READ_ACCESS": "token"})
    base, view = uid("secret"), uid("public")
    auth = {"Authorization": "Bearer static"}
    assert server.put(base, {"items": [item("a", {"n": 1}), item("b", {"n": 2})]}, headers=auth).status_code == 201
    # Writing the definition needs the write scope of the view's id, and (since the view shows the base's items to
    # whoever may read the view) read access to the base: a token that may write one list cannot read any other
    # through a view of it. Nothing is attached when refused.
    definition = {"of": base, "where": [{"path": "/model/n", "op": "gt", "value": 1}]}
    assert_problem(put_view(server, view, definition), 401)
    assert_problem(put_view(server, view, definition, token=mint("read", [view])), 403)
    assert_problem(put_view(server, view, definition, token=mint("write", [base])), 403)
    refused = assert_problem(put_view(server, view, definition, token=mint("write", [view])), 403)
    assert base in refused["detail"]
    assert get_view(server, view, token=mint("read", [view])).status_code == 404
    r = put_view(server, view, definition, token=mint("write", [view, base]))
    assert r.status_code == 201, r.text
    reader = mint("read", [view])
    h = {"Authorization": f"Bearer {reader}"}
    doc = server.get(view, headers=h)
    assert doc.status_code == 200 and ids(doc.json()) == ["b"]
    assert server.get(f"/v1/lists/{view}/diff", params={"from": 0}, headers=h).status_code == 200
    assert server.get(f"/v1/lists/{view}/revisions", headers=h).status_code == 200
    r = get_view(server, view, token=reader)
    assert r.status_code == 200 and r.json()["of"] == base
    # The base stays private to that token.
    assert_problem(server.get(base, headers=h), 403)
    assert_problem(server.get(f"/v1/lists/{base}/diff", params={"from": 0}, headers=h), 403)
    assert_problem(get_view(server, view), 401)
    # Detaching needs write access too.
    assert_problem(delete_view(server, view, token=reader), 403)
    assert delete_view(server, view, token=mint("write", [view])).status_code == 204


# ---------------------------------------------------------------------------
# Random bases, definitions and writes against the evaluator


CATS = ["fruit", "veg", "", None, 12, "12", True, "Z", "\u00e9t\u00e9", MISSING]
STRINGS = ["apple", "Apple", "b", "", "\u00e9", "z", "aa", "\U0001F600", "\uff21", "10", "9"]


def random_value(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return MISSING
    if kind == 1:
        return None
    if kind == 2:
        return rng.choice([True, False])
    if kind in (3, 4):
        return rng.choice([-3, 0, 1, 2, 7, 1.5, 2.0, -0.5, 100])
    if kind in (5, 6):
        return rng.choice(STRINGS)
    return rng.choice([[1], ["a", 2], {"k": 1}, []])


def random_item(rng, n):
    model = {}
    for key, value in (("cat", rng.choice(CATS)), ("v", random_value(rng)), ("w", random_value(rng)),
                       ("read", rng.choice([True, False, MISSING])), ("rank", rng.randrange(20)),
                       ("tags", rng.choice([["x"], ["x", "y"], [], "x y", MISSING])), ("s", rng.choice(STRINGS + [MISSING]))):
        if value is not MISSING:
            model[key] = value
    out = {"id": f"it{n}", "cell": rng.choice(["C", "D", None]), "model": model}
    if rng.random() < 0.7:
        out["type"] = rng.choice(["T", "U"])
    return out


def random_base(rng):
    sections, n = [], 0
    for s in range(rng.randrange(1, 5)):
        items = []
        for _ in range(rng.randrange(0, 10)):
            items.append(random_item(rng, n))
            n += 1
        title = rng.choice([f"Section {s}", None])
        sections.append({"id": f"s{s}", "title": title, "indexTitle": title[0] if title else None, "items": items})
    return {"kind": "sections", "sections": sections}


def mutate(rng, doc):
    doc = {"kind": doc["kind"], "sections": copy.deepcopy(doc["sections"])}
    ceiling = max([int(i["id"][2:]) for s in doc["sections"] for i in s["items"]] + [0]) + 1
    for _ in range(rng.randrange(1, 6)):
        action = rng.randrange(6)
        sections = doc["sections"]
        if action == 0 or not any(s["items"] for s in sections):
            rng.choice(sections)["items"].insert(0, random_item(rng, ceiling))
            ceiling += 1
        elif action == 1:
            s = rng.choice([s for s in sections if s["items"]])
            s["items"].pop(rng.randrange(len(s["items"])))
        elif action == 2:
            s = rng.choice([s for s in sections if s["items"]])
            it = rng.choice(s["items"])
            it["model"] = random_item(rng, 0)["model"]
        elif action == 3:
            s = rng.choice([s for s in sections if s["items"]])
            it = s["items"].pop(rng.randrange(len(s["items"])))
            target = rng.choice(sections)
            target["items"].insert(rng.randrange(len(target["items"]) + 1), it)
        elif action == 4 and len(sections) > 1:
            sections.insert(rng.randrange(len(sections)), sections.pop(rng.randrange(len(sections))))
        else:
            s = rng.choice(sections)
            s["title"] = rng.choice(["Renamed", None, s["title"]])
            s["indexTitle"] = s["title"][0] if s["title"] else None
    return doc


PATHS = ["/model/cat", "/model/v", "/model/w", "/model/read", "/model/rank", "/model/tags", "/model/s", "/id", "/type",
         "/cell", "/section", "/model/tags/0", "/model/missing"]


def random_condition(rng):
    op = rng.choice(["eq", "ne", "lt", "lte", "gt", "gte", "in", "contains", "prefix", "exists"])
    path = rng.choice(PATHS)
    if op in ("lt", "lte", "gt", "gte"):
        value = rng.choice([rng.choice([0, 1, 2, 5, 10, 1.5, -1]), rng.choice(STRINGS)])
    elif op == "in":
        value = [v for v in (random_value(rng) for _ in range(rng.randrange(4))) if v is not MISSING]
    elif op == "prefix":
        value = rng.choice(["a", "A", "", "\u00e9", "s", "it1", "f"])
    elif op == "exists":
        value = rng.choice([True, False])
    elif op == "contains":
        value = rng.choice(["x", "y", "pp", "a", 1, "e"])
    else:
        value = random_value(rng)
        if value is MISSING:
            value = rng.choice(CATS[:-1])
    return {"path": path, "op": op, "value": value}


def random_definition(rng, base):
    definition = {"of": base}
    if rng.random() < 0.8:
        definition["where"] = [random_condition(rng) for _ in range(rng.randrange(0, 3))]
    if rng.random() < 0.8:
        definition["sort"] = [{"path": rng.choice(PATHS), "order": rng.choice(["asc", "desc"])} for _ in range(rng.randrange(0, 3))]
    if rng.random() < 0.5:
        definition["limit"] = rng.randrange(1, 15)
    if rng.random() < 0.3:
        definition["offset"] = rng.randrange(0, 10)
    definition["sections"] = rng.choice(["keep", "none", {"by": "/model/cat"}, {"by": "/section"}, {"by": "/type"},
                                         {"by": "/model/read"}, {"by": "/model/s"}])
    return definition


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_views_equal_the_query_after_every_base_write(server, seed):
    rng = random.Random(seed)
    base = uid("rbase")
    rev = put_ok(server, base, random_base(rng))
    views = {}
    for _ in range(6):
        view = uid("rview")
        definition = random_definition(rng, base)
        state = make_view(server, view, definition)
        assert state["basedOn"] == rev
        views[view] = definition
    for step in range(12):
        if step == 6:
            # Redefine one view midway.
            view = next(iter(views))
            views[view] = random_definition(rng, base)
            make_view(server, view, views[view], status=200)
        if rng.random() < 0.3:
            ops = [{"op": "remove", "path": "/sections/0/items/0"}] if server.doc(base)["sections"][0]["items"] else \
                [{"op": "add", "path": "/sections/0/items/0", "value": random_item(rng, 1000 + step)}]
            r = server.patch(base, ops)
            assert r.status_code == 200, r.text
            rev = r.json()["revision"]
        else:
            rev = put_ok(server, base, mutate(rng, server.doc(base)))
        for view, definition in views.items():
            settle(server, view, rev)
            assert_view_is_the_query(server, view, definition, base)


# ---------------------------------------------------------------------------
# Crashes and several instances


CRASH_DEFINITIONS = [
    lambda base: {"of": base},
    lambda base: {"of": base, "where": [{"path": "/model/read", "op": "ne", "value": True}],
                  "sort": [{"path": "/model/rank", "order": "desc"}], "limit": 7, "sections": "none"},
    lambda base: {"of": base, "sort": [{"path": "/model/v"}], "sections": {"by": "/model/cat"}},
    lambda base: {"of": base, "where": [{"path": "/section", "op": "in", "value": ["s0", "s2"]}],
                  "sort": [{"path": "/id", "order": "desc"}]},
]


def test_views_and_their_history_survive_a_restart(make_server, tmp_path):
    data = tmp_path / "db"
    data.mkdir()
    server = make_server(data_dir=data)
    base, view = uid("base"), uid("view")
    put_ok(server, base, {"items": [item("a", {"n": 2}), item("b", {"n": 1})]})
    definition = {"of": base, "sort": [{"path": "/model/n"}], "limit": 1, "sections": "none"}
    state = make_view(server, view, definition)
    rev = put_ok(server, base, {"items": [item("a", {"n": 2}), item("b", {"n": 3})]})
    state = settle(server, view, rev)
    document, history = server.doc(view), revisions(server, view)
    assert server.stop() == 0
    server.start()
    assert get_view(server, view).json() == state
    assert server.doc(view) == document and revisions(server, view) == history
    assert_problem(server.put(view, {"items": []}), 409)
    rev = put_ok(server, base, {"items": [item("c", {"n": 0})]})
    settle(server, view, rev)
    assert ids(server.doc(view)) == ["c"]
    assert revisions(server, view)[0]["by"] == {"op": "view", "of": base, "revision": rev}


def test_views_equal_their_query_after_a_kill_9_during_a_burst_of_base_writes(make_server, tmp_path):
    data = tmp_path / "db"
    data.mkdir()
    server = make_server(data_dir=data)
    rng = random.Random(99)
    base = uid("crash")
    put_ok(server, base, random_base(rng))
    views = {uid("cview"): make(base) for make in CRASH_DEFINITIONS}
    for view, definition in views.items():
        make_view(server, view, definition)
    acknowledged = []
    stop = threading.Event()
    docs = [random_base(rng)]
    for _ in range(400):
        docs.append(mutate(rng, docs[-1]))

    def burst():
        for body in docs:
            if stop.is_set():
                return
            try:
                r = requests.put(server.url(f"/v1/lists/{base}"), data=json.dumps(body),
                                 headers={"Content-Type": "application/json"}, timeout=5)
            except requests.RequestException:
                return
            if r.status_code == 200:
                acknowledged.append(r.json()["revision"])

    writer = threading.Thread(target=burst, daemon=True)
    writer.start()
    time.sleep(1.5)
    server.kill9()
    stop.set()
    writer.join(10)
    assert acknowledged, "no base write was acknowledged before the kill"
    server.start()
    rev = base_revision(server, base)
    assert rev >= acknowledged[-1]
    for view, definition in views.items():
        settle(server, view, rev, timeout=10)
        assert_view_is_the_query(server, view, definition, base)
    # And they follow the base on.
    rev = put_ok(server, base, mutate(rng, server.doc(base)))
    for view, definition in views.items():
        settle(server, view, rev)
        assert_view_is_the_query(server, view, definition, base)


@pytest.mark.skipif(pg_support.cluster_dir() is None, reason="no PostgreSQL cluster (scripts/test.sh starts one)")
def test_a_follower_on_another_instance_sees_every_view_revision_in_order(make_server):
    url = pg_support.new_database_url()
    a = make_server(["--database-url", url])
    b = make_server(["--database-url", url])
    rng = random.Random(5)
    base, view = uid("pgbase"), uid("pgview")
    put_ok(a, base, random_base(rng))
    definition = {"of": base, "where": [{"path": "/model/read", "op": "ne", "value": True}],
                  "sort": [{"path": "/model/rank", "order": "desc"}, {"path": "/id"}], "limit": 10,
                  "sections": {"by": "/model/cat"}}
    make_view(a, view, definition)
    start = b.doc(view)
    followed = {"doc": start, "revision": start["revision"], "ranges": [], "errors": []}
    done = threading.Event()

    def follow():
        target = f"/v1/lists/{view}/diff?from={start['revision']}&wait=5"
        while not done.is_set():
            try:
                r = b.get(target, timeout=15)
                assert r.status_code == 200, r.text
                diff = r.json()
                assert diff["from"] == followed["revision"], (diff["from"], followed["revision"])
                if diff["to"] != diff["from"]:
                    followed["doc"] = {"sections": apply_batch_diff(followed["doc"], diff)["sections"]}
                    assert followed["doc"]["sections"] == canon_sections(b.doc(view, diff["to"])), diff
                    followed["ranges"].append((diff["from"], diff["to"]))
                    followed["revision"] = diff["to"]
                target = r.links["next"]["url"]
            except Exception as error:  # noqa: BLE001 - reported by the test
                followed["errors"].append(repr(error))
                return

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    doc = a.doc(base)
    for n in range(30):
        writer = (a, b)[n % 2]
        doc = mutate(rng, doc)
        rev = put_ok(writer, base, doc)
        time.sleep(rng.choice([0, 0.05, 0.3]))
    for server in (a, b):
        settle(server, view, rev)
    final = a.doc(view)["revision"]
    deadline = time.monotonic() + 10
    while followed["revision"] != final and not followed["errors"]:
        assert time.monotonic() < deadline, followed
        time.sleep(0.05)
    done.set()
    thread.join(10)
    assert followed["errors"] == []
    # In order, no gap: each diff starts where the last ended, and together they cover every view revision.
    ranges = followed["ranges"]
    assert ranges and ranges[0][0] == start["revision"] and ranges[-1][1] == final
    assert all(x[1] == y[0] for x, y in zip(ranges, ranges[1:])), ranges
    assert followed["doc"]["sections"] == canon_sections(b.doc(view))
    assert_view_is_the_query(b, view, definition, base)
    assert_view_is_the_query(a, view, definition, base)


# ---------------------------------------------------------------------------
# The live page


VIEW_PANEL_JS = """
const p = document.getElementById('view');
const t = (id) => document.getElementById(id).textContent;
const link = document.getElementById('view-of');
return p ? {hidden: p.hidden, of: p.getAttribute('data-view-of'), basedOn: p.getAttribute('data-based-on'),
  shownOf: t('view-of'), href: link.getAttribute('href'), where: t('view-where'), sort: t('view-sort'),
  limit: t('view-limit'), sections: t('view-sections'), basedOnText: t('view-based-on'),
  writable: [...document.querySelectorAll('#viewer .panel button')].some(b => !b.disabled),
  reverts: document.querySelectorAll('[data-revert]').length,
  revision: document.querySelector('[data-revision]')?.getAttribute('data-revision'),
  title: t('list-title')} : null;
"""


def test_the_page_shows_a_view_its_base_and_definition(make_server):
    from browser_support import WEB, browser_errors, check_served_web_files, chrome, save_screenshot, wait_for

    # The page of this checkout (the binary's built-in copy may be older).
    server = make_server(env={"LISTDELTA_WEB_ROOT": str(WEB)})
    check_served_web_files(server)
    base, view = uid("page-base"), uid("page-view")
    put_ok(server, base, {"kind": "array", "title": "Mail", "items": [
        item("m1", {"text": "Budget", "read": False, "date": "2026-11-20"}),
        item("m2", {"text": "Lunch", "read": True, "date": "2026-11-21"}),
        item("m3", {"text": "Tickets", "read": False, "date": "2026-11-22"})]})
    put_ok(server, base, {"kind": "array", "title": "Mail", "items": [
        item("m1", {"text": "Budget", "read": False, "date": "2026-11-20"}),
        item("m2", {"text": "Lunch", "read": True, "date": "2026-11-21"})]})
    make_view(server, view, {"of": base, "where": [{"path": "/model/read", "op": "eq", "value": False}],
                             "sort": [{"path": "/model/date", "order": "desc"}], "limit": 20, "sections": "none"})
    driver = chrome()
    try:
        driver.get(server.url(f"/?list={base}"))
        wait_for(lambda: (driver.execute_script(VIEW_PANEL_JS) or {}).get("revision") == "2", message="the base")
        time.sleep(0.5)
        panel = driver.execute_script(VIEW_PANEL_JS)
        assert panel["hidden"] is True and panel["writable"] is True, panel  # no view: nothing shown, writable

        driver.get(server.url(f"/?list={view}"))
        panel = wait_for(lambda: (lambda p: p if p and not p["hidden"] and p["revision"] == "1" else None)(
            driver.execute_script(VIEW_PANEL_JS)), message="the view panel")
        assert (panel["of"], panel["shownOf"], panel["href"]) == (base, base, f"/?list={base}"), panel
        assert panel["where"] == "/model/read eq false", panel
        assert panel["sort"] == "/model/date desc" and panel["limit"] == "20" and panel["sections"] == "none", panel
        assert panel["basedOn"] == "2" and "2" in panel["basedOnText"], panel
        assert panel["writable"] is False and panel["reverts"] == 0, panel

        # A base write moves the view: the page shows the new revision and basedOn.
        put_ok(server, base, {"kind": "array", "title": "Mail", "items": [
            item("m1", {"text": "Budget", "read": False, "date": "2026-11-20"}),
            item("m4", {"text": "News", "read": False, "date": "2026-11-23"})]})
        panel = wait_for(lambda: (lambda p: p if p["revision"] == "2" and p["basedOn"] == "3" else None)(
            driver.execute_script(VIEW_PANEL_JS)), message="the view after a base write")
        wait_for(lambda: driver.find_elements("css selector", '[data-item-id="m4"]'), message="the new item")

        # The link opens the base, in the page.
        driver.find_element("id", "view-of").click()
        panel = wait_for(lambda: (lambda p: p if p["title"] == base and p["hidden"] else None)(
            driver.execute_script(VIEW_PANEL_JS)), message="the base opened from the link")
        assert panel["writable"] is True
        uncaught = [m for m in browser_errors(driver) if "Uncaught" in m or "TypeError" in m or "ReferenceError" in m]
        assert uncaught == []
        save_screenshot(driver, "view-panel.png")
    except Exception:
        save_screenshot(driver, "view-panel-failed.png")
        raise
    finally:
        driver.quit()


@pytest.mark.skipif(pg_support.cluster_dir() is None, reason="no PostgreSQL cluster (scripts/test.sh starts one)")
def test_instances_on_one_database_share_views_and_their_bound(make_server):
    url = pg_support.new_database_url()
    env = {"LISTDELTA_MAX_VIEWS": "2"}
    a = make_server(["--database-url", url], env=env)
    b = make_server(["--database-url", url], env=env)
    base, first, second = uid("pgbase"), uid("pgview"), uid("pgview")
    rev = put_ok(a, base, {"items": [item("a", {"n": 1}), item("b", {"n": 2})]})
    definition = {"of": base, "where": [{"path": "/model/n", "op": "gt", "value": 1}]}
    state = make_view(a, first, definition)
    assert get_view(b, first).json() == state  # the other instance knows it at once
    make_view(b, second, {"of": base, "sections": "none"})
    # The bound counts the views of the whole database, whichever instance defined them.
    assert_problem(put_view(a, uid("pgview"), {"of": base}), 409)
    assert_problem(put_view(b, uid("pgview"), {"of": base}), 409)
    # A view is a view on every instance: writes through either are refused, and either may detach it.
    assert base in assert_problem(b.put(first, {"items": []}), 409)["detail"]
    rev = put_ok(b, base, {"items": [item("a", {"n": 1}), item("b", {"n": 2}), item("c", {"n": 3})]})
    for server in (a, b):
        settle(server, first, rev)
        assert ids(server.doc(first)) == ["b", "c"]
    assert delete_view(b, first).status_code == 204
    assert_problem(get_view(a, first), 404)
    assert a.put(first, {"items": []}).status_code == 200
    make_view(a, uid("pgview"), {"of": base})
