"""client.js alone (no page UI), in headless Chromium: a recording target, the operations it receives,
the document it holds, resets, several followers at once, and applyBatchDiff against the server's documents.

The browser sits on the service's origin (/healthz) and imports /client.js dynamically.
"""

import json
import random
import time
from urllib.parse import quote

import pytest

from browser_support import browser_errors, check_served_web_files, chrome, wait_for
from client_writes_support import base_document, item
from conftest import uid
from listdelta_apply import canon_sections

# Shared by the setups: a target that records the operations it receives (into `ops`), a step of a fetch that
# fails while `rec.fail` > 0 (a network error and a 503 in turn), and a diff whose counts are corrupted.
HELPERS_JS = """
const recordingTarget = (ops) => {
  const target = {};
  for (const op of ['beginUpdates', 'deleteSections', 'insertSections', 'moveSection', 'deleteItems',
                    'insertItems', 'moveItem', 'endUpdates', 'updateSectionHeaders', 'reconfigureItems']) {
    target[op] = (...args) => ops.push([op, ...JSON.parse(JSON.stringify(args))]);
  }
  target.reset = (doc, reason) => ops.push(['reset', doc.revision, reason]);
  return target;
};
const simulatedFailure = (rec) => {
  if (!(rec.fail > 0)) return null;
  rec.fail -= 1;
  if (rec.fail % 2) throw new TypeError('simulated network error');
  return new Response('{"status": 503}', { status: 503 });
};
const corrupted = (diff) => ({ ...diff, counts: { ...diff.counts, from: diff.counts.from.map((c) => c + 1) } });
// Keeps follower `f` as window[table][name] with its record, starts it, calls `done` once it has loaded.
const register = (table, name, f, rec, done) => {
  f.rec = rec;
  window[table] = window[table] || {};
  window[table][name] = f;
  f.start().then(() => done(null), (e) => done(String(e)));
};
const jsonResponse = (body) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
"""

SETUP_JS = HELPERS_JS + """
const [listID, mode, name, done] = arguments;
import('/client.js').then((m) => {
  window.__m = m;
  const rec = { ops: [], resets: [], diffs: [], errors: [], tamper: 0, fail: 0 };
  const target = recordingTarget(rec.ops);
  // A fetch that can fail, or corrupt the next diff's counts, to exercise the retries and the check.
  const tamperingFetch = async (url, init) => {
    if (url.includes('/diff?')) {
      const failure = simulatedFailure(rec);
      if (failure) return failure;
    }
    const res = await fetch(url, init);
    if (!url.includes('/diff?') || !res.ok || rec.tamper === 0) return res;
    const diff = await res.json();
    if (diff.from === diff.to) return jsonResponse(diff);
    rec.tamper -= 1;
    return jsonResponse(corrupted(diff));
  };
  const f = new m.ListFollower('', listID, target, {
    mode, wait: 5, fetch: tamperingFetch, backoff: { initial: 100, max: 1000 },
    onReset: (i) => rec.resets.push({ reason: i.reason, from: i.from, to: i.document.revision }),
    onDiff: (d) => rec.diffs.push(d),
    onError: (e) => rec.errors.push(String(e && e.message || e)),
  });
  register('__f', name, f, rec, done);
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


# ---------------------------------------------------------------------------
# followMany: several lists over one connection.

MANY_SETUP_JS = HELPERS_JS + """
const [ids, mode, name, retention, done] = arguments;
import('/client.js').then((m) => {
  window.__m = m;
  if (!window.__streams) {
    // Every EventSource the page opens, to count connections.
    window.__streams = [];
    const Native = window.EventSource;
    window.EventSource = class extends Native {
      constructor(url, init) { super(url, init); window.__streams.push(String(url)); }
    };
  }
  const rec = { lists: {}, errors: [], states: [], polls: [], docs: [], tamper: {}, fail: 0, gate: {}, gated: [], release: {} };
  const recFor = (id) => rec.lists[id] || (rec.lists[id] = { ops: [], resets: [], diffs: [], loads: [] });
  const target = (id) => recordingTarget(recFor(id).ops);
  // A fetch that records the requests, can fail polls, corrupt a list's next diff, or hold a document request
  // ('before': until released, then fetched; 'after': fetched, then held until released).
  const recordingFetch = async (url, init) => {
    if (url.includes('/v1/diffs?')) {
      rec.polls.push(url);
      const failure = simulatedFailure(rec);
      if (failure) return failure;
      const res = await fetch(url, init);
      if (!res.ok) return res;
      const body = await res.json();
      body.diffs = body.diffs.map((d) => ((rec.tamper[d.id] || 0) > 0 && rec.tamper[d.id]-- ? corrupted(d) : d));
      return jsonResponse(body);
    }
    const id = decodeURIComponent(url.split('/v1/lists/')[1] || '');
    rec.docs.push(id);
    const gate = rec.gate[id];
    if (!gate) return fetch(url, init);
    delete rec.gate[id];
    const released = new Promise((resolve) => { rec.release[id] = resolve; });
    if (gate === 'before') {
      rec.gated.push(id);
      await released;
      return fetch(url, init);
    }
    const res = await fetch(url, init);
    const text = await res.text();
    rec.gated.push(id);
    await released;
    return new Response(text, { status: res.status, headers: { 'Content-Type': 'application/json' } });
  };
  const targets = Object.fromEntries(ids.map((id) => [id, target(id)]));
  const f = new m.ManyListFollower('', targets, {
    mode, wait: 5, fetch: recordingFetch, backoff: { initial: 100, max: 1000 },
    onLoad: (doc, id) => recFor(id).loads.push(doc.revision),
    onReset: (i, id) => recFor(id).resets.push({ id: i.id, reason: i.reason, from: i.from, to: i.document.revision }),
    onDiff: (d, doc, id) => recFor(id).diffs.push(d),
    onError: (e, ms, id) => rec.errors.push([String(e && e.message || e), id]),
    onState: (s, id) => rec.states.push([s, id]),
  });
  f.target = target;
  register('__mf', name, f, rec, done);
}, (e) => done('import failed: ' + e));
"""

MANY_STATE_JS = """
const f = window.__mf[arguments[0]];
const lists = {};
for (const [id, l] of f.lists) {
  lists[id] = { revision: l.revision, document: l.document, state: l.state, pending: l.pending.map((d) => d),
                loading: !!l.loading, ...(f.rec.lists[id] || { ops: [], resets: [], diffs: [], loads: [] }) };
}
return { ids: f.ids, lists, state: f.state, errors: f.rec.errors, polls: f.rec.polls, docs: f.rec.docs,
         gated: f.rec.gated, streams: window.__streams, recorded: f.rec.lists };
