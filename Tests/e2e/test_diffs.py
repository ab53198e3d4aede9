"""Batch and JSON Patch diffs: the worked example, random revisions, caching, retention."""

import copy
import random

import pytest

from conftest import assert_problem, sections_doc, uid
from listdelta_apply import (apply_batch_diff, apply_json_patch, canon_header, canon_item, canon_sections,
                             check_batch_rules, is_empty_diff)


def _item(iid, model):
    return {"id": iid, "cell": "TextCell", "model": model}


def test_worked_example(server):
    lid = uid()
    old = {"id": lid, "kind": "sections", "sections": [
        {"id": "today", "title": "Today", "indexTitle": "T", "items": [_item("m1", {"text": "1"}), _item("m2", {"text": "2"}), _item("m3", {"text": "3"})]},
        {"id": "old", "title": "Old", "indexTitle": "O", "items": [_item("o1", {})]},
        {"id": "s2", "title": "Soon", "indexTitle": "S", "items": [_item("c1", {}), _item("c2", {"read": False})]},
        {"id": "later", "title": "Later", "indexTitle": "L", "items": [_item("l1", {})]},
    ]}
    new = {"id": lid, "kind": "sections", "sections": [
        {"id": "new", "title": "New", "indexTitle": "N", "items": []},
        {"id": "today", "title": "Today", "indexTitle": "T", "items": [_item("x", {}), _item("m1", {"text": "1"})]},
        {"id": "later", "title": "Later", "indexTitle": "L", "items": [_item("l1", {})]},
        {"id": "s2", "title": "Renamed", "indexTitle": "R", "items": [_item("c1", {}), _item("c2", {"read": True}), _item("m3", {"text": "3"})]},
    ]}
    a = server.put(lid, old).json()["revision"]
    r = server.put(lid, new)
    assert r.status_code == 200
    b = r.json()["revision"]
    for d in (r.json()["diff"], server.diff(lid, a, b), server.diff(lid, a)):
        assert (d["id"], d["from"], d["to"]) == (lid, a, b)
        assert d["sections"]["deleted"] == [1]
        ins = d["sections"]["inserted"]
        assert len(ins) == 1 and ins[0]["at"] == 0
        assert canon_sections({"sections": [ins[0]["section"]]}) == [{"id": "new", "title": "New", "indexTitle": "N", "items": []}]
        assert d["sections"]["moved"] == [{"from": 2, "to": 3}]
        up = d["sections"]["updated"]
        assert len(up) == 1 and up[0]["at"] == 3 and canon_header(up[0]["section"]) == {"id": "s2", "title": "Renamed", "indexTitle": "R"}
        assert d["items"]["deleted"] == [[0, 1]]
        ii = d["items"]["inserted"]
        assert len(ii) == 1 and ii[0]["at"] == [1, 0] and canon_item(ii[0]["item"]) == canon_item(_item("x", {}))
        assert d["items"]["moved"] == [{"from": [0, 2], "to": [3, 2]}]
        iu = d["items"]["updated"]
        assert len(iu) == 1 and iu[0]["at"] == [3, 1] and canon_item(iu[0]["item"]) == canon_item(_item("c2", {"read": True}))
        assert d["counts"] == {"from": [3, 1, 2, 1], "to": [0, 2, 1, 3]}
        check_batch_rules(old, new, d)
        assert apply_batch_diff(old, d) == {"sections": canon_sections(new)}


