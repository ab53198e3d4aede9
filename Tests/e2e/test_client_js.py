"""client.js alone (no page UI), in headless Chromium: a recording target, the operations it receives,
the document it holds, resets, several followers at once, and applyBatchDiff against the server's documents.

The browser sits on the service's origin (/healthz) and imports /client.js dynamically.
"""

import json
import random
import time

import pytest

from browser_support import browser_errors, check_served_web_files, chrome, wait_for
from conftest import uid
from listdelta_apply import canon_sections

SETUP_JS = """
const [listID, mode, name, done] = arguments;
import('/client.js').then((m) => {
  window.__m = m;
  window.__f = window.__f || {};
  const rec = { ops: [], resets: [], diffs: [], errors: [], tamper: 0, fail: 0 };
  const target = {};
  for (const op of ['beginUpdates', 'deleteSections', 'insertSections', 'moveSection', 'deleteItems',
                    'insertItems', 'moveItem', 'endUpdates', 'updateSectionHeaders', 'reconfigureItems']) {
    target[op] = (...args) => rec.ops.push([op, ...JSON.parse(JSON.stringify(args))]);
  }
  target.reset = (doc, reason) => rec.ops.push(['reset', doc.revision, reason]);
  // A fetch that can corrupt the next diff's counts, to exercise the check.
  const tamperingFetch = async (url, init) => {
    if (url.includes('/diff?') && rec.fail > 0) {
      rec.fail -= 1;
      if (rec.fail % 2) throw new TypeError('simulated network error');
      return new Response('{"status": 503}', { status: 503 });
    }
    const res = await fetch(url, init);
    if (!url.includes('/diff?') || !res.ok || rec.tamper === 0) return res;
    const diff = await res.json();
    if (diff.from === diff.to) return new Response(JSON.stringify(diff), { status: 200 });
    rec.tamper -= 1;
    diff.counts.from = diff.counts.from.map((c) => c + 1);
    return new Response(JSON.stringify(diff), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  const f = new m.ListFollower('', listID, target, {
    mode, wait: 5, fetch: tamperingFetch, backoff: { initial: 100, max: 1000 },
    onReset: (i) => rec.resets.push({ reason: i.reason, from: i.from, to: i.document.revision }),
    onDiff: (d) => rec.diffs.push(d),
    onError: (e) => rec.errors.push(String(e && e.message || e)),
  });
  f.rec = rec;
  window.__f[name] = f;
  f.start().then(() => done(null), (e) => done(String(e)));
}, (e) => done('import failed: ' + e));
"""

STATE_JS = """
const f = window.__f[arguments[0]];
return { revision: f.revision, document: f.document, ops: f.rec.ops, resets: f.rec.resets,
         diffs: f.rec.diffs, errors: f.rec.errors, state: f.state };
"""


def expected_ops(diff):
    """The calls the Swift core's ListDiff.perform(on:) makes for `diff`, in its order."""
    s, i = diff["sections"], diff["items"]
    ops = [["beginUpdates"]]
    if s["deleted"]:
        ops.append(["deleteSections", s["deleted"]])
    if s["inserted"]:
        ops.append(["insertSections", s["inserted"]])
    ops += [["moveSection", m["from"], m["to"]] for m in s["moved"]]
    if i["deleted"]:
        ops.append(["deleteItems", i["deleted"]])
    if i["inserted"]:
        ops.append(["insertItems", i["inserted"]])
    ops += [["moveItem", m["from"], m["to"]] for m in i["moved"]]
    ops.append(["endUpdates"])
    if s["updated"]:
        ops.append(["updateSectionHeaders", s["updated"]])
    if i["updated"]:
        ops.append(["reconfigureItems", i["updated"]])
    return ops


def item(iid, text):
    return {"id": iid, "model": {"text": text}}


def base_document():
    return {"sections": [
        {"id": "a", "title": "A", "indexTitle": "A", "items": [item(f"a{k}", f"A {k}") for k in range(4)]},
        {"id": "b", "title": "B", "indexTitle": "B", "items": [item(f"b{k}", f"B {k}") for k in range(3)]},
        {"id": "c", "title": "C", "indexTitle": "C", "items": [item(f"c{k}", f"C {k}") for k in range(2)]},
    ]}


def open_origin(driver, server):
    """Puts the browser on the service's origin, after checking it serves this checkout's client.js."""
    check_served_web_files(server)
    driver.get(server.url("/healthz"))


def start(driver, list_id, mode="poll", name="main"):
    err = driver.execute_async_script(SETUP_JS, list_id, mode, name)
    assert err is None, err


def state(driver, name="main"):
    return driver.execute_script(STATE_JS, name)


def wait_revision(driver, revision, name="main", timeout=10):
    return wait_for(lambda: (lambda st: st if st["revision"] == revision else None)(state(driver, name)),
                    timeout=timeout, message=f"follower {name} at revision {revision} (errors: {browser_errors(driver)})")