"""


def start_many(driver, ids, mode="poll", name="many"):
    err = driver.execute_async_script(MANY_SETUP_JS, ids, mode, name, None)
    assert err is None, err


def many_state(driver, name="many"):
    return driver.execute_script(MANY_STATE_JS, name)


def wait_many(driver, revisions, name="many", timeout=10):
    """Waits until every list of `revisions` ({id: revision}) is held at that revision, no document fetch out."""
    def check():
        st = many_state(driver, name)
        ok = all(lid in st["lists"] and st["lists"][lid]["revision"] == rev and not st["lists"][lid]["loading"]
                 for lid, rev in revisions.items())
        return st if ok else None
    return wait_for(check, timeout=timeout,
                    message=f"follower {name} at {revisions} (errors: {browser_errors(driver)})")


def connections(st, mode):
    """The connections the follower opened: its event streams, or its long polls."""
    return st["streams"] if mode == "events" else st["polls"]


def empty_doc(list_id):
    return {"id": list_id, "revision": 0, "sections": []}


def many_lists(make_server, browser, letters, created, followed, mode="poll", args=()):
    """A server (`args`) with a list id per letter, those of `created` created from base_document(), and the browser
    on its origin following those of `followed` with one ManyListFollower; returns (server, ids)."""
    server = make_server(args=list(args))
    ids = {x: uid(f"many-{x}") for x in letters}
    for x in created:
        assert server.put(ids[x], base_document()).status_code == 201
    open_origin(browser, server)
    start_many(browser, [ids[x] for x in followed], mode)
    return server, [ids[x] for x in letters]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_follow_many_follows_several_lists(make_server, browser, mode):
    server, (a, b, c, d) = many_lists(make_server, browser, "abcd", "abc", "abcd", mode)
    st = many_state(browser)
    assert st["ids"] == [a, b, c, d]
    for lid in (a, b, c):
        assert st["lists"][lid]["ops"] == [["reset", 1, "initial"]]
        assert same_document(st["lists"][lid]["document"], server.doc(lid))
    # A list that does not exist is held at revision 0, empty.
    assert st["lists"][d]["ops"] == [["reset", 0, "initial"]]
    assert st["lists"][d]["document"] == empty_doc(d)

    seen = {lid: 1 for lid in (a, b, c)}
    for what, ops in CHANGES:
        bodies = {}
        for lid in (a, b, c):
            r = server.patch(lid, ops)
            assert r.status_code == 200, (what, r.text)
            bodies[lid] = r.json()
        st = wait_many(browser, {lid: body["revision"] for lid, body in bodies.items()})
        for lid, body in bodies.items():
            got = st["lists"][lid]["ops"][seen[lid]:]
            seen[lid] = len(st["lists"][lid]["ops"])
            assert got == expected_ops(body["diff"]), (what, lid, got)
            assert st["lists"][lid]["diffs"][-1] == body["diff"]
            assert same_document(st["lists"][lid]["document"], server.doc(lid)), (what, lid)

    # The missing list is created: it arrives as a diff from 0.
    r = server.put(d, base_document())
    assert r.status_code == 201
    diff = r.json()["diff"]
    assert diff["from"] == 0
    st = wait_many(browser, {d: 1})
    assert st["lists"][d]["ops"] == [["reset", 0, "initial"]] + expected_ops(diff)
    assert same_document(st["lists"][d]["document"], server.doc(d))
    assert all(not st["lists"][lid]["resets"] for lid in (a, b, c, d))

    # All of it over one connection naming the four lists; no list was asked for on its own.
    conns = connections(st, mode)
    if mode == "events":
        assert len(conns) == 1, conns
        assert st["polls"] == []
    assert conns and all(f"lists={a}:" in u and all(f"{x}:" in u for x in (b, c, d)) for u in conns), conns
    assert sorted(st["docs"]) == sorted([a, b, c, d]), st["docs"]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_follow_many_add_and_remove_keep_the_other_lists(make_server, browser, mode):
    server, (a, b, c, e) = many_lists(make_server, browser, "abce", "abc", "ab", mode)
    for lid in (a, b):
        assert server.patch(lid, [{"op": "remove", "path": "/sections/0/items/0"}]).status_code == 200
    wait_many(browser, {a: 2, b: 2})

    # add(): c (exists) and e (does not); a and b are not fetched again and keep their revisions.
    err = browser.execute_async_script("""
        const [c, e, done] = arguments;
        const f = window.__mf.many;
        Promise.all([f.add(c, f.target(c)), f.add(e, f.target(e))]).then(() => done(null), (x) => done(String(x)));
    """, c, e)
    assert err is None, err
    st = wait_many(browser, {a: 2, b: 2, c: 1, e: 0})
    assert st["ids"] == [a, b, c, e]
    assert sorted(st["docs"]) == sorted([a, b, c, e]), st["docs"]  # a and b once each: at the start
    for lid in (a, b):
        assert [op for op in st["lists"][lid]["ops"] if op[0] == "reset"] == [["reset", 1, "initial"]]
    # The new connection asks from the revisions held.
    def reconnected():
        conns = connections(many_state(browser), mode)
        return conns and f"{a}:2,{b}:2,{c}:1,{e}:0" in conns[-1]
    wait_for(reconnected, message="a connection for the four lists from their revisions")

    writes = {}
    for lid in (a, b, c):
        writes[lid] = server.patch(lid, [{"op": "move", "from": "/sections/2", "path": "/sections/0"}]).json()
    writes[e] = server.put(e, base_document()).json()
    st = wait_many(browser, {lid: w["revision"] for lid, w in writes.items()})
    for lid, w in writes.items():
        assert st["lists"][lid]["ops"][-len(expected_ops(w["diff"])):] == expected_ops(w["diff"]), lid
        assert same_document(st["lists"][lid]["document"], server.doc(lid)), lid
    streams = len(st["streams"])
    if mode == "events":
        # The first, then one for each larger set (c and e may join together or one after the other).
        assert 2 <= streams <= 3, st["streams"]

    # remove(b): the others go on from their revisions, b is no longer followed.
    assert browser.execute_script("return window.__mf.many.remove(arguments[0])", b) is True
    assert browser.execute_script("return window.__mf.many.remove(arguments[0])", b) is False
    held_b = st["lists"][b]["revision"]
    ops_b = len(st["recorded"][b]["ops"])
    def without_b():
        conns = connections(many_state(browser), mode)
        return conns and f"lists={a}:" in conns[-1] and f"{b}:" not in conns[-1]
    wait_for(without_b, message="a connection without the removed list")
    writes = {lid: server.patch(lid, [{"op": "remove", "path": "/sections/0"}]).json() for lid in (a, b, c, e)}
    st = wait_many(browser, {lid: writes[lid]["revision"] for lid in (a, c, e)})
    assert b not in st["lists"] and st["ids"] == [a, c, e]
    assert len(st["recorded"][b]["ops"]) == ops_b and server.doc(b)["revision"] == held_b + 1
    for lid in (a, c, e):
        assert same_document(st["lists"][lid]["document"], server.doc(lid)), lid
        assert st["lists"][lid]["resets"] == []
    if mode == "events":
        assert len(st["streams"]) == streams + 1, st["streams"]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_follow_many_reset_of_one_list_refetches_it_while_the_others_go_on(make_server, browser, mode):
    server, (a, b, c) = many_lists(make_server, browser, "abc", "abc", "abc", mode, ["--retention", "3"])

    # b is deleted: it resets to the empty document (no fetch needed); a and c are written meanwhile.
    assert server.delete(b).status_code == 204
    ra = server.patch(a, [{"op": "remove", "path": "/sections/0/items/0"}]).json()
    rc = server.patch(c, [{"op": "remove", "path": "/sections/1"}]).json()
    st = wait_many(browser, {a: 2, b: 0, c: 2})
    assert st["lists"][b]["resets"] == [{"id": b, "reason": "deleted", "from": 1, "to": 0}]
    assert st["lists"][b]["ops"] == [["reset", 1, "initial"], ["reset", 0, "deleted"]]
    assert st["lists"][b]["document"] == empty_doc(b)
    for lid, r in ((a, ra), (c, rc)):
        assert st["lists"][lid]["ops"] == [["reset", 1, "initial"]] + expected_ops(r["diff"]), lid
        assert st["lists"][lid]["resets"] == []

    # b is created again: a diff from 0, no reset.
    rb = server.put(b, base_document()).json()
    assert rb["diff"]["from"] == 0
    st = wait_many(browser, {b: rb["revision"]})
    assert st["lists"][b]["ops"][2:] == expected_ops(rb["diff"])
    assert same_document(st["lists"][b]["document"], server.doc(b))

    # c's held revision is pruned while the follower is paused (retention 3): on resume c is fetched again
    # ("event" / "gone"); a's one write arrives as a diff; b is untouched.
    browser.execute_script("window.__mf.many.pause()")
    held = st["lists"][c]["revision"]
    for k in range(5):
        assert server.patch(c, [{"op": "move", "from": f"/sections/{k % 2}/items/0", "path": f"/sections/{1 - k % 2}/items/0"}]).status_code == 200
    assert server.get(f"/v1/lists/{c}/diff", params={"from": held}).status_code == 410
    ra = server.patch(a, [{"op": "move", "from": "/sections/2", "path": "/sections/0"}]).json()
    browser.execute_script("window.__mf.many.resume()")
    current = server.doc(c)
    st = wait_many(browser, {a: ra["revision"], b: rb["revision"], c: current["revision"]})
    reason = "event" if mode == "events" else "gone"
    assert st["lists"][c]["resets"] == [{"id": c, "reason": reason, "from": held, "to": current["revision"]}]
    assert st["lists"][c]["ops"][-1] == ["reset", current["revision"], reason]
    assert same_document(st["lists"][c]["document"], current)
    assert st["lists"][a]["ops"][-len(expected_ops(ra["diff"])):] == expected_ops(ra["diff"])
    assert st["lists"][a]["resets"] == [] and len(st["lists"][b]["resets"]) == 1

    # All three go on after the reset.
    writes = {lid: server.patch(lid, [{"op": "add", "path": "/sections/0/items/0", "value": item(f"{lid}-z", "z")}]).json()
              for lid in (a, b, c)}
    st = wait_many(browser, {lid: w["revision"] for lid, w in writes.items()})
    for lid, w in writes.items():
        assert st["lists"][lid]["ops"][-len(expected_ops(w["diff"])):] == expected_ops(w["diff"]), lid
        assert same_document(st["lists"][lid]["document"], server.doc(lid)), lid
    if mode == "events":
        # The stream went on through the deletion and the reset: one at the start, one after the resume.
        assert len(st["streams"]) == 2, st["streams"]


@pytest.mark.parametrize("mode", ["poll", "events"])
@pytest.mark.parametrize("gate", ["after", "before"])
def test_follow_many_keeps_a_lists_diffs_while_its_document_is_fetched(make_server, browser, mode, gate):
    """Diffs of a list that arrive while its document is fetched after a reset are kept, then those the
    document already holds are dropped and the others applied ("after": an older document, "before": a newer one)."""
    server, (a, b) = many_lists(make_server, browser, "ab", "ab", "ab", mode, ["--retention", "3"])
    browser.execute_script("window.__mf.many.pause()")
    for k in range(5):
        assert server.patch(b, [{"op": "move", "from": f"/sections/{k % 2}/items/0", "path": f"/sections/{1 - k % 2}/items/0"}]).status_code == 200
    reset_to = server.doc(b)["revision"]
    browser.execute_script("window.__mf.many.rec.gate[arguments[0]] = arguments[1]; window.__mf.many.resume()", b, gate)
    wait_for(lambda: b in many_state(browser)["gated"], message="b's document request to be held")

    # b is written twice and a once while b's document is out.
    w1 = server.patch(b, [{"op": "add", "path": "/sections/0/items/0", "value": item("kept-1", "Kept 1")}]).json()
    w2 = server.patch(b, [{"op": "remove", "path": "/sections/2"}]).json()
    wa = server.patch(a, [{"op": "remove", "path": "/sections/1/items/0"}]).json()
    st = wait_for(lambda: (lambda s: s if s["lists"][b]["pending"] and s["lists"][b]["pending"][-1]["to"] == w2["revision"]
                           and s["lists"][a]["revision"] == wa["revision"] else None)(many_state(browser)),
                  message="b's diffs kept and a followed meanwhile")
    pending = st["lists"][b]["pending"]
    assert pending[0]["from"] == reset_to, pending
    assert st["lists"][b]["revision"] == 1 and st["lists"][b]["loading"]

    browser.execute_script("window.__mf.many.rec.release[arguments[0]]()", b)
    st = wait_many(browser, {b: w2["revision"]})
    reason = "event" if mode == "events" else "gone"
    ops = st["lists"][b]["ops"]
    if gate == "after":  # the document is reset_to's: the kept diffs follow it
        fetched = reset_to
        want = [["reset", reset_to, reason]] + [op for d in pending for op in expected_ops(d)]
    else:  # the document already has both writes: the kept diffs are dropped
        fetched = w2["revision"]
        want = [["reset", w2["revision"], reason]]
    assert ops[1:] == want, ops
    assert st["lists"][b]["resets"] == [{"id": b, "reason": reason, "from": 1, "to": fetched}]
    assert st["lists"][b]["pending"] == []
    assert same_document(st["lists"][b]["document"], server.doc(b))
    assert st["lists"][a]["resets"] == [] and same_document(st["lists"][a]["document"], server.doc(a))
    assert w1["revision"] == reset_to + 1


def test_follow_many_failed_count_check_refetches_that_list_only(make_server, browser):
    server, (a, b) = many_lists(make_server, browser, "ab", "ab", "ab")
    browser.execute_script("window.__mf.many.rec.tamper[arguments[0]] = 1", a)
    ra = server.patch(a, [{"op": "remove", "path": "/sections/0/items/0"}]).json()
    rb = server.patch(b, [{"op": "remove", "path": "/sections/0/items/0"}]).json()
    st = wait_many(browser, {a: ra["revision"], b: rb["revision"]})
    assert st["lists"][a]["resets"] == [{"id": a, "reason": "check", "from": 1, "to": ra["revision"]}]
    # Nothing of the bad diff reached a's target: only the initial load and the reset.
    assert st["lists"][a]["ops"] == [["reset", 1, "initial"], ["reset", ra["revision"], "check"]]
    assert same_document(st["lists"][a]["document"], server.doc(a))
    assert st["lists"][b]["resets"] == []
    assert st["lists"][b]["ops"] == [["reset", 1, "initial"]] + expected_ops(rb["diff"])
    # a goes on with diffs after its refetch.
    ra = server.patch(a, [{"op": "move", "from": "/sections/2", "path": "/sections/0"}]).json()
    st = wait_many(browser, {a: ra["revision"]})
    assert st["lists"][a]["ops"][2:] == expected_ops(ra["diff"])


def test_follow_many_retries_network_errors_with_backoff(make_server, browser):
    server, (a, b) = many_lists(make_server, browser, "ab", "ab", "ab")
    t0 = time.monotonic()
    browser.execute_script("const f = window.__mf.many; f.pause(); f.rec.fail = 4; f.resume()")
    ra = server.patch(a, [{"op": "move", "from": "/sections/0", "path": "/sections/2"}]).json()
    st = wait_many(browser, {a: ra["revision"], b: 1})
    # Four failures of the one connection (network errors and 503s), reported without a list id, with backoff
    # 100, 200, 400, 800 ms capped at 1 s, jittered.
    assert [e[1] for e in st["errors"]] == [None] * 4, st["errors"]
    assert "simulated network error" in st["errors"][0][0] and "HTTP 503" in st["errors"][1][0], st["errors"]
    assert time.monotonic() - t0 >= 0.7
    assert st["lists"][a]["resets"] == [] and st["lists"][b]["resets"] == []
    assert st["lists"][a]["ops"][1:] == expected_ops(ra["diff"])
    assert same_document(st["lists"][a]["document"], server.doc(a))
    assert st["state"] == "live"


# ---------------------------------------------------------------------------
# Live queries: follow(…, {query}) and follower.setQuery(q) (API.md "Live queries").

QUERY_SETUP_JS = HELPERS_JS + """
const [listID, mode, query, name, done] = arguments;
import('/client.js').then((m) => {
  window.__m = m;
  const rec = { ops: [], resets: [], diffs: [], errors: [], urls: [] };
  // Every request the follower makes (its polls and query changes; an EventSource is not a fetch).
  const recordingFetch = (url, init) => { rec.urls.push(String(url)); return fetch(url, init); };
  const options = {
    mode, wait: 2, fetch: recordingFetch, backoff: { initial: 100, max: 1000 },
    onReset: (i) => rec.resets.push({ reason: i.reason, from: i.from, to: i.document.revision }),
    onDiff: (d) => rec.diffs.push(d),
    onError: (e) => rec.errors.push(String(e && e.message || e)),
  };
  if (query !== null) options.query = query;
  const f = new m.ListFollower('', listID, recordingTarget(rec.ops), options);
  register('__f', name, f, rec, done);
}, (e) => done('import failed: ' + e));
"""

# Calls setQuery(query) on follower `name`; answers what it resolved to (or why it rejected) and the target's
# operations meanwhile.
SET_QUERY_JS = """
const [name, query, done] = arguments;
const f = window.__f[name];
const before = f.rec.ops.length;
const urls = f.rec.urls.length;
f.setQuery(query).then(
  (doc) => done({ ok: true, document: doc, ops: f.rec.ops.slice(before), urls: f.rec.urls.slice(urls),
                  revision: f.revision, query: f.query }),
  (e) => done({ ok: false, name: e.name, message: e.message, status: e.status ?? null, body: e.body ?? null,
                ops: f.rec.ops.slice(before), revision: f.revision, query: f.query }));
