"""Transport: gzip responses and request bodies, body limits, conditional GETs."""

import gzip
import json

from conftest import assert_problem, sections_doc, uid


def _big(server):
    lid = uid()
    items = [{"id": f"i{k}", "cell": "TextCell", "model": {"text": f"item number {k} " * 3}} for k in range(600)]
    rev = server.put(lid, sections_doc(("s", "S", items))).json()["revision"]
    return lid, rev


def test_gzip_document(server):
    lid, rev = _big(server)
    r = server.get(lid, headers={"Accept-Encoding": "gzip"}, stream=True)
    assert r.status_code == 200
    assert r.headers.get("Content-Encoding") == "gzip"
    assert "accept-encoding" in r.headers.get("Vary", "").lower()
    assert r.headers["ETag"] == f'"{rev}-gzip"'
    raw = r.raw.read(decode_content=False)
    assert raw[:2] == b"\x1f\x8b"
    assert json.loads(gzip.decompress(raw))["revision"] == rev
    for ae in ("gzip;q=0", "identity"):
        r = server.get(lid, headers={"Accept-Encoding": ae})
        assert r.status_code == 200 and "gzip" not in r.headers.get("Content-Encoding", "")
        assert r.headers["ETag"] == f'"{rev}"'
        assert r.json()["revision"] == rev
    for tag in (f'"{rev}-gzip"', f'"{rev}"'):
        for ae in ("gzip", "identity"):
            assert server.get(lid, headers={"Accept-Encoding": ae, "If-None-Match": tag}).status_code == 304


def test_gzip_request_body(server):
    lid = uid()
    body = gzip.compress(json.dumps(sections_doc(("s", "S", ["a", "b"]))).encode())
    r = server.put(lid, body, Content_Encoding="gzip")
    assert r.status_code == 201, r.text
    assert [i["id"] for i in server.doc(lid)["sections"][0]["items"]] == ["a", "b"]


def test_gzip_bomb_413(server):
    lid = uid()
    bomb = gzip.compress(b" " * (50 * 1024 * 1024), 9)
    assert_problem(server.put(lid, bomb, Content_Encoding="gzip", timeout=30), 413)
    assert server.get("/healthz").json() == {"status": "ok"}
    assert_problem(server.get(lid), 404)


def test_body_over_default_limit_413(server):
    lid = uid()
    big = b'{"sections":[],"pad":"' + b"x" * (17 * 1024 * 1024) + b'"}'
    assert_problem(server.put(lid, big, timeout=30), 413)
    assert server.get("/healthz").status_code == 200


def test_small_body_limit(make_server):
    s = make_server(env={"LISTDELTA_MAX_BODY_BYTES": "65536"})
    lid = uid()
    items = [{"id": f"i{k}", "cell": "C", "model": "x" * 90} for k in range(1000)]
    body = json.dumps(sections_doc(("s", "S", items))).encode()
    assert len(body) > 65536
    assert_problem(s.put(lid, body), 413)
    assert_problem(s.put(lid, gzip.compress(body), Content_Encoding="gzip"), 413)
    assert_problem(s.get(lid), 404)
    assert s.put(lid, sections_doc(("s", "S", ["a"]))).status_code == 201
    assert s.get("/healthz").status_code == 200


def test_keep_alive_session(server):
    import requests
    lid = uid()
    with requests.Session() as sess:
        for k in range(20):
            r = sess.put(server.url(f"/v1/lists/{lid}"), data=json.dumps(sections_doc(("s", f"T{k}", ["a"]))),
                         headers={"Content-Type": "application/json"}, timeout=10)
            assert r.status_code in (200, 201)
            assert sess.get(server.url(f"/v1/lists/{lid}"), timeout=10).json()["revision"] == r.json()["revision"]