def same_document(a, b):
    return canon_sections(a) == canon_sections(b)


@pytest.fixture
def browser():
    d = chrome()
    yield d
    d.quit()


CHANGES = [
    ("move within a section", [{"op": "move", "from": "/sections/0/items/0", "path": "/sections/0/items/3"}]),
    ("move across sections", [{"op": "move", "from": "/sections/1/items/2", "path": "/sections/0/items/1"}]),
    ("insert an item", [{"op": "add", "path": "/sections/2/items/1", "value": item("new", "New")}]),
    ("delete an item", [{"op": "remove", "path": "/sections/1/items/0"}]),
    ("move a section", [{"op": "move", "from": "/sections/2", "path": "/sections/0"}]),
    ("update content", [{"op": "replace", "path": "/sections/1/items/2/model", "value": {"text": "changed"}}]),
    ("rename a section", [{"op": "replace", "path": "/sections/2/title", "value": "Bee"}]),
    ("insert and delete sections", [
        {"op": "remove", "path": "/sections/0"},
        {"op": "add", "path": "/sections/1", "value": {"id": "d", "title": "D", "indexTitle": None, "items": [item("d0", "D 0")]}},
    ]),
]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_recording_target_receives_the_servers_operations(make_server, browser, mode):
    server = make_server(args=["--retention", "3"])
    list_id = uid("cjs")
    assert server.put(list_id, base_document()).status_code == 201
    open_origin(browser, server)
    start(browser, list_id, mode)
    st = state(browser)
    assert st["revision"] == 1
    assert st["ops"] == [["reset", 1, "initial"]]
    assert same_document(st["document"], server.doc(list_id))

    seen = 1
    for what, ops in CHANGES:
        r = server.patch(list_id, ops)
        assert r.status_code == 200, (what, r.text)
        body = r.json()
        st = wait_revision(browser, body["revision"])
        got = st["ops"][seen:]
        seen = len(st["ops"])
        assert got == expected_ops(body["diff"]), (what, got, body["diff"])
        assert st["diffs"][-1] == body["diff"], what
        assert same_document(st["document"], server.doc(list_id)), what
        assert st["document"]["revision"] == body["revision"]

    # The held revision is pruned (retention 3): the follower refetches the document and says so.
    browser.execute_script("window.__f.main.pause()")
    held = state(browser)["revision"]
    for k in range(5):
        r = server.patch(list_id, [{"op": "move", "from": "/sections/0/items/0", "path": f"/sections/{k % 2 + 1}/items/0"}])
        assert r.status_code == 200 and r.json()["revision"] == held + k + 1, r.text
    current = server.doc(list_id)
    assert server.get(f"/v1/lists/{list_id}/diff", params={"from": held}).status_code == 410
    browser.execute_script("window.__f.main.resume()")
    st = wait_revision(browser, current["revision"])
    reason = "gone" if mode == "poll" else "event"
    assert st["ops"][seen:] == [["reset", current["revision"], reason]]
    assert st["resets"] == [{"reason": reason, "from": held, "to": current["revision"]}]
    assert same_document(st["document"], current)
    seen = len(st["ops"])

    # It goes on following after the reset.
    r = server.patch(list_id, [{"op": "move", "from": "/sections/2", "path": "/sections/0"}]).json()
    st = wait_revision(browser, r["revision"])
    assert st["ops"][seen:] == expected_ops(r["diff"])
    assert same_document(st["document"], server.doc(list_id))


def test_failed_count_check_resets(make_server, browser):
    server = make_server()
    list_id = uid("cjs-check")
    assert server.put(list_id, base_document()).status_code == 201
    open_origin(browser, server)
    start(browser, list_id)
    browser.execute_script("window.__f.main.rec.tamper = 1")
    r = server.patch(list_id, [{"op": "remove", "path": "/sections/0/items/0"}]).json()
    st = wait_revision(browser, r["revision"])
    assert st["resets"] == [{"reason": "check", "from": 1, "to": r["revision"]}], st["resets"]
    # Nothing of the bad diff reached the target: only the initial load and the reset.
    assert st["ops"] == [["reset", 1, "initial"], ["reset", r["revision"], "check"]]
    assert same_document(st["document"], server.doc(list_id))


def test_network_errors_are_retried(make_server, browser):
    server = make_server()
    list_id = uid("cjs-retry")
    assert server.put(list_id, base_document()).status_code == 201
    open_origin(browser, server)
    start(browser, list_id)
    t0 = time.monotonic()
    browser.execute_script("window.__f.main.pause(); window.__f.main.rec.fail = 4; window.__f.main.resume()")
    r = server.patch(list_id, [{"op": "move", "from": "/sections/0", "path": "/sections/2"}]).json()
    st = wait_revision(browser, r["revision"])
    # Four failures (network errors and 503s) with backoff 100, 200, 400, 800 ms capped at 1 s, jittered.
    assert len(st["errors"]) == 4, st["errors"]
    assert "simulated network error" in st["errors"][0] and "HTTP 503" in st["errors"][1], st["errors"]
    assert time.monotonic() - t0 >= 0.7
    assert st["resets"] == []
    assert st["ops"][1:] == expected_ops(r["diff"])
    assert same_document(st["document"], server.doc(list_id))