"""

QUERY_STATE_JS = """
const f = window.__f[arguments[0]];
return { revision: f.revision, document: f.document, ops: f.rec.ops, resets: f.rec.resets, diffs: f.rec.diffs,
         errors: f.rec.errors, urls: f.rec.urls, state: f.state, query: f.query };
"""

COLOURS = ["red", "green", "blue"]


def q_text(query):
    return json.dumps(query, separators=(",", ":"))


def query_item(k, n, colour):
    return {"id": f"q{k}", "model": {"text": f"Item {k}", "n": n, "colour": colour}}


def query_base(count=70):
    """Three sections of `count` items in all, each with a distinct `n` (0…count-1, shuffled) and a colour."""
    sections = [{"id": f"s{k}", "title": f"S{k}", "indexTitle": None, "items": []} for k in range(3)]
    for k in range(count):
        sections[k % 3]["items"].append(query_item(k, (k * 37) % count, COLOURS[(k * 7) % 3]))
    return {"kind": "sections", "sections": sections}


def query_doc(server, list_id, query):
    params = {"q": q_text(query)} if query else None
    r = server.get(list_id, params=params)
    assert r.status_code == 200, r.text
    return r.json()


def start_query(driver, list_id, mode, query, name="main"):
    err = driver.execute_async_script(QUERY_SETUP_JS, list_id, mode, query, name)
    assert err is None, err


def query_state(driver, name="main"):
    return driver.execute_script(QUERY_STATE_JS, name)


def set_query(driver, query, name="main"):
    return driver.execute_async_script(SET_QUERY_JS, name, query)


def wait_query_result(driver, server, list_id, query, name="main", timeout=10, revision=False):
    """Waits until the follower holds the query's result as GET ?q= answers it now (and, with `revision`, the
    base's current revision too); returns the follower's state."""
    def check():
        st = query_state(driver, name)
        want = query_doc(server, list_id, query)
        same = same_document(st["document"], want) and st["document"].get("query") == want.get("query")
        if revision:
            same = same and st["revision"] == want["revision"]
        return st if same else None
    return wait_for(check, timeout=timeout,
                    message=f"follower {name} to hold {query} (errors: {browser_errors(driver)})")


def random_base_write(server, list_id, rng, n):
    """A PUT that changes some items' `n` and colour, inserts, deletes and moves items."""
    doc = server.doc(list_id)
    secs = doc["sections"]
    items = [i for s in secs for i in s["items"]]
    for it in items:
        if rng.random() < 0.15:
            it["model"]["n"] = rng.randrange(100)
        if rng.random() < 0.1:
            it["model"]["colour"] = rng.choice(COLOURS)
    for s in secs:
        s["items"] = [i for i in s["items"] if rng.random() > 0.05]
        if rng.random() < 0.3:
            rng.shuffle(s["items"])
    for k in range(rng.randrange(4)):
        rng.choice(secs)["items"].insert(0, query_item(f"{n}-{k}", rng.randrange(100), rng.choice(COLOURS)))
    if rng.random() < 0.3 and secs[0]["items"]:
        secs[-1]["items"].append(secs[0]["items"].pop(0))
    r = server.put(list_id, doc)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_follow_with_a_query_converges_to_the_servers_result(make_server, browser, mode):
    server = make_server()
    list_id = uid("cjs-q")
    assert server.put(list_id, query_base()).status_code == 201
    query = {"where": [{"path": "/model/n", "op": "lt", "value": 50}], "sort": [{"path": "/model/n", "order": "desc"}],
             "limit": 15}
    open_origin(browser, server)
    # The query as JSON text, spelled otherwise than the canonical form: the document names it canonically.
    start_query(browser, list_id, mode, json.dumps({"limit": 15, **query}, indent=1))
    st = query_state(browser)
    want = query_doc(server, list_id, query)
    assert st["ops"] == [["reset", 1, "initial"]]
    assert same_document(st["document"], want) and st["document"]["query"] == want["query"]
    assert st["query"] == {"limit": 15, **query}

    rng = random.Random(11)
    for n in range(12):
        random_base_write(server, list_id, rng, n)
        if n % 3 == 2:  # now and then, wait for it to catch up; else writes pile up between polls
            wait_query_result(browser, server, list_id, query)
    st = wait_query_result(browser, server, list_id, query, timeout=15, revision=(mode == "poll"))
    assert st["resets"] == [], st["resets"]
    assert st["errors"] == [], st["errors"]
    # Each diff moved the result on from where the last one left it; none was a whole refetch.
    assert [op[0] for op in st["ops"]].count("reset") == 1
    if mode == "poll":
        # Every poll asked for the query's result: the first with q as given, then as the next links name it.
        polls = [u for u in st["urls"] if "/diff?" in u]
        assert polls and all("&q=" in u for u in polls), polls
        canonical = "q=" + quote(q_text(want["query"]), safe="-_.!~*'()")
        assert all(canonical in u for u in polls[1:]), polls
        # The document itself was asked with q.
        assert any(f"/v1/lists/{list_id}?q=" in u for u in st["urls"]), st["urls"]


