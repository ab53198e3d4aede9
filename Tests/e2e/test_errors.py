"""Errors: problem details, validation, parameters, ids, media types."""

import pytest

from conftest import assert_problem, sections_doc, uid


def test_malformed_json_400(server):
    lid = uid()
    assert_problem(server.put(lid, b'{"sections": ['), 400)
    assert_problem(server.get(lid), 404)
    assert server.put(lid, sections_doc(("s", "S", []))).status_code == 201
    assert_problem(server.patch(lid, b"[{"), 400)


def test_media_types_415(server):
    lid = uid()
    body = b'{"sections": []}'
    assert_problem(server.put(lid, body, Content_Type="text/plain"), 415)
    assert_problem(server.request("PUT", f"/v1/lists/{lid}", data=body, headers={"Content-Type": ""}), 415)
    assert server.put(lid, body, Content_Type="application/json; charset=utf-8").status_code == 201
    assert_problem(server.patch(lid, b"[]", Content_Type="application/json"), 415)


@pytest.mark.parametrize("path", ["{}", "{}/sections", "{}/sections/0/items", "{}/diff?from=0", "{}/events?from=0"])
def test_unknown_list_404(server, path):
    lid = uid("nope")
    assert_problem(server.get("/v1/lists/" + path.format(lid)), 404)


def test_unknown_list_writes_404(server):
    lid = uid("nope")
    assert_problem(server.patch(lid, [{"op": "replace", "path": "/sections", "value": []}]), 404)
    assert_problem(server.delete(lid), 404)
    assert lid not in server.all_list_ids()


@pytest.mark.parametrize("params", [
    {"from": "abc"}, {"from": "-1"}, {"from": "99999999999999999999999"}, {"from": "1.5"},
    {"from": "0", "format": "xml"}, {"from": "0", "to": "x"}, {"from": "0", "wait": "abc"},
])
def test_bad_diff_params_400(server, params):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    assert_problem(server.get(f"/v1/lists/{lid}/diff", params=params), 400)


def test_bad_paging_params_400(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    for q in ({"limit": 0}, {"limit": 1001}, {"limit": "x"}):
        assert_problem(server.get("/v1/lists", params=q), 400)
        assert_problem(server.get(f"/v1/lists/{lid}/sections/0/items", params=q), 400)
    assert_problem(server.get(f"/v1/lists/{lid}/sections/0/items", params={"offset": -1}), 400)
    assert_problem(server.get(lid, params={"revision": "abc"}), 400)
    assert server.get("/v1/lists", params={"limit": 1000}).status_code == 200


def test_from_above_current_410(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    assert assert_problem(server.get(f"/v1/lists/{lid}/diff", params={"from": rev + 5}), 410)["current"] == rev
    assert assert_problem(server.get(lid, params={"revision": rev + 5}), 410)["current"] == rev


def test_section_index_out_of_range_404(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    assert_problem(server.get(f"/v1/lists/{lid}/sections/1/items"), 404)
    assert_problem(server.get(f"/v1/lists/{lid}/sections/999999/items"), 404)


@pytest.mark.parametrize("target", ["a%2Fb", "%2E%2E", "a%00b", "a%20b", "x" * 129, "a%C3%A9"])
def test_invalid_list_id_percent_encoded_400(server, target):
    status, headers, _ = server.raw("PUT", f"/v1/lists/{target}", {"Content-Type": "application/json"}, b'{"sections":[]}')
    assert status == 400
    assert headers["content-type"].split(";")[0] == "application/problem+json"
    assert server.raw("GET", f"/v1/lists/{target}")[0] == 400


@pytest.mark.parametrize("target", ["..", "a/b", "."])
def test_invalid_list_id_raw(server, target):
    status, _, _ = server.raw("PUT", f"/v1/lists/{target}", {"Content-Type": "application/json"}, b'{"sections":[]}')
    assert status in (400, 404)
    ids = server.all_list_ids()
    assert not any(i in ids for i in ("..", "a/b", ".", "a", "b", "lists"))


def test_list_id_length_limit(server):
    ok = "x" * 127 + "1"
    assert server.put(ok, sections_doc(("s", "S", []))).status_code == 201
    assert_problem(server.put("y" * 129, sections_doc(("s", "S", []))), 400)
    assert "y" * 129 not in server.all_list_ids()


def _validation(server, body, pointer=None, prefix=None):
    lid = uid()
    b = assert_problem(server.put(lid, body), 422)
    assert "pointer" in b, b
    if pointer is not None:
        assert b["pointer"] == pointer, b
    if prefix is not None:
        assert b["pointer"].startswith(prefix), b
    assert_problem(server.get(lid), 404)
    return b


def test_duplicate_item_ids_422(server):
    _validation(server, sections_doc(("s", "S", ["a", "a"])), "/sections/0/items/1/id")
    _validation(server, sections_doc(("s", "S", ["a", "b"]), ("t", "T", ["c", "b"])), "/sections/1/items/1/id")
    _validation(server, {"kind": "array", "title": "F", "items": [{"id": "a", "cell": "C"}, {"id": "a", "cell": "C"}]}, "/items/1/id")


def test_duplicate_section_ids_422(server):
    _validation(server, sections_doc(("s", "S", ["a"]), ("s", "T", ["b"])), prefix="/sections/1")


def test_unknown_cell_type_422(server):
    _validation(server, sections_doc(("s", "S", [{"id": "a", "type": "Nope"}]), cells={"T": "C"}), prefix="/sections/0/items/0")
    _validation(server, sections_doc(("s", "S", [{"id": "a", "type": "Nope"}]), cells={}), prefix="/sections/0/items/0")


def test_body_id_differs_422(server):
    body = sections_doc(("s", "S", []))
    body["id"] = "other"
    _validation(server, body, "/id")


def test_id_byte_lengths(server):
    lid = uid()
    assert server.put(lid, sections_doc(("s", "S", ["é" * 128]))).status_code == 201
    _validation(server, sections_doc(("s", "S", ["é" * 129])), "/sections/0/items/0/id")
    _validation(server, sections_doc(("", "S", [])), "/sections/0/id")


def test_rejected_write_changes_nothing(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    before = server.doc(lid)
    assert_problem(server.put(lid, sections_doc(("s", "S", ["a", "a"]))), 422)
    assert_problem(server.put(lid, b"nope"), 400)
    assert server.doc(lid) == before and before["revision"] == rev


def test_deep_nesting_rejected(server):
    lid = uid()
    deep = "[" * 100000 + "]" * 100000
    body = '{"sections":[{"id":"s","title":null,"indexTitle":null,"items":[{"id":"a","cell":"C","model":' + deep + "}]}]}"
    r = server.put(lid, body.encode())
    assert r.status_code in (400, 422), r.status_code
    assert_problem(r, r.status_code)
    assert server.get("/healthz").status_code == 200
