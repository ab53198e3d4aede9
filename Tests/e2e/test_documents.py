"""Documents: PUT/GET/DELETE, short form, cells, listing, sections, items paging, preconditions."""

import threading

from conftest import Server, assert_problem, sections_doc, uid
from listdelta_apply import canon_sections, is_empty_diff


def test_create_replace_get(server):
    lid = uid()
    body = sections_doc(("today", "Today", ["m1", "m2"]))
    r = server.put(lid, body)
    assert r.status_code == 201, r.text
    j = r.json()
    assert set(j) >= {"id", "revision", "diff"} and j["id"] == lid
    rev = j["revision"]
    assert isinstance(rev, int) and rev >= 1
    assert r.headers["ETag"] == f'"{rev}"'
    assert j["diff"]["from"] == 0 and j["diff"]["to"] == rev
    g = server.get(lid)
    assert g.status_code == 200 and g.headers["ETag"] == f'"{rev}"'
    assert g.headers["Content-Type"].split(";")[0] == "application/json"
    doc = g.json()
    assert doc["id"] == lid and doc["kind"] == "sections" and doc["revision"] == rev
    assert canon_sections(doc) == canon_sections(body)
    r2 = server.put(lid, sections_doc(("today", "Today", ["m2", "m1"])))
    assert r2.status_code == 200 and r2.json()["revision"] == rev + 1
    assert r2.json()["diff"]["from"] == rev and r2.json()["diff"]["to"] == rev + 1
    assert server.doc(lid, revision=rev)["revision"] == rev
    assert canon_sections(server.doc(lid, revision=rev)) == canon_sections(body)


def test_unchanged_write_makes_no_revision(server):
    lid = uid()
    body = sections_doc(("s", "S", [{"id": "a", "cell": "C", "model": {"x": 1, "y": 2}}]))
    rev = server.put(lid, body).json()["revision"]
    same = sections_doc(("s", "S", [{"id": "a", "cell": "C", "model": {"y": 2, "x": 1}}]), revision=999)
    r = server.put(lid, same)
    assert r.status_code == 200
    j = r.json()
    assert j["revision"] == rev and j["diff"]["from"] == rev and j["diff"]["to"] == rev
    assert is_empty_diff(j["diff"])
    # GET, PUT back round-trips without a revision
    doc = server.doc(lid)
    r = server.put(lid, doc)
    assert r.status_code == 200 and r.json()["revision"] == rev


def test_short_form_array(server):
    lid = uid()
    r = server.put(lid, {"kind": "array", "title": "Fruits", "items": [{"id": "a", "cell": "C"}, {"id": "b", "cell": "C", "model": 1}]})
    assert r.status_code == 201, r.text
    doc = server.doc(lid)
    assert doc["kind"] == "array"
    assert len(doc["sections"]) == 1
    s = doc["sections"][0]
    assert (s["id"], s["title"], s["indexTitle"]) == ("main", "Fruits", "F")
    assert [i["id"] for i in s["items"]] == ["a", "b"]
    assert s["items"][0].get("model") is None and s["items"][1]["model"] == 1
    # kind inferred, no title
    lid2 = uid()
    assert server.put(lid2, {"items": [{"id": "x", "cell": "C"}]}).status_code == 201
    d2 = server.doc(lid2)
    assert d2["kind"] == "array" and d2["sections"][0]["id"] == "main" and d2["sections"][0]["indexTitle"] is None
    lid3 = uid()
    assert server.put(lid3, {"sections": [{"id": "q", "title": None, "indexTitle": None, "items": []}]}).status_code == 201
    assert server.doc(lid3)["kind"] == "sections"
    # long form array kept as given
    lid4 = uid()
    long_form = {"kind": "array", "sections": [{"id": "x", "title": "Éclair", "indexTitle": "z", "items": [{"id": "i", "cell": "C"}]}]}
    assert server.put(lid4, long_form).status_code == 201
    d4 = server.doc(lid4)
    assert d4["kind"] == "array" and canon_sections(d4) == canon_sections(long_form)


def test_short_form_index_title_first_character(server):
    lid = uid()
    assert server.put(lid, {"kind": "array", "title": "Éclair", "items": []}).status_code == 201
    assert server.doc(lid)["sections"][0]["indexTitle"] == "É"