@pytest.mark.parametrize("mode", ["poll", "events"])
def test_set_query_grows_moves_and_filters_as_diffs(make_server, browser, mode):
    server = make_server()
    list_id = uid("cjs-setq")
    assert server.put(list_id, query_base()).status_code == 201
    page = {"sort": [{"path": "/model/n"}], "limit": 20, "sections": "none"}
    open_origin(browser, server)
    start_query(browser, list_id, mode, page)
    st = query_state(browser)
    assert [i["id"] for i in st["document"]["sections"][0]["items"]] == [i["id"] for i in query_doc(server, list_id, page)["sections"][0]["items"]]
    revision = st["revision"]

    def check(answer, query, what):
        assert answer["ok"], (what, answer)
        want = query_doc(server, list_id, query)
        assert same_document(answer["document"], want), what
        assert answer["document"].get("query") == want.get("query"), what
        assert answer["query"] == (query or None), what
        assert answer["revision"] == want["revision"], what
        assert "reset" not in [op[0] for op in answer["ops"]], (what, answer["ops"])
        # The change was one request from the revision held, naming the old query and the new one.
        assert len(answer["urls"]) <= 2, answer["urls"]  # the change, and perhaps the first poll after it
        return want

    # "Show 20 more": limit 20 → 40 inserts the next 20 items after the first 20, nothing else.
    more = {**page, "limit": 40}
    answer = set_query(browser, more)
    check(answer, more, "show 20 more")
    assert [op[0] for op in answer["ops"]] == ["beginUpdates", "insertItems", "endUpdates"], answer["ops"]
    assert [ins["at"] for ins in answer["ops"][1][1]] == [[0, k] for k in range(20, 40)]
    change = answer["urls"][0]
    assert f"/diff?from={revision}&fromQuery=" in change and "&q=" in change, change

    # The window moves: offset 20 (items 20–39), then 40 (items 40–59); what stays does not move.
    window = {**page, "offset": 20}
    answer = set_query(browser, window)
    check(answer, window, "window to offset 20")
    assert [op[0] for op in answer["ops"]] == ["beginUpdates", "deleteItems", "endUpdates"], answer["ops"]
    assert answer["ops"][1][1] == [[0, k] for k in range(20)]
    window = {**page, "offset": 40}
    answer = set_query(browser, window)
    check(answer, window, "window to offset 40")
    assert [op[0] for op in answer["ops"]] == ["beginUpdates", "deleteItems", "insertItems", "endUpdates"], answer["ops"]

    # A filter: the items that leave are deleted, those that enter inserted.
    red = {"where": [{"path": "/model/colour", "op": "eq", "value": "red"}], "sort": [{"path": "/model/n"}],
           "sections": "none"}
    answer = set_query(browser, red)
    want = check(answer, red, "filter red")
    assert {"deleteItems", "insertItems"} <= {op[0] for op in answer["ops"]}, answer["ops"]
    assert all(i["model"]["colour"] == "red" for s in want["sections"] for i in s["items"])

    # Following goes on with the new query: a write that changes its result arrives as a diff.
    first_red = want["sections"][0]["items"][0]["id"]
    doc = server.doc(list_id)
    for s in doc["sections"]:
        for i in s["items"]:
            if i["id"] == first_red:
                i["model"]["colour"] = "blue"
    assert server.put(list_id, doc).status_code == 200
    st = wait_query_result(browser, server, list_id, red)
    assert first_red not in [i["id"] for s in st["document"]["sections"] for i in s["items"]]

    # Back to the whole list (null): the document has no "query" any more.
    answer = set_query(browser, None)
    check(answer, None, "the whole list")
    assert "query" not in answer["document"]
    assert server.patch(list_id, [{"op": "remove", "path": "/sections/0/items/0"}]).status_code == 200
    st = wait_query_result(browser, server, list_id, None, revision=True)
    assert st["resets"] == [] and st["errors"] == [], (st["resets"], st["errors"])
    if mode == "poll":
        # After each change, the polls are the next links of the new query (no fromQuery).
        polls = [u for u in st["urls"] if "/diff?" in u and "fromQuery" not in u]
        assert polls and "q=" not in polls[-1], polls[-1]

    # And from the whole list to a query again: fromQuery={} (without it the request would poll the new query).
    answer = set_query(browser, red)
    check(answer, red, "from the whole list to a filter")
    assert "fromQuery=%7B%7D&q=" in answer["urls"][0], answer["urls"][0]
    assert {"deleteItems", "deleteSections"} & {op[0] for op in answer["ops"]}, answer["ops"]


