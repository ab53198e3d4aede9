"""Write tokens and CORS."""

from conftest import assert_problem, sections_doc, uid


def test_write_tokens(make_server):
    s = make_server(["--write-token", "secret", "--write-token", "other"])
    lid = uid()
    body = sections_doc(("s", "S", ["a"]))
    b = assert_problem(s.put(lid, body), 401)
    assert b["status"] == 401
    assert_problem(s.put(lid, body, Authorization="Bearer wrong"), 403)
    assert_problem(s.get(lid), 404)
    r = s.put(lid, body, Authorization="Bearer secret")
    assert r.status_code == 201
    assert s.put(lid, sections_doc(("s", "T", ["a"])), Authorization="Bearer other").status_code == 200
    assert s.get(lid).status_code == 200
    assert s.get(f"/v1/lists/{lid}/diff", params={"from": 0}).status_code == 200
    assert s.get("/v1/lists").status_code == 200
    ops = [{"op": "replace", "path": "/sections/0/title", "value": "X"}]
    assert_problem(s.patch(lid, ops), 401)
    assert_problem(s.patch(lid, ops, Authorization="Bearer nope"), 403)
    assert_problem(s.delete(lid), 401)
    assert_problem(s.delete(lid, Authorization="Bearer nope"), 403)
    assert s.doc(lid)["sections"][0]["title"] == "T"
    assert s.patch(lid, ops, Authorization="Bearer secret").status_code == 200
    assert s.delete(lid, Authorization="Bearer secret").status_code == 204


def test_no_token_needed_by_default(server):
    assert server.put(uid(), sections_doc(("s", "S", []))).status_code == 201


def test_cors_get(server):
    lid = uid()
    server.put(lid, sections_doc(("s", "S", ["a"])))
    r = server.get(lid, Origin="http://example.com")
    assert r.status_code == 200
    assert r.headers.get("Access-Control-Allow-Origin") in ("*", "http://example.com")
    assert "etag" in r.headers.get("Access-Control-Expose-Headers", "").lower()
    r = server.get(f"/v1/lists/{lid}/diff", params={"from": 0}, Origin="http://example.com")
    assert r.headers.get("Access-Control-Allow-Origin") in ("*", "http://example.com")


def test_cors_preflight(server):
    lid = uid()
    r = server.request("OPTIONS", f"/v1/lists/{lid}", headers={
        "Origin": "http://example.com",
        "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "content-type, if-match",
    })
    assert r.status_code in (200, 204)
    assert r.headers.get("Access-Control-Allow-Origin") in ("*", "http://example.com")
    assert "PUT" in r.headers.get("Access-Control-Allow-Methods", "").upper()
    allowed = r.headers.get("Access-Control-Allow-Headers", "").lower()
    assert allowed == "*" or ("content-type" in allowed and "if-match" in allowed)
    assert lid not in server.all_list_ids()