def test_cells_resolved_at_write_time(server):
    lid = uid()
    body = {"cells": {"T": "TextCell"}, "sections": [{"id": "s", "title": None, "indexTitle": None, "items": [
        {"id": "a", "type": "T"},
        {"id": "b", "type": "T", "cell": "Other"},
        {"id": "c", "type": "T", "cell": None},
    ]}]}
    assert server.put(lid, body).status_code == 201
    doc = server.doc(lid)
    assert doc["cells"] == {"T": "TextCell"}
    items = doc["sections"][0]["items"]
    assert [i["cell"] for i in items] == ["TextCell", "Other", None]
    assert items[0]["type"] == "T" and items[0].get("model") is None


def test_list_paging(make_server):
    s = make_server()
    ids = sorted(f"l{i}" for i in range(5))
    for n, lid in enumerate(ids):
        assert s.put(lid, sections_doc(("a", "A", [f"i{k}" for k in range(n)]), ("b", None, []))).status_code == 201
    r = s.get("/v1/lists", params={"limit": 2})
    assert r.status_code == 200
    p1 = r.json()
    assert [x["id"] for x in p1["lists"]] == ids[:2] and p1["next"] == ids[1]
    first = p1["lists"][1]
    assert first == {"id": "l1", "kind": "sections", "revision": first["revision"], "sections": 2, "items": 1}
    p2 = s.get("/v1/lists", params={"limit": 2, "after": p1["next"]}).json()
    assert [x["id"] for x in p2["lists"]] == ids[2:4] and p2["next"] == ids[3]
    p3 = s.get("/v1/lists", params={"limit": 2, "after": p2["next"]}).json()
    assert [x["id"] for x in p3["lists"]] == ids[4:] and p3["next"] is None
    assert s.delete("l0").status_code == 204
    all_ = s.get("/v1/lists").json()
    assert [x["id"] for x in all_["lists"]] == ids[1:] and all_["next"] is None


def test_sections_summary(server):
    lid = uid()
    body = {"sections": [
        {"id": "a", "title": "Apple", "indexTitle": "A", "items": [{"id": "1", "cell": "C"}]},
        {"id": "b", "title": None, "indexTitle": None, "items": []},
        {"id": "c", "title": "Avocado", "indexTitle": "A", "items": [{"id": "2", "cell": "C"}, {"id": "3", "cell": "C"}]},
    ]}
    rev = server.put(lid, body).json()["revision"]
    r = server.get(f"/v1/lists/{lid}/sections")
    assert r.status_code == 200
    j = r.json()
    assert j["revision"] == rev and j["oldestRevision"] == 1
    assert j["sections"] == [
        {"id": "a", "title": "Apple", "indexTitle": "A", "count": 1},
        {"id": "b", "title": None, "indexTitle": None, "count": 0},
        {"id": "c", "title": "Avocado", "indexTitle": "A", "count": 2},
    ]
    assert j["sectionIndexTitles"] == ["A", "A"]


def test_section_items_paging(server):
    lid = uid()
    items = [f"i{k}" for k in range(7)]
    rev = server.put(lid, sections_doc(("x", "X", []), ("s", "S", items))).json()["revision"]
    r = server.get(f"/v1/lists/{lid}/sections/1/items", params={"offset": 0, "limit": 3})
    assert r.status_code == 200
    j = r.json()
    assert (j["revision"], j["section"], j["offset"], j["total"]) == (rev, "s", 0, 7)
    assert [i["id"] for i in j["items"]] == items[:3]
    assert j["items"][0]["cell"] == "C" and j["items"][0]["model"] == {"v": "i0"}
    j = server.get(f"/v1/lists/{lid}/sections/1/items", params={"offset": 6, "limit": 3}).json()
    assert [i["id"] for i in j["items"]] == items[6:] and j["offset"] == 6 and j["total"] == 7
    j = server.get(f"/v1/lists/{lid}/sections/1/items").json()
    assert [i["id"] for i in j["items"]] == items
    assert server.get(f"/v1/lists/{lid}/sections/0/items").json()["items"] == []
    assert_problem(server.get(f"/v1/lists/{lid}/sections/2/items"), 404)