def test_set_query_on_a_follower_of_the_whole_list(make_server, browser):
    """A follower started without a query takes one, and a filter over sections kept deletes the items (and the
    sections) it leaves out."""
    server = make_server()
    list_id = uid("cjs-setq0")
    assert server.put(list_id, query_base(30)).status_code == 201
    open_origin(browser, server)
    start_query(browser, list_id, "poll", None)
    query = {"where": [{"path": "/section", "op": "ne", "value": "s1"}, {"path": "/model/n", "op": "lt", "value": 20}],
             "sort": [{"path": "/model/n", "order": "desc"}]}
    answer = set_query(browser, query)
    assert answer["ok"], answer
    want = query_doc(server, list_id, query)
    assert same_document(answer["document"], want) and answer["document"]["query"] == want["query"]
    names = [op[0] for op in answer["ops"]]
    assert names[0] == "beginUpdates" and "deleteSections" in names and "reset" not in names, answer["ops"]
    assert server.patch(list_id, [{"op": "add", "path": "/sections/0/items/0", "value": query_item("z", 19.5, "red")}]).status_code == 200
    st = wait_query_result(browser, server, list_id, query)
    assert st["document"]["sections"][0]["items"][0]["id"] == "qz"
    assert st["resets"] == [] and st["errors"] == []