def test_several_lists_followed_at_once(make_server, browser):
    server = make_server()
    ids = [uid("cjs-many") for _ in range(3)]
    for lid in ids:
        assert server.put(lid, base_document()).status_code == 201
    open_origin(browser, server)
    for k, lid in enumerate(ids):
        start(browser, lid, "events" if k == 2 else "poll", name=lid)
    for round_ in range(3):
        for k, lid in enumerate(ids):
            ops = [{"op": "add", "path": f"/sections/{k}/items/0", "value": item(f"{lid}-{round_}", "x")}]
            assert server.patch(lid, ops).status_code == 200
    for lid in ids:
        st = wait_revision(browser, 4, name=lid)
        assert same_document(st["document"], server.doc(lid)), lid
        assert [op[0] for op in st["ops"]].count("reset") == 1
    # stop() ends one follower; the others go on.
    browser.execute_script("window.__f[arguments[0]].stop()", ids[0])
    for lid in ids:
        assert server.patch(lid, [{"op": "remove", "path": "/sections/2"}]).status_code == 200
    for lid in ids[1:]:
        wait_revision(browser, 5, name=lid)
    time.sleep(0.3)
    assert state(browser, ids[0])["revision"] == 4


def random_write(server, list_id, rng, n):
    doc = server.doc(list_id)
    secs = doc["sections"]
    for s in secs:
        rng.shuffle(s["items"]) if rng.random() < 0.3 else None
    all_items = [i for s in secs for i in s["items"]]
    for s in secs:
        s["items"] = []
    if rng.random() < 0.3:
        secs.insert(rng.randrange(len(secs) + 1), {"id": f"s{n}", "title": f"S{n}", "indexTitle": None, "items": []})
    if len(secs) > 2 and rng.random() < 0.25:
        secs.pop(rng.randrange(len(secs)))
    rng.shuffle(secs) if rng.random() < 0.3 else None
    for it in all_items:
        if rng.random() < 0.1:
            continue
        if rng.random() < 0.2:
            it["model"] = {"text": f"edit {n}"}
        rng.choice(secs)["items"].append(it)
    for k in range(rng.randrange(3)):
        rng.choice(secs)["items"].insert(0, item(f"n{n}-{k}", "new"))
    for s in secs:
        if rng.random() < 0.15:
            s["title"] = f"T{n}"
    assert server.put(list_id, doc).status_code == 200


def test_apply_batch_diff_matches_server_documents(make_server, browser):
    """applyBatchDiff(document at N, diff N->M) equals the document at M, forwards and backwards."""
    server = make_server()
    list_id = uid("cjs-apply")
    assert server.put(list_id, base_document()).status_code == 201
    rng = random.Random(5)
    for n in range(12):
        random_write(server, list_id, rng, n)
    current = server.doc(list_id)["revision"]
    pairs = [(0, current), (current, 0), (1, current), (current, 1)]
    pairs += [tuple(rng.sample(range(1, current + 1), 2)) for _ in range(20)]
    cases = []
    for a, b in pairs:
        diff = server.diff(list_id, a, b)
        old = server.doc(list_id, a) if a else {"id": list_id, "revision": 0, "sections": []}
        cases.append({"old": old, "diff": diff, "new": server.doc(list_id, b) if b else {"sections": []}})
    open_origin(browser, server)
    results = browser.execute_async_script("""
        const [cases, done] = arguments;
        import('/client.js').then((m) => done(cases.map((c) => {
          try {
            const before = JSON.stringify(c.old);
            const out = m.applyBatchDiff(c.old, c.diff);
            if (JSON.stringify(c.old) !== before) return { error: 'input modified' };
            return { sections: out.sections, revision: out.revision };
          } catch (e) { return { error: e.name + ': ' + e.message }; }
        })), (e) => done([{ error: String(e) }]));
    """, cases)
    for (a, b), case, out in zip(pairs, cases, results):
        assert "error" not in out, (a, b, out)
        assert canon_sections(out) == canon_sections(case["new"]), (a, b)
        assert out["revision"] == b
    # A diff whose counts do not fit is refused.
    bad = browser.execute_async_script("""
        const [c, done] = arguments;
        import('/client.js').then((m) => {
          const d = structuredClone(c.diff);
          d.counts.from = d.counts.from.map((x) => x + 1);
          try { m.applyBatchDiff(c.old, d); done('applied'); } catch (e) { done(e.name); }
        });
    """, cases[2])
    assert bad == "DiffError"