def test_conditional_get_and_writes(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    assert server.get(lid, If_None_Match=f'"{rev}"').status_code == 304
    assert server.get(lid, If_None_Match='"999999"').status_code == 200
    assert_problem(server.put(lid, sections_doc(("s", "S", ["b"])), If_Match='"999999"'), 412)
    r = server.put(lid, sections_doc(("s", "S", ["b"])), If_Match=f'"{rev}"')
    assert r.status_code == 200 and r.json()["revision"] == rev + 1
    assert_problem(server.patch(lid, [{"op": "replace", "path": "/sections/0/title", "value": "Q"}], If_Match=f'"{rev}"'), 412)
    assert_problem(server.delete(lid, If_Match=f'"{rev}"'), 412)
    assert server.doc(lid)["revision"] == rev + 1
    assert server.delete(lid, If_Match=f'"{rev + 1}"').status_code == 204


def test_if_none_match_star(server):
    lid = uid()
    r = server.put(lid, sections_doc(("s", "S", [])), If_None_Match="*")
    assert r.status_code == 201
    assert_problem(server.put(lid, sections_doc(("s", "T", [])), If_None_Match="*"), 412)
    assert server.doc(lid)["sections"][0]["title"] == "S"


def test_patch(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a", "b"]))).json()["revision"]
    r = server.patch(lid, [{"op": "replace", "path": "/sections/0/title", "value": "New"},
                           {"op": "move", "from": "/sections/0/items/1", "path": "/sections/0/items/0"}])
    assert r.status_code == 200, r.text
    j = r.json()
    assert j["revision"] == rev + 1 and r.headers["ETag"] == f'"{rev + 1}"'
    assert j["diff"]["from"] == rev and len(j["diff"]["items"]["moved"]) == 1
    assert len(j["diff"]["sections"]["updated"]) == 1
    doc = server.doc(lid)
    assert doc["sections"][0]["title"] == "New" and [i["id"] for i in doc["sections"][0]["items"]] == ["b", "a"]


def test_patch_atomic_and_invalid(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a", "b"]))).json()["revision"]
    before = server.doc(lid)
    assert_problem(server.patch(lid, [{"op": "replace", "path": "/sections/0/title", "value": "X"},
                                      {"op": "test", "path": "/sections/0/title", "value": "nope"}]), 409)
    assert_problem(server.patch(lid, [{"op": "remove", "path": "/sections/5"}]), 409)
    body = assert_problem(server.patch(lid, [{"op": "add", "path": "/sections/0/items/-", "value": {"id": "a", "cell": "C"}}]), 422)
    assert "pointer" in body
    assert server.doc(lid) == before and before["revision"] == rev


def test_delete_and_recreate(server):
    lid = uid()
    for t in ("A", "B", "C"):
        last = server.put(lid, sections_doc(("s", t, ["x"]))).json()["revision"]
    assert server.delete(lid).status_code == 204
    assert_problem(server.get(lid), 404)
    assert_problem(server.delete(lid), 404)
    assert lid not in server.all_list_ids()
    r = server.put(lid, sections_doc(("s", "Z", ["y"])))
    assert r.status_code == 201
    new = r.json()["revision"]
    assert new > last
    assert r.json()["diff"]["from"] == 0
    body = assert_problem(server.get(f"/v1/lists/{lid}/diff", params={"from": last - 1}), 410)
    assert body["current"] == new
    assert server.diff(lid, 0)["to"] == new


def test_racing_if_match_writers(server):
    lid = uid()
    rev = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    barrier = threading.Barrier(8)
    codes = [None] * 8

    def worker(k):
        barrier.wait(10)
        codes[k] = server.put(lid, sections_doc(("s", f"T{k}", ["a"])), If_Match=f'"{rev}"').status_code

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert sorted(codes) == [200] + [412] * 7, codes
    assert server.doc(lid)["revision"] == rev + 1


def test_healthz_and_metrics(server):
    r = server.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    m = server.get("/metrics")
    assert m.status_code == 200
    assert m.headers["Content-Type"].startswith("text/plain")
    assert "http_requests_total" in m.text or "# TYPE" in m.text