def test_a_refused_query_rejects_set_query_and_following_goes_on(make_server, browser):
    server = make_server()
    list_id = uid("cjs-badq")
    assert server.put(list_id, query_base(12)).status_code == 201
    query = {"where": [{"path": "/model/colour", "op": "eq", "value": "green"}]}
    open_origin(browser, server)
    start_query(browser, list_id, "poll", query)
    time.sleep(0.3)  # a poll is out
    for bad, pointer in (({"limit": 0}, "/q/limit"),
                         ('{"where":[{"path":"/model/n","op":"like","value":1}]}', "/q/where/0/op"),
                         ("not json", "/q")):
        answer = set_query(browser, bad)
        assert not answer["ok"], answer
        assert answer["name"] == "HTTPError" and answer["status"] == 400, answer
        assert answer["body"]["pointer"] == pointer, answer
        assert answer["ops"] == [] and answer["query"] == query
    # Still following the old query: a base write that changes its result arrives as a diff, no reset.
    doc = server.doc(list_id)
    doc["sections"][0]["items"][0]["model"]["colour"] = "green"
    doc["sections"][1]["items"].insert(0, query_item("late", 3, "green"))
    assert server.put(list_id, doc).status_code == 200
    st = wait_query_result(browser, server, list_id, query)
    assert st["resets"] == [] and [op[0] for op in st["ops"]].count("reset") == 1
    assert st["state"] == "live"
    # And a good query after the refused ones applies.
    answer = set_query(browser, {"limit": 2})
    assert answer["ok"] and same_document(answer["document"], query_doc(server, list_id, {"limit": 2})), answer