class Gen:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.n = 0

    def fresh(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def item(self):
        r = self.rnd.random()
        iid = self.fresh("i")
        model = self.rnd.choice([None, {"v": self.n}, [self.n, "x"], {"t": f"s{self.n}", "n": {"k": self.n}}])
        if r < 0.4:
            return {"id": iid, "type": self.rnd.choice(["T1", "T2"]), "model": model}
        if r < 0.7:
            return {"id": iid, "type": "T1", "cell": "Custom", "model": model}
        return {"id": iid, "cell": "Plain", "model": model}

    def section(self):
        sid = self.fresh("s")
        title = self.rnd.choice([None, f"Title {sid}", f"{sid} t"])
        return {"id": sid, "title": title, "indexTitle": title[0] if title else None,
                "items": [self.item() for _ in range(self.rnd.randint(0, 4))]}

    def initial(self):
        return {"kind": "sections", "cells": {"T1": "Cell1", "T2": "Cell2"},
                "sections": [self.section() for _ in range(4)]}

    def mutate(self, doc):
        doc = copy.deepcopy(doc)
        rnd = self.rnd
        secs = doc["sections"]
        for _ in range(rnd.randint(1, 5)):
            op = rnd.randrange(10)
            s = rnd.choice(secs)
            if op == 0:
                s["items"].insert(rnd.randint(0, len(s["items"])), self.item())
            elif op == 1 and s["items"]:
                s["items"].pop(rnd.randrange(len(s["items"])))
            elif op == 2 and s["items"]:
                it = s["items"].pop(rnd.randrange(len(s["items"])))
                s["items"].insert(rnd.randint(0, len(s["items"])), it)
            elif op == 3 and s["items"]:
                it = s["items"].pop(rnd.randrange(len(s["items"])))
                t = rnd.choice(secs)
                t["items"].insert(rnd.randint(0, len(t["items"])), it)
            elif op == 4 and len(secs) < 7:
                secs.insert(rnd.randint(0, len(secs)), self.section())
            elif op == 5 and len(secs) > 1:
                secs.pop(rnd.randrange(len(secs)))
            elif op == 6:
                x = secs.pop(rnd.randrange(len(secs)))
                secs.insert(rnd.randint(0, len(secs)), x)
            elif op == 7:
                s["title"] = f"Renamed {self.fresh('r')}"
                s["indexTitle"] = rnd.choice([None, "R", "Q"])
            elif op == 8 and s["items"]:
                rnd.choice(s["items"])["model"] = {"changed": self.fresh("m")}
            elif op == 9 and s["items"]:
                it = rnd.choice(s["items"])
                it["cell"] = rnd.choice(["Plain", "Other", None])
        return doc


def expected_sections(body):
    cells = body.get("cells")
    out = canon_sections(body)
    for s, sec in zip(out, body["sections"]):
        for it, raw in zip(s["items"], sec["items"]):
            if "cell" not in raw and cells is not None:
                it["cell"] = cells[raw["type"]]
    return out


@pytest.fixture(scope="module")
def big_server(tmp_path_factory):
    from conftest import Server
    d = tmp_path_factory.mktemp("data") / "db"
    d.mkdir()
    s = Server(d, ["--retention", "1000"]).start()
    yield s
    s.stop()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_revisions(big_server, seed):
    s = big_server
    gen = Gen(seed)
    rnd = random.Random(seed * 7919)
    lid = uid("rand")
    docs = {0: None}
    body = gen.initial()
    prev = None
    for _ in range(25):
        r = s.put(lid, body)
        assert r.status_code in (200, 201), r.text
        j = r.json()
        rev = j["revision"]
        doc = s.doc(lid)
        assert doc["revision"] == rev
        assert canon_sections(doc) == expected_sections(body)
        check_batch_rules(docs.get(prev), doc, j["diff"])
        assert apply_batch_diff(docs.get(prev), j["diff"]) == {"sections": canon_sections(doc)}
        docs[rev] = doc
        prev = rev
        body = gen.mutate(body)
    revs = sorted(k for k in docs if k)
    for r_ in revs:
        assert s.doc(lid, revision=r_) == docs[r_]
    pairs = [(0, revs[-1]), (revs[-1], revs[0]), (revs[3], revs[3])]
    pairs += [(rnd.choice([0] + revs), rnd.choice(revs)) for _ in range(30)]
    for a, b in pairs:
        d = s.diff(lid, a, b)
        assert (d["from"], d["to"]) == (a, b)
        check_batch_rules(docs[a], docs[b], d)
        assert apply_batch_diff(docs[a], d) == {"sections": canon_sections(docs[b])}, (a, b)
        if a == b:
            assert is_empty_diff(d)
        rp = s.get(f"/v1/lists/{lid}/diff", params={"from": a, "to": b, "format": "json-patch"})
        assert rp.status_code == 200
        assert rp.headers["Content-Type"].split(";")[0] == "application/json-patch+json"
        patch = rp.json()
        if a == 0:
            assert len(patch) == 1 and patch[0]["op"] == "replace" and patch[0]["path"] == ""
        assert apply_json_patch(docs[a], patch) == docs[b], (a, b)


def test_cells_or_kind_only_change(server):
    lid = uid()
    body = sections_doc(("s", "S", [{"id": "a", "type": "T", "cell": "X"}]), cells={"T": "One"})
    a = server.put(lid, body).json()["revision"]
    old = server.doc(lid)
    body["cells"] = {"T": "Two"}
    r = server.put(lid, body)
    assert r.status_code == 200 and r.json()["revision"] == a + 1
    assert is_empty_diff(r.json()["diff"])
    patch = server.diff(lid, a, a + 1, fmt="json-patch")
    assert patch
    assert apply_json_patch(old, patch) == server.doc(lid)


def test_diff_caching_headers(server):
    lid = uid()
    a = server.put(lid, sections_doc(("s", "S", ["a"]))).json()["revision"]
    b = server.put(lid, sections_doc(("s", "S", ["a", "b"]))).json()["revision"]
    r = server.get(f"/v1/lists/{lid}/diff", params={"from": a, "to": b})
    assert r.status_code == 200 and r.headers.get("ETag")
    cc = r.headers.get("Cache-Control", "")
    assert "immutable" in cc and "max-age=31536000" in cc and "public" in cc
    r2 = server.get(f"/v1/lists/{lid}/diff", params={"from": a})
    assert r2.status_code == 200 and r2.headers.get("ETag")
    assert "immutable" not in r2.headers.get("Cache-Control", "")
    assert r2.json()["to"] == b
    e = server.diff(lid, b, b)
    assert is_empty_diff(e) and e["counts"] == {"from": [2], "to": [2]}


def test_retention(make_server):
    s = make_server(["--retention", "3"])
    lid = uid()
    for k in range(6):
        rev = s.put(lid, sections_doc(("s", f"T{k}", [f"i{j}" for j in range(k + 1)]))).json()["revision"]
    assert rev == 6
    assert assert_problem(s.get(lid, params={"revision": 1}), 410)["current"] == 6
    assert assert_problem(s.get(f"/v1/lists/{lid}/diff", params={"from": 1}), 410)["current"] == 6
    assert assert_problem(s.get(f"/v1/lists/{lid}/diff", params={"from": 6, "to": 1}), 410)["current"] == 6
    assert s.get(f"/v1/lists/{lid}/sections").json()["oldestRevision"] == 4
    assert s.doc(lid, revision=4)["revision"] == 4
    d = s.diff(lid, 0)
    assert d["to"] == 6 and apply_batch_diff(None, d) == {"sections": canon_sections(s.doc(lid))}
    d = s.diff(lid, 4, 6)
    assert apply_batch_diff(s.doc(lid, 4), d) == {"sections": canon_sections(s.doc(lid, 6))}