def test_set_query_from_a_pruned_revision_fetches_the_new_result(make_server, browser):
    """The revision held is gone (410) while the follower is paused: setQuery fetches the new query's document (a
    reset), and following goes on with it after resume()."""
    server = make_server(args=["--retention", "3"])
    list_id = uid("cjs-q410")
    assert server.put(list_id, query_base(20)).status_code == 201
    open_origin(browser, server)
    start_query(browser, list_id, "poll", {"limit": 5, "sections": "none"})
    browser.execute_script("window.__f.main.pause()")
    for k in range(5):
        assert server.patch(list_id, [{"op": "add", "path": "/sections/0/items/0", "value": query_item(f"p{k}", 100 + k, "red")}]).status_code == 200
    assert server.get(f"/v1/lists/{list_id}/diff", params={"from": 1}).status_code == 410
    query = {"sort": [{"path": "/model/n", "order": "desc"}], "limit": 5, "sections": "none"}
    answer = set_query(browser, query)
    assert answer["ok"], answer
    want = query_doc(server, list_id, query)
    assert same_document(answer["document"], want) and answer["document"]["query"] == want["query"]
    assert answer["ops"] == [["reset", want["revision"], "gone"]], answer["ops"]
    browser.execute_script("window.__f.main.resume()")
    assert server.patch(list_id, [{"op": "add", "path": "/sections/1/items/0", "value": query_item("top", 500, "red")}]).status_code == 200
    st = wait_query_result(browser, server, list_id, query)
    assert st["document"]["sections"][0]["items"][0]["id"] == "qtop"
    assert [r["reason"] for r in st["resets"]] == ["gone"]
